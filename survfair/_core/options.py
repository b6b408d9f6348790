"""Option tables and the scalar checks behind them: how survfair checks one argument.

Every keyword option of a public function that is a single number, flag or choice is declared in
the function's :class:`OptionTable` and checked by :func:`check_scalar` or a helper built on it
(:func:`check_tau`, :func:`check_confidence_level`, :func:`check_n_jobs`,
:func:`check_random_state`...), so the same mistake gets the same
:class:`~survfair.InvalidParameterError` and the same sentence everywhere. The words those
messages use for a value and for the rows at fault (:func:`describe_rows`) live here too, so that
the group encoding and the input checks above share them.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .exceptions import InvalidParameterError
from .parallel import capped_n_jobs

__all__ = [
    "check_tau",
    "check_confidence_level",
    "check_tied_tol",
    "check_option",
    "check_scalar",
    "check_options",
    "Option",
    "OptionTable",
    "real",
    "integer",
    "flag",
    "one_of",
    "optional",
    "by_helper",
    "instance_of",
    "text",
]


_MAX_ROWS_SHOWN = 10
#: An :class:`Option` without a natural invalid value of the right type.
NOT_GIVEN = object()


def describe_rows(mask: np.ndarray, index: pd.Index | None = None) -> str:
    """Describe the rows where ``mask`` is True: "rows [3, 8] (2 rows)"."""
    positions = np.flatnonzero(mask)
    labels = positions if index is None else np.asarray(index)[positions]
    shown = ", ".join(str(v) for v in labels[:_MAX_ROWS_SHOWN])
    more = ", ..." if positions.size > _MAX_ROWS_SHOWN else ""
    return f"rows [{shown}{more}] ({positions.size} row{'s' if positions.size != 1 else ''})"


def _check_random_state_type(random_state: Any, name: str = "random_state") -> Any:
    """:func:`check_random_state`'s refusals, without drawing from a Generator or RandomState (the
    option tables check ``random_state`` before the estimator draws from it); returns it as is."""
    if random_state is None or isinstance(
        random_state, (np.random.SeedSequence, np.random.Generator, np.random.RandomState)
    ):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InvalidParameterError(
                f"random_state must be a non-negative integer, got {random_state}.",
                parameter="random_state",
            )
        return random_state
    raise InvalidParameterError(
        "random_state must be None, an int, a numpy Generator, RandomState or SeedSequence; "
        f"got {type(random_state).__name__}.",
        parameter="random_state",
    )


def check_random_state(random_state: Any) -> np.random.SeedSequence:
    """The one ``random_state`` rule of survfair: a SeedSequence from any accepted seed.

    None gives fresh entropy (results differ between calls unless a seed is given, as in
    scikit-learn); an int >= 0, a SeedSequence, a numpy Generator or RandomState give
    reproducible streams (a Generator or RandomState is advanced by one draw).

    Raises
    ------
    InvalidParameterError
        For a negative integer (the ValueError case) or any other type, booleans included (the
        TypeError case).
    """
    _check_random_state_type(random_state)
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(0, 2**63 - 1)))
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(int(random_state.randint(0, 2**31 - 1)))
    return np.random.SeedSequence(int(random_state))


def random_generator(random_state: Any) -> np.random.Generator:
    """A numpy Generator by :func:`check_random_state`'s rule; a Generator is used as is, so a
    study drawing many cohorts from one Generator continues its stream."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(check_random_state(random_state))


def check_n_jobs(n_jobs: Any) -> int | None:
    """Validate ``n_jobs``: None or a non-zero integer (joblib's convention; -1 = every core), the
    one check behind every public function that takes it.

    Returns the value as an int (or None), capped at the cores this process may use with a warning
    (:func:`survfair._core.parallel.capped_n_jobs`). A bool, a float (even 2.0), a string or 0 is
    an :class:`InvalidParameterError` naming ``n_jobs``.
    """
    checked = check_scalar(n_jobs, "n_jobs", "integer", none=True)
    if checked == 0:
        raise InvalidParameterError(
            "n_jobs must not be 0 (1 for one job, -1 for all cores).", parameter="n_jobs"
        )
    return capped_n_jobs(checked)


def check_tau(tau: Any) -> float | None:
    """Validate the truncation time: None or a finite number > 0."""
    return check_scalar(tau, "tau", "real", low=0, closed="neither", none=True)


