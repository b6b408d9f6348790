"""The numeric tables of an audit, shared by the report, the notebook and the command line.

Each function turns public result objects (and their findings) into a DataFrame for a reader:
numbers formatted by :mod:`survfair._present.format`, one row per quantity, no markup. The HTML,
Markdown and text renderers draw these same tables.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .._binary.summaries import balanced_xauc
from .._binary.xauc import XAUCResult
from .._calibration.result import CalibrationResult
from .._core.exceptions import InvalidParameterError
from .._core.intervals import NO_VARIANCE_SE
from .._core.options import argument_name
from .._core.results import XCIResult
from .._models.comparison import ModelComparison
from .._models.model_based_result import SUMMARY_COLUMNS
from .._xci.summaries import min_xci, overall_c, utility
from .findings.horizons import HorizonFindings
from .findings.ranking import EXCESS_VALUES, Findings, joint_tests, pair_row
from .format import (
    MISSING,
    NO_INTERVAL,
    interval_text,
    number,
    p_value_text,
    percent,
    statistic_text,
)


def _known(flag) -> bool | None:
    """A flag read from a table as a bool, None where the table has none (unknown)."""
    return None if flag is None or pd.isna(flag) else bool(flag)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def for_people(summary: pd.DataFrame) -> pd.DataFrame:
    """The data summary as a reader wants it: shares as percentages with one decimal ("70.2%",
    not "70.2000"), the smallest censoring survival with three digits, counts as integers.

    Every data summary of a report passes here, also one given as ``data_summary=`` (the command
    line passes :func:`data_summary_table`); values that are already text are kept, so formatting
    twice changes nothing."""
    shown = summary.astype(object)
    for column in summary.columns:
        if str(column).endswith("_pct"):
            shown[column] = [
                f"{v:.1f}%" if _is_number(v) and np.isfinite(v) else (MISSING if pd.isna(v) else v)
                for v in summary[column]
            ]
        elif column == "min_censoring_survival":
            shown[column] = [
                f"{v:.3g}" if _is_number(v) and np.isfinite(v) else (MISSING if pd.isna(v) else v)
                for v in summary[column]
            ]
    return shown


def _total_label(groups: tuple) -> str:
    """The label of the totals row: "all", unless a group is called that."""
    label = "all"
    while label in groups:
        label = f"({label})"
    return label


def data_summary_table(result: XCIResult | XAUCResult) -> pd.DataFrame:
    """Per-group data summary of a result: n, events, censored, censoring share, min K_g used.

    Parameters
    ----------
    result : XCIResult or XAUCResult

    Returns
    -------
    DataFrame indexed by group (plus the totals row "all", or "(all)" when a group is called "all").
    For an XCIResult the columns are n, events (of the cause of interest under competing risks,
    followed by competing_events), censored, censored_pct and, for IPCW, min_censoring_survival
    (smallest K_g used as a weight); for an XAUCResult n, positives, negatives, positive_pct.
    """
    if isinstance(result, XAUCResult):
        frame = pd.DataFrame.from_dict(
            {
                g: {k: int(result.group_sizes[g][k]) for k in ("n", "positives", "negatives")}
                for g in result.groups
            },
            orient="index",
        )
        frame.loc[_total_label(result.groups)] = frame.sum()
        frame["positive_pct"] = (
            100.0 * frame["positives"] / frame["n"].where(frame["n"] > 0)
        ).round(1)
        frame.index.name = "group"
        return frame
    rows = {}
    for g in result.groups:
        sizes = result.group_sizes.get(g, {})
        n, events = int(sizes.get("n", 0)), int(sizes.get("events", 0))
        if "competing_events" in sizes:  # competing risks: events of the cause, competing, censored
            competing = int(sizes["competing_events"])
            rows[g] = {
                "n": n,
                "events": events,
                "competing_events": competing,
                "censored": n - events - competing,
            }
        else:
            rows[g] = {"n": n, "events": events, "censored": n - events}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.loc[_total_label(result.groups)] = frame.sum()
    frame["censored_pct"] = (100.0 * frame["censored"] / frame["n"].where(frame["n"] > 0)).round(1)
    if result.min_censoring_survival:
        frame["min_censoring_survival"] = [
            result.min_censoring_survival.get(g, math.nan) for g in result.groups
        ] + [math.nan]
    frame.index.name = "group"
    return frame


def pp(value: float) -> str:
    """A difference of two probabilities in percentage points."""
    return f"{100 * value:+.1f}".replace("-0.0", "+0.0") if np.isfinite(value) else MISSING


def _pp_interval(low: float, high: float) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return MISSING
    return f"[{pp(low)}, {pp(high)}]"


def _n_resamples(result: Any) -> int | None:
    draws = getattr(result, "bootstrap", None)
    return None if draws is None else int(draws.cells.shape[0])


_NAMES = {"delta_between": "Δbetween", "delta_within": "Δwithin"}


def _delta_label(summary: str, a: Any, b: Any, flagged: bool = False) -> str:
    """``"Δbetween (F, M)"``, with a dagger when a cell it uses is flagged."""
    return f"{_NAMES[summary]} ({a}, {b})" + (" †" if flagged else "")


def oriented_pairs(
    deltas: pd.DataFrame, groups: Any = None, values: tuple = ("value",)
) -> pd.DataFrame:
    """Each pair of a differences table in the one orientation of the package: (a, b) with a
    before b in the result's group order, the value the sign of a − b.

    A row given as (b, a) (e.g. Δbetween(M, F) = +0.10 of a result with groups ``["F", "M"]``) is
    shown as its mirror (Δbetween(F, M) = −0.10): ``a`` and ``b`` swap, the ``values`` columns and
    the interval change sign (the limits swap), the standard error and the p-values stay. The
    report, the notebook, the command line and the findings show every pair this way, whatever its
    sign: nothing flips a pair to make its value positive.

    Parameters
    ----------
    deltas : DataFrame
        Rows of differences with columns a, b, the ``values`` columns and, when present, ci_low
        and ci_high (:func:`survfair.pairwise_deltas`, ``Findings.deltas``,
        ``HorizonFindings.deltas``, a model-based summaries table). With a ``summary`` column only
        its delta_between and delta_within rows are pairs; other rows (a cell such as min_xci's)
        are kept.
    groups : sequence, optional
        The result's groups in matrix order; without it the rows are kept as they are (the
        library's tables are in this order already).
    values : tuple of str, default=("value",)
        The columns that change sign with the orientation (e.g. observed, model_based, excess).

    Returns
    -------
    DataFrame
        A copy, same index and columns.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"summary": ["delta_between"], "a": ["M"], "b": ["F"], "value": [0.1],
    ...                       "ci_low": [-0.05], "ci_high": [0.2], "p_value": [0.2]})
    >>> print(oriented_pairs(table, ["F", "M"])[["a", "b", "value", "ci_low", "ci_high"]]
    ...       .to_string(index=False))
    a b  value  ci_low  ci_high
    F M   -0.1    -0.2     0.05
    """
    shown = deltas.copy()
    if shown.empty or groups is None:
        return shown
    position = {_pair_key(g): k for k, g in enumerate(groups)}
    first = [position.get(_pair_key(a), -1) for a in shown["a"]]
    second = [position.get(_pair_key(b), -1) for b in shown["b"]]
    flip = np.array([i > j >= 0 for i, j in zip(first, second)], dtype=bool)
    if "summary" in shown:  # a cell's row (min_xci (M, F)) names a cell, not a pair: never mirrored
        flip &= shown["summary"].isin(["delta_between", "delta_within"]).to_numpy()
    if not flip.any():
        return shown
    shown = shown.astype({"a": object, "b": object})
    a, b = shown["a"].to_numpy(copy=True), shown["b"].to_numpy(copy=True)
    shown.loc[flip, "a"], shown.loc[flip, "b"] = b[flip], a[flip]
    for column in values:
        if column in shown:
            shown.loc[flip, column] = -pd.to_numeric(shown.loc[flip, column])
    if "ci_low" in shown and "ci_high" in shown:
        low, high = shown["ci_low"].to_numpy(copy=True), shown["ci_high"].to_numpy(copy=True)
        shown.loc[flip, "ci_low"], shown.loc[flip, "ci_high"] = -high[flip], -low[flip]
    return shown


def _pair_key(label: Any) -> Any:
    """A group label as a dictionary key (a list label of intersectional groups as a tuple)."""
    return tuple(label) if isinstance(label, list) else label


def flag_groups(flags: pd.DataFrame) -> list:
    """The groups of a findings' flags table (rows a in matrix order), in matrix order."""
    return list(dict.fromkeys(_pair_key(a) for a in flags["a"]))


