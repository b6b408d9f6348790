"""Inference for the xCI matrix: the options of ``xci(ci=...)`` and attaching the requested
inference (influence functions, :mod:`survfair._core.influence`; the bootstrap,
:mod:`survfair._core.bootstrap`) to a point estimate."""

from __future__ import annotations

from dataclasses import replace

from .bootstrap import bootstrap, warn_bootstrap_failures
from .influence import Influence, influence
from .kernel import IndividualContributions, PreparedPairs, kernel_threads
from .moments import moment_influence, moments_apply
from .options import check_confidence_level, one_of
from .results import Jackknife, XCIResult
from .validation import SurvivalSample

__all__ = [
    "with_inference",
    "influence_with_rows",
    "CI_METHODS",
    "STRATIFY",
    "BOOTSTRAP_METHODS",
]

CI_METHODS = (None, "analytic", "bootstrap")
STRATIFY = ("group", "group_event", None)
BOOTSTRAP_METHODS = ("bca", "percentile")

#: The rows of the option tables (``_core/options.py: OptionTable``) for the inference keywords.
CI = one_of(*CI_METHODS)
STRATIFY_OPTION = one_of(*STRATIFY)
BOOTSTRAP_METHOD = one_of(*BOOTSTRAP_METHODS)


def with_inference(
    result: XCIResult,
    sample: SurvivalSample,
    *,
    ci: str | None,
    confidence_level: float,
    n_resamples: int,
    random_state,
    n_jobs: int | None,
    progress: bool,
    stratify: str | None,
    bootstrap_method: str,
    refit_censoring: bool,
    prepared: PreparedPairs | None = None,
    contributions: IndividualContributions | None = None,
    analytic_influence: Influence | None = None,
) -> XCIResult:
    """Return ``result`` with the requested inference attached (a new frozen result).

    ``ci="analytic"``: covariance of the cells from the influence functions (including the
    Kaplan-Meier estimation of the weights when ``refit_censoring``, i.e. they were fitted on
    ``sample``; ``contributions`` from the point estimate's passes are used when given).
    ``analytic_influence``: rows the caller computed (``censoring="cox"``: with the censoring
    model's estimation, :mod:`survfair._core.cox_influence`), used as they are.
    ``ci="bootstrap"``: replicates (censoring refitted when ``refit_censoring``), plus the
    delete-one jackknife for BCa. The validated sample is always kept (``result.sample``) so
    that :func:`survfair.compare_xci` can check and re-use it.
    """
    level = check_confidence_level(confidence_level)
    result = replace(
        result, sample=sample, refit_censoring=bool(refit_censoring), confidence_level=level
    )
    settings = result.settings
    if ci is None:
        return result
    curves = result.censoring_curves if result.method == "ipcw" else None
    if ci == "analytic":
        inf = analytic_influence
        estimated = curves.kind if curves is not None and refit_censoring else None
        no_rows = inf is None and contributions is None  # the moment engine keeps no rows
        if no_rows and moments_apply(sample, prepared, estimated):
            inf = moment_influence(
                sample,
                result.pair_counts,
                curves=curves,
                censoring_estimated=bool(refit_censoring),
                prepared=prepared,
                n_jobs=kernel_threads(n_jobs),
                settings=settings,
            )
        if inf is None:
            inf = influence(
                sample,
                result.pair_counts,
                curves=curves,
                censoring_estimated=bool(refit_censoring),
                prepared=prepared,
                contributions=contributions,
                jackknife=False,
                settings=settings,
            )
        return replace(result, influence=inf, ci_method="analytic")
    draws = bootstrap(
        sample,
        censoring=result.censoring if refit_censoring else None,
        fixed_curves=curves,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        stratify=stratify,
        settings=settings,
    )[0]
    warn_bootstrap_failures(draws, result.groups, stacklevel=4)
    jackknife = None
    if bootstrap_method == "bca":  # only the jackknife is read: no Kaplan-Meier term needed
        inf = influence(
            sample,
            result.pair_counts,
            curves=curves,
            censoring_estimated=False,
            prepared=prepared,
            contributions=contributions,  # censoring="cox": the series' (no curves to recount)
            settings=settings,
        )
        jackknife = Jackknife(inf.jackknife, inf.jackknife_overall)
    return replace(
        result,
        bootstrap=draws,
        jackknife=jackknife,
        ci_method="bootstrap",
        bootstrap_method=bootstrap_method,
    )


def influence_with_rows(result: XCIResult, *, jackknife: bool = False) -> Influence:
    """The result's influence rows: those it holds, or, when its analytic intervals came from the
    moment engine (no rows kept, :mod:`survfair._core.moments`), the row path's on its sample, or,
    without analytic intervals, computed on its sample (what paired comparisons and the model-based
    reference read). With ``jackknife`` the rows can also give the delete-one estimates (BCa), which
    an analytic result's stored rows cannot."""
    stored = result.influence
    if stored is not None and not stored.has_rows:
        stored = stored.rows  # recomputed, with the jackknife
    if stored is not None and (stored.has_jackknife or not jackknife):
        return stored
    curves = result.censoring_curves if result.method == "ipcw" else None
    return influence(
        result.sample,
        result.pair_counts,
        curves=curves,
        censoring_estimated=result.refit_censoring,
        settings=result.settings,
    )
