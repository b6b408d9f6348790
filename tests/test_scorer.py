"""The fairness scorer inside scikit-learn model selection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sksurv.linear_model import CoxPHSurvivalAnalysis
from sksurv.util import Surv

import survfair as sf
from survfair import make_xci_scorer, xci_score


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 400
    group = np.where(rng.random(n) < 0.5, "a", "b")
    x = rng.normal(size=n)
    # group b's risk depends on a feature the model may down-weight: fairness differs across alphas
    w = rng.normal(size=n) * (group == "b")
    t = rng.exponential(np.exp(-(x + 1.5 * w)))
    c = rng.exponential(2.0, size=n)
    X = pd.DataFrame({"x": x, "w": w, "is_b": (group == "b").astype(float)})
    y = Surv.from_arrays(t <= c, np.minimum(t, c))
    return X, y, group


@pytest.mark.parametrize("statistic", ["min_xci", "abs_delta_between", "min_utility", "overall"])
def test_xci_score_matches_summaries(data, statistic):
    X, y, group = data
    risk = X["x"].to_numpy() + X["w"].to_numpy()
    res = sf.xci(y, None, group, risk, tau=1.5)
    expected = {
        "min_xci": sf.min_xci(res).value,
        "abs_delta_between": -abs(sf.delta_between(res, "a", "b").value),
        "min_utility": sf.utility(res)["value"].min(),
        "overall": res.overall,
    }[statistic]
    assert xci_score(y, risk, group=group, statistic=statistic, tau=1.5) == expected


def test_scorer_in_grid_search_with_metadata_routing(data):
    X, y, group = data
    alphas = [0.01, 1e4]
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_xci_scorer(statistic="min_xci", tau=1.5).set_score_request(group=True)
        cv = KFold(3, shuffle=True, random_state=0)
        search = GridSearchCV(CoxPHSurvivalAnalysis(), {"alpha": alphas}, scoring=scorer, cv=cv)
        search.fit(X, y, group=group)
    # the scores are the fold-wise min-xCI of each candidate, group split with the folds
    for k, alpha in enumerate(alphas):
        for fold, (train, test) in enumerate(cv.split(X)):
            model = CoxPHSurvivalAnalysis(alpha=alpha).fit(X.iloc[train], y[train])
            expected = xci_score(y[test], model.predict(X.iloc[test]), group=group[test], tau=1.5)
            assert search.cv_results_[f"split{fold}_test_score"][k] == pytest.approx(
                expected, abs=1e-12
            )
    assert search.best_params_ == {
        "alpha": alphas[int(np.argmax(search.cv_results_["mean_test_score"]))]
    }


def test_scorer_with_group_column_without_routing(data):
    X, y, group = data
    X = X.assign(group=group)
    scorer = make_xci_scorer(
        statistic="abs_delta_between", group_column="group", drop_group=True, tau=1.5
    )
    features = X.drop(columns="group")
    cv = KFold(3, shuffle=True, random_state=1)
    model = CoxPHSurvivalAnalysis()
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    # a pipeline that ignores the group column at fit time; the scorer drops it before predict
    pipe = make_pipeline(ColumnTransformer([("keep", "passthrough", ["x", "w", "is_b"])]), model)
    scores = cross_val_score(
        pipe,
        X,
        y,
        scoring=make_xci_scorer(statistic="abs_delta_between", group_column="group", tau=1.5),
        cv=cv,
    )
    for fold, (train, test) in enumerate(cv.split(X)):
        fitted = CoxPHSurvivalAnalysis().fit(features.iloc[train], y[train])
        expected = xci_score(
            y[test],
            fitted.predict(features.iloc[test]),
            group=group[test],
            statistic="abs_delta_between",
            tau=1.5,
        )
        assert scores[fold] == pytest.approx(expected, abs=1e-12)
        fitted_pipe = CoxPHSurvivalAnalysis().fit(features.iloc[train], y[train])
        assert scorer(fitted_pipe, X.iloc[test], y[test]) == pytest.approx(expected, abs=1e-12)
    assert (scores <= 0).all()


def test_scorer_errors(data):
    X, y, group = data
    with pytest.raises(ValueError, match="statistic must be one of"):
        make_xci_scorer(statistic="auc")
    with pytest.raises(ValueError, match="a and b must be given together"):
        xci_score(y, X["x"], group=group, statistic="abs_delta_between", a="a")
    scorer = make_xci_scorer(group_column="missing")
    with pytest.raises(ValueError, match="group_column: 'missing' is not a column of X"):
        scorer(CoxPHSurvivalAnalysis().fit(X, y), X, y)


def test_scorer_without_its_group_is_refused_when_made():
    """Issue 19: without routing, scikit-learn only said "Scoring failed" and gave NaN."""
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(
            ValueError, match=r"the scorer needs the group of every row: pass group_column="
        ):
            make_xci_scorer(statistic="min_xci", tau=1.5)
