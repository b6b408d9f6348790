"""``survfair audit --model-based-lp COLUMN`` (or ``--model-based-survival``): the model-based
reference and the excess asymmetry of each audited risk column.

A thin consumer of :func:`survfair.model_based_xci`: the observed xCI it recomputes has the audit's
settings, and its excess table leads the findings (:func:`survfair.findings` with ``model_based=``).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from .._core.multiplicity import adjust_p_values
from .._models.model_based import model_based_xci
from .._models.model_based_result import SUMMARY_COLUMNS, ModelBasedResult
from .._present.format import p_value_text
from ._binary import library_notes
from ._errors import CLIError, library_errors
from ._options import column_roles, group_argument, risk_columns

__all__ = ["check_model_based", "model_based_audits", "excess_text"]


def check_model_based(args: argparse.Namespace) -> list[str]:
    """The option rules of the model-based reference; returns the columns it needs."""
    lp = getattr(args, "model_based_lp", None) or []
    survival = getattr(args, "model_based_survival", None) or []
    times = getattr(args, "model_based_times", None) or []
    if not (lp or survival or times):
        return []
    if lp and (survival or times):
        raise CLIError(
            "give either --model-based-lp or --model-based-survival with --model-based-times, not "
            "both."
        )
    if not args.data or args.time is None or args.event is None:
        raise CLIError(
            "--model-based-lp / --model-based-survival need a survival audit with --data, --time "
            "and --event (the binary audit has no model-based reference on the command line yet)."
        )
    if args.cause is not None:
        raise CLIError("the model-based reference does not support competing risks (--cause) yet.")
    given = [f"--{role}" for role in ("entry", "weights") if getattr(args, role, None)]
    if (
        given
    ):  # the reference's observed matrix would leave them out, and the excess would not add up
        raise CLIError(
            f"the model-based reference does not support {' or '.join(given)} yet; audit without "
            f"{'it' if len(given) == 1 else 'them'} to compare with the model's own predictions."
        )
    risks = risk_columns(args)
    if lp and len(lp) != len(risks):
        raise CLIError(
            f"give one --model-based-lp column per --risk, in the same order; got {len(lp)} "
            f"--model-based-lp and {len(risks)} --risk."
        )
    if survival or times:
        if len(risks) != 1:
            raise CLIError("--model-based-survival describes one model: audit one --risk with it.")
        if len(survival) != len(times):
            raise CLIError(
                f"give one --model-based-survival column per --model-based-times value; got "
                f"{len(survival)} columns and {len(times)} times."
            )
    return list(lp) + list(survival)


def _sources(args: argparse.Namespace, frame: pd.DataFrame) -> dict[str, dict]:
    """``{risk: keyword arguments of model_based_xci giving its predictions}``."""
    lp = getattr(args, "model_based_lp", None) or []
    risks = risk_columns(args)
    if lp:
        return {risk: {"linear_predictor": column} for risk, column in zip(risks, lp)}
    columns = list(args.model_based_survival)
    return {
        risks[0]: {
            "survival": frame[columns].to_numpy(dtype=float),
            "times": list(args.model_based_times),
        }
    }


def model_based_audits(
    args: argparse.Namespace, frame: pd.DataFrame, groups: list | None
) -> tuple[dict[str, ModelBasedResult], list[str]]:
    """:func:`survfair.model_based_xci` of every audited risk column (``{}`` without the options),
    with the audit's estimator settings, and the library's warnings as notes."""
    if not check_model_based(args):
        return {}, []
    ci = None if args.ci == "none" else args.ci
    options = dict(
        data=frame,
        groups=groups,
        method=args.method,
        tau=args.tau,
        censoring=args.censoring or "group",
        ci=ci,
        confidence_level=args.confidence_level,
    )
    if getattr(args, "cluster", None):
        options["cluster"] = args.cluster
    if ci == "bootstrap":
        options.update(n_resamples=args.n_resamples, random_state=args.seed)
    roles = column_roles(
        args,
        linear_predictor="--model-based-lp",
        survival="--model-based-survival",
        times="--model-based-times",
    )
    results = {}
    with library_errors(roles), library_notes() as notes:
        for risk, source in _sources(args, frame).items():
            results[risk] = model_based_xci(
                args.time, args.event, group_argument(args.group), risk, **source, **options
            )
    return results, notes


def excess_text(reference: ModelBasedResult, adjust: str = "holm") -> str:
    """The excess table of the text output: observed, model-based and excess per pair (four
    decimals), the excess's p-value and its adjusted p-value (``adjust`` within each family, as the
    findings adjust it)."""
    table = reference.summaries()[list(SUMMARY_COLUMNS)]
    shown = table.copy()
    shown["p_adjusted"] = np.nan
    for _, part in shown.groupby("summary", sort=False):
        finite = part["p_value"].notna()
        if finite.any():
            shown.loc[part.index[finite], "p_adjusted"] = adjust_p_values(
                part.loc[finite, "p_value"].to_numpy(), adjust=adjust
            )
    for column in ("p_value", "p_adjusted"):  # as every p-value of the text output
        shown[column] = [
            "" if not math.isfinite(p) else p_value_text(p)
            for p in np.asarray(shown[column], dtype=float)
        ]
    return shown.to_string(index=False, float_format="{:.4f}".format, na_rep="")
