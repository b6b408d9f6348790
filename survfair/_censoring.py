"""Censoring survival K_g(t) = P(U > t | G = g), per group or pooled.

The Kaplan-Meier fit itself is scikit-survival's :class:`~sksurv.nonparametric.CensoringDistributionEstimator`
(events leave the risk set before censorings at a tied time; right-continuous), so that with one
group survfair's IPCW weights are exactly scikit-survival's.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sksurv.nonparametric import CensoringDistributionEstimator, kaplan_meier_estimator
from sksurv.util import Surv

from ._exceptions import PositivityError, PositivityWarning
from ._validation import SurvivalSample

__all__ = ["CensoringCurves", "fit_censoring"]

POSITIVITY_WARN_LEVEL = 0.1


@dataclass(frozen=True)
class CensoringCurves:
    """Fitted censoring survival curves, one per group (or one shared curve).

    Attributes
    ----------
    kind : {"group", "pooled"}
        ``"group"``: K_g fitted within each group (eq. 6 of Wang et al. 2026);
        ``"pooled"``: one K for everyone (scikit-survival's ``concordance_index_ipcw``).
    groups : tuple
        Group labels, in matrix order.
    estimators : tuple of CensoringDistributionEstimator
        One fitted estimator per group; with ``kind="pooled"`` the same object repeated.
    """

    kind: str
    groups: tuple
    estimators: tuple = field(repr=False)

    def evaluate(self, group_index: int, times: np.ndarray) -> np.ndarray:
        """K of group ``groups[group_index]`` at ``times``; NaN beyond the curve's last time.

        Beyond the last time of the reference sample a Kaplan-Meier curve that has not
        reached zero is undefined, so NaN is returned there (scikit-survival raises).
        """
        estimator = self.estimators[group_index]
        times = np.asarray(times, dtype=np.float64)
        values = np.full(times.shape, np.nan)
        last_time, last_prob = estimator.unique_time_[-1], estimator.prob_[-1]
        inside = times <= last_time
        if inside.any():
            values[inside] = estimator.predict_proba(times[inside])
        if last_prob == 0:
            values[~inside] = 0.0
        return values

    def to_frame(self) -> pd.DataFrame:
        """Tidy curves: one row per (group, time) with the censoring survival just after it."""
        frames = []
        for label, estimator in zip(self.groups, self.estimators):
            finite = np.isfinite(estimator.unique_time_)
            frames.append(
                pd.DataFrame(
                    {
                        "group": label,
                        "time": estimator.unique_time_[finite],
                        "censoring_survival": estimator.prob_[finite],
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)


def _fit_one(time: np.ndarray, event: np.ndarray) -> CensoringDistributionEstimator:
    if event.any():
        return CensoringDistributionEstimator().fit(Surv.from_arrays(event=event, time=time))
    # A group with no event at all: the censoring KM is well defined (every time is a censoring),
    # but CensoringDistributionEstimator.fit refuses "all samples are censored"; build the same
    # fitted state from the library's Kaplan-Meier, which allows it.
    estimator = CensoringDistributionEstimator()
    unique_time, prob = kaplan_meier_estimator(event, time, reverse=True)
    estimator.unique_time_ = np.r_[-np.inf, unique_time]
    estimator.prob_ = np.r_[1.0, prob]
    return estimator


def fit_censoring(reference: SurvivalSample, kind: str) -> CensoringCurves:
    """Fit the censoring survival on ``reference`` per group (``kind="group"``) or pooled.

    Raises
    ------
    ValueError
        If a group of the analysis has no row in the reference sample.
    """
    if kind == "pooled":
        pooled = _fit_one(reference.time, reference.event)
        return CensoringCurves("pooled", reference.groups, (pooled,) * reference.n_groups)
    estimators = []
    for code, label in enumerate(reference.groups):
        rows = reference.group_codes == code
        if not rows.any():
            raise ValueError(f"censoring_reference has no row of group {label!r}; K_{label} cannot be fitted.")
        estimators.append(_fit_one(reference.time[rows], reference.event[rows]))
    return CensoringCurves("group", reference.groups, tuple(estimators))


def raise_positivity(curves: CensoringCurves, group_index: int, time: float, value: float) -> None:
    """Raise the positivity error for a weight that cannot be formed."""
    label = curves.groups[group_index]
    if np.isnan(value):
        raise PositivityError(
            f"censoring survival K of group {label!r} is undefined at time {time:g}, beyond the last "
            "time of the censoring reference sample; pass a smaller tau."
        )
    raise PositivityError(
        f"censoring survival K of group {label!r} is 0 at time {time:g}, so its IPCW weight is infinite "
        f"(positivity fails); pass a smaller tau (below {time:g})."
    )


def check_positivity(curves: CensoringCurves, last_weighted_time: float) -> dict:
    """Warn when K_g drops below 0.1 on [0, tau); return min K_g per group on that range.

    ``last_weighted_time`` is the largest time at which a weight is used (the largest event time
    below tau); K is non-increasing, so its minimum over the range is its value there.
    """
    minima = {}
    for code, label in enumerate(curves.groups):
        # K_g is only used up to the last time of group g's own reference curve
        until = min(last_weighted_time, float(curves.estimators[code].unique_time_[-1]))
        value = float(curves.evaluate(code, np.array([until]))[0])
        minima[label] = value
        if np.isfinite(value) and 0 < value < POSITIVITY_WARN_LEVEL:
            warnings.warn(
                f"censoring survival of group {label!r} falls to {value:.3g} (< {POSITIVITY_WARN_LEVEL}) "
                f"by time {until:g}; IPCW weights up to {1 / value ** 2:.3g} make the estimate "
                "unstable. Consider a smaller tau.",
                PositivityWarning,
                stacklevel=3,
            )
    return minima
