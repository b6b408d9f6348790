"""Plain-language findings of a calibration audit: generated from the result, never hand-written."""

from __future__ import annotations

from dataclasses import field

import numpy as np
import pandas as pd

from ._frozen import frozen_result
from ._calibration_result import CalibrationResult
from ._findings import adjust_name
from ._format import interval_text, p_phrase, percent
from ._results import json_safe
from ._validation import check_option, check_scalar

__all__ = ["CalibrationFindings", "calibration_findings"]


@frozen_result
class CalibrationFindings:
    """Result of :func:`calibration_findings`: sentences, and the numbers behind them.

    Attributes
    ----------
    sentences : tuple of str
        Most important first: per horizon, the groups whose O/E interval excludes 1 (under- or
        over-prediction) or that all match; the largest O/E contrast between groups with its
        adjusted p-value; slopes whose interval excludes 1; groups with few events.
    contrasts : DataFrame
        :meth:`CalibrationResult.contrasts` of the O/E ratio and the slope, adjusted.
    flags : DataFrame
        One row per (time, group): events by the horizon and whether they are fewer than
        ``min_events``.
    adjust : str

    See Also
    --------
    calibration_findings : computes it.
    """

    sentences: tuple
    contrasts: pd.DataFrame = field(repr=False)
    flags: pd.DataFrame = field(repr=False)
    adjust: str = "holm"

    def to_text(self) -> str:
        return "\n".join(f"- {s}" for s in self.sentences)

    def to_dict(self) -> dict:
        return json_safe({
            "sentences": list(self.sentences),
            "adjust": self.adjust,
            "contrasts": [{k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
                          for row in self.contrasts.to_dict(orient="records")],
            "flagged": [{k: (str(v) if k == "group" else v) for k, v in row.items()}
                        for row in self.flags[self.flags["flagged"]].to_dict(orient="records")],
        })

    def __str__(self) -> str:
        return self.to_text()


def _interval(low: float, high: float) -> str:
    """`` [0.82, 1.16]`` after a number (the style of the discrimination findings); empty when
    undefined."""
    return f" {interval_text(low, high, digits=2)}" if np.isfinite(low) and np.isfinite(high) else ""


def _p(value: float) -> str:
    return p_phrase(value) if np.isfinite(value) else "p not available"


def _horizon(t: float, unit: str | None) -> str:
    return f"t = {t:g}" + (f" {unit}" if unit else "")


def _oe_sentences(summary: pd.DataFrame, t: str, level: float) -> list[str]:
    over, under, inside = [], [], []
    for group, row in summary.iterrows():
        words = (f"{group}: observed {percent(row['observed_risk'])} vs predicted {percent(row['expected_risk'])} "
                 f"(O/E {row['oe_ratio']:.2f}{_interval(row['oe_ratio_ci_low'], row['oe_ratio_ci_high'])})")
        if row["oe_ratio_ci_high"] < 1:
            over.append(words)
        elif row["oe_ratio_ci_low"] > 1:
            under.append(words)
        else:
            inside.append(str(group))
    sentences = []
    if under:
        sentences.append(f"At {t}, the model under-predicts risk for " + "; ".join(under) + ".")
    if over:
        sentences.append(f"At {t}, the model over-predicts risk for " + "; ".join(over) + ".")
    if inside and not (under or over):
        sentences.append(f"At {t}, predicted risk matches the observed (Kaplan-Meier) risk within its interval "
                         f"in every group ({', '.join(inside)}).")
    elif inside:
        sentences.append(f"At {t}, the O/E interval includes 1 for {', '.join(inside)}.")
    return sentences


def _contrast_sentence(contrasts: pd.DataFrame, t: float, tt: str, adjust: str, level: float) -> str | None:
    rows = contrasts[(contrasts["time"] == t) & (contrasts["statistic"] == "oe_ratio")].dropna(subset=["estimate"])
    if rows.empty:
        return None
    distance = np.abs(np.log(rows["estimate"].to_numpy(float)))
    row = rows.iloc[int(np.nanargmax(distance))]
    a, b = (row["a"], row["b"]) if row["estimate"] >= 1 else (row["b"], row["a"])
    factor = row["estimate"] if row["estimate"] >= 1 else 1 / row["estimate"]
    low, high = (row["ci_low"], row["ci_high"]) if row["estimate"] >= 1 else (1 / row["ci_high"], 1 / row["ci_low"])
    name = adjust_name(adjust)
    verdict = "a difference" if row["p_adjusted"] < 1 - level else "no clear difference"
    return (f"At {tt}, the largest calibration gap between groups: the O/E ratio of {a} is {factor:.2f} times that "
            f"of {b}{_interval(low, high)}; {name} {_p(row['p_adjusted'])}, {verdict} at the "
            f"{level:.0%} level.")


def _slope_sentence(summary: pd.DataFrame, tt: str, level: float) -> str | None:
    extreme, moderate = [], []
    for group, row in summary.iterrows():
        words = f"{group} ({row['slope']:.2f}{_interval(row['slope_ci_low'], row['slope_ci_high'])})"
        if row["slope_ci_high"] < 1:
            extreme.append(words)
        elif row["slope_ci_low"] > 1:
            moderate.append(words)
    parts = []
    if extreme:
        parts.append("too extreme (calibration slope below 1) for " + ", ".join(extreme))
    if moderate:
        parts.append("too moderate (slope above 1) for " + ", ".join(moderate))
    return f"At {tt}, the spread of predicted risks is " + "; ".join(parts) + "." if parts else None


def calibration_findings(
    result: CalibrationResult,
    *,
    adjust: str = "holm",
    min_events: int = 10,
    time_unit: str | None = None,
) -> CalibrationFindings:
    """Plain-language findings of :func:`survfair.calibration`, per horizon.

    A group is said to be under- (over-) predicted only when its O/E interval lies above (below)
    1; the largest O/E contrast between groups is reported with its adjusted p-value; a slope is
    called too extreme (moderate) only when its interval lies below (above) 1. Groups with fewer
    than ``min_events`` events by the horizon are named as resting on little data.

    Parameters
    ----------
    result : CalibrationResult
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Adjustment of the contrasts' p-values within each family (one statistic, one horizon).
    min_events : int, default=10
    time_unit : str, optional
        Unit of the horizons in the sentences (e.g. "years").

    Returns
    -------
    CalibrationFindings

    Raises
    ------
    TypeError
        If ``result`` is not a CalibrationResult.
    ValueError
        For an unknown ``adjust`` or a negative ``min_events``.

    See Also
    --------
    calibration : the result it reads.
    findings : the same for the xCI matrix.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(2)
    >>> x = rng.normal(size=1200)
    >>> t = rng.exponential(5 * np.exp(-x))
    >>> time, event = np.minimum(t, 8.0), t <= 8.0
    >>> group = np.where(rng.random(1200) < 0.5, "F", "M")
    >>> risk = 1 - np.exp(-3 * np.exp(x) / 5)  # the true F(3 | x)
    >>> risk = np.where(group == "M", risk * 0.6, risk)  # M's risks under-stated
    >>> found = survfair.calibration_findings(survfair.calibration(time, event, group, risk, times=3))
    >>> print(found.sentences[0][:60])
    At t = 3, the model under-predicts risk for M: observed 48.5
    """
    if not isinstance(result, CalibrationResult):
        raise TypeError(f"result must be a CalibrationResult, got {type(result).__name__}.")
    check_option(adjust, "adjust", ("holm", "bh", "bonferroni", "none"))
    min_events = check_scalar(min_events, "min_events", "integer", low=0)
    level = result.confidence_level
    contrasts = result.contrasts(["oe_ratio", "slope"], adjust=adjust)
    sentences, flag_rows = [], []
    for t in result.times:
        tt = _horizon(float(t), time_unit)
        summary = result.summary(float(t))
        sentences += _oe_sentences(summary, tt, level)
        for sentence in (_contrast_sentence(contrasts, float(t), tt, adjust, level) if len(result.groups) > 1 else None,
                         _slope_sentence(summary, tt, level)):
            if sentence:
                sentences.append(sentence)
        for group, row in summary.iterrows():
            flag_rows.append({"time": float(t), "group": group, "events": int(row["events"]),
                              "flagged": bool(row["events"] < min_events)})
    flags = pd.DataFrame(flag_rows)
    few = flags[flags["flagged"]]
    if not few.empty:
        shown = ", ".join(f"{g} ({e} by {_horizon(t, time_unit)})" for t, g, e in
                          zip(few["time"], few["group"], few["events"]))
        sentences.append(f"Caution: fewer than {min_events} events for {shown}; their calibration rests on little data.")
    if result.ci_method != "bootstrap":
        sentences.append("ICI, E50 and E90 have intervals only with ci='bootstrap'.")
    return CalibrationFindings(tuple(sentences), contrasts, flags, adjust)
