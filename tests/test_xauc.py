"""Tests of the binary xAUC family: brute force, sklearn, xCI encoding, DeLong, Prop. 1, curves."""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss, roc_auc_score

import survfair
from survfair import (
    UndefinedXAUCWarning,
    auc_decomposition,
    balanced_xauc,
    balanced_xroc,
    conditional_xauc,
    delta_balanced_xauc,
    group_metrics,
    xauc,
    xroc,
)

TOL = 1e-8


# -- O(n^2) twins (tests only) -----------------------------------------------------------------
def _psi(r_pos, r_neg, tol=TOL):
    """Pairwise kernel matrix 1[r_i > r_j] + 1/2 1[|r_i - r_j| <= tol],
    shape (len(r_pos), len(r_neg))."""
    diff = r_pos[:, None] - r_neg[None, :]
    return np.where(np.abs(diff) <= tol, 0.5, (diff > 0).astype(float))


def brute_matrix(y, g, s, groups):
    out = np.full((len(groups), len(groups)), np.nan)
    for i, a in enumerate(groups):
        for j, b in enumerate(groups):
            p, n = s[(y == 1) & (g == a)], s[(y == 0) & (g == b)]
            if p.size and n.size:
                out[i, j] = _psi(p, n).mean()
    return out


def brute_delong(y, g, s, groups):
    """Covariance of all cells from placement values computed pair by pair."""
    k = len(groups)
    v10, v01 = {}, {}
    for a in groups:
        for b in groups:
            p, n = s[(y == 1) & (g == a)], s[(y == 0) & (g == b)]
            psi = _psi(p, n)
            v10[a, b] = psi.mean(axis=1)  # one per positive of a
            v01[a, b] = psi.mean(axis=0)  # one per negative of b
    cov = np.zeros((k * k, k * k))
    cells = [(a, b) for a in groups for b in groups]
    for x, (a, b) in enumerate(cells):
        for z, (c, d) in enumerate(cells):
            value = 0.0
            if a == c:
                m = v10[a, b].size
                value += (
                    np.sum((v10[a, b] - v10[a, b].mean()) * (v10[c, d] - v10[c, d].mean()))
                    / (m - 1)
                    / m
                )
            if b == d:
                n = v01[a, b].size
                value += (
                    np.sum((v01[a, b] - v01[a, b].mean()) * (v01[c, d] - v01[c, d].mean()))
                    / (n - 1)
                    / n
                )
            cov[x, z] = value
    return cov


def brute_balanced(y, s, mask_pos, mask_neg):
    """Value and DeLong variance of P[R_1 > R_0] for positives in mask_pos vs negatives in
    mask_neg."""
    psi = _psi(s[(y == 1) & mask_pos], s[(y == 0) & mask_neg])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return psi.mean(), v10.var(ddof=1) / v10.size + v01.var(ddof=1) / v01.size


def make_data(seed, n=300, n_groups=3, decimals=1):
    rng = np.random.default_rng(seed)
    labels = np.array(list("abcdefgh")[:n_groups])
    g = rng.choice(labels, n)
    y = (rng.random(n) < 0.45).astype(int)
    shift = {lab: 0.3 * k for k, lab in enumerate(labels)}
    s = np.round(rng.normal(size=n) + 1.2 * y + np.vectorize(shift.get)(g), decimals)  # many ties
    return y, g, s, list(labels)


# -- values -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_groups", [1, 2, 3, 5], ids=lambda k: f"G{k}")
@pytest.mark.parametrize("seed", [0, 1])
def test_matrix_equals_brute_force_with_ties(seed, n_groups):
    y, g, s, groups = make_data(seed, n_groups=n_groups)
    res = xauc(y, g, s)
    assert res.groups == tuple(groups)
    np.testing.assert_allclose(res.values, brute_matrix(y, g, s, groups), rtol=0, atol=1e-12)
    counts = res.counts
    for row in counts.itertuples():
        p, n = s[(y == 1) & (g == row.a)], s[(y == 0) & (g == row.b)]
        assert row.pairs == p.size * n.size
        assert row.concordant == np.sum(p[:, None] > n[None, :] + TOL)
        assert row.tied_score == np.sum(np.abs(p[:, None] - n[None, :]) <= TOL)
        assert row.discordant == row.pairs - row.concordant - row.tied_score


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_within_group_and_population_auc_equal_sklearn(seed):
    y, g, s, groups = make_data(seed, n=500, n_groups=3)
    res = xauc(y, g, s)
    for a in groups:
        assert abs(res.matrix.loc[a, a] - roc_auc_score(y[g == a], s[g == a])) <= 1e-12
        assert abs(res.within[a] - roc_auc_score(y[g == a], s[g == a])) <= 1e-12
    assert abs(res.overall - roc_auc_score(y, s)) <= 1e-12


