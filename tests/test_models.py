"""Model adapters (orientation, errors, convergence checks) and the flchain invariance.

compare() and ModelComparison are tested in test_model_comparison.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import (
    AalenAdditiveFitter,
    CoxPHFitter,
    CoxTimeVaryingFitter,
    CRCSplineFitter,
    GeneralizedGammaRegressionFitter,
    LogLogisticAFTFitter,
    LogNormalAFTFitter,
    PiecewiseExponentialRegressionFitter,
    WeibullAFTFitter,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sksurv.ensemble import (
    ComponentwiseGradientBoostingSurvivalAnalysis,
    ExtraSurvivalTrees,
    GradientBoostingSurvivalAnalysis,
    RandomSurvivalForest,
)
from sksurv.linear_model import CoxnetSurvivalAnalysis, CoxPHSurvivalAnalysis, IPCRidge
from sksurv.metrics import concordance_index_censored
from sksurv.svm import (
    FastKernelSurvivalSVM,
    FastSurvivalSVM,
    HingeLossSurvivalSVM,
    MinlipSurvivalAnalysis,
    NaiveSurvivalSVM,
)
from sksurv.tree import ExtraSurvivalTree, SurvivalTree
from sksurv.util import Surv

import survfair as sf
from survfair import ConvergenceError, fit_checked, risk_scores
from survfair._core.datasets import load_flchain


@pytest.fixture(scope="module")
def obvious():
    """Data where the risk is obvious: hazard exp(2 x), light independent censoring, 2 groups."""
    rng = np.random.default_rng(7)
    n = 300
    x = rng.normal(size=n)
    z = rng.normal(size=n)
    t = rng.exponential(np.exp(-2.0 * x))
    c = rng.exponential(3.0, size=n)
    frame = pd.DataFrame({"x": x, "z": z})
    time, event = np.minimum(t, c), t <= c
    group = np.where(rng.random(n) < 0.5, "a", "b")
    return frame, time, event, group


def _sksurv(model, data):
    frame, time, event, _ = data
    return model.fit(frame, Surv.from_arrays(event, time))


def _lifelines(model, data):
    frame, time, event, _ = data
    return model.fit(frame.assign(time=time, event=event.astype(int)), "time", "event")


MODELS = {
    "lifelines-cox": lambda d: _lifelines(CoxPHFitter(), d),
    "lifelines-weibull": lambda d: _lifelines(WeibullAFTFitter(), d),
    "lifelines-lognormal": lambda d: _lifelines(LogNormalAFTFitter(), d),
    "lifelines-loglogistic": lambda d: _lifelines(LogLogisticAFTFitter(), d),
    "sksurv-cox": lambda d: _sksurv(CoxPHSurvivalAnalysis(), d),
    "sksurv-coxnet": lambda d: _sksurv(CoxnetSurvivalAnalysis(l1_ratio=0.5, alphas=[0.01]), d),
    "sksurv-rsf": lambda d: _sksurv(
        RandomSurvivalForest(n_estimators=15, min_samples_leaf=10, random_state=0), d
    ),
    "sksurv-gbsa": lambda d: _sksurv(
        GradientBoostingSurvivalAnalysis(n_estimators=30, random_state=0), d
    ),
    "pipeline": lambda d: _sksurv(make_pipeline(StandardScaler(), CoxPHSurvivalAnalysis()), d),
    "callable": lambda d: lambda X: 2.0 * np.asarray(X)[:, 0],
}


@pytest.mark.parametrize("name", list(MODELS), ids=list(MODELS))
def test_orientation_within_group_concordance(obvious, name):
    model = MODELS[name](obvious)
    frame, time, event, group = obvious
    scores = risk_scores(model, frame)
    assert (
        scores.shape == (len(frame),) and scores.dtype == np.float64 and np.isfinite(scores).all()
    )
    result = sf.xci(time, event, group, scores, method="naive")
    assert (np.diag(result.values) > 0.7).all(), result.matrix
    # higher score for higher x: same orientation as the truth
    assert np.corrcoef(scores, frame["x"])[0, 1] > 0.5


def test_lifelines_and_sksurv_cox_agree(obvious):
    frame, *_ = obvious
    a = risk_scores(MODELS["lifelines-cox"](obvious), frame)
    b = risk_scores(MODELS["sksurv-cox"](obvious), frame)
    # same linear predictor up to lifelines' centring
    np.testing.assert_allclose(a - a.mean(), b - b.mean(), atol=1e-4)


def test_aft_score_is_minus_log_median(obvious):
    frame, *_ = obvious
    model = MODELS["lifelines-weibull"](obvious)
    np.testing.assert_allclose(
        risk_scores(model, frame), -np.log(model.predict_median(frame).to_numpy())
    )


def test_aft_infinite_median_gets_lowest_score(obvious, monkeypatch):
    frame, *_ = obvious
    model = MODELS["lifelines-lognormal"](obvious)
    medians = model.predict_median(frame).to_numpy().copy()
    medians[[3, 5]] = np.inf
    monkeypatch.setattr(model, "predict_median", lambda X: pd.Series(medians))
    with pytest.warns(UserWarning, match="2 of 300 predicted medians are infinite"):
        scores = risk_scores(model, frame)
    finite = np.delete(scores, [3, 5])
    assert scores[3] == scores[5] == finite.min() - 1.0


def test_unsupported_model_names_supported_ones():
    from sklearn.linear_model import LinearRegression

    with pytest.raises(
        TypeError,
        match="unsupported model type .*LinearRegression.*CoxPHFitter.*RandomSurvivalForest",
    ):
        risk_scores(LinearRegression(), np.zeros((3, 1)))
    with pytest.raises(TypeError, match="Pipeline must end in a supported"):
        risk_scores(make_pipeline(StandardScaler()), np.zeros((3, 1)))


def test_unfitted_models_raise():
    with pytest.raises(ValueError, match="CoxPHFitter is not fitted"):
        risk_scores(CoxPHFitter(), pd.DataFrame({"x": [1.0]}))
    with pytest.raises(ValueError, match="RandomSurvivalForest is not fitted"):
        risk_scores(RandomSurvivalForest(), np.zeros((2, 1)))


def test_callable_bad_output():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"returned shape \(3,\), expected \(4,\)"):
        risk_scores(lambda X: np.zeros(3), X)
    with pytest.raises(ValueError, match=r"1 risk scores are NaN or infinite \(rows \[2\]\)"):
        risk_scores(lambda X: np.array([0.0, 1.0, np.nan, 2.0]), X)


# -- every supported model, oriented on real data (whas500) ----------------------------------


@pytest.fixture(scope="module")
def whas():
    """whas500 (n = 500, 43% deaths): five standardised numeric covariates, gender as the group."""
    from sksurv.datasets import load_whas500

    features, outcome = load_whas500()
    X = features[["age", "bmi", "hr", "sysbp", "diasbp"]].astype(float)
    X = (X - X.mean()) / X.std()
    time, event = outcome["lenfol"].astype(float), outcome["fstat"].astype(bool)
    frame = X.assign(time=time, event=event.astype(int))  # lifelines' fit input
    group = np.where(features["gender"].astype(str) == "1", "F", "M")
    return X, outcome, frame, time, event, group


_FORMULA = "age + bmi + hr + sysbp + diasbp"


def _sk(model):
    """A scikit-survival model fitted on the first n rows (plain fit: the tests want its
    orientation)."""

    def fit(d, n):
        X, y, *_ = d
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # a few iterations only: convergence is not the point here
            return model.fit(X.iloc[:n], y[:n])

    return fit


def _ll(model, **fit_kwargs):
    """A lifelines model fitted with fit_checked on all 500 rows."""
    return lambda d, n: fit_checked(model, d[2], "time", "event", **fit_kwargs)


def _expected_events_twin(model, d, n):
    """Independent twin of the 'expected number of events' rule: one call, summed over event
    times."""
    frame, time, event = d[2].iloc[:n], d[3], d[4]
    times = np.unique(time[event])
    hazard = model.predict_cumulative_hazard(frame, times=times)
    return (
        hazard[frame.index].sum(axis=0).to_numpy()
    )  # by label: a stratified fit groups columns by stratum


def _predict(model, d, n):
    return model.predict(d[0].iloc[:n])


def _minus_predict(model, d, n):
    return -model.predict(d[0].iloc[:n])


# name -> (fit, the model's own prediction oriented as a risk by hand, rows used)
ORIENTED = {
    # scikit-survival, predict is a risk
    "sksurv-extra-trees": (
        _sk(ExtraSurvivalTrees(n_estimators=20, min_samples_leaf=10, random_state=0)),
        _predict,
        500,
    ),
    "sksurv-survival-tree": (_sk(SurvivalTree(min_samples_leaf=20)), _predict, 500),
    "sksurv-extra-survival-tree": (
        _sk(ExtraSurvivalTree(min_samples_leaf=20, random_state=0)),
        _predict,
        500,
    ),
    "sksurv-componentwise-coxph": (
        _sk(ComponentwiseGradientBoostingSurvivalAnalysis(n_estimators=50, random_state=0)),
        _predict,
        500,
    ),
    "sksurv-fast-svm-ranking": (_sk(FastSurvivalSVM(max_iter=20, random_state=0)), _predict, 500),
    "sksurv-fast-kernel-svm-ranking": (
        _sk(FastKernelSurvivalSVM(kernel="rbf", max_iter=5, random_state=0)),
        _predict,
        200,
    ),
    "sksurv-naive-svm": (_sk(NaiveSurvivalSVM(random_state=0)), _predict, 200),
    "sksurv-minlip": (_sk(MinlipSurvivalAnalysis()), _predict, 100),
    "sksurv-hinge-loss-svm": (_sk(HingeLossSurvivalSVM()), _predict, 40),
    # scikit-survival, predict is a time: risk = -predict
    "sksurv-ipcridge": (_sk(IPCRidge()), _minus_predict, 500),
    "sksurv-gbsa-ipcwls": (
        _sk(GradientBoostingSurvivalAnalysis(loss="ipcwls", n_estimators=20, random_state=0)),
        _minus_predict,
        500,
    ),
    "sksurv-gbsa-squared": (
        _sk(GradientBoostingSurvivalAnalysis(loss="squared", n_estimators=20, random_state=0)),
        _minus_predict,
        500,
    ),
    "sksurv-componentwise-ipcwls": (
        _sk(
            ComponentwiseGradientBoostingSurvivalAnalysis(
                loss="ipcwls", n_estimators=50, random_state=0
            )
        ),
        _minus_predict,
        500,
    ),
    "sksurv-fast-svm-regression": (
        _sk(FastSurvivalSVM(rank_ratio=0.5, fit_intercept=True, max_iter=20, random_state=0)),
        _minus_predict,
        500,
    ),
    "sksurv-fast-svm-pure-regression": (
        _sk(FastSurvivalSVM(rank_ratio=0.0, fit_intercept=True, max_iter=20, random_state=0)),
        _minus_predict,
        500,
    ),
    "sksurv-fast-kernel-svm-regression": (
        _sk(
            FastKernelSurvivalSVM(
                kernel="rbf", rank_ratio=0.5, fit_intercept=True, max_iter=5, random_state=0
            )
        ),
        _minus_predict,
        200,
    ),
    "pipeline-ipcridge": (_sk(make_pipeline(StandardScaler(), IPCRidge())), _minus_predict, 500),
    # lifelines
    "lifelines-cox": (_ll(CoxPHFitter()), lambda m, d, n: m.predict_log_partial_hazard(d[2]), 500),
    "lifelines-weibull": (_ll(WeibullAFTFitter()), lambda m, d, n: -m.predict_median(d[2]), 500),
    "lifelines-cox-stratified": (
        lambda d, n: fit_checked(
            CoxPHFitter(),
            d[2].assign(male=(d[5] == "M").astype(float)),
            "time",
            "event",
            strata=["male"],
        ),
        lambda m, d, n: _expected_events_twin(
            m, (None, None, d[2].assign(male=(d[5] == "M").astype(float)), d[3], d[4]), n
        ),
        500,
    ),
    "lifelines-cox-spline": (
        _ll(CoxPHFitter(baseline_estimation_method="spline", n_baseline_knots=3)),
        _expected_events_twin,
        500,
    ),
    "lifelines-aalen": (
        _ll(AalenAdditiveFitter(coef_penalizer=1.0)),
        lambda m, d, n: m.predict_cumulative_hazard(d[2]).sum(axis=0).to_numpy(),
        500,
    ),
    "lifelines-piecewise": (
        _ll(PiecewiseExponentialRegressionFitter(breakpoints=[200.0, 800.0])),
        _expected_events_twin,
        500,
    ),
    "lifelines-generalized-gamma": (
        _ll(
            GeneralizedGammaRegressionFitter(),
            regressors={"mu_": _FORMULA, "sigma_": "1", "lambda_": "1"},
        ),
        _expected_events_twin,
        500,
    ),
    "lifelines-crc-spline": (
        _ll(
            CRCSplineFitter(n_baseline_knots=3),
            regressors={"beta_": _FORMULA, "gamma0_": "1", "gamma1_": "1", "gamma2_": "1"},
        ),
        _expected_events_twin,
        500,
    ),
}


@pytest.mark.parametrize("name", list(ORIENTED), ids=list(ORIENTED))
def test_orientation_on_whas500_matches_sksurv_concordance(whas, name):
    """The pooled C of risk_scores is > 0.5 and equals scikit-survival's C of the model's own output
    oriented by hand (-predict for a predicted time); for scikit-survival models also
    model.score."""
    fit, native, n = ORIENTED[name]
    model = fit(whas, n)
    X, y, frame, time, event, group = whas
    features = frame.iloc[:n] if name.startswith("lifelines") else X.iloc[:n]
    if name == "lifelines-cox-stratified":
        features = features.assign(male=(group[:n] == "M").astype(float))
    scores = risk_scores(model, features)
    assert scores.shape == (n,) and scores.dtype == np.float64 and np.isfinite(scores).all()
    pooled = sf.xci(time[:n], event[:n], group[:n], scores, method="naive", ci=None).overall
    expected = concordance_index_censored(
        event[:n], time[:n], np.asarray(native(model, whas, n), dtype=float)
    )[0]
    assert pooled > 0.5
    assert abs(pooled - expected) <= 1e-12, (pooled, expected)
    if not name.startswith("lifelines"):
        assert (
            abs(pooled - model.score(X.iloc[:n], y[:n])) <= 1e-12
        )  # scikit-survival's own orientation


def test_time_predicting_sksurv_models_are_negated_exactly(whas):
    X, *_ = whas
    for name in (
        "sksurv-ipcridge",
        "sksurv-gbsa-ipcwls",
        "sksurv-fast-svm-regression",
        "pipeline-ipcridge",
    ):
        fit, _, n = ORIENTED[name]
        model = fit(whas, n)
        np.testing.assert_array_equal(risk_scores(model, X.iloc[:n]), -model.predict(X.iloc[:n]))
    model = ORIENTED["sksurv-fast-svm-ranking"][0](whas, 500)
    np.testing.assert_array_equal(risk_scores(model, X), model.predict(X))


def test_expected_events_ranks_a_proportional_hazards_model_as_its_linear_predictor(whas):
    """For a Cox model the expected number of events is exp(lp) times a constant."""
    from survfair._models.fitting import _expected_events

    _, _, frame, *_ = whas
    model = fit_checked(CoxPHFitter(), frame, "time", "event")
    lp = model.predict_log_partial_hazard(frame).to_numpy()
    events = _expected_events(model, frame, len(frame))
    np.testing.assert_allclose(np.log(events) - lp, np.log(events[0]) - lp[0], rtol=0, atol=1e-9)


def test_expected_events_in_blocks_equals_one_pass(whas, monkeypatch):
    import survfair._models.fitting as models

    _, _, frame, *_ = whas
    model = ORIENTED["lifelines-aalen"][0](whas, 500)
    whole = risk_scores(model, frame)
    monkeypatch.setattr(
        models, "_HAZARD_BLOCK_CELLS", 1000
    )  # 6 rows per block with 162 event times
    np.testing.assert_array_equal(risk_scores(model, frame), whole)


def test_cox_time_varying_scored_at_one_row_per_person(whas):
    """Constant covariates split over two intervals: the same partial likelihood as CoxPHFitter."""
    _, _, frame, time, event, _ = whas
    people = frame.assign(id=np.arange(len(frame)))
    first = people.assign(
        start=0.0, stop=np.minimum(time, 100.0), event=np.where(time <= 100.0, people["event"], 0)
    )
    second = people[time > 100.0].assign(start=100.0, stop=time[time > 100.0])
    long = pd.concat([first, second]).drop(columns="time")
    model = fit_checked(
        CoxTimeVaryingFitter(),
        long,
        id_col="id",
        event_col="event",
        start_col="start",
        stop_col="stop",
    )
    covariates = frame.drop(columns=["time", "event"])
    scores = risk_scores(model, covariates)
    cox = risk_scores(fit_checked(CoxPHFitter(), frame, "time", "event"), frame)
    np.testing.assert_allclose(scores - scores.mean(), cox - cox.mean(), atol=1e-5)
    assert concordance_index_censored(event, time, scores)[0] > 0.5
    stratified = CoxTimeVaryingFitter().fit(
        long.assign(half=long["id"] % 2),
        id_col="id",
        event_col="event",
        start_col="start",
        stop_col="stop",
        strata=["half"],
    )
    with pytest.raises(
        ValueError, match="stratified CoxTimeVaryingFitter has no risk that ranks across strata"
    ):
        risk_scores(stratified, covariates.assign(half=np.arange(len(covariates)) % 2))


def test_supported_models_are_all_accepted_and_documented():
    """SUPPORTED_MODELS, _kind, the risk_scores table and the how-to table name the same classes."""
    import importlib
    from pathlib import Path

    from survfair._models.fitting import _kind

    how_to = (
        Path(__file__).resolve().parents[1] / "docs" / "how-to" / "audit-models.md"
    ).read_text(encoding="utf-8")
    for entry in sf.SUPPORTED_MODELS[:-2]:
        module, name = entry.rsplit(".", 1)
        cls = getattr(importlib.import_module(module), name)
        assert issubclass(cls, tuple(_accepted_classes())), entry
        assert f"``{name}``" in risk_scores.__doc__, name
        assert f"`{name}`" in how_to, name
    assert _kind(make_pipeline(StandardScaler(), IPCRidge())) == "pipeline"


def _accepted_classes():
    from survfair._models.fitting import _lifelines_classes, _sksurv_classes

    return list(_lifelines_classes()) + list(_sksurv_classes())


def test_scoring_a_cox_model_imports_no_other_model_family():
    """A model's kind is told from the modules already imported: scoring scikit-survival's Cox
    model does not load its ensembles, trees and SVMs (scikit-learn's ensembles, about 0.1 s)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, survfair\n"
        "from sksurv.linear_model import CoxPHSurvivalAnalysis\n"
        "from sksurv.util import Surv\n"
        "rng = np.random.default_rng(0); x = rng.normal(size=(50, 2))\n"
        "y = Surv.from_arrays(event=np.ones(50, bool), time=rng.exponential(size=50))\n"
        "model = survfair.fit_checked(CoxPHSurvivalAnalysis(), x, y)\n"
        "assert survfair.risk_scores(model, x).shape == (50,)\n"
        "others = ('sksurv.ensemble', 'sksurv.svm', 'sksurv.tree')\n"
        "print([m for m in others if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_still_unsupported_models_are_refused():
    from lifelines import KaplanMeierFitter
    from sksurv.meta import Stacking

    with pytest.raises(TypeError, match="unsupported model type lifelines.*KaplanMeierFitter"):
        risk_scores(KaplanMeierFitter(), pd.DataFrame({"x": [1.0]}))
    with pytest.raises(TypeError, match="unsupported model type sksurv.*Stacking.*IPCRidge"):
        risk_scores(
            Stacking(CoxPHSurvivalAnalysis(), [("a", CoxPHSurvivalAnalysis())]), np.zeros((2, 1))
        )


@pytest.mark.parametrize(
    "model",
    [
        AalenAdditiveFitter(),
        GeneralizedGammaRegressionFitter(),
        CoxTimeVaryingFitter(),
        IPCRidge(),
        FastSurvivalSVM(),
        FastKernelSurvivalSVM(),
        MinlipSurvivalAnalysis(),
        ExtraSurvivalTrees(),
        make_pipeline(StandardScaler(), FastSurvivalSVM()),
    ],
    ids=lambda m: type(m).__name__,
)
def test_unfitted_new_models_raise(model):
    final = model.steps[-1][1] if hasattr(model, "steps") else model
    with pytest.raises(ValueError, match=f"{type(final).__name__} is not fitted; call fit first"):
        risk_scores(model, pd.DataFrame({"x": [1.0, 2.0]}))


@pytest.fixture(scope="module")
def separated():
    """Complete separation: x orders the event times exactly."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    t = np.argsort(np.argsort(-x)).astype(float) + 1.0
    return pd.DataFrame({"x": x, "z": rng.normal(size=60), "time": t, "event": 1})


def test_fit_checked_lifelines_convergence_warning_raises(separated):
    with pytest.raises(
        ConvergenceError,
        match="CoxPHFitter.fit did not converge.*Newton-Raphson failed to converge",
    ):
        fit_checked(CoxPHFitter(), separated, "time", "event")


def test_risk_scores_rejects_absurd_coefficients_of_unchecked_fit(separated):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CoxPHFitter().fit(separated, "time", "event")  # lifelines only warns
    assert model.params_["x"] > 10  # the nonsense coefficient lifelines returns
    with pytest.raises(ConvergenceError, match=r"\|coefficient x SD\| exceeds 10 for x"):
        risk_scores(model, separated)


def test_fit_checked_sksurv_convergence_warning_raises(obvious):
    frame, time, event, _ = obvious
    with pytest.raises(ConvergenceError, match="Maximum number of iterations"):
        fit_checked(CoxPHSurvivalAnalysis(n_iter=1), frame, Surv.from_arrays(event, time))


def test_non_finite_coefficients_raise(obvious):
    frame, *_ = obvious
    model = MODELS["sksurv-cox"](obvious)
    model.coef_ = np.array([np.nan, 0.0])
    with pytest.raises(ConvergenceError, match=r"non-finite coefficients for \['x'\]"):
        risk_scores(model, frame)


def test_fit_checked_passes_good_fit_and_reemits_other_warnings(obvious):
    frame, time, event, _ = obvious
    model = fit_checked(CoxPHSurvivalAnalysis(), frame, Surv.from_arrays(event, time))
    assert np.isfinite(model.coef_).all()
    with pytest.raises(TypeError, match="nothing to fit"):
        fit_checked(lambda X: X, frame)


def test_flchain_lifelines_behaviour():
    """What lifelines 0.30 actually does on flchain (documented in examples/README.md).

    Without creatinine (all 7874 rows) its unpenalised Newton-Raphson stops with lifelines'
    ConvergenceError ("delta contains nan"), which fit_checked turns into ours; with creatinine
    (6524 rows) it converges to scikit-survival's estimate.
    """
    cohort = load_flchain(covariates=("age", "female", "kappa", "lambda", "mgus"))
    frame = cohort.frame[list(cohort.covariates) + ["time", "event"]].astype(float)
    with pytest.raises(ConvergenceError, match="delta contains nan"):
        fit_checked(CoxPHFitter(), frame, "time", "event")


# -- flchain: fairness through unawareness (Wang et al. 2026, Section 6) -------------------


@pytest.fixture(scope="module")
def flchain_pair():
    return load_flchain(), load_flchain(perturb=True)


def _xci_of(model, cohort, drop_sex=False):
    X = cohort.design.drop(columns="female") if drop_sex else cohort.design
    model.fit(X, Surv.from_arrays(cohort.frame["event"], cohort.frame["time"]))
    return sf.xci("time", "event", "sex", model.predict(X), data=cohort.frame, tau=3650.0).values


def test_flchain_unpenalised_cox_with_sex_is_exactly_invariant(flchain_pair):
    before, after = flchain_pair
    np.testing.assert_allclose(
        _xci_of(CoxPHSurvivalAnalysis(), before),
        _xci_of(CoxPHSurvivalAnalysis(), after),
        rtol=0,
        atol=1e-12,
    )


def test_flchain_cox_without_sex_changes(flchain_pair):
    before, after = flchain_pair
    change = np.abs(
        _xci_of(CoxPHSurvivalAnalysis(), before, True)
        - _xci_of(CoxPHSurvivalAnalysis(), after, True)
    )
    assert change.max() > 0.02


def test_flchain_penalised_sex_coefficient_breaks_invariance(flchain_pair):
    """Ridge penalises the sex coefficient, so it cannot absorb the shift exactly."""
    before, after = flchain_pair
    change = np.abs(
        _xci_of(CoxPHSurvivalAnalysis(alpha=100.0), before)
        - _xci_of(CoxPHSurvivalAnalysis(alpha=100.0), after)
    )
    assert change.max() > 1e-3


def test_flchain_unpenalised_sex_in_coxnet_is_invariant_to_solver_tolerance(flchain_pair):
    """With penalty_factor 0 on sex the penalised problem is reparametrised exactly (up to tol)."""
    before, after = flchain_pair
    factor = np.array([0.0 if c == "female" else 1.0 for c in before.covariates])

    def model():
        return CoxnetSurvivalAnalysis(
            l1_ratio=1.0, alphas=[0.01], penalty_factor=factor, tol=1e-12, max_iter=1_000_000
        )

    np.testing.assert_allclose(_xci_of(model(), before), _xci_of(model(), after), atol=1e-4)
