"""The binary family: xAUC, its DeLong inference, xROC curves, xAUC(t) and the score adjustments.

``xauc`` estimates the cross-group AUC matrix of a binary outcome and ``summaries`` the balanced
xAUC, group metrics and the AUC decomposition; ``delong`` holds the DeLong placement values and
covariances they share; ``xroc`` draws the cross-group ROC curves; ``xauc_t`` is the cumulative
/ dynamic xAUC at horizons of censored data; ``adjustment`` fits the post-processing adjustments
of the xAUC paper. It imports ``_core`` and ``Estimate`` from ``_xci.summaries``.
"""
