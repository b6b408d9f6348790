"""Pair-count kernel: every cell of the G x G xCI matrix in O(G n log n) time and O(n) memory.

No pair is ever materialised. Individuals are visited in decreasing order of time; for each
column group b a Fenwick (binary indexed) tree over the risk ranks *within group b* holds the
members of b already visited (the "later" members). For an event i, two prefix queries give how
many of them have a risk below r_i - tol (concordant) and up to r_i + tol (so the difference is
the tied risks). The trees of all groups together have n slots, so memory is O(n) whatever G.

The kernel returns counts, never ratios (counts first, ratios last): for every ordered group
pair (a, b) the comparable, concordant and tied-risk pair counts, the pairs tied in time, and the
weighted numerator and denominator of eq. 7 of Wang et al. (2026).

Conventions (DESIGN.md):

* ``strict=False`` (default, scikit-survival's): (i, j) is comparable when event_i and
  (time_i < time_j, or time_i == time_j and j is censored); a tied risk counts 1/2.
* ``strict=True`` (the paper's literal eq. 3-4): only time_i < time_j; a tied risk counts 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["PairCounts", "count_pairs"]


@dataclass(frozen=True)
class PairCounts:
    """Per-cell pair counts; every array has shape (G, G), rows a = earlier member's group.

    ``numerator`` and ``denominator`` are the weighted sums of eq. 7 (unit weights for the
    naive estimator). ``discordant`` is derived: comparable - concordant - tied_risk.
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


@njit(cache=True, nogil=True)
def _risk_bounds(sorted_risk, tol):
    """For each sorted position k: #{r < r_k - tol} and #{r <= r_k + tol} (two pointers, O(n))."""
    n = sorted_risk.shape[0]
    below = np.empty(n, np.int64)
    upto = np.empty(n, np.int64)
    lo = 0
    hi = 0
    for k in range(n):
        value = sorted_risk[k]
        while lo < n and sorted_risk[lo] < value - tol:
            lo += 1
        while hi < n and sorted_risk[hi] <= value + tol:
            hi += 1
        below[k] = lo
        upto[k] = hi
    return below, upto


@njit(cache=True, nogil=True)
def _column_pass(
    column, codes, time, event, order_time, order_risk, position, below, upto,
    inv_k_own, inv_k_column, weighted, tau, strict, n_groups,
):
    """Counts for every row group a against column group ``column``.

    Returns the six per-row arrays (length G) and the index of the first event whose IPCW
    weight is not finite (-1 when all are), so the caller can name the group and time.
    """
    n = time.shape[0]
    # prefix[k] = members of the column group among the k smallest risks
    prefix = np.zeros(n + 1, np.int64)
    for k in range(n):
        prefix[k + 1] = prefix[k] + (codes[order_risk[k]] == column)
    n_column = prefix[n]
    tree = np.zeros(n_column + 1, np.int64)

    comparable = np.zeros(n_groups, np.int64)
    concordant = np.zeros(n_groups, np.int64)
    tied_risk = np.zeros(n_groups, np.int64)
    tied_time = np.zeros(n_groups, np.int64)
    numerator = np.zeros(n_groups, np.float64)
    denominator = np.zeros(n_groups, np.float64)
    inserted = 0
    bad = -1

    end = n  # walk blocks of equal time from the largest time down
    while end > 0:
        start = end - 1
        t = time[order_time[start]]
        while start > 0 and time[order_time[start - 1]] == t:
            start -= 1
        # censored members at this time are "later" than events at this time (not if strict)
        censored_here = 0
        for m in range(start, end):
            j = order_time[m]
            if codes[j] == column and not event[j]:
                censored_here += 1
                if not strict:
                    slot = prefix[position[j]] + 1
                    while slot <= n_column:
                        tree[slot] += 1
                        slot += slot & (-slot)
                    inserted += 1
        if inserted > 0:
            for m in range(start, end):
                i = order_time[m]
                if not event[i]:
                    continue
                row = codes[i]
                lower = 0
                slot = prefix[below[position[i]]]
                while slot > 0:
                    lower += tree[slot]
                    slot -= slot & (-slot)
                not_higher = 0
                slot = prefix[upto[position[i]]]
                while slot > 0:
                    not_higher += tree[slot]
                    slot -= slot & (-slot)
                ties = not_higher - lower
                comparable[row] += inserted
                concordant[row] += lower
                tied_risk[row] += ties
                if not strict:
                    tied_time[row] += censored_here
                if weighted:
                    if t >= tau:
                        w = 0.0
                    else:
                        w = inv_k_own[i] * inv_k_column[i]
                        if not np.isfinite(w) and bad < 0:
                            bad = i
                else:
                    w = 1.0
                if strict:
                    numerator[row] += w * lower
                else:
                    numerator[row] += w * lower + 0.5 * w * ties
                denominator[row] += w * inserted
        for m in range(start, end):
            j = order_time[m]
            if codes[j] == column and (event[j] or strict):
                slot = prefix[position[j]] + 1
                while slot <= n_column:
                    tree[slot] += 1
                    slot += slot & (-slot)
                inserted += 1
        end = start
    return comparable, concordant, tied_risk, tied_time, numerator, denominator, bad


