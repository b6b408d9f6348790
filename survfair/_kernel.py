"""Pair-count kernel: every cell of the G x G xCI matrix in O(G n log n) time, memory linear in n.

No pair is ever materialised. One sort by time and one by risk; a sweep in risk order gives every
row its rank within its own group and the bounds of its tie window [r - tol, r + tol] as ranks
within every group (``PreparedPairs.lower`` / ``upper``: G 4-byte integers per row, the upper
bounds only for rows whose window holds another risk). Then, for each column group b, individuals are visited in
decreasing order of time while a set of the risk ranks *within group b* holds the members of b
already visited (the "later" members): a bitset of ranks with a Fenwick (binary indexed) tree of
counts per block of 512 ranks, which stays in cache. For an event i, two rank queries give how
many of them have a risk below r_i - tol (concordant) and up to r_i + tol (so the difference is
the tied risks); the second is skipped when no other member of b lies within tol. Memory: the
rank bounds (4 G n bytes, plus 4 G bytes per row with a tied risk) plus O(n) for the rest.

The kernel returns counts, never ratios (counts first, ratios last): for every ordered group
pair (a, b) the comparable, concordant and tied-risk pair counts, the pairs tied in time, and the
weighted numerator and denominator of eq. 7 of Wang et al. (2026).

Conventions (docs/conventions.md, "Comparable pairs and ties"; tested equal to scikit-survival):

* ``strict=False`` (default, scikit-survival's): (i, j) is comparable when event_i and
  (time_i < time_j, or time_i == time_j and j is censored); a tied risk counts 1/2.
* ``strict=True`` (the paper's literal eq. 3-4): only time_i < time_j; a tied risk counts 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._censoring import RESIDUE
from ._frozen import frozen_result
from ._jit import cached_njit

__all__ = [
    "PairCounts", "PreparedPairs", "IndividualContributions", "prepare_pairs", "count_pairs",
    "count_pairs_and_contributions", "later_member_arrays",
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


#: A set of ranks is a bitset plus a Fenwick tree of counts per block of 512 ranks (8 words, one
#: cache line): at n = 10^7 the bitset is 1.25 MB and stays in cache, where a Fenwick tree over all
#: ranks (40 MB) would miss on most of its levels. Counting the members below a rank reads one
#: small tree path and one cache line of the bitset.
_BLOCK_SHIFT = 9  # 512 ranks per block
#: A weighted set of ranks stores each member's weight at its rank, plus a Fenwick tree of the sums
#: per block of 64 ranks (8 cache lines): the weight below a rank is one short tree path plus a
#: contiguous run of at most 63 stored weights.
_WEIGHT_BLOCK_SHIFT = 6


# int64 constants for the arguments of the small compiled helpers: a literal 0 or 1 at a call site
# makes numba compile one more specialisation per distinct literal on the first call
_ZERO = np.int64(0)
#: Zero rule for weighted sums built by differencing running totals (delayed entry: a member's
#: case weight is added to its column's set at its time and subtracted at its entry). The result
#: carries a rounding error of about eps x the weight ever ADDED to the set, not x what is left,
#: so a set whose members left all weigh 0 held 4e-19 instead of 0 and a cell with only
#: zero-weight comparable pairs read 0.0 (numerator 0 over that residue) instead of undefined.
#: A set weight, or a weight below a risk, of at most RESIDUE x the weight added so far is
#: therefore 0. Without delayed entry nothing is subtracted and the rule never fires on a
#: nonzero sum of non-negative weights; it treats as 0 only weights 1e12 times smaller than those
#: that passed through the set. RESIDUE is the censoring Kaplan-Meier's (survfair._censoring):
#: the KM and the influence's Kaplan-Meier term apply the same rule to their weighted risk sets.
_ONE = np.int64(1)


@cached_njit(nogil=True)
def _popcount(word):
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = (word & np.uint64(0x3333333333333333)) + ((word >> np.uint64(2)) & np.uint64(0x3333333333333333))
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((word * np.uint64(0x0101010101010101)) >> np.uint64(56))


@cached_njit(nogil=True)
def _rankset_new(size):
    words = np.zeros((size >> 6) + 1, np.uint64)
    blocks = np.zeros((size >> _BLOCK_SHIFT) + 2, np.int64)
    return words, blocks


@cached_njit(nogil=True)
def _rankset_add(words, blocks, rank):
    """Insert ``rank`` (each rank at most once)."""
    words[rank >> 6] |= np.uint64(1) << np.uint64(rank & 63)
    _fenwick_add(blocks, _ZERO, (rank >> _BLOCK_SHIFT) + 1, blocks.shape[0] - 1, _ONE)


@cached_njit(nogil=True)
def _rankset_remove(words, blocks, rank):
    """Remove ``rank`` (a member that is in the set)."""
    words[rank >> 6] &= ~(np.uint64(1) << np.uint64(rank & 63))
    _fenwick_add(blocks, _ZERO, (rank >> _BLOCK_SHIFT) + 1, blocks.shape[0] - 1, -_ONE)


@cached_njit(nogil=True)
def _weightset_add(values, blocks, rank, weight):
    """Put ``weight`` at ``rank`` of a weighted rank set (negative ``weight`` with the stored value
    removes it); see :func:`_weight_below`."""
    values[rank] += weight
    _fenwick_add(blocks, _ZERO, (rank >> _WEIGHT_BLOCK_SHIFT) + 1, blocks.shape[0] - 1, weight)


@cached_njit(nogil=True)
def _rankset_count_below(words, blocks, limit):
    """Members with rank < ``limit``."""
    block = limit >> _BLOCK_SHIFT
    total = _fenwick_sum(blocks, _ZERO, block)
    word = limit >> 6
    for w in range(block << (_BLOCK_SHIFT - 6), word):
        total += _popcount(words[w])
    remainder = limit & 63
    if remainder:
        total += _popcount(words[word] & ((np.uint64(1) << np.uint64(remainder)) - np.uint64(1)))
    return total


@cached_njit(nogil=True)
def _fenwick_add(tree, offset, slot, size, value):
    while slot <= size:
        tree[offset + slot] += value
        slot += slot & (-slot)


@cached_njit(nogil=True)
def _fenwick_sum(tree, offset, slot):
    total = tree[offset] * 0  # zero of the tree's dtype
    while slot > 0:
        total += tree[offset + slot]
        slot -= slot & (-slot)
    return total


@cached_njit(nogil=True)
def _tie_window(m, column, words, blocks, codes, lower_bound, tie_row, upper_bound):
    """Event m against a counting rank set of group ``column``: (members with a risk below
    r_m - tol, members within the tie window, whether the window may hold a member other than m,
    which is when the second query is made)."""
    lower = _rankset_count_below(words, blocks, lower_bound[m, column])
    t_row = tie_row[m]
    window = t_row >= 0 and upper_bound[t_row, column] - lower_bound[m, column] > (codes[m] == column)
    if not window:
        return lower, 0, False
    return lower, _rankset_count_below(words, blocks, upper_bound[t_row, column]) - lower, True


@cached_njit(nogil=True)
def _weighted_score(m, column, window, weights, weight_blocks, lower_bound, tie_row, upper_bound, strict):
    """Event m against a weighted rank set of group ``column``: the weight below r_m - tol, plus
    half the weight within the tie window (not if strict)."""
    below = _weight_below(weights, _ZERO, weight_blocks, _ZERO, lower_bound[m, column])
    if strict or not window:
        return below
    return below + 0.5 * (_weight_below(weights, _ZERO, weight_blocks, _ZERO, upper_bound[tie_row[m], column]) - below)


@cached_njit(nogil=True)
def _step_position(step_times, t, position):
    """Index of the last step time <= t, moved from ``position`` (its value at the previous time of
    a sweep that is monotone in either direction; -1 to start): amortised O(1) per time."""
    while position + 1 < step_times.shape[0] and step_times[position + 1] <= t:
        position += 1
    while position >= 0 and step_times[position] > t:
        position -= 1
    return position


@cached_njit(nogil=True)
def _column_factor(k_times, k_values, k_undefined, t, state):
    """1 / K(t) of a right-continuous step function K (its times and K just after each), for a
    sweep whose times are monotone in either direction. ``state`` = [step position, 1 / K there]
    is carried from one call to the next (start: [-1, 1]): the division is done once per step the
    sweep reaches, not once per row (a division per row cost 20% of the passes). Inf where K is 0,
    NaN beyond the last time when ``k_undefined``, 1 without a curve (empty ``k_times``): the same
    numbers as evaluating the curve at an array of times and dividing
    (:class:`survfair._censoring.InverseCensoring`)."""
    if k_times.shape[0] == 0:
        return 1.0
    if k_undefined and t > k_times[k_times.shape[0] - 1]:
        return np.nan
    previous = np.int64(state[0])
    position = _step_position(k_times, t, previous)
    if position != previous:
        value = 1.0 if position < 0 else k_values[position]
        state[0] = position
        state[1] = np.inf if value == 0.0 else 1.0 / value
    return state[1]


@cached_njit(nogil=True)
def _column_pass(
    column, time, event, codes, rank, lower_bound, tie_row, upper_bound, sizes, case_weight, entry, competing,
    leave_entry, leave_code, leave_rank, leave_weight, entry_asc,
    own, k_times, k_values, k_undefined, weighted, tau, strict, n_groups, per_row, out_num, out_den,
    later_num, later_den,
):
    """Counts for every row group a against column group ``column``.

    All per-row arrays are in ascending time order. Returns the six per-row-group arrays
    (length G) and the time-order position of the first event whose weight is not finite (-1
    when all are), so the caller can name the group and time. With ``per_row``, every event's
    own weighted numerator and denominator against the column group (its contributions as the
    earlier member of a pair) go to ``out_num[m, column]`` / ``out_den[m, column]`` on the way, and
    every member m of group ``column`` gets its contributions as the later member of the pairs of
    each row group a in ``later_num[m, a]`` / ``later_den[m, a]`` (see the note above
    :func:`_later_add`). ``later_num`` / ``later_den`` None: no later members' sums; numba then
    prunes their branches, so a point estimate does not compile the code that gathers them.

    ``case_weight`` (None: none) is every row's case weight w_j: the later members' weights are
    then summed in a weighted rank set beside the counting one, and a pair weighs w_j times the
    earlier member's factor (``own`` holds w_i). ``entry`` (None: none) are the entry times and
    ``leave_*`` the entry (None without delayed entry), group code, rank and case weight of every
    row in decreasing order of entry (read sequentially: see :class:`PreparedPairs`): a member
    leaves the set of later members when the sweep reaches its entry time (it was not under
    observation at earlier event times). A row whose entry is not before its time is never a later
    member (its ``leave_code`` is -1; public input has entry < time; :func:`survfair.xauc_t` uses
    this for its cases).

    ``competing`` (None: none) marks the rows with a competing event (competing risks, ``event`` is
    then the cause of interest): they are later members of the events before their own time only,
    like events (a competing event at the time of an event is a pair of the second kind, counted by
    :func:`_competing_column_pass`). Absent options are None, not empty arrays, so that numba prunes
    their branches: a pass compiles only the code of the options it is given.
    """
    n = time.shape[0]
    k_state = np.array([-1.0, 1.0])  # the column's curve: step of the current time and 1 / K there
    words, blocks = _rankset_new(sizes[column])
    has_weight = case_weight is not None
    weights = np.zeros(sizes[column] + 1 if has_weight else 1, np.float64)
    weight_blocks = np.zeros(((sizes[column] >> _WEIGHT_BLOCK_SHIFT) + 2) if has_weight else 1, np.float64)
    weight_total = 0.0
    weight_added = 0.0  # every case weight added to the set so far: the scale of RESIDUE
    next_entry = 0  # position in the leave_* arrays of the next member to leave

    comparable = np.zeros(n_groups, np.int64)
    concordant = np.zeros(n_groups, np.int64)
    tied_risk = np.zeros(n_groups, np.int64)
    tied_time = np.zeros(n_groups, np.int64)
    numerator = np.zeros(n_groups, np.float64)
    denominator = np.zeros(n_groups, np.float64)
    inserted = 0
    bad = -1
    # the later members' sums: a Fenwick tree of G-vectors over the ranks of group ``column``
    if later_num is not None:  # (defined only here: every use is behind the same test)
        later = np.zeros((sizes[column] + 2, n_groups))  # the tree of the note above _later_add
        running = np.zeros(n_groups, np.float64)  # each row group's event weight added so far

    end = n  # walk blocks of equal time from the largest time down
    while end > 0:
        start = end - 1
        t = time[start]
        while start > 0 and time[start - 1] == t:
            start -= 1
        # delayed entry: members that entered at or after t were not under observation at t
        if leave_entry is not None:
            while next_entry < leave_entry.shape[0] and leave_entry[next_entry] >= t:
                if leave_code[next_entry] == column:  # entered before its own time > t: in the set
                    _rankset_remove(words, blocks, leave_rank[next_entry])
                    inserted -= 1
                    if later_num is not None:  # its later sums end here
                        m_left = np.int64(entry_asc[leave_entry.shape[0] - 1 - next_entry])  # one compile of _later_read
                        _later_read(later, sizes[column], leave_rank[next_entry], running, 1.0, m_left, later_num,
                                    later_den)
                    if case_weight is not None:
                        _weightset_add(weights, weight_blocks, leave_rank[next_entry], -leave_weight[next_entry])
                        weight_total -= leave_weight[next_entry]
                next_entry += 1
        # censored members at this time are "later" than events at this time (not if strict)
        censored_here = 0
        for m in range(start, end):
            if codes[m] == column and not event[m] and not (competing is not None and competing[m]):
                censored_here += 1
                if not strict and not (entry is not None and entry[m] >= t):
                    _rankset_add(words, blocks, rank[m])
                    inserted += 1
                    if later_num is not None:
                        _later_read(later, sizes[column], rank[m], running, -1.0, m, later_num, later_den)
                    if case_weight is not None:
                        _weightset_add(weights, weight_blocks, rank[m], case_weight[m])
                        weight_total += case_weight[m]
                        weight_added += case_weight[m]
        if inserted > 0:
            for m in range(start, end):
                if not event[m]:
                    continue
                row = codes[m]
                lower, ties, window = _tie_window(m, column, words, blocks, codes, lower_bound, tie_row, upper_bound)
                comparable[row] += inserted
                concordant[row] += lower
                tied_risk[row] += ties
                if not strict:
                    tied_time[row] += censored_here
                w = 1.0
                if weighted:
                    if t >= tau or own[m] == 0.0:  # a zero case weight weighs 0 whatever K is
                        w = 0.0
                    else:
                        inv_k = _column_factor(k_times, k_values, k_undefined, t, k_state)
                        w = own[m] * inv_k
                        if not np.isfinite(w) and bad < 0:
                            bad = m
                if case_weight is not None:  # the later members' summed case weights replace their counts
                    score = _weighted_score(m, column, window, weights, weight_blocks, lower_bound, tie_row,
                                            upper_bound, strict)
                    total = weight_total
                    if leave_entry is not None:  # differences of running totals: the zero rule (RESIDUE)
                        residue = RESIDUE * weight_added
                        if abs(total) <= residue:
                            total = 0.0
                            score = 0.0
                        elif abs(score) <= residue:
                            score = 0.0
                else:
                    score = lower if strict else lower + 0.5 * ties
                    total = inserted
                numerator[row] += w * score
                denominator[row] += w * total
                if per_row:
                    out_num[m, column] = w * score
                    out_den[m, column] = w * total
                if later_num is not None:
                    if w != 0.0 and np.isfinite(w):  # an infinite weight is reported (bad), not summed
                        _later_add(later, sizes[column], row, w, lower_bound[m, column],
                                   upper_bound[tie_row[m], column] if window and not strict else -1)
                        running[row] += w
        for m in range(start, end):
            observed = event[m] or (competing is not None and competing[m])
            if codes[m] == column and (observed or strict) and not (entry is not None and entry[m] >= t):
                _rankset_add(words, blocks, rank[m])
                inserted += 1
                if later_num is not None:
                    _later_read(later, sizes[column], rank[m], running, -1.0, m, later_num, later_den)
                if case_weight is not None:
                    _weightset_add(weights, weight_blocks, rank[m], case_weight[m])
                    weight_total += case_weight[m]
                    weight_added += case_weight[m]
        end = start
    if later_num is not None:
        _later_finish(later, sizes[column], running, column, codes, rank, words, case_weight, later_num, later_den)
    return comparable, concordant, tied_risk, tied_time, numerator, denominator, bad


# The later member's sums, gathered in the column pass. Member k of group b is the later member of
# the pairs (i, k) with i an event the column pass visits while k is in its rank set. Each such event
# adds its weight w_i to its row group's running total and to every rank at or above its tie window
# (w_i / 2 within the window): the weight of the pairs k does NOT rank correctly. k's sums are the
# values at its rank when it leaves the set (at its entry, or at the end of the pass) minus those
# when it entered, and its numerator is its denominator minus that value. Each read is one path of a
# Fenwick tree of G-vectors (all G row groups from G contiguous values per node), where a query per
# row group in a pass of its own (n G weighted rank queries) cost as much as the point estimate
# again. The members still in the set at the end are read from one in-place prefix pass over the
# tree, which adds the same nodes in the same order as a query (the path summed from its shortest
# prefix up): a value that did not change while k was in the set cancels exactly, so a perfect
# ranking has numerators exactly equal to denominators and influence exactly 0, as before.
# The tree has size + 2 rows of G: slot p + 1 holds rank p, row 0 stays 0, row size + 1 is a read's scratch.
# Precision: a member's sums are differences of totals that also hold the weights of events visited
# before it entered (later times, not its pairs), so their absolute error is about 1e-16 of those
# totals, not of its own sums: 1e-12 relative on real data, but a case weight 10^12 times the rest
# on a later event would blur the small sums of earlier rows (the separate pass of before did not).


@cached_njit(nogil=True)
def _later_add(tree, size, group, w, lower, upper):
    """Event weight ``w`` of row group ``group`` to every rank at or above ``upper`` and half of it to
    the ranks in [lower, upper) (``upper`` -1: all of it from ``lower`` up)."""
    share = w if upper < 0 else 0.5 * w
    for position in (np.int64(lower), np.int64(upper)):  # one type: a tuple numba can loop over
        slot = position + 1  # 0 for upper -1: nothing
        while 0 < slot <= size:
            tree[slot, group] += share
            slot += slot & (-slot)


@cached_njit(nogil=True)
def _later_read(tree, size, rank, running, sign, m, later_num, later_den):
    """Add ``sign`` times the value at ``rank`` (and the running totals) to member m's sums."""
    n_groups = running.shape[0]
    value = tree[size + 1]
    value[:] = 0.0
    # the prefix up to slot rank + 1, summed from its shortest part up (the order of the prefix
    # pass): the path's slots are the slot's leading bits, one more at a time
    slot = rank + 1
    prefix = 0
    bit = 1
    while bit <= slot:
        bit <<= 1
    while bit > 1:
        bit >>= 1
        if slot & bit:
            prefix |= bit
            for a in range(n_groups):
                value[a] = tree[prefix, a] + value[a]
    for a in range(n_groups):
        later_num[m, a] += sign * value[a]
        later_den[m, a] += sign * running[a]


