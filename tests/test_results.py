"""Result objects: intervals on the boundary, standard errors without the covariance, memory."""

import warnings

import numpy as np
import pandas as pd
import pytest
from _intervals import tidy
from conftest import censored_cohort

import survfair


def _perfect(n=20):
    time = np.arange(1.0, n + 1)
    return time, np.ones(n, bool), np.arange(n) % 2, -time


@pytest.mark.parametrize("ci", ["analytic", "bootstrap"])
def test_estimates_on_the_boundary_get_point_intervals_without_warnings(ci):
    kwargs = {"n_resamples": 50, "random_state": 0} if ci == "bootstrap" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # before: divide by zero in the logit
        res = survfair.xci(*_perfect(), ci=ci, **kwargs)
        pooled = survfair.overall_c(res)
        low, high = res.confidence_interval()
        between = survfair.delta_between(res, 0, 1)
        utilities = survfair.utility(res)
    assert pooled.value == 1.0
    # before: overall_c got (nan, nan) while its cells got [1, 1]
    assert tuple(pooled.confidence_interval) == (1.0, 1.0)
    assert (low.to_numpy() == 1).all() and (high.to_numpy() == 1).all()
    assert tuple(between.confidence_interval) == (0.0, 0.0)
    assert (utilities["ci_low"] == 2).all()


def test_standard_errors_and_contrasts_do_not_need_the_covariance(data_factory):
    time, event, codes, risk = data_factory(300, 3, 1)
    res = survfair.xci(time, event, codes, risk, tau=20.0, ci="analytic")
    cov = res.covariance  # small here: the dense route must agree with the row route
    np.testing.assert_allclose(res.se.to_numpy().ravel(), np.sqrt(np.diag(cov)), rtol=1e-12)
    weights = np.zeros(9)
    weights[[1, 3]] = [1, -1]
    between = survfair.delta_between(res, 0, 1)
    assert between.se == pytest.approx(np.sqrt(weights @ cov @ weights), rel=1e-10)


