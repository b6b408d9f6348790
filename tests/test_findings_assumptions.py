"""Findings that check what they rest on (issue 41): absence only inside an equivalence margin,
calibration decides the model-based reading, a reference that is not the score's own is never
read as "no excess"."""

from __future__ import annotations

import numpy as np
import pytest

import survfair
from survfair import findings

HORIZONS = [1.0, 2.0]


def cohort(n=2000, seed=0, hazard_factor=(1.0, 1.0)):
    """Old (10 x baseline hazard) and young; the model's curves are the truth times
    ``hazard_factor`` (old, young): (1, 1) is a perfect model."""
    rng = np.random.default_rng(seed)
    old = rng.random(n) < 0.5
    total = rng.normal(size=n) + np.where(old, np.log(10.0), 0.0)
    t = rng.exponential(size=n) * np.exp(-total)
    c = 3 * rng.exponential(size=n)
    time, event = np.minimum(t, c), t <= c
    group = np.where(old, "old", "young")
    model = total + np.log(np.where(old, *hazard_factor))  # the model's log hazard
    grid = np.linspace(0.01, 5.0, 500)
    curves = np.exp(-grid[None, :] * np.exp(model)[:, None])
    reference = survfair.model_based_xci(
        time, event, group, model, survival=curves, times=grid, tau=2.0
    )
    risks = np.column_stack([-np.expm1(-h * np.exp(model)) for h in HORIZONS])
    cal = survfair.calibration(time, event, group, risks, HORIZONS)
    return reference, cal


def test_a_perfect_model_with_calibration_reads_as_the_groups_risks():
    reference, cal = cohort()
    found = findings(reference, calibration=cal)
    lead = found.sentences[1]
    assert found.calibration_status == "not rejected"
    assert lead.startswith("No excess cross-group asymmetry: the largest observed asymmetry")
    assert "it comes from the groups' different risks, not from how the model ranks them" in lead
    assert "Calibration within and between groups was tested at 1 and 2" in lead
    assert "disadvantage" not in found.to_text()


def test_without_calibration_the_reading_is_unchecked():
    reference, _ = cohort()
    found = findings(reference)
    assert found.calibration_status == "unchecked"
    lead = found.sentences[1]
    assert "only if the predictions are calibrated within each group" in lead
    assert "which was not checked here" in lead
    assert "not from how the model ranks them" not in lead


def test_miscalibrated_predictions_keep_the_asymmetry_from_the_groups_risks():
    """The model doubles the young group's hazard: its own ranking is intact, but its predictions
    are not calibrated in young and differ between the groups."""
    reference, cal = cohort(hazard_factor=(1.0, 2.0))
    found = findings(reference, calibration=cal)
    assert found.calibration_status == "rejected"
    lead = found.sentences[1]
    assert "not from how the model ranks them" not in lead
    assert "No excess" not in lead
    assert "Calibration is rejected (" in lead and " in young " in lead
    assert "tested at 1 and 2" in lead


def test_the_calibration_must_be_of_the_audits_groups():
    reference, _ = cohort(n=600)
    rng = np.random.default_rng(1)
    t = rng.exponential(size=600)
    other = survfair.calibration(
        t, np.ones(600, bool), np.where(rng.random(600) < 0.5, "a", "b"), 1 - np.exp(-t), [1.0]
    )
    with pytest.raises(survfair.InvalidParameterError, match="calibration has groups") as info:
        findings(reference, calibration=other)
    assert info.value.parameter == "calibration"


@pytest.mark.parametrize("blind", ["baseline left out", "every young above every old"])
def test_a_reference_that_is_not_the_scores_own_never_reads_as_no_excess(blind):
    rng = np.random.default_rng(0)
    n = 2000
    old = rng.random(n) < 0.5
    z = rng.normal(size=n)
    total = z + np.where(old, np.log(10.0), 0.0)
    t = rng.exponential(size=n) * np.exp(-total)
    grid = np.linspace(0.01, 5.0, 500)
    curves = np.exp(-grid[None, :] * np.exp(total)[:, None])
    score = z if blind == "baseline left out" else z - 100 * old  # the second: no variance
    reference = survfair.model_based_xci(
        t,
        np.ones(n, bool),
        np.where(old, "old", "young"),
        score,
        survival=curves,
        times=grid,
        tau=2.0,
        reference_check="flag",
    )
    lead = findings(reference).sentences[1]
    assert "is not the score's own" in lead and "No excess" not in lead
    assert "different risks, not from how" not in lead


def test_absence_needs_the_interval_inside_the_margin():
    """A null on 160 people: the interval includes 0 but is wide, so nothing is called absent;
    with a margin wider than the interval it is."""
    rng = np.random.default_rng(4)
    n = 160
    group = np.where(rng.random(n) < 0.5, "a", "b")
    risk = rng.normal(size=n)
    t = rng.exponential(size=n) * np.exp(-risk)
    res = survfair.xci(t, np.ones(n, bool), group, risk)
    found = findings(res)
    lead = found.sentences[1]
    row = found.deltas.query("summary == 'delta_between'").iloc[0]
    assert row.ci_low < 0 < row.ci_high and max(-row.ci_low, row.ci_high) > 0.05
    assert "the data cannot tell" in lead and "still allows a difference of up to" in lead
    assert "do not show an asymmetry" not in lead
    wide = findings(res, margin=0.5).sentences[1]
    assert "The interval lies inside ±50.0 points (the equivalence margin)" in wide
    with pytest.raises(survfair.InvalidParameterError, match="margin"):
        findings(res, margin=0)


def test_a_clear_excess_still_says_what_it_assumes():
    """A model that leaves out the young group's extra hazard: the excess is clear and named, and
    the sentence says whether calibration was checked."""
    reference, cal = cohort(hazard_factor=(1.0, 0.2))
    found = findings(reference, calibration=cal)
    lead = found.sentences[1]
    assert lead.startswith("Excess cross-group asymmetry, old vs young")
    assert "Calibration is rejected (" in lead
    assert "may come from miscalibration" in lead


def test_the_small_sample_flag_travels_with_the_numbers():
    """Issue 41.6: to_frame() and the Estimate of a difference carry the flag of
    survfair.small_sample_flags (its defaults)."""
    rng = np.random.default_rng(2)
    group = np.array(["big"] * 400 + ["tiny"] * 12)
    risk = rng.normal(size=412)
    t = rng.exponential(size=412) * np.exp(-risk)
    res = survfair.xci(t, np.ones(412, bool), group, risk)
    frame = res.to_frame()
    flags = survfair.small_sample_flags(res)
    np.testing.assert_array_equal(frame["small_sample"].to_numpy(), flags["flagged"].to_numpy())
    assert frame.set_index(["a", "b"]).loc[("tiny", "big"), "small_sample"]
    assert not frame.set_index(["a", "b"]).loc[("big", "big"), "small_sample"]
    assert survfair.delta_between(res, "big", "tiny").small_sample
    assert survfair.delta_between(res, "big", "tiny").to_dict()["small_sample"] is True
    large = survfair.xci(t[:400], np.ones(400, bool), np.where(np.arange(400) % 2, "a", "b"),
                         risk[:400])  # fmt: skip
    assert not survfair.delta_between(large, "a", "b").small_sample
    assert not large.to_frame()["small_sample"].any()
