"""Calibration of predicted risks at one horizon within one group: the estimators.

Every function takes one group's rows (times, events, predicted event probabilities
F̂(t | x) = 1 − Ŝ(t | x) at the horizon ``t``) and returns numbers; validation, the loop over
groups and horizons, the bootstrap and the result object live in :mod:`survfair._calibration`.

Fitting is left to well-kept libraries: the Kaplan-Meier estimate and its Greenwood variance come
from statsmodels' ``SurvfuncRight``, Cox models from lifelines' ``CoxPHFitter`` (Efron ties, as R's
``coxph``). What is computed here are closed forms: means, ratios, the Breslow cumulative
baseline hazard of a fitted linear predictor, Harrell's restricted cubic spline basis and the
Greenwood-Nam-D'Agostino sum.
"""

from __future__ import annotations

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
    "calibration_intercept",
    "calibration_slope",
    "rcs_basis",
    "SmoothCalibration",
    "smooth_calibration",
    "gnd_bins",
    "gnd_test",
    "brier_terms",
]

#: F̂ is kept inside [CLOGLOG_CLIP, 1 - CLOGLOG_CLIP] before the cloglog transform (only there),
#: as lifelines' ``survival_probability_calibration`` does: cloglog(0) and cloglog(1) are infinite.
CLOGLOG_CLIP = 1e-10
#: Knots of the restricted cubic spline: Harrell's default quantiles for 3 knots (Austin et al. 2020).
KNOT_QUANTILES = (0.10, 0.50, 0.90)


def cloglog(risk: np.ndarray) -> np.ndarray:
    """Complementary log-log of event probabilities, log(−log(1 − F̂)) = log Λ̂(t | x)."""
    clipped = np.clip(risk, CLOGLOG_CLIP, 1.0 - CLOGLOG_CLIP)
    return np.log(-np.log1p(-clipped))


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
    time: np.ndarray, event: np.ndarray, linear_predictor: np.ndarray, horizon: float
) -> tuple[float, float]:
    """Breslow's cumulative baseline hazard at ``horizon`` for a fixed linear predictor, and its
    variance given the predictor.

    Λ̂₀(t) = Σ_{event times s ≤ t} d_s / Σ_{j: T_j ≥ s} exp(η_j), variance Σ d_s / (Σ exp η_j)²
    (R's ``survfit`` of a Cox model with ``ctype=1``; for an offset-only model this is the whole
    variance, as no coefficient is estimated).
    """
    weight = np.exp(linear_predictor)
    order = np.argsort(time, kind="stable")
    sorted_time, sorted_weight = time[order], weight[order]
    at_risk = np.cumsum(sorted_weight[::-1])[::-1]  # sum over T_j >= T_(k), ties: first of the run
    event_times, deaths = np.unique(time[event & (time <= horizon)], return_counts=True)
    if event_times.size == 0:
        return 0.0, 0.0
    first = np.searchsorted(sorted_time, event_times, side="left")
    denominators = at_risk[first]
    return float(np.sum(deaths / denominators)), float(np.sum(deaths / denominators**2))


def calibration_intercept(time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float) -> tuple[float, float]:
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


def calibration_slope(time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float) -> tuple[float, float]:
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
        return 1.0 - np.exp(-self.baseline * np.exp(self._design(cloglog(np.asarray(risk, float))) @ self.coefficients))

    def _design(self, x: np.ndarray) -> np.ndarray:
        return rcs_basis(x, self.knots) if self.knots.size >= 3 else x[:, None]

    @property
    def errors(self) -> np.ndarray:
        """|F̂_i − F_obs(F̂_i)|: ICI is their mean, E50 their median, E90 their 90th percentile."""
        return np.abs(self.observed - self.risk)


def smooth_calibration(time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float) -> SmoothCalibration:
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


def gnd_bins(risk: np.ndarray, event_by_horizon: np.ndarray, n_bins: int, min_events: int) -> np.ndarray:
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
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float, bins: np.ndarray
) -> tuple[float, int, float, pd.DataFrame]:
    """Greenwood-Nam-D'Agostino statistic over bins of predicted risk (Demler, Paynter & Cook 2015).

    χ² = Σ_bins (KM risk_b(t) − mean F̂_b)² / Var_Greenwood(S_b(t)), with (bins − 1) degrees of
    freedom; a bin whose Greenwood variance is 0 adds 0, as in the authors' code. Returns the
    statistic, degrees of freedom, p-value and the per-bin table.
    """
    t, e = truncate(time, event, horizon)
    rows = []
    for b in range(int(bins.max()) + 1):
        members = bins == b
        observed, se = kaplan_meier_risk(t[members], e[members], horizon)
        rows.append((b, int(members.sum()), int(e[members].sum()), float(risk[members].mean()), observed, se))
    table = pd.DataFrame(rows, columns=["bin", "n", "events", "predicted", "observed", "observed_se"])
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(table["observed_se"] > 0,
                         (table["observed"] - table["predicted"]) ** 2 / table["observed_se"] ** 2, 0.0)
    df = len(table) - 1
    chi2 = float(terms.sum())
    p_value = float(stats.chi2.sf(chi2, df)) if df > 0 else np.nan
    return chi2, df, p_value, table


def brier_terms(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizon: float,
    k_at_time: np.ndarray, k_at_horizon: float,
) -> np.ndarray:
    """Each individual's IPCW Brier term at the horizon (Graf et al. 1999; scikit-survival).

    Cases (event by t): (1 − F̂)² / K(T_i); controls (event-free at t): F̂² / K(t); censored before
    t: 0. ``k_at_time`` is the censoring survival at each T_i (used for cases only). The Brier
    score is their mean.
    """
    case = event & (time <= horizon)
    control = time > horizon
    terms = np.zeros(time.shape[0])
    terms[case] = (1.0 - risk[case]) ** 2 / k_at_time[case]
    terms[control] = risk[control] ** 2 / k_at_horizon
    return terms
