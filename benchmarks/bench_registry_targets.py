"""Every target of issue 43 ("Registry scale") measured in one run and printed as one table.

    python benchmarks/bench_registry_targets.py --quick
        # a smoke run of a few minutes: 10^6 rows only, 1 repeat; no 10^7, 10^8, Dask, 2,000 groups
    python benchmarks/bench_registry_targets.py
        # everything but 10^8 rows (about an hour on the 2-core machine)
    python benchmarks/bench_registry_targets.py --huge
        # + the 10^8-row runs (analytic intervals G = 8 on 2 threads; Dask from Parquet)
    python benchmarks/bench_registry_targets.py --update-docs
        # + rewrite the table of docs/benchmarks.md ("Registry-scale targets (issue 43)")

The measurements are those of the benchmark scripts beside this one, called, not repeated here:

* ``bench_xci.py``: ``groups_rows`` (analytic / point at G = 2, 8, 16, 32, n = 10^6 and 10^7, one
  fresh process per G) and ``threads_rows`` (n_jobs = 2 against 1, point and analytic, G = 2, 8);
* ``bench_compiled.py``: ``huge_analytic`` (analytic intervals at 10^8 rows, G = 8, 2 threads, with
  the peak resident memory);
* ``bench_model_based.py``: ``timings`` (the whole ``model_based_xci`` at 10^4 and 10^6 rows against
  ``xci(ci="analytic")`` of the same data) and ``deviation`` (the exact PH reference against the
  O(n^2) formula on 120 random settings);
* ``bench_dask_analytic.py``, run as a subprocess (its printed table and deviations are read):
  analytic intervals of a Dask DataFrame from Parquet on a ``LocalCluster``;
* ``bench_many_groups.py``: its cohort (150,000 rows, 2,000 groups) and command line, ``survfair
  audit --method naive`` with the default analytic intervals;
* the demo audit, ``survfair audit --no-progress`` (the flchain demonstration), timed here: the
  median of 5 fresh processes.

Prints the machine (cores, memory, load average at the start and the end, date) and a Markdown
table ``target | measured | met? | source table``, and writes both to
``benchmarks/results/registry_targets.md``. A section that fails is reported in its rows and the
run goes on (exit code 1 at the end). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import bench_compiled  # noqa: E402  (the benchmarks folder, put on the path above)
import bench_many_groups  # noqa: E402
import bench_model_based  # noqa: E402
import bench_xci  # noqa: E402

RESULTS = HERE / "results" / "registry_targets.md"
DOCS = REPO / "docs" / "benchmarks.md"
START, END = "<!-- registry-targets:start -->", "<!-- registry-targets:end -->"
GIB = 1024.0  # MiB (rss_mb, ru_maxrss / 1024)


class Row:
    """One line of the table: the target, what was measured, whether it is met, and where from."""

    def __init__(self, target: str, source: str, measured: str = "not run", met: str = "—"):
        self.target, self.source, self.measured, self.met = target, source, measured, met

    def markdown(self) -> str:
        return f"| {self.target} | {self.measured} | {self.met} | {self.source} |"


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def _pow(n: int) -> str:
    return f"10^{round(math.log10(n))}"


def _progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _machine(mode: str) -> dict:
    import numpy as np

    import survfair

    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    with open("/proc/meminfo") as meminfo:
        total = int(meminfo.readline().split()[1]) / 2**20  # GiB
    return dict(
        mode=mode,
        started=datetime.datetime.now(),
        load_start=os.getloadavg(),
        cores=bench_xci.available_cores(),
        cpu_count=os.cpu_count(),
        memory=total,
        machine=platform.machine(),
        python=platform.python_version(),
        numpy=np.__version__,
        survfair=survfair.__version__,
        commit=commit + (" with local changes" if dirty else "") if commit else "unknown",
    )


# ---- the sections: each fills its rows and may raise (the run goes on) ----------------------


def demo_audit(rows: list[Row], runs: int = 5) -> None:
    row = Row(
        "demo audit `survfair audit` (6,524 rows), median of 5 fresh processes ≤ 3 s",
        "this script: `survfair audit --no-progress`",
    )
    rows.append(row)
    script = Path(sys.executable).parent / "survfair"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "survfair"]
    seconds = []
    with tempfile.TemporaryDirectory() as work:
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(
                command + ["audit", "--no-progress"], check=True, cwd=work, capture_output=True
            )
            seconds.append(time.perf_counter() - start)
    median = statistics.median(seconds)
    row.measured = f"{median:.2f} s (runs {', '.join(f'{s:.2f}' for s in seconds)})"
    row.met = _met(median <= 3.0)


def model_based_deviation(rows: list[Row], settings: int = 120) -> None:
    row = Row(
        f"exact PH reference against the O(n²) formula, {settings} random settings: largest "
        "relative deviation ≤ 1e-10",
        "bench_model_based.py `deviation` (settings of tests/test_model_based_exact_ph.py)",
    )
    rows.append(row)
    with contextlib.redirect_stdout(sys.stderr):
        worst, bound = bench_model_based.deviation(settings)
    row.measured = f"{worst:.1e} (largest proven bound {bound:.1e})"
    row.met = _met(worst <= 1e-10)


def model_based_timings(rows: list[Row], sizes: list[int], repeats: int) -> None:
    small = {
        g: Row(f"`model_based_xci` (PH, intervals) at 10^4 rows, G = {g} ≤ 0.2 s", "")
        for g in (2, 8)
    }
    large = {
        g: Row(
            f'`model_based_xci` at 10^6 rows, G = {g} ≤ 10× `xci(ci="analytic")` of the same data',
            "",
        )
        for g in (2, 8)
    }
    for row in (*small.values(), *large.values()):
        row.source = f"bench_model_based.py `timings` (median of {repeats})"
        rows.append(row)
    with contextlib.redirect_stdout(sys.stderr):
        measured = bench_model_based.timings(sizes, [2, 8], repeats)
    for m in measured:
        if m["n"] == 10_000:
            row = small[m["groups"]]
            row.measured = f"{m['model_based_xci']:.3f} s (xci {m['xci']:.3f} s; K = {m['nodes']})"
            row.met = _met(m["model_based_xci"] <= 0.2)
        elif m["n"] == 1_000_000:
            row = large[m["groups"]]
            row.measured = (
                f"{m['ratio']:.1f}× ({m['model_based_xci']:.2f} s against {m['xci']:.2f} s)"
            )
            row.met = _met(m["ratio"] <= 10.0)


def groups(rows: list[Row], n: int, repeats: int) -> None:
    by_g = {}
    for g in (2, 8, 16, 32):
        by_g[g] = Row(
            f"analytic / point at {_pow(n)} rows, G = {g} ≤ 2.5×",
            f"bench_xci.py `groups_table` (n = {_pow(n)}; median of {repeats} alternating pairs, "
            "IPCW, one thread)",
        )
        rows.append(by_g[g])
    for m in bench_xci.groups_rows(repeats, n):
        _progress(f"groups {_pow(n)} G = {m['g']}: {m['ratio']:.2f}x")
        spread = f"pairs {m['low']:.2f}–{m['high']:.2f}; " if repeats > 1 else ""
        by_g[m["g"]].measured = (
            f"{m['ratio']:.2f}× ({m['analytic']:.3f} s / {m['point']:.3f} s; {spread}"
            f"peak {m['peak']:,.0f} MB)"
        )
        by_g[m["g"]].met = _met(m["ratio"] <= 2.5)


def threads(rows: list[Row], n: int, repeats: int, quick: bool) -> None:
    cells = {}
    for g in (2, 8):
        for ci in (None, "analytic"):
            what = "analytic intervals" if ci else "point estimate"
            cells[g, ci] = Row(
                f"2 threads against 1 at 10^7 rows, {what}, G = {g} ≥ 1.8×",
                f"bench_xci.py `threads_table` (n = {_pow(n)}; median of {repeats}, IPCW)",
            )
            rows.append(cells[g, ci])
    for m in bench_xci.threads_rows(repeats, [n], [1, 2]):
        speedup = m["seconds"][1] / m["seconds"][2]
        _progress(f"threads {_pow(n)} G = {m['g']} {m['ci']}: {speedup:.2f}x")
        row = cells[m["g"], m["ci"]]
        row.measured = f"{speedup:.2f}× ({m['seconds'][1]:.3f} s / {m['seconds'][2]:.3f} s)" + (
            f" at {_pow(n)} (--quick)" if quick else ""
        )
        row.met = "— (not at 10^7)" if quick else _met(speedup >= 1.8)


def huge_analytic(rows: list[Row]) -> None:
    row = Row(
        "analytic intervals at 10^8 rows, G = 8, 2 threads ≤ 150 s within 24 GiB",
        "bench_compiled.py `huge_table` (IPCW, one run)",
    )
    rows.append(row)
    m = bench_compiled.huge_analytic(10**8, 8, n_jobs=2)
    row.measured = (
        f"{m['outcome']}: {m['seconds']:.1f} s, peak {m['peak'] / GIB:.1f} GiB "
        f"({m['before'] / GIB:.1f} GiB before the call)"
    )
    row.met = _met(m["outcome"] == "done" and m["seconds"] <= 150 and m["peak"] <= 24 * GIB)


DASK_ROW = re.compile(r"^\| (?P<path>[^|]+?) \| (?P<seconds>[0-9.]+) \| (?P<memory>[^|]+?) \|$")
DASK_DIFFERENCE = re.compile(r"^- (?P<name>[^:]+): (?P<value>\S+)$")


def parse_dask(output: str) -> dict:
    """The numbers of ``bench_dask_analytic.py``'s printed table: ``seconds`` and ``memory`` by
    path ('in memory', 'point', 'analytic') and ``differences`` (name -> largest absolute
    difference of the Dask analytic result from in memory)."""
    out = {"seconds": {}, "memory": {}, "differences": {}}
    for line in output.splitlines():
        if match := DASK_ROW.match(line.strip()):
            path = match["path"]
            key = "in memory" if path.startswith("in memory") else None
            key = "analytic" if "analytic" in path and path.startswith("Dask") else key
            key = "point" if "ci=None" in path else key
            if key:
                out["seconds"][key] = float(match["seconds"])
                out["memory"][key] = match["memory"].strip()
        elif match := DASK_DIFFERENCE.match(line.strip()):
            out["differences"][match["name"]] = float(match["value"])
    if "analytic" not in out["seconds"] or not out["differences"]:
        raise RuntimeError("bench_dask_analytic.py printed no table:\n" + output[-2000:])
    return out


def dask(rows: list[Row], n: int, workers: int = 2) -> None:
    size = f"1e{round(math.log10(n))}"
    source = f"bench_dask_analytic.py --n {size} (subprocess; one run)"
    equal = Row(
        f"Dask analytic intervals = in memory at {_pow(n)} rows: largest difference of cells, "
        "SEs, covariance, Δ summaries ≤ 1e-10",
        source,
    )
    cost = Row(
        f"Dask analytic intervals at {_pow(n)} rows from Parquet, LocalCluster of {workers} "
        "workers: time, peak memory per worker (measured, no target)",
        source,
    )
    rows += [equal, cost]
    command = [sys.executable, str(HERE / "bench_dask_analytic.py"), "--n", size]
    done = subprocess.run(
        command + ["--workers", str(workers)], capture_output=True, text=True, cwd=REPO
    )
    if done.returncode != 0:
        raise RuntimeError(f"exit code {done.returncode}: {done.stderr.strip()[-500:]}")
    m = parse_dask(done.stdout)
    name, worst = max(m["differences"].items(), key=lambda item: item[1])
    equal.measured = f"{worst:.1e} (largest: {name})"
    equal.met = _met(worst <= 1e-10)
    seconds = m["seconds"]
    point, in_memory = seconds.get("point", math.nan), seconds.get("in memory", math.nan)
    cost.measured = (
        f"{seconds['analytic']:.1f} s, {m['memory']['analytic']} MB a worker (point estimate "
        f"{point:.1f} s; in memory {in_memory:.1f} s)"
    )


def many_groups(rows: list[Row], runs: int, n_rows: int = 150_000, n_groups: int = 2000) -> None:
    row = Row(
        f"CLI audit of {n_groups:,} groups ({n_rows:,} rows) with analytic intervals ≤ 60 s",
        f"bench_many_groups.py (`survfair audit --method naive`, median of {runs} fresh processes)",
    )
    rows.append(row)
    timeout = 600.0
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "cohort.csv"
        bench_many_groups.write_cohort(data, n_rows, n_groups)
        library, _, code, last = bench_many_groups.run(
            [sys.executable, "-c", bench_many_groups.LIBRARY, str(data)], timeout
        )
        if code != 0:
            raise RuntimeError(f"the library call failed: {last}")
        seconds, peaks = [], []
        for _ in range(runs):
            command = bench_many_groups.audit_command(
                sys.executable, data, Path(work) / "audit.txt", "table"
            )
            elapsed, peak, code, last = bench_many_groups.run(command, timeout)
            _progress(f"many groups: {elapsed} s, exit {code}")
            if elapsed is None:
                row.measured = f"> {timeout:.0f} s (stopped)"
                row.met = _met(False)
                return
            if code != 0:
                raise RuntimeError(f"survfair audit exited with {code}: {last}")
            seconds.append(elapsed)
            peaks.append(peak)
    median = statistics.median(seconds)
    row.measured = (
        f"{median:.1f} s (runs {', '.join(f'{s:.1f}' for s in seconds)}; the library call "
        f"{library:.1f} s; peak {max(peaks) / GIB:.1f} GiB)"
    )
    row.met = _met(median <= 60.0)


# ---- the run ----------------------------------------------------------------------------------


def _section(rows: list[Row], failures: list[str], name: str, function, *args) -> None:
    """Run one section; on an error, mark its rows (those it added, or one row of its own)."""
    _progress(f"{name} ...")
    first = len(rows)
    try:
        function(rows, *args)
    except Exception as error:  # noqa: BLE001  (one section's failure must not lose the others)
        message = f"failed: {type(error).__name__}: {str(error).strip().splitlines()[-1][:120]}"
        failures.append(f"{name}: {message}")
        _progress(f"{name} {message}")
        if len(rows) == first:
            rows.append(Row(name, "", message))
        for row in rows[first:]:
            if row.measured == "not run":
                row.measured, row.met = message, "—"


def measure(mode: str, repeats: int) -> tuple[list[Row], list[str]]:
    quick, huge = mode == "quick", mode == "huge"
    sizes = [10**6] if quick else [10**6, 10**7]
    rows: list[Row] = []
    failures: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # 1. analytic intervals on Dask
        for n in [10**7, 10**8] if huge else [10**7]:
            if quick:
                rows.append(
                    Row(
                        f"Dask analytic intervals = in memory at {_pow(n)} rows ≤ 1e-10; time, "
                        "peak memory per worker",
                        "bench_dask_analytic.py",
                        "not run (--quick)",
                    )
                )
            else:
                _section(rows, failures, f"Dask at {_pow(n)}", dask, n)
        if not huge:
            rows.append(
                Row(
                    "Dask analytic intervals at 10^8 rows: time, peak memory per worker",
                    "bench_dask_analytic.py --n 1e8",
                    "not run (needs --huge)",
                )
            )
        # 2. the exact model-based reference, the demo audit
        _section(rows, failures, "model-based deviation", model_based_deviation)
        _section(
            rows, failures, "model-based timings", model_based_timings, [10_000, 1_000_000], repeats
        )
        _section(rows, failures, "demo audit", demo_audit)
        # 3. analytic intervals near the point estimate
        for n in [10**6, 10**7]:
            if n in sizes:
                _section(rows, failures, f"groups at {_pow(n)}", groups, n, repeats)
            else:
                rows.append(
                    Row(
                        f"analytic / point at {_pow(n)} rows, G = 2, 8, 16, 32 ≤ 2.5×",
                        "bench_xci.py `groups_table`",
                        "not run (--quick)",
                    )
                )
        _section(rows, failures, "threads", threads, max(sizes), repeats, quick)
        if huge:
            _section(rows, failures, "10^8 rows", huge_analytic)
        else:
            rows.append(
                Row(
                    "analytic intervals at 10^8 rows, G = 8, 2 threads ≤ 150 s within 24 GiB",
                    "bench_compiled.py `huge_table`",
                    "not run (needs --huge)",
                )
            )
        # 4. many groups
        if quick:
            rows.append(
                Row(
                    "CLI audit of 2,000 groups (150,000 rows) with analytic intervals ≤ 60 s",
                    "bench_many_groups.py",
                    "not run (--quick)",
                )
            )
        else:
            _section(rows, failures, "many groups", many_groups, repeats)
    return rows, failures


def render(rows: list[Row], machine: dict, finished: datetime.datetime) -> str:
    start, end = machine["load_start"], machine["load_end"]
    option = {"quick": " --quick", "default": "", "huge": " --huge"}[machine["mode"]]
    lines = [
        f"`python benchmarks/bench_registry_targets.py{option}`, "
        f"{machine['started']:%Y-%m-%d %H:%M}–{finished:%H:%M}: {machine['cores']} cores "
        f"({machine['cpu_count']} on the machine), {machine['memory']:.0f} GiB, "
        f"{machine['machine']}, Python {machine['python']}, numpy {machine['numpy']}, survfair "
        f"{machine['survfair']} (commit {machine['commit']}); load average (1, 5, 15 min) "
        f"{start[0]:.1f} / {start[1]:.1f} / {start[2]:.1f} at the start, "
        f"{end[0]:.1f} / {end[1]:.1f} / {end[2]:.1f} at the end.",
        "",
        "| target | measured | met? | source table |",
        "|---|---|---|---|",
        *(row.markdown() for row in rows),
        "",
        "Not timed here: `n_jobs` capped at the available cores and nonsensical values refused "
        "(deliverable 4) are checked by the tests; the bit-identity of deliverable 5 is "
        "`benchmarks/compare_reference.py` (dump under each tree, then compare).",
    ]
    return "\n".join(lines) + "\n"


def results_file(table: str, machine: dict) -> str:
    loaded = max(machine["load_start"][0], machine["load_end"][0]) > 0.5 * machine["cores"]
    header = [
        "# Registry-scale targets (issue 43)",
        "",
        "Written by `python benchmarks/bench_registry_targets.py` (see its docstring); the same "
        "table is in docs/benchmarks.md (`--update-docs`).",
        "",
    ]
    if machine["mode"] == "quick":
        header += [
            "**A smoke run (`--quick`: 10^6 rows only, 1 repeat; no 10^7, 10^8, Dask or 2,000 "
            "groups). Its numbers are not the final ones**"
            + (
                f" — and the machine was shared and loaded while it ran (load average "
                f"{machine['load_start'][0]:.1f} at the start, {machine['load_end'][0]:.1f} at "
                f"the end, on {machine['cores']} cores), which inflates every time."
                if loaded
                else "."
            ),
            "",
        ]
    elif loaded:
        header += [
            f"**The machine was loaded while this ran** (load average "
            f"{machine['load_start'][0]:.1f} at the start, {machine['load_end'][0]:.1f} at the "
            f"end, on {machine['cores']} cores): times are inflated; ratios within one run "
            "suffer less.",
            "",
        ]
    return "\n".join(header) + "\n" + table


def update_docs(table: str, path: Path = DOCS) -> None:
    """Replace the text between the two markers of ``path`` by ``table``."""
    text = path.read_text()
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise SystemExit(f"{path}: expected one {START} before one {END}")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    path.write_text(f"{head}{START}\n{table}{END}{tail}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--quick",
        action="store_true",
        help="10^6 rows only, 1 repeat; no 10^7, 10^8, Dask or 2,000 groups (a few minutes)",
    )
    size.add_argument("--huge", action="store_true", help="also the 10^8-row runs")
    parser.add_argument(
        "--repeats", type=int, default=3, help="repeats of each timing (default 3; 1 with --quick)"
    )
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="rewrite the table between the markers of docs/benchmarks.md",
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="the Markdown results file")
    args = parser.parse_args(argv)
    if args.quick and args.update_docs:
        parser.error("--update-docs takes a full run (not --quick): the docs hold final numbers")
    mode = "quick" if args.quick else "huge" if args.huge else "default"
    repeats = 1 if args.quick else args.repeats
    machine = _machine(mode)
    rows, failures = measure(mode, repeats)
    machine["load_end"] = os.getloadavg()
    table = render(rows, machine, datetime.datetime.now())
    print(table)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(results_file(table, machine))
    _progress(f"written: {args.output}")
    if args.update_docs:
        update_docs(table)
        _progress(f"updated: {DOCS}")
    for failure in failures:
        print(f"failed section: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
