"""The figures of xCI / xAUC audits behind :mod:`survfair.plotting` (see there for the rules).

Every text drawn from data goes through :func:`~survfair._present.plots.base.literal` (a ``$``
is a dollar sign, not mathtext) and legends through
:func:`~survfair._present.plots.base.literal_legend`; long labels are cut by
:func:`~survfair._present.plots.base.short_label`.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple

import numpy as np
import pandas as pd

from ..._binary.xauc import XAUCResult
from ..._core.exceptions import InvalidParameterError
from ..._core.options import (
    TAU,
    OptionTable,
    argument_name,
    check_option,
    check_scalar,
    instance_of,
    integer,
    text,
)
from ..._core.results import XCIResult, no_variance_cells
from ..._core.validation import check_survival_inputs
from ..._models.comparison import ModelComparison
from .base import (
    AXES,
    CMAP,
    MAX_LABEL,
    difference_limit,
    literal,
    literal_legend,
    new_axes,
    short_label,
)


def _check_result(result: Any, name: str = "result") -> XCIResult:
    if not isinstance(result, XCIResult):
        raise InvalidParameterError(
            f"{name} must be an XCIResult (from survfair.xci), got {type(result).__name__}.",
            parameter=name,
        )
    return result


# Chance level of every cell metric drawn here (xCI, xAUC): a coin flip ranks a pair correctly
# half of the time. The default colour scale is centred on it and spans all of [0, 1].
_CHANCE = 0.5
_DAGGER = "\u2020"  # marks a cell (or forest row) that rests on few data
# A new figure is at most this wide and tall (inches): 1350 px at matplotlib's default 100 dpi,
# what a 1280-1400 px screen or report column shows without scaling it down.
_MAX_FIGURE = 13.5
_MIN_FONT = 6.0
#: Above this many groups a heatmap is drawn plain: the matrix as one image with its colour bar,
#: no text and no patch per cell, the flagged cells as one hatched region, and every k-th group
#: labelled (:func:`_plain_ticks`). From about 30 groups no value fits its cell at 6 pt in a
#: 13.5 in figure (:func:`_heatmap_plan` leaves the values out: from 28 groups with flagged cells,
#: 32 without), so a cell's only artist is its hatch, about 1 ms to add and draw (measured on a
#: quiet 2-core machine): 2.5 s at 50 groups with every cell flagged, 80 s at 300 (90,000
#: patches), an hour at 2,000. At 50 groups a cell is still 0.2 in (23 px in a report) and every
#: group label fits at 9 pt; labels overlap from about 70 groups.
PLAIN_FIGURE_GROUPS = 50
#: Group labels of a plain heatmap, in points; one label at least every 1.4 lines of them.
_PLAIN_TICK_FONT = 8.0


def _text_width(text: str, size: float) -> float:
    """Width in inches of one line of ``text`` drawn in the default font at ``size`` points.

    Measured from the glyph outlines (``TextToPath``), so no renderer is needed before the figure
    exists; 5% is added for the renderer's pixel snapping (measured: 32 vs 30.3 pt at 9 pt).
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width, _, _ = TextToPath().get_text_width_height_descent(
        text, FontProperties(size=size), ismath=False
    )
    return 1.05 * width / 72.0


class _HeatmapPlan(NamedTuple):
    """What the cells of a heatmap show, and at which sizes (see :func:`_heatmap_plan`)."""

    fontsize: float  # cell texts, points
    tick_fontsize: float  # group labels, points
    intervals: bool  # the interval on a second line
    values: bool  # any cell text at all
    note: str | None  # why something was left out, for the caption
    figsize: tuple[float, float]  # of a new figure
    slant: bool  # column labels at 30 degrees


def _heatmap_plan(
    labels: list[str],
    digits: int,
    with_intervals: bool,
    flagged: bool,
    notes: list[str],
    axes_size: tuple[float, float] | None,
) -> _HeatmapPlan:
    """Choose font sizes, cell contents and figure size for a G x G heatmap.

    The cell font shrinks with the number of groups G (10 pt up to 3 groups, 9 up to 6, 8.5 up
    to 9, then 8); the interval goes on a second line up to 8 groups and is left out beyond (the
    caption says so). A new figure (``axes_size`` None) is sized so that the texts fit their
    cells, at most :data:`_MAX_FIGURE` inches each way; in a given Axes (``axes_size``, inches)
    the font shrinks to fit, down to 6 pt, then the intervals and last the values are dropped.
    """
    n = len(labels)
    size = 10.0 if n <= 3 else 9.0 if n <= 6 else 8.5 if n <= 9 else 8.0
    tick_size = 10.0 if n <= 6 else 9.0
    value = max(f"{0:.{digits}f}", "NaN", key=len) + (_DAGGER if flagged else "")
    interval = f"[{0:.{digits}f}, {0:.{digits}f}]"
    intervals = with_intervals and n <= 8
    note = f"intervals omitted: {n} groups" if with_intervals and not intervals else None

    def need(points: float, two_lines: bool) -> float:  # side of a square cell that holds the text
        pad = 0.5 * points / 72.0
        width = max(_text_width(value, points), _text_width(interval, points) if two_lines else 0.0)
        height = (2 if two_lines else 1) * 1.25 * points / 72.0
        return max(width, height) + 2 * pad

    label_width = max((_text_width(label, tick_size) for label in labels), default=0.1)
    caption = max((_text_width(line, 10.0) for line in notes), default=0.0)
    # beside the cells: row labels and y label (label_width + 0.5), colour bar with its ticks and
    # two-line label and padding (1.9), margins (0.3); below and above: column labels, x label with
    # its caption lines (0.2 each), title (0.4), margins (0.2)
    extra_width = label_width + 2.7
    if axes_size is None:
        cell = max(0.65, need(size, intervals))
        cell = min(cell, (_MAX_FIGURE - extra_width) / n)
    else:
        cell = 0.8 * min(axes_size) / n  # what the colour bar and labels leave of the Axes
    slant = label_width > 0.9 * cell
    column_labels = (0.5 * label_width + 0.25) if slant else 0.3
    extra_height = column_labels + 0.2 * (1 + len(notes) + (note is not None)) + 0.8
    if axes_size is None:
        cell = min(cell, (_MAX_FIGURE - extra_height) / n)
    sizes = np.arange(size, _MIN_FONT - 0.25, -0.5)
    fits = [s for s in sizes if need(s, intervals) <= cell]
    if not fits and intervals:
        intervals, note = False, "intervals omitted: no room"
        fits = [s for s in sizes if need(s, False) <= cell]
    values = bool(fits)
    if not values:
        note = "values omitted: no room"
    figsize = (
        min(max(n * cell + extra_width, caption + 1.0, 4.8), _MAX_FIGURE),
        min(max(n * cell + extra_height, 4.0), _MAX_FIGURE),
    )
    return _HeatmapPlan(
        fits[0] if fits else size, tick_size, intervals, values, note, figsize, slant
    )


class _PlainPlan(NamedTuple):
    """How a plain heatmap is laid out (see :func:`_plain_plan`)."""

    figsize: tuple[float, float]  # of a new figure
    step: int  # one group label in ``step``
    vertical: bool  # column labels turned by 90 degrees


def _plain_plan(labels: list[str], lines: int, axes_size: tuple[float, float] | None) -> _PlainPlan:
    """Figure size and group labels of a plain heatmap (more than
    :data:`PLAIN_FIGURE_GROUPS` groups): the image is as large as :data:`_MAX_FIGURE` allows
    beside the labels (10.5 in for short labels; in a given Axes ``axes_size``, 80% of its
    shorter side), and one group in ``step`` is labelled so that labels of
    :data:`_PLAIN_TICK_FONT` points are at least 1.4 lines apart; column labels are turned
    upright when they are wider than that spacing. ``lines``: caption lines under the x label."""
    n = len(labels)
    label_width = max((_text_width(label, _PLAIN_TICK_FONT) for label in labels), default=0.1)
    # beside the image: row labels and y label, colour bar and margins (as _heatmap_plan); below
    # and above: column labels, x label and caption lines, title, margins
    if axes_size is None:
        side = max(_MAX_FIGURE - label_width - 2.7, 3.0)
    else:
        side = 0.8 * min(axes_size)
    step = max(1, math.ceil(n / max(1, math.floor(side / (1.4 * _PLAIN_TICK_FONT / 72.0)))))
    vertical = label_width > 0.9 * step * side / n
    column_labels = label_width + 0.25 if vertical else 0.3
    figsize = (
        min(side + label_width + 2.7, _MAX_FIGURE),
        min(side + column_labels + 0.2 * (1 + lines) + 0.8, _MAX_FIGURE),
    )
    return _PlainPlan(figsize, step, vertical)


