"""HTML / Markdown reports: every table and figure present, nothing loaded from outside."""

from __future__ import annotations

import base64
import html
import re
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import survfair as sf  # noqa: E402
import survfair._present.findings.horizons  # noqa: E402
from survfair import write_report  # noqa: E402
from survfair._present.tables import data_summary_table  # noqa: E402


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
    path = write_report(
        result,
        tmp_path / "report.html",
        settings={"command": "survfair audit x.csv"},
        extra_tables={"My extra table": extra},
        figures={"My figure": fig},
        time_unit="days",
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    # the verdict first, details after, internals in the appendix at the end (issue 32.4)
    assert headings == [
        "Verdict",
        "Findings",
        "How to read",
        "Provenance",
        "Settings",
        "Data summary",
        "Censoring check",
        "xCI matrix",
        "Differences between groups",
        "Joint tests",
        "My extra table",
        "Figures",
        "Appendix: estimator internals",
        "Appendix: censoring per group",
        "Appendix: joint tests in detail",
        "Appendix: cells",
        "Appendix: pair counts",
    ]
    for caption in (
        "xCI matrix. How to read",
        "Probability of remaining uncensored per group. How to read",
        "xCI(a, b) − xCI(b, a). How to read",
        "My figure",
    ):
        assert f"<figcaption>{caption}" in text
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert len(images) == 4
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    assert "survfair audit x.csv" in text and "ipcw" in text
    # findings first, generated from the result
    findings = re.search(r'<ul class="findings">(.*?)</ul>', text).group(1)
    assert [html.unescape(s) for s in re.findall(r"<li>(.*?)</li>", findings)] == list(
        sf.findings(result).sentences
    )
    # numbers for people: percent with one decimal, differences in points, p-values, the version
    assert f"<td>{100 * result.matrix.loc['F', 'M']:.1f}%" in text
    delta = sf.delta_between(result, "F", "M")
    assert (
        f"<td>{100 * delta.value:+.1f} pts</td>" in text
    )  # one orientation: (a, b) in the group order, signed a - b
    assert f"<td>{100 * result.overall:.1f}%</td>" in text
    assert "70.2000" not in text and "confidence_level" not in text and "ci_method" not in text
    assert f"<td>{sf.__version__}</td>" in text and "<th class=label>confidence level</th>" in text
    # internals only in the appendix
    appendix = text[text.index("<h2>Appendix: estimator internals</h2>") :]
    assert "<th class=label>tied tolerance</th>" not in text[: text.index("<h2>Figures</h2>")]
    assert "<th class=label>tied tolerance</th>" in appendix and "<th>degenerate</th>" in appendix
    assert (
        "<th>censored_pct</th>" in appendix
        and "<th>degenerate</th>" not in text[: text.index("<h2>Figures</h2>")]
    )
    assert str(result.group_sizes["F"]["n"]) in text
    assert text.count("<details>") == 2  # the cells and the pair counts are folded
    _no_external_resource(text)
    assert plt.fignum_exists(fig.number)  # the caller's figure is left open
    plt.close("all")


def test_html_report_of_comparison_with_intervals(sample, tmp_path):
    out = sf.compare(
        "time",
        "event",
        "group",
        {"model one": "risk", "model two": "time"},
        data=sample,
        tau=1.5,
        ci="analytic",
    )
    text = write_report(out, tmp_path / "cmp.htm").read_text(encoding="utf-8")
    assert "<h2>Findings: model one</h2>" in text and "<h2>Findings: model two</h2>" in text
    verdict = re.search(r"<h2>Verdict</h2>.*?<table>(.*?)</table>", text, re.S).group(1)
    assert (
        verdict.count("<th class=label>model one</th>") == 1
        and verdict.count("<th class=label>model two</th>") == 1
    )
    assert "<figcaption>xCI(a, b) − xCI(b, a), model two. How to read" in text
    assert "<h2>xCI matrix: model two</h2>" in text
    assert "<figcaption>xCI matrix, model one. How to read" in text
    assert "<figcaption>xCI matrix, model two. How to read" in text
    assert "<figcaption>Δbetween and Δwithin per model. How to read" in text
    _no_external_resource(text)


def test_markdown_report(result, tmp_path):
    path = write_report(
        result, tmp_path / "report.md", data_summary=pd.DataFrame({"n": [3]}, index=["all"])
    )
    text = path.read_text(encoding="utf-8")
    for heading in (
        "## Verdict",
        "## Findings",
        "## Provenance",
        "## Settings",
        "## Data summary",
        "## xCI matrix",
        "## Differences between groups",
        "## Joint tests",
        "## Appendix: pair counts",
    ):
        assert heading in text
    assert text.index("## Verdict") < text.index("## Findings") < text.index("## Settings")
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links == [
        "report_files/figure_1.png",
        "report_files/figure_2.png",
        "report_files/figure_3.png",
    ]
    for link in links:
        assert (tmp_path / link).read_bytes()[:4] == b"\x89PNG"
    assert "| all | 3 |" in text
    assert "| a (earlier) \\\\ b (later) | F | M |" in text


def test_data_summary_table(result):
    from survfair._present.tables import data_summary_table

    table = data_summary_table(result)
    assert list(table.index) == ["F", "M", "all"]
    assert table.loc["all", "n"] == result.n_samples
    assert table.loc["F", "events"] + table.loc["F", "censored"] == table.loc["F", "n"]
    assert table.loc["M", "min_censoring_survival"] == result.min_censoring_survival["M"]


def test_report_errors(result, tmp_path):
    with pytest.raises(ValueError, match=r"path must end in .html, .htm or .md"):
        write_report(result, tmp_path / "r.pdf")
    with pytest.raises(
        TypeError, match="result must be an XCIResult, an XAUCResult or a ModelComparison"
    ):
        write_report(result.matrix, tmp_path / "r.html")
    with pytest.raises(TypeError, match=r"extra_tables\['t'\] must be a DataFrame"):
        write_report(result, tmp_path / "r.html", extra_tables={"t": [1, 2]})


# -- user strings are text, in every format --------------------------------------------------------
HOSTILE = ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>")


def _labelled(sample, labels):
    return sample.assign(group=np.where(sample["group"] == "F", labels[0], labels[1]))


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_dollar_labels(sample, tmp_path, suffix):
    labelled = _labelled(sample, ("$0-$50k", "a$_$b"))
    res = sf.xci("time", "event", "group", "risk", data=labelled, tau=1.5)
    # "a$_$b" used to make drawing the embedded heatmap fail with an empty-looking mathtext error
    text = write_report(res, tmp_path / f"report{suffix}").read_text(encoding="utf-8")
    if suffix == ".html":
        assert "<th class=label>$0-$50k</th>" in text and "<th class=label>a$_$b</th>" in text
    else:  # "$" as a reference, so renderers that read $...$ as LaTeX show it as text
        assert "| &#36;0-&#36;50k |" in text and "a&#36;\\_&#36;b" in text
        assert "$0-$50k" not in text


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_user_strings_are_escaped(sample, tmp_path, suffix):
    labelled = _labelled(sample, HOSTILE)
    models = {HOSTILE[0]: "risk", HOSTILE[1] + " | *x*": "time"}
    comparison = sf.compare("time", "event", "group", models, data=labelled, tau=1.5)
    extra = pd.DataFrame({HOSTILE[0]: [HOSTILE[1]]}, index=pd.Index([HOSTILE[0]], name=HOSTILE[1]))
    fig, _ = plt.subplots()
    path = write_report(
        comparison,
        tmp_path / f"report{suffix}",
        title=HOSTILE[0],
        settings={HOSTILE[0]: HOSTILE[1], "command": f"survfair audit --group '{HOSTILE[1]}'"},
        extra_tables={HOSTILE[1]: extra},
        figures={HOSTILE[0]: fig},
    )
    plt.close(fig)
    text = path.read_text(encoding="utf-8")
    assert (
        "<script" not in text.lower()
        and "<img src=x" not in text.lower()
        and "onerror=alert(1)>" not in text
    )
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        and "&lt;img src=x onerror=alert(1)&gt;" in text
    )
    if suffix == ".html":
        _no_external_resource(text)


