"""Old location of ``survfair simulate``, now :mod:`survfair.cli._simulate`.

Kept only until tests/test_simulate.py imports from :mod:`survfair.cli`; then delete this file.
:func:`run` prints errors as one line and returns the exit code, as it used to.
"""

from __future__ import annotations

import argparse

from .cli import _simulate
from .cli._errors import guarded

__all__ = ["register", "run"]


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand; its handler is :func:`run`."""
    parser = _simulate.register(subparsers)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the subcommand with one-line errors; returns the exit code."""
    return guarded(lambda: _simulate.run(args), debug=getattr(args, "debug", False))