def _plain_ticks(ax: Any, labels: list[str], plan: _PlainPlan) -> str | None:
    """Label one group in ``plan.step`` on both axes of a plain heatmap; the caption line that
    says so (None when every group is labelled)."""
    ticks = range(0, len(labels), plan.step)
    shown = [labels[k] for k in ticks]
    ax.set_xticks(ticks, shown, fontsize=_PLAIN_TICK_FONT, rotation=90 if plan.vertical else 0)
    ax.set_yticks(ticks, shown, fontsize=_PLAIN_TICK_FONT)
    if plan.step == 1:
        return None
    return f"one group in {plan.step} labelled, in the result's order"


def _flag_region(flagged: np.ndarray) -> Any:
    """The flagged cells of a G x G matrix as one matplotlib Path (a rectangle per run of flagged
    cells in a row), or None when none is flagged: one artist whatever the number of cells."""
    from matplotlib.path import Path

    if not flagged.any():
        return None
    edges = np.diff(np.pad(flagged.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    starts = np.argwhere(edges == 1)  # row-major, as the ends
    ends = np.argwhere(edges == -1)[:, 1]
    rows, first = starts[:, 0].astype(float), starts[:, 1].astype(float)
    left, right, top, bottom = first - 0.5, ends - 0.5, rows - 0.5, rows + 0.5
    corners = [(left, top), (right, top), (right, bottom), (left, bottom), (left, top)]
    vertices = np.stack([np.column_stack(corner) for corner in corners], axis=1)
    codes = np.tile(
        np.array([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY]), len(rows)
    )
    return Path(vertices.reshape(-1, 2), codes)


# What the axes of a cell-matrix heatmap mean: (metric, row a, column b, default title).
def _heatmap_words(result: Any) -> tuple[str, str, str, str]:
    if isinstance(result, XAUCResult):
        return "xAUC", "a: group of the positive", "b: group of the negative", "xAUC (DeLong)"
    if isinstance(result, XCIResult):
        # censoring="cox": the weights are not the Kaplan-Meier ones, say so
        cox = ", Cox censoring" if result.censoring_model is not None else ""
        return (
            "xCI",
            "a: group of the earlier event",
            "b: group of the later member",
            f"xCI ({result.method}{cox})",
        )
    raise InvalidParameterError(
        "result must be an XCIResult (from survfair.xci) or an XAUCResult (from survfair.xauc), "
        f"got {type(result).__name__}.",
        parameter="result",
    )


def _heatmap_norm(norm: Any, vmin: Any, vmax: Any) -> tuple[Any, bool]:
    """The colour normalisation, and whether it is centred at chance (0.5).

    Default: ``TwoSlopeNorm(vcenter=0.5, vmin=0, vmax=1)``, the same for every heatmap. With
    ``vmin``/``vmax`` the scale stays centred at 0.5 while 0.5 lies strictly between them, else
    it is linear. A ``norm`` is used as given.
    """
    from matplotlib.colors import Normalize, TwoSlopeNorm

    if norm is not None:
        if vmin is not None or vmax is not None:
            raise InvalidParameterError(
                "Pass either norm or vmin/vmax to plot_xci_heatmap, not both.", parameter="norm"
            )
        if not isinstance(norm, Normalize):
            raise InvalidParameterError(
                f"norm must be a matplotlib.colors.Normalize, got {type(norm).__name__}.",
                parameter="norm",
            )
        return norm, isinstance(norm, TwoSlopeNorm) and norm.vcenter == _CHANCE
    low = 0.0 if vmin is None else check_scalar(vmin, "vmin")
    high = 1.0 if vmax is None else check_scalar(vmax, "vmax")
    if not low < high:
        raise InvalidParameterError(
            f"vmax must be greater than vmin, got vmin={low:g} and vmax={high:g}.", parameter="vmax"
        )
    if low < _CHANCE < high:
        return TwoSlopeNorm(vcenter=_CHANCE, vmin=low, vmax=high), True
    return Normalize(vmin=low, vmax=high), False


def _flag_matrix(
    result: Any, flags: Any, min_events: int, min_pairs: int
) -> tuple[np.ndarray, str | None]:
    """Boolean G x G matrix of the flagged cells, and the rules that flagged them
    (:func:`survfair._present.findings.ranking.flag_reasons`; None when no cell is flagged), for
    the caption line that explains the mark."""
    groups = list(result.groups)
    flagged = np.zeros((len(groups), len(groups)), dtype=bool)
    if flags is False:
        return flagged, None
    from ..findings.ranking import flag_reasons, small_sample_flags

    if flags is None or flags is True:
        flags = small_sample_flags(result, min_events=min_events, min_pairs=min_pairs)
    _check_flags_table(flags, "flags")
    in_order = _row_major_flags(flags, groups)
    if in_order is not None:  # the table of small_sample_flags: read by position
        flagged = in_order
    else:
        index = {g: k for k, g in enumerate(groups)}
        for (a, b), is_flagged in _flag_positions(flags, groups, "flags").items():
            flagged[index[a], index[b]] = is_flagged
    why = flag_reasons(flags)  # the rules that apply, from the table's reasons
    return flagged, (why if flagged.any() else None)


def _row_major_flags(flags: pd.DataFrame, groups: list[Any]) -> np.ndarray | None:
    """The G x G flags of a table that lists every cell once, row-major in the order of
    ``groups`` (as :func:`survfair.small_sample_flags` does), or None for a table in another
    order: a label lookup per cell took hours at 2,000 groups (4 million cells)."""
    g = len(groups)
    if len(flags) != g * g:
        return None
    labels = np.empty(g, dtype=object)
    for k, label in enumerate(groups):  # one by one: a tuple label stays one element
        labels[k] = label
    for column, expected in (("a", np.repeat(labels, g)), ("b", np.tile(labels, g))):
        if not np.array_equal(flags[column].to_numpy(dtype=object), expected):
            return None
    return np.array([bool(f) for f in flags["flagged"]], dtype=bool).reshape(g, g)


def _check_flags_table(flags: Any, name: str) -> None:
    """A :func:`survfair.small_sample_flags` table: a DataFrame with the columns a, b, flagged."""
    if not isinstance(flags, pd.DataFrame):
        raise InvalidParameterError(
            f"{name} must be a DataFrame as returned by survfair.small_sample_flags, got "
            f"{type(flags).__name__}.",
            parameter=argument_name(name),
        )
    missing = [c for c in ("a", "b", "flagged") if c not in flags.columns]
    if missing:
        raise InvalidParameterError(
            f"{name} must have the columns 'a', 'b' and 'flagged' (survfair.small_sample_flags); "
            f"missing {missing}.",
            parameter=argument_name(name),
        )


def _flag_positions(flags: Any, groups: list[Any], name: str) -> dict[tuple[Any, Any], bool]:
    """``{(a, b): flagged}`` from a :func:`survfair.small_sample_flags` table, checked
    against ``groups``."""
    _check_flags_table(flags, name)
    known = {str(g): g for g in groups}
    unknown = sorted({str(g) for g in (*flags["a"], *flags["b"])} - set(known))
    if unknown:
        raise InvalidParameterError(
            f"{name}: groups {unknown} are not groups of the result {[str(g) for g in groups]}.",
            parameter=argument_name(name),
        )
    return {
        (known[str(a)], known[str(b)]): bool(f)
        for a, b, f in zip(flags["a"], flags["b"], flags["flagged"])
    }


#: The options of :func:`plot_xci_heatmap` (``norm``, ``vmin`` and ``vmax`` are checked together
#: in the body).
_XCI_HEATMAP_OPTIONS = OptionTable(
    "plot_xci_heatmap",
    ax=AXES,
    cmap=CMAP,
    digits=integer(low=0),
    min_events=integer(low=0),
    min_pairs=integer(low=0),
)


def plot_xci_heatmap(
    result: XCIResult | XAUCResult,
    *,
    ax: Any = None,
    cmap: Any = "RdBu",
    norm: Any = None,
    vmin: float | None = None,
    vmax: float | None = None,
    digits: int = 3,
    flags: pd.DataFrame | bool | None = None,
    min_events: int = 10,
    min_pairs: int = 100,
    title: str | None = None,
    **kwargs: Any,
):
    """Heatmap of the xCI (or xAUC) matrix with each cell's value (and interval, when available).

    How to read it: each cell is the share of its pairs that the score ranks correctly; red
    cells (below 0.5) are ranked worse than a coin flip, blue cells better, and a cell that
    differs in colour from its mirror across the diagonal is a cross-group asymmetry (Δbetween).

    Rows a are the group of the member with the EARLIER event, columns b the group of the member
    who outlived it (eq. 2 of Wang et al. 2026). For an :class:`~survfair.XAUCResult` rows a are
    the group of the POSITIVE and columns b the group of the NEGATIVE (xAUC(a, b) =
    P[R_1^a > R_0^b], Kallus & Zhou 2019, Definition 2); the axis labels say which.

    The colour scale is fixed, the same for every heatmap: the diverging ``RdBu`` map with
    ``TwoSlopeNorm(vcenter=0.5, vmin=0, vmax=1)``. Both metrics are probabilities whose chance
    level is 0.5, so the white centre means "no better than a coin flip", and because the limits
    do not follow the data a 0.01 difference between two cells stays a pale shade of one colour,
    and two heatmaps of one report (models, data sets) can be compared by colour. (With the
    symmetric default limits this equals ``Normalize(0, 1)``; ``TwoSlopeNorm`` keeps 0.5 white
    when only one limit is changed.) Read the printed values for sizes.

    Cells that rest on few data (:func:`survfair.small_sample_flags`) get a dagger after the
    value and a hatch; the caption under the x label says what the mark means, and also when
    the intervals were left out because the cells are too small for them. Text shrinks with the
    number of groups: 10 pt cells up to 3 groups, 9 up to 6, 8.5 up to 9, 8 beyond; intervals on
    a second line up to 8 groups ("(SE 0)" instead of the zero-width interval of a cell with
    standard error 0, which has no estimate of its sampling variability). Group labels and the title
    are drawn literally (a ``$`` is a dollar sign); labels longer than 40 characters are cut
    with an ellipsis.

    With more than 50 groups (:data:`PLAIN_FIGURE_GROUPS`) the heatmap is drawn plain: the matrix
    as one image with its colour bar, no text per cell, the flagged cells as one hatched region,
    and one group in k labelled (8 pt labels at least 1.4 lines apart; the caption says which k).
    A patch per cell took a minute and more at 300 groups, and no value fits a cell from about
    30 groups anyway; :meth:`~survfair.XCIResult.to_frame` has the numbers.

    Parameters
    ----------
    result : XCIResult or XAUCResult
    ax : matplotlib Axes, optional
        Drawn into when given (the fonts then shrink to the cells' room); else a new figure,
        sized so that the cell texts and group labels fit (at most 13.5 x 13.5 in).
    cmap : str or matplotlib Colormap, default="RdBu"
        Undefined (NaN) cells are light grey whatever the map.
    norm : matplotlib.colors.Normalize, optional
        Replaces the default scale; not together with ``vmin``/``vmax``.
    vmin, vmax : float, optional
        Colour limits, default 0 and 1; the scale stays centred at 0.5 while
        ``vmin < 0.5 < vmax``, else it is linear.
    digits : int, default=3
        Decimals shown in the cells.
    flags : DataFrame, bool or None, default=None
        Cells to mark as resting on few data: a table as returned by
        :func:`survfair.small_sample_flags` (columns a, b, flagged; extra columns ignored);
        None or True computes it from ``result`` with ``min_events`` and ``min_pairs``; False
        marks nothing.
    min_events : int, default=10
        Passed to :func:`survfair.small_sample_flags` when ``flags`` is None.
    min_pairs : int, default=100
        Passed to :func:`survfair.small_sample_flags` when ``flags`` is None.
    title : str, optional
        Default: "xCI (method)", or "xAUC (DeLong)" for an XAUCResult.
    **kwargs
        Passed to ``ax.imshow``.

    Returns
    -------
    matplotlib.axes.Axes
        With one ``AxesImage``, one text per cell (row-major; unless the Axes is too small for
        any), one hatched ``Rectangle`` per flagged cell, and a colour bar labelled with what the
        colour means added to the figure. Long column labels are slanted. Plain (more than 50
        groups): the image, one hatched ``PathPatch`` over the flagged cells (none when no cell
        is flagged), no text, and the colour bar.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is neither an XCIResult nor an XAUCResult, ``norm`` is not a matplotlib
        ``Normalize``, or ``flags`` is not a DataFrame, bool or None.
    InvalidParameterError (a ValueError)
        If both ``norm`` and ``vmin``/``vmax`` are given, ``vmin >= vmax``, or ``flags`` lacks
        the columns a, b, flagged or names a group the result does not have.

    See Also
    --------
    survfair.small_sample_flags : the default ``flags``.
    plot_forest : the differences Δbetween / Δwithin of these cells, across models.
    survfair.xci, survfair.xauc : the results drawn here.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import survfair
    >>> from survfair.plotting import plot_xci_heatmap
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> ax = plot_xci_heatmap(res)
    >>> norm = ax.images[0].norm
    >>> float(norm.vmin), float(norm.vcenter), float(norm.vmax)
    (0.0, 0.5, 1.0)
    >>> ax.texts[2].get_text().splitlines()  # xCI(b, a) and its interval; flagged: 4 events in b
    ['0.667†', '[0.077, 0.980]']
    """
    _XCI_HEATMAP_OPTIONS.check(locals())
    import matplotlib
    from matplotlib.patches import PathPatch, Rectangle

    metric, row_words, column_words, default_title = _heatmap_words(result)
    digits = check_scalar(digits, "digits", "integer", low=0)
    colour_norm, centred = _heatmap_norm(norm, vmin, vmax)
    colours = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    colours = colours.with_extremes(bad="0.85")
    flagged, why = _flag_matrix(result, flags, min_events, min_pairs)
    values = result.values
    labels = [literal(short_label(g)) for g in result.groups]  # full labels stay in the tables
    axes_size = None
    if ax is not None:
        box = ax.get_position()
        axes_size = (box.width * ax.figure.get_figwidth(), box.height * ax.figure.get_figheight())
    if len(labels) > PLAIN_FIGURE_GROUPS:  # one image, one hatched region, thinned labels
        plain = _plain_plan([str(g) for g in result.groups], 2, axes_size)
        ax = new_axes(ax, plain.figsize)
        image = ax.imshow(np.ma.masked_invalid(values), cmap=colours, norm=colour_norm, **kwargs)
        notes = [f"hatched: {why}"] if why is not None else []
        region = _flag_region(flagged)
        if region is not None:  # add_artist: inside the image, so no data limits to update
            ax.add_artist(  # (add_patch walked the path's segments: 5 s at 2,000 groups)
                PathPatch(
                    region,
                    fill=False,
                    hatch="///",
                    linewidth=0.0,
                    edgecolor=(0.0, 0.0, 0.0, 0.4),
                    label="flagged cells",
                )
            )
        thinned = _plain_ticks(ax, labels, plain)
        notes.append(f"no values drawn: {len(labels)} groups" + (f"; {thinned}" if thinned else ""))
        ax.set_ylabel(row_words)
        ax.set_xlabel("\n".join([column_words, *notes]))
        return _heatmap_frame(ax, image, metric, centred, cmap, title, default_title)
    low, high = result.confidence_interval()
    no_variance = no_variance_cells(result)
    with_intervals = bool(np.isfinite(low.to_numpy()).any())
    notes = [f"{_DAGGER} hatched: {why}"] if why is not None else []
    plan = _heatmap_plan(
        [str(g) for g in result.groups],
        digits,
        with_intervals,
        bool(flagged.any()),
        notes,
        axes_size,
    )
    ax = new_axes(ax, plan.figsize)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=colours, norm=colour_norm, **kwargs)
    ax.set_xticks(range(len(labels)), labels, fontsize=plan.tick_fontsize)
    if plan.slant:  # long labels would overlap under their columns
        for text in ax.get_xticklabels():
            text.set(rotation=30, horizontalalignment="right", rotation_mode="anchor")
    ax.set_yticks(range(len(labels)), labels, fontsize=plan.tick_fontsize)
    ax.set_ylabel(row_words)
    for i in range(len(labels)):
        for j in range(len(labels)):
            value = values[i, j]
            dark = False  # text and hatch in white on a dark cell, else in black
            if not math.isnan(value):
                r, g, b, _ = image.cmap(image.norm(value))
                dark = 0.299 * r + 0.587 * g + 0.114 * b <= 0.5
            colour = "white" if dark else "black"
            if flagged[i, j]:
                ax.add_patch(
                    Rectangle(
                        (j - 0.5, i - 0.5),
                        1.0,
                        1.0,
                        fill=False,
                        hatch="///",
                        linewidth=0.0,
                        edgecolor=(1.0, 1.0, 1.0, 0.5) if dark else (0.0, 0.0, 0.0, 0.4),
                        label=f"flagged {labels[i]}, {labels[j]}",
                    )
                )
            if not plan.values:
                continue
            text = ("NaN" if math.isnan(value) else f"{value:.{digits}f}") + (
                _DAGGER if flagged[i, j] else ""
            )
            lo, hi = low.iloc[i, j], high.iloc[i, j]
            if (
                plan.intervals and no_variance[i, j]
            ):  # a zero-width interval is no measure of precision
                text += "\n(SE 0)"
            elif plan.intervals and np.isfinite(lo) and np.isfinite(hi):
                text += f"\n[{lo:.{digits}f}, {hi:.{digits}f}]"
            ax.text(j, i, text, ha="center", va="center", fontsize=plan.fontsize, color=colour)
    ax.set_xlabel("\n".join([column_words, *notes, *([plan.note] if plan.note else [])]))
    return _heatmap_frame(ax, image, metric, centred, cmap, title, default_title)


def _heatmap_frame(
    ax: Any, image: Any, metric: str, centred: bool, cmap: Any, title: Any, default_title: str
) -> Any:
    """The colour bar, labelled with what the colour means, and the title of a cell heatmap."""
    meaning = f"{metric}: share of pairs ranked correctly"
    if centred:
        default_colours = isinstance(cmap, str) and cmap == "RdBu"
        meaning += (
            "\nred < 0.5 (coin flip) < blue" if default_colours else "\ncentre: 0.5 (coin flip)"
        )
    ax.figure.colorbar(image, ax=ax, label=meaning, shrink=0.8)
    ax.set_title(literal(title) if title is not None else default_title)
    return ax


def _difference_matrix(value: Any, name: str) -> tuple[pd.DataFrame, str | None]:
    """A square matrix (DataFrame) from a result or a DataFrame, and the metric's name."""
    if isinstance(value, (XCIResult, XAUCResult)):
        metric = "xAUC" if isinstance(value, XAUCResult) else "xCI"
        return value.matrix.astype(float), metric
    if isinstance(value, pd.DataFrame):
        if value.shape[0] != value.shape[1] or list(value.index) != list(value.columns):
            raise InvalidParameterError(
                f"{name} must be a square matrix with the same labels on both axes, got "
                f"{value.shape[0]} rows {list(value.index)[:5]} and columns "
                f"{list(value.columns)[:5]}.",
                parameter=name,
            )
        return value.astype(float), None
    raise InvalidParameterError(
        f"{name} must be an XCIResult, an XAUCResult or a square DataFrame, got "
        f"{type(value).__name__}.",
        parameter=name,
    )


#: The options of :func:`plot_xci_difference` (``limit`` is checked against the data in the body).
_XCI_DIFFERENCE_OPTIONS = OptionTable("plot_xci_difference", ax=AXES, cmap=CMAP)


def plot_xci_difference(
    result: Any,
    reference: Any = "transpose",
    *,
    ax: Any = None,
    cmap: Any = "PuOr",
    limit: float | None = None,
    title: str | None = None,
    **kwargs: Any,
):
    """Heatmap of a difference of cell matrices, on a diverging colour scale centred on 0.

    How to read it: white is no difference; the further a cell is from white, the larger the
    difference, in percentage points printed in the cell. The 0-1 scale of
    :func:`plot_xci_heatmap` shows 0.734 and 0.837 as two similar blues; this view shows their
    difference, +10.3 points, as a clear colour.

    What is drawn depends on ``reference``:

    * ``"transpose"`` (default): ``M - M^T``, the Δbetween of every pair: cell (a, b) is
      xCI(a, b) - xCI(b, a) (Wang et al. 2026, Section 4.2.1), so (b, a) is its negative and
      the diagonal is empty. A positive cell (a, b) means members of a who had the event first
      were ranked correctly more often than members of b who had it first.
    * a result or a matrix: ``M - reference``, e.g. observed minus the model-based matrix (the
      excess of each cell), or one model minus another on the same data.
    * ``None``: ``result`` is already a difference matrix (a DataFrame) and is drawn as given.

    Parameters
    ----------
    result : XCIResult, XAUCResult or DataFrame
        The cell matrix (rows a, columns b; a square DataFrame with the same labels on both axes).
    reference : "transpose", XCIResult, XAUCResult, DataFrame or None, default="transpose"
        What to subtract (see above); its labels must be those of ``result``.
    ax : matplotlib Axes, optional
    cmap : str or matplotlib Colormap, default="PuOr"
        A diverging map (its centre is drawn at 0); not the red-blue map of the cell heatmaps,
        so that a difference is not read as a concordance. Undefined cells are light grey.
    limit : float, optional
        The colour scale spans [-limit, +limit] (probability units: 0.1 = 10 points); default:
        the largest absolute difference, rounded up to a multiple of 0.05. Give the same limit to
        compare colours across heatmaps.
    title : str, optional
        Default: "xCI(a, b) − xCI(b, a)" or "xCI − reference".
    **kwargs
        Passed to ``ax.imshow``.

    Returns
    -------
    matplotlib.axes.Axes
        With one ``AxesImage`` (``TwoSlopeNorm`` with ``vcenter=0``), one text per defined cell
        (percentage points, signed), and a colour bar.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` or ``reference`` is not a result or a DataFrame.
    InvalidParameterError (a ValueError)
        If a matrix is not square, the labels of ``reference`` differ from those of ``result``,
        or ``limit`` is not > 0.

    See Also
    --------
    plot_xci_heatmap : the cells themselves, on the fixed 0-1 scale.
    survfair.delta_between : one pair's Δbetween with its interval.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import survfair
    >>> from survfair.plotting import plot_xci_difference
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> ax = plot_xci_difference(res)
    >>> float(ax.images[0].norm.vcenter), [t.get_text() for t in ax.texts]
    (0.0, ['+13.3', '−13.3'])
    """
    _XCI_DIFFERENCE_OPTIONS.check(locals())
    import matplotlib
    from matplotlib.colors import TwoSlopeNorm

    matrix, metric = _difference_matrix(result, "result")
    labels = list(matrix.index)
    metric = metric or "cell"
    if isinstance(reference, str) and reference == "transpose":
        values = matrix.to_numpy() - matrix.to_numpy().T
        np.fill_diagonal(values, np.nan)
        default_title = f"{metric}(a, b) − {metric}(b, a): Δbetween of each pair"
    elif reference is None:
        values = matrix.to_numpy().copy()
        default_title = "difference"
    else:
        other, _ = _difference_matrix(reference, "reference")
        if [str(g) for g in other.index] != [str(g) for g in labels]:
            raise InvalidParameterError(
                f"reference has the groups {[str(g) for g in other.index]}, result "
                f"{[str(g) for g in labels]}: they must be the same, in the same order.",
                parameter="reference",
            )
        values = matrix.to_numpy() - other.to_numpy()
        default_title = f"{metric} − reference"
    if limit is None:
        limit = difference_limit([values])
    limit = check_scalar(limit, "limit", low=0.0)
    if not limit > 0:
        raise InvalidParameterError(f"limit must be > 0, got {limit!r}.", parameter="limit")
    n = len(labels)
    side = min(max(0.9 * n + 2.6, 4.4), _MAX_FIGURE)
    ax = new_axes(ax, (side + 0.8, side))
    colours = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    colours = colours.with_extremes(bad="0.85")
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=colours, norm=norm, **kwargs)
    shown = [
        literal(short_label(g)) for g in labels
    ]  # cut as in every figure; full labels stay in the tables
    size = 10.0 if n <= 3 else 9.0 if n <= 6 else 8.0
    thinned = None
    if n > PLAIN_FIGURE_GROUPS:  # as plot_xci_heatmap: one group label in k
        box = ax.get_position()
        thinned = _plain_ticks(
            ax,
            shown,
            _plain_plan(
                [str(g) for g in labels],
                1,
                (box.width * ax.figure.get_figwidth(), box.height * ax.figure.get_figheight()),
            ),
        )
    else:
        ax.set_xticks(range(n), shown, fontsize=size)
        ax.set_yticks(range(n), shown, fontsize=size)
        if max((len(str(short_label(g))) for g in labels), default=0) > 6:
            for text in ax.get_xticklabels():
                text.set(rotation=30, horizontalalignment="right", rotation_mode="anchor")
    words = {
        "xCI": ("a: group of the earlier event", "b: group of the later member"),
        "xAUC": ("a: group of the positive", "b: group of the negative"),
    }.get(metric, ("a", "b"))
    ax.set_ylabel(words[0])
    ax.set_xlabel(words[1] + (f"\n{thinned}" if thinned else ""))
    if n <= 12:
        for i in range(n):
            for j in range(n):
                value = values[i, j]
                if not np.isfinite(value):
                    continue
                r, g, b, _ = image.cmap(image.norm(value))
                dark = 0.299 * r + 0.587 * g + 0.114 * b <= 0.5
                ax.text(
                    j,
                    i,
                    f"{100 * value:+.1f}".replace("-", "\u2212"),
                    ha="center",
                    va="center",
                    fontsize=size,
                    color="white" if dark else "black",
                )
    bar = ax.figure.colorbar(
        image, ax=ax, shrink=0.8, label="difference, percentage points\n0 = no difference"
    )
    ticks = np.linspace(-limit, limit, 5)
    bar.set_ticks(
        ticks,
        labels=[
            ("0" if abs(t) < 1e-12 else f"{round(100 * t, 1):+g}").replace("-", "\u2212")
            for t in ticks
        ],
    )
    ax.set_title(literal(title) if title is not None else default_title)
    return ax


