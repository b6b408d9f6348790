"""``survfair audit --binary`` and ``--horizon``: thin text renderings of the xAUC results.

The audit command of :mod:`survfair._cli` adds these options with :func:`add_binary_arguments`,
then calls :func:`run_binary_audit` (binary outcome) or appends :func:`horizon_table` to a
survival audit. Everything printed comes from the public results (:func:`survfair.xauc`,
:func:`survfair.balanced_xauc`, :func:`survfair.delta_xauc`, :func:`survfair.group_metrics`,
:func:`survfair.xauc_t`); nothing is computed here. Errors are the library's ValueError/TypeError,
which the audit command turns into a one-line message and exit code 2.

Expected attributes of ``args``: ``group`` (column name or list of names), ``risk`` (score
column), ``outcome``, ``positive`` (text), ``horizon`` (list of floats or None), and for
horizons ``time``, ``event``; optional ``format`` ("table", "json" or "csv"), ``censoring``
and ``confidence_level``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._xauc import balanced_xauc, delta_xauc, group_metrics, xauc
from ._xauc_t import xauc_t

__all__ = ["add_binary_arguments", "run_binary_audit", "horizon_table"]


def add_binary_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--binary``, ``--outcome COL``, ``--positive LABEL`` and ``--horizon T`` (repeatable)."""
    options = parser.add_argument_group("binary outcomes and horizons (xAUC)")
    options.add_argument(
        "--binary", action="store_true",
        help="audit a binary outcome with the xAUC matrix (automatic when no --time column is given)",
    )
    options.add_argument("--outcome", metavar="COL", help="column with the binary outcome (two labels)")
    options.add_argument(
        "--positive", metavar="LABEL", default="1",
        help="label of the positive class, the one that should score higher (default: 1)",
    )
    options.add_argument(
        "--horizon", metavar="T", type=float, action="append",
        help="add the cross-group cumulative/dynamic AUC(t) matrix at time T (repeatable)",
    )


def _group_argument(args: argparse.Namespace) -> Any:
    group = args.group
    if isinstance(group, (list, tuple)) and len(group) == 1:
        return group[0]
    return list(group) if isinstance(group, (list, tuple)) else group


def _positive_label(column: pd.Series, text: Any) -> Any:
    """The value of ``column`` whose text is ``text`` (command-line labels arrive as strings)."""
    values = pd.unique(column.dropna())
    values = [value.item() if isinstance(value, np.generic) else value for value in values]
    for value in values:
        if value == text or str(value) == str(text):
            return value
    for value in values:  # 1 vs 1.0, True vs "true"
        try:
            if float(value) == float(text):
                return value
        except (TypeError, ValueError):
            if str(value).lower() == str(text).lower():
                return value
    raise ValueError(f"--positive {text!r} does not occur in the outcome column (labels: {[str(v) for v in values]}).")


def _interval(value: float, low: float, high: float) -> str:
    if not np.isfinite(value):
        return "n/a"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _text(frame: pd.DataFrame) -> str:
    return frame.to_string(na_rep="n/a")


