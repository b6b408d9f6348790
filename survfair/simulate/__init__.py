"""survfair.simulate: the log-normal model of Wang et al. (2026, Section 5) and Gaussian xAUC.

- :func:`lognormal_xci`: exact (and approximate) population xCI of
  ``log T = beta0 + beta1 G + beta2 Z + eps`` for the linear score, optionally truncated at tau
  (the IPCW target of eq. 5).
- :func:`lognormal_cohort`: simulated cohorts with group-specific censoring.
- :func:`study` / :func:`plot_study`: the Section 5.1 study and Figure 1.
- :func:`ipcw_bias_study`: naive vs IPCW bias under group-specific censoring.
- :func:`gaussian_xauc`: closed-form xAUC of Gaussian scores (Kallus & Zhou 2019, Section 6).
- :func:`ph_design` / :func:`aft_design`: any proportional-hazards (exponential, Weibull, Gompertz)
  or accelerated-failure-time (log-normal, log-logistic, Weibull) design with group-specific
  baselines, effects and censoring (a rate, or a target censored fraction solved numerically);
  ``design.draw(n)`` cohorts, ``design.true_xci(tau)`` its truth by Monte Carlo;
  :func:`ph_xci_integral` the exact cells of a shared-baseline PH design.
- :func:`coverage_study`: replications x estimators x sizes: bias, SE/SD, RMSE, coverage and power
  with Monte-Carlo SEs; :func:`power_curve` power for Δbetween against n; :func:`plot_coverage`,
  :func:`plot_power`.

Scores are risks: a higher value means an earlier event (the negated linear predictor of
log-time); ``lognormal_xci(..., orientation="paper")`` gives the paper's literal orientation.
"""

from ._cohort import CensoringSpec, lognormal_cohort
from ._designs import (
    AFT_DISTRIBUTIONS,
    PH_BASELINES,
    CohortDesign,
    TrueXCI,
    aft_design,
    ph_design,
    ph_xci_integral,
)
from ._gaussian import gaussian_xauc
from ._harness import (
    ESTIMATORS,
    CoverageStudy,
    coverage_study,
    plot_coverage,
    plot_power,
    power_curve,
)
from ._lognormal import LognormalXCI, lognormal_xci
from ._study import DEFAULT_CENSORING, PAPER_GRID, ipcw_bias_study, plot_study, study

__all__ = [
    "lognormal_xci",
    "LognormalXCI",
    "lognormal_cohort",
    "CensoringSpec",
    "study",
    "ipcw_bias_study",
    "plot_study",
    "gaussian_xauc",
    "PAPER_GRID",
    "DEFAULT_CENSORING",
    "ph_design",
    "aft_design",
    "CohortDesign",
    "TrueXCI",
    "ph_xci_integral",
    "PH_BASELINES",
    "AFT_DISTRIBUTIONS",
    "coverage_study",
    "CoverageStudy",
    "ESTIMATORS",
    "power_curve",
    "plot_coverage",
    "plot_power",
]
