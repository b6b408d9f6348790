"""Coverage of survfair's 95% intervals for xCI_{a,b} and Delta-between (issue 5).

Reusable: :func:`coverage_study` takes any cohort generator ``generator(n, rng) -> (time, event,
group, risk)`` and the true tau-truncated matrix ``truth`` (G x G array, rows a = earlier event).
By default (``--setting simulator``) the cohorts come from ``survfair.simulate.lognormal_cohort``
with group-specific censoring and the truth is the exact tau-truncated ``lognormal_xci``; the
self-contained generator with a Monte-Carlo truth (``--setting own``) is kept as a second setting.

Usage::

    python benchmarks/coverage_study.py --n 500 2000 --replications 400 --ci analytic bootstrap \
        [--setting own]
"""

from __future__ import annotations

import argparse
import time as clock
import warnings

import numpy as np
import pandas as pd

import survfair

# log T = MU + SHIFT * g + BETA * Z + SIGMA * eps;
# risk = BETA * Z + RISK_SHIFT * g (higher = earlier)
MU, SHIFT, BETA, SIGMA, RISK_SHIFT = 0.5, 0.3, 0.8, 0.6, 0.3
CENSORING_RATE = (0.15, 0.35)  # exponential censoring, per group
GROUP_SHARE = 0.4  # P(group 1)


def _latent(n: int, rng: np.random.Generator):
    group = (rng.random(n) < GROUP_SHARE).astype(int)
    z = rng.normal(size=n)
    log_t = MU + SHIFT * group - BETA * z + SIGMA * rng.normal(size=n)
    risk = BETA * z + RISK_SHIFT * group
    return np.exp(log_t), group, risk


def lognormal_cohort(n: int, rng: np.random.Generator):
    """Log-normal event times with group-specific exponential censoring:
    (time, event, group, risk)."""
    t, group, risk = _latent(n, rng)
    c = rng.exponential(1 / np.asarray(CENSORING_RATE)[group])
    return np.minimum(t, c), t <= c, group, risk


def lognormal_truth(tau: float, n_mc: int = 200_000, seed: int = 0) -> np.ndarray:
    """Monte-Carlo truth of the tau-truncated xCI matrix: P(R_i > R_j | T_i < T_j, T_i < tau, a, b).

    A large UNCENSORED sample through the IPCW estimator (all K = 1, so only the truncation acts):
    a U-statistic with Monte-Carlo standard error about 1e-3 at the default ``n_mc``.
    """
    t, group, risk = _latent(n_mc, np.random.default_rng(seed))
    res = survfair.xci(t, np.ones(n_mc, bool), group, risk, tau=tau)
    return res.values


#: The simulator setting (survfair.simulate): the paper's Section 5 model (beta1 = 0.8, beta2 = 1,
#: sigma_z = sigma = 0.5) scored by its true linear predictor, with group-specific exponential
#: censoring (group 1: rate 0.5, group 0: rate 0.15) and truncation at tau = 2.
SIMULATOR = dict(beta0=0.0, beta1=0.8, beta2=1.0, sigma_z=0.5, sigma=0.5)
SIMULATOR_CENSORING = {"exponential": {1: 0.5, 0: 0.15}}
SIMULATOR_TAU = 2.0


def simulator_setting(tau: float = SIMULATOR_TAU):
    """(generator, exact truth) from ``survfair.simulate``: cohorts and the exact tau-truncated
    xCI."""
    from survfair.simulate import lognormal_cohort as simulate_cohort
    from survfair.simulate import lognormal_xci

    def generator(n: int, rng: np.random.Generator):
        frame = simulate_cohort(n, **SIMULATOR, censoring=SIMULATOR_CENSORING, random_state=rng)
        return (
            frame["time"].to_numpy(),
            frame["event"].to_numpy(),
            frame["group"].to_numpy(),
            frame["risk"].to_numpy(),
        )

    p = SIMULATOR
    exact = lognormal_xci(
        p["beta1"],
        p["beta2"],
        p["sigma_z"],
        p["sigma"],
        p["beta1"],
        p["beta2"],
        beta0=p["beta0"],
        tau=tau,
    ).matrix
    truth = exact.loc[[0, 1], [0, 1]].to_numpy()  # survfair.xci orders the groups 0, 1
    return generator, truth


