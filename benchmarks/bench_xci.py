"""Benchmark of the xCI pair-count engine against scikit-survival, lifelines and numpy.argsort.

Prints a Markdown table of median wall-clock seconds (all measured in the same run, so ratios are
meaningful on a shared, noisy machine), the ratios behind the project's targets, the cost of the
analytic intervals relative to the point estimate, and the peak memory of one call at the
largest n with 8 groups (measured in a fresh subprocess).

    python benchmarks/bench_xci.py
        # n = 10^3 ... 10^7 (about 15 minutes)
    python benchmarks/bench_xci.py --max-n 1e5 --repeats 3
    python benchmarks/bench_xci.py --threads
        # only: xci time against n_jobs (n = 10^6, 10^7)
    python benchmarks/bench_xci.py --epi
        # only: cluster / entry / weights / cause against plain xci
    python benchmarks/bench_xci.py --groups
        # only: analytic / point cost and memory at G = 2 ... 32
    python benchmarks/bench_xci.py --dask
        # only: a Dask DataFrame (Parquet files) against in memory
    python benchmarks/bench_xci.py --huge
        # only: n = 10^8, G = 8 point estimate, time and memory (minutes)
    python benchmarks/bench_xci.py --phases
        # only: where the memory of one point estimate goes, phase by phase

The peer table runs survfair single-threaded (``n_jobs=1``), as its peers; ``--threads`` measures
what the per-group passes on several threads give (the results are bit-identical).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import survfair

TAU = 2.0


def cohort(n: int, n_groups: int, seed: int = 0):
    """Exponential event and censoring times, risk = -time + noise (no ties), random groups."""
    rng = np.random.default_rng(seed)
    event_time = rng.exponential(1.0, n)
    censor_time = rng.exponential(2.0, n)
    time_ = np.minimum(event_time, censor_time)
    event = event_time <= censor_time
    risk = -event_time + rng.normal(0.0, 1.0, n)
    group = rng.integers(0, n_groups, n)
    return time_, event, group, risk


def available_cores() -> int:
    """The cores this process may use (its CPU affinity where the platform has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def median_seconds(function, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def _survfair(method: str, n_groups: int, **options):
    def run(data):
        time_, event, _, risk = data
        group = data[2] % n_groups
        given = dict(options)
        event = given.pop("event", event)  # cause codes for cause=
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            survfair.xci(
                time_,
                event,
                group,
                risk,
                method=method,
                tau=TAU,
                **{"n_jobs": 1, "ci": None, **given},
            )

    return run


def _sksurv_censored(data):
    from sksurv.metrics import concordance_index_censored

    time_, event, _, risk = data
    concordance_index_censored(event, time_, risk)


def _sksurv_ipcw(data):
    from sksurv.metrics import concordance_index_ipcw
    from sksurv.util import Surv

    time_, event, _, risk = data
    y = Surv.from_arrays(event=event, time=time_)
    concordance_index_ipcw(y, y, risk, tau=TAU)


def _lifelines(data):
    from lifelines.utils import concordance_index

    time_, event, _, risk = data
    concordance_index(time_, -risk, event)  # lifelines wants higher = longer survival


def _argsort(data):
    np.argsort(data[3])


def r_concordance_seconds(data, repeats: int) -> float | None:
    """Median seconds of R's ``survival::concordance`` (one pooled C, point estimate), timed inside
    R by ``bench_r_concordance.R`` on the same rows; None when ``Rscript`` is not installed (Debian:
    ``apt-get install r-base-core r-cran-survival``)."""
    import shutil
    import tempfile

    if shutil.which("Rscript") is None:
        return None
    time_, event, _, risk = data
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_r_concordance.R")
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as handle:
        np.savetxt(
            handle,
            np.column_stack([time_, event, risk]),
            delimiter=",",
            header="time,event,risk",
            comments="",
            fmt=["%.17g", "%d", "%.17g"],
        )
    try:
        out = subprocess.run(
            ["Rscript", script, handle.name, str(repeats)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(handle.name)
    return float(out.split()[0])


#: the row of R's survival::concordance (timed inside R; absent when R is not installed)
R_PEER = "R survival::concordance (one C, timed in R)"

#: name -> (function, largest n it is run at)
CANDIDATES = {
    "survfair naive, G=2": (_survfair("naive", 2), 10**7),
    "survfair IPCW, G=2": (_survfair("ipcw", 2), 10**7),
    "survfair naive, G=8": (_survfair("naive", 8), 10**7),
    "survfair IPCW, G=8": (_survfair("ipcw", 8), 10**7),
    "survfair IPCW + analytic CI, G=2": (_survfair("ipcw", 2, ci="analytic"), 10**6),
    "sksurv concordance_index_censored (one C)": (_sksurv_censored, 10**5),
    "sksurv concordance_index_ipcw (one C)": (_sksurv_ipcw, 10**5),
    "lifelines concordance_index (one C)": (_lifelines, 10**6),
    "numpy.argsort (floor)": (_argsort, 10**7),
}

MEMORY_PROBE = """
import sys, warnings
sys.path.insert(0, {here!r})
import survfair
from bench_xci import PeakRSS, cohort
data = cohort({n}, {g})
survfair.xci(*cohort(500, {g}), method="ipcw", tau={tau}, ci=None)  # load and compile first
with warnings.catch_warnings(), PeakRSS() as memory:
    warnings.simplefilter("ignore")
    survfair.xci(data[0], data[1], data[2], data[3], method="ipcw", tau={tau}, ci=None, n_jobs=1)
print(memory.before, memory.peak)
"""


class PeakRSS:
    """``with PeakRSS() as memory:`` samples this process's resident memory every ``interval``
    seconds on a thread: ``memory.before`` and ``memory.peak`` in MB (the compiled kernels'
    allocations are invisible to tracemalloc)."""

    def __init__(self, interval: float = 0.005):
        self.interval = interval

    def __enter__(self) -> "PeakRSS":
        import threading

        self.before = self.peak = rss_mb()
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample)
        self._sampler.start()
        return self

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, rss_mb())
            time.sleep(self.interval)

    def __exit__(self, *exc_info) -> None:
        self._done.set()
        self._sampler.join()
        self.peak = max(self.peak, rss_mb())


def rss_mb() -> float:
    """Current resident set size of this process, in MB (Linux /proc)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


def peak_memory_mb(n: int, n_groups: int) -> tuple[float, float]:
    """(RSS with the data loaded, peak RSS during one IPCW call), in MB, sampled every 5 ms in a
    fresh process (the compiled kernels' allocations are invisible to tracemalloc)."""
    code = MEMORY_PROBE.format(
        here=os.path.dirname(os.path.abspath(__file__)), n=n, g=n_groups, tau=TAU
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    before, peak = (float(v) for v in out.split())
    return before, peak


def threads_rows(repeats: int, sizes: list[int], jobs: list[int]):
    """Yield ``dict(n=, g=, ci=, seconds={n_jobs: median seconds})`` of xci (IPCW, tau = 2, point
    estimate and analytic intervals) at each n of ``sizes``, G = 2, 8, one row at a time
    (``jobs`` must include 1)."""
    _survfair("ipcw", 8, ci="analytic")(cohort(200, 8))  # compile outside the timings
    for n in sizes:
        data = cohort(n, 8)
        for g in (2, 8):
            for ci in (None, "analytic"):
                seconds = {
                    j: median_seconds(lambda: _survfair("ipcw", g, ci=ci, n_jobs=j)(data), repeats)
                    for j in jobs
                }
                yield dict(n=n, g=g, ci=ci, seconds=seconds)


def threads_table(repeats: int, max_n: float) -> int:
    """Median seconds of xci (IPCW, point estimate and analytic intervals) against n_jobs."""
    cores = available_cores()
    jobs = sorted({1, 2, cores})
    print(
        f"Machine: {platform.processor() or platform.machine()}, {cores} cores; "
        f"median of {repeats} runs; "
        "xci IPCW, tau = 2; seconds (speed-up against n_jobs = 1).\n"
    )
    print("| n | G | intervals | " + " | ".join(f"n_jobs = {j}" for j in jobs) + " |")
    print("|" + "---|" * (3 + len(jobs)))
    sizes = [10**k for k in (6, 7) if 10**k <= max_n]
    for row in threads_rows(repeats, sizes, jobs):
        seconds = row["seconds"]
        cells = [f"{seconds[j]:.3f} ({seconds[1] / seconds[j]:.2f}x)" for j in jobs]
        print(
            f"| 10^{int(np.log10(row['n']))} | {row['g']} | {row['ci'] or 'none'} | "
            + " | ".join(cells)
            + " |",
            flush=True,
        )
    return 0


def epi_table(repeats: int, n: int = 10**6, n_groups: int = 4) -> int:
    """Median seconds of xci with each data-structure option (cluster=, entry=, weights=, cause=)
    against the plain estimator, in one run (IPCW, tau = 2, n_jobs = 1), point estimate and analytic
    intervals."""
    data = cohort(n, n_groups)
    rng = np.random.default_rng(1)
    options = {
        "plain": {},
        "cluster=": {"cluster": rng.integers(0, n // 10, n)},
        "entry=": {"entry": data[0] * rng.uniform(0.0, 0.9, n)},
        "weights=": {"weights": rng.choice([0.5, 1.0, 2.0, 4.0], n)},
        # competing risks: half of the events become a competing cause (the same rows, times, risks)
        "cause=": {"event": np.where(data[1], rng.choice([1, 2], n), 0), "cause": 1},
    }
    options["all three"] = {
        k: v for name in ("cluster=", "entry=", "weights=") for k, v in options[name].items()
    }
    options["all four"] = {k: v for extra in list(options.values())[1:5] for k, v in extra.items()}
    small = tuple(column[:2000] for column in data)
    for extra in options.values():  # compile outside the timings
        _survfair(
            "ipcw",
            n_groups,
            ci="analytic",
            **{k: (v[:2000] if k != "cause" else v) for k, v in extra.items()},
        )(small)
    print(
        f"Machine: {platform.processor() or platform.machine()}; "
        f"n = {n:,}, G = {n_groups}, IPCW, tau = {TAU}, "
        f"n_jobs = 1; median of {repeats} runs; seconds (ratio to plain in the same column).\n"
    )
    print("| option | point estimate | ratio | analytic intervals | ratio |")
    print("|---|---|---|---|---|")
    base = {}
    for name, extra in options.items():
        cells = []
        for ci in (None, "analytic"):
            seconds = median_seconds(
                lambda: _survfair("ipcw", n_groups, ci=ci, **extra)(data), repeats
            )
            base.setdefault(ci, seconds)
            cells += [f"{seconds:.3f}", f"{seconds / base[ci]:.2f}x"]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


GROUPS_PROBE = """
import statistics, sys, time, warnings
sys.path.insert(0, {here!r})
import survfair
from bench_xci import PeakRSS, cohort
warnings.simplefilter("ignore")
data = cohort({n}, 64)
group = data[2] % {g}
survfair.xci(data[0][:2000], data[1][:2000], group[:2000], data[3][:2000], tau={tau}, n_jobs=1)
seconds = {{None: [], "analytic": []}}
# sampled from /proc, not ru_maxrss: Linux keeps the parent's peak across fork and exec
with PeakRSS() as memory:
    for _ in range({repeats}):  # point and analytic alternate: a drift in the machine's \
speed hits both
        for ci in (None, "analytic"):
            start = time.perf_counter()
            survfair.xci(data[0], data[1], group, data[3], tau={tau}, ci=ci, n_jobs=1)
            seconds[ci].append(time.perf_counter() - start)
ratios = [a / p for p, a in zip(seconds[None], seconds["analytic"])]
print(statistics.median(seconds[None]), statistics.median(seconds["analytic"]), \
statistics.median(ratios),
      min(ratios), max(ratios), memory.peak)
"""


def groups_table(repeats: int, n: int = 10**6) -> int:
    """Median seconds of the point estimate and of analytic intervals (IPCW, one thread) for
    G = 2, 8, 16, 32, each G in a fresh process (its peak resident memory is the last column). The
    two calls alternate, and the ratio is the median of the ratios of each pair (its range beside
    it), which a drift in the speed of a shared machine moves less than a ratio of two medians."""
    print(
        f"n = 10^{int(np.log10(n))}, IPCW, tau = 1.5, n_jobs = 1, "
        f"median of {repeats} alternating pairs; "
        "peak RSS of the process (analytic run included).\n"
    )
    print(
        "| G | point estimate (s) | analytic intervals (s) | ratio (median of pairs) "
        "| range of the ratios | peak RSS (MB) |"
    )
    print("|---|---|---|---|---|---|")
    for row in groups_rows(repeats, n):
        print(
            f"| {row['g']} | {row['point']:.3f} | {row['analytic']:.3f} | {row['ratio']:.2f}x | "
            f"{row['low']:.2f}-{row['high']:.2f} | {row['peak']:,.0f} |",
            flush=True,
        )
    return 0


def groups_rows(repeats: int, n: int = 10**6, groups=(2, 8, 16, 32)):
    """Yield the rows of :func:`groups_table`, one G at a time: ``dict(g=, point=, analytic=,
    ratio=, low=, high=, peak=)`` (seconds, the median ratio of the pairs and its range, peak
    RSS in MB)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for g in groups:
        code = GROUPS_PROBE.format(here=here, n=n, g=g, tau=1.5, repeats=repeats)
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        point, analytic, ratio, low, high, peak = (float(v) for v in out.split())
        yield dict(g=g, point=point, analytic=analytic, ratio=ratio, low=low, high=high, peak=peak)


def dask_table(repeats: int, n: int = 10**7, n_files: int = 16) -> int:
    """Point estimate of n rows stored as ``n_files`` Parquet files: in memory (pandas reads the
    files, then xci on every core) against ``xci(data=dask.dataframe.read_parquet(...))`` on a
    LocalCluster of one single-threaded worker process per core (reading included in both)."""
    import tempfile

    import dask.dataframe as dd
    import distributed
    import pandas as pd

    cores = available_cores()
    time_, event, group, risk = cohort(n, 2)
    frame = pd.DataFrame({"time": time_, "event": event, "group": group % 2, "risk": risk})
    with tempfile.TemporaryDirectory() as folder:
        for k, part in enumerate(np.array_split(frame, n_files)):
            part.to_parquet(os.path.join(folder, f"part-{k:03d}.parquet"))
        del frame, part

        def in_memory():
            data = pd.read_parquet(folder)
            return survfair.xci("time", "event", "group", "risk", data=data, tau=TAU, ci=None)

        with (
            distributed.LocalCluster(
                n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster),
        ):

            def on_dask():
                return survfair.xci(
                    "time", "event", "group", "risk", data=dd.read_parquet(folder), tau=TAU, ci=None
                )

            first, second = in_memory(), on_dask()  # compile, and check the numbers
            difference = float(np.nanmax(np.abs(first.values - second.values)))
            memory_seconds = median_seconds(in_memory, repeats)
            dask_seconds = median_seconds(on_dask, repeats)
    print(
        f"n = 10^{int(np.log10(n))} rows in {n_files} Parquet files, G = 2, IPCW, tau = {TAU}, "
        "point estimate, "
        f"median of {repeats}; {cores} cores.\n"
    )
    print("| path | seconds | ratio |")
    print("|---|---|---|")
    print(
        f"| in memory (pandas.read_parquet + xci, n_jobs = {cores}) | "
        f"{memory_seconds:.2f} | 1.00x |"
    )
    print(
        f"| Dask DataFrame on a LocalCluster ({cores} worker processes) | {dask_seconds:.2f} | "
        f"{dask_seconds / memory_seconds:.2f}x |"
    )
    print(f"\nlargest difference of a cell between the two: {difference:.1e}")
    return 0


HUGE_PROBE = """
import sys, time, warnings
sys.path.insert(0, {here!r})
import numpy as np
import survfair
from bench_xci import PeakRSS, huge_cohort
survfair.xci(np.arange(1.0, 501.0), np.ones(500, bool), np.arange(500) % {g}, \
-np.arange(500.0), tau=2.0,
             ci=None, n_jobs={n_jobs})  # load everything first
time_, event, group, risk = huge_cohort({n}, {g})
with warnings.catch_warnings(), PeakRSS(0.01) as memory:
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    survfair.xci(time_, event, group, risk, method="ipcw", tau=2.0, ci=None, n_jobs={n_jobs})
    seconds = time.perf_counter() - start
print(seconds, memory.before, memory.peak)
"""


def huge_cohort(n: int, n_groups: int):
    """:func:`cohort`'s design built in place, for 10^8 rows: float64 time and risk, bool event,
    int32 group (the censoring times are freed before the groups are drawn)."""
    rng = np.random.default_rng(0)
    time_ = rng.exponential(1.0, n)
    censor = rng.exponential(2.0, n)
    event = time_ <= censor
    risk = -time_ + rng.normal(0.0, 1.0, n)
    np.minimum(time_, censor, out=time_)
    del censor
    return time_, event, rng.integers(0, n_groups, n, dtype=np.int32), risk


def huge_row(n: int = 10**8, n_groups: int = 8) -> int:
    """One point estimate at n rows, G groups (IPCW, tau = 2) in a fresh process per n_jobs:
    seconds, resident memory before the call (interpreter, libraries, inputs: time and risk float64,
    event bool, group int32) and its peak during the call, sampled every 10 ms from /proc."""
    cores = available_cores()
    here = os.path.dirname(os.path.abspath(__file__))
    print(
        f"n = 10^{int(np.log10(n))}, G = {n_groups}, IPCW, tau = 2, point estimate; "
        "one run per row.\n"
    )
    print("| n_jobs | seconds | RSS before the call (MB) | peak RSS (MB) | the call itself (MB) |")
    print("|---|---|---|---|---|")
    for n_jobs in sorted({1, cores}):
        code = HUGE_PROBE.format(here=here, n=n, g=n_groups, n_jobs=n_jobs)
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        seconds, before, peak = (float(v) for v in out.split())
        print(
            f"| {n_jobs} | {seconds:.1f} | {before:,.0f} | {peak:,.0f} | {peak - before:,.0f} |",
            flush=True,
        )
    return 0


PHASES = (  # (module, function): the steps of a point estimate whose start and end are marked
    ("_xci", "check_survival_inputs"),
    ("_xci", "prepare_pairs"),
    ("_kernel", "_gather"),
    ("_kernel", "_rank_sweep"),
    ("_xci", "fit_censoring"),
    ("_kernel", "_weights"),
    ("_kernel", "_passes"),
    ("_xci", "check_positivity"),
)


def phases_table(n: int = 2 * 10**7, n_groups: int = 8, n_jobs: int = 2) -> int:
    """Peak resident memory (above that before the call) between consecutive marks of one point
    estimate (IPCW, tau = 2): each function of ``PHASES`` is wrapped to record when it starts and
    ends, and a thread samples /proc every 5 ms. The profile of the 10^8 row at a fifth of its
    size."""
    import functools
    import importlib
    import threading

    marks = []

    def marked(module, name):
        function = getattr(module, name)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            marks.append((time.perf_counter(), f"{name} starts"))
            try:
                return function(*args, **kwargs)
            finally:
                marks.append((time.perf_counter(), f"{name} ends"))

        setattr(module, name, wrapper)

    for module_name, name in PHASES:
        marked(importlib.import_module(f"survfair.{module_name}"), name)
    time_, event, group, risk = cohort(n, n_groups)
    group = group.astype(np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        survfair.xci(
            time_[:500], event[:500], group[:500], risk[:500], tau=TAU, ci=None, n_jobs=n_jobs
        )
        samples, done = [], threading.Event()

        def sample():
            while not done.is_set():
                samples.append((time.perf_counter(), rss_mb()))
                time.sleep(0.005)

        before = rss_mb()
        marks.clear()
        sampler = threading.Thread(target=sample)
        sampler.start()
        survfair.xci(time_, event, group, risk, tau=TAU, ci=None, n_jobs=n_jobs)
        done.set()
        sampler.join()
    print(
        f"n = {n:,}, G = {n_groups}, IPCW, tau = {TAU}, point estimate, n_jobs = {n_jobs}; "
        "resident memory "
        "above that before the call (MB), peak between each mark and the next.\n"
    )
    print("| from | at (s) | peak until the next mark (MB) |")
    print("|---|---|---|")
    marks.append((samples[-1][0], "end"))
    for (at, label), (until, _) in zip(marks[:-1], marks[1:]):
        inside = [value for stamp, value in samples if at <= stamp < until]
        peak = f"{max(inside) - before:,.0f}" if inside else "-"
        print(f"| {label} | {at - marks[0][0]:.2f} | {peak} |")
    print(f"\npeak of the call: {max(value for _, value in samples) - before:,.0f} MB")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=3, help="repeats per cell (median reported)")
    parser.add_argument("--threads", action="store_true", help="only the n_jobs scaling table")
    parser.add_argument(
        "--epi", action="store_true", help="only the cluster / entry / weights cost table"
    )
    parser.add_argument(
        "--groups", action="store_true", help="only the analytic / point table for G = 2 ... 32"
    )
    parser.add_argument(
        "--dask", action="store_true", help="only the Dask DataFrame point estimate at 10^7 rows"
    )
    parser.add_argument(
        "--huge", action="store_true", help="only the n = 10^8, G = 8 row (minutes, ~10 GB)"
    )
    parser.add_argument(
        "--phases", action="store_true", help="only the memory of a 2e7-row point estimate by phase"
    )
    args = parser.parse_args(argv)
    if args.phases:
        return phases_table()
    if args.huge:
        return huge_row()
    if args.dask:
        return dask_table(args.repeats)
    if args.groups:
        return groups_table(args.repeats)
    if args.epi:
        return epi_table(args.repeats)
    if args.threads:
        return threads_table(args.repeats, args.max_n)
    sizes = [10**k for k in range(3, 8) if 10**k <= args.max_n]

    # load every module once, outside the timings
    warm = cohort(200, 8)
    for function, _ in CANDIDATES.values():
        if function.__name__ == "run":
            function(warm)

    table = {name: {} for name in CANDIDATES}
    for n in sizes:
        data = cohort(n, 8)
        for name, (function, limit) in CANDIDATES.items():
            if n > limit:
                continue
            repeats = 1 if (n >= 10**5 and name.startswith("sksurv")) else args.repeats
            table[name][n] = median_seconds(lambda: function(data), repeats)
            print(f"  {name:45s} n={n:>9,d}  {table[name][n]:9.4f} s", file=sys.stderr, flush=True)
        if n <= 10**6:
            seconds = r_concordance_seconds(data, args.repeats)
            if seconds is not None:
                table.setdefault(R_PEER, {})[n] = seconds

    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}; "
        f"median of {args.repeats} runs "
        "(1 run for scikit-survival at n >= 10^5). Seconds; '-' = not run at that size.\n"
    )
    header = "| method | " + " | ".join(f"n = 10^{int(np.log10(n))}" for n in sizes) + " |"
    print(header)
    print("|" + "---|" * (len(sizes) + 1))
    for name, row in table.items():
        cells = [f"{row[n]:.4g}" if n in row else "-" for n in sizes]
        print(f"| {name} | " + " | ".join(cells) + " |")

    print()
    ipcw2 = table["survfair IPCW, G=2"]
    if 10**6 in ipcw2 and 10**6 in table.get(R_PEER, {}):
        print(
            f"- n = 10^6, G = 2, IPCW matrix vs R's survival::concordance (one C): "
            f"{table[R_PEER][10**6] / ipcw2[10**6]:.1f}x faster"
        )
    if 10**6 in ipcw2 and 10**6 in table["lifelines concordance_index (one C)"]:
        ratio = table["lifelines concordance_index (one C)"][10**6] / ipcw2[10**6]
        print(
            "- n = 10^6, G = 2, IPCW matrix vs lifelines' single C: "
            f"{ratio:.1f}x faster (target >= 30x)"
        )
    if 10**5 in ipcw2 and 10**5 in table["sksurv concordance_index_ipcw (one C)"]:
        ratio = table["sksurv concordance_index_ipcw (one C)"][10**5] / ipcw2[10**5]
        print(
            "- n = 10^5, G = 2, IPCW matrix vs scikit-survival's IPCW C: "
            f"{ratio:.0f}x faster (target >= 500x)"
        )
    if 10**7 in ipcw2:
        ratio = ipcw2[10**7] / table["numpy.argsort (floor)"][10**7]
        print(f"- n = 10^7, G = 2, IPCW: {ratio:.1f}x numpy.argsort of n floats (target <= 10x)")
    analytic = table["survfair IPCW + analytic CI, G=2"]
    for n in (10**5, 10**6):
        if n in analytic and n in ipcw2:
            print(
                f"- n = 10^{int(np.log10(n))}, G = 2: analytic intervals cost "
                f"{analytic[n] / ipcw2[n]:.2f}x "
                "the point estimate (target <= 3x)"
            )
    if sizes[-1] >= 10**7:
        before, peak = peak_memory_mb(10**7, 8)
        print(
            f"- n = 10^7, G = 8, IPCW: peak RSS during the call {peak:,.0f} MB, "
            f"of which {before:,.0f} MB "
            f"were the interpreter, libraries and input arrays before it (the call itself: "
            f"{peak - before:,.0f} MB); target < 1,500 MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
