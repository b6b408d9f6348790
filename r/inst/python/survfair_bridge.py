"""Glue between survfair's Python results and R (used by the R package through reticulate).

Nothing here computes a statistic: every number comes from survfair's public functions. This
module only (1) records the warnings a call raises, so that R can raise them as R warnings, and
(2) hands pandas tables to R column by column as Python lists, which reticulate converts without
rounding (a Python float is a float64: float -> double, bit for bit). Lists, not numpy arrays: the
reticulate of Debian 12 (1.28) cannot convert numpy 2 arrays, and lists need no numpy on either side.
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
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, tuple):
        return "|".join(str(v) for v in value)
    return str(value)


def columns(frame: pd.DataFrame) -> dict:
    """A DataFrame (index dropped) as {name: (kind, values, missing)} for R.

    kind is "double", "integer", "logical" or "character"; values and missing are lists (NaN stays
    NaN in doubles, where it is part of the value).
    """
    out = {}
    for name in frame.columns:
        column = frame[name]
        key = _label(name)
        missing = column.isna().to_numpy(dtype=bool)
        if pd.api.types.is_bool_dtype(column.dtype) and not missing.any():
            out[key] = ("logical", column.to_numpy(dtype=bool), missing)
        elif pd.api.types.is_integer_dtype(column.dtype) and not missing.any():
            values = column.to_numpy(dtype=np.int64)
            if values.size == 0 or np.abs(values).max() < 2**31 - 1:
                out[key] = ("integer", values.astype(np.int32), missing)
            else:
                out[key] = ("double", values.astype(np.float64), missing)
        elif pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(
            column.dtype
        ):
            out[key] = ("double", column.to_numpy(dtype=np.float64, na_value=np.nan), missing)
        else:
            labels = [_label(v) for v in column.tolist()]
            if all(isinstance(v, (bool, np.bool_)) or v is None for v in column.tolist()):
                values = np.array([bool(v) if v is not None else False for v in column.tolist()])
                out[key] = ("logical", values, missing)
                continue
            values = np.array(["" if v is None else v for v in labels], dtype=object).astype(str)
            out[key] = ("character", values, np.array([v is None for v in labels], dtype=bool))
    return {key: (kind, np.asarray(values).tolist(), np.asarray(miss).tolist())
            for key, (kind, values, miss) in out.items()}


def labels(values) -> list:
    """Group labels as strings (R character)."""
    return [_label(v) for v in values]


def frame_of_matrix(matrix: pd.DataFrame) -> dict:
    """A G x G DataFrame (rows a, columns b) as values in row-major order and its labels."""
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
    """R's column-major vector of a nrow x ncol matrix as a C-ordered float array."""
    return np.ascontiguousarray(
        np.asarray(values, dtype=np.float64).reshape((ncol, nrow)).T
    )