def test_xauc_equals_naive_xci_of_survival_encoding():
    y, g, s, groups = make_data(3, n=400, n_groups=3)
    res = xauc(y, g, s)
    encoded = survfair.xci(1.0 - y, y, g, s, method="naive")
    np.testing.assert_allclose(res.values, encoded.values, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(res.pair_counts.comparable, encoded.pair_counts.comparable)
    np.testing.assert_array_equal(res.pair_counts.tied_risk, encoded.pair_counts.tied_risk)
    # ... and the encoding's comparable pairs are exactly the (positive, negative) pairs
    n_pos = np.array([np.sum((y == 1) & (g == a)) for a in groups])
    n_neg = np.array([np.sum((y == 0) & (g == b)) for b in groups])
    np.testing.assert_array_equal(encoded.pair_counts.comparable, np.outer(n_pos, n_neg))


def test_labels_strings_booleans_and_dataframe_columns():
    y, g, s, groups = make_data(4, n=200, n_groups=2)
    base = xauc(y, g, s)
    frame = pd.DataFrame(
        {
            "outcome": np.where(y == 1, "yes", "no"),
            "grp": g,
            "sex": np.where(np.arange(200) % 2, "F", "M"),
            "p": s,
        },
        index=pd.RangeIndex(1000, 1200),
    )
    named = xauc("outcome", "grp", "p", data=frame, positive="yes")
    np.testing.assert_array_equal(named.values, base.values)
    np.testing.assert_array_equal(xauc(y.astype(bool), g, s, positive=True).values, base.values)
    # the negative label may be the "positive" one: xAUC of the reversed question
    flipped = xauc(y, g, -s, positive=0)
    np.testing.assert_allclose(flipped.values, base.values.T, atol=1e-12)
    both = xauc("outcome", ["grp", "sex"], "p", data=frame, positive="yes")
    assert set(both.groups) == {"a|F", "a|M", "b|F", "b|M"}
    assert conditional_xauc(named, "a", "b").index.equals(frame.index)


@pytest.mark.filterwarnings(
    "ignore:the pooled AUC:UserWarning"
)  # random scores, either orientation
@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(-5, 5)), min_size=6, max_size=40
    ),
    st.integers(0, 10_000),
)
def test_property_brute_force_transform_and_permutation(rows, seed):
    y, g, s = (np.array(col) for col in zip(*rows))
    if y.min() == y.max():
        return
    groups = sorted(set(g.tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedXAUCWarning)
        res = xauc(y, g, s.astype(float))
        transformed = xauc(y, g, np.exp(s / 3.0))  # strictly increasing transform
        perm = np.random.default_rng(seed).permutation(len(y))
        permuted = xauc(y[perm], g[perm], s[perm].astype(float))
    np.testing.assert_allclose(res.values, brute_matrix(y, g, s.astype(float), groups), atol=1e-12)
    np.testing.assert_allclose(transformed.values, res.values, atol=1e-12)
    np.testing.assert_allclose(permuted.values, res.values, atol=1e-12)


# -- DeLong -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_groups", [1, 2, 3])
def test_delong_covariance_equals_direct_placement_computation(n_groups):
    y, g, s, groups = make_data(5, n=250, n_groups=n_groups)
    res = xauc(y, g, s)
    np.testing.assert_allclose(
        res.covariance, brute_delong(y, g, s, groups), rtol=1e-10, atol=1e-14
    )
    np.testing.assert_allclose(
        res.se.to_numpy() ** 2, np.diag(res.covariance).reshape(res.values.shape)
    )


def test_delong_single_auc_textbook_formula():
    # one group: var = S10 / m + S01 / n with S = sample variance of the placement values
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 120)
    s = np.round(rng.normal(size=120) + y, 1)
    res = xauc(y, np.zeros(120), s)
    psi = _psi(s[y == 1], s[y == 0])
    expected = (
        psi.mean(axis=1).var(ddof=1) / psi.shape[0] + psi.mean(axis=0).var(ddof=1) / psi.shape[1]
    )
    assert abs(res.covariance[0, 0] - expected) <= 1e-15


