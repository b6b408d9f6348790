"""Public estimators of the model-based reference: :func:`model_based_xci` and
:func:`model_based_xauc`.

validation -> the model's pair probabilities pi_ij (engines in
:mod:`survfair._models.model_based_engine`) -> contributions -> cells and influence rows ->
:class:`~survfair._models.model_based_result.ModelBasedResult` beside the observed matrix of the
same rows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._binary.delong import placements
from .._calibration.stats import breslow_log_cumulative_hazard
from .._core.exceptions import InvalidParameterError
from .._core.inference import influence_with_rows
from .._core.options import (
    CONFIDENCE_LEVEL,
    N_RESAMPLES,
    RANDOM_STATE,
    TAU,
    TIED_TOL,
    OptionTable,
    describe_rows,
    flag,
    one_of,
    random_generator,
    real,
)
from .._core.settings import CENSORING_OPTION, METHOD, EstimatorSettings
from .._core.validation import (
    SurvivalSample,
    _column,
    check_binary_inputs,
    check_survival_inputs,
    warn_excluded_rows,
)
from .model_based_checks import check_reference_agreement, reference_agreement
from .model_based_engine import (
    cells_from_contributions,
    factorised_contributions,
    grid_terms,
    ph_exact_contributions,
    ph_monte_carlo,
)
from .model_based_result import ModelBasedResult
from .model_based_rows import PairedRows, model_based_rows, paired_rows

__all__ = ["model_based_xci", "model_based_xauc"]

_REFERENCE_METHODS = ("auto", "exact", "monte_carlo")
#: Monte-Carlo draws: at least this many before the standard error is checked, at most the other.
_MIN_DRAWS, _MAX_DRAWS = 5, 2000


@dataclass(frozen=True)
class _Source:
    """The model's predictions for the analysed rows: survival curves on a grid, or a PH model."""

    kind: str  # "grid" or "ph"
    survival: np.ndarray | None = None  # (n, m)
    times: np.ndarray | None = None  # (m,)
    lp: np.ndarray | None = None  # (n,)
    baseline: tuple | None = None  # (times, cumulative hazard) or None: Breslow from the data

    def subset(self, rows: np.ndarray) -> "_Source":
        if self.kind == "grid":
            return _Source("grid", survival=self.survival[rows], times=self.times)
        return _Source("ph", lp=self.lp[rows], baseline=self.baseline)


def _as_row_values(
    value: Any, data: pd.DataFrame | None, name: str, index: pd.Index, n: int, *, ndim: int
) -> np.ndarray:
    """A per-row prediction input (a column name of ``data``, an array, a Series or a DataFrame):
    checked for its number of rows, its pandas index (identical to the inputs', never aligned),
    numbers and finiteness, naming the rows."""
    if isinstance(value, str):
        if data is None:
            raise InvalidParameterError(
                f"{name} is a column name ({value!r}) but data is None.", parameter=name
            )
        value = _column(value, data, name)
    own = value.index if isinstance(value, (pd.Series, pd.DataFrame)) else None
    if own is not None and not own.equals(index):
        raise InvalidParameterError(
            f"{name} carries a pandas index that is not identical to the other inputs' (rows are "
            "matched by position, never aligned); pass `.to_numpy()` if the rows are in the same "
            "order.",
            parameter=name,
        )
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be numeric.", parameter=name) from None
    if array.ndim != ndim:
        shape = "(n_samples,)" if ndim == 1 else "(n_samples, n_times)"
        raise InvalidParameterError(
            f"{name} must have shape {shape}, got {array.shape}.", parameter=name
        )
    if array.shape[0] != n:
        raise InvalidParameterError(
            f"{name} has {array.shape[0]} rows but the other inputs have {n}.", parameter=name
        )
    bad = ~np.isfinite(array) if ndim == 1 else ~np.isfinite(array).all(axis=1)
    if bad.any():
        raise InvalidParameterError(
            f"{name} has NaN or infinite values at {describe_rows(bad, index)}.", parameter=name
        )
    return array


def _check_grid(survival: np.ndarray, times: Any, index: pd.Index) -> np.ndarray:
    """Grid times: finite, >= 0, strictly increasing, one per column; curves in [0, 1],
    non-increasing."""
    if times is None:
        raise InvalidParameterError(
            "times (the grid of the survival curves, shape (n_times,)) must be given with "
            "survival.",
            parameter="times",
        )
    grid = np.asarray(times, dtype=float)
    if grid.ndim != 1 or grid.size != survival.shape[1] or grid.size == 0:
        raise InvalidParameterError(
            f"times must have shape ({survival.shape[1]},), one time per column of survival; "
            f"got {grid.shape}.",
            parameter="times",
        )
    if not np.isfinite(grid).all() or (grid < 0).any() or (np.diff(grid) <= 0).any():
        raise InvalidParameterError(
            "times must be finite, >= 0 and strictly increasing.", parameter="times"
        )
    outside = ((survival < -1e-12) | (survival > 1 + 1e-12)).any(axis=1)
    if outside.any():
        raise InvalidParameterError(
            "survival must hold probabilities in [0, 1]; not so at "
            f"{describe_rows(outside, index)}.",
            parameter="survival",
        )
    rising = (np.diff(survival, axis=1) > 1e-12).any(axis=1)
    if rising.any():
        raise InvalidParameterError(
            "survival curves must be non-increasing in time; they rise at "
            f"{describe_rows(rising, index)}.",
            parameter="survival",
        )
    return grid


