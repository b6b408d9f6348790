# cython: language_level=3
"""The censoring Kaplan-Meier sweep and right-continuous step lookups (survfair._censoring)."""

from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t

ctypedef fused index_t:
    int32_t
    int64_t


def kaplan_meier_sweep(const double[::1] time, const unsigned char[::1] event, const index_t[::1] rows,
                       const double[::1] weight, const double[::1] entry_values, const double[::1] entry_weights,
                       bint steps_only, double residue, double[::1] out_time, double[::1] out_survival):
    """The sweep of ``survfair._censoring.kaplan_meier_sorted``: counts the times it keeps and stores
    them in ``out_time`` / ``out_survival`` unless they are empty (the counting sweep).

    At a tied time events leave the risk set before censorings; K is multiplied by
    1 - c / (n - d). Zero rule: what is left after a time is 0 when it is at most ``residue`` times
    the weight that entered (see ``survfair._censoring.RESIDUE``).
    """
    cdef Py_ssize_t n = rows.shape[0], n_entries = entry_values.shape[0]
    cdef bint store = out_time.shape[0] > 0, has_weight = weight.shape[0] > 0
    cdef double entered = 0.0, passed = 0.0, value = 1.0, kept_value = 1.0
    cdef double t, w, deaths, censored, at_risk, left, ratio
    cdef Py_ssize_t i = 0, j = 0, next_entry = 0
    with nogil:
        if n_entries == 0:
            for i in range(n):
                entered += weight[rows[i]] if has_weight else 1.0
        i = 0
        while i < n:
            t = time[rows[i]]
            while next_entry < n_entries and entry_values[next_entry] < t:
                entered += entry_weights[next_entry] if has_weight else 1.0
                next_entry += 1
            deaths = 0.0
            censored = 0.0
            while i < n and time[rows[i]] == t:
                w = weight[rows[i]] if has_weight else 1.0
                if event[rows[i]]:
                    deaths += w
                else:
                    censored += w
                i += 1
            at_risk = entered - passed
            if censored != 0:
                left = at_risk - deaths - censored
                ratio = 1.0 if left <= residue * max(entered, at_risk) else censored / (at_risk - deaths)
                value = value * (1.0 - ratio)
            if not steps_only or value != kept_value or i == n:
                if store:
                    out_time[j] = t
                    out_survival[j] = value
                kept_value = value
                j += 1
            passed += deaths + censored
    return j


def step_lookup(const double[::1] curve_times, const double[::1] curve, const double[::1] times,
                bint undefined_beyond, double[::1] out):
    """Right-continuous step function at ``times`` into ``out``: a merge when ``times`` ascend, else a
    binary search per time; 1 before the first step, NaN beyond the last when ``undefined_beyond``."""
    cdef Py_ssize_t n = times.shape[0], n_steps = curve_times.shape[0]
    cdef Py_ssize_t i, position = -1, low, high, middle
    cdef double t, last = curve_times[n_steps - 1]
    cdef bint ascending = True
    with nogil:
        for i in range(1, n):
            if times[i] < times[i - 1]:
                ascending = False
                break
        for i in range(n):
            t = times[i]
            if ascending:
                while position + 1 < n_steps and curve_times[position + 1] <= t:
                    position += 1
            else:
                low = 0
                high = n_steps
                while low < high:
                    middle = (low + high) >> 1
                    if curve_times[middle] <= t:
                        low = middle + 1
                    else:
                        high = middle
                position = low - 1
            if undefined_beyond and t > last:
                out[i] = NAN
            else:
                out[i] = 1.0 if position < 0 else curve[position]