def test_delta_between_of_xauc_uses_the_delong_covariance():
    y, g, s, groups = make_data(7, n=400, n_groups=3)
    res = xauc(y, g, s)
    k = len(groups)
    ab, ba, aa = 0 * k + 1, 1 * k + 0, 0
    assert res.covariance[ab, ba] == 0.0  # disjoint samples
    assert res.covariance[ab, aa] != 0.0  # shared positives of group a
    est = survfair.delta_between(res, "a", "b")
    assert est.value == pytest.approx(
        res.matrix.loc["a", "b"] - res.matrix.loc["b", "a"], abs=1e-15
    )
    assert est.se == pytest.approx(
        math.sqrt(res.covariance[ab, ab] + res.covariance[ba, ba]), rel=1e-12
    )
    z = 1.959963984540054
    assert est.confidence_interval.low == pytest.approx(est.value - z * est.se, rel=1e-9)
    assert 0 <= est.p_value <= 1 and est.null == 0.0
    assert isinstance(est, survfair.Estimate)
    assert survfair.delta_between(res, "b", "a").value == pytest.approx(-est.value)
    # AUC^a - AUC^b: the summaries read the DeLong covariance (checked against the brute one)
    within = survfair.delta_within(res, "a", "b")
    cov = brute_delong(y, g, s, groups)
    bb = 1 * k + 1
    assert within.se == pytest.approx(
        math.sqrt(cov[aa, aa] + cov[bb, bb] - 2 * cov[aa, bb]), rel=1e-10
    )


def test_delong_interval_coverage_small_monte_carlo():
    rng = np.random.default_rng(8)
    truth = 0.5 * (1 + math.erf(1.0 / 2))  # P[N(1,1) > N(0,1)] = Phi(1/sqrt(2))
    covered, n_rep = 0, 200
    for _ in range(n_rep):
        y = rng.integers(0, 2, 150)
        s = rng.normal(size=150) + y
        res = xauc(y, np.zeros(150), s)
        low, high = res.confidence_interval()
        covered += low.iloc[0, 0] <= truth <= high.iloc[0, 0]
    assert 0.88 <= covered / n_rep <= 0.99


# -- balanced xAUC and Proposition 1 ------------------------------------------------------------
def test_balanced_xauc_values_and_delong_variances_equal_brute_force():
    y, g, s, groups = make_data(9, n=300, n_groups=3)
    res = xauc(y, g, s)
    table = balanced_xauc(res)
    everyone = np.ones(len(y), bool)
    for a in groups:
        value1, var1 = brute_balanced(y, s, g == a, everyone)
        value0, var0 = brute_balanced(y, s, everyone, g == a)
        assert table.loc[a, "xauc1"] == pytest.approx(value1, abs=1e-12)
        assert table.loc[a, "xauc0"] == pytest.approx(value0, abs=1e-12)
        assert table.loc[a, "xauc1_se"] ** 2 == pytest.approx(var1, rel=1e-10)
        assert table.loc[a, "xauc0_se"] ** 2 == pytest.approx(var0, rel=1e-10)
    # disparity across groups: shared negatives covary (xAUC^1), checked against brute placement
    # values
    psi_a = _psi(s[(y == 1) & (g == "a")], s[y == 0])
    psi_b = _psi(s[(y == 1) & (g == "b")], s[y == 0])
    _, var_a = brute_balanced(y, s, g == "a", everyone)
    _, var_b = brute_balanced(y, s, g == "b", everyone)
    cov = np.cov(psi_a.mean(axis=0), psi_b.mean(axis=0))[0, 1] / psi_a.shape[1]
    est = delta_balanced_xauc(res, "a", "b", outcome=1)
    assert est.value == pytest.approx(psi_a.mean() - psi_b.mean(), abs=1e-12)
    assert est.se**2 == pytest.approx(var_a + var_b - 2 * cov, rel=1e-10)
    est0 = delta_balanced_xauc(res, "a", "b", outcome=0)
    assert est0.value == pytest.approx(table.loc["a", "xauc0"] - table.loc["b", "xauc0"], abs=1e-12)


def test_proposition_1_decompositions_sum_to_population_auc():
    y, g, s, groups = make_data(10, n=500, n_groups=4)
    res = xauc(y, g, s)
    frame = auc_decomposition(res)
    assert set(frame["decomposition"]) == {"cells", "positives", "negatives"}
    for _, part in frame.groupby("decomposition"):
        assert part["weight"].sum() == pytest.approx(1.0, abs=1e-12)
        assert part["contribution"].sum() == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    cells = frame[frame.decomposition == "cells"]
    a, b = "a", "c"
    row = cells[(cells.a == a) & (cells.b == b)].iloc[0]
    share = np.mean(g[y == 1] == a) * np.mean(g[y == 0] == b)
    assert row.weight == pytest.approx(share, abs=1e-15)


