# Where survfair overlaps survival::concordance (one group; Harrell's C; ymax; weights; clusters;
# counting-process data), the same numbers; where the two differ by design, the difference is
# asserted (and documented in vignette("survfair") and docs/r.md).

one_group_xci <- function(formula, data, ...) {
  data$all <- "all"
  xci(formula, group = ~ all, data = data, method = "naive", ...)
}

test_that("Harrell's C and its counts equal concordance(reverse = TRUE) (lung)", {
  skip_without_python()
  d <- lung_data()
  res <- one_group_xci(Surv(time, status) ~ risk, d)
  cc <- survival::concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE)
  expect_equal(res$matrix[1, 1], unname(cc$concordance), tolerance = 1e-12)
  cells <- res$cells
  expect_identical(c(cells$concordant, cells$discordant, cells$tied_risk),
                   as.integer(cc$count[c("concordant", "discordant", "tied.x")]))
  expect_identical(cells$comparable, as.integer(sum(cc$count[c("concordant", "discordant", "tied.x")])))
  # status coded 1/2 (lung), 0/1 and logical: the same
  d$s01 <- d$status - 1L
  expect_identical(one_group_xci(Surv(time, s01) ~ risk, d)$cells, cells)
  expect_identical(one_group_xci(Surv(time, event) ~ risk, d)$cells, cells)
})

test_that("truncation: tau just above ymax equals concordance(ymax =); at ymax it differs", {
  skip_without_python()
  d <- lung_data()
  ymax <- sort(d$time[d$event])[40]  # an event time
  expect_true(any(d$time == ymax & d$event))
  cc <- survival::concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE, ymax = ymax)
  above <- one_group_xci(Surv(time, status) ~ risk, d, tau = next_up(ymax))
  expect_equal(above$matrix[1, 1], unname(cc$concordance), tolerance = 1e-12)
  # the weighted sums are the truncated counts; the integer counts are not truncated (survfair
  # counts every comparable pair, as scikit-survival does)
  k <- cc$count
  expect_equal(above$cells$numerator, unname(k["concordant"] + k["tied.x"] / 2), tolerance = 1e-12)
  expect_equal(above$cells$denominator, unname(k["concordant"] + k["discordant"] + k["tied.x"]),
               tolerance = 1e-12)
  # at exactly ymax, survfair stops before tau: the events at ymax are left out
  at <- one_group_xci(Surv(time, status) ~ risk, d, tau = ymax)
  expect_false(isTRUE(all.equal(at$matrix[1, 1], unname(cc$concordance), tolerance = 1e-12)))
  expect_lt(at$cells$denominator, above$cells$denominator)
})

test_that("case weights: the same point estimate as concordance(weights =) (lung)", {
  skip_without_python()
  d <- lung_data()
  d <- d[!is.na(d$wt.loss), ]
  d$w <- d$wt.loss - min(d$wt.loss) + 1
  res <- one_group_xci(Surv(time, status) ~ risk, d, weights = w)
  cc <- survival::concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE, weights = w)
  expect_equal(res$matrix[1, 1], unname(cc$concordance), tolerance = 1e-12)
  # standard errors: different estimators (survival: infinitesimal jackknife of its own; survfair:
  # U-statistic influence functions), within 2% of each other here
  expect_equal(res$se[1, 1], sqrt(unname(cc$var)), tolerance = 0.02)
})

test_that("clusters: the same point estimate as concordance(cluster =) (colon, two rows per id)", {
  skip_without_python()
  d <- colon_data()
  res <- one_group_xci(Surv(time, status) ~ risk, d, cluster = id)
  cc <- survival::concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE, cluster = id)
  expect_equal(res$matrix[1, 1], unname(cc$concordance), tolerance = 1e-12)
  expect_equal(res$se[1, 1], sqrt(unname(cc$var)), tolerance = 0.02)
  # clustering widens the interval over the independent-rows one
  plain <- one_group_xci(Surv(time, status) ~ risk, d)
  expect_gt(res$se[1, 1], plain$se[1, 1])
})

test_that("delayed entry: Surv(start, stop, status) equals concordance with tied_tol = 0 (flchain)", {
  skip_without_python()
  d <- flchain_data()
  cc <- survival::concordance(Surv(start, stop, death) ~ risk, data = d, reverse = TRUE)
  # survival ties risks by exact equality; survfair within tied_tol (1e-8): kappa + lambda has sums
  # that differ by a rounding error only, so the two agree with tied_tol = 0
  res <- one_group_xci(Surv(start, stop, death) ~ risk, d, tied_tol = 0)
  expect_equal(res$matrix[1, 1], unname(cc$concordance), tolerance = 1e-12)
  expect_identical(c(res$cells$concordant, res$cells$discordant, res$cells$tied_risk),
                   as.integer(cc$count[c("concordant", "discordant", "tied.x")]))
  default <- one_group_xci(Surv(start, stop, death) ~ risk, d)
  expect_gt(default$cells$tied_risk, res$cells$tied_risk)
})

test_that("IPCW: survival's timewt = \"n/G2\" is another weighting than survfair's", {
  skip_without_python()
  d <- lung_data()
  d$all <- "all"
  res <- xci(Surv(time, status) ~ risk, group = ~ all, data = d, censoring = "pooled")
  cc <- survival::concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE,
                              timewt = "n/G2")
  # close, not equal: survfair weighs a pair 1 / K(t_i)^2 with scikit-survival's right-continuous
  # censoring Kaplan-Meier (events leave the risk set before censorings at a tied time)
  expect_equal(res$matrix[1, 1], unname(cc$concordance), tolerance = 1e-3)
  expect_false(isTRUE(all.equal(res$matrix[1, 1], unname(cc$concordance), tolerance = 1e-8)))
})
