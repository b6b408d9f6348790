"""The public estimator :func:`xci`: validation -> censoring -> pair counts -> result."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.censoring import (
    CensoringCurves,
    check_positivity,
    fit_censoring,
    raise_positivity,
)
from .._core.cox_censoring import (
    check_cox_positivity,
    cox_pair_counts,
    fit_cox_censoring,
    refuse_cox_options,
    require_covariates,
)
from .._core.cox_influence import cox_influence
from .._core.exceptions import InvalidParameterError, warn_undefined_cells
from .._core.inference import BOOTSTRAP_METHOD, CI, STRATIFY_OPTION, with_inference
from .._core.influence import rows_beyond_contributions
from .._core.kernel import (
    IndividualContributions,
    PairCounts,
    PairOptions,
    PreparedPairs,
    count_pairs,
    count_pairs_and_contributions,
    kernel_threads,
    prepare_sample,
)
from .._core.memory import require_memory
from .._core.moments import moments_apply
from .._core.options import (
    CAUSE,
    CONFIDENCE_LEVEL,
    N_JOBS,
    N_RESAMPLES,
    PROGRESS,
    RANDOM_STATE,
    OptionTable,
    describe_rows,
    one_of,
)
from .._core.results import XCIResult
from .._core.settings import CENSORING_MODELS, SETTINGS_OPTIONS, EstimatorSettings
from .._core.validation import (
    SurvivalSample,
    check_survival_inputs,
    raise_no_comparable_pair,
    warn_excluded_rows,
    warn_single_cluster,
)
from .on_dask import is_dask_frame, xci_dask

__all__ = ["xci", "estimate_xci"]


def _reference_sample(
    reference: Any, data_columns: dict, groups: tuple, cause: int | None = None
) -> SurvivalSample:
    """Validate ``censoring_reference``: a DataFrame with the analysis' column names, or
    (time, event, group).

    With competing risks (``cause``) its event column holds cause codes too: any cause is an event
    of the censoring fit (the reference need not contain the cause of interest)."""
    if isinstance(reference, pd.DataFrame):
        if not all(isinstance(data_columns[k], (str, list)) for k in ("time", "event", "group")):
            raise InvalidParameterError(
                "censoring_reference is a DataFrame, so time, event and group must be column names "
                "of data.",
                parameter="censoring_reference",
            )
        args = (data_columns["time"], data_columns["event"], data_columns["group"])
        # entry / weights named as columns of data are read from the reference too (a weighted,
        # left-truncated censoring fit); given as arrays they belong to the evaluated rows only
        extra = {
            name: column
            for name in ("entry", "weights")
            if isinstance(column := data_columns.get(name), str)
        }
        return _observed_only(
            check_survival_inputs(
                *args,
                data=reference,
                groups=groups,
                require_risk=False,
                **extra,
                cause=cause,
                require_cause=False,
            )[0]
        )
    if isinstance(reference, (tuple, list)) and len(reference) == 3:
        time, event, group = reference
        sample, _ = check_survival_inputs(
            time,
            event,
            group,
            data=None,
            groups=groups,
            require_risk=False,
            cause=cause,
            require_cause=False,
        )
        return _observed_only(sample)
    raise InvalidParameterError(
        "censoring_reference must be a DataFrame with the same columns as data, or a tuple "
        f"(time, event, group); got {type(reference).__name__}.",
        parameter="censoring_reference",
    )


def _refuse_with_cox(censoring_reference, cause) -> None:
    """What ``censoring="cox"`` does not take (yet), refused naming the parameter."""
    refuse_cox_options(
        censoring_reference=(
            censoring_reference,
            "(the censoring model is fitted on the evaluated rows, whose covariates it needs)",
        ),
        cause=(cause, "(competing risks with a covariate censoring model are not supported yet)"),
    )


def _check_dask_options(ci, **options) -> None:
    """A Dask DataFrame gets the exact point estimate (``ci=None``) or the exact analytic intervals
    (``ci="analytic"``, cluster-robust with ``cluster``), with ``weights``, ``cluster`` and
    ``entry`` named as columns; the options that the partitions cannot yet compute apart are
    refused, naming them and the remedy."""
    if ci not in (None, "analytic"):
        raise InvalidParameterError(
            f"with a Dask DataFrame as data, xci computes the point estimate (ci=None) or the "
            f"analytic intervals (ci='analytic'); got ci={ci!r}: the bootstrap resamples every "
            "row, so compute the frame (.compute()) to use it.",
            parameter="ci",
        )
    for name in ("weights", "cluster", "entry"):
        value = options.pop(name, None)
        if value is not None and not isinstance(value, str):
            raise InvalidParameterError(
                f"{name}: with a Dask DataFrame as data, {name} must name one of its columns; "
                f"got {type(value).__name__}.",
                parameter=name,
            )
    given = [name for name, value in options.items() if value is not None]
    if given:
        raise InvalidParameterError(
            f"with a Dask DataFrame as data, {', '.join(given)} "
            f"{'is' if len(given) == 1 else 'are'} not supported; compute the frame (.compute()) "
            f"to use {'it' if len(given) == 1 else 'them'}.",
            parameter=given[0],
        )


def _observed_only(sample: SurvivalSample) -> SurvivalSample:
    """The censoring fit reads ``observed``: every cause is an event there."""
    if sample.competing is None:
        return sample
    return dataclasses.replace(sample, event=sample.observed, competing=None, cause=None)


@dataclass(frozen=True)
class CountingPlan:
    """How the pairs of one validated sample are counted: the typed settings, the censoring
    curves (None for the naive estimator), the rows already sorted by time and risk (None: sort
    them), the kernel's threads, and the sample the curves were fitted on when known (a
    positivity error then names the rows that emptied a left-truncated risk set)."""

    settings: EstimatorSettings
    curves: CensoringCurves | None = None
    prepared: PreparedPairs | None = None
    n_jobs: int = 1
    reference: SurvivalSample | None = None

    @property
    def pair_options(self) -> PairOptions:
        """What the kernel takes besides the rows: the settings' truncation (both estimators
        truncate at tau, as R's ``concordance(ymax=)`` truncates Harrell's C) and time
        convention, the curves' IPCW weights, the threads."""
        return PairOptions.of(self.settings, self.curves, self.n_jobs)


