"""Issue 43.1: analytic intervals of the xCI of a dask.dataframe
(survfair/_xci/on_dask_inference.py).

The covariance is formed from every partition's influence rows without gathering them; it must be
the in-memory ``xci(..., ci="analytic")`` covariance (Kaplan-Meier term of the censoring weights
included) to 1e-10: cells, standard errors, covariance, the pooled C's variance and the Δ
summaries, on random cohorts with ties in time and in risk, tau, several partitions (some without
events), one to four groups, case weights, both censoring fits and both estimators; and with
delayed entry (``entry=``), whose entry times fall in earlier partitions' ranges, with ``ci=None``
and ``ci="analytic"``, case weights and clusters.
"""

from __future__ import annotations

import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import survfair
from survfair._xci.on_dask import _sorted_partitions

COLUMNS = ("time", "event", "g", "risk")


def _in_process():
    """Dask in this process, one task at a time (its sort then shuffles by tasks)."""
    return dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"})


def _cohort(n: int, n_groups: int, seed: int, *, weights: bool, quiet_block: bool) -> pd.DataFrame:
    """Times and risks on a 0.1 grid (ties in time within and across groups, in risk across
    partitions); with ``quiet_block`` 40% of the rows are censored at times in [4, 4.5], where no
    event happens, so that a partition of the time-sorted frame holds no event."""
    rng = np.random.default_rng(seed)
    event_time = np.round(rng.exponential(1.0, n), 1) + 0.1
    censor_time = np.round(rng.exponential(1.5, n), 1) + 0.1
    time = np.minimum(event_time, censor_time)
    event = event_time <= censor_time
    if quiet_block:
        quiet = rng.random(n) < 0.4
        time[quiet] = np.round(rng.uniform(4.0, 4.5, quiet.sum()), 1)
        event[quiet] = False
        event[(time >= 4.0) & (time <= 4.5)] = False
    frame = pd.DataFrame(
        {
            "time": time,
            "event": event.astype(int),
            "g": rng.choice(["a", "b", "c", "d"][:n_groups], n),
            "risk": np.round(-event_time + rng.normal(0.0, 1.0, n), 1),
        }
    )
    if weights:
        frame["w"] = rng.choice([0.0, 0.5, 1.0, 2.5], n, p=[0.1, 0.3, 0.4, 0.2])
    return frame


