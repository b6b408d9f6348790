"""Every public function refuses a bad option with ``InvalidParameterError`` naming it (issue 35,
deliverable 5), as scikit-learn's ``sklearn/tests/test_public_functions.py``.

The public functions (callables, not classes) of ``survfair``, ``survfair.simulate``,
``survfair.mitigate`` and ``survfair.plotting`` are enumerated; ``CALLS`` gives one minimal valid
call of each, and a new public function without an entry fails
:func:`test_every_public_function_has_a_call`. For every keyword-only parameter whose default is a
scalar (bool, int, float, str or None), the function is called with an instance of
``_NotAnOption`` in its place and must raise ``survfair.InvalidParameterError`` whose
``.parameter`` is that name, unless the parameter is in ``EXEMPT`` (with the reason). The option
tables of ``survfair._core.options.OptionTable`` add one invalid value of the right type per
option (``confidence_level=1.5``, ``n_resamples=1``, ``method="not_an_option"``...).
"""

from __future__ import annotations

import functools
import inspect
import tempfile
import warnings
from pathlib import Path

import matplotlib  # a dependency of survfair: always there
import numpy as np
import pandas as pd
import pytest

import survfair as sf
from survfair import mitigate, plotting, simulate
from survfair._core.options import NOT_GIVEN, OptionTable

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODULES = {"survfair": sf, "survfair.simulate": simulate, "survfair.mitigate": mitigate}
PLOTTING = {"survfair.plotting": plotting}


class _NotAnOption:
    """A value of no type any option accepts."""

    def __repr__(self) -> str:
        return "_NotAnOption()"


def _public_functions() -> dict:
    found = {}
    for prefix, module in {**MODULES, **PLOTTING}.items():
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and not inspect.isclass(value):
                found[f"{prefix}.{name}"] = value
    return found


FUNCTIONS = _public_functions()

#: Keyword-only parameters with a scalar default that legitimately accept any object, and why.
EXEMPT = {
    "positive": "the label of the positive class: any hashable value (1, 'yes', True...)",
    "a": "a group label: any hashable value the group column holds",
    "b": "a group label: any hashable value the group column holds",
    "reference_group": "a group label: any hashable value the group column holds",
    "adjusted_group": "a group label: any hashable value the group column holds",
    "group_column": "a column label of X: looked up when the scorer is called, per fold",
    "title": "free text of a figure or report (shown with str())",
}

#: Parameters exempt in one function only, and why.
EXEMPT_IN = {
    ("survfair.compare", "X"): "the covariates of the models given as estimators; unread without",
    ("survfair.model_based_xci", "X"): "the covariates of model=; unread without it",
    ("survfair.model_based_xci", "times"): "the grid of survival=; unread without it",
}

#: Data arguments with a default of None: checked by the input gate (``check_survival_inputs``...)
#: or against the data, not by an option table (the wrong-type test still covers them).
DATA_ARGUMENTS = {
    "data",
    "groups",
    "cluster",
    "entry",
    "weights",
    "censoring_reference",
    "covariates",
    "X",
    "times",
    "survival",
    "model",
    "linear_predictor",
    "baseline",
    "predicted",
    "probability",
    "fit_on",
    "offsets",
    "lambdas",
    "censoring",
    "competing",
    "calibration",
    "flags",
    "norm",
    "vmin",
    "vmax",
    "limit",
    "role",
    "chosen",
    "axes",
}