def largest_between(deltas: pd.DataFrame, groups: Any = None) -> pd.Series | None:
    """The Δbetween row with the largest |value|, in group order (a before b, signed a − b);
    None when no Δbetween is defined."""
    part = deltas[(deltas["summary"] == "delta_between") & deltas["value"].notna()]
    if part.empty:
        return None
    row = part.loc[part["value"].abs().idxmax()]
    return oriented_pairs(row.to_frame().T, groups).iloc[0]


def _delta_row(d: Any, adjust: str, boot: int | None) -> dict:
    """One difference for a reader: percentage points, interval (none for standard error 0), the
    unadjusted and adjusted p-value (a bound, "<=", at the bootstrap floor)."""
    no_variance = np.isfinite(d.value) and np.isfinite(d.se) and d.se <= NO_VARIANCE_SE
    return {
        "value": pp(d.value) + (" pts" if np.isfinite(d.value) else ""),
        "interval": NO_INTERVAL if no_variance else _pp_interval(d.ci_low, d.ci_high),
        "p": p_value_text(d.p_value, boot, _known(getattr(d, "p_at_floor", None))),
        f"p ({adjust})": p_value_text(d.p_adjusted, boot, _known(getattr(d, "p_at_floor", None))),
    }


def summary_table(result: XCIResult | XAUCResult, found: Findings) -> pd.DataFrame:
    """One row per summary, formatted for a reader: the differences in percentage points with
    their interval, unadjusted and adjusted p-value (a dagger on those that use a flagged cell);
    the worst cell and the pooled C in percent."""
    words = "xAUC" if isinstance(result, XAUCResult) else "xCI"
    boot = _n_resamples(result)
    rows = [
        {
            "statistic": _delta_label(d.summary, d.a, d.b, d.flagged),
            **_delta_row(d, found.adjust, boot),
        }
        for d in oriented_pairs(found.deltas, result.groups).itertuples(index=False)
    ]
    smallest = min_xci(result)
    # the cell's own interval, as in the findings and as the note says (positions, not labels:
    # intersection labels are tuples, which .loc would read as lists)
    i, j = result.groups.index(smallest.a), result.groups.index(smallest.b)
    cell_low, cell_high = result.confidence_interval()
    flag = found.flags.iloc[i * len(result.groups) + j]
    interval = (
        NO_INTERVAL
        if flag["no_variance"]
        else interval_text(cell_low.iloc[i, j], cell_high.iloc[i, j], as_percent=True)
    )
    rows.append(
        {
            "statistic": f"worst cell: {words} ({smallest.a}, {smallest.b})"
            + (" †" if flag["flagged"] else ""),
            "value": percent(smallest.value),
            "interval": interval,
            "p": MISSING,
            f"p ({found.adjust})": MISSING,
        }
    )
    pooled = overall_c(result)
    rows.append(
        {
            "statistic": "pooled AUC" if isinstance(result, XAUCResult) else "pooled C",
            "value": percent(pooled.value),
            "interval": interval_text(*pooled.confidence_interval, as_percent=True),
            "p": MISSING,
            f"p ({found.adjust})": MISSING,
        }
    )
    return pd.DataFrame(rows).set_index("statistic")


