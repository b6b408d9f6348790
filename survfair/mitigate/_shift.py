"""Group shifts of a risk score: per-group additive offsets chosen to optimise a fairness objective.

The search never counts pairs itself: every evaluation of the objective runs the shifted scores
through :func:`survfair._xci.estimate_xci` (the O(G n log n) kernel), with the censoring curves
fitted once on the fitting sample (they do not depend on the risk).

Why the two-group search is exact
---------------------------------
Shift group k by an offset d (risk_i + d for every member i of k). For any pair (i, j) with one
member in k and the other in another group h, the pair's score 1[concordant] + 1/2 1[tied] is a
monotone step function of d: non-increasing when the member of k is the *later* one (cells (h, k))
and non-decreasing when it is the *earlier* one (cells (k, h)). This holds for the computed
floating-point comparisons too, because rounding fl(r + d) is monotone in d. Pairs not involving
k do not change at all. Hence

* every cell of the G x G matrix is a monotone step function of d, and the integer pair counts
  (concordant, concordant + tied) of all cells, taken together, are constant on an interval
  [lo, hi] of offsets if and only if they are equal at lo and hi;
* on such an interval every cell lies between its values at the two ends, so each objective has
  an exact upper bound there (``_Objective.bound``).

A best-first branch and bound over offsets (split intervals at their midpoint; an interval whose
two ends have the same counts is a single plateau and is closed; an interval whose bound does not
exceed the best value found is pruned) therefore returns the global optimum over *all* offsets,
i.e. over all O(n_a n_b) breakpoints r_i - r_j +- tied_tol, while evaluating the objective only at
the offsets it needs. Precisely: exact over every plateau at least ``resolution`` wide
(1e-10 x search range + 1e-12 x max|risk|); narrower plateaus are single offsets where breakpoints
coincide (discrete scores) or floating-point artefacts of fl(r + d), and are not examined. The
search stops with a certified optimality gap of 0 unless the evaluation budget runs out first, in
which case the remaining gap (largest open bound minus best value) is reported in
``optimality_gap``.

With more than two groups the objective is a piecewise-constant function of G - 1 offsets. A
global search by :func:`scipy.optimize.differential_evolution` (fixed seed, no gradient polish)
is followed by exact coordinate-wise branch and bound (one group's offset at a time, the others
fixed) until no single offset can improve the objective. The result is a coordinate-wise optimum,
not a certified global one.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .._censoring import CensoringCurves, fit_censoring
from .._exceptions import PositivityWarning
from .._results import XCIResult
from .._summaries import (
    OBJECTIVES,
    contrast,
    delta_between,
    delta_within,
    group_utilities,
    max_abs_delta_between,
    min_xci,
    utility,
)
from .._validation import (
    SurvivalSample,
    as_numeric,
    describe_rows,
    check_option,
    check_survival_inputs,
    check_random_state,
    check_scalar,
    gather_inputs,
    input_index,
    unmasked,
)
from .._settings import EstimatorSettings
from .._xci import estimate_xci, xci

__all__ = ["group_shift", "GroupShift", "OBJECTIVES"]


#: Default budget of objective evaluations of one exact line search.
MAX_EVALUATIONS = 3000

#: Intervals of offsets narrower than RESOLUTION_RELATIVE * (search range) + RESOLUTION_ULPS * max|risk|
#: are not split: plateaus that narrow are rounding artefacts of fl(r + d) (see exact_line_search).
RESOLUTION_RELATIVE = 1e-10
RESOLUTION_ULPS = 1e-12


# -- option checks -----------------------------------------------------------------------------


def check_weights(alpha: Any, beta: Any) -> tuple[float, float]:
    """Validate the utility weights: finite, >= 0, not both 0."""
    alpha, beta = check_scalar(alpha, "alpha", low=0), check_scalar(beta, "beta", low=0)
    if alpha == 0 and beta == 0:
        raise ValueError("alpha and beta must not both be 0: every utility would be 0.")
    return alpha, beta


def check_reference(reference: Any, groups: tuple) -> int:
    """Index of the reference group (default: the first group in matrix order)."""
    if reference is None:
        return 0
    try:
        return groups.index(reference)
    except ValueError:
        raise ValueError(f"reference: group {reference!r} does not occur (groups: {list(groups)}).") from None


# -- samples: the fitting and the evaluation part --------------------------------------------


def subsample(sample: SurvivalSample, rows: np.ndarray) -> SurvivalSample:
    """Rows ``rows`` (boolean mask) of a validated sample, keeping the group order."""
    return SurvivalSample(
        time=np.ascontiguousarray(sample.time[rows]),
        event=np.ascontiguousarray(sample.event[rows]),
        group_codes=np.ascontiguousarray(sample.group_codes[rows]),
        groups=sample.groups,
        risk=None if sample.risk is None else np.ascontiguousarray(sample.risk[rows]),
        index=sample.index[rows],
    )


def _fit_rows(fit_on: Any, n: int) -> np.ndarray:
    if isinstance(fit_on, np.ma.MaskedArray):  # masked entries are missing, never their hidden values
        fit_on = unmasked(fit_on, "fit_on")
    values = fit_on.to_numpy() if isinstance(fit_on, (pd.Series, pd.Index)) else np.asarray(fit_on)
    if values.ndim != 1:
        raise ValueError(f"fit_on must be 1-D (a mask or row positions), got shape {values.shape}.")
    if values.dtype.kind == "b":
        if values.shape[0] != n:
            raise ValueError(f"fit_on: a boolean mask must have one entry per row ({n}), got {values.shape[0]}.")
        return values.astype(bool)
    if values.dtype.kind not in "iu":
        raise TypeError(
            "fit_on must be a boolean mask, integer row positions, a DataFrame or a tuple "
            f"(time, event, group, risk); got an array of dtype {values.dtype}."
        )
    outside = (values < 0) | (values >= n)
    if outside.any():
        raise ValueError(f"fit_on: row positions must be in [0, {n}); out of range at entries {describe_rows(outside)}.")
    if np.unique(values).shape[0] != values.shape[0]:
        raise ValueError("fit_on: row positions contain duplicates.")
    mask = np.zeros(n, bool)
    mask[values] = True
    return mask


def _require_all_groups(sample: SurvivalSample, name: str) -> None:
    present = np.bincount(sample.group_codes, minlength=sample.n_groups)
    missing = [g for g, count in zip(sample.groups, present) if count == 0]
    if missing:
        raise ValueError(f"{name} has no row of groups {missing}; every group needs rows there.")


def split_samples(
    time: Any, event: Any, group: Any, risk: Any, data: pd.DataFrame | None, fit_on: Any
) -> tuple[SurvivalSample, SurvivalSample | None, np.ndarray | None]:
    """Validate the inputs and split them into (fitting sample, evaluation sample or None, fit mask).

    ``fit_on`` None: fit on everything, no evaluation sample. A boolean mask or integer positions:
    fit on those rows, evaluate on the others. A DataFrame (same column names) or a tuple
    (time, event, group, risk): fit on that separate data set, evaluate on the main inputs.
    """
    sample, _ = check_survival_inputs(time, event, group, risk, data=data)
    if fit_on is None:
        return sample, None, None
    if isinstance(fit_on, str):  # a boolean column of data, like every other argument
        if data is None:
            raise ValueError(f"fit_on is a column name ({fit_on!r}), so data must be given.")
        if fit_on not in data.columns:
            raise ValueError(f"fit_on: column {fit_on!r} is not in data (columns: {list(data.columns)}).")
        fit_on = data[fit_on]
        if fit_on.dtype.kind != "b":
            raise TypeError(f"fit_on: column {fit_on.name!r} must be boolean (True = fitting row), got {fit_on.dtype}.")
    if isinstance(fit_on, pd.Series) and fit_on.dtype.kind == "b":  # a mask is per row: same index rule
        input_index({"time": time, "event": event, "group": group, "risk": risk, "fit_on": fit_on}, data)
    if isinstance(fit_on, pd.DataFrame) or (isinstance(fit_on, tuple) and len(fit_on) == 4):
        if isinstance(fit_on, pd.DataFrame):
            names = (time, event, group, risk)
            if not all(isinstance(v, (str, list)) for v in names):
                raise TypeError("fit_on is a DataFrame, so time, event, group and risk must be column names of data.")
            fit_sample, excluded = check_survival_inputs(*names, data=fit_on, groups=None)
        else:
            fit_sample, excluded = check_survival_inputs(*fit_on, data=None, groups=None)
        unknown = [g for g in sample.groups if g not in fit_sample.groups]
        if unknown:
            raise ValueError(f"fit_on has no row of groups {unknown}, which occur in the evaluation data.")
        # re-encode the fitting data in the evaluation data's group order
        order = [fit_sample.groups.index(g) for g in sample.groups]
        remap = np.full(fit_sample.n_groups, -1, np.intp)
        remap[order] = np.arange(len(order))
        codes = remap[fit_sample.group_codes]
        keep = codes >= 0
        if not keep.all():
            extra = sorted({fit_sample.groups[c] for c in fit_sample.group_codes[~keep]}, key=str)
            raise ValueError(f"fit_on has groups {extra} that do not occur in the evaluation data.")
        fit_sample = dataclasses.replace(fit_sample, group_codes=codes, groups=sample.groups)
        return fit_sample, sample, None
    mask = _fit_rows(fit_on, sample.n_samples)
    if mask.all():
        raise ValueError("fit_on selects every row, leaving none for evaluation; pass fit_on=None to fit in-sample.")
    if not mask.any():
        raise ValueError("fit_on selects no row to fit on.")
    fit_sample, eval_sample = subsample(sample, mask), subsample(sample, ~mask)
    _require_all_groups(fit_sample, "the fitting part of fit_on")
    _require_all_groups(eval_sample, "the evaluation part (rows not in fit_on)")
    return fit_sample, eval_sample, mask


# -- objectives --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Objective:
    """An objective to MAXIMISE, as a function of the xCI matrix, with an exact interval bound.

    ``value(M)`` is the objective at a matrix M (G x G, cells defined off the diagonal); ``bound(lo,
    hi)`` is an upper bound of ``value`` over every matrix whose cells lie between ``lo`` and ``hi``
    elementwise (used on an interval of offsets on which every cell is monotone). ``report(v)``
    turns the internal value into the reported one (e.g. -max|Δbetween| -> max|Δbetween|).
    """

    name: str
    value: Callable[[np.ndarray], float]
    bound: Callable[[np.ndarray, np.ndarray], float]
    report: Callable[[float], float]


def _offdiagonal(g: int) -> np.ndarray:
    return ~np.eye(g, dtype=bool)


def _log(values: np.ndarray) -> float:
    with np.errstate(divide="ignore"):
        return float(np.sum(np.log(values)))


def make_objective(name: str, alpha: float, beta: float, weights: np.ndarray, lam: float | None = None) -> _Objective:
    """Build an objective; ``weights`` are the Proposition 4.1 cell weights of the pooled C.

    ``name="penalized"`` (used by the λ frontier): pooled C - lam * max |Δbetween|.
    """
    g = weights.shape[0]
    off = _offdiagonal(g)
    upper = np.triu(np.ones((g, g), bool), 1)

    def max_gap(m):
        return float(max_abs_delta_between(m))

    def gap_lower(lo, hi):  # smallest |x_ab - x_ba| when both cells range over their intervals
        low, high = np.minimum(lo, hi), np.maximum(lo, hi)
        distance = np.maximum(0.0, np.maximum(low - high.T, low.T - high))
        return float(np.max(distance[upper]))

    def pooled(m):
        return float(np.nansum(weights * m))

    if name == "abs_delta_between":
        return _Objective(name, lambda m: -max_gap(m), lambda lo, hi: -gap_lower(lo, hi), lambda v: -v)
    if name == "min_xci":
        # the diagonal is invariant under shifts, so maximising the smallest cross cell maximises min-xCI
        return _Objective(
            name, lambda m: float(np.min(m[off])), lambda lo, hi: float(np.min(np.maximum(lo, hi)[off])), lambda v: v
        )
    if name == "min_utility":
        return _Objective(
            name,
            lambda m: float(np.min(group_utilities(m, alpha, beta))),
            lambda lo, hi: float(np.min(group_utilities(np.maximum(lo, hi), alpha, beta))),
            lambda v: v,
        )
    if name == "nash_welfare":  # maximise sum log U(a); reported as the product of utilities
        return _Objective(
            name,
            lambda m: _log(group_utilities(m, alpha, beta)),
            lambda lo, hi: _log(group_utilities(np.maximum(lo, hi), alpha, beta)),
            lambda v: math.exp(v),
        )
    if name == "penalized":
        return _Objective(
            name,
            lambda m: pooled(m) - lam * max_gap(m),
            lambda lo, hi: pooled(np.maximum(lo, hi)) - lam * gap_lower(lo, hi),
            lambda v: v,
        )
    raise ValueError(f"objective must be one of {list(OBJECTIVES)}, got {name!r}.")


# -- the fitting problem -----------------------------------------------------------------------


@dataclass(frozen=True)
class _State:
    """Everything the search needs about one offset vector."""

    values: np.ndarray  # (G, G) xCI cells
    key: bytes  # integer concordant and concordant + tied counts; equal keys <=> same plateau


class ShiftProblem:
    """Evaluates the xCI matrix of a sample whose groups are shifted by offsets (kernel calls only)."""

    def __init__(self, sample: SurvivalSample, settings: EstimatorSettings):
        self.sample = sample
        self.settings = settings
        self.curves: CensoringCurves | None = None
        if settings.method == "ipcw":
            self.curves = fit_censoring(sample, settings.censoring)
        self.n_evaluations = 0
        base = self._counts(np.zeros(sample.n_groups))
        self.denominator = np.array(base.denominator)
        missing = (self.denominator == 0) & _offdiagonal(sample.n_groups)
        if missing.any():
            cells = ", ".join(f"({sample.groups[a]!r}, {sample.groups[b]!r})" for a, b in np.argwhere(missing))
            raise ValueError(
                f"the fitting sample has no (weighted) comparable pair in the cross-group cells {cells}; "
                "their xCI is undefined, so offsets cannot be fitted."
            )
        self.weights = self.denominator / self.denominator.sum()

    def _counts(self, offsets: np.ndarray):
        risk = self.sample.risk + offsets[self.sample.group_codes]
        shifted = dataclasses.replace(self.sample, risk=risk)
        self.n_evaluations += 1
        return estimate_xci(
            shifted, method=self.settings.method, tau=self.settings.tau, curves=self.curves,
            tied_tol=self.settings.tied_tol, strict=self.settings.strict,
        )

    def evaluate(self, offsets: np.ndarray) -> _State:
        counts = self._counts(np.asarray(offsets, dtype=float))
        with np.errstate(invalid="ignore", divide="ignore"):
            values = counts.numerator / counts.denominator
        key = np.concatenate([counts.concordant.ravel(), (counts.concordant + counts.tied_risk).ravel()]).tobytes()
        return _State(values, key)

    def coordinate_range(self, offsets: np.ndarray, k: int) -> tuple[float, float]:
        """Offsets of group k beyond which no cross pair of k changes (others fixed), padded."""
        risk = self.sample.risk + offsets[self.sample.group_codes]
        own = self.sample.group_codes == k
        mine, others = self.sample.risk[own], risk[~own]
        lo, hi = float(others.min() - mine.max()), float(others.max() - mine.min())
        pad = 1e-3 * (hi - lo) + 4 * self.settings.tied_tol + 1e-12 * max(1.0, abs(lo), abs(hi))
        return lo - pad, hi + pad


@dataclass(frozen=True)
class LineSearch:
    """Outcome of the exact search over one group's offset."""

    offset: float
    value: float
    gap: float
    plateau: tuple[float, float]
    n_evaluations: int


