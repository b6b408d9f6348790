"""How results look in Jupyter: ``_repr_html_`` of the result objects.

A notebook cell that ends with a result shows the matrix with its intervals (percent, one
decimal; a dagger on cells that rest on little data), the findings sentences and the settings in
one line. The result classes import this module only when Jupyter asks for the HTML, so it may
build on the findings (which build on the summaries) without a cycle at import time.
"""

from __future__ import annotations

import html
from typing import Any

from ._findings import findings
from ._format import interval_text, percent

__all__ = ["matrix_result_html", "table_html"]

_STYLE = (
    "<style>.survfair td,.survfair th{padding:2px 8px;text-align:right;white-space:nowrap}"
    ".survfair th{background:#eef1f6}.survfair small{color:#666}.survfair ul{margin:.3em 0 .6em 1.2em;"
    "padding:0}.survfair li{margin:.2em 0;max-width:60em}</style>"
)


def _cells(result: Any, flagged: set) -> str:
    low, high = (m.to_numpy() for m in result.confidence_interval())
    values = result.values
    labels = [html.escape(str(g)) for g in result.groups]
    head = "".join(f"<th>{label}</th>" for label in labels)
    rows = []
    for i, a in enumerate(result.groups):
        cells = []
        for j, b in enumerate(result.groups):
            interval = interval_text(low[i, j], high[i, j], as_percent=True)
            mark = " †" if (a, b) in flagged else ""
            small = "" if interval == "–" else f"<br><small>{interval}</small>"
            cells.append(f"<td>{percent(values[i, j])}{mark}{small}</td>")
        rows.append(f"<tr><th>{labels[i]}</th>{''.join(cells)}</tr>")
    corner = "a (positive) \\ b (negative)" if hasattr(result, "positive") else "a (earlier) \\ b (later)"
    return f"<table><thead><tr><th>{html.escape(corner)}</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def matrix_result_html(result: Any) -> str:
    """HTML of an XCIResult or XAUCResult: settings line, matrix with intervals, findings."""
    found = findings(result)
    flagged = found.flagged_cells
    name = type(result).__name__
    level = f"{100 * result.confidence_level:g}%"
    if hasattr(result, "positive"):
        settings = f"positive = {result.positive!r}, n = {result.n_samples}, {level} DeLong intervals"
    else:
        intervals = f"{level} {result.ci_method} intervals" if result.ci_method else "no intervals (ci=None)"
        weights = f", censoring = {result.censoring}" if result.method == "ipcw" else ""
        tau = "" if result.tau is None else f", tau = {result.tau:g}"
        settings = f"method = {result.method}{weights}{tau}, n = {result.n_samples}, {intervals}"
    items = "".join(f"<li>{html.escape(s)}</li>" for s in found.sentences)
    note = "<p><small>† rests on little data (survfair.small_sample_flags)</small></p>" if flagged else ""
    return (f'<div class="survfair">{_STYLE}<p><b>{name}</b>: {html.escape(settings)}</p>'
            f"{_cells(result, flagged)}{note}<ul>{items}</ul></div>")


def table_html(name: str, settings: str, frame: Any, max_rows: int = 30) -> str:
    """HTML of a result that is a table at heart (AUC(t), a model comparison): a title line and the
    first ``max_rows`` rows."""
    shown = frame.head(max_rows).to_html(float_format=lambda v: f"{v:.4f}", na_rep="–", border=0)
    more = f"<p><small>{len(frame) - max_rows} more rows: .to_frame()</small></p>" if len(frame) > max_rows else ""
    return f'<div class="survfair">{_STYLE}<p><b>{html.escape(name)}</b>: {html.escape(settings)}</p>{shown}{more}</div>'