def tests_table(result: XCIResult | XAUCResult, found: Findings) -> pd.DataFrame:
    """The joint Wald tests: no asymmetry (the findings' own), equal within-group concordance, all
    cells equal; with what each leaves out."""
    return joint_tests_table(joint_tests(result, found.omnibus))


_HYPOTHESES = {
    "no_asymmetry": "no cross-group asymmetry (every Δbetween = 0)",
    "equal_within": "equal within-group concordance",
    "equal_cells": "all cells equal",
}


def joint_tests_table(tests: list) -> pd.DataFrame:
    """The joint tests for a reader (the report, the command line): chi-square, df, p-value and the
    contrasts tested, degenerate and left out (undefined cell; cell with standard error 0)."""
    rows = [
        {
            "hypothesis": _HYPOTHESES[test.hypothesis],
            "chi-square": statistic_text(test.statistic),
            "df": test.df,
            "p": p_value_text(test.p_value),
            "contrasts": test.n_contrasts,
            "degenerate": test.n_degenerate,
            "left out (undefined)": test.n_left_out,
            "left out (standard error 0)": test.n_no_variance,
        }
        for test in tests
    ]
    return pd.DataFrame(rows).set_index("hypothesis")


def matrix_table(result: XCIResult | XAUCResult, flagged: set) -> pd.DataFrame:
    """The G x G matrix in percent; a dagger marks flagged cells."""
    values = result.values
    frame = pd.DataFrame(
        [
            [
                percent(values[i, j]) + (" †" if (a, b) in flagged else "")
                for j, b in enumerate(result.groups)
            ]
            for i, a in enumerate(result.groups)
        ],
        index=pd.Index([str(g) for g in result.groups]),
        columns=[str(g) for g in result.groups],
    )
    frame.index.name = (
        "a (positive) \\ b (negative)"
        if isinstance(result, XAUCResult)
        else "a (earlier) \\ b (later)"
    )
    return frame


def cell_reasons(cells: pd.DataFrame, flags: pd.DataFrame) -> np.ndarray:
    """The ``reason`` of a :func:`survfair.small_sample_flags` table for each row (a, b) of
    ``cells`` (a result's ``to_frame()``), as an object array ("" where a cell is not flagged).

    Both tables list the cells row-major, so the reasons are taken in order once their (a, b)
    labels are checked to agree (one label lookup per cell took 58 us, four minutes at 2,000
    groups); tables in another order are matched by label.
    """
    pairs, keys = (cells["a"], cells["b"]), (flags["a"], flags["b"])
    if len(cells) == len(flags) and all(
        np.array_equal(mine.to_numpy(dtype=object), theirs.to_numpy(dtype=object))
        for mine, theirs in zip(pairs, keys)
    ):
        return flags["reason"].to_numpy(dtype=object, copy=True)
    by_cell = dict(zip(zip(*keys), flags["reason"]))
    return np.array([by_cell[cell] for cell in zip(*pairs)], dtype=object)


def cells_table(
    result: XCIResult | XAUCResult, flags: pd.DataFrame, cells: np.ndarray | None = None
) -> pd.DataFrame:
    """One row per cell: value, interval, comparable pairs, events (positives) of a,
    and the flag; ``cells``: the row-major positions of the cells to show, in that order (default
    every cell; ``flags`` lists every cell row-major, as :func:`survfair.small_sample_flags`)."""
    low, high = (m.to_numpy() for m in result.confidence_interval())
    values = result.values
    rows = []
    positions = range(len(flags)) if cells is None else cells
    chosen = flags if cells is None else flags.iloc[cells]
    for k, flag in zip(positions, chosen.itertuples()):
        i, j = divmod(k, len(result.groups))
        rows.append(
            {
                "cell": f"{flag.a} → {flag.b}",
                "value": percent(values[i, j]) + (" †" if flag.flagged else ""),
                "interval": NO_INTERVAL
                if flag.no_variance
                else interval_text(low[i, j], high[i, j], as_percent=True),
                "pairs": int(flag.comparable),
                "events in a" if not isinstance(result, XAUCResult) else "positives in a": int(
                    flag.events
                ),
                "flag": flag.reason or "",
            }
        )
    return pd.DataFrame(rows).set_index("cell")


