"""The moment engine (survfair._core.moments): analytic intervals without stored rows, checked
against the row path (survfair._core.influence) that it replaces where no rows are needed."""

import warnings

import numpy as np
import pytest

import survfair
import survfair._core.inference as inference
import survfair._core.moments as moments
import survfair._xci.estimator as xci_module
from survfair._core.influence import Influence, count_pairs_and_contributions
from survfair._core.intervals import NO_VARIANCE_SE
from survfair._core.kernel import PairOptions, ascending_passes, prepare_pairs
from survfair._core.moments import MomentInfluence


@pytest.fixture(autouse=True)
def engine_at_any_size(moment_engine):
    """These tests are about the engine: it runs on their small cohorts too."""


# The engine sums the same terms in another order (the later members' sums going up the time order,
# the Kaplan-Meier term's F as a total minus what went before): equal to this relative precision,
# with standard errors below NO_VARIANCE_SE counted as 0 (a cell without sampling variability).
TOLERANCE = 1e-9


def _cohort(seed, n=400, groups=3, ties=1, weights=False):
    rng = np.random.default_rng(seed)
    time = np.round(rng.exponential(1.0, n), ties)
    event = rng.random(n) < 0.6
    group = rng.integers(0, groups, n)
    risk = np.round(-time + rng.normal(0, 1, n) + 0.3 * group, ties)
    w = None
    if weights:
        w = rng.exponential(1.0, n)
        w[rng.random(n) < 0.1] = 0.0
    return time, event, group, risk, w


def _row_path(monkeypatch, *args, **kwargs):
    """The same call with the moment engine switched off."""
    with monkeypatch.context() as patch:
        for module in (moments, xci_module, inference):
            patch.setattr(module, "moments_apply", lambda *a, **k: False)
        return survfair.xci(*args, **kwargs)


def _assert_same(engine, rows):
    assert isinstance(engine.influence, MomentInfluence)
    assert isinstance(rows.influence, Influence)
    se_m, se_r = engine.influence.cell_se(), rows.influence.cell_se()
    assert np.array_equal(np.isnan(se_m), np.isnan(se_r))
    fine = np.isfinite(se_r)
    np.testing.assert_allclose(
        se_m[fine], se_r[fine], rtol=TOLERANCE, atol=TOLERANCE * NO_VARIANCE_SE
    )
    cov_m, cov_r = engine.influence.covariance, rows.influence.covariance
    assert np.array_equal(np.isnan(cov_m), np.isnan(cov_r))
    fine = np.isfinite(cov_r)
    scale = np.abs(cov_r[fine]).max()
    np.testing.assert_allclose(cov_m[fine], cov_r[fine], rtol=0, atol=TOLERANCE * scale)
    np.testing.assert_allclose(
        engine.influence.overall_variance, rows.influence.overall_variance, rtol=TOLERANCE
    )
    frame_m, frame_r = engine.to_frame(), rows.to_frame()
    numeric = frame_r.select_dtypes("number").columns
    np.testing.assert_allclose(
        frame_m[numeric].to_numpy(float),
        frame_r[numeric].to_numpy(float),
        rtol=TOLERANCE,
        atol=TOLERANCE * NO_VARIANCE_SE,
    )


SETTINGS = [
    dict(method="ipcw", censoring="group"),
    dict(method="ipcw", censoring="pooled"),
    dict(method="naive"),
    dict(method="ipcw", censoring="group", strict=True),
    dict(method="ipcw", censoring="group", tau=1.2),
    dict(method="naive", tau=0.8, strict=True),
]


