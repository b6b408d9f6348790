"""What the compiled core gives a user: latency from a fresh install, threads, memory, size, and R.

One run prints every table of docs/benchmarks.md's "Compiled core" section:

    python benchmarks/bench_compiled.py
        # everything but 10^8 rows (about 30 minutes)
    python benchmarks/bench_compiled.py --quick
        # 10^6 rows only, 3 repeats (a few minutes)
    python benchmarks/bench_compiled.py --huge
        # + analytic intervals at n = 10^8, G = 8 (~25 GB box)
    python benchmarks/bench_compiled.py --only-engines
        # only the moment engine against the row path
    python benchmarks/bench_compiled.py --reference-tree /path/to/old/checkout \
        --reference-python /venv/bin/python
        # + single-thread point estimates against an
        #   older tree (e.g. the numba kernels), alternating

Tables:

1. install: the size of a fresh venv after ``pip install .`` (from a wheel built here) and of
   survfair itself;
2. latency in that fresh venv: the very first ``import survfair`` + ``xci(..., ci="analytic")`` on
   2,000 rows after the install, then the median of later fresh processes; ``survfair --help``;
   the first ``survfair audit`` after a (re)install against the second, alternating;
3. threads: point estimate and analytic intervals against ``n_jobs`` at n = 10^6, 10^7, G = 2, 8;
4. groups: analytic / point at G = 2, 8, 16, 32 (n = 10^6, 10^7), peak RSS of each process;
5. R ``survival::concordance`` (one pooled C) against survfair's single-threaded G = 2 matrix;
6. engines: analytic intervals by the moment engine (the default, no per-person rows) against the
   row path (per-person rows kept), seconds and the memory each call adds (``--engines``);
7. with ``--huge``: analytic intervals at n = 10^8, G = 8, seconds and peak RSS.

Every timing is a median of runs in the same session (the machine is shared): read the ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_xci import (  # noqa: E402  (the benchmarks folder, put on the path above)
    available_cores,
    cohort,
    groups_table,
    r_concordance_seconds,  # noqa: E402
    threads_table,
)

FIRST_CALL = """
import time
start = time.perf_counter()
import numpy as np
import survfair
rng = np.random.default_rng(0)
n = 2000
t = rng.exponential(1.0, n)
e = rng.random(n) < 0.6
g = rng.integers(0, 2, n)
r = -t + rng.normal(0.0, 1.0, n)
survfair.xci(t, e, g, r, tau=2.0, ci="analytic")
print(time.perf_counter() - start)
"""


def _seconds(command: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def _du_mb(path: Path) -> float:
    return (
        sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6
    )


def install_tables(repeats: int) -> None:
    """Tables 1 and 2, in a fresh venv in a temporary directory (deleted afterwards)."""
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        wheels = work / "wheels"
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
            check=True,
        )
        wheel = next(wheels.glob("survfair-*.whl"))
        venv = work / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python, command = venv / "bin" / "python", venv / "bin" / "survfair"
        subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True)
        site = Path(
            subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
        packages = sorted(
            (
                (_du_mb(p), p.name)
                for p in site.iterdir()
                if p.is_dir() and not p.name.endswith((".dist-info", "__pycache__"))
            ),
            reverse=True,
        )
        print(
            "### Install (a fresh venv, `pip install` of the wheel built from this checkout: "
            f"{wheel.name})\n"
        )
        print("| | MB |")
        print("|---|---|")
        print(f"| site-packages, all | {_du_mb(site):,.0f} |")
        print(f"| survfair itself | {_du_mb(site / 'survfair'):,.1f} |")
        for size, name in packages[:6]:
            print(f"| largest: {name} | {size:,.0f} |")
        print()
        first = float(
            subprocess.run(
                [str(python), "-c", FIRST_CALL], check=True, capture_output=True, text=True
            ).stdout
        )
        later = [
            float(
                subprocess.run(
                    [str(python), "-c", FIRST_CALL], check=True, capture_output=True, text=True
                ).stdout
            )
            for _ in range(repeats)
        ]
        help_seconds = [_seconds([str(command), "--help"]) for _ in range(repeats)]
        audits = {"first": [], "second": []}
        for _ in range(
            repeats
        ):  # a reinstall of survfair (fresh files), then two audits: alternating
            subprocess.run(
                [
                    str(python),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--force-reinstall",
                    "--no-deps",
                    str(wheel),
                ],
                check=True,
            )
            audits["first"].append(_seconds([str(command), "audit", "--no-progress"]))
            audits["second"].append(_seconds([str(command), "audit", "--no-progress"]))
        gaps = [a - b for a, b in zip(audits["first"], audits["second"])]
        print(f"### Latency in that venv (fresh process per run; median of {repeats})\n")
        print("| what | seconds |")
        print("|---|---|")
        print(
            '| first process after the install: import + `xci(ci="analytic")`, 2,000 rows | '
            f"{first:.2f} |"
        )
        print(f"| later processes: the same | {statistics.median(later):.2f} |")
        print(f"| `survfair --help` | {statistics.median(help_seconds):.2f} |")
        print(
            "| first `survfair audit` after a reinstall | "
            f"{statistics.median(audits['first']):.2f} |"
        )
        print(f"| second `survfair audit` | {statistics.median(audits['second']):.2f} |")
        print(f"| first - second (median of the pairs) | {statistics.median(gaps):+.2f} |\n")


def r_table(sizes: list[int], repeats: int) -> None:
    """Table 5: R's one pooled C against survfair's whole G = 2 IPCW matrix, one thread."""
    import warnings

    import survfair

    print(
        "### Against R (one pooled C, timed inside R) and survfair's G = 2 IPCW matrix "
        "on one thread\n"
    )
    print("| n | R survival::concordance (s) | survfair, n_jobs = 1 (s) | ratio |")
    print("|---|---|---|---|")
    for n in sizes:
        data = cohort(n, 2)
        r_seconds = r_concordance_seconds(data, repeats)
        runs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(repeats):
                start = time.perf_counter()
                survfair.xci(
                    data[0], data[1], data[2], data[3], method="ipcw", tau=2.0, ci=None, n_jobs=1
                )
                runs.append(time.perf_counter() - start)
        ours = statistics.median(runs)
        cell = "R not installed" if r_seconds is None else f"{r_seconds:.2f}"
        ratio = "-" if r_seconds is None else f"{r_seconds / ours:.1f}x faster"
        print(f"| 10^{len(str(n)) - 1} | {cell} | {ours:.3f} | {ratio} |", flush=True)
    print()


REFERENCE_PROBE = """
import statistics, sys, time, warnings
sys.path.insert(0, {here!r})
import survfair
from bench_xci import cohort
warnings.simplefilter("ignore")
data = cohort({n}, 8)
group = data[2] % {g}
survfair.xci(data[0][:2000], data[1][:2000], group[:2000], data[3][:2000], \
tau=2.0, ci=None, n_jobs=1)
start = time.perf_counter()
survfair.xci(data[0], data[1], group, data[3], method="ipcw", tau=2.0, ci=None, n_jobs=1)
print(time.perf_counter() - start, survfair.__file__)
"""


def reference_table(tree: str, python: str, sizes: list[int], repeats: int) -> None:
    """Single-threaded point estimates, this checkout against ``tree`` run by ``python``, one fresh
    process per run, the two alternating (a warm-up call first: the older tree may compile)."""
    print(
        f"### Single thread against the reference tree {tree} "
        f"(alternating fresh processes, median of {repeats})\n"
    )
    print("| n | G | reference (s) | this checkout (s) | reference / this |")
    print("|---|---|---|---|---|")
    env_ref = {**os.environ, "PYTHONPATH": tree}
    for n in sizes:
        for g in (2, 8):
            code = REFERENCE_PROBE.format(here=str(HERE), n=n, g=g)
            runs = {"reference": [], "this": []}
            for _ in range(repeats):
                for name, interpreter, env in (
                    ("reference", python, env_ref),
                    ("this", sys.executable, None),
                ):
                    out = subprocess.run(
                        [interpreter, "-c", code],
                        check=True,
                        capture_output=True,
                        text=True,
                        env=env,
                        cwd=tempfile.gettempdir(),
                    ).stdout.split()
                    runs[name].append(float(out[0]))
            ref, this = statistics.median(runs["reference"]), statistics.median(runs["this"])
            print(
                f"| 10^{len(str(n)) - 1} | {g} | {ref:.3f} | {this:.3f} | {ref / this:.2f}x |",
                flush=True,
            )
    print()


HUGE_ANALYTIC = """
import sys, time, warnings
sys.path.insert(0, {here!r})
import numpy as np
import survfair
from bench_xci import PeakRSS, huge_cohort
time_, event, group, risk = huge_cohort({n}, {g})
with warnings.catch_warnings(), PeakRSS(0.01) as memory:
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    try:
        survfair.xci(time_, event, group, risk, method="ipcw", tau=2.0, ci="analytic", \
n_jobs={n_jobs})
        outcome = "done"
    except survfair.MemoryLimitError as error:  # refused before it runs out of memory
        outcome = "refused: " + str(error).split(";")[0]
    seconds = time.perf_counter() - start
