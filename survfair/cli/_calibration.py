"""``survfair audit --horizon T --predicted COLUMN``: calibration of predicted risks within groups.

A thin consumer of :func:`survfair.calibration` and :func:`survfair.calibration_findings`.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from .._calibration.estimator import calibration
from .._calibration.result import CalibrationResult
from .._present.findings.calibration import CalibrationFindings, calibration_findings
from ._binary import library_notes
from ._errors import CLIError, library_errors, option_words
from ._options import column_roles, group_argument, risk_columns

__all__ = [
    "check_calibration",
    "predicted_per_risk",
    "calibration_audit",
    "render_calibration",
    "calibration_long_table",
]


def check_calibration(args: argparse.Namespace) -> list[str]:
    """The option rules of ``--predicted``; returns the columns it needs."""
    predicted = getattr(args, "predicted", None) or []
    if not predicted:
        return []
    if not args.data or args.time is None:
        raise CLIError("--predicted needs a survival audit with --data, --time and --event.")
    horizons = args.horizon or []
    risks = risk_columns(args)
    if len(predicted) != len(horizons) and not (
        len(risks) > 1 and len(predicted) == len(horizons) * len(risks)
    ):
        several = (
            f", or one per --horizon for each of the {len(risks)} --risk columns "
            f"({len(horizons) * len(risks)})"
            if len(risks) > 1
            else ""
        )
        raise CLIError(
            f"give one --predicted column per --horizon, in the same order{several}; got "
            f"{len(predicted)} --predicted and {len(horizons)} --horizon."
        )
    return list(predicted)


def predicted_per_risk(args: argparse.Namespace) -> dict[str, list[str]]:
    """The ``--predicted`` columns of each ``--risk`` column (checked by :func:`check_calibration`):
    ``{risk: columns}`` when there is one set of columns per horizon for each risk, else
    ``{"": columns}`` (one calibration, of no particular risk column)."""
    predicted = list(getattr(args, "predicted", None) or [])
    risks, k = risk_columns(args), len(args.horizon or [])
    if len(risks) > 1 and k and len(predicted) == k * len(risks):
        return {risk: predicted[i * k : (i + 1) * k] for i, risk in enumerate(risks)}
    if len(risks) == 1 and predicted:
        return {risks[0]: predicted}
    return {"": predicted} if predicted else {}


def calibration_audit(
    args: argparse.Namespace, frame: pd.DataFrame, groups: list | None
) -> tuple[CalibrationResult, CalibrationFindings, list[str]] | None:
    """:func:`survfair.calibration` of the ``--predicted`` columns (None without them), its
    findings, and the library's warnings as notes."""
    predicted = getattr(args, "predicted", None)
    if not predicted:
        return None
    ci = None if args.ci == "none" else args.ci
    options = dict(
        data=frame,
        groups=groups,
        censoring=args.censoring or "group",
        ci=ci,
        confidence_level=args.confidence_level,
        n_jobs=args.n_jobs,
        progress=args.progress,
        brier_variance=getattr(args, "brier_variance", "influence"),
    )
    if (
        getattr(args, "cause", None) is not None
    ):  # the cumulative incidence of the cause (Aalen-Johansen)
        options["cause"] = args.cause
    if options["censoring"] == "cox":  # the Brier scores weighted by the xCI's censoring model
        options["censoring_covariates"] = list(args.censoring_covariates)
    if ci == "bootstrap":
        options.update(n_resamples=args.n_resamples, random_state=args.seed)
    roles = column_roles(
        args, predicted="--predicted " + ", ".join(repr(c) for c in predicted), times="--horizon"
    )
    with library_errors(roles), library_notes() as notes:
        result = calibration(
            args.time,
            args.event,
            group_argument(args.group),
            list(predicted),
            list(args.horizon),
            **options,
        )
        found = calibration_findings(
            result, adjust=args.adjust, min_events=args.min_events, time_unit=args.time_unit
        )
    return result, found, notes


def _table(result: CalibrationResult, t: float) -> pd.DataFrame:
    summary = result.summary(t)
    # the text table keeps what a reader needs; JSON and CSV carry every statistic
    columns = [
        "n",
        "events",
        "observed_risk",
        "expected_risk",
        "oe_ratio",
        "oe_ratio_ci_low",
        "oe_ratio_ci_high",
        "slope",
        "slope_ci_low",
        "slope_ci_high",
        "ici",
        "e90",
        "brier",
        "gnd_p",
    ]
    return summary[columns].rename(columns=lambda c: c.replace("_ci_", "_").replace("_risk", ""))


def render_calibration(
    audit, output_format: str, predicted: list[str], model: str = ""
) -> str | list | dict:
    """Text block (table format) or JSON-ready dict of a calibration audit; ``model`` names the
    risk column whose predicted risks these are (in the heading, and as "risk" in JSON)."""
    result, found, notes = audit
    if output_format == "json":
        return {
            "calibration": {
                "predicted": predicted,
                **({"risk": model} if model else {}),
                "notes": notes,
                "findings": found.to_dict(),
                **result.to_dict(),
                "contrasts": json.loads(result.contrasts().to_json(orient="records")),
            }
        }
    lines = [
        f"== calibration of predicted risks{': risk = ' + model if model else ''} ==",
        "findings:",
        option_words(found.to_text()),
        "",
        f"predicted columns {predicted} at horizons {[float(t) for t in result.times]}; n = "
        f"{result.n_samples}, groups = {list(result.groups)}; intervals: {result.ci_method}",
        *notes,
    ]
    with pd.option_context("display.precision", 4, "display.width", 160, "display.max_columns", 30):
        for t in result.times:
            lines += [
                "",
                f"at t = {t:g}:",
                _table(result, float(t)).to_string(float_format="{:.4f}".format),
            ]
        if len(result.groups) > 1:
            lines += [
                "",
                f"contrasts between groups (p_adjusted: {found.adjust} within each statistic and "
                "horizon):",
                result.contrasts().to_string(index=False, float_format="{:.4f}".format, na_rep=""),
            ]
    return "\n".join(lines) + "\n"


def calibration_long_table(result: CalibrationResult, name: str) -> pd.DataFrame:
    """Rows of the CSV output: kind "calibration" (one per group, horizon and statistic) and
    "calibration_contrast" (one per pair of groups, statistic and horizon)."""
    frame = result.to_frame().rename(columns={"group": "a", "estimate": "value"})
    frame = frame.assign(kind="calibration", b="", name=name)
    contrasts = (
        result.contrasts()
        .rename(columns={"estimate": "value"})
        .assign(kind="calibration_contrast", name=name)
    )
    table = pd.concat([frame, contrasts], ignore_index=True)
    for column in ("n", "events"):
        table[column] = table[column].astype("Int64")
    table["time"] = table["time"].astype(float)
    return table
