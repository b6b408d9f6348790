"""The refit bootstrap of :func:`~survfair._models.model_based.model_based_xci`
(``ci="bootstrap", refit=True``): intervals of the excess that include the uncertainty of the
model's coefficients.

The analytic interval (and the plain bootstrap) treat the fitted predictions as fixed: they are
for the fitted model's own excess. The refit bootstrap answers the question about the model's
form: on each replicate the audited rows are resampled within groups (and, with ``train=``, the
training rows too), a fresh copy of the model is fitted, and its risk scores, its survival curves
on the grid (the reference) and the observed xCI are recomputed.

checks -> a :class:`_Refitter` (how to fit a fresh copy: lifelines or scikit-survival) -> one
reproduction fit (warns if it does not give the model's scores) -> replicates (n_resamples, 2, G, G)
read by :class:`~survfair._models.model_based_result.ModelBasedResult` as those of the plain
bootstrap.
"""

from __future__ import annotations

import copy
import inspect
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._core.exceptions import ConvergenceError, InvalidParameterError
from .._core.settings import EstimatorSettings
from .._core.validation import SurvivalSample
from .fitting import _kind, fit_checked, predicted_risks, risk_scores
from .model_based_engine import cells_from_contributions, factorised_contributions, grid_terms

__all__ = ["refit_bootstrap"]

#: A reproduction fit whose scores differ from the model's by more than this (relative to their
#: standard deviation) is reported: the replicates would describe another model.
_REPRODUCTION_TOL = 1e-3
#: Arguments of a lifelines ``fit`` carried over from the original fit when set.
_LIFELINES_FIT_ARGUMENTS = ("weights_col", "entry_col", "cluster_col", "robust", "formula")
_EVENT, _DURATION = "_survfair_event", "_survfair_time"


@dataclass(frozen=True)
class _Refitter:
    """How to fit a fresh copy of ``model`` on (X, time, event): lifelines (a new fitter with the
    fitted one's constructor settings, ``fit(df, duration_col, event_col, **fit_arguments)``) or
    scikit-learn's ``clone`` and ``fit(X, y)`` with a structured y (scikit-survival, Pipelines)."""

    model: Any
    lifelines: bool
    config: dict
    fit_arguments: dict
    columns: list | None  # lifelines: the columns of X the fit needs (None: all, a formula)
    duration_col: str
    event_col: str

    def fit(self, X: Any, time: np.ndarray, event: np.ndarray) -> Any:
        """A fresh copy fitted with :func:`fit_checked` (ConvergenceError if it did not
        converge)."""
        if self.lifelines:
            frame = X if self.columns is None else X[self.columns]
            frame = frame.reset_index(drop=True).assign(
                **{self.duration_col: time, self.event_col: event.astype(int)}
            )
            fresh = type(self.model)(**copy.deepcopy(self.config))
            return fit_checked(
                fresh, frame, self.duration_col, self.event_col, **self.fit_arguments
            )
        from sklearn.base import clone

        y = np.empty(time.shape[0], dtype=[("event", bool), ("time", float)])
        y["event"], y["time"] = event, time
        return fit_checked(clone(self.model), X, y)


def _lifelines_columns(model: Any, X: pd.DataFrame) -> list | None:
    """The covariate columns of a lifelines fit (and its strata / weights / entry / cluster
    columns), None when a formula picks them from all of X."""
    if getattr(model, "formula", None) is not None:
        return None
    regressors = getattr(model, "regressors", None)
    mappings = getattr(regressors, "mappings", None)
    if not isinstance(mappings, dict):
        return None
    columns: list = []
    for transform in mappings.values():
        if isinstance(transform, list):
            columns += [c for c in transform if c != "Intercept" and c not in columns]
    strata = getattr(model, "strata", None)
    extra = [strata] if isinstance(strata, str) else list(strata or [])
    extra += [getattr(model, name, None) for name in ("weights_col", "entry_col", "cluster_col")]
    columns += [c for c in extra if c is not None and c not in columns]
    missing = [c for c in columns if c not in X.columns]
    if missing:
        raise InvalidParameterError(
            f"X lacks the column(s) {missing} that the model was fitted with; refit=True refits "
            "the model on X, so X must hold all of them.",
            parameter="X",
        )
    return columns


