"""How results look in Jupyter: the HTML behind the result objects' ``_repr_html_``.

A notebook cell that ends with a result shows the matrix with its intervals (percent, one
decimal; a dagger on cells that rest on little data, no interval where the standard error is 0),
the findings sentences and the settings in one line. The result classes never import this
module: it registers one renderer per class with :mod:`survfair._core.display` when imported,
and the package imports it the first time a result is displayed.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from .._binary.adjustment import EqualOpportunityAdjustment, LogisticAdjustment
from .._binary.xauc import XAUCResult
from .._binary.xauc_t import XAUCtResult
from .._binary.xroc import XROCCurve
from .._calibration.result import CalibrationResult
from .._core.censoring_check import CensoringDependence
from .._core.display import register_html
from .._core.multiplicity import OmnibusTest
from .._core.results import XCIResult
from .._models.comparison import ModelComparison
from .._models.model_based_result import ModelBasedResult
from .._xci.paired import ComparisonResult
from .._xci.summaries import Estimate, MinXCI
from .findings.ranking import findings
from .format import cell_text, p_value_text

__all__ = [
    "matrix_result_html",
    "comparison_html",
    "horizons_html",
    "table_html",
    "calibration_html",
    "paired_html",
    "model_based_html",
]

_STYLE = (
    "<style>.survfair td,.survfair th{padding:2px 8px;text-align:right;white-space:nowrap}"
    ".survfair th{background:#eef1f6}.survfair small{color:#666}"
    ".survfair ul{margin:.3em 0 .6em 1.2em;padding:0}.survfair li{margin:.2em 0;max-width:60em}"
    ".survfair td.label{text-align:left;white-space:normal}"
    ".survfair .scroll{overflow-x:auto;max-width:100%}.survfair h4{margin:.8em 0 .3em}"
    ".survfair th.label{text-align:left}"
    "</style>"
)
_FLAG_NOTE = (
    "<p><small>† rests on little data or has standard error 0 "
    "(survfair.small_sample_flags)</small></p>"
)


def _matrix_html(
    groups: tuple, values: np.ndarray, low: np.ndarray, high: np.ndarray, flags: Any, corner: str
) -> str:
    """A G x G matrix in percent, each cell with its interval on a second line (no interval where
    the standard error is 0) and a dagger where ``flags`` (rows in matrix order, columns flagged
    and no_variance) marks it."""
    labels = [html.escape(str(g)) for g in groups]
    head = "".join(f"<th>{label}</th>" for label in labels)
    flagged, no_variance = (
        np.asarray(flags[c], bool).reshape(values.shape) for c in ("flagged", "no_variance")
    )
    rows = []
    for i in range(len(groups)):
        cells = []
        for j in range(len(groups)):
            text = cell_text(values[i, j], low[i, j], high[i, j], bool(no_variance[i, j]))
            value, _, interval = text.partition(" ")
            mark = " †" if flagged[i, j] else ""
            small = f"<br><small>{html.escape(interval)}</small>" if interval else ""
            cells.append(f"<td>{value}{mark}{small}</td>")
        rows.append(f"<tr><th>{labels[i]}</th>{''.join(cells)}</tr>")
    return (
        f"<table><thead><tr><th>{html.escape(corner)}</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _sentences(items) -> str:
    return "<ul>" + "".join(f"<li>{html.escape(s)}</li>" for s in items) + "</ul>"


def _box(name: str, settings: str, body: str) -> str:
    return (
        f'<div class="survfair">{_STYLE}<p><b>{html.escape(name)}</b>: '
        f"{html.escape(settings)}</p>{body}</div>"
    )


def matrix_result_html(result: Any) -> str:
    """HTML of an XCIResult or XAUCResult: settings line, matrix with intervals, findings."""
    found = findings(result)
    level = f"{100 * result.confidence_level:g}%"
    if hasattr(result, "positive"):
        settings = (
            f"positive = {result.positive!r}, n = {result.n_samples}, {level} DeLong intervals"
        )
    else:
        intervals = (
            f"{level} {result.ci_method} intervals"
            if result.ci_method
            else "no intervals (ci=None)"
        )
        weights = f", censoring = {result.censoring}" if result.method == "ipcw" else ""
        model = getattr(result, "censoring_model", None)
        if model is not None:  # censoring="cox": say on what
            weights += f" (Cox model on {', '.join(str(c) for c in model.covariate_names)})"
        tau = "" if result.tau is None else f", tau = {result.tau:g}"
        settings = f"method = {result.method}{weights}{tau}, n = {result.n_samples}, {intervals}"
    low, high = (np.asarray(m.to_numpy(), float) for m in result.confidence_interval())
    corner = (
        "a (positive) \\ b (negative)"
        if hasattr(result, "positive")
        else "a (earlier) \\ b (later)"
    )
    matrix = _matrix_html(result.groups, result.values, low, high, found.flags, corner)
    note = _FLAG_NOTE if found.flags["flagged"].any() else ""
    return _box(
        type(result).__name__,
        settings,
        f"{matrix}{note}{_sentences(found.sentences)}{_censoring_model_html(result)}",
    )


def _censoring_model_html(result: Any) -> str:
    """The Cox model of the censoring (``censoring="cox"``), folded: what the weights are and the
    coefficients; empty for other results."""
    from .html import html_table
    from .tables import censoring_model_table, censoring_weights_text

    table = censoring_model_table(result)
    if table is None:
        return ""
    return (
        "<details><summary>Censoring model (.censoring_model)</summary>"
        f"<p><small>{html.escape(censoring_weights_text(result))}</small></p>"
        f"{html_table(table)}</details>"
    )


def comparison_html(comparison: Any) -> str:
    """HTML of a ModelComparison: the headline numbers of every model (largest asymmetry, worst
    cell, pooled C, with intervals, adjusted p-values and flags, as the report's "Models side by
    side"), then each model's findings, folded."""
    from .html import html_table
    from .tables import comparison_table

    found = {name: findings(result) for name, result in comparison.results.items()}
    first = next(iter(comparison.results.values()))
    level = f"{100 * first.confidence_level:g}%"
    intervals = (
        f"{level} {first.ci_method} intervals" if first.ci_method else "no intervals (ci=None)"
    )
    settings = (
        f"{len(found)} models, groups = {list(comparison.groups)}, n = {first.n_samples}, "
        f"{intervals}"
    )
    table = html_table(comparison_table(comparison, found))
    flagged = any(f.flags["flagged"].any() for f in found.values())
    folded = "".join(
        f"<details><summary>Findings: {html.escape(str(name))}</summary>{_sentences(f.sentences)}"
        "</details>"
        for name, f in found.items()
    )
    note = (
        (
            "<p><small>† uses a cell resting on little data. Every cell: .results[name]; every "
            "number: .to_frame()</small></p>"
        )
        if flagged
        else "<p><small>Every cell: .results[name]; every number: .to_frame()</small></p>"
    )
    return _box("ModelComparison", settings, f"{table}{note}{folded}")


def horizons_html(result: Any) -> str:
    """HTML of an XAUCtResult: per horizon the matrix in percent with intervals and flags, the
    differences with adjusted p-values, and the findings."""
    from .findings.horizons import horizon_findings, horizon_text
    from .html import html_table
    from .tables import horizon_delta_table

    found = horizon_findings(result)
    level = (
        f"{100 * result.confidence_level:g}% {result.ci_method} intervals"
        if result.ci_method
        else "no intervals"
    )
    settings = f"censoring = {result.censoring}, n = {result.n_samples}, {level}"
    frame = result.to_frame()
    parts = []
    for t in result.times:
        at = frame["time"] == t
        shape = (len(result.groups), len(result.groups))
        values, low, high = (
            frame.loc[at, c].to_numpy(float).reshape(shape) for c in ("xauc", "ci_low", "ci_high")
        )
        parts.append(
            f"<p>{html.escape(horizon_text(float(t)))}</p>"
            + _matrix_html(
                result.groups,
                values,
                low,
                high,
                found.flags[found.flags["time"] == t].reset_index(),
                "a (case) \\ b (control)",
            )
        )
    note = _FLAG_NOTE if found.flags["flagged"].any() else ""
    deltas = (
        f"<p>Differences (p adjusted: {found.adjust})</p>"
        f"{html_table(horizon_delta_table(found, None))}"
    )
    return _box(
        "XAUCtResult", settings, "".join(parts) + note + deltas + _sentences(found.sentences)
    )


def table_html(name: str, settings: str, frame: Any, max_rows: int = 30) -> str:
    """HTML of a result that is a table at heart: a title line and the first ``max_rows`` rows
    (p-values as a reader reads them: ``< 0.001``, two significant digits), in a box that scrolls
    sideways when the table is wide."""
    shown = frame.head(max_rows).copy()
    for column in shown.columns:
        if str(column) == "p_value" or str(column).endswith(("_p_value", "p_adjusted")):
            shown[column] = [p_value_text(v) for v in shown[column]]
    table = shown.to_html(float_format=lambda v: f"{v:.4f}", na_rep="–", border=0)
    more = (
        f"<p><small>{len(frame) - max_rows} more rows: .to_frame()</small></p>"
        if len(frame) > max_rows
        else ""
    )
    return _box(name, settings, f'<div class="scroll">{table}</div>{more}')


#: the calibration statistics a notebook shows per horizon (the report's table without E90 and the
#: observed risk's interval): narrow enough for a notebook column, every horizon labelled
_CALIBRATION_COLUMNS = [
    "n",
    "events",
    "observed",
    "predicted",
    "O/E",
    "O/E interval",
    "slope",
    "slope interval",
    "ICI",
    "Brier",
    "GND p",
]


def calibration_html(result: Any) -> str:
    """HTML of a CalibrationResult: per horizon, labelled, one row per group (counts, observed
    against predicted risk, O/E and slope with their intervals, ICI, Brier, GND p; a dagger on a
    group with few events by the horizon), then the findings sentences.

    Every horizon is shown (the display used to show the first horizon only, unlabelled, as one
    table 3,226 px wide); each table sits in a box that scrolls sideways when the column is narrow.
    """
    from .findings.calibration import calibration_findings
    from .html import html_table
    from .tables import calibration_table

    found = calibration_findings(result)
    times = [float(t) for t in result.times]
    settings = (
        f"{len(times)} horizon{'s' if len(times) > 1 else ''} {times}, groups = "
        f"{list(result.groups)}, n = {result.n_samples}, intervals: {result.ci_method}"
    )
    parts = []
    for t in times:
        table = calibration_table(result, t, found.flags)
        table = table[[c for c in _CALIBRATION_COLUMNS if c in table.columns]]
        parts.append(f'<h4>At t = {t:g}</h4><div class="scroll">{html_table(table)}</div>')
    flagged = bool(found.flags["flagged"].any()) if "flagged" in found.flags else False
    note = (
        "<p><small>† few events by the horizon: the group's numbers rest on little data</small></p>"
        if flagged
        else ""
    )
    more = (
        "<p><small>Every statistic and interval: .to_frame(); per horizon: .summary(t)</small></p>"
    )
    return _box(
        "CalibrationResult", settings, "".join(parts) + note + _sentences(found.sentences) + more
    )


def paired_html(result: Any) -> str:
    """HTML of a ComparisonResult (:func:`survfair.compare_xci`): both models and the difference
    model 1 − model 2 with its paired interval and p-value, one row per quantity."""
    from .html import html_table

    level = f"{100 * result.confidence_level:g}%"
    settings = (
        f"model 1 vs model 2 on the same {result.n_samples} people, groups = "
        f"{list(result.groups)}, {level} {result.ci_method} paired intervals"
    )
    note = "<p><small>difference = model 1 − model 2; every number: .to_frame()</small></p>"
    return _box(
        "ComparisonResult",
        settings,
        f'<div class="scroll">{html_table(result.display_table())}</div>{note}',
    )


def model_based_html(result: Any) -> str:
    """HTML of a ModelBasedResult, read like the XCIResult's: the observed and the model-based
    matrices in percent with their intervals (a dagger on an observed cell resting on little
    data), the excess observed − model-based per cell in percentage points with its interval,
    then Δbetween and Δwithin per pair (a before b in the group order) with the excess's interval
    and p-value (``< 0.001``)."""
    from .findings.ranking import small_sample_flags
    from .html import html_table
    from .tables import pp

    groups = result.groups
    level = f"{100 * result.confidence_level:g}%"
    intervals = (
        f"{level} {result.ci_method} intervals" if result.ci_method else "no intervals (ci=None)"
    )
    tau = "" if result.tau is None else f", tau = {result.tau:g}"
    settings = f"reference = {result.reference}{tau}, n = {result.observed.n_samples}, {intervals}"
    flags = small_sample_flags(result.observed)
    none = {"flagged": np.zeros(len(flags), bool), "no_variance": np.zeros(len(flags), bool)}
    corner = "a (earlier) \\ b (later)"
    parts = []
    for title, of, marks in (
        ("Observed xCI", "observed", flags),
        ("Model-based xCI: what the model's own predictions imply", "model_based", none),
    ):
        values = result.observed.values if of == "observed" else result.model_based_values
        low, high = (np.asarray(m.to_numpy(), float) for m in result.confidence_interval(of=of))
        parts.append(
            f"<h4>{html.escape(title)}</h4>"
            + _matrix_html(groups, np.asarray(values, float), low, high, marks, corner)
        )
    low, high = (np.asarray(m.to_numpy(), float) for m in result.confidence_interval())
    excess = np.asarray(result.excess_values, float)
    labels = [html.escape(str(g)) for g in groups]
    rows = []
    for i in range(len(groups)):
        cells = []
        for j in range(len(groups)):
            interval = (
                f"<br><small>[{pp(low[i, j])}, {pp(high[i, j])}]</small>"
                if np.isfinite(low[i, j]) and np.isfinite(high[i, j])
                else ""
            )
            cells.append(f"<td>{pp(excess[i, j])}{interval}</td>")
        rows.append(f"<tr><th>{labels[i]}</th>{''.join(cells)}</tr>")
    head = "".join(f"<th>{label}</th>" for label in labels)
    parts.append(
        "<h4>Excess = observed − model-based, percentage points</h4>"
        f"<table><thead><tr><th>{html.escape(corner)}</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    names = {"delta_between": "Δbetween", "delta_within": "Δwithin"}
    table = [
        {
            "difference": f"{names.get(r.summary, r.summary)} ({r.a}, {r.b})",
            "observed": f"{pp(r.observed)} pts",
            "model-based": f"{pp(r.model_based)} pts",
            "excess": f"{pp(r.excess)} pts",
            "interval (excess)": (
                f"[{pp(r.ci_low)}, {pp(r.ci_high)}]"
                if np.isfinite(r.ci_low) and np.isfinite(r.ci_high)
                else "–"
            ),
            "p (excess)": p_value_text(r.p_value),
        }
        for r in result.summaries().itertuples(index=False)
    ]
    if table:
        frame = pd.DataFrame(table).set_index("difference")
        parts.append(
            f'<h4>Differences between groups</h4><div class="scroll">{html_table(frame)}</div>'
        )
    note = _FLAG_NOTE if flags["flagged"].any() else ""
    more = "<p><small>Every number: .to_frame(), .summaries()</small></p>"
    return _box("ModelBasedResult", settings, "".join(parts) + note + more)


def result_html(result: Any) -> str:
    """HTML of any other result: its class and the settings of its first repr line, then
    :meth:`to_frame` as :func:`table_html` shows a table."""
    name = type(result).__name__
    first = repr(result).split("\n", 1)[0]
    settings = first[len(name) :] if first.startswith(name) else first
    if settings.startswith("(") and settings.endswith(")"):
        settings = settings[1:-1]
    return table_html(name, settings.strip(" :"), result.to_frame())


for _cls, _render in (
    (XCIResult, matrix_result_html),
    (XAUCResult, matrix_result_html),
    (XAUCtResult, horizons_html),
    (CalibrationResult, calibration_html),
    (ModelComparison, comparison_html),
    (ComparisonResult, paired_html),
    (ModelBasedResult, model_based_html),
    (XROCCurve, result_html),
    (OmnibusTest, result_html),
    (CensoringDependence, result_html),
    (Estimate, result_html),
    (MinXCI, result_html),
    (LogisticAdjustment, result_html),
    (EqualOpportunityAdjustment, result_html),
):
    register_html(_cls, _render)
