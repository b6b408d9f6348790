"""Self-contained HTML / Markdown audit reports: a thin consumer of the public result objects."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import os
import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .findings.calibration import calibration_findings
from .._core.deprecation import REMOVED_IN, warn_once
from .._calibration.result import CalibrationResult
from .findings.ranking import _EXCESS_VALUES, Findings, _largest, findings, joint_tests, pair_row
from .plots.base import difference_limit
from .format import MISSING, NO_INTERVAL, interval_text, number, p_value_text, percent, statistic_text
from .findings.horizons import HorizonFindings, horizon_findings
from .._core.intervals import NO_VARIANCE_SE
from .._models.comparison import ModelComparison
from .._core.results import XCIResult
from .._xci.summaries import min_xci, overall_c
from .._binary.xauc import XAUCResult
from .._binary.summaries import balanced_xauc
from .._binary.xauc_t import case_control_definition

__all__ = ["write_report", "data_summary_table", "data_fingerprint", "oriented_pairs", "verdict_table"]

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1.5em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #345;padding-bottom:.3em}h2{margin-top:1.8em;color:#234;border-bottom:1px solid #ccd}
table{border-collapse:collapse;margin:.8em 0;font-size:.92em}
th,td{border:1px solid #ccd;padding:.3em .7em;text-align:right}th{background:#eef1f6}
td.label,th.label{text-align:left}tr:nth-child(even) td{background:#f8f9fb}
figure{margin:1em 0;display:inline-block;vertical-align:top;max-width:100%}
figcaption{font-size:.9em;color:#555;max-width:36em}
ul.findings li{margin:.45em 0}details{margin:.6em 0}summary{cursor:pointer;color:#345}
td{white-space:nowrap}td.label{white-space:normal}
img{max-width:100%;border:1px solid #dde}p.note{font-size:.9em;color:#444}
.meta{color:#666;font-size:.85em}
div.scroll{overflow-x:auto;max-width:100%;margin:.8em 0}div.scroll table{margin:0}
ul.verdict li{margin:.45em 0;font-weight:500}td.label{overflow-wrap:break-word}
@media (max-width:600px){body{padding:0 .6em;margin:1em auto}th,td{padding:.25em .45em}h1{font-size:1.5em}}
"""

_NOTE = (
    "xCI<sub>a,b</sub> estimates P(R<sub>i</sub> &gt; R<sub>j</sub> | T<sub>i</sub> &lt; T<sub>j</sub>, "
    "G<sub>i</sub> = a, G<sub>j</sub> = b): row a is the group of the member with the EARLIER event, "
    "column b the group of the member who outlived it (Wang et al. 2026, eq. 2). A higher risk score "
    "means an earlier expected event. &Delta;within(a,b) = xCI<sub>a,a</sub> &minus; xCI<sub>b,b</sub>; "
    "&Delta;between(a,b) = xCI<sub>a,b</sub> &minus; xCI<sub>b,a</sub>."
)

_NOTE_MD = (
    "xCI[a,b] estimates P(R_i > R_j | T_i < T_j, G_i = a, G_j = b): row a is the group of the member "
    "with the EARLIER event, column b the group of the member who outlived it (Wang et al. 2026, eq. 2). "
    "A higher risk score means an earlier expected event. Δwithin(a,b) = xCI[a,a] − xCI[b,b]; "
    "Δbetween(a,b) = xCI[a,b] − xCI[b,a]."
)

_NOTE_XAUC = (
    "xAUC(a, b) estimates P(R<sub>1</sub><sup>a</sup> &gt; R<sub>0</sub><sup>b</sup>), the probability that "
    "a positive of group a is scored above a negative of group b: row a is the group of the POSITIVE, "
    "column b the group of the NEGATIVE (Kallus &amp; Zhou 2019, Definition 2); the diagonal holds the "
    "within-group AUCs. A higher score should mean the positive class. "
    "delta_between(a,b) = xAUC(a,b) &minus; xAUC(b,a) (&Delta;xAUC, Section 4); "
    "delta_within(a,b) = AUC<sup>a</sup> &minus; AUC<sup>b</sup>; min_xci is the smallest cell. A binary outcome "
    "has no censoring: xAUC is the xCI of a sample in which every positive has its event before every "
    "negative. Standard errors, intervals and p-values come from the DeLong covariance of all cells."
)

_NOTE_XAUC_MD = (
    "xAUC(a, b) estimates P(R_1^a > R_0^b), the probability that a positive of group a is scored above "
    "a negative of group b: row a is the group of the POSITIVE, column b the group of the NEGATIVE "
    "(Kallus & Zhou 2019, Definition 2); the diagonal holds the within-group AUCs. A higher score should "
    "mean the positive class. delta_between(a,b) = xAUC(a,b) − xAUC(b,a) (ΔxAUC, Section 4); "
    "delta_within(a,b) = AUC^a − AUC^b; min_xci is the smallest cell. A binary outcome has no censoring: "
    "xAUC is the xCI of a sample in which every positive has its event before every negative. Standard "
    "errors, intervals and p-values come from the DeLong covariance of all cells."
)


def _known(flag) -> bool | None:
    """A flag read from a table as a bool, None where the table has none (unknown)."""
    return None if flag is None or pd.isna(flag) else bool(flag)


