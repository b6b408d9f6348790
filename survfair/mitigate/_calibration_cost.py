"""What a mitigation costs in calibration: the adjusted scores' predicted risks, group by group."""

from __future__ import annotations

import warnings
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from .._calibration.estimator import CI_METHODS, calibration, predicted_matrix
from .._calibration.result import CalibrationResult
from .._core.exceptions import InvalidParameterError, PositivityWarning
from .._core.frozen import frozen_result
from .._core.intervals import ConfidenceInterval, table_interval
from .._core.options import CONFIDENCE_LEVEL, OptionTable, one_of
from .._core.results import json_safe
from .._core.validation import check_survival_inputs
from ._tables import FittedAdjustment, before_after_table, format_table, interval_table

__all__ = ["CalibrationCost", "calibration_cost", "adjusted_risks", "SCALES"]

#: how the risk score relates to the predicted risks
SCALES = ("log_hazard", "probability")
#: calibration statistics shown before and after
_SHOWN = ("observed_risk", "expected_risk", "oe_ratio", "intercept", "slope", "ici", "e90", "brier")


def adjusted_risks(
    predicted: np.ndarray, risk: np.ndarray, adjusted: np.ndarray, scale: str
) -> np.ndarray:
    """Predicted risks after the adjustment of the score.

    ``"log_hazard"``: the score is a log relative hazard (a Cox-type linear predictor), so
    F̂(t | x) = 1 − S₀(t)^exp(r) and moving r to r' gives 1 − (1 − F̂)^exp(r' − r) at every
    horizon (exact for proportional-hazards models, whose baseline S₀ the adjustment leaves alone).
    ``"probability"``: the score is the predicted risk itself (one horizon), so F̂' = r'.
    """
    if scale == "log_hazard":
        return -np.expm1(np.exp(adjusted - risk)[:, None] * np.log1p(-np.clip(predicted, 0.0, 1.0)))
    return np.asarray(adjusted, float)[:, None]


@frozen_result
class CalibrationCost:
    """Result of :func:`calibration_cost`: ranking and calibration of one adjustment, before and
    after.

    Attributes
    ----------
    adjustment : GroupShift or GroupMonotone
    scale : {"log_hazard", "probability"}
    before, after : CalibrationResult
        Calibration of the original and of the adjusted predicted risks, on the data given.
    n_samples : int

    See Also
    --------
    calibration_cost : computes it.
    """

    adjustment: Any = field(repr=False)
    scale: str
    before: CalibrationResult = field(repr=False)
    after: CalibrationResult = field(repr=False)
    n_samples: int
    table: pd.DataFrame = field(repr=False)
    #: the ranking rows' XCIResults, {"ranking": (before, after)}, for confidence_interval()
    _results: dict = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """Tidy before/after table (a copy), one row per number: the ranking rows of the
        adjustment's own table on these data (metric "xci", "delta_within", "delta_between",
        "min_xci", "overall", "utility"; ``time`` NaN) followed by the calibration rows (metric =
        the statistic of :meth:`CalibrationResult.to_frame`, ``a`` = the group, ``time`` = the
        horizon). Columns part ("ranking" or "calibration"), time, metric, a, b, before, after,
        change and the intervals of both."""
        return self.table  # a copy: frozen results hand out copies

    def _repr_html_(self) -> str:
        """Jupyter display: the first line of the repr, then the first rows of :meth:`to_frame`."""
        from .._present.notebook import result_html  # the presentation layer, below this one

        return result_html(self)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Intervals of every before/after number at ``confidence_level``.

        Parameters
        ----------
        confidence_level : float, optional
            In (0, 1); default: the level of :meth:`to_frame`.

        Returns
        -------
        ConfidenceInterval
            Two DataFrames (low, high) with the columns ``before`` and ``after``, indexed by the
            identifying columns of :meth:`to_frame` (part, time, metric, a, b) in its row order,
            recomputed by the same rules (the ranking rows from their xCI results, the
            calibration rows by :meth:`CalibrationResult.confidence_interval`): survfair's rule
            for a before/after table (see Conventions, "Intervals").

        Raises
        ------
        TypeError, ValueError
            If ``confidence_level`` is not a number in (0, 1).
        """
        rows = self._interval_rows(confidence_level)
        keys = ["part", "time", "metric", "a", "b"]
        return table_interval(rows, keys, {"before": "before_", "after": "after_"})

    def _interval_rows(self, confidence_level: float | None) -> pd.DataFrame:
        """The limits as a tidy table: the identifying columns of :meth:`to_frame` and
        before_ci_low, before_ci_high, after_ci_low, after_ci_high."""
        keys = ["part", "time", "metric", "a", "b"]
        limits = ["before_ci_low", "before_ci_high", "after_ci_low", "after_ci_high"]
        if confidence_level is None:
            return self.table[keys + limits]
        adj = self.adjustment
        ranking = interval_table(
            self._results, getattr(adj, "alpha", 1.0), getattr(adj, "beta", 1.0), confidence_level
        ).rename(columns={"sample": "part"})
        ranking.insert(1, "time", np.nan)
        calibration = _calibration_rows(self.before, self.after, confidence_level)
        return pd.concat([ranking, calibration[keys + limits]], ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: scale, n_samples and the rows of :meth:`to_frame`."""
        rows = [
            {k: (None if v is None else str(v) if k in ("a", "b") else v) for k, v in row.items()}
            for row in self.table.to_dict(orient="records")
        ]
        return json_safe({"scale": self.scale, "n_samples": self.n_samples, "table": rows})

    def __repr__(self) -> str:
        shown = self.table.rename(columns={"part": "sample"})
        return (
            f"CalibrationCost(scale={self.scale!r}, n_samples={self.n_samples})\n"
            + format_table(shown)
        )


