#' Model-based xCI: what a Cox model's own predictions imply
#'
#' The xCI matrix the model would have if its own predictions were true
#' (Gönen and Heller 2005's model-based concordance, per pair of groups; van
#' Klaveren et al. 2016), beside the observed xCI of the same rows and their
#' difference, the excess. An asymmetry that the groups' different predicted
#' risks already imply is in the reference; what remains (the excess) is the
#' model's. survfair's Python `model_based_xci()` with a proportional-hazards
#' linear predictor and baseline.
#'
#' From a [survival::coxph()] fit, the linear predictor is the fit's (centred
#' at the covariate means, as `predict(fit, type = "lp")`) and the baseline
#' cumulative hazard at `tau` is Breslow's estimate from the fit
#' ([coxph_baseline()]: `survfit(fit, ctype = 1)`), read as survfair reads its
#' own Breslow estimate: the events before `tau` (with `tau = NULL`, through
#' the last event time). The risk score audited is the linear predictor.
#'
#' @param formula A fitted [survival::coxph()] model (without strata, case
#'   weights or delayed entry), or `Surv(time, status) ~ risk` with
#'   `linear_predictor =`.
#' @param data The data frame the model was fitted on (or that holds the
#'   variables of the formula).
#' @param group,tau,method,censoring,groups,tied_tol,cluster,conf.level,n_resamples,seed,na.action
#'   As in [xci()].
#' @param linear_predictor With a formula: the PH linear predictor (a column of
#'   `data` or a vector); default: the risk of the formula.
#' @param baseline With a formula: `NULL` (Breslow's estimate from the
#'   analysed rows, computed by survfair) or a data frame with columns `time`
#'   and `cumhaz`, the baseline cumulative hazard on the scale of
#'   `linear_predictor` (read at `tau` by linear interpolation).
#' @param ci `"analytic"` (the default), `"bootstrap"` or `"none"`.
#' @param reference_check `"refuse"` (the default: an error when the risk does
#'   not rank people as the predictions do, agreement below 0.75 in a cell) or
#'   `"flag"`.
#' @param ... Unused.
#' @return An object of class `survfair_model_based`: a list with `observed`
#'   (a [xci()] result), `model_based`, `excess` (G x G matrices), `cells` (one
#'   row per cell: observed, model-based, excess, their standard errors,
#'   interval and p-value of the excess, agreement), `summaries` (excess
#'   Δbetween / Δwithin per pair of groups), `tau`, `reference`,
#'   `reference_consistent`, `call`, `py`. Methods: `print`, `summary`,
#'   `as.data.frame`, `confint`, `plot`, `tidy()`, `glance()`.
#' @references Gönen M, Heller G (2005). Concordance probability and
#'   discriminatory power in proportional hazards regression. Biometrika 92(4).
#' @seealso [findings()], which reads the excess; [calibration()], whether the
#'   predictions the reference rests on hold.
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- na.omit(transform(lung[, c("time", "status", "sex", "age", "ph.ecog")],
#'                            sex = factor(sex, 1:2, c("male", "female"))))
#' fit <- coxph(Surv(time, status) ~ age + ph.ecog, data = lung2)
#' mb <- model_based_xci(fit, data = lung2, group = ~ sex, tau = 365)
#' mb
#' as.data.frame(mb, what = "summaries")
#' @export
model_based_xci <- function(formula, ...) {
  UseMethod("model_based_xci")
}

#' @rdname model_based_xci
#' @export
model_based_xci.coxph <- function(formula, data = NULL, group, tau = NULL,
                                  method = c("ipcw", "naive"), censoring = c("group", "pooled"),
                                  groups = NULL, tied_tol = 1e-8,
                                  ci = c("analytic", "bootstrap", "none"), conf.level = 0.95,
                                  n_resamples = 1000L, seed = NULL,
                                  reference_check = c("refuse", "flag"), ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  fit <- formula
  inputs <- .coxph_inputs(fit, data, group, parent.frame())
  if (!is.null(inputs$entry)) {
    stop("model_based_xci() does not take delayed entry (a coxph fit on Surv(start, stop, ",
         "status)).", call. = FALSE)
  }
  if (!is.null(inputs$weights)) {
    stop("model_based_xci() does not take case weights (the coxph fit has weights).", call. = FALSE)
  }
  kept <- if (is.null(groups)) rep(TRUE, inputs$n) else inputs$group %in% as.character(groups)
  if (is.null(tau)) {
    last <- max(inputs$time[inputs$event & kept])
    H <- coxph_baseline(fit, last)
    at <- last
  } else {
    at <- as.double(tau)
    H <- .baseline_before(fit, at)
  }
  baseline <- reticulate::tuple(.np(c(0, at), "float64"), .np(c(0, H), "float64"), convert = FALSE)
  .model_based_from_inputs(inputs, call, linear_predictor = inputs$score, baseline = baseline,
                           tau = tau, method = match.arg(method), censoring = match.arg(censoring),
                           groups = groups, tied_tol = tied_tol, ci = ci, conf.level = conf.level,
                           n_resamples = n_resamples, seed = seed,
                           reference_check = match.arg(reference_check))
}

# Breslow's H0(tau-): the events strictly before tau (survfair's reading with a given tau).
.baseline_before <- function(fit, tau) {
  coxph_baseline(fit, 0)  # checks the fit
  curve <- survival::survfit(fit, ctype = 1, se.fit = FALSE)
  at <- findInterval(tau, curve$time, left.open = TRUE)
  if (tau > max(curve$time)) {
    stop("`tau` = ", tau, " is after the last follow-up time of the fit (", max(curve$time), ").",
         call. = FALSE)
  }
  if (at == 0L) 0 else curve$cumhaz[[at]]
}

#' @rdname model_based_xci
#' @export
model_based_xci.formula <- function(formula, data = NULL, group, linear_predictor = NULL,
                                    baseline = NULL, tau = NULL, method = c("ipcw", "naive"),
                                    censoring = c("group", "pooled"), groups = NULL,
                                    tied_tol = 1e-8, cluster = NULL,
                                    ci = c("analytic", "bootstrap", "none"), conf.level = 0.95,
                                    n_resamples = 1000L, seed = NULL,
                                    reference_check = c("refuse", "flag"),
                                    na.action = stats::na.fail, ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  lp_expr <- substitute(linear_predictor)
  inputs <- .read_inputs(formula, data, group, cluster = substitute(cluster),
                         na.action = na.action, env = parent.frame())
  if (!is.null(inputs$entry)) {
    stop("model_based_xci() does not take delayed entry (Surv(start, stop, status)).",
         call. = FALSE)
  }
  if (!is.null(inputs$cause)) {
    stop("model_based_xci() does not take competing risks.", call. = FALSE)
  }
  lp <- if (is.null(lp_expr)) {
    inputs$score
  } else {
    value <- .eval_arg(lp_expr, data, environment(formula) %||% parent.frame(), "linear_predictor")
    if (!is.numeric(value) || length(value) != inputs$n_input) {
      stop("`linear_predictor` must be numeric with one value per row of the data.", call. = FALSE)
    }
    keep <- if (length(inputs$na.action)) -as.integer(inputs$na.action) else seq_along(value)
    value <- as.double(value)[keep]
    if (anyNA(value)) {
      stop("missing values (NA) in `linear_predictor`, rows ", .name_rows(inputs$rows[is.na(value)]),
           ".", call. = FALSE)
    }
    value
  }
  if (!is.null(baseline)) {
    if (!is.data.frame(baseline) || !all(c("time", "cumhaz") %in% names(baseline))) {
      stop("`baseline` must be a data frame with columns `time` and `cumhaz` (e.g. from ",
           "survival::basehaz(fit, centered = TRUE), renamed: hazard -> cumhaz).", call. = FALSE)
    }
    baseline <- reticulate::tuple(.np(baseline$time, "float64"), .np(baseline$cumhaz, "float64"),
                                  convert = FALSE)
  }
  .model_based_from_inputs(inputs, call, linear_predictor = lp, baseline = baseline, tau = tau,
                           method = match.arg(method), censoring = match.arg(censoring),
                           groups = groups, tied_tol = tied_tol, ci = ci, conf.level = conf.level,
                           n_resamples = n_resamples, seed = seed,
                           reference_check = match.arg(reference_check))
}

.model_based_from_inputs <- function(inputs, call, linear_predictor, baseline, tau, method,
                                     censoring, groups, tied_tol, ci, conf.level, n_resamples,
                                     seed, reference_check) {
  kw <- list(
    linear_predictor = .np(linear_predictor, "float64"),
    baseline = baseline,
    method = method,
    tau = .scalar(tau, "tau"),
    censoring = censoring,
    tied_tol = .scalar(tied_tol, "tied_tol"),
    groups = .python_groups(inputs, groups),
    reference_check = reference_check,
    ci = .ci_arg(ci),
    confidence_level = .check_level(conf.level),
    n_resamples = .scalar(n_resamples, "n_resamples", integer = TRUE),
    random_state = .seed_arg(seed)
  )
  if (!is.null(inputs$cluster)) kw$cluster <- .np(inputs$cluster)
  py <- .py_call("model_based_xci", .np(inputs$time, "float64"), .np(inputs$event, "bool"),
                 .np(inputs$group), .np(inputs$score, "float64"), .args = kw)
  .new_model_based(py, inputs, call)
}

.new_model_based <- function(py, inputs, call = NULL) {
  observed <- .new_xci(py$observed, inputs, call)
  groups <- observed$groups
  cells <- .py_frame(py$to_frame())
  G <- length(groups)
  as_matrix <- function(column) {
    m <- matrix(NA_real_, G, G, dimnames = list(a = groups, b = groups))
    m[cbind(match(cells$a, groups), match(cells$b, groups))] <- cells[[column]]
    m
  }
  ci_method <- reticulate::py_to_r(py$ci_method)
  summaries <- if (G > 1L) .py_frame(.py_call(py$summaries)) else NULL
  structure(list(
    observed = observed,
    model_based = as_matrix("model_based"),
    excess = as_matrix("excess"),
    cells = cells,
    summaries = summaries,
    groups = groups,
    tau = .py_opt_num(py$tau),
    reference = reticulate::py_to_r(py$reference),
    reference_consistent = reticulate::py_to_r(py$reference_consistent),
    ci = ci_method %||% "none",
    conf.level = .py_num(py$confidence_level),
    call = call,
    py = py
  ), class = "survfair_model_based")
}

#' @rdname model_based_xci
#' @param x,object A `survfair_model_based` result.
#' @param digits Decimal places.
#' @export
print.survfair_model_based <- function(x, digits = 4, ...) {
  cat("survfair model-based xCI: reference ", x$reference, ", tau = ", format(x$tau), "; ",
      x$observed$n, " rows; group: ", x$observed$group_name %||% "group", "; ",
      .describe_ci(list(ci = x$ci, conf.level = x$conf.level)), "\n", sep = "")
  if (!isTRUE(x$reference_consistent)) {
    cat("(flagged: the risk ranks people differently from the predictions in some cell; the ",
        "excess is not read as the model's)\n", sep = "")
  }
  show <- function(m, title) {
    cat("\n", title, "\n", sep = "")
    print(noquote(matrix(.fmt(m, digits), nrow(m), dimnames = list(
      paste0("a = ", rownames(m)), paste0("b = ", colnames(m))))), right = TRUE)
  }
  cat("(rows a: group of the member with the EARLIER event; columns b: the member who outlived it)\n")
  show(x$observed$matrix, "observed:")
  show(x$model_based, "model-based (what the model's own predictions imply):")
  show(x$excess, "excess (observed - model-based):")
  if (!is.null(x$summaries)) {
    s <- x$summaries
    cat("\nexcess asymmetry (interval and p-value of the excess):\n")
    print(data.frame(summary = s$summary, a = s$a, b = s$b, observed = .fmt(s$observed, digits),
                     model_based = .fmt(s$model_based, digits), excess = .fmt(s$excess, digits),
                     se = .fmt(s$se, digits), ci_low = .fmt(s$ci_low, digits),
                     ci_high = .fmt(s$ci_high, digits), p_value = .fmt_p(s$p_value)),
          row.names = FALSE, right = TRUE)
  }
  invisible(x)
}

#' @rdname model_based_xci
#' @export
summary.survfair_model_based <- function(object, ...) {
  structure(list(cells = object$cells, summaries = object$summaries, result = object),
            class = "summary.survfair_model_based")
}

#' @export
print.summary.survfair_model_based <- function(x, digits = 4, ...) {
  print(x$result, digits = digits)
  cat("\ncells:\n")
  c <- x$cells
  print(data.frame(a = c$a, b = c$b, observed = .fmt(c$observed, digits),
                   model_based = .fmt(c$model_based, digits), excess = .fmt(c$excess, digits),
                   ci_low = .fmt(c$ci_low, digits), ci_high = .fmt(c$ci_high, digits),
                   p_value = .fmt_p(c$p_value), agreement = .fmt(c$reference_agreement, 3)),
        row.names = FALSE, right = TRUE)
  invisible(x)
}

#' @rdname model_based_xci
#' @param row.names,optional Ignored (for the generic).
#' @param what `"cells"` (one row per cell, the default) or `"summaries"` (one
#'   row per excess Δbetween / Δwithin).
#' @export
as.data.frame.survfair_model_based <- function(x, row.names = NULL, optional = FALSE,
                                               what = c("cells", "summaries"), ...) {
  what <- match.arg(what)
  out <- if (what == "cells") x$cells else x$summaries
  rownames(out) <- NULL
  out
}

#' @rdname model_based_xci
#' @param parm Cells as `"a:b"` (default: all).
#' @param level Confidence level (recomputed by survfair).
#' @return `confint()`: the interval of the excess of every cell.
#' @export
confint.survfair_model_based <- function(object, parm, level = 0.95, ...) {
  if (identical(object$ci, "none")) {
    stop("no intervals: the result was computed with ci = \"none\".", call. = FALSE)
  }
  interval <- .py_call(.py_attr(object, "confidence_interval"), confidence_level = .check_level(level))
  low <- .matrix_from(.bridge()$frame_of_matrix(interval$low))
  high <- .matrix_from(.bridge()$frame_of_matrix(interval$high))
  G <- length(object$groups)
  names <- paste(rep(object$groups, each = G), rep(object$groups, times = G), sep = ":")
  out <- cbind(as.vector(t(low)), as.vector(t(high)))
  a <- (1 - level) / 2
  dimnames(out) <- list(names, paste(format(100 * c(a, 1 - a), trim = TRUE, digits = 3), "%"))
  if (!missing(parm)) out <- out[parm, , drop = FALSE]
  out
}
