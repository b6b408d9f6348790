"""Self-contained HTML / Markdown audit reports: a thin consumer of the public result objects."""

from __future__ import annotations

import datetime as _dt
import io
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .._binary.xauc import XAUCResult
from .._binary.xauc_t import XAUCtResult, case_control_definition
from .._calibration.result import CalibrationResult
from .._core.deprecation import REMOVED_IN, warn_once
from .._core.exceptions import InvalidParameterError
from .._core.multiplicity import ADJUSTMENTS
from .._core.options import OptionTable, flag, instance_of, integer, one_of, real, text
from .._core.results import XCIResult
from .._models.comparison import ModelComparison
from .._xci.summaries import min_xci, overall_c
from .findings.calibration import calibration_findings
from .findings.horizons import horizon_findings
from .findings.ranking import Findings, findings
from .format import number, percent
from .html import html_page
from .markdown import markdown_page
from .plots.base import difference_limit
from .plots.figures import PLAIN_FIGURE_GROUPS
from .tables import (
    CONTRAST_LABELS,
    adjusted_excess_p,
    balanced_table,
    calibration_contrast_table,
    calibration_table,
    cell_matrices,
    cells_table,
    censoring_check_table,
    censoring_model_table,
    censoring_weights_text,
    data_summary_table,
    excess_for,
    excess_table,
    for_people,
    horizon_delta_table,
    horizon_table,
    is_model_based,
    largest_between,
    matrix_table,
    model_based_frame,
    pp,
    provenance_table,
    settings_table,
    split_settings,
    summary_table,
    tests_table,
    verdict_table,
)
from .text import TEXT_TABLE_ROWS

__all__ = ["write_report"]


_NOTE = (
    "xCI<sub>a,b</sub> estimates P(R<sub>i</sub> &gt; R<sub>j</sub> | "
    "T<sub>i</sub> &lt; T<sub>j</sub>, G<sub>i</sub> = a, G<sub>j</sub> = b): row a is the group "
    "of the member with the EARLIER event, column b the group of the member who outlived it "
    "(Wang et al. 2026, eq. 2). A higher risk score means an earlier expected event. "
    "&Delta;within(a,b) = xCI<sub>a,a</sub> &minus; xCI<sub>b,b</sub>; "
    "&Delta;between(a,b) = xCI<sub>a,b</sub> &minus; xCI<sub>b,a</sub>."
)


_NOTE_MD = (
    "xCI[a,b] estimates P(R_i > R_j | T_i < T_j, G_i = a, G_j = b): row a is the group of the "
    "member with the EARLIER event, column b the group of the member who outlived it "
    "(Wang et al. 2026, eq. 2). A higher risk score means an earlier expected event. "
    "Δwithin(a,b) = xCI[a,a] − xCI[b,b]; Δbetween(a,b) = xCI[a,b] − xCI[b,a]."
)


_NOTE_XAUC = (
    "xAUC(a, b) estimates P(R<sub>1</sub><sup>a</sup> &gt; R<sub>0</sub><sup>b</sup>), the "
    "probability that a positive of group a is scored above a negative of group b: row a is the "
    "group of the POSITIVE, column b the group of the NEGATIVE "
    "(Kallus &amp; Zhou 2019, Definition 2); the diagonal holds the within-group AUCs. "
    "A higher score should mean the positive class. "
    "delta_between(a,b) = xAUC(a,b) &minus; xAUC(b,a) (&Delta;xAUC, Section 4); "
    "delta_within(a,b) = AUC<sup>a</sup> &minus; AUC<sup>b</sup>; min_xci is the smallest cell. "
    "A binary outcome has no censoring: xAUC is the xCI of a sample in which every positive has "
    "its event before every negative. Standard errors, intervals and p-values come from the "
    "DeLong covariance of all cells."
)


_NOTE_XAUC_MD = (
    "xAUC(a, b) estimates P(R_1^a > R_0^b), the probability that a positive of group a is scored "
    "above a negative of group b: row a is the group of the POSITIVE, column b the group of the "
    "NEGATIVE (Kallus & Zhou 2019, Definition 2); the diagonal holds the within-group AUCs. "
    "A higher score should mean the positive class. "
    "delta_between(a,b) = xAUC(a,b) − xAUC(b,a) (ΔxAUC, Section 4); "
    "delta_within(a,b) = AUC^a − AUC^b; min_xci is the smallest cell. A binary outcome has no "
    "censoring: xAUC is the xCI of a sample in which every positive has its event before every "
    "negative. Standard errors, intervals and p-values come from the DeLong covariance of all "
    "cells."
)


def _notes(result: XCIResult | XAUCResult) -> tuple[str, str]:
    """How to read the matrix: (HTML, Markdown)."""
    return (_NOTE_XAUC, _NOTE_XAUC_MD) if isinstance(result, XAUCResult) else (_NOTE, _NOTE_MD)


