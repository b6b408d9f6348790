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

Everything here comes from one call of :func:`survfair._core.kernel.count_pairs_and_contributions`:
the pair counts and the per-individual contributions out of the same passes.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.display import html_of
from .._core.exceptions import InvalidParameterError, UndefinedXAUCWarning, listed
from .._core.frozen import frozen_result
from .._core.groups import label_array
from .._core.intervals import ConfidenceInterval, cell_wald_interval, wald_p_value
from .._core.kernel import (
    IndividualContributions,
    PairCounts,
    PairOptions,
    count_pairs_and_contributions,
    prepare_pairs,
)
from .._core.options import (
    CONFIDENCE_LEVEL,
    TIED_TOL,
    Option,
    OptionTable,
    check_confidence_level,
    check_scalar,
    optional,
)
from .._core.results import CellMatrixAccessors, json_safe, readonly
from .._core.validation import SurvivalSample, check_binary_inputs, warn_excluded_rows
from .._xci.summaries import Estimate
from .delong import BinaryRows, balanced_parts, delong_covariance, pooled_parts

__all__ = [
    "XAUCResult",
    "xauc",
    "warn_orientation",
    "xauc_from_sample",
    "group_code",
    "group_index",
]

ROW_NAME = "a (positive)"
COLUMN_NAME = "b (negative)"


def group_index(groups: tuple) -> pd.Index:
    return pd.Index(list(groups), name="group", tupleize_cols=False)


