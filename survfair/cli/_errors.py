"""The one error type of the command line, its exit codes, and one-line warnings and errors.

Every failure of a command ends as one line on stderr, ``survfair: error: <message>``, and a
documented exit code:

* 0 -- success;
* 1 -- an unexpected internal error (a bug in survfair): the line ends with a hint to report it
  with ``--debug`` output;
* 2 -- bad input or options: argparse errors, the library's ``ValueError``/``TypeError``, missing or
  unreadable files, output paths refused before computing, a request too large for memory;
* 130 -- interrupted (Ctrl-C).

No traceback is printed unless ``--debug`` is given. Warnings raised while a command runs are
printed as one line each, ``survfair: warning: <first line of the message>``.
"""

from __future__ import annotations

import contextlib
import re
import sys
import traceback
import warnings
from typing import Callable, Iterator, Mapping

from .._core.exceptions import ConvergenceError, MemoryLimitError
from .._core.memory import format_bytes
from .._present.terminal import terminal_safe

__all__ = [
    "CLIError",
    "EXIT_OK",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "EXIT_CODES_HELP",
    "guarded",
    "library_errors",
    "one_line",
    "option_words",
    "print_warning",
    "terminal_safe",
]

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: The exit codes as the help epilogue and docs/cli.md state them.
EXIT_CODES_HELP = (
    "exit codes:\n"
    "  0    success\n"
    "  1    unexpected internal error: a bug in survfair; rerun with --debug and report the "
    "output\n"
    "  2    bad input or options (unknown option, missing column or file, invalid values, an "
    "output\n"
    "       path refused before computing, not enough memory for the request)\n"
    "  130  interrupted (Ctrl-C)"
)

#: Longest message printed on one line; longer ones are cut with " ...".
MAX_LINE = 300

_BUG_HINT = "this is a bug in survfair; please report it with --debug output"
_MEMORY_ADVICE = "audit fewer groups (--groups), or use --ci bootstrap or --ci none"
_MEMORY_HINT = f"not enough memory for this request; {_MEMORY_ADVICE}"
#: The library's remedies (``MemoryLimitError.remedies``) in terms of the command's options.
_REMEDY_OPTIONS = {
    "groups": "audit fewer groups (--groups)",
    "bootstrap": "use --ci bootstrap",
    "no_intervals": "use --ci none",
    "fewer_resamples": "use fewer --n-resamples",
}


class CLIError(Exception):
    """Bad command-line input or a refused request: printed as one line, exit code ``exit_code``.

    Parameters
    ----------
    message : str
        One sentence naming the option or column at fault.
    exit_code : int, default=2
        The process exit code.
    """

    def __init__(self, message: str, exit_code: int = EXIT_USAGE):
        super().__init__(message)
        self.exit_code = exit_code


