"""A simulation-study harness: replications x estimators x sample sizes, with Monte-Carlo errors.

For any :class:`CohortDesign`, draw cohorts, estimate xCI with the chosen estimators and interval
method, and summarise against the design's truth: bias, SD, mean SE, SE/SD, RMSE, coverage and
power, each with its Monte-Carlo standard error (Morris, White & Crowther 2019, Table 6).
Replications run through joblib (``n_jobs``; inside ``joblib.parallel_backend("dask")`` on a
Dask cluster); every replication's seed is spawned up front, so the numbers do not depend on
``n_jobs``.
"""

from __future__ import annotations

import warnings
from dataclasses import field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.groups import label_array
from .._core.options import (
    CONFIDENCE_LEVEL,
    N_JOBS,
    N_RESAMPLES,
    PROGRESS,
    RANDOM_STATE,
    Option,
    OptionTable,
    check_option,
    check_random_state,
    check_scalar,
    integer,
    one_of,
    optional,
    real,
)
from .._core.parallel import joblib_jobs
from .._core.progress import progress_bar
from .._core.results import json_safe
from .._present.plots.base import AXES
from ._designs import CohortDesign, TrueXCI

__all__ = [
    "ESTIMATORS",
    "CoverageStudy",
    "coverage_study",
    "power_curve",
    "study_power",
    "plot_coverage",
    "plot_power",
]

#: estimator name -> xci settings
ESTIMATORS = {
    "naive": dict(method="naive"),
    "ipcw_group": dict(method="ipcw", censoring="group"),
    "ipcw_pooled": dict(method="ipcw", censoring="pooled"),
}


def _pairs(groups: tuple) -> list:
    """Every unordered pair of groups (a before b), the pairs of the Δbetween rows."""
    return [(a, b) for i, a in enumerate(groups) for b in groups[i + 1 :]]


def _one(
    design: CohortDesign,
    n: int,
    estimators: tuple,
    tau,
    ci: str,
    level: float,
    n_resamples: int,
    seed,
):
    """One replication: for every estimator, (cells, cell SEs, cell limits, Δbetween values, SEs,
    limits), NaN where the estimator failed on this cohort."""
    from .._core.exceptions import NoComparablePairError, PositivityError
    from .._xci.estimator import xci
    from .._xci.summaries import delta_between

    rng = np.random.default_rng(seed)
    cohort = design.draw(n, random_state=rng)
    g = len(design.groups)
    pairs = _pairs(design.groups)
    out = {}
    for name in estimators:
        row = np.full((6, max(g * g, len(pairs))), np.nan)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = xci(
                    cohort["time"].to_numpy(),
                    cohort["event"].to_numpy(),
                    cohort["group"].to_numpy(),
                    cohort["risk"].to_numpy(),
                    tau=tau,
                    ci=ci,
                    confidence_level=level,
                    n_resamples=n_resamples,
                    random_state=rng,
                    progress=False,
                    n_jobs=1,
                    groups=list(design.groups),
                    **ESTIMATORS[name],
                )
                low, high = result.confidence_interval()
                row[0, : g * g] = result.values.ravel()
                row[1, : g * g] = result.se.to_numpy().ravel()
                row[2, : g * g] = low.to_numpy().ravel()
                row[3, : g * g] = high.to_numpy().ravel()
                deltas = [delta_between(result, a, b) for a, b in pairs]
                row[4, : len(pairs)] = [d.value for d in deltas]
                row[5, : len(pairs)] = [d.se for d in deltas]
                out[name] = (row, np.array([d.confidence_interval for d in deltas]).reshape(-1, 2))
        except (NoComparablePairError, PositivityError, ValueError):
            out[name] = (row, np.full((len(pairs), 2), np.nan))
    return out


def _batch(args: tuple, seeds: list) -> list:
    return [_one(*args, seed) for seed in seeds]


