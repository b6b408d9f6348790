#' Group-conditional concordance (xCI) of a risk score
#'
#' The G x G matrix of group-conditional concordance indices of Wang et al.
#' (2026): cell (a, b) is the probability that the risk score ranks a member of
#' group a who had the event first above a member of group b who outlived
#' them. Computed by survfair's Python engine (the numbers are its numbers, bit
#' for bit), with an interval for every cell.
#'
#' A higher `risk` means a higher risk, an earlier expected event (as
#' `predict(coxph_fit, type = "lp")`); survival probabilities or predicted
#' times must be negated first. Nothing flips a sign silently.
#'
#' @section Response:
#' `Surv(time, status)`: right-censored times, `status` coded as in
#' \pkg{survival} (0/1, 1/2 or `FALSE`/`TRUE`; 1, 2 or `TRUE` = event).
#' `Surv(start, stop, status)`: delayed entry (left truncation): a pair (i, j)
#' is comparable only when j had entered before i's event.
#' `Surv(time, status, type = "mstate")` with `status` a factor whose first
#' level is censoring (or 0 = censored, 1, 2, ... the causes): competing
#' risks, with `cause =` naming the event of interest (the cause-specific xCI
#' of Wolbers et al. 2014). Times must be numeric: `Date`, `POSIXct` and
#' `difftime` times are refused (convert them to durations).
#'
#' @section Groups:
#' `group = ~ sex` takes the groups from a column of `data`; `~ sex + race`
#' makes intersectional groups labelled `"F|Black"` (a `|` or backslash inside
#' a label is escaped with a backslash, as survfair does). A factor keeps its
#' level order (levels without rows are left out); other vectors are ordered as
#' `factor()` orders them. `groups =` chooses a subset of labels, in the order
#' given (rows of other groups are excluded, with a warning).
#'
#' @section Missing values:
#' `na.action = na.fail` (the default) stops on a missing value in any
#' variable used and names the rows (their row names in `data`); `na.omit`
#' or `na.exclude` analyse the complete rows and keep the omitted rows in the
#' result's `na.action`.
#'
#' @section Conventions:
#' A comparable pair (i, j) has an event for i and `time_i < time_j`, or the
#' same time with j censored; tied risks (within `tied_tol`) count 1/2
#' (scikit-survival's and \pkg{survival}'s conventions; `strict = TRUE` for the
#' paper's literal definition). IPCW weights are 1 / (K_a(t_i) K_b(t_i)) with
#' Kaplan-Meier estimates of the censoring distribution per group. Pairs
#' whose earlier member has `time >= tau` weigh 0. With one group,
#' `method = "naive"` equals `survival::concordance(..., reverse = TRUE)`
#' (Harrell's C), and with `tau` it equals `concordance(..., ymax = )` except
#' for events at exactly `ymax` (R keeps them, survfair stops before `tau`);
#' see `vignette("survfair")`.
#'
#' @param formula `Surv(time, status) ~ risk` (see Response), or a fitted
#'   [survival::coxph()] model, whose linear predictor is the risk and whose
#'   response is the outcome.
#' @param data A data frame with the variables of `formula`, `group`,
#'   `weights` and `cluster`. For a `coxph` model: the data it was fitted on.
#' @param group One-sided formula of the group variable(s), e.g. `~ sex`.
#' @param tau Truncation time (unit of `time`): only pairs whose earlier member
#'   has `time < tau` count. `NULL`: none.
#' @param method `"ipcw"` (inverse probability of censoring weights, the
#'   default) or `"naive"` (Harrell-type ratio of concordant pairs).
#' @param censoring `"group"` (a censoring Kaplan-Meier per group, the
#'   default), `"pooled"` (one for everyone) or `"cox"` (a Cox model of the
#'   censoring hazard on `censoring_covariates`, the groups as strata).
#' @param censoring_covariates One-sided formula of the covariates of
#'   `censoring = "cox"`.
#' @param weights Case weights (a column of `data` or a vector): a pair weighs
#'   `w_i * w_j`, and the censoring Kaplan-Meier is weighted.
#' @param cluster Cluster of every row (a column of `data` or a vector):
#'   cluster-robust intervals; the bootstrap resamples whole clusters.
#' @param cause With a `type = "mstate"` response: the event of interest, a
#'   state name or its position.
#' @param groups Group labels to analyse, in matrix order (default: all).
#' @param strict `TRUE`: the paper's literal eq. 3-4 (strict time order, tied
#'   risks count 0).
#' @param tied_tol Risks closer than this are tied (default `1e-8`).
#' @param ci `"analytic"` (influence functions, the default), `"bootstrap"`
#'   or `"none"`.
#' @param conf.level Level of the intervals (default 0.95).
#' @param n_resamples Bootstrap replicates.
#' @param seed Seed of the bootstrap (a whole number) or `NULL`.
#' @param n_jobs Cores the Python engine may use (`NULL`: all).
#' @param na.action What to do with missing values: `na.fail` (default),
#'   `na.omit` or `na.exclude`.
#' @param ... Further arguments passed to methods.
#' @return An object of class `survfair_xci`: a list with `matrix` (G x G,
#'   rows a = group of the earlier event), `se`, `conf.low`, `conf.high`
#'   (matrices), `cells` (a data frame, one row per cell, with the pair counts),
#'   `overall` (the pooled C with its interval), `groups`, `n`, `settings`,
#'   `na.action`, `call`, and `py` (the Python `XCIResult`, valid in this R
#'   session). Methods: `print`, `summary`, `format`, `as.data.frame`,
#'   `confint`, `plot`, `nobs`, and `tidy()`/`glance()` with \pkg{broom}.
#' @references Wang H, Bhattacharya R, Henao R, Wojdyla D, Hong C, Engelhard M
#'   (2026). Towards Fair Predictions: Group Conditional Concordance Index to
#'   Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872.
#' @seealso [delta_between()], [pairwise_deltas()], [min_xci()],
#'   [model_based_xci()], [findings()], [calibration()].
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")))
#' fit <- coxph(Surv(time, status) ~ age + ph.ecog, data = lung2, na.action = na.exclude)
#' lung2$risk <- predict(fit, type = "lp")
#' res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = lung2, tau = 365,
#'            na.action = na.omit)
#' res
#' summary(res)
#' confint(res, level = 0.9)
#' as.data.frame(res)
#' delta_between(res, "female", "male")
#' plot(res)
#' # the same from the fitted model: its linear predictor is the risk
#' xci(fit, group = ~ sex, data = lung2, tau = 365)
#' @export
xci <- function(formula, ...) {
  UseMethod("xci")
}