def test_markdown_cells_render_as_the_literal_strings(result, tmp_path):
    """Through a Markdown renderer (Python-Markdown, as MkDocs uses) every cell is the string
    itself."""
    import markdown

    strings = [
        *HOSTILE,
        "p|q",
        "*x* _y_ `z` [l](u) ~s~ #h",
        "$0-$50k",
        "a\\b",
        "&amp;",
        "two\nlines",
    ]
    frame = pd.DataFrame(
        {"value": strings}, index=pd.Index([f"k{i}" for i in range(len(strings))], name="key")
    )
    path = write_report(
        result, tmp_path / "r.md", extra_tables={"cells": frame}, default_figures=False
    )
    rendered = markdown.markdown(path.read_text(encoding="utf-8"), extensions=["tables"])
    assert "<script" not in rendered and "<img" not in rendered
    cells = re.findall(r"<td>k\d+</td>\s*<td>(.*?)</td>", rendered, flags=re.S)
    shown = [html.unescape(c).replace("<br>", "\n") for c in cells]
    assert shown == strings


# -- binary audits (xAUC) --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(7)
    n = 400
    group = np.where(rng.random(n) < 0.5, "F", "M")
    score = rng.normal(size=n) + 0.8 * (
        group == "M"
    )  # M's scores shifted up: xAUC(M, F) > xAUC(F, M)
    y = (rng.random(n) < 1 / (1 + np.exp(-(score - 0.8 * (group == "M") + 0.4)))).astype(int)
    return sf.xauc(y, group, score)


