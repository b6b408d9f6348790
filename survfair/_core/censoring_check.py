"""Does censoring depend on the risk within a group? The check every IPCW audit runs (issue 42.4).

IPCW weights from a Kaplan-Meier of the censoring distribution (per group or pooled) are valid
only if, within each group, censoring is independent of the event time. The check fits, within
each group, a Cox model of the censoring hazard (censoring as the event, events as censored;
Efron's ties, as lifelines' ``CoxPHFitter`` does) on the risk score standardised within the group
(and on covariates when given) and reports the hazard ratio per standard deviation of the risk,
its Wald interval and p-value, Holm-adjusted across groups. A censoring hazard that rises or falls
with the risk is evidence that the Kaplan-Meier weights are biased; not rejecting it is no evidence
of independence (censoring may depend on what the risk does not capture).

The fits are lifelines' own (the numbers are identical to ``CoxPHFitter().fit`` on the same
frame). lifelines' Efron step is a Python loop over the rows: about 3 s per 10^5 rows of a group
(measured: 6 s for 2 groups at n = 10^5, 46 s at n = 10^6, where ``xci`` takes 0.3-2 s), so a
group is fitted on at most :data:`MAX_FIT_ROWS` rows (a seeded random subset above) and
:class:`~survfair.XCIResult` computes it on first access, not in ``xci`` (docs: conventions).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .display import html_of
from .frozen import frozen_result
from .groups import label_array
from .intervals import ConfidenceInterval, holm_adjusted
from .options import CAUSE, CONFIDENCE_LEVEL, OptionTable, check_confidence_level
from .validation import SurvivalSample, check_covariates, check_survival_inputs, warn_excluded_rows

__all__ = [
    "CensoringDependence",
    "censoring_dependence",
    "censoring_dependence_of_sample",
    "MIN_CENSORINGS_PER_PARAMETER",
    "MAX_FIT_ROWS",
]

#: Fewest censorings per coefficient of a group's Cox model; below it the group is "not estimable"
#: (with 1-4 censorings the partial likelihood is often monotone and the Wald test meaningless).
MIN_CENSORINGS_PER_PARAMETER = 5
#: Rows of a group the Cox model of its censoring is fitted on at most: above, a random subset of
#: this many rows (seeded, the same for every call; whole groups below it). lifelines' Efron step
#: is a Python loop, about 3 s per 10^5 rows, so a registry of 10^6 rows in 2 groups took 45 s more
#: than xci itself; with 20,000 rows the standard error of the log hazard ratio is about
#: 1 / sqrt(censorings) <= 0.03 at 5% censoring, enough to detect a hazard ratio of 1.1 per SD.
#: Not with ``cluster`` (a subset of rows would split clusters): the whole group is fitted.
MAX_FIT_ROWS = 20_000
#: lifelines' warnings that mean its fit is not a maximum of the partial likelihood (its warning of
#: a risk highly correlated with the time is a heuristic: a fit that then converges is kept;
#: complete separation ends as "failed to converge")
_FAILED = ("failed to converge", "still high", "did not converge")
#: The columns of :meth:`CensoringDependence.to_frame`, in order.
COLUMNS = (
    "group",
    "n",
    "censored",
    "n_fitted",
    "hazard_ratio",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "coef",
    "se",
    "status",
    "reason",
)
ESTIMATED, NOT_ESTIMABLE = "estimated", "not estimable"


def _plain(value: Any) -> Any:
    """A JSON-safe scalar: NaN / inf as None, numpy scalars as Python ones."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value if isinstance(value, str) or value is None else str(value)


