# Base-graphics plots of the results (ggplot2 versions through autoplot() when ggplot2 is installed).

.heat_colours <- function(n = 101L) {
  grDevices::hcl.colors(n, "Blue-Red 3", rev = TRUE)
}

.plot_matrix <- function(m, low, high, main, xlab, ylab, digits = 2, zlim = c(0, 1), ...) {
  G <- nrow(m)
  op <- graphics::par(mar = c(4.5, 5.5, 3.5, 1) + 0.1)
  on.exit(graphics::par(op))
  # rows a from top to bottom, columns b from left to right
  graphics::image(x = seq_len(G), y = seq_len(G), z = t(m[rev(seq_len(G)), , drop = FALSE]),
                  zlim = zlim, col = .heat_colours(), axes = FALSE, xlab = xlab, ylab = ylab,
                  main = main, ...)
  graphics::axis(1, at = seq_len(G), labels = colnames(m), tick = FALSE)
  graphics::axis(2, at = seq_len(G), labels = rev(rownames(m)), las = 1, tick = FALSE)
  label <- formatC(m, digits = digits, format = "f")
  if (!is.null(low)) {
    label <- paste0(label, "\n[", formatC(low, digits = digits, format = "f"), ", ",
                    formatC(high, digits = digits, format = "f"), "]")
  }
  label[is.na(m)] <- "NA"
  label <- matrix(label, G)
  graphics::text(x = col(label), y = G + 1L - row(label), labels = label,
                 cex = if (G > 4) 0.7 else 0.9)
  graphics::box()
  invisible(NULL)
}

.plot_forest <- function(labels, value, low, high, main, xlab, ref = NULL, ...) {
  k <- length(value)
  op <- graphics::par(mar = c(4.5, max(6, max(nchar(labels)) * 0.55), 3.5, 1) + 0.1)
  on.exit(graphics::par(op))
  range <- range(c(low, high, value, ref), na.rm = TRUE)
  graphics::plot(value, rev(seq_len(k)), xlim = range, ylim = c(0.5, k + 0.5), pch = 19,
                 yaxt = "n", xlab = xlab, ylab = "", main = main, ...)
  graphics::segments(low, rev(seq_len(k)), high, rev(seq_len(k)))
  graphics::axis(2, at = rev(seq_len(k)), labels = labels, las = 1, tick = FALSE)
  if (!is.null(ref)) graphics::abline(v = ref, lty = 2, col = "grey40")
  invisible(NULL)
}

#' Plot a survfair result
#'
#' Base graphics: the xCI (or xAUC) matrix as a heatmap on one fixed 0-1 colour
#' scale with every cell's value and interval (`type = "matrix"`), or the
#' cells and the pairwise differences as a forest plot (`type = "forest"`);
#' a calibration result as observed against predicted risk per group and
#' horizon; a model-based result as observed and model-based cells side by
#' side. With \pkg{ggplot2} installed, `ggplot2::autoplot()` draws the same as
#' a ggplot.
#'
#' @param x A result of [xci()], [xauc()], [calibration()] or
#'   [model_based_xci()].
#' @param type `"matrix"` or `"forest"`.
#' @param main Title.
#' @param ... Passed to the base graphics functions.
#' @return `x`, invisibly.
#' @examplesIf survfair_available()
#' library(survival)
#' lung2 <- transform(lung, sex = factor(sex, 1:2, c("male", "female")))
#' res <- xci(Surv(time, status) ~ age, group = ~ sex, data = lung2, tau = 365)
#' plot(res)
#' plot(res, type = "forest")
#' @name plot.survfair
NULL

#' @rdname plot.survfair
#' @export
plot.survfair_xci <- function(x, type = c("matrix", "forest"), main = NULL, ...) {
  type <- match.arg(type)
  has_ci <- !all(is.na(x$conf.low))
  if (type == "matrix") {
    .plot_matrix(x$matrix, if (has_ci) x$conf.low, if (has_ci) x$conf.high,
                 main = main %||% "xCI", xlab = "b: the member who outlived",
                 ylab = "a: group of the earlier event", ...)
  } else {
    cells <- x$cells
    d <- if (length(x$groups) > 1L) pairwise_deltas(x) else NULL
    labels <- c(paste0("xCI(", cells$a, ", ", cells$b, ")"),
                if (!is.null(d)) paste0(d$summary, "(", d$a, ", ", d$b, ")"))
    value <- c(cells$xci, d$value)
    low <- c(cells$ci_low, d$ci_low)
    high <- c(cells$ci_high, d$ci_high)
    .plot_forest(labels, value, low, high, main = main %||% "xCI cells and differences",
                 xlab = "estimate", ref = if (!is.null(d)) 0, ...)
  }
  invisible(x)
}

