"""The reference must be the model's own (issue 41.1): the agreement of the score with the
predictions the reference is built from, the refusal of a reference the score does not follow, and
the flag between the thresholds."""

from __future__ import annotations

import numpy as np
import pytest

import survfair
from survfair._models.model_based_checks import (
    CONSISTENT_AGREEMENT,
    REFUSED_AGREEMENT,
    reference_agreement,
)


def brute_force_agreement(risk, codes, n_groups, reference):
    """Per cell: pairs (i in a, j in b, i != j) with reference_i > reference_j and risk_i != risk_j;
    the share with risk_i > risk_j."""
    agree = np.zeros((n_groups, n_groups))
    untied = np.zeros((n_groups, n_groups))
    for i in range(risk.size):
        for j in range(risk.size):
            if i == j or not reference[i] > reference[j] or abs(risk[i] - risk[j]) <= 1e-8:
                continue
            untied[codes[i], codes[j]] += 1
            agree[codes[i], codes[j]] += risk[i] > risk[j]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, agree / np.where(untied > 0, untied, 1), np.nan)


@pytest.mark.parametrize("seed", range(4))
def test_agreement_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, g = 60, 1 + seed % 3
    codes = rng.integers(0, g, n)
    reference = rng.integers(0, 12, n).astype(float)  # ties in the reference
    risk = reference + rng.integers(-3, 4, n)  # ties in the score
    np.testing.assert_allclose(
        reference_agreement(risk, codes, g, reference, 1e-8),
        brute_force_agreement(risk, codes, g, reference),
        rtol=1e-12,
    )


def cohort(n=2000, seed=0):
    """An old group with a 10 x baseline hazard; exponential times, independent censoring."""
    rng = np.random.default_rng(seed)
    old = rng.random(n) < 0.5
    z = rng.normal(size=n)
    total = z + np.where(old, np.log(10.0), 0.0)  # the true risk: log hazard
    t = rng.exponential(size=n) * np.exp(-total)
    c = 3 * rng.exponential(size=n)
    grid = np.linspace(0.01, 5.0, 500)
    curves = np.exp(-grid[None, :] * np.exp(total)[:, None])
    return dict(
        time=np.minimum(t, c),
        event=t <= c,
        group=np.where(old, "old", "young"),
        z=z,
        total=total,
        old=old,
        grid=grid,
        curves=curves,
        rng=rng,
    )


def test_the_models_own_score_passes():
    d = cohort()
    res = survfair.model_based_xci(
        d["time"],
        d["event"],
        d["group"],
        d["total"],
        survival=d["curves"],
        times=d["grid"],
        tau=2.0,
    )
    assert res.reference_consistent
    np.testing.assert_array_equal(res.reference_agreement, np.ones((2, 2)))
    # a PH linear predictor as both score and reference: consistent by construction
    lp = survfair.model_based_xci(
        d["time"], d["event"], d["group"], None, linear_predictor=d["total"], tau=2.0
    )
    assert lp.reference_consistent and np.all(lp.reference_agreement == 1.0)
    assert "reference_agreement" in lp.to_frame().columns
    assert lp.to_dict()["reference_consistent"] is True


@pytest.mark.parametrize("name", ["ignores the baseline", "noise", "every young above every old"])
def test_a_score_that_is_not_the_predictions_own_is_refused(name):
    d = cohort()
    score = {
        "ignores the baseline": d["z"],
        "noise": d["rng"].normal(size=d["z"].size),
        "every young above every old": d["z"] - 100 * d["old"],
    }[name]
    kw = dict(survival=d["curves"], times=d["grid"], tau=2.0)
    with pytest.raises(survfair.InvalidParameterError, match="risk does not rank people") as info:
        survfair.model_based_xci(d["time"], d["event"], d["group"], score, **kw)
    assert info.value.parameter == "risk"
    flagged = survfair.model_based_xci(
        d["time"], d["event"], d["group"], score, reference_check="flag", **kw
    )
    assert flagged.reference_consistent is False
    assert np.nanmin(flagged.reference_agreement) < REFUSED_AGREEMENT


def test_between_the_thresholds_the_result_is_flagged_not_refused():
    d = cohort()
    # the true risk blurred by noise: agreement between 0.75 and 0.9 in some cell
    score = d["total"] + d["rng"].normal(scale=0.3, size=d["z"].size)
    res = survfair.model_based_xci(
        d["time"], d["event"], d["group"], score, survival=d["curves"], times=d["grid"], tau=2.0
    )
    low = np.nanmin(res.reference_agreement)
    assert REFUSED_AGREEMENT <= low < CONSISTENT_AGREEMENT
    assert res.reference_consistent is False


def test_a_coarsened_score_agrees_fully():
    """Deciles of the model's own risk: ties in the score are left out of the agreement."""
    d = cohort()
    deciles = np.searchsorted(np.quantile(d["total"], np.linspace(0.1, 0.9, 9)), d["total"])
    res = survfair.model_based_xci(
        d["time"],
        d["event"],
        d["group"],
        deciles.astype(float),
        linear_predictor=d["total"],
        tau=2.0,
    )
    assert res.reference_consistent


def test_model_based_xauc_checks_the_score_against_the_probabilities():
    rng = np.random.default_rng(3)
    n = 1000
    group = np.where(rng.random(n) < 0.5, "a", "b")
    p = 1 / (1 + np.exp(-(rng.normal(size=n) + np.where(group == "a", 1.5, -1.5))))
    y = (rng.random(n) < p).astype(int)
    assert survfair.model_based_xauc(y, group, p, probability=p).reference_consistent
    with pytest.raises(survfair.InvalidParameterError, match="probability="):
        survfair.model_based_xauc(y, group, rng.normal(size=n), probability=p)
