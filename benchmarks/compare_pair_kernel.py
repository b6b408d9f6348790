"""Same numbers, and speed, of the pair-count kernel in two source trees (numba before the port,
Cython after it).

    python benchmarks/compare_pair_kernel.py dump OUT.npy        # every setting's outputs
    python benchmarks/compare_pair_kernel.py compare OLD.npy NEW.npy
    python benchmarks/compare_pair_kernel.py speed [--old TREE] [--repeats 5] \
        [--sizes 1e6,1e7] [--groups 2,8]

Run ``dump`` under each tree in its own process; for the tree before the port (numba, no compiled
extension) put it first on PYTHONPATH::

    PYTHONPATH=/work/wt/ref .venv/bin/python benchmarks/compare_pair_kernel.py dump old.npy
    .venv/bin/python benchmarks/compare_pair_kernel.py dump new.npy
    .venv/bin/python benchmarks/compare_pair_kernel.py compare old.npy new.npy

(An editable meson-python install puts a finder in front of PYTHONPATH; when PYTHONPATH holds a
survfair checkout this script removes that finder so that the checkout is imported.)

``dump`` draws many random settings (seeded: the same inputs in either tree) and calls
``prepare_pairs``, ``count_pairs`` and ``count_pairs_and_contributions`` (G = 1..6, ties in time
and risk, strict, tau, naive vs censoring curves (Kaplan-Meier of each group's censoring, and
random curves that reach 0 or stop early), row_weight, case weights with zeros, delayed entry,
competing risks, n_jobs 1 and 2, n = 1..3000) and the full ``survfair.xci(..., ci="analytic")``.
``compare`` requires every integer equal and every float within 1e-12 relative, and counts the
bit-identical floats. ``speed`` times the single-threaded point estimate of both trees (medians of
alternating runs, each in a fresh process, after a warm-up call in that process) and the
n_jobs=2 / n_jobs=1 ratio of this tree.
"""

from __future__ import annotations

import os
import sys


def _use_pythonpath_checkout() -> None:
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isfile(os.path.join(entry, "survfair", "__init__.py")):
            sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "MesonpyMetaFinder"]
            if entry in sys.path:
                sys.path.remove(entry)
            sys.path.insert(0, entry)
            return


_use_pythonpath_checkout()

import numpy as np  # noqa: E402

N_SIZES = [1, 2, 3, 4, 7, 12, 30, 61, 150, 400, 1000, 3000]