def balanced_table(result: XAUCResult, min_events: int) -> pd.DataFrame:
    """Balanced xAUCs per group in percent with their intervals, and the counts behind them; a
    dagger on a value that rests on fewer than ``min_events`` positives (xauc1) or negatives (xauc0)
    of the group."""
    table = balanced_xauc(result)
    shown = table[["positives", "negatives"]].copy()
    for name, count in (("xauc1", "positives"), ("xauc0", "negatives")):
        few = table[count] < min_events
        shown[name] = [percent(v) + (" †" if f else "") for v, f in zip(table[name], few)]
        shown[f"{name} interval"] = [
            interval_text(lo, hi, as_percent=True)
            for lo, hi in zip(table[f"{name}_ci_low"], table[f"{name}_ci_high"])
        ]
    shown["flag"] = [
        ", ".join(
            f"{int(table.loc[g, c])} {c} (< {min_events})"
            for c in ("positives", "negatives")
            if table.loc[g, c] < min_events
        )
        for g in table.index
    ]
    return shown


def horizon_table(horizons: Any, found: HorizonFindings, time_unit: str | None) -> pd.DataFrame:
    """AUC(t) per horizon and cell: value and interval in percent (a dagger on flagged cells, no
    interval for standard error 0), cases and controls, and why a cell is flagged."""
    frame = horizons.to_frame()
    rows = []
    for row, flag in zip(frame.itertuples(index=False), found.flags.itertuples(index=False)):
        rows.append(
            {
                _time_header(time_unit): f"{row.time:,g}",
                "cell": f"{row.a} → {row.b}",
                "AUC(t)": percent(row.xauc) + (" †" if flag.flagged else ""),
                "interval": NO_INTERVAL
                if flag.no_variance
                else interval_text(row.ci_low, row.ci_high, as_percent=True),
                "cases": int(row.cases),
                "controls": int(row.controls),
                "flag": flag.reason,
            }
        )
    return pd.DataFrame(rows).set_index(_time_header(time_unit))


def horizon_delta_table(found: HorizonFindings, time_unit: str | None) -> pd.DataFrame:
    """The differences at every horizon, as the matrix's differences table, with
    adjusted p-values."""
    rows = [
        {
            _time_header(time_unit): f"{d.time:,g}",
            "statistic": _delta_label(d.summary, d.a, d.b, d.flagged),
            **_delta_row(d, found.adjust, None),
        }
        for d in oriented_pairs(found.deltas, flag_groups(found.flags)).itertuples(index=False)
    ]
    return pd.DataFrame(rows).set_index(_time_header(time_unit))


def _time_header(time_unit: str | None) -> str:
    return f"time ({time_unit})" if time_unit else "time"


def calibration_table(
    calibration: CalibrationResult, time: float, flags: pd.DataFrame
) -> pd.DataFrame:
    """Per group at one horizon: counts, observed vs predicted risk, O/E, slope, ICI, Brier, GND;
    † marks a group with few events by the horizon."""
    summary = calibration.summary(time)
    flagged = {
        g for t, g, f in zip(flags["time"], flags["group"], flags["flagged"]) if f and t == time
    }
    rows = []
    for group, row in summary.iterrows():
        rows.append(
            {
                "group": str(group) + (" †" if group in flagged else ""),
                "n": int(row["n"]),
                "events": int(row["events"]),
                "observed": percent(row["observed_risk"]),
                "observed interval": interval_text(
                    row["observed_risk_ci_low"], row["observed_risk_ci_high"], as_percent=True
                ),
                "predicted": percent(row["expected_risk"]),
                "O/E": number(row["oe_ratio"], 2),
                "O/E interval": interval_text(
                    row["oe_ratio_ci_low"], row["oe_ratio_ci_high"], digits=2
                ),
                "slope": number(row["slope"], 2),
                "slope interval": interval_text(
                    row["slope_ci_low"], row["slope_ci_high"], digits=2
                ),
                "ICI": number(row["ici"], 3),
                "E90": number(row["e90"], 3),
                "Brier": number(row["brier"], 3),
                "GND p": p_value_text(row["gnd_p"]),
            }
        )
    return pd.DataFrame(rows).set_index("group")


#: the contrasts of the calibration findings as the report's table names them
CONTRAST_LABELS = {
    "oe_ratio": "O/E ratio (a / b)",
    "slope": "slope difference (a − b)",
    "ici": "ICI difference (a − b)",
    "brier": "Brier difference (a − b)",
}


def calibration_contrast_table(found) -> pd.DataFrame:
    """O/E ratios and the differences of the other statistics between groups, with
    adjusted p-values."""
    rows = []
    for _, row in found.contrasts.iterrows():
        rows.append(
            {
                "horizon": number(row["time"], 4).rstrip("0").rstrip("."),
                "comparison": f"{row['a']} vs {row['b']}",
                "statistic": CONTRAST_LABELS.get(row["statistic"], row["statistic"]),
                "value": number(
                    row["estimate"], 2 if row["statistic"] in ("oe_ratio", "slope") else 3
                ),
                "interval": interval_text(
                    row["ci_low"],
                    row["ci_high"],
                    digits=2 if row["statistic"] in ("oe_ratio", "slope") else 3,
                ),
                "p (adjusted)": p_value_text(row["p_adjusted"]),
            }
        )
    return pd.DataFrame(rows).set_index("horizon")


