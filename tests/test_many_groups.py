"""Many groups, bounded resources (issue 43, deliverable 4).

The small-sample flags, their reasons and the tables the command line writes are formed with array
operations, never one Python step (or pandas label lookup) per cell of the G^2: each is checked
here against the per-cell logic it replaced, kept as a slow twin. The utilities' standard errors
are read from the compact influence rows in O(n G) and equal the weights path. A command-line audit
of 300 groups finishes and equals the library; ``n_jobs`` is capped at the cores available and
nonsense is refused, in the library and on the command line.
"""

from __future__ import annotations

import io
import json
import time
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

import survfair
from survfair._core import parallel
from survfair._core.results import cell_support, small_sample_rules
from survfair._present.findings import ranking
from survfair._present.findings.ranking import (
    INTERVAL_ADVICE,
    flagged_cells,
    small_sample_flags,
)
from survfair._present.format import percent
from survfair._present.tables import cell_reasons
from survfair._xci import summaries
from survfair.cli import main

# -- slow twins: the per-cell logic the vectorised code replaced ----------------------------------


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _naive_reasons(result, min_events=10, min_pairs=100, min_interval_events=35) -> np.ndarray:
    """The reason of every cell, one cell at a time (small_sample_flags before issue 43.4)."""
    groups = list(result.groups)
    g = len(groups)
    events, controls, first, second = cell_support(result)
    pairs = result.pair_counts.comparable.ravel().astype(np.int64)
    values = result.values.ravel()
    rules = small_sample_rules(result, min_events, min_pairs, min_interval_events)
    narrow = rules["narrow_row"] | rules["narrow_column"]
    reasons = np.full(g * g, "", dtype=object)
    for cell in np.flatnonzero(rules["flagged"]):
        i, j = divmod(int(cell), g)
        parts = []
        if rules["few_events"][cell]:
            parts.append(f"{_count(int(events[i]), first)} in {groups[i]} (< {min_events})")
        if rules["narrow_row"][cell] and not rules["few_events"][cell]:
            parts.append(
                f"{_count(int(events[i]), 'event')} in {groups[i]} (< {min_interval_events})"
            )
        if rules["few_controls"][cell]:
            parts.append(f"{_count(int(controls[j]), second)} in {groups[j]} (< {min_events})")
        if rules["narrow_column"][cell] and j != i:
            parts.append(
                f"{_count(int(events[j]), 'event')} in {groups[j]} (< {min_interval_events})"
            )
        if rules["few_pairs"][cell]:
            parts.append(f"{_count(int(pairs[cell]), 'comparable pair')} (< {min_pairs})")
        if rules["no_variance"][cell]:
            parts.append(
                f"estimated at {percent(values[cell])}, standard error 0 (no variance estimate)"
            )
        if narrow[cell]:
            parts.append(INTERVAL_ADVICE)
        reasons[cell] = "; ".join(parts)
    return reasons


def _naive_utility_inference(result, alpha, beta, level):
    """se, low, high of every U(a) from G weight rows of G^2 cells (the path before 43.4)."""
    g = len(result.groups)
    weights = summaries._utility_weights(g, alpha, beta, np.arange(g))
    low, high = survfair._core.results.contrast_interval(result, weights, level)
    return survfair._core.results.contrast_se(result, weights), low, high


# -- data ----------------------------------------------------------------------------------------


def _cohort(seed: int, n: int, g: int, labels: str = "text"):
    """Times, events, labels and risks of ``g`` groups of different sizes (some tiny)."""
    rng = np.random.default_rng(seed)
    skewed = np.minimum(rng.geometric(min(1.0, 3.0 / g), n) - 1, g - 1)
    codes = np.where(rng.random(n) < 0.7, rng.integers(0, g, n), skewed)  # unequal sizes
    risk = rng.normal(size=n).round(int(rng.integers(0, 3)))  # ties for some seeds
    t, c = rng.exponential(np.exp(-0.5 * risk)), rng.exponential(2.0, n)
    time_, event = np.minimum(t, c).round(2), (t <= c).astype(int)
    if labels == "tuple":
        names = np.empty(g, dtype=object)
        names[:] = [("F" if k % 2 else "M", f"r{k // 2}") for k in range(g)]
    elif labels == "int":
        names = np.arange(g) * 10
    else:
        names = np.array([f"g{k}|x" for k in range(g)], dtype=object)
    return time_, event, names[codes], risk


