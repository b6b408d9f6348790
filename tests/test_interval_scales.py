"""Every reported analytic interval recomputed from its estimate, its SE and its documented scale.

Issue 33.1: the O/E interval divided its log-scale SE by O/E a second time, and the tests, which
checked the SE against R, could not see it. Here each interval of the package is rebuilt with an
independent formula (scipy's normal quantile, expit/logit) from what the result itself reports:

========================================  ==========================================================
interval                                  documented scale
========================================  ==========================================================
xCI / xAUC / AUC(t) cells, pooled C       logit: expit(logit v +- z se / (v (1 - v)))
Δbetween, Δwithin (xCI, xAUC, AUC(t)),    raw, clipped to [-1, 1] (a difference of two
                                          probabilities)
balanced-xAUC differences, compare_xci
calibration O/E                           log: O/E exp(+- z SE(log O/E)), SE(log O/E) = se / O/E
calibration O/E ratio between groups      log, the same
calibration observed risk (Kaplan-Meier)  R's "log" transform of S = 1 - risk: S exp(+- z se / S)
calibration intercept, slope, Brier       raw
model-based cells                         logit, as the observed cells
excess (observed - model-based)           raw with Student t on Satterthwaite's df, clipped to the
                                          range of the difference ([-1, 1] a cell, [-2, 2] a Δ)
========================================  ==========================================================
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from _intervals import tidy
from scipy import special, stats

import survfair

LEVELS = [0.95, 0.9]


def _z(level):
    return stats.norm.ppf(0.5 + level / 2)


def _logit_limits(value, se, level):
    value, se = np.asarray(value, float), np.asarray(se, float)
    half = _z(level) * se / (value * (1 - value))
    return special.expit(special.logit(value) - half), special.expit(special.logit(value) + half)


def _raw_limits(value, se, level, low=-np.inf, high=np.inf):
    value, se = np.asarray(value, float), np.asarray(se, float)
    return np.clip(value - _z(level) * se, low, high), np.clip(value + _z(level) * se, low, high)


def _log_limits(value, se_log, level):
    value, se_log = np.asarray(value, float), np.asarray(se_log, float)
    return value * np.exp(-_z(level) * se_log), value * np.exp(_z(level) * se_log)


def _km_risk_limits(risk, se, level):
    survival = 1 - np.asarray(risk, float)
    factor = np.exp(_z(level) * np.asarray(se, float) / survival)
    return 1 - np.minimum(1, survival * factor), 1 - survival / factor


def _close(actual, expected):
    np.testing.assert_allclose(
        np.ravel(np.asarray(actual, float)),
        np.ravel(np.asarray(expected, float)),
        rtol=1e-12,
        atol=1e-14,
    )


def _cohort(n=600, seed=3, groups=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    group = np.asarray(groups)[rng.integers(0, len(groups), n)]
    risk = rng.normal(size=n) + 0.4 * (group == groups[0])
    time = rng.exponential(np.exp(-risk))
    censor = rng.exponential(2.0, n)
    return np.minimum(time, censor), time <= censor, group, risk


@pytest.fixture(scope="module")
def xci_result():
    time, event, group, risk = _cohort()
    return survfair.xci(time, event, group, risk, tau=1.5, ci="analytic")


@pytest.mark.parametrize("level", LEVELS)
def test_xci_cells_and_pooled_c_are_logit_wald(xci_result, level):
    frame = xci_result.to_frame()
    low, high = xci_result.confidence_interval(level)
    expected_low, expected_high = _logit_limits(xci_result.values, xci_result.se.to_numpy(), level)
    _close(low.to_numpy(), expected_low)
    _close(high.to_numpy(), expected_high)
    if level == xci_result.confidence_level:
        _close(frame["ci_low"], _logit_limits(frame["xci"], frame["se"], level)[0])
    pooled = survfair.overall_c(xci_result)
    _close(
        pooled.confidence_interval,
        _logit_limits([pooled.value], [pooled.se], pooled.confidence_level),
    )


def test_xci_differences_are_raw_wald_clipped_to_the_unit_range(xci_result):
    for a, b in [("a", "b"), ("b", "c"), ("c", "a")]:
        for estimate in (
            survfair.delta_between(xci_result, a, b),
            survfair.delta_within(xci_result, a, b),
        ):
            _close(
                estimate.confidence_interval,
                _raw_limits([estimate.value], [estimate.se], 0.95, -1, 1),
            )
    table = survfair.pairwise_deltas(xci_result)
    _close(table["ci_low"], _raw_limits(table["value"], table["se"], 0.95, -1, 1)[0])
    _close(table["ci_high"], _raw_limits(table["value"], table["se"], 0.95, -1, 1)[1])


def test_compare_xci_differences_are_raw_wald_clipped():
    time, event, group, risk = _cohort(seed=5)
    noisy = risk + np.random.default_rng(0).normal(size=risk.size)
    first = survfair.xci(time, event, group, risk, tau=1.5)
    second = survfair.xci(time, event, group, noisy, tau=1.5)
    table = survfair.compare_xci(first, second).to_frame()
    assert {"difference", "se", "ci_low", "ci_high"} <= set(table.columns)
    low, high = _raw_limits(table["difference"], table["se"], 0.95, -1, 1)
    _close(table["ci_low"], low)
    _close(table["ci_high"], high)


@pytest.fixture(scope="module")
def xauc_result():
    rng = np.random.default_rng(11)
    n = 500
    group = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    score = y + rng.normal(size=n) + 0.5 * (group == "a")
    return survfair.xauc(y, group, score)


def test_xauc_cells_and_differences(xauc_result):
    low, high = xauc_result.confidence_interval()
    expected = _logit_limits(xauc_result.values, xauc_result.se.to_numpy(), 0.95)
    _close(low.to_numpy(), expected[0])
    _close(high.to_numpy(), expected[1])
    estimate = survfair.delta_between(xauc_result, "a", "b")
    _close(estimate.confidence_interval, _raw_limits([estimate.value], [estimate.se], 0.95, -1, 1))
    balanced = survfair.delta_balanced_xauc(xauc_result, "a", "b")
    _close(balanced.confidence_interval, _raw_limits([balanced.value], [balanced.se], 0.95, -1, 1))
    # near the bound the raw limit would pass 1: a difference of two probabilities is clipped
    small = survfair.xauc(
        [1, 1, 1, 0, 0, 0] * 2,
        ["a"] * 6 + ["b"] * 6,
        [2.63, 2.37, 3.14, 0.1, -0.54, 0.36, -1.2, -1.55, -3.2, -1.27, -0.62, 0.04],
    )
    extreme = survfair.delta_balanced_xauc(small, "a", "b")
    assert extreme.value + _z(0.95) * extreme.se > 1
    _close(extreme.confidence_interval, _raw_limits([extreme.value], [extreme.se], 0.95, -1, 1))


def test_auc_t_cells_and_differences():
    time, event, group, risk = _cohort(seed=7, groups=("a", "b"))
    res = survfair.xauc_t(time, event, group, risk, [0.5, 1.0])
    table = res.table
    low, high = _logit_limits(table["xauc"], table["se"], res.confidence_level)
    _close(table["ci_low"], low)
    _close(table["ci_high"], high)
    deltas = res.pairwise_deltas()
    assert len(deltas) > 0
    low, high = _raw_limits(deltas["value"], deltas["se"], res.confidence_level, -1, 1)
    _close(deltas["ci_low"], low)
    _close(deltas["ci_high"], high)


@pytest.fixture(scope="module")
def calibration_result():
    rng = np.random.default_rng(2)
    n = 800
    x = rng.normal(size=n)
    group = np.where(rng.random(n) < 0.5, "F", "M")
    true_time = 6.0 * rng.weibull(1.5, n) * np.exp(-0.75 * x / 1.5)
    censor = rng.uniform(0, 15.0, n)
    time, event = np.minimum(true_time, censor), true_time <= censor
    # mis-scaled predictions: O/E away from 1 in both directions across horizons
    predicted = np.column_stack(
        [
            1 - np.exp(-((t / 6.0) ** 1.5) * np.exp(0.75 * x) * c)
            for t, c in [(3.0, 0.6), (5.0, 1.5)]
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return survfair.calibration(time, event, group, predicted, [3.0, 5.0])


@pytest.mark.parametrize("level", LEVELS)
def test_calibration_intervals_on_their_documented_scales(calibration_result, level):
    frame = calibration_result.to_frame()
    intervals = tidy(calibration_result.confidence_interval(level))
    merged = frame.drop(columns=["ci_low", "ci_high"]).merge(
        intervals, on=["time", "group", "statistic"]
    )
    for statistic, part in merged.groupby("statistic"):
        value, se = part["estimate"].to_numpy(), part["se"].to_numpy()
        if statistic == "oe_ratio":
            assert ((value > 1.05) | (value < 0.95)).any()  # the bug showed only away from 1
            expected = _log_limits(value, se / value, level)
        elif statistic == "observed_risk":
            expected = _km_risk_limits(value, se, level)
        elif statistic in ("expected_risk", "intercept", "slope", "brier", "integrated_brier"):
            expected = _raw_limits(value, se, level)
        else:  # ICI, E50, E90: bootstrap intervals only
            assert part["ci_low"].isna().all()
            continue
        _close(part["ci_low"], expected[0])
        _close(part["ci_high"], expected[1])


def test_calibration_contrasts_on_their_documented_scales(calibration_result):
    contrasts = calibration_result.contrasts()
    for row in contrasts.itertuples():
        if row.statistic == "oe_ratio":
            expected = _log_limits([row.estimate], [row.se / row.estimate], 0.95)
        else:
            expected = _raw_limits([row.estimate], [row.se], 0.95)
        if np.isfinite(row.se):
            _close([row.ci_low, row.ci_high], np.ravel(expected))


def test_the_oe_interval_agrees_with_its_p_value(calibration_result):
    """An O/E interval excludes 1 exactly when its Wald p-value is below 1 - level."""
    frame = calibration_result.to_frame()
    oe = frame[frame["statistic"] == "oe_ratio"]
    excludes = (oe["ci_low"] > 1) | (oe["ci_high"] < 1)
    pd.testing.assert_series_equal(excludes, oe["p_value"] < 0.05, check_names=False)


def test_model_based_and_excess_intervals():
    rng = np.random.default_rng(4)
    n = 500
    group = np.where(rng.random(n) < 0.5, "old", "young")
    lp = rng.normal(size=n)
    scale = np.where(group == "old", 2.0, 20.0)
    t = scale * rng.exponential(size=n) * np.exp(-lp)
    grid = np.linspace(0.05, 30, 200)
    curves = np.exp(-grid[None, :] / scale[:, None] * np.exp(lp)[:, None])
    res = survfair.model_based_xci(  # the score is the curves' own risk (issue 41)
        t, np.ones(n, bool), group, lp - np.log(scale), survival=curves, times=grid, tau=15.0
    )
    low, high = res.confidence_interval(of="model_based")
    expected = _logit_limits(res.model_based.to_numpy(), res.se(of="model_based").to_numpy(), 0.95)
    _close(low.to_numpy(), expected[0])
    _close(high.to_numpy(), expected[1])
    df = res.effective_df(np.eye(4))
    quantile = stats.t.ppf(0.975, df)
    value, se = res.excess.to_numpy().ravel(), res.se().to_numpy().ravel()
    low, high = res.confidence_interval()
    _close(low.to_numpy(), np.clip(value - quantile * se, -1, 1))
    _close(high.to_numpy(), np.clip(value + quantile * se, -1, 1))
    estimate = survfair.excess_delta_between(res, "old", "young")
    df = res.effective_df(np.array([[0.0, 1.0, -1.0, 0.0]]))
    quantile = stats.t.ppf(0.975, df[0])
    _close(
        estimate.confidence_interval,
        np.clip(
            [estimate.value - quantile * estimate.se, estimate.value + quantile * estimate.se],
            -2,
            2,
        ),
    )
