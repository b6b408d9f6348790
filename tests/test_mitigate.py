"""Tests of survfair.mitigate: group shifts, monotone maps, the frontier and the CLI subcommand."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from sksurv.nonparametric import CensoringDistributionEstimator
from sksurv.util import Surv

import survfair
from survfair import EstimatorSettings
from survfair.cli import main
from survfair.mitigate import frontier, group_monotone, group_shift, plot_frontier
from survfair.mitigate._problem import ShiftProblem
from survfair.mitigate._search import exact_line_search, make_objective

pytestmark = pytest.mark.filterwarnings("ignore::survfair.PositivityWarning")

OBJECTIVES = ["abs_delta_between", "min_xci", "min_utility", "nash_welfare"]


# -- log-normal model with a closed-form optimum --------------------------------------------------
# log T = B0 + B1 G + B2 Z + eps, Z ~ N(0, SZ^2), eps ~ N(0, SE^2); score risk = -(C1 G + C2 Z), so
# the score under-weights the group effect. With group 1 shifted by d, for a pair (i earlier,
# j later) the score difference U = r_i - r_j and D = log T_i - log T_j are jointly normal, and
# xCI = P(U > 0, D < 0) / P(D < 0) (Proposition 5.1 of Wang et al. 2026, exact bivariate-normal
# form).
B0, B1, B2, SZ, SE = 0.0, 0.5, 1.0, 1.0, 1.0
C1, C2 = -0.3, 1.0


def closed_form_cell(d: float, earlier: int) -> float:
    """xCI_{earlier, other} of the population with group 1's risk shifted by d."""
    sign = 1 if earlier == 0 else -1
    mean_u = sign * (C1 - d)
    mean_d = -sign * B1
    var_u, var_d = 2 * C2**2 * SZ**2, 2 * B2**2 * SZ**2 + 2 * SE**2
    cov_ud = -C2 * B2 * 2 * SZ**2
    # P(U > 0, D < 0) = P(-U < 0, D < 0)
    joint = stats.multivariate_normal(
        mean=[-mean_u, mean_d], cov=[[var_u, -cov_ud], [-cov_ud, var_d]]
    ).cdf([0, 0])
    return joint / stats.norm.cdf(-mean_d / np.sqrt(var_d))


def closed_form_offset() -> float:
    return optimize.brentq(
        lambda d: closed_form_cell(d, 0) - closed_form_cell(d, 1), -5, 5, xtol=1e-12
    )