def _xci(seed, n, g, labels="text", **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return survfair.xci(*_cohort(seed, n, g, labels), **options)


CASES = [
    pytest.param(dict(seed=1, n=400, g=6), dict(method="naive"), id="naive-analytic"),
    pytest.param(dict(seed=2, n=500, g=9), dict(tau=1.0), id="ipcw-analytic"),
    pytest.param(dict(seed=3, n=300, g=5), dict(ci=None, method="naive"), id="no-intervals"),
    pytest.param(
        dict(seed=4, n=300, g=4),
        dict(ci="bootstrap", n_resamples=30, random_state=0, tau=1.0),
        id="bootstrap",
    ),
    pytest.param(dict(seed=5, n=350, g=7, labels="tuple"), dict(method="naive"), id="tuple-labels"),
    pytest.param(dict(seed=6, n=250, g=8, labels="int"), dict(method="naive"), id="int-labels"),
    pytest.param(dict(seed=7, n=60, g=12), dict(method="naive"), id="tiny-groups"),
    pytest.param(dict(seed=8, n=30, g=1), dict(method="naive"), id="one-group"),
]
THRESHOLDS = [
    pytest.param({}, id="defaults"),
    pytest.param(dict(min_events=2, min_pairs=3, min_interval_events=0), id="low"),
    pytest.param(dict(min_events=80, min_pairs=5000, min_interval_events=90), id="high"),
]


@pytest.mark.parametrize("thresholds", THRESHOLDS)
@pytest.mark.parametrize("data, options", CASES)
def test_vectorised_flags_equal_the_per_cell_reasons(data, options, thresholds):
    result = _xci(**data, **options)
    flags = small_sample_flags(result, **thresholds)
    expected = _naive_reasons(result, **thresholds)
    assert flags["reason"].tolist() == expected.tolist()
    assert (flags["flagged"] == (expected != "")).all()
    # the set of flagged cells, the old comprehension over every row
    assert flagged_cells(flags) == {(r.a, r.b) for r in flags.itertuples() if r.flagged}


def test_vectorised_flags_of_an_xauc_matrix():
    rng = np.random.default_rng(9)
    n = 300
    group = rng.integers(0, 6, n)
    outcome = rng.integers(0, 2, n)
    result = survfair.xauc(outcome, group, rng.normal(size=n) + outcome)
    for thresholds in ({}, dict(min_events=30, min_pairs=400)):
        flags = small_sample_flags(result, **thresholds)
        assert flags["reason"].tolist() == _naive_reasons(result, **thresholds).tolist()


@pytest.mark.parametrize("data, options", CASES[:2] + CASES[4:7])
def test_difference_marks_and_cautions_read_the_flags_by_position(data, options):
    result = _xci(**data, **options)
    flags = small_sample_flags(result, min_events=40, min_pairs=500)
    deltas = survfair.pairwise_deltas(result)
    ranking._mark_cells(deltas, flags)
    flagged = {(r.a, r.b) for r in flags.itertuples() if r.flagged}
    zero = {(r.a, r.b) for r in flags.itertuples() if r.no_variance}
    pairs = [ranking._difference_cells(row) for row in deltas.itertuples()]
    assert deltas["flagged"].tolist() == [any(c in flagged for c in p) for p in pairs]
    assert deltas["no_variance_cell"].tolist() == [any(c in zero for c in p) for p in pairs]
    # the reasons of the flagged cells, as the dictionary the findings built before
    expected = {(r.a, r.b): r.reason for r in flags.itertuples() if r.flagged}
    reasons = ranking._FlaggedReasons(flags)
    assert dict(reasons) == expected and len(reasons) == len(expected)
    for cell in [*expected, ("no such group", result.groups[0]), ("x",), None]:
        assert (cell in reasons) == (cell in expected)


def test_flag_lookups_of_a_table_in_another_order():
    """A flags table that is not row-major (a subset, shuffled) is read by label, not position."""
    result = _xci(seed=10, n=300, g=5, method="naive")
    flags = small_sample_flags(result, min_events=40)
    shuffled = flags.sample(frac=1.0, random_state=0).reset_index(drop=True)
    cells = result.to_frame()
    expected = [
        flags.set_index(["a", "b"]).loc[(a, b), "reason"] for a, b in zip(cells["a"], cells["b"])
    ]
    assert cell_reasons(cells, flags).tolist() == expected
    assert cell_reasons(cells, shuffled).tolist() == expected
    subset = flags[flags["a"] != result.groups[0]]
    reasons = ranking._FlaggedReasons(subset)
    assert dict(reasons) == {(r.a, r.b): r.reason for r in subset.itertuples() if r.flagged}


@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (0.3, 0.7), (0.0, 1.0), (1.0, 0.0)])
@pytest.mark.parametrize(
    "data, options",
    [CASES[0], CASES[1], CASES[4], CASES[6], pytest.param(dict(seed=11, n=80, g=3), {}, id="g3")],
)
def test_utility_from_compact_rows_equals_the_weights_path(data, options, alpha, beta):
    result = _xci(**data, **options)
    assert summaries._compact_utility_se(result, alpha, beta) is not None
    fast = summaries._utility_inference(result, alpha, beta, 0.9)
    slow = _naive_utility_inference(result, alpha, beta, 0.9)
    for mine, theirs in zip(fast, slow):
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15)