def _calibration_sections(
    calibration: CalibrationResult, found, time_unit: str | None, model: str = ""
) -> list[tuple[str, pd.DataFrame, str, bool]]:
    sections = []
    unit = f" {time_unit}" if time_unit else ""
    of = f": {model}" if model else ""
    for t in calibration.times:
        sections.append(
            (
                f"Calibration at t = {t:g}{unit}{of}",
                calibration_table(calibration, float(t), found.flags),
                "Observed risk by Kaplan-Meier within the group against the mean predicted risk; "
                "O/E = observed / predicted (1 = right on average; interval from Greenwood's "
                "variance); slope on the complementary log-log scale (1 = right spread, below 1 = "
                "too extreme); ICI and E90: mean and 90th percentile of |predicted − observed| "
                "along the smooth calibration curve; Brier score with censoring weights of the "
                "group; GND: Greenwood-Nam-D'Agostino test over risk deciles (a small p means "
                "miscalibration). † marks a group with few events by the horizon (fewer than "
                "min_events): its numbers rest on little data."
                + (
                    ""
                    if calibration.slope_and_curve
                    else " The slope, ICI and E90 were not computed (slope_and_curve=False): "
                    "shown as –."
                ),
                False,
            )
        )
    if len(calibration.groups) > 1:
        table = calibration_contrast_table(found)
        shown = [
            CONTRAST_LABELS[s].split(" (")[0] + "s"
            for s in dict.fromkeys(found.contrasts["statistic"])
            if s in CONTRAST_LABELS
        ]
        listed_ = ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "".join(shown)
        sections.append(
            (
                f"Calibration differences between groups{of}",
                table,
                f"{listed_} between every pair of groups; p-values adjusted ({found.adjust}) "
                "within each statistic and horizon.",
                len(table) > _FOLD_ROWS,
            )
        )
    return sections


def _calibration_figures(
    calibration: CalibrationResult, time_unit: str | None, model: str = ""
) -> dict[str, tuple[Any, str]]:
    from .plots.calibration import plot_calibration, plot_observed_expected

    figures = {}
    unit = f" {time_unit}" if time_unit else ""
    of = f", {model}" if model else ""
    for t in calibration.times:
        figures[f"Calibration per group at t = {t:g}{unit}{of}"] = (
            plot_calibration(calibration, float(t), time_unit=time_unit).figure,
            "Points: bins of predicted risk against their Kaplan-Meier risk with its interval; "
            + (
                "lines: smooth calibration curves; "
                if calibration.slope_and_curve
                else "no smooth calibration curves (not computed: slope_and_curve=False); "
            )
            + "on the dashed diagonal predicted risk equals observed risk, above it the model "
            "under-predicts the group's risk.",
        )
        figures[f"Observed / expected risk per group at t = {t:g}{unit}{of}"] = (
            plot_observed_expected(calibration, float(t), time_unit=time_unit).figure,
            "Above 1 the model under-predicts the group's risk, below 1 it over-predicts; bars "
            "show the interval.",
        )
    return figures


def _verdict_sentence(
    name: str,
    result: Any,
    found: Findings,
    model_based: Any = None,
    calibration: CalibrationResult | None = None,
) -> str:
    """One sentence per model: the largest asymmetry ((a, b) in the group order, signed a − b)
    and whether the data show it, the worst cell, the excess over the model-based reference and
    calibration when given."""
    who = name or "The model"
    binary = isinstance(result, XAUCResult)
    pooled = overall_c(result)
    if model_based is not None:  # checked once, read by the excess, its caveat and the worst cell
        model_based = model_based_frame(model_based, f"model_based[{name!r}]")
    parts = [f"{who}: pooled {'AUC' if binary else 'C'} {percent(pooled.value)}"]
    largest = largest_between(found.deltas, result.groups)
    if largest is not None:
        a, b = largest["a"], largest["b"]
        level = 1 - getattr(result, "confidence_level", 0.95)
        clear = (
            np.isfinite(largest["ci_low"])
            and (largest["ci_low"] > 0 or largest["ci_high"] < 0)
            and np.isfinite(largest["p_adjusted"])
            and largest["p_adjusted"] < level
        )
        excess = None
        if model_based is not None:
            excess = excess_for(model_based, a, b)
        judged = (
            f"{b if largest['value'] > 0 else a} is ranked worse in this pair"
            if clear
            else "the data do not clearly show an asymmetry"
        )
        if (
            clear and excess is None
        ):  # issue 32: an observed asymmetry alone does not blame the model
            judged += "; part or all of it may come from the groups' different risks"
        parts.append(
            f"largest asymmetry Δbetween({a}, {b}) = {pp(largest['value'])} points ({judged})"
        )
        if excess is not None:
            value, low, high, p = excess
            adjusted = adjusted_excess_p(found, a, b)
            p = (
                p if adjusted is None else adjusted
            )  # judged as the findings judge it: adjusted when they adjust
            interval = f" [{pp(low)}, {pp(high)}]" if np.isfinite(low) and np.isfinite(high) else ""
            if np.isfinite(low) and (low > 0 or high < 0) and np.isfinite(p) and p < level:
                parts.append(
                    f"excess {pp(value)} points{interval} over what the model's own "
                    "predictions imply"
                )
            else:
                caveat = _excess_caveat(found, model_based, low, high)
                parts.append(
                    f"no clear excess over what the model's own predictions imply (excess "
                    f"{pp(value)} points{interval}; {caveat})"
                )
    if len(result.groups) > 1:
        smallest = min_xci(result)
        implied = _model_based_cell(model_based, smallest.a, smallest.b)
        parts.append(
            f"worst-served cell ({smallest.a}, {smallest.b}) at {percent(smallest.value)}"
            + ("" if implied is None else f" (model-based {percent(implied)})")
        )
    if calibration is not None:
        t = float(calibration.times[0])
        oe = calibration.summary(t)["oe_ratio"]
        parts.append(
            f"O/E at t = {t:g}: " + ", ".join(f"{g} {number(v, 2)}" for g, v in oe.items())
        )
    return "; ".join(parts) + "."


