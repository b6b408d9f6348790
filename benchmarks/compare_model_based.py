"""The numbers of ``model_based_xci`` / ``model_based_xauc`` in one survfair checkout against
another's, through the public API.

Written when the model-based result moved to compact influence rows (issue 43.2): every cell,
excess, standard error, interval, p-value, degrees of freedom, contrast, export and the dense
influence rows within 1e-12 relative of the dense implementation. Run it under each tree, then
compare:

    PYTHONPATH=/path/to/reference python benchmarks/compare_model_based.py dump reference.npy
    python benchmarks/compare_model_based.py dump this.npy
    python benchmarks/compare_model_based.py compare reference.npy this.npy

The settings (``--settings``, default 120, each its own seeded cohort of 30 to 400 rows): G = 1 to
6; naive or IPCW with "group" or "pooled" censoring curves; ties in time and risk or none; tau or
none; clusters or none; survival curves on a grid, the exact PH reference with a Breslow or a given
baseline, or the Monte-Carlo PH reference; plus xAUC settings. ``model_based_xci`` has no case
weights: random contrast coefficients stand for weights.
"""

from __future__ import annotations

import json
import math
import sys
import warnings

import numpy as np
from compare_reference import compare as compare_dumps


def setting(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return dict(
        g=1 + seed % 6,
        method=["naive", "group", "pooled"][(seed // 6) % 3],
        ties=bool(rng.random() < 0.5),
        tau=bool(rng.random() < 0.5),
        cluster=bool(rng.random() < 0.25),
        reference=["survival", "ph", "ph_baseline", "monte_carlo"][int(rng.integers(0, 4))],
    )


def _cohort(seed: int, s: dict):
    rng = np.random.default_rng(10_000 + seed)
    n = int(rng.integers(30, 400))
    codes = rng.integers(0, s["g"], n)
    codes[: s["g"]] = np.arange(s["g"])
    lp = rng.normal(size=n) + 0.3 * codes
    t = rng.exponential(size=n) * np.exp(-lp)
    c = rng.exponential(2.0, n)
    time, event = np.minimum(t, c), t <= c
    risk = lp + rng.normal(scale=0.3, size=n)
    if s["ties"]:
        time, risk = np.round(time, 1) + 0.1, np.round(risk, 1)
    return rng, n, time, event, codes, lp, risk


def _model_based(seed: int, s: dict):
    import survfair

    rng, n, time, event, codes, lp, risk = _cohort(seed, s)
    options = dict(
        method="naive" if s["method"] == "naive" else "ipcw",
        tau=float(np.quantile(time[event], 0.8)) if s["tau"] else None,
        reference_check="flag",
    )
    if s["method"] != "naive":
        options["censoring"] = s["method"]
    if s["cluster"]:
        options["cluster"] = rng.integers(0, 25, n)
    if s["reference"] == "survival":
        grid = np.linspace(0.0, float(time.max()) * 1.01, 40)
        options.update(survival=np.exp(-grid[None, :] * np.exp(lp)[:, None]), times=grid)
    elif s["reference"] == "ph_baseline":
        options.update(linear_predictor=lp, baseline=([0.0, 1e3], [0.0, 1e3]))
    else:
        options["linear_predictor"] = lp
        if s["reference"] == "monte_carlo":
            options.update(reference_method="monte_carlo", random_state=seed)
    return survfair.model_based_xci(time, event, codes, risk, **options)


def _xauc(seed: int):
    import survfair

    rng = np.random.default_rng(20_000 + seed)
    g, n = 1 + seed % 5, int(rng.integers(40, 300))
    codes = rng.integers(0, g, n)
    codes[:g] = np.arange(g)
    p = 1 / (1 + np.exp(-(rng.normal(size=n) + 0.5 * codes)))
    y = (rng.random(n) < p).astype(int)
    return survfair.model_based_xauc(y, codes, np.round(p, 2), probability=p)


def _numbers(value, out: list, words: list) -> None:
    """Every number of a JSON-like value in order (None as NaN), everything else as text."""
    if isinstance(value, dict):
        for key in sorted(value):
            words.append(str(key))
            _numbers(value[key], out, words)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _numbers(item, out, words)
    elif isinstance(value, bool) or isinstance(value, str):
        words.append(repr(value))
    elif value is None:
        out.append(math.nan)
    else:
        out.append(float(value))


def _record(result, seed: int) -> dict:
    g = len(result.groups)
    rng = np.random.default_rng(30_000 + seed)
    contrasts = rng.normal(size=(5, g * g)) * (rng.random((5, g * g)) < 0.4)
    record = dict(
        numerator=result.numerator,
        denominator=result.denominator,
        observed=result.observed.values,
        model_based=result.model_based_values,
        excess=result.excess_values,
        frame=result.to_frame().select_dtypes("number").to_numpy(float),
        effective_df=result.effective_df(contrasts),
        effective_df_cells=result.effective_df(np.eye(g * g)),
    )
    for of in ("excess", "model_based", "observed"):
        record[f"se {of}"] = result.se(of).to_numpy()
        low, high = result.confidence_interval(0.9, of=of)
        record[f"ci {of}"] = np.stack([low.to_numpy(), high.to_numpy()])
        record[f"contrasts {of}"] = np.stack(result.contrast_inference(contrasts, of))
    summaries = result.summaries(0.8)
    if len(summaries):
        record["summaries"] = summaries.select_dtypes("number").to_numpy(float)
    if g > 1:
        labels = list(result.groups)
        for kind in ("delta_between", "delta_within"):
            est = result.estimate(kind, labels[0], labels[-1])
            record[kind] = np.array(
                [est.value, est.se, *est.confidence_interval, est.p_value], float
            )
    numbers, words = [], []
    _numbers(json.loads(json.dumps(result.to_dict())), numbers, words)
    record["to_dict"] = np.array(numbers)
    record["to_dict text"] = np.array(["|".join(words)])
    if result.influence is not None:
        record["influence"] = np.asarray(result.influence, float)
        record["observed_influence"] = np.asarray(result.observed_influence, float)
    return record


def dump(path: str, settings: int = 120) -> None:
    import survfair

    out = {}
    warnings.simplefilter("ignore")
    for seed in range(settings):
        s = setting(seed)
        key = f"xci {seed} {s}"
        try:
            out[key] = _record(_model_based(seed, s), seed)
        except Exception as error:  # the same error in both trees is the same behaviour
            out[key] = {"error": f"{type(error).__name__}: {error}"}
    for seed in range(max(settings // 6, 1)):
        try:
            out[f"xauc {seed}"] = _record(_xauc(seed), seed)
        except Exception as error:
            out[f"xauc {seed}"] = {"error": f"{type(error).__name__}: {error}"}
    np.save(path, out, allow_pickle=True)
    print(f"{len(out)} settings written to {path} by survfair from {survfair.__file__}")


def compare(reference_path: str, this_path: str) -> int:
    """compare_reference.py's comparison, with the labels (strings) compared exactly."""
    return compare_dumps(
        reference_path, this_path, exact=lambda name, values: values.dtype.kind in "US"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"]:
        dump(sys.argv[2], *(int(v) for v in sys.argv[3:4]))
    elif sys.argv[1:2] == ["compare"]:
        raise SystemExit(compare(sys.argv[2], sys.argv[3]))
    else:
        raise SystemExit(__doc__)
