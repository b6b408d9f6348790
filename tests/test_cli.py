"""The command line: the flchain demo, a CSV written here, and one-line errors with exit code 2."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from conftest import make_data

import survfair
from survfair.cli import main


@pytest.fixture(scope="module")
def flchain_output():
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        code = main(["audit"])
    return code, buffer.getvalue()


def test_flchain_demo(flchain_output):
    code, text = flchain_output
    assert code == 0
    assert (
        "7874 people; 1350 rows dropped (creatinine missing for 1350 rows), 6524 analysed" in text
    )
    assert "Cox PH with sex" in text and "Cox PH without sex" in text
    assert text.count("(converged)") == 2
    for word in (
        "xCI matrix",
        "pair counts",
        "delta_within",
        "delta_between",
        "min_xci",
        "utility",
    ):
        assert word in text
    # issue 32: each demo model carries its model-based reference (its Cox linear predictor, Breslow
    # baseline), and the findings lead with the excess rather than the observed asymmetry
    assert text.count("excess over the model-based reference") == 2
    with_sex, without_sex = (block.split("\n- ")[2] for block in text.split("== flchain: ")[1:])
    assert with_sex.startswith("No cross-group asymmetry, observed or in excess")
    # issue 41: the demo tests the calibration its model-based reading assumes; the model without
    # sex is miscalibrated between the sexes, so its asymmetry is not put down to their risks
    assert without_sex.startswith("The largest observed asymmetry, Δbetween(F, M) = +")
    assert "calibration rejects those predictions (" in without_sex
    assert "between-group O/E ratio F/M" in without_sex
    assert "cannot be attributed to the groups' different risks" in without_sex


def test_flchain_demo_report_keeps_the_calibration_slope(flchain_output, tmp_path, capsys):
    """Without --report the demo fits no calibration slope or curve (its findings do not read
    them); with it, the report shows them, and the printed audit is the same."""
    path = tmp_path / "demo.html"
    assert main(["audit", "--report", str(path)]) == 0
    assert capsys.readouterr().out == flchain_output[1]
    html = path.read_text(encoding="utf-8")
    assert "too extreme (calibration slope below 1) for M (0.89 [0.82, 0.97])" in html


@pytest.fixture
def csv_file(tmp_path):
    time, event, codes, risk = make_data(300, 3, 0)
    frame = pd.DataFrame(
        {
            "t": time,
            "e": event.astype(int),
            "sex": np.array(["F", "M", "M"])[codes],
            "race": np.where(np.arange(300) % 2, "A", "B"),
            "score": risk,
            "score2": -risk,
        }
    )
    path = tmp_path / "cohort.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_csv_audit_table(csv_file, capsys):
    path, _ = csv_file
    code = main(
        [
            "audit",
            "--data",
            str(path),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "sex",
            "--risk",
            "score",
            "--tau",
            "20",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    # one orientation (issue 41): the pair (a, b) with a before b in the group order, signed a - b
    assert "risk = score" in out and "Largest cross-group asymmetry" in out
    assert "delta_between F M" in out and "delta_between M F" not in out


def test_csv_audit_json_intersection(csv_file, tmp_path):
    path, frame = csv_file
    out = tmp_path / "audit.json"
    code = main(
        [
            "audit",
            "--data",
            str(path),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "sex",
            "--group",
            "race",
            "--risk",
            "score",
            "--risk",
            "score2",
            "--method",
            "naive",
            "--format",
            "json",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    payload = json.loads(out.read_text())
    assert [p["name"] for p in payload] == ["risk = score", "risk = score2"]
    assert payload[0]["groups"] == ["F|A", "F|B", "M|A", "M|B"]
    assert len(payload[0]["cells"]) == 16


def test_parquet_and_csv_format(csv_file, tmp_path, capsys):
    _, frame = csv_file
    path = tmp_path / "cohort.parquet"
    frame.to_parquet(path)
    assert (
        main(
            [
                "audit",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--format",
                "csv",
                "--tau",
                "20",
            ]
        )
        == 0
    )
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    # the summaries follow the cells in the same table (kind = "summary"), so count the cells
    assert (table["kind"] == "cell").sum() == 4 and {"name", "a", "b", "xci", "comparable"} <= set(
        table.columns
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            [
                "audit",
                "--data",
                "missing.csv",
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "g",
                "--risk",
                "r",
            ],
            "does not exist",
        ),
        (["audit", "--data", "{csv}", "--time", "t"], "also give --event, --group, --risk"),
        (
            [
                "audit",
                "--data",
                "{csv}",
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "nope",
            ],
            "column 'nope' is not in data",
        ),
        (
            [
                "audit",
                "--data",
                "{csv}",
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--tau",
                "-1",
            ],
            "tau must be",
        ),
        (["audit", "--method", "cox"], "invalid choice"),
        (["audit", "--tau", "abc"], "invalid float value"),
        (["audit", "--min-events", "-1"], "--min-events must be an integer >= 0, got -1."),
        (["audit", "--min-pairs", "-5"], "--min-pairs must be an integer >= 0, got -5."),
        (["audit", "--time-unit", " "], "--time-unit must not be empty"),
        (["audit", "--adjust", "fdr"], "invalid choice"),
    ],
)
def test_bad_input_one_line_exit_2(argv, message, csv_file, capsys):
    path, _ = csv_file
    code = main([a.replace("{csv}", str(path)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("survfair: error:") and message in err


def _audit_args(path, *extra):
    return [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--risk",
        "score",
        "--tau",
        "20",
        *extra,
    ]


def test_report_html_and_markdown(csv_file, tmp_path):
    path, _ = csv_file
    html = tmp_path / "report.html"
    assert (
        main(
            _audit_args(
                path, "--risk", "score2", "--report", str(html), "--output", str(tmp_path / "o.txt")
            )
        )
        == 0
    )
    text = html.read_text()
    assert text.startswith("<!DOCTYPE html>") or "<html" in text[:200]
    assert "data:image/png;base64," in text and "score2" in text
    assert "http://" not in text and "https://" not in text and "<script" not in text
    md = tmp_path / "report.md"
    assert main(_audit_args(path, "--report", str(md), "--output", str(tmp_path / "o.txt"))) == 0
    assert "|" in md.read_text()


def test_bootstrap_intervals_are_seeded(csv_file, tmp_path):
    path, _ = csv_file
    outs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        assert (
            main(
                _audit_args(
                    path,
                    "--ci",
                    "bootstrap",
                    "--n-resamples",
                    "60",
                    "--seed",
                    "3",
                    "--format",
                    "json",
                    "--output",
                    str(out),
                )
            )
            == 0
        )
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1]
    cells = outs[0][0]["cells"]
    assert all(c["ci_low"] <= c["xci"] <= c["ci_high"] for c in cells)
    assert outs[0][0]["ci_method"] == "bootstrap"


def test_no_intervals_option(csv_file, capsys):
    path, _ = csv_file
    assert main(_audit_args(path, "--ci", "none")) == 0
    assert "% interval, low" not in capsys.readouterr().out


def test_binary_audit_and_horizon(csv_file, tmp_path, capsys):
    path, frame = csv_file
    frame = frame.assign(dead=(frame["t"] < 10).astype(int))
    binary = tmp_path / "binary.csv"
    frame.to_csv(binary, index=False)
    assert (
        main(
            [
                "audit",
                "--data",
                str(binary),
                "--outcome",
                "dead",
                "--group",
                "sex",
                "--risk",
                "score",
            ]
        )
        == 0
    )
    assert "xAUC" in capsys.readouterr().out
    assert main(_audit_args(path, "--horizon", "10")) == 0
    out = capsys.readouterr().out
    assert "cumulative/dynamic AUC(t)" in out and "t = 10:" in out
    assert "95% analytic intervals" in out and "interval, low:" in out and "interval, high:" in out
    assert main(_audit_args(path, "--horizon", "10", "--ci", "none")) == 0
    out = capsys.readouterr().out
    assert "t = 10:" in out and "interval, low:" not in out


def test_simulate_and_mitigate_subcommands(csv_file, tmp_path, capsys):
    path, _ = csv_file
    out = tmp_path / "adjusted.csv"
    code = main(
        [
            "mitigate",
            "--data",
            str(path),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "sex",
            "--risk",
            "score",
            "--tau",
            "20",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    adjusted = pd.read_csv(out)
    assert len(adjusted) == 300 and "risk_adjusted" in adjusted.columns
    assert (
        main(
            [
                "simulate",
                "--quick",
                "--study",
                "fig1",
                "--output-dir",
                str(tmp_path / "sim"),
                "--no-progress",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "mitigate",
                "--data",
                str(tmp_path / "nope.csv"),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--output",
                str(out),
            ]
        )
        == 2
    )


# -- one package, one error idiom (issue 13) -------------------------------------------------------


def _one_error_line(err: str, starts: str = "survfair: error: ") -> str:
    """The single line of stderr, checked: one line, the prefix, no traceback, no Python names."""
    assert err.count("\n") == 1 and err.startswith(starts), err
    assert "Traceback" not in err and 'File "' not in err and "models[" not in err, err
    return err.strip()


def test_one_error_type_reader_and_options(csv_file, tmp_path, capsys):
    from survfair.cli import CLIError, build_parser
    from survfair.cli._io import read_table

    path, _ = csv_file
    assert CLIError("x").exit_code == 2 and CLIError("x", exit_code=1).exit_code == 1
    # one reader: only the columns asked for, CSV and Parquet alike
    parquet = tmp_path / "cohort.parquet"
    pd.read_csv(path).to_parquet(parquet)
    for file in (path, parquet):
        assert list(read_table(str(file), ["t", "sex"]).columns) == ["t", "sex"]
    # one set of data options: the same help for audit and mitigate
    subcommands = build_parser()._subparsers._group_actions[0].choices
    helps = {
        name: {a.dest: a.help for a in parser._actions} for name, parser in subcommands.items()
    }
    for dest in ("data", "time", "event", "group", "method", "tau", "censoring"):
        assert helps["audit"][dest] and helps["mitigate"][dest], dest
    for dest in ("time", "event", "group", "method"):
        assert helps["audit"][dest] == helps["mitigate"][dest], dest
    # the audit also takes --censoring cox (issue 42): the same words, then the Cox model's
    assert helps["audit"]["censoring"].startswith(helps["mitigate"]["censoring"] + "; or cox:")
    # one error idiom for every subcommand (simulate used to print "survfair simulate: error:")
    missing = str(tmp_path / "nope.csv")
    for argv in (
        ["audit", "--data", missing, "--time", "t", "--event", "e", "--group", "g", "--risk", "r"],
        [
            "mitigate",
            "--data",
            missing,
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "g",
            "--risk",
            "r",
            "--output",
            str(tmp_path / "o.csv"),
        ],
    ):
        assert main(argv) == 2
        assert (
            _one_error_line(capsys.readouterr().err)
            == f"survfair: error: --data: file {missing!r} does not exist."
        )
    assert main(["simulate", "--quick", "--n", "2"]) == 2
    assert _one_error_line(capsys.readouterr().err).startswith("survfair: error: --n must be >= 4")


@pytest.fixture
def numeric_groups(tmp_path):
    time, event, codes, risk = make_data(240, 3, 1)
    frame = pd.DataFrame({"t": time, "e": event.astype(int), "g": codes + 1, "score": risk})
    path = tmp_path / "numeric.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_groups_subset_with_numeric_labels(numeric_groups, tmp_path, capsys):
    path, frame = numeric_groups
    base = [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "g",
        "--risk",
        "score",
        "--tau",
        "20",
    ]
    n_other = int((frame["g"] == 2).sum())
    assert main([*base, "--groups", "3", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # the library's own exclusion warning is replaced by the output line
    assert "groups = [3, 1]" in captured.out
    assert f"{n_other} rows of other groups excluded (--groups 3 1)." in captured.out
    out = tmp_path / "a.json"
    assert main([*base, "--groups", "3", "1", "--format", "json", "--output", str(out)]) == 0
    payload = json.loads(out.read_text())[0]
    assert payload["n_excluded"] == n_other and payload["groups"] == ["3", "1"]
    assert any("rows of other groups excluded" in note for note in payload["notes"])
    assert main([*base, "--groups", "1", "7"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line == (
        "survfair: error: --groups '7' does not occur in the group column 'g' "
        "(labels: ['1', '2', '3'])."
    )


def test_version_help_defaults_and_examples(capsys):
    import argparse

    import survfair
    from survfair.cli import build_parser

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"survfair {survfair.__version__}\n"
    parser = build_parser()
    assert "exit codes:" in parser.format_help() and "2    bad input" in parser.format_help()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        formatter = sub._get_formatter()
        assert "examples:" in sub.format_help(), name
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            text = formatter._expand_help(action)
            assert "(default" in text, (name, action.option_strings, text)
    audit = parser._subparsers._group_actions[0].choices["audit"]
    texts = {a.dest: audit._get_formatter()._expand_help(a) for a in audit._actions}
    assert texts["method"].endswith("(default: ipcw)") and texts["format"].endswith(
        "(default: table)"
    )
    assert texts["censoring"].endswith("(default: group)") and texts["confidence_level"].endswith(
        "(default: 0.95)"
    )
    assert texts["bootstrap_method"].endswith("(default: bca)")


def test_warnings_print_as_one_line(csv_file, tmp_path, monkeypatch, capsys):
    import warnings

    from survfair.cli import _audit

    path, frame = csv_file
    silent = tmp_path / "silent.csv"
    frame.assign(e=np.where(frame["sex"] == "F", 0, frame["e"])).to_csv(
        silent, index=False
    )  # F: no event
    before = warnings.showwarning
    assert main(_audit_args(silent, "--ci", "none")) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("survfair: warning: xCI is undefined (NaN)"), err
    assert "Traceback" not in err and ".py" not in err and "warn(" not in err
    assert warnings.showwarning is before  # restored after main

    real = _audit._compare

    def long_warning(*args, **kwargs):
        warnings.warn("first line " + "x" * 1000 + "\nsecond line", UserWarning)
        return real(*args, **kwargs)

    monkeypatch.setattr(_audit, "_compare", long_warning)
    assert main(_audit_args(path, "--ci", "none")) == 0
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and err.startswith("survfair: warning: first line xxx")
        and err.endswith(" ...\n")
    )
    assert "second line" not in err and len(err) <= len("survfair: warning: ") + 301


def test_errors_name_options_and_columns(csv_file, tmp_path, capsys):
    path, frame = csv_file
    bad = tmp_path / "bad.csv"
    frame.assign(score=frame["score"].where(frame.index != 5)).to_csv(bad, index=False)
    cases = [
        (
            _audit_args(path)[:7] + ["--group", "grp", "--risk", "score"],
            "--group: column 'grp' is not in data file",
        ),
        (_audit_args(bad), "--risk 'score': risk contains NaN or infinite values at rows [5]"),
        (
            [
                "audit",
                "--data",
                str(path),
                "--outcome",
                "t",
                "--group",
                "sex",
                "--risk",
                "score",
                "--positive",
                "x",
            ],
            "--positive 'x' does not occur in the outcome column 't'",
        ),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line
        assert "data=" not in line and "XCIResult" not in line and "compare" not in line


def test_exit_codes_tracebacks_and_memory(csv_file, tmp_path, monkeypatch, capsys):
    from survfair.cli import _audit

    path, _ = csv_file

    def bug(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(_audit, "_compare", bug)
    assert main(_audit_args(path)) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert line == (
        "survfair: error: unexpected internal error: division by zero; "
        "this is a bug in survfair; please report it with --debug output"
    )
    assert main(["--debug", *_audit_args(path)]) == 1
    err = capsys.readouterr().err
    assert (
        "Traceback" in err and "ZeroDivisionError" in err and err.strip().endswith("--debug output")
    )

    def out_of_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(_audit, "_compare", out_of_memory)
    assert main(_audit_args(path)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert (
        "not enough memory" in line
        and "--groups" in line
        and "--ci bootstrap" in line
        and "--ci none" in line
    )

    # the library itself refuses before allocating (here: as if only 1 MB were left), in Python
    # terms; the command line says it in terms of its options
    import survfair._core.memory

    monkeypatch.undo()
    monkeypatch.setattr(survfair._core.memory, "available_memory", lambda: 100_000)
    many = tmp_path / "many.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame(
        {
            "t": rng.exponential(size=400),
            "e": rng.random(400) < 0.8,
            "g": np.arange(400) % 20,
            "r": rng.normal(size=400),
        }
    ).to_csv(many, index=False)
    assert (
        main(
            [
                "audit",
                "--data",
                str(many),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "g",
                "--risk",
                "r",
            ]
        )
        == 2
    )
    line = _one_error_line(capsys.readouterr().err)
    # (checked before the passes: 4G contributions, the 2G compact influence rows written over half
    # of them, plus the pooled C's: issue 17)
    assert line == (
        "survfair: error: analytic intervals: the influence rows and contributions of 400 cells "
        "for 400 rows (81 numbers a row) would need 253.1 KiB of memory, more than is available "
        "(97.7 KiB); audit fewer groups (--groups), or use --ci bootstrap, or use --ci none"
    )
    assert main(["audit", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in _one_error_line(capsys.readouterr().err)


def test_outputs_checked_before_computing(csv_file, tmp_path, monkeypatch, capsys):
    from survfair.cli import _audit

    path, _ = csv_file
    original = path.read_bytes()

    def never(*args, **kwargs):
        raise AssertionError("computed before the outputs were checked")

    monkeypatch.setattr(_audit, "_compare", never)
    out, html = tmp_path / "out.txt", tmp_path / "r.html"
    cases = [
        (
            ["--output", str(out), "--report", str(tmp_path / "r.txt")],
            "--report: unsupported file type '.txt'",
        ),
        (["--output", str(path)], "--output: " + repr(str(path)) + " is the --data file"),
        (
            ["--output", f"{tmp_path}/./cohort.csv"],
            "is the --data file; refusing to overwrite the input",
        ),
        (
            ["--output", str(html), "--report", str(html)],
            "--output and --report name the same file",
        ),
        (
            ["--output", str(tmp_path / "missing" / "o.txt")],
            f"--output: directory {str(tmp_path / 'missing')!r} does not exist",
        ),
        (
            ["--report", str(tmp_path / "missing" / "r.html")],
            f"--report: directory {str(tmp_path / 'missing')!r} does not exist",
        ),
    ]
    for extra, message in cases:
        assert main(_audit_args(path, *extra)) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line
    assert not out.exists() and not html.exists() and not (tmp_path / "missing").exists()
    assert path.read_bytes() == original
    assert (
        main(
            [
                "mitigate",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--output",
                str(tmp_path / "missing" / "o.csv"),
            ]
        )
        == 2
    )
    assert "--output: directory" in _one_error_line(capsys.readouterr().err)


def test_binary_report_is_written(csv_file, tmp_path, capsys):
    path, frame = csv_file
    binary = tmp_path / "binary.csv"
    frame.assign(dead=(frame["t"] < 10).astype(int)).to_csv(binary, index=False)
    report = tmp_path / "binary.html"
    assert (
        main(
            [
                "audit",
                "--data",
                str(binary),
                "--outcome",
                "dead",
                "--group",
                "sex",
                "--risk",
                "score",
                "--report",
                str(report),
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "xAUC" in captured.out and captured.err == ""
    text = report.read_text()
    assert "<html" in text[:300] and "xAUC" in text and "dead" in text


def test_csv_carries_the_summaries(csv_file, capsys):
    import io

    import survfair

    path, frame = csv_file
    assert main(_audit_args(path, "--format", "csv")) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    table = pd.read_csv(io.StringIO(captured.out), keep_default_na=False, na_values=[""])
    assert list(table.columns[:10]) == [
        "name",
        "kind",
        "statistic",
        "a",
        "b",
        "value",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
    ]
    assert set(table["kind"]) == {"cell", "summary"}
    summaries = table[table["kind"] == "summary"].set_index("statistic")
    assert {
        "delta_within",
        "delta_between",
        "min_xci",
        "overall_c",
        "utility",
        "n_samples",
        "n_excluded",
    } <= set(summaries.index)
    result = survfair.xci("t", "e", "sex", "score", data=pd.read_csv(path), tau=20, ci="analytic")
    expected = survfair.delta_between(result, "F", "M")
    row = summaries.loc["delta_between"]
    assert (row["a"], row["b"]) == ("F", "M")
    np.testing.assert_allclose(
        row[["value", "se", "ci_low", "ci_high", "p_value"]].astype(float),
        [expected.value, expected.se, *expected.confidence_interval, expected.p_value],
    )
    np.testing.assert_allclose(
        summaries.loc["overall_c", "value"], survfair.overall_c(result).value
    )
    cells = table[table["kind"] == "cell"]
    assert (cells["value"] == cells["xci"]).all()
    assert (cells["comparable"] == result.counts["comparable"].to_numpy()).all()


def test_mitigate_in_sample_is_said(csv_file, tmp_path, capsys):
    path, frame = csv_file
    argv = [
        "mitigate",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--risk",
        "score",
        "--tau",
        "20",
        "--output",
        str(tmp_path / "adjusted.csv"),
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(
        "survfair: warning: no --fit-column: the adjustment is fitted and evaluated on the "
        "same rows, so the before/after numbers are in-sample"
    )
    lines = captured.out.splitlines()
    assert any(line.startswith("before/after, in-sample") for line in lines)
    rows = [line for line in lines if line.lstrip().startswith("fit")]
    assert rows and all("fit (in-sample)" in line for line in rows)
    held_out = tmp_path / "held.csv"
    frame.assign(train=np.arange(len(frame)) % 3 != 0).to_csv(held_out, index=False)
    argv[2] = str(held_out)
    assert main([*argv, "--fit-column", "train"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "evaluation (held out)" in captured.out


def test_mitigate_reports_the_calibration_of_the_adjusted_risks(tmp_path, capsys):
    """Issue 15, item 9: --predicted COL --horizon T prints each group's calibration of the
    adjusted predicted risks (before, after) on the held-out rows and writes it to
    --report-table."""
    rng = np.random.default_rng(0)
    n = 600
    group = np.where(rng.random(n) < 0.5, "a", "b")
    x = 0.6 * rng.normal(size=n)
    true_time, censor = rng.exponential(5 * np.exp(-x)), rng.uniform(0, 10, n)
    lp = x + 0.5 * (group == "b")
    frame = pd.DataFrame(
        {
            "t": np.minimum(true_time, censor),
            "e": (true_time <= censor).astype(int),
            "g": group,
            "lp": lp,
            "r3": 1 - np.exp(-3 * np.exp(lp) / 5),
            "train": np.arange(n) % 3 != 0,
        }
    )
    path = tmp_path / "cohort.csv"
    frame.to_csv(path, index=False)
    report = tmp_path / "before_after.csv"
    argv = [
        "mitigate",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "g",
        "--risk",
        "lp",
        "--tau",
        "8",
        "--fit-column",
        "train",
        "--output",
        str(tmp_path / "adjusted.csv"),
    ]
    assert main([*argv, "--predicted", "r3", "--horizon", "3", "--report-table", str(report)]) == 0
    out = capsys.readouterr().out
    assert (
        "calibration of the predicted risks per group, before and after the adjustment "
        "(evaluation rows, held out; --risk-scale log_hazard" in out
    )
    shift = survfair.mitigate.group_shift(
        "t", "e", "g", "lp", data=frame, tau=8, fit_on="train", predicted="r3", times=3.0
    )
    written = pd.read_csv(report)
    calibration = written[written["time"].notna()]
    expected = shift.to_frame().dropna(subset=["time"])
    np.testing.assert_allclose(calibration["after"], expected["after"], rtol=1e-12)
    assert set(calibration["metric"]) >= {"oe_ratio", "slope", "ici", "brier"}
    before_after = out.split("calibration of the predicted risks")[0]
    assert "oe_ratio" not in before_after  # the ranking table stays the ranking table
    for extra, message in [
        (["--predicted", "r3"], "give one --predicted column per --horizon"),
        (
            [
                "--predicted",
                "r3",
                "--horizon",
                "3",
                "--predicted",
                "r3",
                "--horizon",
                "5",
                "--risk-scale",
                "probability",
            ],
            "--risk-scale probability takes one --horizon",
        ),
        (
            ["--predicted", "lp", "--horizon", "3"],
            "--predicted 'lp': predicted column 'lp': predicted risks must be",
        ),
        (["--predicted", "nope", "--horizon", "3"], "nope"),
    ]:
        assert main([*argv, *extra]) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line


def test_csv_output_neutralises_formulas(tmp_path, capsys):
    import io

    time, event, codes, risk = make_data(200, 4, 2)
    labels = np.array(["=1+1", "+cmd", "-x", "@SUM(A1)"])[codes]
    frame = pd.DataFrame({"t": time, "e": event.astype(int), "grp": labels, "score": risk - 6.0})
    path = tmp_path / "evil.csv"
    frame.to_csv(path, index=False)
    assert (
        main(
            [
                "audit",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "grp",
                "--risk",
                "score",
                "--method",
                "naive",
                "--format",
                "csv",
                "--ci",
                "none",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    table = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    labels_written = set(table["a"].dropna()) - {""}
    assert labels_written == {"'=1+1", "'+cmd", "'-x", "'@SUM(A1)"}
    assert all(
        not line.split(",")[3].startswith(("=", "+", "-", "@")) for line in text.splitlines()[1:]
    )
    deltas = table.loc[table["statistic"] == "delta_between", "value"]
    assert deltas.dtype.kind == "f" and (deltas < 0).any()  # negative numbers stay numbers
    report = tmp_path / "before_after.csv"
    assert (
        main(
            [
                "mitigate",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "grp",
                "--risk",
                "score",
                "--method",
                "naive",
                "--output",
                str(tmp_path / "adj.csv"),
                "--report-table",
                str(report),
            ]
        )
        == 0
    )
    written = pd.read_csv(report, keep_default_na=False)
    assert set(written["a"]) - {""} <= {"'=1+1", "'+cmd", "'-x", "'@SUM(A1)"}
    # the adjusted file is the user's own rows, written back unchanged
    assert set(pd.read_csv(tmp_path / "adj.csv")["grp"]) == {"=1+1", "+cmd", "-x", "@SUM(A1)"}


def test_python_dash_m_survfair():
    import subprocess
    import sys

    import survfair

    done = subprocess.run(
        [sys.executable, "-m", "survfair", "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout == f"survfair {survfair.__version__}\n"


@pytest.mark.parametrize(
    "arguments",
    [["--version"], ["--help"], [], ["audit", "--help"]],
    ids=["version", "help", "nothing", "audit-help"],
)
def test_version_and_help_import_neither_pandas_nor_scipy(arguments):
    """Issue 32.6: ``survfair --version`` took 3.4-3.7 s of CPU importing pandas, scipy and numba
    before reading its arguments. Timing-free: the modules loaded are checked in a fresh process."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom survfair.cli import main\ncode = main(sys.argv[1:])\n"
        "heavy = sorted(m for m in ('pandas', 'scipy', 'numba', 'sklearn', 'matplotlib') "
        "if m in sys.modules)\n"
        "print('HEAVY', heavy, file=sys.stderr)\nsys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *arguments], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr
    assert ("survfair " in done.stdout) if arguments == ["--version"] else ("audit" in done.stdout)
    if arguments == [
        "audit",
        "--help",
    ]:  # the audit's parser lives apart from the audit (_audit_options)
        assert (
            "--model-based-lp" in done.stdout
            and "--predicted" in done.stdout
            and "--outcome" in done.stdout
        )


