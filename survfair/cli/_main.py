"""The ``survfair`` command: the top-level parser and :func:`main`."""

from __future__ import annotations

import shlex
import sys
from typing import Sequence

from . import _audit, _mitigate, _simulate
from ._errors import EXIT_CODES_HELP, EXIT_OK, guarded
from ._options import Parser, add_debug_option

__all__ = ["build_parser", "main"]

EPILOG = f"""\
examples:
  survfair audit
  survfair audit --data cohort.csv --time time --event event --group sex --risk risk --tau 3650
  survfair mitigate --data cohort.csv --time time --event event --group sex --risk risk --output adjusted.csv
  survfair simulate --quick
  survfair audit --help          the options of one command

{EXIT_CODES_HELP}
"""


def _version() -> str:
    from .. import __version__

    return f"survfair {__version__}"


def build_parser() -> Parser:
    """The argument parser of the ``survfair`` command with its subcommands."""
    parser = Parser(prog="survfair", description="Cross-group ranking fairness audits of risk scores.",
                    epilog=EPILOG)
    parser.add_argument("--version", action="version", version=_version(),
                        help="print the version and exit")
    add_debug_option(parser, top_level=True)
    subparsers = parser.add_subparsers(dest="command", parser_class=Parser, metavar="{audit,simulate,mitigate}")
    _audit.register(subparsers)
    _simulate.register(subparsers)
    _mitigate.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``survfair`` command; returns the exit code.

    Errors print one line on stderr (a traceback only with ``--debug``); exit codes: 0 success,
    1 internal error (a bug), 2 bad input or options.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    parser = build_parser()

    def run() -> int:
        try:
            args = parser.parse_args(arguments)
        except SystemExit as stop:  # --help and --version print, then exit
            return stop.code if isinstance(stop.code, int) else EXIT_OK
        if args.command is None:
            parser.print_help()
            return EXIT_OK
        args.command_line = shlex.join(["survfair", *arguments])  # for the reports' provenance
        return args.handler(args)

    return guarded(run, debug=debug)
