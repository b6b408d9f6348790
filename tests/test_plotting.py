"""Plots render headless (Agg), return their Axes, and contain the expected artists."""

from __future__ import annotations

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
    ax = plotting.plot_risk_densities("risk", "event", "group", data=sample)
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
    _png_ok(ax, tmp_path)


def test_censoring_curves_needs_ipcw(sample):
    naive = sf.xci("time", "event", "group", "risk", data=sample, method="naive")
    with pytest.raises(ValueError, match="no censoring curves"):
        plotting.plot_censoring_curves(naive)
    with pytest.raises(TypeError, match="result must be an XCIResult"):
        plotting.plot_xci_heatmap(naive.matrix)


def test_forest(sample, tmp_path):
    comparison = sf.compare("time", "event", "group", {"risk": "risk", "noise": "time"}, data=sample, tau=1.5)
    ax = plotting.plot_forest(comparison)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert [b.get_label() for b in bars] == ["Δbetween (F, M)", "Δwithin (F, M)"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["risk", "noise"]
    assert ax.get_title() == "Differences between groups, per model"
    assert ax.get_xlabel().startswith("difference, percentage points\n> 0: the first group")
    assert any(line.get_xdata()[0] == 0.0 and line.get_xdata()[1] == 0.0 for line in ax.lines)  # the zero line
    x = bars[0].lines[0].get_xdata()
    np.testing.assert_allclose(x, 100 * comparison.table["delta_between[F,M]"].to_numpy())
    _png_ok(ax, tmp_path)
    with pytest.raises(ValueError, match="no column foo"):
        plotting.plot_forest(comparison.table, statistics=("foo",))


def test_xroc(tmp_path):
    from sklearn.metrics import roc_curve

    rng = np.random.default_rng(0)
    y, s = rng.random(100) < 0.4, rng.normal(size=100)
    fpr, tpr, thr = roc_curve(y, s)
    curves = {"xROC(a,b)": (fpr, tpr, thr), "xROC(b,a)": pd.DataFrame({"fpr": fpr, "tpr": tpr ** 2})}
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
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["xROC(F, M)", "xROC(M, F)", "xROC_1(F)",
                                                                   "xROC_0(M)"]
    # a mapping name -> XROCCurve, mixed with the other forms, equals plotting .to_frame()
    ax = plotting.plot_xroc({"F vs M": fm, "M vs F": mf.to_frame(), "sk": (fm.fpr, fm.tpr)}, color="k")
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
    return pd.DataFrame({"time": np.minimum(t, c), "event": t <= c, "group": group, "risk": risk,
                         "y": (t < 0.7).astype(int)})


@pytest.fixture
def drawn(monkeypatch):
    """Draw a figure with Agg; return every string the renderer was asked to write, as (text, ismath)."""
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
        ax = plotting.plot_risk_densities("risk", "event", "group", data=sample, title="$0-$50k")
        return ax, [f"{g}, event (n=" for g in LABELS] + [f"{g}, censored (n=" for g in LABELS]

    def censoring(sample):
        res = sf.xci("time", "event", "group", "risk", data=sample, tau=1.5)
        return plotting.plot_censoring_curves(res), [f"K_{g}(t)" for g in LABELS]

    def forest(sample):
        comparison = sf.compare("time", "event", "group", {"$0-$50k": "risk", "a$_$b": "time", "_hidden": "risk"},
                                data=sample, tau=1.5)
        return plotting.plot_forest(comparison, statistics=("delta_between",)), [
            *LABELS, "Δbetween ($0-$50k, _hidden)", "Δbetween (_hidden, a$_$b)"]

    def xroc(sample):
        curve = (np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.8, 1.0]))
        return plotting.plot_xroc({g: curve for g in LABELS}), list(LABELS)

    def conditional(sample):
        rng = np.random.default_rng(1)
        ax = plotting.plot_conditional_xauc({g: rng.random(20) for g in LABELS}, bins=5)
        return ax, [f"{g} (mean " for g in LABELS]

    return [pytest.param(f, id=f.__name__)
            for f in (heatmap, xauc_heatmap, densities, censoring, forest, xroc, conditional)]


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
    assert ax.get_ylabel() == "a: group of the positive" and ax.get_xlabel() == "b: group of the negative"
    assert ax.get_title() == "xAUC (DeLong)"
    colorbar = ax.figure.axes[-1]
    assert colorbar.get_ylabel() == "xAUC: share of pairs ranked correctly\nred < 0.5 (coin flip) < blue"
    g0, g1 = res.groups[0], res.groups[1]
    low, high = res.confidence_interval()
    # row i = positive's group, column j = negative's group; the DeLong interval under the value
    assert ax.texts[1].get_text() == (f"{res.matrix.loc[g0, g1]:.3f}\n"
                                      f"[{low.loc[g0, g1]:.3f}, {high.loc[g0, g1]:.3f}]")
    assert ax.texts[len(res.groups)].get_text().startswith(f"{res.matrix.loc[g1, g0]:.3f}\n")
    drawn(ax)