def test_binary_report_html(binary, tmp_path):
    path = write_report(
        binary,
        tmp_path / "binary.html",
        settings={"outcome": "y"},
        data_summary=data_summary_table(binary),
    )
    text = path.read_text(encoding="utf-8")
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    for heading in (
        "Verdict",
        "Findings",
        "Settings",
        "Data summary",
        "xAUC matrix",
        "Differences between groups",
        "Joint tests",
        "Balanced xAUC",
        "Appendix: pair counts",
        "Figures",
    ):
        assert heading in headings
    assert "Kallus &amp; Zhou 2019" in text and "group of the POSITIVE" in text
    assert "<th class=label>a (positive) \\ b (negative)</th>" in text
    assert (
        "a positive of F was scored above a negative of M" in text
    )  # the findings speak of the xAUC, the pair in the group order (issue 41)
    # every cell with its DeLong interval, in percent
    low, high = binary.confidence_interval()
    assert (
        f"<td>{100 * binary.matrix.loc['M', 'F']:.1f}%</td><td>[{100 * low.loc['M', 'F']:.1f}%, "
        f"{100 * high.loc['M', 'F']:.1f}%]</td>"
    ) in text
    # M is favoured, yet every table says (F, M), the group order, with the sign of F - M
    assert list(binary.groups) == ["F", "M"]
    delta = sf.delta_between(binary, "F", "M")
    assert delta.value < 0 and "Δbetween (M, F)" not in text
    row = re.search(r"<th class=label>Δbetween \(F, M\)</th>(.*?)</tr>", text).group(1)
    cells = re.findall(r"<td>([^<]*)</td>", row)
    assert cells[:2] == [
        f"{100 * delta.value:+.1f} pts",
        f"[{100 * delta.confidence_interval.low:+.1f}, "
        f"{100 * delta.confidence_interval.high:+.1f}]",
    ]
    assert f"<td>{100 * binary.overall:.1f}%</td>" in text
    for caption in ("xAUC matrix. How to read", "xROC curves per pair of groups. How to read"):
        assert f"<figcaption>{caption}" in text
    assert len(re.findall(r'src="data:image/png;base64,', text)) == 3  # with the difference heatmap
    assert "<td class=label>delong</td>" in text and "positive_pct" in text
    _no_external_resource(text)


def test_binary_report_markdown(binary, tmp_path):
    text = write_report(binary, tmp_path / "binary.md").read_text(encoding="utf-8")
    m = binary.matrix
    assert m.loc["M", "F"] > m.loc["F", "M"] + 0.1  # the orientation is visible in the data
    # row a = group of the positive, column b = group of the negative
    assert "| a (positive) \\\\ b (negative) | F | M |" in text
    assert f"| M | {100 * m.loc['M', 'F']:.1f}% | {100 * m.loc['M', 'M']:.1f}% |" in text
    for heading in (
        "## xAUC matrix",
        "## Differences between groups",
        "## Balanced xAUC",
        "## Appendix: pair counts",
    ):
        assert heading in text
    assert "Δbetween (F, M)" in text and "Kallus & Zhou 2019" in text  # the group order
    assert re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text) == [
        f"binary_files/figure_{k}.png" for k in (1, 2, 3)
    ]
    balanced = sf.balanced_xauc(binary)
    assert (
        f"| F | {balanced.loc['F', 'positives']} | {balanced.loc['F', 'negatives']} | "
        f"{100 * balanced.loc['F', 'xauc1']:.1f}% |" in text
    )


def test_horizons_and_provenance_reach_the_report(sample, tmp_path):
    from survfair._present.tables import data_fingerprint

    res = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)
    curve = sf.xauc_t("time", "event", "group", "risk", [0.5, 1.0], data=sample)
    fingerprint = data_fingerprint(sample[["time", "event", "group", "risk"]])
    text = write_report(
        res,
        tmp_path / "h.html",
        horizons=curve,
        provenance={"command": "survfair audit --horizon 0.5 1", "data SHA-256": fingerprint},
    ).read_text(encoding="utf-8")
    assert "<h2>AUC(t) by horizon</h2>" in text
    frame = curve.to_frame()
    assert f"<td>{100 * frame['xauc'].iloc[0]:.1f}%</td>" in text
    assert f">{fingerprint}</td>" in text and len(fingerprint) == 64
    assert data_fingerprint(sample[["time", "event", "group", "risk"]].iloc[::-1]) != fingerprint


def test_flags_and_adjustment_are_shown(sample, tmp_path):
    res = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)
    text = write_report(
        res, tmp_path / "f.html", adjust="bh", min_pairs=10**6, default_figures=False
    ).read_text(encoding="utf-8")
    assert "<th>p (bh)</th>" in text and "BH-adjusted" in text
    # the 4 cells of the matrix and of the cells table; the differences and the worst cell that use
    # them; in the verdict: the worst cell and the largest Δbetween
    assert text.count(" †</td>") == 10 and "comparable pairs (&lt; 1000000)" in text
    between = survfair_label(res, "delta_between")
    for label in (f"{between} †", f"{survfair_label(res, 'delta_within')} †", "worst cell: xCI"):
        assert f"<th class=label>{label}" in text


