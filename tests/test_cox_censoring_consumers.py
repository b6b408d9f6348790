"""xauc_t and compare_xci with censoring="cox" (issue 42, deliverable 1): the per-person IPCW
weights of xci's Cox model of the censoring hazard.

AUC(t) weighs a case i (event by t) by 1 / G(T_i- | x_i) and a control j (event-free after t) by
1 / G(t | x_j), G(t | x) = exp(-L_g(t) exp(gamma'(x - center))) with L_g lifelines' Breslow
baseline of the group's stratum: checked against an O(n^2) brute force from lifelines' own fit.
compare_xci reads two xci results with the same Cox model: its point estimates are xci's.
"""

from __future__ import annotations

import lifelines
import numpy as np
import pandas as pd
import pytest

import survfair
from survfair._core.cox_censoring import CoxCensoringModel
from survfair._core.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def cohort():
    """Two groups, censoring driven by z, ties in time and in risk."""
    rng = np.random.default_rng(7)
    n = 160
    x, z = rng.normal(size=n), rng.normal(size=n)
    group = np.where(rng.random(n) < 0.45, "F", "M")
    t_event = rng.weibull(1.5, n) * np.exp(-0.5 * x) * 6
    t_cens = rng.exponential(9 * np.exp(-0.6 * z - 0.3 * (group == "F")))
    time = np.round(np.minimum(t_event, t_cens), 1) + 0.1
    event = t_event <= t_cens
    risk = np.round(x, 1)  # tied risks
    return dict(time=time, event=event, group=group, risk=risk, X=np.column_stack([z, x]))


def _naive_cox_xauc_t(time, event, group, risk, covariates, t):
    """O(n^2) weighted AUC(t) of every cell (a, b) from lifelines' fit of the censoring model."""
    frame = pd.DataFrame(covariates, columns=["z", "x"])
    frame["time"], frame["cens"], frame["stratum"] = time, (~event).astype(float), group
    fit = lifelines.CoxPHFitter().fit(frame, "time", "cens", strata=["stratum"])
    lp = (covariates - fit._norm_mean[["z", "x"]].to_numpy()) @ fit.params_[["z", "x"]].to_numpy()

    def G(i, at, left):
        hazard = fit.baseline_cumulative_hazard_[group[i]]
        knots, values = hazard.index.to_numpy(float), hazard.to_numpy(float)
        k = np.searchsorted(knots, at, side="left" if left else "right") - 1
        return np.exp(-(values[k] if k >= 0 else 0.0) * np.exp(lp[i]))

    out = {}
    n = len(time)
    for a in ("F", "M"):
        for b in ("F", "M"):
            num = den = 0.0
            for i in range(n):
                if group[i] != a or not (event[i] and time[i] <= t):
                    continue
                wi = 1.0 / G(i, time[i], True)
                for j in range(n):
                    if group[j] != b or not time[j] > t:
                        continue
                    w = wi / G(j, t, False)
                    d = risk[i] - risk[j]
                    num += w * (1.0 if d > 1e-8 else 0.5 if abs(d) <= 1e-8 else 0.0)
                    den += w
            out[(a, b)] = num / den
    return out


def test_xauc_t_cox_equals_brute_force(cohort):
    times = [2.0, 4.0]
    res = survfair.xauc_t(
        cohort["time"], cohort["event"], cohort["group"], cohort["risk"], times,
        censoring="cox", censoring_covariates=cohort["X"], ci=None,
    )  # fmt: skip
    assert isinstance(res.censoring_model, CoxCensoringModel)
    assert res.censoring == "cox"
    frame = res.to_frame()
    for t in times:
        naive = _naive_cox_xauc_t(
            cohort["time"], cohort["event"], cohort["group"], cohort["risk"], cohort["X"], t
        )
        got = frame[frame["time"] == t].set_index(["a", "b"])["xauc"]
        for cell, value in naive.items():
            assert got[cell] == pytest.approx(value, abs=1e-10)
    assert frame["se"].isna().all()


def test_xauc_t_cox_differs_from_kaplan_meier(cohort):
    args = (cohort["time"], cohort["event"], cohort["group"], cohort["risk"], [4.0])
    cox = survfair.xauc_t(*args, censoring="cox", censoring_covariates=cohort["X"], ci=None)
    km = survfair.xauc_t(*args, ci=None)
    assert not np.allclose(cox.to_frame()["xauc"], km.to_frame()["xauc"])