#: The options of :func:`plot_risk_densities`.
_RISK_DENSITIES_OPTIONS = OptionTable(
    "plot_risk_densities",
    data=instance_of(pd.DataFrame, "a DataFrame"),
    ax=AXES,
    grid_size=integer(low=2),
)


def plot_risk_densities(
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    ax: Any = None,
    grid_size: int = 200,
    title: str | None = None,
    **kwargs: Any,
):
    """Kernel densities of the risk score by group x event status (Wang et al. 2026, Figs. 2-3).

    How to read it: compare curves of the same line style across colours -- under separation a
    fair score has the same distribution in every group given the outcome, so solid (event) or
    dashed (censored) curves that sit apart signal cross-group disparity.

    One curve per (group, event status): colour = group, solid = event observed, dashed =
    censored.

    Parameters
    ----------
    event : array-like of shape (n_samples,) or column name
        1/True = event observed.
    group : array-like of shape (n_samples,) or column name
    risk : array-like of shape (n_samples,) or column name
        Risk scores, higher = earlier event. The order (event, group, risk) is that of
        :func:`survfair.xci` without the times, which the plot does not use.
    data : DataFrame, optional
        Table in which string arguments are column names.
    ax : matplotlib Axes, optional
    grid_size : int, default=200
        Points at which each density is evaluated.
    title : str, optional
    **kwargs
        Passed to every ``ax.plot`` call.

    Returns
    -------
    matplotlib.axes.Axes
        With one Line2D per (group, event status) having at least 2 distinct scores (a
        Gaussian KDE, ``scipy.stats.gaussian_kde``, Scott's bandwidth), and a legend.

    Raises
    ------
    InvalidParameterError
        From input validation (lengths, NaN, ...), naming the argument.

    See Also
    --------
    plot_xci_heatmap : the cross-group ranking these distributions produce.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from survfair.plotting import plot_risk_densities
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_risk_densities(rng.random(200) < 0.5, rng.choice(["F", "M"], 200),
    ...                          rng.normal(size=200))
    >>> len(ax.lines)  # 2 groups x {event, censored}
    4
    """
    _RISK_DENSITIES_OPTIONS.check(locals())
    from scipy.stats import gaussian_kde

    zeros = np.zeros(len(data) if data is not None else np.asarray(risk).shape[0])
    time = zeros if data is None else pd.Series(zeros, index=data.index)
    sample, _ = check_survival_inputs(time, event, group, risk, data=data)
    ax = new_axes(ax, (6.0, 4.0))
    grid = np.linspace(sample.risk.min(), sample.risk.max(), grid_size)
    pad = 0.05 * (grid[-1] - grid[0] or 1.0)
    grid = np.linspace(grid[0] - pad, grid[-1] + pad, grid_size)
    colours = [f"C{i % 10}" for i in range(sample.n_groups)]
    entries = []
    for code, label in enumerate(sample.groups):
        for observed, style, word in ((True, "-", "event"), (False, "--", "censored")):
            values = sample.risk[(sample.group_codes == code) & (sample.event == observed)]
            if np.unique(values).size < 2:
                continue
            density = gaussian_kde(values)(grid)
            text = f"{short_label(label)}, {word} (n={values.size})"
            (line,) = ax.plot(
                grid, density, linestyle=style, color=colours[code], label=literal(text), **kwargs
            )
            entries.append((line, text))
    ax.set_xlabel("risk score (higher = earlier event)")
    ax.set_ylabel("density")
    literal_legend(ax, entries, fontsize=8)
    if title is not None:
        ax.set_title(literal(title))
    return ax


