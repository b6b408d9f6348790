"""Pair-count kernel: every cell of the G x G xCI matrix in O(G n log n) time, memory linear in n.

No pair is ever materialised. The sweeps are C (Cython, ``survfair/_compiled/_pairs.pyx``, built
ahead of time); this module prepares their arrays and runs them. One sort by time and one by risk;
a sweep in risk order gives every row its rank within its own group and the bounds of its tie
window [r - tol, r + tol] as ranks within every group (``PreparedPairs.lower`` / ``upper``: G
4-byte integers per row, the upper bounds only for rows whose window holds another risk). Then, for
each column group b, individuals are visited in decreasing order of time while a set of the risk
ranks *within group b* holds the members of b already visited (the "later" members): a bitset of
ranks with a Fenwick (binary indexed) tree of counts per block of 512 ranks, which stays in cache.
For an event i, two rank queries give how many of them have a risk below r_i - tol (concordant) and
up to r_i + tol (so the difference is the tied risks); the second is skipped when no other member
of b lies within tol. Memory: the rank bounds (4 G n bytes, plus 4 G bytes per row with a tied
risk) plus O(n) for the rest.

The kernel returns counts, never ratios (counts first, ratios last): for every ordered group
pair (a, b) the comparable, concordant and tied-risk pair counts, the pairs tied in time, and the
weighted numerator and denominator of eq. 7 of Wang et al. (2026).

Conventions (docs/conventions.md, "Comparable pairs and ties"; tested equal to scikit-survival):

* ``strict=False`` (default, scikit-survival's): (i, j) is comparable when event_i and
  (time_i < time_j, or time_i == time_j and j is censored); a tied risk counts 1/2.
* ``strict=True`` (the paper's literal eq. 3-4): only time_i < time_j; a tied risk counts 0.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from .._compiled import CODE_TYPES, _pairs, flags, floats, indices
from .censoring import RESIDUE, CensoringCurves, InverseCensoring, SortedRows, inverse_censoring
from .frozen import frozen_result
from .memory import USABLE_SHARE, available_memory
from .parallel import cores
from .settings import EstimatorSettings

__all__ = [
    "PairCounts",
    "PreparedPairs",
    "PairOptions",
    "IndividualContributions",
    "prepare_pairs",
    "count_pairs",
    "count_pairs_and_contributions",
    "count_pairs_factored",
    "later_member_arrays",
    "ascending_passes",
    "ascending_applies",
]


@frozen_result
class PairCounts:
    """Per-cell pair counts; every array has shape (G, G), rows a = earlier member's group.

    ``numerator`` and ``denominator`` are the weighted sums of eq. 7 (unit weights for the
    naive estimator). ``discordant`` is derived: comparable - concordant - tied_risk.

    See Also
    --------
    XCIResult : holds them (``pair_counts``).
    """

    comparable: np.ndarray
    concordant: np.ndarray
    tied_risk: np.ndarray
    tied_time: np.ndarray
    numerator: np.ndarray
    denominator: np.ndarray

    @property
    def discordant(self) -> np.ndarray:
        return self.comparable - self.concordant - self.tied_risk


#: Zero rule for weighted sums built by differencing running totals (delayed entry: a member's
#: case weight is added to its column's set at its time and subtracted at its entry). The result
#: carries a rounding error of about eps x the weight ever ADDED to the set, not x what is left,
#: so a set whose members left all weigh 0 held 4e-19 instead of 0 and a cell with only
#: zero-weight comparable pairs read 0.0 (numerator 0 over that residue) instead of undefined.
#: A set weight, or a weight below a risk, of at most RESIDUE x the weight added so far is
#: therefore 0. Without delayed entry nothing is subtracted and the rule never fires on a
#: nonzero sum of non-negative weights; it treats as 0 only weights 1e12 times smaller than those
#: that passed through the set. RESIDUE is the censoring Kaplan-Meier's (survfair._core.censoring):
#: the KM and the influence's Kaplan-Meier term apply the same rule to their weighted risk sets.
#: (The passes in survfair/_compiled/_pairs.pyx apply it with ``RESIDUE`` passed in.)


# The later member's sums, gathered in the column pass (survfair/_compiled/_pairs.pyx). Member k of
# group b is the later member of the pairs (i, k) with i an event the column pass visits while k is
# in its rank set. Each such event adds its weight w_i to its row group's running total and to every
# rank at or above its tie window (w_i / 2 within the window): the weight of the pairs k does NOT
# rank correctly. k's sums are the values at its rank when it leaves the set (at its entry, or at
# the end of the pass) minus those when it entered, and its numerator is its denominator minus that
# value. Each read is one path of a Fenwick tree of G-vectors (all G row groups from G contiguous
# values per node), where a query per row group in a pass of its own (n G weighted rank queries)
# cost as much as the point estimate again. The members still in the set at the end are read from
# one in-place prefix pass over the tree, which adds the same nodes in the same order as a query
# (the path summed from its shortest prefix up): a value that did not change while k was in the set
# cancels exactly, so a perfect ranking has numerators exactly equal to denominators and influence
# exactly 0, as before. The tree has size + 2 rows of G: slot p + 1 holds rank p, row 0 stays 0, row
# size + 1 is a read's scratch. Precision: a member's sums are differences of totals that also hold
# the weights of events visited before it entered (later times, not its pairs), so their absolute
# error is about 1e-16 of those totals, not of its own sums: 1e-12 relative on real data, but a case
# weight 10^12 times the rest on a later event would blur the small sums of earlier rows (the
# separate pass of before did not).


def _none() -> np.ndarray:
    """An absent per-row option (the passes take an empty array, not None)."""
    return np.empty(0)


def _no_positions() -> np.ndarray:
    return np.empty(0, np.int32)


@dataclass(frozen=True)
class PreparedPairs:
    """Inputs permuted into ascending time order, with risk ranks (computed once per call).

    Visiting rows in time order makes every pass read these arrays sequentially; only the rank
    sets are accessed at random. ``lower[m, b]`` / ``upper[m, b]`` are how many members of group b
    have a risk below r_m - tol / at most r_m + tol, i.e. the rank bounds of row m's tie window
    within group b. ``upper`` is kept only for the rows whose window holds another risk
    (``upper[tie_row[m]]``); for the others it would equal ``lower`` plus m itself.
    """

    order: np.ndarray  # row of each time-order position
    time: np.ndarray
    event: np.ndarray
    codes: np.ndarray
    rank: np.ndarray  # risk rank within the row's own group
    lower: np.ndarray  # (n, G); column-major from BOUNDS_BY_COLUMN groups on
    tie_row: np.ndarray  # (n,): row of ``upper`` for rows with another risk within tol, else -1
    upper: np.ndarray  # (rows with ties, G); the same order as ``lower``
    group_sizes: np.ndarray  # (G,)
    #: case weights in time order (empty: none)
    case_weight: np.ndarray = field(default_factory=_none, repr=False)
    #: entry times in time order, and the time-order positions by increasing entry
    #: (empty: no delayed entry)
    entry: np.ndarray = field(default_factory=_none, repr=False)
    entry_asc: np.ndarray = field(default_factory=_no_positions, repr=False)
    #: what the column passes read when members leave: entry, group code (-1: never a later member),
    #: risk rank and case weight of every row in decreasing order of entry, so that each pass reads
    #: them sequentially (gathering them through ``entry_asc`` made delayed entry cost 2x)
    leave: tuple = field(
        default_factory=lambda: (_none(), _no_positions(), _no_positions(), _none()), repr=False
    )
    #: competing risks: True for the rows with a competing event, in time order (empty: none)
    competing: np.ndarray = field(default_factory=lambda: np.empty(0, np.bool_), repr=False)

    @property
    def n_groups(self) -> int:
        """Number of groups G (``group_sizes`` has one entry per group, present or not)."""
        return self.group_sizes.shape[0]

    def censoring_rows(self) -> SortedRows:
        """These rows as the censoring fit reads them
        (:func:`~survfair._core.censoring.fit_censoring`): competing events count as observed
        events there."""
        observed = self.event if self.competing.shape[0] == 0 else self.event | self.competing
        return SortedRows(
            self.time, observed, self.codes, self.case_weight, self.entry, self.entries_in_order()
        )

    def entries_in_order(self) -> tuple:
        """(entry times ascending, group codes, case weights or empty) read from ``leave`` (what the
        censoring fit's risk sets need, without sorting the entries again)."""
        entry, code, _, weight = self.leave
        return entry[::-1], code[::-1], weight[::-1]


@dataclass(frozen=True)
class PairOptions:
    """How the passes weigh and count the pairs of prepared rows: everything the kernel takes
    besides the rows (their tie tolerance, case weights, entry times and competing events are
    given once, to :func:`prepare_pairs`).

    Built once per estimate -- by :meth:`of` from the checked
    :class:`~survfair._core.settings.EstimatorSettings` and the fitted censoring curves, or by
    the binary and model-based families from their own checked options -- and read by
    :func:`pass_weights`, which turns it into the compiled passes' :class:`PassWeights`.

    Attributes
    ----------
    tau : float, default=inf
        Truncation: events at time >= tau get weight 0 (they stay in the pair counts). ``inf``
        is the one encoding of "no truncation" from here down to the compiled passes (the
        settings' None becomes inf in :meth:`of` and nowhere else).
    strict : bool, default=False
        The paper's literal eqs. 3-4 instead of scikit-survival's convention.
    inverse_k : InverseCensoring or None, default=None
        The censoring curves as :func:`survfair._core.censoring.inverse_censoring` gives them:
        ``inverse_k(g, times)`` returns 1 / K_g(times) (inf where K is 0, NaN where undefined) and
        ``inverse_k.steps(g)`` the curve itself, evaluated inside the passes. None for the naive
        (unweighted) estimator.
    row_weight : ndarray of shape (n_samples,) or None, default=None
        Extra factor, in input order, multiplying the weight of every pair whose EARLIER member is
        that row (e.g. the case weights 1 / K_a(time_i) of a cumulative/dynamic AUC(t)). Alone it
        turns on weighting with pair weight ``row_weight[i]``; with ``inverse_k`` the pair weight
        is ``row_weight[i] / (K_{g_i}(t_i) K_{g_j}(t_i))``.
    n_jobs : int, default=1
        Threads for the per-group passes (bit-identical results for any value).
    """

    tau: float = math.inf
    strict: bool = False
    inverse_k: InverseCensoring | None = None
    row_weight: np.ndarray | None = field(default=None, repr=False)
    n_jobs: int = 1

    def __post_init__(self):
        # a None here would be a second encoding of "no truncation": refuse it where it is made
        if not isinstance(self.tau, numbers.Real):
            raise TypeError(f"tau must be a number (inf: no truncation), got {self.tau!r}")

    @classmethod
    def of(
        cls, settings: EstimatorSettings, curves: CensoringCurves | None = None, n_jobs: int = 1
    ) -> "PairOptions":
        """The options of an xCI estimate with these checked settings: the censoring weights of
        ``curves`` for the IPCW estimator (none for the naive one; both truncate at tau)."""
        return cls(
            tau=math.inf if settings.tau is None else float(settings.tau),
            strict=bool(settings.strict),
            inverse_k=inverse_censoring(curves) if settings.method == "ipcw" else None,
            n_jobs=n_jobs,
        )

    @property
    def truncated(self) -> bool:
        """Whether events from tau on weigh 0."""
        return self.tau < math.inf

    def column_threads(self, n_groups: int) -> int:
        """Threads of the column passes: ``n_jobs``, at most one a column (group), at least one."""
        return max(1, min(int(self.n_jobs), n_groups))


#: Below this many rows a block is not worth a thread's start-up.
_MIN_BLOCK_ROWS = 50_000

#: From this many groups on, the rank bounds ``lower`` / ``upper`` are kept column-major. The
#: column pass of group b reads every row's bound in column b: row-major, the reads are G numbers
#: apart, a cache line each from 16 groups on (at 2,000 groups most of the pass's time went to
#: them); column-major, they are one sequential read. The sweep that makes them writes rows, so
#: they are made row-major and transposed once.
BOUNDS_BY_COLUMN = 16


def _parts(n: int, n_jobs: int) -> int:
    """Blocks of at least ``_MIN_BLOCK_ROWS`` rows, at most one per thread."""
    return max(1, min(int(n_jobs), n // _MIN_BLOCK_ROWS))


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    bounds = np.linspace(0, n, max(1, parts) + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _bounds(blocks: list[tuple[int, int]]) -> np.ndarray:
    """The blocks' bounds as one int64 array (block b is [bounds[b], bounds[b + 1]))."""
    return np.array([blocks[0][0]] + [stop for _, stop in blocks], np.int64)


def _rank_sweep(by_risk, tol, sizes, out_rank, out_lower, out_tie_row, blocks, threads=1):
    """The sweep in risk order (``by_risk`` from :func:`_gather`): every row's rank within its group
    and tie-window bounds within every group; returns ``upper``.

    It works on contiguous blocks of risk positions, on OpenMP threads (compiled ``count_chunks`` /
    ``rank_chunks``): each block starts from the group counts and tied rows of the blocks before it
    (a prefix sum), so the integers written are those of one sweep from the start, whatever the
    number of blocks.
    """
    n_groups = sizes.shape[0]
    sorted_risk, code_by_risk, slot_by_risk = by_risk
    bounds = _bounds(blocks)
    members = np.zeros((len(blocks), n_groups), np.int64)
    n_tied = np.zeros(len(blocks), np.int64)
    _pairs.count_chunks(sorted_risk, code_by_risk, float(tol), bounds, members, n_tied, threads)
    seen = np.ascontiguousarray(
        np.vstack([np.zeros((1, n_groups), np.int64), np.cumsum(members, axis=0)])
    )
    tied = np.concatenate([[0], np.cumsum(n_tied)]).astype(np.int64)
    upper = np.empty((int(tied[-1]), n_groups), out_lower.dtype)
    _pairs.rank_chunks(
        sorted_risk,
        code_by_risk,
        slot_by_risk,
        float(tol),
        seen,
        tied,
        bounds,
        out_rank,
        out_lower,
        out_tie_row,
        upper,
        threads,
    )
    sizes[:] = seen[-1]
    return upper


def _gather(
    order, time, event, codes, order_risk, risk, by_time, by_risk, blocks, threads=1
) -> None:
    """Fill ``by_time`` (time, event, code in time order) and ``by_risk`` (risk, code and time-order
    position in risk order), block by block on OpenMP threads; the positions of the rows live only
    in here (peak memory at 10^7 rows matters)."""
    slot = np.empty(order.shape[0], by_risk[2].dtype)  # time-order position of every row
    out_time, out_event, out_codes = by_time
    _pairs.gather(
        order,
        floats(time),
        flags(event),
        indices(codes, CODE_TYPES),
        np.ascontiguousarray(order_risk, dtype=np.int64),
        floats(risk),
        slot,
        out_time,
        out_event.view(np.uint8),
        out_codes,
        *by_risk,
        _bounds(blocks),
        threads,
    )


def _runner(workers: int):
    """``run(function, items)``: the list of ``function(item)``, on ``workers`` Python threads
    when > 1 (only numpy's two argsorts of :func:`prepare_pairs` run this way; the compiled kernels
    have OpenMP threads of their own)."""
    if workers <= 1:
        return lambda function, items: [function(item) for item in items]

    def run(function, items):
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(function, items))

    return run


def _bounds_by_column(n_groups: int, n_bytes: int) -> bool:
    """Whether the rank bounds go column-major (:data:`BOUNDS_BY_COLUMN`): from that many groups
    on, and only where their copy fits beside them (the numbers are the same bits in either order,
    only the passes' speed differs)."""
    if n_groups < BOUNDS_BY_COLUMN:
        return False
    available = available_memory()
    return available is None or n_bytes <= USABLE_SHARE * available


def prepare_pairs(
    time,
    event,
    codes,
    risk,
    n_groups,
    tied_tol,
    order=None,
    *,
    case_weight=None,
    entry=None,
    competing=None,
    n_jobs=1,
) -> PreparedPairs:
    """Sort and rank once: the rows :func:`count_pairs`, :func:`count_pairs_and_contributions`
    and the other passes read (any number of times, with any :class:`PairOptions`).

    ``time``, ``event``, ``codes``, ``risk`` (shape (n_samples,)) are validated inputs (float64
    times, bool events, group codes in [0, n_groups), float64 risks); risks within ``tied_tol``
    of each other are tied; ``order`` holds the row indices in ascending time order when the
    caller has sorted already (None: sorted here).

    ``case_weight`` / ``entry`` / ``competing`` (shape (n_samples,), or None) are the rows' case
    weights, entry times (delayed entry) and competing-event indicators (competing risks: ``event``
    is then the cause of interest), permuted here into time order with the rest. With ``n_jobs`` > 1
    the two sorts run at once on two Python threads (numpy's sort releases the GIL) and the
    permutation and rank sweep in blocks of at least ``_MIN_BLOCK_ROWS`` rows on OpenMP threads; the
    arrays are the same for any ``n_jobs``."""
    # Neither sort needs to be stable: rows of equal time form one block, and a tie window of
    # risks is the same set whatever the order of equal risks.
    n = time.shape[0]
    index = np.int32 if n < 2**31 - 1 else np.int64  # halves the memory traffic of the passes
    sorts = [risk] if order is not None else [time, risk]
    sorted_ = _runner(min(_parts(n, n_jobs), len(sorts)))(np.argsort, sorts)
    order = sorted_[0] if order is None else order
    order = order.astype(index, copy=False)  # kept for the whole call: 4 bytes a row, not 8
    order_risk = sorted_[-1]
    del sorted_
    code = (
        np.int16 if n_groups <= np.iinfo(np.int16).max else index
    )  # 2 bytes a row, twice, at 10^8 rows
    arrays = (
        np.empty(n, np.float64),
        np.empty(n, np.bool_),
        np.empty(n, code),
        np.empty(n, index),
        np.empty((n, n_groups), index),
        np.empty(n, index),
    )
    sizes = np.zeros(n_groups, np.int64)
    blocks = _chunks(n, _parts(n, n_jobs))
    by_risk = (np.empty(n, np.float64), np.empty(n, code), np.empty(n, index))
    _gather(order, time, event, codes, order_risk, risk, arrays[:3], by_risk, blocks, len(blocks))
    del (
        order_risk
    )  # before the sweep, which writes the largest arrays (8 bytes a row at 10^8 rows matter)
    upper = _rank_sweep(by_risk, float(tied_tol), sizes, *arrays[3:], blocks, len(blocks))
    del by_risk
    if _bounds_by_column(n_groups, arrays[4].nbytes + upper.nbytes):
        arrays = (*arrays[:4], np.asfortranarray(arrays[4]), arrays[5])
        upper = np.asfortranarray(upper)
    options = {}
    if case_weight is not None:
        options["case_weight"] = np.ascontiguousarray(
            np.asarray(case_weight, dtype=np.float64)[order]
        )
    if competing is not None:
        options["competing"] = np.ascontiguousarray(np.asarray(competing, dtype=np.bool_)[order])
    if entry is not None:
        entry_in_order = np.ascontiguousarray(np.asarray(entry, dtype=np.float64)[order])
        by_entry = np.argsort(entry_in_order).astype(index, copy=False)
        desc = by_entry[::-1]
        leave_code = np.where(entry_in_order[desc] < arrays[0][desc], arrays[2][desc], -1).astype(
            index
        )
        leave_weight = options["case_weight"][desc] if "case_weight" in options else _none()
        options.update(
            entry=entry_in_order,
            entry_asc=by_entry,
            leave=(entry_in_order[desc], leave_code, arrays[3][desc], leave_weight),
        )
    return PreparedPairs(order, *arrays, upper, sizes, **options)


def prepare_sample(sample, tied_tol: float, n_jobs: int = 1) -> "PreparedPairs":
    """:func:`prepare_pairs` of a validated sample (its times, events, groups, risks, case weights,
    entry times and competing events), as :func:`survfair.xci` and its paired comparison sort it."""
    return prepare_pairs(
        sample.time,
        sample.event,
        sample.group_codes,
        sample.risk,
        sample.n_groups,
        tied_tol,
        case_weight=sample.weights,
        entry=sample.entry,
        competing=sample.competing,
        n_jobs=n_jobs,
    )


def own_factors(
    codes: np.ndarray, time: np.ndarray, n_groups: int, inverse_k, n_jobs: int = 1
) -> np.ndarray:
    """1 / K_{g_m}(t_m) of every row, each from its own group's curve (``time`` ascending;
    ``inverse_k`` as :attr:`PairOptions.inverse_k`): one pass over the rows carrying every
    group's step position (no mask or gathered copy of the times: 4 bytes a row at 10^8 rows), in
    blocks on ``n_jobs`` threads (the same numbers for any ``n_jobs``)."""
    n = time.shape[0]
    out = np.empty(n)
    curves = [_curve_arrays(inverse_k.steps(g)) for g in range(n_groups)]
    blocks = _chunks(n, _parts(n, n_jobs))
    _pairs.own_factors_all(
        indices(codes, CODE_TYPES), floats(time), curves, _bounds(blocks), out, len(blocks)
    )
    return out


def _curve_arrays(steps: tuple) -> tuple:
    """A censoring curve (times, K just after each, undefined beyond the last) as the passes read
    it."""
    times, values, undefined = steps
    return floats(times), floats(values), bool(undefined)


def _column_factor(k_times, k_values, k_undefined, t, state) -> float:
    """1 / K(t) of a right-continuous step function K (its times and K just after each), for a
    sweep whose times are monotone in either direction: the evaluation the compiled passes make.
    ``state`` = [step position, 1 / K there] (float64 array) is carried from one call to the next
    (start: [-1, 1]): the division is done once per step the sweep reaches, not once per row. Inf
    where K is 0, NaN beyond the last time when ``k_undefined``, 1 without a curve (empty
    ``k_times``): the same numbers as evaluating the curve at an array of times and dividing
    (:class:`survfair._core.censoring.InverseCensoring`)."""
    return _pairs.column_factor(*_curve_arrays((k_times, k_values, k_undefined)), float(t), state)


#: the passes' censoring curve when there is none (factor 1): (times, K, undefined beyond the last)
_NO_CURVE = (np.empty(0), np.empty(0), False)


def _weights(prep: PreparedPairs, options: PairOptions):
    """Own-curve factor 1 / K_{g_i}(t_i) (times ``row_weight``) in time order, and the column's
    curve.

    The own factors are evaluated at every row's time (:func:`own_factors`); the
    passes only use the values of events before tau. The column group's factor 1 / K_b(t) is not
    an array: each pass evaluates the curve ``inverse_k.steps(b)`` at the times it visits.
    Truncation at ``tau`` makes the passes weighted even without a curve (the naive estimator with
    ``tau``: weight 1 before tau, 0 from tau on).
    """
    inverse_k, row_weight = options.inverse_k, options.row_weight
    weighted = (
        inverse_k is not None
        or row_weight is not None
        or prep.case_weight.shape[0] > 0
        or options.truncated
    )
    n, n_groups = prep.time.shape[0], prep.n_groups
    if not weighted:
        return np.ones(1), (lambda column: _NO_CURVE), False
    own = (
        np.ones(n)
        if inverse_k is None
        else own_factors(prep.codes, prep.time, n_groups, inverse_k, options.n_jobs)
    )
    if row_weight is not None:
        own = own * np.asarray(row_weight, dtype=np.float64)[prep.order]
    if prep.case_weight.shape[0] > 0:  # the earlier member's own case weight w_i
        with np.errstate(
            invalid="ignore"
        ):  # 0 x inf beyond tau / for a zero weight: see the passes
            own = own * prep.case_weight
        own[prep.case_weight == 0] = 0.0

    def column_steps(column):
        return inverse_k.steps(column) if inverse_k is not None else _NO_CURVE

    return np.ascontiguousarray(own), column_steps, True


def count_pairs(
    rows: PreparedPairs, options: PairOptions
) -> tuple[PairCounts, tuple[int, int] | None]:
    """Count comparable, concordant and tied pairs for every ordered group pair.

    Parameters
    ----------
    rows : PreparedPairs
        The rows sorted and ranked by :func:`prepare_pairs` (which also takes their tie tolerance,
        case weights, entry times and competing events).
    options : PairOptions
        How the pairs are weighed: truncation, time convention, censoring weights, extra factor of
        the earlier member, threads.

    Returns
    -------
    counts : PairCounts
    bad : (row, column group) or None
        The first event whose weight against that column group is not finite.

    Notes
    -----
    Case weights w (finite, >= 0): a pair (i, j) weighs w_i w_j times its other factors; the
    integer counts stay counts of pairs. Delayed entry: j is a later member for the event of i
    only if entry_j < time_i. Competing risks (``event`` the cause of interest): a row with a
    competing event is a later member of the events before its time, and forms a pair of the
    second kind (Wolbers et al. 2014) with every event at t_i >= t_j, weighing
    ``row_weight[i] w_i w_j / (K_{g_i}(t_i) K_{g_j}(t_j))``.
    """
    counts, bad, _ = _passes(rows, options, False)
    return counts, bad


def kernel_threads(n_jobs: int | None) -> int:
    """Threads for the per-group passes: the cores ``n_jobs`` asks for
    (:func:`survfair._core.parallel.cores`, the one meaning of ``n_jobs``)."""
    return cores(n_jobs)


@dataclass(frozen=True)
class PassInputs:
    """What the compiled column passes read of the rows, in time order: :class:`PreparedPairs`
    as the compiled code takes it (events and competing flags as bytes, every row position in the
    rank's integer type; an absent option is an empty array, the one encoding of "absent" at the
    compiled boundary)."""

    time: np.ndarray
    event: np.ndarray
    codes: np.ndarray
    rank: np.ndarray
    lower: np.ndarray
    tie_row: np.ndarray
    upper: np.ndarray
    sizes: np.ndarray
    case_weight: np.ndarray
    entry: np.ndarray
    competing: np.ndarray
    leave_entry: np.ndarray
    leave_code: np.ndarray
    leave_rank: np.ndarray
    leave_weight: np.ndarray
    entry_asc: np.ndarray

    @classmethod
    def of(cls, prep: PreparedPairs) -> "PassInputs":
        index = (prep.rank.dtype.type,)
        leave_entry, leave_code, leave_rank, leave_weight = prep.leave
        return cls(
            prep.time,
            flags(prep.event),
            prep.codes,
            prep.rank,
            prep.lower,
            prep.tie_row,
            prep.upper.reshape(-1, prep.n_groups),
            np.ascontiguousarray(prep.group_sizes, dtype=np.int64),
            floats(prep.case_weight),
            floats(prep.entry),
            flags(prep.competing),
            floats(leave_entry),
            indices(leave_code, index),
            indices(leave_rank, index),
            floats(leave_weight),
            indices(prep.entry_asc, index),
        )


@dataclass(frozen=True)
class PassWeights:
    """How the passes weigh a pair: each earlier member's own factor (``own``), each column's
    censoring curve (times, K, undefined beyond the last), whether pairs are weighted at all,
    the truncation time (inf: none; the one encoding of "no truncation" the compiled passes see),
    the literal eqs. 3-4 (``strict``) and the rounding residue below which a sum is 0. Made by
    :func:`pass_weights`."""

    own: np.ndarray
    curves: list
    weighted: bool
    tau: float
    strict: bool
    residue: float


def pass_weights(prep: PreparedPairs, options: PairOptions, factors=None) -> PassWeights:
    """The passes' :class:`PassWeights` for these rows and options; ``factors`` (own factors,
    column curves) replaces the censoring weights of ``options.inverse_k`` and
    ``options.row_weight`` (:func:`count_pairs_factored`)."""
    if factors is None:
        own, column_steps, weighted = _weights(prep, options)
    else:  # count_pairs_factored: the caller's own factors and column curves
        own, column_steps, weighted = factors[0], factors[1].__getitem__, True
    curves = [_curve_arrays(column_steps(column)) for column in range(prep.n_groups)]
    return PassWeights(
        floats(own), curves, bool(weighted), float(options.tau), bool(options.strict), RESIDUE
    )


@dataclass(frozen=True)
class PassOutputs:
    """The arrays the passes write: per row (the earlier and later members' sums, and the
    competing risks' pairs of the second kind; empty when not asked), the six G x G cells, and
    each column's first event whose weight is not finite (-1: none)."""

    earlier: tuple  # (numerator, denominator), (n, G) column-major each, or (0, 0)
    later: tuple  # (numerator, denominator), (n, G) row-major each, or (0, 0)
    second: tuple  # four (n, G) arrays of the pairs of the second kind, or (0, 0) each
    cells: tuple  # comparable, concordant, tied_risk, tied_time, numerator, denominator
    bad: np.ndarray


def _passes(prep: PreparedPairs, options: PairOptions, with_contributions: bool, factors=None):
    """One column pass per group: the counts, and when asked every row's contributions as the
    earlier member (column g of them) and, for the members of group g, as the later member
    (competing risks: one more pass per group for the pairs of the second kind). Contributions stay
    in time order.

    The passes of different columns are independent: the compiled ``column_passes`` runs them in one
    OpenMP loop over the columns, on ``min(n_jobs, G)`` threads, each with its own scratch memory.
    Each pass writes only its own column of the counts and of the earlier-member contributions, and
    the later-member contributions of the rows of its group, so threads never write the same memory
    and every sum is formed in the same order as with one thread: the numbers are bit-identical for
    any ``n_jobs``.
    """
    weights = pass_weights(prep, options, factors)
    n, n_groups = prep.time.shape[0], prep.n_groups
    cells = [np.zeros((n_groups, n_groups), dtype) for dtype in (np.int64,) * 4 + (np.float64,) * 2]
    nothing = np.empty((0, 0))  # an absent output array
    shape = (n, n_groups) if with_contributions else (0, 0)
    # the earlier members' arrays column-major: each pass writes its column of them sequentially (in
    # row-major order every write was a cache line of its own: 2.5 s of 5.8 s at n = 10^6, G = 32);
    # the later members' row-major (each member's G sums are written together), as the two halves of
    # one array that the influence rows may then be written over
    rows = [np.zeros(shape, order="F"), np.zeros(shape, order="F")]
    later_block, later = None, (nothing, nothing)  # empty: the passes gather no later members' sums
    if with_contributions:
        later_block, *later = later_member_arrays(n, n_groups)
        rows += later
    competing = prep.competing.shape[0] > 0
    # competing risks: the pairs of the second kind, kept apart (the variance's censoring term needs
    # them)
    second = [np.zeros(shape) if competing else nothing for _ in range(4)]
    # absent options are empty arrays (the compiled passes test for them once per pass); every row
    # position array has the rank's dtype (one specialisation of the passes per call)
    bad_positions = np.full(n_groups, -1, np.int64)
    outputs = PassOutputs(tuple(rows[:2]), tuple(later), tuple(second), tuple(cells), bad_positions)
    _pairs.column_passes(
        PassInputs.of(prep),
        weights,
        outputs,
        bool(with_contributions),
        options.column_threads(n_groups),
    )
    bad = None
    for column in range(n_groups):
        if bad_positions[column] >= 0:
            bad = (int(prep.order[bad_positions[column]]), column)
            break
    if with_contributions and competing:
        for total, part in zip(rows, second):
            total += part
    contributions = None
    if with_contributions:
        contributions = IndividualContributions(
            *rows,
            order=prep.order,
            second_kind=tuple(second) if competing else None,
            later_block=later_block,
        )
    return PairCounts(*cells), bad, contributions


def count_pairs_factored(
    prep: PreparedPairs,
    options: PairOptions,
    *,
    own: np.ndarray,
    later_weight: np.ndarray,
    column_curves: list,
    with_contributions: bool = False,
):
    """The passes with a pair weight that factorises into three arrays given by the caller:
    ``own[m] * f_b(t_m) * later_weight[k]`` for the pair of the earlier member m and the later
    member k of group b, where ``f_b(t) = 1 / K(t)`` of ``column_curves[b]`` (a step function as
    :meth:`~survfair._core.censoring.InverseCensoring.steps` gives it: times, K just after each,
    undefined beyond the last; K may be inf, f is then 0). ``own`` and ``later_weight`` are in
    time order (``prep.order``) and replace the case weights: ``own`` must hold w_m and
    ``later_weight`` w_k if there are any. ``prep``'s case weights are ignored; its entry times
    apply. Of ``options`` the truncation, time convention and threads apply; the factors replace
    its censoring weights and row weights, which must be None. The covariate censoring model
    (:mod:`survfair._core.cox_censoring`) sums one such term per power of its series.

    Returns ``(counts, bad, contributions)`` as :func:`count_pairs_and_contributions` (the
    contributions None unless ``with_contributions``); the integer counts are those of
    :func:`count_pairs`.
    """
    if options.inverse_k is not None or options.row_weight is not None:
        raise ValueError("the factors replace inverse_k and row_weight: give options without them")
    later_weight = floats(np.ascontiguousarray(later_weight, dtype=np.float64))
    leave = prep.leave
    if prep.entry.shape[0] > 0:  # the weights leaving the sets, in decreasing order of entry
        leave = (*leave[:3], np.ascontiguousarray(later_weight[prep.entry_asc[::-1]]))
    weighted = dataclasses.replace(prep, case_weight=later_weight, leave=leave)
    curves = [_curve_arrays(curve) for curve in column_curves]
    own = np.ascontiguousarray(own, dtype=np.float64)
    return _passes(weighted, options, bool(with_contributions), factors=(own, curves))


def count_pairs_and_contributions(
    rows: PreparedPairs, options: PairOptions
) -> tuple[PairCounts, tuple[int, int] | None, "IndividualContributions"]:
    """:func:`count_pairs` plus every individual's contributions (what the analytic variance
    needs): the counts and both members' contributions come out of the same passes.
    O(G^2 n log n) time, O(G n) memory.

    Returns ``(counts, bad, contributions)``; the contributions are in time order
    (``contributions.order``), see :meth:`IndividualContributions.in_input_order`.
    """
    return _passes(rows, options, True)


def ascending_passes(prep: PreparedPairs, options: PairOptions):
    """The column passes walking up the time order, advanced chunk by chunk (the moment engine's,
    :mod:`survfair._core.moments`):
    ``passes.advance(start, stop, e_num, e_den, l_num, l_den, threads)`` fills, for the rows
    [start, stop) (whole blocks of equal time, after the rows before them), every event's earlier
    sums (zeroed column-major (stop - start, G) arrays) and every row's later sums (row-major
    (stop - start, G), every row written), with the same meaning and the same weights as
    :class:`IndividualContributions` (they differ from the descending passes' only by the rounding
    of sums taken in another order). No delayed entry, no competing risks, int32 positions
    (below 2^31 rows) and int16 group codes: :func:`ascending_applies`."""
    return _pairs.AscendingPasses(
        PassInputs.of(prep), pass_weights(prep, options), options.column_threads(prep.n_groups)
    )


def ascending_applies(prep: PreparedPairs) -> bool:
    """Whether :func:`ascending_passes` takes these prepared rows."""
    return (
        prep.entry.shape[0] == 0
        and prep.competing.shape[0] == 0
        and prep.rank.dtype == np.int32
        and prep.codes.dtype == np.int16
    )


def later_member_arrays(n: int, n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block, numerator, denominator): zeroed later members' sums, (n, G) each, as the two halves
    of one row-major (n, 2G) ``block``. Every row's numerator and denominator then share a cache
    line, and the influence rows, 2G numbers a row from three groups on, can be written over the
    block once the sums are read (:func:`survfair._core.influence.influence_rows`): the analytic
    intervals then hold 4G numbers a row, not 6G. Every maker of contributions uses it, so the
    kernels see one array layout and compile once."""
    block = np.zeros((n, 2 * n_groups))
    return block, block[:, :n_groups], block[:, n_groups:]


@dataclass(frozen=True)
class IndividualContributions:
    """Each individual's share of every cell's weighted numerator and denominator.

    Arrays of shape (n_samples, G). For individual k and group g:

    * ``earlier_numerator[k, g]``: sum over comparable pairs (k, j) with k the earlier (event)
      member and j in group g of w_{k,g} (1[r_k > r_j] + 1/2 1[tied]) -- k's row contribution
      to cell (group(k), g);
    * ``earlier_denominator[k, g]``: the same sum of weights w_{k,g};
    * ``later_numerator[k, g]``: sum over comparable pairs (i, k) with i in group g the earlier
      member of w_{i,group(k)} (1[r_i > r_k] + 1/2 1[tied]) -- k's column contribution to cell
      (g, group(k));
    * ``later_denominator[k, g]``: the same sum of weights.

    Summing ``earlier_*[:, b]`` over rows of group a gives cell (a, b), as does summing
    ``later_*[:, a]`` over rows of group b. These are the DeLong structural components (placement
    values) generalised to censored, weighted pairs. Memory is O(n G).

    ``order`` is None when row k of the arrays is input row k; otherwise the arrays are in time
    order and row m belongs to input row ``order[m]`` (the kernel's own order, which saves
    permuting four n x G arrays when the consumer can work in any order).

    ``second_kind`` (competing risks; None otherwise) holds the same four arrays for the pairs of
    the second kind alone (an event and an earlier competing event), already included in the four
    above: their later member's censoring weight is taken at its own time, not the event's.
    """

    earlier_numerator: np.ndarray
    earlier_denominator: np.ndarray
    later_numerator: np.ndarray
    later_denominator: np.ndarray
    order: np.ndarray | None = None
    second_kind: tuple | None = None
    #: the (n, 2G) array whose halves are ``later_numerator`` / ``later_denominator`` when they were
    #: made by :func:`later_member_arrays` (None otherwise): the influence rows can be written over
    #: it
    later_block: np.ndarray | None = field(default=None, repr=False)

    def in_input_order(self) -> "IndividualContributions":
        """The same contributions with row k belonging to input row k."""
        if self.order is None:
            return self

        def unpermuted(values):
            out = np.empty_like(values)
            out[self.order] = values
            return out

        arrays = [
            unpermuted(values)
            for values in (
                self.earlier_numerator,
                self.earlier_denominator,
                self.later_numerator,
                self.later_denominator,
            )
        ]
        second = (
            None
            if self.second_kind is None
            else tuple(unpermuted(values) for values in self.second_kind)
        )
        return IndividualContributions(*arrays, second_kind=second)