def test_many_small_groups_with_analytic_intervals():
    """300 groups of 2 (the report had 500: a 250,000 x 250,000 covariance of 466 GiB) -> before,
    MemoryError while building the 90,000 x 90,000 covariance (60 GiB)."""
    rng = np.random.default_rng(0)
    n = 600
    group = np.repeat(np.arange(300), 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = survfair.xci(
            rng.exponential(size=n), rng.random(n) < 0.7, group, rng.normal(size=n), ci="analytic"
        )
    # the cells' standard errors and a contrast come from the influence rows
    assert np.isfinite(res.se.to_numpy()).any()
    assert survfair.delta_within(res, 0, 1).se >= 0 or np.isnan(survfair.delta_within(res, 0, 1).se)
    # the full covariance is refused before it is allocated, saying what it would need
    with pytest.raises(survfair.MemoryLimitError, match=r"90000 cells .* would need 60.3 GiB"):
        res.covariance
    # before: one warning of 900,000 characters; now a handful of cells and a count
    assert caught and all(len(str(w.message)) < 400 for w in caught)
    assert any("more" in str(w.message) for w in caught)


def test_memory_limit_is_checked_before_allocating(monkeypatch):
    import survfair._core.memory as memory
    import survfair._core.moments as moments

    monkeypatch.setattr(
        memory, "available_memory", lambda: 100_000
    )  # 100 kB left (the compact rows need 128 kB)
    time, event, codes, risk = (np.asarray(v) for v in _perfect(400))
    codes = np.arange(400) % 20
    with pytest.raises(
        survfair.MemoryLimitError, match=r"analytic intervals: the influence rows .* groups="
    ):
        survfair.xci(time, event, codes, risk, ci="analytic")
    monkeypatch.setattr(
        moments, "ROW_PATH_BYTES", 0
    )  # the moment engine refuses too, before its passes (the sums need 450 kB)
    with pytest.raises(
        survfair.MemoryLimitError, match=r"analytic intervals: the later members' sums .* groups="
    ):
        survfair.xci(time, event, codes, risk, ci="analytic")
    with pytest.raises(survfair.MemoryLimitError, match=r"bootstrap replicates .* n_resamples"):
        survfair.xci(time, event, codes, risk, ci="bootstrap", n_resamples=2000)
    assert issubclass(survfair.MemoryLimitError, ValueError)


def test_analytic_memory_is_checked_before_the_passes(monkeypatch, row_path):
    """The contributions (4 n G, with the influence rows written over half of them) and the pooled
    C's row are refused together before the kernel's passes run, so an analytic call too large for
    the machine fails at once with the remedies instead of after minutes of passes (e.g. 10^8 rows
    and G = 8 need 26 GB)."""
    import survfair._core.memory as memory
    import survfair._xci.estimator as xci_module

    time, event, codes, risk = (np.asarray(v) for v in _perfect(400))
    codes = np.arange(400) % 20
    # 300 kB available: the rows alone (128 kB) fit in its usable share, the contributions (259 kB)
    # do not
    monkeypatch.setattr(memory, "available_memory", lambda: 300_000)

    def passes_must_not_run(*args, **kwargs):
        raise AssertionError("the passes ran before the memory check")

    monkeypatch.setattr(xci_module, "count_pairs_and_contributions", passes_must_not_run)
    with pytest.raises(
        survfair.MemoryLimitError,
        match=r"analytic intervals: the influence rows and contributions "
        r"of 400 cells for 400 rows \(81 numbers a row\).*groups=",
    ):
        survfair.xci(time, event, codes, risk, ci="analytic")


@pytest.mark.parametrize(
    "options, counted",
    [
        ({}, 17),  # 4G contributions, the compact rows over the later sums, the pooled C's row
        ({"entry": True}, 25),  # the Kaplan-Meier credit at entry: rows of their own (2G)
        ({"entry": True, "reference": True}, 17),  # weights fixed by a reference sample: no credit
        ({"censoring": "pooled"}, 33),  # one curve for all groups: dense rows of their own (G^2)
        ({"method": "naive", "entry": True}, 17),
    ],
)
def test_analytic_memory_check_counts_what_is_allocated(monkeypatch, row_path, options, counted):
    """Review finding: the check before the passes counted no rows of their own with delayed entry
    and estimated weights, nor with pooled censoring (both write their rows into a new array). The
    count it checks is the numbers a row then allocated: contributions plus rows not written over
    them, plus the pooled C's."""
    import survfair._core.influence as influence_module
    import survfair._xci.estimator as xci_module

    rng = np.random.default_rng(0)
    n, g = 300, 4
    time = rng.exponential(1.0, n) + 0.5
    event = rng.random(n) < 0.7
    group = np.arange(n) % g
    risk = rng.normal(size=n)
    kwargs = {
        "censoring": options.get("censoring", "group"),
        "method": options.get("method", "ipcw"),
        "tau": 1.0,
    }
    if options.get("entry"):
        kwargs["entry"] = np.where(rng.random(n) < 0.3, 0.2, 0.0)
    if options.get("reference"):
        kwargs["censoring_reference"] = (time, event, group)
    checked, allocated = [], []
    real_check, real_rows = xci_module.require_memory, influence_module.influence_rows

    def check(needed, what, remedies):
        if what.startswith("analytic intervals: the influence rows and contributions"):
            checked.append(int(needed) // (8 * n))
        return real_check(needed, what, remedies)

    def rows(*args, **kwargs):
        cells, overall = real_rows(*args, **kwargs)
        shared = np.shares_memory(cells, args[3].later_block)
        allocated.append(4 * g + (0 if shared else cells.shape[1]) + 1)
        return cells, overall

    monkeypatch.setattr(xci_module, "require_memory", check)
    monkeypatch.setattr(influence_module, "influence_rows", rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        survfair.xci(time, event, group, risk, ci="analytic", **kwargs)
    assert checked == allocated == [counted]


@pytest.mark.parametrize("path", ["moments", "rows"])
def test_analytic_results_stay_frozen(data_factory, request, path):
    """Review finding: the influence rows and the covariance were writable arrays."""
    request.getfixturevalue("moment_engine" if path == "moments" else "row_path")
    time, event, codes, risk = data_factory(200, 2, 3)
    res = survfair.xci(time, event, codes, risk, tau=20.0, ci="analytic")
    rows = res.influence.rows if path == "moments" else res.influence
    for array in (
        rows.cells_in_time_order,
        rows.overall_in_time_order,
        res.covariance,
        res.influence.cells,
        res.influence.overall,
    ):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 99.0


def test_xauc_refuses_a_delong_covariance_that_would_not_fit(monkeypatch):
    import survfair._core.memory as memory

    monkeypatch.setattr(memory, "available_memory", lambda: 100_000)
    rng = np.random.default_rng(1)
    group = np.arange(400) % 20
    with pytest.raises(
        survfair.MemoryLimitError, match=r"DeLong covariance of the 400 xAUC cells .* groups="
    ) as info:
        survfair.xauc(rng.integers(0, 2, 400), group, rng.normal(size=400))
    assert info.value.remedies == ("groups",) and info.value.needed == 8 * 20**4


def test_results_hold_typed_read_only_fields(data_factory):
    """Issue 19: no dict of extras; the settings are one frozen object; intervals are
    subscriptable."""
    import dataclasses

    time, event, codes, risk = data_factory(200, 2, 5)
    res = survfair.xci(
        time, event, codes, risk, tau=20.0, ci="bootstrap", n_resamples=50, random_state=1
    )
    assert not hasattr(res, "extras")
    assert res.settings == survfair.EstimatorSettings(method="ipcw", tau=20.0, censoring="group")
    assert (res.method, res.tau, res.censoring, res.tied_tol, res.strict) == (
        "ipcw",
        20.0,
        "group",
        1e-8,
        False,
    )
    assert (
        isinstance(res.bootstrap, survfair.BootstrapDraws) and res.replicates is res.bootstrap.cells
    )
    assert isinstance(res.jackknife, survfair.Jackknife) and res.jackknife.cells.shape == (200, 4)
    assert res.sample.n_samples == 200 and res.refit_censoring
    for array in (
        res.bootstrap.cells,
        res.bootstrap.overall,
        res.jackknife.cells,
        res.jackknife.overall,
    ):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.settings.tau = 5.0
    naive = survfair.xci(time, event, codes, risk, method="naive")
    assert naive.censoring is None and naive.settings.method == "naive"
    estimate = survfair.delta_between(res, 0, 1)
    assert estimate.confidence_interval[0] == estimate.confidence_interval.low
    assert tuple(estimate.confidence_interval) == (
        estimate.confidence_interval[0],
        estimate.confidence_interval[1],
    )


def test_settings_are_validated_once():
    with pytest.raises(ValueError, match=r"method must be one of \['naive', 'ipcw'\]"):
        survfair.EstimatorSettings.checked(method="cox")
    with pytest.raises(TypeError, match="strict must be True or False"):
        survfair.EstimatorSettings.checked(strict="yes")
    assert survfair.EstimatorSettings.checked(tau=3).tau == 3.0


def test_every_result_exports_to_json():
    """Every result object has to_dict() (JSON-safe) and every table-like one to_frame()."""
    import json

    import survfair

    res = survfair.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 3, 6, 5, 4, 7, 2, 1],
        method="naive",
    )
    other = survfair.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 6, 3, 5, 4, 7, 2, 1],
        method="naive",
    )
    binary = survfair.xauc(
        [1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4, [0.9, 0.8, 0.1, 0.5, 0.7, 0.6, 0.4, 0.2]
    )
    objects = [
        res,
        binary,
        survfair.delta_between(res, "a", "b"),
        survfair.min_xci(res),
        res.settings,
        survfair.compare_xci(res, other),
        survfair.xroc(binary, "a", "b"),
        survfair.omnibus_test(res),
        survfair.findings(res),
    ]
    for obj in objects:
        exported = json.loads(json.dumps(obj.to_dict(), allow_nan=False))
        assert isinstance(exported, dict) and exported, type(obj).__name__
    assert json.loads(json.dumps(survfair.min_xci(res).to_dict()))["a"] == "b"


# -- one interval method on every result with intervals (issue 19 audit, item B) -------------------


@pytest.fixture(scope="module")
def tabular_results():
    from survfair import mitigate

    n = 240
    rng, time, event, g, x, risk, predicted = censored_cohort(4, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shift = mitigate.group_shift(
            time, event, g, risk, random_state=0, ci="analytic", fit_on=np.arange(n) % 2 == 0
        )
        return {
            "compare": survfair.compare(
                time, event, g, {"a": risk, "b": risk + rng.normal(size=n)}
            ),
            "group_shift": shift,
            "group_monotone": mitigate.group_monotone(time, event, g, risk, ci="analytic"),
            "calibration_cost": mitigate.calibration_cost(
                shift, time, event, g, risk, predicted, [0.5]
            ),
        }


@pytest.mark.parametrize("name", ["compare", "group_shift", "group_monotone", "calibration_cost"])
def test_every_tabular_result_has_confidence_interval_at_any_level(tabular_results, name):
    """Before: ModelComparison, GroupShift, GroupMonotone and CalibrationCost had ci columns but no
    confidence_interval(), so no other level than the one they were made with."""
    res = tabular_results[name]
    frame = res.to_frame()
    default = tidy(res.confidence_interval())
    limits = [c for c in default.columns if c.endswith(("ci_low", "ci_high"))]
    keys = [c for c in default.columns if c not in limits]
    assert keys and len(limits) in (2, 4)
    pd.testing.assert_frame_equal(
        default, frame[keys + limits]
    )  # the result's own level: to_frame's limits
    same = tidy(res.confidence_interval(confidence_level=0.95))
    pd.testing.assert_frame_equal(same, default, rtol=1e-12)
    narrow = tidy(res.confidence_interval(0.5))
    wide = tidy(res.confidence_interval(confidence_level=0.99))
    pd.testing.assert_frame_equal(narrow[keys], frame[keys])
    for low, high in zip(limits[::2], limits[1::2]):
        finite = np.isfinite(narrow[low]) & np.isfinite(wide[low]) & (wide[high] > wide[low])
        assert finite.any()
        assert (wide.loc[finite, low] < narrow.loc[finite, low]).all()
        assert (wide.loc[finite, high] > narrow.loc[finite, high]).all()
    with pytest.raises(ValueError, match="confidence_level"):
        res.confidence_interval(1.5)


def test_matrix_intervals_are_confidence_intervals(data_factory):
    """Issue 35 (one interval type): the matrix results' confidence_interval() is a
    ConfidenceInterval of two G x G frames, unpacked as the tuple it was."""
    time, event, codes, risk = data_factory(200, 2, 3)
    res = survfair.xci(time, event, codes, risk, tau=20.0)
    interval = res.confidence_interval(0.9)
    assert isinstance(interval, survfair.ConfidenceInterval)
    low, high = interval
    pd.testing.assert_frame_equal(low, interval.low)
    pd.testing.assert_frame_equal(high, res.confidence_interval(0.9)[1])
    assert low.shape == high.shape == res.matrix.shape and bool((low <= high).all().all())