def exact_line_search(
    problem: ShiftProblem, objective: _Objective, offsets: np.ndarray, k: int, *, max_evaluations: int
) -> LineSearch:
    """Best offset of group k (others fixed): best-first branch and bound over plateaus.

    Exact over every plateau of the search range (beyond it nothing changes) at least
    ``resolution`` wide; see the module docstring for why the bounds are valid. Narrower plateaus
    are not examined: in exact arithmetic they are single offsets at which several breakpoints
    r_i - r_j +- tied_tol coincide, and in floating point (where fl(r + d) rounds differently for
    different r) spurious plateaus a few ulps wide, which would make the "optimum" a rounding
    artefact for discrete scores. Returns the midpoint of the plateau (maximal interval of offsets
    with the same pair counts) that contains the best offset found.
    """
    start = problem.n_evaluations
    cache: dict[float, _State] = {}

    def state(d: float) -> _State:
        if d not in cache:
            trial = offsets.copy()
            trial[k] = d
            cache[d] = problem.evaluate(trial)
        return cache[d]

    lo, hi = problem.coordinate_range(offsets, k)
    current = float(offsets[k])
    lo, hi = min(lo, current), max(hi, current)
    magnitude = max(float(np.max(np.abs(problem.sample.risk))), abs(lo), abs(hi))
    resolution = RESOLUTION_RELATIVE * (hi - lo) + RESOLUTION_ULPS * magnitude
    banned: set[bytes] = set()  # counts seen only on plateaus narrower than the resolution

    def value_at(d: float) -> float:
        st = state(d)
        return -math.inf if st.key in banned else objective.value(st.values)

    while True:
        best_d, best_value = current, value_at(current)
        for d in (lo, hi):
            value = value_at(d)
            if value > best_value:
                best_d, best_value = d, value
        heap: list[tuple[float, float, float]] = []

        def push(a: float, b: float) -> None:
            sa, sb = state(a), state(b)
            if sa.key != sb.key and b - a > resolution:
                heapq.heappush(heap, (-objective.bound(sa.values, sb.values), a, b))

        if lo < current < hi:
            push(lo, current)
            push(current, hi)
        else:
            push(lo, hi)
        gap = 0.0
        while heap:
            negative_bound, a, b = heap[0]
            if -negative_bound <= best_value:
                break
            if problem.n_evaluations - start >= max_evaluations:
                gap = -negative_bound - best_value
                break
            heapq.heappop(heap)
            mid = a + (b - a) / 2
            value = value_at(mid)
            if value > best_value:
                best_d, best_value = mid, value
            push(a, mid)
            push(mid, b)
        plateau = _plateau(state, best_d, lo, hi, cache, resolution)
        if plateau[1] - plateau[0] >= resolution or problem.n_evaluations - start >= max_evaluations:
            break
        # a rounding artefact: fl(r + d) splits breakpoints that coincide in exact arithmetic
        # (discrete scores) into plateaus a few ulps wide; exclude it and search again (cache reused)
        banned.add(state(best_d).key)

    offset = plateau[0] + (plateau[1] - plateau[0]) / 2
    return LineSearch(offset, best_value, float(gap), plateau, problem.n_evaluations - start)