def _settings(count: int = 24, seed: int = 43, *, entry: bool = False) -> list:
    """Random settings: groups 1-4, partitions 1-6, naive / IPCW by group / pooled, tau, strict,
    tie tolerances, weights, and a block of censored rows (a partition without events). With
    ``entry`` (the delayed-entry settings) half have no tau and about a third clusters."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        method = ["naive", "ipcw", "ipcw"][k % 3]
        tau = float(rng.choice([1.5, 2.0, 2.5]))
        options = {"method": method, "tau": None if entry and k // 3 % 2 == 0 else tau}
        if method == "ipcw" and rng.random() < 0.4:
            options["censoring"] = "pooled"
        if rng.random() < 0.25:
            options["strict"] = True
        options["tied_tol"] = float(rng.choice([1e-8, 0.0, 0.15]))
        out.append(
            dict(
                n=int(rng.integers(150, 500)),
                groups=1 + k % 4,
                partitions=int(rng.integers(1, 7)),
                seed=int(rng.integers(1_000_000)),
                weights=bool(rng.random() < 0.5),
                quiet_block=bool(k % 2),
                options=options,
            )
        )
        if entry:
            out[-1]["cluster"] = bool(rng.random() < 0.35)
    return out


SETTINGS = _settings()


def _deviations(in_memory, on_dask) -> dict:
    """Relative deviations of the analytic numbers (absolute where the reference is 0)."""

    def worst(mine, theirs):
        mine, theirs = np.asarray(mine, float), np.asarray(theirs, float)
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
        scale = np.nanmax(np.abs(theirs)) if np.isfinite(theirs).any() else 1.0
        diff = np.abs(mine - theirs)
        return float(np.nanmax(diff) / scale) if np.isfinite(diff).any() else 0.0

    out = {
        "cells": worst(on_dask.values, in_memory.values),
        "se": worst(on_dask.se.values, in_memory.se.values),
        "covariance": worst(on_dask.covariance, in_memory.covariance),
        "overall variance": worst(
            on_dask.influence.overall_variance, in_memory.influence.overall_variance
        ),
        "intervals": worst(
            np.concatenate([on_dask.ci_low.values, on_dask.ci_high.values]),
            np.concatenate([in_memory.ci_low.values, in_memory.ci_high.values]),
        ),
    }
    groups = in_memory.groups
    for a in groups:
        for b in groups:
            if a == b:
                continue
            for summary in (survfair.delta_between, survfair.delta_within):
                first, second = summary(in_memory, a, b), summary(on_dask, a, b)
                out[f"{summary.__name__} {a}{b}"] = worst(
                    [second.value, second.se, *second.confidence_interval],
                    [first.value, first.se, *first.confidence_interval],
                )
    smallest, mine = survfair.min_xci(in_memory), survfair.min_xci(on_dask)
    assert (smallest.a, smallest.b) == (mine.a, mine.b)
    out["min_xci"] = worst(mine.value, smallest.value)
    return out


def _setting_cohort(setting: dict) -> pd.DataFrame:
    """:func:`_cohort` of one of the random settings."""
    return _cohort(
        setting["n"],
        setting["groups"],
        setting["seed"],
        weights=setting["weights"],
        quiet_block=setting["quiet_block"],
    )


def _both(setting: dict):
    frame = _setting_cohort(setting)
    options = dict(setting["options"], weights="w" if setting["weights"] else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # positivity and undefined cells warn alike on both paths
        in_memory = survfair.xci(*COLUMNS, data=frame, ci="analytic", **options)
        with _in_process():
            lazy = dd.from_pandas(frame, npartitions=setting["partitions"])
            on_dask = survfair.xci(*COLUMNS, data=lazy, ci="analytic", **options)
    return frame, in_memory, on_dask


@pytest.mark.parametrize("setting", SETTINGS, ids=[f"setting{k}" for k in range(len(SETTINGS))])
def test_dask_analytic_equals_in_memory(setting):
    _, in_memory, on_dask = _both(setting)
    assert on_dask.ci_method == "analytic" and on_dask.confidence_level == 0.95
    np.testing.assert_array_equal(on_dask.pair_counts.comparable, in_memory.pair_counts.comparable)
    deviations = _deviations(in_memory, on_dask)
    assert max(deviations.values()) < 1e-10, deviations


def test_a_partition_without_events_is_covered():
    """The settings with the censored block do produce a partition without events (the test
    above covers that case)."""
    setting = next(s for s in SETTINGS if s["quiet_block"] and s["partitions"] >= 4)
    frame = _cohort(
        setting["n"], setting["groups"], setting["seed"], weights=False, quiet_block=True
    )
    labels = tuple(sorted(frame["g"].unique()))
    columns = dict(zip(("time", "event", "group", "risk"), COLUMNS))
    with _in_process():
        lazy = dd.from_pandas(frame, npartitions=setting["partitions"])
        _, summaries = _sorted_partitions(lazy, columns, labels, 2.0, "group")
    assert any(summary["events"].sum() == 0 for summary in summaries)
    assert len(summaries) >= 3


@pytest.fixture
def cluster_client():
    import logging

    import distributed

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_dask_analytic_on_a_local_cluster_with_weights(cluster_client):
    """On a distributed cluster (the partitions on two workers), weights and three groups; the
    result's interval accessors work as in memory."""
    frame = _cohort(1200, 3, 7, weights=True, quiet_block=False)
    in_memory = survfair.xci(*COLUMNS, data=frame, tau=2.0, weights="w")
    on_dask = survfair.xci(
        *COLUMNS, data=dd.from_pandas(frame, npartitions=5), tau=2.0, weights="w"
    )  # ci="analytic" is the default on Dask too
    assert max(_deviations(in_memory, on_dask).values()) < 1e-10
    mine, theirs = on_dask.to_frame(), in_memory.to_frame()
    assert list(mine.columns) == list(theirs.columns)
    np.testing.assert_allclose(
        mine[["xci", "se", "ci_low", "ci_high"]].to_numpy(float),
        theirs[["xci", "se", "ci_low", "ci_high"]].to_numpy(float),
        rtol=1e-10,
    )
    low, high = on_dask.confidence_interval(0.9)
    np.testing.assert_allclose(low, in_memory.confidence_interval(0.9).low, rtol=1e-10)
    np.testing.assert_allclose(high, in_memory.confidence_interval(0.9).high, rtol=1e-10)
    with pytest.raises(NotImplementedError, match="keeps no per-individual influence rows"):
        on_dask.influence.cells


