"""Frozen results are deeply immutable: nothing a result hands out can change what it later exports.

Before, ``@dataclass(frozen=True)`` only forbade rebinding: ``cm.table.loc[:, "overall"] = 0``
made ``cm.to_frame()`` report 0, ``gs.table.iloc[0, 4] = 123`` showed in ``gs.to_frame()``,
dicts (``results``, ``maps``, ``group_sizes``) could be emptied and arrays (``CensoringCurves``,
``Influence.order``) written; a pickle or deepcopy round trip made read-only arrays writeable.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import censored_cohort

import survfair
from survfair import mitigate, simulate
from survfair._core.frozen import FrozenDict, frozen_result

pytestmark = pytest.mark.filterwarnings("ignore::survfair.PositivityWarning")


@pytest.fixture(scope="module")
def results():
    n = 240
    rng, time, event, g, x, risk, predicted = censored_cohort(0, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
    score = 1 / (1 + np.exp(-x - rng.normal(size=n)))
    two = np.where(g == 2, 1, g)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["xci"] = survfair.xci(time, event, g, risk)
        out["xci_bootstrap"] = survfair.xci(
            time, event, g, risk, ci="bootstrap", n_resamples=30, random_state=1
        )
        out["xauc"] = survfair.xauc(y, g, score)
        out["xauc_t"] = survfair.xauc_t(time, event, g, risk, [0.5, 1.0])
        out["calibration"] = survfair.calibration(time, event, g, predicted, [0.5])
        out["compare"] = survfair.compare(
            time, event, g, {"a": risk, "b": risk + rng.normal(size=n)}
        )
        out["overall_c"] = survfair.overall_c(out["xci"])
        out["min_xci"] = survfair.min_xci(out["xci"])
        out["omnibus"] = survfair.omnibus_test(out["xci"])
        out["findings"] = survfair.findings(out["xci"])
        out["xroc"] = survfair.xroc(out["xauc"], 0, 1)
        out["logistic_adjustment"] = survfair.logistic_adjustment(y, g, score, 0, 1)
        out["eo_adjustment"] = survfair.equal_opportunity_adjustment(y, g, score, 0, 1)
        out["group_shift"] = mitigate.group_shift(time, event, g, risk, random_state=0)
        out["group_monotone"] = mitigate.group_monotone(time, event, g, risk)
        out["frontier"] = mitigate.frontier(time, event, two, risk, n_points=5)
        out["calibration_cost"] = mitigate.calibration_cost(
            out["group_shift"], time, event, g, risk, predicted, [0.5]
        )
        out["lognormal_xci"] = simulate.lognormal_xci(0.8, 1, 0.5, 0.5, 0.8, 1)
        design = simulate.ph_design({"a": 0.5, "b": 0.5})
        out["design"] = design
        out["true_xci"] = design.true_xci(n_truth=4000)
        out["coverage_study"] = simulate.coverage_study(
            design, [60], n_replications=2, n_truth=4000, random_state=0, progress=False
        )
        out["flchain"] = survfair.load_flchain()
    return out


def _exports(obj):
    """Everything a result exports, as comparable plain data."""
    out = {}
    if hasattr(obj, "to_frame"):
        out["to_frame"] = obj.to_frame()
    if hasattr(obj, "to_dict"):
        out["to_dict"] = json.dumps(obj.to_dict(), sort_keys=True, default=str)
    return out


def _same(before, after):
    assert before.keys() == after.keys()
    for key in before:
        if isinstance(before[key], pd.DataFrame):
            pd.testing.assert_frame_equal(before[key], after[key])
        else:
            assert before[key] == after[key], key


def _public_values(obj):
    """Every public field and property value of a result (errors, e.g. a missing covariance,
    skipped)."""
    names = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
    names |= {n for n in dir(type(obj)) if isinstance(getattr(type(obj), n, None), property)}
    for name in sorted(n for n in names if not n.startswith("_")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield name, getattr(obj, name)
        except Exception:  # noqa: BLE001 - a property that needs more (memory, a horizon)
            continue


def _vandalise(value, depth=0):
    """Try every in-place change on what was handed out; return how many were accepted."""
    accepted = 0
    if isinstance(value, pd.DataFrame):
        for column in value.columns:
            if pd.api.types.is_numeric_dtype(value[column]) and not pd.api.types.is_bool_dtype(
                value[column]
            ):
                value.loc[:, column] = 0
        value.drop(value.index, inplace=True)
        accepted += 1
    elif isinstance(value, pd.Series):
        if pd.api.types.is_numeric_dtype(value) and not pd.api.types.is_bool_dtype(value):
            value.iloc[:] = 0
        accepted += 1
    elif isinstance(value, np.ndarray) and value.size:
        if value.flags.writeable:  # only a fresh array, made for this read, may be writeable
            value[...] = 0
            accepted += 1
        else:
            with pytest.raises(ValueError, match="read-only"):
                value.reshape(-1)[0] = 0
    elif isinstance(value, FrozenDict):  # a result's own mapping: read-only
        with pytest.raises(TypeError):
            value[next(iter(value.keys()), 0)] = None
        with pytest.raises(TypeError):
            value.clear()
        for item in list(value.values()):
            _vandalise(item, depth + 1)
    elif isinstance(value, dict):  # likewise a fresh dict
        for key in list(value):
            _vandalise(value[key], depth + 1)
        value.clear()
        accepted += 1
    elif isinstance(value, list):
        for item in value:
            _vandalise(item, depth + 1)
    elif hasattr(value, "keys") and hasattr(value, "values"):  # a read-only mapping
        with pytest.raises(TypeError):
            value[next(iter(value.keys()), 0)] = None
        for item in list(value.values()):
            _vandalise(item, depth + 1)
    elif isinstance(value, tuple):
        for item in value:
            _vandalise(item, depth + 1)
    elif getattr(type(value), "__frozen_result__", False) and depth < 2:
        for _, inner in _public_values(value):
            _vandalise(inner, depth + 1)
    return accepted


NAMES = [
    "xci",
    "xci_bootstrap",
    "xauc",
    "xauc_t",
    "calibration",
    "compare",
    "overall_c",
    "min_xci",
    "omnibus",
    "findings",
    "xroc",
    "logistic_adjustment",
    "eo_adjustment",
    "group_shift",
    "group_monotone",
    "frontier",
    "calibration_cost",
    "lognormal_xci",
    "design",
    "true_xci",
    "coverage_study",
    "flchain",
]


@pytest.mark.parametrize("name", NAMES)
def test_mutating_what_a_result_hands_out_never_changes_its_exports(results, name):
    obj = results[name]
    before = _exports(obj)
    for _, value in _public_values(obj):
        _vandalise(value)
    after = _exports(obj)
    _same(before, after)


def test_the_audits_examples_no_longer_change_the_exports(results):
    cm, gs = results["compare"], results["group_shift"]
    frame, forest = cm.to_frame(), cm.to_dict()
    cm.table.loc[:, "overall"] = 0  # before: cm.to_frame() / to_dict() / plot_forest reported 0
    pd.testing.assert_frame_equal(cm.to_frame(), frame)
    assert cm.to_dict() == forest
    shifted = gs.to_frame()
    gs.table.iloc[0, 4] = 123  # before: shown by gs.to_frame()
    pd.testing.assert_frame_equal(gs.to_frame(), shifted)
    with pytest.raises(TypeError):  # a read-only dict: no pop
        results["group_monotone"].maps.pop(next(iter(results["group_monotone"].maps)))
    res = results["xci"]
    with pytest.raises(TypeError):
        res.group_sizes[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        res.censoring_curves.times[0][0] = 0
    with pytest.raises(ValueError, match="read-only"):
        res.influence.order[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        res.influence.layout.codes[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        res.sample.risk[0] = (
            1  # nothing is written through the result (a view: no copy at registry scale)
        )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_copies_and_pickles_stay_read_only(results, name, how):
    obj = results[name]
    clone = {
        "pickle": lambda o: pickle.loads(pickle.dumps(o)),
        "deepcopy": copy.deepcopy,
        "copy": copy.copy,
    }[how](obj)
    assert type(clone) is type(obj)
    _same(_exports(obj), _exports(clone))
    for _, value in _public_values(clone):
        _vandalise(value)  # before: arrays came back writeable after a round trip
    _same(_exports(obj), _exports(clone))


def test_the_influence_survives_a_deepcopy_read_only(results):
    clone = copy.deepcopy(results["xci"])
    with pytest.raises(ValueError, match="read-only"):
        clone.influence.overall_in_time_order[:] = np.nan
    assert survfair.overall_c(clone).se == survfair.overall_c(results["xci"]).se


def _public_classes():
    for module in (survfair, mitigate, simulate):
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and dataclasses.is_dataclass(obj):
                yield obj


@pytest.mark.parametrize("cls", list(_public_classes()), ids=lambda c: c.__name__)
def test_every_public_result_class_uses_the_shared_mechanism(cls):
    assert getattr(cls, "__frozen_result__", False), (
        f"{cls.__name__} is a plain @dataclass(frozen=True)"
    )


def test_the_callers_arrays_are_never_locked():
    risk = np.array([3.0, 1.0, 2.0, 0.5])

    @frozen_result
    class Holder:
        values: np.ndarray
        table: pd.DataFrame

    holder = Holder(risk, pd.DataFrame({"x": risk}))
    assert risk.flags.writeable and not holder.values.flags.writeable
    risk[0] = 9.0  # the caller's array is copied, not frozen in place
    assert holder.values[0] == 3.0 and holder.table["x"].iloc[0] == 3.0
