"""survfair.calibration: library references (exact), closed forms, simulated checks, validation."""

import json

import numpy as np
import pandas as pd
import pytest
from _intervals import tidy
from hypothesis import given, settings
from hypothesis import strategies as st

import survfair
from survfair._calibration.stats import (
    breslow_cumulative_hazard,
    calibration_slope,
    cloglog,
    gnd_bins,
    kaplan_meier_risk,
    rcs_basis,
)


def weibull_cohort(
    n, seed, *, shape=1.5, effect=0.75, scale=6.0, censor_high=15.0, groups=("F", "M")
):
    """Weibull PH data with the true F(t | x) available:
    S(t | x) = exp(-(t / scale)^shape e^(effect x))."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    true_time = scale * rng.weibull(shape, n) * np.exp(-effect * x / shape)
    censor = rng.uniform(0, censor_high, n)
    time, event = np.minimum(true_time, censor), true_time <= censor
    group = np.asarray(groups)[rng.integers(0, len(groups), n)]

    def risk(t):
        return 1.0 - np.exp(-((t / scale) ** shape) * np.exp(effect * x))

    return time, event, group, risk


@pytest.fixture(scope="module")
def cohort():
    return weibull_cohort(600, 3)


# -- library references, exact -----------------------------------------------------------------
def test_brier_and_integrated_brier_equal_scikit_survival_for_one_group(cohort):
    from sksurv.metrics import brier_score, integrated_brier_score
    from sksurv.util import Surv

    time, event, _, risk = cohort
    times = np.array([3.0, 5.0, 7.0])
    predicted = np.column_stack([risk(t) for t in times])
    res = survfair.calibration(time, event, np.zeros(time.size), predicted, times, ci=None)
    y = Surv.from_arrays(event, time)
    _, expected = brier_score(y, y, 1 - predicted, times)
    frame = res.to_frame()
    got = frame.loc[frame["statistic"] == "brier", "estimate"].to_numpy()
    np.testing.assert_array_equal(got, expected)
    ibs = frame.loc[frame["statistic"] == "integrated_brier", "estimate"].item()
    assert ibs == integrated_brier_score(y, y, 1 - predicted, times)


def test_brier_per_group_equals_scikit_survival_on_each_group(cohort):
    from sksurv.metrics import brier_score
    from sksurv.util import Surv

    time, event, group, risk = cohort
    p = risk(5.0)
    res = survfair.calibration(time, event, group, p, 5.0, ci=None)
    for g in ("F", "M"):
        rows = group == g
        y = Surv.from_arrays(event[rows], time[rows])
        _, expected = brier_score(y, y, 1 - p[rows], [5.0])
        assert res.summary().loc[g, "brier"] == expected[0]


def test_observed_risk_equals_lifelines_kaplan_meier(cohort):
    from lifelines import KaplanMeierFitter

    time, event, group, risk = cohort
    res = survfair.calibration(time, event, group, risk(4.0), 4.0)
    for g in ("F", "M"):
        rows = group == g
        km = KaplanMeierFitter().fit(time[rows], event[rows])
        # the same product, multiplied in another order: equal to rounding
        assert res.summary().loc[g, "observed_risk"] == pytest.approx(
            1 - km.predict(4.0), rel=1e-13
        )


def test_greenwood_standard_error_against_its_formula(cohort):
    time, event, _, _ = cohort
    t = 5.0
    order = np.argsort(time)
    s, total = 1.0, 0.0
    at_risk = time.size
    for tt in np.unique(time[order]):
        here = time == tt
        d = int((event & here).sum())
        if tt <= t and d:
            s *= 1 - d / at_risk
            total += d / (at_risk * (at_risk - d))
        at_risk -= int(here.sum())
    risk, se = kaplan_meier_risk(time, event, t)
    assert risk == pytest.approx(1 - s, rel=1e-13)
    assert se == pytest.approx(s * np.sqrt(total), rel=1e-12)


def test_slope_equals_scikit_survival_cox_and_lifelines(cohort):
    from lifelines import CoxPHFitter
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    time, event, _, risk = cohort
    p = risk(5.0)
    slope, se = calibration_slope(time, event, p, 5.0)
    t, e = np.minimum(time, 5.0), event & (time <= 5.0)
    sk = CoxPHSurvivalAnalysis(ties="efron").fit(cloglog(p)[:, None], Surv.from_arrays(e, t))
    assert slope == pytest.approx(sk.coef_[0], abs=1e-8)
    ll = CoxPHFitter().fit(pd.DataFrame({"t": t, "e": e, "c": cloglog(p)}), "t", "e")
    assert slope == pytest.approx(ll.params_["c"], abs=1e-5)  # lifelines at its default tolerance
    assert se == pytest.approx(ll.standard_errors_["c"], rel=1e-4)


def test_breslow_with_offset_by_brute_force():
    rng = np.random.default_rng(1)
    time = rng.integers(1, 15, 80).astype(float)  # ties
    event = rng.random(80) < 0.6
    eta = rng.normal(size=80)
    value, variance = breslow_cumulative_hazard(time, event, eta, 9.0)
    expected_value = expected_variance = 0.0
    for s in np.unique(time[event & (time <= 9.0)]):
        d = (event & (time == s)).sum()
        denominator = np.exp(eta[time >= s]).sum()
        expected_value += d / denominator
        expected_variance += d / denominator**2
    assert value == pytest.approx(expected_value, rel=1e-13)
    assert variance == pytest.approx(expected_variance, rel=1e-13)


def test_rcs_basis_is_harrells_formula():
    x = np.linspace(-3, 3, 13)
    k = np.array([-1.0, 0.2, 1.5])
    basis = rcs_basis(x, k)

    def cube(v):
        return np.clip(v, 0, None) ** 3

    expected = (
        cube(x - k[0])
        - cube(x - k[1]) * (k[2] - k[0]) / (k[2] - k[1])
        + cube(x - k[2]) * (k[1] - k[0]) / (k[2] - k[1])
    ) / (k[2] - k[0]) ** 2
    np.testing.assert_allclose(basis[:, 1], expected, rtol=1e-14)
    np.testing.assert_array_equal(basis[:, 0], x)
    # linear beyond the outer knots: second differences vanish there
    assert np.allclose(np.diff(basis[x > k[2], 1], 2), 0, atol=1e-12)


def test_gnd_bins_merge_until_enough_events():
    risk = np.linspace(0.01, 0.5, 200)
    events = np.zeros(200, bool)
    events[::7] = True  # 29 events, about 3 per decile
    bins = gnd_bins(risk, events, 10, 5)
    counts = np.bincount(bins, weights=events)
    assert (counts >= 5).all()
    assert np.all(np.diff(bins) >= 0)  # bins stay contiguous in predicted risk
    assert gnd_bins(risk, events, 10, 0).max() == 9


def test_gnd_statistic_from_its_bins(cohort):
    time, event, group, risk = cohort
    res = survfair.calibration(time, event, group, risk(5.0), 5.0)
    for g in ("F", "M"):
        bins = res.bins[res.bins["group"] == g]
        s_se = bins["observed_se"]
        chi2 = (((bins["observed"] - bins["predicted"]) ** 2 / s_se**2)[s_se > 0]).sum()
        row = res.gnd[res.gnd["group"] == g].iloc[0]
        assert row["chi2"] == pytest.approx(chi2, rel=1e-12)
        assert row["df"] == len(bins) - 1
        assert (bins["events"] >= 5).all()


# -- closed forms and simulated checks ------------------------------------------------------------
def test_risks_from_linear_predictor_closed_form():
    lp = np.array([-1.0, 0.0, 2.0])
    risks = survfair.risks_from_linear_predictor(lp, [0.9, 0.8], mean_linear_predictor=0.5)
    np.testing.assert_allclose(
        risks, 1 - np.array([0.9, 0.8])[None, :] ** np.exp(lp - 0.5)[:, None], rtol=1e-15
    )
    with pytest.raises(ValueError, match="baseline_survival"):
        survfair.risks_from_linear_predictor(lp, [0.0])
    with pytest.raises(ValueError, match="linear_predictor contains NaN"):
        survfair.risks_from_linear_predictor([np.nan, 1.0], 0.9)


def test_well_specified_predictions_are_calibrated_and_a_miscalibrated_group_is_detected():
    time, event, group, risk = weibull_cohort(4000, 11, groups=("A", "B", "C"))
    p = risk(5.0)
    p = np.where(group == "C", np.minimum(1.5 * p, 1.0), p)  # group C's risks inflated by half
    res = survfair.calibration(time, event, group, p, 5.0)
    summary = res.summary()
    for g in ("A", "B"):  # truth: O/E 1, slope 1, intercept 0 inside their intervals; ICI small
        row = summary.loc[g]
        assert row["oe_ratio_ci_low"] < 1 < row["oe_ratio_ci_high"]
        assert row["slope_ci_low"] < 1 < row["slope_ci_high"]
        assert row["intercept_ci_low"] < 0 < row["intercept_ci_high"]
        assert row["ici"] < 0.03
    assert summary.loc["C", "oe_ratio_ci_high"] < 0.8
    contrasts = res.contrasts(["oe_ratio"])
    a_b = contrasts[(contrasts["a"] == "A") & (contrasts["b"] == "B")].iloc[0]
    assert a_b["p_adjusted"] > 0.05
    for other in ("A", "B"):
        row = contrasts[(contrasts["a"] == other) & (contrasts["b"] == "C")].iloc[0]
        assert row["estimate"] > 1.2 and row["p_adjusted"] < 1e-4
        assert row["p_adjusted"] >= row["p_value"]


# -- result protocol -------------------------------------------------------------------------------
def test_result_protocol(cohort):
    time, event, group, risk = cohort
    res = survfair.calibration(
        time, event, group, np.column_stack([risk(5.0), risk(3.0)]), [5.0, 3.0]
    )
    np.testing.assert_array_equal(res.times, [3.0, 5.0])  # sorted, columns follow their horizons
    assert res.summary(3.0).loc["F", "expected_risk"] == pytest.approx(
        risk(3.0)[group == "F"].mean()
    )
    frame = res.to_frame()
    assert list(frame.columns[:6]) == ["time", "group", "n", "events", "n_clipped", "statistic"]
    assert set(frame["statistic"]) >= {
        "oe_ratio",
        "slope",
        "intercept",
        "ici",
        "e50",
        "e90",
        "brier",
        "integrated_brier",
    }
    json.dumps(res.to_dict())
    wide = tidy(res.confidence_interval(0.5))
    narrow, full = wide["ci_high"] - wide["ci_low"], frame["ci_high"] - frame["ci_low"]
    assert ((narrow < full) | full.isna()).all()
    with pytest.raises(ValueError, match="not one of the horizons"):
        res.summary(4.0)
    with pytest.raises(Exception):
        res.groups = ("x",)
    assert "CalibrationResult" in repr(res) and "<table" in res._repr_html_()


def test_bootstrap_is_reproducible_for_any_n_jobs_and_gives_ici_intervals(cohort):
    """The same replicates for any n_jobs, and without the slope and curve (those NaN)."""
    time, event, group, risk = cohort
    runs = [
        survfair.calibration(
            time,
            event,
            group,
            risk(5.0),
            5.0,
            ci="bootstrap",
            n_resamples=20,
            random_state=7,
            n_jobs=n_jobs,
            progress=False,
            slope_and_curve=fitted,
        )
        for n_jobs, fitted in ((1, True), (2, True), (1, False))
    ]
    np.testing.assert_array_equal(runs[0].draws, runs[1].draws)
    statistics = runs[0].estimates["statistic"].to_numpy()
    skipped = np.isin(statistics, ["slope", "ici", "e50", "e90"])
    np.testing.assert_array_equal(runs[0].draws[:, ~skipped], runs[2].draws[:, ~skipped])
    assert np.isnan(runs[2].draws[:, skipped]).all()
    summary = runs[0].summary()
    assert np.isfinite(summary["ici_ci_low"]).all()
    assert (summary["ici_ci_low"] <= summary["ici_ci_high"]).all()
    contrasts = runs[0].contrasts()
    assert np.isfinite(contrasts["ci_low"]).all()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_row_order_changes_nothing(seed):
    time, event, group, risk = weibull_cohort(150, seed % 50)
    p = risk(5.0)
    permutation = np.random.default_rng(seed).permutation(time.size)
    kwargs = dict(times=5.0, ci="analytic")
    with _quiet():
        first = survfair.calibration(time, event, group, p, **kwargs).to_frame()
        second = survfair.calibration(
            time[permutation], event[permutation], group[permutation], p[permutation], **kwargs
        ).to_frame()
    pd.testing.assert_frame_equal(first, second, rtol=1e-9, atol=1e-12)


class _quiet:
    def __enter__(self):
        import warnings

        self._context = warnings.catch_warnings()
        self._context.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *args):
        return self._context.__exit__(*args)


# -- validation ------------------------------------------------------------------------------------
def test_refuses_bad_predicted_risks(cohort):
    time, event, group, risk = cohort
    p = risk(5.0)
    bad = p.copy()
    bad[[3, 9]] = 1.2
    with pytest.raises(ValueError, match=r"outside at rows \[3, 9\]"):
        survfair.calibration(time, event, group, bad, 5.0)
    bad[[3, 9]] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite values at rows \[3, 9\]"):
        survfair.calibration(time, event, group, bad, 5.0)
    masked = np.ma.masked_array(p, mask=np.arange(p.size) == 4)
    with pytest.raises(ValueError, match=r"masked .* rows \[4\]"):
        survfair.calibration(time, event, group, masked, 5.0)
    with pytest.raises(ValueError, match="2 horizon"):
        survfair.calibration(time, event, group, p, [3.0, 5.0])
    with pytest.raises(ValueError, match="mismatched lengths"):
        survfair.calibration(time, event, group, p[:-1], 5.0)


def test_refuses_horizons_beyond_a_groups_follow_up(cohort):
    time, event, group, risk = cohort
    last_f = time[group == "F"].max()
    with pytest.raises(ValueError, match="beyond the follow-up of group 'F'"):
        survfair.calibration(time, event, group, risk(5.0), last_f)
    with pytest.raises(ValueError, match="distinct"):
        survfair.calibration(time, event, group, np.column_stack([risk(5.0)] * 2), [5.0, 5.0])


def test_refuses_differing_pandas_indexes_and_names_columns_of_data(cohort):
    time, event, group, risk = cohort
    data = pd.DataFrame(
        {"time": time, "event": event, "sex": group, "r5": risk(5.0), "r3": risk(3.0)}
    )
    shuffled = data.sample(frac=1.0, random_state=0)
    with pytest.raises(ValueError, match="not identical"):
        survfair.calibration("time", "event", "sex", shuffled["r5"], 5.0, data=data)
    by_name = survfair.calibration("time", "event", "sex", ["r3", "r5"], [3.0, 5.0], data=data)
    by_array = survfair.calibration(
        time, event, group, np.column_stack([risk(3.0), risk(5.0)]), [3.0, 5.0]
    )
    pd.testing.assert_frame_equal(by_name.to_frame(), by_array.to_frame())
    with pytest.raises(ValueError, match="not in data"):
        survfair.calibration("time", "event", "sex", ["r4"], [4.0], data=data)


def test_groups_subset_keeps_predictions_aligned(cohort):
    time, event, group, risk = cohort
    p = risk(5.0)
    with pytest.warns(survfair.ExcludedRowsWarning):
        subset = survfair.calibration(time, event, group, p, 5.0, groups=["M"])
    rows = group == "M"
    alone = survfair.calibration(time[rows], event[rows], group[rows], p[rows], 5.0)
    pd.testing.assert_frame_equal(subset.to_frame(), alone.to_frame())


@pytest.mark.filterwarnings("ignore:calibration slope")  # equal predicted risks: no slope to fit
def test_positivity_warning_when_censoring_survival_is_low_before_the_horizon():
    # with each group's own censoring curve a weight of 0 cannot occur before the group's last
    # time (K reaches 0 only when the last person at risk is censored), so the horizon rule
    # refuses what would be a PositivityError; heavy censoring warns as for xCI
    rng = np.random.default_rng(4)
    true_time = rng.exponential(10, 400)
    censor = rng.exponential(1.0, 400)
    time, event = np.minimum(true_time, censor), true_time <= censor
    with pytest.warns(survfair.PositivityWarning, match="censoring survival below 0.1"):
        survfair.calibration(time, event, np.zeros(400), np.full(400, 0.2), 2.5, ci=None)


def test_predicted_risks_adapters_equal_the_models_survival_functions(cohort):
    from lifelines import CoxPHFitter, WeibullAFTFitter
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.svm import FastSurvivalSVM
    from sksurv.util import Surv

    time, event, _, _ = cohort
    x = pd.DataFrame({"x": np.random.default_rng(0).normal(size=time.size)})
    frame = x.assign(T=time, E=event)
    for fitter in (CoxPHFitter(), WeibullAFTFitter()):
        model = fitter.fit(frame, "T", "E")
        got = survfair.predicted_risks(model, x, [2.0, 5.0])
        expected = 1 - model.predict_survival_function(x, times=[2.0, 5.0]).to_numpy().T
        np.testing.assert_array_equal(got, expected)
    y = Surv.from_arrays(event, time)
    cox = CoxPHSurvivalAnalysis().fit(x, y)
    got = survfair.predicted_risks(cox, x, 5.0)
    expected = np.array([1 - fn(5.0) for fn in cox.predict_survival_function(x)])
    np.testing.assert_array_equal(got[5.0], expected)  # labelled columns: the horizons (issue 32.6)
    assert list(got.columns) == [5.0] and got.columns.name == "time" and got.index.equals(x.index)
    with pytest.raises(ValueError, match="outside the model's survival functions"):
        survfair.predicted_risks(cox, x, time.max() + 1)
    with pytest.raises(TypeError, match="no survival function"):
        survfair.predicted_risks(FastSurvivalSVM(max_iter=5).fit(x, y), x, 5.0)
    with pytest.raises(TypeError, match="callable"):
        survfair.predicted_risks(lambda X: X, x, 5.0)


def test_fairness_profile_puts_xci_beside_calibration(cohort):
    time, event, group, risk = cohort
    p = risk(5.0)
    result = survfair.xci(time, event, group, p, tau=10)
    profile = survfair.fairness_profile(result, survfair.calibration(time, event, group, p, 5.0))
    assert list(profile.index) == ["F", "M"]
    assert profile.loc["F", "xci_as_earlier"] == result.matrix.loc["F", "M"]
    assert profile.loc["F", "xci_as_later"] == result.matrix.loc["M", "F"]
    assert profile.loc["F", "delta_between"] == pytest.approx(
        result.matrix.loc["F", "M"] - result.matrix.loc["M", "F"]
    )
    with pytest.raises(ValueError, match="different groups"):
        survfair.fairness_profile(
            result, survfair.calibration(time, event, np.where(group == "F", "W", "M"), p, 5.0)
        )
    with pytest.raises(TypeError):
        survfair.fairness_profile(result, result)


def test_ici_agrees_with_lifelines_survival_probability_calibration():
    """lifelines smooths with a flexible parametric (Royston-Parmar type) model of the follow-up,
    survfair with a Cox model on a spline of cloglog F (Austin et al. 2020's first method) truncated
    at the horizon: different smoothers of the same curve. For a well-specified model on a large
    sample both ICIs are small and close (measured here: lifelines 0.0111, survfair 0.0049)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from lifelines import CoxPHFitter
    from lifelines.calibration import survival_probability_calibration

    rng = np.random.default_rng(21)
    x = pd.DataFrame({"x": rng.normal(size=3000)})
    true_time = 6 * rng.weibull(1.5, 3000) * np.exp(-0.5 * x["x"].to_numpy())
    censor = rng.uniform(0, 15, 3000)
    frame = x.assign(T=np.minimum(true_time, censor), E=true_time <= censor)
    cox = CoxPHFitter().fit(frame, "T", "E")
    _, ici_lifelines, _ = _silently(survival_probability_calibration, cox, frame, t0=5.0)
    plt.close("all")
    ours = survfair.calibration(
        frame["T"], frame["E"], np.zeros(3000), survfair.predicted_risks(cox, x, 5.0), 5.0
    )
    ici = ours.summary().iloc[0]["ici"]
    assert ici < 0.02 and ici_lifelines < 0.02
    assert abs(ici - ici_lifelines) < 0.01


def _silently(function, *args, **kwargs):
    import contextlib
    import io
    import warnings

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# -- findings: GND and the largest gap ------------------------------------------------------------
def test_findings_never_claim_calibration_when_gnd_rejects_and_adjust_it_over_groups_and_horizons():
    """Issue 15 audit: the findings said "predicted risk matches the observed risk ... in every
    group" while a group's Greenwood-Nam-D'Agostino test rejected (pbc: women, p = 0.012).
    Constructed here: M's 5-year predictions are the true risks shuffled within M, so their mean --
    and the O/E -- is right, but they are unrelated to the outcome across risk deciles."""
    time, event, group, risk = weibull_cohort(3000, 5)
    right = risk(5.0)
    shuffled = right.copy()
    men = group == "M"
    shuffled[men] = np.random.default_rng(0).permutation(right[men])
    res = _silently(
        survfair.calibration, time, event, group, np.column_stack([shuffled, risk(3.0)]), [5.0, 3.0]
    )
    found = survfair.calibration_findings(res)
    at5 = [s for s in found.sentences if s.startswith("At t = 5,")]
    assert not any("matches the observed" in s for s in at5)
    assert "At t = 5, the O/E interval includes 1 for F, M." in at5
    rejected = next(s for s in at5 if "Greenwood-Nam-D'Agostino test rejects" in s)
    assert rejected.startswith(
        "At t = 5, the Greenwood-Nam-D'Agostino test rejects calibration across deciles of "
        "predicted risk for M (chi-square(9) = "
    )
    assert rejected.endswith(
        "Holm-adjusted p < 0.001): right on average (O/E interval includes 1), wrong within "
        "risk groups."
    )
    assert " F (" not in rejected
    # t = 3 is untouched: calibration is claimed, and the GND result is part of the claim
    at3 = next(s for s in found.sentences if s.startswith("At t = 3,") and "matches" in s)
    assert (
        "and the Greenwood-Nam-D'Agostino test finds no miscalibration across deciles of "
        "predicted risk (smallest Holm-adjusted p = " in at3
    )
    # one family: every group at every horizon (4 tests), Holm by default, as adjust= says otherwise
    np.testing.assert_allclose(
        found.gnd["p_adjusted"], survfair.adjust_p_values(res.gnd["p_value"], adjust="holm")
    )
    raw = survfair.calibration_findings(res, adjust="none")
    np.testing.assert_allclose(raw.gnd["p_adjusted"], res.gnd["p_value"])
    assert json.loads(json.dumps(found.to_dict()))["gnd"][0]["p_adjusted"] == pytest.approx(
        found.gnd["p_adjusted"].iloc[0]
    )


def test_findings_largest_gap_names_the_oe_ici_and_brier_contrasts_in_their_direction():
    """The largest gap between groups is stated for every contrasted statistic the result has (O/E
    ratio; ICI and Brier score where estimated), each in the direction of the larger value, and the
    verdict names the statistics whose adjusted p-value is below 1 - level."""
    time, event, group, risk = weibull_cohort(4000, 11, groups=("A", "B", "C"))
    p = risk(5.0)
    p = np.where(group == "C", np.minimum(1.5 * p, 1.0), p)  # C over-predicted
    res = survfair.calibration(time, event, group, p, 5.0)
    found = survfair.calibration_findings(res)
    gap = next(s for s in found.sentences if "largest calibration gaps" in s)
    contrasts = res.contrasts(["oe_ratio", "ici", "brier"])
    assert set(found.contrasts["statistic"]) == {"oe_ratio", "slope", "ici", "brier"}
    oe = contrasts[contrasts["statistic"] == "oe_ratio"]
    largest = oe.iloc[int(np.argmax(np.abs(np.log(oe["estimate"]))))]  # B vs C: B's O/E the larger
    assert (largest["a"], largest["b"]) == ("B", "C") and largest["estimate"] > 1
    assert f"the O/E ratio of B is {largest['estimate']:.2f} times that of C [" in gap
    assert (
        "the ICI (mean |predicted - observed risk|) of C exceeds that of" in gap
    )  # C's curve is far off
    assert "(its interval and p-value need ci='bootstrap')" in gap
    # the Brier score mixes discrimination and calibration: an accuracy difference (issue 41)
    assert "; the largest accuracy difference (the Brier score mixes discrimination and " in gap
    assert "calibration): the Brier score of C exceeds that of" in gap
    assert gap.endswith("a difference at the 95% level in the O/E ratio and the Brier score.")
    # two well-calibrated groups: the same sentence, no clear difference
    keep = group != "C"
    calm = survfair.calibration_findings(
        survfair.calibration(time[keep], event[keep], group[keep], p[keep], 5.0)
    )
    gap = next(s for s in calm.sentences if "largest calibration gaps" in s)
    assert gap.endswith("; no clear difference at the 95% level.")


# -- predictions of exactly 0 or 1 (issue 33.7) ----------------------------------------------------
def test_clipped_predictions_are_counted_per_group_and_horizon_and_named_in_findings(cohort):
    time, event, group, risk = cohort
    p = np.column_stack([risk(3.0), risk(5.0)])
    f_rows = np.flatnonzero(group == "F")
    p[f_rows[:7], 1] = 1.0  # seven survival probabilities of 0 at t = 5 in F
    p[f_rows[7:9], 0] = 0.0  # two risks of exactly 0 at t = 3
    res = survfair.calibration(time, event, group, p, [3.0, 5.0])
    frame = res.to_frame()
    counts = frame.drop_duplicates(["time", "group"]).set_index(["time", "group"])["n_clipped"]
    assert counts.loc[(5.0, "F")] == 7 and counts.loc[(3.0, "F")] == 2
    assert counts.loc[(5.0, "M")] == 0 and counts.loc[(3.0, "M")] == 0
    assert res.summary(5.0).loc["F", "n_clipped"] == 7
    assert {"time": 5.0, "group": "F", "n_clipped": 7} in res.to_dict()["n_clipped"]
    assert "clipped" in str(res)
    found = survfair.calibration_findings(res)
    clipped = [s for s in found.sentences if "clipped" in s]
    assert len(clipped) == 2
    assert "F (7 of" in clipped[1] and "slope, intercept and ICI" in clipped[1]
    # without clipped risks, no such sentence and no column in the printed table
    plain = survfair.calibration(time, event, group, risk(5.0), 5.0)
    assert not any("clipped" in s for s in survfair.calibration_findings(plain).sentences)
    assert "clipped" not in str(plain)


def test_slope_moves_with_the_clip_only_through_clipped_rows(cohort, monkeypatch):
    """Why the count matters: with risks of exactly 1 the slope depends on CLOGLOG_CLIP."""
    import survfair._calibration.stats as stats

    time, event, group, risk = cohort
    p = risk(5.0).copy()
    p[:30] = 1.0
    slopes = []
    for clip in (1e-10, 1e-12):
        monkeypatch.setattr(stats, "CLOGLOG_CLIP", clip)
        slopes.append(survfair.calibration(time, event, group, p, 5.0).summary().loc["F", "slope"])
    assert abs(slopes[0] - slopes[1]) > 1e-3
    slopes = []
    for clip in (1e-10, 1e-12):
        monkeypatch.setattr(stats, "CLOGLOG_CLIP", clip)
        slopes.append(
            survfair.calibration(time, event, group, risk(5.0), 5.0).summary().loc["F", "slope"]
        )
    assert slopes[0] == slopes[1]


# -- what users see (issue 32.6) -----------------------------------------------------------------
def test_summary_returns_the_horizon_asked_for_or_every_horizon_labelled(cohort):
    time, event, group, risk = cohort
    res = survfair.calibration(
        time, event, group, np.column_stack([risk(3.0), risk(5.0)]), [3.0, 5.0]
    )
    every = res.summary()
    assert every["time"].tolist() == [3.0, 3.0, 5.0, 5.0]
    assert list(every.index) == ["F", "M", "F", "M"]
    at5 = res.summary(5.0)
    assert at5["time"].tolist() == [5.0, 5.0]
    pd.testing.assert_frame_equal(at5, every[every["time"] == 5.0])
    one = survfair.calibration(time, event, group, risk(5.0), 5.0).summary()
    assert one["time"].tolist() == [5.0, 5.0]


def test_printed_result_shows_a_table_per_horizon(cohort):
    time, event, group, risk = cohort
    res = survfair.calibration(
        time, event, group, np.column_stack([risk(3.0), risk(5.0)]), [3.0, 5.0]
    )
    text = repr(res)
    assert text == str(res) and text.startswith("CalibrationResult: 2 group(s), 600 rows")
    assert "t = 3" in text and "t = 5" in text and "integrated Brier score" in text
    oe = res.summary(5.0).loc["M", "oe_ratio"]
    assert f"{oe:.2f} [" in text
    header = [line for line in text.splitlines() if line.lstrip().startswith("group")]
    assert len(header) == 2 and "O/E" in header[0] and "slope" in header[0]


def test_warning_names_only_the_missing_statistics():
    """Groups with 7 and 9 events by the horizon: the slope and intercept are estimated (5 events
    per coefficient), the spline curve (2 coefficients: 10 events) is not; the warning says ICI
    only."""
    time, event, group, risk = weibull_cohort(400, 5, scale=60.0)
    p = risk(5.0)
    events_by = [(event & (time <= 5.0) & (group == g)).sum() for g in ("F", "M")]
    assert all(5 <= e < 10 for e in events_by), events_by
    with pytest.warns(UserWarning, match="undefined") as caught:
        res = survfair.calibration(time, event, group, p, 5.0)
    message = str([w for w in caught if "undefined" in str(w.message)][0].message)
    summary = res.summary()
    assert np.isfinite(summary["slope"]).all() and np.isfinite(summary["intercept"]).all()
    assert "ICI, E50, E90 (fewer than 10 events) at t=5" in message
    assert "slope" not in message and "intercept" not in message


def test_without_slope_and_curve_every_other_number_is_the_full_calls(cohort):
    """slope_and_curve=False skips the two Cox fits per group and horizon: the slope, ICI, E50,
    E90 and the curves are NaN without a warning, every other number is the full call's, to the
    bit, and the result says what it left out."""
    import warnings

    time, event, group, risk = cohort
    predicted = np.column_stack([risk(3.0), risk(5.0)])
    full = survfair.calibration(time, event, group, predicted, [3.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quick = survfair.calibration(
            time, event, group, predicted, [3.0, 5.0], slope_and_curve=False
        )
    a, b = full.to_frame(), quick.to_frame()
    kept = ~a["statistic"].isin(["slope", "ici", "e50", "e90"])
    pd.testing.assert_frame_equal(a[kept], b[kept])
    assert b.loc[~kept, ["estimate", "se", "ci_low", "ci_high"]].isna().all().all()
    assert np.isfinite(a.loc[~kept, "estimate"]).all()
    pd.testing.assert_frame_equal(full.gnd, quick.gnd)
    pd.testing.assert_frame_equal(full.bins, quick.bins)
    assert quick.curves["observed"].isna().all() and full.curves["observed"].notna().all()
    checked = ["oe_ratio", "intercept", "brier"]
    pd.testing.assert_frame_equal(full.contrasts(checked), quick.contrasts(checked))
    assert full.slope_and_curve and not quick.slope_and_curve
    assert json.loads(json.dumps(quick.to_dict()))["slope_and_curve"] is False
    assert "slope and ICI not computed (slope_and_curve=False" in str(quick)
    # what a reader of the findings and of the report is told
    said = " ".join(survfair.calibration_findings(quick).sentences)
    assert "were not computed (slope_and_curve=False)" in said
    assert "intervals only with ci='bootstrap'" not in said
    assert "were not computed" not in " ".join(survfair.calibration_findings(full).sentences)


def test_a_report_says_the_slope_and_curve_were_not_computed(cohort, tmp_path):
    """The report's calibration section and figure caption follow slope_and_curve=False (no
    slope column explained as if computed, no smooth curve announced that is not drawn)."""
    time, event, group, risk = cohort
    quick = survfair.calibration(time, event, group, risk(5.0), 5.0, slope_and_curve=False)
    xci = survfair.xci(time, event, group, risk(5.0), tau=5.0)
    path = tmp_path / "report.html"
    survfair.write_report(xci, path, calibration=quick)
    html = path.read_text()
    assert "The slope, ICI and E90 were not computed (slope_and_curve=False)" in html
    assert "no smooth calibration curves (not computed: slope_and_curve=False)" in html
    assert "lines: smooth calibration curves" not in html


def test_slope_and_curve_must_be_a_bool(cohort):
    time, event, group, risk = cohort
    with pytest.raises(TypeError, match="slope_and_curve must be True or False, got a str"):
        survfair.calibration(time, event, group, risk(5.0), 5.0, slope_and_curve="no")


def test_warning_says_a_fit_failed_rather_than_too_few_events(cohort):
    """Constant predictions: the Cox fits on cloglog F have no information (many events, no fit);
    the warning must not blame the number of events."""
    time, event, group, _ = cohort
    with pytest.warns(UserWarning, match="could not be fitted") as caught:
        survfair.calibration(time, event, group, np.full(time.size, 0.3), 5.0)
    message = str([w for w in caught if "undefined" in str(w.message)][0].message)
    assert "fewer than" not in message


# -- competing risks (cause=, issue 33.5) ----------------------------------------------------------
def competing_cohort(n=800, seed=4):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    t1 = rng.exponential(6 * np.exp(-0.6 * x))
    t2 = rng.exponential(9, n)
    censor = rng.uniform(0, 15, n)
    time = np.round(np.minimum.reduce([t1, t2, censor]), 1) + 0.1  # ties on purpose
    event = np.select([np.minimum(t1, t2) <= censor], [np.where(t1 <= t2, 1, 2)], 0)
    group = np.where(rng.random(n) < 0.5, "F", "M")
    return time, event, group, np.clip(0.25 * np.exp(0.5 * x), 0, 1)


def test_competing_risks_observed_risk_equals_scikit_survival_aalen_johansen():
    from sksurv.nonparametric import cumulative_incidence_competing_risks

    time, event, group, predicted = competing_cohort()
    for cause in (1, 2):
        res = survfair.calibration(time, event, group, predicted, 3.0, cause=cause)
        for g in ("F", "M"):
            members = group == g
            x, cif = cumulative_incidence_competing_risks(event[members], time[members])
            expected = cif[cause][np.searchsorted(x, 3.0, side="right") - 1]
            assert res.summary().loc[g, "observed_risk"] == pytest.approx(expected, rel=1e-13)


def test_competing_risks_influence_is_the_derivative_of_aalen_johansen():
    """The IJ variance's terms are dF/dw_i: checked against finite differences of a weighted AJ."""
    from survfair._calibration.stats import aalen_johansen_influence

    time, event, _, _ = competing_cohort(60, 9)
    e1, e2 = event == 1, event == 2

    def weighted(w):
        value, survival = 0.0, 1.0
        for u in np.unique(time):
            at_risk = w[time >= u].sum()
            if u <= 3.0:
                value += survival * w[(time == u) & e1].sum() / at_risk
            survival *= 1 - w[(time == u) & (e1 | e2)].sum() / at_risk
        return value

    estimate, ij = aalen_johansen_influence(time, e1, e2, 3.0)
    assert estimate == pytest.approx(weighted(np.ones(60)), rel=1e-13)
    step = 1e-6
    unit = np.eye(60)
    numeric = [
        (weighted(1 + step * unit[i]) - weighted(1 - step * unit[i])) / (2 * step)
        for i in range(60)
    ]
    np.testing.assert_allclose(ij, numeric, atol=1e-8)


def test_competing_risks_without_competing_events_is_kaplan_meier():
    time, event, group, risk = weibull_cohort(600, 3)
    p = risk(5.0)
    plain = (
        survfair.calibration(time, event, group, p, 5.0)
        .to_frame()
        .set_index(["group", "statistic"])
    )
    crisks = (
        survfair.calibration(time, event.astype(int), group, p, 5.0, cause=1)
        .to_frame()
        .set_index(["group", "statistic"])
    )
    for statistic in ("observed_risk", "oe_ratio", "brier"):
        np.testing.assert_allclose(
            crisks.xs(statistic, level="statistic")["estimate"],
            plain.xs(statistic, level="statistic")["estimate"],
            rtol=1e-12,
        )
    # the IJ variance of a Kaplan-Meier curve is close to, not equal to, Greenwood's
    np.testing.assert_allclose(
        crisks.xs("observed_risk", level="statistic")["se"],
        plain.xs("observed_risk", level="statistic")["se"],
        rtol=0.05,
    )


def test_competing_risks_undefined_statistics_are_nan_without_warning_and_said_in_findings():
    import warnings

    time, event, group, predicted = competing_cohort()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = survfair.calibration(
            time,
            event,
            group,
            np.column_stack([predicted, np.minimum(1.5 * predicted, 1)]),
            [2.0, 4.0],
            cause=1,
        )
    summary = res.summary()
    assert summary[["slope", "intercept", "ici", "e50", "e90"]].isna().all().all()
    assert np.isfinite(summary[["observed_risk", "oe_ratio", "brier", "gnd_p"]]).all().all()
    assert res.cause == 1 and json.loads(json.dumps(res.to_dict()))["cause"] == 1
    assert "<table" in res._repr_html_()
    assert "cause=1" in str(res) and "not defined for a cumulative incidence" in str(res)
    found = survfair.calibration_findings(res)
    assert any("Competing risks (cause 1)" in s and "Aalen-Johansen" in s for s in found.sentences)
    assert not any("ICI, E50 and E90 have intervals only" in s for s in found.sentences)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(cause=0), ValueError, "cause must be >= 1"),
        (dict(cause=True), TypeError, "cause must be an integer"),
        (dict(cause=3), ValueError, "event has no row of cause=3"),
        (dict(brier_variance="score"), ValueError, "brier_variance"),
    ],
    ids=["cause-0", "cause-bool", "cause-absent", "brier-variance"],
)
def test_competing_risks_and_brier_variance_validation(kwargs, error, match):
    time, event, group, predicted = competing_cohort()
    with pytest.raises(error, match=match):
        survfair.calibration(time, event, group, predicted, 3.0, **kwargs)