def test_dask_refusals_name_the_option_and_the_remedy():
    frame = _cohort(300, 2, 1, weights=True, quiet_block=False).assign(
        entry=0.0, site=lambda f: np.arange(len(f)) % 7
    )
    lazy = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match=r"got ci='bootstrap'.*compute the frame"):
        survfair.xci(*COLUMNS, data=lazy, ci="bootstrap")
    with pytest.raises(ValueError, match=r"cause is not supported; compute the frame"):
        survfair.xci(*COLUMNS, data=lazy, cause=1)
    with pytest.raises(ValueError, match=r"cause is not supported; compute the frame"):
        survfair.xci(*COLUMNS, data=lazy, entry="entry", cause=1)
    with pytest.raises(TypeError, match=r"entry must name one of its columns; got ndarray"):
        survfair.xci(*COLUMNS, data=lazy, entry=np.zeros(300))
    with pytest.raises(ValueError, match=r"entry must name one of its columns; got 'start'"):
        survfair.xci(*COLUMNS, data=lazy, entry="start")
    late = dd.from_pandas(frame.assign(entry=frame["time"]), npartitions=3)
    with _in_process(), pytest.raises(ValueError, match=r"entry must be before time"):
        survfair.xci(*COLUMNS, data=late, entry="entry", tau=2.0)
    with pytest.raises(TypeError, match=r"cluster must name one of its columns; got list"):
        survfair.xci(*COLUMNS, data=lazy, cluster=list(range(300)))
    with pytest.raises(TypeError, match=r"weights must name one of its columns; got ndarray"):
        survfair.xci(*COLUMNS, data=lazy, weights=np.ones(300))
    with pytest.raises(ValueError, match=r"weights must name one of its columns; got 'wt'"):
        survfair.xci(*COLUMNS, data=lazy, weights="wt")
    negative = dd.from_pandas(frame.assign(w=-frame["w"]), npartitions=3)
    with pytest.raises(ValueError, match="weights"):
        survfair.xci(*COLUMNS, data=negative, tau=2.0, weights="w")


@pytest.mark.parametrize(
    "seed, n_groups, partitions, options",
    [
        (1, 2, 4, dict(tau=2.0)),
        (2, 3, 5, dict(tau=2.0, weights="w")),
        (3, 1, 3, dict(method="naive")),
        (4, 4, 6, dict(censoring="pooled", tau=2.5, weights="w")),
        (5, 3, 1, dict(tau=2.0, strict=True)),
    ],
)
def test_dask_cluster_robust_intervals(seed, n_groups, partitions, options):
    """cluster=: each cluster's rows summed before the products, across partitions (the sites
    below span the time range, so every cluster has rows in several partitions); labels of any
    type."""
    frame = _cohort(500, n_groups, seed, weights=True, quiet_block=bool(seed % 2))
    site = np.random.default_rng(seed).integers(0, 40, len(frame))
    frame["site"] = [f"s{v}" for v in site] if seed % 2 == 0 else site
    in_memory = survfair.xci(*COLUMNS, data=frame, cluster="site", **options)
    with _in_process():
        lazy = dd.from_pandas(frame, npartitions=partitions)
        on_dask = survfair.xci(*COLUMNS, data=lazy, cluster="site", **options)
    assert max(_deviations(in_memory, on_dask).values()) < 1e-10
    # what the result says about its rows is the in-memory result's (Dask keeps no sample)
    assert on_dask.n_clusters == in_memory.n_clusters == len(np.unique(site))
    assert on_dask.weighted == in_memory.weighted
    assert on_dask.to_dict()["n_clusters"] == in_memory.to_dict()["n_clusters"]
    independent = survfair.xci(*COLUMNS, data=frame, **options)
    assert not np.allclose(on_dask.se.values, independent.se.values)  # the clustering matters


