"""Shared command-line handling of the examples (not part of the survfair package)."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path


def parse_args(description: str, argv=None, extra=None):
    """``--quick`` and ``--out DIR`` (default: the current directory), plus ``extra(parser)``'s
    options."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick", action="store_true", help="small setting (CI): fewer rows / trees"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="folder for figures and reports (created if missing; default: the current directory)",
    )
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    warnings.simplefilter("default")
    return args


def show(title: str, frame, digits: int = 4) -> None:
    import pandas as pd

    print(f"\n== {title} ==")
    with pd.option_context(
        "display.float_format",
        f"{{:.{digits}f}}".format,
        "display.width",
        200,
        "display.max_columns",
        40,
    ):
        print(frame)