def test_competing_risks_refuses_event_codes_that_are_not_causes():
    time, event, group, predicted = competing_cohort()
    bad = event.astype(float)
    bad[[4, 9]] = 1.5
    with pytest.raises(ValueError, match="event must hold cause codes"):
        survfair.calibration(time, bad, group, predicted, 3.0, cause=1)


def test_competing_risks_bootstrap_runs():
    time, event, group, predicted = competing_cohort(300, 2)
    res = survfair.calibration(
        time,
        event,
        group,
        predicted,
        3.0,
        cause=1,
        ci="bootstrap",
        n_resamples=10,
        random_state=1,
        progress=False,
    )
    summary = res.summary()
    assert (
        np.isfinite(summary["oe_ratio_ci_low"]).all()
        and np.isfinite(summary["brier_ci_high"]).all()
    )


# -- Brier variance (issue 33.4) -------------------------------------------------------------------
def _naive_censoring_term(at, terms, time, observed):
    """O(n^2) twin of brier_censoring_influence: the sum over terms of r_i IF_Lambda(s_i; k),
    written from its definition (events leave the risk set of censoring before censorings at a
    tied time)."""
    psi = np.zeros(time.size)
    unique = np.unique(time)
    risk_set = np.array([(time >= u).sum() - ((time == u) & observed).sum() for u in unique], float)
    censored = np.array([((time == u) & ~observed).sum() for u in unique], float)
    for k in range(time.size):
        for s, r in zip(at, terms):
            jump = (not observed[k]) and time[k] <= s
            value = 1.0 / risk_set[np.searchsorted(unique, time[k])] if jump else 0.0
            for j, u in enumerate(unique):
                at_risk = time[k] > u or (time[k] == u and not observed[k])
                if u <= min(s, time[k]) and at_risk and censored[j] > 0:
                    value -= censored[j] / risk_set[j] ** 2
            psi[k] += r * value
    return psi