def _excess_caveat(found: Findings, frame: pd.DataFrame, low: float, high: float) -> str:
    """What keeps a non-significant excess from meaning "the groups' risks explain it" (issue 41):
    a reference that is not the score's own, calibration rejected or not checked, or an interval
    wider than the equivalence margin. ``frame``: :func:`model_based_frame` of the reference."""
    agreement = frame.get("reference_agreement")
    if agreement is not None and (pd.to_numeric(agreement, errors="coerce") < 0.9).any():
        return "the reference is not the score's own: it cannot say what the model adds"
    if not (np.isfinite(low) and np.isfinite(high) and -found.margin < low and high < found.margin):
        largest = 100 * max(abs(low), abs(high)) if np.isfinite(low) and np.isfinite(high) else None
        return (
            "the data cannot tell: no interval"
            if largest is None
            else f"the data cannot tell: up to {largest:.1f} points either way"
        )
    status = found.calibration_status
    if status == "rejected":
        return "calibration is rejected, so the asymmetry cannot be put down to the groups' risks"
    if status == "not rejected":
        return "calibration tested and not rejected"
    return "calibration not checked"


def _model_based_cell(frame: pd.DataFrame | None, a: Any, b: Any) -> float | None:
    """The model-based value of cell (a, b) of a reference's frame, or None."""
    if frame is None:
        return None
    cells = frame[frame["summary"].isin(["xci", "xauc"])]
    for row in cells.itertuples():
        if (row.a, row.b) == (a, b) and np.isfinite(row.model_based):
            return float(row.model_based)
    return None


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
        return (
            "No xROC figure: the result does not carry the scores of its rows (compute it with "
            "survfair.xauc)."
        )
    if g * (g - 1) > _XROC_MAX_CURVES:
        return (
            f"No xROC figure: {g} groups have {g * (g - 1)} ordered pairs, more curves than one "
            f"figure can show readably (at most {_XROC_MAX_CURVES}, i.e. 4 groups). Draw chosen "
            "pairs with survfair.plotting.plot_xroc(survfair.xroc(result, a, b))."
        )
    return None


def _xroc_figure(result: XAUCResult) -> Any:
    """xROC curves of the off-diagonal cells (their areas are the cells), or None when
    not drawable."""
    import matplotlib.pyplot as plt

    from .._binary.xroc import xroc
    from .plots.figures import plot_xroc

    sizes = result.group_sizes
    pairs = [
        (a, b)
        for a in result.groups
        for b in result.groups
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
    "heatmap": "How to read: each cell is how often the model ranked the member with the earlier "
    "event (row group) above the later member (column group); 50% is chance. Every heatmap of this "
    "report uses the same colour scale (red below chance, blue above); † marks cells that rest "
    "on little data.",
    "heatmap_binary": "How to read: each cell is how often a positive of the row group was scored "
    "above a negative of the column group; 50% is chance. One colour scale for every heatmap; "
    "† marks cells that rest on little data.",
    "heatmap_plain": "How to read: each cell is how often the model ranked the member with the "
    "earlier event (row group) above the later member (column group); 50% is chance; red below "
    "chance, blue above, on the colour scale of every heatmap of this report. With {groups} groups "
    "(more than {plain}) the matrix is drawn as an image without the cells' values; hatched "
    "regions are cells that rest on little data. {where}",
    "heatmap_plain_binary": "How to read: each cell is how often a positive of the row group was "
    "scored above a negative of the column group; 50% is chance; one colour scale for every "
    "heatmap. With {groups} groups (more than {plain}) the matrix is drawn as an image without "
    "the cells' values; hatched regions are cells that rest on little data. {where}",
    "difference": "How to read: each cell (a, b) is xCI(a, b) − xCI(b, a) in percentage points, "
    "the Δbetween of the pair: positive (purple) when members of the row group who had the event "
    "first were ranked correctly more often than members of the column group who had it first; "
    "white is no difference. Every difference heatmap of this report uses the same scale.",
    "difference_binary": "How to read: each cell (a, b) is xAUC(a, b) − xAUC(b, a) in percentage "
    "points, the ΔxAUC of the pair: positive (purple) when positives of the row group were scored "
    "above negatives of the column group more often than the reverse; white is no difference.",
    "excess": "How to read: each cell is the observed cell minus what the model's own predictions "
    "imply (model-based), in percentage points; white is no excess. Same scale as the other "
    "difference heatmaps.",
    "forest": "How to read: each line is a difference between two groups with its interval; a line "
    "that crosses 0 is compatible with no difference.",
    "censoring": "How to read: the probability of remaining uncensored (still under observation) "
    "over time, per group. IPCW weights are 1/K², so where a curve is low the weights are large "
    "and the estimate unstable.",
    "xroc": "How to read: each curve trades the positives of group a found (up) against the "
    "negatives of group b flagged (right); its area is the xAUC cell.",
}


