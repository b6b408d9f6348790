"""Model adapters: fitted survival models -> risk scores (higher = earlier event), with fit checks.

Every adapter returns a float array oriented like survfair's ``risk``: a higher value means a
higher risk, i.e. an earlier expected event. Models whose natural output is a time (AFT models,
scikit-survival's regression objectives) are negated here, in one documented place, so nothing
flips a sign silently elsewhere. The one table of what each model predicts and how it is oriented
is :func:`risk_scores`' docstring; :func:`_kind` and :func:`_sksurv_predicts_time` implement it.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .._core.exceptions import ConvergenceError, InvalidParameterError

__all__ = [
    "risk_scores",
    "predicted_risks",
    "fit_checked",
    "SUPPORTED_MODELS",
    "MAX_STANDARDISED_LOG_HAZARD",
]

#: A linear-model coefficient whose effect per standard deviation of its covariate exceeds this
#: (a hazard ratio of e^10 ~ 22,000 per SD) is taken as the sign of a diverged fit
#: (e.g. complete separation), not a finding.
MAX_STANDARDISED_LOG_HAZARD = 10.0

#: lifelines regression fitters by adapter kind (see _kind).
_LIFELINES_KINDS = {
    "CoxPHFitter": "cox_lifelines",
    "CoxTimeVaryingFitter": "cox_lifelines",
    "WeibullAFTFitter": "aft_lifelines",
    "LogNormalAFTFitter": "aft_lifelines",
    "LogLogisticAFTFitter": "aft_lifelines",
    "AalenAdditiveFitter": "hazard_lifelines",
    "PiecewiseExponentialRegressionFitter": "hazard_lifelines",
    "GeneralizedGammaRegressionFitter": "hazard_lifelines",
    "CRCSplineFitter": "hazard_lifelines",
}

#: scikit-survival estimators (module, class); which of them predict a time: _sksurv_predicts_time.
_SKSURV_ESTIMATORS = (
    ("sksurv.linear_model", "CoxPHSurvivalAnalysis"),
    ("sksurv.linear_model", "CoxnetSurvivalAnalysis"),
    ("sksurv.linear_model", "IPCRidge"),
    ("sksurv.ensemble", "RandomSurvivalForest"),
    ("sksurv.ensemble", "ExtraSurvivalTrees"),
    ("sksurv.ensemble", "GradientBoostingSurvivalAnalysis"),
    ("sksurv.ensemble", "ComponentwiseGradientBoostingSurvivalAnalysis"),
    ("sksurv.tree", "SurvivalTree"),
    ("sksurv.tree", "ExtraSurvivalTree"),
    ("sksurv.svm", "FastSurvivalSVM"),
    ("sksurv.svm", "FastKernelSurvivalSVM"),
    ("sksurv.svm", "NaiveSurvivalSVM"),
    ("sksurv.svm", "HingeLossSurvivalSVM"),
    ("sksurv.svm", "MinlipSurvivalAnalysis"),
)

#: Models accepted by :func:`risk_scores` (class names, when the installed lifelines /
#: scikit-survival has them; plus any callable and sklearn Pipelines ending in one of the
#: scikit-survival estimators). How each is oriented: see risk_scores.
SUPPORTED_MODELS = (
    *(f"lifelines.{name}" for name in _LIFELINES_KINDS),
    *(f"{module}.{name}" for module, name in _SKSURV_ESTIMATORS),
    "sklearn.pipeline.Pipeline ending in one of the scikit-survival estimators above",
    "any callable X -> risk",
)

#: Bound on the cells of one block of predicted cumulative hazards (rows x event times) when
#: scoring a lifelines model by its expected number of events: 2e6 float64 = 16 MB.
_HAZARD_BLOCK_CELLS = 2_000_000


def _imported_classes(module: str, names: Any) -> tuple[type, ...]:
    """The classes ``names`` of ``module`` if it is imported, else none (names the installed
    version lacks are skipped). A model can be an instance of a class only once the class's module,
    and so its package, is imported: a model's kind is told without importing the modules of other
    models (scikit-survival's ensembles, trees and SVMs load scikit-learn's ensembles, trees and
    neighbours, about 0.1 s that an audit of a Cox model does not need)."""
    loaded = sys.modules.get(module)
    classes = (getattr(loaded, name, None) for name in names)
    return tuple(cls for cls in classes if cls is not None)


def _lifelines_classes() -> dict[type, str]:
    lifelines = sys.modules.get("lifelines")  # not imported: the model is no lifelines fitter
    classes = {getattr(lifelines, name, None): kind for name, kind in _LIFELINES_KINDS.items()}
    classes.pop(None, None)  # a fitter the installed lifelines does not have
    return classes


def _sksurv_classes() -> tuple[type, ...]:
    return tuple(
        cls for module, name in _SKSURV_ESTIMATORS for cls in _imported_classes(module, (name,))
    )


def _sksurv_predicts_time(estimator: Any) -> bool:
    """True if ``estimator.predict`` returns a (transformed) survival time, False if a risk.

    scikit-survival's own rule (its ``score`` negates ``predict`` exactly for these): IPCRidge
    (an AFT model) always; the boosting models unless ``loss="coxph"`` (``"squared"`` and
    ``"ipcwls"`` regress on log time); the fast survival SVMs when ``rank_ratio < 1`` (a
    regression objective on log time; ``rank_ratio=1`` is pure ranking and ``predict`` is a risk).
    """
    if isinstance(estimator, _imported_classes("sksurv.linear_model", ("IPCRidge",))):
        return True
    boosting = ("GradientBoostingSurvivalAnalysis", "ComponentwiseGradientBoostingSurvivalAnalysis")
    if isinstance(estimator, _imported_classes("sksurv.ensemble", boosting)):
        return estimator.loss != "coxph"
    svms = ("FastSurvivalSVM", "FastKernelSurvivalSVM")
    if isinstance(estimator, _imported_classes("sksurv.svm", svms)):
        return estimator.rank_ratio < 1
    return False


def _kind(model: Any) -> str:
    """'cox_lifelines', 'aft_lifelines', 'hazard_lifelines', 'sksurv', 'pipeline' or 'callable'.

    TypeError for anything else. A CoxPHFitter that is stratified or has a parametric baseline
    (spline, piecewise) is still 'cox_lifelines'; :func:`risk_scores` scores it by its expected
    number of events, since its partial hazard does not exist or does not rank across strata.
    """
    for cls, kind in _lifelines_classes().items():
        if isinstance(model, cls):
            return kind
    if isinstance(model, _sksurv_classes()):
        return "sksurv"
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        final = model.steps[-1][1]
        if isinstance(final, _sksurv_classes()):
            return "pipeline"
        raise InvalidParameterError(
            f"model: a Pipeline must end in a supported scikit-survival estimator, got "
            f"{type(final).__name__}. Supported: {', '.join(SUPPORTED_MODELS)}.",
            parameter="model",
        )
    if callable(model) and not hasattr(model, "fit"):
        return "callable"
    raise InvalidParameterError(
        f"model: unsupported model type {type(model).__module__}.{type(model).__name__}. "
        f"Supported: {', '.join(SUPPORTED_MODELS)}. For anything else pass a callable returning "
        "risk scores (higher = earlier event) or the scores themselves.",
        parameter="model",
    )


def _is_fitted_lifelines(model: Any) -> bool:
    return hasattr(model, "params_") or hasattr(model, "cumulative_hazards_")


def _log_scale_block(params: pd.Series) -> pd.Series:
    """The first parameter block of a MultiIndexed lifelines ``params_``, without its intercept."""
    first = params.index.get_level_values(0)[0]
    return params.loc[first].drop(labels=["Intercept"], errors="ignore")


def _coefficients(model: Any, kind: str) -> tuple[pd.Series | None, bool]:
    """(coefficients, scaled) of a fitted model, coefficients None if it has none.

    ``scaled`` is True when each coefficient is a log hazard ratio or a log time ratio per unit of
    a named covariate, so that |coefficient x SD| is checked against
    :data:`MAX_STANDARDISED_LOG_HAZARD`; otherwise the coefficients are only checked for
    finiteness (ranking SVMs, boosting, kernel expansions, flexible parametric models).
    """
    if kind in ("cox_lifelines", "aft_lifelines"):
        params = model.params_
        if isinstance(
            params.index, pd.MultiIndex
        ):  # AFT, or a Cox model with a parametric baseline
            return _log_scale_block(params), True
        return params.copy(), True
    if kind == "hazard_lifelines":
        params = getattr(model, "params_", None)
        if params is None:  # AalenAdditiveFitter: time-varying cumulative coefficients
            params = model.cumulative_hazards_.stack()
        return pd.Series(
            np.asarray(params, dtype=float).ravel(), index=[str(i) for i in params.index]
        ), False
    estimator = model.steps[-1][1] if kind == "pipeline" else model
    coef = getattr(estimator, "coef_", None)
    if coef is None:
        return None, False
    from sksurv.linear_model import CoxnetSurvivalAnalysis, CoxPHSurvivalAnalysis, IPCRidge

    coef = np.asarray(coef, dtype=float)
    if isinstance(estimator, CoxnetSurvivalAnalysis) and coef.ndim == 2:
        coef = coef[:, -1]  # one column per alpha; predict uses the last alpha by default
    coef = coef.ravel()
    names = getattr(estimator, "feature_names_in_", None)
    index = list(names) if names is not None and len(names) == coef.size else range(coef.size)
    scaled = isinstance(estimator, (CoxPHSurvivalAnalysis, CoxnetSurvivalAnalysis, IPCRidge))
    return pd.Series(coef, index=index), scaled


def check_coefficients(model: Any, X: Any = None) -> None:
    """Raise ConvergenceError if a fitted model has non-finite or (linear models) absurd
    coefficients.

    Absurd: |beta_j| * sd(X_j) > MAX_STANDARDISED_LOG_HAZARD for some covariate j of a model whose
    coefficients are log hazard or log time ratios (needs ``X`` with the model's columns;
    pipelines are checked for finiteness only).
    """
    kind = _kind(model)
    if kind == "callable":
        return
    coef, scaled = _coefficients(model, kind)
    if coef is None:
        return
    bad = coef[~np.isfinite(coef.to_numpy(dtype=float))]
    if bad.size:
        listed = list(bad.index[:10])
        raise ConvergenceError(
            f"model: the fit did not converge; non-finite coefficients for {listed}"
            f"{f' and {bad.size - 10} more' if bad.size > 10 else ''}. Its scores must not be "
            "reported."
        )
    if not scaled or X is None or kind == "pipeline" or not isinstance(X, pd.DataFrame):
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
            f"{MAX_STANDARDISED_LOG_HAZARD:g} for {detail} (log hazard or log time per standard "
            "deviation). This is the signature of complete separation or a diverged optimiser; "
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
        Passed to ``model.fit``: ``(df, duration_col, event_col)`` for lifelines (with
        ``regressors=``, ``strata=``... as that fitter takes them; ``CoxTimeVaryingFitter``:
        ``(df, id_col=, event_col=, start_col=, stop_col=)``), ``(X, y)`` for scikit-survival.

    Returns
    -------
    model
        The fitted model (the same object).

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``model`` is not a supported model with a ``fit`` method.
    survfair.ConvergenceError
        If the fit did not converge, with the original messages.

    See Also
    --------
    risk_scores : the fitted model's risk scores.
    compare : audits several fitted models.

    Examples
    --------
    >>> import numpy as np, pandas as pd, survfair
    >>> from sksurv.linear_model import CoxPHSurvivalAnalysis
    >>> from sksurv.util import Surv
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"marker": rng.normal(size=100)})
    >>> y = Surv.from_arrays(event=np.ones(100, bool), time=rng.exponential(np.exp(-X["marker"])))
    >>> # raises ConvergenceError if the fit did not converge
    >>> model = survfair.fit_checked(CoxPHSurvivalAnalysis(), X, y)
    >>> round(float(model.coef_[0]), 1)
    1.2
    """
    kind = _kind(model)
    if kind == "callable":
        raise InvalidParameterError(
            "model: a callable has nothing to fit; pass it to risk_scores directly.",
            parameter="model",
        )
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
        messages = "; ".join(
            f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in problems
        )
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
        raise InvalidParameterError(
            f"model: {what} returned shape {np.shape(values)}, expected ({n},).", parameter="model"
        )
    return scores


