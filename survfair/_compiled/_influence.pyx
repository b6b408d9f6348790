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
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

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
    cdef Py_ssize_t n_entries = entry_asc.shape[0], curves = n_curves if n_curves > 1 else 1
    cdef bint has_weight = weight.shape[0] > 0
    cdef bint has_x = x_e_num.shape[0] > 0
    cdef bint second_kind = (has_x or point >= 0) and n_curves > 0
    cdef bint credited = n_curves > 0 and n_entries > 0
    cdef Grid E_num = grid(e_num), E_den = grid(e_den), L_num = grid(l_num), L_den = grid(l_den)
    cdef Grid X_e_num = grid(x_e_num), X_e_den = grid(x_e_den)
    cdef Grid X_l_num = grid(x_l_num), X_l_den = grid(x_l_den)
    cdef Grid out = grid(cells)
    cdef const double *theta_p = &theta[0]
    cdef const double *point_num_p = NULL
    cdef const double *point_den_p = NULL
    cdef double *overall_p = &overall[0] if n > 0 else NULL
    if point >= 0:
        point_num_p = &point_num[0]
        point_den_p = &point_den[0]
    cdef bint failed = False
    cdef double *m_e = NULL
    cdef double *m_l = NULL
    cdef double *entered = NULL
    cdef double *total = NULL
    cdef double *total_overall = NULL
    cdef double *total_x = NULL
    cdef double *total_x_overall = NULL
    cdef double *factor_e = NULL
    cdef double *factor_l = NULL
    cdef Py_ssize_t *curve_cells = NULL
    cdef Py_ssize_t *curve_slots = NULL
    cdef Py_ssize_t *curve_n_cells = NULL
    cdef Py_ssize_t *earlier_slot = NULL
    cdef Py_ssize_t *later_slot = NULL
    cdef int64_t *cell_of = NULL
    cdef double *slot_scale = NULL
    cdef double *below = NULL
    cdef double *below_overall = NULL
    cdef double *below_x = NULL
    cdef double *below_x_overall = NULL
    cdef double *compensator = NULL
    cdef double *compensator_overall = NULL
    cdef double *passed = NULL
    cdef double *deaths = NULL
    cdef double *censored = NULL
    cdef double *jump = NULL
    cdef double *rate = NULL
    cdef double *sensitivity = NULL
    cdef double *sensitivity_overall = NULL
    cdef double *row = NULL
    cdef double overall_e = 0.0, overall_l = 0.0, overall_factor_e, overall_factor_l
    cdef double w_k, w_m, at_risk, left, psi_e, psi_l, earlier_value, earlier_overall, value_overall
    cdef double own_jump, en, ed, ln, ld
    cdef double *scale
    cdef double *target
    cdef Py_ssize_t m, a, b, c, j, k, cell, s, e, el, start, end, next_entry = 0, cn
    cdef bint earlier, later
    with nogil:
        m_e = zeros(g2, &failed)
        m_l = zeros(g2, &failed)
        entered = zeros(curves, &failed)
        total = zeros(g2, &failed)
        total_overall = zeros(g2, &failed)
        total_x = zeros(g2, &failed)
        total_x_overall = zeros(g2, &failed)
        factor_e = zeros(g2, &failed)
        factor_l = zeros(g2, &failed)
        curve_cells = index_zeros(curves * g2, &failed)
        curve_slots = index_zeros(curves * g2, &failed)
        curve_n_cells = index_zeros(curves, &failed)
        earlier_slot = index_zeros(g2, &failed)
        later_slot = index_zeros(g2, &failed)
        cell_of = <int64_t *> calloc(2 * g2 if g2 > 0 else 1, sizeof(int64_t))
        failed = failed or cell_of == NULL
        slot_scale = zeros(g * width, &failed)
        below = zeros(g2, &failed)
        below_overall = zeros(g2, &failed)
        below_x = zeros(g2, &failed)
        below_x_overall = zeros(g2, &failed)
        compensator = zeros(curves * g2, &failed)
        compensator_overall = zeros(curves, &failed)
        passed = zeros(curves, &failed)
        deaths = zeros(curves, &failed)
        censored = zeros(curves, &failed)
        jump = zeros(curves, &failed)
        rate = zeros(curves, &failed)
        sensitivity = zeros(curves * g2, &failed)
        sensitivity_overall = zeros(curves, &failed)
        row = zeros(width, &failed)
        if not failed:
            # first sweep: members per role and cell (DeLong's factor), curve sizes, the cells' psi^E sums
            if second_kind and point >= 0:
                c_add_point(g2, point_num_p, point_den_p, theta_p, pooled, total_x, total_x_overall)
            for m in range(n):
                a = codes[m]
                earlier = False
                later = False
                for b in range(g):
                    en = get(E_num, m, b)
                    ed = get(E_den, m, b)
                    if ed > 0:
                        m_e[a * g + b] += 1
                        earlier = True
                    if get(L_den, m, b) > 0:
                        m_l[b * g + a] += 1
                        later = True
                    total[a * g + b] += en - theta_p[a * g + b] * ed
                    total_overall[a * g + b] += en - pooled * ed
                    if second_kind and has_x:
                        c_add_second_kind(m, a, b, g, X_e_num, X_e_den, X_l_num, X_l_den, theta_p, pooled, total_x,
                                          total_x_overall)
                overall_e += earlier
                overall_l += later
                if n_curves > 0 and n_entries == 0:  # everyone at risk from time 0
                    entered[curve_of[a]] += weight[m] if has_weight else 1.0
            for cell in range(g2):
                factor_e[cell] = c_role_factor(m_e[cell])
                factor_l[cell] = c_role_factor(m_l[cell])
            overall_factor_e = c_role_factor(overall_e)
            overall_factor_l = c_role_factor(overall_l)

            # the cells whose weights involve curve c and where a row of curve c keeps them
            for c in range(n_curves):
                for cell in range(g2):
                    if mult[c, cell] > 0 or (second_kind and mult_later[c, cell] > 0):
                        curve_cells[c * g2 + curve_n_cells[c]] = cell
                        curve_slots[c * g2 + curve_n_cells[c]] = c_slot(c, cell, g, compact)
                        curve_n_cells[c] += 1
            # the slots of a row of group a as the earlier (cell (a, b)) and later (cell (b, a)) member
            for a in range(g):
                for b in range(g):
                    earlier_slot[a * g + b] = c_slot(a, a * g + b, g, compact)
                    later_slot[a * g + b] = c_slot(a, b * g + a, g, compact)
            # 1 / D of the cell in each slot of a row of group a (0 for the unused compact slot G + a)
            c_cell_table(g, cell_of)
            for a in range(g):
                for s in range(width):
                    cell = cell_of[a * 2 * g + s] if compact else s
                    if cell >= 0:
                        slot_scale[a * width + s] = inv_den[cell]

            start = 0
            while start < n:
                end = start + 1
                while end < n and time[end] == time[start]:
                    end += 1
                while n_curves > 0 and next_entry < n_entries and entry[entry_asc[next_entry]] < time[start]:
                    k = entry_asc[next_entry]  # enters the risk sets: the compensator so far is not k's
                    next_entry += 1
                    c = curve_of[codes[k]]
                    w_k = weight[k] if has_weight else 1.0
                    entered[c] += w_k
                    for j in range(curve_n_cells[c]):
                        target = ptr(out, k, curve_slots[c * g2 + j])
                        target[0] += w_k * compensator[c * g2 + curve_cells[c * g2 + j]]
                    overall_p[k] += w_k * compensator_overall[c]
                if n_curves > 0:
                    for c in range(n_curves):
                        deaths[c] = 0.0
                        censored[c] = 0.0
                    for m in range(start, end):
                        w_m = weight[m] if has_weight else 1.0
                        if event[m]:
                            deaths[curve_of[codes[m]]] += w_m
                        else:
                            censored[curve_of[codes[m]]] += w_m
                    for c in range(n_curves):
                        jump[c] = 0.0
                        rate[c] = 0.0
                        if censored[c] == 0:  # no row of c jumps here and c's compensators do not grow
                            continue
                        # events leave the risk set before the censorings at a tied time (the KM convention)
                        at_risk = entered[c] - passed[c] - deaths[c]
                        left = at_risk - censored[c]
                        # the zero rule of the censoring KM, relative to the weight that entered
                        if left > residue * (entered[c] if entered[c] >= at_risk else at_risk):
                            jump[c] = 1.0 / left
                            rate[c] = censored[c] / (at_risk * left)
                        sensitivity_overall[c] = 0.0
                        for j in range(curve_n_cells[c]):
                            cell = curve_cells[c * g2 + j]
                            sensitivity[c * g2 + cell] = mult[c, cell] * (total[cell] - below[cell])
                            sensitivity_overall[c] += mult[c, cell] * (total_overall[cell] - below_overall[cell])
                            if second_kind and mult_later[c, cell] > 0:
                                sensitivity[c * g2 + cell] += mult_later[c, cell] * (total_x[cell] - below_x[cell])
                                sensitivity_overall[c] += mult_later[c, cell] * (
                                    total_x_overall[cell] - below_x_overall[cell])
                for m in range(start, end):
                    a = codes[m]
                    for s in range(width):
                        row[s] = 0.0
                    psi_e = 0.0
                    psi_l = 0.0
                    for b in range(g):
                        e = a * g + b  # k as the earlier member: cell (a, b)
                        el = b * g + a  # k as the later member: cell (b, a)
                        en = get(E_num, m, b)
                        ed = get(E_den, m, b)
                        ln = get(L_num, m, b)
                        ld = get(L_den, m, b)
                        earlier_value = en - theta_p[e] * ed
                        earlier_overall = en - pooled * ed
                        row[earlier_slot[a * g + b]] += factor_e[e] * earlier_value
                        row[later_slot[a * g + b]] += factor_l[el] * (ln - theta_p[el] * ld)
                        psi_e += earlier_overall
                        psi_l += ln - pooled * ld
                        # F of the later blocks counts k (F of this block was taken before the loop)
                        below[e] += earlier_value
                        below_overall[e] += earlier_overall
                        if second_kind and has_x:
                            c_add_second_kind(m, a, b, g, X_e_num, X_e_den, X_l_num, X_l_den, theta_p, pooled,
                                              below_x, below_x_overall)
                    if second_kind and m == point:
                        c_add_point(g2, point_num_p, point_den_p, theta_p, pooled, below_x, below_x_overall)
                    value_overall = overall_factor_e * psi_e + overall_factor_l * psi_l
                    if n_curves > 0:
                        c = curve_of[a]
                        w_m = weight[m] if has_weight else 1.0
                        cn = curve_n_cells[c]
                        if event[m]:  # an event at s is not at risk of censoring at s
                            for j in range(cn):
                                row[curve_slots[c * g2 + j]] -= w_m * compensator[c * g2 + curve_cells[c * g2 + j]]
                            value_overall -= w_m * compensator_overall[c]
                        else:  # a censoring at s is, and jumps (this block has a censoring of curve c)
                            own_jump = jump[c] - rate[c]
                            for j in range(cn):
                                cell = curve_cells[c * g2 + j]
                                row[curve_slots[c * g2 + j]] += w_m * (
                                    sensitivity[c * g2 + cell] * own_jump - compensator[c * g2 + cell])
                            value_overall += w_m * (sensitivity_overall[c] * own_jump - compensator_overall[c])
                    scale = slot_scale + a * width
                    if credited:  # plus the compensator credited at k's entry
                        for s in range(width):
                            target = ptr(out, m, s)
                            target[0] = (row[s] + target[0]) * scale[s]
                    else:  # cells may be the later sums' memory: row m is read above, not added to
                        for s in range(width):
                            ptr(out, m, s)[0] = row[s] * scale[s]
                    overall_p[m] = (value_overall + overall_p[m]) * inv_total
                for c in range(n_curves):
                    if rate[c] > 0:
                        for j in range(curve_n_cells[c]):
                            cell = curve_cells[c * g2 + j]
                            compensator[c * g2 + cell] += sensitivity[c * g2 + cell] * rate[c]
                        compensator_overall[c] += sensitivity_overall[c] * rate[c]
                if n_curves > 0:
                    for m in range(start, end):
                        passed[curve_of[codes[m]]] += weight[m] if has_weight else 1.0
                start = end
        free(m_e)
        free(m_l)
        free(entered)
        free(total)
        free(total_overall)
        free(total_x)
        free(total_x_overall)
        free(factor_e)
        free(factor_l)
        free(curve_cells)
        free(curve_slots)
        free(curve_n_cells)
        free(earlier_slot)
        free(later_slot)
        free(cell_of)
        free(slot_scale)
        free(below)
        free(below_overall)
        free(below_x)
        free(below_x_overall)
        free(compensator)
        free(compensator_overall)
        free(passed)
        free(deaths)
        free(censored)
        free(jump)
        free(rate)
        free(sensitivity)
        free(sensitivity_overall)
        free(row)
    if failed:
        raise MemoryError("the influence sweep's scratch arrays")