print(seconds, memory.before, memory.peak, outcome)
"""


ENGINE_PROBE = """
import statistics, sys, time, warnings
sys.path.insert(0, {here!r})
import survfair
import survfair._core.inference, survfair._core.moments, survfair._xci.estimator
from bench_xci import PeakRSS, cohort
warnings.simplefilter("ignore")
data = cohort({n}, {g})
survfair.xci(data[0][:2000], data[1][:2000], data[2][:2000], data[3][:2000], tau=1.5, n_jobs=1)
if {rows!r}:  # the row path: the moment engine switched off
    for module in (survfair._core.moments, survfair._xci.estimator, survfair._core.inference):
        module.moments_apply = lambda *args, **kwargs: False
seconds = []
with PeakRSS() as memory:
    for _ in range({repeats}):
        start = time.perf_counter()
        survfair.xci(*data, tau=1.5, ci="analytic", n_jobs=1)
        seconds.append(time.perf_counter() - start)
print(statistics.median(seconds), memory.peak - memory.before)
"""


def engine_table(sizes: list[int], repeats: int) -> None:
    """Analytic intervals (IPCW, one thread) by the moment engine and by the row path, each in fresh
    processes that alternate (medians of their medians); the memory column is the peak resident
    memory the calls added to the process (the data and libraries already loaded)."""
    print(
        f"IPCW, tau = 1.5, n_jobs = 1; median of {repeats} calls in each of 3 alternating "
        "fresh processes per engine; memory: peak RSS above that before the calls.\n"
    )
    print(
        "| n | G | moment engine (s) | row path (s) | engine / rows | engine memory (MB) "
        "| row path memory (MB) |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        for g in (2, 8, 32):
            runs = {False: [], True: []}
            for _ in range(3):
                for rows in (False, True):
                    code = ENGINE_PROBE.format(here=str(HERE), n=n, g=g, rows=rows, repeats=repeats)
                    out = subprocess.run(
                        [sys.executable, "-c", code], check=True, capture_output=True, text=True
                    ).stdout.split()
                    runs[rows].append((float(out[0]), float(out[1])))
            engine, rows = (statistics.median(t for t, _ in runs[k]) for k in (False, True))
            engine_mb, rows_mb = (max(m for _, m in runs[k]) for k in (False, True))
            print(
                f"| 10^{len(str(n)) - 1} | {g} | {engine:.3f} | {rows:.3f} | "
                f"{engine / rows:.2f}x | "
                f"{engine_mb:,.0f} | {rows_mb:,.0f} |",
                flush=True,
            )
    print()


def huge_analytic(n: int = 10**8, n_groups: int = 8, n_jobs: int | None = None) -> dict:
    """Analytic intervals (IPCW) at n rows, G groups on ``n_jobs`` threads (default: every core) in
    a fresh process: ``dict(seconds=, before=, peak=, outcome=, n_jobs=)`` (RSS in MB, sampled every
    10 ms; outcome "done" or "refused: ..." when survfair refuses it for memory)."""
    n_jobs = available_cores() if n_jobs is None else n_jobs
    code = HUGE_ANALYTIC.format(here=str(HERE), n=n, g=n_groups, n_jobs=n_jobs)
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split(maxsplit=3)
    return dict(
        seconds=float(out[0]),
        before=float(out[1]),
        peak=float(out[2]),
        outcome=out[3].strip(),
        n_jobs=n_jobs,
    )


def huge_table(n: int = 10**8, n_groups: int = 8) -> None:
    cores = available_cores()
    row = huge_analytic(n, n_groups, cores)
    seconds, before, peak, outcome = row["seconds"], row["before"], row["peak"], row["outcome"]
    print(
        f"### Analytic intervals at n = 10^{len(str(n)) - 1}, G = {n_groups}, "
        f"IPCW, n_jobs = {cores}\n"
    )
    print("| outcome | seconds | RSS before (MB) | peak RSS (MB) |")
    print("|---|---|---|---|")
    print(f"| {outcome} | {seconds:.1f} | {before:,.0f} | {peak:,.0f} |\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="10^6 rows only, 3 repeats")
    parser.add_argument(
        "--huge", action="store_true", help="also analytic intervals at 10^8 rows, G = 8"
    )
    parser.add_argument("--only-huge", action="store_true", help="only the 10^8 rows table")
    parser.add_argument(
        "--engines", action="store_true", help="also the moment engine against the row path"
    )
    parser.add_argument(
        "--only-engines", action="store_true", help="only the moment engine against the row path"
    )
    parser.add_argument(
        "--skip-install", action="store_true", help="no fresh venv (tables 1 and 2)"
    )
    parser.add_argument(
        "--reference-tree", help="an older checkout to time single-threaded against"
    )
    parser.add_argument(
        "--reference-python", default=sys.executable, help="the interpreter for --reference-tree"
    )
    args = parser.parse_args(argv)
    if args.only_huge:
        huge_table()
        return 0
    repeats = 3 if args.quick else args.repeats
    sizes = [10**6] if args.quick else [10**6, 10**7]
    if args.only_engines:
        engine_table(sizes, min(repeats, 3))
        return 0
    import numpy as np

    print(
        f"Machine: {platform.machine()}, {available_cores()} cores, "
        f"Python {platform.python_version()}, "
        f"numpy {np.__version__}, load average {os.getloadavg()[0]:.1f} at the start; "
        f"{time.strftime('%Y-%m-%d %H:%M')}.\n"
    )
    if not args.skip_install:
        install_tables(repeats)
    if args.reference_tree:
        reference_table(args.reference_tree, args.reference_python, sizes, repeats)
    print("### Threads\n")
    threads_table(repeats, max(sizes))
    print()
    for n in sizes:
        print(f"### Groups at n = 10^{len(str(n)) - 1}\n")
        groups_table(repeats, n)
        print()
    if shutil.which("Rscript"):
        r_table(sizes, min(repeats, 3))
    else:
        print("(R not installed: no R table)\n")
    if args.engines:
        print("### The moment engine against the row path\n")
        engine_table(sizes, min(repeats, 3))
    if args.huge:
        huge_table()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
