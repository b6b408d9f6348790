# The summaries against survfair's Python summaries of the same result, to 1e-12.

estimate_frame <- function(py_estimate) py_df(py_estimate$to_frame())

test_that("delta_between, delta_within, min_xci, pairwise_deltas equal Python (lung, 2 groups)", {
  skip_without_python()
  d <- lung_data()
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = 365)
  p <- res$py
  for (name in c("delta_between", "delta_within")) {
    r <- get(name)(res, "female", "male")
    e <- estimate_frame(switch(name, delta_between = py()$delta_between, delta_within = py()$delta_within)(p, "female", "male"))
    expect_equal(r$value, e$value, tolerance = 1e-12)
    expect_equal(r$se, e$se, tolerance = 1e-12)
    expect_equal(c(r$conf.low, r$conf.high), c(e$ci_low, e$ci_high), tolerance = 1e-12)
    expect_equal(r$p.value, e$p_value, tolerance = 1e-12)
    expect_s3_class(r, "survfair_estimate")
  }
  expect_equal(delta_between(res, "female", "male")$value,
               res$matrix["female", "male"] - res$matrix["male", "female"], tolerance = 1e-12)
  m <- min_xci(res)
  pm <- py()$min_xci(p)
  expect_identical(c(m$a, m$b), c(reticulate::py_to_r(pm$a), reticulate::py_to_r(pm$b)))
  expect_equal(m$value, py_num(pm$estimate$value), tolerance = 1e-12)
  expect_equal(m$value, min(res$matrix))
  expect_same_frame(pairwise_deltas(res), py_df(py()$pairwise_deltas(p)))
})

test_that("pairwise_deltas over three groups and bad labels (colon)", {
  skip_without_python()
  d <- colon_data()
  res <- xci(Surv(time, status) ~ risk, group = ~ rx, data = d, tau = 2000)
  expect_same_frame(pairwise_deltas(res), py_df(py()$pairwise_deltas(res$py)))
  expect_identical(nrow(pairwise_deltas(res)), 6L)
  expect_error(delta_between(res, "Obs", "placebo"), "must be one of the groups")
  expect_error(delta_between(list(), "a", "b"), "expected a result")
})

test_that("estimates print, format, confint and as.data.frame", {
  skip_without_python()
  d <- lung_data()
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = 365)
  e <- delta_between(res, "female", "male")
  expect_match(format(e), "between\\(female, male\\) = ")
  expect_output(print(e), "95% CI")
  ci <- confint(e)
  expect_equal(unname(ci[1, ]), c(e$conf.low, e$conf.high))
  expect_error(confint(e, level = 0.9), "recompute")
  df <- as.data.frame(e)
  expect_identical(nrow(df), 1L)
  expect_identical(df$summary, "delta_between")
})