def test_data_summary_table_of_binary_result(binary):
    table = data_summary_table(binary)
    assert list(table.columns) == ["n", "positives", "negatives", "positive_pct"]
    assert table.loc["all", "n"] == binary.n_samples
    assert table.loc["F", "positives"] == binary.group_sizes["F"]["positives"]


def test_review_fixes_of_the_report(sample, tmp_path):
    """Intersection (tuple) labels, a group called "all", and one pair-counts table per model."""
    pairs = sample.assign(older=sample["risk"] > 0)
    res = sf.xci("time", "event", ["group", "older"], "risk", data=pairs, tau=1.5)
    write_report(
        sf.xci(
            "time",
            "event",
            pd.Series(list(zip(pairs.group, pairs.older))),
            "risk",
            data=pairs,
            tau=1.5,
        ),
        tmp_path / "tuple.html",
    )
    assert "<h2>xCI matrix</h2>" in write_report(res, tmp_path / "i.html").read_text(
        encoding="utf-8"
    )
    named_all = sample.assign(group=np.where(sample["group"] == "F", "all", "M"))
    table = data_summary_table(sf.xci("time", "event", "group", "risk", data=named_all, tau=1.5))
    assert list(table.index) == ["M", "all", "(all)"] and table.loc["(all)", "n"] == len(sample)
    write_report(
        sf.xci("time", "event", "group", "risk", data=named_all.assign(group="all"), tau=1.5),
        tmp_path / "all.html",
    )
    out = sf.compare("time", "event", "group", {"one": "risk", "two": "time"}, data=sample, tau=1.5)
    text = write_report(out, tmp_path / "two.md", default_figures=False).read_text(encoding="utf-8")
    assert "## Appendix: pair counts: one" in text and "## Appendix: pair counts: two" in text


def test_the_data_summary_is_formatted_for_people(result, tmp_path):
    text = write_report(result, tmp_path / "d.html", default_figures=False).read_text(
        encoding="utf-8"
    )
    table = data_summary_table(result)
    share = table.loc["F", "censored_pct"]
    assert f"<td>{share:.1f}%</td>" in text and f"{share:.4f}" not in text


def _calibrated_cohort(n=600, seed=5):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    true_time = 6 * rng.weibull(1.5, n) * np.exp(-0.5 * x)
    censor = rng.uniform(0, 15, n)
    group = np.where(rng.random(n) < 0.5, "F", "M<&>")
    risk = 1 - np.exp(-((5 / (6 * np.exp(-0.5 * x))) ** 1.5))
    return (
        np.minimum(true_time, censor),
        true_time <= censor,
        group,
        x,
        np.where(group == "F", risk, 0.6 * risk),
    )


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_report_with_calibration(tmp_path, suffix):
    time, event, group, x, risk = _calibrated_cohort()
    result = sf.xci(time, event, group, x, tau=10)
    calibration = sf.calibration(time, event, group, risk, 5.0)
    path = write_report(result, tmp_path / f"r{suffix}", calibration=calibration, time_unit="years")
    text = path.read_text()
    found = sf.calibration_findings(calibration, time_unit="years")
    assert "Findings: calibration" in text and "Calibration at t = 5 years" in text
    first = found.sentences[0]
    assert (html.escape(first) if suffix == ".html" else first.replace("<", "\\<")[:20])[
        :20
    ] in text
    assert "M<&>" not in text  # the label is escaped in both formats
    # the calibration tables come before the folded pair counts
    assert text.index("Calibration at t = 5") < text.index("Appendix: pair counts")
    with pytest.raises(TypeError, match="CalibrationResult"):
        write_report(result, tmp_path / f"bad{suffix}", calibration=result)


def test_report_marks_calibration_groups_with_few_events(tmp_path):
    time, event, group, x, risk = _calibrated_cohort(n=300, seed=2)
    small = np.where(np.arange(300) < 20, "S", group)  # 20 people: few events by t = 5
    calibration = sf.calibration(time, event, small, risk, 5.0)
    path = write_report(
        sf.xci(time, event, small, x, tau=10),
        tmp_path / "r.md",
        calibration=calibration,
        min_events=15,
    )  # S has 12 events by t = 5
    assert "S †" in path.read_text()


def test_a_given_data_summary_is_formatted_too(result, tmp_path):
    table = data_summary_table(result)
    text = write_report(
        result, tmp_path / "d.html", data_summary=table, default_figures=False
    ).read_text()
    share = table.loc["F", "censored_pct"]
    assert f"<td>{share:.1f}%</td>" in text and f"{share:.4f}" not in text


def _section(text: str, heading: str) -> str:
    start = text.index(f"<h2>{heading}</h2>")
    end = text.find("<h2>", start + 1)
    return text[start : end if end > 0 else None]