def _n_rows(X: Any) -> int:
    return len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]


def _rows(X: Any, start: int, stop: int) -> Any:
    return (
        X.iloc[start:stop]
        if isinstance(X, (pd.DataFrame, pd.Series))
        else np.asarray(X)[start:stop]
    )


def _expected_events(model: Any, X: Any, n: int) -> np.ndarray:
    """Sum of the predicted cumulative hazard over the distinct event times of the training data.

    Ishwaran et al.'s "ensemble mortality" (the expected number of events had the person been
    followed over all training event times), which is what scikit-survival's forests predict. It
    orders by risk whenever the curves do not cross, is finite where a median is not (a survival
    curve that never reaches 1/2), and for a proportional-hazards model it is exp(linear
    predictor) times a constant, so it ranks as the linear predictor does.
    """
    durations = getattr(model, "durations", None)
    observed = getattr(model, "event_observed", None)
    if durations is None or observed is None:
        raise InvalidParameterError(
            f"model: this {type(model).__name__} was not fitted on right-censored durations, so it "
            "has no training event times to score it on; pass a callable returning risk scores.",
            parameter="model",
        )
    durations, observed = np.asarray(durations, dtype=float), np.asarray(observed).astype(bool)
    times = np.unique(durations[observed])
    if times.size == 0:
        raise InvalidParameterError(
            f"model: this {type(model).__name__} was fitted on data without an event.",
            parameter="model",
        )
    from lifelines import AalenAdditiveFitter

    aalen = isinstance(model, AalenAdditiveFitter)
    block = max(1, _HAZARD_BLOCK_CELLS // times.size)
    scores = np.empty(n)
    for start in range(0, n, block):
        part = _rows(X, start, min(start + block, n))
        if isinstance(part, pd.DataFrame):
            part = part.reset_index(drop=True)  # columns of the result are labelled 0, 1, ...
        if aalen:  # no `times=`: its curves are given at its own timeline, the event times
            hazard = model.predict_cumulative_hazard(part)
            hazard = hazard.reindex(index=times, method="ffill").fillna(0.0)
        else:
            hazard = model.predict_cumulative_hazard(part, times=times)
        # a stratified CoxPHFitter returns its columns grouped by stratum: put them back in row
        # order
        hazard = hazard.reindex(columns=range(len(part)))
        scores[start : start + len(part)] = _as_scores(
            np.asarray(hazard, dtype=float).sum(axis=0), len(part), "predict_cumulative_hazard"
        )
    return scores


def _lifelines_scores(model: Any, kind: str, X: Any, n: int) -> np.ndarray:
    if kind == "cox_lifelines":
        stratified = bool(getattr(model, "strata", None))
        from lifelines import CoxTimeVaryingFitter

        if isinstance(model, CoxTimeVaryingFitter):
            if stratified:
                raise InvalidParameterError(
                    "model: a stratified CoxTimeVaryingFitter has no risk that ranks across strata "
                    "(each stratum has its own baseline hazard); pass a callable returning risk "
                    "scores.",
                    parameter="model",
                )
        elif stratified or not hasattr(model, "predict_log_partial_hazard"):
            # stratified: partial hazards do not rank across strata; a spline or piecewise
            # baseline has no predict_log_partial_hazard
            return _expected_events(model, X, n)
        return _as_scores(model.predict_log_partial_hazard(X), n, "predict_log_partial_hazard")
    if kind == "hazard_lifelines":
        return _expected_events(model, X, n)
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
            stacklevel=3,
        )
    return scores


