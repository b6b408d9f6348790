"""The spine every family stands on: checked inputs, censoring, pair counts, inference, results.

``_core`` owns what an estimate is made of and nothing about what it means: the exceptions and
the deprecation helper; the checks of every input, in one place with errors that name the
parameter (``options``: option tables and scalar checks; ``groups``: group encoding;
``validation``: the arrays and the sample);
the immutable result machinery (``frozen``, ``results``: ``XCIResult`` and its accessors,
``intervals``: ``ConfidenceInterval`` and the Wald intervals); the Kaplan-Meier censoring curves
(``censoring``); the O(n log n) pair-count kernel (``kernel``, over the compiled extensions in
``survfair._compiled``); the influence rows and the moment engine (``influence``, ``moments``);
the bootstrap and the dispatch between intervals (``bootstrap``, ``inference``); multiplicity
(``multiplicity``); memory and progress guards; the shipped dataset loader (``datasets``).
It imports nothing from the families above it.
"""
