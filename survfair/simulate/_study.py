"""Simulation studies of Wang et al. (2026): Section 5.1 / Figure 1, and IPCW vs naive bias."""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.exceptions import InvalidParameterError, NoComparablePairError, PositivityError
from .._core.options import (
    PROGRESS,
    RANDOM_STATE,
    OptionTable,
    check_scalar,
    integer,
    optional,
    random_generator,
    real,
)
from .._core.progress import progress_bar
from .._xci.estimator import xci
from ._cohort import CensoringSpec, lognormal_cohort, parse_censoring
from ._lognormal import GROUPS, lognormal_xci

__all__ = ["study", "ipcw_bias_study", "plot_study", "PAPER_GRID", "DEFAULT_CENSORING"]

#: The beta1_hat grid of Section 5.1 (0.2, 0.3, ..., 1.2).
PAPER_GRID = tuple(round(0.2 + 0.1 * k, 10) for k in range(11))
#: Group-specific exponential censoring of the IPCW study: heavy in group 1, light in group 0.
DEFAULT_CENSORING = (
    {"exponential": {1: 0.15, 0: 0.02}},
    {"exponential": {1: 0.5, 0: 0.05}},
)
ESTIMATORS = ("naive", "ipcw", "ipcw_pooled")
_CELL_ORDER = ((1, 1), (0, 0), (1, 0), (0, 1))


def _progress(total: int, progress: bool, desc: str):
    return progress_bar(total, desc, progress, leave=False)


def _grid(values: Any, name: str) -> np.ndarray:
    array = np.atleast_1d(np.asarray(values, dtype=float)) if values is not None else None
    if array is None or array.ndim != 1 or array.size == 0:
        raise InvalidParameterError(
            f"{name} must be a non-empty 1-D sequence of numbers.", parameter=name
        )
    if not np.all(np.isfinite(array)):
        raise InvalidParameterError(f"{name} must contain finite numbers only.", parameter=name)
    return array


def _cells(result) -> np.ndarray:
    """The 2 x 2 matrix of an XCIResult in the simulator's group order (1, 0); NaN if absent."""
    out = np.full((2, 2), np.nan)
    values = result.values
    position = {g: k for k, g in enumerate(result.groups)}
    for r, a in enumerate(GROUPS):
        for c, b in enumerate(GROUPS):
            if a in position and b in position:
                out[r, c] = values[position[a], position[b]]
    return out


#: The scalar options of :func:`study` (``beta1_hat`` is the grid, checked in the body).
_STUDY_OPTIONS = OptionTable(
    "study",
    n=integer(low=4),
    n_replications=integer(low=2),
    beta0=real(),
    beta1=real(),
    beta2=real(),
    sigma_z=real(low=0),
    sigma=real(low=0, closed="neither"),
    beta2_hat=real(),
    p_group=real(low=0, high=1, closed="neither"),
    random_state=RANDOM_STATE,
    progress=PROGRESS,
)