def run_binary_audit(args: argparse.Namespace, frame: pd.DataFrame) -> str:
    """The binary audit: xAUC matrix with intervals, balanced xAUCs, group metrics and ΔxAUC per pair.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed options (see the module docstring).
    frame : pandas.DataFrame
        The loaded data.

    Returns
    -------
    str
        The report: a text table, or JSON / CSV when ``args.format`` says so.

    Raises
    ------
    ValueError
        If ``--outcome`` is missing or ``--positive`` does not occur, and for invalid data.
    """
    if not getattr(args, "outcome", None):
        raise ValueError("--binary needs --outcome COL, the column with the binary outcome.")
    if args.outcome not in frame.columns:
        raise ValueError(f"--outcome: column {args.outcome!r} is not in the data (columns: {list(frame.columns)}).")
    positive = _positive_label(frame[args.outcome], getattr(args, "positive", "1"))
    level = getattr(args, "confidence_level", None) or 0.95
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = xauc(args.outcome, _group_argument(args), args.risk, data=frame, positive=positive,
                   confidence_level=level)
        balanced = balanced_xauc(res)
        metrics = group_metrics(res)
    notes = sorted({str(w.message) for w in caught})
    deltas = pd.DataFrame(
        [
            {"a": a, "b": b, **_estimate_dict(delta_xauc(res, a, b))}
            for a, b in itertools.combinations(res.groups, 2)
        ],
        columns=["a", "b", "delta_xauc", "se", "ci_low", "ci_high", "p_value"],
    )
    fmt = getattr(args, "format", "table") or "table"
    if fmt == "json":
        payload = res.to_dict() | {
            "group_metrics": json.loads(metrics.reset_index().to_json(orient="records")),
            "delta_xauc": json.loads(deltas.to_json(orient="records")),
            "notes": notes,
        }
        return json.dumps(payload, indent=2, default=str)
    if fmt == "csv":
        return res.to_frame().to_csv(index=False)

    low, high = res.confidence_interval()
    matrix = res.matrix.copy().astype(object)
    for a in res.groups:
        for b in res.groups:
            matrix.loc[a, b] = _interval(res.matrix.loc[a, b], low.loc[a, b], high.loc[a, b])
    pct = f"{level:.0%}"
    lines = [
        f"xAUC audit of score {args.risk!r} for outcome {args.outcome!r} (positive = {positive!r}), "
        f"{res.n_samples} rows, groups {list(res.groups)}",
        f"Population AUC: {res.overall:.3f}",
        "",
        f"xAUC(a, b) = P[a positive of group a scores above a negative of group b] with {pct} DeLong intervals;",
        "rows a = group of the positive, columns b = group of the negative, diagonal = within-group AUC",
        _text(matrix),
        "",
        "Balanced xAUC (Kallus & Zhou 2019, Def. 3): xAUC^1(a) = P[R_1^a > R_0], xAUC^0(a) = P[R_1 > R_0^a]",
        _text(
            pd.DataFrame(
                {
                    "positives": balanced["positives"],
                    "negatives": balanced["negatives"],
                    "xAUC^1": [_interval(*balanced.loc[g, ["xauc1", "xauc1_low", "xauc1_high"]]) for g in res.groups],
                    "xAUC^0": [_interval(*balanced.loc[g, ["xauc0", "xauc0_low", "xauc0_high"]]) for g in res.groups],
                }
            )
        ),
        "",
        "Group metrics (Table 1 of the paper; Brier only for probability scores in [0, 1])",
        _text(metrics[["n", "positives", "negatives", "auc", "auc_se", "brier", "brier_se"]].round(4)),
        "",
        "ΔxAUC(a, b) = xAUC(a, b) - xAUC(b, a) (positive: group b's positives rank lower against a's negatives",
        "than a's positives against b's negatives)",
        _text(deltas.round(4)) if len(deltas) else "(a single group: no disparity)",
    ]
    if notes:
        lines += ["", "Notes:"] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _estimate_dict(estimate) -> dict:
    return {
        "delta_xauc": estimate.value,
        "se": estimate.se,
        "ci_low": estimate.confidence_interval.low,
        "ci_high": estimate.confidence_interval.high,
        "p_value": estimate.p_value,
    }


def _counts(series: pd.Series) -> str:
    return ", ".join(f"{k}: {int(v) if np.isfinite(v) else 0}" for k, v in series.items())


def horizon_table(args: argparse.Namespace, frame: pd.DataFrame) -> str:
    """The cross-group AUC(t) matrices at the ``--horizon`` times of a survival audit.

    Parameters
    ----------
    args : argparse.Namespace
        Needs ``time``, ``event``, ``group``, ``risk`` and ``horizon`` (list of floats); optional
        ``censoring`` ("group" or "pooled"), ``format``, ``confidence_level`` and ``ci`` ("none"
        leaves the intervals out of the text table).
    frame : pandas.DataFrame

    Returns
    -------
    str
        One matrix per horizon (rows a = group of the case, columns b = group of the control)
        with the low and high limits of its analytic intervals, or the tidy frame (se, ci_low,
        ci_high included) as JSON / CSV; empty when no horizon was given.

    Raises
    ------
    ValueError
        For horizons outside the follow-up and for invalid data.
    """
    horizons = getattr(args, "horizon", None)
    if not horizons:
        return ""
    censoring = getattr(args, "censoring", None) or "group"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        intervals = getattr(args, "ci", "analytic") != "none"
        table = xauc_t(args.time, args.event, _group_argument(args), args.risk, horizons, data=frame,
                       censoring=censoring, ci="analytic" if intervals else None,
                       confidence_level=getattr(args, "confidence_level", None) or 0.95)
    fmt = getattr(args, "format", "table") or "table"
    if fmt == "json":
        return table.to_json(orient="records", indent=2)
    if fmt == "csv":
        return table.to_csv(index=False)
    groups = list(dict.fromkeys(table["a"]))
    lines = [
        f"Cross-group cumulative/dynamic AUC(t) (IPCW, censoring={censoring!r}): P[risk of a case of a "
        "(event by t) > risk of a control of b (event-free after t)]; rows a = cases, columns b = controls"
        + (f"; {table.attrs['confidence_level']:.0%} analytic intervals" if intervals else "")
    ]

    def matrix(part, column):
        return part.pivot(index="a", columns="b", values=column).reindex(index=groups, columns=groups)

    for t, part in table.groupby("time", sort=True):
        cases = part.drop_duplicates("a").set_index("a")["cases"].reindex(groups)
        controls = part.drop_duplicates("b").set_index("b")["controls"].reindex(groups)
        lines += [
            "",
            f"t = {t:g}: cases {_counts(cases)}, controls {_counts(controls)}",
            _text(matrix(part, "xauc").round(4)),
        ]
        if intervals:
            lines += ["interval, low:", _text(matrix(part, "ci_low").round(4)),
                      "interval, high:", _text(matrix(part, "ci_high").round(4))]
    notes = sorted({str(w.message) for w in caught})
    if notes:
        lines += ["", "Notes:"] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"