def test_horizons_get_the_same_treatment(sample, tmp_path):
    """Issue 14 audit: the AUC(t) table had no time unit, no differences, no flags, no findings."""
    res = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)
    curve = sf.xauc_t("time", "event", "group", "risk", [0.5, 1.0], data=sample)
    text = write_report(
        res,
        tmp_path / "h.html",
        horizons=curve,
        time_unit="years",
        min_events=60,
        default_figures=False,
    ).read_text(encoding="utf-8")
    findings = _section(text, "Findings: AUC(t)")
    assert "AUC(t) at t = 0.5 years, largest cross-group asymmetry" in findings
    assert "adjusted over every horizon and pair together" in findings
    table = _section(text, "AUC(t) by horizon")
    assert "<th class=label>time (years)</th>" in table
    flags = sf._present.findings.horizons.horizon_flags(curve, min_events=60)
    assert table.count(" †</td>") == int(flags["flagged"].sum()) > 0
    reason = flags.loc[flags["flagged"], "reason"].iloc[0]
    assert f"<td class=label>{html.escape(reason)}</td>" in table
    deltas = _section(text, "AUC(t) differences between groups")
    d = curve.pairwise_deltas().iloc[1]
    assert d["summary"] == "delta_between"
    row = re.search(
        r"<th class=label>0.5</th><td class=label>Δbetween \(F, M\)[ †]*</td>(.*?)</tr>", deltas
    ).group(1)
    assert re.findall(r"<td>([^<]*)</td>", row)[:2] == [
        f"{100 * d['value']:+.1f} pts",
        f"[{100 * d['ci_low']:+.1f}, {100 * d['ci_high']:+.1f}]",
    ]
    assert "<th>p (holm)</th>" in deltas


def test_cells_with_standard_error_0_and_the_joint_test_in_the_report(tmp_path):
    """Issue 14 audit: "[0.0%, 0.0%]" intervals and a chi-square of 2.5e33 in the Joint tests
    table."""
    rng = np.random.default_rng(5)
    group = np.repeat(["a", "b", "c"], 200)
    risk = rng.normal(size=600) + 10.0 * (group == "a")
    time = rng.exponential(np.exp(-rng.normal(size=600) - 5.0 * (group == "a")))
    res = sf.xci(time, np.ones(600, bool), group, risk, method="naive")
    text = write_report(res, tmp_path / "z.html", default_figures=False).read_text(encoding="utf-8")
    assert (
        "[0.0%, 0.0%]" not in text
        and "[100.0%, 100.0%]" not in text
        and "[+100.0, +100.0]" not in text
    )
    cells = _section(text, "Appendix: cells")
    assert "<td>100.0% †</td><td class=label>no interval: standard error 0</td>" in cells
    tests = _section(text, "Appendix: joint tests in detail")
    assert "<th>left out (standard error 0)</th>" in tests
    row = re.search(r"no cross-group asymmetry \(every Δbetween = 0\)</th>(.*?)</tr>", tests).group(
        1
    )
    statistic, df, p, contrasts, _, _, no_variance = re.findall(r"<td>([^<]*)</td>", row)
    test = sf.omnibus_test(res)
    assert (int(df), int(contrasts), int(no_variance)) == (test.df, 1, 2) and float(
        statistic.replace(",", "")
    ) < 100


def test_binary_report_flags_balanced_xauc_and_says_why_there_is_no_xroc(tmp_path):
    rng = np.random.default_rng(3)
    n = 1500
    g = rng.choice(list("ABCDE"), n, p=[0.3, 0.3, 0.2, 0.195, 0.005])
    y = rng.integers(0, 2, n)
    res = sf.xauc(y, g, y + rng.normal(size=n))
    text = write_report(res, tmp_path / "b.html").read_text(encoding="utf-8")
    assert "No xROC figure: 5 groups have 20 ordered pairs" in _section(text, "Figures")
    balanced = _section(text, "Balanced xAUC")
    sizes = sf.balanced_xauc(res).loc["E"]
    assert sizes["positives"] < 10 and f"{int(sizes['positives'])} positives (&lt; 10)" in balanced
    assert "<th class=label>E</th>" in balanced and balanced.count(" †</td>") >= 1


def test_models_side_by_side_mark_flagged_rows(sample, tmp_path):
    out = sf.compare("time", "event", "group", {"one": "risk", "two": "risk"}, data=sample, tau=1.5)
    text = write_report(out, tmp_path / "c.html", min_pairs=10**6, default_figures=False).read_text(
        encoding="utf-8"
    )
    verdict = _section(text, "Verdict")
    label = survfair_label(out.results["one"], "delta_between")
    assert len(re.findall(re.escape(label) + " [+-]", verdict)) == 2
    assert verdict.count(" †</td>") >= 4


def survfair_label(result, summary):
    """The label of the pair a differences table shows: (a, b) with a before b in the group
    order, whatever the sign."""
    row = sf.pairwise_deltas(result).query("summary == @summary").iloc[0]
    return f"{'Δbetween' if summary == 'delta_between' else 'Δwithin'} ({row['a']}, {row['b']})"


