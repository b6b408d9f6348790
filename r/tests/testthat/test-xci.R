# xci() against survfair's Python xci() on the same rows, to 1e-12: lung, colon and flchain.

compare_xci <- function(res, expected) {
  expect_same_frame(res$cells, py_df(expected$to_frame()))
  expect_equal(unname(res$matrix), unname(py_matrix(expected$matrix)), tolerance = 1e-12)
  expect_identical(res$groups, unlist(reticulate::py_to_r(expected$groups)))
  expect_equal(res$overall$value, py_num(expected$overall), tolerance = 1e-12)
  expect_identical(res$n, as.integer(reticulate::py_to_r(expected$n_samples)))
}

test_that("lung: IPCW with tau, groups from a factor, equals Python", {
  skip_without_python()
  d <- lung_data()
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = 365)
  expected <- py()$xci(arr(d$time), arr(d$event), arr(d$sex), arr(d$risk), tau = 365,
                       groups = labels(c("male", "female")))
  compare_xci(res, expected)
  expect_identical(rownames(res$matrix), c("male", "female"))
  overall <- py_df(py()$overall_c(expected)$to_frame())
  expect_equal(res$overall$se, overall$se, tolerance = 1e-12)
  expect_equal(res$overall$ci_low, overall$ci_low, tolerance = 1e-12)
  # another level: recomputed by Python from the same standard errors
  ci <- expected$confidence_interval(confidence_level = 0.9)
  r_ci <- confint(res, level = 0.9)
  expect_equal(r_ci[, 1], as.vector(t(py_matrix(ci$low))), tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(r_ci[, 2], as.vector(t(py_matrix(ci$high))), tolerance = 1e-12, ignore_attr = TRUE)
  expect_identical(rownames(r_ci), c("male:male", "male:female", "female:male", "female:female"))
  expect_identical(colnames(r_ci), c("5 %", "95 %"))
})

test_that("lung: naive, strict, pooled censoring and no intervals equal Python", {
  skip_without_python()
  d <- lung_data()
  g <- labels(c("male", "female"))
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, method = "naive")
  compare_xci(res, py()$xci(arr(d$time), arr(d$event), arr(d$sex), arr(d$risk),
                            method = "naive", groups = g))
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, strict = TRUE, tau = 500,
             censoring = "pooled", ci = "none")
  compare_xci(res, py()$xci(arr(d$time), arr(d$event), arr(d$sex), arr(d$risk), strict = TRUE,
                            tau = 500, censoring = "pooled", ci = NULL, groups = g))
  expect_true(all(is.na(res$se)))
})

test_that("lung: a Cox model of the censoring (censoring_covariates) equals Python", {
  skip_without_python()
  d <- lung_data()
  d <- d[!is.na(d$ph.karno), ]
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = 500, censoring = "cox",
             censoring_covariates = ~ age + ph.karno)
  x <- reticulate::r_to_py(as.vector(cbind(d$age, d$ph.karno)))
  X <- np()$ascontiguousarray(np()$asarray(x, dtype = "float64")$reshape(c(2L, nrow(d)))$T)
  expected <- py()$xci(arr(d$time), arr(d$event), arr(d$sex), arr(d$risk), tau = 500,
                       censoring = "cox", censoring_covariates = X,
                       groups = labels(c("male", "female")))
  compare_xci(res, expected)
})

test_that("lung: the bootstrap with a seed equals Python's with the same seed", {
  skip_without_python()
  d <- lung_data()
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = 365, ci = "bootstrap",
             n_resamples = 40, seed = 7)
  expected <- py()$xci(arr(d$time), arr(d$event), arr(d$sex), arr(d$risk), tau = 365,
                       ci = "bootstrap", n_resamples = 40L, random_state = 7L,
                       groups = labels(c("male", "female")))
  compare_xci(res, expected)
  expect_identical(res$settings$ci, "bootstrap")
})

test_that("lung: a coxph fit gives its linear predictor as the risk", {
  skip_without_python()
  d <- survival::lung
  d$sex <- factor(d$sex, 1:2, c("male", "female"))
  fit <- survival::coxph(Surv(time, status) ~ age + ph.ecog, data = d)
  res <- xci(fit, data = d, group = ~ sex, tau = 365)
  used <- setdiff(seq_len(nrow(d)), fit$na.action)
  lp <- stats::predict(fit, type = "lp")
  expected <- py()$xci(arr(d$time[used]), arr(d$status[used] == 2), arr(d$sex[used]),
                       arr(unname(lp)), tau = 365, groups = labels(c("male", "female")))
  compare_xci(res, expected)
  expect_identical(res$na.action, fit$na.action)
})