def _plateau(
    state: Callable[[float], _State], d: float, lo: float, hi: float, cache: dict, resolution: float
) -> tuple[float, float]:
    """Interval of offsets (within [lo, hi]) with the same pair counts as ``d``, to ``resolution``.

    The counts are monotone in the offset, so their level sets are intervals; each end is found by
    bisection between ``d`` and the nearest evaluated offset with different counts, until the two
    are within ``resolution`` (the returned ends are inside the plateau).
    """
    key = state(d).key
    ends = []
    for side in (-1, 1):
        differing = [x for x in cache if (x - d) * side > 0 and cache[x].key != key]
        if not differing:
            ends.append(lo if side < 0 else hi)
            continue
        outside = max(differing) if side < 0 else min(differing)
        # evaluated offsets between d and ``outside`` with the same counts lie on the plateau
        same = [x for x in cache if cache[x].key == key and (x - d) * side >= 0 and (outside - x) * side > 0]
        inside = max(same) if side > 0 else min(same)
        while abs(outside - inside) > resolution:
            mid = inside + (outside - inside) / 2
            if mid == inside or mid == outside:
                break
            if state(mid).key == key:
                inside = mid
            else:
                outside = mid
        ends.append(inside)
    return ends[0], ends[1]


def fit_offsets(
    problem: ShiftProblem,
    objective: _Objective,
    reference: int,
    *,
    max_evaluations: int,
    random_state: Any,
) -> dict:
    """Offsets optimising ``objective`` on the problem's sample (reference group fixed at 0)."""
    g = problem.sample.n_groups
    offsets = np.zeros(g)
    free = [k for k in range(g) if k != reference]
    if g == 1:
        raise ValueError("group: only one group; a group shift needs at least two groups.")
    if g == 2:
        search = exact_line_search(problem, objective, offsets, free[0], max_evaluations=max_evaluations)
        offsets[free[0]] = search.offset
        return {
            "offsets": offsets, "value": search.value, "gap": search.gap, "plateau": search.plateau,
            "search": "exact branch and bound over all breakpoints (two groups)",
        }
    from scipy.optimize import differential_evolution

    bounds = [problem.coordinate_range(offsets, k) for k in free]

    def loss(x):
        trial = np.zeros(g)
        trial[free] = x
        return -objective.value(problem.evaluate(trial).values)

    found = differential_evolution(
        loss, bounds, seed=np.random.default_rng(check_random_state(random_state)), polish=False, maxiter=30, popsize=8, tol=0, init="sobol"
    )
    offsets[free] = found.x
    value = objective.value(problem.evaluate(offsets).values)
    for _sweep in range(20):
        improved = False
        for k in free:
            search = exact_line_search(problem, objective, offsets, k, max_evaluations=max_evaluations)
            if search.value > value:
                offsets[k], value, improved = search.offset, search.value, True
        if not improved:
            break
    value = objective.value(problem.evaluate(offsets).values)
    return {
        "offsets": offsets, "value": value, "gap": math.nan, "plateau": None,
        "search": "differential evolution (scipy, fixed seed) + exact coordinate-wise branch and bound",
    }


