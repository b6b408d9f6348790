"""Influence functions of the xCI matrix: the analytic (U-statistic) covariance and the jackknife.

Analytic variance
-----------------
Every cell is a ratio of two pair sums, ``xCI_ab = N_ab / D_ab``, with
``N_ab = sum_{i in a, j in b} w_ij h_ij`` and ``D_ab = sum w_ij`` over comparable pairs
(eq. 4 / eq. 7 of Wang et al. 2026). Linearising the ratio,
``xCI_ab - theta ~ (N_ab - theta D_ab) / D_ab``, and the numerator is a (one- or two-sample)
U-statistic of the individuals. Its Hajek projection is a sum over individuals of each one's share
of the pairs it belongs to: for individual k,

    psi_k(ab) = [num_k(ab) - xCI_ab den_k(ab)]

where ``num_k`` / ``den_k`` are k's weighted numerator / denominator as the EARLIER member of the
pairs of cell (a, b) (when k is in a) plus as the LATER member (when k is in b); these are the
DeLong structural components (placement values) generalised to censored, weighted pairs and are
computed for all cells by the same kernel passes that count the pairs
(:func:`survfair._core.kernel.count_pairs_and_contributions`, O(G^2 n log n)). A pair contributes to
both of its members, and that is exactly what the projection needs:
``sum_k psi_k = 2 (N - theta D) = 0`` and ``Var(N - theta D) ~ sum_k psi_k^2``. The covariance of
two cells is

    Cov(xCI_ab, xCI_cd) = sum_k phi_k(ab) phi_k(cd),
    phi_k(ab) = [s^E_ab psi^E_k(ab) + s^L_ab psi^L_k(ab)] / D_ab,

with psi^E / psi^L the earlier / later parts of psi and ``s = sqrt(m / (m - 1))`` the small-sample
factor of DeLong et al. (1988) for the ``m`` individuals that take that role in the cell (``m`` =
individuals with a positive earlier / later weight in the cell). With one group and no censoring,
when every event precedes every censoring-free "control" (a binary outcome), this is exactly the
DeLong variance of the AUC (tested). The factor changes the variance by O(1/n); without it the
estimator is the plain Hajek / infinitesimal-jackknife variance.

Estimated censoring weights (IPCW)
----------------------------------
When the censoring survival is fitted on the evaluated rows (``xci`` without a
``censoring_reference``), the weights ``1 / (K_a(t_i) K_b(t_i))`` are themselves estimates, and
each individual also moves the estimate through the Kaplan-Meier fits. Linearising the KM,
``log K_c(t) - log K_c^0(t) ~ -sum_{k in c} int_0^t dM_k(s) / (Y_c(s) - C_c(s))`` with M_k the
censoring martingale of k (Y_c at risk of censoring at s after the events at s leave, C_c censored
at s), and the pair's weight changes by ``-w_ij (dlog K_a + dlog K_b)(t_i)``. Summed over the pairs,
k in curve c adds to psi_k(ab)

    mult_c(ab) [ 1{k censored} F_ab(t_k) / (Y_c - C_c)(t_k)
                 - sum_{s <= t_k, k at risk of censoring at s}
                   F_ab(s) C_c(s) / (Y_c (Y_c - C_c))(s) ],

with ``F_ab(s) = sum_{i in a, t_i >= s} psi^E_i(ab)`` and ``mult_c(ab)`` the number of the pair's
two K factors that are curve c's (curve = group with ``censoring="group"``, one curve when
pooled). This is exactly the derivative of the estimate, KM refitted, in row k's case weight (the
infinitesimal jackknife; tested against finite differences of an O(n^2) case-weighted
estimator), computed in one O(n G^2) sweep up the time order. It sums to zero over k. In large
samples it can only shrink the variance (estimating the weights is at least as efficient as
knowing them); in a given sample it may move a standard error either way, usually by under 1%.
With a ``censoring_reference`` the curves come from other rows and are treated as fixed (known).

The pooled C (Proposition 4.1; Harrell's / Uno's C) is the ratio of the sums over all cells, so its
influence is built from the same contributions summed over cells.

Jackknife (for the BCa acceleration)
------------------------------------
Deleting individual k removes exactly the pairs k belongs to, so the delete-one estimate of every
cell is ``(N_ab - num_k(ab)) / (D_ab - den_k(ab))`` -- exact for the naive estimator and exact
with the censoring weights held fixed for IPCW (BCa only needs its skewness) -- computed in O(n G^2)
from the same contributions, where re-running the estimator n times would cost O(n^2 log n).
"""

from __future__ import annotations

import math
from dataclasses import field

import numpy as np

