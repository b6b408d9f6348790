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
    "mitigation_flchain.py": ["== Cox PH without sex (converged) ==", "closed-form d* = "],
    "simulation_study.py": ["Section 5.1: empirical vs closed-form xCI", "Naive vs IPCW xCI"],
    "calibration_pbc.py": [
        "S0(5 years) estimated in the 312 trial patients",
        "calibration of the predicted 5-year risk",
        "fairness profile",
    ],
    "clustered_retinopathy.py": [
        "394 eyes of 197 patients",
        "SE ratio, clustered / independent",
        "cluster bootstrap",
    ],
    "entry_and_weights.py": [
        "xCI with and without delayed entry",
        "against the full cohort",
        "largest error against the full cohort",
    ],
    "competing_risks.py": [
        "cause-specific xCI vs deaths treated as censored",
        "largest change of a cell when deaths are treated as censored",
        "event_free",
    ],
}
OUTPUTS = {
    "flchain_unawareness.py": [
        "flchain_risk_densities_before.png",
        "flchain_forest.png",
        "flchain_unawareness_after.html",
    ],
    "flchain_model_zoo.py": ["zoo_heatmaps.png", "zoo_forest.png", "flchain_model_zoo.html"],
    "published_equation.py": ["npi_audit.png", "npi_report.md", "npi_report_files/figure_1.png"],
    "binary_horizon.py": ["binary_xroc.png"],
    "mitigation_flchain.py": ["mitigation_frontier.png"],
    "simulation_study.py": ["figure1.png"],
    "calibration_pbc.py": ["pbc_xci.png", "pbc_calibration.png", "pbc_oe.png", "pbc_report.html"],
    "clustered_retinopathy.py": ["retinopathy_forest.png", "retinopathy_report.html"],
    "entry_and_weights.py": ["flchain_entry_report.html"],
    "competing_risks.py": ["mgus2_competing_report.html"],
}


@pytest.mark.parametrize("script", list(EXAMPLES), ids=list(EXAMPLES))
def test_example_runs_quick(script, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")  # survfair as installed, not the source tree
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--quick", "--out", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for text in EXAMPLES[script]:
        assert text in done.stdout
    for name in OUTPUTS[script]:
        assert (tmp_path / name).stat().st_size > 0, name


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "examples").glob("*.py")))
def test_examples_use_only_the_public_api_and_out_option(script):
    """Issue 19: no example imports a private survfair module or takes a positional output path."""
    import re

    source = (ROOT / "examples" / script).read_text()
    assert not re.search(r"survfair\._\w", source), "imports or names a private survfair module"
    assert "sys.argv" not in source
    if not script.startswith("_"):
        assert script in EXAMPLES and script in OUTPUTS, "every example is run above"
        assert "--out DIR" in source
