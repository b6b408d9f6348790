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
        (
            dict(time=T[:4]),
            ValueError,
            r"mismatched lengths: time has 4, event has 5, group has 5, risk has 5",
        ),
        (
            dict(time=[1.0, np.nan, 3, 4, 5]),
            ValueError,
            r"time contains NaN or infinite values at rows \[1\]",
        ),
        (
            dict(risk=[0.1, 0.2, np.inf, 0.3, 0.4]),
            ValueError,
            r"risk contains NaN or infinite values at rows \[2\]",
        ),
        (
            dict(time=[1.0, -2, 3, -4, 5]),
            ValueError,
            r"time must be >= 0; negative values at rows \[1, 3\] \(2 rows\)",
        ),
        (
            dict(event=[1, 2, 0, 1, 0]),
            ValueError,
            r"event must be boolean or 0/1; other values at rows \[1\]",
        ),
        (
            dict(event=["yes", "no", "yes", "no", "no"]),
            TypeError,
            r"event must be boolean or 0/1, got dtype <U3",
        ),
        (dict(risk=["a", "b", "c", "d", "e"]), TypeError, r"risk must be numeric, got dtype <U1"),
        (
            dict(risk=np.array([0.1, "x", 0.3, 0.2, 0.5], dtype=object)),
            TypeError,
            r"risk must be numeric; non-numeric values at rows \[1\]",
        ),
        (
            dict(risk=np.ones((5, 2))),
            ValueError,
            r"risk must be 1-D, got an array of shape \(5, 2\)",
        ),
        (dict(time=[], event=[], group=[], risk=[]), ValueError, r"time is empty"),
        (
            dict(group=["a", None, "a", "b", "a"]),
            ValueError,
            r"group contains missing labels at rows \[1\]",
        ),
        (dict(groups=["a", "c"]), ValueError, r"groups: labels \['c'\] do not occur in group"),
        (dict(tau=0), ValueError, r"tau must be a finite number > 0 or None, got 0.0"),
        (dict(tau=-1.5), ValueError, r"tau must be a finite number > 0"),
        (dict(tau="10"), TypeError, r"tau must be a finite number > 0 or None, got a str"),
        (dict(method="harrell"), ValueError, r"method must be one of \['naive', 'ipcw'\]"),
        (dict(censoring="km"), ValueError, r"censoring must be one of \['group', 'pooled', 'cox"),
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
    with pytest.raises(
        ValueError, match="event must be None when time is scikit-survival's structured y"
    ):
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


# -- issue 13: pandas indexes, masked arrays, intersectional labels -------------------------------


def _ranked(n=12):
    """Perfectly ranked cohort: every xCI cell is 1.0 when the rows are matched correctly."""
    time = np.arange(1.0, n + 1)
    event = np.ones(n, bool)
    group = np.where(np.arange(n) % 2, "b", "a")
    risk = -time
    index = pd.Index([f"p{k}" for k in range(n)])
    return (
        pd.Series(time, index=index),
        pd.Series(event, index=index),
        pd.Series(group, index=index),
        pd.Series(risk, index=index),
    )


INDEX_MESSAGE = r"carry pandas indexes that are not identical .*\.to_numpy\(\).*\.reindex"


def _public_calls():
    """Every public function that takes per-row inputs, called as f(time, event, group, risk)."""
    from survfair import mitigate, plotting

    def binary(f):
        return lambda t, e, g, r: f(e.astype(int), g, r)

    shift = None

    def transform(t, e, g, r):
        nonlocal shift
        t0, e0, g0, r0 = _ranked()
        shift = shift or mitigate.group_shift(
            t0.to_numpy(), e0.to_numpy(), g0.to_numpy(), r0.to_numpy(), tau=11.0
        )
        return shift.transform(r, g)

    return {
        "xci": lambda t, e, g, r: survfair.xci(t, e, g, r),
        "xauc": binary(survfair.xauc),
        "xauc_t": lambda t, e, g, r: survfair.xauc_t(t, e, g, r, [5.0]),
        "compare": lambda t, e, g, r: survfair.compare(t, e, g, {"m": r}),
        "xci_score": lambda t, e, g, r: survfair.xci_score(
            np.array(list(zip(e, t)), dtype=[("event", bool), ("time", float)]), r, group=g
        ),
        "group_shift": lambda t, e, g, r: mitigate.group_shift(t, e, g, r, tau=11.0),
        "group_monotone": lambda t, e, g, r: mitigate.group_monotone(t, e, g, r, tau=11.0),
        "frontier": lambda t, e, g, r: mitigate.frontier(t, e, g, r, tau=11.0, n_points=3),
        "transform": transform,
        "logistic_adjustment": lambda t, e, g, r: survfair.logistic_adjustment(
            e.astype(int), g, r, "a", "b"
        ),
        "equal_opportunity_adjustment": lambda t, e, g, r: survfair.equal_opportunity_adjustment(
            e.astype(int), g, r, "a", "b"
        ),
        "plot_risk_densities": lambda t, e, g, r: plotting.plot_risk_densities(e, g, r),
    }