# -- xROC ---------------------------------------------------------------------------------------
def test_xroc_area_equals_xauc_with_ties():
    y, g, s, groups = make_data(11, n=300, n_groups=2, decimals=0)  # heavy ties
    res = xauc(y, g, s)
    for a in groups:
        for b in groups:
            curve = xroc(res, a, b)
            assert curve.area == pytest.approx(res.matrix.loc[a, b], abs=1e-12)
            assert (
                curve.fpr[0] == 0
                and curve.tpr[0] == 0
                and curve.fpr[-1] == 1
                and curve.tpr[-1] == 1
            )
            assert np.all(np.diff(curve.thresholds) < 0) and np.isinf(curve.thresholds[0])
            # definition 1: TPR of a's positives and FPR of b's negatives at each threshold
            theta = curve.thresholds[3]
            pos, neg = s[(y == 1) & (g == a)], s[(y == 0) & (g == b)]
            assert curve.tpr[3] == pytest.approx(np.mean(pos >= theta))
            assert curve.fpr[3] == pytest.approx(np.mean(neg >= theta))
    table = balanced_xauc(res)
    for a in groups:
        assert balanced_xroc(res, a, outcome=1).area == pytest.approx(
            table.loc[a, "xauc1"], abs=1e-12
        )
        assert balanced_xroc(res, a, outcome=0).area == pytest.approx(
            table.loc[a, "xauc0"], abs=1e-12
        )
    frame = xroc(res, "a", "b").to_frame()
    assert list(frame.columns) == ["threshold", "fpr", "tpr"]
    with pytest.raises(ValueError):
        xroc(res, "a", "b").fpr[0] = 1.0


# -- conditional xAUC ---------------------------------------------------------------------------
def test_conditional_xauc_aligned_and_means_equal_xauc():
    y, g, s, groups = make_data(12, n=200, n_groups=3)
    index = pd.Index([f"r{k}" for k in range(200)])
    res = xauc(pd.Series(y, index=index), pd.Series(g, index=index), pd.Series(s, index=index))
    for a, b in [("a", "b"), ("c", "a"), ("b", "b")]:
        neg = conditional_xauc(res, a, b)
        pos = conditional_xauc(res, a, b, role="positive")
        assert neg.index.equals(index) and pos.index.equals(index)
        in_neg = (y == 0) & (g == b)
        in_pos = (y == 1) & (g == a)
        assert neg.notna().to_numpy().tolist() == in_neg.tolist()
        assert pos.notna().to_numpy().tolist() == in_pos.tolist()
        assert neg.mean() == pytest.approx(res.matrix.loc[a, b], abs=1e-12)
        assert pos.mean() == pytest.approx(res.matrix.loc[a, b], abs=1e-12)
        psi = _psi(s[in_pos], s[in_neg])
        np.testing.assert_allclose(neg[in_neg].to_numpy(), psi.mean(axis=0), atol=1e-14)
        np.testing.assert_allclose(pos[in_pos].to_numpy(), psi.mean(axis=1), atol=1e-14)


# -- Table 1 metrics ----------------------------------------------------------------------------
def test_group_metrics_auc_and_brier():
    rng = np.random.default_rng(13)
    n = 400
    g = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    p = np.clip(0.5 + 0.25 * (y - 0.5) + 0.2 * rng.normal(size=n), 0, 1)
    table = group_metrics(xauc(y, g, p))
    for a in ("a", "b"):
        m = g == a
        assert table.loc[a, "auc"] == pytest.approx(roc_auc_score(y[m], p[m]), abs=1e-12)
        assert table.loc[a, "brier"] == pytest.approx(brier_score_loss(y[m], p[m]), abs=1e-12)
        assert table.loc[a, "brier_se"] == pytest.approx(
            ((p[m] - y[m]) ** 2).std(ddof=1) / math.sqrt(m.sum())
        )
        assert table.loc[a, "n"] == m.sum() and table.loc[a, "positives"] == y[m].sum()
    with pytest.warns(UserWarning, match="not probabilities"):
        table = group_metrics(xauc(y, g, p * 3 - 1))
    assert table["brier"].isna().all() and table["auc"].notna().all()


# -- result object ------------------------------------------------------------------------------
def test_result_is_frozen_readable_and_exports():
    y, g, s, _ = make_data(14, n=150, n_groups=2)
    res = xauc(y, g, s)
    assert "XAUCResult(" in repr(res) and "('a', 'b')" in repr(res)
    with pytest.raises(Exception):
        res.groups = ("x",)
    with pytest.raises(ValueError):
        res.covariance[0, 0] = 1.0
    frame = res.to_frame()
    assert list(frame.columns[:4]) == ["a", "b", "positives", "negatives"] and list(
        frame.columns[-2:]
    ) == ["ci_high", "small_sample"]
    assert res.matrix.index.name == "a (positive)" and res.matrix.columns.name == "b (negative)"
    json.dumps(res.to_dict())
    low, high = res.confidence_interval(0.5)
    low95, high95 = res.confidence_interval()
    assert (high - low).to_numpy().sum() < (high95 - low95).to_numpy().sum()


