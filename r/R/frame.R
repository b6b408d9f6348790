# From R's formula, data and options to the arrays survfair's Python functions take.
# One place for every function: the Surv response, the risk, the groups, weights, clusters and
# missing values are read and checked here, and nowhere else.

.is_formula <- function(x) inherits(x, "formula")

.time_classes <- c("Date", "POSIXt", "difftime")

.refuse_dates <- function(value, what) {
  if (inherits(value, .time_classes)) {
    cls <- class(value)[[1L]]
    stop(what, " is a ", cls, " vector; survfair needs numeric times (durations since a common ",
         "origin). Convert first, for example `as.numeric(difftime(end, start, units = \"days\"))`.",
         call. = FALSE)
  }
}

# Dates are refused before survival::Surv() sees them (Surv's own message, "Time variable is not
# numeric", does not say what to do).
.check_surv_call <- function(lhs, data, env) {
  if (!is.call(lhs)) {
    value <- tryCatch(eval(lhs, data, env), error = function(e) NULL)
    .refuse_dates(value, paste0("`", deparse1(lhs), "`"))
    return(invisible())
  }
  fn <- deparse1(lhs[[1L]])
  if (!fn %in% c("Surv", "survival::Surv")) {
    return(invisible())
  }
  args <- as.list(lhs)[-1L]
  arg_names <- names(args) %||% rep("", length(args))
  for (k in seq_along(args)) {
    if (arg_names[[k]] %in% c("type", "origin")) next
    value <- tryCatch(eval(args[[k]], data, env), error = function(e) NULL)
    .refuse_dates(value, paste0("`", deparse1(args[[k]]), "` in ", deparse1(lhs)))
  }
  invisible()
}

`%||%` <- function(x, y) if (is.null(x)) y else x

# A one-sided formula, a bare expression (evaluated in data) or a vector; NULL stays NULL.
.eval_arg <- function(expr, data, env, what) {
  if (is.null(expr)) {
    return(NULL)
  }
  value <- eval(expr, data, env)
  if (.is_formula(value)) {
    rhs <- value[[length(value)]]
    frame <- stats::model.frame(value, data = data %||% environment(value), na.action = stats::na.pass)
    if (ncol(frame) != 1L) {
      stop("`", what, "` must name one variable (got ", deparse1(value), ").", call. = FALSE)
    }
    value <- frame[[1L]]
    attr(value, "label") <- deparse1(rhs)
  } else if (!is.null(value)) {
    attr(value, "label") <- deparse1(expr)
  }
  value
}

# Group labels from a one-sided formula (`~ sex`, `~ sex + race` for intersections) or a vector.
# Returns list(labels = character, levels = character in matrix order, name = character).
.groups_of <- function(group, data, env, n) {
  if (is.null(group) || identical(group, quote(expr = ))) {
    stop("`group` is required: a one-sided formula such as `group = ~ sex` (or `~ sex + race` ",
         "for intersectional groups).", call. = FALSE)
  }
  if (.is_formula(group)) {
    if (length(group) != 2L) {
      stop("`group` must be a one-sided formula such as `~ sex`.", call. = FALSE)
    }
    frame <- stats::model.frame(group, data = data %||% environment(group), na.action = stats::na.pass)
    name <- paste(names(frame), collapse = " + ")
    columns <- as.list(frame)
  } else {
    name <- attr(group, "label") %||% "group"
    columns <- list(group)
  }
  columns <- lapply(seq_along(columns), function(k) {
    x <- columns[[k]]
    .refuse_dates(x, "`group`")
    if (is.matrix(x) || is.data.frame(x)) {
      stop("`group`: each variable must be a vector or a factor.", call. = FALSE)
    }
    if (length(x) != n) {
      stop("`group` has ", length(x), " values but the data have ", n, " rows.", call. = FALSE)
    }
    x
  })
  missing <- Reduce(`|`, lapply(columns, is.na))
  factors <- lapply(columns, function(x) if (is.factor(x)) x else factor(x))
  labels <- lapply(factors, function(f) .escape_label(as.character(f)))
  label <- do.call(paste, c(labels, sep = "|"))
  label[missing] <- NA_character_
  # matrix order: the levels of the first variable slowest, each in its factor order; only
  # combinations present
  grid <- expand.grid(rev(lapply(factors, function(f) .escape_label(levels(f)))),
                      stringsAsFactors = FALSE, KEEP.OUT.ATTRS = FALSE)
  grid <- rev(grid)
  all_levels <- do.call(paste, c(unname(as.list(grid)), sep = "|"))
  list(labels = label, levels = all_levels, name = name, missing = missing)
}