# -- before / after table ----------------------------------------------------------------------


def _labels(sample: SurvivalSample) -> np.ndarray:
    return np.array(sample.groups + (None,), dtype=object)[:-1][sample.group_codes]


def _result(sample: SurvivalSample, risk: np.ndarray, settings: EstimatorSettings, xci_kwargs: dict) -> XCIResult:
    return xci(
        sample.time, sample.event, _labels(sample), risk, method=settings.method, tau=settings.tau,
        censoring=settings.censoring, tied_tol=settings.tied_tol, strict=settings.strict,
        groups=sample.groups, **xci_kwargs,
    )


def _pooled_estimate(result: XCIResult):
    """The pooled C as the Proposition 4.1 contrast of the cells (so it carries se and interval)."""
    denominator = np.array(result.pair_counts.denominator, dtype=float)
    defined = ~np.isnan(result.values)
    weights = np.where(defined, denominator, 0.0) / denominator[defined].sum()
    return contrast(result, weights, null=0.5)


def _summary_rows(result: XCIResult, alpha: float, beta: float) -> list[tuple]:
    """(metric, a, b, value, se, ci_low, ci_high) rows of one result."""
    rows = []
    g = len(result.groups)
    for i, a in enumerate(result.groups):
        for j, b in enumerate(result.groups):
            weights = np.zeros((g, g))
            weights[i, j] = 1.0
            e = contrast(result, weights, null=0.5)
            rows.append(("xci", a, b, e.value, e.se, *e.confidence_interval))
    for i, a in enumerate(result.groups):
        for b in result.groups[i + 1:]:
            for name, function in (("delta_within", delta_within), ("delta_between", delta_between)):
                e = function(result, a, b)
                rows.append((name, a, b, e.value, e.se, *e.confidence_interval))
    m = min_xci(result)
    rows.append(("min_xci", None, None, m.value, m.estimate.se, *m.estimate.confidence_interval))
    e = _pooled_estimate(result)
    rows.append(("overall", None, None, e.value, e.se, *e.confidence_interval))
    for a, row in utility(result, alpha, beta).iterrows():
        rows.append(("utility", a, None, row["value"], row["se"], row["ci_low"], row["ci_high"]))
    return rows