def test_heatmap_fits_long_labels_and_intervals(literal_sample):
    """A new figure is sized to its cells: interval texts inside their cells, long column labels slanted."""
    long = literal_sample.assign(group=literal_sample["group"].map(
        {"$0-$50k": "<script>alert(1)</script>", "a$_$b": "household income $0-$50k", "_hidden": "other"}))
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
    short = plotting.plot_xci_heatmap(sf.xci("time", "event", "group", "risk", data=literal_sample.assign(
        group=literal_sample["group"].map({"$0-$50k": "F", "a$_$b": "M", "_hidden": "X"})), tau=1.5))
    assert [t.get_rotation() for t in short.get_xticklabels()] == [0.0] * 3


def test_forest_legend_beside_the_points(sample):
    comparison = sf.compare("time", "event", "group", {"risk": "risk", "noise": "time"}, data=sample, tau=1.5)
    ax = plotting.plot_forest(comparison)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    assert ax.figure.get_window_extent(renderer).contains(*ax.get_legend().get_window_extent(renderer).p1)


def test_heatmaps_share_one_colour_scale_and_accept_overrides(result, sample):
    from matplotlib.colors import Normalize

    other = sf.xci("time", "event", "group", "time", data=sample, tau=1.5)
    norms = [plotting.plot_xci_heatmap(r).images[0].norm for r in (result, other)]
    assert [(n.vmin, n.vcenter, n.vmax) for n in norms] == [(0.0, 0.5, 1.0)] * 2
    assert plotting.plot_xci_heatmap(result, vmin=0.6, vmax=0.9).images[0].norm.vmin == 0.6
    given = Normalize(0.2, 0.8)
    assert plotting.plot_xci_heatmap(result, norm=given).images[0].norm is given
    assert plotting.plot_xci_heatmap(result, cmap="viridis").images[0].cmap.name.startswith("viridis")
    plt.close("all")


@pytest.mark.parametrize("n_groups", [6, 12])
def test_heatmap_annotations_never_overlap(n_groups):
    rng = np.random.default_rng(n_groups)
    n = 150 * n_groups
    bands = np.array([f"{s}|{a}" for s in ("F", "M") for a in ("<40", "40-59", "60-74", "75+", "85+", "95+")])
    group = rng.choice(bands[:n_groups], n)
    risk = rng.normal(size=n)
    time = rng.exponential(np.exp(-risk))
    res = sf.xci(time, np.ones(n, bool), group, risk, method="naive")
    ax = plotting.plot_xci_heatmap(res)
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]
    assert len(boxes) == n_groups**2
    overlapping = [(i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])]
    assert overlapping == []
    ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
    assert not any(ticks[i].overlaps(ticks[j]) for i in range(len(ticks)) for j in range(i))
    if n_groups == 12:
        assert "intervals omitted: 12 groups" in ax.get_xlabel()
    plt.close("all")


@pytest.mark.parametrize("role, words", [("negative", ("negatives", "share of positives scored above it")),
                                         ("positive", ("positives", "share of negatives scored below it"))])
def test_conditional_xauc_labels_follow_the_role(role, words):
    res = sf.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4, [0.9, 0.8, 0.1, 0.5, 0.7, 0.6, 0.4, 0.2])
    values = sf.conditional_xauc(res, "a", "b", role=role)
    ax = plotting.plot_conditional_xauc(values)  # the role travels with the Series
    assert ax.get_ylabel() == words[0] and ax.get_xlabel().endswith(words[1])
    explicit = plotting.plot_conditional_xauc({"x": values.dropna().to_numpy()}, role=role)
    assert explicit.get_ylabel() == words[0]
    plt.close("all")


def test_censoring_curves_say_what_they_are(result):
    ax = plotting.plot_censoring_curves(result, time_unit="days")
    assert ax.get_xlabel() == "time (days)"
    assert ax.get_title() == "Probability of remaining uncensored, per group"
    assert ax.get_ylabel() == "P(still uncensored), K_g(t)"
    plt.close("all")


def test_flagged_cells_are_marked(result):
    from matplotlib.patches import Rectangle

    ax = plotting.plot_xci_heatmap(result, min_pairs=10**6)
    hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch() == "///"]
    assert len(hatched) == 4 and all(t.get_text().split("\n")[0].endswith("†") for t in ax.texts)
    assert "hatched" in ax.get_xlabel()
    plt.close("all")