def _summarise(estimates, ses, lows, highs, truth, null, level) -> dict:
    """Morris et al. (2019) performance measures and their Monte-Carlo SEs over the replications."""
    ok = np.isfinite(estimates)
    values, se, low, high = estimates[ok], ses[ok], lows[ok], highs[ok]
    m = int(values.size)
    if m < 2:
        return dict(n_valid=m)
    sd = float(values.std(ddof=1))
    bias = float(values.mean() - truth)
    covered = (low <= truth) & (truth <= high)
    coverage = float(covered.mean())
    rejected = ~((low <= null) & (null <= high)) if null is not None else np.zeros(m, bool)
    power = float(rejected.mean()) if null is not None else np.nan
    mean_se = float(np.nanmean(se)) if np.isfinite(se).any() else np.nan
    rmse = float(np.sqrt(np.mean((values - truth) ** 2)))
    return dict(
        n_valid=m,
        truth=truth,
        mean=float(values.mean()),
        bias=bias,
        bias_mcse=sd / np.sqrt(m),
        sd=sd,
        sd_mcse=sd / np.sqrt(2 * (m - 1)),
        mean_se=mean_se,
        se_sd_ratio=mean_se / sd if sd > 0 else np.nan,
        rmse=rmse,
        coverage=coverage,
        coverage_mcse=float(np.sqrt(coverage * (1 - coverage) / m)),
        power=power,
        power_mcse=float(np.sqrt(power * (1 - power) / m)) if null is not None else np.nan,
    )


