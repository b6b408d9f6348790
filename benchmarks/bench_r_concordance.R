# Peer timing for benchmarks/bench_xci.py: R's survival::concordance, timed inside R.
#
#   Rscript benchmarks/bench_r_concordance.R data.csv repeats
#
# data.csv has columns time, event (0/1), risk (higher = earlier event). Prints the median of
# `repeats` elapsed times (seconds) of one pooled concordance, Harrell's C (reverse = TRUE: a higher
# risk predicts an earlier event), point estimate only (std.err = FALSE), then the value and the
# survival version. The file is read before the timings.
suppressPackageStartupMessages(library(survival))
args <- commandArgs(trailingOnly = TRUE)
data <- read.csv(args[[1]])
repeats <- as.integer(args[[2]])
fit <- NULL
seconds <- replicate(repeats, system.time(
  fit <<- concordance(Surv(time, event) ~ risk, data = data, reverse = TRUE, std.err = FALSE)
)[["elapsed"]])
cat(median(seconds), fit$concordance, as.character(packageVersion("survival")), "\n")
