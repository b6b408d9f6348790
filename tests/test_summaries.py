"""Summaries of a result: the all-pairs table equals the per-pair functions, bit for bit."""

import numpy as np
import pytest
from conftest import make_data

import survfair


@pytest.mark.parametrize("ci", [None, "analytic", "bootstrap"])
def test_pairwise_deltas_equal_the_per_pair_estimates(ci):
    time, event, codes, risk = make_data(400, 4, 2)
    options = {"n_resamples": 200, "random_state": 0} if ci == "bootstrap" else {}
    res = survfair.xci(time, event, codes, risk, tau=20.0, ci=ci, **options)
    table = survfair.pairwise_deltas(res)
    assert len(table) == 2 * 6 and list(table["summary"][:2]) == ["delta_within", "delta_between"]
    for row in table.itertuples(index=False):
        function = (
            survfair.delta_within if row.summary == "delta_within" else survfair.delta_between
        )
        estimate = function(res, row.a, row.b)
        expected = (estimate.value, estimate.se, *estimate.confidence_interval, estimate.p_value)
        # analytic: a difference's variance and a contrast's are read from the moment engine's
        # covariance by two formulas (f,f + s,s - 2 f,s against w' C w), equal to rounding
        np.testing.assert_allclose(
            (row.value, row.se, row.ci_low, row.ci_high, row.p_value), expected, rtol=1e-12
        )


def test_pairwise_deltas_of_an_xauc_result_use_its_delong_covariance():
    rng = np.random.default_rng(4)
    y, group = rng.integers(0, 2, 300), np.array(["a", "b", "c"])[rng.integers(0, 3, 300)]
    res = survfair.xauc(y, group, y + rng.normal(size=300))
    table = survfair.pairwise_deltas(res)
    for row in table.itertuples(index=False):
        function = (
            survfair.delta_within if row.summary == "delta_within" else survfair.delta_between
        )
        estimate = function(res, row.a, row.b)
        np.testing.assert_allclose(
            (row.value, row.se, row.ci_low, row.ci_high, row.p_value),
            (estimate.value, estimate.se, *estimate.confidence_interval, estimate.p_value),
            rtol=1e-12,
        )


def test_pairwise_deltas_of_one_group_is_empty():
    time, event, _, risk = make_data(50, 1, 0)
    table = survfair.pairwise_deltas(survfair.xci(time, event, np.zeros(50), risk, method="naive"))
    assert table.empty and list(table.columns) == [
        "summary",
        "a",
        "b",
        "value",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
    ]


def test_overall_c_of_an_xauc_result_is_its_pooled_auc_with_delong_se():
    rng = np.random.default_rng(6)
    y, group = rng.integers(0, 2, 200), np.array(["a", "b"])[rng.integers(0, 2, 200)]
    res = survfair.xauc(y, group, y + rng.normal(size=200))
    assert survfair.overall_c(res) == res.overall_estimate()
    assert survfair.overall_c(res).se > 0


@pytest.mark.parametrize("ci", [None, "analytic", "bootstrap"])
def test_every_objective_is_a_summary_with_the_scorer_value(ci):
    """Issue 19: min-xCI, |Δbetween|, max-min utility and Nash welfare are summaries of a result,
    equal to what the scorer (and mitigation) optimise."""
    from sksurv.util import Surv

    time, event, codes, risk = make_data(400, 3, 2)
    options = {"n_resamples": 200, "random_state": 0} if ci == "bootstrap" else {}
    res = survfair.xci(time, event, codes, risk, tau=20.0, ci=ci, **options)
    y = Surv.from_arrays(event=event, time=time)
    m = res.values
    u = [sum(m[a, b] + m[b, a] for b in range(3) if b != a) for a in range(3)]
    gaps = [abs(m[a, b] - m[b, a]) for a in range(3) for b in range(a + 1, 3)]
    assert survfair.min_utility(res).value == pytest.approx(min(u), abs=1e-12)
    assert survfair.nash_welfare(res).value == pytest.approx(np.prod(u), rel=1e-12)
    assert survfair.abs_delta_between(res).value == pytest.approx(max(gaps), abs=1e-12)
    for name, value in (
        ("min_utility", min(u)),
        ("nash_welfare", np.prod(u)),
        ("abs_delta_between", -max(gaps)),
    ):
        assert survfair.xci_score(y, risk, group=codes, statistic=name, tau=20.0) == pytest.approx(
            value, rel=1e-12
        )
    if (
        ci is not None
    ):  # every interval contains its estimate (Bonferroni ranges, delta method, bootstrap)
        for estimate in (
            survfair.min_utility(res),
            survfair.abs_delta_between(res),
            survfair.nash_welfare(res),
        ):
            low, high = estimate.confidence_interval
            assert low <= estimate.value <= high, estimate
    if ci == "analytic":  # Nash welfare is smooth: delta method on the log scale
        estimate = survfair.nash_welfare(res)
        assert (
            estimate.se > 0
            and estimate.confidence_interval[0] < estimate.value < estimate.confidence_interval[1]
        )
        pair = survfair.abs_delta_between(res, a=0, b=1)
        delta = survfair.delta_between(res, 0, 1)
        assert pair.value == abs(delta.value) and pair.se == delta.se


