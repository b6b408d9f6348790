"""Every validation error, with its message."""

import numpy as np
import pandas as pd
import pytest

import survfair

T = [1.0, 2.0, 3.0, 4.0, 5.0]
E = [1, 0, 1, 1, 0]
G = ["a", "b", "a", "b", "a"]
R = [0.5, 0.1, 0.3, 0.9, 0.2]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(time=T[:4]), ValueError, r"mismatched lengths: time has 4, event has 5, group has 5, risk has 5"),
        (dict(time=[1.0, np.nan, 3, 4, 5]), ValueError, r"time contains NaN or infinite values at rows \[1\]"),
        (dict(risk=[0.1, 0.2, np.inf, 0.3, 0.4]), ValueError, r"risk contains NaN or infinite values at rows \[2\]"),
        (dict(time=[1.0, -2, 3, -4, 5]), ValueError, r"time must be >= 0; negative values at rows \[1, 3\] \(2 rows\)"),
        (dict(event=[1, 2, 0, 1, 0]), ValueError, r"event must be boolean or 0/1; other values at rows \[1\]"),
        (dict(event=["yes", "no", "yes", "no", "no"]), TypeError, r"event must be boolean or 0/1, got dtype <U3"),
        (dict(risk=["a", "b", "c", "d", "e"]), TypeError, r"risk must be numeric, got dtype <U1"),
        (dict(risk=np.array([0.1, "x", 0.3, 0.2, 0.5], dtype=object)), TypeError, r"risk must be numeric; non-numeric values at rows \[1\]"),
        (dict(risk=np.ones((5, 2))), ValueError, r"risk must be 1-D, got an array of shape \(5, 2\)"),
        (dict(time=[], event=[], group=[], risk=[]), ValueError, r"time is empty"),
        (dict(group=["a", None, "a", "b", "a"]), ValueError, r"group contains missing labels at rows \[1\]"),
        (dict(groups=["a", "c"]), ValueError, r"groups: labels \['c'\] do not occur in group"),
        (dict(tau=0), ValueError, r"tau must be a finite number > 0, got 0.0"),
        (dict(tau=-1.5), ValueError, r"tau must be a finite number > 0"),
        (dict(tau="10"), TypeError, r"tau must be a positive number or None"),
        (dict(method="harrell"), ValueError, r"method must be one of \['naive', 'ipcw'\]"),
        (dict(censoring="km"), ValueError, r"censoring must be one of \['group', 'pooled'\]"),
        (dict(tied_tol=-1.0), ValueError, r"tied_tol must be a finite number >= 0"),
        (dict(risk=None), TypeError, r"risk is required"),
        (dict(event=[0, 0, 0, 0, 0]), ValueError, r"no comparable pair"),
        (dict(event=[1, 1, 1, 1, 1], time=[3.0, 3, 3, 3, 3]), ValueError, r"no comparable pair"),
        (dict(tau=0.5), ValueError, r"every comparable pair has its earlier event at or after tau"),
        (dict(censoring_reference=[1, 2]), TypeError, r"censoring_reference must be a DataFrame"),
        (dict(strict="yes"), TypeError, r"strict must be True or False"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_errors(kwargs, error, match):
    args = dict(time=T, event=E, group=G, risk=R)
    args.update({k: v for k, v in kwargs.items() if k in args})
    options = {k: v for k, v in kwargs.items() if k not in args}
    with pytest.raises(error, match=match):
        survfair.xci(args["time"], args["event"], args["group"], args["risk"], **options)


def test_no_comparable_pair_is_a_value_error_subclass():
    with pytest.raises(survfair.NoComparablePairError):
        survfair.xci(T, [0] * 5, G, R)
    assert issubclass(survfair.NoComparablePairError, ValueError)


def test_data_column_errors_name_the_column():
    frame = pd.DataFrame({"t": T, "e": E, "g": G, "r": R})
    with pytest.raises(ValueError, match=r"risk: column 'score' is not in data"):
        survfair.xci("t", "e", "g", "score", data=frame)
    with pytest.raises(ValueError, match=r"group: columns \['race'\] are not in data"):
        survfair.xci("t", "e", ["g", "race"], "r", data=frame)
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        survfair.xci("t", "e", "g", "r", data={"t": T})


def test_rows_are_named_by_dataframe_index():
    frame = pd.DataFrame({"t": T, "e": E, "g": G, "r": R}, index=[10, 11, 12, 13, 14])
    frame.loc[13, "r"] = np.nan
    with pytest.raises(ValueError, match=r"risk contains NaN or infinite values at rows \[13\]"):
        survfair.xci("t", "e", "g", "r", data=frame)


def test_structured_y_needs_event_none():
    from sksurv.util import Surv

    y = Surv.from_arrays(event=np.array(E, bool), time=np.array(T))
    res = survfair.xci(y, None, G, R, method="naive")
    assert res.n_samples == 5
    with pytest.raises(ValueError, match="event must be None when time is scikit-survival's structured y"):
        survfair.xci(y, E, G, R)


def test_accepted_input_types_agree():
    base = survfair.xci(T, E, G, R, method="naive").values
    frame = pd.DataFrame({"t": T, "e": np.array(E, bool), "g": G, "r": R})
    for result in (
        survfair.xci(np.array(T), np.array(E, float), np.array(G), np.array(R), method="naive"),
        survfair.xci(frame["t"], frame["e"], frame["g"], frame["r"], method="naive"),
        survfair.xci("t", "e", "g", "r", data=frame, method="naive"),
        survfair.xci(T, E, pd.Categorical(G), R, method="naive"),
    ):
        np.testing.assert_array_equal(result.values, base)


def test_positivity_error_names_group_and_time():
    time = np.array([1.0, 2.0, 3.0, 4.0, 4.0, 1.5, 2.5, 3.5])
    event = np.array([1, 1, 1, 1, 0, 1, 0, 1], bool)
    group = np.array(["a"] * 5 + ["b"] * 3)
    risk = np.arange(8.0)[::-1]
    with pytest.raises(survfair.PositivityError, match=r"group 'a' is 0 at time 4.*smaller tau"):
        survfair.xci(time, event, group, risk)
    assert survfair.xci(time, event, group, risk, tau=4.0).values.shape == (2, 2)
