"""Findings of AUC(t) horizons (:class:`survfair.XAUCtResult`): flags, adjusted
differences, sentences.

The same treatment as the findings of an xCI or xAUC matrix
(:mod:`survfair._present.findings.ranking`): cells that rest on few cases, few controls or few
pairs, or have standard error 0, are flagged with the reason; the differences of every pair at every
horizon are adjusted together, one family per summary (all Δbetween; all Δwithin); the sentences are
generated from the result.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from ..._binary.xauc_t import case_control_definition
from ..._core.frozen import frozen_result
from ..._core.intervals import NO_VARIANCE_SE
from ..._core.multiplicity import ADJUSTMENTS, adjust_p_values
from ..._core.options import check_option, check_scalar
from ..._core.results import json_safe
from ..format import cell_text
from .ranking import (
    _ONE_CELL,
    SMALL_CELL_COVERAGE_NOTE,
    _count,
    _judgement,
    _no_variance,
    _not_confirmed,
    absence_words,
    adjust_name,
    caution_text,
    difference_text,
    largest_delta,
)

__all__ = ["HorizonFindings", "horizon_findings", "horizon_flags", "horizon_text"]


def horizon_text(time: float, time_unit: str | None = None) -> str:
    """``"t = 1,000 days"``: a horizon with its unit."""
    return f"t = {time:,g}" + (f" {time_unit}" if time_unit else "")


def horizon_flags(result: Any, *, min_events: int = 10, min_pairs: int = 100) -> pd.DataFrame:
    """AUC(t) cells that rest on little data, or have no estimate of their variability,
    with the reason.

    Parameters
    ----------
    result : XAUCtResult
    min_events : int, default=10
        A cell (t, a, b) is flagged when group ``a`` has fewer cases or group ``b`` fewer
        controls (as the result defines them: :func:`survfair.xauc_t`'s ``cause`` and ``controls``).
    min_pairs : int, default=100
        ... or when the cell has fewer case-control pairs.

    Returns
    -------
    DataFrame
        One row per row of ``result.to_frame()``: time, a, b, cases, controls, pairs,
        no_variance (standard error 0), flagged, reason.
    """
    min_events = check_scalar(min_events, "min_events", "integer", low=0)
    min_pairs = check_scalar(min_pairs, "min_pairs", "integer", low=0)
    frame = result.to_frame()
    rows = []
    for row in frame.itertuples(index=False):
        reasons = []
        if row.cases < min_events:
            reasons.append(f"{_count(int(row.cases), 'case')} in {row.a} (< {min_events})")
        if row.controls < min_events:
            reasons.append(f"{_count(int(row.controls), 'control')} in {row.b} (< {min_events})")
        if row.pairs < min_pairs:
            reasons.append(f"{_count(int(row.pairs), 'pair')} (< {min_pairs})")
        no_variance = bool(np.isfinite(row.xauc) and row.se <= NO_VARIANCE_SE)
        if no_variance:
            reasons.append(
                f"estimated at {100 * row.xauc:.1f}%, standard error 0 (no variance estimate)"
            )
        rows.append(
            {
                "time": row.time,
                "a": row.a,
                "b": row.b,
                "cases": int(row.cases),
                "controls": int(row.controls),
                "pairs": int(row.pairs),
                "no_variance": no_variance,
                "flagged": bool(reasons),
                "reason": "; ".join(reasons),
            }
        )
    return pd.DataFrame(rows)


@frozen_result
class HorizonFindings:
    """Result of :func:`horizon_findings`.

    Attributes
    ----------
    sentences : tuple of str
    deltas : DataFrame
        :meth:`XAUCtResult.pairwise_deltas` with ``p_adjusted`` (one family per summary, over every
        horizon and pair), ``flagged`` (one of its two cells is flagged) and ``no_variance_cell``
        (one of them has standard error 0).
    flags : DataFrame
        :func:`horizon_flags`.
    adjust : str
    """

    sentences: tuple
    deltas: pd.DataFrame = field(repr=False)
    flags: pd.DataFrame = field(repr=False)
    adjust: str = "holm"

    def to_text(self) -> str:
        """The sentences as a bulleted plain-text block."""
        return "\n".join(f"- {s}" for s in self.sentences)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: sentences, adjusted differences, flagged cells."""
        return json_safe(
            {
                "sentences": list(self.sentences),
                "adjust": self.adjust,
                "deltas": self.deltas.to_dict(orient="records"),
                "flagged_cells": self.flags[self.flags["flagged"]].to_dict(orient="records"),
            }
        )


def _adjusted(deltas: pd.DataFrame, method: str, flags: pd.DataFrame) -> pd.DataFrame:
    deltas = deltas.copy()
    deltas["p_adjusted"] = np.nan
    for _, part in deltas.groupby("summary", sort=False):
        deltas.loc[part.index, "p_adjusted"] = adjust_p_values(
            part["p_value"].to_numpy(), adjust=method
        )
    flagged = {(r.time, r.a, r.b) for r in flags.itertuples() if r.flagged}
    no_variance = {(r.time, r.a, r.b) for r in flags.itertuples() if r.no_variance}
    cells = [
        ((r.time, r.a, r.a), (r.time, r.b, r.b))
        if r.summary == "delta_within"
        else ((r.time, r.a, r.b), (r.time, r.b, r.a))
        for r in deltas.itertuples()
    ]
    deltas["flagged"] = [first in flagged or second in flagged for first, second in cells]
    deltas["no_variance_cell"] = [
        first in no_variance or second in no_variance for first, second in cells
    ]
    return deltas


class _Horizon:
    """The cells of one horizon, worded."""

    def __init__(self, result: Any, flags: pd.DataFrame, time: float):
        self.frame = result.to_frame().set_index(["time", "a", "b"]).loc[time]
        self.flags = flags[flags["time"] == time].set_index(["a", "b"])
        self.level = result.confidence_level

    def cell(self, a: Any, b: Any) -> str:
        row = self.frame.loc[(a, b)]
        return cell_text(
            row["xauc"], row["ci_low"], row["ci_high"], bool(self.flags.loc[(a, b), "no_variance"])
        )

    def caution(self, cells: list) -> str:
        reasons = {cell: row["reason"] for cell, row in self.flags.iterrows() if row["flagged"]}
        return caution_text(reasons, cells)


def _horizon_sentence(
    result: Any,
    deltas: pd.DataFrame,
    flags: pd.DataFrame,
    time: float,
    adjust: str,
    time_unit: str | None,
    margin: float = 0.05,
) -> str | None:
    row = largest_delta(deltas[deltas["time"] == time], "delta_between")
    if row is None:
        return None
    a, b = row["a"], row["b"]  # the group order (issue 41); the words name the favoured group
    first, second = (a, b) if row["value"] >= 0 else (b, a)
    cells = _Horizon(result, flags, time)
    alpha = 1 - result.confidence_level
    consequence = (
        f"cases of {second} were ranked above controls of {first} less often than the reverse at "
        f"this horizon; this alone does not show that the model treats {second} worse: part or "
        "all of it can come from the groups' different risks"
    )
    words = {
        "clear": f"In words: {consequence}.",
        "not adjusted": _not_confirmed(alpha, "an asymmetry between the groups"),
        "chance": absence_words(row, margin) + ".",
        "no variance": "Without a variance estimate chance cannot be ruled out; the direction "
        f"points to: {consequence}.",
        "one cell without variance": f"{_ONE_CELL}; the direction points to: {consequence}.",
        "no interval": "Without an interval chance cannot be ruled out; the direction points "
        f"to: {consequence}.",
    }[_judgement(row, alpha)]
    cases, controls = case_control_definition(result)
    return (
        f"AUC(t) at {horizon_text(time, time_unit)}, largest cross-group asymmetry, {a} vs {b}: a "
        f"case of {a} ({cases}) was ranked above a control of {b} ({controls}) {cells.cell(a, b)} "
        f"of the time; a case of {b} above a control of {a} {cells.cell(b, a)}. "
        f"{difference_text(row, adjust)}. {words}{cells.caution([(a, b), (b, a)])}"
    )


def _count_sentence(deltas: pd.DataFrame, adjust: str, result: Any) -> str | None:
    between = deltas[(deltas["summary"] == "delta_between") & deltas["value"].notna()]
    if len(between):  # as in the joint test: not the differences using a cell with standard error 0
        between = between[
            ~(between.apply(_no_variance, axis=1) | between.get("no_variance_cell", False))
        ]
    if between.empty or between["ci_low"].isna().all():
        return None
    alpha = 1 - result.confidence_level
    excluded = int(((between["ci_low"] > 0) | (between["ci_high"] < 0)).sum())
    significant = int((between["p_adjusted"] < alpha).sum())
    return (
        f"AUC(t): {excluded} of {len(between)} between-group differences over {len(result.times)} "
        f"horizon{'s' if len(result.times) > 1 else ''} have {100 * result.confidence_level:g}% "
        f"intervals excluding 0 ({significant} with {adjust_name(adjust)} p < {alpha:g}, adjusted "
        "over every horizon and pair together)."
    )


def _flags_sentence(flags: pd.DataFrame, min_events: int, min_pairs: int) -> str | None:
    flagged = flags[flags["flagged"]]
    if flagged.empty:
        return None
    return (
        f"AUC(t): {len(flagged)} of {len(flags)} cells rest on little data (fewer than "
        f"{min_events} cases in the row group or controls in the column group, or {min_pairs} "
        "pairs) or have standard error 0; † marks them in the AUC(t) tables. The "
        f"{SMALL_CELL_COVERAGE_NOTE}."
    )


def horizon_findings(
    result: Any,
    *,
    adjust: str = "holm",
    min_events: int = 10,
    min_pairs: int = 100,
    time_unit: str | None = None,
    margin: float = 0.05,
) -> HorizonFindings:
    """The plain-language summary of AUC(t) horizons, generated from the result.

    Parameters
    ----------
    result : XAUCtResult
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Adjustment of the p-values of the differences, one family per summary over every horizon
        and pair (they are printed together).
    min_events, min_pairs : int, default=10 and 100
        Thresholds of :func:`horizon_flags`.
    time_unit : str, optional
        Unit of the horizons in the sentences (e.g. "days").
    margin : float, default=0.05
        Equivalence margin, as in :func:`survfair.findings`: a difference is called absent only
        when its interval lies inside ±margin.

    Returns
    -------
    HorizonFindings
        Per horizon the largest cross-group asymmetry (both directions in words, Δbetween with
        interval and adjusted p-value, judged as in :func:`survfair.findings`), how many
        differences exclude 0, and the flagged cells.

    Raises
    ------
    ValueError
        For an unknown ``adjust``; TypeError/ValueError for invalid thresholds.
    """
    check_option(adjust, "adjust", tuple(ADJUSTMENTS))
    margin = check_scalar(margin, "margin", "real", low=0, high=1, closed="neither")
    flags = horizon_flags(result, min_events=min_events, min_pairs=min_pairs)
    deltas = _adjusted(result.pairwise_deltas(), adjust, flags)
    sentences = [
        _horizon_sentence(result, deltas, flags, float(t), adjust, time_unit, margin)
        for t in result.times
    ]
    sentences += [
        _count_sentence(deltas, adjust, result),
        _flags_sentence(flags, min_events, min_pairs),
    ]
    return HorizonFindings(tuple(s for s in sentences if s is not None), deltas, flags, adjust)
