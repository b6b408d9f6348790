"""``survfair audit``: xCI audit of risk columns of a file, the flchain demo, binary xAUC audits.

A thin consumer of the public result objects: it reads data, calls :func:`survfair.compare`
(which calls :func:`survfair.xci`) and the summaries, and prints.
"""

from __future__ import annotations

import argparse
import json
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._calibration.estimator import calibration
from .._calibration.stats import breslow_log_cumulative_hazard
from .._core.datasets import load_flchain
from .._core.exceptions import ExcludedRowsWarning
from .._core.options import check_n_jobs
from .._core.progress import PhaseBar
from .._core.results import XCIResult, labels_as_text
from .._models.comparison import compare
from .._models.fitting import fit_checked, risk_scores
from .._models.model_based import model_based_xci
from .._present.findings.horizons import horizon_findings
from .._present.findings.ranking import findings
from .._present.tables import (
    cell_reasons,
    censoring_check_table,
    censoring_model_table,
    censoring_weights_text,
    data_fingerprint,
    joint_tests_table,
    oriented_pairs,
    summary_frames,
    utility_note,
)
from .._present.text import (
    TEXT_TABLE_ROWS,
    has_intervals,
    matrix_text,
    summaries_text,
    text_table,
)
from . import _audit_options
from ._binary import (
    binary_audit,
    binary_long_table,
    horizon_frame,
    horizon_result,
    horizon_table,
    library_notes,
    render_binary,
)
from ._calibration import (
    calibration_audit,
    calibration_long_table,
    check_calibration,
    predicted_per_risk,
    render_calibration,
)
from ._errors import CLIError, library_errors, option_words, terminal_safe
from ._io import (
    REPORT_SUFFIXES,
    check_output_paths,
    check_report_path,
    neutralise_formulas,
    read_table,
    require_columns,
    staged_outputs,
    table_columns,
)
from ._json import dumps as json_dumps
from ._json import placeholder as json_placeholder
from ._model_based import check_model_based, excess_text, model_based_audits
from ._options import (
    ROW_OPTIONS,
    column_roles,
    excluded_note,
    match_groups,
    reporting_options,
    subset_groups,
)

__all__ = ["register", "run", "FLCHAIN_DEMO_TAU"]