def simulate(n: int, seed: int, censoring_mean: float | None = 6.0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    z = rng.normal(0, SZ, n)
    t = np.exp(B0 + B1 * g + B2 * z + rng.normal(0, SE, n))
    risk = -(C1 * g + C2 * z)
    if censoring_mean is None:
        return t, np.ones(n, bool), g, risk
    c = rng.exponential(censoring_mean, n)
    return np.minimum(t, c), t <= c, g, risk


# -- O(n^2) brute-force twin (tests only) ------------------------------------------------------


def brute_matrix(time, event, codes, risk, n_groups, tol, weights=None):
    """xCI matrix by enumerating every pair (scikit-survival's conventions); O(n^2) memory, tests
    only."""
    comparable = event[:, None] & (
        (time[:, None] < time[None, :]) | ((time[:, None] == time[None, :]) & ~event[None, :])
    )
    np.fill_diagonal(comparable, False)
    diff = risk[:, None] - risk[None, :]
    score = np.where(np.abs(diff) <= tol, 0.5, (diff > 0).astype(float))
    w = comparable * (1.0 if weights is None else weights)
    num = np.zeros((n_groups, n_groups))
    den = np.zeros((n_groups, n_groups))
    for a in range(n_groups):
        for b in range(n_groups):
            cell = np.ix_(codes == a, codes == b)
            num[a, b] = (w * score)[cell].sum()
            den[a, b] = w[cell].sum()
    return num / den, den


def ipcw_weights(time, event, codes, tau):
    """Pair weights 1 / (K_{g_i}(t_i) K_{g_j}(t_i)), 0 when t_i >= tau (scikit-survival's censoring
    KM per group)."""
    n_groups = codes.max() + 1
    k = np.empty((n_groups, len(time)))
    for g in range(n_groups):
        rows = codes == g
        k[g] = (
            CensoringDistributionEstimator()
            .fit(Surv.from_arrays(event[rows], time[rows]))
            .predict_proba(time)
        )
    own = k[codes, np.arange(len(time))]
    with np.errstate(divide="ignore"):
        weights = 1.0 / (own[:, None] * k[codes].T)
    return np.where(time[:, None] < tau, weights, 0.0)


def objective_value(matrix, weights, name, alpha=1.0, beta=1.0):
    """Objective in reported units (max|Δbetween|, min cross cell, min utility, product of
    utilities)."""
    off = ~np.eye(2, dtype=bool)
    if name == "abs_delta_between":
        return abs(matrix[0, 1] - matrix[1, 0])
    if name == "min_xci":
        return matrix[off].min()
    u = np.array(
        [alpha * matrix[0, 1] + beta * matrix[1, 0], alpha * matrix[1, 0] + beta * matrix[0, 1]]
    )
    return u.min() if name == "min_utility" else u.prod()


def small_data(kind: str, seed: int = 3, n: int = 36):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    time = rng.integers(1, 25, n).astype(float)  # tied times too
    event = rng.random(n) < 0.7
    if kind == "integer":  # many tied risks; tied_tol 0.25 makes the tie plateaus wide
        risk, tol = rng.integers(0, 6, n).astype(float) + 1.0 * g, 0.25
    else:
        risk, tol = rng.normal(size=n) + 0.7 * g, 1e-8
    return time, event, g, risk, tol


# -- group shift: exactness ---------------------------------------------------------------------


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("kind", ["continuous", "integer"])
@pytest.mark.parametrize("method", ["naive", "ipcw"])
def test_exact_search_equals_enumeration_of_all_breakpoints(objective, kind, method):
    time, event, g, risk, tol = small_data(kind)
    alpha, beta = 1.0, 0.4
    tau = 20.0 if method == "ipcw" else None
    weights_fn = ipcw_weights(time, event, g, tau) if method == "ipcw" else None
    # every breakpoint: offsets of group 1 where a cross pair's score can change are
    # r_0 - r_1 +- tol;
    # one offset inside every plateau between consecutive breakpoints (and beyond both ends)
    u = np.subtract.outer(risk[g == 0], risk[g == 1]).ravel()
    points = np.unique(np.concatenate([u - tol, u + tol]))
    candidates = np.concatenate([(points[1:] + points[:-1]) / 2, [points[0] - 1, points[-1] + 1]])
    best = None
    for d in candidates:
        matrix, _ = brute_matrix(time, event, g, risk + d * g, 2, tol, weights_fn)
        value = objective_value(matrix, None, objective, alpha, beta)
        if objective == "abs_delta_between":
            value = -value
        best = value if best is None else max(best, value)
    fitted = group_shift(
        time,
        event,
        g,
        risk,
        objective=objective,
        alpha=alpha,
        beta=beta,
        method=method,
        tied_tol=tol,
        tau=tau,
    )
    reported = (
        -fitted.objective_after if objective == "abs_delta_between" else fitted.objective_after
    )
    assert fitted.optimality_gap == 0.0
    assert reported == pytest.approx(best, abs=1e-12)
    # the chosen offset really attains it (brute-force twin on the transformed scores)
    matrix, _ = brute_matrix(time, event, g, fitted.transform(risk, g), 2, tol, weights_fn)
    attained = objective_value(matrix, None, objective, alpha, beta)
    assert (-attained if objective == "abs_delta_between" else attained) == pytest.approx(
        best, abs=1e-12
    )
    # and the plateau around it has the same value at both ends
    low, high = fitted.plateau
    assert low <= fitted.offsets.iloc[1] <= high


def test_exhausted_budget_reports_a_valid_optimality_gap():
    time, event, g, risk, tol = small_data("continuous", seed=5, n=60)
    exact = group_shift(time, event, g, risk, objective="min_utility", method="naive", beta=0.3)
    cheap = group_shift(
        time, event, g, risk, objective="min_utility", method="naive", beta=0.3, max_evaluations=10
    )
    assert exact.optimality_gap == 0.0
    assert cheap.optimality_gap > 0
    assert cheap.objective_after <= exact.objective_after + 1e-15
    assert exact.objective_after <= cheap.objective_after + cheap.optimality_gap + 1e-15


@pytest.mark.parametrize("objective", ["abs_delta_between", "min_xci"])
def test_fitted_offset_matches_closed_form(objective):
    """Two groups, IPCW with 30% censoring: the fitted offset estimates d* equalising the cross
    cells."""
    dstar = closed_form_offset()
    assert closed_form_cell(dstar, 0) == pytest.approx(closed_form_cell(dstar, 1), abs=1e-10)
    time, event, g, risk = simulate(4000, seed=11)
    fitted = group_shift(time, event, g, risk, objective=objective)
    # Monte-Carlo sd of the fitted offset is 0.048 at n = 1000 (30 replicates), so about 0.024 at
    # n = 4000
    assert fitted.offsets.iloc[1] == pytest.approx(dstar, abs=0.1)
    assert abs(dstar) > 0.4  # the unadjusted score is far from fair: the test can fail
    cells = fitted.to_frame().query("sample == 'fit' and metric == 'xci'")
    cross = cells[cells["a"] != cells["b"]]["after"].to_numpy()
    assert cross == pytest.approx([closed_form_cell(dstar, 0)] * 2, abs=0.03)


@pytest.mark.slow
def test_fitted_offset_is_consistent_monte_carlo():
    dstar = closed_form_offset()
    estimates = []
    for seed in range(100):
        time, event, g, risk = simulate(2000, seed=1000 + seed)
        problem = ShiftProblem(
            survfair._core.validation.check_survival_inputs(time, event, g, risk)[0],
            EstimatorSettings.checked("ipcw", None, "group", 1e-8, False),
        )
        goal = make_objective("abs_delta_between", 1.0, 1.0, problem.weights)
        estimates.append(
            exact_line_search(problem, goal, np.zeros(2), 1, max_evaluations=3000).offset
        )
    estimates = np.array(estimates)
    se = estimates.std(ddof=1) / np.sqrt(len(estimates))
    assert abs(estimates.mean() - dstar) < 4 * se + 1e-3


def test_within_group_cells_are_invariant_exactly():
    time, event, g, risk = simulate(800, seed=2)
    fitted = group_shift(time, event, g, risk, objective="nash_welfare")
    before, after = fitted.results["fit"]
    for k in range(2):
        for field in ("comparable", "concordant", "tied_risk", "numerator", "denominator"):
            assert (
                getattr(before.pair_counts, field)[k, k] == getattr(after.pair_counts, field)[k, k]
            )
    within = fitted.to_frame().query("metric == 'delta_within' or (metric == 'xci' and a == b)")
    assert (within["change"] == 0).all()


@settings(max_examples=25, deadline=None)
@given(
    offsets=st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3),
    seed=st.integers(0, 10_000),
)
def test_any_group_shift_leaves_within_cells_unchanged(offsets, seed):
    rng = np.random.default_rng(seed)
    n = 40
    g = rng.integers(0, 3, n)
    g[:3] = [0, 1, 2]
    time = rng.exponential(size=n)
    event = rng.random(n) < 0.8
    risk = rng.normal(size=n)
    shifted = risk + np.asarray(offsets)[g]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = survfair.xci(time, event, g, risk, method="naive")
        after = survfair.xci(time, event, g, shifted, method="naive")
    for k in range(3):
        assert before.pair_counts.numerator[k, k] == after.pair_counts.numerator[k, k]
        assert before.pair_counts.denominator[k, k] == after.pair_counts.denominator[k, k]