def _rows_frame(rows: list[tuple], columns: list[str]) -> pd.DataFrame:
    """DataFrame of summary rows; group labels stay as given (object dtype, None where not applicable)."""
    frame = pd.DataFrame([row[3:] for row in rows], columns=columns[3:], dtype=float)
    for position, name in enumerate(columns[:3]):
        frame.insert(position, name, pd.Series([row[position] for row in rows], dtype=object))
    return frame


def before_after_table(
    samples: Sequence[tuple[str, SurvivalSample, np.ndarray]],
    settings: EstimatorSettings,
    alpha: float,
    beta: float,
    xci_kwargs: dict,
) -> tuple[pd.DataFrame, dict]:
    """Tidy before/after table over the named samples; also returns the XCIResults."""
    frames, results = [], {}
    columns = ["metric", "a", "b", "value", "se", "ci_low", "ci_high"]
    for name, sample, adjusted in samples:
        before = _result(sample, sample.risk, settings, xci_kwargs)
        with warnings.catch_warnings():
            # the censoring curves do not depend on the risk: their warnings were given for "before"
            warnings.simplefilter("ignore", PositivityWarning)
            after = _result(sample, adjusted, settings, xci_kwargs)
        results[name] = (before, after)
        b, a = (_rows_frame(_summary_rows(r, alpha, beta), columns) for r in (before, after))
        frame = b[["metric", "a", "b"]].copy()
        frame.insert(0, "sample", name)
        frame["before"] = b["value"]
        frame["after"] = a["value"]
        frame["change"] = a["value"] - b["value"]
        for stage, part in (("before", b), ("after", a)):
            for column in ("se", "ci_low", "ci_high"):
                frame[f"{stage}_{column}"] = part[column]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True), results


