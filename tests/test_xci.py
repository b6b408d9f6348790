"""The xCI estimator against its O(n^2) twin, scikit-survival, and Proposition 4.1."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _brute import brute_xci
from conftest import make_data
from sksurv.metrics import concordance_index_censored, concordance_index_ipcw
from sksurv.util import Surv

import survfair

CASES = [
    pytest.param(1, "naive", None, "group", False, id="1g-naive"),
    pytest.param(2, "naive", None, "group", False, id="2g-naive"),
    pytest.param(8, "naive", None, "group", False, id="8g-naive"),
    pytest.param(2, "naive", None, "group", True, id="2g-naive-strict"),
    pytest.param(
        1, "naive", 18.0, "group", False, id="1g-naive-tau"
    ),  # issue 33.6: naive truncates too
    pytest.param(3, "naive", 18.0, "group", False, id="3g-naive-tau"),
    pytest.param(2, "naive", 18.0, "group", True, id="2g-naive-tau-strict"),
    pytest.param(1, "ipcw", 18.0, "group", False, id="1g-ipcw-tau"),
    pytest.param(2, "ipcw", 18.0, "group", False, id="2g-ipcw-tau"),
    pytest.param(2, "ipcw", 18.0, "pooled", False, id="2g-ipcw-tau-pooled"),
    pytest.param(8, "ipcw", 18.0, "group", False, id="8g-ipcw-tau"),
    pytest.param(3, "ipcw", 18.0, "group", True, id="3g-ipcw-strict"),
    pytest.param(2, "ipcw", None, "group", False, id="2g-ipcw-notau-continuous"),
    pytest.param(8, "ipcw", None, "pooled", False, id="8g-ipcw-notau-pooled-continuous"),
]


@pytest.mark.parametrize("n_groups, method, tau, censoring, strict", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_brute_force(n_groups, method, tau, censoring, strict, seed):
    continuous = tau is None and method == "ipcw"  # tied last times would break positivity
    time, event, codes, risk = make_data(160, n_groups, seed, continuous=continuous)
    if continuous:  # no censoring at the very last time, so every K stays > 0
        event[np.argsort(time)[-4:]] = True
        for g in range(n_groups):
            event[np.flatnonzero(codes == g)[np.argmax(time[codes == g])]] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = survfair.xci(
            time, event, codes, risk, method=method, tau=tau, censoring=censoring, strict=strict
        )
    ref = brute_xci(
        time,
        event,
        codes,
        risk,
        n_groups,
        method=method,
        tau=tau,
        censoring=censoring,
        strict=strict,
    )
    pc = res.pair_counts
    for name in ("comparable", "concordant", "tied_risk", "tied_time"):
        np.testing.assert_array_equal(getattr(pc, name), ref[name], err_msg=name)
    np.testing.assert_allclose(pc.numerator, ref["numerator"], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(pc.denominator, ref["denominator"], rtol=1e-12, atol=1e-9)
    with np.errstate(invalid="ignore"):
        expected = np.where(
            ref["denominator"] > 0,
            ref["numerator"] / np.where(ref["denominator"] > 0, ref["denominator"], 1),
            np.nan,
        )
    np.testing.assert_allclose(res.values, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("tied_tol", [1e-8, 0.6])
def test_one_group_naive_equals_sksurv(seed, tied_tol):
    time, event, codes, risk = make_data(300, 1, seed)
    res = survfair.xci(time, event, codes, risk, method="naive", tied_tol=tied_tol)
    cindex, concordant, discordant, tied_risk, tied_time = concordance_index_censored(
        event, time, risk, tied_tol=tied_tol
    )
    row = res.counts.iloc[0]
    assert res.values[0, 0] == cindex
    assert res.overall == cindex
    assert (row.concordant, row.discordant, row.tied_risk, row.tied_time) == (
        concordant,
        discordant,
        tied_risk,
        tied_time,
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("tau", [10.0, 18.0, 23.5])
def test_one_group_ipcw_equals_sksurv(seed, tau):
    time, event, codes, risk = make_data(300, 1, seed)
    y = Surv.from_arrays(event=event, time=time)
    expected = concordance_index_ipcw(y, y, risk, tau=tau)
    for censoring in ("group", "pooled"):
        res = survfair.xci(y, None, codes, risk, method="ipcw", tau=tau, censoring=censoring)
        row = res.counts.iloc[0]
        assert abs(res.values[0, 0] - expected[0]) <= 1e-12
        assert (row.concordant, row.discordant, row.tied_risk, row.tied_time) == tuple(expected[1:])


def test_one_group_ipcw_without_tau_equals_sksurv():
    time, event, codes, risk = make_data(400, 1, 7, continuous=True)
    event[np.argmax(time)] = True
    y = Surv.from_arrays(event=event, time=time)
    expected = concordance_index_ipcw(y, y, risk)
    with pytest.warns(survfair.PositivityWarning, match="falls to"):
        res = survfair.xci(time, event, codes, risk)
    assert abs(res.values[0, 0] - expected[0]) <= 1e-12


def test_censoring_reference_equals_sksurv_survival_train():
    train = make_data(500, 1, 11)
    test = make_data(200, 1, 12)
    y_train = Surv.from_arrays(event=train[1], time=train[0])
    y_test = Surv.from_arrays(event=test[1], time=test[0])
    expected = concordance_index_ipcw(y_train, y_test, test[3], tau=20.0)
    res = survfair.xci(
        test[0],
        test[1],
        test[2],
        test[3],
        tau=20.0,
        censoring_reference=(train[0], train[1], train[2]),
    )
    assert abs(res.values[0, 0] - expected[0]) <= 1e-12


def test_censoring_reference_as_dataframe():
    time, event, codes, risk = make_data(300, 2, 3)
    frame = pd.DataFrame({"t": time, "e": event, "g": codes, "r": risk})
    ref = frame.sample(frac=1.0, random_state=0)
    a = survfair.xci("t", "e", "g", "r", data=frame, tau=20.0, censoring_reference=ref)
    b = survfair.xci("t", "e", "g", "r", data=frame, tau=20.0)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-14)


@pytest.mark.parametrize("method", ["naive", "ipcw"])
@pytest.mark.parametrize("n_groups", [1, 2, 8])
def test_proposition_4_1_decomposition(method, n_groups):
    time, event, codes, risk = make_data(400, n_groups, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = survfair.xci(time, event, codes, risk, method=method, tau=20.0)
    parts = survfair.decompose(res)
    assert parts["weight"].sum() == pytest.approx(1.0, abs=1e-12)
    assert parts["contribution"].sum() == pytest.approx(res.overall, abs=1e-12)
    defined = parts["xci"].notna()
    assert (parts.loc[defined, "weight"] * parts.loc[defined, "xci"]).sum() == pytest.approx(
        res.overall, abs=1e-12
    )
    if method == "naive":  # unit weights before tau (issue 33.6: the naive estimator truncates too)
        denominator = res.counts["denominator"]
        np.testing.assert_allclose(parts["weight"], denominator / denominator.sum(), rtol=1e-14)
        assert (denominator <= res.counts["comparable"]).all()
    assert np.nanmin(res.values) <= res.overall <= np.nanmax(res.values)


def test_pooled_c_equals_single_group_c():
    time, event, codes, risk = make_data(300, 3, 9)
    res = survfair.xci(time, event, codes, risk, method="naive")
    single = survfair.xci(time, event, np.zeros_like(codes), risk, method="naive")
    assert res.overall == pytest.approx(single.overall, abs=1e-15)


def test_summaries():
    time, event, codes, risk = make_data(400, 3, 2)
    res = survfair.xci(time, event, np.array(["x", "y", "z"])[codes], risk, tau=20.0, ci=None)
    m = res.matrix
    assert survfair.delta_within(res, "x", "y").value == pytest.approx(
        m.loc["x", "x"] - m.loc["y", "y"]
    )
    assert survfair.delta_between(res, "x", "z").value == pytest.approx(
        m.loc["x", "z"] - m.loc["z", "x"]
    )
    minimum = survfair.min_xci(res)
    assert minimum.value == m.to_numpy().min() and m.loc[minimum.a, minimum.b] == minimum.value
    u = survfair.utility(res, alpha=2.0, beta=0.5)
    expected = 2.0 * (m.loc["y", "x"] + m.loc["y", "z"]) + 0.5 * (m.loc["x", "y"] + m.loc["z", "y"])
    assert u.loc["y", "value"] == pytest.approx(expected)
    diag = np.diag(m.to_numpy())
    assert survfair.concordance_imparity(res) == pytest.approx(diag.max() - diag.min())
    assert np.isnan(survfair.delta_between(res, "x", "y").se)
    with pytest.raises(ValueError, match="group 'w' is not in the result"):
        survfair.delta_between(res, "x", "w")
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0, got inf"):
        survfair.utility(res, alpha=np.inf)
    contrast = survfair.contrast(res, np.eye(3))
    assert contrast.value == pytest.approx(np.trace(m.to_numpy()))


def test_intersectional_groups_and_columns():
    time, event, codes, risk = make_data(200, 2, 4)
    frame = pd.DataFrame(
        {
            "t": time,
            "e": event.astype(int),
            "sex": np.where(codes == 0, "F", "M"),
            "race": np.where(np.arange(200) % 3 == 0, "Black", "White"),
            "r": risk,
        }
    )
    res = survfair.xci("t", "e", ["sex", "race"], "r", data=frame, method="naive")
    assert res.groups == ("F|Black", "F|White", "M|Black", "M|White")
    combined = frame["sex"] + "|" + frame["race"]
    again = survfair.xci(frame["t"], frame["e"], combined, frame["r"], method="naive")
    np.testing.assert_array_equal(res.values, again.values)


def test_groups_order_and_subset():
    time, event, codes, risk = make_data(300, 3, 6)
    labels = np.array(["a", "b", "c"])[codes]
    full = survfair.xci(time, event, labels, risk, method="naive")
    ordered = survfair.xci(time, event, labels, risk, method="naive", groups=["c", "a", "b"])
    assert ordered.groups == ("c", "a", "b")
    pd.testing.assert_frame_equal(ordered.matrix.loc[["a", "b", "c"], ["a", "b", "c"]], full.matrix)
    with pytest.warns(UserWarning, match="excluded"):
        subset = survfair.xci(time, event, labels, risk, method="naive", groups=["a", "b"])
    assert subset.n_excluded == int((labels == "c").sum())
    pd.testing.assert_frame_equal(subset.matrix, full.matrix.loc[["a", "b"], ["a", "b"]])


def test_empty_cell_is_nan_with_warning():
    time = np.array([1.0, 2.0, 3.0, 4.0])
    event = np.array([1, 1, 0, 0])
    group = np.array(["a", "a", "b", "b"])
    with pytest.warns(survfair.UndefinedXCIWarning, match=r"\('b', 'a'\)"):
        res = survfair.xci(time, event, group, [4, 3, 2, 1], method="naive")
    assert np.isnan(res.matrix.loc["b", "a"]) and np.isnan(res.matrix.loc["b", "b"])
    assert res.matrix.loc["a", "b"] == 1.0


def test_result_is_immutable_and_exports():
    time, event, codes, risk = make_data(100, 2, 1)
    res = survfair.xci(time, event, codes, risk, method="naive")
    with pytest.raises(Exception):
        res.method = "ipcw"
    with pytest.raises(ValueError):
        res.pair_counts.numerator[0, 0] = 1.0
    matrix = res.matrix
    matrix.iloc[0, 0] = -1.0
    assert res.matrix.iloc[0, 0] != -1.0
    import json

    payload = json.loads(json.dumps(res.to_dict()))
    assert len(payload["cells"]) == 4 and payload["method"] == "naive"
    frame = res.to_frame()
    assert list(frame.columns[:4]) == ["a", "b", "comparable", "concordant"] and len(frame) == 4
    assert "XCIResult(method='naive'" in repr(res)


@pytest.mark.parametrize("censoring", ["group", "pooled"])
def test_a_groups_subset_equals_the_audit_of_its_rows(censoring):
    """Issue 19: groups= excludes rows before the censoring curves are fitted (documented)."""
    time, event, codes, risk = make_data(400, 3, 4)
    keep = codes != 2
    with pytest.warns(survfair.ExcludedRowsWarning):
        subset = survfair.xci(
            time, event, codes, risk, groups=[0, 1], tau=20.0, censoring=censoring, ci=None
        )
    rows = survfair.xci(
        time[keep], event[keep], codes[keep], risk[keep], tau=20.0, censoring=censoring, ci=None
    )
    np.testing.assert_array_equal(subset.values, rows.values)


def test_threads_give_bit_identical_results(data_factory):
    """The per-group passes on several threads: the same numbers to the last bit."""
    time, event, codes, risk = data_factory(3000, 5, 21, continuous=True)
    one = survfair.xci(time, event, codes, risk, tau=8.0, n_jobs=1)
    many = survfair.xci(time, event, codes, risk, tau=8.0, n_jobs=4)
    np.testing.assert_array_equal(one.values, many.values)
    np.testing.assert_array_equal(one.pair_counts.numerator, many.pair_counts.numerator)
    np.testing.assert_array_equal(one.influence.cells, many.influence.cells)
    assert survfair.xci(time, event, codes, risk, tau=8.0, n_jobs=None).overall == one.overall


def test_naive_estimator_truncated_at_tau_equals_r_concordance_ymax():
    """Issue 33.6: ``method="naive"`` honours ``tau`` as R's ``concordance(ymax=)`` truncates
    Harrell's C (tests/fixtures/truncation, survival 3.5.3). R keeps an event at exactly ymax;
    survfair stops before tau, so at ymax = 89 (five events there) it equals R with tau just above
    89."""
    here = Path(__file__).parent / "fixtures" / "truncation"
    data = pd.read_csv(here / "input.csv")
    reference = pd.read_csv(here / "reference.csv", skipinitialspace=True)
    for row in reference.itertuples():
        tau = np.nextafter(row.ymax, np.inf) if row.ymax == 89 else row.ymax
        res = survfair.xci(
            data["time"],
            data["status"].astype(bool),
            np.zeros(len(data)),
            data["risk"],
            method="naive",
            tau=tau,
            ci=None,
        )
        assert res.overall == pytest.approx(row.concordance, rel=1e-14), row.ymax
        counts = res.pair_counts
        # the pairs whose earlier event is at or after tau stay in the counts with weight 0 (as in
        # IPCW); R drops them: its counts are those of the pairs the ratio uses
        assert counts.numerator.sum() == pytest.approx(
            row.concordant + 0.5 * row.tied_risk, rel=1e-14
        )
        assert counts.denominator.sum() == pytest.approx(
            row.concordant + row.discordant + row.tied_risk, rel=1e-14
        )
    exact = survfair.xci(
        data["time"],
        data["status"].astype(bool),
        np.zeros(len(data)),
        data["risk"],
        method="naive",
        tau=89.0,
        ci=None,
    )
    assert exact.overall != pytest.approx(
        reference.set_index("ymax").loc[89.0, "concordance"], rel=1e-6
    )


def _weighted_cohort(n=300, seed=1):
    rng = np.random.default_rng(seed)
    time = rng.exponential(1.0, n)
    group = rng.choice(["a", "b"], n)
    risk = rng.normal(size=n) + 0.3 * (group == "a")
    event = rng.random(n) < 0.7
    weights = rng.uniform(0.5, 2.0, n)
    entry = np.minimum(rng.uniform(0.0, 0.2, n), 0.5 * time)
    return time, event, group, risk, weights, entry


@pytest.mark.parametrize(
    "scale", [1e-160, 1e200, 2.0**-70, 2.0**70], ids=["1e-160", "1e200", "2^-70", "2^70"]
)
@pytest.mark.parametrize("ci", ["analytic", "bootstrap"])
def test_rescaling_the_weights_changes_nothing(scale, ci):
    """Weights times 1e200 gave all-NaN matrices (w_i w_j overflowed) and times 1e-160 cells off by
    5e-8 and infinite SEs (subnormal products), with numpy RuntimeWarnings; the weights are now
    divided by a power of two when their largest lies outside [2^-64, 2^64]."""
    time, event, group, risk, weights, entry = _weighted_cohort()
    options = dict(entry=entry, tau=1.5, ci=ci, n_resamples=50, random_state=0)
    base = survfair.xci(time, event, group, risk, weights=weights, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning, no positivity warning either
        scaled = survfair.xci(time, event, group, risk, weights=weights * scale, **options)
        d0, d1 = survfair.delta_between(base, "a", "b"), survfair.delta_between(scaled, "a", "b")
    np.testing.assert_allclose(scaled.matrix.to_numpy(), base.matrix.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(scaled.se.to_numpy(), base.se.to_numpy(), rtol=1e-10)
    assert d1.se == pytest.approx(d0.se, rel=1e-10) and np.isfinite(d1.se)
    if ci == "analytic":  # the same for xauc_t's analytic SEs
        times = [0.5, 1.0]
        h0 = survfair.xauc_t(
            time, event, group, risk, times, weights=weights, entry=entry
        ).to_frame()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            h1 = survfair.xauc_t(
                time, event, group, risk, times, weights=weights * scale, entry=entry
            ).to_frame()
        np.testing.assert_allclose(h1["se"], h0["se"], rtol=1e-10)


def test_ordinary_weights_are_used_as_given():
    """Weights within [2^-64, 2^64] are not rescaled: the weighted sums stay in the user's units."""
    time, event, group, risk, weights, entry = _weighted_cohort()
    once = survfair.xci(time, event, group, risk, weights=np.ones(time.size), ci=None, tau=1.5)
    twice = survfair.xci(
        time, event, group, risk, weights=np.full(time.size, 2.0), ci=None, tau=1.5
    )
    np.testing.assert_allclose(
        twice.pair_counts.denominator, 4 * once.pair_counts.denominator, rtol=1e-13
    )


