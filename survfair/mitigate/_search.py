"""The search for group-shift offsets: objectives with exact interval bounds, the exact two-group
branch and bound (with its optimality gap), and the search over more groups.

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
  an exact upper bound there (``Objective.bound``).

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
global search by :func:`scipy.optimize.differential_evolution` (seeded by ``random_state``: None
draws fresh entropy, whose value is recorded as ``seed_entropy`` so the fit can be repeated; no
gradient polish)
is followed by exact coordinate-wise branch and bound (one group's offset at a time, the others
fixed) until no single offset can improve the objective. The result is a coordinate-wise optimum,
not a certified global one.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._core.exceptions import InvalidParameterError
from .._core.options import check_random_state
from .._xci.summaries import (
    OBJECTIVES,
    group_utilities,
    max_abs_delta_between,
)
from ._problem import ShiftProblem, State, offdiagonal

__all__ = [
    "MAX_EVALUATIONS",
    "Objective",
    "make_objective",
    "LineSearch",
    "exact_line_search",
    "fit_offsets",
]


#: Default budget of objective evaluations of one exact line search.
MAX_EVALUATIONS = 3000

#: Intervals of offsets narrower than RESOLUTION_RELATIVE * (search range) + RESOLUTION_ULPS *
#: max|risk| are not split: plateaus that narrow are rounding artefacts of fl(r + d) (see
#: exact_line_search).
RESOLUTION_RELATIVE = 1e-10
RESOLUTION_ULPS = 1e-12


# -- objectives --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Objective:
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


def _log(values: np.ndarray) -> float:
    with np.errstate(divide="ignore"):
        return float(np.sum(np.log(values)))


def make_objective(
    name: str, alpha: float, beta: float, weights: np.ndarray, lam: float | None = None
) -> Objective:
    """Build an objective; ``weights`` are the Proposition 4.1 cell weights of the pooled C.

    ``name="penalized"`` (used by the λ frontier): pooled C - lam * max |Δbetween|.
    """
    g = weights.shape[0]
    off = offdiagonal(g)
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
        return Objective(
            name, lambda m: -max_gap(m), lambda lo, hi: -gap_lower(lo, hi), lambda v: -v
        )
    if name == "min_xci":
        # the diagonal is invariant under shifts, so maximising the smallest cross cell maximises
        # min-xCI
        return Objective(
            name,
            lambda m: float(np.min(m[off])),
            lambda lo, hi: float(np.min(np.maximum(lo, hi)[off])),
            lambda v: v,
        )
    if name == "min_utility":
        return Objective(
            name,
            lambda m: float(np.min(group_utilities(m, alpha, beta))),
            lambda lo, hi: float(np.min(group_utilities(np.maximum(lo, hi), alpha, beta))),
            lambda v: v,
        )
    if name == "nash_welfare":  # maximise sum log U(a); reported as the product of utilities
        return Objective(
            name,
            lambda m: _log(group_utilities(m, alpha, beta)),
            lambda lo, hi: _log(group_utilities(np.maximum(lo, hi), alpha, beta)),
            lambda v: math.exp(v),
        )
    if name == "penalized":
        return Objective(
            name,
            lambda m: pooled(m) - lam * max_gap(m),
            lambda lo, hi: pooled(np.maximum(lo, hi)) - lam * gap_lower(lo, hi),
            lambda v: v,
        )
    raise InvalidParameterError(
        f"objective must be one of {list(OBJECTIVES)}, got {name!r}.", parameter="objective"
    )


# -- the search --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineSearch:
    """Outcome of the exact search over one group's offset."""

    offset: float
    value: float
    gap: float
    plateau: tuple[float, float]
    n_evaluations: int


def exact_line_search(
    problem: ShiftProblem,
    objective: Objective,
    offsets: np.ndarray,
    k: int,
    *,
    max_evaluations: int,
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
    cache: dict[float, State] = {}

    def state(d: float) -> State:
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
        if (
            plateau[1] - plateau[0] >= resolution
            or problem.n_evaluations - start >= max_evaluations
        ):
            break
        # a rounding artefact: fl(r + d) splits breakpoints that coincide in exact arithmetic
        # (discrete scores) into plateaus a few ulps wide; exclude it and search again
        # (cache reused)
        banned.add(state(best_d).key)

    offset = plateau[0] + (plateau[1] - plateau[0]) / 2
    return LineSearch(offset, best_value, float(gap), plateau, problem.n_evaluations - start)


def _plateau(
    state: Callable[[float], State], d: float, lo: float, hi: float, cache: dict, resolution: float
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
        same = [
            x
            for x in cache
            if cache[x].key == key and (x - d) * side >= 0 and (outside - x) * side > 0
        ]
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


def repeatable_seed(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """A seed that its entropy alone repeats (what ``seed_entropy`` records): a spawned
    SeedSequence (non-empty ``spawn_key``) is replaced by a root sequence drawn from it."""
    if not seed.spawn_key:
        return seed
    return np.random.SeedSequence(int(seed.generate_state(1, np.uint64)[0]))


def fit_offsets(
    problem: ShiftProblem,
    objective: Objective,
    reference: int,
    *,
    max_evaluations: int,
    random_state: Any,
) -> dict:
    """Offsets optimising ``objective`` on the problem's sample (reference group fixed at 0).

    ``random_state`` is checked for every number of groups (two groups are searched exactly and
    never draw from it); with three or more, the returned ``"seed_entropy"`` is the entropy of the
    seed used (``random_state=seed_entropy`` repeats the search), None for two groups.
    """
    seed = repeatable_seed(check_random_state(random_state))
    g = problem.sample.n_groups
    offsets = np.zeros(g)
    free = [k for k in range(g) if k != reference]
    if g == 1:
        raise InvalidParameterError(
            "group: only one group; a group shift needs at least two groups.", parameter="group"
        )
    if g == 2:
        search = exact_line_search(
            problem, objective, offsets, free[0], max_evaluations=max_evaluations
        )
        offsets[free[0]] = search.offset
        return {
            "offsets": offsets,
            "value": search.value,
            "gap": search.gap,
            "plateau": search.plateau,
            "search": "exact branch and bound over all breakpoints (two groups)",
            "seed_entropy": None,
        }
    from scipy.optimize import differential_evolution

    bounds = [problem.coordinate_range(offsets, k) for k in free]

    def loss(x):
        trial = np.zeros(g)
        trial[free] = x
        return -objective.value(problem.evaluate(trial).values)

    found = differential_evolution(
        loss,
        bounds,
        seed=np.random.default_rng(seed),
        polish=False,
        maxiter=30,
        popsize=8,
        tol=0,
        init="sobol",
    )
    offsets[free] = found.x
    value = objective.value(problem.evaluate(offsets).values)
    for _sweep in range(20):
        improved = False
        for k in free:
            search = exact_line_search(
                problem, objective, offsets, k, max_evaluations=max_evaluations
            )
            if search.value > value:
                offsets[k], value, improved = search.offset, search.value, True
        if not improved:
            break
    value = objective.value(problem.evaluate(offsets).values)
    return {
        "offsets": offsets,
        "value": value,
        "gap": math.nan,
        "plateau": None,
        "search": (
            "differential evolution (scipy, seeded by random_state) + "
            "exact coordinate-wise branch and bound"
        ),
        "seed_entropy": seed.entropy,
    }
