"""What a finding rests on, checked before it is said (issue 41).

* **Absence needs evidence.** "No asymmetry", "no excess" are said only when the interval lies
  inside an equivalence margin (two one-sided tests, each at half the level: the two-sided interval
  inside ±margin); otherwise the sentence says how large a difference the interval still allows.
* **Calibration decides the reading.** Attributing an observed asymmetry to the groups' different
  risks ("what the model's own predictions imply") assumes the predictions are calibrated within
  each group. With a :class:`~survfair.CalibrationResult` beside the reference, that assumption is
  tested: within each group, the O/E ratio (null 1), the calibration intercept (null 0) and the
  Greenwood-Nam-D'Agostino test at every horizon, Holm-adjusted
  (or the findings' adjustment) together; between groups, the O/E ratio and
  intercept contrasts of :meth:`CalibrationResult.contrasts` (adjusted within each family). Any
  rejection keeps the asymmetry from being attributed to the groups' risks; without a calibration
  the reading is said to be unchecked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..._core.exceptions import InvalidParameterError
from ..._core.multiplicity import adjust_p_values
from ..format import interval_text, p_phrase

__all__ = [
    "DEFAULT_MARGIN",
    "CalibrationCheck",
    "check_calibration",
    "equivalent",
    "allowance",
    "adjust_name",
    "agreement_problem",
]

#: The default equivalence margin of a difference of two concordances (Δbetween, Δwithin, their
#: excess): 5 percentage points. A difference is called absent only when its interval lies inside
#: ±margin.
DEFAULT_MARGIN = 0.05

#: The statistics whose difference between groups keeps an asymmetry from being attributed to the
#: groups' risks: calibration-in-the-large (O/E, null 1) and the calibration intercept (slope fixed
#: at 1, null 0).
CHECKED_STATISTICS = ("oe_ratio", "intercept")
#: Within a group the reference rests on the whole predicted distribution, so the
#: Greenwood-Nam-D'Agostino test across deciles of predicted risk is tested too. Not the slope: with
#: predicted risks near 1 (clipped by the cloglog transform) it rejected the true model (slope 1.28
#: [1.14, 1.43], Holm p = 0.002, in tests/test_findings_assumptions.py's perfect model).
WITHIN_STATISTICS = ("oe_ratio", "intercept")
_NAMES = {"oe_ratio": "O/E", "intercept": "calibration intercept"}


def equivalent(low: float, high: float, margin: float) -> bool:
    """Whether the interval [low, high] lies strictly inside (−margin, margin): the two one-sided
    tests of |difference| >= margin both reject at half the interval's level."""
    return bool(math.isfinite(low) and math.isfinite(high) and -margin < low and high < margin)


def allowance(low: float, high: float, margin: float, subject: str = "its interval") -> str:
    """``"the interval still allows differences of up to 16.6 points (from −12.7 to +16.6), beyond
    the ±5.0-point equivalence margin"``: how large a difference the data cannot rule out."""
    largest = 100 * max(abs(low), abs(high))
    return (
        f"{subject} still allows a difference of up to {largest:.1f} points "
        f"(from {100 * low:+.1f} to {100 * high:+.1f}), beyond the ±{100 * margin:.1f}-point "
        "equivalence margin"
    )


@dataclass(frozen=True)
class CalibrationCheck:
    """The outcome of testing the calibration the model-based reading assumes.

    Attributes
    ----------
    status : {"unchecked", "rejected", "not rejected"}
    horizons : tuple of float
        The horizons tested.
    problems : tuple of str
        Each rejection in words (the largest first), empty unless ``status`` is "rejected".
    """

    status: str
    horizons: tuple = ()
    problems: tuple = ()

    def clause(self) -> str:
        """The sentence that states what the reading assumes and whether it was checked."""
        if self.status == "unchecked":
            return (
                "This reading assumes the predictions are calibrated within each group, which was "
                "not checked here: pass calibration= (survfair.calibration of the same "
                "predictions) to test it"
            )
        at = _horizons(self.horizons)
        if self.status == "not rejected":
            return (
                f"Calibration within and between groups was tested at {at} (O/E, calibration "
                "intercept and the Greenwood-Nam-D'Agostino test within each group; O/E and "
                "intercept contrasts between groups) and not rejected"
            )
        return f"Calibration is rejected ({self.listing()})"

    def listing(self) -> str:
        """The rejections, the three clearest first: ``"O/E in M 1.25 [1.10, 1.42] at 3,650
        (Holm-adjusted p < 0.001); ...; 4 more; tested at 1,825 and 3,650"``."""
        shown = "; ".join(self.problems[:3])
        more = len(self.problems) - 3
        more = f"; {more} more rejection{'s' if more > 1 else ''}" if more > 0 else ""
        return f"{shown}{more}; tested at {_horizons(self.horizons)}"


