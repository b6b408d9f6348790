"""Every example runs end to end in its small setting, so the examples cannot rot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {
    "flchain_unawareness.py": ["Invariance under the perturbation", "Wang et al. 2026, Table 1"],
    "flchain_model_zoo.py": ["Held-out IPCW xCI by sex", "Log-normal AFT"],
    "published_equation.py": ["xCI matrix of the NPI", "delta_between[pre,post]"],
    "binary_horizon.py": ["Cross-check with scikit-learn", "xAUC disparity"],
}
OUTPUTS = {
    "flchain_unawareness.py": ["flchain_risk_densities_before.png", "flchain_forest.png", "flchain_unawareness_after.html"],
    "flchain_model_zoo.py": ["zoo_heatmaps.png", "zoo_forest.png", "flchain_model_zoo.html"],
    "published_equation.py": ["npi_audit.png", "npi_report.md", "npi_report_files/figure_1.png"],
    "binary_horizon.py": ["binary_xroc.png"],
}


@pytest.mark.parametrize("script", list(EXAMPLES), ids=list(EXAMPLES))
def test_example_runs_quick(script, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")  # survfair as installed, not the source tree
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--quick", "--out", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for text in EXAMPLES[script]:
        assert text in done.stdout
    for name in OUTPUTS[script]:
        assert (tmp_path / name).stat().st_size > 0, name
