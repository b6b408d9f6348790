"""Models: fitting and scoring them, comparing them, and what their own predictions imply.

``fitting`` fits the supported survival models with checks and turns them into risk scores;
``comparison`` audits several models on the same people (:func:`survfair.compare`);
``model_based`` computes the model-based reference, the xCI or xAUC a model would have if its
own predicted survival were true, with ``model_based_engine`` (its pair sums) and
``model_based_result`` (``ModelBasedResult``, excess asymmetry). It imports the families below.
"""
