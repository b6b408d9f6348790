"""Plain-text rendering of the audit tables (the command line's text output).

The text output is read by people in a terminal: numbers with four decimals, p-values as in the
report, and beyond :data:`TEXT_MATRIX_GROUPS` groups or :data:`TEXT_TABLE_ROWS` rows a note saying
where the whole table is instead of the table.
"""

from __future__ import annotations

import pandas as pd

from .._core.results import XCIResult
from .format import MISSING, p_value_text
from .terminal import terminal_safe


def safe_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text (cells, index and column labels) is :func:`terminal_safe`,
    escaped before the table is laid out so its columns stay aligned."""

    def safe(value):
        if isinstance(value, str):
            return terminal_safe(value)
        if isinstance(value, tuple):  # an intersectional label
            return tuple(safe(v) for v in value)
        return value

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object:
            out[column] = out[column].map(safe)
    out.index = out.index.map(safe)
    out.columns = out.columns.map(safe)
    out.index.names = [safe(n) for n in out.index.names]
    out.columns.names = [safe(n) for n in out.columns.names]
    return out


def summaries_text(summaries: pd.DataFrame, n_resamples: int | None, intervals: bool) -> str:
    """The summaries of the text output: numbers with four decimals, p-values as in the report
    (``< 0.001``; a bound at the bootstrap floor), † on a difference that uses a flagged cell; the
    joint tests are printed apart (:func:`survfair._present.report.joint_tests_table`)."""
    shown = summaries[~summaries["summary"].str.startswith("omnibus_")].copy()
    # known from the replicates where the table says so; None (the percentile floor rule) elsewhere
    floor = [
        None if f is None or pd.isna(f) else bool(f)
        for f in shown.get("p_at_floor", [None] * len(shown))
    ]
    for column in ("p_value", "p_adjusted"):
        if column in shown:
            shown[column] = [
                MISSING if pd.isna(p) else p_value_text(p, n_resamples, f)
                for p, f in zip(shown[column], floor)
            ]
    if "flagged" in shown:
        shown["flag"] = ["†" if f is True else "" for f in shown["flagged"]]
    keep = ["summary", "a", "b", "value"] + (
        ["se", "ci_low", "ci_high", "p_value", "p_adjusted"] if intervals else []
    )
    keep += ["flag"] if "flag" in shown else []
    # a single group has no differences, hence no p_adjusted column (nor any other absent one)
    keep = [column for column in keep if column in shown]
    return safe_labels(shown[keep]).to_string(index=False, float_format="{:.4f}".format, na_rep="")


def has_intervals(result: XCIResult) -> bool:
    return (
        result.ci_method is not None
    )  # never result.covariance: it is G^2 x G^2, built on request


#: The text output is read by people: beyond these sizes it says where the whole table is instead
#: (formatting 2.25 million cells of 1,500 groups took minutes and no reader could use them).
TEXT_MATRIX_GROUPS = 20
TEXT_TABLE_ROWS = 200


def text_table(frame: pd.DataFrame, **options) -> str:
    """``frame.to_string(**options)``, cut to its first TEXT_TABLE_ROWS rows with a note (cut
    before the labels are made terminal-safe: 4 million rows of counts at 2,000 groups)."""
    if len(frame) <= TEXT_TABLE_ROWS:
        return safe_labels(frame).to_string(**options)
    rest = len(frame) - TEXT_TABLE_ROWS
    return (
        safe_labels(frame.head(TEXT_TABLE_ROWS)).to_string(**options)
        + f"\n... and {rest} more rows: every row is in --format csv or --format json"
    )


def matrix_text(result: XCIResult) -> list[str]:
    g = len(result.groups)
    if g > TEXT_MATRIX_GROUPS:
        return [
            "",
            f"xCI matrix: {g} x {g} cells, too many for a text table; every cell is in "
            "--format csv or --format json (and in the pair counts below).",
        ]
    lines = [
        "",
        "xCI matrix (rows a = group of the earlier event, columns b = group of the later member):",
        safe_labels(result.matrix).to_string(float_format="{:.4f}".format),
    ]
    if has_intervals(result):
        low, high = result.confidence_interval()
        lines += [
            f"{result.confidence_level:.0%} interval, low:",
            safe_labels(low).to_string(float_format="{:.4f}".format),
            "high:",
            safe_labels(high).to_string(float_format="{:.4f}".format),
        ]
    return lines
