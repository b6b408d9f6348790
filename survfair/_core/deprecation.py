"""Renamed keywords: the old name keeps working, with one warning, until it is removed.

survfair names one concept one way everywhere (docs/reference/api-changes.md, "Renamed
keywords"): ``horizon`` for a single time point, ``adjusted_group`` for the group whose scores are
adjusted, ``coefficients`` for the weights of a contrast, ``reference_group`` for the group the
others are compared with. A function that renamed a keyword keeps the old one in its signature
with the default :data:`DEPRECATED`; :func:`renamed` resolves the two and warns once per function
and name with :class:`SurvfairDeprecationWarning` (a ``FutureWarning``, shown to users by default).
"""

from __future__ import annotations

import warnings
from typing import Any

from .exceptions import InvalidParameterError, SurvfairDeprecationWarning

__all__ = ["DEPRECATED", "REMOVED_IN", "renamed", "warn_once"]

#: The release that removes the old names.
REMOVED_IN = "0.3"


class _Deprecated:
    """The default of a renamed keyword: "not given"."""

    def __repr__(self) -> str:
        return "<deprecated>"


DEPRECATED: Any = _Deprecated()
_warned: set[tuple[str, str]] = set()


def renamed(
    function: str,
    old: str,
    new: str,
    old_value: Any,
    new_value: Any,
    default: Any = None,
    *,
    missing: str | None = None,
    stacklevel: int = 3,
) -> Any:
    """The value of keyword ``new`` of ``function``, given either as ``new`` or by its old name.

    ``old_value`` is what the caller passed as ``old`` (:data:`DEPRECATED` if nothing),
    ``new_value`` what it passed as ``new`` (``default`` if nothing). The old name warns once per
    process and function (:class:`SurvfairDeprecationWarning`, pointing at the caller with
    ``stacklevel``). ``missing`` describes a required keyword (``"its horizon: ..."``): neither
    name given is then refused.

    Raises
    ------
    TypeError
        If both names are given, or neither when ``missing`` is given.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed("f", "time", "horizon", 3.0, None)
    3.0
    >>> str(caught[0].message)
    'f(time=...) is deprecated: use f(horizon=...); time= will be removed in survfair 0.3.'
    """
    if old_value is DEPRECATED:
        if missing is not None and new_value is default:
            raise InvalidParameterError(f"{function}() missing {missing}.", parameter=new)
        return new_value
    if new_value is not default:
        raise InvalidParameterError(
            f"{function}() got both {new}= and its old name {old}=; pass {new}= only.",
            parameter=new,
        )
    warn_once(
        (function, old),
        f"{function}({old}=...) is deprecated: use {function}({new}=...); {old}= will be "
        f"removed in survfair {REMOVED_IN}.",
        stacklevel=stacklevel,
    )
    return old_value


def warn_once(key: tuple, message: str, *, stacklevel: int = 2) -> None:
    """Warn ``message`` (:class:`SurvfairDeprecationWarning`) the first time ``key`` is seen in
    this process; ``stacklevel`` as :func:`warnings.warn` would take it in the caller of this
    function (2: the caller's caller)."""
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(message, SurvfairDeprecationWarning, stacklevel=stacklevel + 1)