def study(
    beta1_hat: Sequence[float] = PAPER_GRID,
    *,
    n: int = 500,
    n_replications: int = 50,
    beta0: float = 0.0,
    beta1: float = 0.8,
    beta2: float = 1.0,
    sigma_z: float = 0.5,
    sigma: float = 0.5,
    beta2_hat: float = 1.0,
    p_group: float = 0.5,
    random_state: Any = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The simulation study of Wang et al. (2026), Section 5.1 (Figure 1).

    For each value of ``beta1_hat``, ``n_replications`` uncensored cohorts of size ``n`` are drawn
    from the log-normal model (eq. 8) and scored with ``risk = -(beta1_hat G + beta2_hat Z)``; the
    empirical xCI (:func:`survfair.xci` with ``method="naive"``, eq. 4) of the four cells is
    summarised by its Monte-Carlo mean and standard deviation, beside the exact closed form and
    the corrected approximation of :func:`lognormal_xci`. The same cohorts are scored at every
    grid value (common random numbers), which smooths the curves without changing the
    marginal law at each grid point.

    Parameters
    ----------
    beta1_hat : sequence of float, default=PAPER_GRID
        Grid of score group effects (paper: 0.2, 0.3, ..., 1.2).
    n : int, default=500
        Cohort size, >= 4.
    n_replications : int, default=50
        Replications, >= 2.
    beta0, beta1, beta2, sigma_z, sigma : float
        True model (paper: 0, 0.8, 1, 0.5, 0.5).
    beta2_hat : float, default=1.0
        Score coefficient of Z.
    p_group : float, default=0.5
        P(G = 1).
    random_state : None, int, SeedSequence or Generator
        Seed of the replications.
    progress : bool, default=False
        Show a tqdm bar over the replications (on a terminal or in Jupyter).

    Returns
    -------
    pandas.DataFrame
        One row per (beta1_hat, cell), cells in the paper's panel order (1,1), (0,0), (1,0),
        (0,1). Columns ``beta1_hat``, ``a`` (group of the earlier event), ``b`` (later),
        ``n``, ``n_replications``, ``n_valid`` (replications in which the cell was defined),
        ``mc_mean``, ``mc_sd``, ``mc_se`` (= mc_sd / sqrt(n_valid)), ``exact``, ``approx``.

    Raises
    ------
    InvalidParameterError
        For invalid parameters (as in :func:`lognormal_cohort` and :func:`lognormal_xci`),
        ``n < 4``, ``n_replications < 2`` or an empty / non-finite grid.

    See Also
    --------
    plot_study : draws its Figure 1.
    lognormal_xci : the exact values it compares with.
    coverage_study : bias, coverage and power for any design.

    References
    ----------
    Wang, H. et al. (2026). arXiv:2606.16872, Section 5.1 and Figure 1.

    Examples
    --------
    >>> from survfair.simulate import study
    >>> table = study([0.4, 0.8], n=200, n_replications=3, random_state=0)
    >>> sorted(set(table["beta1_hat"]))
    [0.4, 0.8]
    """
    options = _STUDY_OPTIONS.check(locals())
    grid = _grid(beta1_hat, "beta1_hat")
    n, n_replications = options["n"], options["n_replications"]
    progress, beta2_hat = options["progress"], options["beta2_hat"]
    rng = random_generator(random_state)
    model = dict(beta1=beta1, beta2=beta2, sigma_z=sigma_z, sigma=sigma)
    exact = [
        lognormal_xci(**model, beta1_hat=h, beta2_hat=beta2_hat, beta0=beta0).cells for h in grid
    ]
    approx = [
        lognormal_xci(**model, beta1_hat=h, beta2_hat=beta2_hat, beta0=beta0, method="approx").cells
        for h in grid
    ]
    estimates = np.full((n_replications, grid.size, 2, 2), np.nan)
    with _progress(n_replications, progress, "simulate fig1") as bar:
        for rep in range(n_replications):
            cohort = lognormal_cohort(
                n, beta0, beta1, beta2, sigma_z, sigma, p_group=p_group, random_state=rng
            )
            group, z = cohort["group"].to_numpy(), cohort["z"].to_numpy()
            for k, h in enumerate(grid):
                risk = -(h * group + beta2_hat * z)
                res = xci(cohort["time"], cohort["event"], group, risk, method="naive", ci=None)
                estimates[rep, k] = _cells(res)
            bar.update(1)
    rows = []
    for k, h in enumerate(grid):
        for a, b in _CELL_ORDER:
            r, c = GROUPS.index(a), GROUPS.index(b)
            draws = estimates[:, k, r, c]
            draws = draws[~np.isnan(draws)]
            sd = float(np.std(draws, ddof=1)) if draws.size > 1 else math.nan
            rows.append(
                {
                    "beta1_hat": float(h),
                    "a": a,
                    "b": b,
                    "n": n,
                    "n_replications": n_replications,
                    "n_valid": int(draws.size),
                    "mc_mean": float(draws.mean()) if draws.size else math.nan,
                    "mc_sd": sd,
                    "mc_se": sd / math.sqrt(draws.size) if draws.size > 1 else math.nan,
                    "exact": float(exact[k][r, c]),
                    "approx": float(approx[k][r, c]),
                }
            )
    table = pd.DataFrame(rows)
    table.attrs["model"] = {"beta0": beta0, **model, "beta2_hat": beta2_hat}
    return table


def _truncate(time: np.ndarray, event: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Administratively censor at tau: the naive estimator then compares exactly the
    pairs of eq. 7."""
    return np.minimum(time, tau), event & (time < tau)


#: The scalar options of :func:`ipcw_bias_study` (``n``, ``censoring`` and ``estimators`` are
#: lists, checked in the body).
_BIAS_OPTIONS = OptionTable(
    "ipcw_bias_study",
    tau=real(low=0, closed="neither"),
    n_replications=integer(low=2),
    beta0=real(),
    beta1=real(),
    beta2=real(),
    sigma_z=real(low=0),
    sigma=real(low=0, closed="neither"),
    beta1_hat=optional(real()),
    beta2_hat=optional(real()),
    p_group=real(low=0, high=1, closed="neither"),
    random_state=RANDOM_STATE,
    progress=PROGRESS,
)


def ipcw_bias_study(
    *,
    n: Sequence[int] = (250, 1000),
    censoring: Sequence[Any] = DEFAULT_CENSORING,
    tau: float = 4.0,
    n_replications: int = 200,
    beta0: float = 0.0,
    beta1: float = 0.8,
    beta2: float = 1.0,
    sigma_z: float = 0.5,
    sigma: float = 0.5,
    beta1_hat: float | None = None,
    beta2_hat: float | None = None,
    p_group: float = 0.5,
    estimators: Sequence[str] = ESTIMATORS,
    random_state: Any = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Why IPCW exists: bias and RMSE of naive and IPCW xCI under group-specific censoring.

    Cohorts from :func:`lognormal_cohort` are censored independently of T within groups but
    at group-specific rates. Each estimator is compared with the exact truncated truth
    ``xCI_{a,b,tau}`` of eq. 5 (:func:`lognormal_xci` with ``tau``):

    - ``"naive"``: eq. 4 on the pairs of eq. 7 with unit weights (the data are
      administratively censored at ``tau`` first, so both estimators compare the same pairs
      and the naive one differs only by not reweighting them);
    - ``"ipcw"``: eq. 7 with group-specific Kaplan-Meier censoring weights (eq. 6), consistent
      by Proposition 4.2;
    - ``"ipcw_pooled"``: eq. 7 with one pooled censoring curve (scikit-survival's choice),
      misspecified when censoring differs by group.

    Parameters
    ----------
    n : sequence of int, default=(250, 1000)
        Cohort sizes, each >= 4.
    censoring : sequence, default=DEFAULT_CENSORING
        Censoring designs (the ``censoring`` argument of :func:`lognormal_cohort`, not None).
        Default: exponential rates {1: 0.15, 0: 0.02} and {1: 0.5, 0: 0.05}.
    tau : float, default=4.0
        Truncation time (same unit as T; median T is 1 in group 0 and e^0.8 in group 1).
    n_replications : int, default=200
        Replications per (n, censoring), >= 2.
    beta0, beta1, beta2, sigma_z, sigma : float
        True model (eq. 8); defaults are the paper's.
    beta1_hat, beta2_hat : float, optional
        Score coefficients (default: the true ones).
    p_group : float, default=0.5
        P(G = 1).
    estimators : sequence of {"naive", "ipcw", "ipcw_pooled"}
        Estimators to run.
    random_state : None, int, SeedSequence or Generator
        Seed of the replications.
    progress : bool, default=False
        tqdm bar over the replications (on a terminal or in Jupyter).

    Returns
    -------
    pandas.DataFrame
        One row per (n, censoring, cell, estimator). Columns ``n``, ``censoring`` (label),
        ``censored_1``, ``censored_0`` (mean censored fraction in each group),
        ``k_tau_1``, ``k_tau_0`` (true censoring survival at tau), ``a``, ``b``, ``estimator``,
        ``n_replications``, ``n_valid``, ``truth``, ``mean``, ``bias``, ``sd``, ``rmse``, ``mc_se``
        (Monte-Carlo standard error of the bias, sd / sqrt(n_valid)).

    Raises
    ------
    InvalidParameterError
        For invalid model parameters or censoring designs (see :func:`lognormal_cohort`), an
        empty ``n`` or ``censoring``, ``n < 4``, ``n_replications < 2``, ``tau <= 0``, a censoring
        design of None, or an unknown estimator.

    See Also
    --------
    study : the Section 5.1 study.
    coverage_study : the same comparison for any design.

    Notes
    -----
    A replication in which an estimator raises (e.g. a censoring survival of 0 before tau in
    a tiny cohort) or leaves a cell undefined counts as invalid for that estimator and is
    reported through ``n_valid``, never dropped silently.

    References
    ----------
    Wang, H. et al. (2026). arXiv:2606.16872, eq. 4-7 and Proposition 4.2.

    Examples
    --------
    >>> from survfair.simulate import ipcw_bias_study
    >>> table = ipcw_bias_study(n=[200], n_replications=3, random_state=0)
    >>> sorted(set(table["estimator"]))
    ['ipcw', 'ipcw_pooled', 'naive']
    """
    options = _BIAS_OPTIONS.check(locals())
    sizes = [
        check_scalar(v, "n", "integer", low=4)
        for v in (n if isinstance(n, (list, tuple, np.ndarray)) else [n])
    ]
    if not sizes:
        raise InvalidParameterError("n must contain at least one cohort size.", parameter="n")
    if isinstance(censoring, (dict, CensoringSpec)) or censoring is None:
        censoring = [censoring]
    specs = [parse_censoring(c) for c in censoring]
    if not specs:
        raise InvalidParameterError(
            "censoring must contain at least one censoring design.", parameter="censoring"
        )
    if any(s.law is None and all(math.isinf(v) for v in s.administrative.values()) for s in specs):
        raise InvalidParameterError(
            "censoring designs must censor someone; None is not a censoring design here.",
            parameter="censoring",
        )
    tau, n_replications = options["tau"], options["n_replications"]
    progress = options["progress"]
    estimators = list(estimators)
    if not estimators or any(e not in ESTIMATORS for e in estimators):
        raise InvalidParameterError(
            f"estimators must be a non-empty subset of {list(ESTIMATORS)}, got {estimators}.",
            parameter="estimators",
        )
    b1_hat = beta1 if beta1_hat is None else beta1_hat
    b2_hat = beta2 if beta2_hat is None else beta2_hat
    truth = lognormal_xci(beta1, beta2, sigma_z, sigma, b1_hat, b2_hat, beta0=beta0, tau=tau).cells
    rng = random_generator(random_state)

    rows = []
    with _progress(len(sizes) * len(specs) * n_replications, progress, "simulate ipcw") as bar:
        for size in sizes:
            for spec in specs:
                est = {e: np.full((n_replications, 2, 2), np.nan) for e in estimators}
                censored = np.full((n_replications, 2), np.nan)
                for rep in range(n_replications):
                    df = lognormal_cohort(
                        size,
                        beta0,
                        beta1,
                        beta2,
                        sigma_z,
                        sigma,
                        p_group=p_group,
                        censoring=spec,
                        beta1_hat=b1_hat,
                        beta2_hat=b2_hat,
                        random_state=rng,
                    )
                    time, event = df["time"].to_numpy(), df["event"].to_numpy()
                    group, risk = df["group"].to_numpy(), df["risk"].to_numpy()
                    for k, g in enumerate(GROUPS):
                        if (group == g).any():
                            censored[rep, k] = 1.0 - event[group == g].mean()
                    for e in estimators:
                        est[e][rep] = _estimate(e, time, event, group, risk, tau)
                    bar.update(1)
                rows.extend(_bias_rows(size, spec, tau, truth, est, censored, n_replications))
    return pd.DataFrame(rows)


def _estimate(estimator: str, time, event, group, risk, tau) -> np.ndarray:
    with warnings.catch_warnings():
        # doubtful-weight warnings of single replications are summarised by the study's n_valid/sd
        warnings.simplefilter("ignore")
        try:
            if estimator == "naive":
                t, e = _truncate(time, event, tau)
                res = xci(t, e, group, risk, method="naive", ci=None)
            else:
                pooled = "pooled" if estimator == "ipcw_pooled" else "group"
                res = xci(
                    time, event, group, risk, method="ipcw", tau=tau, censoring=pooled, ci=None
                )
        except (PositivityError, NoComparablePairError):
            return np.full((2, 2), np.nan)
    return _cells(res)


def _bias_rows(size, spec: CensoringSpec, tau, truth, est, censored, n_replications) -> list:
    rows = []
    cens = np.nanmean(censored, axis=0)
    for a, b in _CELL_ORDER:
        r, c = GROUPS.index(a), GROUPS.index(b)
        for e, values in est.items():
            draws = values[:, r, c]
            draws = draws[~np.isnan(draws)]
            ok = draws.size
            mean = float(draws.mean()) if ok else math.nan
            sd = float(np.std(draws, ddof=1)) if ok > 1 else math.nan
            rows.append(
                {
                    "n": size,
                    "censoring": spec.label(),
                    "censored_1": float(cens[0]),
                    "censored_0": float(cens[1]),
                    "k_tau_1": spec.survival(tau, 1),
                    "k_tau_0": spec.survival(tau, 0),
                    "a": a,
                    "b": b,
                    "estimator": e,
                    "n_replications": n_replications,
                    "n_valid": ok,
                    "truth": float(truth[r, c]),
                    "mean": mean,
                    "bias": mean - float(truth[r, c]),
                    "sd": sd,
                    "rmse": float(np.sqrt(np.mean((draws - truth[r, c]) ** 2))) if ok else math.nan,
                    "mc_se": sd / math.sqrt(ok) if ok > 1 else math.nan,
                }
            )
    return rows


_TITLES = {
    (1, 1): "xCI(a, a): both in group 1",
    (0, 0): "xCI(b, b): both in group 0",
    (1, 0): "xCI(a, b): earlier in 1, later in 0",
    (0, 1): "xCI(b, a): earlier in 0, later in 1",
}


def plot_study(table: pd.DataFrame, *, axes: Any = None, **kwargs: Any):
    """Figure 1 of Wang et al. (2026): theoretical versus empirical xCI against beta1_hat.

    Four panels, one per cell (1,1), (0,0), (1,0), (0,1): the exact closed form as a solid
    line, the corrected normal approximation dashed, and the Monte-Carlo mean with +/- 1 SD
    error bars. matplotlib is imported only when called; nothing is shown.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`study`. When ``table.attrs["model"]`` (set by :func:`study`) is present,
        the closed forms are drawn on a fine grid of beta1_hat; otherwise (e.g. a table read back
        from CSV) as lines through the grid points.
    axes : array-like of 4 matplotlib Axes, optional
        Where to draw (in the panel order above). Default: a new 2 x 2 figure from
        ``matplotlib.pyplot.subplots``.
    **kwargs
        Passed to ``Axes.errorbar`` for the Monte-Carlo points.

    Returns
    -------
    numpy.ndarray of shape (2, 2) of matplotlib.axes.Axes
        The panels; ``axes[0, 0].figure`` is the figure.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``table`` is not a DataFrame.
    InvalidParameterError (a ValueError)
        If ``table`` lacks a column of :func:`study`'s output or ``axes`` does not hold 4 Axes.

    See Also
    --------
    study : computes the table it draws.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from survfair.simulate import plot_study, study
    >>> axes = plot_study(study([0.4, 0.8], n=200, n_replications=3, random_state=0))
    >>> len(axes)
    2
    """
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(
            f"table must be the DataFrame returned by study(), got {type(table).__name__}.",
            parameter="table",
        )
    needed = ["beta1_hat", "a", "b", "mc_mean", "mc_sd", "exact", "approx"]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise InvalidParameterError(
            f"table lacks the columns {missing} of study()'s output.", parameter="table"
        )
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(2, 2, figsize=(9, 7), sharex=True, constrained_layout=True)
    axes = np.asarray(axes, dtype=object)
    if axes.size != 4:
        raise InvalidParameterError(f"axes must hold 4 Axes, got {axes.size}.", parameter="axes")
    axes = axes.reshape(2, 2)
    fine, curves = _fine_curves(table)
    style = {
        "fmt": "o",
        "color": "black",
        "capsize": 3,
        "markersize": 4,
        "label": "Monte Carlo (mean ± SD)",
    }
    style.update(kwargs)
    for ax, (a, b) in zip(axes.ravel(), _CELL_ORDER):
        cell = table[(table["a"] == a) & (table["b"] == b)].sort_values("beta1_hat")
        x = cell["beta1_hat"].to_numpy()
        if curves is not None:
            r, c = GROUPS.index(a), GROUPS.index(b)
            ax.plot(fine, curves["exact"][:, r, c], "-", color="C0", label="exact")
            ax.plot(fine, curves["approx"][:, r, c], "--", color="C1", label="approximation")
        else:
            ax.plot(x, cell["exact"], "-", color="C0", label="exact")
            ax.plot(x, cell["approx"], "--", color="C1", label="approximation")
        ax.errorbar(x, cell["mc_mean"], yerr=cell["mc_sd"], **style)
        ax.set_title(_TITLES[(a, b)])
        ax.set_xlabel(r"$\hat\beta_1$")
        ax.set_ylabel("xCI")
    axes[1, 0].legend(loc="upper right", fontsize="small")
    return axes


def _fine_curves(table: pd.DataFrame):
    """Exact and approximate curves on a fine grid when ``table.attrs`` carries the model."""
    model = table.attrs.get("model")
    if not isinstance(model, dict) or table.empty:
        return None, None
    fine = np.linspace(table["beta1_hat"].min(), table["beta1_hat"].max(), 41)
    model = dict(model)
    beta0, beta2_hat = model.pop("beta0"), model.pop("beta2_hat")
    curves = {
        m: np.array(
            [
                lognormal_xci(
                    **model, beta1_hat=h, beta2_hat=beta2_hat, beta0=beta0, method=m
                ).cells
                for h in fine
            ]
        )
        for m in ("exact", "approx")
    }
    return fine, curves