def risk_scores(model: Any, X: Any) -> np.ndarray:
    """Risk scores of a fitted model, oriented so that a higher score means an earlier event.

    ====================================================  ==========================================
    model                                                 score
    ====================================================  ==========================================
    lifelines ``CoxPHFitter``, ``CoxTimeVaryingFitter``   log partial hazard (linear predictor),
                                                          ``predict_log_partial_hazard(X)``
    lifelines ``CoxPHFitter`` stratified,                 expected number of events (below),
    or with a spline or piecewise baseline                which ranks across strata
    lifelines ``WeibullAFTFitter``,                       minus the log of the predicted MEDIAN
    ``LogNormalAFTFitter``, ``LogLogisticAFTFitter``      survival time, ``-log(predict_median(X))``
    lifelines ``AalenAdditiveFitter``,                    expected number of events: the predicted
    ``PiecewiseExponentialRegressionFitter``,             cumulative hazard summed over the distinct
    ``GeneralizedGammaRegressionFitter``,                 event times of the training data
    ``CRCSplineFitter``                                   (``predict_cumulative_hazard``)
    sksurv ``CoxPHSurvivalAnalysis``,                     ``model.predict(X)`` (linear predictor,
    ``CoxnetSurvivalAnalysis``                            already a risk)
    sksurv ``RandomSurvivalForest``,                      ``model.predict(X)`` (expected number of
    ``ExtraSurvivalTrees``, ``SurvivalTree``,             events, already a risk)
    ``ExtraSurvivalTree``
    sksurv ``GradientBoostingSurvivalAnalysis``,          ``loss="coxph"`` (default):
    ``ComponentwiseGradientBoostingSurvivalAnalysis``     ``predict(X)``, a log hazard ratio;
                                                          ``"squared"`` or ``"ipcwls"``:
                                                          ``-predict(X)``, minus the predicted time
    sksurv ``IPCRidge`` (AFT)                             ``-predict(X)``, minus the predicted time
    sksurv ``FastSurvivalSVM``,                           ``rank_ratio=1`` (default):
    ``FastKernelSurvivalSVM``                             ``predict(X)``, a ranking risk;
                                                          ``rank_ratio < 1``: ``-predict(X)``, minus
                                                          the predicted time
    sksurv ``NaiveSurvivalSVM``,                          ``model.predict(X)`` (ranking risk)
    ``HingeLossSurvivalSVM``, ``MinlipSurvivalAnalysis``
    sklearn ``Pipeline`` ending in one of these            as its final estimator
    any callable ``f``                                    ``f(X)``, taken as a risk as is
    ====================================================  ==========================================

    Parameters
    ----------
    model : fitted model or callable
        See the table; use :func:`fit_checked` to fit it with convergence checks.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Covariates in the form the model was fitted on (lifelines needs a DataFrame with the
        training column names; extra columns such as time/event are ignored by lifelines). One
        row per person: for a ``CoxTimeVaryingFitter``, the covariate values at which to score
        each person (e.g. at baseline).

    Returns
    -------
    ndarray of shape (n_samples,), float64
        Finite risk scores; higher = earlier expected event.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``model`` is not a supported type (the message lists the supported ones).
    InvalidParameterError (a ValueError)
        If the model is not fitted, or the scores have the wrong shape or are NaN / -inf / +inf
        (for a callable or a model other than an AFT fitter), or for a stratified
        ``CoxTimeVaryingFitter`` (no risk ranks across its strata).
    survfair.ConvergenceError
        If a model's coefficients are non-finite, or a linear model's are absurd (the sign of a
        diverged fit).

    Warns
    -----
    UserWarning
        When an AFT model predicts an infinite median (survival curve never reaches 1/2): those
        individuals get the lowest score (minus the largest finite log median minus 1), i.e.
        they are ranked as the least at risk, tied with each other.

    See Also
    --------
    fit_checked : fit a model with the checks of survfair.
    compare : audits several models' scores.
    xci : the estimator the scores feed.

    Notes
    -----
    Survival probabilities and predicted times are never accepted as risks without negation;
    this function is the one place where predicted times are negated. scikit-survival's models
    that predict a time are negated exactly as scikit-survival's own ``score`` does, so the pooled
    C of these scores is ``model.score(X, y)``. The median is used for lifelines' AFT models
    rather than the expectation because lifelines' ``predict_expectation`` integrates the
    survival curve numerically over a bounded grid and is infinite or inaccurate for heavy
    tails. Models whose hazards are not proportional and have no closed-form median are scored
    by their expected number of events (Ishwaran et al. 2008, the risk of scikit-survival's
    forests), which is finite for everyone; it is computed in blocks of rows (at most 2e6
    cumulative-hazard values at a time).

    References
    ----------
    Ishwaran H, Kogalur UB, Blackstone EH, Lauer MS. Random survival forests. Ann. Appl. Stat.
    2(3):841-860, 2008 (ensemble mortality, Section 4.1).

    Examples
    --------
    >>> import numpy as np, pandas as pd, survfair
    >>> from sksurv.linear_model import CoxPHSurvivalAnalysis
    >>> from sksurv.util import Surv
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.normal(60, 10, 200), "marker": rng.normal(size=200)})
    >>> t = rng.exponential(np.exp(-0.03 * (X["age"] - 60) - 0.5 * X["marker"]))
    >>> y = Surv.from_arrays(event=np.ones(200, bool), time=t)
    >>> model = CoxPHSurvivalAnalysis().fit(X, y)
    >>> risk = survfair.risk_scores(model, X)  # higher = earlier event, for any supported model
    >>> risk.shape, bool(np.corrcoef(risk, X["marker"])[0, 1] > 0)
    ((200,), True)
    """
    kind = _kind(model)
    n = _n_rows(X)
    if kind == "callable":
        scores = _as_scores(model(X), n, "the callable")
    elif kind.endswith("_lifelines"):
        if not _is_fitted_lifelines(model):
            raise InvalidParameterError(
                f"model: this {type(model).__name__} is not fitted; call fit first.",
                parameter="model",
            )
        check_coefficients(model, X if isinstance(X, pd.DataFrame) else None)
        scores = _lifelines_scores(model, kind, X, n)
    else:
        from sklearn.exceptions import NotFittedError

        estimator = model.steps[-1][1] if kind == "pipeline" else model
        try:
            if not hasattr(
                estimator, "n_features_in_"
            ):  # set by every fit; the SVMs would fail obscurely
                raise NotFittedError
            check_coefficients(model, X if isinstance(X, pd.DataFrame) else None)
            scores = _as_scores(model.predict(X), n, "predict")
        except NotFittedError as error:
            raise InvalidParameterError(
                f"model: this {type(estimator).__name__} is not fitted; call fit first.",
                parameter="model",
            ) from error
        if _sksurv_predicts_time(estimator):
            scores = -scores  # scikit-survival's own rule: `score` negates a predicted time
    bad = ~np.isfinite(scores)
    if bad.any():
        rows = np.flatnonzero(bad)[:10].tolist()
        raise InvalidParameterError(
            f"model: {int(bad.sum())} risk scores are NaN or infinite (rows {rows}); "
            "a model that predicts non-finite risks cannot be audited.",
            parameter="model",
        )
    return scores


