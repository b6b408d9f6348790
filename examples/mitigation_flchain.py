"""Closing a cross-group concordance gap by post-processing, with the accuracy cost in view.

Part 1 -- flchain (scikit-survival), group = sex. Two Cox models (Table 1 of Wang et al. 2026):
with sex as a covariate, and without it ("fairness through unawareness"). Here the model without
sex has the large Δbetween (women who die earlier are ranked above men who outlive them far more
often than the reverse). We fit each Cox model and the group shift on one random half of the
cohort and evaluate on the other half, draw the accuracy / fairness frontier, and compare with the
monotone (quantile) adjustment.

Part 2 -- a log-normal model where the optimum is known in closed form: with
log T = b0 + b1 G + b2 Z + eps and the score -(c1 G + c2 Z), the score difference U and the
log-time difference D of a pair are jointly normal, so xCI_{a,b}(d) = P(U > 0, D < 0) / P(D < 0)
for every offset d of group 1 (Proposition 5.1); the fair offset d* solves
xCI_{0,1}(d) = xCI_{1,0}(d). The fitted offset should land on it.

    python examples/mitigation_flchain.py [--quick] [--out DIR]

The frontier plot ``mitigation_frontier.png`` goes to ``--out`` (default: the current directory);
``--quick`` (what tests/test_examples.py runs) uses a coarser frontier and a smaller simulation.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
from _common import parse_args  # noqa: E402
from scipy import optimize, stats  # noqa: E402

import survfair  # noqa: E402
from survfair import ConvergenceError, load_flchain  # noqa: E402
from survfair.mitigate import frontier, group_monotone, group_shift, plot_frontier  # noqa: E402

TAU = 4000.0  # days; both sexes' censoring survival is still >= 0.79 there


def fit_cox(design, time, event):
    """scikit-survival's Cox model; a fit that did not converge is an error, never a result."""
    from sklearn.exceptions import ConvergenceWarning
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = CoxPHSurvivalAnalysis().fit(design, Surv.from_arrays(event=event, time=time))
    if (
        any(issubclass(w.category, ConvergenceWarning) for w in caught)
        or not np.isfinite(model.coef_).all()
    ):
        raise ConvergenceError("the Cox model did not converge")
    return model


def rows(table, metrics=("xci", "delta_between", "min_xci", "overall")):
    shown = table[table["metric"].isin(metrics)][
        ["sample", "metric", "a", "b", "before", "after", "change"]
    ].copy()
    shown[["a", "b"]] = shown[["a", "b"]].map(lambda v: "" if v is None else v)
    return shown.to_string(index=False, float_format="{:.4f}".format)


