"""Calibration plots: what is drawn, labels, errors."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import survfair  # noqa: E402
from survfair.plotting import plot_calibration, plot_observed_expected  # noqa: E402


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(1)
    n = 900
    x = rng.normal(size=n)
    true_time = rng.exponential(5 * np.exp(-x))
    censor = rng.uniform(0, 10, n)
    group = np.array([("F", "young"), ("M", "old")], dtype=object)[rng.integers(0, 2, n)]
    labels = np.empty(n, dtype=object)
    labels[:] = [tuple(v) for v in group]
    risk = lambda t: 1 - np.exp(-t * np.exp(x) / 5)  # noqa: E731
    inflated = np.array([lab[0] == "M" for lab in labels])
    predicted = np.column_stack(
        [np.where(inflated, np.minimum(1.5 * risk(t), 1), risk(t)) for t in (2.0, 4.0)]
    )
    return survfair.calibration(
        np.minimum(true_time, censor), true_time <= censor, labels, predicted, [2.0, 4.0]
    )


def test_plot_calibration_draws_bins_curves_and_the_diagonal(result):
    ax = plot_calibration(result, 4.0, time_unit="years")
    assert ax.get_xlabel() == "Predicted risk of an event by t = 4 years"
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[-1] == "perfect calibration" and len(texts) == 3
    assert texts[0].startswith("('F', 'young'): O/E")
    assert len(ax.containers) == 2  # one errorbar container per group
    assert len(ax.lines) >= 3  # two smooth curves and the diagonal (plus the error bars' lines)
    assert ax.get_xlim() == ax.get_ylim()
    plt.close(ax.figure)
    ax = plot_calibration(result, groups=[("M", "old")], show_bins=False)
    assert len(ax.containers) == 0 and len(ax.get_legend().get_texts()) == 2
    plt.close(ax.figure)
    # any sequence of groups, as the docstring says (the option table once refused a dict's keys)
    ax = plot_calibration(result, groups=dict.fromkeys([("M", "old")]).keys(), show_bins=False)
    assert len(ax.get_legend().get_texts()) == 2
    plt.close(ax.figure)


def test_plot_observed_expected(result):
    ax = plot_observed_expected(result, 2.0)
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 2 and "observed" in labels[0] and "predicted" in labels[0]
    assert any(abs(line.get_xdata()[0] - 1.0) < 1e-12 for line in ax.lines)  # the line at O/E = 1
    plt.close(ax.figure)


def test_plot_errors(result):
    with pytest.raises(ValueError, match="not one of the horizons"):
        plot_calibration(result, 3.0)
    with pytest.raises(ValueError, match="not groups of the result"):
        plot_calibration(result, groups=["X"])
    with pytest.raises(survfair.InvalidParameterError, match="groups must be a list"):
        plot_calibration(result, groups="F")  # a string is one label, not a list of them
    with pytest.raises(TypeError, match="CalibrationResult"):
        plot_observed_expected("result")
    plt.close("all")


def _small_risk_result():
    rng = np.random.default_rng(7)
    n = 1500
    x = rng.normal(size=n) * 0.6 - 0.5
    group = np.where(rng.random(n) < 0.5, "F", "M")
    true_time = rng.exponential(30 * np.exp(-x))
    censor = rng.uniform(0, 12, n)
    risk = 1 - np.exp(-5 * np.exp(x) / 30)
    return survfair.calibration(
        np.minimum(true_time, censor),
        true_time <= censor,
        group,
        np.where(group == "M", 0.7 * risk, risk),
        5.0,
    ), risk


def test_axes_fit_the_predicted_range_and_curves_stay_where_the_data_are():
    """Predicted risks of 0-0.35: the square is fitted to what is drawn, not 0-1; each curve spans
    the 1st-99th percentiles of its group's predictions."""
    result, risk = _small_risk_result()
    assert risk.max() < 0.45
    ax = plot_calibration(result)
    high = ax.get_xlim()[1]
    assert ax.get_xlim() == ax.get_ylim() and 0.2 < high < 0.5
    curves = result.curves
    for group in ("F", "M"):
        own = curves[curves["group"] == group]["predicted"]
        assert own.max() <= high
    for line in ax.lines[:-1]:
        xs = np.asarray(line.get_xdata(), float)
        if xs.size == 101:
            assert xs.min() > 0 and xs.max() <= high
    assert "nan" not in " ".join(t.get_text() for t in ax.get_legend().get_texts())
    plt.close(ax.figure)
    ax = plot_observed_expected(result)
    assert ax.get_xlabel().startswith("O/E = observed / predicted") and ax.get_ylabel() == "group"
    ticks = [float(v) for v in ax.get_xticks()]
    assert 1.0 in ticks and len(ticks) >= 3
    plt.close(ax.figure)


def test_competing_risks_plot_labels_and_legend_without_nan():
    rng = np.random.default_rng(3)
    n = 600
    t1, t2, c = rng.exponential(5, n), rng.exponential(8, n), rng.uniform(0, 12, n)
    time = np.minimum.reduce([t1, t2, c])
    event = np.select([time == t1, time == t2], [1, 2], 0)
    group = np.where(rng.random(n) < 0.5, "a", "b")
    cif = (1 / 5) / (1 / 5 + 1 / 8) * (1 - np.exp(-3 * (1 / 5 + 1 / 8)))
    predicted = np.clip(cif + rng.normal(0, 0.03, n), 0.01, 0.99)
    result = survfair.calibration(time, event, group, predicted, 3.0, cause=1)
    ax = plot_calibration(result)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[0].startswith("a: O/E") and not any("nan" in t for t in texts)
    assert (
        "Aalen-Johansen" in ax.get_ylabel() and "cumulative incidence of cause 1" in ax.get_xlabel()
    )
    plt.close(ax.figure)


def test_plots_without_a_time_draw_the_first_horizon_only():
    """Review: summary() now returns every horizon, and the plots called it with time=None: with two
    horizons the observed/expected plot drew every group twice under the first horizon's title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(4)
    n = 400
    x = rng.normal(size=n)
    t = 6.0 * rng.weibull(1.5, n) * np.exp(-0.5 * x)
    c = rng.uniform(0, 15, n)
    group = np.where(rng.random(n) < 0.5, "F", "M")
    risk = np.column_stack([1 - np.exp(-((h / 6.0) ** 1.5) * np.exp(0.75 * x)) for h in (2.0, 4.0)])
    result = survfair.calibration(np.minimum(t, c), t <= c, group, risk, [2.0, 4.0])
    default = survfair.plotting.plot_observed_expected(result)
    first = survfair.plotting.plot_observed_expected(result, horizon=2.0)
    assert len(default.get_yticks()) == len(first.get_yticks())
    assert [t.get_text() for t in default.get_yticklabels()] == [
        t.get_text() for t in first.get_yticklabels()
    ]
    plt.close("all")
