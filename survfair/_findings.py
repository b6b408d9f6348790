"""Findings in words: the plain-language summary that opens every report and CLI table output.

Sentences are generated from the result objects (never written per dataset) and follow the
matrix convention: for xCI, cell (a, b) is "when a member of a had the event first, the model
ranked them above the member of b"; for xAUC, "a positive of a was scored above a negative of b".
Small cells are flagged with the reason, and every family of p-values is adjusted together.
"""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from ._frozen import frozen_result
from ._exceptions import MemoryLimitError
from ._format import interval_text, p_phrase, p_value_text, percent
from ._multiplicity import ADJUSTMENTS, OmnibusTest, adjust_p_values, n_contrasts, omnibus_test
from ._results import json_safe
from ._summaries import overall_c, pairwise_deltas
from ._validation import check_option, check_scalar

__all__ = ["Findings", "findings", "small_sample_flags", "SMALL_CELL_COVERAGE_NOTE"]

#: what a flagged cell's interval may do, as measured (issue tracker, survfair simulation checks)
SMALL_CELL_COVERAGE_NOTE = (
    "intervals of such cells can be too narrow: with about 30 events in the smaller group and a cell "
    "near 0.98, nominal 95% intervals covered 89% in simulation"
)


def _is_binary(result: Any) -> bool:
    return hasattr(result, "positive")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def small_sample_flags(result: Any, *, min_events: int = 10, min_pairs: int = 100) -> pd.DataFrame:
    """Cells that rest on little data, with the reason.

    Parameters
    ----------
    result : XCIResult or XAUCResult
    min_events : int, default=10
        A cell (a, b) of an xCI matrix is flagged when its row group ``a`` (whose member has the
        event first) has fewer events; a cell of an xAUC matrix when group ``a`` has fewer
        positives or group ``b`` fewer negatives.
    min_pairs : int, default=100
        ... or when the cell has fewer comparable pairs.

    Returns
    -------
    DataFrame
        One row per cell (row-major): a, b, comparable, events (xCI: events in ``a``; xAUC:
        positives in ``a``), controls (xAUC only: negatives in ``b``), flagged (bool), reason
        (empty when not flagged).

    Raises
    ------
    TypeError, ValueError
        If ``min_events`` or ``min_pairs`` is not an integer >= 0.

    See Also
    --------
    findings : uses the flags to qualify its sentences.
    xci : the counts the flags are read from.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> flags = small_sample_flags(res)
    >>> bool(flags["flagged"].all()), flags["reason"][0]
    (True, '4 events in a (< 10); 6 comparable pairs (< 100)')
    """
    min_events = check_scalar(min_events, "min_events", "integer", low=0)
    min_pairs = check_scalar(min_pairs, "min_pairs", "integer", low=0)
    groups = list(result.groups)
    counts = result.pair_counts.comparable
    rows = []
    for i, a in enumerate(groups):
        for j, b in enumerate(groups):
            sizes_a, sizes_b = result.group_sizes.get(a, {}), result.group_sizes.get(b, {})
            reasons = []
            if _is_binary(result):
                events, controls = int(sizes_a.get("positives", 0)), int(sizes_b.get("negatives", 0))
                if events < min_events:
                    reasons.append(f"{_count(events, 'positive')} in {a} (< {min_events})")
                if controls < min_events:
                    reasons.append(f"{_count(controls, 'negative')} in {b} (< {min_events})")
            else:
                events, controls = int(sizes_a.get("events", 0)), None
                if events < min_events:
                    reasons.append(f"{_count(events, 'event')} in {a} (< {min_events})")
            pairs = int(counts[i, j])
            if pairs < min_pairs:
                reasons.append(f"{_count(pairs, 'comparable pair')} (< {min_pairs})")
            row = {"a": a, "b": b, "comparable": pairs, "events": events}
            if _is_binary(result):
                row["controls"] = controls
            rows.append(row | {"flagged": bool(reasons), "reason": "; ".join(reasons)})
    return pd.DataFrame(rows)


#: The findings and the report compute a joint test of at most this many contrasts: its covariance
#: is K x K and its eigen-decomposition O(K^3) (about a second at K = 2,000; 500 groups have
#: 124,750 asymmetries). Above it the adjusted pairwise p-values stand alone.
JOINT_TEST_LIMIT = 2000
NOT_COMPUTED = "not computed"


