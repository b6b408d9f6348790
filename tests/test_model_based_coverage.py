"""Coverage of the excess Δbetween interval under the true model, and power against a model that
leaves out a group effect (issue 32.2). Slow: run with
``pytest -m slow tests/test_model_based_coverage.py``, or
``python tests/test_model_based_coverage.py`` to print the table.

Criterion. With R = 2,000 replications the Monte-Carlo SE of a coverage near 0.95 is
sqrt(0.95 x 0.05 / R) = 0.0049. A design passes when its coverage is not credibly below 0.93,
coverage + 3 MCSE >= 0.93, and not credibly above 0.95 either (an interval too wide hides excess),
coverage - 4 MCSE <= 0.95. If the true coverage is 0.95 the first fails with probability
P(Z < -7) and the second with P(Z > 4) = 3e-5; the seeds are fixed, so the outcome is reproducible.
"""

from __future__ import annotations

import math
import time as clock
import warnings

import numpy as np
import pytest

import survfair
from survfair.simulate import ph_design

REPLICATIONS = 2000
N = 500


def cumulative_baseline(design, code: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """H0_g(t) of every person's group on the grid, (n, m), for the three PH baselines."""
    shape, scale = np.asarray(design.shape)[code][:, None], np.asarray(design.scale)[code][:, None]
    if design.family == "exponential":
        return grid[None, :] / scale
    if design.family == "weibull":
        return (grid[None, :] / scale) ** shape
    return np.expm1(shape * grid[None, :]) / (shape * scale)


def true_curves(design, cohort, grid):
    code = np.array([design.groups.index(g) for g in cohort["group"]])
    lp = np.asarray(design.group_effect)[code] + design.beta * cohort["z"].to_numpy()
    return np.exp(-cumulative_baseline(design, code, grid) * np.exp(lp)[:, None])


DESIGNS = {
    # different baseline hazards per group; the score is the true linear predictor
    "weibull_scales": (
        ph_design(
            {"old": 0.5, "young": 0.5},
            shape=1.5,
            scale={"old": 2.0, "young": 15.0},
            censoring={"fraction": {"old": 0.1, "young": 0.25}},
            administrative=40.0,
        ),
        15.0,
    ),
    "weibull_shapes": (
        ph_design(
            {"a": 0.4, "b": 0.6},
            shape={"a": 0.8, "b": 2.5},
            scale={"a": 3.0, "b": 15.0},
            group_effect={"a": 0.3, "b": 0.0},
            censoring={"fraction": {"a": 0.1, "b": 0.3}},
            administrative=30.0,
        ),
        15.0,
    ),
    "gompertz": (
        ph_design(
            {"x": 0.5, "y": 0.5},
            baseline="gompertz",
            shape={"x": 0.05, "y": 0.2},
            scale={"x": 4.0, "y": 100.0},
            censoring={"fraction": {"x": 0.1, "y": 0.3}},
            administrative=30.0,
        ),
        25.0,
    ),
}


def coverage(name: str, replications: int = REPLICATIONS, n: int = N, seed: int = 0) -> dict:
    """Coverage of the 95% interval of excess Δbetween (first two groups) at 0, with the true
    curves."""
    design, tau = DESIGNS[name]
    grid = np.linspace(tau / 200, tau, 200)
    a, b = design.groups[:2]
    hits, values, ses, observed = [], [], [], []
    start = clock.perf_counter()
    rng = np.random.default_rng(seed)
    for r in range(replications):
        cohort = design.draw(n, random_state=rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = survfair.model_based_xci(
                "time",
                "event",
                "group",
                "risk",
                data=cohort,
                survival=true_curves(design, cohort, grid),
                times=grid,
                tau=tau,
            )
        est = survfair.excess_delta_between(res, a, b)
        low, high = est.confidence_interval
        hits.append(low <= 0 <= high)
        values.append(est.value)
        ses.append(est.se)
        observed.append(survfair.delta_between(res.observed, a, b).value)
    cov = float(np.mean(hits))
    return dict(
        design=name,
        coverage=cov,
        mcse=math.sqrt(cov * (1 - cov) / replications),
        mean_excess=float(np.mean(values)),
        sd_excess=float(np.std(values, ddof=1)),
        mean_se=float(np.mean(ses)),
        mean_observed_delta=float(np.mean(observed)),
        seconds=clock.perf_counter() - start,
    )


def power(effect: float, replications: int = 500, n: int = N, seed: int = 1) -> dict:
    """Share of p < 0.05 for excess Δbetween when the model (a PH linear predictor beta z, Breslow
    baseline) leaves out a log hazard ratio ``effect`` of group b."""
    design = ph_design(
        {"a": 0.5, "b": 0.5},
        group_effect={"a": 0.0, "b": effect},
        censoring={"fraction": 0.3},
        administrative=25.0,
        score="without_group",
    )
    rng = np.random.default_rng(seed)
    rejected, values = [], []
    start = clock.perf_counter()
    for r in range(replications):
        cohort = design.draw(n, random_state=rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = survfair.model_based_xci(
                "time", "event", "group", "risk", data=cohort, linear_predictor="risk", tau=20.0
            )
        est = survfair.excess_delta_between(res, "a", "b")
        rejected.append(est.p_value < 0.05)
        values.append(est.value)
    return dict(
        effect=effect,
        power=float(np.mean(rejected)),
        mean_excess=float(np.mean(values)),
        seconds=clock.perf_counter() - start,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DESIGNS))
def test_excess_interval_covers_zero_under_the_true_model(name):
    out = coverage(name)
    assert out["coverage"] + 3 * out["mcse"] >= 0.93, out
    assert out["coverage"] - 4 * out["mcse"] <= 0.95, out


@pytest.mark.slow
def test_power_against_a_missing_group_effect():
    out = power(1.0)
    assert out["power"] > 0.8, out


if __name__ == "__main__":
    for name in DESIGNS:
        print(coverage(name), flush=True)
    for effect in (0.0, 0.25, 0.5, 1.0):
        print(power(effect), flush=True)