def test_review_fixes_of_the_summaries():
    """contrast refuses weights naming unknown groups; decompose refuses an xAUC result;
    overall_c checks null; |Δbetween| intervals stay within [0, 1]; the paired comparison refuses
    the same group twice (it recursed)."""
    import pandas as pd

    res = survfair.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 3, 6, 5, 4, 7, 2, 1],
        method="naive",
    )
    with pytest.raises(
        ValueError, match=r"coefficients: labels \['c'\] are not groups of the result"
    ):
        survfair.contrast(res, pd.DataFrame([[1.0]], index=["c"], columns=["a"]))
    binary = survfair.xauc(
        [1, 0, 1, 0, 1, 0, 1, 0], list("aabbaabb"), [0.9, 0.1, 0.8, 0.3, 0.7, 0.2, 0.6, 0.4]
    )
    with pytest.raises(TypeError, match="auc_decomposition"):
        survfair.decompose(binary)
    with pytest.raises(TypeError, match="null must be a finite number"):
        survfair.overall_c(res, null="0.5")
    low, high = survfair.abs_delta_between(res).confidence_interval
    assert 0.0 <= low <= high <= 1.0
    other = survfair.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 6, 3, 5, 4, 7, 2, 1],
        method="naive",
    )
    paired = survfair.compare_xci(res, other)
    with pytest.raises(ValueError, match="delta_between needs two different groups, got 'a' twice"):
        paired.delta_between("a", "a")


def test_summaries_of_many_groups_form_no_contrast_by_cell_matrix():
    """500 groups of 2: ``abs_delta_between`` built a (G(G-1)/2) x G^2 weight matrix (232 GiB) and
    the utilities a G x G^2 one, a raw MemoryError even with ``ci=None``; they are now formed from
    the cell differences and a few weight rows at a time, with the same numbers."""
    rng = np.random.default_rng(0)
    group = np.repeat(np.arange(500), 2)
    time = rng.exponential(size=1000)
    risk = -time + rng.normal(0, 0.5, 1000)
    with pytest.warns(survfair.UndefinedXCIWarning):
        res = survfair.xci(time, np.ones(1000, bool), group, risk, method="naive", ci=None)
    assert np.isnan(survfair.abs_delta_between(res).value)  # some pair has an undefined cell
    assert np.isnan(survfair.min_utility(res).confidence_interval.low)
    table = survfair.utility(res)
    assert table.shape == (500, 4) and table[["se", "ci_low", "ci_high"]].isna().all().all()
    # a defined subset: the same numbers as the pairs' own Δbetween and the groups' own contrasts
    small = survfair.xci(*make_data(n=300, seed=4, n_groups=3), tau=20)
    worst = max(
        ((a, b) for a in range(3) for b in range(a + 1, 3)),
        key=lambda pair: abs(survfair.delta_between(small, *pair).value),
    )
    assert survfair.abs_delta_between(small).value == pytest.approx(
        abs(survfair.delta_between(small, *worst).value), rel=1e-12
    )
    for k, row in survfair.utility(small).iterrows():
        weights = np.zeros((3, 3))
        weights[k, :] += 1.0
        weights[:, k] += 1.0
        weights[k, k] = 0.0
        expected = survfair.contrast(small, weights)
        assert row["se"] == pytest.approx(expected.se, rel=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            tuple(expected.confidence_interval), rel=1e-12
        )


def _near_separated(n_small=8, seed=0):
    """Group b's few members are always outranked: Δbetween(a, b) near +1 with a wide interval."""
    rng = np.random.default_rng(seed)
    group = np.array(["a"] * 200 + ["b"] * n_small)
    risk = rng.normal(size=group.size) + 2.5 * (group == "a")
    time = rng.exponential(np.exp(-risk))
    return time, np.ones(group.size, bool), group, risk


def test_difference_intervals_stay_within_minus_one_and_one():
    """Issue 14 audit: a Wald interval of Δbetween near +1 reached past +100 points
    ([+92.0, +102.7])."""
    res = survfair.xci(*_near_separated(), method="naive")
    z = survfair._core.intervals.two_sided_z(res.confidence_level)
    table = survfair.pairwise_deltas(res)
    assert ((table["ci_low"] >= -1) & (table["ci_high"] <= 1)).all()
    for row in table.itertuples(index=False):
        raw_low, raw_high = row.value - z * row.se, row.value + z * row.se
        assert raw_high > 1 or raw_low < -1 or (row.ci_low, row.ci_high) == (raw_low, raw_high)
    estimate = survfair.delta_between(res, "a", "b")
    assert estimate.value + z * estimate.se > 1.05 and estimate.confidence_interval.high == 1.0
    # a contrast's range is [sum of negative weights, sum of positive weights]
    utility_like = survfair.contrast(res, np.array([[1.0, 1.0], [0.0, -0.5]]))
    assert (
        -0.5 <= utility_like.confidence_interval.low
        and utility_like.confidence_interval.high <= 2.0
    )
