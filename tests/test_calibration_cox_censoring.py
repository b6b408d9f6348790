"""calibration(censoring="cox", censoring_covariates=X): the IPCW Brier score with a Cox model of
the censoring hazard (issue 42), the weights from xci's censoring model.

A death by t contributes (1 - F)^2 / G(T_i- | x_i), someone still at risk after t F^2 / G(t | x_i),
a censoring by t 0; the score is the mean. G(t | x) = exp(-L_g(t) exp(gamma'(x - center))), L_g
lifelines' Breslow baseline of the group's stratum, T_i- its left limit. Checked against an
independent numpy computation from lifelines' own fit, and against riskRegression::Score
(tests/fixtures/cox_censoring), whose only difference is its Efron-type baseline.
"""

from __future__ import annotations

import lifelines
import numpy as np
import pandas as pd
import pytest
from test_cox_censoring_r import (
    TAUS,
    _csv,
    _lifelines,
    breslow_baseline,
    efron_baseline,
    g_by_hand,
    score_brier,
)

import survfair
from survfair._core.cox_censoring import CoxCensoringModel
from survfair._core.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def cohort():
    """Two groups; censoring driven by z (and by the group), events by x."""
    rng = np.random.default_rng(42)
    n = 400
    x, z = rng.normal(size=n), rng.normal(size=n)
    group = np.where(rng.random(n) < 0.45, "F", "M")
    t_event = rng.weibull(1.5, n) * np.exp(-0.5 * x) * 6
    t_cens = rng.exponential(9 * np.exp(-0.6 * z - 0.3 * (group == "F")))
    time = np.round(np.minimum(t_event, t_cens), 1) + 0.1  # ties between events and censorings
    event = t_event <= t_cens
    times = np.array([2.0, 4.0, 6.0])
    risks = np.column_stack([1 - np.exp(-((t / (6 * np.exp(-0.5 * x))) ** 1.5)) for t in times])
    return dict(
        time=time, event=event, group=group, x=np.column_stack([z, x]), times=times, F=risks
    )


def _by_hand(time, event, group, covariates, risks, times):
    """Each group's Brier score at each horizon, from lifelines' fit of the censoring model."""
    frame = pd.DataFrame(covariates, columns=["z", "x"])
    frame["time"], frame["cens"], frame["stratum"] = time, (~event).astype(float), group
    fit = lifelines.CoxPHFitter().fit(
        frame,
        "time",
        "cens",
        strata=["stratum"],
        fit_options={"precision": 1e-12, "r_precision": 1e-15, "max_steps": 200},
    )
    beta = fit.params_[["z", "x"]].to_numpy()
    lp = (covariates - fit._norm_mean[["z", "x"]].to_numpy()) @ beta
    out = {}
    for label in np.unique(group):
        hazard = fit.baseline_cumulative_hazard_[label]
        knots, values = hazard.index.to_numpy(float), hazard.to_numpy(float)
        rows = group == label

        def G(t, left=False, rows=rows):
            k = np.searchsorted(knots, t, side="left" if left else "right") - 1
            h = np.where(k >= 0, values[np.maximum(k, 0)], 0.0)
            return np.exp(-h * np.exp(lp[rows]))

        t_g, e_g = time[rows], event[rows]
        for h, t in enumerate(times):
            f = risks[rows, h]
            terms = np.where(
                e_g & (t_g <= t),
                (1 - f) ** 2 / G(t_g, left=True),
                np.where(t_g > t, f**2 / G(np.full(t_g.size, t)), 0.0),
            )
            out[(t, label)] = terms
    return out


