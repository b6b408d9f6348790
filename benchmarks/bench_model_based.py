"""Cost and accuracy of the exact proportional-hazards reference of model_based_xci (issue 43.2).

    python benchmarks/bench_model_based.py [--sizes 10000 100000 1000000] [--groups 2 8]
                                           [--repeats 3] [--settings 120]

Timing: the median of ``--repeats`` runs of each path on the same cohort, on this machine:

* ``pairwise``: the O(n^2) engine (``ph_log_contributions``, the former exact route; at n <= 10^4
  only);
* ``separable``: the new engine with its node design (``ph_exact_contributions``), and K, its
  number of nodes;
* ``model_based_xci``: the whole call with analytic intervals (observed xCI, Breslow baseline,
  reference, agreement check, influence rows);
* ``xci``: ``xci(..., ci="analytic")`` of the same data, and the ratio of the two.

Accuracy: the largest relative deviation of the separable engine from the pairwise engine, over
every cell sum and every individual contribution, in ``--settings`` random settings (those of
``tests/test_model_based_exact_ph.py``: n 2-400, 1-5 groups, ties, tolerances, lp spread 0-30
shifted by -400 / +710 / -2000 / +5000, H0(tau) 1e-6-50 or inf), with the largest proven bound.

The cohort: lp ~ N(0.3 g, 1) in G groups, event hazard e^lp, censoring Exp(mean 2), tau the 80%
quantile of the event times, the score = lp (the model's own ranking). The machine is shared: the
ratio within one run is the number to read. Writes
``benchmarks/results/model_based_reference_timings.md``.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time as clock
import warnings
from pathlib import Path

import numpy as np

import survfair
from survfair._calibration.stats import breslow_log_cumulative_hazard
from survfair._models.model_based_engine import (
    cells_from_contributions,
    ph_exact_contributions,
    ph_log_contributions,
    ph_quadrature,
    ph_separable_contributions,
)

RESULTS = Path(__file__).parent / "results"
FIELDS = ("earlier_numerator", "earlier_denominator", "later_numerator", "later_denominator")
SHIFTS = (0.0, -400.0, 710.0, -2000.0, 5000.0)


def cohort(n: int, groups: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, groups, n)
    lp = rng.normal(size=n) + 0.3 * codes
    event_time = rng.exponential(size=n) * np.exp(-lp)
    censor = rng.exponential(scale=2.0, size=n)
    time = np.minimum(event_time, censor)
    event = event_time <= censor
    labels = np.array([f"g{k}" for k in range(groups)])[codes]
    tau = float(np.quantile(time[event], 0.8))
    return time, event, labels, codes, lp, tau


def _median(function, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        start = clock.perf_counter()
        out = function()
        times.append(clock.perf_counter() - start)
    return statistics.median(times), out


def timings(sizes, groups, repeats):
    rows = []
    for n in sizes:
        for g in groups:
            time, event, labels, codes, lp, tau = cohort(n, g)
            log_h0 = breslow_log_cumulative_hazard(time, event, lp, tau, inclusive=False)
            args = (lp, codes, g, lp, log_h0, 1e-8)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pairwise = (
                    _median(lambda: ph_log_contributions(*args), repeats)[0]
                    if n <= 10_000
                    else math.nan
                )
                separable, _ = _median(lambda: ph_exact_contributions(*args), repeats)
                nodes = ph_quadrature(float(lp.min()) + log_h0, float(lp.max()) + log_h0, True).size
                whole, result = _median(
                    lambda: survfair.model_based_xci(
                        time, event, labels, lp, linear_predictor=lp, tau=tau
                    ),
                    repeats,
                )
                observed, _ = _median(
                    lambda: survfair.xci(time, event, labels, lp, tau=tau, ci="analytic"), repeats
                )
            assert result.reference == "proportional_hazards"
            rows.append(
                dict(
                    n=n,
                    groups=g,
                    nodes=nodes,
                    pairwise=pairwise,
                    separable=separable,
                    model_based_xci=whole,
                    xci=observed,
                    ratio=whole / observed,
                )
            )
            print(rows[-1], flush=True)
    return rows


def random_setting(seed: int) -> dict:
    """The settings of tests/test_model_based_exact_ph.py (same generator, same seeds)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 401))
    n_groups = int(rng.integers(1, 6))
    codes = rng.integers(0, n_groups, n)
    codes[: min(n_groups, n)] = np.arange(min(n_groups, n))
    n_groups = int(codes.max()) + 1
    spread = float(rng.uniform(0.0, 30.0))
    lp = rng.uniform(-spread / 2, spread / 2, n) + 0.1 * spread * codes / max(n_groups, 1)
    lp = lp + SHIFTS[seed % len(SHIFTS)]
    noise = rng.normal(scale=rng.uniform(0.0, 2.0), size=n)
    risk = np.round(lp + noise, int(rng.integers(0, 3))) if rng.random() < 0.6 else lp + noise
    if rng.random() < 0.2:
        risk = lp.copy()
    log_h0 = math.log(10 ** rng.uniform(-6.0, math.log10(50.0)))
    if seed % len(SHIFTS):
        log_h0 -= SHIFTS[seed % len(SHIFTS)]
    if rng.random() < 0.1:
        log_h0 = math.inf
    tied_tol = 1e-8 if rng.random() < 0.7 else float(rng.choice([0.05, 0.3, 1.0]))
    return dict(risk=risk, codes=codes, n_groups=n_groups, lp=lp, log_h0=log_h0, tol=tied_tol)


