"""Everything that reads an XCIResult, on a censoring="cox" result (issue 42, deliverable 1): the
findings, the report (HTML and Markdown), to_frame / to_dict, the notebook view, the flags and
differences, the plots, and the command line's --censoring cox (text, JSON, CSV, --report and its
one-line refusals).

Each consumer runs on a result with bootstrap intervals (49 replicates, to stay fast) and on one
without intervals. A Cox censoring result has no Kaplan-Meier curves: the report shows the Cox
model instead (its coefficients and a sentence saying what the weights are) and
plot_censoring_curves refuses, pointing at result.censoring_model.
"""

from __future__ import annotations

import io
import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

import survfair
from survfair.cli import main
from survfair.plotting import (
    plot_censoring_curves,
    plot_forest,
    plot_xci_difference,
    plot_xci_heatmap,
)

matplotlib.use("Agg")

# the cohort's censoring survival falls below 0.1 for some members on purpose (biased censoring)
pytestmark = pytest.mark.filterwarnings("ignore::survfair.PositivityWarning")

N = 400


@pytest.fixture(scope="module")
def cohort() -> pd.DataFrame:
    """Censoring that rises with x, which also drives the event (issue 42's biased cohort)."""
    rng = np.random.default_rng(7)
    group = rng.integers(0, 2, N)
    x = rng.normal(size=N) + 0.5 * group
    event_time = rng.exponential(1 / (0.5 * np.exp(0.8 * x)))
    censoring_time = rng.exponential(1 / (0.175 * np.exp(1.25 * x)))
    return pd.DataFrame(
        {
            "t": np.minimum(event_time, censoring_time),
            "e": (event_time <= censoring_time).astype(int),
            "sex": np.array(["F", "M"])[group],
            "x": x,
            "z": rng.normal(size=N),
            "risk": x + rng.normal(size=N),
        }
    )


def _xci(cohort, ci):
    options = {"n_resamples": 49, "random_state": 0} if ci == "bootstrap" else {}
    return survfair.xci(
        "t",
        "e",
        "sex",
        "risk",
        data=cohort,
        tau=2.0,
        censoring="cox",
        censoring_covariates=["x", "z"],
        ci=ci,
        **options,
    )


@pytest.fixture(scope="module", params=["bootstrap", None], ids=["bootstrap", "no-ci"])
def result(request, cohort):
    return _xci(cohort, request.param)


def test_findings(result):
    found = survfair.findings(result)
    assert found.sentences[0].startswith("Pooled concordance (C):")
    assert ("[" in found.sentences[0]) == (result.ci_method == "bootstrap")  # the interval
    assert len(found.flags) == 4


def test_to_frame_and_to_dict(result):
    frame = result.to_frame()
    assert len(frame) == 4 and np.isfinite(frame["xci"]).all()
    assert np.isfinite(frame["ci_low"]).all() == (result.ci_method == "bootstrap")
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))  # JSON-safe
    model = payload["censoring_model"]
    assert payload["censoring"] == "cox" and model["model"] == "cox"
    assert model["covariates"] == ["x", "z"] and model["strata"] == ["F", "M"]
    np.testing.assert_allclose(model["coefficients"], result.censoring_model.coefficients)
    assert model["n_terms"] == result.censoring_model.n_terms > 0
    assert set(payload["min_censoring_survival"]) == {"F", "M"}


def test_to_dict_of_a_kaplan_meier_result_says_no_censoring_model(cohort):
    res = survfair.xci("t", "e", "sex", "risk", data=cohort, tau=2.0, ci=None)
    assert res.to_dict()["censoring_model"] is None


def test_small_sample_flags_and_pairwise_deltas(result):
    flags = survfair.small_sample_flags(result)
    assert len(flags) == 4 and not flags["flagged"].any()
    deltas = survfair.pairwise_deltas(result)
    assert set(deltas["summary"]) >= {"delta_within", "delta_between"}
    p = deltas["p_value"].to_numpy(float)
    assert np.isfinite(p).all() == (result.ci_method == "bootstrap")


def test_notebook_view_names_the_censoring_model(result):
    page = result._repr_html_()
    assert "censoring = cox (Cox model on x, z)" in page
    assert "Censoring model (.censoring_model)" in page and "HR per unit" in page
    assert "<th class=label>x</th>" in page and "<th class=label>z</th>" in page


def test_heatmaps_say_cox_censoring(result):
    import matplotlib.pyplot as plt

    ax = plot_xci_heatmap(result)
    assert ax.get_title() == "xCI (ipcw, Cox censoring)"
    assert plot_xci_difference(result) is not None
    plt.close("all")


def test_forest_of_a_comparison_with_cox_censoring(cohort):
    import matplotlib.pyplot as plt

    comparison = survfair.compare(
        "t",
        "e",
        "sex",
        {"risk": "risk", "noise": "z"},
        data=cohort,
        tau=2.0,
        censoring="cox",
        censoring_covariates=["x"],
        ci="bootstrap",
        n_resamples=49,
        random_state=0,
    )
    assert all(r.censoring_model is not None for r in comparison.results.values())
    assert plot_forest(comparison) is not None
    plt.close("all")


def test_censoring_curves_are_refused_with_the_model_named(result):
    with pytest.raises(ValueError, match=r"no Kaplan-Meier censoring curves \(censoring=\"cox\"\)"):
        plot_censoring_curves(result)
    with pytest.raises(ValueError, match=r"result\.censoring_model\.to_frame\(\)"):
        plot_censoring_curves(result)


