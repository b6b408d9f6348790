"""Exceptions and warnings raised by survfair."""

from __future__ import annotations

import warnings

import numpy as np


class InvalidParameterError(ValueError, TypeError):
    """Raised when an argument of a public function has the wrong type or value.

    Both a ``ValueError`` and a ``TypeError`` (as scikit-learn's ``InvalidParameterError``), so that
    code catching either keeps working; the message starts with the argument's name.

    Attributes
    ----------
    parameter : str
        The name of the argument at fault (``"confidence_level"``, ``"time"``, ...): what the
        command line maps to its option.

    Examples
    --------
    >>> import survfair
    >>> try:
    ...     survfair.xci([1, 2], [1, 0], ["a", "a"], [0.5, 0.2], confidence_level=2)
    ... except survfair.InvalidParameterError as error:
    ...     print(error.parameter)
    confidence_level
    """

    def __init__(self, message: str, *, parameter: str):
        super().__init__(message)
        self.parameter = parameter


class NoComparablePairError(ValueError):
    """Raised when the data contain no comparable pair at all, so no concordance is defined."""


class PositivityError(ValueError):
    """Raised when a censoring survival probability used as an IPCW weight is zero."""


class UndefinedXCIWarning(UserWarning):
    """Warned when one cell of the xCI matrix has no comparable pair and is therefore NaN."""


class UndefinedXAUCWarning(UndefinedXCIWarning):
    """Warned when an xAUC cell has no (positive, negative) pair, or a DeLong variance is
    undefined."""


class PositivityWarning(UserWarning):
    """Warned when a group's censoring survival K_g falls below 0.1 before tau."""


class ExcludedRowsWarning(UserWarning):
    """Warned when ``groups=`` leaves rows of other groups out of the analysis (their number)."""


class SurvfairDeprecationWarning(FutureWarning):
    """Warned once when a renamed keyword is passed by its old name (it keeps working until the
    release that removes it; docs/reference/api-changes.md lists every rename)."""


class ConvergenceError(RuntimeError):
    """Raised when a model fit did not converge and its scores must not be reported."""


class MemoryLimitError(ValueError):
    """Raised before an allocation that would not fit in the memory available.

    The message names the memory needed and the options that avoid it (fewer groups via
    ``groups=``, ``ci="bootstrap"`` or ``ci=None``). A subclass of ValueError: the request, not
    the machine, is what has to change.

    Attributes
    ----------
    what : str
        What the allocation was for.
    needed, available : int
        Bytes the allocation needs and bytes available when it was refused.
    remedies : tuple of str
        What avoids it, among ``"groups"`` (audit fewer groups), ``"bootstrap"``
        (``ci="bootstrap"``), ``"no_intervals"`` (``ci=None``), ``"fewer_resamples"``.
    """

    def __init__(
        self,
        message: str,
        *,
        what: str = "",
        needed: int = 0,
        available: int = 0,
        remedies: tuple = (),
    ):
        super().__init__(message)
        self.what, self.needed, self.available = what, int(needed), int(available)
        self.remedies = tuple(remedies)


#: Warnings and errors name at most this many items (cells, groups, rows), then a count.
MAX_LISTED = 5


def listed(items, limit: int = MAX_LISTED) -> str:
    """``"a, b, c, d, e and 12 more"``: a short enumeration for warnings that could be long."""
    items = [str(item) for item in items]
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def warn_undefined_cells(denominator, groups: tuple, stacklevel: int) -> None:
    """The one warning for xCI cells without a comparable pair (their value is NaN);
    ``stacklevel`` counts from the caller of this function."""
    empty = np.argwhere(np.asarray(denominator) == 0)
    if empty.size:
        cells = listed(f"({groups[a]!r}, {groups[b]!r})" for a, b in empty)
        warnings.warn(
            f"xCI is undefined (NaN) for cells without a comparable pair: {cells}.",
            UndefinedXCIWarning,
            stacklevel=stacklevel + 1,
        )
