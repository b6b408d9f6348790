"""``survfair mitigate``: fit a group shift (or monotone maps) and write the adjusted scores.

A thin consumer of :mod:`survfair.mitigate`. Every input row is written back, in input order,
plus one column ``risk_adjusted`` (text cells are not neutralised: it is the user's own table);
the before/after table is printed. Without ``--fit-column`` the adjustment is fitted and judged
on the same rows: the printed numbers are in-sample (optimistic), which the output says.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from ..mitigate import OBJECTIVES, group_monotone, group_shift
from ._errors import CLIError, library_errors, print_warning, terminal_safe
from ._io import (
    TABLE_SUFFIXES,
    check_output_paths,
    read_table,
    require_columns,
    staged_outputs,
    table_columns,
)
from ._options import (
    add_data_options,
    add_debug_option,
    add_estimator_options,
    add_groups_option,
    column_roles,
    excluded_note,
    group_argument,
    group_labels,
    match_groups,
    match_label,
    subset_groups,
)

__all__ = ["register", "run"]

EXAMPLES = (
    """\
examples:
  survfair mitigate --data cohort.csv --time time --event event --group sex --risk risk \\
      --tau 3650 --fit-column train --output adjusted.csv
      fit the shift on the rows where 'train' is true, judge it on the others
  survfair mitigate --data cohort.parquet --time t --event e --group race --risk risk \\
      --adjustment monotone --reference White --output adjusted.parquet """
    """--report-table before_after.csv
  survfair mitigate --data cohort.csv --time t --event e --group race --groups White Black """
    """--risk risk \\
      --output adjusted.csv
      adjust two groups only; the other groups' rows are written with an empty risk_adjusted
  survfair mitigate --data cohort.csv --time time --event event --group sex --risk lp --tau 3650 \\
      --fit-column train --predicted risk5 --horizon 1826 --output adjusted.csv
      also report each group's calibration of the adjusted predicted 5-year risks """
    """(O/E, slope, ICI, Brier)
"""
)

