# cython: language_level=3
"""The pair-count kernel of :mod:`survfair._kernel`: the preparation sweeps (gathers in time and risk
order, rank and tie-window bounds in blocks of the risk order) and the column passes (counts, and
every row's contributions as the earlier and the later member of its pairs).

Every loop runs without the GIL on raw pointers; scratch memory comes from calloc/malloc and is
freed before a pass returns. The G column passes of one call run in one OpenMP ``prange`` over the
columns (each iteration allocates its own scratch and writes only its own column of the (G, G)
counts, its own column of the earlier members' arrays and the later members' rows of its own
group), so every number is the same for any thread count. An absent option is an empty array (a
NULL pointer in here), not None. See the Python wrappers in ``survfair/_core/kernel.py`` for the
algorithms; the comments there hold for the functions of the same names here.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY, NAN, fabs, isfinite
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

import numpy as np

ctypedef fused index_t:
    int32_t
    int64_t

ctypedef fused code_t:
    int16_t
    int32_t
    int64_t

ctypedef fused incode_t:
    int16_t
    int32_t
    int64_t

# A set of ranks is a bitset plus a Fenwick tree of counts per block of 512 ranks (8 words, one
# cache line): at n = 10^7 the bitset is 1.25 MB and stays in cache, where a Fenwick tree over all
# ranks (40 MB) would miss on most of its levels. Counting the members below a rank reads one small
# tree path and one cache line of the bitset. A weighted set of ranks stores each member's weight at
# its rank, plus a Fenwick tree of the sums per block of 64 ranks (8 cache lines): the weight below a
# rank is one short tree path plus a contiguous run of at most 63 stored weights.
cdef enum:
    BLOCK_SHIFT = 9  # 512 ranks per block of a counting rank set
    WEIGHT_BLOCK_SHIFT = 6  # 64 ranks per block of a weighted rank set


# ---------------------------------------------------------------------------------------------
# small helpers: popcount, Fenwick trees, rank sets, the censoring curve's step lookup

cdef inline int64_t _popcount(uint64_t word) noexcept nogil:
    word = word - ((word >> 1) & 0x5555555555555555ULL)
    word = (word & 0x3333333333333333ULL) + ((word >> 2) & 0x3333333333333333ULL)
    word = (word + (word >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return <int64_t>((word * 0x0101010101010101ULL) >> 56)


cdef inline void _fenwick_add(int64_t* tree, Py_ssize_t slot, Py_ssize_t size, int64_t value) noexcept nogil:
    while slot <= size:
        tree[slot] += value
        slot += slot & (-slot)


cdef inline int64_t _fenwick_sum(const int64_t* tree, Py_ssize_t slot) noexcept nogil:
    cdef int64_t total = 0
    while slot > 0:
        total += tree[slot]
        slot -= slot & (-slot)
    return total


cdef inline void _fenwick_add_weight(double* tree, Py_ssize_t slot, Py_ssize_t size, double value) noexcept nogil:
    while slot <= size:
        tree[slot] += value
        slot += slot & (-slot)


cdef inline double _fenwick_sum_weight(const double* tree, Py_ssize_t slot) noexcept nogil:
    cdef double total = 0.0  # slot 0 of a tree is never written: numba's tree[offset] * 0
    while slot > 0:
        total += tree[slot]
        slot -= slot & (-slot)
    return total


cdef struct RankSet:
    uint64_t* words  # (size >> 6) + 1 words
    int64_t* blocks  # Fenwick tree of counts per 512 ranks: (size >> 9) + 2 slots
    Py_ssize_t tree_size  # slots - 1


cdef inline int _rankset_new(RankSet* s, Py_ssize_t size) noexcept nogil:
    s.words = <uint64_t*>calloc((size >> 6) + 1, sizeof(uint64_t))
    s.blocks = <int64_t*>calloc((size >> BLOCK_SHIFT) + 2, sizeof(int64_t))
    s.tree_size = (size >> BLOCK_SHIFT) + 1
    return 0 if (s.words != NULL and s.blocks != NULL) else -1


cdef inline void _rankset_free(RankSet* s) noexcept nogil:
    free(s.words)
    free(s.blocks)


cdef inline void _rankset_add(RankSet* s, Py_ssize_t rank) noexcept nogil:
    s.words[rank >> 6] |= (<uint64_t>1) << (rank & 63)
    _fenwick_add(s.blocks, (rank >> BLOCK_SHIFT) + 1, s.tree_size, 1)


cdef inline void _rankset_remove(RankSet* s, Py_ssize_t rank) noexcept nogil:
    s.words[rank >> 6] &= ~((<uint64_t>1) << (rank & 63))
    _fenwick_add(s.blocks, (rank >> BLOCK_SHIFT) + 1, s.tree_size, -1)


cdef inline int64_t _rankset_count_below(const RankSet* s, Py_ssize_t limit) noexcept nogil:
    """Members with rank < ``limit``."""
    cdef Py_ssize_t block = limit >> BLOCK_SHIFT, word = limit >> 6, w
    cdef int64_t total = _fenwick_sum(s.blocks, block)
    cdef int remainder = limit & 63
    for w in range(block << (BLOCK_SHIFT - 6), word):
        total += _popcount(s.words[w])
    if remainder:
        total += _popcount(s.words[word] & (((<uint64_t>1) << remainder) - 1))
    return total


cdef inline void _weightset_add(double* values, double* blocks, Py_ssize_t tree_size, Py_ssize_t rank,
                                double weight) noexcept nogil:
    values[rank] += weight
    _fenwick_add_weight(blocks, (rank >> WEIGHT_BLOCK_SHIFT) + 1, tree_size, weight)


cdef inline double _weight_below(const double* values, const double* blocks, Py_ssize_t limit) noexcept nogil:
    """Sum of the weights stored at ranks < ``limit`` in one weighted rank set."""
    cdef Py_ssize_t block = limit >> WEIGHT_BLOCK_SHIFT, r
    cdef double total = _fenwick_sum_weight(blocks, block)
    for r in range(block << WEIGHT_BLOCK_SHIFT, limit):
        total += values[r]
    return total


cdef struct KState:
    Py_ssize_t position
    double inverse


cdef struct Curve:
    const double* times
    const double* values
    Py_ssize_t size
    bint undefined


cdef inline Py_ssize_t _step_position(const double* step_times, Py_ssize_t size, double t,
                                      Py_ssize_t position) noexcept nogil:
    while position + 1 < size and step_times[position + 1] <= t:
        position += 1
    while position >= 0 and step_times[position] > t:
        position -= 1
    return position


cdef inline double _column_factor(const Curve* k, double t, KState* state) noexcept nogil:
    """1 / K(t) for a sweep monotone in either direction (see ``_kernel._column_factor``)."""
    cdef Py_ssize_t previous, position
    cdef double value
    if k.size == 0:
        return 1.0
    if k.undefined and t > k.times[k.size - 1]:
        return NAN
    previous = state.position
    position = _step_position(k.times, k.size, t, previous)
    if position != previous:
        value = 1.0 if position < 0 else k.values[position]
        state.position = position
        state.inverse = INFINITY if value == 0.0 else 1.0 / value
    return state.inverse


def column_factor(const double[::1] k_times, const double[::1] k_values, bint k_undefined, double t,
                  double[::1] state):
    """One step of the passes' curve evaluation (``state`` = [step position, 1 / K there]), for tests."""
    cdef Curve k
    cdef KState s
    k.times = &k_times[0] if k_times.shape[0] else NULL
    k.values = &k_values[0] if k_values.shape[0] else NULL
    k.size = k_times.shape[0]
    k.undefined = k_undefined
    s.position = <Py_ssize_t>state[0]
    s.inverse = state[1]
    value = _column_factor(&k, t, &s)
    state[0] = <double>s.position
    state[1] = s.inverse
    return value


cdef int _own_block(const Curve* curves, Py_ssize_t G, const code_t* codes, const double* time, Py_ssize_t start,
                    Py_ssize_t stop, double* out) noexcept nogil:
    """Rows [start, stop) of :func:`own_factors_all`, each group's curve state starting afresh (the
    step position found does not depend on where its walk started: the same numbers)."""
    cdef KState* states = <KState*>malloc(G * sizeof(KState))
    cdef Py_ssize_t g, m
    if states == NULL:
        return -1
    for g in range(G):
        states[g].position = -1
        states[g].inverse = 1.0
    for m in range(start, stop):
        g = codes[m]
        out[m] = _column_factor(&curves[g], time[m], &states[g]) if 0 <= g < G else 1.0
    free(states)
    return 0


