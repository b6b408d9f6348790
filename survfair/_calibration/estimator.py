"""The public estimator :func:`calibration`: validation -> censoring -> per-group
calibration -> result.

Calibration within groups is the second estimator beside the pair-count kernel
(:mod:`survfair._core.kernel`): it reuses the validation gate (:mod:`survfair._core.validation`) and
the censoring curves (:mod:`survfair._core.censoring`) of xCI, and its result feeds the same
summaries, reports and plots (docs/how-to/calibration.md describes the method).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.censoring import check_positivity, fit_censoring, raise_positivity
from .._core.cox_censoring import (
    CoxCensoringModel,
    fit_cox_censoring,
    refuse_cox_options,
    require_covariates,
)
from .._core.cox_influence import CoxPersonTerms
from .._core.exceptions import (
    ConvergenceError,
    InvalidParameterError,
    PositivityError,
    PositivityWarning,
    listed,
)
from .._core.options import (
    CAUSE,
    CONFIDENCE_LEVEL,
    N_JOBS,
    N_RESAMPLES,
    PROGRESS,
    RANDOM_STATE,
    OptionTable,
    check_random_state,
    describe_rows,
    flag,
    integer,
    one_of,
    real,
)
from .._core.parallel import joblib_jobs
from .._core.progress import progress_bar
from .._core.validation import (
    SurvivalSample,
    as_numeric,
    check_numbers,
    check_survival_inputs,
    input_index,
    unmasked,
    warn_excluded_rows,
)
from .result import CalibrationResult
from .stats import (
    EVENTS_PER_PARAMETER,
    aalen_johansen_risk,
    brier_censoring_influence,
    brier_influence,
    brier_terms,
    calibration_intercept,
    calibration_slope,
    gnd_bins,
    gnd_test,
    influence_standard_error,
    kaplan_meier_risk,
    n_clipped,
    smooth_calibration,
)

__all__ = [
    "calibration",
    "risks_from_linear_predictor",
    "check_predicted_risks",
    "predicted_matrix",
]

CI_METHODS = ("analytic", "bootstrap", None)
#: ``brier_variance``: the influence function with the censoring curve's estimation
#: (riskRegression's ``Score`` default), or the weights held fixed (``Score(conservative=TRUE)``)
BRIER_VARIANCES = ("influence", "conservative")
#: points of each group's smooth calibration curve (for plots)
CURVE_POINTS = 101
#: quantiles of each group's predicted risks between which its smooth curve is drawn
CURVE_RANGE = (0.01, 0.99)


def predicted_matrix(predicted: Any, data: pd.DataFrame | None) -> tuple[np.ndarray, list[str]]:
    """The predicted risks as an (n, H) array and a name per column (for messages)."""
    if data is not None and isinstance(predicted, str):
        predicted = [predicted]
    if (
        data is not None
        and isinstance(predicted, (list, tuple))
        and predicted
        and all(isinstance(c, str) for c in predicted)
    ):
        missing = [c for c in predicted if c not in data.columns]
        if missing:
            raise InvalidParameterError(
                f"predicted: columns {missing} are not in data (columns: {list(data.columns)}).",
                parameter="predicted",
            )
        return data[list(predicted)].to_numpy(), [f"predicted column {c!r}" for c in predicted]
    if isinstance(predicted, np.ma.MaskedArray):
        predicted = unmasked(predicted, "predicted")
    if isinstance(predicted, pd.DataFrame):
        return predicted.to_numpy(), [f"predicted column {c!r}" for c in predicted.columns]
    array = np.asarray(predicted.to_numpy() if isinstance(predicted, pd.Series) else predicted)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise InvalidParameterError(
            "predicted must be 1-D (one horizon) or 2-D (one column per horizon), got "
            f"shape {array.shape}.",
            parameter="predicted",
        )
    return array, [f"predicted column {j}" for j in range(array.shape[1])]


def check_predicted_risks(
    values: np.ndarray, names: list[str], index: pd.Index | None
) -> np.ndarray:
    """Validate predicted event probabilities: numeric, finite, within [0, 1]; rows named.

    Raises
    ------
    TypeError
        For non-numeric values.
    ValueError
        For NaN / infinite values or values outside [0, 1], naming the column and the rows.
    """
    columns = []
    for j, name in enumerate(names):
        column = as_numeric(np.asarray(values[:, j]), name, index)
        outside = (column < 0) | (column > 1)
        if outside.any():
            raise InvalidParameterError(
                f"{name}: predicted risks must be event probabilities in [0, 1]; values outside at "
                f"{describe_rows(outside, index)} (a survival probability S must be "
                "passed as 1 - S).",
                parameter="predicted",
            )
        columns.append(column)
    return np.column_stack(columns)


def _check_times(times: Any, n_columns: int) -> np.ndarray:
    values = check_numbers(np.atleast_1d(times), "times")
    if values.size != n_columns:
        raise InvalidParameterError(
            f"times has {values.size} horizon(s) but predicted has {n_columns} column(s); give one "
            "column of predicted risks per horizon, in the order of times.",
            parameter="times",
        )
    if np.unique(values).size != values.size:
        raise InvalidParameterError(
            f"times must be distinct, got {[float(v) for v in values]}.", parameter="times"
        )
    if (values <= 0).any():
        raise InvalidParameterError(
            f"times must be > 0, got {[float(v) for v in values]}.", parameter="times"
        )
    return values


def _check_follow_up(sample: SurvivalSample, times: np.ndarray) -> None:
    """Each horizon must lie before each group's last observed time (the KM is defined there)."""
    for code, label in enumerate(sample.groups):
        last = float(sample.time[sample.group_codes == code].max())
        beyond = times[times >= last]
        if beyond.size:
            raise InvalidParameterError(
                f"times {[float(t) for t in beyond]} are at or beyond the follow-up of group "
                f"{label!r} (its last observed time is {last:g}); observed risk is undefined "
                "there. Pass horizons below every group's last time.",
                parameter="times",
            )


