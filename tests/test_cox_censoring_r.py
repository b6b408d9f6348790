"""IPCW with a Cox model of the censoring times: pec::cindex and riskRegression::Score (issue 42.5).

R 4.2.2, survival 3.5.3, pec 2022.5.4, riskRegression 2022.11.28, prodlim 2019.11.13 and rms 6.5.0
(tests/fixtures/cox_censoring/versions.txt) computed the reference values once; regenerate with
``Rscript tests/fixtures/cox_censoring/make_fixtures.R``. Here they are recomputed by hand,
O(n^2) in numpy, from the fixture's inputs; these tests never need R. The conventions (README.md
next to the fixtures) are those of pec's C routine ``cindexSRC``, ``pec:::ipcw.cox``,
``riskRegression:::getCensoringWeights`` and ``rms::cph`` / ``rms::survest``:

- censoring model: ``rms::cph(Surv(time, 1 - status) ~ x1 + x2, eps = 1e-6)``, Efron ties,
  Efron-type baseline hazard at the covariate means, G(t | x) = S0(t)^exp(x'b - center),
  S0 = exp(-H0) a right-continuous step function;
- G(T_i-) is read as G(T_i - delta/2), delta the smallest gap between distinct times;
- pec's pairs: i an event with T_i <= tau (inclusive), j after i in the order (time, events first),
  weight 1 / (G(T_i- | X_i) G(T_i | X_j)); tied events are comparable (orientation by row order), a
  tied prediction counts 1/2 (or the pair is dropped), tied events with tied predictions count 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import survfair

HERE = Path(__file__).parent / "fixtures" / "cox_censoring"
TAUS = (180.0, 365.0, 731.0)


def _csv(name: str) -> pd.DataFrame:
    return pd.read_csv(HERE / name, skipinitialspace=True)


@pytest.fixture(scope="module")
def lung() -> pd.DataFrame:
    return _csv("lung.csv")


@pytest.fixture(scope="module")
def cph() -> dict:
    coef = _csv("censoring_cph.csv").set_index("term")
    base = _csv("censoring_baseline.csv")
    return {
        "beta": coef["coef"].to_numpy(),
        "means": coef["mean"].to_numpy(),
        "time": base["time"].to_numpy(float),
        "surv": base["surv"].to_numpy(float),
    }


# ------------------------------------------------------------------------------------------------
# the censoring Cox model, by hand


def efron_baseline(time, cens, lp):
    """Efron-type cumulative hazard of the censoring times (cens = 1) at lp = 0, at the distinct
    times.

    At a time with d censorings, risk-set sum R of exp(lp) and tied sum D:
    dH = sum_{k<d} 1 / (R - k/d D) (survival's Efron hazard, ``survfit.coxph`` ctype 2)."""
    risk = np.exp(lp)
    times = np.unique(time)
    steps = np.zeros(times.size)
    for k, t in enumerate(times):
        at = (time == t) & (cens == 1)
        d = int(at.sum())
        if d:
            r = risk[time >= t].sum()
            tied = risk[at].sum()
            steps[k] = sum(1.0 / (r - m / d * tied) for m in range(d))
    return times, np.cumsum(steps)


def breslow_baseline(time, cens, lp):
    """Breslow-type cumulative hazard (d / R at each time; ``survfit.coxph`` ctype 1, lifelines)."""
    risk = np.exp(lp)
    times = np.unique(time)
    steps = np.array([((time == t) & (cens == 1)).sum() / risk[time >= t].sum() for t in times])
    return times, np.cumsum(steps)


def step(times, values, at, before=1.0):
    """Right-continuous step function: the value at the last knot <= at (``before`` left of all)."""
    k = np.searchsorted(times, at, side="right") - 1
    return np.where(k >= 0, values[np.maximum(k, 0)], before)


class CoxG:
    """G(t | x_i) = S0(t)^exp(lp_i) for the rows of the data, from a baseline S0 at lp = 0."""

    def __init__(self, times, s0, lp):
        self.times, self.s0, self.lp = np.asarray(times, float), np.asarray(s0, float), lp

    def __call__(self, t, rows):
        return step(self.times, self.s0, t) ** np.exp(self.lp[rows])


def g_from_fixture(lung, cph):
    """R's own G: cph's stored S0 (at the means) and R's centred linear predictor."""
    return CoxG(cph["time"], cph["surv"], lung["lp_cens_cph"].to_numpy())


def g_by_hand(lung, beta, baseline=efron_baseline):
    """G refitted by hand from the coefficients only: baseline at lp = 0 (uncentred)."""
    x = lung[["x1", "x2"]].to_numpy(float)
    lp = x @ np.asarray(beta)
    times, h = baseline(lung["time"].to_numpy(float), 1 - lung["status"].to_numpy(), lp)
    return CoxG(times, np.exp(-h), lp)


# ------------------------------------------------------------------------------------------------
# pec::cindex and riskRegression::Score, by hand


def pec_cindex(
    lung,
    G,
    pred,
    tau,
    tied_pred_in=True,
    tied_outcome_in=True,
    tied_match_in=True,
    strict_tau=False,
):
    """pec's cindexSRC, O(n^2): returns (C, pairs, concordant); pred = predicted survival.

    ``strict_tau=True`` replaces pec's T_i <= tau by survfair's T_i < tau."""
    time = lung["time"].to_numpy(float)
    status = lung["status"].to_numpy()
    order = np.lexsort((-status, time))  # R: order(time, -status), stable
    y, st, p = time[order], status[order], np.asarray(pred, float)[order]
    distinct = np.unique(y)
    half_gap = np.min(np.diff(np.concatenate([[0.0], distinct]))) / 2
    wi_all = G(y - half_gap, order)  # G(T_i - delta/2 | X_i)
    pairs = conc = 0.0
    n = y.size
    for i in range(n):
        if st[i] != 1 or (y[i] >= tau if strict_tau else y[i] > tau):
            continue
        j = np.arange(i + 1, n)
        wj = G(np.full(j.size, y[i]), order[j])  # G(T_i | X_j)
        ok = (wj > 0) & (wi_all[i] > 0)
        w = 1.0 / (wi_all[i] * wj)
        tied_out = (y[j] == y[i]) & (st[j] == 1)
        tied_p = p[j] == p[i]
        match = tied_match_in & tied_out & tied_p
        usable = ok & ~match & (tied_outcome_in | ~tied_out)
        pairs += w[ok & match].sum()
        conc += w[ok & match].sum()
        tie = usable & tied_p
        if tied_pred_in:
            pairs += w[tie].sum()
            conc += w[tie].sum() / 2
        strict = usable & ~tied_p
        pairs += w[strict].sum()
        conc += w[strict & (p[i] < p[j])].sum()
    return conc / pairs, pairs, conc


def score_brier(lung, G, risk, t):
    """riskRegression::Score's IPCW Brier score at t and its conservative SE (censoring weights
    taken as known): residuals (1 - F)^2 / G(T_i- | X_i) for events by t, F^2 / G(t | X_i) for
    T_i > t, 0 for censored by t; G(T_i-) = G(T_i - m/2), m the smallest positive gap of the sorted
    times."""
    time = lung["time"].to_numpy(float)
    status = lung["status"].to_numpy()
    gaps = np.diff(np.sort(time))
    half_gap = gaps[gaps > 0].min() / 2
    rows = np.arange(time.size)
    g_minus = G(time - half_gap, rows)
    g_t = G(np.full(time.size, t), rows)
    res = np.where(
        (time <= t) & (status == 1),
        (1 - risk) ** 2 / g_minus,
        np.where(time > t, risk**2 / g_t, 0.0),
    )
    return res.mean(), res.std(ddof=1) / np.sqrt(res.size), res


# ------------------------------------------------------------------------------------------------
# the censoring model


def test_cph_baseline_is_efron_type_at_the_means(lung, cph):
    """rms::cph's stored S0 is exp(-Efron-type cumulative hazard) at the covariate means; Breslow's
    differs at the tied censoring times (225, 292 and 511 days each have two)."""
    x = lung[["x1", "x2"]].to_numpy(float)
    lp_c = (x - cph["means"]) @ cph["beta"]
    assert lp_c == pytest.approx(lung["lp_cens_cph"].to_numpy(), abs=1e-13)
    cens = 1 - lung["status"].to_numpy()
    times, h = efron_baseline(lung["time"].to_numpy(float), cens, lp_c)
    s_r = step(cph["time"], cph["surv"], times)
    np.testing.assert_allclose(np.exp(-h), s_r, rtol=1e-13, atol=0)
    _, hb = breslow_baseline(lung["time"].to_numpy(float), cens, lp_c)
    assert np.abs(np.exp(-hb) - s_r).max() > 1e-4  # the two baselines really differ here


def test_coxph_baselines_uncentred(lung, cph):
    """survival::coxph(ties = "efron") refit: same coefficients as cph; basehaz(centered = FALSE) is
    the Efron-type hazard, survfit(ctype = 1) Breslow's, both at x = 0."""
    coxph_coef = _csv("censoring_cph.csv")["coef_coxph"].to_numpy()
    assert coxph_coef == pytest.approx(cph["beta"], rel=1e-14)  # cph's eps = 1e-6 had converged too
    ref = _csv("censoring_coxph.csv")
    x = lung[["x1", "x2"]].to_numpy(float)
    cens = 1 - lung["status"].to_numpy()
    time = lung["time"].to_numpy(float)
    for baseline, column in (
        (efron_baseline, "hazard_efron"),
        (breslow_baseline, "hazard_breslow"),
    ):
        times, h = baseline(time, cens, x @ np.asarray(coxph_coef))
        np.testing.assert_array_equal(times, ref["time"].to_numpy(float))
        np.testing.assert_allclose(h, ref[column].to_numpy(), rtol=1e-11)


def test_pec_weight_i(lung, cph):
    """pec's weight.i = G(T_i - 1/2 | X_i) (lung's times are whole days: the gap is 1)."""
    rows = np.arange(len(lung))
    t = lung["time"].to_numpy(float)
    np.testing.assert_allclose(
        g_from_fixture(lung, cph)(t - 0.5, rows), lung["pec_weight_i"].to_numpy(), rtol=1e-14
    )
    np.testing.assert_allclose(
        g_by_hand(lung, cph["beta"])(t - 0.5, rows), lung["pec_weight_i"].to_numpy(), rtol=1e-12
    )


# ------------------------------------------------------------------------------------------------
# (a) pec::cindex


@pytest.fixture(scope="module")
def cindex_ref() -> pd.DataFrame:
    ref = _csv("cindex.csv")
    for c in ("tiedPredictionsIn", "tiedOutcomeIn", "tiedMatchIn"):
        ref[c] = ref[c].astype(str).str.upper() == "TRUE"
    return ref


@pytest.mark.parametrize("source", ["fixture", "by_hand"])
def test_pec_cindex(lung, cph, cindex_ref, source):
    G = g_from_fixture(lung, cph) if source == "fixture" else g_by_hand(lung, cph["beta"])
    for row in cindex_ref.itertuples():
        c, pairs, conc = pec_cindex(
            lung,
            G,
            -lung[row.score].to_numpy(),
            row.tau,
            row.tiedPredictionsIn,
            row.tiedOutcomeIn,
            row.tiedMatchIn,
        )
        assert c == pytest.approx(row.cindex, rel=1e-10, abs=0), row
        assert pairs == pytest.approx(row.pairs, rel=1e-10, abs=0), row
        assert conc == pytest.approx(row.concordant, rel=1e-10, abs=0), row


def test_pec_conventions_matter(lung, cph, cindex_ref):
    """Each convention moves the number (so the fixture pins it): truncation T_i <= tau vs < tau at
    an event time (180, 731), tied events in or out, and the baseline (Efron vs Breslow)."""
    G = g_from_fixture(lung, cph)
    pred = -lung["lp"].to_numpy()
    for tau in (180.0, 731.0):
        assert pec_cindex(lung, G, pred, tau)[0] != pytest.approx(
            pec_cindex(lung, G, pred, tau, strict_tau=True)[0], rel=1e-6
        )
    # 365 is no event time: <= and < give the same pairs
    assert (
        pec_cindex(lung, G, pred, 365.0)[1] == pec_cindex(lung, G, pred, 365.0, strict_tau=True)[1]
    )
    ref = cindex_ref.set_index(["score", "tau", "tiedPredictionsIn", "tiedOutcomeIn"])
    assert ref.loc[("lp", 365, True, True), "cindex"] != pytest.approx(
        ref.loc[("lp", 365, True, False), "cindex"], rel=1e-6
    )
    c_breslow = pec_cindex(lung, g_by_hand(lung, cph["beta"], breslow_baseline), pred, 365.0)[0]
    delta = c_breslow - ref.loc[("lp", 365, True, True), "cindex"]
    assert 1e-7 < abs(delta) < 1e-3


# ------------------------------------------------------------------------------------------------
# (b) riskRegression::Score, Brier


@pytest.mark.parametrize("source", ["fixture", "by_hand"])
def test_score_brier(lung, cph, source):
    ref = _csv("brier.csv")
    ref["conservative"] = ref["conservative"].astype(str).str.upper() == "TRUE"
    G = g_from_fixture(lung, cph) if source == "fixture" else g_by_hand(lung, cph["beta"])
    for t in TAUS:
        brier, se_conservative, _ = score_brier(lung, G, lung[f"risk{int(t)}"].to_numpy(), t)
        rows = ref[ref["horizon"] == t].set_index("conservative")
        assert brier == pytest.approx(rows.loc[False, "brier"], rel=1e-10, abs=0)
        assert brier == pytest.approx(rows.loc[True, "brier"], rel=1e-10, abs=0)
        assert se_conservative == pytest.approx(rows.loc[True, "se"], rel=1e-10, abs=0)


# ------------------------------------------------------------------------------------------------
# lifelines' refit of the censoring model


def _lifelines(lung, **fit_options):
    import lifelines

    frame = pd.DataFrame(
        {"time": lung["time"], "cens": 1 - lung["status"], "x1": lung["x1"], "x2": lung["x2"]}
    )
    return lifelines.CoxPHFitter().fit(frame, "time", "cens", fit_options=fit_options or None)


@pytest.fixture(scope="module")
def lifelines_fit(lung):
    """Newton-Raphson run to convergence (lifelines' default precision 1e-7 stops earlier)."""
    return _lifelines(lung, precision=1e-14, max_steps=200)


def test_lifelines_default_precision(lung, cph):
    """With its default stopping rule lifelines' coefficients are 6e-7 relative from R's (the
    log-likelihoods agree to 1e-12): a refit with defaults matches R to about 1e-6, not 1e-10."""
    beta = _lifelines(lung).params_[["x1", "x2"]].to_numpy()
    assert beta == pytest.approx(cph["beta"], rel=2e-6)
    assert np.abs(beta / cph["beta"] - 1).max() > 1e-8


def test_lifelines_refit(lung, cph, cindex_ref, lifelines_fit):
    """lifelines (Efron partial likelihood) finds R's coefficients; its baseline_cumulative_hazard_
    is Breslow-type at the covariate means, so it equals R's Breslow (ctype 1) hazard, not the
    Efron-type one that pec and riskRegression use. With lifelines' coefficients and an Efron-type
    baseline pec's value is reproduced; with lifelines' own baseline it is not."""
    beta = lifelines_fit.params_[["x1", "x2"]].to_numpy()
    assert beta == pytest.approx(cph["beta"], rel=1e-10)
    means = lifelines_fit._norm_mean[["x1", "x2"]].to_numpy()
    assert means == pytest.approx(cph["means"], rel=1e-14)
    ref = _csv("censoring_coxph.csv")
    h_ll = lifelines_fit.baseline_cumulative_hazard_.iloc[:, 0]
    h_breslow_centred = ref["hazard_breslow"].to_numpy() * np.exp(means @ cph["beta"])
    h_efron_centred = ref["hazard_efron"].to_numpy() * np.exp(means @ cph["beta"])
    np.testing.assert_array_equal(h_ll.index.to_numpy(float), ref["time"].to_numpy(float))
    np.testing.assert_allclose(h_ll.to_numpy(), h_breslow_centred, rtol=1e-10)
    assert np.abs(h_ll.to_numpy() - h_efron_centred).max() > 1e-4
    pred = -lung["lp"].to_numpy()
    row = cindex_ref[
        (cindex_ref.score == "lp")
        & (cindex_ref.tau == 365)
        & cindex_ref.tiedPredictionsIn
        & cindex_ref.tiedOutcomeIn
    ].iloc[0]
    c_efron = pec_cindex(lung, g_by_hand(lung, beta), pred, 365.0)[0]
    assert c_efron == pytest.approx(row.cindex, rel=1e-10)
    # lifelines' own (Breslow) baseline: G = exp(-H_ll(t) exp((x - mean)'b))
    x = lung[["x1", "x2"]].to_numpy(float)
    g_ll = CoxG(h_ll.index.to_numpy(float), np.exp(-h_ll.to_numpy()), (x - means) @ beta)
    c_ll = pec_cindex(lung, g_ll, pred, 365.0)[0]
    assert c_ll != pytest.approx(row.cindex, rel=1e-7)
    assert c_ll == pytest.approx(
        pec_cindex(lung, g_by_hand(lung, cph["beta"], breslow_baseline), pred, 365.0)[0], rel=1e-10
    )


# ------------------------------------------------------------------------------------------------
# survfair's xci(..., censoring="cox", censoring_covariates=...)


@pytest.mark.parametrize("tau", TAUS)
def test_survfair_one_group_against_pec(lung, cph, cindex_ref, tau):
    """survfair's one-group xci(censoring="cox") against pec, convention by convention.

    Pairs: pec run with survfair's pair set (tiedOutcomeIn = FALSE, tiedMatchIn = FALSE: tied events
    not comparable, tied risks 1/2; no |lp_i - lp_j| lies in (0, 1e-8]). Truncation: survfair needs
    T_i < tau, pec T_i <= tau; they differ at 180 and 731 (death times), not at 365. Weights: both
    1 / (G(T_i- | X_i) G(T_i | X_j)). Baseline: survfair takes lifelines' Breslow-type cumulative
    hazard, pec rms's Efron-type one; and lifelines' default stopping leaves its coefficients 6e-7
    relative from R's. The hand computation with survfair's conventions and lifelines' fit gives
    survfair's value to 1e-12; with R's coefficients, to 1e-8; pec's own number differs by the
    baseline (6.5e-6 at 365) and, at 180 and 731, by the truncation rule."""
    lp = lung["lp"].to_numpy()
    gaps = np.abs(lp[:, None] - lp[None, :])
    assert not ((gaps > 0) & (gaps <= 1e-8)).any()
    data = lung.assign(group="all")
    result = survfair.xci(
        "time", "status", "group", "lp", data=data, tau=tau, censoring="cox",
        censoring_covariates=["x1", "x2"], ci=None,
    )  # fmt: skip
    ours = float(np.asarray(result.matrix, dtype=float).ravel()[0])
    pred = -lp
    survfair_rules = dict(tied_pred_in=True, tied_outcome_in=False, tied_match_in=False)
    # 1. exactly survfair's conventions: lifelines' default fit, its Breslow baseline, T_i < tau
    fit = _lifelines(lung)
    beta = fit.params_[["x1", "x2"]].to_numpy()
    means = fit._norm_mean[["x1", "x2"]].to_numpy()
    h = fit.baseline_cumulative_hazard_.iloc[:, 0]
    x = lung[["x1", "x2"]].to_numpy(float)
    g_ll = CoxG(h.index.to_numpy(float), np.exp(-h.to_numpy()), (x - means) @ beta)
    by_hand = pec_cindex(lung, g_ll, pred, tau, **survfair_rules, strict_tau=True)[0]
    assert ours == pytest.approx(by_hand, rel=1e-12, abs=0)
    # 2. R's coefficients, Breslow baseline: the coefficients' 6e-7 moves C by < 1e-8
    r_breslow = g_by_hand(lung, cph["beta"], breslow_baseline)
    r_efron = g_by_hand(lung, cph["beta"], efron_baseline)
    breslow = pec_cindex(lung, r_breslow, pred, tau, **survfair_rules, strict_tau=True)[0]
    assert ours == pytest.approx(breslow, rel=1e-8, abs=0)
    # 3. pec's number with survfair's pair set: Efron baseline and T_i <= tau
    row = cindex_ref[
        (cindex_ref.score == "lp") & (cindex_ref.tau == tau)
        & cindex_ref.tiedPredictionsIn & ~cindex_ref.tiedOutcomeIn & ~cindex_ref.tiedMatchIn
    ].iloc[0]  # fmt: skip
    efron_le = pec_cindex(lung, r_efron, pred, tau, **survfair_rules)[0]
    assert efron_le == pytest.approx(row.cindex, rel=1e-10, abs=0)
    efron_lt = pec_cindex(lung, r_efron, pred, tau, **survfair_rules, strict_tau=True)[0]
    baseline_effect, truncation_effect = breslow - efron_lt, efron_lt - row.cindex
    assert ours - row.cindex == pytest.approx(baseline_effect + truncation_effect, abs=1e-8)
    if tau == 365.0:
        assert abs(truncation_effect) < 1e-13
        assert baseline_effect == pytest.approx(6.5066e-6, rel=1e-3)
    if tau == 180.0:  # no tied censoring times before 225 days: the baselines coincide
        assert abs(baseline_effect) < 1e-14 and abs(truncation_effect) > 1e-4
