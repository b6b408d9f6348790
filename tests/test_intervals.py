"""The interval arithmetic (survfair._core.intervals): Wald on the raw and logit scale, p-values,
bootstrap limits. Normal quantiles come from scipy.special and must equal scipy.stats.norm."""

import numpy as np
import pytest
from scipy import stats

from survfair._core.intervals import (
    bootstrap_interval,
    bootstrap_p_value,
    cell_wald_interval,
    logit_wald_interval,
    two_sided_z,
    wald_interval,
    wald_p_value,
)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_quantiles_equal_scipy_stats(level):
    assert two_sided_z(level) == stats.norm.ppf((1 + level) / 2)
    low, high = wald_interval([0.3], [0.1], level)
    assert (low[0], high[0]) == (
        0.3 - stats.norm.ppf((1 + level) / 2) * 0.1,
        0.3 + stats.norm.ppf((1 + level) / 2) * 0.1,
    )


def test_wald_p_values_equal_scipy_stats_and_are_nan_without_information():
    values = np.array([0.1, -0.2, 0.0, 3.0, 0.2, np.nan, 0.2])
    se = np.array([0.05, 0.1, 0.1, 0.5, 0.0, 0.1, np.inf])
    p = wald_p_value(values, se, 0.0)
    np.testing.assert_array_equal(p[:4], 2 * stats.norm.sf(np.abs(values[:4]) / se[:4]))
    assert np.isnan(p[4:]).all()


def test_probability_intervals_stay_in_the_unit_interval():
    low, high = cell_wald_interval(
        [1.0, 0.0, 0.5, np.nan, 0.9], [0.05, 0.05, 0.0, 0.1, np.nan], 0.95
    )
    np.testing.assert_allclose(low[:3], [1 - 1.959963984540054 * 0.05, 0.0, 0.5])
    np.testing.assert_allclose(high[:3], [1.0, 1.959963984540054 * 0.05, 0.5])
    assert np.isnan(low[3:]).all() and np.isnan(high[3:]).all()


def test_logit_interval_is_symmetric_on_the_logit_scale():
    value, se = np.array([0.97]), np.array([0.02])
    low, high = logit_wald_interval(value, se, 0.95)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    half = 1.959963984540054 * se / (value * (1 - value))
    np.testing.assert_allclose(logit(high) - logit(value), half, rtol=1e-12)
    np.testing.assert_allclose(logit(value) - logit(low), half, rtol=1e-12)
    assert 0 < low[0] < value[0] < high[0] < 1


def test_percentile_limits_are_numpy_quantiles_and_bca_reduces_to_them_without_skew():
    rng = np.random.default_rng(0)
    draws = rng.normal(0.5, 0.1, size=(2001, 1))
    low, high = bootstrap_interval(np.array([0.5]), draws, None, 0.9)
    np.testing.assert_allclose(
        [low[0], high[0]], np.quantile(draws[:, 0], [0.05, 0.95]), rtol=1e-15
    )  # (1-0.9)/2 != 0.05 in the last bit
    # BCa with an estimate at the replicates' median (z0 = 0) and a symmetric jackknife (a = 0)
    median = float(np.median(draws[:, 0]))
    jackknife = np.array([[-1.0], [0.0], [1.0]])
    low_bca, high_bca = bootstrap_interval(np.array([median]), draws, jackknife, 0.9)
    np.testing.assert_allclose(
        [low_bca[0], high_bca[0]], np.quantile(draws[:, 0], [0.05, 0.95]), rtol=1e-12
    )


def test_bootstrap_p_value_inverts_the_percentile_interval():
    rng = np.random.default_rng(1)
    draws = rng.normal(0.3, 0.1, size=(4000, 1))
    low, high = bootstrap_interval(np.array([0.3]), draws, None, 0.9)
    # the interval's lower limit is where the two-sided p-value crosses 0.10
    assert bootstrap_p_value(np.array([0.3]), draws, None, float(low[0]))[0] == pytest.approx(
        0.10, abs=2e-3
    )
    assert bootstrap_p_value(np.array([0.3]), draws, None, 5.0)[0] == pytest.approx(2 / 4001)
