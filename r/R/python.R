# The Python side: finding survfair, calling it, and bringing its tables back to R.

.survfair <- new.env(parent = emptyenv())

#' Find, or be told, the Python that has survfair
#'
#' Every function of this package runs survfair's Python engine through
#' \pkg{reticulate}. `use_survfair()` chooses the Python environment (once per R
#' session, as reticulate allows) and imports survfair from it; the other
#' functions call it for you with the default choice, so you need it only to
#' choose another Python.
#'
#' The Python is, in this order: `python` when given; the environment variable
#' `RETICULATE_PYTHON` when set; otherwise reticulate's own choice (a Python
#' already initialised in this session, a virtual environment or conda
#' environment it discovers, or the first `python3` on the `PATH`).
#'
#' When survfair cannot be imported from that Python, the error says which
#' Python was used and what to install into it: `python -m pip install
#' survfair`, or, from a checkout of the survfair repository, `python -m pip
#' install /path/to/survfair`.
#'
#' @param python Path of a Python executable (or of a virtual environment's
#'   directory). `NULL`: `RETICULATE_PYTHON`, else reticulate's default.
#' @param required If `TRUE` (the default), a Python without survfair is an
#'   error; if `FALSE`, `use_survfair()` returns `FALSE` invisibly instead.
#' @return Invisibly, a list with `python` (the executable), `version` (of
#'   survfair) and `available` (`TRUE`); `FALSE` when `required = FALSE` and
#'   survfair is missing.
#' @seealso [survfair_available()] to test without an error.
#' @examples
#' \dontrun{
#' use_survfair("~/venvs/survfair/bin/python")
#' }
#' if (survfair_available()) use_survfair()
#' @export
use_survfair <- function(python = NULL, required = TRUE) {
  if (!is.null(python)) {
    if (!is.character(python) || length(python) != 1L || is.na(python)) {
      stop("`python` must be one path (a Python executable or an environment).", call. = FALSE)
    }
    python <- path.expand(python)
    if (dir.exists(python)) {
      candidates <- file.path(python, c("bin/python", "bin/python3", "Scripts/python.exe", "python.exe"))
      found <- candidates[file.exists(candidates)]
      if (!length(found)) {
        stop("No Python executable in the directory `", python, "`.", call. = FALSE)
      }
      python <- found[[1L]]
    }
    if (!file.exists(python)) {
      stop("`python`: no file `", python, "`.", call. = FALSE)
    }
    if (reticulate::py_available(initialize = FALSE)) {
      current <- reticulate::py_config()$python
      if (!identical(normalizePath(current, mustWork = FALSE), normalizePath(python, mustWork = FALSE))) {
        stop("Python is already initialised in this R session (", current, "); restart R to use `",
             python, "`.", call. = FALSE)
      }
    }
    reticulate::use_python(python, required = TRUE)
  }
  module <- .import_survfair(required = required)
  if (is.null(module)) {
    return(invisible(FALSE))
  }
  invisible(list(
    python = reticulate::py_config()$python,
    version = reticulate::py_to_r(module$`__version__`),
    available = TRUE
  ))
}

#' Is the Python package survfair importable?
#'
#' `TRUE` when survfair can be imported from the Python that [use_survfair()]
#' chooses; never an error. Examples, tests and the vignette use it to run only
#' where the Python engine is present.
#'
#' @return `TRUE` or `FALSE`.
#' @examples
#' survfair_available()
#' @export
survfair_available <- function() {
  if (!is.null(.survfair$module)) {
    return(TRUE)
  }
  ok <- tryCatch(!is.null(.import_survfair(required = FALSE)), error = function(e) FALSE)
  isTRUE(ok)
}

.install_hint <- function(python) {
  paste0(
    "The Python package survfair is not importable from ", python, ".\n",
    "Install it into that Python:\n",
    "  ", python, " -m pip install survfair\n",
    "or, from a checkout of the survfair repository:\n",
    "  ", python, " -m pip install /path/to/survfair\n",
    "or choose a Python that has it: survfair::use_survfair(python = \"/path/to/python\") ",
    "(or set RETICULATE_PYTHON before loading the package)."
  )
}