#' @rdname xci
#' @export
xci.formula <- function(formula, data = NULL, group, tau = NULL, method = c("ipcw", "naive"),
                        censoring = c("group", "pooled", "cox"), censoring_covariates = NULL,
                        weights = NULL, cluster = NULL, cause = NULL, groups = NULL,
                        strict = FALSE, tied_tol = 1e-8,
                        ci = c("analytic", "bootstrap", "none"), conf.level = 0.95,
                        n_resamples = 1000L, seed = NULL, n_jobs = NULL,
                        na.action = stats::na.fail, ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  inputs <- .read_inputs(formula, data, group, weights = substitute(weights),
                         cluster = substitute(cluster), na.action = na.action, cause = cause,
                         env = parent.frame(), covariates = censoring_covariates)
  .xci_from_inputs(inputs, call = call, tau = tau, method = match.arg(method),
                   censoring = match.arg(censoring), groups = groups, strict = strict,
                   tied_tol = tied_tol, ci = ci, conf.level = conf.level,
                   n_resamples = n_resamples, seed = seed, n_jobs = n_jobs)
}

#' @rdname xci
#' @export
xci.coxph <- function(formula, data = NULL, group, tau = NULL, method = c("ipcw", "naive"),
                      censoring = c("group", "pooled"), groups = NULL, strict = FALSE,
                      tied_tol = 1e-8, ci = c("analytic", "bootstrap", "none"),
                      conf.level = 0.95, n_resamples = 1000L, seed = NULL, n_jobs = NULL, ...) {
  call <- match.call()
  .no_dots(...)
  if (missing(group)) group <- NULL
  inputs <- .coxph_inputs(formula, data, group, parent.frame())
  .xci_from_inputs(inputs, call = call, tau = tau, method = match.arg(method),
                   censoring = match.arg(censoring), groups = groups, strict = strict,
                   tied_tol = tied_tol, ci = ci, conf.level = conf.level,
                   n_resamples = n_resamples, seed = seed, n_jobs = n_jobs)
}

#' @export
xci.default <- function(formula, ...) {
  stop("xci() takes a formula such as `Surv(time, status) ~ risk` or a fitted coxph model, not ",
       class(formula)[[1L]], ".", call. = FALSE)
}