# survfair's escape of intersectional labels: a backslash or a "|" inside a label gets a backslash.
.escape_label <- function(x) {
  gsub("|", "\\|", gsub("\\", "\\\\", x, fixed = TRUE), fixed = TRUE)
}

.row_names <- function(data, n) {
  rn <- if (!is.null(data) && is.data.frame(data)) attr(data, "row.names") else NULL
  if (is.null(rn) || is.integer(rn) && length(rn) == n && identical(rn, seq_len(n))) {
    return(as.character(seq_len(n)))
  }
  if (is.integer(rn) && length(rn) == 2L && is.na(rn[[1L]])) {
    return(as.character(seq_len(n)))
  }
  as.character(rn)
}

.name_rows <- function(rows, limit = 10L) {
  shown <- paste(utils::head(rows, limit), collapse = ", ")
  if (length(rows) > limit) shown <- paste0(shown, ", ... (", length(rows) - limit, " more)")
  shown
}

.na_action_name <- function(na.action) {
  if (is.character(na.action)) {
    return(na.action)
  }
  for (name in c("na.fail", "na.omit", "na.exclude", "na.pass")) {
    if (identical(na.action, get(name, envir = asNamespace("stats")))) return(name)
  }
  "other"
}

# The rows to keep after `na.action`, given a logical matrix of missing values per variable.
.apply_na_action <- function(missing, na.action, rows) {
  any_missing <- rowSums(missing) > 0
  if (!any(any_missing)) {
    return(list(keep = rep(TRUE, nrow(missing)), omitted = NULL))
  }
  name <- .na_action_name(na.action)
  if (name == "na.pass") {
    name <- "na.fail"
  }
  if (name == "na.fail") {
    which_vars <- colnames(missing)[colSums(missing) > 0]
    stop("missing values (NA) in ", paste0("`", which_vars, "`", collapse = ", "), ", rows ",
         .name_rows(rows[any_missing]), " (", sum(any_missing), " of ", length(any_missing),
         "); survfair drops nothing unless asked: use `na.action = na.omit` to analyse the ",
         "complete rows.", call. = FALSE)
  }
  fun <- if (is.character(na.action)) get(na.action, mode = "function") else na.action
  probe <- data.frame(.row = seq_len(nrow(missing)))
  probe$.row[any_missing] <- NA
  kept <- fun(probe)
  omitted <- attr(kept, "na.action")
  if (is.null(omitted)) {
    stop("`na.action` kept rows with missing values; survfair needs complete rows ",
         "(use na.omit or na.exclude).", call. = FALSE)
  }
  omitted <- structure(as.integer(omitted), names = rows[omitted], class = class(omitted))
  keep <- !seq_len(nrow(missing)) %in% omitted
  list(keep = keep, omitted = omitted)
}