.import_survfair <- function(required = TRUE) {
  if (!is.null(.survfair$module)) {
    return(.survfair$module)
  }
  python <- tryCatch(reticulate::py_config()$python, error = function(e) NA_character_)
  if (is.na(python)) {
    if (!required) return(NULL)
    stop("No Python found for survfair. Install Python 3.10 or newer with survfair ",
         "(pip install survfair) and point to it: survfair::use_survfair(python = ...) or ",
         "RETICULATE_PYTHON.", call. = FALSE)
  }
  if (!reticulate::py_module_available("survfair")) {
    if (!required) return(NULL)
    stop(.install_hint(python), call. = FALSE)
  }
  module <- reticulate::import("survfair", convert = FALSE)
  bridge <- reticulate::import_from_path(
    "survfair_bridge", path = system.file("python", package = "survfair"), convert = FALSE
  )
  .survfair$module <- module
  .survfair$bridge <- bridge
  .survfair$numpy <- reticulate::import("numpy", convert = FALSE)
  .survfair$pandas <- reticulate::import("pandas", convert = FALSE)
  .survfair$builtins <- reticulate::import_builtins(convert = FALSE)
  module
}

# The survfair module (imported on first use).
.sf <- function() {
  .import_survfair(required = TRUE)
}

.bridge <- function() {
  .import_survfair(required = TRUE)
  .survfair$bridge
}

# Call a survfair function by name (or a bound Python callable) with Python-ready arguments.
# Python warnings become R warnings; a Python exception becomes an R error with its message.
.py_call <- function(fun, ..., .args = list()) {
  if (is.character(fun)) {
    fun <- reticulate::py_get_attr(.sf(), fun)
  }
  dots <- c(list(...), .args)
  named <- if (is.null(names(dots))) rep(FALSE, length(dots)) else nzchar(names(dots))
  positional <- unname(dots[!named])
  keywords <- dots[named]
  keywords <- keywords[!vapply(keywords, is.null, logical(1))]
  out <- tryCatch(
    .bridge()$call(fun, .py_list(positional), reticulate::dict(keywords, convert = FALSE)),
    error = function(e) stop(.python_message(e), call. = FALSE)
  )
  texts <- reticulate::py_to_r(reticulate::py_get_item(out, 1L))
  for (text in texts) warning(text, call. = FALSE)
  reticulate::py_get_item(out, 0L)
}

.py_list <- function(values) {
  .import_survfair(required = TRUE)
  lst <- .survfair$builtins$list()
  for (v in values) lst$append(v)
  lst
}

.python_message <- function(e) {
  message <- conditionMessage(e)
  last <- tryCatch(reticulate::py_last_error(), error = function(e) NULL)
  if (!is.null(last) && !is.null(last$type) && !is.null(last$value)) {
    message <- paste0(last$type, ": ", last$value)
  }
  message <- sub("^Error in py_call_impl\\(.*?\\) :\\s*", "", message)
  sub("\n+Run `reticulate::py_last_error\\(\\)` for details\\.\\s*$", "", message)
}

# R values to Python.
.np <- function(x, dtype = NULL) {
  .bridge()$as_array(reticulate::r_to_py(if (is.factor(x)) as.character(x) else x), dtype)
}

.py_labels <- function(x) {
  .py_list(lapply(as.character(x), reticulate::r_to_py))
}

.py_matrix <- function(x) {
  x <- as.matrix(x)
  storage.mode(x) <- "double"
  .bridge()$as_matrix(reticulate::r_to_py(as.vector(x)), nrow(x), ncol(x))
}

# A pandas DataFrame to an R data.frame, column by column, numbers unchanged.
.py_frame <- function(frame) {
  cols <- reticulate::py_to_r(.bridge()$columns(frame))
  out <- lapply(cols, function(col) {
    kind <- col[[1L]]
    values <- col[[2L]]
    if (is.list(values)) values <- unlist(values)
    missing <- as.logical(unlist(col[[3L]]))
    values <- switch(kind,
      double = as.double(values),
      integer = as.integer(values),
      logical = as.logical(values),
      character = as.character(values)
    )
    if (kind != "double" && any(missing)) values[missing] <- NA
    values
  })
  if (!length(out)) {
    return(data.frame())
  }
  out <- as.data.frame(out, stringsAsFactors = FALSE, optional = TRUE)
  names(out) <- names(cols)
  rownames(out) <- NULL
  out
}

.py_opt_num <- function(x) {
  value <- reticulate::py_to_r(x)
  if (is.null(value)) NA_real_ else as.double(value)
}

.py_num <- function(x) {
  as.double(reticulate::py_to_r(x))
}

.py_chr <- function(x) {
  as.character(unlist(reticulate::py_to_r(.bridge()$labels(x))))
}
