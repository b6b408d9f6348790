"""Post-processing a binary risk score towards equal xAUC (Kallus & Zhou 2019, Appendix E).

Two monotone adjustments of one group's scores, both evaluated with :func:`survfair.xauc`:

* the parametric logistic adjustment of Appendix E.1, h(x) = 1 / (1 + exp(-(alpha x + beta))),
  with alpha chosen by scipy to minimise the empirical |ΔxAUC| (the paper: alpha in [0, 5],
  beta = -2), reported as in the paper's Table 3;
* the "equality of opportunity" adjustment of Appendix E.2, h(r) = (G_1^a)^{-1}(G_1^b(r)) for
  group b, which equalises the groups' TPR at every threshold; by Proposition 2 it leaves
  ΔxAUC = AUC^b - AUC^a.
"""

from __future__ import annotations

import math
from dataclasses import field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special

from .._core.deprecation import DEPRECATED, renamed
from .._core.display import html_of
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.kernel import PairOptions, count_pairs, prepare_pairs
from .._core.options import CONFIDENCE_LEVEL, TIED_TOL, OptionTable, integer, real
from .._core.results import json_safe
from .._core.validation import SurvivalSample, check_binary_inputs
from .xauc import XAUCResult, warn_orientation, xauc_from_sample

__all__ = [
    "LogisticAdjustment",
    "EqualOpportunityAdjustment",
    "logistic_adjustment",
    "equal_opportunity_adjustment",
]


def _before_after(before: dict, after: dict) -> pd.DataFrame:
    frame = pd.DataFrame(
        {"metric": list(before), "before": list(before.values()), "after": list(after.values())}
    )
    return frame.assign(change=frame["after"] - frame["before"])


def _summary(result: XAUCResult, a: Any, b: Any) -> dict:
    m = result.matrix
    return {
        "AUC": result.overall,
        f"AUC^{a}": m.loc[a, a],
        f"AUC^{b}": m.loc[b, b],
        f"xAUC({a}, {b})": m.loc[a, b],
        f"xAUC({b}, {a})": m.loc[b, a],
        "ΔxAUC": m.loc[a, b] - m.loc[b, a],
    }


@frozen_result
class LogisticAdjustment:
    """Result of :func:`logistic_adjustment` (Kallus & Zhou 2019, Appendix E.1, Table 3).

    Attributes
    ----------
    a, b : hashable
        The pair whose disparity ΔxAUC = xAUC(a, b) - xAUC(b, a) is minimised.
    adjusted_group : hashable
        The group whose scores were transformed (``a`` or ``b``).
    alpha : float
        The optimal slope alpha*.
    beta : float
        The fixed offset.
    alpha_bounds : tuple of float
        The search range of alpha.
    scores : pandas.Series
        Adjusted scores aligned to the input rows (unchanged outside ``adjusted_group``).
    before, after : XAUCResult
        xAUC results of the original and the adjusted scores.

    See Also
    --------
    logistic_adjustment : computes it.
    """

    a: Any
    b: Any
    adjusted_group: Any
    alpha: float
    beta: float
    alpha_bounds: tuple
    scores: pd.Series = field(repr=False)
    before: XAUCResult = field(repr=False)
    after: XAUCResult = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """Before/after table in the layout of the paper's Table 3, one row per metric.

        Columns metric, before, after, change (after - before); metrics AUC, AUC^a, AUC^b,
        xAUC(a, b), xAUC(b, a), ΔxAUC and alpha (NaN before).
        """
        before = _summary(self.before, self.a, self.b) | {"alpha": math.nan}
        after = _summary(self.after, self.a, self.b) | {"alpha": self.alpha}
        return _before_after(before, after)

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the pair, the fitted transform and the before/after metrics."""
        return json_safe(
            {
                "a": self.a,
                "b": self.b,
                "adjusted_group": self.adjusted_group,
                "alpha": self.alpha,
                "beta": self.beta,
                "alpha_bounds": list(self.alpha_bounds),
                "metrics": self.to_frame().to_dict(orient="records"),
            }
        )


@frozen_result
class EqualOpportunityAdjustment:
    """Result of :func:`equal_opportunity_adjustment` (Kallus & Zhou 2019, Appendix E.2).

    Attributes
    ----------
    a, b : hashable
        Group ``b``'s scores are mapped onto group ``a``'s positive-class score distribution.
    scores : pandas.Series
        Adjusted scores aligned to the input rows (unchanged outside group ``b``).
    before, after : XAUCResult

    See Also
    --------
    equal_opportunity_adjustment : computes it.
    """

    a: Any
    b: Any
    scores: pd.Series = field(repr=False)
    before: XAUCResult = field(repr=False)
    after: XAUCResult = field(repr=False)

    @property
    def predicted_delta(self) -> float:
        """Proposition 2: ΔxAUC after the adjustment equals AUC^b - AUC^a (of the original
        score)."""
        m = self.before.matrix
        return float(m.loc[self.b, self.b] - m.loc[self.a, self.a])

    def to_frame(self) -> pd.DataFrame:
        """Before/after table, one row per metric: columns metric, before, after, change;
        metrics AUC, AUC^a, AUC^b, xAUC(a, b), xAUC(b, a), ΔxAUC and AUC^b - AUC^a (Proposition 2's
        prediction of ΔxAUC after the adjustment)."""
        key = f"AUC^{self.b} - AUC^{self.a} (Prop. 2)"
        before = _summary(self.before, self.a, self.b) | {key: self.predicted_delta}
        after = _summary(self.after, self.a, self.b) | {key: self.predicted_delta}
        return _before_after(before, after)

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the pair, Proposition 2's prediction and the before/after
        metrics."""
        return json_safe(
            {
                "a": self.a,
                "b": self.b,
                "predicted_delta": self.predicted_delta,
                "metrics": self.to_frame().to_dict(orient="records"),
            }
        )


