"""Several models audited side by side (``survfair._models.comparison``: ``compare``,
``ModelComparison``): agreement with xci and the summaries, intervals, a feature matrix per model,
errors, exports."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import with_fixed_se
from sksurv.ensemble import RandomSurvivalForest
from sksurv.linear_model import CoxPHSurvivalAnalysis
from sksurv.util import Surv
from test_models import MODELS, obvious  # noqa: F401 (obvious is a fixture: the model tests' data)

import survfair as sf
from survfair import compare, risk_scores


def test_compare_matches_xci_and_summaries(obvious):
    frame, time, event, group = obvious
    cox = MODELS["sksurv-cox"](obvious)
    data = frame.assign(time=time, event=event, group=group, published=0.5 * frame["x"])
    out = compare(
        "time",
        "event",
        "group",
        {"cox": cox, "published": "published", "array": data["z"].to_numpy()},
        X=frame,
        data=data,
        groups=["b", "a"],
        tau=2.0,
        ci=None,
    )
    table = out.table
    assert list(table.index) == ["cox", "published", "array"]
    assert list(table.columns[:2]) == ["n", "events"]
    for name, risk in (
        ("cox", risk_scores(cox, frame)),
        ("published", data["published"]),
        ("array", data["z"]),
    ):
        res = sf.xci(time, event, group, np.asarray(risk), groups=["b", "a"], tau=2.0, ci=None)
        np.testing.assert_array_equal(out.results[name].values, res.values)
        assert table.loc[name, "xci[b,a]"] == res.matrix.loc["b", "a"]
        assert table.loc[name, "delta_within[b,a]"] == sf.delta_within(res, "b", "a").value
        assert table.loc[name, "delta_between[b,a]"] == sf.delta_between(res, "b", "a").value
        assert table.loc[name, "min_xci"] == sf.min_xci(res).value
        assert table.loc[name, "overall"] == res.overall
        assert table.loc[name, "n"] == 300 and table.loc[name, "events"] == event.sum()
    assert not any(c.endswith("_ci_low") for c in table.columns)  # no inference requested
    long = out.to_frame()
    assert set(long.columns) == {"model", "statistic", "value", "ci_low", "ci_high", "p_value"}
    assert len(long) == 3 * (4 + 2 + 1 + 1)
    assert "ModelComparison(groups=['b', 'a'])" in repr(out)


def test_compare_intervals_appear_when_results_carry_them(obvious, monkeypatch):
    import survfair._models.comparison as comparison

    frame, time, event, group = obvious

    def xci_with_covariance(*args, **kwargs):
        return with_fixed_se(sf.xci(*args, **kwargs), 0.01)

    monkeypatch.setattr(comparison, "xci", xci_with_covariance)
    out = compare(time, event, group, {"x": frame["x"].to_numpy()}, tau=2.0)
    row = out.table.loc["x"]
    # single cells: Wald on the logit scale (delta method), mapped back
    value, z = row["xci[a,a]"], 1.959963984540054
    logit = np.log(value / (1 - value)) - z * 0.01 / (value * (1 - value))
    assert row["xci[a,a]_ci_low"] == pytest.approx(1 / (1 + np.exp(-logit)))
    assert row["delta_between[a,b]_ci_high"] == pytest.approx(
        row["delta_between[a,b]"] + 1.959963984540054 * np.sqrt(2e-4)
    )
    assert 0 <= row["delta_between[a,b]_p_value"] <= 1


def test_compare_errors(obvious):
    frame, time, event, group = obvious
    cox = MODELS["sksurv-cox"](obvious)
    with pytest.raises(TypeError, match="models must be a dict"):
        compare(time, event, group, [cox])
    with pytest.raises(TypeError, match="at least one entry"):
        compare(time, event, group, {})
    with pytest.raises(ValueError, match=r"models\['cox'\] is a model, so X"):
        compare(time, event, group, {"cox": cox})
    with pytest.raises(
        ValueError, match=r"models\['eq'\] is a column name \('lp'\), so data must be given"
    ):
        compare(time, event, group, {"eq": "lp"})
    with pytest.raises(ValueError, match=r"models\['eq'\]: column 'lp' is not in data"):
        compare("t", "e", "g", {"eq": "lp"}, data=pd.DataFrame({"t": time, "e": event, "g": group}))
    with pytest.raises(TypeError, match=r"models\['bad'\]: model: unsupported model type"):
        compare(time, event, group, {"bad": object()}, X=frame)
    with pytest.raises(ValueError, match=r"models\['short'\]: inputs have mismatched lengths"):
        compare(time, event, group, {"short": np.zeros(5)})


def test_compare_feature_matrix_per_model(obvious):
    """Models fitted on different columns, each scored on its own X (one shared X cannot serve
    both)."""
    frame, time, event, group = obvious
    y = Surv.from_arrays(event, time)
    only_x = CoxPHSurvivalAnalysis().fit(frame[["x"]], y)
    only_z = RandomSurvivalForest(n_estimators=10, min_samples_leaf=10, random_state=0).fit(
        frame[["z"]], y
    )
    both = CoxPHSurvivalAnalysis().fit(frame, y)
    X = {
        "cox on x": frame[["x"]],
        "rsf on z": frame[["z"]],
        "cox on both": frame,
        "callable": frame[["z", "x"]].to_numpy(),
    }
    models = {
        "cox on x": only_x,
        "rsf on z": only_z,
        "cox on both": both,
        "scores": frame["x"].to_numpy(),
        "callable": lambda A: 2.0 * A[:, 1],
    }
    out = compare(time, event, group, models, X=X, tau=2.0, ci=None)
    for name, risk in (
        ("cox on x", risk_scores(only_x, frame[["x"]])),
        ("rsf on z", risk_scores(only_z, frame[["z"]])),
        ("cox on both", risk_scores(both, frame)),
        ("scores", frame["x"]),
        ("callable", 2.0 * frame["x"]),
    ):
        np.testing.assert_array_equal(out.scores[name], np.asarray(risk))
        res = sf.xci(time, event, group, np.asarray(risk), tau=2.0, ci=None)
        np.testing.assert_array_equal(out.results[name].values, res.values)
    assert out.results["cox on x"].overall > 0.7 > out.results["rsf on z"].overall
    with pytest.raises(ValueError, match="feature names"):  # what a single X did before
        compare(time, event, group, {"cox on x": only_x, "rsf on z": only_z}, X=frame, ci=None)


def test_compare_feature_matrix_per_model_errors(obvious):
    frame, time, event, group = obvious
    y = Surv.from_arrays(event, time)
    only_x = CoxPHSurvivalAnalysis().fit(frame[["x"]], y)
    with pytest.raises(
        ValueError, match=r"models\['b'\] is a model, so X \(a dict\) needs an entry 'b'"
    ):
        compare(
            time, event, group, {"a": only_x, "b": only_x}, X={"a": frame[["x"]]}, tau=2.0, ci=None
        )
    with pytest.raises(ValueError, match=r"X: 'typo' not in models"):
        compare(
            time,
            event,
            group,
            {"a": only_x},
            X={"a": frame[["x"]], "typo": frame},
            tau=2.0,
            ci=None,
        )
    with pytest.raises(
        ValueError, match=r"X: 's' is scores or a column name in models, which need no covariates"
    ):
        compare(
            time,
            event,
            group,
            {"a": only_x, "s": frame["x"].to_numpy()},
            X={"a": frame[["x"]], "s": frame},
            tau=2.0,
            ci=None,
        )
    # the index rule applies to each matrix: scores carry the index of their own X
    shuffled = frame[["x"]].iloc[::-1]
    with pytest.raises(ValueError, match=r"models\['b'\]: .*index"):
        compare(
            time,
            event,
            pd.Series(group, index=frame.index),
            {"a": frame["x"].to_numpy(), "b": only_x},
            X={"b": shuffled},
            tau=2.0,
            ci=None,
        )
    # ... and the matrices must share one index even when time, event and group carry none
    with pytest.raises(
        ValueError,
        match=r"X\['a'\] and X\['b'\] carry pandas indexes that are not identical "
        r"\(the same labels in a different order\)",
    ):
        compare(
            time,
            event,
            group,
            {"a": only_x, "b": only_x},
            X={"a": frame[["x"]], "b": shuffled},
            tau=2.0,
            ci=None,
        )
    with pytest.raises(ValueError, match=r"models\['b'\]: inputs have mismatched lengths"):
        compare(
            time,
            event,
            group,
            {"a": lambda A: A[:, 0], "b": lambda A: A[:, 0]},
            X={"a": frame.to_numpy(), "b": frame.to_numpy()[:-1]},
            tau=2.0,
            ci=None,
        )


def test_long_format_with_intervals_follows_the_table(obvious):
    frame, time, event, group = obvious
    out = compare(
        time,
        event,
        group,
        {"x": frame["x"].to_numpy(), "z": frame["z"].to_numpy()},
        groups=["b", "a"],
        tau=2.0,
        ci="analytic",
    )
    assert out.groups == ("b", "a")
    table = out.table
    assert list(table.columns) == [
        "n",
        "events",
        "xci[b,b]",
        "xci[b,b]_ci_low",
        "xci[b,b]_ci_high",
        "xci[b,a]",
        "xci[b,a]_ci_low",
        "xci[b,a]_ci_high",
        "xci[a,b]",
        "xci[a,b]_ci_low",
        "xci[a,b]_ci_high",
        "xci[a,a]",
        "xci[a,a]_ci_low",
        "xci[a,a]_ci_high",
        "delta_within[b,a]",
        "delta_within[b,a]_ci_low",
        "delta_within[b,a]_ci_high",
        "delta_within[b,a]_p_value",
        "delta_between[b,a]",
        "delta_between[b,a]_ci_low",
        "delta_between[b,a]_ci_high",
        "delta_between[b,a]_p_value",
        "min_xci",
        "min_xci_ci_low",
        "min_xci_ci_high",
        "min_xci_cell",
        "overall",
        "overall_ci_low",
        "overall_ci_high",
    ]
    long = out.to_frame()
    assert list(long.columns) == ["model", "statistic", "value", "ci_low", "ci_high", "p_value"]
    statistics = [
        "xci[b,b]",
        "xci[b,a]",
        "xci[a,b]",
        "xci[a,a]",
        "delta_within[b,a]",
        "delta_between[b,a]",
        "min_xci",
        "overall",
    ]
    assert (
        list(long["model"]) == ["x"] * 8 + ["z"] * 8 and list(long["statistic"]) == statistics * 2
    )
    for row in long.itertuples(index=False):
        assert row.value == table.loc[row.model, row.statistic]
        if row.statistic == "min_xci":  # analytic min-xCI has no interval
            assert np.isnan(row.ci_low) and np.isnan(row.ci_high)
        else:
            assert row.ci_low == table.loc[row.model, f"{row.statistic}_ci_low"] < row.value
            assert row.ci_high == table.loc[row.model, f"{row.statistic}_ci_high"] > row.value
        assert np.isnan(row.p_value) == (not row.statistic.startswith("delta"))
    assert table.loc["x", "min_xci_cell"] in {"b,b", "b,a", "a,b", "a,a"}
    pooled = sf.overall_c(out.results["x"]).confidence_interval
    assert (table.loc["x", "overall_ci_low"], table.loc["x", "overall_ci_high"]) == tuple(pooled)
    assert json.loads(json.dumps(out.to_dict()))["models"] == ["x", "z"]


def test_interval_columns_follow_one_scheme():
    """Issue 19 audit, item E: wide tables name an estimate's interval <name>_ci_low / _ci_high and
    its p-value <name>_p_value (were <name>_low / _high / _p here, and xauc1_low, auc_high in
    balanced_xauc / group_metrics), as the long tables' ci_low / ci_high / p_value."""
    rng = np.random.default_rng(2)
    n = 120
    g = rng.integers(0, 2, n)
    time, event, risk = rng.exponential(size=n), rng.random(n) < 0.7, rng.normal(size=n)
    table = sf.compare(time, event, g, {"m": risk}).table
    y = (rng.random(n) < 0.5).astype(int)
    res = sf.xauc(y, g, rng.normal(size=n) + y)
    for frame in (table, sf.balanced_xauc(res), sf.group_metrics(res)):
        limits = [c for c in frame.columns if c.endswith(("_low", "_high"))]
        assert limits and all(c.endswith(("_ci_low", "_ci_high")) for c in limits), limits
    assert not [c for c in table.columns if c.endswith("_p")]
