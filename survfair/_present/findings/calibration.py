"""Plain-language findings of a calibration audit: generated from the result, never hand-written."""

from __future__ import annotations

from dataclasses import field

import numpy as np
import pandas as pd

from ..._calibration.result import CalibrationResult
from ..._calibration.stats import CLOGLOG_CLIP
from ..._core.exceptions import InvalidParameterError
from ..._core.frozen import frozen_result
from ..._core.multiplicity import adjust_p_values
from ..._core.options import OptionTable, integer, one_of, text
from ..._core.results import json_safe
from ..format import interval_text, p_phrase, percent
from .ranking import adjust_name

__all__ = ["CalibrationFindings", "calibration_findings"]


@frozen_result
class CalibrationFindings:
    """Result of :func:`calibration_findings`: sentences, and the numbers behind them.

    Attributes
    ----------
    sentences : tuple of str
        Most important first: per horizon, the groups whose O/E interval excludes 1 (under- or
        over-prediction), the groups whose Greenwood-Nam-D'Agostino test rejects calibration
        across risk deciles, or -- only when neither happens -- that every group matches; the
        largest contrast between groups of each statistic the result has (O/E ratio, ICI, Brier
        score) with its adjusted p-value; slopes whose interval excludes 1 (none under competing
        risks, where a sentence says why); groups whose predicted
        risks of exactly 0 or 1 were clipped for the cloglog statistics; groups with few events.
    contrasts : DataFrame
        :meth:`CalibrationResult.contrasts` of the O/E ratio, the slope, and the ICI and Brier score
        where the result has them, adjusted.
    flags : DataFrame
        One row per (time, group): events by the horizon and whether they are fewer than
        ``min_events``.
    adjust : str
    gnd : DataFrame
        The result's Greenwood-Nam-D'Agostino tests (time, group, chi2, df, p_value, n_bins) with
        ``p_adjusted``: adjusted (``adjust``) over every group and horizon together, one family.

    See Also
    --------
    calibration_findings : computes it.
    """

    sentences: tuple
    contrasts: pd.DataFrame = field(repr=False)
    flags: pd.DataFrame = field(repr=False)
    adjust: str = "holm"
    gnd: pd.DataFrame = field(
        repr=False,
        default_factory=lambda: pd.DataFrame(
            columns=["time", "group", "chi2", "df", "p_value", "n_bins", "p_adjusted"]
        ),
    )

    def to_text(self) -> str:
        return "\n".join(f"- {s}" for s in self.sentences)

    def to_frame(self) -> pd.DataFrame:
        """The contrasts the sentences are read from (a copy of :attr:`contrasts`); the sentences
        themselves are :attr:`sentences` and :meth:`to_text`."""
        return self.contrasts.copy()

    def _repr_html_(self) -> str:
        """Jupyter display: the sentences as a list."""
        import html

        return "<ul>" + "".join(f"<li>{html.escape(s)}</li>" for s in self.sentences) + "</ul>"

    def to_dict(self) -> dict:
        return json_safe(
            {
                "sentences": list(self.sentences),
                "adjust": self.adjust,
                "contrasts": [
                    {k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
                    for row in self.contrasts.to_dict(orient="records")
                ],
                "flagged": [
                    {k: (str(v) if k == "group" else v) for k, v in row.items()}
                    for row in self.flags[self.flags["flagged"]].to_dict(orient="records")
                ],
                "gnd": [
                    {k: (str(v) if k == "group" else v) for k, v in row.items()}
                    for row in self.gnd.to_dict(orient="records")
                ],
            }
        )

    def __str__(self) -> str:
        return self.to_text()


def _interval(low: float, high: float, digits: int = 2) -> str:
    """`` [0.82, 1.16]`` after a number (the style of the discrimination findings); empty when
    undefined."""
    return (
        f" {interval_text(low, high, digits=digits)}"
        if np.isfinite(low) and np.isfinite(high)
        else ""
    )


def _p(value: float) -> str:
    return p_phrase(value) if np.isfinite(value) else "p not available"


def _horizon(t: float, unit: str | None) -> str:
    return f"t = {t:g}" + (f" {unit}" if unit else "")


def _oe_sentences(
    summary: pd.DataFrame,
    gnd: pd.DataFrame,
    t: str,
    level: float,
    adjust: str,
    estimator: str = "Kaplan-Meier",
) -> list[str]:
    """Calibration-in-the-large (O/E) and across risk deciles (GND) of every group at one horizon.

    "Predicted risk matches the observed risk in every group" is said only when every O/E interval
    includes 1 and no group's GND test rejects at the adjusted level; a group whose GND test
    rejects is named even when its O/E is close to 1 (right on average, wrong across risk groups).
    """
    over, under, inside = [], [], []
    for group, row in summary.iterrows():
        words = (
            f"{group}: observed {percent(row['observed_risk'])} vs predicted "
            f"{percent(row['expected_risk'])} (O/E {row['oe_ratio']:.2f}"
            f"{_interval(row['oe_ratio_ci_low'], row['oe_ratio_ci_high'])})"
        )
        if row["oe_ratio_ci_high"] < 1:
            over.append(words)
        elif row["oe_ratio_ci_low"] > 1:
            under.append(words)
        else:
            inside.append(str(group))
    alpha = 1 - level
    name = adjust_name(adjust)
    rejected = gnd[gnd["p_adjusted"] <= alpha]
    tested = gnd.dropna(subset=["p_adjusted"])
    untested = [str(g) for g in gnd.loc[gnd["p_adjusted"].isna(), "group"]]
    sentences = []
    if under:
        sentences.append(f"At {t}, the model under-predicts risk for " + "; ".join(under) + ".")
    if over:
        sentences.append(f"At {t}, the model over-predicts risk for " + "; ".join(over) + ".")
    if inside and not (under or over) and rejected.empty:
        sentence = (
            f"At {t}, predicted risk matches the observed ({estimator}) risk within its interval "
            f"in every group ({', '.join(inside)})"
        )
        if not tested.empty:
            sentence += (
                ", and the Greenwood-Nam-D'Agostino test finds no miscalibration across deciles "
                f"of predicted risk (smallest {name} {_p(tested['p_adjusted'].min())})"
            )
        if untested:
            sentence += (
                f"; the GND test is not available for {', '.join(untested)} (too few events for "
                "two risk groups)"
            )
        sentences.append(sentence + ".")
    elif inside:
        sentences.append(f"At {t}, the O/E interval includes 1 for {', '.join(inside)}.")
    if not rejected.empty:
        named = "; ".join(
            f"{row['group']} (chi-square({int(row['df'])}) = {row['chi2']:.1f}, {name} "
            f"{_p(row['p_adjusted'])})"
            for _, row in rejected.iterrows()
        )
        on_average = set(map(str, rejected["group"])) <= set(inside)
        sentences.append(
            f"At {t}, the Greenwood-Nam-D'Agostino test rejects calibration across deciles of "
            f"predicted risk for {named}: "
            + (
                "right on average (O/E interval includes 1), wrong within risk groups."
                if on_average
                else "predicted and observed risks differ within risk groups."
            )
        )
    return sentences


#: how each contrasted statistic is named in the "largest gap" sentence, in its order
#: (ratio: O/E only)
_GAP_NAMES = {
    "oe_ratio": "the O/E ratio",
    "ici": "the ICI (mean |predicted - observed risk|)",
    "brier": "the Brier score",
}


def _gap_part(
    rows: pd.DataFrame, statistic: str, name: str, bootstrap: bool
) -> tuple[str, float] | None:
    """The largest contrast of one statistic at one horizon, in words, and its adjusted p-value."""
    rows = rows[rows["statistic"] == statistic].dropna(subset=["estimate"])
    if rows.empty:
        return None
    ratio = statistic == "oe_ratio"
    estimate = rows["estimate"].to_numpy(float)
    row = rows.iloc[int(np.nanargmax(np.abs(np.log(estimate)) if ratio else np.abs(estimate)))]
    forward = row["estimate"] >= (1 if ratio else 0)
    a, b = (row["a"], row["b"]) if forward else (row["b"], row["a"])
    if ratio:
        factor = row["estimate"] if forward else 1 / row["estimate"]
        low, high = (
            (row["ci_low"], row["ci_high"]) if forward else (1 / row["ci_high"], 1 / row["ci_low"])
        )
        words = (
            f"{_GAP_NAMES[statistic]} of {a} is {factor:.2f} times that of "
            f"{b}{_interval(low, high)}"
        )
    else:
        low, high = (
            (row["ci_low"], row["ci_high"]) if forward else (-row["ci_high"], -row["ci_low"])
        )
        words = (
            f"{_GAP_NAMES[statistic]} of {a} exceeds that of {b} by {abs(row['estimate']):.3f}"
            f"{_interval(low, high, 3)}"
        )
    p = float(row["p_adjusted"])
    if np.isnan(p) and not bootstrap and statistic == "ici":
        return f"{words} (its interval and p-value need ci='bootstrap')", p
    return f"{words} ({name} {_p(p)})", p


def _contrast_sentence(
    contrasts: pd.DataFrame, t: float, tt: str, adjust: str, level: float, bootstrap: bool
) -> str | None:
    """The largest calibration gap between groups of each calibration statistic the result has
    (the O/E ratio, and the ICI when estimated), then the largest difference in accuracy (the Brier
    score, which mixes discrimination and calibration, so it is not called a calibration gap);
    their scales differ, so each is stated."""
    rows = contrasts[contrasts["time"] == t]
    name = adjust_name(adjust)
    found = {statistic: _gap_part(rows, statistic, name, bootstrap) for statistic in _GAP_NAMES}
    parts = {statistic: part for statistic, part in found.items() if part is not None}
    if not parts:
        return None
    clear = [
        _GAP_NAMES[statistic].split(" (")[0] for statistic, (_, p) in parts.items() if p < 1 - level
    ]
    verdict = (
        f"a difference at the {level:.0%} level in {' and '.join(clear)}"
        if clear
        else f"no clear difference at the {level:.0%} level"
    )
    calibration = [text for statistic, (text, _) in parts.items() if statistic != "brier"]
    pieces = []
    if calibration:
        plural = "gaps" if len(calibration) > 1 else "gap"
        pieces.append(f"the largest calibration {plural} between groups: " + "; ".join(calibration))
    if "brier" in parts:  # accuracy: the Brier score mixes discrimination and calibration
        pieces.append(
            "the largest accuracy difference (the Brier score mixes discrimination and "
            f"calibration): {parts['brier'][0]}"
        )
    return f"At {tt}, " + "; ".join(pieces) + f"; {verdict}."


def _slope_sentence(summary: pd.DataFrame, tt: str, level: float) -> str | None:
    extreme, moderate = [], []
    for group, row in summary.iterrows():
        words = (
            f"{group} ({row['slope']:.2f}{_interval(row['slope_ci_low'], row['slope_ci_high'])})"
        )
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


def _clipped_sentence(summary: pd.DataFrame, tt: str, slope_and_curve: bool = True) -> str | None:
    """Groups with predicted risks of exactly 0 or 1 at this horizon: the cloglog statistics (slope,
    intercept, smooth curve) then depend on where they were clipped, not only on the model; without
    ``slope_and_curve`` only the intercept was computed, and only it is named."""
    if "n_clipped" not in summary.columns:
        return None
    named = [
        f"{group} ({int(row['n_clipped'])} of {int(row['n'])})"
        for group, row in summary.iterrows()
        if row["n_clipped"] > 0
    ]
    if not named:
        return None
    return (
        f"At {tt}, predicted risks of exactly 0 or 1 (within {CLOGLOG_CLIP:g}) for "
        + ", ".join(named)
        + f" were clipped to [{CLOGLOG_CLIP:g}, 1 - {CLOGLOG_CLIP:g}] for the complementary "
        "log-log transform: "
        + (
            "the calibration slope, intercept and ICI there depend"
            if slope_and_curve
            else "the calibration intercept there depends"
        )
        + " on that clip, not only on the model (O/E and the Brier score do not)."
    )


#: The scalar options of :func:`calibration_findings`.
_OPTIONS = OptionTable(
    "calibration_findings",
    adjust=one_of("holm", "bh", "bonferroni", "none"),
    min_events=integer(low=0),
    time_unit=text("years"),
)


def calibration_findings(
    result: CalibrationResult,
    *,
    adjust: str = "holm",
    min_events: int = 10,
    time_unit: str | None = None,
) -> CalibrationFindings:
    """Plain-language findings of :func:`survfair.calibration`, per horizon.

    A group is said to be under- (over-) predicted only when its O/E interval lies above (below)
    1; a group whose Greenwood-Nam-D'Agostino test rejects (p-values adjusted over every group and
    horizon, one family) is named as miscalibrated across risk deciles, and "predicted risk matches
    the observed risk in every group" is said only when no O/E interval excludes 1 and no GND test
    rejects. The largest contrast between groups of the O/E ratio, and of the ICI and the Brier
    score where the result has them, is reported with its adjusted p-value (the clearest first);
    a slope is called too extreme (moderate) only when its interval lies below (above) 1. When
    predicted risks of exactly 0 or 1 were clipped for the cloglog transform (``n_clipped`` of the
    result), the slope, intercept and ICI are said to depend on the clip. Groups with fewer than
    ``min_events`` events by the horizon are named as resting on little data.

    Parameters
    ----------
    result : CalibrationResult
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Adjustment of the contrasts' p-values within each family (one statistic, one horizon), and
        of the GND tests' p-values over every group and horizon.
    min_events : int, default=10
    time_unit : str, optional
        Unit of the horizons in the sentences (e.g. "years").

    Returns
    -------
    CalibrationFindings

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is not a CalibrationResult.
    InvalidParameterError (a ValueError)
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
    >>> found = survfair.calibration_findings(
    ...     survfair.calibration(time, event, group, risk, times=3)
    ... )
    >>> print(found.sentences[0][:60])
    At t = 3, the model under-predicts risk for M: observed 48.5
    """
    min_events = _OPTIONS.check(locals())["min_events"]
    if not isinstance(result, CalibrationResult):
        raise InvalidParameterError(
            f"result must be a CalibrationResult, got {type(result).__name__}.", parameter="result"
        )
    level = result.confidence_level
    estimated = result.estimates.dropna(subset=["estimate"])["statistic"].unique()
    contrasts = result.contrasts(
        [
            s
            for s in ("oe_ratio", "slope", "ici", "brier")
            if s == "oe_ratio" or (s == "slope" and result.slope_and_curve) or s in estimated
        ],
        adjust=adjust,
    )
    gnd = result.gnd.copy()  # one family: every group at every horizon
    gnd["p_adjusted"] = (
        adjust_p_values(gnd["p_value"].to_numpy(float), adjust=adjust) if len(gnd) else []
    )
    sentences, flag_rows = [], []
    for t in result.times:
        tt = _horizon(float(t), time_unit)
        summary = result.summary(float(t))
        sentences += _oe_sentences(
            summary,
            gnd[gnd["time"] == t],
            tt,
            level,
            adjust,
            "Kaplan-Meier" if result.cause is None else "Aalen-Johansen",
        )
        for sentence in (
            _contrast_sentence(
                contrasts, float(t), tt, adjust, level, result.ci_method == "bootstrap"
            )
            if len(result.groups) > 1
            else None,
            _slope_sentence(summary, tt, level),
            _clipped_sentence(summary, tt, result.slope_and_curve),
        ):
            if sentence:
                sentences.append(sentence)
        for group, row in summary.iterrows():
            flag_rows.append(
                {
                    "time": float(t),
                    "group": group,
                    "events": int(row["events"]),
                    "flagged": bool(row["events"] < min_events),
                }
            )
    flags = pd.DataFrame(flag_rows)
    few = flags[flags["flagged"]]
    if not few.empty:
        shown = ", ".join(
            f"{g} ({e} by {_horizon(t, time_unit)})"
            for t, g, e in zip(few["time"], few["group"], few["events"])
        )
        sentences.append(
            f"Caution: fewer than {min_events} events for {shown}; their calibration rests "
            "on little data."
        )
    if result.cause is not None:
        sentences.append(
            f"Competing risks (cause {result.cause}): predicted and observed risks are cumulative "
            "incidences (observed: Aalen-Johansen, a competing event is not a censoring); the "
            "calibration slope, intercept and ICI are not defined for a cumulative incidence and "
            "are not reported."
        )
    elif not result.slope_and_curve:
        sentences.append(
            "The calibration slope, the smooth calibration curve and its ICI, E50 and E90 were not "
            "computed (slope_and_curve=False); nothing here says whether the spread of the "
            "predicted risks is right."
        )
    elif result.ci_method != "bootstrap":
        sentences.append("ICI, E50 and E90 have intervals only with ci='bootstrap'.")
    return CalibrationFindings(tuple(sentences), contrasts, flags, adjust, gnd)
