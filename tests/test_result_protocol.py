"""One protocol over every public result class (issue 35, deliverable 2).

Every result a public function returns has ``to_frame()`` (a DataFrame), ``to_dict()`` (JSON-safe:
``json.dumps(..., allow_nan=False)`` works), ``_repr_html_()`` (Jupyter) and a readable one-line
``repr``. A result that carries intervals has ``confidence_interval(confidence_level=None)``
returning survfair's ``ConfidenceInterval(low, high)``: at the result's own level by default,
array-valued (frames or series, indexed as the result's table) where the result is a table.
The public classes that are not results (inputs, settings, parts of a result, the interval type)
are listed with the reason; a new public class must be put in one list or the other.
"""

from __future__ import annotations

import inspect
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import survfair as sf
from survfair import mitigate, simulate

#: Public classes that are not results, and why.
NOT_RESULTS = {
    "FlchainCohort": "a dataset bundle (the input of an audit)",
    "PairCounts": "the counts inside an XCIResult / XAUCResult (read through the result)",
    "CensoringCurves": "the censoring curves inside a result (read through the result)",
    "ConfidenceInterval": "the interval type itself",
    "EstimatorSettings": "settings (an input)",
    "BootstrapDraws": "the replicates inside a result",
    "Jackknife": "the leave-one-out values inside a result",
    "CensoringSpec": "a simulation input",
    "CohortDesign": "a simulation input",
}

#: Value types whose interval is the field ``confidence_interval`` (a ConfidenceInterval).
VALUE_TYPES = {"Estimate", "MinXCI"}


def _cohort(seed=0, n=300):
    rng = np.random.default_rng(seed)
    group = np.where(rng.random(n) < 0.5, "a", "b")
    x = rng.normal(size=n) + 0.5 * (group == "b")
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(2.0, n)
    return np.minimum(t, c), t <= c, group, x, x + rng.normal(scale=0.5, size=n), rng


@pytest.fixture(scope="module")
def results():
    time, event, group, x, risk, rng = _cohort()
    tau = float(np.quantile(time, 0.8))
    y = (rng.random(time.size) < 1 / (1 + np.exp(-x))).astype(int)
    res = sf.xci(time, event, group, risk, tau=tau)
    other = sf.xci(time, event, group, x, tau=tau)
    xa = sf.xauc(y, group, risk)
    predicted = 1 - np.exp(-0.5 * np.exp(x))
    cal = sf.calibration(time, event, group, predicted, times=0.5)
    data = pd.DataFrame({"time": time, "event": event, "group": group, "x": x, "risk": risk})
    grid = np.linspace(0.05, 4.0, 40)
    curves = np.exp(-grid[None, :] * np.exp(x)[:, None])
    z = rng.normal(size=300)
    g01 = (rng.random(300) < 0.5).astype(int)
    tt = np.exp(z + 0.5 * g01)
    design = simulate.ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0.0, "M": 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = {
            "XCIResult": res,
            "XAUCResult": xa,
            "XAUCtResult": sf.xauc_t(time, event, group, risk, times=[0.3, 0.6]),
            "CalibrationResult": cal,
            "CalibrationFindings": sf.calibration_findings(cal),
            "CensoringDependence": sf.censoring_dependence(time, event, group, risk),
            "ComparisonResult": sf.compare_xci(res, other),
            "ModelComparison": sf.compare(
                "time", "event", "group", {"one": "x", "two": "risk"}, data=data, tau=tau
            ),
            "ModelBasedResult": sf.model_based_xci(
                time, event, group, x, survival=curves, times=grid, tau=tau
            ),
            "OmnibusTest": sf.omnibus_test(res),
            "Estimate": sf.delta_between(res, "a", "b"),
            "MinXCI": sf.min_xci(res),
            "Findings": sf.findings(res),
            "XROCCurve": sf.xroc(xa, "a", "b"),
            "LogisticAdjustment": sf.logistic_adjustment(y, group, risk, "a", "b"),
            "EqualOpportunityAdjustment": sf.equal_opportunity_adjustment(y, group, risk, "a", "b"),
            "GroupShift": mitigate.group_shift(time, event, group, risk, tau=tau),
            "GroupMonotone": mitigate.group_monotone(tt, np.ones(300), g01, -z, method="naive"),
            "Frontier": mitigate.frontier(tt, np.ones(300), g01, -z, method="naive", n_points=3),
            "CalibrationCost": mitigate.calibration_cost(
                mitigate.group_shift(time, event, group, risk, tau=tau),
                time,
                event,
                group,
                risk,
                predicted,
                0.5,
            ),
            "LognormalXCI": simulate.lognormal_xci(
                0.8, 1.0, 0.5, 0.5, beta1_hat=0.8, beta2_hat=1.0
            ),
            "TrueXCI": design.true_xci(n_truth=20_000, random_state=0),
            "CoverageStudy": simulate.coverage_study(
                design, [150], n_replications=4, random_state=1, n_truth=20_000, progress=False
            ),
        }
    return built


def _public_classes():
    found = {}
    for module in (sf, simulate, mitigate):
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) and not issubclass(value, (Exception, Warning)):
                found[name] = value
    return found


def test_every_public_class_is_a_result_or_says_why_not(results):
    public = set(_public_classes())
    assert public - set(results) - set(NOT_RESULTS) == set()
    assert set(results) | set(NOT_RESULTS) <= public


@pytest.mark.parametrize("name", sorted(_public_classes().keys() - NOT_RESULTS.keys()))
def test_the_result_protocol(results, name):
    result = results[name]
    assert type(result).__name__ == name
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    json.dumps(result.to_dict(), allow_nan=False)
    html = result._repr_html_()
    assert isinstance(html, str) and html.lstrip().startswith("<")
    text = repr(result)
    assert text.startswith(name) and "array(" not in text and len(text) <= 4000


INTERVAL_RESULTS = [
    "XCIResult",
    "XAUCResult",
    "XAUCtResult",
    "CalibrationResult",
    "CensoringDependence",
    "ComparisonResult",
    "ModelComparison",
    "ModelBasedResult",
    "GroupShift",
    "GroupMonotone",
    "CalibrationCost",
]


@pytest.mark.parametrize("name", INTERVAL_RESULTS)
def test_confidence_interval_is_one_type_at_the_results_level_by_default(results, name):
    result = results[name]
    default = result.confidence_interval()
    assert isinstance(default, sf.ConfidenceInterval)
    low, high = default
    assert type(low) is type(high) and isinstance(low, (pd.DataFrame, pd.Series))
    assert low.shape == high.shape and low.index.equals(high.index)
    level = getattr(result, "confidence_level", 0.95)
    same = result.confidence_interval(level)
    pd.testing.assert_frame_equal(pd.DataFrame(same.low), pd.DataFrame(low))
    narrow = result.confidence_interval(0.5)
    both = np.isfinite(np.asarray(narrow.low, float)) & np.isfinite(np.asarray(low, float))
    assert both.any()
    assert (np.asarray(narrow.low, float)[both] >= np.asarray(low, float)[both] - 1e-12).all()
    assert (np.asarray(narrow.high, float)[both] <= np.asarray(high, float)[both] + 1e-12).all()


@pytest.mark.parametrize("name", sorted(VALUE_TYPES))
def test_value_types_carry_their_interval_as_a_field(results, name):
    result = results[name]
    interval = (
        result.confidence_interval if name == "Estimate" else result.estimate.confidence_interval
    )
    assert isinstance(interval, sf.ConfidenceInterval)
