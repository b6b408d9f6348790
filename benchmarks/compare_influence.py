"""Same numbers before and after a port of the influence sweep (survfair._core.influence).

Runs many random settings of the analytic intervals -- ``xci(ci="analytic")`` (naive / IPCW with
per-group or pooled censoring, ties, strict, tau, case weights, delayed entry, competing risks,
clusters, G = 1..6), ``xauc_t`` (its point sources and second-kind paths), BCa bootstrap intervals
(the jackknife from the same contributions) and ``compare_xci`` -- and saves every standard
error, interval and influence value. Run ``dump`` under each tree (separate processes: the
numba reference and the compiled port cannot be imported together), then ``compare``::

    PYTHONPATH=/path/to/old/tree python benchmarks/compare_influence.py dump old.npy
    python benchmarks/compare_influence.py dump new.npy
    python benchmarks/compare_influence.py compare old.npy new.npy

``compare`` reports the largest relative difference (|a - b| / max(|a|, |b|), over values that
are not both NaN; NaN in one and not the other is a mismatch) and how many values are
bit-identical; it exits with status 1 when any difference exceeds 1e-12.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

N_XCI = 240
N_BCA = 24
N_XAUC_T = 48
N_PAIRED = 32
TOLERANCE = 1e-12


def _cohort(rng, *, n, g, ties, competing, weights, entry, cluster):
    time = rng.exponential(1.0, n) * (1.0 + 0.3 * rng.integers(0, 3, n))
    censor = rng.exponential(1.3, n)
    codes = rng.permutation(np.arange(n) % g)
    observed = time <= censor
    time = np.minimum(time, censor)
    if ties:
        time = np.round(time * 4) / 4 + 0.25  # many ties in time, no zero times
    if competing:
        event = np.where(observed, rng.integers(1, 3, n), 0)
    else:
        event = observed.astype(int)
    risk = -time + rng.normal(0.0, 0.8, n) + 0.2 * codes
    if ties:
        risk = np.round(risk, 1)
    options = {}
    if weights:
        options["weights"] = rng.uniform(0.2, 3.0, n)
    if entry:
        options["entry"] = np.where(rng.random(n) < 0.5, 0.0, time * rng.uniform(0.0, 0.9, n))
    if cluster:
        options["cluster"] = rng.integers(0, max(2, n // 4), n)
    return time, event, np.array([f"g{c}" for c in codes]), risk, options


def _setting(rng):
    g = int(rng.integers(1, 7))
    return dict(
        n=int(rng.integers(max(20, 8 * g), 320)),
        g=g,
        ties=bool(rng.random() < 0.5),
        competing=bool(rng.random() < 0.25),
        weights=bool(rng.random() < 0.35),
        entry=bool(rng.random() < 0.3),
        cluster=bool(rng.random() < 0.2),
    )


def _estimator(rng, time, competing):
    method = "naive" if rng.random() < 0.3 else "ipcw"
    options = dict(method=method, strict=bool(rng.random() < 0.3))
    if method == "ipcw":
        options["censoring"] = "pooled" if rng.random() < 0.4 else "group"
    if rng.random() < 0.4:
        options["tau"] = float(np.quantile(time, rng.uniform(0.5, 0.9)))
    if competing:
        options["cause"] = 1
    return options


def _record(out, key, values):
    out[key] = np.asarray(values, dtype=float).ravel().copy()


def _xci_values(out, key, res):
    frame = res.to_frame()
    for column in ("xci", "se", "ci_low", "ci_high"):
        if column in frame:
            _record(out, f"{key}/{column}", frame[column].to_numpy(float))
    inf = getattr(res, "influence", None)
    if inf is not None:
        _record(out, f"{key}/influence.cells", inf.cells)
        _record(out, f"{key}/influence.overall", inf.overall)
        _record(out, f"{key}/influence.overall_variance", [inf.overall_variance])
        _record(out, f"{key}/influence.cell_se", inf.cell_se())
    jackknife = getattr(res, "jackknife", None)
    if jackknife is not None:
        _record(out, f"{key}/jackknife.cells", jackknife.cells)
        _record(out, f"{key}/jackknife.overall", jackknife.overall)


def dump(path: str) -> None:
    import survfair

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(20261127)
    out = {}

    def attempt(key, run):
        try:
            run()
        except Exception as error:  # the same error under both trees is the same behaviour
            out[f"{key}/error"] = f"{type(error).__name__}: {error}"

    for k in range(N_XCI):
        setting = _setting(rng)
        time, event, group, risk, options = _cohort(rng, **setting)
        estimator = _estimator(rng, time, setting["competing"])
        key = f"xci/{k}"
        out[f"{key}/setting"] = repr({**setting, **estimator})
        attempt(
            key,
            lambda: _xci_values(
                out,
                key,
                survfair.xci(time, event, group, risk, ci="analytic", **estimator, **options),
            ),
        )

    for k in range(N_BCA):
        setting = _setting(rng)
        setting["n"] = min(setting["n"], 160)
        time, event, group, risk, options = _cohort(rng, **setting)
        estimator = _estimator(rng, time, setting["competing"])
        key = f"bca/{k}"
        out[f"{key}/setting"] = repr({**setting, **estimator})
        attempt(
            key,
            lambda: _xci_values(
                out,
                key,
                survfair.xci(
                    time,
                    event,
                    group,
                    risk,
                    ci="bootstrap",
                    bootstrap_method="bca",
                    n_resamples=40,
                    random_state=k,
                    progress=False,
                    n_jobs=1,
                    **estimator,
                    **options,
                ),
            ),
        )

    for k in range(N_XAUC_T):
        setting = _setting(rng)
        time, event, group, risk, options = _cohort(rng, **setting)
        horizons = np.quantile(time, rng.uniform(0.2, 0.8, int(rng.integers(1, 4))))
        extra = dict(censoring="pooled" if rng.random() < 0.4 else "group")
        if setting["competing"]:
            extra.update(cause=1, controls="all" if rng.random() < 0.6 else "event_free")
        key = f"xauc_t/{k}"
        out[f"{key}/setting"] = repr({**setting, **extra, "times": horizons.tolist()})

        def run_xauc_t():
            frame = survfair.xauc_t(
                time, event, group, risk, times=horizons, ci="analytic", **extra, **options
            ).to_frame()
            for column in ("xauc", "se", "ci_low", "ci_high"):
                _record(out, f"{key}/{column}", frame[column].to_numpy(float))

        attempt(key, run_xauc_t)

    for k in range(N_PAIRED):
        setting = _setting(rng)
        time, event, group, risk, options = _cohort(rng, **setting)
        other = risk + rng.normal(0.0, 0.7, len(risk))
        estimator = _estimator(rng, time, setting["competing"])
        ci = "bootstrap" if k % 4 == 3 else "analytic"
        key = f"paired/{k}"
        out[f"{key}/setting"] = repr({**setting, **estimator, "ci": ci})

        def run_paired():
            first = survfair.xci(time, event, group, risk, ci="analytic", **estimator, **options)
            second = survfair.xci(time, event, group, other, ci="analytic", **estimator, **options)
            extra = (
                dict(n_resamples=40, random_state=k, progress=False, n_jobs=1)
                if ci == "bootstrap"
                else {}
            )
            table = survfair.compare_xci(first, second, ci=ci, **extra).table
            for column in ("difference", "se", "ci_low", "ci_high", "p_value"):
                _record(out, f"{key}/{column}", table[column].to_numpy(float))

        attempt(key, run_paired)

    np.save(path, np.array(out, dtype=object), allow_pickle=True)
    print(
        f"{path}: {len(out)} entries, "
        f"{sum(v.size for v in out.values() if isinstance(v, np.ndarray))} values"
    )


def compare(old_path: str, new_path: str) -> int:
    old = np.load(old_path, allow_pickle=True).item()
    new = np.load(new_path, allow_pickle=True).item()
    problems = []
    if set(old) != set(new):
        problems.append(
            f"different entries: only old {sorted(set(old) - set(new))[:10]}, "
            f"only new {sorted(set(new) - set(old))[:10]}"
        )
    worst, worst_key, count, identical, errors = 0.0, None, 0, 0, 0
    by_kind = {}
    for key in sorted(set(old) & set(new)):
        a, b = old[key], new[key]
        if not isinstance(a, np.ndarray):
            if a != b:
                problems.append(f"{key}: {a!r} != {b!r}")
            errors += key.endswith("/error")
            continue
        if a.shape != b.shape:
            problems.append(f"{key}: shapes {a.shape} != {b.shape}")
            continue
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        if not np.array_equal(nan_a, nan_b):
            problems.append(f"{key}: NaN in different places")
        both = ~(nan_a | nan_b)
        scale = np.maximum(np.abs(a[both]), np.abs(b[both]))
        diff = np.abs(a[both] - b[both])
        with np.errstate(invalid="ignore", divide="ignore"):
            relative = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), 0.0)
        same = int(np.sum(a[both].view(np.int64) == b[both].view(np.int64))) + int(
            np.sum(nan_a & nan_b)
        )
        kind = key.split("/")[0] + "/" + key.rsplit("/", 1)[1]
        entry = by_kind.setdefault(kind, [0, 0, 0.0])
        entry[0] += a.size
        entry[1] += same
        if relative.size and relative.max() > worst:
            worst, worst_key = float(relative.max()), key
        if relative.size:
            entry[2] = max(entry[2], float(relative.max()))
        count += a.size
        identical += same
    print(f"{'values':>44} {'bit-identical':>14} {'max rel diff':>13}")
    for kind, (size, same, largest) in sorted(by_kind.items()):
        print(f"{kind:>32} {size:>11} {same:>14} {largest:>13.3g}")
    settings = len({key.rsplit("/", 1)[0] for key in old if key.endswith("/setting")})
    print(
        f"{settings} settings ({errors} raising the same error under both), {count} values: "
        f"{identical} bit-identical ({identical / max(count, 1):.4%}), "
        f"max relative difference {worst:.3g}" + (f" ({worst_key})" if worst_key else "")
    )
    for problem in problems[:20]:
        print("MISMATCH", problem)
    bad = bool(problems) or worst > TOLERANCE
    print("FAIL" if bad else f"OK (every value within {TOLERANCE:g} relative)")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
