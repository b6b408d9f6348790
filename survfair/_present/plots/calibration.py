"""Plots of a calibration audit (exported by :mod:`survfair.plotting`): curves and O/E per group."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Sequence

import numpy as np

from ..._calibration.result import CalibrationResult, km_risk_interval
from ..._core.deprecation import DEPRECATED, renamed
from ..._core.exceptions import InvalidParameterError
from ..._core.options import OptionTable, flag, text
from .base import AXES

__all__ = ["plot_calibration", "plot_observed_expected"]


def _check(result: Any) -> CalibrationResult:
    if not isinstance(result, CalibrationResult):
        raise InvalidParameterError(
            "result must be a CalibrationResult (from survfair.calibration), got "
            f"{type(result).__name__}.",
            parameter="result",
        )
    return result


#: candidate ticks of the O/E axis (log scale): the ones inside the limits are drawn
_RATIO_TICKS = (
    0.05,
    0.1,
    0.2,
    0.25,
    0.33,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    1.0,
    1.1,
    1.25,
    1.5,
    1.75,
    2.0,
    2.5,
    3.0,
    4.0,
    5.0,
    10.0,
    20.0,
)


def _ratio_ticks(low: float, high: float) -> list[float]:
    """Up to about 7 readable ticks between ``low`` and ``high``, always including 1."""
    inside = [v for v in _RATIO_TICKS if low <= v <= high]
    while len(inside) > 7:
        inside = [v for k, v in enumerate(inside) if k % 2 == 0 or v == 1.0]
        if 1.0 not in inside:
            inside.append(1.0)
    return sorted(set(inside) | {1.0})


def _horizon_words(t: float, time_unit: str | None) -> str:
    if time_unit is not None and not isinstance(time_unit, str):
        raise InvalidParameterError(
            f"time_unit must be a string such as 'years' or None, got {type(time_unit).__name__}.",
            parameter="time_unit",
        )
    return f"t = {t:g}" + (f" {time_unit}" if time_unit else "")


#: The options of :func:`plot_calibration` (``groups`` is a list of the result's groups).
_CALIBRATION_OPTIONS = OptionTable(
    "plot_calibration", ax=AXES, show_bins=flag(), show_curve=flag(), time_unit=text("years")
)


def plot_calibration(
    result: CalibrationResult,
    horizon: float | None = None,
    *,
    time: Any = DEPRECATED,
    groups: Sequence | None = None,
    ax: Any = None,
    show_bins: bool = True,
    show_curve: bool = True,
    time_unit: str | None = None,
):
    """Calibration curves of every group on one axis, at one horizon.

    How to read it: on the dashed diagonal the predicted risk equals the observed risk. A group's
    points (bins of predicted risk: mean predicted risk against the Kaplan-Meier risk of the bin,
    with its interval; under competing risks the Aalen-Johansen cumulative incidence) and its
    smooth curve (Austin, Harrell & van Klaveren 2020; drawn between the 1st and 99th percentiles
    of the group's predicted risks, where the data are) above the diagonal mean the model
    under-predicts that group's risk; below, it over-predicts. The legend gives each group's O/E
    and ICI (what is undefined, such as the ICI under competing risks, is left out). The axes are
    square, from 0 to just beyond the largest point or curve value, so predictions between 0 and
    0.3 fill the plot; interval whiskers may leave it.

    Parameters
    ----------
    result : CalibrationResult
        From :func:`survfair.calibration`.
    horizon : float, optional
        The horizon (default: the first of ``result.times``).
    time : float, optional
        Deprecated name of ``horizon`` (removed in 0.3).
    groups : sequence, optional
        Groups to draw (default: all), in legend order.
    ax : matplotlib Axes, optional
    show_bins, show_curve : bool, default=True
        Draw the binned points with their intervals, and the smooth curves.
    time_unit : str, optional
        Unit of the horizon in the axis labels (e.g. "years").

    Returns
    -------
    matplotlib.axes.Axes
        Per group one colour: error bars of the bins and a line of the smooth curve; the diagonal;
        equal axes from 0 to 1.08 times the largest value drawn (at most 1).

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is not a CalibrationResult or ``time_unit`` not a string.
    InvalidParameterError (a ValueError)
        If ``horizon`` is not a horizon of the result or a group is unknown.

    See Also
    --------
    plot_observed_expected : the O/E ratio per group with its interval.
    survfair.calibration : computes the result it draws.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, survfair
    >>> from survfair.plotting import plot_calibration
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=400)
    >>> t = rng.exponential(5 * np.exp(-x)); c = rng.uniform(0, 10, 400)
    >>> g = np.where(rng.random(400) < 0.5, "F", "M")
    >>> res = survfair.calibration(np.minimum(t, c), t <= c, g, 1 - np.exp(-3 * np.exp(x) / 5), 3)
    >>> ax = plot_calibration(res, time_unit="years")
    >>> ax.get_xlabel()
    'Predicted risk of an event by t = 3 years'
    """
    from .base import literal, literal_legend, new_axes

    horizon = renamed("plot_calibration", "time", "horizon", time, horizon)
    _CALIBRATION_OPTIONS.check(locals())
    result = _check(result)
    t = result._time(
        horizon
    )  # ValueError for a time that is not a horizon; None: the first horizon
    summary = result.summary(t)
    if groups is not None and (isinstance(groups, str) or not isinstance(groups, Iterable)):
        raise InvalidParameterError(
            f"groups must be a list of groups of the result, got a {type(groups).__name__}.",
            parameter="groups",
        )
    chosen = list(result.groups) if groups is None else list(groups)
    unknown = [g for g in chosen if g not in result.groups]
    if unknown:
        raise InvalidParameterError(
            f"groups: {unknown} are not groups of the result ({list(result.groups)}).",
            parameter="groups",
        )
    words = _horizon_words(t, time_unit)
    ax = new_axes(ax, (5.6, 5.0))
    colours = [f"C{k}" for k in range(len(result.groups))]
    bins = result.bins[result.bins["time"] == t]
    curves = result.curves[result.curves["time"] == t]
    top = 0.0  # the axes cover the points and curves drawn, not the bins' interval whiskers
    entries = []
    for group in chosen:
        colour = colours[result.groups.index(group)]
        row = summary.loc[[group]].iloc[0]  # a list: tuple labels are labels, not a MultiIndex key
        label = legend_label(group, row)
        handle = None
        if show_bins:
            own = bins[[value == group for value in bins["group"]]]
            low, high = km_risk_interval(
                own["observed"].to_numpy(float),
                own["observed_se"].to_numpy(float),
                result.confidence_level,
            )
            y = own["observed"].to_numpy(float)
            handle = ax.errorbar(
                own["predicted"],
                y,
                yerr=[y - low, high - y],
                fmt="o",
                color=colour,
                markersize=4,
                capsize=2,
                linewidth=1,
            )
            top = max(top, float(np.nanmax(y)), float(own["predicted"].max()))
        own = curves[[value == group for value in curves["group"]]]
        if (
            show_curve and own["observed"].notna().any()
        ):  # no curve where the spline model is undefined
            (line,) = ax.plot(own["predicted"], own["observed"], color=colour, linewidth=1.8)
            handle = handle if handle is not None else line
            top = max(top, float(np.nanmax(own["observed"])), float(own["predicted"].max()))
        if handle is not None:
            entries.append((handle, label))
    limit = min(1.0, max(top, 0.02) * 1.08)
    (diagonal,) = ax.plot([0, limit], [0, limit], linestyle="--", color="grey", linewidth=1)
    entries.append((diagonal, "perfect calibration"))
    ax.set_xlim(0, limit)
    ax.set_ylim(0, limit)
    ax.set_aspect("equal")
    competing = result.cause is not None
    what = f"cumulative incidence of cause {result.cause}" if competing else "risk of an event"
    ax.set_xlabel(f"Predicted {what} by {literal(words)}")
    ax.set_ylabel(
        "Observed cumulative incidence (Aalen-Johansen)"
        if competing
        else f"Observed risk by {literal(words)} (Kaplan-Meier)"
    )
    ax.set_title("Calibration per group")
    literal_legend(ax, entries, fontsize=8, loc="upper left")
    return ax


def legend_label(group, row) -> str:
    """``group: O/E 1.03, ICI 0.008``, leaving out what is undefined (never "nan")."""
    parts = [
        f"{name} {row[column]:{spec}}"
        for name, column, spec in (("O/E", "oe_ratio", ".2f"), ("ICI", "ici", ".3f"))
        if np.isfinite(row[column])
    ]
    return f"{group}: " + ", ".join(parts) if parts else f"{group}"


#: The options of :func:`plot_observed_expected`.
_OBSERVED_EXPECTED_OPTIONS = OptionTable("plot_observed_expected", ax=AXES, time_unit=text("years"))


def plot_observed_expected(
    result: CalibrationResult,
    horizon: float | None = None,
    *,
    time: Any = DEPRECATED,
    ax: Any = None,
    time_unit: str | None = None,
):
    """Observed / expected risk (O/E) per group with its interval, on a log scale, at one horizon.

    How to read it: 1 means the group's predicted risks are right on average; above 1 the model
    under-predicts the group's risk (more events than predicted), below 1 it over-predicts. Under
    each group's name: its observed (Kaplan-Meier) and mean predicted risk.

    Parameters
    ----------
    result : CalibrationResult
    horizon : float, optional
        The horizon (default: the first).
    time : float, optional
        Deprecated name of ``horizon`` (removed in 0.3).
    ax : matplotlib Axes, optional
    time_unit : str, optional
        Unit of the horizon in the title.

    Returns
    -------
    matplotlib.axes.Axes
        One point with a horizontal interval per group (groups on the y axis, so long labels fit),
        a vertical line at 1, a logarithmic x axis.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is not a CalibrationResult.
    InvalidParameterError (a ValueError)
        If ``horizon`` is not a horizon of the result.

    See Also
    --------
    plot_calibration : the calibration curves behind the ratios.
    survfair.calibration : computes the result it draws.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, survfair
    >>> from survfair.plotting import plot_observed_expected
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=400)
    >>> t = rng.exponential(5 * np.exp(-x)); c = rng.uniform(0, 10, 400)
    >>> g = np.where(rng.random(400) < 0.5, "F", "M")
    >>> res = survfair.calibration(np.minimum(t, c), t <= c, g, 1 - np.exp(-3 * np.exp(x) / 5), 3)
    >>> plot_observed_expected(res).get_xscale()
    'log'
    """
    from .base import literal, new_axes

    horizon = renamed("plot_observed_expected", "time", "horizon", time, horizon)
    _OBSERVED_EXPECTED_OPTIONS.check(locals())
    result = _check(result)
    t = result._time(horizon)  # None: the first horizon (summary(None) is every horizon)
    summary = result.summary(t)
    n = len(summary)
    ax = new_axes(ax, (6.0, 1.3 + 0.6 * n))
    positions = np.arange(n)[::-1]
    estimate = summary["oe_ratio"].to_numpy(float)
    low = summary["oe_ratio_ci_low"].to_numpy(float)
    high = summary["oe_ratio_ci_high"].to_numpy(float)
    error = np.vstack([estimate - low, high - estimate])
    ax.errorbar(
        estimate,
        positions,
        xerr=np.where(np.isfinite(error), error, 0.0),
        fmt="o",
        color="C0",
        capsize=3,
    )
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    finite = np.concatenate([estimate, low, high])
    finite = finite[np.isfinite(finite) & (finite > 0)]
    lo, hi = (min(finite.min(), 1.0), max(finite.max(), 1.0)) if finite.size else (0.5, 2.0)
    ax.set_xlim(lo / 1.2, hi * 1.2)
    from matplotlib.ticker import FixedLocator, FuncFormatter

    ax.xaxis.set_major_locator(FixedLocator(_ratio_ticks(lo / 1.2, hi * 1.2)))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    # the observed and predicted risks go under each group's name: text inside the axes would
    # overlap the intervals or leave the figure
    labels = [
        f"{group}\nobserved {100 * row['observed_risk']:.1f}%, predicted "
        f"{100 * row['expected_risk']:.1f}%"
        for group, row in summary.iterrows()
    ]
    ax.set_yticks(positions, [literal(text) for text in labels], fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("O/E = observed / predicted risk (log scale)")
    ax.text(
        1.0,
        0.01,
        " 1 = right on average",
        transform=ax.get_xaxis_transform(),
        ha="left",
        va="bottom",
        fontsize=7,
        color="grey",
    )
    ax.set_ylabel("group")
    ax.set_title(literal(f"O/E per group at {_horizon_words(t, time_unit)}"))
    return ax