def own_factors_all(const code_t[::1] codes, const double[::1] time, list curves, const int64_t[::1] bounds,
                    double[::1] out, int threads):
    """``out[m] = 1 / K_{codes[m]}(time[m])`` for every row (``time`` ascending; ``curves`` holds each
    group's (times, K, undefined beyond the last); 1 for a code outside [0, G)), in one pass over
    the rows, in blocks [bounds[b], bounds[b + 1]) on ``threads`` OpenMP threads."""
    cdef Py_ssize_t G = len(curves), g, b, n_blocks = bounds.shape[0] - 1, n = time.shape[0]
    cdef const double[::1] curve_times
    cdef const double[::1] curve_values
    cdef Curve* cs = <Curve*>malloc(max(G, 1) * sizeof(Curve))
    cdef const code_t* codes_p = &codes[0] if n > 0 else NULL
    cdef const double* time_p = &time[0] if n > 0 else NULL
    cdef double* out_p = &out[0] if n > 0 else NULL
    cdef int failed = 0
    if cs == NULL:
        raise MemoryError()
    try:
        for g in range(G):
            curve_times = curves[g][0]  # the caller keeps the arrays alive for the call
            curve_values = curves[g][1]
            cs[g].size = curve_times.shape[0]
            cs[g].times = &curve_times[0] if curve_times.shape[0] > 0 else NULL
            cs[g].values = &curve_values[0] if curve_values.shape[0] > 0 else NULL
            cs[g].undefined = bool(curves[g][2])
        with nogil:
            for b in prange(n_blocks, num_threads=threads, schedule='static'):
                failed += _own_block(cs, G, codes_p, time_p, bounds[b], bounds[b + 1], out_p) != 0
    finally:
        free(cs)
    if failed:
        raise MemoryError()


# ---------------------------------------------------------------------------------------------
# the column passes

cdef struct Matrix:  # a (rows, columns) float64 array of any strides (in elements)
    double* data
    Py_ssize_t s0
    Py_ssize_t s1


cdef inline double* _at(const Matrix* a, Py_ssize_t row, Py_ssize_t column) noexcept nogil:
    return a.data + row * a.s0 + column * a.s1


cdef struct Shared:  # what every column pass reads (index arrays as void*: cast in the fused passes)
    Py_ssize_t n
    Py_ssize_t n_groups
    int index_size  # bytes of a row position (4 or 8)
    int code_size  # bytes of a group code (2, 4 or 8)
    const void* codes  # (n,) group codes
    const void* rank  # (n,) rank within the group
    const double* time
    const unsigned char* event
    # the rank bounds, (n, G) and (rows with ties, G): row-major, or column-major from
    # BOUNDS_BY_COLUMN groups on (survfair/_core/kernel.py); element (r, b) is at r * *_row + b * *_column
    const void* lower
    Py_ssize_t lower_row
    Py_ssize_t lower_column
    const void* tie_row
    const void* upper
    Py_ssize_t upper_row
    Py_ssize_t upper_column
    const int64_t* sizes
    const double* case_weight  # NULL: none
    const double* entry  # NULL: none
    const unsigned char* competing  # NULL: none
    const double* leave_entry  # NULL: no delayed entry
    Py_ssize_t n_leave
    const void* leave_code
    const void* leave_rank
    const double* leave_weight
    const void* entry_asc
    const double* own
    Curve* curves  # (G,)
    bint weighted
    bint strict
    bint per_row
    double tau
    double residue
    Matrix out_num
    Matrix out_den
    Matrix later_num
    Matrix later_den
    Matrix second[4]
    int64_t* counts[4]  # comparable, concordant, tied risk, tied time: (G, G) row-major
    double* sums[2]  # numerator, denominator
    int64_t* bad  # (G,)
    int* status  # (G,): -1 when a pass could not allocate its scratch


cdef inline Py_ssize_t _lower_at(const Shared* s, const index_t* lower_bound, Py_ssize_t row,
                                 Py_ssize_t column) noexcept nogil:
    """``lower[row, column]``, either order."""
    return lower_bound[row * s.lower_row + column * s.lower_column]


cdef inline Py_ssize_t _upper_at(const Shared* s, const index_t* upper_bound, Py_ssize_t tie_row,
                                 Py_ssize_t column) noexcept nogil:
    """``upper[tie_row, column]``, either order."""
    return upper_bound[tie_row * s.upper_row + column * s.upper_column]


cdef inline bint _tie_window(const Shared* s, Py_ssize_t m, Py_ssize_t column, const RankSet* set_,
                             const code_t* codes, const index_t* lower_bound, const index_t* tie_row,
                             const index_t* upper_bound, int64_t* lower, int64_t* ties) noexcept nogil:
    """Event m against a counting rank set of group ``column``: members below r_m - tol, within the
    tie window, and whether the window may hold a member other than m (the second query)."""
    cdef Py_ssize_t bound = _lower_at(s, lower_bound, m, column)
    cdef Py_ssize_t t_row = tie_row[m]
    lower[0] = _rankset_count_below(set_, bound)
    if t_row >= 0 and _upper_at(s, upper_bound, t_row, column) - bound > (codes[m] == column):
        ties[0] = _rankset_count_below(set_, _upper_at(s, upper_bound, t_row, column)) - lower[0]
        return True
    ties[0] = 0
    return False


cdef inline double _weighted_score(const Shared* s, Py_ssize_t m, Py_ssize_t column, bint window,
                                   const double* weights, const double* weight_blocks, const index_t* lower_bound,
                                   const index_t* tie_row, const index_t* upper_bound) noexcept nogil:
    """The weight below r_m - tol, plus half the weight within the tie window (not if strict)."""
    cdef double below = _weight_below(weights, weight_blocks, _lower_at(s, lower_bound, m, column))
    if s.strict or not window:
        return below
    return below + 0.5 * (_weight_below(weights, weight_blocks, _upper_at(s, upper_bound, tie_row[m], column))
                          - below)


# The later member's sums (see the note in survfair/_core/kernel.py): each event the column pass visits
# adds its weight to its row group's running total and to every rank at or above its tie window
# (half within the window) of a Fenwick tree of G-vectors over the ranks of the column group; a
# member's sums are the values at its rank when it leaves the set minus those when it entered. The
# tree has size + 2 rows of G: slot p + 1 holds rank p, row 0 stays 0, row size + 1 is a read's
# scratch. A read sums the path from its shortest prefix up, the order of the closing prefix pass,
# so a value that did not change while a member was in the set cancels exactly.

cdef inline void _later_add(double* tree, Py_ssize_t size, Py_ssize_t G, Py_ssize_t group, double w,
                            Py_ssize_t lower, Py_ssize_t upper) noexcept nogil:
    """Event weight ``w`` of row group ``group`` to every rank at or above ``upper`` and half of it to
    the ranks in [lower, upper) (``upper`` -1: all of it from ``lower`` up)."""
    cdef double share = w if upper < 0 else 0.5 * w
    cdef Py_ssize_t slot = lower + 1
    while 0 < slot <= size:
        tree[slot * G + group] += share
        slot += slot & (-slot)
    slot = upper + 1
    while 0 < slot <= size:
        tree[slot * G + group] += share
        slot += slot & (-slot)


cdef inline void _later_value(const double* tree, Py_ssize_t G, Py_ssize_t rank, double* value) noexcept nogil:
    """The G values at ``rank`` of a Fenwick tree of G-vectors (range adds, point reads): the path
    summed from its shortest prefix up, the order of :func:`_later_finish`'s prefix pass."""
    cdef Py_ssize_t a, slot = rank + 1, prefix = 0, bit = 1
    for a in range(G):
        value[a] = 0.0
    while bit <= slot:
        bit <<= 1
    while bit > 1:
        bit >>= 1
        if slot & bit:
            prefix |= bit
            for a in range(G):
                value[a] = tree[prefix * G + a] + value[a]


cdef inline void _later_read(double* tree, Py_ssize_t size, Py_ssize_t G, Py_ssize_t rank,
                             const double* running, double sign, Py_ssize_t m, const Matrix* later_num,
                             const Matrix* later_den) noexcept nogil:
    """Add ``sign`` times the value at ``rank`` (and the running totals) to member m's sums."""
    cdef double* value = tree + (size + 1) * G
    cdef Py_ssize_t a
    cdef double* target
    _later_value(tree, G, rank, value)
    for a in range(G):
        target = _at(later_num, m, a)
        target[0] += sign * value[a]
        target = _at(later_den, m, a)
        target[0] += sign * running[a]