def _check_pair(sample: SurvivalSample, a: Any, b: Any) -> tuple[int, int]:
    codes = []
    for name, label in (("a", a), ("b", b)):
        if label not in sample.groups:
            raise InvalidParameterError(
                f"{name}: group {label!r} does not occur in group (labels present: "
                f"{list(sample.groups)}).",
                parameter=name,
            )
        codes.append(sample.groups.index(label))
    if codes[0] == codes[1]:
        raise InvalidParameterError(
            f"a and b must be different groups, got {a!r} twice.", parameter="a"
        )
    for label, code in zip((a, b), codes):
        members = sample.group_codes == code
        if not (sample.event[members].any() and (~sample.event[members]).any()):
            raise InvalidParameterError(
                f"group {label!r} needs positives and negatives for the adjustment.",
                parameter="a" if label == a else "b",
            )
    return codes[0], codes[1]


def _delta(sample: SurvivalSample, a: int, b: int, risk: np.ndarray, tied_tol: float) -> float:
    """Empirical ΔxAUC of the pair (a, b) for the scores ``risk`` (one kernel call on their
    rows)."""
    rows = (sample.group_codes == a) | (sample.group_codes == b)
    codes = np.where(sample.group_codes[rows] == a, 0, 1)
    prepared = prepare_pairs(sample.time[rows], sample.event[rows], codes, risk[rows], 2, tied_tol)
    counts, _ = count_pairs(prepared, PairOptions())
    values = counts.numerator / counts.denominator
    return float(values[0, 1] - values[1, 0])


def _check_bounds(alpha_bounds: Any) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in alpha_bounds)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"alpha_bounds must be a pair of numbers (low, high), got {alpha_bounds!r}.",
            parameter="alpha_bounds",
        ) from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InvalidParameterError(
            f"alpha_bounds must be finite with low < high, got {alpha_bounds!r}.",
            parameter="alpha_bounds",
        )
    return low, high


#: The scalar options of :func:`logistic_adjustment` (``positive`` and ``adjusted_group`` are
#: labels; ``alpha_bounds`` is a pair, checked in the body).
_LOGISTIC_OPTIONS = OptionTable(
    "logistic_adjustment",
    beta=real(),
    grid=integer(low=2),
    tied_tol=TIED_TOL,
    confidence_level=CONFIDENCE_LEVEL,
)


