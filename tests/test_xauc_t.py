"""Tests of the cross-group cumulative/dynamic AUC(t): brute force and scikit-survival."""

import math

import numpy as np
import pandas as pd
import pytest
from _brute import weighted_censoring_survival
from _intervals import tidy
from sksurv.datasets import load_veterans_lung_cancer, load_whas500
from sksurv.metrics import cumulative_dynamic_auc
from sksurv.nonparametric import CensoringDistributionEstimator
from sksurv.util import Surv

import survfair
from survfair import PositivityError, UndefinedXAUCWarning, xauc_t

TOL = 1e-8


def make_survival(seed, n=300, n_groups=3):
    rng = np.random.default_rng(seed)
    labels = np.array(list("abcdefgh")[:n_groups])
    g = rng.choice(labels, n)
    x = rng.normal(size=n)
    t_event = rng.exponential(np.exp(-0.7 * x))
    t_cens = rng.exponential(1.5, size=n) * np.where(g == labels[0], 0.7, 1.3)
    time = np.round(np.minimum(t_event, t_cens), 1) + 0.05  # ties in time
    event = t_event <= t_cens
    risk = np.round(x + 0.3 * rng.normal(size=n), 1)  # ties in risk
    return time, event, g, risk, list(labels)


def brute_xauc_t(time, event, g, risk, t, groups, censoring):
    """O(n^2) cross-group AUC(t) with IPCW weights 1 / K(time_i) from scikit-survival's
    estimator."""
    weights = np.zeros(len(time))
    for a in groups:
        rows = np.ones(len(time), bool) if censoring == "pooled" else g == a
        est = CensoringDistributionEstimator().fit(Surv.from_arrays(event[rows], time[rows]))
        cases = (g == a) & event & (time <= t)
        weights[cases] = 1.0 / est.predict_proba(time[cases])
    out = np.full((len(groups), len(groups)), np.nan)
    for i, a in enumerate(groups):
        for j, b in enumerate(groups):
            cases = np.flatnonzero((g == a) & event & (time <= t))
            controls = np.flatnonzero((g == b) & (time > t))
            if cases.size == 0 or controls.size == 0:
                continue
            num = den = 0.0
            for c in cases:
                for d in controls:
                    diff = risk[c] - risk[d]
                    score = 0.5 if abs(diff) <= TOL else float(diff > 0)
                    num += weights[c] * score
                    den += weights[c]
            out[i, j] = num / den
    return out


