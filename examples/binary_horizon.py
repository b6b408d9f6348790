"""Case study 4: a binary audit (xAUC, Kallus & Zhou 2019) of a 5-year death outcome derived \
from flchain.

scikit-survival ships no binary-outcome cohort with a sensitive attribute, so the binary outcome
is derived: positive = died within HORIZON days, negative = alive and followed beyond HORIZON;
people censored before HORIZON have an unknown label and are excluded (their number is printed).
A Cox model fitted on one half of flchain scores the other half.

xAUC(a, b) = P(score of a positive of group a > score of a negative of group b) is the naive xCI
of the binary data (positives have the earlier "event", every negative outlives every positive),
so survfair.xci(method="naive") gives the xAUC matrix; it is checked against scikit-learn's
roc_auc_score on each cross-group subset. The script draws the xROC curves and the histograms of
conditional xAUC (per positive of a: the share of negatives of b ranked below it).

    python examples/binary_horizon.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402
from sklearn.metrics import roc_auc_score, roc_curve  # noqa: E402
from sksurv.linear_model import CoxPHSurvivalAnalysis  # noqa: E402
from sksurv.util import Surv  # noqa: E402

import survfair as sf  # noqa: E402
from survfair import load_flchain  # noqa: E402
from survfair.plotting import plot_conditional_xauc, plot_xroc  # noqa: E402

HORIZON = 5 * 365.25  # days


def conditional_xauc(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Per positive: share of negatives scored below it (ties 1/2); its mean is xAUC."""
    neg = np.sort(neg)
    below = np.searchsorted(neg, pos, side="left")
    tied = np.searchsorted(neg, pos, side="right") - below
    return (below + 0.5 * tied) / neg.size


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    cohort = load_flchain(
        covariates=("age", "female", "kappa", "lambda", "mgus")
    )  # creatinine not needed: no rows dropped
    frame = cohort.frame
    rng = np.random.default_rng(2)
    order = rng.permutation(len(frame))
    if args.quick:
        order = order[:3000]
    half = order.size // 2
    train, test = frame.iloc[order[:half]], frame.iloc[order[half:]].reset_index(drop=True)
    covariates = list(cohort.covariates)
    model = sf.fit_checked(
        CoxPHSurvivalAnalysis(),
        train[covariates].astype(float),
        Surv.from_arrays(train["event"], train["time"]),
    )
    test = test.assign(score=sf.risk_scores(model, test[covariates].astype(float)))

    positive = test["event"] & (test["time"] <= HORIZON)
    negative = test["time"] > HORIZON
    unknown = ~(positive | negative)
    binary = test[~unknown].assign(label=positive[~unknown].astype(int))
    print(
        f"flchain test half: {len(test)} rows; horizon {HORIZON:g} days: {int(positive.sum())} "
        f"positives, {int(negative.sum())} negatives, {int(unknown.sum())} censored before the "
        "horizon and excluded."
    )

    # xAUC matrix as the naive xCI of the binary data: positives "fail" at time 0, negatives are
    # censored at 1
    xauc = sf.xci(
        np.where(binary["label"] == 1, 0.0, 1.0),
        binary["label"],
        binary["sex"],
        binary["score"],
        method="naive",
        groups=["M", "F"],
    )
    show("xAUC matrix (rows: group of the positive, columns: group of the negative)", xauc.matrix)

    curves, conditional, check = {}, {}, []
    for a in ("M", "F"):
        for b in ("M", "F"):
            pos = binary.loc[(binary["label"] == 1) & (binary["sex"] == a), "score"].to_numpy()
            neg = binary.loc[(binary["label"] == 0) & (binary["sex"] == b), "score"].to_numpy()
            y = np.r_[np.ones(pos.size), np.zeros(neg.size)]
            s = np.r_[pos, neg]
            auc = roc_auc_score(y, s)
            check.append((a, b, xauc.matrix.loc[a, b], auc))
            fpr, tpr, thresholds = roc_curve(y, s)
            kind = "ROC" if a == b else "xROC"
            curves[f"{kind}({a},{b}) = {auc:.3f}"] = pd.DataFrame(
                {"fpr": fpr, "tpr": tpr, "thresholds": thresholds}
            )
            if a != b:
                conditional[f"positives {a} vs negatives {b}"] = pd.Series(
                    conditional_xauc(pos, neg)
                )
    check = pd.DataFrame(check, columns=["a", "b", "survfair xAUC", "sklearn AUC on subset"])
    show("Cross-check with scikit-learn", check)
    assert np.allclose(check["survfair xAUC"], check["sklearn AUC on subset"], atol=1e-12)
    gap = xauc.matrix.loc["M", "F"] - xauc.matrix.loc["F", "M"]
    print(f"\nxAUC disparity xAUC(M,F) - xAUC(F,M) = {gap:+.4f}")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained")
    plot_xroc(curves, ax=axes[0])
    axes[0].set_title("ROC within sex and xROC across sexes")
    plot_conditional_xauc(conditional, ax=axes[1])
    axes[1].set_title("Conditional xAUC")
    fig.savefig(args.out / "binary_xroc.png", dpi=100)
    plt.close(fig)
    print(f"Figure written to {args.out}/binary_xroc.png")


if __name__ == "__main__":
    main()
