"""The options of ``survfair audit``, without the audit: building this parser imports no pandas,
scipy or survfair estimator (``survfair audit --help`` answers at once); the audit itself
(:mod:`survfair.cli._audit`) is imported when the command runs."""

from __future__ import annotations

import argparse

from ._options import (
    add_data_options,
    add_debug_option,
    add_estimator_options,
    add_groups_option,
    add_reporting_options,
)

__all__ = [
    "register",
    "EXAMPLES",
    "add_binary_arguments",
    "add_calibration_arguments",
    "add_model_based_arguments",
]

EXAMPLES = """\
examples:
  survfair audit
      the flchain demonstration (two Cox models, group = sex)
  survfair audit --data cohort.csv --time time --event event --group sex --risk risk --tau 3650
  survfair audit --data cohort.parquet --time t --event died --group sex --group race \\
      --risk model_a --risk model_b --format json --output audit.json --report audit.html
  survfair audit --data cohort.csv --time t --event e --group race --groups White Black --risk risk
      audit two groups only; rows of other groups are excluded and counted
  survfair audit --data cohort.csv --time t --event e --group sex --risk risk --tau 5 \\
      --censoring cox --censoring-covariates age stage
      IPCW weights from a Cox model of the censoring on age and stage (within-group dependence)
  survfair audit --data screening.csv --outcome cancer --positive yes --group sex --risk score
      binary outcome: the xAUC matrix (Kallus & Zhou 2019)
  survfair audit --data cohort.csv --time t --event e --group sex --risk lp \\
      --horizon 5 --predicted risk5 --horizon 10 --predicted risk10 --report audit.html
      add calibration within groups of the predicted 5- and 10-year risks
"""


class _Given(argparse.Action):
    """Store the value and note that the option was given (``args.given`` holds its dest): a
    refusal can then tell a default from the user's choice."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, "given", (*getattr(namespace, "given", ()), self.dest))


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``audit`` subcommand to an argparse sub-parser collection; returns its parser."""
    parser = subparsers.add_parser(
        "audit",
        help="xCI audit of risk scores (flchain demo without --data)",
        description="Cross-group concordance (xCI) audit of risk columns of a CSV or Parquet "
        "file; without --data, the flchain demonstration. With --outcome and no --time, a binary "
        "xAUC audit.",
        epilog=EXAMPLES,
    )
    data = add_data_options(
        parser,
        required=False,
        several_risks=True,
        data_help="CSV or Parquet file (default: none, the flchain demonstration)",
    )
    add_groups_option(data)
    data.add_argument(
        "--cluster",
        metavar="COL",
        help="column of cluster labels (hospital, practice, person of repeated records): "
        "cluster-robust analytic intervals, and the bootstrap resamples whole clusters",
    )
    data.add_argument(
        "--entry",
        metavar="COL",
        help="column of entry times (delayed entry, left truncation; unit of --time, entry < "
        "time): a pair counts only if the later member was under observation at the earlier event",
    )
    data.add_argument(
        "--weights",
        metavar="COL",
        help="column of case weights (>= 0; sampling or inverse-probability weights, e.g. of a "
        "case-cohort design): a pair weighs w_i w_j, the censoring Kaplan-Meier is weighted",
    )
    data.add_argument(
        "--cause",
        metavar="K",
        type=int,
        help="competing risks: --event holds cause codes (0 = censored, 1..K = causes) and K is "
        "the event of interest; other causes are competing events (cause-specific xCI of Wolbers "
        "et al. 2014; with --horizon, the AUC(t) controls are chosen by --controls)",
    )
    data.add_argument(
        "--controls",
        choices=["all", "event_free"],
        default="all",
        help="with --cause and --horizon, who the AUC(t) controls are: 'all' (default), everyone "
        "who is not a case -- event-free after t or with a competing event by t (Blanche et al. "
        "2013's second definition, riskRegression's Score); 'event_free', only those event-free "
        "after t. Without --cause the controls are the event-free",
    )
    add_estimator_options(parser, cox=True)
    output = parser.add_argument_group("output")
    output.add_argument(
        "--format",
        choices=["table", "json", "csv"],
        default="table",
        help="text tables, JSON, or one tidy CSV table (cells and summaries)",
    )
    output.add_argument(
        "--output",
        metavar="FILE",
        help="write the output to this file, whatever its extension (default: stdout)",
    )
    output.add_argument(
        "--report",
        metavar="FILE",
        help="also write a report: .html/.htm (self-contained) or .md (default: none)",
    )
    inference = parser.add_argument_group("intervals")
    inference.add_argument(
        "--ci",
        choices=["analytic", "bootstrap", "none"],
        default="analytic",
        action=_Given,
        help="interval method: analytic influence-function intervals (the default; with "
        "--censoring cox they include the censoring model's estimation), bootstrap, or none",
    )
    inference.add_argument(
        "--confidence-level", metavar="L", type=float, default=0.95, help="interval level"
    )
    inference.add_argument(
        "--n-resamples", metavar="N", type=int, default=1000, help="bootstrap replicates"
    )
    inference.add_argument(
        "--seed", type=int, help="bootstrap random seed (default: none, a fresh seed)"
    )
    inference.add_argument(
        "--n-jobs",
        metavar="J",
        type=int,
        help="cores to use: threads for the pair counts and the bootstrap, processes for the "
        "calibration bootstrap (default: every core; the numbers are the same for any value)",
    )
    inference.add_argument(
        "--bootstrap-method",
        choices=["bca", "percentile"],
        default="bca",
        help="bootstrap interval",
    )
    inference.add_argument(
        "--stratify",
        choices=["group", "group_event", "none"],
        default="group",
        help="bootstrap strata",
    )
    parser.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="turn off the progress bars (drawn only when stderr is a terminal)",
    )
    add_reporting_options(parser)
    add_binary_arguments(parser)
    add_calibration_arguments(parser)
    add_model_based_arguments(parser)
    add_debug_option(parser, top_level=False)
    # the audit and its imports are loaded only when it runs (by _main, which sits above both)
    parser.set_defaults(handler=("_audit", "run"))
    return parser