#: Truncation used by the flchain demonstration: every group's censoring survival is still
#: above 0.79 at 4000 days (about 11 years), while it falls to 0.02 by the end of follow-up.
FLCHAIN_DEMO_TAU = 4000.0


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``audit`` subcommand (its options live in :mod:`survfair.cli._audit_options`)."""
    return _audit_options.register(subparsers)


# -- rendering ---------------------------------------------------------------------------------


def _format_text(
    name: str, result: XCIResult, notes: Sequence[str], reporting: dict, reference=None
) -> str:
    found = findings(result, model_based=reference, **reporting)
    tables = summary_frames(result, found)
    settings = f"method={result.method}"
    model = result.censoring_model
    if model is not None:  # --censoring cox: say on what
        covariates = ", ".join(str(c) for c in model.covariate_names)
        settings += f", censoring=cox (Cox model on {covariates}), tau={result.tau}"
    elif result.method == "ipcw":
        settings += f", censoring={result.censoring}, tau={result.tau}"
    elif result.tau is not None:  # the naive estimator truncates at tau too
        settings += f", tau={result.tau}"
    if result.n_clusters is not None:
        settings += f"; {result.n_clusters} clusters (cluster-robust intervals)"
    if result.delayed_entry:
        settings += "; delayed entry"
    if result.weighted:
        settings += "; case weights"
    if result.cause is not None:
        settings += f"; competing risks: cause {result.cause} (cause-specific xCI)"
    lines = [
        f"== {name} ==",
        "findings:",
        option_words(found.to_text()),
        "",
        f"n = {result.n_samples}, groups = {list(result.groups)}; {settings}",
        *notes,
    ]
    if result.min_censoring_survival:  # as in the JSON output: the smallest K_g used as a weight
        smallest = ", ".join(f"{g}: {k:.3g}" for g, k in result.min_censoring_survival.items())
        if model is not None:
            lines.append(f"smallest predicted censoring survival G(t | x) per group: {smallest}")
        else:
            lines.append(f"smallest censoring survival K_g used as a weight: {smallest}")
    if model is not None:  # --censoring cox: what the weights are, and the model's coefficients
        lines += [
            f"censoring model: {censoring_weights_text(result)}",
            text_table(censoring_model_table(result).reset_index(), index=False),
        ]
    check = result.censoring_dependence  # IPCW only (issue 42.4)
    if check is not None:
        given = f" given {', '.join(check.covariates)}" if check.covariates else ""
        lines += [
            f"censoring depends on the risk{given}? (survfair.censoring_dependence: Cox model of "
            "the censoring hazard within each group; not rejecting is no evidence of "
            "independence)",
            text_table(censoring_check_table(check).reset_index(), index=False),
        ]
    with pd.option_context("display.precision", 4, "display.width", 140, "display.max_columns", 20):
        lines += matrix_text(result)
        counts = result.counts.drop(columns=["xci"])
        lines += ["", "pair counts:", text_table(counts, index=False, float_format="{:.6g}".format)]
        boot = (
            None
            if getattr(result, "bootstrap", None) is None
            else int(result.bootstrap.cells.shape[0])
        )
        # each pair (a, b) with a before b in the group order, signed a - b, as every table
        summaries = oriented_pairs(tables["summaries"], result.groups)
        lines += [
            "",
            f"summaries (p_adjusted: {reporting['adjust']} within each family of differences; each "
            "pair (a, b) in the group order, value = a - b; † uses a cell resting on little data):",
            summaries_text(summaries.head(TEXT_TABLE_ROWS), boot, has_intervals(result)),
        ]
        if len(summaries) > TEXT_TABLE_ROWS:
            lines.append(
                f"... and {len(summaries) - TEXT_TABLE_ROWS} more rows: every row is in --format "
                "csv or --format json"
            )
        if tables["joint_tests"] and has_intervals(result):
            lines += [
                "",
                "joint Wald tests (survfair.omnibus_test; contrasts with an undefined cell or a "
                "cell with standard error 0 left out):",
                joint_tests_table(tables["joint_tests"]).to_string(),
            ]
        if reference is not None:
            lines += [
                "",
                "excess over the model-based reference (observed - what the model's own "
                "predictions imply; interval and p-values of the excess, p_adjusted: "
                f"{reporting['adjust']} within each family):",
                excess_text(reference, reporting["adjust"]),
            ]
        flagged = found.flags[found.flags["flagged"]]
        if not flagged.empty:
            lines += [
                "",
                "cells resting on little data:",
                text_table(flagged[["a", "b", "reason"]], index=False),
            ]
        if result.ci_method == "analytic":
            lines.append(
                "(min_xci: an interval that accounts for selecting the minimum needs --ci "
                "bootstrap)"
            )
        unequal = utility_note(result)
        if unequal is not None:  # equal by construction: one line saying why, not a table
            lines += ["", f"utility U(a) (alpha = beta = 1): {unequal}."]
        else:
            utilities = tables["utility"]
            if not has_intervals(result):
                utilities = utilities[["group", "value"]]
            lines += [
                "",
                "utility U(a) (alpha = beta = 1):",
                text_table(utilities, index=False, float_format="{:.4f}".format),
            ]
    return "\n".join(lines) + "\n"


#: Leading columns of the CSV table; the count columns of the cells and horizons follow.
CSV_COLUMNS = ["name", "kind", "statistic", "a", "b", "value", "se", "ci_low", "ci_high", "p_value"]


def long_table(
    name: str,
    result: XCIResult,
    horizons: pd.DataFrame | None = None,
    reporting: dict | None = None,
    horizon_found=None,
    reference=None,
) -> pd.DataFrame:
    """The CSV table of one risk column: tidy, one row per number.

    ``kind`` "cell": one row per xCI cell (statistic "xci"; the pair counts, numerator and
    denominator, and ``xci`` = ``value``). ``kind`` "summary": delta_within and delta_between for
    every pair (a, b), min_xci (a, b = its cell), overall_c, utility (a = the group), n_samples and
    n_excluded (rows outside --groups). ``kind`` "horizon": one row per xAUC(t) cell (statistic
    "xauc_t", ``time``, cases, controls, ...); ``kind`` "horizon_summary": delta_within and
    delta_between of every pair at every horizon (``time``), p-values adjusted as in the report.
    ``kind`` "excess" (with a model-based reference): delta_between and delta_within of every pair,
    ``value`` the excess (observed - model-based) with its se, interval and p-value, and the
    ``observed`` and ``model_based`` values. ``kind`` "censoring_model" (``--censoring cox``): one
    row per covariate of the censoring model (``a``), statistic "log_hazard_ratio".
    """
    found = findings(result, model_based=reference, **(reporting or {}))
    cells = result.to_frame().assign(kind="cell", statistic="xci", p_value=np.nan)
    cells["value"] = cells["xci"]
    cells["flag"] = cell_reasons(cells, found.flags)
    tables = summary_frames(result, found)
    summaries = tables["summaries"].rename(columns={"summary": "statistic"}).assign(kind="summary")
    utilities = (
        tables["utility"]
        .rename(columns={"group": "a"})
        .assign(kind="summary", statistic="utility", b="", p_value=np.nan)
    )
    counts = pd.DataFrame(
        [
            {
                "kind": "summary",
                "statistic": "n_samples",
                "a": "",
                "b": "",
                "value": result.n_samples,
            },
            {
                "kind": "summary",
                "statistic": "n_excluded",
                "a": "",
                "b": "",
                "value": result.n_excluded,
            },
        ]
    )
    parts = [cells, summaries, utilities, counts]
    if result.censoring_model is not None:  # --censoring cox: the censoring model's coefficients
        coefficients = result.censoring_model.to_frame()
        parts.append(
            pd.DataFrame(
                {
                    "kind": "censoring_model",
                    "statistic": "log_hazard_ratio",
                    "a": [str(c) for c in coefficients["covariate"]],
                    "b": "",
                    "value": coefficients["coefficient"].to_numpy(float),
                }
            )
        )
    if reference is not None:
        excess = reference.summaries().rename(columns={"summary": "statistic"})
        parts.append(excess.assign(kind="excess", value=excess["excess"]).drop(columns="excess"))
    if horizons is not None:
        if horizon_found is not None:  # kind "horizon_summary": Δwithin / Δbetween at every horizon
            deltas = horizon_found.deltas.rename(columns={"summary": "statistic"})
            parts.append(
                deltas[
                    [c for c in deltas.columns if c not in ("flagged", "no_variance_cell")]
                ].assign(kind="horizon_summary")
            )
        parts.append(
            horizons.rename(columns={"xauc": "value"}).assign(
                kind="horizon", statistic="xauc_t", p_value=np.nan
            )
        )
    # counts stay integers (empty, not NaN, on the rows without them)
    parts = [
        part.astype({c: "Int64" for c in part.columns if pd.api.types.is_integer_dtype(part[c])})
        for part in parts
    ]
    table = pd.concat(parts, ignore_index=True).assign(name=name)
    return table[CSV_COLUMNS + [c for c in table.columns if c not in CSV_COLUMNS]]


def _render(
    named_results,
    output_format: str,
    horizons: dict,
    reporting: dict,
    calibrated=None,
    args: argparse.Namespace | None = None,
    horizon_found: dict | None = None,
    references: dict | None = None,
    calibrations: dict | None = None,
) -> str:
    horizon_found, references = horizon_found or {}, references or {}
    calibrations = calibrations or {}

    def for_name(name: str) -> dict:
        # the findings test the calibration the model-based reading assumes (issue 41)
        if name in calibrations and name in references:
            return {**reporting, "calibration": calibrations[name]}
        return reporting

    if output_format == "json":
        payload, long_lists = [], {}
        for name, result, notes in named_results:
            found = findings(result, model_based=references.get(name), **for_name(name))
            # the cells and the flagged cells (4 million each at 2,000 groups) are written from
            # their tables, not as a dictionary per cell (survfair.cli._json)
            cells, flagged = json_placeholder(), json_placeholder()
            table = labels_as_text(result.to_frame())
            long_lists.update({cells: table, flagged: found.flags[found.flags["flagged"]]})
            entry = {
                "name": name,
                "notes": notes,
                "findings": found.to_dict(flagged_cells=False),
                **result.to_dict(cells=False),
            }
            entry["findings"]["flagged_cells"] = flagged  # in place: the keys keep their order
            entry["cells"] = cells
            if result.censoring_dependence is not None:  # IPCW: the censoring check (issue 42.4)
                entry["censoring_dependence"] = result.censoring_dependence.to_dict()
            if name in references:  # observed, model-based and excess per cell and per pair
                reference = references[name].to_dict()
                entry["model_based"] = {
                    key: reference[key] for key in ("reference", "tau", "cells", "summaries")
                }
            tables = summary_frames(result, found)
            entry["summaries"] = json.loads(tables["summaries"].to_json(orient="records"))
            entry["joint_tests"] = [test.to_dict() for test in tables["joint_tests"]]
            entry["utility"] = json.loads(tables["utility"].to_json(orient="records"))
            if horizons.get(name) is not None:
                entry["horizons"] = json.loads(horizons[name].to_json(orient="records"))
            if name in horizon_found:  # Δwithin / Δbetween at every horizon, with adjusted p-values
                entry["horizon_differences"] = json.loads(
                    horizon_found[name].deltas.to_json(orient="records")
                )
                entry["horizon_findings"] = list(horizon_found[name].sentences)
            payload.append(entry)
        for risk, (audit, columns) in (
            calibrated or {}
        ).items():  # one more entry per calibrated --risk
            risk = risk if len(calibrated) > 1 else ""  # one calibration: named as before
            payload.append(
                {
                    "name": "calibration of predicted risks" + (f": risk = {risk}" if risk else ""),
                    **render_calibration(audit, "json", columns, risk)["calibration"],
                }
            )
        return json_dumps(payload, long_lists, indent=2) + "\n"
    if output_format == "csv":
        parts = [
            long_table(
                name,
                result,
                horizons.get(name),
                for_name(name),
                horizon_found.get(name),
                references.get(name),
            )
            for name, result, _ in named_results
        ]
        for risk, (audit, _) in (calibrated or {}).items():
            parts.append(
                calibration_long_table(
                    audit[0],
                    "calibration of predicted risks"
                    + (f": risk = {risk}" if risk and len(calibrated) > 1 else ""),
                )
            )
        frame = pd.concat(parts, ignore_index=True)
        frame = frame[CSV_COLUMNS + [c for c in frame.columns if c not in CSV_COLUMNS]]
        return neutralise_formulas(frame).to_csv(index=False)
    return "\n".join(
        _format_text(name, result, notes, for_name(name), references.get(name))
        for name, result, notes in named_results
    )


# -- computing ---------------------------------------------------------------------------------


def _fit_cox(design: pd.DataFrame, time: np.ndarray, event: np.ndarray) -> np.ndarray:
    """Risk scores of scikit-survival's Cox PH model; a fit that did not converge is an error
    (:func:`survfair.fit_checked`), never a result."""
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    model = fit_checked(CoxPHSurvivalAnalysis(), design, Surv.from_arrays(event=event, time=time))
    return risk_scores(model, design)


def _xci_options(args: argparse.Namespace, groups: list | None) -> dict:
    """Keyword arguments of :func:`survfair.xci` from the audit options."""
    options = {
        "method": args.method,
        "tau": args.tau,
        "censoring": args.censoring,
        "confidence_level": args.confidence_level,
    }
    if groups is not None:
        options["groups"] = groups
    options["ci"] = None if args.ci == "none" else args.ci
    options["n_jobs"] = args.n_jobs
    options["progress"] = args.progress  # the bootstrap's bar
    for role in ROW_OPTIONS:
        if getattr(args, role, None):
            options[role] = getattr(args, role)
    if args.cause is not None:
        options["cause"] = args.cause
    if args.censoring == "cox":
        options["censoring_covariates"] = list(args.censoring_covariates)
    if args.ci == "bootstrap":
        options.update(
            n_resamples=args.n_resamples,
            random_state=args.seed,
            bootstrap_method=args.bootstrap_method,
            stratify=None if args.stratify == "none" else args.stratify,
        )
    return options


def _compare(models: dict, time, event, group, *, data: pd.DataFrame, options: dict):
    """:func:`survfair.compare`, without the library's warning about rows outside ``groups=``
    (the command line states that count in its own words)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        return compare(time, event, group, models, data=data, **options)