def _check_baseline(baseline: Any) -> tuple[np.ndarray, np.ndarray]:
    if not (isinstance(baseline, (tuple, list)) and len(baseline) == 2):
        raise InvalidParameterError(
            "baseline must be a tuple (times, cumulative_hazard) of two 1-D arrays, or None "
            "(Breslow).",
            parameter="baseline",
        )
    times, cumhaz = (np.asarray(v, dtype=float) for v in baseline)
    if times.ndim != 1 or times.shape != cumhaz.shape or times.size == 0:
        raise InvalidParameterError(
            "baseline: times and cumulative_hazard must be 1-D arrays of the same length.",
            parameter="baseline",
        )
    if (
        not np.isfinite(times).all()
        or not np.isfinite(cumhaz).all()
        or (times < 0).any()
        or (np.diff(times) <= 0).any()
        or (cumhaz < 0).any()
        or (np.diff(cumhaz) < 0).any()
    ):
        raise InvalidParameterError(
            "baseline: times must be finite, >= 0 and increasing, the cumulative hazard finite, >= "
            "0 and non-decreasing.",
            parameter="baseline",
        )
    return times, cumhaz


def _baseline_at(baseline: tuple, tau: float) -> float:
    """H0(tau) of a given baseline, linear between its times (a continuous baseline), H0(0) = 0."""
    times, cumhaz = baseline
    if tau > times[-1]:
        raise InvalidParameterError(
            f"tau={tau:g} lies beyond the last time of baseline ({times[-1]:g}); the model's "
            "baseline says nothing there: pass a smaller tau or a longer baseline.",
            parameter="tau",
        )
    return float(np.interp(tau, np.concatenate([[0.0], times]), np.concatenate([[0.0], cumhaz])))


def _reference(
    source: _Source,
    sample: SurvivalSample,
    tau: float,
    tau_given: bool,
    tied_tol: float,
    reference_method: str,
    target_se: float,
    rng,
):
    """(contributions, reference name, Monte-Carlo SE or None, draws or None) of the analysed
    rows."""
    risk, codes, g = sample.risk, sample.group_codes, sample.n_groups
    if source.kind == "grid":
        f, q = grid_terms(source.survival, source.times, tau)
        return (
            factorised_contributions(risk, codes, g, f, q, tied_tol),
            "survival_curves",
            None,
            None,
        )
    # log H0(tau): pi depends on lp_i + log H0(tau) alone (a shift of lp moves the baseline back)
    if source.baseline is None:
        log_cumhaz = breslow_log_cumulative_hazard(
            sample.time, sample.event, source.lp, tau, inclusive=not tau_given
        )
    else:
        cumhaz = _baseline_at(source.baseline, tau)
        log_cumhaz = math.log(cumhaz) if cumhaz > 0 else -math.inf
    if math.isnan(log_cumhaz):
        raise InvalidParameterError(
            f"baseline: the cumulative hazard at tau={tau:g} is NaN; it must be a number >= 0.",
            parameter="baseline",
        )
    exact = (
        reference_method in ("auto", "exact")
        or log_cumhaz == -math.inf  # no mass before tau: every pi is 0, nothing to draw
    )
    if exact:  # every pi_ij to 1e-10 relative at any n (model_based_engine.ph_exact_contributions)
        parts, _ = ph_exact_contributions(risk, codes, g, source.lp, log_cumhaz, tied_tol)
        return parts, "proportional_hazards", None, None
    parts, mc_se, draws = ph_monte_carlo(
        risk,
        codes,
        g,
        source.lp,
        log_cumhaz,
        tied_tol,
        target_se=target_se,
        max_draws=_MAX_DRAWS,
        min_draws=_MIN_DRAWS,
        rng=rng,
    )
    return parts, "proportional_hazards_monte_carlo", mc_se, draws


