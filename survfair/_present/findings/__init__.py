"""Findings: the plain-language sentences of an audit, generated from the numbers.

``ranking`` reads an xCI or xAUC result (and a model-based reference), ``calibration`` a
``CalibrationResult``, ``horizons`` an ``XAUCtResult``. Every sentence says only what its
interval and adjusted p-value support, and is tested on known truths in both directions.
"""
