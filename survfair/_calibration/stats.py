"""Calibration of predicted risks at one horizon within one group: the estimators.

Every function takes one group's rows (times, events, predicted event probabilities
F̂(t | x) = 1 − Ŝ(t | x) at the horizon ``t``) and returns numbers; validation, the loop over
groups and horizons, the bootstrap and the result object live in
:mod:`survfair._calibration.estimator`.

Fitting is left to well-kept libraries: the Kaplan-Meier estimate and its Greenwood variance come
from statsmodels' ``SurvfuncRight``, Cox models from lifelines' ``CoxPHFitter`` (Efron ties, as R's
``coxph``). What is computed here are closed forms: means, ratios, the Breslow cumulative
baseline hazard of a fitted linear predictor, Harrell's restricted cubic spline basis and the
Greenwood-Nam-D'Agostino sum.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "CLOGLOG_CLIP",
    "KNOT_QUANTILES",
    "cloglog",
    "kaplan_meier_risk",
    "truncate",
    "breslow_cumulative_hazard",
    "breslow_log_cumulative_hazard",
    "calibration_intercept",
    "calibration_slope",
    "rcs_basis",
    "SmoothCalibration",
    "smooth_calibration",
    "gnd_bins",
    "gnd_test",
    "brier_terms",
    "aalen_johansen_risk",
    "aalen_johansen_influence",
    "n_clipped",
    "brier_censoring_influence",
    "brier_influence",
    "influence_standard_error",
]

#: F̂ is kept inside [CLOGLOG_CLIP, 1 - CLOGLOG_CLIP] before the cloglog transform (only there),
#: as lifelines' ``survival_probability_calibration`` does: cloglog(0) and cloglog(1) are infinite.
CLOGLOG_CLIP = 1e-10
#: Knots of the restricted cubic spline: Harrell's default quantiles for 3 knots
#: (Austin et al. 2020).
KNOT_QUANTILES = (0.10, 0.50, 0.90)


def cloglog(risk: np.ndarray) -> np.ndarray:
    """Complementary log-log of event probabilities, log(−log(1 − F̂)) = log Λ̂(t | x)."""
    clipped = np.clip(risk, CLOGLOG_CLIP, 1.0 - CLOGLOG_CLIP)
    return np.log(-np.log1p(-clipped))


def n_clipped(risk: np.ndarray) -> int:
    """How many predicted risks :func:`cloglog` moves: those below :data:`CLOGLOG_CLIP` or above
    1 − :data:`CLOGLOG_CLIP` (in practice predictions of exactly 0 or 1).

    The calibration slope, intercept and smooth curve (ICI, E50, E90) use cloglog F̂; for these
    rows it is ±23 (the clip's value, not the model's), so those statistics depend on the clip.
    """
    return int(np.count_nonzero((risk < CLOGLOG_CLIP) | (risk > 1.0 - CLOGLOG_CLIP)))


def kaplan_meier_risk(time: np.ndarray, event: np.ndarray, horizon: float) -> tuple[float, float]:
    """Observed risk 1 − S_KM(horizon) and the Greenwood standard error of S_KM(horizon).

    statsmodels' ``SurvfuncRight`` (right-continuous steps; events and censorings at a tied time:
    events first, as in R's ``survfit``). Before the first event the risk is 0 with SE 0.
    """
    from statsmodels.duration.survfunc import SurvfuncRight

    if not event.any():
        return 0.0, 0.0
    fit = SurvfuncRight(time, event.astype(float))
    position = np.searchsorted(fit.surv_times, horizon, side="right") - 1
    if position < 0:
        return 0.0, 0.0
    survival = float(fit.surv_prob[position])
    se = float(fit.surv_prob_se[position])
    return 1.0 - survival, se if np.isfinite(se) else 0.0


def truncate(time: np.ndarray, event: np.ndarray, horizon: float) -> tuple[np.ndarray, np.ndarray]:
    """Follow-up ended at the horizon: time min(T, t), event only if it happened by t."""
    return np.minimum(time, horizon), event & (time <= horizon)


def breslow_cumulative_hazard(
    time: np.ndarray,
    event: np.ndarray,
    linear_predictor: np.ndarray,
    horizon: float,
    *,
    inclusive: bool = True,
) -> tuple[float, float]:
    """Breslow's cumulative baseline hazard at ``horizon`` for a fixed linear predictor, and its
    variance given the predictor.

    Λ̂₀(t) = Σ_{event times s ≤ t} d_s / Σ_{j: T_j ≥ s} exp(η_j) (s < t with ``inclusive=False``),
    variance Σ d_s / (Σ exp η_j)² (R's ``survfit`` of a Cox model with ``ctype=1``; for an
    offset-only model this is the whole variance, as no coefficient is estimated). The baseline
    belongs to exp(η) as given (no centring); η is shifted by its maximum inside, so that a large
    linear predictor does not overflow. O(n log n).
    """
    shift = float(np.max(linear_predictor)) if linear_predictor.size else 0.0
    weight = np.exp(linear_predictor - shift)
    order = np.argsort(time, kind="stable")
    sorted_time, sorted_weight = time[order], weight[order]
    at_risk = np.cumsum(sorted_weight[::-1])[::-1]  # sum over T_j >= T_(k), ties: first of the run
    used = event & ((time <= horizon) if inclusive else (time < horizon))
    event_times, deaths = np.unique(time[used], return_counts=True)
    if event_times.size == 0:
        return 0.0, 0.0
    first = np.searchsorted(sorted_time, event_times, side="left")
    denominators = at_risk[first]
    scale = math.exp(-shift)
    return float(np.sum(deaths / denominators) * scale), float(
        np.sum(deaths / denominators**2) * scale**2
    )


def breslow_log_cumulative_hazard(
    time: np.ndarray,
    event: np.ndarray,
    linear_predictor: np.ndarray,
    horizon: float,
    *,
    inclusive: bool = True,
) -> float:
    """log Λ̂₀(horizon) of :func:`breslow_cumulative_hazard`, computed on the log scale throughout.

    log Λ̂₀(t) = logsumexp over event times s ≤ t of (log d_s − logsumexp_{j: T_j ≥ s} η_j) (s < t
    with ``inclusive=False``); −inf without an event. No exponential of η is formed, so a linear
    predictor of any size neither overflows nor empties a risk set by underflow, and a shift of η
    by c shifts the result by −c (to rounding). O(n log n).
    """
    from scipy.special import logsumexp

    order = np.argsort(time, kind="stable")
    sorted_time = time[order]
    eta = np.asarray(linear_predictor, dtype=float)[order]
    # log of the sum over T_j >= T_(k) (ties: first of the run), accumulated from the last time
    log_at_risk = np.logaddexp.accumulate(eta[::-1])[::-1]
    used = event & ((time <= horizon) if inclusive else (time < horizon))
    event_times, deaths = np.unique(time[used], return_counts=True)
    if event_times.size == 0:
        return -math.inf
    first = np.searchsorted(sorted_time, event_times, side="left")
    return float(logsumexp(np.log(deaths) - log_at_risk[first]))


def calibration_intercept(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float
) -> tuple[float, float]:
    """Calibration intercept on the cloglog scale with the slope fixed at 1, and its SE.

    The Cox model with offset cloglog F̂ (follow-up truncated at the horizon) has cumulative
    baseline hazard Λ̂₀(t); α̂ = log Λ̂₀(t) solves cloglog F_obs = α + cloglog F̂, so α̂ = 0 when the
    predicted risks are right on average, exp(α̂) is the observed/expected ratio of cumulative
    hazards. SE(α̂) = sqrt(Var Λ̂₀(t)) / Λ̂₀(t) (delta method). NaN without an event by t.
    """
    t, e = truncate(time, event, horizon)
    cumulative, variance = breslow_cumulative_hazard(t, e, cloglog(risk), horizon)
    if cumulative <= 0:
        return np.nan, np.nan
    return float(np.log(cumulative)), float(np.sqrt(variance) / cumulative)


#: fewest events by the horizon per coefficient of a Cox model (slope: 5; spline curve: 10); with
#: fewer, the partial likelihood is often monotone (a group with 2 events gave a "slope" of 157)
EVENTS_PER_PARAMETER = 5
#: lifelines' Newton-Raphson, to R's precision or better (its defaults stop at 1e-7)
_FIT_OPTIONS = {"precision": 1e-14, "r_precision": 1e-16, "max_steps": 200}
#: lifelines' warnings that mean the fit is not a maximum of the partial likelihood
_FAILED = ("failed to converge", "still high", "separation")


def _cox(time: np.ndarray, event: np.ndarray, design: np.ndarray):
    """lifelines' Cox model (Efron ties, as R's ``coxph``); (params, se), NaN when there are fewer
    than :data:`EVENTS_PER_PARAMETER` events per coefficient or the fit fails.

    lifelines' Newton-Raphson halves its steps; statsmodels' ``PHReg`` (tried first) diverged to
    NaN from its zero start on real data (the spline model of 372 PBC patients) where lifelines and
    R converge.
    """
    from lifelines import CoxPHFitter
    from lifelines.exceptions import ConvergenceError

    n_params = design.shape[1]
    missing = np.full(n_params, np.nan), np.full(n_params, np.nan)
    if event.sum() < EVENTS_PER_PARAMETER * n_params:
        return missing
    columns = [f"x{j}" for j in range(n_params)]
    frame = pd.DataFrame(design, columns=columns)
    frame["_time"], frame["_event"] = time, event
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = CoxPHFitter().fit(frame, "_time", "_event", fit_options=_FIT_OPTIONS)
        except (ConvergenceError, np.linalg.LinAlgError, ValueError, ZeroDivisionError):
            return missing
    if any(any(word in str(w.message) for word in _FAILED) for w in caught):
        return missing
    params = fit.params_[columns].to_numpy(float)
    se = fit.standard_errors_[columns].to_numpy(float)
    if not (np.isfinite(params).all() and np.isfinite(se).all()):
        return missing
    return params, se


def calibration_slope(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float
) -> tuple[float, float]:
    """Calibration slope on the cloglog scale and its model-based SE.

    The coefficient β of a Cox model of the follow-up truncated at the horizon on cloglog F̂
    (Crowson, Atkinson & Therneau 2016; for a Cox model's predictions it is the slope of the
    linear predictor). 1 when the spread of the predicted risks is right; below 1, predictions
    too extreme. NaN with fewer than 2 events by t or a fit that fails.
    """
    t, e = truncate(time, event, horizon)
    params, bse = _cox(t, e, cloglog(risk)[:, None])
    return float(params[0]), float(bse[0])


def rcs_basis(x: np.ndarray, knots: np.ndarray) -> np.ndarray:
    """Harrell's restricted cubic spline basis (R ``rms::rcs``, normalised by (k_K − k_1)²).

    Columns: x, then K − 2 cubic terms; linear beyond the outer knots.
    """
    k = np.asarray(knots, float)
    last, before_last = k[-1], k[-2]
    scale = (last - k[0]) ** 2
    columns = [x]
    for knot in k[:-2]:
        term = (
            np.clip(x - knot, 0, None) ** 3
            - np.clip(x - before_last, 0, None) ** 3 * (last - knot) / (last - before_last)
            + np.clip(x - last, 0, None) ** 3 * (before_last - knot) / (last - before_last)
        )
        columns.append(term / scale)
    return np.column_stack(columns)


@dataclass(frozen=True)
class SmoothCalibration:
    """Observed risk as a smooth function of predicted risk (one group, one horizon)."""

    observed: np.ndarray  # F_obs(F̂_i) per individual
    risk: np.ndarray  # F̂_i
    knots: np.ndarray  # on the cloglog scale; fewer than 3 distinct: a linear fit
    coefficients: np.ndarray
    baseline: float  # Λ̂₀(t) of the fitted model

    def at(self, risk: np.ndarray) -> np.ndarray:
        """F_obs at any predicted risks (the curve of the plot)."""
        if not np.isfinite(self.coefficients).all():
            return np.full(np.shape(risk), np.nan)
        return 1.0 - np.exp(
            -self.baseline
            * np.exp(self._design(cloglog(np.asarray(risk, float))) @ self.coefficients)
        )

    def _design(self, x: np.ndarray) -> np.ndarray:
        return rcs_basis(x, self.knots) if self.knots.size >= 3 else x[:, None]

    @property
    def errors(self) -> np.ndarray:
        """|F̂_i − F_obs(F̂_i)|: ICI is their mean, E50 their median, E90 their 90th percentile."""
        return np.abs(self.observed - self.risk)


def smooth_calibration(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float
) -> SmoothCalibration:
    """Fit the smooth calibration curve of Austin, Harrell & van Klaveren (2020).

    A Cox model of the follow-up truncated at the horizon on a restricted cubic spline of
    cloglog F̂ with 3 knots at its 10th, 50th and 90th percentiles (fewer distinct knots: linear
    in cloglog F̂); F_obs(F̂_i) = 1 − exp(−Λ̂₀(t) exp(η̂_i)) with Breslow's Λ̂₀. NaN with fewer than
    10 events by t (5 with a linear fit) or a fit that fails.
    """
    t, e = truncate(time, event, horizon)
    x = cloglog(risk)
    knots = np.unique(np.quantile(x, KNOT_QUANTILES))
    if knots.size < 3:
        knots = np.array([], float)
    design = rcs_basis(x, knots) if knots.size else x[:, None]
    params, _ = _cox(t, e, design)
    if not np.isfinite(params).all():
        return SmoothCalibration(np.full(risk.shape, np.nan), risk, knots, params, np.nan)
    eta = design @ params
    baseline, _ = breslow_cumulative_hazard(t, e, eta, horizon)
    observed = 1.0 - np.exp(-baseline * np.exp(eta))
    return SmoothCalibration(observed, risk, knots, params, baseline)


def gnd_bins(
    risk: np.ndarray, event_by_horizon: np.ndarray, n_bins: int, min_events: int
) -> np.ndarray:
    """Bin number of each row: groups of predicted risk, merged until each has ``min_events``.

    Deciles (``n_bins`` quantile groups, R's ``cut(x, quantile(x, type=7), include.lowest=TRUE)``;
    equal quantiles give fewer bins). A bin with fewer than ``min_events`` events by the horizon
    is merged with its neighbour of fewer events (Demler et al. 2015 recommend at least 5 per
    group), the lowest first, until every bin has enough or one bin is left.
    """
    bins = np.asarray(pd.qcut(risk, n_bins, labels=False, duplicates="drop"), dtype=float)
    bins = np.where(np.isnan(bins), 0, bins).astype(np.int64)  # all risks equal: no edges, one bin
    _, bins = np.unique(bins, return_inverse=True)
    while True:
        counts = np.bincount(bins, weights=event_by_horizon.astype(float))
        small = np.flatnonzero(counts < min_events)
        if small.size == 0 or counts.size == 1:
            return bins
        b = int(small[0])
        if b == 0:
            partner = 1
        elif b == counts.size - 1:
            partner = b - 1
        else:
            partner = b - 1 if counts[b - 1] <= counts[b + 1] else b + 1
        bins = np.where(bins == max(b, partner), min(b, partner), bins)
        bins = np.where(bins > max(b, partner), bins - 1, bins)


def gnd_test(
    time: np.ndarray,
    event: np.ndarray,
    risk: np.ndarray,
    horizon: float,
    bins: np.ndarray,
    competing: np.ndarray | None = None,
) -> tuple[float, int, float, pd.DataFrame]:
    """Greenwood-Nam-D'Agostino statistic over bins of predicted risk (Demler, Paynter & Cook 2015).

    χ² = Σ_bins (KM risk_b(t) − mean F̂_b)² / Var_Greenwood(S_b(t)), with (bins − 1) degrees of
    freedom; a bin whose Greenwood variance is 0 adds 0, as in the authors' code. Under competing
    risks (``competing`` given) the bin's observed risk is its Aalen-Johansen cumulative incidence
    and the variance its infinitesimal-jackknife variance (:func:`aalen_johansen_risk`), the
    same comparison of observed with mean predicted risk per bin. Returns the statistic, degrees of
    freedom, p-value and the per-bin table.
    """
    t, e = truncate(time, event, horizon)
    c = None if competing is None else competing & (time <= horizon)
    rows = []
    for b in range(int(bins.max()) + 1):
        members = bins == b
        if c is None:
            observed, se = kaplan_meier_risk(t[members], e[members], horizon)
        else:
            observed, se = aalen_johansen_risk(t[members], e[members], c[members], horizon)
        rows.append(
            (
                b,
                int(members.sum()),
                int(e[members].sum()),
                float(risk[members].mean()),
                observed,
                se,
            )
        )
    table = pd.DataFrame(
        rows, columns=["bin", "n", "events", "predicted", "observed", "observed_se"]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(
            table["observed_se"] > 0,
            (table["observed"] - table["predicted"]) ** 2 / table["observed_se"] ** 2,
            0.0,
        )
    df = len(table) - 1
    chi2 = float(terms.sum())
    p_value = float(stats.chi2.sf(chi2, df)) if df > 0 else np.nan
    return chi2, df, p_value, table


def brier_terms(
    time: np.ndarray,
    event: np.ndarray,
    risk: np.ndarray,
    horizon: float,
    k_at_time: np.ndarray,
    k_at_horizon: float | np.ndarray,
    competing: np.ndarray | None = None,
) -> np.ndarray:
    """Each individual's IPCW Brier term at the horizon (Graf et al. 1999; scikit-survival).

    Cases (event by t): (1 − F̂)² / K(T_i); controls (event-free at t): F̂² / K(t); censored before
    t: 0. ``k_at_time`` is the censoring survival at each T_i (used for cases and competing
    events only); ``k_at_horizon`` K(t), one number or one per individual (a covariate censoring
    model, K(t | x_i)). Under competing risks (``competing``: True where another cause was observed)
    F̂ is the cumulative incidence of the cause of interest and a competing event by t adds
    F̂² / K(T_i) (its outcome "cause of interest by t" is 0; riskRegression's
    ``Score(..., cause=)``). The Brier score is their mean.
    """
    case = event & (time <= horizon)
    control = time > horizon
    terms = np.zeros(time.shape[0])
    terms[case] = (1.0 - risk[case]) ** 2 / k_at_time[case]
    k_at_horizon = np.broadcast_to(np.asarray(k_at_horizon, dtype=np.float64), time.shape)
    terms[control] = risk[control] ** 2 / k_at_horizon[control]
    if competing is not None:
        other = competing & (time <= horizon)
        terms[other] = risk[other] ** 2 / k_at_time[other]
    return terms


def aalen_johansen_risk(
    time: np.ndarray, event: np.ndarray, competing: np.ndarray, horizon: float
) -> tuple[float, float]:
    """Cumulative incidence of the cause of interest at ``horizon`` (Aalen-Johansen) and its
    infinitesimal-jackknife standard error.

    With u_j the distinct times, Y_j at risk, d_j events of any cause and d_j^k of the cause of
    interest, F̂_k(t) = Σ_{u_j ≤ t} Ŝ(u_{j−1}) d_j^k / Y_j, Ŝ the all-cause Kaplan-Meier (the
    estimate of scikit-survival's ``cumulative_incidence_competing_risks``, lifelines'
    ``AalenJohansenFitter`` without jitter, R's ``survfit`` multi-state and ``prodlim``). The
    variance is Σ_i IJ_i², IJ_i = ∂F̂_k(t) / ∂w_i the derivative with respect to row i's case
    weight: the infinitesimal jackknife R's ``survfit`` reports for multi-state curves.
    Before the first event of the cause the risk is 0 with SE 0.

    Parameters
    ----------
    time : ndarray of shape (n,), float
    event : ndarray of shape (n,), bool
        True where the cause of interest was observed.
    competing : ndarray of shape (n,), bool
        True where another cause was observed.
    horizon : float

    Returns
    -------
    (float, float)
        F̂_k(horizon) and its standard error.
    """
    influence = aalen_johansen_influence(time, event, competing, horizon)
    risk, ij = influence
    return risk, float(np.sqrt(np.sum(ij**2)))


def aalen_johansen_influence(
    time: np.ndarray, event: np.ndarray, competing: np.ndarray, horizon: float
) -> tuple[float, np.ndarray]:
    """F̂_k(horizon) of :func:`aalen_johansen_risk` and each row's IJ_i = ∂F̂_k / ∂w_i.

    With h_j = d_j^k / Y_j, q_j = Ŝ(u_{j−1}) h_j, B(j) = Σ_{l ≤ j} d_l / (Y_l (Y_l − d_l)) and
    m_i the index of T_i, J the last index with u_J ≤ t, p = min(m_i, J):

        IJ_i = Σ_{j ≤ p} q_j B(j−1) + B(m_i)(F̂(u_J) − F̂(u_p))
               − 1{event_i} (F̂(u_J) − F̂(u_p)) / (Y_{m_i} − d_{m_i})
               + 1{cause k at m_i ≤ J} Ŝ(u_{m_i−1}) / Y_{m_i} − Σ_{j ≤ p} q_j / Y_j

    (the product rule on Ŝ(u_{j−1}) h_j; ∂ log Ŝ(u_j) / ∂w_i = B(min(j, m_i)) − 1{event_i,
    m_i ≤ j} / (Y_{m_i} − d_{m_i})).
    """
    unique, position = np.unique(time, return_inverse=True)
    counts = np.bincount(position, minlength=unique.size).astype(float)
    at_risk = np.cumsum(counts[::-1])[::-1]
    any_event = event | competing
    deaths = np.bincount(position, weights=any_event.astype(float), minlength=unique.size)
    cause = np.bincount(position, weights=event.astype(float), minlength=unique.size)
    hazard = cause / at_risk
    with np.errstate(divide="ignore", invalid="ignore"):
        survival = np.cumprod(1.0 - deaths / at_risk)
        before = np.concatenate([[1.0], survival[:-1]])  # Ŝ(u_{j-1})
        b_terms = np.where(at_risk > deaths, deaths / (at_risk * (at_risk - deaths)), 0.0)
        leave = np.where(at_risk > deaths, 1.0 / (at_risk - deaths), 0.0)
    increments = before * hazard
    cumulative = np.cumsum(increments)  # F̂(u_j)
    last = int(np.searchsorted(unique, horizon, side="right")) - 1
    if last < 0:
        return 0.0, np.zeros(time.shape[0])
    b = np.cumsum(b_terms)
    b_before = np.concatenate([[0.0], b[:-1]])  # B(j - 1)
    c1 = np.cumsum(increments * b_before)
    c3 = np.cumsum(increments / at_risk)
    p = np.minimum(position, last)
    after = cumulative[last] - cumulative[p]
    ij = (
        c1[p]
        + b[position] * after
        - np.where(any_event, leave[position], 0.0) * after
        + np.where(event & (position <= last), before[position] / at_risk[position], 0.0)
        - c3[p]
    )
    return float(cumulative[last]), ij


def brier_censoring_influence(
    at: np.ndarray, terms: np.ndarray, cens_time: np.ndarray, cens_observed: np.ndarray
) -> np.ndarray:
    """The part of the Brier score's influence function due to estimating the censoring curve.

    Each IPCW term r_i = w_i / K(s_i) (s_i = T_i for a case, the horizon for an event-free row)
    depends on the censoring survival K, a Kaplan-Meier curve of the reference sample
    (``cens_time``, ``cens_observed``: True where an event, of any cause, was observed, so the row
    is not censored). Linearising K through its Nelson-Aalen hazard Λ_C (d r_i = r_i dΛ_C(s_i)),
    observation k of the reference sample moves Σ_i r_i by

        ψ_k = Σ_i r_i [1{T_k ≤ s_i, k censored} / R(T_k)
                       − Σ_{u ≤ min(s_i, T_k), k at risk at u} c_u / R_u²]

    with c_u the censorings at u and R_u the rows at risk of censoring at u; as in survfair's
    censoring curves (:mod:`survfair._core.censoring`), events at a tied time leave the risk set
    before censorings, so R_u = #{T ≥ u} − #{events at u} and an event at T_k is not at risk of
    censoring at T_k. This is the censoring term of riskRegression's ``Score(conservative=FALSE)``
    for a Kaplan-Meier censoring model (its ``getInfluenceFunctionBrierKMCensoringTerm``; the two
    are equal when no censoring shares its time with an event).

    Parameters
    ----------
    at : ndarray of shape (n_terms,)
        s_i, the time at which each term's weight K(s_i) is read.
    terms : ndarray of shape (n_terms,)
        r_i, the IPCW terms (0 for rows censored before the horizon: they do not contribute).
    cens_time, cens_observed : ndarray of shape (n_reference,)
        The sample on which K was estimated (the group's rows, or everyone with pooled censoring).

    Returns
    -------
    ndarray of shape (n_reference,)
        ψ_k for each row of the reference sample, in its order (not divided by n).
    """
    unique, inverse = np.unique(cens_time, return_inverse=True)
    at_risk = np.cumsum(np.bincount(inverse, minlength=unique.size)[::-1])[::-1].astype(float)
    observed = np.bincount(inverse, weights=cens_observed.astype(float), minlength=unique.size)
    censored = np.bincount(inverse, weights=(~cens_observed).astype(float), minlength=unique.size)
    risk_set = at_risk - observed
    with np.errstate(divide="ignore", invalid="ignore"):
        increment = np.where(censored > 0, censored / risk_set**2, 0.0)
        jump = np.where(risk_set > 0, 1.0 / risk_set, 0.0)
    cumulative = np.cumsum(increment)  # M(u_j) = Σ_{u ≤ u_j} c_u / R_u²
    # M at each term's s_i (0 before the first reference time)
    position = np.searchsorted(unique, at, side="right") - 1
    m_at = np.where(position >= 0, cumulative[np.maximum(position, 0)], 0.0)
    order = np.argsort(at, kind="stable")
    sorted_at = at[order]
    sorted_terms = terms[order]
    total = sorted_terms.sum()
    below_terms = np.concatenate(
        [[0.0], np.cumsum(sorted_terms)]
    )  # Σ r_i over the first j sorted terms
    below_weighted = np.concatenate([[0.0], np.cumsum(sorted_terms * m_at[order])])
    # terms with s_i < T_k, and the rest (s_i >= T_k)
    n_below = np.searchsorted(sorted_at, cens_time, side="left")
    below = below_terms[n_below]
    above = total - below
    own = cumulative[inverse]  # M(T_k)
    before = np.where(inverse > 0, cumulative[np.maximum(inverse - 1, 0)], 0.0)  # M(T_k-)
    m_k = np.where(cens_observed, before, own)
    return (
        np.where(cens_observed, 0.0, jump[inverse]) * above - below_weighted[n_below] - m_k * above
    )


def brier_influence(
    terms: np.ndarray, censoring_term: np.ndarray | None, members: np.ndarray | None = None
) -> np.ndarray:
    """Influence function of a Brier score B = Σ r_i / n over the rows of its censoring reference.

    ``censoring_term`` None: the weights held fixed, φ_i = (r_i − B) / n over the group's rows
    (riskRegression's ``Score(conservative=TRUE)``). Otherwise ψ of
    :func:`brier_censoring_influence` over the N rows of the censoring reference, of which
    ``members`` (None: all) are the group's: φ_k = (1{k in the group}(r_k − B) + ψ_k) / n.
    :func:`influence_standard_error` turns φ into a standard error.
    """
    n = terms.shape[0]
    own = (terms - terms.mean()) / n
    if censoring_term is None:
        return own
    phi = censoring_term.astype(float) / n
    if members is None:
        phi += own
    else:
        phi[members] += own
    return phi


def influence_standard_error(phi: np.ndarray) -> float:
    """sqrt(N / (N − 1) Σ (φ_k − φ̄)²): with φ = IF / N this is riskRegression's
    ``sd(IF) / sqrt(N)``."""
    size = phi.shape[0]
    if size < 2:
        return np.nan
    return float(np.sqrt(size / (size - 1) * np.sum((phi - phi.mean()) ** 2)))
