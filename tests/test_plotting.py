"""Plots render headless (Agg), return their Axes, and contain the expected artists."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402

import survfair as sf  # noqa: E402
from survfair import plotting  # noqa: E402


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(11)
    n = 400
    group = np.where(rng.random(n) < 0.4, "F", "M")
    risk = rng.normal(size=n) + 0.3 * (group == "M")
    t = rng.exponential(np.exp(-risk))
    c = rng.exponential(2.0, size=n)
    return pd.DataFrame({"time": np.minimum(t, c), "event": t <= c, "group": group, "risk": risk})


@pytest.fixture(scope="module")
def result(sample):
    return sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _png_ok(ax, tmp_path):
    out = tmp_path / "figure.png"
    ax.figure.savefig(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_heatmap(result, tmp_path):
    ax = plotting.plot_xci_heatmap(result)
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len([a for a in ax.get_children() if isinstance(a, AxesImage)]) == 1
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 4 and f"{result.matrix.loc['F', 'M']:.3f}" in texts[1]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["F", "M"]
    _png_ok(ax, tmp_path)


def test_heatmap_shows_intervals_and_uses_given_axes(sample):
    with_ci = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5, ci="analytic")
    fig, ax = plt.subplots()
    assert plotting.plot_xci_heatmap(with_ci, ax=ax, digits=2) is ax
    low = with_ci.ci_low.loc["F", "F"]
    assert f"[{low:.2f}," in ax.texts[0].get_text()


def test_risk_densities(sample, tmp_path):
    ax = plotting.plot_risk_densities("event", "group", "risk", data=sample)
    assert len(ax.lines) == 4  # 2 groups x {event, censored}
    assert {line.get_linestyle() for line in ax.lines} == {"-", "--"}
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(label.startswith("F, event (n=") for label in labels)
    # each curve is a density: integrates to ~1 over the grid
    for line in ax.lines:
        x, y = line.get_data()
        assert 0.9 < np.trapezoid(y, x) <= 1.0001
    _png_ok(ax, tmp_path)


def test_censoring_curves(result, tmp_path):
    ax = plotting.plot_censoring_curves(result)
    steps = [line for line in ax.lines if line.get_label().startswith("K_")]
    assert [s.get_label() for s in steps] == ["K_F(t)", "K_M(t)"]
    tau_lines = [line for line in ax.lines if line.get_label() == "tau = 1.5"]
    assert len(tau_lines) == 1 and tau_lines[0].get_xdata()[0] == 1.5
    assert ax.get_xlabel() == "time"
    _png_ok(ax, tmp_path)


def test_censoring_curves_needs_ipcw(sample):
    naive = sf.xci("time", "event", "group", "risk", data=sample, method="naive")
    with pytest.raises(ValueError, match="no censoring curves"):
        plotting.plot_censoring_curves(naive)
    with pytest.raises(TypeError, match="result must be an XCIResult"):
        plotting.plot_xci_heatmap(naive.matrix)


def test_forest(sample, tmp_path):
    # a noise score (risk = time ranks every pair wrongly: cells at 0% with standard error 0,
    # flagged)
    noisy = sample.assign(noise=np.random.default_rng(0).normal(size=len(sample)))
    comparison = sf.compare(
        "time",
        "event",
        "group",
        {"risk": "risk", "noise": "noise"},
        data=noisy,
        tau=1.5,
        ci="analytic",
    )
    ax = plotting.plot_forest(comparison)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    # one row per difference, labelled in words, first on top; one colour (errorbar container) per
    # model
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Δbetween (F, M)", "Δwithin (F, M)"]
    assert ax.yaxis_inverted()
    assert [b.get_label() for b in bars] == ["risk", "noise"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["risk", "noise"]
    assert ax.get_title() == "Differences between groups, per model"
    assert ax.get_xlabel().startswith(
        "difference in concordance, percentage points\n"
        "> 0: the first group of the pair is ranked correctly more often"
    )
    assert "Δbetween (a, b) = xCI(a, b) − xCI(b, a)" in ax.get_xlabel()
    assert any(
        line.get_xdata()[0] == 0.0 and line.get_xdata()[1] == 0.0 for line in ax.lines
    )  # the zero line
    table = comparison.table
    for k, model in enumerate(["risk", "noise"]):  # x in percentage points, in row order
        expected = 100 * table.loc[model, ["delta_between[F,M]", "delta_within[F,M]"]].to_numpy(
            float
        )
        np.testing.assert_allclose(bars[k].lines[0].get_xdata(), expected)
        low, high = bars[k].lines[2][0].get_segments()[0][:, 0]  # the interval of the first row
        assert (low, high) == pytest.approx(
            100
            * table.loc[
                model, ["delta_between[F,M]_ci_low", "delta_between[F,M]_ci_high"]
            ].to_numpy(float)
        )
    _png_ok(ax, tmp_path)
    with pytest.raises(ValueError, match="no column foo"):
        plotting.plot_forest(comparison.table, statistics=("foo",))


def _forest_marks(ax):
    open_markers = [line for line in ax.lines if line.get_label().startswith("_flagged")]
    return [t.get_text() for t in ax.get_yticklabels()], open_markers


def test_forest_marks_flagged_rows(sample):
    noisy = sample.assign(noise=np.random.default_rng(0).normal(size=len(sample)))
    comparison = sf.compare(
        "time", "event", "group", {"risk": "risk", "noise": "noise"}, data=noisy, tau=1.5
    )
    # default: flags from each result (min_events, min_pairs)
    ticks, hollow = _forest_marks(plotting.plot_forest(comparison))
    assert ticks == ["Δbetween (F, M)", "Δwithin (F, M)"] and hollow == []
    ax = plotting.plot_forest(comparison, min_pairs=10**6)
    ticks, hollow = _forest_marks(ax)
    assert ticks == ["Δbetween (F, M) †", "Δwithin (F, M) †"] and len(hollow) == 2
    assert ax.get_legend().get_texts()[-1].get_text() == "† open: uses a cell with little data"
    assert _forest_marks(plotting.plot_forest(comparison, flags=False, min_pairs=10**6)) == (
        ["Δbetween (F, M)", "Δwithin (F, M)"],
        [],
    )
    # a given table: Δbetween (F, M) uses the cells (F, M) and (M, F); Δwithin (F, M) uses (F, F)
    # and (M, M)
    flags = pd.DataFrame(
        {
            "a": ["F", "F", "M", "M"],
            "b": ["F", "M", "F", "M"],
            "flagged": [False, False, True, False],
        }
    )
    for given in (flags, {"noise": flags}):
        ticks, hollow = _forest_marks(plotting.plot_forest(comparison.table, flags=given))
        assert ticks == ["Δbetween (F, M) †", "Δwithin (F, M)"]
        assert len(hollow) == (2 if given is flags else 1)
        np.testing.assert_allclose(
            hollow[-1].get_ydata(), [0.25]
        )  # model "noise", row 0, offset +0.25
    flags.loc[2, "flagged"], flags.loc[3, "flagged"] = False, True
    assert _forest_marks(plotting.plot_forest(comparison, flags=flags))[0] == [
        "Δbetween (F, M)",
        "Δwithin (F, M) †",
    ]
    with pytest.raises(ValueError, match=r"missing \['flagged'\]"):
        plotting.plot_forest(comparison, flags=flags[["a", "b"]])
    with pytest.raises(ValueError, match=r"groups \['X'\] are not groups"):
        plotting.plot_forest(comparison, flags=flags.assign(a="X"))
    with pytest.raises(ValueError, match=r"models \['other'\] are not in the comparison"):
        plotting.plot_forest(comparison, flags={"other": flags})
    with pytest.raises(TypeError, match="flags must be a DataFrame"):
        plotting.plot_forest(comparison, flags="F")
    with pytest.raises(ValueError, match="flags=True needs a ModelComparison"):
        plotting.plot_forest(comparison.table, flags=True)


def test_forest_with_many_groups_stays_readable():
    """Six intersectional groups: one row per pair, named in words; the row labels never overlap."""
    rng = np.random.default_rng(6)
    n = 900
    group = rng.choice(["F|<60", "F|60-74", "F|75+", "M|<60", "M|60-74", "M|75+"], n)
    risk = rng.normal(size=n)
    time = rng.exponential(np.exp(-risk))
    comparison = sf.compare(
        time, np.ones(n, bool), group, {"risk": risk, "noise": rng.normal(size=n)}, method="naive"
    )
    ax = plotting.plot_forest(comparison, statistics=("delta_between",))
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert len(ticks) == 15 and ticks[0] == "Δbetween (F|60-74, F|75+)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "risk",
        "noise",
    ]  # models, not 15 pairs
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_yticklabels()]
    assert not any(boxes[i].overlaps(boxes[j]) for i in range(len(boxes)) for j in range(i))
    assert ax.figure.get_figwidth() * ax.figure.dpi <= 1400
    plt.close("all")


def test_xroc(tmp_path):
    from sklearn.metrics import roc_curve

    rng = np.random.default_rng(0)
    y, s = rng.random(100) < 0.4, rng.normal(size=100)
    fpr, tpr, thr = roc_curve(y, s)
    curves = {"xROC(a,b)": (fpr, tpr, thr), "xROC(b,a)": pd.DataFrame({"fpr": fpr, "tpr": tpr**2})}
    ax = plotting.plot_xroc(curves)
    assert len(ax.lines) == 3  # two curves + chance diagonal
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), fpr)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["xROC(a,b)", "xROC(b,a)"]
    _png_ok(ax, tmp_path)
    with pytest.raises(ValueError, match="columns 'fpr' and 'tpr'"):
        plotting.plot_xroc({"bad": pd.DataFrame({"x": [0.0]})})


def test_xroc_accepts_the_library_curve_objects(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    g = rng.choice(["F", "M"], n)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 0)  # heavy ties: diagonal segments
    res = sf.xauc(y, g, s)
    fm, mf = sf.xroc(res, "F", "M"), sf.xroc(res, "M", "F")
    # one curve object: labelled with the paper's name
    ax = plotting.plot_xroc(fm)
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), fm.fpr)
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), fm.tpr)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["xROC(F, M)"]
    # straight segments between the points: the drawn curve is the one whose area is xAUC(F, M)
    assert ax.lines[0].get_drawstyle() == "default"
    x, yy = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    assert np.trapezoid(yy, x) == pytest.approx(res.matrix.loc["F", "M"], abs=1e-12)
    # a list, with balanced curves
    balanced = [sf.balanced_xroc(res, "F", outcome=1), sf.balanced_xroc(res, "M", outcome=0)]
    ax = plotting.plot_xroc([fm, mf, *balanced])
    assert len(ax.lines) == 5
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "xROC(F, M)",
        "xROC(M, F)",
        "xROC_1(F)",
        "xROC_0(M)",
    ]
    # a mapping name -> XROCCurve, mixed with the other forms, equals plotting .to_frame()
    ax = plotting.plot_xroc(
        {"F vs M": fm, "M vs F": mf.to_frame(), "sk": (fm.fpr, fm.tpr)}, color="k"
    )
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), ax.lines[2].get_xdata())
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), mf.tpr)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["F vs M", "M vs F", "sk"]
    _png_ok(ax, tmp_path)
    with pytest.raises(TypeError, match="curves must be an XROCCurve"):
        plotting.plot_xroc([fm, "not a curve"])
    with pytest.raises(TypeError, match="curves must be an XROCCurve"):
        plotting.plot_xroc({})
    with pytest.raises(TypeError, match=r"curves\['x'\] must be an XROCCurve"):
        plotting.plot_xroc({"x": 1.0})


def test_conditional_xauc(tmp_path):
    rng = np.random.default_rng(0)
    values = {"a vs b": rng.random(50), "b vs a": pd.Series(rng.random(30) ** 2)}
    ax = plotting.plot_conditional_xauc(values, bins=10)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 2 and len(bars[0]) == 10
    assert sum(p.get_height() for p in bars[1]) == 30
    means = [line.get_xdata()[0] for line in ax.lines]
    np.testing.assert_allclose(means, [values["a vs b"].mean(), values["b vs a"].mean()])
    _png_ok(ax, tmp_path)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        plotting.plot_conditional_xauc(pd.Series([0.5, 1.5]))


def test_plotting_never_shows(monkeypatch, result):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("show() was called"))
    plotting.plot_xci_heatmap(result)
    plotting.plot_censoring_curves(result)


# -- labels are text: "$" never starts mathtext, "_x" keeps its legend entry ----------------------
LABELS = ("$0-$50k", "a$_$b", "_hidden")


@pytest.fixture(scope="module")
def literal_sample():
    rng = np.random.default_rng(3)
    n = 360
    group = np.array(LABELS)[rng.integers(0, 3, n)]
    risk = rng.normal(size=n)
    t = rng.exponential(np.exp(-risk))
    c = rng.exponential(2.0, size=n)
    return pd.DataFrame(
        {
            "time": np.minimum(t, c),
            "event": t <= c,
            "group": group,
            "risk": risk,
            "y": (t < 0.7).astype(int),
        }
    )


@pytest.fixture
def drawn(monkeypatch):
    """Draw a figure with Agg; return every string the renderer was asked to write,
    as (text, ismath)."""
    from matplotlib.backends.backend_agg import RendererAgg

    calls = []
    original = RendererAgg.draw_text

    def record(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        calls.append((s, ismath))
        return original(self, gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    monkeypatch.setattr(RendererAgg, "draw_text", record)

    def draw(ax):
        calls.clear()
        ax.figure.canvas.draw()
        return list(calls)

    return draw


def _literal_cases():
    def heatmap(sample):
        res = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)
        return plotting.plot_xci_heatmap(res, title="model $x$"), [*LABELS, "model $x$"]

    def xauc_heatmap(sample):
        res = sf.xauc("y", "group", "risk", data=sample)
        return plotting.plot_xci_heatmap(res, title="a$_$b"), [*LABELS, "a$_$b"]

    def densities(sample):
        ax = plotting.plot_risk_densities("event", "group", "risk", data=sample, title="$0-$50k")
        return ax, [f"{g}, event (n=" for g in LABELS] + [f"{g}, censored (n=" for g in LABELS]

    def censoring(sample):
        res = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)
        return plotting.plot_censoring_curves(res), [f"K_{g}(t)" for g in LABELS]

    def forest(sample):
        comparison = sf.compare(
            "time",
            "event",
            "group",
            {"$0-$50k": "risk", "a$_$b": "time", "_hidden": "risk"},
            data=sample,
            tau=1.5,
        )
        return plotting.plot_forest(comparison, statistics=("delta_between",)), [
            *LABELS,
            "Δbetween ($0-$50k, _hidden)",
            "Δbetween (_hidden, a$_$b)",
        ]

    def xroc(sample):
        curve = (np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.8, 1.0]))
        return plotting.plot_xroc({g: curve for g in LABELS}), list(LABELS)

    def conditional(sample):
        rng = np.random.default_rng(1)
        ax = plotting.plot_conditional_xauc({g: rng.random(20) for g in LABELS}, bins=5)
        return ax, [f"{g} (mean " for g in LABELS]

    return [
        pytest.param(f, id=f.__name__)
        for f in (heatmap, xauc_heatmap, densities, censoring, forest, xroc, conditional)
    ]


@pytest.mark.parametrize("case", _literal_cases())
def test_labels_are_drawn_literally(case, literal_sample, drawn):
    ax, expected = case(literal_sample)
    strings = drawn(ax)  # "a$_$b" used to raise a mathtext ParseSyntaxException here
    assert strings and not any(ismath for _, ismath in strings)  # nothing went through mathtext
    shown = [s for s, _ in strings]
    assert not any("\\$" in s for s in shown)  # the escape is never drawn
    for text in expected:  # every label (tick, title, legend entry) is drawn as written
        assert any(text in s for s in shown), (text, shown)


def test_legend_rebuilt_by_the_caller_stays_literal(literal_sample, drawn):
    res = sf.xci("time", "event", "group", "risk", data=literal_sample, tau=1.5)
    ax = plotting.plot_censoring_curves(res)
    ax.legend()  # from the artists' own labels
    shown = drawn(ax)
    assert ("K_a$_$b(t)", False) in shown and ("K_$0-$50k(t)", False) in shown


def test_heatmap_of_xauc_result(literal_sample, drawn):
    res = sf.xauc("y", "group", "risk", data=literal_sample)
    ax = plotting.plot_xci_heatmap(res, digits=3)
    assert (
        ax.get_ylabel() == "a: group of the positive"
        and ax.get_xlabel() == "b: group of the negative"
    )
    assert ax.get_title() == "xAUC (DeLong)"
    colorbar = ax.figure.axes[-1]
    assert (
        colorbar.get_ylabel()
        == "xAUC: share of pairs ranked correctly\nred < 0.5 (coin flip) < blue"
    )
    g0, g1 = res.groups[0], res.groups[1]
    low, high = res.confidence_interval()
    # row i = positive's group, column j = negative's group; the DeLong interval under the value
    assert ax.texts[1].get_text() == (
        f"{res.matrix.loc[g0, g1]:.3f}\n[{low.loc[g0, g1]:.3f}, {high.loc[g0, g1]:.3f}]"
    )
    assert ax.texts[len(res.groups)].get_text().startswith(f"{res.matrix.loc[g1, g0]:.3f}\n")
    drawn(ax)


def test_heatmap_fits_long_labels_and_intervals(literal_sample):
    """A new figure is sized to its cells: interval texts inside their cells, long column labels
    slanted."""
    long = literal_sample.assign(
        group=literal_sample["group"].map(
            {
                "$0-$50k": "<script>alert(1)</script>",
                "a$_$b": "household income $0-$50k",
                "_hidden": "other",
            }
        )
    )
    res = sf.xci("time", "event", "group", "risk", data=long, tau=1.5, ci="analytic")
    ax = plotting.plot_xci_heatmap(res)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    cell_width = ax.get_window_extent(renderer).width / len(res.groups)
    assert all(t.get_window_extent(renderer).width < cell_width for t in ax.texts)
    # slanted by 30 degrees, neighbouring labels are parallel lines cell_width * sin(30) apart
    ticks = ax.get_xticklabels()
    assert [t.get_rotation() for t in ticks] == [30.0] * 3
    height = max(t.get_window_extent(renderer).height for t in ax.get_yticklabels())
    assert cell_width * 0.5 > 1.5 * height
    short = plotting.plot_xci_heatmap(
        sf.xci(
            "time",
            "event",
            "group",
            "risk",
            data=literal_sample.assign(
                group=literal_sample["group"].map({"$0-$50k": "F", "a$_$b": "M", "_hidden": "X"})
            ),
            tau=1.5,
        )
    )
    assert [t.get_rotation() for t in short.get_xticklabels()] == [0.0] * 3


def test_forest_legend_beside_the_points(sample):
    comparison = sf.compare(
        "time", "event", "group", {"risk": "risk", "noise": "time"}, data=sample, tau=1.5
    )
    ax = plotting.plot_forest(comparison)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    assert ax.figure.get_window_extent(renderer).contains(
        *ax.get_legend().get_window_extent(renderer).p1
    )


def test_heatmaps_share_one_colour_scale_and_accept_overrides(result, sample):
    from matplotlib.colors import Normalize

    other = sf.xci("time", "event", "group", "time", data=sample, tau=1.5)
    norms = [plotting.plot_xci_heatmap(r).images[0].norm for r in (result, other)]
    assert [(n.vmin, n.vcenter, n.vmax) for n in norms] == [(0.0, 0.5, 1.0)] * 2
    assert plotting.plot_xci_heatmap(result, vmin=0.6, vmax=0.9).images[0].norm.vmin == 0.6
    given = Normalize(0.2, 0.8)
    assert plotting.plot_xci_heatmap(result, norm=given).images[0].norm is given
    assert (
        plotting.plot_xci_heatmap(result, cmap="viridis").images[0].cmap.name.startswith("viridis")
    )
    plt.close("all")


@pytest.mark.parametrize("n_groups", [6, 12])
def test_heatmap_annotations_never_overlap(n_groups):
    rng = np.random.default_rng(n_groups)
    n = 150 * n_groups
    bands = np.array(
        [f"{s}|{a}" for s in ("F", "M") for a in ("<40", "40-59", "60-74", "75+", "85+", "95+")]
    )
    group = rng.choice(bands[:n_groups], n)
    risk = rng.normal(size=n)
    time = rng.exponential(np.exp(-risk))
    res = sf.xci(time, np.ones(n, bool), group, risk, method="naive")
    ax = plotting.plot_xci_heatmap(res)
    ax.figure.canvas.draw()  # the constrained layout places the axes at draw time
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]
    assert len(boxes) == n_groups**2
    overlapping = [
        (i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])
    ]
    assert overlapping == []
    cell = ax.get_window_extent(renderer).width / n_groups
    assert all(box.width < cell and box.height < cell for box in boxes)  # each text inside its cell
    for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
        ticks = [t.get_window_extent(renderer) for t in labels]
        assert not any(ticks[i].overlaps(ticks[j]) for i in range(len(ticks)) for j in range(i))
    assert ax.figure.get_figwidth() * ax.figure.dpi <= 1400  # fits a 1280-1400 px screen
    if n_groups == 12:
        assert "intervals omitted: 12 groups" in ax.get_xlabel()
        assert all("\n" not in t.get_text() for t in ax.texts)
    else:
        assert all(t.get_text().count("\n[") == 1 for t in ax.texts)  # interval on a second line
    plt.close("all")


@pytest.mark.parametrize(
    "role, named, generic",
    [
        (
            "negative",
            (
                "negatives of M",
                "conditional xAUC of a negative of M: share of positives of F scored above it",
            ),
            (
                "negatives of b",
                "conditional xAUC of a negative of b: share of positives of a scored above it",
            ),
        ),
        (
            "positive",
            (
                "positives of F",
                "conditional xAUC of a positive of F: share of negatives of M scored below it",
            ),
            (
                "positives of a",
                "conditional xAUC of a positive of a: share of negatives of b scored below it",
            ),
        ),
    ],
)
def test_conditional_xauc_labels_follow_the_role(role, named, generic):
    res = sf.xauc(
        [1, 1, 0, 0, 1, 1, 0, 0], ["F"] * 4 + ["M"] * 4, [0.9, 0.8, 0.1, 0.5, 0.7, 0.6, 0.4, 0.2]
    )
    values = sf.conditional_xauc(res, "F", "M", role=role)
    ax = plotting.plot_conditional_xauc(values)  # the role and the groups travel with the Series
    assert (ax.get_ylabel(), ax.get_xlabel()) == named
    assert f"per {role}" in ax.get_title()
    assert (
        sum(p.get_height() for p in ax.containers[0]) == 2
    )  # NaN rows (outside the role) are left out
    assert ax.lines[0].get_xdata()[0] == pytest.approx(
        res.matrix.loc["F", "M"]
    )  # the mean is xAUC(F, M)
    assert (plotting.plot_conditional_xauc(values.dropna(), role=role).get_ylabel()) == named[0]
    explicit = plotting.plot_conditional_xauc({"x": values.dropna().to_numpy()}, role=role)
    assert (explicit.get_ylabel(), explicit.get_xlabel()) == generic
    other = "positive" if role == "negative" else "negative"
    with pytest.raises(
        ValueError, match=f"role='{other}', but the values were computed with role='{role}'"
    ):
        plotting.plot_conditional_xauc(values, role=other)
    plt.close("all")


def test_conditional_xauc_default_role_and_mixed_inputs():
    res = sf.xauc(
        [1, 1, 0, 0, 1, 1, 0, 0], ["F"] * 4 + ["M"] * 4, [0.9, 0.8, 0.1, 0.5, 0.7, 0.6, 0.4, 0.2]
    )
    # plain arrays: the default of conditional_xauc, role="negative"
    assert plotting.plot_conditional_xauc(pd.Series([0.2, 0.9])).get_ylabel() == "negatives of b"
    # two pairs of groups in one figure: generic words
    both = {
        "F vs M": sf.conditional_xauc(res, "F", "M"),
        "M vs F": sf.conditional_xauc(res, "M", "F"),
    }
    assert plotting.plot_conditional_xauc(both).get_ylabel() == "negatives of b"
    with pytest.raises(ValueError, match="mix the roles"):
        plotting.plot_conditional_xauc(
            {
                "n": sf.conditional_xauc(res, "F", "M"),
                "p": sf.conditional_xauc(res, "F", "M", role="positive"),
            }
        )
    with pytest.raises(ValueError, match="role must be one of"):
        plotting.plot_conditional_xauc(pd.Series([0.5]), role="both")
    plt.close("all")


def test_censoring_curves_say_what_they_are(result, sample):
    ax = plotting.plot_censoring_curves(result, time_unit="days")
    assert ax.get_xlabel() == "time (days)"
    assert ax.get_title() == "Probability of remaining uncensored, per group"
    assert ax.get_ylabel() == "P(still uncensored), K_g(t)"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[-2:] == ["K = 0.1 (positivity warning)", "tau = 1.5 days"]
    pooled = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5, censoring="pooled")
    ax = plotting.plot_censoring_curves(pooled, tau=1.0, time_unit="years")
    assert ax.get_title() == "Probability of remaining uncensored (pooled)"
    assert ax.get_ylabel() == "P(still uncensored), K(t)"
    assert [t.get_text() for t in ax.get_legend().get_texts()][-1] == "tau = 1 years"
    with pytest.raises(TypeError, match="time_unit must be a string"):
        plotting.plot_censoring_curves(result, time_unit=1)
    plt.close("all")


def _hatched(ax):
    from matplotlib.patches import Rectangle

    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch() == "///"]


def test_flagged_cells_are_marked(result):
    ax = plotting.plot_xci_heatmap(result, min_pairs=10**6)
    assert len(_hatched(ax)) == 4 and all(
        t.get_text().split("\n")[0].endswith("†") for t in ax.texts
    )
    assert (
        "† hatched: < 1000000 comparable pairs" in ax.get_xlabel()
    )  # the rules that apply, from the reasons
    # by default nothing is flagged in this sample: no mark, no note
    ax = plotting.plot_xci_heatmap(result)
    assert _hatched(ax) == [] and "†" not in "".join(t.get_text() for t in ax.texts)
    assert "hatched" not in ax.get_xlabel()
    # a given table marks exactly its flagged cells (row a, column b); False marks nothing
    flags = sf.small_sample_flags(result).assign(flagged=[False, True, False, False])
    ax = plotting.plot_xci_heatmap(result, flags=flags)
    (patch,) = _hatched(ax)
    assert patch.get_xy() == (0.5, -0.5)  # column 1 (M), row 0 (F)
    assert [t.get_text().split("\n")[0].endswith("†") for t in ax.texts] == [
        False,
        True,
        False,
        False,
    ]
    assert "† hatched: flagged in the given table" in ax.get_xlabel()
    # a table with reasons gives the rules, not a generic word (issue 14 audit)
    given = sf.small_sample_flags(result, min_events=10**4)
    assert (
        "† hatched: < 10000 events in a, < 10000 members in b"
        in plotting.plot_xci_heatmap(result, flags=given).get_xlabel()
    )
    assert _hatched(plotting.plot_xci_heatmap(result, flags=False, min_pairs=10**6)) == []
    with pytest.raises(ValueError, match=r"missing \['flagged'\]"):
        plotting.plot_xci_heatmap(result, flags=flags[["a", "b"]])
    with pytest.raises(ValueError, match=r"groups \['X'\] are not groups of the result"):
        plotting.plot_xci_heatmap(result, flags=flags.assign(b="X"))
    with pytest.raises(TypeError, match="flags must be a DataFrame"):
        plotting.plot_xci_heatmap(result, flags=[("F", "M")])
    plt.close("all")


def test_flag_hatch_contrasts_with_its_cell():
    """The hatch is drawn in white over a dark cell and in black over a light one, like the cell
    text."""
    res = sf.xci(
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 1, 1, 1, 1, 1, 1, 0],
        list("abababab"),
        [8, 7, 6, 5, 4, 3, 2, 1],
        method="naive",
    )  # every cell 1.0 (dark blue) and flagged
    ax = plotting.plot_xci_heatmap(res)
    assert all(p.get_edgecolor()[:3] == (1.0, 1.0, 1.0) for p in _hatched(ax))
    assert {t.get_color() for t in ax.texts} == {"white"}
    ax = plotting.plot_xci_heatmap(res, vmin=0.0, vmax=10.0)  # 1.0 is now a light colour
    assert all(p.get_edgecolor()[:3] == (0.0, 0.0, 0.0) for p in _hatched(ax))
    plt.close("all")


def test_heatmap_scale_errors(result):
    from matplotlib.colors import Normalize

    with pytest.raises(ValueError, match="either norm or vmin/vmax"):
        plotting.plot_xci_heatmap(result, norm=Normalize(0, 1), vmin=0.1)
    with pytest.raises(ValueError, match="vmax must be greater than vmin"):
        plotting.plot_xci_heatmap(result, vmin=0.8, vmax=0.2)
    with pytest.raises(TypeError, match="norm must be a matplotlib.colors.Normalize"):
        plotting.plot_xci_heatmap(result, norm=(0, 1))
    # limits that leave out 0.5: a linear scale
    norm = plotting.plot_xci_heatmap(result, vmin=0.6, vmax=0.9).images[0].norm
    assert type(norm) is Normalize and (norm.vmin, norm.vmax) == (0.6, 0.9)
    plt.close("all")


def test_risk_densities_take_the_package_order_and_helpers_have_a_home():
    """Issue 19 audit, item E: plot_risk_densities(risk, event, group) reversed the package order
    (time, event, group, risk); other modules imported plotting's private _axes/_legend/_literal."""
    import inspect
    import pathlib

    assert list(inspect.signature(plotting.plot_risk_densities).parameters)[:3] == [
        "event",
        "group",
        "risk",
    ]
    root = pathlib.Path(sf.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "plotting import _" not in text, path


def test_a_cell_with_standard_error_0_shows_no_zero_width_interval():
    """Issue 14 audit: a cell at exactly 1 showed "[1.000, 1.000]", read as precision."""
    rng = np.random.default_rng(5)
    group = np.array(["a"] * 200 + ["b"] * 200)
    risk = rng.normal(size=400) + 10.0 * (group == "a")
    time = rng.exponential(np.exp(-rng.normal(size=400) - 5.0 * (group == "a")))
    res = sf.xci(time, np.ones(400, bool), group, risk, method="naive")
    ax = plotting.plot_xci_heatmap(res)
    texts = [t.get_text() for t in ax.texts]
    assert texts[1] == "1.000†\n(SE 0)" and texts[2] == "0.000†\n(SE 0)"
    assert "[" in texts[0] and "standard error 0 (no variance estimate)" in ax.get_xlabel()


def test_very_long_labels_are_cut_in_figures_and_kept_in_tables(sample, tmp_path):
    """A 10,000-character group label and model name: write_report failed with a MemoryError inside
    matplotlib (the figure was sized for the label); figures now cut labels to MAX_LABEL characters
    with an ellipsis, and the tables keep them whole."""
    from survfair._present.plots.base import MAX_LABEL, MAX_TEXT

    long = "L" * 10_000
    frame = sample.assign(group=np.where(sample["group"] == "F", long, "M"), noise=-sample["risk"])
    res = sf.xci("time", "event", "group", "risk", data=frame, tau=1.5)
    texts = []
    ax = plotting.plot_xci_heatmap(res)
    texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    ax = plotting.plot_xci_difference(
        res
    )  # the difference view drew the whole label (found reading the change)
    texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    ax = plotting.plot_risk_densities("event", "group", "risk", data=frame)
    texts += [t.get_text() for t in ax.get_legend().get_texts()]
    ax = plotting.plot_censoring_curves(res)
    texts += [t.get_text() for t in ax.get_legend().get_texts()]
    comparison = sf.compare(
        "time", "event", "group", {long: "risk", "noise": "noise"}, data=frame, tau=1.5
    )
    ax = plotting.plot_forest(comparison)
    texts += [t.get_text() for t in ax.get_yticklabels() + ax.get_legend().get_texts()]
    figure_width = ax.figure.get_size_inches()[0]
    plt.close("all")
    assert texts and max(len(t) for t in texts) <= MAX_TEXT
    assert any(t.startswith("L" * (MAX_LABEL - 1) + "\u2026") for t in texts)
    assert not any("L" * MAX_LABEL in t for t in texts)
    assert figure_width < 20
    report = sf.write_report(res, tmp_path / "long.html")
    assert long in report.read_text()  # the tables keep the full label


# -- differences on a diverging scale (issue 32.4) -------------------------------------------------
def test_difference_heatmap_of_each_pair(result, tmp_path):
    """xCI − xCIᵀ: the Δbetween of every pair, centred on 0, the diagonal empty."""
    from matplotlib.colors import TwoSlopeNorm

    ax = plotting.plot_xci_difference(result)
    image = ax.images[0]
    assert isinstance(image.norm, TwoSlopeNorm) and image.norm.vcenter == 0.0
    assert image.norm.vmin == -image.norm.vmax
    delta = sf.delta_between(result, "F", "M").value
    assert abs(image.norm.vmax) >= abs(delta) and image.norm.vmax == pytest.approx(
        max(0.05, np.ceil(abs(delta) / 0.05) * 0.05)
    )
    texts = [t.get_text() for t in ax.texts]
    assert texts == [
        f"{100 * delta:+.1f}".replace("-", "\u2212"),
        f"{-100 * delta:+.1f}".replace("-", "\u2212"),
    ]
    data = image.get_array()
    assert data.mask[0, 0] and data.mask[1, 1]  # the diagonal is 0 by definition: not drawn
    assert ax.get_ylabel() == "a: group of the earlier event"
    _png_ok(ax, tmp_path)


def test_difference_heatmap_against_a_reference(result, sample):
    other = sf.xci("time", "event", "group", "time", data=sample, tau=1.5)
    fig, ax = plt.subplots()
    assert plotting.plot_xci_difference(result, other, ax=ax, limit=0.5) is ax
    expected = result.values - other.values
    np.testing.assert_allclose(ax.images[0].get_array().data, expected)
    assert ax.images[0].norm.vmax == 0.5 and len(ax.texts) == 4
    given = pd.DataFrame(expected, index=["F", "M"], columns=["F", "M"])
    ax = plotting.plot_xci_difference(given, None)  # already a difference: drawn as given
    np.testing.assert_allclose(ax.images[0].get_array().data, expected)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda r: plotting.plot_xci_difference(r.matrix.iloc[:, :1]), ValueError, "square matrix"),
        (
            lambda r: plotting.plot_xci_difference([[0.5]]),
            TypeError,
            "must be an XCIResult, an XAUCResult or a square",
        ),
        (
            lambda r: plotting.plot_xci_difference(
                r, r.matrix.rename(index={"F": "X"}, columns={"F": "X"})
            ),
            ValueError,
            "reference has the groups",
        ),
        (lambda r: plotting.plot_xci_difference(r, limit=0), ValueError, "limit must be > 0"),
    ],
    ids=["not square", "not a matrix", "other groups", "limit 0"],
)
def test_difference_heatmap_errors(result, call, error, message):
    with pytest.raises(error, match=message):
        call(result)


