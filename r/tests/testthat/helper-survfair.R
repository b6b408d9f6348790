# Helpers of the tests: the Python engine called directly through reticulate, independently of the
# package's own bridge, so that every R function is compared with the Python call it stands for.

library(survival)

skip_without_python <- function() {
  testthat::skip_if_not(survfair_available(), "the Python package survfair is not importable")
}

py <- function() reticulate::import("survfair", convert = FALSE)

np <- function() reticulate::import("numpy", convert = FALSE)

# An R vector as a 1-D numpy array (through a Python list: exact for doubles).
arr <- function(x, dtype = NULL) {
  if (is.factor(x)) x <- as.character(x)
  np()$atleast_1d(np()$asarray(reticulate::r_to_py(unname(x)), dtype = dtype))
}

labels <- function(x) {
  b <- reticulate::import_builtins(convert = FALSE)
  out <- b$list()
  for (v in as.character(x)) out$append(v)
  out
}

# A pandas DataFrame to an R data.frame by its columns' tolist() (no numpy conversion).
py_df <- function(df) {
  df <- df$reset_index(drop = TRUE)
  names <- unlist(reticulate::py_to_r(df$columns$tolist()))
  out <- lapply(names, function(name) {
    values <- reticulate::py_to_r(df$`__getitem__`(name)$tolist())
    unlist(lapply(values, function(v) if (is.null(v)) NA else v))
  })
  names(out) <- names
  as.data.frame(out, stringsAsFactors = FALSE, optional = TRUE)
}

# Evaluate a direct Python call with Python's warnings silenced (the R functions turn them into R
# warnings; the direct calls of the tests would print them).
py_quietly <- function(expr) {
  warnings <- reticulate::import("warnings", convert = FALSE)
  context <- warnings$catch_warnings()
  context$`__enter__`()
  on.exit(context$`__exit__`(NULL, NULL, NULL))
  warnings$simplefilter("ignore")
  expr
}

py_num <- function(x) as.double(reticulate::py_to_r(x))

# A Python G x G DataFrame (rows a, columns b) as an R matrix.
py_matrix <- function(m) {
  rows <- unlist(reticulate::py_to_r(m$index$tolist()))
  cols <- unlist(reticulate::py_to_r(m$columns$tolist()))
  values <- unlist(reticulate::py_to_r(m$to_numpy()$ravel()$tolist()))
  matrix(values, length(rows), length(cols), byrow = TRUE, dimnames = list(a = rows, b = cols))
}

# Compare the numeric columns of two data frames to 1e-12 (and the others exactly).
expect_same_frame <- function(actual, expected, tolerance = 1e-12) {
  testthat::expect_identical(names(actual), names(expected))
  testthat::expect_identical(nrow(actual), nrow(expected))
  for (name in names(expected)) {
    a <- actual[[name]]
    e <- expected[[name]]
    if (is.numeric(e)) {
      testthat::expect_equal(as.double(a), as.double(e), tolerance = tolerance, label = name)
    } else {
      testthat::expect_identical(as.character(a), as.character(e), label = name)
    }
  }
}

# The next double above x > 0 (numpy.nextafter(x, inf)).
next_up <- function(x) x + 2^(floor(log2(x)) - 52)

# The data sets of the tests, from R's survival package.
lung_data <- function() {
  d <- survival::lung
  d$sex <- factor(d$sex, 1:2, c("male", "female"))
  d$event <- d$status == 2
  fit <- survival::coxph(survival::Surv(time, status) ~ age + ph.ecog, data = d,
                         na.action = stats::na.exclude)
  d$risk <- as.double(stats::predict(fit, type = "lp"))
  d <- d[!is.na(d$risk), ]
  d
}

colon_data <- function() {
  d <- survival::colon
  d <- d[!is.na(d$nodes) & !is.na(d$differ), ]
  d$risk <- d$nodes + 0.5 * d$differ + 0.1 * d$age / 10
  d$event <- d$status == 1
  d
}

flchain_data <- function() {
  d <- survival::flchain
  d <- d[d$futime > 0, ]
  d$risk <- d$kappa + d$lambda
  d$event <- d$death == 1
  # delayed entry on the age scale: entry at the age of the sample, exit at entry + follow-up
  d$start <- d$age * 365.25
  d$stop <- d$start + d$futime
  # competing risks: death from circulatory disease (cause 1) or from any other cause (cause 2)
  cause <- ifelse(d$death == 0, "censored",
                  ifelse(d$chapter %in% "Circulatory", "circulatory", "other"))
  d$cause <- factor(cause, c("censored", "circulatory", "other"))
  d$cause_code <- as.integer(d$cause) - 1L
  d
}