@pytest.mark.parametrize("name", sorted(_public_calls()))
def test_reordered_pandas_index_is_refused_by_every_public_function(name):
    call = _public_calls()[name]
    time, event, group, risk = _ranked()
    # before: reversing risk (keeping its labels) turned xCI 1.0 into 0.0 silently
    with pytest.raises(ValueError, match=INDEX_MESSAGE):
        call(time, event, group, risk[::-1])


@pytest.mark.parametrize("name", sorted(_public_calls()))
def test_disjoint_pandas_index_is_refused_by_every_public_function(name):
    call = _public_calls()[name]
    time, event, group, risk = _ranked()
    with pytest.raises(ValueError, match=INDEX_MESSAGE + r"|different labels"):
        call(time, event, group, pd.Series(risk.to_numpy(), index=np.arange(len(risk)) + 100))


def test_index_rule_messages_and_what_is_accepted():
    time, event, group, risk = _ranked()
    with pytest.raises(
        ValueError, match=r"^time and risk carry pandas indexes .*same labels in a different order"
    ):
        survfair.xci(time, event, group, risk.iloc[::-1])
    frame = pd.DataFrame({"t": time, "e": event, "g": group})
    with pytest.raises(ValueError, match=r"^data and risk carry pandas indexes"):
        survfair.xci("t", "e", "g", risk.iloc[::-1], data=frame)
    # identical indexes, arrays, and a mix of arrays with one indexed input match by position
    assert (survfair.xci(time, event, group, risk, method="naive").values == 1).all()
    assert (
        survfair.xci(
            time.to_numpy(),
            event.to_numpy(),
            group,
            risk.iloc[::-1].to_numpy()[::-1],
            method="naive",
        ).values
        == 1
    ).all()
    assert (survfair.xci("t", "e", "g", risk, data=frame, method="naive").values == 1).all()
    # the shuffled-frame case: same labels, other order, wrapped predictions -> refused, not aligned
    shuffled = frame.sample(frac=1.0, random_state=0)
    predictions = pd.Series(-shuffled["t"].to_numpy())  # fresh RangeIndex, rows in shuffled order
    with pytest.raises(ValueError, match=INDEX_MESSAGE):
        survfair.xci("t", "e", "g", predictions, data=shuffled)
    assert (
        survfair.xci("t", "e", "g", predictions.to_numpy(), data=shuffled, method="naive").values
        == 1
    ).all()


def test_xauc_with_permuted_index_is_refused_not_matched_by_position():
    rng = np.random.default_rng(0)
    y = pd.Series(rng.integers(0, 2, 200))
    group = pd.Series(np.where(rng.random(200) < 0.5, "a", "b"))
    score = pd.Series(y + rng.normal(0, 1, 200))
    with pytest.raises(ValueError, match=INDEX_MESSAGE):
        survfair.xauc(y, group, score.sample(frac=1.0, random_state=1))


def test_compare_with_model_scores_checks_x_index_against_outcomes():
    time, event, group, risk = _ranked()
    X = pd.DataFrame({"x": time.to_numpy()}, index=time.index[::-1])
    with pytest.raises(ValueError, match=INDEX_MESSAGE):
        survfair.compare(time, event, group, {"m": lambda X: -X["x"].to_numpy()}, X=X)


def test_compare_errors_about_outcomes_name_no_model():
    time, event, group, risk = _ranked()
    frame = pd.DataFrame({"t": time, "e": event, "r": risk})
    with pytest.raises(ValueError, match=r"^group: column 'sex' is not in data"):
        survfair.compare("t", "e", "sex", {"risk": "r"}, data=frame)
    with pytest.raises(ValueError, match=r"^models\['risk'\]: risk contains NaN"):
        survfair.compare("t", "e", group.to_numpy(), {"risk": [np.nan] + [0.0] * 11}, data=frame)