cdef void _later_finish(const Shared* s, double* tree, Py_ssize_t size, const double* running, Py_ssize_t column,
                        const code_t* codes, const index_t* rank, const RankSet* set_) noexcept nogil:
    """Close the sums of the members still in the set (the in-place prefix pass), turn every member's
    misranked weight into its numerator and weigh its sums by its case weight."""
    cdef Py_ssize_t G = s.n_groups, slot, parent, a, m, r
    cdef double factor
    cdef double* num
    cdef double* den
    for slot in range(1, size + 1):
        parent = slot & (slot - 1)
        for a in range(G):
            tree[slot * G + a] = tree[slot * G + a] + tree[parent * G + a]
    for m in range(s.n):
        if codes[m] != column:
            continue
        r = rank[m]
        if (set_.words[r >> 6] >> (r & 63)) & 1:
            for a in range(G):
                num = _at(&s.later_num, m, a)
                num[0] += tree[(r + 1) * G + a]
                den = _at(&s.later_den, m, a)
                den[0] += running[a]
        factor = 1.0
        if s.case_weight != NULL:
            factor = s.case_weight[m]
        for a in range(G):
            num = _at(&s.later_num, m, a)
            den = _at(&s.later_den, m, a)
            num[0] = factor * (den[0] - num[0])
            den[0] = factor * den[0]


cdef int _column_pass(const Shared* s, Py_ssize_t column, const code_t* codes, const index_t* rank,
                      int64_t* comparable, int64_t* concordant, int64_t* tied_risk, int64_t* tied_time,
                      double* numerator, double* denominator, int64_t* bad_out) noexcept nogil:
    """Counts for every row group a against column group ``column``; returns -1 when its scratch
    memory could not be allocated (0 otherwise).

    All per-row arrays are in ascending time order; the rows are visited in blocks of equal time
    from the largest time down while a counting rank set holds the ranks within group ``column`` of
    its members already visited (the "later" members). Writes the six per-row-group sums (length G)
    and ``bad_out``, the time-order position of the first event whose weight is not finite (-1 when
    all are), so the caller can name the group and time. With ``per_row``, every event's own
    weighted numerator and denominator against the column group (its contributions as the earlier
    member of a pair) go to ``out_num[m, column]`` / ``out_den[m, column]`` on the way; with the
    later members' arrays (non-empty ``later_num``), every member m of group ``column`` gets its
    contributions as the later member of the pairs of each row group a in ``later_num[m, a]`` /
    ``later_den[m, a]`` (see the note above ``later_member_arrays`` in ``_core/kernel.py`` and
    :func:`_later_add`).

    ``case_weight`` (NULL: none) is every row's case weight w_j: the later members' weights are
    then summed in a weighted rank set beside the counting one, and a pair weighs w_j times the
    earlier member's factor (``own`` holds w_i). ``entry`` (NULL: none) are the entry times and
    ``leave_*`` the entry, group code, rank and case weight of every row in decreasing order of
    entry (read sequentially): a member leaves the set of later members when the sweep reaches its
    entry time (it was not under observation at earlier event times). A row whose entry is not
    before its time is never a later member (its ``leave_code`` is -1).

    ``competing`` (NULL: none) marks the rows with a competing event (competing risks, ``event`` is
    then the cause of interest): they are later members of the events before their own time only,
    like events (a competing event at the time of an event is a pair of the second kind, counted by
    :func:`_competing_column_pass`).

    Zero rule with delayed entry: a set weight, or a weight below a risk, of at most
    ``residue`` x the weight added to the set so far is 0 (see ``RESIDUE`` in ``_core/kernel.py``)."""
    cdef const index_t* lower_bound = <const index_t*>s.lower
    cdef const index_t* tie_row = <const index_t*>s.tie_row
    cdef const index_t* upper_bound = <const index_t*>s.upper
    cdef const index_t* leave_code = <const index_t*>s.leave_code
    cdef const index_t* leave_rank = <const index_t*>s.leave_rank
    cdef const index_t* entry_asc = <const index_t*>s.entry_asc
    cdef const double* time = s.time
    cdef const unsigned char* event = s.event
    cdef const double* case_weight = s.case_weight
    cdef const double* entry = s.entry
    cdef const unsigned char* competing = s.competing
    cdef const double* leave_entry = s.leave_entry
    cdef const double* own = s.own
    cdef Py_ssize_t G = s.n_groups, n = s.n, n_leave = s.n_leave
    cdef Py_ssize_t size = s.sizes[column]
    cdef bint has_weight = case_weight != NULL, later = s.later_num.data != NULL, strict = s.strict
    cdef bint weighted = s.weighted, per_row = s.per_row, window, observed
    cdef const Curve* curve = &s.curves[column]
    cdef KState k_state
    cdef RankSet set_
    cdef double* weights = NULL
    cdef double* weight_blocks = NULL
    cdef Py_ssize_t weight_tree_size = (size >> WEIGHT_BLOCK_SHIFT) + 1
    cdef double* tree = NULL
    cdef double* running = NULL
    cdef double weight_total = 0.0, weight_added = 0.0, t, w, inv_k, score, total, residue
    cdef Py_ssize_t next_entry = 0, end, start, m, row, r
    cdef int64_t inserted = 0, censored_here, lower, ties, bad = -1
    cdef int status = 0
    k_state.position = -1
    k_state.inverse = 1.0
    status = _rankset_new(&set_, size)
    if has_weight:
        weights = <double*>calloc(size + 1, sizeof(double))
        weight_blocks = <double*>calloc((size >> WEIGHT_BLOCK_SHIFT) + 2, sizeof(double))
        if weights == NULL or weight_blocks == NULL:
            status = -1
    if later:
        tree = <double*>calloc((size + 2) * G, sizeof(double))
        running = <double*>calloc(G, sizeof(double))
        if tree == NULL or running == NULL:
            status = -1
    if status == 0:
        end = n
        while end > 0:
            start = end - 1
            t = time[start]
            while start > 0 and time[start - 1] == t:
                start -= 1
            # delayed entry: members that entered at or after t were not under observation at t
            if leave_entry != NULL:
                while next_entry < n_leave and leave_entry[next_entry] >= t:
                    if leave_code[next_entry] == column:
                        r = leave_rank[next_entry]
                        _rankset_remove(&set_, r)
                        inserted -= 1
                        if later:
                            _later_read(tree, size, G, r, running, 1.0, entry_asc[n_leave - 1 - next_entry],
                                        &s.later_num, &s.later_den)
                        if has_weight:
                            _weightset_add(weights, weight_blocks, weight_tree_size, r, -s.leave_weight[next_entry])
                            weight_total -= s.leave_weight[next_entry]
                    next_entry += 1
            # censored members at this time are "later" than events at this time (not if strict)
            censored_here = 0
            for m in range(start, end):
                if codes[m] == column and not event[m] and not (competing != NULL and competing[m]):
                    censored_here += 1
                    if not strict and not (entry != NULL and entry[m] >= t):
                        _rankset_add(&set_, rank[m])
                        inserted += 1
                        if later:
                            _later_read(tree, size, G, rank[m], running, -1.0, m, &s.later_num, &s.later_den)
                        if has_weight:
                            _weightset_add(weights, weight_blocks, weight_tree_size, rank[m], case_weight[m])
                            weight_total += case_weight[m]
                            weight_added += case_weight[m]
            if inserted > 0:
                for m in range(start, end):
                    if not event[m]:
                        continue
                    row = codes[m]
                    window = _tie_window(s, m, column, &set_, codes, lower_bound, tie_row, upper_bound, &lower, &ties)
                    comparable[row] += inserted
                    concordant[row] += lower
                    tied_risk[row] += ties
                    if not strict:
                        tied_time[row] += censored_here
                    w = 1.0
                    if weighted:
                        if t >= s.tau or own[m] == 0.0:  # a zero case weight weighs 0 whatever K is
                            w = 0.0
                        else:
                            inv_k = _column_factor(curve, t, &k_state)
                            w = own[m] * inv_k
                            if not isfinite(w) and bad < 0:
                                bad = m
                    if has_weight:
                        score = _weighted_score(s, m, column, window, weights, weight_blocks, lower_bound, tie_row,
                                                upper_bound)
                        total = weight_total
                        if leave_entry != NULL:  # differences of running totals: the zero rule (RESIDUE)
                            residue = s.residue * weight_added
                            if fabs(total) <= residue:
                                total = 0.0
                                score = 0.0
                            elif fabs(score) <= residue:
                                score = 0.0
                    else:
                        score = <double>lower if strict else <double>lower + 0.5 * <double>ties
                        total = <double>inserted
                    numerator[row] += w * score
                    denominator[row] += w * total
                    if per_row:
                        _at(&s.out_num, m, column)[0] = w * score
                        _at(&s.out_den, m, column)[0] = w * total
                    if later:
                        if w != 0.0 and isfinite(w):  # an infinite weight is reported (bad), not summed
                            _later_add(tree, size, G, row, w, _lower_at(s, lower_bound, m, column),
                                       _upper_at(s, upper_bound, tie_row[m], column) if window and not strict else -1)
                            running[row] += w
            for m in range(start, end):
                observed = event[m] or (competing != NULL and competing[m])
                if codes[m] == column and (observed or strict) and not (entry != NULL and entry[m] >= t):
                    _rankset_add(&set_, rank[m])
                    inserted += 1
                    if later:
                        _later_read(tree, size, G, rank[m], running, -1.0, m, &s.later_num, &s.later_den)
                    if has_weight:
                        _weightset_add(weights, weight_blocks, weight_tree_size, rank[m], case_weight[m])
                        weight_total += case_weight[m]
                        weight_added += case_weight[m]
            end = start
        if later:
            _later_finish(s, tree, size, running, column, codes, rank, &set_)
    _rankset_free(&set_)
    free(weights)
    free(weight_blocks)
    free(tree)
    free(running)
    bad_out[0] = bad
    return status