@cached_njit(nogil=True)
def _later_finish(tree, size, running, column, codes, rank, words, case_weight, later_num, later_den):
    """Close the sums of the members still in the set (the prefix pass, in place: slot s's prefix is
    its node plus the prefix of s with its lowest bit cleared), turn every member's misranked weight
    into its numerator and weigh its sums by its case weight."""
    n_groups = running.shape[0]
    for slot in range(1, size + 1):
        parent = slot & (slot - 1)
        for a in range(n_groups):
            tree[slot, a] = tree[slot, a] + tree[parent, a]
    for m in range(codes.shape[0]):
        if codes[m] != column:
            continue
        r = rank[m]
        if (words[r >> 6] >> np.uint64(r & 63)) & np.uint64(1):
            for a in range(n_groups):
                later_num[m, a] += tree[r + 1, a]
                later_den[m, a] += running[a]
        factor = 1.0
        if case_weight is not None:
            factor = case_weight[m]
        for a in range(n_groups):
            later_num[m, a] = factor * (later_den[m, a] - later_num[m, a])
            later_den[m, a] = factor * later_den[m, a]


@cached_njit(nogil=True)
def _competing_column_pass(
    column, time, event, competing, codes, rank, lower_bound, tie_row, upper_bound, sizes, case_weight,
    own, k_times, k_values, k_undefined, weighted, tau, strict, n_groups, per_row, out_num, out_den,
):
    """The pairs of the second kind of competing risks (Wolbers et al. 2014): an event i of the cause
    of interest and a member j of group ``column`` with a competing event at t_j <= t_i.

    Visits the rows in increasing order of time; a counting rank set and a weighted one hold the
    column's competing events so far (at or before t_i). Member j weighs w_j / K_b(t_j) (its case
    weight times 1 / K_b(t_j): its own censoring weight, at its own time), the event i its
    ``own`` factor w_i / K_a(t_i) (no factor at t_i for j, who left the risk set at t_j). Returns
    what :func:`_column_pass` returns, for these pairs alone (``tied_time`` 0: a competing event is
    not a censoring); with ``per_row`` the events' contributions go to ``out_num`` / ``out_den``.
    """
    n = time.shape[0]
    k_state = np.array([-1.0, 1.0])  # the column's curve: step of the current time and 1 / K there
    words, blocks = _rankset_new(sizes[column])
    has_weight = case_weight.shape[0] > 0
    weights = np.zeros(sizes[column] + 1 if weighted else 1, np.float64)
    weight_blocks = np.zeros(((sizes[column] >> _WEIGHT_BLOCK_SHIFT) + 2) if weighted else 1, np.float64)
    weight_total = 0.0
    comparable = np.zeros(n_groups, np.int64)
    concordant = np.zeros(n_groups, np.int64)
    tied_risk = np.zeros(n_groups, np.int64)
    tied_time = np.zeros(n_groups, np.int64)
    numerator = np.zeros(n_groups, np.float64)
    denominator = np.zeros(n_groups, np.float64)
    inserted = 0
    bad = -1
    start = 0
    while start < n:
        end = start + 1
        t = time[start]
        while end < n and time[end] == t:
            end += 1
        for m in range(start, end):  # competing events at t_j <= t_i, ties included
            if codes[m] == column and competing[m]:
                _rankset_add(words, blocks, rank[m])
                inserted += 1
                if weighted:
                    inv_k = _column_factor(k_times, k_values, k_undefined, t, k_state)
                    w_j = inv_k * (case_weight[m] if has_weight else 1.0)
                    if has_weight and case_weight[m] == 0.0:
                        w_j = 0.0
                    _weightset_add(weights, weight_blocks, rank[m], w_j)
                    weight_total += w_j
        if inserted > 0:
            for m in range(start, end):
                if not event[m]:
                    continue
                row = codes[m]
                lower, ties, window = _tie_window(m, column, words, blocks, codes, lower_bound, tie_row, upper_bound)
                comparable[row] += inserted
                concordant[row] += lower
                tied_risk[row] += ties
                if weighted:
                    w = 0.0 if (t >= tau or own[m] == 0.0) else own[m]
                    score = _weighted_score(m, column, window, weights, weight_blocks, lower_bound, tie_row,
                                            upper_bound, strict)
                    total = weight_total
                    if w != 0.0 and not np.isfinite(w * total) and bad < 0:
                        bad = m
                else:
                    w = 1.0
                    score = lower if strict else lower + 0.5 * ties
                    total = inserted
                if w != 0.0:  # beyond tau: 0, even against an infinite weight of a later-censored group
                    numerator[row] += w * score
                    denominator[row] += w * total
                    if per_row:
                        out_num[m, column] = w * score
                        out_den[m, column] = w * total
        start = end
    return comparable, concordant, tied_risk, tied_time, numerator, denominator, bad


