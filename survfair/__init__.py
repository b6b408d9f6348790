"""survfair: cross-group ranking fairness (xCI, xAUC) for censored time-to-event risk scores.

A higher ``risk`` always means a higher risk, i.e. an earlier expected event.
"""

from ._censoring import CensoringCurves
from ._exceptions import (
    ConvergenceError,
    NoComparablePairError,
    PositivityError,
    PositivityWarning,
    UndefinedXCIWarning,
)
from ._kernel import PairCounts
from ._results import ConfidenceInterval, XCIResult
from ._summaries import (
    Estimate,
    MinXCI,
    concordance_imparity,
    contrast,
    decompose,
    delta_between,
    delta_within,
    min_xci,
    overall_c,
    utility,
)
from ._xci import xci
from ._compare import ComparisonResult, compare_xci

__version__ = "0.1.0.dev0"

__all__ = [
    "xci",
    "XCIResult",
    "PairCounts",
    "CensoringCurves",
    "ConfidenceInterval",
    "Estimate",
    "MinXCI",
    "delta_within",
    "delta_between",
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
]