cdef int _competing_column_pass(const Shared* s, Py_ssize_t column, const code_t* codes, const index_t* rank,
                                int64_t* comparable, int64_t* concordant, int64_t* tied_risk,
                                double* numerator, double* denominator, int64_t* bad_out) noexcept nogil:
    """The pairs of the second kind of competing risks: an event i of the cause of interest and a
    member j of group ``column`` with a competing event at t_j <= t_i (rows in increasing time)."""
    cdef const index_t* lower_bound = <const index_t*>s.lower
    cdef const index_t* tie_row = <const index_t*>s.tie_row
    cdef const index_t* upper_bound = <const index_t*>s.upper
    cdef const double* time = s.time
    cdef const unsigned char* event = s.event
    cdef const unsigned char* competing = s.competing
    cdef const double* case_weight = s.case_weight
    cdef const double* own = s.own
    cdef Py_ssize_t n = s.n, size = s.sizes[column]
    cdef bint has_weight = case_weight != NULL, weighted = s.weighted, strict = s.strict, window
    cdef const Curve* curve = &s.curves[column]
    cdef KState k_state
    cdef RankSet set_
    cdef double* weights
    cdef double* weight_blocks
    cdef Py_ssize_t weight_tree_size = ((size >> WEIGHT_BLOCK_SHIFT) + 2 if weighted else 1) - 1
    cdef double weight_total = 0.0, t, w, w_j, inv_k, score, total
    cdef Py_ssize_t start = 0, end, m, row
    cdef int64_t inserted = 0, lower, ties, bad = -1
    cdef int status
    k_state.position = -1
    k_state.inverse = 1.0
    status = _rankset_new(&set_, size)
    weights = <double*>calloc(size + 1 if weighted else 1, sizeof(double))
    weight_blocks = <double*>calloc(weight_tree_size + 1, sizeof(double))
    if weights == NULL or weight_blocks == NULL:
        status = -1
    if status == 0:
        while start < n:
            end = start + 1
            t = time[start]
            while end < n and time[end] == t:
                end += 1
            for m in range(start, end):  # competing events at t_j <= t_i, ties included
                if codes[m] == column and competing[m]:
                    _rankset_add(&set_, rank[m])
                    inserted += 1
                    if weighted:
                        inv_k = _column_factor(curve, t, &k_state)
                        w_j = inv_k * (case_weight[m] if has_weight else 1.0)
                        if has_weight and case_weight[m] == 0.0:
                            w_j = 0.0
                        _weightset_add(weights, weight_blocks, weight_tree_size, rank[m], w_j)
                        weight_total += w_j
            if inserted > 0:
                for m in range(start, end):
                    if not event[m]:
                        continue
                    row = codes[m]
                    window = _tie_window(s, m, column, &set_, codes, lower_bound, tie_row, upper_bound, &lower, &ties)
                    comparable[row] += inserted
                    concordant[row] += lower
                    tied_risk[row] += ties
                    if weighted:
                        w = 0.0 if (t >= s.tau or own[m] == 0.0) else own[m]
                        score = _weighted_score(s, m, column, window, weights, weight_blocks, lower_bound, tie_row,
                                                upper_bound)
                        total = weight_total
                        if w != 0.0 and not isfinite(w * total) and bad < 0:
                            bad = m
                    else:
                        w = 1.0
                        score = <double>lower if strict else <double>lower + 0.5 * <double>ties
                        total = <double>inserted
                    if w != 0.0:  # beyond tau: 0, even against an infinite weight of a later-censored group
                        numerator[row] += w * score
                        denominator[row] += w * total
                        if s.per_row:
                            _at(&s.second[0], m, column)[0] = w * score
                            _at(&s.second[1], m, column)[0] = w * total
            start = end
    _rankset_free(&set_)
    free(weights)
    free(weight_blocks)
    bad_out[0] = bad
    return status


cdef inline void _later_sums(const Shared* s, Py_ssize_t m, double factor, const double* values,
                             const int64_t* value_offsets, const double* blocks, const int64_t* block_offsets,
                             const double* total, const code_t* codes, const index_t* lower_bound,
                             const index_t* tie_row, const index_t* upper_bound) noexcept nogil:
    """Add ``factor`` times member m's sums against the events in the sets (every row group)."""
    cdef Py_ssize_t G = s.n_groups, a, t_row
    cdef double lower, not_higher, higher
    cdef double* target
    for a in range(G):
        if total[a] == 0.0:
            continue
        lower = _weight_below(values + value_offsets[a], blocks + block_offsets[a], _lower_at(s, lower_bound, m, a))
        not_higher = lower
        t_row = tie_row[m]
        if t_row >= 0 and _upper_at(s, upper_bound, t_row, a) - _lower_at(s, lower_bound, m, a) > (codes[m] == a):
            not_higher = _weight_below(values + value_offsets[a], blocks + block_offsets[a],
                                       _upper_at(s, upper_bound, t_row, a))
        higher = total[a] - not_higher
        target = _at(&s.second[2], m, a)
        if s.strict:
            target[0] += factor * higher
        else:
            target[0] += factor * (higher + 0.5 * (not_higher - lower))
        target = _at(&s.second[3], m, a)
        target[0] += factor * total[a]