def test_report_shows_the_cox_model_instead_of_curves(result, tmp_path):
    html = survfair.write_report(result, tmp_path / "cox.html").read_text(encoding="utf-8")
    markdown = survfair.write_report(result, tmp_path / "cox.md").read_text(encoding="utf-8")
    for page in (html, markdown):
        assert "Censoring model" in page
        assert "IPCW weights from a Cox model of the censoring hazard on x, z" in page
        assert "HR per unit" in page
        assert f"{result.censoring_model.coefficients[0]:.4f}" in page
        assert "No figure of censoring curves" in page
        assert "Probability of remaining uncensored" not in page  # no Kaplan-Meier figure
        assert "cox: Cox model of the censoring hazard on x, z, the group as strata" in page
        assert "adjusted for the censoring model" in page  # the check is given the covariates
        assert "smallest predicted censoring survival" in page
    assert "| x | " in markdown


# --------------------------------------------------------------------------------------------------
# the command line


@pytest.fixture(scope="module")
def cohort_csv(cohort, tmp_path_factory):
    path = tmp_path_factory.mktemp("cox") / "cohort.csv"
    cohort.to_csv(path, index=False)
    return path


def _audit(path, *extra):
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
        "risk",
        "--tau",
        "2",
        *extra,
    ]


COX = ("--censoring", "cox", "--censoring-covariates", "x", "z")
BOOTSTRAP = ("--ci", "bootstrap", "--n-resamples", "49", "--seed", "1")


@pytest.mark.parametrize(
    "ci", [(), BOOTSTRAP, ("--ci", "none")], ids=["analytic", "bootstrap", "none"]
)
def test_cli_text_json_csv_and_report(cohort_csv, tmp_path, capsys, ci):
    assert main(_audit(cohort_csv, *COX, *ci)) == 0
    text = capsys.readouterr().out
    assert "censoring=cox (Cox model on x, z)" in text
    assert "censoring model: IPCW weights from a Cox model of the censoring hazard" in text
    assert "smallest predicted censoring survival G(t | x) per group: F: " in text
    assert "censoring depends on the risk given x, z?" in text

    out = tmp_path / "audit.json"
    report = tmp_path / "audit.html"
    assert main(_audit(cohort_csv, *COX, *ci, "--format", "json", "--output", str(out))) == 0
    entry = json.loads(out.read_text())[0]
    assert entry["censoring"] == "cox" and entry["censoring_model"]["covariates"] == ["x", "z"]
    assert entry["censoring_dependence"]["covariates"] == ["x", "z"]
    assert (entry["cells"][0]["ci_low"] is None) == (ci[-1:] == ("none",))

    assert main(_audit(cohort_csv, *COX, *ci, "--format", "csv", "--report", str(report))) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    rows = table[table["kind"] == "censoring_model"]
    assert list(rows["a"]) == ["x", "z"] and set(rows["statistic"]) == {"log_hazard_ratio"}
    page = report.read_text(encoding="utf-8")
    assert "Censoring model" in page and "No figure of censoring curves" in page
    assert "--censoring-covariates x z" in page  # the command, in the provenance


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ("--censoring", "cox", "--ci", "none"),
            "survfair: error: --censoring cox needs --censoring-covariates COL [COL ...]",
        ),
        (
            ("--censoring-covariates", "x"),
            "survfair: error: --censoring-covariates is used only with --censoring cox",
        ),
        (
            (*COX, "--ci", "none", "--model-based-lp", "risk"),
            "survfair: error: --censoring cox is not available with --model-based-lp yet",
        ),
        (
            ("--censoring", "cox", "--censoring-covariates", "nope", "--ci", "none"),
            "survfair: error: --censoring-covariates: column 'nope' is not in data file",
        ),
    ],
    ids=["no-covariates", "covariates-alone", "model-based", "column"],
)
def test_cli_refusals_are_one_line(cohort_csv, capsys, extra, message):
    assert main(_audit(cohort_csv, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(message), err


def test_cli_horizons_and_calibration_take_the_cox_model(cohort, tmp_path, capsys):
    """--horizon (AUC(t)) and --predicted (the Brier scores) with --censoring cox use the same
    censoring model as the xCI: the CSV's numbers equal the library's with censoring="cox"."""
    frame = cohort.assign(p1=1 - np.exp(-0.5 * np.exp(0.8 * cohort["x"])))
    path = tmp_path / "predicted.csv"
    frame.to_csv(path, index=False)
    extra = (*COX, "--horizon", "1", "--predicted", "p1", "--format", "csv")
    assert main(_audit(path, *extra)) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    options = dict(censoring="cox", censoring_covariates=["x", "z"], data=frame)
    auc = survfair.xauc_t("t", "e", "sex", "risk", [1.0], **options).to_frame()
    rows = table[table["kind"] == "horizon"]
    np.testing.assert_allclose(rows["value"].to_numpy(), auc["xauc"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(rows["se"].to_numpy(), auc["se"].to_numpy(), rtol=1e-12)
    cal = survfair.calibration("t", "e", "sex", ["p1"], [1.0], **options).to_frame()
    brier = cal[cal["statistic"] == "brier"]
    shown = table[(table["kind"] == "calibration") & (table["statistic"] == "brier")]
    np.testing.assert_allclose(shown["value"].to_numpy(), brier["estimate"].to_numpy(), rtol=1e-12)


def test_cli_library_refusal_names_the_option(cohort, tmp_path, capsys):
    path = tmp_path / "constant.csv"
    cohort.assign(c=1.0).to_csv(path, index=False)
    extra = ("--censoring", "cox", "--censoring-covariates", "c", "--ci", "none")
    assert main(_audit(path, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("survfair: error: --censoring-covariates 'c':")
    assert "constant" in err


def test_cli_demo_refuses_cox_censoring(capsys):
    assert main(["audit", "--censoring", "cox", "--ci", "none"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("survfair: error: --censoring cox needs --data") and err.count("\n") == 1
