"""The one set of command-line options shared by the subcommands, and their interpretation.

``audit``, ``audit --binary`` and ``mitigate`` take their data options from
:func:`add_data_options` and their estimator options from :func:`add_estimator_options`; labels
given on the command line (``--groups``, ``--positive``, ``--reference``) are matched to the
values of the data by :func:`match_label`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ._errors import EXIT_CODES_HELP, CLIError

if (
    TYPE_CHECKING
):  # numpy and pandas are imported where they are used: ``survfair --help`` needs neither
    import pandas as pd

__all__ = [
    "HelpFormatter",
    "Parser",
    "add_data_options",
    "add_groups_option",
    "add_estimator_options",
    "add_reporting_options",
    "reporting_options",
    "risk_columns",
    "add_debug_option",
    "column_roles",
    "group_argument",
    "group_labels",
    "match_label",
    "match_groups",
    "subset_groups",
    "EXIT_CODES_HELP",
]


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Examples in the epilogue keep their layout; every option's help ends with its default.

    A description or epilogue written on several lines is kept as written (examples, exit codes);
    a one-line text is wrapped. An option whose help already says "(default ..." is left alone;
    flags show "(default: off)" and options without a default value "(default: none)".
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text.strip():
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "(default" in text or not action.option_strings or action.default is argparse.SUPPRESS:
            return text
        if action.nargs == 0:  # store_true / store_false flags
            return f"{text} (default: {'on' if action.default else 'off'})"
        if action.default is None:
            return f"{text} (default: none)"
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line :class:`CLIError` (exit code 2), not usage
    text followed by ``SystemExit``. Options must be spelled in full: an abbreviation such as
    ``--output`` for ``--output-dir`` would otherwise be taken silently."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        raise CLIError(message)


#: per-row columns of a survival audit besides time, event, group and risk (``xci`` / ``xauc_t``
#: arguments of the same names; ``--cluster``, ``--entry``, ``--weights``)
ROW_OPTIONS = ("cluster", "entry", "weights")


def add_debug_option(parser: argparse.ArgumentParser, *, top_level: bool) -> None:
    """``--debug``: tracebacks and Python's warning format. Given at the top level (``survfair
    --debug audit``) or after the subcommand; the subcommand's copy never resets the top level's."""
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False if top_level else argparse.SUPPRESS,
        help=(
            "print the Python traceback of an error and warnings in Python's format (default: off)"
        ),
    )


def add_data_options(
    parser: argparse.ArgumentParser,
    *,
    required: bool,
    several_risks: bool,
    data_help: str = "input table, .csv or .parquet/.pq",
    time_required: bool | None = None,
) -> argparse._ArgumentGroup:
    """Add ``--data --time --event --group --risk`` (the same names, meanings and help everywhere).

    Parameters
    ----------
    required : bool
        Whether the options must be given (``mitigate``) or may be absent (``audit``: the demo
        without ``--data``, the binary audit without ``--time``/``--event``).
    several_risks : bool
        Whether ``--risk`` may be repeated.
    """
    time_required = required if time_required is None else time_required
    options = parser.add_argument_group("data")
    options.add_argument("--data", metavar="FILE", required=required, help=data_help)
    options.add_argument(
        "--time", metavar="COL", required=time_required, help="column of observed times"
    )
    options.add_argument(
        "--event",
        metavar="COL",
        required=time_required,
        help="column of event indicators (1/True = event, 0/False = censored)",
    )
    options.add_argument(
        "--group",
        metavar="COL",
        action="append",
        required=required,
        help="group column; repeat for intersectional groups such as F|Black",
    )
    if several_risks:
        options.add_argument(
            "--risk",
            metavar="COL",
            action="append",
            required=required,
            help="risk-score column, higher = earlier event; repeat to audit several scores",
        )
    else:
        options.add_argument(
            "--risk",
            metavar="COL",
            required=required,
            help="risk-score column, higher = earlier event",
        )
    return options


def add_groups_option(options: argparse._ArgumentGroup) -> None:
    """``--groups LABEL [LABEL ...]``: analyse a subset of groups, in this order."""
    options.add_argument(
        "--groups",
        metavar="LABEL",
        nargs="+",
        help="analyse only these groups, in this order (rows of other groups are excluded and "
        "counted; intersections as F|Black) (default: every group, sorted)",
    )


def add_estimator_options(
    parser: argparse.ArgumentParser, *, cox: bool = False
) -> argparse._ArgumentGroup:
    """Add ``--method --tau --censoring`` (the xCI estimator); with ``cox``, also
    ``--censoring cox`` and ``--censoring-covariates COL [COL ...]`` (``xci(censoring="cox")``)."""
    options = parser.add_argument_group("estimator")
    options.add_argument(
        "--method",
        choices=["ipcw", "naive"],
        default="ipcw",
        help="ipcw: censoring-weighted xCI (eq. 7); naive: unweighted pair counts",
    )
    options.add_argument(
        "--tau",
        metavar="T",
        type=float,
        help="truncation time of either estimator (only pairs whose earlier event is before it "
        "count), same unit as --time (default: none, no truncation)",
    )
    censoring = "censoring Kaplan-Meier curves per group (the paper's eq. 6) or pooled"
    if not cox:
        options.add_argument(
            "--censoring", choices=["group", "pooled"], default="group", help=censoring
        )
        return options
    options.add_argument(
        "--censoring",
        choices=["group", "pooled", "cox"],
        default="group",
        help=f"{censoring}; or cox: a Cox model of the censoring hazard on "
        "--censoring-covariates, the group as strata, for censoring that depends on covariates "
        "within groups (the xCI, --horizon and --predicted; not with --model-based-* or --cause)",
    )
    options.add_argument(
        "--censoring-covariates",
        metavar="COL",
        nargs="+",
        help="with --censoring cox, the numeric columns of the censoring model",
    )
    return options


def add_reporting_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Add ``--adjust --min-events --min-pairs --margin --time-unit`` (the findings, flags and
    figures)."""
    options = parser.add_argument_group("findings")
    options.add_argument(
        "--adjust",
        choices=["holm", "bh", "bonferroni", "none"],
        default="holm",
        help="adjustment of the p-values of each family of differences (default: holm)",
    )
    options.add_argument(
        "--min-events",
        metavar="N",
        type=int,
        default=10,
        help="flag cells whose row group has fewer events, or column group fewer members "
        "(binary: positives / negatives; AUC(t): cases / controls) (default: 10)",
    )
    options.add_argument(
        "--min-pairs",
        metavar="N",
        type=int,
        default=100,
        help="flag cells with fewer comparable pairs (default: 100)",
    )
    options.add_argument(
        "--margin",
        metavar="POINTS",
        type=_margin_points,
        default=0.05,
        help="equivalence margin in percentage points: a difference is called absent only when "
        "its interval lies inside +/- this; otherwise the findings say how large a difference "
        "the interval still allows (default: 5)",
    )
    options.add_argument(
        "--time-unit",
        metavar="UNIT",
        help="unit of --time for the report's figures and the AUC(t) tables, e.g. days "
        "(default: not stated)",
    )
    return options