def test_brier_equals_numpy_from_lifelines(cohort):
    res = survfair.calibration(
        cohort["time"], cohort["event"], cohort["group"], cohort["F"], cohort["times"],
        censoring="cox", censoring_covariates=cohort["x"], ci="analytic",
        brier_variance="conservative",
    )  # fmt: skip
    terms = _by_hand(
        cohort["time"], cohort["event"], cohort["group"], cohort["x"], cohort["F"], cohort["times"]
    )
    frame = res.to_frame().set_index(["time", "group", "statistic"])
    for (t, label), values in terms.items():
        row = frame.loc[(t, label, "brier")]
        assert row["estimate"] == pytest.approx(values.mean(), rel=1e-12, abs=0)
        # weights held fixed: SD of the terms / sqrt(n)
        se = values.std(ddof=1) / np.sqrt(values.size)
        assert row["se"] == pytest.approx(se, rel=1e-10, abs=0)
    for label in ("F", "M"):
        briers = [terms[(t, label)].mean() for t in cohort["times"]]
        span = cohort["times"][-1] - cohort["times"][0]
        integrated = np.trapezoid(briers, cohort["times"]) / span
        got = res.to_frame().query("statistic == 'integrated_brier' and group == @label")
        assert float(got["estimate"].iloc[0]) == pytest.approx(integrated, rel=1e-12, abs=0)
    assert isinstance(res.censoring_model, CoxCensoringModel)
    assert res.censoring == "cox"
    assert res.to_dict()["censoring_model"]["covariates"] == ["x0", "x1"]


@pytest.mark.filterwarnings("ignore::survfair.PositivityWarning")
def test_same_model_as_xci(cohort):
    """The censoring model is xci's: same coefficients and baselines."""
    risk = cohort["F"][:, 1]
    cal = survfair.calibration(
        cohort["time"], cohort["event"], cohort["group"], risk, 4.0,
        censoring="cox", censoring_covariates=cohort["x"], ci=None,
    )  # fmt: skip
    xres = survfair.xci(
        cohort["time"], cohort["event"], cohort["group"], risk,
        censoring="cox", censoring_covariates=cohort["x"], ci=None,
    )  # fmt: skip
    np.testing.assert_array_equal(
        cal.censoring_model.coefficients, xres.censoring_model.coefficients
    )
    for a, b in zip(
        cal.censoring_model.baseline_cumulative_hazard,
        xres.censoring_model.baseline_cumulative_hazard,
    ):
        np.testing.assert_array_equal(a, b)


def test_only_ipcw_statistics_change(cohort):
    """Observed risk (Kaplan-Meier), O/E, slope, intercept, ICI and GND do not use the censoring
    weights: censoring="cox" leaves them as censoring="group" gives them."""
    args = (cohort["time"], cohort["event"], cohort["group"], cohort["F"], cohort["times"])
    km = survfair.calibration(*args, ci=None).to_frame()
    cox = survfair.calibration(
        *args, censoring="cox", censoring_covariates=cohort["x"], ci=None
    ).to_frame()
    same = ~km["statistic"].isin(["brier", "integrated_brier"])
    pd.testing.assert_frame_equal(km[same], cox[same])
    assert not np.allclose(
        km.loc[~same, "estimate"].to_numpy(), cox.loc[~same, "estimate"].to_numpy()
    )


def test_analytic_influence_se_includes_the_model(cohort):
    """The Brier scores' influence SE with censoring="cox" is finite and differs from the
    weights-fixed ("conservative") one: the model's estimation enters."""
    args = (cohort["time"], cohort["event"], cohort["group"], cohort["F"], cohort["times"])
    options = dict(censoring="cox", censoring_covariates=cohort["x"])
    frame = survfair.calibration(*args, **options).to_frame()
    fixed = survfair.calibration(*args, brier_variance="conservative", **options).to_frame()
    brier = frame["statistic"].isin(["brier", "integrated_brier"])
    assert frame.loc[brier, "se"].notna().all() and (frame.loc[brier, "se"] > 0).all()
    assert not np.allclose(frame.loc[brier, "se"], fixed.loc[brier, "se"], rtol=1e-6)
    np.testing.assert_allclose(frame.loc[brier, "se"], fixed.loc[brier, "se"], rtol=0.5)


