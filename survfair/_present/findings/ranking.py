"""Findings in words: the plain-language summary that opens every report and CLI table output.

Sentences are generated from the result objects (never written per dataset) and follow the
matrix convention: for xCI, cell (a, b) is "when a member of a had the event first, the model
ranked them above the member of b"; for xAUC, "a positive of a was scored above a negative of b".
Small cells are flagged with the reason, and every family of p-values is adjusted together.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from ..._binary.xauc import XAUCResult
from ..._calibration.result import CalibrationResult
from ..._core.exceptions import InvalidParameterError, MemoryLimitError
from ..._core.frozen import frozen_result
from ..._core.groups import label_array
from ..._core.intervals import NO_VARIANCE_SE
from ..._core.multiplicity import (
    ADJUSTMENTS,
    OmnibusTest,
    adjust_p_values,
    n_contrasts,
    omnibus_test,
)
from ..._core.options import OptionTable, instance_of, integer, one_of, real
from ..._core.results import (
    INTERVAL_MIN_EVENTS,
    XCIResult,
    cell_support,
    difference_inference,
    difference_p_at_floor,
    json_safe,
    no_variance_cells,
    small_sample_rules,
)
from ..._models.model_based_result import ModelBasedResult
from ..._xci.summaries import deltas_p_at_floor, difference_cell_pairs, overall_c, pairwise_deltas
from ..format import cell_text, interval_text, p_phrase, percent, statistic_text
from .assumptions import (
    DEFAULT_MARGIN,
    CalibrationCheck,
    adjust_name,
    agreement_problem,
    allowance,
    check_calibration,
    equivalent,
)

__all__ = [
    "Findings",
    "findings",
    "small_sample_flags",
    "flag_reasons",
    "joint_tests",
    "censoring_sentence",
    "SMALL_CELL_COVERAGE_NOTE",
]

#: what a flagged cell's interval may do, as measured by benchmarks/interval_study.py (issue 33.2;
#: benchmarks/results/interval_study.csv): the worst coverage of the analytic intervals there
SMALL_CELL_COVERAGE_NOTE = (
    "intervals of such cells can be too narrow: with fewer than 35 events in one of a cell's two "
    "groups, nominal 95% analytic intervals covered as little as 90% of the time in simulation "
    "(a Δbetween 88%, where one group of 35 people had 9 events)"
)


#: what to do about a cell flagged by the interval rule (what the study supports)
INTERVAL_ADVICE = "interval may be too narrow: merge small groups or collect more events"


def _is_binary(result: Any) -> bool:
    return hasattr(result, "positive")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


#: The scalar options of :func:`small_sample_flags`.
_FLAGS_OPTIONS = OptionTable(
    "small_sample_flags",
    min_events=integer(low=0),
    min_pairs=integer(low=0),
    min_interval_events=integer(low=0),
)


def small_sample_flags(
    result: Any,
    *,
    min_events: int = 10,
    min_pairs: int = 100,
    min_interval_events: int = INTERVAL_MIN_EVENTS,
) -> pd.DataFrame:
    """Cells that rest on little data, or have no estimate of their variability, or whose interval
    may be too narrow, with the reason.

    Parameters
    ----------
    result : XCIResult or XAUCResult
    min_events : int, default=10
        A cell (a, b) of an xCI matrix is flagged when its row group ``a`` (whose member has the
        event first) has fewer events, or its column group ``b`` (where the later member of each
        pair comes from) fewer members; a cell of an xAUC matrix when group ``a`` has fewer
        positives or group ``b`` fewer negatives.
    min_pairs : int, default=100
        ... or when the cell has fewer comparable pairs.
    min_interval_events : int, default=35
        ... or, for an xCI result with intervals, when ``a`` or ``b`` has fewer events: the interval
        of such a cell may be too narrow (column ``narrow_interval``). The default comes from the
        interval study of issue 33.2 (see Notes).

    Returns
    -------
    DataFrame
        One row per cell (row-major): a, b, comparable, events (xCI: events in ``a``; xAUC:
        positives in ``a``), controls (xCI: members of ``b``; xAUC: negatives in ``b``),
        no_variance (the cell's standard error is 0, see Notes), narrow_interval (the interval rule
        applies), flagged (bool), reason (empty when not flagged; says what to do when the interval
        rule applies).

    Raises
    ------
    InvalidParameterError
        If ``min_events``, ``min_pairs`` or ``min_interval_events`` is not an integer >= 0.

    See Also
    --------
    findings : uses the flags to qualify its sentences.
    xci : the counts the flags are read from.

    Notes
    -----
    A cell whose standard error is 0 is flagged whatever its counts: every comparable pair was
    ranked the same way (the cell is estimated at exactly 0% or 100%), or the influence of its few
    members cancels. Its interval then has width 0, which says nothing about precision: the
    sampling variability is not estimated, not absent. (Without inference no cell has a standard
    error and this reason never applies.)

    The interval rule (xCI only) is calibrated on ``benchmarks/interval_study.py``: in every design
    where survfair's analytic interval of a cell or of a Δbetween covered below 93% (down to 88%),
    one of the cell's groups had fewer than 35 events; where both had 35 or more, every cell and
    Δbetween covered 93% or more (docs/how-to/intervals.md has the table).

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> flags = small_sample_flags(res)
    >>> bool(flags["flagged"].all()), flags["reason"][0]  # cell (a, a): every pair ranked correctly
    (True, '4 events in a (< 10); 4 members in a (< 10); 6 comparable pairs (< 100); estimated \
at 100.0%, standard error 0 (no variance estimate); interval may be too narrow: merge small groups \
or collect more events')
    """
    options = _FLAGS_OPTIONS.check(locals())
    min_events, min_pairs = options["min_events"], options["min_pairs"]
    min_interval_events = options["min_interval_events"]
    groups = list(result.groups)
    g = len(groups)
    labels = label_array(groups)
    events, controls, first, second = cell_support(result)
    pairs = result.pair_counts.comparable.ravel().astype(np.int64)
    values = result.values.ravel()
    rules = small_sample_rules(result, min_events, min_pairs, min_interval_events)
    few_events, few_controls, few_pairs = (
        rules["few_events"],
        rules["few_controls"],
        rules["few_pairs"],
    )
    no_variance, flagged = rules["no_variance"], rules["flagged"]
    # a count the little-data rule names already is not repeated by the interval rule
    narrow_row, narrow_column = rules["narrow_row"], rules["narrow_column"]
    narrow = narrow_row | narrow_column
    texts = {
        # group texts (G strings each), read by the row (i) or the column (j) of a cell
        "row": [f"{_count(int(n), first)} in {a} (< {min_events})" for n, a in zip(events, groups)],
        "row_interval": [
            f"{_count(int(n), 'event')} in {a} (< {min_interval_events})"
            for n, a in zip(events, groups)
        ],
        "column": [
            f"{_count(int(n), second)} in {a} (< {min_events})" for n, a in zip(controls, groups)
        ],
    }
    texts["column_interval"] = texts["row_interval"]
    cells = np.flatnonzero(flagged)
    rows, columns = np.divmod(cells, g)
    # each reason joins, in this order, the parts whose rule applies to the cell (a count the
    # little-data rule names already is not repeated by the interval rule)
    parts = [
        (few_events[cells], "row"),
        (narrow_row[cells] & ~few_events[cells], "row_interval"),
        (few_controls[cells], "column"),
        (narrow_column[cells] & (rows != columns), "column_interval"),
        (few_pairs[cells], "pairs"),
        (no_variance[cells], "no_variance"),
        (narrow[cells], "advice"),
    ]
    per_cell = {
        "pairs": _distinct_texts(
            pairs[cells],
            parts[4][0],
            lambda k: f"{_count(int(k), 'comparable pair')} (< {min_pairs})",
        ),
        "no_variance": _distinct_texts(
            values[cells],
            parts[5][0],
            lambda v: f"estimated at {percent(v)}, standard error 0 (no variance estimate)",
        ),
    }
    reasons = np.full(g * g, "", dtype=object)
    reasons[cells] = _joined_reasons(parts, texts, per_cell, rows, columns)
    return pd.DataFrame(
        {
            "a": np.repeat(labels, g),
            "b": np.tile(labels, g),
            "comparable": pairs,
            "events": np.repeat(events, g),
            "controls": np.tile(controls, g),
            "no_variance": no_variance,
            "narrow_interval": narrow,
            "flagged": flagged,
            "reason": reasons,
        }
    )


def _joined_reasons(
    parts: list, texts: dict, per_cell: dict, rows: np.ndarray, columns: np.ndarray
) -> np.ndarray:
    """The reason of each flagged cell: the texts of the parts that apply, joined by "; ".

    ``parts`` lists (applies, kind) in the order of the reason, ``applies`` one bool per flagged
    cell; ``texts`` holds the texts per group of the kinds read by the cell's row group (``rows``)
    or column group (``columns``), ``per_cell`` those of the cells as (table of distinct texts,
    each cell's position in it); the kind "advice" is :data:`INTERVAL_ADVICE`. The cells are
    grouped by which parts apply (a few patterns). Within a pattern the texts are joined per
    group or per distinct text where they can be (consecutive parts read by the same group, the
    advice after them, the separator before them), and the cells' reasons are the remaining
    segments added as object arrays: one or two additions per cell, where a Python string
    formatted per cell of 4 million took minutes at 2,000 groups.
    """
    pattern = np.zeros(rows.shape[0], dtype=np.int64)
    for bit, (applies, _) in enumerate(parts):
        pattern |= np.asarray(applies, dtype=np.int64) << bit
    read_by = {"row": rows, "column": columns}
    out = np.full(rows.shape[0], "", dtype=object)
    for code in np.unique(pattern[pattern > 0]):
        which = np.flatnonzero(pattern == code)
        # each segment: [what reads it ("row", "column", a kind of per_cell, "all"), its table]
        segments: list = []
        for bit, (_, kind) in enumerate(parts):
            if not code >> bit & 1:
                continue
            if kind == "advice":
                by, table = "all", INTERVAL_ADVICE
            elif kind in per_cell:
                by, table = kind, per_cell[kind][0]
            else:
                by, table = kind.split("_")[0], np.array(texts[kind], dtype=object)
            last = segments[-1] if segments else None
            if last is not None and by in (last[0], "all"):
                last[1] = last[1] + "; " + table  # per group or distinct text: cheap
            else:
                segments.append([by, table if last is None else "; " + table])
        joined = None
        for by, table in segments:
            if by != "all":  # the texts at each cell's group, or each cell's own text
                table = table[read_by[by][which] if by in read_by else per_cell[by][1][which]]
            joined = table if joined is None else joined + table
        out[which] = joined
    return out


def _distinct_texts(numbers: np.ndarray, used: np.ndarray, text: Any) -> tuple:
    """(table, position): ``text(x)`` of each distinct number of ``numbers`` where ``used``, and
    each number's row in the table (-1 where not used), so that each text is formatted once."""
    position = np.full(numbers.shape[0], -1, dtype=np.intp)
    chosen = np.flatnonzero(used)
    distinct, inverse = np.unique(numbers[chosen], return_inverse=True)
    position[chosen] = inverse.reshape(-1)
    return np.array([text(x) for x in distinct], dtype=object), position


_REASON_KINDS = (
    (
        re.compile(r"^\d+ (event|member|positive|negative)s? in .* \(< (\d+)\)$"),
        "< {1} {0}s in {side}",
    ),
    (re.compile(r"^\d+ comparable pairs? \(< (\d+)\)$"), "< {0} comparable pairs"),
    (re.compile(r"^estimated at .*, standard error 0"), "standard error 0 (no variance estimate)"),
)


def flag_reasons(flags: pd.DataFrame) -> str:
    """Why the cells of a :func:`small_sample_flags` table are flagged, in general terms: the
    distinct rules that apply, e.g. ``"< 10 events in a, < 10 members in b, standard error 0 (no
    variance estimate)"`` (a = the row group, b = the column group); "" when nothing is flagged.
    Flagged cells without a reason (a table made by hand) give "flagged in the given table".

    >>> import pandas as pd
    >>> flag_reasons(pd.DataFrame({"flagged": [True, True], "reason": [
    ...     "4 events in F|75+ (< 10); 6 comparable pairs (< 100)", "4 members in F|75+ (< 10)"]}))
    '< 10 events in a, < 10 members in b, < 100 comparable pairs'
    """
    reasons = flags.loc[flags["flagged"], "reason"] if "reason" in flags.columns else []
    # each distinct fragment once, in the order of first appearance: the 4 million flagged cells
    # of 2,000 groups have 9 million fragments but a few thousand distinct ones (62 s -> 4 s)
    fragments = dict.fromkeys(
        fragment for reason in reasons for fragment in str(reason).split("; ") if fragment
    )
    kinds = [_reason_kind(fragment) for fragment in fragments]
    if kinds:  # in the order of the rules: row group, column group, pairs, standard error 0
        order = ("in a", "in b", "pairs", "standard error")
        rank = {
            kind: next((k for k, word in enumerate(order) if word in kind), len(order))
            for kind in kinds
        }
        return ", ".join(sorted(dict.fromkeys(kinds), key=rank.get))
    return "flagged in the given table" if flags["flagged"].any() else ""


def _reason_kind(fragment: str) -> str:
    for pattern, words in _REASON_KINDS:
        found = pattern.match(fragment)
        if found:
            kind = found.groups()[0] if found.groups() else ""
            return words.format(*found.groups(), side="a" if kind in ("event", "positive") else "b")
    return fragment


#: The findings and the report compute a joint test of at most this many contrasts: its covariance
#: is K x K and its eigen-decomposition O(K^3) (about a second at K = 2,000; 500 groups have
#: 124,750 asymmetries). Above it the adjusted pairwise p-values stand alone.
JOINT_TEST_LIMIT = 2000
NOT_COMPUTED = "not computed"
#: Above this many groups the findings summarise (issue 33.8): every difference's value is computed
#: (G^2 numbers), but intervals and p-values only for the SUMMARISED_PAIRS largest of each family,
#: adjusted by Bonferroni over every pair of the family (an upper bound on the Holm or BH adjusted
#: p-value of the same difference), and no joint test. Inference for every pair of 2,000 groups (4
#: million differences, each a sum over the n influence rows) gave no result in 15 minutes.
SUMMARISED_GROUPS = 200
SUMMARISED_PAIRS = 5


def joint_test(result: Any, hypothesis: str) -> OmnibusTest:
    """:func:`survfair.omnibus_test`, or an OmnibusTest with ``source="not computed"`` (and NaN
    statistic) for one group, more than :data:`JOINT_TEST_LIMIT` contrasts or
    :data:`SUMMARISED_GROUPS` groups, or not enough memory."""
    g = len(result.groups)
    k = n_contrasts(g, hypothesis)
    if g < 2:
        return OmnibusTest(hypothesis, np.nan, 0, np.nan, 0, 0, "none")
    if k <= JOINT_TEST_LIMIT and g <= SUMMARISED_GROUPS:
        try:
            return omnibus_test(result, hypothesis=hypothesis)
        except MemoryLimitError:
            pass
    return OmnibusTest(hypothesis, np.nan, 0, np.nan, k, 0, NOT_COMPUTED)


def flagged_cells(flags: pd.DataFrame) -> set:
    """The (a, b) cells a :func:`small_sample_flags` table marks."""
    marked = flags["flagged"].to_numpy(dtype=bool)
    return set(
        zip(flags["a"].to_numpy(dtype=object)[marked], flags["b"].to_numpy(dtype=object)[marked])
    )


class _CellRows:
    """The row of each cell (a, b) in a :func:`small_sample_flags` table, without a dictionary of
    its G^2 cells: the table lists them row-major (a = each group G times, b the groups in turn),
    so the row is a's position times G plus b's. A table in another order is indexed by label."""

    def __init__(self, flags: pd.DataFrame):
        a, b = flags["a"].to_numpy(dtype=object), flags["b"].to_numpy(dtype=object)
        g = math.isqrt(len(flags))
        labels = b[:g]
        self.position = {label: k for k, label in enumerate(labels)}
        self.g = g
        self.by_cell = None
        if not (
            g * g == len(flags)
            and len(self.position) == g
            and np.array_equal(a, np.repeat(labels, g))
            and np.array_equal(b, np.tile(labels, g))
        ):
            self.by_cell = {cell: k for k, cell in enumerate(zip(a, b))}

    def row(self, cell: tuple) -> int | None:
        """The table's row of ``cell`` = (a, b), None if the table has no such cell."""
        if self.by_cell is not None:
            return self.by_cell.get(cell)
        try:
            i, j = self.position.get(cell[0]), self.position.get(cell[1])
        except TypeError:  # an unhashable label is no group
            return None
        return None if i is None or j is None else i * self.g + j


class _FlaggedReasons(Mapping):
    """The reason of each flagged cell, read as ``reasons[(a, b)]`` (``cell in reasons``: the cell
    is flagged) from the table's columns, not from a dictionary built for every cell."""

    def __init__(self, flags: pd.DataFrame):
        self.rows = _CellRows(flags)
        self.flagged = flags["flagged"].to_numpy(dtype=bool)
        self.reason = flags["reason"].to_numpy(dtype=object)
        self.cells = (flags["a"].to_numpy(dtype=object), flags["b"].to_numpy(dtype=object))

    def _flagged_row(self, cell: Any) -> int | None:
        k = self.rows.row(cell) if isinstance(cell, tuple) and len(cell) == 2 else None
        return k if k is not None and self.flagged[k] else None

    def __getitem__(self, cell: Any) -> str:
        k = self._flagged_row(cell)
        if k is None:
            raise KeyError(cell)
        return self.reason[k]

    def __contains__(self, cell: Any) -> bool:
        return self._flagged_row(cell) is not None

    def __iter__(self):
        for k in np.flatnonzero(self.flagged):
            yield self.cells[0][k], self.cells[1][k]

    def __len__(self) -> int:
        return int(self.flagged.sum())


@frozen_result
class Findings:
    """Result of :func:`findings`: sentences for a reader, and the numbers behind them.

    Attributes
    ----------
    sentences : tuple of str
        The summary, most important first.
    deltas : DataFrame
        :func:`survfair.pairwise_deltas` with ``p_adjusted`` (adjusted within each summary family),
        ``p_at_floor`` (the p-value is a bootstrap resolution bound, shown as "<=":
        :func:`survfair._xci.summaries.deltas_p_at_floor`), ``flagged`` (one of its two cells is
        flagged by :func:`small_sample_flags`) and ``no_variance_cell`` (one of them has standard
        error 0).
    omnibus : OmnibusTest
        Joint test of no cross-group asymmetry.
    flags : DataFrame
        :func:`small_sample_flags`.
    adjust : str
        The p-value adjustment used ("bonferroni" when summarised).
    summarised : bool
        More than :data:`SUMMARISED_GROUPS` groups: :attr:`deltas` holds only the largest
        differences of each family, their p-values adjusted by Bonferroni over every pair.
    excess : DataFrame or None
        With a model-based reference: its Δbetween rows (:meth:`ModelBasedResult.summaries`:
        observed, model_based, excess with se, ci_low, ci_high, p_value) with ``p_adjusted`` within
        the family of excess asymmetries. None without a reference.
    margin : float
        The equivalence margin: a difference is called absent only when its interval lies inside
        ±margin.
    calibration_status : {"unchecked", "rejected", "not rejected"} or None
        With a reference: whether the calibration its reading assumes was tested
        (``calibration=``) and what the test found. None without a reference.

    See Also
    --------
    findings : computes it.
    """

    sentences: tuple
    deltas: pd.DataFrame = field(repr=False)
    omnibus: OmnibusTest = field(repr=False)
    flags: pd.DataFrame = field(repr=False)
    adjust: str = "holm"
    summarised: bool = False
    excess: pd.DataFrame | None = field(repr=False, default=None)
    margin: float = DEFAULT_MARGIN
    calibration_status: str | None = None

    @property
    def flagged_cells(self) -> set:
        """The (a, b) cells that :attr:`flags` marks."""
        return flagged_cells(self.flags)

    def to_text(self) -> str:
        """The sentences as a bulleted plain-text block."""
        return "\n".join(f"- {s}" for s in self.sentences)

    def to_dict(self, *, flagged_cells: bool = True) -> dict:
        """JSON-safe dictionary: sentences, adjusted deltas, the omnibus test and the
        flagged cells.

        Parameters
        ----------
        flagged_cells : bool, default=True
            Whether to list the flagged cells, one dictionary per row of :attr:`flags` that is
            flagged. False leaves ``"flagged_cells"`` None, for many groups (every one of the 4
            million cells of 2,000 groups may be flagged): read them from
            ``flags[flags["flagged"]]`` (``survfair audit --format json`` writes them from it
            row by row).

        Returns
        -------
        dict
            sentences, adjust, summarised, deltas, omnibus, excess, margin, calibration_status
            and flagged_cells.

        Examples
        --------
        >>> import survfair
        >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0],
        ...                    list("abababab"), [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
        >>> found = survfair.findings(res)
        >>> full = found.to_dict()
        >>> len(full["flagged_cells"]) == int(found.flags["flagged"].sum())
        True
        >>> found.to_dict(flagged_cells=False) == {**full, "flagged_cells": None}
        True
        """
        records = None
        if flagged_cells:
            records = self.flags[self.flags["flagged"]].to_dict(orient="records")
        return json_safe(
            {
                "sentences": list(self.sentences),
                "adjust": self.adjust,
                "summarised": self.summarised,
                "deltas": self.deltas.to_dict(orient="records"),
                "omnibus": self.omnibus.to_dict(),
                "excess": None if self.excess is None else self.excess.to_dict(orient="records"),
                "margin": self.margin,
                "calibration_status": self.calibration_status,
                "flagged_cells": records,
            }
        )

    def to_frame(self) -> pd.DataFrame:
        """The differences the sentences are read from (a copy of :attr:`deltas`); the sentences
        themselves are :attr:`sentences` and :meth:`to_text`."""
        return self.deltas.copy()

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        import html

        return "<ul>" + "".join(f"<li>{html.escape(s)}</li>" for s in self.sentences) + "</ul>"


def _adjusted(result: Any, deltas: pd.DataFrame, method: str, flags: pd.DataFrame) -> pd.DataFrame:
    """The deltas with ``p_adjusted`` (within each family), ``p_at_floor``, ``flagged`` and
    ``no_variance_cell``."""
    deltas = deltas.copy()
    deltas["p_adjusted"] = np.nan
    for summary, part in deltas.groupby("summary", sort=False):
        deltas.loc[part.index, "p_adjusted"] = adjust_p_values(
            part["p_value"].to_numpy(), adjust=method
        )
    deltas["p_at_floor"] = deltas_p_at_floor(result)
    _mark_cells(deltas, flags)
    return deltas


def _largest_deltas(result: Any, flags: pd.DataFrame, k: int) -> pd.DataFrame:
    """The ``k`` largest |Δwithin| and |Δbetween| with their inference, as rows of
    :func:`_adjusted`, their p-values adjusted by Bonferroni over every pair of their family."""
    g = len(result.groups)
    cells = result.values.ravel()
    a, b = np.triu_indices(g, k=1)  # the pairs of difference_cell_pairs, in its order
    labels = label_array(result.groups)
    parts = []
    for name, first, second in difference_cell_pairs(g):
        size = np.abs(cells[first] - cells[second])
        size[~np.isfinite(size)] = -1.0
        chosen = np.sort(np.argsort(-size, kind="stable")[:k])
        values, se, low, high, p = difference_inference(
            result, first[chosen], second[chosen], result.confidence_level
        )
        parts.append(
            pd.DataFrame(
                {
                    "summary": name,
                    "a": labels[a[chosen]],
                    "b": labels[b[chosen]],
                    "value": values,
                    "se": se,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p,
                    "p_adjusted": np.minimum(1.0, p * first.shape[0]),
                    "p_at_floor": difference_p_at_floor(result, first[chosen], second[chosen]),
                }
            )
        )
    deltas = pd.concat(parts, ignore_index=True)
    _mark_cells(deltas, flags)
    return deltas


def _mark_cells(deltas: pd.DataFrame, flags: pd.DataFrame) -> None:
    """Columns ``flagged`` and ``no_variance_cell``: one of a difference's two cells
    is flagged / has standard error 0."""
    rows = _CellRows(flags)
    marks = {column: flags[column].to_numpy(dtype=bool) for column in ("flagged", "no_variance")}
    cells = [[rows.row(cell) for cell in _difference_cells(row)] for row in deltas.itertuples()]
    for column, name in (("flagged", "flagged"), ("no_variance", "no_variance_cell")):
        mark = marks[column]
        deltas[name] = [any(k is not None and mark[k] for k in pair) for pair in cells]


def _summary_sentence(result: Any, deltas: pd.DataFrame, reader: _Reader) -> str:
    """What a summarised audit tested and what it left out."""
    g = len(result.groups)
    pairs = g * (g - 1) // 2
    between = deltas[deltas["summary"] == "delta_between"]
    start = f"With {g:,} groups ({pairs:,} pairs) the findings summarise"
    end = (
        "the joint tests are not computed. Every cell and count is in the result (CSV or JSON "
        "output)."
    )
    if between["ci_low"].isna().all():
        return f"{start}: no intervals were computed, so no difference is tested; {end}"
    excluded = int(((between["ci_low"] > 0) | (between["ci_high"] < 0)).sum())
    significant = int((between["p_adjusted"] < reader.alpha).sum())
    return (
        f"{start}: only the {len(between)} largest asymmetries and within-group differences were "
        f"tested, with p-values adjusted by Bonferroni over all {pairs:,} pairs (a bound on any "
        f"adjustment); {excluded} of the {len(between)} largest asymmetries have a {reader.level} "
        f"interval excluding 0 ({significant} with Bonferroni-adjusted p < {reader.alpha:g}); {end}"
    )


def _difference_cells(row: Any) -> list:
    """The two cells a Δ row of :func:`survfair.pairwise_deltas` is the difference of."""
    if row.summary == "delta_within":
        return [(row.a, row.a), (row.b, row.b)]
    return [(row.a, row.b), (row.b, row.a)]


def _points(value: float) -> str:
    """A difference of two proportions in percentage points, signed."""
    return f"{100 * value:+.1f} points" if math.isfinite(value) else "undefined"


def _cell_words(result: Any, a: Any, b: Any) -> str:
    if _is_binary(result):
        return f"a positive of {a} was scored above a negative of {b}"
    if a == b:
        return f"within {a}, the model ranked the member with the earlier event higher"
    return (
        f"when a member of {a} had the event first, the model ranked them above the member of {b}"
    )


class _Reader:
    """Cell values, intervals and flags of one result, worded."""

    def __init__(self, result: Any, flags: pd.DataFrame):
        self.result = result
        self.values = result.values
        self.low, self.high = (
            np.asarray(m.to_numpy(), float) for m in result.confidence_interval()
        )
        self.no_variance = no_variance_cells(result)
        self.index = {g: k for k, g in enumerate(result.groups)}
        level = getattr(result, "confidence_level", 0.95)
        self.level = f"{100 * level:g}%"
        self.alpha = 1 - level
        self.reasons = _FlaggedReasons(flags)
        self.n_resamples = None
        self.margin = DEFAULT_MARGIN
        if getattr(result, "bootstrap", None) is not None:
            self.n_resamples = int(result.bootstrap.cells.shape[0])

    def cell(self, a: Any, b: Any) -> str:
        i, j = self.index[a], self.index[b]
        return cell_text(
            self.values[i, j], self.low[i, j], self.high[i, j], bool(self.no_variance[i, j])
        )

    def p(self, value: float, at_floor: bool | None = None) -> str:
        """``"p = 0.043"``, ``"p < 0.001"`` or, at the bootstrap floor,
        ``"p <= 0.029 (bootstrap floor)"``."""
        return p_phrase(value, self.n_resamples, at_floor)

    def difference(self, row: pd.Series, adjust: str) -> str:
        return difference_text(row, adjust, self.n_resamples)

    def caution(self, cells: list) -> str:
        return caution_text(self.reasons, cells)


def difference_text(row: pd.Series, adjust: str, n_resamples: int | None = None) -> str:
    """``"Δbetween(a, b) = +12.0 points [3.1, 20.9], Holm-adjusted p = 0.004; the interval
    excludes 0"`` for a row of a differences table (xCI or AUC(t)); its p-value is a bound where
    the row says it is at the bootstrap floor (``p_at_floor``, when the table has it)."""
    name = "Δwithin" if row["summary"] == "delta_within" else "Δbetween"
    text = f"{name}({row['a']}, {row['b']}) = {_points(row['value'])}"
    if _no_variance(row):
        return f"{text} (no interval or test: standard error 0)"
    interval = interval_text(row["ci_low"] * 100, row["ci_high"] * 100, digits=1)
    if interval == "–":
        return text
    at_floor = bool(row["p_at_floor"]) if "p_at_floor" in row.index else None
    p = p_phrase(row["p_adjusted"], n_resamples, at_floor)
    return f"{text} {interval}, {adjust_name(adjust)} {p}; {_excludes_zero(row)}"


def caution_text(reasons: dict, cells: list) -> str:
    """ " Caution: cell (a, b) rests on little data: <reason>." for the ``cells`` that ``reasons``
    (flagged cell -> its reason) holds; empty when none does."""
    used = [cell for cell in dict.fromkeys(cells) if cell in reasons]
    if not used:
        return ""
    if len(used) == 1:
        ((a, b),) = used
        return (
            f" Caution: cell ({a}, {b}) rests on little data: "
            f"{reasons[(a, b)].replace('; ', ', ')}."
        )
    shown = ", ".join(f"({a}, {b})" for a, b in used)
    details = "; ".join(f"({a}, {b}) {reasons[(a, b)].replace('; ', ', ')}" for a, b in used)
    return f" Caution: cells {shown} rest on little data: {details}."


#: the differences of a row of the excess table (its interval is the excess's)
EXCESS_VALUES = ("observed", "model_based", "excess")


def _flipped(row: pd.Series, values: tuple) -> pd.Series:
    """A difference's row for the pair (b, a): groups swapped, the ``values`` columns negated and
    the interval mirrored."""
    row = row.copy()
    row["a"], row["b"] = row["b"], row["a"]
    for column in values:
        row[column] = -row[column]
    row["ci_low"], row["ci_high"] = -row["ci_high"], -row["ci_low"]
    return row


def pair_row(table: pd.DataFrame | None, a: Any, b: Any, values: tuple) -> pd.Series | None:
    """The row of the pair (a, b) of a table of differences, in that orientation: found as (a, b),
    or as (b, a) and flipped (``values`` negated, the interval mirrored); None if absent. Labels
    are compared one by one (a tuple label of intersectional groups is one label)."""
    if table is None:
        return None
    for k, pair in enumerate(zip(table["a"], table["b"])):
        if pair in ((a, b), (b, a)):
            row = table.iloc[k]
            return row if pair == (a, b) else _flipped(row, values)
    return None


def largest_delta(deltas: pd.DataFrame, summary: str) -> pd.Series | None:
    """The row of the largest |difference| of ``summary``, as the table has it: (a, b) in the
    group order and signed a − b, the one orientation of a pair in every output (issue 41)."""
    part = deltas[(deltas["summary"] == summary) & deltas["value"].notna()]
    if part.empty:
        return None
    return part.loc[part["value"].abs().idxmax()]


def _no_variance(row: pd.Series) -> bool:
    """A difference whose standard error is 0 (both cells without variability): no
    interval or test."""
    return math.isfinite(row["value"]) and math.isfinite(row["se"]) and row["se"] <= NO_VARIANCE_SE


def _excludes_zero(row: pd.Series) -> str:
    if not (math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"])):
        return "no interval"
    return (
        "the interval excludes 0"
        if row["ci_low"] > 0 or row["ci_high"] < 0
        else "the interval includes 0"
    )


def _judgement(row: pd.Series, alpha: float) -> str:
    """What a difference shows: "clear" (its interval excludes 0 and its adjusted p-value is below
    alpha), "not adjusted" (the interval excludes 0 but the adjusted p-value does not confirm it),
    "unresolved" (the same, but the adjusted p-value is a bound at the bootstrap floor: more
    replicates are needed), "chance" (the interval includes 0), "one cell without variance" (one of
    its cells has standard error 0: the interval leaves out that cell's uncertainty), "no variance"
    or "no interval"."""
    if _no_variance(row):
        return "no variance"
    verdict = _excludes_zero(row)
    if verdict != "no interval" and bool(row.get("no_variance_cell", False)):
        return "one cell without variance"
    if verdict == "the interval excludes 0":
        adjusted = row["p_adjusted"]
        if math.isfinite(adjusted) and adjusted >= alpha:
            # a bound at the bootstrap floor is not a p-value: too few replicates, not too
            # little evidence
            return "unresolved" if bool(row.get("p_at_floor", False)) else "not adjusted"
        return "clear"
    return "chance" if verdict == "the interval includes 0" else "no interval"


def _unresolved(row: pd.Series, alpha: float, n_resamples: int | None) -> str:
    return (
        "The interval excludes 0 and no bootstrap replicate crossed 0, but with "
        f"{n_resamples or 'these'} replicates the adjusted p-value is only known to be <= "
        f"{row['p_adjusted']:.2g}: more replicates (n_resamples) are needed to judge it "
        f"against {alpha:g}."
    )


_ONE_CELL = (
    "One of its two cells has standard error 0 (no variance estimate), so the interval leaves out "
    "that cell's uncertainty and chance cannot be ruled out"
)


def _not_confirmed(alpha: float, claim: str) -> str:
    # the interval is for one comparison; the largest of several is judged by the adjusted p-value
    return (
        "The interval excludes 0, but this is the largest of several comparisons and its adjusted "
        f"p-value is not below {alpha:g}: the data do not clearly show {claim}."
    )


#: Why an observed asymmetry alone never names a disadvantaged group (issue 32): a perfect model,
#: scored by the true risk, shows a large Δbetween whenever the groups' risks differ.
_RISK_CAVEAT = (
    "This alone does not show that the model treats {b} worse: part or all of an asymmetry can "
    "come from the groups' different risks (even the true risk shows one when they differ). The "
    "model-based {family} (survfair.{function}) separates what the groups' risks imply from "
    "what the model adds"
)


def risk_caveat(b: Any, binary: bool = False) -> str:
    """The sentence that keeps an observed asymmetry from being read as the model's doing."""
    return _RISK_CAVEAT.format(
        b=b,
        family="xAUC" if binary else "xCI",
        function="model_based_xauc" if binary else "model_based_xci",
    )


def absence_words(row: pd.Series, margin: float) -> str:
    """What an interval that includes 0 says: that a difference is absent only when the interval
    lies inside ±margin (two one-sided tests); otherwise how large a difference it still allows."""
    low, high = row["ci_low"], row["ci_high"]
    if equivalent(low, high, margin):
        return (
            f"The interval lies inside ±{100 * margin:.1f} points (the equivalence margin): any "
            "difference between the groups is smaller than that"
        )
    return (
        "The difference is within what chance alone would give, but that is not evidence of no "
        f"difference: {allowance(low, high, margin)}, so the data cannot tell"
    )


def _asymmetry_sentence(reader: _Reader, row: pd.Series, adjust: str) -> str:
    a, b = row["a"], row["b"]
    # the pair keeps its group order; the words name the group the difference favours first
    first_group, second_group = (a, b) if row["value"] >= 0 else (b, a)
    result = reader.result
    binary = _is_binary(result)
    if binary:
        first = (
            f"a positive of {a} was scored above a negative of {b} {reader.cell(a, b)} of the time"
        )
        second = f"a positive of {b} above a negative of {a} {reader.cell(b, a)}"
        direction = (
            f"positives of {second_group} were scored above negatives of {first_group} less often "
            "than the reverse"
        )
    else:
        first = (
            f"when a member of {a} had the event first, the model ranked them above the member of "
            f"{b} {reader.cell(a, b)} of the time"
        )
        second = f"when a member of {b} had the event first, {reader.cell(b, a)}"
        direction = (
            f"members of {second_group} who had the event first were ranked correctly less often "
            f"than members of {first_group}"
        )
    caveat = risk_caveat(second_group, binary)
    words = {
        "clear": f"In words: {direction}. {caveat}.",
        "not adjusted": _not_confirmed(reader.alpha, "an asymmetry between the groups"),
        "unresolved": _unresolved(row, reader.alpha, reader.n_resamples),
        "chance": absence_words(row, reader.margin) + ".",
        "no variance": "Without a variance estimate chance cannot be ruled out; the direction "
        f"points to: {direction}. {caveat}.",
        "one cell without variance": f"{_ONE_CELL}; the direction points to: "
        f"{direction}. {caveat}.",
        "no interval": "Without an interval chance cannot be ruled out; the direction points to: "
        f"{direction}. {caveat}.",
    }[_judgement(row, reader.alpha)]
    return (
        f"Largest cross-group asymmetry, {a} vs {b}: {first}; {second}. "
        f"{reader.difference(row, adjust)}. {words}{reader.caution([(a, b), (b, a)])}"
    )


def _excess_judgement(row: pd.Series, alpha: float) -> str:
    """:func:`_judgement` of an excess row (its value is the excess)."""
    judged = row.copy()
    judged["value"] = row["excess"]
    return _judgement(judged, alpha)


def _excess_text(row: pd.Series, adjust: str) -> str:
    """``"excess Δbetween(a, b) = +10.3 points [6.1, 14.5], Holm-adjusted p < 0.001"``."""
    text = f"excess Δbetween({row['a']}, {row['b']}) = {_points(row['excess'])}"
    interval = interval_text(row["ci_low"] * 100, row["ci_high"] * 100, digits=1)
    if interval == "–":
        return text
    return f"{text} {interval}, {adjust_name(adjust)} {p_phrase(row['p_adjusted'])}"


def _observed_row(deltas: pd.DataFrame, a: Any, b: Any) -> pd.Series | None:
    """The observed Δbetween(a, b) of the findings' differences, in that orientation."""
    return pair_row(deltas[deltas["summary"] == "delta_between"], a, b, ("value",))


def _observed_text(deltas: pd.DataFrame, a: Any, b: Any) -> str:
    """``"+29.2 points [26.1, 32.3]"``: the observed Δbetween(a, b) with its interval."""
    row = _observed_row(deltas, a, b)
    if row is None:
        return "undefined"
    interval = interval_text(row["ci_low"] * 100, row["ci_high"] * 100, digits=1)
    return _points(row["value"]) + ("" if interval == "–" else f" {interval}")


def _excess_sentence(
    reader: _Reader,
    excess: pd.DataFrame,
    deltas: pd.DataFrame,
    adjust: str,
    model_based: Any,
    calibration: CalibrationCheck,
) -> str | None:
    """The sentence that leads when a model-based reference is given (issue 32): the largest excess
    asymmetry the data show clearly, or -- when none is clear -- what the largest observed asymmetry
    is against the reference. Each reading states what it rests on and checks it (issue 41): the
    reference is the model's own (:attr:`ModelBasedResult.reference_consistent`), the excess is
    called absent only inside the equivalence margin, and the asymmetry is attributed to the groups'
    different risks only when calibration was tested and not rejected."""
    rows = excess[excess["excess"].notna()]
    if rows.empty:
        return None
    alpha = reader.alpha
    not_own = agreement_problem(model_based)
    clear = rows[[_excess_judgement(row, alpha) == "clear" for _, row in rows.iterrows()]]
    if not clear.empty:
        return _clear_excess_sentence(
            reader, clear.loc[clear["excess"].abs().idxmax()], deltas, adjust, not_own, calibration
        )
    row = rows.loc[rows["observed"].abs().idxmax()]  # (a, b) in the group order, as the tables
    a, b = row["a"], row["b"]
    numbers = (
        f"Δbetween({a}, {b}) = {_observed_text(deltas, a, b)}, model-based "
        f"{_points(row['model_based'])}; {_excess_text(row, adjust)}"
    )
    caution = reader.caution([(a, b), (b, a)])
    verdict = _excess_judgement(row, alpha)
    if not_own is not None:  # whatever the excess's interval says, it cannot separate the two
        return (
            f"Largest observed asymmetry against the model-based reference: {numbers}. But "
            f"{not_own}: the reference is not the score's own, and against predictions that are "
            "not, the excess is near 0 whatever the score does. It cannot tell whether the "
            f"asymmetry comes from the groups' risks or from how the model ranks them.{caution}"
        )
    if verdict in ("not adjusted", "unresolved"):
        return (
            "Excess cross-group asymmetry not confirmed: for the largest observed asymmetry "
            f"({numbers}) the interval of the excess excludes 0, but this is one of several "
            f"comparisons and its {adjust_name(adjust)} p-value is not below {alpha:g}: the data "
            f"do not clearly show that the model adds to what its own predictions imply.{caution}"
        )
    if verdict != "chance":
        return (
            f"Largest observed asymmetry against the model-based reference: {numbers}. Without a "
            "usable interval for the excess (none computed, or a standard error of 0), chance "
            "cannot be ruled out: the data cannot say whether the model adds to what its own "
            f"predictions imply.{caution}"
        )
    observed = _observed_row(deltas, a, b)
    observed_chance = observed is not None and _judgement(observed, alpha) == "chance"
    margin = reader.margin
    excess_small = equivalent(row["ci_low"], row["ci_high"], margin)
    if observed_chance:
        # nothing to explain: "it comes from the groups' different risks" would claim a difference
        if excess_small and equivalent(observed["ci_low"], observed["ci_high"], margin):
            return (
                f"No cross-group asymmetry, observed or in excess: Δbetween({a}, {b}) = "
                f"{_observed_text(deltas, a, b)} and its excess over what the model's own "
                f"predictions imply (model-based {_points(row['model_based'])}; "
                f"{_excess_text(row, adjust)}) both have intervals inside ±{100 * margin:.1f} "
                f"points, the equivalence margin.{caution}"
            )
        if not equivalent(observed["ci_low"], observed["ci_high"], margin):
            subject, wide = f"the interval of Δbetween({a}, {b})", observed
        else:
            subject, wide = "the interval of the excess", row
        allows = allowance(wide["ci_low"], wide["ci_high"], margin, subject)
        return (
            f"The data cannot tell whether there is a cross-group asymmetry: {numbers}; both "
            f"intervals include 0, but {allows}.{caution}"
        )
    if not excess_small:
        checked = "" if calibration.status == "unchecked" else f" {calibration.clause()}."
        return (
            f"The largest observed asymmetry is not clearly more than the model's own predictions "
            f"imply ({numbers}; the interval includes 0), but the data cannot tell whether the "
            f"model adds to it: {allowance(row['ci_low'], row['ci_high'], margin)}.{checked}"
            f"{caution}"
        )
    if calibration.status == "rejected":
        return (
            f"The largest observed asymmetry, Δbetween({a}, {b}) = {_observed_text(deltas, a, b)}, "
            f"is what the model's own predictions imply (model-based "
            f"{_points(row['model_based'])}; {_excess_text(row, adjust)}, inside "
            f"±{100 * margin:.1f} points), but calibration rejects those predictions "
            f"({calibration.listing()}). The reference then describes another population than "
            "the audited one, so the asymmetry cannot be attributed to the groups' different "
            f"risks.{caution}"
        )
    if calibration.status == "unchecked":
        return (
            "No excess cross-group asymmetry beyond the equivalence margin: the largest observed "
            f"asymmetry, Δbetween({a}, {b}) = {_observed_text(deltas, a, b)}, is what the model's "
            f"own predictions imply (model-based {_points(row['model_based'])}; "
            f"{_excess_text(row, adjust)}, inside ±{100 * margin:.1f} points). It comes from the "
            "groups' different risks rather than from how the model ranks them only if the "
            "predictions are calibrated within each group, which was not checked here (pass "
            f"calibration=, survfair.calibration of the same predictions, to test it).{caution}"
        )
    return (
        "No excess cross-group asymmetry: the largest observed asymmetry, "
        f"Δbetween({a}, {b}) = {_observed_text(deltas, a, b)}, is what the model's own "
        f"predictions imply (model-based {_points(row['model_based'])}; "
        f"{_excess_text(row, adjust)}, inside ±{100 * margin:.1f} points): it comes from the "
        "groups' different risks, not from how the model ranks them. "
        f"{calibration.clause()}.{caution}"
    )


def _clear_excess_sentence(
    reader: _Reader,
    row: pd.Series,
    deltas: pd.DataFrame,
    adjust: str,
    not_own: str | None,
    calibration: CalibrationCheck,
) -> str:
    """An excess whose interval excludes 0 and whose adjusted p-value confirms it; (a, b) stays in
    the group order, the words name the group the excess favours."""
    a, b = row["a"], row["b"]
    favoured, other = (a, b) if row["excess"] >= 0 else (b, a)
    if _is_binary(reader.result):
        words = (
            f"positives of {other} were scored above negatives of {favoured} less often than the "
            "model's own probabilities imply"
        )
        meaning = (
            f"beyond what the groups' different base rates explain, positives of {other} are "
            "scored too low in this pair; if a higher score means earlier attention, the model "
            f"disadvantages {other}"
        )
    else:
        words = (
            f"the model ranks members of {other} who had the event first below members of "
            f"{favoured} more often than its own predictions imply"
        )
        meaning = (
            f"beyond what the groups' different risks explain, {other} is ranked worse in this "
            f"pair; if a higher score means earlier care, the model disadvantages {other}"
        )
    text = (
        f"Excess cross-group asymmetry, {a} vs {b}: {words}: {_excess_text(row, adjust)} "
        f"(observed Δbetween {_observed_text(deltas, a, b)}, model-based "
        f"{_points(row['model_based'])}); the interval excludes 0."
    )
    if not_own is not None:
        return (
            f"{text} But {not_own}: the reference is not the score's own, so the excess mixes how "
            "the model ranks with how its predictions differ from the score's."
            f"{reader.caution([(a, b), (b, a)])}"
        )
    if calibration.status == "rejected":
        return (
            f"{text} {calibration.clause()}: part or all of this excess may come from "
            "miscalibration (the reference describes another population than the audited one) "
            f"rather than from how the model ranks.{reader.caution([(a, b), (b, a)])}"
        )
    return f"{text} In words: {meaning}. {calibration.clause()}.{reader.caution([(a, b), (b, a)])}"


def _excess_count(excess: pd.DataFrame, adjust: str, reader: _Reader) -> str:
    """ " Against the model-based reference, 1 of 3 excess asymmetries ..." (empty
    without intervals)."""
    tested = excess[excess["ci_low"].notna() & excess["ci_high"].notna()]
    if tested.empty:
        return ""
    excluded = int(((tested["ci_low"] > 0) | (tested["ci_high"] < 0)).sum())
    significant = int((tested["p_adjusted"] < reader.alpha).sum())
    one = len(tested) == 1
    return (
        f" Against the model-based reference, {excluded} of {len(tested)} excess "
        f"asymmetr{'y' if one else 'ies'} {'has a' if one else 'have'} {reader.level} "
        f"interval{'' if one else 's'} excluding 0 ({significant} with "
        f"{adjust_name(adjust)} p < {reader.alpha:g})."
    )


def _excess_table(model_based: Any, result: Any, adjust: str) -> pd.DataFrame:
    """The reference's Δbetween rows with ``p_adjusted`` within that family."""
    if tuple(model_based.groups) != tuple(result.groups):
        raise InvalidParameterError(
            f"model_based has groups {list(model_based.groups)}, the result {list(result.groups)}: "
            "pass the model-based result of the same audit.",
            parameter="model_based",
        )
    observed = model_based.observed.values
    if observed.shape != result.values.shape or not np.allclose(
        observed, result.values, rtol=1e-9, atol=1e-12, equal_nan=True
    ):
        # its excess is observed - model-based of ITS observed matrix: another result's numbers
        # would not add up (e.g. an audit with case weights against a reference without them)
        raise InvalidParameterError(
            "model_based was computed on another observed matrix than result (other rows, weights, "
            "entry times or settings): pass the model-based result of the same audit.",
            parameter="model_based",
        )
    table = model_based.summaries()
    table = table[table["summary"] == "delta_between"].reset_index(drop=True)
    table["p_adjusted"] = np.nan
    finite = table["p_value"].notna()
    if finite.any():
        table.loc[finite, "p_adjusted"] = adjust_p_values(
            table.loc[finite, "p_value"].to_numpy(), adjust=adjust
        )
    return table


def _within_sentence(reader: _Reader, row: pd.Series, adjust: str) -> str:
    """The largest within-group difference, judged like the largest asymmetry: an interval that
    excludes 0 is not called a difference when the adjusted p-value does not confirm it."""
    a, b = row["a"], row["b"]
    better, worse = (a, b) if row["value"] >= 0 else (b, a)
    kind = "AUC" if _is_binary(reader.result) else "concordance"
    how = (
        "separates positives from negatives"
        if _is_binary(reader.result)
        else "orders who has the event first"
    )
    words = {
        "clear": f" In words: the model {how} less accurately inside {worse} than inside {better}.",
        "not adjusted": " " + _not_confirmed(reader.alpha, "a difference between the groups"),
        "unresolved": " " + _unresolved(row, reader.alpha, reader.n_resamples),
        "chance": " " + absence_words(row, reader.margin) + ".",
        "no variance": " Without a variance estimate chance cannot be ruled out.",
        "one cell without variance": f" {_ONE_CELL}.",
        "no interval": "",
    }[_judgement(row, reader.alpha)]
    return (
        f"Largest within-group difference: {kind} inside {a} {reader.cell(a, a)} against inside "
        f"{b} {reader.cell(b, b)}; "
        f"{reader.difference(row, adjust)}.{words}{reader.caution([(a, a), (b, b)])}"
    )


def _worst_sentence(reader: _Reader, model_based: Any = None) -> str | None:
    """The smallest cell; with a reference, beside what the model's own predictions imply for it
    (a perfect model's worst cell is low because the pair is hard to rank, not because it is
    served badly)."""
    values = reader.values
    if not np.isfinite(values).any():
        return None
    flat = int(np.nanargmin(values))
    g = values.shape[0]
    a, b = reader.result.groups[flat // g], reader.result.groups[flat % g]
    reference = ""
    if model_based is not None:
        implied = float(model_based.model_based_values[flat // g, flat % g])
        if math.isfinite(implied):
            low, high = (
                float(m.to_numpy()[flat // g, flat % g]) for m in model_based.confidence_interval()
            )
            interval = interval_text(low * 100, high * 100, digits=1)
            reference = (
                f"; the model's own predictions imply {percent(implied)} for this cell (excess "
                f"{_points(values[flat // g, flat % g] - implied)}"
                + ("" if interval == "–" else f" {interval}")
                + ")"
            )
    return (
        f"Worst-served cell ({a}, {b}): {_cell_words(reader.result, a, b)} only "
        f"{reader.cell(a, b)} of the time{reference}.{reader.caution([(a, b)])}"
    )


def _omnibus_words(omnibus: OmnibusTest) -> str:
    """The joint test of no asymmetry in a clause, with what it leaves out."""
    if omnibus.source == NOT_COMPUTED:
        return (
            f"; the joint test is not computed for {omnibus.n_contrasts:,} contrasts (more than "
            f"{JOINT_TEST_LIMIT:,}, or more than memory allows): read the adjusted "
            "pairwise p-values"
        )
    left_out = ""
    if omnibus.n_no_variance:
        left_out = (
            f" ({_count(omnibus.n_no_variance, 'difference')} using a cell with standard error 0 "
            f"left out)"
        )
    if math.isfinite(omnibus.p_value):
        return (
            f"; joint test of no cross-group asymmetry{left_out}: chi-square({omnibus.df}) = "
            f"{statistic_text(omnibus.statistic)}, {p_phrase(omnibus.p_value)}"
        )
    if omnibus.source != "none" and omnibus.n_no_variance:
        return (
            "; the joint test of no cross-group asymmetry is undefined: every difference uses a "
            "cell with standard error 0"
        )
    return ""


def _tests_sentence(
    deltas: pd.DataFrame, omnibus: OmnibusTest, adjust: str, reader: _Reader
) -> str | None:
    between = deltas[(deltas["summary"] == "delta_between") & deltas["value"].notna()]
    if between.empty or between["ci_low"].isna().all():
        return None
    # as in the joint test: a difference using a cell with standard error 0 is not counted (its
    # interval leaves out that cell's uncertainty; the other sentences say chance
    # cannot be ruled out)
    untestable = between.apply(_no_variance, axis=1) | between.get("no_variance_cell", False)
    tested = between[~untestable]
    excluded = int(((tested["ci_low"] > 0) | (tested["ci_high"] < 0)).sum())
    alpha = reader.alpha
    significant = int((tested["p_adjusted"] < alpha).sum())
    one = len(tested) == 1
    text = (
        f"{excluded} of {len(tested)} between-group difference{'' if one else 's'} "
        f"{'has a' if one else 'have'} {reader.level} interval{'' if one else 's'} excluding 0 "
        f"({significant} with {adjust_name(adjust)} p < {alpha:g})"
    )
    if untestable.any():
        text += (
            f"; {_count(int(untestable.sum()), 'difference')} using a cell with standard error 0 "
            "not counted"
        )
    unresolved = int((tested["p_at_floor"].astype(bool) & (tested["p_adjusted"] >= alpha)).sum())
    if unresolved:
        text += (
            f"; {unresolved} adjusted p-value{'s are bounds' if unresolved > 1 else ' is a bound'} "
            f"at the bootstrap floor, not resolved below {alpha:g} with "
            f"{reader.n_resamples} replicates"
        )
    return text + _omnibus_words(omnibus) + "."


def _flags_sentence(
    result: Any, flags: pd.DataFrame, min_events: int, min_pairs: int
) -> str | None:
    flagged = flags[flags["flagged"]]
    if flagged.empty:
        return None
    advice = "; " + INTERVAL_ADVICE
    shown = "; ".join(
        f"({r.a}, {r.b}): {r.reason.replace(advice, '').replace('; ', ', ')}"
        for r in flagged.head(5).itertuples()
    )
    more = f"; and {len(flagged) - 5} more" if len(flagged) > 5 else ""
    units = (
        "positives in the row group or negatives in the column group"
        if _is_binary(result)
        else "events in the row group or members in the column group"
    )
    narrow = "narrow_interval" in flagged.columns and flagged["narrow_interval"].any()
    interval_rule = f", or {INTERVAL_MIN_EVENTS} events in either group" if narrow else ""
    zero = (
        " Cells with standard error 0 have no estimate of their sampling variability: their "
        "zero-width interval is not a sign of precision."
        if flagged["no_variance"].any()
        else ""
    )
    what_to_do = (
        " Read their intervals and the tests that use them as optimistic; merging small groups or "
        "collecting more events is what makes them reliable (ci='bootstrap' does not: its BCa "
        "intervals covered as little as 91% there too)."
        if narrow
        else ""
    )
    return (
        f"{len(flagged)} of {len(flags)} cells rest on little data (fewer than {min_events} "
        f"{units}, or {min_pairs} comparable pairs{interval_rule}) or have standard error 0: "
        f"{shown}{more}. The {SMALL_CELL_COVERAGE_NOTE}.{what_to_do}{zero}"
    )


def censoring_sentence(result: Any, adjust: str, alpha: float) -> str | None:
    """The sentence said when censoring depends on the risk within a group (issue 42.4): the
    result's :attr:`~survfair.XCIResult.censoring_dependence` with its p-values adjusted by
    ``adjust`` across groups, below ``alpha``. None when the check does not apply (naive estimator,
    no rows kept) or rejects nothing: not rejecting is no evidence of independent censoring."""
    check = getattr(result, "censoring_dependence", None)
    if check is None:
        return None
    table = check.to_frame()
    table["p_adjusted"] = adjust_p_values(table["p_value"].to_numpy(float), adjust=adjust)
    table = table[table["p_adjusted"] < alpha]
    if table.empty:
        return None
    parts = [
        f"{row.group} (HR {row.hazard_ratio:.2f} per SD "
        f"{interval_text(row.ci_low, row.ci_high, digits=2)}, "
        f"{adjust_name(adjust)} {p_phrase(row.p_adjusted)})"
        for row in table.itertuples()
    ]
    if len(parts) == 1:
        within = parts[0].replace(" (", ": ", 1)[:-1]
    else:
        within = ", ".join(parts[:-1]) + " and " + parts[-1]
    if check.covariates:  # the Cox model of the censoring (censoring="cox") adjusts for them
        return (
            f"Censoring depends on the risk within {within}, even given the censoring model's "
            f"covariates ({', '.join(check.covariates)}); its weights may bias these numbers; add "
            "the covariates that explain censoring to censoring_covariates."
        )
    weights = "pooled" if result.censoring == "pooled" else "per-group"
    if result.refit_censoring is False:
        weights = "the censoring reference's"
    return (
        f"Censoring depends on the risk within {within}; {weights} Kaplan–Meier weights may bias "
        'these numbers; pass censoring="cox" with the covariates that explain censoring.'
    )


def joint_tests(result: Any, omnibus: OmnibusTest | None = None) -> list:
    """The three joint Wald tests of a result (:func:`joint_test`): no cross-group asymmetry
    (``omnibus`` when already at hand), equal within-group concordance, all cells equal."""
    first = omnibus if omnibus is not None else joint_test(result, "no_asymmetry")
    return [first, joint_test(result, "equal_within"), joint_test(result, "equal_cells")]


#: The options of :func:`findings`.
_FINDINGS_OPTIONS = OptionTable(
    "findings",
    adjust=one_of(*ADJUSTMENTS),
    min_events=integer(low=0),
    min_pairs=integer(low=0),
    model_based=instance_of(ModelBasedResult, "a ModelBasedResult (survfair.model_based_xci)"),
    calibration=instance_of(CalibrationResult, "a CalibrationResult (survfair.calibration)"),
    margin=real(low=0, high=1, closed="neither"),
)


def _check_result(result: Any) -> None:
    """``result`` is what :func:`findings` reads; else a TypeError that names the right call."""
    if isinstance(result, (XCIResult, XAUCResult, ModelBasedResult)):
        return
    hint = (
        " (the sentences of a calibration: survfair.calibration_findings)"
        if isinstance(result, CalibrationResult)
        else ""
    )
    raise TypeError(
        "findings: result must be an XCIResult, XAUCResult or ModelBasedResult (survfair.xci, "
        f"survfair.xauc, survfair.model_based_xci), got a {type(result).__name__}{hint}."
    )


def findings(
    result: Any,
    *,
    adjust: str = "holm",
    min_events: int = 10,
    min_pairs: int = 100,
    model_based: Any = None,
    calibration: Any = None,
    margin: float = DEFAULT_MARGIN,
) -> Findings:
    """The plain-language summary of an audit, generated from the result.

    Parameters
    ----------
    result : XCIResult or XAUCResult
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Adjustment of the p-values within each family (all Δbetween pairs; all Δwithin pairs).
        With more than :data:`SUMMARISED_GROUPS` (200) groups the findings summarise and use
        Bonferroni over every pair of the family whatever ``adjust`` is (see Notes).
    min_events, min_pairs : int, default=10 and 100
        Thresholds of :func:`small_sample_flags`.
    model_based : ModelBasedResult, optional
        The model-based reference of the same audit (:func:`survfair.model_based_xci`,
        :func:`survfair.model_based_xauc`). The findings then lead with the excess asymmetry
        (observed minus what the model's own predictions imply) instead of the observed one. A
        ``ModelBasedResult`` passed as ``result`` is read as its observed result with itself as the
        reference. A reference whose score does not rank as its predictions do
        (``reference_consistent`` False) is never read as "no excess".
    calibration : CalibrationResult, optional
        The calibration of the predictions the reference is built from (:func:`survfair.calibration`
        on the same rows and groups). The model-based reading attributes an asymmetry to the groups'
        different risks only if the predictions are calibrated within each group; with
        ``calibration`` that is tested (O/E ratio and calibration intercept within every group and
        their contrasts between groups, at every horizon, adjusted by ``adjust``) and a rejection is
        said and keeps the attribution from being made; without it the sentence says the reading
        is unchecked. Ignored without a reference.
    margin : float, default=0.05
        Equivalence margin of a difference of concordances (Δbetween, Δwithin, an excess), as a
        proportion (0.05 = 5 percentage points). A difference is called absent only when its
        interval lies inside ±margin (two one-sided tests, each at half the interval's level);
        otherwise a difference whose interval includes 0 is reported with the largest difference
        the interval still allows ("the data cannot tell").

    Returns
    -------
    Findings
        Sentences, most important first: the pooled concordance; the largest cross-group
        asymmetry (both directions in words, Δbetween with interval and adjusted p-value, and the
        reminder that an observed asymmetry alone may come from the groups' different risks: it
        never names a disadvantaged group); the worst-served cell; the largest within-group
        difference; how many intervals exclude 0 and the joint test; for an IPCW result, when
        censoring depends on the risk within a group (:attr:`XCIResult.censoring_dependence`, its
        p-values adjusted by ``adjust`` across groups, below 1 − the confidence level), which
        groups and what it means for the weights (nothing is said when it is not rejected: that
        is no evidence of independent censoring); flagged cells.

    Raises
    ------
    TypeError
        When ``result`` is not an XCIResult, XAUCResult or ModelBasedResult (a CalibrationResult's
        sentences are :func:`survfair.calibration_findings`).
    InvalidParameterError (a ValueError)
        For an unknown ``adjust``, a ``margin`` outside (0, 1), a ``calibration`` whose groups are
        not the result's; TypeError/ValueError for invalid thresholds.

    See Also
    --------
    survfair.pairwise_deltas, survfair.omnibus_test, small_sample_flags

    Notes
    -----
    Above 200 groups (:data:`SUMMARISED_GROUPS`; 19,900 pairs) the findings summarise: the value of
    every difference is computed, but intervals and p-values only for the five largest |Δbetween|
    and |Δwithin|, adjusted by Bonferroni over all pairs of their family (never smaller than the
    Holm or BH adjusted p-value of the same difference, so a difference called clear is clear under
    either), and the joint tests are not computed, nor the censoring check (one Cox fit per group:
    ``result.censoring_dependence`` on request). :func:`survfair.pairwise_deltas` still gives
    every pair on request.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive", ci=None)
    >>> print(findings(res).sentences[1])  # doctest: +NORMALIZE_WHITESPACE
    Largest cross-group asymmetry, a vs b: when a member of a had the event first, the model ranked
    them above the member of b 80.0% of the time; when a member of b had the event first, 66.7%.
    Δbetween(a, b) = +13.3 points. Without an interval chance cannot be ruled out; the direction
    points to: members of b who had the event first were ranked correctly less often than members of
    a. This alone does not show that the model treats b worse: part or all of an asymmetry can come
    from the groups' different risks (even the true risk shows one when they differ). The
    model-based xCI (survfair.model_based_xci) separates what the groups' risks imply from what the
    model adds. Caution: cells (a, b), (b, a) rest on little data: (a, b) 4 events in a (< 10), 4
    members in b (< 10), 10 comparable pairs (< 100); (b, a) 3 events in b (< 10), 4 members in a
    (< 10), 6 comparable pairs (< 100).
    """
    _FINDINGS_OPTIONS.check(locals())
    _check_result(result)
    if hasattr(result, "observed") and hasattr(result, "summaries"):  # a ModelBasedResult
        result, model_based = result.observed, result if model_based is None else model_based
    flags = small_sample_flags(result, min_events=min_events, min_pairs=min_pairs)
    reader = _Reader(result, flags)
    reader.margin = float(margin)
    summarised = len(result.groups) > SUMMARISED_GROUPS
    if summarised:
        adjust = "bonferroni"
        deltas = _largest_deltas(result, flags, SUMMARISED_PAIRS)
    else:
        deltas = _adjusted(result, pairwise_deltas(result), adjust, flags)
    omnibus = joint_test(result, "no_asymmetry")
    pooled = overall_c(result)
    name = "AUC" if _is_binary(result) else "concordance (C)"
    interval = interval_text(*pooled.confidence_interval, as_percent=True)
    sentences = [
        f"Pooled {name}: {percent(pooled.value)}"
        + ("" if interval == "–" else f" {interval}")
        + "."
    ]
    excess = None if model_based is None else _excess_table(model_based, result, adjust)
    between = largest_delta(deltas, "delta_between")
    check = None
    if excess is not None:
        check = check_calibration(calibration, tuple(result.groups), reader.alpha, adjust)
    lead = (
        None
        if excess is None
        else _excess_sentence(reader, excess, deltas, adjust, model_based, check)
    )
    if lead is not None:
        sentences.append(lead)
    elif between is not None:
        sentences.append(_asymmetry_sentence(reader, between, adjust))
    worst = _worst_sentence(reader, model_based)
    if worst is not None and len(result.groups) > 1:
        sentences.append(worst)
    within = largest_delta(deltas, "delta_within")
    if within is not None:
        sentences.append(_within_sentence(reader, within, adjust))
    tests = (
        _summary_sentence(result, deltas, reader)
        if summarised
        else _tests_sentence(deltas, omnibus, adjust, reader)
    )
    if excess is not None and tests is not None:
        tests += _excess_count(excess, adjust, reader)
    censoring = None if summarised else censoring_sentence(result, adjust, reader.alpha)
    for extra in (tests, censoring, _flags_sentence(result, flags, min_events, min_pairs)):
        if extra is not None:
            sentences.append(extra)
    return Findings(
        tuple(sentences),
        deltas,
        omnibus,
        flags,
        adjust,
        summarised,
        excess,
        float(margin),
        None if check is None else check.status,
    )