def joint_test(result: Any, hypothesis: str) -> OmnibusTest:
    """:func:`survfair.omnibus_test`, or an OmnibusTest with ``source="not computed"`` (and NaN
    statistic) for one group, more than :data:`JOINT_TEST_LIMIT` contrasts, or not enough memory."""
    g = len(result.groups)
    k = n_contrasts(g, hypothesis)
    if g < 2:
        return OmnibusTest(hypothesis, np.nan, 0, np.nan, 0, 0, "none")
    if k <= JOINT_TEST_LIMIT:
        try:
            return omnibus_test(result, hypothesis=hypothesis)
        except MemoryLimitError:
            pass
    return OmnibusTest(hypothesis, np.nan, 0, np.nan, k, 0, NOT_COMPUTED)


def flagged_cells(flags: pd.DataFrame) -> set:
    """The (a, b) cells a :func:`small_sample_flags` table marks."""
    return {(r.a, r.b) for r in flags.itertuples() if r.flagged}


@frozen_result
class Findings:
    """Result of :func:`findings`: sentences for a reader, and the numbers behind them.

    Attributes
    ----------
    sentences : tuple of str
        The summary, most important first.
    deltas : DataFrame
        :func:`survfair.pairwise_deltas` with ``p_adjusted`` (adjusted within each summary family).
    omnibus : OmnibusTest
        Joint test of no cross-group asymmetry.
    flags : DataFrame
        :func:`small_sample_flags`.
    adjust : str
        The p-value adjustment used.

    See Also
    --------
    findings : computes it.
    """

    sentences: tuple
    deltas: pd.DataFrame = field(repr=False)
    omnibus: OmnibusTest = field(repr=False)
    flags: pd.DataFrame = field(repr=False)
    adjust: str = "holm"

    @property
    def flagged_cells(self) -> set:
        """The (a, b) cells that :attr:`flags` marks."""
        return flagged_cells(self.flags)

    def to_text(self) -> str:
        """The sentences as a bulleted plain-text block."""
        return "\n".join(f"- {s}" for s in self.sentences)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: sentences, adjusted deltas, the omnibus test and the flagged cells."""
        return json_safe(
            {
                "sentences": list(self.sentences),
                "adjust": self.adjust,
                "deltas": self.deltas.to_dict(orient="records"),
                "omnibus": self.omnibus.to_dict(),
                "flagged_cells": self.flags[self.flags["flagged"]].to_dict(orient="records"),
            }
        )

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        import html

        return "<ul>" + "".join(f"<li>{html.escape(s)}</li>" for s in self.sentences) + "</ul>"


def _adjusted(deltas: pd.DataFrame, method: str) -> pd.DataFrame:
    deltas = deltas.copy()
    deltas["p_adjusted"] = np.nan
    for summary, part in deltas.groupby("summary", sort=False):
        deltas.loc[part.index, "p_adjusted"] = adjust_p_values(part["p_value"].to_numpy(), method=method)
    return deltas


def _points(value: float) -> str:
    """A difference of two proportions in percentage points, signed."""
    return f"{100 * value:+.1f} points" if math.isfinite(value) else "undefined"


def _cell_words(result: Any, a: Any, b: Any) -> str:
    if _is_binary(result):
        return f"a positive of {a} was scored above a negative of {b}"
    if a == b:
        return f"within {a}, the model ranked the member with the earlier event higher"
    return f"when a member of {a} had the event first, the model ranked them above the member of {b}"


class _Reader:
    """Cell values and intervals of one result, worded."""

    def __init__(self, result: Any):
        self.result = result
        self.values = result.values
        self.low, self.high = (np.asarray(m.to_numpy(), float) for m in result.confidence_interval())
        self.index = {g: k for k, g in enumerate(result.groups)}
        level = getattr(result, "confidence_level", 0.95)
        self.level = f"{100 * level:g}%"
        self.n_resamples = None
        if getattr(result, "bootstrap", None) is not None:
            self.n_resamples = int(result.bootstrap.cells.shape[0])

    def cell(self, a: Any, b: Any) -> str:
        i, j = self.index[a], self.index[b]
        text = percent(self.values[i, j])
        interval = interval_text(self.low[i, j], self.high[i, j], as_percent=True)
        return text if interval == "–" else f"{text} {interval}"

    def p(self, value: float) -> str:
        """``"p = 0.043"`` or ``"p < 0.001"``."""
        return p_phrase(value, self.n_resamples)


def _largest(deltas: pd.DataFrame, summary: str) -> pd.Series | None:
    part = deltas[(deltas["summary"] == summary) & deltas["value"].notna()]
    if part.empty:
        return None
    row = part.loc[part["value"].abs().idxmax()]
    if row["value"] < 0:  # name the favoured group first
        row = row.copy()
        row["a"], row["b"] = row["b"], row["a"]
        row["value"], row["ci_low"], row["ci_high"] = -row["value"], -row["ci_high"], -row["ci_low"]
    return row


def _excludes_zero(row: pd.Series) -> str:
    if not (math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"])):
        return "no interval"
    return "the interval excludes 0" if row["ci_low"] > 0 or row["ci_high"] < 0 else "the interval includes 0"


def _asymmetry_sentence(reader: _Reader, row: pd.Series, adjust: str, flagged: set) -> str:
    a, b = row["a"], row["b"]
    result = reader.result
    if _is_binary(result):
        first = f"a positive of {a} was scored above a negative of {b} {reader.cell(a, b)} of the time"
        second = f"a positive of {b} above a negative of {a} {reader.cell(b, a)}"
        consequence = f"if a higher score means earlier attention, positives of {b} are the ones under-served"
    else:
        first = (f"when a member of {a} had the event first, the model ranked them above the member of {b} "
                 f"{reader.cell(a, b)} of the time")
        second = f"when a member of {b} had the event first, {reader.cell(b, a)}"
        consequence = (f"members of {b} who had the event first were ranked correctly less often; if a higher "
                       f"score means earlier care, {b} is the disadvantaged group in this pair")
    interval = interval_text(row["ci_low"] * 100, row["ci_high"] * 100, digits=1)
    tail = f"Δbetween({a}, {b}) = {_points(row['value'])}"
    if interval != "–":
        tail += f" {interval}, {adjust_name(adjust)} {reader.p(row['p_adjusted'])}; {_excludes_zero(row)}"
    verdict = _excludes_zero(row)
    alpha = 1 - reader.result.confidence_level
    adjusted = row["p_adjusted"]
    if verdict == "the interval excludes 0" and math.isfinite(adjusted) and adjusted >= alpha:
        # the interval is for one comparison; the largest of several is judged by the adjusted p-value
        words = (f"The interval excludes 0, but this is the largest of several comparisons and its adjusted "
                 f"p-value is not below {alpha:g}: the data do not clearly show either group disadvantaged.")
    elif verdict == "the interval excludes 0":
        words = f"In words: {consequence}."
    elif verdict == "the interval includes 0":
        words = "The difference is within what chance alone would give: the data do not show either group disadvantaged."
    else:
        words = f"Without an interval chance cannot be ruled out; the direction points to: {consequence}."
    caution = _caution(flagged, [(a, b), (b, a)])
    return f"Largest cross-group asymmetry, {a} vs {b}: {first}; {second}. {tail}. {words}{caution}"


def _caution(flagged: set, cells: list) -> str:
    used = [cell for cell in cells if cell in flagged]
    if not used:
        return ""
    shown = ", ".join(f"({a}, {b})" for a, b in used)
    return f" Caution: cell{'s' if len(used) > 1 else ''} {shown} rest{'' if len(used) > 1 else 's'} on little data."


def adjust_name(adjust: str) -> str:
    """How an adjustment is named in a sentence ("Holm-adjusted")."""
    return {"holm": "Holm-adjusted", "bh": "BH-adjusted", "bonferroni": "Bonferroni-adjusted", "none": "unadjusted"}[
        adjust
    ]


def _within_sentence(reader: _Reader, row: pd.Series, adjust: str) -> str:
    a, b = row["a"], row["b"]
    kind = "AUC" if _is_binary(reader.result) else "concordance"
    interval = interval_text(row["ci_low"] * 100, row["ci_high"] * 100, digits=1)
    text = (f"Largest within-group difference: {kind} inside {a} {reader.cell(a, a)} against inside {b} "
            f"{reader.cell(b, b)}; Δwithin({a}, {b}) = {_points(row['value'])}")
    if interval != "–":
        text += f" {interval}, {adjust_name(adjust)} {reader.p(row['p_adjusted'])}; {_excludes_zero(row)}"
    return text + "."


def _worst_sentence(reader: _Reader, flagged: set) -> str | None:
    values = reader.values
    if not np.isfinite(values).any():
        return None
    flat = int(np.nanargmin(values))
    g = values.shape[0]
    a, b = reader.result.groups[flat // g], reader.result.groups[flat % g]
    return (f"Worst-served cell ({a}, {b}): {_cell_words(reader.result, a, b)} only {reader.cell(a, b)} of the "
            f"time.{_caution(flagged, [(a, b)])}")


def _tests_sentence(deltas: pd.DataFrame, omnibus: OmnibusTest, adjust: str, level: str) -> str | None:
    between = deltas[(deltas["summary"] == "delta_between") & deltas["value"].notna()]
    if between.empty or between["ci_low"].isna().all():
        return None
    excluded = int(((between["ci_low"] > 0) | (between["ci_high"] < 0)).sum())
    significant = int((between["p_adjusted"] < 0.05).sum())
    one = len(between) == 1
    text = (f"{excluded} of {len(between)} between-group difference{'' if one else 's'} "
            f"{'has a' if one else 'have'} {level} interval{'' if one else 's'} excluding 0 "
            f"({significant} with {adjust_name(adjust)} p < 0.05)")
    if omnibus.source == NOT_COMPUTED:
        text += (f"; the joint test is not computed for {omnibus.n_contrasts:,} contrasts (more than "
                 f"{JOINT_TEST_LIMIT:,}, or more than memory allows): read the adjusted pairwise p-values")
    elif math.isfinite(omnibus.p_value):
        p = p_value_text(omnibus.p_value)
        text += (f"; joint test of no cross-group asymmetry: chi-square({omnibus.df}) = {omnibus.statistic:.2f}, "
                 f"p {p if p[0] == '<' else '= ' + p}")
    return text + "."


def _flags_sentence(flags: pd.DataFrame, min_events: int, min_pairs: int) -> str | None:
    flagged = flags[flags["flagged"]]
    if flagged.empty:
        return None
    shown = "; ".join(f"({r.a}, {r.b}): {r.reason}" for r in flagged.head(5).itertuples())
    more = f"; and {len(flagged) - 5} more" if len(flagged) > 5 else ""
    units = "positives or negatives" if "controls" in flags.columns else "events"
    return (f"{len(flagged)} of {len(flags)} cells rest on little data (fewer than {min_events} {units} or "
            f"{min_pairs} comparable pairs): {shown}{more}. The {SMALL_CELL_COVERAGE_NOTE}.")


def findings(
    result: Any, *, adjust: str = "holm", min_events: int = 10, min_pairs: int = 100
) -> Findings:
    """The plain-language summary of an audit, generated from the result.

    Parameters
    ----------
    result : XCIResult or XAUCResult
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Adjustment of the p-values within each family (all Δbetween pairs; all Δwithin pairs).
    min_events, min_pairs : int, default=10 and 100
        Thresholds of :func:`small_sample_flags`.

    Returns
    -------
    Findings
        Sentences, most important first: the pooled concordance; the largest cross-group
        asymmetry (both directions in words, Δbetween with interval and adjusted p-value, and
        which group it disadvantages); the worst-served cell; the largest within-group
        difference; how many intervals exclude 0 and the joint test; flagged cells.

    Raises
    ------
    ValueError
        For an unknown ``adjust``; TypeError/ValueError for invalid thresholds.

    See Also
    --------
    survfair.pairwise_deltas, survfair.omnibus_test, small_sample_flags

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive", ci=None)
    >>> print(findings(res).sentences[1])  # doctest: +NORMALIZE_WHITESPACE
    Largest cross-group asymmetry, a vs b: when a member of a had the event first, the model ranked
    them above the member of b 80.0% of the time; when a member of b had the event first, 66.7%.
    Δbetween(a, b) = +13.3 points. Without an interval chance cannot be ruled out; the direction points to:
    members of b who had the event first were ranked correctly less often; if a higher score means earlier
    care, b is the disadvantaged group in this pair. Caution: cells (a, b), (b, a) rest on little data.
    """
    check_option(adjust, "adjust", tuple(ADJUSTMENTS))
    flags = small_sample_flags(result, min_events=min_events, min_pairs=min_pairs)
    reader = _Reader(result)
    flagged = flagged_cells(flags)
    deltas = _adjusted(pairwise_deltas(result), adjust)
    omnibus = joint_test(result, "no_asymmetry")
    pooled = overall_c(result)
    name = "AUC" if _is_binary(result) else "concordance (C)"
    interval = interval_text(*pooled.confidence_interval, as_percent=True)
    sentences = [f"Pooled {name}: {percent(pooled.value)}" + ("" if interval == "–" else f" {interval}") + "."]
    between = _largest(deltas, "delta_between")
    if between is not None:
        sentences.append(_asymmetry_sentence(reader, between, adjust, flagged))
    worst = _worst_sentence(reader, flagged)
    if worst is not None and len(result.groups) > 1:
        sentences.append(worst)
    within = _largest(deltas, "delta_within")
    if within is not None:
        sentences.append(_within_sentence(reader, within, adjust))
    for extra in (_tests_sentence(deltas, omnibus, adjust, reader.level), _flags_sentence(flags, min_events, min_pairs)):
        if extra is not None:
            sentences.append(extra)
    return Findings(tuple(sentences), deltas, omnibus, flags, adjust)
