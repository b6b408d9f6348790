"""HTML / Markdown reports: every table and figure present, nothing loaded from outside."""

from __future__ import annotations

import base64
import dataclasses
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import survfair as sf  # noqa: E402
from survfair import write_report  # noqa: E402


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(5)
    n = 300
    group = np.where(rng.random(n) < 0.5, "F", "M")
    risk = rng.normal(size=n)
    t = rng.exponential(np.exp(-risk))
    c = rng.exponential(2.0, size=n)
    return pd.DataFrame({"time": np.minimum(t, c), "event": t <= c, "group": group, "risk": risk})


@pytest.fixture(scope="module")
def result(sample):
    return sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)


def _no_external_resource(text: str) -> None:
    assert "<script" not in text.lower() and "<link" not in text.lower() and "@import" not in text
    assert "http://" not in text and "https://" not in text
    assert 'src="//' not in text and 'href="//' not in text  # nothing protocol-relative either
    for src in re.findall(r'src="([^"]*)"', text):
        assert src.startswith("data:image/png;base64,")
    assert "url(" not in text


def test_html_report_contains_everything(result, tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    extra = pd.DataFrame({"value": [1.0]}, index=pd.Index(["x"], name="k"))
    path = write_report(tmp_path / "report.html", result, settings={"command": "survfair audit x.csv"},
                        extra_tables={"My extra table": extra}, figures={"My figure": fig})
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for heading in ("Settings", "Data summary", "xCI matrix", "Fairness summaries", "Pair counts", "My extra table",
                    "Figures"):
        assert f"<h2>{heading}</h2>" in text
    for caption in ("xCI matrix", "Censoring survival K_g(t) per group", "My figure"):
        assert f"<figcaption>{caption}</figcaption>" in text
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert len(images) == 3
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    assert "survfair audit x.csv" in text and "ipcw" in text
    assert f"{result.matrix.loc['F', 'M']:.4f}" in text
    assert f"{sf.delta_between(result, 'F', 'M').value:.4f}" in text
    assert f"{result.overall:.4f}" in text
    assert str(result.group_sizes["F"]["n"]) in text
    _no_external_resource(text)
    assert plt.fignum_exists(fig.number)  # the caller's figure is left open
    plt.close("all")


def test_html_report_of_comparison_with_intervals(sample, tmp_path, monkeypatch):
    import survfair._comparison as comparison

    def with_cov(*args, **kwargs):
        return dataclasses.replace(sf.xci(*args, **kwargs), covariance=np.eye(4) * 1e-4, ci_method="analytic")

    monkeypatch.setattr(comparison, "xci", with_cov)
    out = sf.compare({"model one": "risk", "model two": "time"}, "time", "event", "group", data=sample, tau=1.5)
    text = write_report(tmp_path / "cmp.htm", out).read_text(encoding="utf-8")
    assert "<h2>Model comparison</h2>" in text and "model one" in text and "model two" in text
    assert "delta_between[F,M]_low" in text
    assert "<figcaption>xCI matrix per model</figcaption>" in text
    assert "<figcaption>Δbetween and Δwithin per model</figcaption>" in text
    _no_external_resource(text)


def test_markdown_report(result, tmp_path):
    path = write_report(tmp_path / "report.md", result, data_summary=pd.DataFrame({"n": [3]}, index=["all"]))
    text = path.read_text(encoding="utf-8")
    for heading in ("## Settings", "## Data summary", "## xCI matrix", "## Fairness summaries", "## Pair counts"):
        assert heading in text
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links == ["report_files/figure_1.png", "report_files/figure_2.png"]
    for link in links:
        assert (tmp_path / link).read_bytes()[:4] == b"\x89PNG"
    assert "| all | 3 |" in text
    assert "| a (earlier event) / b (later) | F | M |" in text


def test_data_summary_table(result):
    from survfair._report import data_summary_table

    table = data_summary_table(result)
    assert list(table.index) == ["F", "M", "all"]
    assert table.loc["all", "n"] == result.n_samples
    assert table.loc["F", "events"] + table.loc["F", "censored"] == table.loc["F", "n"]
    assert table.loc["M", "min_censoring_survival"] == result.min_censoring_survival["M"]


def test_report_errors(result, tmp_path):
    with pytest.raises(ValueError, match=r"path must end in .html, .htm or .md"):
        write_report(tmp_path / "r.pdf", result)
    with pytest.raises(TypeError, match="result must be an XCIResult or a ModelComparison"):
        write_report(tmp_path / "r.html", result.matrix)
    with pytest.raises(TypeError, match=r"extra_tables\['t'\] must be a DataFrame"):
        write_report(tmp_path / "r.html", result, extra_tables={"t": [1, 2]})