def check_confidence_level(confidence_level: Any) -> float:
    """Validate a confidence level: a number in (0, 1)."""
    return check_scalar(confidence_level, "confidence_level", low=0, high=1, closed="neither")


def check_tied_tol(tied_tol: Any) -> float:
    """Validate the tolerance under which two risks are tied: a finite number >= 0."""
    return check_scalar(tied_tol, "tied_tol", low=0)


def check_cause(cause: Any) -> int | None:
    """The ``cause=`` option: None, or an integer >= 1 (0 is the censoring code)."""
    if cause is None:
        return None
    if isinstance(cause, (bool, np.bool_)) or not isinstance(cause, (int, np.integer)):
        raise InvalidParameterError(
            f"cause must be an integer cause code >= 1, got {cause!r}.", parameter="cause"
        )
    if cause < 1:
        raise InvalidParameterError(
            f"cause must be >= 1 (0 is the code of a censored row), got {cause}.", parameter="cause"
        )
    return int(cause)


def argument_name(name: str) -> str:
    """The argument a name in a message stands for: ``"flags['m']"`` -> ``"flags"``,
    ``"censoring rate"`` -> ``"censoring"`` (what ``InvalidParameterError.parameter`` holds)."""
    match = re.match(r"[A-Za-z_]\w*", name)
    return match.group(0) if match else name


def check_option(value: Any, name: str, allowed: Sequence[str]) -> str:
    """Validate a string option against its allowed values."""
    if value not in allowed:
        raise InvalidParameterError(
            f"{name} must be one of {list(allowed)}, got {value!r}.", parameter=name
        )
    return value


_KINDS = ("real", "integer", "bool")
_CLOSED = {"both": ("[", "]"), "left": ("[", ")"), "right": ("(", "]"), "neither": ("(", ")")}


def check_scalar(
    value: Any,
    name: str,
    kind: str = "real",
    *,
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
    finite: bool = True,
    none: bool = False,
) -> Any:
    """The one scalar check of survfair: type, finiteness and range, one message template.

    Every option of every public function that is a single number or flag is checked here, so
    that the same mistake gets the same exception and the same sentence everywhere:
    ``"<name> must be <what>, got <value>."`` A wrong type (a string, an array, a bool where a
    number is meant) raises ``TypeError``; a value of the right type outside the allowed set
    (NaN, infinity when ``finite``, out of range) raises ``ValueError``. scikit-learn's
    ``check_scalar`` is not used because it accepts ``True`` as the integer 1 and lets NaN
    pass every range.

    Parameters
    ----------
    value : object
        The user's value.
    name : str
        The argument name used in the message.
    kind : {"real", "integer", "bool"}, default="real"
        ``"real"`` accepts any real number (returned as float), ``"integer"`` any integral
        number (returned as int), ``"bool"`` Python or numpy booleans (returned as bool).
        Booleans are never numbers.
    low, high : float, optional
        Bounds of the allowed range.
    closed : {"both", "left", "right", "neither"}, default="both"
        Which bounds belong to the range.
    finite : bool, default=True
        Refuse infinities (NaN is always refused).
    none : bool, default=False
        Accept (and return) None.

    Returns
    -------
    float, int, bool or None

    Raises
    ------
    InvalidParameterError
        (a TypeError and a ValueError, ``.parameter`` = ``name``) when ``value`` is not of
        ``kind`` (the TypeError case), or is NaN, infinite (with ``finite``), or outside the
        range (the ValueError case).

    Examples
    --------
    >>> check_scalar(0.95, "confidence_level", low=0, high=1, closed="neither")
    0.95
    >>> check_scalar(1, "n_resamples", "integer", low=2)
    Traceback (most recent call last):
    ...
    survfair._core.exceptions.InvalidParameterError: n_resamples must be an integer >= 2, got 1.
    """
    if none and value is None:
        return None
    what = _describe(kind, low, high, closed, finite, none)
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidParameterError(
                f"{name} must be {what}, got {_shown(value)}.", parameter=name
            )
        return bool(value)
    expected = numbers.Integral if kind == "integer" else numbers.Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, expected):
        raise InvalidParameterError(f"{name} must be {what}, got {_shown(value)}.", parameter=name)
    number = int(value) if kind == "integer" else float(value)
    left, right = _CLOSED[closed]
    outside = (
        (kind == "real" and (math.isnan(number) or (finite and math.isinf(number))))
        or (low is not None and (number < low or (left == "(" and number == low)))
        or (high is not None and (number > high or (right == ")" and number == high)))
    )
    if outside:
        raise InvalidParameterError(f"{name} must be {what}, got {_shown(number)}.", parameter=name)
    return number