@dataclass(frozen=True)
class _Orders:
    """Sort orders shared by every column pass (computed once per call)."""

    order_time: np.ndarray
    order_risk: np.ndarray
    position: np.ndarray
    below: np.ndarray
    upto: np.ndarray


def _orders(time: np.ndarray, risk: np.ndarray, tied_tol: float) -> _Orders:
    order_time = np.argsort(time, kind="stable")
    order_risk = np.argsort(risk, kind="stable")
    position = np.empty_like(order_risk)
    position[order_risk] = np.arange(order_risk.shape[0])
    below, upto = _risk_bounds(risk[order_risk], tied_tol)
    return _Orders(order_time, order_risk, position, below, upto)


def _own_weights(time, codes, n_groups, inverse_k, row_weight):
    """Per-row factor of the earlier member's weight, and whether the pass is weighted."""
    weighted = inverse_k is not None or row_weight is not None
    if not weighted:
        return np.ones(1), False
    own = np.ones(time.shape[0])
    if inverse_k is not None:  # 1 / K_{g_i}(time_i), each row against its own group's curve
        for g in range(n_groups):
            rows = codes == g
            own[rows] = inverse_k(g, time[rows])
    if row_weight is not None:
        own = own * np.asarray(row_weight, dtype=np.float64)
    return np.ascontiguousarray(own), True


