"""The analytic influence of xci(censoring="cox") includes the Cox model's estimation: it is the
derivative of the estimate in every case weight with the model refitted by lifelines (the
infinitesimal jackknife), checked by finite differences, and its standard errors agree with the
bootstrap that refits the model."""

import warnings

import numpy as np
import pytest

import survfair
from survfair._core.cox_censoring import cox_pair_counts
from survfair._core.influence import influence
from survfair._core.kernel import PairOptions, prepare_sample
from survfair._core.settings import EstimatorSettings
from survfair._core.validation import check_survival_inputs


def _cohort(n, seed, n_groups=2, p=2, entry=False):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n)
    x = rng.normal(size=(n, p))
    drive = 0.8 * x[:, 0] - (0.5 * x[:, 1] if p > 1 else 0.0)
    event_time = rng.exponential(1 / (0.5 * np.exp(0.6 * x[:, 0] + 0.3 * group)))
    censor_time = rng.exponential(1 / (0.4 * np.exp(drive)))
    time = np.minimum(event_time, censor_time)
    start = rng.uniform(0, 0.5, n) * np.minimum(time, 0.3) if entry else None
    return time, event_time <= censor_time, group, x[:, 0] + rng.normal(size=n), x, start


def _held(args, x, weights, start, model, tau):
    """The estimate with case weights ``weights`` and the censoring model held at ``model``."""
    sample, _ = check_survival_inputs(*args, weights=weights, entry=start, covariates=x)
    options = PairOptions.of(EstimatorSettings("ipcw", tau))
    counts = cox_pair_counts(sample, prepare_sample(sample, 1e-8), model, options).counts
    return (counts.numerator / counts.denominator).ravel(), (
        counts.numerator.sum() / counts.denominator.sum()
    )


@pytest.mark.parametrize(
    ("n_groups", "p", "tau", "weighted", "entry"),
    [
        (2, 2, 0.9, False, False),
        (3, 1, None, True, False),
        (2, 2, 0.8, False, True),
    ],
)
def test_cox_term_is_the_derivative_through_the_refitted_model(n_groups, p, tau, weighted, entry):
    """(influence) - (influence with the model held) equals the finite-difference derivative of
    the estimate in each case weight, model refitted minus model held, times the weight."""
    time, event, group, risk, x, start = _cohort(36, 3 + n_groups, n_groups, p, entry)
    args = (time, event, group, risk)
    tau = None if tau is None else float(np.quantile(time, tau))
    rng = np.random.default_rng(7)
    weights = rng.uniform(0.5, 2.0, len(time)) if weighted else np.ones(len(time))
    options = dict(tau=tau, censoring="cox", censoring_covariates=x, entry=start)
    res = survfair.xci(*args, weights=weights, ci="analytic", **options)
    sample, model = res.sample, res.censoring_model
    prepared = prepare_sample(sample, 1e-8)
    parts = cox_pair_counts(
        sample, prepared, model, PairOptions.of(res.settings), with_contributions=True
    )
    fixed = influence(
        sample,
        res.pair_counts,
        curves=None,
        censoring_estimated=False,
        prepared=prepared,
        contributions=parts.contributions,
        settings=res.settings,
    )
    term = res.influence.cells - fixed.cells
    term_overall = res.influence.overall - fixed.overall
    step = 1e-6
    expected = np.empty_like(term)
    expected_overall = np.empty(len(time))
    for k in range(len(time)):
        moved = weights.copy()
        moved[k] += step
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refitted = survfair.xci(*args, weights=moved, ci=None, **options)
        held, held_overall = _held(args, x, moved, start, model, tau)
        expected[k] = weights[k] * (refitted.values.ravel() - held) / step
        expected_overall[k] = weights[k] * (float(refitted.overall) - held_overall) / step
    np.testing.assert_allclose(term, expected, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(term_overall, expected_overall, rtol=1e-4, atol=1e-7)
    assert np.abs(term).max() > 1e-3  # the model's estimation matters on this data


@pytest.mark.parametrize(("n_groups", "weighted", "entry"), [(2, False, False), (3, True, True)])
def test_xauc_t_cox_term_is_the_derivative_through_the_refitted_model(
    monkeypatch, n_groups, weighted, entry
):
    """xauc_t(censoring="cox"): the rows the model's estimation adds equal the finite-difference
    derivative in each case weight, model refitted minus model held (cases weigh
    1 / G(T_i- | x_i), controls 1 / G(t | x_j))."""
    import survfair._binary.xauc_t as module
    import survfair._core.cox_influence as cox_influence

    time, event, group, risk, x, start = _cohort(36, 11 + n_groups, n_groups, 2, entry)
    horizon = float(np.quantile(time, 0.6))
    weights = np.random.default_rng(3).uniform(0.5, 2.0, 36) if weighted else np.ones(36)
    options = dict(censoring="cox", censoring_covariates=x, entry=start)
    args = (time, event, group, risk, [horizon])
    captured = []
    original = cox_influence.cox_horizon_correction

    def capture(sample, order, *rest):
        rows = original(sample, order, *rest)
        in_input_order = np.empty_like(rows)
        in_input_order[order] = rows
        captured.append(in_input_order)
        return rows

    monkeypatch.setattr(module, "cox_horizon_correction", capture)
    res = survfair.xauc_t(*args, weights=weights, **options)
    assert np.isfinite(res.to_frame()["se"]).all()
    term = captured[0]
    model = res.censoring_model

    def estimate(moved, refit):
        if not refit:
            monkeypatch.setattr(module, "fit_cox_censoring", lambda sample: model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = survfair.xauc_t(*args, weights=moved, ci=None, **options)
        monkeypatch.undo()
        monkeypatch.setattr(module, "cox_horizon_correction", capture)
        return out.to_frame()["xauc"].to_numpy()

    step = 1e-6
    expected = np.empty_like(term)
    for k in range(36):
        moved = weights.copy()
        moved[k] += step
        expected[k] = weights[k] * (estimate(moved, True) - estimate(moved, False)) / step
    np.testing.assert_allclose(term, expected, rtol=1e-4, atol=1e-7)
    assert np.abs(term).max() > 1e-3
