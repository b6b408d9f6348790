#' Findings: the audit in plain language
#'
#' The sentences that open every survfair report, generated from the result
#' by survfair: the pooled concordance, the largest cross-group asymmetry in
#' both directions with its interval and adjusted p-value, the worst-served
#' cell, the largest within-group difference, the joint test, censoring that
#' depends on the risk, flagged cells. With a model-based reference they lead
#' with the excess asymmetry; with the calibration of the same predictions they
#' say whether the model-based reading holds. They say only what the numbers
#' support: a difference is called absent only inside the equivalence
#' `margin`.
#'
#' @param x A result of [xci()], [xauc()] or [model_based_xci()] (read as its
#'   observed result with itself as the reference).
#' @param model_based A [model_based_xci()] result of the same audit.
#' @param calibration A [calibration()] result of the predictions the
#'   reference is built from (same rows and groups).
#' @param margin Equivalence margin of a difference of concordances, as a
#'   proportion (0.05 = 5 points).
#' @param adjust Adjustment of p-values within each family: `"holm"`, `"bh"`,
#'   `"bonferroni"` or `"none"`.
#' @param min_events,min_pairs Thresholds of the small-sample flags.
#' @param ... Unused.
#' @return An object of class `survfair_findings`: a list with `sentences`
#'   (character) and `deltas` (the adjusted differences, a data frame). Methods:
#'   `print`, `format`, `as.data.frame`, `as.character`.
#' @seealso [write_report()], which opens with them.
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")))
#' res <- xci(Surv(time, status) ~ age, group = ~ sex, data = lung2, tau = 365)
#' findings(res)
#' @export
findings <- function(x, model_based = NULL, calibration = NULL, margin = 0.05,
                     adjust = c("holm", "bh", "bonferroni", "none"), min_events = 10L,
                     min_pairs = 100L, ...) {
  .no_dots(...)
  .check_result(x, c("survfair_xci", "survfair_xauc", "survfair_model_based"))
  if (!is.null(model_based) && !inherits(model_based, "survfair_model_based")) {
    stop("`model_based` must be a result of model_based_xci().", call. = FALSE)
  }
  if (!is.null(calibration) && !inherits(calibration, "survfair_calibration")) {
    stop("`calibration` must be a result of calibration().", call. = FALSE)
  }
  py <- .py_call("findings", .py_obj(x), adjust = match.arg(adjust),
                 min_events = .scalar(min_events, "min_events", integer = TRUE),
                 min_pairs = .scalar(min_pairs, "min_pairs", integer = TRUE),
                 model_based = if (!is.null(model_based)) .py_obj(model_based),
                 calibration = if (!is.null(calibration)) .py_obj(calibration),
                 margin = .scalar(margin, "margin"))
  structure(list(
    sentences = as.character(unlist(reticulate::py_to_r(.bridge()$labels(py$sentences)))),
    deltas = .py_frame(py$to_frame()),
    py = py
  ), class = "survfair_findings")
}

#' @rdname findings
#' @param width Line width of the printed sentences.
#' @export
format.survfair_findings <- function(x, width = getOption("width"), ...) {
  unlist(lapply(x$sentences, function(s) {
    lines <- strwrap(s, width = width - 2L)
    c(paste0("- ", lines[[1L]]), if (length(lines) > 1L) paste0("  ", lines[-1L]))
  }))
}

#' @rdname findings
#' @export
print.survfair_findings <- function(x, ...) {
  cat("findings:\n")
  cat(format(x, ...), sep = "\n")
  invisible(x)
}

#' @rdname findings
#' @export
as.character.survfair_findings <- function(x, ...) x$sentences

#' @rdname findings
#' @param row.names,optional Ignored (for the generic).
#' @export
as.data.frame.survfair_findings <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$deltas
}

#' Write an audit report (HTML or Markdown)
#'
#' survfair's report of an audit: the verdict, the findings, how to read the
#' matrix, the provenance, the settings, the matrix and the differences with
#' adjusted p-values, calibration and the model-based reference when given,
#' figures, and an appendix with the pair counts. One self-contained HTML file
#' (`.html`) or Markdown (`.md`, figures beside it), by the extension of
#' `file`.
#'
#' @param x A result of [xci()] or [xauc()] (or of [model_based_xci()]: its
#'   observed result, with itself as the reference).
#' @param file Path of the report, ending in `.html`, `.htm` or `.md`.
#' @param model_based A [model_based_xci()] result of the same audit.
#' @param calibration A [calibration()] result of the same rows.
#' @param title Title of the report.
#' @param time_unit Unit of time shown in the report (e.g. `"days"`).
#' @param margin,adjust As in [findings()].
#' @param settings A named list of settings to show (e.g. the data source).
#' @param ... Unused.
#' @return The path of the report, invisibly.
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")))
#' res <- xci(Surv(time, status) ~ age, group = ~ sex, data = lung2, tau = 365)
#' path <- write_report(res, tempfile(fileext = ".html"), time_unit = "days")
#' file.exists(path)
#' @export
write_report <- function(x, file, model_based = NULL, calibration = NULL,
                         title = "survfair audit report", time_unit = NULL, margin = 0.05,
                         adjust = c("holm", "bh", "bonferroni", "none"), settings = NULL, ...) {
  .no_dots(...)
  .check_result(x, c("survfair_xci", "survfair_xauc", "survfair_model_based"))
  if (inherits(x, "survfair_model_based")) {
    model_based <- model_based %||% x
    x <- x$observed
  }
  if (!is.character(file) || length(file) != 1L || !grepl("\\.(html?|md)$", file, ignore.case = TRUE)) {
    stop("`file` must be one path ending in .html, .htm or .md.", call. = FALSE)
  }
  call_text <- paste(deparse(x$call %||% quote(xci())), collapse = " ")
  provenance <- reticulate::dict(call = paste0("R: ", call_text), convert = FALSE)
  py <- .py_call("write_report", .py_obj(x), path.expand(file),
                 model_based = if (!is.null(model_based)) .py_obj(model_based),
                 calibration = if (!is.null(calibration)) .py_obj(calibration),
                 title = title, time_unit = time_unit, margin = .scalar(margin, "margin"),
                 adjust = match.arg(adjust), provenance = provenance,
                 settings = if (!is.null(settings)) reticulate::dict(lapply(settings, format),
                                                                      convert = FALSE))
  invisible(as.character(reticulate::py_to_r(.survfair$builtins$str(py))))
}