def _margin_points(value: str) -> float:
    """--margin POINTS as the library's proportion (5 -> 0.05), in (0, 100)."""
    try:
        points = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of points, got {value!r}") from None
    if not 0 < points < 100:
        raise argparse.ArgumentTypeError(f"must lie in (0, 100) points, got {value}")
    return points / 100


def reporting_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of :func:`survfair.findings` from the options (defaults for the demo)."""
    return {
        "adjust": getattr(args, "adjust", "holm"),
        "min_events": getattr(args, "min_events", 10),
        "min_pairs": getattr(args, "min_pairs", 100),
        "margin": getattr(args, "margin", 0.05),
    }


def group_argument(group: Sequence[str] | str) -> Any:
    """The library's ``group`` argument: one column name, or a list for intersections."""
    if isinstance(group, (list, tuple)):
        return group[0] if len(group) == 1 else list(group)
    return group


def group_labels(frame: pd.DataFrame, group: Sequence[str] | str) -> pd.Series:
    """Per row, the group label the library analyses: the column's value, or the library's
    intersectional name ("F|Black") for several columns (the library's own rule, not a copy)."""
    import numpy as np
    import pandas as pd

    from .._core.validation import resolve_group

    columns = [group] if isinstance(group, str) else list(group)
    if len(columns) == 1:
        return frame[columns[0]]
    return pd.Series(np.asarray(resolve_group(columns, frame), dtype=object), index=frame.index)


