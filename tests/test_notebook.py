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
        "survfair.xci(time, event, group, risk, tau=2.0, ci='bootstrap', n_resamples=50, random_state=0)",
        "survfair.xauc_t(time, event, group, risk, [0.5, 1.0])",
        "survfair.findings(res)",
        "survfair.compare(time, event, group, {'score': risk, 'noise': rng.normal(size=n)}, tau=2.0)",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    ExecutePreprocessor(timeout=300, kernel_name="python3").preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    streams = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    assert "TqdmWarning" not in streams and "IProgress" not in streams
    shown = [o["data"]["text/html"] for o in outputs if o["output_type"] == "execute_result" and "text/html" in o["data"]]
    assert len(shown) == 5
    assert "<b>XCIResult</b>: method = ipcw" in shown[0] and "Largest cross-group asymmetry" in shown[0]
    assert "bootstrap intervals" in shown[1]
    assert "<b>XAUCtResult</b>" in shown[2] and "AUC(t) at t = 0.5, largest cross-group asymmetry" in shown[2]
    assert "<b>ModelComparison</b>: 2 models" in shown[4] and "<summary>Findings: noise</summary>" in shown[4]
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
    comparison = survfair.compare(time, event, group, {"score": risk, "noise": rng.normal(size=400)}, tau=2.0)
    shown = comparison._repr_html_()
    found = survfair.findings(comparison.results["score"])
    between = found.deltas.query("summary == 'delta_between'").iloc[0]
    assert f"[{100 * between['ci_low']:+.1f}, {100 * between['ci_high']:+.1f}]" in shown
    assert "<th>p (holm)</th>" in shown and "pooled C" in shown and "worst cell: xCI" in shown
    assert html.escape(found.sentences[1]) in shown
    assert "xci[F,F]" not in shown  # not the wide table of every column
    tiny = np.where(np.arange(400) < 5, "X", group)  # 5 members: every cell of X is flagged
    flagged = survfair.compare(time, event, tiny, {"score": risk}, method="naive")._repr_html_()
    assert "worst cell: xCI" in flagged and " †</td>" in flagged and "† uses a cell resting on little data" in flagged


def test_xauc_t_displays_matrices_differences_and_findings():
    """Issue 14 audit: an XAUCtResult showed the raw frame (numerator, weighted cases)."""
    time, event, group, risk, _ = _cohort()
    res = survfair.xauc_t(time, event, group, risk, [0.5, 1.0])
    shown = res._repr_html_()
    assert "numerator" not in shown and "weighted_cases" not in shown
    assert shown.count("a (case) \\ b (control)") == 2
    cell = res.to_frame().iloc[1]
    assert f"{100 * cell['xauc']:.1f}%" in shown and f"[{100 * cell['ci_low']:.1f}%, {100 * cell['ci_high']:.1f}%]" in shown
    assert "Δbetween (F, M)" in shown and "<th>p (holm)</th>" in shown
    assert "AUC(t) at t = 1, largest cross-group asymmetry" in shown