def test_dask_single_cluster_warns_as_in_memory():
    frame = _cohort(200, 2, 3, weights=False, quiet_block=True).assign(site="one")
    with pytest.warns(UserWarning, match="single cluster"):
        survfair.xci(*COLUMNS, data=frame, cluster="site", tau=2.0)
    with _in_process(), pytest.warns(UserWarning, match="single cluster"):
        lazy = dd.from_pandas(frame, npartitions=3)
        survfair.xci(*COLUMNS, data=lazy, cluster="site", tau=2.0)


@pytest.mark.parametrize("options", [dict(method="naive"), dict(tau=2.0), dict(censoring="pooled")])
def test_dask_weighted_point_estimate(options):
    """ci=None with case weights: the weighted Kaplan-Meier of the runs' summed weights and the
    weighted merge counts give the in-memory numbers."""
    frame = _cohort(500, 3, 11, weights=True, quiet_block=True)
    options = dict(options, tau=2.0)
    in_memory = survfair.xci(*COLUMNS, data=frame, ci=None, weights="w", **options)
    with _in_process():
        lazy = dd.from_pandas(frame, npartitions=4)
        on_dask = survfair.xci(*COLUMNS, data=lazy, ci=None, weights="w", **options)
    _assert_point_estimate(on_dask, in_memory)


def _assert_point_estimate(on_dask, in_memory) -> None:
    """The counts exactly, the weighted sums and cells to 1e-12, the censoring curves to 1e-13."""
    for name in ("comparable", "concordant", "tied_risk", "tied_time"):
        np.testing.assert_array_equal(
            getattr(on_dask.pair_counts, name), getattr(in_memory.pair_counts, name), name
        )
    for name in ("numerator", "denominator"):
        np.testing.assert_allclose(
            getattr(on_dask.pair_counts, name),
            getattr(in_memory.pair_counts, name),
            rtol=1e-12,
            err_msg=name,
        )
    np.testing.assert_allclose(on_dask.values, in_memory.values, rtol=1e-12)
    if in_memory.censoring_curves is not None:
        for mine, theirs in zip(
            on_dask.censoring_curves.survival, in_memory.censoring_curves.survival
        ):
            np.testing.assert_allclose(mine, theirs, rtol=1e-13)


# ---------------------------------------------------------------------------------------------
# Delayed entry (entry=): the cross-partition pairs, the censoring risk sets on (entry, time] and
# the Kaplan-Meier compensator credited at each entry all reach across partitions.


ENTRY_SETTINGS = _settings(44, 4301, entry=True)


def _entry_cohort(setting: dict) -> pd.DataFrame:
    """:func:`_cohort` with entry times on the 0.1 grid (ties with each other and with times): half
    the rows enter at 0, the others anywhere before their time (so in an earlier partition's
    range, of the time-sorted frame, as often as not); and per group a censored row at a late,
    untied time, at risk from 0, so that no censoring curve falls to 0 before its group's last time
    (a positivity failure, refused alike on both paths, would leave nothing to compare)."""
    frame = _setting_cohort(setting)
    rng = np.random.default_rng(setting["seed"] + 1)
    time = frame["time"].to_numpy()
    entry = np.floor(rng.uniform(0.0, 1.0, len(frame)) * time * 10.0) / 10.0
    entry[(rng.random(len(frame)) < 0.5) | (entry >= time)] = 0.0
    frame["entry"] = entry
    labels = sorted(frame["g"].unique())
    last = pd.DataFrame(
        {
            "time": 6.0 + 0.1 * np.arange(len(labels)),
            "event": 0,
            "g": labels,
            "risk": 0.0,
            "entry": 0.0,
        }
    )
    if setting["weights"]:
        last["w"] = 1.0
    frame = pd.concat([frame, last], ignore_index=True)
    if setting["cluster"]:
        frame["site"] = np.random.default_rng(setting["seed"] + 2).integers(0, 25, len(frame))
    return frame


