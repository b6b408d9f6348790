"""A ConfidenceInterval of a table result, laid out as the tidy rows of its to_frame().

``confidence_interval()`` of a table result returns two Series (or two before/after DataFrames)
indexed by the identifying columns; the tests compare them with ``to_frame()``'s rows, so they
read them back as the identifying columns plus ``ci_low`` / ``ci_high`` (or ``before_ci_low`` ...
``after_ci_high``), in the same order.
"""

from __future__ import annotations

import pandas as pd


def tidy(interval) -> pd.DataFrame:
    low, high = interval
    if isinstance(low, pd.Series):
        limits = {"ci_low": low.to_numpy(), "ci_high": high.to_numpy()}
    else:
        limits = {
            f"{column}_ci_{side}": frame[column].to_numpy()
            for column in low.columns
            for side, frame in (("low", low), ("high", high))
        }
    keys = low.index.to_frame(index=False)
    return pd.concat([keys, pd.DataFrame(limits)], axis=1)
