"""Plots of xCI / xAUC audits (matplotlib, imported lazily).

Every function takes its data first, then keyword-only options with ``ax=None`` (a new figure
is made when None), returns the matplotlib Axes, and never calls ``show()``. Extra keyword
arguments go to the main matplotlib call of the function.

A higher ``risk`` always means an earlier expected event.

Group labels, model names and titles are data, not markup: every text drawn from them is taken
literally, so a ``$`` is a dollar sign and never starts matplotlib mathtext, and legends keep
labels that start with ``_``. A group label or model name longer than 40 characters is cut with
an ellipsis in figures (any drawn text at 200), never in tables or JSON.
"""

from ._present.plots.calibration import plot_calibration, plot_observed_expected
from ._present.plots.figures import (
    plot_censoring_curves,
    plot_conditional_xauc,
    plot_forest,
    plot_risk_densities,
    plot_xci_difference,
    plot_xci_heatmap,
    plot_xroc,
)

__all__ = [
    "plot_xci_heatmap",
    "plot_xci_difference",
    "plot_risk_densities",
    "plot_censoring_curves",
    "plot_forest",
    "plot_xroc",
    "plot_conditional_xauc",
    "plot_calibration",
    "plot_observed_expected",
]