def _count(sample: SurvivalSample, plan: CountingPlan, kernel) -> tuple:
    """``kernel`` (:func:`count_pairs` or :func:`count_pairs_and_contributions`) on ``sample``
    with ``plan``'s options: (counts, bad[, contributions])."""
    rows = plan.prepared
    if rows is None:  # sorted here, with the sample's case weights, entry times, competing events
        rows = prepare_sample(sample, plan.settings.tied_tol)
    return kernel(rows, plan.pair_options)


def estimate_xci(sample: SurvivalSample, plan: CountingPlan) -> PairCounts:
    """Pair counts of validated data (shared by :func:`xci`, the bootstrap and mitigation).

    Raises
    ------
    PositivityError
        If a censoring survival used as a weight is 0 or undefined.
    NoComparablePairError
        If no pair is comparable (or, for IPCW, every comparable pair has weight 0).
    """
    counts, bad = _count(sample, plan, count_pairs)
    return _checked(counts, bad, sample, plan.curves, plan.settings.tau, plan.reference)


def estimate_xci_with_contributions(
    sample: SurvivalSample, plan: CountingPlan
) -> tuple[PairCounts, IndividualContributions]:
    """:func:`estimate_xci` plus every individual's contributions (for the analytic variance),
    from the same kernel passes. Raises as :func:`estimate_xci`, and
    :class:`survfair.MemoryLimitError` before the passes when the contributions and the influence
    rows built from them would not fit (8 (4G + 1) bytes a row from two groups on, the rows written
    over the later members' sums: 26 GB at 10^8 rows and G = 8, where minutes of passes would
    otherwise end in a MemoryError; 8 (6G + 1) with delayed entry and weights estimated on
    ``sample``, 8 (4G + G^2 + 1) with pooled censoring estimated on it, from three groups on)."""
    n, g = sample.n_samples, sample.n_groups
    # curves fitted on these rows: the influence rows carry their Kaplan-Meier term
    ipcw = plan.settings.method == "ipcw"
    estimated = plan.curves.kind if ipcw and plan.reference is sample else None
    beyond = rows_beyond_contributions(g, estimated, delayed_entry=sample.entry is not None)
    arrays = 4 * g * (2 if sample.competing is not None else 1) + beyond + 1
    require_memory(
        8.0 * n * arrays,
        f"analytic intervals: the influence rows and contributions of {g * g} cells "
        f"for {n} rows ({arrays} numbers a row)",
        ("groups", "bootstrap", "no_intervals"),
    )
    counts, bad, contributions = _count(sample, plan, count_pairs_and_contributions)
    checked = _checked(counts, bad, sample, plan.curves, plan.settings.tau, plan.reference)
    return checked, contributions


