"""Model adapters (orientation, errors, convergence checks), compare(), and the flchain invariance."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter, LogLogisticAFTFitter, LogNormalAFTFitter, WeibullAFTFitter
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sksurv.ensemble import GradientBoostingSurvivalAnalysis, RandomSurvivalForest
from sksurv.linear_model import CoxnetSurvivalAnalysis, CoxPHSurvivalAnalysis
from sksurv.util import Surv

import survfair as sf
from conftest import with_fixed_se
from survfair import ConvergenceError, compare, fit_checked, risk_scores
from survfair._datasets import load_flchain


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
    "sksurv-rsf": lambda d: _sksurv(RandomSurvivalForest(n_estimators=15, min_samples_leaf=10, random_state=0), d),
    "sksurv-gbsa": lambda d: _sksurv(GradientBoostingSurvivalAnalysis(n_estimators=30, random_state=0), d),
    "pipeline": lambda d: _sksurv(make_pipeline(StandardScaler(), CoxPHSurvivalAnalysis()), d),
    "callable": lambda d: (lambda X: 2.0 * np.asarray(X)[:, 0]),
}


@pytest.mark.parametrize("name", list(MODELS), ids=list(MODELS))
def test_orientation_within_group_concordance(obvious, name):
    model = MODELS[name](obvious)
    frame, time, event, group = obvious
    scores = risk_scores(model, frame)
    assert scores.shape == (len(frame),) and scores.dtype == np.float64 and np.isfinite(scores).all()
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
    np.testing.assert_allclose(risk_scores(model, frame), -np.log(model.predict_median(frame).to_numpy()))


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

    with pytest.raises(TypeError, match="unsupported model type .*LinearRegression.*CoxPHFitter.*RandomSurvivalForest"):
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


@pytest.fixture(scope="module")
def separated():
    """Complete separation: x orders the event times exactly."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    t = np.argsort(np.argsort(-x)).astype(float) + 1.0
    return pd.DataFrame({"x": x, "z": rng.normal(size=60), "time": t, "event": 1})


def test_fit_checked_lifelines_convergence_warning_raises(separated):
    with pytest.raises(ConvergenceError, match="CoxPHFitter.fit did not converge.*Newton-Raphson failed to converge"):
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
    cohort = load_flchain(("age", "female", "kappa", "lambda", "mgus"))
    frame = cohort.frame[list(cohort.covariates) + ["time", "event"]].astype(float)
    with pytest.raises(ConvergenceError, match="delta contains nan"):
        fit_checked(CoxPHFitter(), frame, "time", "event")


# -- compare --------------------------------------------------------------------------------


def test_compare_matches_xci_and_summaries(obvious):
    frame, time, event, group = obvious
    cox = MODELS["sksurv-cox"](obvious)
    data = frame.assign(time=time, event=event, group=group, published=0.5 * frame["x"])
    out = compare({"cox": cox, "published": "published", "array": data["z"].to_numpy()},
                  "time", "event", "group", X=frame, data=data, groups=["b", "a"], tau=2.0, ci=None)
    table = out.table
    assert list(table.index) == ["cox", "published", "array"]
    assert list(table.columns[:2]) == ["n", "events"]
    for name, risk in (("cox", risk_scores(cox, frame)), ("published", data["published"]), ("array", data["z"])):
        res = sf.xci(time, event, group, np.asarray(risk), groups=["b", "a"], tau=2.0, ci=None)
        np.testing.assert_array_equal(out.results[name].values, res.values)
        assert table.loc[name, "xci[b,a]"] == res.matrix.loc["b", "a"]
        assert table.loc[name, "delta_within[b,a]"] == sf.delta_within(res, "b", "a").value
        assert table.loc[name, "delta_between[b,a]"] == sf.delta_between(res, "b", "a").value
        assert table.loc[name, "min_xci"] == sf.min_xci(res).value
        assert table.loc[name, "overall"] == res.overall
        assert table.loc[name, "n"] == 300 and table.loc[name, "events"] == event.sum()
    assert not any(c.endswith("_low") for c in table.columns)  # no inference requested
    long = out.long()
    assert set(long.columns) == {"model", "statistic", "value", "ci_low", "ci_high", "p_value"}
    assert len(long) == 3 * (4 + 2 + 1 + 1)
    assert "ModelComparison(groups=['b', 'a'])" in repr(out)


