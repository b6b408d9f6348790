"""``survfair simulate``: the simulation studies of Wang et al. (2026) from the command line.

A thin consumer of :mod:`survfair.simulate`: :func:`register` adds the subcommand to an
argparse parser, :func:`run` executes it (errors are raised as :class:`CLIError`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ._design_file import DESIGN_EXAMPLE, OUTPUT_FILES, run_design_file
from ._errors import CLIError
from ._io import check_output_folder
from ._options import add_debug_option

__all__ = ["register", "run"]

STUDIES = ("fig1", "ipcw", "all")
#: --quick settings: (fig1 grid, fig1 n, fig1 reps, ipcw n, ipcw reps)
_QUICK = ((0.2, 0.6, 0.8, 1.2), 200, 8, (300,), 20)

EXAMPLES = """\
examples:
  survfair simulate --quick
      a smoke run in seconds
  survfair simulate --study fig1 --n 1000 --reps 200 --output-dir results/
  survfair simulate --design study.toml --output-dir results/
      your own design (PH or AFT, group-specific censoring) and study; print a template with
      survfair simulate --design-template
"""


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand to ``subparsers`` (from ``ArgumentParser.add_subparsers``).

    The parser's default ``handler`` is :func:`run`.
    """
    parser = subparsers.add_parser(
        "simulate",
        help="run the log-normal simulation studies (Figure 1; IPCW vs naive bias)",
        description=(
            "Section 5.1 study of Wang et al. (2026): Monte-Carlo xCI against the exact closed "
            "form and its normal approximation over a grid of beta1_hat (Figure 1); and the "
            "bias/RMSE of naive and IPCW xCI under group-specific censoring against the exact "
            "truncated truth."
        ),
        epilog=EXAMPLES,
    )
    parser.add_argument("--study", choices=STUDIES, default="all", help="which study to run")
    parser.add_argument(
        "--n",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="cohort size(s): fig1 uses the first, ipcw all of them "
        "(default: fig1 500, ipcw 250 1000)",
    )
    parser.add_argument(
        "--reps", type=int, default=None, help="replications (default: fig1 50, ipcw 200)"
    )
    parser.add_argument("--seed", type=int, default=2026, help="random seed")
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="directory for the CSV tables and figure1.png, created if needed "
        "(default: none, print only)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="small grid, n and reps: a smoke run in seconds"
    )
    parser.add_argument(
        "--design",
        type=Path,
        metavar="FILE.toml",
        help="run the simulation study described in a TOML file ([design]: ph_design / aft_design "
        "arguments; [study]: sizes, replications, estimators, tau, ci, seed, power = [a, b])",
    )
    parser.add_argument(
        "--design-template", action="store_true", help="print a commented design file and exit"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_debug_option(parser, top_level=False)
    parser.set_defaults(handler=run)
    return parser


def _check_args(args) -> None:
    if args.n is not None and any(v < 4 for v in args.n):
        raise CLIError(f"--n must be >= 4, got {args.n}")
    if args.reps is not None and args.reps < 2:
        raise CLIError(f"--reps must be >= 2, got {args.reps}")
    if args.seed is not None and args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    if args.output_dir is not None and args.output_dir.exists() and not args.output_dir.is_dir():
        raise CLIError(f"--output-dir {args.output_dir} exists and is not a directory")
    if (
        args.output_dir is not None
    ):  # the files written there: regular files or new (never a link, pipe, device)
        check_output_folder(args.output_dir, "--output-dir", OUTPUT_FILES)


def run(args: argparse.Namespace) -> int:
    """Run ``survfair simulate`` with parsed ``args``; print the tables; return the exit code."""
    from ..simulate import PAPER_GRID, ipcw_bias_study, plot_study, study

    _check_args(args)
    if getattr(args, "design_template", False):
        print(DESIGN_EXAMPLE, end="")
        return 0
    if getattr(args, "design", None) is not None:
        return run_design_file(
            args.design, quick=args.quick, output_dir=args.output_dir, progress=not args.no_progress
        )
    progress = not args.no_progress
    grid, fig_n, fig_reps, ipcw_n, ipcw_reps = (
        _QUICK if args.quick else (PAPER_GRID, 500, 50, (250, 1000), 200)
    )
    if args.n is not None:
        fig_n, ipcw_n = args.n[0], tuple(args.n)
    if args.reps is not None:
        fig_reps = ipcw_reps = args.reps
    out = args.output_dir
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    with pd.option_context("display.width", 160, "display.max_columns", 30, "display.precision", 4):
        if args.study in ("fig1", "all"):
            table = study(
                grid, n=fig_n, n_replications=fig_reps, random_state=args.seed, progress=progress
            )
            print(
                f"Section 5.1 / Figure 1: empirical vs closed-form xCI (n={fig_n}, reps={fig_reps})"
            )
            print(table.drop(columns=["n", "n_replications"]).to_string(index=False))
            print()
            if out is not None:
                check_output_folder(
                    out, "--output-dir", OUTPUT_FILES
                )  # again: it may have changed meanwhile
                table.to_csv(out / "figure1_table.csv", index=False)
                _save_figure(table, out / "figure1.png", plot_study)
        if args.study in ("ipcw", "all"):
            table = ipcw_bias_study(
                n=ipcw_n, n_replications=ipcw_reps, random_state=args.seed, progress=progress
            )
            print(f"Naive vs IPCW xCI under group-specific censoring (tau=4, reps={ipcw_reps})")
            shown = [
                "n",
                "censoring",
                "censored_1",
                "censored_0",
                "a",
                "b",
                "estimator",
                "truth",
                "bias",
                "sd",
                "rmse",
                "mc_se",
            ]
            print(table[shown].to_string(index=False))
            if out is not None:
                check_output_folder(out, "--output-dir", OUTPUT_FILES)
                table.to_csv(out / "ipcw_bias_table.csv", index=False)
    if out is not None:
        print(f"\nwrote tables{' and figure1.png' if args.study != 'ipcw' else ''} to {out}")
    return 0


def _save_figure(table: pd.DataFrame, path: Path, plot_study) -> None:
    """Draw Figure 1 on a pyplot-free Figure (works headless) and save it."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 7), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True)
    plot_study(table, axes=axes)
    fig.suptitle("Theoretical versus empirical xCI (Wang et al. 2026, Figure 1)")
    fig.savefig(path, dpi=120)
