"""Mitigation: post-processing risk scores to close cross-group concordance gaps.

* :func:`group_shift` -- per-group additive offsets (Proposition 5.1 of Wang et al. 2026),
  fitted exactly for two groups;
* :func:`group_monotone` -- per-group monotone (quantile) maps matching each group's score
  distribution among events to a reference group's (survival analogue of Kallus & Zhou's
  equal-opportunity adjustment);
* :func:`frontier` and :func:`plot_frontier` -- the accuracy / fairness trade-off curve;
* :func:`calibration_cost` -- the calibration of the adjusted predicted risks per group beside the
  ranking gain (an adjustment that equalises ranking changes a group's absolute risks);
  :func:`group_shift` and :func:`group_monotone` compute it themselves, on their evaluation sample,
  when given the model's predicted risks (``predicted=``, ``times=``, as :func:`frontier`).

A higher ``risk`` always means an earlier expected event. Fitted adjusters are immutable; judge
them on data not used for fitting (``fit_on=``), since in-sample gains are optimistic.
"""

from ._calibration_cost import CalibrationCost, calibration_cost
from ._frontier import Frontier, frontier, plot_frontier
from ._monotone import GroupMonotone, group_monotone
from ._shift import OBJECTIVES, GroupShift, group_shift

__all__ = [
    "group_shift",
    "GroupShift",
    "group_monotone",
    "GroupMonotone",
    "frontier",
    "Frontier",
    "plot_frontier",
    "OBJECTIVES",
    "calibration_cost",
    "CalibrationCost",
]
