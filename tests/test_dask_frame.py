"""Issue 17: the xCI point estimate of a dask.dataframe (survfair/_xci/on_dask.py), on a
LocalCluster.

The partitions of the time-sorted frame are counted by the in-memory kernel and every pair across
two partitions by a merge count of sorted risks; the censoring curves come from per-time counts.
The result must be the in-memory one: counts exactly, weighted sums and cells to 1e-12.
"""

from __future__ import annotations

import warnings

import dask.dataframe as dd  # noqa: E402
import numpy as np
import pandas as pd
import pytest

import survfair


@pytest.fixture(scope="module")
def cluster_client():
    import logging

    import distributed

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # its per-shuffle notices
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _cohort(n: int = 3000, seed: int = 3) -> pd.DataFrame:
    """Times and risks on a 0.1 grid: ties in time (within partitions) and in risk (across them)."""
    rng = np.random.default_rng(seed)
    event_time = np.round(rng.exponential(1.0, n), 1) + 0.1
    censor_time = np.round(rng.exponential(1.5, n), 1) + 0.1
    time = np.minimum(event_time, censor_time)
    frame = pd.DataFrame(
        {
            "time": time,
            "event": (event_time <= censor_time).astype(int),
            "sex_race": rng.choice(["F|A", "F|B", "M|A"], n),
            "risk": np.round(-event_time + rng.normal(0.0, 1.0, n), 1),
        },
        index=pd.Index(np.arange(n) * 7 + 5, name="pid"),
    )
    # delayed entry (used by the cases that name it): a third of the rows enter before their time
    entry = np.floor(rng.uniform(0.0, 1.0, n) * time * 10.0) / 10.0
    entry[(rng.random(n) < 2 / 3) | (entry >= time)] = 0.0
    return frame.assign(entry=entry)


def _assert_same(in_memory, on_dask):
    for name in ("comparable", "concordant", "tied_risk", "tied_time"):
        np.testing.assert_array_equal(
            getattr(in_memory.pair_counts, name), getattr(on_dask.pair_counts, name), err_msg=name
        )
    for name in ("numerator", "denominator"):
        np.testing.assert_allclose(
            getattr(on_dask.pair_counts, name),
            getattr(in_memory.pair_counts, name),
            rtol=1e-12,
            err_msg=name,
        )
    np.testing.assert_allclose(on_dask.values, in_memory.values, rtol=1e-12, atol=1e-15)
    assert on_dask.groups == in_memory.groups and on_dask.group_sizes == in_memory.group_sizes
    assert on_dask.n_samples == in_memory.n_samples and on_dask.n_excluded == in_memory.n_excluded
    assert on_dask.settings == in_memory.settings
    assert on_dask.min_censoring_survival == in_memory.min_censoring_survival
    if in_memory.censoring_curves is not None:  # the same Kaplan-Meier fits, to the last bit
        for mine, theirs in zip(
            on_dask.censoring_curves.survival, in_memory.censoring_curves.survival
        ):
            np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize(
    "options",
    [
        dict(method="naive"),
        dict(tau=2.0),
        dict(tau=2.0, censoring="pooled"),
        dict(tau=1.5, strict=True),
        dict(method="naive", tied_tol=0.15),
        dict(method="naive", tau=2.0),  # issue 33.6: the naive estimator truncates too
        dict(tau=2.0, tied_tol=0.0),
        dict(tau=2.0, entry="entry"),
        dict(method="naive", entry="entry"),
        dict(tau=2.0, censoring="pooled", entry="entry"),
    ],
)
def test_dask_frame_gives_the_in_memory_point_estimate(cluster_client, options):
    frame = _cohort()
    in_memory = survfair.xci("time", "event", "sex_race", "risk", data=frame, ci=None, **options)
    for partitions in (1, 2, 7):
        on_dask = survfair.xci(
            "time",
            "event",
            "sex_race",
            "risk",
            data=dd.from_pandas(frame, npartitions=partitions),
            ci=None,
            **options,
        )
        _assert_same(in_memory, on_dask)


def test_dask_frame_from_a_directory_of_parquet_files_with_a_subset_of_groups(
    cluster_client, tmp_path
):
    frame = _cohort(seed=4)
    for k, part in enumerate(np.array_split(frame, 5)):  # a registry delivered as five files
        part.to_parquet(tmp_path / f"part-{k}.parquet")
    lazy = dd.read_parquet(str(tmp_path))
    with pytest.warns(survfair.ExcludedRowsWarning):
        in_memory = survfair.xci(
            "time", "event", "sex_race", "risk", data=frame, ci=None, tau=2.0, groups=["M|A", "F|A"]
        )
    with pytest.warns(survfair.ExcludedRowsWarning):
        on_dask = survfair.xci(
            "time", "event", "sex_race", "risk", data=lazy, ci=None, tau=2.0, groups=["M|A", "F|A"]
        )
    assert on_dask.groups == ("M|A", "F|A")
    _assert_same(in_memory, on_dask)


def test_dask_frame_errors_name_rows_options_and_columns(cluster_client):
    frame = _cohort(400)
    frame.loc[frame.index[[10, 300]], "time"] = -1.0
    lazy = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(
        ValueError, match=r"time must be >= 0; negative values at rows \[75, 2105\]"
    ):  # index labels
        survfair.xci("time", "event", "sex_race", "risk", data=lazy, ci=None, method="naive")
    good = dd.from_pandas(_cohort(400), npartitions=3)
    with pytest.raises(ValueError, match=r"or the analytic intervals \(ci='analytic'\)"):
        survfair.xci("time", "event", "sex_race", "risk", data=good, ci="bootstrap")
    with pytest.raises(ValueError, match="censoring_reference, cause are not supported"):
        survfair.xci(
            "time",
            "event",
            "sex_race",
            "risk",
            data=good,
            ci=None,
            censoring_reference=(np.ones(3), np.ones(3), ["F|A"] * 3),
            cause=1,
        )
    with pytest.raises(ValueError, match="entry must name one of its columns; got 'start'"):
        survfair.xci("time", "event", "sex_race", "risk", data=good, ci=None, entry="start")
    with pytest.raises(ValueError, match="risk must name one of its columns; got 'score'"):
        survfair.xci("time", "event", "sex_race", "score", data=good, ci=None)


def test_dask_frame_positivity_and_no_pair(cluster_client):
    # group a's last rows: an event and a censoring at time 3, so K_a(3) = 0 and the event's weight
    # is infinite
    frame = pd.DataFrame(
        {
            "time": [1.0, 2.0, 3.0, 3.0, 4.0, 5.0],
            "event": [1, 0, 1, 0, 1, 0],
            "g": list("abaabb"),
            "risk": [6.0, 5, 4, 3, 2, 1],
        }
    )
    lazy = dd.from_pandas(frame, npartitions=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", survfair.PositivityWarning)
        with pytest.raises(survfair.PositivityError) as in_memory:
            survfair.xci("time", "event", "g", "risk", data=frame, ci=None)
        with pytest.raises(survfair.PositivityError) as on_dask:
            survfair.xci("time", "event", "g", "risk", data=lazy, ci=None)
    assert str(on_dask.value) == str(in_memory.value) and "group 'a' is 0 at time 3" in str(
        on_dask.value
    )
    none = dd.from_pandas(frame.assign(event=0), npartitions=2)
    with pytest.raises(survfair.NoComparablePairError):
        survfair.xci("time", "event", "g", "risk", data=none, ci=None, method="naive")
