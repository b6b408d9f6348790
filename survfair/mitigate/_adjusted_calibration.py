"""The calibration of a fitted adjustment's predicted risks, carried by the adjustment itself.

:func:`survfair.mitigate.group_shift` and :func:`survfair.mitigate.group_monotone` take the
``predicted=`` / ``times=`` options of :func:`survfair.mitigate.frontier` (and ``scale=`` of
:func:`survfair.mitigate.calibration_cost`): the model's predicted event probabilities at the
horizons. The fitted adjustment then carries :func:`~survfair.mitigate.calibration_cost` of itself,
computed on its evaluation sample (the rows not in ``fit_on``; without ``fit_on``, in-sample), and
exports its per-group calibration rows beside the ranking rows of its before/after table.

Kept apart from the result classes so that they only gain a field and a few lines.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._calibration.estimator import check_predicted_risks, predicted_matrix
from .._core.exceptions import InvalidParameterError
from .._core.options import check_option
from .._core.validation import SurvivalSample, check_numbers, input_index
from ._calibration_cost import calibration_cost

__all__ = [
    "PredictedRisks",
    "check_predicted_option",
    "adjustment_calibration",
    "with_calibration",
    "calibration_rows",
]

#: how the risk score relates to the predicted risks (as
#: :data:`survfair.mitigate._calibration_cost.SCALES`)
_SCALES = ("log_hazard", "probability")


@dataclass(frozen=True)
class PredictedRisks:
    """The validated ``predicted=`` / ``times=`` / ``scale=`` options of an adjustment: every input
    row's predicted risks (n_rows, n_times), a name per column, the horizons and the scale."""

    values: np.ndarray
    columns: list
    times: np.ndarray
    scale: str


def check_predicted_option(
    predicted: Any, times: Any, scale: Any, data: pd.DataFrame | None, inputs: dict
) -> PredictedRisks | None:
    """Validate ``predicted`` / ``times`` / ``scale`` before an adjustment is fitted (None when
    neither is given), naming the rows of bad predicted risks by the inputs' index.

    Raises
    ------
    ValueError
        If only one of ``predicted`` and ``times`` is given, for an unknown ``scale``, a
        ``predicted`` whose pandas index differs from the other inputs', predicted risks that are
        NaN or outside [0, 1] (naming the rows), or not one horizon per column of ``predicted``.
    TypeError
        For non-numeric predicted risks or horizons.
    """
    if predicted is None and times is None:
        return None
    if (predicted is None) != (times is None):
        raise InvalidParameterError(
            "predicted and times go together: give both (or neither).",
            parameter="times" if predicted is None else "predicted",
        )
    scale = check_option(scale, "scale", _SCALES)
    index = input_index({**inputs, "predicted": predicted}, data)
    raw, names = predicted_matrix(predicted, data)
    values = check_predicted_risks(raw, names, index)
    horizons = check_numbers(np.atleast_1d(times), "times")
    if horizons.size != values.shape[1]:
        raise InvalidParameterError(
            f"times has {horizons.size} horizon(s) but predicted has {values.shape[1]} column(s); "
            "give one column of predicted risks per horizon, in the order of times.",
            parameter="times",
        )
    if scale == "probability" and horizons.size != 1:
        raise InvalidParameterError(
            "scale='probability' needs one horizon: "
            "the score is the predicted risk at that horizon.",
            parameter="scale",
        )
    if (
        data is not None
        and isinstance(predicted, (str, list, tuple))
        and all(isinstance(c, str) for c in np.atleast_1d(predicted))
    ):
        columns = list(np.atleast_1d(predicted))
    elif isinstance(predicted, pd.DataFrame):
        columns = list(predicted.columns)
    else:
        columns = list(range(values.shape[1]))
    return PredictedRisks(values, columns, horizons, scale)


def with_calibration(
    fitted: Any,
    fit_sample: SurvivalSample,
    eval_sample: SurvivalSample | None,
    fit_mask: np.ndarray | None,
    predicted: PredictedRisks | None,
    censoring: str,
):
    """The fitted adjustment with its :attr:`calibration` (unchanged without ``predicted=``): on the
    evaluation sample, or in-sample on the fitting sample when there is none."""
    if predicted is None:
        return fitted
    evaluated = fit_sample if eval_sample is None else eval_sample
    rows = None if eval_sample is None or fit_mask is None else ~fit_mask
    return dataclasses.replace(
        fitted, calibration=adjustment_calibration(fitted, evaluated, rows, predicted, censoring)
    )


def adjustment_calibration(
    adjustment: Any,
    sample: SurvivalSample,
    rows: np.ndarray | None,
    predicted: PredictedRisks,
    censoring: str,
):
    """:func:`~survfair.mitigate.calibration_cost` of a fitted adjustment on ``sample`` (its
    evaluation sample, or the fitting sample when there is none).

    ``rows``: the boolean mask of ``sample``'s rows among the input rows (``fit_on`` a mask or row
    positions), None when ``sample`` is every input row. The inputs are passed with ``sample``'s
    index, so a row named in an error is the input's row.
    """
    expected = sample.n_samples if rows is None else rows.shape[0]
    if predicted.values.shape[0] != expected:
        raise InvalidParameterError(
            f"predicted has {predicted.values.shape[0]} rows; time, event, group and risk have "
            f"{expected}.",
            parameter="predicted",
        )
    values = predicted.values if rows is None else predicted.values[rows]
    index = sample.index if sample.index is not None else pd.RangeIndex(sample.n_samples)

    def column(v):
        return pd.Series(v, index=index)

    labels = pd.Series(list(sample.labels), index=index, dtype=object)
    frame = pd.DataFrame(values, index=index, columns=predicted.columns)
    return calibration_cost(
        adjustment,
        column(sample.time),
        column(sample.event),
        labels,
        column(sample.risk),
        frame,
        predicted.times,
        scale=predicted.scale,
        censoring=censoring,
    )


def calibration_rows(table: pd.DataFrame, calibration: Any, sample: str) -> pd.DataFrame:
    """The before/after ``table`` of an adjustment followed by the calibration rows of its
    :class:`~survfair.mitigate.CalibrationCost` (``sample``: the sample they were computed on),
    with a ``time`` column (NaN on the ranking rows); ``table`` itself when there is none."""
    if calibration is None:
        return table.copy()
    cost = calibration.to_frame()
    rows = cost[cost["part"] == "calibration"].drop(columns="part")
    rows.insert(0, "sample", sample)
    ranking = table.copy()
    ranking["time"] = np.nan
    rows = rows[[c for c in ranking.columns if c in rows.columns]]
    return pd.concat([ranking, rows], ignore_index=True)