def test_brier_censoring_influence_equals_its_naive_twin_with_ties():
    from survfair._calibration.stats import brier_censoring_influence

    rng = np.random.default_rng(12)
    time = rng.integers(1, 15, 80).astype(float)  # many ties, events and censorings together
    observed = rng.random(80) < 0.6
    horizon = 8.0
    risk = rng.uniform(0.05, 0.9, 80)
    at = np.where(observed & (time <= horizon), time, horizon)
    terms = np.where(
        observed & (time <= horizon), (1 - risk) ** 2, np.where(time > horizon, risk**2, 0.0)
    )
    np.testing.assert_allclose(
        brier_censoring_influence(at, terms, time, observed),
        _naive_censoring_term(at, terms, time, observed),
        rtol=1e-12,
        atol=1e-14,
    )


def test_brier_variance_pooled_equals_group_for_one_group_and_integrated_uses_the_option(cohort):
    time, event, group, risk = cohort
    p = np.column_stack([risk(3.0), risk(5.0)])
    one = np.zeros(time.size)
    frames = {
        c: survfair.calibration(time, event, one, p, [3.0, 5.0], censoring=c).to_frame()
        for c in ("group", "pooled")
    }
    pd.testing.assert_frame_equal(frames["group"], frames["pooled"])
    default = survfair.calibration(time, event, group, p, [3.0, 5.0]).to_frame()
    fixed = survfair.calibration(
        time, event, group, p, [3.0, 5.0], brier_variance="conservative"
    ).to_frame()
    for statistic in ("brier", "integrated_brier"):
        a = default[default["statistic"] == statistic]["se"].to_numpy()
        b = fixed[fixed["statistic"] == statistic]["se"].to_numpy()
        assert (b > a).all() and (b < 1.5 * a).all()
    # pooled censoring: the censoring term runs over every row; the SE stays close to the group one
    pooled = survfair.calibration(time, event, group, p, [3.0, 5.0], censoring="pooled").to_frame()
    ratio = (
        pooled[pooled["statistic"] == "brier"]["se"].to_numpy()
        / default[default["statistic"] == "brier"]["se"].to_numpy()
    )
    assert ((ratio > 0.8) & (ratio < 1.25)).all()