def _flchain_demo(args: argparse.Namespace):
    cohort = load_flchain()
    frame = cohort.frame
    groups = match_groups(frame, ["sex"], args.groups)
    notes = [
        f"data: flchain (scikit-survival), {cohort.n_loaded} people; {cohort.n_dropped} rows "
        f"dropped ({cohort.dropped_reason}), {len(frame)} analysed; outcome death, time in days; "
        "group = sex.",
    ]
    options = _xci_options(args, groups)
    if args.tau is None and args.method == "ipcw":
        options["tau"] = FLCHAIN_DEMO_TAU
        notes.append(
            f"tau = {FLCHAIN_DEMO_TAU:g} days (demo default; "
            "censoring survival is >= 0.79 in both sexes there)."
        )
    models = {
        "Cox PH with sex": list(cohort.covariates),
        "Cox PH without sex": [c for c in cohort.covariates if c != "female"],
    }
    scores = {
        name: _fit_cox(
            cohort.design[covariates], frame["time"].to_numpy(), frame["event"].to_numpy()
        )
        for name, covariates in models.items()
    }
    comparison = _compare(scores, "time", "event", "sex", data=frame, options=options)
    references = _demo_references(args, frame, scores, options)
    calibrations = _demo_calibrations(args, frame, scores, groups)
    excluded = excluded_note(next(iter(comparison.results.values())).n_excluded, args.groups)
    named = [
        (
            f"flchain: {name}",
            comparison.results[name],
            notes
            + excluded
            + [f"model: scikit-survival CoxPHSurvivalAnalysis on {models[name]} (converged)."],
        )
        for name in models
    ]
    settings = {
        "data": "flchain (scikit-survival)",
        "rows dropped": f"{cohort.n_dropped} ({cohort.dropped_reason})",
        "group": "sex",
        **{f"model {k}": ", ".join(v) for k, v in models.items()},
    }
    return (
        named,
        comparison,
        settings,
        {f"flchain: {name}": reference for name, reference in references.items()},
        {f"flchain: {name}": result for name, result in calibrations.items()},
    )


