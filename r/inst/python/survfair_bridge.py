"""Glue between survfair's Python results and R, used by the R package through reticulate.

Nothing here computes a statistic: every number comes from survfair's public functions. This
module only (1) records the warnings a call raises, so that R can raise them as R warnings, and
(2) hands pandas tables to R column by column as Python lists, which reticulate converts without
rounding (a Python float is a float64: float -> double, bit for bit). Lists, not numpy arrays:
the reticulate of Debian 12 (1.28) cannot convert numpy 2 arrays; lists need numpy on neither side.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd


def call(function, args, kwargs):
    """``function(*args, **kwargs)`` and the warnings it raised, as ``(result, [text, ...])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **(kwargs or {}))
    texts = []
    for item in caught:
        if issubclass(item.category, (DeprecationWarning, PendingDeprecationWarning)):
            continue
        text = f"{item.category.__name__}: {item.message}"
        if text not in texts:
            texts.append(text)
    return result, texts


def _label(value):
    """A label as a string (tuples of intersectional labels joined by "|"), None if missing."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, tuple):
        return "|".join(str(v) for v in value)
    return str(value)


def _column(column: pd.Series) -> tuple[str, list, list]:
    """(kind, values, missing) of one column; kind is R's type."""
    missing = column.isna().to_numpy(dtype=bool)
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype) and not missing.any():
        return "logical", column.to_numpy(dtype=bool).tolist(), missing.tolist()
    if pd.api.types.is_integer_dtype(dtype) and not missing.any():
        values = column.to_numpy(dtype=np.int64)
        if values.size and np.abs(values).max() >= 2**31 - 1:
            return "double", values.astype(np.float64).tolist(), missing.tolist()
        return "integer", values.tolist(), missing.tolist()
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        return "double", values.tolist(), missing.tolist()
    items = column.tolist()
    if all(isinstance(v, (bool, np.bool_)) or v is None for v in items):
        return "logical", [bool(v) if v is not None else False for v in items], missing.tolist()
    labels = [_label(v) for v in items]
    return "character", ["" if v is None else v for v in labels], [v is None for v in labels]


def columns(frame: pd.DataFrame) -> dict:
    """A DataFrame (index dropped) as {name: (kind, values, missing)} of lists for R.

    kind is "double", "integer", "logical" or "character"; NaN stays NaN in doubles, where it is
    part of the value.
    """
    return {_label(name): _column(frame[name]) for name in frame.columns}


def labels(values) -> list:
    """Group labels as strings (R character)."""
    return [_label(v) for v in values]


def frame_of_matrix(matrix: pd.DataFrame) -> dict:
    """A G x G DataFrame (rows a, columns b) as its values in row-major order and its labels."""
    return {
        "values": matrix.to_numpy(dtype=np.float64, na_value=np.nan).ravel().tolist(),
        "rows": labels(matrix.index),
        "cols": labels(matrix.columns),
    }


def as_array(values, dtype=None):
    """An R vector (a list, or a scalar when of length 1) as a 1-D numpy array."""
    return np.atleast_1d(np.asarray(values, dtype=dtype))


def as_list(values) -> list:
    """A numpy array (any shape, flattened in C order) or a sequence as a list for R."""
    return np.asarray(values).ravel().tolist()


def as_matrix(values, nrow: int, ncol: int):
    """R's column-major vector of an nrow x ncol matrix as a C-ordered float array."""
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64).reshape((ncol, nrow)).T)