from .._compiled import CODE_TYPES, flags, floats, indices
from .._compiled import _influence as _compiled
from .censoring import RESIDUE as KM_RESIDUE
from .censoring import CensoringCurves
from .frozen import FrozenCachedProperty, frozen_result
from .kernel import (
    IndividualContributions,
    PairCounts,
    PairOptions,
    PreparedPairs,
    count_pairs_and_contributions,
    later_member_arrays,
    prepare_sample,
)
from .memory import require_memory
from .settings import EstimatorSettings
from .validation import SurvivalSample

__all__ = [
    "Influence",
    "CompactLayout",
    "influence",
    "influence_rows",
    "censoring_multiplicity",
    "time_ordered_options",
    "sum_by_cluster",
    "difference_se",
    "rows_over_contributions",
    "rows_beyond_contributions",
    "censoring_terms",
    "cell_ratios",
]


#: Compact rows (2G numbers) are smaller than dense ones (G^2) from three groups on.
_COMPACT_FROM_GROUPS = 3
#: A delete-one denominator at most this fraction of the full one is 0 (see :func:`_delete_one`).
_LEFT_OVER = 1e-12


@frozen_result
class CompactLayout:
    """Compact influence rows, (n, 2G) instead of (n, G^2).

    Individual k of group a belongs only to pairs of the cells (a, b) (as the earlier member) and
    (b, a) (as the later member), and with one censoring curve per group (or fixed weights) the
    Kaplan-Meier term of its own curve moves only those cells too: 2G - 1 of the G^2. Row k keeps
    them in slots 0..G-1 (cells (a, b)) and G + b (cells (b, a), b != a); the rest of its row is 0.
    Every variance, covariance and contrast is a sum over the groups of the products of their
    rows' slots, so nothing of size n x G^2 is formed (at G = 32 that is 1,024 against 64 numbers
    a row).
    """

    codes: np.ndarray  # (n,) group code of every row, in the rows' order
    n_groups: int
    #: made by survfair, made read-only without a copy (see survfair._core.frozen)
    _freeze_in_place = ("codes", "defined")
    defined: np.ndarray  # (G*G,) cells with a weighted comparable pair

    @FrozenCachedProperty
    def cell_of(self) -> np.ndarray:
        """(G, 2G): the cell of each slot for a row of each group, -1 for the unused slot (the
        sweep's own table, :data:`_cell_table`, so the two never disagree)."""
        return _cell_table(self.n_groups)

    @FrozenCachedProperty
    def members(self) -> list:
        """The rows of each group (positions in the rows' order)."""
        order = np.argsort(self.codes, kind="stable")
        return np.split(order, np.cumsum(np.bincount(self.codes, minlength=self.n_groups))[:-1])

    @property
    def undefined_slots(self) -> np.ndarray:
        """(G, 2G) True where the slot's cell has no weighted pair (its values become NaN)."""
        cells = self.cell_of
        return (cells >= 0) & ~self.defined[np.where(cells >= 0, cells, 0)]

    def blocks(self, rows: np.ndarray):
        """(group, the cells of its used slots, the group's rows at those slots) for every group."""
        for group, members in enumerate(self.members):
            cells = self.cell_of[group]
            used = np.flatnonzero(cells >= 0)
            yield group, cells[used], rows[members][:, used]

    def slot(self, group: int, cells: np.ndarray, missing: int) -> np.ndarray:
        """The slot of each cell for a row of ``group`` (the sweep's rule, vectorised), ``missing``
        for the cells that do not involve the group (its rows hold 0 there)."""
        earlier, later = np.divmod(cells, self.n_groups)
        slot = np.where(earlier == group, later, self.n_groups + earlier)
        return np.where((earlier == group) | (later == group), slot, missing)

    def expand(self, rows: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
        """The dense rows (n, G*G), with NaN columns for undefined cells; with ``order`` (the input
        row of each row, :attr:`Influence.order`) each row goes straight to its input row (one
        scatter, not a dense copy permuted afterwards: 1.5 of 3.4 s at 10^6 rows and G = 8)."""
        n, g2 = rows.shape[0], self.n_groups**2
        require_memory(
            8.0 * n * g2,
            f"the influence rows of {g2} cells for {n} rows (n x G^2 = {n} x {g2})",
            ("groups",),
        )
        dense = np.zeros((n, g2))
        for group, cells, block in self.blocks(rows):
            members = self.members[group] if order is None else order[self.members[group]]
            dense[np.ix_(members, cells)] = block
        dense[:, ~self.defined] = np.nan
        return dense


@frozen_result
class Influence:
    """Per-individual influence of every cell and of the pooled C.

    Attributes
    ----------
    cells : ndarray of shape (n_samples, G*G)
        ``phi_k(ab)`` (row-major cells) of input row k, scaled so that ``cells.T @ cells`` is the
        covariance of the cells. Columns of undefined cells (no weighted comparable pair) are NaN.
    overall : ndarray of shape (n_samples,)
        The same for the pooled C; ``overall @ overall`` is its variance.
    covariance : ndarray of shape (G*G, G*G)
        Covariance of the cells.
    overall_variance : float
        Variance of the pooled C.
    jackknife : ndarray of shape (n_samples, G*G)
        Delete-one estimates of every cell (censoring weights held fixed); computed on first
        access (only BCa intervals need it). Not available (``has_jackknife`` False) when the
        rows were written over the contributions (``influence(jackknife=False)``, as analytic
        ``xci`` results are).
    jackknife_overall : ndarray of shape (n_samples,)
        Delete-one estimates of the pooled C.

    The rows are computed in the kernel's time order (``order[m]`` is the input row of row m) and
    put in input order only when ``cells`` / ``overall`` are read (paired comparisons); the
    variances do not depend on the order of the rows. With a ``layout`` the stored rows are
    compact, (n, 2G) (:class:`CompactLayout`), and ``cells`` expands them on request.
    """

    cells_in_time_order: np.ndarray = field(repr=False)
    overall_in_time_order: np.ndarray = field(repr=False)
    order: np.ndarray = field(repr=False)
    #: large and made by survfair: made read-only without a copy (see survfair._core.frozen)
    _freeze_in_place = ("cells_in_time_order", "overall_in_time_order", "order")
    # what the delete-one estimates are made of: the cells' totals, the group codes and every
    # individual's contributions (None: not kept, see influence(jackknife=False))
    _leave_out: tuple | None = field(repr=False)
    layout: CompactLayout | None = field(default=None, repr=False)

    #: the rows are held (the moment engine's :class:`survfair._core.moments.MomentInfluence` holds
    #: none)
    has_rows = True

    @FrozenCachedProperty
    def cells(self) -> np.ndarray:
        if self.layout is None:
            return _in_input_order(self.cells_in_time_order, self.order)
        dense = self.layout.expand(self.cells_in_time_order, self.order)
        dense.flags.writeable = False
        return dense

    @FrozenCachedProperty
    def overall(self) -> np.ndarray:
        return _in_input_order(self.overall_in_time_order, self.order)

    @FrozenCachedProperty
    def covariance(self) -> np.ndarray:
        """The G^2 x G^2 covariance, built on first request (only paired contrasts of many cells
        or a user asking for it need it; standard errors never do)."""
        n_cells = self._n_cells
        require_memory(
            8.0 * n_cells**2,
            f"the covariance of the {n_cells} cells ({n_cells} x {n_cells})",
            ("groups",),
        )
        if self.layout is None:
            covariance = self.cells_in_time_order.T @ self.cells_in_time_order
        else:
            # each group's rows: the products of its slots (NaN rows and columns: undefined cells)
            covariance = np.zeros((n_cells, n_cells))
            for _, cells, rows in self.layout.blocks(self.cells_in_time_order):
                covariance[np.ix_(cells, cells)] += rows.T @ rows
            undefined = ~self.layout.defined
            covariance[undefined, :] = np.nan
            covariance[:, undefined] = np.nan
        covariance.flags.writeable = False
        return covariance

    @property
    def _n_cells(self) -> int:
        return self.cells_in_time_order.shape[1] if self.layout is None else self.layout.n_groups**2

    def cell_se(self) -> np.ndarray:
        """Standard error of every cell, shape (G*G,): the root of the diagonal of the covariance,
        computed column by column without forming it (NaN for undefined cells)."""
        rows = self.cells_in_time_order
        if self.layout is None:
            return np.sqrt(np.einsum("ij,ij->j", rows, rows))
        variance = np.zeros(self._n_cells)
        for _, cells, block in self.layout.blocks(rows):
            variance[cells] += np.einsum("ij,ij->j", block, block)
        variance[~self.layout.defined] = np.nan
        return np.sqrt(variance)

    def difference_se(self, first: np.ndarray, second: np.ndarray, chunk: int = 256) -> np.ndarray:
        """Standard errors of the cell differences theta[first[k]] - theta[second[k]].

        The same numbers as :meth:`contrast_se` with weights +1/-1 on the two cells, for many
        pairs at once: the rows of each difference are formed ``chunk`` pairs at a time, so the
        cost is O(n x pairs) and the memory O(n x chunk), with no G^2-long weight vector.
        """
        if self.layout is not None:
            return self._compact_difference_se(np.asarray(first), np.asarray(second), chunk)
        return difference_se(self.cells_in_time_order, first, second, chunk)

    def _compact_difference_se(
        self, first: np.ndarray, second: np.ndarray, chunk: int
    ) -> np.ndarray:
        """Var(f - s) = sum_k (phi_k(f) - phi_k(s))^2, summed over the (at most four) groups whose
        rows hold f or s, ``chunk`` differences at a time per group (a row of a group holding only
        one of the cells reads 0 for the other: its zero slot)."""
        layout, g = self.layout, self.layout.n_groups
        variance = np.zeros(len(first))
        ends = np.column_stack([*np.divmod(first, g), *np.divmod(second, g)])  # the four groups
        for column in range(4):
            group_of = ends[:, column]
            first_time = np.all(ends[:, :column] != group_of[:, None], axis=1)  # each group once
            for group in np.unique(group_of[first_time]):
                which = np.flatnonzero(first_time & (group_of == group))
                block = np.zeros((len(layout.members[group]), 2 * g + 1))  # + the zero slot
                block[:, : 2 * g] = self.cells_in_time_order[layout.members[group]]
                slots = [
                    layout.slot(group, cells[which], missing=2 * g) for cells in (first, second)
                ]
                for start in range(0, len(which), chunk):
                    part = slice(start, start + chunk)
                    diff = block[:, slots[0][part]] - block[:, slots[1][part]]
                    variance[which[part]] += np.einsum("ij,ij->j", diff, diff)
        return np.sqrt(variance)

    def _projected(self, weights: np.ndarray):
        """(used cells, rows x contrasts blocks): each row's phi . w for the contrasts ``weights``
        (NaN cells read as 0; the caller marks the contrasts that use them)."""
        used = np.flatnonzero((weights != 0).any(axis=0))
        if self.layout is None:
            rows = self.cells_in_time_order[:, used]
            return used, [np.where(np.isnan(rows), 0.0, rows) @ weights[:, used].T]
        blocks = []
        for _, cells, rows in self.layout.blocks(self.cells_in_time_order):
            blocks.append(np.where(np.isnan(rows), 0.0, rows) @ weights[:, cells].T)
        return used, blocks

    def _undefined(self, used: np.ndarray) -> np.ndarray:
        """Which of the ``used`` cells are undefined (no weighted pair)."""
        if self.layout is None:
            return np.isnan(self.cells_in_time_order[:, used]).any(axis=0)
        return ~self.layout.defined[used]

    def contrast_se(self, weights: np.ndarray) -> np.ndarray:
        """Standard errors of the contrasts ``weights @ vec(matrix)`` (one row of weights each).

        Var(w . theta) = sum_k (phi_k . w)^2, read from the influence rows of the cells that the
        contrasts use, so it costs O(n x cells used) and never forms the covariance. NaN where a
        contrast gives non-zero weight to an undefined cell.
        """
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        used, blocks = self._projected(weights)
        se = np.sqrt(sum(np.einsum("ij,ij->j", block, block) for block in blocks))
        se[(weights[:, used][:, self._undefined(used)] != 0).any(axis=1)] = np.nan
        return se

    def contrast_covariance(self, weights: np.ndarray) -> np.ndarray:
        """Covariance (K, K) of the contrasts ``weights @ vec(matrix)``, read from the influence
        rows of the cells they use (the G^2 x G^2 covariance is never formed). Contrasts that give
        weight to an undefined cell get NaN rows and columns."""
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        used, blocks = self._projected(weights)
        covariance = sum(block.T @ block for block in blocks)
        undefined = (weights[:, used][:, self._undefined(used)] != 0).any(axis=1)
        covariance[undefined, :] = np.nan
        covariance[:, undefined] = np.nan
        return covariance

    def clustered(self, cluster: np.ndarray, values: np.ndarray, overall: float) -> "Influence":
        """The cluster-robust influence: each cluster's rows summed before any square is taken.

        Var(theta) = sum over clusters c of (sum_{k in c} phi_k)^2, as R's ``concordance(...,
        cluster=)`` and the sandwich estimators of clustered data do: people of one cluster
        (patients of one hospital, repeated records) may be dependent, clusters are not. The rows
        of the result are one per cluster (in cluster-code order); with one cluster per row the
        variances are those of the individual rows. ``cluster`` holds the codes 0..C-1 of every
        input row; ``values`` (G*G,) and ``overall`` are the point estimates. The result's
        ``jackknife`` holds the pseudo-values theta - phi_c: BCa's acceleration is scale-free, so
        these give the infinitesimal-jackknife acceleration over clusters (Efron 1987).
        """
        in_time_order = cluster[self.order]
        if self.layout is None:
            cells = sum_by_cluster(self.cells_in_time_order, in_time_order)
        else:  # each group's slots summed into their cells: never the dense n x G^2 rows
            n_clusters = int(in_time_order.max()) + 1
            cells = np.zeros((n_clusters, self._n_cells))
            for group, columns, rows in self.layout.blocks(self.cells_in_time_order):
                cells[:, columns] += sum_by_cluster(
                    rows, in_time_order[self.layout.members[group]], n_clusters
                )
            cells[:, ~self.layout.defined] = np.nan
        total = sum_by_cluster(self.overall_in_time_order[:, None], in_time_order)[:, 0]
        pseudo = (np.asarray(values, dtype=float)[None, :] - cells, float(overall) - total)
        return Influence(cells, total, np.arange(cells.shape[0]), ("pseudo", pseudo))

    @property
    def overall_variance(self) -> float:
        return float(self.overall_in_time_order @ self.overall_in_time_order)

    @FrozenCachedProperty
    def jackknife(self) -> np.ndarray:
        if self._leave_out is not None and isinstance(
            self._leave_out[0], str
        ):  # clustered: see clustered()
            return self._leave_out[1][0]
        numerator, denominator, k_num, k_den = self._leave_out_sums
        return _delete_one(numerator, denominator, k_num, k_den)

    @FrozenCachedProperty
    def jackknife_overall(self) -> np.ndarray:
        if self._leave_out is not None and isinstance(self._leave_out[0], str):
            return self._leave_out[1][1]
        numerator, denominator, k_num, k_den = self._leave_out_sums
        return _delete_one(numerator.sum(), denominator.sum(), k_num.sum(axis=1), k_den.sum(axis=1))

    @property
    def has_jackknife(self) -> bool:
        """Whether the delete-one estimates can be read (see :func:`influence`'s ``jackknife``)."""
        return self._leave_out is not None

    @FrozenCachedProperty
    def _leave_out_sums(self):
        """Removing k removes exactly the pairs k belongs to: k's sums per cell, both roles."""
        if self._leave_out is None:
            raise RuntimeError(
                "this influence was computed without the contributions the jackknife needs "
                "(influence(jackknife=False))"
            )
        numerator, denominator, codes, contrib, g = self._leave_out
        contrib = contrib.in_input_order()
        n = codes.shape[0]
        rows = np.arange(n)[:, None]
        e_cell = codes[:, None] * g + np.arange(g)[None, :]
        l_cell = np.arange(g)[None, :] * g + codes[:, None]
        k_num = np.zeros((n, g * g))
        k_den = np.zeros((n, g * g))
        k_num[rows, e_cell] += contrib.earlier_numerator
        k_num[rows, l_cell] += contrib.later_numerator
        k_den[rows, e_cell] += contrib.earlier_denominator
        k_den[rows, l_cell] += contrib.later_denominator
        return numerator, denominator, k_num, k_den


def difference_se(
    rows: np.ndarray, first: np.ndarray, second: np.ndarray, chunk: int = 256
) -> np.ndarray:
    """sqrt(sum_k (rows[k, first[j]] - rows[k, second[j]])^2) for every j: the standard errors of
    cell differences from dense influence rows (n, cells), ``chunk`` differences at a time (memory
    O(n x chunk))."""
    se = np.empty(len(first))
    for start in range(0, len(first), chunk):
        stop = start + chunk
        diff = rows[:, first[start:stop]] - rows[:, second[start:stop]]
        se[start:stop] = np.sqrt(np.einsum("ij,ij->j", diff, diff))
    return se


def _delete_one(numerator, denominator, k_num: np.ndarray, k_den: np.ndarray) -> np.ndarray:
    """(N - num_k) / (D - den_k), NaN where nothing is left: D - den_k at most ``_LEFT_OVER`` of D
    is 0 (k was in every pair; den_k is summed in another order than D, so the difference is a
    rounding residue, and the ratio of two residues is no estimate)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        left = denominator - k_den
        kept = left > _LEFT_OVER * denominator
        return np.where(kept, (numerator - k_num) / np.where(kept, left, 1.0), np.nan)


def sum_by_cluster(
    rows: np.ndarray, cluster: np.ndarray, n_clusters: int | None = None
) -> np.ndarray:
    """Influence rows (n, k) summed within clusters (codes 0..C-1 of the same rows): (C, k).

    One ``np.bincount`` per column (sequential reads, no sort; at 10^6 rows and 16 cells the
    clustering added 0.03 s to 0.47 s of analytic xCI, against 0.68 s by sorting and
    ``np.add.reduceat``); a column that is NaN for a row stays NaN for its cluster.
    """
    n_clusters = int(cluster.max()) + 1 if n_clusters is None else n_clusters
    out = np.empty((n_clusters, rows.shape[1]))
    for column in range(rows.shape[1]):
        out[:, column] = np.bincount(cluster, weights=rows[:, column], minlength=n_clusters)
    return out


def _in_input_order(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = np.empty_like(values)
    out[order] = values
    out.flags.writeable = False
    return out


def rows_over_contributions(
    width: int, n_groups: int, mult: np.ndarray, *, delayed_entry: bool
) -> bool:
    """Whether influence rows ``width`` numbers wide can be written over the later members' sums
    (the (n, 2G) block of :func:`survfair._core.kernel.later_member_arrays`): they must be as wide
    as the block, and no row may be written before the sweep reads it, as the Kaplan-Meier term
    (``mult`` with rows: weights estimated) credited at a delayed entry is."""
    return width == 2 * n_groups and not (mult.shape[0] > 0 and delayed_entry)


def rows_beyond_contributions(n_groups: int, estimated: str | None, *, delayed_entry: bool) -> int:
    """Numbers a row that the influence rows need besides the contributions, before they are
    computed: none when they will be written over the later members' sums
    (:func:`rows_over_contributions`), else their width. ``estimated`` as in
    :func:`censoring_terms`."""
    curve_of, mult = censoring_terms(n_groups, estimated)
    width = 2 * n_groups if _compact(n_groups, curve_of, mult) else n_groups * n_groups
    return (
        0 if rows_over_contributions(width, n_groups, mult, delayed_entry=delayed_entry) else width
    )


def censoring_terms(n_groups: int, estimated: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(curve_of, mult) of :func:`influence_rows` for xCI: ``estimated`` is the kind of the
    censoring curves fitted on the evaluated rows ("group" or "pooled"), None when the weights are
    fixed (naive, or curves from a ``censoring_reference``: no Kaplan-Meier term)."""
    if estimated is None:
        return np.zeros(n_groups, np.int64), np.zeros((0, n_groups * n_groups))
    curve_of = (
        np.zeros(n_groups, np.int64)
        if estimated == "pooled"
        else np.arange(n_groups, dtype=np.int64)
    )
    return curve_of, censoring_multiplicity(curve_of, n_groups, later_factor=True)


def _compact_rows_hold(curve_of: np.ndarray, mult: np.ndarray) -> bool:
    """Whether a row's influence lies in its group's row and column of cells: the weights are fixed
    (no Kaplan-Meier term) or every censoring curve is one group's."""
    return mult.shape[0] == 0 or np.array_equal(curve_of, np.arange(curve_of.shape[0]))


def _compact(n_groups: int, curve_of: np.ndarray, mult: np.ndarray) -> bool:
    """Compact rows (n x 2G) whenever they hold all of a row's influence and are smaller than
    G^2."""
    return n_groups >= _COMPACT_FROM_GROUPS and _compact_rows_hold(curve_of, mult)


#: _cell_table(G): (G, 2G) int64, the cell (row-major index) of each slot of a compact row for a row
#: of each group (slots 0..G-1: the cells (group, b); slots G + a: the cells (a, group), a != group;
#: -1 for slot G + group) -- the compiled sweep's own table, so the Python side never disagrees
_cell_table = _compiled.cell_table


def time_ordered_options(
    sample: SurvivalSample, order: np.ndarray, prepared: PreparedPairs | None = None
) -> tuple:
    """(case weights, entry times, rows by increasing entry) of ``sample`` in the time order
    ``order``, empty arrays for what is absent; read from ``prepared`` when it has that order."""
    if prepared is not None and prepared.order is order:
        return prepared.case_weight, prepared.entry, prepared.entry_asc
    weight = np.empty(0) if sample.weights is None else np.ascontiguousarray(sample.weights[order])
    if sample.entry is None:
        return weight, np.empty(0), np.empty(0, np.int32)
    entry = np.ascontiguousarray(sample.entry[order])
    return weight, entry, np.argsort(entry, kind="stable")


def censoring_multiplicity(
    curve_of: np.ndarray, n_groups: int, *, later_factor: bool
) -> np.ndarray:
    """``mult[c, a*G + b]``: how many of the inverse-K factors of a pair of cell (a, b) are curve
    c's.

    The xCI weight 1 / (K_a(t_i) K_b(t_i)) has two (``later_factor=True``); a case weight
    1 / K_a(t_i) alone (xAUC(t)) has one. ``curve_of[g]`` is group g's censoring curve.
    """
    n_curves = int(curve_of.max()) + 1
    # dense (curves x G^2): G^3 numbers with per-group censoring, 64 GB at 2,000 groups; refused
    # with the remedies before numpy raises a bare MemoryError
    require_memory(
        8.0 * n_curves * n_groups * n_groups,
        f"analytic intervals: the censoring terms of {n_groups} "
        f"groups ({n_curves} x {n_groups * n_groups} numbers)",
        ("groups", "bootstrap", "no_intervals"),
    )
    mult = np.zeros((n_curves, n_groups * n_groups))
    for a in range(n_groups):
        for b in range(n_groups):
            mult[curve_of[a], a * n_groups + b] += 1
            if later_factor:
                mult[curve_of[b], a * n_groups + b] += 1
    return mult


def cell_ratios(numerator: np.ndarray, denominator: np.ndarray) -> tuple:
    """What the influence sweep reads from the cells' pair sums (G*G,): (defined cells, xCI of each
    (0 where undefined), 1 / D (0 where undefined), the pooled C, 1 / its denominator, that
    denominator); the pooled values are 0 without a weighted pair."""
    defined = denominator > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(defined, numerator / np.where(defined, denominator, 1.0), 0.0)
        inv_den = np.where(defined, 1.0 / np.where(defined, denominator, 1.0), 0.0)
    total_num, total_den = numerator.sum(), denominator.sum()
    pooled = total_num / total_den if total_den > 0 else 0.0
    inv_total = 1.0 / total_den if total_den > 0 else 0.0
    return defined, theta, inv_den, pooled, inv_total, total_den


def influence_rows(
    time: np.ndarray,
    event: np.ndarray,
    codes: np.ndarray,
    contributions: IndividualContributions,
    numerator: np.ndarray,
    denominator: np.ndarray,
    curve_of: np.ndarray,
    mult: np.ndarray,
    row_options: tuple | None = None,
    point_sources: tuple | None = None,
    *,
    compact: bool = False,
    overwrite: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """phi_k of every cell, shape (n, G*G), and of the pooled ratio, shape (n,), in time order.

    With ``compact`` the cells are (n, 2G): row k keeps only the cells of its group's row and
    column (:data:`_cell_table`; see :class:`CompactLayout`), which hold all of its influence when
    each censoring curve is one group's or the weights are fixed (refused otherwise).

    ``overwrite``: the rows may be written over the contributions' later members' sums, which are
    then lost (the caller keeps no use of them): no new n x 2G array. Done when the rows are 2G wide
    and the sums are the halves of one block (:func:`survfair._core.kernel.later_member_arrays`),
    without a Kaplan-Meier term credited at delayed entries (see :func:`rows_over_contributions`).

    ``time``, ``event``, ``codes`` and the contributions' rows in ascending time order (the
    order of the censoring fit's risk sets); ``numerator`` / ``denominator`` the cells' pair sums
    (G*G,); ``curve_of`` / ``mult`` as in :func:`censoring_multiplicity` (``mult`` with 0 rows:
    weights fixed). Columns of cells without a weighted pair are NaN.
    ``row_options`` = (case weights, entry times, rows by increasing entry), in time order (see
    :func:`time_ordered_options`; None: no weights, no delayed entry). Under competing risks
    ``event`` is every observed event (the censoring fit's) and the contributions carry their
    pairs of the second kind (``contributions.second_kind``), whose later member's factor is taken
    at its own time. ``point_sources`` = (time-order position, numerator sums (G*G,), denominator
    sums (G*G,)): later members whose factor is the later member's curve at that position's time
    (None: none).
    """
    n, g = contributions.earlier_numerator.shape
    defined, theta, inv_den, pooled, inv_total, total_den = cell_ratios(numerator, denominator)
    if compact and not _compact_rows_hold(curve_of, mult):
        raise ValueError("compact influence rows need one censoring curve per group")
    width = 2 * g if compact else g * g
    options = (
        (np.empty(0), np.empty(0), np.empty(0, np.int32)) if row_options is None else row_options
    )
    block = contributions.later_block
    delayed_entry = options[2].shape[0] > 0
    if (
        overwrite
        and block is not None
        and rows_over_contributions(width, g, mult, delayed_entry=delayed_entry)
    ):
        cells = block  # every entry is written by the sweep
    else:
        require_memory(
            8.0 * n * width,
            f"analytic intervals: the influence rows of {g * g} cells for {n} rows "
            f"(n x {'2G' if compact else 'G^2'} = {n} x {width})",
            ("groups", "bootstrap", "no_intervals"),
        )
        cells = np.zeros((n, width))
    overall = np.zeros(n)
    second = contributions.second_kind
    if point_sources is None:
        point_sources = (-1, np.zeros(g * g), np.zeros(g * g))
    if second is None and point_sources[0] < 0:
        second, mult_later = (np.zeros((0, 0)),) * 4, np.zeros((0, 0))
    else:
        second = (np.zeros((0, 0)),) * 4 if second is None else second
        mult_later = censoring_multiplicity(
            curve_of, g, later_factor=True
        ) - censoring_multiplicity(curve_of, g, later_factor=False)
    weight, entry, entry_asc = options
    _compiled.influence_sweep(
        floats(time),
        flags(event),
        indices(codes, CODE_TYPES),
        floats(weight),
        floats(entry),
        indices(entry_asc),
        contributions.earlier_numerator,
        contributions.earlier_denominator,
        contributions.later_numerator,
        contributions.later_denominator,
        *second,
        int(point_sources[0]),
        *(floats(values) for values in point_sources[1:]),
        floats(theta),
        floats(inv_den),
        float(pooled),
        float(inv_total),
        indices(curve_of, (np.int64,)),
        floats(mult),
        floats(mult_later),
        cells,
        overall,
        bool(compact),
        KM_RESIDUE,
    )
    if compact:
        cells[CompactLayout(codes, g, defined).undefined_slots[codes]] = np.nan
    else:
        cells[:, ~defined] = np.nan
    if total_den <= 0:
        overall[:] = np.nan
    # held by frozen results: read-only, so no caller can change a result's standard errors
    cells.flags.writeable = overall.flags.writeable = False
    return cells, overall


def influence(
    sample: SurvivalSample,
    counts: PairCounts,
    *,
    settings: EstimatorSettings,
    curves: CensoringCurves | None,
    censoring_estimated: bool = False,
    prepared: PreparedPairs | None = None,
    contributions: IndividualContributions | None = None,
    jackknife: bool = True,
) -> Influence:
    """Influence functions and delete-one jackknife of every cell and of the pooled C.

    Parameters
    ----------
    sample : SurvivalSample
        Validated data (n_samples rows, G groups).
    counts : PairCounts
        The point estimate's pair counts on ``sample`` (from
        :func:`survfair._xci.estimator.estimate_xci`).
    settings : EstimatorSettings
        The estimator's settings (method, tau, tied_tol, strict; its censoring is ``curves``).
    curves : CensoringCurves or None
        The fitted censoring curves (IPCW); None for the naive estimator.
    censoring_estimated : bool, default False
        True when ``curves`` are the Kaplan-Meier fits on ``sample`` itself (``xci`` without a
        ``censoring_reference``): the influence then includes the estimation of the weights.
        False treats the weights as fixed (curves from another sample).
    prepared : PreparedPairs, optional
        The point estimate's sorted and ranked data (saves preparing them again).
    contributions : IndividualContributions, optional
        The contributions on ``sample`` with these settings, when the caller computed them with
        the counts (:func:`survfair._core.kernel.count_pairs_and_contributions`); computed
        otherwise.
    jackknife : bool, default True
        Whether the result can give the delete-one estimates (it keeps the contributions, 4G
        numbers a row). False lets the influence rows be written over the contributions, which the
        caller must not use afterwards (:func:`influence_rows`): analytic intervals then hold 2G
        numbers a row once computed, and 4G at their peak, not 6G.

    Returns
    -------
    Influence
        One row per individual, or with ``sample.cluster`` one row per cluster
        (:meth:`Influence.clustered`: cluster-robust).

    Notes
    -----
    See the module docstring for the formulas (Hajek projection of the ratio of U-statistics,
    DeLong et al. 1988 small-sample factor, Kaplan-Meier term). Cost: the kernel's passes
    (O(G^2 n log n)) plus two sweeps, O(n G) with compact rows (G >= 3, one censoring curve per
    group or none) and O(n G^2) otherwise.

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two or
    more correlated receiver operating characteristic curves: a nonparametric approach.
    Biometrics 44(3), 837-845.
    """
    method = settings.method
    g = sample.n_groups
    if contributions is None:
        rows = prepared if prepared is not None else prepare_sample(sample, settings.tied_tol)
        _, _, contributions = count_pairs_and_contributions(rows, PairOptions.of(settings, curves))
    if contributions.order is None:  # in input order: the sweep below needs time order
        order = np.argsort(sample.time)
        second = contributions.second_kind
        block, later_num, later_den = later_member_arrays(*contributions.later_numerator.shape)
        later_num[:] = contributions.later_numerator[order]
        later_den[:] = contributions.later_denominator[order]
        contributions = IndividualContributions(
            contributions.earlier_numerator[order],
            contributions.earlier_denominator[order],
            later_num,
            later_den,
            order=order,
            second_kind=None if second is None else tuple(values[order] for values in second),
            later_block=block,
        )
    order = contributions.order
    if prepared is not None and prepared.order is order:  # already permuted by the kernel
        time, codes = prepared.time, prepared.codes
        event = prepared.event if sample.competing is None else prepared.event | prepared.competing
    else:  # the censoring fit's events: every observed event
        time, event, codes = sample.time[order], sample.observed[order], sample.group_codes[order]
    curve_of, mult = censoring_terms(
        g, curves.kind if method == "ipcw" and censoring_estimated else None
    )
    numerator, denominator = counts.numerator.ravel(), counts.denominator.ravel()
    compact = _compact(g, curve_of, mult)
    cells, overall = influence_rows(
        time,
        event,
        codes,
        contributions,
        numerator,
        denominator,
        curve_of,
        mult,
        time_ordered_options(sample, order, prepared),
        compact=compact,
        overwrite=not jackknife,
    )
    layout = CompactLayout(codes, g, denominator > 0) if compact else None
    leave_out = (
        (numerator, denominator, sample.group_codes, contributions, g) if jackknife else None
    )
    result = Influence(cells, overall, order, leave_out, layout)
    if sample.cluster is None:
        return result
    # clustered rows (xci(cluster=)): every consumer -- analytic intervals, BCa, paired
    # comparisons -- reads the cluster-robust rows from here
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(
            denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan
        )
        pooled = numerator.sum() / denominator.sum() if denominator.sum() > 0 else math.nan
    return result.clustered(sample.cluster, values, pooled)
