# Inputs from a fitted survival::coxph model: its response, its linear predictor (the risk), its
# case weights, and the groups read from the rows of `data` it was fitted on.

.coxph_inputs <- function(fit, data, group, env) {
  if (!inherits(fit, "coxph")) {
    stop("expected a fitted survival::coxph model.", call. = FALSE)
  }
  if (is.null(data) || !is.data.frame(data)) {
    stop("`data` must be the data frame the coxph model was fitted on (the groups are read ",
         "from it).", call. = FALSE)
  }
  if (!is.null(fit$call$subset)) {
    stop("the coxph model was fitted with `subset =`; refit it on the subset's data frame and ",
         "pass that data frame.", call. = FALSE)
  }
  y <- fit$y
  if (is.null(y)) {
    y <- stats::model.response(stats::model.frame(fit))
  }
  type <- attr(y, "type")
  if (!type %in% c("right", "counting")) {
    stop("coxph response of type \"", type, "\": survfair takes right-censored data ",
         "(Surv(time, status)) or delayed entry (Surv(start, stop, status)).", call. = FALSE)
  }
  omitted <- fit$na.action
  used <- seq_len(nrow(data))
  if (length(omitted)) used <- used[-as.integer(omitted)]
  if (length(used) != fit$n) {
    stop("`data` has ", nrow(data), " rows", if (length(omitted)) paste0(" (", length(omitted),
         " omitted by the model)"), " but the model was fitted on ", fit$n, "; pass the data ",
         "frame the model was fitted on.", call. = FALSE)
  }
  rows <- .row_names(data, nrow(data))
  frame <- data[used, , drop = FALSE]
  groups <- .groups_of(group, frame, env, length(used))
  if (any(groups$missing)) {
    bad <- rows[used][groups$missing]
    stop("missing values (NA) in `", groups$name, "`, rows ", .name_rows(bad), " (",
         length(bad), " of ", length(used), " rows of the model); give them a group or refit ",
         "the model without them.", call. = FALSE)
  }
  counting <- type == "counting"
  lp <- fit$linear.predictors
  if (is.null(lp) || length(lp) != length(used)) {
    lp <- stats::predict(fit, type = "lp", reference = "sample")
  }
  w <- fit$weights
  inputs <- list(
    n_input = nrow(data),
    time = as.double(y[, if (counting) "stop" else "time"]),
    entry = if (counting) as.double(y[, "start"]) else NULL,
    event = as.integer(y[, "status"]) == 1L,
    score = as.double(lp),
    score_name = "linear predictor",
    group = groups$labels,
    levels = groups$levels[groups$levels %in% unique(groups$labels)],
    group_name = groups$name,
    weights = if (!is.null(w)) as.double(w) else NULL,
    cluster = NULL,
    rows = rows[used],
    na.action = omitted,
    n = length(used)
  )
  inputs
}