def _horizons(times: tuple) -> str:
    words = [f"{t:,g}" for t in times]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def check_calibration(
    calibration: Any, groups: tuple, alpha: float, adjust: str
) -> CalibrationCheck:
    """Test the within-group and between-group calibration of ``calibration`` (None: unchecked)
    for the groups of the audit.

    Raises
    ------
    InvalidParameterError
        If ``calibration`` does not cover the audit's groups.
    """
    if calibration is None:
        return CalibrationCheck("unchecked")
    missing = [g for g in groups if g not in tuple(calibration.groups)]
    if missing:
        raise InvalidParameterError(
            f"calibration has groups {list(calibration.groups)}, the audit {list(groups)}: pass "
            "the calibration of the same rows and groups.",
            parameter="calibration",
        )
    horizons = tuple(float(t) for t in calibration.times)
    problems = _within_problems(calibration, groups, alpha, adjust)
    problems += _between_problems(calibration, groups, alpha, adjust)
    problems.sort(key=lambda item: item[0])
    status = "rejected" if problems else "not rejected"
    return CalibrationCheck(status, horizons, tuple(text for _, text in problems))


def _within_problems(calibration: Any, groups: tuple, alpha: float, adjust: str) -> list:
    frame = calibration.to_frame()
    rows = frame[
        frame["statistic"].isin(WITHIN_STATISTICS)
        & frame["group"].isin(list(groups))
        & frame["p_value"].notna()
    ]
    words = [
        f"{_NAMES[row.statistic]} in {row.group} {row.estimate:.2f} "
        f"{interval_text(row.ci_low, row.ci_high, digits=2)} at {row.time:,g}"
        for row in rows.itertuples()
    ]
    p_values = list(rows["p_value"].astype(float))
    gnd = calibration.gnd
    gnd = gnd[gnd["group"].isin(list(groups)) & gnd["p_value"].notna()]
    words += [
        f"Greenwood-Nam-D'Agostino test in {row.group} chi-square({int(row.df)}) = {row.chi2:.1f} "
        f"at {row.time:,g}"
        for row in gnd.itertuples()
    ]
    p_values += list(gnd["p_value"].astype(float))
    if not p_values:
        return []
    adjusted = adjust_p_values(np.asarray(p_values), adjust=adjust)
    return [
        (float(p), f"{text}, {adjust_name(adjust)} {p_phrase(p)}")
        for text, p in zip(words, adjusted)
        if p < alpha
    ]


def _between_problems(calibration: Any, groups: tuple, alpha: float, adjust: str) -> list:
    if len(groups) < 2:
        return []
    contrasts = calibration.contrasts(statistics=CHECKED_STATISTICS, adjust=adjust)
    contrasts = contrasts[
        contrasts["a"].isin(list(groups))
        & contrasts["b"].isin(list(groups))
        & (pd.to_numeric(contrasts["p_adjusted"], errors="coerce") < alpha)
    ]
    out = []
    for row in contrasts.itertuples():
        interval = interval_text(row.ci_low, row.ci_high, digits=2)
        if row.statistic == "oe_ratio":
            what = f"between-group O/E ratio {row.a}/{row.b} {row.estimate:.2f} {interval}"
        else:
            what = f"intercept contrast {row.a} − {row.b} {row.estimate:+.2f} {interval}"
        out.append(
            (
                float(row.p_adjusted),
                f"{what} at {row.time:,g}, {adjust_name(adjust)} {p_phrase(row.p_adjusted)}",
            )
        )
    return out


def adjust_name(adjust: str) -> str:
    """How an adjustment is named in a sentence ("Holm-adjusted")."""
    return {
        "holm": "Holm-adjusted",
        "bh": "BH-adjusted",
        "bonferroni": "Bonferroni-adjusted",
        "none": "unadjusted",
    }[adjust]


def agreement_problem(model_based: Any) -> str | None:
    """``"the score orders only 81.2% of the pairs of cell (old, young) as the reference's
    predictions do"`` when the reference is flagged as not the model's own; None otherwise."""
    agreement = getattr(model_based, "reference_agreement", None)
    if agreement is None or getattr(model_based, "reference_consistent", True):
        return None
    values = np.where(np.isfinite(agreement), agreement, np.inf)
    a, b = np.unravel_index(int(np.argmin(values)), values.shape)
    groups = model_based.groups
    return (
        f"the score orders only {100 * values[a, b]:.1f}% of the pairs of cell ({groups[a]}, "
        f"{groups[b]}) as the reference's predictions do (below 90%)"
    )