def _checked(
    counts: PairCounts, bad, sample: SurvivalSample, curves, tau, reference=None
) -> PairCounts:
    """Raise for a weight that cannot be formed or for no usable pair; else return ``counts``."""
    if bad is not None:
        row, column = bad
        own = sample.group_codes[row]
        t = sample.time[row]
        k_own = curves.evaluate(own, np.array([t]))[0]
        culprit = own if not (k_own > 0) else column
        raise_positivity(
            curves, culprit, float(t), float(curves.evaluate(culprit, np.array([t]))[0]), reference
        )
    if counts.comparable.sum() == 0:
        raise_no_comparable_pair()
    if counts.denominator.sum() == 0:
        raise_no_comparable_pair(_zero_denominator(sample, tau))
    return counts


def _zero_denominator(sample: SurvivalSample, tau: float | None) -> str:
    """Why comparable pairs exist but their weights sum to 0: truncation at ``tau`` (IPCW), or case
    weights of 0 on the events (or on every later member of an event's pairs)."""
    used = sample.event if tau is None else sample.event & (sample.time < tau)
    if sample.weights is None or not used.any():
        return f"every comparable pair has its earlier event at or after tau={tau}"
    where = "" if tau is None else f" before tau={tau:g}"
    if not (sample.weights[used] > 0).any():
        return (
            f"every comparable pair has weight 0: the weights of the events{where} are all 0 "
            f"({describe_rows(used, sample.index)})"
        )
    return (
        f"every comparable pair has weight 0: each event{where} of positive weight is compared "
        "only with rows of weight 0"
    )


#: The scalar options of :func:`xci`, checked first thing in every call.
_OPTIONS = OptionTable(
    "xci",
    **{**SETTINGS_OPTIONS, "censoring": one_of(*CENSORING_MODELS)},
    cause=CAUSE,
    ci=CI,
    confidence_level=CONFIDENCE_LEVEL,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
    n_jobs=N_JOBS,
    progress=PROGRESS,
    stratify=STRATIFY_OPTION,
    bootstrap_method=BOOTSTRAP_METHOD,
)


