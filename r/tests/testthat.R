library(testthat)
library(survfair)

test_check("survfair")
