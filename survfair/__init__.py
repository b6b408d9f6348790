"""survfair: cross-group ranking fairness (xCI, xAUC) for censored time-to-event risk scores.

A higher ``risk`` always means a higher risk, i.e. an earlier expected event.
"""

from ._censoring import CensoringCurves
from ._exceptions import (
    ConvergenceError,
    ExcludedRowsWarning,
    MemoryLimitError,
    NoComparablePairError,
    PositivityError,
    PositivityWarning,
    UndefinedXAUCWarning,
    UndefinedXCIWarning,
)
from ._kernel import PairCounts
from ._results import BootstrapDraws, ConfidenceInterval, Jackknife, XCIResult
from ._settings import EstimatorSettings
from ._summaries import (
    Estimate,
    MinXCI,
    concordance_imparity,
    contrast,
    decompose,
    delta_between,
    delta_within,
    min_xci,
    abs_delta_between,
    min_utility,
    nash_welfare,
    overall_c,
    pairwise_deltas,
    utility,
)
from ._xci import xci
from ._datasets import FlchainCohort, load_flchain
from . import simulate
from ._xauc import (
    XAUCResult,
    XROCCurve,
    auc_decomposition,
    balanced_xauc,
    balanced_xroc,
    conditional_xauc,
    delta_balanced_xauc,
    delta_xauc,
    group_metrics,
    xauc,
    xroc,
)
from ._xauc_t import XAUCtResult, xauc_t
from ._binary_adjust import (
    EqualOpportunityAdjustment,
    LogisticAdjustment,
    equal_opportunity_adjustment,
    logistic_adjustment,
)
from . import mitigate
from ._models import SUPPORTED_MODELS, fit_checked, risk_scores
from ._model_comparison import ModelComparison, compare
from ._scorer import make_xci_scorer, xci_score
from ._report import write_report
from ._paired import ComparisonResult, compare_xci

__version__ = "0.1.0.dev0"

__all__ = [
    "xci",
    "load_flchain",
    "FlchainCohort",
    "XCIResult",
    "PairCounts",
    "CensoringCurves",
    "ConfidenceInterval",
    "EstimatorSettings",
    "BootstrapDraws",
    "Jackknife",
    "Estimate",
    "MinXCI",
    "delta_within",
    "delta_between",
    "pairwise_deltas",
    "abs_delta_between",
    "min_utility",
    "nash_welfare",
    "min_xci",
    "utility",
    "concordance_imparity",
    "decompose",
    "contrast",
    "overall_c",
    "compare_xci",
    "ComparisonResult",
    "NoComparablePairError",
    "PositivityError",
    "PositivityWarning",
    "UndefinedXCIWarning",
    "ConvergenceError",
    "ExcludedRowsWarning",
    "MemoryLimitError",
    "simulate",
    "xauc",
    "XAUCResult",
    "XROCCurve",
    "UndefinedXAUCWarning",
    "delta_xauc",
    "balanced_xauc",
    "delta_balanced_xauc",
    "auc_decomposition",
    "xroc",
    "balanced_xroc",
    "conditional_xauc",
    "group_metrics",
    "xauc_t",
    "XAUCtResult",
    "logistic_adjustment",
    "LogisticAdjustment",
    "equal_opportunity_adjustment",
    "EqualOpportunityAdjustment",
    "mitigate",
    "risk_scores",
    "fit_checked",
    "SUPPORTED_MODELS",
    "compare",
    "ModelComparison",
    "make_xci_scorer",
    "xci_score",
    "write_report",
]
