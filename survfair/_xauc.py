"""The binary xAUC family (Kallus & Zhou 2019) as the uncensored special case of xCI.

A positive (the label that should rank higher) is encoded as an event at time 0 and a negative
as censored at time 1. Under the pair-count kernel's conventions the comparable pairs are then
exactly the (positive, negative) pairs, so the kernel's cell (a, b) is
xAUC(a, b) = P[R_1^a > R_0^b] (Definition 2), ties counting 1/2, and the kernel's per-individual
contributions are the DeLong structural components (placement values):

* ``earlier_numerator[i, b] / n_0^b`` of a positive i of group a is the fraction of negatives of
  group b it outranks, V10_{ab}(i);
* ``later_numerator[j, a] / n_1^a`` of a negative j of group b is the fraction of positives of
  group a that outrank it, V01_{ab}(j) -- the conditional xAUC of Section 6.

Everything here comes from one call of :func:`survfair._kernel.count_pairs_and_contributions`:
the pair counts and the per-individual contributions out of the same passes.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ._exceptions import UndefinedXAUCWarning, listed
from ._memory import require_memory
from ._kernel import IndividualContributions, PairCounts, count_pairs_and_contributions
from ._intervals import ConfidenceInterval, cell_wald_interval, wald_interval, wald_p_value
from ._results import CellMatrixAccessors, json_safe, readonly
from ._summaries import Estimate
from ._validation import (
    SurvivalSample,
    check_binary_inputs,
    check_confidence_level,
    check_option,
    check_scalar,
    check_tied_tol,
    warn_excluded_rows,
)

__all__ = [
    "XAUCResult",
    "XROCCurve",
    "UndefinedXAUCWarning",
    "xauc",
    "balanced_xauc",
    "delta_balanced_xauc",
    "auc_decomposition",
    "xroc",
    "balanced_xroc",
    "conditional_xauc",
    "group_metrics",
]

ROW_NAME = "a (positive)"
COLUMN_NAME = "b (negative)"


@dataclass(frozen=True)
class _BinaryRows:
    """Per-row data kept by an :class:`XAUCResult` for curves, diagnostics and metrics."""

    index: pd.Index
    codes: np.ndarray
    is_positive: np.ndarray
    score: np.ndarray
    earlier_numerator: np.ndarray  # (n, G): positives' concordance sums against each negative group
    later_numerator: np.ndarray  # (n, G): negatives' sums of positives of each group ranked above


def _group_index(groups: tuple) -> pd.Index:
    return pd.Index(list(groups), name="group", tupleize_cols=False)


@dataclass(frozen=True)
class XAUCResult(CellMatrixAccessors):
    """Result of :func:`survfair.xauc`: the G x G xAUC matrix with DeLong inference.

    Rows ``a`` are the group of the POSITIVE, columns ``b`` the group of the NEGATIVE:
    ``matrix.loc[a, b]`` estimates xAUC(a, b) = P[R_1^a > R_0^b] (Kallus & Zhou 2019,
    Definition 2); the diagonal holds the within-group AUCs AUC^a. The object is duck-type
    compatible with :class:`survfair.XCIResult` for the linear summaries
    (:func:`survfair.contrast`, :func:`survfair.delta_between`, :func:`survfair.delta_within`,
    :func:`survfair.min_xci`, :func:`survfair.utility`), which then read the DeLong covariance.

    Standard errors (``se``), Wald intervals from the DeLong covariance (``confidence_interval``,
    ``ci_low``, ``ci_high``) and ``to_frame`` come from :class:`CellMatrixAccessors`.

    Attributes
    ----------
    groups : tuple
        Group labels in matrix order.
    positive : hashable
        Label of the positive class in ``y``.
    tied_tol : float
        Scores with |r_i - r_j| <= tied_tol are tied and count 1/2.
    n_samples : int
        Rows analysed.
    pair_counts : PairCounts
        Kernel counts per cell (read-only (G, G) arrays): ``comparable`` = n_1^a n_0^b pairs,
        ``concordant``, ``tied_risk`` (tied scores), ``numerator`` = concordant + ties / 2.
    covariance : ndarray of shape (G*G, G*G)
        DeLong covariance of the cells in row-major order (a, b); NaN where undefined.
    group_sizes : dict
        Per group: ``{"n": ..., "positives": ..., "negatives": ...}``.
    confidence_level : float
        Level of the reported intervals.
    ci_method : str
        ``"delong"``.
    """

    _row_name = ROW_NAME
    _column_name = COLUMN_NAME

    groups: tuple
    positive: Any
    tied_tol: float
    n_samples: int
    pair_counts: PairCounts = field(repr=False)
    covariance: np.ndarray = field(repr=False)
    group_sizes: dict = field(repr=False, default_factory=dict)
    confidence_level: float = 0.95
    ci_method: str = "delong"
    replicates: None = field(repr=False, default=None)
    rows: _BinaryRows | None = field(repr=False, default=None)

    def __post_init__(self):
        counts = PairCounts(*(readonly(getattr(self.pair_counts, f)) for f in PairCounts.__dataclass_fields__))
        object.__setattr__(self, "pair_counts", counts)
        object.__setattr__(self, "covariance", readonly(self.covariance))

    # -- values (``values`` and ``matrix`` come from CellMatrixAccessors) ----------------------
    @property
    def within(self) -> pd.Series:
        """Within-group AUCs AUC^a = xAUC(a, a) (the diagonal), indexed by group."""
        return pd.Series(np.diag(self.values), index=_group_index(self.groups), name="auc")

    @property
    def overall(self) -> float:
        """Population AUC P[R_1 > R_0] over all (positive, negative) pairs."""
        return float(self.pair_counts.numerator.sum() / self.pair_counts.denominator.sum())

    @property
    def auc(self) -> float:
        """Alias of :attr:`overall`: the population AUC."""
        return self.overall

    def overall_estimate(self, *, null: float = 0.5, confidence_level: float | None = None) -> Estimate:
        """The population AUC :attr:`overall` with its DeLong standard error, interval and p-value.

        The pooled AUC is the two-sample U-statistic of all positives against all negatives, so
        its DeLong variance is S10 / n_1 + S01 / n_0 with the placement values of every positive
        (against all negatives) and every negative (against all positives).

        Parameters
        ----------
        null : float, default=0.5
            Value under H0 for the two-sided Wald p-value (0.5: a score no better than chance).
        confidence_level : float, optional
            Defaults to :attr:`confidence_level`.

        Returns
        -------
        Estimate
            The interval follows the one rule of the binary family (see :func:`balanced_xauc`):
            Wald on the logit scale, inside (0, 1); at 0 or 1 or with se 0 the raw Wald interval
            clipped to [0, 1]. se, interval and p-value are NaN with a single positive or negative.

        Raises
        ------
        TypeError, ValueError
            If ``null`` is not a finite number or ``confidence_level`` is not in (0, 1).
        """
        null = check_scalar(null, "null")
        level = check_confidence_level(self.confidence_level if confidence_level is None else confidence_level)
        everyone = np.ones(len(self.groups), dtype=bool)
        value, variance = _pooled_parts(self, everyone, everyone)
        se = math.sqrt(max(variance, 0.0)) if np.isfinite(variance) else math.nan
        low, high = cell_wald_interval(np.array([value]), np.array([se]), level)
        p_value = float(wald_p_value(value, se, float(null))[0])
        return Estimate(value, se, ConfidenceInterval(float(low[0]), float(high[0])), p_value, float(null), level)

    @property
    def counts(self) -> pd.DataFrame:
        """Tidy counts, one row per ordered group pair (a, b).

        Columns: a, b, positives (n_1^a), negatives (n_0^b), pairs, concordant, discordant,
        tied_score, xauc.
        """
        c = self.pair_counts
        g = len(self.groups)
        a, b = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
        labels = np.array(self.groups, dtype=object)
        positives = np.array([self.group_sizes[k]["positives"] for k in self.groups])
        negatives = np.array([self.group_sizes[k]["negatives"] for k in self.groups])
        return pd.DataFrame(
            {
                "a": labels[a.ravel()],
                "b": labels[b.ravel()],
                "positives": positives[a.ravel()],
                "negatives": negatives[b.ravel()],
                "pairs": c.comparable.ravel(),
                "concordant": c.concordant.ravel(),
                "discordant": c.discordant.ravel(),
                "tied_score": c.tied_risk.ravel(),
                "xauc": self.values.ravel(),
            }
        )

    def to_dict(self) -> dict:
        """JSON-safe dictionary of the settings, the cells, the balanced xAUCs and the AUC (with its
        DeLong se and interval, :meth:`overall_estimate`)."""
        balanced = balanced_xauc(self).reset_index()
        pooled = self.overall_estimate()
        return json_safe(
            {
                "metric": "xauc",
                "positive": str(self.positive),
                "tied_tol": self.tied_tol,
                "n_samples": self.n_samples,
                "groups": [str(g) for g in self.groups],
                "auc": self.overall,
                "auc_se": pooled.se,
                "auc_ci_low": pooled.confidence_interval.low,
                "auc_ci_high": pooled.confidence_interval.high,
                "confidence_level": self.confidence_level,
                "ci_method": self.ci_method,
                "cells": [
                    {k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
                    for row in self.to_frame().to_dict(orient="records")
                ],
                "balanced": [
                    {k: (str(v) if k == "group" else v) for k, v in row.items()}
                    for row in balanced.to_dict(orient="records")
                ],
            }
        )

    def __repr__(self) -> str:
        cells = ", ".join(
            f"({a!r}, {b!r}): {v:.4f}" for (a, b), v in zip(
                [(a, b) for a in self.groups for b in self.groups], self.values.ravel()
            )
        )
        return (
            f"XAUCResult(groups={self.groups!r}, positive={self.positive!r}, n_samples={self.n_samples}, "
            f"auc={self.overall:.4f}, xauc={{{cells}}})"
        )


# -- estimation ---------------------------------------------------------------------------------
def _placements(rows: _BinaryRows, sizes: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
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


def _cov(x: np.ndarray) -> np.ndarray:
    """Sample covariance (ddof=1) of the columns of x, shape (k, k); NaN with fewer than 2 rows."""
    k = x.shape[1]
    if x.shape[0] < 2:
        return np.full((k, k), np.nan)
    centred = x - x.mean(axis=0)
    return centred.T @ centred / (x.shape[0] - 1)


def _delong_covariance(rows: _BinaryRows, n_groups: int, sizes) -> np.ndarray:
    """DeLong covariance of all G*G cells (DeLong, DeLong & Clarke-Pearson 1988; Sun & Xu 2014).

    Cell (a, b) is a two-sample U-statistic over the positives of a and the negatives of b. Cells
    sharing the positives of a covary through V10 (cov_{P_a}(V10_ab, V10_ad) / n_1^a); cells
    sharing the negatives of b through V01 (cov_{N_b}(V01_ab, V01_cb) / n_0^b). Cells with
    disjoint samples, such as xAUC(a, b) and xAUC(b, a) for a != b, have covariance 0.
    """
    g = n_groups
    require_memory(8.0 * g**4, f"the DeLong covariance of the {g * g} xAUC cells ({g * g} x {g * g})", ("groups",))
    v10, v01 = _placements(rows, sizes)
    cov = np.zeros((g, g, g, g))  # [a, b, c, d] = Cov(theta_ab, theta_cd)
    for a in range(g):
        members = rows.is_positive & (rows.codes == a)
        if members.any():
            cov[a, :, a, :] += _cov(v10[members]) / members.sum()
        else:
            cov[a, :, a, :] = np.nan
    for b in range(g):
        members = ~rows.is_positive & (rows.codes == b)
        if members.any():
            cov[:, b, :, b] += _cov(v01[members]) / members.sum()
        else:
            cov[:, b, :, b] = np.nan
    return cov.reshape(g * g, g * g)


def xauc(
    y: Any,
    group: Any,
    score: Any,
    *,
    data: pd.DataFrame | None = None,
    positive: Any = 1,
    groups: Sequence | None = None,
    tied_tol: float = 1e-8,
    confidence_level: float = 0.95,
) -> XAUCResult:
    """Cross-group AUC: the full G x G xAUC matrix with DeLong standard errors.

    xAUC(a, b) = P[R_1^a > R_0^b], the probability that a positive of group ``a`` is ranked above
    a negative of group ``b`` (Kallus & Zhou 2019, Definition 2), estimated by the two-sample
    U-statistic (1 / (n_1^a n_0^b)) sum_i sum_j (1[r_i > r_j] + 1/2 1[tied]). The diagonal holds
    the within-group AUCs. Computed by the xCI pair-count kernel on the encoding positive = event
    at time 0, negative = censored at time 1 (so xAUC is the naive xCI of that encoding), in
    O(G^2 n log n) time and O(G n) memory.

    Parameters
    ----------
    y : array-like of shape (n_samples,) or column name
        Binary outcome with exactly two labels.
    group : array-like of shape (n_samples,), column name, or list of column names
        Sensitive-attribute labels; several columns are combined into labels "a|b".
    score : array-like of shape (n_samples,) or column name
        Risk score, float; a higher score should mean the positive class.
    data : pandas.DataFrame, optional
        Table in which string arguments are column names. Rows are matched by position;
        pandas inputs (and ``data``) whose indexes are not identical (same labels, same
        order) are refused with a ValueError, never aligned.
    positive : hashable, default=1
        Label of the positive class (Y = 1 in the paper).
    groups : sequence, optional
        Labels to analyse, in matrix order; rows of other groups are excluded (their number is
        warned with :class:`survfair.ExcludedRowsWarning`), as in :func:`survfair.xci`.
    tied_tol : float, default=1e-8
        Scores with |r_i - r_j| <= tied_tol are tied and count 1/2 (as in sklearn's ROC AUC).
    confidence_level : float, default=0.95
        Level of the intervals: Wald on the logit scale from the DeLong variance (see Notes).

    Returns
    -------
    XAUCResult
        ``.matrix`` (rows a = positive's group, columns b = negative's group), ``.se``,
        ``.confidence_interval()``, ``.covariance`` (all cells jointly), ``.counts``, ``.overall``
        and ``.overall_estimate()`` (the population AUC with its DeLong se and interval).

    Raises
    ------
    TypeError
        For arguments of the wrong type (non-numeric score, ``data`` not a DataFrame, ...).
    ValueError
        For mismatched lengths, NaN/inf scores, missing labels, ``y`` without exactly two
        classes, ``positive`` not in ``y``, negative ``tied_tol``, ``confidence_level``
        outside (0, 1).

    Warns
    -----
    UndefinedXAUCWarning
        For cells without a pair (NaN) and for DeLong variances that need at least two
        positives and two negatives in the groups involved.
    UserWarning
        When the pooled AUC is below 0.5: the score may be oriented against ``positive`` (a
        probability of the other class, or a score where lower means the positive class), and a
        Brier score (:func:`group_metrics`) needs the score to be P(y == positive).

    Notes
    -----
    The DeLong covariance of cells (a, b) and (c, d) is
    1[a = c] cov_{P_a}(V10_ab, V10_cd) / n_1^a + 1[b = d] cov_{N_b}(V01_ab, V01_cd) / n_0^b with
    the placement values V10, V01 from the kernel (sample covariances with ddof=1), so intervals
    of any contrast of cells (e.g. :func:`survfair.delta_between`, ΔxAUC) use the right covariance.

    Interval rule, the same for every probability-scale estimate of the binary family (cells,
    within-group and pooled AUC, balanced and cross-group xAUCs): Wald on the logit scale from
    the DeLong standard error, so the limits stay inside (0, 1); an estimate at 0 or 1, or with
    standard error 0, gets the raw Wald interval clipped to [0, 1] (a cell at 1 with se 0 gets
    [1, 1]). Differences of cells (ΔxAUC, :func:`survfair.contrast`) keep the raw-scale Wald
    interval.

    Outcome coding. Which label is ``positive`` is part of the question: swapping the labels
    and negating the score gives the transposed matrix exactly, xAUC_{positive=0, -s}(a, b) =
    xAUC_{positive=1, s}(b, a) (ties count 1/2 either way; the DeLong standard errors are
    transposed too), and the balanced xAUCs swap, xAUC^1 <-> xAUC^0 per group; the pooled and
    within-group AUCs are unchanged. Swapping the labels without negating the score gives
    1 - xAUC_{positive=1, s}(b, a) (and an AUC below 0.5, which is warned).

    References
    ----------
    Kallus, N. & Zhou, A. (2019). The Fairness of Risk Scores Beyond Classification: Bipartite
    Ranking and the xAUC Metric. NeurIPS 32. Definitions 1-2, Section 4.

    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    Biometrics 44(3), 837-845.

    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves. IEEE Signal Processing Letters
    21(11), 1389-1393.

    Examples
    --------
    >>> import survfair
    >>> y = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> score = [0.9, 0.8, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1]
    >>> res = survfair.xauc(y, group, score)
    >>> float(res.matrix.loc["a", "b"]), float(res.matrix.loc["b", "a"]), float(res.matrix.loc["b", "b"])
    (1.0, 1.0, 0.5)

    The other label as positive, with the score negated, transposes the matrix:

    >>> score = [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1]
    >>> res = survfair.xauc(y, group, score)
    >>> flipped = survfair.xauc(y, group, [-s for s in score], positive=0)
    >>> float(res.matrix.loc["a", "b"]), float(flipped.matrix.loc["b", "a"])
    (0.75, 0.75)
    >>> float(res.matrix.loc["b", "a"]), float(flipped.matrix.loc["a", "b"])
    (1.0, 1.0)
    """
    tied_tol = check_tied_tol(tied_tol)
    level = check_confidence_level(confidence_level)
    sample, n_excluded = check_binary_inputs(y, group, score, data=data, positive=positive, groups=groups)
    warn_excluded_rows(n_excluded, stacklevel=2)
    result = xauc_from_sample(sample, positive=positive, tied_tol=tied_tol, confidence_level=level, stacklevel=3)
    warn_orientation(result, stacklevel=2)
    return result


def warn_orientation(result: XAUCResult, *, stacklevel: int = 2) -> None:
    """Warn (UserWarning) when the pooled AUC is below 0.5: the score may rank the wrong class up.

    ``stacklevel`` as for :func:`warnings.warn` called by the caller of this helper.
    """
    if result.overall < 0.5:
        warnings.warn(
            f"the pooled AUC is {result.overall:.3f} < 0.5: the score ranks negatives above positives more often "
            f"than not, so it may be oriented against positive={result.positive!r} (a higher score must mean "
            f"y == {result.positive!r} is more likely; give the other label as positive or negate the score). "
            f"A Brier score needs the score to be P(y == {result.positive!r}).",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


def xauc_from_sample(
    sample: SurvivalSample, *, positive: Any, tied_tol: float, confidence_level: float, stacklevel: int = 2
) -> XAUCResult:
    """xAUC of a validated binary sample (``event`` = positive, time 0 / 1)."""
    g = sample.n_groups
    counts, _, in_time_order = count_pairs_and_contributions(
        sample.time, sample.event, sample.group_codes, sample.risk, g, tied_tol=tied_tol
    )
    parts: IndividualContributions = in_time_order.in_input_order()
    n_pos = np.bincount(sample.group_codes[sample.event], minlength=g).astype(float)
    n_neg = np.bincount(sample.group_codes[~sample.event], minlength=g).astype(float)
    rows = _BinaryRows(
        index=sample.index,
        codes=readonly(sample.group_codes),
        is_positive=readonly(sample.event),
        score=readonly(sample.risk),
        earlier_numerator=readonly(parts.earlier_numerator),
        later_numerator=readonly(parts.later_numerator),
    )
    empty = np.argwhere(counts.denominator == 0)
    if empty.size:
        cells = listed(f"({sample.groups[a]!r}, {sample.groups[b]!r})" for a, b in empty)
        warnings.warn(
            f"xAUC is undefined (NaN) for cells without a (positive, negative) pair: {cells}.",
            UndefinedXAUCWarning,
            stacklevel=stacklevel,
        )
    few = [sample.groups[k] for k in range(g) if n_pos[k] == 1 or n_neg[k] == 1]
    if few:
        warnings.warn(
            f"groups {listed(repr(g) for g in few)} have a single positive or a single negative, so the DeLong variance of "
            "their cells is undefined (NaN).",
            UndefinedXAUCWarning,
            stacklevel=stacklevel,
        )
    sizes = {
        label: {"n": int(n_pos[k] + n_neg[k]), "positives": int(n_pos[k]), "negatives": int(n_neg[k])}
        for k, label in enumerate(sample.groups)
    }
    return XAUCResult(
        groups=sample.groups,
        positive=positive,
        tied_tol=tied_tol,
        n_samples=sample.n_samples,
        pair_counts=counts,
        covariance=_delong_covariance(rows, g, (n_pos, n_neg)),
        group_sizes=sizes,
        confidence_level=confidence_level,
        rows=rows,
    )


# -- summaries ----------------------------------------------------------------------------------
def _code(result: XAUCResult, label: Any) -> int:
    try:
        return result.groups.index(label)
    except ValueError:
        raise ValueError(f"group {label!r} is not in the result (groups: {list(result.groups)}).") from None


def _wald(value: float, se: float, null: float, level: float) -> Estimate:
    low, high = wald_interval(value, se, level)
    interval = ConfidenceInterval(float(low[0]), float(high[0]))
    return Estimate(float(value), float(se), interval, float(wald_p_value(value, se, null)[0]), null, level)


def _balanced_parts(result: XAUCResult):
    """Balanced xAUC values, DeLong variances and same-type covariances (each G or G x G)."""
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
    cov_neg = _cov(w_a) / n  # shared negatives between xAUC^1(a), xAUC^1(c)
    cov_pos = _cov(v10_b) / m  # shared positives between xAUC^0(b), xAUC^0(d)
    for k in range(g):
        own_pos = pos & (codes == k)
        own_neg = ~pos & (codes == k)
        if n_pos[k] >= 2:
            var1[k] = _cov(v10_all[own_pos][:, None])[0, 0] / n_pos[k] + cov_neg[k, k]
        if n_neg[k] >= 2:
            var0[k] = _cov(w_all[own_neg][:, None])[0, 0] / n_neg[k] + cov_pos[k, k]
    cov1 = cov_neg.copy()
    cov0 = cov_pos.copy()
    np.fill_diagonal(cov1, var1)
    np.fill_diagonal(cov0, var0)
    cov1[np.isnan(value1), :] = np.nan
    cov1[:, np.isnan(value1)] = np.nan
    cov0[np.isnan(value0), :] = np.nan
    cov0[:, np.isnan(value0)] = np.nan
    return {1: (value1, cov1), 0: (value0, cov0)}


def _pooled_parts(result: XAUCResult, positives: np.ndarray, negatives: np.ndarray) -> tuple[float, float]:
    """Value and DeLong variance of P[R_1 > R_0] over pooled groups.

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
    v10 = rows.earlier_numerator[rows.is_positive & positives[rows.codes]][:, negatives].sum(axis=1) / n
    v01 = rows.later_numerator[~rows.is_positive & negatives[rows.codes]][:, positives].sum(axis=1) / m
    return value, float(_cov(v10[:, None])[0, 0] / m + _cov(v01[:, None])[0, 0] / n)


def balanced_xauc(result: XAUCResult, confidence_level: float | None = None) -> pd.DataFrame:
    """Balanced xAUCs per group (Kallus & Zhou 2019, Definition 3) with DeLong intervals.

    xAUC^1(a) = P[R_1^a > R_0]: positives of group a against all negatives;
    xAUC^0(a) = P[R_1 > R_0^a]: all positives against negatives of group a.
    Each is a two-sample U-statistic; its DeLong variance treats the pooled sample (all negatives,
    respectively all positives) as one sample.

    Parameters
    ----------
    result : XAUCResult
    confidence_level : float, optional
        Defaults to ``result.confidence_level``.

    Returns
    -------
    DataFrame indexed by group with columns positives, negatives, xauc1, xauc1_se, xauc1_low,
    xauc1_high, xauc0, xauc0_se, xauc0_low, xauc0_high (NaN where a group has no positive /
    negative or fewer than two for the variance).

    Notes
    -----
    Interval rule (the same for every probability-scale estimate of the binary family: the
    cells of :func:`xauc`, the balanced and cross-group xAUCs, the AUCs): Wald on the logit
    scale from the DeLong standard error, so the limits stay inside (0, 1); an estimate at 0 or
    1, or with standard error 0, gets the raw Wald interval clipped to [0, 1]. Differences
    (:func:`delta_balanced_xauc`, :func:`survfair.delta_between`) keep the raw-scale Wald interval.

    Raises
    ------
    ValueError
        If ``confidence_level`` is not in (0, 1).
    """
    level = check_confidence_level(result.confidence_level if confidence_level is None else confidence_level)
    parts = _balanced_parts(result)
    frame = pd.DataFrame(index=_group_index(result.groups))
    frame["positives"] = [result.group_sizes[k]["positives"] for k in result.groups]
    frame["negatives"] = [result.group_sizes[k]["negatives"] for k in result.groups]
    for outcome in (1, 0):
        value, cov = parts[outcome]
        se = np.sqrt(np.clip(np.diag(cov), 0, None))
        _add_estimate(frame, f"xauc{outcome}", value, se, level)
    return frame


def _add_estimate(frame: pd.DataFrame, name: str, value: np.ndarray, se: np.ndarray, level: float) -> None:
    """Columns ``name``, ``name_se``, ``name_low``, ``name_high`` of a probability-scale estimate.

    The one interval rule of the binary family: :func:`survfair._results.cell_wald_interval`,
    Wald on the logit scale inside (0, 1), the raw Wald interval clipped to [0, 1] at 0 or 1 or
    with se 0 -- the rule of the matrix intervals (``XAUCResult.confidence_interval``).
    """
    low, high = cell_wald_interval(value, se, level)
    frame[name] = value
    frame[f"{name}_se"] = se
    frame[f"{name}_low"] = low
    frame[f"{name}_high"] = high


def delta_balanced_xauc(result: XAUCResult, a: Any, b: Any, *, outcome: int = 1) -> Estimate:
    """Balanced xAUC disparity xAUC^y(a) - xAUC^y(b) (Kallus & Zhou 2019, Section 4, Definition 3).

    ``outcome=1`` compares the positives of the two groups (against all negatives), ``outcome=0``
    the negatives (against all positives). The DeLong covariance of the two terms comes from the
    shared pooled sample.

    Parameters
    ----------
    result : XAUCResult
    a, b : hashable
        Group labels of the result.
    outcome : {1, 0}, default=1

    Returns
    -------
    Estimate
        Value, DeLong standard error, Wald interval on the raw scale (a difference; the balanced
        xAUCs themselves get logit-Wald intervals, see :func:`balanced_xauc`) and p-value of
        H0: no disparity.

    Raises
    ------
    ValueError
        If ``outcome`` is not 0 or 1, or ``a``/``b`` is not a group of the result.
    """
    if outcome not in (0, 1) or isinstance(outcome, bool):
        raise ValueError(f"outcome must be 1 (positives) or 0 (negatives), got {outcome!r}.")
    i, j = _code(result, a), _code(result, b)
    value, cov = _balanced_parts(result)[outcome]
    variance = cov[i, i] + cov[j, j] - 2 * cov[i, j] if i != j else 0.0
    return _wald(value[i] - value[j], math.sqrt(max(variance, 0.0)) if np.isfinite(variance) else math.nan,
                 0.0, result.confidence_level)


def auc_decomposition(result: XAUCResult) -> pd.DataFrame:
    """Proposition 1 of Kallus & Zhou (2019): the population AUC as weighted xAUCs.

    AUC = sum_b P[A=b|Y=0] sum_a P[A=a|Y=1] xAUC(a, b)
        = sum_a P[A=a|Y=1] xAUC^1(a)
        = sum_b P[A=b|Y=0] xAUC^0(b),
    with the empirical class-conditional group shares as weights (the identity then holds exactly
    for the estimates).

    Parameters
    ----------
    result : XAUCResult

    Returns
    -------
    DataFrame with columns decomposition ("cells", "positives", "negatives"), a (positive's group,
    None when pooled), b (negative's group, None when pooled), weight, xauc, contribution
    (weight * xauc, 0 for an empty cell). Within each decomposition ``weight`` sums to 1 and
    ``contribution`` to ``result.overall``.
    """
    groups = list(result.groups)
    n_pos = np.array([result.group_sizes[k]["positives"] for k in groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in groups], dtype=float)
    share1, share0 = n_pos / n_pos.sum(), n_neg / n_neg.sum()
    parts = _balanced_parts(result)
    values = result.values
    records = []
    for i, a in enumerate(groups):
        for j, b in enumerate(groups):
            records.append(("cells", a, b, share1[i] * share0[j], values[i, j]))
    records += [("positives", a, None, share1[i], parts[1][0][i]) for i, a in enumerate(groups)]
    records += [("negatives", None, b, share0[j], parts[0][0][j]) for j, b in enumerate(groups)]
    frame = pd.DataFrame(records, columns=["decomposition", "a", "b", "weight", "xauc"])
    frame["contribution"] = np.where(frame["weight"] > 0, frame["weight"] * frame["xauc"], 0.0)
    return frame


# -- curves and diagnostics -----------------------------------------------------------------------
@dataclass(frozen=True)
class XROCCurve:
    """A cross-ROC curve (Kallus & Zhou 2019, Definition 1) or a balanced xROC curve.

    Attributes
    ----------
    kind : {"xroc", "balanced1", "balanced0"}
        ``"xroc"``: TPR of group ``a``'s positives against FPR of group ``b``'s negatives.
        ``"balanced1"``: positives of ``a`` against all negatives (``b`` is None).
        ``"balanced0"``: all positives (``a`` is None) against negatives of ``b``.
    a, b : hashable or None
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing; the first is +inf (nothing classified positive), as in sklearn's roc_curve.
    fpr : ndarray of shape (n_thresholds,)
        P[R >= threshold | negative of the curve's negative set].
    tpr : ndarray of shape (n_thresholds,)
        P[R >= threshold | positive of the curve's positive set].
    """

    kind: str
    a: Any
    b: Any
    thresholds: np.ndarray = field(repr=False)
    fpr: np.ndarray = field(repr=False)
    tpr: np.ndarray = field(repr=False)

    def __post_init__(self):
        for name in ("thresholds", "fpr", "tpr"):
            object.__setattr__(self, name, readonly(np.asarray(getattr(self, name), dtype=float)))

    @property
    def area(self) -> float:
        """Trapezoidal area under the curve; equals the corresponding (balanced) xAUC."""
        return float(np.trapezoid(self.tpr, self.fpr))

    def to_frame(self) -> pd.DataFrame:
        """Columns threshold, fpr, tpr."""
        return pd.DataFrame({"threshold": self.thresholds, "fpr": self.fpr, "tpr": self.tpr})


def _roc(positive_scores: np.ndarray, negative_scores: np.ndarray):
    from sklearn.metrics import roc_curve

    labels = np.r_[np.ones(positive_scores.size), np.zeros(negative_scores.size)]
    fpr, tpr, thresholds = roc_curve(labels, np.r_[positive_scores, negative_scores], drop_intermediate=False)
    return thresholds, fpr, tpr


def _scores(result: XAUCResult, label: Any, positive: bool, what: str) -> np.ndarray:
    rows = result.rows
    mask = rows.is_positive if positive else ~rows.is_positive
    if label is not None:
        mask = mask & (rows.codes == _code(result, label))
    if not mask.any():
        role = "positive" if positive else "negative"
        raise ValueError(f"{what}: group {label!r} has no {role}, so the curve is undefined.")
    return rows.score[mask]


def xroc(result: XAUCResult, a: Any, b: Any) -> XROCCurve:
    """Cross-ROC curve xROC^{a,b} (Kallus & Zhou 2019, Definition 1).

    Plots, over thresholds theta, the TPR of group ``a``, P[R >= theta | A=a, Y=1], against the
    FPR of group ``b``, P[R >= theta | A=b, Y=0]. Its trapezoidal area equals xAUC(a, b),
    tied scores included (the curve has one point per distinct score value, so ties give a
    diagonal segment worth 1/2).

    Parameters
    ----------
    result : XAUCResult
    a : hashable
        Group of the positives (y-axis).
    b : hashable
        Group of the negatives (x-axis).

    Returns
    -------
    XROCCurve

    Raises
    ------
    ValueError
        If a label is not a group of the result, ``a`` has no positive or ``b`` no negative.

    Notes
    -----
    Thresholds are the distinct score values (sklearn's ``roc_curve(drop_intermediate=False)``),
    so the area equals ``result.matrix.loc[a, b]`` exactly when no two different scores are
    within ``tied_tol`` of each other (always the case with the default 1e-8 unless scores are
    that close).
    """
    thresholds, fpr, tpr = _roc(_scores(result, a, True, "xroc"), _scores(result, b, False, "xroc"))
    return XROCCurve("xroc", a, b, thresholds, fpr, tpr)


def balanced_xroc(result: XAUCResult, group: Any, *, outcome: int = 1) -> XROCCurve:
    """Balanced xROC curve of one group (Kallus & Zhou 2019, Definition 3, Fig. 2).

    ``outcome=1``: TPR of the positives of ``group`` against the FPR of all negatives (area
    xAUC^1(group)); ``outcome=0``: TPR of all positives against the FPR of the negatives of
    ``group`` (area xAUC^0(group)).

    Parameters
    ----------
    result : XAUCResult
    group : hashable
    outcome : {1, 0}, default=1

    Returns
    -------
    XROCCurve

    Raises
    ------
    ValueError
        If ``outcome`` is not 0 or 1, ``group`` is not in the result or lacks the needed class.
    """
    if outcome not in (0, 1) or isinstance(outcome, bool):
        raise ValueError(f"outcome must be 1 (positives) or 0 (negatives), got {outcome!r}.")
    if outcome == 1:
        curve = _roc(_scores(result, group, True, "balanced_xroc"), _scores(result, None, False, "balanced_xroc"))
        return XROCCurve("balanced1", group, None, *curve)
    curve = _roc(_scores(result, None, True, "balanced_xroc"), _scores(result, group, False, "balanced_xroc"))
    return XROCCurve("balanced0", None, group, *curve)


def conditional_xauc(result: XAUCResult, a: Any, b: Any, *, role: str = "negative") -> pd.Series:
    """Conditional xAUC per individual (Kallus & Zhou 2019, Section 6, "Diagnostics").

    ``role="negative"``: for every negative of group ``b``, the fraction of positives of group
    ``a`` ranked above it, P[R_1^a > r_j] (ties 1/2). ``role="positive"``: for every positive of
    group ``a``, the fraction of negatives of group ``b`` ranked below it, P[r_i > R_0^b]. Either
    way the mean over the individuals in the role equals xAUC(a, b). These are the DeLong
    placement values.

    Parameters
    ----------
    result : XAUCResult
    a : hashable
        Group of the positives.
    b : hashable
        Group of the negatives.
    role : {"negative", "positive"}, default="negative"

    Returns
    -------
    pandas.Series of float, aligned to the analysed input rows (their index), NaN for rows not
    in the role (other groups or the other class), named ``"conditional_xauc"``.

    Raises
    ------
    ValueError
        If ``role`` is unknown or ``a``/``b`` is not a group of the result.
    """
    role = check_option(role, "role", ("negative", "positive"))
    i, j = _code(result, a), _code(result, b)
    rows = result.rows
    n_pos = np.array([result.group_sizes[k]["positives"] for k in result.groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in result.groups], dtype=float)
    v10, v01 = _placements(rows, (n_pos, n_neg))
    if role == "negative":
        values = np.where(~rows.is_positive & (rows.codes == j), v01[:, i], np.nan)
    else:
        values = np.where(rows.is_positive & (rows.codes == i), v10[:, j], np.nan)
    return pd.Series(values, index=rows.index.copy(), name="conditional_xauc")


def group_metrics(result: XAUCResult, *, confidence_level: float | None = None) -> pd.DataFrame:
    """Per-group metrics of the paper's Table 1 (values) and Table 2 (standard errors).

    Table 1 of Kallus & Zhou (2019) reports per group ``a`` the AUC, the Brier score, the
    cross-group xAUC (for group a of a pair (a, b): xAUC(a, b); for b: xAUC(b, a)) and the
    balanced xAUC^1(a), xAUC^0(a). With more than two groups the "other" group is the union of
    all groups but ``a``.

    Parameters
    ----------
    result : XAUCResult
    confidence_level : float, optional
        Level of the ``*_low`` / ``*_high`` columns; defaults to ``result.confidence_level``.

    Returns
    -------
    pandas.DataFrame
        Indexed by group. Columns n, positives, negatives; auc = AUC^a = xAUC(a, a) (the
        diagonal of ``result.matrix``); brier, brier_se: the Brier score
        (1/n_a) sum_i (r_i - y_i)^2 with y_i = 1 for positives (Brier 1950), only defined when
        the scores are probabilities in [0, 1] (otherwise NaN, with a warning), and the standard
        deviation of the squared errors over sqrt(n_a); xauc_vs_others =
        P[R_1^a > R_0^{A != a}], the positives of a against the negatives of every other group
        (the table's "XAUC" row; with two groups xAUC(a, b) = ``result.matrix.loc[a, b]``);
        xauc_others_vs = P[R_1^{A != a} > R_0^a], the positives of every other group against the
        negatives of a (the reverse; with two groups xAUC(b, a) = ``result.matrix.loc[b, a]``);
        xauc1 = xAUC^1(a) = P[R_1^a > R_0] and xauc0 = xAUC^0(a) = P[R_1 > R_0^a]
        (Definition 3, as in :func:`balanced_xauc`). For each of auc, xauc_vs_others,
        xauc_others_vs, xauc1 and xauc0 also the DeLong standard error ``*_se`` and the interval
        ``*_low``, ``*_high``. NaN where a value has no pair (e.g. the cross-group columns with a
        single group) or a variance needs two positives and two negatives.

    Warns
    -----
    UserWarning
        When scores lie outside [0, 1], so the Brier score is NaN; when the pooled AUC is below
        0.5, so the score may be oriented against ``result.positive`` and the Brier score,
        which needs P(y == positive), may be computed against the wrong class.

    Notes
    -----
    Every interval here follows the one rule of the binary family (see :func:`balanced_xauc`):
    Wald on the logit scale from the DeLong standard error, inside (0, 1); at 0 or 1, or with
    se 0, the raw Wald interval clipped to [0, 1]. The AUC and, with two groups, the
    cross-group columns therefore equal the matching cells of ``result.confidence_interval()``.
    Each cross-group value is a two-sample U-statistic over pooled groups; its DeLong variance
    treats the pooled sample as one sample.

    References
    ----------
    Kallus, N. & Zhou, A. (2019), Section 5, Table 1 and Table 2 (Appendix C).

    Examples
    --------
    >>> import survfair
    >>> y = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> score = [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1]
    >>> table = survfair.group_metrics(survfair.xauc(y, group, score))
    >>> table[["auc", "xauc_vs_others", "xauc_others_vs", "xauc1", "xauc0"]]  # doctest: +NORMALIZE_WHITESPACE
           auc  xauc_vs_others  xauc_others_vs  xauc1  xauc0
    group
    a      1.0            0.75            1.00  0.875  1.000
    b      0.5            1.00            0.75  0.750  0.625
    """
    level = check_confidence_level(result.confidence_level if confidence_level is None else confidence_level)
    rows = result.rows
    g = len(result.groups)
    balanced = balanced_xauc(result, level)
    frame = pd.DataFrame(index=_group_index(result.groups))
    frame["n"] = [result.group_sizes[k]["n"] for k in result.groups]
    frame["positives"] = balanced["positives"]
    frame["negatives"] = balanced["negatives"]
    _add_estimate(frame, "auc", np.diag(result.values), np.diag(result.se.to_numpy()), level)
    probabilities = bool(np.all((rows.score >= 0) & (rows.score <= 1)))
    if not probabilities:
        warnings.warn(
            "scores are not probabilities in [0, 1]; the Brier score is undefined and reported as NaN.",
            UserWarning,
            stacklevel=2,
        )
    elif result.overall < 0.5:
        warnings.warn(
            f"the pooled AUC is {result.overall:.3f} < 0.5, so the score may be oriented against "
            f"positive={result.positive!r}: the Brier score compares it with 1[y == {result.positive!r}] and needs "
            f"P(y == {result.positive!r}), not the probability of the other class.",
            UserWarning,
            stacklevel=2,
        )
    brier, brier_se = [], []
    squared = (rows.score - rows.is_positive.astype(float)) ** 2
    for k in range(g):
        errors = squared[rows.codes == k]
        if not probabilities or errors.size == 0:
            brier.append(math.nan)
            brier_se.append(math.nan)
            continue
        brier.append(float(errors.mean()))
        brier_se.append(float(errors.std(ddof=1) / math.sqrt(errors.size)) if errors.size > 1 else math.nan)
    frame["brier"] = brier
    frame["brier_se"] = brier_se
    for name, own_positives in (("xauc_vs_others", True), ("xauc_others_vs", False)):
        values, variances = np.full(g, np.nan), np.full(g, np.nan)
        for k in range(g):
            own = np.arange(g) == k
            sides = (own, ~own) if own_positives else (~own, own)
            values[k], variances[k] = _pooled_parts(result, *sides)
        _add_estimate(frame, name, values, np.sqrt(np.clip(variances, 0, None)), level)
    for outcome in (1, 0):
        for suffix in ("", "_se", "_low", "_high"):
            frame[f"xauc{outcome}{suffix}"] = balanced[f"xauc{outcome}{suffix}"]
    return frame