#: The options of :func:`plot_censoring_curves`.
_CENSORING_CURVES_OPTIONS = OptionTable(
    "plot_censoring_curves", ax=AXES, tau=TAU, time_unit=text("days")
)


def plot_censoring_curves(
    result: XCIResult,
    *,
    ax: Any = None,
    tau: float | None = None,
    time_unit: str | None = None,
    **kwargs: Any,
):
    """Per-group probability of remaining uncensored, K_g(t) = P(U > t | G = g), with tau
    marked (eq. 6).

    How to read it: each line is the share of a group still under observation (not yet censored)
    at time t -- not the patients' survival; where a line falls low before tau, the IPCW weights
    1 / (K_a(t) K_b(t)) of that group's pairs are large and its xCI cells unstable (the dotted
    line at 0.1 is the level of survfair's positivity warning).

    Parameters
    ----------
    result : XCIResult
        An IPCW result (it carries ``censoring_curves``).
    ax : matplotlib Axes, optional
    tau : float, optional
        Vertical line position; default ``result.tau`` (no line when None).
    time_unit : str, optional
        Unit of the time axis, e.g. "days": the x label reads "time (days)" and the tau line
        "tau = 4000 days".
    **kwargs
        Passed to every ``ax.step`` call.

    Returns
    -------
    matplotlib.axes.Axes
        One step line per group labelled ``K_g(t)`` (one, ``K_pooled(t)``, for pooled
        censoring), a dotted line at K = 0.1 (the positivity warning level), a vertical dashed
        line at tau when known, and a legend. With more than 50 groups
        (:data:`PLAIN_FIGURE_GROUPS`) the lines share one thin colour and one legend entry.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is not an XCIResult or ``time_unit`` is not a string.
    InvalidParameterError (a ValueError)
        If the result has no censoring curves: naive estimator, or ``censoring="cox"`` (its
        weights come from ``result.censoring_model``, one curve per person).

    See Also
    --------
    survfair.xci : ``censoring="group"`` (eq. 6) or ``"pooled"`` chooses the curves drawn here.
    plot_xci_heatmap : the cells these curves weight.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, survfair
    >>> from survfair.plotting import plot_censoring_curves
    >>> rng = np.random.default_rng(0)
    >>> t, c = rng.exponential(300, 200), rng.exponential(600, 200)
    >>> res = survfair.xci(np.minimum(t, c), t <= c, rng.choice(["F", "M"], 200), -t, tau=400.0)
    >>> ax = plot_censoring_curves(res, time_unit="days")
    >>> ax.get_xlabel(), [text.get_text() for text in ax.get_legend().get_texts()][-1]
    ('time (days)', 'tau = 400 days')
    """
    _CENSORING_CURVES_OPTIONS.check(locals())
    result = _check_result(result)
    curves = result.censoring_curves
    if curves is None and getattr(result, "censoring_model", None) is not None:
        raise InvalidParameterError(
            'result: has no Kaplan-Meier censoring curves (censoring="cox"): its IPCW weights '
            "come from a Cox model of the censoring hazard, one curve G(t | x) per person; read "
            "the model as result.censoring_model.to_frame() (coefficients) and .baseline_frame() "
            "(baseline cumulative hazard per group).",
            parameter="result",
        )
    if curves is None:
        raise InvalidParameterError(
            "result: has no censoring curves (method='naive'); use an IPCW result.",
            parameter="result",
        )
    unit = "" if time_unit is None else f" {time_unit}"
    ax = new_axes(ax, (6.0, 4.0))
    frame = curves.to_frame()
    labels = ["pooled"] if curves.kind == "pooled" else list(curves.groups)
    entries = []
    many = len(labels) > PLAIN_FIGURE_GROUPS  # one colour, one legend entry for all the lines
    style = {"color": "C0", "linewidth": 0.6, "alpha": 0.5, **kwargs} if many else kwargs
    for code, label in enumerate(labels):
        target = curves.groups[code]
        rows = frame[
            [value == target for value in frame["group"]]
        ]  # elementwise: labels may be tuples
        times = np.concatenate([[0.0], rows["time"].to_numpy()])
        probs = np.concatenate([[1.0], rows["censoring_survival"].to_numpy()])
        text = f"K_{short_label(label)}(t)"
        (line,) = ax.step(times, probs, where="post", label=literal(text), **style)
        if not many:
            entries.append((line, text))
        elif code == 0:
            entries.append((line, f"K_g(t), one line per group ({len(labels)}, not labelled)"))
    text = "K = 0.1 (positivity warning)"
    entries.append((ax.axhline(0.1, color="grey", linestyle=":", linewidth=1, label=text), text))
    tau = result.tau if tau is None else tau
    if tau is not None:
        text = f"tau = {tau:g}{unit}"
        entries.append(
            (ax.axvline(tau, color="black", linestyle="--", linewidth=1, label=literal(text)), text)
        )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("time" if time_unit is None else f"time ({literal(time_unit)})")
    ax.set_ylabel(
        "P(still uncensored), K(t)" if curves.kind == "pooled" else "P(still uncensored), K_g(t)"
    )
    ax.set_title(
        "Probability of remaining uncensored"
        + (" (pooled)" if curves.kind == "pooled" else ", per group")
    )
    literal_legend(ax, entries, fontsize=8)
    return ax


