"""Fairness summaries of an xCI matrix (Wang et al. 2026, Sections 4.1-4.3).

Most summaries are linear contrasts of the cells (the disparities, the utilities, any
:func:`contrast`), so their standard errors and intervals follow from the cell covariance or the
bootstrap replicates carried by the result; min-xCI is a selection, :func:`abs_delta_between`
and :func:`min_utility` are extremes of several contrasts, :func:`nash_welfare` a product and
:func:`overall_c` a ratio of pair sums, each with its own interval (see each function). Without
inference those fields are NaN. Return types never depend on the input.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .._core.deprecation import DEPRECATED, renamed
from .._core.display import html_of
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.intervals import (
    ConfidenceInterval,
    bootstrap_interval,
    bootstrap_p_value,
    bounded_wald_interval,
    cell_wald_interval,
    contrast_range,
    two_sided_z,
    wald_p_value,
)
from .._core.options import OptionTable, check_scalar, real
from .._core.results import (
    XCIResult,
    contrast_interval,
    contrast_p_value,
    contrast_se,
    difference_inference,
    difference_p_at_floor,
    has_inference,
    json_safe,
)

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


@frozen_result
class Estimate:
    """A scalar summary with its uncertainty.

    What the scalar summaries return (:func:`delta_within`, :func:`delta_between`,
    :func:`contrast`, :func:`overall_c`, :func:`abs_delta_between`, :func:`min_utility`,
    :func:`nash_welfare`, the ``estimate`` of :func:`min_xci`, the methods of
    :class:`ComparisonResult`). ``float(estimate)`` is its value. Immutable.

    Attributes
    ----------
    value : float
        Point estimate (NaN where a cell it needs is undefined).
    se : float
        Standard error (NaN when the result carries no inference, and for the summaries that
        document it as NaN).
    confidence_interval : ConfidenceInterval
        Interval at ``confidence_level`` (NaN limits without inference). How it is formed
        (raw or logit-scale Wald, bootstrap BCa or percentile, Bonferroni range) is documented by
        the function that returns the estimate.
    p_value : float
        Two-sided p-value of H0: value == ``null``: a Wald (normal) test from ``se``, or, with
        bootstrap replicates, the inverted bootstrap interval. NaN without a standard error or
        replicates, and for the summaries that have no test (extremes, products).
    null : float
        The null value tested (0 for differences, 0.5 for a single cell or the pooled C).
    confidence_level : float
        Level of ``confidence_interval``, in (0, 1).
    small_sample : bool
        A cell it is formed from rests on little data, has standard error 0 or an interval that
        may be too narrow (:func:`survfair.small_sample_flags` with its defaults, which gives the
        reasons): read the interval and the p-value as optimistic. False for the summaries that are
        not formed from cells with inference.

    See Also
    --------
    MinXCI : the smallest cell, an Estimate plus where it is.
    ConfidenceInterval : the interval type.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> est = survfair.delta_within(res, "a", "b")
    >>> round(float(est), 4), round(est.se, 4), est.null
    (0.5, 0.3536, 0.0)
    >>> low, high = est.confidence_interval
    >>> # a difference of probabilities: within [-1, 1]
    >>> round(low, 4), round(high, 4), round(est.p_value, 4)
    (-0.193, 1.0, 0.1573)
    >>> est  # rounded for reading; every digit kept  # doctest: +NORMALIZE_WHITESPACE
    Estimate(value=0.5000, se=0.3536, 95% CI [-0.1930, 1.0000], p_value=0.157, null=0,
             small_sample=True)
    """

    value: float
    se: float = math.nan
    confidence_interval: ConfidenceInterval = ConfidenceInterval(math.nan, math.nan)
    p_value: float = math.nan
    null: float = 0.0
    confidence_level: float = 0.95
    small_sample: bool = False

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        """Rounded for a reader: four decimals, p-values with three significant digits
        (``.to_dict()`` and the attributes keep every digit)."""
        low, high = self.confidence_interval
        four = lambda v: "nan" if v is None or math.isnan(v) else f"{v:.4f}"  # noqa: E731
        interval = (
            ""
            if math.isnan(low) and math.isnan(high)
            else (f", {100 * self.confidence_level:g}% CI [{four(low)}, {four(high)}]")
        )
        p = "" if math.isnan(self.p_value) else f", p_value={self.p_value:.3g}"
        se = "" if math.isnan(self.se) else f", se={four(self.se)}"
        small = ", small_sample=True" if self.small_sample else ""
        return f"Estimate(value={four(self.value)}{se}{interval}{p}, null={self.null:g}{small})"

    def _fields(self) -> dict:
        low, high = self.confidence_interval
        return {
            "value": self.value,
            "se": self.se,
            "ci_low": low,
            "ci_high": high,
            "p_value": self.p_value,
            "null": self.null,
            "confidence_level": self.confidence_level,
            "small_sample": self.small_sample,
        }

    def to_dict(self) -> dict:
        """JSON-safe dictionary: value, se, ci_low, ci_high, p_value, null, confidence_level,
        small_sample."""
        return json_safe(self._fields())

    def to_frame(self) -> pd.DataFrame:
        """One row: value, se, ci_low, ci_high, p_value, null, confidence_level (NaN kept),
        small_sample."""
        return pd.DataFrame([self._fields()])

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)


@frozen_result
class MinXCI:
    """Smallest xCI cell (Wang et al. 2026, Section 4.2.2) and where it is; returned by
    :func:`min_xci`.

    ``estimate`` holds the value and, when the result carries bootstrap replicates, an interval
    for the minimum itself (the minimum over cells in each replicate, so the selection of the
    minimum is accounted for); an analytic interval of a minimum is not available and is NaN.
    ``float(m)`` and ``m.value`` are the smallest cell's value.

    Attributes
    ----------
    estimate : Estimate
        Value, bootstrap standard error and interval of the minimum (NaN without bootstrap
        replicates); ``p_value`` is always NaN (no test of a minimum), ``null`` is 0.5.
    a : hashable
        Row of the smallest cell: the group of the member with the earlier event (for an
        :class:`XAUCResult`, the positive's group).
    b : hashable
        Column of the smallest cell: the group of the later member (the negative's group).

    See Also
    --------
    min_xci : computes it.
    Estimate : the type of ``estimate``.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1, 1, 1, 0, 1],
    ...                    list("abcabcabc"), [9, 4, 8, 1, 2, 3, 5, 7, 6], method="naive")
    >>> smallest = survfair.min_xci(res)
    >>> smallest.a, smallest.b, round(smallest.value, 4)
    ('b', 'c', 0.2)
    """

    estimate: Estimate
    a: object
    b: object

    @property
    def value(self) -> float:
        """The smallest cell's value, ``estimate.value``."""
        return self.estimate.value

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the cell (a, b) and the estimate's fields."""
        return json_safe({"a": self.a, "b": self.b}) | self.estimate.to_dict()

    def to_frame(self) -> pd.DataFrame:
        """One row: a, b and the estimate's fields (value, se, ci_low, ci_high, ...)."""
        return pd.DataFrame([{"a": self.a, "b": self.b} | self.estimate._fields()])

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def __float__(self) -> float:
        return float(self.value)