.no_dots <- function(...) {
  dots <- list(...)
  if (length(dots)) {
    nm <- names(dots) %||% rep("", length(dots))
    stop("unknown argument", if (length(dots) > 1L) "s", ": ",
         paste0(ifelse(nzchar(nm), nm, "<unnamed>"), collapse = ", "), ".", call. = FALSE)
  }
}

# The Python arguments shared by xci and model_based_xci.
.xci_kwargs <- function(inputs, tau, method, censoring, groups, strict, tied_tol, ci, conf.level,
                        n_resamples, seed, n_jobs) {
  kw <- list(
    method = method,
    tau = .scalar(tau, "tau"),
    censoring = censoring,
    tied_tol = .scalar(tied_tol, "tied_tol"),
    groups = .python_groups(inputs, groups),
    strict = isTRUE(strict),
    ci = .ci_arg(ci),
    confidence_level = .check_level(conf.level),
    n_resamples = .scalar(n_resamples, "n_resamples", integer = TRUE),
    random_state = .seed_arg(seed),
    n_jobs = .scalar(n_jobs, "n_jobs", integer = TRUE)
  )
  if (!is.null(inputs$entry)) kw$entry <- .np(inputs$entry, "float64")
  if (!is.null(inputs$weights)) kw$weights <- .np(inputs$weights, "float64")
  if (!is.null(inputs$cluster)) kw$cluster <- .np(inputs$cluster)
  if (!is.null(inputs$cause)) kw$cause <- reticulate::r_to_py(as.integer(inputs$cause))
  if (!is.null(inputs$covariates)) kw$censoring_covariates <- .py_matrix(inputs$covariates)
  kw
}

.event_py <- function(inputs) {
  if (is.null(inputs$cause)) .np(inputs$event, "bool") else .np(inputs$event, "int64")
}

.xci_from_inputs <- function(inputs, call, tau, method, censoring, groups, strict, tied_tol, ci,
                             conf.level, n_resamples, seed, n_jobs) {
  kw <- .xci_kwargs(inputs, tau, method, censoring, groups, strict, tied_tol, ci, conf.level,
                    n_resamples, seed, n_jobs)
  py <- .py_call("xci", .np(inputs$time, "float64"), .event_py(inputs), .np(inputs$group),
                 .np(inputs$score, "float64"), .args = kw)
  .new_xci(py, inputs, call)
}

# An R survfair_xci object from a Python XCIResult.
.new_xci <- function(py, inputs = NULL, call = NULL) {
  groups <- .py_chr(py$groups)
  cells <- .py_frame(py$to_frame())
  G <- length(groups)
  as_matrix <- function(column) {
    m <- matrix(NA_real_, G, G, dimnames = list(a = groups, b = groups))
    if (!is.null(cells[[column]])) m[cbind(match(cells$a, groups), match(cells$b, groups))] <- cells[[column]]
    m
  }
  settings <- py$settings
  conf.level <- .py_num(py$confidence_level)
  ci_method <- reticulate::py_to_r(py$ci_method)
  overall <- if (is.null(ci_method)) {
    data.frame(value = .py_num(py$overall), se = NA_real_, ci_low = NA_real_, ci_high = NA_real_,
               p_value = NA_real_)
  } else {
    .py_frame(.py_call("overall_c", py)$to_frame())
  }
  structure(list(
    matrix = as_matrix("xci"),
    se = as_matrix("se"),
    conf.low = as_matrix("ci_low"),
    conf.high = as_matrix("ci_high"),
    cells = cells,
    overall = overall,
    groups = groups,
    n = as.integer(reticulate::py_to_r(py$n_samples)),
    n_excluded = as.integer(reticulate::py_to_r(py$n_excluded)),
    settings = list(
      method = reticulate::py_to_r(settings$method),
      tau = .py_opt_num(settings$tau),
      censoring = reticulate::py_to_r(settings$censoring),
      tied_tol = .py_num(settings$tied_tol),
      strict = reticulate::py_to_r(settings$strict),
      ci = ci_method %||% "none",
      conf.level = conf.level,
      cause = if (!is.null(inputs$cause)) inputs$states[[inputs$cause]] else NULL,
      weighted = !is.null(inputs$weights),
      delayed_entry = !is.null(inputs$entry),
      clustered = !is.null(inputs$cluster)
    ),
    group_name = inputs$group_name,
    risk_name = inputs$score_name,
    na.action = inputs$na.action,
    call = call,
    py = py
  ), class = "survfair_xci")
}