# Read the inputs of a survival-type call.
#   formula: Surv(time, status) ~ risk (or Surv(start, stop, status), or type = "mstate")
#   response: "surv" (a Surv response) or "binary" (a 0/1, logical or two-level response)
#   risk: "vector" (one score) or "matrix" (calibration: one column per horizon)
.read_inputs <- function(formula, data, group, weights = NULL, cluster = NULL,
                         na.action = stats::na.fail, cause = NULL, env = parent.frame(2),
                         response = c("surv", "binary"), risk = c("vector", "matrix"),
                         covariates = NULL) {
  response <- match.arg(response)
  risk <- match.arg(risk)
  if (!.is_formula(formula) || length(formula) != 3L) {
    stop("`formula` must be two-sided, such as `Surv(time, status) ~ risk`.", call. = FALSE)
  }
  if (!is.null(data) && !is.data.frame(data)) {
    stop("`data` must be a data frame.", call. = FALSE)
  }
  env <- environment(formula) %||% env
  if (response == "surv") {
    .check_surv_call(formula[[2L]], data, env)
  }
  mf <- stats::model.frame(formula, data = data %||% env, na.action = stats::na.pass)
  n <- nrow(mf)
  y <- stats::model.response(mf)
  rhs <- mf[-1L]
  if (ncol(rhs) != 1L) {
    stop("the right-hand side of `formula` must be one ", if (risk == "vector") "risk score" else
      "matrix of predicted risks", " (got ", deparse1(formula[[3L]]), "); combine covariates into ",
      "a score first, e.g. with predict(coxph(...), type = \"lp\").", call. = FALSE)
  }
  score <- rhs[[1L]]
  score_name <- deparse1(formula[[3L]])
  .refuse_dates(score, paste0("`", score_name, "`"))
  if (risk == "vector") {
    if (is.matrix(score) && ncol(score) == 1L) score <- score[, 1L]
    if (is.factor(score) || is.character(score) || is.matrix(score) || !(is.numeric(score) || is.logical(score))) {
      stop("`", score_name, "` must be a numeric risk score (higher = earlier event).", call. = FALSE)
    }
    score <- as.double(score)
    score_missing <- is.na(score)
  } else {
    score <- as.matrix(score)
    if (!is.numeric(score)) {
      stop("`", score_name, "` must be numeric predicted risks.", call. = FALSE)
    }
    storage.mode(score) <- "double"
    score_missing <- rowSums(is.na(score)) > 0
  }
  out <- list(n_input = n, score = score, score_name = score_name, formula = formula)
  if (response == "surv") {
    if (!inherits(y, "Surv")) {
      stop("the left-hand side of `formula` must be a survival::Surv() object, such as ",
           "`Surv(time, status)`.", call. = FALSE)
    }
    type <- attr(y, "type")
    states <- attr(y, "states")
    if (!type %in% c("right", "counting", "mright", "mcounting")) {
      stop("Surv type \"", type, "\" is not supported: survfair takes right-censored data, with ",
           "delayed entry as Surv(start, stop, status) and competing risks as type = \"mstate\".",
           call. = FALSE)
    }
    counting <- type %in% c("counting", "mcounting")
    out$time <- as.double(y[, if (counting) "stop" else "time"])
    out$entry <- if (counting) as.double(y[, "start"]) else NULL
    status <- as.integer(y[, "status"])
    if (type %in% c("mright", "mcounting")) {
      if (is.null(cause)) {
        stop("competing risks (Surv type = \"mstate\"): choose the event of interest with ",
             "`cause =`, one of ", paste0("\"", states, "\"", collapse = ", "), ".", call. = FALSE)
      }
      out$cause <- .cause_index(cause, states)
      out$states <- states
      out$event <- status
    } else {
      if (!is.null(cause)) {
        stop("`cause =` needs a competing-risks response: Surv(time, status, type = \"mstate\") ",
             "with status a factor whose first level is censoring (or 0 = censored, 1, 2, ... ",
             "the causes).", call. = FALSE)
      }
      out$event <- status == 1L
    }
    response_missing <- rowSums(is.na(unclass(y))) > 0
    response_name <- deparse1(formula[[2L]])
  } else {
    if (is.matrix(y)) {
      stop("the left-hand side must be one binary outcome.", call. = FALSE)
    }
    out$y <- y
    response_missing <- is.na(y)
    response_name <- deparse1(formula[[2L]])
  }
  groups <- .groups_of(group, data, env, n)
  w <- .eval_arg(weights, data, env, "weights")
  cl <- .eval_arg(cluster, data, env, "cluster")
  for (spec in list(list(w, "weights"), list(cl, "cluster"))) {
    if (!is.null(spec[[1L]]) && length(spec[[1L]]) != n) {
      stop("`", spec[[2L]], "` has ", length(spec[[1L]]), " values but the data have ", n, " rows.",
           call. = FALSE)
    }
  }
  if (!is.null(w)) {
    .refuse_dates(w, "`weights`")
    if (!is.numeric(w)) stop("`weights` must be numeric.", call. = FALSE)
  }
  if (!is.null(cl)) .refuse_dates(cl, "`cluster`")
  cf <- NULL
  if (!is.null(covariates)) {
    if (!.is_formula(covariates) || length(covariates) != 2L) {
      stop("`censoring_covariates` must be a one-sided formula such as `~ age + ph.ecog`.",
           call. = FALSE)
    }
    cf <- stats::model.frame(covariates, data = data %||% env, na.action = stats::na.pass)
    if (nrow(cf) != n) {
      stop("`censoring_covariates` has ", nrow(cf), " rows but the data have ", n, ".", call. = FALSE)
    }
  }
  missing <- cbind(response_missing, score_missing, groups$missing)
  colnames(missing) <- c(response_name, score_name, groups$name)
  if (!is.null(w)) missing <- cbind(missing, weights = is.na(w))
  if (!is.null(cl)) missing <- cbind(missing, cluster = is.na(cl))
  if (!is.null(cf)) missing <- cbind(missing, censoring_covariates = rowSums(is.na(cf)) > 0)
  rows <- .row_names(data, n)
  na <- .apply_na_action(missing, na.action, rows)
  keep <- na$keep
  out$rows <- rows[keep]
  out$na.action <- na$omitted
  if (response == "surv") {
    out$time <- out$time[keep]
    out$event <- out$event[keep]
    if (!is.null(out$entry)) out$entry <- out$entry[keep]
  } else {
    out$y <- out$y[keep]
  }
  out$score <- if (risk == "vector") out$score[keep] else out$score[keep, , drop = FALSE]
  out$group <- groups$labels[keep]
  present <- unique(out$group)
  out$levels <- groups$levels[groups$levels %in% present]
  out$group_name <- groups$name
  out$weights <- if (!is.null(w)) as.double(w[keep]) else NULL
  out$cluster <- if (!is.null(cl)) as.character(cl[keep]) else NULL
  if (!is.null(cf)) {
    kept <- cf[keep, , drop = FALSE]
    cov <- stats::model.matrix(stats::terms(cf), kept)
    out$covariates <- cov[, colnames(cov) != "(Intercept)", drop = FALSE]
  }
  out$n <- sum(keep)
  out
}

