"""Tests of survfair.simulate: closed forms against quadrature and Monte Carlo, cohorts, studies,
CLI."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

import survfair
from survfair.cli import main
from survfair.simulate import (
    PAPER_GRID,
    gaussian_xauc,
    ipcw_bias_study,
    lognormal_cohort,
    lognormal_xci,
    plot_study,
    study,
)
from survfair.simulate._lognormal import _pair_law, conditional_moments

PAPER = dict(beta1=0.8, beta2=1.0, sigma_z=0.5, sigma=0.5)
CELLS = [(1, 1), (1, 0), (0, 1), (0, 0)]

# (beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat)
POINTS = [
    pytest.param(0.8, 1.0, 0.5, 0.5, 0.8, 1.0, id="paper"),
    pytest.param(-0.6, 1.0, 0.5, 0.5, 0.3, 1.0, id="beta1<0"),
    pytest.param(0.8, 1.0, 0.5, 0.5, 0.0, 1.0, id="beta1_hat=0"),
    pytest.param(0.4, -0.7, 1.2, 0.3, -0.5, -1.5, id="negative-slopes"),
    pytest.param(1.5, 0.5, 0.8, 1.0, 0.2, 2.0, id="large-shift"),
]


# -- reference implementations (tests only) -------------------------------------------------------
def quadrature_xci(a, b, beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat):
    """xCI_{a,b} (risk orientation) by 1-D quadrature over dZ = Z_i - Z_j.

    U = -(beta1_hat (a - b) + beta2_hat dZ) is a function of dZ, and
    P(D < 0 | dZ) = Phi(-(beta1 (a - b) + beta2 dZ) / (sqrt(2) sigma)).
    """
    sd_dz = math.sqrt(2) * sigma_z
    shift, shift_hat = beta1 * (a - b), beta1_hat * (a - b)

    def p_earlier(x):
        density = math.exp(-0.5 * (x / sd_dz) ** 2) / (sd_dz * math.sqrt(2 * math.pi))
        return density * special.ndtr(-(shift + beta2 * x) / (math.sqrt(2) * sigma))

    denominator = integrate.quad(p_earlier, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12)[0]
    cut = -shift_hat / beta2_hat  # U > 0 <=> beta2_hat dZ < -shift_hat
    if beta2_hat > 0:
        numerator = integrate.quad(p_earlier, -np.inf, cut, epsabs=1e-13, epsrel=1e-12)[0]
    else:
        numerator = integrate.quad(p_earlier, cut, np.inf, epsabs=1e-13, epsrel=1e-12)[0]
    return numerator / denominator


def mc_pairs(a, b, beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat, *, size, rng, beta0=0.0):
    """Independent (i in a, j in b) pairs: risk difference U, D = log T_i - log T_j, L = log T_i."""
    zi, zj = rng.normal(0, sigma_z, size), rng.normal(0, sigma_z, size)
    li = beta0 + beta1 * a + beta2 * zi + rng.normal(0, sigma, size)
    lj = beta0 + beta1 * b + beta2 * zj + rng.normal(0, sigma, size)
    u = -(beta1_hat * (a - b) + beta2_hat * (zi - zj))
    return u, li - lj, li


def binomial_check(hits: np.ndarray, value: float, z: float = 4.5):
    p = hits.mean()
    se = math.sqrt(p * (1 - p) / hits.size)
    assert abs(p - value) < z * se + 1e-12, (p, value, se)
    return abs(p - value), se


# -- exact closed form -----------------------------------------------------------------------------
@pytest.mark.parametrize("beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat", POINTS)
def test_exact_matches_quadrature(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat):
    res = lognormal_xci(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat)
    for a, b in CELLS:
        expected = quadrature_xci(a, b, beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat)
        assert res.matrix.loc[a, b] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat", POINTS)
def test_exact_matches_monte_carlo(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat):
    rng = np.random.default_rng(20260)
    res = lognormal_xci(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat)
    for a, b in CELLS:
        u, d, _ = mc_pairs(
            a, b, beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat, size=300_000, rng=rng
        )
        binomial_check(u[d < 0] > 0, res.matrix.loc[a, b])


def test_comparable_probability_is_p_earlier():
    res = lognormal_xci(**PAPER, beta1_hat=0.8, beta2_hat=1.0)
    sd_d = math.sqrt(2 * (PAPER["beta2"] ** 2 * PAPER["sigma_z"] ** 2 + PAPER["sigma"] ** 2))
    for a, b in CELLS:
        expected = stats.norm.cdf(-PAPER["beta1"] * (a - b) / sd_d)
        assert res.comparable_probability.loc[a, b] == pytest.approx(expected, abs=1e-14)


def test_paper_values_and_labels():
    res = lognormal_xci(**PAPER, beta1_hat=0.8, beta2_hat=1.0)
    assert list(res.matrix.index) == [1, 0] and list(res.matrix.columns) == [1, 0]
    assert res.matrix.index.name == "a (earlier event)"
    # within-group: 1/2 + arcsin(rho)/pi with rho = corr(dZ, D) = 1/sqrt(2) here
    assert res.matrix.loc[1, 1] == pytest.approx(0.75, abs=1e-12)
    assert res.matrix.loc[0, 0] == pytest.approx(0.75, abs=1e-12)
    frame = res.to_frame()
    assert list(frame.columns) == ["a", "b", "comparable_probability", "xci"]
    assert "LognormalXCI(" in repr(res)
    with pytest.raises(ValueError):
        res.cells[0, 0] = 0.0  # read-only


def test_within_group_cells_do_not_depend_on_beta1_hat():
    base = lognormal_xci(**PAPER, beta1_hat=0.2, beta2_hat=1.0).matrix
    for h in (-1.0, 0.0, 0.7, 1.2, 3.0):
        other = lognormal_xci(**PAPER, beta1_hat=h, beta2_hat=1.0).matrix
        assert other.loc[1, 1] == pytest.approx(base.loc[1, 1], abs=1e-14)
        assert other.loc[0, 0] == pytest.approx(base.loc[0, 0], abs=1e-14)
        # tau: still invariant
    trunc = [lognormal_xci(**PAPER, beta1_hat=h, beta2_hat=1.0, tau=2.0).matrix for h in (0.1, 1.1)]
    assert trunc[0].loc[1, 1] == pytest.approx(trunc[1].loc[1, 1], abs=1e-12)


def test_cross_cells_trade_off_in_beta1_hat():
    values = np.array(
        [lognormal_xci(**PAPER, beta1_hat=h, beta2_hat=1.0).cells for h in PAPER_GRID]
    )
    # risk = -(beta1_hat G + ...): a larger beta1_hat lowers group 1's risk
    assert np.all(np.diff(values[:, 0, 1]) < 0)  # (1, 0) falls
    assert np.all(np.diff(values[:, 1, 0]) > 0)  # (0, 1) rises


def test_orientation_paper_is_complement():
    risk = lognormal_xci(-0.3, 1.2, 0.7, 0.4, 0.5, 0.9, tau=1.5)
    paper = lognormal_xci(-0.3, 1.2, 0.7, 0.4, 0.5, 0.9, tau=1.5, orientation="paper")
    np.testing.assert_allclose(paper.values, 1 - risk.values, atol=1e-12)
    assert paper.orientation == "paper"


def test_degenerate_score_ties_count_half_like_the_estimator():
    res = lognormal_xci(**PAPER, beta1_hat=0.5, beta2_hat=0.0)
    np.testing.assert_array_equal(res.values, [[0.5, 0.0], [1.0, 0.5]])
    assert np.all(lognormal_xci(**PAPER, beta1_hat=0.0, beta2_hat=0.0).values == 0.5)
    assert np.all(lognormal_xci(0.8, 1.0, 0.0, 0.5, 0.0, 1.0).values == 0.5)  # sigma_z = 0
    np.testing.assert_array_equal(
        lognormal_xci(**PAPER, beta1_hat=0.5, beta2_hat=0.0, tau=3.0).values,
        [[0.5, 0.0], [1.0, 0.5]],
    )
    # the estimator on a cohort scored the same way gives exactly the same numbers
    df = lognormal_cohort(300, 0.0, **PAPER, beta1_hat=0.5, beta2_hat=0.0, random_state=3)
    est = survfair.xci("time", "event", "group", "risk", data=df, method="naive", groups=[1, 0])
    np.testing.assert_array_equal(est.values, res.values)


@settings(max_examples=25, deadline=None)
@given(
    beta1=st.floats(-2, 2),
    beta2=st.floats(-2, 2),
    sigma_z=st.floats(0.05, 2),
    sigma=st.floats(0.05, 2),
    beta1_hat=st.floats(-2, 2),
    beta2_hat=st.floats(0.05, 3),
    scale=st.floats(0.1, 10),
    beta0=st.floats(-3, 3),
)
def test_invariances(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat, scale, beta0):
    base = lognormal_xci(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat).values
    # ranks of the score are invariant to a positive rescaling of its coefficients
    np.testing.assert_allclose(
        lognormal_xci(beta1, beta2, sigma_z, sigma, scale * beta1_hat, scale * beta2_hat).values,
        base,
        atol=1e-9,
    )
    # order of times is invariant to rescaling log-time and to the intercept (no tau)
    np.testing.assert_allclose(
        lognormal_xci(
            scale * beta1, scale * beta2, sigma_z, scale * sigma, beta1_hat, beta2_hat, beta0=beta0
        ).values,
        base,
        atol=1e-9,
    )
    assert np.all((base >= 0) & (base <= 1))


# -- truncated truth (eq. 5) -----------------------------------------------------------------------
@pytest.mark.parametrize("tau", [0.5, 2.0, 6.0])
def test_truncated_matches_trivariate_normal_cdf(tau):
    params = dict(
        beta0=0.2, beta1=-0.6, beta2=1.0, sigma_z=0.5, sigma=0.5, beta1_hat=0.3, beta2_hat=1.0
    )
    res = lognormal_xci(
        params["beta1"],
        params["beta2"],
        params["sigma_z"],
        params["sigma"],
        params["beta1_hat"],
        params["beta2_hat"],
        beta0=params["beta0"],
        tau=tau,
    )
    for a, b in [(1, 0), (0, 1), (1, 1)]:
        law = _pair_law(a, b, params, -1.0)
        flip = np.diag([-1.0, 1.0, 1.0])  # (-U, D, L) < (0, 0, log tau)
        num = stats.multivariate_normal(
            flip @ law.mean, flip @ law.cov @ flip, abseps=1e-7, releps=0
        ).cdf(np.array([0.0, 0.0, math.log(tau)]))
        den = stats.multivariate_normal(law.mean[1:], law.cov[1:, 1:]).cdf(
            np.array([0.0, math.log(tau)])
        )
        assert res.matrix.loc[a, b] == pytest.approx(num / den, abs=2e-6)
        assert res.comparable_probability.loc[a, b] == pytest.approx(den, abs=1e-12)


@pytest.mark.parametrize("beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat", POINTS[:3])
def test_truncated_matches_monte_carlo(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat):
    rng = np.random.default_rng(7)
    tau, beta0 = 1.3, 0.1
    res = lognormal_xci(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat, beta0=beta0, tau=tau)
    for a, b in CELLS:
        u, d, li = mc_pairs(
            a,
            b,
            beta1,
            beta2,
            sigma_z,
            sigma,
            beta1_hat,
            beta2_hat,
            size=300_000,
            rng=rng,
            beta0=beta0,
        )
        keep = (d < 0) & (li < math.log(tau))
        binomial_check(u[keep] > 0, res.matrix.loc[a, b])


def test_truncated_truth_is_the_estimators_target():
    """Naive xCI of uncensored cohorts restricted to pairs with T_i < tau, averaged over cohorts."""
    tau, reps = 1.5, 20
    truth = lognormal_xci(**PAPER, beta1_hat=0.6, beta2_hat=1.0, tau=tau).values
    rng = np.random.default_rng(11)
    draws = []
    for _ in range(reps):
        df = lognormal_cohort(800, 0.0, **PAPER, beta1_hat=0.6, beta2_hat=1.0, random_state=rng)
        event = df["time"].to_numpy() < tau
        time = np.minimum(df["time"].to_numpy(), tau)
        draws.append(
            survfair.xci(time, event, df["group"], df["risk"], method="naive", groups=[1, 0]).values
        )
    draws = np.array(draws)
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / math.sqrt(reps)
    assert np.all(np.abs(mean - truth) < 4 * se + 2e-3), (mean - truth, se)


def test_large_tau_equals_untruncated():
    np.testing.assert_allclose(
        lognormal_xci(**PAPER, beta1_hat=0.4, beta2_hat=1.0, tau=1e6).values,
        lognormal_xci(**PAPER, beta1_hat=0.4, beta2_hat=1.0).values,
        atol=1e-9,
    )


def test_tiny_tau_is_undefined():
    res = lognormal_xci(**PAPER, beta1_hat=0.4, beta2_hat=1.0, tau=1e-30)
    assert np.all(np.isnan(res.values))


# -- the approximation of Proposition 5.1 ---------------------------------------------------------
def paper_formula(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat):
    """Proposition 5.1 / Remark 5.1 / Appendix C transcribed, with the corrected variance factors.

    Paper orientation: returns (xCI_ab, xCI_ba, xCI_within).
    """
    phi, Phi = stats.norm.pdf, stats.norm.cdf
    s_d = math.sqrt(2 * (beta2**2 * sigma_z**2 + sigma**2))
    k = 2 * beta2 * sigma_z**2
    alpha = -beta1 / s_d
    lam = phi(alpha) / Phi(alpha)
    lam_r = phi(alpha) / (1 - Phi(alpha))
    mu_c, var_c = -k / s_d * lam, 2 * sigma_z**2 - k**2 / s_d**2 * lam * (lam + alpha)
    mu_r, var_r = k / s_d * lam_r, 2 * sigma_z**2 - k**2 / s_d**2 * lam_r * (lam_r - alpha)
    mu_w, var_w = -k / s_d * math.sqrt(2 / math.pi), 2 * sigma_z**2 - k**2 / s_d**2 * 2 / math.pi
    ab = Phi((beta1_hat + beta2_hat * mu_c) / math.sqrt(beta2_hat**2 * var_c))
    ba = Phi(-(beta1_hat + beta2_hat * mu_r) / math.sqrt(beta2_hat**2 * var_r))
    within = Phi(beta2_hat * mu_w / math.sqrt(beta2_hat**2 * var_w))
    return ab, ba, within


@pytest.mark.parametrize("beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat", POINTS)
def test_approx_is_the_corrected_paper_formula(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat):
    res = lognormal_xci(
        beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat, method="approx", orientation="paper"
    )
    ab, ba, within = paper_formula(beta1, beta2, sigma_z, sigma, beta1_hat, beta2_hat)
    m = res.matrix
    assert m.loc[1, 0] == pytest.approx(ab, abs=1e-12)
    assert m.loc[0, 1] == pytest.approx(ba, abs=1e-12)
    assert m.loc[1, 1] == pytest.approx(within, abs=1e-12)
    assert m.loc[0, 0] == pytest.approx(within, abs=1e-12)


def test_approx_within_001_of_exact_at_paper_parameters():
    gaps = []
    for h in PAPER_GRID:
        exact = lognormal_xci(**PAPER, beta1_hat=h, beta2_hat=1.0).values
        approx = lognormal_xci(**PAPER, beta1_hat=h, beta2_hat=1.0, method="approx").values
        gaps.append(np.abs(exact - approx).max())
    assert max(gaps) < 0.01
    assert max(gaps) > 1e-3  # an approximation: dZ | D < 0 is skew-normal, not normal


def test_printed_variance_is_negative_and_corrected_matches_monte_carlo():
    params = dict(beta0=0.0, **PAPER, beta1_hat=0.8, beta2_hat=1.0)
    law = _pair_law(1, 0, params, -1.0)
    _, printed = conditional_moments(law, variance="printed")
    mean, corrected = conditional_moments(law, variance="corrected")
    assert printed < 0 < corrected
    # the corrected moments are the true conditional moments of U given D < 0
    u, d, _ = mc_pairs(
        1, 0, **PAPER, beta1_hat=0.8, beta2_hat=1.0, size=400_000, rng=np.random.default_rng(5)
    )
    sample = u[d < 0]
    assert abs(sample.mean() - mean) < 4.5 * sample.std() / math.sqrt(sample.size)
    assert sample.var() == pytest.approx(corrected, rel=0.01)
    # the reverse cell (D > 0 in the paper's pairing) is corrected too
    law_r = _pair_law(0, 1, params, -1.0)
    u, d, _ = mc_pairs(
        0, 1, **PAPER, beta1_hat=0.8, beta2_hat=1.0, size=400_000, rng=np.random.default_rng(6)
    )
    assert u[d < 0].var() == pytest.approx(conditional_moments(law_r)[1], rel=0.01)


# -- validation of lognormal_xci -------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(sigma=0.0), ValueError, "sigma must be a finite number > 0, got 0.0"),
        (dict(sigma_z=-1.0), ValueError, "sigma_z must be a finite number >= 0, got -1.0"),
        (dict(beta1=float("nan")), ValueError, "beta1 must be a finite number, got nan"),
        (dict(beta2_hat="1"), TypeError, "beta2_hat must be a finite number, got a str"),
        (dict(beta0=True), TypeError, "beta0 must be a finite number, got True"),
        (dict(method="closed"), ValueError, "method must be one of"),
        (dict(orientation="up"), ValueError, "orientation must be one of"),
        (dict(tau=-1.0), ValueError, "tau must be a finite number > 0"),
        (dict(tau=2.0, method="approx"), ValueError, "method='approx'"),
    ],
)
def test_lognormal_xci_validation(kwargs, error, match):
    args = dict(beta1=0.8, beta2=1.0, sigma_z=0.5, sigma=0.5, beta1_hat=0.8, beta2_hat=1.0)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        lognormal_xci(**args)


# -- cohorts ---------------------------------------------------------------------------------------
def test_cohort_columns_and_model():
    df = lognormal_cohort(1000, 0.3, **PAPER, random_state=0)
    assert list(df.columns) == ["time", "event", "group", "z", "log_time", "risk", "censoring_time"]
    assert df["event"].dtype == bool and df["event"].all() and np.isinf(df["censoring_time"]).all()
    np.testing.assert_allclose(df["time"], np.exp(df["log_time"]))
    np.testing.assert_allclose(df["risk"], -(0.8 * df["group"] + 1.0 * df["z"]))
    assert set(df["group"]) == {0, 1}
    resid = df["log_time"] - 0.3 - 0.8 * df["group"] - df["z"]
    assert abs(resid.std() - 0.5) < 0.05 and abs(df["z"].std() - 0.5) < 0.05
    pd.testing.assert_frame_equal(df, lognormal_cohort(1000, 0.3, **PAPER, random_state=0))
    hat = lognormal_cohort(50, 0.0, **PAPER, beta1_hat=0.1, beta2_hat=2.0, random_state=1)
    np.testing.assert_allclose(hat["risk"], -(0.1 * hat["group"] + 2.0 * hat["z"]))


def test_cohort_generator_is_advanced():
    rng = np.random.default_rng(4)
    a = lognormal_cohort(20, 0.0, **PAPER, random_state=rng)
    b = lognormal_cohort(20, 0.0, **PAPER, random_state=rng)
    assert not np.allclose(a["log_time"], b["log_time"])


def _censored_fraction(rate, beta0, beta1_g, beta2, sigma_z, sigma):
    """P(C < T) for C ~ Exp(rate), log T ~ N(beta0 + beta1_g, beta2^2 sigma_z^2 + sigma^2)."""
    sd = math.sqrt(beta2**2 * sigma_z**2 + sigma**2)
    f = lambda x: stats.norm.pdf(x) * (1 - math.exp(-rate * math.exp(beta0 + beta1_g + sd * x)))  # noqa: E731
    return integrate.quad(f, -12, 12)[0]


def test_cohort_group_specific_exponential_censoring():
    n = 20_000
    df = lognormal_cohort(
        n, 0.0, **PAPER, censoring={"exponential": {1: 0.5, 0: 0.05}}, random_state=2
    )
    assert (df["time"] <= df["censoring_time"]).all()
    np.testing.assert_array_equal(df["event"], np.exp(df["log_time"]) <= df["censoring_time"])
    for g, rate in ((1, 0.5), (0, 0.05)):
        sub = df[df["group"] == g]
        expected = _censored_fraction(rate, 0.0, 0.8 * g, 1.0, 0.5, 0.5)
        binomial_check(~sub["event"].to_numpy(), expected)
        assert sub["censoring_time"].mean() == pytest.approx(1 / rate, rel=0.05)


def test_cohort_lognormal_and_administrative_censoring():
    df = lognormal_cohort(
        10_000,
        0.0,
        **PAPER,
        random_state=3,
        censoring={"lognormal": {1: (0.5, 0.4), 0: (1.5, 0.8)}, "administrative": {1: 3.0, 0: 5.0}},
    )
    for g, (mu, sd), end in ((1, (0.5, 0.4), 3.0), (0, (1.5, 0.8), 5.0)):
        sub = df[df["group"] == g]
        assert sub["time"].max() <= end and sub["censoring_time"].max() == end
        c = sub["censoring_time"].to_numpy()
        # below the end of follow-up the censoring times follow the log-normal law
        frac_ended = (c == end).mean()
        assert frac_ended == pytest.approx(stats.norm.sf((math.log(end) - mu) / sd), abs=0.03)
    admin = lognormal_cohort(500, 0.0, **PAPER, censoring={"administrative": 1.0}, random_state=4)
    assert admin["time"].max() <= 1.0
    np.testing.assert_array_equal(admin["event"], np.exp(admin["log_time"]) <= 1.0)
    zero = lognormal_cohort(
        200, 0.0, **PAPER, censoring={"exponential": {1: 0.0, 0: 1.0}}, random_state=5
    )
    assert zero.loc[zero["group"] == 1, "event"].all()


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(n=0), ValueError, "n must be an integer >= 1, got 0"),
        (dict(n=10.5), TypeError, "n must be an integer"),
        (dict(p_group=1.0), ValueError, r"p_group must be a number in \(0, 1\), got 1.0"),
        (dict(sigma=-0.1), ValueError, "sigma must be a finite number > 0, got -0.1"),
        (dict(random_state="seed"), TypeError, "random_state must be None"),
        (dict(random_state=-3), ValueError, "non-negative integer"),
        (dict(censoring=0.3), TypeError, "censoring must be None or a dict"),
        (dict(censoring={}), ValueError, "got an empty dict"),
        (dict(censoring={"weibull": 1.0}), ValueError, r"unknown \['weibull'\]"),
        (dict(censoring={"exponential": 0.1, "lognormal": (0, 1)}), ValueError, "only one of"),
        (dict(censoring={"exponential": {1: 0.1}}), ValueError, r"missing \[0\]"),
        (
            dict(censoring={"exponential": {1: 0.1, 0: 0.1, 2: 0.1}}),
            ValueError,
            r"unknown groups \[2\]",
        ),
        (
            dict(censoring={"exponential": -0.1}),
            ValueError,
            r"censoring\['exponential'\] must be a finite number >= 0, got -0.1",
        ),
        (dict(censoring={"lognormal": 1.0}), TypeError, r"must be a pair \(mu, sd\)"),
        (
            dict(censoring={"lognormal": {1: (0, 0), 0: (0, 1)}}),
            ValueError,
            "sd must be a finite number > 0, got 0.0",
        ),
        (
            dict(censoring={"administrative": 0}),
            ValueError,
            r"censoring\['administrative'\] must be a number > 0, got 0.0",
        ),
    ],
)
def test_cohort_validation(kwargs, error, match):
    args = dict(n=10, beta0=0.0, beta1=0.8, beta2=1.0, sigma_z=0.5, sigma=0.5)
    args.update(kwargs)
    positional = [args.pop(k) for k in ("n", "beta0", "beta1", "beta2", "sigma_z", "sigma")]
    with pytest.raises(error, match=match):
        lognormal_cohort(*positional, **args)


# -- studies ---------------------------------------------------------------------------------------
def test_study_small():
    table = study((0.2, 1.0), n=150, n_replications=4, random_state=1, progress=False)
    assert list(table.columns) == [
        "beta1_hat",
        "a",
        "b",
        "n",
        "n_replications",
        "n_valid",
        "mc_mean",
        "mc_sd",
        "mc_se",
        "exact",
        "approx",
    ]
    assert len(table) == 8 and (table["n_valid"] == 4).all()
    for _, row in table.iterrows():
        cell = lognormal_xci(**PAPER, beta1_hat=row["beta1_hat"], beta2_hat=1.0)
        assert row["exact"] == cell.matrix.loc[row["a"], row["b"]]
    # same cohorts at every grid value: the within-group estimates cannot depend on beta1_hat
    within = table[table["a"] == table["b"]].groupby(["a", "b"])["mc_mean"].nunique()
    assert (within == 1).all()
    assert np.all(np.abs(table["mc_mean"] - table["exact"]) < 5 * table["mc_se"] + 0.01)


def test_study_reproducible_and_validated():
    a = study((0.5,), n=60, n_replications=3, random_state=9, progress=False)
    b = study((0.5,), n=60, n_replications=3, random_state=9, progress=False)
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="n_replications must be an integer >= 2, got 1"):
        study((0.5,), n_replications=1)
    with pytest.raises(ValueError, match="beta1_hat must be a non-empty"):
        study(())
    with pytest.raises(TypeError, match="progress must be True or False"):
        study((0.5,), n_replications=2, progress="yes")


def test_plot_study():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = study((0.2, 0.7, 1.2), n=80, n_replications=3, random_state=2, progress=False)
    axes = plot_study(table)
    assert axes.shape == (2, 2)
    for ax in axes.ravel():
        assert len(ax.get_lines()) >= 2 and ax.get_title().startswith("xCI(")
    # without the model in attrs (e.g. read back from CSV) it draws through the grid points
    fig, own = plt.subplots(1, 4)
    out = plot_study(pd.DataFrame(table.to_dict("list")), axes=own)
    assert out[0, 0] is own[0] and len(own[0].get_lines()[0].get_xdata()) == 3
    plt.close("all")
    with pytest.raises(TypeError, match="table must be the DataFrame"):
        plot_study([1, 2])
    with pytest.raises(ValueError, match="lacks the columns"):
        plot_study(table.drop(columns="exact"))


def test_ipcw_removes_the_bias_of_the_naive_estimator():
    table = ipcw_bias_study(
        n=(400,),
        censoring=[{"exponential": {1: 0.5, 0: 0.05}}],
        n_replications=40,
        estimators=("naive", "ipcw"),
        random_state=123,
        progress=False,
    )
    cell = table[(table["a"] == 1) & (table["b"] == 1)].set_index("estimator")
    naive, ipcw = cell.loc["naive"], cell.loc["ipcw"]
    assert naive["bias"] > 0.02 and naive["bias"] > 5 * naive["mc_se"]
    assert abs(ipcw["bias"]) < 3 * ipcw["mc_se"]
    assert ipcw["rmse"] < naive["rmse"]
    assert (table["n_valid"] == 40).all()
    assert cell["censored_1"].iloc[0] > 0.5 > 0.1 > cell["censored_0"].iloc[0]
    assert cell["k_tau_1"].iloc[0] == pytest.approx(math.exp(-0.5 * 4.0))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(estimators=("naive", "uno")), "estimators must be a non-empty subset"),
        (dict(censoring=[None]), "None is not a censoring design"),
        (dict(n=(2,)), "n must be an integer >= 4, got 2"),
        (dict(tau=0.0), "tau must be a finite number > 0, got 0.0"),
    ],
)
def test_ipcw_bias_study_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ipcw_bias_study(n_replications=2, progress=False, **kwargs)


@pytest.mark.slow
def test_paper_study_agrees_with_exact():
    table = study(PAPER_GRID, n=500, n_replications=50, random_state=2026, progress=False)
    z = (table["mc_mean"] - table["exact"]) / table["mc_se"]
    assert np.all(np.abs(z) < 4), table[np.abs(z) >= 4]


@pytest.mark.slow
def test_ipcw_bias_study_full():
    table = ipcw_bias_study(random_state=2026, progress=False)
    ipcw = table[table["estimator"] == "ipcw"]
    naive = table[table["estimator"] == "naive"]
    assert np.all(np.abs(ipcw["bias"]) < 4 * ipcw["mc_se"] + 0.005)
    heavy = naive[(naive["censoring"].str.contains("0.5")) & (naive["a"] == 1) & (naive["b"] == 1)]
    assert np.all(heavy["bias"] > 5 * heavy["mc_se"])


# -- CLI -------------------------------------------------------------------------------------------
def test_cli_quick(tmp_path, capsys):
    assert main(["simulate", "--quick", "--reps", "2", "--output-dir", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "Figure 1" in out and "IPCW" in out
    for name in ("figure1.png", "figure1_table.csv", "ipcw_bias_table.csv"):
        assert (tmp_path / "o" / name).stat().st_size > 0
    table = pd.read_csv(tmp_path / "o" / "figure1_table.csv")
    assert set(table["beta1_hat"]) == {0.2, 0.6, 0.8, 1.2}


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--n", "2"], "--n must be >= 4"),
        (["--reps", "1"], "--reps must be >= 2"),
        (["--seed", "-1"], "--seed must be >= 0"),
    ],
)
def test_cli_bad_input(argv, match, capsys):
    assert main(["simulate", "--quick", *argv]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1


def test_cli_output_dir_is_a_file(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("x")
    assert main(["simulate", "--quick", "--output-dir", str(path)]) == 2
    assert "not a directory" in capsys.readouterr().err


# -- Gaussian xAUC (Kallus & Zhou 2019, Section 6) -------------------------------------------------
MU = {("a", 0): 0.25, ("a", 1): 0.75, ("b", 0): 0.0, ("b", 1): math.sqrt(0.5)}
SD = {("a", 0): 0.5, ("a", 1): 0.5, ("b", 0): math.sqrt(0.5), ("b", 1): math.sqrt(0.5)}


def test_gaussian_xauc_formula_and_layout():
    res = gaussian_xauc(MU, SD)
    assert list(res.index) == ["a", "b"] and res.index.name == "a (positive)"
    for a in "ab":
        for b in "ab":
            expected = stats.norm.cdf(
                (MU[(a, 1)] - MU[(b, 0)]) / math.hypot(SD[(a, 1)], SD[(b, 0)])
            )
            assert res.loc[a, b] == pytest.approx(expected, abs=1e-15)
    frame_mu = pd.DataFrame({0: [0.25, 0.0], 1: [0.75, math.sqrt(0.5)]}, index=["a", "b"])
    frame_sd = pd.DataFrame({0: [0.5, math.sqrt(0.5)], 1: [0.5, math.sqrt(0.5)]}, index=["a", "b"])
    pd.testing.assert_frame_equal(gaussian_xauc(frame_mu, frame_sd), res)


def test_gaussian_same_aucs_different_xaucs():
    """Appendix A.1: group a fixed, group b on the equal-AUC curve
    (mu_b1 - mu_b0)^2 = (s_b1^2 + s_b0^2) / 2."""
    res = gaussian_xauc(MU, SD)
    assert res.loc["a", "a"] == pytest.approx(res.loc["b", "b"], abs=1e-14)
    disparity = res.loc["a", "b"] - res.loc["b", "a"]
    assert disparity == pytest.approx(0.1056, abs=1e-4)
    # along the curve (variances 0.5) the disparity shrinks to 0 at the configuration symmetric to
    # a's
    gaps = []
    for mu_b0 in np.linspace(0.0, 0.5 - math.sqrt(0.5) / 2, 6):
        mu = {**MU, ("b", 0): mu_b0, ("b", 1): mu_b0 + math.sqrt(0.5)}
        r = gaussian_xauc(mu, SD)
        assert r.loc["a", "a"] == pytest.approx(r.loc["b", "b"], abs=1e-14)
        gaps.append(r.loc["a", "b"] - r.loc["b", "a"])
    assert np.all(np.diff(gaps) < 0) and gaps[-1] == pytest.approx(0.0, abs=1e-12)


def test_gaussian_xauc_matches_simulation():
    rng = np.random.default_rng(8)
    res = gaussian_xauc(MU, SD)
    size = 400_000
    for a in "ab":
        for b in "ab":
            pos = rng.normal(MU[(a, 1)], SD[(a, 1)], size)
            neg = rng.normal(MU[(b, 0)], SD[(b, 0)], size)
            binomial_check(pos > neg, res.loc[a, b])
    # and the survfair estimator on the survival encoding (positive = event at 1, negative =
    # censored at 2)
    m = 1500
    scores, groups, labels = [], [], []
    for (g, y), mu in MU.items():
        scores.append(rng.normal(mu, SD[(g, y)], m))
        groups += [g] * m
        labels += [y] * m
    labels = np.array(labels)
    est = survfair.xci(
        np.where(labels == 1, 1.0, 2.0), labels, groups, np.concatenate(scores), method="naive"
    )
    bound = np.sqrt(
        res.to_numpy() * (1 - res.to_numpy()) / m
    )  # Var(AUC-hat) <= AUC(1-AUC)/min(m, n)
    assert np.all(np.abs(est.values - res.to_numpy()) < 4.5 * bound)


def test_gaussian_xauc_ties_and_validation():
    zero = {(g, y): 0.0 for g in (0, 1) for y in (0, 1)}
    point = gaussian_xauc({(0, 0): 1.0, (0, 1): 1.0, (1, 0): 0.0, (1, 1): 2.0}, zero)
    np.testing.assert_array_equal(point.to_numpy(), [[0.5, 1.0], [1.0, 1.0]])
    with pytest.raises(TypeError, match="mu must be a dict"):
        gaussian_xauc([0.1, 0.2], SD)
    with pytest.raises(ValueError, match="keys must be"):
        gaussian_xauc({("a", 2): 0.1}, SD)
    with pytest.raises(ValueError, match="same"):
        gaussian_xauc(MU, {k: v for k, v in SD.items() if k != ("b", 1)})
    with pytest.raises(ValueError, match="sigma must be >= 0"):
        gaussian_xauc(MU, {**SD, ("a", 0): -1.0})
    with pytest.raises(ValueError, match="need both outcomes"):
        gaussian_xauc(
            {("a", 0): 0.0, ("a", 1): 1.0, ("b", 1): 1.0},
            {("a", 0): 1.0, ("a", 1): 1.0, ("b", 1): 1.0},
        )
    with pytest.raises(ValueError, match="finite number"):
        gaussian_xauc({**MU, ("a", 0): float("inf")}, SD)
    with pytest.raises(ValueError, match="outcome columns"):
        gaussian_xauc(pd.DataFrame({0: [0.0]}), pd.DataFrame({0: [1.0]}))


def test_public_exports():
    assert "simulate" in survfair.__all__
    for name in (
        "lognormal_xci",
        "lognormal_cohort",
        "study",
        "ipcw_bias_study",
        "plot_study",
        "gaussian_xauc",
    ):
        assert name in survfair.simulate.__all__


def test_lognormal_truth_exports_like_every_result():
    import json

    truth = lognormal_xci(0.8, 1.0, 0.5, 0.5, 0.8, 1.0, tau=3.0)
    exported = json.loads(json.dumps(truth.to_dict()))
    assert exported["tau"] == 3.0 and exported["method"] == "exact"
    assert [cell["xci"] for cell in exported["cells"]] == list(truth.cells.ravel())