IN_SAMPLE_WARNING = (
    "no --fit-column: the adjustment is fitted and evaluated on the same rows, so the before/after "
    "numbers are in-sample and optimistic; hold out rows with --fit-column COL"
)
_SAMPLE_LABELS = {"fit": "fit (in-sample)", "evaluation": "evaluation (held out)"}


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``mitigate`` subcommand to an argparse sub-parser collection; returns its parser."""
    parser = subparsers.add_parser(
        "mitigate",
        help=(
            "post-process risk scores to close cross-group xCI gaps (group shift or monotone maps)"
        ),
        description="Fit per-group offsets (or monotone maps) on the risk scale and write the "
        "adjusted scores.",
        epilog=EXAMPLES,
    )
    add_groups_option(add_data_options(parser, required=True, several_risks=False))
    fitting = parser.add_argument_group("adjustment")
    fitting.add_argument(
        "--adjustment",
        choices=["shift", "monotone"],
        default="shift",
        help="per-group offsets, or per-group monotone maps to the reference group",
    )
    fitting.add_argument(
        "--objective",
        choices=list(OBJECTIVES),
        default="abs_delta_between",
        help="what the shift optimises",
    )
    fitting.add_argument("--alpha", type=float, default=1.0, help="utility weight of ranking ahead")
    fitting.add_argument("--beta", type=float, default=1.0, help="utility weight of ranking behind")
    fitting.add_argument(
        "--reference",
        metavar="LABEL",
        help="reference group, whose offset is 0 (default: the first group)",
    )
    fitting.add_argument(
        "--fit-column",
        metavar="COL",
        help="boolean column: fit on rows where it is true, evaluate on the rest "
        "(default: none, fit and evaluate in-sample)",
    )
    fitting.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of the shift's search with three or more groups (default 0: the same "
        "offsets on every run; two groups are searched exactly without randomness)",
    )
    add_estimator_options(parser)
    calibrated = parser.add_argument_group("calibration of the adjusted predicted risks")
    calibrated.add_argument(
        "--predicted",
        metavar="COLUMN",
        action="append",
        help="column of the model's predicted event probabilities F(t | x) at the matching "
        "--horizon (one per --horizon, same order): also report each group's calibration "
        "(O/E, intercept, slope, ICI, Brier) of the adjusted predicted risks, before and "
        "after, on the evaluation rows (in-sample without --fit-column)",
    )
    calibrated.add_argument(
        "--horizon",
        metavar="T",
        type=float,
        action="append",
        help="the horizon of the matching --predicted column (unit of --time); repeatable",
    )
    calibrated.add_argument(
        "--risk-scale",
        choices=["log_hazard", "probability"],
        default="log_hazard",
        help="how --risk relates to --predicted: log_hazard (default), a Cox-type linear "
        "predictor, so the adjusted risk is 1 - (1 - F)^exp(r' - r); probability, --risk is "
        "the predicted risk at the one --horizon",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--output",
        metavar="FILE",
        required=True,
        help="output file (.csv or .parquet): every input row, in input order, plus risk_adjusted "
        "(required)",
    )
    output.add_argument(
        "--report-table",
        metavar="FILE",
        help="also write the before/after table to this file, .csv or .parquet (default: none)",
    )
    add_debug_option(parser, top_level=False)
    parser.set_defaults(handler=run)
    return parser


def _fit_mask(frame: pd.DataFrame, column: str | None):
    if column is None:
        return None
    values = frame[column]
    if values.dtype == bool:
        return values.to_numpy()
    lowered = values.astype(str).str.strip().str.lower()
    truthy, falsy = lowered.isin(["1", "true", "yes"]), lowered.isin(["0", "false", "no"])
    if not (truthy | falsy).all():
        raise CLIError(f"--fit-column: column {column!r} must hold true/false or 1/0 values.")
    return truthy.to_numpy()


def format_table(table: pd.DataFrame) -> str:
    shown = table[["sample", "metric", "a", "b", "before", "after", "change"]].copy()
    shown["sample"] = shown["sample"].map(lambda s: _SAMPLE_LABELS.get(s, s))
    shown[["a", "b"]] = shown[["a", "b"]].map(lambda v: "" if v is None else v)
    with pd.option_context("display.width", 140, "display.max_rows", 200):
        return shown.to_string(index=False, float_format="{:.4f}".format, na_rep="")


def _check(args: argparse.Namespace) -> None:
    check_output_paths(
        {"--output": args.output, "--report-table": args.report_table},
        data=args.data,
        suffixes={"--output": tuple(TABLE_SUFFIXES), "--report-table": tuple(TABLE_SUFFIXES)},
    )
    columns = table_columns(args.data)
    require_columns(
        args.data,
        columns,
        {
            "--time": [args.time],
            "--event": [args.event],
            "--group": args.group,
            "--risk": [args.risk],
            "--fit-column": [args.fit_column],
        },
    )
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    if "risk_adjusted" in columns:
        raise CLIError("--data already has a column 'risk_adjusted'; rename it first.")
    predicted, horizons = args.predicted or [], args.horizon or []
    if len(predicted) != len(horizons):
        raise CLIError(
            f"give one --predicted column per --horizon, in the same order; got {len(predicted)} "
            f"--predicted and {len(horizons)} --horizon."
        )
    if args.risk_scale == "probability" and len(horizons) > 1:
        raise CLIError(
            "--risk-scale probability takes one --horizon: "
            "--risk is the predicted risk at that horizon."
        )
    if predicted:
        require_columns(args.data, columns, {"--predicted": list(predicted)})


def run(args: argparse.Namespace) -> int:
    """Run ``survfair mitigate``; returns the exit code (errors are raised,
    see :mod:`survfair.cli`)."""
    _check(args)
    frame = read_table(args.data)
    group = group_argument(args.group)
    chosen = match_groups(frame, args.group, args.groups)
    fitting, n_excluded = subset_groups(frame, args.group, chosen)  # --groups: their rows only
    reference = None if chosen is None else chosen[0]  # the first group named is the reference
    if args.reference is not None:
        labels = group_labels(fitting, args.group).dropna().unique()
        reference = match_label(labels, args.reference, "--reference", "the groups")
    common = dict(
        data=fitting,
        method=args.method,
        tau=args.tau,
        censoring=args.censoring,
        reference_group=reference,
        fit_on=_fit_mask(fitting, args.fit_column),
        alpha=args.alpha,
        beta=args.beta,
    )
    roles = {}
    if args.predicted:
        common.update(
            predicted=list(args.predicted), times=list(args.horizon), scale=args.risk_scale
        )
        roles = dict(
            predicted="--predicted " + ", ".join(repr(c) for c in args.predicted), times="--horizon"
        )
    with library_errors(column_roles(args, **roles)):
        if args.adjustment == "shift":
            fitted = group_shift(
                args.time,
                args.event,
                group,
                args.risk,
                objective=args.objective,
                random_state=args.seed,
                **common,
            )
            header = f"group shift ({args.objective}); offsets: " + ", ".join(
                f"{g}: {v:+.6g}" for g, v in fitted.offsets.items()
            )
        else:
            fitted = group_monotone(args.time, args.event, group, args.risk, **common)
            header = f"monotone maps to reference group {fitted.reference_group!r}"
        output = frame.copy()  # every row of the file; rows outside --groups get no adjusted score
        output["risk_adjusted"] = float("nan")
        output.loc[fitting.index, "risk_adjusted"] = fitted.transform(
            args.risk, group, data=fitting
        )
    table = fitted.to_frame()  # with --predicted, the calibration rows follow (time = the horizon)
    in_sample = args.fit_column is None
    with staged_outputs() as stage:  # both files or neither
        if args.report_table:
            stage.table(table, args.report_table, "--report-table")
        stage.table(
            output, args.output, "--output", neutralise=False
        )  # the user's own rows: labels kept as read
    if in_sample:
        print_warning(IN_SAMPLE_WARNING)
    heading = (
        "before/after, in-sample (fitted and evaluated on the same rows; "
        if in_sample
        else "before/after (fit rows are in-sample, evaluation rows held out; "
    )
    sys.stdout.write(  # labels from the file are printed, never obeyed by a terminal
        terminal_safe(
            f"{header}\nrows: {len(frame)} in, {len(output)} written to {args.output}\n"
            + "".join(
                line[:-1] + "; their risk_adjusted is empty.\n"
                for line in excluded_note(n_excluded, args.groups)
            )
            + f"{heading}rows a = group of the earlier event, b = later member):\n"
            + format_table(table[table["time"].isna()] if "time" in table.columns else table)
            + "\n"
            + _calibration_text(fitted, in_sample)
        )
    )
    return 0


def _calibration_text(fitted, in_sample: bool) -> str:
    """The calibration of the adjusted predicted risks per group (empty without --predicted)."""
    cost = fitted.calibration
    if cost is None:
        return ""
    rows = cost.to_frame()
    rows = rows[rows["part"] == "calibration"][["time", "metric", "a", "before", "after", "change"]]
    rows["time"] = rows["time"].map("{:g}".format)
    where = "fit rows, in-sample" if in_sample else "evaluation rows, held out"
    with pd.option_context("display.width", 140, "display.max_rows", 400):
        body = rows.rename(columns={"a": "group"}).to_string(
            index=False, float_format="{:.4f}".format, na_rep=""
        )
    return (
        "\ncalibration of the predicted risks per group, before and after the adjustment "
        f"({where}; --risk-scale {cost.scale}; O/E = observed / expected, 1 = right on "
        f"average):\n{body}\n"
    )
