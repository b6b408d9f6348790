"""``survfair simulate --design FILE.toml``: a simulation study described in a TOML file.

A thin consumer of :func:`survfair.simulate.ph_design` / :func:`aft_design` and
:func:`survfair.simulate.coverage_study`: the file's ``[design]`` table holds their keyword
arguments, ``[study]`` the harness's. Every unknown key or bad value is a one-line error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

from ._errors import CLIError

__all__ = ["read_design_file", "run_design_file", "DESIGN_EXAMPLE"]

#: Every file ``survfair simulate`` may write to ``--output-dir``.
OUTPUT_FILES = (
    "figure1_table.csv",
    "figure1.png",
    "ipcw_bias_table.csv",
    "study.csv",
    "coverage.png",
    "power.png",
    "power.csv",
)

DESIGN_EXAMPLE = """\
# survfair simulate --design study.toml
[design]
model = "ph"                       # "ph" (baseline: exponential, weibull, gompertz) or "aft"
baseline = "weibull"               # aft: distribution = "lognormal" | "loglogistic" | "weibull"
groups = { F = 0.5, M = 0.5 }      # labels and proportions
shape = 1.5
scale = 10.0                       # unit of time
group_effect = { F = 0.0, M = 0.5 }  # log hazard ratio (aft: shift of log T)
beta = 1.0                         # per SD of the covariate Z
score = "without_group"
administrative = 15.0

[design.censoring]
fraction = { F = 0.3, M = 0.5 }    # or: rate = 0.05 (one number, or one per group)

[study]
sizes = [200, 800]
replications = 200
estimators = ["naive", "ipcw_group"]
tau = 10.0
ci = "analytic"
seed = 1
power = ["F", "M"]                 # also a power curve for Delta-between(F, M)
"""

_DESIGN_KEYS = {
    "ph": {
        "baseline",
        "shape",
        "scale",
        "group_effect",
        "beta",
        "score",
        "censoring",
        "administrative",
    },
    "aft": {
        "distribution",
        "sigma",
        "intercept",
        "group_effect",
        "beta",
        "score",
        "censoring",
        "administrative",
    },
}
_STUDY_KEYS = {
    "sizes",
    "replications",
    "estimators",
    "tau",
    "ci",
    "confidence_level",
    "n_resamples",
    "seed",
    "n_truth",
    "power",
}


def _toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise CLIError(f"--design: file {str(path)!r} does not exist.") from None
    except tomllib.TOMLDecodeError as error:
        raise CLIError(f"--design: {path} is not valid TOML ({error}).") from None


def read_design_file(path: Path) -> tuple[Any, dict]:
    """The design and the study options of a TOML file; CLIError for anything wrong."""
    from ..simulate import aft_design, ph_design

    content = _toml(path)
    unknown = set(content) - {"design", "study"}
    if unknown or "design" not in content:
        raise CLIError(
            "--design: the file needs a [design] table (and optionally [study]); unknown tables "
            f"{sorted(unknown)}."
        )
    design = dict(content["design"])
    model = design.pop("model", None)
    if model not in _DESIGN_KEYS:
        raise CLIError(f'--design: [design] model must be "ph" or "aft", got {model!r}.')
    groups = design.pop("groups", None)
    extra = set(design) - _DESIGN_KEYS[model]
    if extra:
        raise CLIError(
            f"--design: unknown keys in [design] for model {model!r}: {sorted(extra)} "
            f"(allowed: groups, {', '.join(sorted(_DESIGN_KEYS[model]))})."
        )
    study = dict(content.get("study", {}))
    extra = set(study) - _STUDY_KEYS
    if extra:
        raise CLIError(
            f"--design: unknown keys in [study]: {sorted(extra)} (allowed: "
            f"{', '.join(sorted(_STUDY_KEYS))})."
        )
    builder = ph_design if model == "ph" else aft_design
    try:
        built = builder(groups, **design)
    except (TypeError, ValueError) as error:
        raise CLIError(f"--design: [design] {error}") from None
    return built, study


def run_design_file(path: Path, *, quick: bool, output_dir: Path | None, progress: bool) -> int:
    """Run the study of a design file; print its table; write study.csv (and figures) to
    ``output_dir``."""
    from ..simulate import coverage_study, plot_coverage, plot_power, power_curve
    from ..simulate._harness import study_power

    design, study = read_design_file(path)
    sizes = study.get("sizes", [200, 800])
    options = dict(
        n_replications=study.get("replications", 200),
        estimators=tuple(study.get("estimators", ("naive", "ipcw_group"))),
        tau=study.get("tau"),
        ci=study.get("ci", "analytic"),
        confidence_level=study.get("confidence_level", 0.95),
        n_resamples=study.get("n_resamples", 200),
        n_truth=study.get("n_truth", 1_000_000),
        random_state=study.get("seed"),
        progress=progress,
    )
    if quick:
        sizes, options["n_replications"], options["n_truth"] = sizes[:2], 10, 100_000
    try:
        result = coverage_study(design, sizes, **options)
    except (TypeError, ValueError) as error:
        raise CLIError(f"--design: [study] {error}") from None
    table = result.to_frame()
    shown = [
        "n",
        "estimator",
        "statistic",
        "a",
        "b",
        "truth",
        "bias",
        "bias_mcse",
        "se_sd_ratio",
        "rmse",
        "coverage",
        "coverage_mcse",
        "power",
    ]
    print(
        f"design: {design.model} ({design.family}), groups {list(design.groups)}; "
        f"{result.n_replications} cohorts per size; intervals {result.ci_method}; tau {result.tau}"
    )
    print(
        "censored fraction per group: "
        + ", ".join(f"{g}: {v:.3f}" for g, v in design.censored_fraction().items())
    )
    with pd.option_context("display.width", 180, "display.max_columns", 30, "display.precision", 4):
        print(table[shown].to_string(index=False))
    if output_dir is not None:
        from ._io import check_output_folder

        check_output_folder(
            output_dir, "--output-dir", OUTPUT_FILES
        )  # again: it may have changed meanwhile
        output_dir.mkdir(parents=True, exist_ok=True)
        table.to_csv(output_dir / "study.csv", index=False)
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6, 4), layout="constrained")
        plot_coverage(result, ax=fig.subplots())
        fig.savefig(output_dir / "coverage.png", dpi=120)
        pair = study.get("power")
        if pair:  # from the study just run when it has IPCW per group, else its own run
            if "ipcw_group" in result.estimators:
                curve = study_power(result, pair[0], pair[1])
            else:
                curve = power_curve(
                    design,
                    sizes,
                    pair[0],
                    pair[1],
                    **{k: v for k, v in options.items() if k not in ("estimators",)},
                )
            fig = Figure(figsize=(6, 4), layout="constrained")
            plot_power(curve, ax=fig.subplots())
            fig.savefig(output_dir / "power.png", dpi=120)
            curve.to_csv(output_dir / "power.csv", index=False)
        print(f"\nwrote study.csv and coverage.png to {output_dir}")
    return 0