def test_compare_intervals_appear_when_results_carry_them(obvious, monkeypatch):
    import survfair._comparison as comparison

    frame, time, event, group = obvious

    def xci_with_covariance(*args, **kwargs):
        return with_fixed_se(sf.xci(*args, **kwargs), 0.01)

    monkeypatch.setattr(comparison, "xci", xci_with_covariance)
    out = compare({"x": frame["x"].to_numpy()}, time, event, group, tau=2.0)
    row = out.table.loc["x"]
    # single cells: Wald on the logit scale (delta method), mapped back
    value, z = row["xci[a,a]"], 1.959963984540054
    logit = np.log(value / (1 - value)) - z * 0.01 / (value * (1 - value))
    assert row["xci[a,a]_low"] == pytest.approx(1 / (1 + np.exp(-logit)))
    assert row["delta_between[a,b]_high"] == pytest.approx(row["delta_between[a,b]"] + 1.959963984540054 * np.sqrt(2e-4))
    assert 0 <= row["delta_between[a,b]_p"] <= 1


def test_compare_errors(obvious):
    frame, time, event, group = obvious
    cox = MODELS["sksurv-cox"](obvious)
    with pytest.raises(TypeError, match="models must be a dict"):
        compare([cox], time, event, group)
    with pytest.raises(TypeError, match="at least one entry"):
        compare({}, time, event, group)
    with pytest.raises(ValueError, match=r"models\['cox'\] is a model, so X"):
        compare({"cox": cox}, time, event, group)
    with pytest.raises(ValueError, match=r"models\['eq'\] is a column name \('lp'\), so data must be given"):
        compare({"eq": "lp"}, time, event, group)
    with pytest.raises(ValueError, match=r"models\['eq'\]: column 'lp' is not in data"):
        compare({"eq": "lp"}, "t", "e", "g", data=pd.DataFrame({"t": time, "e": event, "g": group}))
    with pytest.raises(TypeError, match=r"models\['bad'\]: model: unsupported model type"):
        compare({"bad": object()}, time, event, group, X=frame)
    with pytest.raises(ValueError, match=r"models\['short'\]: inputs have mismatched lengths"):
        compare({"short": np.zeros(5)}, time, event, group)


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
    np.testing.assert_allclose(_xci_of(CoxPHSurvivalAnalysis(), before), _xci_of(CoxPHSurvivalAnalysis(), after),
                               rtol=0, atol=1e-12)


def test_flchain_cox_without_sex_changes(flchain_pair):
    before, after = flchain_pair
    change = np.abs(_xci_of(CoxPHSurvivalAnalysis(), before, True) - _xci_of(CoxPHSurvivalAnalysis(), after, True))
    assert change.max() > 0.02


def test_flchain_penalised_sex_coefficient_breaks_invariance(flchain_pair):
    """Ridge penalises the sex coefficient, so it cannot absorb the shift exactly."""
    before, after = flchain_pair
    change = np.abs(_xci_of(CoxPHSurvivalAnalysis(alpha=100.0), before) - _xci_of(CoxPHSurvivalAnalysis(alpha=100.0), after))
    assert change.max() > 1e-3


def test_flchain_unpenalised_sex_in_coxnet_is_invariant_to_solver_tolerance(flchain_pair):
    """With penalty_factor 0 on sex the penalised problem is reparametrised exactly (up to tol)."""
    before, after = flchain_pair
    factor = np.array([0.0 if c == "female" else 1.0 for c in before.covariates])

    def model():
        return CoxnetSurvivalAnalysis(l1_ratio=1.0, alphas=[0.01], penalty_factor=factor, tol=1e-12, max_iter=1_000_000)

    np.testing.assert_allclose(_xci_of(model(), before), _xci_of(model(), after), atol=1e-4)