@frozen_result
class CoverageStudy:
    """Result of :func:`coverage_study`: performance of the estimators, per sample size.

    Attributes
    ----------
    design : CohortDesign
    truth : TrueXCI
    sizes : tuple of int
    estimators : tuple of str
    ci_method : {"analytic", "bootstrap"}
    confidence_level : float
    n_replications : int
    tau : float or None

    See Also
    --------
    coverage_study : computes it.
    plot_coverage : draws it.
    power_curve : its power.
    """

    design: CohortDesign = field(repr=False)
    truth: TrueXCI = field(repr=False)
    sizes: tuple
    estimators: tuple
    ci_method: str
    confidence_level: float
    n_replications: int
    tau: float | None
    table: pd.DataFrame = field(repr=False)
    replications: pd.DataFrame = field(repr=False, default=None)

    def replication_frame(self) -> pd.DataFrame:
        """Every replication's numbers (a copy), for measures or interval methods of your own: one
        row per (n, replication, estimator, statistic, a, b) with estimate, se, ci_low, ci_high
        (NaN where the estimator was undefined on that cohort)."""
        return self.replications  # a copy: frozen results hand out copies

    def to_frame(self) -> pd.DataFrame:
        """One row per (n, estimator, statistic, a, b): n_valid (replications where the estimator
        was defined), truth, mean, bias, bias_mcse, sd, sd_mcse, mean_se, se_sd_ratio, rmse,
        coverage, coverage_mcse, power, power_mcse (power: share of intervals excluding 0, for
        Δbetween; NaN for cells). ``statistic`` is "xci" (a = earlier group, b = later) or
        "delta_between"."""
        return self.table  # a copy: frozen results hand out copies

    def _repr_html_(self) -> str:
        """Jupyter display: the first line of the repr, then the first rows of :meth:`to_frame`."""
        from .._present.notebook import result_html  # the presentation layer, below this one

        return result_html(self)

    def to_dict(self) -> dict:
        rows = [
            {k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
            for row in self.table.to_dict(orient="records")
        ]
        return json_safe(
            {
                "design": self.design.to_dict(),
                "truth": self.truth.to_dict(),
                "sizes": self.sizes,
                "estimators": self.estimators,
                "ci_method": self.ci_method,
                "confidence_level": self.confidence_level,
                "n_replications": self.n_replications,
                "tau": self.tau,
                "rows": rows,
            }
        )

    def __repr__(self) -> str:
        return (
            f"CoverageStudy(sizes={list(self.sizes)}, estimators={list(self.estimators)}, "
            f"ci_method={self.ci_method!r}, n_replications={self.n_replications}, tau={self.tau})"
        )


def _check_truth(truth: Any, name: str) -> Any:
    if truth is None or isinstance(truth, TrueXCI):
        return truth
    raise InvalidParameterError(
        f"{name} must be None or the TrueXCI of the design (design.true_xci()), got "
        f"{type(truth).__name__}.",
        parameter=name,
    )


#: The scalar options of :func:`coverage_study` (``sizes`` and ``estimators`` are lists, checked
#: in the body).
_COVERAGE_OPTIONS = OptionTable(
    "coverage_study",
    n_replications=integer(low=2),
    tau=optional(real(low=0, closed="neither")),  # None: the design's truth without truncation
    ci=one_of("analytic", "bootstrap"),
    confidence_level=CONFIDENCE_LEVEL,
    n_resamples=N_RESAMPLES,
    truth=Option(_check_truth, "None or the design's TrueXCI"),
    n_truth=integer(low=10),
    random_state=RANDOM_STATE,
    n_jobs=N_JOBS,
    progress=PROGRESS,
)


def coverage_study(
    design: CohortDesign,
    sizes: Sequence[int],
    *,
    n_replications: int = 200,
    estimators: Sequence[str] = ("naive", "ipcw_group"),
    tau: float | None = None,
    ci: str = "analytic",
    confidence_level: float = 0.95,
    n_resamples: int = 200,
    truth: TrueXCI | None = None,
    n_truth: int = 1_000_000,
    random_state: Any = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> CoverageStudy:
    """Bias, SE/SD, RMSE, coverage and power of xCI estimators on cohorts drawn from a design.

    Parameters
    ----------
    design : CohortDesign
        From :func:`ph_design` or :func:`aft_design`.
    sizes : sequence of int
        Cohort sizes (people per cohort).
    n_replications : int, default=200
        Cohorts per size.
    estimators : sequence of {"naive", "ipcw_group", "ipcw_pooled"}, default=("naive", "ipcw_group")
    tau : float, optional
        Truncation of the estimators and of the truth (eq. 5); the naive estimator truncates too
        (Harrell's C truncated at tau, as R's ``concordance(ymax=)``), but under censoring it is
        biased for the truncated truth whatever tau is.
    ci : {"analytic", "bootstrap"}, default="analytic"
    confidence_level : float, default=0.95
    n_resamples : int, default=200
        Bootstrap replicates per cohort (``ci="bootstrap"``).
    truth : TrueXCI, optional
        Default: :meth:`CohortDesign.true_xci` at ``tau`` with ``n_truth`` draws per group.
    n_truth : int, default=1_000_000
    random_state : None, int, Generator or SeedSequence
        Seeds of the replications (spawned up front: the same numbers for any ``n_jobs``).
    n_jobs : int, optional
        Cores this call may use, as in every function of survfair (Conventions, "n_jobs"):
        joblib workers (processes) for the replications. None: a ``joblib.parallel_config`` in
        force, else every core; -1 likewise; 1 for one; a non-zero integer.
    progress : bool, default=False

    Returns
    -------
    CoverageStudy
        ``.to_frame()``: one row per size, estimator and statistic (every cell, every Δbetween).

    Raises
    ------
    InvalidParameterError
        For invalid options (named).

    See Also
    --------
    plot_coverage : draws its coverage.
    power_curve : power for Δbetween against n.
    ph_design, aft_design : the designs it replicates.

    Notes
    -----
    The Monte-Carlo SEs are those of Morris, White & Crowther (2019, Statistics in Medicine 38:2074,
    Table 6): bias sd/√m, coverage and power √(p(1−p)/m), SD sd/√(2(m−1)), over the m replications
    in which the estimator was defined.

    Examples
    --------
    >>> from survfair.simulate import coverage_study, ph_design
    >>> design = ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0, "M": 0.5},
    ...                    censoring={"fraction": 0.3})
    >>> study = coverage_study(design, [200], n_replications=20, random_state=1, n_truth=100_000,
    ...                        progress=False)
    >>> sorted(set(study.to_frame()["statistic"]))
    ['delta_between', 'xci']
    """
    import joblib

    options = _COVERAGE_OPTIONS.check(locals())
    if not isinstance(design, CohortDesign):
        raise InvalidParameterError(
            f"design must be a CohortDesign (ph_design / aft_design), got {type(design).__name__}.",
            parameter="design",
        )
    sizes = tuple(check_scalar(n, "sizes", "integer", low=10) for n in np.atleast_1d(sizes))
    estimators = tuple(check_option(e, "estimators", tuple(ESTIMATORS)) for e in estimators)
    n_replications, level = options["n_replications"], options["confidence_level"]
    n_resamples, n_jobs, tau = options["n_resamples"], options["n_jobs"], options["tau"]
    if truth is None:
        truth = design.true_xci(tau, n_truth=n_truth)
    root = check_random_state(random_state)
    seeds = root.spawn(len(sizes) * n_replications)
    n_jobs = joblib_jobs(n_jobs)  # None: the joblib config in force, else every core
    n_workers = joblib.effective_n_jobs(n_jobs)
    rows, replications = [], []
    with progress_bar(len(seeds), "simulation", progress, unit="cohort") as bar:
        for k, n in enumerate(sizes):
            mine = seeds[k * n_replications : (k + 1) * n_replications]
            chunks = np.array_split(np.arange(len(mine)), max(1, min(len(mine), 4 * n_workers)))
            args = (design, n, estimators, tau, ci, level, n_resamples)
            outputs = []
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
            for out in parallel(
                joblib.delayed(_batch)(args, [mine[i] for i in chunk]) for chunk in chunks
            ):
                outputs += out
                bar.update(len(out))
            rows += _rows(design, truth, n, estimators, outputs, level)
            replications.append(_replication_rows(design, n, estimators, outputs))
    table = pd.DataFrame(rows)
    return CoverageStudy(
        design,
        truth,
        sizes,
        estimators,
        ci,
        level,
        n_replications,
        tau,
        table,
        pd.concat(replications, ignore_index=True),
    )


def _replication_rows(design, n, estimators, outputs) -> pd.DataFrame:
    g = len(design.groups)
    pairs = _pairs(design.groups)
    labels = label_array(design.groups)
    frames = []
    reps = np.arange(len(outputs))
    for name in estimators:
        stacked = np.stack([o[name][0] for o in outputs])
        limits = np.stack([o[name][1] for o in outputs])
        cells = pd.DataFrame(
            {
                "replication": np.repeat(reps, g * g),
                "statistic": "xci",
                "a": np.tile(np.repeat(labels, g), len(reps)),
                "b": np.tile(np.tile(labels, g), len(reps)),
                "estimate": stacked[:, 0, : g * g].ravel(),
                "se": stacked[:, 1, : g * g].ravel(),
                "ci_low": stacked[:, 2, : g * g].ravel(),
                "ci_high": stacked[:, 3, : g * g].ravel(),
            }
        )
        k = len(pairs)
        deltas = pd.DataFrame(
            {
                "replication": np.repeat(reps, k),
                "statistic": "delta_between",
                "a": np.tile(label_array([p[0] for p in pairs]), len(reps)),
                "b": np.tile(label_array([p[1] for p in pairs]), len(reps)),
                "estimate": stacked[:, 4, :k].ravel(),
                "se": stacked[:, 5, :k].ravel(),
                "ci_low": limits[:, :, 0].ravel(),
                "ci_high": limits[:, :, 1].ravel(),
            }
        )
        frames += [cells.assign(estimator=name), deltas.assign(estimator=name)]
    frame = pd.concat(frames, ignore_index=True).assign(n=n)
    return frame[
        [
            "n",
            "replication",
            "estimator",
            "statistic",
            "a",
            "b",
            "estimate",
            "se",
            "ci_low",
            "ci_high",
        ]
    ]


def _rows(design, truth, n, estimators, outputs, level) -> list:
    g = len(design.groups)
    pairs = _pairs(design.groups)
    rows = []
    for name in estimators:
        stacked = np.stack([o[name][0] for o in outputs])  # (reps, 6, width)
        limits = np.stack([o[name][1] for o in outputs])  # (reps, pairs, 2)
        for cell in range(g * g):
            a, b = design.groups[cell // g], design.groups[cell % g]
            measures = _summarise(
                stacked[:, 0, cell],
                stacked[:, 1, cell],
                stacked[:, 2, cell],
                stacked[:, 3, cell],
                float(truth.values[cell // g, cell % g]),
                None,
                level,
            )
            rows.append({"n": n, "estimator": name, "statistic": "xci", "a": a, "b": b, **measures})
        for k, (a, b) in enumerate(pairs):
            measures = _summarise(
                stacked[:, 4, k],
                stacked[:, 5, k],
                limits[:, k, 0],
                limits[:, k, 1],
                truth.delta_between(a, b)[0],
                0.0,
                level,
            )
            rows.append(
                {
                    "n": n,
                    "estimator": name,
                    "statistic": "delta_between",
                    "a": a,
                    "b": b,
                    **measures,
                }
            )
    return rows


#: The scalar options of :func:`power_curve` (``a`` and ``b`` are group labels; the other options
#: go to :func:`coverage_study`, which checks them).
_POWER_OPTIONS = OptionTable(
    "power_curve",
    estimator=one_of(*ESTIMATORS),
    n_replications=integer(low=2),
    tau=optional(real(low=0, closed="neither")),
    target=real(low=0, high=1, closed="neither"),
)


def power_curve(
    design: CohortDesign,
    sizes: Sequence[int],
    a: Any,
    b: Any,
    *,
    estimator: str = "ipcw_group",
    n_replications: int = 200,
    tau: float | None = None,
    target: float = 0.8,
    **options: Any,
) -> pd.DataFrame:
    """Power to detect Δbetween(a, b) ≠ 0 (its interval excludes 0) against the cohort size.

    "Is n = 800 enough to detect the Δbetween of my design?": the share of simulated cohorts whose
    interval for Δbetween(a, b) excludes 0, with its Monte-Carlo SE, per size; the smallest size
    reaching ``target`` is interpolated on log n between the sizes that bracket it.

    Parameters
    ----------
    design : CohortDesign
    sizes : sequence of int
    a, b : group labels
    estimator : {"naive", "ipcw_group", "ipcw_pooled"}, default="ipcw_group"
    n_replications : int, default=200
    tau : float, optional
    target : float, default=0.8
        Power whose sample size is reported in ``.attrs["n_for_target"]`` (NaN if not bracketed).
    **options
        Passed to :func:`coverage_study` (``ci``, ``confidence_level``, ``random_state``,
        ``n_jobs``, ...).

    Returns
    -------
    DataFrame
        Columns n, power, power_mcse, delta_between (true value), coverage; ``.attrs`` holds
        ``n_for_target`` and ``target``.

    See Also
    --------
    plot_power : draws it.
    coverage_study : computes the replications it reads.

    Examples
    --------
    >>> from survfair.simulate import ph_design, power_curve
    >>> design = ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0, "M": 0.8},
    ...                    score="without_group")
    >>> curve = power_curve(design, [100, 400], "F", "M", n_replications=20, random_state=0,
    ...                     n_truth=100_000, progress=False)
    >>> list(curve.columns)
    ['n', 'power', 'power_mcse', 'delta_between', 'coverage']
    """
    target = _POWER_OPTIONS.check(locals())["target"]
    if a not in design.groups or b not in design.groups or a == b:
        raise InvalidParameterError(
            f"a and b must be two different groups of the design {list(design.groups)}.",
            parameter="a",
        )
    study = coverage_study(
        design, sizes, n_replications=n_replications, estimators=(estimator,), tau=tau, **options
    )
    return study_power(study, a, b, estimator=estimator, target=target)


def study_power(
    study: CoverageStudy, a: Any, b: Any, *, estimator: str = "ipcw_group", target: float = 0.8
) -> pd.DataFrame:
    """The :func:`power_curve` frame of a study already run (its Δbetween(a, b) rows for
    ``estimator``).

    Raises
    ------
    ValueError
        If ``a`` / ``b`` are not two groups of the study's design or ``estimator`` was not run.
    """
    groups = study.design.groups
    if a not in groups or b not in groups or a == b:
        raise InvalidParameterError(
            f"a and b must be two different groups of the design {list(groups)}.", parameter="a"
        )
    if estimator not in study.estimators:
        raise InvalidParameterError(
            f"estimator {estimator!r} was not run in this study ({list(study.estimators)}).",
            parameter="estimator",
        )
    target = check_scalar(target, "target", "real", low=0, high=1, closed="neither")
    frame = study.to_frame()
    pair = frame[(frame["statistic"] == "delta_between") & (frame["estimator"] == estimator)]
    first, second = (a, b) if groups.index(a) < groups.index(b) else (b, a)
    pair = pair[(pair["a"] == first) & (pair["b"] == second)]
    sign = 1.0 if first == a else -1.0
    curve = pd.DataFrame(
        {
            "n": pair["n"].to_numpy(),
            "power": pair["power"].to_numpy(),
            "power_mcse": pair["power_mcse"].to_numpy(),
            "delta_between": sign * pair["truth"].to_numpy(),
            "coverage": pair["coverage"].to_numpy(),
        }
    )
    curve.attrs["target"] = target
    curve.attrs["n_for_target"] = _interpolate(
        curve["n"].to_numpy(float), curve["power"].to_numpy(float), target
    )
    return curve


def _interpolate(sizes: np.ndarray, power: np.ndarray, target: float) -> float:
    order = np.argsort(sizes)
    sizes, power = sizes[order], power[order]
    for k in range(len(sizes) - 1):
        if power[k] < target <= power[k + 1]:
            fraction = (target - power[k]) / (power[k + 1] - power[k])
            return float(
                np.exp(np.log(sizes[k]) + fraction * (np.log(sizes[k + 1]) - np.log(sizes[k])))
            )
    return float(sizes[0]) if power.size and power[0] >= target else np.nan


#: The scalar options of :func:`plot_coverage`.
_PLOT_OPTIONS = OptionTable("plot_coverage", statistic=one_of("xci", "delta_between"), ax=AXES)


def plot_coverage(study: CoverageStudy, *, statistic: str = "delta_between", ax: Any = None):
    """Coverage of the intervals against the cohort size, per estimator, with Monte-Carlo error bars
    (±2 MC SE) and the nominal level.

    Parameters
    ----------
    study : CoverageStudy
        The result of :func:`coverage_study`.
    statistic : {"delta_between", "xci"}, default="delta_between"
        Which rows of ``study.to_frame()`` to draw: one line per estimator and pair of groups
        (``"delta_between"``) or per estimator and cell (``"xci"``).
    ax : matplotlib Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    coverage_study : computes what it draws.
    plot_power : the power of the same study.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from survfair.simulate import coverage_study, ph_design, plot_coverage
    >>> design = ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0, "M": 0.5},
    ...                    censoring={"fraction": 0.3})
    >>> study = coverage_study(design, [100, 200], n_replications=10, random_state=1,
    ...                        n_truth=100_000)
    >>> ax = plot_coverage(study)
    >>> ax.get_ylabel()
    'coverage of delta_between intervals'
    """
    from .._present.plots.base import literal, literal_legend, new_axes

    _PLOT_OPTIONS.check(locals())
    if not isinstance(study, CoverageStudy):
        raise InvalidParameterError(
            f"study must be a CoverageStudy, got {type(study).__name__}.", parameter="study"
        )
    ax = new_axes(ax, (6.0, 4.0))
    frame = study.to_frame()
    frame = frame[frame["statistic"] == statistic]
    entries = []
    for k, ((estimator, a, b), part) in enumerate(
        frame.groupby(["estimator", "a", "b"], sort=False)
    ):
        label = f"{estimator} ({a}, {b})"
        handle = ax.errorbar(
            part["n"] * (1 + 0.02 * k),
            part["coverage"],
            yerr=2 * part["coverage_mcse"],
            marker="o",
            capsize=2,
            linewidth=1,
        )
        entries.append((handle, label))
    line = ax.axhline(study.confidence_level, color="grey", linestyle="--", linewidth=1)
    entries.append((line, f"nominal {study.confidence_level:.0%}"))
    ax.set_xscale("log")
    ax.set_xlabel("cohort size n")
    ax.set_ylabel(literal(f"coverage of {statistic} intervals"))
    ax.set_title("Interval coverage (±2 Monte-Carlo SE)")
    literal_legend(ax, entries, fontsize=7, loc="lower right")
    return ax


#: The options of :func:`plot_power`.
_POWER_PLOT_OPTIONS = OptionTable("plot_power", ax=AXES)


def plot_power(curve: pd.DataFrame, *, ax: Any = None):
    """Power against the cohort size (a :func:`power_curve` frame), ±2 Monte-Carlo SE, the target
    power and the interpolated size reaching it.

    Parameters
    ----------
    curve : DataFrame
        The result of :func:`power_curve` (columns n, power, power_mcse; ``attrs`` with
        ``target`` and ``n_for_target``).
    ax : matplotlib Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    power_curve : computes what it draws.
    plot_coverage : the coverage of the same study.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from survfair.simulate import ph_design, plot_power, power_curve
    >>> design = ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0, "M": 0.8},
    ...                    score="without_group")
    >>> curve = power_curve(design, [100, 400], "F", "M", n_replications=10, random_state=0,
    ...                     n_truth=100_000)
    >>> ax = plot_power(curve)
    >>> ax.get_xlabel()
    'cohort size n'
    """
    _POWER_PLOT_OPTIONS.check(locals())
    from .._present.plots.base import new_axes

    if not isinstance(curve, pd.DataFrame) or not {"n", "power", "power_mcse"} <= set(
        curve.columns
    ):
        raise InvalidParameterError(
            "curve must be the DataFrame of survfair.simulate.power_curve.", parameter="curve"
        )
    ax = new_axes(ax, (6.0, 4.0))
    ax.errorbar(curve["n"], curve["power"], yerr=2 * curve["power_mcse"], marker="o", capsize=2)
    target = curve.attrs.get("target")
    if target is not None:
        ax.axhline(target, color="grey", linestyle="--", linewidth=1)
        n_for = curve.attrs.get("n_for_target")
        if n_for is not None and np.isfinite(n_for):
            ax.axvline(n_for, color="grey", linestyle=":", linewidth=1)
            ax.annotate(
                f"n ≈ {n_for:.0f} for power {target:.0%}",
                (n_for, target),
                xytext=(5, -15),
                textcoords="offset points",
                fontsize=8,
            )
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("cohort size n")
    ax.set_ylabel("power (interval for Δbetween excludes 0)")
    ax.set_title("Power to detect the cross-group asymmetry")
    return ax