def logistic_adjustment(
    y: Any,
    group: Any,
    score: Any,
    a: Any,
    b: Any,
    *,
    data: pd.DataFrame | None = None,
    positive: Any = 1,
    adjusted_group: Any = None,
    adjust: Any = DEPRECATED,
    alpha_bounds: tuple[float, float] = (0.0, 5.0),
    beta: float = -2.0,
    grid: int = 101,
    tied_tol: float = 1e-8,
    confidence_level: float = 0.95,
) -> LogisticAdjustment:
    """Parametric logistic post-processing towards equal xAUC (Kallus & Zhou 2019, Appendix E.1).

    The scores of one group are replaced by h(x) = 1 / (1 + exp(-(alpha x + beta))) with
    alpha minimising the empirical |ΔxAUC| = |xAUC(a, b) - xAUC(b, a)| over ``alpha_bounds``
    (the paper: [0, 5], beta = -2). h is increasing for alpha > 0, so within-group AUCs are kept;
    the population AUC may change. |ΔxAUC| is a step function of alpha, so a grid search
    (:func:`scipy.optimize.brute`) is refined by bounded Brent
    (:func:`scipy.optimize.minimize_scalar`) around the best grid point; each evaluation is one
    O(n log n) kernel pass.

    Parameters
    ----------
    y, group, score, data, positive
        As in :func:`survfair.xauc`. Scores are meant to be probabilities (the logistic map is
        applied to the raw score).
    a, b : hashable
        The pair of groups.
    adjusted_group : hashable, optional
        Group to transform, ``a`` or ``b``. Default: the disadvantaged one, whose positives are
        ranked above the other group's negatives less often (smaller xAUC(g, other)).
    adjust : hashable, optional
        Deprecated name of ``adjusted_group`` (removed in 0.3; ``adjust`` names a p-value
        adjustment everywhere else).
    alpha_bounds : (float, float), default=(0.0, 5.0)
        Search range of alpha.
    beta : float, default=-2.0
        Fixed offset.
    grid : int, default=101
        Grid points of the initial search (>= 2).
    tied_tol : float, default=1e-8
    confidence_level : float, default=0.95
        Level of the intervals of the ``before``/``after`` results (the rule of
        :func:`survfair.xauc`: logit-scale Wald for the xAUCs and AUCs, inside (0, 1), raw-scale
        Wald for differences such as ΔxAUC).

    Returns
    -------
    LogisticAdjustment
        ``.alpha``, ``.scores`` (adjusted, aligned to the input rows), ``.before``, ``.after`` and
        ``.to_frame()`` (the paper's Table 3 layout).

    Raises
    ------
    InvalidParameterError
        As :func:`survfair.xauc`; if ``a``/``b`` do not occur, are equal or lack positives or
        negatives; ``adjusted_group`` not in (a, b); invalid ``alpha_bounds``, ``beta`` or ``grid``.

    Warns
    -----
    UserWarning
        As :func:`survfair.xauc`, when the pooled AUC of the original score is below 0.5 (a
        score oriented against ``positive``; the adjustment keeps that orientation).

    See Also
    --------
    equal_opportunity_adjustment : a monotone map onto another group's positive scores.
    xauc : the estimator the adjustment is judged by.
    mitigate.group_shift : the survival analogue (offsets on the risk scale).

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(3)
    >>> y = rng.integers(0, 2, 400)
    >>> group = np.where(rng.random(400) < 0.5, "a", "b")
    >>> score = 1 / (1 + np.exp(-(y + 0.8 * (group == "a") + rng.normal(size=400))))
    >>> adjusted = survfair.logistic_adjustment(y, group, score, "a", "b", grid=21)
    >>> adjusted.adjusted_group
    'b'
    >>> gap = lambda res: abs(res.values[0, 1] - res.values[1, 0])  # |xAUC(a, b) - xAUC(b, a)|
    >>> bool(gap(adjusted.after) < gap(adjusted.before))
    True
    """
    adjusted_group = renamed(
        "logistic_adjustment", "adjust", "adjusted_group", adjust, adjusted_group
    )
    options = _LOGISTIC_OPTIONS.check(locals())
    beta, grid = options["beta"], options["grid"]
    tied_tol, level = options["tied_tol"], options["confidence_level"]
    low, high = _check_bounds(alpha_bounds)
    sample, _ = check_binary_inputs(y, group, score, data=data, positive=positive)
    ca, cb = _check_pair(sample, a, b)
    before = xauc_from_sample(
        sample, positive=positive, tied_tol=tied_tol, confidence_level=level, stacklevel=3
    )
    warn_orientation(before, stacklevel=2)
    if adjusted_group is None:
        m = before.values
        adjusted_group = a if m[ca, cb] <= m[cb, ca] else b
    elif adjusted_group not in (a, b):
        raise InvalidParameterError(
            f"adjusted_group must be one of the pair ({a!r}, {b!r}), got {adjusted_group!r}.",
            parameter="adjusted_group",
        )
    members = sample.group_codes == sample.groups.index(adjusted_group)

    def transformed(alpha: float) -> np.ndarray:
        risk = sample.risk.copy()
        risk[members] = special.expit(alpha * sample.risk[members] + beta)
        return risk

    def objective(alpha) -> float:
        return abs(_delta(sample, ca, cb, transformed(float(np.atleast_1d(alpha)[0])), tied_tol))

    best = float(
        np.atleast_1d(optimize.brute(objective, ((low, high),), Ns=int(grid), finish=None))[0]
    )
    step = (high - low) / (grid - 1)
    refined = optimize.minimize_scalar(
        objective, bounds=(max(low, best - step), min(high, best + step)), method="bounded"
    )
    if refined.success and objective(refined.x) < objective(best):
        best = float(refined.x)
    adjusted = transformed(best)
    after = xauc_from_sample(
        replace(sample, risk=adjusted),
        positive=positive,
        tied_tol=tied_tol,
        confidence_level=level,
        stacklevel=3,
    )
    scores = pd.Series(adjusted, index=sample.index.copy(), name="adjusted_score")
    return LogisticAdjustment(a, b, adjusted_group, best, beta, (low, high), scores, before, after)


