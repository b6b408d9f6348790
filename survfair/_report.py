"""Self-contained HTML / Markdown audit reports: a thin consumer of the public result objects."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ._model_comparison import ModelComparison
from ._results import XCIResult
from ._summaries import concordance_imparity, min_xci, pairwise_deltas, utility
from ._xauc import XAUCResult
from ._xauc_summaries import balanced_xauc

__all__ = ["write_report", "data_summary_table"]

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1.5em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #345;padding-bottom:.3em}h2{margin-top:1.8em;color:#234;border-bottom:1px solid #ccd}
table{border-collapse:collapse;margin:.8em 0;font-size:.92em}
th,td{border:1px solid #ccd;padding:.3em .7em;text-align:right}th{background:#eef1f6}
td.label,th.label{text-align:left}tr:nth-child(even) td{background:#f8f9fb}
figure{margin:1em 0;display:inline-block;vertical-align:top}figcaption{font-size:.9em;color:#555}
img{max-width:100%;border:1px solid #dde}p.note{font-size:.9em;color:#444}
.meta{color:#666;font-size:.85em}
"""

_NOTE = (
    "xCI<sub>a,b</sub> estimates P(R<sub>i</sub> &gt; R<sub>j</sub> | T<sub>i</sub> &lt; T<sub>j</sub>, "
    "G<sub>i</sub> = a, G<sub>j</sub> = b): row a is the group of the member with the EARLIER event, "
    "column b the group of the member who outlived it (Wang et al. 2026, eq. 2). A higher risk score "
    "means an earlier expected event. &Delta;within(a,b) = xCI<sub>a,a</sub> &minus; xCI<sub>b,b</sub>; "
    "&Delta;between(a,b) = xCI<sub>a,b</sub> &minus; xCI<sub>b,a</sub>."
)

_NOTE_MD = (
    "xCI[a,b] estimates P(R_i > R_j | T_i < T_j, G_i = a, G_j = b): row a is the group of the member "
    "with the EARLIER event, column b the group of the member who outlived it (Wang et al. 2026, eq. 2). "
    "A higher risk score means an earlier expected event. Δwithin(a,b) = xCI[a,a] − xCI[b,b]; "
    "Δbetween(a,b) = xCI[a,b] − xCI[b,a]."
)

_NOTE_XAUC = (
    "xAUC(a, b) estimates P(R<sub>1</sub><sup>a</sup> &gt; R<sub>0</sub><sup>b</sup>), the probability that "
    "a positive of group a is scored above a negative of group b: row a is the group of the POSITIVE, "
    "column b the group of the NEGATIVE (Kallus &amp; Zhou 2019, Definition 2); the diagonal holds the "
    "within-group AUCs. A higher score should mean the positive class. "
    "delta_between(a,b) = xAUC(a,b) &minus; xAUC(b,a) (&Delta;xAUC, Section 4); "
    "delta_within(a,b) = AUC<sup>a</sup> &minus; AUC<sup>b</sup>; min_xci is the smallest cell. A binary outcome "
    "has no censoring: xAUC is the xCI of a sample in which every positive has its event before every "
    "negative. Standard errors, intervals and p-values come from the DeLong covariance of all cells."
)

_NOTE_XAUC_MD = (
    "xAUC(a, b) estimates P(R_1^a > R_0^b), the probability that a positive of group a is scored above "
    "a negative of group b: row a is the group of the POSITIVE, column b the group of the NEGATIVE "
    "(Kallus & Zhou 2019, Definition 2); the diagonal holds the within-group AUCs. A higher score should "
    "mean the positive class. delta_between(a,b) = xAUC(a,b) − xAUC(b,a) (ΔxAUC, Section 4); "
    "delta_within(a,b) = AUC^a − AUC^b; min_xci is the smallest cell. A binary outcome has no censoring: "
    "xAUC is the xCI of a sample in which every positive has its event before every negative. Standard "
    "errors, intervals and p-values come from the DeLong covariance of all cells."
)


@dataclass(frozen=True)
class _Words:
    """How the report names one kind of cell matrix; the tables and figures are built the same way."""

    metric: str  # "xCI" / "xAUC"
    axes: str  # index name of the matrix table: what rows and columns are
    note_html: str
    note_md: str
    between: str  # summary rows: delta_between, delta_within, min_xci, concordance_imparity
    within: str
    smallest: str
    imparity: str


_XCI_WORDS = _Words("xCI", "a (earlier event) / b (later)", _NOTE, _NOTE_MD,
                    "delta_between", "delta_within", "min_xci", "concordance_imparity")