@cached_njit(nogil=True)
def _competing_later_pass(
    column, time, event, competing, codes, rank, lower_bound, tie_row, upper_bound, sizes, case_weight,
    own, k_times, k_values, k_undefined, weighted, tau, strict, n_groups, out_num, out_den,
):
    """Column contributions of the members of group ``column`` with a competing event, as the
    second member of pairs of the second kind: their sums against the events at t_i >= t_j of every
    row group (each weighing its ``own`` factor), times their own factor w_j / K_b(t_j).

    Visits the rows in decreasing order of time: the events of a time enter the per-group weighted
    rank sets before the competing events of the same time are queried (ties are pairs).
    """
    n = time.shape[0]
    k_state = np.array([-1.0, 1.0])  # the column's curve: step of the current time and 1 / K there
    value_offsets = np.zeros(n_groups + 1, np.int64)
    block_offsets = np.zeros(n_groups + 1, np.int64)
    for a in range(n_groups):
        value_offsets[a + 1] = value_offsets[a] + sizes[a]
        block_offsets[a + 1] = block_offsets[a] + (sizes[a] >> _WEIGHT_BLOCK_SHIFT) + 2
    values = np.zeros(value_offsets[n_groups], np.float64)
    blocks = np.zeros(block_offsets[n_groups], np.float64)
    total = np.zeros(n_groups, np.float64)
    has_weight = case_weight.shape[0] > 0
    end = n
    while end > 0:
        start = end - 1
        t = time[start]
        while start > 0 and time[start - 1] == t:
            start -= 1
        for m in range(start, end):
            if not event[m]:
                continue
            w = 1.0
            if weighted:
                w = 0.0 if (t >= tau or own[m] == 0.0) else own[m]
            if w == 0.0 or not np.isfinite(w):  # an infinite weight is reported by the column pass
                continue
            a = codes[m]
            values[value_offsets[a] + rank[m]] = w
            size = block_offsets[a + 1] - block_offsets[a] - 1
            _fenwick_add(blocks, block_offsets[a], (rank[m] >> _WEIGHT_BLOCK_SHIFT) + 1, size, w)
            total[a] += w
        for m in range(start, end):
            if codes[m] != column or not competing[m]:
                continue
            factor = 1.0
            if weighted:
                if has_weight and case_weight[m] == 0.0:
                    continue
                inv_k = _column_factor(k_times, k_values, k_undefined, t, k_state)
                factor = inv_k * (case_weight[m] if has_weight else 1.0)
            _later_sums(m, factor, values, value_offsets, blocks, block_offsets, total, codes, lower_bound, tie_row,
                        upper_bound, strict, n_groups, out_num, out_den)
        end = start


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
    lower: np.ndarray  # (n, G)
    tie_row: np.ndarray  # (n,): row of ``upper`` for rows with another risk within tol, else -1
    upper: np.ndarray  # (rows with ties, G)
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
    leave: tuple = field(default_factory=lambda: (_none(), _no_positions(), _no_positions(), _none()), repr=False)
    #: competing risks: True for the rows with a competing event, in time order (empty: none)
    competing: np.ndarray = field(default_factory=lambda: np.empty(0, np.bool_), repr=False)

    def entries_in_order(self) -> tuple:
        """(entry times ascending, group codes, case weights or empty) read from ``leave`` (what the
        censoring fit's risk sets need, without sorting the entries again)."""
        entry, code, _, weight = self.leave
        return entry[::-1], code[::-1], weight[::-1]


