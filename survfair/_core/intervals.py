"""Interval arithmetic: Wald (raw and logit scale), bootstrap percentile/BCa limits, p-values.

A numeric leaf: arrays in, arrays out, no result objects. The normal quantiles come from
``scipy.special.ndtri`` / ``ndtr`` (what ``scipy.stats.norm.ppf`` / ``cdf`` call, bit for bit),
so computing an interval does not import ``scipy.stats`` (half a second on first use).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import special

from .frozen import frozen_result

__all__ = [
    "NO_VARIANCE_SE",
    "ConfidenceInterval",
    "two_sided_z",
    "wald_interval",
    "bounded_wald_interval",
    "contrast_range",
    "wald_p_value",
    "holm_adjusted",
    "cell_wald_interval",
    "logit_wald_interval",
    "bootstrap_interval",
    "bootstrap_p_value",
    "bootstrap_at_floor",
    "nanstd",
]


#: A standard error at or below this is a rounding residue of 0: the variance of a probability (a
#: cell) or of a difference of probabilities is a sum of squared influence values, and where these
#: cancel exactly (every comparable pair of a cell ranked the same way) the sum is 1e-30 or so, not
#: 0. A real standard error of a probability is above 1e-7 even at 10^7 rows.
NO_VARIANCE_SE = 1e-10


def two_sided_z(level: float) -> float:
    """The normal quantile z with P(|Z| <= z) = ``level`` (1.959963984540054 at 0.95)."""
    return float(special.ndtri((1 + level) / 2))


@frozen_result
class ConfidenceInterval:
    """A two-sided confidence interval: ``low, high = ci``, ``ci[0]``, ``ci.low`` all work.

    See Also
    --------
    Estimate : carries one as its confidence_interval.

    Examples
    --------
    >>> from survfair import ConfidenceInterval
    >>> ci = ConfidenceInterval(0.7, 0.9)
    >>> low, high = ci
    >>> (ci[0], ci[1], ci.high, len(ci)) == (0.7, 0.9, 0.9, 2)
    True
    """

    low: float
    high: float

    def __iter__(self):
        return iter((self.low, self.high))

    def __getitem__(self, index):
        return (self.low, self.high)[index]

    def __len__(self) -> int:
        return 2


def table_interval(
    frame, keys: list[str], columns: dict[str, str] | None = None
) -> ConfidenceInterval:
    """The limits of a tidy table as one :class:`ConfidenceInterval`, array-valued.

    ``frame`` has identifying columns ``keys`` and the limits in ``ci_low`` / ``ci_high``: the
    interval is two Series indexed by ``keys`` (a MultiIndex for several), in the table's row
    order. With ``columns`` (name -> prefix, e.g. ``{"before": "before_", "after": "after_"}``)
    the limits are two DataFrames with one column per name, read from ``<prefix>ci_low`` /
    ``<prefix>ci_high``.
    """
    import pandas as pd

    # each level keeps its column's dtype (group labels in an object column stay objects)
    levels = [pd.Index(frame[key].to_numpy(), dtype=frame[key].dtype, name=key) for key in keys]
    index = pd.MultiIndex.from_arrays(levels) if len(keys) > 1 else levels[0]
    if columns is None:
        return ConfidenceInterval(
            pd.Series(frame["ci_low"].to_numpy(float), index=index, name="ci_low"),
            pd.Series(frame["ci_high"].to_numpy(float), index=index, name="ci_high"),
        )

    def limits(side: str):
        return pd.DataFrame(
            {name: frame[f"{prefix}ci_{side}"].to_numpy(float) for name, prefix in columns.items()},
            index=index,
        )

    return ConfidenceInterval(limits("low"), limits("high"))


def wald_interval(values, se, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Raw-scale Wald limits ``values -/+ z se`` (arrays; NaN value or se gives NaN limits)."""
    values, se = (
        np.atleast_1d(np.asarray(values, dtype=float)),
        np.atleast_1d(np.asarray(se, dtype=float)),
    )
    z = two_sided_z(level)
    return values - z * se, values + z * se


def contrast_range(weights) -> tuple[np.ndarray, np.ndarray]:
    """The values a linear contrast ``weights @ p`` of probabilities p in [0, 1] can take:
    [sum of its negative weights, sum of its positive weights] per row of ``weights`` ([-1, 1]
    for a difference of two probabilities, [0, 1] for one cell)."""
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    return np.clip(weights, None, 0.0).sum(axis=1), np.clip(weights, 0.0, None).sum(axis=1)