def _notes(result: XCIResult | XAUCResult) -> tuple[str, str]:
    """How to read the matrix: (HTML, Markdown)."""
    return (_NOTE_XAUC, _NOTE_XAUC_MD) if isinstance(result, XAUCResult) else (_NOTE, _NOTE_MD)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _for_people(summary: pd.DataFrame) -> pd.DataFrame:
    """The data summary as a reader wants it: shares as percentages with one decimal ("70.2%",
    not "70.2000"), the smallest censoring survival with three digits, counts as integers.

    Every data summary of a report passes here, also one given as ``data_summary=`` (the command
    line passes :func:`data_summary_table`); values that are already text are kept, so formatting
    twice changes nothing."""
    shown = summary.astype(object)
    for column in summary.columns:
        if str(column).endswith("_pct"):
            shown[column] = [f"{v:.1f}%" if _is_number(v) and np.isfinite(v) else (MISSING if pd.isna(v) else v)
                             for v in summary[column]]
        elif column == "min_censoring_survival":
            shown[column] = [f"{v:.3g}" if _is_number(v) and np.isfinite(v) else (MISSING if pd.isna(v) else v)
                             for v in summary[column]]
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
    DataFrame indexed by group (plus the totals row "all", or "(all)" when a group is called "all"). For an XCIResult the columns are n, events
    (of the cause of interest under competing risks, followed by competing_events), censored, censored_pct and, for IPCW, min_censoring_survival (smallest K_g used as a
    weight); for an XAUCResult n, positives, negatives, positive_pct.
    """
    if isinstance(result, XAUCResult):
        frame = pd.DataFrame.from_dict(
            {g: {k: int(result.group_sizes[g][k]) for k in ("n", "positives", "negatives")} for g in result.groups},
            orient="index",
        )
        frame.loc[_total_label(result.groups)] = frame.sum()
        frame["positive_pct"] = (100.0 * frame["positives"] / frame["n"].where(frame["n"] > 0)).round(1)
        frame.index.name = "group"
        return frame
    rows = {}
    for g in result.groups:
        sizes = result.group_sizes.get(g, {})
        n, events = int(sizes.get("n", 0)), int(sizes.get("events", 0))
        if "competing_events" in sizes:  # competing risks: events of the cause, competing, censored
            competing = int(sizes["competing_events"])
            rows[g] = {"n": n, "events": events, "competing_events": competing, "censored": n - events - competing}
        else:
            rows[g] = {"n": n, "events": events, "censored": n - events}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.loc[_total_label(result.groups)] = frame.sum()
    frame["censored_pct"] = (100.0 * frame["censored"] / frame["n"].where(frame["n"] > 0)).round(1)
    if result.min_censoring_survival:
        frame["min_censoring_survival"] = [result.min_censoring_survival.get(g, math.nan) for g in result.groups] + [
            math.nan
        ]
    frame.index.name = "group"
    return frame


# -- tables for people: strings formatted once, here ------------------------------------------


def _pp(value: float) -> str:
    """A difference of two probabilities in percentage points."""
    return f"{100 * value:+.1f}".replace("-0.0", "+0.0") if np.isfinite(value) else MISSING


def _pp_interval(low: float, high: float) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return MISSING
    return f"[{_pp(low)}, {_pp(high)}]"


def _n_resamples(result: Any) -> int | None:
    draws = getattr(result, "bootstrap", None)
    return None if draws is None else int(draws.cells.shape[0])


_NAMES = {"delta_between": "Δbetween", "delta_within": "Δwithin"}


def _delta_label(summary: str, a: Any, b: Any, flagged: bool = False) -> str:
    """``"Δbetween (F, M)"``, with a dagger when a cell it uses is flagged."""
    return f"{_NAMES[summary]} ({a}, {b})" + (" †" if flagged else "")


def oriented_pairs(deltas: pd.DataFrame) -> pd.DataFrame:
    """Each pair of a differences table in the orientation the findings use: the group the
    difference favours first, so that the value is >= 0.

    A row with a negative value (Δbetween(F, M) = −0.10) is shown as its mirror (Δbetween(M, F) =
    +0.10): ``a`` and ``b`` swap, the value and the interval change sign (the limits swap), the
    standard error and the p-values stay. Rows with a value >= 0 or NaN are kept as they are. The
    findings name the largest difference in this orientation, so the report, the notebook and
    the command line show every pair the way the sentences read.

    Parameters
    ----------
    deltas : DataFrame
        Rows of differences with columns a, b, value and, when present, ci_low and ci_high
        (:func:`survfair.pairwise_deltas`, ``Findings.deltas``, ``HorizonFindings.deltas``).

    Returns
    -------
    DataFrame
        A copy, same index and columns.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"summary": ["delta_between"], "a": ["F"], "b": ["M"], "value": [-0.1],
    ...                       "ci_low": [-0.2], "ci_high": [0.05], "p_value": [0.2]})
    >>> print(oriented_pairs(table)[["a", "b", "value", "ci_low", "ci_high"]].to_string(index=False))
    a b  value  ci_low  ci_high
    M F    0.1   -0.05      0.2
    """
    shown = deltas.copy()
    if shown.empty:
        return shown
    flip = (pd.to_numeric(shown["value"], errors="coerce") < 0).to_numpy()
    if not flip.any():
        return shown
    shown = shown.astype({"a": object, "b": object})
    a, b = shown["a"].to_numpy(copy=True), shown["b"].to_numpy(copy=True)
    shown.loc[flip, "a"], shown.loc[flip, "b"] = b[flip], a[flip]
    shown.loc[flip, "value"] = -shown.loc[flip, "value"]
    if "ci_low" in shown and "ci_high" in shown:
        low, high = shown["ci_low"].to_numpy(copy=True), shown["ci_high"].to_numpy(copy=True)
        shown.loc[flip, "ci_low"], shown.loc[flip, "ci_high"] = -high[flip], -low[flip]
    return shown


def _delta_row(d: Any, adjust: str, boot: int | None) -> dict:
    """One difference for a reader: percentage points, interval (none for standard error 0), the
    unadjusted and adjusted p-value (a bound, "<=", at the bootstrap floor)."""
    no_variance = np.isfinite(d.value) and np.isfinite(d.se) and d.se <= NO_VARIANCE_SE
    return {"value": _pp(d.value) + (" pts" if np.isfinite(d.value) else ""),
            "interval": NO_INTERVAL if no_variance else _pp_interval(d.ci_low, d.ci_high),
            "p": p_value_text(d.p_value, boot, _known(getattr(d, "p_at_floor", None))),
            f"p ({adjust})": p_value_text(d.p_adjusted, boot, _known(getattr(d, "p_at_floor", None)))}


def _summary_table(result: XCIResult | XAUCResult, found: Findings) -> pd.DataFrame:
    """One row per summary, formatted for a reader: the differences in percentage points with
    their interval, unadjusted and adjusted p-value (a dagger on those that use a flagged cell);
    the worst cell and the pooled C in percent."""
    words = "xAUC" if isinstance(result, XAUCResult) else "xCI"
    boot = _n_resamples(result)
    rows = [{"statistic": _delta_label(d.summary, d.a, d.b, d.flagged), **_delta_row(d, found.adjust, boot)}
            for d in oriented_pairs(found.deltas).itertuples(index=False)]
    smallest = min_xci(result)
    # the cell's own interval, as in the findings and as the note says (positions, not labels:
    # intersection labels are tuples, which .loc would read as lists)
    i, j = result.groups.index(smallest.a), result.groups.index(smallest.b)
    cell_low, cell_high = result.confidence_interval()
    flag = found.flags.iloc[i * len(result.groups) + j]
    interval = NO_INTERVAL if flag["no_variance"] else interval_text(cell_low.iloc[i, j], cell_high.iloc[i, j],
                                                                     as_percent=True)
    rows.append({"statistic": f"worst cell: {words} ({smallest.a}, {smallest.b})" + (" †" if flag["flagged"] else ""),
                 "value": percent(smallest.value), "interval": interval, "p": MISSING, f"p ({found.adjust})": MISSING})
    pooled = overall_c(result)
    rows.append({"statistic": "pooled AUC" if isinstance(result, XAUCResult) else "pooled C",
                 "value": percent(pooled.value), "interval": interval_text(*pooled.confidence_interval, as_percent=True),
                 "p": MISSING, f"p ({found.adjust})": MISSING})
    return pd.DataFrame(rows).set_index("statistic")


def _tests_table(result: XCIResult | XAUCResult, found: Findings) -> pd.DataFrame:
    """The joint Wald tests: no asymmetry (the findings' own), equal within-group concordance, all
    cells equal; with what each leaves out."""
    return joint_tests_table(joint_tests(result, found.omnibus))


_HYPOTHESES = {"no_asymmetry": "no cross-group asymmetry (every Δbetween = 0)",
               "equal_within": "equal within-group concordance", "equal_cells": "all cells equal"}


def joint_tests_table(tests: list) -> pd.DataFrame:
    """The joint tests for a reader (the report, the command line): chi-square, df, p-value and the
    contrasts tested, degenerate and left out (undefined cell; cell with standard error 0)."""
    rows = [{"hypothesis": _HYPOTHESES[test.hypothesis], "chi-square": statistic_text(test.statistic), "df": test.df,
             "p": p_value_text(test.p_value), "contrasts": test.n_contrasts, "degenerate": test.n_degenerate,
             "left out (undefined)": test.n_left_out, "left out (standard error 0)": test.n_no_variance}
            for test in tests]
    return pd.DataFrame(rows).set_index("hypothesis")


def _matrix_table(result: XCIResult | XAUCResult, flagged: set) -> pd.DataFrame:
    """The G x G matrix in percent; a dagger marks flagged cells."""
    values = result.values
    frame = pd.DataFrame(
        [[percent(values[i, j]) + (" †" if (a, b) in flagged else "") for j, b in enumerate(result.groups)]
         for i, a in enumerate(result.groups)],
        index=pd.Index([str(g) for g in result.groups]), columns=[str(g) for g in result.groups],
    )
    frame.index.name = "a (positive) \\ b (negative)" if isinstance(result, XAUCResult) else "a (earlier) \\ b (later)"
    return frame


def _cells_table(result: XCIResult | XAUCResult, flags: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: value, interval, comparable pairs, events (positives) of a, and the flag."""
    low, high = (m.to_numpy() for m in result.confidence_interval())
    values = result.values
    rows = []
    for k, flag in enumerate(flags.itertuples()):
        i, j = divmod(k, len(result.groups))
        rows.append({"cell": f"{flag.a} → {flag.b}", "value": percent(values[i, j]) + (" †" if flag.flagged else ""),
                     "interval": NO_INTERVAL if flag.no_variance else interval_text(low[i, j], high[i, j],
                                                                                    as_percent=True),
                     "pairs": int(flag.comparable), "events in a" if not isinstance(result, XAUCResult)
                     else "positives in a": int(flag.events), "flag": flag.reason or ""})
    return pd.DataFrame(rows).set_index("cell")


def _balanced_table(result: XAUCResult, min_events: int) -> pd.DataFrame:
    """Balanced xAUCs per group in percent with their intervals, and the counts behind them; a
    dagger on a value that rests on fewer than ``min_events`` positives (xauc1) or negatives (xauc0)
    of the group."""
    table = balanced_xauc(result)
    shown = table[["positives", "negatives"]].copy()
    for name, count in (("xauc1", "positives"), ("xauc0", "negatives")):
        few = table[count] < min_events
        shown[name] = [percent(v) + (" †" if f else "") for v, f in zip(table[name], few)]
        shown[f"{name} interval"] = [interval_text(lo, hi, as_percent=True)
                                     for lo, hi in zip(table[f"{name}_ci_low"], table[f"{name}_ci_high"])]
    shown["flag"] = [", ".join(f"{int(table.loc[g, c])} {c} (< {min_events})" for c in ("positives", "negatives")
                               if table.loc[g, c] < min_events) for g in table.index]
    return shown


def _horizon_table(horizons: Any, found: HorizonFindings, time_unit: str | None) -> pd.DataFrame:
    """AUC(t) per horizon and cell: value and interval in percent (a dagger on flagged cells, no
    interval for standard error 0), cases and controls, and why a cell is flagged."""
    frame = horizons.to_frame()
    rows = []
    for row, flag in zip(frame.itertuples(index=False), found.flags.itertuples(index=False)):
        rows.append({_time_header(time_unit): f"{row.time:,g}", "cell": f"{row.a} → {row.b}",
                     "AUC(t)": percent(row.xauc) + (" †" if flag.flagged else ""),
                     "interval": NO_INTERVAL if flag.no_variance else interval_text(row.ci_low, row.ci_high,
                                                                                    as_percent=True),
                     "cases": int(row.cases), "controls": int(row.controls), "flag": flag.reason})
    return pd.DataFrame(rows).set_index(_time_header(time_unit))


def _horizon_delta_table(found: HorizonFindings, time_unit: str | None) -> pd.DataFrame:
    """The differences at every horizon, as the matrix's differences table, with adjusted p-values."""
    rows = [{_time_header(time_unit): f"{d.time:,g}", "statistic": _delta_label(d.summary, d.a, d.b, d.flagged),
             **_delta_row(d, found.adjust, None)} for d in oriented_pairs(found.deltas).itertuples(index=False)]
    return pd.DataFrame(rows).set_index(_time_header(time_unit))


def _time_header(time_unit: str | None) -> str:
    return f"time ({time_unit})" if time_unit else "time"


def _calibration_table(calibration: CalibrationResult, time: float, flags: pd.DataFrame) -> pd.DataFrame:
    """Per group at one horizon: counts, observed vs predicted risk, O/E, slope, ICI, Brier, GND;
    † marks a group with few events by the horizon."""
    summary = calibration.summary(time)
    flagged = {g for t, g, f in zip(flags["time"], flags["group"], flags["flagged"]) if f and t == time}
    rows = []
    for group, row in summary.iterrows():
        rows.append({
            "group": str(group) + (" †" if group in flagged else ""), "n": int(row["n"]), "events": int(row["events"]),
            "observed": percent(row["observed_risk"]),
            "observed interval": interval_text(row["observed_risk_ci_low"], row["observed_risk_ci_high"],
                                               as_percent=True),
            "predicted": percent(row["expected_risk"]),
            "O/E": number(row["oe_ratio"], 2),
            "O/E interval": interval_text(row["oe_ratio_ci_low"], row["oe_ratio_ci_high"], digits=2),
            "slope": number(row["slope"], 2),
            "slope interval": interval_text(row["slope_ci_low"], row["slope_ci_high"], digits=2),
            "ICI": number(row["ici"], 3), "E90": number(row["e90"], 3),
            "Brier": number(row["brier"], 3),
            "GND p": p_value_text(row["gnd_p"]),
        })
    return pd.DataFrame(rows).set_index("group")


#: the contrasts of the calibration findings as the report's table names them
_CONTRAST_LABELS = {"oe_ratio": "O/E ratio (a / b)", "slope": "slope difference (a − b)",
                    "ici": "ICI difference (a − b)", "brier": "Brier difference (a − b)"}


def _calibration_contrast_table(found) -> pd.DataFrame:
    """O/E ratios and the differences of the other statistics between groups, with adjusted p-values."""
    rows = []
    for _, row in found.contrasts.iterrows():
        rows.append({
            "horizon": number(row["time"], 4).rstrip("0").rstrip("."),
            "comparison": f"{row['a']} vs {row['b']}",
            "statistic": _CONTRAST_LABELS.get(row["statistic"], row["statistic"]),
            "value": number(row["estimate"], 2 if row["statistic"] in ("oe_ratio", "slope") else 3),
            "interval": interval_text(row["ci_low"], row["ci_high"],
                                      digits=2 if row["statistic"] in ("oe_ratio", "slope") else 3),
            "p (adjusted)": p_value_text(row["p_adjusted"]),
        })
    return pd.DataFrame(rows).set_index("horizon")


def _calibration_sections(calibration: CalibrationResult, found, time_unit: str | None, model: str = ""
                          ) -> list[tuple[str, pd.DataFrame, str, bool]]:
    sections = []
    unit = f" {time_unit}" if time_unit else ""
    of = f": {model}" if model else ""
    for t in calibration.times:
        sections.append((f"Calibration at t = {t:g}{unit}{of}", _calibration_table(calibration, float(t), found.flags),
                         "Observed risk by Kaplan-Meier within the group against the mean predicted risk; O/E = "
                         "observed / predicted (1 = right on average; interval from Greenwood's variance); slope "
                         "on the complementary log-log scale (1 = right spread, below 1 = too extreme); ICI and E90: "
                         "mean and 90th percentile of |predicted − observed| along the smooth calibration curve; "
                         "Brier score with censoring weights of the group; GND: Greenwood-Nam-D'Agostino test over "
                         "risk deciles (a small p means miscalibration). † marks a group with few events by the horizon "
                         "(fewer than min_events): its numbers rest on little data.", False))
    if len(calibration.groups) > 1:
        table = _calibration_contrast_table(found)
        shown = [_CONTRAST_LABELS[s].split(" (")[0] + "s" for s in dict.fromkeys(found.contrasts["statistic"])
                 if s in _CONTRAST_LABELS]
        listed_ = ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "".join(shown)
        sections.append((f"Calibration differences between groups{of}", table,
                         f"{listed_} between every pair of groups; p-values adjusted ({found.adjust}) within each "
                         "statistic and horizon.", len(table) > _FOLD_ROWS))
    return sections


def _calibration_figures(calibration: CalibrationResult, time_unit: str | None, model: str = ""
                         ) -> dict[str, tuple[Any, str]]:
    from .plots.calibration import plot_calibration, plot_observed_expected

    figures = {}
    unit = f" {time_unit}" if time_unit else ""
    of = f", {model}" if model else ""
    for t in calibration.times:
        figures[f"Calibration per group at t = {t:g}{unit}{of}"] = (
            plot_calibration(calibration, float(t), time_unit=time_unit).figure,
            "Points: bins of predicted risk against their Kaplan-Meier risk with its interval; lines: smooth "
            "calibration curves; on the dashed diagonal predicted risk equals observed risk, above it the "
            "model under-predicts the group's risk.")
        figures[f"Observed / expected risk per group at t = {t:g}{unit}{of}"] = (
            plot_observed_expected(calibration, float(t), time_unit=time_unit).figure,
            "Above 1 the model under-predicts the group's risk, below 1 it over-predicts; bars show the interval.")
    return figures


def _comparison_table(comparison: ModelComparison, found: Mapping[str, Findings]) -> pd.DataFrame:
    """Tidy: one row per model x headline quantity (the largest |Δbetween|, worst cell, pooled C)."""
    rows = []
    for name, result in comparison.results.items():
        table = _summary_table(result, found[name]).reset_index()
        deltas = oriented_pairs(found[name].deltas)
        between = deltas[deltas["summary"] == "delta_between"].dropna(subset=["value"])
        keep = table["statistic"].str.startswith(("worst cell", "pooled"))
        if not between.empty:
            largest = between["value"].abs().idxmax()
            d = between.loc[largest]
            keep |= table["statistic"] == _delta_label(d["summary"], d["a"], d["b"], bool(d["flagged"]))
        for row in table[keep].to_dict(orient="records"):
            rows.append({"model": name, **row})
    return pd.DataFrame(rows).set_index("model")


# -- the verdict: one table across models, one sentence per model ------------------------------

#: columns a model-based reference's tidy frame must have (``model_based=`` of :func:`write_report`)
MODEL_BASED_COLUMNS = ("summary", "a", "b", "observed", "model_based", "excess", "se", "ci_low", "ci_high", "p_value")


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
    >>> stub = pd.DataFrame({"summary": ["delta_between"], "a": ["F"], "b": ["M"], "observed": [-0.1],
    ...                      "model_based": [-0.02], "excess": [-0.08], "se": [0.03], "ci_low": [-0.14],
    ...                      "ci_high": [-0.02], "p_value": [0.008]})
    >>> model_based_frame(stub)["excess"].tolist()
    [-0.08]
    """
    frame = reference if isinstance(reference, pd.DataFrame) else None
    if frame is None and _is_model_based(reference):
        frame = _model_based_rows(reference)
    elif frame is None and callable(getattr(reference, "to_frame", None)):
        frame = reference.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a model-based result with a to_frame() method returning a DataFrame "
                        f"(or that DataFrame), got {type(reference).__name__}.")
    missing = [c for c in MODEL_BASED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: the model-based frame lacks the columns {missing} (needs "
                         f"{list(MODEL_BASED_COLUMNS)}).")
    return frame


def _is_model_based(reference: Any) -> bool:
    """A :class:`survfair.ModelBasedResult` (its pair table and its observed result)."""
    return callable(getattr(reference, "summaries", None)) and hasattr(reference, "observed")


def _model_based_rows(reference: Any) -> pd.DataFrame:
    """A ModelBasedResult as the report's tidy frame: its pair summaries, then its cells (summary
    "xci" or "xauc", with the excess's SE as ``se``)."""
    cells = reference.to_frame().rename(columns={"excess_se": "se"})
    cells.insert(0, "summary", "xauc" if hasattr(reference.observed, "positive") else "xci")
    return pd.concat([reference.summaries(), cells[[c for c in cells.columns if c in
                                                    ("summary", *MODEL_BASED_COLUMNS)]]], ignore_index=True)


def _excess_between(frame: pd.DataFrame) -> pd.DataFrame:
    """The excess Δbetween rows of a model-based frame as a differences table (value = excess),
    oriented like the observed Δbetween they belong to (favoured group first)."""
    rows = frame[frame["summary"] == "delta_between"]
    table = pd.DataFrame({"summary": "delta_between", "a": rows["a"].to_numpy(), "b": rows["b"].to_numpy(),
                          "value": rows["excess"].to_numpy(float), "observed": rows["observed"].to_numpy(float),
                          "ci_low": rows["ci_low"].to_numpy(float), "ci_high": rows["ci_high"].to_numpy(float),
                          "p_value": rows["p_value"].to_numpy(float)})
    return table


def _excess_for(frame: pd.DataFrame | None, a: Any, b: Any) -> tuple[float, float, float, float] | None:
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
                    f"{g} {number(v, 2)}" for g, v in summary[statistic].items())
    return cells