cdef int _competing_later_pass(const Shared* s, Py_ssize_t column, const code_t* codes,
                               const index_t* rank) noexcept nogil:
    """Column contributions of the members of group ``column`` with a competing event, as the second
    member of pairs of the second kind (rows in decreasing time: a time's events enter the per-group
    weighted rank sets before its competing events are queried)."""
    cdef const index_t* lower_bound = <const index_t*>s.lower
    cdef const index_t* tie_row = <const index_t*>s.tie_row
    cdef const index_t* upper_bound = <const index_t*>s.upper
    cdef const double* time = s.time
    cdef const unsigned char* event = s.event
    cdef const unsigned char* competing = s.competing
    cdef const double* case_weight = s.case_weight
    cdef const double* own = s.own
    cdef Py_ssize_t G = s.n_groups, n = s.n, a, start, end, m
    cdef bint has_weight = case_weight != NULL, weighted = s.weighted
    cdef const Curve* curve = &s.curves[column]
    cdef KState k_state
    cdef int64_t* value_offsets = <int64_t*>calloc(G + 1, sizeof(int64_t))
    cdef int64_t* block_offsets = <int64_t*>calloc(G + 1, sizeof(int64_t))
    cdef double* values = NULL
    cdef double* blocks = NULL
    cdef double* total = <double*>calloc(G, sizeof(double))
    cdef double t, w, factor, inv_k
    cdef int status = 0
    k_state.position = -1
    k_state.inverse = 1.0
    if value_offsets == NULL or block_offsets == NULL or total == NULL:
        status = -1
    else:
        for a in range(G):
            value_offsets[a + 1] = value_offsets[a] + s.sizes[a]
            block_offsets[a + 1] = block_offsets[a] + (s.sizes[a] >> WEIGHT_BLOCK_SHIFT) + 2
        values = <double*>calloc(value_offsets[G] + 1, sizeof(double))
        blocks = <double*>calloc(block_offsets[G] + 1, sizeof(double))
        if values == NULL or blocks == NULL:
            status = -1
    if status == 0:
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
                    w = 0.0 if (t >= s.tau or own[m] == 0.0) else own[m]
                if w == 0.0 or not isfinite(w):  # an infinite weight is reported by the column pass
                    continue
                a = codes[m]
                values[value_offsets[a] + rank[m]] = w
                _fenwick_add_weight(blocks + block_offsets[a], (rank[m] >> WEIGHT_BLOCK_SHIFT) + 1,
                                    block_offsets[a + 1] - block_offsets[a] - 1, w)
                total[a] += w
            for m in range(start, end):
                if codes[m] != column or not competing[m]:
                    continue
                factor = 1.0
                if weighted:
                    if has_weight and case_weight[m] == 0.0:
                        continue
                    inv_k = _column_factor(curve, t, &k_state)
                    factor = inv_k * (case_weight[m] if has_weight else 1.0)
                _later_sums(s, m, factor, values, value_offsets, blocks, block_offsets, total, codes, lower_bound,
                            tie_row, upper_bound)
            end = start
    free(value_offsets)
    free(block_offsets)
    free(values)
    free(blocks)
    free(total)
    return status


cdef void _one_column(const Shared* s, Py_ssize_t column, const code_t* codes, const index_t* rank) noexcept nogil:
    """Every pass of column ``column``: its column of the counts, its ``bad`` slot, its status."""
    cdef Py_ssize_t G = s.n_groups, a, k
    cdef int64_t* counts = <int64_t*>calloc(8 * G, sizeof(int64_t))  # 4 arrays, then the competing ones
    cdef double* sums = <double*>calloc(4 * G, sizeof(double))
    cdef int64_t bad = -1, extra_bad = -1
    cdef int status = 0
    if counts == NULL or sums == NULL:
        status = -1
    else:
        status = _column_pass(s, column, codes, rank, counts, counts + G, counts + 2 * G, counts + 3 * G,
                              sums, sums + G, &bad)
        if status == 0 and s.competing != NULL:
            status = _competing_column_pass(s, column, codes, rank, counts + 4 * G, counts + 5 * G, counts + 6 * G,
                                            sums + 2 * G, sums + 3 * G, &extra_bad)
            if status == 0 and s.later_num.data != NULL:
                status = _competing_later_pass(s, column, codes, rank)
            if bad < 0:
                bad = extra_bad
            for k in range(4):
                for a in range(G):
                    counts[k * G + a] = counts[k * G + a] + counts[(4 + k) * G + a]
            for k in range(2):
                for a in range(G):
                    sums[k * G + a] = sums[k * G + a] + sums[(2 + k) * G + a]
        for k in range(4):
            for a in range(G):
                s.counts[k][a * G + column] = counts[k * G + a]
        for k in range(2):
            for a in range(G):
                s.sums[k][a * G + column] = sums[k * G + a]
    s.bad[column] = bad
    s.status[column] = status
    free(counts)
    free(sums)


cdef inline Matrix _matrix(double[:, :] values):
    cdef Matrix out
    out.data = &values[0, 0] if values.shape[0] > 0 and values.shape[1] > 0 else NULL
    out.s0 = values.strides[0] // sizeof(double)
    out.s1 = values.strides[1] // sizeof(double)
    return out


# The one way into the passes: :func:`column_passes` and :class:`AscendingPasses` take the Python
# bundles (survfair._core.kernel's PassInputs, PassWeights, PassOutputs) and fill the ``Shared`` struct
# from them here, each array checked once (dtype, C order) where it crosses; an absent option is an
# empty array and becomes a NULL pointer. The passes are then specialised on the integer types of the
# row positions and group codes.

cdef const void* _address(object values, object dtype, str name) except? NULL:
    """The first element of ``values``, a C-ordered array of ``dtype`` (NULL when empty)."""
    cdef const unsigned char[::1] raw
    if values.dtype != dtype or not values.flags.c_contiguous:
        raise TypeError(f"the passes' {name}: a C-ordered {np.dtype(dtype).name} array, not a "
                        f"{'C-ordered' if values.flags.c_contiguous else 'strided'} {values.dtype} one")
    if values.size == 0:
        return NULL
    raw = values.reshape(-1).view(np.uint8)
    return &raw[0]


cdef const void* _bounds_address(object values, object dtype, str name, Py_ssize_t* row_step,
                                 Py_ssize_t* column_step) except? NULL:
    """The first element of a 2-D array of rank bounds of ``dtype``, row-major or column-major (NULL
    when empty), and the steps, in elements, from one row and from one column to the next."""
    cdef bint by_column
    if values.ndim != 2:
        raise ValueError(f"the passes' {name}: a 2-D array, not {values.ndim}-D")
    by_column = not values.flags.c_contiguous and values.flags.f_contiguous
    row_step[0] = 1 if by_column else values.shape[1]
    column_step[0] = values.shape[0] if by_column else 1
    return _address(values.T if by_column else values, dtype, name)


cdef void* _writable(object values, object dtype, str name) except? NULL:
    """:func:`_address` of an output array (which must be writable)."""
    if values.dtype != dtype or not values.flags.c_contiguous or not values.flags.writeable:
        raise TypeError(f"the passes' {name}: a writable C-ordered {np.dtype(dtype).name} array")
    return <void*>_address(values, dtype, name)


cdef void _check_length(object values, Py_ssize_t length, str name, bint optional) except *:
    """``values`` holds ``length`` rows (or none, when the option is ``optional``): a short array
    would be read beyond its end."""
    if values.shape[0] != length and not (optional and values.shape[0] == 0):
        raise ValueError(f"the passes' {name}: {values.shape[0]} rows, not {length}")


cdef Matrix _output_matrix(object values, Py_ssize_t n, Py_ssize_t G, str name) except *:
    """An (n, G) float64 output of any strides, or an absent (0, 0) one."""
    if values.dtype != np.float64 or not values.flags.writeable or values.ndim != 2:
        raise TypeError(f"the passes' {name}: a writable 2-D float64 array")
    if values.size > 0 and (values.shape[0] != n or values.shape[1] != G):
        raise ValueError(f"the passes' {name}: shape {values.shape}, not ({n}, {G})")
    return _matrix(values)


cdef void _fill_rows(Shared* s, object rows) except *:
    """The rows in time order (a PassInputs) into ``s``: row positions in the rank's integer type
    (int32 or int64), group codes int16, int32 or int64."""
    cdef object index = rows.rank.dtype
    if index != np.int32 and index != np.int64:
        raise TypeError(f"the passes' rank: int32 or int64 positions, not {index}")
    if rows.codes.dtype not in (np.int16, np.int32, np.int64):
        raise TypeError(f"the passes' codes: int16, int32 or int64 group codes, not {rows.codes.dtype}")
    s.n = rows.time.shape[0]
    s.n_groups = rows.sizes.shape[0]
    s.index_size = index.itemsize
    s.code_size = rows.codes.dtype.itemsize
    s.time = <const double*>_address(rows.time, np.float64, "time")
    s.event = <const unsigned char*>_address(rows.event, np.uint8, "event")
    s.codes = _address(rows.codes, rows.codes.dtype, "codes")
    s.rank = _address(rows.rank, index, "rank")
    s.lower = _bounds_address(rows.lower, index, "lower", &s.lower_row, &s.lower_column)
    s.tie_row = _address(rows.tie_row, index, "tie_row")
    s.upper = _bounds_address(rows.upper, index, "upper", &s.upper_row, &s.upper_column)
    s.sizes = <const int64_t*>_address(rows.sizes, np.int64, "sizes")
    s.case_weight = <const double*>_address(rows.case_weight, np.float64, "case_weight")
    s.entry = <const double*>_address(rows.entry, np.float64, "entry")
    s.competing = <const unsigned char*>_address(rows.competing, np.uint8, "competing")
    s.leave_entry = <const double*>_address(rows.leave_entry, np.float64, "leave_entry")
    s.n_leave = rows.leave_entry.shape[0]
    s.leave_code = _address(rows.leave_code, index, "leave_code")
    s.leave_rank = _address(rows.leave_rank, index, "leave_rank")
    s.leave_weight = <const double*>_address(rows.leave_weight, np.float64, "leave_weight")
    s.entry_asc = _address(rows.entry_asc, index, "entry_asc")
    if rows.lower.shape[0] != s.n or rows.lower.shape[1] != s.n_groups:
        raise ValueError("the passes' lower: one row of G bounds per row")
    for name in ("event", "codes", "rank", "tie_row"):
        _check_length(getattr(rows, name), s.n, name, False)
    for name in ("case_weight", "entry", "competing"):
        _check_length(getattr(rows, name), s.n, name, True)
    for name in ("leave_code", "leave_rank", "entry_asc"):
        _check_length(getattr(rows, name), s.n_leave, name, False)
    _check_length(rows.leave_weight, s.n_leave, "leave_weight", True)
    if s.n_groups > 0 and (rows.upper.shape[1] != s.n_groups or
                           (s.n > 0 and rows.tie_row.max() >= rows.upper.shape[0])):
        raise ValueError("the passes' upper: a row of G bounds for every tie row")