def risk_columns(args: argparse.Namespace) -> list[str]:
    """The ``--risk`` columns as a list (one, several, or none given)."""
    risk = getattr(args, "risk", None) or []
    return [risk] if isinstance(risk, str) else list(risk)


def column_roles(args: argparse.Namespace, **roles: str | None) -> dict[str, str]:
    """The option and column behind each argument name of the library, for error messages:
    ``{"time": "--time 't'", "group": "--group 'sex'", ...}``; ``roles`` adds or overrides
    (``score="--risk 'r'"``)."""
    named: dict[str, str] = {}
    for role in ("time", "event", "risk", *ROW_OPTIONS):
        value = getattr(args, role, None)
        if isinstance(value, str):
            named[role] = f"--{role} {value!r}"
    group = getattr(args, "group", None)
    if group:
        named["group"] = "--group " + " x ".join(
            repr(g) for g in ([group] if isinstance(group, str) else group)
        )
    named.update({role: text for role, text in roles.items() if text})
    return named


def _python(value: Any) -> Any:
    import numpy as np

    return value.item() if isinstance(value, np.generic) else value


def match_label(values: Iterable, text: str, option: str, where: str) -> Any:
    """The value among ``values`` that the command-line label ``text`` means.

    Command-line labels are strings; a column may hold numbers or booleans. ``text`` matches a
    value whose text is the same ("F" -> "F", "1" -> 1), else a number equal to it ("1.0" -> 1),
    else a value with the same text up to case ("true" -> True).

    Raises
    ------
    CLIError
        If no value matches, naming the option, ``where`` (e.g. "the group column 'sex'") and
        the labels that occur.
    """
    labels = [_python(v) for v in values]
    for value in labels:
        if str(value) == text:
            return value
    for value in labels:
        try:
            if not isinstance(value, str) and float(value) == float(text):
                return value
        except (TypeError, ValueError):
            pass
    for value in labels:
        if str(value).lower() == text.lower():
            return value
    shown = [str(v) for v in labels[:20]] + (["..."] if len(labels) > 20 else [])
    raise CLIError(f"{option} {text!r} does not occur in {where} (labels: {shown}).")


def match_groups(
    frame: pd.DataFrame, group: Sequence[str], texts: Sequence[str] | None
) -> list | None:
    """The group labels that ``--groups`` names, as values of the data (None without
    ``--groups``)."""
    if not texts:
        return None
    import pandas as pd

    labels = group_labels(frame, group)
    present = pd.unique(labels.dropna())
    try:
        present = sorted(present)
    except TypeError:
        present = list(present)
    where = (
        f"the group column {group[0]!r}"
        if len(group) == 1
        else f"the groups of columns {' x '.join(group)}"
    )
    chosen = [match_label(present, text, "--groups", where) for text in texts]
    repeated = [text for text, value in zip(texts, chosen) if chosen.count(value) > 1]
    if repeated:
        raise CLIError(f"--groups names the same group more than once: {repeated}.")
    return chosen


def subset_groups(
    frame: pd.DataFrame, group: Sequence[str], chosen: list | None
) -> tuple[pd.DataFrame, int]:
    """The rows of the ``chosen`` groups and the number of rows excluded (for analyses that take
    no ``groups=`` argument)."""
    if chosen is None:
        return frame, 0
    keep = group_labels(frame, group).isin(chosen).to_numpy()
    return frame.loc[keep], int((~keep).sum())


def excluded_note(n_excluded: int, texts: Sequence[str] | None) -> list[str]:
    """The output line that counts rows outside ``--groups`` (none without ``--groups``)."""
    if not texts:
        return []
    return [f"{n_excluded} rows of other groups excluded (--groups {' '.join(texts)})."]