@pytest.mark.filterwarnings("ignore:the pooled AUC:UserWarning")
def test_empty_cell_is_nan_with_warning():
    y = np.array([1, 0, 1, 1, 0, 1, 0])
    g = np.array(["a", "a", "b", "b", "a", "a", "a"])  # group b has no negative
    s = np.arange(7.0)
    with pytest.warns(UndefinedXAUCWarning, match=r"\('a', 'b'\)"):
        res = xauc(y, g, s)
    assert np.isnan(res.matrix.loc["a", "b"]) and np.isnan(res.matrix.loc["b", "b"])
    assert not np.isnan(res.matrix.loc["b", "a"])
    with pytest.raises(ValueError, match="has no negative"):
        xroc(res, "a", "b")


# -- validation ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"y": [1, 0, 2, 0, 1, 0]}, ValueError, r"exactly two classes.*\[2\] at rows \[2\]"),
        ({"y": [1, 1, 1, 1, 1, 1]}, ValueError, "no negatives"),
        ({"y": [1, 0, 1, 0, 1, 0], "positive": 2}, ValueError, r"positive=2 does not occur in y"),
        ({"y": [1, 0, np.nan, 0, 1, 0]}, ValueError, r"y contains missing values at rows \[2\]"),
        (
            {"y": [1, 0, 1, 0, 1]},
            ValueError,
            "mismatched lengths: y has 5, group has 6, score has 6",
        ),
        (
            {"score": [0.1, np.nan, 0.3, 0.4, 0.5, 0.6]},
            ValueError,
            r"score contains NaN.*rows \[1\]",
        ),
        ({"score": ["x", "y", "z", "x", "y", "z"]}, TypeError, "score must be numeric"),
        ({"positive": [1]}, TypeError, "positive must be a single label"),
        ({"tied_tol": -1.0}, ValueError, "tied_tol must be"),
        (
            {"confidence_level": 1.5},
            ValueError,
            r"confidence_level must be a number in \(0, 1\), got 1.5",
        ),
        (
            {"group": ["a", None, "a", "b", "b", "b"]},
            ValueError,
            r"group contains missing labels at rows \[1\]",
        ),
    ],
    ids=[
        "three-classes",
        "one-class",
        "positive-absent",
        "y-nan",
        "lengths",
        "score-nan",
        "score-type",
        "positive-type",
        "tied-tol",
        "level",
        "group-missing",
    ],
)
def test_validation_errors(kwargs, error, match):
    args = {
        "y": [1, 0, 1, 0, 1, 0],
        "group": ["a", "a", "a", "b", "b", "b"],
        "score": [0.9, 0.1, 0.8, 0.3, 0.6, 0.2],
    }
    args.update(kwargs)
    y, group, score = args.pop("y"), args.pop("group"), args.pop("score")
    with pytest.raises(error, match=match):
        xauc(y, group, score, **args)


def test_validation_of_summary_arguments():
    y, g, s, _ = make_data(15, n=100, n_groups=2)
    res = xauc(y, g, s)
    with pytest.raises(ValueError, match="group 'z' is not in the result"):
        survfair.delta_between(res, "a", "z")
    with pytest.raises(ValueError, match="role must be one of"):
        conditional_xauc(res, "a", "b", role="both")
    with pytest.raises(ValueError, match="outcome must be 1"):
        balanced_xroc(res, "a", outcome=2)
    with pytest.raises(ValueError, match="outcome must be 1"):
        delta_balanced_xauc(res, "a", "b", outcome=-1)
    with pytest.raises(ValueError, match="column 'nope' is not in data"):
        xauc("nope", "g", "s", data=pd.DataFrame({"g": g, "s": s}))


# -- command-line rendering ---------------------------------------------------------------------
def _parser():
    import argparse

    from survfair.cli._binary import add_binary_arguments

    parser = argparse.ArgumentParser()
    parser.add_argument("--group", action="append")
    for name in ("--risk", "--time", "--event"):
        parser.add_argument(name)
    parser.add_argument("--format", default="table")
    add_binary_arguments(parser)
    return parser


