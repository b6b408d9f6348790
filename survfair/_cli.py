"""Command-line interface: ``survfair audit`` (and further subcommands).

A thin consumer of the public result objects: it reads data, calls :func:`survfair.xci` and the
summaries, and prints. Bad input ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from . import _cli_mitigate, _cli_simulate
from ._cli_binary import add_binary_arguments, horizon_table, run_binary_audit
from ._comparison import compare
from ._datasets import load_flchain
from ._exceptions import ConvergenceError
from ._models import fit_checked, risk_scores
from ._report import data_summary_table, write_report
from ._results import XCIResult
from ._summaries import delta_between, delta_within, min_xci, overall_c, utility

__all__ = ["main"]

#: Truncation used by the flchain demonstration: every group's censoring survival is still
#: above 0.79 at 4000 days (about 11 years), while it falls to 0.02 by the end of follow-up.
FLCHAIN_DEMO_TAU = 4000.0


class UsageError(Exception):
    """Raised for bad command-line input; printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + traceback
        raise UsageError(message)


def read_table(path: str) -> pd.DataFrame:
    """Read a CSV or Parquet file (by extension)."""
    file = Path(path)
    if not file.exists():
        raise UsageError(f"--data: file {path!r} does not exist.")
    suffix = file.suffix.lower()
    if suffix == ".csv":
        return pd.read_csv(file)
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(file)
    raise UsageError(f"--data: unsupported file type {suffix!r}; use .csv or .parquet.")


def _add_audit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", help="CSV or Parquet file; without it, audit the flchain cohort (demo)")
    parser.add_argument("--time", help="column of observed times")
    parser.add_argument("--event", help="column of event indicators (1/True = event)")
    parser.add_argument("--group", action="append", help="group column (repeat for intersections)")
    parser.add_argument("--risk", action="append", help="risk-score column, higher = earlier event (repeatable)")
    parser.add_argument("--method", choices=["ipcw", "naive"], default="ipcw")
    parser.add_argument("--tau", type=float, help="IPCW truncation time (same unit as --time)")
    parser.add_argument("--censoring", choices=["group", "pooled"], default="group")
    parser.add_argument("--format", choices=["table", "json", "csv"], default="table")
    parser.add_argument("--output", help="write the output to this file instead of stdout")
    parser.add_argument("--report", help="also write a report: .html (self-contained) or .md")
    inference = parser.add_argument_group("intervals")
    inference.add_argument("--ci", choices=["analytic", "bootstrap", "none"], default="analytic",
                           help="interval method (default: analytic influence-function intervals)")
    inference.add_argument("--confidence-level", type=float, default=0.95)
    inference.add_argument("--n-resamples", type=int, default=1000, help="bootstrap replicates")
    inference.add_argument("--seed", type=int, help="bootstrap random seed")
    inference.add_argument("--n-jobs", type=int, default=1, help="bootstrap parallel jobs (joblib)")
    inference.add_argument("--bootstrap-method", choices=["bca", "percentile"], default="bca")
    inference.add_argument("--stratify", choices=["group", "group_event", "none"], default="group",
                           help="bootstrap strata (default: group)")
    add_binary_arguments(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="survfair", description="Cross-group ranking fairness audits of risk scores.")
    subparsers = parser.add_subparsers(dest="command", parser_class=_Parser)
    audit = subparsers.add_parser("audit", help="xCI audit of risk scores (flchain demo without --data)")
    _add_audit_arguments(audit)
    audit.set_defaults(handler=_run_audit)
    _cli_simulate.register(subparsers)
    _cli_mitigate.register(subparsers)
    return parser


# -- audit -------------------------------------------------------------------------------------