def _groups_result(n_groups, per_group=4, **options):
    rng = np.random.default_rng(n_groups)
    n = per_group * n_groups
    group = np.repeat([f"group {k}" for k in range(n_groups)], per_group)
    risk = rng.normal(size=n)
    t, c = rng.exponential(np.exp(-risk)), rng.exponential(5.0, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.UndefinedXCIWarning)
        return sf.xci(np.minimum(t, c), t <= c, group, risk, **options)


def _overlapping(labels, renderer) -> bool:
    boxes = [t.get_window_extent(renderer) for t in labels]
    return any(boxes[i].overlaps(boxes[j]) for i in range(len(boxes)) for j in range(i))


@pytest.mark.parametrize("n_groups", [51, 300])
def test_heatmap_above_the_threshold_is_drawn_plain(n_groups):
    """Issue 43.4: above PLAIN_FIGURE_GROUPS one image, no text per cell, one hatched region over
    exactly the flagged cells, and thinned group labels that do not overlap."""
    from matplotlib.patches import PathPatch

    from survfair._present.plots.figures import PLAIN_FIGURE_GROUPS

    assert n_groups > PLAIN_FIGURE_GROUPS
    res = _groups_result(n_groups, method="naive", ci=None)
    flags = sf.small_sample_flags(res)
    ax = plotting.plot_xci_heatmap(res, flags=flags)
    assert len(ax.texts) == 0 and len(ax.images) == 1
    (region,) = ax.patches
    assert isinstance(region, PathPatch) and region.get_hatch() == "///"
    centres = np.array([(j, i) for i in range(n_groups) for j in range(n_groups)], dtype=float)
    inside = region.get_path().contains_points(centres)
    assert np.array_equal(inside, flags["flagged"].to_numpy(dtype=bool))
    # a table in another order marks the same cells
    shuffled = plotting.plot_xci_heatmap(res, flags=flags.sample(frac=1.0, random_state=0))
    assert np.array_equal(shuffled.patches[0].get_path().vertices, region.get_path().vertices)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
        assert 10 <= len(labels) <= n_groups and not _overlapping(labels, renderer)
    assert "no values drawn" in ax.get_xlabel()
    if n_groups == 300:
        assert "one group in" in ax.get_xlabel() and len(ax.get_xticklabels()) < 100
    assert ax.figure.get_figwidth() * ax.figure.dpi <= 1400
    difference = plotting.plot_xci_difference(res)
    difference.figure.canvas.draw()
    renderer = difference.figure.canvas.get_renderer()
    assert len(difference.texts) == 0
    for labels in (difference.get_xticklabels(), difference.get_yticklabels()):
        assert not _overlapping(labels, renderer)
    plt.close("all")


def test_censoring_curves_of_many_groups_share_one_legend_entry():
    res = _groups_result(51, per_group=12, tau=0.5, ci=None)
    ax = plotting.plot_censoring_curves(res)
    assert len(ax.lines) == 51 + 2  # the groups, K = 0.1 and tau
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[0] == "K_g(t), one line per group (51, not labelled)" and len(texts) == 3
    plt.close("all")