def deviation(settings: int) -> tuple[float, float]:
    """(largest relative deviation, largest proven bound) over the random settings."""
    worst, bound = 0.0, 0.0
    for seed in range(settings):
        s = random_setting(seed)
        args = (s["risk"], s["codes"], s["n_groups"], s["lp"], s["log_h0"], s["tol"])
        old, new = ph_log_contributions(*args), ph_separable_contributions(*args)
        truncated = s["log_h0"] < math.inf
        shift = s["log_h0"] if truncated else -0.5 * (s["lp"].max() + s["lp"].min())
        rule = ph_quadrature(s["lp"].min() + shift, s["lp"].max() + shift, truncated)
        bound = max(bound, rule.bound)
        pairs = [(getattr(new, f), getattr(old, f)) for f in FIELDS]
        pairs += list(
            zip(
                cells_from_contributions(new, s["codes"], s["n_groups"]),
                cells_from_contributions(old, s["codes"], s["n_groups"]),
            )
        )
        for got, want in pairs:
            gap = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
            worst = max(worst, float(gap.max(initial=0.0)))
    return worst, bound


def _seconds(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.3f}"


def markdown(rows, worst, bound, settings, repeats) -> str:
    lines = [
        "# Exact PH reference of model_based_xci: timings (issue 43.2)",
        "",
        "`python benchmarks/bench_model_based.py` on "
        f"{platform.machine()} ({platform.python_version()}, shared 2-core machine, load from "
        f"other work): median of {repeats} runs, seconds. `pairwise`: the former exact O(n^2) "
        "engine; `separable`: the new engine with its node design (K nodes); `model_based_xci`: "
        'the whole call with analytic intervals; `xci`: `xci(..., ci="analytic")` of the same '
        "data; ratio = model_based_xci / xci.",
        "",
        "| n | groups | K | pairwise | separable | model_based_xci | xci | ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']:,} | {r['groups']} | {r['nodes']} | {_seconds(r['pairwise'])} | "
            f"{_seconds(r['separable'])} | {_seconds(r['model_based_xci'])} | "
            f"{_seconds(r['xci'])} | {r['ratio']:.1f} |"
        )
    lines += [
        "",
        f"Accuracy: over {settings} random settings (n 2-400, 1-5 groups, ties, tolerances up to "
        "1, lp spread 0-30 shifted by -400 / +710 / -2000 / +5000, H0(tau) 1e-6-50 or inf), the "
        "largest relative deviation of the separable engine from the pairwise one, over every "
        f"cell sum and every individual contribution: {worst:.2e} (largest proven bound "
        f"{bound:.2e}).",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--groups", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--settings", type=int, default=120)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    worst, bound = deviation(args.settings)
    print(f"max relative deviation {worst:.2e} over {args.settings} settings", flush=True)
    rows = timings(args.sizes, args.groups, args.repeats)
    text = markdown(rows, worst, bound, args.settings, args.repeats)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "model_based_reference_timings.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