@cached_njit(nogil=True)
def _gather_by_time(order, time, event, codes, slot, out_time, out_event, out_codes, start, stop):
    """Time-order positions [start, stop): gather the rows, and record each row's position."""
    for m in range(start, stop):
        j = order[m]
        slot[j] = m
        out_time[m] = time[j]
        out_event[m] = event[j]
        out_codes[m] = codes[j]


@cached_njit(nogil=True)
def _gather_by_risk(order_risk, risk, codes, slot, sorted_risk, code_by_risk, slot_by_risk, start, stop):
    """Risk-order positions [start, stop): the risk, group and time-order position, read once at random."""
    for k in range(start, stop):
        j = order_risk[k]
        sorted_risk[k] = risk[j]
        code_by_risk[k] = codes[j]
        slot_by_risk[k] = slot[j]


@cached_njit(nogil=True)
def _window_start(sorted_risk, value, tol):
    """The tie window [value - tol, value + tol] as the risk positions [lo, hi) (binary searches:
    the same bounds a sweep from position 0 reaches; numpy's searchsorted costs 0.6 s to compile)."""
    lo = 0  # first position with a risk >= value - tol
    hi = sorted_risk.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_risk[mid] < value - tol:
            lo = mid + 1
        else:
            hi = mid
    first = lo
    hi = sorted_risk.shape[0]  # first position with a risk > value + tol
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_risk[mid] <= value + tol:
            lo = mid + 1
        else:
            hi = mid
    return first, lo