cdef void _fill_weights(Shared* s, object weights) except *:
    """How pairs are weighed (a PassWeights) into ``s``: ``s.curves`` is allocated here, one curve
    per column (free it when the passes are done; the curve arrays must outlive them)."""
    cdef Py_ssize_t G = s.n_groups, column
    if len(weights.curves) != G:
        raise ValueError("one curve per column group")
    s.own = <const double*>_address(weights.own, np.float64, "own")
    s.weighted = weights.weighted
    s.strict = weights.strict
    s.tau = weights.tau
    s.residue = weights.residue
    s.curves = <Curve*>calloc(G if G > 0 else 1, sizeof(Curve))
    if s.curves == NULL:
        raise MemoryError()
    for column in range(G):
        times, values, undefined = weights.curves[column]
        _check_length(values, times.shape[0], "curve values", False)
        s.curves[column].size = times.shape[0]
        s.curves[column].times = <const double*>_address(times, np.float64, "curve times")
        s.curves[column].values = <const double*>_address(values, np.float64, "curve values")
        s.curves[column].undefined = bool(undefined)


cdef void _fill_outputs(Shared* s, object outputs, bint per_row) except *:
    """The arrays the passes write (a PassOutputs) into ``s``."""
    cdef Py_ssize_t k, n = s.n, G = s.n_groups
    s.per_row = per_row
    s.out_num = _output_matrix(outputs.earlier[0], n, G, "earlier numerators")
    s.out_den = _output_matrix(outputs.earlier[1], n, G, "earlier denominators")
    s.later_num = _output_matrix(outputs.later[0], n, G, "later numerators")
    s.later_den = _output_matrix(outputs.later[1], n, G, "later denominators")
    for k in range(4):
        s.second[k] = _output_matrix(outputs.second[k], n, G, "second kind")
    for k in range(6):
        if outputs.cells[k].size != G * G:
            raise ValueError(f"the passes' cells: {outputs.cells[k].size} numbers, not {G} x {G}")
    for k in range(4):
        s.counts[k] = <int64_t*>_writable(outputs.cells[k], np.int64, "counts")
    for k in range(2):
        s.sums[k] = <double*>_writable(outputs.cells[4 + k], np.float64, "sums")
    _check_length(outputs.bad, G, "bad", False)
    s.bad = <int64_t*>_writable(outputs.bad, np.int64, "bad")


cdef void _columns(const Shared* s, const code_t* codes, const index_t* rank, int threads) noexcept nogil:
    """Every column's passes, one OpenMP iteration per column."""
    cdef Py_ssize_t column
    for column in prange(s.n_groups, num_threads=threads, schedule='dynamic'):
        _one_column(s, column, codes, rank)


cdef void _all_columns(const Shared* s, int threads) noexcept nogil:
    """:func:`_columns` specialised on the rows' integer types."""
    if s.index_size == 4:
        if s.code_size == 2:
            _columns(s, <const int16_t*>s.codes, <const int32_t*>s.rank, threads)
        elif s.code_size == 4:
            _columns(s, <const int32_t*>s.codes, <const int32_t*>s.rank, threads)
        else:
            _columns(s, <const int64_t*>s.codes, <const int32_t*>s.rank, threads)
    else:
        if s.code_size == 2:
            _columns(s, <const int16_t*>s.codes, <const int64_t*>s.rank, threads)
        elif s.code_size == 4:
            _columns(s, <const int32_t*>s.codes, <const int64_t*>s.rank, threads)
        else:
            _columns(s, <const int64_t*>s.codes, <const int64_t*>s.rank, threads)


def column_passes(inputs, weights, outputs, bint per_row, int threads):
    """All G column passes (and the competing passes) in one OpenMP loop over the columns.

    ``inputs`` (:class:`survfair._core.kernel.PassInputs`): the rows in time order; ``weights``
    (:class:`~survfair._core.kernel.PassWeights`): how a pair is weighed; ``outputs``
    (:class:`~survfair._core.kernel.PassOutputs`): the arrays written (the per-row sums only when
    ``per_row``). Empty ``case_weight`` / ``entry`` / ``competing`` / ``leave_entry``: no such
    option; empty later sums: none gathered (the earlier members' sums are written when
    ``per_row``, the pairs of the second kind with competing risks and ``per_row``). Each column's
    curve is (times, K, undefined beyond the last; empty times: no curve). ``outputs.bad[b]``
    becomes the time-order position of the first event whose weight against column b is not
    finite (-1: none). Raises TypeError for an array of the wrong type or layout (or a read-only
    output), ValueError for one of the wrong length, MemoryError when a pass could not allocate its
    scratch memory.
    """
    cdef Shared s
    cdef int failed = 0
    cdef Py_ssize_t column
    memset(&s, 0, sizeof(Shared))
    _fill_rows(&s, inputs)
    _fill_outputs(&s, outputs, per_row)
    s.status = <int*>calloc(s.n_groups if s.n_groups > 0 else 1, sizeof(int))
    if s.status == NULL:
        raise MemoryError()
    try:
        _fill_weights(&s, weights)
        if s.n > 0:
            with nogil:
                _all_columns(&s, threads)
        for column in range(s.n_groups):
            if s.status[column] != 0:
                failed = 1
    finally:
        free(s.curves)
        free(s.status)
    if failed:
        raise MemoryError("the column passes could not allocate their scratch memory")


# ---------------------------------------------------------------------------------------------
# the preparation: gathers, and the rank sweep in blocks of the risk order

def gather(const index_t[::1] order, const double[::1] time, const unsigned char[::1] event,
           const incode_t[::1] codes, const int64_t[::1] order_risk, const double[::1] risk, index_t[::1] slot,
           double[::1] out_time, unsigned char[::1] out_event, code_t[::1] out_codes, double[::1] sorted_risk,
           code_t[::1] code_by_risk, index_t[::1] slot_by_risk, const int64_t[::1] bounds, int threads):
    """Time-order positions block by block: the time, event and code of each, and every row's
    position (``slot``); then risk-order positions: the risk, code and time-order position."""
    cdef Py_ssize_t n_blocks = bounds.shape[0] - 1, b, m, k
    cdef Py_ssize_t j
    with nogil:
        for b in prange(n_blocks, num_threads=threads, schedule='static'):
            for m in range(bounds[b], bounds[b + 1]):
                j = order[m]
                slot[j] = m
                out_time[m] = time[j]
                out_event[m] = event[j]
                out_codes[m] = <code_t>codes[j]
        for b in prange(n_blocks, num_threads=threads, schedule='static'):
            for k in range(bounds[b], bounds[b + 1]):
                j = order_risk[k]
                sorted_risk[k] = risk[j]
                code_by_risk[k] = <code_t>codes[j]
                slot_by_risk[k] = slot[j]


