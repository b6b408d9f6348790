"""Analytic intervals of the xCI of a Dask DataFrame (issue 43, deliverable 1): time, peak memory
per worker, and the deviation from the in-memory ``xci(..., ci="analytic")``.

n rows (default 10^7) of a two-group cohort (exponential times, risk = -time + noise, case weights
when ``--weights``; with ``--entry``, delayed entry: half the rows enter at 0, the others at a
uniform time before their own) are written as ``--files`` Parquet files; then, on a
``LocalCluster`` of ``--workers`` single-threaded worker processes:

* in memory: ``pandas.read_parquet`` + ``xci(ci="analytic")`` in this process (its time; the
  reference numbers);
* Dask, point estimate: ``xci(data=dd.read_parquet(...), ci=None)``;
* Dask, analytic intervals: ``xci(data=dd.read_parquet(...), ci="analytic")``;

each Dask call with the peak resident memory of every worker process during the call (a thread on
each worker samples its RSS every 20 ms). Prints a Markdown table.

    python benchmarks/bench_dask_analytic.py                 # 10^7 rows (about 5 minutes)
    python benchmarks/bench_dask_analytic.py --n 1e6 --weights
    python benchmarks/bench_dask_analytic.py --n 1e6 --files 8 --entry
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import tempfile
import threading
import time
import warnings

import numpy as np
import pandas as pd

import survfair

TAU = 2.0


def _start_sampler(dask_worker) -> None:
    """On a worker: sample this process's resident memory until :func:`_stop_sampler` (the state
    is kept on the worker object: this function reaches the worker pickled by value)."""
    import psutil

    process = psutil.Process()
    state = {"peak": process.memory_info().rss, "run": True}

    def sample():
        while state["run"]:
            state["peak"] = max(state["peak"], process.memory_info().rss)
            time.sleep(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    dask_worker._bench_memory = (state, thread)


def _stop_sampler(dask_worker) -> float:
    """On a worker: the peak resident memory (MB) since :func:`_start_sampler`."""
    state, thread = dask_worker._bench_memory
    state["run"] = False
    thread.join()
    return state["peak"] / 2**20


def cohort(n: int, groups: int, weights: bool, entry: bool = False, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    event_time = rng.exponential(1.0, n)
    censor_time = rng.exponential(2.0, n)
    frame = pd.DataFrame(
        {
            "time": np.minimum(event_time, censor_time),
            "event": event_time <= censor_time,
            "group": rng.integers(0, groups, n),
            "risk": -event_time + rng.normal(0.0, 1.0, n),
        }
    )
    if weights:
        frame["w"] = rng.choice([0.5, 1.0, 2.0], n)
    if entry:  # half at 0, half at a uniform time before their own
        late = rng.random(n) < 0.5
        frame["entry"] = np.where(late, rng.uniform(0.0, 1.0, n) * frame["time"], 0.0)
    return frame


def measured(client, call):
    """(seconds, result, peak MB of each worker) of ``call()``."""
    client.run(_start_sampler)
    start = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - start
    peaks = client.run(_stop_sampler)
    return seconds, result, sorted(peaks.values())


def deviation(reference, other) -> dict:
    """Largest absolute differences of the cells, standard errors, covariance, pooled C's variance
    the Δ summaries' standard errors, and min_xci (its value; inf if another cell is the
    smallest)."""
    out = {
        "cells": np.nanmax(np.abs(reference.values - other.values)),
        "se": np.nanmax(np.abs(reference.se.values - other.se.values)),
        "covariance": np.nanmax(np.abs(reference.covariance - other.covariance)),
        "overall variance": abs(
            reference.influence.overall_variance - other.influence.overall_variance
        ),
    }
    a, b = reference.groups[:2]
    for name, summary in (
        ("delta_between", survfair.delta_between),
        ("delta_within", survfair.delta_within),
    ):
        first, second = summary(reference, a, b), summary(other, a, b)
        out[f"{name} se"] = abs(first.se - second.se)
    first, second = survfair.min_xci(reference), survfair.min_xci(other)
    out["min_xci value"] = abs(first.value - second.value) + (
        0.0 if (first.a, first.b) == (second.a, second.b) else np.inf
    )
    return {name: float(value) for name, value in out.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--weights", action="store_true")
    parser.add_argument("--entry", action="store_true", help="delayed entry (entry=)")
    args = parser.parse_args()
    n = int(args.n)

    import dask.dataframe as dd
    import distributed

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    warnings.simplefilter("ignore", FutureWarning)
    weights = "w" if args.weights else None
    entry = "entry" if args.entry else None
    columns = ("time", "event", "group", "risk")
    frame = cohort(n, args.groups, args.weights, args.entry)
    with tempfile.TemporaryDirectory() as folder:
        for k, part in enumerate(np.array_split(frame, args.files)):
            part.to_parquet(os.path.join(folder, f"part-{k:03d}.parquet"))
        del frame, part

        start = time.perf_counter()
        data = pd.read_parquet(folder)
        in_memory = survfair.xci(
            *columns, data=data, tau=TAU, weights=weights, entry=entry, ci="analytic"
        )
        memory_seconds = time.perf_counter() - start
        del data
        with (
            distributed.LocalCluster(
                n_workers=args.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                memory_limit=0,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):

            def on_dask(ci):
                return lambda: survfair.xci(
                    *columns,
                    data=dd.read_parquet(folder),
                    tau=TAU,
                    weights=weights,
                    entry=entry,
                    ci=ci,
                )

            on_dask(None)()  # the workers import survfair and compile nothing twice
            point = measured(client, on_dask(None))
            analytic = measured(client, on_dask("analytic"))
    differences = deviation(in_memory, analytic[1])
    point_difference = float(np.nanmax(np.abs(in_memory.values - point[1].values)))
    print(
        f"n = {n:,} rows in {args.files} Parquet files, G = {args.groups}, IPCW, tau = {TAU}"
        f"{', case weights' if args.weights else ''}{', delayed entry' if args.entry else ''}; "
        f"LocalCluster of {args.workers} "
        f"single-threaded worker processes; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores. One run each.\n"
    )
    print("| path | seconds | peak memory per worker (MB) |")
    print("|---|---|---|")
    print(f"| in memory: read_parquet + xci(ci='analytic') | {memory_seconds:.1f} | (client) |")
    for name, (seconds, _, peaks) in (
        ("Dask: xci(ci=None)", point),
        ("Dask: xci(ci='analytic')", analytic),
    ):
        print(f"| {name} | {seconds:.1f} | {', '.join(f'{p:,.0f}' for p in peaks)} |")
    print(f"\nDask point estimate against in memory: cells {point_difference:.1e}")
    print("Dask analytic against in memory (largest absolute difference):")
    for name, value in differences.items():
        print(f"- {name}: {value:.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