def _default_figures(
    result: XCIResult | XAUCResult,
    comparison: ModelComparison | None,
    flags: Mapping[str, pd.DataFrame],
    time_unit: str | None,
    model_based: Mapping[str, pd.DataFrame] | None = None,
) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """Titled figures with their one-sentence caption, and notes on the figures left out."""
    import matplotlib.pyplot as plt

    from .plots.figures import (
        plot_censoring_curves,
        plot_forest,
        plot_xci_difference,
        plot_xci_heatmap,
    )

    binary = isinstance(result, XAUCResult)
    caption = _CAPTIONS["heatmap_binary" if binary else "heatmap"]
    groups = len(result.groups)
    if groups > PLAIN_FIGURE_GROUPS:  # drawn as an image: say so, and where the numbers are
        caption = _CAPTIONS["heatmap_plain_binary" if binary else "heatmap_plain"].format(
            groups=groups, plain=PLAIN_FIGURE_GROUPS, where=_where_cells(groups)
        )
    figures: dict[str, tuple[Any, str]] = {}
    # one heatmap per figure, drawn with the plotting module's fixed colour scale, so that equal
    # colours mean equal numbers across the models of a report
    results = comparison.results if comparison is not None else {"": result}
    for name, res in results.items():
        title = f"{'xAUC' if binary else 'xCI'} matrix" + (f", {name}" if name else "")
        figures[title] = (
            plot_xci_heatmap(res, title=name or None, flags=flags[name]).figure,
            caption,
        )
    # the differences on a diverging scale centred on 0, one limit for every difference heatmap
    metric = "xAUC" if binary else "xCI"
    references = {
        name: cell_matrices(frame, results[name].groups)
        for name, frame in (model_based or {}).items()
        if name in results
    }
    references = {name: pair for name, pair in references.items() if pair is not None}
    matrices = [res.values - res.values.T for res in results.values() if len(res.groups) > 1]
    matrices += [
        observed.to_numpy() - reference.to_numpy() for observed, reference in references.values()
    ]
    limit = difference_limit(matrices)
    for name, res in results.items():
        if len(res.groups) > 1:
            title = f"{metric}(a, b) − {metric}(b, a)" + (f", {name}" if name else "")
            figures[title] = (
                plot_xci_difference(res, limit=limit, title=title).figure,
                _CAPTIONS["difference_binary" if binary else "difference"],
            )
        if name in references:
            observed, reference = references[name]
            title = "Observed − model-based" + (f", {name}" if name else "")
            # the reference's own observed − model-based, drawn on the result's labels: the result
            # minus (result − excess) is the excess
            excess = (observed - reference).to_numpy()
            shifted = pd.DataFrame(
                res.values - excess, index=res.matrix.index, columns=res.matrix.columns
            )
            figures[title] = (
                plot_xci_difference(res, shifted, limit=limit, title=title).figure,
                _CAPTIONS["excess"],
            )
    notes = []
    if comparison is not None and groups > PLAIN_FIGURE_GROUPS:
        notes.append(
            f"No forest plot of Δbetween and Δwithin per model: {groups} groups have "
            f"{groups * (groups - 1) // 2:,} pairs, more rows than one figure can show readably "
            f"(at most {PLAIN_FIGURE_GROUPS} groups); the differences are in the tables above and "
            "in survfair audit --format csv or --format json."
        )
    elif comparison is not None:
        figures["Δbetween and Δwithin per model"] = (
            plot_forest(comparison.table, flags=dict(flags)).figure,
            _CAPTIONS["forest"],
        )
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
    elif result.censoring_model is not None:  # censoring="cox": one survival curve per person
        notes.append(
            "No figure of censoring curves: the IPCW weights come from a Cox model of the "
            "censoring hazard, which gives every person their own curve G(t | x) (see the "
            "section Censoring model)."
        )
    return figures, notes


#: Tables longer than this are folded (<details>) so that the page stays readable.
_FOLD_ROWS = 24

#: Above this many groups the report's tables of cells are cut: the matrix is left to the heatmap
#: and the cells and pair counts of the appendix show the REPORT_TABLE_ROWS lowest cells, each
#: with a sentence saying where every cell is; tables of one row per group are folded. 200 is the
#: findings' SUMMARISED_GROUPS (above it the differences table holds only the largest
#: differences) and the text output's rows (TEXT_TABLE_ROWS): at 300 groups the two appendix
#: tables of 90,000 rows were 35 of the report's 40 MB, and nobody reads 40,000 rows either.
REPORT_TABLE_GROUPS = 200
#: Rows of a cut table of cells: the lowest cells, as many as the text output shows.
REPORT_TABLE_ROWS = TEXT_TABLE_ROWS


def _where_cells(groups: int) -> str:
    """Where the report's reader finds the cells that a plain heatmap or a cut table leaves out."""
    shown = (
        f"the appendix lists the {REPORT_TABLE_ROWS} lowest cells"
        if groups > REPORT_TABLE_GROUPS
        else "the appendix lists every cell"
    )
    return (
        f"Their values: {shown}; every cell is in survfair audit --format csv or --format json "
        "(in Python: result.to_frame())."
    )


def _shown_cells(result: Any) -> np.ndarray | None:
    """Row-major positions of the cells the appendix shows above REPORT_TABLE_GROUPS groups (the
    REPORT_TABLE_ROWS lowest, lowest first, undefined cells last), None when it shows all."""
    if len(result.groups) <= REPORT_TABLE_GROUPS:
        return None
    return np.argsort(result.values.ravel(), kind="stable")[:REPORT_TABLE_ROWS]