def test_the_help_of_the_subcommands_is_the_same_without_their_modules():
    """The top-level help lists every subcommand with the help line its module registers."""
    from survfair.cli import build_parser
    from survfair.cli._main import COMMANDS

    full = build_parser()
    light = build_parser([])
    assert full.format_help() == light.format_help()
    registered = {a.dest: a.help for a in full._subparsers._group_actions[0]._choices_actions}
    assert registered == COMMANDS


def test_audit_never_forms_the_cell_covariance(csv_file, monkeypatch, capsys):
    """Before: the audit built the G^2 x G^2 covariance (466 GiB for 500 groups of 2) just to
    print standard errors; now cells and Δs come from the influence rows."""
    from survfair._core.influence import Influence

    def refuse(self):
        raise AssertionError("the audit formed the G^2 x G^2 covariance")

    monkeypatch.setattr(Influence, "covariance", property(refuse))
    path, _ = csv_file
    assert (
        main(
            [
                "audit",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--group",
                "race",
                "--risk",
                "score",
                "--tau",
                "20",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    assert "delta_between" in capsys.readouterr().out


def test_outputs_are_written_all_or_none(csv_file, tmp_path, monkeypatch, capsys):
    """Review finding: --report was written and then --output failed (or the reverse), exit 2
    with one of the two files on disk."""
    from survfair._present import report as report_module

    path, _ = csv_file
    out, report = tmp_path / "out.json", tmp_path / "report.html"

    def broken_report(*args, **kwargs):
        raise OSError(28, "No space left on device", str(report))

    monkeypatch.setattr(report_module, "write_report", broken_report)
    assert (
        main(_audit_args(path, "--format", "json", "--output", str(out), "--report", str(report)))
        == 2
    )
    assert "No space left on device" in _one_error_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "cohort.csv"
    ]  # no output, no temporary file
    monkeypatch.undo()
    assert (
        main(_audit_args(path, "--format", "json", "--output", str(out), "--report", str(report)))
        == 0
    )
    assert json.loads(out.read_text()) and report.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cohort.csv", "out.json", "report.html"]


def test_abbreviated_options_are_refused(tmp_path, capsys):
    """Review finding: `simulate --output x.csv` was taken as --output-dir and created x.csv/."""
    assert main(["simulate", "--quick", "--output", str(tmp_path / "x.csv")]) == 2
    assert "unrecognized arguments: --output" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize(
    "extra, expected",
    [
        (
            ["--confidence-level", "1.5"],
            "survfair: error: --confidence-level must be a number in (0, 1), got 1.5.",
        ),
        (
            ["--ci", "bootstrap", "--n-resamples", "0"],
            "survfair: error: --n-resamples must be an integer >= 2, got 0.",
        ),
        (["--tau", "-3"], "survfair: error: --tau must be a finite number > 0 or None, got -3.0."),
    ],
)
def test_setting_errors_name_the_option(csv_file, capsys, extra, expected):
    """Review finding: messages said confidence_level, n_resamples... (the library's argument
    names)."""
    path, _ = csv_file
    assert (
        main(
            [
                "audit",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                *extra,
            ]
        )
        == 2
    )
    assert _one_error_line(capsys.readouterr().err) == expected


def test_binary_groups_keep_the_given_order(csv_file, tmp_path, capsys):
    """Review finding: --groups M F gave the binary matrix in the order F, M."""
    path, frame = csv_file
    binary = tmp_path / "binary.csv"
    frame.assign(dead=(frame["t"] < 10).astype(int)).to_csv(binary, index=False)
    assert (
        main(
            [
                "audit",
                "--data",
                str(binary),
                "--outcome",
                "dead",
                "--group",
                "race",
                "--risk",
                "score",
                "--groups",
                "B",
                "A",
                "--format",
                "json",
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["groups"] == ["B", "A"]


def test_table_output_shows_the_smallest_censoring_survival(csv_file, capsys):
    """Issue 19: the JSON output had min_censoring_survival, the table did not."""
    path, _ = csv_file
    assert main(_audit_args(path, "--ci", "none")) == 0
    assert "smallest censoring survival K_g used as a weight: F: " in capsys.readouterr().out


def test_findings_open_every_output(csv_file, tmp_path, capsys):
    import io

    import survfair

    path, _ = csv_file
    assert main(_audit_args(path, "--adjust", "bh", "--min-pairs", "5000")) == 0
    text = capsys.readouterr().out
    block = text.split("findings:\n", 1)[1]
    assert text.startswith("== risk = score ==\nfindings:\n- Pooled concordance (C): ")
    assert "Largest cross-group asymmetry, " in block.split("\n\n")[0]
    assert "BH-adjusted" in text and "cells resting on little data:" in text
    assert "joint Wald tests" in text and "no cross-group asymmetry (every Δbetween = 0)" in text
    out = tmp_path / "audit.json"
    assert main(_audit_args(path, "--format", "json", "--output", str(out))) == 0
    found = json.loads(out.read_text())[0]["findings"]
    result = survfair.xci("t", "e", "sex", "score", data=pd.read_csv(path), tau=20)
    assert found["sentences"] == list(survfair.findings(result).sentences)
    assert main(_audit_args(path, "--format", "csv", "--min-events", "1000")) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False, na_values=[""])
    cells = table[table["kind"] == "cell"]
    assert cells["flag"].str.contains(r"events in [FM] \(< 1000\)").all()
    between = table[(table["kind"] == "summary") & (table["statistic"] == "delta_between")]
    assert (between["p_adjusted"] == between["p_value"]).all()  # one pair: nothing to adjust


@pytest.fixture
def calibration_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 500
    x = rng.normal(size=n)
    true_time = 6 * rng.weibull(1.5, n) * np.exp(-0.5 * x)
    censor = rng.uniform(0, 15, n)
    sex = np.where(rng.random(n) < 0.5, "F", "M")
    risk5 = 1 - np.exp(-((5 / (6 * np.exp(-0.5 * x))) ** 1.5))
    frame = pd.DataFrame(
        {
            "t": np.minimum(true_time, censor),
            "e": (true_time <= censor).astype(int),
            "sex": sex,
            "lp": x,
            "risk5": np.where(sex == "M", 0.6 * risk5, risk5),
        }
    )
    path = tmp_path / "calibration.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _calibration_args(path, *extra):
    return [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--risk",
        "lp",
        "--tau",
        "10",
        "--horizon",
        "5",
        "--predicted",
        "risk5",
        *extra,
    ]


def test_calibration_in_every_output(calibration_csv, tmp_path, capsys):
    path, _ = calibration_csv
    assert main(_calibration_args(path, "--time-unit", "years")) == 0
    out = capsys.readouterr().out
    assert "== calibration of predicted risks ==" in out
    assert "At t = 5 years, the model under-predicts risk for M" in out
    assert main(_calibration_args(path, "--format", "json")) == 0
    payload = json.loads(capsys.readouterr().out)
    entry = payload[-1]
    assert entry["name"] == "calibration of predicted risks" and entry["predicted"] == ["risk5"]
    assert {row["statistic"] for row in entry["statistics"]} >= {
        "oe_ratio",
        "slope",
        "ici",
        "brier",
    }
    assert entry["findings"]["sentences"]
    assert main(_calibration_args(path, "--format", "csv")) == 0
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    rows = table[table["kind"] == "calibration"]
    assert set(rows["statistic"]) >= {"oe_ratio", "slope", "intercept", "ici", "brier"}
    assert (table["kind"] == "calibration_contrast").any()
    report = tmp_path / "r.html"
    assert (
        main(_calibration_args(path, "--report", str(report), "--output", str(tmp_path / "o.txt")))
        == 0
    )
    text = report.read_text()
    assert "Findings: calibration" in text and "Calibration at t = 5" in text
    assert "Calibration differences between groups" in text


def test_calibration_errors_are_one_line(calibration_csv, tmp_path, capsys):
    path, frame = calibration_csv
    bad = tmp_path / "bad.csv"
    frame.assign(risk5=frame["risk5"].where(frame.index != 7, 1.5)).to_csv(bad, index=False)
    cases = [
        (
            _calibration_args(path)[:-4] + ["--predicted", "risk5"],
            "one --predicted column per --horizon",
        ),
        (_calibration_args(path)[:-1] + ["nope"], "nope"),
        (_calibration_args(bad), "values outside at rows [7]"),
        (_calibration_args(path)[:-3] + ["500", "--predicted", "risk5"], "within the follow-up"),
        (["audit", "--predicted", "risk5"], "--predicted needs --data"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line


def test_simulate_design_file(tmp_path, capsys):
    assert main(["simulate", "--design-template"]) == 0
    template = capsys.readouterr().out
    design = tmp_path / "study.toml"
    design.write_text(template)
    out = tmp_path / "sim"
    assert (
        main(
            [
                "simulate",
                "--design",
                str(design),
                "--quick",
                "--no-progress",
                "--output-dir",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "censored fraction per group: F: 0.3" in text and "delta_between" in text
    table = pd.read_csv(out / "study.csv")
    assert set(table["estimator"]) == {"naive", "ipcw_group"} and (table["n_valid"] > 0).all()
    assert (out / "coverage.png").stat().st_size > 0 and (out / "power.png").stat().st_size > 0
    cases = [
        (template.replace('model = "ph"', 'model = "cox"'), 'model must be "ph" or "aft"'),
        (template.replace("beta = 1.0", "beta = 1.0\nbogus = 2"), "unknown keys in [design]"),
        (template.replace("seed = 1", "seed = 1\nreps = 3"), "unknown keys in [study]"),
        (
            template.replace("F = 0.3, M = 0.5", "F = 0.1, M = 0.5"),
            "administrative end alone censors",
        ),
        ("[design\n", "is not valid TOML"),
        (
            template.replace(
                'estimators = ["naive", "ipcw_group"]', 'estimators = ["naive", "best"]'
            ),
            "estimators must be one of",
        ),
    ]
    for content, message in cases:
        design.write_text(content)
        assert main(["simulate", "--design", str(design), "--quick", "--no-progress"]) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line
    assert main(["simulate", "--design", str(tmp_path / "missing.toml")]) == 2
    assert "does not exist" in _one_error_line(capsys.readouterr().err)


def test_cluster_option(csv_file, tmp_path, capsys):
    path, frame = csv_file
    clustered = tmp_path / "clustered.csv"
    frame.assign(site=np.arange(len(frame)) % 30).to_csv(clustered, index=False)
    assert (
        main(_audit_args(clustered, "--cluster", "site", "--horizon", "10", "--format", "json"))
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload[0]["n_clusters"] == 30
    assert main(_audit_args(clustered, "--cluster", "site")) == 0
    assert "30 clusters (cluster-robust intervals)" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    frame.assign(site=np.where(np.arange(len(frame)) == 3, np.nan, 1.0)).to_csv(bad, index=False)
    for argv, message in [
        (
            _audit_args(bad, "--cluster", "site"),
            "--cluster 'site': cluster contains missing labels at rows [3]",
        ),
        (
            _audit_args(clustered, "--cluster", "nope"),
            "--cluster: column 'nope' is not in data file",
        ),
        (
            [
                "audit",
                "--data",
                str(clustered),
                "--outcome",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--cluster",
                "site",
            ],
            "--cluster needs a survival audit",
        ),
    ]:
        assert main(argv) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line


def test_entry_and_weights_options(csv_file, tmp_path, capsys):
    path, frame = csv_file
    rng = np.random.default_rng(0)
    extended = tmp_path / "epi.csv"
    frame.assign(
        start=frame["t"] * rng.uniform(0, 0.5, len(frame)),
        w=rng.choice([0.5, 1.0, 2.0], len(frame)),
        bad=np.where(np.arange(len(frame)) == 3, -1.0, 1.0),
        zero=0.0,
    ).to_csv(extended, index=False)
    assert (
        main(
            _audit_args(
                extended,
                "--entry",
                "start",
                "--weights",
                "w",
                "--horizon",
                "10",
                "--format",
                "json",
            )
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    expected = survfair.xci(
        "t", "e", "sex", "score", data=pd.read_csv(extended), tau=20, entry="start", weights="w"
    )
    assert payload[0]["delayed_entry"] and payload[0]["weighted"]
    assert payload[0]["overall"] == pytest.approx(expected.overall, rel=1e-12)
    assert main(_audit_args(extended, "--entry", "start", "--weights", "w")) == 0
    assert "; delayed entry; case weights" in capsys.readouterr().out
    for argv, message in [
        (_audit_args(extended, "--entry", "t"), "--entry 't': entry must be before time"),
        (
            _audit_args(extended, "--weights", "bad"),
            "--weights 'bad': weights must be >= 0; negative values at rows [3]",
        ),
        (
            _audit_args(extended, "--weights", "zero"),
            "--weights 'zero': weights are all 0 (rows [0, 1, 2,",
        ),
        (
            [
                "audit",
                "--data",
                str(extended),
                "--outcome",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--weights",
                "w",
            ],
            "--weights needs a survival audit",
        ),
        (["audit", "--entry", "start", "--weights", "w"], "--entry, --weights need --data"),
    ]:
        assert main(argv) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line


@pytest.fixture
def competing_csv(csv_file, tmp_path):
    """The cohort CSV with a ``status`` column of cause codes: each event is cause 1 or 2."""
    path, frame = csv_file
    rng = np.random.default_rng(1)
    extended = tmp_path / "competing.csv"
    status = np.where(frame["e"] == 1, rng.choice([1, 2], len(frame)), 0)
    frame.assign(status=status).to_csv(extended, index=False)
    return extended


def test_cause_option_audits_competing_risks(competing_csv, capsys):
    extended = competing_csv
    args = [
        "audit",
        "--data",
        str(extended),
        "--time",
        "t",
        "--event",
        "status",
        "--group",
        "sex",
        "--risk",
        "score",
        "--tau",
        "20",
        "--cause",
        "1",
    ]
    assert main([*args, "--horizon", "10", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    expected = survfair.xci(
        "t", "status", "sex", "score", data=pd.read_csv(extended), tau=20, cause=1
    )
    assert payload[0]["cause"] == 1
    assert payload[0]["overall"] == pytest.approx(expected.overall, rel=1e-12)
    assert main(args) == 0
    assert "competing risks: cause 1" in capsys.readouterr().out
    for argv, message in [
        # named like every row error: the option and column first, the option as typed (--cause 3)
        (
            args[:-2] + ["--cause", "3"],
            "--event 'status': event has no row of --cause 3 (causes present: [1, 2])",
        ),
        (
            args[:-2] + ["--cause", "0"],
            "--cause must be >= 1 (0 is the code of a censored row), got 0",
        ),
        ([*args[:11], "--tau", "20"], "event must be boolean or 0/1"),
        (["audit", "--cause", "1"], "--cause needs --data"),
        (
            [*args, "--horizon", "10", "--predicted", "score"],
            "predicted risks must be event probabilities in [0, 1]",
        ),
    ]:
        assert main(argv) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert message in line, line


def test_controls_option_and_the_auc_t_header_follow_cause(
    csv_file, competing_csv, tmp_path, capsys
):
    """Issue 16 audit: under --cause the AUC(t) header said cases had "an event by t" and controls
    were "event-free after t", though the cases are cause-k events only and the default controls
    include competing events. The header is now generated from the result's settings, and
    --controls {all,event_free} is xauc_t(controls=)."""
    path, extended = csv_file[0], competing_csv
    args = [
        "audit",
        "--data",
        str(extended),
        "--time",
        "t",
        "--event",
        "status",
        "--group",
        "sex",
        "--risk",
        "score",
        "--tau",
        "20",
        "--cause",
        "1",
        "--horizon",
        "10",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert (
        "(an event of cause 1 by t) > risk of a control of b (event-free after t or a competing "
        "event (cause other than 1) by t)"
    ) in out
    data, values = pd.read_csv(extended), {}
    for controls in ("all", "event_free"):
        assert main([*args, "--controls", controls, "--format", "json"]) == 0
        values[controls] = pd.DataFrame(json.loads(capsys.readouterr().out)[0]["horizons"])[
            "xauc"
        ].to_numpy()
        expected = survfair.xauc_t(
            "t", "status", "sex", "score", [10], data=data, cause=1, controls=controls
        )
        np.testing.assert_allclose(
            values[controls], expected.to_frame()["xauc"], rtol=1e-9
        )  # JSON: 10 digits
    assert not np.allclose(values["all"], values["event_free"])
    assert main([*args, "--controls", "event_free"]) == 0
    assert (
        "control of b (event-free after t (a competing event by t makes neither"
        in capsys.readouterr().out
    )
    plain = [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--risk",
        "score",
        "--tau",
        "20",
        "--horizon",
        "10",
    ]
    assert main(plain) == 0
    assert (
        "(an event by t) > risk of a control of b (event-free after t)]" in capsys.readouterr().out
    )
    report = tmp_path / "report.md"
    assert main([*args, "--report", str(report)]) == 0
    capsys.readouterr()
    assert (
        "cases (an event of cause 1 by t) of group a against controls (event-free after t or a "
        "competing event (cause other than 1) by t) of group b"
    ) in report.read_text()
    assert main([*args, "--controls", "some"]) == 2
    assert "--controls" in _one_error_line(capsys.readouterr().err)


def test_parquet_is_read_by_row_group_with_its_index_and_only_the_columns_asked(tmp_path):
    """Issue 17: the reader goes one row group at a time (the progress bar's steps) and returns
    what pandas' own reader returns: only the columns asked for, the stored index, the dtypes."""
    from survfair.cli._io import read_table

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "t": rng.exponential(1.0, 2500),
            "e": rng.integers(0, 2, 2500).astype(np.int8),
            "g": pd.Categorical(rng.choice(["F", "M"], 2500)),
            "label": "x",
        },
        index=pd.Index(np.arange(2500) * 3, name="pid"),
    )
    path = tmp_path / "cohort.parquet"
    frame.to_parquet(path, row_group_size=1000)
    import pyarrow.parquet as pq

    assert pq.ParquetFile(path).num_row_groups == 3
    for columns in (None, ["g", "t"], ["e"]):
        for progress in (False, True):
            pd.testing.assert_frame_equal(
                read_table(str(path), columns, progress=progress),
                pd.read_parquet(path, columns=columns),
            )
    assert list(read_table(str(path), ["g", "t"]).columns) == [
        "g",
        "t",
    ]  # the order asked, as pandas


def test_progress_bars_on_a_terminal_and_not_otherwise(csv_file, tmp_path, monkeypatch, capsys):
    """Issue 17: on a terminal, a bar for reading and one of named phases; in a pipe (the tests'
    stderr) and with --no-progress, nothing on stderr."""
    from survfair._core import progress as _progress

    _, frame = csv_file
    path = tmp_path / "cohort.parquet"
    frame.to_parquet(path)
    argv = [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--risk",
        "score",
        "--tau",
        "20",
        "--horizon",
        "5",
    ]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_progress, "_stderr_is_terminal", lambda: True)
    assert main(argv + ["--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "reading cohort.parquet" in err and "300/300" in err
    for phase in (
        "pair counts and analytic intervals",
        "AUC(t) at the horizons",
        "findings and output",
    ):
        assert phase in err
    assert "3/3" in err


def test_text_output_of_many_groups_says_where_the_whole_tables_are(tmp_path, capsys):
    """1,500 groups took minutes to format 2.25 million cells as text no one could read; the text
    output prints a matrix up to 20 groups and tables up to 200 rows, and says where the rest is."""
    rng = np.random.default_rng(1)
    n = 50
    time = rng.exponential(size=n)
    frame = pd.DataFrame(
        {
            "time": time,
            "event": 1,
            "group": np.repeat(np.arange(25), 2),
            "risk": -time + rng.normal(0, 0.5, n),
        }
    )
    path = tmp_path / "many.csv"
    frame.to_csv(path, index=False)
    code = main(
        [
            "audit",
            "--data",
            str(path),
            "--time",
            "time",
            "--event",
            "event",
            "--group",
            "group",
            "--risk",
            "risk",
            "--method",
            "naive",
            "--ci",
            "none",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "xCI matrix: 25 x 25 cells, too many for a text table" in out
    assert (
        "... and 425 more rows: every row is in --format csv or --format json" in out
    )  # 625 cells
    code = main(
        [
            "audit",
            "--data",
            str(path),
            "--time",
            "time",
            "--event",
            "event",
            "--group",
            "group",
            "--risk",
            "risk",
            "--method",
            "naive",
            "--ci",
            "none",
            "--format",
            "csv",
        ]
    )
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert code == 0 and (table["kind"] == "cell").sum() == 625


def test_cli_report_formats_the_data_summary_for_people(csv_file, tmp_path):
    """Issue 14 audit: the CLI passed the raw data summary, and the report printed 70.2000."""
    path, frame = csv_file
    report = tmp_path / "r.html"
    assert (
        main(_audit_args(path, "--report", str(report), "--output", str(tmp_path / "o.txt"))) == 0
    )
    text = report.read_text()
    summary = text[
        text.index("<h2>Appendix: censoring per group</h2>") :
    ]  # the censoring columns (issue 32.4)
    summary = summary[: summary.index("</table>")]
    share = 100 * (1 - frame.loc[frame["sex"] == "F", "e"].mean())
    assert f"<td>{share:.1f}%</td>" in summary and f"{share:.4f}" not in summary
    assert "min_censoring_survival" in summary and not __import__("re").search(
        r"\d\.\d{4}<", summary
    )


def test_every_output_carries_the_joint_tests(csv_file, tmp_path, capsys):
    """Issue 14 audit: the CLI printed only the test of no asymmetry; the report has three."""
    import io

    path, frame = csv_file
    args = [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--group",
        "race",
        "--risk",
        "score",
        "--tau",
        "20",
    ]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "joint Wald tests" in text
    for hypothesis in (
        "no cross-group asymmetry (every Δbetween = 0)",
        "equal within-group concordance",
        "all cells equal",
    ):
        assert hypothesis in text
    res = survfair.xci("t", "e", ["sex", "race"], "score", data=frame, tau=20.0)
    assert main(args + ["--format", "json", "--output", str(tmp_path / "a.json")]) == 0
    tests = json.loads((tmp_path / "a.json").read_text())[0]["joint_tests"]
    assert [t["hypothesis"] for t in tests] == ["no_asymmetry", "equal_within", "equal_cells"]
    expected = survfair.omnibus_test(res, hypothesis="equal_cells")
    assert (
        tests[2]["statistic"] == pytest.approx(expected.statistic) and tests[2]["df"] == expected.df
    )
    assert main(args + ["--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    names = table.loc[table["statistic"].str.startswith("omnibus_", na=False), "statistic"].tolist()
    assert names[2] == f"omnibus_equal_cells (chi-square, df={expected.df})"


def test_text_p_values_use_the_shared_formatter(csv_file, tmp_path, capsys):
    """Issue 14 audit: with 3+ groups the binary table printed ΔxAUC p-values unadjusted and as
    0.0."""
    path, frame = csv_file
    binary = tmp_path / "binary.csv"
    shifted = frame.assign(
        dead=(frame["t"] < 10).astype(int), score=frame["score"] + 3.0 * (frame["race"] == "A")
    )
    shifted.to_csv(binary, index=False)
    assert (
        main(
            [
                "audit",
                "--data",
                str(binary),
                "--outcome",
                "dead",
                "--group",
                "sex",
                "--group",
                "race",
                "--risk",
                "score",
                "--method",
                "naive",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    block = text[text.index("ΔxAUC(a, b)") : text.index("Joint Wald tests")]
    header = block.splitlines()[2].split()
    assert header == [
        "a",
        "b",
        "delta_between",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "flag",
    ]
    assert "< 0.001" in block
    res = survfair.xauc("dead", ["sex", "race"], "score", data=shifted)
    deltas = survfair.pairwise_deltas(res).query("summary == 'delta_between'")
    adjusted = survfair.adjust_p_values(deltas["p_value"].to_numpy())
    from survfair._present.format import p_value_text

    for row, p in zip(block.splitlines()[3:], adjusted):
        assert p_value_text(p) in row
    # the survival table too
    assert main(_audit_args(path)) == 0
    out = capsys.readouterr().out
    summaries = out[out.index("summaries (") : out.index("joint Wald tests")]
    assert "p_adjusted flag" in summaries and "0.0000      0.0000" not in summaries


def test_horizon_text_has_the_unit_differences_and_findings(csv_file, capsys):
    """Issue 14 audit: the AUC(t) text had no time unit, no differences and no findings."""
    path, frame = csv_file
    assert main(_audit_args(path, "--horizon", "5", "--horizon", "10", "--time-unit", "days")) == 0
    out = capsys.readouterr().out
    block = out[out.index("Cross-group cumulative/dynamic AUC(t)") :]
    assert (
        "t = 5 days: cases" in block
        and "- AUC(t) at t = 10 days, largest cross-group asymmetry" in block
    )
    deltas = block[block.index("AUC(t) differences (p_adjusted: holm") :]
    assert deltas.splitlines()[1].split() == [
        "time",
        "(days)",
        "summary",
        "a",
        "b",
        "value",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "flag",
    ]
    curve = survfair.xauc_t("t", "e", "sex", "score", [5.0, 10.0], data=frame)
    expected = curve.pairwise_deltas().iloc[3]
    assert (
        f"{expected['value']:.4f}" in deltas.splitlines()[5]
    )  # one orientation: a before b in the group order, signed a - b


def test_mitigate_audits_a_subset_of_groups(tmp_path, capsys):
    """Issue 13 audit: `survfair mitigate` had no --groups, so a group with one event had to be
    filtered out of the file first. The chosen groups are fitted (the first named is the reference),
    every row is written, and the others' risk_adjusted is empty and counted."""
    rng = np.random.default_rng(0)
    n = 600
    race = rng.choice(["A", "B", "C"], n, p=[0.45, 0.45, 0.1])
    time = rng.exponential(size=n)
    frame = pd.DataFrame(
        {
            "time": time,
            "event": (rng.random(n) < 0.8).astype(int),
            "race": race,
            "risk": -time + rng.normal(size=n) + 0.5 * (race == "A"),
        }
    )
    data, out = tmp_path / "m.csv", tmp_path / "adjusted.csv"
    frame.to_csv(data, index=False)
    args = [
        "mitigate",
        "--data",
        str(data),
        "--time",
        "time",
        "--event",
        "event",
        "--group",
        "race",
        "--risk",
        "risk",
        "--output",
        str(out),
    ]
    assert main(args + ["--groups", "B", "A"]) == 0
    printed = capsys.readouterr().out
    n_other = int((race == "C").sum())
    assert (
        f"{n_other} rows of other groups excluded (--groups B A); their risk_adjusted is empty."
        in printed
    )
    written = pd.read_csv(out)
    assert len(written) == n and written.loc[written["race"] == "C", "risk_adjusted"].isna().all()
    subset = frame[frame["race"] != "C"]
    fitted = survfair.mitigate.group_shift(
        "time", "event", "race", "risk", data=subset, reference_group="B"
    )
    np.testing.assert_allclose(
        written.loc[written["race"] != "C", "risk_adjusted"],
        fitted.transform("risk", "race", data=subset),
    )
    assert fitted.offsets["B"] == 0.0
    assert main(args + ["--groups", "B", "X"]) == 2
    assert "--groups 'X' does not occur" in capsys.readouterr().err


def test_json_and_csv_carry_the_differences_per_horizon(tmp_path, capsys):
    """Issue 14 follow-up: the per-horizon Δwithin / Δbetween were in the text output and the report
    only; JSON and CSV now carry them with the same adjusted p-values (one family over horizons)."""
    import io

    from survfair._present.findings.horizons import horizon_findings

    rng = np.random.default_rng(1)
    n = 600
    g = rng.choice(list("abc"), n)
    r = rng.normal(size=n) + 0.3 * (g == "a")
    t, c = rng.exponential(np.exp(-r)), rng.exponential(2.0, n)
    frame = pd.DataFrame(
        {"time": np.minimum(t, c), "event": (t <= c).astype(int), "grp": g, "risk": r}
    )
    path = tmp_path / "hz.csv"
    frame.to_csv(path, index=False)
    args = [
        "audit",
        "--data",
        str(path),
        "--time",
        "time",
        "--event",
        "event",
        "--group",
        "grp",
        "--risk",
        "risk",
        "--tau",
        "2",
        "--horizon",
        "0.3",
        "--horizon",
        "0.6",
    ]
    expected = horizon_findings(
        survfair.xauc_t("time", "event", "grp", "risk", [0.3, 0.6], data=frame)
    ).deltas
    assert main(args + ["--format", "json"]) == 0
    entry = json.loads(capsys.readouterr().out)[0]
    got = pd.DataFrame(entry["horizon_differences"])
    assert len(got) == len(expected) == 2 * 6 and entry["horizon_findings"]
    np.testing.assert_allclose(got["p_adjusted"], expected["p_adjusted"], rtol=1e-9)
    assert main(args + ["--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    rows = table[table["kind"] == "horizon_summary"]
    assert list(rows["statistic"][:2]) == ["delta_within", "delta_between"]
    np.testing.assert_allclose(rows["value"], expected["value"], rtol=1e-9)


def test_too_many_groups_for_analytic_intervals_is_one_line_with_the_remedies(
    tmp_path, monkeypatch, capsys
):
    """Issue 33.8: 2,000 groups gave a bare MemoryError (the censoring terms are G^3 numbers): now
    refused before the allocation, naming the remedies."""
    from survfair._core import memory as _memory

    monkeypatch.setattr(_memory, "available_memory", lambda: 4_000_000)  # 100^3 numbers: 8 MB
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "t": rng.exponential(1.0, n),
            "e": rng.random(n) < 0.8,
            "g": [f"g{k:03d}" for k in rng.integers(0, 100, n)],
            "r": rng.normal(size=n),
        }
    )
    path = tmp_path / "many.csv"
    frame.to_csv(path, index=False)
    code = main(
        ["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "g", "--risk", "r"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "analytic intervals: the censoring terms of" in err[0] and "use --ci none" in err[0]


# ---- hostile inputs (issue 33, item 8) ----


def test_single_group_audit_table_output(csv_file, tmp_path, capsys):
    """One group: no differences, hence no p_adjusted column; the table output printed an internal
    error."""
    _, frame = csv_file
    path = tmp_path / "one.csv"
    frame.assign(sex="F").to_csv(path, index=False)
    code = main(
        [
            "audit",
            "--data",
            str(path),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "sex",
            "--risk",
            "score",
            "--tau",
            "20",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "overall_c" in captured.out and "internal error" not in captured.err


def _special_paths(tmp_path):
    """A symbolic link to a file, a named pipe, and a character device (only its type is read)."""
    import os

    target = tmp_path / "target.txt"
    target.write_text("keep")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    return target, {
        "a symbolic link": link,
        "a named pipe": fifo,
        "a character device": "/dev/null",
    }


@pytest.mark.parametrize("kind", ["a symbolic link", "a named pipe", "a character device"])
def test_outputs_never_replace_a_path_that_is_not_a_regular_file(kind, csv_file, tmp_path, capsys):
    import os
    import stat

    path, _ = csv_file
    target, special = _special_paths(tmp_path)
    output = special[kind]
    before = os.lstat(output).st_mode
    code = main(_audit_args(path, "--output", str(output)))
    err = _one_error_line(capsys.readouterr().err)
    assert code == 2
    assert f"--output: '{output}' is {kind}" in err and "leave out --output" in err
    assert os.lstat(output).st_mode == before and target.read_text() == "keep"
    assert stat.S_ISREG(os.lstat(target).st_mode)
    # the report and mitigate's outputs follow the same rule
    link = special["a symbolic link"].with_suffix(".html")
    link.symlink_to(target)
    assert main(_audit_args(path, "--report", str(link))) == 2
    assert "--report: " in _one_error_line(capsys.readouterr().err) and link.is_symlink()
    assert (
        main(
            [
                "mitigate",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "sex",
                "--risk",
                "score",
                "--output",
                str(special["a named pipe"]),
            ]
        )
        == 2
    )
    assert "a named pipe (FIFO), not a regular file" in _one_error_line(capsys.readouterr().err)
    assert target.read_text() == "keep"


def test_markdown_report_figures_folder_and_simulate_folder_are_checked(csv_file, tmp_path, capsys):
    import os

    path, _ = csv_file
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = tmp_path / "audit_files"
    folder.mkdir()
    (folder / "figure_1.png").symlink_to(elsewhere / "victim.png")
    assert main(_audit_args(path, "--report", str(tmp_path / "audit.md"))) == 2
    assert "figure_1.png' is a symbolic link" in _one_error_line(capsys.readouterr().err)
    linked = tmp_path / "linked_files"
    linked.symlink_to(elsewhere, target_is_directory=True)
    assert main(_audit_args(path, "--report", str(tmp_path / "linked.md"))) == 2
    assert "linked_files' is a symbolic link" in _one_error_line(capsys.readouterr().err)
    out = tmp_path / "sim"
    out.mkdir()
    os.mkfifo(out / "study.csv")
    assert main(["simulate", "--quick", "--output-dir", str(out)]) == 2
    assert "--output-dir: " in _one_error_line(capsys.readouterr().err)


def test_staged_outputs_check_again_before_moving_into_place(tmp_path):
    """A path that became a pipe while the command computed is not replaced either."""
    import os
    import stat

    from survfair.cli._errors import CLIError
    from survfair.cli._io import staged_outputs

    output = tmp_path / "out.txt"
    with pytest.raises(CLIError, match="--output: .* is a named pipe"):
        with staged_outputs() as stage:
            stage.text("numbers", str(output))
            os.mkfifo(output)
    assert stat.S_ISFIFO(os.lstat(output).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # the temporary file is gone


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("\t", "tab")], ids=["semicolon", "tab"])
def test_missing_column_hints_at_another_delimiter(sep, name, csv_file, tmp_path, capsys):
    _, frame = csv_file
    path = tmp_path / "other.csv"
    frame.to_csv(path, index=False, sep=sep)
    assert main(_audit_args(path)) == 2
    err = _one_error_line(capsys.readouterr().err)
    assert f"its header line looks {name}-delimited" in err and "comma-separated" in err
    assert main(_audit_args(csv_file[0], "--risk", "nope")) == 2  # a comma-separated file: no hint
    assert "delimited" not in _one_error_line(capsys.readouterr().err)


def test_calibration_of_each_risk_column(calibration_csv, tmp_path, capsys):
    """Issue 32.5: with several --risk columns, one set of --predicted columns per --risk gives one
    calibration per risk column, each named, in every output and in the report's verdict."""
    path, frame = calibration_csv
    two = tmp_path / "two.csv"
    frame.assign(lp2=frame["lp"] * 0.5, risk5b=frame["risk5"] * 0.9).to_csv(two, index=False)
    argv = [
        "audit",
        "--data",
        str(two),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "sex",
        "--risk",
        "lp",
        "--risk",
        "lp2",
        "--tau",
        "10",
        "--horizon",
        "5",
        "--predicted",
        "risk5",
        "--predicted",
        "risk5b",
    ]
    report = tmp_path / "r.html"
    assert main([*argv, "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "== calibration of predicted risks: risk = lp ==" in out
    assert "== calibration of predicted risks: risk = lp2 ==" in out
    text = report.read_text(encoding="utf-8")
    for heading in (
        "Findings: calibration: lp",
        "Findings: calibration: lp2",
        "Calibration at t = 5: lp2",
    ):
        assert f"<h2>{heading}</h2>" in text
    verdict = text[text.index("<h2>Verdict</h2>") : text.index("<h2>Findings")]
    assert verdict.count("<th>O/E at t = 5</th>") == 1 and verdict.count("F ") >= 2
    assert main([*argv, "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in payload[-2:]] == [
        "calibration of predicted risks: risk = lp",
        "calibration of predicted risks: risk = lp2",
    ]
    assert payload[-1]["predicted"] == ["risk5b"] and payload[-1]["risk"] == "lp2"
    assert (
        main([*argv[:-2], "--format", "json"]) == 0
    )  # one set for both: one calibration, as before
    assert json.loads(capsys.readouterr().out)[-1]["name"] == "calibration of predicted risks"
    assert main([*argv, "--predicted", "risk5"]) == 2
    assert "or one per --horizon for each of the 2 --risk columns (2)" in capsys.readouterr().err


def test_the_text_tables_orient_pairs_in_the_group_order(csv_file, capsys):
    """Issue 41: one orientation everywhere, (a, b) with a before b in the group order and the
    sign of a - b (issue 32.4 had flipped pairs to make them positive, so one pair read (M, F)
    in one table and (F, M) in the next)."""
    path, _ = csv_file
    assert (
        main(
            [
                "audit",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "race",
                "--risk",
                "score",
                "--method",
                "naive",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    table = out[out.index("summaries (") :]
    rows = [
        line.split()
        for line in table.splitlines()[2:]
        if line.split()[:1] in (["delta_between"], ["delta_within"])
    ]
    assert rows and all(row[1:3] == ["A", "B"] for row in rows)
    assert any(float(row[3]) < 0 for row in rows)  # a negative difference is not flipped


@pytest.fixture
def age_groups_csv(tmp_path):
    """Two age groups with very different baseline hazards; ``lp`` is the true linear predictor and
    S(t | x) at four times the true survival (issue 32's oracle); ``lp_missing`` leaves out the old
    group's extra hazard."""
    rng = np.random.default_rng(0)
    n = 600
    group = np.where(rng.random(n) < 0.5, "old", "young")
    lp = rng.normal(size=n)
    t = 10.0 * rng.exponential(size=n) * np.exp(-lp - 2.0 * (group == "old"))
    c = np.minimum(rng.exponential(40, n), 30.0)
    frame = pd.DataFrame(
        {
            "t": np.minimum(t, c),
            "e": (t <= c).astype(int),
            "age": group,
            "lp": lp + 2.0 * (group == "old"),
            "lp_missing": lp,
        }
    )
    for k, time in enumerate((1.0, 5.0, 10.0, 20.0)):
        frame[f"s{k}"] = np.exp(-time / 10.0 * np.exp(frame["lp"]))
    path = tmp_path / "ages.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_model_based_reference_on_the_command_line(age_groups_csv, tmp_path, capsys):
    """Issue 32: --model-based-lp gives each --risk its model-based reference; the findings lead
    with the excess (none for the true linear predictor, a clear one for the model missing the old
    group's hazard), in every output format and in the report."""
    path, _ = age_groups_csv
    base = [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "e",
        "--group",
        "age",
        "--tau",
        "15",
        "--risk",
        "lp",
        "--risk",
        "lp_missing",
        "--model-based-lp",
        "lp",
        "--model-based-lp",
        "lp_missing",
    ]
    report = tmp_path / "r.html"
    assert main([*base, "--report", str(report)]) == 0
    out = capsys.readouterr().out
    first, second = out.split("== ")[1:3]
    assert "No excess cross-group asymmetry" in first
    assert (
        "Excess cross-group asymmetry, old vs young" in second
        and "the model disadvantages old" in second
    )
    assert "excess over the model-based reference" in first
    assert "No excess cross-group asymmetry" in report.read_text()
    assert main([*base, "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {"cells", "summaries"} <= set(payload[0]["model_based"])
    assert payload[1]["findings"]["excess"][0]["p_adjusted"] < 0.05
    assert main([*base, "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    excess = table[table["kind"] == "excess"]
    assert (
        set(excess["statistic"]) == {"delta_between", "delta_within"}
        and excess["value"].notna().all()
    )


def test_model_based_survival_columns_on_the_command_line(age_groups_csv, capsys):
    path, _ = age_groups_csv
    assert (
        main(
            [
                "audit",
                "--data",
                str(path),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "age",
                "--tau",
                "15",
                "--risk",
                "lp",
                "--model-based-survival",
                "s0",
                "s1",
                "s2",
                "s3",
                "--model-based-times",
                "1",
                "5",
                "10",
                "20",
            ]
        )
        == 0
    )
    assert "No excess cross-group asymmetry" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ["--model-based-lp", "lp", "--model-based-survival", "s0", "--model-based-times", "1"],
            "not both",
        ),
        (
            ["--model-based-lp", "lp", "--model-based-lp", "lp"],
            "one --model-based-lp column per --risk",
        ),
        (
            ["--model-based-survival", "s0", "s1", "--model-based-times", "1"],
            "one --model-based-survival column per",
        ),
        (["--model-based-lp", "nope"], "nope"),
    ],
)
def test_model_based_options_are_checked(age_groups_csv, capsys, extra, message):
    path, _ = age_groups_csv
    code = main(
        [
            "audit",
            "--data",
            str(path),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "age",
            "--risk",
            "lp",
            *extra,
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]


def test_calibration_of_a_cause_on_the_command_line(tmp_path, capsys):
    """Issue 33.5 on the CLI: --predicted with --cause calibrates the cumulative incidence
    (Aalen-Johansen observed risk); --brier-variance chooses the Brier SE."""
    rng = np.random.default_rng(2)
    n = 400
    t1, t2, c = rng.exponential(5, n), rng.exponential(8, n), rng.uniform(0, 12, n)
    time = np.minimum(np.minimum(t1, t2), c)
    status = np.where(time == c, 0, np.where(t1 < t2, 1, 2))
    frame = pd.DataFrame(
        {
            "t": time,
            "status": status,
            "g": rng.choice(["a", "b"], n),
            "r": -t1 + rng.normal(size=n),
            "cif3": np.full(n, 1 - np.exp(-3 * (1 / 5 + 1 / 8))) * (1 / 5) / (1 / 5 + 1 / 8),
        }
    )
    path = tmp_path / "cr.csv"
    frame.to_csv(path, index=False)
    args = [
        "audit",
        "--data",
        str(path),
        "--time",
        "t",
        "--event",
        "status",
        "--cause",
        "1",
        "--group",
        "g",
        "--risk",
        "r",
        "--horizon",
        "3",
        "--predicted",
        "cif3",
        "--format",
        "json",
    ]
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)
    assert main([*args, "--brier-variance", "conservative"]) == 0
    conservative = json.loads(capsys.readouterr().out)
    assert "calibration" in default[-1]["name"] and "calibration" in conservative[-1]["name"]
    assert json.dumps(default[-1]) != json.dumps(conservative[-1])


def test_model_based_options_refused_where_they_cannot_hold(age_groups_csv, tmp_path, capsys):
    """Review: with --weights the reference's observed matrix was unweighted (the excess did not add
    up); a binary audit ignored the options without a word. Both are refused."""
    path, frame = age_groups_csv
    frame = frame.assign(w=1.0 + np.arange(len(frame)) % 3, y=frame["e"])
    other = tmp_path / "w.csv"
    frame.to_csv(other, index=False)
    code = main(
        [
            "audit",
            "--data",
            str(other),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "age",
            "--risk",
            "lp",
            "--weights",
            "w",
            "--model-based-lp",
            "lp",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "does not support --weights" in err[0]
    code = main(
        [
            "audit",
            "--data",
            str(other),
            "--outcome",
            "y",
            "--group",
            "age",
            "--risk",
            "lp",
            "--model-based-lp",
            "lp",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "binary audit" in err[0]


def test_labels_with_control_characters_are_printed_escaped(tmp_path, capsys):
    """Issue 41: a group label with an escape sequence ("\\x1b[31mF") was printed raw, so the
    terminal obeyed it. Text output escapes control characters as a repr does (columns stay
    aligned); other characters (é, Δ) are kept."""
    rng = np.random.default_rng(0)
    n = 300
    risk = rng.normal(size=n)
    t, c = rng.exponential(np.exp(-risk)), rng.exponential(2.0, size=n)
    frame = pd.DataFrame(
        {
            "t": np.minimum(t, c),
            "e": (t <= c).astype(int),
            "g": np.where(rng.random(n) < 0.5, "\x1b[31mF", "Mé"),
            "r": risk,
        }
    )
    path = tmp_path / "escape.csv"
    frame.to_csv(path, index=False)
    args = ["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "g"]
    assert main([*args, "--risk", "r", "--tau", "1.5"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[31mF" in out and "Mé" in out and "Δbetween" in out
    matrix = out[out.index("xCI matrix") :].splitlines()[1:5]
    assert len({len(line) for line in matrix[2:4]}) == 1  # the rows line up
    assert main([*args, "--risk", "missing"]) == 2  # an error message is escaped too
    assert "\x1b" not in capsys.readouterr().err


def test_no_utility_table_where_the_utilities_are_equal_by_construction(csv_file, capsys):
    """Issue 41: with two groups and alpha = beta, U(a) = U(b) by construction; the text output
    says so in one line instead of printing one number twice. With more groups the table stays."""
    path, _ = csv_file
    base = ["audit", "--data", str(path), "--time", "t", "--event", "e", "--risk", "score"]
    assert main([*base, "--group", "race", "--tau", "20"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("utility U(a)"))
    assert "U(A) = U(B) = xCI(A, B) + xCI(B, A) = " in line and "by construction" in line
    assert "group  value" not in out
    assert main([*base, "--group", "sex", "--group", "race", "--tau", "20"]) == 0
    out = capsys.readouterr().out
    assert "utility U(a) (alpha = beta = 1):\ngroup" in out


def test_messages_name_the_options_not_the_arguments(tmp_path, capsys):
    """Issue 41: a message said ci='bootstrap' to someone who typed --ci bootstrap. Errors,
    warnings, notes and findings printed by the command line name its options."""
    rng = np.random.default_rng(0)
    n = 400
    risk = rng.normal(size=n)
    t, c = rng.exponential(np.exp(-risk)), rng.exponential(2.0, size=n)
    frame = pd.DataFrame(
        {
            "t": np.minimum(t, c),
            "e": (t <= c).astype(int),
            "g": np.where(rng.random(n) < 0.5, "F", "M"),
            "r": risk,
            "site": rng.integers(0, 20, n),
            "p1": 1 - np.exp(-np.exp(risk) / 3),
        }
    )
    path = tmp_path / "options.csv"
    frame.to_csv(path, index=False)
    base = ["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "g"]
    base += ["--risk", "r", "--tau", "1.5"]
    code = main([*base, "--cluster", "site", "--model-based-lp", "r", "--ci", "bootstrap"])
    err = capsys.readouterr().err
    assert code == 2 and "--ci bootstrap" in err and "--ci analytic" in err and "ci='" not in err
    assert main([*base, "--predicted", "p1", "--horizon", "1"]) == 0
    out = capsys.readouterr().out
    assert "only with --ci bootstrap" in out and "ci='" not in out


def test_option_words_spells_arguments_as_options():
    from survfair.cli._errors import option_words

    assert option_words("use ci='analytic' or ci=None") == "use --ci analytic or --ci none"
    assert option_words("method='naive', n_resamples=99, random_state=1, cause=2") == (
        "--method naive, --n-resamples 99, --seed 1, --cause 2"
    )
    assert option_words("xci[F,M] and refit=True stay") == "xci[F,M] and refit=True stay"


def test_json_entry_is_the_public_dictionaries_with_their_tables(tmp_path):
    """The JSON writes the cells and the flagged cells from their tables (result.to_frame(),
    found.flags) and the rest from the public to_dict(cells=False) / to_dict(flagged_cells=False):
    the same text as the whole dictionaries, keys in the same order (int labels written as text)."""
    rng = np.random.default_rng(4)
    n = 240
    frame = pd.DataFrame({"t": rng.exponential(1.0, n), "e": rng.random(n) < 0.7})
    frame["g"] = rng.integers(0, 6, n) * 7
    frame["score"] = rng.normal(size=n) - np.log(frame["t"])
    frame.to_csv(tmp_path / "six.csv", index=False)
    out = tmp_path / "six.json"
    argv = ["audit", "--data", str(tmp_path / "six.csv"), "--time", "t", "--event", "e"]
    argv += ["--group", "g", "--risk", "score", "--method", "naive", "--format", "json"]
    assert main([*argv, "--output", str(out)]) == 0
    entry = json.loads(out.read_text())[0]
    result = survfair.xci("t", "e", "g", "score", data=frame, method="naive")
    found = survfair.findings(result)
    whole = {"findings": found.to_dict(), **result.to_dict()}
    assert list(entry)[: len(whole) + 2] == ["name", "notes", *whole]
    assert {key: entry[key] for key in whole} == json.loads(json.dumps(whole))
    assert entry["cells"][0]["a"] == "0" and len(entry["cells"]) == 36
    assert result.to_dict(cells=False) == {**result.to_dict(), "cells": None}
    assert found.to_dict(flagged_cells=False) == {**found.to_dict(), "flagged_cells": None}
