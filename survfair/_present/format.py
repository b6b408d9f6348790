"""Numbers for people: percentages, p-values, intervals (the report, the findings, the CLI).

One place decides how a number is shown to a reader, so the report, the findings sentences and
the command line agree: probabilities as percentages with one decimal, p-values with two
significant digits and ``< 0.001`` below that, a bootstrap p-value at its resolution floor as
``<= 2/(B+1)``, NaN as an en dash.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core.numbers import MISSING, finite_number, p_value_text

__all__ = [
    "percent",
    "p_value_text",
    "p_phrase",
    "number",
    "interval_text",
    "cell_text",
    "statistic_text",
    "MISSING",
    "NO_INTERVAL",
]

#: What is shown instead of the zero-width interval of an estimate with standard error 0
NO_INTERVAL = "no interval: standard error 0"


def percent(value: Any, digits: int = 1) -> str:
    """``0.8412`` -> ``"84.1%"``; NaN -> ``"–"``.

    >>> percent(0.8412), percent(float("nan"))
    ('84.1%', '–')
    """
    return f"{100 * float(value):.{digits}f}%" if finite_number(value) else MISSING


def number(value: Any, digits: int = 3) -> str:
    """A number with ``digits`` decimals (``-0.000`` shown as ``0.000``); NaN -> ``"–"``.

    >>> number(0.12345), number(-0.0001), number(float("nan"))
    ('0.123', '0.000', '–')
    """
    if not finite_number(value):
        return MISSING
    text = f"{float(value):.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def p_phrase(value: Any, n_resamples: int | None = None, at_floor: bool | None = None) -> str:
    """A p-value in a sentence: ``"p = 0.043"`` or ``"p < 0.001"`` (:func:`p_value_text`).

    >>> p_phrase(0.04321), p_phrase(0.00002)
    ('p = 0.043', 'p < 0.001')
    """
    text = p_value_text(value, n_resamples, at_floor)
    return f"p {text}" if text[0] in "<>" else f"p = {text}"


def interval_text(low: Any, high: Any, *, as_percent: bool = False, digits: int = 3) -> str:
    """``"[0.712, 0.801]"`` or, with ``as_percent``, ``"[71.2%, 80.1%]"``; ``"–"`` if undefined.

    >>> interval_text(0.7123, 0.8011), interval_text(0.7123, 0.8011, as_percent=True)
    ('[0.712, 0.801]', '[71.2%, 80.1%]')
    """
    if not (finite_number(low) and finite_number(high)):
        return MISSING
    show = percent if as_percent else (lambda v: number(v, digits))
    return f"[{show(low)}, {show(high)}]"


def cell_text(value: Any, low: Any, high: Any, no_variance: bool = False) -> str:
    """A cell in percent with its interval: ``"84.1% [80.2%, 87.6%]"``; ``"84.1%"`` without one.

    A cell with standard error 0 (``no_variance``: every pair ranked the same way) has a
    zero-width interval that is no measure of precision; it is shown with :data:`NO_INTERVAL`.

    >>> cell_text(0.8412, 0.802, 0.876), cell_text(1.0, 1.0, 1.0, no_variance=True)
    ('84.1% [80.2%, 87.6%]', '100.0% (no interval: standard error 0)')
    """
    if no_variance and finite_number(value):
        return f"{percent(value)} ({NO_INTERVAL})"
    interval = interval_text(low, high, as_percent=True)
    return percent(value) if interval == MISSING else f"{percent(value)} {interval}"


def statistic_text(value: Any) -> str:
    """A test statistic: two decimals, thousands separated (``"26,750.24"``); NaN -> ``"–"``.

    >>> statistic_text(3.14159), statistic_text(26750.2447)
    ('3.14', '26,750.24')
    """
    return f"{float(value):,.2f}" if finite_number(value) else MISSING


def table_value(value: Any) -> str:
    """A value in a table cell: integers whole, floats to 4 decimals (1 from 1,000, 3 significant
    digits below 0.001), NaN as an en dash, text as it is."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):d}"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if float(value).is_integer() and abs(value) < 1e15:
            return f"{int(value):d}"
        if abs(value) >= 1e3:
            return f"{value:.1f}"
        if abs(value) < 1e-3:
            return f"{value:.3g}"
        return f"{value:.4f}"
    return str(value)


def findings_heading(name: str) -> str:
    """The heading of a model's findings in a report ("Findings: name", or "Findings")."""
    return f"Findings: {name}" if name else "Findings"