def test_three_groups_coordinatewise_optimal_and_within_invariant():
    rng = np.random.default_rng(4)
    n = 240
    g = rng.integers(0, 3, n)
    z = rng.normal(size=n)
    time = np.exp(0.4 * g + z + rng.normal(size=n))
    event = np.ones(n, bool)
    risk = -z
    fitted = group_shift(time, event, g, risk, objective="abs_delta_between", method="naive")
    assert fitted.offsets.iloc[0] == 0.0
    assert np.isnan(fitted.optimality_gap)
    assert fitted.objective_after < fitted.objective_before / 3
    # no single group's offset can improve the objective (exact line search from the optimum)
    sample = survfair._core.validation.check_survival_inputs(time, event, g, risk)[0]
    problem = ShiftProblem(sample, EstimatorSettings.checked("naive", None, "group", 1e-8, False))
    goal = make_objective("abs_delta_between", 1.0, 1.0, problem.weights)
    for k in (1, 2):
        line = exact_line_search(problem, goal, fitted.offsets.to_numpy(), k, max_evaluations=3000)
        assert -line.value >= fitted.objective_after - 1e-15
    within = fitted.to_frame().query("metric == 'xci' and a == b")
    assert (within["change"] == 0).all()


# -- transform, options, fit_on ----------------------------------------------------------------


def test_transform_preserves_order_and_length_and_rejects_unknown_groups():
    time, event, g, risk = simulate(300, seed=7)
    labels = np.where(g == 1, "M", "F")
    fitted = group_shift(time, event, labels, risk, method="naive")
    order = np.random.default_rng(0).permutation(300)
    out = fitted.transform(pd.Series(risk[order], index=order), labels[order])
    assert isinstance(out, np.ndarray) and out.shape == (300,)
    np.testing.assert_array_equal(out, risk[order] + fitted.offsets.loc[labels[order]].to_numpy())
    frame = pd.DataFrame({"r": risk, "sex": labels})
    np.testing.assert_array_equal(
        fitted.transform("r", "sex", data=frame), risk + fitted.offsets[labels].to_numpy()
    )
    with pytest.raises(
        ValueError, match=r"group: labels \['X'\] were not seen when fitting.*rows \[1\]"
    ):
        fitted.transform([0.1, 0.2], ["F", "X"])
    with pytest.raises(ValueError, match="mismatched lengths"):
        fitted.transform([0.1, 0.2], ["F"])
    with pytest.raises(ValueError, match="risk contains NaN"):
        fitted.transform([np.nan], ["F"])
    monotone = group_monotone(time, event, labels, risk, method="naive")
    out = monotone.transform(risk[order], labels[order])
    assert out.shape == (300,)
    np.testing.assert_array_equal(out[labels[order] == "F"], risk[order][labels[order] == "F"])
    with pytest.raises(ValueError, match="were not seen when fitting"):
        monotone.transform([0.0], ["Z"])


