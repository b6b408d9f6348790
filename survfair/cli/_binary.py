"""``survfair audit --binary`` and ``--horizon``: thin renderings of the xAUC results.

The audit command adds these options with :func:`add_binary_arguments`, then calls
:func:`binary_audit` (binary outcome) or appends :func:`horizon_table` to a survival audit.
Everything printed comes from the public results (:func:`survfair.xauc`,
:func:`survfair.balanced_xauc`, :func:`survfair.delta_between`, :func:`survfair.group_metrics`,
:func:`survfair.xauc_t`); nothing is computed here.

Expected attributes of ``args``: ``group`` (list of column names), ``risk`` (one score column),
``outcome``, ``positive`` (text), ``horizon`` (list of floats or None), and for horizons
``time``, ``event``; optional ``format`` ("table", "json" or "csv"), ``censoring``, ``ci`` and
``confidence_level``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pandas as pd

from .._binary.summaries import balanced_xauc, group_metrics
from .._binary.xauc import XAUCResult, xauc
from .._binary.xauc_t import case_control_definition, xauc_t
from .._core.multiplicity import adjust_p_values
from .._present.findings.horizons import horizon_findings, horizon_text
from .._present.findings.ranking import findings, joint_tests
from .._present.format import p_value_text
from .._xci.summaries import delta_between
from ._audit_options import (
    add_binary_arguments,
)  # the option (light module, shared with the parser)
from ._errors import CLIError, library_errors, option_words, print_warning
from ._options import (
    ROW_OPTIONS,
    column_roles,
    group_argument,
    match_groups,
    match_label,
    reporting_options,
)

__all__ = [
    "add_binary_arguments",
    "BinaryAudit",
    "binary_audit",
    "binary_long_table",
    "render_binary",
    "horizon_frame",
    "horizon_table",
    "library_notes",
]


@contextlib.contextmanager
def library_notes() -> Iterator[list[str]]:
    """Collect the library's statistical warnings (UserWarning) as notes of the printed report.

    Other warnings (e.g. numerical RuntimeWarnings) keep the filters in force (an "error" filter
    still raises) and, when shown, are printed as ``survfair: warning:`` lines.
    """
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        yield notes
    for item in caught:
        if issubclass(item.category, UserWarning):
            note = option_words(str(item.message))  # in the command line's words
            if note not in notes:
                notes.append(note)
        else:
            print_warning(item.message)
    notes.sort()


def _interval(value: float, low: float, high: float) -> str:
    if not np.isfinite(value):
        return "n/a"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _text(frame: pd.DataFrame) -> str:
    return frame.to_string(na_rep="n/a")


@dataclass(frozen=True)
class BinaryAudit:
    """The xAUC audit of one score: the result, the ΔxAUC table and the notes (warnings)."""

    risk: str
    outcome: str
    positive: object
    result: XAUCResult
    deltas: pd.DataFrame
    balanced: pd.DataFrame
    metrics: pd.DataFrame
    notes: list


def _estimate_dict(estimate) -> dict:
    return {
        "delta_between": estimate.value,
        "se": estimate.se,
        "ci_low": estimate.confidence_interval.low,
        "ci_high": estimate.confidence_interval.high,
        "p_value": estimate.p_value,
    }


def binary_audit(args: argparse.Namespace, frame: pd.DataFrame) -> BinaryAudit:
    """The xAUC matrix with intervals and ΔxAUC for every pair of groups, for ``args.risk``.

    Raises
    ------
    CLIError
        If ``--outcome`` is missing or not a column, or ``--positive`` does not occur.
    ValueError, TypeError
        From the library, for invalid data.
    """
    outcome = getattr(args, "outcome", None)
    if not outcome:
        raise CLIError("--binary needs --outcome COL, the column with the binary outcome.")
    if outcome not in frame.columns:
        raise CLIError(
            f"--outcome: column {outcome!r} is not in the data (columns: {list(frame.columns)})."
        )
    positive = match_label(
        pd.unique(frame[outcome].dropna()),
        str(getattr(args, "positive", "1")),
        "--positive",
        f"the outcome column {outcome!r}",
    )
    level = getattr(args, "confidence_level", None) or 0.95
    roles = column_roles(args, y=f"--outcome {outcome!r}", score=f"--risk {args.risk!r}")
    with library_errors(roles), library_notes() as notes:
        # the rows of other groups are already left out; groups= keeps the --groups order
        res = xauc(
            outcome,
            group_argument(args.group),
            args.risk,
            data=frame,
            positive=positive,
            groups=match_groups(frame, args.group, getattr(args, "groups", None)),
            confidence_level=level,
        )
        deltas = pd.DataFrame(
            [
                {"a": a, "b": b, **_estimate_dict(delta_between(res, a, b))}
                for a, b in itertools.combinations(res.groups, 2)
            ],
            columns=["a", "b", "delta_between", "se", "ci_low", "ci_high", "p_value"],
        )
        # the ΔxAUC of every pair are printed together: one family, adjusted as the survival audit's
        deltas["p_adjusted"] = adjust_p_values(
            deltas["p_value"].to_numpy(), adjust=getattr(args, "adjust", None) or "holm"
        )
        balanced = balanced_xauc(res)
        metrics = group_metrics(res)
    return BinaryAudit(args.risk, outcome, positive, res, deltas, balanced, metrics, notes)


def binary_long_table(audit: BinaryAudit) -> pd.DataFrame:
    """The CSV table of one score: one row per cell (kind "cell") and per summary (kind "summary":
    ΔxAUC for every pair, the population AUC, rows analysed)."""
    res = audit.result
    cells = res.to_frame().assign(kind="cell", statistic="xauc")
    cells["value"] = cells["xauc"]
    summaries = audit.deltas.rename(columns={"delta_between": "value"}).assign(
        kind="summary", statistic="delta_between"
    )
    extra = pd.DataFrame(
        [
            {"kind": "summary", "statistic": "auc", "a": "", "b": "", "value": res.overall},
            {"kind": "summary", "statistic": "n_samples", "a": "", "b": "", "value": res.n_samples},
        ]
    )
    parts = [
        part.astype({c: "Int64" for c in part.columns if pd.api.types.is_integer_dtype(part[c])})
        for part in (cells, summaries, extra)
    ]
    table = pd.concat(parts, ignore_index=True).assign(name=f"score = {audit.risk}")
    first = ["name", "kind", "statistic", "a", "b", "value", "se", "ci_low", "ci_high", "p_value"]
    return table[first + [c for c in table.columns if c not in first]]


def render_binary(
    audit: BinaryAudit, output_format: str, notes: list[str] = (), reporting: dict | None = None
) -> str:
    """The binary report of one score as text or JSON (CSV: :func:`binary_long_table`), findings
    first."""
    res, deltas, level = audit.result, audit.deltas, audit.result.confidence_level
    all_notes = [*notes, *audit.notes]
    balanced, metrics = audit.balanced, audit.metrics
    found = findings(res, **(reporting or {}))
    if output_format == "json":
        payload = res.to_dict() | {
            "findings": found.to_dict(),
            "joint_tests": [test.to_dict() for test in joint_tests(res, found.omnibus)]
            if len(res.groups) > 1
            else [],
            "group_metrics": json.loads(metrics.reset_index().to_json(orient="records")),
            "delta_between": json.loads(deltas.to_json(orient="records")),
            "notes": all_notes,
        }
        return json.dumps(payload, indent=2, default=str)
    if output_format == "csv":
        return binary_long_table(audit).to_csv(index=False)

    low, high = res.confidence_interval()
    matrix = res.matrix.copy().astype(object)
    for a in res.groups:
        for b in res.groups:
            matrix.loc[a, b] = _interval(res.matrix.loc[a, b], low.loc[a, b], high.loc[a, b])
    pct = f"{level:.0%}"
    lines = [
        f"xAUC audit of score {audit.risk!r} for outcome {audit.outcome!r} (positive = "
        f"{audit.positive!r}), {res.n_samples} rows, groups {list(res.groups)}",
        "findings:",
        option_words(found.to_text()),
        "",
        *notes,
        f"Population AUC: {res.overall:.3f}",
        "",
        f"xAUC(a, b) = P[a positive of group a scores above a negative of group b] with {pct} "
        "DeLong intervals;",
        "rows a = group of the positive, columns b = group of the negative, "
        "diagonal = within-group AUC",
        _text(matrix),
        "",
        "Balanced xAUC (Kallus & Zhou 2019, Def. 3): xAUC^1(a) = P[R_1^a > R_0], "
        "xAUC^0(a) = P[R_1 > R_0^a]",
        _text(
            pd.DataFrame(
                {
                    "positives": balanced["positives"],
                    "negatives": balanced["negatives"],
                    "xAUC^1": [
                        _interval(*balanced.loc[g, ["xauc1", "xauc1_ci_low", "xauc1_ci_high"]])
                        for g in res.groups
                    ],
                    "xAUC^0": [
                        _interval(*balanced.loc[g, ["xauc0", "xauc0_ci_low", "xauc0_ci_high"]])
                        for g in res.groups
                    ],
                }
            )
        ),
        "",
        "Group metrics (Table 1 of the paper; Brier only for probability scores in [0, 1])",
        _text(
            metrics[["n", "positives", "negatives", "auc", "auc_se", "brier", "brier_se"]].round(4)
        ),
        "",
        "ΔxAUC(a, b) = xAUC(a, b) - xAUC(b, a) (positive: group b's positives rank lower against "
        "a's negatives",
        f"than a's positives against b's negatives); p_adjusted: {found.adjust} over every pair",
        _deltas_text(deltas, found) if len(deltas) else "(a single group: no disparity)",
        *_joint_tests_lines(res, found),
    ]
    if audit.notes:
        lines += ["", "Notes:"] + [f"- {note}" for note in audit.notes]
    return "\n".join(lines) + "\n"


def _deltas_text(deltas: pd.DataFrame, found) -> str:
    """ΔxAUC of every pair for the text output: four decimals, p-values as in the report, † on a
    difference that uses a flagged cell; each pair (a, b) with a before b in the group order."""
    from .._present.tables import flag_groups, oriented_pairs

    groups = flag_groups(found.flags)
    shown = oriented_pairs(deltas.rename(columns={"delta_between": "value"}), groups).rename(
        columns={"value": "delta_between"}
    )
    for column in ("p_value", "p_adjusted"):
        shown[column] = [p_value_text(p) for p in shown[column]]
    flagged = found.flagged_cells
    shown["flag"] = [
        "†" if (a, b) in flagged or (b, a) in flagged else ""
        for a, b in zip(shown["a"], shown["b"])
    ]
    return shown.to_string(index=False, float_format="{:.4f}".format, na_rep="n/a")


def _joint_tests_lines(result: XAUCResult, found) -> list[str]:
    """The joint Wald tests of the matrix (as the survival audit and the report), or nothing for one
    group."""
    if len(result.groups) < 2:
        return []
    from .._present.tables import joint_tests_table

    return [
        "",
        "Joint Wald tests (survfair.omnibus_test, DeLong covariance; contrasts with a cell of "
        "standard error 0 left out):",
        joint_tests_table(joint_tests(result, found.omnibus)).to_string(),
    ]


def run_binary_audit(args: argparse.Namespace, frame: pd.DataFrame) -> str:
    """The binary report of ``args.risk`` in ``args.format`` (text by default)."""
    return render_binary(binary_audit(args, frame), getattr(args, "format", None) or "table")


def _counts(series: pd.Series) -> str:
    return ", ".join(f"{k}: {int(v) if np.isfinite(v) else 0}" for k, v in series.items())


def horizon_result(args: argparse.Namespace, frame: pd.DataFrame):
    """The :func:`survfair.xauc_t` result at the ``--horizon`` times (None without horizons) and
    the notes (the library's warnings)."""
    horizons = getattr(args, "horizon", None)
    if not horizons:
        return None, []
    censoring = getattr(args, "censoring", None) or "group"
    intervals = getattr(args, "ci", "analytic") != "none"
    level = getattr(args, "confidence_level", None) or 0.95
    with library_errors(column_roles(args)), library_notes() as notes:
        result = xauc_t(
            args.time,
            args.event,
            group_argument(args.group),
            args.risk,
            horizons,
            data=frame,
            censoring=censoring,
            ci="analytic" if intervals else None,
            confidence_level=level,
            cause=getattr(args, "cause", None),
            controls=getattr(args, "controls", None) or "all",
            **{role: getattr(args, role, None) or None for role in ROW_OPTIONS},
            **_censoring_model(args, censoring),
        )
    return result, notes


def _censoring_model(args: argparse.Namespace, censoring: str) -> dict:
    """``censoring_covariates`` with ``--censoring cox`` (the same model as the xCI's)."""
    if censoring != "cox":
        return {}
    return {"censoring_covariates": list(args.censoring_covariates)}


def horizon_frame(
    args: argparse.Namespace, frame: pd.DataFrame, computed=None
) -> tuple[pd.DataFrame | None, list[str]]:
    """The tidy :func:`survfair.xauc_t` frame at the ``--horizon`` times (None without horizons)
    and the notes; ``computed`` is :func:`horizon_result`'s output when already at hand."""
    result, notes = computed if computed is not None else horizon_result(args, frame)
    return (None if result is None else result.to_frame()), notes


def horizon_table(args: argparse.Namespace, frame: pd.DataFrame, computed=None) -> str:
    """The cross-group AUC(t) matrices at the ``--horizon`` times of a survival audit, as text
    (rows a = group of the case, columns b = group of the control, with the low and high limits
    of the analytic intervals unless ``ci`` is "none"), or the tidy frame as JSON / CSV; empty
    when no horizon was given."""
    result, notes = computed if computed is not None else horizon_result(args, frame)
    if result is None:
        return ""
    table = result.to_frame()
    fmt = getattr(args, "format", "table") or "table"
    if fmt == "json":
        return table.to_json(orient="records", indent=2)
    if fmt == "csv":
        return table.to_csv(index=False)
    censoring = getattr(args, "censoring", None) or "group"
    intervals = getattr(args, "ci", "analytic") != "none"
    groups = list(dict.fromkeys(table["a"]))
    cases, controls = case_control_definition(result)
    lines = [
        f"Cross-group cumulative/dynamic AUC(t) (IPCW, censoring={censoring!r}): P[risk of a case "
        f"of a ({cases}) > risk of a control of b ({controls})]; rows a = cases, columns b = "
        "controls"
        + (
            f"; {getattr(args, 'confidence_level', None) or 0.95:.0%} analytic intervals"
            if intervals
            else ""
        )
    ]

    def matrix(part, column):
        return part.pivot(index="a", columns="b", values=column).reindex(
            index=groups, columns=groups
        )

    unit = getattr(args, "time_unit", None)
    result = computed[0] if computed is not None else horizon_result(args, frame)[0]
    found = horizon_findings(result, **reporting_options(args), time_unit=unit)
    lines += ["findings:", option_words(found.to_text())]
    for t, part in table.groupby("time", sort=True):
        cases = part.drop_duplicates("a").set_index("a")["cases"].reindex(groups)
        controls = part.drop_duplicates("b").set_index("b")["controls"].reindex(groups)
        lines += [
            "",
            f"{horizon_text(t, unit)}: cases {_counts(cases)}, controls {_counts(controls)}",
            _text(matrix(part, "xauc").round(4)),
        ]
        if intervals:
            lines += [
                "interval, low:",
                _text(matrix(part, "ci_low").round(4)),
                "interval, high:",
                _text(matrix(part, "ci_high").round(4)),
            ]
    lines += [
        "",
        f"AUC(t) differences (p_adjusted: {found.adjust} over every horizon and pair; † uses a "
        "cell resting on little data):",
        _horizon_deltas_text(found, intervals, unit),
    ]
    flagged = found.flags[found.flags["flagged"]]
    if not flagged.empty:
        lines += [
            "",
            "AUC(t) cells resting on little data:",
            flagged[["time", "a", "b", "reason"]].to_string(index=False),
        ]
    if notes:
        lines += ["", "Notes:"] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _horizon_deltas_text(found, intervals: bool, unit: str | None) -> str:
    from .._present.tables import flag_groups, oriented_pairs

    # each pair (a, b) with a before b in the group order, signed a - b, as every table
    shown = oriented_pairs(found.deltas, flag_groups(found.flags))
    for column in ("p_value", "p_adjusted"):
        shown[column] = [p_value_text(p) for p in shown[column]]
    shown["flag"] = ["†" if f else "" for f in shown["flagged"]]
    shown["time"] = [f"{t:,g}" for t in shown["time"]]
    keep = (
        ["time", "summary", "a", "b", "value"]
        + (["se", "ci_low", "ci_high", "p_value", "p_adjusted"] if intervals else [])
        + ["flag"]
    )
    shown = shown[keep].rename(columns={"time": f"time ({unit})" if unit else "time"})
    return shown.to_string(index=False, float_format="{:.4f}".format, na_rep="n/a")