# -- issue 32: the verdict first, one orientation, several calibrations, phones --------------------
def _stub_model_based(result, shift=0.02):
    """A stand-in for the model-based xCI (not built yet): a tidy frame with the agreed columns,
    Δbetween per pair in the library's order (a before b) and the cells."""
    rows = []
    for d in sf.pairwise_deltas(result).query("summary == 'delta_between'").itertuples():
        rows.append(
            {
                "summary": "delta_between",
                "a": d.a,
                "b": d.b,
                "observed": d.value,
                "model_based": d.value - shift,
                "excess": shift,
                "se": 0.01,
                "ci_low": shift - 0.0196,
                "ci_high": shift + 0.0196,
                "p_value": 0.045,
            }
        )
    for a in result.groups:
        for b in result.groups:
            value = float(result.matrix.loc[a, b])
            rows.append(
                {
                    "summary": "xci",
                    "a": a,
                    "b": b,
                    "observed": value,
                    "model_based": value - shift,
                    "excess": shift,
                    "se": 0.01,
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                    "p_value": np.nan,
                }
            )
    return pd.DataFrame(rows)


class _ModelBased:
    def __init__(self, frame):
        self.frame = frame

    def to_frame(self):
        return self.frame


def test_verdict_opens_the_report_with_excess_and_calibration(tmp_path):
    time, event, group, x, risk = _calibrated_cohort()
    out = sf.compare(
        time,
        event,
        group,
        {"lp": x, "noise": x + np.random.default_rng(1).normal(size=len(x))},
        tau=10,
    )
    calibrations = {
        "lp": sf.calibration(time, event, group, risk, 5.0),
        "noise": sf.calibration(
            time, event, group, np.column_stack([0.6 * risk, 0.8 * risk]), [3.0, 5.0]
        ),
    }
    stub = _stub_model_based(out.results["lp"])
    text = write_report(
        out,
        tmp_path / "v.html",
        calibration=calibrations,
        model_based={"lp": _ModelBased(stub)},
        time_unit="years",
    ).read_text(encoding="utf-8")
    assert re.findall(r"<h2>(.*?)</h2>", text)[0] == "Verdict"
    verdict = _section(text, "Verdict")
    head = re.findall(r"<th>(.*?)</th>", verdict)
    assert head[:6] == [
        "pooled C",
        "worst cell",
        "largest Δbetween",
        "interval",
        "p (holm)",
        "excess Δbetween",
    ]
    assert "O/E at t = 5" in head and "slope at t = 3" in head
    # the excess of the pair in the group order (a before b), as the stub gives it
    assert f"<td>{100 * 0.02:+.1f} pts [" in verdict
    oe = calibrations["noise"].summary(3.0)["oe_ratio"]
    assert html.escape(" · ".join(f"{g} {v:.2f}" for g, v in oe.items())) in verdict
    sentences = re.findall(
        r"<li>(.*?)</li>", re.search(r'<ul class="verdict">(.*?)</ul>', verdict).group(1)
    )
    assert (
        len(sentences) == 2
        and sentences[0].startswith("lp: pooled C")
        and "over what the model" in sentences[0]
    )
    # one calibration section per model, named
    for heading in (
        "Findings: calibration: lp",
        "Findings: calibration: noise",
        "Calibration at t = 5 years: lp",
        "Calibration at t = 3 years: noise",
        "Excess Δbetween over the model-based reference: lp",
    ):
        assert f"<h2>{heading}</h2>" in text
    assert "<figcaption>Observed − model-based, lp. How to read" in text
    assert "<figcaption>Calibration per group at t = 5 years, noise." in text
    with pytest.raises(ValueError, match="lacks the columns"):
        write_report(out, tmp_path / "bad.html", model_based={"lp": stub.drop(columns="excess")})
    with pytest.raises(TypeError, match=r"calibration\['lp'\] must be a CalibrationResult"):
        write_report(out, tmp_path / "bad.html", calibration={"lp": out})


def test_every_table_orients_pairs_in_the_group_order(binary, tmp_path):
    """Issue 32.4: the findings said Δbetween(M, F) = +x while the table showed (F, M) −x; issue 41:
    one orientation, (a, b) with a before b in the group order and the sign of a − b, whatever the
    sign (M is favoured here, the tables still say (F, M) with a negative value)."""
    assert list(binary.groups) == ["F", "M"]
    value = 100 * sf.delta_between(binary, "F", "M").value
    assert value < 0
    for suffix in (".html", ".md"):
        text = write_report(binary, tmp_path / f"o{suffix}", default_figures=False).read_text(
            encoding="utf-8"
        )
        assert "Δbetween (F, M)" in text and "Δbetween (M, F)" not in text
        assert f"Δbetween (F, M) {value:+.1f} pts" in text


def test_tables_scroll_inside_their_box(result, tmp_path):
    text = write_report(result, tmp_path / "s.html", default_figures=False).read_text(
        encoding="utf-8"
    )
    assert text.count("<table>") == text.count('<div class="scroll"><table>') > 5
    assert "div.scroll{overflow-x:auto" in text