#: The scalar options of :func:`model_based_xci`, checked first thing in every call.
_OPTIONS = OptionTable(
    "model_based_xci",
    method=METHOD,
    tau=TAU,
    censoring=CENSORING_OPTION,
    tied_tol=TIED_TOL,
    reference_method=one_of(*_REFERENCE_METHODS),
    monte_carlo_se=real(low=0, closed="neither"),
    reference_check=one_of("refuse", "flag"),
    ci=one_of("analytic", "bootstrap", None),
    confidence_level=CONFIDENCE_LEVEL,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
    refit=flag(),
)


def model_based_xci(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    survival: Any = None,
    times: Any = None,
    model: Any = None,
    X: Any = None,
    linear_predictor: Any = None,
    baseline: Any = None,
    method: str = "ipcw",
    tau: float | None = None,
    censoring: str = "group",
    tied_tol: float = 1e-8,
    groups: Sequence | None = None,
    cluster: Any = None,
    reference_method: str = "auto",
    monte_carlo_se: float = 0.002,
    reference_check: str = "refuse",
    ci: str | None = "analytic",
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    random_state: Any = None,
    refit: bool = False,
    train: Any = None,
) -> ModelBasedResult:
    """Model-based xCI: the concordance matrix the model would have if its own predictions were
    true.

    For every cell (a, b), the expected xCI under the model's predicted distributions
    (Gönen & Heller 2005's model-based concordance, per group pair; van Klaveren et al. 2016):

    ``xCI*_ab(tau) = sum_{i in a, j in b, j != i} h(r_i, r_j) pi_ij /
    sum_{i in a, j in b, j != i} pi_ij``,

    with ``pi_ij = P_model(T_i < T_j, T_i < tau)`` (T_i, T_j independent given their covariates) and
    ``h = 1[r_i > r_j] + 1/2 1[|r_i - r_j| <= tied_tol]``, the ranking kernel of :func:`xci`.
    Returned beside the observed xCI of the same rows (:func:`xci` with the same settings) and their
    difference, the excess: an asymmetry that the model's predictions already imply (different risk
    distributions per group) is in the reference; what remains is the model's.

    Parameters
    ----------
    time, event, group, risk, data
        As :func:`xci`: observed times, event indicators (0/1), group labels, risk scores (higher =
        earlier event), and a DataFrame in which strings are column names. ``risk=None`` takes the
        model's own scores: :func:`risk_scores` of ``model`` on ``X``, or ``linear_predictor``.
    survival : array-like or DataFrame of shape (n_samples, n_times), optional
        Predicted survival probabilities S_i(times[k]) of every row (rows as the other inputs,
        before ``groups`` excludes any), non-increasing in time; with ``times``.
    times : array-like of shape (n_times,), optional
        The grid of ``survival`` (strictly increasing, >= 0, the unit of ``time``); with ``model``,
        the grid to evaluate it on (default: the distinct event times before tau, and tau).
    model : fitted lifelines or scikit-survival model, optional
        Its survival curves (:func:`predicted_risks`) on the grid are the predictions; with ``X``.
    X : DataFrame or array-like of shape (n_samples, n_features), optional
        Covariates of ``model``, one row per input row.
    linear_predictor : array-like of shape (n_samples,) or column name, optional
        A proportional-hazards model's linear predictor lp (h = exp(lp)): pi_ij has Gönen and
        Heller's closed form
        ``exp(lp_i) / (exp(lp_i) + exp(lp_j)) (1 - S0(tau)^(exp(lp_i) + exp(lp_j)))``.
    baseline : tuple (times, cumulative_hazard), optional
        The PH model's baseline cumulative hazard H0 on the scale of ``linear_predictor`` (as given,
        no centring; lifelines' ``baseline_cumulative_hazard_`` belongs to centred covariates), read
        at tau by linear interpolation. None: Breslow's estimate from the analysed rows.
    method, tau, censoring, tied_tol, groups, cluster
        As :func:`xci` (they define the observed matrix). ``tau`` is also the truncation of the
        reference; None: the last observed event time of the analysed rows (the observed estimate
        has no pair beyond it). Use the default ``method="ipcw"``: the naive estimate (truncated at
        ``tau`` as the reference is) still depends on the censoring, so under censoring it estimates
        another quantity than the reference.
    reference_method : {"auto", "exact", "monte_carlo"}, default="auto"
        The PH reference. ``"auto"`` and ``"exact"`` (the same): exact at any number of rows, every
        pi_ij to a relative error below 1e-10 (a quadrature of Gönen and Heller's closed form that
        factorises over the pair, summed in O(n K G) time; all n^2 pairs when that is cheaper).
        ``"monte_carlo"``: event times drawn from the model, pairs counted by the xCI kernel,
        until every cell's Monte-Carlo standard error is below ``monte_carlo_se`` (at most 2,000
        draws).
    monte_carlo_se : float, default=0.002
        Target Monte-Carlo standard error of every cell (``reference_method="monte_carlo"``).
    reference_check : {"refuse", "flag"}, default="refuse"
        The reference separates what the groups' risks imply from what the model adds only when
        ``risk`` is the ranking of the predictions it is built from (against other predictions the
        excess is near 0 whatever the score does). Its agreement with them
        (:attr:`ModelBasedResult.reference_agreement`: per cell, the share of pairs the score
        orders as the predicted risk at tau does) is always measured. ``"refuse"`` raises below
        0.75 in a cell; ``"flag"`` keeps the result (to study the formula on any score). Below 0.9
        the result is flagged (``reference_consistent`` False) and :func:`findings` does not
        attribute an asymmetry to the groups' risks.
    ci : {"analytic", "bootstrap", None}, default="analytic"
        ``"analytic"``: influence rows of the observed and the model-based cells of the same
        individuals, so the standard error of a difference accounts for both. ``"bootstrap"``:
        ``n_resamples`` replicates resampling individuals within groups, recomputing both (the
        censoring weights and a Breslow baseline refitted in each), percentile intervals.
    confidence_level : float, default=0.95
    n_resamples : int, default=1000
    random_state : None, int or numpy Generator, default=None
        Seed of the bootstrap and of the Monte-Carlo draws.
    refit : bool, default=False
        With ``ci="bootstrap"``, ``model`` and ``X``: refit a fresh copy of the model on every
        replicate (lifelines: a new fitter with its settings, ``fit(df, duration_col, event_col)``;
        scikit-survival: ``sklearn.base.clone``, ``fit(X, y)``) and recompute its scores, its curves
        on the grid and the observed xCI, so that the intervals include the uncertainty of the
        coefficients (the excess of the model's form, not of these fitted predictions). Without
        ``train``, the model is taken as fitted on the audited rows (time, event, X). Replicates
        whose fit does not converge are left out, with a warning giving their number.
    train : tuple (X_train, time_train, event_train), optional
        With ``refit=True``, for a model fitted on other rows: each replicate also resamples these
        rows and refits on them (the audited rows are still resampled within groups).

    Returns
    -------
    ModelBasedResult
        ``.observed`` (an :class:`XCIResult`), ``.model_based``, ``.excess`` (DataFrames), their
        standard errors and intervals, ``.summaries()`` (the excess Δbetween / Δwithin table).

    Raises
    ------
    InvalidParameterError (a TypeError)
        For arguments of the wrong type (non-numeric predictions, a baseline that is not a pair, a
        column name without ``data``), and as :func:`xci`.
    InvalidParameterError (a ValueError)
        If not exactly one of ``survival``, ``model``, ``linear_predictor`` is given;
        ``ci="bootstrap"`` with ``cluster``; a ``risk`` that does not rank people as the
        predictions do (agreement below 0.75 in a cell, ``reference_check="refuse"``); predictions
        with
        the wrong shape, a number of rows other than the inputs', an index other than theirs, NaN /
        infinite values, survival outside [0, 1] or rising (naming the rows); a grid that is not
        strictly increasing; ``tau`` (or, with ``tau=None``, the last event time) beyond the grid or
        the baseline; an invalid option (``ci``, ``confidence_level``, ``reference_method``,
        ``monte_carlo_se``, ``n_resamples``, ``refit``); ``refit=True`` without ``model`` and
        ``X`` or with ``ci`` other than ``"bootstrap"`` (``refit``), ``train`` without
        ``refit=True`` (``train``), a model that cannot be refitted (``model``); and as
        :func:`xci`.
    NoComparablePairError, PositivityError, MemoryLimitError
        As :func:`xci`.

    Warns
    -----
    UserWarning
        When the Monte-Carlo reference stops at 2,000 draws above ``monte_carlo_se``.

    See Also
    --------
    xci : the observed matrix.
    excess_delta_between, excess_delta_within : one excess disparity with its interval.
    model_based_xauc : the binary-outcome counterpart.
    calibration : whether the predictions the reference rests on are calibrated within groups.

    Notes
    -----
    Survival curves on a grid are taken as linear between grid times (S_i(0) = 1): the event time is
    uniform within an interval, so of two people whose events fall in the same interval each is
    first with probability 1/2, and pi_ij = sum_k f_i(k) [S_j(t_k) + f_j(k) / 2] with
    f_i(k) = S_i(t_{k-1}) - S_i(t_k); S at tau is interpolated the same way. This factorises, and
    the cells are exact in O(n K G) time from cumulative sums over the risk order. The proportional-
    hazards reference takes the baseline as continuous (only H0(tau) enters; with Breslow, the sum
    over events before tau, or through the last event with ``tau=None``); its pair probabilities
    do not factorise, but a quadrature of pi_ij = x_i int_0^1 e^{-s (x_i + x_j)} ds
    (x = exp(lp) H0(tau)) with positive weights does, with a proven relative error below 1e-10
    for every pair (nodes chosen from the range of x): the cells follow in O(n K G) time, K at
    most about (max lp - min lp) / 0.3 + 30. The reference treats the predictions as fixed (as
    :func:`xci` treats the score): the estimation of the model's coefficients and of a Breslow
    baseline is not in the analytic standard errors (the bootstrap refits the Breslow baseline,
    not the coefficients). The comparison assumes the predictions are calibrated within groups;
    otherwise the reference is the concordance of a different population.

    References
    ----------
    Gönen, M. and Heller, G. (2005). Concordance probability and discriminatory power in
    proportional hazards regression. Biometrika 92(4), 965-970.

    van Klaveren, D., Gönen, M., Steyerberg, E. W. and Vergouwe, Y. (2016). A new concordance
    measure for risk prediction models in external validation settings. Statistics in
    Medicine 35(23), 4136-4152.

    Wang, H. et al. (2026). Towards Fair Predictions: Group Conditional Concordance Index to
    Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872, eq. 2-7.

    Examples
    --------
    Two groups with very different baseline hazards, scored by the true risk (the linear predictor
    plus the group's log baseline hazard: a perfect model, whose own curves are the reference): the
    observed Δbetween is large, the excess is not.

    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> group = np.where(rng.random(n) < 0.5, "old", "young")
    >>> lp = rng.normal(size=n)
    >>> scale = np.where(group == "old", 2.0, 20.0)
    >>> t = scale * rng.exponential(size=n) * np.exp(-lp)
    >>> grid = np.linspace(0.5, 30, 60)
    >>> curves = np.exp(-grid[None, :] / scale[:, None] * np.exp(lp)[:, None])
    >>> risk = lp - np.log(scale)  # the hazard is exp(lp) / scale
    >>> res = survfair.model_based_xci(t, np.ones(n, bool), group, risk, survival=curves,
    ...                                times=grid, tau=30.0)
    >>> table = res.summaries().set_index(["summary", "a", "b"]).round(2)
    >>> table.loc[("delta_between", "old", "young"),
    ...           ["observed", "model_based", "excess", "p_value"]].tolist()
    [0.81, 0.8, 0.01, 0.5]
    """
    options = _OPTIONS.check(locals())
    settings = EstimatorSettings.checked(method, tau, censoring, tied_tol, False)
    level, n_resamples = options["confidence_level"], options["n_resamples"]
    target_se = options["monte_carlo_se"]
    given = [
        name
        for name, value in (
            ("survival", survival),
            ("model", model),
            ("linear_predictor", linear_predictor),
        )
        if value is not None
    ]
    if len(given) != 1:
        raise InvalidParameterError(
            "give exactly one source of predictions: survival (with times), model (with X) or "
            f"linear_predictor (with an optional baseline); got {given or 'none'}.",
            parameter=given[0] if given else "survival",
        )
    if risk is None and model is not None and X is not None:  # the model's own risk scores
        from .fitting import risk_scores

        risk = risk_scores(model, X)
        risk = pd.Series(risk, index=X.index) if isinstance(X, pd.DataFrame) else risk
    elif risk is None and linear_predictor is not None:
        risk = linear_predictor
    full, _ = check_survival_inputs(time, event, group, risk, data=data, cluster=cluster)
    sample, n_excluded = (
        (full, 0)
        if groups is None
        else check_survival_inputs(
            time, event, group, risk, data=data, groups=groups, cluster=cluster
        )
    )
    warn_excluded_rows(n_excluded, stacklevel=2)
    keep = np.isin(
        full.group_codes, [k for k, label in enumerate(full.groups) if label in sample.groups]
    )
    n_full, index = full.n_samples, full.index

    tau_given = settings.tau is not None
    if tau_given:
        tau_ref = settings.tau
    else:
        events = sample.time[sample.event]
        if events.size == 0:
            raise ValueError(
                "no event among the analysed rows: the reference needs a tau (or events)."
            )
        tau_ref = float(events.max())

    if survival is not None:
        curves = _as_row_values(survival, data, "survival", index, n_full, ndim=2)
        grid = _check_grid(curves, times, index)
        source = _Source("grid", survival=np.clip(curves, 0.0, 1.0), times=grid)
    elif model is not None:
        if X is None:
            raise InvalidParameterError(
                "model is given, so X (its covariates, one row per input row) must be given too.",
                parameter="model",
            )
        from .fitting import predicted_risks

        if isinstance(X, pd.DataFrame) and not X.index.equals(index):
            raise InvalidParameterError(
                "X carries a pandas index that is not identical to the other inputs' (rows are "
                "matched by position, never aligned); reset or align it first.",
                parameter="X",
            )
        if times is None:
            events = np.unique(sample.time[sample.event & (sample.time < tau_ref)])
            grid = np.unique(np.append(events[events > 0], tau_ref))
        else:
            grid = _check_grid(np.ones((1, np.size(times))), times, index)
        curves = 1.0 - predicted_risks(model, X, grid).to_numpy(dtype=float)
        if curves.shape[0] != n_full:
            raise InvalidParameterError(
                f"X has {curves.shape[0]} rows but the other inputs have {n_full}.", parameter="X"
            )
        source = _Source("grid", survival=curves, times=grid)
    else:
        lp = _as_row_values(linear_predictor, data, "linear_predictor", index, n_full, ndim=1)
        source = _Source(
            "ph", lp=lp, baseline=None if baseline is None else _check_baseline(baseline)
        )
    if source.kind == "grid" and tau_ref > source.times[-1]:
        what = f"tau={tau_ref:g}" if tau_given else f"the last event time ({tau_ref:g}, tau=None)"
        raise InvalidParameterError(
            f"{what} lies beyond the last time of the survival grid ({source.times[-1]:g}); the "
            "predictions say nothing there: pass a smaller tau or curves on a longer grid.",
            parameter="tau",
        )
    source = source.subset(np.flatnonzero(keep)) if n_excluded else source

    from .._xci.estimator import xci

    if ci == "bootstrap" and sample.cluster is not None:
        raise InvalidParameterError(
            "ci='bootstrap' resamples individuals, so it does not support cluster; use "
            "ci='analytic' (cluster-robust influence rows).",
            parameter="ci",
        )
    rng = random_generator(random_state)
    with warnings.catch_warnings(record=True) as caught:  # re-issued below, pointing at the caller
        warnings.simplefilter("always")
        observed = xci(
            sample.time,
            sample.event,
            sample.labels,
            sample.risk,
            method=settings.method,
            tau=settings.tau,
            censoring=settings.censoring or censoring,
            tied_tol=settings.tied_tol,
            groups=sample.groups,
            cluster=sample.cluster,
            ci="analytic" if ci == "analytic" else None,
            confidence_level=level,
        )
    for item in caught:
        warnings.warn(item.message, item.category, stacklevel=2)
    parts, name, mc_se, draws = _reference(
        source, sample, tau_ref, tau_given, settings.tied_tol, reference_method, target_se, rng
    )
    _warn_monte_carlo(mc_se, target_se)
    agreement = reference_agreement(
        sample.risk,
        sample.group_codes,
        sample.n_groups,
        _reference_risk(source, tau_ref),
        settings.tied_tol,
    )
    if reference_check == "refuse":
        check_reference_agreement(agreement, sample.groups, _SOURCE_WORDS[given[0]])
    numerator, denominator = cells_from_contributions(parts, sample.group_codes, sample.n_groups)
    fields = dict(
        groups=sample.groups,
        observed=observed,
        numerator=numerator,
        denominator=denominator,
        reference=name,
        tau=tau_ref,
        confidence_level=level,
        monte_carlo_se=mc_se,
        n_draws=draws,
        reference_agreement=agreement,
    )
    if refit or train is not None:  # the refit bootstrap: model_based_refit.py
        from .model_based_refit import refit_bootstrap

        replicates = refit_bootstrap(
            model,
            X,
            train,
            refit=refit,
            ci=ci,
            full=full,
            groups=sample.groups,
            grid=source.times if model is not None else None,
            settings=settings,
            tau=tau_ref,
            n_resamples=n_resamples,
            rng=rng,
        )
        return ModelBasedResult(**fields, replicates=replicates, ci_method="bootstrap")
    if ci == "analytic":
        rows = paired_rows(
            influence_with_rows(observed),
            parts,
            sample.group_codes,
            numerator,
            denominator,
            sample.cluster,
        )
        return ModelBasedResult(**fields, _rows=rows, ci_method="analytic")
    if ci == "bootstrap":
        replicates = _joint_bootstrap(
            sample,
            source,
            settings,
            tau_ref,
            tau_given,
            reference_method,
            target_se,
            n_resamples,
            rng,
        )
        return ModelBasedResult(**fields, replicates=replicates, ci_method="bootstrap")
    return ModelBasedResult(**fields)