def is_scores(entry: Any) -> bool:
    """True if an entry of :func:`survfair.compare`'s ``models`` is a vector of scores (not a
    model)."""
    return isinstance(entry, (np.ndarray, pd.Series, list, tuple))


def as_risk(model_or_scores: Any, X: Any, name: str, *, keyed: bool = False) -> Any:
    """Scores of one entry of :func:`survfair.compare`: a model/callable (needs ``X``) or scores.

    ``keyed``: ``X`` was looked up in a dict of covariates per model (only changes the message
    when it is missing).
    """
    if is_scores(model_or_scores):
        return model_or_scores  # validated by the one gate, which also checks a Series' index
    try:
        _kind(model_or_scores)
    except TypeError as error:
        raise InvalidParameterError(f"models[{name!r}]: {error}", parameter="models") from None
    if X is None:
        where = (
            f"X (a dict) needs an entry {name!r} with its covariates"
            if keyed
            else "X (its covariates) must be given"
        )
        raise InvalidParameterError(f"models[{name!r}] is a model, so {where}.", parameter="X")
    scores = risk_scores(model_or_scores, X)
    # scores are in X's row order: carry X's index so the gate can check it against time/event/group
    return pd.Series(scores, index=X.index) if isinstance(X, pd.DataFrame) else scores