_XAUC_WORDS = _Words("xAUC", "a (positive) / b (negative)", _NOTE_XAUC, _NOTE_XAUC_MD,
                     "delta_between", "delta_within", "min_xci", "concordance_imparity")


def _words(result: XCIResult | XAUCResult) -> _Words:
    return _XAUC_WORDS if isinstance(result, XAUCResult) else _XCI_WORDS


def data_summary_table(result: XCIResult | XAUCResult) -> pd.DataFrame:
    """Per-group data summary of a result: n, events, censored, censoring share, min K_g used.

    Parameters
    ----------
    result : XCIResult or XAUCResult

    Returns
    -------
    DataFrame indexed by group (plus a row "all"). For an XCIResult the columns are n, events,
    censored, censored_pct and, for IPCW, min_censoring_survival (smallest K_g used as a
    weight); for an XAUCResult n, positives, negatives, positive_pct.
    """
    if isinstance(result, XAUCResult):
        frame = pd.DataFrame.from_dict(
            {g: {k: int(result.group_sizes[g][k]) for k in ("n", "positives", "negatives")} for g in result.groups},
            orient="index",
        )
        frame.loc["all"] = frame.sum()
        frame["positive_pct"] = (100.0 * frame["positives"] / frame["n"].where(frame["n"] > 0)).round(1)
        frame.index.name = "group"
        return frame
    rows = {}
    for g in result.groups:
        sizes = result.group_sizes.get(g, {})
        n, events = int(sizes.get("n", 0)), int(sizes.get("events", 0))
        rows[g] = {"n": n, "events": events, "censored": n - events}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.loc["all"] = frame.sum()
    frame["censored_pct"] = (100.0 * frame["censored"] / frame["n"].where(frame["n"] > 0)).round(1)
    if result.min_censoring_survival:
        frame["min_censoring_survival"] = [result.min_censoring_survival.get(g, math.nan) for g in result.groups] + [
            math.nan
        ]
    frame.index.name = "group"
    return frame


def _summary_table(result: XCIResult | XAUCResult) -> pd.DataFrame:
    """Δwithin, Δbetween per pair, min cell, imparity, utilities (xCI), pooled C or AUC: value, se, interval, p.

    The same public summaries serve both results (they read the result's own inference); only the row
    names differ (see :class:`_Words`).
    """
    words = _words(result)
    words_of = {"delta_within": words.within, "delta_between": words.between}
    rows = [(f"{words_of[d.summary]}({d.a}, {d.b})", d.value, d.se, d.ci_low, d.ci_high, d.p_value)
            for d in pairwise_deltas(result).itertuples(index=False)]
    smallest = min_xci(result)
    e = smallest.estimate
    rows.append((f"{words.smallest} (cell {smallest.a}, {smallest.b})", e.value, e.se, *e.confidence_interval,
                 math.nan))
    rows.append((words.imparity, concordance_imparity(result), math.nan, math.nan, math.nan, math.nan))
    if isinstance(result, XAUCResult):
        pooled = result.overall_estimate()
        rows.append(("AUC (pooled)", pooled.value, pooled.se, *pooled.confidence_interval, pooled.p_value))
        frame = pd.DataFrame(rows, columns=["statistic", "value", "se", "ci_low", "ci_high", "p_value"])
        return frame.set_index("statistic")
    for g, u in utility(result).iterrows():
        rows.append((f"utility({g}), alpha=beta=1", u["value"], u["se"], u["ci_low"], u["ci_high"], math.nan))
    rows.append(("overall C (pooled)", result.overall, math.nan, math.nan, math.nan, math.nan))
    frame = pd.DataFrame(rows, columns=["statistic", "value", "se", "ci_low", "ci_high", "p_value"])
    return frame.set_index("statistic")


def _settings_table(result: XCIResult | XAUCResult | None, settings: Mapping[str, Any] | None) -> pd.DataFrame:
    items: dict[str, Any] = {}
    if isinstance(result, XAUCResult):
        items.update(
            {
                "metric": "xAUC (binary outcome)",
                "positive": result.positive,
                "tied_tol": result.tied_tol,
                "n_samples": result.n_samples,
                "confidence_level": result.confidence_level,
                "ci_method": result.ci_method,
            }
        )
    elif result is not None:
        items.update(
            {
                "method": result.method,
                "tau": result.tau,
                "censoring": result.censoring,
                "tied_tol": result.tied_tol,
                "strict": result.strict,
                "n_samples": result.n_samples,
                "n_excluded (group not analysed)": result.n_excluded,
                "confidence_level": result.confidence_level,
                "ci_method": result.ci_method,
            }
        )
    for key, value in (settings or {}).items():
        items[str(key)] = value
    frame = pd.DataFrame({"value": [("None" if v is None else str(v)) for v in items.values()]}, index=list(items))
    frame.index.name = "setting"
    return frame


