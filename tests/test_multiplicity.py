"""Adjusted p-values and the omnibus Wald tests (survfair._core.multiplicity)."""

import json

import numpy as np
import pytest
from scipy import stats

import survfair
from survfair import adjust_p_values, omnibus_test


def _holm(p):
    """Holm's step-down by hand: sort, multiply by (m - rank), running maximum, cap at 1."""
    p = np.asarray(p, float)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate([(m - k) * p[i] for k, i in enumerate(order)])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1)
    return out


def _bh(p):
    p = np.asarray(p, float)
    order = np.argsort(p)[::-1]
    m = len(p)
    adjusted = np.minimum.accumulate([p[i] * m / (m - k) for k, i in enumerate(order)])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1)
    return out


def test_adjusted_p_values_equal_the_hand_computation():
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 0.2, 15)
    np.testing.assert_allclose(adjust_p_values(p), _holm(p), rtol=1e-13)
    np.testing.assert_allclose(adjust_p_values(p, adjust="bh"), _bh(p), rtol=1e-13)
    np.testing.assert_allclose(
        adjust_p_values(p, adjust="bonferroni"), np.minimum(p * 15, 1), rtol=1e-13
    )
    np.testing.assert_array_equal(adjust_p_values(p, adjust="none"), p)


def test_holm_equals_statsmodels_to_the_last_bit():
    """survfair's Holm (without statsmodels' garbage collection) gives statsmodels' numbers
    exactly: random families, ties, p-values at 0 and 1, adjusted values capped at 1."""
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for size in [1, 2, 3, 7, 40, 500]:
        for _ in range(20):
            p = rng.uniform(size=size) ** rng.uniform(0.2, 4)
            p[rng.uniform(size=size) < 0.2] = p[0]  # ties
            p[rng.uniform(size=size) < 0.05] = rng.choice([0.0, 1.0])
            expected = multipletests(p, method="holm")[1]
            np.testing.assert_array_equal(adjust_p_values(p, adjust="holm"), expected)


def test_undefined_tests_stay_nan_and_do_not_count():
    adjusted = adjust_p_values([0.01, np.nan, 0.02])
    assert np.isnan(adjusted[1])
    np.testing.assert_allclose(adjusted[[0, 2]], [0.02, 0.02])  # m = 2, not 3


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            dict(p_values=[0.1], adjust="fdr"),
            ValueError,
            r"adjust must be one of \['holm', 'bh', 'bonferroni', 'none'\]",
        ),
        (dict(p_values=[1.5]), ValueError, r"p_values must lie in \[0, 1\]"),
    ],
)
def test_adjust_p_values_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        adjust_p_values(**kwargs)


def _cohort(n, groups, seed, *, asymmetry=0.0):
    rng = np.random.default_rng(seed)
    group = rng.choice(groups, n)
    risk = rng.normal(size=n)
    # asymmetry: the first group's risk is shifted up, so its members are ranked too high
    time = rng.exponential(np.exp(-risk))
    risk = risk + asymmetry * (group == groups[0])
    censoring = rng.exponential(3.0, n)
    return np.minimum(time, censoring), time <= censoring, group, risk


@pytest.mark.parametrize("method", ["naive", "ipcw"])
def test_two_groups_equal_the_single_wald_test(method):
    t, e, g, r = _cohort(500, ["a", "b"], 1, asymmetry=0.3)
    res = survfair.xci(t, e, g, r, method=method, tau=2.0)
    test = omnibus_test(res)
    delta = survfair.delta_between(res, "a", "b")
    assert test.df == 1 and test.n_contrasts == 1 and test.source == "analytic"
    assert test.statistic == pytest.approx((delta.value / delta.se) ** 2, rel=1e-12)
    assert test.p_value == pytest.approx(delta.p_value, rel=1e-10)


def test_xauc_uses_the_delong_covariance():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    g = rng.choice(["a", "b"], 400)
    s = y + rng.normal(size=400) + 0.5 * (g == "a")
    res = survfair.xauc(y, g, s)
    test = omnibus_test(res)
    delta = survfair.delta_between(res, "a", "b")
    assert test.source == "delong" and test.p_value == pytest.approx(delta.p_value, rel=1e-10)