#: How each source of predictions is named when the score does not follow it.
_SOURCE_WORDS = {
    "survival": "survival=",
    "model": "model= on X=",
    "linear_predictor": "linear_predictor=",
}


def _reference_risk(source: _Source, tau: float) -> np.ndarray:
    """What orders people by the reference's predicted risk at tau: -S_i(tau) of curves on a grid
    (linear between grid times, as :func:`grid_terms` reads them; S itself, not 1 - S, so that
    risks near 1 keep their order), the linear predictor of a PH model (the same order at every
    tau)."""
    if source.kind == "ph":
        return source.lp
    times, survival = source.times, source.survival
    high = min(int(np.searchsorted(times, tau, side="left")), times.size - 1)
    t_low = times[high - 1] if high > 0 else 0.0
    s_low = survival[:, high - 1] if high > 0 else np.ones(survival.shape[0])
    share = 1.0 if times[high] == t_low else (tau - t_low) / (times[high] - t_low)
    return -(s_low + share * (survival[:, high] - s_low))


def _warn_monte_carlo(mc_se, target_se) -> None:
    if mc_se is not None and np.nanmax(mc_se) >= target_se:
        warnings.warn(
            f"the Monte-Carlo reference stopped at {_MAX_DRAWS} draws with a standard error of "
            f"{np.nanmax(mc_se):.4f} (target {target_se:g}); it is included in every standard "
            "error.",
            UserWarning,
            stacklevel=3,
        )


