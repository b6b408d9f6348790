"""Benchmark: bootstrap of the IPCW xCI matrix (issue 5 target: 1,000 replicates, n = 10^5, \
G = 2, < 60 s on 2 cores).

Usage::

    python benchmarks/bench_bootstrap.py [--n 100000] [--n-resamples 1000] [--n-jobs 1 2]

Prints the wall time of the point estimate, the analytic covariance and the bootstrap for each
``n_jobs`` (threads; the compiled kernels release the GIL).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import survfair


def cohort(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    t = rng.lognormal(0.2 * group, 0.8)
    c = rng.exponential(2.5 + group)
    risk = -np.log(t) + rng.normal(0, 1, n)
    return np.minimum(t, c), t <= c, group, risk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--tau", type=float, default=3.0)
    args = parser.parse_args()
    time_, event, group, risk = cohort(args.n)
    survfair.xci(
        time_[:200], event[:200], group[:200], risk[:200], ci="analytic"
    )  # load everything outside the timings
    survfair.xci(time_[:200], event[:200], group[:200], risk[:200], ci="bootstrap", n_resamples=2)

    t0 = time.perf_counter()
    survfair.xci(time_, event, group, risk, tau=args.tau)
    point = time.perf_counter() - t0
    t0 = time.perf_counter()
    survfair.xci(time_, event, group, risk, tau=args.tau, ci="analytic")
    analytic = time.perf_counter() - t0
    print(f"n={args.n}, G=2, IPCW, tau={args.tau}")
    print(f"point estimate           {point:8.3f} s")
    print(f"with analytic covariance {analytic:8.3f} s  ({analytic / point:.2f}x)")
    for n_jobs in args.n_jobs:
        t0, c0 = time.perf_counter(), time.process_time()
        res = survfair.xci(
            time_,
            event,
            group,
            risk,
            tau=args.tau,
            ci="bootstrap",
            n_resamples=args.n_resamples,
            random_state=0,
            n_jobs=n_jobs,
            progress=False,
        )
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"bootstrap B={args.n_resamples:<5d} n_jobs={n_jobs}: {elapsed:8.2f} s wall, "
            f"{cpu:8.2f} s CPU "
            f"({1000 * elapsed / args.n_resamples:.1f} ms/replicate wall; "
            f"failed={res.bootstrap.n_failed})"
        )


if __name__ == "__main__":
    main()
