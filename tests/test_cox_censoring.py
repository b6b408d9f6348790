"""xci(censoring="cox"): IPCW with a Cox model of the censoring hazard (issue 42, deliverables 1-2).

The fast path (survfair/_core/cox_censoring.py: a truncated exponential series of kernel passes) is
compared with an O(n^2) brute force written here from lifelines' own fitted coefficients and
baseline, on ties in time and risk, tau, case weights and delayed entry; then the reduction to the
Kaplan-Meier path, a cohort whose censoring depends on a covariate, the bootstrap and the refusals.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter
from scipy.special import gammainc

import survfair
from survfair._core.cox_censoring import MAX_TERMS, SERIES_RTOL, series_terms
from survfair._core.exceptions import InvalidParameterError, PositivityError

# the cohorts below have some G(t | x) under 0.1 on purpose (the warning is tested in the refusal)
pytestmark = pytest.mark.filterwarnings("ignore::survfair.PositivityWarning")

# --------------------------------------------------------------------------------------------------
# the brute force, from lifelines' fit

#: survfair runs lifelines' Newton-Raphson to convergence (cox_censoring._FIT)
FIT = {"precision": 1e-12, "r_precision": 1e-15, "max_steps": 200}


def _lifelines_fit(time, event, group, x, weights=None, entry=None):
    """(coefficients, covariate means, per group (times, cumulative hazard)) of lifelines'
    CoxPHFitter on the censoring, the group as strata. With entry, the Breslow baseline is
    recomputed here with left-truncated risk sets (lifelines' baseline ignores entry)."""
    frame = pd.DataFrame(x, columns=[f"c{k}" for k in range(x.shape[1])])
    frame["t"], frame["cens"], frame["s"] = time, 1.0 - event, group
    options = {}
    if weights is not None:
        frame["w"] = weights
        options["weights_col"] = "w"
    if entry is not None:
        frame["e"] = entry
        options["entry_col"] = "e"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cph = CoxPHFitter().fit(frame, "t", "cens", strata=["s"], fit_options=FIT, **options)
    beta, mean = cph.params_.to_numpy(), cph._norm_mean.to_numpy()
    lp = (x - mean) @ beta
    w = np.ones(len(time)) if weights is None else weights
    baselines = {}
    for g in np.unique(group):
        if entry is None:
            column = [c for c in cph.baseline_cumulative_hazard_.columns if c == g or c == (g,)][0]
            h = cph.baseline_cumulative_hazard_[column]
            baselines[g] = (h.index.to_numpy(float), h.to_numpy(float))
        else:  # Breslow by hand, risk set entry < s <= t, O(n^2)
            rows = group == g
            steps = np.unique(time[rows & (event == 0)])
            dh = [
                (w * (rows & (time == s) & (event == 0))).sum()
                / (w * np.exp(lp) * (rows & (entry < s) & (time >= s))).sum()
                for s in steps
            ]
            baselines[g] = (steps, np.cumsum(dh))
    return beta, mean, baselines


def _hazard(baseline, t, left=False):
    times, values = baseline
    if left:
        below = times < t
    else:
        below = times <= t
    return values[below][-1] if below.any() else 0.0


def brute_force(time, event, group, risk, x, *, tau=None, weights=None, entry=None, tol=1e-8):
    """Numerator and denominator of every cell, O(n^2) (and the comparable pairs, not truncated
    at tau): pair (i, j) with i an event before tau and j later (or censored at t_i), j entered
    before t_i, weight w_i w_j / (G(t_i- | x_i) G(t_i | x_j)), with
    G(t | x) = exp(-L_g(t) exp((x - mean)'beta))."""
    beta, mean, baselines = _lifelines_fit(time, event, group, x, weights, entry)
    c = np.exp((x - mean) @ beta)
    labels = sorted(np.unique(group))
    code = {g: k for k, g in enumerate(labels)}
    n, size = len(time), len(labels)
    w = np.ones(n) if weights is None else weights
    num, den = np.zeros((size, size)), np.zeros((size, size))
    comparable = np.zeros((size, size), int)
    for i in range(n):
        if not event[i]:
            continue
        weighted = tau is None or time[i] < tau  # the integer counts are not truncated at tau
        own = math.exp(_hazard(baselines[group[i]], time[i], left=True) * c[i]) if weighted else 0
        for j in range(n):
            if not (time[j] > time[i] or (time[j] == time[i] and not event[j])):
                continue
            if entry is not None and not entry[j] < time[i]:
                continue
            later = math.exp(_hazard(baselines[group[j]], time[i]) * c[j]) if weighted else 0
            pair = w[i] * w[j] * own * later
            diff = risk[i] - risk[j]
            score = 1.0 if diff > tol else (0.5 if abs(diff) <= tol else 0.0)
            a, b = code[group[i]], code[group[j]]
            num[a, b] += pair * score
            den[a, b] += pair
            comparable[a, b] += 1
    return num, den, comparable


def _cohort(n, seed, *, ties=False, gamma=1.0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    x = np.column_stack([rng.normal(size=n) + 0.4 * group, rng.integers(0, 2, n)])
    event_time = rng.exponential(1 / (0.5 * np.exp(0.7 * x[:, 0])))
    censor_time = rng.exponential(1 / (0.3 * np.exp(gamma * x[:, 0] - 0.5 * x[:, 1])))
    time = np.minimum(event_time, censor_time)
    event = event_time <= censor_time
    risk = x[:, 0] + rng.normal(size=n)
    if ties:
        time = np.ceil(time * 4) / 4
        risk = np.round(risk)
    return time, event, group, risk, x


CASES = {
    "plain": dict(),
    "ties": dict(ties=True),
    "tau": dict(tau=1.5),
    "ties_tau": dict(ties=True, tau=1.0),
    "weights": dict(weights=True, tau=2.0),
    "entry": dict(entry=True),
    "ties_weights_entry_tau": dict(ties=True, weights=True, entry=True, tau=1.5),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_equals_brute_force(case):
    options = CASES[case]
    time, event, group, risk, x = _cohort(180, 7, ties=options.get("ties", False))
    rng = np.random.default_rng(3)
    weights = rng.uniform(0.2, 3.0, len(time)) if options.get("weights") else None
    entry = rng.uniform(0, 0.6, len(time)) * time if options.get("entry") else None
    tau = options.get("tau")
    result = survfair.xci(
        time, event, group, risk, tau=tau, censoring="cox", censoring_covariates=x,
        weights=weights, entry=entry, ci=None,
    )  # fmt: skip
    num, den, comparable = brute_force(
        time, event, group, risk, x, tau=tau, weights=weights, entry=entry
    )
    counts = result.pair_counts
    np.testing.assert_array_equal(counts.comparable, comparable)
    # case weights are rescaled by a power of two (exact): compare the ratios and the sums
    scale = 1.0
    if weights is not None:
        scale = 2.0 ** round(math.log2(counts.denominator.sum() / den.sum()))
    np.testing.assert_allclose(counts.denominator, den * scale, rtol=1e-10)
    np.testing.assert_allclose(counts.numerator, num * scale, rtol=1e-10)
    np.testing.assert_allclose(result.matrix.to_numpy(), num / den, rtol=1e-10)
    model = result.censoring_model
    assert model.truncation_bound <= SERIES_RTOL
    assert 1 <= model.n_terms <= MAX_TERMS


def test_model_is_lifelines_fit_and_inspectable():
    time, event, group, risk, x = _cohort(300, 11)
    frame = pd.DataFrame({"t": time, "e": event, "g": group, "r": risk, "age": x[:, 0]})
    frame["smoker"] = x[:, 1]
    result = survfair.xci(
        "t", "e", "g", "r", data=frame, tau=2.0, censoring="cox",
        censoring_covariates=["age", "smoker"], ci=None,
    )  # fmt: skip
    model = result.censoring_model
    beta, mean, baselines = _lifelines_fit(time, event, group, x)
    assert model.covariate_names == ("age", "smoker")
    np.testing.assert_allclose(model.coefficients, beta, rtol=1e-12)
    np.testing.assert_allclose(model.center, mean, rtol=1e-12)
    for code, label in enumerate(model.strata):
        times, values = baselines[label]
        for t in np.linspace(0, times.max() * 1.1, 37):
            assert model.cumulative_hazard(code, [t])[0] == pytest.approx(
                _hazard(baselines[label], t), rel=1e-12, abs=1e-300
            )
    assert list(model.to_frame()["covariate"]) == ["age", "smoker"]
    assert set(model.baseline_frame().columns) == {"stratum", "time", "cumulative_hazard"}
    assert model.to_dict()["model"] == "cox"
    with pytest.raises(Exception):
        model.coefficients[0] = 1.0  # frozen
    # G(t | x) itself
    g = model.survival(time[:5], x[:5], group[:5])
    c = np.exp((x[:5] - mean) @ beta)
    expected = [math.exp(-_hazard(baselines[group[k]], time[k]) * c[k]) for k in range(5)]
    np.testing.assert_allclose(g, expected, rtol=1e-12)


# --------------------------------------------------------------------------------------------------
# the truncation bound


@pytest.mark.parametrize("x", [0.0, 1e-9, 0.3, 1.0, 3.0, 7.5, 10.1])
def test_series_terms_are_the_fewest_with_the_bound(x):
    n_terms, bound = series_terms(x)
    if x == 0:
        assert n_terms == 1 and bound == 0
        return
    assert n_terms <= MAX_TERMS
    k = n_terms - 1  # terms 0..K
    assert bound == pytest.approx(gammainc(k + 1, x), rel=1e-12) and bound <= SERIES_RTOL
    if k > 0:
        assert gammainc(k, x) > SERIES_RTOL  # one term fewer is not enough
    # the simple bound: P(Poisson(x) >= K + 1) <= x^(K+1) / (K+1)!
    assert bound <= x ** (k + 1) / math.factorial(k + 1) * (1 + 1e-12)
    # and it is the relative error of the truncated series at y = x, the worst y in [0, x]
    for y in (x, x / 2):
        partial = sum(y**m / math.factorial(m) for m in range(k + 1))
        assert 1 - partial * math.exp(-y) <= bound + 1e-15


def test_refuses_positivity_when_the_series_would_be_too_long():
    """x > 10.1 (a later member's G(t | x) below 4e-5): refused, naming the row."""
    assert series_terms(10.2)[0] == MAX_TERMS + 1
    rng = np.random.default_rng(0)
    n = 400
    group, x = rng.integers(0, 2, n), rng.normal(size=n)
    event_time = rng.exponential(1 / (0.5 * np.exp(0.5 * x)))
    censor_time = rng.exponential(1 / (0.3 * np.exp(3 * x)))
    time, event = np.minimum(event_time, censor_time), event_time <= censor_time
    x[0], time[0], event[0] = 4.0, time.max() + 1, False  # censoring-prone, yet followed longest
    with pytest.raises(
        PositivityError, match=r"G\(t \| x\).*rows \[0\].*positivity fails.*40 terms"
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", survfair.PositivityWarning)
            survfair.xci(time, event, group, x, censoring="cox", censoring_covariates=x, ci=None)


# --------------------------------------------------------------------------------------------------
# the reduction: a covariate without effect


def test_covariate_without_effect_is_close_to_group_km():
    """Censoring independent of the covariate: the stratified Cox with a null coefficient gives
    cells close to the per-group Kaplan-Meier, not equal: its baseline is Breslow's
    exp(-sum d/n) (an exponential of a Nelson-Aalen, not a product-limit), it keeps the events of
    a tied time in the risk set of the censorings (the KM removes them first), and its fitted
    coefficient is not exactly 0; and the earlier member's factor is G(t_i-), the KM's K(t_i)."""
    rng = np.random.default_rng(21)
    n = 4000
    group = rng.integers(0, 2, n)
    noise = rng.normal(size=(n, 1))
    x = rng.normal(size=n) + 0.5 * group
    event_time = rng.exponential(1 / (0.5 * np.exp(0.7 * x)))
    censor_time = rng.exponential(1 / (0.3 + 0.2 * group), n)
    time, event = np.minimum(event_time, censor_time), event_time <= censor_time
    risk = x + rng.normal(size=n)
    km = survfair.xci(time, event, group, risk, tau=2.0, ci=None)
    cox = survfair.xci(
        time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=noise, ci=None
    )
    assert abs(cox.censoring_model.coefficients[0]) < 0.1
    np.testing.assert_allclose(cox.matrix.to_numpy(), km.matrix.to_numpy(), atol=2e-3)
    assert not np.array_equal(cox.matrix.to_numpy(), km.matrix.to_numpy())


# --------------------------------------------------------------------------------------------------
# the biased cohort of issue 42: censoring rises with x, x drives the event


def biased_cohort(n, seed, *, censor=True):
    """x ~ N(0.5 g, 1); event hazard 0.5 e^{0.8 x}; censoring hazard 0.175 e^{1.25 x}, independent
    of the event given x (about 29% censored); the score x + N(0, 1)."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    x = rng.normal(size=n) + 0.5 * group
    event_time = rng.exponential(1 / (0.5 * np.exp(0.8 * x)))
    risk = x + rng.normal(size=n)
    if not censor:
        return event_time, np.ones(n, bool), group, risk, x
    censor_time = rng.exponential(1 / (0.175 * np.exp(1.25 * x)))
    return (
        np.minimum(event_time, censor_time),
        event_time <= censor_time,
        group,
        risk,
        x,
    )


BIASED_SEED = 1


def test_biased_cohort_cox_recovers_the_truth():
    """Per-group KM weights are biased by several SEs; the Cox censoring model on x is within
    2 SE of the truth (the truth: 10^6 uncensored people, naive xCI truncated at tau = 2). The SE
    is the KM estimate's analytic one (that of the Cox-weighted estimate, by bootstrap, is
    close: benchmarks/results/cox_censoring_biased_cohort.md)."""
    truth_data = biased_cohort(1_000_000, 99, censor=False)
    truth = survfair.xci(*truth_data[:4], method="naive", tau=2.0, ci=None).matrix.to_numpy()
    time, event, group, risk, x = biased_cohort(20_000, BIASED_SEED)
    assert 1 - event.mean() == pytest.approx(0.29, abs=0.01)
    km = survfair.xci(time, event, group, risk, tau=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", survfair.PositivityWarning)
        cox = survfair.xci(
            time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=x, ci=None
        )
    se = km.se.to_numpy()
    z_km = (km.matrix.to_numpy() - truth) / se
    z_cox = (cox.matrix.to_numpy() - truth) / se
    assert np.abs(z_km).max() > 3.5 and (np.abs(z_km) > 2.5).sum() >= 3
    assert np.abs(z_cox).max() < 2.0
    assert cox.censoring_model.coefficients[0] == pytest.approx(1.25, abs=0.1)


# --------------------------------------------------------------------------------------------------
# the bootstrap refits the model


def test_bootstrap_refits_the_censoring_model(monkeypatch):
    import survfair._core.bootstrap as bootstrap_module

    time, event, group, risk, x = _cohort(240, 13)
    fits = []
    original = bootstrap_module.fit_cox_censoring

    def counted(sample):
        fits.append(sample.n_samples)
        return original(sample)

    monkeypatch.setattr(bootstrap_module, "fit_cox_censoring", counted)
    result = survfair.xci(
        time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=x,
        ci="bootstrap", n_resamples=20, random_state=0, n_jobs=1,
    )  # fmt: skip
    assert len(fits) == 20
    assert result.ci_method == "bootstrap" and result.bootstrap.cells.shape == (20, 2, 2)
    assert np.isfinite(result.se.to_numpy()).all()
    point = survfair.xci(
        time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=x, ci=None
    )
    np.testing.assert_array_equal(result.matrix.to_numpy(), point.matrix.to_numpy())
    # BCa's jackknife from the Cox-weighted contributions: delete-one estimates near the point
    jack = result.jackknife.cells.reshape(-1, 2, 2)
    assert jack.shape[0] == 240
    assert np.nanmax(np.abs(jack - point.matrix.to_numpy()[None])) < 0.05
    low, high = result.confidence_interval()
    assert (low.to_numpy() < point.matrix.to_numpy()).all()
    assert (point.matrix.to_numpy() < high.to_numpy()).all()


# --------------------------------------------------------------------------------------------------
# refusals


def _small():
    time, event, group, risk, x = _cohort(60, 2)
    return time, event, group, risk, x


def test_analytic_intervals_are_the_default():
    """ci="analytic" (the default) works with censoring="cox": finite standard errors for every
    cell, dense influence rows (through the coefficients every row moves every cell)."""
    time, event, group, risk, x = _small()
    res = survfair.xci(time, event, group, risk, censoring="cox", censoring_covariates=x)
    assert res.ci_method == "analytic"
    frame = res.to_frame()
    assert np.isfinite(frame["se"]).all() and (frame["se"] > 0).all()
    assert res.influence.layout is None


@pytest.mark.parametrize(
    "covariates, match",
    [
        (None, r'censoring="cox" needs censoring_covariates'),
        (np.empty((60, 0)), r"no column"),
        (np.ones((60, 1)), r"constant"),
        (np.zeros((59, 1)), r"59 rows"),
        (np.zeros((60, 1, 2)), r"must be 2-D"),
        ("nan", r"NaN or infinite values at rows \[4\]"),
        ("text", r"must be numeric"),
        (["age", "nope"], r"not in data"),
    ],
    ids=["missing", "no_column", "constant", "rows", "3d", "nan", "text", "column"],
)
def test_refuses_bad_covariates(covariates, match):
    time, event, group, risk, x = _small()
    data = pd.DataFrame({"age": x[:, 0]})
    if isinstance(covariates, str) and covariates == "nan":
        covariates = x.copy()
        covariates[4, 1] = np.nan
    elif isinstance(covariates, str) and covariates == "text":
        covariates = np.array(["a"] * 60, dtype=object)[:, None]
    with pytest.raises(InvalidParameterError, match=match) as e:
        survfair.xci(
            time, event, group, risk, data=data, censoring="cox",
            censoring_covariates=covariates, ci=None,
        )  # fmt: skip
    assert e.value.parameter == "censoring_covariates"


def test_refuses_covariates_without_cox_and_mismatched_index():
    time, event, group, risk, x = _small()
    with pytest.raises(InvalidParameterError, match=r'only with censoring="cox"'):
        survfair.xci(time, event, group, risk, censoring_covariates=x, ci=None)
    frame = pd.DataFrame(x, index=np.arange(60)[::-1])
    with pytest.raises(InvalidParameterError, match=r"not identical"):
        survfair.xci(
            pd.Series(time), event, group, risk, censoring="cox", censoring_covariates=frame,
            ci=None,
        )  # fmt: skip


@pytest.mark.parametrize(
    "option, value, match",
    [
        ("censoring_reference", "reference", r"censoring_reference is not available"),
        ("cause", 1, r"cause is not available"),
    ],
    ids=["reference", "cause"],
)
def test_refuses_unsupported_combinations(option, value, match):
    time, event, group, risk, x = _small()
    if value == "reference":
        value = (time, event, group)
    with pytest.raises(InvalidParameterError, match=match) as e:
        survfair.xci(
            time, event.astype(int), group, risk, censoring="cox", censoring_covariates=x,
            ci=None, **{option: value},
        )  # fmt: skip
    assert e.value.parameter == option


def test_group_exclusion_subsets_the_covariates():
    time, event, group, risk, x = _cohort(200, 4)
    group3 = np.where(np.arange(200) % 5 == 0, 2, group)
    keep = group3 != 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", survfair.ExcludedRowsWarning)
        subset = survfair.xci(
            time, event, group3, risk, groups=[0, 1], censoring="cox", censoring_covariates=x,
            ci=None,
        )  # fmt: skip
    direct = survfair.xci(
        time[keep], event[keep], group[keep], risk[keep], censoring="cox",
        censoring_covariates=x[keep], ci=None,
    )  # fmt: skip
    np.testing.assert_array_equal(subset.matrix.to_numpy(), direct.matrix.to_numpy())