def _cell(result: XCIResult, label: object, name: str = "group") -> int:
    try:
        return result.groups.index(label)
    except ValueError:
        raise InvalidParameterError(
            f"group {label!r} is not in the result (groups: {list(result.groups)}).", parameter=name
        ) from None


#: The scalar options of :func:`contrast` (``coefficients`` is an array).
_CONTRAST_OPTIONS = OptionTable("contrast", null=real())


def contrast(
    result: XCIResult,
    coefficients: pd.DataFrame | np.ndarray | None = None,
    *,
    null: float = 0.0,
    weights: Any = DEPRECATED,
) -> Estimate:
    """Any linear contrast sum_ab w_ab xCI_ab, with standard error, interval and p-value.

    The disparities of Wang et al. (2026), Section 4.2.1 (:func:`delta_within`,
    :func:`delta_between`) and the group utilities of Section 4.3 (:func:`utility`) are such
    contrasts; this function takes any coefficients, e.g. a pre-specified comparison among many
    groups (the paper's Section 8 suggests pre-specified contrasts in multi-group settings).

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.
    coefficients : DataFrame or ndarray of shape (G, G), float
        The contrast's coefficients w_ab, aligned with ``result.matrix`` (rows a = earlier event /
        positive's group, columns b). A DataFrame is aligned by its row and column labels: groups
        it lacks weigh 0, and labels that are not groups of the result are refused. An ndarray is
        in matrix order.
    null : float, default=0.0
        Value under H0 for the p-value.
    weights : DataFrame or ndarray, optional
        Deprecated name of ``coefficients`` (removed in 0.3; ``weights`` are case weights
        everywhere else).

    Returns
    -------
    Estimate
        ``value`` = sum_ab w_ab xCI_ab (NaN if a cell with non-zero weight is undefined; cells
        of weight 0 never matter). ``se`` from the influence functions (``ci="analytic"``), the
        DeLong covariance (:class:`XAUCResult`) or the SD of the bootstrap replicates. Interval:
        raw-scale Wald from ``se``, clipped to the values the contrast can take ([sum of the
        negative coefficients, sum of the positive ones], as every cell lies in [0, 1]; logit-scale
        Wald, inside (0, 1), when the coefficients pick a single cell with 1), or with bootstrap
        replicates BCa or percentile as the result's ``bootstrap_method``. ``p_value``: two-sided,
        H0: contrast == ``null``, Wald on the raw scale or by inverting the bootstrap interval. se,
        interval and p-value are NaN without inference.

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``coefficients`` does not have shape (G, G) or is not numeric, or a DataFrame of
        coefficients names a label that is not a group of the result (missing groups get 0).
    InvalidParameterError (a TypeError)
        If no coefficients are given.

    See Also
    --------
    delta_within, delta_between : the two disparities, as contrasts of two cells.
    utility : one contrast per group, U(a).
    overall_c : the pooled C, which is not a fixed contrast (its weights are random).

    Examples
    --------
    Δbetween(a, b) written as a contrast (the same number as :func:`delta_between`):

    >>> import numpy as np
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> coefficients = np.array([[0.0, 1.0], [-1.0, 0.0]])  # xCI_ab - xCI_ba
    >>> est = survfair.contrast(res, coefficients)
    >>> round(est.value, 4), round(est.se, 4), round(est.p_value, 4)
    (0.1333, 0.4128, 0.7467)
    """
    coefficients = renamed(
        "contrast",
        "weights",
        "coefficients",
        weights,
        coefficients,
        missing="its coefficients: a (G, G) array or DataFrame like result.matrix",
    )
    null = _CONTRAST_OPTIONS.check(locals())["null"]
    if isinstance(coefficients, pd.DataFrame):
        unknown = [
            label
            for label in [*coefficients.index, *coefficients.columns]
            if label not in result.groups
        ]
        if unknown:  # a misspelt group would otherwise get weight 0 without a word
            raise InvalidParameterError(
                f"coefficients: labels {unknown!r} are not groups of the result "
                f"(groups: {list(result.groups)}).",
                parameter="coefficients",
            )
        coefficients = (
            coefficients.reindex(index=list(result.groups), columns=list(result.groups))
            .fillna(0)
            .to_numpy()
        )
    coefficients = np.asarray(coefficients, dtype=float)
    g = len(result.groups)
    if coefficients.shape != (g, g):
        raise InvalidParameterError(
            f"coefficients must have shape ({g}, {g}) like result.matrix, got "
            f"{coefficients.shape}.",
            parameter="coefficients",
        )
    return _estimate(result, coefficients.reshape(1, -1), null)


