"""Exceptions and warnings raised by survfair."""

from __future__ import annotations


class NoComparablePairError(ValueError):
    """Raised when the data contain no comparable pair at all, so no concordance is defined."""


class PositivityError(ValueError):
    """Raised when a censoring survival probability used as an IPCW weight is zero."""


class UndefinedXCIWarning(UserWarning):
    """Warned when one cell of the xCI matrix has no comparable pair and is therefore NaN."""


class PositivityWarning(UserWarning):
    """Warned when a group's censoring survival K_g falls below 0.1 before tau."""


class ConvergenceError(RuntimeError):
    """Raised when a model fit did not converge and its scores must not be reported."""
