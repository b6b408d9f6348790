"""The exact proportional-hazards reference at any n (issue 43, deliverable 2): the separable
engine (a quadrature of Gönen and Heller's closed form, O(n K G)) against the pairwise O(n^2)
engine, its slow twin, to 1e-10 relative -- cells and individual contributions -- over 120 random
settings (ties, tolerances, spreads, shifts of lp, baselines, the untruncated CPE), the quadrature
against J(c) on a dense grid, and the whole model_based_xci against the pairwise route."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import survfair
import survfair._models.model_based as model_based
from survfair._models.model_based_engine import (
    _range_sums,
    cells_from_contributions,
    ph_exact_contributions,
    ph_log_contributions,
    ph_quadrature,
    ph_separable_contributions,
)

RTOL = 1e-10
FIELDS = ("earlier_numerator", "earlier_denominator", "later_numerator", "later_denominator")
SHIFTS = (0.0, -400.0, 710.0, -2000.0, 5000.0)


def random_setting(seed: int) -> dict:
    """n in 2..400, G in 1..5, lp spread 0..30 and shifted, risk tied (rounded) or not, the default
    or a wide tied_tol, H0(tau) in 1e-6..50 (log-uniform) or inf."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 401))
    n_groups = int(rng.integers(1, 6))
    codes = rng.integers(0, n_groups, n)
    codes[: min(n_groups, n)] = np.arange(min(n_groups, n))
    n_groups = int(codes.max()) + 1
    spread = float(rng.uniform(0.0, 30.0))
    lp = rng.uniform(-spread / 2, spread / 2, n) + 0.1 * spread * codes / max(n_groups, 1)
    lp = lp + SHIFTS[seed % len(SHIFTS)]
    noise = rng.normal(scale=rng.uniform(0.0, 2.0), size=n)
    risk = np.round(lp + noise, int(rng.integers(0, 3))) if rng.random() < 0.6 else lp + noise
    if rng.random() < 0.2:
        risk = lp.copy()  # the model's own score, ties and all
    log_h0 = math.log(10 ** rng.uniform(-6.0, math.log10(50.0)))
    if seed % len(SHIFTS):
        log_h0 -= SHIFTS[seed % len(SHIFTS)]  # the baseline on the scale of the shifted lp
    if rng.random() < 0.1:
        log_h0 = math.inf
    tied_tol = 1e-8 if rng.random() < 0.7 else float(rng.choice([0.05, 0.3, 1.0]))
    return dict(risk=risk, codes=codes, n_groups=n_groups, lp=lp, log_h0=log_h0, tol=tied_tol)


def relative_gap(new: np.ndarray, old: np.ndarray) -> float:
    """Largest |new - old| / |old| (old = 0 must give new = 0; values below 1e-300 are compared
    absolutely: they underflow differently in the two engines)."""
    return float(np.max(np.abs(new - old) / np.maximum(np.abs(old), 1e-300), initial=0.0))


@pytest.mark.parametrize("seed", range(120))
def test_separable_engine_equals_the_pairwise_engine(seed):
    s = random_setting(seed)
    args = (s["risk"], s["codes"], s["n_groups"], s["lp"], s["log_h0"], s["tol"])
    old = ph_log_contributions(*args)
    new = ph_separable_contributions(*args)
    for name in FIELDS:
        assert relative_gap(getattr(new, name), getattr(old, name)) <= RTOL, name
    num_old, den_old = cells_from_contributions(old, s["codes"], s["n_groups"])
    num_new, den_new = cells_from_contributions(new, s["codes"], s["n_groups"])
    assert relative_gap(num_new, num_old) <= RTOL
    assert relative_gap(den_new, den_old) <= RTOL


@pytest.mark.parametrize("truncated", [True, False], ids=["truncated", "untruncated"])
@pytest.mark.parametrize(
    "a_range",
    [(0.0, 0.0), (-1.0, 1.0), (-15.0, 15.0), (-14.0, -12.0), (-40.0, 0.0), (3.0, 8.0)],
    ids=str,
)
def test_quadrature_is_within_its_bound_of_j(a_range, truncated):
    """sum_m W_m e^{-c t_m} against J(c) on 4,000 points of [c_lo, c_hi]: within the proven bound,
    itself below 1e-10."""
    a_min, a_max = a_range
    rule = ph_quadrature(a_min, a_max, truncated)
    assert rule.bound < 3e-11 and rule.bound == pytest.approx(sum(rule.parts))
    c = np.exp(np.linspace(a_min, a_max, 4000) + math.log(2.0))
    weights = np.exp(rule.log_omega + rule.log_t)
    approx = (weights[None, :] * np.exp(-np.outer(c, np.exp(rule.log_t)))).sum(axis=1)
    exact = -np.expm1(-c) / c if truncated else 1.0 / c
    assert np.max(np.abs(approx / exact - 1.0)) <= rule.bound
    assert (weights > 0).all()


@pytest.mark.parametrize("truncated", [True, False], ids=["truncated", "untruncated"])
def test_node_count_follows_the_spread(truncated):
    """About (a_max - a_min) / 0.3 nodes plus a constant: the cost is O(n K G). (Truncated, the
    x below 1 cost no more nodes: J is smooth there.)"""
    sizes = [ph_quadrature(0.0, w, truncated).size for w in (0.0, 10.0, 30.0)]
    assert sizes[0] <= 25 and sizes[1] <= 60 and sizes[2] <= 130
    assert sizes[2] - sizes[1] == pytest.approx(20 / 0.3, abs=8)
    if truncated:
        assert ph_quadrature(-30.0, 0.0, True).size <= 25


