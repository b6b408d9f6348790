"""The influence rows behind a model-based result's intervals: the observed and the model-based
cells' rows of the same individuals (or clusters), compact (2G numbers a row) when the observed
xCI's are.

Individual k of group a belongs only to pairs of the cells (a, b) (as the earlier member) and
(b, a) (as the later member). The model-based reference has no Kaplan-Meier term, so its rows are
always compact; the observed rows are whenever :class:`survfair._core.influence.CompactLayout`
holds for them (three groups or more, one censoring curve per group or fixed weights, no
clusters). Both sets then share one layout, every standard error, covariance and contrast is a sum
over the groups of their rows' slots, and the dense (n, G^2) rows are made only when
:attr:`ModelBasedResult.influence` / ``.observed_influence`` are read: at 10^6 rows and G = 8 the
dense rows cost 1.8 s to expand, 1.4 s to copy and 1 GB to hold, none of which a standard error
needs.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._core.frozen import FrozenCachedProperty, frozen_result
from .._core.influence import CompactLayout, Influence, sum_by_cluster
from .._core.kernel import IndividualContributions

__all__ = ["PairedRows", "paired_rows", "compact_model_based_rows", "model_based_rows"]


@frozen_result
class PairedRows:
    """Influence rows of the observed and of the model-based cells, row k of both the same
    individual or cluster.

    Dense (no ``layout``): (m, G*G) with NaN columns for undefined cells, row k input row (or
    cluster) k. Compact (``layout``, :class:`CompactLayout`; its ``defined`` are the observed
    cells', ``model_based_defined`` the reference's): (m, 2G), the rows sorted by group (each
    group's block one slice, read without a copy) and ``order[k]`` the input row of row k.
    """

    observed: np.ndarray
    model_based: np.ndarray
    layout: CompactLayout | None = None
    model_based_defined: np.ndarray | None = None
    order: np.ndarray | None = None
    #: made by survfair, made read-only without a copy (see survfair._core.frozen)
    _freeze_in_place = ("observed", "model_based", "model_based_defined", "order")

    @property
    def n_rows(self) -> int:
        return self.observed.shape[0]

    @FrozenCachedProperty
    def observed_cells(self) -> np.ndarray:
        """The observed rows, dense (m, G*G), in input order."""
        if self.layout is None:
            return self.observed
        return self.layout.expand(self.observed, self.order)

    @FrozenCachedProperty
    def model_based_cells(self) -> np.ndarray:
        """The model-based rows, dense (m, G*G), in input order."""
        if self.layout is None:
            return self.model_based
        layout = dataclasses.replace(self.layout, defined=self.model_based_defined)
        return layout.expand(self.model_based, self.order)

    @FrozenCachedProperty
    def excess(self) -> np.ndarray:
        """Observed minus model-based rows, in the rows' own layout: formed once, read by every SE,
        interval and degrees of freedom of the excess."""
        return self.observed - self.model_based

    @FrozenCachedProperty
    def _bounds(self) -> np.ndarray:
        """(G + 1,): group g's rows are [bounds[g], bounds[g + 1]) (rows sorted by group)."""
        counts = np.bincount(self.layout.codes, minlength=self.layout.n_groups)
        return np.concatenate([[0], np.cumsum(counts)])

    def _rows_of(self, of: str) -> np.ndarray:
        return {"excess": self.excess, "model_based": self.model_based, "observed": self.observed}[
            of
        ]

    def projected(self, of: str, weights: np.ndarray) -> np.ndarray:
        """phi_k . w of every row k and contrast of ``weights`` (K, G*G), (m, K) in input order,
        over the rows of ``of`` ("excess", "model_based" or "observed"); NaN entries read as 0 (the
        caller marks the contrasts of undefined cells).

        Compact rows: each group's block times the coefficients of its slots' cells (0 for its
        unused slot), written to its members' input rows. A row then sums the same non-zero
        products as its dense row would, and the (m, K) result has the dense one's shape and row
        order, so the sums of squares over it are the dense path's to the last bit (for contrasts
        of at most two cells a row, as every cell, difference and summary is); a sum over each
        group's rows apart would round differently.
        """
        rows = self._rows_of(of)
        if self.layout is None:
            return np.where(np.isnan(rows), 0.0, rows) @ weights.T
        out = np.empty((self.n_rows, weights.shape[0]))
        bounds = self._bounds
        for group, cells in enumerate(self.layout.cell_of):
            coefficients = np.where(cells[:, None] >= 0, weights[:, cells].T, 0.0)  # (2G, K)
            block = rows[bounds[group] : bounds[group + 1]]
            members = self.order[bounds[group] : bounds[group + 1]]
            out[members] = np.where(np.isnan(block), 0.0, block) @ coefficients
        return out

    def variance(self, of: str, weights: np.ndarray) -> np.ndarray:
        """sum_k (phi_k . w)^2 of every contrast of ``weights``: its variance."""
        projected = self.projected(of, weights)
        return np.einsum("ij,ij->j", projected, projected)

    def variance_and_spread(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(V, sum_k d_k^4 - V^2 / m) of every excess contrast, d_k = (phi_obs,k - phi_mb,k) . w:
        what Satterthwaite's degrees of freedom are made of."""
        d = self.projected("excess", weights)
        v = np.einsum("ij,ij->j", d, d)
        return v, np.einsum("ij,ij->j", d**2, d**2) - v**2 / d.shape[0]


def compact_model_based_rows(
    contributions: IndividualContributions,
    codes: np.ndarray,
    n_groups: int,
    numerator: np.ndarray,
    denominator: np.ndarray,
) -> np.ndarray:
    """Compact influence rows (n, 2G) of the model-based cells N_ab / D_ab
    (:class:`CompactLayout`'s slots: 0..G-1 the cells (a, b) of row k's group a, G + b the cells
    (b, a); the cell (a, a) in slot a, slot G + a 0).

    Each cell is a ratio of two-sample U-statistics over the individuals (pi_ij a fixed function of
    i's and j's predictions); its Hajek projection gives row k the sum over k's pairs, as the
    earlier member (k in a) and as the later member (k in b), of (h_ij - theta_ab) pi_ij, divided by
    D_ab: the same construction, and scale, as the observed xCI's influence rows
    (:mod:`survfair._core.influence`). Whole-array operations on the (n, G) contributions, each
    entry computed as the dense rows computed it (the same operations in the same order). NaN in
    the slots of undefined cells. ``numerator`` / ``denominator``: the cells' sums (G, G).
    """
    g = n_groups
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(
            denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0
        )
    divisor = np.where(denominator > 0, denominator, 1.0)  # each entry divided once
    rows = np.empty((codes.shape[0], 2 * g))
    # k earlier, the later member in b: cell (a, b), a = codes[k]
    np.subtract(
        contributions.earlier_numerator,
        theta[codes] * contributions.earlier_denominator,
        out=rows[:, :g],
    )
    rows[:, :g] /= divisor[codes]
    # k later, the earlier member in b: cell (b, a)
    np.subtract(
        contributions.later_numerator,
        theta.T[codes] * contributions.later_denominator,
        out=rows[:, g:],
    )
    rows[:, g:] /= divisor.T[codes]
    # the cell (a, a) has k in both roles: one slot (a), the earlier share plus the later one
    everyone = np.arange(codes.shape[0])
    rows[everyone, codes] += rows[everyone, g + codes]
    rows[everyone, g + codes] = 0.0
    defined = denominator.ravel() > 0
    if not defined.all():
        rows[CompactLayout(codes, g, defined).undefined_slots[codes]] = np.nan
    return rows


def model_based_rows(
    contributions: IndividualContributions,
    codes: np.ndarray,
    n_groups: int,
    numerator: np.ndarray,
    denominator: np.ndarray,
) -> np.ndarray:
    """Dense influence rows (n, G*G) of the model-based cells, NaN columns for undefined cells: the
    compact rows (:func:`compact_model_based_rows`) expanded."""
    compact = compact_model_based_rows(contributions, codes, n_groups, numerator, denominator)
    return CompactLayout(codes, n_groups, denominator.ravel() > 0).expand(compact)


def paired_rows(
    observed: Influence,
    contributions: IndividualContributions,
    codes: np.ndarray,
    numerator: np.ndarray,
    denominator: np.ndarray,
    cluster: np.ndarray | None,
) -> PairedRows:
    """The observed xCI's influence rows (``observed``, as :func:`influence_with_rows` gives them)
    beside the model-based rows of the same individuals, compact when the observed rows are
    (sorted by group, see :class:`PairedRows`); with ``cluster`` (codes of the input rows) both
    summed by cluster (dense: the observed rows already are)."""
    g = numerator.shape[0]
    if observed.layout is None:  # dense observed rows: two groups, pooled censoring, clusters
        rows = model_based_rows(contributions, codes, g, numerator, denominator)
        if cluster is not None:
            rows = sum_by_cluster(rows, cluster)
        return PairedRows(observed.cells, rows)
    # sorted by group (the observed layout's members: one argsort, shared with the observed
    # result), so that every group's rows are one slice; 2G numbers a row moved, not G^2
    by_group = np.concatenate(observed.layout.members)
    order = observed.order[by_group]
    model_based = compact_model_based_rows(contributions, codes, g, numerator, denominator)
    return PairedRows(
        observed.cells_in_time_order[by_group],
        model_based[order],
        CompactLayout(observed.layout.codes[by_group], g, observed.layout.defined),
        denominator.ravel() > 0,
        order,
    )
