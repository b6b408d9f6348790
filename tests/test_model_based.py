"""Model-based xCI (Gönen & Heller 2005 per group pair) and excess asymmetry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from survfair._model_based_engine import (
    cells_from_contributions,
    factorised_contributions,
    grid_terms,
    ph_contributions,
)


def brute_force_cells(risk, codes, n_groups, pi, tied_tol=1e-8):
    """O(n^2) twin: sum_{i in a, j in b, j != i} h(r_i, r_j) pi_ij and sum pi_ij."""
    n = len(risk)
    num = np.zeros((n_groups, n_groups))
    den = np.zeros((n_groups, n_groups))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            d = risk[i] - risk[j]
            h = 1.0 if d > tied_tol else (0.5 if abs(d) <= tied_tol else 0.0)
            num[codes[i], codes[j]] += h * pi[i, j]
            den[codes[i], codes[j]] += pi[i, j]
    return num, den


def brute_force_grid_pi(survival, times, tau):
    """pi_ij = P(T_i < T_j, T_i < tau) with S piecewise linear between grid times (S(0) = 1), by
    integrating over a fine subdivision of every interval (the convention, stated independently)."""
    full_t = np.concatenate([[0.0], times])
    full_s = np.column_stack([np.ones(len(survival)), survival])
    fine = np.unique(np.concatenate([np.linspace(0, tau, 2001), full_t[full_t <= tau], [tau]]))
    s = np.array([np.interp(fine, full_t, row) for row in full_s])
    dens = s[:, :-1] - s[:, 1:]           # mass of each fine interval
    mid = 0.5 * (s[:, :-1] + s[:, 1:])    # P(T_j > T_i | T_i uniform in the interval), T_j linear there
    return dens @ mid.T


def random_curves(rng, n, m):
    times = np.sort(rng.choice(np.arange(1, 4 * m), size=m, replace=False)).astype(float)
    hazard = rng.exponential(0.1, size=(n, m))
    survival = np.exp(-np.cumsum(hazard, axis=1))
    return times, survival


@pytest.mark.parametrize("n_groups", [1, 2, 3, 4])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "tied"])
def test_grid_engine_equals_brute_force(n_groups, ties):
    rng = np.random.default_rng(n_groups + 10 * ties)
    n, m = 40, 7
    times, survival = random_curves(rng, n, m)
    risk = rng.integers(0, 5, n).astype(float) if ties else rng.normal(size=n)
    codes = rng.integers(0, n_groups, n)
    codes[:n_groups] = np.arange(n_groups)
    for tau in (times[3], 0.5 * (times[4] + times[5]), times[-1]):
        f, q = grid_terms(survival, times, tau)
        pi = f @ q.T
        parts = factorised_contributions(risk, codes, n_groups, f, q, 1e-8)
        num, den = cells_from_contributions(parts, codes, n_groups)
        b_num, b_den = brute_force_cells(risk, codes, n_groups, pi)
        np.testing.assert_allclose(num, b_num, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(den, b_den, rtol=1e-12, atol=1e-12)
        # the later members' sums give the same cells
        l_num = np.zeros((n_groups, n_groups))
        np.add.at(l_num.T, codes, parts.later_numerator)
        np.testing.assert_allclose(l_num, b_num, rtol=1e-12, atol=1e-12)


def test_grid_convention_against_fine_integration():
    rng = np.random.default_rng(3)
    times, survival = random_curves(rng, 6, 5)
    tau = 0.5 * (times[2] + times[3])
    f, q = grid_terms(survival, times, tau)
    np.testing.assert_allclose(f @ q.T, brute_force_grid_pi(survival, times, tau), atol=1e-12)


@pytest.mark.parametrize("n_groups", [1, 2, 3])
@pytest.mark.parametrize("cumhaz", [0.3, 2.0, math.inf])
def test_ph_engine_equals_brute_force(n_groups, cumhaz):
    rng = np.random.default_rng(n_groups)
    n = 35
    lp = rng.normal(size=n)
    risk = np.round(lp, 1)  # ties
    codes = rng.integers(0, n_groups, n)
    codes[:n_groups] = np.arange(n_groups)
    h = np.exp(lp)
    pi = h[:, None] / (h[:, None] + h[None, :])
    if math.isfinite(cumhaz):
        pi = pi * (1 - np.exp(-cumhaz) ** (h[:, None] + h[None, :]))
    parts = ph_contributions(risk, codes, n_groups, lp, cumhaz, 1e-8)
    num, den = cells_from_contributions(parts, codes, n_groups)
    b_num, b_den = brute_force_cells(risk, codes, n_groups, pi)
    np.testing.assert_allclose(num, b_num, rtol=1e-12)
    np.testing.assert_allclose(den, b_den, rtol=1e-12)
    l_den = np.zeros((n_groups, n_groups))
    np.add.at(l_den.T, codes, parts.later_denominator)
    np.testing.assert_allclose(l_den, b_den, rtol=1e-12)