@frozen_result
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

    See Also
    --------
    xauc : computes it.
    balanced_xauc, delta_balanced_xauc, auc_decomposition, group_metrics : xAUC-only summaries.
    xroc, balanced_xroc, conditional_xauc : the curves and per-individual diagnostics.
    XCIResult : the censored counterpart.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> print(res.matrix)  # doctest: +NORMALIZE_WHITESPACE
    b (negative)    a     b
    a (positive)
    a             1.0  0.75
    b             1.0  0.50
    >>> round(float(res.se.loc["a", "b"]), 4), res.overall
    (0.3536, 0.8125)
    >>> pooled = res.overall_estimate()
    >>> round(pooled.se, 4), round(pooled.confidence_interval.low, 4), round(
    ...     pooled.confidence_interval.high, 4)
    (0.1976, 0.2542, 0.9822)
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
    rows: BinaryRows | None = field(repr=False, default=None)

    def __post_init__(self):
        counts = PairCounts(
            *(readonly(getattr(self.pair_counts, f)) for f in PairCounts.__dataclass_fields__)
        )
        object.__setattr__(self, "pair_counts", counts)
        object.__setattr__(self, "covariance", readonly(self.covariance))

    # -- values (``values`` and ``matrix`` come from CellMatrixAccessors) ----------------------
    @property
    def within(self) -> pd.Series:
        """Within-group AUCs AUC^a = xAUC(a, a) (the diagonal), indexed by group."""
        return pd.Series(np.diag(self.values).copy(), index=group_index(self.groups), name="auc")

    @property
    def overall(self) -> float:
        """Population AUC P[R_1 > R_0] over all (positive, negative) pairs."""
        return float(self.pair_counts.numerator.sum() / self.pair_counts.denominator.sum())

    @property
    def auc(self) -> float:
        """Alias of :attr:`overall`: the population AUC."""
        return self.overall

    def overall_estimate(
        self, *, null: float = 0.5, confidence_level: float | None = None
    ) -> Estimate:
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
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        everyone = np.ones(len(self.groups), dtype=bool)
        value, variance = pooled_parts(self, everyone, everyone)
        se = math.sqrt(max(variance, 0.0)) if np.isfinite(variance) else math.nan
        low, high = cell_wald_interval(np.array([value]), np.array([se]), level)
        p_value = float(wald_p_value(value, se, float(null))[0])
        return Estimate(
            value,
            se,
            ConfidenceInterval(float(low[0]), float(high[0])),
            p_value,
            float(null),
            level,
        )

    @property
    def counts(self) -> pd.DataFrame:
        """Tidy counts, one row per ordered group pair (a, b).

        Columns: a, b, positives (n_1^a), negatives (n_0^b), pairs, concordant, discordant,
        tied_score, xauc.
        """
        c = self.pair_counts
        g = len(self.groups)
        a, b = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
        labels = label_array(self.groups)
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
        """JSON-safe dictionary of the settings, the cells, the balanced xAUCs and the pooled AUC
        as ``overall`` (the attribute's name), with ``overall_se``, ``overall_ci_low`` and
        ``overall_ci_high`` (DeLong, :meth:`overall_estimate`)."""
        balanced = balanced_xauc(self).reset_index()
        pooled = self.overall_estimate()
        return json_safe(
            {
                "metric": "xauc",
                "positive": str(self.positive),
                "tied_tol": self.tied_tol,
                "n_samples": self.n_samples,
                "groups": [str(g) for g in self.groups],
                "overall": self.overall,
                "overall_se": pooled.se,
                "overall_ci_low": pooled.confidence_interval.low,
                "overall_ci_high": pooled.confidence_interval.high,
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

    def _repr_html_(self) -> str | None:
        """Jupyter display: the matrix with intervals, flags and the findings."""
        return html_of(self)

    def __repr__(self) -> str:
        cells = ", ".join(
            f"({a!r}, {b!r}): {v:.4f}"
            for (a, b), v in zip(
                [(a, b) for a in self.groups for b in self.groups], self.values.ravel()
            )
        )
        return (
            f"XAUCResult(groups={self.groups!r}, positive={self.positive!r}, "
            f"n_samples={self.n_samples}, auc={self.overall:.4f}, xauc={{{cells}}})"
        )


#: The scalar options of :func:`xauc` (``positive`` is a label, ``groups`` a list of them).
_OPTIONS = OptionTable("xauc", tied_tol=TIED_TOL, confidence_level=CONFIDENCE_LEVEL)


def _check_outcome(outcome: Any, name: str) -> int:
    if (
        isinstance(outcome, bool)
        or not isinstance(outcome, (int, np.integer))
        or outcome not in (0, 1)
    ):
        raise InvalidParameterError(
            f"outcome must be 1 (positives) or 0 (negatives), got {outcome!r}.", parameter=name
        )
    return outcome


#: The ``outcome=`` option of the balanced summaries: 1 (the positives) or 0 (the negatives).
OUTCOME = Option(_check_outcome, "1 (positives) or 0 (negatives)", 2)


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
    InvalidParameterError (a TypeError)
        For arguments of the wrong type (non-numeric score, ``data`` not a DataFrame,
        non-numeric ``tied_tol`` or ``confidence_level``, ...).
    InvalidParameterError (a ValueError)
        For mismatched lengths, NaN/inf scores, missing labels, ``y`` without exactly two
        classes, ``positive`` not in ``y``, labels in ``groups`` that do not occur, pandas inputs
        with differing indexes, negative ``tied_tol``, ``confidence_level`` outside (0, 1).
    MemoryLimitError
        (a ValueError) if the DeLong covariance of the G^2 cells, (G^2 x G^2), would not fit in
        memory (very many groups).

    Warns
    -----
    UndefinedXAUCWarning
        For cells without a pair (NaN) and for DeLong variances that need at least two
        positives and two negatives in the groups involved.
    UserWarning
        When the pooled AUC is below 0.5: the score may be oriented against ``positive`` (a
        probability of the other class, or a score where lower means the positive class), and a
        Brier score (:func:`group_metrics`) needs the score to be P(y == positive).
    ExcludedRowsWarning
        When ``groups`` leaves rows of other groups out (their number).

    See Also
    --------
    xci : the censored time-to-event version (xCI, Wang et al. 2026), of which xAUC is the
        uncensored special case.
    xauc_t : cross-group cumulative/dynamic AUC(t) for censored outcomes.
    compare_xci : paired comparison of two scores (xCI results).
    delta_between : ΔxAUC = xAUC(a, b) - xAUC(b, a), with its DeLong interval.
    balanced_xauc, delta_balanced_xauc : the balanced xAUCs (Definition 3) and their disparity.
    auc_decomposition : Proposition 1, the AUC as weighted xAUCs.
    group_metrics : the per-group table of the paper's Table 1.
    xroc, conditional_xauc : the curves (Definition 1) and the Section 6 diagnostics.

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
    >>> float(res.matrix.loc["a", "b"]), float(res.matrix.loc["b", "a"]), float(
    ...     res.matrix.loc["b", "b"])
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
    options = _OPTIONS.check(locals())
    tied_tol, level = options["tied_tol"], options["confidence_level"]
    sample, n_excluded = check_binary_inputs(
        y, group, score, data=data, positive=positive, groups=groups
    )
    warn_excluded_rows(n_excluded, stacklevel=2)
    result = xauc_from_sample(
        sample, positive=positive, tied_tol=tied_tol, confidence_level=level, stacklevel=3
    )
    warn_orientation(result, stacklevel=2)
    return result


def warn_orientation(result: XAUCResult, *, stacklevel: int = 2) -> None:
    """Warn (UserWarning) when the pooled AUC is below 0.5: the score may rank the wrong class up.

    ``stacklevel`` as for :func:`warnings.warn` called by the caller of this helper.
    """
    if result.overall < 0.5:
        warnings.warn(
            f"the pooled AUC is {result.overall:.3f} < 0.5: the score ranks negatives above "
            "positives more often than not, so it may be oriented against "
            f"positive={result.positive!r} (a higher score must mean y == {result.positive!r} is "
            "more likely; give the other label as positive or negate the score). A Brier score "
            f"needs the score to be P(y == {result.positive!r}).",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


def xauc_from_sample(
    sample: SurvivalSample,
    *,
    positive: Any,
    tied_tol: float,
    confidence_level: float,
    stacklevel: int = 2,
) -> XAUCResult:
    """xAUC of a validated binary sample (``event`` = positive, time 0 / 1)."""
    g = sample.n_groups
    prepared = prepare_pairs(
        sample.time, sample.event, sample.group_codes, sample.risk, g, tied_tol
    )
    counts, _, in_time_order = count_pairs_and_contributions(prepared, PairOptions())
    parts: IndividualContributions = in_time_order.in_input_order()
    n_pos = np.bincount(sample.group_codes[sample.event], minlength=g).astype(float)
    n_neg = np.bincount(sample.group_codes[~sample.event], minlength=g).astype(float)
    rows = BinaryRows(
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
            f"groups {listed(repr(g) for g in few)} have a single positive or a single negative, "
            "so the DeLong variance of their cells is undefined (NaN).",
            UndefinedXAUCWarning,
            stacklevel=stacklevel,
        )
    sizes = {
        label: {
            "n": int(n_pos[k] + n_neg[k]),
            "positives": int(n_pos[k]),
            "negatives": int(n_neg[k]),
        }
        for k, label in enumerate(sample.groups)
    }
    return XAUCResult(
        groups=sample.groups,
        positive=positive,
        tied_tol=tied_tol,
        n_samples=sample.n_samples,
        pair_counts=counts,
        covariance=delong_covariance(rows, g, (n_pos, n_neg)),
        group_sizes=sizes,
        confidence_level=confidence_level,
        rows=rows,
    )


#: The scalar options of :func:`balanced_xauc`.
_BALANCED_OPTIONS = OptionTable(
    "balanced_xauc",
    confidence_level=optional(CONFIDENCE_LEVEL),  # None: the result's level
)


def balanced_xauc(result: XAUCResult, *, confidence_level: float | None = None) -> pd.DataFrame:
    """Balanced xAUCs per group (Kallus & Zhou 2019, Definition 3) with DeLong intervals.

    xAUC^1(a) = P[R_1^a > R_0]: positives of group a against all negatives;
    xAUC^0(a) = P[R_1 > R_0^a]: all positives against negatives of group a.
    Each is a two-sample U-statistic; its DeLong variance treats the pooled sample (all negatives,
    respectively all positives) as one sample.

    Parameters
    ----------
    result : XAUCResult
        A result of :func:`survfair.xauc`.
    confidence_level : float, optional
        Level of the ``*_ci_low`` / ``*_ci_high`` columns, in (0, 1). Defaults to
        ``result.confidence_level``.

    Returns
    -------
    DataFrame
        Indexed by group (matrix order). Columns positives, negatives (int counts), xauc1,
        xauc1_se, xauc1_ci_low, xauc1_ci_high, xauc0, xauc0_se, xauc0_ci_low, xauc0_ci_high
        (floats). The values are NaN where a group has no positive (xauc1) or no negative (xauc0);
        the standard errors and limits are NaN where the DeLong variance needs two or more
        positives / negatives.

    Raises
    ------
    InvalidParameterError
        If ``confidence_level`` is not a number in (0, 1).

    See Also
    --------
    delta_balanced_xauc : the disparity xAUC^y(a) - xAUC^y(b), with its interval.
    balanced_xroc : the balanced xROC curves, whose areas these are.
    auc_decomposition : the AUC as a weighted average of the balanced xAUCs (Proposition 1).
    group_metrics : these columns next to the AUC, Brier score and cross-group xAUCs.

    Notes
    -----
    Interval rule (the same for every probability-scale estimate of the binary family: the
    cells of :func:`xauc`, the balanced and cross-group xAUCs, the AUCs): Wald on the logit
    scale from the DeLong standard error, so the limits stay inside (0, 1); an estimate at 0 or
    1, or with standard error 0, gets the raw Wald interval clipped to [0, 1]. Differences
    (:func:`delta_balanced_xauc`, :func:`survfair.delta_between`) keep the raw-scale Wald interval.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> table = survfair.balanced_xauc(res)
    >>> print(table[["positives", "negatives", "xauc1", "xauc0"]])  # doctest: +NORMALIZE_WHITESPACE
           positives  negatives  xauc1  xauc0
    group
    a              2          2  0.875  1.000
    b              2          2  0.750  0.625
    """
    level = _BALANCED_OPTIONS.check(locals())["confidence_level"]
    if level is None:
        level = check_confidence_level(result.confidence_level)
    parts = balanced_parts(result)
    frame = pd.DataFrame(index=group_index(result.groups))
    frame["positives"] = [result.group_sizes[k]["positives"] for k in result.groups]
    frame["negatives"] = [result.group_sizes[k]["negatives"] for k in result.groups]
    for outcome in (1, 0):
        value, cov = parts[outcome]
        se = np.sqrt(np.clip(np.diag(cov), 0, None))
        add_estimate(frame, f"xauc{outcome}", value, se, level)
    return frame


def add_estimate(
    frame: pd.DataFrame, name: str, value: np.ndarray, se: np.ndarray, level: float
) -> None:
    """Columns ``name``, ``name_se``, ``name_ci_low``, ``name_ci_high`` of a probability-scale
    estimate.

    The one interval rule of the binary family: :func:`survfair._core.intervals.cell_wald_interval`,
    Wald on the logit scale inside (0, 1), the raw Wald interval clipped to [0, 1] at 0 or 1 or
    with se 0 -- the rule of the matrix intervals (``XAUCResult.confidence_interval``).
    """
    low, high = cell_wald_interval(value, se, level)
    frame[name] = value
    frame[f"{name}_se"] = se
    frame[f"{name}_ci_low"] = low
    frame[f"{name}_ci_high"] = high


def group_code(result: XAUCResult, label: Any, name: str = "group") -> int:
    """The code of group ``label`` in ``result``; ``name`` is the argument that gave the label."""
    try:
        return result.groups.index(label)
    except ValueError:
        raise InvalidParameterError(
            f"group {label!r} is not in the result (groups: {list(result.groups)}).", parameter=name
        ) from None
