"""Group encoding: the labels of the group argument become the codes of every matrix.

Labels are factorised as given (1 and "1" stay distinct; booleans mixed with numbers are refused),
several group columns become intersectional labels keyed by the tuple of their parts, ``groups=``
chooses and orders the analysed groups, and distinct labels that would print the same are
refused, never merged. :func:`label_array` turns the codes back into labels.
"""

from __future__ import annotations

import numbers
import unicodedata
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .exceptions import InvalidParameterError
from .options import _plain, describe_rows

__all__ = ["encode_groups", "label_array"]


GROUP_SEPARATOR = "|"


def _escape_label(text: str) -> str:
    """One part of an intersectional name: backslash and the separator escaped, so that the
    joined name of two distinct tuples can only coincide if two parts print the same."""
    return text.replace("\\", "\\\\").replace(GROUP_SEPARATOR, "\\" + GROUP_SEPARATOR)


def _refuse_text_collisions(
    labels: Sequence, texts: Sequence[str], what: str, rows: Callable[[int], str] | None = None
) -> None:
    """Refuse distinct labels (or label tuples) that would print as the same text.

    Texts are compared after Unicode normalisation (NFC): "é" typed as one code point (NFC) and
    as "e" + a combining accent (NFD, as some file systems and keyboards give it) are distinct
    strings that every table and terminal shows the same. They are refused, naming both labels by
    their code points and, with ``rows`` (label position -> rows), the rows of each; they are never
    merged, because survfair does not change a label the user gave (a merge would move rows between
    groups without a word) -- the user normalises the column
    (``unicodedata.normalize("NFC", ...)``).
    """
    seen: dict[str, tuple[int, Any, str]] = {}
    for k, (label, text) in enumerate(zip(labels, texts)):
        key = unicodedata.normalize("NFC", text)
        if key in seen:
            first, other, other_text = seen[key]
            if text != other_text:  # the same letters in two Unicode normal forms
                where = (lambda j: f" ({rows(j)})") if rows is not None else (lambda j: "")
                raise InvalidParameterError(
                    f"group: the distinct {what} {ascii(other)}{where(first)} and "
                    f"{ascii(label)}{where(k)} differ only in Unicode normalisation and both "
                    f"print as {text!r}; normalise the labels first "
                    "(unicodedata.normalize('NFC', label)) so that they form one group, or "
                    "rename one.",
                    parameter="group",
                )
            raise InvalidParameterError(
                f"group: the distinct {what} {other!r} and {label!r} both print as {text!r}, so "
                "tables, reports and the command line could not tell them apart; make the labels "
                "of each group column one type (e.g. all strings) or rename them.",
                parameter="group",
            )
        seen[key] = (k, label, text)


def _combine_group_columns(frame: pd.DataFrame) -> pd.Series:
    """Intersectional labels "F|Black" from several group columns, keyed by the tuple of labels.

    Each column is factorised on its own values (so 1 and "1" stay distinct), the rows are keyed
    by the tuple of their codes, and only then is each distinct tuple given its display name: the
    parts joined by "|" with "|" and backslash escaped inside a part. Two distinct tuples never
    merge; if two would still print the same (a part 1 and a part "1"), a ValueError says so.
    """
    missing = frame.isna().any(axis=1).to_numpy()
    if missing.any():
        raise InvalidParameterError(
            f"group contains missing labels at {describe_rows(missing, frame.index)}.",
            parameter="group",
        )
    key = np.zeros(len(frame), dtype=np.int64)
    for column in frame.columns:
        codes, uniques = pd.factorize(frame[column].to_numpy(), sort=False)
        # mixed radix kept below n by re-factorising after every column (no overflow)
        key, _ = pd.factorize(key * len(uniques) + codes, sort=False)
    first_rows = pd.Series(np.arange(len(frame))).groupby(key).first().to_numpy()
    tuples = [
        tuple(_plain(frame.iloc[row, k]) for k in range(frame.shape[1])) for row in first_rows
    ]
    names = [GROUP_SEPARATOR.join(_escape_label(str(part)) for part in combo) for combo in tuples]
    _refuse_text_collisions(
        tuples, names, "label combinations", rows=lambda k: describe_rows(key == k, frame.index)
    )
    return pd.Series(
        np.asarray(names, dtype=object)[key],
        index=frame.index,
        name=GROUP_SEPARATOR.join(map(str, frame.columns)),
    )


def _refuse_booleans_among_numbers(labels: np.ndarray) -> None:
    """True == 1 and False == 0 for Python, so hashing would merge such groups silently."""
    if labels.dtype != object or not pd.api.types.infer_dtype(labels, skipna=True).startswith(
        "mixed"
    ):
        return  # one C pass; the per-row look at types below is only for mixed columns
    types = set(pd.Series(labels).map(type).unique())
    if any(issubclass(t, (bool, np.bool_)) for t in types) and any(
        issubclass(t, numbers.Number) and not issubclass(t, (bool, np.bool_)) for t in types
    ):
        raise InvalidParameterError(
            "group mixes booleans and numbers, which Python counts as equal (True == 1), so two "
            "groups would merge; make the labels one type.",
            parameter="group",
        )


def encode_groups(
    labels: np.ndarray, groups: Sequence | None, index: pd.Index | None
) -> tuple[np.ndarray, tuple, np.ndarray]:
    """Return (codes, group labels, keep mask); codes are -1 where the row is not analysed."""
    _refuse_booleans_among_numbers(labels)
    try:  # factorize the array as it is: converting numbers to objects first is slow at 10^7 rows
        codes, uniques = pd.factorize(labels, sort=True)
    except TypeError:  # labels of mixed, unorderable types keep first-appearance order
        codes, uniques = pd.factorize(labels, sort=False)
    missing = codes < 0
    if missing.any():
        raise InvalidParameterError(
            f"group contains missing labels at {describe_rows(missing, index)}.", parameter="group"
        )
    uniques = [label.item() if isinstance(label, np.generic) else label for label in uniques]
    _refuse_text_collisions(
        uniques,
        [str(label) for label in uniques],
        "labels",
        rows=lambda k: describe_rows(codes == k, index),
    )
    present = uniques
    if groups is None:
        chosen = present
    else:
        try:
            chosen = list(groups)
        except TypeError:
            raise InvalidParameterError(
                f"groups must be a sequence of group labels, got a {type(groups).__name__}.",
                parameter="groups",
            ) from None
        if len(chosen) == 0:
            raise InvalidParameterError("groups must name at least one group.", parameter="groups")
        if len(set(chosen)) != len(chosen):
            raise InvalidParameterError(
                f"groups contains duplicate labels: {chosen}.", parameter="groups"
            )
        absent = [g for g in chosen if g not in present]
        if absent:
            raise InvalidParameterError(
                f"groups: labels {absent} do not occur in group (labels present: {present}).",
                parameter="groups",
            )
    position = {label: k for k, label in enumerate(chosen)}
    # int32 codes: they index G groups, and at 10^7 rows 4 bytes a row matter
    remap = np.array([position.get(label, -1) for label in uniques], dtype=np.int32)
    new_codes = remap[codes]
    return new_codes, tuple(chosen), new_codes >= 0


def label_array(labels: Sequence) -> np.ndarray:
    """A 1-D object array of group labels; ``np.array`` would make tuple labels (a group given
    as a Series of tuples) a 2-D array."""
    out = np.empty(len(labels), dtype=object)
    for k, value in enumerate(labels):
        out[k] = value
    return out
