#' Cross-group AUC (xAUC) of a score for a binary outcome
#'
#' Kallus and Zhou's (2019) xAUC matrix: cell (a, b) is the probability that
#' the score ranks a positive of group a above a negative of group b, with
#' DeLong intervals. The uncensored special case of [xci()]. survfair's Python
#' `xauc()` on the same rows.
#'
#' @param formula `outcome ~ score`: a binary outcome (logical, 0/1, or a
#'   factor or character with two values) and a numeric score (higher = the
#'   positive class).
#' @param data,group,groups,tied_tol,conf.level,na.action As in [xci()].
#' @param positive The positive class: by default `TRUE` for a logical
#'   outcome, `1` for a numeric one and the second level of a factor (as in
#'   [stats::glm()]).
#' @param ... Unused.
#' @return An object of class `survfair_xauc`: a list with `matrix`, `se`,
#'   `conf.low`, `conf.high` (G x G; rows a = group of the positive, columns b
#'   = group of the negative), `cells` (one row per cell with the counts),
#'   `overall` (the population AUC with its interval), `groups`, `n`,
#'   `positive`, `call`, `py`. Methods as for [xci()]; [delta_between()] gives
#'   the xAUC disparity.
#' @references Kallus N, Zhou A (2019). The Fairness of Risk Scores Beyond
#'   Classification: Bipartite Ranking and the xAUC Metric. NeurIPS 2019.
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")),
#'                    died_1y = time <= 365 & status == 2)
#' xa <- xauc(died_1y ~ age, group = ~ sex, data = lung2)
#' xa
#' delta_between(xa, "female", "male")
#' @export
xauc <- function(formula, data = NULL, group, positive = NULL, groups = NULL, tied_tol = 1e-8,
                 conf.level = 0.95, na.action = stats::na.fail, ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  inputs <- .read_inputs(formula, data, group, na.action = na.action, env = parent.frame(),
                         response = "binary")
  y <- inputs$y
  .refuse_dates(y, "the outcome")
  if (is.logical(y)) {
    positive <- if (is.null(positive)) TRUE else as.logical(positive)
    y_py <- .np(y, "bool")
    positive_py <- reticulate::r_to_py(positive)
  } else if (is.numeric(y)) {
    positive <- if (is.null(positive)) 1 else as.double(positive)
    y_py <- .np(as.double(y), "float64")
    positive_py <- reticulate::r_to_py(positive)
  } else {
    values <- if (is.factor(y)) levels(droplevels(y)) else sort(unique(as.character(y)))
    if (is.null(positive)) {
      if (length(values) != 2L) {
        stop("the outcome must have exactly two values (has ", length(values), ").", call. = FALSE)
      }
      positive <- values[[2L]]
    }
    positive <- as.character(positive)
    y_py <- .np(as.character(y))
    positive_py <- reticulate::r_to_py(positive)
  }
  py <- .py_call("xauc", y_py, .np(inputs$group), .np(inputs$score, "float64"),
                 positive = positive_py, groups = .python_groups(inputs, groups),
                 tied_tol = .scalar(tied_tol, "tied_tol"),
                 confidence_level = .check_level(conf.level))
  .new_xauc(py, inputs, call, positive)
}

.new_xauc <- function(py, inputs, call, positive) {
  groups <- .py_chr(py$groups)
  cells <- .py_frame(py$to_frame())
  G <- length(groups)
  as_matrix <- function(column) {
    m <- matrix(NA_real_, G, G, dimnames = list(a = groups, b = groups))
    m[cbind(match(cells$a, groups), match(cells$b, groups))] <- cells[[column]]
    m
  }
  overall <- .py_frame(.py_call(py$overall_estimate)$to_frame())
  structure(list(
    matrix = as_matrix("xauc"),
    se = as_matrix("se"),
    conf.low = as_matrix("ci_low"),
    conf.high = as_matrix("ci_high"),
    cells = cells,
    overall = overall,
    groups = groups,
    n = as.integer(reticulate::py_to_r(py$n_samples)),
    positive = positive,
    conf.level = .py_num(py$confidence_level),
    group_name = inputs$group_name,
    risk_name = inputs$score_name,
    na.action = inputs$na.action,
    call = call,
    py = py
  ), class = "survfair_xauc")
}

