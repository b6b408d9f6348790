"""DeLong variances of the xAUC family (DeLong, DeLong & Clarke-Pearson 1988; Sun & Xu 2014).

The per-row placement values (the kernel's per-individual contributions divided by the group
sizes) and the covariances built from them: all G*G cells, the balanced xAUCs and any pooled AUC.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._core.memory import require_memory

__all__ = [
    "BinaryRows",
    "delong_covariance",
    "pooled_parts",
    "balanced_parts",
    "placements",
    "sample_covariance",
]


@dataclass(frozen=True)
class BinaryRows:
    """Per-row data kept by an :class:`XAUCResult` for curves, diagnostics and metrics."""

    index: pd.Index
    codes: np.ndarray
    is_positive: np.ndarray
    score: np.ndarray
    earlier_numerator: np.ndarray  # (n, G): positives' concordance sums against each negative group
    later_numerator: np.ndarray  # (n, G): negatives' sums of positives of each group ranked above


def placements(
    rows: BinaryRows, sizes: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """V10[i, b] (positives) and V01[j, a] (negatives); NaN outside the role or for empty groups."""
    n_pos, n_neg = sizes
    with np.errstate(invalid="ignore", divide="ignore"):
        v10 = rows.earlier_numerator / n_neg[None, :]
        v01 = rows.later_numerator / n_pos[None, :]
    v10[:, n_neg == 0] = np.nan
    v01[:, n_pos == 0] = np.nan
    v10[~rows.is_positive] = np.nan
    v01[rows.is_positive] = np.nan
    return v10, v01


def sample_covariance(x: np.ndarray) -> np.ndarray:
    """Sample covariance (ddof=1) of the columns of x, shape (k, k); NaN with fewer than 2 rows."""
    k = x.shape[1]
    if x.shape[0] < 2:
        return np.full((k, k), np.nan)
    centred = x - x.mean(axis=0)
    return centred.T @ centred / (x.shape[0] - 1)


def delong_covariance(rows: BinaryRows, n_groups: int, sizes) -> np.ndarray:
    """DeLong covariance of all G*G cells (DeLong, DeLong & Clarke-Pearson 1988; Sun & Xu 2014).

    Cell (a, b) is a two-sample U-statistic over the positives of a and the negatives of b. Cells
    sharing the positives of a covary through V10 (cov_{P_a}(V10_ab, V10_ad) / n_1^a); cells
    sharing the negatives of b through V01 (cov_{N_b}(V01_ab, V01_cb) / n_0^b). Cells with
    disjoint samples, such as xAUC(a, b) and xAUC(b, a) for a != b, have covariance 0.
    """
    g = n_groups
    require_memory(
        8.0 * g**4,
        f"the DeLong covariance of the {g * g} xAUC cells ({g * g} x {g * g})",
        ("groups",),
    )
    v10, v01 = placements(rows, sizes)
    cov = np.zeros((g, g, g, g))  # [a, b, c, d] = Cov(theta_ab, theta_cd)
    for a in range(g):
        members = rows.is_positive & (rows.codes == a)
        if members.any():
            cov[a, :, a, :] += sample_covariance(v10[members]) / members.sum()
        else:
            cov[a, :, a, :] = np.nan
    for b in range(g):
        members = ~rows.is_positive & (rows.codes == b)
        if members.any():
            cov[:, b, :, b] += sample_covariance(v01[members]) / members.sum()
        else:
            cov[:, b, :, b] = np.nan
    return cov.reshape(g * g, g * g)


def pooled_parts(result: Any, positives: np.ndarray, negatives: np.ndarray) -> tuple[float, float]:
    """Value and DeLong variance of P[R_1 > R_0] over pooled groups of an ``XAUCResult``.

    The positives of the groups flagged in ``positives`` (boolean, shape (G,)) against the
    negatives of the groups flagged in ``negatives``: a two-sample U-statistic whose placement
    values are row sums of the kernel's per-individual numerators. All groups on both sides give
    the population AUC; one group on each side gives the cell and its DeLong variance exactly.
    NaN value without a pair, NaN variance with fewer than two positives or negatives.
    """
    rows = result.rows
    n_pos = np.array([result.group_sizes[k]["positives"] for k in result.groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in result.groups], dtype=float)
    m, n = n_pos[positives].sum(), n_neg[negatives].sum()
    if m == 0 or n == 0:
        return math.nan, math.nan
    value = float(result.pair_counts.numerator[np.ix_(positives, negatives)].sum() / (m * n))
    if m < 2 or n < 2:
        return value, math.nan
    v10 = (
        rows.earlier_numerator[rows.is_positive & positives[rows.codes]][:, negatives].sum(axis=1)
        / n
    )
    v01 = (
        rows.later_numerator[~rows.is_positive & negatives[rows.codes]][:, positives].sum(axis=1)
        / m
    )
    return value, float(
        sample_covariance(v10[:, None])[0, 0] / m + sample_covariance(v01[:, None])[0, 0] / n
    )


def balanced_parts(result: Any):
    """Balanced xAUC values, DeLong variances and same-type covariances (each G or G x G) of an
    ``XAUCResult`` (read by its fields: this module sits below the result's)."""
    rows = result.rows
    g = len(result.groups)
    pos, codes = rows.is_positive, rows.codes
    n_pos = np.array([result.group_sizes[k]["positives"] for k in result.groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in result.groups], dtype=float)
    m, n = n_pos.sum(), n_neg.sum()
    num = result.pair_counts.numerator
    with np.errstate(invalid="ignore", divide="ignore"):
        value1 = num.sum(axis=1) / (n_pos * n)  # xAUC^1(a) = P[R_1^a > R_0]
        value0 = num.sum(axis=0) / (m * n_neg)  # xAUC^0(b) = P[R_1 > R_0^b]
        # xAUC^1(a): positives of a vs all negatives
        v10_all = rows.earlier_numerator.sum(axis=1) / n  # each positive vs all negatives
        w_a = rows.later_numerator[~pos] / n_pos[None, :]  # each negative vs positives of a
        # xAUC^0(b): all positives vs negatives of b
        v10_b = rows.earlier_numerator[pos] / n_neg[None, :]
        w_all = rows.later_numerator.sum(axis=1) / m  # each negative vs all positives
    var1 = np.full(g, np.nan)
    var0 = np.full(g, np.nan)
    cov_neg = sample_covariance(w_a) / n  # shared negatives between xAUC^1(a), xAUC^1(c)
    cov_pos = sample_covariance(v10_b) / m  # shared positives between xAUC^0(b), xAUC^0(d)
    for k in range(g):
        own_pos = pos & (codes == k)
        own_neg = ~pos & (codes == k)
        if n_pos[k] >= 2:
            var1[k] = sample_covariance(v10_all[own_pos][:, None])[0, 0] / n_pos[k] + cov_neg[k, k]
        if n_neg[k] >= 2:
            var0[k] = sample_covariance(w_all[own_neg][:, None])[0, 0] / n_neg[k] + cov_pos[k, k]
    cov1 = cov_neg.copy()
    cov0 = cov_pos.copy()
    np.fill_diagonal(cov1, var1)
    np.fill_diagonal(cov0, var0)
    cov1[np.isnan(value1), :] = np.nan
    cov1[:, np.isnan(value1)] = np.nan
    cov0[np.isnan(value0), :] = np.nan
    cov0[:, np.isnan(value0)] = np.nan
    return {1: (value1, cov1), 0: (value0, cov0)}