def test_masked_entries_are_missing_values():
    time, event, group, risk = (np.asarray(v) for v in _ranked())
    masked = np.ma.masked_array(risk, mask=[False] * 3 + [True] + [False] * 8)
    masked.data[3] = 1e9  # the hidden raw value must never be used
    with pytest.raises(
        ValueError, match=r"risk contains masked \(missing\) values at rows \[3\] \(1 row\)"
    ):
        survfair.xci(time, event, group, masked)
    masked_time = np.ma.masked_array(time, mask=[True, True] + [False] * 10)
    with pytest.raises(
        ValueError, match=r"time contains masked \(missing\) values at rows \[0, 1\]"
    ):
        survfair.xci(masked_time, event, group, risk)
    with pytest.raises(ValueError, match=r"score contains masked"):
        survfair.xauc(event.astype(int), group, masked)
    # a masked array without masked entries is its data
    unmasked = np.ma.masked_array(risk, mask=False)
    np.testing.assert_array_equal(
        survfair.xci(time, event, group, unmasked).values,
        survfair.xci(time, event, group, risk).values,
    )


def test_intersections_are_keyed_by_label_tuples():
    n = 40
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "t": rng.exponential(size=n),
            "e": np.ones(n, bool),
            "r": rng.normal(size=n),
            "x": np.where(np.arange(n) % 2, "a|b", "a"),
            "y": np.where(np.arange(n) % 2, "c", "b|c"),
        }
    )
    # before: ("a|b", "c") and ("a", "b|c") were both "a|b|c", one group
    res = survfair.xci("t", "e", ["x", "y"], "r", data=frame, method="naive")
    assert res.groups == ("a\\|b|c", "a|b\\|c")
    assert sorted(res.group_sizes[g]["n"] for g in res.groups) == [20, 20]