def _joint_bootstrap(
    sample: SurvivalSample,
    source: _Source,
    settings: EstimatorSettings,
    tau_ref: float,
    tau_given: bool,
    reference_method: str,
    target_se: float,
    n_resamples: int,
    rng,
) -> np.ndarray:
    """(n_resamples, 2, G, G): observed and model-based matrices of replicates that resample
    individuals within groups (group sizes fixed), both recomputed on each (censoring and a Breslow
    baseline refitted). A replicate that fails (no comparable pair, a zero censoring survival) is
    NaN."""
    import dataclasses

    from .._core.exceptions import UndefinedXCIWarning
    from .._xci.estimator import xci

    g = sample.n_groups
    members = [np.flatnonzero(sample.group_codes == k) for k in range(g)]
    out = np.full((n_resamples, 2, g, g), np.nan)
    for r in range(n_resamples):
        rows = np.concatenate([rng.choice(m, size=m.size, replace=True) for m in members])
        rep = dataclasses.replace(
            sample,
            time=sample.time[rows],
            event=sample.event[rows],
            group_codes=sample.group_codes[rows],
            risk=sample.risk[rows],
            cluster=None,
        )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedXCIWarning)
                warnings.simplefilter("ignore", UserWarning)
                obs = xci(
                    rep.time,
                    rep.event,
                    rep.labels,
                    rep.risk,
                    method=settings.method,
                    tau=settings.tau,
                    censoring=settings.censoring or "group",
                    tied_tol=settings.tied_tol,
                    groups=sample.groups,
                    ci=None,
                )
                parts, *_ = _reference(
                    source.subset(rows),
                    rep,
                    tau_ref,
                    tau_given,
                    settings.tied_tol,
                    reference_method,
                    target_se,
                    rng,
                )
        except ValueError:
            continue
        num, den = cells_from_contributions(parts, rep.group_codes, g)
        out[r, 0] = obs.values
        with np.errstate(invalid="ignore", divide="ignore"):
            out[r, 1] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


