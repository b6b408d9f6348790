# cython: language_level=3
"""The influence sweep of survfair._influence: contributions to influence rows, one pass up the time order.

The formulas are in survfair._influence's docstrings; the code follows the former numba kernel
operation for operation (same sums in the same order), so the numbers are the same to the bit.

Layouts: the earlier members' sums are (n, G) column-major, the later members' the two halves of
one row-major (n, 2G) block, the second kind's (competing risks) (n, G) row-major; they are read
through their byte strides (no copy). The rows may be written over the later members' block
(``cells`` aliasing ``l_num`` / ``l_den``): row m's later sums are read before row m is written.
"""

from libc.math cimport sqrt
from libc.stdint cimport int16_t, int32_t, int64_t
from libc.stdlib cimport calloc, free

import numpy as np

ctypedef fused code_t:
    int16_t
    int32_t
    int64_t

ctypedef fused entry_t:
    int32_t
    int64_t


cdef struct Grid:
    # a 2-D float64 array by its first element and byte strides (any layout)
    char *data
    Py_ssize_t s0
    Py_ssize_t s1


cdef inline double get(Grid v, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    return (<double *>(v.data + i * v.s0 + j * v.s1))[0]


cdef inline double *ptr(Grid v, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    return <double *>(v.data + i * v.s0 + j * v.s1)


cdef Grid grid(const double[:, :] values):
    """The array's first element and byte strides. The output rows are taken through this too: they
    are a writable array (the const view only reads its address), written through ``ptr``."""
    cdef Grid v
    v.data = NULL
    v.s0 = values.strides[0]
    v.s1 = values.strides[1]
    if values.shape[0] > 0 and values.shape[1] > 0:
        v.data = <char *> &values[0, 0]
    return v


cdef inline double c_role_factor(double count) noexcept nogil:
    """DeLong's sqrt(m / (m - 1)); 1 where m <= 1 (a lone member's component is exactly 0)."""
    return sqrt(count / (count - 1)) if count > 1 else 1.0


cdef inline Py_ssize_t c_compact_cell(Py_ssize_t group, Py_ssize_t slot, Py_ssize_t g) noexcept nogil:
    """The cell (row-major index) of a compact influence row's ``slot`` for a row of ``group``:
    slots 0..G-1 are the cells (group, b), slots G + a the cells (a, group) for a != group; -1 for
    slot G + group (that cell is slot ``group``)."""
    cdef Py_ssize_t other
    if slot < g:
        return group * g + slot
    other = slot - g
    return -1 if other == group else other * g + group


cdef inline void c_cell_table(Py_ssize_t g, int64_t *table) noexcept nogil:
    """(G, 2G) row-major: :func:`c_compact_cell` of every group and slot."""
    cdef Py_ssize_t group, slot
    for group in range(g):
        for slot in range(2 * g):
            table[group * 2 * g + slot] = c_compact_cell(group, slot, g)


cdef inline Py_ssize_t c_slot(Py_ssize_t group, Py_ssize_t cell, Py_ssize_t g, bint compact) noexcept nogil:
    """Where a row of ``group`` keeps ``cell``: the cell itself in dense rows, else its compact slot."""
    cdef Py_ssize_t earlier
    if not compact:
        return cell
    earlier = cell // g
    return cell - earlier * g if earlier == group else g + earlier


cdef inline void c_add_second_kind(Py_ssize_t m, Py_ssize_t a, Py_ssize_t b, Py_ssize_t g, Grid x_e_num,
                                   Grid x_e_den, Grid x_l_num, Grid x_l_den, const double *theta, double pooled,
                                   double *out, double *out_overall) noexcept nogil:
    """Row m's correction of the later member's curve for cells (a, b) and (b, a): minus its pairs
    of the second kind as the earlier member, plus its pairs of the second kind as the later member."""
    cdef Py_ssize_t e = a * g + b, el = b * g + a
    cdef double en = get(x_e_num, m, b), ed = get(x_e_den, m, b)
    cdef double ln = get(x_l_num, m, b), ld = get(x_l_den, m, b)
    out[e] -= en - theta[e] * ed
    out_overall[e] -= en - pooled * ed
    out[el] += ln - theta[el] * ld
    out_overall[el] += ln - pooled * ld


cdef inline void c_count_roles(Py_ssize_t m, Py_ssize_t a, Py_ssize_t g, Grid E_den, Grid L_den, double *m_e,
                               double *m_l_by_row, double *overall_e, double *overall_l) noexcept nogil:
    """Row m (of group a) into DeLong's member counts: each cell where it has a positive weight as
    the earlier member (``m_e``, cell (a, b) at a * G + b) and as the later member (cell (b, a),
    kept at a * G + b in ``m_l_by_row``: the transpose of the cells' order, so that a row's writes
    are contiguous; see :func:`c_transpose`), and whether it has either role at all
    (``overall_e`` / ``overall_l``)."""
    cdef Py_ssize_t b
    cdef bint earlier = False, later = False
    for b in range(g):
        if get(E_den, m, b) > 0:
            m_e[a * g + b] += 1
            earlier = True
        if get(L_den, m, b) > 0:
            m_l_by_row[a * g + b] += 1
            later = True
    overall_e[0] += earlier
    overall_l[0] += later


cdef void c_transpose(Py_ssize_t g, const double *values, double *out) noexcept nogil:
    """out[b * G + a] = values[a * G + b] for a (G, G) row-major table (``out`` not ``values``)."""
    cdef Py_ssize_t a, b
    for a in range(g):
        for b in range(g):
            out[b * g + a] = values[a * g + b]


cdef inline void c_add_point(Py_ssize_t g2, const double *point_num, const double *point_den, const double *theta,
                             double pooled, double *out, double *out_overall) noexcept nogil:
    """The point sources' share of the later member's curve's correction."""
    cdef Py_ssize_t cell
    for cell in range(g2):
        out[cell] += point_num[cell] - theta[cell] * point_den[cell]
        out_overall[cell] += point_num[cell] - pooled * point_den[cell]


def cell_table(Py_ssize_t g):
    """(G, 2G) int64: the cell of every group's every compact slot (``c_compact_cell``)."""
    table = np.empty((g, 2 * g), np.int64)
    cdef int64_t[:, ::1] out = table
    if g > 0:
        with nogil:
            c_cell_table(g, &out[0, 0])
    return table


cdef inline double *zeros(Py_ssize_t count, bint *failed) noexcept nogil:
    cdef double *values = <double *> calloc(count if count > 0 else 1, sizeof(double))
    if values == NULL:
        failed[0] = True
    return values


cdef inline Py_ssize_t *index_zeros(Py_ssize_t count, bint *failed) noexcept nogil:
    cdef Py_ssize_t *values = <Py_ssize_t *> calloc(count if count > 0 else 1, sizeof(Py_ssize_t))
    if values == NULL:
        failed[0] = True
    return values


cdef struct Sweep:
    # what the sweep up the time order carries from one block of equal time to the next
    Py_ssize_t g
    Py_ssize_t g2
    Py_ssize_t width
    Py_ssize_t n_curves
    bint compact
    bint has_weight
    bint has_x
    bint second_kind
    Py_ssize_t point
    double pooled
    double inv_total
    double residue
    double overall_factor_e
    double overall_factor_l
    const double *theta
    const int64_t *curve_of
    const double *mult  # (n_curves, G^2) row-major
    const double *mult_later
    const double *point_num
    const double *point_den
    double *m_e
    double *m_l
    double *entered
    double *total
    double *total_overall
    double *total_x
    double *total_x_overall
    double *factor_e
    double *factor_l
    # a row of group a reads cell (b, a) as the later member, G cells apart from one b to the next:
    # these keep theta and DeLong's factor of cell (b, a) at a * G + b, so that its reads are
    # contiguous (from G = 8 on each strided read was a cache line of its own)
    double *later_theta
    double *later_factor
    double *m_l_by_row  # the first sweep's later-role counts in the same order (c_count_roles)
    # the cells whose weights involve each curve, curve after curve: curve c's are the entries
    # curve_start[c] to curve_start[c + 1] of curve_cells (the cell), curve_slots (where a row of
    # curve c keeps it), compensator and sensitivity; packed, so that memory is the cells a curve
    # has (2G - 1 with one curve a group), not G^2 a curve (at G = 2,000, 32 MB a curve)
    Py_ssize_t *curve_start
    Py_ssize_t *curve_cells
    Py_ssize_t *curve_slots
    int64_t *cell_of
    double *slot_scale
    double *below
    double *below_overall
    double *below_x
    double *below_x_overall
    double *compensator
    double *compensator_overall
    double *passed
    double *deaths
    double *censored
    double *jump
    double *rate
    double *sensitivity
    double *sensitivity_overall
    double *row


cdef inline bint c_curve_has(const Sweep *w, Py_ssize_t c, Py_ssize_t cell) noexcept nogil:
    """Whether the weights of ``cell`` involve curve c (its compensator moves the cell)."""
    return w.mult[c * w.g2 + cell] > 0 or (w.second_kind and w.mult_later[c * w.g2 + cell] > 0)


cdef bint c_sweep_new(Sweep *w, Py_ssize_t g, Py_ssize_t width, Py_ssize_t n_curves, bint compact) noexcept nogil:
    """Zeroed scratch of a sweep; False when an allocation failed (free with ``c_sweep_free`` either way).
    ``w.mult``, ``w.mult_later`` and ``w.second_kind`` are set (they size the curves' cells)."""
    cdef bint failed = False
    cdef Py_ssize_t g2 = g * g, curves = n_curves if n_curves > 1 else 1, c, cell, packed
    w.g = g
    w.g2 = g2
    w.width = width
    w.n_curves = n_curves
    w.compact = compact
    w.m_e = zeros(g2, &failed)
    w.m_l = zeros(g2, &failed)
    w.entered = zeros(curves, &failed)
    w.total = zeros(g2, &failed)
    w.total_overall = zeros(g2, &failed)
    w.total_x = zeros(g2, &failed)
    w.total_x_overall = zeros(g2, &failed)
    w.factor_e = zeros(g2, &failed)
    w.factor_l = zeros(g2, &failed)
    w.later_theta = zeros(g2, &failed)
    w.later_factor = zeros(g2, &failed)
    w.m_l_by_row = zeros(g2, &failed)
    w.curve_start = index_zeros(curves + 1, &failed)
    if not failed:
        for c in range(n_curves):
            packed = 0
            for cell in range(g2):
                packed += c_curve_has(w, c, cell)
            w.curve_start[c + 1] = w.curve_start[c] + packed
    packed = w.curve_start[n_curves] if not failed else 0
    w.curve_cells = index_zeros(packed, &failed)
    w.curve_slots = index_zeros(packed, &failed)
    w.cell_of = <int64_t *> calloc(2 * g2 if g2 > 0 else 1, sizeof(int64_t))
    failed = failed or w.cell_of == NULL
    w.slot_scale = zeros(g * width, &failed)
    w.below = zeros(g2, &failed)
    w.below_overall = zeros(g2, &failed)
    w.below_x = zeros(g2, &failed)
    w.below_x_overall = zeros(g2, &failed)
    w.compensator = zeros(packed, &failed)
    w.compensator_overall = zeros(curves, &failed)
    w.passed = zeros(curves, &failed)
    w.deaths = zeros(curves, &failed)
    w.censored = zeros(curves, &failed)
    w.jump = zeros(curves, &failed)
    w.rate = zeros(curves, &failed)
    w.sensitivity = zeros(packed, &failed)
    w.sensitivity_overall = zeros(curves, &failed)
    w.row = zeros(width, &failed)
    return not failed


cdef void c_sweep_free(Sweep *w) noexcept nogil:
    free(w.m_e)
    free(w.m_l)
    free(w.entered)
    free(w.total)
    free(w.total_overall)
    free(w.total_x)
    free(w.total_x_overall)
    free(w.factor_e)
    free(w.factor_l)
    free(w.later_theta)
    free(w.later_factor)
    free(w.m_l_by_row)
    free(w.curve_start)
    free(w.curve_cells)
    free(w.curve_slots)
    free(w.cell_of)
    free(w.slot_scale)
    free(w.below)
    free(w.below_overall)
    free(w.below_x)
    free(w.below_x_overall)
    free(w.compensator)
    free(w.compensator_overall)
    free(w.passed)
    free(w.deaths)
    free(w.censored)
    free(w.jump)
    free(w.rate)
    free(w.sensitivity)
    free(w.sensitivity_overall)
    free(w.row)


cdef void c_sweep_tables(Sweep *w, const double *inv_den) noexcept nogil:
    """DeLong's factors from the members per role (``m_e`` / ``m_l``), the cells of each curve and
    their slots, and 1 / D of every slot."""
    cdef Py_ssize_t g = w.g, g2 = w.g2, width = w.width, a, c, s, cell, j
    for cell in range(g2):
        w.factor_e[cell] = c_role_factor(w.m_e[cell])
        w.factor_l[cell] = c_role_factor(w.m_l[cell])
    c_transpose(g, w.theta, w.later_theta)
    c_transpose(g, w.factor_l, w.later_factor)
    # the cells whose weights involve curve c and where a row of curve c keeps them
    for c in range(w.n_curves):
        j = w.curve_start[c]
        for cell in range(g2):
            if c_curve_has(w, c, cell):
                w.curve_cells[j] = cell
                w.curve_slots[j] = c_slot(c, cell, g, w.compact)
                j += 1
    # 1 / D of the cell in each slot of a row of group a (0 for the unused compact slot G + a)
    c_cell_table(g, w.cell_of)
    for a in range(g):
        for s in range(width):
            cell = w.cell_of[a * 2 * g + s] if w.compact else s
            if cell >= 0:
                w.slot_scale[a * width + s] = inv_den[cell]


cdef void c_sweep_block(Sweep *w, Py_ssize_t start, Py_ssize_t end, const double *time, const unsigned char *event,
                        const code_t *codes, const double *weight, Grid E_num, Grid E_den, Grid L_num, Grid L_den,
                        Grid X_e_num, Grid X_e_den, Grid X_l_num, Grid X_l_den, Py_ssize_t shift, Grid out,
                        const int64_t *dest, double *overall_p, bint credited) noexcept nogil:
    """The rows [start, end) of one time: each row's phi into ``out`` and ``overall_p``.

    Row m's contributions are read at row ``m - shift`` of the Grids; its phi is written to row
    ``dest[m - shift]`` of ``out`` / ``overall_p`` (``dest`` NULL: row m). With ``credited`` the row
    already holds the compensator credited at its entry, which is added, not written over."""
    cdef Py_ssize_t g = w.g, g2 = w.g2, width = w.width, n_curves = w.n_curves
    cdef Py_ssize_t m, a, b, c, j, cell, s, e, here, to, first, last, earlier_slot, later_slot
    cdef double w_m, at_risk, left, psi_e, psi_l, earlier_value, earlier_overall, value_overall
    cdef double own_jump, en, ed, ln, ld
    cdef double *scale
    cdef double *target
    cdef double *row = w.row
    cdef const double *theta_p = w.theta
    if n_curves > 0:
        for c in range(n_curves):
            w.deaths[c] = 0.0
            w.censored[c] = 0.0
        for m in range(start, end):
            w_m = weight[m] if w.has_weight else 1.0
            if event[m]:
                w.deaths[w.curve_of[codes[m]]] += w_m
            else:
                w.censored[w.curve_of[codes[m]]] += w_m
        for c in range(n_curves):
            w.jump[c] = 0.0
            w.rate[c] = 0.0
            if w.censored[c] == 0:  # no row of c jumps here and c's compensators do not grow
                continue
            # events leave the risk set before the censorings at a tied time (the KM convention)
            at_risk = w.entered[c] - w.passed[c] - w.deaths[c]
            left = at_risk - w.censored[c]
            # the zero rule of the censoring KM, relative to the weight that entered
            if left > w.residue * (w.entered[c] if w.entered[c] >= at_risk else at_risk):
                w.jump[c] = 1.0 / left
                w.rate[c] = w.censored[c] / (at_risk * left)
            w.sensitivity_overall[c] = 0.0
            for j in range(w.curve_start[c], w.curve_start[c + 1]):
                cell = w.curve_cells[j]
                w.sensitivity[j] = w.mult[c * g2 + cell] * (w.total[cell] - w.below[cell])
                w.sensitivity_overall[c] += w.mult[c * g2 + cell] * (w.total_overall[cell] - w.below_overall[cell])
                if w.second_kind and w.mult_later[c * g2 + cell] > 0:
                    w.sensitivity[j] += w.mult_later[c * g2 + cell] * (w.total_x[cell] - w.below_x[cell])
                    w.sensitivity_overall[c] += w.mult_later[c * g2 + cell] * (
                        w.total_x_overall[cell] - w.below_x_overall[cell])
    for m in range(start, end):
        a = codes[m]
        here = m - shift
        to = dest[here] if dest != NULL else m
        for s in range(width):
            row[s] = 0.0
        psi_e = 0.0
        psi_l = 0.0
        for b in range(g):
            e = a * g + b  # k as the earlier member: cell (a, b); as the later member, cell (b, a)
            en = get(E_num, here, b)
            ed = get(E_den, here, b)
            ln = get(L_num, here, b)
            ld = get(L_den, here, b)
            earlier_value = en - theta_p[e] * ed
            earlier_overall = en - w.pooled * ed
            if w.compact:  # the slots of c_slot: (a, b) in slot b, (b, a) in slot G + b (b != a)
                earlier_slot = b
                later_slot = b if b == a else g + b
            else:
                earlier_slot = e
                later_slot = b * g + a
            row[earlier_slot] += w.factor_e[e] * earlier_value
            row[later_slot] += w.later_factor[e] * (ln - w.later_theta[e] * ld)
            psi_e += earlier_overall
            psi_l += ln - w.pooled * ld
            if n_curves > 0:  # F of the later blocks counts k (F of this block was taken before the loop)
                w.below[e] += earlier_value
                w.below_overall[e] += earlier_overall
            if w.second_kind and w.has_x:
                c_add_second_kind(here, a, b, g, X_e_num, X_e_den, X_l_num, X_l_den, theta_p, w.pooled, w.below_x,
                                  w.below_x_overall)
        if w.second_kind and m == w.point:
            c_add_point(g2, w.point_num, w.point_den, theta_p, w.pooled, w.below_x, w.below_x_overall)
        value_overall = w.overall_factor_e * psi_e + w.overall_factor_l * psi_l
        if n_curves > 0:
            c = w.curve_of[a]
            w_m = weight[m] if w.has_weight else 1.0
            first = w.curve_start[c]
            last = w.curve_start[c + 1]
            if event[m]:  # an event at s is not at risk of censoring at s
                for j in range(first, last):
                    row[w.curve_slots[j]] -= w_m * w.compensator[j]
                value_overall -= w_m * w.compensator_overall[c]
            else:  # a censoring at s is, and jumps (this block has a censoring of curve c)
                own_jump = w.jump[c] - w.rate[c]
                for j in range(first, last):
                    row[w.curve_slots[j]] += w_m * (w.sensitivity[j] * own_jump - w.compensator[j])
                value_overall += w_m * (w.sensitivity_overall[c] * own_jump - w.compensator_overall[c])
        scale = w.slot_scale + a * width
        if credited:  # plus the compensator credited at k's entry
            for s in range(width):
                target = ptr(out, to, s)
                target[0] = (row[s] + target[0]) * scale[s]
        else:  # cells may be the later sums' memory: row m is read above, not added to
            for s in range(width):
                ptr(out, to, s)[0] = row[s] * scale[s]
        overall_p[to] = (value_overall + overall_p[to]) * w.inv_total
    for c in range(n_curves):
        if w.rate[c] > 0:
            for j in range(w.curve_start[c], w.curve_start[c + 1]):
                w.compensator[j] += w.sensitivity[j] * w.rate[c]
            w.compensator_overall[c] += w.sensitivity_overall[c] * w.rate[c]
    if n_curves > 0:
        for m in range(start, end):
            w.passed[w.curve_of[codes[m]]] += weight[m] if w.has_weight else 1.0


def influence_sweep(const double[::1] time, const unsigned char[::1] event, const code_t[::1] codes,
                    const double[::1] weight, const double[::1] entry, const entry_t[::1] entry_asc,
                    const double[:, :] e_num, const double[:, :] e_den, const double[:, :] l_num,
                    const double[:, :] l_den, const double[:, :] x_e_num, const double[:, :] x_e_den,
                    const double[:, :] x_l_num, const double[:, :] x_l_den, Py_ssize_t point,
                    const double[::1] point_num, const double[::1] point_den, const double[::1] theta,
                    const double[::1] inv_den, double pooled, double inv_total, const int64_t[::1] curve_of,
                    const double[:, ::1] mult, const double[:, ::1] mult_later, double[:, :] cells,
                    double[::1] overall, bint compact, double residue):
    """phi_k of every cell into ``cells`` (n, G*G, or (n, 2G) with ``compact``) and of the pooled C
    into ``overall`` (n,), all in time order: the sweep of survfair._influence.influence_rows (see
    its docstrings; ``residue`` is the censoring Kaplan-Meier's zero rule)."""
    cdef Py_ssize_t n = e_num.shape[0], g = e_num.shape[1]
    cdef Py_ssize_t g2 = g * g, width = cells.shape[1], n_curves = mult.shape[0]
    cdef Py_ssize_t n_entries = entry_asc.shape[0]
    cdef bint has_x = x_e_num.shape[0] > 0
    cdef bint credited = n_curves > 0 and n_entries > 0
    cdef Grid E_num = grid(e_num), E_den = grid(e_den), L_num = grid(l_num), L_den = grid(l_den)
    cdef Grid X_e_num = grid(x_e_num), X_e_den = grid(x_e_den)
    cdef Grid X_l_num = grid(x_l_num), X_l_den = grid(x_l_den)
    cdef Grid out = grid(cells)
    cdef double *overall_p = &overall[0] if n > 0 else NULL
    cdef Sweep w
    cdef bint ok
    cdef double overall_e = 0.0, overall_l = 0.0, w_k, en, ed
    cdef double *target
    cdef Py_ssize_t m, a, b, c, j, k, start, end, next_entry = 0
    w.theta = &theta[0]
    w.curve_of = &curve_of[0]
    w.mult = &mult[0, 0] if n_curves > 0 else NULL
    w.mult_later = &mult_later[0, 0] if mult_later.shape[0] > 0 else NULL
    w.point = point
    w.point_num = &point_num[0] if point >= 0 else NULL
    w.point_den = &point_den[0] if point >= 0 else NULL
    w.pooled = pooled
    w.inv_total = inv_total
    w.residue = residue
    w.has_weight = weight.shape[0] > 0
    w.has_x = has_x
    w.second_kind = (has_x or point >= 0) and n_curves > 0
    with nogil:
        ok = c_sweep_new(&w, g, width, n_curves, compact)
        if ok:
            # first sweep: members per role and cell (DeLong's factor), curve sizes, the cells' psi^E sums
            if w.second_kind and point >= 0:
                c_add_point(g2, w.point_num, w.point_den, w.theta, pooled, w.total_x, w.total_x_overall)
            for m in range(n):
                a = codes[m]
                c_count_roles(m, a, g, E_den, L_den, w.m_e, w.m_l_by_row, &overall_e, &overall_l)
                for b in range(g):
                    en = get(E_num, m, b)
                    ed = get(E_den, m, b)
                    w.total[a * g + b] += en - w.theta[a * g + b] * ed
                    w.total_overall[a * g + b] += en - pooled * ed
                    if w.second_kind and has_x:
                        c_add_second_kind(m, a, b, g, X_e_num, X_e_den, X_l_num, X_l_den, w.theta, pooled, w.total_x,
                                          w.total_x_overall)
                if n_curves > 0 and n_entries == 0:  # everyone at risk from time 0
                    w.entered[curve_of[a]] += weight[m] if w.has_weight else 1.0
            c_transpose(g, w.m_l_by_row, w.m_l)
            w.overall_factor_e = c_role_factor(overall_e)
            w.overall_factor_l = c_role_factor(overall_l)
            c_sweep_tables(&w, &inv_den[0])

            start = 0
            while start < n:
                end = start + 1
                while end < n and time[end] == time[start]:
                    end += 1
                while n_curves > 0 and next_entry < n_entries and entry[entry_asc[next_entry]] < time[start]:
                    k = entry_asc[next_entry]  # enters the risk sets: the compensator so far is not k's
                    next_entry += 1
                    c = curve_of[codes[k]]
                    w_k = weight[k] if w.has_weight else 1.0
                    w.entered[c] += w_k
                    for j in range(w.curve_start[c], w.curve_start[c + 1]):
                        target = ptr(out, k, w.curve_slots[j])
                        target[0] += w_k * w.compensator[j]
                    overall_p[k] += w_k * w.compensator_overall[c]
                c_sweep_block(&w, start, end, &time[0], &event[0], &codes[0], &weight[0] if w.has_weight else NULL,
                              E_num, E_den, L_num, L_den, X_e_num, X_e_den, X_l_num, X_l_den, 0, out, NULL,
                              overall_p, credited)
                start = end
        c_sweep_free(&w)
    if not ok:
        raise MemoryError("the influence sweep's scratch arrays")


cdef class StreamingSweep:
    """The same sweep, fed chunk by chunk (:meth:`rows`), for the moment engine (survfair._moments):
    the contributions of a chunk of whole time blocks come in, its rows go out, and what the sweep
    carries lives here between chunks. No delayed entry, no competing risks (no second kind).

    What the row sweep's first pass gathers from all rows is given: the members per role and cell
    (``m_e`` / ``m_l``, (G*G,)), the members per role overall, and the cells' psi^E sums (``total`` /
    ``total_overall``). ``entered`` holds each curve's total case weight (everyone at risk from 0)."""

    cdef Sweep w
    cdef bint ok
    cdef object keep
    cdef double *counted  # (2 G^2 + 2): the members per role and cell, and overall, of the rows fed

    def __cinit__(self, const double[::1] theta, const double[::1] inv_den, double pooled, double inv_total,
                  const int64_t[::1] curve_of, const double[:, ::1] mult, Py_ssize_t width, bint compact,
                  double residue, bint has_weight, const double[::1] m_e, const double[::1] m_l, double overall_e,
                  double overall_l, const double[::1] total, const double[::1] total_overall,
                  const double[::1] entered):
        cdef Py_ssize_t g = curve_of.shape[0], n_curves = mult.shape[0], cell, c
        self.ok = False
        self.keep = (theta, curve_of, mult)
        self.w.theta = &theta[0]
        self.w.curve_of = &curve_of[0]
        self.w.mult = &mult[0, 0] if n_curves > 0 else NULL
        self.w.mult_later = NULL
        self.w.point = -1
        self.w.point_num = NULL
        self.w.point_den = NULL
        self.w.pooled = pooled
        self.w.inv_total = inv_total
        self.w.residue = residue
        self.w.has_weight = has_weight
        self.w.has_x = False
        self.w.second_kind = False
        self.ok = c_sweep_new(&self.w, g, width, n_curves, compact)
        self.counted = <double *> calloc(2 * g * g + 2, sizeof(double))
        if not self.ok or self.counted == NULL:
            raise MemoryError("the influence sweep's scratch arrays")
        for cell in range(g * g):
            self.w.m_e[cell] = m_e[cell]
            self.w.m_l[cell] = m_l[cell]
            self.w.total[cell] = total[cell]
            self.w.total_overall[cell] = total_overall[cell]
        for c in range(n_curves):
            self.w.entered[c] = entered[c]
        self.w.overall_factor_e = c_role_factor(overall_e)
        self.w.overall_factor_l = c_role_factor(overall_l)
        c_sweep_tables(&self.w, &inv_den[0])

    def __dealloc__(self):
        c_sweep_free(&self.w)
        free(self.counted)

    def seen(self):
        """(members per role and cell as the earlier member (G*G,), as the later member (G*G,), rows
        with an earlier / a later role): counted from the contributions fed, to be checked against
        the ``m_e`` / ``m_l`` given (the DeLong factors the rows were formed with)."""
        cdef Py_ssize_t g2 = self.w.g2
        cdef Py_ssize_t g = self.w.g
        values = np.array(<double[:2 * g2 + 2]> self.counted) if g2 > 0 else np.zeros(2)
        # the later role's counts are kept in row order (c_count_roles): back to the cells' order
        later = values[g2:2 * g2].reshape(g, g).T.ravel()
        return values[:g2], later, float(values[2 * g2]), float(values[2 * g2 + 1])

    def rows(self, const double[::1] time, const unsigned char[::1] event, const code_t[::1] codes,
             const double[::1] weight, const double[:, :] e_num, const double[:, :] e_den, const double[:, :] l_num,
             const double[:, :] l_den, const int64_t[::1] dest, double[:, :] cells, double[::1] overall):
        """The next chunk of rows (whole time blocks, after every row fed before; ``time`` / ``event``
        / ``codes`` / ``weight`` and the contributions are the chunk's): row m's phi to row ``dest[m]``
        of the zeroed ``cells`` / ``overall``."""
        cdef Py_ssize_t n = time.shape[0], first = 0, end, m, g = self.w.g, g2 = self.w.g2
        cdef Grid none = grid(np.empty((0, 0)))
        cdef Grid E_num = grid(e_num), E_den = grid(e_den), L_num = grid(l_num), L_den = grid(l_den)
        cdef Grid out = grid(cells)
        cdef const double *weight_p = &weight[0] if self.w.has_weight else NULL
        if n == 0:
            return
        with nogil:
            while first < n:
                end = first + 1
                while end < n and time[end] == time[first]:
                    end += 1
                c_sweep_block(&self.w, first, end, &time[0], &event[0], &codes[0], weight_p, E_num, E_den, L_num,
                              L_den, none, none, none, none, 0, out, &dest[0], &overall[0], False)
                first = end
            for m in range(n):
                c_count_roles(m, codes[m], g, E_den, L_den, self.counted, self.counted + g2, self.counted + 2 * g2,
                              self.counted + 2 * g2 + 1)
