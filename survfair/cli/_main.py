"""The ``survfair`` command: the top-level parser and :func:`main`."""

from __future__ import annotations

import importlib
import shlex
import sys
from typing import Sequence

from ._errors import EXIT_CODES_HELP, EXIT_OK, guarded
from ._options import Parser, add_debug_option

__all__ = ["build_parser", "main", "COMMANDS"]

EPILOG = (
    """\
examples:
  survfair audit
  survfair audit --data cohort.csv --time time --event event --group sex --risk risk --tau 3650
  survfair mitigate --data cohort.csv --time time --event event --group sex --risk risk """
    f"""--output adjusted.csv
  survfair simulate --quick
  survfair audit --help          the options of one command

{EXIT_CODES_HELP}
"""
)

#: The subcommands in the order of the help, each with its one-line help as its module's
#: ``register`` sets it (tests/test_cli.py checks that they agree). A subcommand's module (and with
#: it pandas and scipy) is imported only when that subcommand runs, so ``survfair --version``
#: and ``survfair --help`` answer at once (0.1 s instead of 1-4 s of imports).
COMMANDS = {
    "audit": "xCI audit of risk scores (flchain demo without --data)",
    "simulate": "run the log-normal simulation studies (Figure 1; IPCW vs naive bias)",
    "mitigate": (
        "post-process risk scores to close cross-group xCI gaps (group shift or monotone maps)"
    ),
}


#: The module that registers a subcommand's options, where it is not the subcommand's own: the
#: audit's parser lives apart from the audit, so ``survfair audit --help`` imports no estimator.
_REGISTRARS = {"audit": "_audit_options"}


def _version() -> str:
    from .._core.version import __version__

    return f"survfair {__version__}"


def build_parser(commands: Sequence[str] | None = None) -> Parser:
    """The argument parser of the ``survfair`` command with its subcommands.

    Parameters
    ----------
    commands : sequence of str, optional
        The subcommands whose options are registered (their modules are imported); the others get
        a placeholder that only carries their help line, which is all that ``survfair --help``
        shows. Default: every subcommand.
    """
    parser = Parser(
        prog="survfair",
        description="Cross-group ranking fairness audits of risk scores.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--version", action="version", version=_version(), help="print the version and exit"
    )
    add_debug_option(parser, top_level=True)
    subparsers = parser.add_subparsers(
        dest="command", parser_class=Parser, metavar="{audit,simulate,mitigate}"
    )
    wanted = COMMANDS if commands is None else commands
    for name, help_line in COMMANDS.items():
        if name in wanted:
            importlib.import_module(f"{__package__}.{_REGISTRARS.get(name, '_' + name)}").register(
                subparsers
            )
        else:
            subparsers.add_parser(name, help=help_line, add_help=False)
    return parser


def _handler(handler):
    """A subcommand's handler: a function, or (module, name) of this package, imported only now."""
    if isinstance(handler, tuple):
        module, name = handler
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return handler


def _named_command(arguments: Sequence[str]) -> list[str]:
    """The subcommand the arguments name (the first word that is not an option: the top level
    has no option that takes a value), as a list of at most one name."""
    for argument in arguments:
        if argument == "--":
            break
        if not argument.startswith("-"):
            return [argument] if argument in COMMANDS else []
    return []


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``survfair`` command; returns the exit code.

    Errors print one line on stderr (a traceback only with ``--debug``); exit codes: 0 success,
    1 internal error (a bug), 2 bad input or options. Only the module of the subcommand given is
    imported: ``survfair --version`` and ``survfair --help`` load neither pandas nor scipy.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments

    def run() -> int:
        parser = build_parser(_named_command(arguments))
        try:
            args = parser.parse_args(arguments)
        except SystemExit as stop:  # --help and --version print, then exit
            return stop.code if isinstance(stop.code, int) else EXIT_OK
        if args.command is None:
            parser.print_help()
            return EXIT_OK
        args.command_line = shlex.join(["survfair", *arguments])  # for the reports' provenance
        return _handler(args.handler)(args)

    return guarded(run, debug=debug)