def _describe(kind: str, low, high, closed: str, finite: bool, none: bool) -> str:
    """``"a finite number in (0, 1)"``, ``"an integer >= 2"``, ``"True or False"``..."""
    if kind not in _KINDS or closed not in _CLOSED:
        raise ValueError(f"check_scalar: unknown kind {kind!r} or closed {closed!r}.")
    if kind == "bool":
        return "True or False" + (" or None" if none else "")
    bounded = low is not None and high is not None
    what = (
        "an integer"
        if kind == "integer"
        else ("a finite number" if finite and not bounded else "a number")
    )
    left, right = _CLOSED[closed]
    if low is not None and high is not None:
        what += f" in {left}{low:g}, {high:g}{right}"
    elif low is not None:
        what += f" {'>=' if left == '[' else '>'} {low:g}"
    elif high is not None:
        what += f" {'<=' if right == ']' else '<'} {high:g}"
    return what + (" or None" if none else "")


def _shown(value: Any) -> str:
    """A number as itself, anything else by its type (an array's repr can be megabytes)."""
    if isinstance(value, (numbers.Number, np.bool_)) or value is None:
        return repr(value.item() if isinstance(value, np.generic) else value)
    return f"a {type(value).__name__}"


def _plain(value: Any) -> Any:
    """numpy scalars as Python scalars, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


class Option:
    """How one scalar option of a public function is checked: one row of its option table.

    Built by :func:`real`, :func:`integer`, :func:`flag`, :func:`one_of`, :func:`optional` or
    :func:`by_helper`, which call the helpers above (:func:`check_scalar`, :func:`check_option`,
    :func:`check_confidence_level`...), so a table gives the same messages as the calls it
    replaces.

    Parameters
    ----------
    check : callable
        ``check(value, name)`` returns the checked value or raises
        :class:`~survfair.InvalidParameterError` naming ``name``.
    what : str
        What the option accepts, for the eye (``"an integer >= 2"``).
    bad : object, optional
        A value of the right type that the check refuses (``1.5`` for a confidence level), for the
        generated test of every public function; absent when there is no natural one (a flag).
    """

    __slots__ = ("check", "what", "bad")

    def __init__(self, check: Callable[[Any, str], Any], what: str, bad: Any = NOT_GIVEN):
        self.check, self.what, self.bad = check, what, bad

    def __call__(self, value: Any, name: str) -> Any:
        return self.check(value, name)

    def __repr__(self) -> str:
        return f"Option({self.what})"


def _out_of_range(kind: str, low, high, closed: str) -> Any:
    """A value of ``kind`` outside [low, high] (the bound itself when it is excluded)."""
    left, right = _CLOSED[closed]
    if low is not None:
        return (low if left == "(" else low - 1) if kind == "real" else int(math.floor(low)) - 1
    if high is not None:
        return (high if right == ")" else high + 1) if kind == "real" else int(math.ceil(high)) + 1
    return float("nan") if kind == "real" else NOT_GIVEN


def real(
    *,
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
    finite: bool = True,
    none: bool = False,
) -> Option:
    """A real number (returned as float): :func:`check_scalar` with ``kind="real"``."""

    def check(value: Any, name: str) -> Any:
        return check_scalar(
            value, name, "real", low=low, high=high, closed=closed, finite=finite, none=none
        )

    return Option(
        check,
        _describe("real", low, high, closed, finite, none),
        _out_of_range("real", low, high, closed),
    )


def integer(
    *, low: float | None = None, high: float | None = None, closed: str = "both", none: bool = False
) -> Option:
    """An integer (returned as int): :func:`check_scalar` with ``kind="integer"``."""

    def check(value: Any, name: str) -> Any:
        return check_scalar(value, name, "integer", low=low, high=high, closed=closed, none=none)

    return Option(
        check,
        _describe("integer", low, high, closed, True, none),
        _out_of_range("integer", low, high, closed),
    )


def flag(*, none: bool = False) -> Option:
    """True or False (returned as bool): :func:`check_scalar` with ``kind="bool"``."""

    def check(value: Any, name: str) -> Any:
        return check_scalar(value, name, "bool", none=none)

    return Option(check, _describe("bool", None, None, "both", True, none))


def one_of(*allowed: Any) -> Option:
    """One of ``allowed`` (strings, and None where None is a value): :func:`check_option`."""

    def check(value: Any, name: str) -> Any:
        return check_option(value, name, allowed)

    return Option(check, f"one of {list(allowed)}", "not_an_option")


def optional(option: Option) -> Option:
    """None (left to the function: "the result's level", "no truncation"...) or ``option``, with
    ``option``'s message."""

    def check(value: Any, name: str) -> Any:
        return None if value is None else option(value, name)

    return Option(check, f"None or {option.what}", option.bad)