#' @rdname plot.survfair
#' @export
plot.survfair_xauc <- function(x, type = c("matrix", "forest"), main = NULL, ...) {
  type <- match.arg(type)
  if (type == "matrix") {
    .plot_matrix(x$matrix, x$conf.low, x$conf.high, main = main %||% "xAUC",
                 xlab = "b: group of the negative", ylab = "a: group of the positive", ...)
  } else {
    c <- x$cells
    .plot_forest(paste0("xAUC(", c$a, ", ", c$b, ")"), c$xauc, c$ci_low, c$ci_high,
                 main = main %||% "xAUC cells", xlab = "xAUC", ref = 0.5, ...)
  }
  invisible(x)
}

#' @rdname plot.survfair
#' @export
plot.survfair_model_based <- function(x, main = NULL, ...) {
  c <- x$cells
  labels <- paste0("(", c$a, ", ", c$b, ")")
  k <- nrow(c)
  lo <- c$observed - stats::qnorm(0.5 + x$conf.level / 2) * c$observed_se
  hi <- c$observed + stats::qnorm(0.5 + x$conf.level / 2) * c$observed_se
  op <- graphics::par(mar = c(4.5, 7, 3.5, 1) + 0.1)
  on.exit(graphics::par(op))
  range <- range(c(c$observed, c$model_based, lo, hi), na.rm = TRUE)
  graphics::plot(c$observed, rev(seq_len(k)), xlim = range, ylim = c(0.5, k + 0.5), pch = 19,
                 yaxt = "n", xlab = "xCI", ylab = "", main = main %||% "observed and model-based xCI",
                 ...)
  graphics::segments(lo, rev(seq_len(k)), hi, rev(seq_len(k)))
  graphics::points(c$model_based, rev(seq_len(k)), pch = 4, col = "firebrick", cex = 1.3)
  graphics::axis(2, at = rev(seq_len(k)), labels = labels, las = 1, tick = FALSE)
  graphics::legend("bottomright", legend = c("observed (Wald interval)", "model-based"),
                   pch = c(19, 4), col = c("black", "firebrick"), bty = "n", cex = 0.8)
  invisible(x)
}

#' @rdname plot.survfair
#' @export
plot.survfair_calibration <- function(x, main = NULL, ...) {
  s <- x$summary
  s <- s[!is.na(s$time), , drop = FALSE]
  groups <- x$groups
  colours <- grDevices::hcl.colors(max(3L, length(groups)), "Dark 3")[seq_along(groups)]
  shapes <- c(19, 17, 15, 18, 8, 4)[(seq_along(x$times) - 1L) %% 6L + 1L]
  lim <- range(c(0, s$expected_risk, s$observed_risk, s$observed_risk_ci_low,
                 s$observed_risk_ci_high), na.rm = TRUE)
  graphics::plot(NA, xlim = lim, ylim = lim, xlab = "mean predicted risk",
                 ylab = "observed risk (Kaplan-Meier)", main = main %||% "calibration by group", ...)
  graphics::abline(0, 1, lty = 2, col = "grey50")
  for (k in seq_len(nrow(s))) {
    col <- colours[match(s$group[[k]], groups)]
    pch <- shapes[match(s$time[[k]], x$times)]
    if (!is.null(s$observed_risk_ci_low)) {
      graphics::segments(s$expected_risk[[k]], s$observed_risk_ci_low[[k]], s$expected_risk[[k]],
                         s$observed_risk_ci_high[[k]], col = col)
    }
    graphics::points(s$expected_risk[[k]], s$observed_risk[[k]], col = col, pch = pch)
  }
  graphics::legend("topleft", bty = "n", cex = 0.8,
                   legend = c(groups, paste("t =", format(x$times))),
                   col = c(colours, rep("black", length(x$times))),
                   pch = c(rep(15, length(groups)), shapes))
  invisible(x)
}

# ggplot2 (registered as methods of ggplot2::autoplot when ggplot2 is installed).

#' @rdname plot.survfair
#' @param object A result (for `autoplot()`).
#' @exportS3Method ggplot2::autoplot
autoplot.survfair_xci <- function(object, ...) {
  .gg_matrix(object$matrix, "b: the member who outlived", "a: group of the earlier event", "xCI")
}

#' @rdname plot.survfair
#' @exportS3Method ggplot2::autoplot
autoplot.survfair_xauc <- function(object, ...) {
  .gg_matrix(object$matrix, "b: group of the negative", "a: group of the positive", "xAUC")
}

.gg_matrix <- function(m, xlab, ylab, fill) {
  d <- data.frame(a = factor(rep(rownames(m), times = ncol(m)), levels = rev(rownames(m))),
                  b = factor(rep(colnames(m), each = nrow(m)), levels = colnames(m)),
                  value = as.vector(m))
  d$label <- formatC(d$value, digits = 2, format = "f")
  ggplot2::ggplot(d, ggplot2::aes(x = .data$b, y = .data$a, fill = .data$value)) +
    ggplot2::geom_tile(colour = "white") +
    ggplot2::geom_text(ggplot2::aes(label = .data$label)) +
    ggplot2::scale_fill_gradientn(colours = .heat_colours(), limits = c(0, 1), name = fill) +
    ggplot2::labs(x = xlab, y = ylab) +
    ggplot2::theme_minimal()
}