def comparison_table(comparison: ModelComparison, found: Mapping[str, Findings]) -> pd.DataFrame:
    """Tidy: one row per model x headline quantity (the largest |Δbetween|, worst
    cell, pooled C)."""
    rows = []
    for name, result in comparison.results.items():
        table = summary_table(result, found[name]).reset_index()
        d = largest_between(found[name].deltas, result.groups)
        keep = table["statistic"].str.startswith(("worst cell", "pooled"))
        if d is not None:
            keep |= table["statistic"] == _delta_label(
                d["summary"], d["a"], d["b"], bool(d["flagged"])
            )
        for row in table[keep].to_dict(orient="records"):
            rows.append({"model": name, **row})
    return pd.DataFrame(rows).set_index("model")


#: columns a model-based reference's tidy frame must have (``model_based=`` of :func:`write_report`)
MODEL_BASED_COLUMNS = SUMMARY_COLUMNS


def model_based_frame(reference: Any, name: str = "model_based") -> pd.DataFrame:
    """The tidy frame of a model-based reference: ``reference.to_frame()`` (or the DataFrame
    itself), checked for the columns of :data:`MODEL_BASED_COLUMNS`.

    Rows whose ``summary`` is "delta_between" give the excess Δbetween of a pair (observed −
    model-based); rows whose ``summary`` is "xci" (or "xauc") give the cells, for the difference
    heatmap of observed − model-based.

    Raises
    ------
    TypeError
        If ``reference`` is neither a DataFrame nor has a ``to_frame()`` method returning one.
    ValueError
        If columns are missing.

    Examples
    --------
    >>> import pandas as pd
    >>> stub = pd.DataFrame({"summary": ["delta_between"], "a": ["F"], "b": ["M"],
    ...                      "observed": [-0.1], "model_based": [-0.02], "excess": [-0.08],
    ...                      "se": [0.03], "ci_low": [-0.14], "ci_high": [-0.02],
    ...                      "p_value": [0.008]})
    >>> model_based_frame(stub)["excess"].tolist()
    [-0.08]
    """
    frame = reference if isinstance(reference, pd.DataFrame) else None
    if frame is None and is_model_based(reference):
        frame = _model_based_rows(reference)
    elif frame is None and callable(getattr(reference, "to_frame", None)):
        frame = reference.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise InvalidParameterError(
            f"{name} must be a model-based result with a to_frame() method returning a DataFrame "
            f"(or that DataFrame), got {type(reference).__name__}.",
            parameter=argument_name(name),
        )
    missing = [c for c in MODEL_BASED_COLUMNS if c not in frame.columns]
    if missing:
        raise InvalidParameterError(
            f"{name}: the model-based frame lacks the columns {missing} (needs "
            f"{list(MODEL_BASED_COLUMNS)}).",
            parameter=argument_name(name),
        )
    return frame


def is_model_based(reference: Any) -> bool:
    """A :class:`survfair.ModelBasedResult` (its pair table and its observed result)."""
    return callable(getattr(reference, "summaries", None)) and hasattr(reference, "observed")


def _model_based_rows(reference: Any) -> pd.DataFrame:
    """A ModelBasedResult as the report's tidy frame: its pair summaries, then its cells (summary
    "xci" or "xauc", with the excess's SE as ``se``)."""
    cells = reference.to_frame().rename(columns={"excess_se": "se"})
    cells.insert(0, "summary", "xauc" if hasattr(reference.observed, "positive") else "xci")
    return pd.concat(
        [
            reference.summaries(),
            cells[[c for c in cells.columns if c in ("summary", *MODEL_BASED_COLUMNS)]],
        ],
        ignore_index=True,
    )


def _excess_between(frame: pd.DataFrame) -> pd.DataFrame:
    """The excess Δbetween rows of a model-based frame as a differences table (value = excess),
    each pair (a, b) as the model-based summaries give it (a before b in the group order)."""
    rows = frame[frame["summary"] == "delta_between"]
    table = pd.DataFrame(
        {
            "summary": "delta_between",
            "a": rows["a"].to_numpy(),
            "b": rows["b"].to_numpy(),
            "value": rows["excess"].to_numpy(float),
            "observed": rows["observed"].to_numpy(float),
            "ci_low": rows["ci_low"].to_numpy(float),
            "ci_high": rows["ci_high"].to_numpy(float),
            "p_value": rows["p_value"].to_numpy(float),
        }
    )
    return table


def excess_for(
    frame: pd.DataFrame | None, a: Any, b: Any
) -> tuple[float, float, float, float] | None:
    """(excess, ci_low, ci_high, p) of the pair (a, b) in this orientation, or None."""
    row = pair_row(None if frame is None else _excess_between(frame), a, b, ("value",))
    return None if row is None else (row["value"], row["ci_low"], row["ci_high"], row["p_value"])


def _calibration_cells(calibration: CalibrationResult) -> dict[str, str]:
    """Per horizon: "O/E at t" and "slope at t" as "F 1.12 · M 0.93"."""
    cells = {}
    for t in calibration.times:
        summary = calibration.summary(float(t))
        for statistic, label in (("oe_ratio", "O/E"), ("slope", "slope")):
            if statistic in summary:
                cells[f"{label} at t = {float(t):g}"] = " · ".join(
                    f"{g} {number(v, 2)}" for g, v in summary[statistic].items()
                )
    return cells