@cached_njit(nogil=True)
def _count_chunk(sorted_risk, code_by_risk, tol, n_groups, start, stop, members):
    """Members of each group among the risk positions [start, stop) (into ``members``), and how many
    of these positions have another risk in their tie window."""
    n = sorted_risk.shape[0]
    for k in range(start, stop):
        members[code_by_risk[k]] += 1
    if start >= stop:
        return 0
    lo, hi = _window_start(sorted_risk, sorted_risk[start], tol)
    n_tied = 0
    for k in range(start, stop):
        value = sorted_risk[k]
        while lo < n and sorted_risk[lo] < value - tol:
            lo += 1
        while hi < n and sorted_risk[hi] <= value + tol:
            hi += 1
        if hi - lo > 1:
            n_tied += 1
    return n_tied


@cached_njit(nogil=True)
def _rank_chunk(sorted_risk, code_by_risk, slot_by_risk, tol, seen, tied, start, stop, out_rank, out_lower,
                out_tie_row, upper):
    """Risk positions [start, stop) in order: each row's rank within its group and its tie-window
    bounds within every group. ``seen`` holds the members of each group before ``start``, ``tied``
    the rows of ``upper`` used before it."""
    n = sorted_risk.shape[0]
    n_groups = seen.shape[0]
    if start >= stop:
        return
    lo, hi = _window_start(sorted_risk, sorted_risk[start], tol)
    below = seen.copy()  # members of each group among risks < r - tol: the positions before lo
    for k in range(lo, start):
        below[code_by_risk[k]] -= 1
    upto = seen.copy()  # ... among risks <= r + tol: the positions before hi
    for k in range(start, hi):
        upto[code_by_risk[k]] += 1
    seen = seen.copy()
    for k in range(start, stop):
        value = sorted_risk[k]
        while lo < n and sorted_risk[lo] < value - tol:
            below[code_by_risk[lo]] += 1
            lo += 1
        while hi < n and sorted_risk[hi] <= value + tol:
            upto[code_by_risk[hi]] += 1
            hi += 1
        m = slot_by_risk[k]
        c = code_by_risk[k]
        out_rank[m] = seen[c]
        seen[c] += 1
        for g in range(n_groups):
            out_lower[m, g] = below[g]
        if hi - lo > 1:
            out_tie_row[m] = tied
            for g in range(n_groups):
                upper[tied, g] = upto[g]
            tied += 1
        else:
            out_tie_row[m] = -1


#: Below this many rows a block is not worth a thread's start-up.
_MIN_BLOCK_ROWS = 50_000