def test_cli_binary_report_and_horizon_table():
    from survfair.cli import CLIError
    from survfair.cli._binary import horizon_table, run_binary_audit

    y, g, s, _ = make_data(16, n=300, n_groups=3)
    rng = np.random.default_rng(16)
    frame = pd.DataFrame(
        {
            "dead": np.where(y == 1, "yes", "no"),
            "grp": g,
            "score": s,
            "t": rng.exponential(size=300) + 0.01,
            "e": rng.integers(0, 2, 300),
        }
    )
    args = _parser().parse_args(
        ["--binary", "--outcome", "dead", "--positive", "yes", "--group", "grp", "--risk", "score"]
    )
    text = run_binary_audit(args, frame)
    res = xauc(frame.dead, g, s, positive="yes")
    assert f"{res.matrix.loc['a', 'b']:.3f}" in text and "Balanced xAUC" in text
    estimate = survfair.delta_between(res, "b", "c")
    assert (
        f"{estimate.value:.4f}" in text
    )  # every pair's ΔxAUC is printed, (a, b) in the group order, signed a - b
    assert json.loads(
        run_binary_audit(
            _parser().parse_args(
                [
                    "--binary",
                    "--outcome",
                    "dead",
                    "--positive",
                    "yes",
                    "--group",
                    "grp",
                    "--risk",
                    "score",
                    "--format",
                    "json",
                ]
            ),
            frame,
        )
    )["overall"] == pytest.approx(res.overall)
    with pytest.raises(CLIError, match="--positive 'maybe' does not occur"):
        run_binary_audit(
            _parser().parse_args(
                [
                    "--binary",
                    "--outcome",
                    "dead",
                    "--positive",
                    "maybe",
                    "--group",
                    "grp",
                    "--risk",
                    "score",
                ]
            ),
            frame,
        )
    with pytest.raises(CLIError, match="needs --outcome"):
        run_binary_audit(
            _parser().parse_args(["--binary", "--group", "grp", "--risk", "score"]), frame
        )
    args = _parser().parse_args(
        [
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "grp",
            "--risk",
            "score",
            "--horizon",
            "0.5",
            "--horizon",
            "1.0",
        ]
    )
    table = horizon_table(args, frame)
    expected = survfair.xauc_t("t", "e", "grp", "score", [0.5, 1.0], data=frame).to_frame()
    assert "t = 0.5" in table and "t = 1" in table
    assert f"{expected['xauc'].iloc[1]:.4f}" in table
    assert horizon_table(_parser().parse_args(["--group", "grp"]), frame) == ""


def test_groups_subset_and_order_as_in_xci():
    y, g, s, _ = make_data(3, n=300, n_groups=3)
    with pytest.warns(survfair.ExcludedRowsWarning, match=r"rows belong to groups not listed"):
        res = xauc(y, g, s, groups=["c", "a"])
    assert res.groups == ("c", "a")
    keep = np.isin(g, ["c", "a"])
    full = xauc(y[keep], g[keep], s[keep])
    assert res.matrix.loc["c", "a"] == full.matrix.loc["c", "a"]
    with pytest.raises(ValueError, match=r"groups: labels \['z'\] do not occur"):
        xauc(y, g, s, groups=["z"])


# -- one interval rule for every probability-scale estimate (issue 19) ---------------------------
def _small_high_auc():
    """12 rows in which xAUC^1(a) = 0.952 with se 0.068: the raw Wald limit was 1.084."""
    y = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0])
    g = np.array(["a"] * 6 + ["b"] * 6)
    s = np.array([0.9, 0.8, 0.95, 0.1, 0.2, 0.85, 0.3, 0.6, 0.5, 0.4, 0.2, 0.7])
    return y, g, s


def test_balanced_xauc_interval_is_logit_wald_and_stays_in_unit_interval():
    from survfair._core.intervals import cell_wald_interval

    y, g, s = _small_high_auc()
    table = balanced_xauc(xauc(y, g, s))
    z = 1.959963984540054
    assert table.loc["a", "xauc1"] + z * table.loc["a", "xauc1_se"] > 1.05  # the old limit passed 1
    for outcome in (1, 0):
        low, high = table[f"xauc{outcome}_ci_low"], table[f"xauc{outcome}_ci_high"]
        assert (
            (0 <= low)
            & (low <= table[f"xauc{outcome}"])
            & (table[f"xauc{outcome}"] <= high)
            & (high <= 1)
        ).all()
        expected = cell_wald_interval(
            table[f"xauc{outcome}"].to_numpy(), table[f"xauc{outcome}_se"].to_numpy(), 0.95
        )
        np.testing.assert_array_equal(low.to_numpy(), expected[0])
        np.testing.assert_array_equal(high.to_numpy(), expected[1])
    # another level, and the rule's boundary case: a value of 1 with se 0 gets [1, 1]
    y, g, s, _ = make_data(9, n=300, n_groups=3)
    res = xauc(y, g, s)
    table = balanced_xauc(res, confidence_level=0.8)
    expected = cell_wald_interval(table["xauc0"].to_numpy(), table["xauc0_se"].to_numpy(), 0.8)
    np.testing.assert_array_equal(table["xauc0_ci_low"].to_numpy(), expected[0])
    perfect = balanced_xauc(
        xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4, [4, 3, 1, 0, 5, 6, 2, -1])
    )
    assert (
        (perfect["xauc1"] == 1).all()
        and (perfect["xauc1_ci_low"] == 1).all()
        and (perfect["xauc1_ci_high"] == 1).all()
    )


