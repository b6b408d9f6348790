"""Interval methods for xCI cells near the boundary and in small groups (issue 18, item 4).

Draws cohorts from five designs with survfair.simulate.coverage_study, keeps every replication's
estimate and analytic SE, and computes the coverage and mean width of several interval methods
built from (estimate, SE):

* ``wald``: raw scale, clipped to [0, 1];
* ``logit``: Wald on the logit scale (survfair's cells before this study);
* ``arcsine``: Wald on the arcsine-square-root scale;
* ``wilson``: the Wilson score interval on the effective sample size n_eff = p(1 - p) / SE^2.

Run: python benchmarks/interval_study.py [--replications 2000] [--seed 2026] [--quick]
Prints one row per design, cell and method: truth, events of the row group, coverage with its
Monte-Carlo SE, mean width. The table in docs/how-to/intervals.md comes from a full run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy import special

from survfair.simulate import aft_design, coverage_study, ph_design

LEVEL = 0.95
Z = float(special.ndtri(0.5 + LEVEL / 2))


def designs() -> dict:
    boundary = dict(group_effect={"a": -1.5, "b": 0.0}, beta=-1.0, sigma=0.25, censoring={"fraction": 0.5})
    return {
        # a cell at 0.98 whose row group has about 30 events
        "boundary, ~30 events": (aft_design({"a": 0.1, "b": 0.9}, **boundary), 650, 3.0),
        # the same cell with about 400 events in the row group
        "boundary, ~400 events": (aft_design({"a": 0.1, "b": 0.9}, **boundary), 8000, 3.0),
        # moderate cells, balanced groups
        "moderate, balanced": (ph_design({"a": 0.5, "b": 0.5}, group_effect={"a": 0.0, "b": 0.5},
                                         censoring={"fraction": {"a": 0.3, "b": 0.5}}, administrative=20.0), 400, 15.0),
        # three groups, one small (about 15 events)
        "three groups, one small": (ph_design({"a": 0.05, "b": 0.45, "c": 0.5}, group_effect={"a": 1.0, "b": 0.0,
                                              "c": 0.3}, beta=1.5, censoring={"fraction": 0.4}), 600, None),
        # the paper's log-normal model with group-specific censoring
        "log-normal (Wang et al. eq. 8)": (aft_design({1: 0.5, 0: 0.5}, group_effect={1: 0.8, 0: 0.0}, beta=-1.0,
                                                       sigma=0.5, intercept=0.0,
                                                       censoring={"fraction": {1: 0.5, 0: 0.1}}), 300, 2.0),
    }


def intervals(p: np.ndarray, se: np.ndarray) -> dict:
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = (p > 0) & (p < 1) & (se > 0)
        wald = (np.clip(p - Z * se, 0, 1), np.clip(p + Z * se, 0, 1))
        logit_centre = np.log(p / (1 - p))
        half = Z * se / (p * (1 - p))
        logit = (special.expit(logit_centre - half), special.expit(logit_centre + half))
        angle = np.arcsin(np.sqrt(p))
        half_angle = Z * se / (2 * np.sqrt(p * (1 - p)))
        arcsine = (np.sin(np.clip(angle - half_angle, 0, np.pi / 2)) ** 2, np.sin(np.clip(angle + half_angle, 0, np.pi / 2)) ** 2)
        n_eff = p * (1 - p) / se**2
        denominator = 1 + Z**2 / n_eff
        centre = (p + Z**2 / (2 * n_eff)) / denominator
        spread = Z / denominator * np.sqrt(p * (1 - p) / n_eff + Z**2 / (4 * n_eff**2))
        wilson = (centre - spread, centre + spread)
    out = {"wald": wald, "logit": logit, "arcsine": arcsine, "wilson": wilson}
    # on the boundary (p in {0, 1}) or with SE 0 every method falls back to the raw interval
    return {name: (np.where(inside, low, wald[0]), np.where(inside, high, wald[1])) for name, (low, high) in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true", help="100 replications, the first two designs")
    args = parser.parse_args()
    reps = 100 if args.quick else args.replications
    chosen = list(designs().items())[: 2 if args.quick else None]
    rows = []
    for k, (name, (design, n, tau)) in enumerate(chosen):
        started = time.perf_counter()
        study = coverage_study(design, [n], n_replications=reps, estimators=("ipcw_group",), tau=tau,
                               random_state=args.seed + k, progress=False, n_truth=1_000_000)
        truth = study.truth
        frame = study.replication_frame()
        frame = frame[frame["statistic"] == "xci"]
        cohort = design.draw(n, random_state=0)
        for (a, b), part in frame.groupby(["a", "b"], sort=False):
            value = float(truth.matrix.loc[a, b])
            ok = part["estimate"].notna() & part["se"].notna()
            p, se = part.loc[ok, "estimate"].to_numpy(), part.loc[ok, "se"].to_numpy()
            events = int(cohort.loc[cohort["group"] == a, "event"].sum())
            for method, (low, high) in intervals(p, se).items():
                covered = (low <= value) & (value <= high)
                coverage = float(covered.mean())
                rows.append({"design": name, "n": n, "cell": f"({a}, {b})", "truth": value, "row events": events,
                             "method": method, "coverage": coverage,
                             "mc_se": float(np.sqrt(coverage * (1 - coverage) / covered.size)),
                             "width": float(np.mean(high - low)), "valid": int(covered.size)})
        print(f"{name}: {reps} cohorts of {n} in {time.perf_counter() - started:.1f} s", flush=True)
    table = pd.DataFrame(rows)
    wide = table.pivot_table(index=["design", "cell", "truth", "row events"], columns="method",
                             values="coverage", sort=False)
    widths = table.pivot_table(index=["design", "cell"], columns="method", values="width", sort=False)
    with pd.option_context("display.width", 200, "display.max_rows", 200, "display.precision", 3):
        print("\ncoverage of nominal 95% intervals (Monte-Carlo SE about", f"{np.sqrt(0.95 * 0.05 / reps):.3f})")
        print(wide)
        print("\nmean width")
        print(widths)
        print("\nworst coverage per method:", table.groupby("method")["coverage"].min().round(3).to_dict())


if __name__ == "__main__":
    main()