#' @rdname xauc
#' @param x,object A `survfair_xauc` result.
#' @param digits Decimal places.
#' @export
format.survfair_xauc <- function(x, digits = 4, ...) {
  matrix(.fmt_ci(x$matrix, x$conf.low, x$conf.high, digits), nrow(x$matrix),
         dimnames = list(paste0("a = ", rownames(x$matrix)), paste0("b = ", colnames(x$matrix))))
}

#' @rdname xauc
#' @export
print.survfair_xauc <- function(x, digits = 4, ...) {
  cat("survfair xAUC: positive = ", format(x$positive), "; ", x$n, " rows",
      if (length(x$na.action)) paste0(" (", length(x$na.action), " omitted: missing values)"),
      "; group: ", x$group_name %||% "group", "; score: ", x$risk_name %||% "score", "; ",
      format(100 * x$conf.level), "% DeLong intervals\n\n", sep = "")
  cat("xAUC (rows a: group of the positive; columns b: group of the negative)\n")
  print(noquote(format(x, digits = digits)), right = TRUE)
  o <- x$overall
  cat("\nAUC = ", .fmt_ci(o$value, o$ci_low, o$ci_high, digits), "\n", sep = "")
  invisible(x)
}

#' @rdname xauc
#' @export
summary.survfair_xauc <- function(object, ...) {
  structure(list(result = object, cells = object$cells,
                 deltas = if (length(object$groups) > 1L) pairwise_deltas(object) else NULL),
            class = "summary.survfair_xauc")
}

#' @export
print.summary.survfair_xauc <- function(x, digits = 4, ...) {
  print(x$result, digits = digits)
  c <- x$cells
  cat("\ncells:\n")
  print(data.frame(a = c$a, b = c$b, positives = c$positives, negatives = c$negatives,
                   pairs = c$pairs, xauc = .fmt(c$xauc, digits), se = .fmt(c$se, digits),
                   ci_low = .fmt(c$ci_low, digits), ci_high = .fmt(c$ci_high, digits)),
        row.names = FALSE, right = TRUE)
  if (!is.null(x$deltas)) {
    d <- x$deltas
    cat("\ndifferences (value = a - b):\n")
    print(data.frame(summary = d$summary, a = d$a, b = d$b, value = .fmt(d$value, digits),
                     se = .fmt(d$se, digits), ci_low = .fmt(d$ci_low, digits),
                     ci_high = .fmt(d$ci_high, digits), p_value = .fmt_p(d$p_value)),
          row.names = FALSE, right = TRUE)
  }
  invisible(x)
}

#' @rdname xauc
#' @param row.names,optional Ignored (for the generic).
#' @param what `"cells"` (the default) or `"summaries"`.
#' @export
as.data.frame.survfair_xauc <- function(x, row.names = NULL, optional = FALSE,
                                        what = c("cells", "summaries"), ...) {
  what <- match.arg(what)
  out <- if (what == "cells") x$cells else pairwise_deltas(x)
  rownames(out) <- NULL
  out
}

#' @rdname xauc
#' @param parm Cells as `"a:b"` (default: all).
#' @param level Confidence level (recomputed by survfair).
#' @export
confint.survfair_xauc <- function(object, parm, level = 0.95, ...) {
  confint.survfair_xci(list(settings = list(ci = "delong", conf.level = object$conf.level),
                            conf.low = object$conf.low, conf.high = object$conf.high,
                            groups = object$groups, py = object$py), parm, level = level)
}

#' @rdname xauc
#' @export
nobs.survfair_xauc <- function(object, ...) object$n