@functools.lru_cache(maxsize=None)
def _inputs():
    """Small data and results, built once (the whole file runs in seconds)."""
    rng = np.random.default_rng(0)
    n = 80
    group = np.where(np.arange(n) % 2 == 0, "a", "b")
    x = rng.normal(size=n) + 0.5 * (group == "b")
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(2.0, n)
    time, event = np.minimum(t, c), t <= c
    risk = x + rng.normal(scale=0.5, size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
    y[:4] = [1, 0, 1, 0]
    tau = float(np.quantile(time, 0.8))
    horizon = float(np.quantile(time, 0.4))
    predicted = 1 - np.exp(-horizon * np.exp(x))
    grid = np.linspace(0.05, 4.0, 20)
    curves = np.exp(-grid[None, :] * np.exp(x)[:, None])
    data = pd.DataFrame({"time": time, "event": event, "group": group, "x": x, "risk": risk})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sf.xci(time, event, group, risk, tau=tau)
        other = sf.xci(time, event, group, x, tau=tau)
        xa = sf.xauc(y, group, risk)
        cal = sf.calibration(time, event, group, predicted, times=horizon)
        comparison = sf.compare(
            "time", "event", "group", {"one": "x", "two": "risk"}, data=data, tau=tau
        )
        model_based = sf.model_based_xci(
            time, event, group, x, survival=curves, times=grid, tau=tau
        )
        shift = mitigate.group_shift(time, event, group, risk, tau=tau)
        front = mitigate.frontier(time, event, group, risk, tau=tau, n_points=3)
        design = simulate.ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0.0, "M": 0.5})
        coverage = simulate.coverage_study(
            design, [60], n_replications=2, random_state=1, n_truth=2_000
        )
        power = simulate.power_curve(design, [60], "F", "M", n_replications=2, random_state=1)
        bias = simulate.study([0.5], n=30, n_replications=2, random_state=0)
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    X = pd.DataFrame({"x": x})
    surv = Surv.from_arrays(event=event, time=time)
    cox = CoxPHSurvivalAnalysis().fit(X, surv)
    return dict(
        time=time,
        event=event,
        group=group,
        x=x,
        risk=risk,
        y=y,
        tau=tau,
        horizon=horizon,
        predicted=predicted,
        data=data,
        res=res,
        other=other,
        xa=xa,
        cal=cal,
        comparison=comparison,
        model_based=model_based,
        shift=shift,
        front=front,
        design=design,
        coverage=coverage,
        power=power,
        bias=bias,
        X=X,
        surv=surv,
        cox=cox,
        folder=Path(tempfile.mkdtemp()),
    )


def _survival(d):
    return (d["time"], d["event"], d["group"], d["risk"])


