#' survfair: cross-group ranking fairness of survival risk scores
#'
#' The R interface to survfair's Python engine. Start with [xci()] (the
#' group-conditional concordance matrix), its summaries ([delta_between()],
#' [pairwise_deltas()], [min_xci()]), [model_based_xci()] (what a Cox model's
#' own predictions imply), [calibration()], [findings()] and [write_report()];
#' [xauc()] for binary outcomes. [use_survfair()] chooses the Python
#' environment. See `vignette("survfair")`.
#'
#' @keywords internal
#' @importFrom stats confint nobs
#' @importFrom survival Surv
"_PACKAGE"

#' @importFrom survival Surv
#' @export
survival::Surv

utils::globalVariables(".data")