def test_labels_that_print_the_same_are_refused():
    n = 20
    frame = pd.DataFrame(
        {
            "t": np.arange(1.0, n + 1),
            "e": np.ones(n, bool),
            "r": -np.arange(1.0, n + 1),
            "x": np.array([1, "1"] * (n // 2), dtype=object),
            "y": ["u"] * n,
        }
    )
    # before: 1 and "1" were two groups alone but one when intersected
    with pytest.raises(
        ValueError,
        match=r"distinct label combinations \(1, 'u'\) and \('1', 'u'\) both print as '1\|u'",
    ):
        survfair.xci("t", "e", ["x", "y"], "r", data=frame)
    with pytest.raises(ValueError, match=r"distinct labels 1 and '1' both print as '1'"):
        survfair.xci("t", "e", "x", "r", data=frame)


def test_labels_in_two_unicode_normal_forms_are_refused_naming_labels_and_rows():
    """'é' as one code point (NFC) and as e + combining accent (NFD) were two groups that print the
    same; they are refused (never merged: a label is the user's), naming both and their rows."""
    import unicodedata

    n = 20
    nfc, nfd = unicodedata.normalize("NFC", "é"), unicodedata.normalize("NFD", "é")
    frame = pd.DataFrame(
        {
            "t": np.arange(1.0, n + 1),
            "e": np.ones(n, bool),
            "r": -np.arange(1.0, n + 1),
            "x": [nfd if k == 3 else nfc for k in range(n)],
            "y": ["u"] * n,
        }
    )
    message = (
        r"distinct labels 'e\\u0301' \(rows \[3\] \(1 row\)\) and '\\xe9' "
        r"\(rows \[0, 1, 2, 4, .*differ only in Unicode"
    )
    with pytest.raises(ValueError, match=message):
        survfair.xci("t", "e", "x", "r", data=frame)
    with pytest.raises(
        ValueError,
        match=r"label combinations \('\\xe9', 'u'\) \(rows \[0, .*"
        r"\('e\\u0301', 'u'\) \(rows \[3\] .*Unicode",
    ):
        survfair.xci("t", "e", ["x", "y"], "r", data=frame)
    normalised = frame.assign(x=frame["x"].map(lambda s: unicodedata.normalize("NFC", s)))
    assert survfair.xci("t", "e", "x", "r", data=normalised, method="naive").groups == (nfc,)


def test_intersection_keeps_numeric_labels_and_order():
    frame = pd.DataFrame({"t": T, "e": E, "g": G, "h": [2, 10, 2, 10, 2], "r": R})
    res = survfair.xci("t", "e", ["g", "h"], "r", data=frame, method="naive")
    assert res.groups == ("a|2", "b|10")


def test_group_frame_passed_with_data_keeps_its_own_index():
    """Review finding: a DataFrame of group columns passed beside data= was taken as data's own."""
    time = np.arange(1.0, 41.0)
    g = np.arange(40) % 2
    frame = pd.DataFrame({"t": time, "e": 1, "g": g, "r": np.where(g == 0, -time, time)})
    shuffled = frame[["g"]].assign(h="x").sample(frac=1.0, random_state=0)
    for group in (shuffled, shuffled[["g"]]):
        with pytest.raises(ValueError, match=r"^data and group carry pandas indexes"):
            survfair.xci("t", "e", group, "r", data=frame, method="naive")
    aligned = survfair.xci("t", "e", shuffled.loc[frame.index], "r", data=frame, method="naive")
    np.testing.assert_array_equal(aligned.values, [[1.0, 0.0], [1.0, 0.0]])


def test_repeated_group_columns_are_refused():
    frame = pd.DataFrame({"t": T, "e": E, "g": G, "r": R})
    with pytest.raises(ValueError, match=r"group: columns \['g'\] are given more than once"):
        survfair.xci("t", "e", ["g", "g"], "r", data=frame)


def test_booleans_mixed_with_numbers_are_refused_not_merged():
    """Review finding: labels 1 and True became one group silently."""
    group = np.array([1, True, 1, True, 2], dtype=object)
    with pytest.raises(ValueError, match=r"group mixes booleans and numbers"):
        survfair.xci(T, E, group, R)


def test_one_random_state_rule():
    """Issue 19: one normaliser for the bootstrap, the simulator and mitigation."""
    import inspect

    from survfair import mitigate, simulate
    from survfair._core.options import check_random_state

    assert check_random_state(7).entropy == 7
    with pytest.raises(ValueError, match="non-negative integer"):
        check_random_state(-1)
    with pytest.raises(TypeError, match="random_state must be None, an int"):
        check_random_state(True)
    # the simulator now also takes a legacy RandomState, like the bootstrap always did
    frame = simulate.lognormal_cohort(
        50, 0.0, 0.8, 1.0, 0.5, 0.5, random_state=np.random.RandomState(0)
    )
    assert len(frame) == 50
    for function in (survfair.xci, mitigate.group_shift, mitigate.frontier):
        assert inspect.signature(function).parameters["random_state"].default is None


# -- the one scalar vocabulary -------------------------------------------------------------------
from survfair._core.options import check_scalar  # noqa: E402


@pytest.mark.parametrize(
    "value, kwargs, error, message",
    [
        (1, dict(name="n", kind="integer", low=2), ValueError, "n must be an integer >= 2, got 1."),
        (
            2.0,
            dict(name="n", kind="integer", low=2),
            TypeError,
            "n must be an integer >= 2, got 2.0.",
        ),
        (True, dict(name="n", kind="integer"), TypeError, "n must be an integer, got True."),
        (np.True_, dict(name="x"), TypeError, "x must be a finite number, got True."),
        (float("nan"), dict(name="x"), ValueError, "x must be a finite number, got nan."),
        (float("inf"), dict(name="x"), ValueError, "x must be a finite number, got inf."),
        (float("nan"), dict(name="x", finite=False), ValueError, "x must be a number, got nan."),
        (
            "0.5",
            dict(name="x", low=0, high=1),
            TypeError,
            "x must be a number in [0, 1], got a str.",
        ),
        (np.zeros(3), dict(name="x"), TypeError, "x must be a finite number, got a ndarray."),
        (
            0.0,
            dict(name="x", low=0, high=1, closed="neither"),
            ValueError,
            "x must be a number in (0, 1), got 0.0.",
        ),
        (
            1.0,
            dict(name="x", low=0, high=1, closed="left"),
            ValueError,
            "x must be a number in [0, 1), got 1.0.",
        ),
        (
            0.0,
            dict(name="x", low=0, high=1, closed="right"),
            ValueError,
            "x must be a number in (0, 1], got 0.0.",
        ),
        (-1e-12, dict(name="x", low=0), ValueError, "x must be a finite number >= 0, got -1e-12."),
        (
            3,
            dict(name="x", high=2, closed="neither"),
            ValueError,
            "x must be a finite number < 2, got 3.0.",
        ),
        (1, dict(name="flag", kind="bool"), TypeError, "flag must be True or False, got 1."),
        (None, dict(name="x"), TypeError, "x must be a finite number, got None."),
    ],
)
def test_check_scalar_refuses_with_one_template(value, kwargs, error, message):
    with pytest.raises(error) as info:
        check_scalar(value, **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "value, kwargs, expected",
    [
        (np.int64(3), dict(name="n", kind="integer"), 3),
        (np.float32(0.5), dict(name="x", low=0, high=1, closed="neither"), 0.5),
        (2, dict(name="x"), 2.0),
        (float("inf"), dict(name="x", low=0, closed="neither", finite=False), float("inf")),
        (None, dict(name="x", none=True), None),
        (np.False_, dict(name="flag", kind="bool"), False),
        (0.0, dict(name="x", low=0), 0.0),
    ],
)
def test_check_scalar_accepts_and_normalises(value, kwargs, expected):
    out = check_scalar(value, **kwargs)
    assert out == expected and type(out) is type(expected)


def _cohort():
    return dict(time=T, event=E, group=G, risk=R)


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda v: survfair.xci(**_cohort(), confidence_level=v), "confidence_level"),
        (lambda v: survfair.xci(**_cohort(), tau=v), "tau"),
        (lambda v: survfair.xci(**_cohort(), tied_tol=v), "tied_tol"),
        (lambda v: survfair.xci(**_cohort(), strict=v), "strict"),
        (
            lambda v: survfair.xauc(
                [1, 0, 1, 0], ["a", "a", "b", "b"], [0.9, 0.1, 0.8, 0.2], confidence_level=v
            ),
            "confidence_level",
        ),
        (lambda v: survfair.utility(survfair.xci(**_cohort(), ci=None), alpha=v), "alpha"),
        (lambda v: survfair.simulate.lognormal_xci(1, 1, 1, v, 1, 1), "sigma"),
        (lambda v: survfair.mitigate.group_shift(**_cohort(), beta=v), "beta"),
    ],
)
def test_every_public_scalar_option_follows_one_rule(call, argument):
    """The same mistakes raise the same exceptions with the same sentence, whatever the function:
    a string or a bool is a TypeError, NaN is a ValueError, and both messages name the argument."""
    for bad, error in (("1", TypeError), (float("nan"), ValueError)):
        if argument == "strict":
            bad, error = ("1", TypeError)
        with pytest.raises(error, match=rf"^{argument} must be .*, got "):
            call(bad)