# How a statistic family of the comparison table is named for a reader, and what it is.
_FOREST_WORDS = {"delta_between": "Δbetween", "delta_within": "Δwithin"}
_FOREST_DEFINITIONS = {
    "delta_between": "Δbetween (a, b) = xCI(a, b) − xCI(b, a)",
    "delta_within": "Δwithin (a, b) = xCI(a, a) − xCI(b, b)",
}


def _table_groups(table: pd.DataFrame) -> list[str]:
    """Group labels read from the diagonal columns ``xci[g,g]`` (unambiguous even when g
    has a comma)."""
    groups = []
    for column in table.columns:
        if isinstance(column, str) and column.startswith("xci[") and column.endswith("]"):
            inner = column[4:-1]
            half = len(inner) // 2
            if len(inner) % 2 == 1 and inner[half] == "," and inner[:half] == inner[half + 1 :]:
                groups.append(inner[:half])
    return groups


def _split_pair(inner: str, groups: list[str]) -> tuple[str, str] | None:
    """``"a,b"`` -> ``(a, b)``, using the known group labels when a label holds a comma."""
    matches = [(a, b) for a in groups for b in groups if f"{a},{b}" == inner]
    if len(matches) == 1:
        return matches[0]
    if inner.count(",") == 1:
        a, b = inner.split(",")
        return a, b
    return None