cdef inline void _window_start(const double* sorted_risk, Py_ssize_t n, double value, double tol,
                               Py_ssize_t* first, Py_ssize_t* last) noexcept nogil:
    """The tie window [value - tol, value + tol] as the risk positions [first, last)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_risk[mid] < value - tol:
            lo = mid + 1
        else:
            hi = mid
    first[0] = lo
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_risk[mid] <= value + tol:
            lo = mid + 1
        else:
            hi = mid
    last[0] = lo


cdef int64_t _count_chunk(const double* sorted_risk, Py_ssize_t n, const code_t* code_by_risk, double tol,
                          Py_ssize_t start, Py_ssize_t stop, int64_t* members) noexcept nogil:
    """Members of each group among the risk positions [start, stop), and how many of these positions
    have another risk in their tie window."""
    cdef Py_ssize_t k, lo, hi
    cdef int64_t n_tied = 0
    cdef double value
    for k in range(start, stop):
        members[code_by_risk[k]] += 1
    if start >= stop:
        return 0
    _window_start(sorted_risk, n, sorted_risk[start], tol, &lo, &hi)
    for k in range(start, stop):
        value = sorted_risk[k]
        while lo < n and sorted_risk[lo] < value - tol:
            lo += 1
        while hi < n and sorted_risk[hi] <= value + tol:
            hi += 1
        if hi - lo > 1:
            n_tied += 1
    return n_tied


def count_chunks(const double[::1] sorted_risk, const code_t[::1] code_by_risk, double tol,
                 const int64_t[::1] bounds, int64_t[:, ::1] members, int64_t[::1] n_tied, int threads):
    """:func:`_count_chunk` of every block (``members[b]``, ``n_tied[b]``), on ``threads`` threads."""
    cdef Py_ssize_t n_blocks = bounds.shape[0] - 1, b, n = sorted_risk.shape[0]
    cdef const double* risk_p = &sorted_risk[0] if n > 0 else NULL
    cdef const code_t* code_p = &code_by_risk[0] if n > 0 else NULL
    with nogil:
        for b in prange(n_blocks, num_threads=threads, schedule='static'):
            n_tied[b] = _count_chunk(risk_p, n, code_p, tol, bounds[b], bounds[b + 1], &members[b, 0])


cdef int _rank_chunk(const double* sorted_risk, Py_ssize_t n, Py_ssize_t G, const code_t* code_by_risk,
                     const index_t* slot_by_risk, double tol, const int64_t* seen_before, int64_t tied,
                     Py_ssize_t start, Py_ssize_t stop, index_t* out_rank, index_t* out_lower, index_t* out_tie_row,
                     index_t* upper) noexcept nogil:
    """Risk positions [start, stop) in order: each row's rank within its group and its tie-window
    bounds within every group, from the counts of the blocks before (``seen_before``, ``tied``)."""
    cdef Py_ssize_t k, lo, hi, g, m, c
    cdef double value
    cdef int64_t* below
    cdef int64_t* upto
    cdef int64_t* seen
    if start >= stop:
        return 0
    below = <int64_t*>malloc(3 * G * sizeof(int64_t))
    if below == NULL:
        return -1
    upto = below + G
    seen = below + 2 * G
    for g in range(G):
        below[g] = seen_before[g]
        upto[g] = seen_before[g]
        seen[g] = seen_before[g]
    _window_start(sorted_risk, n, sorted_risk[start], tol, &lo, &hi)
    for k in range(lo, start):  # members of each group among risks < r - tol: the positions before lo
        below[code_by_risk[k]] -= 1
    for k in range(start, hi):  # ... among risks <= r + tol: the positions before hi
        upto[code_by_risk[k]] += 1
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
        out_rank[m] = <index_t>seen[c]
        seen[c] += 1
        for g in range(G):
            out_lower[m * G + g] = <index_t>below[g]
        if hi - lo > 1:
            out_tie_row[m] = <index_t>tied
            for g in range(G):
                upper[tied * G + g] = <index_t>upto[g]
            tied += 1
        else:
            out_tie_row[m] = -1
    free(below)
    return 0


def rank_chunks(const double[::1] sorted_risk, const code_t[::1] code_by_risk, const index_t[::1] slot_by_risk,
                double tol, const int64_t[:, ::1] seen, const int64_t[::1] tied, const int64_t[::1] bounds,
                index_t[::1] out_rank, index_t[:, ::1] out_lower, index_t[::1] out_tie_row, index_t[:, ::1] upper,
                int threads):
    """:func:`_rank_chunk` of every block (block b starts from ``seen[b]`` and ``tied[b]``)."""
    cdef Py_ssize_t n_blocks = bounds.shape[0] - 1, b, n = sorted_risk.shape[0], G = out_lower.shape[1]
    cdef const double* risk_p = &sorted_risk[0] if n > 0 else NULL
    cdef const code_t* code_p = &code_by_risk[0] if n > 0 else NULL
    cdef const index_t* slot_p = &slot_by_risk[0] if n > 0 else NULL
    cdef index_t* rank_p = &out_rank[0] if n > 0 else NULL
    cdef index_t* lower_p = &out_lower[0, 0] if n > 0 else NULL
    cdef index_t* tie_p = &out_tie_row[0] if n > 0 else NULL
    cdef index_t* upper_p = &upper[0, 0] if upper.shape[0] > 0 else NULL
    cdef int failed = 0
    with nogil:
        for b in prange(n_blocks, num_threads=threads, schedule='static'):
            if _rank_chunk(risk_p, n, G, code_p, slot_p, tol, &seen[b, 0], tied[b], bounds[b], bounds[b + 1],
                           rank_p, lower_p, tie_p, upper_p) != 0:
                failed += 1
    if failed:
        raise MemoryError()


# ---------------------------------------------------------------------------------------------
# the ascending passes (analytic intervals without stored rows)
#
# The column passes above walk down the time order: an event's sums as the earlier member are final
# at its own time, but a member's sums as the later member only when the pass ends. The moment engine
# (survfair._moments) needs both at a row's own time, so that each row's influence can be formed and
# added into per-group moments chunk by chunk and no row is kept. These passes walk UP the time
# order: the rank set of column b starts with every member of b and a member leaves it at its own
# time (events before the queries of their block, censored members after them, all of them first
# when ``strict``), so that at an event's time the set holds exactly the later members of its pairs.
# The later member's sums are read when it leaves: the events of earlier times have all added their
# weights to the later-member tree by then, and nothing is subtracted. The weights in the set are
# differences of running totals (members leave), so the zero rule of delayed entry applies to them
# (``residue`` x the weight the set started with). All G columns advance together over a chunk of
# time blocks (one OpenMP iteration per column, each writing its own column of the chunk's earlier
# sums and its own members' later sums); their state lives between calls in :class:`AscendingPasses`.

cdef struct Ascending:  # one column's state between chunks
    RankSet set_
    double* weights
    double* weight_blocks
    Py_ssize_t weight_tree_size
    double weight_total
    double weight_start
    int64_t inserted
    double* tree
    double* running
    double* value
    KState k_state
    Py_ssize_t size


cdef int _ascending_new(Ascending* c, Py_ssize_t column, Py_ssize_t n, Py_ssize_t G, Py_ssize_t size,
                        const int16_t* codes, const int32_t* rank, const double* case_weight) noexcept nogil:
    """Column ``column``'s set holding all of its members, an empty later-member tree."""
    cdef Py_ssize_t m
    c.size = size
    c.inserted = 0
    c.weight_total = 0.0
    c.k_state.position = -1
    c.k_state.inverse = 1.0
    c.weight_tree_size = (size >> WEIGHT_BLOCK_SHIFT) + 1
    c.weights = NULL
    c.weight_blocks = NULL
    c.tree = <double*>calloc((size + 2) * G, sizeof(double))
    c.running = <double*>calloc(G, sizeof(double))
    c.value = <double*>calloc(G, sizeof(double))
    if _rankset_new(&c.set_, size) != 0 or c.tree == NULL or c.running == NULL or c.value == NULL:
        return -1
    if case_weight != NULL:
        c.weights = <double*>calloc(size + 1, sizeof(double))
        c.weight_blocks = <double*>calloc((size >> WEIGHT_BLOCK_SHIFT) + 2, sizeof(double))
        if c.weights == NULL or c.weight_blocks == NULL:
            return -1
    for m in range(n):
        if codes[m] == column:
            _rankset_add(&c.set_, rank[m])
            c.inserted += 1
            if case_weight != NULL:
                _weightset_add(c.weights, c.weight_blocks, c.weight_tree_size, rank[m], case_weight[m])
                c.weight_total += case_weight[m]
    c.weight_start = c.weight_total
    return 0


cdef void _ascending_free(Ascending* c) noexcept nogil:
    _rankset_free(&c.set_)
    free(c.weights)
    free(c.weight_blocks)
    free(c.tree)
    free(c.running)
    free(c.value)


