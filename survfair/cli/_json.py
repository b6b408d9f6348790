"""JSON text of the command line with long tables written row by row, not as a dictionary per row.

``json.dumps(payload, indent=2)`` of an audit of 2,000 groups held 4 million dictionaries of cells
and as many of flagged cells, plus the encoder's pieces: 24 GB, killed before it wrote a byte. Here
the payload carries a placeholder where a long list of records goes, is encoded by ``json.dumps``
as before, and each placeholder is replaced by its table's rows, formatted column by column in
blocks of rows: the same text, byte for byte, as ``json.dumps`` of the records
(``frame.to_dict(orient="records")`` made JSON-safe), at the placeholder's indentation.
"""

from __future__ import annotations

import json
import math
import uuid
from json.encoder import encode_basestring_ascii
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .._core.results import json_safe

__all__ = ["placeholder", "dumps"]

#: Rows formatted at once (bounds the memory of the column texts).
BLOCK_ROWS = 100_000


def placeholder() -> str:
    """A string that stands for a table in a payload given to :func:`dumps`."""
    return f"@@survfair-records-{uuid.uuid4().hex}@@"


def dumps(payload: Any, tables: Mapping[str, pd.DataFrame], indent: int = 2) -> str:
    """``json.dumps(payload, indent=indent)`` in which each string ``tables`` has as a key (a
    :func:`placeholder`) is the list of that table's rows as objects: the text ``json.dumps``
    gives for ``json_safe(table.to_dict(orient="records"))`` in its place."""
    text = json.dumps(payload, indent=indent)
    for token, table in tables.items():
        quoted = json.dumps(token)
        start = text.index(quoted)
        line = text[text.rfind("\n", 0, start) + 1 : start]
        depth = len(line) - len(line.lstrip(" "))  # the spaces that open the key's line
        text = text[:start] + _records(table, depth, indent) + text[start + len(quoted) :]
    return text


def _records(table: pd.DataFrame, depth: int, indent: int) -> str:
    """The rows of ``table`` as a JSON list of objects whose opening bracket follows a key on a line
    indented by ``depth`` spaces."""
    if table.shape[0] == 0 or table.shape[1] == 0:  # to_dict gives no records without columns
        return "[]"
    item, field = " " * (depth + indent), " " * (depth + 2 * indent)
    keys = [encode_basestring_ascii(str(column)) for column in table.columns]
    template = (
        item
        + "{\n"
        + ",\n".join(f"{field}{key.replace('%', '%%')}: %s" for key in keys)
        + "\n"
        + item
        + "}"
    )
    blocks = []
    for start in range(0, table.shape[0], BLOCK_ROWS):
        part = table.iloc[start : start + BLOCK_ROWS]
        columns = [_texts(part.iloc[:, k]) for k in range(part.shape[1])]
        if any(column is None for column in columns):  # a value that is not a JSON scalar
            return _plain(table, depth, indent)
        blocks.append(",\n".join(map(template.__mod__, zip(*columns))))
    return "[\n" + ",\n".join(blocks) + "\n" + " " * depth + "]"


def _plain(table: pd.DataFrame, depth: int, indent: int) -> str:
    """The slow and general way: ``json.dumps`` of the records, re-indented."""
    text = json.dumps(json_safe(table.to_dict(orient="records")), indent=indent)
    return text.replace("\n", "\n" + " " * depth)


def _texts(column: pd.Series) -> list[str] | None:
    """Each value's JSON text as ``json.dumps`` writes it after ``to_dict`` and ``json_safe``;
    None when a value is not a scalar (a list, a mapping...)."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        values = column.to_numpy()
        texts = list(map(float.__repr__, values.tolist()))
        for k in np.flatnonzero(~np.isfinite(values)):
            texts[k] = "null"
        return texts
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return list(map(int.__repr__, column.to_numpy().tolist()))
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return ["true" if v else "false" for v in column.to_numpy().tolist()]
    texts = []
    for value in column.tolist():
        text = _scalar(json_safe(value))
        if text is None:
            return None
        texts.append(text)
    return texts


def _scalar(value: Any) -> str | None:
    """``json.dumps(value)`` of a JSON-safe scalar; None for anything else."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else None
    return None