def _parts(n: int, n_jobs: int) -> int:
    """Blocks of at least ``_MIN_BLOCK_ROWS`` rows, at most one per thread."""
    return max(1, min(int(n_jobs), n // _MIN_BLOCK_ROWS))


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    bounds = np.linspace(0, n, max(1, parts) + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _rank_sweep(by_risk, tol, sizes, out_rank, out_lower, out_tie_row, blocks, run):
    """The sweep in risk order (``by_risk`` from :func:`_gather`): every row's rank within its group
    and tie-window bounds within every group; returns ``upper``.

    It works on contiguous blocks of risk positions, on threads: each block starts from the group
    counts and tied rows of the blocks before it (a prefix sum), so the integers written are those
    of one sweep from the start, whatever the number of blocks.
    """
    n_groups = sizes.shape[0]
    sorted_risk, code_by_risk, slot_by_risk = by_risk
    members = np.zeros((len(blocks), n_groups), np.int64)
    n_tied = run(lambda i: _count_chunk(sorted_risk, code_by_risk, tol, n_groups, *blocks[i], members[i]),
                 range(len(blocks)))
    seen = np.vstack([np.zeros((1, n_groups), np.int64), np.cumsum(members, axis=0)])
    tied = np.concatenate([[0], np.cumsum(n_tied)])
    upper = np.empty((int(tied[-1]), n_groups), out_lower.dtype)
    run(lambda i: _rank_chunk(sorted_risk, code_by_risk, slot_by_risk, tol, seen[i], int(tied[i]), *blocks[i],
                              out_rank, out_lower, out_tie_row, upper), range(len(blocks)))
    sizes[:] = seen[-1]
    return upper


def _gather(order, time, event, codes, order_risk, risk, by_time, by_risk, blocks, run) -> None:
    """Fill ``by_time`` (time, event, code in time order) and ``by_risk`` (risk, code and time-order
    position in risk order), block by block; the positions of the rows live only in here (peak
    memory at 10^7 rows matters)."""
    slot = np.empty(order.shape[0], by_risk[2].dtype)  # time-order position of every row
    run(lambda b: _gather_by_time(order, time, event, codes, slot, *by_time, *b), blocks)
    run(lambda b: _gather_by_risk(order_risk, risk, codes, slot, *by_risk, *b), blocks)


def _runner(workers: int):
    """``run(function, items)``: the list of ``function(item)``, on ``workers`` threads when > 1
    (the kernels release the GIL; each call writes only its own block)."""
    if workers <= 1:
        return lambda function, items: [function(item) for item in items]

    def run(function, items):
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(function, items))

    return run


def prepare_pairs(time, event, codes, risk, n_groups, tied_tol, order=None, *, case_weight=None,
                  entry=None, competing=None, n_jobs=1) -> PreparedPairs:
    """Sort and rank once; the result can be passed to :func:`count_pairs` and
    :func:`count_pairs_and_contributions` on the same data and ``tied_tol`` to skip their own preparation.

    ``case_weight`` / ``entry`` / ``competing`` (shape (n_samples,), or None) are the rows' case
    weights, entry times (delayed entry) and competing-event indicators (competing risks: ``event``
    is then the cause of interest), permuted here into time order with the rest. With ``n_jobs`` > 1
    the two sorts run at once and the permutation in blocks, on threads (numpy's sort and the
    compiled blocks release the GIL); the arrays are the same for any ``n_jobs``."""
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
    code = np.int16 if n_groups <= np.iinfo(np.int16).max else index  # 2 bytes a row, twice, at 10^8 rows
    arrays = (
        np.empty(n, np.float64), np.empty(n, np.bool_), np.empty(n, code), np.empty(n, index),
        np.empty((n, n_groups), index), np.empty(n, index),
    )
    sizes = np.zeros(n_groups, np.int64)
    blocks = _chunks(n, _parts(n, n_jobs))
    run = _runner(len(blocks))
    by_risk = (np.empty(n, np.float64), np.empty(n, code), np.empty(n, index))
    _gather(order, time, event, np.asarray(codes), order_risk, risk, arrays[:3], by_risk, blocks, run)
    del order_risk  # before the sweep, which writes the largest arrays (8 bytes a row at 10^8 rows matter)
    upper = _rank_sweep(by_risk, float(tied_tol), sizes, *arrays[3:], blocks, run)
    del by_risk
    options = {}
    if case_weight is not None:
        options["case_weight"] = np.ascontiguousarray(np.asarray(case_weight, dtype=np.float64)[order])
    if competing is not None:
        options["competing"] = np.ascontiguousarray(np.asarray(competing, dtype=np.bool_)[order])
    if entry is not None:
        entry_in_order = np.ascontiguousarray(np.asarray(entry, dtype=np.float64)[order])
        by_entry = np.argsort(entry_in_order).astype(index, copy=False)
        desc = by_entry[::-1]
        leave_code = np.where(entry_in_order[desc] < arrays[0][desc], arrays[2][desc], -1).astype(index)
        leave_weight = options["case_weight"][desc] if "case_weight" in options else _none()
        options.update(entry=entry_in_order, entry_asc=by_entry,
                       leave=(entry_in_order[desc], leave_code, arrays[3][desc], leave_weight))
    return PreparedPairs(order, *arrays, upper, sizes, **options)


@cached_njit(nogil=True)
def _own_factors(codes, time, group, k_times, k_values, k_undefined, out):
    """``out[m] = 1 / K_group(time[m])`` for the rows of ``group`` (``time`` ascending)."""
    k_state = np.array([-1.0, 1.0])
    for m in range(time.shape[0]):
        if codes[m] == group:
            out[m] = _column_factor(k_times, k_values, k_undefined, time[m], k_state)


def own_factors(codes: np.ndarray, time: np.ndarray, n_groups: int, inverse_k) -> np.ndarray:
    """1 / K_{g_m}(t_m) of every row, each from its own group's curve (``time`` ascending; ``inverse_k``
    as for :func:`count_pairs`): filled group by group in place, with no mask or gathered copy of the
    times (4 bytes a row at 10^8 rows)."""
    out = np.ones(time.shape[0])
    for g in range(n_groups):
        _own_factors(codes, time, g, *inverse_k.steps(g), out)
    return out


#: the passes' censoring curve when there is none (factor 1): (times, K, undefined beyond the last)
_NO_CURVE = (np.empty(0), np.empty(0), False)


def _weights(prep: PreparedPairs, n_groups, inverse_k, row_weight, tau=None):
    """Own-curve factor 1 / K_{g_i}(t_i) (times ``row_weight``) in time order, and the column's curve.

    The own factors are evaluated at every row's time (:func:`own_factors`); the
    passes only use the values of events before tau. The column group's factor 1 / K_b(t) is not
    an array: each pass evaluates the curve ``inverse_k.steps(b)`` at the times it visits.
    Truncation at ``tau`` makes the passes weighted even without a curve (the naive estimator with
    ``tau``: weight 1 before tau, 0 from tau on).
    """
    weighted = (inverse_k is not None or row_weight is not None or prep.case_weight.shape[0] > 0
                or tau is not None)
    n = prep.time.shape[0]
    if not weighted:
        return np.ones(1), (lambda column: _NO_CURVE), False
    own = np.ones(n) if inverse_k is None else own_factors(prep.codes, prep.time, n_groups, inverse_k)
    if row_weight is not None:
        own = own * np.asarray(row_weight, dtype=np.float64)[prep.order]
    if prep.case_weight.shape[0] > 0:  # the earlier member's own case weight w_i
        with np.errstate(invalid="ignore"):  # 0 x inf beyond tau / for a zero weight: see the passes
            own = own * prep.case_weight
        own[prep.case_weight == 0] = 0.0

    def column_steps(column):
        return inverse_k.steps(column) if inverse_k is not None else _NO_CURVE

    return np.ascontiguousarray(own), column_steps, True


def count_pairs(
    time: np.ndarray,
    event: np.ndarray,
    codes: np.ndarray,
    risk: np.ndarray,
    n_groups: int,
    *,
    inverse_k=None,
    tau: float | None = None,
    tied_tol: float = 1e-8,
    strict: bool = False,
    row_weight: np.ndarray | None = None,
    case_weight: np.ndarray | None = None,
    entry: np.ndarray | None = None,
    competing: np.ndarray | None = None,
    order: np.ndarray | None = None,
    prepared: PreparedPairs | None = None,
    n_jobs: int = 1,
) -> tuple[PairCounts, tuple[int, int] | None]:
    """Count comparable, concordant and tied pairs for every ordered group pair.

    Parameters
    ----------
    time, event, codes, risk : ndarray of shape (n_samples,)
        Validated inputs (float64 times, bool events, group codes in [0, n_groups), float64 risks).
    n_groups : int
        Number of groups G.
    inverse_k : InverseCensoring or None
        The censoring curves as :func:`survfair._censoring.inverse_censoring` gives them:
        ``inverse_k(g, times)`` returns 1 / K_g(times) (inf where K is 0, NaN where undefined) and
        ``inverse_k.steps(g)`` the curve itself, evaluated inside the passes. None for the naive
        (unweighted) estimator.
    tau : float or None
        Truncation: events at time >= tau get weight 0 (they stay in the pair counts).
    tied_tol : float
        Risks within ``tied_tol`` of each other are tied.
    strict : bool
        The paper's literal eq. 3-4 instead of scikit-survival's convention.
    row_weight : ndarray of shape (n_samples,) or None
        Extra per-row factor multiplying the weight of every pair whose EARLIER member is that
        row (e.g. the case weights 1 / K_a(time_i) of a cumulative/dynamic AUC(t)). Alone it turns
        on weighting with pair weight ``row_weight[i]``; with ``inverse_k`` the pair weight is
        ``row_weight[i] / (K_{g_i}(t_i) K_{g_j}(t_i))``. None (default): no extra factor.
    case_weight : ndarray of shape (n_samples,) or None
        Case weights w (finite, >= 0): a pair (i, j) weighs w_i w_j times its other factors. The
        integer counts stay counts of pairs; the weights enter the numerator and denominator.
    entry : ndarray of shape (n_samples,) or None
        Entry times (delayed entry, entry < time): j is a later member for the event of i only if
        entry_j < time_i (j was under observation then).
    competing : ndarray of shape (n_samples,), bool, or None
        Competing risks (``event`` marks the cause of interest): True where a competing event was
        observed. Such a j is a later member of the events before t_j, and forms a pair of the
        second kind (Wolbers et al. 2014) with every event at t_i >= t_j, weighing
        ``row_weight[i] w_i w_j / (K_{g_i}(t_i) K_{g_j}(t_j))``.
    order : ndarray of shape (n_samples,) or None
        Row indices in ascending time order, when the caller has sorted already.
    prepared : PreparedPairs or None
        The output of :func:`prepare_pairs` on the same data and ``tied_tol`` (then ``order`` is
        not used).
    n_jobs : int, default=1
        Threads for the per-group passes (bit-identical results for any value).

    Returns
    -------
    counts : PairCounts
    bad : (row, column group) or None
        The first event whose weight against that column group is not finite.
    """
    prep = prepared if prepared is not None else prepare_pairs(
        time, event, codes, risk, n_groups, tied_tol, order, case_weight=case_weight, entry=entry,
        competing=competing)
    counts, bad, _ = _passes(prep, n_groups, inverse_k, tau, strict, row_weight, with_contributions=False,
                             n_jobs=n_jobs)
    return counts, bad


def kernel_threads(n_jobs: int | None) -> int:
    """Threads for the per-group passes: None = every core this process may use, -1 likewise,
    -k = all but k - 1 (joblib's convention), k >= 1 = k. The cores are joblib's count (it honours
    the process's CPU affinity and container quotas)."""
    import joblib

    cores = joblib.cpu_count()
    if n_jobs is None:
        return cores
    return max(1, cores + 1 + int(n_jobs)) if n_jobs < 0 else int(n_jobs)


def _passes(prep: PreparedPairs, n_groups, inverse_k, tau, strict, row_weight, with_contributions, n_jobs=1):
    """One column pass per group: the counts, and when asked every row's contributions as the
    earlier member (column g of them) and, for the members of group g, as the later member
    (competing risks: one more pass per group for the pairs of the second kind). Contributions stay
    in time order.

    The passes of different columns are independent and release the GIL, so with ``n_jobs`` > 1
    they run on that many threads. Each pass writes only its own column of the counts and of the
    earlier-member contributions, and the later-member contributions of the rows of its group, so
    threads never write the same memory and every sum is formed in the same order as with one
    thread: the numbers are bit-identical for any ``n_jobs``.
    """
    own, column_steps, weighted = _weights(prep, n_groups, inverse_k, row_weight, tau)
    cutoff = np.inf if tau is None else float(tau)
    n = prep.time.shape[0]
    cells = [np.zeros((n_groups, n_groups), dtype) for dtype in (np.int64,) * 4 + (np.float64,) * 2]
    # (2, 2), not (1, 1), without contributions: a 1 x 1 array is also C-contiguous and numba would
    # compile the pass a second time for that layout
    shape = (n, n_groups) if with_contributions else (2, 2)
    # the earlier members' arrays column-major: each pass writes its column of them sequentially (in
    # row-major order every write was a cache line of its own: 2.5 s of 5.8 s at n = 10^6, G = 32);
    # the later members' row-major (each member's G sums are written together), as the two halves of
    # one array that the influence rows may then be written over
    rows = [np.zeros(shape, order="F"), np.zeros(shape, order="F")]
    later_block, later = None, (None, None)  # None: the pass compiles without the later members' code
    if with_contributions:
        later_block, *later = later_member_arrays(n, n_groups)
        rows += later
    competing = prep.competing.shape[0] > 0
    # competing risks: the pairs of the second kind, kept apart (the variance's censoring term needs them)
    second = [np.zeros(shape if competing else (1, 1)) for _ in range(4)]
    # absent options as None: numba then prunes their branches, so a pass without case weights,
    # delayed entry or competing events compiles without their code (31 compilations on a first
    # point estimate instead of 37: median 7.7 s against 9.4 s on this machine)
    data = (prep.time, prep.event, prep.codes, prep.rank, prep.lower, prep.tie_row, prep.upper, prep.group_sizes,
            *(None if values.shape[0] == 0 else values for values in (prep.case_weight, prep.entry, prep.competing)))
    leave = (None if prep.leave[0].shape[0] == 0 else prep.leave[0], *prep.leave[1:])
    plain = (prep.time, prep.event, prep.competing, prep.codes, prep.rank, prep.lower, prep.tie_row, prep.upper,
             prep.group_sizes, prep.case_weight)

    def one_column(column: int):
        curve = column_steps(column)
        result = _column_pass(
            column, *data, *leave, prep.entry_asc, own, *curve, weighted, cutoff, strict, n_groups,
            with_contributions, *rows[:2], *later,
        )
        if competing:
            extra = _competing_column_pass(column, *plain, own, *curve, weighted, cutoff, strict, n_groups,
                                           with_contributions, second[0], second[1])
            if with_contributions:
                _competing_later_pass(column, *plain, own, *curve, weighted, cutoff, strict, n_groups,
                                      second[2], second[3])
            bad = result[6] if result[6] >= 0 else extra[6]
            result = tuple(x + y for x, y in zip(result[:6], extra[:6])) + (bad,)
        return result

    results = _runner(min(int(n_jobs), n_groups))(one_column, range(n_groups))
    bad = None
    for column, result in enumerate(results):
        for cell, values in zip(cells, result[:6]):
            cell[:, column] = values
        if result[6] >= 0 and bad is None:
            bad = (int(prep.order[result[6]]), column)
    if with_contributions and competing:
        for total, part in zip(rows, second):
            total += part
    contributions = None
    if with_contributions:
        contributions = IndividualContributions(*rows, order=prep.order, second_kind=tuple(second) if competing else None,
                                                later_block=later_block)
    return PairCounts(*cells), bad, contributions


def count_pairs_and_contributions(
    time: np.ndarray,
    event: np.ndarray,
    codes: np.ndarray,
    risk: np.ndarray,
    n_groups: int,
    *,
    inverse_k=None,
    tau: float | None = None,
    tied_tol: float = 1e-8,
    strict: bool = False,
    row_weight: np.ndarray | None = None,
    case_weight: np.ndarray | None = None,
    entry: np.ndarray | None = None,
    competing: np.ndarray | None = None,
    prepared: PreparedPairs | None = None,
    n_jobs: int = 1,
) -> tuple[PairCounts, tuple[int, int] | None, "IndividualContributions"]:
    """:func:`count_pairs` plus every individual's contributions (what the analytic variance
    needs): the counts and both members' contributions come out of the same passes.
    O(G^2 n log n) time, O(G n) memory.

    Returns ``(counts, bad, contributions)``; the contributions are in time order
    (``contributions.order``), see :meth:`IndividualContributions.in_input_order`.
    """
    prep = prepared if prepared is not None else prepare_pairs(
        time, event, codes, risk, n_groups, tied_tol, case_weight=case_weight, entry=entry, competing=competing)
    return _passes(prep, n_groups, inverse_k, tau, strict, row_weight, with_contributions=True, n_jobs=n_jobs)


def later_member_arrays(n: int, n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block, numerator, denominator): zeroed later members' sums, (n, G) each, as the two halves
    of one row-major (n, 2G) ``block``. Every row's numerator and denominator then share a cache
    line, and the influence rows, 2G numbers a row from three groups on, can be written over the
    block once the sums are read (:func:`survfair._influence.influence_rows`): the analytic
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
    #: made by :func:`later_member_arrays` (None otherwise): the influence rows can be written over it
    later_block: np.ndarray | None = field(default=None, repr=False)

    def in_input_order(self) -> "IndividualContributions":
        """The same contributions with row k belonging to input row k."""
        if self.order is None:
            return self

        def unpermuted(values):
            out = np.empty_like(values)
            out[self.order] = values
            return out

        arrays = [unpermuted(values) for values in (self.earlier_numerator, self.earlier_denominator,
                                                     self.later_numerator, self.later_denominator)]
        second = None if self.second_kind is None else tuple(unpermuted(values) for values in self.second_kind)
        return IndividualContributions(*arrays, second_kind=second)


@cached_njit(nogil=True)
def _later_sums(m, factor, values, value_offsets, blocks, block_offsets, total, codes, lower_bound, tie_row,
                upper_bound, strict, n_groups, out_num, out_den):
    """Add ``factor`` times member m's sums against the events in the sets (every row group)."""
    for a in range(n_groups):
        if total[a] == 0.0:
            continue
        lower = _weight_below(values, value_offsets[a], blocks, block_offsets[a], lower_bound[m, a])
        not_higher = lower
        t_row = tie_row[m]
        if t_row >= 0 and upper_bound[t_row, a] - lower_bound[m, a] > (codes[m] == a):
            not_higher = _weight_below(values, value_offsets[a], blocks, block_offsets[a], upper_bound[t_row, a])
        higher = total[a] - not_higher
        if strict:
            out_num[m, a] += factor * higher
        else:
            out_num[m, a] += factor * (higher + 0.5 * (not_higher - lower))
        out_den[m, a] += factor * total[a]


@cached_njit(nogil=True)
def _weight_below(values, value_offset, blocks, block_offset, limit):
    """Sum of the weights stored at ranks < ``limit`` in one weighted rank set."""
    block = limit >> _WEIGHT_BLOCK_SHIFT
    total = _fenwick_sum(blocks, block_offset, block)
    for r in range(block << _WEIGHT_BLOCK_SHIFT, limit):
        total += values[value_offset + r]
    return total