# -- audit of issue 19, item D: options that slipped past the shared checks ------------------------


def _xci_result():
    return survfair.xci(**_cohort(), ci=None)


def _design():
    return survfair.simulate.ph_design({"F": 0.5, "M": 0.5})


@pytest.mark.parametrize(
    "call, bad, error, argument",
    [
        # before: accepted (group_shift refused the same weights)
        (lambda v: survfair.min_utility(_xci_result(), alpha=v), -1.0, ValueError, "alpha"),
        (lambda v: survfair.nash_welfare(_xci_result(), beta=v), -1.0, ValueError, "beta"),
        (lambda v: survfair.utility(_xci_result(), alpha=v), -0.5, ValueError, "alpha"),
        (
            lambda v: survfair.min_utility(_xci_result(), alpha=v, beta=0.0),
            0.0,
            ValueError,
            "alpha and beta",
        ),
        (
            lambda v: survfair.utility(_xci_result(), alpha=v, beta=0.0),
            0.0,
            ValueError,
            "alpha and beta",
        ),
        (
            lambda v: survfair.xci_score(
                survfair_y(), R, group=G, statistic="min_utility", alpha=v
            ),
            -1.0,
            ValueError,
            "alpha",
        ),
        (
            lambda v: survfair.xci_score(survfair_y(), R, group=G, statistic="min_xci", beta=v),
            -1.0,
            ValueError,
            "beta",
        ),
        (
            lambda v: survfair.make_xci_scorer(statistic="min_utility", group_column="g", alpha=v),
            -1.0,
            ValueError,
            "alpha",
        ),
        # before: 1.5 passed and "x" raised joblib's own TypeError
        (
            lambda v: survfair.simulate.coverage_study(
                _design(), [50], n_replications=2, n_truth=1000, n_jobs=v, progress=False
            ),
            1.5,
            TypeError,
            "n_jobs",
        ),
        (
            lambda v: survfair.simulate.coverage_study(
                _design(), [50], n_replications=2, n_truth=1000, n_jobs=v, progress=False
            ),
            "x",
            TypeError,
            "n_jobs",
        ),
        # before: 2.5 failed inside scipy, True was taken as 1 node
        (
            lambda v: survfair.simulate.ph_xci_integral(_design(), "F", "M", n_nodes=v),
            2.5,
            TypeError,
            "n_nodes",
        ),
        (
            lambda v: survfair.simulate.ph_xci_integral(_design(), "F", "M", n_nodes=v),
            True,
            TypeError,
            "n_nodes",
        ),
        # before: 1 was taken as True
        (lambda v: survfair.load_flchain(perturb=v), 1, TypeError, "perturb"),
    ],
)
def test_options_missed_by_the_shared_checks_are_refused(call, bad, error, argument):
    with pytest.raises(error, match=rf"^{argument} must"):
        call(bad)