def bounded_wald_interval(values, se, level: float, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """Raw-scale Wald limits clipped to the range [``lower``, ``upper``] the estimate can take.

    A difference of two probabilities (Δbetween, Δwithin) lies in [-1, 1]: a limit beyond it
    (e.g. +102.7 points for a difference near +100 with a small group) is not a possible value,
    so it is moved to the bound; the interval still covers whenever the unclipped one does. NaN
    value or se gives NaN limits, as :func:`wald_interval`.
    """
    low, high = wald_interval(values, se, level)
    with np.errstate(invalid="ignore"):  # NaN limits stay NaN
        return np.clip(low, lower, upper), np.clip(high, lower, upper)


def wald_p_value(values, se, null: float = 0.0) -> np.ndarray:
    """Two-sided normal p-values of H0: value == ``null`` (arrays); NaN where the value or the se
    is not finite or the se is 0 (at most :data:`NO_VARIANCE_SE`, a rounding residue of 0: the
    test is undefined, not p = 0). The one Wald test of survfair; no numpy warning."""
    values, se = (
        np.atleast_1d(np.asarray(values, dtype=float)),
        np.atleast_1d(np.asarray(se, dtype=float)),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2 * special.ndtr(-np.abs(values - null) / se)
        p[~(np.isfinite(se) & (se > NO_VARIANCE_SE) & np.isfinite(values))] = np.nan
    return p


def holm_adjusted(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values of one family (no NaN): sorted ascending,
    p_(k) (m - k + 1), their running maximum, capped at 1, put back in place. statsmodels'
    ``multipletests(method="holm")`` does exactly these operations (equal to the last bit,
    tests/test_multiplicity.py) but then runs a full garbage collection, 0.15 s per call in a
    process holding the audit's models (24 calls, 3.6 s of the demo audit). Used by
    :func:`survfair.adjust_p_values` and the censoring check."""
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(p[order] * np.arange(p.shape[0], 0, -1))
    adjusted[adjusted > 1] = 1.0
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return out


def cell_wald_interval(values, se, level):
    """Wald limits of probability-scale estimates (cells, the pooled C), always within [0, 1].

    On the logit scale where 0 < value < 1 and se > 0 (it stays inside (0, 1)); an estimate on
    the boundary (0 or 1) or with se 0 gets the raw-scale Wald interval clipped to [0, 1], so a
    cell at 1 with se 0 gets the point interval [1, 1]; NaN value or se gives NaN limits. No
    numpy warning is raised for any of these.
    """
    values, se = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    low, high = wald_interval(values, se, level)
    with np.errstate(invalid="ignore"):  # NaN se or value: NaN limits, on purpose
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        logit = (values > 0) & (values < 1) & (se > 0)
    if logit.any():
        low[logit], high[logit] = logit_wald_interval(values[logit], se[logit], level)
    return low, high


def logit_wald_interval(values, se, level):
    """Wald interval on the logit scale (delta method), mapped back: stays inside (0, 1).

    Used for single cells and the pooled C: near 0 or 1 the raw-scale Wald interval undercovers
    (coverage study, benchmarks/coverage_study.py), the logit interval does not.
    """
    values, se = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    z = two_sided_z(level)
    center = np.log(values / (1 - values))
    half = z * se / (values * (1 - values))
    return 1 / (1 + np.exp(-(center - half))), 1 / (1 + np.exp(-(center + half)))


def nanstd(draws: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # fewer than two defined draws -> NaN
        return np.nanstd(draws, axis=0, ddof=1)


def _acceleration(jackknife: np.ndarray) -> float:
    """BCa acceleration from delete-one jackknife values (Efron & Tibshirani 1993, eq. 14.15)."""
    jackknife = jackknife[np.isfinite(jackknife)]
    n = jackknife.shape[0]
    if n < 3:
        return math.nan
    u = (n - 1) * (jackknife.mean() - jackknife)
    denominator = np.sum(u**2) ** 1.5
    return float(np.sum(u**3) / (6 * denominator)) if denominator > 0 else math.nan


def _bias_correction(value: float, draws: np.ndarray) -> float:
    """z0 = Phi^-1(share of replicates below the estimate, ties counted half; scipy's
    convention)."""
    share = (np.count_nonzero(draws < value) + np.count_nonzero(draws <= value)) / (
        2 * draws.shape[0]
    )
    return float(special.ndtri(share))


def bootstrap_interval(values, draws, jackknife, level):
    """Percentile (``jackknife is None``) or BCa limits for every column of ``draws``.

    Parameters
    ----------
    values : ndarray of shape (K,)
        Point estimates.
    draws : ndarray of shape (B, K)
        Bootstrap replicates; NaN replicates are left out.
    jackknife : ndarray of shape (n, K) or None
        Delete-one jackknife values for the BCa acceleration; None gives percentile limits.
    level : float
        Confidence level.

    Notes
    -----
    BCa (Efron 1987; Efron & Tibshirani 1993, eq. 14.10 and 14.15), with scipy's conventions
    (``scipy.stats.bootstrap(method="BCa")``: z0 from the share of replicates below the estimate
    with ties counted half, linear quantiles). Where z0 or the acceleration is not finite (a
    degenerate bootstrap or jackknife distribution) the percentile limits are returned.
    """
    values = np.asarray(values, dtype=float)
    k = values.shape[0]
    low, high = np.full(k, np.nan), np.full(k, np.nan)
    alpha = (1 - level) / 2
    z_alpha = special.ndtri(alpha)
    for c in range(k):
        column = draws[:, c]
        column = column[np.isfinite(column)]
        if column.shape[0] == 0 or not np.isfinite(values[c]):
            continue
        levels = (alpha, 1 - alpha)
        if jackknife is not None:
            z0 = _bias_correction(values[c], column)
            a = _acceleration(jackknife[:, c])
            if np.isfinite(z0) and np.isfinite(a):
                levels = tuple(
                    float(special.ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))))
                    for z in (z_alpha, -z_alpha)
                )
        low[c], high[c] = np.quantile(column, levels)
    return low, high


def bootstrap_p_value(values, draws, jackknife, null: float) -> np.ndarray:
    """Two-sided p-values by inverting the percentile / BCa interval at ``null``.

    The p-value is 1 - the level of the interval whose limit falls on ``null``; the share of
    replicates on either side of ``null`` is kept within [1/(B+1), B/(B+1)], so the smallest
    p-value reported is 2/(B+1) for percentile intervals and that of the interval reaching the
    outermost replicate for BCa; :func:`bootstrap_at_floor` says where no replicate crossed
    ``null`` and the p-value is such a bound.
    """
    values = np.asarray(values, dtype=float)
    out = np.full(values.shape[0], np.nan)
    for c in range(values.shape[0]):
        column = draws[:, c]
        column = column[np.isfinite(column)]
        b = column.shape[0]
        if b == 0 or not np.isfinite(values[c]):
            continue
        share = min(max(_share_below(column, null), 1 / (b + 1)), b / (b + 1))
        tail = share
        if jackknife is not None:
            z0 = _bias_correction(values[c], column)
            a = _acceleration(jackknife[:, c])
            if np.isfinite(z0) and np.isfinite(a):
                w = special.ndtri(share) - z0
                tail = float(special.ndtr(w / (1 + a * w) - z0))
        out[c] = min(1.0, 2 * min(tail, 1 - tail))
    return out


def _share_below(column: np.ndarray, null: float) -> float:
    """Share of the replicates below ``null``, ties counted half."""
    return (np.count_nonzero(column < null) + np.count_nonzero(column <= null)) / (
        2 * column.shape[0]
    )


def bootstrap_at_floor(draws, null: float) -> np.ndarray:
    """Where :func:`bootstrap_p_value` is a resolution bound, not a value: no replicate crossed
    ``null`` (the share beyond it is below 1/(B+1) and was raised to it).

    The p-value reported there is that of the interval whose limit is the outermost replicate
    (2/(B+1) for percentile intervals; with BCa's bias correction and acceleration it can be
    larger, e.g. 0.029 at B = 199): the true p-value is at most that, and a reader must see it
    as "<=", not as an estimate. Columns without a finite replicate are False.

    Parameters
    ----------
    draws : ndarray of shape (B, K)
    null : float

    Returns
    -------
    ndarray of bool, shape (K,)
    """
    draws = np.asarray(draws, dtype=float)
    out = np.zeros(draws.shape[1], dtype=bool)
    for c in range(draws.shape[1]):
        column = draws[:, c][np.isfinite(draws[:, c])]
        b = column.shape[0]
        if b:
            share = _share_below(column, null)
            out[c] = share < 1 / (b + 1) or share > b / (b + 1)
    return out
