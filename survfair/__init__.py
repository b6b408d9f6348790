"""survfair: cross-group ranking fairness (xCI, xAUC) for censored time-to-event risk scores.

A higher ``risk`` always means a higher risk, i.e. an earlier expected event.
"""

# Every public name is imported on first use (PEP 562 module ``__getattr__``), so that
# ``import survfair`` does not load numpy, pandas, scipy.stats, scikit-learn or matplotlib
# up front; ``survfair.xci`` (or ``from survfair import xci``) loads what it needs the first time.
# The names, ``__all__`` and ``dir(survfair)`` are those of the eager package. Type checkers and
# IDEs read the imports under TYPE_CHECKING (the package ships ``py.typed``); keep the table
# ``_LAZY`` below and those imports in step.

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:
    from . import mitigate, simulate
    from ._binary.adjustment import (
        EqualOpportunityAdjustment,
        LogisticAdjustment,
        equal_opportunity_adjustment,
        logistic_adjustment,
    )
    from ._binary.summaries import (
        auc_decomposition,
        balanced_xauc,
        delta_balanced_xauc,
        group_metrics,
    )
    from ._binary.xauc import XAUCResult, xauc
    from ._binary.xauc_t import XAUCtResult, xauc_t
    from ._binary.xroc import XROCCurve, balanced_xroc, conditional_xauc, xroc
    from ._calibration.estimator import calibration, risks_from_linear_predictor
    from ._calibration.profile import fairness_profile
    from ._calibration.result import CalibrationResult
    from ._core.censoring import CensoringCurves
    from ._core.censoring_check import CensoringDependence, censoring_dependence
    from ._core.datasets import FlchainCohort, load_flchain
    from ._core.exceptions import (
        ConvergenceError,
        ExcludedRowsWarning,
        InvalidParameterError,
        MemoryLimitError,
        NoComparablePairError,
        PositivityError,
        PositivityWarning,
        SurvfairDeprecationWarning,
        UndefinedXAUCWarning,
        UndefinedXCIWarning,
    )
    from ._core.intervals import ConfidenceInterval
    from ._core.kernel import PairCounts
    from ._core.multiplicity import OmnibusTest, adjust_p_values, omnibus_test
    from ._core.results import BootstrapDraws, Jackknife, XCIResult
    from ._core.settings import EstimatorSettings
    from ._models.comparison import ModelComparison, compare
    from ._models.fitting import SUPPORTED_MODELS, fit_checked, predicted_risks, risk_scores
    from ._models.model_based import model_based_xauc, model_based_xci
    from ._models.model_based_result import (
        ModelBasedResult,
        excess_delta_between,
        excess_delta_within,
    )
    from ._present.findings.calibration import CalibrationFindings, calibration_findings
    from ._present.findings.ranking import Findings, findings, small_sample_flags
    from ._present.report import write_report
    from ._xci.estimator import xci
    from ._xci.paired import ComparisonResult, compare_xci
    from ._xci.scorer import make_xci_scorer, xci_score
    from ._xci.summaries import (
        Estimate,
        MinXCI,
        abs_delta_between,
        concordance_imparity,
        contrast,
        decompose,
        delta_between,
        delta_within,
        min_utility,
        min_xci,
        nash_welfare,
        overall_c,
        pairwise_deltas,
        utility,
    )

from ._core import display as _display  # noqa: E402  (a few lines each, no third-party import)
from ._core.version import __version__ as __version__


def _load_renderers() -> None:
    """Register the results' Jupyter HTML (the presentation layer), the first time one is shown."""
    _importlib.import_module("._present.notebook", __name__)


_display.add_loader(_load_renderers)

