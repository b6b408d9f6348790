"""Interval methods for xCI cells and Δbetween near the boundary and in small groups (issue 18, \
item 4; issue 33, item 2).

Draws cohorts from eleven designs (survfair.simulate; six with fixed group sizes, small groups near
and away from the boundary), estimates every cell with ``ci="analytic"`` and keeps, per
replication, the estimate, the analytic SE, the stratified delete-one jackknife SE and the counts
the flags read (events of the row group, members of each group); then computes the coverage and
mean width of several intervals:

* ``wald``: raw scale, clipped to [0, 1];
* ``logit``: Wald on the logit scale (survfair's cells today);
* ``arcsine``: Wald on the arcsine-square-root scale;
* ``wilson``: the Wilson score interval on the effective sample size n_eff = p(1 - p) / SE^2;
* ``logit_t``: ``logit`` with the t quantile on (events of the smaller group - 1) degrees of
  freedom;
* ``jackknife_t``: ``logit_t`` with the stratified jackknife SE,
  sqrt(sum_g (m_g - 1) / m_g sum_{k in g} (theta_(-k) - mean_g)^2) over the cell's groups (the
  exact delete-one estimates with the censoring weights held fixed, ``result.influence.jackknife``);
* bootstrap (issue 33), from B resamples within groups with the censoring curves refitted per
  resample (the scheme of ``xci(ci="bootstrap", stratify="group")``):
  ``percentile`` and ``bca`` (survfair's own limits,
  :func:`survfair._core.intervals.bootstrap_interval`, BCa acceleration from the same jackknife
  as ``xci``), and the studentized bootstrap
  (bootstrap-t): per resample the analytic SE* of the resample, from its own influence rows
  (Kaplan-Meier term included; about 0.3 ms a resample at 105 rows), and the interval
  [theta - q_0.975 SE, theta - q_0.025 SE] with q the quantiles of t* = (theta* - theta) / SE*:
  ``studentized`` on the raw scale, ``studentized_logit`` on the logit scale (cells).

Δbetween(a, b) = xCI(a, b) - xCI(b, a) gets ``wald``, ``wald_t``, ``jackknife_t`` (raw scale;
its jackknife values are the difference of the cells'), ``percentile``, ``bca`` and ``studentized``.

Run: python benchmarks/interval_study.py [--replications 2000] [--boot-replications 2000]
[--n-resamples 399] [--designs 1,2,...] [--seed 2026] [--n-jobs 2] [--out CSV] [--quick]
Prints one row per design and quantity: truth, events of the row group, coverage of each method
with its Monte-Carlo SE, and mean widths relative to ``logit`` (cells) / ``wald`` (Δbetween); with
``--out`` writes the long table (one row per design, quantity and method), rewritten after each
design so that an interrupted run keeps the designs done. The bootstrap methods run on the first
``--boot-replications`` cohorts of each design (not on the 8,000-person design). The table in
docs/how-to/intervals.md and benchmarks/results/interval_study.csv come from a full run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import special, stats

import survfair
from survfair._core.censoring import fit_censoring
from survfair._core.influence import influence
from survfair._core.intervals import bootstrap_interval
from survfair._core.kernel import PairOptions, count_pairs_and_contributions, prepare_pairs
from survfair.simulate import aft_design, ph_design

LEVEL = 0.95
Z = float(special.ndtri(0.5 + LEVEL / 2))
CELL_BOOTSTRAP = ("percentile", "bca", "studentized", "studentized_logit")
DELTA_BOOTSTRAP = ("percentile", "bca", "studentized")


@dataclass(frozen=True)
class Design:
    """A cohort design: ``design.draw``'s people, with fixed group ``sizes`` when given (the first
    members of each group in a larger draw: still independent draws) and the risk of each group
    shifted by ``shift`` (a score that misranks a group; the truth is computed with the shift)."""

    design: object
    n: int
    tau: float | None
    sizes: dict | None = None
    shift: dict | None = None
    bootstrap: bool = True
    key: int = 0  # seeds the design's cohorts (issue 18's designs keep their cohorts: 0-4)

    def draw(self, random_state) -> pd.DataFrame:
        if self.sizes is None:
            cohort = self.design.draw(self.n, random_state=random_state)
        else:
            rng = np.random.default_rng(random_state)
            share = min(self.design.proportions)
            big = self.design.draw(int(3 * max(self.sizes.values()) / share) + 50, random_state=rng)
            parts = [big[big["group"] == g].iloc[:m] for g, m in self.sizes.items()]
            cohort = pd.concat(parts).sample(frac=1.0, random_state=rng).reset_index(drop=True)
        if self.shift:
            cohort["risk"] = cohort["risk"] + cohort["group"].map(self.shift).fillna(0.0).to_numpy()
        return cohort

    def truth(self, seed: int) -> pd.DataFrame:
        """The cells of the design (Wang et al. eq. 5 with tau): the design's own Monte-Carlo truth,
        or, with a shifted score, the same computation (the exact kernel, naive, on 10^6
        uncensored people per group) with the shifted risk."""
        if not self.shift:
            return self.design.true_xci(self.tau, n_truth=1_000_000, random_state=seed).matrix
        g = len(self.design.groups)
        people = self.design.draw(1_000_000 * g, random_state=seed)
        event_time = people["event_time"].to_numpy()
        event = np.ones(event_time.shape[0], bool) if self.tau is None else event_time < self.tau
        risk = people["risk"].to_numpy() + people["group"].map(self.shift).fillna(0.0).to_numpy()
        return survfair.xci(
            event_time,
            event,
            people["group"].to_numpy(),
            risk,
            method="naive",
            ci=None,
            groups=list(self.design.groups),
        ).matrix


def designs() -> dict:
    boundary = dict(
        group_effect={"a": -1.5, "b": 0.0}, beta=-1.0, sigma=0.25, censoring={"fraction": 0.5}
    )
    # a score that ranks group a 1.5 SD too low (cross cell (a, b) about 0.26, (b, a) about 0.97)
    cross = ph_design(
        {"a": 1 / 3, "b": 2 / 3}, group_effect=0.0, beta=1.0, censoring={"fraction": 0.3}
    )
    heavy = ph_design(
        {"a": 1 / 3, "b": 2 / 3},
        group_effect=0.0,
        beta=1.0,
        censoring={"fraction": {"a": 0.75, "b": 0.3}},
    )
    small_boundary = aft_design(
        {"a": 1 / 3, "b": 2 / 3},
        group_effect={"a": -1.5, "b": 0.0},
        beta=-1.0,
        sigma=0.25,
        censoring={"fraction": 0.1},
    )
    out = {
        # issue 33: small groups away from the boundary, and at it, with fixed group sizes
        "cross 0.26, groups of 35 and 70": Design(
            cross, 105, 12.0, {"a": 35, "b": 70}, {"a": -1.5}, key=5
        ),
        "cross 0.26, groups of 50 and 100": Design(
            cross, 150, 12.0, {"a": 50, "b": 100}, {"a": -1.5}, key=6
        ),
        "cross 0.26, groups of 70 and 140": Design(
            cross, 210, 12.0, {"a": 70, "b": 140}, {"a": -1.5}, key=7
        ),
        # the same with 75% of the smaller group censored (about 9 and 18 events in it)
        "cross 0.26, groups of 35 and 70, 75% censored": Design(
            heavy, 105, 12.0, {"a": 35, "b": 70}, {"a": -1.5}, key=9
        ),
        "cross 0.26, groups of 70 and 140, 75% censored": Design(
            heavy, 210, 12.0, {"a": 70, "b": 140}, {"a": -1.5}, key=10
        ),
        "boundary, groups of 35 and 70": Design(
            small_boundary, 105, 3.0, {"a": 35, "b": 70}, key=8
        ),
        # issue 18
        # a cell at 0.98 whose row group has about 30 events
        "boundary, ~30 events": Design(
            aft_design({"a": 0.1, "b": 0.9}, **boundary), 650, 3.0, key=0
        ),
        # three groups, one small (about 15 events)
        "three groups, one small": Design(
            ph_design(
                {"a": 0.05, "b": 0.45, "c": 0.5},
                group_effect={"a": 1.0, "b": 0.0, "c": 0.3},
                beta=1.5,
                censoring={"fraction": 0.4},
            ),
            600,
            None,
            key=3,
        ),
        # the paper's log-normal model with group-specific censoring
        "log-normal (Wang et al. eq. 8)": Design(
            aft_design(
                {1: 0.5, 0: 0.5},
                group_effect={1: 0.8, 0: 0.0},
                beta=-1.0,
                sigma=0.5,
                intercept=0.0,
                censoring={"fraction": {1: 0.5, 0: 0.1}},
            ),
            300,
            2.0,
            key=4,
        ),
        # moderate cells, balanced groups
        "moderate, balanced": Design(
            ph_design(
                {"a": 0.5, "b": 0.5},
                group_effect={"a": 0.0, "b": 0.5},
                censoring={"fraction": {"a": 0.3, "b": 0.5}},
                administrative=20.0,
            ),
            400,
            15.0,
            key=2,
        ),
        # the boundary cell with about 400 events in the row group (analytic methods only: large)
        "boundary, ~400 events": Design(
            aft_design({"a": 0.1, "b": 0.9}, **boundary), 8000, 3.0, bootstrap=False, key=1
        ),
    }
    return out


def _logit(p, se, quantile):
    centre, half = np.log(p / (1 - p)), quantile * se / (p * (1 - p))
    return special.expit(centre - half), special.expit(centre + half)


def cell_intervals(
    p: np.ndarray, se: np.ndarray, se_jackknife: np.ndarray, dof: np.ndarray
) -> dict:
    t = stats.t.ppf(0.5 + LEVEL / 2, dof)
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = (p > 0) & (p < 1) & (se > 0)
        wald = (np.clip(p - Z * se, 0, 1), np.clip(p + Z * se, 0, 1))
        angle = np.arcsin(np.sqrt(p))
        half_angle = Z * se / (2 * np.sqrt(p * (1 - p)))
        arcsine = (
            np.sin(np.clip(angle - half_angle, 0, np.pi / 2)) ** 2,
            np.sin(np.clip(angle + half_angle, 0, np.pi / 2)) ** 2,
        )
        n_eff = p * (1 - p) / se**2
        denominator = 1 + Z**2 / n_eff
        centre = (p + Z**2 / (2 * n_eff)) / denominator
        spread = Z / denominator * np.sqrt(p * (1 - p) / n_eff + Z**2 / (4 * n_eff**2))
        out = {
            "wald": wald,
            "logit": _logit(p, se, Z),
            "arcsine": arcsine,
            "wilson": (centre - spread, centre + spread),
            "logit_t": _logit(p, se, t),
            "jackknife_t": _logit(p, se_jackknife, t),
        }
    # on the boundary (p in {0, 1}) or with SE 0 every method falls back to the raw interval
    return {
        name: (np.where(inside, low, wald[0]), np.where(inside, high, wald[1]))
        for name, (low, high) in out.items()
    }


def delta_intervals(
    d: np.ndarray, se: np.ndarray, se_jackknife: np.ndarray, dof: np.ndarray
) -> dict:
    t = stats.t.ppf(0.5 + LEVEL / 2, dof)
    return {
        "wald": (d - Z * se, d + Z * se),
        "wald_t": (d - t * se, d + t * se),
        "jackknife_t": (d - t * se_jackknife, d + t * se_jackknife),
    }


def _jackknife_se(values: np.ndarray, codes: np.ndarray, groups) -> float:
    """Delete-one jackknife SE stratified by group (the groups the quantity involves)."""
    variance = 0.0
    for g in groups:
        v = values[codes == g]
        v = v[np.isfinite(v)]
        if v.size > 1:
            variance += (v.size - 1) / v.size * np.sum((v - v.mean()) ** 2)
    return float(np.sqrt(variance))


def resample_estimates(result, n_resamples: int, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B resamples within groups, censoring refitted per group on each (``xci(ci="bootstrap",
    stratify="group")``'s scheme): the cells (B, G*G), their analytic SE* (B, G*G) and the SE* of
    every difference of cells (a, b) - (b, a), a < b (B, pairs), each from the resample's own
    influence rows (:func:`survfair._core.influence.influence`, Kaplan-Meier term included: the SE
    that ``xci(ci="analytic")`` would report on the resample). A resample whose weights cannot be
    formed (a censoring survival of 0) is NaN, as in ``xci``'s bootstrap."""
    sample, settings = result.sample, result.settings
    g = sample.n_groups
    first, second = (
        zip(*[(a * g + b, b * g + a) for a in range(g) for b in range(a + 1, g)])
        if g > 1
        else ((), ())
    )
    first, second = np.array(first, dtype=int), np.array(second, dtype=int)
    members = [np.flatnonzero(sample.group_codes == k) for k in range(g)]
    rng = np.random.default_rng(seed)
    cells = np.full((n_resamples, g * g), np.nan)
    se = np.full((n_resamples, g * g), np.nan)
    se_delta = np.full((n_resamples, len(first)), np.nan)
    for r in range(n_resamples):
        rows = np.concatenate([m[rng.integers(0, m.shape[0], m.shape[0])] for m in members])
        resample = dataclasses.replace(
            sample,
            time=sample.time[rows],
            event=sample.event[rows],
            group_codes=sample.group_codes[rows],
            risk=sample.risk[rows],
            index=pd.RangeIndex(rows.shape[0]),
        )
        curves = fit_censoring(resample, settings.censoring)
        rows = prepare_pairs(
            resample.time,
            resample.event,
            resample.group_codes,
            resample.risk,
            g,
            settings.tied_tol,
        )
        counts, bad, contributions = count_pairs_and_contributions(
            rows, PairOptions.of(settings, curves)
        )
        if bad is not None or not np.isfinite(counts.denominator).all():
            continue
        den = counts.denominator.ravel()
        with np.errstate(invalid="ignore", divide="ignore"):
            cells[r] = np.where(
                den > 0, counts.numerator.ravel() / np.where(den > 0, den, 1.0), np.nan
            )
        rows_influence = influence(
            resample,
            counts,
            curves=curves,
            censoring_estimated=True,
            contributions=contributions,
            jackknife=False,
            settings=settings,
        )
        se[r] = rows_influence.cell_se()
        if first.size:
            se_delta[r] = rows_influence.difference_se(first, second)
    return cells, se, se_delta


