#' Calibration of predicted risks within each group
#'
#' Observed against predicted risk at one or more horizons, within every group
#' and between groups: the Kaplan-Meier observed risk against the mean predicted
#' risk and their ratio O/E, the calibration intercept and slope (Crowson et
#' al. 2016), a smooth calibration curve with ICI, E50 and E90 (Austin et al.
#' 2020), the Greenwood-Nam-D'Agostino test and IPCW Brier scores, each with an
#' interval, and contrasts between groups. survfair's Python `calibration()`
#' on the same rows.
#'
#' @param formula `Surv(time, status) ~ predicted` where `predicted` is the
#'   predicted risk (probability of the event by the horizon, not a score)
#'   at each horizon of `times`: a vector for one horizon, a matrix (e.g.
#'   `cbind(risk1y, risk5y)`) with one column per horizon. Or a fitted
#'   [survival::coxph()] model: its predicted risks
#'   `1 - exp(-H0(t) exp(lp))`, with Breslow's baseline cumulative hazard
#'   `H0` and the linear predictor `lp` of the fit.
#' @param data,group,cause,groups,conf.level,n_resamples,seed,n_jobs,na.action
#'   As in [xci()].
#' @param times The horizons (unit of `time`), one per column of predicted
#'   risks, increasing.
#' @param censoring `"group"` (a censoring Kaplan-Meier per group) or
#'   `"pooled"`.
#' @param n_bins,min_bin_events Bins of the Greenwood-Nam-D'Agostino test.
#' @param ci `"analytic"`, `"bootstrap"` or `"none"`.
#' @param ... Unused.
#' @return An object of class `survfair_calibration`: a list with
#'   `statistics` (one row per horizon, group and statistic), `summary` (one row
#'   per horizon and group, wide), `contrasts` (between groups), `times`,
#'   `groups`, `n`, `conf.level`, `call` and `py`. Methods: `print`,
#'   `summary`, `as.data.frame`, `confint`, `plot`, `tidy()`, `glance()`.
#' @seealso [findings()] (the calibration tells whether the model-based
#'   reading holds), [model_based_xci()].
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- na.omit(transform(lung[, c("time", "status", "sex", "age", "ph.ecog")],
#'                            sex = factor(sex, 1:2, c("male", "female"))))
#' fit <- coxph(Surv(time, status) ~ age + ph.ecog + sex, data = lung2)
#' cal <- calibration(fit, data = lung2, group = ~ sex, times = c(180, 365))
#' cal
#' head(as.data.frame(cal))
#' plot(cal)
#' @export
calibration <- function(formula, ...) {
  UseMethod("calibration")
}

#' @rdname calibration
#' @export
calibration.formula <- function(formula, data = NULL, group, times, cause = NULL, groups = NULL,
                                censoring = c("group", "pooled"), n_bins = 10L,
                                min_bin_events = 5L, ci = c("analytic", "bootstrap", "none"),
                                conf.level = 0.95, n_resamples = 1000L, seed = NULL,
                                n_jobs = NULL, na.action = stats::na.fail, ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  inputs <- .read_inputs(formula, data, group, na.action = na.action, cause = cause,
                         env = parent.frame(), risk = "matrix")
  .calibration_from_inputs(inputs, call, times, groups, match.arg(censoring), n_bins,
                           min_bin_events, ci, conf.level, n_resamples, seed, n_jobs)
}

#' @rdname calibration
#' @export
calibration.coxph <- function(formula, data = NULL, group, times, groups = NULL,
                              censoring = c("group", "pooled"), n_bins = 10L,
                              min_bin_events = 5L, ci = c("analytic", "bootstrap", "none"),
                              conf.level = 0.95, n_resamples = 1000L, seed = NULL,
                              n_jobs = NULL, ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  inputs <- .coxph_inputs(formula, data, group, parent.frame())
  times <- .check_times(times)
  inputs$score <- coxph_risks(formula, times)
  inputs$score_name <- "1 - S(t | x) of the coxph model"
  .calibration_from_inputs(inputs, call, times, groups, match.arg(censoring), n_bins,
                           min_bin_events, ci, conf.level, n_resamples, seed, n_jobs)
}

.check_times <- function(times) {
  if (missing(times) || !is.numeric(times) || !length(times) || anyNA(times)) {
    stop("`times` must be the horizons of the predicted risks (numeric, in the unit of time).",
         call. = FALSE)
  }
  as.double(times)
}

.calibration_from_inputs <- function(inputs, call, times, groups, censoring, n_bins,
                                     min_bin_events, ci, conf.level, n_resamples, seed, n_jobs) {
  times <- .check_times(times)
  if (!is.null(inputs$entry)) {
    stop("calibration() does not take delayed entry (Surv(start, stop, status)).", call. = FALSE)
  }
  if (!is.null(inputs$weights)) {
    stop("calibration() does not take case weights.", call. = FALSE)
  }
  predicted <- as.matrix(inputs$score)
  kw <- list(
    groups = .python_groups(inputs, groups),
    censoring = censoring,
    n_bins = .scalar(n_bins, "n_bins", integer = TRUE),
    min_bin_events = .scalar(min_bin_events, "min_bin_events", integer = TRUE),
    ci = .ci_arg(ci),
    confidence_level = .check_level(conf.level),
    n_resamples = .scalar(n_resamples, "n_resamples", integer = TRUE),
    random_state = .seed_arg(seed),
    n_jobs = .scalar(n_jobs, "n_jobs", integer = TRUE)
  )
  if (!is.null(inputs$cause)) kw$cause <- reticulate::r_to_py(as.integer(inputs$cause))
  py <- .py_call("calibration", .np(inputs$time, "float64"), .event_py(inputs),
                 .np(inputs$group), .py_matrix(predicted), .np(times, "float64"), .args = kw)
  .new_calibration(py, inputs, call)
}

.new_calibration <- function(py, inputs, call = NULL) {
  ci_method <- reticulate::py_to_r(py$ci_method)
  contrasts <- tryCatch(.py_frame(.py_call(py$contrasts)), error = function(e) NULL)
  structure(list(
    statistics = .py_frame(py$to_frame()),
    summary = .py_frame(py$summary()$reset_index()),
    contrasts = contrasts,
    times = .py_num(.bridge()$as_list(py$times)),
    groups = .py_chr(py$groups),
    n = as.integer(reticulate::py_to_r(py$n_samples)),
    conf.level = .py_num(py$confidence_level),
    ci = ci_method %||% "none",
    group_name = inputs$group_name,
    predicted_name = inputs$score_name,
    na.action = inputs$na.action,
    call = call,
    py = py
  ), class = "survfair_calibration")
}

#' Predicted risks of a Cox model at given times
#'
#' `1 - exp(-H0(t) exp(lp))` for every row the model was fitted on, with `lp`
#' the fit's linear predictor (centred at the covariate means, as
#' `predict(fit, type = "lp")`) and `H0` Breslow's baseline cumulative hazard
#' of the same centring (`survival::survfit(fit, ctype = 1)`), read at each
#' time as a step function. These are the predictions that
#' [model_based_xci()] and [calibration()] use for a `coxph` model.
#'
#' @param fit A fitted [survival::coxph()] model without strata.
#' @param times Horizons.
#' @return A matrix with one row per row of the fit and one column per time.
#' @examples
#' library(survival)
#' fit <- coxph(Surv(time, status) ~ age, data = lung)
#' head(coxph_risks(fit, c(180, 365)))
#' @export
coxph_risks <- function(fit, times) {
  times <- .check_times(times)
  H0 <- coxph_baseline(fit, times)
  lp <- fit$linear.predictors
  out <- -expm1(-outer(exp(lp), H0))
  colnames(out) <- format(times, trim = TRUE)
  out
}

#' @rdname coxph_risks
#' @return `coxph_baseline()`: Breslow's baseline cumulative hazard at `times`
#'   (centred at the covariate means, the scale of the fit's linear predictor).
#' @export
coxph_baseline <- function(fit, times) {
  if (!inherits(fit, "coxph")) stop("expected a fitted survival::coxph model.", call. = FALSE)
  if (!is.null(fit$strata) || length(attr(stats::terms(fit), "specials")$strata)) {
    stop("the coxph model has strata: one baseline per stratum; survfair's PH reference and ",
         "predicted risks need a single baseline (fit the model without strata()).", call. = FALSE)
  }
  times <- .check_times(times)
  curve <- survival::survfit(fit, ctype = 1, se.fit = FALSE)
  at <- findInterval(times, curve$time)
  out <- ifelse(at == 0L, 0, curve$cumhaz[pmax(at, 1L)])
  if (any(times > max(curve$time))) {
    warning("times after the last follow-up time of the fit take the last value of the ",
            "baseline cumulative hazard.", call. = FALSE)
  }
  out
}

#' @rdname calibration
#' @param x,object A `survfair_calibration` result.
#' @param digits Decimal places.
#' @export
print.survfair_calibration <- function(x, digits = 3, ...) {
  cat("survfair calibration: ", length(x$groups), " group(s), ", x$n, " rows, ",
      .describe_ci(list(ci = x$ci, conf.level = x$conf.level)), "\n", sep = "")
  s <- x$summary
  has <- function(col) !is.null(s[[col]])
  for (t in x$times) {
    rows <- s[!is.na(s$time) & s$time == t, , drop = FALSE]
    cat("\nt = ", format(t), "\n", sep = "")
    shown <- data.frame(
      group = rows$group, n = rows$n, events = rows$events,
      `observed %` = .fmt(100 * rows$observed_risk, 1),
      `predicted %` = .fmt(100 * rows$expected_risk, 1),
      `O/E` = if (has("oe_ratio_ci_low")) .fmt_ci(rows$oe_ratio, rows$oe_ratio_ci_low,
                                                  rows$oe_ratio_ci_high, 2) else .fmt(rows$oe_ratio, 2),
      intercept = .fmt(rows$intercept, 2), slope = .fmt(rows$slope, 2),
      ICI = .fmt(rows$ici, digits), Brier = .fmt(rows$brier, digits),
      `GND p` = if (has("gnd_p")) .fmt_p(rows$gnd_p) else "",
      check.names = FALSE, stringsAsFactors = FALSE
    )
    print(shown, row.names = FALSE, right = TRUE)
  }
  invisible(x)
}

#' @rdname calibration
#' @export
summary.survfair_calibration <- function(object, ...) {
  out <- object$summary
  class(out) <- c("summary.survfair_calibration", class(out))
  out
}

#' @rdname calibration
#' @param row.names,optional Ignored (for the generic).
#' @param what `"statistics"` (one row per horizon, group and statistic, the
#'   default), `"summary"` (one row per horizon and group) or `"contrasts"`
#'   (between groups).
#' @export
as.data.frame.survfair_calibration <- function(x, row.names = NULL, optional = FALSE,
                                               what = c("statistics", "summary", "contrasts"),
                                               ...) {
  what <- match.arg(what)
  out <- switch(what, statistics = x$statistics,
                summary = as.data.frame(unclass(x$summary), stringsAsFactors = FALSE),
                contrasts = x$contrasts)
  rownames(out) <- NULL
  out
}

#' @rdname calibration
#' @param parm Ignored.
#' @param level Confidence level (recomputed by survfair).
#' @return `confint()`: a data frame with `time`, `group`, `statistic` and the
#'   two limits, one row per statistic with an interval.
#' @export
confint.survfair_calibration <- function(object, parm, level = 0.95, ...) {
  if (identical(object$ci, "none")) {
    stop("no intervals: the result was computed with ci = \"none\".", call. = FALSE)
  }
  interval <- .py_call(.py_attr(object, "confidence_interval"), confidence_level = .check_level(level))
  low <- .py_frame(interval$low$reset_index())
  high <- .py_frame(interval$high$reset_index())
  a <- (1 - level) / 2
  keys <- setdiff(names(low), "ci_low")
  out <- low[keys]
  out[[paste(format(100 * a, trim = TRUE, digits = 3), "%")]] <- low$ci_low
  out[[paste(format(100 * (1 - a), trim = TRUE, digits = 3), "%")]] <- high$ci_high
  out
}

#' @rdname calibration
#' @export
nobs.survfair_calibration <- function(object, ...) object$n
