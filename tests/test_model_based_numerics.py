"""Numerics of the proportional-hazards model-based reference (issue 41, deliverable 5): the cells
in log space against an independent O(n^2) twin, for linear predictors that overflow, underflow or
are shifted; Breslow's baseline on the log scale; the excess of a group with itself; NaN
baselines."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

import survfair
from survfair._calibration.stats import breslow_log_cumulative_hazard
from survfair._core.exceptions import InvalidParameterError
from survfair._models.model_based_engine import (
    cells_from_contributions,
    ph_contributions,
    ph_log_contributions,
    ph_monte_carlo,
)

TIED_TOL = 1e-8
BASELINE = ([0.0, 20.0], [0.0, 30.0])  # H0(t) = 1.5 t


# -- the O(n^2) twin, in log space ---------------------------------------------------------------


def naive_log_pi(a: np.ndarray, truncated: bool) -> np.ndarray:
    """log pi_ij of every ordered pair (-inf on the diagonal), a = lp + log H0(tau):
    log h_i / (h_i + h_j) = a_i - logaddexp(a_i, a_j), and log(1 - exp(-(h_i + h_j) H0)) with
    (h_i + h_j) H0 = exp(logaddexp(a_i, a_j)) (a series where that exponential underflows)."""
    both = np.logaddexp(a[:, None], a[None, :])
    log_pi = a[:, None] - both
    if truncated:
        x = np.exp(np.minimum(both, 50.0))
        with np.errstate(divide="ignore", invalid="ignore"):  # the branch not taken
            log_mass = np.where(both < -40.0, both + np.log1p(-x / 2), np.log(-np.expm1(-x)))
        log_pi = log_pi + log_mass
    np.fill_diagonal(log_pi, -np.inf)
    return log_pi


def naive_kernel(risk: np.ndarray) -> np.ndarray:
    """h(r_i, r_j): 1 if r_i > r_j beyond the tolerance, 1/2 if |r_i - r_j| <= tolerance."""
    d = risk[:, None] - risk[None, :]
    return (d > TIED_TOL) + 0.5 * (np.abs(d) <= TIED_TOL)


def naive_cells(risk, codes, n_groups, a, truncated):
    """Cells sum h pi / sum pi as exp(logsumexp(log pi, b=h) - logsumexp(log pi)) per (a, b)."""
    log_pi = naive_log_pi(a, truncated)
    h = naive_kernel(risk)
    cells = np.full((n_groups, n_groups), np.nan)
    for ga in range(n_groups):
        for gb in range(n_groups):
            block = np.ix_(codes == ga, codes == gb)
            lp_cell, h_cell = log_pi[block], h[block]
            den = logsumexp(lp_cell)
            if not np.isfinite(den):
                continue
            positive = h_cell > 0
            num = logsumexp(lp_cell[positive], b=h_cell[positive]) if positive.any() else -np.inf
            cells[ga, gb] = math.exp(num - den)
    return cells


def naive_influence(risk, codes, n_groups, a, truncated):
    """Influence rows (n, G*G): row k sums (h - theta_ab) pi over its pairs of cell (a, b), as the
    earlier and as the later member, over D_ab; pi scaled by each cell's largest pi (a common
    factor of a cell cancels)."""
    log_pi = naive_log_pi(a, truncated)
    h = naive_kernel(risk)
    n = risk.size
    rows = np.zeros((n, n_groups * n_groups))
    for ga in range(n_groups):
        for gb in range(n_groups):
            cell = (codes[:, None] == ga) & (codes[None, :] == gb)
            cell &= ~np.eye(n, dtype=bool)
            top = log_pi[cell].max()
            w = np.where(cell, np.exp(np.where(cell, log_pi, -np.inf) - top), 0.0)
            theta = (h * w).sum() / w.sum()
            resid = (h - theta) * w
            rows[:, ga * n_groups + gb] = (resid.sum(axis=1) + resid.sum(axis=0)) / w.sum()
    return rows


def naive_log_breslow(time, event, lp, tau):
    """log H0(tau-) = logsumexp over event times s < tau of log d_s - logsumexp_{T_j >= s} lp_j."""
    terms = [
        math.log(np.sum(event & (time == s))) - logsumexp(lp[time >= s])
        for s in np.unique(time[event & (time < tau)])
    ]
    return logsumexp(terms) if terms else -math.inf


# -- data ------------------------------------------------------------------------------------------


def cohort(n_groups, *, ties, seed=0, n=72):
    rng = np.random.default_rng(seed + 10 * n_groups + 100 * ties)
    codes = rng.integers(0, n_groups, n)
    codes[:n_groups] = np.arange(n_groups)
    lp = rng.normal(size=n) + 0.6 * codes
    if ties:
        lp = np.round(lp, 1)
    time = rng.exponential(size=n) * np.exp(-lp)
    event = rng.random(n) < 0.75
    # another score, tied, that mostly follows lp (the reference refuses one that does not)
    score = np.round(lp + rng.normal(scale=0.15, size=n), 1)
    tau = float(np.quantile(time[event], 0.7))
    labels = np.array(["g0", "g1", "g2"])[codes]
    return dict(time=time, event=event, codes=codes, labels=labels, lp=lp, score=score, tau=tau)


TRANSFORMS = {
    "lp": lambda lp: lp,
    "lp-400": lambda lp: lp - 400.0,
    "lp+710": lambda lp: lp + 710.0,
    "lp*1000": lambda lp: lp * 1000.0,
    "lp*1e-6": lambda lp: lp * 1e-6,
}


def _fit(data, lp, risk, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return survfair.model_based_xci(
            data["time"],
            data["event"],
            data["labels"],
            risk,
            linear_predictor=lp,
            tau=data["tau"],
            tied_tol=TIED_TOL,
            **kw,
        )


@pytest.mark.parametrize("transform", list(TRANSFORMS), ids=list(TRANSFORMS))
@pytest.mark.parametrize("n_groups", [1, 2, 3])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "tied"])
@pytest.mark.parametrize("baseline", ["given", "breslow"])
@pytest.mark.parametrize("score", ["own", "other"])
def test_cells_equal_the_log_space_brute_force(transform, n_groups, ties, baseline, score):
    data = cohort(n_groups, ties=ties)
    lp = TRANSFORMS[transform](data["lp"])
    risk = lp if score == "own" else data["score"]
    if baseline == "given":
        res = _fit(data, lp, risk, baseline=BASELINE, ci=None)
        log_h0 = math.log(1.5 * data["tau"])
    else:
        res = _fit(data, lp, risk, ci=None)
        log_h0 = naive_log_breslow(data["time"], data["event"], lp, data["tau"])
    expected = naive_cells(risk, data["codes"], n_groups, lp + log_h0, truncated=True)
    np.testing.assert_allclose(res.model_based_values, expected, rtol=1e-10)


def test_a_near_deterministic_ranking_has_cells_near_one():
    """lp x 1000 ranks almost surely in the order of lp: a score equal to lp is right in nearly
    every pair (the underflowed shares of the former engine gave 0.4-0.65)."""
    data = cohort(2, ties=False, n=200)
    lp = data["lp"] * 1000.0
    for kw in (dict(baseline=BASELINE), {}):
        res = _fit(data, lp, lp, ci=None, **kw)
        assert (res.model_based_values > 0.99).all()


@pytest.mark.parametrize("shift", [-400.0, 710.0, -2000.0, 5000.0])
def test_breslow_reference_is_invariant_to_a_shift_of_lp(shift):
    data = cohort(3, ties=True)
    base = _fit(data, data["lp"], data["score"])
    moved = _fit(data, data["lp"] + shift, data["score"])
    np.testing.assert_allclose(moved.model_based_values, base.model_based_values, rtol=1e-12)
    np.testing.assert_allclose(moved.influence, base.influence, rtol=1e-9, atol=1e-13)


def test_log_breslow_equals_its_brute_force_and_shifts_back():
    data = cohort(2, ties=True)
    time, event, lp, tau = data["time"], data["event"], data["lp"], data["tau"]
    value = breslow_log_cumulative_hazard(time, event, lp, tau, inclusive=False)
    assert value == pytest.approx(naive_log_breslow(time, event, lp, tau), rel=1e-13)
    for shift in (-800.0, 800.0):
        moved = breslow_log_cumulative_hazard(time, event, lp + shift, tau, inclusive=False)
        assert moved == pytest.approx(value - shift, abs=1e-11)
    assert breslow_log_cumulative_hazard(time, event, lp, 0.0) == -math.inf


@pytest.mark.parametrize("transform", ["lp", "lp*1000", "lp-2000"])
@pytest.mark.parametrize("n_groups", [1, 2, 3])
def test_influence_rows_equal_the_brute_force(transform, n_groups):
    """With lp - 2000 every pi is below e^-600: the cells are summed scaled by their largest pi,
    and the influence rows (over the cell's denominator) do not see the factor."""
    data = cohort(n_groups, ties=True, n=50)
    lp = {"lp": data["lp"], "lp*1000": data["lp"] * 1000.0, "lp-2000": data["lp"] - 2000.0}[
        transform
    ]
    res = _fit(data, lp, data["score"], baseline=BASELINE)
    a = lp + math.log(1.5 * data["tau"])
    expected = naive_influence(data["score"], data["codes"], n_groups, a, truncated=True)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(res.influence, expected, rtol=1e-8, atol=1e-12 * scale)


@pytest.mark.parametrize("transform", ["lp", "lp*1000", "lp-800"])
@pytest.mark.parametrize("n_groups", [1, 2, 3])
def test_untruncated_engine_equals_the_brute_force(transform, n_groups):
    """H0 = inf: Gönen and Heller's CPE, pi_ij = h_i / (h_i + h_j)."""
    data = cohort(n_groups, ties=True)
    lp = {"lp": data["lp"], "lp*1000": data["lp"] * 1000.0, "lp-800": data["lp"] - 800.0}[transform]
    codes, risk = data["codes"], data["score"]
    for parts in (
        ph_contributions(risk, codes, n_groups, lp, math.inf, TIED_TOL),
        ph_log_contributions(risk, codes, n_groups, lp, math.inf, TIED_TOL),
    ):
        num, den = cells_from_contributions(parts, codes, n_groups)
        expected = naive_cells(risk, codes, n_groups, lp, truncated=False)
        np.testing.assert_allclose(num / den, expected, rtol=1e-10)


def test_groups_separated_by_far_more_than_the_exponent_range():
    """Group 1's lp lies 2000 above group 0's: every pi of cell (0, 1) is below e^-2000, and
    the cell is still the ratio of its sums."""
    data = cohort(2, ties=False)
    lp = data["lp"] + 2000.0 * data["codes"]
    score = data["score"] + data["codes"]  # mostly, not always, higher in group 1
    for baseline, log_h0 in ((BASELINE, math.log(1.5 * data["tau"])), (None, None)):
        res = _fit(data, lp, score, baseline=baseline, ci=None)
        if log_h0 is None:
            log_h0 = naive_log_breslow(data["time"], data["event"], lp, data["tau"])
        expected = naive_cells(score, data["codes"], 2, lp + log_h0, truncated=True)
        assert 0 < expected[0, 1] < 1
        np.testing.assert_allclose(res.model_based_values, expected, rtol=1e-10)


def test_no_mass_before_tau_gives_zero_weights():
    """H0(tau) = 0 (a baseline flat at 0 until tau): every pi is 0, no cell is defined."""
    data = cohort(2, ties=False)
    codes, risk = data["codes"], data["score"]
    for parts in (
        ph_contributions(risk, codes, 2, data["lp"], 0.0, TIED_TOL),
        ph_log_contributions(risk, codes, 2, data["lp"], -math.inf, TIED_TOL),
    ):
        num, den = cells_from_contributions(parts, codes, 2)
        assert not num.any() and not den.any()


@pytest.mark.parametrize("shift", [710.0, -400.0])
def test_monte_carlo_reference_takes_log_h0(shift):
    data = cohort(2, ties=False, n=150)
    kw = dict(reference_method="monte_carlo", monte_carlo_se=0.01, random_state=3, ci=None)
    base = _fit(data, data["lp"], data["score"], **kw)
    moved = _fit(data, data["lp"] + shift, data["score"], **kw)
    np.testing.assert_allclose(moved.model_based_values, base.model_based_values, atol=1e-12)
    exact = _fit(data, data["lp"], data["score"], ci=None)
    assert (np.abs(base.model_based_values - exact.model_based_values) < 0.05).all()


# -- the excess of a group with itself ------------------------------------------------------------


@pytest.mark.parametrize("ci", ["analytic", "bootstrap", None])
def test_excess_of_a_group_with_itself_is_exactly_zero(ci):
    data = cohort(2, ties=False)
    res = _fit(data, data["lp"], data["score"], ci=ci, n_resamples=30, random_state=0)
    observed = survfair.xci(
        data["time"],
        data["event"],
        data["labels"],
        data["score"],
        tau=data["tau"],
        ci=ci,
        n_resamples=30,
        random_state=0,
    )
    for excess, plain in (
        (survfair.excess_delta_between, survfair.delta_between),
        (survfair.excess_delta_within, survfair.delta_within),
    ):
        for group in ("g0", "g1"):
            got, reference = excess(res, group, group), plain(observed, group, group)
            assert got.value == 0.0
            if ci is None:
                assert math.isnan(got.se) and math.isnan(got.p_value)
                continue
            assert got.se == 0.0
            assert tuple(got.confidence_interval) == (0.0, 0.0)
            # the p-value of an exact 0 as the observed matrix gives it: NaN (Wald), 1 (bootstrap)
            if math.isnan(reference.p_value):
                assert math.isnan(got.p_value)
            else:
                assert got.p_value == reference.p_value


# -- refusals -------------------------------------------------------------------------------------


def test_nan_baseline_is_refused_not_read_as_untruncated():
    data = cohort(2, ties=False)
    with pytest.raises(InvalidParameterError, match="baseline") as info:
        _fit(data, data["lp"], data["score"], baseline=([0.0, 20.0], [0.0, np.nan]))
    assert info.value.parameter == "baseline"
    codes, risk, lp = data["codes"], data["score"], data["lp"]
    calls = (
        lambda: ph_contributions(risk, codes, 2, lp, math.nan, TIED_TOL),
        lambda: ph_log_contributions(risk, codes, 2, lp, math.nan, TIED_TOL),
        lambda: ph_monte_carlo(
            risk,
            codes,
            2,
            lp,
            math.nan,
            TIED_TOL,
            target_se=0.01,
            max_draws=5,
            min_draws=5,
            rng=np.random.default_rng(0),
        ),
    )
    for call in calls:
        with pytest.raises(InvalidParameterError, match="NaN|>= 0") as info:
            call()
        assert info.value.parameter == "baseline"
