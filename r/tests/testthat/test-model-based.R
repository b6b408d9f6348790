# model_based_xci() against survfair's Python model_based_xci() on the same linear predictor and
# baseline.

test_that("a coxph fit: lp and Breslow H0(tau-) from the fit, equal to Python (lung)", {
  skip_without_python()
  d <- na.omit(lung_data()[, c("time", "status", "event", "sex", "age", "ph.ecog")])
  fit <- survival::coxph(Surv(time, status) ~ age + ph.ecog, data = d)
  mb <- model_based_xci(fit, data = d, group = ~ sex, tau = 365)
  lp <- fit$linear.predictors
  expect_equal(unname(lp), unname(stats::predict(fit, type = "lp")), tolerance = 1e-12)
  # H0 at tau from the events strictly before tau (survfair's reading of a given tau)
  times <- sort(unique(d$time[d$event & d$time < 365]))
  h0 <- sum(sapply(times, function(s) sum(d$event & d$time == s) / sum(exp(lp[d$time >= s]))))
  baseline <- reticulate::tuple(arr(c(0, 365)), arr(c(0, h0)))
  expected <- py()$model_based_xci(arr(d$time), arr(d$event), arr(d$sex), arr(lp),
                                   linear_predictor = arr(lp), baseline = baseline, tau = 365,
                                   groups = labels(c("male", "female")))
  expect_same_frame(mb$cells, py_df(expected$to_frame()))
  expect_same_frame(mb$summaries, py_df(expected$summaries()))
  expect_same_frame(mb$observed$cells, py_df(expected$observed$to_frame()))
  # and Python's own Breslow baseline from the same rows and lp: the same to rounding
  own <- py()$model_based_xci(arr(d$time), arr(d$event), arr(d$sex), arr(lp),
                              linear_predictor = arr(lp), tau = 365,
                              groups = labels(c("male", "female")))
  expect_same_frame(mb$cells, py_df(own$to_frame()), tolerance = 1e-10)
  ci <- confint(mb, level = 0.9)
  e <- expected$confidence_interval(confidence_level = 0.9)
  expect_equal(ci[, 1], as.vector(t(py_matrix(e$low))), tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("tau = NULL: the last event time, through it (Python's default)", {
  skip_without_python()
  d <- na.omit(lung_data()[, c("time", "status", "event", "sex", "age", "ph.ecog")])
  fit <- survival::coxph(Surv(time, status) ~ age + ph.ecog, data = d)
  mb <- model_based_xci(fit, data = d, group = ~ sex)
  lp <- fit$linear.predictors
  own <- py()$model_based_xci(arr(d$time), arr(d$event), arr(d$sex), arr(lp),
                              linear_predictor = arr(lp), groups = labels(c("male", "female")))
  expect_same_frame(mb$cells, py_df(own$to_frame()), tolerance = 1e-10)
  expect_equal(mb$tau, max(d$time[d$event]))
})

test_that("the formula interface with linear_predictor = and baseline = (colon)", {
  skip_without_python()
  d <- colon_data()
  d <- d[d$etype == 2, ]
  fit <- survival::coxph(Surv(time, status) ~ nodes + differ + age, data = d)
  d$lp <- fit$linear.predictors
  mb <- model_based_xci(Surv(time, status) ~ lp, group = ~ rx, data = d, linear_predictor = lp,
                        tau = 2000)
  expected <- py()$model_based_xci(arr(d$time), arr(d$event), arr(d$rx), arr(d$lp),
                                   linear_predictor = arr(d$lp), tau = 2000,
                                   groups = labels(levels(d$rx)))
  expect_same_frame(mb$cells, py_df(expected$to_frame()))
  bh <- survival::basehaz(fit, centered = TRUE)
  mb2 <- model_based_xci(Surv(time, status) ~ lp, group = ~ rx, data = d, tau = 2000,
                         baseline = data.frame(time = bh$time, cumhaz = bh$hazard))
  expected2 <- py()$model_based_xci(arr(d$time), arr(d$event), arr(d$rx), arr(d$lp),
                                    linear_predictor = arr(d$lp), tau = 2000,
                                    baseline = reticulate::tuple(arr(bh$time), arr(bh$hazard)),
                                    groups = labels(levels(d$rx)))
  expect_same_frame(mb2$cells, py_df(expected2$to_frame()))
})

test_that("model_based_xci refuses strata, weights and delayed entry", {
  skip_without_python()
  d <- na.omit(lung_data()[, c("time", "status", "event", "sex", "age", "ph.ecog", "inst")])
  fit <- survival::coxph(Surv(time, status) ~ age + strata(ph.ecog), data = d)
  expect_error(model_based_xci(fit, data = d, group = ~ sex, tau = 365), "strata")
  fit <- survival::coxph(Surv(time, status) ~ age, data = d, weights = rep(2, nrow(d)))
  expect_error(model_based_xci(fit, data = d, group = ~ sex, tau = 365), "weights")
})