#: The scalar options of :func:`model_based_xauc` (``positive`` is a label, ``groups`` a list).
_XAUC_OPTIONS = OptionTable(
    "model_based_xauc", tied_tol=TIED_TOL, confidence_level=CONFIDENCE_LEVEL
)


def model_based_xauc(
    y: Any,
    group: Any,
    score: Any,
    *,
    probability: Any,
    data: pd.DataFrame | None = None,
    positive: Any = 1,
    groups: Sequence | None = None,
    tied_tol: float = 1e-8,
    confidence_level: float = 0.95,
) -> ModelBasedResult:
    """Model-based xAUC: the xAUC matrix the model would have if its probabilities were true.

    ``xAUC*(a, b) = sum_{i in a, j in b, j != i} h(s_i, s_j) p_i (1 - p_j) /
    sum_{i in a, j in b, j != i} p_i (1 - p_j)``, the expected xAUC (Kallus & Zhou 2019,
    Definition 2) when each person is positive with the calibrated probability p_i, independently;
    beside the observed :func:`xauc` and the excess. Exact in O(G n log n) (cumulative sums over
    the score order, no pair formed).

    Parameters
    ----------
    y, group, score, data, positive, groups, tied_tol, confidence_level
        As :func:`xauc`.
    probability : array-like of shape (n_samples,) or column name
        Calibrated probability of the positive class, in [0, 1], one per row (before ``groups``
        excludes any).

    Returns
    -------
    ModelBasedResult
        ``.observed`` (an :class:`XAUCResult`), ``.model_based``, ``.excess`` with analytic standard
        errors (the observed cells' DeLong placement values and the reference's influence rows, of
        the same individuals) and ``.summaries()``.

    Raises
    ------
    InvalidParameterError
        As :func:`xauc`; and for a ``probability`` that is not numeric, has another number of rows
        or another index than the inputs, or lies outside [0, 1] (naming the rows).

    See Also
    --------
    xauc : the observed matrix.
    model_based_xci : the censored time-to-event counterpart.
    excess_delta_between : the excess ΔxAUC with its interval.

    References
    ----------
    Kallus, N. and Zhou, A. (2019). The Fairness of Risk Scores Beyond Classification: Bipartite
    Ranking and the xAUC Metric. NeurIPS 2019.

    Gönen, M. and Heller, G. (2005). Biometrika 92(4), 965-970.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> n = 2000
    >>> group = np.where(rng.random(n) < 0.5, "a", "b")
    >>> p = 1 / (1 + np.exp(-(rng.normal(size=n) + np.where(group == "a", 1.5, -1.5))))
    >>> y = (rng.random(n) < p).astype(int)
    >>> res = survfair.model_based_xauc(y, group, p, probability=p)
    >>> rows = res.summaries().set_index(["summary", "a", "b"]).round(2)
    >>> # prevalence alone makes it
    >>> float(rows.loc[("delta_between", "a", "b"), "model_based"]) > 0.3
    True
    """
    from .._binary.xauc import xauc

    level = _XAUC_OPTIONS.check(locals())["confidence_level"]
    full, _ = check_binary_inputs(y, group, score, data=data, positive=positive)
    sample, n_excluded = (
        (full, 0)
        if groups is None
        else check_binary_inputs(y, group, score, data=data, positive=positive, groups=groups)
    )
    keep = np.isin(
        full.group_codes, [k for k, label in enumerate(full.groups) if label in sample.groups]
    )
    p = _as_row_values(probability, data, "probability", full.index, full.n_samples, ndim=1)
    outside = (p < 0) | (p > 1)
    if outside.any():
        raise InvalidParameterError(
            f"probability must lie in [0, 1]; not so at {describe_rows(outside, full.index)}.",
            parameter="probability",
        )
    p = p[keep]
    with warnings.catch_warnings():
        if n_excluded:
            warnings.simplefilter("ignore")  # the exclusion is reported once, below
        observed = xauc(
            sample.event.astype(int),
            sample.labels,
            sample.risk,
            positive=1,
            groups=sample.groups,
            tied_tol=tied_tol,
            confidence_level=level,
        )
    warn_excluded_rows(n_excluded, stacklevel=2)
    g, codes = sample.n_groups, sample.group_codes
    parts = factorised_contributions(
        sample.risk, codes, g, p[:, None], (1.0 - p)[:, None], observed.tied_tol
    )
    numerator, denominator = cells_from_contributions(parts, codes, g)
    rows = PairedRows(
        _xauc_rows(observed, sample), model_based_rows(parts, codes, g, numerator, denominator)
    )
    agreement = reference_agreement(sample.risk, codes, g, p, observed.tied_tol)
    check_reference_agreement(agreement, sample.groups, "probability=")
    return ModelBasedResult(
        groups=sample.groups,
        observed=observed,
        numerator=numerator,
        denominator=denominator,
        reference="binary",
        tau=None,
        confidence_level=level,
        _rows=rows,
        ci_method="analytic",
        reference_agreement=agreement,
    )