def _brier_weights(sample: SurvivalSample, curves, times: np.ndarray):
    """Censoring survival at each row's time (cases' weights) and at each horizon, per row (shape
    (n_samples, n_times)); refuses a zero weight as xCI does (PositivityError)."""
    if isinstance(curves, CoxCensoringModel):
        return _cox_brier_weights(sample, curves, times)
    k_time = np.ones(sample.n_samples)
    k_horizon = np.ones((sample.n_groups, times.size))
    cases = sample.observed & (sample.time <= times.max())
    for code in range(sample.n_groups):
        members = np.flatnonzero(cases & (sample.group_codes == code))
        k_time[members] = curves.evaluate(code, sample.time[members])
        k_horizon[code] = curves.evaluate(code, times)
        bad = ~(k_time[members] > 0)
        if bad.any():
            row = members[np.flatnonzero(bad)[0]]
            raise_positivity(curves, code, float(sample.time[row]), float(k_time[row]), sample)
        bad_h = ~(k_horizon[code] > 0)
        if bad_h.any():
            h = np.flatnonzero(bad_h)[0]
            raise_positivity(curves, code, float(times[h]), float(k_horizon[code, h]), sample)
    return k_time, k_horizon[sample.group_codes]


def _cox_brier_weights(sample: SurvivalSample, model: CoxCensoringModel, times: np.ndarray):
    """The weights of ``censoring="cox"``: G(T_i- | x_i) for an event (or competing event) by the
    last horizon (the left limit, as xCI's earlier member), G(t | x_i) at every horizon."""
    k_time = np.ones(sample.n_samples)
    cases = np.flatnonzero(sample.observed & (sample.time <= times.max()))
    x, codes = sample.covariates, sample.group_codes
    k_time[cases] = model.survival(sample.time[cases], x[cases], codes[cases], left=True)
    k_horizon = np.column_stack(
        [model.survival(np.full(sample.n_samples, t), x, codes) for t in times]
    )
    at_risk = sample.time[:, None] > times[None, :]
    bad_time = ~(k_time[cases] > 0)
    if bad_time.any() or not (k_horizon[at_risk] > 0).all():
        if bad_time.any():
            row, t = cases[np.flatnonzero(bad_time)[0]], None
        else:
            row, h = (int(v[0]) for v in np.nonzero(at_risk & ~(k_horizon > 0)))
            t = float(times[h])
        flag = np.zeros(sample.n_samples, bool)
        flag[row] = True
        at = f"T_i- = {sample.time[row]:g}" if t is None else f"the horizon {t:g}"
        raise PositivityError(
            f'censoring="cox": the predicted censoring survival G(t | x) of '
            f"{describe_rows(flag, sample.index)} (group {sample.groups[codes[row]]!r}) at {at} "
            "is 0, so its IPCW weight is infinite (positivity fails); pass earlier horizons or "
            "drop or coarsen the covariate that drives the censoring to certainty."
        )
    return k_time, k_horizon


def _cox_minima(sample: SurvivalSample, k_time, k_horizon, times) -> dict:
    """Smallest censoring survival used as a Brier weight per group (``censoring="cox"``); warns
    below 0.1 as the Kaplan-Meier path does."""
    case = sample.observed & (sample.time <= times.max())
    minima = {}
    for code, label in enumerate(sample.groups):
        members = sample.group_codes == code
        at_risk = members[:, None] & (sample.time[:, None] > times[None, :])
        used = np.concatenate([k_time[case & members], k_horizon[at_risk]])
        if used.size:
            minima[label] = float(used.min())
    low = [(label, value) for label, value in minima.items() if value < 0.1]
    if low:
        described = listed(f"group {label!r} down to {value:.3g}" for label, value in low)
        warnings.warn(
            f"predicted censoring survival G(t | x) below 0.1 by the last horizon: {described}; "
            "IPCW weights that large make the Brier score unstable. Consider earlier horizons.",
            PositivityWarning,
            stacklevel=3,
        )
    return minima


@dataclass(frozen=True)
class _Reference:
    """The censoring reference of one group's Brier weights: the rows on which its K was fitted
    (the group's own with ``censoring="group"``, everyone with ``"pooled"``), and where the
    group's rows are among them (None: all of them). None instead of a _Reference: the weights
    are held fixed (``brier_variance="conservative"``)."""

    time: np.ndarray
    observed: np.ndarray
    members: np.ndarray | None


@dataclass(frozen=True)
class _CoxReference:
    """``censoring="cox"``: every row moves the Brier weights of every group through the one Cox
    model of the censoring (:class:`survfair._core.cox_influence.CoxPersonTerms`); ``members``
    are the group's rows among all of them, ``group`` its code."""

    model: CoxPersonTerms
    members: np.ndarray
    group: int


