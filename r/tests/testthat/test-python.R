# Finding the Python environment.

test_that("use_survfair reports the Python and survfair's version", {
  skip_without_python()
  info <- use_survfair()
  expect_true(info$available)
  expect_true(file.exists(info$python))
  expect_identical(info$version, reticulate::py_to_r(py()$`__version__`))
  expect_true(survfair_available())
})

test_that("a missing Python or survfair gets a message that says what to install", {
  expect_error(use_survfair(python = tempfile()), "no file")
  expect_error(use_survfair(python = 1), "one path")
  hint <- survfair:::.install_hint("/usr/bin/python3")
  expect_match(hint, "/usr/bin/python3 -m pip install survfair", fixed = TRUE)
  expect_match(hint, "pip install /path/to/survfair", fixed = TRUE)
  expect_match(hint, "use_survfair(python = ", fixed = TRUE)
  expect_match(hint, "RETICULATE_PYTHON", fixed = TRUE)
})

test_that("RETICULATE_PYTHON, when set, is the Python used", {
  skip_without_python()
  forced <- Sys.getenv("RETICULATE_PYTHON")
  skip_if(forced == "", "RETICULATE_PYTHON is not set")
  expect_identical(normalizePath(use_survfair()$python), normalizePath(forced))
})
