"""The numbers of one survfair checkout against another's, end to end through the public API.

Written to move the kernels from numba to compiled extensions with the numba kernels as the
reference (issue 34): every integer count equal, every estimate, standard error, interval and
influence row within 1e-12 relative. Run it under each tree, then compare:

    PYTHONPATH=/path/to/reference python benchmarks/compare_reference.py dump reference.npy
    python benchmarks/compare_reference.py dump this.npy
    python benchmarks/compare_reference.py compare reference.npy this.npy

The settings (896 ``xci`` calls plus xAUC(t), paired comparisons and BCa bootstraps): G = 1 to 6;
naive, IPCW with group and pooled censoring curves; ties in time and risk or none; strict or not;
tau or none; case weights, delayed entry, competing risks and clusters each on or off; n_jobs 1
or 2. Each setting has its own seeded cohort of 60 to 400 rows.
"""

from __future__ import annotations

import itertools
import sys
import warnings

import numpy as np

RELATIVE = 1e-12


def cohort(seed: int, g: int, ties: bool, competing: bool):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 400))
    codes = rng.integers(0, g, n)
    x = rng.normal(size=n) + 0.3 * codes
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(1.5, n)
    time, event = np.minimum(t, c), (t <= c).astype(int)
    risk = x + rng.normal(scale=0.7, size=n)
    if ties:
        time, risk = np.round(time, 1) + 0.1, np.round(risk, 1)
    if competing:
        event = np.where(event == 1, np.where(rng.random(n) < 0.7, 1, 2), 0)
    return rng, n, time, event, codes, risk


def xci_settings():
    grid = itertools.product(
        range(1, 7),
        ["naive", "group", "pooled"],
        [False, True],
        [False, True],
        [None, 1.2],
        [False, True],
        [False, True],
        [False, True],
        [False, True],
    )
    # 6 x 3 x 2^7 = 2,304 combinations: every third of them (768), and 1 in 6 of those again with
    # n_jobs=2 (128): 896 calls
    chosen = list(grid)[::3]
    return [(s, 1) for s in chosen] + [(s, 2) for s in chosen[::6]]


def _xci(setting, n_jobs, seed):
    import survfair

    g, method, ties, strict, tau, weights, entry, competing, cluster = setting
    rng, n, time, event, codes, risk = cohort(seed, g, ties, competing)
    options = dict(
        method="naive" if method == "naive" else "ipcw",
        tau=tau,
        strict=strict,
        ci="analytic",
        n_jobs=n_jobs,
        progress=False,
    )
    if method != "naive":
        options["censoring"] = method
    if weights:
        options["weights"] = np.where(rng.random(n) < 0.05, 0.0, rng.uniform(0.2, 3.0, n))
    if entry:
        options["entry"] = rng.uniform(0, 0.5, n) * time
    if competing:
        options["cause"] = 1
    if cluster:
        options["cluster"] = rng.integers(0, 40, n)
    return survfair.xci(time, event, codes, risk, **options)


def _record(result) -> dict:
    counts = result.pair_counts
    record = dict(
        counts=np.stack([counts.comparable, counts.concordant, counts.tied_risk, counts.tied_time]),
        numerator=counts.numerator,
        denominator=counts.denominator,
        values=result.values,
        overall=np.atleast_1d(result.overall),
        se=np.asarray(result.se, float),
    )
    influence = getattr(result, "influence", None)
    if influence is not None:
        record["rows"] = np.asarray(influence.cells, float)
        record["overall_rows"] = np.asarray(influence.overall, float)
    return record


