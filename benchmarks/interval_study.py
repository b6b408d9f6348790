"""Interval methods for xCI cells and Δbetween near the boundary and in small groups (issue 18, item 4).

Draws cohorts from five designs (survfair.simulate), estimates every cell with ``ci="analytic"`` and
keeps, per replication, the estimate, the analytic SE, the stratified delete-one jackknife SE and
the events of the cell's groups; then computes the coverage and mean width of several intervals:

* ``wald``: raw scale, clipped to [0, 1];
* ``logit``: Wald on the logit scale (survfair's cells today);
* ``arcsine``: Wald on the arcsine-square-root scale;
* ``wilson``: the Wilson score interval on the effective sample size n_eff = p(1 - p) / SE^2;
* ``logit_t``: ``logit`` with the t quantile on (events of the smaller group - 1) degrees of freedom;
* ``jackknife_t``: ``logit_t`` with the stratified jackknife SE,
  sqrt(sum_g (m_g - 1) / m_g sum_{k in g} (theta_(-k) - mean_g)^2) over the cell's groups (the
  exact delete-one estimates with the censoring weights held fixed, ``result.influence.jackknife``).

Δbetween(a, b) = xCI(a, b) - xCI(b, a) gets ``wald``, ``wald_t`` and ``jackknife_t`` (raw scale;
its jackknife values are the difference of the cells').

Run: python benchmarks/interval_study.py [--replications 2000] [--seed 2026] [--quick]
Prints one row per design and quantity: truth, events of the row group, coverage of each method
(Monte-Carlo SE about 0.005 at 2,000 replications) and mean widths relative to ``logit``. The
table in docs/how-to/intervals.md comes from a full run.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import special, stats

import survfair
from survfair._influence import influence
from survfair.simulate import aft_design, ph_design

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


def _logit(p, se, quantile):
    centre, half = np.log(p / (1 - p)), quantile * se / (p * (1 - p))
    return special.expit(centre - half), special.expit(centre + half)


def cell_intervals(p: np.ndarray, se: np.ndarray, se_jackknife: np.ndarray, dof: np.ndarray) -> dict:
    t = stats.t.ppf(0.5 + LEVEL / 2, dof)
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = (p > 0) & (p < 1) & (se > 0)
        wald = (np.clip(p - Z * se, 0, 1), np.clip(p + Z * se, 0, 1))
        angle = np.arcsin(np.sqrt(p))
        half_angle = Z * se / (2 * np.sqrt(p * (1 - p)))
        arcsine = (np.sin(np.clip(angle - half_angle, 0, np.pi / 2)) ** 2, np.sin(np.clip(angle + half_angle, 0, np.pi / 2)) ** 2)
        n_eff = p * (1 - p) / se**2
        denominator = 1 + Z**2 / n_eff
        centre = (p + Z**2 / (2 * n_eff)) / denominator
        spread = Z / denominator * np.sqrt(p * (1 - p) / n_eff + Z**2 / (4 * n_eff**2))
        out = {"wald": wald, "logit": _logit(p, se, Z), "arcsine": arcsine, "wilson": (centre - spread, centre + spread),
               "logit_t": _logit(p, se, t), "jackknife_t": _logit(p, se_jackknife, t)}
    # on the boundary (p in {0, 1}) or with SE 0 every method falls back to the raw interval
    return {name: (np.where(inside, low, wald[0]), np.where(inside, high, wald[1])) for name, (low, high) in out.items()}


def delta_intervals(d: np.ndarray, se: np.ndarray, se_jackknife: np.ndarray, dof: np.ndarray) -> dict:
    t = stats.t.ppf(0.5 + LEVEL / 2, dof)
    return {"wald": (d - Z * se, d + Z * se), "wald_t": (d - t * se, d + t * se),
            "jackknife_t": (d - t * se_jackknife, d + t * se_jackknife)}


def _jackknife_se(values: np.ndarray, codes: np.ndarray, groups) -> float:
    """Delete-one jackknife SE stratified by group (the groups the quantity involves)."""
    variance = 0.0
    for g in groups:
        v = values[codes == g]
        v = v[np.isfinite(v)]
        if v.size > 1:
            variance += (v.size - 1) / v.size * np.sum((v - v.mean()) ** 2)
    return float(np.sqrt(variance))


def replication(design, n: int, tau, seed: int) -> list[dict]:
    """One cohort: every cell's and every Δbetween's estimate, analytic SE, jackknife SE and events."""
    warnings.simplefilter("ignore")  # positivity warnings of the boundary designs: expected here
    cohort = design.draw(n, random_state=seed)
    result = survfair.xci("time", "event", "group", "risk", data=cohort, tau=tau, ci="analytic")
    g, labels = len(result.groups), list(result.groups)
    codes = result.sample.group_codes
    events = np.bincount(codes, weights=result.sample.event.astype(float), minlength=g)
    # (n, G*G), input order; an analytic result keeps no contributions (its rows were written over them)
    jackknife = influence(result.sample, result.pair_counts, curves=result.censoring_curves,
                          **result.settings.pair_options).jackknife
    matrix, se = result.matrix.to_numpy(), result.se.to_numpy()
    rows = []
    for a in range(g):
        for b in range(g):
            rows.append({"quantity": f"xCI({labels[a]}, {labels[b]})", "estimate": matrix[a, b], "se": se[a, b],
                         "se_jackknife": _jackknife_se(jackknife[:, a * g + b], codes, {a, b}),
                         "row_events": events[a], "events": min(events[a], events[b])})
            if a < b:
                delta = survfair.delta_between(result, labels[a], labels[b])
                values = jackknife[:, a * g + b] - jackknife[:, b * g + a]
                rows.append({"quantity": f"Δbetween({labels[a]}, {labels[b]})", "estimate": delta.value,
                             "se": delta.se, "se_jackknife": _jackknife_se(values, codes, {a, b}),
                             "row_events": events[a], "events": min(events[a], events[b])})
    return rows


def _truth(truth, quantity: str) -> float:
    a, b = (label.strip() for label in quantity[quantity.index("(") + 1:-1].split(","))
    labels = {str(label): label for label in truth.matrix.index}
    a, b = labels[a], labels[b]
    cell = float(truth.matrix.loc[a, b])
    return cell - float(truth.matrix.loc[b, a]) if quantity.startswith("Δ") else cell


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
        truth = design.true_xci(tau, n_truth=1_000_000, random_state=args.seed)
        seeds = np.random.SeedSequence([args.seed, k]).generate_state(reps)
        per_cohort = Parallel(n_jobs=-1)(delayed(replication)(design, n, tau, int(seed)) for seed in seeds)
        frame = pd.DataFrame([row for cohort in per_cohort for row in cohort])
        for quantity, part in frame.groupby("quantity", sort=False):
            value = _truth(truth, quantity)
            ok = part["estimate"].notna() & part["se"].notna() & part["se_jackknife"].notna()
            part = part[ok]
            dof = np.maximum(part["events"].to_numpy() - 1, 1)
            make = delta_intervals if quantity.startswith("Δ") else cell_intervals
            limits = make(part["estimate"].to_numpy(), part["se"].to_numpy(), part["se_jackknife"].to_numpy(), dof)
            reference = np.mean(np.subtract(*limits["wald" if quantity.startswith("Δ") else "logit"][::-1]))
            for method, (low, high) in limits.items():
                covered = (low <= value) & (value <= high)
                rows.append({"design": name, "n": n, "quantity": quantity, "truth": value,
                             "row events": float(part["row_events"].median()), "method": method,
                             "coverage": float(covered.mean()), "width": float(np.mean(high - low)) / reference,
                             "valid": int(covered.size)})
        print(f"{name}: {reps} cohorts of {n} in {time.perf_counter() - started:.1f} s", flush=True)
    table = pd.DataFrame(rows)
    wide = table.pivot_table(index=["design", "quantity", "truth", "row events"], columns="method",
                             values="coverage", sort=False)
    widths = table.pivot_table(index=["design", "quantity"], columns="method", values="width", sort=False)
    with pd.option_context("display.width", 250, "display.max_rows", 200, "display.max_columns", 20,
                           "display.precision", 3):
        print("\ncoverage of nominal 95% intervals (Monte-Carlo SE about", f"{np.sqrt(0.95 * 0.05 / reps):.3f})")
        print(wide)
        print("\nmean width relative to logit (cells) / wald (Δbetween)")
        print(widths)
        worst = table.assign(kind=np.where(table["quantity"].str.startswith("Δ"), "Δbetween", "cell"))
        print("\nworst coverage per method:", worst.groupby(["kind", "method"])["coverage"].min().round(3).to_dict())


if __name__ == "__main__":
    main()