def verdict_table(
    results: Mapping[str, Any],
    found: Mapping[str, Findings],
    *,
    model_based: Mapping[str, Any] | None = None,
    calibration: Mapping[str, CalibrationResult] | None = None,
) -> pd.DataFrame:
    """The report's opening table: one row per model with its headline numbers, for a reader.

    Columns: pooled C (AUC for a binary audit) with its interval; the worst-served cell and its
    value; the largest |Δbetween| as (a, b) with a before b in the group order (signed a − b, in
    percentage points) with its interval and adjusted p-value; the excess Δbetween of that pair
    (observed − model-based) when ``model_based`` has the model; O/E and slope per group at each
    horizon when ``calibration`` has the model. A dagger marks a number that uses a flagged cell.

    Parameters
    ----------
    results : mapping of str -> XCIResult or XAUCResult
        By model name ("" for a single unnamed result).
    found : mapping of str -> Findings
        :func:`survfair.findings` of each result.
    model_based : mapping of str -> model-based result, optional
        Objects with ``to_frame()`` (see :func:`model_based_frame`), by model name.
    calibration : mapping of str -> CalibrationResult, optional
        By model name.

    Returns
    -------
    DataFrame
        Indexed by model; every cell is text.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive", ci=None)
    >>> table = verdict_table({"score": res}, {"score": survfair.findings(res)})
    >>> table.loc["score", "largest Δbetween"]  # a before b in the group order
    'Δbetween (a, b) +13.3 pts †'
    """
    rows = {}
    for name, result in results.items():
        f = found[name]
        binary = isinstance(result, XAUCResult)
        words = "xAUC" if binary else "xCI"
        flagged = f.flagged_cells
        row: dict[str, str] = {}
        pooled = overall_c(result)
        interval = interval_text(*pooled.confidence_interval, as_percent=True)
        row["pooled AUC" if binary else "pooled C"] = percent(pooled.value) + (
            "" if interval == MISSING else f" {interval}"
        )
        if len(result.groups) > 1:
            smallest = min_xci(result)
            row["worst cell"] = (
                f"{words} ({smallest.a}, {smallest.b}) {percent(smallest.value)}"
                + (" †" if (smallest.a, smallest.b) in flagged else "")
            )
        else:
            row["worst cell"] = MISSING
        largest = largest_between(f.deltas, result.groups)
        if largest is None:
            row["largest Δbetween"], row["interval"], row[f"p ({f.adjust})"] = (
                MISSING,
                MISSING,
                MISSING,
            )
        else:
            shown = _delta_row(largest, f.adjust, _n_resamples(result))
            row["largest Δbetween"] = (
                _delta_label("delta_between", largest["a"], largest["b"])
                + f" {shown['value']}"
                + (" †" if largest["flagged"] else "")
            )
            row["interval"], row[f"p ({f.adjust})"] = shown["interval"], shown[f"p ({f.adjust})"]
        if model_based:
            frame = (
                model_based_frame(model_based[name], f"model_based[{name!r}]")
                if name in model_based
                else None
            )
            excess = None if largest is None else excess_for(frame, largest["a"], largest["b"])
            row["excess Δbetween"] = (
                MISSING
                if excess is None
                else (
                    f"{pp(excess[0])} pts {_pp_interval(excess[1], excess[2])}".replace(
                        f" {MISSING}", ""
                    )
                )
            )
        if calibration and name in calibration:
            row.update(_calibration_cells(calibration[name]))
        rows[name or "risk score"] = row
    table = pd.DataFrame.from_dict(rows, orient="index").fillna(MISSING)
    table.index.name = "model"
    return table


def _censoring_model_words(result: XCIResult) -> str:
    """The settings table's words for a Cox model of the censoring."""
    names = ", ".join(str(c) for c in result.censoring_model.covariate_names)
    return f"cox: Cox model of the censoring hazard on {names}, the group as strata"


def settings_table(
    result: XCIResult | XAUCResult | None, settings: Mapping[str, Any] | None
) -> pd.DataFrame:
    """The estimator's settings once, in words; the caller's settings add to them (a caller's key
    that names the same setting, spelt with spaces or underscores, replaces it)."""
    items: dict[str, Any] = {}
    if isinstance(result, XAUCResult):
        items.update(
            {
                "metric": "xAUC (binary outcome)",
                "positive label": result.positive,
                "tied tolerance": result.tied_tol,
            }
        )
    elif result is not None:
        items.update(
            {
                "method": result.method,
                "tau": result.tau,
                **(
                    {"censoring model": _censoring_model_words(result)}
                    if result.censoring_model is not None
                    else {"censoring curves": result.censoring}
                ),
                "tied tolerance": result.tied_tol,
                "strict": result.strict,
            }
        )
        if result.n_clusters is not None:
            items["cluster"] = f"{result.n_clusters} clusters (cluster-robust intervals)"
        if result.delayed_entry:
            items["entry"] = "delayed entry: pairs and censoring risk sets on (entry, time]"
        if result.weighted:
            items["weights"] = "case weights (sampling weights): pairs weigh w_i w_j"
        if result.cause is not None:
            items["cause of interest"] = (
                f"{result.cause}: cause-specific xCI under competing risks (Wolbers et al. "
                "2014); competing events are events of the censoring fit"
            )
    if result is not None:
        items.update(
            {
                "intervals": result.ci_method or "none",
                "confidence level": percent(result.confidence_level, 0),
            }
        )
    key = lambda text: str(text).replace("_", " ").lower()  # noqa: E731
    known = {key(k): k for k in items}
    for name, value in (settings or {}).items():
        items.pop(known.get(key(name), None), None)
        items[str(name)] = value
    frame = pd.DataFrame(
        {"value": [("None" if v is None else str(v)) for v in items.values()]}, index=list(items)
    )
    frame.index.name = "setting"
    return frame