test_that("colon: three groups (a factor's order), clusters and case weights equal Python", {
  skip_without_python()
  d <- colon_data()
  expect_identical(levels(d$rx), c("Obs", "Lev", "Lev+5FU"))
  res <- xci(Surv(time, status) ~ risk, group = ~ rx, data = d, cluster = id, tau = 2000)
  expected <- py()$xci(arr(d$time), arr(d$event), arr(d$rx), arr(d$risk), cluster = arr(d$id),
                       tau = 2000, groups = labels(levels(d$rx)))
  compare_xci(res, expected)
  expect_identical(res$groups, c("Obs", "Lev", "Lev+5FU"))
  set.seed(3)
  d$w <- stats::runif(nrow(d), 0.5, 2)
  res <- xci(Surv(time, status) ~ risk, group = ~ rx, data = d, weights = w, tau = 2000)
  expected <- py()$xci(arr(d$time), arr(d$event), arr(d$rx), arr(d$risk), weights = arr(d$w),
                       tau = 2000, groups = labels(levels(d$rx)))
  compare_xci(res, expected)
  # weights and cluster as one-sided formulas, the same
  res2 <- xci(Surv(time, status) ~ risk, group = ~ rx, data = d, weights = ~ w, tau = 2000)
  expect_identical(res2$cells, res$cells)
})

test_that("colon: intersectional groups are survfair's labels", {
  skip_without_python()
  d <- colon_data()
  d$sex <- factor(d$sex, 0:1, c("F", "M"))
  res <- xci(Surv(time, status) ~ risk, group = ~ sex + rx, data = d, tau = 2000)
  expected <- py()$xci(arr(d$time), arr(d$event), arr(paste(d$sex, d$rx, sep = "|")),
                       arr(d$risk), tau = 2000,
                       groups = labels(res$groups))
  compare_xci(res, expected)
  expect_identical(res$groups, c("F|Obs", "F|Lev", "F|Lev+5FU", "M|Obs", "M|Lev", "M|Lev+5FU"))
})

test_that("flchain: delayed entry (Surv(start, stop, status)) equals Python's entry=", {
  skip_without_python()
  d <- flchain_data()
  res <- xci(Surv(start, stop, death) ~ risk, group = ~ sex, data = d, method = "naive")
  expected <- py()$xci(arr(d$stop), arr(d$event), arr(d$sex), arr(d$risk), entry = arr(d$start),
                       method = "naive", groups = labels(c("F", "M")))
  compare_xci(res, expected)
  expect_true(res$settings$delayed_entry)
})

test_that("flchain: competing risks (type = \"mstate\", cause =) equal Python's cause=", {
  skip_without_python()
  d <- flchain_data()
  res <- xci(Surv(futime, cause, type = "mstate") ~ risk, group = ~ sex, data = d,
             cause = "circulatory", tau = 4000)
  expected <- py()$xci(arr(d$futime), arr(d$cause_code), arr(d$sex), arr(d$risk), cause = 1L,
                       tau = 4000, groups = labels(c("F", "M")))
  compare_xci(res, expected)
  expect_identical(res$settings$cause, "circulatory")
  res2 <- xci(Surv(futime, cause, type = "mstate") ~ risk, group = ~ sex, data = d, cause = 1,
              tau = 4000)
  expect_identical(res2$cells, res$cells)
  other <- xci(Surv(futime, cause, type = "mstate") ~ risk, group = ~ sex, data = d,
               cause = "other", tau = 4000)
  expected <- py()$xci(arr(d$futime), arr(d$cause_code), arr(d$sex), arr(d$risk), cause = 2L,
                       tau = 4000, groups = labels(c("F", "M")))
  compare_xci(other, expected)
})

test_that("flchain: IPCW on 7,874 rows equals Python", {
  skip_without_python()
  d <- flchain_data()
  res <- xci(Surv(futime, death) ~ risk, group = ~ sex, data = d, tau = 4000)
  expected <- py()$xci(arr(d$futime), arr(d$event), arr(d$sex), arr(d$risk), tau = 4000,
                       groups = labels(c("F", "M")))
  compare_xci(res, expected)
})

test_that("groups = chooses a subset in the order given (the others excluded, with a warning)", {
  skip_without_python()
  d <- colon_data()
  expect_warning(
    res <- xci(Surv(time, status) ~ risk, group = ~ rx, data = d, groups = c("Lev+5FU", "Obs")),
    "exclud"
  )
  expect_identical(res$groups, c("Lev+5FU", "Obs"))
  expect_gt(res$n_excluded, 0L)
  expected <- py_quietly(
    py()$xci(arr(d$time), arr(d$event), arr(d$rx), arr(d$risk), groups = labels(c("Lev+5FU", "Obs")))
  )
  compare_xci(res, expected)
})
