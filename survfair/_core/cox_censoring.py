"""A covariate model of the censoring: Cox's proportional hazards for the censoring times.

``xci(censoring="cox", censoring_covariates=X)`` weighs a comparable pair (i, j), i the earlier
event, by 1 / (G(t_i- | x_i) G(t_i | x_j)) (Gerds, Kattan, Schumacher & Yu 2013; R
``pec::cindex(cens.model="cox")``), with

    G(t | x) = exp(-L_g(t) c),   c = exp(gamma'(x - center)),

the Cox model of the censoring hazard fitted by lifelines' ``CoxPHFitter`` (censoring as the event,
the person's group as stratum g, Efron's partial likelihood; L_g is lifelines' Breslow baseline
cumulative hazard of the stratum, a right-continuous step function, at the covariate means
``center``; t- is the left limit).

The pair weight does not factorise: 1 / G(t_i | x_j) = exp(L_b(t_i) c_j) mixes the earlier member's
time and the later member's covariates. It is summed exactly, in O(K G n log n), by the series

    exp(L_b(t) c_j) = sum_k (L_b(t) / S_b)^k (S_b c_j)^k / k!,

S_b = L_b(t*) with t* the last event time before tau: term k is a pair weight of the kernel's form
earlier factor x column curve x later factor (:func:`survfair._core.kernel.count_pairs_factored`),
with u = L_b(t) / S_b in [0, 1] and v_j = S_b c_j. The series stops after K + 1 terms, K chosen
per fit (:func:`series_terms`): for a pair with exponent y = u v_j, the truncated sum T_K(y)
satisfies 1 - T_K(y) e^-y = P(N >= K + 1), N ~ Poisson(y), which increases with y and is at most
y^(K+1) / (K+1)!. With x the largest exponent a later member can carry (x = max_j L_{g_j}(min(t_j,
t*)) c_j, the largest -log G(t | x_j) used), every pair weight, and so every weighted sum of the
matrix (sums of non-negative terms), is exact to a relative P(N_x >= K + 1) <= 1e-12 plus rounding.
The terms needed grow with x: 15 at x = 1 (the smallest G(t | x_j) used is 0.37), 23 at x = 3
(G = 0.05), 28 at x = 5, 40 at x = 10.1 (G = 4e-5). More than ``MAX_TERMS`` = 40 is a positivity
failure (weights above 2.4e4 for one person) and is refused.

Measured costs and the reduction to the Kaplan-Meier path: ``docs/how-to/cox-censoring.md`` and
``benchmarks/results/cox_censoring_*.md``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import field, replace
from typing import NamedTuple

import numpy as np
import pandas as pd

from .exceptions import (
    ConvergenceError,
    InvalidParameterError,
    PositivityError,
    PositivityWarning,
    listed,
)
from .frozen import frozen_result
from .groups import label_array
from .kernel import (
    IndividualContributions,
    PairCounts,
    PairOptions,
    PreparedPairs,
    count_pairs_factored,
)
from .options import describe_rows
from .validation import COVARIATES, SurvivalSample

__all__ = [
    "CoxCensoringModel",
    "fit_cox_censoring",
    "series_terms",
    "cox_pair_counts",
    "CoxPairCounts",
    "SeriesSlopes",
    "MAX_TERMS",
    "SERIES_RTOL",
]

#: Relative truncation error allowed in every pair weight (and so in every weighted sum).
SERIES_RTOL = 1e-12
#: Most terms of the series: enough up to x = 10.1 (G(t | x) = 4.1e-5 for some later member).
MAX_TERMS = 40
_POSITIVITY_WARN_LEVEL = 0.1
#: Newton-Raphson to convergence: lifelines' defaults stop on a relative log-likelihood change of
#: 1e-9, leaving coefficients 1e-6 to 1e-5 from the maximum (tests/test_cox_censoring_r.py); a step
#: below 1e-12 costs one or two more iterations (+30% at 10^5 rows) and makes the estimate, and the
#: derivatives its influence rows are, those of the fitted maximum
_FIT = {"precision": 1e-12, "r_precision": 1e-15, "max_steps": 200}


@frozen_result
class CoxCensoringModel:
    """The fitted Cox model of the censoring hazard (``xci(censoring="cox")``).

    G(t | x, g) = exp(-baseline_g(t) exp(coefficients' (x - center))), with baseline_g the
    stratum's Breslow cumulative hazard (a right-continuous step function, 0 before its first
    time). Fitted by lifelines' ``CoxPHFitter`` with the censoring as the event and the group as
    strata.

    Attributes
    ----------
    covariate_names : tuple of str
        The covariates, in the order of ``coefficients``.
    coefficients : ndarray of shape (p,)
        Log hazard ratios of the censoring hazard (lifelines' ``params_``).
    center : ndarray of shape (p,)
        The covariate means at which the baselines are given (lifelines' ``_norm_mean``).
    strata : tuple
        The group labels, one baseline each, in matrix order.
    baseline_times : tuple of ndarray
        Per stratum, the times at which its cumulative hazard steps (censoring times).
    baseline_cumulative_hazard : tuple of ndarray
        Per stratum, the cumulative hazard just after each of those times.
    n_terms : int
        Terms of the series used for the pair weights (0 before counting).
    truncation_bound : float
        Proven bound on the relative truncation error of every pair weight (NaN before counting).
    """

    covariate_names: tuple
    coefficients: np.ndarray
    center: np.ndarray
    strata: tuple
    baseline_times: tuple = field(repr=False)
    baseline_cumulative_hazard: tuple = field(repr=False)
    n_terms: int = 0
    truncation_bound: float = math.nan

    def linear_predictor(self, covariates: np.ndarray) -> np.ndarray:
        """coefficients' (x - center) of every row of ``covariates`` (shape (n, p))."""
        centred = np.asarray(covariates, dtype=np.float64) - self.center
        return centred @ self.coefficients

    def cumulative_hazard(self, stratum: int, times: np.ndarray, *, left: bool = False):
        """The baseline of stratum ``stratum`` (an index into ``strata``) at ``times``; with
        ``left`` its left limit (the value just before each time)."""
        steps = self.baseline_times[stratum]
        values = np.concatenate([[0.0], self.baseline_cumulative_hazard[stratum]])
        side = "left" if left else "right"
        return values[np.searchsorted(steps, np.asarray(times, dtype=np.float64), side=side)]

    def survival(self, times, covariates, stratum, *, left: bool = False) -> np.ndarray:
        """G(t | x) (or G(t- | x) with ``left``) of each row: ``times`` shape (n,), ``covariates``
        (n, p), ``stratum`` an index or an array of indices into ``strata``."""
        times = np.asarray(times, dtype=np.float64)
        codes = np.broadcast_to(np.asarray(stratum), times.shape)
        hazard = np.empty(times.shape[0])
        for g in np.unique(codes):
            rows = codes == g
            hazard[rows] = self.cumulative_hazard(int(g), times[rows], left=left)
        with np.errstate(over="ignore"):
            return np.exp(-hazard * np.exp(self.linear_predictor(covariates)))

    def to_frame(self) -> pd.DataFrame:
        """The coefficients: one row per covariate (``covariate``, ``coefficient``, ``center``)."""
        return pd.DataFrame(
            {
                "covariate": list(self.covariate_names),
                "coefficient": self.coefficients,
                "center": self.center,
            }
        )

    def baseline_frame(self) -> pd.DataFrame:
        """The baselines, tidy: one row per (stratum, step time) with the cumulative hazard."""
        frames = [
            pd.DataFrame(
                {"stratum": label_array([label] * len(t)), "time": t, "cumulative_hazard": h}
            )
            for label, t, h in zip(
                self.strata, self.baseline_times, self.baseline_cumulative_hazard
            )
        ]
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        """The coefficients and settings, JSON-safe (the baselines are left out)."""
        return {
            "model": "cox",
            "covariates": list(self.covariate_names),
            "coefficients": [float(v) for v in self.coefficients],
            "center": [float(v) for v in self.center],
            "strata": [str(s) for s in self.strata],
            "n_terms": int(self.n_terms),
            "truncation_bound": float(self.truncation_bound),
        }


def _breslow_with_entry(time, censored, codes, weight, entry, partial, n_groups):
    """Breslow's cumulative hazard per stratum with left-truncated risk sets (entry < s <= time):
    lifelines' ``baseline_cumulative_hazard_`` ignores the entry times."""
    out = []
    for g in range(n_groups):
        rows = codes == g
        t, d, e, wp = (
            time[rows],
            censored[rows] * weight[rows],
            entry[rows],
            (weight * partial)[rows],
        )
        steps = np.unique(t[d > 0])
        if steps.size == 0:
            out.append((np.empty(0), np.empty(0)))
            continue
        order_t, order_e = np.argsort(t), np.argsort(e)
        # risk set at s: weight with time >= s minus weight with entry >= s
        by_time = np.concatenate([np.cumsum(wp[order_t][::-1])[::-1], [0.0]])
        by_entry = np.concatenate([np.cumsum(wp[order_e][::-1])[::-1], [0.0]])
        at_risk = (
            by_time[np.searchsorted(t[order_t], steps, side="left")]
            - by_entry[np.searchsorted(e[order_e], steps, side="left")]
        )
        deaths = np.bincount(np.searchsorted(steps, t[d > 0]), weights=d[d > 0])
        out.append((steps, np.cumsum(deaths / at_risk)))
    return out


def fit_cox_censoring(sample: SurvivalSample) -> CoxCensoringModel:
    """Fit the Cox model of the censoring hazard on ``sample`` (its ``covariates``; the group as
    strata; case weights and entry times as lifelines takes them).

    Raises
    ------
    ConvergenceError
        If lifelines did not converge (its error or ``ConvergenceWarning``), or gave a coefficient
        that is not finite.
    """
    from lifelines import CoxPHFitter
    from lifelines.exceptions import ConvergenceError as LifelinesConvergenceError
    from lifelines.exceptions import ConvergenceWarning, StatisticalWarning

    x = sample.covariates
    names = sample.covariate_names
    internal = [f"_x{k}" for k in range(x.shape[1])]
    frame = pd.DataFrame(x, columns=internal)
    frame["_time"] = sample.time
    frame["_censored"] = (~sample.observed).astype(np.float64)
    frame["_stratum"] = sample.group_codes
    options = {}
    if sample.weights is not None:
        frame["_weight"] = sample.weights
        options["weights_col"] = "_weight"
    if sample.entry is not None:
        frame["_entry"] = sample.entry
        options["entry_col"] = "_entry"
    fitter = CoxPHFitter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fitter.fit(
                frame, "_time", "_censored", strata=["_stratum"], fit_options=_FIT, **options
            )
        except (LifelinesConvergenceError, np.linalg.LinAlgError) as error:
            raise ConvergenceError(
                f"{COVARIATES}: the Cox model of the censoring did not converge (lifelines: "
                f"{str(error).splitlines()[0]}); check for covariates that separate the censored "
                "rows (a hazard ratio tending to 0 or infinity) or are collinear."
            ) from error
    problems = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    for w in caught:  # lifelines' advice on non-integer weights does not apply to case weights
        if w not in problems and not issubclass(w.category, StatisticalWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    coefficients = fitter.params_.to_numpy(dtype=np.float64)
    if problems or not np.isfinite(coefficients).all():
        told = "; ".join(str(w.message).splitlines()[0] for w in problems) or "no warning"
        raise ConvergenceError(
            f"{COVARIATES}: the Cox model of the censoring did not converge (coefficients "
            f"{dict(zip(names, coefficients.round(4).tolist()))}; lifelines: {told}); check for "
            "covariates that separate the censored rows or are collinear."
        )
    center = fitter._norm_mean.to_numpy(dtype=np.float64)
    g = sample.n_groups
    if sample.entry is not None:
        partial = np.exp((x - center) @ coefficients)
        weight = np.ones(sample.n_samples) if sample.weights is None else sample.weights
        censored = (~sample.observed).astype(np.float64)
        steps = _breslow_with_entry(
            sample.time, censored, sample.group_codes, weight, sample.entry, partial, g
        )
    else:
        table = fitter.baseline_cumulative_hazard_
        lookup = {(c[0] if isinstance(c, tuple) else c): c for c in table.columns}
        times = table.index.to_numpy(dtype=np.float64)
        steps = []
        for code in range(g):
            if code not in lookup:  # a stratum without rows cannot be: groups come from the rows
                steps.append((np.empty(0), np.empty(0)))
                continue
            values = table[lookup[code]].to_numpy(dtype=np.float64)
            jumps = np.flatnonzero(np.diff(np.concatenate([[0.0], values])) != 0)
            steps.append((times[jumps], values[jumps]))
    return CoxCensoringModel(
        covariate_names=tuple(names),
        coefficients=coefficients,
        center=center,
        strata=sample.groups,
        baseline_times=tuple(s[0] for s in steps),
        baseline_cumulative_hazard=tuple(s[1] for s in steps),
    )


def series_terms(x: float, rtol: float = SERIES_RTOL) -> tuple[int, float]:
    """(number of terms K + 1, bound): the fewest terms of the exponential series whose relative
    truncation error at every exponent y in [0, x] is at most ``rtol``, and that error,
    P(Poisson(x) >= K + 1) = the regularised lower incomplete gamma P(K + 1, x) (<= x^(K+1) /
    (K+1)!). ``(MAX_TERMS + 1, bound)`` when even ``MAX_TERMS`` terms are not enough."""
    from scipy.special import gammainc

    if not x > 0:
        return 1, 0.0
    for k in range(MAX_TERMS + 1):  # k = K: terms 0..K
        bound = float(gammainc(k + 1, x))
        if bound <= rtol:
            return k + 1, bound
    return MAX_TERMS + 1, bound


def cox_pair_counts(
    sample: SurvivalSample,
    prep: PreparedPairs,
    model: CoxCensoringModel,
    options: PairOptions,
    *,
    with_contributions: bool = False,
    with_slopes: bool = False,
) -> CoxPairCounts:
    """The pair counts with the Cox censoring weights, summed exactly by the series (module
    docstring): :class:`CoxPairCounts` (the counts, the model with ``n_terms`` and
    ``truncation_bound``, the contributions when ``with_contributions`` and their slopes in the
    cumulative hazard, :class:`SeriesSlopes`, when ``with_slopes``, which implies the
    contributions). Of ``options`` the truncation, time convention and threads apply (the model
    gives the weights: no ``inverse_k`` or ``row_weight``).

    Raises
    ------
    PositivityError
        If a weight 1 / G(t_i- | x_i) is infinite, or the series would need more than
        ``MAX_TERMS`` terms (a censoring survival below about 1e-6 for a later member).
    """
    order = prep.order
    n, n_groups = prep.time.shape[0], sample.n_groups
    time, codes = prep.time, prep.codes.astype(np.intp)
    lp = model.linear_predictor(sample.covariates[order])
    with np.errstate(over="ignore"):
        c = np.exp(lp)
    used = prep.event & (time < options.tau)
    last = float(time[used].max()) if used.any() else -np.inf
    scale = np.array([float(model.cumulative_hazard(b, [last])[0]) for b in range(n_groups)])
    # every later member's exponent L_{g_j}(min(t_j, t*)) c_j bounds those of its pairs
    own_hazard = np.empty(n)
    later_hazard = np.empty(n)
    for b in range(n_groups):
        rows = codes == b
        own_hazard[rows] = model.cumulative_hazard(b, time[rows], left=True)
        later_hazard[rows] = model.cumulative_hazard(b, np.minimum(time[rows], last))
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = later_hazard * c
        own = np.exp(own_hazard * c)  # 1 / G(t_m- | x_m)
    x = float(exponent.max()) if n else 0.0
    if not np.isfinite(x):
        x = math.inf
    n_terms, bound = series_terms(x)
    if n_terms > MAX_TERMS:
        _refuse_series(sample, order, exponent, np.minimum(time, last), codes, x)
    weight = None if prep.case_weight.shape[0] == 0 else prep.case_weight
    if weight is not None:
        with np.errstate(invalid="ignore"):
            own = own * weight
        own[weight == 0] = 0.0
    v = scale[codes] * c  # S_{g_j} c_j, in [0, x] wherever it matters
    later = np.ones(n) if weight is None else weight.copy()
    no_curve = (np.empty(0), np.empty(0), False)
    total_num = np.zeros((n_groups, n_groups))
    total_den = np.zeros((n_groups, n_groups))
    first, bad, contributions = None, None, None
    with_contributions = with_contributions or with_slopes
    slopes = _SlopeSums(n, n_groups) if with_slopes else None
    for k in range(n_terms):
        if k == 0:
            curves = [no_curve] * n_groups
        else:
            later = later * v / k  # w_j v_j^k / k!
            curves = [_power_curve(model, b, scale[b], k) for b in range(n_groups)]
        counts, bad_k, parts = count_pairs_factored(
            prep,
            options,
            own=own,
            later_weight=later,
            column_curves=curves,
            with_contributions=with_contributions,
        )
        if k == 0:
            first, bad = counts, bad_k
            if bad is not None:
                break
        total_num += counts.numerator
        total_den += counts.denominator
        if slopes is not None and k > 0:
            slopes.add(k, parts)
        if with_contributions:
            contributions = parts if contributions is None else _add(contributions, parts)
    if bad is not None:
        _refuse_weight(sample, model, bad)
    counts = PairCounts(
        first.comparable, first.concordant, first.tied_risk, first.tied_time, total_num, total_den
    )
    model = replace(model, n_terms=int(n_terms), truncation_bound=bound)
    if slopes is not None:
        slopes = slopes.finish(model, time, n_groups)
    return CoxPairCounts(counts, model, contributions, slopes)


class CoxPairCounts(NamedTuple):
    """What :func:`cox_pair_counts` returns."""

    counts: PairCounts
    model: CoxCensoringModel
    contributions: IndividualContributions | None
    slopes: SeriesSlopes | None


@frozen_result
class SeriesSlopes:
    """How the contributions move with the censoring model's cumulative hazards: arrays (n, G) in
    the kernel's time order, like :class:`~survfair._core.kernel.IndividualContributions`.

    For a comparable pair (i, j), i the earlier member in group a and j the later in group b, with
    pair weight W_ij = w_i w_j h_ij exp(L_a(t_i-) c_i) exp(L_b(t_i) c_j) (module docstring), the
    derivative of W_ij in the later member's exponent L_b(t_i) c_j is W_ij itself, so

    * ``earlier_numerator[i, b]`` = sum_j W_ij h_ij c_j: the rate at which i's row contribution to
      cell (a, b) moves with L_b(t_i) (0 where L_b(t_i) = 0, where nothing before t_i can move it);
    * ``later_numerator[j, a]`` = sum_i W_ij h_ij L_b(t_i) c_j: j's column contribution to cell
      (a, b) moved by a relative change of c_j;

    and the same without h for the denominators. Both are sums of the series' terms: term k of
    the series is (L c_j)^k / k!, and k (L c_j)^k / k! = L c_j (L c_j)^(k-1) / (k-1)!, so the sums
    are those of the terms weighted by k (divided by L_b(t_i) for the earlier member), exact to the
    truncation of one term less (a relative P(N_x >= K), N_x ~ Poisson(x)).
    """

    earlier_numerator: np.ndarray
    earlier_denominator: np.ndarray
    later_numerator: np.ndarray
    later_denominator: np.ndarray


class _SlopeSums:
    """The terms' contributions weighted by their power k, summed (see :class:`SeriesSlopes`)."""

    def __init__(self, n: int, n_groups: int) -> None:
        self.sums = [np.zeros((n, n_groups)) for _ in range(4)]

    def add(self, k: int, parts) -> None:
        arrays = (
            parts.earlier_numerator,
            parts.earlier_denominator,
            parts.later_numerator,
            parts.later_denominator,
        )
        for total, values in zip(self.sums, arrays):
            total += k * values

    def finish(self, model: CoxCensoringModel, time: np.ndarray, n_groups: int) -> SeriesSlopes:
        """Divide the earlier members' sums by L_b(t_i) (0 where it is 0)."""
        hazard = np.column_stack([model.cumulative_hazard(b, time) for b in range(n_groups)])
        with np.errstate(divide="ignore", invalid="ignore"):
            inverse = np.where(hazard > 0, 1.0 / np.where(hazard > 0, hazard, 1.0), 0.0)
        e_num, e_den, l_num, l_den = self.sums
        return SeriesSlopes(e_num * inverse, e_den * inverse, l_num, l_den)


def _power_curve(model: CoxCensoringModel, b: int, scale: float, k: int) -> tuple:
    """Column b's factor (L_b(t) / S_b)^k as the passes' curve (1 / K with K = (S_b / L_b)^k; 0
    before the first step and wherever L_b = 0, and everywhere when S_b = 0)."""
    steps = model.baseline_times[b]
    if not scale > 0 or steps.shape[0] == 0:
        return np.array([-np.inf]), np.array([np.inf]), False
    with np.errstate(divide="ignore", over="ignore"):
        values = (scale / model.baseline_cumulative_hazard[b]) ** k
    return (
        np.concatenate([[-np.inf], steps]),
        np.concatenate([[np.inf], values]),
        False,
    )


def _add(first, second):
    """Two terms' contributions, summed (the later members' halves keep one block)."""
    for name in ("earlier_numerator", "earlier_denominator"):
        getattr(first, name)[...] += getattr(second, name)
    if first.later_block is not None and second.later_block is not None:
        first.later_block[...] += second.later_block
    else:
        first.later_numerator[...] += second.later_numerator
        first.later_denominator[...] += second.later_denominator
    return first


def _refuse_series(sample, order, exponent, time, codes, x) -> None:
    position = int(np.nanargmax(np.where(np.isfinite(exponent), exponent, np.inf)))
    row = np.zeros(sample.n_samples, bool)
    row[order[position]] = True
    raise PositivityError(
        f'censoring="cox": the predicted censoring survival G(t | x) of a later member falls to '
        f"{math.exp(-x):.3g} ({describe_rows(row, sample.index)}, group "
        f"{sample.groups[codes[position]]!r}, by time {time[position]:g}), so its weight "
        f"1 / G is {'infinite' if not np.isfinite(x) else f'{math.exp(x):.3g}'}: positivity fails "
        f"(the exact series would need more than {MAX_TERMS} terms). Pass a smaller tau, drop or "
        f"coarsen the covariate that drives the censoring to certainty, or use "
        f'censoring="group".'
    )


def _refuse_weight(sample, model, bad) -> None:
    row_index, _ = bad
    row = np.zeros(sample.n_samples, bool)
    row[row_index] = True
    g = int(sample.group_codes[row_index])
    t = float(sample.time[row_index])
    value = float(model.survival([t], sample.covariates[[row_index]], g, left=True)[0])
    raise PositivityError(
        f'censoring="cox": the predicted censoring survival G(t- | x) of the event '
        f"{describe_rows(row, sample.index)} (group {sample.groups[g]!r}, time {t:g}) is "
        f"{value:.3g}, so its IPCW weight is infinite (positivity fails); pass a smaller tau "
        f"(below {t:g})."
    )


def check_cox_positivity(sample: SurvivalSample, model: CoxCensoringModel, tau) -> dict:
    """Smallest predicted censoring survival G(t* | x) per group at the last weighted event time
    t* (the smallest used as a weight); warns below 0.1 as the Kaplan-Meier path does."""
    cutoff = np.inf if tau is None else float(tau)
    used = sample.event & (sample.time < cutoff)
    if not used.any():
        return {}
    last = float(sample.time[used].max())
    minima, low = {}, []
    for g, label in enumerate(sample.groups):
        rows = sample.group_codes == g
        if not rows.any():
            continue
        until = np.minimum(sample.time[rows], last)
        value = float(model.survival(until, sample.covariates[rows], g).min())
        minima[label] = value
        if value < _POSITIVITY_WARN_LEVEL:
            low.append((label, value))
    if low:
        described = listed(f"group {label!r} down to {value:.3g}" for label, value in low)
        warnings.warn(
            f"predicted censoring survival G(t | x) below {_POSITIVITY_WARN_LEVEL} before tau: "
            f"{described}; IPCW weights that large make the estimate unstable. Consider a smaller "
            "tau.",
            PositivityWarning,
            stacklevel=3,
        )
    return minima


def refuse_cox_options(**given) -> None:
    """The options that ``censoring="cox"`` does not take (yet), refused naming them."""
    for name, (value, why) in given.items():
        if value is not None:
            raise InvalidParameterError(
                f'{name} is not available with censoring="cox" {why}.', parameter=name
            )
    return None


def require_covariates(covariates) -> None:
    """``censoring="cox"`` needs ``censoring_covariates``."""
    if covariates is None:
        raise InvalidParameterError(
            'censoring="cox" needs censoring_covariates= (an array of shape (n_samples, p), a '
            "DataFrame, or column names of data): the covariates of the censoring model.",
            parameter=COVARIATES,
        )