@pytest.mark.parametrize("censoring", ["group", "pooled"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_group_equals_sksurv(seed, censoring):
    time, event, _, risk, _ = make_survival(seed, n=400, n_groups=1)
    event[time == time.max()] = (
        True  # scikit-survival refuses data whose censoring survival reaches 0
    )
    y = Surv.from_arrays(event, time)
    times = np.quantile(time, [0.1, 0.3, 0.5, 0.7, 0.9])
    expected, _ = cumulative_dynamic_auc(y, y, risk, times)
    frame = xauc_t(time, event, np.zeros(len(time)), risk, times, censoring=censoring).to_frame()
    np.testing.assert_allclose(frame["xauc"].to_numpy(), expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(frame["time"].to_numpy(), np.unique(times))


@pytest.mark.parametrize(
    "loader, column", [(load_whas500, "age"), (load_veterans_lung_cancer, "Karnofsky_score")]
)
def test_one_group_equals_sksurv_on_real_data(loader, column):
    x, y = loader()
    risk = x[column].to_numpy(dtype=float)
    if column == "Karnofsky_score":
        risk = -risk  # a higher Karnofsky score means a lower risk
    event, time = y[y.dtype.names[0]], y[y.dtype.names[1]]
    times = np.percentile(time, [20, 40, 60, 80])
    expected, _ = cumulative_dynamic_auc(y, y, risk, times)
    frame = xauc_t(y, None, np.zeros(len(time)), risk, times, censoring="pooled").to_frame()
    np.testing.assert_allclose(frame["xauc"].to_numpy(), expected, rtol=0, atol=1e-12)
    assert frame["cases"].tolist() == [int(np.sum(event & (time <= t))) for t in np.unique(times)]


@pytest.mark.parametrize("censoring", ["group", "pooled"])
def test_three_groups_equal_brute_force(censoring):
    time, event, g, risk, groups = make_survival(3, n=250, n_groups=3)
    times = [0.3, 0.8]
    frame = xauc_t(time, event, g, risk, times, censoring=censoring).to_frame()
    assert list(frame.columns) == [
        "time",
        "a",
        "b",
        "cases",
        "controls",
        "weighted_cases",
        "pairs",
        "concordant",
        "tied_risk",
        "numerator",
        "denominator",
        "xauc",
        "se",
        "ci_low",
        "ci_high",
    ]
    for t in times:
        part = frame[frame.time == t]
        matrix = part.pivot(index="a", columns="b", values="xauc").loc[groups, groups].to_numpy()
        np.testing.assert_allclose(
            matrix, brute_xauc_t(time, event, g, risk, t, groups, censoring), atol=1e-12
        )
        for row in part.itertuples():
            assert row.cases == np.sum((g == row.a) & event & (time <= t))
            assert row.controls == np.sum((g == row.b) & (time > t))
            assert row.pairs == row.cases * row.controls


def test_group_censoring_differs_from_pooled_and_diagonal_is_within_group_sksurv():
    time, event, g, risk, groups = make_survival(4, n=400, n_groups=2)
    times = [0.4]
    by_group = xauc_t(time, event, g, risk, times).to_frame()
    pooled = xauc_t(time, event, g, risk, times, censoring="pooled").to_frame()
    assert not np.allclose(by_group["xauc"], pooled["xauc"])
    for a in groups:
        m = g == a
        y = Surv.from_arrays(event[m], time[m])
        expected, _ = cumulative_dynamic_auc(y, y, risk[m], times)
        row = by_group[(by_group.a == a) & (by_group.b == a)]
        assert row["xauc"].iloc[0] == pytest.approx(expected[0], abs=1e-12)


def test_dataframe_columns_and_empty_cell_warning():
    frame = pd.DataFrame(
        {
            "t": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            "e": [1, 1, 0, 1, 1, 0, 1, 0],
            "grp": ["a", "a", "a", "a", "b", "b", "b", "b"],
            "r": [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0],
        }
    )
    with pytest.warns(UndefinedXAUCWarning, match=r"t=1.5 \('b', 'a'\)"):
        out = xauc_t("t", "e", "grp", "r", [1.5, 4.5], data=frame).to_frame()
    first = out[out.time == 1.5].set_index(["a", "b"])["xauc"]
    assert np.isnan(first["b", "a"]) and first["a", "b"] == 1.0


def test_validation_errors():
    time, event, g, risk, _ = make_survival(5, n=50, n_groups=2)
    with pytest.raises(ValueError, match=r"times must lie within the follow-up"):
        xauc_t(time, event, g, risk, [time.max()])
    with pytest.raises(ValueError, match=r"times must lie within the follow-up"):
        xauc_t(time, event, g, risk, [time.min() - 1])
    with pytest.raises(ValueError, match="times is empty"):
        xauc_t(time, event, g, risk, [])
    with pytest.raises(ValueError, match="times contains NaN"):
        xauc_t(time, event, g, risk, [np.nan])
    with pytest.raises(ValueError, match="censoring must be one of"):
        xauc_t(time, event, g, risk, [0.5], censoring="km")
    with pytest.raises(ValueError, match="risk contains NaN"):
        xauc_t(time, event, g, np.r_[np.nan, risk[1:]], [0.5])


def test_positivity_error_names_group_and_time():
    # group a: at time 2 one event and one censoring remain -> K_a(2) = 0 for the case at time 2
    time = np.array([1.0, 2.0, 2.0, 1.0, 3.0, 4.0, 5.0])
    event = np.array([1, 1, 0, 1, 1, 0, 1])
    g = np.array(["a", "a", "a", "b", "b", "b", "b"])
    with pytest.raises(PositivityError, match=r"group 'a' is 0 at time 2"):
        xauc_t(time, event, g, np.arange(7.0), [2.5])
    with pytest.warns(
        UndefinedXAUCWarning, match=r"t=2.5 \('a', 'a'\)"
    ):  # group a has no control after 2.5
        pooled = xauc_t(time, event, g, np.arange(7.0), [2.5], censoring="pooled").to_frame()
    assert pooled["xauc"].notna().sum() == 2


def test_agrees_with_binary_xauc_without_censoring_before_t():
    # no censoring before t: cases/controls are a binary outcome and weights are constant
    rng = np.random.default_rng(6)
    n = 300
    time = rng.exponential(size=n) + 0.01
    event = np.ones(n, bool)
    event[time > 2.5] = False
    g = rng.choice(["a", "b"], n)
    risk = np.round(rng.normal(size=n) - time, 1)
    t = 0.7
    frame = xauc_t(time, event, g, risk, [t]).to_frame()
    binary = survfair.xauc((time <= t).astype(int), g, risk)
    matrix = (
        frame.pivot(index="a", columns="b", values="xauc").loc[["a", "b"], ["a", "b"]].to_numpy()
    )
    np.testing.assert_allclose(matrix, binary.values, atol=1e-12)


def _case_weighted_xauc_t(time, event, g, risk, t, groups, censoring, v, refit):
    """O(n^2) AUC(t) matrix with case weights ``v`` (pair weight v_i v_j / K_a(time_i)); the
    censoring Kaplan-Meier counts row l as v_l rows when ``refit``, else is fitted with v = 1."""
    w_km = v if refit else np.ones(len(time))

    def km(members, s):
        return weighted_censoring_survival(time, event, w_km, members, s)

    out = np.zeros((len(groups), len(groups)))
    for i, a in enumerate(groups):
        members = np.arange(len(time)) if censoring == "pooled" else np.flatnonzero(g == a)
        cases = np.flatnonzero((g == a) & event & (time <= t))
        case_weight = np.array([v[c] / km(members, time[c]) for c in cases])
        for j, b in enumerate(groups):
            controls = np.flatnonzero((g == b) & (time > t))
            diff = risk[cases][:, None] - risk[controls][None, :]
            score = np.where(np.abs(diff) <= TOL, 0.5, (diff > 0).astype(float))
            pair = case_weight[:, None] * v[controls][None, :]
            out[i, j] = (pair * score).sum() / pair.sum()
    return out


@pytest.mark.parametrize("censoring", ["group", "pooled"])
def test_standard_error_kaplan_meier_term_is_the_derivative_through_the_fit(censoring):
    """The influence rows behind the ``se`` column: their Kaplan-Meier part equals the finite-
    difference derivative of the estimate in each row's case weight with the censoring fit
    refitted, minus the same derivative with the fit held fixed (tied times and risks)."""
    from survfair._binary.xauc_t import _influence_cells
    from survfair._core.kernel import PairOptions, count_pairs_and_contributions, prepare_pairs
    from survfair._core.validation import check_survival_inputs

    time, event, g, risk, groups = make_survival(7, n=45, n_groups=2)
    t = 0.5
    sample, _ = check_survival_inputs(time, event, g, risk)
    frame = xauc_t(time, event, g, risk, [t], censoring=censoring).to_frame()
    curves = survfair._core.censoring.fit_censoring(sample, censoring)
    case, control = sample.event & (sample.time <= t), sample.time > t
    rows = case | control
    inverse = np.ones(sample.n_samples)
    for code in range(2):
        members = case & (sample.group_codes == code)
        inverse[members] = 1.0 / curves.evaluate(code, sample.time[members])
    prepared = prepare_pairs(
        np.where(case[rows], 0.0, 1.0),
        case[rows],
        sample.group_codes[rows],
        sample.risk[rows],
        2,
        1e-8,
    )
    counts, _, parts = count_pairs_and_contributions(
        prepared, PairOptions(row_weight=np.where(case[rows], inverse[rows], 1.0))
    )
    by_time = np.argsort(sample.time)
    time_position = np.empty_like(by_time)
    time_position[by_time] = np.arange(len(time))
    curve_of = np.zeros(2, np.int64) if censoring == "pooled" else np.arange(2, dtype=np.int64)
    full = _influence_cells(sample, rows, parts, counts, time_position, curve_of)
    fixed = _influence_cells(
        sample, rows, parts, counts, time_position, curve_of, weights_estimated=False
    )
    km_term = np.empty_like(full)
    km_term[by_time] = full - fixed
    np.testing.assert_allclose(np.sqrt((full**2).sum(0)), frame["se"].to_numpy(), rtol=1e-12)

    labels = list(sample.groups)
    ones = np.ones(len(time))
    base = _case_weighted_xauc_t(time, event, g, risk, t, labels, censoring, ones, refit=True)
    np.testing.assert_allclose(base.ravel(), frame["xauc"].to_numpy(), rtol=1e-12)
    step = 1e-6
    expected = np.empty((len(time), 4))
    for k in range(len(time)):
        v = ones.copy()
        v[k] += step
        refitted = _case_weighted_xauc_t(time, event, g, risk, t, labels, censoring, v, refit=True)
        held = _case_weighted_xauc_t(time, event, g, risk, t, labels, censoring, v, refit=False)
        expected[k] = ((refitted - held) / step).ravel()
    np.testing.assert_allclose(km_term, expected, rtol=1e-4, atol=1e-7)
    assert np.abs(km_term).max() > 1e-3  # the term matters on this data


def test_standard_errors_agree_with_the_bootstrap():
    """Analytic se of every cell within 20% of a 400-replicate bootstrap that resamples
    individuals within groups and refits the censoring curves (sampling error of a bootstrap SD
    with 400 replicates is about 4%)."""
    time, event, g, risk, groups = make_survival(8, n=1500, n_groups=2)
    frame = xauc_t(time, event, g, risk, [0.6]).to_frame()
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(400):
        rows = np.concatenate([rng.choice(np.flatnonzero(g == a), (g == a).sum()) for a in groups])
        draws.append(
            xauc_t(time[rows], event[rows], g[rows], risk[rows], [0.6])
            .to_frame()["xauc"]
            .to_numpy()
        )
    ratio = frame["se"].to_numpy() / np.std(draws, axis=0, ddof=1)
    assert np.all((ratio > 0.8) & (ratio < 1.2)), ratio
    low, high = frame["ci_low"].to_numpy(), frame["ci_high"].to_numpy()
    assert np.all((low < frame["xauc"]) & (frame["xauc"] < high) & (low > 0) & (high < 1))


def test_interval_options_and_cells_at_one():
    """``confidence_level`` widens the interval; a cell at 1 with no variation gets the point
    interval [1, 1]; ``ci=None`` gives point estimates only."""
    time, event, g, risk, groups = make_survival(9, n=600, n_groups=2)
    narrow = xauc_t(time, event, g, risk, [0.6], confidence_level=0.8).to_frame()
    wide = xauc_t(time, event, g, risk, [0.6], confidence_level=0.99).to_frame()
    np.testing.assert_array_equal(narrow["se"], wide["se"])
    assert np.all((wide["ci_low"] < narrow["ci_low"]) & (narrow["ci_high"] < wide["ci_high"]))
    bare = xauc_t(time, event, g, risk, [0.6], ci=None).to_frame()
    np.testing.assert_array_equal(bare["xauc"], wide["xauc"])
    assert bare[["se", "ci_low", "ci_high"]].isna().all().all()
    perfect = xauc_t(time, event, g, -time, [0.6]).to_frame()  # every case outranks every control
    assert np.all(perfect["xauc"] == 1.0) and np.all(perfect["se"] == 0.0)
    assert np.all(perfect["ci_low"] == 1.0) and np.all(perfect["ci_high"] == 1.0)
    with pytest.raises(ValueError, match="ci"):
        xauc_t(time, event, g, risk, [0.6], ci="bootstrap")
    with pytest.raises(ValueError, match="confidence_level"):
        xauc_t(time, event, g, risk, [0.6], confidence_level=1.5)


def test_groups_subset_as_in_xci():
    import survfair

    rng = np.random.default_rng(5)
    n = 300
    time, event = rng.exponential(size=n), rng.random(n) < 0.7
    group, risk = np.array(["a", "b", "c"])[np.arange(n) % 3], rng.normal(size=n)
    with pytest.warns(survfair.ExcludedRowsWarning):
        sub = survfair.xauc_t(time, event, group, risk, [0.5], groups=["b", "a"]).to_frame()
    keep = group != "c"
    full = survfair.xauc_t(time[keep], event[keep], group[keep], risk[keep], [0.5]).to_frame()
    assert list(dict.fromkeys(sub["a"])) == ["b", "a"]
    merged = sub.merge(full, on=["a", "b"], suffixes=("", "_full"))
    np.testing.assert_allclose(merged["xauc"], merged["xauc_full"], rtol=1e-12)


def test_result_is_frozen_and_exports_like_every_estimator():
    """Issue 19: a frozen result with .to_frame(), .to_dict(), .confidence_interval() and the
    confidence level as a field (it was hidden in DataFrame.attrs)."""
    import json

    rng = np.random.default_rng(8)
    n = 200
    time, event = rng.exponential(size=n), rng.random(n) < 0.7
    group, risk = np.array(["a", "b"])[np.arange(n) % 2], rng.normal(size=n)
    res = xauc_t(time, event, group, risk, [0.5, 1.0], confidence_level=0.9)
    assert (
        isinstance(res, survfair.XAUCtResult)
        and res.confidence_level == 0.9
        and res.groups == ("a", "b")
    )
    frame = res.to_frame()
    frame.loc[0, "xauc"] = -1.0  # a copy: the result does not change
    assert res.to_frame().loc[0, "xauc"] != -1.0
    at = res.to_frame().query("time == 0.5")
    assert res.matrix(0.5).loc["a", "b"] == at.query("a == 'a' and b == 'b'")["xauc"].item()
    np.testing.assert_array_equal(
        tidy(res.confidence_interval())[["ci_low", "ci_high"]],
        res.to_frame()[["ci_low", "ci_high"]],
    )
    wider = tidy(res.confidence_interval(0.99))
    assert (wider["ci_low"] <= res.to_frame()["ci_low"]).all()
    assert json.loads(json.dumps(res.to_dict()))["ci_method"] == "analytic"
    with pytest.raises(ValueError, match="not a horizon"):
        res.matrix(0.7)


def test_threads_give_bit_identical_horizons():
    rng = np.random.default_rng(3)
    n = 2000
    group = rng.integers(0, 4, n)
    risk = rng.normal(size=n)
    time = rng.exponential(np.exp(-risk))
    event = rng.random(n) < 0.7
    one = survfair.xauc_t(time, event, group, risk, [0.5, 1.0], n_jobs=1).to_frame()
    many = survfair.xauc_t(time, event, group, risk, [0.5, 1.0], n_jobs=3).to_frame()
    pd.testing.assert_frame_equal(one, many, check_exact=True)


def test_n_jobs_follows_the_xci_rule():
    with pytest.raises(ValueError, match=r"n_jobs must not be 0"):
        survfair.xauc_t(
            [1.0, 2, 3, 4], [1, 1, 0, 1], ["a", "b", "a", "b"], [4.0, 3, 2, 1], [2.0], n_jobs=0
        )


def test_result_records_cause_controls_entry_weights_and_clusters():
    """Issue 16 audit: the settings that define the cases and controls (cause, controls) and the
    data structure (entry, weights, cluster) travel with the result, in to_dict() and repr, as on
    XCIResult; without them the plain call's repr is unchanged."""
    import json

    time, status = [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 1, 1, 2, 1, 1, 0]
    group, risk = list("abababab"), [8, 3, 6, 5, 4, 7, 2, 1]
    plain = xauc_t(time, [s == 1 for s in status], group, risk, [4.5])
    assert (plain.cause, plain.controls, plain.delayed_entry, plain.weighted, plain.n_clusters) == (
        None,
        "event_free",
        False,
        False,
        None,
    )
    assert repr(plain).splitlines()[0] == (
        "XAUCtResult(groups=['a', 'b'], times=[4.5], censoring='group', ci_method='analytic')"
    )
    assert "AUC(t) at t = 4.5" in repr(plain)  # the numbers follow the settings (issue 32.6)
    res = xauc_t(
        time,
        status,
        group,
        risk,
        [4.5],
        cause=1,
        entry=[0, 0, 0.5, 0, 0, 0, 0, 0],
        weights=[1, 2, 1, 1, 1, 1, 1, 1],
        cluster=[0, 0, 1, 1, 2, 2, 3, 3],
    )
    assert (res.cause, res.controls, res.delayed_entry, res.weighted, res.n_clusters) == (
        1,
        "all",
        True,
        True,
        4,
    )
    exported = json.loads(json.dumps(res.to_dict()))
    assert {
        k: exported[k] for k in ("cause", "controls", "delayed_entry", "weighted", "n_clusters")
    } == {"cause": 1, "controls": "all", "delayed_entry": True, "weighted": True, "n_clusters": 4}
    assert (
        repr(res)
        .splitlines()[0]
        .endswith("cause=1, controls='all', delayed_entry=True, weighted=True, n_clusters=4)")
    )
    assert (
        xauc_t(time, status, group, risk, [4.5], cause=1, controls="event_free").controls
        == "event_free"
    )
    # without cause the controls are the event-free whatever controls= says
    assert (
        xauc_t(time, [s == 1 for s in status], group, risk, [4.5], controls="all").controls
        == "event_free"
    )


def test_differences_per_horizon():
    """Issue 14 audit: AUC(t) tables had no Δ per horizon; the result now carries them."""
    rng = np.random.default_rng(1)
    n = 800
    g = rng.choice(list("abc"), n)
    r = rng.normal(size=n) + 0.3 * (g == "a")
    t, c = rng.exponential(np.exp(-r)), rng.exponential(2.0, n)
    res = xauc_t(np.minimum(t, c), t <= c, g, r, [0.3, 0.6])
    deltas = res.pairwise_deltas()
    assert list(deltas.columns) == [
        "time",
        "summary",
        "a",
        "b",
        "value",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
    ]
    assert len(deltas) == 2 * 6 and list(deltas["summary"][:2]) == ["delta_within", "delta_between"]
    for row in deltas.itertuples(index=False):
        m, se = res.matrix(row.time), res.se(row.time)
        first, second = (
            ((row.a, row.a), (row.b, row.b))
            if row.summary == "delta_within"
            else ((row.a, row.b), (row.b, row.a))
        )
        assert row.value == pytest.approx(m.loc[first] - m.loc[second])
        # Cauchy-Schwarz: |se1 - se2| <= se(difference) <= se1 + se2
        assert (
            abs(se.loc[first] - se.loc[second]) - 1e-12
            <= row.se
            <= se.loc[first] + se.loc[second] + 1e-12
        )
        assert -1 <= row.ci_low <= row.value <= row.ci_high <= 1
    z = float(deltas["value"].iloc[1] / deltas["se"].iloc[1])
    assert deltas["p_value"].iloc[1] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))
    assert res.to_dict()["deltas"][1]["summary"] == "delta_between"
    bare = xauc_t(np.minimum(t, c), t <= c, g, r, [0.3], ci=None).pairwise_deltas()
    assert bare["se"].isna().all() and bare["p_value"].isna().all() and bare["value"].notna().all()