def test_group_metrics_auc_interval_equals_the_matrix_diagonal():
    y, g, s = _small_high_auc()
    res = xauc(y, g, s)
    table = group_metrics(res, confidence_level=0.9)
    low, high = res.confidence_interval(0.9)
    np.testing.assert_array_equal(table["auc_ci_low"].to_numpy(), np.diag(low.to_numpy()))
    np.testing.assert_array_equal(table["auc_ci_high"].to_numpy(), np.diag(high.to_numpy()))
    np.testing.assert_array_equal(table["auc_se"].to_numpy(), np.diag(res.se.to_numpy()))
    for name in ("auc", "xauc_vs_others", "xauc_others_vs", "xauc1", "xauc0"):
        assert ((0 <= table[f"{name}_ci_low"]) & (table[f"{name}_ci_high"] <= 1)).all(), name


@pytest.mark.parametrize("n_groups", [1, 3])
def test_overall_estimate_is_delong_of_the_pooled_auc(n_groups):
    from survfair._core.intervals import cell_wald_interval

    y, g, s, groups = make_data(17, n=300, n_groups=n_groups)
    res = xauc(y, g, s)
    est = res.overall_estimate()
    everyone = np.ones(len(y), bool)
    value, variance = brute_balanced(y, s, everyone, everyone)
    assert est.value == pytest.approx(roc_auc_score(y, s), abs=1e-12) and est.value == res.overall
    assert est.se**2 == pytest.approx(variance, rel=1e-10)
    low, high = cell_wald_interval(np.array([est.value]), np.array([est.se]), 0.95)
    assert (est.confidence_interval.low, est.confidence_interval.high) == (low[0], high[0])
    assert est.null == 0.5 and est.p_value == pytest.approx(
        2 * (1 - 0.5 * (1 + math.erf(abs(est.value - 0.5) / est.se / math.sqrt(2)))), rel=1e-9
    )
    if n_groups == 1:  # a single group: the pooled AUC is the one cell, with its DeLong se
        assert est.se == pytest.approx(res.se.iloc[0, 0], rel=1e-12)
    assert res.overall_estimate(confidence_level=0.5).confidence_interval.high < high[0]
    exported = res.to_dict()
    assert (
        exported["overall"] == res.overall and "auc" not in exported
    )  # one name: overall, as on the object
    assert (
        exported["overall_se"] == est.se
        and exported["overall_ci_low"] == low[0]
        and exported["overall_ci_high"] == high[0]
    )
    with pytest.raises(TypeError, match="null must be a finite number"):
        res.overall_estimate(null="0.5")


# -- group_metrics: the cross-group rows of Table 1 ---------------------------------------------
@pytest.mark.filterwarnings("ignore:scores are not probabilities:UserWarning")
def test_group_metrics_cross_group_rows_equal_matrix_cells_with_two_groups():
    y, g, s, _ = make_data(18, n=400, n_groups=2)
    res = xauc(y, g, s)
    table = group_metrics(res)
    low, high = res.confidence_interval()
    for a, b in (("a", "b"), ("b", "a")):
        assert table.loc[a, "xauc_vs_others"] == pytest.approx(res.matrix.loc[a, b], abs=1e-15)
        assert table.loc[a, "xauc_others_vs"] == pytest.approx(res.matrix.loc[b, a], abs=1e-15)
        assert table.loc[a, "xauc_vs_others_se"] == pytest.approx(res.se.loc[a, b], rel=1e-12)
        assert table.loc[a, "xauc_others_vs_se"] == pytest.approx(res.se.loc[b, a], rel=1e-12)
        assert table.loc[a, "xauc_vs_others_ci_low"] == pytest.approx(low.loc[a, b], rel=1e-12)
        assert table.loc[a, "xauc_others_vs_ci_high"] == pytest.approx(high.loc[b, a], rel=1e-12)
    # Table 1's layout: the "XAUC" row is xAUC(a, b) under a and xAUC(b, a) under b
    assert table.loc["b", "xauc_vs_others"] == table.loc["a", "xauc_others_vs"]
    assert list(table.columns[:9]) == [
        "n",
        "positives",
        "negatives",
        "auc",
        "auc_se",
        "auc_ci_low",
        "auc_ci_high",
        "brier",
        "brier_se",
    ]


