"""Figures: matplotlib drawings of results, imported lazily; each returns its Axes.

``base`` holds what every figure shares (new axes, literal labels, short labels); ``figures``
the heatmaps, differences, densities, censoring curves, forest plots and xROC curves; and
``calibration`` the calibration and O/E plots. :mod:`survfair.plotting` is their public face.
"""
