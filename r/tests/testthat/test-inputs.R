# The R interface: formulas, Surv types, groups, missing values, dates, errors.

test_that("na.fail (the default) names the rows; na.omit drops them and says so", {
  skip_without_python()
  d <- survival::lung
  d$risk <- d$ph.ecog + d$age / 100
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d),
               "missing values \\(NA\\) in `risk`, rows 14 \\(1 of 228\\)")
  rownames(d) <- paste0("patient", seq_len(nrow(d)))
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d), "rows patient14")
  d$sex[3] <- NA
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d),
               "`risk`, `sex`, rows patient3, patient14")
  res <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, na.action = na.omit)
  expect_identical(res$n, 226L)
  expect_identical(names(res$na.action), c("patient3", "patient14"))
  expect_output(print(res), "2 omitted")
  expect_identical(xci(Surv(time, status) ~ risk, group = ~ sex, data = d,
                       na.action = "na.exclude")$n, 226L)
})

test_that("Date, POSIXct and difftime times are refused with a clear message", {
  d <- data.frame(day = as.Date("2020-01-01") + c(5, 10, 15, 20), status = c(1, 0, 1, 1),
                  risk = c(4, 3, 2, 1), g = "a")
  expect_error(xci(Surv(day, status) ~ risk, group = ~ g, data = d), "is a Date vector")
  d$when <- as.POSIXct(d$day)
  expect_error(xci(Surv(when, status) ~ risk, group = ~ g, data = d), "POSIXct")
  d$dt <- d$day - as.Date("2020-01-01")
  expect_error(xci(Surv(dt, status) ~ risk, group = ~ g, data = d), "difftime.*as.numeric")
  expect_error(xci(Surv(as.numeric(dt), status) ~ day, group = ~ g, data = d), "`day` is a Date")
})

test_that("factor groups keep their level order; other vectors are ordered as factor()", {
  skip_without_python()
  d <- lung_data()
  d$sex2 <- factor(d$sex, c("female", "male"))
  a <- xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = 365)
  b <- xci(Surv(time, status) ~ risk, group = ~ sex2, data = d, tau = 365)
  expect_identical(a$groups, c("male", "female"))
  expect_identical(b$groups, c("female", "male"))
  expect_equal(b$matrix, a$matrix[2:1, 2:1], tolerance = 1e-12)
  d$num <- as.integer(d$sex) * 10L  # 10, 20
  n <- xci(Surv(time, status) ~ risk, group = ~ num, data = d, tau = 365)
  expect_identical(n$groups, c("10", "20"))
  # unused levels are left out
  d$sex3 <- factor(d$sex, c("male", "other", "female"))
  expect_identical(xci(Surv(time, status) ~ risk, group = ~ sex3, data = d, tau = 365)$groups,
                   c("male", "female"))
  # a vector instead of a formula
  v <- xci(Surv(time, status) ~ risk, group = d$sex, data = d, tau = 365)
  expect_identical(v$cells, a$cells)
})

test_that("intersectional labels are escaped as survfair escapes them", {
  expect_identical(survfair:::.escape_label(c("a|b", "c\\d", "e")), c("a\\|b", "c\\\\d", "e"))
})

test_that("formula and argument errors", {
  skip_without_python()
  d <- lung_data()
  expect_error(xci(time ~ risk, group = ~ sex, data = d), "Surv")
  expect_error(xci(Surv(time, status) ~ risk + age, group = ~ sex, data = d), "one risk score")
  expect_error(xci(Surv(time, status) ~ sex, group = ~ sex, data = d), "numeric risk score")
  expect_error(xci(Surv(time, status) ~ risk, data = d), "`group` is required")
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tua = 3),
               "unknown argument: tua")
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d, conf.level = 2),
               "conf.level")
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d, groups = "x"),
               "no rows with \"x\"")
  expect_error(xci("x"), "takes a formula")
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d, cause = 1), "mstate")
  # survfair's own validation, as an R error with its message
  expect_error(xci(Surv(time, status) ~ risk, group = ~ sex, data = d, tau = -1), "tau")
})

test_that("competing risks need cause = one of the states", {
  skip_without_python()
  d <- flchain_data()
  expect_error(xci(Surv(futime, cause, type = "mstate") ~ risk, group = ~ sex, data = d),
               "\"circulatory\", \"other\"")
  expect_error(xci(Surv(futime, cause, type = "mstate") ~ risk, group = ~ sex, data = d,
                   cause = "cancer"), "not a state")
  expect_error(xci(Surv(futime, cause, type = "mstate") ~ risk, group = ~ sex, data = d,
                   cause = 3), "position")
})

test_that("Python warnings become R warnings", {
  skip_without_python()
  d <- lung_data()
  # a group whose members are all censored: its row of cells has no comparable pair
  d$tiny <- ifelse(seq_len(nrow(d)) %in% which(!d$event)[1:3], "censored", "rest")
  expect_warning(xci(Surv(time, status) ~ risk, group = ~ tiny, data = d, method = "naive"),
                 "UndefinedXCIWarning: .*censored")
})