def xci(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    method: str = "ipcw",
    tau: float | None = None,
    censoring: str = "group",
    censoring_covariates: Any = None,
    tied_tol: float = 1e-8,
    censoring_reference: Any = None,
    groups: Sequence | None = None,
    strict: bool = False,
    cluster: Any = None,
    entry: Any = None,
    weights: Any = None,
    cause: int | None = None,
    ci: str | None = "analytic",
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    random_state: Any = None,
    n_jobs: int | None = None,
    progress: bool = False,
    stratify: str | None = "group",
    bootstrap_method: str = "bca",
) -> XCIResult:
    """Group-conditional concordance index: the full G x G xCI matrix in one O(G n log n) pass.

    ``xCI_{a,b} = P(R_i > R_j | T_i < T_j, G_i = a, G_j = b)`` (eq. 2 of Wang et al. 2026),
    estimated naively (eq. 4, Harrell-style) or with truncated inverse probability of censoring
    weights (eq. 5-7). A higher ``risk`` means an earlier expected event; survival probabilities or
    predicted times must be negated first (nothing flips a sign silently).

    Parameters
    ----------
    time : array-like of shape (n_samples,), column name, or structured array
        Observed times min(T, U), float >= 0, in any unit. May also be scikit-survival's
        structured ``y`` (event, time), with ``event=None``.
    event : array-like of shape (n_samples,), column name, or None
        True / 1 if the event was observed, False / 0 if censored.
    group : array-like of shape (n_samples,), column name, or list of column names
        Sensitive-attribute labels (any hashable). Several columns are combined into
        intersectional labels such as ``"F|Black"``, one per distinct tuple of labels (a ``|`` or
        backslash inside a label is escaped with a backslash, so two tuples never share a name;
        labels that would still print the same, such as ``1`` and ``"1"``, are refused).
    risk : array-like of shape (n_samples,) or column name
        Risk score, float; higher = earlier event.
    data : pandas.DataFrame or dask.dataframe.DataFrame, optional
        Table in which string arguments are column names. Rows are matched by position;
        pandas inputs (and ``data``) whose indexes are not identical (same labels, same
        order) are refused with a ValueError, never aligned. A Dask DataFrame gives the exact
        point estimate (``ci=None``) or the analytic intervals (the default ``ci="analytic"``,
        equal to the in-memory ones) of a cohort larger than memory: single columns as roles,
        ``weights``, ``cluster`` and ``entry`` as column names; no ``cause``,
        ``censoring_reference``, ``censoring="cox"`` or bootstrap (docs: how-to, large data).
    method : {"ipcw", "naive"}, default="ipcw"
        ``"naive"``: eq. 4 (ratio of concordant to comparable pairs). ``"ipcw"``: eq. 7, each
        comparable pair weighted by 1 / (K_a(O_i) K_b(O_i)).
    tau : float, optional
        Truncation time (same unit as ``time``): only pairs whose earlier member has time < tau
        count (eq. 5), in both estimators: the naive one is then Harrell's C truncated at tau, as
        R's ``survival::concordance(ymax=)`` computes it (R keeps an event at exactly ymax, survfair
        stops before tau, as its IPCW estimator does). None: no truncation.
    censoring : {"group", "pooled", "cox"}, default="group"
        ``"group"``: Kaplan-Meier of the censoring distribution within each group (eq. 6);
        ``"pooled"``: one curve for everyone (scikit-survival's ``concordance_index_ipcw``);
        ``"cox"``: a Cox model of the censoring hazard on ``censoring_covariates``, the group as
        strata (Gerds et al. 2013), for censoring that depends on covariates within groups: a
        comparable pair (i, j) weighs 1 / (G(t_i- | x_i) G(t_i | x_j)), with
        G(t | x) = exp(-L_g(t) exp(gamma'(x - center))) from lifelines' ``CoxPHFitter``
        (censoring as the event; Breslow baseline L_g of the person's group g, a right-continuous
        step function; t- its left limit). The fitted model is ``result.censoring_model``. The
        sums are exact to 1e-12 relative (a series of O(G n log n) passes; docs: how-to, Cox
        censoring). Not with ``ci="analytic"`` (use ``ci="bootstrap"``, which refits the model in
        each replicate), ``censoring_reference``, ``cause`` or a Dask DataFrame.
    censoring_covariates : array-like of shape (n_samples, p), DataFrame, or list of column names
        The covariates of the ``censoring="cox"`` model (required with it, refused without it):
        numeric, finite, at least one column and none constant.
    tied_tol : float, default=1e-8
        Risks with |r_i - r_j| <= tied_tol are tied and count 1/2.
    censoring_reference : DataFrame or tuple (time, event, group), optional
        Sample on which K_g is fitted (like scikit-survival's ``survival_train``); by default the
        evaluated data. A DataFrame must have the same column names as ``data``.
    groups : sequence, optional
        Group labels to analyse, in matrix order. Rows of other groups are excluded (with a
        warning giving their number; ``result.n_excluded``). Default: all labels, sorted. The
        exclusion comes first: the censoring curves (pooled or per group, and those of a
        ``censoring_reference``) are fitted on the rows of these groups only, as if the data held
        nothing else, so a subset audit equals the audit of the subset's rows.
    strict : bool, default=False
        Use the paper's literal eq. 3-4: comparable only if O_i < O_j strictly, tied risk counts 0.
        The default follows scikit-survival (a censored time equal to an event time is later;
        tied risk counts 1/2).
    cluster : array-like of shape (n_samples,) or column name, optional
        Cluster of every row (hospital, practice, family, the person of repeated records): rows of
        one cluster may be dependent, clusters are independent. The point estimate is unchanged;
        the analytic variance sums each cluster's influence before squaring (cluster-robust, as R's
        ``concordance(..., cluster=)``) and the bootstrap resamples whole clusters (within groups
        when every cluster lies in one group, otherwise all clusters together; BCa's acceleration
        then comes from the clusters' summed influence). Missing labels are refused, naming rows.
        A single cluster gives standard errors of 0 (zero-width intervals) and a warning.
    entry : array-like of shape (n_samples,) or column name, optional
        Time each row entered observation (delayed entry, left truncation; 0 <= entry < time, in
        the unit of ``time``). A pair (i, j) is comparable only if j was under observation at
        i's event (entry_j < time_i, plus the time rule), and the censoring Kaplan-Meier uses risk
        sets on (entry, time] (a ``censoring_reference`` DataFrame is read with the same entry
        column when ``entry`` names one). None: everyone is observed from time 0. The estimand
        then weighs each event time t by P(E < t)^2 (both members entered before t; docs:
        how-to, intervals), which differs from the population xCI when concordance changes over
        time.
    weights : array-like of shape (n_samples,) or column name, optional
        Case weights, finite and >= 0: a pair weighs w_i w_j (times its IPCW weight) and the
        censoring Kaplan-Meier is weighted. Sampling (inverse-probability) weights, as R's
        ``concordance(weights=)``: the analytic variance is the infinitesimal jackknife (each
        row's influence is w_k times the derivative of the estimate in its weight), the bootstrap
        draws rows with their weights, and rescaling all weights changes nothing (weights whose
        largest lies outside [2**-64, 2**64] are first divided by a power of two, so that their
        products neither overflow nor underflow). Integer
        frequency weights give the estimates of repeated rows but not their (narrower) intervals:
        repeat the rows for that. The integer pair counts stay counts of pairs.
    cause : int, optional
        Competing risks: ``event`` holds cause codes (0 = censored, 1..K = causes) and ``cause``
        (>= 1) selects the event of interest; every other cause is a competing event. The cells
        become the cause-specific concordance of Wolbers et al. (2014): an event i of cause
        ``cause`` at t_i (before ``tau``) is compared with j if t_j > t_i (or j is censored at
        t_i), weighing 1 / (K_a(t_i) K_b(t_i)), or if j had a competing event at t_j <= t_i,
        weighing 1 / (K_a(t_i) K_b(t_j)); a competing event is an event for the censoring
        Kaplan-Meier, not a censoring. Treating the competing events as censored instead would drop
        the second kind of pairs and bias the weights. None (default): ``event`` must be 0/1.
    ci : {"analytic", "bootstrap", None}, default="analytic"
        Uncertainty to attach (the same default as :func:`survfair.xauc_t`,
        :func:`survfair.compare_xci` and the command line: every number comes with an interval).
        ``"analytic"``: covariance of all G^2 cells from the influence functions (U-statistic /
        DeLong structural components, plus the Kaplan-Meier term of the estimated IPCW weights),
        Wald intervals (logit scale for the cells and the pooled C, raw scale for differences).
        ``"bootstrap"``: ``n_resamples`` replicates resampling individuals within strata and
        refitting the censoring weights in each (complete IPCW uncertainty), BCa or percentile
        intervals. None: point estimates only.
    confidence_level : float, default=0.95
        Level of every interval reported by the result and its summaries.
    n_resamples : int, default=1000
        Bootstrap replicates (``ci="bootstrap"``).
    random_state : None, int, numpy Generator / RandomState / SeedSequence, default=None
        Seed of the bootstrap. Per-replicate seeds are spawned from one ``SeedSequence`` up front,
        so the same seed gives identical numbers for any ``n_jobs`` and joblib backend.
    n_jobs : int, optional
        Cores this call may use, as in every function of survfair (Conventions, "n_jobs"):
        None: the ``n_jobs`` of a ``joblib.parallel_config`` in force, else every core this
        process may use; -1 likewise; -k all but k - 1; k >= 1: k. The per-group passes of the
        pair-count kernel run on that many threads (the kernel releases the GIL), and the
        bootstrap on that many joblib workers (threads; inside
        ``with joblib.parallel_backend("dask"):`` on a Dask cluster). The numbers are
        bit-identical for any value (timings: docs, benchmarks).
    progress : bool, default=False
        tqdm progress bar of the bootstrap (shown on a terminal or in Jupyter).
    stratify : {"group", "group_event", None}, default="group"
        Bootstrap strata: resample within groups (group sizes fixed, no group can vanish), within
        group x event, or from the whole sample.
    bootstrap_method : {"bca", "percentile"}, default="bca"
        Bootstrap interval. BCa's acceleration comes from the exact delete-one jackknife computed
        from the per-individual contributions (censoring weights fixed), O(n G^2).

    Returns
    -------
    XCIResult
        ``.matrix`` (rows a = earlier event, columns b = later member), ``.counts``, ``.overall``,
        the fitted ``.censoring_curves``, and the settings.

    Raises
    ------
    InvalidParameterError (a TypeError)
        For arguments of the wrong type (e.g. non-numeric risk, ``data`` not a DataFrame, a
        ``censoring_reference`` that is neither a DataFrame nor a (time, event, group) tuple,
        non-integer ``n_resamples`` / ``n_jobs``, non-bool ``strict`` / ``progress``; with
        ``ci="bootstrap"``, an unsupported ``random_state``).
    InvalidParameterError (a ValueError)
        For mismatched lengths, NaN/inf, negative times, events other than 0/1 (with ``cause``:
        other than integer codes >= 0, or a ``cause`` < 1 or absent from ``event``), empty
        input, 2-D risk, missing ``cluster`` labels, ``entry`` < 0 or >= ``time``, negative
        ``weights`` (each naming the rows), labels in ``groups`` that do not occur, ``tau <= 0``,
        unknown ``method`` or ``censoring``, or negative ``tied_tol``; pandas inputs with differing
        indexes; invalid inference options (``ci``, ``confidence_level`` outside (0, 1),
        ``n_resamples`` < 2, ``n_jobs=0``, ``stratify``, ``bootstrap_method``; with
        ``ci="bootstrap"``, a negative integer ``random_state``). With a Dask DataFrame as ``data``:
        ``ci="bootstrap"``, an unsupported option given, or a role that is not one of its
        columns.
    NoComparablePairError
        (a ValueError) if no pair in the data is comparable, or (IPCW with ``tau``) every
        comparable pair has its earlier event at or after ``tau``.
    PositivityError
        (a ValueError) if a censoring survival K_g used as a weight is 0; with
        ``censoring="cox"``, if a predicted G(t | x) used as a weight is 0 or so small (below
        about 1e-6) that the exact series would need more than 40 terms.
    ConvergenceError
        (a RuntimeError) with ``censoring="cox"``, if the Cox model of the censoring did not
        converge.
    MemoryLimitError
        (a ValueError) if the intervals would not fit in memory (the analytic intervals' sums,
        8 (G + 2) bytes a row, or the influence rows where they are kept, or the bootstrap
        replicates, with many groups); the message names the remedies.

    Warns
    -----
    UndefinedXCIWarning
        For cells without a comparable pair (those cells are NaN), and with ``ci="bootstrap"``
        for replicates that failed or left a cell undefined (left out of the intervals).
    PositivityWarning
        When a K_g falls below 0.1 before tau.
    ExcludedRowsWarning
        When ``groups`` leaves rows of other groups out (their number).

    See Also
    --------
    xauc : the uncensored binary special case, xAUC (Kallus & Zhou 2019).
    xauc_t : cross-group cumulative/dynamic AUC at horizons t.
    compare_xci : paired comparison of two scores' xCI on the same people.
    compare : several models side by side (the paper's Tables 1-3).
    delta_within, delta_between, pairwise_deltas, min_xci, utility : the fairness summaries.
    overall_c, decompose : the pooled C and its decomposition (Proposition 4.1).

    Notes
    -----
    With one group, ``method="naive"`` equals ``sksurv.metrics.concordance_index_censored`` and
    ``method="ipcw"`` equals ``sksurv.metrics.concordance_index_ipcw(y, y, risk, tau)``, values and
    counts. The pooled C (``.overall``) is the weighted average of the cells (Proposition 4.1;
    see :func:`survfair.decompose`); its interval is :func:`survfair.overall_c`.

    Inference: the analytic covariance is the Hajek projection of each cell's pair sums on the
    individuals, with DeLong's m / (m - 1) factor per role and, for IPCW, each individual's effect
    on the Kaplan-Meier fits of K_g (docs: how-to, intervals; the formulas in
    ``survfair/_core/influence.py``). Agreement with R's ``survival::concordance`` (entry, weights)
    and ``pec::cindex`` (competing risks): docs, conventions.

    References
    ----------
    Wang, H. et al. (2026). Towards Fair Predictions: Group Conditional Concordance Index to
    Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872, eq. 2-7.

    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated ROC curves: a nonparametric approach. Biometrics 44(3), 837-845.

    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.

    Wolbers, M., Blanche, P., Koller, M. T., Witteman, J. C. M. and Gerds, T. A. (2014). Concordance
    for prognostic models with competing risks. Biostatistics 15(3), 526-539.

    Gerds, T. A., Kattan, M. W., Schumacher, M. and Yu, C. (2013). Estimating a time-dependent
    concordance index for survival prediction models with covariate dependent censoring.
    Statistics in Medicine 32(13), 2173-2184.

    Uno, H. et al. (2011). On the C-statistics for evaluating overall adequacy of risk prediction
    procedures with censored survival data. Statistics in Medicine 30(10), 1105-1117.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4], [1, 1, 0, 1], ["a", "b", "a", "b"], [4, 3, 2, 1],
    ...                    method="naive")
    >>> float(res.matrix.loc["a", "b"])
    1.0

    A larger cohort, with the analytic standard errors (the default ``ci="analytic"``):

    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> print(res.matrix.round(4))  # doctest: +NORMALIZE_WHITESPACE
    b (later)               a    b
    a (earlier event)
    a                  1.0000  0.8
    b                  0.6667  0.5
    >>> round(float(res.se.loc["a", "b"]), 4), round(res.overall, 4)
    (0.2309, 0.75)

    Competing risks: cause codes, the event of interest ``cause=1``. The deaths of cause 2 (at
    times 2 and 4) stay comparable with the later events of cause 1, which treating them as
    censored would drop:

    >>> t, g, r = [1, 2, 3, 4, 5, 6, 7, 8], list("aabbaabb"), [8, 3, 6, 7, 4, 5, 2, 1]
    >>> status = [1, 2, 1, 2, 1, 0, 1, 0]
    >>> res = survfair.xci(t, status, g, r, method="naive", cause=1)
    >>> res.pair_counts.comparable.tolist()
    [[5, 7], [4, 5]]
    >>> survfair.xci(t, [s == 1 for s in status], g, r,
    ...              method="naive").pair_counts.comparable.tolist()
    [[4, 6], [2, 4]]
    """
    options = _OPTIONS.check(locals())
    n_jobs = options["n_jobs"]  # capped at the cores available
    settings = EstimatorSettings.checked(
        method, tau, censoring, tied_tol, strict, censoring_options=CENSORING_MODELS
    )
    cox = settings.censoring == "cox"
    if cox:
        require_covariates(censoring_covariates)
    elif censoring_covariates is not None:
        raise InvalidParameterError(
            'censoring_covariates is used only with censoring="cox" (the Cox model of the '
            f"censoring); got censoring={settings.censoring!r}.",
            parameter="censoring_covariates",
        )
    if is_dask_frame(data):
        _check_dask_options(
            ci,
            censoring_covariates=censoring_covariates,
            censoring_reference=censoring_reference,
            cluster=cluster,
            entry=entry,
            weights=weights,
            cause=cause,
        )
        return xci_dask(
            data,
            time,
            event,
            group,
            risk,
            groups=groups,
            settings=settings,
            weights=weights,
            cluster=cluster,
            entry=entry,
            ci=ci,
            confidence_level=options["confidence_level"],
        )
    confidence_level = options["confidence_level"]
    if cox:
        _refuse_with_cox(censoring_reference, cause)
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

    curves, minima, reference = None, {}, None
    # one sort by time and one by risk serve the censoring fit and the pair counts
    threads = kernel_threads(n_jobs)
    prepared = prepare_sample(sample, settings.tied_tol, n_jobs=threads)
    censoring_model = None
    if settings.method == "ipcw" and cox:
        censoring_model = fit_cox_censoring(sample)
    elif settings.method == "ipcw":
        if censoring_reference is None:
            curves = fit_censoring(
                sample, settings.censoring, sorted_rows=prepared.censoring_rows(), n_jobs=threads
            )
            reference = sample
        else:
            columns = {"time": time, "event": event, "group": group}
            columns.update(
                {
                    name: value
                    for name, value in (("entry", entry), ("weights", weights))
                    if value is not None
                }
            )
            reference = _reference_sample(censoring_reference, columns, sample.groups, cause)
            curves = fit_censoring(reference, settings.censoring)
    plan = CountingPlan(settings, curves, prepared, threads, reference)
    contributions = None
    ipcw = settings.method == "ipcw"
    estimated = curves.kind if curves is not None and censoring_reference is None else None
    cox_rows = None
    if censoring_model is not None:  # the Cox weights: the series of passes (_core/cox_censoring)
        counts, censoring_model, contributions, slopes = cox_pair_counts(
            sample,
            prepared,
            censoring_model,
            plan.pair_options,
            with_contributions=ci == "bootstrap" and bootstrap_method == "bca",
            with_slopes=ci == "analytic",
        )
        counts = _checked(counts, None, sample, None, settings.tau)
        minima = check_cox_positivity(sample, censoring_model, settings.tau)
        if ci == "analytic":  # the rows with the model's own estimation (_core/cox_influence)
            cox_rows = cox_influence(
                sample, prepared, censoring_model, counts, contributions, slopes
            )
            contributions = None
    elif ci == "analytic" and not moments_apply(sample, prepared, estimated):
        # the row path: the variance needs every individual's contributions, from the same passes
        counts, contributions = estimate_xci_with_contributions(sample, plan)
    else:
        counts = estimate_xci(sample, plan)
    if ci is None:  # nothing below reads the sorted arrays: free them (57 bytes a row at G = 8)
        prepared = plan = None
    if curves is not None:
        last = np.max(
            sample.time,
            where=sample.event & (sample.time < (np.inf if settings.tau is None else settings.tau)),
            initial=-np.inf,
        )  # no copy of the event times
        if last > -np.inf:
            minima = check_positivity(curves, float(last))
    warn_undefined_cells(counts.denominator, sample.groups, stacklevel=2)

    def per_group(rows=None):  # one pass over the codes, not one per group; no float copy of a mask
        codes = sample.group_codes if rows is None else sample.group_codes[rows]
        return np.bincount(codes, minlength=sample.n_groups).astype(np.int64)

    counts_by_group = {"n": per_group(), "events": per_group(sample.event)}
    if sample.competing is not None:
        counts_by_group["competing_events"] = per_group(sample.competing)
    sizes = {
        label: {name: int(values[k]) for name, values in counts_by_group.items()}
        for k, label in enumerate(sample.groups)
    }
    result = XCIResult(
        groups=sample.groups,
        settings=settings,
        n_samples=sample.n_samples,
        n_excluded=n_excluded,
        pair_counts=counts,
        censoring_curves=curves,
        min_censoring_survival=minima,
        group_sizes=sizes,
        censoring_model=censoring_model,
    )
    return with_inference(
        result,
        sample,
        ci=ci,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        stratify=stratify,
        bootstrap_method=bootstrap_method,
        refit_censoring=censoring_reference is None,
        prepared=prepared,
        contributions=contributions,
        analytic_influence=cox_rows,
    )
