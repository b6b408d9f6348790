"""Cross-group cumulative/dynamic AUC(t) for censored data, on the xCI pair-count kernel.

At a horizon t, cumulative cases are the events with time <= t and dynamic controls the
individuals still event-free after t (time > t). Cases are encoded as events at time 0 with
weight 1 / K_a(time_i) (inverse probability of censoring, the earlier member's ``row_weight`` of
the kernel), controls as censored at time 1, so the kernel's cell (a, b) is

    xAUC_t(a, b) = sum_{i case of a} sum_{j control of b} w_i (1[r_i > r_j] + 1/2 1[tied])
                   / (sum_{i case of a} w_i * n_controls_b),

the cross-group version of the estimator of Uno et al. (2007) / Hung & Chiang (2010) that
scikit-survival's ``cumulative_dynamic_auc`` computes. Censored individuals with time <= t are
neither cases nor controls.

Competing risks (``cause=``): cases are the events of the cause of interest by t; the controls
are everyone event-free at t and, by default, also those with a competing event by t (the second
definition of Blanche, Dartigues & Jacqmin-Gadda 2013, riskRegression's ``Score``), weighing
1 / K_b(t) and 1 / K_b(time_j) -- no longer constant within a cell, so the controls carry them as
case weights of the kernel.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.censoring import fit_censoring, raise_positivity
from .._core.cox_censoring import (
    CoxCensoringModel,
    fit_cox_censoring,
    refuse_cox_options,
    require_covariates,
)
from .._core.cox_influence import cox_horizon_correction
from .._core.deprecation import DEPRECATED, renamed
from .._core.display import html_of
from .._core.exceptions import (
    InvalidParameterError,
    PositivityError,
    UndefinedXAUCWarning,
    listed,
)
from .._core.frozen import frozen_result
from .._core.groups import label_array
from .._core.influence import (
    censoring_multiplicity,
    difference_se,
    influence_rows,
    sum_by_cluster,
    time_ordered_options,
)
from .._core.intervals import (
    ConfidenceInterval,
    bounded_wald_interval,
    cell_wald_interval,
    table_interval,
    wald_p_value,
)
from .._core.kernel import (
    IndividualContributions,
    PairOptions,
    count_pairs,
    count_pairs_and_contributions,
    kernel_threads,
    later_member_arrays,
    prepare_pairs,
)
from .._core.options import (
    CAUSE,
    CONFIDENCE_LEVEL,
    N_JOBS,
    TIED_TOL,
    OptionTable,
    check_confidence_level,
    one_of,
)
from .._core.results import json_safe, readonly
from .._core.settings import CENSORING_MODELS
from .._core.validation import (
    SurvivalSample,
    check_horizons,
    check_survival_inputs,
    warn_excluded_rows,
    warn_single_cluster,
)
from .._xci.summaries import _interleaved, difference_cell_pairs

__all__ = ["xauc_t", "XAUCtResult"]


#: The scalar options of :func:`xauc_t`, checked first thing in every call.
_OPTIONS = OptionTable(
    "xauc_t",
    censoring=one_of(*CENSORING_MODELS),
    tied_tol=TIED_TOL,
    cause=CAUSE,
    controls=one_of("all", "event_free"),
    ci=one_of("analytic", None),
    confidence_level=CONFIDENCE_LEVEL,
    n_jobs=N_JOBS,
)


def xauc_t(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    times: Any,
    *,
    data: pd.DataFrame | None = None,
    groups: Sequence | None = None,
    censoring: str = "group",
    censoring_covariates: Any = None,
    tied_tol: float = 1e-8,
    cluster: Any = None,
    entry: Any = None,
    weights: Any = None,
    cause: int | None = None,
    controls: str = "all",
    ci: str | None = "analytic",
    confidence_level: float = 0.95,
    n_jobs: int | None = None,
) -> "XAUCtResult":
    """Cross-group cumulative/dynamic AUC(t): one G x G matrix per horizon.

    xAUC_t(a, b) = P[R_i > R_j | T_i <= t < T_j, G_i = a, G_j = b]: a case of group ``a``
    (event by time t) is ranked above a control of group ``b`` (event-free after t). Cases are
    weighted by 1 / K_a(time_i), the inverse probability of remaining uncensored in their own
    group; controls are unweighted (their weight 1 / K_b(t) is constant within a cell and
    cancels). The binary xAUC of Kallus & Zhou (2019, Definition 2) at outcome "event by t",
    corrected for censoring by inverse Kaplan-Meier weights, fitted within groups by default as
    in eq. 6 of Wang et al. (2026) (one factor, the case's own group's, instead of a pair's two).

    Parameters
    ----------
    time : array-like of shape (n_samples,), column name, or structured array
        Observed times (scikit-survival's structured ``y`` with ``event=None`` is accepted).
    event : array-like of shape (n_samples,), column name, or None
        True / 1 if the event was observed.
    group : array-like of shape (n_samples,), column name, or list of column names
        Sensitive-attribute labels.
    risk : array-like of shape (n_samples,) or column name
        Risk score; higher = earlier event.
    times : float or array-like of shape (n_times,)
        Horizons t, in the unit of ``time``; sorted and de-duplicated. Each must lie within
        [min(time), max(time)) (scikit-survival's check).
    data : pandas.DataFrame, optional
        Table in which string arguments are column names. Rows are matched by position;
        pandas inputs (and ``data``) whose indexes are not identical (same labels, same
        order) are refused with a ValueError, never aligned.
    groups : sequence, optional
        Labels to analyse, in matrix order; rows of other groups are excluded before the
        censoring curves are fitted (their number is warned with
        :class:`survfair.ExcludedRowsWarning`), as in :func:`survfair.xci`.
    censoring : {"group", "pooled", "cox"}, default="group"
        K_a fitted within each group (eq. 6 of Wang et al. 2026) or once for everyone (what
        scikit-survival does); ``"cox"``: the Cox model of the censoring hazard on
        ``censoring_covariates``, the group as strata, fitted as :func:`xci` fits it
        (``result.censoring_model``): a case weighs 1 / G(T_i- | x_i), a control 1 / G(t | x_j)
        (per person, so no longer constant within a cell); the analytic standard errors include
        the model's estimation (:mod:`survfair._core.cox_influence`). Not with ``cause``.
    censoring_covariates : array-like of shape (n_samples, p), DataFrame, or list of column names
        The covariates of the ``censoring="cox"`` model (required with it, refused without it):
        numeric, finite, at least one column and none constant.
    tied_tol : float, default=1e-8
        Risks with |r_i - r_j| <= tied_tol are tied and count 1/2.
    cluster : array-like of shape (n_samples,) or column name, optional
        Cluster of every row: the analytic standard errors sum each cluster's influence before
        squaring (cluster-robust, as :func:`xci`); the estimates do not change.
    entry : array-like of shape (n_samples,) or column name, optional
        Entry time of every row (delayed entry, 0 <= entry < time, unit of ``time``): a control j
        is compared with a case i only if it was under observation at the case's event time
        (entry_j < time_i), and the censoring Kaplan-Meier uses risk sets on (entry, time], as
        :func:`xci`. A control that enters after every case's time has no pair.
    weights : array-like of shape (n_samples,) or column name, optional
        Case weights (finite, >= 0; sampling weights, as :func:`xci`): a case-control pair weighs
        w_i w_j / K_a(time_i), and the censoring Kaplan-Meier is weighted. ``cases`` and
        ``controls`` stay counts of rows; ``weighted_cases`` is sum w_i / K_a(time_i).
    cause : int, optional
        Competing risks: ``event`` holds cause codes (0 = censored, 1..K = causes) and the cases
        are the events of cause ``cause`` by t (Blanche, Dartigues & Jacqmin-Gadda 2013). A case
        weighs 1 / K_a(time_i) as above; the censoring Kaplan-Meier counts every cause as an event.
        None (default): ``event`` must be 0/1.
    controls : {"all", "event_free"}, default="all"
        With ``cause``, who the controls are. ``"all"``: everyone who is not a case -- event-free
        at t (weight 1 / K_b(t)) or with a competing event by t (weight 1 / K_b(time_j)), Blanche
        et al.'s second definition and riskRegression's ``Score(..., cause=)``: the AUC of the
        cumulative incidence of the cause at t. ``"event_free"``: only those event-free at t (their
        first definition; competing events by t are neither cases nor controls). Without ``cause``
        the controls are the event-free.
    ci : {"analytic", None}, default="analytic"
        ``"analytic"``: standard errors and intervals (below). None: point estimates only (the
        se / ci columns are NaN), which saves the per-individual contributions (the intervals
        cost about 3.5x the time of the point estimates at 10^6 rows, 4 groups).
    confidence_level : float, default=0.95
        Level of the ``ci_low`` / ``ci_high`` columns.
    n_jobs : int, optional
        Cores this call may use, as in every function of survfair (Conventions, "n_jobs"):
        the threads of the kernel's per-group passes (None: a ``joblib.parallel_config`` in
        force, else every core; not 0); the numbers are bit-identical for any value.

    Returns
    -------
    XAUCtResult
        ``.to_frame()``: one row per (time, a, b), columns time, a (cases' group), b (controls'
        group), cases, controls, weighted_cases, pairs, concordant, tied_risk, numerator,
        denominator, xauc, se, ci_low, ci_high; ``.matrix(t)`` / ``.se(t)``: the G x G matrices
        at horizon t; ``.confidence_interval(level)``; ``.pairwise_deltas()``: Δwithin and
        Δbetween of every pair at every horizon with standard errors, intervals and p-values;
        ``.to_dict()``. ``se`` is the analytic
        standard error (influence functions, as for
        ``xci(..., ci="analytic")``: each case's and control's share of the cell's pairs, plus the
        Kaplan-Meier term of the case weights 1 / K_a, which are fitted on the same rows); the
        interval is Wald on the logit scale (raw scale for a cell at 0 or 1).

    Raises
    ------
    InvalidParameterError
        As :func:`survfair.xci` for the inputs; ``times`` non-numeric, not 1-D, empty,
        non-finite or outside [min(time), max(time)); unknown ``censoring`` or ``ci`` (only
        ``"analytic"`` and None); negative ``tied_tol``; ``confidence_level`` not in (0, 1);
        ``censoring="cox"`` without ``censoring_covariates`` or with ``cause``, or
        ``censoring_covariates`` without ``censoring="cox"``.
    ConvergenceError
        (a RuntimeError) if the Cox model of the censoring (``censoring="cox"``) did not converge.
    PositivityError
        (a ValueError) if a case's censoring survival K_a(time_i) is 0 or undefined (with
        ``censoring="cox"``: a G(T_i- | x_i) or G(t | x_j) of 0).
    MemoryLimitError
        (a ValueError) if the analytic intervals' influence rows (n x G^2) would not fit in
        memory; ``ci=None`` avoids them.

    Warns
    -----
    UndefinedXAUCWarning
        For cells without a case of ``a`` or a control of ``b`` at a horizon (those are NaN).
    ExcludedRowsWarning
        When ``groups`` leaves rows of other groups out (their number).

    See Also
    --------
    xci : the concordance over all comparable pairs (no horizon), the time-to-event xCI.
    xauc : the binary xAUC with DeLong intervals (no censoring).
    compare_xci : paired comparison of two scores' xCI.
    XAUCtResult : the result and its accessors.

    Notes
    -----
    With one group (and either censoring option) the diagonal equals
    ``sksurv.metrics.cumulative_dynamic_auc(y, y, risk, times)[0]``. scikit-survival chains ties
    along the sorted scores while survfair compares |r_i - r_j| <= tied_tol pairwise; the two
    differ only when distinct scores lie within ``tied_tol`` of each other.

    References
    ----------
    Uno, H., Cai, T., Tian, L. & Wei, L. J. (2007). Evaluating prediction rules for t-year
    survivors with censored regression models. JASA 102(478), 527-537.

    Hung, H. & Chiang, C. T. (2010). Estimation methods for time-dependent AUC models with
    survival data. Canadian Journal of Statistics 38(1), 8-26.

    Kallus, N. & Zhou, A. (2019). The Fairness of Risk Scores Beyond Classification. NeurIPS 32.

    Blanche, P., Dartigues, J.-F. & Jacqmin-Gadda, H. (2013). Estimating and comparing
    time-dependent areas under receiver operating characteristic curves for censored event times
    with competing risks. Statistics in Medicine 32(30), 5381-5397.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc_t([1, 2, 3, 4, 5, 6], [1, 1, 1, 0, 1, 0], list("abab" "ab"),
    ...                       [6, 5, 4, 3, 2, 1], times=[2.5])
    >>> float(res.matrix(2.5).loc["a", "b"])
    1.0

    With censoring before the horizon, the case of group b (censoring survival 3/4 in b at its
    event time) weighs 4/3:

    >>> res = survfair.xauc_t([1, 2, 3, 4, 5, 6, 7, 8], [1, 0, 1, 1, 0, 1, 1, 0], list("abababab"),
    ...                       [8, 3, 6, 5, 4, 7, 2, 1], times=[4.5])
    >>> table = res.to_frame()[["a", "b", "cases", "controls", "weighted_cases", "xauc"]]
    >>> print(table.round(4).to_string(index=False))
    a b  cases  controls  weighted_cases  xauc
    a a      2         2          2.0000  1.00
    a b      2         2          2.0000  0.75
    b a      1         2          1.3333  1.00
    b b      1         2          1.3333  0.50
    >>> round(float(res.se(4.5).loc["a", "b"]), 4)
    0.3536

    Competing risks: with cause codes and ``cause=1``, the competing event by the horizon (time 2,
    group b) is a control too (``controls="all"``), weighing 1 / K_b(2); the one at time 5 is an
    event-free control at t = 4.5 like any other:

    >>> res = survfair.xauc_t([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 1, 1, 2, 1, 1, 0], list("abababab"),
    ...                       [8, 3, 6, 5, 4, 7, 2, 1], times=[4.5], cause=1)
    >>> print(res.to_frame()[["a", "b", "cases", "controls", "xauc"]].round(4)
    ...       .to_string(index=False))
    a b  cases  controls   xauc
    a a      2         2 1.0000
    a b      2         3 0.8333
    b a      1         2 1.0000
    b b      1         3 0.6667
    """
    options = _OPTIONS.check(locals())
    n_jobs = options["n_jobs"]  # capped at the cores available
    tied_tol, level = options["tied_tol"], options["confidence_level"]
    cox = censoring == "cox"
    _check_cox_options(cox, censoring, censoring_covariates, cause)
    sample, n_excluded = check_survival_inputs(
        time,
        event,
        group,
        risk,
        data=data,
        groups=groups,
        cluster=cluster,
        entry=entry,
        weights=weights,
        cause=cause,
        covariates=censoring_covariates if cox else None,
    )
    warn_excluded_rows(n_excluded, stacklevel=2)
    warn_single_cluster(sample, ci, stacklevel=2)
    horizons = check_horizons(times, sample.time)
    # the Cox model of the censoring (fitted as xci fits it) or the Kaplan-Meier curves
    curves = fit_cox_censoring(sample) if cox else fit_censoring(sample, censoring)
    g = sample.n_groups
    competing_controls = sample.competing is not None and controls == "all"

    weighted_rows = sample.event
    if competing_controls:  # the competing events by the last horizon are controls with weights
        weighted_rows = sample.event | sample.competing
    members = np.flatnonzero(weighted_rows & (sample.time <= horizons[-1]))
    if cox:
        inverse = _cox_inverse(curves, sample, members, sample.time[members], left=True)
    else:
        inverse = _inverse_at_own_time(curves, sample, members)

    by_time = np.argsort(sample.time)  # the risk sets of the censoring fits, for the variance
    time_position = np.empty_like(by_time)
    time_position[by_time] = np.arange(by_time.shape[0])
    shared = _HorizonInputs(
        sample=sample,
        curves=curves,
        inverse=inverse,
        competing_controls=competing_controls,
        tied_tol=tied_tol,
        threads=kernel_threads(n_jobs),
        by_time=by_time,
        time_position=time_position,
        curve_of=np.zeros(g, np.int64) if censoring == "pooled" else np.arange(g, dtype=np.int64),
        with_se=ci is not None,
    )
    labels = label_array(sample.groups)
    frames, deltas, empty = [], [], []
    for t in horizons:
        case, control, counts, cells, se = _horizon_counts(shared, t)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = counts.numerator / counts.denominator
        values[counts.denominator == 0] = np.nan
        deltas.append(_horizon_deltas(float(t), values.ravel(), cells, labels, level))
        empty += [
            (float(t), sample.groups[a], sample.groups[b])
            for a, b in np.argwhere(counts.denominator == 0)
        ]
        frames.append(_horizon_frame(shared, t, case, control, counts, values, se, labels, level))
    if empty:
        shown = listed(f"t={t:g} ({a!r}, {b!r})" for t, a, b in empty)
        warnings.warn(
            f"xAUC(t) is undefined (NaN) where a group has no case or no control: {shown}.",
            UndefinedXAUCWarning,
            stacklevel=2,
        )
    return XAUCtResult(
        table=pd.concat(frames, ignore_index=True),
        groups=sample.groups,
        times=horizons,
        censoring=censoring,
        tied_tol=tied_tol,
        confidence_level=level,
        ci_method=ci,
        n_samples=sample.n_samples,
        n_excluded=n_excluded,
        cause=sample.cause,
        controls=controls if sample.cause is not None else "event_free",
        delayed_entry=sample.entry is not None,
        weighted=sample.weights is not None,
        n_clusters=sample.n_clusters,
        delta_table=pd.concat(deltas, ignore_index=True),
        censoring_model=curves if cox else None,
    )


def _check_cox_options(cox: bool, censoring: str, covariates, cause) -> None:
    """``censoring="cox"`` needs ``censoring_covariates`` and does not take ``cause`` (yet);
    ``censoring_covariates`` is refused without it (as :func:`survfair.xci`)."""
    if not cox:
        if covariates is not None:
            raise InvalidParameterError(
                'censoring_covariates is used only with censoring="cox" (the Cox model of the '
                f"censoring); got censoring={censoring!r}.",
                parameter="censoring_covariates",
            )
        return
    require_covariates(covariates)
    refuse_cox_options(
        cause=(cause, "(competing risks with a covariate censoring model are not supported yet)")
    )


def _cox_inverse(
    model: CoxCensoringModel, sample: SurvivalSample, members: np.ndarray, at, *, left: bool
) -> np.ndarray:
    """1 / G(at | x_m) (``left``: 1 / G(at- | x_m)) for the rows ``members`` (1 elsewhere), from
    the Cox model of the censoring; a G of 0 is refused (PositivityError)."""
    inverse = np.ones(sample.n_samples)
    if members.size == 0:
        return inverse
    g = model.survival(at, sample.covariates[members], sample.group_codes[members], left=left)
    bad = ~(g > 0)
    if bad.any():
        row = members[np.flatnonzero(bad)[0]]
        when = f"T_i- = {sample.time[row]:g}" if left else f"the horizon {float(at[0]):g}"
        raise PositivityError(
            f'censoring="cox": the predicted censoring survival G(t | x) of row {int(row)} '
            f"(group {sample.groups[sample.group_codes[row]]!r}) at {when} is 0, so its IPCW "
            "weight is infinite (positivity fails); pass earlier horizons or drop or coarsen the "
            "covariate that drives the censoring to certainty."
        )
    inverse[members] = 1.0 / g
    return inverse


@dataclass(frozen=True)
class _HorizonInputs:
    """What every horizon of :func:`xauc_t` shares: the validated sample, the censoring curves
    and each row's inverse weight at its own time, whether competing events are controls, the
    kernel's tolerance and threads, the time order (the variance's risk sets), each group's
    curve, and whether standard errors are wanted."""

    sample: SurvivalSample
    curves: Any
    inverse: np.ndarray
    competing_controls: bool
    tied_tol: float
    threads: int
    by_time: np.ndarray
    time_position: np.ndarray
    curve_of: np.ndarray
    with_se: bool


def _horizon_counts(shared: _HorizonInputs, t: float):
    """The cases and controls at horizon ``t``, their pair counts, and (with standard errors)
    the influence cells and the standard error of every cell."""
    sample, g = shared.sample, shared.sample.n_groups
    case = sample.event & (sample.time <= t)
    control = sample.time > t
    if shared.competing_controls:
        control = control | (sample.competing & (sample.time <= t))
    rows = case | control
    codes = sample.group_codes[rows]
    case_weight = None if sample.weights is None else sample.weights[rows]
    if shared.competing_controls:
        # controls weigh 1 / K_b(t) (event-free) or 1 / K_b(time_j) (competing)
        factor = _control_factors(shared.curves, sample, case, control, shared.inverse, t)
        case_weight = factor[rows] if case_weight is None else case_weight * factor[rows]
    elif isinstance(shared.curves, CoxCensoringModel):
        # controls weigh 1 / G(t | x_j): per person, so no longer constant within a cell
        members = np.flatnonzero(control)
        factor = _cox_inverse(
            shared.curves, sample, members, np.full(members.size, float(t)), left=False
        )
        case_weight = factor[rows] if case_weight is None else case_weight * factor[rows]
    entry = None
    if sample.entry is None:  # cases as events at time 0, controls as censored at time 1
        kernel_time = np.where(case[rows], 0.0, 1.0)
    else:  # real times, so that entry_j < time_i can be read; a case is never a later member
        # (a competing control, whose own time may precede a case's, is placed after every case)
        kernel_time = np.where(case | (sample.time > t), sample.time, t + 1.0)[rows]
        entry = np.where(case, sample.time, sample.entry)[rows]
    prepared = prepare_pairs(
        kernel_time,
        case[rows],
        codes,
        sample.risk[rows],
        g,
        shared.tied_tol,
        case_weight=case_weight,
        entry=entry,
    )
    # cases weigh 1 / K_a(time_i) as the earlier member; no truncation, no censoring curve
    options = PairOptions(
        row_weight=np.where(case[rows], shared.inverse[rows], 1.0), n_jobs=shared.threads
    )
    if not shared.with_se:
        counts, _ = count_pairs(prepared, options)
        return case, control, counts, None, np.full(g * g, np.nan)
    counts, _, parts = count_pairs_and_contributions(prepared, options)
    cox = isinstance(shared.curves, CoxCensoringModel)
    if cox:  # placed before _influence_cells writes the rows over its own copies
        earlier, later = _placed_contributions(sample, rows, parts, shared.time_position)
    cells = _influence_cells(
        sample,
        rows,
        parts,
        counts,
        shared.time_position,
        shared.curve_of,
        weights_estimated=not cox,
        controls_at=t if shared.competing_controls else None,
    )
    if cox:  # the Cox model's estimation (survfair/_core/cox_influence.py)
        cells = cells + cox_horizon_correction(
            sample, shared.by_time, shared.curves, t, counts, earlier, later
        )
    if sample.cluster is not None:  # cluster-robust: each cluster's influence summed first
        cells = sum_by_cluster(cells, sample.cluster[shared.by_time])
    return case, control, counts, cells, np.sqrt(np.einsum("ij,ij->j", cells, cells))


def _horizon_frame(shared, t, case, control, counts, values, se, labels, level) -> pd.DataFrame:
    """The rows of horizon ``t`` in the result's table: one per cell (a, b)."""
    sample, g = shared.sample, shared.sample.n_groups
    a_idx, b_idx = (i.ravel() for i in np.meshgrid(np.arange(g), np.arange(g), indexing="ij"))
    n_cases = np.bincount(sample.group_codes[case], minlength=g)
    n_controls = np.bincount(sample.group_codes[control], minlength=g)
    inverse = shared.inverse
    case_weight = inverse[case] if sample.weights is None else inverse[case] * sample.weights[case]
    weighted = np.bincount(sample.group_codes[case], weights=case_weight, minlength=g)
    low, high = cell_wald_interval(values.ravel(), se, level)
    return pd.DataFrame(
        {
            "time": float(t),
            "a": labels[a_idx],
            "b": labels[b_idx],
            "cases": n_cases[a_idx],
            "controls": n_controls[b_idx],
            "weighted_cases": weighted[a_idx],
            "pairs": counts.comparable.ravel(),
            "concordant": counts.concordant.ravel(),
            "tied_risk": counts.tied_risk.ravel(),
            "numerator": counts.numerator.ravel(),
            "denominator": counts.denominator.ravel(),
            "xauc": values.ravel(),
            "se": se,
            "ci_low": low,
            "ci_high": high,
        }
    )


