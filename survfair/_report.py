"""Self-contained HTML / Markdown audit reports: a thin consumer of the public result objects."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ._calibration_findings import calibration_findings
from ._calibration_result import CalibrationResult
from ._findings import Findings, findings, joint_tests
from ._format import MISSING, NO_INTERVAL, interval_text, number, p_value_text, percent, statistic_text
from ._horizon_findings import HorizonFindings, horizon_findings
from ._intervals import NO_VARIANCE_SE
from ._model_comparison import ModelComparison
from ._results import XCIResult
from ._summaries import min_xci, overall_c
from ._xauc import XAUCResult
from ._xauc_summaries import balanced_xauc
from ._xauc_t import case_control_definition

__all__ = ["write_report", "data_summary_table", "data_fingerprint"]

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
    return f"{100 * value:+.1f}" if np.isfinite(value) else MISSING


def _pp_interval(low: float, high: float) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return MISSING
    return f"[{100 * low:+.1f}, {100 * high:+.1f}]"


def _n_resamples(result: Any) -> int | None:
    draws = getattr(result, "bootstrap", None)
    return None if draws is None else int(draws.cells.shape[0])


_NAMES = {"delta_between": "Δbetween", "delta_within": "Δwithin"}


def _delta_label(summary: str, a: Any, b: Any, flagged: bool = False) -> str:
    """``"Δbetween (F, M)"``, with a dagger when a cell it uses is flagged."""
    return f"{_NAMES[summary]} ({a}, {b})" + (" †" if flagged else "")


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
            for d in found.deltas.itertuples(index=False)]
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
             **_delta_row(d, found.adjust, None)} for d in found.deltas.itertuples(index=False)]
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


def _calibration_sections(calibration: CalibrationResult, found, time_unit: str | None
                          ) -> list[tuple[str, pd.DataFrame, str, bool]]:
    sections = []
    unit = f" {time_unit}" if time_unit else ""
    for t in calibration.times:
        sections.append((f"Calibration at t = {t:g}{unit}", _calibration_table(calibration, float(t), found.flags),
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
        sections.append(("Calibration differences between groups", table,
                         f"{listed_} between every pair of groups; p-values adjusted ({found.adjust}) within each "
                         "statistic and horizon.", len(table) > _FOLD_ROWS))
    return sections


def _calibration_figures(calibration: CalibrationResult, time_unit: str | None) -> dict[str, tuple[Any, str]]:
    from .plotting import plot_calibration, plot_observed_expected

    figures = {}
    unit = f" {time_unit}" if time_unit else ""
    for t in calibration.times:
        figures[f"Calibration per group at t = {t:g}{unit}"] = (
            plot_calibration(calibration, float(t), time_unit=time_unit).figure,
            "Points: bins of predicted risk against their Kaplan-Meier risk with its interval; lines: smooth "
            "calibration curves; on the dashed diagonal predicted risk equals observed risk, above it the "
            "model under-predicts the group's risk.")
        figures[f"Observed / expected risk per group at t = {t:g}{unit}"] = (
            plot_observed_expected(calibration, float(t), time_unit=time_unit).figure,
            "Above 1 the model under-predicts the group's risk, below 1 it over-predicts; bars show the interval.")
    return figures


def _comparison_table(comparison: ModelComparison, found: Mapping[str, Findings]) -> pd.DataFrame:
    """Tidy: one row per model x headline quantity (the largest |Δbetween|, worst cell, pooled C)."""
    rows = []
    for name, result in comparison.results.items():
        table = _summary_table(result, found[name]).reset_index()
        between = found[name].deltas[found[name].deltas["summary"] == "delta_between"].dropna(subset=["value"])
        keep = table["statistic"].str.startswith(("worst cell", "pooled"))
        if not between.empty:
            largest = between["value"].abs().idxmax()
            d = between.loc[largest]
            keep |= table["statistic"] == _delta_label(d["summary"], d["a"], d["b"], bool(d["flagged"]))
        for row in table[keep].to_dict(orient="records"):
            rows.append({"model": name, **row})
    return pd.DataFrame(rows).set_index("model")


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

    from ._xroc import xroc
    from .plotting import plot_xroc

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
    "forest": "How to read: each line is a difference between two groups with its interval; a line that "
              "crosses 0 is compatible with no difference.",
    "censoring": "How to read: the probability of remaining uncensored (still under observation) over time, "
                 "per group. IPCW weights are 1/K², so where a curve is low the weights are large and the "
                 "estimate unstable.",
    "xroc": "How to read: each curve trades the positives of group a found (up) against the negatives of "
            "group b flagged (right); its area is the xAUC cell.",
}


def _default_figures(result: XCIResult | XAUCResult, comparison: ModelComparison | None,
                     flags: Mapping[str, pd.DataFrame], time_unit: str | None
                     ) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """Titled figures with their one-sentence caption, and notes on the figures left out."""
    import matplotlib.pyplot as plt

    from .plotting import plot_censoring_curves, plot_forest, plot_xci_heatmap

    binary = isinstance(result, XAUCResult)
    caption = _CAPTIONS["heatmap_binary" if binary else "heatmap"]
    figures: dict[str, tuple[Any, str]] = {}
    # one heatmap per figure, drawn with the plotting module's fixed colour scale, so that equal
    # colours mean equal numbers across the models of a report
    results = comparison.results if comparison is not None else {"": result}
    for name, res in results.items():
        title = f"{'xAUC' if binary else 'xCI'} matrix" + (f", {name}" if name else "")
        figures[title] = (plot_xci_heatmap(res, title=name or None, flags=flags[name]).figure, caption)
    if comparison is not None:
        figures["Δbetween and Δwithin per model"] = (plot_forest(comparison).figure, _CAPTIONS["forest"])
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


def _sections(result, comparison, found, flags, horizons, horizon_found, time_unit, min_events
              ) -> list[tuple[str, pd.DataFrame, str, bool]]:
    """(title, table, note, collapsed) of the result sections, in reading order."""
    binary = isinstance(result, XAUCResult)
    metric = "xAUC" if binary else "xCI"
    sections = []
    if comparison is not None:
        sections.append(("Models side by side", _comparison_table(comparison, found),
                         "The headline numbers of every model: its largest cross-group asymmetry, worst-served "
                         "cell and pooled C (differences in percentage points); † marks a number that uses a cell "
                         "resting on little data (see the cells table).", False))
    for name, res in (comparison.results.items() if comparison is not None else [("", result)]):
        suffix = f": {name}" if name else ""
        sections += [
            (f"{metric} matrix{suffix}", _matrix_table(res, found[name].flagged_cells),
             "In percent; rows are the group of the " + ("positive" if binary else "member with the earlier event")
             + ", columns the group of the " + ("negative." if binary else "later member.")
             + " † marks a cell resting on little data (see the cells table).", False),
            (f"Differences between groups{suffix}", differences := _summary_table(res, found[name]),
             "Differences in percentage points with their interval; p is the two-sided p-value of 'no difference', "
             f"adjusted ({found[name].adjust}) within each family (all Δbetween pairs; all Δwithin pairs). The "
             "interval of the worst cell is that cell's own (it does not account for having picked the minimum). "
             "† marks a difference that uses a cell resting on little data (see the cells table); 'no interval: "
             "standard error 0' where both cells were estimated without sampling variability.",
             len(differences) > _FOLD_ROWS),
            (f"Joint tests{suffix}", _tests_table(res, found[name]),
             "Wald chi-square tests of several differences at once (survfair.omnibus_test); 'degenerate' counts "
             "directions without first-order variance, which are left out of the degrees of freedom; differences "
             "that use an undefined cell or a cell with standard error 0 (no variance estimate) are left out of "
             "the test.", False),
            (f"Cells{suffix}", _cells_table(res, flags[name]),
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
        sections.append((f"Pair counts{': ' + name if name else ''}", counts, f"Counts first, ratios last: {ratio}.",
                         True))
    return sections


def write_report(
    path: str | Path,
    result: XCIResult | XAUCResult | ModelComparison,
    *,
    settings: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    horizons: Any = None,
    calibration: CalibrationResult | None = None,
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

    The report reads top to bottom for a reader who did not run the audit: **findings** first
    (:func:`survfair.findings` for every model: the largest cross-group asymmetry in words with its
    interval and adjusted p-value, the worst-served cell, within-group differences, the joint test,
    flagged cells), then how to read the matrix, the provenance (survfair version, date, the call or
    command, input file and fingerprint, rows analysed and excluded), the settings (once), the data
    summary, and per model the matrix in percent, the differences between groups with adjusted
    p-values, the joint tests and every cell with its flag; AUC(t) horizons and the balanced xAUC
    when given; the pair counts; then the figures, each with a one-sentence caption on how to read
    it. Heatmaps share one colour scale. Long tables are folded (``<details>``) so the page stays
    readable; every table is long and narrow, so it fits 1280 px without horizontal scrolling.

    For a binary audit (an :class:`~survfair.XAUCResult`) the same sections hold the xAUC matrix
    (rows a = group of the positive, columns b = group of the negative; Kallus & Zhou 2019) with
    its DeLong intervals, ΔxAUC (:func:`survfair.delta_between`) and the difference of within-group
    AUCs, the balanced xAUCs and the xROC curves.

    Every user string (group labels, model names, settings, table cells, titles) is shown as
    text: HTML-escaped in both formats and Markdown-escaped in ``.md``, and drawn literally in
    the figures (a ``$`` in a label is a dollar sign, not mathtext).

    Parameters
    ----------
    path : str or Path
        ``*.html`` / ``*.htm``: one file, figures embedded as base64 PNG, inline CSS, no script and
        no external resource. ``*.md``: Markdown; figures are written as PNG files to the folder
        ``<stem>_files/`` next to it and linked relatively.
    result : XCIResult, XAUCResult or ModelComparison
        What to report. For a ModelComparison every model gets its findings, matrix and tables;
        the data summary and censoring curves are those of the first model (the same data).
    settings : mapping, optional
        Settings to show beside the estimator's own (a key naming one of those replaces it).
    provenance : mapping, optional
        Where the numbers come from: e.g. ``{"command": ..., "data": "cohort.csv", "data SHA-256":
        data_fingerprint(frame[columns])}``; survfair's version, the date and the rows analysed
        and excluded are added.
    horizons : XAUCtResult or mapping of str -> XAUCtResult, optional
        AUC(t) results (:func:`survfair.xauc_t`) to tabulate, by model name.
    calibration : CalibrationResult, optional
        Calibration of the predicted risks within groups (:func:`survfair.calibration`): its findings
        (:func:`survfair.calibration_findings`) follow the discrimination findings, a table per
        horizon and the contrasts between groups follow the result's sections, and the calibration
        plots join the figures.
    data_summary : DataFrame, optional
        Replaces the default per-group summary (:func:`data_summary_table`); formatted the same
        way (``*_pct`` columns as percentages with one decimal, ``min_censoring_survival`` with
        three digits).
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
        a CalibrationResult, or a table is not a DataFrame.
    ValueError
        If the extension of ``path`` is not .html, .htm or .md, or ``adjust`` or the thresholds
        are invalid.

    See Also
    --------
    survfair.findings : the sentences that open the report.
    data_fingerprint : the SHA-256 of the analysed columns, for ``provenance``.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise ValueError(f"path must end in .html, .htm or .md, got {path.name!r}.")
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
    found = {name: findings(res, adjust=adjust, min_events=min_events, min_pairs=min_pairs)
             for name, res in results.items()}
    flags = {name: f.flags for name, f in found.items()}
    headings: dict[str, Any] = dict(found)
    horizon_found = {name: horizon_findings(curve, adjust=adjust, min_events=min_events, min_pairs=min_pairs,
                                            time_unit=time_unit) for name, curve in (horizons or {}).items()}
    headings.update({f"AUC(t){': ' + name if name else ''}": f for name, f in horizon_found.items()})
    calibration_found = None
    if calibration is not None:
        if not isinstance(calibration, CalibrationResult):
            raise TypeError(f"calibration must be a CalibrationResult, got {type(calibration).__name__}.")
        calibration_found = calibration_findings(calibration, adjust=adjust, min_events=min_events,
                                                 time_unit=time_unit)
        headings["calibration"] = calibration_found

    from . import __version__

    binary = isinstance(main, XAUCResult)
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")  # one time for the header and the provenance
    summary_note = (
        "Per group: rows analysed, positives, negatives and the share of positives."
        if binary
        else "Per group: rows analysed, events"
        + (" of the cause of interest, competing events (other causes)" if getattr(main, "cause", None) else "")
        + ", censored rows; min_censoring_survival is the smallest "
        "censoring survival K_g used as an IPCW weight (positivity: weights up to 1/K^2)."
    )
    tables: list[tuple[str, pd.DataFrame, str, bool]] = [
        ("Provenance", _provenance_table(main, provenance, __version__, stamp), "", False),
        ("Settings", _settings_table(main, settings), "", False),
        ("Data summary", _for_people(data_summary if data_summary is not None else data_summary_table(main)),
         summary_note, False),
    ]
    sections = _sections(main, comparison, found, flags, horizons, horizon_found, time_unit, min_events)
    if calibration is not None:  # after the discrimination tables, before the folded pair counts
        counts_start = len(sections) - len(results)
        sections[counts_start:counts_start] = _calibration_sections(calibration, calibration_found, time_unit)
    tables += sections
    for name, table in (extra_tables or {}).items():
        tables.append((str(name), table, "", False))

    drawn, figure_notes = _default_figures(main, comparison, flags, time_unit) if default_figures else ({}, [])
    if default_figures and calibration is not None:
        drawn.update(_calibration_figures(calibration, time_unit))
    drawn.update({name: (fig, name) for name, fig in (figures or {}).items()})
    images = {name: (_png(fig), caption) for name, (fig, caption) in drawn.items()}
    if default_figures:
        import matplotlib.pyplot as plt

        for name, (fig, _) in drawn.items():
            if name not in (figures or {}):
                plt.close(fig)

    meta = f"survfair {__version__}, {stamp}"
    note_html, note_md = _notes(main)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".md":
        path.write_text(_markdown(path, title, meta, note_md, headings, tables, images, figure_notes),
                        encoding="utf-8")
    else:
        path.write_text(_html(title, meta, note_html, headings, tables, images, figure_notes), encoding="utf-8")
    return path


def _findings_heading(name: str) -> str:
    return f"Findings: {name}" if name else "Findings"


def _markdown(path: Path, title, meta, note, found, tables, images, figure_notes=()) -> str:
    folder = path.parent / f"{path.stem}_files"
    parts = [f"# {_md_text(title)}", "", f"_Generated by {meta}._", ""]
    for name, f in found.items():
        parts += [f"## {_md_text(_findings_heading(name))}", ""]
        parts += [f"- {_md_text(sentence)}" for sentence in f.sentences] + [""]
    parts += ["## How to read", "", note, ""]
    for name, table, note, _ in tables:
        parts += [f"## {_md_text(name)}", ""] + ([_md_text(note), ""] if note else []) + [_md_table(table), ""]
    if images or figure_notes:
        parts += ["## Figures", ""] + [f"{_md_text(text)}\n" for text in figure_notes]
    if images:
        folder.mkdir(exist_ok=True)
        for k, (name, (png, caption)) in enumerate(images.items()):
            file = folder / f"figure_{k + 1}.png"
            file.write_bytes(png)
            parts += [f"![{_md_text(name)}]({folder.name}/{file.name})", "",
                      f"*{_md_text(name)}.* {_md_text(caption) if caption != name else ''}".rstrip(), ""]
    return "\n".join(parts)


def _html(title, meta, note, found, tables, images, figure_notes=()) -> str:
    body = [f"<h1>{html.escape(title)}</h1>", f'<p class="meta">Generated by {html.escape(meta)}.</p>']
    for name, f in found.items():
        body.append(f"<h2>{html.escape(_findings_heading(name))}</h2>")
        body.append('<ul class="findings">' + "".join(f"<li>{html.escape(s)}</li>" for s in f.sentences) + "</ul>")
    body += ["<h2>How to read</h2>", f'<p class="note">{note}</p>']
    for name, table, note, collapsed in tables:
        body.append(f"<h2>{html.escape(name)}</h2>")
        if note:
            body.append(f'<p class="note">{html.escape(note)}</p>')
        if collapsed:
            body.append(f"<details><summary>{len(table)} rows (click to show)</summary>{_html_table(table)}</details>")
        else:
            body.append(_html_table(table))
    if images or figure_notes:
        body.append("<h2>Figures</h2>")
        body += [f'<p class="note">{html.escape(text)}</p>' for text in figure_notes]
    if images:
        for name, (png, caption) in images.items():
            data = base64.b64encode(png).decode("ascii")
            text = html.escape(name) + ("" if caption == name else f". {html.escape(caption)}")
            body.append(f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
                        f"<figcaption>{text}</figcaption></figure>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