# -- transform ---------------------------------------------------------------------------------


def check_transform_inputs(risk: Any, group: Any, data: pd.DataFrame | None, groups: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Validate (risk, group) for ``transform``; returns float risks and group codes (same rows)."""
    raw, index = gather_inputs({"risk": risk, "group": group}, data)
    risk_raw, group_raw = raw["risk"], raw["group"]
    values = as_numeric(risk_raw, "risk", index)
    lookup = {label: k for k, label in enumerate(groups)}
    codes = np.array([lookup.get(label, -1) for label in pd.Series(group_raw, dtype=object)], dtype=np.intp)
    unknown = codes < 0
    if unknown.any():
        labels = sorted({str(v) for v in np.asarray(group_raw, dtype=object)[unknown]})
        raise ValueError(
            f"group: labels {labels} were not seen when fitting (groups: {list(groups)}), at {describe_rows(unknown, index)}."
        )
    return values, codes


def format_table(table: pd.DataFrame) -> str:
    shown = table[["sample", "metric", "a", "b", "before", "after", "change"]].copy()
    shown[["a", "b"]] = shown[["a", "b"]].map(lambda v: "" if v is None else v)
    with pd.option_context("display.width", 140, "display.max_rows", 200):
        return shown.to_string(index=False, float_format="{:.4f}".format, na_rep="")


# -- the adjuster --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupShift:
    """A fitted group shift: risk_i + offset[group_i], one offset per group (reference at 0).

    Attributes
    ----------
    groups : tuple
        Group labels, in matrix order.
    reference : object
        The group whose offset is fixed at 0.
    objective : str
        The objective optimised on the fitting sample.
    alpha, beta : float
        Utility weights (used by the utility objectives and the table's utility rows).
    objective_before, objective_after : float
        The objective on the fitting sample before and after the shift (max |Δbetween| for
        ``"abs_delta_between"``, min-xCI, the smallest utility, or the product of utilities).
    optimality_gap : float
        Two groups: a certified bound on how far ``objective_after`` can be from the best value over
        all offsets (0.0 = exact optimum). More groups: NaN (coordinate-wise optimum only).
    plateau : tuple (low, high) or None
        Two groups: the interval of offsets of the shifted group with exactly the same pair counts on
        the fitting sample as the chosen offset (its midpoint is chosen).
    search : str
        How the offsets were found.
    n_evaluations : int
        Kernel evaluations used by the search.
    settings : EstimatorSettings
        The xCI estimator's settings (method, tau, censoring, tied_tol, strict).
    n_fit, n_evaluation : int
        Rows of the fitting and the evaluation sample (0 without an evaluation sample).

    Notes
    -----
    The offsets are chosen to be best *on the fitting sample*, so the "fit" rows of
    :attr:`before_after` are optimistic: the fitted offset adapts to the sampling noise of that
    sample (the winner's curse of any data-driven selection; with two groups the chosen plateau is
    where the noisy empirical cells happen to cross). Judge a mitigation by the "evaluation" rows,
    computed on data not used for fitting (``fit_on=``).
    """

    groups: tuple
    reference: Any
    objective: str
    alpha: float
    beta: float
    offset_values: tuple = field(repr=False)
    objective_before: float
    objective_after: float
    optimality_gap: float
    plateau: tuple | None
    search: str = field(repr=False)
    n_evaluations: int = field(repr=False)
    settings: EstimatorSettings = field(repr=False)
    n_fit: int
    n_evaluation: int
    table: pd.DataFrame = field(repr=False)
    results: dict = field(repr=False, default_factory=dict)

    @property
    def offsets(self) -> pd.Series:
        """Offset added to every member's risk, indexed by group (reference group: 0)."""
        index = pd.Index(list(self.groups), name="group", tupleize_cols=False)
        return pd.Series(np.array(self.offset_values, dtype=float), index=index, name="offset")

    @property
    def before_after(self) -> pd.DataFrame:
        """Tidy before/after table (a copy).

        One row per (sample, metric, a, b): samples "fit" and, with ``fit_on``, "evaluation";
        metrics every xCI cell ("xci", a = earlier group, b = later group), "delta_within" and
        "delta_between" for every pair a < b, "min_xci", "overall" (the pooled C, Proposition 4.1) and "utility"
        (per group a). Columns before, after, change and the se / ci_low / ci_high of both
        (NaN until the estimator is asked for inference through ``**xci_kwargs``).
        """
        return self.table.copy()

    def transform(self, risk: Any, group: Any, *, data: pd.DataFrame | None = None) -> np.ndarray:
        """Shifted risks risk_i + offset[group_i], same length and row order as the input.

        Parameters
        ----------
        risk : array-like of shape (n_samples,) or column name
            Risk scores (higher = earlier event).
        group : array-like of shape (n_samples,), column name, or list of column names
            Group labels; every label must be one of :attr:`groups`.
        data : pandas.DataFrame, optional
            Table in which string arguments are column names. Rows are matched by position;
            pandas inputs (and ``data``) whose indexes are not identical (same labels, same
            order) are refused with a ValueError, never aligned.

        Returns
        -------
        ndarray of shape (n_samples,), float64

        Raises
        ------
        ValueError
            On mismatched lengths, NaN/inf risks, or group labels not seen when fitting (naming the rows).
        TypeError
            For non-numeric risks.
        """
        values, codes = check_transform_inputs(risk, group, data, self.groups)
        return values + np.asarray(self.offset_values, dtype=float)[codes]

    def __repr__(self) -> str:
        offsets = ", ".join(f"{g!r}: {v:+.6g}" for g, v in zip(self.groups, self.offset_values))
        return (
            f"GroupShift(objective={self.objective!r}, reference={self.reference!r}, offsets={{{offsets}}}, "
            f"objective {self.objective_before:.4g} -> {self.objective_after:.4g} on the fitting sample, "
            f"optimality_gap={self.optimality_gap:.3g}, n_fit={self.n_fit}, n_evaluation={self.n_evaluation})\n"
            + format_table(self.table)
        )


def group_shift(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    objective: str = "abs_delta_between",
    alpha: float = 1.0,
    beta: float = 1.0,
    method: str = "ipcw",
    tau: float | None = None,
    censoring: str = "group",
    tied_tol: float = 1e-8,
    strict: bool = False,
    reference: Any = None,
    fit_on: Any = None,
    max_evaluations: int = MAX_EVALUATIONS,
    random_state: Any = None,
    **xci_kwargs: Any,
) -> GroupShift:
    """Fit per-group additive offsets on the risk scale that optimise a cross-group fairness objective.

    The adjusted score is ``risk_i + offset[group_i]`` with the reference group's offset fixed at 0.
    By Proposition 5.1 of Wang et al. (2026) a group shift trades xCI_{a,b} against xCI_{b,a} and
    leaves every within-group cell xCI_{a,a} exactly unchanged (a shift cancels within a group).

    Parameters
    ----------
    time, event, group, risk, data
        As in :func:`survfair.xci`: times (float >= 0), events (0/1), group labels, risk scores
        (higher = earlier event; survival probabilities must be negated first), and an optional
        DataFrame in which strings are column names (rows matched by position; pandas inputs whose indexes are not identical are refused).
    objective : {"abs_delta_between", "min_xci", "min_utility", "nash_welfare"}, default="abs_delta_between"
        The vocabulary of :func:`survfair.xci_score` and of the summaries of the same names
        (:func:`survfair.abs_delta_between`, :func:`survfair.min_xci`, :func:`survfair.min_utility`,
        :func:`survfair.nash_welfare`). ``"abs_delta_between"``: minimise max over pairs a < b of |xCI_{a,b} - xCI_{b,a}| (Section 4.2.1).
        ``"min_xci"``: maximise the smallest cell (Section 4.2.2; within-group cells cannot move, so
        the smallest cross cell is maximised). ``"min_utility"``: maximise min_a U(a) and
        ``"nash_welfare"``: maximise prod_a U(a), with U(a) = alpha sum_{b != a} xCI_{a,b} +
        beta sum_{b != a} xCI_{b,a} (Section 4.3).
    alpha, beta : float, default=1.0
        Utility weights, finite and >= 0, not both 0 (checked for every objective).
    method, tau, censoring, tied_tol, strict
        xCI estimator settings, as in :func:`survfair.xci`; used for the fit and the table.
    reference : group label, optional
        Group whose offset is 0. Default: the first group in matrix (sorted) order.
    fit_on : boolean mask, column name, integer row positions, DataFrame or tuple, optional
        Data on which the offsets are fitted. None: all rows (the table then has in-sample rows
        only). A boolean mask of shape (n_samples,), the name of a boolean column of ``data``, or
        integer positions (0-based, as ``iloc``): fit on those rows and evaluate on the remaining
        ones. A DataFrame with the same column
        names as ``data``, or a tuple (time, event, group, risk): fit on that separate data set and
        evaluate on the main inputs.
    max_evaluations : int, default=3000
        Budget of kernel evaluations per exact line search; when exhausted, ``optimality_gap`` > 0
        reports how far from optimal the result may be.
    random_state : None, int, numpy Generator / RandomState / SeedSequence, default=None
        Seed of the differential-evolution search (three or more groups; two groups are searched
        exactly, without randomness). None: fresh entropy, as everywhere in survfair.
    **xci_kwargs
        Passed to :func:`survfair.xci` when the before/after table is computed (e.g. inference
        options), so that the table's se / intervals are filled.

    Returns
    -------
    GroupShift
        ``.offsets``, ``.transform(risk, group)``, ``.before_after``, and the search diagnostics.

    Raises
    ------
    TypeError
        For arguments of the wrong type (non-numeric risk, ``alpha`` not a number, bad ``fit_on``).
    ValueError
        For invalid data (see :func:`survfair.xci`), an unknown ``objective``, ``method`` or
        ``censoring``, ``alpha`` / ``beta`` negative, infinite or both 0, a ``reference`` that is
        not a group, a single group, a ``fit_on`` that leaves no fitting or evaluation rows or
        misses a group, or a cross-group cell without comparable pairs in the fitting sample.

    Notes
    -----
    Two groups: the empirical objective is piecewise constant in the offset d, changing only at
    the O(n_a n_b) values r_i - r_j +- tied_tol of cross-group pairs. Each cell is a monotone step
    function of d, which gives exact bounds on any interval of offsets; a best-first branch and
    bound over intervals (with the kernel as the only evaluator) returns the global optimum over
    all offsets with ``optimality_gap == 0`` (certified), evaluating the objective only O(log) times
    per plateau it must inspect. The returned offset is the midpoint of the optimal plateau.
    More groups: differential evolution (scipy, seeded) then exact coordinate-wise search; the
    result is a coordinate-wise optimum (no single group's offset can improve it).

    In-sample gains are optimistic: the offset is selected to optimise the fitting sample's noisy
    cells. Use ``fit_on`` and read the "evaluation" rows of :attr:`GroupShift.before_after`.

    References
    ----------
    Wang, H. et al. (2026). Towards Fair Predictions: Group Conditional Concordance Index to
    Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872, Sections 4.2-4.3,
    Proposition 5.1.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 300); z = rng.normal(size=300)
    >>> t = np.exp(0.5 * g + z + rng.normal(size=300))
    >>> fitted = survfair.mitigate.group_shift(t, np.ones(300), g, -z + 0.8 * g, method="naive")
    >>> fitted.optimality_gap
    0.0
    """
    objective = check_option(objective, "objective", OBJECTIVES)
    alpha, beta = check_weights(alpha, beta)
    settings = EstimatorSettings.checked(method, tau, censoring, tied_tol, strict)
    max_evaluations = check_scalar(max_evaluations, "max_evaluations", "integer", low=10)
    fit_sample, eval_sample, _ = split_samples(time, event, group, risk, data, fit_on)
    ref = check_reference(reference, fit_sample.groups)
    if fit_sample.n_groups < 2:
        raise ValueError("group: only one group; a group shift needs at least two groups.")

    problem = ShiftProblem(fit_sample, settings)
    goal = make_objective(objective, alpha, beta, problem.weights)
    before_value = goal.value(problem.evaluate(np.zeros(fit_sample.n_groups)).values)
    fitted = fit_offsets(problem, goal, ref, max_evaluations=max_evaluations, random_state=random_state)
    offsets = fitted["offsets"]

    samples = [("fit", fit_sample, fit_sample.risk + offsets[fit_sample.group_codes])]
    if eval_sample is not None:
        samples.append(("evaluation", eval_sample, eval_sample.risk + offsets[eval_sample.group_codes]))
    table, results = before_after_table(samples, settings, alpha, beta, xci_kwargs)
    return GroupShift(
        groups=fit_sample.groups,
        reference=fit_sample.groups[ref],
        objective=objective,
        alpha=alpha,
        beta=beta,
        offset_values=tuple(float(v) for v in offsets),
        objective_before=float(goal.report(before_value)),
        objective_after=float(goal.report(fitted["value"])),
        optimality_gap=float(fitted["gap"]),
        plateau=fitted["plateau"],
        search=fitted["search"],
        n_evaluations=problem.n_evaluations,
        settings=settings,
        n_fit=fit_sample.n_samples,
        n_evaluation=0 if eval_sample is None else eval_sample.n_samples,
        table=table,
        results=results,
    )