@pytest.mark.parametrize(
    "alpha, beta, error, match",
    [
        (-1.0, 1.0, ValueError, "alpha must be a finite number >= 0"),
        (1.0, np.inf, ValueError, "beta must be a finite number >= 0"),
        (np.nan, 1.0, ValueError, "alpha must be a finite number >= 0"),
        (0.0, 0.0, ValueError, "must not both be 0"),
        ("1", 1.0, TypeError, "alpha must be a finite number"),
        (1.0, True, TypeError, "beta must be a finite number"),
    ],
    ids=["negative", "infinite", "nan", "both-zero", "string", "bool"],
)
@pytest.mark.parametrize("function", [group_shift, group_monotone], ids=["shift", "monotone"])
def test_invalid_alpha_beta_are_rejected(function, alpha, beta, error, match):
    time, event, g, risk = simulate(50, seed=1)
    with pytest.raises(error, match=match):
        function(time, event, g, risk, alpha=alpha, beta=beta)


def test_invalid_options_are_rejected():
    time, event, g, risk = simulate(60, seed=1)
    with pytest.raises(ValueError, match="objective must be one of"):
        group_shift(time, event, g, risk, objective="accuracy")
    with pytest.raises(ValueError, match="reference_group: group 7 does not occur"):
        group_shift(time, event, g, risk, reference_group=7)
    with pytest.raises(ValueError, match="only one group"):
        group_shift(time, event, np.zeros(60), risk)
    with pytest.raises(ValueError, match="fit_on selects every row"):
        group_shift(time, event, g, risk, fit_on=np.ones(60, bool))
    with pytest.raises(ValueError, match="one entry per row"):
        group_shift(time, event, g, risk, fit_on=np.ones(10, bool))
    with pytest.raises(ValueError, match="out of range"):
        group_shift(time, event, g, risk, fit_on=[0, 1, 99])
    with pytest.raises(TypeError, match="fit_on must be"):
        group_shift(time, event, g, risk, fit_on=np.linspace(0, 1, 60))
    with pytest.raises(ValueError, match="max_evaluations"):
        group_shift(time, event, g, risk, max_evaluations=0)
    with pytest.raises(ValueError, match="method must be one of"):
        group_shift(time, event, g, risk, method="uno")


def test_fit_on_mask_positions_and_separate_data_agree():
    time, event, g, risk = simulate(600, seed=8)
    mask = np.arange(600) % 2 == 0
    by_mask = group_shift(time, event, g, risk, fit_on=mask)
    by_positions = group_shift(time, event, g, risk, fit_on=np.flatnonzero(mask))
    frame = pd.DataFrame({"t": time, "e": event, "g": g, "r": risk})
    by_frame = group_shift("t", "e", "g", "r", data=frame[~mask], fit_on=frame[mask])
    by_tuple = group_shift(
        time[~mask],
        event[~mask],
        g[~mask],
        risk[~mask],
        fit_on=(time[mask], event[mask], g[mask], risk[mask]),
    )
    in_sample = group_shift(time[mask], event[mask], g[mask], risk[mask])
    for other in (by_positions, by_frame, by_tuple, in_sample):
        assert other.offsets.equals(by_mask.offsets)
    assert by_mask.n_fit == 300 and by_mask.n_evaluation == 300
    table = by_mask.to_frame()
    assert set(table["sample"]) == {"fit", "evaluation"}
    fit_rows = table[table["sample"] == "fit"].reset_index(drop=True)
    pd.testing.assert_frame_equal(fit_rows, in_sample.to_frame())
    # evaluation rows are the xCI of the held-out half with the fitted offsets
    held_out = survfair.xci(
        time[~mask], event[~mask], g[~mask], by_mask.transform(risk[~mask], g[~mask])
    )
    after = table.query("sample == 'evaluation' and metric == 'xci'")["after"].to_numpy()
    np.testing.assert_array_equal(after, held_out.values.ravel())
    pooled = table.query("sample == 'evaluation' and metric == 'overall'")["after"].iloc[0]
    assert pooled == pytest.approx(held_out.overall, abs=1e-12)
    with pytest.raises(ValueError, match="fit_on has no row of groups"):
        group_shift(
            time, event, g, risk, fit_on=(time[g == 0], event[g == 0], g[g == 0], risk[g == 0])
        )


def test_results_are_immutable():
    time, event, g, risk = simulate(200, seed=9)
    fitted = group_shift(time, event, g, risk, method="naive")
    with pytest.raises(AttributeError):
        fitted.offset_values = (0.0, 1.0)
    offsets, table = fitted.offsets, fitted.to_frame()
    offsets.iloc[1] = 99.0
    table.loc[:, "after"] = 0.0
    assert fitted.offsets.iloc[1] != 99.0
    assert (fitted.to_frame()["after"] != 0.0).any()
    assert "GroupShift(objective='abs_delta_between'" in repr(fitted)


