"""Summaries of an xAUC matrix beyond the shared ones: balanced xAUC and its disparity, the AUC
decomposition (Kallus & Zhou 2019, Proposition 1) and the per-group Table 1 metrics."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .._core.intervals import ConfidenceInterval, bounded_wald_interval, wald_p_value
from .._core.options import CONFIDENCE_LEVEL, OptionTable, check_confidence_level, optional
from .._xci.summaries import Estimate
from .delong import balanced_parts, pooled_parts
from .xauc import OUTCOME, XAUCResult, add_estimate, balanced_xauc, group_code, group_index

__all__ = ["balanced_xauc", "delta_balanced_xauc", "auc_decomposition", "group_metrics"]


def _wald(value: float, se: float, null: float, level: float) -> Estimate:
    """A difference of two probabilities: raw-scale Wald limits clipped to [-1, 1], as every Δ of
    survfair (:func:`survfair._core.intervals.bounded_wald_interval`)."""
    low, high = bounded_wald_interval(value, se, level, -1.0, 1.0)
    interval = ConfidenceInterval(float(low[0]), float(high[0]))
    return Estimate(
        float(value), float(se), interval, float(wald_p_value(value, se, null)[0]), null, level
    )


#: The scalar options of :func:`delta_balanced_xauc` (``a`` and ``b`` are group labels).
_DELTA_OPTIONS = OptionTable("delta_balanced_xauc", outcome=OUTCOME)


def delta_balanced_xauc(result: XAUCResult, a: Any, b: Any, *, outcome: int = 1) -> Estimate:
    """Balanced xAUC disparity xAUC^y(a) - xAUC^y(b) (Kallus & Zhou 2019, Section 4, Definition 3).

    ``outcome=1`` compares the positives of the two groups (against all negatives), ``outcome=0``
    the negatives (against all positives). The DeLong covariance of the two terms comes from the
    shared pooled sample.

    Parameters
    ----------
    result : XAUCResult
        A result of :func:`survfair.xauc`; its ``confidence_level`` sets the interval's level.
    a, b : hashable
        Group labels of the result.
    outcome : {1, 0}, default=1
        1: ΔxAUC^1 = xAUC^1(a) - xAUC^1(b), the positives' side; 0: ΔxAUC^0 = xAUC^0(a) -
        xAUC^0(b), the negatives' side.

    Returns
    -------
    Estimate
        Value, DeLong standard error, Wald interval on the raw scale (a difference; the balanced
        xAUCs themselves get logit-Wald intervals, see :func:`balanced_xauc`) and two-sided
        Wald p-value of H0: no disparity (``null`` 0). NaN value where a group lacks the class;
        NaN se, interval and p-value where a DeLong variance needs two or more members of the
        class. With ``a == b``: 0 with se 0 and a NaN p-value.

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``outcome`` is not 0 or 1, or ``a``/``b`` is not a group of the result.

    See Also
    --------
    balanced_xauc : the balanced xAUCs of every group, with intervals.
    balanced_xroc : the curves whose areas are compared.
    delta_between : ΔxAUC = xAUC(a, b) - xAUC(b, a), the cross-group disparity.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> est = survfair.delta_balanced_xauc(res, "a", "b")  # 0.875 - 0.75
    >>> round(est.value, 4), round(est.se, 4), round(est.p_value, 4)
    (0.125, 0.1768, 0.4795)
    >>> round(survfair.delta_balanced_xauc(res, "a", "b", outcome=0).value, 4)  # 1.0 - 0.625
    0.375
    """
    _DELTA_OPTIONS.check(locals())
    i, j = group_code(result, a, "a"), group_code(result, b, "b")
    value, cov = balanced_parts(result)[outcome]
    variance = cov[i, i] + cov[j, j] - 2 * cov[i, j] if i != j else 0.0
    return _wald(
        value[i] - value[j],
        math.sqrt(max(variance, 0.0)) if np.isfinite(variance) else math.nan,
        0.0,
        result.confidence_level,
    )


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
        A result of :func:`survfair.xauc` (only point estimates are used).

    Returns
    -------
    DataFrame
        G^2 + 2 G rows: the G^2 cells (row-major), then the G balanced xAUC^1, then the G
        balanced xAUC^0. Columns decomposition ("cells", "positives", "negatives"), a
        (positive's group, None when pooled), b (negative's group, None when pooled), weight
        (float: P[A=a|Y=1] P[A=b|Y=0], P[A=a|Y=1] or P[A=b|Y=0]), xauc, contribution
        (weight * xauc, 0 where the weight is 0). Within each decomposition ``weight`` sums to 1
        and ``contribution`` to ``result.overall``.

    See Also
    --------
    decompose : the same identity for xCI (Wang et al. 2026, Proposition 4.1).
    balanced_xauc : the balanced xAUCs with their intervals.
    overall_c : the pooled AUC with its DeLong interval.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> table = survfair.auc_decomposition(res)
    >>> print(table.groupby("decomposition", sort=False)["contribution"].sum().to_string())
    decomposition
    cells        0.8125
    positives    0.8125
    negatives    0.8125
    >>> res.overall
    0.8125
    """
    groups = list(result.groups)
    n_pos = np.array([result.group_sizes[k]["positives"] for k in groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in groups], dtype=float)
    share1, share0 = n_pos / n_pos.sum(), n_neg / n_neg.sum()
    parts = balanced_parts(result)
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


