"""The refit bootstrap of model_based_xci (``ci="bootstrap", refit=True[, train=]``):
survfair/_models/model_based_refit.py. Its coverage study is benchmarks/model_based_coverage.py."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pandas as pd
import pytest

import survfair
from survfair._core.exceptions import ConvergenceError, InvalidParameterError
from survfair._models import model_based_refit


def cohort(n: int = 150, seed: int = 0, groups=("a", "b")):
    rng = np.random.default_rng(seed)
    group = np.asarray(groups)[rng.integers(0, len(groups), n)]
    X = pd.DataFrame({"z": rng.normal(size=n), "b": (group == "b").astype(float)})
    t = rng.exponential(np.exp(-X["z"].to_numpy() - X["b"].to_numpy()))
    c = rng.exponential(3.0, n)
    return X, np.minimum(t, c), t <= c, group


def lifelines_cox(X, time, event):
    from lifelines import CoxPHFitter

    return CoxPHFitter().fit(X.assign(t=time, e=event.astype(int)), "t", "e")


@pytest.fixture(scope="module")
def data():
    X, time, event, group = cohort()
    return X, time, event, group, lifelines_cox(X, time, event)


def run(data, **kwargs):
    X, time, event, group, model = data
    kwargs = {"model": model, "X": X, "tau": 2.0, **kwargs}
    return survfair.model_based_xci(time, event, group, None, **kwargs)


def test_lifelines_refit_differs_from_the_plain_bootstrap(data):
    common = dict(ci="bootstrap", n_resamples=20, random_state=3)
    refit = run(data, refit=True, **common)
    plain = run(data, **common)
    assert refit.replicates.shape == (20, 2, 2, 2) and refit.ci_method == "bootstrap"
    assert np.isfinite(refit.replicates).all()
    # the same resampled rows, but refitted scores and curves: other observed and reference cells
    assert not np.allclose(refit.replicates, plain.replicates)
    # the point estimate is the fitted model's, whatever the interval
    np.testing.assert_allclose(refit.excess_values, plain.excess_values)
    est = survfair.excess_delta_between(refit, "a", "b")
    assert est.confidence_interval.low < est.value < est.confidence_interval.high


def test_scikit_survival_refit_runs():
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    X, time, event, group = cohort(seed=1)
    model = CoxPHSurvivalAnalysis().fit(X, Surv.from_arrays(event, time))
    res = survfair.model_based_xci(
        time,
        event,
        group,
        None,
        model=model,
        X=X,
        tau=2.0,
        ci="bootstrap",
        refit=True,
        n_resamples=15,
        random_state=0,
    )
    assert res.replicates.shape == (15, 2, 2, 2)
    assert np.isfinite(res.replicates).all()
    assert np.std(res.replicates[:, 1, 0, 1]) > 0


def test_train_rows_are_resampled_and_refitted(data, monkeypatch):
    X, time, event, group, _ = data
    X_train, time_train, event_train, _ = cohort(n=120, seed=7)
    model = lifelines_cox(X_train, time_train, event_train)
    seen = []
    original = model_based_refit.fit_checked

    def spy(fresh, *args, **kwargs):
        seen.append(np.asarray(args[0][args[1]]))  # the durations of the fit
        return original(fresh, *args, **kwargs)

    monkeypatch.setattr(model_based_refit, "fit_checked", spy)
    kwargs = dict(model=model, X=X, tau=2.0, ci="bootstrap", refit=True, n_resamples=6)
    first = survfair.model_based_xci(
        time,
        event,
        group,
        None,
        train=(X_train, time_train, event_train),
        random_state=5,
        **kwargs,
    )
    # one reproduction fit on the training rows as given, then one per replicate on a resample
    assert len(seen) == 7 and np.array_equal(np.sort(seen[0]), np.sort(time_train))
    for durations in seen[1:]:
        assert durations.size == time_train.size and np.isin(durations, time_train).all()
        assert np.unique(durations).size < time_train.size  # drawn with replacement
    # a seeded run changes when the training data change
    again = survfair.model_based_xci(
        time,
        event,
        group,
        None,
        train=(X_train, time_train, event_train),
        random_state=5,
        **kwargs,
    )
    np.testing.assert_array_equal(first.replicates, again.replicates)
    changed = (X_train, time_train * 1.5 ** X_train["z"].to_numpy(), event_train)
    with pytest.warns(UserWarning, match="does not reproduce"):  # the model was not fitted on it
        shifted = survfair.model_based_xci(
            time, event, group, None, train=changed, random_state=5, **kwargs
        )
    assert not np.allclose(first.replicates[:, 1], shifted.replicates[:, 1])


def test_a_model_fitted_elsewhere_without_train_is_reported(data):
    X, time, event, group, _ = data
    X_other, time_other, event_other, _ = cohort(seed=11)
    other = lifelines_cox(X_other, time_other, event_other)
    with pytest.warns(UserWarning, match="does not reproduce its risk scores"):
        survfair.model_based_xci(
            time,
            event,
            group,
            None,
            model=other,
            X=X,
            tau=2.0,
            ci="bootstrap",
            refit=True,
            n_resamples=3,
            random_state=0,
        )


def test_non_converged_replicate_fits_are_counted_and_left_out(data, monkeypatch):
    original = model_based_refit._Refitter.fit
    calls = {"n": 0}

    def flaky(self, X, time, event):
        calls["n"] += 1
        if calls["n"] in (3, 5):  # the first call is the reproduction fit
            raise ConvergenceError("model: did not converge (test)")
        return original(self, X, time, event)

    monkeypatch.setattr(model_based_refit._Refitter, "fit", flaky)
    with pytest.warns(UserWarning, match="2 of 8 replicate fits did not converge"):
        res = run(data, ci="bootstrap", refit=True, n_resamples=8, random_state=0)
    assert np.isnan(res.replicates).all(axis=(1, 2, 3)).sum() == 2
    assert np.isfinite(survfair.excess_delta_between(res, "a", "b").se)


def test_groups_left_out_still_fit_and_the_matrices_follow_groups():
    X, time, event, group = cohort(n=180, seed=2, groups=("a", "b", "c"))
    model = lifelines_cox(X, time, event)
    with pytest.warns(survfair.ExcludedRowsWarning):
        res = survfair.model_based_xci(
            time,
            event,
            group,
            None,
            model=model,
            X=X,
            tau=2.0,
            groups=["b", "a"],
            ci="bootstrap",
            refit=True,
            n_resamples=5,
            random_state=0,
        )
    assert res.groups == ("b", "a") and res.replicates.shape == (5, 2, 2, 2)
    assert np.isfinite(res.replicates).all()


@pytest.mark.parametrize(
    "kwargs, parameter, message",
    [
        (dict(ci="analytic", refit=True), "refit", "needs ci='bootstrap'"),
        (dict(ci=None, refit=True), "refit", "needs ci='bootstrap'"),
        (dict(ci="bootstrap", refit="yes"), "refit", "refit"),
        (dict(ci="bootstrap", train="rows"), "train", "pass refit=True"),
        (dict(ci="bootstrap", refit=True, train=("X", "t")), "train", "tuple"),
    ],
    ids=["analytic", "no-ci", "not-a-bool", "train-without-refit", "train-not-a-triple"],
)
def test_refusals_name_the_parameter(data, kwargs, parameter, message):
    with pytest.raises(InvalidParameterError, match=message) as info:
        run(data, n_resamples=2, **kwargs)
    assert info.value.parameter == parameter


def test_refit_needs_a_model_it_can_refit(data):
    X, time, event, group, model = data
    grid = np.linspace(0.1, 2.0, 20)
    curves = 1.0 - survfair.predicted_risks(model, X, grid).to_numpy()
    with pytest.raises(InvalidParameterError, match="needs model=") as info:
        survfair.model_based_xci(
            time,
            event,
            group,
            survfair.risk_scores(model, X),
            survival=curves,
            times=grid,
            tau=2.0,
            ci="bootstrap",
            refit=True,
            n_resamples=2,
        )
    assert info.value.parameter == "refit"

    def score(frame):
        return frame["z"].to_numpy()

    with pytest.raises(InvalidParameterError, match="cannot be refitted") as info:
        model_based_refit._refitter(score, X)
    assert info.value.parameter == "model"


def test_train_needs_the_models_columns(data):
    X, time, event, group, model = data
    with pytest.raises(InvalidParameterError, match="X_train lacks the column") as info:
        run(
            data,
            ci="bootstrap",
            refit=True,
            n_resamples=2,
            train=(X[["z"]], time, event),
        )
    assert info.value.parameter == "train"


def test_refit_refuses_a_risk_that_is_not_the_models(data):
    X, time, event, group, model = data
    risk = survfair.risk_scores(model, X)
    top, bottom = np.argmax(risk), np.argmin(risk)
    risk[[top, bottom]] = risk[[bottom, top]]  # two people swapped: not the model's ranking
    with pytest.raises(InvalidParameterError, match="pass risk=None") as info:
        survfair.model_based_xci(
            time,
            event,
            group,
            risk,
            model=model,
            X=X,
            tau=2.0,
            ci="bootstrap",
            refit=True,
            n_resamples=2,
        )
    assert info.value.parameter == "risk"


def test_the_docstring_example_runs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failures, tried = doctest.testmod(model_based_refit, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