@pytest.mark.parametrize(
    "options, match",
    [
        (dict(censoring="cox", ci=None), "needs censoring_covariates"),
        (dict(censoring_covariates="X", ci=None), "used only with censoring="),
        (dict(censoring="cox", censoring_covariates="X", ci=None, cause=1), "cause is not"),
    ],
    ids=["no-covariates", "covariates-without-cox", "cause"],
)
def test_xauc_t_cox_refusals(cohort, options, match):
    if options.get("censoring_covariates") == "X":
        options = {**options, "censoring_covariates": cohort["X"]}
    event = cohort["event"].astype(int)
    with pytest.raises(InvalidParameterError, match=match):
        survfair.xauc_t(cohort["time"], event, cohort["group"], cohort["risk"], [4.0], **options)


def _cox_results(cohort, **options):
    common = dict(censoring="cox", censoring_covariates=cohort["X"], tau=4.0, **options)
    args = (cohort["time"], cohort["event"], cohort["group"])
    first = survfair.xci(*args, cohort["risk"], **common)
    second = survfair.xci(*args, cohort["X"][:, 0], **common)
    return first, second


def test_compare_xci_cox_point_estimates_are_xci(cohort):
    first, second = _cox_results(cohort, ci=None)
    table = survfair.compare_xci(
        first, second, ci="bootstrap", n_resamples=20, random_state=0,
        bootstrap_method="percentile",
    ).to_frame()  # fmt: skip
    cells = table[table["quantity"] == "xci"]
    np.testing.assert_allclose(cells["value_1"], first.values.ravel(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(cells["value_2"], second.values.ravel(), rtol=0, atol=1e-12)
    overall = table[table["quantity"] == "overall"].iloc[0]
    assert overall["value_1"] == pytest.approx(first.overall, abs=1e-12)
    assert overall["value_2"] == pytest.approx(second.overall, abs=1e-12)
    assert np.isfinite(cells["ci_low"]).all()


def test_compare_xci_cox_bca_matches_xci_jackknife(cohort):
    from survfair._xci.paired import _cox_jackknife

    first, second = _cox_results(cohort, ci="bootstrap", n_resamples=3, random_state=0)
    own = _cox_jackknife(first)  # the jackknife compare_xci's BCa reads, as xci's own BCa
    np.testing.assert_allclose(own.jackknife, first.jackknife.cells, rtol=0, atol=1e-12)
    comparison = survfair.compare_xci(first, second, ci="bootstrap", n_resamples=20, random_state=0)
    assert np.isfinite(comparison.to_frame()["ci_low"].iloc[:4]).all()


def test_compare_xci_cox_analytic_reads_the_rows_with_the_model(cohort):
    """Analytic paired intervals of two censoring="cox" results: the paired rows are the
    differences of each result's rows, the Cox model's estimation included (computed on the
    sample when a result holds no rows: the same numbers)."""
    first, second = _cox_results(cohort)  # analytic: rows held
    comparison = survfair.compare_xci(first, second)
    bare_first, bare_second = _cox_results(cohort, ci=None)  # no rows: computed by compare_xci
    again = survfair.compare_xci(bare_first, bare_second)
    frame, frame_again = comparison.to_frame(), again.to_frame()
    np.testing.assert_allclose(frame["se"], frame_again["se"], rtol=1e-12)
    rows = first.influence.cells - second.influence.cells
    expected = np.sqrt(np.nansum(rows**2, axis=0))
    cells = frame[frame["quantity"] == "xci"]["se"].to_numpy()
    np.testing.assert_allclose(cells, expected, rtol=1e-12)
    same = survfair.compare_xci(first, first).to_frame()
    assert (same["difference"].abs() < 1e-15).all() and (same["se"].abs() < 1e-12).all()


def test_compare_xci_cox_refusals(cohort):
    first, second = _cox_results(cohort, ci=None)
    other = survfair.xci(
        cohort["time"], cohort["event"], cohort["group"], cohort["X"][:, 0],
        censoring="cox", censoring_covariates=cohort["X"][:, ::-1], ci=None, tau=4.0,
    )  # fmt: skip
    with pytest.raises(InvalidParameterError, match="censoring covariates"):
        survfair.compare_xci(first, other, ci="bootstrap", n_resamples=5)