.fmt <- function(x, digits = 4) {
  out <- formatC(x, digits = digits, format = "f")
  out[is.na(x)] <- "NA"
  out
}

.fmt_ci <- function(value, low, high, digits = 4) {
  out <- paste0(.fmt(value, digits), " [", .fmt(low, digits), ", ", .fmt(high, digits), "]")
  no_ci <- is.na(low) | is.na(high)
  out[no_ci] <- .fmt(value[no_ci], digits)
  out
}

.fmt_p <- function(p) {
  out <- ifelse(is.na(p), "", ifelse(p < 0.001, "< 0.001", formatC(p, digits = 2, format = "g")))
  out
}

.describe_settings <- function(x) {
  s <- x$settings
  method <- if (s$method == "ipcw") {
    paste0("IPCW (censoring: ", switch(s$censoring, group = "Kaplan-Meier per group",
                                       pooled = "one pooled Kaplan-Meier",
                                       cox = "Cox model, groups as strata"), ")")
  } else {
    "naive (Harrell)"
  }
  tau <- if (is.na(s$tau)) "no truncation" else paste0("tau = ", format(s$tau))
  extra <- c(if (isTRUE(s$weighted)) "case weights", if (isTRUE(s$delayed_entry)) "delayed entry",
             if (isTRUE(s$clustered)) "clusters", if (!is.null(s$cause)) paste0("cause \"", s$cause, "\""),
             if (isTRUE(s$strict)) "strict")
  paste0(method, ", ", tau, if (length(extra)) paste0(", ", paste(extra, collapse = ", ")))
}

.describe_rows <- function(x) {
  paste0(x$n, " rows",
         if (length(x$na.action)) paste0(" (", length(x$na.action), " omitted: missing values)"),
         if (x$n_excluded > 0) paste0(" (", x$n_excluded, " excluded: other groups)"),
         "; group: ", x$group_name %||% "group", "; risk: ", x$risk_name %||% "risk", "; ",
         .describe_ci(x$settings))
}

.describe_ci <- function(s) {
  if (s$ci == "none") "no intervals" else paste0(format(100 * s$conf.level), "% ", s$ci, " intervals")
}

#' @rdname xci
#' @param x,object A `survfair_xci` result.
#' @param digits Decimal places.
#' @export
format.survfair_xci <- function(x, digits = 4, ...) {
  out <- matrix(.fmt_ci(x$matrix, x$conf.low, x$conf.high, digits), nrow(x$matrix),
                dimnames = list(paste0("a = ", rownames(x$matrix)), paste0("b = ", colnames(x$matrix))))
  out
}

#' @rdname xci
#' @export
print.survfair_xci <- function(x, digits = 4, ...) {
  cat("survfair xCI: ", .describe_settings(x), "\n", sep = "")
  cat(.describe_rows(x), "\n\n", sep = "")
  cat("xCI (rows a: group of the member with the EARLIER event; columns b: the member who outlived it)\n")
  print(noquote(format(x, digits = digits)), right = TRUE)
  o <- x$overall
  cat("\noverall C = ", .fmt_ci(o$value, o$ci_low, o$ci_high, digits), "\n", sep = "")
  invisible(x)
}

#' @rdname xci
#' @export
summary.survfair_xci <- function(object, ...) {
  deltas <- if (length(object$groups) > 1L) pairwise_deltas(object) else NULL
  structure(list(
    result = object,
    cells = object$cells,
    overall = object$overall,
    deltas = deltas,
    min = min_xci(object)
  ), class = "summary.survfair_xci")
}

