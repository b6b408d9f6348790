"""Plots of xCI / xAUC audits (matplotlib, imported lazily).

Every function takes its data first, then keyword-only options with ``ax=None`` (a new figure
is made when None), returns the matplotlib Axes, and never calls ``show()``. Extra keyword
arguments go to the main matplotlib call of the function.

A higher ``risk`` always means an earlier expected event.

Group labels, model names and titles are data, not markup: every text drawn from them goes
through :func:`_literal`, so a ``$`` is a dollar sign and never starts matplotlib mathtext, and
legends are built by :func:`_legend`, which keeps labels that start with ``_``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ._model_comparison import ModelComparison
from ._results import XCIResult
from ._validation import check_survival_inputs
from ._xauc import XAUCResult

__all__ = [
    "plot_xci_heatmap",
    "plot_risk_densities",
    "plot_censoring_curves",
    "plot_forest",
    "plot_xroc",
    "plot_conditional_xauc",
]


def _axes(ax: Any, figsize: tuple[float, float] = (5.0, 4.0)):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _literal(text: Any) -> str:
    r"""``text`` as a string that matplotlib draws literally: every ``$`` escaped as ``\$``.

    Unescaped, a group named "$0-$50k" is set as italic mathtext and "a$_$b" makes drawing fail
    with a mathtext parse error. An escaped dollar is drawn as a plain ``$`` in any Text
    (tick label, title, legend entry, annotation), also in a legend the caller rebuilds later from
    the artists' labels and in tick labels matplotlib re-creates -- which ``parse_math=False`` on
    our own Text objects would not cover. ``get_text()`` / ``get_label()`` therefore return the
    escaped form; what is drawn is the label itself. (Under ``text.usetex`` TeX reads ``\$`` as a
    dollar too, but other TeX specials such as ``_`` or ``%`` are not escaped.)
    """
    return str(text).replace("$", r"\$")


def _legend(ax: Any, entries: list[tuple[Any, str]], **kwargs: Any):
    """Legend of ``(artist, label)`` pairs, each label drawn literally (see :func:`_literal`).

    The pairs are passed explicitly, so a label that starts with ``_`` (which ``ax.legend()``
    takes for a hidden artist) still gets its entry; the texts are set after the legend is built
    because matplotlib < 3.10 drops such labels even when they are passed explicitly.
    """
    if not entries:
        return None
    legend = ax.legend([artist for artist, _ in entries], ["label"] * len(entries), **kwargs)
    for text, (_, label) in zip(legend.get_texts(), entries):
        text.set_text(_literal(label))
    return legend


def _check_result(result: Any, name: str = "result") -> XCIResult:
    if not isinstance(result, XCIResult):
        raise TypeError(f"{name} must be an XCIResult (from survfair.xci), got {type(result).__name__}.")
    return result


def _heatmap_layout(labels: list[str], cell_chars: int) -> tuple[tuple[float, float], bool]:
    """Figure size (inches) in which a G x G heatmap's cell texts and group labels fit, and whether
    to slant the column labels.

    Widths are estimated at 0.069 in per character of the 9 pt cell text and 0.076 in per
    character of a 10 pt tick label (DejaVu Sans averages about 0.55 em per character); at least
    the former fixed 4.8 x 4.0, at most 16 x 16.
    """
    longest = max((len(label) for label in labels), default=1)
    cell = max(0.7, 0.069 * cell_chars + 0.15)
    label = 0.076 * longest
    slant = label > 0.9 * cell
    width = len(labels) * cell + label + 1.75  # row labels, y label, colour bar, margins
    height = len(labels) * cell + (0.5 * label + 0.1 if slant else 0.2) + 0.9  # column labels, title, x label
    return (min(max(width, 4.8), 16.0), min(max(height, 4.0), 16.0)), slant


# What the axes of a cell-matrix heatmap mean: (metric, row a, column b, default title).
def _heatmap_words(result: Any) -> tuple[str, str, str, str]:
    if isinstance(result, XAUCResult):
        return "xAUC", "a: group of the positive", "b: group of the negative", "xAUC (DeLong)"
    if isinstance(result, XCIResult):
        return "xCI", "a: group of the earlier event", "b: group of the later member", f"xCI ({result.method})"
    raise TypeError(
        "result must be an XCIResult (from survfair.xci) or an XAUCResult (from survfair.xauc), "
        f"got {type(result).__name__}."
    )


def plot_xci_heatmap(
    result: XCIResult | XAUCResult,
    *,
    ax: Any = None,
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    digits: int = 3,
    title: str | None = None,
    **kwargs: Any,
):
    """Heatmap of the xCI (or xAUC) matrix with each cell's value (and interval, when available).

    Rows a are the group of the member with the EARLIER event, columns b the group of the member
    who outlived it (eq. 2 of Wang et al. 2026). For an :class:`~survfair.XAUCResult` rows a are
    the group of the POSITIVE and columns b the group of the NEGATIVE (xAUC(a, b) =
    P[R_1^a > R_0^b], Kallus & Zhou 2019, Definition 2); the axis labels say which. By default
    the colours span the range of the cells, so that differences between cells (the fairness
    question) are visible even when all cells are close; read the printed values, not the
    colours, for sizes. Group labels and the title are drawn literally (a ``$`` is a dollar sign).

    Parameters
    ----------
    result : XCIResult or XAUCResult
    ax : matplotlib Axes, optional
    cmap : str, default="RdBu"
    vmin, vmax : float, optional
        Colour limits; default the smallest and largest defined cell.
    digits : int, default=3
        Decimals shown in the cells.
    title : str, optional
        Default: "xCI (method)", or "xAUC (DeLong)" for an XAUCResult.
    **kwargs
        Passed to ``ax.imshow``.

    Returns
    -------
    matplotlib.axes.Axes
        With one ``AxesImage`` and one text per cell; a colour bar is added to the figure. A new
        figure (``ax=None``) is sized so that the cell texts and group labels fit; long column
        labels are slanted.

    Raises
    ------
    TypeError
        If ``result`` is neither an XCIResult nor an XAUCResult.
    """
    metric, row_words, column_words, default_title = _heatmap_words(result)
    values = result.values
    low, high = result.confidence_interval()
    with_intervals = bool(np.isfinite(low.to_numpy()).any())
    cell_chars = 2 * (digits + 2) + 4 if with_intervals else digits + 2  # "[0.123, 0.456]" or "0.123"
    size, slant = _heatmap_layout([str(g) for g in result.groups], cell_chars)
    ax = _axes(ax, size)
    masked = np.ma.masked_invalid(values)
    if vmin is None:
        vmin = float(masked.min()) if masked.count() else 0.0
    if vmax is None:
        vmax = float(masked.max()) if masked.count() else 1.0
    if vmax <= vmin:
        vmin, vmax = vmin - 0.01, vmax + 0.01
    image = ax.imshow(masked, cmap=cmap, vmin=vmin, vmax=vmax, **kwargs)
    labels = [_literal(g) for g in result.groups]
    ax.set_xticks(range(len(labels)), labels)
    if slant:  # long labels would overlap under their columns
        for text in ax.get_xticklabels():
            text.set(rotation=30, horizontalalignment="right", rotation_mode="anchor")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(column_words)
    ax.set_ylabel(row_words)
    for i in range(len(labels)):
        for j in range(len(labels)):
            value = values[i, j]
            text = "NaN" if math.isnan(value) else f"{value:.{digits}f}"
            lo, hi = low.iloc[i, j], high.iloc[i, j]
            if np.isfinite(lo) and np.isfinite(hi):
                text += f"\n[{lo:.{digits}f}, {hi:.{digits}f}]"
            colour = "black"
            if not math.isnan(value):
                r, g, b, _ = image.cmap(image.norm(value))
                colour = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(j, i, text, ha="center", va="center", fontsize=9, color=colour)
    ax.figure.colorbar(image, ax=ax, label=metric, shrink=0.8)
    ax.set_title(_literal(title) if title is not None else default_title)
    return ax


def plot_risk_densities(
    risk: Any,
    event: Any,
    group: Any,
    *,
    data: pd.DataFrame | None = None,
    ax: Any = None,
    grid_size: int = 200,
    title: str | None = None,
    **kwargs: Any,
):
    """Kernel densities of the risk score by group x event status (Wang et al. 2026, Figs. 2-3).

    One curve per (group, event status): colour = group, solid = event observed, dashed =
    censored. Under separation a fair score has the same distribution in every group given the
    outcome, so diverging curves of the same line style signal cross-group disparity.

    Parameters
    ----------
    risk : array-like of shape (n_samples,) or column name
        Risk scores, higher = earlier event.
    event : array-like of shape (n_samples,) or column name
        1/True = event observed.
    group : array-like of shape (n_samples,) or column name
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
    ValueError, TypeError
        From input validation (lengths, NaN, ...), naming the argument.
    """
    from scipy.stats import gaussian_kde

    zeros = np.zeros(len(data) if data is not None else np.asarray(risk).shape[0])
    time = zeros if data is None else pd.Series(zeros, index=data.index)
    sample, _ = check_survival_inputs(time, event, group, risk, data=data)
    ax = _axes(ax, (6.0, 4.0))
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
            text = f"{label}, {word} (n={values.size})"
            (line,) = ax.plot(grid, density, linestyle=style, color=colours[code], label=_literal(text), **kwargs)
            entries.append((line, text))
    ax.set_xlabel("risk score (higher = earlier event)")
    ax.set_ylabel("density")
    _legend(ax, entries, fontsize=8)
    if title is not None:
        ax.set_title(_literal(title))
    return ax


def plot_censoring_curves(result: XCIResult, *, ax: Any = None, tau: float | None = None, **kwargs: Any):
    """Per-group censoring survival K_g(t) = P(U > t | G = g) with tau marked (eq. 6).

    Parameters
    ----------
    result : XCIResult
        An IPCW result (it carries ``censoring_curves``).
    ax : matplotlib Axes, optional
    tau : float, optional
        Vertical line position; default ``result.tau`` (no line when None).
    **kwargs
        Passed to every ``ax.step`` call.

    Returns
    -------
    matplotlib.axes.Axes
        One step line per group (one for pooled censoring), a dotted line at K = 0.1 (the
        positivity warning level) and a vertical line at tau when known.

    Raises
    ------
    TypeError
        If ``result`` is not an XCIResult.
    ValueError
        If the result has no censoring curves (naive estimator).
    """
    result = _check_result(result)
    curves = result.censoring_curves
    if curves is None:
        raise ValueError("result: has no censoring curves (method='naive'); use an IPCW result.")
    ax = _axes(ax, (6.0, 4.0))
    frame = curves.to_frame()
    labels = ["pooled"] if curves.kind == "pooled" else list(curves.groups)
    entries = []
    for code, label in enumerate(labels):
        rows = frame[frame["group"] == curves.groups[code]]
        times = np.concatenate([[0.0], rows["time"].to_numpy()])
        probs = np.concatenate([[1.0], rows["censoring_survival"].to_numpy()])
        text = f"K_{label}(t)"
        (line,) = ax.step(times, probs, where="post", label=_literal(text), **kwargs)
        entries.append((line, text))
    entries.append((ax.axhline(0.1, color="grey", linestyle=":", linewidth=1, label="K = 0.1"), "K = 0.1"))
    tau = result.tau if tau is None else tau
    if tau is not None:
        text = f"tau = {tau:g}"
        entries.append((ax.axvline(tau, color="black", linestyle="--", linewidth=1, label=text), text))
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("time")
    ax.set_ylabel("censoring survival K_g(t)")
    ax.set_title(f"Censoring survival ({curves.kind})")
    _legend(ax, entries, fontsize=8)
    return ax


def _forest_rows(table: pd.DataFrame, statistics: tuple[str, ...]) -> list[tuple[str, str, float, float, float]]:
    rows = []
    for statistic in statistics:
        columns = [c for c in table.columns if c.startswith(f"{statistic}[") and c.endswith("]")]
        if not columns:
            raise ValueError(f"statistics: no column {statistic}[a,b] in the comparison table.")
        for column in columns:
            for model, row in table.iterrows():
                low = row.get(f"{column}_low", math.nan)
                high = row.get(f"{column}_high", math.nan)
                rows.append((str(model), column, float(row[column]), float(low), float(high)))
    return rows


def plot_forest(
    comparison: ModelComparison | pd.DataFrame,
    *,
    statistics: tuple[str, ...] = ("delta_between", "delta_within"),
    ax: Any = None,
    **kwargs: Any,
):
    """Forest plot of Δbetween / Δwithin (with intervals when present) across models.

    Parameters
    ----------
    comparison : ModelComparison or DataFrame
        The result of :func:`survfair.compare` or its ``.table``.
    statistics : tuple of str, default=("delta_between", "delta_within")
        Column families to show (each ``name[a,b]`` column becomes one block).
    ax : matplotlib Axes, optional
    **kwargs
        Passed to every ``ax.errorbar`` call.

    Returns
    -------
    matplotlib.axes.Axes
        One errorbar container per statistic column, a vertical line at 0, one y tick per model,
        and the legend to the right of the axes.

    Raises
    ------
    TypeError
        If ``comparison`` is neither a ModelComparison nor a DataFrame.
    ValueError
        If a requested statistic is not in the table.
    """
    if isinstance(comparison, ModelComparison):
        table = comparison.table
    elif isinstance(comparison, pd.DataFrame):
        table = comparison
    else:
        raise TypeError(f"comparison must be a ModelComparison or DataFrame, got {type(comparison).__name__}.")
    rows = _forest_rows(table, tuple(statistics))
    columns = list(dict.fromkeys(r[1] for r in rows))
    models = list(dict.fromkeys(r[0] for r in rows))
    # a new figure leaves about 3.5 in for the points beside the model names (10 pt, about 0.076 in
    # per character) and the legend (8 pt, about 0.061 in per character)
    width = 3.5 + 0.076 * max(len(m) for m in models) + 0.061 * max(len(c) for c in columns) + 0.8
    ax = _axes(ax, (min(max(width, 6.0), 16.0), 0.9 + 0.35 * len(rows)))
    offsets = np.linspace(-0.2, 0.2, len(columns)) if len(columns) > 1 else np.zeros(1)
    entries = []
    for k, column in enumerate(columns):
        block = [r for r in rows if r[1] == column]
        y = np.array([models.index(r[0]) for r in block]) + offsets[k]
        x = np.array([r[2] for r in block])
        low = np.array([r[3] for r in block])
        high = np.array([r[4] for r in block])
        err = np.vstack([x - low, high - x])
        err = np.where(np.isfinite(err), err, 0.0)
        bars = ax.errorbar(x, y, xerr=err, fmt="o", capsize=3, color=f"C{k % 10}", label=_literal(column), **kwargs)
        entries.append((bars, column))
    ax.axvline(0.0, color="grey", linewidth=1)
    ax.set_yticks(range(len(models)), [_literal(m) for m in models])
    ax.invert_yaxis()
    ax.set_xlabel("difference in xCI")
    # beside the axes: with one entry per statistic and pair, a legend inside covers the points
    _legend(ax, entries, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return ax


def _curve(value: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    from ._xroc import XROCCurve

    if isinstance(value, XROCCurve):
        return value.fpr, value.tpr
    if isinstance(value, pd.DataFrame):
        if not {"fpr", "tpr"} <= set(value.columns):
            raise ValueError(f"curves[{name!r}]: a DataFrame needs columns 'fpr' and 'tpr'.")
        fpr, tpr = value["fpr"].to_numpy(float), value["tpr"].to_numpy(float)
    elif isinstance(value, (tuple, list)) and len(value) in (2, 3):
        fpr, tpr = np.asarray(value[0], float), np.asarray(value[1], float)
    else:
        raise TypeError(
            f"curves[{name!r}] must be an XROCCurve, a DataFrame (fpr, tpr) or a tuple (fpr, tpr[, thresholds])."
        )
    if fpr.shape != tpr.shape or fpr.ndim != 1:
        raise ValueError(f"curves[{name!r}]: fpr and tpr must be 1-D of the same length.")
    return fpr, tpr


def _xroc_label(curve: Any) -> str:
    """The paper's name of an :class:`~survfair.XROCCurve`: xROC(a, b), xROC_1(a) or xROC_0(b)."""
    if curve.kind == "balanced1":
        return f"xROC_1({curve.a})"
    if curve.kind == "balanced0":
        return f"xROC_0({curve.b})"
    return f"xROC({curve.a}, {curve.b})"