def _calibration_rows(
    before: CalibrationResult, after: CalibrationResult, level: float | None = None
) -> pd.DataFrame:
    b, a = before.to_frame(), after.to_frame()
    if level is not None:  # the limits at another level, the same rows
        for frame, result in ((b, before), (a, after)):
            low, high = result.confidence_interval(level)  # in the rows' order of to_frame()
            frame["ci_low"], frame["ci_high"] = low.to_numpy(), high.to_numpy()
    keep = b["statistic"].isin(_SHOWN)
    b, a = b[keep].reset_index(drop=True), a[keep].reset_index(drop=True)
    frame = pd.DataFrame(
        {
            "part": "calibration",
            "time": b["time"],
            "metric": b["statistic"],
            "a": pd.Series(list(b["group"]), dtype=object),
            "b": pd.Series([None] * len(b), dtype=object),
            "before": b["estimate"],
            "after": a["estimate"],
            "change": a["estimate"] - b["estimate"],
        }
    )
    for stage, part in (("before", b), ("after", a)):
        for column in ("se", "ci_low", "ci_high"):
            frame[f"{stage}_{column}"] = part[column].to_numpy()
    return frame


#: The scalar options of :func:`calibration_cost`.
_OPTIONS = OptionTable(
    "calibration_cost",
    scale=one_of(*SCALES),
    censoring=one_of("group", "pooled"),
    ci=one_of(*CI_METHODS),
    confidence_level=CONFIDENCE_LEVEL,
)