# -- monotone maps ------------------------------------------------------------------------------


def test_group_monotone_matches_event_score_distributions_and_keeps_within_cells():
    time, event, g, risk = simulate(1500, seed=12)
    fitted = group_monotone(time, event, g, risk, method="naive", fit_on=np.arange(1500) < 750)
    knots = fitted.knots
    assert (np.diff(knots["risk_adjusted"].to_numpy()) > 0).all()
    # after the map, the event-risk quantiles of group 1 equal the reference's (fitting sample)
    fit = np.arange(1500) < 750
    adjusted = fitted.transform(risk, g)
    q = np.linspace(0.1, 0.9, 9)
    ref_q = np.quantile(risk[fit & event & (g == 0)], q)
    mapped_q = np.quantile(adjusted[fit & event & (g == 1)], q)
    assert mapped_q == pytest.approx(ref_q, abs=0.05)
    assert (fitted.to_frame().query("metric == 'xci' and a == b")["change"] == 0).all()
    # a shifted copy of a group is mapped back exactly by a shift
    time2, event2, g2 = (
        np.tile(time[g == 0], 2),
        np.tile(event[g == 0], 2),
        np.repeat([0, 1], (g == 0).sum()),
    )
    risk2 = np.concatenate([risk[g == 0], risk[g == 0] + 1.5])
    back = group_monotone(time2, event2, g2, risk2, method="naive").transform(risk2, g2)
    np.testing.assert_allclose(back[g2 == 1], risk[g == 0], atol=1e-12)


def test_group_monotone_ipcw_and_errors():
    time, event, g, risk = simulate(600, seed=13)
    fitted = group_monotone(time, event, g, risk, tau=10.0)
    assert fitted.settings.method == "ipcw"
    delta = fitted.to_frame().query("metric == 'delta_between'")
    assert abs(delta["after"].iloc[0]) < abs(delta["before"].iloc[0])
    risk_flat = risk.copy()
    risk_flat[g == 1] = 1.0
    with pytest.raises(ValueError, match="distinct risk value"):
        group_monotone(time, event, g, risk_flat)


# -- frontier -----------------------------------------------------------------------------------


def test_frontier_two_groups_agrees_with_xci_and_plots():
    time, event, g, risk = simulate(500, seed=14)
    curve = frontier(time, event, g, risk, n_points=15)
    table = curve.to_frame()
    assert curve.kind == "offsets" and curve.reference_group == 0 and curve.n_samples == 500
    assert json.loads(json.dumps(curve.to_dict()))["points"][0]["offset"] == table["offset"].iloc[0]
    assert {
        "offset",
        "offset[0]",
        "offset[1]",
        "overall",
        "delta_between",
        "abs_delta_between",
        "min_xci",
        "unadjusted",
    } <= set(table.columns)
    assert table["unadjusted"].sum() == 1
    for _, row in table.iloc[[0, 7, 14]].iterrows():
        res = survfair.xci(time, event, g, risk + row["offset"] * g)
        assert row["overall"] == pytest.approx(res.overall, abs=1e-12)
        assert row["delta_between"] == pytest.approx(res.values[0, 1] - res.values[1, 0], abs=1e-15)
        assert row["min_xci"] == pytest.approx(np.nanmin(res.values), abs=1e-15)
    # the cross cells sweep monotonically along the grid
    assert (np.diff(table["delta_between"].to_numpy()) <= 1e-15).all()
    fitted = group_shift(time, event, g, risk)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = plot_frontier(curve, chosen=fitted)
    assert ax.get_ylabel() == "pooled C (accuracy)"
    assert len(ax.lines) == 3
    ax2 = plot_frontier(table, fairness="min_xci", chosen=(0.7, 0.7), unadjusted=False)
    assert len(ax2.lines) == 2
    with pytest.raises(ValueError, match="fairness must be one of"):
        plot_frontier(table, fairness="auc")
    plt.close("all")


def test_frontier_lambda_path_three_groups():
    rng = np.random.default_rng(15)
    n = 150
    g = rng.integers(0, 3, n)
    z = rng.normal(size=n)
    time = np.exp(0.5 * g + z + rng.normal(size=n))
    path = frontier(time, np.ones(n, bool), g, -z, lambdas=[0.0, 10.0], method="naive")
    assert path.kind == "lambdas"
    table = path.to_frame()
    assert list(table["unadjusted"]) == [True, False, False]
    unadjusted, accurate, fair = table.iloc[0], table.iloc[1], table.iloc[2]
    assert accurate["overall"] >= unadjusted["overall"]
    assert fair["abs_delta_between"] <= accurate["abs_delta_between"]
    with pytest.raises(ValueError, match="lambdas must be"):
        frontier(time, np.ones(n, bool), g, -z, lambdas=[-1.0])