def _demo_references(
    args: argparse.Namespace, frame: pd.DataFrame, scores: dict, options: dict
) -> dict:
    """Each demo Cox model's model-based reference (its linear predictor, Breslow baseline): the
    demo shows how much of each asymmetry the model's own predictions imply."""
    keep = {k: v for k, v in options.items() if k in ("method", "tau", "censoring", "groups")}
    # analytic even with --ci bootstrap: a bootstrap reference refits the exact PH form on 6,524
    # rows per replicate (about a second each), half an hour for the demo's two models
    ci = None if args.ci == "none" else "analytic"
    with library_notes():
        return {
            name: model_based_xci(
                frame["time"].to_numpy(),
                frame["event"].to_numpy(),
                frame["sex"].to_numpy(),
                score,
                linear_predictor=score,
                ci=ci,
                confidence_level=args.confidence_level,
                **keep,
            )
            for name, score in scores.items()
        }


#: The demo's calibration horizons: 5 and 10 years, both before its tau of 4,000 days.
DEMO_HORIZONS = (1825.0, 3650.0)


def _demo_calibrations(
    args: argparse.Namespace, frame: pd.DataFrame, scores: dict, groups: list | None
) -> dict:
    """Each demo Cox model's calibration within and between sexes at 5 and 10 years, of the very
    predictions its model-based reference rests on (1 - exp(-H0(t) exp(lp)), Breslow's H0 of the
    same rows): the findings test the assumption of the model-based reading (issue 41).

    The findings read O/E, the intercept and the GND test only; the slope and the smooth curve
    (16 lifelines Cox fits, half the demo's time) are shown by the report alone, so they are
    fitted only with ``--report``."""
    time = frame["time"].to_numpy(dtype=float)
    event = frame["event"].to_numpy(dtype=bool)
    out = {}
    with library_notes():
        for name, score in scores.items():
            lp = np.asarray(score, dtype=float)
            risks = np.column_stack(
                [
                    -np.expm1(-np.exp(lp + breslow_log_cumulative_hazard(time, event, lp, t)))
                    for t in DEMO_HORIZONS
                ]
            )
            out[name] = calibration(
                time,
                event,
                frame["sex"].to_numpy(),
                risks,
                list(DEMO_HORIZONS),
                groups=groups,
                ci=None if args.ci == "none" else "analytic",
                confidence_level=args.confidence_level,
                slope_and_curve=bool(args.report),
            )
    return out


