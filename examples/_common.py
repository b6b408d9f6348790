"""Shared command-line handling of the examples (not part of the survfair package)."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path


def parse_args(description: str):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small setting (CI): fewer rows / trees")
    parser.add_argument("--out", type=Path, default=Path("example_output"), help="folder for figures and reports")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    warnings.simplefilter("default")
    return args


def show(title: str, frame, digits: int = 4) -> None:
    import pandas as pd

    print(f"\n== {title} ==")
    with pd.option_context("display.float_format", f"{{:.{digits}f}}".format, "display.width", 200,
                           "display.max_columns", 40):
        print(frame)
