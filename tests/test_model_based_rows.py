"""The model-based result's influence rows: compact when the observed xCI's are, the dense numbers
either way."""

from __future__ import annotations

import numpy as np
import pytest

import survfair
from survfair._models.model_based_engine import cells_from_contributions, factorised_contributions
from survfair._models.model_based_rows import compact_model_based_rows, model_based_rows


def dense_rows_loop(contributions, codes, n_groups):
    """The former dense builder, one group at a time (the slow twin of the compact one)."""
    num, den = cells_from_contributions(contributions, codes, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    n, g = codes.shape[0], n_groups
    rows = np.zeros((n, g * g))
    everyone = np.arange(n)
    divisor = np.where(den.ravel() > 0, den.ravel(), 1.0)
    for other in range(g):
        earlier = codes * g + other
        rows[everyone, earlier] += (
            contributions.earlier_numerator[:, other]
            - theta[codes, other] * contributions.earlier_denominator[:, other]
        ) / divisor[earlier]
        later = other * g + codes
        rows[everyone, later] += (
            contributions.later_numerator[:, other]
            - theta[other, codes] * contributions.later_denominator[:, other]
        ) / divisor[later]
    rows[:, den.ravel() <= 0] = np.nan
    return rows


@pytest.mark.parametrize("n_groups", [1, 2, 3, 5])
@pytest.mark.parametrize("undefined", [False, True], ids=["all-defined", "undefined-cells"])
def test_compact_rows_expand_to_the_dense_loop_bit_for_bit(n_groups, undefined):
    rng = np.random.default_rng(n_groups)
    n = 120
    codes = rng.integers(0, n_groups, n)
    codes[:n_groups] = np.arange(n_groups)
    risk = np.round(rng.normal(size=n), 1)
    f, q = rng.uniform(0.1, 0.9, (n, 1)), rng.uniform(0.1, 0.9, (n, 1))
    if undefined:  # the last group's members are never the earlier member: its row of cells is 0
        f[codes == n_groups - 1] = 0.0
    parts = factorised_contributions(risk, codes, n_groups, f, q, 1e-8)
    num, den = cells_from_contributions(parts, codes, n_groups)
    assert (den.ravel() <= 0).any() == undefined
    expected = dense_rows_loop(parts, codes, n_groups)
    np.testing.assert_array_equal(model_based_rows(parts, codes, n_groups, num, den), expected)
    compact = compact_model_based_rows(parts, codes, n_groups, num, den)
    assert compact.shape == (n, 2 * n_groups)


def _result(n_groups, **options):
    rng = np.random.default_rng(3)
    n = 300
    codes = rng.integers(0, n_groups, n)
    lp = rng.normal(size=n) + 0.3 * codes
    t = rng.exponential(size=n) * np.exp(-lp)
    c = rng.exponential(2.0, n)
    return survfair.model_based_xci(
        np.minimum(t, c),
        t <= c,
        codes,
        lp + rng.normal(scale=0.3, size=n),
        linear_predictor=lp,
        tau=1.5,
        reference_check="flag",
        **options,
    )


def _dense_se(res, weights, of):
    """The standard errors from the dense rows, as the result computed them before its rows were
    compact."""
    rows = {
        "excess": res.observed_influence - res.influence,
        "model_based": res.influence,
        "observed": res.observed_influence,
    }[of]
    projected = np.where(np.isnan(rows), 0.0, rows) @ weights.T
    return np.sqrt(np.einsum("ij,ij->j", projected, projected))


@pytest.mark.parametrize(
    "n_groups, options, compact",
    [
        (4, {}, True),
        (4, {"method": "naive"}, True),
        (4, {"censoring": "pooled"}, False),
        (2, {}, False),
        (4, {"cluster": np.arange(300) % 37}, False),
    ],
    ids=["group-censoring", "naive", "pooled", "two-groups", "cluster"],
)
def test_standard_errors_read_the_compact_rows_and_equal_the_dense_ones(n_groups, options, compact):
    res = _result(n_groups, **options)
    rows = res._rows
    assert (rows.layout is not None) == compact
    frame = res.to_frame()
    summaries = res.summaries()
    if compact:  # nothing of size n x G^2 was made for them
        assert rows.observed.shape[1] == 2 * n_groups
        assert "model_based_cells" not in rows.__dict__
        assert "observed_cells" not in rows.__dict__
    cells = np.eye(n_groups**2)
    for of, column in (
        ("excess", "excess_se"),
        ("model_based", "model_based_se"),
        ("observed", "observed_se"),
    ):
        se = _dense_se(res, cells, of)
        defined = np.isfinite(frame[column].to_numpy())
        np.testing.assert_array_equal(frame[column].to_numpy()[defined], se[defined])
    pairs = np.array(
        [
            res._pair_weights(kind, res.groups.index(a), res.groups.index(b))
            for kind, a, b in zip(summaries["summary"], summaries["a"], summaries["b"])
        ]
    )
    np.testing.assert_array_equal(summaries["se"].to_numpy(), _dense_se(res, pairs, "excess"))
    assert res.influence.shape == res.observed_influence.shape
    assert res.influence.shape[1] == n_groups**2