def _forest_rows(
    table: pd.DataFrame, statistics: tuple[str, ...], groups: list[str]
) -> list[tuple[str, str, Any]]:
    """``(statistic, column, (a, b) or None)`` for every ``statistic[a,b]`` column, in
    table order."""
    rows = []
    for statistic in statistics:
        columns = [
            c
            for c in table.columns
            if isinstance(c, str) and c.startswith(f"{statistic}[") and c.endswith("]")
        ]
        if not columns:
            raise InvalidParameterError(
                f"statistics: no column {statistic}[a,b] in the comparison table.",
                parameter="statistics",
            )
        for column in columns:
            rows.append((statistic, column, _split_pair(column[len(statistic) + 1 : -1], groups)))
    return rows


def _forest_label(statistic: str, column: str, pair: Any) -> str:
    """``delta_between[F,M]`` -> ``Δbetween (F, M)``."""
    name = _FOREST_WORDS.get(statistic, statistic)
    if pair is None:
        return f"{name} ({short_label(column[len(statistic) + 1 : -1], 2 * MAX_LABEL + 1)})"
    return f"{name} ({short_label(pair[0])}, {short_label(pair[1])})"


def _forest_flags(
    comparison: Any,
    flags: Any,
    models: list[str],
    groups: list[str],
    min_events: int,
    min_pairs: int,
) -> dict[str, dict[tuple[str, str], bool]]:
    """Per model, ``{(a, b): flagged}`` keyed by the group labels as the table writes
    them (``str``)."""
    if flags is False or (flags is None and not isinstance(comparison, ModelComparison)):
        return {}
    if flags is None or flags is True:
        if not isinstance(comparison, ModelComparison):
            raise InvalidParameterError(
                "flags=True needs a ModelComparison (its results give the flags), not a table.",
                parameter="flags",
            )
        from ..findings.ranking import small_sample_flags

        flags = {
            str(model): small_sample_flags(result, min_events=min_events, min_pairs=min_pairs)
            for model, result in comparison.results.items()
        }
    elif isinstance(flags, pd.DataFrame):
        flags = {model: flags for model in models}
    if not isinstance(flags, Mapping):
        raise InvalidParameterError(
            "flags must be a DataFrame, a dict of model -> DataFrame, a bool or None, got "
            f"{type(flags).__name__}.",
            parameter="flags",
        )
    unknown = sorted(str(m) for m in flags if str(m) not in models)
    if unknown:
        raise InvalidParameterError(
            f"flags: models {unknown} are not in the comparison {models}.", parameter="flags"
        )
    cells: dict[str, dict[tuple[str, str], bool]] = {}
    for model, table in flags.items():
        known = groups
        if not known and isinstance(table, pd.DataFrame) and {"a", "b"} <= set(table.columns):
            known = sorted({str(g) for g in (*table["a"], *table["b"])})
        positions = _flag_positions(table, known, f"flags[{str(model)!r}]")
        cells[str(model)] = {(str(a), str(b)): f for (a, b), f in positions.items()}
    return cells


def _row_flagged(cells: dict[tuple[str, str], bool], statistic: str, pair: Any) -> bool:
    """A Δwithin (a, b) row rests on the cells (a, a) and (b, b); any other on (a, b) and (b, a)."""
    if pair is None or not cells:
        return False
    a, b = pair
    needed = [(a, a), (b, b)] if statistic == "delta_within" else [(a, b), (b, a)]
    return any(cells.get(cell, False) for cell in needed)


#: The options of :func:`plot_forest` (``flags`` is checked in the body).
_FOREST_OPTIONS = OptionTable(
    "plot_forest", ax=AXES, min_events=integer(low=0), min_pairs=integer(low=0)
)