def _curves(rng, time, event, codes, n_groups, kind):
    """Censoring curves as InverseCensoring: each group's censoring Kaplan-Meier, or random
    steps."""
    from survfair._core.censoring import CensoringCurves, censoring_kaplan_meier, inverse_censoring

    times, survival = [], []
    for g in range(n_groups):
        rows = codes == g
        if kind == "km" and rows.sum() > 0:
            t, k = censoring_kaplan_meier(time[rows], event[rows])
            t, k = np.asarray(t, float), np.asarray(k, float)
            if t.shape[0] == 0:
                t, k = np.array([time.max()]), np.array([1.0])
        else:
            m = int(rng.integers(1, 8))
            t = np.sort(
                rng.choice(
                    np.unique(np.concatenate([time, rng.uniform(0, time.max() + 1, 5)])),
                    m,
                    replace=True,
                )
            )
            t = np.unique(t)
            k = np.sort(rng.uniform(0.05, 1.0, t.shape[0]))[::-1]
            if rng.random() < 0.3:
                k[-1] = 0.0  # reaches 0: Inf weights after
            if rng.random() < 0.3:
                t = t[: max(1, t.shape[0] // 2)]  # stops early: NaN beyond, when K > 0
                k = k[: t.shape[0]]
        times.append(t)
        survival.append(k)
    return inverse_censoring(
        CensoringCurves("group", tuple(range(n_groups)), tuple(times), tuple(survival))
    )


def _setting(index):
    rng = np.random.default_rng(1000 + index)
    n = N_SIZES[index % len(N_SIZES)] if index % 5 else int(rng.integers(1, 3001))
    n_groups = int(rng.integers(1, 7))
    time = rng.exponential(1.0, n)
    if rng.random() < 0.6:
        time = np.round(time, int(rng.integers(0, 3)))  # ties in time
    state = rng.random(n)
    competing = None
    if rng.random() < 0.3:
        event = state < 0.4
        competing = (state >= 0.4) & (state < 0.7)
    else:
        event = state < 0.6
    codes = rng.integers(0, n_groups, n)
    if rng.random() < 0.5:
        codes = codes.astype(rng.choice([np.int16, np.int32, np.int64]))
    risk = rng.normal(0.0, 1.0, n) + 0.3 * codes
    if rng.random() < 0.6:
        risk = np.round(risk, int(rng.integers(0, 3)))  # ties in risk
    tol = float(rng.choice([0.0, 1e-8, 0.05, 0.3]))
    strict = bool(rng.random() < 0.3)
    tau = None if rng.random() < 0.6 else float(np.quantile(time, rng.uniform(0.3, 1.0)))
    curve_kind = rng.choice(["none", "km", "random"])
    row_weight = rng.uniform(0.2, 3.0, n) if rng.random() < 0.25 else None
    case_weight = None
    if rng.random() < 0.35:
        case_weight = rng.uniform(0.1, 4.0, n)
        case_weight[rng.random(n) < 0.15] = 0.0
    entry = None
    if rng.random() < 0.3:
        entry = time * rng.uniform(0.0, 1.0, n) * (rng.random(n) < 0.7)
        same = rng.random(n) < 0.05
        entry[same] = time[same]  # entry == time: never a later member
    n_jobs = int(rng.choice([1, 2]))
    inverse_k = (
        None if curve_kind == "none" else _curves(rng, time, event, codes, n_groups, curve_kind)
    )
    return dict(
        n=n,
        n_groups=n_groups,
        time=time,
        event=event,
        codes=codes,
        risk=risk,
        tol=tol,
        strict=strict,
        tau=tau,
        inverse_k=inverse_k,
        row_weight=row_weight,
        case_weight=case_weight,
        entry=entry,
        competing=competing,
        n_jobs=n_jobs,
    )


def _entries(_kernel, s):
    """``count(prepared)`` and ``count_with_contributions(prepared)`` of setting ``s`` in either
    kernel API (``prepared`` None: rows prepared afresh, single-threaded, as ``count_pairs`` did
    itself before): the options as one ``PairOptions`` (issue 43.5) or, in older trees, as
    keyword arguments."""
    rows = dict(case_weight=s["case_weight"], entry=s["entry"], competing=s["competing"])
    arrays = (s["time"], s["event"], s["codes"], s["risk"], s["n_groups"])
    if hasattr(_kernel, "PairOptions"):
        options = _kernel.PairOptions(
            tau=np.inf if s["tau"] is None else s["tau"],
            strict=s["strict"],
            inverse_k=s["inverse_k"],
            row_weight=s["row_weight"],
            n_jobs=s["n_jobs"],
        )

        def rows_of(prepared):
            return (
                _kernel.prepare_pairs(*arrays, s["tol"], **rows) if prepared is None else prepared
            )

        return (
            lambda prepared: _kernel.count_pairs(rows_of(prepared), options),
            lambda prepared: _kernel.count_pairs_and_contributions(rows_of(prepared), options),
        )
    common = dict(
        inverse_k=s["inverse_k"],
        tau=s["tau"],
        tied_tol=s["tol"],
        strict=s["strict"],
        row_weight=s["row_weight"],
        n_jobs=s["n_jobs"],
    )

    def given(prepared):  # prepared rows hold the row options (given once)
        return dict(prepared=prepared, **common, **(rows if prepared is None else {}))

    return (
        lambda prepared: _kernel.count_pairs(*arrays, **given(prepared)),
        lambda prepared: _kernel.count_pairs_and_contributions(*arrays, **given(prepared)),
    )


def _kernel_outputs(s) -> dict:
    from survfair._core import kernel as _kernel

    out = {}
    options = dict(case_weight=s["case_weight"], entry=s["entry"], competing=s["competing"])
    prep = _kernel.prepare_pairs(
        s["time"],
        s["event"],
        s["codes"],
        s["risk"],
        s["n_groups"],
        s["tol"],
        n_jobs=s["n_jobs"],
        **options,
    )
    for name in (
        "order",
        "time",
        "event",
        "codes",
        "rank",
        "lower",
        "tie_row",
        "upper",
        "group_sizes",
        "case_weight",
        "entry",
        "entry_asc",
        "competing",
    ):
        out[f"prep.{name}"] = np.asarray(getattr(prep, name))
    for k, values in enumerate(prep.leave):
        out[f"prep.leave{k}"] = np.asarray(values)
    count, count_with_contributions = _entries(_kernel, s)
    for label, prepared in (("fresh", None), ("prepared", prep)):
        counts, bad = count(prepared)
        for name in (
            "comparable",
            "concordant",
            "tied_risk",
            "tied_time",
            "numerator",
            "denominator",
        ):
            out[f"count_pairs.{label}.{name}"] = getattr(counts, name)
        out[f"count_pairs.{label}.bad"] = np.array(bad if bad is not None else (-1, -1))
    counts, bad, contributions = count_with_contributions(prep)
    for name in ("comparable", "concordant", "tied_risk", "tied_time", "numerator", "denominator"):
        out[f"contributions.counts.{name}"] = getattr(counts, name)
    out["contributions.bad"] = np.array(bad if bad is not None else (-1, -1))
    for name in (
        "earlier_numerator",
        "earlier_denominator",
        "later_numerator",
        "later_denominator",
        "order",
    ):
        out[f"contributions.{name}"] = np.asarray(getattr(contributions, name))
    if contributions.second_kind is not None:
        for k, values in enumerate(contributions.second_kind):
            out[f"contributions.second{k}"] = np.asarray(values)
    return out


def _xci_setting(index):
    rng = np.random.default_rng(50_000 + index)
    n = int(rng.choice([40, 120, 400, 1500, 3000]))
    n_groups = int(rng.integers(2, 6))
    time = rng.exponential(1.0, n)
    if rng.random() < 0.5:
        time = np.round(time, 1) + 0.1
    group = np.array([f"g{k}" for k in range(n_groups)])[rng.integers(0, n_groups, n)]
    risk = rng.normal(0.0, 1.0, n)
    if rng.random() < 0.5:
        risk = np.round(risk, 1)
    kwargs = dict(
        method=str(rng.choice(["ipcw", "naive"])),
        ci="analytic",
        progress=False,
        n_jobs=int(rng.choice([1, 2])),
        strict=bool(rng.random() < 0.25),
    )
    if rng.random() < 0.3:
        kwargs["tau"] = float(np.quantile(time, 0.8))
    if rng.random() < 0.3:
        kwargs["weights"] = rng.uniform(0.5, 2.0, n)
    if rng.random() < 0.25:
        kwargs["entry"] = time * rng.uniform(0.0, 0.5, n) * (rng.random(n) < 0.5)
    state = rng.random(n)
    if rng.random() < 0.25:
        event = np.where(state < 0.45, 1, np.where(state < 0.7, 2, 0))
        kwargs["cause"] = 1
    else:
        event = state < 0.6
    return time, event, group, risk, kwargs


def _xci_outputs(index) -> dict:
    import survfair

    time, event, group, risk, kwargs = _xci_setting(index)
    result = survfair.xci(time, event, group, risk, **kwargs)
    out = {
        "values": np.asarray(result.values, float),
        "se": np.asarray(result.se, float),
        "overall": np.array([result.overall], float),
    }
    if result.covariance is not None:
        out["covariance"] = np.asarray(result.covariance, float)
    for name in ("comparable", "concordant", "tied_risk", "tied_time", "numerator", "denominator"):
        out[name] = getattr(result.pair_counts, name)
    return out


def _guarded(function, index) -> dict:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(index)
    except Exception as error:  # the same error in both trees is the same behaviour
        return {"error": np.array(type(error).__name__)}


def dump(path, n_kernel=600, n_xci=80) -> None:
    results = {}
    for index in range(n_kernel):
        results[f"kernel{index}"] = _guarded(lambda i: _kernel_outputs(_setting(i)), index)
    for index in range(n_xci):
        results[f"xci{index}"] = _guarded(_xci_outputs, index)
    np.save(path, np.array(results, dtype=object), allow_pickle=True)
    errors = sum("error" in r for r in results.values())
    print(
        f"{len(results)} settings ({n_kernel} kernel, {n_xci} xci) -> {path}; "
        f"{errors} raised an error"
    )


def compare(old_path, new_path) -> int:
    old = np.load(old_path, allow_pickle=True).item()
    new = np.load(new_path, allow_pickle=True).item()
    problems = []
    n_int = n_float = n_identical = 0
    worst = (0.0, None)
    assert old.keys() == new.keys(), "different settings"
    for setting in old:
        a, b = old[setting], new[setting]
        if a.keys() != b.keys():
            problems.append(
                f"{setting}: keys differ {sorted(set(a) ^ set(b))} "
                f"{a.get('error')} {b.get('error')}"
            )
            continue
        for key in a:
            x, y = np.asarray(a[key]), np.asarray(b[key])
            if x.shape != y.shape:
                problems.append(f"{setting}.{key}: shapes {x.shape} vs {y.shape}")
                continue
            if x.dtype.kind in "biuU" or y.dtype.kind in "biuU":
                n_int += x.size
                if not np.array_equal(x, y) or (x.dtype.kind in "iu") != (y.dtype.kind in "iu"):
                    problems.append(f"{setting}.{key}: integers differ")
                continue
            x, y = x.astype(float).ravel(), y.astype(float).ravel()
            n_float += x.size
            same = (x == y) | (np.isnan(x) & np.isnan(y))
            n_identical += int(same.sum())
            # same-sign infinities are equal above; a nan on one side only is a difference
            finite = np.isfinite(x) & np.isfinite(y)
            if np.any(~same & ~finite):
                problems.append(f"{setting}.{key}: non-finite values differ")
            with np.errstate(invalid="ignore", divide="ignore"):
                scale = np.maximum(np.abs(x), np.abs(y))
                rel = np.where(finite & ~same, np.abs(x - y) / np.where(scale > 0, scale, 1.0), 0.0)
            if rel.size and rel.max() > worst[0]:
                worst = (float(rel.max()), f"{setting}.{key}")
            if rel.size and rel.max() > 1e-12:
                problems.append(f"{setting}.{key}: relative difference {rel.max():.3g}")
    errors = sum("error" in r for r in old.values())
    print(f"settings: {len(old)} ({errors} raise the same error in both)")
    print(f"integers compared: {n_int}, all equal: {not any('integers' in p for p in problems)}")
    print(
        f"floats compared: {n_float}, bit-identical: {n_identical} "
        f"({100 * n_identical / max(1, n_float):.4f}%)"
    )
    print(f"max relative difference: {worst[0]:.3g} ({worst[1]})")
    for problem in problems[:40]:
        print("PROBLEM", problem)
    print("OK" if not problems else f"{len(problems)} PROBLEMS")
    return 0 if not problems else 1


def _speed_child(n, n_groups, n_jobs_list, repeats):
    """In a fresh process: warm call, then ``repeats`` timed calls per n_jobs; prints JSON."""
    import json
    import time

    import survfair

    rng = np.random.default_rng(7)
    t = rng.exponential(1.0, n)
    c = rng.exponential(1.5, n)
    time_ = np.minimum(t, c)
    event = t <= c
    group = rng.integers(0, n_groups, n)
    risk = rng.normal(0.0, 1.0, n) - np.log(t)
    survfair.xci(
        time_, event, group, risk, method="ipcw", ci=None, n_jobs=1, progress=False
    )  # warm
    times = {}
    for n_jobs in n_jobs_list:
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            survfair.xci(
                time_, event, group, risk, method="ipcw", ci=None, n_jobs=n_jobs, progress=False
            )
            runs.append(time.perf_counter() - start)
        times[n_jobs] = runs
    print(json.dumps(times))


def speed(old_tree, sizes, groups, repeats, rounds) -> None:
    import json
    import subprocess

    script = os.path.abspath(__file__)
    results = {}
    for n in sizes:
        for n_groups in groups:
            for round_ in range(rounds):
                for label in ("old", "new"):  # alternate the trees
                    env = dict(os.environ)
                    env.pop("PYTHONPATH", None)
                    jobs = "1" if label == "old" else "1,2"
                    if label == "old":
                        env["PYTHONPATH"] = old_tree
                    out = subprocess.run(
                        [
                            sys.executable,
                            script,
                            "_child",
                            str(n),
                            str(n_groups),
                            jobs,
                            str(repeats),
                        ],
                        env=env,
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    for n_jobs, runs in json.loads(out.stdout.strip().splitlines()[-1]).items():
                        results.setdefault((n, n_groups, label, int(n_jobs)), []).extend(runs)
            old1 = np.median(results[(n, n_groups, "old", 1)])
            new1 = np.median(results[(n, n_groups, "new", 1)])
            new2 = np.median(results[(n, n_groups, "new", 2)])
            print(
                f"n={n:.0e} G={n_groups}: numba n_jobs=1 {old1:.3f} s | "
                f"cython n_jobs=1 {new1:.3f} s "
                f"(numba/cython {old1 / new1:.2f}x) | cython n_jobs=2 {new2:.3f} s "
                f"(n_jobs=1 / n_jobs=2 = {new1 / new2:.2f}x)",
                flush=True,
            )


def main(argv) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "dump":
        dump(argv[2])
        return 0
    if command == "compare":
        return compare(argv[2], argv[3])
    if command == "_child":
        _speed_child(int(argv[2]), int(argv[3]), [int(j) for j in argv[4].split(",")], int(argv[5]))
        return 0
    if command == "speed":
        import argparse

        parser = argparse.ArgumentParser(prog="compare_pair_kernel.py speed")
        parser.add_argument("--old", default="/work/wt/ref")
        parser.add_argument("--sizes", default="1e6,1e7")
        parser.add_argument("--groups", default="2,8")
        parser.add_argument("--repeats", type=int, default=3)
        parser.add_argument("--rounds", type=int, default=2)
        args = parser.parse_args(argv[2:])
        speed(
            args.old,
            [int(float(s)) for s in args.sizes.split(",")],
            [int(g) for g in args.groups.split(",")],
            args.repeats,
            args.rounds,
        )
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
