"""Presentation: everything a reader sees, computed from the public result objects only.

``format`` decides how a number is shown (percentages, p-values, intervals); the ``findings``
package writes the sentences (ranking, calibration, horizons); ``tables`` builds the numeric
tables that the report, the notebook and the command line all show; ``report`` writes the HTML
and Markdown report, ``notebook`` the results' HTML in Jupyter (registered with ``_core.display``
when the package is first used, so no result imports this layer); ``plots`` draws the figures
(matplotlib, imported lazily). Nothing below imports this package.
"""