def _summary_tables(result: XCIResult) -> dict[str, pd.DataFrame]:
    """Δwithin / Δbetween for every pair of groups, min-xCI and utilities, as tables."""
    rows = []
    for a, b in itertools.combinations(result.groups, 2):
        for name, function in (("delta_within", delta_within), ("delta_between", delta_between)):
            estimate = function(result, a, b)
            low, high = estimate.confidence_interval
            rows.append(
                {"summary": name, "a": a, "b": b, "value": estimate.value, "se": estimate.se,
                 "ci_low": low, "ci_high": high, "p_value": estimate.p_value}
            )
    minimum = min_xci(result)
    low, high = minimum.estimate.confidence_interval
    rows.append(
        {"summary": "min_xci", "a": minimum.a, "b": minimum.b, "value": minimum.value, "se": minimum.estimate.se,
         "ci_low": low, "ci_high": high, "p_value": np.nan}
    )
    pooled = overall_c(result)
    low, high = pooled.confidence_interval
    rows.append({"summary": "overall_c", "a": "", "b": "", "value": pooled.value, "se": pooled.se,
                 "ci_low": low, "ci_high": high, "p_value": np.nan})
    return {"summaries": pd.DataFrame(rows), "utility": utility(result).reset_index()}


def _has_intervals(result: XCIResult) -> bool:
    return result.covariance is not None or result.replicates is not None


def _format_text(name: str, result: XCIResult, notes: Sequence[str]) -> str:
    tables = _summary_tables(result)
    settings = f"method={result.method}"
    if result.method == "ipcw":
        settings += f", censoring={result.censoring}, tau={result.tau}"
    lines = [f"== {name} ==", f"n = {result.n_samples}, groups = {list(result.groups)}; {settings}", *notes]
    with pd.option_context("display.precision", 4, "display.width", 140, "display.max_columns", 20):
        lines += ["", "xCI matrix (rows a = group of the earlier event, columns b = group of the later member):",
                  result.matrix.to_string(float_format="{:.4f}".format)]
        if _has_intervals(result):
            low, high = result.confidence_interval()
            lines += [f"{result.confidence_level:.0%} interval, low:", low.to_string(float_format="{:.4f}".format),
                      "high:", high.to_string(float_format="{:.4f}".format)]
        counts = result.counts.drop(columns=["xci"])
        lines += ["", "pair counts:", counts.to_string(index=False, float_format="{:.6g}".format)]
        summaries = tables["summaries"]
        if not _has_intervals(result):
            summaries = summaries[["summary", "a", "b", "value"]]
        lines += ["", "summaries:", summaries.to_string(index=False, float_format="{:.4f}".format, na_rep="")]
        if result.ci_method == "analytic":
            lines.append("(min_xci: an interval that accounts for selecting the minimum needs --ci bootstrap)")
        utilities = tables["utility"]
        if not _has_intervals(result):
            utilities = utilities[["group", "value"]]
        lines += ["", "utility U(a) (alpha = beta = 1):", utilities.to_string(index=False, float_format="{:.4f}".format)]
    return "\n".join(lines) + "\n"


def _render(named_results: list[tuple[str, XCIResult, list[str]]], output_format: str) -> str:
    if output_format == "json":
        payload = []
        for name, result, notes in named_results:
            entry = {"name": name, "notes": notes, **result.to_dict()}
            tables = _summary_tables(result)
            entry["summaries"] = json.loads(tables["summaries"].to_json(orient="records"))
            entry["utility"] = json.loads(tables["utility"].to_json(orient="records"))
            payload.append(entry)
        return json.dumps(payload, indent=2) + "\n"
    if output_format == "csv":
        frames = [result.to_frame().assign(name=name) for name, result, _ in named_results]
        frame = pd.concat(frames, ignore_index=True)
        return frame[["name", *[c for c in frame.columns if c != "name"]]].to_csv(index=False)
    return "\n".join(_format_text(name, result, notes) for name, result, notes in named_results)


def _fit_cox(design: pd.DataFrame, time: np.ndarray, event: np.ndarray) -> np.ndarray:
    """Risk scores of scikit-survival's Cox PH model; a fit that did not converge is an error
    (:func:`survfair.fit_checked`), never a result."""
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    model = fit_checked(CoxPHSurvivalAnalysis(), design, Surv.from_arrays(event=event, time=time))
    return risk_scores(model, design)


