"""How a p-value is written for a reader, one rule for every layer.

The presentation layer (:mod:`survfair._present.format`) re-exports it; results below that layer
(the paired comparison's table) write their p-values with it too, so a p-value that underflows to
0 reads ``< 0.001`` everywhere, never ``0`` or ``0.0``.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MISSING", "finite_number", "p_value_text"]

#: What is shown for an undefined number (NaN)
MISSING = "–"


def finite_number(value: Any) -> bool:
    """Whether ``value`` reads as a finite float (None, text and NaN do not)."""
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def p_value_text(value: Any, n_resamples: int | None = None, at_floor: bool | None = None) -> str:
    """A p-value as a reader expects it.

    Two significant digits (``0.043``, ``0.21``), ``< 0.001`` below 0.001. A bootstrap p-value
    at its resolution floor is a bound, shown as ``<= p``: with ``at_floor`` (no replicate crossed
    the null, :func:`survfair._xci.summaries.deltas_p_at_floor`; BCa's bound can be above 2/(B+1),
    e.g. 0.029 at B = 199), or with ``n_resamples`` when the value is at most 2/(B+1)
    (``<= 0.002`` for B = 999), because a smaller p-value cannot be resolved from B replicates.
    An adjusted p-value of a bound is a bound too.

    >>> p_value_text(0.04321), p_value_text(0.00002), p_value_text(0.002, n_resamples=999)
    ('0.043', '< 0.001', '<= 0.002 (bootstrap floor)')
    >>> p_value_text(0.0291, n_resamples=199, at_floor=True)
    '<= 0.029 (bootstrap floor)'
    """
    if not finite_number(value):
        return MISSING
    p = float(value)
    if at_floor:
        return f"<= {p:.2g} (bootstrap floor)"
    if n_resamples and at_floor is None:  # not known from the replicates: the percentile floor
        floor = 2 / (n_resamples + 1)
        if p <= floor * (1 + 1e-9):
            return f"<= {floor:.2g} (bootstrap floor)"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.2g}" if p < 0.1 else f"{p:.2f}"
