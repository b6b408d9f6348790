"""The calibration cost of a mitigation: adjusted predicted risks, per group, beside the ranking
gain."""

import numpy as np
import pandas as pd
import pytest
from _intervals import tidy

import survfair
from survfair.mitigate import calibration_cost, frontier, group_monotone, group_shift
from survfair.mitigate._calibration_cost import adjusted_risks


@pytest.fixture(scope="module")
def inflated():
    """Group b's linear predictor is inflated by 0.5: its predicted risks are too high."""
    rng = np.random.default_rng(0)
    n = 1000
    group = np.where(rng.random(n) < 0.5, "a", "b")
    x = 0.6 * rng.normal(size=n)  # no predicted risk within 1e-10 of 1 (the cloglog would clip it)
    true_time = rng.exponential(5 * np.exp(-x))
    censor = rng.uniform(0, 10, n)
    lp = x + 0.5 * (group == "b")
    risk3 = 1 - np.exp(-3 * np.exp(lp) / 5)
    risk5 = 1 - np.exp(-5 * np.exp(lp) / 5)
    return (
        np.minimum(true_time, censor),
        true_time <= censor,
        group,
        lp,
        np.column_stack([risk3, risk5]),
    )


def test_adjusted_risks_closed_form():
    f = np.array([[0.1, 0.3], [0.5, 0.9]])
    r = np.array([0.0, 1.0])
    np.testing.assert_allclose(adjusted_risks(f, r, r, "log_hazard"), f, rtol=1e-15)
    shifted = adjusted_risks(f, r, r + np.array([0.7, -0.2]), "log_hazard")
    expected = 1 - (1 - f) ** np.exp(np.array([0.7, -0.2]))[:, None]
    np.testing.assert_allclose(shifted, expected, rtol=1e-14)
    np.testing.assert_array_equal(
        adjusted_risks(f[:, :1], r, np.array([0.2, 0.4]), "probability")[:, 0], [0.2, 0.4]
    )


def test_calibration_cost_of_a_shift(inflated):
    time, event, group, lp, risks = inflated
    shift = group_shift(time, event, group, lp, tau=8)
    cost = calibration_cost(shift, time, event, group, lp, risks, [3.0, 5.0])
    d = float(shift.offsets["b"])
    manual = 1 - (1 - risks) ** np.exp(np.where(group == "b", d, 0.0))[:, None]
    expected = survfair.calibration(time, event, group, manual, [3.0, 5.0])
    pd.testing.assert_frame_equal(cost.after.to_frame(), expected.to_frame())
    table = cost.to_frame()
    calibration = table[table["part"] == "calibration"].set_index(["time", "metric", "a"])
    for t in (3.0, 5.0):
        # a shift of the log hazard moves the cloglog intercept by minus the offset and leaves the
        # slope alone (exactly: the Cox fit of a shifted covariate)
        assert risks.max() < 1 - 1e-6
        assert calibration.loc[(t, "intercept", "b"), "change"] == pytest.approx(-d, abs=1e-9)
        assert calibration.loc[(t, "slope", "b"), "change"] == pytest.approx(0.0, abs=1e-6)
        assert calibration.loc[(t, "oe_ratio", "a"), "change"] == 0.0
    # the shift removes the inflation here, so group b's O/E moves towards 1
    before, after = calibration.loc[(3.0, "oe_ratio", "b"), ["before", "after"]]
    assert abs(np.log(after)) < abs(np.log(before))
    ranking = table[table["part"] == "ranking"]
    own = shift.to_frame()
    own = own[own["sample"] == "fit"]
    np.testing.assert_allclose(ranking["after"].to_numpy(), own["after"].to_numpy(), rtol=1e-12)
    assert "CalibrationCost" in repr(cost)
    assert cost.to_dict()["scale"] == "log_hazard"


def test_calibration_cost_of_a_monotone_map_and_errors(inflated):
    time, event, group, lp, risks = inflated
    monotone = group_monotone(time, event, group, lp, tau=8)
    cost = calibration_cost(monotone, time, event, group, lp, risks[:, 0], 3.0)
    adjusted = monotone.transform(lp, group)
    manual = 1 - (1 - risks[:, :1]) ** np.exp(adjusted - lp)[:, None]
    pd.testing.assert_frame_equal(
        cost.after.to_frame(), survfair.calibration(time, event, group, manual, 3.0).to_frame()
    )
    with pytest.raises(TypeError, match="GroupShift or GroupMonotone"):
        calibration_cost("shift", time, event, group, lp, risks[:, 0], 3.0)
    with pytest.raises(ValueError, match="one horizon"):
        calibration_cost(monotone, time, event, group, lp, risks, [3.0, 5.0], scale="probability")
    with pytest.raises(ValueError, match="scale must be one of"):
        calibration_cost(monotone, time, event, group, lp, risks[:, 0], 3.0, scale="odds")


def test_frontier_reports_each_groups_o_e(inflated):
    time, event, group, lp, risks = inflated
    curve = frontier(
        time, event, group, lp, tau=8, predicted=risks[:, 0], times=3.0, n_points=4
    ).to_frame()
    base = survfair.calibration(time, event, group, risks[:, 0], 3.0).summary()
    unadjusted = curve[curve["unadjusted"]].iloc[0]
    assert unadjusted["oe_ratio[a]"] == pytest.approx(base.loc["a", "oe_ratio"], rel=1e-12)
    assert unadjusted["oe_ratio[b]"] == pytest.approx(base.loc["b", "oe_ratio"], rel=1e-12)
    assert (
        curve["oe_ratio[a]"] == curve["oe_ratio[a]"].iloc[0]
    ).all()  # the reference group never moves
    assert curve.sort_values("offset")[
        "oe_ratio[b]"
    ].is_monotonic_decreasing  # higher risk, lower O/E
    with pytest.raises(ValueError, match="go together"):
        frontier(time, event, group, lp, tau=8, predicted=risks[:, 0])
    with pytest.raises(ValueError, match="one horizon"):
        frontier(time, event, group, lp, tau=8, predicted=risks, times=[3.0, 5.0])