def coverage_study(
    generator,
    truth: np.ndarray,
    *,
    n: int,
    n_replications: int = 400,
    ci: str = "analytic",
    tau: float | None = None,
    n_resamples: int = 500,
    confidence_level: float = 0.95,
    seed: int = 0,
    censoring: str = "group",
) -> pd.DataFrame:
    """Share of replications whose interval covers the truth, per cell and per Delta-between.

    Returns
    -------
    DataFrame with columns quantity, a, b, truth, coverage, mean_width, n_valid, seconds.
    """
    truth = np.asarray(truth, dtype=float)
    g = truth.shape[0]
    pairs = [(a, b) for a in range(g) for b in range(a + 1, g)]
    hits = {
        key: []
        for key in [("xci", a, b) for a in range(g) for b in range(g)]
        + [("delta_between", a, b) for a, b in pairs]
    }
    widths = {key: [] for key in hits}
    root = np.random.SeedSequence(seed)
    start = clock.perf_counter()
    for child in root.spawn(n_replications):
        rng = np.random.default_rng(child)
        time, event, group, risk = generator(n, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = survfair.xci(
                time,
                event,
                group,
                risk,
                tau=tau,
                censoring=censoring,
                ci=ci,
                n_resamples=n_resamples,
                random_state=rng,
                confidence_level=confidence_level,
                progress=False,
            )
        low, high = (frame.to_numpy() for frame in res.confidence_interval())
        for a in range(g):
            for b in range(g):
                if np.isfinite(low[a, b]) and np.isfinite(high[a, b]):
                    hits[("xci", a, b)].append(low[a, b] <= truth[a, b] <= high[a, b])
                    widths[("xci", a, b)].append(high[a, b] - low[a, b])
        for a, b in pairs:
            interval = survfair.delta_between(res, res.groups[a], res.groups[b]).confidence_interval
            target = truth[a, b] - truth[b, a]
            if np.isfinite(interval.low) and np.isfinite(interval.high):
                hits[("delta_between", a, b)].append(interval.low <= target <= interval.high)
                widths[("delta_between", a, b)].append(interval.high - interval.low)
    seconds = clock.perf_counter() - start
    rows = []
    for (quantity, a, b), covered in hits.items():
        target = truth[a, b] if quantity == "xci" else truth[a, b] - truth[b, a]
        rows.append(
            {
                "quantity": quantity,
                "a": a,
                "b": b,
                "n": n,
                "ci": ci,
                "truth": target,
                "coverage": float(np.mean(covered)) if covered else np.nan,
                "mean_width": float(np.mean(widths[(quantity, a, b)])) if covered else np.nan,
                "n_valid": len(covered),
                "seconds": seconds,
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--replications", type=int, default=400)
    parser.add_argument("--ci", nargs="+", default=["analytic", "bootstrap"])
    parser.add_argument("--n-resamples", type=int, default=500)
    parser.add_argument("--tau", type=float, default=None, help="default: 2 (simulator) or 3 (own)")
    parser.add_argument(
        "--setting",
        choices=["simulator", "own"],
        default="simulator",
        help="survfair.simulate with its exact truth (default), or the self-contained generator",
    )
    args = parser.parse_args()
    if args.setting == "simulator":
        tau = SIMULATOR_TAU if args.tau is None else args.tau
        generator, truth = simulator_setting(tau)
    else:
        tau = 3.0 if args.tau is None else args.tau
        generator, truth = lognormal_cohort, lognormal_truth(tau)
    print(
        f"setting: {args.setting}, tau = {tau}; "
        "truth (tau-truncated xCI, rows a = earlier event):\n",
        np.round(truth, 4),
    )
    tables = []
    for n in args.n:
        for ci in args.ci:
            table = coverage_study(
                generator,
                truth,
                n=n,
                n_replications=args.replications,
                ci=ci,
                tau=tau,
                n_resamples=args.n_resamples,
                seed=n,
            )
            print(table.to_string(index=False), flush=True)
            tables.append(table)
    print(
        pd.concat(tables).pivot_table(
            index=["quantity", "a", "b"], columns=["n", "ci"], values="coverage"
        )
    )


if __name__ == "__main__":
    main()