@frozen_result
class CensoringDependence:
    """Result of :func:`censoring_dependence`: within each group, how the censoring hazard moves
    with the risk score.

    Attributes
    ----------
    groups : tuple
        Group labels, in the order of the audit.
    table : DataFrame
        One row per group (:meth:`to_frame`): ``n`` (rows), ``censored`` (censorings: rows
        without an event of any cause), ``n_fitted`` (rows the model was fitted on: all of them, or
        a seeded random 20,000 in a larger group without clusters), ``hazard_ratio`` (of censoring,
        per standard deviation of
        the risk within the group), ``ci_low``, ``ci_high`` (its Wald interval at
        :attr:`confidence_level`), ``p_value`` (Wald, H0: hazard ratio 1), ``p_adjusted`` (Holm
        across the estimable groups), ``coef`` and ``se`` (log hazard ratio and its standard error),
        ``status`` ("estimated" or "not estimable") and ``reason`` (why not; empty otherwise).
    covariates : tuple of str
        Covariates the censoring model adjusts for (empty: the risk alone).
    confidence_level : float
        Level of the intervals in :attr:`table`.
    robust : bool
        Whether the standard errors are lifelines' sandwich (case weights or clusters).

    See Also
    --------
    censoring_dependence : computes it.
    XCIResult.censoring_dependence : the same check of an IPCW audit.
    """

    groups: tuple
    table: pd.DataFrame = field(repr=False)
    covariates: tuple = ()
    confidence_level: float = 0.95
    robust: bool = False

    def to_frame(self) -> pd.DataFrame:
        """One row per group (a copy of :attr:`table`)."""
        return self.table

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the settings and one record per group (NaN as None)."""
        return {
            "covariates": list(self.covariates),
            "confidence_level": self.confidence_level,
            "robust": self.robust,
            "groups": [
                {key: _plain(value) for key, value in row.items()}
                for row in self.table.to_dict(orient="records")
            ],
        }

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Wald interval of the hazard ratio per SD, per group: ``exp(coef ± z se)`` (lifelines'
        formula), as a :class:`~survfair.ConfidenceInterval` of two Series indexed by group; NaN
        for a group that is not estimable."""
        from scipy import stats

        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_confidence_level(level)
        table = self.table
        z = stats.norm.ppf(1 - (1 - level) / 2)
        index = pd.Index(list(self.groups), name="group", tupleize_cols=False)
        coef, se = table["coef"].to_numpy(float), table["se"].to_numpy(float)
        return ConfidenceInterval(
            pd.Series(np.exp(coef - z * se), index=index, name="ci_low"),
            pd.Series(np.exp(coef + z * se), index=index, name="ci_high"),
        )

    def dependent_groups(self, alpha: float | None = None) -> tuple:
        """The groups whose Holm-adjusted p-value is below ``alpha`` (default: 1 minus
        :attr:`confidence_level`): censoring depends on the risk there."""
        alpha = 1 - self.confidence_level if alpha is None else alpha
        table = self.table
        hit = table["p_adjusted"].to_numpy(float) < alpha
        return tuple(g for g, h in zip(self.groups, hit) if h)

    @property
    def not_estimable(self) -> dict:
        """Group -> why its censoring model could not be fitted."""
        table = self.table
        return {
            g: r
            for g, s, r in zip(self.groups, table["status"], table["reason"])
            if s == NOT_ESTIMABLE
        }

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def __repr__(self) -> str:
        adjusted = f", adjusted for {list(self.covariates)}" if self.covariates else ""
        head = f"CensoringDependence(groups={list(self.groups)}{adjusted})"
        shown = self.table[["group", "n", "censored", "hazard_ratio", "ci_low", "ci_high"]].copy()
        shown["p_adjusted"] = self.table["p_adjusted"]
        shown["status"] = self.table["status"]
        with pd.option_context("display.precision", 4, "display.width", 120):
            return f"{head}\n{shown.to_string(index=False)}"