def _cut_note(result: Any, metric: str) -> str:
    """The sentence that opens a cut table of cells: which cells it shows, where the rest are."""
    g = len(result.groups)
    return (
        f"{g} groups have {g * g:,} cells, more than a report can list (above "
        f"{REPORT_TABLE_GROUPS} groups): shown are the {REPORT_TABLE_ROWS} cells with the lowest "
        f"{metric}, lowest first. Every cell is in survfair audit --format csv or --format json "
        "(in Python: result.to_frame())."
    )


#: the columns of the joint tests in the body of the report; the rest are in the appendix
_TEST_COLUMNS = ["chi-square", "df", "p", "contrasts"]


def _sections(result, comparison, found, flags, horizons, horizon_found, time_unit, min_events):
    """(title, table, note, collapsed) of the result sections in reading order, and of the
    appendix (joint tests in detail, cells, pair counts)."""
    binary = isinstance(result, XAUCResult)
    metric = "xAUC" if binary else "xCI"
    sections, appendix = [], []
    for name, res in comparison.results.items() if comparison is not None else [("", result)]:
        suffix = f": {name}" if name else ""
        shown = _shown_cells(res)  # None: every cell
        g = len(res.groups)
        sections += [
            (
                f"{metric} matrix{suffix}",
                matrix_table(res, found[name].flagged_cells),
                "In percent; rows are the group of the "
                + ("positive" if binary else "member with the earlier event")
                + ", columns the group of the "
                + ("negative." if binary else "later member.")
                + " † marks a cell resting on little data (see the cells in the appendix).",
                False,
            )
            if shown is None
            else (
                f"{metric} matrix{suffix}",
                None,
                f"The {g} × {g} matrix is not shown as a table above {REPORT_TABLE_GROUPS} "
                "groups: the heatmap in the figures draws it, the appendix lists the "
                f"{REPORT_TABLE_ROWS} lowest cells, and every cell is in survfair audit --format "
                "csv or --format json (in Python: result.to_frame()).",
                False,
            ),
            (
                f"Differences between groups{suffix}",
                differences := summary_table(res, found[name]),
                "Differences in percentage points with their interval; p is the two-sided p-value "
                f"of 'no difference', adjusted ({found[name].adjust}) within each family (all "
                "Δbetween pairs; all Δwithin pairs). The interval of the worst cell is that cell's "
                "own (it does not account for having picked the minimum). † marks a difference "
                "that uses a cell resting on little data (see the cells in the appendix); "
                "'no interval: standard error 0' where both cells were estimated without "
                "sampling variability.",
                len(differences) > _FOLD_ROWS,
            ),
            (
                f"Joint tests{suffix}",
                (tests := tests_table(res, found[name]))[_TEST_COLUMNS],
                "Wald chi-square tests of several differences at once (survfair.omnibus_test); "
                "what each test leaves out is in the appendix.",
                False,
            ),
        ]
        appendix += [
            (
                f"Appendix: joint tests in detail{suffix}",
                tests,
                "'degenerate' counts directions without first-order variance, which are left out "
                "of the degrees of freedom; differences that use an undefined cell or a cell with "
                "standard error 0 (no variance estimate) are left out of the test.",
                False,
            ),
            (
                f"Appendix: cells{suffix}",
                cells_table(res, flags[name], shown),
                ("" if shown is None else _cut_note(res, metric) + " ")
                + (
                    "Every cell with its interval"
                    if shown is None
                    else "Each cell with its interval"
                )
                + ", the comparable pairs it rests on, and why it is "
                "flagged († ). A cell with standard error 0 (every pair ranked the same way) has "
                "no estimate of its sampling variability: it is shown without an interval.",
                True,
            ),
        ]
    if binary and result.rows is not None:
        sections.append(
            (
                "Balanced xAUC",
                balanced_table(result, min_events),
                "Kallus & Zhou 2019, Definition 3: xauc1 = P[R_1^a > R_0], the positives of group "
                "a against all negatives; xauc0 = P[R_1 > R_0^a], all positives against the "
                f"negatives of group a. † marks a value resting on fewer than {min_events} "
                "positives (xauc1) or negatives (xauc0) of the group.",
                False,
            )
        )
    for name, curve in (horizons or {}).items():
        suffix = f": {name}" if name else ""
        table = horizon_table(curve, horizon_found[name], time_unit)
        cases, controls = case_control_definition(curve)
        sections.append(
            (
                f"AUC(t) by horizon{suffix}",
                table,
                f"Cumulative/dynamic AUC(t) between groups: cases ({cases}) of group a against "
                f"controls ({controls}) of group b, in percent with the interval; † marks a cell "
                "resting on little data, with the reason.",
                len(table) > _FOLD_ROWS,
            )
        )
        deltas = horizon_delta_table(horizon_found[name], time_unit)
        sections.append(
            (
                f"AUC(t) differences between groups{suffix}",
                deltas,
                "Δbetween (a, b) = AUC(t) of cases of a against controls of b minus the reverse; "
                "Δwithin (a, b) = AUC(t) inside a minus inside b; percentage points with their "
                f"interval, p-values adjusted ({horizon_found[name].adjust}) over every horizon "
                "and pair of each family; † marks a difference that uses a flagged cell.",
                len(deltas) > _FOLD_ROWS,
            )
        )
    ratio = (
        "xauc = (concordant + tied_score / 2) / pairs"
        if binary
        else "xci = numerator / denominator"
    )
    for name, res in comparison.results.items() if comparison is not None else [("", result)]:
        shown = _shown_cells(res)
        counts = res.counts if shown is None else res.counts.iloc[shown]
        counts = counts.set_index(["a", "b"])
        counts.index = [f"{a} → {b}" for a, b in counts.index]
        counts.index.name = "a → b"
        appendix.append(
            (
                f"Appendix: pair counts{': ' + name if name else ''}",
                counts,
                ("" if shown is None else _cut_note(res, metric) + " ")
                + f"Counts first, ratios last: {ratio}.",
                True,
            )
        )
    return sections, appendix


