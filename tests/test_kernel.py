"""The per-individual contributions add up to every cell from the earlier and from the later
side."""

import dataclasses

import numpy as np
import pytest
from conftest import make_data
from hypothesis import given, settings
from hypothesis import strategies as st

from survfair._compiled import _pairs
from survfair._core import kernel
from survfair._core.censoring import fit_censoring, inverse_censoring
from survfair._core.kernel import (
    PairOptions,
    count_pairs,
    count_pairs_and_contributions,
    prepare_pairs,
)
from survfair._core.settings import EstimatorSettings
from survfair._core.validation import check_survival_inputs

#: the kernel's options when the pairs are neither weighted nor truncated
PLAIN = PairOptions()


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("method", ["naive", "ipcw"])
@pytest.mark.parametrize("n_groups", [1, 3])
def test_contributions_sum_to_cells(strict, method, n_groups):
    time, event, codes, risk = make_data(400, n_groups, 21)
    sample, _ = check_survival_inputs(time, event, codes, risk)
    inverse_k = inverse_censoring(fit_censoring(sample, "group")) if method == "ipcw" else None
    tau = 20.0 if method == "ipcw" else np.inf
    rows = prepare_pairs(sample.time, sample.event, sample.group_codes, sample.risk, n_groups, 1e-8)
    options = PairOptions(tau=tau, strict=strict, inverse_k=inverse_k)
    counts, bad = count_pairs(rows, options)
    assert bad is None
    parts = count_pairs_and_contributions(rows, options)[2].in_input_order()
    g = sample.group_codes
    for a in range(n_groups):
        for b in range(n_groups):
            for name, cell in (
                ("numerator", counts.numerator),
                ("denominator", counts.denominator),
            ):
                earlier = getattr(parts, f"earlier_{name}")[g == a, b].sum()
                later = getattr(parts, f"later_{name}")[g == b, a].sum()
                assert earlier == pytest.approx(cell[a, b], rel=1e-12, abs=1e-9)
                assert later == pytest.approx(cell[a, b], rel=1e-12, abs=1e-9)


def test_rank_sets_across_block_boundaries():
    """Group sizes spanning many 512-rank blocks and 64-weight blocks, with ties in risk."""
    time, event, codes, risk = make_data(3000, 2, 5, n_risks=700, n_times=400)
    rows = prepare_pairs(time, event, codes, risk, 2, 1e-8)
    counts, _ = count_pairs(rows, PLAIN)
    parts = count_pairs_and_contributions(rows, PLAIN)[2].in_input_order()
    for a in range(2):
        for b in range(2):
            assert parts.later_numerator[codes == b, a].sum() == pytest.approx(
                counts.numerator[a, b], rel=1e-12
            )
            assert parts.earlier_numerator[codes == a, b].sum() == pytest.approx(
                counts.numerator[a, b], rel=1e-12
            )
    # against an O(n^2) count of concordant pairs
    i, j = np.nonzero(
        event[:, None] & (time[:, None] < time[None, :])
        | (event[:, None] & (time[:, None] == time[None, :]) & ~event[None, :])
    )
    np.testing.assert_array_equal(counts.comparable.sum(), i.size)
    concordant = (risk[i] > risk[j] + 1e-8).sum()
    assert counts.concordant.sum() == concordant


@pytest.mark.parametrize("tol", [0.0, 1e-8, 0.25])
@pytest.mark.parametrize("n_groups", [1, 3])
def test_preparation_in_blocks_equals_one_sweep(monkeypatch, tol, n_groups):
    """Issue 17: the sorts and the rank sweep on threads, in blocks of the risk order that start
    from the counts of the blocks before them: every array equals the one-sweep preparation, also
    when tie windows (rounded risks, a wide tol) straddle block boundaries."""
    from survfair._core import kernel as _kernel

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
        for name in (
            "order",
            "time",
            "event",
            "codes",
            "rank",
            "lower",
            "tie_row",
            "upper",
            "group_sizes",
        ):
            np.testing.assert_array_equal(
                getattr(one, name), getattr(many, name), err_msg=f"{name}, {n_jobs}"
            )
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