@pytest.mark.skipif(
    __import__("shutil").which("chromium") is None, reason="needs Debian's chromium"
)
@pytest.mark.parametrize("width", [390, 1280])
def test_report_fits_a_phone_and_a_screen(result, tmp_path, width):
    """Rendered by headless Chromium: the page never scrolls sideways, wide tables scroll in their
    box."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "check_report_layout", Path(__file__).parents[1] / "scripts" / "check_report_layout.py"
    )
    layout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layout)
    path = write_report(result, tmp_path / "w.html", provenance={"data SHA-256": "f" * 64})
    measured = layout.measure(path, width)
    assert measured["window"] == width and measured["page"] <= width
    assert measured["wide"] == [] and measured["unboxed"] == 0
    if width == 390:
        assert (
            measured["scrolling"] >= 1
        )  # the verdict is wider than a phone: it scrolls in its box


def test_several_models_show_one_orientation_per_pair(sample, tmp_path):
    """Issue 41: a pair is (a, b) with a before b in the group order, with the sign of a - b, in
    the verdict table, the verdict sentences and the side-by-side table of every model, even
    when the models' asymmetries have opposite signs."""
    shifted = sample["risk"] + np.where(sample["group"] == "F", -1.0, 1.0)
    other = sample["risk"] + np.where(sample["group"] == "F", 1.0, -1.0)
    data = sample.assign(one=shifted, two=other)
    out = sf.compare("time", "event", "group", {"one": "one", "two": "two"}, data=data, tau=1.5)
    signs = {np.sign(out.table.loc[m, "delta_between[F,M]"]) for m in ("one", "two")}
    assert signs == {-1.0, 1.0}  # the models disagree: a flip would show both orientations
    text = write_report(out, tmp_path / "o.html", default_figures=False).read_text(encoding="utf-8")
    verdict = _section(text, "Verdict")
    assert "Δbetween (M, F)" not in verdict and "Δbetween(M, F)" not in html.unescape(verdict)
    for model in ("one", "two"):
        value = 100 * out.table.loc[model, "delta_between[F,M]"]
        assert f"Δbetween (F, M) {value:+.1f} pts" in verdict
        assert f"Δbetween(F, M) = {value:+.1f} points" in html.unescape(verdict)


def test_a_named_calibration_of_one_result_keeps_its_name(tmp_path):
    time, event, group, x, risk = _calibrated_cohort(n=300)
    result = sf.xci(time, event, group, x, tau=10)
    text = write_report(
        result,
        tmp_path / "n.md",
        calibration={"Cox": sf.calibration(time, event, group, risk, 5.0)},
        default_figures=False,
    ).read_text(encoding="utf-8")
    assert "## Findings: calibration: Cox" in text and "## Calibration at t = 5: Cox" in text
    verdict = text[text.index("## Verdict") : text.index("## Findings")]
    assert "O/E at t = 5" in verdict and "| risk score |" in verdict


def test_a_model_based_result_reports_its_excess_first(tmp_path):
    """Issue 32: write_report of a ModelBasedResult (the oracle: the true curves of two age groups)
    opens with a verdict that puts the asymmetry down to the groups' risks, leads the findings with
    'No excess cross-group asymmetry', and draws observed − model-based on a diverging scale."""
    rng = np.random.default_rng(0)
    n = 800
    group = np.where(rng.random(n) < 0.5, "old", "young")
    lp = rng.normal(size=n)
    scale = np.where(group == "old", 2.0, 20.0)
    t = scale * rng.exponential(size=n) * np.exp(-lp)
    c = rng.exponential(40, n)
    grid = np.linspace(0.05, 30, 300)
    curves = np.exp(-grid[None, :] / scale[:, None] * np.exp(lp)[:, None])
    reference = sf.model_based_xci(  # the score is the curves' own risk (issue 41)
        np.minimum(t, c), t <= c, group, lp - np.log(scale), survival=curves, times=grid, tau=15.0
    )
    text = sf.write_report(reference, tmp_path / "mb.md").read_text(encoding="utf-8")
    verdict = text[text.index("## Verdict") : text.index("## Findings")]
    assert "no clear excess over what the model" in verdict
    assert "calibration not checked" in verdict and "(model-based " in verdict
    findings_part = text[text.index("## Findings") :]
    assert "No excess cross-group asymmetry" in findings_part.split("\n## ")[0]
    assert "disadvantage" not in text
    assert "Excess Δbetween over the model-based reference" in text
    html = sf.write_report(reference, tmp_path / "mb.html", model_based=reference).read_text(
        encoding="utf-8"
    )
    assert html.index("Verdict") < html.index("No excess cross-group asymmetry")


# -- many groups (issue 43.4): a plain heatmap above PLAIN_FIGURE_GROUPS, the tables of cells cut
# above REPORT_TABLE_GROUPS, never silently -------------------------------------------------------