def test_range_sums_add_windows_without_differences():
    rng = np.random.default_rng(0)
    values = rng.random((3, 57))
    start = rng.integers(0, 57, 40)
    length = rng.integers(0, 57 - start + 1)
    expected = np.stack([values[:, s : s + m].sum(axis=1) for s, m in zip(start, length)], axis=1)
    np.testing.assert_allclose(_range_sums(values, start, length), expected, rtol=1e-13)


def test_no_cancellation_when_a_person_dominates_his_own_pair():
    """Two people of one group whose hazards differ by e^30: pi of the pair is e^-30 times that of
    either with himself (the separable form's self term); keeping j != i by subtraction would
    leave nothing of it."""
    lp = np.array([0.0, 30.0])
    for risk in (lp, lp[::-1].copy(), np.zeros(2)):
        args = (risk, np.zeros(2, dtype=int), 1, lp, math.log(0.7), 1e-8)
        old, new = ph_log_contributions(*args), ph_separable_contributions(*args)
        for name in FIELDS:
            assert relative_gap(getattr(new, name), getattr(old, name)) <= RTOL


def test_engine_choice_by_cost():
    rng = np.random.default_rng(1)
    few = rng.normal(size=40)
    _, bound = ph_exact_contributions(few, np.zeros(40, dtype=int), 1, few, 0.0, 1e-8)
    assert bound == 0.0  # 1,600 pairs: the pairwise engine
    many = rng.normal(size=3000)
    _, bound = ph_exact_contributions(many, np.zeros(3000, dtype=int), 1, many, 0.0, 1e-8)
    assert 0.0 < bound < 1e-10  # the separable engine, with its proven bound
    spread = 1000.0 * many  # K ~ 20,000 nodes: the n^2 pairs are cheaper
    _, bound = ph_exact_contributions(many, np.zeros(3000, dtype=int), 1, spread, 0.0, 1e-8)
    assert bound == 0.0


# -- the whole estimator against the pairwise route -------------------------------------------


def cohort(n, n_groups, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_groups, n)
    lp = rng.normal(size=n) + 0.5 * codes
    time = rng.exponential(size=n) * np.exp(-lp)
    censor = rng.exponential(scale=2.0, size=n)
    event = time <= censor
    time = np.minimum(time, censor)
    score = np.round(lp + rng.normal(scale=0.2, size=n), 2)
    labels = np.array([f"g{k}" for k in range(n_groups)])[codes]
    return time, event, labels, lp, score


def _pairwise(risk, codes, n_groups, lp, log_cumhaz, tied_tol):
    return ph_log_contributions(risk, codes, n_groups, lp, log_cumhaz, tied_tol), 0.0


@pytest.mark.parametrize(
    "n, n_groups, baseline",
    [(2000, 3, None), (6000, 2, ([0.0, 50.0], [0.0, 40.0])), (10_000, 2, None)],
    ids=["2000-breslow", "6000-given", "10000-breslow"],
)
def test_model_based_xci_equals_the_pairwise_route(monkeypatch, n, n_groups, baseline):
    time, event, labels, lp, score = cohort(n, n_groups)
    tau = float(np.quantile(time[event], 0.8))
    kw = dict(linear_predictor=lp, baseline=baseline, tau=tau, reference_check="flag")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new = survfair.model_based_xci(time, event, labels, score, **kw)
        monkeypatch.setattr(model_based, "ph_exact_contributions", _pairwise)
        old = survfair.model_based_xci(time, event, labels, score, **kw)
    assert new.reference == old.reference == "proportional_hazards"
    np.testing.assert_allclose(new.model_based_values, old.model_based_values, rtol=RTOL)
    np.testing.assert_allclose(new.excess_values, old.excess_values, rtol=RTOL, atol=1e-13)
    frame_new, frame_old = new.to_frame(), old.to_frame()
    for column in ("model_based", "model_based_se", "excess", "excess_se"):
        if column in frame_new:
            np.testing.assert_allclose(
                frame_new[column], frame_old[column], rtol=RTOL, atol=1e-13, err_msg=column
            )
    np.testing.assert_allclose(new.influence, old.influence, rtol=1e-8, atol=1e-14)


def test_auto_is_exact_above_ten_thousand_rows():
    """No Monte Carlo for a PH reference unless asked: 12,000 rows, "auto" gives the exact
    reference (no draws, no Monte-Carlo SE)."""
    time, event, labels, lp, _ = cohort(12_000, 2, seed=3)
    tau = float(np.quantile(time[event], 0.8))
    res = survfair.model_based_xci(time, event, labels, lp, linear_predictor=lp, tau=tau, ci=None)
    assert res.reference == "proportional_hazards"
    assert res.n_draws is None and res.monte_carlo_se is None
    mc = survfair.model_based_xci(
        time,
        event,
        labels,
        lp,
        linear_predictor=lp,
        tau=tau,
        ci=None,
        reference_method="monte_carlo",
        monte_carlo_se=0.01,
        random_state=0,
    )
    assert mc.reference == "proportional_hazards_monte_carlo"
    assert (np.abs(mc.model_based_values - res.model_based_values) < 4 * mc.monte_carlo_se).all()
