"""The censoring Kaplan-Meier K_g(t) (``survfair._core.censoring``): tie convention, equality with
scikit-survival's ``CensoringDistributionEstimator``, the curves a result exposes, positivity."""

import numpy as np
import pytest
from conftest import make_data
from sksurv.util import Surv

import survfair
from survfair._core.censoring import (
    CensoringCurves,
    censoring_kaplan_meier,
    check_positivity,
    inverse_censoring,
    kaplan_meier_from_counts,
    raise_positivity,
)

# Six rows with an event-censoring tie at t = 2 and at t = 3. Events leave the risk set before the
# censorings at a tied time (scikit-survival's reverse=True), so
# K(t) = prod_{s <= t} (1 - c_s / (n_s - d_s)):
#   t = 1: n 6, d 0, c 1 -> 1 - 1/6 = 5/6
#   t = 2: n 5, d 1, c 1 -> 5/6 * (1 - 1/4) = 5/8
#          (counting the tied event at risk: 5/6 * 4/5 = 2/3)
#   t = 3: n 3, d 1, c 1 -> 5/8 * (1 - 1/2) = 5/16
#   t = 5: n 1, d 0, c 1 -> 0
HAND_TIME = np.array([3.0, 1.0, 2.0, 5.0, 2.0, 3.0])
HAND_EVENT = np.array([True, False, True, False, False, False])
HAND_UNIQUE = np.array([1.0, 2.0, 3.0, 5.0])
HAND_K = np.array([5 / 6, 5 / 8, 5 / 16, 0.0])


def test_tie_convention_on_a_hand_example():
    unique_time, survival = censoring_kaplan_meier(HAND_TIME, HAND_EVENT)
    np.testing.assert_array_equal(unique_time, HAND_UNIQUE)
    np.testing.assert_allclose(survival, HAND_K, rtol=1e-15, atol=0)
    # the same from per-time counts (rows 1, 2, 2, 1; events 0, 1, 1, 0), bit for bit
    np.testing.assert_array_equal(
        kaplan_meier_from_counts(np.array([1, 2, 2, 1]), np.array([0, 1, 1, 0])), survival
    )
    # right-continuous step function: 1 before the first time, K(t) at t, still 0 after a curve
    # ending at 0
    curves = CensoringCurves("pooled", ("all",), (unique_time,), (survival,))
    np.testing.assert_allclose(
        curves.evaluate(0, np.array([0.0, 1.0, 1.999, 2.0, 4.9, 5.0, 7.0])),
        [1.0, 5 / 6, 5 / 6, 5 / 8, 5 / 16, 0.0, 0.0],
        rtol=1e-15,
        atol=0,
    )
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(
            inverse_censoring(curves)(0, np.array([2.0, 5.0])), [8 / 5, np.inf]
        )
    assert inverse_censoring(None) is None


def test_curve_is_undefined_beyond_its_last_time_unless_it_reached_zero():
    unique_time, survival = censoring_kaplan_meier(
        HAND_TIME[:3], HAND_EVENT[:3]
    )  # 1 censored, 2 and 3 events
    np.testing.assert_allclose(survival, [2 / 3, 2 / 3, 2 / 3], rtol=1e-15, atol=0)
    curves = CensoringCurves("pooled", ("all",), (unique_time,), (survival,))
    assert curves.last_time(0) == 3.0
    assert np.isnan(curves.evaluate(0, np.array([3.5]))[0])


def test_censoring_curves_exposed():
    time, event, codes, risk = make_data(300, 2, 8)
    res = survfair.xci(time, event, codes, risk, tau=20.0)
    curves = res.censoring_curves.to_frame()
    assert set(curves["group"]) == {0, 1}
    assert curves["censoring_survival"].between(0, 1).all()
    assert set(res.min_censoring_survival) == {0, 1}
    pooled = survfair.xci(time, event, codes, risk, tau=20.0, censoring="pooled")
    assert pooled.censoring_curves.kind == "pooled"


