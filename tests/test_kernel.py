"""The per-individual contributions add up to every cell from the earlier and from the later side."""

import numpy as np
import pytest

from survfair._censoring import fit_censoring, inverse_censoring
from survfair._kernel import count_pairs, count_pairs_and_contributions
from survfair._validation import check_survival_inputs
from conftest import make_data


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("method", ["naive", "ipcw"])
@pytest.mark.parametrize("n_groups", [1, 3])
def test_contributions_sum_to_cells(strict, method, n_groups):
    time, event, codes, risk = make_data(400, n_groups, 21)
    sample, _ = check_survival_inputs(time, event, codes, risk)
    inverse_k = inverse_censoring(fit_censoring(sample, "group")) if method == "ipcw" else None
    tau = 20.0 if method == "ipcw" else None
    args = (sample.time, sample.event, sample.group_codes, sample.risk, n_groups)
    counts, bad = count_pairs(*args, inverse_k=inverse_k, tau=tau, strict=strict)
    assert bad is None
    parts = count_pairs_and_contributions(*args, inverse_k=inverse_k, tau=tau, strict=strict)[2].in_input_order()
    g = sample.group_codes
    for a in range(n_groups):
        for b in range(n_groups):
            for name, cell in (("numerator", counts.numerator), ("denominator", counts.denominator)):
                earlier = getattr(parts, f"earlier_{name}")[g == a, b].sum()
                later = getattr(parts, f"later_{name}")[g == b, a].sum()
                assert earlier == pytest.approx(cell[a, b], rel=1e-12, abs=1e-9)
                assert later == pytest.approx(cell[a, b], rel=1e-12, abs=1e-9)


def test_rank_sets_across_block_boundaries():
    """Group sizes spanning many 512-rank blocks and 64-weight blocks, with ties in risk."""
    time, event, codes, risk = make_data(3000, 2, 5, n_risks=700, n_times=400)
    args = (time, event, codes, risk, 2)
    counts, _ = count_pairs(*args)
    parts = count_pairs_and_contributions(*args)[2].in_input_order()
    for a in range(2):
        for b in range(2):
            assert parts.later_numerator[codes == b, a].sum() == pytest.approx(counts.numerator[a, b], rel=1e-12)
            assert parts.earlier_numerator[codes == a, b].sum() == pytest.approx(counts.numerator[a, b], rel=1e-12)
    # against an O(n^2) count of concordant pairs
    i, j = np.nonzero(event[:, None] & (time[:, None] < time[None, :]) | (event[:, None] & (time[:, None] == time[None, :]) & ~event[None, :]))
    np.testing.assert_array_equal(
        counts.comparable.sum(), i.size
    )
    concordant = (risk[i] > risk[j] + 1e-8).sum()
    assert counts.concordant.sum() == concordant


@pytest.mark.parametrize("tol", [0.0, 1e-8, 0.25])
@pytest.mark.parametrize("n_groups", [1, 3])
def test_preparation_in_blocks_equals_one_sweep(monkeypatch, tol, n_groups):
    """Issue 17: the sorts and the rank sweep on threads, in blocks of the risk order that start
    from the counts of the blocks before them: every array equals the one-sweep preparation, also
    when tie windows (rounded risks, a wide tol) straddle block boundaries."""
    from survfair import _kernel

    rng = np.random.default_rng(5)
    n = 2_000
    time = np.round(rng.exponential(1.0, n), 1)
    event = rng.random(n) < 0.6
    codes = rng.integers(0, n_groups, n)
    risk = np.round(rng.normal(0.0, 1.0, n), 1)  # about 80 rows share each risk
    one = _kernel.prepare_pairs(time, event, codes, risk, n_groups, tol, n_jobs=1)
    monkeypatch.setattr(_kernel, "_MIN_BLOCK_ROWS", 7)
    for n_jobs in (2, 3, 16):
        many = _kernel.prepare_pairs(time, event, codes, risk, n_groups, tol, n_jobs=n_jobs)
        for name in ("order", "time", "event", "codes", "rank", "lower", "tie_row", "upper", "group_sizes"):
            np.testing.assert_array_equal(getattr(one, name), getattr(many, name), err_msg=f"{name}, {n_jobs}")
    # and the one sweep is right: ranks within groups, lower bounds by counting
    order_risk = risk[one.order]
    for m in rng.choice(n, 50, replace=False):
        for b in range(n_groups):
            assert one.lower[m, b] == np.sum((codes == b) & (risk < order_risk[m] - tol))
    for b in range(n_groups):  # ranks within a group: a permutation, increasing with the risk
        members = one.codes == b
        ranks = one.rank[members]
        np.testing.assert_array_equal(np.sort(ranks), np.arange(members.sum()))
        assert np.all(np.diff(order_risk[members][np.argsort(ranks)]) >= 0)
