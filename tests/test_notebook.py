"""Results in Jupyter: a notebook executed with nbconvert shows the HTML displays, no traceback and
no TqdmWarning (the bootstrap's progress bar is drawn in the kernel)."""

from __future__ import annotations

import nbformat  # the test extra installs nbformat, nbconvert and ipykernel


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
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    ExecutePreprocessor(timeout=300, kernel_name="python3").preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    streams = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    assert "TqdmWarning" not in streams and "IProgress" not in streams
    shown = [o["data"]["text/html"] for o in outputs if o["output_type"] == "execute_result" and "text/html" in o["data"]]
    assert len(shown) == 4
    assert "<b>XCIResult</b>: method = ipcw" in shown[0] and "Largest cross-group asymmetry" in shown[0]
    assert "bootstrap intervals" in shown[1]
    assert "<b>XAUCtResult</b>" in shown[2]
    body, _ = HTMLExporter().from_notebook_node(notebook)
    assert body.count('class="survfair"') >= 3
