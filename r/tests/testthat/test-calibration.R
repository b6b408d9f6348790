# calibration() against survfair's Python calibration() on the same rows and predictions.

py_2d <- function(m) {
  x <- reticulate::r_to_py(as.vector(m))
  np()$ascontiguousarray(np()$asarray(x, dtype = "float64")$reshape(c(ncol(m), nrow(m)))$T)
}

test_that("a matrix of predicted risks (one column per horizon) equals Python (lung)", {
  skip_without_python()
  d <- lung_data()
  d$r180 <- stats::plogis(d$risk - 1)
  d$r365 <- stats::plogis(d$risk)
  cal <- calibration(Surv(time, status) ~ cbind(r180, r365), group = ~ sex, data = d,
                     times = c(180, 365))
  expected <- py()$calibration(arr(d$time), arr(d$event), arr(d$sex), py_2d(cbind(d$r180, d$r365)),
                               arr(c(180, 365)), groups = labels(c("male", "female")))
  expect_same_frame(cal$statistics, py_df(expected$to_frame()))
  expect_same_frame(cal$contrasts, py_df(expected$contrasts()))
  expect_same_frame(cal$summary, py_df(expected$summary()$reset_index()))
  ci <- confint(cal, level = 0.8)
  e <- expected$confidence_interval(confidence_level = 0.8)
  expect_equal(ci[["10 %"]], py_df(e$low$reset_index())$ci_low, tolerance = 1e-12)
  expect_equal(ci[["90 %"]], py_df(e$high$reset_index())$ci_high, tolerance = 1e-12)
  # one horizon: a vector
  one <- calibration(Surv(time, status) ~ r365, group = ~ sex, data = d, times = 365)
  expect_identical(one$times, 365)
})

test_that("a coxph fit: its Breslow risks 1 - exp(-H0(t) exp(lp)), equal to Python on them", {
  skip_without_python()
  d <- na.omit(lung_data()[, c("time", "status", "event", "sex", "age", "ph.ecog")])
  fit <- survival::coxph(Surv(time, status) ~ age + ph.ecog + sex, data = d)
  risks <- coxph_risks(fit, c(180, 365))
  # Breslow's H0 at the covariate means, by hand
  lp <- fit$linear.predictors
  h0 <- sapply(c(180, 365), function(t) {
    times <- sort(unique(d$time[d$event & d$time <= t]))
    sum(sapply(times, function(s) sum(d$event & d$time == s) / sum(exp(lp[d$time >= s]))))
  })
  expect_equal(coxph_baseline(fit, c(180, 365)), h0, tolerance = 1e-12)
  expect_equal(unname(risks), -expm1(-outer(exp(lp), h0)), tolerance = 1e-12)
  cal <- calibration(fit, data = d, group = ~ sex, times = c(180, 365))
  expected <- py()$calibration(arr(d$time), arr(d$event), arr(d$sex), py_2d(risks),
                               arr(c(180, 365)), groups = labels(c("male", "female")))
  expect_same_frame(cal$statistics, py_df(expected$to_frame()))
})

test_that("competing risks: calibration of the cumulative incidence of a cause (flchain)", {
  skip_without_python()
  d <- flchain_data()
  d$p <- stats::plogis((d$age - 80) / 8)
  cal <- calibration(Surv(futime, cause, type = "mstate") ~ p, group = ~ sex, data = d,
                     times = 3000, cause = "circulatory")
  expected <- py()$calibration(arr(d$futime), arr(d$cause_code), arr(d$sex), py_2d(cbind(d$p)),
                               arr(3000), cause = 1L, groups = labels(c("F", "M")))
  expect_same_frame(cal$statistics, py_df(expected$to_frame()))
})

test_that("calibration refuses what it cannot take", {
  skip_without_python()
  d <- flchain_data()
  d$p <- 0.5
  expect_error(calibration(Surv(start, stop, death) ~ p, group = ~ sex, data = d, times = 3000),
               "delayed entry")
  expect_error(calibration(Surv(futime, death) ~ p, group = ~ sex, data = d), "times")
})