#: One minimal valid call per public function: inputs -> (args, kwargs).
CALLS = {
    "survfair.abs_delta_between": lambda d: ((d["res"],), {}),
    "survfair.adjust_p_values": lambda d: (([0.01, 0.04, 0.03],), {}),
    "survfair.auc_decomposition": lambda d: ((d["xa"],), {}),
    "survfair.balanced_xauc": lambda d: ((d["xa"],), {}),
    "survfair.balanced_xroc": lambda d: ((d["xa"], "a"), {}),
    "survfair.calibration": lambda d: (
        (d["time"], d["event"], d["group"], d["predicted"]),
        {"times": d["horizon"]},
    ),
    "survfair.calibration_findings": lambda d: ((d["cal"],), {}),
    "survfair.censoring_dependence": lambda d: (_survival(d), {}),
    "survfair.compare": lambda d: (
        ("time", "event", "group", {"one": "x", "two": "risk"}),
        {"data": d["data"], "tau": d["tau"]},
    ),
    "survfair.compare_xci": lambda d: ((d["res"], d["other"]), {}),
    "survfair.concordance_imparity": lambda d: ((d["res"],), {}),
    "survfair.conditional_xauc": lambda d: ((d["xa"], "a", "b"), {}),
    "survfair.contrast": lambda d: ((d["res"], np.array([[0.0, 1.0], [-1.0, 0.0]])), {}),
    "survfair.decompose": lambda d: ((d["res"],), {}),
    "survfair.delta_balanced_xauc": lambda d: ((d["xa"], "a", "b"), {}),
    "survfair.delta_between": lambda d: ((d["res"], "a", "b"), {}),
    "survfair.delta_within": lambda d: ((d["res"], "a", "b"), {}),
    "survfair.equal_opportunity_adjustment": lambda d: (
        (d["y"], d["group"], d["risk"], "a", "b"),
        {},
    ),
    "survfair.excess_delta_between": lambda d: ((d["model_based"], "a", "b"), {}),
    "survfair.excess_delta_within": lambda d: ((d["model_based"], "a", "b"), {}),
    "survfair.fairness_profile": lambda d: ((d["res"], d["cal"]), {}),
    "survfair.findings": lambda d: ((d["res"],), {}),
    "survfair.fit_checked": lambda d: (
        (__import__("sksurv.linear_model").linear_model.CoxPHSurvivalAnalysis(), d["X"], d["surv"]),
        {},
    ),
    "survfair.group_metrics": lambda d: ((d["xa"],), {}),
    "survfair.load_flchain": lambda d: ((), {}),
    "survfair.logistic_adjustment": lambda d: (
        (d["y"], d["group"], d["risk"], "a", "b"),
        {"grid": 5},
    ),
    "survfair.make_xci_scorer": lambda d: ((), {"group_column": "group"}),
    "survfair.min_utility": lambda d: ((d["res"],), {}),
    "survfair.min_xci": lambda d: ((d["res"],), {}),
    "survfair.model_based_xauc": lambda d: (
        (d["y"], d["group"], d["risk"]),
        {"probability": 1 / (1 + np.exp(-d["x"]))},
    ),
    "survfair.model_based_xci": lambda d: (
        (d["time"], d["event"], d["group"], d["x"]),
        {"linear_predictor": d["x"], "tau": d["tau"]},
    ),
    "survfair.nash_welfare": lambda d: ((d["res"],), {}),
    "survfair.omnibus_test": lambda d: ((d["res"],), {}),
    "survfair.overall_c": lambda d: ((d["res"],), {}),
    "survfair.pairwise_deltas": lambda d: ((d["res"],), {}),
    "survfair.predicted_risks": lambda d: ((d["cox"], d["X"], d["horizon"]), {}),
    "survfair.risk_scores": lambda d: ((d["cox"], d["X"]), {}),
    "survfair.risks_from_linear_predictor": lambda d: ((d["x"], [0.9, 0.8]), {}),
    "survfair.small_sample_flags": lambda d: ((d["res"],), {}),
    "survfair.utility": lambda d: ((d["res"],), {}),
    "survfair.write_report": lambda d: (
        (d["res"], d["folder"] / "audit.md"),
        {"default_figures": False},
    ),
    "survfair.xauc": lambda d: ((d["y"], d["group"], d["risk"]), {}),
    "survfair.xauc_t": lambda d: (_survival(d), {"times": [d["horizon"]]}),
    "survfair.xci": lambda d: (_survival(d), {}),
    "survfair.xci_score": lambda d: (
        (d["surv"], d["risk"]),
        {"group": d["group"], "statistic": "min_xci"},
    ),
    "survfair.xroc": lambda d: ((d["xa"], "a", "b"), {}),
    "survfair.simulate.aft_design": lambda d: (({"F": 0.5, "M": 0.5},), {}),
    "survfair.simulate.coverage_study": lambda d: (
        (d["design"], [60]),
        {"n_replications": 2, "n_truth": 2_000, "random_state": 0},
    ),
    "survfair.simulate.gaussian_xauc": lambda d: (
        (
            {("a", 0): 0.0, ("a", 1): 1.0, ("b", 0): 0.0, ("b", 1): 1.5},
            {("a", 0): 1.0, ("a", 1): 1.0, ("b", 0): 1.0, ("b", 1): 1.0},
        ),
        {},
    ),
    "survfair.simulate.ipcw_bias_study": lambda d: (
        (),
        {"n": [40], "censoring": [{"exponential": 0.3}], "n_replications": 2, "random_state": 0},
    ),
    "survfair.simulate.lognormal_cohort": lambda d: ((40, 0.0, 0.8, 1.0, 0.5, 0.5), {}),
    "survfair.simulate.lognormal_xci": lambda d: ((0.8, 1.0, 0.5, 0.5, 0.8, 1.0), {}),
    "survfair.simulate.ph_design": lambda d: (({"F": 0.5, "M": 0.5},), {}),
    "survfair.simulate.ph_xci_integral": lambda d: ((d["design"], "F", "M"), {}),
    "survfair.simulate.plot_coverage": lambda d: ((d["coverage"],), {}),
    "survfair.simulate.plot_power": lambda d: ((d["power"],), {}),
    "survfair.simulate.plot_study": lambda d: ((d["bias"],), {}),
    "survfair.simulate.power_curve": lambda d: (
        (d["design"], [60], "F", "M"),
        {"n_replications": 2, "random_state": 0},
    ),
    "survfair.simulate.study": lambda d: (([0.5],), {"n": 30, "n_replications": 2}),
    "survfair.mitigate.calibration_cost": lambda d: (
        (d["shift"], *_survival(d), d["predicted"], d["horizon"]),
        {},
    ),
    "survfair.mitigate.frontier": lambda d: (_survival(d), {"tau": d["tau"], "n_points": 3}),
    "survfair.mitigate.group_monotone": lambda d: (_survival(d), {"tau": d["tau"]}),
    "survfair.mitigate.group_shift": lambda d: (_survival(d), {"tau": d["tau"]}),
    "survfair.mitigate.plot_frontier": lambda d: ((d["front"],), {}),
    "survfair.plotting.plot_calibration": lambda d: ((d["cal"], d["horizon"]), {}),
    "survfair.plotting.plot_censoring_curves": lambda d: ((d["res"],), {}),
    "survfair.plotting.plot_conditional_xauc": lambda d: (
        (sf.conditional_xauc(d["xa"], "a", "b"),),
        {},
    ),
    "survfair.plotting.plot_forest": lambda d: ((d["comparison"],), {}),
    "survfair.plotting.plot_observed_expected": lambda d: ((d["cal"], d["horizon"]), {}),
    "survfair.plotting.plot_risk_densities": lambda d: ((d["event"], d["group"], d["risk"]), {}),
    "survfair.plotting.plot_xci_difference": lambda d: ((d["res"], d["other"]), {}),
    "survfair.plotting.plot_xci_heatmap": lambda d: ((d["res"],), {}),
    "survfair.plotting.plot_xroc": lambda d: ((sf.xroc(d["xa"], "a", "b"),), {}),
}