def _refitter(model: Any, X: Any) -> _Refitter:
    kind = _kind(model)  # InvalidParameterError for an unsupported type
    if kind == "callable":
        raise InvalidParameterError(
            "model: a callable cannot be refitted (refit=True needs a lifelines or "
            "scikit-survival model with a fit method).",
            parameter="model",
        )
    if not kind.endswith("_lifelines"):
        return _Refitter(model, False, {}, {}, None, _DURATION, _EVENT)
    from lifelines import CoxTimeVaryingFitter

    if isinstance(model, CoxTimeVaryingFitter):
        raise InvalidParameterError(
            "model: a CoxTimeVaryingFitter is fitted on long-format (start, stop] rows, which "
            "refit=True cannot resample from one row per person; use ci='analytic' or the plain "
            "bootstrap.",
            parameter="model",
        )
    if not hasattr(model, "duration_col"):
        raise InvalidParameterError(
            f"model: this {type(model).__name__} is not fitted; call fit first.", parameter="model"
        )
    if not isinstance(X, pd.DataFrame):
        raise InvalidParameterError(
            "X must be a DataFrame with the model's columns to refit a lifelines model.",
            parameter="X",
        )
    init = inspect.signature(type(model).__init__).parameters
    config = {
        name: getattr(model, name)
        for name, p in init.items()
        if p.kind is p.POSITIONAL_OR_KEYWORD and name != "self" and hasattr(model, name)
    }
    fit = inspect.signature(type(model).fit).parameters
    arguments = {
        name: getattr(model, name)
        for name in _LIFELINES_FIT_ARGUMENTS
        if name in fit and getattr(model, name, None) not in (None, False)
    }
    return _Refitter(
        model, True, config, arguments, _lifelines_columns(model, X), _DURATION, _EVENT
    )


def _rows(X: Any, rows: np.ndarray) -> Any:
    return X.iloc[rows] if isinstance(X, (pd.DataFrame, pd.Series)) else np.asarray(X)[rows]


