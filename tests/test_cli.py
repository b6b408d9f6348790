"""The command line: the flchain demo, a CSV written here, and one-line errors with exit code 2."""

import json

import numpy as np
import pandas as pd
import pytest

from survfair.cli import main
from conftest import make_data


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
    assert "7874 people; 1350 rows dropped (creatinine missing for 1350 rows), 6524 analysed" in text
    assert "Cox PH with sex" in text and "Cox PH without sex" in text
    assert text.count("(converged)") == 2
    for word in ("xCI matrix", "pair counts", "delta_within", "delta_between", "min_xci", "utility"):
        assert word in text


@pytest.fixture
def csv_file(tmp_path):
    time, event, codes, risk = make_data(300, 3, 0)
    frame = pd.DataFrame({"t": time, "e": event.astype(int), "sex": np.array(["F", "M", "M"])[codes],
                          "race": np.where(np.arange(300) % 2, "A", "B"), "score": risk, "score2": -risk})
    path = tmp_path / "cohort.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_csv_audit_table(csv_file, capsys):
    path, _ = csv_file
    code = main(["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "sex",
                 "--risk", "score", "--tau", "20"])
    assert code == 0
    out = capsys.readouterr().out
    assert "risk = score" in out and "delta_between F M" in out


def test_csv_audit_json_intersection(csv_file, tmp_path):
    path, frame = csv_file
    out = tmp_path / "audit.json"
    code = main(["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "sex", "--group", "race",
                 "--risk", "score", "--risk", "score2", "--method", "naive", "--format", "json", "--output", str(out)])
    assert code == 0
    payload = json.loads(out.read_text())
    assert [p["name"] for p in payload] == ["risk = score", "risk = score2"]
    assert payload[0]["groups"] == ["F|A", "F|B", "M|A", "M|B"]
    assert len(payload[0]["cells"]) == 16


def test_parquet_and_csv_format(csv_file, tmp_path, capsys):
    _, frame = csv_file
    path = tmp_path / "cohort.parquet"
    frame.to_parquet(path)
    assert main(["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "sex",
                 "--risk", "score", "--format", "csv", "--tau", "20"]) == 0
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    # the summaries follow the cells in the same table (kind = "summary"), so count the cells
    assert (table["kind"] == "cell").sum() == 4 and {"name", "a", "b", "xci", "comparable"} <= set(table.columns)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["audit", "--data", "missing.csv", "--time", "t", "--event", "e", "--group", "g", "--risk", "r"], "does not exist"),
        (["audit", "--data", "{csv}", "--time", "t"], "also give --event, --group, --risk"),
        (["audit", "--data", "{csv}", "--time", "t", "--event", "e", "--group", "sex", "--risk", "nope"], "column 'nope' is not in data"),
        (["audit", "--data", "{csv}", "--time", "t", "--event", "e", "--group", "sex", "--risk", "score", "--tau", "-1"], "tau must be"),
        (["audit", "--method", "cox"], "invalid choice"),
        (["audit", "--tau", "abc"], "invalid float value"),
    ],
)
def test_bad_input_one_line_exit_2(argv, message, csv_file, capsys):
    path, _ = csv_file
    code = main([a.replace("{csv}", str(path)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("survfair: error:") and message in err


def _audit_args(path, *extra):
    return ["audit", "--data", str(path), "--time", "t", "--event", "e", "--group", "sex", "--risk", "score",
            "--tau", "20", *extra]


def test_report_html_and_markdown(csv_file, tmp_path):
    path, _ = csv_file
    html = tmp_path / "report.html"
    assert main(_audit_args(path, "--risk", "score2", "--report", str(html), "--output", str(tmp_path / "o.txt"))) == 0
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
        assert main(_audit_args(path, "--ci", "bootstrap", "--n-resamples", "60", "--seed", "3",
                                "--format", "json", "--output", str(out))) == 0
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
    assert main(["audit", "--data", str(binary), "--outcome", "dead", "--group", "sex", "--risk", "score"]) == 0
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
    code = main(["mitigate", "--data", str(path), "--time", "t", "--event", "e", "--group", "sex",
                 "--risk", "score", "--tau", "20", "--output", str(out)])
    assert code == 0
    adjusted = pd.read_csv(out)
    assert len(adjusted) == 300 and "risk_adjusted" in adjusted.columns
    assert main(["simulate", "--quick", "--study", "fig1", "--output-dir", str(tmp_path / "sim"), "--no-progress"]) == 0
    assert main(["mitigate", "--data", str(tmp_path / "nope.csv"), "--time", "t", "--event", "e",
                 "--group", "sex", "--risk", "score", "--output", str(out)]) == 2