def flchain(png: Path, n_points: int = 41) -> None:
    cohort = load_flchain()
    rng = np.random.default_rng(2026)
    fit_half = rng.permutation(len(cohort.frame)) < len(cohort.frame) // 2
    print(
        f"flchain: {len(cohort.frame)} people ({cohort.n_dropped} dropped: "
        f"{cohort.dropped_reason}); fit on a random half ({fit_half.sum()}), evaluated on the "
        f"other; tau = {TAU:g} days; group = sex"
    )
    models = {
        "Cox PH with sex": list(cohort.covariates),
        "Cox PH without sex": [c for c in cohort.covariates if c != "female"],
    }
    for label, covariates in models.items():
        frame = cohort.frame
        design = cohort.design[covariates]
        model = fit_cox(
            design[fit_half],
            frame["time"][fit_half].to_numpy(),
            frame["event"][fit_half].to_numpy(),
        )
        frame = frame.assign(risk=model.predict(design))  # higher = earlier death
        shift = group_shift(
            "time",
            "event",
            "sex",
            "risk",
            data=frame,
            tau=TAU,
            fit_on=fit_half,
            objective="abs_delta_between",
            reference_group="M",
        )
        print(
            f"\n== {label} (converged) ==\ngroup shift (objective abs_delta_between): offset of "
            f"women = {shift.offsets['F']:+.4f} (optimality gap {shift.optimality_gap}, "
            f"{shift.n_evaluations} kernel evaluations)"
        )
        print(rows(shift.to_frame()))
        monotone = group_monotone(
            "time",
            "event",
            "sex",
            "risk",
            data=frame,
            tau=TAU,
            fit_on=fit_half,
            reference_group="M",
        )
        print("monotone maps (women's event-score distribution matched to men's):")
        print(rows(monotone.to_frame(), ("delta_between", "min_xci", "overall")))

        held_out = frame[~fit_half]
        result = frontier(
            "time",
            "event",
            "sex",
            "risk",
            data=held_out,
            tau=TAU,
            reference_group="M",
            n_points=n_points,
        )
        curve = result.to_frame()
        best_c = curve.loc[curve["overall"].idxmax()]
        print(
            "frontier on the held-out half: pooled C "
            f"{curve['overall'].min():.4f}-{curve['overall'].max():.4f}; highest at offset "
            f"{best_c['offset']:+.3f}, where |Δbetween| = {best_c['abs_delta_between']:.4f}"
        )
        if label == "Cox PH without sex":
            import matplotlib.pyplot as plt

            fig, axes = plt.subplots(1, 2, figsize=(11, 4))
            plot_frontier(result, ax=axes[0], chosen=shift, sample="evaluation")
            plot_frontier(result, ax=axes[1], fairness="min_xci", chosen=shift, sample="evaluation")
            fig.suptitle(
                f"flchain, held-out half, {label}: group shifts of women's risk (reference: men)"
            )
            fig.tight_layout()
            fig.savefig(png, dpi=120)
            plt.close(fig)
            print(f"frontier plot written to {png}")


# -- log-normal model with a closed-form optimum ----------------------------------------------
B0, B1, B2, SZ, SE = 0.0, 0.5, 1.0, 1.0, 1.0
C1, C2 = -0.3, 1.0  # the score under-weights (reverses) the group effect


def closed_form_cell(d: float, earlier: int) -> float:
    """xCI_{earlier, other} with group 1's risk shifted by d (exact bivariate-normal formula)."""
    sign = 1 if earlier == 0 else -1
    mean_u, mean_d = sign * (C1 - d), -sign * B1
    var_u, var_d, cov_ud = 2 * C2**2 * SZ**2, 2 * B2**2 * SZ**2 + 2 * SE**2, -C2 * B2 * 2 * SZ**2
    joint = stats.multivariate_normal(
        mean=[-mean_u, mean_d], cov=[[var_u, -cov_ud], [-cov_ud, var_d]]
    ).cdf([0, 0])
    return joint / stats.norm.cdf(-mean_d / np.sqrt(var_d))


def simulation(n: int = 8000, seed: int = 7) -> None:
    dstar = optimize.brentq(
        lambda d: closed_form_cell(d, 0) - closed_form_cell(d, 1), -5, 5, xtol=1e-12
    )
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    z = rng.normal(0, SZ, n)
    t = np.exp(B0 + B1 * g + B2 * z + rng.normal(0, SE, n))
    c = rng.exponential(6.0, n)
    time, event, risk = np.minimum(t, c), t <= c, -(C1 * g + C2 * z)
    fit_half = np.arange(n) < n // 2
    shift = group_shift(time, event, g, risk, fit_on=fit_half)
    print(
        f"\nlog-normal model (n = {n}, {1 - event.mean():.0%} censored, IPCW): closed-form d* = "
        f"{dstar:+.4f} (xCI_01 = xCI_10 = {closed_form_cell(dstar, 0):.4f}; unadjusted "
        f"{closed_form_cell(0, 0):.4f} vs {closed_form_cell(0, 1):.4f}); fitted offset = "
        f"{shift.offsets[1]:+.4f}"
    )
    print(rows(shift.to_frame(), ("delta_between", "overall")))


def main(argv=None) -> int:
    args = parse_args(__doc__.splitlines()[0], argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", survfair.PositivityWarning)
        flchain(args.out / "mitigation_frontier.png", n_points=21 if args.quick else 41)
        simulation(n=2000 if args.quick else 8000)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