def test_utility_interval_at_its_bound():
    """A perfect ranking: every cell 1 with standard error 0, the interval is the point itself, at
    the bound summed from the weights as before (exactly so for weights 1; to rounding of the
    value's sum otherwise)."""
    rng = np.random.default_rng(12)
    n, g = 120, 4
    t = rng.exponential(size=n)
    result = survfair.xci(t, np.ones(n, bool), rng.integers(0, g, n), -t, method="naive")
    for alpha, beta in ((1.0, 1.0), (0.1, 0.7)):
        fast = summaries._utility_inference(result, alpha, beta, 0.95)
        slow = _naive_utility_inference(result, alpha, beta, 0.95)
        for mine, theirs in zip(fast[1:], slow[1:]):
            np.testing.assert_allclose(mine, theirs, rtol=1e-15)
            if alpha == beta == 1.0:
                np.testing.assert_array_equal(mine, theirs)
                np.testing.assert_array_equal(mine, np.full(g, 2.0 * (g - 1)))


def test_summaries_and_findings_of_one_result_read_the_cell_se_once(monkeypatch):
    result = _xci(seed=13, n=300, g=5, method="naive")
    calls = []
    original = type(result.influence).cell_se
    monkeypatch.setattr(
        type(result.influence), "cell_se", lambda self: calls.append(1) or original(self)
    )
    first = result.se.to_numpy()
    survfair.findings(result)
    result.to_frame()
    np.testing.assert_array_equal(result.se.to_numpy(), first)
    assert len(calls) == 1
    copy = survfair._core.results.cell_se(result)
    copy[:] = -1.0  # callers get a copy, never the cached array
    np.testing.assert_array_equal(result.se.to_numpy(), first)


# -- the command line at many groups ----------------------------------------------------------


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def many_groups_csv(tmp_path_factory):
    time_, event, group, risk = _cohort(14, 6000, 300)
    path = tmp_path_factory.mktemp("many") / "cohort.csv"
    pd.DataFrame({"t": time_, "e": event, "grp": group, "score": risk}).to_csv(path, index=False)
    return path


AUDIT = ["audit", "--time", "t", "--event", "e", "--group", "grp", "--risk", "score"]