def _estimate(result: XCIResult, flat_weights: np.ndarray, null: float) -> Estimate:
    values = result.values.ravel()
    used = flat_weights[0] != 0
    value = (
        math.nan if np.isnan(values[used]).any() else float(flat_weights[0][used] @ values[used])
    )
    se = float(contrast_se(result, flat_weights)[0])
    low, high = contrast_interval(result, flat_weights, result.confidence_level)
    p_value = float(contrast_p_value(result, flat_weights, null)[0])
    return Estimate(
        value,
        se,
        ConfidenceInterval(float(low[0]), float(high[0])),
        p_value,
        null,
        result.confidence_level,
        # the small-sample flag travels with the numbers it qualifies (issue 41)
        bool(result._small_sample[used].any()),
    )


def _pair_weights(result: XCIResult, cells: list[tuple[object, object, float]]) -> np.ndarray:
    g = len(result.groups)
    weights = np.zeros((1, g * g))
    for a, b, w in cells:
        weights[0, _cell(result, a, "a") * g + _cell(result, b, "b")] += w
    return weights


def delta_within(result: XCIResult, a: object, b: object) -> Estimate:
    """Within-group disparity Δwithin(a, b) = xCI_{a,a} - xCI_{b,b}
    (Wang et al. 2026, Section 4.2.1).

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
        DeLong covariance, clipped to [-1, 1], the range of a difference of two probabilities;
        or the bootstrap's BCa / percentile interval) and the two-sided
        p-value of H0: Δwithin = 0 (Wald, or the inverted bootstrap interval). NaN where a cell
        is undefined or the result carries no inference.

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``a`` or ``b`` is not a group of the result.

    See Also
    --------
    delta_between : the cross-group disparity.
    pairwise_deltas : both disparities for every pair of groups at once.
    abs_delta_between : the largest |Δbetween| over pairs.
    concordance_imparity : max - min of the within-group cells, the largest |Δwithin| (no interval).

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
    """Between-group disparity Δbetween(a, b) = xCI_{a,b} - xCI_{b,a}
    (Wang et al. 2026, Section 4.2.1).

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
        DeLong covariance, clipped to [-1, 1], the range of a difference of two probabilities;
        or the bootstrap's BCa / percentile interval) and the two-sided
        p-value of H0: Δbetween = 0 (Wald, or the inverted bootstrap interval). NaN where a cell
        is undefined or the result carries no inference.

    Raises
    ------
    InvalidParameterError (a ValueError)
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

    The numbers of :func:`delta_within` and :func:`delta_between` (Wang et al. 2026,
    Section 4.2.1) for every pair (a, b) with a before b in the matrix order, computed together:
    with analytic inference each difference's standard error comes from the difference of two
    influence columns, so 500 groups (124,750 pairs of 250,000 cells) take seconds, not one
    G^2-long contrast per pair.

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.

    Returns
    -------
    DataFrame
        G (G - 1) rows, for each pair the delta_within row first. Columns summary
        ("delta_within" or "delta_between"), a, b (group labels), value, se, ci_low, ci_high,
        p_value (floats; the same intervals and p-values as :func:`delta_within` /
        :func:`delta_between`: raw-scale Wald or bootstrap, two-sided, H0: 0). NaN where a cell
        is undefined or the result carries no inference. Empty (no rows) for one group.

    See Also
    --------
    delta_within, delta_between : one pair as an :class:`Estimate`.
    abs_delta_between : the largest |Δbetween|, with a simultaneous interval.
    survfair.compare : the same columns for several models side by side.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 0], list("ababab"),
    ...                    [6, 5, 4, 3, 2, 1], method="naive")
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
    for name, first, second in difference_cell_pairs(g):
        values, se, low, high, p = difference_inference(
            result, first, second, result.confidence_level
        )
        parts.append(
            pd.DataFrame(
                {
                    "summary": name,
                    "a": labels[a],
                    "b": labels[b],
                    "value": values,
                    "se": se,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p,
                }
            )
        )
    if not len(a):
        return parts[0]
    return _interleaved(parts)