def _pair_loop_contributions(time, event, codes, risk, n_groups, weights, entry, strict):
    """Every row's sums as the earlier and as the later member, by a loop over all pairs."""
    n = time.size
    e_num, e_den, l_num, l_den = (np.zeros((n, n_groups)) for _ in range(4))
    for i in np.flatnonzero(event):
        for j in range(n):
            later = time[i] < time[j] or (not strict and time[i] == time[j] and not event[j])
            if j == i or not later or not entry[j] < time[i]:
                continue
            w = weights[i] * weights[j]
            tied = abs(risk[i] - risk[j]) <= 1e-8
            h = 1.0 if risk[i] - risk[j] > 1e-8 else (0.0 if strict else 0.5) if tied else 0.0
            e_num[i, codes[j]] += w * h
            e_den[i, codes[j]] += w
            l_num[j, codes[i]] += w * h
            l_den[j, codes[i]] += w
    return e_num, e_den, l_num, l_den


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_groups=st.integers(1, 4),
    strict=st.booleans(),
    weighted=st.booleans(),
    delayed=st.booleans(),
)
def test_contributions_equal_the_pair_loop(seed, n_groups, strict, weighted, delayed):
    """Both members' sums of every row (the later member's now gathered in the column pass itself)
    against a loop over all pairs: ties in time and risk, strict or not, case weights (some 0) and
    delayed entry (some rows entering at or after their own time are never later members)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    time = rng.integers(1, 12, n).astype(float)
    event = rng.random(n) < 0.6
    codes = rng.integers(0, n_groups, n)
    risk = rng.integers(0, 8, n) / 4.0
    weights = (
        np.where(rng.random(n) < 0.15, 0.0, rng.exponential(1.0, n)) if weighted else np.ones(n)
    )
    entry = (
        np.where(rng.random(n) < 0.5, rng.random(n) * time * 1.2, 0.0) if delayed else np.zeros(n)
    )
    rows = prepare_pairs(
        time,
        event,
        codes,
        risk,
        n_groups,
        1e-8,
        case_weight=weights if weighted else None,
        entry=entry if delayed else None,
    )
    _, _, parts = count_pairs_and_contributions(rows, PairOptions(strict=strict))
    parts = parts.in_input_order()
    got = (
        parts.earlier_numerator,
        parts.earlier_denominator,
        parts.later_numerator,
        parts.later_denominator,
    )
    for value, expected in zip(
        got, _pair_loop_contributions(time, event, codes, risk, n_groups, weights, entry, strict)
    ):
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_groups", [1, 3])
def test_perfect_ranking_has_numerators_exactly_equal_to_denominators(n_groups):
    """A perfect ranking (every earlier event outranks every later member) gives every row
    numerators exactly equal to its denominators, so its influence is exactly 0 and the cells get
    the point interval [1, 1] rather than a rounding-sized standard error. With case weights the
    later member's sums stay exact too (the earlier member's weighted sums are two different
    sums)."""
    rng = np.random.default_rng(8)
    time, event, codes = (
        rng.permutation(3000) + 1.0,
        rng.random(3000) < 0.6,
        rng.integers(0, n_groups, 3000),
    )
    rows = prepare_pairs(time, event, codes, -time, n_groups, 1e-8)
    _, _, parts = count_pairs_and_contributions(rows, PLAIN)
    np.testing.assert_array_equal(parts.earlier_numerator, parts.earlier_denominator)
    np.testing.assert_array_equal(parts.later_numerator, parts.later_denominator)
    weighted = prepare_pairs(
        time, event, codes, -time, n_groups, 1e-8, case_weight=rng.exponential(1.0, 3000)
    )
    _, _, parts = count_pairs_and_contributions(weighted, PLAIN)
    np.testing.assert_array_equal(parts.later_numerator, parts.later_denominator)


@pytest.mark.parametrize("options", ["plain", "weighted", "competing"])
def test_threads_give_bit_identical_results(options):
    """n_jobs=1 and n_jobs=2 give the same bits: with 120,000 rows the preparation really runs in
    two blocks (``_MIN_BLOCK_ROWS`` is 50,000) and the column passes on two OpenMP threads, each
    pass writing only its own column."""
    from survfair._core import kernel as _kernel
    from survfair._core.censoring import CensoringCurves, censoring_kaplan_meier, inverse_censoring

    assert _kernel._parts(120_000, 2) == 2
    rng = np.random.default_rng(11)
    n, n_groups = 120_000, 3
    time = np.round(rng.exponential(1.0, n), 3)
    state = rng.random(n)
    event = state < 0.5
    codes = rng.integers(0, n_groups, n).astype(np.int32)
    risk = np.round(rng.normal(0.0, 1.0, n) + 0.2 * codes, 3)
    kwargs = {}
    if options == "weighted":
        weights = rng.uniform(0.5, 2.0, n)
        weights[rng.random(n) < 0.05] = 0.0
        kwargs = dict(
            case_weight=weights,
            entry=time * rng.uniform(0, 0.5, n) * (rng.random(n) < 0.3),
            row_weight=rng.uniform(0.5, 1.5, n),
        )
    if options == "competing":
        kwargs = dict(competing=(state >= 0.5) & (state < 0.7))
    steps = [censoring_kaplan_meier(time[codes == g], event[codes == g]) for g in range(n_groups)]
    inverse_k = inverse_censoring(
        CensoringCurves(
            "group", tuple(range(n_groups)), tuple(s[0] for s in steps), tuple(s[1] for s in steps)
        )
    )
    results = []
    for n_jobs in (1, 2):
        preparation = dict(
            case_weight=kwargs.get("case_weight"),
            entry=kwargs.get("entry"),
            competing=kwargs.get("competing"),
        )
        prep = _kernel.prepare_pairs(
            time, event, codes, risk, n_groups, 1e-8, n_jobs=n_jobs, **preparation
        )
        weighing = PairOptions(  # the rest is in the prepared rows
            inverse_k=inverse_k, row_weight=kwargs.get("row_weight"), n_jobs=n_jobs
        )
        truncated = dataclasses.replace(weighing, tau=float(np.quantile(time, 0.9)))
        counts, bad, contributions = count_pairs_and_contributions(prep, truncated)
        point, _ = count_pairs(prep, weighing)
        arrays = [
            getattr(prep, name)
            for name in ("order", "rank", "lower", "tie_row", "upper", "group_sizes")
        ]
        arrays += [
            getattr(c, name)
            for c in (counts, point)
            for name in (
                "comparable",
                "concordant",
                "tied_risk",
                "tied_time",
                "numerator",
                "denominator",
            )
        ]
        arrays += [
            contributions.earlier_numerator,
            contributions.earlier_denominator,
            contributions.later_numerator,
            contributions.later_denominator,
        ]
        arrays += list(contributions.second_kind or ())
        results.append((arrays, bad))
    assert results[0][1] == results[1][1]
    for one, two in zip(results[0][0], results[1][0]):
        np.testing.assert_array_equal(one, two)
        assert one.tobytes() == two.tobytes()


def test_int64_indices_and_wide_group_codes_give_the_same_numbers():
    """The compiled passes take int64 index arrays (n >= 2^31) and group codes of the index dtype
    (G > 32767) as well as int32 / int16 ones, without copies: the same numbers."""
    import dataclasses

    from survfair._core import kernel as _kernel

    rng = np.random.default_rng(3)
    n, n_groups = 3_000, 4
    time = np.round(rng.exponential(1.0, n), 2)
    state = rng.random(n)
    event, competing = state < 0.5, (state >= 0.5) & (state < 0.7)
    codes = rng.integers(0, n_groups, n)
    risk = np.round(rng.normal(0.0, 1.0, n), 2)
    entry = time * rng.uniform(0, 0.5, n) * (rng.random(n) < 0.3)
    weights = rng.uniform(0.5, 2.0, n)
    prep = _kernel.prepare_pairs(
        time,
        event,
        codes,
        risk,
        n_groups,
        1e-8,
        case_weight=weights,
        entry=entry,
        competing=competing,
    )
    assert prep.rank.dtype == np.int32 and prep.codes.dtype == np.int16
    wide = dataclasses.replace(
        prep,
        codes=prep.codes.astype(np.int64),
        rank=prep.rank.astype(np.int64),
        lower=prep.lower.astype(np.int64),
        tie_row=prep.tie_row.astype(np.int64),
        upper=prep.upper.astype(np.int64),
        entry_asc=prep.entry_asc.astype(np.int64),
        leave=(
            prep.leave[0],
            prep.leave[1].astype(np.int64),
            prep.leave[2].astype(np.int64),
            prep.leave[3],
        ),
    )
    narrow_codes = dataclasses.replace(prep, codes=prep.codes.astype(np.int32))
    outputs = []
    for prepared in (prep, wide, narrow_codes):
        counts, bad, contributions = count_pairs_and_contributions(prepared, PairOptions(tau=2.0))
        outputs.append(
            [
                counts.comparable,
                counts.concordant,
                counts.numerator,
                counts.denominator,
                contributions.earlier_numerator,
                contributions.later_numerator,
            ]
        )
    for other in outputs[1:]:
        for one, two in zip(outputs[0], other):
            np.testing.assert_array_equal(one, two)


def test_options_travel_as_one_object_with_one_encoding_of_no_truncation():
    """The kernel takes its options as one frozen PairOptions: the settings' None becomes inf once,
    in PairOptions.of (a None later is refused, not read as a second encoding); the naive
    estimator has no censoring weights even when curves are given; the factored passes refuse
    weights that their factors replace."""
    rng = np.random.default_rng(3)
    time, event = rng.exponential(1.0, 50), rng.random(50) < 0.6
    codes, risk, weights = rng.integers(0, 2, 50), rng.normal(size=50), rng.uniform(0.5, 2.0, 50)
    sample, _ = check_survival_inputs(time, event, codes, risk)
    curves = fit_censoring(sample, "group")
    naive = PairOptions.of(EstimatorSettings("naive"), curves)
    assert naive == PairOptions() and not naive.truncated
    ipcw = PairOptions.of(EstimatorSettings("ipcw", 2, strict=True), curves, n_jobs=2)
    assert (ipcw.tau, ipcw.strict, ipcw.n_jobs, ipcw.truncated) == (2.0, True, 2, True)
    assert isinstance(ipcw.tau, float) and ipcw.inverse_k is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        ipcw.tau = 3.0
    with pytest.raises(TypeError, match="tau must be a number \\(inf: no truncation\\)"):
        PairOptions(tau=None)
    prepared = prepare_pairs(time, event, codes, risk, 2, 1e-8, case_weight=weights)
    assert prepared.n_groups == 2
    # inf is no truncation: the same numbers as a tau beyond every time
    beyond, _ = count_pairs(prepared, PairOptions(tau=float(time.max()) + 1.0))
    untruncated, _ = count_pairs(prepared, PLAIN)
    np.testing.assert_array_equal(beyond.numerator, untruncated.numerator)
    np.testing.assert_array_equal(beyond.denominator, untruncated.denominator)
    with pytest.raises(ValueError, match="the factors replace inverse_k and row_weight"):
        kernel.count_pairs_factored(
            prepared, ipcw, own=np.ones(50), later_weight=np.ones(50), column_curves=[]
        )


def test_the_compiled_passes_check_each_array_where_it_crosses():
    """The one entry into the compiled passes fills its C struct from the bundles and refuses an
    array of the wrong type or layout by name (never reads it as another type)."""
    rng = np.random.default_rng(4)
    n = 40
    time, event = rng.exponential(1.0, n), rng.random(n) < 0.6
    codes, risk = rng.integers(0, 2, n), rng.normal(size=n)
    prep = prepare_pairs(time, event, codes, risk, 2, 1e-8)
    inputs = kernel.PassInputs.of(prep)
    weights = kernel.pass_weights(prep, PairOptions(tau=1.0))
    cells = tuple(np.zeros((2, 2), t) for t in (np.int64,) * 4 + (np.float64,) * 2)
    nothing = np.empty((0, 0))
    outputs = kernel.PassOutputs(
        (nothing,) * 2, (nothing,) * 2, (nothing,) * 4, cells, np.full(2, -1, np.int64)
    )
    _pairs.column_passes(inputs, weights, outputs, False, 1)
    expected, _ = count_pairs(prep, PairOptions(tau=1.0))
    np.testing.assert_array_equal(cells[0], expected.comparable)
    np.testing.assert_array_equal(cells[4], expected.numerator)
    strided = dataclasses.replace(inputs, time=np.repeat(inputs.time, 2)[::2])
    with pytest.raises(
        TypeError, match="the passes' time: a C-ordered float64 array, not a strided"
    ):
        _pairs.column_passes(strided, weights, outputs, False, 1)
    floating = dataclasses.replace(inputs, rank=inputs.rank.astype(float))
    with pytest.raises(TypeError, match="the passes' rank: int32 or int64 positions"):
        _pairs.column_passes(floating, weights, outputs, False, 1)
    short = dataclasses.replace(inputs, tie_row=inputs.tie_row[:3].copy())
    with pytest.raises(ValueError, match="the passes' tie_row: 3 rows, not 40"):
        _pairs.column_passes(short, weights, outputs, False, 1)
    frozen = tuple(cell.copy() for cell in cells)
    frozen[0].flags.writeable = False
    with pytest.raises(TypeError, match="the passes' counts: a writable C-ordered int64 array"):
        _pairs.column_passes(inputs, weights, dataclasses.replace(outputs, cells=frozen), False, 1)
    with pytest.raises(ValueError, match=r"the passes' earlier numerators: shape \(3, 2\)"):
        _pairs.column_passes(
            inputs, weights, dataclasses.replace(outputs, earlier=(np.zeros((3, 2)),) * 2), True, 1
        )
    with pytest.raises(TypeError, match="int32 positions and int16 codes"):
        _pairs.AscendingPasses(
            dataclasses.replace(inputs, codes=inputs.codes.astype(np.int64)), weights, 1
        )


@pytest.mark.parametrize("options", ["plain", "weighted", "competing"])
def test_rank_bounds_by_column_give_the_same_bits(monkeypatch, options):
    """From BOUNDS_BY_COLUMN groups on the rank bounds are column-major (each column pass then reads
    its bounds in one sequential run): the counts and every row's contributions are the same bits
    as from row-major bounds."""
    rng = np.random.default_rng(5)
    n, n_groups = 3_000, 5
    time = np.round(rng.exponential(1.0, n), 2)
    state = rng.random(n)
    event = state < 0.5
    codes = rng.integers(0, n_groups, n).astype(np.int32)
    risk = np.round(rng.normal(0.0, 1.0, n) + 0.2 * codes, 2)
    rows = {}
    if options == "weighted":
        rows = dict(case_weight=rng.uniform(0.5, 2.0, n), entry=time * rng.uniform(0, 0.5, n))
    if options == "competing":
        rows = dict(competing=(state >= 0.5) & (state < 0.7))
    results = []
    for by_column in (n_groups + 1, 1):
        monkeypatch.setattr(kernel, "BOUNDS_BY_COLUMN", by_column)
        prep = prepare_pairs(time, event, codes, risk, n_groups, 1e-8, **rows)
        assert prep.lower.flags.f_contiguous == (by_column == 1)
        assert prep.lower.flags.c_contiguous == (by_column != 1)
        counts, bad, contributions = count_pairs_and_contributions(prep, PairOptions(tau=1.5))
        arrays = [prep.lower, prep.upper, counts.numerator, counts.denominator, counts.concordant]
        arrays += [
            contributions.earlier_numerator,
            contributions.earlier_denominator,
            contributions.later_numerator,
            contributions.later_denominator,
            *(contributions.second_kind or ()),
        ]
        results.append(arrays)
    for row_major, column_major in zip(*results):
        assert (
            np.ascontiguousarray(row_major).tobytes()
            == np.ascontiguousarray(column_major).tobytes()
        )


def test_rank_bounds_stay_row_major_where_their_copy_would_not_fit(monkeypatch):
    """The column-major copy of the rank bounds is made only where it fits beside them: with too
    little memory they stay row-major (the same numbers, only slower passes)."""
    rng = np.random.default_rng(2)
    n, n_groups = 400, 20
    args = (rng.exponential(1.0, n), rng.random(n) < 0.6, rng.integers(0, n_groups, n))
    args += (rng.normal(size=n).round(1), n_groups, 1e-8)
    assert prepare_pairs(*args).lower.flags.f_contiguous
    monkeypatch.setattr(kernel, "available_memory", lambda: 1_000)
    assert prepare_pairs(*args).lower.flags.c_contiguous