def _file_audit(args: argparse.Namespace, frame: pd.DataFrame):
    groups = match_groups(frame, args.group, args.groups)
    notes = [
        f"data: {args.data}, {len(frame)} rows (rows are never dropped; invalid values are errors)."
    ]
    covariates = getattr(args, "censoring_covariates", None) or []
    roles = {"censoring_covariates": "--censoring-covariates " + " ".join(map(repr, covariates))}
    with library_errors(column_roles(args, **(roles if covariates else {}))):
        comparison = _compare(
            {risk: risk for risk in args.risk},
            args.time,
            args.event,
            args.group[0] if len(args.group) == 1 else list(args.group),
            data=frame,
            options=_xci_options(args, groups),
        )
    n_excluded = next(iter(comparison.results.values())).n_excluded
    notes += excluded_note(n_excluded, args.groups)
    named = [(f"risk = {risk}", comparison.results[risk], notes) for risk in args.risk]
    settings = {
        "data": args.data,
        "time": args.time,
        "event": args.event,
        "group": " x ".join(args.group),
        "risk": ", ".join(args.risk),
        "rows": len(frame),
        "rows dropped": 0,
    }
    if getattr(args, "cluster", None):
        settings["cluster"] = (
            f"{args.cluster} ({comparison.results[args.risk[0]].n_clusters} clusters)"
        )
    for role in ("entry", "weights"):
        if getattr(args, role, None):
            settings[role] = getattr(args, role)
    if args.cause is not None:
        settings["cause of interest"] = (
            f"{args.cause} (other causes of {args.event} are competing events)"
        )
    if getattr(args, "predicted", None):
        for risk, columns in predicted_per_risk(args).items():
            settings[
                "predicted risks (horizon: column)"
                + (f", risk {risk}" if risk and len(args.risk) > 1 else "")
            ] = ", ".join(f"{t:g}: {c}" for t, c in zip(args.horizon, columns))
    if args.groups:
        settings.update(
            {"groups": ", ".join(args.groups), "rows excluded (other groups)": n_excluded}
        )
    return named, comparison, settings


def _one_risk(args: argparse.Namespace, risk: str) -> argparse.Namespace:
    """The options with a single ``--risk`` column, for the per-score binary and horizon tables."""
    return argparse.Namespace(**{**vars(args), "risk": risk})


def _is_binary(args: argparse.Namespace) -> bool:
    return bool(args.binary or (args.data and args.time is None and args.outcome))