def plot_forest(
    comparison: ModelComparison | pd.DataFrame,
    *,
    statistics: tuple[str, ...] = ("delta_between", "delta_within"),
    flags: pd.DataFrame | Mapping[str, pd.DataFrame] | bool | None = None,
    ax: Any = None,
    min_events: int = 10,
    min_pairs: int = 100,
    title: str | None = None,
    **kwargs: Any,
):
    """Forest plot of Δbetween / Δwithin (with intervals when present) across models.

    How to read it: each row is one difference between two groups, in percentage points, with
    one point (and interval) per model; a point right of the zero line means the first group of
    the row is ranked correctly more often, and an interval that crosses zero is compatible with
    no difference.

    For Δbetween (a, b) = xCI(a, b) − xCI(b, a), a positive value means that when a member of a
    had the event first, the model ranked them above the member who outlived them more often
    than it did for b; for Δwithin (a, b) = xCI(a, a) − xCI(b, b), that pairs inside a are
    ranked correctly more often than pairs inside b. Rows are labelled in words (``Δbetween (F,
    M)``) and models are told apart by colour, so the figure stays readable with many pairs of
    groups. Rows that use a cell resting on few data get a dagger after their label and open
    markers for the models concerned (:func:`survfair.small_sample_flags`).

    Parameters
    ----------
    comparison : ModelComparison or DataFrame
        The result of :func:`survfair.compare` or its ``.table``.
    statistics : tuple of str, default=("delta_between", "delta_within")
        Column families to show: each ``name[a,b]`` column becomes one row (its interval from
        ``name[a,b]_ci_low`` / ``_ci_high`` when present).
    flags : DataFrame, dict of model -> DataFrame, bool or None, default=None
        Small-sample flags (columns a, b, flagged, as returned by
        :func:`survfair.small_sample_flags`): one table for every model, or one per model. A
        Δbetween (a, b) row is flagged when cell (a, b) or (b, a) is, a Δwithin (a, b) row when
        (a, a) or (b, b) is. None (or True): computed from each result of a ModelComparison with
        ``min_events`` and ``min_pairs``, no marks for a DataFrame; False: no marks.
    ax : matplotlib Axes, optional
    min_events, min_pairs : int, default=10 and 100
        Thresholds of the flags computed when ``flags`` is None.
    title : str, optional
        Default: "Differences between groups, per model".
    **kwargs
        Passed to every ``ax.errorbar`` call.

    Returns
    -------
    matplotlib.axes.Axes
        One errorbar container per model (labelled with the model; x in percentage points, one
        point per row), one y tick per statistic and pair of groups (first row on top), the zero
        line, a title, and the legend (models, and the flag mark when used) to the right of the
        axes.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``comparison`` is neither a ModelComparison nor a DataFrame, or ``flags`` is of
        another type.
    InvalidParameterError (a ValueError)
        If a requested statistic is not in the table, or ``flags`` lacks the columns a, b,
        flagged or names a group or model the comparison does not have.

    See Also
    --------
    survfair.compare : the comparison drawn here.
    survfair.small_sample_flags : the flags.
    plot_xci_heatmap : the cells behind the differences, for one model.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> import survfair
    >>> from survfair.plotting import plot_forest
    >>> cohort = pd.DataFrame({"time": [1, 2, 3, 4, 5, 6, 7, 8], "event": [1, 1, 1, 1, 1, 1, 1, 0],
    ...                        "sex": list("MFMFMFMF"), "a": [8, 3, 6, 5, 4, 7, 2, 1],
    ...                        "b": [8, 7, 6, 5, 4, 3, 2, 1]})
    >>> audit = survfair.compare("time", "event", "sex", {"a": "a", "b": "b"}, data=cohort,
    ...                          method="naive")
    >>> ax = plot_forest(audit)
    >>> [t.get_text() for t in ax.get_yticklabels()]  # every cell has < 100 pairs: flagged
    ['Δbetween (F, M) †', 'Δwithin (F, M) †']
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['a', 'b', '† open: uses a cell with little data']
    """
    _FOREST_OPTIONS.check(locals())
    from matplotlib.lines import Line2D

    if isinstance(comparison, ModelComparison):
        table = comparison.table
        groups = [str(g) for g in comparison.groups]
    elif isinstance(comparison, pd.DataFrame):
        table = comparison
        groups = _table_groups(table)
    else:
        raise InvalidParameterError(
            f"comparison must be a ModelComparison or DataFrame, got {type(comparison).__name__}.",
            parameter="comparison",
        )
    rows = _forest_rows(table, tuple(statistics), groups)
    models = [str(m) for m in table.index]
    cells = _forest_flags(comparison, flags, models, groups, min_events, min_pairs)
    marked = [[_row_flagged(cells.get(m, {}), s, pair) for s, _, pair in rows] for m in models]
    flagged_rows = [any(column) for column in zip(*marked)]
    labels = [
        _forest_label(*row) + (f" {_DAGGER}" if f else "") for row, f in zip(rows, flagged_rows)
    ]
    xlabel = [
        "difference in concordance, percentage points",
        "> 0: the first group of the pair is ranked correctly more often",
        *[
            _FOREST_DEFINITIONS[s]
            for s in dict.fromkeys(r[0] for r in rows)
            if s in _FOREST_DEFINITIONS
        ],
    ]
    # A new figure: the row labels (10 pt), about 4 in for the points, the legend (8 pt), and
    # 0.3 in per row (more when many models share a row), at most 40 in tall (a report scrolls).
    label_width = max(_text_width(label, 10.0) for label in labels)
    shown = [short_label(model) for model in models]  # model names as drawn
    legend_width = (
        max(_text_width(text, 8.0) for text in [*shown, "† open: uses a cell with little data"])
        + 0.5
    )
    width = max(
        label_width + 4.0 + legend_width + 0.4,
        max(_text_width(line, 10.0) for line in xlabel) + 1.0,
    )
    height = 1.4 + 0.2 * len(xlabel) + len(rows) * max(0.3, 0.1 * len(models))
    ax = new_axes(ax, (min(max(width, 6.0), _MAX_FIGURE), min(max(height, 3.0), 40.0)))
    offsets = np.linspace(-0.25, 0.25, len(models)) if len(models) > 1 else np.zeros(1)
    y = np.arange(len(rows), dtype=float)
    entries = []
    for k, model in enumerate(models):
        record = table.iloc[k]
        x = np.array([100 * float(record[column]) for _, column, _ in rows])
        low = np.array(
            [100 * float(record.get(f"{column}_ci_low", math.nan)) for _, column, _ in rows]
        )
        high = np.array(
            [100 * float(record.get(f"{column}_ci_high", math.nan)) for _, column, _ in rows]
        )
        with np.errstate(invalid="ignore"):
            err = np.vstack([x - low, high - x])
        err = np.where(np.isfinite(err), err, 0.0)
        colour = f"C{k % 10}"
        bars = ax.errorbar(
            x,
            y + offsets[k],
            xerr=err,
            fmt="o",
            capsize=3,
            color=colour,
            label=literal(shown[k]),
            **kwargs,
        )
        entries.append((bars, shown[k]))
        hollow = np.flatnonzero(marked[k])
        if hollow.size:
            ax.plot(
                x[hollow],
                y[hollow] + offsets[k],
                "o",
                markerfacecolor="white",
                markeredgecolor=colour,
                linestyle="none",
                zorder=3,
                label=f"_flagged {literal(shown[k])}",
            )
    if any(flagged_rows):
        mark = Line2D(
            [], [], marker="o", linestyle="none", markerfacecolor="white", markeredgecolor="0.3"
        )
        entries.append((mark, f"{_DAGGER} open: uses a cell with little data"))
    ax.axvline(0.0, color="black", linewidth=1, zorder=0)
    for i in range(1, len(rows)):  # a thin rule between statistic families
        if rows[i][0] != rows[i - 1][0]:
            ax.axhline(i - 0.5, color="0.8", linewidth=0.8, zorder=0)
    ax.set_yticks(y, [literal(label) for label in labels])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top
    ax.set_xlabel("\n".join(xlabel))
    ax.set_title(literal(title) if title is not None else "Differences between groups, per model")
    # beside the axes: with many models or a long flag note, a legend inside covers the points
    literal_legend(
        ax, entries, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0
    )
    return ax