def one_line(message: object, limit: int = MAX_LINE) -> str:
    """The first non-empty line of ``message``, cut to ``limit`` characters."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    text = lines[0] if lines else ""
    if len(text) > limit:
        text = text[: limit - 4].rstrip() + " ..."
    return text


def print_warning(message: object) -> None:
    """Print ``survfair: warning: <first line>`` on stderr."""
    print(f"survfair: warning: {terminal_safe(option_words(one_line(message)))}", file=sys.stderr)


def _print_error(message: str) -> None:
    print(f"survfair: error: {terminal_safe(message)}", file=sys.stderr)


#: The library's comparison prefixes errors of one entry with ``models['name']: ``; on the command
#: line the entry is the --risk column of that name.
_MODEL_PREFIX = re.compile(r"^models\[(?P<quote>['\"])(?P<name>.*?)(?P=quote)\]: ")


#: The library's setting arguments and the options that give them, for error messages.
_SETTING_OPTIONS = {
    "confidence_level": "--confidence-level",
    "n_resamples": "--n-resamples",
    "random_state": "--seed",
    "n_jobs": "--n-jobs",
    "min_events": "--min-events",
    "min_pairs": "--min-pairs",
    "adjust": "--adjust",
    "tau": "--tau",
    "times": "--horizon",
    "positive": "--positive",
    "alpha": "--alpha",
    "beta": "--beta",
    "reference_group": "--reference",
    "objective": "--objective",
    "stratify": "--stratify",
    "bootstrap_method": "--bootstrap-method",
    "fit_on": "--fit-column",
    "cause": "--cause",
    "controls": "--controls",
}
#: ``cause=3`` / ``cause=`` inside a library message: the option ``--cause 3`` / ``--cause``.
_CAUSE_ARGUMENT = re.compile(r"\bcause=(?P<code>-?\d+)?")
#: The keyword arguments a library message may spell out (``ci='bootstrap'``), by the option that
#: gives them on the command line.
_KEYWORD_OPTIONS = {
    "ci": "--ci",
    "method": "--method",
    "censoring": "--censoring",
    "censoring_covariates": "--censoring-covariates",
    **{
        name: option
        for name, option in _SETTING_OPTIONS.items()
        if name not in ("cause", "times", "positive", "alpha", "beta", "controls")
    },
}
#: ``ci='bootstrap'``, ``ci=None``, ``n_resamples=999`` inside a library message or note
_KEYWORD_ARGUMENT = re.compile(
    r"(?<![\w.-])(?P<name>" + "|".join(sorted(_KEYWORD_OPTIONS, key=len, reverse=True)) + r")="
    r"(?P<value>'[^']*'|\"[^\"]*\"|[\w.+-]+)?"
)


def _option_spelling(match: re.Match) -> str:
    option = _KEYWORD_OPTIONS[match.group("name")]
    value = match.group("value")
    if value is None:
        return option
    value = value.strip("'\"")
    return f"{option} {'none' if value == 'None' else value}"


def option_words(text: str) -> str:
    """A library message or note in the command line's words: ``ci='bootstrap'`` is
    ``--ci bootstrap``, ``ci=None`` is ``--ci none``, ``n_resamples=999`` is ``--n-resamples 999``
    (the arguments the command line sets by an option; others are kept as written).

    >>> option_words("use ci='analytic', or ci=None; n_resamples= 199")
    'use --ci analytic, or --ci none; --n-resamples 199'
    """
    text = _KEYWORD_ARGUMENT.sub(_option_spelling, text)
    return _CAUSE_ARGUMENT.sub(
        lambda m: "--cause" + (f" {m.group('code')}" if m.group("code") else ""), text
    )


def _library_message(error: BaseException, columns: Mapping[str, str] | None = None) -> str:
    """The message of a library ValueError/TypeError in terms of the command's options.

    The argument at fault is the error's ``parameter`` (every rejection of an argument is an
    :class:`~survfair.InvalidParameterError` naming it); an error without one (no comparable pair,
    a positivity failure...) is shown as it is. ``columns`` maps the library's argument names
    (``time``, ``event``, ``group``, ``risk``, ``y``, ``score``) to the option and column that gave
    them (``"--time 't'"``); a message about one of them is prefixed with it. A setting's name at
    the start of the message becomes its option (``--confidence-level``). The ``models['name']:``
    prefix of the library's comparison goes; a message about that risk starts with
    ``--risk 'name'`` instead.
    """
    text = one_line(error)
    columns = dict(columns or {})
    match = _MODEL_PREFIX.match(text)
    if match:
        text = text[match.end() :]
        columns["risk"] = f"--risk {match.group('name')!r}"
    parameter = getattr(error, "parameter", None)  # an InvalidParameterError names it: no guessing
    if parameter in columns:
        text = f"{columns[parameter]}: {text}"
    elif parameter in _SETTING_OPTIONS and text.startswith(parameter):
        text = _SETTING_OPTIONS[parameter] + text[len(parameter) :]  # the option, not the argument
    return option_words(text) or "invalid input"


@contextlib.contextmanager
def library_errors(columns: Mapping[str, str]) -> Iterator[None]:
    """Turn the library's ValueError/TypeError raised in the block into a :class:`CLIError` whose
    message names the option and column (see :func:`_library_message`)."""
    try:
        yield
    except MemoryLimitError:
        raise
    except (ValueError, TypeError) as error:
        raise CLIError(_library_message(error, columns)) from error


def _memory_message(error: MemoryLimitError) -> str:
    """What the library refused to allocate, with the advice in terms of the command's options."""
    if not error.what:  # raised without its fields: keep the library's own sentence
        return one_line(error)
    advice = (
        ", or ".join(_REMEDY_OPTIONS[r] for r in error.remedies if r in _REMEDY_OPTIONS)
        or _MEMORY_ADVICE
    )
    return one_line(
        f"{error.what} would need {format_bytes(error.needed)} of memory, more than is available "
        f"({format_bytes(error.available)}); {advice}"
    )


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print_warning(message)


@contextlib.contextmanager
def one_line_warnings(debug: bool = False) -> Iterator[None]:
    """Print warnings as ``survfair: warning: ...`` lines while the block runs (Python's own format
    with ``debug``); the previous ``warnings.showwarning`` is restored afterwards.

    The warning filters are left as they are (a filter that turns a warning into an error still
    does so, and the error is then reported like any other).
    """
    with warnings.catch_warnings():
        if not debug:
            warnings.showwarning = _show_warning
        yield


def guarded(run: Callable[[], int], *, debug: bool = False) -> int:
    """Call ``run()`` with one-line warnings; turn every exception into one line and an exit code.

    With ``debug`` the traceback is printed before the line.
    """
    try:
        with one_line_warnings(debug):
            return run()
    except CLIError as error:
        return _fail(error.exit_code, one_line(error) or "invalid input", debug)
    except MemoryError:
        return _fail(EXIT_USAGE, _MEMORY_HINT, debug)
    except MemoryLimitError as error:
        return _fail(EXIT_USAGE, _memory_message(error), debug)
    except (ValueError, TypeError, ConvergenceError) as error:
        return _fail(EXIT_USAGE, _library_message(error), debug)
    except OSError as error:
        detail = one_line(error.strerror or error)
        where = f": {error.filename}" if error.filename else ""
        return _fail(EXIT_USAGE, f"{detail}{where}", debug)
    except KeyboardInterrupt:
        _print_error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - the one place that turns bugs into a message
        detail = one_line(error)
        return _fail(
            EXIT_INTERNAL,
            f"unexpected internal error{': ' + detail if detail else ''}; {_BUG_HINT}",
            debug,
        )


def _fail(code: int, message: str, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    _print_error(message)
    return code