def _check_train(train: Any, X: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    from .._core.validation import check_survival_inputs

    if not (isinstance(train, (tuple, list)) and len(train) == 3):
        raise InvalidParameterError(
            "train must be a tuple (X_train, time_train, event_train): the rows the model was "
            "fitted on.",
            parameter="train",
        )
    X_train, time_train, event_train = train
    n = X_train.shape[0] if hasattr(X_train, "shape") else len(X_train)
    if isinstance(X, pd.DataFrame) and not isinstance(X_train, pd.DataFrame):
        raise InvalidParameterError(
            "train: X_train must be a DataFrame, as X is.", parameter="train"
        )
    try:
        checked, _ = check_survival_inputs(
            np.asarray(time_train), np.asarray(event_train), np.zeros(n), require_risk=False
        )
    except (TypeError, ValueError) as error:
        raise InvalidParameterError(f"train: {error}", parameter="train") from None
    if checked.n_samples != n:
        raise InvalidParameterError(
            f"train: X_train has {n} rows but time_train and event_train have {checked.n_samples}.",
            parameter="train",
        )
    return X_train, checked.time, checked.event


def _curves(model: Any, X: Any, grid: np.ndarray) -> np.ndarray:
    """Survival curves (n, m) on the grid; a scikit-survival step function is held at its last
    value beyond the replicate's follow-up (as lifelines does), where it refuses to predict."""
    if not isinstance(model, _lifelines_types()):
        first = _rows(X, np.arange(1))
        high = float(model.predict_survival_function(first)[0].domain[1])
        grid = np.minimum(grid, high)
    return 1.0 - predicted_risks(model, X, grid).to_numpy(dtype=float)


def _lifelines_types() -> tuple:
    from lifelines.fitters import BaseFitter

    return (BaseFitter,)


def _scores_agree(a: np.ndarray, b: np.ndarray) -> bool:
    scale = max(float(np.std(a)), 1e-12)
    return bool(np.max(np.abs(a - b)) <= _REPRODUCTION_TOL * scale)


def refit_bootstrap(
    model: Any,
    X: Any,
    train: Any,
    *,
    refit: bool,
    ci: str | None,
    full: SurvivalSample,
    groups: tuple,
    grid: np.ndarray | None,
    settings: EstimatorSettings,
    tau: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """(n_resamples, 2, G, G): observed and model-based matrices of replicates that refit the model.

    Each replicate resamples the input rows within groups (group sizes fixed) and, with ``train``,
    the training rows (simple resampling, their number fixed); fits a fresh copy of ``model`` on
    the resampled training rows (without ``train``: on the resampled audited rows' ``X``, ``time``
    and ``event``); and recomputes on the resampled audited rows of the analysed groups its risk
    scores (:func:`risk_scores`), its survival curves on ``grid`` (the reference, truncated at
    ``tau``) and the observed xCI (``settings``). A replicate whose fit did not converge
    (:func:`fit_checked`) or whose matrices fail (no comparable pair) is NaN; both are counted in
    one warning.

    Parameters
    ----------
    model, X
        The fitted model and the audited covariates, one row per input row.
    train : tuple (X_train, time_train, event_train) or None
        The rows the model was fitted on, if not the audited ones.
    refit, ci
        The options of :func:`model_based_xci`, checked here: ``refit=True`` needs
        ``ci="bootstrap"``, ``model`` and ``X``; ``train`` needs ``refit=True``.
    full : SurvivalSample
        The validated inputs, every row (the fit uses the rows of groups that ``groups`` leaves
        out too).
    groups : tuple
        The analysed groups, in the order of the result's matrices.
    grid : ndarray of shape (m,)
        The grid of the model's curves (the point estimate's).
    settings, tau, n_resamples, rng
        The estimator's settings, the reference's truncation, replicates, random generator.

    Raises
    ------
    InvalidParameterError
        ``refit`` (without ``model`` / ``X``, or with ``ci`` other than ``"bootstrap"``), ``train``
        (without ``refit=True``; not a triple; inconsistent rows), ``model`` (a callable or a
        ``CoxTimeVaryingFitter``: nothing to refit one row per person), ``X`` (lacks the model's
        columns), ``risk`` (scores that do not rank as the model's own).

    Warns
    -----
    UserWarning
        When replicate fits did not converge or replicates failed (the counts), and when a fit on
        the un-resampled rows does not reproduce the model's scores (then the replicates describe
        refits on these rows with these settings, not the model).

    Examples
    --------
    A Cox model fitted on the audited rows; the refit bootstrap's interval includes the
    uncertainty of its coefficients (the question about the model's form):

    >>> import numpy as np, pandas as pd, survfair
    >>> from lifelines import CoxPHFitter
    >>> rng = np.random.default_rng(0)
    >>> n = 200
    >>> group = np.where(rng.random(n) < 0.5, "a", "b")
    >>> X = pd.DataFrame({"z": rng.normal(size=n), "b": (group == "b").astype(float)})
    >>> t = rng.exponential(np.exp(-X["z"] - X["b"]))
    >>> cox = CoxPHFitter().fit(X.assign(t=t, e=1), "t", "e")
    >>> res = survfair.model_based_xci(t, np.ones(n, bool), group, None, model=cox, X=X,
    ...                                tau=2.0, ci="bootstrap", refit=True, n_resamples=20,
    ...                                random_state=0)
    >>> res.replicates.shape, res.ci_method
    ((20, 2, 2, 2), 'bootstrap')
    """
    if not refit:
        raise InvalidParameterError(
            "train is used only by the refit bootstrap; pass refit=True (with ci='bootstrap').",
            parameter="train",
        )
    if ci != "bootstrap":
        raise InvalidParameterError(
            f"refit=True refits the model on bootstrap replicates, so it needs ci='bootstrap' "
            f"(got ci={ci!r}).",
            parameter="refit",
        )
    if model is None or X is None or grid is None:
        raise InvalidParameterError(
            "refit=True refits the model, so it needs model= (a fitted lifelines or "
            "scikit-survival model) and X= (its covariates); survival curves or a linear "
            "predictor cannot be refitted.",
            parameter="refit",
        )
    refitter = _refitter(model, X)
    own = risk_scores(model, X)
    if not np.array_equal(_ranks(own), _ranks(full.risk)):
        raise InvalidParameterError(
            "risk does not rank the rows as the model's own scores (risk_scores(model, X)); "
            "refit=True recomputes the model's scores on every replicate, so pass risk=None.",
            parameter="risk",
        )
    if train is None:
        X_fit, time_fit, event_fit = X, full.time, full.event
    else:
        X_fit, time_fit, event_fit = _check_train(train, X)
        missing = [c for c in refitter.columns or [] if c not in X_fit.columns]
        if missing:
            raise InvalidParameterError(
                f"train: X_train lacks the column(s) {missing} that the model was fitted with.",
                parameter="train",
            )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            again = risk_scores(refitter.fit(X_fit, time_fit, event_fit), X)
        except ConvergenceError:
            again = None
    if again is None or not _scores_agree(own, again):
        where = "the training rows (train=)" if train is not None else "the audited rows"
        warnings.warn(
            f"a fit of a fresh copy of the model on {where} does not reproduce its risk scores: "
            "the replicates describe refits of this specification on these rows, not the model "
            "given (was it fitted on other rows, with other columns or options, or is the fit "
            "random?). Without train=, refit=True assumes the model was fitted on the audited "
            "rows.",
            UserWarning,
            stacklevel=3,
        )

    from .._core.exceptions import UndefinedXCIWarning
    from .._xci.estimator import xci

    g = len(groups)
    # the analysed groups' codes, in the result's order (-1: a group that `groups` leaves out)
    remap = np.array([groups.index(label) if label in groups else -1 for label in full.groups])
    members = [np.flatnonzero(full.group_codes == k) for k in range(full.n_groups)]
    n_train = len(time_fit)
    out = np.full((n_resamples, 2, g, g), np.nan)
    not_converged = failed = 0
    for r in range(n_resamples):
        rows = np.concatenate([rng.choice(m, size=m.size, replace=True) for m in members])
        fit_rows = rows if train is None else rng.integers(0, n_train, size=n_train)
        audited = rows[remap[full.group_codes[rows]] >= 0]
        X_rep = _rows(X, audited)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = refitter.fit(
                    _rows(X_fit, fit_rows), time_fit[fit_rows], event_fit[fit_rows]
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                risk = risk_scores(fitted, X_rep)  # checks the coefficients too
        except (ConvergenceError, np.linalg.LinAlgError):
            not_converged += 1
            continue
        except ValueError:  # a degenerate replicate the fitter refuses (no event, say)
            failed += 1
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedXCIWarning)
                warnings.simplefilter("ignore", UserWarning)
                obs = xci(
                    full.time[audited],
                    full.event[audited],
                    full.labels[audited],
                    risk,
                    method=settings.method,
                    tau=settings.tau,
                    censoring=settings.censoring or "group",
                    tied_tol=settings.tied_tol,
                    groups=groups,
                    ci=None,
                )
                curves = np.clip(_curves(fitted, X_rep, grid), 0.0, 1.0)
        except ValueError:
            failed += 1
            continue
        codes = remap[full.group_codes[audited]]
        f, q = grid_terms(curves, grid, tau)
        parts = factorised_contributions(risk, codes, g, f, q, settings.tied_tol)
        num, den = cells_from_contributions(parts, codes, g)
        out[r, 0] = obs.values
        with np.errstate(invalid="ignore", divide="ignore"):
            out[r, 1] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    if not_converged or failed:
        warnings.warn(
            f"refit bootstrap: {not_converged} of {n_resamples} replicate fits did not converge "
            f"and {failed} failed (a degenerate resample, or no defined matrix); they are left out "
            "of the intervals (NaN replicates).",
            UserWarning,
            stacklevel=3,
        )
    return out


def _ranks(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values)