#: The options of :func:`write_report` (``calibration`` and ``model_based`` are results, checked in
#: the body with the model names they are given for; ``title`` is free text).
_OPTIONS = OptionTable(
    "write_report",
    settings=instance_of(Mapping, "a mapping"),
    provenance=instance_of(Mapping, "a mapping"),
    horizons=instance_of((XAUCtResult, Mapping), "an XAUCtResult or a mapping of them"),
    data_summary=instance_of(pd.DataFrame, "a DataFrame"),
    extra_tables=instance_of(Mapping, "a mapping of title -> DataFrame"),
    figures=instance_of(Mapping, "a mapping of title -> matplotlib Figure"),
    default_figures=flag(),
    adjust=one_of(*ADJUSTMENTS),
    min_events=integer(low=0),
    min_pairs=integer(low=0),
    time_unit=text("days"),
    margin=real(low=0, high=1, closed="neither"),
)


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
    margin: float = 0.05,
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

    Every pair of groups is shown in one orientation: (a, b) with a before b in the result's group
    order, Δbetween and Δwithin signed a − b (:func:`oriented_pairs`), in the verdict, the tables
    and the figures alike.

    Tables sit in boxes that scroll sideways on a narrow screen (a phone, 390 px), so the page
    itself never does; long tables are folded (``<details>``).

    Many groups: above 50 (:data:`~survfair._present.plots.figures.PLAIN_FIGURE_GROUPS`) the
    heatmaps are plain images (no value per cell, flagged cells hatched as one region, one group
    label in k) and a comparison has no forest plot; above 200 (:data:`REPORT_TABLE_GROUPS`) the
    matrix is not tabulated and the appendix's cells and pair counts hold the 200 lowest cells,
    each section saying where every cell is (``result.to_frame()``, ``survfair audit --format
    csv``); the tables of one row per group are folded.

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
    margin : float, default=0.05
        Equivalence margin of :func:`survfair.findings`: a difference is called absent only when
        its interval lies inside ±margin. With ``model_based`` and ``calibration`` for the same
        model, the findings test the calibration the model-based reading assumes.

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is not an XCIResult, an XAUCResult or a ModelComparison, ``calibration`` is
        not a CalibrationResult or a mapping of them, a ``model_based`` entry has no ``to_frame()``,
        or a table is not a DataFrame.
    InvalidParameterError (a ValueError)
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
    >>> text = write_report(res, folder / "audit.md",
    ...                     default_figures=False).read_text(encoding="utf-8")
    >>> text.index("## Verdict") < text.index("## Findings") < text.index(
    ...     "## Appendix: estimator internals")
    True
    """
    _OPTIONS.check(locals())
    if isinstance(result, (str, os.PathLike)) and not isinstance(
        path, (str, os.PathLike)
    ):  # the old order
        warn_once(
            ("write_report", "order"),
            "write_report(path, result) is deprecated: use write_report(result, "
            f"path); the old order will be refused in survfair {REMOVED_IN}.",
            stacklevel=2,
        )
        result, path = path, result
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise InvalidParameterError(
            f"path must end in .html, .htm or .md, got {path.name!r}.", parameter="path"
        )
    if is_model_based(
        result
    ):  # a ModelBasedResult: its observed result, with itself as the reference
        result, model_based = result.observed, result if model_based is None else model_based
    if isinstance(result, ModelComparison):
        comparison, main = result, next(iter(result.results.values()))
        results = dict(result.results)
    elif isinstance(result, (XCIResult, XAUCResult)):
        comparison, main = None, result
        results = {"": result}
    else:
        raise InvalidParameterError(
            "result must be an XCIResult, an XAUCResult or a ModelComparison, got "
            f"{type(result).__name__}.",
            parameter="result",
        )
    for name, table in (extra_tables or {}).items():
        if not isinstance(table, pd.DataFrame):
            raise InvalidParameterError(
                f"extra_tables[{name!r}] must be a DataFrame, got {type(table).__name__}.",
                parameter="extra_tables",
            )
    if horizons is not None and not isinstance(horizons, Mapping):
        horizons = {"": horizons}
    # by the name the sections show (a mapping's keys; "" for a single CalibrationResult), and by
    # the model of the verdict row they belong to
    calibrations = (
        {"" if k is None else str(k): v for k, v in calibration.items()}
        if isinstance(calibration, Mapping)
        else {}
        if calibration is None
        else {"": calibration}
    )
    calibrated_models = _per_model(calibration, results, "calibration")
    for name, cal in calibrations.items():
        if not isinstance(cal, CalibrationResult):
            where = "calibration" if calibration is cal else f"calibration[{name!r}]"
            raise InvalidParameterError(
                f"{where} must be a CalibrationResult, got {type(cal).__name__}.",
                parameter="calibration",
            )
    references = _per_model(model_based, results, "model_based")
    reference_frames = {
        name: model_based_frame(ref, f"model_based[{name!r}]" if name else "model_based")
        for name, ref in references.items()
    }
    found = {
        name: findings(
            res,
            adjust=adjust,
            min_events=min_events,
            min_pairs=min_pairs,
            model_based=references[name] if is_model_based(references.get(name)) else None,
            calibration=calibrated_models.get(name)
            if is_model_based(references.get(name))
            else None,
            margin=margin,
        )
        for name, res in results.items()
    }
    flags = {name: f.flags for name, f in found.items()}
    headings: dict[str, Any] = dict(found)
    horizon_found = {
        name: horizon_findings(
            curve, adjust=adjust, min_events=min_events, min_pairs=min_pairs, time_unit=time_unit
        )
        for name, curve in (horizons or {}).items()
    }
    headings.update(
        {f"AUC(t){': ' + name if name else ''}": f for name, f in horizon_found.items()}
    )
    calibration_found = {
        name: calibration_findings(cal, adjust=adjust, min_events=min_events, time_unit=time_unit)
        for name, cal in calibrations.items()
    }
    headings.update(
        {f"calibration{': ' + name if name else ''}": f for name, f in calibration_found.items()}
    )

    from .._core.version import __version__

    binary = isinstance(main, XAUCResult)
    stamp = _dt.datetime.now().strftime(
        "%Y-%m-%d %H:%M"
    )  # one time for the header and the provenance
    summary_note = _summary_note(main, binary)
    many_groups = len(main.groups) > REPORT_TABLE_GROUPS  # tables of one row per group folded
    summary = for_people(data_summary if data_summary is not None else data_summary_table(main))
    internals = [
        c for c in summary.columns if str(c).startswith("censored") or c == "min_censoring_survival"
    ]
    settings_main, settings_internal = split_settings(settings_table(main, settings))
    verdict = verdict_table(
        results, found, model_based=reference_frames, calibration=calibrated_models
    )
    sentences = [
        _verdict_sentence(
            name, res, found[name], reference_frames.get(name), calibrated_models.get(name)
        )
        for name, res in results.items()
    ]
    tables: list[tuple[str, pd.DataFrame, str, bool]] = [
        ("Provenance", provenance_table(main, provenance, __version__, stamp), "", False),
        (
            "Settings",
            settings_main,
            "Estimator internals (" + ", ".join(settings_internal.index) + ") are in the appendix."
            if len(settings_internal)
            else "",
            False,
        ),
        ("Data summary", summary.drop(columns=internals), summary_note, many_groups),
    ]
    model_table = censoring_model_table(main)
    if model_table is not None:  # censoring="cox": the same fit for every model of the report
        tables.append(("Censoring model", model_table, censoring_weights_text(main), False))
    for name, res in results.items():  # IPCW: does censoring depend on the risk? (issue 42.4)
        check = getattr(res, "censoring_dependence", None)
        if check is not None:
            tables.append(
                (
                    f"Censoring check{': ' + name if name else ''}",
                    censoring_check_table(check),
                    _censoring_check_note(check),
                    False,
                )
            )
    sections, appendix = _sections(
        main, comparison, found, flags, horizons, horizon_found, time_unit, min_events
    )
    for name, frame in reference_frames.items():
        excess = excess_table(frame, found[name])
        if not excess.empty:
            sections.append(
                (
                    f"Excess Δbetween over the model-based reference{': ' + name if name else ''}",
                    excess,
                    "Observed Δbetween, what the model's own predictions imply (model-based), and "
                    "the excess = observed − model-based, in percentage points, each pair oriented "
                    "(a, b) with a before b in the group order, signed a − b.",
                    len(excess) > _FOLD_ROWS,
                )
            )
    for name, cal in calibrations.items():
        sections += _calibration_sections(cal, calibration_found[name], time_unit, name)
    tables += sections
    for name, table in (extra_tables or {}).items():
        tables.append((str(name), table, "", False))
    appendix = (
        _appendix(
            settings_internal,
            summary[internals],
            internals,
            cox=model_table is not None,
            folded=many_groups,
        )
        + appendix
    )

    images, figure_notes = _images(
        main, comparison, flags, time_unit, reference_frames, calibrations, figures, default_figures
    )

    meta = f"survfair {__version__}, {stamp}"
    note_html, note_md = _notes(main)
    verdict_note = _verdict_note(binary, bool(reference_frames), bool(calibrations))
    parts = {
        "verdict": (verdict, verdict_note, sentences),
        "headings": headings,
        "tables": tables,
        "appendix": appendix,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".md":
        path.write_text(
            markdown_page(path, title, meta, note_md, parts, images, figure_notes), encoding="utf-8"
        )
    else:
        path.write_text(
            html_page(title, meta, note_html, parts, images, figure_notes), encoding="utf-8"
        )
    return path


def _censoring_check_note(check: Any) -> str:
    """The censoring check's caption: on the risk alone (Kaplan–Meier weights) or given the Cox
    censoring model's covariates (``censoring="cox"``)."""
    if check.covariates:
        given = ", ".join(check.covariates)
        return (
            "Within each group, a Cox model of the censoring hazard on the risk standardised "
            f"within the group, adjusted for the censoring model's covariates ({given}) "
            "(lifelines; survfair.censoring_dependence): the hazard ratio of censoring per SD of "
            "the risk given them. Where it is clearly not 1 (Holm-adjusted p below 1 − the "
            "confidence level), censoring depends on the risk beyond those covariates and the "
            "Cox model's weights may bias the IPCW numbers; not rejecting it is no evidence of "
            "independent censoring given the covariates."
        )
    return (
        "Within each group, a Cox model of the censoring hazard on the risk "
        "standardised within the group (lifelines; survfair.censoring_dependence): "
        "the hazard ratio of censoring per SD of the risk. Where it is clearly not 1 "
        "(Holm-adjusted p below 1 − the confidence level), censoring depends on the "
        "risk and the Kaplan–Meier weights may bias the IPCW numbers; not rejecting "
        "it is no evidence of independent censoring."
    )


