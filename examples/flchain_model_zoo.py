"""Case study 2 (structure of Wang et al. 2026, Table 2): Cox PH, random survival forest and \
AFT models.

Each model is fitted on a training split of flchain and audited with the IPCW xCI by sex on the
held-out split, side by side: every xCI cell, delta_within, delta_between, min-xCI and pooled C.

    python examples/flchain_model_zoo.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from _common import parse_args, show  # noqa: E402
from lifelines import LogNormalAFTFitter, WeibullAFTFitter  # noqa: E402
from sksurv.ensemble import RandomSurvivalForest  # noqa: E402
from sksurv.linear_model import CoxPHSurvivalAnalysis  # noqa: E402
from sksurv.util import Surv  # noqa: E402

import survfair as sf  # noqa: E402
from survfair import load_flchain  # noqa: E402
from survfair.plotting import plot_censoring_curves, plot_forest, plot_xci_heatmap  # noqa: E402

TAU = 3650.0
GROUPS = ["M", "F"]


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    cohort = load_flchain()
    frame = cohort.frame
    rng = np.random.default_rng(1)
    order = rng.permutation(len(frame))
    if args.quick:
        order = order[:1500]
    cut = int(0.6 * order.size)
    train, test = (
        frame.iloc[order[:cut]].reset_index(drop=True),
        frame.iloc[order[cut:]].reset_index(drop=True),
    )
    covariates = list(cohort.covariates)
    print(
        f"flchain: {len(train)} training and {len(test)} test rows ({cohort.n_dropped} dropped: "
        f"{cohort.dropped_reason}); covariates {', '.join(covariates)}; IPCW xCI by sex, tau = "
        f"{TAU:g} days."
    )

    X_train, X_test = train[covariates].astype(float), test[covariates].astype(float)
    lifelines_train = X_train.assign(time=train["time"], event=train["event"].astype(int))
    y_train = Surv.from_arrays(train["event"], train["time"])
    n_trees = 15 if args.quick else 200
    fitted = {
        # lifelines' CoxPHFitter stops with "delta contains nan" on this training split
        # (fit_checked turns that into survfair.ConvergenceError), so the Cox model is
        # scikit-survival's, which converges
        "Cox PH": sf.fit_checked(CoxPHSurvivalAnalysis(), X_train, y_train),
        "RSF": sf.fit_checked(
            RandomSurvivalForest(
                n_estimators=n_trees,
                min_samples_leaf=15,
                max_features="sqrt",
                n_jobs=1,
                random_state=0,
            ),
            X_train,
            y_train,
        ),
        "Weibull AFT": sf.fit_checked(WeibullAFTFitter(), lifelines_train, "time", "event"),
        "Log-normal AFT": sf.fit_checked(LogNormalAFTFitter(), lifelines_train, "time", "event"),
    }
    comparison = sf.compare(
        test["time"], test["event"], test["sex"], fitted, X=X_test, tau=TAU, groups=GROUPS
    )
    columns = [
        "xci[M,M]",
        "xci[F,F]",
        "xci[M,F]",
        "xci[F,M]",
        "delta_within[M,F]",
        "delta_between[M,F]",
        "min_xci",
        "overall",
    ]
    show("Held-out IPCW xCI by sex", comparison.table[columns])

    fig, axes = plt.subplots(1, len(fitted), figsize=(4.2 * len(fitted), 3.8), layout="constrained")
    for ax, (name, result) in zip(axes, comparison.results.items()):
        plot_xci_heatmap(result, ax=ax, title=name)
    fig.savefig(args.out / "zoo_heatmaps.png", dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6.5, 3.5), layout="constrained")
    plot_forest(comparison, ax=ax)
    fig.savefig(args.out / "zoo_forest.png", dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
    plot_censoring_curves(comparison.results["Cox PH"], ax=ax)
    fig.savefig(args.out / "zoo_censoring.png", dpi=100)
    plt.close(fig)
    sf.write_report(
        args.out / "flchain_model_zoo.html",
        comparison,
        settings={
            "data": "flchain, held-out 40%",
            "covariates": ", ".join(covariates),
            "RSF trees": n_trees,
        },
    )
    print(f"\nFigures and report written to {args.out}/")


if __name__ == "__main__":
    main()
