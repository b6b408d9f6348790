"""Benchmark: the HTML audit report at many groups (issue 43, deliverable 4).

Usage::

    python benchmarks/bench_report_groups.py [--sizes 12:3000 60:6000 300:6000 2000:150000]
        [--before /tmp/venv_before/bin/python] [--before-max-groups 300] [--cli-max-groups 300]
        [--timeout 1800] [--output benchmarks/results/report_groups.md]

For each ``GROUPS:ROWS`` of ``--sizes`` it writes the cohort of ``bench_many_groups.py`` (``ROWS``
people in ``GROUPS`` groups of about equal size) and, each in a fresh process,

* computes ``survfair.xci(..., method="naive")`` (default analytic intervals) and times
  ``survfair.write_report(result, "report.html")`` alone: the report's generation time, its file
  size, and the peak resident memory of the process (``wait4``; the result's own memory
  included);
* up to ``--cli-max-groups`` groups, times ``survfair audit --method naive --report report.html``
  as a user runs it (text output to a file, then the report).

With ``--before PYTHON`` the same runs are made with another interpreter (an environment in which
the code before the change is installed, e.g. an export of the previous commit installed with
``pip install --no-build-isolation --no-deps -e``), up to ``--before-max-groups`` groups (the
previous report of 2,000 groups would take hours: a text and a hatch per cell of 4 million);
runs that exceed ``--timeout`` are reported as such. The table is printed and written as Markdown
to ``--output`` (the notes after its first ``## `` heading are kept).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
from pathlib import Path

from bench_many_groups import audit_command, run, write_cohort, write_keeping_notes

HERE = Path(__file__).resolve().parent

REPORT = """
import sys, time, warnings
import matplotlib
matplotlib.use("Agg")
import pandas as pd
import survfair
warnings.simplefilter("ignore")
frame = pd.read_csv(sys.argv[1])
start = time.perf_counter()
result = survfair.xci("time", "event", "group", "risk", data=frame, method="naive")
middle = time.perf_counter()
survfair.write_report(result, sys.argv[2])
with open(sys.argv[3], "w") as timings:  # the parent discards the child's output
    timings.write(f"{middle - start} {time.perf_counter() - middle}")
"""


def library_run(python: str, data: Path, report: Path, timeout: float) -> dict:
    """xci and write_report in one child process: their seconds, the peak memory, the size."""
    timings = report.with_suffix(".txt")
    seconds, peak, code, last = run(
        [python, "-c", REPORT, str(data), str(report), str(timings)], timeout
    )
    words = timings.read_text().split() if code == 0 and timings.exists() else []
    xci, write = (float(w) for w in words) if len(words) == 2 else (None, None)
    return {
        "xci": xci,
        "report": write,
        "peak": peak,
        "size": report.stat().st_size / 2**20 if write is not None else None,
        "code": code,
        "last": last,
        "stopped": seconds is None,
    }


def _seconds(value: float | None, stopped: bool, timeout: float) -> str:
    if stopped:
        return f"> {timeout:.0f} (stopped)"
    return "" if value is None else f"{value:.1f}"


def _size(mib: float | None) -> str:
    if mib is None:
        return ""
    return f"{mib:.1f} MiB" if mib >= 1 else f"{mib * 1024:.0f} KiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", nargs="+", default=["12:3000", "60:6000", "300:6000", "2000:150000"]
    )
    parser.add_argument("--before", metavar="PYTHON", help="interpreter with the previous code")
    parser.add_argument("--before-max-groups", type=int, default=300)
    parser.add_argument("--cli-max-groups", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--output", type=Path, default=HERE / "results" / "report_groups.md")
    args = parser.parse_args()

    sides = [("after", sys.executable)] + ([("before", args.before)] if args.before else [])
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for size in args.sizes:
            groups, n = (int(x) for x in size.split(":"))
            data = Path(work) / f"cohort_{groups}.csv"
            write_cohort(data, n, groups)
            for side, python in sides:
                if side == "before" and groups > args.before_max_groups:
                    continue
                report = Path(work) / f"report_{side}_{groups}.html"
                lib = library_run(python, data, report, args.timeout)
                cli = None
                if groups <= args.cli_max_groups and not lib["stopped"]:
                    command = audit_command(python, data, Path(work) / "cli.txt", "table")
                    seconds, peak, code, last = run(
                        [*command, "--report", str(Path(work) / "cli.html")], args.timeout
                    )
                    cli = (seconds, code)
                print(side, groups, n, lib, cli, flush=True)
                rows.append((groups, n, side, lib, cli))
    load = os.getloadavg()
    lines = [
        "# The HTML report at many groups (issue 43, deliverable 4)",
        "",
        f"`python benchmarks/bench_report_groups.py --sizes {' '.join(args.sizes)}"
        + (" --before PYTHON" if args.before else "")
        + f"` on {datetime.date.today().isoformat()}: the cohort of bench_many_groups.py, naive"
        " xCI with the default analytic intervals, `survfair.write_report(result, "
        f"'report.html')` timed alone in a fresh process per run; {os.cpu_count()} cores "
        f"({platform.machine()}, Python {platform.python_version()}), a machine shared with other"
        f" jobs (load average {load[0]:.1f} when the runs ended). Peak memory is the process's,"
        " the result's own included. The command line (`survfair audit --method naive --report"
        " report.html`, text output to a file) is timed as a user runs it, up to "
        f"{args.cli_max_groups} groups.",
        "",
        "| groups | rows | code | write_report (s) | report size | xci (s) | peak memory (MiB) "
        "| `survfair audit --report` (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for groups, n, side, lib, cli in rows:
        command = "" if cli is None else _seconds(cli[0], cli[0] is None, args.timeout)
        lines.append(
            f"| {groups:,} | {n:,} | {side} | "
            f"{_seconds(lib['report'], lib['stopped'], args.timeout)} | {_size(lib['size'])} | "
            f"{_seconds(lib['xci'], False, args.timeout)} | {lib['peak']:.0f} | {command} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        write_keeping_notes(args.output, text)


if __name__ == "__main__":
    main()