def data_fingerprint(frame: pd.DataFrame) -> str:
    """SHA-256 of the analysed columns (names, dtypes and values, in row order): a reader who
    has the same file can check that the report describes the same data.

    Parameters
    ----------
    frame : DataFrame
        The columns analysed (e.g. time, event, group and risk), in a fixed order.

    Returns
    -------
    str
        64 hexadecimal characters.

    Examples
    --------
    >>> import pandas as pd
    >>> data_fingerprint(pd.DataFrame({"t": [1.0, 2.0]}))[:12]
    'e6f24e4fccbc'
    """
    import hashlib

    digest = hashlib.sha256()
    for name in frame.columns:
        column = frame[name]
        digest.update(f"{name}\x00{column.dtype}\x00{len(column)}\x00".encode())
        if (
            column.dtype.kind in "biuf"
        ):  # numbers as little-endian float64: the same on every machine
            digest.update(np.asarray(column, dtype="<f8").tobytes())
        else:  # labels as text, one unit separator between values
            digest.update("\x1f".join(map(str, column)).encode("utf-8"))
    return digest.hexdigest()


def provenance_table(
    result: XCIResult | XAUCResult, provenance: Mapping[str, Any] | None, version: str, stamp: str
) -> pd.DataFrame:
    items: dict[str, Any] = {"survfair": version, "generated": stamp}
    items.update({str(k): v for k, v in (provenance or {}).items()})
    items.setdefault("rows analysed", result.n_samples)
    excluded = getattr(result, "n_excluded", 0)
    if excluded:
        items.setdefault(
            "rows excluded", f"{excluded} (their group is not among the groups analysed)"
        )
    frame = pd.DataFrame({"value": [str(v) for v in items.values()]}, index=list(items))
    frame.index.name = "item"
    return frame


#: settings that are the estimator's internals: shown in the appendix
_INTERNAL_SETTINGS = ("tied tolerance", "strict")


