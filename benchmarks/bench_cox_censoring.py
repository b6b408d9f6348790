"""Cost of ``xci(censoring="cox")`` against the per-group Kaplan-Meier path (issue 42.2).

    python benchmarks/bench_cox_censoring.py [--sizes 100000 1000000] [--groups 2 8] [--repeats 3]
    python benchmarks/bench_cox_censoring.py biased  # the biased cohort of issue 42 (42.4)

Timing: the median of ``--repeats`` runs of each path on the same cohort, ``ci=None``, on this
machine: ``xci(censoring="group")`` (the reference), ``xci(censoring="cox")`` whole, and its two
parts, the lifelines fit of the censoring model (``fit_cox_censoring``) and the series of pair-count
passes (``cox_pair_counts``, with the sort and ranks of ``prepare_pairs``). Writes a Markdown table
to ``benchmarks/results/cox_censoring_timings.md``.

The cohort: x ~ N(0.3 g / G, 1) in G groups; event hazard 0.5 e^{0.8 x}; censoring hazard
0.175 e^{1.25 x}, about 29% censored; tau = 2; the score x + N(0, 1).

``biased``: n = 20,000, two groups, the cohort of ``tests/test_cox_censoring.py`` (seed 1); the
truth from 10^6 uncensored people (naive xCI truncated at tau = 2); KM per group with its analytic
SE, Cox with its bootstrap SE (200 replicates, the model refitted in each). Writes
``benchmarks/results/cox_censoring_biased_cohort.md``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time as clock
import warnings
from pathlib import Path

import numpy as np

import survfair
from survfair._core.cox_censoring import cox_pair_counts, fit_cox_censoring
from survfair._core.kernel import PairOptions, kernel_threads, prepare_pairs
from survfair._core.validation import check_survival_inputs

RESULTS = Path(__file__).parent / "results"


def cohort(n: int, groups: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, groups, n)
    x = rng.normal(size=n) + 0.3 * group / max(groups - 1, 1)
    event_time = rng.exponential(1 / (0.5 * np.exp(0.8 * x)))
    censor_time = rng.exponential(1 / (0.175 * np.exp(1.25 * x)))
    time = np.minimum(event_time, censor_time)
    return time, event_time <= censor_time, group, x + rng.normal(size=n), x


def _median(function, repeats: int) -> tuple[float, object]:
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
            time, event, group, risk, x = cohort(n, g)
            km, _ = _median(
                lambda: survfair.xci(time, event, group, risk, tau=2.0, ci=None), repeats
            )

            def cox_call():
                return survfair.xci(
                    time, event, group, risk, tau=2.0, censoring="cox",
                    censoring_covariates=x, ci=None,
                )  # fmt: skip

            whole, result = _median(cox_call, repeats)
            sample, _ = check_survival_inputs(time, event, group, risk, covariates=x)
            fit, model = _median(lambda: fit_cox_censoring(sample), repeats)
            threads = kernel_threads(None)

            def series():
                prep = prepare_pairs(
                    sample.time, sample.event, sample.group_codes, sample.risk,
                    sample.n_groups, 1e-8, n_jobs=threads,
                )  # fmt: skip
                options = PairOptions(tau=2.0, n_jobs=threads)
                return cox_pair_counts(sample, prep, model, options).counts

            pairs, _ = _median(series, repeats)
            km_analytic, _ = _median(
                lambda: survfair.xci(time, event, group, risk, tau=2.0), repeats
            )
            analytic, _ = _median(
                lambda: survfair.xci(
                    time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=x
                ),
                repeats,
            )
            terms = result.censoring_model.n_terms
            rows.append((n, g, km, whole, fit, pairs, terms, km_analytic, analytic))
            print(
                f"n={n:>9,} G={g}: KM {km:7.2f} s | cox {whole:7.2f} s = fit {fit:7.2f} s + pairs "
                f"{pairs:6.2f} s ({terms} terms) | ratio {whole / km:6.1f}x, pairs only "
                f"{pairs / km:5.1f}x",
                flush=True,
            )
    return rows


def write_timings(rows, repeats):
    lines = [
        '# xci(censoring="cox") against the per-group Kaplan-Meier path (issue 42.2)',
        "",
        f"`python benchmarks/bench_cox_censoring.py`; median of {repeats} runs, `ci=None` "
        '(the last three columns: `ci="analytic"`, the Cox model\'s estimation included), '
        f"tau = 2, {kernel_threads(None)} threads, Python {platform.python_version()}, "
        f"{platform.processor() or platform.machine()}, survfair {survfair.__version__}. "
        "Cohort: see the script (29% censored, censoring hazard rising with x).",
        "",
        "| n | G | KM path (s) | cox path (s) | lifelines fit (s) | series of passes (s) | terms "
        "| cox / KM | passes / KM | KM analytic (s) | cox analytic (s) "
        "| cox analytic / KM analytic |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, g, km, whole, fit, pairs, terms, km_analytic, analytic in rows:
        lines.append(
            f"| {n:,} | {g} | {km:.2f} | {whole:.2f} | {fit:.2f} | {pairs:.2f} | {terms} "
            f"| {whole / km:.1f} | {pairs / km:.1f} | {km_analytic:.2f} | {analytic:.2f} "
            f"| {analytic / km_analytic:.1f} |"
        )
    path = RESULTS / "cox_censoring_timings.md"
    path.write_text("\n".join(lines) + "\n")
    print(f"written to {path}")


def biased():
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from test_cox_censoring import BIASED_SEED, biased_cohort

    truth_data = biased_cohort(1_000_000, 99, censor=False)
    truth = survfair.xci(*truth_data[:4], method="naive", tau=2.0, ci=None).matrix.to_numpy()
    time, event, group, risk, x = biased_cohort(20_000, BIASED_SEED)
    km = survfair.xci(time, event, group, risk, tau=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", survfair.PositivityWarning)
        cox = survfair.xci(
            time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=x,
            ci="bootstrap", n_resamples=200, random_state=42, bootstrap_method="percentile",
        )  # fmt: skip
    km_v, km_se = km.matrix.to_numpy(), km.se.to_numpy()
    cox_v, cox_se = cox.matrix.to_numpy(), cox.se.to_numpy()
    model = cox.censoring_model
    analytic = survfair.xci(
        time, event, group, risk, tau=2.0, censoring="cox", censoring_covariates=x
    ).se.to_numpy()
    lines = [
        "# The biased cohort of issue 42 (42.4)",
        "",
        "`python benchmarks/bench_cox_censoring.py biased`. n = 20,000, two groups, "
        f"{1 - event.mean():.1%} censored, tau = 2; x ~ N(0.5 g, 1), event hazard 0.5 e^(0.8 x), "
        "censoring hazard 0.175 e^(1.25 x) (independent of the event given x), score x + N(0, 1) "
        "(`tests/test_cox_censoring.py::biased_cohort`, seed 1). Truth: 10^6 uncensored people, "
        'naive xCI truncated at tau = 2. KM: `censoring="group"`, analytic SE. Cox: '
        '`censoring="cox", censoring_covariates=x`, analytic SE (the model\'s estimation '
        "included) and bootstrap SE (200 replicates, the Cox model refitted in each). Fitted "
        f"censoring log hazard ratio of x: {model.coefficients[0]:.3f} "
        f"(true 1.25); series terms: {model.n_terms} (bound {model.truncation_bound:.1e}).",
        "",
        "| cell (a, b) | truth | KM | KM SE | (KM - truth) / SE | Cox | Cox SE (analytic) "
        "| Cox SE (bootstrap) | (Cox - truth) / analytic SE |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in range(2):
        for b in range(2):
            lines.append(
                f"| ({a}, {b}) | {truth[a, b]:.4f} | {km_v[a, b]:.4f} | {km_se[a, b]:.4f} "
                f"| {(km_v[a, b] - truth[a, b]) / km_se[a, b]:+.2f} | {cox_v[a, b]:.4f} "
                f"| {analytic[a, b]:.4f} | {cox_se[a, b]:.4f} "
                f"| {(cox_v[a, b] - truth[a, b]) / analytic[a, b]:+.2f} |"
            )
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / "cox_censoring_biased_cohort.md").write_text(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="timings", choices=["timings", "biased"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--groups", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.what == "biased":
        biased()
        return
    warnings.simplefilter("ignore", survfair.PositivityWarning)
    write_timings(timings(args.sizes, args.groups, args.repeats), args.repeats)


if __name__ == "__main__":
    main()