def _many_groups(g: int, per_group: int = 5, seed: int = 3):
    """Naive xCI of g groups of per_group rows, without intervals (no joint tests: fast)."""
    rng = np.random.default_rng(seed)
    n = g * per_group
    group = np.repeat([f"g{k:03d}" for k in range(g)], per_group)
    risk = rng.normal(size=n)
    t, c = rng.exponential(np.exp(-risk)), rng.exponential(3.0, n)
    with warnings.catch_warnings():  # cells without a comparable pair: NaN, shown last
        warnings.simplefilter("ignore", sf.UndefinedXCIWarning)
        return sf.xci(np.minimum(t, c), t <= c, group, risk, method="naive", ci=None)


def _drawn_figures(monkeypatch):
    """{first axes title: (number of texts, number of patches)} of every figure the report draws."""
    from survfair._present import report as report_module

    drawn, draw = {}, report_module._png

    def recording(figure):
        ax = figure.axes[0]
        drawn[ax.get_title()] = (len(ax.texts), len(ax.patches), len(ax.images))
        return draw(figure)

    monkeypatch.setattr(report_module, "_png", recording)
    return drawn


def test_report_of_three_groups_keeps_the_annotated_heatmap_and_every_cell(tmp_path, monkeypatch):
    drawn = _drawn_figures(monkeypatch)
    text = write_report(_many_groups(3, 40), tmp_path / "three.html").read_text(encoding="utf-8")
    assert drawn["xCI (naive)"][0] == 9  # one text per cell
    assert "† marks cells that rest on little data" in text
    assert "drawn as an image" not in text and "lowest first" not in text
    assert "<table>" in _section(text, "xCI matrix")
    assert "9 rows (click to show)" in _section(text, "Appendix: cells")


def test_report_above_the_plain_threshold_draws_the_heatmap_as_an_image(tmp_path, monkeypatch):
    from survfair._present.plots.figures import PLAIN_FIGURE_GROUPS

    g = PLAIN_FIGURE_GROUPS + 1
    drawn = _drawn_figures(monkeypatch)
    text = write_report(_many_groups(g), tmp_path / "plain.html").read_text(encoding="utf-8")
    texts, patches, images = drawn["xCI (naive)"]
    assert (texts, images) == (0, 1) and patches <= 1  # no text per cell; one hatched region
    assert f"With {g} groups (more than {PLAIN_FIGURE_GROUPS}) the matrix is drawn as an image" in (
        text
    )
    assert "the appendix lists every cell" in text
    # the tables are whole below REPORT_TABLE_GROUPS
    assert "<table>" in _section(text, "xCI matrix")
    assert f"{g * g} rows (click to show)" in _section(text, "Appendix: cells")


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_report_above_the_table_threshold_cuts_the_cells_with_a_sentence(
    tmp_path, monkeypatch, suffix
):
    from survfair._present.report import REPORT_TABLE_GROUPS, REPORT_TABLE_ROWS

    g = REPORT_TABLE_GROUPS + 1
    result = _many_groups(g, 4)
    drawn = _drawn_figures(monkeypatch)
    text = write_report(result, tmp_path / f"cut{suffix}").read_text(encoding="utf-8")
    assert drawn["xCI (naive)"][0] == 0
    said = "Every cell is in survfair audit --format csv or --format json"
    if suffix == ".md":
        text = text.replace("\\_", "_")
        sections = {h: s for h, s in zip(*_md_sections(text))}
        matrix, cells, counts = (
            sections["xCI matrix"],
            sections["Appendix: cells"],
            sections["Appendix: pair counts"],
        )
        assert "|" not in matrix  # no table, only the sentence
        rows = [line for line in cells.splitlines() if line.startswith("| g")]
        assert len(rows) == REPORT_TABLE_ROWS
        assert len([line for line in counts.splitlines() if line.startswith("| g")]) == (
            REPORT_TABLE_ROWS
        )
    else:
        matrix, cells, counts = (
            _section(text, "xCI matrix"),
            _section(text, "Appendix: cells"),
            _section(text, "Appendix: pair counts"),
        )
        assert "<table>" not in matrix
        assert f"{REPORT_TABLE_ROWS} rows (click to show)" in cells
        assert f"{REPORT_TABLE_ROWS} rows (click to show)" in counts
        rows = re.findall(r"<tr><th class=label>(.*?)</th>", cells.split("<tbody>")[1])
    assert f"The {g} × {g} matrix is not shown as a table" in matrix
    for section in (cells, counts):
        assert f"{g} groups have {g * g:,} cells" in section and said in section
        assert f"the {REPORT_TABLE_ROWS} cells with the lowest xCI, lowest first" in section
    # the lowest cell first, as the data hold it
    values = result.values
    i, j = np.unravel_index(np.nanargmin(values), values.shape)
    first = html.unescape(rows[0]).split("|")[1 if suffix == ".md" else 0].strip()
    assert first == f"{result.groups[i]} → {result.groups[j]}"


def _md_sections(text: str) -> tuple[list[str], list[str]]:
    parts = re.split(r"^## (.*)$", text, flags=re.M)
    return parts[1::2], parts[2::2]
