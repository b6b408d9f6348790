"""Invariances of xCI (hypothesis)."""

import warnings

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import survfair


@st.composite
def survival_data(draw, max_n=40):
    n = draw(st.integers(4, max_n))
    times = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n))
    events = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    groups = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    risks = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
    events[0] = True
    times[0] = min(times) - 1 if min(times) > 1 else 0  # guarantees a comparable pair
    return (np.array(times, float), np.array(events), np.array(groups), np.array(risks, float))


def _xci(time, event, group, risk, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return survfair.xci(time, event, group, risk, **kw)
        except survfair.NoComparablePairError:
            assume(False)


def _safe_tau(time, group):
    """K_g > 0 strictly before group g's last time, so this tau keeps every weight finite."""
    tau = float(min(time[group == g].max() for g in np.unique(group)))
    assume(tau > 0)
    return tau


SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(survival_data(), st.sampled_from(["naive", "ipcw"]))
def test_invariant_under_increasing_transform(data, method):
    time, event, group, risk = data
    tau = _safe_tau(time, group)
    base = _xci(time, event, group, risk, method=method, tau=tau)
    transformed = _xci(time, event, group, np.exp(risk / 3.0) * 7 + 2, method=method, tau=tau)
    np.testing.assert_allclose(transformed.values, base.values, rtol=1e-12, equal_nan=True)


@SETTINGS
@given(survival_data(), st.randoms(use_true_random=False), st.sampled_from(["naive", "ipcw"]))
def test_invariant_under_row_permutation(data, random, method):
    time, event, group, risk = data
    tau = _safe_tau(time, group)
    order = np.array(random.sample(range(len(time)), len(time)))
    base = _xci(time, event, group, risk, method=method, tau=tau)
    permuted = _xci(time[order], event[order], group[order], risk[order], method=method, tau=tau)
    np.testing.assert_allclose(permuted.values, base.values, rtol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(permuted.pair_counts.comparable, base.pair_counts.comparable)


@SETTINGS
@given(survival_data(), st.sampled_from(["naive", "ipcw"]))
def test_reversing_risk_gives_one_minus_xci_without_ties(data, method):
    time, event, group, _ = data
    risk = np.random.default_rng(len(time)).permutation(len(time)).astype(float)  # no tied risks
    tau = _safe_tau(time, group)
    base = _xci(time, event, group, risk, method=method, tau=tau)
    reversed_ = _xci(time, event, group, -risk, method=method, tau=tau)
    np.testing.assert_allclose(
        reversed_.values, 1.0 - base.values, rtol=1e-12, atol=1e-12, equal_nan=True
    )


@SETTINGS
@given(survival_data())
def test_cells_lie_in_unit_interval_and_counts_add_up(data):
    res = _xci(*data, method="naive")
    defined = ~np.isnan(res.values)
    assert ((res.values[defined] >= 0) & (res.values[defined] <= 1)).all()
    pc = res.pair_counts
    np.testing.assert_array_equal(pc.concordant + pc.discordant + pc.tied_risk, pc.comparable)


@SETTINGS
@given(
    data=survival_data(),
    seed=st.integers(0, 2**32 - 1),
    shuffle_which=st.sampled_from(["time", "risk", "group"]),
)
def test_pandas_index_rule(data, seed, shuffle_which):
    """Identical indexes match by position, any other order of the same labels is refused, and
    .to_numpy() of inputs in the same row order gives the positional result."""
    import pandas as pd
    import pytest

    time, event, group, risk = data
    labels = pd.Index(np.random.default_rng(seed).permutation(len(time)) + 1000)
    series = {
        name: pd.Series(v, index=labels)
        for name, v in (("time", time), ("event", event), ("group", group), ("risk", risk))
    }
    base = _xci(time, event, group, risk, method="naive").values
    np.testing.assert_array_equal(_xci(*series.values(), method="naive").values, base)
    order = np.random.default_rng(seed + 1).permutation(len(time))
    assume(not np.array_equal(order, np.arange(len(time))))
    shuffled = dict(series)
    shuffled[shuffle_which] = series[shuffle_which].iloc[order]
    with pytest.raises(ValueError, match="carry pandas indexes that are not identical"):
        survfair.xci(*shuffled.values(), method="naive")
    as_arrays = {k: v.to_numpy() for k, v in series.items()}
    np.testing.assert_array_equal(_xci(*as_arrays.values(), method="naive").values, base)