def instance_of(types: type | tuple, what: str) -> Option:
    """None or an instance of ``types`` (a mapping, a DataFrame, a result...), ``what`` in words."""

    def check(value: Any, name: str) -> Any:
        if value is None or isinstance(value, types):
            return value
        raise InvalidParameterError(
            f"{name} must be {what} or None, got a {type(value).__name__}.", parameter=name
        )

    return Option(check, f"{what} or None")


def text(example: str) -> Option:
    """None or a string (a unit, a label...), ``example`` shown in the message."""

    def check(value: Any, name: str) -> Any:
        if value is None or isinstance(value, str):
            return value
        raise InvalidParameterError(
            f"{name} must be a string such as {example!r} or None, got {type(value).__name__}.",
            parameter=name,
        )

    return Option(check, "a string or None")


def by_helper(helper: Callable[[Any], Any], what: str, bad: Any = NOT_GIVEN) -> Option:
    """An option with a helper of its own (``check_tau(value)``), whose message names it."""
    return Option(lambda value, name: helper(value), what, bad)


def check_options(function: str, values: Mapping[str, Any], spec: Mapping[str, Option]) -> dict:
    """Check the scalar options of one call of ``function`` against its table ``spec``.

    Parameters
    ----------
    function : str
        The public function's name.
    values : mapping
        The call's arguments by name (``locals()`` at the top of the function).
    spec : mapping of str to Option
        The function's option table.

    Returns
    -------
    dict
        The checked value of every option of ``spec`` (floats as float, integers as int...).

    Raises
    ------
    InvalidParameterError
        From the first option of ``spec`` (in its order) that is refused, naming it.
    """
    missing = [name for name in spec if name not in values]
    if missing:  # a table that names no argument of its function: a bug in survfair
        raise RuntimeError(f"{function}: the option table names unknown arguments {missing}.")
    return {name: option(values[name], name) for name, option in spec.items()}


class OptionTable:
    """The table of a public function's scalar options, declared once beside the function.

    ``_OPTIONS = OptionTable("xci", ci=one_of(...), confidence_level=CONFIDENCE_LEVEL, ...)``
    and, first thing in the function, ``options = _OPTIONS.check(locals())``.
    """

    __slots__ = ("function", "options")

    def __init__(self, function: str, **options: Option):
        self.function, self.options = function, dict(options)

    def check(self, values: Mapping[str, Any]) -> dict:
        """:func:`check_options` of the call's ``values`` against this table."""
        return check_options(self.function, values, self.options)

    def __repr__(self) -> str:
        rows = ", ".join(f"{name}={option.what}" for name, option in self.options.items())
        return f"OptionTable({self.function}: {rows})"


#: The options that recur across the public functions, each by its one helper.
CAUSE = by_helper(check_cause, "None or an integer cause code >= 1", 0)
CONFIDENCE_LEVEL = by_helper(check_confidence_level, "a number in (0, 1)", 1.5)
TAU = by_helper(check_tau, "None or a finite number > 0", -1.0)
TIED_TOL = by_helper(check_tied_tol, "a finite number >= 0", -1.0)
N_JOBS = by_helper(check_n_jobs, "None or a non-zero integer", 0)
N_RESAMPLES = integer(low=2)
RANDOM_STATE = Option(
    _check_random_state_type, "None, an int >= 0, a Generator, RandomState or SeedSequence", -1
)
PROGRESS = flag()