def _summary_note(main: Any, binary: bool) -> str:
    """The data summary's caption."""
    if binary:
        return "Per group: rows analysed, positives, negatives and the share of positives."
    return (
        "Per group: rows analysed and events"
        + (
            " of the cause of interest, competing events (other causes)"
            if getattr(main, "cause", None)
            else ""
        )
        + "; how many rows were censored, and the smallest censoring survival used as a weight, "
        "are in the appendix."
    )


def _appendix(
    settings_internal: pd.DataFrame,
    censoring: pd.DataFrame,
    internals: list,
    cox: bool = False,
    folded: bool = False,
) -> list:
    """The appendix's first sections: the estimator internals and the censoring per group (each
    only when there is something to show); ``cox``: the smallest censoring survival is the Cox
    model's prediction; ``folded``: the censoring per group is folded (many groups)."""
    sections = []
    if len(settings_internal):
        sections.append(
            (
                "Appendix: estimator internals",
                settings_internal,
                "The tie tolerance decides when two risk scores count as tied (a tied pair "
                "counts 1/2); strict = True is the paper's variant that counts only pairs with "
                "distinct times, and ties as 0.",
                False,
            )
        )
    if internals:
        sections.append(
            (
                "Appendix: censoring per group",
                censoring,
                "Censored rows and their share per group"
                + (
                    "; min_censoring_survival is the smallest predicted censoring survival "
                    "G(t | x) of the group's members up to the last weighted event time (the "
                    "Cox model of the censoring; positivity: a pair weighs 1 / (G G))."
                    if cox and "min_censoring_survival" in internals
                    else "; min_censoring_survival is the smallest censoring survival K_g used as "
                    "an IPCW weight (positivity: weights up to 1/K^2)."
                    if "min_censoring_survival" in internals
                    else "."
                ),
                folded,
            )
        )
    return sections