def _curve(value: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    from ..._binary.xroc import XROCCurve

    if isinstance(value, XROCCurve):
        return value.fpr, value.tpr
    if isinstance(value, pd.DataFrame):
        if not {"fpr", "tpr"} <= set(value.columns):
            raise InvalidParameterError(
                f"curves[{name!r}]: a DataFrame needs columns 'fpr' and 'tpr'.", parameter="curves"
            )
        fpr, tpr = value["fpr"].to_numpy(float), value["tpr"].to_numpy(float)
    elif isinstance(value, (tuple, list)) and len(value) in (2, 3):
        fpr, tpr = np.asarray(value[0], float), np.asarray(value[1], float)
    else:
        raise InvalidParameterError(
            f"curves[{name!r}] must be an XROCCurve, a DataFrame (fpr, tpr) or a tuple "
            "(fpr, tpr[, thresholds]).",
            parameter="curves",
        )
    if fpr.shape != tpr.shape or fpr.ndim != 1:
        raise InvalidParameterError(
            f"curves[{name!r}]: fpr and tpr must be 1-D of the same length.", parameter="curves"
        )
    return fpr, tpr


def _xroc_label(curve: Any) -> str:
    """The paper's name of an :class:`~survfair.XROCCurve`: xROC(a, b), xROC_1(a) or xROC_0(b)."""
    a, b = short_label(curve.a), short_label(curve.b)
    if curve.kind == "balanced1":
        return f"xROC_1({a})"
    if curve.kind == "balanced0":
        return f"xROC_0({b})"
    return f"xROC({a}, {b})"


def _xroc_entries(curves: Any) -> list[tuple[Any, Any]]:
    """``(label, curve)`` pairs from every accepted form of :func:`plot_xroc`'s ``curves``."""
    from ..._binary.xroc import XROCCurve

    if isinstance(curves, XROCCurve):
        return [(_xroc_label(curves), curves)]
    if isinstance(curves, pd.DataFrame):
        return [("", curves)]
    if (
        isinstance(curves, (list, tuple))
        and curves
        and all(isinstance(c, XROCCurve) for c in curves)
    ):
        return [(_xroc_label(c), c) for c in curves]
    if isinstance(curves, Mapping) and curves:
        return list(curves.items())
    raise InvalidParameterError(
        "curves must be an XROCCurve, a list of XROCCurve, a DataFrame, or a non-empty dict of "
        "label -> XROCCurve, DataFrame or (fpr, tpr).",
        parameter="curves",
    )


#: The options of :func:`plot_xroc`.
_XROC_OPTIONS = OptionTable("plot_xroc", ax=AXES)


def plot_xroc(curves: Any, *, ax: Any = None, **kwargs: Any):
    """Cross-group ROC curves (xROC, Kallus & Zhou 2019, Def. 1) and balanced xROC (Def. 3).

    How to read it: the higher a curve runs above the dotted diagonal, the more often positives
    of a outrank negatives of b; two curves of a pair (a, b) and (b, a) that part ways show a
    cross-group asymmetry, and the area under each is its xAUC.

    The xROC curve of (a, b) plots the rate at which negatives of group b exceed a threshold
    (x) against the rate at which positives of group a do (y); its area is xAUC(a, b).
    Consecutive points are joined by straight segments, so a run of tied scores is drawn as the
    diagonal it contributes to the area (1/2 per tied pair), as in the trapezoidal
    :attr:`survfair.XROCCurve.area`.

    Parameters
    ----------
    curves : XROCCurve, list of XROCCurve, dict of label -> curve, or a DataFrame
        Curves from :func:`survfair.xroc` / :func:`survfair.balanced_xroc`, alone or in a list
        (labelled xROC(a, b), xROC_1(a), xROC_0(b)), or a dict whose values are each an
        ``XROCCurve``, a DataFrame with columns ``fpr``, ``tpr`` (``threshold`` optional; e.g.
        ``XROCCurve.to_frame()``) or a tuple ``(fpr, tpr[, thresholds])`` as returned by
        ``sklearn.metrics.roc_curve``. A single DataFrame is one unlabelled curve.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to every ``ax.plot`` call of a curve.

    Returns
    -------
    matplotlib.axes.Axes
        One Line2D per curve plus the dotted chance diagonal.

    Raises
    ------
    InvalidParameterError
        For curves in another form.

    See Also
    --------
    survfair.xroc, survfair.balanced_xroc : compute the curves.
    plot_conditional_xauc : the individual placements behind one curve's area.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import survfair
    >>> from survfair.plotting import plot_xroc
    >>> y = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> res = survfair.xauc(y, ["a"] * 4 + ["b"] * 4, [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> ax = plot_xroc([survfair.xroc(res, "a", "b"), survfair.xroc(res, "b", "a")])
    >>> [line.get_label() for line in ax.lines[:2]]
    ['xROC(a, b)', 'xROC(b, a)']
    """
    _XROC_OPTIONS.check(locals())
    entries = _xroc_entries(curves)
    ax = new_axes(ax, (4.5, 4.5))
    legend = []
    for label, value in entries:
        fpr, tpr = _curve(value, str(label))
        (line,) = ax.plot(fpr, tpr, label=literal(label) or None, **kwargs)
        if str(label):
            legend.append((line, str(label)))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("negatives of b above threshold (FPR)")
    ax.set_ylabel("positives of a above threshold (TPR)")
    literal_legend(ax, legend, fontsize=8, loc="lower right")
    return ax


_ROLE_WORDS = {
    "negative": (
        "conditional xAUC of a negative of {b}: share of positives of {a} scored above it",
        "negatives of {b}",
    ),
    "positive": (
        "conditional xAUC of a positive of {a}: share of negatives of {b} scored below it",
        "positives of {a}",
    ),
}


def _role_words(values: Mapping[str, Any], role: str | None) -> tuple[str, str, str]:
    """The role, and the x and y labels in its words, with the group names when every Series
    names the same pair.

    :func:`survfair.conditional_xauc` puts ``role``, ``a`` and ``b`` in the Series' ``attrs``;
    a ``role`` given here that contradicts them is refused rather than mislabelled.
    """
    attrs = [getattr(v, "attrs", {}) for v in values.values()]
    roles = {a["role"] for a in attrs if "role" in a}
    if role is None:
        if len(roles) > 1:
            raise InvalidParameterError(
                f"values: the Series mix the roles {sorted(roles)}; plot each role separately.",
                parameter="values",
            )
        role = roles.pop() if roles else "negative"
    role = check_option(role, "role", tuple(_ROLE_WORDS))
    if roles - {role}:
        raise InvalidParameterError(
            f"role={role!r}, but the values were computed with role={sorted(roles - {role})[0]!r}.",
            parameter="role",
        )
    pairs = {(a.get("a"), a.get("b")) for a in attrs}
    a, b = "a", "b"
    if len(pairs) == 1 and None not in next(iter(pairs)):
        a, b = (literal(short_label(g)) for g in next(iter(pairs)))
    xlabel, ylabel = _ROLE_WORDS[role]
    return role, xlabel.format(a=a, b=b), ylabel.format(a=a, b=b)


#: The options of :func:`plot_conditional_xauc` (``role`` is checked against the values' roles
#: in the body).
_CONDITIONAL_XAUC_OPTIONS = OptionTable("plot_conditional_xauc", ax=AXES, bins=integer(low=1))


def plot_conditional_xauc(
    values: Mapping[str, Any] | pd.Series,
    *,
    role: str | None = None,
    ax: Any = None,
    bins: int = 20,
    **kwargs: Any,
):
    """Histograms of conditional xAUC values (Kallus & Zhou 2019, Section 6).

    How to read it: with ``role="negative"`` (the default of :func:`survfair.conditional_xauc`)
    each value belongs to one negative of group b and is the share of positives of group a
    scored above it; with ``role="positive"`` each value belongs to one positive of group a and
    is the share of negatives of group b scored below it. In both cases the mean (dashed line)
    is xAUC(a, b); a heavy left tail shows individuals the score serves badly.

    Parameters
    ----------
    values : pandas Series or dict of label -> array-like
        Conditional xAUC values in [0, 1], e.g. the output of :func:`survfair.conditional_xauc`
        (its NaN entries, the individuals outside the role, are left out); a dict draws one
        translucent histogram per label.
    role : {"negative", "positive"}, optional
        Whose values these are. Default: read from the Series' ``attrs`` set by
        :func:`survfair.conditional_xauc`, else "negative" (that function's default). The
        axis labels name the groups when every Series carries the same ``a`` and ``b``.
    ax : matplotlib Axes, optional
    bins : int, default=20
        Bins over [0, 1].
    **kwargs
        Passed to every ``ax.hist`` call.

    Returns
    -------
    matplotlib.axes.Axes
        One histogram (bar container) and one mean line per label; axis labels in the words of
        the role.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``values`` is neither a Series nor a dict.
    InvalidParameterError (a ValueError)
        If a value is outside [0, 1], a label has no value, ``role`` is unknown or contradicts
        the role the Series were computed with, or the Series mix roles.

    See Also
    --------
    survfair.conditional_xauc : computes the values.
    plot_xroc : the xROC curve of the same pair.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import survfair
    >>> from survfair.plotting import plot_conditional_xauc
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["F"] * 4 + ["M"] * 4,
    ...                     [0.9, 0.8, 0.1, 0.5, 0.7, 0.6, 0.4, 0.2])
    >>> ax = plot_conditional_xauc(survfair.conditional_xauc(res, "F", "M"))  # role="negative"
    >>> ax.get_ylabel()
    'negatives of M'
    >>> ax.get_xlabel()
    'conditional xAUC of a negative of M: share of positives of F scored above it'
    >>> plot_conditional_xauc(
    ...     survfair.conditional_xauc(res, "F", "M", role="positive")
    ... ).get_ylabel()
    'positives of F'
    """
    _CONDITIONAL_XAUC_OPTIONS.check(locals())
    if isinstance(values, pd.Series):
        values = {str(values.name) if values.name is not None else "": values}
    if not isinstance(values, Mapping) or not values:
        raise InvalidParameterError(
            "values must be a pandas Series or a non-empty dict of label -> array-like.",
            parameter="values",
        )
    role, xlabel, ylabel = _role_words(values, role)
    ax = new_axes(ax, (6.0, 4.0))
    edges = np.linspace(0, 1, bins + 1)
    entries = []
    for k, (label, series) in enumerate(values.items()):
        array = np.asarray(series, dtype=float)
        array = array[~np.isnan(array)]  # individuals outside the role
        if array.size == 0:
            raise InvalidParameterError(
                f"values[{label!r}]: no conditional xAUC value (every entry is NaN).",
                parameter="values",
            )
        if (array < 0).any() or (array > 1).any():
            raise InvalidParameterError(
                f"values[{label!r}]: conditional xAUC values must be in [0, 1].", parameter="values"
            )
        colour = f"C{k % 10}"
        text = f"{short_label(label)} (mean {array.mean():.3f})"
        *_, patches = ax.hist(
            array, bins=edges, alpha=0.5, color=colour, label=literal(text), **kwargs
        )
        entries.append((patches, text))
        ax.axvline(array.mean(), color=colour, linestyle="--", linewidth=1.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(f"Conditional xAUC per {role} (dashed: mean = xAUC)")
    if any(str(k) for k in values):
        literal_legend(ax, entries, fontsize=8)
    return ax