def _zero_weight_cell_cohort(seed=5):
    """Cell (a, b) has comparable pairs, all of weight 0: the later members of b who weigh anything
    entered after every event of a (they leave the set of later members before those events are
    reached), the ones comparable with a's events weigh 0."""
    rng = np.random.default_rng(seed)
    na, nb1, nb0 = 40, 60, 20
    time = np.concatenate(
        [rng.uniform(1.5, 1.9, na), rng.uniform(3, 4, nb1), rng.uniform(2, 3, nb0)]
    )
    entry = np.concatenate(
        [rng.uniform(0, 0.2, na), rng.uniform(2, 2.9, nb1), rng.uniform(0, 1, nb0)]
    )
    event = np.concatenate([np.ones(na, bool), rng.random(nb1) < 0.5, rng.random(nb0) < 0.5])
    group = np.array(["a"] * na + ["b"] * (nb1 + nb0))
    weights = np.concatenate(
        [rng.uniform(0.1, 3, na) * np.e, rng.uniform(0.1, 3.3, nb1) * np.pi, np.zeros(nb0)]
    )
    return time, event, group, rng.normal(size=time.size), weights, entry


@pytest.mark.parametrize("method", ["naive", "ipcw"])
@pytest.mark.parametrize("ci", [None, "analytic"])
def test_a_cell_whose_comparable_pairs_all_weigh_0_is_undefined(method, ci):
    """It read 0.0031 over a denominator of 1.3e-11 (residues of running totals of the weights of
    members who left at their entry); now exactly 0, so NaN with the undefined-cell warning."""
    time, event, group, risk, weights, entry = _zero_weight_cell_cohort()
    with pytest.warns(survfair.UndefinedXCIWarning, match=r"\('a', 'b'\)"):
        res = survfair.xci(
            time, event, group, risk, weights=weights, entry=entry, method=method, ci=ci
        )
    assert res.pair_counts.comparable[0, 1] > 0 and res.pair_counts.denominator[0, 1] == 0.0
    assert np.isnan(res.matrix.loc["a", "b"]) and np.isfinite(res.matrix.loc["a", "a"])
    codes = (group == "b").astype(int)
    expected = brute_xci(time, event, codes, risk, 2, method=method, weights=weights, entry=entry)
    assert expected["denominator"][0, 1] == 0.0  # the pair loop: every pair of the cell weighs 0
    np.testing.assert_allclose(res.pair_counts.denominator, expected["denominator"], rtol=1e-12)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(
            res.values, expected["numerator"] / expected["denominator"], rtol=1e-12
        )
