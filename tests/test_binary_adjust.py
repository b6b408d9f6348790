"""Tests of the Appendix E post-processing adjustments (logistic and equality of opportunity)."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import survfair
from survfair import equal_opportunity_adjustment, logistic_adjustment


def shifted_groups(seed, n=3000, shift=-0.7):
    """Probability scores in which group a's scores are shifted down (a is disadvantaged)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], n)
    y = (rng.random(n) < 0.4).astype(int)
    linear = 1.5 * y + np.where(g == "a", shift, 0.0) + rng.normal(size=n)
    return y, g, expit(linear - 0.5)


@pytest.mark.parametrize("seed", [0, 1])
def test_logistic_adjustment_reduces_disparity_and_keeps_within_group_auc(seed):
    y, g, s = shifted_groups(seed)
    result = logistic_adjustment(y, g, s, "a", "b")
    before = survfair.delta_between(result.before, "a", "b").value
    after = survfair.delta_between(result.after, "a", "b").value
    assert before < -0.1
    assert abs(after) < 0.5 * abs(before)
    assert result.adjusted_group == "a"  # its positives are ranked above b's negatives less often
    assert 0.0 <= result.alpha <= 5.0 and result.beta == -2.0
    np.testing.assert_allclose(
        np.diag(result.after.values), np.diag(result.before.values), atol=1e-12
    )
    # the adjusted scores are h applied to group a only, and recomputing xAUC on them gives `after`
    expected = np.where(g == "a", expit(result.alpha * s - 2.0), s)
    np.testing.assert_allclose(result.scores.to_numpy(), expected, atol=1e-15)
    np.testing.assert_allclose(
        survfair.xauc(y, g, result.scores).values, result.after.values, atol=1e-15
    )
    # no alpha on a fine grid does better than the optimum
    for alpha in np.linspace(0, 5, 41):
        trial = survfair.xauc(y, g, np.where(g == "a", expit(alpha * s - 2.0), s))
        assert abs(after) <= abs(survfair.delta_between(trial, "a", "b").value) + 1e-12


def test_logistic_adjustment_table_layout_and_alignment():
    y, g, s = shifted_groups(2, n=800)
    index = pd.Index(np.arange(800) * 3)
    frame = pd.DataFrame({"y": y, "g": g, "s": s}, index=index)
    result = logistic_adjustment(
        "y", "g", "s", "a", "b", data=frame, adjusted_group="b", alpha_bounds=(0.5, 3.0), grid=11
    )
    assert result.adjusted_group == "b" and 0.5 <= result.alpha <= 3.0
    assert result.scores.index.equals(index)
    np.testing.assert_array_equal(result.scores[frame.g == "a"], s[g == "a"])
    table = result.to_frame().set_index("metric")
    assert list(table.columns) == ["before", "after", "change"]
    assert list(table.index) == [
        "AUC",
        "AUC^a",
        "AUC^b",
        "xAUC(a, b)",
        "xAUC(b, a)",
        "ΔxAUC",
        "alpha",
    ]
    assert np.isnan(table.loc["alpha", "before"]) and table.loc["alpha", "after"] == result.alpha
    assert table.loc["AUC", "before"] == pytest.approx(result.before.overall)
    assert "LogisticAdjustment(" in repr(result)
    exported = json.loads(json.dumps(result.to_dict()))
    assert exported["alpha"] == result.alpha and exported["metrics"][0]["metric"] == "AUC"
    assert exported["metrics"][-1]["before"] is None  # alpha before: NaN -> null