def _horizon_deltas(
    t: float, values: np.ndarray, cells: np.ndarray | None, labels: np.ndarray, level: float
) -> pd.DataFrame:
    """Δwithin and Δbetween of every pair of groups at one horizon, in the row order of
    :func:`survfair.pairwise_deltas`: the difference of two cells, its standard error from the
    difference of their influence rows (NaN without), the Wald interval within [-1, 1] and
    p-value."""
    g = len(labels)
    a, b = np.triu_indices(g, k=1)
    parts = []
    for name, first, second in difference_cell_pairs(g):
        value = values[first] - values[second]
        se = (
            np.full(value.shape, np.nan)
            if cells is None
            else difference_se(cells, first, second, chunk=16)
        )
        low, high = bounded_wald_interval(value, se, level, -1.0, 1.0)
        parts.append(
            pd.DataFrame(
                {
                    "time": t,
                    "summary": name,
                    "a": labels[a],
                    "b": labels[b],
                    "value": value,
                    "se": se,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": wald_p_value(value, se),
                }
            )
        )
    return _interleaved(parts) if len(a) else parts[0]


#: what :meth:`XAUCtResult.matrix` and :meth:`XAUCtResult.se` say when no horizon is given
_NO_HORIZON = "its horizon: one of the result's times"


@frozen_result
class XAUCtResult:
    """Result of :func:`survfair.xauc_t`: one G x G cross-group AUC(t) matrix per horizon.

    Rows ``a`` are the group of the case (event by t), columns ``b`` the group of the control
    (event-free after t). The tidy table is held privately; every accessor returns a fresh copy.

    Attributes
    ----------
    groups : tuple
        Group labels in matrix order.
    times : ndarray of shape (n_times,)
        The horizons, sorted (read-only).
    censoring : {"group", "pooled", "cox"}
    tied_tol : float
    confidence_level : float
        Level of the ``ci_low`` / ``ci_high`` columns of :meth:`to_frame`.
    ci_method : {"analytic", None}
        None: point estimates only (se and intervals NaN).
    n_samples, n_excluded : int
        Rows analysed, and rows left out by ``groups=``.
    cause : int or None
        The cause of interest under competing risks (``xauc_t(cause=)``): the cases are the events
        of this cause by t. None: ``event`` was 0/1 and the cases are the events by t.
    controls : {"event_free", "all"}
        Who the controls were: ``"event_free"``, those still event-free after t (always so without
        ``cause``); ``"all"``, with ``cause``, also those with a competing event by t
        (``xauc_t(controls=)``).
    delayed_entry : bool
        Whether entry times were given (``xauc_t(entry=)``, left truncation).
    weighted : bool
        Whether case weights were given (``xauc_t(weights=)``).
    n_clusters : int or None
        Clusters of the analysed rows (``xauc_t(cluster=)``), None when rows are independent.
    censoring_model : CoxCensoringModel or None
        The fitted Cox model of the censoring with ``xauc_t(censoring="cox")``, else None.

    See Also
    --------
    xauc_t : computes it.
    XAUCResult, XCIResult : the results of the binary xAUC and of xCI.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc_t([1, 2, 3, 4, 5, 6, 7, 8], [1, 0, 1, 1, 0, 1, 1, 0], list("abababab"),
    ...                       [8, 3, 6, 5, 4, 7, 2, 1], times=[4.5])
    >>> res
    XAUCtResult(groups=['a', 'b'], times=[4.5], censoring='group', ci_method='analytic')
    AUC(t) at t = 4.5 (rows a: cases, columns b: controls):
    b (control)     a     b
    a (case)
    a           1.000 0.750
    b           1.000 0.500
    >>> print(res.matrix(4.5))  # doctest: +NORMALIZE_WHITESPACE
    b (control)    a     b
    a (case)
    a            1.0  0.75
    b            1.0  0.50
    """

    table: pd.DataFrame = field(repr=False)
    groups: tuple
    times: np.ndarray = field(repr=False)
    censoring: str
    tied_tol: float
    confidence_level: float
    ci_method: str | None
    n_samples: int
    n_excluded: int = 0
    cause: int | None = None
    controls: str = "event_free"
    delayed_entry: bool = False
    weighted: bool = False
    n_clusters: int | None = None
    delta_table: pd.DataFrame | None = field(default=None, repr=False)
    censoring_model: CoxCensoringModel | None = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "times", readonly(self.times, dtype=float))

    def pairwise_deltas(self) -> pd.DataFrame:
        """Δwithin and Δbetween for every pair of groups at every horizon.

        Δwithin(a, b) = AUC_t(a, a) - AUC_t(b, b); Δbetween(a, b) = xAUC_t(a, b) - xAUC_t(b, a): a
        case of ``a`` is ranked above a control of ``b`` more often than a case of ``b`` above a
        control of ``a``. The standard error is that of the difference of the two cells (from the
        difference of their influence rows, so their covariance through the censoring fit counts),
        the interval Wald within [-1, 1], the p-value two-sided Wald of H0: 0 (unadjusted).

        Returns
        -------
        DataFrame
            Columns time, summary ("delta_within" or "delta_between"), a, b, value, se, ci_low,
            ci_high, p_value; per horizon G (G - 1) rows in the order of
            :func:`survfair.pairwise_deltas`. se, interval and p-value are NaN with ``ci=None``.
            Empty for one group.

        Raises
        ------
        ValueError
            For a result built without the differences (by hand, without ``delta_table``).
        """
        if self.delta_table is None:
            raise ValueError(
                "this XAUCtResult carries no differences; compute it with survfair.xauc_t."
            )
        return self.delta_table  # a copy: frozen results hand out copies

    def to_frame(self) -> pd.DataFrame:
        """Tidy table, one row per (time, a, b): time, a, b, cases, controls, weighted_cases,
        pairs, concordant, tied_risk, numerator, denominator, xauc, se, ci_low, ci_high."""
        return self.table  # a copy: frozen results hand out copies

    def to_dict(self) -> dict:
        """JSON-safe dictionary of the settings, the cells and the differences
        (:meth:`pairwise_deltas`)."""
        return json_safe(
            {
                "groups": [str(g) for g in self.groups],
                "times": self.times,
                "censoring": self.censoring,
                "tied_tol": self.tied_tol,
                "confidence_level": self.confidence_level,
                "ci_method": self.ci_method,
                "n_samples": self.n_samples,
                "n_excluded": self.n_excluded,
                "cause": self.cause,
                "controls": self.controls,
                "delayed_entry": self.delayed_entry,
                "weighted": self.weighted,
                "n_clusters": self.n_clusters,
                "cells": [
                    {k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
                    for row in self.table.to_dict(orient="records")
                ],
                "deltas": []
                if self.delta_table is None
                else [
                    {k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
                    for row in self.delta_table.to_dict(orient="records")
                ],
            }
        )

    def matrix(self, horizon: float | None = None, *, time: Any = DEPRECATED) -> pd.DataFrame:
        """The G x G xAUC matrix at one horizon (rows a = cases' group, columns b = controls').

        Parameters
        ----------
        horizon : float
            One of :attr:`times` (compared exactly).
        time : float, optional
            Deprecated name of ``horizon`` (removed in 0.3).

        Returns
        -------
        DataFrame
            G x G floats, NaN where a cell has no case or no control.

        Raises
        ------
        ValueError
            If ``horizon`` is not a horizon of the result.
        TypeError
            If no horizon is given.
        """
        horizon = renamed(
            "XAUCtResult.matrix", "time", "horizon", time, horizon, missing=_NO_HORIZON
        )
        return self._pivot(horizon, "xauc")

    def se(self, horizon: float | None = None, *, time: Any = DEPRECATED) -> pd.DataFrame:
        """Standard errors aligned with :meth:`matrix` (NaN without intervals).

        Parameters
        ----------
        horizon : float
            One of :attr:`times` (compared exactly).
        time : float, optional
            Deprecated name of ``horizon`` (removed in 0.3).

        Returns
        -------
        DataFrame
            G x G floats.

        Raises
        ------
        ValueError
            If ``horizon`` is not a horizon of the result.
        TypeError
            If no horizon is given.
        """
        horizon = renamed("XAUCtResult.se", "time", "horizon", time, horizon, missing=_NO_HORIZON)
        return self._pivot(horizon, "se")

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval limits of every cell at every horizon, at ``confidence_level`` (default: the
        result's): a :class:`~survfair.ConfidenceInterval` of two Series indexed by (time, a, b)
        in the row order of :meth:`to_frame`. Logit-Wald from the standard errors, as every
        probability in survfair (at 0 or 1, or with se 0, the raw Wald interval clipped to
        [0, 1]; NaN without se).

        Raises
        ------
        TypeError, ValueError
            If ``confidence_level`` is not a number in (0, 1).
        """
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        low, high = cell_wald_interval(
            self.table["xauc"].to_numpy(), self.table["se"].to_numpy(), level
        )
        return table_interval(
            self.table[["time", "a", "b"]].assign(ci_low=low, ci_high=high), ["time", "a", "b"]
        )

    def _pivot(self, time: float, column: str) -> pd.DataFrame:
        at = self.table[self.table["time"] == float(time)]
        if at.empty:
            raise InvalidParameterError(
                f"time {time!r} is not a horizon of this result (horizons: {self.times.tolist()}).",
                parameter="time",
            )
        labels = list(self.groups)
        frame = at.pivot(index="a", columns="b", values=column).reindex(
            index=labels, columns=labels
        )
        frame.index.name, frame.columns.name = "a (case)", "b (control)"
        return frame

    def _repr_html_(self) -> str | None:
        """Jupyter display: per horizon the matrix in percent with intervals and flags, the
        differences with adjusted p-values, and the findings (as a report's AUC(t) sections)."""
        return html_of(self)

    def __repr__(self) -> str:
        extra = ""  # the data-structure settings, when given (the plain call's repr is unchanged)
        if self.cause is not None:
            extra += f", cause={self.cause!r}, controls={self.controls!r}"
        if self.delayed_entry:
            extra += ", delayed_entry=True"
        if self.weighted:
            extra += ", weighted=True"
        if self.n_clusters is not None:
            extra += f", n_clusters={self.n_clusters}"
        head = (
            f"XAUCtResult(groups={list(self.groups)}, times={self.times.tolist()}, "
            f"censoring={self.censoring!r}, ci_method={self.ci_method!r}{extra})"
        )
        return head + "\n" + _numbers_text(self)


#: the terminal shows the matrices of at most this many horizons and groups (the rest: .to_frame())
_REPR_HORIZONS, _REPR_GROUPS = 6, 8


def _numbers_text(result: XAUCtResult) -> str:
    """The AUC(t) matrices for a terminal: per horizon, rows a (case group) by columns b (control
    group), three decimals; beyond :data:`_REPR_HORIZONS` horizons or :data:`_REPR_GROUPS` groups
    a line says where every number is."""
    groups = len(result.groups)
    if groups > _REPR_GROUPS:
        return (
            f"{groups} x {groups} cells at each of {len(result.times)} horizons: .to_frame() or "
            ".matrix(t)"
        )
    lines = []
    with pd.option_context("display.width", 120):
        for t in result.times[:_REPR_HORIZONS]:
            lines += [
                f"AUC(t) at t = {float(t):g} (rows a: cases, columns b: controls):",
                result.matrix(float(t)).to_string(float_format="{:.3f}".format),
            ]
    if len(result.times) > _REPR_HORIZONS:
        lines.append(
            f"... and {len(result.times) - _REPR_HORIZONS} more horizons: .to_frame() or .matrix(t)"
        )
    return "\n".join(line.rstrip() for block in lines for line in block.splitlines())


def case_control_definition(result: XAUCtResult) -> tuple[str, str]:
    """(who the cases are, who the controls are) at a horizon t, in words, from the result's
    settings (``cause``, ``controls``): what the command line and the report print above AUC(t).

    Parameters
    ----------
    result : XAUCtResult

    Returns
    -------
    tuple of str
        e.g. ``("an event by t", "event-free after t")``; under competing risks with
        ``cause=1, controls="all"``: ``("an event of cause 1 by t", "event-free after t or a
        competing event (cause other than 1) by t")``.
    """
    if result.cause is None:
        return "an event by t", "event-free after t"
    cases = f"an event of cause {result.cause} by t"
    if result.controls == "all":
        return (
            cases,
            f"event-free after t or a competing event (cause other than {result.cause}) by t",
        )
    return cases, "event-free after t (a competing event by t makes neither a case nor a control)"


def _inverse_at_own_time(curves, sample, members: np.ndarray) -> np.ndarray:
    """1 / K_g(time_m) for the rows ``members`` (1 elsewhere), raising when a K is 0 or
    undefined."""
    inverse = np.ones(sample.n_samples)
    for code in range(sample.n_groups):
        mine = members[sample.group_codes[members] == code]
        if mine.size == 0:
            continue
        k = curves.evaluate(code, sample.time[mine])
        bad = ~(k > 0)
        if bad.any():
            first = np.flatnonzero(bad)[0]
            raise_positivity(curves, code, float(sample.time[mine[first]]), float(k[first]), sample)
        inverse[mine] = 1.0 / k
    return inverse


def _control_factors(curves, sample, case, control, inverse, t) -> np.ndarray:
    """Competing risks: every control's censoring weight at horizon t -- 1 / K_b(t) when event-free
    at t, 1 / K_b(time_j) (``inverse``) when its competing event came by t."""
    factor = np.ones(sample.n_samples)
    competing = control & (sample.time <= t)
    factor[competing] = inverse[competing]
    for code in range(sample.n_groups):
        free = control & ~competing & (sample.group_codes == code)
        if free.any():
            k = float(curves.evaluate(code, np.array([t]))[0])
            if not k > 0:
                raise_positivity(curves, code, float(t), k, sample)
            factor[free] = 1.0 / k
    return factor


def _placed_contributions(sample, rows, parts, time_position, later=None) -> tuple:
    """((earlier numerator, denominator), (later numerator, denominator)), (n, G) each: the
    kernel's contributions of the cases and controls ``rows`` placed at everyone's positions in the
    time order (``time_position``), 0 for the other rows; the later halves written into
    ``later`` (two zeroed (n, G) arrays) when given."""
    n, g = sample.n_samples, sample.n_groups
    position = time_position[np.flatnonzero(rows)[parts.order]]
    destinations = [np.zeros((n, g)), np.zeros((n, g))]
    destinations += list(later) if later is not None else [np.zeros((n, g)), np.zeros((n, g))]
    for everyone, values in zip(
        destinations,
        (
            parts.earlier_numerator,
            parts.earlier_denominator,
            parts.later_numerator,
            parts.later_denominator,
        ),
    ):
        everyone[position] = values
    return tuple(destinations[:2]), tuple(destinations[2:])


def _influence_cells(
    sample, rows, parts, counts, time_position, curve_of, weights_estimated=True, controls_at=None
) -> np.ndarray:
    """Influence rows (n, G*G), in time order, of the cells at one horizon (see :func:`xauc_t`).

    The kernel saw only the cases and controls (``rows``, a mask), in its own time order; everyone
    else has no pair but is part of the censoring fit, so the contributions are placed among all
    rows, at their positions in the time order of everyone (``time_position``), before the
    influence rows are formed (one inverse-K factor per pair: the case's own group's curve).
    ``weights_estimated=False`` leaves out the Kaplan-Meier term (weights treated as known).

    ``controls_at`` (competing risks with weighted controls: the horizon t) adds the controls' own
    factors to the Kaplan-Meier term: a competing control's 1 / K_b(time_j) at its own time, an
    event-free control's 1 / K_b(t) at t (its sums are placed at the last row with time <= t, so
    that exactly the censorings up to t see them).
    """
    n, g = sample.n_samples, sample.n_groups
    by_time = np.empty_like(time_position)
    by_time[time_position] = np.arange(n)
    selected = np.flatnonzero(rows)[parts.order]
    position = time_position[selected]
    block, *later = later_member_arrays(n, g)  # the kernel's layout: rows written over it below
    earlier, later = _placed_contributions(sample, rows, parts, time_position, later)
    placed = [*earlier, *later]
    second, point = None, None
    if controls_at is not None and weights_estimated:
        # competing controls: their own factor at their own time, at their own position
        free = sample.time[selected] > controls_at
        sources = []
        for values in (parts.later_numerator, parts.later_denominator):
            everyone = np.zeros((n, g))
            everyone[position[~free]] = values[~free]
            sources.append(everyone)
        second = (np.zeros((n, g)), np.zeros((n, g)), *sources)
        # event-free controls: the factor at t, as sums per cell (a, b) at the last row with
        # time <= t
        cell = np.arange(g)[None, :] * g + sample.group_codes[selected][free][:, None]
        point = (
            np.searchsorted(sample.time[by_time], controls_at, side="right") - 1,
            np.bincount(cell.ravel(), weights=parts.later_numerator[free].ravel(), minlength=g * g),
            np.bincount(
                cell.ravel(), weights=parts.later_denominator[free].ravel(), minlength=g * g
            ),
        )
    contributions = IndividualContributions(
        *placed, order=by_time, second_kind=second, later_block=block
    )
    mult = (
        censoring_multiplicity(curve_of, g, later_factor=False)
        if weights_estimated
        else np.zeros((0, g * g))
    )
    cells, _ = influence_rows(
        sample.time[by_time],
        sample.observed[by_time],
        sample.group_codes[by_time],
        contributions,
        counts.numerator.ravel(),
        counts.denominator.ravel(),
        curve_of,
        mult,
        time_ordered_options(sample, by_time),
        point,
        overwrite=True,  # the placed copies are not read again
    )
    return cells
