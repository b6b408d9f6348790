"""Renamed keywords (issue 35): the new names, and the old ones still working with one warning
each."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import survfair
import survfair._core.deprecation as deprecation
from survfair import SurvfairDeprecationWarning


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees every old name as if for the first time in the process."""
    monkeypatch.setattr(deprecation, "_warned", set())


def _cohort(n=300, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    t = rng.exponential(5 * np.exp(-x))
    c = rng.uniform(0, 10, n)
    group = np.where(rng.random(n) < 0.5, "F", "M")
    return np.minimum(t, c), t <= c, group, x


def _same(old, new):
    if isinstance(new, pd.DataFrame):
        pd.testing.assert_frame_equal(old, new)
    elif isinstance(new, tuple):
        for a, b in zip(old, new):
            np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_array_equal(np.asarray(old, dtype=float), np.asarray(new, dtype=float))


def _old_and_new(call_old, call_new, old_name):
    """The old name warns once (then not again), gives what the new name gives."""
    with pytest.warns(
        SurvfairDeprecationWarning, match=rf"\({old_name}=\.\.\.\) is deprecated"
    ) as caught:
        old = call_old()
    assert caught[0].filename == __file__  # the warning points at the caller
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        call_old()  # once per process: no second warning
        new = call_new()
    assert not [w for w in again if issubclass(w.category, SurvfairDeprecationWarning)]
    return old, new


def test_horizon_for_one_time_point():
    time, event, group, x = _cohort()
    risk = 1 - np.exp(-3 * np.exp(x) / 5)
    calibrated = survfair.calibration(time, event, group, np.column_stack([risk, risk]), [3.0, 4.0])
    result = survfair.xci(time, event, group, x, tau=6)
    for old, new in [
        (lambda: calibrated.summary(time=4.0), lambda: calibrated.summary(horizon=4.0)),
        (
            lambda: survfair.fairness_profile(result, calibrated, time=4.0),
            lambda: survfair.fairness_profile(result, calibrated, horizon=4.0),
        ),
    ]:
        _same(*_old_and_new(old, new, "time"))
    horizons = survfair.xauc_t(time, event, group, x, [2.0, 4.0])
    _same(*_old_and_new(lambda: horizons.matrix(time=2.0), lambda: horizons.matrix(2.0), "time"))
    _same(*_old_and_new(lambda: horizons.se(time=2.0), lambda: horizons.se(horizon=2.0), "time"))
    with pytest.raises(TypeError, match="missing its horizon"):
        horizons.matrix()
    with pytest.raises(TypeError, match="both horizon= and its old name time="):
        calibrated.summary(horizon=3.0, time=3.0)


def test_horizon_in_the_calibration_plots():
    import matplotlib

    matplotlib.use("Agg")
    from survfair.plotting import plot_calibration, plot_observed_expected

    time, event, group, x = _cohort()
    calibrated = survfair.calibration(time, event, group, 1 - np.exp(-3 * np.exp(x) / 5), [3.0])
    for plot in (plot_calibration, plot_observed_expected):
        with pytest.warns(SurvfairDeprecationWarning, match=r"\(time=\.\.\.\) is deprecated"):
            old = plot(calibrated, time=3.0)
        new = plot(calibrated, horizon=3.0)
        assert old.get_title() == new.get_title() and old.get_xlabel() == new.get_xlabel()


def test_coefficients_of_a_contrast():
    result = survfair.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 3, 6, 5, 4, 7, 2, 1],
        method="naive",
    )
    coefficients = np.array([[0.0, 1.0], [-1.0, 0.0]])
    old, new = _old_and_new(
        lambda: survfair.contrast(result, weights=coefficients),
        lambda: survfair.contrast(result, coefficients=coefficients),
        "weights",
    )
    assert old == new
    with pytest.raises(TypeError, match="missing its coefficients"):
        survfair.contrast(result)


def test_adjusted_group_of_the_logistic_adjustment():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    group = np.where(rng.random(400) < 0.5, "a", "b")
    score = 1 / (1 + np.exp(-(y + 0.5 * (group == "a") + rng.normal(size=400))))
    options = dict(alpha_bounds=(0.5, 3.0), grid=11)
    old, new = _old_and_new(
        lambda: survfair.logistic_adjustment(y, group, score, "a", "b", adjust="b", **options),
        lambda: survfair.logistic_adjustment(
            y, group, score, "a", "b", adjusted_group="b", **options
        ),
        "adjust",
    )
    assert old.adjusted_group == new.adjusted_group == "b" and old.alpha == new.alpha


@pytest.mark.parametrize("name", ["group_shift", "group_monotone", "frontier"])
def test_reference_group_of_the_mitigations(name):
    time, event, group, x = _cohort(200)
    function = getattr(survfair.mitigate, name)
    options = dict(method="naive", tau=6.0, **({"n_points": 3} if name == "frontier" else {}))
    old, new = _old_and_new(
        lambda: function(time, event, group, x, reference="M", **options),
        lambda: function(time, event, group, x, reference_group="M", **options),
        "reference",
    )
    assert old.reference_group == new.reference_group == "M"
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())
    # the result's field was renamed too: the old attribute warns once and reads the new one
    with pytest.warns(survfair.SurvfairDeprecationWarning, match="reference_group"):
        assert new.reference == "M"


def test_adjust_names_the_p_value_adjustment():
    p = np.array([0.01, 0.04, 0.03])
    old, new = _old_and_new(
        lambda: survfair.adjust_p_values(p, method="bh"),
        lambda: survfair.adjust_p_values(p, adjust="bh"),
        "method",
    )
    np.testing.assert_array_equal(old, new)


def test_write_report_takes_the_result_first(tmp_path):
    result = survfair.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 3, 6, 5, 4, 7, 2, 1],
        method="naive",
    )
    new = survfair.write_report(result, tmp_path / "new.md", default_figures=False)
    with pytest.warns(
        SurvfairDeprecationWarning, match=r"write_report\(path, result\) is deprecated"
    ) as caught:
        old = survfair.write_report(tmp_path / "old.md", result, default_figures=False)
    assert caught[0].filename == __file__

    def undated(path):  # the two reports may be stamped a minute apart on a busy machine
        stamp = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
        lines = path.read_text().splitlines()
        return [line for line in lines if "date" not in line.lower() and not stamp.search(line)]

    assert undated(old) == undated(new)


def test_progress_is_off_by_default_in_the_python_api():
    import inspect

    for function in (
        survfair.xci,
        survfair.compare_xci,
        survfair.calibration,
        survfair.simulate.study,
        survfair.simulate.ipcw_bias_study,
        survfair.simulate.coverage_study,
    ):
        assert inspect.signature(function).parameters["progress"].default is False, (
            function.__name__
        )