def _mid_cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values and their mid-distribution function P[X < u] + P[X = u] / 2 (strictly
    increasing)."""
    unique, counts = np.unique(values, return_counts=True)
    below = np.cumsum(counts) - counts
    return unique, (below + 0.5 * counts) / values.size


def _interp(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """Piecewise-linear interpolation through (xp, fp), extended linearly beyond the ends."""
    if xp.size == 1:
        return fp[0] + (x - xp[0])
    out = np.interp(x, xp, fp)
    low_slope = (fp[1] - fp[0]) / (xp[1] - xp[0])
    high_slope = (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    out = np.where(x < xp[0], fp[0] + (x - xp[0]) * low_slope, out)
    return np.where(x > xp[-1], fp[-1] + (x - xp[-1]) * high_slope, out)


def _equal_opportunity_map(
    source_positives: np.ndarray, target_positives: np.ndarray, x: np.ndarray
) -> np.ndarray:
    """h(x) = (G_1^target)^{-1}(G_1^source(x)), strictly increasing and continuous.

    Inside the range of the source positives, G_1^source is the (mid-distribution, linearly
    interpolated) empirical survival function and the inverse of G_1^target its counterpart;
    outside, h continues with slope 1, so h is increasing everywhere and keeps the source
    group's ranking (and its within-group AUC).
    """
    source, p_source = _mid_cdf(source_positives)
    target, p_target = _mid_cdf(target_positives)
    knots = _interp(
        p_source, p_target, target
    )  # F_1^target^{-1}(F_1^source(u)) at the source knots
    out = np.interp(x, source, knots)
    out = np.where(x < source[0], knots[0] + (x - source[0]), out)
    return np.where(x > source[-1], knots[-1] + (x - source[-1]), out)


#: The scalar options of :func:`equal_opportunity_adjustment` (``positive`` is a label).
_EQUAL_OPPORTUNITY_OPTIONS = OptionTable(
    "equal_opportunity_adjustment", tied_tol=TIED_TOL, confidence_level=CONFIDENCE_LEVEL
)


def equal_opportunity_adjustment(
    y: Any,
    group: Any,
    score: Any,
    a: Any,
    b: Any,
    *,
    data: pd.DataFrame | None = None,
    positive: Any = 1,
    tied_tol: float = 1e-8,
    confidence_level: float = 0.95,
) -> EqualOpportunityAdjustment:
    """Equality-of-opportunity post-processing (Kallus & Zhou 2019, Appendix E.2, Proposition 2).

    Group ``b``'s scores are mapped by h(r) = (G_1^a)^{-1}(G_1^b(r)), where G_1^g(r) = P[R > r |
    A = g, Y = 1], so that every threshold gives both groups the same true positive rate
    (Hardt et al. 2016); group ``a`` is unchanged. Proposition 2: afterwards
    xAUC(a, b) = AUC^b, xAUC(b, a) = AUC^a, hence ΔxAUC = AUC^b - AUC^a (within-group AUCs of the
    original score). Empirically the identity holds up to the discreteness of the empirical
    distributions.

    Parameters
    ----------
    y, group, score, data, positive, tied_tol, confidence_level
        As in :func:`survfair.xauc` (the same interval rule for the ``before``/``after`` results).
    a : hashable
        Reference group (unchanged).
    b : hashable
        Adjusted group.

    Returns
    -------
    EqualOpportunityAdjustment
        ``.scores`` (aligned to the input rows), ``.before``, ``.after``, ``.predicted_delta``
        (AUC^b - AUC^a) and ``.to_frame()``.

    Raises
    ------
    InvalidParameterError
        As :func:`survfair.xauc`; if ``a``/``b`` do not occur, are equal or lack positives or
        negatives.

    Warns
    -----
    UserWarning
        As :func:`survfair.xauc`, when the pooled AUC of the original score is below 0.5 (a
        score oriented against ``positive``).

    See Also
    --------
    logistic_adjustment : a parametric adjustment of one group's scores.
    xauc : the estimator the adjustment is judged by.
    mitigate.group_monotone : the survival analogue.

    Notes
    -----
    G_1^b and (G_1^a)^{-1} are the empirical positive-class distributions made continuous by
    linear interpolation between mid-ranks, so h is strictly increasing (group b's ranking and
    AUC^b are kept); beyond the range of group b's positives h continues with slope 1.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(3)
    >>> y = rng.integers(0, 2, 400)
    >>> group = np.where(rng.random(400) < 0.5, "a", "b")
    >>> score = 1 / (1 + np.exp(-(y + 0.8 * (group == "a") + rng.normal(size=400))))
    >>> adjusted = survfair.equal_opportunity_adjustment(y, group, score, "a", "b")
    >>> list(adjusted.to_frame().columns)[:3]
    ['metric', 'before', 'after']
    """
    options = _EQUAL_OPPORTUNITY_OPTIONS.check(locals())
    tied_tol, level = options["tied_tol"], options["confidence_level"]
    sample, _ = check_binary_inputs(y, group, score, data=data, positive=positive)
    ca, cb = _check_pair(sample, a, b)
    before = xauc_from_sample(
        sample, positive=positive, tied_tol=tied_tol, confidence_level=level, stacklevel=3
    )
    warn_orientation(before, stacklevel=2)
    in_a, in_b = sample.group_codes == ca, sample.group_codes == cb
    adjusted = sample.risk.copy()
    adjusted[in_b] = _equal_opportunity_map(
        sample.risk[in_b & sample.event], sample.risk[in_a & sample.event], sample.risk[in_b]
    )
    after = xauc_from_sample(
        replace(sample, risk=adjusted),
        positive=positive,
        tied_tol=tied_tol,
        confidence_level=level,
        stacklevel=3,
    )
    scores = pd.Series(adjusted, index=sample.index.copy(), name="adjusted_score")
    return EqualOpportunityAdjustment(a, b, scores, before, after)