def _xroc_entries(curves: Any) -> list[tuple[Any, Any]]:
    """``(label, curve)`` pairs from every accepted form of :func:`plot_xroc`'s ``curves``."""
    from ._xroc import XROCCurve

    if isinstance(curves, XROCCurve):
        return [(_xroc_label(curves), curves)]
    if isinstance(curves, pd.DataFrame):
        return [("", curves)]
    if isinstance(curves, (list, tuple)) and curves and all(isinstance(c, XROCCurve) for c in curves):
        return [(_xroc_label(c), c) for c in curves]
    if isinstance(curves, Mapping) and curves:
        return list(curves.items())
    raise TypeError(
        "curves must be an XROCCurve, a list of XROCCurve, a DataFrame, or a non-empty dict of "
        "label -> XROCCurve, DataFrame or (fpr, tpr)."
    )


def plot_xroc(curves: Any, *, ax: Any = None, **kwargs: Any):
    """Cross-group ROC curves (xROC, Kallus & Zhou 2019, Def. 1) and balanced xROC (Def. 3).

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
    TypeError, ValueError
        For curves in another form.

    Examples
    --------
    >>> import survfair
    >>> from survfair.plotting import plot_xroc
    >>> y = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> res = survfair.xauc(y, ["a"] * 4 + ["b"] * 4, [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> ax = plot_xroc([survfair.xroc(res, "a", "b"), survfair.xroc(res, "b", "a")])
    >>> [line.get_label() for line in ax.lines[:2]]
    ['xROC(a, b)', 'xROC(b, a)']
    """
    entries = _xroc_entries(curves)
    ax = _axes(ax, (4.5, 4.5))
    legend = []
    for label, value in entries:
        fpr, tpr = _curve(value, str(label))
        (line,) = ax.plot(fpr, tpr, label=_literal(label) or None, **kwargs)
        if str(label):
            legend.append((line, str(label)))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("negatives of b above threshold (FPR)")
    ax.set_ylabel("positives of a above threshold (TPR)")
    _legend(ax, legend, fontsize=8, loc="lower right")
    return ax


