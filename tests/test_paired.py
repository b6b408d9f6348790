"""The paired comparison of two risk scores on the same rows (``survfair._xci.paired``,
``compare_xci``): DeLong's test as the one-group binary case, paired bootstrap against analytic,
refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _intervals import tidy
from scipy import stats
from test_inference import (
    _cohort,
    _delong,
)  # the inference tests' cohort and DeLong placement values

import survfair


def test_paired_comparison_equals_delong_test_of_two_correlated_aucs():
    rng = np.random.default_rng(11)
    m, n = 35, 45
    x = np.r_[rng.normal(1, 1, m), rng.normal(0, 1, n)]
    r1 = x + rng.normal(0, 0.5, m + n)
    r2 = x + rng.normal(0, 1.5, m + n)
    time = np.r_[np.ones(m), np.full(n, 2.0)]
    event = np.ones(m + n, bool)
    group = np.zeros(m + n)
    res1 = survfair.xci(time, event, group, r1, method="naive", ci="analytic")
    res2 = survfair.xci(time, event, group, r2, method="naive")
    cmp = survfair.compare_xci(res1, res2)
    a1, v10_1, v01_1 = _delong(r1[:m], r1[m:])
    a2, v10_2, v01_2 = _delong(r2[:m], r2[m:])
    s10 = np.cov(np.vstack([v10_1, v10_2]))
    s01 = np.cov(np.vstack([v01_1, v01_2]))
    var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m + (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n
    est = cmp.cell(0, 0)
    assert est.value == pytest.approx(a1 - a2, rel=1e-12)
    assert est.se == pytest.approx(math.sqrt(var), rel=1e-12)
    assert est.p_value == pytest.approx(2 * stats.norm.sf(abs(a1 - a2) / math.sqrt(var)), rel=1e-10)
    assert cmp.overall.se == pytest.approx(math.sqrt(var), rel=1e-12)


def test_compare_identical_models_gives_zero_difference():
    time, event, group, risk = _cohort(300, seed=14)
    res = survfair.xci(time, event, group, risk, tau=3.0)
    cmp = survfair.compare_xci(res, res)
    frame = cmp.to_frame()
    assert list(frame.columns) == [
        "quantity",
        "a",
        "b",
        "value_1",
        "value_2",
        "difference",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
    ]
    assert np.all(frame["difference"] == 0) and np.allclose(frame["se"], 0)
    assert set(frame["quantity"]) == {"xci", "delta_between", "delta_within", "min_xci", "overall"}


@pytest.mark.parametrize("ci", ["analytic", "bootstrap"])
def test_compare_detects_a_fairer_model(ci):
    rng = np.random.default_rng(15)
    n = 1200
    group = rng.integers(0, 2, n)
    t = rng.lognormal(0, 0.8, n)
    time, event = t, np.ones(n, bool)
    fair = -np.log(t) + rng.normal(0, 0.7, n)
    unfair = fair + 1.0 * group  # pushes group 1 up: xCI_{1,0} rises, xCI_{0,1} falls
    res_fair = survfair.xci(time, event, group, fair, method="naive")
    res_unfair = survfair.xci(time, event, group, unfair, method="naive")
    cmp = survfair.compare_xci(
        res_unfair, res_fair, ci=ci, n_resamples=200, random_state=0, progress=False
    )
    est = cmp.delta_between(1, 0)
    # the bootstrap p-value cannot go below about 2 / (B + 1)
    assert est.value > 0 and est.p_value < (1e-3 if ci == "analytic" else 0.02)
    assert est.confidence_interval.low > 0
    flipped = cmp.delta_between(0, 1)
    assert flipped.value == pytest.approx(-est.value)


def test_compare_paired_bootstrap_agrees_with_analytic():
    time, event, group, risk = _cohort(800, seed=16)
    rng = np.random.default_rng(1)
    other = risk + rng.normal(0, 1, risk.size)
    r1 = survfair.xci(time, event, group, risk, tau=3.0)
    r2 = survfair.xci(time, event, group, other, tau=3.0)
    analytic = survfair.compare_xci(r1, r2).to_frame()
    boot = survfair.compare_xci(
        r1, r2, ci="bootstrap", n_resamples=300, random_state=4, progress=False
    ).to_frame()
    np.testing.assert_allclose(analytic["difference"], boot["difference"])
    ratio = analytic["se"] / boot["se"]
    assert ratio.between(0.7, 1.4).all(), ratio


def test_compare_rejects_different_rows_and_settings():
    time, event, group, risk = _cohort(100, seed=17)
    res = survfair.xci(time, event, group, risk, method="naive")
    shorter = survfair.xci(time[:-1], event[:-1], group[:-1], risk[:-1], method="naive")
    with pytest.raises(ValueError, match="not on the same rows: 100 vs 99 rows"):
        survfair.compare_xci(res, shorter)
    moved = time.copy()
    moved[3] += 1.0
    with pytest.raises(ValueError, match=r"time differs at rows \[3\]"):
        survfair.compare_xci(res, survfair.xci(moved, event, group, risk, method="naive"))
    flipped = event.copy()
    flipped[5] = not flipped[5]
    with pytest.raises(ValueError, match=r"event differs at rows \[5\]"):
        survfair.compare_xci(res, survfair.xci(time, flipped, group, risk, method="naive"))
    swapped = group.copy()
    swapped[[0, 1]] = 1 - swapped[[0, 1]]
    with pytest.raises(ValueError, match="group differs"):
        survfair.compare_xci(res, survfair.xci(time, event, swapped, risk, method="naive"))
    with pytest.raises(ValueError, match="different settings: method"):
        survfair.compare_xci(res, survfair.xci(time, event, group, risk))
    with pytest.raises(TypeError, match="result_2 must be an XCIResult"):
        survfair.compare_xci(res, res.values)
    with pytest.raises(ValueError, match="ci must be one of"):
        survfair.compare_xci(res, res, ci=None)


def test_accessors_agree_with_the_table_and_the_summaries():
    time, event, group, risk = _cohort(400, seed=18, n_groups=3)
    other = risk + np.random.default_rng(2).normal(0, 1, risk.size)
    r1 = survfair.xci(time, event, group, risk, tau=3.0, ci="analytic")
    r2 = survfair.xci(time, event, group, other, tau=3.0, ci="analytic")
    cmp = survfair.compare_xci(r1, r2)
    frame = cmp.to_frame()
    assert len(frame) == 9 + 3 + 3 + 1 + 1  # cells, unordered pairs twice, min-xCI, overall
    assert cmp.n_samples == 400 and cmp.ci_method == "analytic" and cmp.n_resamples is None
    assert cmp.cell(2, 0).value == pytest.approx(
        r1.matrix.loc[2, 0] - r2.matrix.loc[2, 0], abs=1e-15
    )
    for name in ("delta_between", "delta_within"):
        summary = getattr(survfair, name)
        forward, backward = getattr(cmp, name)(0, 2), getattr(cmp, name)(2, 0)
        assert forward.value == pytest.approx(
            summary(r1, 0, 2).value - summary(r2, 0, 2).value, abs=1e-15
        )
        assert backward.value == -forward.value and backward.se == forward.se
        assert tuple(backward.confidence_interval) == (
            -forward.confidence_interval[1],
            -forward.confidence_interval[0],
        )
    assert cmp.min_xci.value == pytest.approx(
        survfair.min_xci(r1).value - survfair.min_xci(r2).value, abs=1e-15
    )
    assert cmp.overall.value == pytest.approx(r1.overall - r2.overall, abs=1e-15)
    assert "ComparisonResult(ci_method='analytic', n_samples=400, groups=[0, 1, 2]" in repr(cmp)
    with pytest.raises(ValueError, match=r"group 7 is not in the results \(groups: \[0, 1, 2\]\)"):
        cmp.cell(0, 7)


def test_compare_rejects_other_settings_groups_and_censoring_reference():
    time, event, group, risk = _cohort(120, seed=19)
    res = survfair.xci(time, event, group, risk, tau=3.0)
    with pytest.raises(ValueError, match="different settings: tau=3.0 vs 2.0"):
        survfair.compare_xci(res, survfair.xci(time, event, group, risk, tau=2.0))
    with pytest.raises(ValueError, match="different settings: censoring='group' vs 'pooled'"):
        survfair.compare_xci(
            res, survfair.xci(time, event, group, risk, tau=3.0, censoring="pooled")
        )
    with pytest.raises(ValueError, match=r"different groups: \[0, 1\] vs \[1, 0\]"):
        survfair.compare_xci(res, survfair.xci(time, event, group, risk, tau=3.0, groups=[1, 0]))
    with pytest.raises(
        ValueError, match="one result used censoring_reference and the other did not"
    ):
        survfair.compare_xci(
            res,
            survfair.xci(
                time, event, group, risk, tau=3.0, censoring_reference=(time, event, group)
            ),
        )


def test_inputs_modified_after_the_call_are_refused_not_read():
    """A result keeps references to the caller's arrays (no copy at registry scale): modifying one
    in place after ``xci`` used to move the paired interval of a later ``compare_xci`` silently
    (cell (0, 0): [0.015, 0.115] -> [-0.475, -0.242] around an unchanged difference)."""
    rng = np.random.default_rng(3)
    time = rng.exponential(size=300)
    event = rng.random(300) < 0.7
    group = rng.integers(0, 2, 300)
    risk = -time + rng.normal(size=300)
    first = survfair.xci(time, event, group, risk)
    second = survfair.xci(time, event, group, risk + rng.normal(size=300))
    survfair.compare_xci(first, second)  # unchanged data: accepted
    risk *= -1
    with pytest.raises(
        ValueError, match=r"result_1: the data it was computed from were modified in place"
    ):
        survfair.compare_xci(first, second)
    risk *= -1
    survfair.compare_xci(first, second)  # the same values again: accepted
    with pytest.raises(ValueError, match="read-only"):  # nothing can be written through the result
        second.sample.risk[0] += 1.0


@pytest.mark.parametrize("ci", ["analytic", "bootstrap"])
def test_comparison_intervals_at_another_level_and_a_frozen_table(ci):
    """Issue 19 audit: ComparisonResult had ci_low/ci_high columns but no confidence_interval(), and
    its table could be changed through what it handed out."""
    rng = np.random.default_rng(8)
    time = rng.exponential(size=300)
    event = rng.random(300) < 0.7
    group = rng.integers(0, 2, 300)
    risk = -time + rng.normal(size=300)
    first = survfair.xci(time, event, group, risk, tau=2.0)
    second = survfair.xci(time, event, group, risk + rng.normal(size=300), tau=2.0)
    comparison = survfair.compare_xci(first, second, ci=ci, n_resamples=200, random_state=0)
    table = comparison.to_frame()
    same = tidy(comparison.confidence_interval(comparison.confidence_level))
    np.testing.assert_allclose(
        same[["ci_low", "ci_high"]], table[["ci_low", "ci_high"]], rtol=1e-12
    )
    assert list(same.columns) == ["quantity", "a", "b", "ci_low", "ci_high"]
    narrow = tidy(comparison.confidence_interval(confidence_level=0.5))
    defined = table["se"].to_numpy() > 0
    assert (
        (narrow["ci_high"] - narrow["ci_low"])[defined]
        .lt((table["ci_high"] - table["ci_low"])[defined])
        .all()
    )
    if ci == "analytic":  # Wald: the half-width scales with the normal quantile
        ratio = stats.norm.ppf(0.75) / stats.norm.ppf(0.975)
        row = table.index[table["quantity"] == "delta_between"][0]
        assert narrow.loc[row, "ci_high"] - narrow.loc[row, "ci_low"] == pytest.approx(
            ratio * (table.loc[row, "ci_high"] - table.loc[row, "ci_low"]), rel=1e-9
        )
    table.loc[:, "difference"] = 0.0
    assert comparison.to_frame()["difference"].ne(0).any()
    with pytest.raises(ValueError):
        comparison.confidence_interval(confidence_level=1.5)


def test_a_copied_or_rebuilt_result_keeps_the_checksum_of_its_validated_data():
    """Review: rebuilding a result (copy, deepcopy, pickle, dataclasses.replace) took the checksum
    again from the modified data, and compare_xci then accepted it."""
    import copy
    import dataclasses
    import pickle

    rng = np.random.default_rng(5)
    time = rng.exponential(size=200)
    event = rng.random(200) < 0.7
    group = rng.integers(0, 2, 200)
    risk, other = -time + rng.normal(size=200), -time + rng.normal(size=200)
    first, second = survfair.xci(time, event, group, risk), survfair.xci(time, event, group, other)
    risk[:] = rng.normal(size=200)
    for rebuilt in (
        copy.copy(first),
        copy.deepcopy(first),
        pickle.loads(pickle.dumps(first)),
        dataclasses.replace(first, confidence_level=0.9),
    ):
        with pytest.raises(ValueError, match="modified in place"):
            survfair.compare_xci(rebuilt, second)


def test_p_values_print_as_a_reader_reads_them():
    """Issue 41: a p-value that underflows printed as 0 (``:.3g``); the table, the repr and the
    notebook write p-values with the shared formatter: ``< 0.001``, two significant digits."""
    rng = np.random.default_rng(3)
    n = 3000
    group = np.where(rng.random(n) < 0.5, "F", "M")
    x = rng.normal(size=n)
    t = rng.exponential(np.exp(-2 * x))
    c = rng.exponential(3.0, size=n)
    time, event = np.minimum(t, c), t <= c
    good = survfair.xci(time, event, group, x, tau=2.0)
    noise = survfair.xci(time, event, group, rng.normal(size=n), tau=2.0)
    out = survfair.compare_xci(good, noise)
    assert (out.to_frame()["p_value"] < 1e-300).any()  # underflows to 0 or nearly
    shown = out.display_table()["p"]
    assert "< 0.001" in set(shown) and not shown.isin(["0", "0.0"]).any()
    assert all(p == "–" or p.startswith("<") or float(p) >= 0.001 for p in shown)
    assert "< 0.001" in repr(out) and "&lt; 0.001" in out._repr_html_()
