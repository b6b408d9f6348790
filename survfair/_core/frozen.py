"""Deep immutability of survfair's result objects: one mechanism shared by every frozen result.

``@dataclass(frozen=True)`` only forbids rebinding an attribute; the arrays, dicts and
DataFrames a result holds could still be changed in place, and every later export
(``to_frame``, ``to_dict``, plots) would then report the changed numbers. :func:`frozen_result`
replaces ``@dataclass(frozen=True)`` on a result class and makes it deep:

* a DataFrame or Series field is stored once, as a private deep copy, and every read of the
  attribute returns a fresh copy (mutating what a result hands out never reaches the result);
* an ndarray field becomes read-only (a read-only copy when the array given is writeable, so
  the caller's own array is never locked), including arrays nested in tuples and dicts;
* a dict field becomes a :class:`FrozenDict` of frozen values (a ``dict`` that refuses changes:
  ``json.dumps``, ``copy.deepcopy``, pickle and ``dataclasses.asdict`` work as on a dict);
* copying (``copy.copy`` / ``copy.deepcopy``) and pickling rebuild the object through its
  constructor, so the read-only flags (which NumPy does not pickle) come back after a round trip.

Fields whose name starts with an underscore are internal and left as they are. A class whose
arrays are large and made by survfair itself can name them in ``_freeze_in_place`` (a class
attribute): those are made read-only without a copy.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["frozen_result", "freeze", "thaw", "FrozenCachedProperty", "FrozenDict", "stored"]

_PANDAS = (pd.DataFrame, pd.Series)


def freeze(value: Any, *, copy: bool = True) -> Any:
    """The value made read-only, recursively.

    Writeable ndarrays become read-only (copied first unless ``copy=False``), dicts become
    :class:`FrozenDict`, tuples (and named tuples) are rebuilt with frozen members,
    pandas objects are deep-copied; anything else (numbers, strings, other frozen results) is
    returned unchanged.
    """
    if isinstance(value, np.ndarray):
        if not value.flags.writeable:
            return value
        out = np.array(value, copy=True) if copy else value
        out.flags.writeable = False
        return out
    if isinstance(value, (dict, types.MappingProxyType)):
        return FrozenDict({key: freeze(item, copy=copy) for key, item in value.items()})
    if isinstance(value, tuple):
        items = [freeze(item, copy=copy) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, _PANDAS):
        return value.copy(deep=True)
    return value


def thaw(value: Any) -> Any:
    """The inverse of :func:`freeze` for containers (read-only mappings back to dicts), so that
    a frozen object's state can be pickled (``mappingproxy`` cannot) and fed to its constructor."""
    if isinstance(value, (FrozenDict, types.MappingProxyType)):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        items = [thaw(item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


class FrozenDict(dict):
    """A ``dict`` that refuses changes: the mapping fields of frozen results.

    A subclass of ``dict`` (not a ``mappingproxy``) so that what users do with a dict still works
    on it -- ``json.dumps``, ``copy.deepcopy``, pickle, ``dataclasses.asdict``,
    ``dict(...)`` -- while item assignment, deletion and the mutating methods raise ``TypeError``.
    """

    def _refuse(self, *args, **kwargs):
        raise TypeError("a result's mapping is read-only; copy it with dict(...) to change it.")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return FrozenDict, (dict(self),)

    def __deepcopy__(self, memo):
        import copy

        return FrozenDict(copy.deepcopy(dict(self), memo))


def _equal(first: Any, second: Any) -> bool:
    """Field equality for result objects: pandas objects by ``equals``, arrays elementwise and NaN
    equal to NaN, dataclasses, sequences and mappings member by member, anything else by ``==``
    (a DataFrame's or an array's ``==`` is not a bool)."""
    if first is second:
        return True
    if isinstance(first, _PANDAS) or isinstance(second, _PANDAS):
        return type(first) is type(second) and first.equals(second)
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        try:
            return bool(np.array_equal(first, second, equal_nan=True))
        except TypeError:  # object arrays: NaN-aware equality is not defined
            return bool(np.array_equal(first, second))
    if dataclasses.is_dataclass(first) and not isinstance(first, type):
        return type(first) is type(second) and all(
            _equal(getattr(first, f.name), getattr(second, f.name))
            for f in dataclasses.fields(first)
            if f.compare
        )
    if isinstance(first, (tuple, list)) and isinstance(second, (tuple, list)):
        return (
            type(first) is type(second)
            and len(first) == len(second)
            and all(_equal(a, b) for a, b in zip(first, second))
        )
    if isinstance(first, Mapping) and isinstance(second, Mapping):
        return first.keys() == second.keys() and all(_equal(first[k], second[k]) for k in first)
    if (
        isinstance(first, float)
        and isinstance(second, float)
        and first != first
        and second != second
    ):
        return True  # NaN
    try:
        return bool(first == second)
    except (TypeError, ValueError):
        return False


class _PandasField:
    """Data descriptor of a DataFrame/Series field: stores a private deep copy in the instance
    ``__dict__`` under the field's own name and hands out a fresh deep copy on every read."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name]
        return value.copy(deep=True) if isinstance(value, _PANDAS) else value

    def __set__(self, obj, value):
        # reached only through object.__setattr__ (the dataclass __init__); the frozen
        # class's own __setattr__ refuses ``result.table = ...``
        obj.__dict__[self.name] = value.copy(deep=True) if isinstance(value, _PANDAS) else value


def stored(obj: Any, name: str) -> Any:
    """The stored (not copied) value of a pandas field, for the result's own read-only use."""
    return obj.__dict__[name]


class FrozenCachedProperty(functools.cached_property):
    """:func:`functools.cached_property` whose computed value is frozen with :func:`freeze`
    (arrays made read-only in place: the value is computed by survfair and nobody else holds it).
    Not for pandas values: a cached value is read straight from the instance afterwards, so
    it could not be copied on each read."""

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = freeze(super().__get__(instance, owner), copy=False)
        instance.__dict__[self.attrname] = value
        return value


def _rebuild(cls, kwargs):
    return cls(**kwargs)


def frozen_result(cls):
    """Class decorator replacing ``@dataclass(frozen=True)`` with a deeply immutable dataclass.

    See the module docstring for the rules. The class keeps its fields, constructor and
    ``dataclasses`` behaviour; ``__reduce__`` rebuilds it from its constructor arguments.
    """
    cls = dataclasses.dataclass(frozen=True)(cls)
    fields = [f for f in dataclasses.fields(cls) if not f.name.startswith("_")]
    pandas_fields = [
        f.name for f in fields if any(t in str(f.type) for t in ("DataFrame", "Series"))
    ]
    in_place = set(getattr(cls, "_freeze_in_place", ()))
    plain = [f.name for f in fields if f.name not in pandas_fields]
    for name in pandas_fields:
        setattr(cls, name, _PandasField(name))
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        state = self.__dict__
        for name in plain:
            if name in state:
                state[name] = freeze(state[name], copy=name not in in_place)

    def __reduce__(self):
        kwargs = {f.name: thaw(self.__dict__[f.name]) for f in dataclasses.fields(self) if f.init}
        return _rebuild, (type(self), kwargs)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(
            _equal(self.__dict__.get(f.name), other.__dict__.get(f.name))
            for f in dataclasses.fields(self)
            if f.compare
        )

    cls.__init__ = __init__
    cls.__reduce__ = __reduce__
    cls.__eq__ = __eq__  # the dataclass's __hash__ stays (set when the class was made)
    cls.__frozen_result__ = True
    return cls