def check_feature_keys(models: Any, X: Any) -> None:
    """A dict ``X`` of :func:`survfair.compare`: keys only for entries scored on covariates, one
    index.

    Unknown names and keys for entries that are scores or column names are refused (a typo must
    not leave a model without its covariates silently); a model without a key is refused by
    :func:`as_risk` when it is reached. The matrices that carry a pandas index must carry the
    same one (the index rule, :func:`~survfair._core.validation.check_same_index`): each model's
    scores are checked against time/event/group, but not against each other's when those are arrays.
    """
    from collections.abc import Mapping

    from .._core.validation import check_same_index

    if not isinstance(X, Mapping):
        return
    unknown = [key for key in X if key not in models]
    if unknown:
        raise InvalidParameterError(
            f"X: {_names(unknown)} not in models (the keys of a dict X are model names).",
            parameter="X",
        )
    unused = [key for key in X if isinstance(models[key], str) or is_scores(models[key])]
    if unused:
        raise InvalidParameterError(
            f"X: {_names(unused)} {'is' if len(unused) == 1 else 'are'} scores or a column name in "
            "models, which need no covariates; drop the key from X.",
            parameter="X",
        )
    check_same_index({f"X[{key!r}]": value for key, value in X.items()})


def _names(keys: list) -> str:
    return ", ".join(repr(k) for k in keys)