@pytest.mark.filterwarnings("ignore:scores are not probabilities:UserWarning")
def test_group_metrics_cross_group_rows_pool_the_other_groups():
    y, g, s, groups = make_data(19, n=400, n_groups=3)
    table = group_metrics(xauc(y, g, s))
    for a in groups:
        value, variance = brute_balanced(y, s, g == a, g != a)
        assert table.loc[a, "xauc_vs_others"] == pytest.approx(value, abs=1e-12)
        assert table.loc[a, "xauc_vs_others_se"] ** 2 == pytest.approx(variance, rel=1e-10)
        value, variance = brute_balanced(y, s, g != a, g == a)
        assert table.loc[a, "xauc_others_vs"] == pytest.approx(value, abs=1e-12)
        assert table.loc[a, "xauc_others_vs_se"] ** 2 == pytest.approx(variance, rel=1e-10)
    single = group_metrics(xauc(y, np.zeros(len(y)), s))  # no other group: NaN, no crash
    assert single[["xauc_vs_others", "xauc_others_vs", "xauc_vs_others_ci_low"]].isna().all().all()


# -- orientation --------------------------------------------------------------------------------
def _probabilities(seed=20, n=400):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    return y, g, np.clip(0.5 + 0.25 * (y - 0.5) + 0.2 * rng.normal(size=n), 0, 1)  # P(y == 1)


def test_score_oriented_against_positive_is_warned():
    y, g, p = _probabilities()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right orientation: no warning at all
        res = xauc(y, g, p)
        group_metrics(res)
    with pytest.warns(
        UserWarning, match=r"pooled AUC is 0\.\d+ < 0\.5.*oriented against positive=0.*P\(y == 0\)"
    ):
        flipped = xauc(y, g, p, positive=0)
    assert flipped.overall == pytest.approx(1 - res.overall, abs=1e-12)
    with pytest.warns(
        UserWarning, match=r"Brier score compares it with 1\[y == 0\] and needs P\(y == 0\)"
    ):
        table = group_metrics(flipped)
    assert table["brier"].notna().all()  # still reported, but warned
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xauc(y, g, 1 - p, positive=0)  # P(y == 0) with positive=0 is fine


def test_orientation_warning_points_at_the_caller():
    y, g, p = _probabilities()
    with pytest.warns(UserWarning, match="oriented against") as caught:
        xauc(y, g, -p)
    assert caught[0].filename == __file__


# -- outcome coding -----------------------------------------------------------------------------
@pytest.mark.parametrize("n_groups", [2, 3])
def test_flipping_outcome_coding_and_negating_score_transposes_exactly(n_groups):
    y, g, s, groups = make_data(21, n=300, n_groups=n_groups)
    res = xauc(y, g, s)
    flipped = xauc(y, g, -s, positive=0)
    # xAUC_{positive=0, -s}(a, b) = xAUC_{positive=1, s}(b, a), standard errors included
    np.testing.assert_array_equal(flipped.values, res.values.T)
    np.testing.assert_array_equal(flipped.se.to_numpy(), res.se.to_numpy().T)
    assert flipped.overall == res.overall
    np.testing.assert_array_equal(flipped.within.to_numpy(), res.within.to_numpy())
    # ... and the balanced xAUCs swap: xAUC^1 <-> xAUC^0 per group
    before, after = balanced_xauc(res), balanced_xauc(flipped)
    for suffix in ("", "_se", "_ci_low", "_ci_high"):
        np.testing.assert_array_equal(
            after[f"xauc1{suffix}"].to_numpy(), before[f"xauc0{suffix}"].to_numpy()
        )
        np.testing.assert_array_equal(
            after[f"xauc0{suffix}"].to_numpy(), before[f"xauc1{suffix}"].to_numpy()
        )
    assert survfair.delta_between(flipped, "a", "b").value == pytest.approx(
        -survfair.delta_between(res, "a", "b").value, abs=1e-15
    )
    # without negating the score: the complement of the transposed matrix (and a warning)
    with pytest.warns(UserWarning, match="oriented against positive=0"):
        same_score = xauc(y, g, s, positive=0)
    np.testing.assert_allclose(same_score.values, 1 - res.values.T, rtol=0, atol=1e-15)
