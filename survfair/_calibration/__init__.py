"""The calibration family: observed against predicted risk within groups, at horizons.

``stats`` holds the per-group estimators (Kaplan-Meier and Aalen-Johansen observed risk, O/E,
the calibration slope, ICI, the Brier score and their variances); ``estimator`` validates a call
of :func:`survfair.calibration` and loops over groups and horizons; ``result`` is the
``CalibrationResult`` and its tables; ``profile`` sets a group's calibration beside its xCI cells
(:func:`survfair.fairness_profile`). It imports ``_core`` and ``_xci``.
"""
