"""Benchmark: a command-line audit of 2,000 groups (issue 43, deliverable 4).

Usage::

    python benchmarks/bench_many_groups.py [--rows 150000] [--groups 2000] [--runs 3]
        [--formats table csv json] [--timeout 1200] [--before /tmp/venv_before/bin/python]
        [--output benchmarks/results/many_groups.md]

Writes a CSV of ``--rows`` people in ``--groups`` groups (sizes about equal; exponential event
times whose hazard grows with the risk, exponential censoring) and times, each in a fresh process
as a user runs it,

* ``survfair audit --data cohort.csv --time time --event event --group group --risk risk
  --method naive --no-progress`` (analytic intervals, the default; ``--format`` as given, output
  to a file), the median of ``--runs`` runs;
* the library call it makes, ``survfair.xci(..., method="naive")`` (default analytic intervals),
  once, so that the command line's own share is visible.

The estimator is the naive one: the default IPCW estimator with one censoring curve per group is
refused at 2,000 groups before anything is computed (its analytic intervals' censoring terms are
G x G^2 numbers, 60 GiB; ``MemoryLimitError``, exit code 2 in a few seconds, before and after).
With ``--before PYTHON`` the audit is also timed with another interpreter (an environment in which
the code before the change is installed, e.g. a ``git worktree`` of the previous commit installed
with ``pip install --no-build-isolation --no-deps -e``); runs that exceed ``--timeout`` are
reported as such. Peak resident memory is read from ``getrusage`` of each child process. The
results are written as Markdown to ``--output`` and printed.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent

LIBRARY = """
import sys, time, warnings
import pandas as pd
import survfair
warnings.simplefilter("ignore")
frame = pd.read_csv(sys.argv[1])
start = time.perf_counter()
survfair.xci("time", "event", "group", "risk", data=frame, method="naive")
print(time.perf_counter() - start)
"""


def write_keeping_notes(path: Path, text: str) -> None:
    """Write ``text`` (the results table) to ``path``, keeping the notes the file holds below its
    first ``## `` heading (written by hand after a run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    previous = path.read_text() if path.exists() else ""
    notes = previous.split("\n## ", 1)[1] if "\n## " in previous else ""
    path.write_text(text + ("\n## " + notes if notes else ""))


def write_cohort(path: Path, rows: int, groups: int, seed: int = 0) -> None:
    """The benchmark's CSV: ``rows`` people in ``groups`` groups of about equal size."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, groups, rows)
    risk = rng.normal(size=rows)
    event_time = rng.exponential(np.exp(-0.5 * risk))
    censoring = rng.exponential(2.0, rows)
    pd.DataFrame(
        {
            "time": np.minimum(event_time, censoring).round(4),
            "event": (event_time <= censoring).astype(int),
            "group": np.char.add("g", group.astype(str)),
            "risk": risk.round(6),
        }
    ).to_csv(path, index=False)


def run(command: list[str], timeout: float) -> tuple[float | None, float, int | None, str]:
    """(seconds or None after ``timeout``, peak resident MiB, exit code, last stderr line) of one
    child process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        try:
            # wait4 reports the child's own peak resident memory
            _, status, usage = _wait(child, timeout)
            elapsed = time.perf_counter() - start
            code = os.waitstatus_to_exitcode(status)
        except subprocess.TimeoutExpired:
            child.kill()
            _, _, usage = os.wait4(child.pid, 0)
            elapsed, code = None, None
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    # ru_maxrss is in KiB on Linux
    return elapsed, usage.ru_maxrss / 1024, code, lines[-1] if lines else ""


def _wait(child: subprocess.Popen, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            return pid, status, usage
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(child.args, timeout)
        time.sleep(0.05)


def audit_command(python: str, data: Path, output: Path, output_format: str) -> list[str]:
    return [
        python,
        "-m",
        "survfair",
        "audit",
        "--data",
        str(data),
        "--time",
        "time",
        "--event",
        "event",
        "--group",
        "group",
        "--risk",
        "risk",
        "--method",
        "naive",
        "--no-progress",
        "--format",
        output_format,
        "--output",
        str(output),
    ]


def _size(mib: float) -> str:
    if mib != mib:  # no output file
        return ""
    return f"{mib:.0f} MiB" if mib >= 10 else f"{mib * 1024:.0f} KiB"


def _seconds(value: float | None, timeout: float) -> str:
    return f"> {timeout:.0f} (stopped)" if value is None else f"{value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=150_000)
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", nargs="+", default=["table"])
    parser.add_argument("--timeout", type=float, default=1200.0)
    parser.add_argument("--before", metavar="PYTHON", help="interpreter with the previous code")
    parser.add_argument("--before-runs", type=int, default=1)
    parser.add_argument("--output", type=Path, default=HERE / "results" / "many_groups.md")
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "cohort.csv"
        write_cohort(data, args.rows, args.groups)
        seconds, peak, code, last = run([sys.executable, "-c", LIBRARY, str(data)], args.timeout)
        rows.append(("after", "library: survfair.xci(method='naive')", [seconds], peak, code, ""))
        sides = [("after", sys.executable, args.runs)]
        if args.before:
            sides.append(("before", args.before, args.before_runs))
        for side, python, runs in sides:
            for output_format in args.formats:
                times, peaks, codes = [], [], []
                for _ in range(runs):
                    output = Path(work) / f"audit.{output_format}"
                    seconds, peak, code, last = run(
                        audit_command(python, data, output, output_format), args.timeout
                    )
                    times.append(seconds)
                    peaks.append(peak)
                    codes.append(code)
                    size = output.stat().st_size / 2**20 if output.exists() else float("nan")
                    print(side, output_format, seconds, f"{peak:.0f} MiB", code, last, flush=True)
                    if seconds is None:
                        break  # one stopped run says enough
                rows.append(
                    (
                        side,
                        f"survfair audit --method naive --format {output_format}",
                        times,
                        max(peaks),
                        codes[-1],
                        _size(size),
                    )
                )
    load = os.getloadavg()
    lines = [
        "# A command-line audit of 2,000 groups (issue 43, deliverable 4)",
        "",
        f"`python benchmarks/bench_many_groups.py --rows {args.rows} --groups {args.groups} "
        f"--runs {args.runs}` on {datetime.date.today().isoformat()}: {args.rows:,} rows, "
        f"{args.groups:,} groups ({args.groups**2:,} cells), naive xCI with the default analytic "
        f"intervals; {os.cpu_count()} cores ({platform.machine()}, Python "
        f"{platform.python_version()}), a machine shared with other jobs (load average "
        f"{load[0]:.1f} when the runs ended). Each run is a fresh process; median of the runs, "
        "peak resident memory of the largest.",
        "",
        "| code | command | runs | median (s) | each run (s) | peak memory (MiB) | exit "
        "| output size |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for side, what, times, peak, code, size in rows:
        finished = [t for t in times if t is not None]
        median = statistics.median(finished) if finished and len(finished) == len(times) else None
        each = ", ".join(_seconds(t, args.timeout) for t in times)
        lines.append(
            f"| {side} | {what} | {len(times)} | {_seconds(median, args.timeout)} | {each} | "
            f"{peak:.0f} | {'' if code is None else code} | {size} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        write_keeping_notes(args.output, text)


if __name__ == "__main__":
    main()
