"""Before / after tables of an adjustment: every xCI cell, Δwithin / Δbetween, min-xCI, the pooled
C and the utilities, before and after, on the fitting and the evaluation sample; and their text
form (:func:`format_table`).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.deprecation import REMOVED_IN, warn_once
from .._core.exceptions import PositivityWarning
from .._core.intervals import ConfidenceInterval, table_interval
from .._core.options import check_confidence_level
from .._core.results import XCIResult
from .._core.settings import EstimatorSettings
from .._core.validation import SurvivalSample
from .._xci.estimator import xci
from .._xci.summaries import (
    contrast,
    delta_between,
    delta_within,
    min_xci,
    utility,
)

__all__ = ["FittedAdjustment", "before_after_table", "interval_table", "format_table"]


# -- before / after table ----------------------------------------------------------------------


def _result(
    sample: SurvivalSample, risk: np.ndarray, settings: EstimatorSettings, xci_kwargs: dict
) -> XCIResult:
    return xci(
        sample.time,
        sample.event,
        sample.labels,
        risk,
        method=settings.method,
        tau=settings.tau,
        censoring=settings.censoring,
        tied_tol=settings.tied_tol,
        strict=settings.strict,
        groups=sample.groups,
        entry=sample.entry,
        weights=sample.weights,
        cluster=sample.cluster,
        **xci_kwargs,
    )


def _pooled_estimate(result: XCIResult):
    """The pooled C as the Proposition 4.1 contrast of the cells (so it carries se and interval)."""
    denominator = np.array(result.pair_counts.denominator, dtype=float)
    defined = ~np.isnan(result.values)
    weights = np.where(defined, denominator, 0.0) / denominator[defined].sum()
    return contrast(result, weights, null=0.5)


def _summary_rows(result: XCIResult, alpha: float, beta: float) -> list[tuple]:
    """(metric, a, b, value, se, ci_low, ci_high) rows of one result."""
    rows = []
    g = len(result.groups)
    for i, a in enumerate(result.groups):
        for j, b in enumerate(result.groups):
            weights = np.zeros((g, g))
            weights[i, j] = 1.0
            e = contrast(result, weights, null=0.5)
            rows.append(("xci", a, b, e.value, e.se, *e.confidence_interval))
    for i, a in enumerate(result.groups):
        for b in result.groups[i + 1 :]:
            for name, function in (
                ("delta_within", delta_within),
                ("delta_between", delta_between),
            ):
                e = function(result, a, b)
                rows.append((name, a, b, e.value, e.se, *e.confidence_interval))
    m = min_xci(result)
    rows.append(("min_xci", None, None, m.value, m.estimate.se, *m.estimate.confidence_interval))
    e = _pooled_estimate(result)
    rows.append(("overall", None, None, e.value, e.se, *e.confidence_interval))
    for a, row in utility(result, alpha=alpha, beta=beta).iterrows():
        rows.append(("utility", a, None, row["value"], row["se"], row["ci_low"], row["ci_high"]))
    return rows


def _rows_frame(rows: list[tuple], columns: list[str]) -> pd.DataFrame:
    """DataFrame of summary rows; group labels stay as given (object dtype, None where not
    applicable)."""
    frame = pd.DataFrame([row[3:] for row in rows], columns=columns[3:], dtype=float)
    for position, name in enumerate(columns[:3]):
        frame.insert(position, name, pd.Series([row[position] for row in rows], dtype=object))
    return frame


def before_after_table(
    samples: Sequence[tuple[str, SurvivalSample, np.ndarray]],
    settings: EstimatorSettings,
    alpha: float,
    beta: float,
    xci_kwargs: dict,
) -> tuple[pd.DataFrame, dict]:
    """Tidy before/after table over the named samples; also returns the XCIResults."""
    frames, results = [], {}
    columns = ["metric", "a", "b", "value", "se", "ci_low", "ci_high"]
    for name, sample, adjusted in samples:
        before = _result(sample, sample.risk, settings, xci_kwargs)
        with warnings.catch_warnings():
            # the censoring curves do not depend on the risk: their warnings were given for "before"
            warnings.simplefilter("ignore", PositivityWarning)
            after = _result(sample, adjusted, settings, xci_kwargs)
        results[name] = (before, after)
        b, a = (_rows_frame(_summary_rows(r, alpha, beta), columns) for r in (before, after))
        frame = b[["metric", "a", "b"]].copy()
        frame.insert(0, "sample", name)
        frame["before"] = b["value"]
        frame["after"] = a["value"]
        frame["change"] = a["value"] - b["value"]
        for stage, part in (("before", b), ("after", a)):
            for column in ("se", "ci_low", "ci_high"):
                frame[f"{stage}_{column}"] = part[column]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True), results


def interval_table(
    results: dict, alpha: float, beta: float, confidence_level: float
) -> pd.DataFrame:
    """The interval columns of :func:`before_after_table` at another level, from the stored results.

    Columns sample, metric, a, b (the rows of the before/after table, in its order),
    before_ci_low, before_ci_high, after_ci_low, after_ci_high: every summary recomputed from the
    same results with ``confidence_level`` (the same interval rules, the same standard errors or
    bootstrap replicates).
    """
    level = check_confidence_level(confidence_level)
    columns = ["metric", "a", "b", "value", "se", "ci_low", "ci_high"]
    frames = []
    for name, pair in results.items():
        before, after = (
            _rows_frame(
                _summary_rows(dataclasses.replace(r, confidence_level=level), alpha, beta), columns
            )
            for r in pair
        )
        frame = before[["metric", "a", "b"]].copy()
        frame.insert(0, "sample", name)
        for stage, part in (("before", before), ("after", after)):
            frame[f"{stage}_ci_low"] = part["ci_low"]
            frame[f"{stage}_ci_high"] = part["ci_high"]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def format_table(table: pd.DataFrame) -> str:
    shown = table[["sample", "metric", "a", "b", "before", "after", "change"]].copy()
    shown[["a", "b"]] = shown[["a", "b"]].map(lambda v: "" if v is None else v)
    with pd.option_context("display.width", 140, "display.max_rows", 200):
        return shown.to_string(index=False, float_format="{:.4f}".format, na_rep="")


class ReferenceGroupAlias:
    """``.reference``, the deprecated name of the ``reference_group`` field of the mitigation
    results (:class:`GroupShift`, :class:`GroupMonotone`, :class:`Frontier`)."""

    @property
    def reference(self) -> Any:
        """Deprecated name of :attr:`reference_group` (removed in 0.3)."""
        warn_once(
            (type(self).__name__, "reference"),
            f"{type(self).__name__}.reference is deprecated: use .reference_group; .reference "
            f"will be removed in survfair {REMOVED_IN}.",
        )
        return self.reference_group


class FittedAdjustment(ReferenceGroupAlias):
    """The base of the fitted adjustments (:class:`GroupShift`, :class:`GroupMonotone`): the
    ``confidence_interval`` of their before/after tables, which hold ``table``, ``results``,
    ``alpha`` and ``beta``. :func:`calibration_cost` accepts exactly its subclasses."""

    def _fitted_fields(self) -> dict:
        """The part of ``to_dict()`` every fitted adjustment shares: settings, sample sizes, the
        before/after table and the calibration (when ``predicted=`` was given)."""
        calibration = None  # without predicted=
        if self.calibration is not None:
            sample = "evaluation" if self.n_evaluation else "fit"
            calibration = {"sample": sample, **self.calibration.to_dict()}
        return {
            "settings": self.settings.to_dict(),
            "n_fit": self.n_fit,
            "n_evaluation": self.n_evaluation,
            "table": self.table.to_dict(orient="records"),
            "calibration": calibration,
        }

    def _repr_html_(self) -> str:
        """Jupyter display: the first line of the repr, then the first rows of :meth:`to_frame`."""
        from .._present.notebook import result_html  # the presentation layer, below this one

        return result_html(self)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Intervals of every before/after number at ``confidence_level``, from the stored results.

        Parameters
        ----------
        confidence_level : float, optional
            In (0, 1); default: the level the result was made with (its :meth:`to_frame`
            intervals).

        Returns
        -------
        ConfidenceInterval
            Two DataFrames (low, high) with the columns ``before`` and ``after``, indexed by the
            identifying columns of :meth:`to_frame` (sample, metric, a, b, and time with
            ``predicted=``) in its row order: survfair's rule for a before/after table (see
            Conventions, "Intervals").

        Raises
        ------
        TypeError, ValueError
            If ``confidence_level`` is not a number in (0, 1).
        """
        rows = self._interval_rows(confidence_level)
        keys = ["sample", "metric", "a", "b"] + (["time"] if "time" in rows else [])
        return table_interval(rows, keys, {"before": "before_", "after": "after_"})

    def _interval_rows(self, confidence_level: float | None) -> pd.DataFrame:
        """The limits as a tidy table: the identifying columns of :meth:`to_frame` and
        before_ci_low, before_ci_high, after_ci_low, after_ci_high."""
        columns = [
            "sample",
            "metric",
            "a",
            "b",
            "before_ci_low",
            "before_ci_high",
            "after_ci_low",
            "after_ci_high",
        ]
        if confidence_level is None:
            ranking = self.table[columns]
        else:
            ranking = interval_table(self.results, self.alpha, self.beta, confidence_level)
        if self.calibration is None:
            return ranking
        # with predicted=: the calibration rows follow, as in to_frame()
        calibration = self.calibration._interval_rows(confidence_level)
        calibration = calibration[calibration["part"] == "calibration"].drop(columns="part")
        calibration.insert(0, "sample", "evaluation" if self.n_evaluation else "fit")
        ranking = ranking.assign(time=np.nan)
        return pd.concat([ranking, calibration[ranking.columns]], ignore_index=True)
