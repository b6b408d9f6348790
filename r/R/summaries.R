#' Fairness summaries of an xCI (or xAUC) matrix
#'
#' `delta_between(x, a, b)` is the cross-group asymmetry xCI(a, b) - xCI(b, a)
#' (how much more often the model ranks a member of `a` who had the event first
#' above a member of `b` than the reverse); `delta_within(x, a, b)` is
#' xCI(a, a) - xCI(b, b), the difference of the within-group concordances;
#' `min_xci(x)` is the smallest cell and where it is; `pairwise_deltas(x)`
#' gives both differences for every pair of groups at once. Each is survfair's
#' Python summary of the same result, with its interval (analytic: influence
#' functions; bootstrap: the same replicates).
#'
#' On an xAUC result ([xauc()]), `delta_between` is the xAUC disparity
#' xAUC(a, b) - xAUC(b, a).
#'
#' @param x A result of [xci()] or [xauc()].
#' @param a,b Group labels (as printed in the result).
#' @param ... Unused.
#' @return `delta_between()`, `delta_within()`: an object of class
#'   `survfair_estimate` (a list with `value`, `se`, `conf.low`, `conf.high`,
#'   `p.value`, `null`, `conf.level`, `small_sample`), with `print`, `format`,
#'   `as.data.frame`, `confint` and \pkg{broom}'s `tidy()`. `min_xci()`: a
#'   `survfair_min_xci` (the same fields, and `a`, `b`). `pairwise_deltas()`: a
#'   data frame with one row per summary and pair (`summary`, `a`, `b`,
#'   `value`, `se`, `ci_low`, `ci_high`, `p_value`).
#' @seealso [xci()], [findings()].
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")))
#' res <- xci(Surv(time, status) ~ age, group = ~ sex, data = lung2, tau = 365)
#' delta_between(res, "female", "male")
#' delta_within(res, "female", "male")
#' min_xci(res)
#' pairwise_deltas(res)
#' @name summaries
NULL

#' @rdname summaries
#' @export
delta_between <- function(x, a, b, ...) {
  .estimate(x, "delta_between", a, b)
}

#' @rdname summaries
#' @export
delta_within <- function(x, a, b, ...) {
  .estimate(x, "delta_within", a, b)
}

.check_result <- function(x, classes = c("survfair_xci", "survfair_xauc")) {
  if (!inherits(x, classes)) {
    stop("expected a result of ", paste0(sub("survfair_", "", classes), "()", collapse = " or "),
         ", not ", class(x)[[1L]], ".", call. = FALSE)
  }
}

.check_label <- function(x, value, what) {
  if (length(value) != 1L || is.na(value) || !as.character(value) %in% x$groups) {
    stop("`", what, "` must be one of the groups: ", paste0("\"", x$groups, "\"", collapse = ", "),
         ".", call. = FALSE)
  }
  reticulate::r_to_py(as.character(value))
}

.estimate <- function(x, name, a, b) {
  .check_result(x)
  py <- .py_call(name, .py_obj(x), .check_label(x, a, "a"),
                 .check_label(x, b, "b"))
  .new_estimate(py, summary = name, a = as.character(a), b = as.character(b))
}

.new_estimate <- function(py, summary, a = NA_character_, b = NA_character_) {
  f <- .py_frame(py$to_frame())
  structure(list(
    summary = summary, a = a, b = b,
    value = f$value, se = f$se, conf.low = f$ci_low, conf.high = f$ci_high,
    p.value = f$p_value, null = f$null, conf.level = f$confidence_level,
    small_sample = f$small_sample
  ), class = "survfair_estimate")
}

# The Greek capital delta where the session can show it, "delta_" elsewhere.
.delta <- function() if (isTRUE(l10n_info()[["UTF-8"]])) "\u0394" else "delta_"

.dagger <- function() if (isTRUE(l10n_info()[["UTF-8"]])) "\u2020" else "(!)"

.estimate_label <- function(x) {
  name <- switch(x$summary, delta_between = paste0(.delta(), "between"),
                 delta_within = paste0(.delta(), "within"),
                 min_xci = "min xCI", overall_c = "overall C", x$summary)
  if (!is.na(x$a)) paste0(name, "(", x$a, ", ", x$b, ")") else name
}

#' @rdname summaries
#' @param digits Decimal places.
#' @export
format.survfair_estimate <- function(x, digits = 4, ...) {
  out <- paste0(.estimate_label(x), " = ", .fmt(x$value, digits))
  if (!is.na(x$se)) {
    out <- paste0(out, " (SE ", .fmt(x$se, digits), "), ", format(100 * x$conf.level), "% CI [",
                  .fmt(x$conf.low, digits), ", ", .fmt(x$conf.high, digits), "]")
  }
  if (!is.na(x$p.value)) {
    out <- paste0(out, ", p ", if (x$p.value < 0.001) "< 0.001" else
      paste0("= ", formatC(x$p.value, digits = 2, format = "g")), " (null ", format(x$null), ")")
  }
  if (isTRUE(x$small_sample)) out <- paste0(out, paste0(" ", .dagger(), " rests on little data"))
  out
}

#' @rdname summaries
#' @export
print.survfair_estimate <- function(x, digits = 4, ...) {
  cat(format(x, digits = digits), "\n", sep = "")
  invisible(x)
}

#' @rdname summaries
#' @param row.names,optional Ignored (for the generic).
#' @export
as.data.frame.survfair_estimate <- function(x, row.names = NULL, optional = FALSE, ...) {
  data.frame(summary = x$summary, a = x$a, b = x$b, value = x$value, se = x$se,
             ci_low = x$conf.low, ci_high = x$conf.high, p_value = x$p.value, null = x$null,
             conf_level = x$conf.level, small_sample = x$small_sample, stringsAsFactors = FALSE)
}

#' @rdname summaries
#' @param object A `survfair_estimate`.
#' @param parm Ignored.
#' @param level The level of the estimate's interval (an estimate carries one
#'   interval; for another level recompute the result with `conf.level =`).
#' @export
confint.survfair_estimate <- function(object, parm, level = object$conf.level, ...) {
  if (!isTRUE(all.equal(level, object$conf.level, tolerance = 0))) {
    stop("this estimate carries its ", format(100 * object$conf.level), "% interval; for a ",
         format(100 * level), "% interval recompute the result with `conf.level = ", level, "`.",
         call. = FALSE)
  }
  a <- (1 - level) / 2
  matrix(c(object$conf.low, object$conf.high), 1L,
         dimnames = list(.estimate_label(object),
                         paste(format(100 * c(a, 1 - a), trim = TRUE, digits = 3), "%")))
}

#' @rdname summaries
#' @export
min_xci <- function(x, ...) {
  .check_result(x, "survfair_xci")
  py <- .py_call("min_xci", .py_obj(x))
  out <- .new_estimate(py$estimate, "min_xci", a = as.character(reticulate::py_to_r(py$a)),
                       b = as.character(reticulate::py_to_r(py$b)))
  class(out) <- c("survfair_min_xci", class(out))
  out
}

#' @rdname summaries
#' @export
pairwise_deltas <- function(x, ...) {
  .check_result(x)
  .py_frame(.py_call("pairwise_deltas", .py_obj(x)))
}