# -- CLI ----------------------------------------------------------------------------------------


def test_cli_writes_all_rows_in_order(tmp_path, capsys):
    time, event, g, risk = simulate(300, seed=16)
    frame = pd.DataFrame(
        {
            "t": time,
            "e": event.astype(int),
            "sex": np.where(g == 1, "M", "F"),
            "score": risk,
            "fit": np.arange(300) % 3 != 0,
            "id": np.arange(300)[::-1],
        }
    )
    data = tmp_path / "in.csv"
    frame.to_csv(data, index=False)
    out, report = tmp_path / "out.csv", tmp_path / "report.csv"
    code = main(
        [
            "mitigate",
            "--data",
            str(data),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "sex",
            "--risk",
            "score",
            "--objective",
            "min_xci",
            "--fit-column",
            "fit",
            "--reference",
            "M",
            "--output",
            str(out),
            "--report-table",
            str(report),
        ]
    )
    assert code == 0
    written = pd.read_csv(out)
    assert list(written["id"]) == list(frame["id"]) and len(written) == 300
    frame = pd.read_csv(data)  # what the CLI saw
    fitted = group_shift(
        "t",
        "e",
        "sex",
        "score",
        data=frame,
        objective="min_xci",
        fit_on=frame["fit"].to_numpy(),
        reference_group="M",
    )
    np.testing.assert_allclose(
        written["risk_adjusted"], fitted.transform("score", "sex", data=frame), rtol=1e-14
    )
    assert fitted.offsets["M"] == 0.0
    printed = capsys.readouterr().out
    assert "delta_between" in printed and "evaluation" in printed
    assert set(pd.read_csv(report)["sample"]) == {"fit", "evaluation"}


def test_cli_bad_input_prints_one_line_and_returns_2(tmp_path, capsys):
    data = tmp_path / "in.csv"
    pd.DataFrame({"t": [1.0, 2.0], "e": [1, 0], "g": ["a", "b"], "r": [0.1, 0.2]}).to_csv(
        data, index=False
    )
    for extra in (["--risk", "missing"], ["--risk", "r", "--tau", "-1"]):
        code = main(
            [
                "mitigate",
                "--data",
                str(data),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "g",
                *extra,
                "--output",
                str(tmp_path / "o.csv"),
            ]
        )
        assert code == 2
        err = capsys.readouterr().err
        assert err.startswith("survfair: error:") and err.count("\n") == 1
    code = main(
        [
            "mitigate",
            "--data",
            str(tmp_path / "nope.csv"),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "g",
            "--risk",
            "r",
            "--output",
            str(tmp_path / "o.csv"),
        ]
    )
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_masked_and_reindexed_side_inputs_are_refused():
    """Review finding: fit_on, offsets (and xauc_t's times) bypassed the gate."""
    time, event, g, risk = simulate(200, seed=3)
    hidden = np.ma.masked_array(np.arange(200) % 2 == 0, mask=np.arange(200) == 5)
    with pytest.raises(
        ValueError, match=r"fit_on contains masked \(missing\) values at rows \[5\]"
    ):
        group_shift(time, event, g, risk, fit_on=hidden)
    index = pd.Index(np.arange(200) + 1000)
    frame = pd.DataFrame({"t": time, "e": event, "g": g, "r": risk}, index=index)
    mask = pd.Series(np.arange(200) % 2 == 0, index=index[::-1])
    with pytest.raises(
        ValueError, match=r"data and fit_on carry pandas indexes that are not identical"
    ):
        group_shift("t", "e", "g", "r", data=frame, fit_on=mask)
    with pytest.raises(ValueError, match=r"offsets contains masked"):
        frontier(time, event, g, risk, offsets=np.ma.masked_array([0.0, 1.0, 2.0], mask=[0, 0, 1]))
    with pytest.raises(ValueError, match=r"times contains masked"):
        survfair.xauc_t(time, event, g, risk, np.ma.masked_array([0.3, 0.5, 0.7], mask=[0, 0, 1]))


def test_fit_on_names_a_boolean_column_of_data():
    """Issue 19: mitigate refused fit_on="column" even with data= given."""
    time, event, g, risk = simulate(300, seed=21)
    frame = pd.DataFrame(
        {"t": time, "e": event, "g": g, "r": risk, "train": np.arange(300) % 3 != 0}
    )
    by_name = group_shift("t", "e", "g", "r", data=frame, fit_on="train", tau=10.0)
    by_mask = group_shift(
        "t", "e", "g", "r", data=frame, fit_on=frame["train"].to_numpy(), tau=10.0
    )
    assert by_name.offsets.equals(by_mask.offsets)
    with pytest.raises(TypeError, match=r"fit_on: column 'r' must be boolean"):
        group_shift("t", "e", "g", "r", data=frame, fit_on="r")
    with pytest.raises(ValueError, match=r"fit_on: column 'nope' is not in data"):
        group_shift("t", "e", "g", "r", data=frame, fit_on="nope")


