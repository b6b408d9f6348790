# tidy() and glance() for broom (generics): registered when the generics package is loaded, so
# broom is never required.

#' Tidy survfair results for broom
#'
#' `tidy()` gives one row per estimate with broom's column names (`estimate`,
#' `std.error`, `conf.low`, `conf.high`, `p.value`); `glance()` one row per
#' result. Registered as methods of the \pkg{generics} functions that
#' \pkg{broom} re-exports, when those packages are installed.
#'
#' @param x A result of [xci()], [xauc()], [model_based_xci()],
#'   [calibration()], or a summary from [delta_between()] and friends.
#' @param conf.int Include the interval columns (default `TRUE`).
#' @param conf.level Level of the intervals (default: the result's level).
#' @param ... Unused.
#' @return A data frame.
#' @examplesIf survfair_available() && requireNamespace("broom", quietly = TRUE)
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")))
#' res <- xci(Surv(time, status) ~ age, group = ~ sex, data = lung2, tau = 365)
#' broom::tidy(res)
#' broom::glance(res)
#' @name tidy.survfair
NULL

.tidy_cells <- function(cells, value, conf.int, conf) {
  out <- data.frame(term = paste0(cells$a, ":", cells$b), a = cells$a, b = cells$b,
                    estimate = cells[[value]], std.error = cells$se, stringsAsFactors = FALSE)
  if (conf.int) {
    out$conf.low <- conf[, 1L]
    out$conf.high <- conf[, 2L]
  }
  out
}

.conf_or_stored <- function(x, conf.level, stored) {
  if (is.null(conf.level) || isTRUE(all.equal(conf.level, stored, tolerance = 0))) NULL else conf.level
}

#' @rdname tidy.survfair
#' @exportS3Method generics::tidy
tidy.survfair_xci <- function(x, conf.int = TRUE, conf.level = NULL, ...) {
  conf <- NULL
  if (conf.int) {
    level <- conf.level %||% x$settings$conf.level
    conf <- if (identical(x$settings$ci, "none")) matrix(NA_real_, nrow(x$cells), 2L) else
      confint(x, level = level)[paste0(x$cells$a, ":", x$cells$b), , drop = FALSE]
  }
  out <- .tidy_cells(x$cells, "xci", conf.int, conf)
  out$comparable <- x$cells$comparable
  out$small_sample <- x$cells$small_sample
  out
}

#' @rdname tidy.survfair
#' @exportS3Method generics::glance
glance.survfair_xci <- function(x, ...) {
  o <- x$overall
  data.frame(nobs = x$n, n_groups = length(x$groups), method = x$settings$method,
             tau = x$settings$tau, censoring = x$settings$censoring, overall_c = o$value,
             overall_c.std.error = o$se, overall_c.conf.low = o$ci_low,
             overall_c.conf.high = o$ci_high, min_xci = min(x$matrix, na.rm = TRUE),
             conf.level = x$settings$conf.level, stringsAsFactors = FALSE)
}

#' @rdname tidy.survfair
#' @exportS3Method generics::tidy
tidy.survfair_xauc <- function(x, conf.int = TRUE, conf.level = NULL, ...) {
  conf <- NULL
  if (conf.int) {
    conf <- confint(x, level = conf.level %||% x$conf.level)[paste0(x$cells$a, ":", x$cells$b), ,
                                                             drop = FALSE]
  }
  out <- .tidy_cells(x$cells, "xauc", conf.int, conf)
  out$pairs <- x$cells$pairs
  out
}

#' @rdname tidy.survfair
#' @exportS3Method generics::glance
glance.survfair_xauc <- function(x, ...) {
  o <- x$overall
  data.frame(nobs = x$n, n_groups = length(x$groups), auc = o$value, auc.std.error = o$se,
             auc.conf.low = o$ci_low, auc.conf.high = o$ci_high, conf.level = x$conf.level)
}

#' @rdname tidy.survfair
#' @exportS3Method generics::tidy
tidy.survfair_estimate <- function(x, conf.int = TRUE, ...) {
  out <- data.frame(term = .estimate_label(x), summary = x$summary, a = x$a, b = x$b,
                    estimate = x$value, std.error = x$se, p.value = x$p.value,
                    stringsAsFactors = FALSE)
  if (conf.int) {
    out$conf.low <- x$conf.low
    out$conf.high <- x$conf.high
  }
  out
}

#' @rdname tidy.survfair
#' @exportS3Method generics::tidy
tidy.survfair_model_based <- function(x, conf.int = TRUE, conf.level = NULL, ...) {
  c <- x$cells
  out <- data.frame(term = paste0(c$a, ":", c$b), a = c$a, b = c$b, observed = c$observed,
                    model_based = c$model_based, estimate = c$excess, std.error = c$excess_se,
                    p.value = c$p_value, stringsAsFactors = FALSE)
  if (conf.int) {
    if (is.null(.conf_or_stored(x, conf.level, x$conf.level))) {
      out$conf.low <- c$ci_low
      out$conf.high <- c$ci_high
    } else {
      conf <- confint(x, level = conf.level)[out$term, , drop = FALSE]
      out$conf.low <- conf[, 1L]
      out$conf.high <- conf[, 2L]
    }
  }
  out
}

#' @rdname tidy.survfair
#' @exportS3Method generics::glance
glance.survfair_model_based <- function(x, ...) {
  data.frame(nobs = x$observed$n, n_groups = length(x$groups), tau = x$tau,
             reference = x$reference, reference_consistent = isTRUE(x$reference_consistent),
             max_abs_excess = max(abs(x$excess), na.rm = TRUE), conf.level = x$conf.level,
             stringsAsFactors = FALSE)
}

#' @rdname tidy.survfair
#' @exportS3Method generics::tidy
tidy.survfair_calibration <- function(x, conf.int = TRUE, ...) {
  s <- x$statistics
  out <- data.frame(time = s$time, group = s$group, term = s$statistic, estimate = s$estimate,
                    std.error = s$se, p.value = s$p_value, stringsAsFactors = FALSE)
  if (conf.int) {
    out$conf.low <- s$ci_low
    out$conf.high <- s$ci_high
  }
  out
}

#' @rdname tidy.survfair
#' @exportS3Method generics::glance
glance.survfair_calibration <- function(x, ...) {
  data.frame(nobs = x$n, n_groups = length(x$groups), n_times = length(x$times),
             conf.level = x$conf.level)
}