@pytest.mark.parametrize("seed", range(5))
def test_censoring_km_equals_sksurv(seed):
    from sksurv.nonparametric import CensoringDistributionEstimator

    from survfair._core.censoring import CensoringCurves, censoring_kaplan_meier

    time, event, _, _ = make_data(400, 1, seed, n_times=30)
    estimator = CensoringDistributionEstimator().fit(Surv.from_arrays(event=event, time=time))
    unique_time, survival = censoring_kaplan_meier(time, event)
    np.testing.assert_array_equal(unique_time, estimator.unique_time_[1:])
    np.testing.assert_allclose(survival, estimator.prob_[1:], rtol=1e-15, atol=0)
    curves = CensoringCurves("pooled", (0,), (unique_time,), (survival,))
    query = np.r_[0.0, 0.5, time, unique_time + 0.5][:-1]
    query = query[query <= unique_time[-1]]
    np.testing.assert_allclose(
        curves.evaluate(0, query), estimator.predict_proba(query), rtol=1e-15, atol=0
    )


def test_all_censored_group_has_a_censoring_curve():
    time = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    event = np.array([1, 0, 1, 0, 0, 0], bool)
    group = np.array(["a", "b", "a", "b", "a", "b"])
    res = survfair.xci(time, event, group, -time, tau=5.0)
    assert res.matrix.loc["a", "b"] == 1.0
    frame = res.censoring_curves.to_frame()
    assert frame.loc[frame.group == "b", "censoring_survival"].iloc[-1] == 0.0


def test_reference_without_a_group_is_refused():
    time, event, codes, risk = make_data(200, 2, 3)
    with pytest.raises(
        ValueError, match=r"labels \[1\] do not occur in group \(labels present: \[0\]\)"
    ):
        survfair.xci(
            time,
            event,
            codes,
            risk,
            tau=20.0,
            censoring_reference=(time[codes == 0], event[codes == 0], codes[codes == 0]),
        )


# -- positivity ---------------------------------------------------------------------------------
def _two_curves():
    low = CensoringCurves(
        "group",
        ("a", "b"),
        (HAND_UNIQUE, np.array([1.0, 4.0])),
        (np.array([0.9, 0.5, 0.2, 0.05]), np.array([0.8, 0.6])),
    )
    return low


def test_positivity_minimum_and_warning_below_one_tenth():
    curves = _two_curves()
    assert check_positivity(curves, 2.5) == {"a": 0.5, "b": 0.8}  # no warning: both above 0.1
    with pytest.warns(
        survfair.PositivityWarning, match=r"group 'a' falls to 0.05 by time 5.*up to 400"
    ):
        minima = check_positivity(curves, 6.0)
    assert minima == {"a": 0.05, "b": 0.6}  # each curve is read up to its own last time (5 and 4)
    # K = 0 is not warned about here: it is an error where a weight needs it (raise_positivity)
    assert check_positivity(CensoringCurves("pooled", ("a",), (HAND_UNIQUE,), (HAND_K,)), 5.0) == {
        "a": 0.0
    }


def test_positivity_errors_name_group_and_time():
    curves = _two_curves()
    with pytest.raises(
        survfair.PositivityError, match=r"group 'a' is 0 at time 5, .*smaller tau \(below 5\)"
    ):
        raise_positivity(curves, 0, 5.0, 0.0)
    with pytest.raises(
        survfair.PositivityError, match=r"group 'b' is undefined at time 4.5, beyond the last time"
    ):
        raise_positivity(curves, 1, 4.5, np.nan)


# -- the curves' steps, and the kernel's evaluation of them ---------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_fitted_curves_keep_the_steps_of_the_full_kaplan_meier(seed):
    # a result's curves list the times at which K steps down and the last time; as functions they
    # are the Kaplan-Meier listed at every unique time (scikit-survival's convention, tested above)
    time, event, codes, risk = make_data(500, 2, seed, n_times=40)
    res = survfair.xci(time, event, codes, risk, tau=float(np.quantile(time, 0.9)))
    for g, label in enumerate(res.groups):
        rows = codes == label
        unique_time, survival = censoring_kaplan_meier(time[rows], event[rows])
        steps, values = res.censoring_curves.times[g], res.censoring_curves.survival[g]
        assert steps[-1] == unique_time[-1] and steps.shape[0] < unique_time.shape[0]
        assert np.all(
            np.diff(np.r_[1.0, values[:-1]]) != 0
        )  # every listed time but the last is a step
        query = np.r_[0.0, unique_time, unique_time + 0.25][:-1]
        np.testing.assert_array_equal(
            res.censoring_curves.evaluate(g, np.sort(query)),
            CensoringCurves("group", (label,), (unique_time,), (survival,)).evaluate(
                0, np.sort(query)
            ),
        )