#: Public functions of survfair, survfair.simulate and survfair.mitigate with scalar options but
#: no option table, and why.
WITHOUT_TABLE: dict = {}


def _scalar_options(function) -> list[str]:
    return [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.kind is p.KEYWORD_ONLY
        and (p.default is None or isinstance(p.default, (bool, int, float, str)))
    ]


def _table(function) -> OptionTable | None:
    for value in vars(inspect.getmodule(function)).values():
        if isinstance(value, OptionTable) and value.function == function.__name__:
            return value
    return None


def _call(name, **change):
    args, kwargs = CALLS[name](_inputs())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return FUNCTIONS[name](*args, **{**kwargs, **change})
    finally:
        plt.close("all")


def test_every_public_function_has_a_call():
    assert set(FUNCTIONS) - set(CALLS) == set(), "give the new public function an entry in CALLS"
    assert set(CALLS) - set(FUNCTIONS) == set()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_minimal_call_is_valid(name):
    _call(name)


BAD_TYPE_CASES = [
    (name, option)
    for name, function in sorted(FUNCTIONS.items())
    for option in _scalar_options(function)
    if option not in EXEMPT and (name, option) not in EXEMPT_IN
]


@pytest.mark.parametrize("name, option", BAD_TYPE_CASES)
def test_an_option_of_the_wrong_type_is_refused_naming_it(name, option):
    with pytest.raises(sf.InvalidParameterError) as caught:
        _call(name, **{option: _NotAnOption()})
    assert caught.value.parameter == option
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)


def test_the_exemptions_are_used():
    options = {option for function in FUNCTIONS.values() for option in _scalar_options(function)}
    assert set(EXEMPT) <= options
    for name, option in EXEMPT_IN:
        assert option in _scalar_options(FUNCTIONS[name])


def _tabled() -> dict:
    found = {}
    for name, function in FUNCTIONS.items():
        table = _table(function)
        if table is not None:
            found[name] = table
    return found


def test_every_function_with_scalar_options_has_a_table():
    """Item 2: one table of the scalar options at the top of each public function."""
    tabled = _tabled()
    for name, function in FUNCTIONS.items():
        if name.startswith("survfair.plotting."):
            continue
        options = [
            o for o in _scalar_options(function) if o not in EXEMPT and o not in DATA_ARGUMENTS
        ]
        if options and name not in WITHOUT_TABLE:
            assert name in tabled, f"{name} has scalar options {options} but no OptionTable"
    assert set(WITHOUT_TABLE) <= set(FUNCTIONS)
    assert not set(WITHOUT_TABLE) & set(tabled)


def test_the_tables_name_keyword_only_options():
    for name, table in _tabled().items():
        parameters = inspect.signature(FUNCTIONS[name]).parameters
        for option in table.options:
            assert parameters[option].kind is inspect.Parameter.KEYWORD_ONLY, (name, option)


def test_the_defaults_pass_the_tables():
    for name, table in _tabled().items():
        parameters = inspect.signature(FUNCTIONS[name]).parameters
        table.check({option: parameters[option].default for option in table.options})


BAD_VALUE_CASES = [
    (name, option, spec.bad)
    for name, table in sorted(_tabled().items())
    for option, spec in table.options.items()
    if spec.bad is not NOT_GIVEN
]


@pytest.mark.parametrize("name, option, value", BAD_VALUE_CASES)
def test_an_invalid_value_of_the_right_type_is_refused_naming_it(name, option, value):
    with pytest.raises(sf.InvalidParameterError) as caught:
        _call(name, **{option: value})
    assert caught.value.parameter == option
    assert str(caught.value).startswith(option)
