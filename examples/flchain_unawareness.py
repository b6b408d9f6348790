"""Case study 1 (Wang et al. 2026, Section 6): fairness through unawareness on flchain.

Four Cox models of death (Cox PH, ridge, lasso, Cox PH without sex) are audited with the IPCW
xCI by sex, then the paper's perturbation (kappa + 1, lambda - 1 for every woman) is applied and
the same four models are refitted and audited again.

    python examples/flchain_unawareness.py [--quick] [--out DIR]

What must hold exactly: the unpenalised Cox model that includes sex gives the same xCI after the
perturbation (the shift of the linear predictor, -(beta_kappa - beta_lambda) for every woman, is
absorbed by the sex coefficient); the model without sex does not. The penalised models are not
exactly invariant, because their penalty also acts on the sex coefficient.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402
from sksurv.linear_model import CoxnetSurvivalAnalysis, CoxPHSurvivalAnalysis  # noqa: E402
from sksurv.util import Surv  # noqa: E402

import survfair as sf  # noqa: E402
from survfair import load_flchain  # noqa: E402
from survfair.plotting import plot_forest, plot_risk_densities  # noqa: E402

TAU = 3650.0  # days: 10 years, before the censoring survival of either sex drops below 0.8
GROUPS = ["M", "F"]  # the paper's orientation: delta_within = xCI[M,M] - xCI[F,F]

# Wang et al. (2026), Table 1: xCI[M,M], xCI[F,F], xCI[M,F], xCI[F,M], delta_within, delta_between
PAPER = pd.DataFrame(
    [
        ("before", "Cox PH", 0.5980, 0.6678, 0.8046, 0.4264, -0.0698, 0.3782),
        ("before", "Ridge", 0.5980, 0.6678, 0.8044, 0.4266, -0.0698, 0.3778),
        ("before", "Lasso", 0.5981, 0.6681, 0.7561, 0.4926, -0.0700, 0.2635),
        ("before", "Without sex", 0.6005, 0.6688, 0.6405, 0.6275, -0.0683, 0.0130),
        ("after", "Cox PH", 0.5980, 0.6678, 0.8046, 0.4264, -0.0698, 0.3782),
        ("after", "Ridge", 0.5980, 0.6677, 0.8045, 0.4265, -0.0697, 0.3780),
        ("after", "Lasso", 0.5965, 0.6671, 0.7542, 0.4928, -0.0706, 0.2614),
        ("after", "Without sex", 0.5960, 0.6661, 0.7749, 0.4646, -0.0701, 0.3103),
    ],
    columns=[
        "data",
        "model",
        "xci[M,M]",
        "xci[F,F]",
        "xci[M,F]",
        "xci[F,M]",
        "delta_within[M,F]",
        "delta_between[M,F]",
    ],
).set_index(["data", "model"])


def models() -> dict:
    """The four models; sklearn-style, fitted on the covariate matrix (with or without 'female')."""
    return {
        "Cox PH": (CoxPHSurvivalAnalysis(), True),
        "Ridge": (CoxPHSurvivalAnalysis(alpha=100.0), True),  # 0.5 * 100 * ||beta||^2 penalty
        "Lasso": (CoxnetSurvivalAnalysis(l1_ratio=1.0, alphas=[0.01]), True),
        "Without sex": (CoxPHSurvivalAnalysis(), False),
    }


def audit(frame: pd.DataFrame, covariates: list[str]) -> sf.ModelComparison:
    y = Surv.from_arrays(frame["event"], frame["time"])
    fitted = {}
    for name, (model, with_sex) in models().items():
        X = frame[[c for c in covariates if with_sex or c != "female"]].astype(float)
        fitted[name] = sf.risk_scores(sf.fit_checked(model, X, y), X)
    return sf.compare("time", "event", "sex", fitted, data=frame, tau=TAU, groups=GROUPS)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    before, after = load_flchain(), load_flchain(perturb=True)
    covariates = list(before.covariates)
    rows = np.arange(len(before.frame))
    if args.quick:
        rows = np.random.default_rng(0).choice(rows, size=1200, replace=False)
    print(
        f"flchain: {before.n_loaded} rows loaded, {before.n_dropped} dropped "
        f"({before.dropped_reason}); {rows.size} analysed. Covariates: {', '.join(covariates)}. "
        f"IPCW xCI by sex, tau = {TAU:g} days."
    )
    results = {}
    for label, cohort in (("before", before), ("after", after)):
        results[label] = audit(cohort.frame.iloc[rows].reset_index(drop=True), covariates)

    columns = list(PAPER.columns) + ["min_xci", "overall"]
    ours = pd.concat({k: v.table[columns] for k, v in results.items()}, names=["data", "model"])
    show("survfair (this run)", ours)
    show("Wang et al. 2026, Table 1", PAPER)

    change = pd.Series(
        {
            name: float(
                np.nanmax(
                    np.abs(
                        results["after"].results[name].values
                        - results["before"].results[name].values
                    )
                )
            )
            for name in results["before"].results
        },
        name="max |xCI after - xCI before|",
    )
    show("Invariance under the perturbation", change.to_frame(), digits=3)
    assert change["Cox PH"] < 1e-12, "an unpenalised Cox model with sex must be exactly invariant"
    assert change["Without sex"] > 1e-3, "the model without sex must change"

    # Figures 2-3 of the paper: risk densities by sex x event status, before and after
    for label, comparison in results.items():
        frame = (before if label == "before" else after).frame.iloc[rows].reset_index(drop=True)
        fig, axes = plt.subplots(1, 4, figsize=(18, 3.8), layout="constrained")
        for ax, (name, scores) in zip(axes, comparison.scores.items()):
            plot_risk_densities(
                frame["event"].to_numpy(), frame["sex"].to_numpy(), scores, ax=ax, title=name
            )
        fig.suptitle(f"Risk scores by sex and event status, {label} the perturbation")
        fig.savefig(args.out / f"flchain_risk_densities_{label}.png", dpi=100)
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    table = pd.concat({k: v.table for k, v in results.items()})
    table.index = [f"{m} ({d})" for d, m in table.index]
    plot_forest(table, ax=ax)
    fig.savefig(args.out / "flchain_forest.png", dpi=100)
    plt.close(fig)
    for label, comparison in results.items():
        if args.quick and label == "before":
            continue  # one report is enough in the small setting
        sf.write_report(
            comparison,
            args.out / f"flchain_unawareness_{label}.html",
            settings={
                "data": f"flchain, {label} the perturbation",
                "covariates": ", ".join(covariates),
                "rows dropped": f"{before.n_dropped} ({before.dropped_reason})",
            },
        )
    print(f"\nFigures and reports written to {args.out}/")


if __name__ == "__main__":
    main()