def test_fairness_profile_uses_the_first_horizon_by_default(cohort):
    time, event, group, risk = cohort
    res = survfair.calibration(
        time, event, group, np.column_stack([risk(3.0), risk(5.0)]), [3.0, 5.0]
    )
    ranking = survfair.xci(time, event, group, risk(5.0), tau=10)
    profile = survfair.fairness_profile(ranking, res)
    assert profile["oe_ratio"].tolist() == res.summary(3.0)["oe_ratio"].tolist()


@pytest.mark.parametrize("slope_and_curve", [True, False])
def test_the_clipped_risks_sentence_names_only_what_was_computed(slope_and_curve):
    """Predicted risks of exactly 1 are clipped for the cloglog transform: the findings name the
    statistics that depend on the clip, and without the slope and curve only the intercept."""
    rng = np.random.default_rng(3)
    n = 400
    time, event = rng.exponential(size=n), rng.random(n) < 0.7
    group = rng.integers(0, 2, n)
    predicted = rng.uniform(0.2, 0.9, n)
    predicted[:5] = 1.0
    cal = survfair.calibration(
        time, event, group, predicted[:, None], [1.0], slope_and_curve=slope_and_curve
    )
    clipped = [s for s in survfair.calibration_findings(cal).sentences if "were clipped" in s]
    assert len(clipped) == 1
    if slope_and_curve:
        assert "the calibration slope, intercept and ICI there depend on that clip" in clipped[0]
    else:
        assert "the calibration intercept there depends on that clip" in clipped[0]
        assert "slope" not in clipped[0] and "ICI" not in clipped[0]