def _group_horizon(
    time,
    event,
    competing,
    risk,
    horizon,
    k_time,
    k_horizon,
    n_bins,
    min_bin_events,
    full,
    reference,
    slope_and_curve=True,
):
    """Every statistic of one group at one horizon: dict of (estimate, se on its interval scale),
    the Brier score's influence function (over the censoring reference) and, when ``full``, the
    GND test, its bins and the smooth curve. Without ``slope_and_curve`` the two Cox models (the
    slope, the smooth curve) are not fitted: slope, ICI, E50, E90 and the curve are NaN."""
    crisks = competing is not None
    if crisks:
        observed, observed_se = aalen_johansen_risk(time, event, competing, horizon)
    else:
        observed, observed_se = kaplan_meier_risk(time, event, horizon)
    expected = float(risk.mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        oe = observed / expected if expected > 0 else np.nan
        oe_se_log = observed_se / observed if observed > 0 else np.nan
    intercept = intercept_se = slope = slope_se = np.nan
    smooth = None
    errors = np.full(risk.shape, np.nan)
    if not crisks:
        intercept, intercept_se = calibration_intercept(time, event, risk, horizon)
        if slope_and_curve:
            slope, slope_se = calibration_slope(time, event, risk, horizon)
            smooth = smooth_calibration(time, event, risk, horizon)
            errors = smooth.errors
    finite = np.isfinite(errors).all()
    terms = brier_terms(time, event, risk, horizon, k_time, k_horizon, competing)
    if reference is None:
        phi = brier_influence(terms, None)
    elif isinstance(reference, _CoxReference):  # the Cox model of the censoring refitted
        later = time > horizon  # weighted at the horizon; the others at their own time
        psi = reference.model.movement(
            reference.members,
            reference.group,
            np.where(later, 0.0, terms),
            np.where(later, terms, 0.0),
            horizon,
        )
        phi = brier_influence(terms, psi, reference.members)
    else:
        observed_any = event if competing is None else event | competing
        at = np.where(observed_any & (time <= horizon), time, horizon)
        psi = brier_censoring_influence(at, terms, reference.time, reference.observed)
        phi = brier_influence(terms, psi, reference.members)
    n = time.shape[0]
    values = {
        "observed_risk": (observed, observed_se),
        "expected_risk": (expected, float(risk.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan),
        "oe_ratio": (oe, oe_se_log),
        "intercept": (intercept, intercept_se),
        "slope": (slope, slope_se),
        "ici": (float(errors.mean()) if finite else np.nan, np.nan),
        "e50": (float(np.quantile(errors, 0.5)) if finite else np.nan, np.nan),
        "e90": (float(np.quantile(errors, 0.9)) if finite else np.nan, np.nan),
        "brier": (float(terms.mean()), influence_standard_error(phi)),
    }
    if not full:
        return values, phi, None
    events_by = event & (time <= horizon)
    bins = gnd_bins(risk, events_by, n_bins, min_bin_events)
    chi2, df, p_value, table = gnd_test(time, event, risk, horizon, bins, competing)
    # the curve where the data are: between the 1st and 99th percentiles of the group's predicted
    # risks (beyond, the spline extrapolates from a handful of people)
    lowest, highest = (float(v) for v in np.quantile(risk, CURVE_RANGE))
    grid = np.linspace(lowest, highest, CURVE_POINTS)
    curve = smooth.at(grid) if smooth is not None else np.full(grid.shape, np.nan)
    knots = smooth.knots if smooth is not None else np.array([], float)
    extras = dict(gnd=(chi2, df, p_value), bins=table, curve=(grid, curve), knots=knots)
    return values, phi, extras


def _integrated(
    briers: list[float], phis: list[np.ndarray], times: np.ndarray
) -> tuple[float, float]:
    """Integrated Brier score over the horizons (trapezoid / range, as scikit-survival) and its SE
    from the integral of the horizons' influence functions (linear, so it integrates
    term by term)."""
    span = times[-1] - times[0]
    # the estimate integrates the Brier scores (scikit-survival's order of operations, so the
    # numbers are identical)
    estimate = np.trapezoid(briers, times) / span
    phi = np.trapezoid(np.column_stack(phis), times, axis=1) / span
    return float(estimate), influence_standard_error(phi)


def _compute(
    sample,
    predicted,
    times,
    curves,
    n_bins,
    min_bin_events,
    full=True,
    brier_variance="influence",
    slope_and_curve=True,
):
    """All statistics of every group and horizon: (rows, extras by (time, group)). ``curves`` is
    the censoring Kaplan-Meier or, with ``censoring="cox"``, the :class:`CoxCensoringModel`, whose
    estimation enters the influence-function SE of the Brier scores as the Kaplan-Meier's does."""
    k_time, k_horizon = _brier_weights(sample, curves, times)
    cox = isinstance(curves, CoxCensoringModel)
    estimated = cox and brier_variance != "conservative"
    through_cox = CoxPersonTerms(sample, curves) if estimated else None
    observed = sample.observed
    rows, extras = [], {}
    for code, label in enumerate(sample.groups):
        members = sample.group_codes == code
        time, event = sample.time[members], sample.event[members]
        competing = None if sample.competing is None else sample.competing[members]
        if brier_variance == "conservative":
            reference = None
        elif cox:
            reference = _CoxReference(through_cox, np.flatnonzero(members), code)
        elif curves.kind == "pooled":
            reference = _Reference(sample.time, observed, np.flatnonzero(members))
        else:
            reference = _Reference(time, observed[members], None)
        briers, phis = [], []
        for h, horizon in enumerate(times):
            risk = predicted[members, h]
            values, phi, more = _group_horizon(
                time,
                event,
                competing,
                risk,
                float(horizon),
                k_time[members],
                k_horizon[members, h],
                n_bins,
                min_bin_events,
                full,
                reference,
                slope_and_curve,
            )
            briers.append(values["brier"][0])
            phis.append(phi)
            events = int((event & (time <= horizon)).sum())
            clipped = n_clipped(risk)
            for statistic, (estimate, se) in values.items():
                rows.append(
                    (
                        float(horizon),
                        label,
                        int(members.sum()),
                        events,
                        clipped,
                        statistic,
                        estimate,
                        se,
                    )
                )
            extras[(float(horizon), label)] = more
        if times.size >= 2:
            estimate, se = _integrated(briers, phis, times)
            total_events = int((event & (time <= times[-1])).sum())
            rows.append(
                (
                    np.nan,
                    label,
                    int(members.sum()),
                    total_events,
                    0,
                    "integrated_brier",
                    estimate,
                    se,
                )
            )
    return rows, extras


def _estimates_frame(rows: list, bootstrap: bool) -> pd.DataFrame:
    frame = pd.DataFrame(
        rows,
        columns=["time", "group", "n", "events", "n_clipped", "statistic", "estimate", "se_scale"],
    )
    if bootstrap:
        frame["se_scale"] = np.nan
    return frame


def _natural_se(frame: pd.DataFrame) -> np.ndarray:
    """SE on the statistic's own scale (delta method from the log scale for the O/E ratio)."""
    se = frame["se_scale"].to_numpy(float).copy()
    log = frame["statistic"].eq("oe_ratio").to_numpy()
    se[log] = se[log] * frame["estimate"].to_numpy(float)[log]
    return se


def _replicate(
    sample,
    predicted,
    times,
    censoring,
    n_bins,
    min_bin_events,
    slope_and_curve,
    members_by_group,
    seed,
):
    rng = np.random.default_rng(seed)
    rows = np.concatenate(
        [members[rng.integers(0, members.size, members.size)] for members in members_by_group]
    )
    rows.sort()
    resampled = SurvivalSample(
        sample.time[rows],
        sample.event[rows],
        sample.group_codes[rows],
        sample.groups,
        competing=None if sample.competing is None else sample.competing[rows],
        cause=sample.cause,
        covariates=None if sample.covariates is None else sample.covariates[rows],
        covariate_names=sample.covariate_names,
    )
    try:
        if censoring == "cox":  # the Cox model of the censoring refitted, as xci's bootstrap
            curves = fit_cox_censoring(resampled)
        else:
            curves = fit_censoring(resampled, censoring)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values, _ = _compute(
                resampled,
                predicted[rows],
                times,
                curves,
                n_bins,
                min_bin_events,
                full=False,
                brier_variance="conservative",
                slope_and_curve=slope_and_curve,
            )  # only the estimates are kept
    except (ValueError, ConvergenceError):  # a censoring weight of 0 (PositivityError) or a Cox
        return None  # censoring model that did not converge: the replicate counts as failed
    return np.array([v[6] for v in values], float)


def _replicate_batch(args: tuple, seeds: list) -> list:
    return [_replicate(*args, seed) for seed in seeds]


def _bootstrap(
    sample,
    predicted,
    times,
    censoring,
    n_bins,
    min_bin_events,
    slope_and_curve,
    n_resamples,
    random_state,
    n_jobs,
    progress,
    n_rows,
):
    import joblib

    members_by_group = [
        np.flatnonzero(sample.group_codes == code) for code in range(sample.n_groups)
    ]
    seeds = check_random_state(random_state).spawn(int(n_resamples))
    # the Cox fits (lifelines, pandas) are Python code that holds the GIL: replicates run in
    # processes, in batches so that the data travel once per batch, not once per replicate
    n_jobs = joblib_jobs(n_jobs)  # None: the joblib config in force, else every core
    n_workers = joblib.effective_n_jobs(n_jobs)
    n_batches = 1 if n_workers == 1 else min(len(seeds), 4 * n_workers)
    bounds = np.linspace(0, len(seeds), n_batches + 1).astype(int)
    batches = [seeds[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    if n_workers == 1:  # one batch per replicate keeps the progress bar moving
        batches = [[seed] for seed in seeds]
    args = (
        sample,
        predicted,
        times,
        censoring,
        n_bins,
        min_bin_events,
        slope_and_curve,
        members_by_group,
    )
    parallel = joblib.Parallel(n_jobs=n_jobs, prefer="processes", return_as="generator")
    outputs = []
    with progress_bar(len(seeds), "calibration bootstrap", progress, unit="rep") as bar:
        for out in parallel(joblib.delayed(_replicate_batch)(args, batch) for batch in batches):
            outputs += out
            bar.update(len(out))
    draws = np.full((len(seeds), n_rows), np.nan)
    failed = 0
    for b, out in enumerate(outputs):
        if out is None:
            failed += 1
        else:
            draws[b] = out
    if failed:
        warnings.warn(
            f"{failed} of {len(seeds)} bootstrap replicates failed (a censoring weight of 0, or a "
            "Cox censoring model that did not converge) and are left out of the intervals.",
            UserWarning,
            stacklevel=3,
        )
    return draws


def _warn_undefined(frame: pd.DataFrame, competing: bool, slope_and_curve: bool = True) -> None:
    """Name, per horizon and group, exactly the Cox-model statistics that came out NaN (under
    competing risks they are NaN by design, stated in the docs and the result, not warned; so
    are the slope and the curve's ICI when they were not asked for)."""
    if competing:
        return
    checked = ["intercept", "slope", "ici"] if slope_and_curve else ["intercept"]
    missing = frame[frame["statistic"].isin(checked) & frame["estimate"].isna()]
    if not len(missing):
        return
    # fewest events by the horizon each statistic needs (5 per Cox coefficient; the offset model: 1)
    needs = {"slope": EVENTS_PER_PARAMETER, "intercept": 1, "ici": 2 * EVENTS_PER_PARAMETER}
    parts = []
    for (t, g), rows in missing.groupby(["time", "group"], sort=False):
        events = int(rows["events"].iloc[0])
        present = set(rows["statistic"])
        words = []
        for statistic in ("slope", "intercept", "ici"):
            if statistic in present:
                name = "ICI, E50, E90" if statistic == "ici" else statistic
                why = (
                    f"fewer than {needs[statistic]} events"
                    if events < needs[statistic]
                    else "its Cox model could not be fitted: no convergence or no spread in "
                    "the predictions"
                )
                words.append(f"{name} ({why})")
        label = g.item() if isinstance(g, np.generic) else g  # 0.0, not np.float64(0.0)
        parts.append(
            f"{', '.join(words)} at t={float(t):g} for group {label!r}, {events} events by t"
        )
    warnings.warn(
        "calibration statistics undefined (NaN): "
        + "; ".join(parts[:8])
        + (f"; and {len(parts) - 8} more" if len(parts) > 8 else "")
        + ".",
        UserWarning,
        stacklevel=3,
    )


#: The scalar options of :func:`calibration`, checked first thing in every call.
_OPTIONS = OptionTable(
    "calibration",
    censoring=one_of("group", "pooled", "cox"),
    cause=CAUSE,
    brier_variance=one_of(*BRIER_VARIANCES),
    n_bins=integer(low=2),
    min_bin_events=integer(low=0),
    slope_and_curve=flag(),
    ci=one_of(*CI_METHODS),
    confidence_level=CONFIDENCE_LEVEL,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
    n_jobs=N_JOBS,
    progress=PROGRESS,
)


def calibration(
    time: Any,
    event: Any,
    group: Any,
    predicted: Any,
    times: Any,
    *,
    data: pd.DataFrame | None = None,
    groups: Sequence | None = None,
    censoring: str = "group",
    censoring_covariates: Any = None,
    cause: int | None = None,
    brier_variance: str = "influence",
    n_bins: int = 10,
    min_bin_events: int = 5,
    slope_and_curve: bool = True,
    ci: str | None = "analytic",
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    random_state: Any = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> CalibrationResult:
    """Calibration of predicted risks within each group, at one or more horizons.

    For each group g and horizon t, with F̂_i = F̂(t | x_i) = 1 − Ŝ(t | x_i) the predicted
    probability of an event by t:

    * **calibration-in-the-large**: observed risk 1 − S_KM,g(t) (Kaplan-Meier within the group)
      beside the mean predicted risk, and their ratio O/E with a Greenwood interval on the log
      scale, SE(log O/E) = SE_Greenwood(S) / (1 − S) (the expected risk treated as fixed, as in
      Debray et al. 2017);
    * **calibration intercept and slope on the complementary log-log scale** (Crowson, Atkinson &
      Therneau 2016): the slope is the coefficient of a Cox model of the follow-up truncated at t
      on cloglog F̂; the intercept is log Λ̂₀(t) of the Cox model with offset cloglog F̂ (slope
      fixed at 1), so cloglog F_obs = intercept + cloglog F̂; perfect: intercept 0, slope 1;
    * **smooth calibration curve, ICI, E50, E90** (Austin, Harrell & van Klaveren 2020): a Cox
      model on a restricted cubic spline of cloglog F̂ (3 knots at the 10th, 50th, 90th
      percentiles) gives the observed risk F_obs(F̂_i); ICI is the mean of |F̂_i − F_obs(F̂_i)|,
      E50 its median, E90 its 90th percentile;
    * **Greenwood-Nam-D'Agostino test** over deciles of predicted risk (Demler, Paynter & Cook
      2015), bins merged until each has ``min_bin_events`` events;
    * **Brier score** with inverse probability of censoring weights from the group's own censoring
      Kaplan-Meier (the curves of :func:`survfair.xci`), and the **integrated Brier score** over
      the horizons when there are two or more; their standard errors by default from the influence
      function that counts the estimation of the censoring curve (Gerds & Schumacher 2006; equal to
      riskRegression's ``Score``), or with the weights held fixed (``brier_variance``).

    Under **competing risks** (``cause=k``) F̂ is the predicted cumulative incidence of cause k:
    the observed risk is the group's Aalen-Johansen cumulative incidence with its
    infinitesimal-jackknife SE (as R's ``survfit`` multi-state curves and ``prodlim``), O/E and
    the GND test compare with it, and the Brier score counts a competing event by t as "no event
    of cause k" (Schoop et al. 2011, riskRegression's ``Score(..., cause=)``). The cloglog
    intercept, slope and the Cox-spline curve (ICI, E50, E90) model an all-cause hazard and are
    NaN (their competing-risks analogues on the Fine-Gray scale, Austin et al. 2022, are not
    implemented).

    Parameters
    ----------
    time : array-like of shape (n_samples,), column name, or structured array
        Observed times, float >= 0 (scikit-survival's structured ``y`` with ``event=None``).
    event : array-like of shape (n_samples,), column name, or None
        True / 1 if the event was observed, False / 0 if censored; with ``cause``, integer cause
        codes (0 = censored, 1..K = causes).
    group : array-like of shape (n_samples,), column name, or list of column names
        Sensitive-attribute labels (several columns: intersectional groups, as in :func:`xci`).
    predicted : array-like of shape (n_samples,) or (n_samples, n_times), DataFrame, column name \
or list of column names
        Predicted event probabilities F̂(t | x) in [0, 1], one column per horizon in the order of
        ``times``: a published equation's risks, :func:`survfair.predicted_risks` of a fitted
        lifelines / scikit-survival model, or :func:`survfair.risks_from_linear_predictor` of a
        published linear predictor and baseline survival; with ``cause``, the cumulative incidence
        of that cause. Values 0 and 1 are allowed; they are moved to 1e-10 and 1 − 1e-10 inside the
        cloglog transform only (as lifelines does), counted per group and horizon (``n_clipped`` of
        ``.to_frame()`` / ``.summary()``), and named by :func:`calibration_findings`: the slope,
        intercept and ICI then depend on the clip.
    times : float or sequence of float
        The horizons, in the unit of ``time``, distinct, each before every group's last time.
    data : pandas.DataFrame, optional
        Table in which string arguments are column names. Pandas inputs with differing indexes
        are refused, never aligned.
    groups : sequence, optional
        Group labels to analyse, in table order; rows of other groups are excluded (with a warning).
    censoring : {"group", "pooled", "cox"}, default="group"
        Censoring survival of the Brier weights: Kaplan-Meier within each group, or one for
        everyone; ``"cox"``: the Cox model of the censoring hazard on ``censoring_covariates``,
        the group as strata, fitted as :func:`xci` fits it (``result.censoring_model``): a death
        by t weighs 1 / G(T_i- | x_i), someone at risk after t 1 / G(t | x_i), with
        G(t | x) = exp(-L_g(t) exp(gamma'(x - center))) and L_g lifelines' Breslow baseline.
        Only the Brier and integrated Brier scores use the weights; the observed risk, O/E,
        slope, intercept, ICI and GND (Kaplan-Meier or Cox models of the events) are unchanged.
        With ``ci="analytic"`` the Brier scores' ``brier_variance="influence"`` SE includes the
        estimation of the Cox model (its coefficients and baselines, as the Kaplan-Meier's
        estimation enters with the other censorings: :mod:`survfair._core.cox_influence`);
        ``"conservative"`` holds the weights fixed. Not with ``cause``.
    censoring_covariates : array-like of shape (n_samples, p), DataFrame, or list of column names
        The covariates of the ``censoring="cox"`` model (required with it, refused without it):
        numeric, finite, at least one column and none constant.
    cause : int, optional
        Competing risks: the cause (>= 1) whose cumulative incidence ``predicted`` holds; ``event``
        then holds cause codes, and any other cause is a competing event (validated as in
        :func:`xci`).
    brier_variance : {"influence", "conservative"}, default="influence"
        Analytic SE of the Brier and integrated Brier scores. ``"influence"``: the influence
        function of the IPCW estimator including the term for the Kaplan-Meier estimation of the
        censoring weights (riskRegression's ``Score`` default, ``conservative=FALSE``; with
        ``censoring="pooled"`` the term runs over every row). ``"conservative"``: the weights held
        fixed, SD of the terms / √n (``Score(conservative=TRUE)``; larger, 45% on lung's women at
        365 days).
    n_bins : int, default=10
        Risk groups of the GND test (deciles).
    min_bin_events : int, default=5
        A bin with fewer events by the horizon is merged with a neighbour (Demler et al. 2015).
    slope_and_curve : bool, default=True
        Fit the two Cox models of each group and horizon (lifelines) that give the calibration
        slope and the smooth curve (ICI, E50, E90, ``result.curves``); they are most of the time
        of a call, and of each bootstrap replicate. False: those statistics are NaN (not
        computed, no warning); the observed and expected risks, O/E, the intercept, the GND test
        and the Brier scores are the same numbers.
    ci : {"analytic", "bootstrap", None}, default="analytic"
        ``"analytic"``: the observed risk's SE is Greenwood's for the Kaplan-Meier estimate or,
        with ``cause=``, the infinitesimal-jackknife SE of the Aalen-Johansen cumulative
        incidence (not Greenwood); O/E takes that SE on the log scale, the expected risk held
        fixed; the intercept's SE is the delta method on the variance of the offset Cox model's
        cumulative baseline hazard, the slope's the Cox model-based SE (neither is estimated
        with ``cause=``); the mean predicted risk's is SD / √n; the Brier and integrated Brier
        scores' is the influence-function SE chosen by ``brier_variance`` (by default including
        the estimation of the censoring weights). ICI, E50 and E90 get no analytic interval
        (NaN; use the bootstrap, as Austin et al. do). ``"bootstrap"``: ``n_resamples``
        replicates resampling individuals within groups, every statistic recomputed with the
        censoring refitted, percentile intervals. None: estimates only.
    confidence_level : float, default=0.95
    n_resamples : int, default=1000
        Bootstrap replicates; each fits two Cox models per group and horizon (about 0.1-0.3 s per
        replicate for 2 groups of 500 and one horizon).
    random_state : None, int, numpy Generator / RandomState / SeedSequence, default=None
        Seed of the bootstrap (per-replicate seeds spawned up front: the same numbers for any
        ``n_jobs``).
    n_jobs : int, optional
        Cores this call may use, as in every function of survfair (Conventions, "n_jobs"):
        joblib workers of the bootstrap (processes: the Cox fits hold the GIL). None: a
        ``joblib.parallel_config`` in force, else every core; -1 likewise; 1 for one.
    progress : bool, default=False
        tqdm progress bar of the bootstrap.

    Returns
    -------
    CalibrationResult
        ``.summary(t)`` (one row per group), ``.to_frame()`` (tidy), ``.contrasts()`` (between
        groups, Holm-adjusted), ``.gnd``, ``.bins`` and ``.curves`` (for the plots).

    Raises
    ------
    InvalidParameterError (a TypeError)
        For non-numeric times or predicted risks, or options of the wrong type.
    InvalidParameterError (a ValueError)
        For the input errors of :func:`xci` (lengths, NaN, negative times, events other than
        0/1, differing pandas indexes, unknown ``groups``); predicted risks outside [0, 1] or NaN
        (the column and rows named); a number of columns different from the number of horizons;
        horizons that are not distinct, not positive, or at or beyond a group's last observed time;
        unknown ``censoring`` or ``ci``; ``n_bins`` < 2 or ``min_bin_events`` < 0;
        ``censoring="cox"`` without ``censoring_covariates`` or with ``cause``, or
        ``censoring_covariates`` without ``censoring="cox"``.
    ConvergenceError
        (a RuntimeError) if the Cox model of the censoring (``censoring="cox"``) did not converge.
    PositivityError
        (a ValueError) if a censoring survival used as a Brier weight is 0.

    Warns
    -----
    PositivityWarning
        When a group's censoring survival falls below 0.1 before the last horizon.
    ExcludedRowsWarning
        When ``groups`` leaves rows out.
    UserWarning
        When a group has too few events by a horizon for the Cox models, naming the statistics that
        are NaN (slope and intercept need 5 events, the spline curve's ICI 10); not under competing
        risks, where they are NaN by design.

    See Also
    --------
    xci : discrimination across groups; :func:`fairness_profile` puts the two side by side.
    predicted_risks, risks_from_linear_predictor : where predicted risks come from.

    Notes
    -----
    With one group the Brier score equals ``sksurv.metrics.brier_score(y, y, 1 - F̂, t)`` and the
    integrated Brier score ``sksurv.metrics.integrated_brier_score`` over the same horizons; the
    observed risk equals lifelines' Kaplan-Meier. The Cox models are fitted by lifelines'
    ``CoxPHFitter`` (Efron ties, as R's ``coxph``); slope, intercept, ICI, E50, E90 and the GND
    statistic equal R's ``coxph`` / ``rms::cph`` with ``rcs`` / the authors' GND procedure (fixtures
    in ``tests/fixtures/calibration``). lifelines' ``survival_probability_calibration`` smooths with
    a flexible parametric (Royston-Parmar type) model instead of a Cox spline model, so its ICI
    differs in the smoother, not in the definition.

    References
    ----------
    Crowson, C. S., Atkinson, E. J. and Therneau, T. M. (2016). Assessing calibration of prognostic
    risk scores. Statistical Methods in Medical Research 25(4), 1692-1706.

    Austin, P. C., Harrell, F. E. and van Klaveren, D. (2020). Graphical calibration curves and the
    integrated calibration index (ICI) for survival models. Statistics in Medicine
    39(21), 2714-2742.

    Demler, O. V., Paynter, N. P. and Cook, N. R. (2015). Tests of calibration and goodness-of-fit
    in the survival setting. Statistics in Medicine 34(10), 1659-1680.

    Graf, E. et al. (1999). Assessment and comparison of prognostic classification schemes for
    survival data. Statistics in Medicine 18(17-18), 2529-2545.

    Gerds, T. A. and Schumacher, M. (2006). Consistent estimation of the expected Brier score in
    general survival models with right-censored event times. Biometrical Journal 48(6), 1029-1040.

    Aalen, O. O. and Johansen, S. (1978). An empirical transition matrix for non-homogeneous Markov
    chains based on censored observations. Scandinavian Journal of Statistics 5(3), 141-150.

    Schoop, R., Beyersmann, J., Schumacher, M. and Binder, H. (2011). Quantifying the predictive
    accuracy of time-to-event models in the presence of competing risks. Biometrical Journal 53(1),
    88-112.

    Austin, P. C., Putter, H., Giardiello, D. and van Klaveren, D. (2022). Graphical calibration
    curves and the integrated calibration index (ICI) for competing risk models. Diagnostic and
    Prognostic Research 6, 2.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=600)
    >>> t_event = rng.weibull(1.5, 600) * np.exp(-0.5 * x) * 6
    >>> t_cens = rng.uniform(0, 15, 600)
    >>> time, event = np.minimum(t_event, t_cens), t_event <= t_cens
    >>> risk5 = 1 - np.exp(-(5 / (6 * np.exp(-0.5 * x))) ** 1.5)  # the true F(5 | x)
    >>> group = np.where(rng.random(600) < 0.5, "F", "M")
    >>> res = survfair.calibration(time, event, group, risk5, times=5)
    >>> res.summary()[  # doctest: +NORMALIZE_WHITESPACE
    ...     ["n", "events", "oe_ratio", "slope"]
    ... ].round(2)
             n  events  oe_ratio  slope
    group
    F      331     131      0.91   1.30
    M      269     117      0.98   1.09

    Competing risks: event codes 0 (censored), 1, 2 and the predicted cumulative
    incidence of cause 1:

    >>> cause = np.where(event, rng.choice([1, 2], 600, p=[0.7, 0.3]), 0)
    >>> cr = survfair.calibration(time, cause, group, 0.7 * risk5, times=5, cause=1)
    >>> cr.summary()[  # doctest: +NORMALIZE_WHITESPACE
    ...     ["observed_risk", "oe_ratio", "slope"]
    ... ].round(2)
           observed_risk  oe_ratio  slope
    group
    F               0.32      0.86    NaN
    M               0.39      1.02    NaN
    """
    options = _OPTIONS.check(locals())
    n_jobs = options["n_jobs"]  # capped at the cores available
    cause, level = options["cause"], options["confidence_level"]
    n_bins, min_bin_events = options["n_bins"], options["min_bin_events"]
    slope_and_curve = options["slope_and_curve"]
    n_resamples = options["n_resamples"]

    cox = censoring == "cox"
    if cox:
        require_covariates(censoring_covariates)
        refuse_cox_options(
            cause=(
                cause,
                "(competing risks with a covariate censoring model are not supported yet)",
            )
        )
    elif censoring_covariates is not None:
        raise InvalidParameterError(
            'censoring_covariates is used only with censoring="cox" (the Cox model of the '
            f"censoring); got censoring={censoring!r}.",
            parameter="censoring_covariates",
        )
    index = input_index(
        {"time": time, "event": event, "group": group, "predicted": predicted}, data
    )
    values, names = predicted_matrix(predicted, data)
    horizons = _check_times(times, values.shape[1])
    # validate time/event/group through the one gate; the row positions ride along as the "risk"
    # so that rows excluded by ``groups=`` leave the predicted risks too
    positions = np.arange(values.shape[0], dtype=float)
    sample, n_excluded = check_survival_inputs(
        time,
        event,
        group,
        pd.Series(positions, index=index) if index is not None else positions,
        data=data,
        groups=groups,
        risk_name="predicted",
        cause=cause,
        covariates=censoring_covariates if cox else None,
    )
    warn_excluded_rows(n_excluded, stacklevel=2)
    kept = sample.risk.astype(np.int64)
    risks = check_predicted_risks(values, names, index)[kept]
    order = np.argsort(horizons)
    horizons, risks = horizons[order], risks[:, order]
    _check_follow_up(sample, horizons)

    if cox:  # the Cox model of the censoring, fitted as xci fits it
        curves = fit_cox_censoring(sample)
        minima = _cox_minima(sample, *_brier_weights(sample, curves, horizons), horizons)
    else:
        curves = fit_censoring(sample, censoring)
        minima = {}
        if (sample.observed & (sample.time <= horizons[-1])).any():
            minima = check_positivity(curves, float(horizons[-1]))
    rows, extras = _compute(
        sample,
        risks,
        horizons,
        curves,
        n_bins,
        min_bin_events,
        brier_variance=brier_variance,
        slope_and_curve=slope_and_curve,
    )
    estimates = _estimates_frame(rows, bootstrap=ci == "bootstrap")
    draws = None
    if ci == "bootstrap":
        draws = _bootstrap(
            sample,
            risks,
            horizons,
            censoring,
            n_bins,
            min_bin_events,
            slope_and_curve,
            n_resamples,
            random_state,
            n_jobs,
            progress,
            len(rows),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            estimates["se_scale"] = np.nanstd(draws, axis=0, ddof=1)
        estimates["se"] = estimates["se_scale"]
    else:
        estimates["se"] = _natural_se(estimates)
    if ci is None:
        estimates["se"] = np.nan
        estimates["se_scale"] = np.nan
    _warn_undefined(estimates, sample.competing is not None, slope_and_curve)
    return CalibrationResult(
        groups=sample.groups,
        times=horizons,
        censoring=censoring,
        ci_method=ci,
        confidence_level=level,
        n_bins=n_bins,
        min_bin_events=min_bin_events,
        n_samples=sample.n_samples,
        n_excluded=n_excluded,
        estimates=estimates,
        bins=_extra_frame(extras, "bins"),
        curves=_curve_frame(extras),
        gnd=_gnd_frame(extras),
        draws=draws,
        n_resamples=n_resamples if ci == "bootstrap" else None,
        min_censoring_survival=minima,
        cause=cause,
        brier_variance=brier_variance,
        censoring_model=curves if cox else None,
        slope_and_curve=slope_and_curve,
    )


def _extra_frame(extras: dict, key: str) -> pd.DataFrame:
    frames = []
    for (t, label), more in extras.items():
        frame = more[key].copy()
        frame.insert(0, "group", [label] * len(frame))
        frame.insert(0, "time", t)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _curve_frame(extras: dict) -> pd.DataFrame:
    frames = [
        pd.DataFrame(
            {
                "time": t,
                "group": [label] * CURVE_POINTS,
                "predicted": more["curve"][0],
                "observed": more["curve"][1],
            }
        )
        for (t, label), more in extras.items()
    ]
    return pd.concat(frames, ignore_index=True)


def _gnd_frame(extras: dict) -> pd.DataFrame:
    rows = [
        (t, label, *more["gnd"], int(more["bins"].shape[0])) for (t, label), more in extras.items()
    ]
    return pd.DataFrame(rows, columns=["time", "group", "chi2", "df", "p_value", "n_bins"])


#: The scalar options of :func:`risks_from_linear_predictor`.
_RISKS_OPTIONS = OptionTable("risks_from_linear_predictor", mean_linear_predictor=real())


def risks_from_linear_predictor(
    linear_predictor: Any,
    baseline_survival: Any,
    *,
    mean_linear_predictor: float = 0.0,
) -> np.ndarray:
    """Predicted risks of a published Cox-type equation: F̂(t | x) = 1 − S₀(t)^exp(lp − mean lp).

    The form in which the Framingham, Pooled Cohort and PREVENT-type equations are published: a
    linear predictor (sum of coefficients times covariates), the baseline survival at each
    horizon, and the mean linear predictor of the development cohort.

    Parameters
    ----------
    linear_predictor : array-like of shape (n_samples,)
        Each individual's linear predictor, float.
    baseline_survival : float or sequence of float, shape (n_times,)
        S₀(t) at each horizon, in (0, 1].
    mean_linear_predictor : float, default=0.0
        The centring constant published with the equation.

    Returns
    -------
    ndarray of shape (n_samples, n_times)
        Event probabilities, one column per horizon (pass to :func:`calibration` with the horizons).

    Raises
    ------
    InvalidParameterError (a ValueError)
        For NaN / infinite linear predictors (rows named) or baseline survival outside (0, 1].
    InvalidParameterError (a TypeError)
        For non-numeric input.

    See Also
    --------
    predicted_risks : the same from a fitted model.
    calibration : what the risks are checked with.

    Examples
    --------
    >>> from survfair import risks_from_linear_predictor
    >>> risks_from_linear_predictor([0.0, 1.0], [0.95, 0.90]).round(4)
    array([[0.05  , 0.1   ],
           [0.1301, 0.249 ]])
    """
    options = _RISKS_OPTIONS.check(locals())
    lp = np.asarray(
        linear_predictor.to_numpy() if isinstance(linear_predictor, pd.Series) else linear_predictor
    )
    if lp.ndim != 1 or lp.size == 0:
        raise InvalidParameterError(
            f"linear_predictor must be a non-empty 1-D array, got shape {lp.shape}.",
            parameter="linear_predictor",
        )
    lp = as_numeric(lp, "linear_predictor", None)
    s0 = as_numeric(np.atleast_1d(np.asarray(baseline_survival)), "baseline_survival", None)
    if s0.ndim != 1 or ((s0 <= 0) | (s0 > 1)).any():
        raise InvalidParameterError(
            f"baseline_survival must be in (0, 1] at each horizon, got {s0.tolist()}.",
            parameter="baseline_survival",
        )
    centre = options["mean_linear_predictor"]
    return 1.0 - s0[None, :] ** np.exp(lp - centre)[:, None]