def dump(path: str) -> None:
    import survfair

    out = {}
    warnings.simplefilter("ignore")
    for k, (setting, n_jobs) in enumerate(xci_settings()):
        key = f"xci {k} {setting} n_jobs={n_jobs}"
        try:
            out[key] = _record(_xci(setting, n_jobs, k))
        except Exception as error:  # the same error in both trees is the same behaviour
            out[key] = {"error": f"{type(error).__name__}: {error}"}
    for k, (g, controls, weights) in enumerate(
        itertools.product([1, 2, 3], ["all", "event_free"], [False, True])
    ):
        rng, n, time, event, codes, risk = cohort(1000 + k, g, False, False)
        options = {"weights": rng.uniform(0.5, 2.0, n)} if weights else {}
        key = f"xauc_t {g} {controls} {weights}"
        try:
            result = survfair.xauc_t(
                time, event, codes, risk, [0.3, 0.8], controls=controls, **options
            )
            out[key] = {"frame": result.to_frame().select_dtypes("number").to_numpy(float)}
        except Exception as error:
            out[key] = {"error": f"{type(error).__name__}: {error}"}
    for k, g in enumerate([1, 2, 3, 4]):
        rng, n, time, event, codes, risk = cohort(2000 + k, g, True, False)
        first = survfair.xci(time, event, codes, risk, tau=1.2, progress=False)
        second = survfair.xci(
            time, event, codes, risk + rng.normal(scale=0.5, size=n), tau=1.2, progress=False
        )
        comparison = survfair.compare_xci(first, second, progress=False)
        out[f"paired {g}"] = {
            "frame": comparison.to_frame().select_dtypes("number").to_numpy(float)
        }
        boot = survfair.xci(
            time,
            event,
            codes,
            risk,
            tau=1.2,
            ci="bootstrap",
            n_resamples=200,
            random_state=k,
            n_jobs=1,
            progress=False,
        )
        out[f"bca {g}"] = {"frame": boot.to_frame().select_dtypes("number").to_numpy(float)}
    np.save(path, out, allow_pickle=True)
    print(f"{len(out)} settings written to {path} by survfair from {survfair.__file__}")


def relative_gap(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
        return np.inf
    finite = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(a[~finite & ~np.isnan(a)], b[~finite & ~np.isnan(b)]):
        return np.inf  # infinities must agree
    if not finite.any():
        return 0.0
    scale = np.maximum(np.abs(b[finite]), np.finfo(float).tiny)
    return float(np.max(np.abs(a[finite] - b[finite]) / scale))


def compare(
    reference_path: str, this_path: str, exact=lambda name, values: name == "counts"
) -> int:
    """Print how two dumps differ (settings, arrays compared, bit-identical, the largest relative
    difference per quantity, failures); 1 when any quantity differs by more than ``RELATIVE`` or a
    quantity for which ``exact(name, values)`` is true differs at all (counts, labels)."""
    reference = np.load(reference_path, allow_pickle=True).item()
    this = np.load(this_path, allow_pickle=True).item()
    if reference.keys() != this.keys():
        print("the two dumps have different settings")
        return 1
    worst, identical, total, failures, errors = {}, 0, 0, [], 0
    for key in reference:
        old, new = reference[key], this[key]
        if "error" in old or "error" in new:
            errors += 1
            if old.get("error") != new.get("error"):
                failures.append(f"{key}: {old.get('error')} / {new.get('error')}")
            continue
        if old.keys() != new.keys():
            failures.append(f"{key}: quantities {sorted(old)} / {sorted(new)}")
            continue
        for name in old:
            if exact(name, np.asarray(old[name])):
                if not np.array_equal(old[name], new[name]):
                    failures.append(f"{key}: {name} differ")
                continue
            gap = relative_gap(new[name], old[name])
            worst[name] = max(worst.get(name, 0.0), gap)
            total += 1
            identical += bool(
                np.array_equal(np.asarray(new[name]), np.asarray(old[name]), equal_nan=True)
            )
            if gap > RELATIVE:
                failures.append(f"{key}: {name} differs by {gap:.2e} relative")
    print(
        f"{len(reference)} settings ({errors} raise the same error in both); "
        f"{total} arrays compared, "
        f"{identical} bit-identical"
    )
    print(
        "largest relative difference per quantity: "
        + ", ".join(f"{k} {v:.1e}" for k, v in worst.items())
    )
    print(f"{len(failures)} failures" + (":" if failures else ""))
    for failure in failures[:20]:
        print("  " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"]:
        dump(sys.argv[2])
    elif sys.argv[1:2] == ["compare"]:
        raise SystemExit(compare(sys.argv[2], sys.argv[3]))
    else:
        raise SystemExit(__doc__)