def _drop_empty(frame: pd.DataFrame) -> pd.DataFrame:
    """Drop all-NaN numeric columns (e.g. intervals when no inference was requested)."""
    keep = [c for c in frame.columns if not (frame[c].dtype.kind == "f" and frame[c].isna().all())]
    return frame[keep]


def _fmt(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):d}"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if float(value).is_integer() and abs(value) < 1e15:
            return f"{int(value):d}"
        if abs(value) >= 1e3:
            return f"{value:.1f}"
        if abs(value) < 1e-3:
            return f"{value:.3g}"
        return f"{value:.4f}"
    return str(value)


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    index_name = html.escape(str(frame.index.name or ""))
    body = []
    for index, row in frame.iterrows():
        cells = "".join(
            f'<td{" class=label" if isinstance(v, str) else ""}>{html.escape(_fmt(v))}</td>' for v in row
        )
        body.append(f"<tr><th class=label>{html.escape(str(index))}</th>{cells}</tr>")
    return f"<table><thead><tr><th class=label>{index_name}</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


# Markdown output: every string that can come from the user (title, table and figure names, the
# header, index and cells of every table -- group labels, model names, settings values) goes
# through _md_text; only our own fixed notes are written as Markdown on purpose.
# * "&", "<", ">" (and quotes) become HTML entities (html.escape, as in the HTML report): a group
#   named "<script>..." or "<img onerror=...>" is shown as text, never passed through as raw HTML
#   by a renderer that allows it (CommonMark, GitHub, MkDocs); "&" cannot start an entity either.
# * The inline Markdown punctuation \ ` * _ [ ] | # is backslash-escaped (CommonMark, GFM and
#   Python-Markdown all accept these escapes), so "*a*" is not emphasis, "[x](y)" not a link, "`"
#   not code and "|" cannot split a table cell. "$" and "~" become the numeric references &#36;
#   and &#126; instead: Python-Markdown keeps the backslash of "\$" / "\~" visible, and a
#   reference is never a delimiter, so "$0-$50k" is not maths where $...$ is LaTeX (GitHub, MkDocs
#   with arithmatex) and "~a~" not strikethrough (GFM). Characters that only matter at the start
#   of a line (-, +, 1.) are left alone: no user string starts a line ("| " or "## " does).
# * Line breaks become "<br>" in a table cell and a space in a heading or caption, so a label
#   cannot end a table row or a heading.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#])")
_MD_REFERENCES = str.maketrans({"$": "&#36;", "~": "&#126;"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _md_text(text: Any, *, cell: bool = False) -> str:
    """``text`` escaped for Markdown (see the comment above): shown literally, never as markup."""
    escaped = html.escape(_MD_SPECIAL.sub(r"\\\1", str(text))).translate(_MD_REFERENCES)
    return _LINE_BREAK.sub("<br>" if cell else " ", escaped)


def _md_table(frame: pd.DataFrame) -> str:
    header = [str(frame.index.name or "")] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(_md_text(h, cell=True) for h in header) + " |", "|" + "---|" * len(header)]
    for index, row in frame.iterrows():
        cells = [str(index)] + [_fmt(v) for v in row]
        lines.append("| " + " | ".join(_md_text(x, cell=True) for x in cells) + " |")
    return "\n".join(lines)


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def _xroc_figure(result: XAUCResult) -> Any:
    """xROC curves of the off-diagonal cells (their areas are the cells), or None when not drawable."""
    import matplotlib.pyplot as plt

    from ._xroc import xroc
    from .plotting import plot_xroc

    sizes = result.group_sizes
    pairs = [
        (a, b) for a in result.groups for b in result.groups
        if a != b and sizes[a]["positives"] > 0 and sizes[b]["negatives"] > 0
    ]
    # Kallus & Zhou (2019), Fig. 2: one curve per ordered pair; beyond 12 curves (G > 4) unreadable.
    if result.rows is None or not pairs or len(pairs) > 12:
        return None
    curves = {}
    for a, b in pairs:
        curve = xroc(result, a, b)
        curves[f"xROC({a}, {b}), area {result.matrix.loc[a, b]:.3f}"] = (curve.fpr, curve.tpr)
    fig, ax = plt.subplots(figsize=(4.8, 4.8), layout="constrained")
    plot_xroc(curves, ax=ax)
    ax.set_title("xROC: positives of a vs negatives of b")
    return fig


def _default_figures(result: XCIResult | XAUCResult | None, comparison: ModelComparison | None) -> dict[str, Any]:
    import matplotlib.pyplot as plt

    from .plotting import plot_censoring_curves, plot_forest, plot_xci_heatmap

    figures: dict[str, Any] = {}
    # Each heatmap is its own figure, sized by plot_xci_heatmap to its cell texts and group labels
    # (side by side in the HTML report: figures are inline blocks).
    if comparison is not None:
        for name, res in comparison.results.items():
            figures[f"xCI matrix, {name}"] = plot_xci_heatmap(res, title=name).figure
        figures["Δbetween and Δwithin per model"] = plot_forest(comparison).figure
    if result is not None:
        if comparison is None:
            figures[f"{_words(result).metric} matrix"] = plot_xci_heatmap(result).figure
        if isinstance(result, XAUCResult):
            fig = _xroc_figure(result)
            if fig is not None:
                figures["xROC curves per pair of groups"] = fig
        elif result.censoring_curves is not None:
            fig, ax = plt.subplots(figsize=(6.0, 3.8), layout="constrained")
            plot_censoring_curves(result, ax=ax)
            figures["Censoring survival K_g(t) per group"] = fig
    return figures


def _result_tables(result: XCIResult | XAUCResult) -> list[tuple[str, pd.DataFrame, str]]:
    """The matrix (with intervals when the result has them), the summaries and the pair counts."""
    words = _words(result)
    matrix = result.matrix.copy()
    low, high = result.confidence_interval()
    if np.isfinite(low.to_numpy()).any():
        for col in result.groups:
            matrix[f"{col} low"], matrix[f"{col} high"] = low[col], high[col]
    matrix.index.name = words.axes
    matrix.columns = [str(c) for c in matrix.columns]
    tables = [(f"{words.metric} matrix", matrix, ""), ("Fairness summaries", _drop_empty(_summary_table(result)), "")]
    if isinstance(result, XAUCResult) and result.rows is not None:
        tables.append((
            "Balanced xAUC",
            _drop_empty(balanced_xauc(result)),
            "Kallus & Zhou 2019, Definition 3: xauc1 = P[R_1^a > R_0], the positives of group a against "
            "all negatives; xauc0 = P[R_1 > R_0^a], all positives against the negatives of group a.",
        ))
    counts = result.counts.set_index(["a", "b"])
    counts.index = [f"{a} → {b}" for a, b in counts.index]
    counts.index.name = "a → b"
    ratio = "xauc = (concordant + tied_score / 2) / pairs" if isinstance(result, XAUCResult) else (
        "xci = numerator / denominator")
    tables.append(("Pair counts", counts, f"Counts first, ratios last: {ratio}."))
    return tables


def write_report(
    path: str | Path,
    result: XCIResult | XAUCResult | ModelComparison,
    *,
    settings: Mapping[str, Any] | None = None,
    data_summary: pd.DataFrame | None = None,
    extra_tables: Mapping[str, pd.DataFrame] | None = None,
    figures: Mapping[str, Any] | None = None,
    title: str = "survfair audit report",
    default_figures: bool = True,
) -> Path:
    """Write an audit report: one self-contained HTML file, or Markdown (by the file extension).

    The report holds the settings, a data summary (n, events, censoring per group, positivity:
    the smallest K_g used), the xCI matrix (with intervals when the result carries them), the
    pair counts, the fairness summaries (Δwithin, Δbetween, min-xCI, imparity, utilities, pooled
    C; Wang et al. 2026 Sections 4.1-4.3), any extra tables, and figures (heatmap, censoring
    curves, and for a comparison a heatmap per model and a forest plot).

    For a binary audit (an :class:`~survfair.XAUCResult`) the same sections hold the xAUC matrix
    (rows a = group of the positive, columns b = group of the negative; Kallus & Zhou 2019) with
    its DeLong intervals, positives and negatives per group, ΔxAUC (delta_between) and
    the difference of within-group AUCs (delta_within), the smallest cell, the balanced
    xAUCs, the pooled AUC, and as figures the heatmap and the xROC curves.

    Every user string (group labels, model names, settings, table cells, titles) is shown as
    text: HTML-escaped in both formats and Markdown-escaped in ``.md``, and drawn literally in
    the figures (a ``$`` in a label is a dollar sign, not mathtext).

    Parameters
    ----------
    path : str or Path
        ``*.html`` / ``*.htm``: one file, figures embedded as base64 PNG, inline CSS, no script and
        no external resource. ``*.md``: Markdown; figures are written as PNG files to the folder
        ``<stem>_files/`` next to it and linked relatively.
    result : XCIResult, XAUCResult or ModelComparison
        What to report. For a ModelComparison the comparison table is shown and the per-result
        sections use the first model (the data summary and censoring are the same for all models).
    settings : mapping, optional
        Extra settings to show (e.g. the command line, input file, column names, dropped rows);
        shown after the result's own settings.
    data_summary : DataFrame, optional
        Replaces the default per-group summary (:func:`data_summary_table`).
    extra_tables : mapping of str -> DataFrame, optional
        Additional titled tables, shown after the summaries.
    figures : mapping of str -> matplotlib Figure, optional
        Additional titled figures, shown after the default ones.
    title : str, default="survfair audit report"
    default_figures : bool, default=True
        Whether to draw the default figures (needs matplotlib).

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    TypeError
        If ``result`` is not an XCIResult, an XAUCResult or a ModelComparison, or a table is not
        a DataFrame.
    ValueError
        If the extension of ``path`` is not .html, .htm or .md.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise ValueError(f"path must end in .html, .htm or .md, got {path.name!r}.")
    if isinstance(result, ModelComparison):
        comparison, main = result, next(iter(result.results.values()))
    elif isinstance(result, (XCIResult, XAUCResult)):
        comparison, main = None, result
    else:
        raise TypeError(
            f"result must be an XCIResult, an XAUCResult or a ModelComparison, got {type(result).__name__}."
        )
    for name, table in (extra_tables or {}).items():
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"extra_tables[{name!r}] must be a DataFrame, got {type(table).__name__}.")

    words = _words(main)
    summary_note = (
        "Per group: rows analysed, positives, negatives and the share of positives."
        if isinstance(main, XAUCResult)
        else "Per group: rows analysed, events, censored rows; min_censoring_survival is the smallest "
        "censoring survival K_g used as an IPCW weight (positivity: weights up to 1/K^2)."
    )
    tables: list[tuple[str, pd.DataFrame, str]] = [
        ("Settings", _settings_table(main, settings), ""),
        ("Data summary", data_summary if data_summary is not None else data_summary_table(main), summary_note),
    ]
    if comparison is not None:
        table = comparison.table.copy()
        tables.append(("Model comparison", _drop_empty(table), "One row per model; _low/_high are interval limits."))
    else:
        tables += _result_tables(main)
    for name, table in (extra_tables or {}).items():
        tables.append((str(name), table, ""))

    drawn = dict(_default_figures(main, comparison)) if default_figures else {}
    drawn.update(figures or {})
    images = {name: _png(fig) for name, fig in drawn.items()}
    if default_figures:
        import matplotlib.pyplot as plt

        for name, fig in drawn.items():
            if name not in (figures or {}):
                plt.close(fig)

    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".md":
        folder = path.parent / f"{path.stem}_files"
        parts = [f"# {_md_text(title)}", "", f"_Generated by survfair on {stamp}._", "", words.note_md, ""]
        for name, table, note in tables:
            parts += [f"## {_md_text(name)}", ""] + ([_md_text(note), ""] if note else []) + [_md_table(table), ""]
        if images:
            folder.mkdir(exist_ok=True)
            parts += ["## Figures", ""]
            for k, (name, png) in enumerate(images.items()):
                file = folder / f"figure_{k + 1}.png"
                file.write_bytes(png)
                parts += [f"![{_md_text(name)}]({folder.name}/{file.name})", "", f"*{_md_text(name)}*", ""]
        path.write_text("\n".join(parts), encoding="utf-8")
        return path

    body = [f"<h1>{html.escape(title)}</h1>", f'<p class="meta">Generated by survfair on {stamp}.</p>',
            f'<p class="note">{words.note_html}</p>']
    for name, table, note in tables:
        body.append(f"<h2>{html.escape(name)}</h2>")
        if note:
            body.append(f'<p class="note">{html.escape(note)}</p>')
        body.append(_html_table(table))
    if images:
        body.append("<h2>Figures</h2>")
        for name, png in images.items():
            data = base64.b64encode(png).decode("ascii")
            body.append(
                f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(name)}</figcaption></figure>"
            )
    document = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    path.write_text(document, encoding="utf-8")
    return path