@pytest.mark.parametrize("n", [2000, 20000])
def test_equal_opportunity_adjustment_proposition_2(n):
    rng = np.random.default_rng(3)
    g = rng.choice(["a", "b"], n)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.where(g == "a", 1.0 * y + rng.normal(size=n), 2.0 * y + 1.5 * rng.normal(size=n) + 0.5)
    result = equal_opportunity_adjustment(y, g, s, "a", "b")
    before, after = result.before.matrix, result.after.matrix
    # h is strictly increasing on group b, so the within-group AUCs are unchanged
    assert after.loc["a", "a"] == before.loc["a", "a"]
    assert after.loc["b", "b"] == pytest.approx(before.loc["b", "b"], abs=1e-14)
    # Proposition 2: xAUC(a, b) -> AUC^b, xAUC(b, a) -> AUC^a, so ΔxAUC = AUC^b - AUC^a
    tolerance = 4.0 / n  # O(1/n): discreteness of the empirical distributions
    assert after.loc["a", "b"] == pytest.approx(before.loc["b", "b"], abs=tolerance)
    assert after.loc["b", "a"] == pytest.approx(before.loc["a", "a"], abs=tolerance)
    delta = survfair.delta_between(result.after, "a", "b").value
    assert delta == pytest.approx(result.predicted_delta, abs=2 * tolerance)
    assert abs(delta) < abs(survfair.delta_between(result.before, "a", "b").value)
    # equal TPR at every threshold inside the positives' range (up to one positive's mass)
    pos_a, pos_b = s[(g == "a") & (y == 1)], result.scores.to_numpy()[(g == "b") & (y == 1)]
    for theta in np.quantile(pos_a, [0.1, 0.3, 0.5, 0.7, 0.9]):
        assert np.mean(pos_b > theta) == pytest.approx(
            np.mean(pos_a > theta), abs=3.0 / min(pos_a.size, pos_b.size)
        )
    table = result.to_frame().set_index("metric")
    assert table.loc["AUC^b - AUC^a (Prop. 2)", "after"] == pytest.approx(result.predicted_delta)
    np.testing.assert_array_equal(result.scores[g == "a"], s[g == "a"])


def test_equal_opportunity_with_ties_and_unequal_sizes_is_monotone():
    rng = np.random.default_rng(4)
    n = 600
    g = np.where(rng.random(n) < 0.25, "a", "b")  # group a is small
    y = (rng.random(n) < 0.5).astype(int)
    s = np.round(rng.normal(size=n) + y + (g == "b"), 1)
    result = equal_opportunity_adjustment(y, g, s, "a", "b")
    b_scores, adjusted = s[g == "b"], result.scores.to_numpy()[g == "b"]
    order = np.argsort(b_scores, kind="stable")
    diffs_in, diffs_out = np.diff(b_scores[order]), np.diff(adjusted[order])
    assert np.all(diffs_out[diffs_in > 0] > 0) and np.all(diffs_out[diffs_in == 0] == 0)
    assert result.after.matrix.loc["b", "b"] == pytest.approx(
        result.before.matrix.loc["b", "b"], abs=1e-14
    )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"a": "a", "b": "a"}, ValueError, "a and b must be different groups"),
        ({"a": "z"}, ValueError, r"a: group 'z' does not occur"),
        ({"adjusted_group": "c"}, ValueError, r"adjusted_group must be one of the pair"),
        ({"alpha_bounds": (3.0, 1.0)}, ValueError, "alpha_bounds must be finite with low < high"),
        ({"alpha_bounds": "x"}, TypeError, "alpha_bounds must be a pair"),
        ({"beta": "x"}, TypeError, "beta must be a finite number"),
        ({"grid": 1}, ValueError, "grid must be an integer >= 2"),
    ],
    ids=["same", "unknown", "adjust", "bounds-order", "bounds-type", "beta", "grid"],
)
def test_logistic_validation(kwargs, error, match):
    y, g, s = shifted_groups(5, n=100)
    args = {"a": "a", "b": "b"}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        logistic_adjustment(y, g, s, args.pop("a"), args.pop("b"), **args)


def test_group_without_negatives_is_rejected():
    y = np.array([1, 0, 1, 0, 1, 1])
    g = np.array(["a", "a", "a", "b", "c", "c"])
    with pytest.raises(ValueError, match="group 'c' needs positives and negatives"):
        equal_opportunity_adjustment(y, g, np.arange(6.0), "a", "c")


@pytest.mark.parametrize(
    "adjustment",
    [logistic_adjustment, equal_opportunity_adjustment],
    ids=["logistic", "equal-opportunity"],
)
def test_adjustments_warn_when_the_score_is_oriented_against_positive(adjustment):
    y, g, s = shifted_groups(4, n=600)
    with pytest.warns(
        UserWarning, match=r"pooled AUC is 0\.\d+ < 0\.5.*oriented against positive=0"
    ):
        adjustment(y, g, s, "a", "b", positive=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        adjustment(y, g, s, "a", "b")  # the right orientation: no warning