def split_settings(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    internal = table.index.isin(_INTERNAL_SETTINGS)
    return table[~internal], table[internal]


def adjusted_excess_p(found: Findings, a: Any, b: Any) -> float | None:
    """The adjusted p-value of the excess Δbetween of (a, b) in either order, as the findings
    adjusted it (within the family of excess asymmetries); None when the findings have none."""
    row = pair_row(found.excess, a, b, ())
    return None if row is None else float(row["p_adjusted"])


def excess_table(frame: pd.DataFrame, found: Findings) -> pd.DataFrame:
    """Per pair: observed, model-based and excess Δbetween in points, each pair (a, b) with a before
    b in the group order (signed a − b), as every table."""
    rows = []
    observed = oriented_pairs(found.deltas, flag_groups(found.flags))
    observed = observed[observed["summary"] == "delta_between"]
    between = frame[frame["summary"] == "delta_between"]
    for row in observed.itertuples(index=False):
        pair = pair_row(between, row.a, row.b, EXCESS_VALUES)
        if pair is None:
            continue
        adjusted = adjusted_excess_p(found, row.a, row.b)
        rows.append(
            {
                "pair": _delta_label("delta_between", row.a, row.b),
                "observed": pp(float(pair["observed"])) + " pts",
                "model-based": pp(float(pair["model_based"])) + " pts",
                "excess": pp(float(pair["excess"])) + " pts",
                "interval": _pp_interval(float(pair["ci_low"]), float(pair["ci_high"])),
                "p": p_value_text(pair["p_value"]),
                f"p ({found.adjust})": MISSING if adjusted is None else p_value_text(adjusted),
            }
        )
    return pd.DataFrame(rows).set_index("pair") if rows else pd.DataFrame()


def cell_matrices(frame: pd.DataFrame, groups: tuple) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(observed, model-based) cell matrices of a model-based frame, or None without cell rows."""
    cells = frame[frame["summary"].isin(["xci", "xauc"])]
    if cells.empty:
        return None
    labels = [str(g) for g in groups]
    cells = cells.assign(a=cells["a"].astype(str), b=cells["b"].astype(str))
    return tuple(
        cells.pivot(index="a", columns="b", values=column)
        .reindex(index=labels, columns=labels)
        .astype(float)
        for column in ("observed", "model_based")
    )


def utility_note(
    result: XCIResult | XAUCResult, alpha: float = 1.0, beta: float = 1.0
) -> str | None:
    """Why a reader is shown no table of the utilities U(a), or None when they can differ.

    With two groups a and b and ``alpha == beta``, U(a) = alpha (xCI_{a,b} + xCI_{b,a}) = U(b) by
    construction (:func:`survfair.utility`), so a table would print one number twice; with one
    group there is no other group and U = 0.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive", ci=None)
    >>> utility_note(res).split(" by construction")[0]
    'U(a) = U(b) = xCI(a, b) + xCI(b, a) = 1.4667'
    """
    groups = list(result.groups)
    if len(groups) == 1:
        return "one group: no other group to be ranked against, so no utility"
    if len(groups) == 2 and alpha == beta:
        a, b = groups
        value = float(utility(result, alpha=alpha, beta=beta)["value"].iloc[0])
        weight = "" if alpha == 1 else f"{alpha:g} ("
        close = "" if alpha == 1 else ")"
        return (
            f"U({a}) = U({b}) = {weight}xCI({a}, {b}) + xCI({b}, {a}){close} = {value:.4f} by "
            "construction (two groups, alpha = beta): no table of utilities"
        )
    return None


def summary_frames(result: XCIResult, found: Findings) -> dict[str, pd.DataFrame]:
    """The numbers of an xCI audit in long form (the command line's CSV, JSON and text): Δwithin /
    Δbetween for every pair of groups (with adjusted p-values), min xCI, the pooled C and the joint
    tests (``summaries``); the utilities (``utility``); the joint tests themselves
    (``joint_tests``)."""
    rows = found.deltas.to_dict(orient="records")
    minimum = min_xci(result)
    low, high = minimum.estimate.confidence_interval
    rows.append(
        {
            "summary": "min_xci",
            "a": minimum.a,
            "b": minimum.b,
            "value": minimum.value,
            "se": minimum.estimate.se,
            "ci_low": low,
            "ci_high": high,
            "p_value": np.nan,
        }
    )
    pooled = overall_c(result)
    low, high = pooled.confidence_interval
    rows.append(
        {
            "summary": "overall_c",
            "a": "",
            "b": "",
            "value": pooled.value,
            "se": pooled.se,
            "ci_low": low,
            "ci_high": high,
            "p_value": np.nan,
        }
    )
    tests = joint_tests(result, found.omnibus) if len(result.groups) > 1 else []
    for test in (
        tests
    ):  # value = the chi-square statistic; the df in the name, all fields in the JSON "joint_tests"
        rows.append(
            {
                "summary": f"omnibus_{test.hypothesis} (chi-square, df={test.df})",
                "a": "",
                "b": "",
                "value": test.statistic,
                "se": np.nan,
                "ci_low": np.nan,
                "ci_high": np.nan,
                "p_value": test.p_value,
            }
        )
    return {
        "summaries": pd.DataFrame(rows),
        "utility": utility(result).reset_index(),
        "joint_tests": tests,
    }


def censoring_check_table(check: Any) -> pd.DataFrame:
    """The censoring check (:class:`~survfair.CensoringDependence`) for people: one row per group,
    indexed by group, with n, censored, the hazard ratio of censoring per SD of the risk and its
    interval, the p-value and its Holm adjustment across groups, and the status (the reason when the
    group's model could not be fitted)."""
    table = check.to_frame()
    level = f"{100 * check.confidence_level:g}%"
    frame = pd.DataFrame(
        {
            "n": table["n"].to_numpy(),
            "censored": table["censored"].to_numpy(),
            "HR per SD": [number(v, 2) for v in table["hazard_ratio"]],
            f"{level} interval": [
                interval_text(low, high, digits=2)
                for low, high in zip(table["ci_low"], table["ci_high"])
            ],
            "p": [p_value_text(v) for v in table["p_value"]],
            "p (Holm)": [p_value_text(v) for v in table["p_adjusted"]],
            "status": [
                status if not reason else f"{status}: {reason}"
                for status, reason in zip(table["status"], table["reason"])
            ],
        },
        index=pd.Index(list(check.groups), name="group", tupleize_cols=False),
    )
    return frame


def censoring_model_table(result: Any) -> pd.DataFrame | None:
    """The Cox model of the censoring hazard of a ``censoring="cox"`` result for people: one row
    per covariate, indexed by covariate, with the log hazard ratio of censoring, the hazard ratio
    per unit of the covariate and the covariate's mean (where the per-group baselines are given);
    None for a result without one (Kaplan-Meier weights, naive estimator)."""
    model = getattr(result, "censoring_model", None)
    if model is None:
        return None
    table = model.to_frame()
    with np.errstate(over="ignore"):
        ratios = np.exp(table["coefficient"].to_numpy(float))
    return pd.DataFrame(
        {
            "log hazard ratio": [number(v, 4) for v in table["coefficient"]],
            "HR per unit": [number(v, 3) for v in ratios],
            "mean": [number(v, 4) for v in table["center"]],
        },
        index=pd.Index([str(c) for c in table["covariate"]], name="covariate"),
    )


def censoring_weights_text(result: Any) -> str | None:
    """One sentence saying what the IPCW weights of a ``censoring="cox"`` result are (the report,
    the notebook and the command line say the same); None for a result without a Cox censoring
    model."""
    model = getattr(result, "censoring_model", None)
    if model is None:
        return None
    names = ", ".join(str(c) for c in model.covariate_names)
    series = (
        f"; the pair sums use {model.n_terms} terms of an exact series (relative error at most "
        f"{model.truncation_bound:.1g})"
        if model.n_terms
        else ""
    )
    return (
        f"IPCW weights from a Cox model of the censoring hazard on {names}, the group as strata "
        "(lifelines' CoxPHFitter, one Breslow baseline L_g per group), not from Kaplan–Meier "
        "curves: a comparable pair (i, j), i the earlier event, weighs "
        "1 / (G(t_i− | x_i) G(t_i | x_j)) with G(t | x) = exp(−L_g(t) exp(β′(x − mean))); a "
        f"hazard ratio above 1 means censored sooner as the covariate rises{series}."
    )