@pytest.mark.parametrize("horizon", [0.3, 0.6])
def test_brier_censoring_term_is_the_derivative_through_the_refitted_model(horizon):
    """psi_k of the Brier sum of each group: the finite-difference derivative of sum_i r_i in k's
    case weight with lifelines refitting the censoring model (no tied censoring times: lifelines'
    Efron coefficients are then Breslow's, which the rows linearise)."""
    from survfair._calibration.estimator import _cox_brier_weights
    from survfair._calibration.stats import brier_terms
    from survfair._core.cox_censoring import fit_cox_censoring
    from survfair._core.cox_influence import CoxPersonTerms
    from survfair._core.validation import check_survival_inputs

    rng = np.random.default_rng(5)
    n = 40
    covariates = rng.normal(size=(n, 2))
    group = rng.integers(0, 2, n)
    t_event = rng.exponential(1 / np.exp(0.5 * covariates[:, 1]))
    t_cens = rng.exponential(1 / (0.8 * np.exp(0.7 * covariates[:, 0])))
    time, event = np.minimum(t_event, t_cens), t_event <= t_cens
    risk = rng.uniform(0.1, 0.9, n)
    horizon = float(np.quantile(time, horizon))

    def sample_with(weights):
        return check_survival_inputs(
            time, event, group, risk, weights=weights, covariates=covariates
        )[0]

    def brier_sums(model):
        k_time, k_horizon = _cox_brier_weights(base, model, np.array([horizon]))
        terms = brier_terms(time, event, risk, horizon, k_time, k_horizon[:, 0])
        return np.array([terms[group == g].sum() for g in range(2)])

    base = sample_with(np.ones(n))
    model = fit_cox_censoring(base)
    k_time, k_horizon = _cox_brier_weights(base, model, np.array([horizon]))
    terms = brier_terms(time, event, risk, horizon, k_time, k_horizon[:, 0])
    through = CoxPersonTerms(base, model)
    psi = np.column_stack(
        [
            through.movement(
                np.flatnonzero(group == g),
                g,
                np.where(time[group == g] > horizon, 0.0, terms[group == g]),
                np.where(time[group == g] > horizon, terms[group == g], 0.0),
                horizon,
            )
            for g in range(2)
        ]
    )
    step = 1e-6
    expected = np.empty((n, 2))
    start = brier_sums(model)
    for k in range(n):
        weights = np.ones(n)
        weights[k] += step
        expected[k] = (brier_sums(fit_cox_censoring(sample_with(weights))) - start) / step
    np.testing.assert_allclose(psi, expected, rtol=1e-4, atol=1e-6)
    assert np.abs(psi).max() > 1e-2


def test_bootstrap_refits_the_censoring_model(cohort):
    res = survfair.calibration(
        cohort["time"], cohort["event"], cohort["group"], cohort["F"][:, 1], 4.0,
        censoring="cox", censoring_covariates=cohort["x"], ci="bootstrap", n_resamples=20,
        random_state=0, n_jobs=1,
    )  # fmt: skip
    frame = res.to_frame()
    assert frame.loc[frame["statistic"] == "brier", "se"].gt(0).all()


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        (dict(censoring="cox"), "censoring_covariates"),
        (dict(censoring="group", censoring_covariates="X"), "censoring_covariates"),
        (dict(censoring="cox", censoring_covariates="X", cause=1), "cause"),
    ],
    ids=["cox-without-covariates", "covariates-without-cox", "cox-with-cause"],
)
def test_refusals_name_the_argument(cohort, kwargs, parameter):
    if kwargs.get("censoring_covariates") == "X":
        kwargs = {**kwargs, "censoring_covariates": cohort["x"]}
    with pytest.raises(InvalidParameterError, match=parameter) as info:
        survfair.calibration(
            cohort["time"], cohort["event"].astype(int), cohort["group"], cohort["F"][:, 0], 2.0,
            ci=None, **kwargs,
        )  # fmt: skip
    assert info.value.parameter == parameter