# -- reproducibility of the search (issue 19 audit, item C) ----------------------------------------


def _three_groups(n=240, seed=3):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    x = rng.normal(size=n) + 0.3 * g
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(2, n)
    return np.minimum(t, c), t <= c, g, x + rng.normal(scale=0.5, size=n)


def test_a_fresh_seed_is_recorded_and_repeats_the_fit():
    """Before: two identical calls with three groups gave different offsets (min_utility objective
    4.09858 vs 4.09816) and nothing recorded how to get either back."""
    time, event, g, risk = _three_groups()
    first = group_shift(time, event, g, risk, objective="min_utility", method="naive")
    assert isinstance(first.seed_entropy, int)
    again = group_shift(
        time,
        event,
        g,
        risk,
        objective="min_utility",
        method="naive",
        random_state=first.seed_entropy,
    )
    assert (
        again.offset_values == first.offset_values
        and again.objective_after == first.objective_after
    )
    assert first.to_dict()["seed_entropy"] == first.seed_entropy
    assert "fixed seed" not in first.search and "seeded by random_state" in first.search
    seeded = [
        group_shift(time, event, g, risk, objective="min_utility", method="naive", random_state=5)
        for _ in range(2)
    ]
    assert seeded[0].offset_values == seeded[1].offset_values and seeded[0].seed_entropy == 5
    two = group_shift(time, event, np.where(g == 2, 1, g), risk, method="naive")
    assert two.seed_entropy is None  # the exact two-group search draws nothing
    path = frontier(time, event, g, risk, method="naive", lambdas=[0.0, 1.0])
    repeat = frontier(
        time, event, g, risk, method="naive", lambdas=[0.0, 1.0], random_state=path.seed_entropy
    )
    pd.testing.assert_frame_equal(path.to_frame(), repeat.to_frame())