def _column_weights(column, time, inverse_k, weighted):
    """1 / K_b(time_i) of every row against column group b (ones without ``inverse_k``)."""
    if inverse_k is not None:
        return inverse_k(column, time)
    return np.ones(time.shape[0] if weighted else 1)


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
) -> tuple[PairCounts, tuple[int, int] | None]:
    """Count comparable, concordant and tied pairs for every ordered group pair.

    Parameters
    ----------
    time, event, codes, risk : ndarray of shape (n_samples,)
        Validated inputs (float64 times, bool events, group codes in [0, n_groups), float64 risks).
    n_groups : int
        Number of groups G.
    inverse_k : callable or None
        ``inverse_k(g, times)`` returns 1 / K_g(times) (inf where K is 0, NaN where undefined).
        None for the naive (unweighted) estimator.
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

    Returns
    -------
    counts : PairCounts
    bad : (row, column group) or None
        The first event whose weight against that column group is not finite.
    """
    orders = _orders(time, risk, tied_tol)
    own, weighted = _own_weights(time, codes, n_groups, inverse_k, row_weight)
    cutoff = np.inf if tau is None else float(tau)
    cells = [np.zeros((n_groups, n_groups), dtype) for dtype in (np.int64,) * 4 + (np.float64,) * 2]
    bad = None
    for column in range(n_groups):
        inv_column = _column_weights(column, time, inverse_k, weighted)
        result = _column_pass(
            column, codes, time, event, orders.order_time, orders.order_risk, orders.position,
            orders.below, orders.upto, own, inv_column, weighted, cutoff, strict, n_groups,
        )
        for cell, values in zip(cells, result[:6]):
            cell[:, column] = values
        if result[6] >= 0 and bad is None:
            bad = (int(result[6]), column)
    return PairCounts(*cells), bad


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
    """

    earlier_numerator: np.ndarray
    earlier_denominator: np.ndarray
    later_numerator: np.ndarray
    later_denominator: np.ndarray


@njit(cache=True, nogil=True)
def _earlier_pass(
    column, codes, time, event, order_time, order_risk, position, below, upto,
    inv_k_own, inv_k_column, weighted, tau, strict, out_num, out_den,
):
    """Row contributions of every event against later members of group ``column``."""
    n = time.shape[0]
    prefix = np.zeros(n + 1, np.int64)
    for k in range(n):
        prefix[k + 1] = prefix[k] + (codes[order_risk[k]] == column)
    n_column = prefix[n]
    tree = np.zeros(n_column + 1, np.int64)
    inserted = 0
    end = n
    while end > 0:
        start = end - 1
        t = time[order_time[start]]
        while start > 0 and time[order_time[start - 1]] == t:
            start -= 1
        if not strict:
            for m in range(start, end):
                j = order_time[m]
                if codes[j] == column and not event[j]:
                    slot = prefix[position[j]] + 1
                    while slot <= n_column:
                        tree[slot] += 1
                        slot += slot & (-slot)
                    inserted += 1
        if inserted > 0:
            for m in range(start, end):
                i = order_time[m]
                if not event[i]:
                    continue
                lower = 0
                slot = prefix[below[position[i]]]
                while slot > 0:
                    lower += tree[slot]
                    slot -= slot & (-slot)
                not_higher = 0
                slot = prefix[upto[position[i]]]
                while slot > 0:
                    not_higher += tree[slot]
                    slot -= slot & (-slot)
                w = 1.0
                if weighted:
                    w = 0.0 if t >= tau else inv_k_own[i] * inv_k_column[i]
                score = lower if strict else lower + 0.5 * (not_higher - lower)
                out_num[i, column] = w * score
                out_den[i, column] = w * inserted
        for m in range(start, end):
            j = order_time[m]
            if codes[j] == column and (event[j] or strict):
                slot = prefix[position[j]] + 1
                while slot <= n_column:
                    tree[slot] += 1
                    slot += slot & (-slot)
                inserted += 1
        end = start


@njit(cache=True, nogil=True)
def _later_pass(
    column, codes, time, event, order_time, order_risk, position, below, upto,
    inv_k_own, inv_k_column, weighted, tau, strict, n_groups, out_num, out_den,
):
    """Column contributions of every member of group ``column`` against earlier events of each group."""
    n = time.shape[0]
    # prefix[a, k] = members of group a among the k smallest risks; trees per row group, weighted
    prefix = np.zeros((n_groups, n + 1), np.int64)
    for k in range(n):
        for a in range(n_groups):
            prefix[a, k + 1] = prefix[a, k]
        prefix[codes[order_risk[k]], k + 1] += 1
    offsets = np.zeros(n_groups + 1, np.int64)
    for a in range(n_groups):
        offsets[a + 1] = offsets[a] + prefix[a, n] + 1
    tree = np.zeros(offsets[n_groups], np.float64)
    total = np.zeros(n_groups, np.float64)

    start = 0
    while start < n:
        end = start + 1
        t = time[order_time[start]]
        while end < n and time[order_time[end]] == t:
            end += 1
        for phase in range(2):
            # phase 0: query members that see only strictly earlier events; then insert this
            # block's events; phase 1: censored members also see events at their own time
            for m in range(start, end):
                j = order_time[m]
                if codes[j] != column:
                    continue
                if phase == 0 and not (event[j] or strict):
                    continue
                if phase == 1 and (event[j] or strict):
                    continue
                for a in range(n_groups):
                    if total[a] == 0.0:
                        continue
                    size = prefix[a, n]
                    lower = 0.0
                    slot = prefix[a, below[position[j]]]
                    while slot > 0:
                        lower += tree[offsets[a] + slot]
                        slot -= slot & (-slot)
                    not_higher = 0.0
                    slot = prefix[a, upto[position[j]]]
                    while slot > 0:
                        not_higher += tree[offsets[a] + slot]
                        slot -= slot & (-slot)
                    higher = total[a] - not_higher
                    if strict:
                        out_num[j, a] = higher
                    else:
                        out_num[j, a] = higher + 0.5 * (not_higher - lower)
                    out_den[j, a] = total[a]
            if phase == 0:
                for m in range(start, end):
                    i = order_time[m]
                    if not event[i]:
                        continue
                    w = 1.0
                    if weighted:
                        w = 0.0 if t >= tau else inv_k_own[i] * inv_k_column[i]
                    if w == 0.0:
                        continue
                    a = codes[i]
                    size = prefix[a, n]
                    slot = prefix[a, position[i]] + 1
                    while slot <= size:
                        tree[offsets[a] + slot] += w
                        slot += slot & (-slot)
                    total[a] += w
        start = end


def individual_contributions(
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
) -> IndividualContributions:
    """Per-individual contributions to every cell (same conventions and weights as :func:`count_pairs`).

    O(G^2 n log n) time and O(G n) memory. Weights that are not finite propagate as inf/NaN; call
    :func:`count_pairs` first, which reports positivity failures. ``row_weight`` is as in
    :func:`count_pairs`.
    """
    orders = _orders(time, risk, tied_tol)
    own, weighted = _own_weights(time, codes, n_groups, inverse_k, row_weight)
    cutoff = np.inf if tau is None else float(tau)
    n = time.shape[0]
    arrays = [np.zeros((n, n_groups)) for _ in range(4)]
    for column in range(n_groups):
        inv_column = _column_weights(column, time, inverse_k, weighted)
        common = (column, codes, time, event, orders.order_time, orders.order_risk, orders.position,
                  orders.below, orders.upto, own, inv_column, weighted, cutoff, strict)
        _earlier_pass(*common, arrays[0], arrays[1])
        _later_pass(*common, n_groups, arrays[2], arrays[3])
    return IndividualContributions(*arrays)