def _holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down over the finite p-values, as :func:`survfair.adjust_p_values` (equal to
    statsmodels' ``multipletests``, without its garbage collection: 0.15 s a call in the demo
    audit); NaN stays NaN and is not counted."""
    out = np.full(p_values.shape, np.nan)
    finite = np.isfinite(p_values)
    if finite.any():
        out[finite] = holm_adjusted(p_values[finite])
    return out


def _first_sentence(message: str) -> str:
    """The first sentence of a lifelines message (its advice and links left out)."""
    return message.strip().split("\n")[0].split(". ")[0].rstrip(".")


def _fit_group(
    time: np.ndarray,
    censored: np.ndarray,
    risk: np.ndarray,
    covariates: np.ndarray,
    names: tuple,
    entry: np.ndarray | None,
    weights: np.ndarray | None,
    cluster: np.ndarray | None,
    alpha: float,
) -> tuple[float, float, float, str]:
    """(coef, se, p, reason) of the standardised risk in one group's Cox model of censoring;
    NaN and the reason when it cannot be fitted."""
    from lifelines import CoxPHFitter

    missing = math.nan, math.nan, math.nan
    kept = [j for j in range(covariates.shape[1]) if np.ptp(covariates[:, j]) > 0]
    n_censored = int(censored.sum())
    needed = MIN_CENSORINGS_PER_PARAMETER * (1 + len(kept))
    if n_censored == 0:
        return (*missing, "no censored row")
    if n_censored < needed:
        return (*missing, f"{n_censored} censorings (fewer than {needed})")
    sd = risk.std(ddof=1) if risk.size > 1 else 0.0
    if not sd > 0:
        return (*missing, "the risk is constant within the group")
    frame = pd.DataFrame({"risk": (risk - risk.mean()) / sd})
    for j in kept:
        frame[names[j]] = covariates[:, j]
    frame["_time"], frame["_censored"] = time, censored.astype(np.int64)
    options: dict[str, Any] = {}
    if entry is not None:
        frame["_entry"] = entry
        options["entry_col"] = "_entry"
    if weights is not None:
        frame["_weight"] = weights
        options.update(weights_col="_weight", robust=True)
    if cluster is not None:
        frame["_cluster"] = cluster
        options["cluster_col"] = "_cluster"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = CoxPHFitter(alpha=alpha).fit(frame, "_time", "_censored", **options)
        except Exception as error:  # lifelines raises ConvergenceError, LinAlgError, ValueError...
            first = _first_sentence(str(error))
            return (*missing, f"lifelines could not fit it ({type(error).__name__}: {first})")
    failed = [str(w.message) for w in caught if any(k in str(w.message) for k in _FAILED)]
    if failed:
        return (*missing, f"lifelines did not converge ({_first_sentence(failed[0])})")
    summary = fit.summary.loc["risk"]
    coef, se, p = float(summary["coef"]), float(summary["se(coef)"]), float(summary["p"])
    if not (math.isfinite(coef) and math.isfinite(se) and se > 0):
        return (*missing, "lifelines returned a non-finite estimate")
    return coef, se, p, ""


def _fitted_rows(rows: np.ndarray, clustered: bool, group_index: int) -> np.ndarray:
    """The rows of a group its Cox model is fitted on: all of them up to :data:`MAX_FIT_ROWS` (or
    with clusters), else a seeded random subset of that many, in their order."""
    if rows.size <= MAX_FIT_ROWS or clustered:
        return rows
    rng = np.random.default_rng([20261205, group_index])
    return np.sort(rng.choice(rows, size=MAX_FIT_ROWS, replace=False))


def censoring_dependence_of_sample(
    sample: SurvivalSample,
    *,
    covariates: np.ndarray | None = None,
    covariate_names: Sequence[str] = (),
    confidence_level: float = 0.95,
) -> CensoringDependence:
    """:func:`censoring_dependence` of a validated sample (what an :class:`XCIResult` keeps);
    ``covariates`` is a float array of shape (n_samples, p) aligned with the sample's rows. Without
    it, the covariates the sample carries for a censoring model (``xci(censoring="cox",
    censoring_covariates=...)``), if any, are adjusted for."""
    from scipy import stats

    n = sample.time.shape[0]
    if covariates is None and getattr(sample, "covariates", None) is not None:
        covariates, covariate_names = sample.covariates, sample.covariate_names
    covariates = np.empty((n, 0)) if covariates is None else np.asarray(covariates, float)
    names = tuple(str(c) for c in covariate_names)
    observed = sample.event if sample.competing is None else sample.event | sample.competing
    censored = ~observed
    usable = np.ones(n, dtype=bool) if sample.weights is None else sample.weights > 0
    alpha = 1 - confidence_level
    z = stats.norm.ppf(1 - alpha / 2)
    rows = []
    for k, label in enumerate(sample.groups):
        rows_k = np.flatnonzero((sample.group_codes == k) & usable)
        fitted = _fitted_rows(rows_k, sample.cluster is not None, k)
        coef, se, p, reason = _fit_group(
            sample.time[fitted],
            censored[fitted],
            sample.risk[fitted],
            covariates[fitted],
            names,
            None if sample.entry is None else sample.entry[fitted],
            None if sample.weights is None else sample.weights[fitted],
            None if sample.cluster is None else sample.cluster[fitted],
            alpha,
        )
        rows.append(
            {
                "group": label,
                "n": int(rows_k.size),
                "censored": int(censored[rows_k].sum()),
                "n_fitted": int(fitted.size),
                "hazard_ratio": math.exp(coef) if math.isfinite(coef) else math.nan,
                "ci_low": math.exp(coef - z * se) if math.isfinite(coef) else math.nan,
                "ci_high": math.exp(coef + z * se) if math.isfinite(coef) else math.nan,
                "p_value": p,
                "p_adjusted": math.nan,
                "coef": coef,
                "se": se,
                "status": ESTIMATED if not reason else NOT_ESTIMABLE,
                "reason": reason,
            }
        )
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table["group"] = label_array(sample.groups)
    table["p_adjusted"] = _holm(table["p_value"].to_numpy(float))
    return CensoringDependence(
        groups=tuple(sample.groups),
        table=table,
        covariates=names,
        confidence_level=float(confidence_level),
        robust=sample.weights is not None or sample.cluster is not None,
    )


#: The scalar options of :func:`censoring_dependence`.
_OPTIONS = OptionTable("censoring_dependence", cause=CAUSE, confidence_level=CONFIDENCE_LEVEL)


def censoring_dependence(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    groups: Sequence | None = None,
    covariates: Any = None,
    entry: Any = None,
    weights: Any = None,
    cluster: Any = None,
    cause: int | None = None,
    confidence_level: float = 0.95,
) -> CensoringDependence:
    """Test, within each group, whether the censoring hazard depends on the risk score.

    IPCW estimates (per-group or pooled Kaplan-Meier censoring weights) assume that censoring is
    independent of the event time within each group. Within each group this fits a Cox model of
    the censoring hazard (censoring as the event, events as censored) on the risk standardised
    within the group, and on ``covariates`` when given.

    Parameters
    ----------
    time : array-like of shape (n_samples,) or column name
        Observed times.
    event : array-like of shape (n_samples,) or column name
        Event indicators (1/True = event; with ``cause``, cause codes).
    group : array-like of shape (n_samples,), column name or list of column names
        Group labels.
    risk : array-like of shape (n_samples,) or column name
        Risk scores, higher = earlier expected event.
    data : DataFrame, optional
        Table in which string arguments are looked up as column names.
    groups : sequence, optional
        Groups to check, in order; rows of other groups are left out (and counted).
    covariates : column name(s) of data, DataFrame or array-like of shape (n_samples, p), optional
        Covariates the censoring model adjusts for (those a covariate censoring model would use):
        the hazard ratio of the risk is then conditional on them. Constant within a group, a
        covariate is left out of that group's model.
    entry, weights, cluster : array-like of shape (n_samples,) or column name, optional
        Delayed entry (risk sets on (entry, time]), case weights (weighted partial likelihood, with
        lifelines' robust standard errors; rows of weight 0 left out), clusters (robust standard
        errors), as in :func:`survfair.xci`.
    cause : int, optional
        Competing risks: ``event`` holds cause codes; an event of any cause is not a censoring.
    confidence_level : float, default=0.95
        Level of the intervals of the hazard ratios.

    Returns
    -------
    CensoringDependence
        Per group: n, censorings, the hazard ratio of censoring per SD of the risk with its
        interval, the Wald p-value and its Holm adjustment across groups, or "not estimable" with
        the reason (no or too few censorings, a constant risk, a fit lifelines could not complete).

    Raises
    ------
    InvalidParameterError
        For a ``confidence_level`` outside (0, 1), or ``covariates`` that are missing, non-numeric,
        of another length or index, or name unknown columns; the input errors of
        :func:`survfair.xci` for the other arguments.

    See Also
    --------
    xci : the IPCW estimate whose weights this checks (``result.censoring_dependence``).
    findings : says when censoring depends on the risk.

    Notes
    -----
    A higher ``risk`` means an earlier expected event; survival probabilities are not accepted.
    The fits are lifelines' ``CoxPHFitter`` (Efron's ties) on ``(risk - mean) / sd`` within the
    group (``sd`` with ddof=1), so the hazard ratio, interval and p-value are exactly lifelines'.
    A group with fewer than 5 censorings per coefficient, a constant risk, or a fit lifelines
    refuses or reports as not converged (e.g. separation) is "not estimable" with the reason; the
    check never raises for it. A group of more than 20,000 rows (without clusters) is fitted on a
    seeded random subset of 20,000 of them (``n_fitted``), which bounds the cost at about 0.6 s a
    group (lifelines' Efron step is a Python loop) and still detects a hazard ratio of 1.1 per SD
    with 5% of rows censored. A hazard ratio above 1: rows with a higher risk are censored sooner,
    so Kaplan-Meier weights that ignore the risk misweight the pairs. Not rejecting is not evidence
    of independent censoring (the test has little power in small groups, and censoring may depend
    on what the risk does not capture).

    References
    ----------
    Cox, D. R. (1972). Regression models and life-tables. JRSS B 34(2), 187-220.

    Gerds, T. A., Kattan, M. W., Schumacher, M. and Yu, C. (2013). Estimating a time-dependent
    concordance index for survival prediction models with covariate dependent censoring.
    Statistics in Medicine 32(13), 2173-2184.

    Examples
    --------
    >>> import numpy as np
    >>> import survfair
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=400)
    >>> t, c = rng.exponential(np.exp(-x)), rng.exponential(np.exp(-x))  # censoring follows x
    >>> group = np.repeat(["a", "b"], 200)
    >>> check = survfair.censoring_dependence(np.minimum(t, c), t <= c, group, x)
    >>> check.dependent_groups()
    ('a', 'b')
    >>> print(check.to_frame()[["group", "n", "censored", "hazard_ratio"]].round(2))
      group    n  censored  hazard_ratio
    0     a  200        94          2.81
    1     b  200       102          3.01
    """
    options = _OPTIONS.check(locals())
    sample, n_excluded = check_survival_inputs(
        time,
        event,
        group,
        risk,
        data=data,
        groups=groups,
        entry=entry,
        weights=weights,
        cluster=cluster,
        cause=cause,
    )
    warn_excluded_rows(n_excluded, stacklevel=2)
    matrix, names = None, ()
    if covariates is not None:
        if n_excluded:
            everyone, _ = check_survival_inputs(
                time, event, group, risk, data=data, cause=cause, require_cause=False
            )
            wanted = [k for k, g in enumerate(everyone.groups) if g in set(sample.groups)]
            kept = np.isin(everyone.group_codes, wanted)
            matrix, names = check_covariates(covariates, data, everyone.index, name="covariates")
            matrix = matrix[kept]
        else:
            matrix, names = check_covariates(covariates, data, sample.index, name="covariates")
    return censoring_dependence_of_sample(
        sample,
        covariates=matrix,
        covariate_names=names,
        confidence_level=options["confidence_level"],
    )