def _xci_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of :func:`survfair.xci` from the audit options."""
    options = {"method": args.method, "tau": args.tau, "censoring": args.censoring,
               "confidence_level": args.confidence_level}
    if args.ci != "none":
        options["ci"] = args.ci
    if args.ci == "bootstrap":
        options.update(n_resamples=args.n_resamples, random_state=args.seed, n_jobs=args.n_jobs,
                       bootstrap_method=args.bootstrap_method,
                       stratify=None if args.stratify == "none" else args.stratify)
    return options


def _flchain_demo(args: argparse.Namespace):
    if args.horizon:
        raise UsageError("--horizon needs --data (the flchain demo audits the concordance only).")
    cohort = load_flchain()
    frame = cohort.frame
    notes = [
        f"data: flchain (scikit-survival), {cohort.n_loaded} people; {cohort.n_dropped} rows dropped "
        f"({cohort.dropped_reason}), {len(frame)} analysed; outcome death, time in days; group = sex.",
    ]
    options = _xci_options(args)
    if args.tau is None and args.method == "ipcw":
        options["tau"] = FLCHAIN_DEMO_TAU
        notes.append(f"tau = {FLCHAIN_DEMO_TAU:g} days (demo default; censoring survival is >= 0.79 in both sexes there).")
    models = {
        "Cox PH with sex": list(cohort.covariates),
        "Cox PH without sex": [c for c in cohort.covariates if c != "female"],
    }
    scores = {
        name: _fit_cox(cohort.design[covariates], frame["time"].to_numpy(), frame["event"].to_numpy())
        for name, covariates in models.items()
    }
    comparison = compare(scores, frame["time"], frame["event"], frame["sex"], **options)
    named = [
        (f"flchain: {name}", comparison.results[name],
         notes + [f"model: scikit-survival CoxPHSurvivalAnalysis on {models[name]} (converged)."])
        for name in models
    ]
    settings = {"data": "flchain (scikit-survival)", "rows dropped": f"{cohort.n_dropped} ({cohort.dropped_reason})",
                "group": "sex", **{f"model {k}": ", ".join(v) for k, v in models.items()}}
    return named, comparison, settings


def _file_audit(args: argparse.Namespace):
    missing = [flag for flag, value in (("--time", args.time), ("--event", args.event),
                                        ("--group", args.group), ("--risk", args.risk)) if not value]
    if missing:
        raise UsageError(f"with --data, also give {', '.join(missing)}.")
    frame = read_table(args.data)
    notes = [f"data: {args.data}, {len(frame)} rows (rows are never dropped; invalid values are errors)."]
    comparison = compare({risk: risk for risk in args.risk}, args.time, args.event, args.group, data=frame,
                         **_xci_options(args))
    named = [(f"risk = {risk}", comparison.results[risk], notes) for risk in args.risk]
    settings = {"data": args.data, "time": args.time, "event": args.event, "group": " x ".join(args.group),
                "risk": ", ".join(args.risk), "rows": len(frame), "rows dropped": 0}
    return named, comparison, settings, frame


def _run_audit(args: argparse.Namespace) -> int:
    if args.binary or (args.data and args.time is None and args.outcome):
        if not args.data:
            raise UsageError("--binary needs --data.")
        if not args.risk:
            raise UsageError("the binary audit needs --risk COL (the score).")
        frame = read_table(args.data)
        text = "\n".join(run_binary_audit(_one_risk(args, risk), frame) for risk in args.risk)
        _emit(text, args.output)
        return 0
    if args.data:
        named_results, comparison, settings, frame = _file_audit(args)
    else:
        (named_results, comparison, settings), frame = _flchain_demo(args), None
    text = _render(named_results, args.format)
    if args.horizon:
        text += "".join("\n" + horizon_table(_one_risk(args, risk), frame) for risk in args.risk)
    _emit(text, args.output)
    if args.report:
        first = next(iter(comparison.results.values()))
        settings = {**settings, "method": args.method, "censoring": first.censoring or "-", "tau": first.tau,
                    "intervals": first.ci_method or "none", "confidence level": first.confidence_level}
        write_report(args.report, comparison if len(comparison.results) > 1 else first, settings=settings,
                     data_summary=data_summary_table(first))
    return 0


def _one_risk(args: argparse.Namespace, risk: str) -> argparse.Namespace:
    """The options with a single ``--risk`` column, for the per-score binary and horizon tables."""
    return argparse.Namespace(**{**vars(args), "risk": risk})


def _emit(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``survfair`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return args.handler(args)
    except (UsageError, ValueError, TypeError, ConvergenceError, OSError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"survfair: error: {message}", file=sys.stderr)
        return 2