#' @export
print.summary.survfair_xci <- function(x, digits = 4, ...) {
  r <- x$result
  cat("survfair xCI: ", .describe_settings(r), "\n", sep = "")
  cat(.describe_rows(r), "\n\n", sep = "")
  cells <- x$cells
  shown <- data.frame(a = cells$a, b = cells$b, comparable = cells$comparable,
                      concordant = cells$concordant, discordant = cells$discordant,
                      `xci [interval]` = .fmt_ci(cells$xci, cells$ci_low, cells$ci_high, digits),
                      check.names = FALSE)
  if (any(cells$small_sample %in% TRUE)) {
    shown$flag <- ifelse(cells$small_sample %in% TRUE, .dagger(), "")
  }
  cat("cells (a = group of the EARLIER event, b = the member who outlived it):\n")
  print(shown, row.names = FALSE, right = TRUE)
  if (any(cells$small_sample %in% TRUE)) cat(.dagger(), " rests on little data\n", sep = "")
  cat("(every column, the pair counts and standard errors: as.data.frame())\n")
  o <- x$overall
  cat("\noverall C = ", .fmt_ci(o$value, o$ci_low, o$ci_high, digits), "\n", sep = "")
  if (!is.null(x$deltas)) {
    d <- x$deltas
    cat("\ndifferences (value = a - b):\n")
    print(data.frame(summary = d$summary, a = d$a, b = d$b, value = .fmt(d$value, digits),
                     se = .fmt(d$se, digits), ci_low = .fmt(d$ci_low, digits),
                     ci_high = .fmt(d$ci_high, digits), p_value = .fmt_p(d$p_value)),
          row.names = FALSE, right = TRUE)
  }
  m <- x$min
  cat("\nmin xCI: cell (", m$a, ", ", m$b, ") = ", .fmt(m$value, digits), "\n", sep = "")
  invisible(x)
}

#' @rdname xci
#' @param row.names,optional Ignored (for the generic).
#' @param what `"cells"` (one row per cell, the default) or `"summaries"`
#'   (one row per difference Δwithin / Δbetween, and the pooled C).
#' @export
as.data.frame.survfair_xci <- function(x, row.names = NULL, optional = FALSE,
                                       what = c("cells", "summaries"), ...) {
  what <- match.arg(what)
  if (what == "cells") {
    out <- x$cells
  } else {
    o <- x$overall
    overall <- data.frame(summary = "overall_c", a = NA_character_, b = NA_character_,
                          value = o$value, se = o$se, ci_low = o$ci_low, ci_high = o$ci_high,
                          p_value = o$p_value)
    deltas <- if (length(x$groups) > 1L) pairwise_deltas(x) else NULL
    out <- rbind(deltas[names(overall)], overall)
  }
  rownames(out) <- NULL
  out
}

#' @rdname xci
#' @param parm Cells, as `"a:b"` names (default: all).
#' @param level Confidence level (any in (0, 1); recomputed by survfair from
#'   the same standard errors or bootstrap replicates).
#' @export
confint.survfair_xci <- function(object, parm, level = 0.95, ...) {
  if (identical(object$settings$ci, "none")) {
    stop("no intervals: the result was computed with ci = \"none\".", call. = FALSE)
  }
  level <- .check_level(level)
  if (isTRUE(all.equal(level, object$settings$conf.level, tolerance = 0))) {
    low <- object$conf.low
    high <- object$conf.high
  } else {
    interval <- .py_call(.py_attr(object, "confidence_interval"), confidence_level = level)
    low <- .matrix_from(.bridge()$frame_of_matrix(interval$low))
    high <- .matrix_from(.bridge()$frame_of_matrix(interval$high))
  }
  G <- length(object$groups)
  names <- paste(rep(object$groups, each = G), rep(object$groups, times = G), sep = ":")
  out <- cbind(as.vector(t(low)), as.vector(t(high)))
  a <- (1 - level) / 2
  dimnames(out) <- list(names, paste(format(100 * c(a, 1 - a), trim = TRUE, scientific = FALSE,
                                            digits = 3), "%"))
  if (!missing(parm)) {
    unknown <- setdiff(parm, names)
    if (length(unknown)) stop("`parm`: unknown cells ", paste(unknown, collapse = ", "),
                              "; cells are named \"a:b\".", call. = FALSE)
    out <- out[parm, , drop = FALSE]
  }
  out
}

.matrix_from <- function(m) {
  m <- reticulate::py_to_r(m)
  rows <- unlist(m$rows)
  cols <- unlist(m$cols)
  matrix(as.double(unlist(m$values)), length(rows), length(cols), byrow = TRUE,
         dimnames = list(a = rows, b = cols))
}

# A Python attribute of a result, with a clear error when the Python object is gone (a result
# saved with saveRDS and read in another session).
.py_obj <- function(object) {
  py <- object$py
  if (is.null(py) || reticulate::py_is_null_xptr(py)) {
    stop("this result's Python object is not available in this R session (results read back ",
         "with readRDS keep their tables but not the Python object); recompute it.", call. = FALSE)
  }
  py
}

.py_attr <- function(object, name) {
  reticulate::py_get_attr(.py_obj(object), name)
}

#' @rdname xci
#' @export
nobs.survfair_xci <- function(object, ...) object$n