def _delong(m: np.ndarray) -> np.ndarray:
    """sqrt(m / (m - 1)), 1 where m <= 1."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m > 1, np.sqrt(m / np.where(m > 1, m - 1, 1.0)), 1.0)


def _xauc_rows(observed, sample: SurvivalSample) -> np.ndarray:
    """Influence rows (n, G*G) of the observed xAUC cells from their placement values: a positive k
    of a adds (V_k(b) - theta_ab) / n1_a to cell (a, b), a negative k of b adds
    (W_k(a) - theta_ab) / n0_b, with V, W the shares of pairs k wins or loses, times DeLong et al.'s
    (1988) sqrt(m / (m - 1)) per role, so that ``rows.T @ rows`` is the DeLong covariance of
    :func:`xauc` (tested)."""
    g, codes, pos = sample.n_groups, sample.group_codes, sample.event
    n1 = np.bincount(codes[pos], minlength=g).astype(float)
    n0 = np.bincount(codes[~pos], minlength=g).astype(float)
    v10, v01 = placements(
        observed.rows, (n1, n0)
    )  # the same placement values as xauc's DeLong covariance
    theta = np.nan_to_num(observed.values)
    n = codes.shape[0]
    out = np.zeros((n, g * g))
    ar = np.arange(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        for other in range(g):
            v = v10[:, other] - theta[codes, other]
            out[ar[pos], codes[pos] * g + other] += (v / n1[codes] * _delong(n1[codes]))[pos]
            w = v01[:, other] - theta[other, codes]
            out[ar[~pos], other * g + codes[~pos]] += (w / n0[codes] * _delong(n0[codes]))[~pos]
    undefined = ~np.isfinite(observed.values.ravel())
    out[:, undefined] = np.nan
    return out