def plot_conditional_xauc(
    values: Mapping[str, Any] | pd.Series,
    *,
    ax: Any = None,
    bins: int = 20,
    **kwargs: Any,
):
    """Histograms of conditional xAUC values (Kallus & Zhou 2019, Section 4).

    The conditional xAUC of one positive of group a is the share of negatives of group b
    ranked below it; its mean over the positives of a is xAUC(a, b), drawn as a vertical line.

    Parameters
    ----------
    values : pandas Series or dict of label -> array-like
        Conditional xAUC values in [0, 1]; a dict draws one translucent histogram per label.
    ax : matplotlib Axes, optional
    bins : int, default=20
        Bins over [0, 1].
    **kwargs
        Passed to every ``ax.hist`` call.

    Returns
    -------
    matplotlib.axes.Axes
        One histogram (bar container) and one mean line per label.

    Raises
    ------
    TypeError
        If ``values`` is neither a Series nor a dict.
    ValueError
        If a value is NaN or outside [0, 1].
    """
    if isinstance(values, pd.Series):
        values = {str(values.name) if values.name is not None else "": values}
    if not isinstance(values, Mapping) or not values:
        raise TypeError("values must be a pandas Series or a non-empty dict of label -> array-like.")
    ax = _axes(ax, (6.0, 4.0))
    edges = np.linspace(0, 1, bins + 1)
    entries = []
    for k, (label, series) in enumerate(values.items()):
        array = np.asarray(series, dtype=float)
        if np.isnan(array).any() or (array < 0).any() or (array > 1).any():
            raise ValueError(f"values[{label!r}]: conditional xAUC values must be in [0, 1] and not NaN.")
        colour = f"C{k % 10}"
        text = f"{label} (mean {array.mean():.3f})"
        *_, patches = ax.hist(array, bins=edges, alpha=0.5, color=colour, label=_literal(text), **kwargs)
        entries.append((patches, text))
        ax.axvline(array.mean(), color=colour, linestyle="--", linewidth=1.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel("conditional xAUC of a positive")
    ax.set_ylabel("positives")
    if any(str(k) for k in values):
        _legend(ax, entries, fontsize=8)
    return ax
