"""Case study 3 (cf. Wang et al. 2026, Section 7.2): audit a published risk equation, no \
model fitting.

The Nottingham Prognostic Index (NPI) for operable breast cancer,

    NPI = 0.2 x tumour size [cm] + node stage + histological grade,

node stage 1 = no positive lymph node, 2 = 1-3, 3 = 4 or more; grade 1-3
(Haybittle et al., Br J Cancer 1982;45:361-366; Galea et al., Breast Cancer Res Treat
1992;22:207-219), is computed for the German Breast Cancer Study Group 2 cohort (GBSG2, shipped
with scikit-survival; outcome recurrence-free survival) and audited by menopausal status with
the IPCW xCI. A higher NPI means a worse prognosis, i.e. a higher risk: no sign flip is needed.

    python examples/published_equation.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402
from sksurv.datasets import load_gbsg2  # noqa: E402

import survfair as sf  # noqa: E402
from survfair.plotting import plot_risk_densities, plot_xci_heatmap  # noqa: E402

TAU = 2000.0  # days; both groups keep a censoring survival K_g above 0.23 up to here

#: The published coefficients (Haybittle et al. 1982; Galea et al. 1992), typed in, not fitted.
NPI_SIZE_PER_CM = 0.2
NPI_GRADE = {"I": 1, "II": 2, "III": 3}


def node_stage(positive_nodes: pd.Series) -> pd.Series:
    """NPI lymph-node stage: 1 (no node), 2 (1-3 nodes), 3 (>= 4 nodes)."""
    return pd.Series(
        np.select([positive_nodes == 0, positive_nodes <= 3], [1, 2], default=3),
        index=positive_nodes.index,
    )


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    features, outcome = load_gbsg2()
    data = pd.DataFrame(
        {
            "time": outcome["time"],
            "event": outcome["cens"],  # True = recurrence or death observed
            "menopause": features["menostat"].astype(str).map({"Pre": "pre", "Post": "post"}),
        }
    )
    data["npi"] = (
        NPI_SIZE_PER_CM * features["tsize"] / 10.0  # tsize is in mm
        + node_stage(features["pnodes"])
        + features["tgrade"].astype(str).map(NPI_GRADE)
    )
    if args.quick:
        data = data.sample(400, random_state=0).reset_index(drop=True)
    print(
        f"GBSG2: {len(data)} patients, {int(data['event'].sum())} events; NPI from "
        f"{NPI_SIZE_PER_CM} x size[cm] + node stage + grade (published); IPCW xCI by menopausal "
        f"status, tau = {TAU:g} days."
    )
    comparison = sf.compare(
        "time", "event", "menopause", {"NPI": "npi"}, data=data, tau=TAU, groups=["pre", "post"]
    )
    result = comparison.results["NPI"]
    show("xCI matrix of the NPI (rows: earlier event)", result.matrix)
    show("Summary (one row per equation)", comparison.table.drop(columns=["n", "events"]).T)
    ties = result.counts[["a", "b", "comparable", "tied_risk"]]
    show(
        "Comparable pairs and tied NPI values (the NPI takes few distinct values; ties count 1/2)",
        ties,
    )

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    plot_xci_heatmap(result, ax=axes[0], title="NPI: xCI by menopausal status")
    plot_risk_densities(
        "event", "menopause", "npi", data=data, ax=axes[1], title="NPI by status and event"
    )
    fig.savefig(args.out / "npi_audit.png", dpi=100)
    plt.close(fig)
    sf.write_report(
        args.out / "npi_report.md",
        result,
        settings={
            "equation": "NPI = 0.2 x size[cm] + node stage + grade (Galea et al. 1992)",
            "data": "GBSG2 (scikit-survival)",
            "group": "menopausal status",
        },
    )
    print(f"\nFigure and Markdown report written to {args.out}/")


if __name__ == "__main__":
    main()