def _sksurv_survival_at(model: Any, X: Any, times: np.ndarray) -> np.ndarray:
    """S(t | x) from scikit-survival's step functions (``predict_survival_function``)."""
    from sklearn.pipeline import Pipeline

    estimator = model.steps[-1][1] if isinstance(model, Pipeline) else model
    if not hasattr(estimator, "predict_survival_function"):
        raise InvalidParameterError(
            f"model: {type(estimator).__name__} predicts no survival function (scikit-survival's "
            "SVMs and IPCRidge predict ranks or times only), so it has no predicted risks; "
            "calibrate a model that does.",
            parameter="model",
        )
    functions = model.predict_survival_function(X)
    domain_low = min(float(fn.domain[0]) for fn in functions)
    domain_high = max(float(fn.domain[1]) for fn in functions)
    outside = (times < domain_low) | (times > domain_high)
    if outside.any():
        raise InvalidParameterError(
            f"times {[float(t) for t in times[outside]]} lie outside the model's survival "
            f"functions ([{domain_low:g}, {domain_high:g}], the training follow-up); it cannot "
            "predict there.",
            parameter="times",
        )
    return np.array([fn(times) for fn in functions], dtype=float).reshape(
        len(functions), times.size
    )


def predicted_risks(model: Any, X: Any, times: Any) -> pd.DataFrame:
    """Predicted event probabilities F̂(t | x) = 1 − Ŝ(t | x) of a fitted model, at each horizon.

    ==========================================  ==================================================
    model                                       survival function used
    ==========================================  ==================================================
    any lifelines regression fitter             ``model.predict_survival_function(X, times=times)``
    (Cox, AFT, Aalen, spline, piecewise, ...)
    scikit-survival models with a survival      ``model.predict_survival_function(X)`` (step
    function (Cox, Coxnet with                  functions), evaluated at the horizons
    ``fit_baseline_model=True``, forests,
    trees, gradient boosting with
    ``loss="coxph"``) and Pipelines ending
    in one
    ==========================================  ==================================================

    Parameters
    ----------
    model : fitted model
        See the table; a callable is not accepted (it gives scores, not probabilities: pass its
        probabilities to :func:`calibration` directly).
    X : DataFrame or array-like of shape (n_samples, n_features)
        Covariates in the form the model was fitted on.
    times : float or sequence of float, shape (n_times,)
        Horizons, in the unit of the training times.

    Returns
    -------
    DataFrame of shape (n_samples, n_times), float64
        Event probabilities in [0, 1], one column per horizon in the order given, labelled by
        the horizon (columns named "time"); the rows carry the index of ``X`` when it is a
        DataFrame (else 0..n-1), so the frame lines up with the data it was predicted for.
        :func:`calibration` takes it as ``predicted`` with ``times=risks.columns``;
        ``.to_numpy()`` gives the plain array.

        .. versionchanged:: 0.1
           A DataFrame with labelled columns (was an unlabelled ndarray).

    Raises
    ------
    InvalidParameterError (a TypeError)
        For an unsupported model, a callable, or a scikit-survival model without a survival
        function.
    InvalidParameterError (a ValueError)
        If the model is not fitted, ``times`` is empty / non-finite, a horizon lies outside a
        scikit-survival model's survival functions, or the probabilities are NaN or outside [0, 1].

    See Also
    --------
    risks_from_linear_predictor : the same from a published equation's linear predictor.
    calibration : what the risks are checked with.
    risk_scores : the model's risk scores for xci.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from lifelines import CoxPHFitter
    >>> import survfair
    >>> from survfair import predicted_risks
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.normal(size=200)})
    >>> df["T"], df["E"] = rng.exponential(5 * np.exp(-df["x"])), 1
    >>> cox = CoxPHFitter().fit(df, "T", "E")
    >>> risks = predicted_risks(cox, df[["x"]], [3, 6])
    >>> risks.shape, list(risks.columns)
    ((200, 2), [3.0, 6.0])
    >>> result = survfair.calibration(df["T"], df["E"], np.zeros(200), risks, risks.columns)
    """
    from .._core.validation import check_numbers

    horizons = check_numbers(np.atleast_1d(times), "times")
    kind = _kind(model)
    if kind == "callable":
        raise InvalidParameterError(
            "model: a callable gives risk scores, not probabilities; pass its predicted "
            "probabilities to survfair.calibration as `predicted` instead.",
            parameter="model",
        )
    if kind.endswith("_lifelines"):
        if not _is_fitted_lifelines(model):
            raise InvalidParameterError(
                f"model: this {type(model).__name__} is not fitted; call fit first.",
                parameter="model",
            )
        survival = model.predict_survival_function(X, times=horizons).to_numpy().T
    else:
        from sklearn.exceptions import NotFittedError

        estimator = model.steps[-1][1] if kind == "pipeline" else model
        if not hasattr(estimator, "n_features_in_"):
            raise InvalidParameterError(
                f"model: this {type(estimator).__name__} is not fitted; call fit first.",
                parameter="model",
            )
        try:
            survival = _sksurv_survival_at(model, X, horizons)
        except NotFittedError as error:
            raise InvalidParameterError(
                f"model: this {type(estimator).__name__} is not fitted; call fit first.",
                parameter="model",
            ) from error
    risks = 1.0 - np.asarray(survival, dtype=float)
    bad = ~np.isfinite(risks) | (risks < -1e-12) | (risks > 1 + 1e-12)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))[:10].tolist()
        raise InvalidParameterError(
            f"model: predicted survival probabilities are NaN or outside [0, 1] (rows {rows}).",
            parameter="model",
        )
    index = X.index if isinstance(X, (pd.DataFrame, pd.Series)) else pd.RangeIndex(risks.shape[0])
    return pd.DataFrame(
        np.clip(risks, 0.0, 1.0),
        index=index,
        columns=pd.Index([float(t) for t in horizons], name="time"),
    )