# ------------------------------------------------------------------------------------------------
# riskRegression::Score (tests/fixtures/cox_censoring/brier.csv)


@pytest.fixture(scope="module")
def lung() -> pd.DataFrame:
    return _csv("lung.csv").assign(group="all")


@pytest.mark.parametrize("t", TAUS)
def test_against_riskregression(lung, t):
    """One group, lung. riskRegression's Brier is reproduced by hand under R's conventions (its
    Efron-type censoring baseline, G(T_i - delta/2) = the left limit here, delta = 1 day);
    survfair's value is the same formula with lifelines' Breslow baseline, and differs from R's by
    exactly the baseline effect (Breslow - Efron with R's coefficients), up to lifelines'
    stopping rule (coefficients 6e-7 relative from R's): 0 at 180 (no tied censoring
    times before 225 days), -2.5e-5 at 365 and -8.4e-5 at 731."""
    ref = _csv("brier.csv")
    ref = ref[(ref["horizon"] == t) & (ref["conservative"].astype(str).str.upper() == "TRUE")]
    r_brier, r_se = float(ref["brier"].iloc[0]), float(ref["se"].iloc[0])
    risk = lung[f"risk{int(t)}"].to_numpy()
    res = survfair.calibration(
        "time", "status", "group", f"risk{int(t)}", t, data=lung,
        censoring="cox", censoring_covariates=["x1", "x2"], ci="analytic",
        brier_variance="conservative",
    )  # fmt: skip
    row = res.to_frame().query("statistic == 'brier'").iloc[0]
    ours, ours_se = float(row["estimate"]), float(row["se"])
    # 1. survfair's conventions by hand: lifelines' default fit and its Breslow baseline
    fit = _lifelines(lung)
    beta = fit.params_[["x1", "x2"]].to_numpy()
    means = fit._norm_mean[["x1", "x2"]].to_numpy()
    h = fit.baseline_cumulative_hazard_.iloc[:, 0]
    x = lung[["x1", "x2"]].to_numpy(float)

    class BreslowLifelines:
        knots, values, lp = h.index.to_numpy(float), h.to_numpy(float), (x - means) @ beta

        def __call__(self, at, rows):
            k = np.searchsorted(self.knots, at, side="right") - 1
            hz = np.where(k >= 0, self.values[np.maximum(k, 0)], 0.0)
            return np.exp(-hz * np.exp(self.lp[rows]))

    by_hand, by_hand_se, _ = score_brier(lung, BreslowLifelines(), risk, t)
    assert ours == pytest.approx(by_hand, rel=1e-12, abs=0)
    assert ours_se == pytest.approx(by_hand_se, rel=1e-10, abs=0)
    # 2. R's conventions by hand (Efron-type baseline from R's coefficients) give R's number
    cph = _csv("censoring_cph.csv")["coef"].to_numpy()
    efron, efron_se, _ = score_brier(lung, g_by_hand(lung, cph, efron_baseline), risk, t)
    assert efron == pytest.approx(r_brier, rel=1e-10, abs=0)
    assert efron_se == pytest.approx(r_se, rel=1e-10, abs=0)
    # 3. the difference is the baseline convention (Breslow vs Efron), to lifelines' precision
    breslow = score_brier(lung, g_by_hand(lung, cph, breslow_baseline), risk, t)[0]
    assert ours == pytest.approx(breslow, rel=1e-7, abs=0)
    baseline_effect = breslow - efron
    # (the remaining ~1e-9 is lifelines' stopping rule, as for the C-index)
    assert ours - r_brier == pytest.approx(baseline_effect, abs=1e-8)
    expected = {180.0: 0.0, 365.0: -2.5e-5, 731.0: -8.4e-5}[t]
    if t == 180.0:
        assert abs(baseline_effect) < 1e-14
    else:
        assert baseline_effect == pytest.approx(expected, rel=0.05)
