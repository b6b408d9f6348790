# xauc() against survfair's Python xauc().

test_that("xauc equals Python (lung, a logical outcome)", {
  skip_without_python()
  d <- lung_data()
  d$died <- d$time <= 365 & d$event
  xa <- xauc(died ~ risk, group = ~ sex, data = d)
  expected <- py()$xauc(arr(d$died), arr(d$sex), arr(d$risk), positive = TRUE,
                        groups = labels(c("male", "female")))
  expect_same_frame(xa$cells, py_df(expected$to_frame()))
  expect_equal(xa$overall$value, py_num(expected$auc), tolerance = 1e-12)
  e <- py_df(py()$delta_between(expected, "female", "male")$to_frame())
  expect_equal(delta_between(xa, "female", "male")$value, e$value, tolerance = 1e-12)
  expect_same_frame(pairwise_deltas(xa), py_df(py()$pairwise_deltas(expected)))
})

test_that("xauc: 0/1 and factor outcomes, positive = the second level (colon)", {
  skip_without_python()
  d <- colon_data()
  d <- d[d$etype == 2, ]
  d$dead <- factor(ifelse(d$status == 1, "dead", "alive"), c("alive", "dead"))
  a <- xauc(dead ~ risk, group = ~ rx, data = d)
  b <- xauc(status ~ risk, group = ~ rx, data = d)
  expect_identical(a$positive, "dead")
  expect_equal(a$cells[-(1:2)], b$cells[-(1:2)], tolerance = 1e-12)
  expected <- py()$xauc(arr(d$status), arr(d$rx), arr(d$risk), positive = 1,
                        groups = labels(levels(d$rx)))
  expect_same_frame(b$cells, py_df(expected$to_frame()))
})