def test_cli_audit_of_300_groups_finishes_and_equals_the_library(many_groups_csv):
    start = time.perf_counter()
    code, out, err = _run(
        [*AUDIT, "--data", str(many_groups_csv), "--method", "naive", "--format", "csv"]
    )
    assert code == 0, err
    assert time.perf_counter() - start < 60
    table = pd.read_csv(
        io.StringIO(out),
        keep_default_na=False,
        na_values=[""],
        float_precision="round_trip",
        low_memory=False,
    )
    frame = pd.read_csv(many_groups_csv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = survfair.xci("t", "e", "grp", "score", data=frame, method="naive")
    cells = table[table["kind"] == "cell"].reset_index(drop=True)
    expected = result.to_frame()
    assert len(cells) == 300 * 300
    assert cells["a"].tolist() == expected["a"].tolist()
    for column in ("xci", "se", "ci_low", "ci_high", "comparable"):
        np.testing.assert_array_equal(
            cells[column].to_numpy(float), expected[column].to_numpy(float)
        )
    flags = survfair.small_sample_flags(result)
    assert cells["flag"].fillna("").tolist() == flags["reason"].tolist()
    utilities = table[table["statistic"] == "utility"].set_index("a")
    library = survfair.utility(result)
    for column in ("value", "se", "ci_low", "ci_high"):
        np.testing.assert_allclose(
            utilities.loc[list(library.index), column].to_numpy(float),
            library[column].to_numpy(),
            rtol=1e-14,
        )
    # the text output names every size instead of printing 90,000 rows or a 300 x 300 matrix
    code, text, _ = _run([*AUDIT, "--data", str(many_groups_csv), "--method", "naive"])
    assert code == 0
    assert "xCI matrix: 300 x 300 cells, too many for a text table" in text
    assert "... and 89800 more rows: every row is in --format csv or --format json" in text
    assert len(text.splitlines()) < 1500


# -- n_jobs: capped at the cores, nonsense refused --------------------------------------------


def _library_calls():
    time_, event, group, risk = _cohort(15, 200, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = survfair.xci(time_, event, group, risk, method="naive")
        second = survfair.xci(time_, event, group, -risk, method="naive")
    predicted = 1 / (1 + np.exp(-risk))
    design = survfair.simulate.ph_design({"F": 0.5, "M": 0.5}, baseline="exponential")
    return {
        "xci": lambda n_jobs: survfair.xci(
            time_, event, group, risk, method="naive", n_jobs=n_jobs
        ),
        "compare_xci": lambda n_jobs: survfair.compare_xci(first, second, n_jobs=n_jobs),
        "xauc_t": lambda n_jobs: survfair.xauc_t(time_, event, group, risk, [0.5], n_jobs=n_jobs),
        "calibration": lambda n_jobs: survfair.calibration(
            time_, event, group, predicted, 0.5, n_jobs=n_jobs
        ),
        # progress is checked after n_jobs: the call stops there, after the check of n_jobs
        "coverage_study": lambda n_jobs: survfair.simulate.coverage_study(
            design, [50], n_replications=2, n_jobs=n_jobs, progress="not a bool"
        ),
    }


def test_every_public_function_with_n_jobs_is_covered():
    import inspect

    from survfair import mitigate, plotting, simulate

    found = set()
    for module in (survfair, simulate, mitigate, plotting):
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and not inspect.isclass(value):
                if "n_jobs" in inspect.signature(value).parameters:
                    found.add(name)
    assert found == set(_library_calls())


@pytest.mark.parametrize("name", ["xci", "compare_xci", "xauc_t", "calibration", "coverage_study"])
def test_n_jobs_beyond_the_cores_is_capped_with_a_warning(name, monkeypatch):
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    call = _library_calls()[name]
    with pytest.warns(UserWarning, match=r"^n_jobs=1000000 is more than the 2 cores") as caught:
        try:
            call(10**6)
        except survfair.InvalidParameterError as error:  # coverage_study's stop after the check
            assert error.parameter == "progress"
    mine = [w for w in caught if "n_jobs=" in str(w.message)]
    assert len(mine) == 1 and mine[0].filename == __file__  # the user's line
    assert "using n_jobs=2." in str(mine[0].message)


def test_n_jobs_that_fits_is_kept_silently(monkeypatch):
    monkeypatch.setattr(parallel, "available_cores", lambda: 4)
    check = survfair._core.options.check_n_jobs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [check(v) for v in (None, -1, 1, 4, -2, -4)] == [None, -1, 1, 4, -2, -4]
    with pytest.warns(UserWarning, match=r"n_jobs=-5 \(every core but 4\) leaves none of the 4"):
        assert check(-5) == 1
    assert isinstance(check(np.int64(3)), int)


def test_a_dask_backend_keeps_a_count_of_its_workers(monkeypatch):
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    monkeypatch.setattr(parallel, "_local_backend", lambda: False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert survfair._core.options.check_n_jobs(64) == 64


@pytest.mark.parametrize(
    "value, message",
    [
        (0, r"n_jobs must not be 0 \(1 for one job, -1 for all cores\)\."),
        (True, r"n_jobs must be an integer or None, got True\."),
        (np.bool_(False), r"n_jobs must be an integer or None, got False\."),
        (2.0, r"n_jobs must be an integer or None, got 2\.0\."),
        ("2", r"n_jobs must be an integer or None, got a str\."),
        (float("nan"), r"n_jobs must be an integer or None, got nan\."),
    ],
)
@pytest.mark.parametrize("name", ["xci", "compare_xci", "xauc_t", "calibration", "coverage_study"])
def test_nonsense_n_jobs_is_refused_naming_it(name, value, message):
    with pytest.raises(survfair.InvalidParameterError, match=message) as caught:
        _library_calls()[name](value)
    assert caught.value.parameter == "n_jobs"


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    time_, event, group, risk = _cohort(16, 150, 3)
    path = tmp_path_factory.mktemp("small") / "cohort.csv"
    pd.DataFrame({"t": time_, "e": event, "grp": group, "score": risk}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "value, line",
    [
        ("0", "survfair: error: --n-jobs must not be 0 (1 for one job, -1 for all cores).\n"),
        ("-0", "survfair: error: --n-jobs must not be 0 (1 for one job, -1 for all cores).\n"),
        ("1.5", "survfair: error: argument --n-jobs: invalid int value: '1.5'\n"),
        ("two", "survfair: error: argument --n-jobs: invalid int value: 'two'\n"),
    ],
)
def test_cli_refuses_nonsense_n_jobs_in_one_line(small_csv, value, line):
    code, out, err = _run([*AUDIT, "--data", str(small_csv), "--n-jobs", value, "--ci", "none"])
    assert code == 2 and out == "" and err == line


@pytest.mark.parametrize(
    "value, line",
    [
        (
            "1000000",
            "survfair: warning: --n-jobs 1000000 is more than the 2 cores available to this "
            "process; using --n-jobs 2.\n",
        ),
        (
            "-7",
            "survfair: warning: --n-jobs -7 (every core but 6) leaves none of the 2 cores "
            "available to this process; using --n-jobs 1.\n",
        ),
    ],
)
def test_cli_caps_n_jobs_with_one_warning(small_csv, value, line, monkeypatch):
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    code, out, err = _run([*AUDIT, "--data", str(small_csv), "--n-jobs", value, "--ci", "none"])
    assert code == 0 and "xCI matrix" in out
    assert [x + "\n" for x in err.splitlines() if "n-jobs" in x] == [line]


# -- JSON of long tables, row by row ----------------------------------------------------------


def _frames():
    rng = np.random.default_rng(17)
    n = 7
    labels = np.empty(n, dtype=object)
    labels[:] = ["g|1", 'q"uote', "Ä", "=x", "tab\there", "日本", 3]
    yield (
        "mixed",
        pd.DataFrame(
            {
                "a": labels,
                "b%s": [str(v) for v in labels],
                "x": rng.normal(size=n) * 10.0 ** rng.integers(-20, 20, n),
                "nan": [np.nan, np.inf, -np.inf, 0.1, 1e16, -0.0, 5e-324],
                "count": rng.integers(-5, 10**12, n),
                "flag": rng.integers(0, 2, n).astype(bool),
                "objects": [np.int64(3), np.float64(np.nan), None, True, np.bool_(False), 2.5, "s"],
            }
        ),
    )
    yield "empty", pd.DataFrame({"a": [], "b": []})
    yield "no columns", pd.DataFrame(index=range(3))
    yield "nested", pd.DataFrame({"a": [("F", "x"), ("M", "y")], "v": [1.0, 2.0]})


@pytest.mark.parametrize("indent", [2, 4])
@pytest.mark.parametrize("name, frame", list(_frames()), ids=[n for n, _ in _frames()])
def test_json_of_long_tables_equals_json_dumps(name, frame, indent, monkeypatch):
    from survfair._core.results import json_safe
    from survfair.cli import _json

    monkeypatch.setattr(_json, "BLOCK_ROWS", 3)  # several blocks of rows
    first, second = _json.placeholder(), _json.placeholder()
    payload = [{"name": "x", "cells": first, "deeper": {"k": [1, {"rows": second}]}, "z": None}]
    expected = json.dumps(
        [
            {
                "name": "x",
                "cells": json_safe(frame.to_dict(orient="records")),
                "deeper": {"k": [1, {"rows": json_safe(frame.to_dict(orient="records"))}]},
                "z": None,
            }
        ],
        indent=indent,
    )
    assert _json.dumps(payload, {first: frame, second: frame}, indent=indent) == expected


def test_json_of_a_table_with_missing_values_of_an_extension_type():
    """pandas writes <NA> of an Int64 column as None in records: the general path does the same."""
    from survfair.cli import _json

    token = _json.placeholder()
    frame = pd.DataFrame({"n": pd.array([1, None], dtype="Int64"), "x": [0.5, 1.0]})
    expected = json.dumps({"cells": frame.to_dict(orient="records")}, indent=2)
    assert _json.dumps({"cells": token}, {token: frame}) == expected


def test_cli_json_of_many_groups_equals_the_dictionaries(many_groups_csv):
    """The CLI's JSON (tables written row by row) against the results' own to_dict()."""
    code, out, err = _run(
        [*AUDIT, "--data", str(many_groups_csv), "--method", "naive", "--format", "json"]
    )
    assert code == 0, err
    entry = json.loads(out)[0]
    frame = pd.read_csv(many_groups_csv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = survfair.xci("t", "e", "grp", "score", data=frame, method="naive")
    expected = result.to_dict()
    assert {k: entry[k] for k in expected} == json.loads(json.dumps(expected))
    found = survfair.findings(result)
    assert entry["findings"]["flagged_cells"] == json.loads(
        json.dumps(found.to_dict()["flagged_cells"])
    )
    assert len(entry["cells"]) == 300 * 300


@pytest.mark.parametrize(
    "values",
    [
        ["=SUM(A1)", "+1", "-x", "@a", "\tt", "\rr", "plain", np.nan, "=SUM(A1)", ""],
        ["a", "b", None],
        [True, np.nan, False, np.bool_(True)],
        [True, False],
        [1, 2, np.nan],
        [1, "=a", 2.5],
        [np.nan, None],
        [],
    ],
    ids=["formulas", "text", "bool-nan", "bool", "int-nan", "mixed", "missing", "empty"],
)
def test_neutralised_columns_write_as_the_value_by_value_map(values):
    from survfair.cli._io import _neutralise, neutralise_formulas

    frame = pd.DataFrame({"x": pd.Series(values, dtype=object), "n": np.arange(len(values))})
    old = frame.copy()
    old["x"] = old["x"].map(_neutralise, na_action="ignore")
    assert neutralise_formulas(frame).to_csv(index=False) == old.to_csv(index=False)
    assert frame["x"].tolist() == pd.Series(values, dtype=object).tolist()  # input untouched