def test_group_shift_carries_the_calibration_of_its_adjusted_risks(inflated):
    """Issue 15, item 9: with predicted= / times= (frontier's options) the fitted shift reports each
    group's calibration of the adjusted predicted risks beside the ranking gain -- on the held-out
    rows when fit_on is given -- in .calibration, to_frame() and to_dict()."""
    time, event, group, lp, risks = inflated
    train = np.arange(len(time)) % 3 != 0
    plain = group_shift(time, event, group, lp, tau=8, fit_on=train)
    assert plain.calibration is None and "time" not in plain.to_frame().columns
    assert plain.to_dict()["calibration"] is None
    shift = group_shift(
        time, event, group, lp, tau=8, fit_on=train, predicted=risks, times=[3.0, 5.0]
    )
    assert shift.offset_values == plain.offset_values  # the fit does not change
    held = ~train
    expected = calibration_cost(
        plain, time[held], event[held], group[held], lp[held], risks[held], [3.0, 5.0]
    )
    pd.testing.assert_frame_equal(shift.calibration.to_frame(), expected.to_frame())
    frame = shift.to_frame()
    ranking = frame[frame["time"].isna()].drop(columns="time")
    pd.testing.assert_frame_equal(ranking.reset_index(drop=True), plain.to_frame())
    rows = frame[frame["time"].notna()]
    assert set(rows["sample"]) == {"evaluation"} and set(rows["time"]) == {3.0, 5.0}
    oe = rows[(rows["metric"] == "oe_ratio") & (rows["a"] == "b")].set_index("time")
    cost = expected.to_frame()
    cost = cost[(cost["metric"] == "oe_ratio") & (cost["a"] == "b")].set_index("time")
    np.testing.assert_allclose(oe["after"], cost["after"], rtol=0)
    exported = shift.to_dict()["calibration"]
    assert exported["sample"] == "evaluation" and exported["scale"] == "log_hazard"
    assert exported["n_samples"] == int(held.sum())


def test_group_monotone_carries_its_calibration_in_sample_and_options_are_checked(inflated):
    time, event, group, lp, risks = inflated
    frame = pd.DataFrame(
        {"t": time, "e": event, "g": group, "lp": lp, "r3": risks[:, 0]},
        index=pd.RangeIndex(100, 100 + len(time)),
    )
    monotone = group_monotone("t", "e", "g", "lp", data=frame, tau=8, predicted="r3", times=3.0)
    expected = calibration_cost(
        group_monotone("t", "e", "g", "lp", data=frame, tau=8),
        "t",
        "e",
        "g",
        "lp",
        "r3",
        3.0,
        data=frame,
    )
    pd.testing.assert_frame_equal(monotone.calibration.after.to_frame(), expected.after.to_frame())
    rows = monotone.to_frame().dropna(subset=["time"])
    assert set(rows["sample"]) == {"fit"} and monotone.to_dict()["calibration"]["sample"] == "fit"
    with pytest.raises(ValueError, match="predicted and times go together"):
        group_shift("t", "e", "g", "lp", data=frame, tau=8, predicted="r3")
    with pytest.raises(ValueError, match="times has 2 horizon"):
        group_monotone("t", "e", "g", "lp", data=frame, tau=8, predicted="r3", times=[3.0, 5.0])
    with pytest.raises(ValueError, match="scale must be one of"):
        group_shift("t", "e", "g", "lp", data=frame, tau=8, predicted="r3", times=3.0, scale="odds")
    bad = frame.assign(r3=frame["r3"].where(frame.index != 105, 1.5))
    with pytest.raises(ValueError, match=r"predicted column 'r3': .* outside at rows \[105\]"):
        group_shift("t", "e", "g", "lp", data=bad, tau=8, predicted="r3", times=3.0)


def test_adjustment_intervals_follow_to_frame_rows_with_calibration():
    """Review: with predicted=, to_frame() had the calibration rows after the ranking rows but
    confidence_interval() returned the ranking rows only (20 of 44)."""
    import survfair

    rng = np.random.default_rng(2)
    n = 400
    g = rng.integers(0, 2, n)
    x = rng.normal(size=n) + 0.4 * g
    t, c = rng.exponential(np.exp(-x)), rng.exponential(2, n)
    time, event = np.minimum(t, c), t <= c
    predicted = 1 - np.exp(-np.exp(x) * 0.5)
    fitted = survfair.mitigate.group_shift(
        time, event, g, x, predicted=predicted, times=[0.5], tau=1.5
    )
    frame = fitted.to_frame()
    for level in (None, 0.8):
        limits = tidy(fitted.confidence_interval(level))
        assert len(limits) == len(frame)
        pd.testing.assert_frame_equal(
            limits[["sample", "metric", "a", "b", "time"]].reset_index(drop=True),
            frame[["sample", "metric", "a", "b", "time"]].reset_index(drop=True),
        )
    same = tidy(fitted.confidence_interval(None))
    np.testing.assert_allclose(
        same["after_ci_low"], frame["after_ci_low"], rtol=1e-12, equal_nan=True
    )
