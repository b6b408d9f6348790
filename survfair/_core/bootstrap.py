"""The stratified bootstrap of the xCI matrix, censoring refitted per replicate.

Individuals are resampled with replacement within strata (group, or group x event), the censoring
survival is refitted on every replicate (Kaplan-Meier per group or pooled, numerically identical to
:func:`survfair._core.censoring.fit_censoring`, computed from the multiplicities in O(n) instead of
scikit-survival's per-row Python loop), and the replicate is counted by the same kernel
(:func:`survfair._core.kernel.count_pairs`). Per-replicate seeds are spawned from one
:class:`numpy.random.SeedSequence` up front, so the numbers are identical for any ``n_jobs`` and
any joblib backend, including ``with joblib.parallel_backend("dask"):``.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np

from .censoring import CensoringCurves, kaplan_meier_from_counts, kaplan_meier_sorted
from .cox_censoring import cox_pair_counts, fit_cox_censoring
from .exceptions import ConvergenceError, PositivityError, UndefinedXCIWarning, listed
from .kernel import PairOptions, count_pairs, prepare_pairs
from .memory import require_memory
from .options import check_random_state
from .parallel import joblib_jobs
from .progress import progress_bar
from .results import BootstrapDraws
from .settings import EstimatorSettings
from .validation import SurvivalSample

__all__ = ["bootstrap", "warn_bootstrap_failures"]


@dataclass(frozen=True)
class _Problem:
    """Everything a worker needs, sorted by time once (pickled once per task for process
    backends)."""

    time: np.ndarray
    event: np.ndarray
    codes: np.ndarray
    risks: tuple  # one risk vector per model (paired bootstrap shares the resamples)
    n_groups: int
    settings: EstimatorSettings
    censoring: str | None  # "group" / "pooled" / "cox": refit per replicate; None: naive or fixed
    fixed_curves: CensoringCurves | None
    grids: tuple  # per censoring curve: (member rows, grid index of each member, grid times)
    strata_members: tuple  # rows of each stratum (with clusters: the clusters of each stratum)
    cluster: np.ndarray | None = None  # cluster code of every (time-ordered) row, or None
    case_weight: np.ndarray | None = None  # case weights of the (time-ordered) rows, or None
    entry: np.ndarray | None = None  # entry times of the (time-ordered) rows, or None
    competing: np.ndarray | None = (
        None  # competing-event indicators of the (time-ordered) rows, or None
    )
    covariates: np.ndarray | None = None  # censoring="cox": the (time-ordered) rows' covariates

    @property
    def observed(self) -> np.ndarray:
        """Every observed event (the censoring fit's events): competing events are not
        censorings."""
        return self.event if self.competing is None else self.event | self.competing

    def __sizeof__(self) -> int:
        """The bytes of the arrays held. joblib's Dask backend scatters an argument to the cluster
        once per call, instead of shipping it with every batch of replicates, when Dask's
        ``sizeof`` finds it large; without this it saw an object of 56 bytes."""
        return object.__sizeof__(self) + sum(
            _nbytes(getattr(self, f.name)) for f in dataclasses.fields(self)
        )


def _nbytes(value) -> int:
    """Bytes of the arrays in a value (arrays, nested tuples / lists of them, censoring curves)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(_nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 0


def _grids(time: np.ndarray, codes: np.ndarray, kind: str, n_groups: int) -> tuple:
    """Per curve: rows it is fitted on, their index into the curve's sorted unique times, the
    times."""
    out = []
    subsets = (
        [np.arange(time.shape[0])]
        if kind == "pooled"
        else [np.flatnonzero(codes == g) for g in range(n_groups)]
    )
    for rows in subsets:
        grid, index = np.unique(time[rows], return_inverse=True)
        out.append((rows, index.astype(np.intp), grid))
    return tuple(out)


def _km_censoring(index: np.ndarray, event: np.ndarray, weight: np.ndarray, size: int):
    """Censoring survival from bootstrap multiplicities on a fixed grid of times.

    Returns (K at every grid time, index of the last grid time with a resampled row, or -1).
    """
    total = np.bincount(index, weights=weight, minlength=size)
    events = np.bincount(index, weights=weight * event, minlength=size)
    present = np.flatnonzero(total > 0)
    last = int(present[-1]) if present.size else -1
    return kaplan_meier_from_counts(total, events), last


def _refit_curves(problem: _Problem, multiplicity: np.ndarray, rows: np.ndarray) -> CensoringCurves:
    """The censoring curves refitted on the replicate's multiplicities (``rows``: the
    replicate's rows, each as often as drawn, in time order)."""
    if problem.entry is not None:  # risk sets depend on entry times: refit on the drawn rows
        return _refit_curves_with_entry(problem, rows)
    times, survival = [], []
    for members, index, grid in problem.grids:
        weight = multiplicity[members].astype(float)
        if problem.case_weight is not None:  # a row drawn twice counts twice its case weight
            weight *= problem.case_weight[members]
        prob, last = _km_censoring(
            index, problem.observed[members].astype(float), weight, grid.shape[0]
        )
        # the curve ends at its last resampled time: beyond it K is 0 (1 / K = Inf) when it reached
        # 0 there, else undefined (NaN); with no row resampled it is undefined everywhere
        times.append(grid[: last + 1] if last >= 0 else np.array([-np.inf]))
        survival.append(prob[: last + 1] if last >= 0 else np.array([np.nan]))
    return _curves(problem, times, survival)


def _curves(problem: _Problem, times: list, survival: list) -> CensoringCurves:
    """The refitted curves (one per group, or the pooled one for every group)."""
    if problem.censoring == "pooled":
        times, survival = times * problem.n_groups, survival * problem.n_groups
    labels = tuple(range(problem.n_groups))
    return CensoringCurves(problem.censoring, labels, tuple(times), tuple(survival))


def _refit_curves_with_entry(problem: _Problem, rows: np.ndarray) -> CensoringCurves:
    """The weighted, left-truncated censoring Kaplan-Meier of the drawn rows (delayed entry)."""
    time, event, codes = problem.time[rows], problem.observed[rows], problem.codes[rows]
    weight = np.empty(0) if problem.case_weight is None else problem.case_weight[rows]
    entry = problem.entry[rows]
    subsets = (
        [np.arange(rows.shape[0])]
        if problem.censoring == "pooled"
        else [np.flatnonzero(codes == g) for g in range(problem.n_groups)]
    )
    times, survival = [], []
    for members in subsets:
        if members.shape[0] == 0:  # a group not drawn (unstratified): its weights are undefined
            times.append(np.array([-np.inf]))
            survival.append(np.array([np.nan]))
            continue
        by_entry = members[np.argsort(entry[members])]
        t, k = kaplan_meier_sorted(
            time,
            event,
            members,
            weight,
            entry[by_entry],
            weight[by_entry] if weight.shape[0] else weight,
            False,
        )
        times.append(t)
        survival.append(k)
    return _curves(problem, times, survival)


def _multiplicity(
    strata_members: tuple, n: int, seed: np.random.SeedSequence, cluster: np.ndarray | None = None
) -> np.ndarray:
    """How often each row is drawn: n_s draws with replacement within every stratum s. With
    clusters the strata hold clusters: a row is drawn as often as its cluster."""
    rng = np.random.default_rng(seed)
    size = n if cluster is None else int(cluster.max()) + 1
    out = np.zeros(size, dtype=np.int64)
    for members in strata_members:
        draws = rng.integers(0, members.shape[0], size=members.shape[0])
        out[members] = np.bincount(draws, minlength=members.shape[0])
    return out if cluster is None else out[cluster]


def _cluster_strata(cluster: np.ndarray, codes: np.ndarray, stratify: str | None) -> tuple:
    """Clusters to resample, per stratum: whole clusters are drawn. With ``stratify`` "group" or
    "group_event", clusters are drawn within groups when every cluster lies in one group (then each
    replicate keeps the number of clusters of every group); when a cluster spans groups, or with
    ``stratify=None``, all clusters are drawn together (a group's size then varies between
    replicates). Event status is not a property of a cluster, so "group_event" stratifies like
    "group"."""
    n_clusters = int(cluster.max()) + 1
    lowest = np.full(n_clusters, np.iinfo(np.int64).max)
    highest = np.full(n_clusters, -1)
    np.minimum.at(lowest, cluster, codes)
    np.maximum.at(highest, cluster, codes)
    if stratify is not None and np.array_equal(lowest, highest):
        return tuple(np.flatnonzero(lowest == g) for g in np.unique(lowest))
    return (np.arange(n_clusters),)


def _replicate(problem: _Problem, seed: np.random.SeedSequence):
    """One bootstrap replicate for every model: (cells (M, G, G), overall (M,), failed (M,))."""
    multiplicity = _multiplicity(
        problem.strata_members, problem.time.shape[0], seed, problem.cluster
    )
    rows = np.repeat(np.arange(problem.time.shape[0]), multiplicity)  # stays sorted by time
    if problem.censoring == "cox":
        return _replicate_cox(problem, rows)
    time, event, codes = problem.time[rows], problem.event[rows], problem.codes[rows]
    curves = None
    if problem.settings.method == "ipcw":
        if problem.censoring is None:
            curves = problem.fixed_curves
        else:
            curves = _refit_curves(problem, multiplicity, rows)
    options = PairOptions.of(problem.settings, curves)
    g = problem.n_groups
    cells, overall, failed = _empty_replicate(problem)
    in_time_order = np.arange(rows.shape[0])  # the resample is already sorted by time

    def taken(values):
        return None if values is None else values[rows]

    for m, risk in enumerate(problem.risks):
        prepared = prepare_pairs(
            time,
            event,
            codes,
            risk[rows],
            g,
            problem.settings.tied_tol,
            in_time_order,
            case_weight=taken(problem.case_weight),
            entry=taken(problem.entry),
            competing=taken(problem.competing),
        )
        counts, bad = count_pairs(prepared, options)
        if bad is not None:
            failed[m] = True
            continue
        _store_ratios(counts, m, cells, overall, failed)
    return cells, overall, failed


def _empty_replicate(problem: _Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cells, overall, failed) of one replicate before its models are counted: NaN, not failed."""
    g, n_models = problem.n_groups, len(problem.risks)
    return (
        np.full((n_models, g, g), np.nan),
        np.full(n_models, np.nan),
        np.zeros(n_models, dtype=bool),
    )


def _store_ratios(counts, m: int, cells, overall, failed) -> None:
    """Model ``m``'s cells and pooled C of a replicate from its pair counts, or the replicate
    failed for it (a weight that is not finite, no weighted comparable pair)."""
    den = counts.denominator
    if not np.isfinite(den).all() or den.sum() <= 0:
        failed[m] = True
        return
    with np.errstate(invalid="ignore", divide="ignore"):
        cells[m] = np.where(den > 0, counts.numerator / np.where(den > 0, den, 1.0), np.nan)
    overall[m] = counts.numerator.sum() / den.sum()


def _replicate_cox(problem: _Problem, rows: np.ndarray):
    """A replicate with the Cox model of the censoring refitted on the drawn rows (each as often
    as drawn): one fit, then the series of passes per model. A fit that does not converge, or a
    weight that cannot be formed, fails the replicate."""
    g = problem.n_groups
    cells, overall, failed = _empty_replicate(problem)

    def taken(values):
        return None if values is None else values[rows]

    sample = SurvivalSample(
        time=problem.time[rows],
        event=problem.event[rows],
        group_codes=problem.codes[rows],
        groups=tuple(range(g)),
        weights=taken(problem.case_weight),
        entry=taken(problem.entry),
        covariates=problem.covariates[rows],
        covariate_names=tuple(f"x{k}" for k in range(problem.covariates.shape[1])),
    )
    try:
        model = fit_cox_censoring(sample)
    except ConvergenceError:
        failed[:] = True
        return cells, overall, failed
    in_time_order = np.arange(rows.shape[0])
    for m, risk in enumerate(problem.risks):
        prep = prepare_pairs(
            sample.time,
            sample.event,
            sample.group_codes,
            risk[rows],
            g,
            problem.settings.tied_tol,
            in_time_order,
            case_weight=sample.weights,
            entry=sample.entry,
        )
        try:
            counts = cox_pair_counts(sample, prep, model, PairOptions.of(problem.settings)).counts
        except PositivityError:
            failed[m] = True
            continue
        _store_ratios(counts, m, cells, overall, failed)
    return cells, overall, failed


def _run_batch(problem: _Problem, seeds: list):
    results = [_replicate(problem, seed) for seed in seeds]
    return (
        np.stack([r[0] for r in results]),
        np.stack([r[1] for r in results]),
        np.stack([r[2] for r in results]),
    )


def bootstrap(
    sample: SurvivalSample,
    risks: list[np.ndarray] | None = None,
    *,
    settings: EstimatorSettings,
    censoring: str | None,
    fixed_curves: CensoringCurves | None,
    n_resamples: int,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
    stratify: str | None = "group",
) -> list[BootstrapDraws]:
    """Bootstrap replicates of the xCI matrix and pooled C, for one or several risk scores.

    Parameters
    ----------
    sample : SurvivalSample
        Validated data (its ``risk`` is used when ``risks`` is None).
    risks : list of ndarray of shape (n_samples,), optional
        Several risk scores on the same people: every replicate resamples the same individuals
        for all of them (paired bootstrap).
    settings : EstimatorSettings
        Settings of the estimator (method, tau, tied_tol, strict).
    censoring : {"group", "pooled", "cox"} or None
        For IPCW, how K is refitted in each replicate (``"cox"``: the Cox model of the censoring
        on ``sample.covariates``, refitted by lifelines on the drawn rows); None keeps
        ``fixed_curves`` (used when a separate ``censoring_reference`` sample was given: that
        sample is not resampled).
    fixed_curves : CensoringCurves or None
    n_resamples : int
        Number of replicates B.
    random_state : None, int, Generator, RandomState or SeedSequence
        Root of the per-replicate seeds (spawned up front, so results do not depend on ``n_jobs``).
    n_jobs : int or None
        Cores (:mod:`survfair._core.parallel`): joblib workers, threads by default -- the kernel
        releases the GIL -- or whatever backend is active, e.g.
        ``with joblib.parallel_backend("dask"):``.
    progress : bool, default=False
        Show a tqdm progress bar (on a terminal or in Jupyter; see survfair._core.progress).
    stratify : {"group", "group_event", None}, default="group"
        Resample within groups (every replicate keeps each group's size), within group x event
        strata, or from the whole sample.

    Returns
    -------
    list of BootstrapDraws
        One per risk score.
    """
    method = settings.method
    import joblib

    risks = [sample.risk] if risks is None else list(risks)
    g2 = sample.n_groups**2
    # the batches' replicates and their concatenation are alive together
    require_memory(
        2 * 8.0 * n_resamples * len(risks) * g2,
        f"{n_resamples} bootstrap replicates of {g2} cells",
        ("groups", "fewer_resamples", "no_intervals"),
    )
    order = np.argsort(sample.time, kind="stable")
    time, event, codes = sample.time[order], sample.event[order], sample.group_codes[order]
    cluster = None if sample.cluster is None else sample.cluster[order]
    if cluster is not None:
        strata_members = _cluster_strata(cluster, codes, stratify)
    else:
        if stratify == "group":
            strata = codes
        elif (
            stratify == "group_event" and sample.competing is not None
        ):  # censored / cause / competing
            strata = codes * 3 + event.astype(np.intp) + 2 * sample.competing[order].astype(np.intp)
        elif stratify == "group_event":
            strata = codes * 2 + event.astype(np.intp)
        else:
            strata = np.zeros_like(codes)
        strata_members = tuple(np.flatnonzero(strata == s) for s in np.unique(strata))
    refit = method == "ipcw" and censoring is not None
    grids = _grids(time, codes, censoring, sample.n_groups) if refit and censoring != "cox" else ()
    problem = _Problem(
        time=time,
        event=event,
        codes=codes,
        risks=tuple(np.ascontiguousarray(r[order]) for r in risks),
        n_groups=sample.n_groups,
        strata_members=strata_members,
        cluster=cluster,
        case_weight=None if sample.weights is None else sample.weights[order],
        entry=None if sample.entry is None else sample.entry[order],
        competing=None if sample.competing is None else sample.competing[order],
        covariates=None if sample.covariates is None else sample.covariates[order],
        settings=settings,
        censoring=censoring if refit else None,
        fixed_curves=None if refit else fixed_curves,
        grids=grids,
    )
    root = check_random_state(random_state)
    seeds = root.spawn(int(n_resamples))
    n_jobs = joblib_jobs(n_jobs)  # None: the joblib config in force, else every core
    n_workers = joblib.effective_n_jobs(n_jobs)
    n_batches = min(len(seeds), max(1, 8 * n_workers))
    bounds = np.linspace(0, len(seeds), n_batches + 1).astype(int)
    batches = [seeds[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    parallel = joblib.Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")
    outputs = []
    with progress_bar(len(seeds), "bootstrap", progress, unit="rep") as bar:
        for out in parallel(joblib.delayed(_run_batch)(problem, batch) for batch in batches):
            outputs.append(out)
            bar.update(out[0].shape[0])
    cells = np.concatenate([o[0] for o in outputs])  # (B, M, G, G)
    overall = np.concatenate([o[1] for o in outputs])  # (B, M)
    failed = np.concatenate([o[2] for o in outputs])  # (B, M)
    entropy = int(root.entropy) if isinstance(root.entropy, (int, np.integer)) else 0
    draws = []
    for m in range(len(risks)):
        undefined = np.isnan(cells[:, m]).sum(axis=0)
        draws.append(
            BootstrapDraws(
                cells[:, m], overall[:, m], int(failed[:, m].sum()), undefined, stratify, entropy
            )
        )
    return draws


def warn_bootstrap_failures(draws: BootstrapDraws, groups: tuple, stacklevel: int = 3) -> None:
    """Warn how many replicates failed or left a cell undefined (those are NaN and skipped)."""
    n = draws.cells.shape[0]
    if draws.n_failed:
        warnings.warn(
            f"{draws.n_failed} of {n} bootstrap replicates could not be estimated (no comparable "
            "pair, or a censoring survival of 0 used as a weight); they are NaN and left out of "
            "the intervals.",
            UndefinedXCIWarning,
            stacklevel=stacklevel,
        )
    partial = np.argwhere((draws.n_undefined > draws.n_failed) & (draws.n_undefined < n))
    if partial.size:
        cells = listed(
            f"({groups[a]!r}, {groups[b]!r}): {int(draws.n_undefined[a, b] - draws.n_failed)}"
            for a, b in partial
        )
        warnings.warn(
            "bootstrap replicates in which a cell had no comparable pair (NaN, left out): "
            f"{cells}.",
            UndefinedXCIWarning,
            stacklevel=stacklevel,
        )
