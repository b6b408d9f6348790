"""Old location of the binary-audit rendering, now :mod:`survfair.cli._binary`.

Kept only until tests/test_xauc.py imports from :mod:`survfair.cli`; then delete this file.
Here errors of the command line are ``ValueError`` as they used to be.
"""

from __future__ import annotations

import argparse

import pandas as pd

from .cli import _binary
from .cli._errors import CLIError
from .cli._binary import add_binary_arguments

__all__ = ["add_binary_arguments", "run_binary_audit", "horizon_table"]


def run_binary_audit(args: argparse.Namespace, frame: pd.DataFrame) -> str:
    """:func:`survfair.cli._binary.run_binary_audit`, raising ``ValueError`` for bad options."""
    try:
        return _binary.run_binary_audit(args, frame)
    except CLIError as error:
        raise ValueError(str(error)) from None


def horizon_table(args: argparse.Namespace, frame: pd.DataFrame) -> str:
    """:func:`survfair.cli._binary.horizon_table`."""
    return _binary.horizon_table(args, frame)