.cause_index <- function(cause, states) {
  if (length(cause) != 1L || is.na(cause)) {
    stop("`cause` must be one state, one of ", paste0("\"", states, "\"", collapse = ", "), ".",
         call. = FALSE)
  }
  if (is.character(cause) || is.factor(cause)) {
    k <- match(as.character(cause), states)
    if (is.na(k)) {
      stop("`cause = \"", cause, "\"` is not a state of the response; choose one of ",
           paste0("\"", states, "\"", collapse = ", "), ".", call. = FALSE)
    }
    return(k)
  }
  if (is.numeric(cause) && cause == round(cause) && cause >= 1 && cause <= length(states)) {
    return(as.integer(cause))
  }
  stop("`cause` must be a state name or its position (1 to ", length(states), ").", call. = FALSE)
}

# The groups argument of the Python call: R's level order (factor levels, or sorted values) or the
# user's `groups =`.
.python_groups <- function(inputs, groups) {
  if (is.null(groups)) {
    return(.py_labels(inputs$levels))
  }
  groups <- as.character(groups)
  unknown <- setdiff(groups, inputs$levels)
  if (length(unknown)) {
    stop("`groups`: no rows with ", paste0("\"", unknown, "\"", collapse = ", "), "; the groups ",
         "are ", paste0("\"", inputs$levels, "\"", collapse = ", "), ".", call. = FALSE)
  }
  .py_labels(groups)
}

.check_level <- function(conf.level) {
  if (!is.numeric(conf.level) || length(conf.level) != 1L || is.na(conf.level) ||
      conf.level <= 0 || conf.level >= 1) {
    stop("`conf.level` must be one number in (0, 1).", call. = FALSE)
  }
  as.double(conf.level)
}

# "none" is Python's None (a NULL keyword would be dropped: Python's default, "analytic").
.ci_arg <- function(ci) {
  ci <- match.arg(ci, c("analytic", "bootstrap", "none"))
  if (ci == "none") reticulate::py_none() else ci
}

.seed_arg <- function(seed) {
  if (is.null(seed)) {
    return(NULL)
  }
  if (!is.numeric(seed) || length(seed) != 1L || is.na(seed) || seed != round(seed) || seed < 0) {
    stop("`seed` must be one non-negative whole number (or NULL).", call. = FALSE)
  }
  reticulate::r_to_py(as.integer(seed))
}

.scalar <- function(x, what, integer = FALSE) {
  if (is.null(x)) {
    return(NULL)
  }
  if (!is.numeric(x) || length(x) != 1L || is.na(x)) {
    stop("`", what, "` must be one number.", call. = FALSE)
  }
  if (integer) reticulate::r_to_py(as.integer(x)) else reticulate::r_to_py(as.double(x))
}