def _images(main, comparison, flags, time_unit, reference_frames, calibrations, figures, default):
    """The report's figures as PNG bytes with their captions, and the notes on figures left out;
    the default figures are closed once drawn (the caller's ``figures`` are left open)."""
    drawn, figure_notes = ({}, [])
    if default:
        drawn, figure_notes = _default_figures(main, comparison, flags, time_unit, reference_frames)
        for name, cal in calibrations.items():
            drawn.update(_calibration_figures(cal, time_unit, name))
    drawn.update({name: (fig, name) for name, fig in (figures or {}).items()})
    images = {name: (_png(fig), caption) for name, (fig, caption) in drawn.items()}
    if default:
        import matplotlib.pyplot as plt

        for name, (fig, _) in drawn.items():
            if name not in (figures or {}):
                plt.close(fig)
    return images, figure_notes


def _verdict_note(binary: bool, with_reference: bool, with_calibration: bool) -> str:
    """The verdict table's caption."""
    return (
        "One row per model: "
        + ("pooled AUC" if binary else "pooled C")
        + ", the worst-served cell, and the largest "
        "cross-group asymmetry Δbetween ((a, b) in the group order, signed a − b, in percentage "
        "points) with its "
        "interval and adjusted p-value"
        + ("; excess Δbetween = observed − model-based" if with_reference else "")
        + (
            "; calibration: observed / expected risk (O/E, 1 = right on average) and slope "
            "(1 = right spread) per group"
            if with_calibration
            else ""
        )
        + ". † marks a number that uses a cell resting on little data."
    )


def _per_model(value: Any, results: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``calibration=`` / ``model_based=`` as {model name: value}: a mapping as given; a single
    value is the one model's (a single calibration of a comparison belongs to no model: key "")."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        if len(results) == 1 and len(value) == 1 and next(iter(value)) not in results:
            return {
                next(iter(results)): next(iter(value.values()))
            }  # the only model, by another name
        named = {"" if k is None else str(k): v for k, v in value.items()}
        unknown = [k for k in named if k not in results and not (name == "calibration" and k == "")]
        if name == "model_based" and unknown:
            raise InvalidParameterError(
                f"model_based names no model of the result: {unknown} (models: {list(results)}).",
                parameter="model_based",
            )
        return named
    if len(results) == 1:
        return {next(iter(results)): value}
    if name == "calibration":
        return {"": value}
    raise InvalidParameterError(
        f"{name} must be a mapping {{model name: result}} for a comparison of {len(results)} "
        f"models, got {type(value).__name__}.",
        parameter=name,
    )