def survfair_y():
    from sksurv.util import Surv

    return Surv.from_arrays(np.asarray(E, dtype=bool), np.asarray(T, dtype=float))


def test_options_are_keyword_only():
    """Issue 19 audit, item E: the data stay positional, every option after ``*``."""
    import inspect

    from survfair import simulate

    cases = {
        survfair.balanced_xauc: ["confidence_level"],
        survfair.min_utility: ["alpha", "beta"],
        survfair.nash_welfare: ["alpha", "beta"],
        survfair.utility: ["alpha", "beta"],
        survfair.abs_delta_between: ["a", "b"],
        survfair.omnibus_test: ["hypothesis"],
        survfair.adjust_p_values: ["method"],
        survfair.fairness_profile: ["time"],
        survfair.make_xci_scorer: ["statistic"],
        simulate.ph_xci_integral: ["n_nodes"],
        survfair.load_flchain: ["covariates", "perturb"],
        simulate.CohortDesign.draw: ["random_state"],
        simulate.CohortDesign.censored_fraction: ["n", "random_state"],
        simulate.CohortDesign.true_xci: ["n_truth", "random_state"],
    }
    for function, names in cases.items():
        parameters = inspect.signature(function).parameters
        for name in names:
            assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, (
                function.__qualname__,
                name,
            )
    # one name for the replications and for the truth's draws
    assert "n_replications" in inspect.signature(simulate.study).parameters
    assert "n_replications" in inspect.signature(simulate.ipcw_bias_study).parameters
    assert "n_truth" in inspect.signature(simulate.coverage_study).parameters


@pytest.mark.parametrize(
    "call, parameter",
    [
        (lambda t, e, g, r: survfair.xci(t, e, g, r, confidence_level=2), "confidence_level"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, tied_tol=-1.0), "tied_tol"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, tau=-1.0), "tau"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, n_jobs=0), "n_jobs"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, strict="yes"), "strict"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, method="uno"), "method"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, ci="bootstrap", n_resamples=1), "n_resamples"),
        (
            lambda t, e, g, r: survfair.xci(t[:-1], e, g, r),
            None,
        ),  # mismatched lengths: no single argument
        (
            lambda t, e, g, r: survfair.xci(np.where(np.arange(t.size) == 3, np.nan, t), e, g, r),
            "time",
        ),
        (lambda t, e, g, r: survfair.xci(t, e.astype(int) * 2, g, r), "event"),
        (lambda t, e, g, r: survfair.xci(t, e, g, r, weights=-np.ones(t.size)), "weights"),
        (
            lambda t, e, g, r: survfair.calibration(
                t, e, g, np.clip(r, 0.01, 0.99), [1.0], confidence_level=0
            ),
            "confidence_level",
        ),
        (lambda t, e, g, r: survfair.xauc((e > 0).astype(int), g, r, tied_tol=-1), "tied_tol"),
    ],
)
def test_errors_carry_the_parameter(call, parameter):
    """Issue 35: the validation's errors are InvalidParameterError (a ValueError and a TypeError)
    naming the argument at fault in ``.parameter``, which the command line maps to its option."""
    rng = np.random.default_rng(0)
    t, e = rng.exponential(size=60) + 0.01, rng.random(60) < 0.7
    g, r = np.arange(60) % 2, rng.normal(size=60)
    if parameter is None:
        with pytest.raises(ValueError) as caught:
            call(t, e, g, r)
        assert getattr(caught.value, "parameter", None) is None
        return
    with pytest.raises(survfair.InvalidParameterError) as caught:
        call(t, e, g, r)
    assert caught.value.parameter == parameter
    assert str(caught.value).startswith(parameter)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypeError)
