"""Results in Jupyter: a notebook executed with nbconvert shows the HTML displays, no traceback and
no TqdmWarning (the bootstrap's progress bar is drawn in the kernel)."""

from __future__ import annotations

import html

import nbformat  # the test extra installs nbformat, nbconvert and ipykernel
import numpy as np

import survfair


def test_results_display_in_an_executed_notebook(tmp_path):
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor

    cells = [
        "import numpy as np, survfair\n"
        "rng = np.random.default_rng(0)\n"
        "n = 400\n"
        "group = rng.choice(['F', 'M'], n)\n"
        "risk = rng.normal(size=n) + 0.4 * (group == 'F')\n"
        "time = rng.exponential(np.exp(-rng.normal(size=n)))\n"
        "event = rng.random(n) < 0.8",
        "res = survfair.xci(time, event, group, risk, tau=2.0)\nres",
        "survfair.xci(time, event, group, risk, tau=2.0, ci='bootstrap', n_resamples=50, "
        "random_state=0)",
        "survfair.xauc_t(time, event, group, risk, [0.5, 1.0])",
        "survfair.findings(res)",
        "survfair.compare(time, event, group, {'score': risk, 'noise': rng.normal(size=n)}, "
        "tau=2.0)",
        "p = 1 - np.exp(-np.exp(risk)[:, None] * np.array([[0.3, 0.6]]))\n"
        "survfair.calibration(time, event, group, p, [0.5, 1.0])",
        "survfair.compare_xci(res, survfair.xci(time, event, group, rng.normal(size=n), tau=2.0))",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    ExecutePreprocessor(timeout=300, kernel_name="python3").preprocess(
        notebook, {"metadata": {"path": str(tmp_path)}}
    )
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    streams = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    assert "TqdmWarning" not in streams and "IProgress" not in streams
    shown = [
        o["data"]["text/html"]
        for o in outputs
        if o["output_type"] == "execute_result" and "text/html" in o["data"]
    ]
    assert len(shown) == 7
    assert (
        "<b>XCIResult</b>: method = ipcw" in shown[0]
        and "Largest cross-group asymmetry" in shown[0]
    )
    assert "bootstrap intervals" in shown[1]
    assert (
        "<b>XAUCtResult</b>" in shown[2]
        and "AUC(t) at t = 0.5, largest cross-group asymmetry" in shown[2]
    )
    assert (
        "<b>ModelComparison</b>: 2 models" in shown[4]
        and "<summary>Findings: noise</summary>" in shown[4]
    )
    assert (
        "<h4>At t = 0.5</h4>" in shown[5] and "<h4>At t = 1</h4>" in shown[5]
    )  # every horizon, labelled
    assert "<b>ComparisonResult</b>" in shown[6] and "<th>model 2</th>" in shown[6]
    body, _ = HTMLExporter().from_notebook_node(notebook)
    assert body.count('class="survfair"') >= 4


def _cohort(n=400, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["F", "M"], n)
    risk = rng.normal(size=n) + 0.4 * (group == "F")
    return rng.exponential(np.exp(-rng.normal(size=n))), rng.random(n) < 0.8, group, risk, rng


def test_model_comparison_displays_headlines_intervals_findings_and_flags():
    """Issue 14 audit: a ModelComparison showed a wide table of values, without intervals,
    findings or flags."""
    time, event, group, risk, rng = _cohort()
    comparison = survfair.compare(
        time, event, group, {"score": risk, "noise": rng.normal(size=400)}, tau=2.0
    )
    shown = comparison._repr_html_()
    found = survfair.findings(comparison.results["score"])
    between = found.deltas.query("summary == 'delta_between'").iloc[0]
    assert f"[{100 * between['ci_low']:+.1f}, {100 * between['ci_high']:+.1f}]" in shown
    assert "<th>p (holm)</th>" in shown and "pooled C" in shown and "worst cell: xCI" in shown
    assert html.escape(found.sentences[1]) in shown
    assert "xci[F,F]" not in shown  # not the wide table of every column
    tiny = np.where(np.arange(400) < 5, "X", group)  # 5 members: every cell of X is flagged
    flagged = survfair.compare(time, event, tiny, {"score": risk}, method="naive")._repr_html_()
    assert (
        "worst cell: xCI" in flagged
        and " †</td>" in flagged
        and "† uses a cell resting on little data" in flagged
    )


def test_xauc_t_displays_matrices_differences_and_findings():
    """Issue 14 audit: an XAUCtResult showed the raw frame (numerator, weighted cases)."""
    time, event, group, risk, _ = _cohort()
    res = survfair.xauc_t(time, event, group, risk, [0.5, 1.0])
    shown = res._repr_html_()
    assert "numerator" not in shown and "weighted_cases" not in shown
    assert shown.count("a (case) \\ b (control)") == 2
    cell = res.to_frame().iloc[1]
    assert (
        f"{100 * cell['xauc']:.1f}%" in shown
        and f"[{100 * cell['ci_low']:.1f}%, {100 * cell['ci_high']:.1f}%]" in shown
    )
    assert "Δbetween (F, M)" in shown and "<th>p (holm)</th>" in shown
    assert "AUC(t) at t = 1, largest cross-group asymmetry" in shown


def test_calibration_displays_every_horizon_labelled():
    """Issue 32.6: the notebook showed the first horizon only, unlabelled, in a table 3,226 px
    wide."""
    time, event, group, risk, _ = _cohort()
    predicted = 1 - np.exp(-np.exp(risk)[:, None] * np.array([[0.3, 0.6, 1.0]]))
    res = survfair.calibration(time, event, group, predicted, [0.5, 1.0, 2.0])
    shown = res._repr_html_()
    assert shown.count("<h4>At t = ") == 3
    for t in ("0.5", "1", "2"):
        assert f"<h4>At t = {t}</h4>" in shown
    assert shown.count('<div class="scroll"><table>') == 3
    head = shown[shown.index("<thead>") : shown.index("</thead>")]
    assert head.count("<th") <= 13  # one narrow table per horizon, not every statistic at once
    o_e = res.summary(2.0)["oe_ratio"]
    assert f"<td>{o_e.iloc[0]:.2f}</td>" in shown
    assert html.escape(survfair.calibration_findings(res).sentences[0]) in shown


def test_paired_comparison_shows_both_models_and_the_difference():
    time, event, group, risk, rng = _cohort()
    r1 = survfair.xci(time, event, group, risk, tau=2.0)
    r2 = survfair.xci(time, event, group, rng.normal(size=400), tau=2.0)
    comparison = survfair.compare_xci(r1, r2)
    text, shown = repr(comparison), comparison._repr_html_()
    pooled = comparison.to_frame().query("quantity == 'overall'").iloc[0]
    for out in (text, shown):
        assert "model 1" in out and "model 2" in out and "difference" in out and "..." not in out
        assert f"{pooled['value_1']:.4f}" in out and f"{pooled['value_2']:.4f}" in out
        assert f"{pooled['difference']:.4f}" in out
    assert "<b>ComparisonResult</b>" in shown and "Δbetween (F, M)" in shown


def test_terminal_reprs_show_rounded_numbers():
    time, event, group, risk, _ = _cohort()
    curve = survfair.xauc_t(time, event, group, risk, [0.5, 1.0])
    text = repr(curve)
    assert text.startswith("XAUCtResult(") and text.count("AUC(t) at t = ") == 2
    assert f"{curve.matrix(1.0).iloc[0, 1]:.3f}" in text
    estimate = survfair.delta_between(survfair.xci(time, event, group, risk, tau=2.0), "F", "M")
    shown = repr(estimate)
    assert shown.startswith(f"Estimate(value={estimate.value:.4f}, se={estimate.se:.4f}, 95% CI [")
    assert len(shown) < 100 and "ConfidenceInterval" not in shown


def test_model_based_result_displays_like_the_other_results():
    """Issue 41: the ModelBasedResult's Jupyter view was its raw 4-decimal frame. It shows the
    observed and model-based matrices in percent with intervals, the excess in percentage points,
    and the differences with the excess's interval and a p-value as a reader reads it."""
    rng = np.random.default_rng(7)
    n = 600
    group = np.where(rng.random(n) < 0.5, "F", "M")
    lp = rng.normal(size=n) + 0.8 * (group == "M")
    t = rng.exponential(np.exp(-lp))
    c = rng.exponential(3.0, size=n)
    res = survfair.model_based_xci(
        np.minimum(t, c), t <= c, group, lp, linear_predictor=lp, tau=1.5
    )
    text = res._repr_html_()
    assert "<b>ModelBasedResult</b>" in text and "0.0000" not in text
    cell = res.observed.matrix.loc["F", "M"]
    assert f"<td>{100 * cell:.1f}%<br><small>[" in text  # percent with the interval below
    assert f"<td>{100 * res.model_based.loc['F', 'M']:.1f}%<br>" in text
    assert f"<td>{100 * res.excess.loc['F', 'M']:+.1f}<br><small>[" in text  # points
    row = res.summaries().query("summary == 'delta_between'").iloc[0]
    assert f"Δbetween ({row['a']}, {row['b']})" in html.unescape(text)
    assert (row["a"], row["b"]) == ("F", "M")  # the group order
    p = survfair._present.format.p_value_text(row["p_value"])
    assert f"<td>{html.escape(p)}</td>" in text