@pytest.mark.parametrize("reached_zero", [False, True])
def test_the_passes_evaluate_a_curve_as_inverse_censoring_does(reached_zero):
    # the kernel's per-row evaluation during a sweep, in either direction, equals 1 / K at an array
    # of times bit for bit: 1 before the first time, Inf where K is 0, NaN beyond an unfinished
    # curve
    from survfair._core.kernel import _column_factor

    times = np.array([1.0, 2.0, 4.0, 7.0])
    survival = np.array([0.9, 0.6, 0.3, 0.0 if reached_zero else 0.2])
    inverse = inverse_censoring(CensoringCurves("group", ("a",), (times,), (survival,)))
    query = np.array([0.5, 1.0, 1.5, 2.0, 2.0, 3.9, 4.0, 6.0, 7.0, 7.5, 9.0])
    expected = inverse(0, query)
    for order in (slice(None), slice(None, None, -1)):
        state = np.array([-1.0, 1.0])
        got = np.array([_column_factor(*inverse.steps(0), t, state) for t in query[order]])
        np.testing.assert_array_equal(got, expected[order])
    assert np.isinf(expected[-1]) if reached_zero else np.isnan(expected[-1])


def test_a_weighted_kaplan_meier_that_empties_reaches_0_exactly():
    """Group b's heavy rows (weights ~1e3) pass before its last row at risk (weight 0.001) is
    censored at t = 2; a row entering at 2.5 has an event at 3. The weighted risk set left after
    t = 2 was a residue of the running totals, K_b stopped at 5e-10 and the event at 3 got an IPCW
    weight of 4e18 with only a warning; K_b is now exactly 0 there and xci raises the documented
    PositivityError."""
    import warnings

    rng = np.random.default_rng(2)
    nb, na = 50, 60
    time = np.concatenate([rng.uniform(0, 4, na), rng.uniform(0, 1, nb), [2.0, 3.0]])
    event = np.concatenate([rng.random(na) < 0.6, rng.random(nb) < 0.5, [False, True]])
    weights = np.concatenate(
        [rng.uniform(0.5, 2, na), rng.uniform(100, 1000, nb) * np.pi, [0.001, 1.0]]
    )
    entry = np.concatenate([np.zeros(na + nb), [0.0, 2.5]])
    group = np.array(["a"] * na + ["b"] * (nb + 2))
    risk = rng.normal(size=time.size)
    sample, _ = survfair._core.validation.check_survival_inputs(
        time, event, group, risk, data=None, weights=weights, entry=entry
    )
    curves = survfair._core.censoring.fit_censoring(sample, "group")
    assert curves.evaluate(1, np.array([2.0, 3.0])).tolist() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter(
            "error", survfair.PositivityWarning
        )  # the error, not a warning of 1e18 weights
        with pytest.raises(survfair.PositivityError, match=r"group 'b' is 0 at time 3"):
            survfair.xci(time, event, group, risk, weights=weights, entry=entry)
    # group a, whose risk set never empties, keeps a proper curve
    assert 0 < curves.evaluate(0, np.array([1.0]))[0] < 1


def test_the_groups_curves_on_threads_are_those_of_one_thread():
    """From 50,000 rows fit_censoring(n_jobs=) fits the groups' curves on threads: the same
    arrays."""
    from survfair._core.censoring import fit_censoring
    from survfair._core.validation import check_survival_inputs

    rng = np.random.default_rng(3)
    n = 60_000
    time = np.round(rng.exponential(1.0, n), 3)
    event = rng.random(n) < 0.6
    codes = rng.integers(0, 3, n)
    sample = check_survival_inputs(time, event, codes, rng.normal(size=n))[0]
    one, two = (fit_censoring(sample, "group", n_jobs=j) for j in (1, 2))
    for a, b in zip(one.times + one.survival, two.times + two.survival):
        assert np.array_equal(a, b)
    assert len(one.times) == 3