#: The submodule that defines each public name (the imports above, as a table).
_LAZY = {
    name: module
    for module, names in {
        "._core.censoring": ("CensoringCurves",),
        "._core.censoring_check": ("CensoringDependence", "censoring_dependence"),
        "._core.exceptions": (
            "ConvergenceError",
            "ExcludedRowsWarning",
            "InvalidParameterError",
            "MemoryLimitError",
            "NoComparablePairError",
            "PositivityError",
            "PositivityWarning",
            "SurvfairDeprecationWarning",
            "UndefinedXAUCWarning",
            "UndefinedXCIWarning",
        ),
        "._core.kernel": ("PairCounts",),
        "._core.intervals": ("ConfidenceInterval",),
        "._core.results": ("BootstrapDraws", "Jackknife", "XCIResult"),
        "._core.settings": ("EstimatorSettings",),
        "._xci.summaries": (
            "Estimate",
            "MinXCI",
            "concordance_imparity",
            "contrast",
            "decompose",
            "delta_between",
            "delta_within",
            "min_xci",
            "abs_delta_between",
            "min_utility",
            "nash_welfare",
            "overall_c",
            "pairwise_deltas",
            "utility",
        ),
        "._core.multiplicity": ("OmnibusTest", "adjust_p_values", "omnibus_test"),
        "._present.findings.ranking": ("Findings", "findings", "small_sample_flags"),
        "._xci.estimator": ("xci",),
        "._calibration.estimator": ("calibration", "risks_from_linear_predictor"),
        "._calibration.result": ("CalibrationResult",),
        "._present.findings.calibration": ("CalibrationFindings", "calibration_findings"),
        "._calibration.profile": ("fairness_profile",),
        "._core.datasets": ("FlchainCohort", "load_flchain"),
        "._binary.xauc": ("XAUCResult", "xauc"),
        "._binary.summaries": (
            "auc_decomposition",
            "balanced_xauc",
            "delta_balanced_xauc",
            "group_metrics",
        ),
        "._binary.xroc": ("XROCCurve", "balanced_xroc", "conditional_xauc", "xroc"),
        "._binary.xauc_t": ("XAUCtResult", "xauc_t"),
        "._binary.adjustment": (
            "EqualOpportunityAdjustment",
            "LogisticAdjustment",
            "equal_opportunity_adjustment",
            "logistic_adjustment",
        ),
        "._models.fitting": ("SUPPORTED_MODELS", "fit_checked", "predicted_risks", "risk_scores"),
        "._models.comparison": ("ModelComparison", "compare"),
        "._xci.scorer": ("make_xci_scorer", "xci_score"),
        "._present.report": ("write_report",),
        "._xci.paired": ("ComparisonResult", "compare_xci"),
        "._models.model_based": ("model_based_xci", "model_based_xauc"),
        "._models.model_based_result": (
            "ModelBasedResult",
            "excess_delta_between",
            "excess_delta_within",
        ),
    }.items()
    for name in names
}
#: Public subpackages, attributes of the package as ``from . import simulate`` made them.
_SUBPACKAGES = ("simulate", "mitigate")

__all__ = [
    "xci",
    "load_flchain",
    "FlchainCohort",
    "XCIResult",
    "PairCounts",
    "CensoringCurves",
    "censoring_dependence",
    "CensoringDependence",
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
    "omnibus_test",
    "OmnibusTest",
    "adjust_p_values",
    "findings",
    "Findings",
    "small_sample_flags",
    "compare_xci",
    "ComparisonResult",
    "NoComparablePairError",
    "PositivityError",
    "PositivityWarning",
    "UndefinedXCIWarning",
    "ConvergenceError",
    "ExcludedRowsWarning",
    "MemoryLimitError",
    "InvalidParameterError",
    "SurvfairDeprecationWarning",
    "simulate",
    "calibration",
    "CalibrationResult",
    "calibration_findings",
    "CalibrationFindings",
    "risks_from_linear_predictor",
    "predicted_risks",
    "fairness_profile",
    "xauc",
    "XAUCResult",
    "XROCCurve",
    "UndefinedXAUCWarning",
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
    "model_based_xci",
    "model_based_xauc",
    "ModelBasedResult",
    "excess_delta_between",
    "excess_delta_within",
]


def _private_modules() -> set[str]:
    """The package's own ``_name`` modules (all of them were attributes of the eager package)."""
    import pkgutil

    return {
        m.name
        for m in pkgutil.iter_modules(__path__)
        if m.name.startswith("_") and not m.name.startswith("__")
    }


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(_importlib.import_module(module, __name__), name)
    elif name in _SUBPACKAGES or (
        name.startswith("_") and not name.startswith("__") and name in _private_modules()
    ):
        value = _importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    own = {
        name
        for name in globals()
        if name.startswith("__") and name not in ("__getattr__", "__dir__")
    }
    loaded = {
        name
        for name, value in globals().items()
        if getattr(value, "__name__", "").startswith(__name__ + ".")
        and type(value).__name__ == "module"
    }
    return sorted(own | set(__all__) | set(_SUBPACKAGES) | _private_modules() | loaded)
