"""The xCI family: the estimator, its summaries, paired comparisons, the scorer and the Dask route.

``estimator`` validates a call of :func:`survfair.xci`, counts pairs through ``_core`` and builds
an ``XCIResult`` with its inference; ``summaries`` holds every number read off a result
(Δwithin, Δbetween, min xCI, utilities, imparity, the decomposition, ``Estimate``); ``paired``
compares two models on the same people (:func:`survfair.compare_xci`); ``scorer`` makes xCI a
scikit-learn model-selection criterion; ``on_dask`` counts pairs of a Dask DataFrame partition by
partition. It imports only ``_core``.
"""