def verdict_table(results: Mapping[str, Any], found: Mapping[str, Findings], *,
                  model_based: Mapping[str, Any] | None = None,
                  calibration: Mapping[str, CalibrationResult] | None = None) -> pd.DataFrame:
    """The report's opening table: one row per model with its headline numbers, for a reader.

    Columns: pooled C (AUC for a binary audit) with its interval; the worst-served cell and its
    value; the largest Δbetween in the findings' orientation (favoured group first, >= 0, in
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
    >>> table.loc["score", "largest Δbetween"]  # the favoured group first
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
        row["pooled AUC" if binary else "pooled C"] = percent(pooled.value) + ("" if interval == MISSING
                                                                                else f" {interval}")
        if len(result.groups) > 1:
            smallest = min_xci(result)
            row["worst cell"] = (f"{words} ({smallest.a}, {smallest.b}) {percent(smallest.value)}"
                                 + (" †" if (smallest.a, smallest.b) in flagged else ""))
        else:
            row["worst cell"] = MISSING
        largest = _largest(f.deltas, "delta_between")
        if largest is None:
            row["largest Δbetween"], row["interval"], row[f"p ({f.adjust})"] = MISSING, MISSING, MISSING
        else:
            shown = _delta_row(largest, f.adjust, _n_resamples(result))
            row["largest Δbetween"] = (_delta_label("delta_between", largest["a"], largest["b"])
                                       + f" {shown['value']}" + (" †" if largest["flagged"] else ""))
            row["interval"], row[f"p ({f.adjust})"] = shown["interval"], shown[f"p ({f.adjust})"]
        if model_based:
            frame = model_based_frame(model_based[name], f"model_based[{name!r}]") if name in model_based else None
            excess = None if largest is None else _excess_for(frame, largest["a"], largest["b"])
            row["excess Δbetween"] = MISSING if excess is None else (
                f"{_pp(excess[0])} pts {_pp_interval(excess[1], excess[2])}".replace(f" {MISSING}", ""))
        if calibration and name in calibration:
            row.update(_calibration_cells(calibration[name]))
        rows[name or "risk score"] = row
    table = pd.DataFrame.from_dict(rows, orient="index").fillna(MISSING)
    table.index.name = "model"
    return table


def _verdict_sentence(name: str, result: Any, found: Findings, model_based: Any = None,
                      calibration: CalibrationResult | None = None) -> str:
    """One sentence per model: the largest asymmetry (favoured group first) and whether the data
    show it, the worst cell, the excess over the model-based reference and calibration when given."""
    who = name or "The model"
    binary = isinstance(result, XAUCResult)
    pooled = overall_c(result)
    parts = [f"{who}: pooled {'AUC' if binary else 'C'} {percent(pooled.value)}"]
    largest = _largest(found.deltas, "delta_between")
    if largest is not None:
        a, b = largest["a"], largest["b"]
        level = 1 - getattr(result, "confidence_level", 0.95)
        clear = (np.isfinite(largest["ci_low"]) and largest["ci_low"] > 0
                 and np.isfinite(largest["p_adjusted"]) and largest["p_adjusted"] < level)
        excess = None
        if model_based is not None:
            excess = _excess_for(model_based_frame(model_based, f"model_based[{name!r}]"), a, b)
        judged = (f"{b} is ranked worse in this pair" if clear
                  else "the data do not clearly show an asymmetry")
        if clear and excess is None:  # issue 32: an observed asymmetry alone does not blame the model
            judged += "; part or all of it may come from the groups' different risks"
        parts.append(f"largest asymmetry Δbetween({a}, {b}) = {_pp(largest['value'])} points ({judged})")
        if excess is not None:
            value, low, high, p = excess
            adjusted = _adjusted_excess_p(found, a, b)
            p = p if adjusted is None else adjusted  # judged as the findings judge it: adjusted when they adjust
            interval = f" [{_pp(low)}, {_pp(high)}]" if np.isfinite(low) and np.isfinite(high) else ""
            if np.isfinite(low) and (low > 0 or high < 0) and np.isfinite(p) and p < level:
                parts.append(f"excess {_pp(value)} points{interval} over what the model's own predictions imply")
            else:
                parts.append(f"no clear excess over what the model's own predictions imply (excess "
                             f"{_pp(value)} points{interval})")
    if len(result.groups) > 1:
        smallest = min_xci(result)
        parts.append(f"worst-served cell ({smallest.a}, {smallest.b}) at {percent(smallest.value)}")
    if calibration is not None:
        t = float(calibration.times[0])
        oe = calibration.summary(t)["oe_ratio"]
        parts.append(f"O/E at t = {t:g}: " + ", ".join(f"{g} {number(v, 2)}" for g, v in oe.items()))
    return "; ".join(parts) + "."


def _settings_table(result: XCIResult | XAUCResult | None, settings: Mapping[str, Any] | None) -> pd.DataFrame:
    """The estimator's settings once, in words; the caller's settings add to them (a caller's key
    that names the same setting, spelt with spaces or underscores, replaces it)."""
    items: dict[str, Any] = {}
    if isinstance(result, XAUCResult):
        items.update({"metric": "xAUC (binary outcome)", "positive label": result.positive,
                      "tied tolerance": result.tied_tol})
    elif result is not None:
        items.update({"method": result.method, "tau": result.tau, "censoring curves": result.censoring,
                      "tied tolerance": result.tied_tol, "strict": result.strict})
        if result.n_clusters is not None:
            items["cluster"] = f"{result.n_clusters} clusters (cluster-robust intervals)"
        if result.delayed_entry:
            items["entry"] = "delayed entry: pairs and censoring risk sets on (entry, time]"
        if result.weighted:
            items["weights"] = "case weights (sampling weights): pairs weigh w_i w_j"
        if result.cause is not None:
            items["cause of interest"] = (f"{result.cause}: cause-specific xCI under competing risks (Wolbers et al. "
                                          "2014); competing events are events of the censoring fit")
    if result is not None:
        items.update({"intervals": result.ci_method or "none", "confidence level": percent(result.confidence_level, 0)})
    key = lambda text: str(text).replace("_", " ").lower()  # noqa: E731
    known = {key(k): k for k in items}
    for name, value in (settings or {}).items():
        items.pop(known.get(key(name), None), None)
        items[str(name)] = value
    frame = pd.DataFrame({"value": [("None" if v is None else str(v)) for v in items.values()]}, index=list(items))
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
        if column.dtype.kind in "biuf":  # numbers as little-endian float64: the same on every machine
            digest.update(np.asarray(column, dtype="<f8").tobytes())
        else:  # labels as text, one unit separator between values
            digest.update("\x1f".join(map(str, column)).encode("utf-8"))
    return digest.hexdigest()


def _provenance_table(result: XCIResult | XAUCResult, provenance: Mapping[str, Any] | None, version: str,
                      stamp: str) -> pd.DataFrame:
    items: dict[str, Any] = {"survfair": version, "generated": stamp}
    items.update({str(k): v for k, v in (provenance or {}).items()})
    items.setdefault("rows analysed", result.n_samples)
    excluded = getattr(result, "n_excluded", 0)
    if excluded:
        items.setdefault("rows excluded", f"{excluded} (their group is not among the groups analysed)")
    frame = pd.DataFrame({"value": [str(v) for v in items.values()]}, index=list(items))
    frame.index.name = "item"
    return frame


def _fmt(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):d}"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if float(value).is_integer() and abs(value) < 1e15:
            return f"{int(value):d}"
        if abs(value) >= 1e3:
            return f"{value:.1f}"
        if abs(value) < 1e-3:
            return f"{value:.3g}"
        return f"{value:.4f}"
    return str(value)


_NUMBER_START = re.compile(r"^\s*[-+<>≤\[–\d]")


def _is_text(value: Any) -> bool:
    """Words are left-aligned, numbers (also formatted ones: "84.1%", "< 0.001", "[1.2, 3.4]") right."""
    return isinstance(value, str) and not _NUMBER_START.match(value)


#: Columns of words whatever they start with ("4 events in F (< 10)"): left-aligned, wrapped
_TEXT_COLUMNS = ("flag", "reason")


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    index_name = html.escape(str(frame.index.name or ""))
    words = [str(c) in _TEXT_COLUMNS for c in frame.columns]
    body = []
    for index, row in frame.iterrows():
        cells = "".join(
            f'<td{" class=label" if text or _is_text(v) else ""}>{html.escape(_fmt(v))}</td>'
            for v, text in zip(row, words)
        )
        body.append(f"<tr><th class=label>{html.escape(str(index))}</th>{cells}</tr>")
    return f"<table><thead><tr><th class=label>{index_name}</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


# Markdown output: every string that can come from the user (title, table and figure names, the
# header, index and cells of every table -- group labels, model names, settings values) goes
# through _md_text; only our own fixed notes are written as Markdown on purpose.
# * "&", "<", ">" (and quotes) become HTML entities (html.escape, as in the HTML report): a group
#   named "<script>..." or "<img onerror=...>" is shown as text, never passed through as raw HTML
#   by a renderer that allows it (CommonMark, GitHub, MkDocs); "&" cannot start an entity either.
# * The inline Markdown punctuation \ ` * _ [ ] | # is backslash-escaped (CommonMark, GFM and
#   Python-Markdown all accept these escapes), so "*a*" is not emphasis, "[x](y)" not a link, "`"
#   not code and "|" cannot split a table cell. "$" and "~" become the numeric references &#36;
#   and &#126; instead: Python-Markdown keeps the backslash of "\$" / "\~" visible, and a
#   reference is never a delimiter, so "$0-$50k" is not maths where $...$ is LaTeX (GitHub, MkDocs
#   with arithmatex) and "~a~" not strikethrough (GFM). Characters that only matter at the start
#   of a line (-, +, 1.) are left alone: no user string starts a line ("| " or "## " does).
# * Line breaks become "<br>" in a table cell and a space in a heading or caption, so a label
#   cannot end a table row or a heading.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#])")
_MD_REFERENCES = str.maketrans({"$": "&#36;", "~": "&#126;"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _md_text(text: Any, *, cell: bool = False) -> str:
    """``text`` escaped for Markdown (see the comment above): shown literally, never as markup."""
    escaped = html.escape(_MD_SPECIAL.sub(r"\\\1", str(text))).translate(_MD_REFERENCES)
    return _LINE_BREAK.sub("<br>" if cell else " ", escaped)


def _md_table(frame: pd.DataFrame) -> str:
    header = [str(frame.index.name or "")] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(_md_text(h, cell=True) for h in header) + " |", "|" + "---|" * len(header)]
    for index, row in frame.iterrows():
        cells = [str(index)] + [_fmt(v) for v in row]
        lines.append("| " + " | ".join(_md_text(x, cell=True) for x in cells) + " |")
    return "\n".join(lines)


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


#: Kallus & Zhou (2019), Fig. 2: one curve per ordered pair; beyond 12 curves (G > 4) unreadable.
_XROC_MAX_CURVES = 12


def _xroc_note(result: XAUCResult) -> str | None:
    """Why the report has no xROC figure, or None when it has one."""
    g = len(result.groups)
    if result.rows is None:
        return "No xROC figure: the result does not carry the scores of its rows (compute it with survfair.xauc)."
    if g * (g - 1) > _XROC_MAX_CURVES:
        return (f"No xROC figure: {g} groups have {g * (g - 1)} ordered pairs, more curves than one figure can show "
                f"readably (at most {_XROC_MAX_CURVES}, i.e. 4 groups). Draw chosen pairs with "
                "survfair.plotting.plot_xroc(survfair.xroc(result, a, b)).")
    return None


def _xroc_figure(result: XAUCResult) -> Any:
    """xROC curves of the off-diagonal cells (their areas are the cells), or None when not drawable."""
    import matplotlib.pyplot as plt

    from .._binary.xroc import xroc
    from .plots.figures import plot_xroc

    sizes = result.group_sizes
    pairs = [
        (a, b) for a in result.groups for b in result.groups
        if a != b and sizes[a]["positives"] > 0 and sizes[b]["negatives"] > 0
    ]
    if result.rows is None or not pairs or len(pairs) > _XROC_MAX_CURVES:
        return None
    curves = {}
    for a, b in pairs:
        curve = xroc(result, a, b)
        curves[f"xROC({a}, {b}), area {result.matrix.loc[a, b]:.3f}"] = (curve.fpr, curve.tpr)
    fig, ax = plt.subplots(figsize=(4.8, 4.8), layout="constrained")
    plot_xroc(curves, ax=ax)
    ax.set_title("xROC: positives of a vs negatives of b")
    return fig


_CAPTIONS = {
    "heatmap": "How to read: each cell is how often the model ranked the member with the earlier event "
               "(row group) above the later member (column group); 50% is chance. Every heatmap of this "
               "report uses the same colour scale (red below chance, blue above); † marks cells that rest "
               "on little data.",
    "heatmap_binary": "How to read: each cell is how often a positive of the row group was scored above a "
                      "negative of the column group; 50% is chance. One colour scale for every heatmap; † marks "
                      "cells that rest on little data.",
    "difference": "How to read: each cell (a, b) is xCI(a, b) − xCI(b, a) in percentage points, the Δbetween "
                  "of the pair: positive (purple) when members of the row group who had the event first were ranked "
                  "correctly more often than members of the column group who had it first; white is no difference. "
                  "Every difference heatmap of this report uses the same scale.",
    "difference_binary": "How to read: each cell (a, b) is xAUC(a, b) − xAUC(b, a) in percentage points, the "
                         "ΔxAUC of the pair: positive (purple) when positives of the row group were scored above "
                         "negatives of the column group more often than the reverse; white is no difference.",
    "excess": "How to read: each cell is the observed cell minus what the model's own predictions imply "
              "(model-based), in percentage points; white is no excess. Same scale as the other difference "
              "heatmaps.",
    "forest": "How to read: each line is a difference between two groups with its interval; a line that "
              "crosses 0 is compatible with no difference.",
    "censoring": "How to read: the probability of remaining uncensored (still under observation) over time, "
                 "per group. IPCW weights are 1/K², so where a curve is low the weights are large and the "
                 "estimate unstable.",
    "xroc": "How to read: each curve trades the positives of group a found (up) against the negatives of "
            "group b flagged (right); its area is the xAUC cell.",
}


def _oriented_forest_table(comparison: ModelComparison) -> pd.DataFrame:
    """The comparison's wide table with each Δ pair oriented as the first model's findings (its
    favoured group first): one orientation per row of the forest plot, the same for every model."""
    table = comparison.table.copy()
    first = table.index[0]
    groups = list(comparison.groups)
    for i, a in enumerate(groups):
        for b in groups[i + 1:]:
            for summary in ("delta_between", "delta_within"):
                name = f"{summary}[{a},{b}]"
                if name not in table or not table.loc[first, name] < 0:
                    continue
                mirror = f"{summary}[{b},{a}]"
                renamed = {name: mirror, f"{name}_p_value": f"{mirror}_p_value"}
                table[name] = -table[name]
                if f"{name}_ci_low" in table and f"{name}_ci_high" in table:
                    low, high = table[f"{name}_ci_low"].copy(), table[f"{name}_ci_high"].copy()
                    table[f"{name}_ci_low"], table[f"{name}_ci_high"] = -high, -low
                    renamed.update({f"{name}_ci_low": f"{mirror}_ci_low", f"{name}_ci_high": f"{mirror}_ci_high"})
                table = table.rename(columns=renamed)
    return table


def _default_figures(result: XCIResult | XAUCResult, comparison: ModelComparison | None,
                     flags: Mapping[str, pd.DataFrame], time_unit: str | None,
                     model_based: Mapping[str, pd.DataFrame] | None = None,
                     ) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """Titled figures with their one-sentence caption, and notes on the figures left out."""
    import matplotlib.pyplot as plt

    from .plots.figures import plot_censoring_curves, plot_forest, plot_xci_difference, plot_xci_heatmap

    binary = isinstance(result, XAUCResult)
    caption = _CAPTIONS["heatmap_binary" if binary else "heatmap"]
    figures: dict[str, tuple[Any, str]] = {}
    # one heatmap per figure, drawn with the plotting module's fixed colour scale, so that equal
    # colours mean equal numbers across the models of a report
    results = comparison.results if comparison is not None else {"": result}
    for name, res in results.items():
        title = f"{'xAUC' if binary else 'xCI'} matrix" + (f", {name}" if name else "")
        figures[title] = (plot_xci_heatmap(res, title=name or None, flags=flags[name]).figure, caption)
    # the differences on a diverging scale centred on 0, one limit for every difference heatmap
    metric = "xAUC" if binary else "xCI"
    references = {name: _cell_matrices(frame, results[name].groups) for name, frame in (model_based or {}).items()
                  if name in results}
    references = {name: pair for name, pair in references.items() if pair is not None}
    matrices = [res.values - res.values.T for res in results.values() if len(res.groups) > 1]
    matrices += [observed.to_numpy() - reference.to_numpy() for observed, reference in references.values()]
    limit = difference_limit(matrices)
    for name, res in results.items():
        if len(res.groups) > 1:
            title = f"{metric}(a, b) − {metric}(b, a)" + (f", {name}" if name else "")
            figures[title] = (plot_xci_difference(res, limit=limit, title=title).figure,
                              _CAPTIONS["difference_binary" if binary else "difference"])
        if name in references:
            observed, reference = references[name]
            title = "Observed − model-based" + (f", {name}" if name else "")
            # the reference's own observed − model-based, drawn on the result's labels: the result
            # minus (result − excess) is the excess
            excess = (observed - reference).to_numpy()
            shifted = pd.DataFrame(res.values - excess, index=res.matrix.index, columns=res.matrix.columns)
            figures[title] = (plot_xci_difference(res, shifted, limit=limit, title=title).figure,
                              _CAPTIONS["excess"])
    if comparison is not None:
        figures["Δbetween and Δwithin per model"] = (
            plot_forest(_oriented_forest_table(comparison), flags=dict(flags)).figure, _CAPTIONS["forest"])
    notes = []
    if binary:
        fig = _xroc_figure(result)
        if fig is not None:
            figures["xROC curves per pair of groups"] = (fig, _CAPTIONS["xroc"])
        elif _xroc_note(result):
            notes.append(_xroc_note(result))
    elif result.censoring_curves is not None:
        fig, ax = plt.subplots(figsize=(6.0, 3.8), layout="constrained")
        plot_censoring_curves(result, ax=ax, time_unit=time_unit)
        figures["Probability of remaining uncensored per group"] = (fig, _CAPTIONS["censoring"])
    return figures, notes


#: Tables longer than this are folded (<details>) so that the page stays readable.
_FOLD_ROWS = 24


#: the columns of the joint tests in the body of the report; the rest are in the appendix
_TEST_COLUMNS = ["chi-square", "df", "p", "contrasts"]


def _sections(result, comparison, found, flags, horizons, horizon_found, time_unit, min_events):
    """(title, table, note, collapsed) of the result sections in reading order, and of the
    appendix (joint tests in detail, cells, pair counts)."""
    binary = isinstance(result, XAUCResult)
    metric = "xAUC" if binary else "xCI"
    sections, appendix = [], []
    for name, res in (comparison.results.items() if comparison is not None else [("", result)]):
        suffix = f": {name}" if name else ""
        sections += [
            (f"{metric} matrix{suffix}", _matrix_table(res, found[name].flagged_cells),
             "In percent; rows are the group of the " + ("positive" if binary else "member with the earlier event")
             + ", columns the group of the " + ("negative." if binary else "later member.")
             + " † marks a cell resting on little data (see the cells in the appendix).", False),
            (f"Differences between groups{suffix}", differences := _summary_table(res, found[name]),
             "Differences in percentage points with their interval; p is the two-sided p-value of 'no difference', "
             f"adjusted ({found[name].adjust}) within each family (all Δbetween pairs; all Δwithin pairs). The "
             "interval of the worst cell is that cell's own (it does not account for having picked the minimum). "
             "† marks a difference that uses a cell resting on little data (see the cells in the appendix); 'no interval: "
             "standard error 0' where both cells were estimated without sampling variability.",
             len(differences) > _FOLD_ROWS),
            (f"Joint tests{suffix}", (tests := _tests_table(res, found[name]))[_TEST_COLUMNS],
             "Wald chi-square tests of several differences at once (survfair.omnibus_test); what each test leaves "
             "out is in the appendix.", False),
        ]
        appendix += [
            (f"Appendix: joint tests in detail{suffix}", tests,
             "'degenerate' counts directions without first-order variance, which are left out of the degrees of "
             "freedom; differences that use an undefined cell or a cell with standard error 0 (no variance "
             "estimate) are left out of the test.", False),
            (f"Appendix: cells{suffix}", _cells_table(res, flags[name]),
             "Every cell with its interval, the comparable pairs it rests on, and why it is flagged († ). A cell "
             "with standard error 0 (every pair ranked the same way) has no estimate of its sampling variability: "
             "it is shown without an interval.", True),
        ]
    if binary and result.rows is not None:
        sections.append(("Balanced xAUC", _balanced_table(result, min_events),
                         "Kallus & Zhou 2019, Definition 3: xauc1 = P[R_1^a > R_0], the positives of group a "
                         "against all negatives; xauc0 = P[R_1 > R_0^a], all positives against the negatives of "
                         f"group a. † marks a value resting on fewer than {min_events} positives (xauc1) or "
                         "negatives (xauc0) of the group.", False))
    for name, curve in (horizons or {}).items():
        suffix = f": {name}" if name else ""
        table = _horizon_table(curve, horizon_found[name], time_unit)
        cases, controls = case_control_definition(curve)
        sections.append((f"AUC(t) by horizon{suffix}", table,
                         f"Cumulative/dynamic AUC(t) between groups: cases ({cases}) of group a against controls "
                         f"({controls}) of group b, in percent with the interval; † marks a cell resting on "
                         "little data, with the reason.", len(table) > _FOLD_ROWS))
        deltas = _horizon_delta_table(horizon_found[name], time_unit)
        sections.append((f"AUC(t) differences between groups{suffix}", deltas,
                         "Δbetween (a, b) = AUC(t) of cases of a against controls of b minus the reverse; Δwithin "
                         "(a, b) = AUC(t) inside a minus inside b; percentage points with their interval, p-values "
                         f"adjusted ({horizon_found[name].adjust}) over every horizon and pair of each family; † "
                         "marks a difference that uses a flagged cell.", len(deltas) > _FOLD_ROWS))
    ratio = "xauc = (concordant + tied_score / 2) / pairs" if binary else "xci = numerator / denominator"
    for name, res in (comparison.results.items() if comparison is not None else [("", result)]):
        counts = res.counts.set_index(["a", "b"])
        counts.index = [f"{a} → {b}" for a, b in counts.index]
        counts.index.name = "a → b"
        appendix.append((f"Appendix: pair counts{': ' + name if name else ''}", counts,
                         f"Counts first, ratios last: {ratio}.", True))
    return sections, appendix


def write_report(
    result: XCIResult | XAUCResult | ModelComparison,
    path: str | Path,
    *,
    settings: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    horizons: Any = None,
    calibration: CalibrationResult | Mapping[str, CalibrationResult] | None = None,
    model_based: Any = None,
    data_summary: pd.DataFrame | None = None,
    extra_tables: Mapping[str, pd.DataFrame] | None = None,
    figures: Mapping[str, Any] | None = None,
    title: str = "survfair audit report",
    default_figures: bool = True,
    adjust: str = "holm",
    min_events: int = 10,
    min_pairs: int = 100,
    time_unit: str | None = None,
) -> Path:
    """Write an audit report: one self-contained HTML file, or Markdown (by the file extension).

    The report reads top to bottom for a reader who did not run the audit. It opens with the
    **verdict**: one table across models (:func:`verdict_table`: pooled C, worst cell, the largest
    Δbetween with its interval and adjusted p-value, the excess Δbetween over a model-based
    reference when given, O/E and slope per group when calibration is given) and one sentence per
    model. Then the **findings** (:func:`survfair.findings` for every model, then calibration and
    AUC(t)), how to read the matrix, the provenance (survfair version, date, the call or command,
    input file and fingerprint, rows analysed and excluded), the settings, the data summary, and
    per model the matrix in percent, the differences between groups with adjusted p-values and the
    joint tests; AUC(t) horizons, the balanced xAUC and calibration per model when given; then the
    figures, each with a one-sentence caption on how to read it: the cell heatmaps on one fixed
    0-1 scale and, per model, the differences xCI(a, b) − xCI(b, a) on a diverging scale centred
    on 0 (:func:`survfair.plotting.plot_xci_difference`; observed − model-based as well when
    given). Internals close the report in an **appendix**: tie tolerance and strictness, censoring
    shares and the smallest censoring survival, the joint tests' degenerate and left-out
    contrasts, every cell with its flag, and the pair counts.

    Every pair of groups is shown in the orientation of the findings: the favoured group first,
    so that Δbetween and Δwithin are >= 0 (:func:`oriented_pairs`); the sentences and the tables
    read the same.

    Tables sit in boxes that scroll sideways on a narrow screen (a phone, 390 px), so the page
    itself never does; long tables are folded (``<details>``).

    For a binary audit (an :class:`~survfair.XAUCResult`) the same sections hold the xAUC matrix
    (rows a = group of the positive, columns b = group of the negative; Kallus & Zhou 2019) with
    its DeLong intervals, ΔxAUC (:func:`survfair.delta_between`) and the difference of within-group
    AUCs, the balanced xAUCs and the xROC curves.

    Every user string (group labels, model names, settings, table cells, titles) is shown as
    text: HTML-escaped in both formats and Markdown-escaped in ``.md``, and drawn literally in
    the figures (a ``$`` in a label is a dollar sign, not mathtext).

    Parameters
    ----------
    result : XCIResult, XAUCResult or ModelComparison
        What to report. For a ModelComparison every model gets its findings, matrix and tables;
        the data summary and censoring curves are those of the first model (the same data).
    path : str or Path
        ``*.html`` / ``*.htm``: one file, figures embedded as base64 PNG, inline CSS, no script and
        no external resource. ``*.md``: Markdown; figures are written as PNG files to the folder
        ``<stem>_files/`` next to it and linked relatively. (Before 0.2 the path came first:
        ``write_report(path, result)`` still works, with a warning, until 0.3.)
    settings : mapping, optional
        Settings to show beside the estimator's own (a key naming one of those replaces it).
    provenance : mapping, optional
        Where the numbers come from: e.g. ``{"command": ..., "data": "cohort.csv", "data SHA-256":
        data_fingerprint(frame[columns])}``; survfair's version, the date and the rows analysed
        and excluded are added.
    horizons : XAUCtResult or mapping of str -> XAUCtResult, optional
        AUC(t) results (:func:`survfair.xauc_t`) to tabulate, by model name.
    calibration : CalibrationResult or mapping of str -> CalibrationResult, optional
        Calibration of the predicted risks within groups (:func:`survfair.calibration`), one per
        model: ``{model name: CalibrationResult}`` (a single CalibrationResult is that of the one
        model, or of all models of a comparison). Each calibration's findings
        (:func:`survfair.calibration_findings`) follow the discrimination findings, under a heading
        that names its model; its tables per horizon and its contrasts follow the result's
        sections; its plots join the figures; O/E and slope per group enter the verdict table of
        the model of that name.
    model_based : ModelBasedResult or mapping of str -> ModelBasedResult, optional
        A model-based reference per model (what the model's own predictions imply,
        :func:`survfair.model_based_xci`), by model name (one alone is that of the single model; a
        ``ModelBasedResult`` passed as ``result`` is its own reference). The findings then lead with
        the excess asymmetry. Also accepted: anything with a ``to_frame()`` method
        returning a tidy frame with the columns summary, a, b, observed, model_based, excess, se,
        ci_low, ci_high, p_value (:func:`model_based_frame`), or that frame itself. Rows with
        summary "delta_between" fill the verdict's "excess Δbetween" column and a table of the
        excess per pair; rows with summary "xci" (or "xauc": the cells) add a heatmap of
        observed − model-based.
    data_summary : DataFrame, optional
        Replaces the default per-group summary (:func:`data_summary_table`); formatted the same
        way (``*_pct`` columns as percentages with one decimal, ``min_censoring_survival`` with
        three digits); the censoring columns are shown in the appendix.
    extra_tables : mapping of str -> DataFrame, optional
        Additional titled tables, shown after the result's.
    figures : mapping of str -> matplotlib Figure, optional
        Additional titled figures, shown after the default ones.
    title : str, default="survfair audit report"
    default_figures : bool, default=True
        Whether to draw the default figures (needs matplotlib).
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        p-value adjustment within each family of differences.
    min_events, min_pairs : int, default=10 and 100
        Cells below either are flagged (:func:`survfair.small_sample_flags`).
    time_unit : str, optional
        Unit of the time axis of the censoring figure (e.g. "days").

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    TypeError
        If ``result`` is not an XCIResult, an XAUCResult or a ModelComparison, ``calibration`` is not
        a CalibrationResult or a mapping of them, a ``model_based`` entry has no ``to_frame()``, or a
        table is not a DataFrame.
    ValueError
        If the extension of ``path`` is not .html, .htm or .md, ``adjust`` or the thresholds are
        invalid, or a model-based frame lacks columns.

    See Also
    --------
    survfair.findings : the sentences that follow the verdict.
    verdict_table : the opening table.
    data_fingerprint : the SHA-256 of the analysed columns, for ``provenance``.

    Examples
    --------
    >>> import tempfile, pathlib, survfair
    >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab"),
    ...                    [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> text = write_report(res, folder / "audit.md", default_figures=False).read_text(encoding="utf-8")
    >>> text.index("## Verdict") < text.index("## Findings") < text.index("## Appendix: estimator internals")
    True
    """
    if isinstance(result, (str, os.PathLike)) and not isinstance(path, (str, os.PathLike)):  # the old order
        warn_once(("write_report", "order"), "write_report(path, result) is deprecated: use write_report(result, "
                  f"path); the old order will be refused in survfair {REMOVED_IN}.", stacklevel=2)
        result, path = path, result
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise ValueError(f"path must end in .html, .htm or .md, got {path.name!r}.")
    if _is_model_based(result):  # a ModelBasedResult: its observed result, with itself as the reference
        result, model_based = result.observed, result if model_based is None else model_based
    if isinstance(result, ModelComparison):
        comparison, main = result, next(iter(result.results.values()))
        results = dict(result.results)
    elif isinstance(result, (XCIResult, XAUCResult)):
        comparison, main = None, result
        results = {"": result}
    else:
        raise TypeError(
            f"result must be an XCIResult, an XAUCResult or a ModelComparison, got {type(result).__name__}."
        )
    for name, table in (extra_tables or {}).items():
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"extra_tables[{name!r}] must be a DataFrame, got {type(table).__name__}.")
    if horizons is not None and not isinstance(horizons, Mapping):
        horizons = {"": horizons}
    # by the name the sections show (a mapping's keys; "" for a single CalibrationResult), and by
    # the model of the verdict row they belong to
    calibrations = ({"" if k is None else str(k): v for k, v in calibration.items()} if isinstance(calibration, Mapping)
                    else {} if calibration is None else {"": calibration})
    calibrated_models = _per_model(calibration, results, "calibration")
    for name, cal in calibrations.items():
        if not isinstance(cal, CalibrationResult):
            where = "calibration" if calibration is cal else f"calibration[{name!r}]"
            raise TypeError(f"{where} must be a CalibrationResult, got {type(cal).__name__}.")
    references = _per_model(model_based, results, "model_based")
    reference_frames = {name: model_based_frame(ref, f"model_based[{name!r}]" if name else "model_based")
                        for name, ref in references.items()}
    found = {name: findings(res, adjust=adjust, min_events=min_events, min_pairs=min_pairs,
                            model_based=references[name] if _is_model_based(references.get(name)) else None)
             for name, res in results.items()}
    flags = {name: f.flags for name, f in found.items()}
    headings: dict[str, Any] = dict(found)
    horizon_found = {name: horizon_findings(curve, adjust=adjust, min_events=min_events, min_pairs=min_pairs,
                                            time_unit=time_unit) for name, curve in (horizons or {}).items()}
    headings.update({f"AUC(t){': ' + name if name else ''}": f for name, f in horizon_found.items()})
    calibration_found = {name: calibration_findings(cal, adjust=adjust, min_events=min_events, time_unit=time_unit)
                         for name, cal in calibrations.items()}
    headings.update({f"calibration{': ' + name if name else ''}": f for name, f in calibration_found.items()})

    from .._core.version import __version__

    binary = isinstance(main, XAUCResult)
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")  # one time for the header and the provenance
    summary_note = (
        "Per group: rows analysed, positives, negatives and the share of positives."
        if binary
        else "Per group: rows analysed and events"
        + (" of the cause of interest, competing events (other causes)" if getattr(main, "cause", None) else "")
        + "; how many rows were censored, and the smallest censoring survival used as a weight, are in the appendix."
    )
    summary = _for_people(data_summary if data_summary is not None else data_summary_table(main))
    internals = [c for c in summary.columns if str(c).startswith("censored") or c == "min_censoring_survival"]
    settings_main, settings_internal = _split_settings(_settings_table(main, settings))
    verdict = verdict_table(results, found, model_based=reference_frames, calibration=calibrated_models)
    sentences = [_verdict_sentence(name, res, found[name], reference_frames.get(name), calibrated_models.get(name))
                 for name, res in results.items()]
    tables: list[tuple[str, pd.DataFrame, str, bool]] = [
        ("Provenance", _provenance_table(main, provenance, __version__, stamp), "", False),
        ("Settings", settings_main, "Estimator internals (" + ", ".join(settings_internal.index)
         + ") are in the appendix." if len(settings_internal) else "", False),
        ("Data summary", summary.drop(columns=internals), summary_note, False),
    ]
    sections, appendix = _sections(main, comparison, found, flags, horizons, horizon_found, time_unit, min_events)
    for name, frame in reference_frames.items():
        excess = _excess_table(frame, found[name])
        if not excess.empty:
            sections.append((f"Excess Δbetween over the model-based reference{': ' + name if name else ''}", excess,
                             "Observed Δbetween, what the model's own predictions imply (model-based), and the "
                             "excess = observed − model-based, in percentage points, each pair oriented as in the "
                             "findings (favoured group first).", len(excess) > _FOLD_ROWS))
    for name, cal in calibrations.items():
        sections += _calibration_sections(cal, calibration_found[name], time_unit, name)
    tables += sections
    for name, table in (extra_tables or {}).items():
        tables.append((str(name), table, "", False))
    appendix = [
        *([("Appendix: estimator internals", settings_internal,
            "The tie tolerance decides when two risk scores count as tied (a tied pair counts 1/2); strict = True "
            "is the paper's variant that counts only pairs with distinct times, and ties as 0.", False)]
          if len(settings_internal) else []),
        *([("Appendix: censoring per group", summary[internals], "Censored rows and their share per group"
            + ("; min_censoring_survival is the smallest censoring survival K_g used as an IPCW weight "
               "(positivity: weights up to 1/K^2)." if "min_censoring_survival" in internals else "."), False)]
          if internals else []),
        *appendix,
    ]

    drawn, figure_notes = ({}, [])
    if default_figures:
        drawn, figure_notes = _default_figures(main, comparison, flags, time_unit, reference_frames)
        for name, cal in calibrations.items():
            drawn.update(_calibration_figures(cal, time_unit, name))
    drawn.update({name: (fig, name) for name, fig in (figures or {}).items()})
    images = {name: (_png(fig), caption) for name, (fig, caption) in drawn.items()}
    if default_figures:
        import matplotlib.pyplot as plt

        for name, (fig, _) in drawn.items():
            if name not in (figures or {}):
                plt.close(fig)

    meta = f"survfair {__version__}, {stamp}"
    note_html, note_md = _notes(main)
    verdict_note = ("One row per model: "
                    + ("pooled AUC" if binary else "pooled C") + ", the worst-served cell, and the largest "
                    "cross-group asymmetry Δbetween (favoured group first, in percentage points) with its interval "
                    "and adjusted p-value" + ("; excess Δbetween = observed − model-based" if reference_frames else "")
                    + ("; calibration: observed / expected risk (O/E, 1 = right on average) and slope (1 = right "
                       "spread) per group" if calibrations else "")
                    + ". † marks a number that uses a cell resting on little data.")
    parts = {"verdict": (verdict, verdict_note, sentences), "headings": headings, "tables": tables,
             "appendix": appendix}
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".md":
        path.write_text(_markdown(path, title, meta, note_md, parts, images, figure_notes), encoding="utf-8")
    else:
        path.write_text(_html(title, meta, note_html, parts, images, figure_notes), encoding="utf-8")
    return path


def _per_model(value: Any, results: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``calibration=`` / ``model_based=`` as {model name: value}: a mapping as given; a single
    value is the one model's (a single calibration of a comparison belongs to no model: key "")."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        if len(results) == 1 and len(value) == 1 and next(iter(value)) not in results:
            return {next(iter(results)): next(iter(value.values()))}  # the only model, by another name
        named = {"" if k is None else str(k): v for k, v in value.items()}
        unknown = [k for k in named if k not in results and not (name == "calibration" and k == "")]
        if name == "model_based" and unknown:
            raise ValueError(f"model_based names no model of the result: {unknown} (models: {list(results)}).")
        return named
    if len(results) == 1:
        return {next(iter(results)): value}
    if name == "calibration":
        return {"": value}
    raise TypeError(f"{name} must be a mapping {{model name: result}} for a comparison of {len(results)} models, "
                    f"got {type(value).__name__}.")


#: settings that are the estimator's internals: shown in the appendix
_INTERNAL_SETTINGS = ("tied tolerance", "strict")


def _split_settings(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    internal = table.index.isin(_INTERNAL_SETTINGS)
    return table[~internal], table[internal]


def _adjusted_excess_p(found: Findings, a: Any, b: Any) -> float | None:
    """The adjusted p-value of the excess Δbetween of (a, b) in either order, as the findings
    adjusted it (within the family of excess asymmetries); None when the findings have none."""
    row = pair_row(found.excess, a, b, ())
    return None if row is None else float(row["p_adjusted"])


def _excess_table(frame: pd.DataFrame, found: Findings) -> pd.DataFrame:
    """Per pair: observed, model-based and excess Δbetween in points, oriented as the findings."""
    rows = []
    observed = oriented_pairs(found.deltas)
    observed = observed[observed["summary"] == "delta_between"]
    between = frame[frame["summary"] == "delta_between"]
    for row in observed.itertuples(index=False):
        pair = pair_row(between, row.a, row.b, _EXCESS_VALUES)
        if pair is None:
            continue
        adjusted = _adjusted_excess_p(found, row.a, row.b)
        rows.append({"pair": _delta_label("delta_between", row.a, row.b),
                     "observed": _pp(float(pair["observed"])) + " pts",
                     "model-based": _pp(float(pair["model_based"])) + " pts",
                     "excess": _pp(float(pair["excess"])) + " pts",
                     "interval": _pp_interval(float(pair["ci_low"]), float(pair["ci_high"])),
                     "p": p_value_text(pair["p_value"]),
                     f"p ({found.adjust})": MISSING if adjusted is None else p_value_text(adjusted)})
    return pd.DataFrame(rows).set_index("pair") if rows else pd.DataFrame()


def _cell_matrices(frame: pd.DataFrame, groups: tuple) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(observed, model-based) cell matrices of a model-based frame, or None without cell rows."""
    cells = frame[frame["summary"].isin(["xci", "xauc"])]
    if cells.empty:
        return None
    labels = [str(g) for g in groups]
    cells = cells.assign(a=cells["a"].astype(str), b=cells["b"].astype(str))
    return tuple(cells.pivot(index="a", columns="b", values=column).reindex(index=labels, columns=labels)
                 .astype(float) for column in ("observed", "model_based"))


def _findings_heading(name: str) -> str:
    return f"Findings: {name}" if name else "Findings"


def _wrapped(table_html: str) -> str:
    """A table in a box that scrolls sideways, so that a wide table never widens the page."""
    return f'<div class="scroll">{table_html}</div>'


def _markdown(path: Path, title, meta, note, parts, images, figure_notes=()) -> str:
    folder = path.parent / f"{path.stem}_files"
    lines = [f"# {_md_text(title)}", "", f"_Generated by {meta}._", ""]
    verdict, verdict_note, sentences = parts["verdict"]
    lines += ["## Verdict", "", _md_text(verdict_note), "", _md_table(verdict), ""]
    lines += [f"- {_md_text(sentence)}" for sentence in sentences] + [""]
    for name, f in parts["headings"].items():
        lines += [f"## {_md_text(_findings_heading(name))}", ""]
        lines += [f"- {_md_text(sentence)}" for sentence in f.sentences] + [""]
    lines += ["## How to read", "", note, ""]
    for name, table, text, _ in parts["tables"]:
        lines += [f"## {_md_text(name)}", ""] + ([_md_text(text), ""] if text else []) + [_md_table(table), ""]
    if images or figure_notes:
        lines += ["## Figures", ""] + [f"{_md_text(text)}\n" for text in figure_notes]
    if images:
        folder.mkdir(exist_ok=True)
        for k, (name, (png, caption)) in enumerate(images.items()):
            file = folder / f"figure_{k + 1}.png"
            file.write_bytes(png)
            lines += [f"![{_md_text(name)}]({folder.name}/{file.name})", "",
                      f"*{_md_text(name)}.* {_md_text(caption) if caption != name else ''}".rstrip(), ""]
    for name, table, text, _ in parts["appendix"]:
        lines += [f"## {_md_text(name)}", ""] + ([_md_text(text), ""] if text else []) + [_md_table(table), ""]
    return "\n".join(lines)


def _html_section(name: str, table: pd.DataFrame, note: str, collapsed: bool) -> list[str]:
    body = [f"<h2>{html.escape(name)}</h2>"]
    if note:
        body.append(f'<p class="note">{html.escape(note)}</p>')
    if collapsed:
        body.append(f"<details><summary>{len(table)} rows (click to show)</summary>"
                    f"{_wrapped(_html_table(table))}</details>")
    else:
        body.append(_wrapped(_html_table(table)))
    return body


def _html(title, meta, note, parts, images, figure_notes=()) -> str:
    body = [f"<h1>{html.escape(title)}</h1>", f'<p class="meta">Generated by {html.escape(meta)}.</p>']
    verdict, verdict_note, sentences = parts["verdict"]
    body += ["<h2>Verdict</h2>", f'<p class="note">{html.escape(verdict_note)}</p>', _wrapped(_html_table(verdict)),
             '<ul class="verdict">' + "".join(f"<li>{html.escape(s)}</li>" for s in sentences) + "</ul>"]
    for name, f in parts["headings"].items():
        body.append(f"<h2>{html.escape(_findings_heading(name))}</h2>")
        body.append('<ul class="findings">' + "".join(f"<li>{html.escape(s)}</li>" for s in f.sentences) + "</ul>")
    body += ["<h2>How to read</h2>", f'<p class="note">{note}</p>']
    for section in parts["tables"]:
        body += _html_section(*section)
    if images or figure_notes:
        body.append("<h2>Figures</h2>")
        body += [f'<p class="note">{html.escape(text)}</p>' for text in figure_notes]
    if images:
        for name, (png, caption) in images.items():
            data = base64.b64encode(png).decode("ascii")
            text = html.escape(name) + ("" if caption == name else f". {html.escape(caption)}")
            body.append(f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
                        f"<figcaption>{text}</figcaption></figure>")
    for section in parts["appendix"]:
        body += _html_section(*section)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