def calibration_cost(
    adjustment: FittedAdjustment,
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    predicted: Any,
    times: Any,
    *,
    data: pd.DataFrame | None = None,
    scale: str = "log_hazard",
    censoring: str = "group",
    ci: str | None = "analytic",
    confidence_level: float = 0.95,
) -> CalibrationCost:
    """Ranking gain and calibration cost of a fitted adjustment, group by group, on given data.

    A shift or monotone map that equalises cross-group ranking changes the adjusted group's
    absolute risks: a group whose scores move up gets higher predicted risks. This puts the
    adjustment's xCI before/after table beside :func:`survfair.calibration` of the predicted
    risks before and after the adjustment, per group and horizon (O/E, intercept, slope, ICI, E90,
    Brier). Use data not used for fitting the adjustment (its ``fit_on=`` complement): in-sample
    gains are optimistic.

    Parameters
    ----------
    adjustment : GroupShift or GroupMonotone
        A fitted :func:`survfair.mitigate.group_shift` or :func:`survfair.mitigate.group_monotone`.
    time, event, group, risk, data
        As in :func:`survfair.xci`: the people to evaluate on and their (unadjusted) risk scores.
    predicted : array-like of shape (n_samples,) or (n_samples, n_times), or column name(s)
        The model's predicted event probabilities at ``times`` (as in :func:`survfair.calibration`).
    times : float or sequence of float
        The horizons of the columns of ``predicted``.
    scale : {"log_hazard", "probability"}, default="log_hazard"
        How ``risk`` relates to ``predicted``. ``"log_hazard"``: the score is a Cox-type linear
        predictor (log relative hazard), so the adjusted risk at every horizon is
        1 − (1 − F̂)^exp(r' − r) (exact under proportional hazards: cloglog F̂ moves with r).
        ``"probability"``: the score is the predicted risk at the single horizon, adjusted risk = r'
        (must stay within [0, 1]).
    censoring, ci, confidence_level
        As in :func:`survfair.calibration`.

    Returns
    -------
    CalibrationCost
        ``.to_frame()``: the ranking rows and the calibration rows, before / after / change.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``adjustment`` is not a GroupShift or GroupMonotone; for invalid inputs as in
        :func:`survfair.xci` and :func:`survfair.calibration`.
    InvalidParameterError (a ValueError)
        For invalid inputs (see :func:`survfair.calibration`), an unknown ``scale``, ``scale=
        "probability"`` with several horizons or adjusted risks outside [0, 1], or group labels
        the adjustment was not fitted on.

    See Also
    --------
    group_shift, group_monotone : the adjustments it judges.
    survfair.calibration : the calibration it reports.
    survfair.fairness_profile : discrimination beside calibration, without an adjustment.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> from survfair.mitigate import calibration_cost, group_shift
    >>> rng = np.random.default_rng(0)
    >>> n = 600
    >>> g = np.where(rng.random(n) < 0.5, "a", "b"); x = rng.normal(size=n)
    >>> t = rng.exponential(5 * np.exp(-x)); c = rng.uniform(0, 10, n)
    >>> time, event = np.minimum(t, c), t <= c
    >>> lp = x + 0.5 * (g == "b")  # group b's scores are inflated
    >>> risk3 = 1 - np.exp(-3 * np.exp(lp) / 5)
    >>> shift = group_shift(time, event, g, lp, tau=8)
    >>> cost = calibration_cost(shift, time, event, g, lp, risk3, 3)
    >>> table = cost.to_frame()
    >>> sorted(set(table["part"]))
    ['calibration', 'ranking']
    """
    _OPTIONS.check(locals())
    if not isinstance(adjustment, FittedAdjustment):
        raise InvalidParameterError(
            f"adjustment must be a GroupShift or GroupMonotone, got {type(adjustment).__name__}.",
            parameter="adjustment",
        )
    sample, _ = check_survival_inputs(time, event, group, risk, data=data)
    labels = sample.labels
    adjusted = adjustment.transform(sample.risk, labels)
    kwargs = dict(
        data=data, censoring=censoring, ci=ci, confidence_level=confidence_level, progress=False
    )
    before = calibration(time, event, group, predicted, times, **kwargs)
    if scale == "probability" and before.times.size != 1:
        raise InvalidParameterError(
            "scale='probability' needs one horizon: "
            "the score is the predicted risk at that horizon.",
            parameter="scale",
        )
    # calibration() validated ``predicted``; here its columns in ascending horizon order
    original = _predicted_in_order(predicted, data, times)
    after_values = adjusted_risks(original, sample.risk, adjusted, scale)
    outside = ~((after_values >= 0) & (after_values <= 1)).all(axis=1)
    if outside.any():
        raise InvalidParameterError(
            f"the adjusted risks leave [0, 1] for {int(outside.sum())} rows (scale='probability' "
            "adds the offsets to probabilities); use scale='log_hazard' with a linear predictor.",
            parameter="scale",
        )
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", PositivityWarning
        )  # the same censoring as "before", warned there
        after = calibration(
            sample.time,
            sample.event,
            labels,
            after_values,
            before.times,
            groups=sample.groups,
            censoring=censoring,
            ci=ci,
            confidence_level=confidence_level,
            progress=False,
        )
    ranking, results = before_after_table(
        [("ranking", sample, adjusted)],
        adjustment.settings,
        getattr(adjustment, "alpha", 1.0),
        getattr(adjustment, "beta", 1.0),
        {},
    )
    ranking = ranking.rename(columns={"sample": "part"})
    ranking.insert(1, "time", np.nan)
    table = pd.concat([ranking, _calibration_rows(before, after)], ignore_index=True)
    return CalibrationCost(adjustment, scale, before, after, sample.n_samples, table, results)


def _predicted_in_order(predicted: Any, data: pd.DataFrame | None, times: Any) -> np.ndarray:
    """The predicted risks as an (n, H) array with columns in ascending horizon order."""
    values, _ = predicted_matrix(predicted, data)
    given = np.atleast_1d(np.asarray(times, dtype=float))
    order = np.argsort(given)
    return np.asarray(values, dtype=float)[:, order]