def _distinct_groups(n, seed):
    """Four groups that differ in risk, hazard and censoring: no degenerate direction."""
    rng = np.random.default_rng(seed)
    g = rng.choice(list("abcd"), n)
    k = np.searchsorted(list("abcd"), g)
    risk = rng.normal(size=n) + 0.5 * k
    time = rng.exponential(np.exp(-risk * (0.5 + 0.4 * k)))
    censoring = rng.exponential(3.0 + k, n)
    return np.minimum(time, censoring), time <= censoring, g, risk


def test_joint_statistic_equals_the_quadratic_form_of_the_dense_covariance():
    from survfair._core.multiplicity import _degenerate_ratio

    t, e, g, r = _distinct_groups(900, 2)
    res = survfair.xci(t, e, g, r, tau=2.0)
    test = omnibus_test(res)
    # the same statistic from the G^2 x G^2 covariance formed explicitly
    weights = []
    for a in range(4):
        for b in range(a + 1, 4):
            w = np.zeros((4, 4))
            w[a, b], w[b, a] = 1, -1
            weights.append(w.ravel())
    weights = np.array(weights)
    d = weights @ res.values.ravel()
    v = weights @ res.covariance @ weights.T
    ratio = _degenerate_ratio(res, 6)
    sd = np.sqrt(np.diag(v))
    r = v / np.outer(sd, sd)  # the rank is decided on the correlation scale (scale-free)
    rank = np.linalg.matrix_rank(r, tol=ratio * np.linalg.eigvalsh(r).max(), hermitian=True)
    assert test.df == rank and test.n_degenerate == 6 - rank
    z = d / sd
    assert test.statistic == pytest.approx(
        float(z @ np.linalg.pinv(r, rcond=ratio, hermitian=True) @ z), rel=1e-9
    )
    assert test.p_value == pytest.approx(stats.chi2.sf(test.statistic, rank), rel=1e-12)
    if rank == 6:  # nothing dropped: the plain quadratic form
        assert test.statistic == pytest.approx(float(d @ np.linalg.solve(v, d)), rel=1e-9)


def test_a_group_ranked_near_the_boundary_is_not_mistaken_for_a_degenerate_direction():
    """One group's risk shifted far down: its cells sit near 0 and 1 and their contrasts have small
    variances, but they carry the whole asymmetry (review: before standardising, p was 0.10)."""
    rng = np.random.default_rng(5)
    g = np.repeat(list("ABCD"), 100)
    risk = rng.normal(size=400)
    time = rng.exponential(np.exp(-risk))
    res = survfair.xci(time, np.ones(400, bool), g, risk - 3.0 * (g == "D"), method="naive")
    test = omnibus_test(res)
    assert test.p_value < 1e-10 and test.df >= 3


def test_exchangeable_groups_have_g_minus_1_first_order_directions():
    """Under exchangeable groups the G(G-1)/2 asymmetries span G - 1 dimensions to first order."""
    t, e, g, r = _cohort(2000, list("abcdef"), 11)
    test = omnibus_test(survfair.xci(t, e, g, r, tau=2.0))
    assert (test.n_contrasts, test.df, test.n_degenerate) == (15, 5, 10)


def test_equal_cells_counts_the_rank_and_within_tests_the_diagonal():
    t, e, g, r = _cohort(600, ["a", "b", "c"], 4)
    res = survfair.xci(t, e, g, r, tau=2.0)
    # exchangeable groups: xCI_ab ~ C + e_a + l_b to first order, so 2(G - 1) = 4 of the 8 contrasts
    assert omnibus_test(res, hypothesis="equal_cells").df == 4
    within = omnibus_test(res, hypothesis="equal_within")
    assert within.df == 2 and within.n_contrasts == 2


def test_undefined_cells_are_left_out_and_counted():
    # group c has no events: its row of cells is undefined, so (a, c) and (b, c) asymmetries are
    # left out
    t, e, g, r = _cohort(600, ["a", "b", "c"], 6)
    e = e & (g != "c")
    with pytest.warns(survfair.UndefinedXCIWarning):
        res = survfair.xci(t, e, g, r, method="naive")
    test = omnibus_test(res)
    assert (test.n_contrasts, test.n_left_out, test.df) == (1, 2, 1)
    assert test.p_value == pytest.approx(survfair.delta_between(res, "a", "b").p_value, rel=1e-10)