cdef inline void _ascending_leave(Ascending* c, Py_ssize_t G, Py_ssize_t m, const int32_t* rank,
                                  const double* case_weight, double* l_num, double* l_den) noexcept nogil:
    """Member m leaves column's set: its later sums (row ``m`` of the chunk's ``l_num`` / ``l_den``, G
    values) are read from the tree at its rank, the path summed as :func:`_later_read` sums it."""
    cdef Py_ssize_t r = rank[m], a
    cdef double factor = case_weight[m] if case_weight != NULL else 1.0
    _rankset_remove(&c.set_, r)
    c.inserted -= 1
    if case_weight != NULL:
        _weightset_add(c.weights, c.weight_blocks, c.weight_tree_size, r, -case_weight[m])
        c.weight_total -= case_weight[m]
    _later_value(c.tree, G, r, c.value)
    for a in range(G):
        l_num[a] = factor * (c.running[a] - c.value[a])
        l_den[a] = factor * c.running[a]


cdef void _ascending_column(const Shared* s, Ascending* c, Py_ssize_t column, Py_ssize_t start, Py_ssize_t stop,
                            const int16_t* codes, const int32_t* rank, double* e_num, double* e_den,
                            double* later, int64_t* who) noexcept nogil:
    """Rows [start, stop) (whole blocks of equal time) of column ``column``: its column of the chunk's
    earlier sums (column-major: ``e_num[column * (stop - start) + m - start]``, so that no two threads
    write one cache line) and the later sums of its members who leave, in the order they leave, into
    its own buffer (``later``: G numerators then G denominators a member; ``who``: their rows)."""
    cdef const int32_t* lower_bound = <const int32_t*>s.lower
    cdef const int32_t* tie_row = <const int32_t*>s.tie_row
    cdef const int32_t* upper_bound = <const int32_t*>s.upper
    cdef const double* time = s.time
    cdef const unsigned char* event = s.event
    cdef const double* case_weight = s.case_weight
    cdef Py_ssize_t G = s.n_groups, first = start, end, m, row, left = 0, rows = stop - start
    cdef bint strict = s.strict, window
    cdef double t, w, score, total, residue = s.residue * c.weight_start
    cdef int64_t lower, ties
    while first < stop:
        t = time[first]
        end = first + 1
        while end < stop and time[end] == t:
            end += 1
        # members at t leave before the queries: events (an event at t is no later member of an event
        # at t), and every member when strict (only time_i < time_j is comparable)
        for m in range(first, end):
            if codes[m] == column and (strict or event[m]):
                _ascending_leave(c, G, m, rank, case_weight, later + left * 2 * G, later + left * 2 * G + G)
                who[left] = m - start
                left += 1
        if c.inserted > 0:
            for m in range(first, end):
                if not event[m]:
                    continue
                row = codes[m]
                window = _tie_window(s, m, column, &c.set_, codes, lower_bound, tie_row, upper_bound, &lower, &ties)
                w = 1.0
                if s.weighted:
                    if t >= s.tau or s.own[m] == 0.0:
                        w = 0.0
                    else:
                        w = s.own[m] * _column_factor(&s.curves[column], t, &c.k_state)
                if case_weight != NULL:
                    score = _weighted_score(s, m, column, window, c.weights, c.weight_blocks, lower_bound, tie_row,
                                            upper_bound)
                    total = c.weight_total
                    if fabs(total) <= residue:  # differences of running totals: the zero rule
                        total = 0.0
                        score = 0.0
                    elif fabs(score) <= residue:
                        score = 0.0
                else:
                    score = <double>lower if strict else <double>lower + 0.5 * <double>ties
                    total = <double>c.inserted
                e_num[column * rows + m - start] = w * score
                e_den[column * rows + m - start] = w * total
                if w != 0.0 and isfinite(w):
                    _later_add(c.tree, c.size, G, row, w, _lower_at(s, lower_bound, m, column),
                               _upper_at(s, upper_bound, tie_row[m], column) if window and not strict else -1)
                    c.running[row] += w
        if not strict:  # the censored members at t were later members of the events at t
            for m in range(first, end):
                if codes[m] == column and not event[m]:
                    _ascending_leave(c, G, m, rank, case_weight, later + left * 2 * G, later + left * 2 * G + G)
                    who[left] = m - start
                    left += 1
        first = end


cdef class AscendingPasses:
    """The ascending passes of all G columns, advanced chunk by chunk (:meth:`advance`).

    Takes the bundles of the column passes (``inputs``, a PassInputs of int32 positions and int16
    codes with no delayed entry and no competing risks; ``weights``, a PassWeights; see
    :func:`column_passes`) and keeps references to them for its life."""

    cdef Shared s
    cdef Ascending* columns
    cdef Py_ssize_t n_columns
    cdef object keep
    cdef const int16_t* codes
    cdef const int32_t* rank

    def __cinit__(self, inputs, weights, int threads):
        cdef Py_ssize_t G, column
        cdef int failed = 0
        self.columns = NULL
        self.n_columns = 0
        self.s.curves = NULL
        self.keep = (inputs, weights)
        memset(&self.s, 0, sizeof(Shared))
        if inputs.rank.dtype != np.int32 or inputs.codes.dtype != np.int16 or inputs.entry.shape[0] > 0 \
                or inputs.competing.shape[0] > 0:
            raise TypeError("the ascending passes take int32 positions and int16 codes, no delayed entry and no "
                            "competing risks")
        _fill_rows(&self.s, inputs)
        _fill_weights(&self.s, weights)
        G = self.s.n_groups
        self.codes = <const int16_t*>self.s.codes
        self.rank = <const int32_t*>self.s.rank
        self.columns = <Ascending*>calloc(G if G > 0 else 1, sizeof(Ascending))
        if self.columns == NULL:
            raise MemoryError()
        self.n_columns = G
        with nogil:
            for column in prange(G, num_threads=threads, schedule='dynamic'):
                failed += _ascending_new(&self.columns[column], column, self.s.n, G, self.s.sizes[column], self.codes,
                                         self.rank, self.s.case_weight) != 0
        if failed:
            raise MemoryError("the ascending passes could not allocate their rank sets and trees")

    def __dealloc__(self):
        cdef Py_ssize_t column
        if self.columns != NULL:
            for column in range(self.n_columns):
                _ascending_free(&self.columns[column])
            free(self.columns)
        free(self.s.curves)

    def advance(self, Py_ssize_t start, Py_ssize_t stop, double[::1, :] e_num, double[::1, :] e_den,
                double[:, ::1] l_num, double[:, ::1] l_den, int threads):
        """Rows [start, stop) (whole blocks of equal time, after the rows before them): every event's
        earlier sums into the zeroed column-major (stop - start, G) ``e_num`` / ``e_den``, and every
        row's later sums into the row-major ``l_num`` / ``l_den`` (each column's members gathered in a
        buffer of its own while the columns run, then put in place)."""
        cdef Py_ssize_t column, G = self.n_columns, rows = stop - start, m, a, k
        cdef Py_ssize_t* members = NULL
        cdef Py_ssize_t* offset = NULL
        cdef double* later = NULL
        cdef int64_t* who = NULL
        if stop <= start:
            return
        if e_num.shape[0] != rows or e_num.shape[1] != G or l_num.shape[0] != rows or l_num.shape[1] != G:
            raise ValueError("chunk arrays of shape (stop - start, G)")
        members = <Py_ssize_t*>calloc(G + 1, sizeof(Py_ssize_t))
        offset = <Py_ssize_t*>calloc(G + 1, sizeof(Py_ssize_t))
        later = <double*>malloc(rows * 2 * G * sizeof(double))
        who = <int64_t*>malloc(rows * sizeof(int64_t))
        try:
            if members == NULL or offset == NULL or later == NULL or who == NULL:
                raise MemoryError("the ascending passes' chunk buffers")
            with nogil:
                for m in range(start, stop):
                    members[self.codes[m]] += 1
                for column in range(G):
                    offset[column + 1] = offset[column] + members[column]
                for column in prange(G, num_threads=threads, schedule='dynamic'):
                    _ascending_column(&self.s, &self.columns[column], column, start, stop, self.codes, self.rank,
                                      &e_num[0, 0], &e_den[0, 0], later + offset[column] * 2 * G,
                                      who + offset[column])
                for k in range(rows):
                    m = who[k]
                    for a in range(G):
                        l_num[m, a] = later[k * 2 * G + a]
                        l_den[m, a] = later[k * 2 * G + G + a]
        finally:
            free(members)
            free(offset)
            free(later)
            free(who)