#: The scalar options of :func:`group_metrics`.
_METRICS_OPTIONS = OptionTable(
    "group_metrics",
    confidence_level=optional(CONFIDENCE_LEVEL),  # None: the result's level
)


def group_metrics(result: XAUCResult, *, confidence_level: float | None = None) -> pd.DataFrame:
    """Per-group metrics of the paper's Table 1 (values) and Table 2 (standard errors).

    Table 1 of Kallus & Zhou (2019) reports per group ``a`` the AUC, the Brier score, the
    cross-group xAUC (for group a of a pair (a, b): xAUC(a, b); for b: xAUC(b, a)) and the
    balanced xAUC^1(a), xAUC^0(a). With more than two groups the "other" group is the union of
    all groups but ``a``.

    Parameters
    ----------
    result : XAUCResult
        A result of :func:`survfair.xauc`.
    confidence_level : float, optional
        Level of the ``*_ci_low`` / ``*_ci_high`` columns, in (0, 1); defaults to
        ``result.confidence_level``.

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
        ``*_ci_low``, ``*_ci_high``. NaN where a value has no pair (e.g. the cross-group columns
        with a single group) or a variance needs two positives and two negatives.

    Raises
    ------
    InvalidParameterError
        If ``confidence_level`` is not a number in (0, 1).

    Warns
    -----
    UserWarning
        When scores lie outside [0, 1], so the Brier score is NaN; when the pooled AUC is below
        0.5, so the score may be oriented against ``result.positive`` and the Brier score,
        which needs P(y == positive), may be computed against the wrong class.

    See Also
    --------
    balanced_xauc : the xauc1 / xauc0 columns alone.
    xauc : the full G x G matrix, whose diagonal is the auc column.
    auc_decomposition : how the pooled AUC splits into these numbers.

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
    >>> table[["auc", "xauc_vs_others", "xauc_others_vs",
    ...        "xauc1", "xauc0"]]  # doctest: +NORMALIZE_WHITESPACE
           auc  xauc_vs_others  xauc_others_vs  xauc1  xauc0
    group
    a      1.0            0.75            1.00  0.875  1.000
    b      0.5            1.00            0.75  0.750  0.625
    """
    level = _METRICS_OPTIONS.check(locals())["confidence_level"]
    if level is None:
        level = check_confidence_level(result.confidence_level)
    rows = result.rows
    g = len(result.groups)
    balanced = balanced_xauc(result, confidence_level=level)
    frame = pd.DataFrame(index=group_index(result.groups))
    frame["n"] = [result.group_sizes[k]["n"] for k in result.groups]
    frame["positives"] = balanced["positives"]
    frame["negatives"] = balanced["negatives"]
    add_estimate(frame, "auc", np.diag(result.values), np.diag(result.se.to_numpy()), level)
    probabilities = bool(np.all((rows.score >= 0) & (rows.score <= 1)))
    if not probabilities:
        warnings.warn(
            "scores are not probabilities in [0, 1]; the Brier score is undefined and reported as "
            "NaN.",
            UserWarning,
            stacklevel=2,
        )
    elif result.overall < 0.5:
        warnings.warn(
            f"the pooled AUC is {result.overall:.3f} < 0.5, so the score may be oriented against "
            f"positive={result.positive!r}: the Brier score compares it with "
            f"1[y == {result.positive!r}] and needs P(y == {result.positive!r}), not the "
            "probability of the other class.",
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
        brier_se.append(
            float(errors.std(ddof=1) / math.sqrt(errors.size)) if errors.size > 1 else math.nan
        )
    frame["brier"] = brier
    frame["brier_se"] = brier_se
    for name, own_positives in (("xauc_vs_others", True), ("xauc_others_vs", False)):
        values, variances = np.full(g, np.nan), np.full(g, np.nan)
        for k in range(g):
            own = np.arange(g) == k
            sides = (own, ~own) if own_positives else (~own, own)
            values[k], variances[k] = pooled_parts(result, *sides)
        add_estimate(frame, name, values, np.sqrt(np.clip(variances, 0, None)), level)
    for outcome in (1, 0):
        for suffix in ("", "_se", "_ci_low", "_ci_high"):
            frame[f"xauc{outcome}{suffix}"] = balanced[f"xauc{outcome}{suffix}"]
    return frame