def test_without_inference_the_test_is_nan_and_bootstrap_uses_the_replicates():
    t, e, g, r = _cohort(300, ["a", "b"], 7, asymmetry=0.3)
    none = omnibus_test(survfair.xci(t, e, g, r, ci=None))
    assert np.isnan(none.p_value) and none.source == "none"
    boot = survfair.xci(t, e, g, r, ci="bootstrap", n_resamples=300, random_state=0, progress=False)
    test = omnibus_test(boot)
    draws = boot.replicates[:, 0, 1] - boot.replicates[:, 1, 0]
    delta = boot.values[0, 1] - boot.values[1, 0]
    assert test.source == "bootstrap"
    assert test.statistic == pytest.approx(delta**2 / np.var(draws, ddof=1), rel=1e-10)
    assert json.loads(json.dumps(test.to_dict()))["source"] == "bootstrap"


def test_unknown_hypothesis_is_refused():
    t, e, g, r = _cohort(100, ["a", "b"], 8)
    with pytest.raises(ValueError, match=r"hypothesis must be one of"):
        omnibus_test(survfair.xci(t, e, g, r, tau=2.0), hypothesis="all")


def test_a_result_of_another_kind_is_a_type_error_naming_the_argument():
    """A string or an AUC(t) result raised AttributeError ('str' object has no attribute
    'groups')."""
    t, e, g, r = _cohort(100, ["a", "b"], 8)
    with pytest.raises(
        TypeError, match=r"result must be an XCIResult .* or an XAUCResult .*got str"
    ):
        omnibus_test("audit.json")
    curve = survfair.xauc_t(t, e, g, r, times=[float(np.median(t))])
    with pytest.raises(TypeError, match=r"got XAUCtResult; .*pairwise_deltas"):
        omnibus_test(curve)


@pytest.mark.slow
def test_size_under_the_null():
    """Under the null (groups drawn from one distribution, risk unrelated to group) the 5% test
    rejects 5% of the time: within 0.05 +/- 3 Monte-Carlo SE over 2,000 cohorts of 3 groups."""
    reps = 2000
    rejected = 0
    for seed in range(reps):
        t, e, g, r = _cohort(300, ["a", "b", "c"], 10_000 + seed)
        rejected += omnibus_test(survfair.xci(t, e, g, r, tau=2.0)).p_value < 0.05
    share = rejected / reps
    mc_se = np.sqrt(0.05 * 0.95 / reps)
    assert abs(share - 0.05) <= 3 * mc_se, share


def test_the_joint_test_leaves_out_differences_of_cells_with_standard_error_0():
    """Issue 14 audit: a difference of two cells at 100% and 0% has a standard error that is a
    rounding residue of 0 (1e-16), and the joint test printed chi-square(14) = 2.5e33."""
    rng = np.random.default_rng(5)
    group = np.repeat(["a", "b", "c"], 200)
    shift = {"a": 10.0, "b": 0.0, "c": 0.3}
    risk = rng.normal(size=600) + np.array([shift[g] for g in group])
    time = rng.exponential(np.exp(-rng.normal(size=600) - 5.0 * (group == "a")))
    res = survfair.xci(time, np.ones(600, bool), group, risk, method="naive")
    assert (
        survfair.pairwise_deltas(res)
        .query("summary == 'delta_between' and a == 'a' and b == 'b'")["p_value"]
        .isna()
        .all()
    )
    test = survfair.omnibus_test(res)
    # (a, b) and (a, c) use cells at exactly 1 or 0: only (b, c) is tested
    assert (test.n_no_variance, test.n_contrasts, test.df) == (2, 1, 1)
    assert test.statistic < 50 and test.to_dict()["n_no_variance"] == 2
    single = survfair.delta_between(res, "b", "c")
    assert np.isclose(test.statistic, (single.value / single.se) ** 2)
