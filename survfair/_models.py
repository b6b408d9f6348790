"""Model adapters: fitted survival models -> risk scores (higher = earlier event), with fit checks.

Every adapter returns a float array oriented like survfair's ``risk``: a higher value means a
higher risk, i.e. an earlier expected event. Models whose natural output is a time (AFT models)
are negated here, in one documented place, so nothing flips a sign silently elsewhere.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._exceptions import ConvergenceError

__all__ = ["risk_scores", "fit_checked", "SUPPORTED_MODELS", "MAX_STANDARDISED_LOG_HAZARD"]

#: Models accepted by :func:`risk_scores` (class names; plus any callable and sklearn Pipelines
#: ending in one of the scikit-survival estimators).
SUPPORTED_MODELS = (
    "lifelines.CoxPHFitter",
    "lifelines.WeibullAFTFitter",
    "lifelines.LogNormalAFTFitter",
    "lifelines.LogLogisticAFTFitter",
    "sksurv.linear_model.CoxPHSurvivalAnalysis",
    "sksurv.linear_model.CoxnetSurvivalAnalysis",
    "sksurv.ensemble.RandomSurvivalForest",
    "sksurv.ensemble.GradientBoostingSurvivalAnalysis",
    "sklearn.pipeline.Pipeline ending in one of the scikit-survival estimators above",
    "any callable X -> risk",
)

#: A linear-model coefficient whose effect per standard deviation of its covariate exceeds this
#: (a hazard ratio of e^10 ~ 22,000 per SD) is taken as the sign of a diverged fit
#: (e.g. complete separation), not a finding.
MAX_STANDARDISED_LOG_HAZARD = 10.0


def _lifelines_classes() -> dict[str, type]:
    from lifelines import CoxPHFitter, LogLogisticAFTFitter, LogNormalAFTFitter, WeibullAFTFitter

    return {
        "CoxPHFitter": CoxPHFitter,
        "WeibullAFTFitter": WeibullAFTFitter,
        "LogNormalAFTFitter": LogNormalAFTFitter,
        "LogLogisticAFTFitter": LogLogisticAFTFitter,
    }


def _sksurv_classes() -> tuple[type, ...]:
    from sksurv.ensemble import GradientBoostingSurvivalAnalysis, RandomSurvivalForest
    from sksurv.linear_model import CoxnetSurvivalAnalysis, CoxPHSurvivalAnalysis

    return (CoxPHSurvivalAnalysis, CoxnetSurvivalAnalysis, RandomSurvivalForest, GradientBoostingSurvivalAnalysis)


def _kind(model: Any) -> str:
    """'cox_lifelines', 'aft_lifelines', 'sksurv', 'pipeline' or 'callable'; TypeError otherwise."""
    lifelines_classes = _lifelines_classes()
    if isinstance(model, lifelines_classes["CoxPHFitter"]):
        return "cox_lifelines"
    if isinstance(model, tuple(v for k, v in lifelines_classes.items() if k != "CoxPHFitter")):
        return "aft_lifelines"
    if isinstance(model, _sksurv_classes()):
        return "sksurv"
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        final = model.steps[-1][1]
        if isinstance(final, _sksurv_classes()):
            return "pipeline"
        raise TypeError(
            f"model: a Pipeline must end in a supported scikit-survival estimator, got "
            f"{type(final).__name__}. Supported: {', '.join(SUPPORTED_MODELS)}."
        )
    if callable(model) and not hasattr(model, "fit"):
        return "callable"
    raise TypeError(
        f"model: unsupported model type {type(model).__module__}.{type(model).__name__}. "
        f"Supported: {', '.join(SUPPORTED_MODELS)}. For anything else pass a callable returning "
        "risk scores (higher = earlier event) or the scores themselves."
    )


def _is_fitted_lifelines(model: Any) -> bool:
    return hasattr(model, "params_")


def _coefficients(model: Any, kind: str) -> pd.Series | None:
    """Coefficients of a fitted linear model as a Series indexed by covariate (None otherwise)."""
    if kind == "cox_lifelines":
        return model.params_.copy()
    if kind == "aft_lifelines":
        params = model.params_
        first = params.index.get_level_values(0)[0]
        scale = params.loc[first]
        return scale.drop(labels=["Intercept"], errors="ignore")
    estimator = model.steps[-1][1] if kind == "pipeline" else model
    coef = getattr(estimator, "coef_", None)
    if coef is None:
        return None
    coef = np.asarray(coef, dtype=float)
    if coef.ndim == 2:  # Coxnet: one column per alpha; predict uses the last alpha by default
        coef = coef[:, -1]
    names = getattr(estimator, "feature_names_in_", None)
    return pd.Series(coef, index=list(names) if names is not None else range(coef.size))


def check_coefficients(model: Any, X: Any = None) -> None:
    """Raise ConvergenceError if a fitted linear model has non-finite or absurd coefficients.

    Absurd: |beta_j| * sd(X_j) > MAX_STANDARDISED_LOG_HAZARD for some covariate j (needs ``X``
    with the model's columns; pipelines are checked for finiteness only).
    """
    kind = _kind(model)
    if kind == "callable":
        return
    coef = _coefficients(model, kind)
    if coef is None:
        return
    bad = coef[~np.isfinite(coef.to_numpy(dtype=float))]
    if bad.size:
        raise ConvergenceError(
            f"model: the fit did not converge; non-finite coefficients for {list(bad.index)}. "
            "Its scores must not be reported."
        )
    if X is None or kind == "pipeline" or not isinstance(X, pd.DataFrame):
        return
    shared = [c for c in coef.index if c in X.columns]
    if not shared:
        return
    sd = X[shared].astype(float).std(ddof=0)
    effect = (coef[shared].astype(float) * sd).abs()
    absurd = effect[effect > MAX_STANDARDISED_LOG_HAZARD]
    if absurd.size:
        detail = ", ".join(f"{k}: {v:.3g}" for k, v in absurd.items())
        raise ConvergenceError(
            "model: the fit did not converge to a usable optimum: |coefficient x SD| exceeds "
            f"{MAX_STANDARDISED_LOG_HAZARD:g} for {detail} (log hazard per standard deviation). "
            "This is the signature of complete separation or a diverged Newton-Raphson; "
            "its scores must not be reported."
        )


def fit_checked(model: Any, *args: Any, **kwargs: Any) -> Any:
    """Fit a model and raise :class:`ConvergenceError` on any sign of non-convergence.

    ``model.fit(*args, **kwargs)`` is called with warnings recorded. The fit is rejected when

    * it raised lifelines' ``ConvergenceError`` (e.g. "delta contains nan value(s)");
    * it emitted a ``ConvergenceWarning`` of lifelines or scikit-learn / scikit-survival
      (lifelines' "Newton-Raphson failed to converge sufficiently" comes with nonsense
      coefficients and nothing else);
    * a coefficient of a linear model is non-finite or absurd
      (see :data:`MAX_STANDARDISED_LOG_HAZARD`).

    Other warnings are re-emitted unchanged.

    Parameters
    ----------
    model : unfitted model
        One of :data:`SUPPORTED_MODELS` (callables have nothing to fit and are rejected).
    *args, **kwargs
        Passed to ``model.fit``: ``(df, duration_col, event_col)`` for lifelines,
        ``(X, y)`` for scikit-survival.

    Returns
    -------
    model
        The fitted model (the same object).

    Raises
    ------
    TypeError
        If ``model`` is not a supported model with a ``fit`` method.
    survfair.ConvergenceError
        If the fit did not converge, with the original messages.
    """
    kind = _kind(model)
    if kind == "callable":
        raise TypeError("model: a callable has nothing to fit; pass it to risk_scores directly.")
    from lifelines.exceptions import ConvergenceError as LifelinesConvergenceError
    from lifelines.exceptions import ConvergenceWarning as LifelinesConvergenceWarning
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

    convergence = (LifelinesConvergenceWarning, SklearnConvergenceWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(*args, **kwargs)
        except LifelinesConvergenceError as error:
            raise ConvergenceError(
                f"model: {type(model).__name__}.fit did not converge (lifelines): {error}"
            ) from error
    problems = [w for w in caught if issubclass(w.category, convergence)]
    for w in caught:
        if w not in problems:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if problems:
        messages = "; ".join(f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in problems)
        raise ConvergenceError(
            f"model: {type(model).__name__}.fit did not converge; its scores must not be reported. "
            f"Warnings at fit time: {messages}"
        )
    X = args[0] if args and isinstance(args[0], pd.DataFrame) else kwargs.get("df", kwargs.get("X"))
    check_coefficients(model, X)
    return model


def _as_scores(values: Any, n: int, what: str) -> np.ndarray:
    scores = np.asarray(values, dtype=float)
    if scores.ndim == 2 and 1 in scores.shape:
        scores = scores.ravel()
    if scores.ndim != 1 or scores.shape[0] != n:
        raise ValueError(f"model: {what} returned shape {np.shape(values)}, expected ({n},).")
    return scores


def _n_rows(X: Any) -> int:
    return len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]


def risk_scores(model: Any, X: Any) -> np.ndarray:
    """Risk scores of a fitted model, oriented so that a higher score means an earlier event.

    ================================================  ==========================================
    model                                             score
    ================================================  ==========================================
    lifelines ``CoxPHFitter``                          log partial hazard (linear predictor);
                                                      same ranking as the partial hazard
    lifelines ``WeibullAFTFitter``,                    minus the log of the predicted MEDIAN
    ``LogNormalAFTFitter``, ``LogLogisticAFTFitter``  survival time, ``-log(predict_median(X))``
    sksurv ``CoxPHSurvivalAnalysis``,                  ``model.predict(X)`` (linear predictor,
    ``CoxnetSurvivalAnalysis``                        already a risk)
    sksurv ``RandomSurvivalForest``,                   ``model.predict(X)`` (ensemble cumulative
    ``GradientBoostingSurvivalAnalysis``              hazard / risk, already a risk)
    sklearn ``Pipeline`` ending in one of these        ``pipeline.predict(X)``
    any callable ``f``                                 ``f(X)``, taken as a risk as is
    ================================================  ==========================================

    Parameters
    ----------
    model : fitted model or callable
        See the table; use :func:`fit_checked` to fit it with convergence checks.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Covariates in the form the model was fitted on (lifelines needs a DataFrame with the
        training column names; extra columns such as time/event are ignored by lifelines).

    Returns
    -------
    ndarray of shape (n_samples,), float64
        Finite risk scores; higher = earlier expected event.

    Raises
    ------
    TypeError
        If ``model`` is not a supported type (the message lists the supported ones).
    ValueError
        If the model is not fitted, or the scores have the wrong shape or are NaN / -inf / +inf
        (for a callable or a model other than an AFT fitter).
    survfair.ConvergenceError
        If a linear model's coefficients are non-finite or absurd (the sign of a diverged fit).

    Warns
    -----
    UserWarning
        When an AFT model predicts an infinite median (survival curve never reaches 1/2): those
        individuals get the lowest score (minus the largest finite log median minus 1), i.e.
        they are ranked as the least at risk, tied with each other.

    Notes
    -----
    Survival probabilities and predicted times are never accepted as risks without negation;
    this function is the one place where AFT times are negated. The median is used rather than
    the expectation because lifelines' ``predict_expectation`` integrates the survival curve
    numerically over a bounded grid and is infinite or inaccurate for heavy tails.
    """
    kind = _kind(model)
    n = _n_rows(X)
    if kind == "callable":
        scores = _as_scores(model(X), n, "the callable")
    elif kind in ("cox_lifelines", "aft_lifelines"):
        if not _is_fitted_lifelines(model):
            raise ValueError(f"model: this {type(model).__name__} is not fitted; call fit first.")
        check_coefficients(model, X if isinstance(X, pd.DataFrame) else None)
        if kind == "cox_lifelines":
            scores = _as_scores(model.predict_log_partial_hazard(X), n, "predict_log_partial_hazard")
        else:
            median = _as_scores(model.predict_median(X), n, "predict_median")
            with np.errstate(divide="ignore"):
                scores = -np.log(median)
            infinite = np.isposinf(median)
            if infinite.any():
                finite = scores[np.isfinite(scores)]
                floor = (finite.min() if finite.size else 0.0) - 1.0
                scores[infinite] = floor
                warnings.warn(
                    f"model: {int(infinite.sum())} of {n} predicted medians are infinite (the "
                    "survival curve never reaches 1/2); they get the lowest risk score, tied.",
                    UserWarning,
                    stacklevel=2,
                )
    else:
        from sklearn.exceptions import NotFittedError

        check = model.steps[-1][1] if kind == "pipeline" else model
        try:
            check_coefficients(model, X if isinstance(X, pd.DataFrame) else None)
            scores = _as_scores(model.predict(X), n, "predict")
        except NotFittedError as error:
            raise ValueError(f"model: this {type(check).__name__} is not fitted; call fit first.") from error
    bad = ~np.isfinite(scores)
    if bad.any():
        rows = np.flatnonzero(bad)[:10].tolist()
        raise ValueError(
            f"model: {int(bad.sum())} risk scores are NaN or infinite (rows {rows}); "
            "a model that predicts non-finite risks cannot be audited."
        )
    return scores


def as_risk(model_or_scores: Any, X: Any, name: str) -> Any:
    """Scores of one entry of :func:`survfair.compare`: a model/callable (needs ``X``) or scores."""
    if isinstance(model_or_scores, (np.ndarray, pd.Series, list, tuple)):
        return model_or_scores  # validated by the one gate, which also checks a Series' index
    try:
        _kind(model_or_scores)
    except TypeError as error:
        raise TypeError(f"models[{name!r}]: {error}") from None
    if X is None:
        raise ValueError(f"models[{name!r}] is a model, so X (its covariates) must be given.")
    scores = risk_scores(model_or_scores, X)
    # scores are in X's row order: carry X's index so the gate can check it against time/event/group
    return pd.Series(scores, index=X.index) if isinstance(X, pd.DataFrame) else scores