def difference_cell_pairs(g: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(summary, first cells, second cells) of Δwithin and Δbetween for every pair a < b,
    row-major."""
    a, b = np.triu_indices(g, k=1)
    return [("delta_within", a * g + a, b * g + b), ("delta_between", a * g + b, b * g + a)]


def _interleaved(parts: list):
    """Each pair's Δwithin and Δbetween adjacent, as in the per-pair loops before."""
    if isinstance(parts[0], np.ndarray):
        return np.column_stack(parts).ravel()
    table = pd.concat(parts, keys=[0, 1]).swaplevel().sort_index(level=0, sort_remaining=True)
    return table.reset_index(drop=True)


def deltas_p_at_floor(result: XCIResult) -> np.ndarray:
    """For each row of :func:`pairwise_deltas`: is its p-value a bootstrap resolution bound (no
    replicate of the difference crossed 0)? Then the p-value is an upper bound ("<=") and, after
    adjustment, so is the adjusted p-value. All False without bootstrap replicates.

    Returns
    -------
    ndarray of bool, shape (G (G - 1),), in the row order of :func:`pairwise_deltas`.
    """
    parts = [
        difference_p_at_floor(result, first, second)
        for _, first, second in difference_cell_pairs(len(result.groups))
    ]
    return _interleaved(parts) if parts[0].size else np.zeros(0, dtype=bool)


def min_xci(result: XCIResult) -> MinXCI:
    """Smallest defined cell of the xCI matrix, min_{a,b} xCI_{a,b}
    (Wang et al. 2026, Section 4.2.2).

    The model's worst ranking accuracy over all within- and between-group comparisons; larger
    is better. By Proposition 4.1 it never exceeds the pooled C (:func:`overall_c`), which is a
    weighted average of the cells. Undefined (NaN) cells are skipped.

    With bootstrap replicates the interval is that of the minimum over cells in each replicate
    (not the minimum of the cells' intervals), so it accounts for which cell is the minimum
    (BCa when the result's ``bootstrap_method`` is ``"bca"``, the acceleration from the
    delete-one jackknife of the minimum; otherwise percentile). Only cells defined in the full
    data enter each replicate's minimum. The analytic (``ci="analytic"``) result has no interval
    for the minimum: a Wald interval of the selected cell ignores the selection (use the bootstrap).

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result. Only bootstrap replicates (``xci(..., ci="bootstrap")``) give an
        interval; an :class:`XAUCResult` has none, so its interval is NaN.

    Returns
    -------
    MinXCI
        ``.estimate`` (an :class:`Estimate`: the value; ``se`` = SD of the replicates' minima and
        the bootstrap interval, NaN without replicates; ``p_value`` NaN, ``null`` 0.5) and
        ``.a``, ``.b``, the labels of the smallest cell (the first in row-major order when
        several cells tie).

    Raises
    ------
    InvalidParameterError (a ValueError)
        If every cell is NaN.

    See Also
    --------
    min_utility : the worst-off group's utility, the maximin objective of Section 4.3.
    utility : the group utilities U(a).
    nash_welfare : the product of the utilities.
    survfair.compare_xci : the paired difference of two models' min-xCI.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1, 1, 1, 0, 1],
    ...                    list("abcabcabc"), [9, 4, 8, 1, 2, 3, 5, 7, 6], method="naive")
    >>> smallest = survfair.min_xci(res)
    >>> smallest.a, smallest.b, round(smallest.value, 4)
    ('b', 'c', 0.2)
    >>> round(res.overall, 4)  # the pooled C is at least min-xCI (Proposition 4.1)
    0.4857
    """
    values = result.values
    if np.isnan(values).all():
        raise InvalidParameterError("min_xci: every cell of the matrix is NaN.", parameter="result")
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
        low, high = bootstrap_interval(
            np.array([value]), minima[:, None], jackknife, result.confidence_level
        )
        interval = ConfidenceInterval(float(low[0]), float(high[0]))
    estimate = Estimate(value, se, interval, math.nan, 0.5, result.confidence_level)
    return MinXCI(estimate, result.groups[flat // g], result.groups[flat % g])


def check_utility_weights(alpha: Any, beta: Any) -> tuple[float, float]:
    """The utility weights of :func:`utility` and of every objective built on it (the summaries,
    the scorer, mitigation): finite numbers >= 0, not both 0.

    Raises
    ------
    TypeError
        If either is not a real number.
    ValueError
        If either is negative, NaN or infinite, or both are 0 (every utility would be 0).
    """
    alpha, beta = check_scalar(alpha, "alpha", low=0), check_scalar(beta, "beta", low=0)
    if alpha == 0 and beta == 0:
        raise InvalidParameterError(
            "alpha and beta must not both be 0: every utility would be 0.", parameter="alpha"
        )
    return alpha, beta


#: The scalar options of :func:`utility` (that they are not both 0 is checked in the body).
_UTILITY_OPTIONS = OptionTable("utility", alpha=real(low=0), beta=real(low=0))


def utility(result: XCIResult, *, alpha: float = 1.0, beta: float = 1.0) -> pd.DataFrame:
    """Group utilities U(a) = alpha sum_{b != a} xCI_{a,b} + beta sum_{b != a} xCI_{b,a}
    (Section 4.3).

    The utility group ``a`` derives from the ranking (Wang et al. 2026, Section 4.3): its members
    who have the event first are correctly ranked ahead of members of every other group b
    (xCI_{a,b}, weight ``alpha``), and its members who outlive a member of b are correctly ranked
    behind them (xCI_{b,a}, weight ``beta``). The within-group cells do not enter. Each U(a) is a
    linear contrast of the cells (:func:`contrast`).

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.
    alpha, beta : float, default=1.0
        Weights of being correctly ranked ahead (alpha) and behind (beta); finite numbers
        >= 0, not both 0 (the rule of :func:`survfair.mitigate.group_shift`).

    Returns
    -------
    DataFrame
        Indexed by group (matrix order), float columns value, se, ci_low, ci_high. The interval
        is that of :func:`contrast`: raw-scale Wald from the influence functions or DeLong
        covariance (logit-scale when U(a) is a single cell with weight 1, e.g. two groups and
        ``beta=0``), or the bootstrap's BCa / percentile interval. NaN where a cell with
        non-zero weight is undefined, or without inference (se and limits). With one group the
        utility is 0 (no other group).

    Raises
    ------
    InvalidParameterError
        If ``alpha`` or ``beta`` is not a finite number >= 0, or both are 0 (every utility
        would be 0); a TypeError for a non-number.

    See Also
    --------
    min_utility : the worst-off group's utility, min_a U(a).
    nash_welfare : the product of the utilities.
    min_xci : the smallest cell.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1, 1, 1, 0, 1],
    ...                    list("abcabcabc"), [9, 4, 8, 1, 2, 3, 5, 7, 6], method="naive")
    >>> table = survfair.utility(res)
    >>> print(table["value"].round(4).to_string())
    group
    a    2.0000
    b    1.7000
    c    2.0333
    """
    _UTILITY_OPTIONS.check(locals())
    alpha, beta = check_utility_weights(alpha, beta)  # and: not both 0
    values = group_utilities(result.values, alpha, beta)
    se, low, high = _utility_inference(result, alpha, beta, result.confidence_level)
    index = pd.Index(list(result.groups), name="group", tupleize_cols=False)
    return pd.DataFrame({"value": values, "se": se, "ci_low": low, "ci_high": high}, index=index)


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


def _utility_weights(g: int, alpha: float, beta: float, groups: np.ndarray) -> np.ndarray:
    """Row i: the weights of U(group ``groups[i]``) on the row-major cells, shape
    (len(groups), G*G)."""
    weights = np.zeros((len(groups), g * g))
    others = np.arange(g)
    for row, a in enumerate(groups):
        b = others[others != a]
        weights[row, a * g + b] += alpha
        weights[row, b * g + a] += beta
    return weights


def _utility_weight_blocks(result: XCIResult, alpha: float, beta: float):
    """The weight rows of every group's U(a), a few rows at a time (about 32 MB of weights at once,
    whatever G: all G rows are 25 GiB at G = 1500); none when the result carries no inference."""
    g = len(result.groups)
    if not has_inference(result):
        return
    step = max(1, 4_000_000 // (g * g))
    for start in range(0, g, step):
        yield _utility_weights(g, alpha, beta, np.arange(start, min(start + step, g)))


def _utility_inference(
    result: XCIResult, alpha: float, beta: float, level: float, *, with_se: bool = True
):
    """(se, interval low, interval high) of every group's U(a) at ``level``, each of shape (G,),
    from one pass over the weight blocks (all NaN without inference; se NaN unless ``with_se``).

    With analytic inference on compact influence rows (three groups or more), the projections of
    the rows on every U(a) are formed directly (:func:`_compact_utility_se`): O(n G) instead of the
    O(n G^2) of G weight rows of G^2 cells each."""
    nan = np.full(len(result.groups), np.nan)
    compact = _compact_utility_se(result, alpha, beta)
    if compact is not None:
        se, values = compact
        # raw-scale Wald limits clipped to [0, (G - 1)(alpha + beta)], contrast_range of the
        # weights; where the upper bound may bind it is summed from the weights as there
        bound = (len(se) - 1) * (alpha + beta)
        low, high = bounded_wald_interval(values, se, level, 0.0, bound)
        for a in np.flatnonzero(~(high < bound * (1 - 1e-12)) & np.isfinite(high)):
            weights = _utility_weights(len(se), alpha, beta, np.array([a]))
            low[a : a + 1], high[a : a + 1] = bounded_wald_interval(
                values[a : a + 1], se[a : a + 1], level, *contrast_range(weights)
            )
        return (se if with_se else nan), low, high
    parts = [
        (
            contrast_se(result, weights) if with_se else nan[: len(weights)],
            *contrast_interval(result, weights, level),
        )
        for weights in _utility_weight_blocks(result, alpha, beta)
    ]
    if not parts:
        return nan, nan, nan
    return tuple(np.concatenate(column) for column in zip(*parts))


def _compact_utility_se(result: Any, alpha: float, beta: float):
    """(se, value) of every group's U(a) from compact influence rows, or None where they do not
    apply (no analytic influence rows, bootstrap replicates, fewer than three groups).

    A row of group c holds its influence on the 2G - 1 cells (c, y) and (x, c) only
    (:class:`survfair._core.influence.CompactLayout`), so its projection on U(a) is
    ``alpha phi(a, c) + beta phi(c, a)`` for a != c and the weighted sum of its off-diagonal
    slots for a = c: G numbers per row, O(n G) in all. The numbers are those of
    :func:`~survfair._core.results.contrast_se` with the weights of :func:`_utility_weights` (to
    rounding: the sums run in another order); NaN se and value where a cell with non-zero weight
    is undefined, as there.
    """
    influence = getattr(result, "influence", None)
    layout = getattr(influence, "layout", None)
    if (
        layout is None
        or not getattr(influence, "has_rows", False)
        or getattr(result, "replicates", None) is not None
    ):
        return None
    g = layout.n_groups
    variance = np.zeros(g)
    for c, cells, block in layout.blocks(influence.cells_in_time_order):
        block = np.where(np.isnan(block), 0.0, block)
        earlier, later = np.divmod(cells, g)
        # cells (c, y) weigh alpha in U(c), beta in U(y); cells (x, c) alpha in U(x), beta in U(c)
        ahead = np.flatnonzero((earlier == c) & (later != c))
        behind = np.flatnonzero((later == c) & (earlier != c))
        projection = np.zeros((block.shape[0], g))
        projection[:, earlier[behind]] = alpha * block[:, behind]
        projection[:, later[ahead]] += beta * block[:, ahead]
        projection[:, c] = alpha * block[:, ahead].sum(axis=1) + beta * block[:, behind].sum(axis=1)
        variance += np.einsum("ij,ij->j", projection, projection)
    se = np.sqrt(variance)
    defined = np.asarray(layout.defined, dtype=bool).reshape(g, g)
    off = ~np.eye(g, dtype=bool)
    undefined = np.zeros(g, dtype=bool)
    if alpha != 0:
        undefined |= (~defined & off).any(axis=1)
    if beta != 0:
        undefined |= (~defined & off).any(axis=0)
    cells = np.where(defined, result.values, 0.0) * off
    values = alpha * cells.sum(axis=1) + beta * cells.sum(axis=0)
    se[undefined], values[undefined] = np.nan, np.nan
    return se, values


def _draws_sd(draws: np.ndarray) -> float:
    """Standard deviation (ddof=1) of the finite bootstrap draws of one statistic; NaN with fewer
    than two."""
    finite = draws[np.isfinite(draws)]
    return float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan


def max_abs_delta_between(cells: np.ndarray) -> np.ndarray:
    """max over pairs a < b of |xCI_ab - xCI_ba| of a (..., G, G) stack (NaN if a pair is); the one
    definition, used by :func:`abs_delta_between`, the scorer and mitigation."""
    g = cells.shape[-1]
    a, b = np.triu_indices(g, k=1)
    return np.abs(cells[..., a, b] - cells[..., b, a]).max(axis=-1)


def _folded(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The image of intervals [low, high] under |x| (it covers |theta| whenever [low, high] covers
    theta), within [0, 1]: |Δbetween| is the absolute difference of two probabilities."""
    ends_low, ends_high = (
        np.minimum(np.abs(low), np.abs(high)),
        np.maximum(np.abs(low), np.abs(high)),
    )
    return np.where((low <= 0) & (0 <= high), 0.0, np.minimum(ends_low, 1.0)), np.minimum(
        ends_high, 1.0
    )


def _simultaneous_level(result: XCIResult, k: int) -> float:
    """The level of each of K Bonferroni intervals that hold together at the result's level."""
    return 1 - (1 - result.confidence_level) / k


def _extreme_estimate(
    result: XCIResult,
    value: float,
    low: np.ndarray,
    high: np.ndarray,
    *,
    largest: bool,
    draws: np.ndarray | None,
) -> Estimate:
    """An Estimate of the largest (or smallest) of K contrasts, given their K simultaneous
    intervals.

    The intervals are each at level 1 - (1 - level) / K (Bonferroni, :func:`_simultaneous_level`):
    when all K cover their contrast, which happens with probability >= level, the extreme lies
    between the extreme of the lower limits and the extreme of the upper limits. Conservative, and
    regular at the boundary where a bootstrap of a maximum of absolute values is not (the
    replicates of max |Δbetween| near 0 lie above the estimate, and their percentile interval
    excluded it).
    """
    pick = np.max if largest else np.min
    interval = ConfidenceInterval(float(pick(low)), float(pick(high)))
    se = math.nan if draws is None else _draws_sd(draws)
    return Estimate(value, se, interval, math.nan, 0.0, result.confidence_level)


def abs_delta_between(result: XCIResult, *, a: object = None, b: object = None) -> Estimate:
    """|Δbetween|: |xCI_{a,b} - xCI_{b,a}| for one pair, or the largest over all pairs.

    The absolute between-group disparity of Wang et al. (2026), Section 4.2.1, which the paper
    suggests as a loss to minimise (Section 4.2.2). The loss that
    :func:`survfair.mitigate.group_shift` minimises (``objective="abs_delta_between"``) and that
    :func:`survfair.xci_score` reports negated (greater is better, as scikit-learn's ``neg_*``
    scorers). On an :class:`XAUCResult` it is |ΔxAUC| (Kallus & Zhou 2019, Section 4).

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.
    a, b : hashable, optional
        The pair of group labels; give both or neither. Without them, the maximum over all
        G (G - 1) / 2 pairs of groups.

    Returns
    -------
    Estimate
        For one pair: the value |Δbetween(a, b)|, the ``se`` and ``p_value`` (H0: Δbetween = 0)
        of :func:`delta_between`, and the image of Δbetween's interval under |·| (it covers
        whenever Δbetween's does). For the maximum over the K pairs (NaN if any pair's
        Δbetween is undefined): the range of the maximum over K simultaneous (Bonferroni, each
        at level 1 - (1 - level) / K) intervals of the pairs' |Δbetween|, with analytic or
        bootstrap inference alike; conservative. ``se`` is the bootstrap SD of the maximum (NaN
        with analytic inference) and ``p_value`` is NaN. The limits are not clipped to [0, 1].

    Raises
    ------
    InvalidParameterError (a ValueError)
        If only one of ``a``, ``b`` is given, a label is not a group of the result, or (without
        a pair) the result has fewer than two groups.

    See Also
    --------
    delta_between : the signed disparity of one pair.
    delta_within : the within-group disparity.
    pairwise_deltas : both disparities for every pair of groups.
    survfair.mitigate.group_shift, survfair.xci_score : use it as an objective.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 0], list("ababab"),
    ...                    [6, 5, 1, 3, 2, 4], method="naive", ci=None)
    >>> round(survfair.abs_delta_between(res).value, 4)
    0.5
    """
    if (a is None) != (b is None):
        raise InvalidParameterError(
            "a and b must be given together (the pair of groups).", parameter="a"
        )
    if a is not None:
        delta = delta_between(result, a, b)
        low, high = _folded(
            np.array([delta.confidence_interval.low]), np.array([delta.confidence_interval.high])
        )
        interval = ConfidenceInterval(float(low[0]), float(high[0]))
        return Estimate(
            abs(delta.value), delta.se, interval, delta.p_value, 0.0, delta.confidence_level
        )
    g = len(result.groups)
    if g < 2:
        raise InvalidParameterError(
            "abs_delta_between needs at least two groups.", parameter="result"
        )
    first, second = np.triu_indices(g, k=1)
    # the K = G (G - 1) / 2 differences directly: a K x G^2 weight matrix is 232 GiB at G = 500
    level = _simultaneous_level(result, first.size)
    _, _, low, high, _ = difference_inference(result, first * g + second, second * g + first, level)
    draws = None if result.replicates is None else max_abs_delta_between(result.replicates)
    return _extreme_estimate(
        result,
        float(max_abs_delta_between(result.values)),
        *_folded(low, high),
        largest=True,
        draws=draws,
    )


#: The scalar options of :func:`min_utility` (that they are not both 0 is checked in the body).
_MIN_UTILITY_OPTIONS = OptionTable("min_utility", alpha=real(low=0), beta=real(low=0))


def min_utility(result: XCIResult, *, alpha: float = 1.0, beta: float = 1.0) -> Estimate:
    """The worst-off group's utility, min_a U(a) (Section 4.3; the maximin, Rawlsian objective).

    U(a) = alpha sum_{b != a} xCI_{a,b} + beta sum_{b != a} xCI_{b,a}, as :func:`utility`
    (Wang et al. 2026, Section 4.3, which proposes maximising the minimum utility across groups,
    after Yang et al. 2023). Larger is better.

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.
    alpha, beta : float, default=1.0
        Weights of being correctly ranked ahead (alpha) and behind (beta), as in :func:`utility`.

    Returns
    -------
    Estimate
        The value is NaN if any off-diagonal cell is undefined. The interval is the range of the
        minimum over G simultaneous (Bonferroni, each at level 1 - (1 - level) / G) intervals of
        the utilities (raw-scale Wald, or bootstrap BCa / percentile), so the selection of the
        worst-off group is accounted for; conservative. ``se`` is the bootstrap SD of the minimum
        (NaN with analytic inference); ``p_value`` is NaN. NaN interval without inference.

    Raises
    ------
    InvalidParameterError
        If ``alpha`` or ``beta`` is not a finite number >= 0, or both are 0 (every utility
        would be 0); a TypeError for a non-number.

    See Also
    --------
    utility : every group's U(a), with intervals.
    nash_welfare : the product of the utilities.
    min_xci : the smallest cell.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1, 1, 1, 0, 1],
    ...                    list("abcabcabc"), [9, 4, 8, 1, 2, 3, 5, 7, 6], method="naive")
    >>> round(survfair.min_utility(res).value, 4)  # U(b), the smallest of survfair.utility(res)
    1.7
    """
    _MIN_UTILITY_OPTIONS.check(locals())
    alpha, beta = check_utility_weights(alpha, beta)  # and: not both 0
    _, low, high = _utility_inference(
        result, alpha, beta, _simultaneous_level(result, len(result.groups)), with_se=False
    )
    draws = (
        None
        if result.replicates is None
        else group_utilities(result.replicates, alpha, beta).min(axis=-1)
    )
    value = float(group_utilities(result.values, alpha, beta).min())
    return _extreme_estimate(result, value, low, high, largest=False, draws=draws)


#: The scalar options of :func:`nash_welfare` (that they are not both 0 is checked in the body).
_NASH_WELFARE_OPTIONS = OptionTable("nash_welfare", alpha=real(low=0), beta=real(low=0))


def nash_welfare(result: XCIResult, *, alpha: float = 1.0, beta: float = 1.0) -> Estimate:
    """Nash welfare of the group utilities, prod_a U(a) (Section 4.3).

    The objective of the maximum Nash welfare solution that Wang et al. (2026), Section 4.3,
    propose for the utilities of :func:`utility` (after Caragiannis et al. 2019). Larger is
    better.

    A smooth function of the cells, so its standard error follows from the delta method on
    log prod_a U(a) = sum_a log U(a), whose gradient puts alpha / U(a) + beta / U(b) on cell
    (a, b), a != b; the interval is Wald on the log scale (it stays positive). With bootstrap
    replicates: the bootstrap interval of the product.

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result, with or without inference.
    alpha, beta : float, default=1.0
        Weights of being correctly ranked ahead (alpha) and behind (beta), as in :func:`utility`.

    Returns
    -------
    Estimate
        The value prod_a U(a) (NaN if any off-diagonal cell is undefined). Analytic inference:
        ``se`` = value times the delta-method SE of the log, interval value * exp(-/+ z SE)
        (NaN when some U(a) <= 0). Bootstrap replicates: ``se`` is the SD of the replicated
        products and the interval their percentile interval (also when the result's
        ``bootstrap_method`` is ``"bca"``: no jackknife of the product is formed). ``p_value``
        is NaN. se and interval NaN without inference.

    Raises
    ------
    InvalidParameterError
        If ``alpha`` or ``beta`` is not a finite number >= 0, or both are 0 (every utility
        would be 0); a TypeError for a non-number.

    See Also
    --------
    utility : the group utilities U(a).
    min_utility : the worst-off group's utility.
    min_xci : the smallest cell.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1, 1, 1, 0, 1],
    ...                    list("abcabcabc"), [9, 4, 8, 1, 2, 3, 5, 7, 6], method="naive")
    >>> welfare = survfair.nash_welfare(res)
    >>> round(welfare.value, 4)  # 2.0 * 1.7 * 2.0333
    6.9133
    >>> low, high = welfare.confidence_interval
    >>> round(low, 4), round(high, 4)
    (0.4486, 106.538)
    """
    _NASH_WELFARE_OPTIONS.check(locals())
    alpha, beta = check_utility_weights(alpha, beta)  # and: not both 0
    if result.replicates is not None:  # the product of every replicate's utilities
        value = float(np.prod(group_utilities(result.values, alpha, beta)))
        draws = np.prod(group_utilities(result.replicates, alpha, beta), axis=-1)
        low, high = bootstrap_interval(
            np.array([value]), draws[:, None], None, result.confidence_level
        )
        return Estimate(
            value,
            _draws_sd(draws),
            ConfidenceInterval(float(low[0]), float(high[0])),
            math.nan,
            0.0,
            result.confidence_level,
        )
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
    """Concordance imparity (Zhang & Weiss 2021): max - min of the within-group cells xCI_{a,a}.

    The largest gap between two groups' within-group concordance, i.e. the largest
    |Δwithin(a, b)| over pairs of groups. Wang et al. (2026) contrast it with xCI (Sections 1,
    3.3 and 8): it sees only the diagonal of the matrix, not the between-group cells.

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result (on an :class:`XAUCResult` the diagonal holds the within-group
        AUCs).

    Returns
    -------
    float
        A plain number, without standard error or interval (use :func:`pairwise_deltas` for
        intervals of every Δwithin). Undefined (NaN) diagonal cells are skipped: 0.0 when only
        one is defined, NaN when none is.

    See Also
    --------
    delta_within : one within-group disparity, with its interval.
    pairwise_deltas : Δwithin for every pair of groups.

    References
    ----------
    Zhang, W. and Weiss, J. C. (2021). Fair decision-making under uncertainty. IEEE ICDM 2021,
    886-895.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 1, 1, 1, 1, 1, 0, 1],
    ...                    list("abcabcabc"), [9, 4, 8, 1, 2, 3, 5, 7, 6], method="naive")
    >>> [round(float(v), 4) for v in res.values.diagonal()]  # xCI_aa, xCI_bb, xCI_cc
    [0.6667, 0.3333, 0.6667]
    >>> round(survfair.concordance_imparity(res), 4)
    0.3333
    """
    diagonal = np.diag(result.values)
    if np.isnan(diagonal).all():
        return math.nan
    return float(np.nanmax(diagonal) - np.nanmin(diagonal))


def decompose(result: XCIResult) -> pd.DataFrame:
    """Proposition 4.1: the pooled C as a weighted average of the xCI cells.

    The weight of cell (a, b) is its share of the (weighted) comparable pairs,
    w_ab = |S_ab| / |S| for the naive estimator and the analogous share of the IPCW denominator
    of eq. 7 otherwise, so that sum_ab w_ab xCI_ab equals ``result.overall`` (Wang et al. 2026,
    Proposition 4.1 and its proof in Appendix A). The weights are shares of pairs, not of
    people: a direction with few comparable pairs barely moves the pooled C, however poorly it
    is ranked.

    Parameters
    ----------
    result : XCIResult
        A result of :func:`survfair.xci` (any ``method``; inference is not used). For an
        :class:`XAUCResult` use :func:`auc_decomposition`.

    Returns
    -------
    DataFrame
        One row per cell (G^2 rows, row-major). Columns a, b (group labels), weight (float,
        D_ab / sum D: the count of comparable pairs for the naive estimator, the IPCW-weighted
        denominator of eq. 7 otherwise, 0 for an empty cell), xci (NaN for an empty cell) and
        contribution (N_ab / sum D = weight * xci, 0 for an empty cell). ``contribution``
        sums to ``result.overall`` and ``weight`` to 1.

    See Also
    --------
    overall_c : the pooled C with its standard error and interval.
    auc_decomposition : the same identity for xAUC (Kallus & Zhou 2019, Proposition 1).

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> table = survfair.decompose(res)
    >>> print(table.round(4).to_string(index=False))
    a b  weight    xci  contribution
    a a  0.2143 1.0000        0.2143
    a b  0.3571 0.8000        0.2857
    b a  0.2143 0.6667        0.1429
    b b  0.2143 0.5000        0.1071
    >>> round(float(table["contribution"].sum()), 4), round(res.overall, 4)
    (0.75, 0.75)
    """
    if hasattr(result, "positive"):
        raise InvalidParameterError(
            "decompose takes an XCIResult; for an XAUCResult use auc_decomposition "
            "(Proposition 1).",
            parameter="result",
        )
    counts = result.counts
    total = counts["denominator"].sum()
    weight = counts["denominator"] / total
    contribution = np.where(counts["denominator"] > 0, counts["numerator"] / total, 0.0)
    return pd.DataFrame(
        {
            "a": counts["a"],
            "b": counts["b"],
            "weight": weight,
            "xci": counts["xci"],
            "contribution": contribution,
        }
    )


#: The scalar options of :func:`overall_c`.
_OVERALL_OPTIONS = OptionTable("overall_c", null=real())


def overall_c(result: XCIResult, *, null: float = 0.5) -> Estimate:
    """The pooled concordance (Harrell's C, or Uno's C for IPCW) with its uncertainty.

    Proposition 4.1 of Wang et al. (2026): the pooled C is the average of the xCI cells weighted
    by their share of the (weighted) comparable pairs, ``C = sum_ab N_ab / sum_ab D_ab``. Its
    variance is NOT a contrast of the cell covariance (the weights D_ab / D are random too), so it
    is computed from its own influence function (the same per-individual contributions summed
    over cells; ``ci="analytic"``, Wald interval on the logit scale) or from the bootstrap
    replicates of C (``ci="bootstrap"``).

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
        Value ``result.overall`` (eq. 4 pooled over all cells for the naive estimator, eq. 7
        pooled for IPCW). ``ci="analytic"``: ``se`` from the influence function of C (the
        Kaplan-Meier term of the IPCW weights included), interval Wald on the logit scale
        (inside (0, 1); at 0 or 1 or with se 0 the raw Wald interval clipped to [0, 1]) and
        two-sided Wald p-value. ``ci="bootstrap"``: ``se`` = SD of the replicates of C, BCa or
        percentile interval (the result's ``bootstrap_method``), p-value by inverting it.
        An :class:`XAUCResult`: the DeLong se and the same logit-Wald rule. se, interval and
        p-value NaN without inference.

    Raises
    ------
    InvalidParameterError
        If ``null`` is not a finite number.

    See Also
    --------
    decompose : the pooled C cell by cell (Proposition 4.1).
    min_xci : the smallest cell, never above the pooled C.
    survfair.compare_xci : the paired difference of two models' pooled C.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> c = survfair.overall_c(res)
    >>> round(c.value, 4), round(c.se, 4), round(c.p_value, 4)
    (0.75, 0.1703, 0.1422)
    >>> low, high = c.confidence_interval
    >>> round(low, 4), round(high, 4)
    (0.3358, 0.9468)
    """
    null = _OVERALL_OPTIONS.check(locals())["null"]
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
