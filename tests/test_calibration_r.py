"""survfair.calibration against reference values computed once with R (tests/fixtures/calibration).

R 4.2.2 with survival 3.5.3, rms 6.5.0 and riskRegression 2022.11.28 (versions.txt); regenerate
with the two commands of the fixture's README. The input has continuous times (no tied event
times), so R's Efron and our Breslow partial likelihoods are the same function and the Breslow
baselines (R: ``ctype=1``) agree; what is left is where the Newton-Raphson iterations stop: R's
``coxph`` stops when the log-likelihood changes by less than 1e-9 relative (its default ``eps``),
which leaves about 1e-9 relative error in its coefficients; survfair's lifelines fit stops much
later, so the Cox-model numbers agree to 1e-8 and the closed forms to 1e-12.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import survfair

HERE = Path(__file__).parent / "fixtures" / "calibration"


@pytest.fixture(scope="module")
def computed():
    data = pd.read_csv(HERE / "input.csv")
    result = survfair.calibration(
        "time", "event", "group", ["pred3", "pred5"], [3.0, 5.0], data=data, min_bin_events=0
    )
    return data, result


@pytest.fixture(scope="module")
def reference():
    return pd.read_csv(HERE / "reference.csv", skipinitialspace=True).set_index(
        ["group", "horizon"]
    )


def _ours(result, group, horizon):
    frame = result.to_frame()
    rows = frame[(frame["group"] == group) & (frame["time"] == horizon)].set_index("statistic")
    return rows


@pytest.mark.parametrize("group", ["A", "B"])
@pytest.mark.parametrize("horizon", [3.0, 5.0])
def test_calibration_equals_r(computed, reference, group, horizon):
    _, result = computed
    ref = reference.loc[(group, int(horizon))]
    ours = _ours(result, group, horizon)
    summary = result.summary(horizon).loc[group]
    assert summary["n"] == ref["n"] and summary["events"] == ref["events"]
    # Kaplan-Meier and Greenwood (survival::survfit)
    assert ours.loc["observed_risk", "estimate"] == pytest.approx(ref["km_risk"], rel=1e-13)
    assert ours.loc["expected_risk", "estimate"] == pytest.approx(ref["expected"], rel=1e-13)
    assert ours.loc["oe_ratio", "estimate"] == pytest.approx(ref["oe"], rel=1e-13)
    assert ours.loc["oe_ratio", "se"] == pytest.approx(ref["oe"] * ref["oe_se_log"], rel=1e-12)
    # the documented interval exp(log O/E +- z SE(log O/E)) from R's own log-scale SE (issue 33: the
    # limits once divided the log-scale SE by O/E a second time; the SE test above could not see it)
    z = 1.959963984540054
    assert ours.loc["oe_ratio", "ci_low"] == pytest.approx(
        ref["oe"] * np.exp(-z * ref["oe_se_log"]), rel=1e-12
    )
    assert ours.loc["oe_ratio", "ci_high"] == pytest.approx(
        ref["oe"] * np.exp(z * ref["oe_se_log"]), rel=1e-12
    )
    # slope: coxph(Surv(min(T, t), event by t) ~ cloglog F); intercept: offset model, Breslow
    # baseline
    assert ours.loc["slope", "estimate"] == pytest.approx(ref["slope"], rel=1e-8)
    assert ours.loc["slope", "se"] == pytest.approx(ref["slope_se"], rel=1e-8)
    assert ours.loc["intercept", "estimate"] == pytest.approx(ref["intercept"], rel=1e-12)
    assert ours.loc["intercept", "se"] == pytest.approx(ref["intercept_se"], rel=1e-12)
    assert ref["intercept_se"] == pytest.approx(ref["intercept_se_formula"], rel=1e-12)
    # smooth curve: coxph on rms::rcs(cloglog F, 3 knots at the 10/50/90th percentiles)
    assert ours.loc["ici", "estimate"] == pytest.approx(ref["ici"], rel=1e-8)
    assert ours.loc["e50", "estimate"] == pytest.approx(ref["e50"], rel=1e-8)
    assert ours.loc["e90", "estimate"] == pytest.approx(ref["e90"], rel=1e-8)
    # GND over deciles, no bins merged (min_bin_events=0)
    gnd = result.gnd[(result.gnd["group"] == group) & (result.gnd["time"] == horizon)].iloc[0]
    assert gnd["df"] == ref["gnd_df"]
    assert gnd["chi2"] == pytest.approx(ref["gnd_chi2"], rel=1e-11)
    assert gnd["p_value"] == pytest.approx(ref["gnd_p"], rel=1e-9, abs=1e-15)
    # Brier: our IPCW terms equal R's by-hand terms and riskRegression::Score's estimate
    assert ours.loc["brier", "estimate"] == pytest.approx(ref["brier_manual"], rel=1e-13)
    assert ours.loc["brier", "estimate"] == pytest.approx(ref["brier"], rel=1e-12)
    frame = result.to_frame()
    ibs = frame[(frame["group"] == group) & (frame["statistic"] == "integrated_brier")][
        "estimate"
    ].item()
    assert ibs == pytest.approx(ref["ibs"], rel=1e-13)


def test_smooth_curve_values_equal_r_for_every_person(computed):
    from survfair._calibration.stats import smooth_calibration

    data, _ = computed
    expected = pd.read_csv(HERE / "smooth_obs.csv", skipinitialspace=True)
    for (group, horizon), rows in expected.groupby(["group", "horizon"]):
        members = data.index[data["group"] == group]
        fit = smooth_calibration(
            data.loc[members, "time"].to_numpy(),
            data.loc[members, "event"].to_numpy(bool),
            data.loc[members, f"pred{horizon}"].to_numpy(),
            float(horizon),
        )
        np.testing.assert_allclose(
            fit.observed, rows.sort_values("row")["obs"].to_numpy(), rtol=1e-8
        )


def test_gnd_bins_equal_r(computed):
    _, result = computed
    expected = pd.read_csv(HERE / "gnd_bins.csv", skipinitialspace=True)
    for (group, horizon), rows in expected.groupby(["group", "horizon"]):
        ours = result.bins[(result.bins["group"] == group) & (result.bins["time"] == horizon)]
        np.testing.assert_array_equal(ours["n"].to_numpy(), rows["n"].to_numpy())
        np.testing.assert_array_equal(ours["events"].to_numpy(), rows["events"].to_numpy())
        np.testing.assert_allclose(
            ours["observed"].to_numpy(), rows["km_fail"].to_numpy(), rtol=1e-13
        )
        np.testing.assert_allclose(
            ours["observed_se"].to_numpy(), rows["km_se"].to_numpy(), rtol=1e-12
        )
        np.testing.assert_allclose(
            ours["predicted"].to_numpy(), rows["expected"].to_numpy(), rtol=1e-13
        )


BRIER = Path(__file__).parent / "fixtures" / "calibration_brier"


@pytest.fixture(scope="module")
def brier_reference():
    return pd.read_csv(BRIER / "reference.csv", skipinitialspace=True)


def _brier_rows(brier_variance):
    lung = pd.read_csv(BRIER / "lung.csv")
    data = pd.read_csv(HERE / "input.csv")
    frames = [
        survfair.calibration(
            "time", "event", "group", "pred365", 365, data=lung, brier_variance=brier_variance
        )
        .to_frame()
        .assign(data="lung"),
        survfair.calibration(
            "time",
            "event",
            "group",
            ["pred3", "pred5"],
            [3, 5],
            data=data,
            brier_variance=brier_variance,
        )
        .to_frame()
        .assign(data="calibration"),
    ]
    frame = pd.concat(frames)
    return frame[frame["statistic"] == "brier"].set_index(["data", "group", "time"])


@pytest.mark.parametrize(
    "brier_variance, column", [("influence", "se"), ("conservative", "se_conservative")]
)
def test_brier_standard_errors_equal_riskregression_score(brier_reference, brier_variance, column):
    """brier_variance="influence" (default) is Score's default (conservative=FALSE: the influence
    function counts the Kaplan-Meier estimation of the censoring weights), "conservative" is
    Score(conservative=TRUE). Where no censoring shares its day with an event the estimates and both
    SEs agree to 1e-13; lung's men have such ties (riskRegression weights a case by G(T-), survfair
    by G(T), events leaving the risk set before censorings), so there the Brier score differs by
    4e-4 relative and the SE by 0.2%."""
    ours = _brier_rows(brier_variance)
    for _, ref in brier_reference.iterrows():
        row = ours.loc[(ref["data"], ref["group"], float(ref["horizon"]))]
        tied = ref["data"] == "lung" and ref["group"] == "men"
        assert row["estimate"] == pytest.approx(ref["brier"], rel=1e-3 if tied else 1e-13)
        assert row["se"] == pytest.approx(ref[column], rel=3e-3 if tied else 1e-12)


def test_conservative_brier_se_is_larger_lung_women_by_45_percent(brier_reference):
    women = brier_reference[
        (brier_reference["data"] == "lung") & (brier_reference["group"] == "women")
    ].iloc[0]
    assert women["se_conservative"] / women["se"] == pytest.approx(1.455, abs=1e-3)
    default, conservative = _brier_rows("influence"), _brier_rows("conservative")
    ratio = conservative["se"] / default["se"]
    assert (ratio >= 1).all()
    assert ratio.loc[("lung", "women", 365.0)] == pytest.approx(1.455, abs=1e-3)


# -- competing risks (cause=) ----------------------------------------------------------------------
CR = Path(__file__).parent / "fixtures" / "calibration_cr"


@pytest.fixture(scope="module")
def competing_results():
    melanoma = pd.read_csv(CR / "melanoma.csv")
    simulated = pd.read_csv(CR / "input.csv")
    out = {}
    for brier_variance in ("influence", "conservative"):
        frames = [
            survfair.calibration(
                "time",
                "event",
                "group",
                "pred1825",
                1825,
                data=melanoma,
                cause=1,
                brier_variance=brier_variance,
            )
            .to_frame()
            .assign(data="melanoma"),
            survfair.calibration(
                "time",
                "event",
                "group",
                ["pred2", "pred4"],
                [2, 4],
                data=simulated,
                cause=1,
                brier_variance=brier_variance,
            )
            .to_frame()
            .assign(data="simulated"),
        ]
        out[brier_variance] = (
            pd.concat(frames).set_index(["data", "group", "time", "statistic"]).sort_index()
        )
    return out


def test_competing_risks_equal_survfit_prodlim_and_score(competing_results):
    """Aalen-Johansen cumulative incidence and its SE equal survival::survfit (multi-state,
    infinitesimal jackknife) and prodlim; the IPCW Brier score of the CIF and both of its SEs equal
    riskRegression::Score(Hist(time, event) ~ 1, cause = 1) with conservative = FALSE / TRUE; all to
    1e-12 (Melanoma has tied times, none an event tied with a censoring)."""
    reference = pd.read_csv(CR / "reference.csv", skipinitialspace=True)
    for _, ref in reference.iterrows():
        for brier_variance, se_column in (("influence", "se"), ("conservative", "se_conservative")):
            ours = competing_results[brier_variance].loc[
                (ref["data"], ref["group"], float(ref["horizon"]))
            ]
            assert (
                ours.loc["observed_risk", "n"] == ref["n"]
                and ours.loc["observed_risk", "events"] == ref["events"]
            )
            assert ours.loc["observed_risk", "estimate"] == pytest.approx(ref["aj"], rel=1e-12)
            assert ours.loc["observed_risk", "estimate"] == pytest.approx(
                ref["prodlim_cif"], rel=1e-12
            )
            assert ours.loc["observed_risk", "se"] == pytest.approx(ref["aj_se"], rel=1e-12)
            assert ours.loc["observed_risk", "se"] == pytest.approx(ref["prodlim_se"], rel=1e-12)
            assert ours.loc["expected_risk", "estimate"] == pytest.approx(
                ref["expected"], rel=1e-13
            )
            assert ours.loc["oe_ratio", "estimate"] == pytest.approx(
                ref["aj"] / ref["expected"], rel=1e-12
            )
            assert ours.loc["oe_ratio", "se"] == pytest.approx(
                ref["aj_se"] / ref["expected"], rel=1e-12
            )
            assert ours.loc["brier", "estimate"] == pytest.approx(ref["brier"], rel=1e-12)
            assert ours.loc["brier", "se"] == pytest.approx(ref[se_column], rel=1e-12)
            for statistic in ("slope", "intercept", "ici", "e50", "e90"):
                assert np.isnan(ours.loc[statistic, "estimate"])