def _t_star(theta_star, se_star, theta):
    """(theta* - theta) / SE*, with SE* = 0 read as +-inf (0 when theta* = theta); NaN resamples
    dropped."""
    ok = np.isfinite(theta_star) & np.isfinite(se_star)
    theta_star, se_star = theta_star[ok], se_star[ok]
    diff = theta_star - theta
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(
            se_star > 0,
            diff / np.where(se_star > 0, se_star, 1.0),
            np.where(diff == 0, 0.0, np.sign(diff) * np.inf),
        )
    return np.clip(t, -1e12, 1e12)


def studentized(
    theta: float, se: float, theta_star, se_star, bounds=(-np.inf, np.inf)
) -> tuple[float, float]:
    """Bootstrap-t limits [theta - q_hi SE, theta - q_lo SE] on the raw scale, clipped to
    ``bounds``."""
    t = _t_star(theta_star, se_star, theta)
    if t.size == 0 or not np.isfinite(se):
        return np.nan, np.nan
    q_lo, q_hi = np.quantile(t, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return float(np.clip(theta - q_hi * se, *bounds)), float(np.clip(theta - q_lo * se, *bounds))


def studentized_logit(theta: float, se: float, theta_star, se_star) -> tuple[float, float]:
    """Bootstrap-t on the logit scale: logit SE = SE / (p (1 - p)); a resample at 0 or 1 has
    t* = -+inf. A cell estimated at 0 or 1 falls back to the raw-scale bootstrap-t."""
    if not 0 < theta < 1:
        return studentized(theta, se, theta_star, se_star, (0.0, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        logit_star = np.log(theta_star / (1 - theta_star))
        se_logit_star = se_star / (theta_star * (1 - theta_star))
        se_logit_star = np.where((theta_star > 0) & (theta_star < 1), se_logit_star, 0.0)
    low, high = studentized(
        float(np.log(theta / (1 - theta))), se / (theta * (1 - theta)), logit_star, se_logit_star
    )
    return float(special.expit(low)), float(special.expit(high))


def replication(spec: Design, seed: int, n_resamples: int) -> list[dict]:
    """One cohort: every cell's and every Δbetween's estimate, analytic SE, jackknife SE, the counts
    the flags read, and (``n_resamples`` > 0) the bootstrap limits."""
    warnings.simplefilter("ignore")  # positivity warnings of the boundary designs: expected here
    cohort = spec.draw(seed)
    result = survfair.xci(
        "time", "event", "group", "risk", data=cohort, tau=spec.tau, ci="analytic"
    )
    g, labels = len(result.groups), list(result.groups)
    codes = result.sample.group_codes
    events = np.bincount(codes, weights=result.sample.event.astype(float), minlength=g)
    members = np.bincount(codes, minlength=g)
    # (n, G*G), input order; an analytic result keeps no contributions (its rows were written
    # over them)
    jackknife = influence(
        result.sample,
        result.pair_counts,
        curves=result.censoring_curves,
        settings=result.settings,
    ).jackknife
    matrix, se = result.matrix.to_numpy(), result.se.to_numpy()
    comparable = result.pair_counts.comparable
    boot = None
    if n_resamples:
        boot = resample_estimates(result, n_resamples, np.random.SeedSequence([seed, 1]))
    rows, pair = [], 0
    for a in range(g):
        for b in range(g):
            cell = a * g + b
            counts = {
                "row_events": events[a],
                "events": min(events[a], events[b]),
                "col_members": members[b],
                "min_members": min(members[a], members[b]),
                "comparable": comparable[a, b],
            }
            row = {
                "quantity": f"xCI({labels[a]}, {labels[b]})",
                "estimate": matrix[a, b],
                "se": se[a, b],
                "se_jackknife": _jackknife_se(jackknife[:, cell], codes, {a, b}),
                **counts,
            }
            if boot is not None:
                draws, draws_se = boot[0][:, cell], boot[1][:, cell]
                for method, jack in (("percentile", None), ("bca", jackknife[:, [cell]])):
                    low, high = bootstrap_interval(
                        np.array([matrix[a, b]]), draws[:, None], jack, LEVEL
                    )
                    row[f"low_{method}"], row[f"high_{method}"] = low[0], high[0]
                row["low_studentized"], row["high_studentized"] = studentized(
                    matrix[a, b], se[a, b], draws, draws_se, (0.0, 1.0)
                )
                row["low_studentized_logit"], row["high_studentized_logit"] = studentized_logit(
                    matrix[a, b], se[a, b], draws, draws_se
                )
            rows.append(row)
            if a < b:
                delta = survfair.delta_between(result, labels[a], labels[b])
                values = jackknife[:, cell] - jackknife[:, b * g + a]
                row = {
                    "quantity": f"Δbetween({labels[a]}, {labels[b]})",
                    "estimate": delta.value,
                    "se": delta.se,
                    "se_jackknife": _jackknife_se(values, codes, {a, b}),
                    **counts,
                }
                if boot is not None:
                    draws = boot[0][:, cell] - boot[0][:, b * g + a]
                    for method, jack in (("percentile", None), ("bca", values[:, None])):
                        low, high = bootstrap_interval(
                            np.array([delta.value]), draws[:, None], jack, LEVEL
                        )
                        row[f"low_{method}"], row[f"high_{method}"] = low[0], high[0]
                    row["low_studentized"], row["high_studentized"] = studentized(
                        delta.value, delta.se, draws, boot[2][:, pair], (-1.0, 1.0)
                    )
                pair += 1
                rows.append(row)
    return rows


def _batch(spec: Design, seeds, n_resamples: int, n_boot: int, start: int) -> list[dict]:
    out = []
    for k, seed in enumerate(seeds):
        for row in replication(spec, int(seed), n_resamples if start + k < n_boot else 0):
            row["replication"] = start + k
            out.append(row)
    return out


def _truth(truth: pd.DataFrame, quantity: str) -> float:
    a, b = (label.strip() for label in quantity[quantity.index("(") + 1 : -1].split(","))
    labels = {str(label): label for label in truth.index}
    a, b = labels[a], labels[b]
    cell = float(truth.loc[a, b])
    return cell - float(truth.loc[b, a]) if quantity.startswith("Δ") else cell


def summarise(
    frame: pd.DataFrame, name: str, spec: Design, truth: pd.DataFrame, n_resamples: int
) -> list[dict]:
    """Coverage (with its Monte-Carlo SE), mean width and the median counts of every quantity
    and method."""
    rows = []
    for quantity, part in frame.groupby("quantity", sort=False):
        value = _truth(truth, quantity)
        is_delta = quantity.startswith("Δ")
        ok = part["estimate"].notna() & part["se"].notna() & part["se_jackknife"].notna()
        part = part[ok]
        dof = np.maximum(part["events"].to_numpy() - 1, 1)
        make = delta_intervals if is_delta else cell_intervals
        limits = make(
            part["estimate"].to_numpy(), part["se"].to_numpy(), part["se_jackknife"].to_numpy(), dof
        )
        for method in DELTA_BOOTSTRAP if is_delta else CELL_BOOTSTRAP:
            if f"low_{method}" in part:
                limits[method] = (
                    part[f"low_{method}"].to_numpy(),
                    part[f"high_{method}"].to_numpy(),
                )
        reference = np.mean(np.subtract(*limits["wald" if is_delta else "logit"][::-1]))
        counts = {
            key: float(part[key].median())
            for key in ("row_events", "events", "col_members", "min_members", "comparable")
        }
        bootstrapped = (
            part["low_percentile"].notna().to_numpy() if "low_percentile" in part else None
        )
        for method, (low, high) in limits.items():
            # the cohorts the method was computed on; one without finite limits counts as not
            # covering
            done = (
                bootstrapped
                if method in CELL_BOOTSTRAP and bootstrapped is not None
                else np.ones(len(low), bool)
            )
            valid = np.isfinite(low) & np.isfinite(high)
            covered = valid[done] & (low[done] <= value) & (value <= high[done])
            coverage = float(covered.mean()) if covered.size else np.nan
            rows.append(
                {
                    "design": name,
                    "n": spec.n,
                    "quantity": quantity,
                    "truth": value,
                    **counts,
                    "method": method,
                    "coverage": coverage,
                    "mcse": float(np.sqrt(coverage * (1 - coverage) / covered.size))
                    if covered.size
                    else np.nan,
                    "width": float(np.mean((high - low)[valid & done])) / reference
                    if covered.size
                    else np.nan,
                    "replications": int(covered.size),
                    "invalid": int((done & ~valid).sum()),
                    "n_resamples": n_resamples if method in CELL_BOOTSTRAP else 0,
                }
            )
    return rows


def run(
    chosen: dict,
    replications: int,
    boot_replications,
    n_resamples: int,
    seed: int,
    n_jobs: int,
    out: str | None = None,
    verbose: bool = True,
) -> pd.DataFrame:
    """The study on the designs ``chosen`` (name -> Design): ``replications`` cohorts each, the
    first ``boot_replications`` (one number, or one per design) bootstrapped; the long table,
    written to ``out`` after each design when given."""
    if np.ndim(boot_replications) == 0:
        boot_replications = [boot_replications] * len(chosen)
    rows = []
    for (name, spec), n_boot in zip(chosen.items(), boot_replications):
        started = time.perf_counter()
        truth = spec.truth(seed)
        seeds = np.random.SeedSequence([seed, spec.key]).generate_state(replications)
        n_boot = n_boot if spec.bootstrap else 0
        size = max(1, min(25, replications // (4 * max(1, n_jobs))))
        starts = range(0, replications, size)
        per_batch = Parallel(n_jobs=n_jobs)(
            delayed(_batch)(spec, seeds[s : s + size], n_resamples, n_boot, s) for s in starts
        )
        frame = pd.DataFrame([row for batch in per_batch for row in batch])
        rows += summarise(frame, name, spec, truth, n_resamples)
        if out:
            pd.DataFrame(rows).to_csv(out, index=False)
        if verbose:
            print(
                f"{name}: {replications} cohorts of {spec.n} "
                f"({min(n_boot, replications)} with {n_resamples} "
                f"resamples) in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument(
        "--boot-replications",
        default=None,
        help="bootstrapped cohorts per design: one number, or one per design run, comma-separated "
        "(default: --replications)",
    )
    parser.add_argument("--n-resamples", type=int, default=399)
    parser.add_argument(
        "--designs", default=None, help="comma-separated numbers (1-based) of designs() to run"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--out", default=None, help="CSV of the long table")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="100 replications (50 bootstrapped, 199 resamples), the first two designs",
    )
    args = parser.parse_args()
    everything = designs()
    names = list(everything)
    if args.designs:
        names = [names[int(k) - 1] for k in args.designs.split(",")]
    reps = 100 if args.quick else args.replications
    names = names[: 2 if args.quick else None]
    given = (
        [reps]
        if args.boot_replications is None
        else [int(k) for k in args.boot_replications.split(",")]
    )
    boot_reps = (
        [50] * len(names) if args.quick else (given * len(names) if len(given) == 1 else given)
    )
    if len(boot_reps) != len(names):
        parser.error("--boot-replications: one number, or one per design run")
    resamples = 199 if args.quick else args.n_resamples
    chosen = {name: everything[name] for name in names}
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    table = run(chosen, reps, boot_reps, resamples, args.seed, args.n_jobs, args.out)
    wide = table.pivot_table(
        index=["design", "quantity", "truth", "row_events", "min_members"],
        columns="method",
        values="coverage",
        sort=False,
    )
    widths = table.pivot_table(
        index=["design", "quantity"], columns="method", values="width", sort=False
    )
    with pd.option_context(
        "display.width",
        250,
        "display.max_rows",
        300,
        "display.max_columns",
        20,
        "display.precision",
        3,
    ):
        print(
            "\ncoverage of nominal 95% intervals "
            f"(Monte-Carlo SE about {np.sqrt(0.95 * 0.05 / reps):.3f} at "
            f"{reps} replications, "
            f"{np.sqrt(0.95 * 0.05 / max(min(boot_reps), 1)):.3f} at {min(boot_reps)})"
        )
        print(wide)
        print("\nmean width relative to logit (cells) / wald (Δbetween)")
        print(widths)
        worst = table.assign(
            kind=np.where(table["quantity"].str.startswith("Δ"), "Δbetween", "cell")
        )
        print(
            "\nworst coverage per method:",
            worst.groupby(["kind", "method"])["coverage"].min().round(3).to_dict(),
        )


if __name__ == "__main__":
    main()
