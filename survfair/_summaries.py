"""Fairness summaries of an xCI matrix (Wang et al. 2026, Sections 4.1-4.3).

Every summary is a linear contrast of the cells (or, for min-xCI, a selection), so its standard
error and interval follow from the cell covariance or the bootstrap replicates carried by the
result; without inference those fields are NaN. Return types never depend on the input.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._intervals import (
    ConfidenceInterval,
    bootstrap_interval,
    bootstrap_p_value,
    cell_wald_interval,
    two_sided_z,
    wald_p_value,
)
from ._results import XCIResult, contrast_interval, contrast_p_value, contrast_se, difference_inference
from ._validation import check_scalar

__all__ = [
    "Estimate",
    "MinXCI",
    "delta_within",
    "delta_between",
    "pairwise_deltas",
    "abs_delta_between",
    "min_utility",
    "nash_welfare",
    "min_xci",
    "utility",
    "concordance_imparity",
    "decompose",
    "contrast",
    "overall_c",
]


@dataclass(frozen=True)
class Estimate:
    """A scalar summary with its uncertainty.

    Attributes
    ----------
    value : float
        Point estimate.
    se : float
        Standard error (NaN when the result carries no inference).
    confidence_interval : ConfidenceInterval
        Interval at ``confidence_level`` (NaN limits without inference).
    p_value : float
        Two-sided p-value of H0: value == ``null`` (Wald; NaN without a standard error).
    null : float
        The null value tested (0 for differences, 0.5 for a single cell).
    confidence_level : float
    """

    value: float
    se: float = math.nan
    confidence_interval: ConfidenceInterval = ConfidenceInterval(math.nan, math.nan)
    p_value: float = math.nan
    null: float = 0.0
    confidence_level: float = 0.95

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True)
class MinXCI:
    """Smallest xCI cell (Section 4.2.2) and where it is.

    ``estimate`` holds the value and, when the result carries bootstrap replicates, an interval
    for the minimum itself (the minimum over cells in each replicate, so the selection of the
    minimum is accounted for); an analytic interval of a minimum is not available and is NaN.
    """

    estimate: Estimate
    a: object
    b: object

    @property
    def value(self) -> float:
        return self.estimate.value

    def __float__(self) -> float:
        return float(self.value)


def _cell(result: XCIResult, label: object) -> int:
    try:
        return result.groups.index(label)
    except ValueError:
        raise ValueError(f"group {label!r} is not in the result (groups: {list(result.groups)}).") from None


def contrast(result: XCIResult, weights: pd.DataFrame | np.ndarray, *, null: float = 0.0) -> Estimate:
    """Any linear contrast sum_ab w_ab xCI_ab, with standard error, interval and Wald p-value.

    Parameters
    ----------
    result : XCIResult
    weights : DataFrame or ndarray of shape (G, G)
        Weights aligned with ``result.matrix`` (rows a, columns b).
    null : float, default=0.0
        Value under H0 for the p-value.

    Returns
    -------
    Estimate

    Raises
    ------
    ValueError
        If ``weights`` does not have shape (G, G).
    """
    if isinstance(weights, pd.DataFrame):
        weights = weights.reindex(index=list(result.groups), columns=list(result.groups)).fillna(0).to_numpy()
    weights = np.asarray(weights, dtype=float)
    g = len(result.groups)
    if weights.shape != (g, g):
        raise ValueError(f"weights must have shape ({g}, {g}) like result.matrix, got {weights.shape}.")
    return _estimate(result, weights.reshape(1, -1), null)


def _estimate(result: XCIResult, flat_weights: np.ndarray, null: float) -> Estimate:
    values = result.values.ravel()
    used = flat_weights[0] != 0
    value = math.nan if np.isnan(values[used]).any() else float(flat_weights[0][used] @ values[used])
    se = float(contrast_se(result, flat_weights)[0])
    low, high = contrast_interval(result, flat_weights, result.confidence_level)
    p_value = float(contrast_p_value(result, flat_weights, null)[0])
    return Estimate(value, se, ConfidenceInterval(float(low[0]), float(high[0])), p_value, null, result.confidence_level)


def _pair_weights(result: XCIResult, cells: list[tuple[object, object, float]]) -> np.ndarray:
    g = len(result.groups)
    weights = np.zeros((1, g * g))
    for a, b, w in cells:
        weights[0, _cell(result, a) * g + _cell(result, b)] += w
    return weights


def delta_within(result: XCIResult, a: object, b: object) -> Estimate:
    """Within-group disparity Δwithin(a, b) = xCI_{a,a} - xCI_{b,b} (Wang et al. 2026, Section 4.2.1).

    Positive: the model ranks pairs inside group ``a`` correctly more often than pairs inside
    group ``b``. On an :class:`XAUCResult` this is AUC^a - AUC^b.

    Parameters
    ----------
    result : XCIResult or XAUCResult
    a, b : hashable
        Group labels of the result.

    Returns
    -------
    Estimate
        Value, standard error, interval (raw-scale Wald from the influence functions or the
        DeLong covariance, or bootstrap) and the two-sided p-value of H0: Δwithin = 0. NaN
        where a cell is undefined or the result carries no inference.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is not a group of the result.

    See Also
    --------
    delta_between : the cross-group disparity.
    pairwise_deltas : both disparities for every pair of groups at once.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> float(survfair.delta_within(res, "a", "b").value)  # 1.0 - 0.5
    0.5
    """
    return _estimate(result, _pair_weights(result, [(a, a, 1.0), (b, b, -1.0)]), 0.0)


def delta_between(result: XCIResult, a: object, b: object) -> Estimate:
    """Between-group disparity Δbetween(a, b) = xCI_{a,b} - xCI_{b,a} (Wang et al. 2026, Section 4.2.1).

    Positive: when a member of ``a`` has the event first, the model ranks them above the member
    of ``b`` more often than it ranks a member of ``b`` who has the event first above the member
    of ``a``. On an :class:`XAUCResult` this is ΔxAUC = xAUC(a, b) - xAUC(b, a) (Kallus & Zhou
    2019, Section 4): a positive of ``a`` is scored above a negative of ``b`` more often than the
    reverse (the two cells use disjoint samples, so their DeLong covariance is 0).

    Parameters
    ----------
    result : XCIResult or XAUCResult
    a, b : hashable
        Group labels of the result.

    Returns
    -------
    Estimate
        Value, standard error, interval (raw-scale Wald from the influence functions or the
        DeLong covariance, or bootstrap) and the two-sided p-value of H0: Δbetween = 0. NaN
        where a cell is undefined or the result carries no inference.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is not a group of the result.

    See Also
    --------
    abs_delta_between : the largest |Δbetween| over pairs, the mitigation objective.
    delta_within : the within-group disparity.
    pairwise_deltas : both disparities for every pair of groups at once.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> round(float(survfair.delta_between(res, "a", "b").value), 4)  # 0.8 - 0.6667
    0.1333
    """
    return _estimate(result, _pair_weights(result, [(a, b, 1.0), (b, a, -1.0)]), 0.0)


def pairwise_deltas(result: XCIResult) -> pd.DataFrame:
    """Δwithin and Δbetween for every pair of groups, with standard errors, intervals and p-values.

    The numbers of :func:`delta_within` and :func:`delta_between` for every pair (a, b) with a
    before b in the matrix order, computed together: with analytic inference each difference's
    standard error comes from the difference of two influence columns, so 500 groups (124,750
    pairs of 250,000 cells) take seconds, not one G^2-long contrast per pair.

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.

    Returns
    -------
    DataFrame
        Columns summary ("delta_within" or "delta_between"), a, b, value, se, ci_low, ci_high,
        p_value (two-sided, H0: 0); for each pair the delta_within row first. NaN where a cell
        is undefined or the result carries no inference. Empty for one group.

    See Also
    --------
    delta_within, delta_between : one pair as an :class:`Estimate`.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 0], list("ababab"), [6, 5, 4, 3, 2, 1],
    ...                    method="naive")
    >>> table = survfair.pairwise_deltas(res)
    >>> print(table[["summary", "a", "b", "value"]].to_string(index=False))
          summary a b  value
     delta_within a b    0.0
    delta_between a b    0.0
    """
    g = len(result.groups)
    a, b = np.triu_indices(g, k=1)
    labels = np.array(result.groups + ("",), dtype=object)[:g]
    parts = []
    for name, first, second in (("delta_within", a * g + a, b * g + b), ("delta_between", a * g + b, b * g + a)):
        values, se, low, high, p = difference_inference(result, first, second, result.confidence_level)
        parts.append(pd.DataFrame({"summary": name, "a": labels[a], "b": labels[b], "value": values, "se": se,
                                   "ci_low": low, "ci_high": high, "p_value": p}))
    if not len(a):
        return parts[0]
    # interleave so that each pair's two rows are adjacent, as in the per-pair loops before
    table = pd.concat(parts, keys=[0, 1]).swaplevel().sort_index(level=0, sort_remaining=True)
    return table.reset_index(drop=True)


def min_xci(result: XCIResult) -> MinXCI:
    """Smallest defined cell of the xCI matrix, min_{a,b} xCI_{a,b} (Section 4.2.2).

    With bootstrap replicates the interval is that of the minimum over cells in each replicate
    (not the minimum of the cells' intervals), so it accounts for which cell is the minimum
    (BCa when the result's ``bootstrap_method`` is ``"bca"``, the acceleration from the
    delete-one jackknife of the minimum; otherwise percentile). Only cells defined in the full
    data enter each replicate's minimum. The analytic (``ci="analytic"``) result has no interval
    for the minimum: a Wald interval of the selected cell ignores the selection (use the bootstrap).

    Raises
    ------
    ValueError
        If every cell is NaN.
    """
    values = result.values
    if np.isnan(values).all():
        raise ValueError("min_xci: every cell of the matrix is NaN.")
    flat = int(np.nanargmin(values))
    g = len(result.groups)
    value = float(values.flat[flat])
    interval, se = ConfidenceInterval(math.nan, math.nan), math.nan
    if result.replicates is not None:
        defined = ~np.isnan(values)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN replicates stay NaN
            minima = np.nanmin(np.where(defined[None], result.replicates, np.nan), axis=(1, 2))
            jackknife = None
            if result.bootstrap_method == "bca" and result.jackknife is not None:
                jack = result.jackknife.cells[:, defined.ravel()]
                jackknife = np.nanmin(jack, axis=1)[:, None]
            se = float(np.nanstd(minima, ddof=1))  # fewer than two defined replicates: NaN
        low, high = bootstrap_interval(np.array([value]), minima[:, None], jackknife, result.confidence_level)
        interval = ConfidenceInterval(float(low[0]), float(high[0]))
    estimate = Estimate(value, se, interval, math.nan, 0.5, result.confidence_level)
    return MinXCI(estimate, result.groups[flat // g], result.groups[flat % g])


def utility(result: XCIResult, alpha: float = 1.0, beta: float = 1.0) -> pd.DataFrame:
    """Group utilities U(a) = alpha sum_{b != a} xCI_{a,b} + beta sum_{b != a} xCI_{b,a} (Section 4.3).

    Parameters
    ----------
    result : XCIResult
    alpha, beta : float, default=1.0
        Weights of being correctly ranked ahead (alpha) and behind (beta).

    Returns
    -------
    DataFrame indexed by group with columns value, se, ci_low, ci_high.

    Raises
    ------
    TypeError, ValueError
        If ``alpha`` or ``beta`` is not a finite number.
    """
    alpha, beta = check_scalar(alpha, "alpha"), check_scalar(beta, "beta")
    weights = _utility_weights(len(result.groups), alpha, beta)
    rows = []
    for k in range(len(result.groups)):
        estimate = _estimate(result, weights[k : k + 1], 0.0)
        rows.append((estimate.value, estimate.se, *estimate.confidence_interval))
    index = pd.Index(list(result.groups), name="group", tupleize_cols=False)
    return pd.DataFrame(rows, index=index, columns=["value", "se", "ci_low", "ci_high"])


# -- the objectives of scoring and mitigation, as summaries ----------------------------------------
#: One vocabulary for the scorer (``xci_score``), mitigation (``group_shift``) and these summaries.
#: ``abs_delta_between`` is a loss (smaller is fairer); the others are larger-is-better.
OBJECTIVES = ("abs_delta_between", "min_xci", "min_utility", "nash_welfare")


def group_utilities(cells: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """U(a) of a (..., G, G) stack of matrices, shape (..., G): off-diagonal row and column sums.

    The one definition of U(a) (Section 4.3), used by the summaries and by mitigation's objectives.
    """
    off = np.array(cells, dtype=float, copy=True)
    idx = np.arange(off.shape[-1])
    off[..., idx, idx] = 0.0
    return alpha * off.sum(axis=-1) + beta * off.sum(axis=-2)


def _utility_weights(g: int, alpha: float, beta: float) -> np.ndarray:
    """Row k: the weights of U(group k) on the row-major cells, shape (G, G*G)."""
    weights = np.zeros((g, g * g))
    for a in range(g):
        for b in range(g):
            if b != a:
                weights[a, a * g + b] += alpha
                weights[a, b * g + a] += beta
    return weights


def _draws_sd(draws: np.ndarray) -> float:
    """Standard deviation (ddof=1) of the finite bootstrap draws of one statistic; NaN with fewer than two."""
    finite = draws[np.isfinite(draws)]
    return float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan


def max_abs_delta_between(cells: np.ndarray) -> np.ndarray:
    """max over pairs a < b of |xCI_ab - xCI_ba| of a (..., G, G) stack (NaN if a pair is); the one
    definition, used by :func:`abs_delta_between`, the scorer and mitigation."""
    g = cells.shape[-1]
    a, b = np.triu_indices(g, k=1)
    return np.abs(cells[..., a, b] - cells[..., b, a]).max(axis=-1)


def _folded(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The image of intervals [low, high] under |x| (it covers |theta| whenever [low, high] covers theta)."""
    ends_low, ends_high = np.minimum(np.abs(low), np.abs(high)), np.maximum(np.abs(low), np.abs(high))
    return np.where((low <= 0) & (0 <= high), 0.0, ends_low), ends_high


def _extreme_estimate(result: XCIResult, value: float, weights: np.ndarray, *, fold: bool, largest: bool,
                      draws: np.ndarray | None) -> Estimate:
    """An Estimate of the largest (or smallest) of K contrasts ``weights @ vec(matrix)``.

    The interval is the range of the extreme over K simultaneous intervals, each at level
    1 - (1 - level) / K (Bonferroni): when all K cover their contrast, which happens with
    probability >= level, the extreme lies between the extreme of the lower limits and the
    extreme of the upper limits. Conservative, and regular at the boundary where a bootstrap of
    a maximum of absolute values is not (the replicates of max |Δbetween| near 0 lie above the
    estimate, and their percentile interval excluded it). ``fold`` takes |contrast|.
    """
    k = weights.shape[0]
    level = 1 - (1 - result.confidence_level) / k
    low, high = contrast_interval(result, weights, level)
    if fold:
        low, high = _folded(low, high)
    pick = np.max if largest else np.min
    interval = ConfidenceInterval(float(pick(low)), float(pick(high)))
    se = math.nan if draws is None else _draws_sd(draws)
    return Estimate(value, se, interval, math.nan, 0.0, result.confidence_level)


def abs_delta_between(result: XCIResult, a: object = None, b: object = None) -> Estimate:
    """|Δbetween|: |xCI_{a,b} - xCI_{b,a}| for one pair, or the largest over all pairs.

    The loss that :func:`survfair.mitigate.group_shift` minimises (``objective="abs_delta_between"``)
    and that :func:`survfair.xci_score` reports negated (greater is better, as scikit-learn's
    ``neg_*`` scorers).

    Parameters
    ----------
    result : XCIResult or XAUCResult
    a, b : group labels, optional
        The pair; without them, the maximum over all pairs of groups.

    Returns
    -------
    Estimate
        For one pair: the interval is the image of Δbetween's interval under |·| (it covers
        whenever Δbetween's does). For the maximum over the K pairs: the range of the maximum
        over K simultaneous (Bonferroni) intervals of the pairs' |Δbetween|, with analytic or
        bootstrap inference alike; conservative. ``se`` is the bootstrap SD of the maximum (NaN
        with analytic inference).

    Raises
    ------
    ValueError
        If only one of ``a``, ``b`` is given, or a label is not a group of the result.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 0], list("ababab"), [6, 5, 1, 3, 2, 4],
    ...                    method="naive", ci=None)
    >>> round(survfair.abs_delta_between(res).value, 4)
    0.5
    """
    if (a is None) != (b is None):
        raise ValueError("a and b must be given together (the pair of groups).")
    if a is not None:
        delta = delta_between(result, a, b)
        low, high = _folded(np.array([delta.confidence_interval.low]), np.array([delta.confidence_interval.high]))
        interval = ConfidenceInterval(float(low[0]), float(high[0]))
        return Estimate(abs(delta.value), delta.se, interval, delta.p_value, 0.0, delta.confidence_level)
    g = len(result.groups)
    if g < 2:
        raise ValueError("abs_delta_between needs at least two groups.")
    first, second = np.triu_indices(g, k=1)
    weights = np.zeros((first.size, g * g))
    weights[np.arange(first.size), first * g + second] = 1.0
    weights[np.arange(first.size), second * g + first] = -1.0
    draws = None if result.replicates is None else max_abs_delta_between(result.replicates)
    return _extreme_estimate(result, float(max_abs_delta_between(result.values)), weights, fold=True, largest=True,
                             draws=draws)


def min_utility(result: XCIResult, alpha: float = 1.0, beta: float = 1.0) -> Estimate:
    """The worst-off group's utility, min_a U(a) (Section 4.3; the maximin, Rawlsian objective).

    U(a) = alpha sum_{b != a} xCI_{a,b} + beta sum_{b != a} xCI_{b,a}, as :func:`utility`.

    Returns
    -------
    Estimate
        The interval is the range of the minimum over G simultaneous (Bonferroni) intervals of the
        utilities, so the selection of the worst-off group is accounted for; conservative.
        ``se`` is the bootstrap SD of the minimum (NaN with analytic inference).

    Raises
    ------
    TypeError, ValueError
        If ``alpha`` or ``beta`` is not a finite number.

    See Also
    --------
    utility, nash_welfare
    """
    alpha, beta = check_scalar(alpha, "alpha"), check_scalar(beta, "beta")
    weights = _utility_weights(len(result.groups), alpha, beta)
    draws = None if result.replicates is None else group_utilities(result.replicates, alpha, beta).min(axis=-1)
    value = float(group_utilities(result.values, alpha, beta).min())
    return _extreme_estimate(result, value, weights, fold=False, largest=False, draws=draws)


def nash_welfare(result: XCIResult, alpha: float = 1.0, beta: float = 1.0) -> Estimate:
    """Nash welfare of the group utilities, prod_a U(a) (Section 4.3).

    A smooth function of the cells, so its standard error follows from the delta method on
    log prod_a U(a) = sum_a log U(a), whose gradient puts alpha / U(a) + beta / U(b) on cell
    (a, b), a != b; the interval is Wald on the log scale (it stays positive). With bootstrap
    replicates: the bootstrap interval of the product.

    Returns
    -------
    Estimate

    Raises
    ------
    TypeError, ValueError
        If ``alpha`` or ``beta`` is not a finite number.

    See Also
    --------
    utility, min_utility
    """
    alpha, beta = check_scalar(alpha, "alpha"), check_scalar(beta, "beta")
    if result.replicates is not None:  # the product of every replicate's utilities
        value = float(np.prod(group_utilities(result.values, alpha, beta)))
        draws = np.prod(group_utilities(result.replicates, alpha, beta), axis=-1)
        low, high = bootstrap_interval(np.array([value]), draws[:, None], None, result.confidence_level)
        return Estimate(value, _draws_sd(draws), ConfidenceInterval(float(low[0]), float(high[0])), math.nan, 0.0,
                        result.confidence_level)
    u = group_utilities(result.values, alpha, beta)
    value = float(np.prod(u))
    g = len(result.groups)
    with np.errstate(divide="ignore", invalid="ignore"):  # U(a) = 0: no log scale, NaN se
        gradient = alpha / u[:, None] + beta / u[None, :]
    gradient[np.arange(g), np.arange(g)] = 0.0
    log_se = float(contrast_se(result, gradient.reshape(1, -1))[0]) if np.all(u > 0) else math.nan
    z = two_sided_z(result.confidence_level)
    interval = ConfidenceInterval(math.nan, math.nan)
    if np.isfinite(log_se) and value > 0:
        interval = ConfidenceInterval(value * math.exp(-z * log_se), value * math.exp(z * log_se))
    return Estimate(value, value * log_se, interval, math.nan, 0.0, result.confidence_level)


def concordance_imparity(result: XCIResult) -> float:
    """Concordance imparity (Zhang & Weiss 2021): max - min of the within-group cells xCI_{a,a}."""
    diagonal = np.diag(result.values)
    if np.isnan(diagonal).all():
        return math.nan
    return float(np.nanmax(diagonal) - np.nanmin(diagonal))


def decompose(result: XCIResult) -> pd.DataFrame:
    """Proposition 4.1: the pooled C as a weighted average of the xCI cells.

    The weight of cell (a, b) is its share of the (weighted) comparable pairs,
    w_ab = |S_ab| / |S| for the naive estimator and the analogous share of the IPCW denominator
    of eq. 7 otherwise, so that sum_ab w_ab xCI_ab equals ``result.overall``.

    Returns
    -------
    DataFrame with columns a, b, weight, xci, contribution (weight * xci, 0 for empty cells);
    the ``contribution`` column sums to ``result.overall`` and ``weight`` to 1.
    """
    counts = result.counts
    total = counts["denominator"].sum()
    weight = counts["denominator"] / total
    contribution = np.where(counts["denominator"] > 0, counts["numerator"] / total, 0.0)
    return pd.DataFrame(
        {"a": counts["a"], "b": counts["b"], "weight": weight, "xci": counts["xci"], "contribution": contribution}
    )


def overall_c(result: XCIResult, *, null: float = 0.5) -> Estimate:
    """The pooled concordance (Harrell's C, or Uno's C for IPCW) with its uncertainty.

    Proposition 4.1 of Wang et al. (2026): the pooled C is the average of the xCI cells weighted
    by their share of the (weighted) comparable pairs, ``C = sum_ab N_ab / sum_ab D_ab``. Its
    variance is NOT a contrast of the cell covariance (the weights D_ab / D are random too), so it
    is computed from its own influence function (the same per-individual contributions summed over
    cells; ``ci="analytic"``, Wald interval on the logit scale) or from the bootstrap replicates of C (``ci="bootstrap"``).

    Parameters
    ----------
    result : XCIResult or XAUCResult
        For an :class:`~survfair.XAUCResult`, the pooled AUC with its DeLong standard error
        (:meth:`~survfair.XAUCResult.overall_estimate`).
    null : float, default=0.5
        Value under H0 for the p-value (0.5: a score no better than chance).

    Returns
    -------
    Estimate
        Value ``result.overall``; se, interval and p-value NaN without inference.
    """
    if hasattr(result, "overall_estimate"):  # the binary family's pooled AUC: DeLong
        return result.overall_estimate(null=null)
    value = result.overall
    level = result.confidence_level
    influence = result.influence
    draws = result.bootstrap
    se, interval, p_value = math.nan, ConfidenceInterval(math.nan, math.nan), math.nan
    if result.ci_method == "analytic" and influence is not None:
        se = math.sqrt(influence.overall_variance)
        low, high = cell_wald_interval(np.array([value]), np.array([se]), level)
        interval = ConfidenceInterval(float(low[0]), float(high[0]))
        p_value = float(wald_p_value(value, se, null)[0])
    elif result.ci_method == "bootstrap" and draws is not None:
        jackknife = None
        if result.bootstrap_method == "bca" and result.jackknife is not None:
            jackknife = result.jackknife.overall[:, None]
        values, column = np.array([value]), draws.overall[:, None]
        low, high = bootstrap_interval(values, column, jackknife, level)
        interval = ConfidenceInterval(float(low[0]), float(high[0]))
        se = _draws_sd(draws.overall)
        p_value = float(bootstrap_p_value(values, column, jackknife, null)[0])
    return Estimate(float(value), se, interval, p_value, null, level)