def _check(args: argparse.Namespace) -> list[str] | None:
    """Every check that needs no computing: option combinations, output paths, the data's columns.

    Returns the columns to read (None for the demo)."""
    binary = _is_binary(args)
    # once, before anything is read: nonsense is an error naming --n-jobs, a count beyond the
    # cores is capped with one warning (the library then receives the capped count)
    args.n_jobs = check_n_jobs(args.n_jobs)
    for option, value in (("--min-events", args.min_events), ("--min-pairs", args.min_pairs)):
        if value < 0:
            raise CLIError(f"{option} must be an integer >= 0, got {value}.")
    _check_censoring(args, binary)
    if args.time_unit is not None and not args.time_unit.strip():
        raise CLIError("--time-unit must not be empty (leave it out to state no unit).")
    if binary:
        if not args.data:
            raise CLIError("--binary needs --data.")
        missing = [
            flag
            for flag, value in (
                ("--outcome", args.outcome),
                ("--group", args.group),
                ("--risk", args.risk),
            )
            if not value
        ]
        if missing:
            raise CLIError(f"the binary audit needs {', '.join(missing)}.")
        if args.horizon:
            raise CLIError(
                "--horizon needs a survival audit (--time and --event), not a binary one."
            )
        given = [f"--{role}" for role in ROW_OPTIONS if getattr(args, role, None)]
        given += ["--cause"] if args.cause is not None else []
        if given:
            raise CLIError(
                f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} a survival audit "
                "(--time and --event); the binary xAUC audit takes neither clusters, entry times, "
                "case weights nor causes."
            )
        if args.report and len(args.risk) > 1:
            raise CLIError(
                "--report of a binary audit takes one --risk column; "
                "give one, or one report per run."
            )
        check_model_based(
            args
        )  # refuses the model-based options: the binary audit has none on the CLI yet
    elif getattr(args, "predicted", None) and not args.data:
        raise CLIError("--predicted needs --data (a survival audit with --time and --event).")
    elif args.data:
        missing = [
            flag
            for flag, value in (
                ("--time", args.time),
                ("--event", args.event),
                ("--group", args.group),
                ("--risk", args.risk),
            )
            if not value
        ]
        if missing:
            raise CLIError(f"with --data, also give {', '.join(missing)}.")
    else:
        if args.horizon:
            raise CLIError("--horizon needs --data (the flchain demo audits the concordance only).")
        given = [f"--{role}" for role in ROW_OPTIONS if getattr(args, role, None)]
        given += ["--cause"] if args.cause is not None else []
        if given:
            raise CLIError(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --data.")
        given = [
            flag
            for flag, value in (
                ("--time", args.time),
                ("--event", args.event),
                ("--group", args.group),
                ("--risk", args.risk),
                ("--outcome", args.outcome),
            )
            if value
        ]
        if given:
            raise CLIError(
                f"{', '.join(given)} need --data (without --data, audit runs the flchain demo)."
            )
    check_output_paths(
        {"--output": args.output, "--report": args.report},
        data=args.data,
        suffixes={"--report": REPORT_SUFFIXES},
        stdout="--output",
    )
    if not args.data:
        return None
    wanted = {"--group": args.group, "--risk": args.risk}
    if binary:
        wanted["--outcome"] = [args.outcome]
    else:
        wanted.update({"--time": [args.time], "--event": [args.event]})
    predicted = check_calibration(args)
    if predicted:
        wanted["--predicted"] = predicted
    if not binary:
        reference_columns = check_model_based(args)
        if reference_columns:
            wanted["--model-based-lp / --model-based-survival"] = reference_columns
    for role in ROW_OPTIONS:
        if getattr(args, role, None):
            wanted[f"--{role}"] = [getattr(args, role)]
    if getattr(args, "censoring_covariates", None):
        wanted["--censoring-covariates"] = list(args.censoring_covariates)
    require_columns(args.data, table_columns(args.data), wanted)
    return list(dict.fromkeys(column for columns in wanted.values() for column in columns))


def _check_censoring(args: argparse.Namespace, binary: bool) -> None:
    """``--censoring cox`` and ``--censoring-covariates``: what they need and what they do not
    combine with yet, refused before anything is read or computed."""
    covariates = getattr(args, "censoring_covariates", None)
    cox = args.censoring == "cox"
    if covariates and not cox:
        raise CLIError(
            "--censoring-covariates is used only with --censoring cox (the Cox model of the "
            f"censoring); got --censoring {args.censoring}."
        )
    if not cox:
        return
    if binary:
        raise CLIError(
            "--censoring cox needs a survival audit (--time and --event); the binary xAUC audit "
            "has no censoring."
        )
    if not args.data:
        raise CLIError(
            "--censoring cox needs --data and --censoring-covariates (the flchain demo uses "
            "Kaplan-Meier censoring weights)."
        )
    if not covariates:
        raise CLIError(
            "--censoring cox needs --censoring-covariates COL [COL ...]: the columns of the Cox "
            "model of the censoring."
        )
    others = [
        option
        for option, value in (
            ("--model-based-lp", getattr(args, "model_based_lp", None)),
            ("--model-based-survival", getattr(args, "model_based_survival", None)),
            ("--cause", args.cause is not None),
        )
        if value
    ]
    if others:
        raise CLIError(
            f"--censoring cox is not available with {', '.join(others)} yet (it weights the "
            "xCI, AUC(t) and the Brier scores, without competing risks; the model-based reference "
            "takes Kaplan-Meier weights); run "
            + ("it" if len(others) == 1 else "them")
            + " in a separate audit with --censoring group."
        )


def _binary_run(args: argparse.Namespace, frame: pd.DataFrame) -> int:
    groups = match_groups(frame, args.group, args.groups)
    frame, n_excluded = subset_groups(frame, args.group, groups)
    notes = excluded_note(n_excluded, args.groups)
    audits = [binary_audit(_one_risk(args, risk), frame) for risk in args.risk]
    if args.format == "csv":
        table = pd.concat([binary_long_table(audit) for audit in audits], ignore_index=True)
        text = neutralise_formulas(table).to_csv(index=False)
    elif args.format == "json":
        texts = [render_binary(audit, "json", notes, reporting_options(args)) for audit in audits]
        text = (texts[0] if len(texts) == 1 else "[\n" + ",\n".join(texts) + "\n]") + "\n"
    else:  # labels from the file are printed, never obeyed by a terminal
        text = terminal_safe(
            "\n".join(
                render_binary(audit, "table", notes, reporting_options(args)) for audit in audits
            )
        )
    settings = {}
    if args.report:
        audit = audits[0]
        settings = {
            "data": args.data,
            "outcome": args.outcome,
            "positive": audit.positive,
            "group": " x ".join(args.group),
            "score": audit.risk,
            "rows": len(frame) + n_excluded,
        }
        if args.groups:
            settings.update(
                {"groups": ", ".join(args.groups), "rows excluded (other groups)": n_excluded}
            )
    with staged_outputs() as stage:
        stage.text(text, args.output)
        if args.report:  # last: if it fails, the staged output is discarded
            from .._present.report import write_report  # its modules load only to write one

            check_report_path(args.report)  # again: the path may have changed while computing
            settings, provenance = _split_provenance(settings, _provenance(args, frame))
            write_report(
                audits[0].result,
                args.report,
                settings=settings,
                provenance=provenance,
                title="survfair binary (xAUC) audit report",
                **reporting_options(args),
            )
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``survfair audit``; returns the exit code (errors are raised,
    see :mod:`survfair.cli`)."""
    columns = _check(args)
    frame = read_table(args.data, columns, progress=args.progress) if args.data else None
    if _is_binary(args):
        return _binary_run(args, frame)
    with PhaseBar(_phases(args), "survfair audit", args.progress) as phases:
        return _survival_run(args, frame, phases)


def _phases(args: argparse.Namespace) -> list[str]:
    """The long phases of a survival audit, in the order :func:`_survival_run` advances through
    them."""
    names = ["pair counts" + ("" if args.ci == "none" else f" and {args.ci} intervals")]
    if args.horizon:
        names.append("AUC(t) at the horizons")
    if getattr(args, "predicted", None):
        names.append("calibration")
    if check_model_based(args):
        names.append("model-based reference")
    return names + ["findings and output"]


def _survival_run(args: argparse.Namespace, frame: pd.DataFrame | None, phases: PhaseBar) -> int:
    phases.advance()  # the pair counts
    if frame is not None:
        named_results, comparison, settings = _file_audit(args, frame)
        references: dict = {}  # {result name: ModelBasedResult}
        demo_calibrations: dict = {}  # {result name: CalibrationResult}
    else:
        named_results, comparison, settings, references, demo_calibrations = _flchain_demo(args)
    groups = subset = (
        None  # the audited labels and rows of the file, for the analyses beside the xCI
    )
    if frame is not None:
        groups = match_groups(frame, args.group, args.groups)
        subset, _ = subset_groups(frame, args.group, groups)
    horizons: dict = {}
    horizon_found: dict = {}
    horizon_results: dict = {}
    horizon_text = ""
    if args.horizon:
        phases.advance()
        for (name, _, _), risk in zip(named_results, args.risk):
            one = _one_risk(args, risk)
            computed = horizon_result(one, subset)
            horizon_results[risk] = computed[0]
            if args.format == "table":
                horizon_text += "\n" + horizon_table(one, subset, computed)
            else:
                horizons[name], _ = horizon_frame(one, subset, computed)
                if (
                    computed[0] is not None
                ):  # the differences per horizon, adjusted as in the report
                    horizon_found[name] = horizon_findings(
                        computed[0],
                        time_unit=getattr(args, "time_unit", None),
                        **reporting_options(args),
                    )
    reporting = reporting_options(args)
    calibrated = None  # {risk column: (calibration audit, its --predicted columns)}
    if getattr(args, "predicted", None):
        phases.advance()
        calibrated = {
            risk: (
                calibration_audit(
                    argparse.Namespace(**{**vars(args), "predicted": columns}), subset, groups
                ),
                columns,
            )
            for risk, columns in predicted_per_risk(args).items()
        }
    if frame is not None and check_model_based(args):
        phases.advance()
        by_risk, reference_notes = model_based_audits(args, subset, groups)
        for (name, _, notes), risk in zip(named_results, args.risk):
            if risk in by_risk:
                references[name] = by_risk[risk]
                notes.extend(note for note in reference_notes if note not in notes)
    phases.advance()  # findings and output
    text = (
        _render(
            named_results,
            args.format,
            horizons,
            reporting,
            calibrated,
            args,
            horizon_found,
            references,
            {**_calibrations_by_name(calibrated, named_results, args.risk), **demo_calibrations},
        )
        + horizon_text
    )
    if calibrated is not None and args.format == "table":
        text += "".join(
            "\n" + render_calibration(audit, "table", columns, risk if len(calibrated) > 1 else "")
            for risk, (audit, columns) in calibrated.items()
        )
    if args.format == "table":  # labels from the file are printed, never obeyed by a terminal
        text = terminal_safe(text)
    with staged_outputs() as stage:
        stage.text(text, args.output)
        if args.report:  # last: if it fails, the staged output is discarded
            from .._present.report import write_report  # its modules load only to write one

            check_report_path(args.report)  # again: the path may have changed while computing
            first = next(iter(comparison.results.values()))
            settings, provenance = _split_provenance(settings, _provenance(args, frame))
            write_report(
                comparison if len(comparison.results) > 1 else first,
                args.report,
                settings=settings,
                provenance=provenance,
                horizons=horizon_results or None,
                calibration=_report_references(demo_calibrations, named_results, comparison)
                if calibrated is None
                else _report_calibrations(calibrated, comparison),
                model_based=_report_references(references, named_results, comparison),
                time_unit=args.time_unit,
                **reporting,
            )
    return 0


def _report_references(references: dict, named_results, comparison) -> Any:
    """``write_report``'s ``model_based=``: the reference of each model, by the model names of the
    report (its results' keys, in the order of the named results); None without references."""
    if not references:
        return None
    by_model = {
        model: references[name]
        for model, (name, _, _) in zip(comparison.results, named_results)
        if name in references
    }
    return by_model if len(comparison.results) > 1 else next(iter(by_model.values()), None)


def _calibrations_by_name(calibrated: dict | None, named_results, risks) -> dict:
    """{result name: CalibrationResult} of the --predicted columns of each --risk (the single
    calibration of no particular column belongs to a single --risk)."""
    out = {}
    for (name, _, _), risk in zip(named_results, risks or [None] * len(named_results)):
        entry = (calibrated or {}).get(risk)
        if entry is None and len(named_results) == 1:
            entry = (calibrated or {}).get("")
        if entry is not None and entry[0] is not None:
            out[name] = entry[0][0]
    return out


def _report_calibrations(calibrated: dict, comparison) -> Any:
    """``write_report``'s ``calibration=``: one CalibrationResult per model (the models of the
    report are named by their --risk column), or the single calibration of no particular column."""
    results = {risk: audit[0] for risk, (audit, _) in calibrated.items()}
    if "" in results:
        return results[""]
    return results if len(comparison.results) > 1 else next(iter(results.values()))


#: settings entries that say where the data come from: shown under the report's provenance
_PROVENANCE_KEYS = ("data", "rows", "rows dropped", "rows excluded (other groups)")


def _split_provenance(settings: dict, provenance: dict) -> tuple[dict, dict]:
    moved = {k: v for k, v in settings.items() if k in _PROVENANCE_KEYS}
    return {k: v for k, v in settings.items() if k not in _PROVENANCE_KEYS}, {**provenance, **moved}


def _provenance(args: argparse.Namespace, frame: pd.DataFrame | None) -> dict:
    """The command, the input file and the SHA-256 of the columns analysed (for the report)."""
    items = {"command": getattr(args, "command_line", "survfair audit")}
    if frame is None:
        return items
    columns = [
        c
        for c in [
            args.time,
            args.event,
            getattr(args, "outcome", None),
            *(args.group or []),
            *(args.risk or []),
            *(getattr(args, "predicted", None) or []),
            *(getattr(args, role, None) for role in ROW_OPTIONS),
            *(getattr(args, "censoring_covariates", None) or []),
        ]
        if c
    ]
    items["data"] = str(args.data)
    items["data SHA-256 (columns " + ", ".join(dict.fromkeys(columns)) + ")"] = data_fingerprint(
        frame[list(dict.fromkeys(columns))]
    )
    return items