@pytest.mark.parametrize("options", SETTINGS)
@pytest.mark.parametrize("groups", [1, 2, 4, 7])
def test_engine_equals_row_path(monkeypatch, options, groups):
    time, event, group, risk, _ = _cohort(groups, groups=groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = survfair.xci(time, event, group, risk, **options)
        rows = _row_path(monkeypatch, time, event, group, risk, **options)
    if options.get("censoring") == "pooled" and groups > moments.MAX_POOLED_GROUPS:
        assert isinstance(engine.influence, Influence)  # every row moves every cell: rows
        return
    _assert_same(engine, rows)


@pytest.mark.parametrize("options", SETTINGS[:4])
def test_case_weights_with_zeros(monkeypatch, options):
    time, event, group, risk, weights = _cohort(11, groups=3, weights=True)
    options = {"tau": 2.0, **options}  # the last rows may weigh 0: K would reach 0 at their time
    engine = survfair.xci(time, event, group, risk, weights=weights, **options)
    rows = _row_path(monkeypatch, time, event, group, risk, weights=weights, **options)
    _assert_same(engine, rows)


def test_censoring_reference_fixed_weights(monkeypatch):
    time, event, group, risk, _ = _cohort(3, groups=3)
    reference = _cohort(4, groups=3)[:3]
    engine = survfair.xci(time, event, group, risk, censoring_reference=reference, tau=1.5)
    rows = _row_path(monkeypatch, time, event, group, risk, censoring_reference=reference, tau=1.5)
    _assert_same(engine, rows)


def test_many_groups_and_a_group_without_events(monkeypatch):
    time, event, group, risk, _ = _cohort(5, n=1500, groups=12)
    event[group == 3] = False  # no earlier member in group 3's row of cells
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = survfair.xci(time, event, group, risk, tau=2.0)
        rows = _row_path(monkeypatch, time, event, group, risk, tau=2.0)
    _assert_same(engine, rows)
    # what the summaries read: differences, contrasts, the pooled C, findings sentences
    for summary in (survfair.pairwise_deltas, survfair.decompose):
        got, want = summary(engine), summary(rows)
        numeric = want.select_dtypes("number").columns
        np.testing.assert_allclose(
            got[numeric].to_numpy(float),
            want[numeric].to_numpy(float),
            rtol=TOLERANCE,
            atol=TOLERANCE * NO_VARIANCE_SE,
        )
    for summary in (
        survfair.overall_c,
        lambda r: survfair.delta_between(r, 0, 1),
        survfair.min_utility,
    ):
        got, want = summary(engine), summary(rows)
        np.testing.assert_allclose(
            [got.value, got.se, *got.confidence_interval, got.p_value],
            [want.value, want.se, *want.confidence_interval, want.p_value],
            rtol=TOLERANCE,
        )
    assert str(survfair.findings(engine)) == str(survfair.findings(rows))


def test_chunks_and_threads_do_not_change_the_numbers(monkeypatch):
    time, event, group, risk, weights = _cohort(8, n=900, groups=4, ties=1, weights=True)
    whole = survfair.xci(time, event, group, risk, weights=weights, n_jobs=1)
    threaded = survfair.xci(time, event, group, risk, weights=weights, n_jobs=2)
    np.testing.assert_array_equal(whole.influence.covariance, threaded.influence.covariance)
    monkeypatch.setattr(
        moments, "CHUNK_ROWS", (7, 7)
    )  # chunks of a few rows, cut at blocks of equal time
    chunked = survfair.xci(time, event, group, risk, weights=weights, n_jobs=2)
    np.testing.assert_allclose(
        chunked.influence.covariance, whole.influence.covariance, rtol=1e-12, atol=1e-18
    )


def test_rows_where_rows_are_needed():
    time, event, group, risk, _ = _cohort(9, groups=3)
    time = time + 0.1  # no time of 0: every row can enter before its time
    cluster = np.arange(time.shape[0]) // 3
    assert isinstance(survfair.xci(time, event, group, risk, cluster=cluster).influence, Influence)
    entry = np.minimum(time / 2, 0.05)
    assert isinstance(survfair.xci(time, event, group, risk, entry=entry).influence, Influence)
    status = np.where(event, 1 + (np.arange(time.shape[0]) % 2), 0)
    assert isinstance(survfair.xci(time, status, group, risk, cause=1).influence, Influence)
    assert isinstance(survfair.xci(time, event, group, risk).influence, MomentInfluence)


def test_paired_comparison_reads_the_row_path(monkeypatch):
    time, event, group, risk, _ = _cohort(10, groups=3)
    other = risk + np.random.default_rng(1).normal(0, 1, time.shape[0])
    first = survfair.xci(time, event, group, risk)
    second = survfair.xci(time, event, group, other)
    assert isinstance(first.influence, MomentInfluence)
    engine = survfair.compare_xci(first, second)
    row_first = _row_path(monkeypatch, time, event, group, risk)
    row_second = _row_path(monkeypatch, time, event, group, other)
    rows = survfair.compare_xci(row_first, row_second)
    frame_m, frame_r = engine.to_frame(), rows.to_frame()
    numeric = frame_r.select_dtypes("number").columns
    np.testing.assert_array_equal(
        frame_m[numeric].to_numpy(float), frame_r[numeric].to_numpy(float)
    )


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("tau", [None, 1.0])
def test_role_counts_in_closed_form(strict, weights, tau):
    """DeLong's members per role and cell, from the closed form, equal those counted on the row
    path's contributions (positive denominators)."""
    for seed in range(5):
        time, event, group, risk, w = _cohort(seed, n=300, groups=3, ties=0, weights=weights)
        prep = prepare_pairs(time, event, group, risk, 3, 1e-8, case_weight=w)
        options = PairOptions(tau=np.inf if tau is None else tau, strict=strict)
        _, _, contributions = count_pairs_and_contributions(prep, options)
        codes = prep.codes
        m_e, m_l, earlier, later = moments._role_counts(prep, 3, options.tau, strict)
        ed, ld = contributions.earlier_denominator > 0, contributions.later_denominator > 0
        expected_e = np.array([[ed[codes == a, b].sum() for b in range(3)] for a in range(3)])
        expected_l = np.array([[ld[codes == b, a].sum() for b in range(3)] for a in range(3)])
        np.testing.assert_array_equal(m_e.reshape(3, 3), expected_e)
        np.testing.assert_array_equal(m_l.reshape(3, 3), expected_l)
        assert earlier == ed.any(axis=1).sum() and later == ld.any(axis=1).sum()


@pytest.mark.parametrize("strict", [False, True])
def test_ascending_passes_equal_descending(strict):
    """Every row's sums as the earlier and the later member, walking up the time order in chunks,
    equal the column passes' walking down (to rounding; the same zeros)."""
    time, event, group, risk, w = _cohort(12, n=500, groups=3, ties=1, weights=True)
    prep = prepare_pairs(time, event, group, risk, 3, 1e-8, case_weight=w)
    _, _, contributions = count_pairs_and_contributions(prep, PairOptions(tau=1.5, strict=strict))
    passes = ascending_passes(prep, PairOptions(tau=1.5, strict=strict, n_jobs=2))
    sums = [np.zeros((500, 3)) for _ in range(4)]
    stops = moments._chunk_stops(prep.time, 37)
    start = 0
    for stop in stops:
        parts = [
            np.zeros((3, stop - start)).T,
            np.zeros((3, stop - start)).T,
            np.empty((stop - start, 3)),
            np.empty((stop - start, 3)),
        ]
        passes.advance(int(start), int(stop), *parts, 2)
        for whole, part in zip(sums, parts):
            whole[start:stop] = part
        start = stop
    expected = (
        contributions.earlier_numerator,
        contributions.earlier_denominator,
        contributions.later_numerator,
        contributions.later_denominator,
    )
    for got, want in zip(sums, expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    # the same positive denominators (DeLong's members); a numerator of 0 is a rounding residue of
    # about 1e-15 in either direction (a difference of running totals)
    for got, want in zip(sums[1::2], expected[1::2]):
        assert np.array_equal(got > 0, want > 0)


def test_chunk_sizes():
    assert moments.chunk_rows(1) == moments.CHUNK_ROWS[1]
    assert moments.chunk_rows(32) * 8 * (6 * 32 + 2) <= moments.CHUNK_BYTES
    assert moments.chunk_rows(10**6) == moments.CHUNK_ROWS[0]


def test_chunk_stops_keep_blocks_of_equal_time_whole():
    time = np.array([0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 4], float)
    stops = moments._chunk_stops(time, 2)
    assert stops[-1] == time.shape[0]
    assert all(time[stop - 1] != time[stop] for stop in stops[:-1])
    assert np.all(np.diff(stops) > 0)


def test_the_engine_takes_over_where_the_rows_would_take_more_than_two_gib(monkeypatch):
    """The row path below ROW_PATH_BYTES (faster there on one thread), the engine above it."""
    import types

    monkeypatch.setattr(moments, "ROW_PATH_BYTES", 2 * 2**30)
    time, event, group, risk, _ = _cohort(13, groups=8)
    assert isinstance(survfair.xci(time, event, group, risk).influence, Influence)
    prep = prepare_pairs(time, event, group, risk, 8, 1e-8)
    for n, engine in (
        (10**6, False),
        (10**7, True),
        (10**8, True),
    ):  # 8 n (4G + 1) bytes: 0.26, 2.6, 26 GB
        sample = types.SimpleNamespace(n_groups=8, n_samples=n, cluster=None)
        assert moments.moments_apply(sample, prep, "group") is engine
    sample = types.SimpleNamespace(n_groups=2, n_samples=10**7, cluster=None)  # 0.72 GB of rows
    assert not moments.moments_apply(sample, prep, "group")


@pytest.mark.parametrize("options", [SETTINGS[0], SETTINGS[2], SETTINGS[4]])
def test_engine_with_rank_bounds_by_column(monkeypatch, options):
    """The ascending passes read column-major rank bounds (from BOUNDS_BY_COLUMN groups on) as
    they read row-major ones: the same standard errors, to the bit."""
    import survfair._core.kernel as kernel

    time, event, group, risk, _ = _cohort(3, groups=5)
    results = []
    for by_column in (6, 1):
        monkeypatch.setattr(kernel, "BOUNDS_BY_COLUMN", by_column)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = survfair.xci(time, event, group, risk, **options)
        assert isinstance(result.influence, MomentInfluence)
        results.append(result.influence.covariance)
    assert results[0].tobytes() == results[1].tobytes()