@pytest.mark.parametrize(
    "bad, error", [("a", TypeError), (-1, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_random_state_is_checked_with_two_groups_too(bad, error):
    """Before: a two-group group_shift / frontier never looked at random_state ("a", -1, 1.5
    accepted)."""
    time, event, g, risk = simulate(120, seed=1)
    with pytest.raises(error, match="random_state"):
        group_shift(time, event, g, risk, method="naive", random_state=bad)
    with pytest.raises(error, match="random_state"):
        frontier(time, event, g, risk, method="naive", n_points=3, random_state=bad)


def test_cli_mitigate_is_reproducible_by_default(tmp_path, capsys):
    """Before: survfair mitigate had no --seed, so two runs with three groups wrote different
    offsets."""
    time, event, g, risk = _three_groups()
    data = tmp_path / "in.csv"
    pd.DataFrame({"t": time, "e": event.astype(int), "g": g, "r": risk}).to_csv(data, index=False)
    written = []
    for name in ("a.csv", "b.csv"):
        code = main(
            [
                "mitigate",
                "--data",
                str(data),
                "--time",
                "t",
                "--event",
                "e",
                "--group",
                "g",
                "--risk",
                "r",
                "--method",
                "naive",
                "--objective",
                "min_utility",
                "--output",
                str(tmp_path / name),
            ]
        )
        assert code == 0
        written.append(pd.read_csv(tmp_path / name)["risk_adjusted"])
    pd.testing.assert_series_equal(written[0], written[1])
    frame = pd.read_csv(data)
    fitted = group_shift(
        "t", "e", "g", "r", data=frame, method="naive", objective="min_utility", random_state=0
    )
    np.testing.assert_allclose(
        written[0], fitted.transform("r", "g", data=frame), rtol=1e-12, atol=1e-12
    )
    capsys.readouterr()
    code = main(
        [
            "mitigate",
            "--data",
            str(data),
            "--time",
            "t",
            "--event",
            "e",
            "--group",
            "g",
            "--risk",
            "r",
            "--seed",
            "-1",
            "--output",
            str(tmp_path / "c.csv"),
        ]
    )
    assert code == 2 and "--seed must be >= 0" in capsys.readouterr().err


def test_seed_entropy_repeats_a_fit_seeded_by_a_spawned_seed_sequence():
    """Review: only the entropy of a spawned SeedSequence was recorded (its spawn_key dropped), so
    random_state=seed_entropy gave other offsets (-0.39281 vs -0.39306)."""
    rng = np.random.default_rng(0)
    n = 300
    g = rng.integers(0, 3, n)
    x = rng.normal(size=n) + 0.3 * g
    t, c = rng.exponential(np.exp(-x)), rng.exponential(2, n)
    risk = x + rng.normal(scale=0.5, size=n)
    child = np.random.SeedSequence(123).spawn(1)[0]
    first = group_shift(np.minimum(t, c), t <= c, g, risk, random_state=child, max_evaluations=60)
    again = group_shift(
        np.minimum(t, c), t <= c, g, risk, random_state=first.seed_entropy, max_evaluations=60
    )
    assert first.offset_values == again.offset_values


def _weighted_entry_cohort(n=400, seed=3):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], n)
    z = rng.normal(size=n)
    t = rng.exponential(np.exp(-z - 0.5 * (g == "a")))
    c = rng.exponential(2.0, n)
    e, t = t <= c, np.minimum(t, c)
    w = np.where(g == "a", rng.uniform(0.1, 5, n), rng.uniform(0.5, 1, n)) * np.where(z > 0, 3, 1)
    entry = np.minimum(rng.uniform(0, 1.0, n), 0.9 * t)
    return t, e, g, z + 0.2 * (g == "b"), w, entry


@pytest.mark.parametrize("method", ["naive", "ipcw"])
def test_group_shift_fits_with_entry_and_weights_what_the_table_reports(method):
    """entry= and weights= reached only the reported table: the shift was fitted to other cells
    (fitted |Δbetween| 0.149 before / 1e-5 after, the table 0.264 / 0.066, naive). Now the fitted
    objective is the table's, before and after, also on the fitting rows of a fit_on split."""
    t, e, g, r, w, entry = _weighted_entry_cohort()
    fitted = group_shift(t, e, g, r, method=method, tau=2.0, weights=w, entry=entry)
    row = fitted.to_frame().query("metric == 'delta_between'").iloc[0]
    assert fitted.objective_before == pytest.approx(abs(row["before"]), rel=1e-12)
    assert fitted.objective_after == pytest.approx(abs(row["after"]), rel=1e-12, abs=1e-12)
    assert fitted.objective_after < 0.01 < fitted.objective_before
    direct = survfair.xci(t, e, g, r, method=method, tau=2.0, weights=w, entry=entry, ci=None)
    assert row["before"] == pytest.approx(survfair.delta_between(direct, "a", "b").value, rel=1e-12)
    # a fit_on mask: the fitting rows keep their weights and entry times
    mask = np.arange(t.size) % 3 != 0
    split = group_shift(t, e, g, r, method=method, tau=2.0, weights=w, entry=entry, fit_on=mask)
    fit_row = split.to_frame().query("metric == 'delta_between' and sample == 'fit'").iloc[0]
    assert split.objective_before == pytest.approx(abs(fit_row["before"]), rel=1e-12)
    on_fit = survfair.xci(
        t[mask],
        e[mask],
        g[mask],
        r[mask],
        method=method,
        tau=2.0,
        weights=w[mask],
        entry=entry[mask],
        ci=None,
    )
    assert fit_row["before"] == pytest.approx(
        survfair.delta_between(on_fit, "a", "b").value, rel=1e-12
    )
    evaluation = (
        split.to_frame().query("metric == 'delta_between' and sample == 'evaluation'").iloc[0]
    )
    on_rest = survfair.xci(
        t[~mask],
        e[~mask],
        g[~mask],
        r[~mask],
        method=method,
        tau=2.0,
        weights=w[~mask],
        entry=entry[~mask],
        ci=None,
    )
    assert evaluation["before"] == pytest.approx(
        survfair.delta_between(on_rest, "a", "b").value, rel=1e-12
    )


def test_group_monotone_fits_the_weighted_event_distributions():
    """Integer case weights give the maps of repeated rows (the weights used to be ignored by the
    fit)."""
    t, e, g, r, _, _ = _weighted_entry_cohort()
    w = np.random.default_rng(0).integers(1, 4, t.size)
    weighted = group_monotone(t, e, g, r, method="naive", weights=w.astype(float))
    rows = np.repeat(np.arange(t.size), w)
    repeated = group_monotone(t[rows], e[rows], g[rows], r[rows], method="naive")
    knots, values = weighted.maps["b"]
    np.testing.assert_allclose(
        values, np.interp(knots, *repeated.maps["b"]), rtol=1e-10, atol=1e-12
    )
    unweighted = group_monotone(t, e, g, r, method="naive")
    assert not np.allclose(unweighted.transform(r, g), weighted.transform(r, g))


def test_row_options_as_arrays_with_separate_fitting_data_are_refused():
    t, e, g, r, w, entry = _weighted_entry_cohort()
    with pytest.raises(ValueError, match=r"^weights: given as arrays with separate fitting data"):
        group_shift(t, e, g, r, method="naive", weights=w, fit_on=(t, e, g, r))
    frame = pd.DataFrame({"t": t, "e": e, "g": g, "r": r, "w": w, "s": entry})
    fitted = group_shift(
        "t", "e", "g", "r", data=frame, method="naive", weights="w", entry="s", fit_on=frame
    )
    assert fitted.objective_after < fitted.objective_before