def add_binary_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--binary``, ``--outcome COL``, ``--positive LABEL`` and ``--horizon T``
    (repeatable)."""
    options = parser.add_argument_group("binary outcomes and horizons (xAUC)")
    options.add_argument(
        "--binary",
        action="store_true",
        help="audit a binary outcome with the xAUC matrix "
        "(automatic when --outcome is given without --time)",
    )
    options.add_argument(
        "--outcome", metavar="COL", help="column with the binary outcome (two labels)"
    )
    options.add_argument(
        "--positive",
        metavar="LABEL",
        default="1",
        help="label of the positive class, the one that should score higher",
    )
    options.add_argument(
        "--horizon",
        metavar="T",
        type=float,
        action="append",
        help="add the cross-group cumulative/dynamic AUC(t) matrix at time T; repeatable",
    )


def add_calibration_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--predicted COLUMN`` (repeatable, one per ``--horizon``)."""
    options = parser.add_argument_group("calibration of predicted risks")
    options.add_argument(
        "--predicted",
        metavar="COLUMN",
        action="append",
        help="column of predicted event probabilities F(t | x) at the matching --horizon (give "
        "one per --horizon, in the same order; with several --risk, one per --horizon for each "
        "--risk, the columns of the first --risk first): adds calibration within groups (O/E, "
        "slope, ICI, Brier, GND test), one per --risk",
    )
    options.add_argument(
        "--brier-variance",
        choices=["influence", "conservative"],
        default="influence",
        help="standard error of the Brier scores: 'influence' (default) counts the estimation of "
        "the censoring Kaplan-Meier, as riskRegression's Score; 'conservative' holds the "
        "censoring weights fixed (Score(conservative=TRUE), wider)",
    )


def add_model_based_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--model-based-lp`` and ``--model-based-survival`` / ``--model-based-times``."""
    options = parser.add_argument_group(
        "model-based reference (is an asymmetry the model's fault?)",
        "The xCI each model would have if its own predictions were true, and the excess asymmetry: "
        "observed minus model-based. The findings then lead with the excess.",
    )
    options.add_argument(
        "--model-based-lp",
        metavar="COLUMN",
        action="append",
        help="a proportional-hazards model's linear predictor, one per --risk in the same order "
        "(often the --risk column itself); the baseline hazard is Breslow's from the audited rows",
    )
    options.add_argument(
        "--model-based-survival",
        metavar="COLUMN",
        nargs="+",
        help="the model's predicted survival S(t | x), one column per --model-based-times in the "
        "same order (one --risk only)",
    )
    options.add_argument(
        "--model-based-times",
        metavar="T",
        type=float,
        nargs="+",
        help="the times of the --model-based-survival columns, increasing, in the unit of --time",
    )
