"""``survfair mitigate``: fit a group shift (or monotone maps) and write the adjusted scores.

A thin consumer of :mod:`survfair.mitigate`. Every input row is written back, in input order,
with one added column ``risk_adjusted``; the before/after table is printed. Bad input ends with
one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from .mitigate import OBJECTIVES, group_monotone, group_shift
from .mitigate._shift import _format_table

__all__ = ["register", "run"]

SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


class _InputError(Exception):
    """Bad command-line input (one line, exit code 2)."""


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``mitigate`` subcommand to an argparse sub-parser collection; returns its parser."""
    parser = subparsers.add_parser(
        "mitigate",
        help="post-process risk scores to close cross-group xCI gaps (group shift or monotone maps)",
        description="Fit per-group offsets (or monotone maps) on the risk scale and write the adjusted scores.",
    )
    parser.add_argument("--data", required=True, help="input CSV or Parquet file")
    parser.add_argument("--time", required=True, help="column of observed times")
    parser.add_argument("--event", required=True, help="column of event indicators (1/True = event)")
    parser.add_argument("--group", required=True, action="append", help="group column (repeat for intersections)")
    parser.add_argument("--risk", required=True, help="risk-score column, higher = earlier event")
    parser.add_argument("--adjustment", choices=["shift", "monotone"], default="shift")
    parser.add_argument("--objective", choices=list(OBJECTIVES), default="delta_between")
    parser.add_argument("--alpha", type=float, default=1.0, help="utility weight of ranking ahead")
    parser.add_argument("--beta", type=float, default=1.0, help="utility weight of ranking behind")
    parser.add_argument("--method", choices=["ipcw", "naive"], default="ipcw")
    parser.add_argument("--tau", type=float, help="IPCW truncation time (same unit as --time)")
    parser.add_argument("--censoring", choices=["group", "pooled"], default="group")
    parser.add_argument("--reference", help="reference group (offset 0); default: the first group")
    parser.add_argument("--fit-column", help="boolean column: fit on rows where it is true, evaluate on the rest")
    parser.add_argument("--output", required=True, help="output file (.csv or .parquet): input rows + risk_adjusted")
    parser.add_argument("--report-table", help="also write the before/after table to this file (.csv or .parquet)")
    parser.set_defaults(handler=run)
    return parser


def _read(path: str) -> pd.DataFrame:
    file = Path(path)
    kind = SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise _InputError(f"--data: unsupported file type {file.suffix!r}; use .csv or .parquet.")
    if not file.exists():
        raise _InputError(f"--data: file {path!r} does not exist.")
    return pd.read_csv(file) if kind == "csv" else pd.read_parquet(file)


def _write(frame: pd.DataFrame, path: str, flag: str) -> None:
    kind = SUFFIXES.get(Path(path).suffix.lower())
    if kind is None:
        raise _InputError(f"{flag}: unsupported file type {Path(path).suffix!r}; use .csv or .parquet.")
    if kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)


def _reference(value: str | None, frame: pd.DataFrame, group: list[str]):
    """Match --reference (a string) to a group label of the data (which may be numeric)."""
    if value is None:
        return None
    labels = frame[group[0]].unique() if len(group) == 1 else None
    if labels is not None:
        for label in labels:
            if str(label) == value:
                return label
    return value


def _fit_mask(frame: pd.DataFrame, column: str | None):
    if column is None:
        return None
    if column not in frame.columns:
        raise _InputError(f"--fit-column: column {column!r} is not in the data.")
    values = frame[column]
    if values.dtype == bool:
        return values.to_numpy()
    lowered = values.astype(str).str.strip().str.lower()
    truthy, falsy = lowered.isin(["1", "true", "yes"]), lowered.isin(["0", "false", "no"])
    if not (truthy | falsy).all():
        raise _InputError(f"--fit-column: column {column!r} must hold true/false or 1/0 values.")
    return truthy.to_numpy()


def run(args: argparse.Namespace) -> int:
    """Run ``survfair mitigate``; returns the exit code (0, or 2 on bad input)."""
    try:
        frame = _read(args.data)
        if "risk_adjusted" in frame.columns:
            raise _InputError("--data already has a column 'risk_adjusted'; rename it first.")
        group = args.group if len(args.group) > 1 else args.group[0]
        common = dict(
            data=frame, method=args.method, tau=args.tau, censoring=args.censoring,
            reference=_reference(args.reference, frame, args.group), fit_on=_fit_mask(frame, args.fit_column),
            alpha=args.alpha, beta=args.beta,
        )
        if args.adjustment == "shift":
            fitted = group_shift(args.time, args.event, group, args.risk, objective=args.objective, **common)
            header = f"group shift ({args.objective}); offsets: " + ", ".join(
                f"{g}: {v:+.6g}" for g, v in fitted.offsets.items()
            )
        else:
            fitted = group_monotone(args.time, args.event, group, args.risk, **common)
            header = f"monotone maps to reference group {fitted.reference!r}"
        output = frame.copy()
        output["risk_adjusted"] = fitted.transform(args.risk, group, data=frame)
        _write(output, args.output, "--output")
        table = fitted.before_after
        if args.report_table:
            _write(table, args.report_table, "--report-table")
    except (_InputError, ValueError, TypeError, OSError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"survfair: error: {message}", file=sys.stderr)
        return 2
    sys.stdout.write(
        f"{header}\nrows: {len(frame)} in, {len(output)} written to {args.output}\n"
        "before/after (rows a = group of the earlier event, b = later member):\n"
        + _format_table(table)
        + "\n"
    )
    return 0