@pytest.mark.parametrize(
    "setting", ENTRY_SETTINGS, ids=[f"entry{k}" for k in range(len(ENTRY_SETTINGS))]
)
def test_dask_delayed_entry_equals_in_memory(setting):
    """entry= named as a column: the point estimate (counts exactly) and the analytic intervals
    (cells, SEs, covariance, pooled C, Δbetween / Δwithin, min-xCI) of the in-memory xci."""
    frame = _entry_cohort(setting)
    options = dict(
        setting["options"],
        entry="entry",
        weights="w" if setting["weights"] else None,
        cluster="site" if setting["cluster"] else None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # positivity and undefined cells warn alike on both paths
        with _in_process():
            lazy = dd.from_pandas(frame, npartitions=setting["partitions"])
            point = survfair.xci(*COLUMNS, data=lazy, ci=None, **options)
            on_dask = survfair.xci(*COLUMNS, data=lazy, ci="analytic", **options)
        in_memory = survfair.xci(*COLUMNS, data=frame, ci="analytic", **options)
    for result in (point, on_dask):
        _assert_point_estimate(result, in_memory)
    deviations = _deviations(in_memory, on_dask)
    deviations["pooled C"] = abs(
        survfair.overall_c(on_dask).value - survfair.overall_c(in_memory).value
    )
    assert max(deviations.values()) < 1e-10, deviations
    assert on_dask.n_clusters == in_memory.n_clusters


def test_entries_in_earlier_partitions_are_covered():
    """The settings above do hold rows that entered in an earlier partition's range of times
    (cross-partition pairs that depend on the entry, risk sets and credits that reach back), and
    partitions without events."""
    reaching = without_events = 0
    for setting in ENTRY_SETTINGS:
        if setting["partitions"] < 2:
            continue
        frame = _entry_cohort(setting)
        labels = tuple(sorted(frame["g"].unique()))
        columns = {"time": "time", "event": "event", "group": "g", "risk": "risk", "entry": "entry"}
        with _in_process():
            lazy = dd.from_pandas(frame, npartitions=setting["partitions"])
            read, summaries = _sorted_partitions(lazy, columns, labels, None, None)
            parts = dask.compute(*read)
        without_events += sum(summary["events"].sum() == 0 for summary in summaries)
        firsts = [summary["min"] for summary in summaries]
        for k, part in enumerate(parts[1:], start=1):  # entered in partition 0 .. k - 1's range
            reaching += int(((part["entry"] >= firsts[0]) & (part["entry"] < firsts[k])).sum())
    assert reaching >= 1000 and without_events >= 10


def test_dask_delayed_entry_on_a_local_cluster(cluster_client):
    """On a distributed cluster: entry with weights and three groups, by group."""
    setting = dict(
        n=1200, groups=3, seed=5, weights=True, cluster=False, quiet_block=True, partitions=5
    )
    frame = _entry_cohort(setting)
    in_memory = survfair.xci(*COLUMNS, data=frame, tau=2.5, weights="w", entry="entry")
    on_dask = survfair.xci(
        *COLUMNS, data=dd.from_pandas(frame, npartitions=5), tau=2.5, weights="w", entry="entry"
    )
    assert max(_deviations(in_memory, on_dask).values()) < 1e-10


def test_dask_delayed_entry_positivity_as_in_memory():
    """A censoring risk set emptied by delayed entry (group a: its only row at risk at 1 is
    censored there, the next rows enter at 2): K_a is 0 from time 1 on, and both paths refuse."""
    frame = pd.DataFrame(
        {
            "time": [0.5, 1.0, 3.0, 4.0, 0.8, 2.5, 3.5, 5.0],
            "event": [1, 0, 1, 0, 1, 1, 0, 0],
            "g": list("aaaabbbb"),
            "risk": [8.0, 7, 6, 5, 4, 3, 2, 1],
            "entry": [0.0, 0.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0],
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", survfair.PositivityWarning)
        with pytest.raises(survfair.PositivityError, match="fell to 0 at time 1"):
            survfair.xci(*COLUMNS, data=frame, entry="entry")
        with _in_process(), pytest.raises(survfair.PositivityError, match="fell to 0 at time 1"):
            survfair.xci(*COLUMNS, data=dd.from_pandas(frame, npartitions=3), entry="entry")
