"""What a reader sees, from one checkout against another's: summaries, findings, HTML, reports.

Written for the reorganisation into subpackages (issue 35), which must not change a number or a
word. Dump under each tree, then compare (every string must be equal, character for character):

    python benchmarks/compare_presentation.py dump before.json
    python benchmarks/compare_presentation.py dump after.json
    python benchmarks/compare_presentation.py compare before.json after.json

The results (about 70): ``xci`` on seeded cohorts (G = 1 to 5; naive and IPCW; ties; tau; case
weights; analytic and percentile-bootstrap intervals), paired comparisons, ``xauc``, ``xauc_t``,
``calibration`` and ``model_based_xci``. For each: ``repr``, ``to_frame()``, the summary tables,
``findings`` (and ``calibration_findings``), the notebook HTML and the HTML and Markdown reports
(with the date and the survfair version masked).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np


def cohort(seed: int, g: int, ties: bool):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(150, 600))
    codes = rng.integers(0, g, n)
    x = rng.normal(size=n) + 0.4 * codes
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(1.5, n)
    time, event = np.minimum(t, c), (t <= c).astype(int)
    risk = x + rng.normal(scale=0.7, size=n)
    if ties:
        time, risk = np.round(time, 1) + 0.1, np.round(risk, 1)
    group = np.array(["grp" + "ABCDE"[k] for k in codes])
    return rng, n, time, event, group, risk, x


def _mask(text: str) -> str:
    text = re.sub(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?", "<date>", text)
    return re.sub(r"survfair \d+\.\d+\S*", "survfair <version>", text)


def _reports(result, **options) -> dict:
    import survfair

    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for suffix in ("html", "md"):
            path = Path(folder) / f"report.{suffix}"
            survfair.write_report(result, path, default_figures=False, **options)
            out[f"report.{suffix}"] = _mask(path.read_text())
    return out


def _frame(table) -> str:
    return table.to_csv(float_format="%.15g") if table is not None else "None"


def _matrix_views(result) -> dict:
    import survfair

    out = {
        "repr": repr(result),
        "to_frame": _frame(result.to_frame()),
        "html": result._repr_html_() or "None",
    }
    for name in ("pairwise_deltas",):
        out[name] = _frame(getattr(survfair, name)(result))
    found = survfair.findings(result)
    out["findings"] = found.to_text()
    out["findings.dict"] = json.dumps(found.to_dict(), default=str, sort_keys=True)
    out["flags"] = _frame(survfair.small_sample_flags(result))
    out.update(_reports(result))
    return out


def xci_results():
    import survfair

    k = 0
    for g in (1, 2, 3, 5):
        for method in ("naive", "ipcw"):
            for ties in (False, True):
                for extra in ("plain", "tau", "weights", "bootstrap"):
                    k += 1
                    if extra == "bootstrap" and (g == 5 or ties):
                        continue
                    rng, n, time, event, group, risk, _ = cohort(1000 + k, g, ties)
                    options = dict(method=method, ci="analytic")
                    if method == "ipcw" or extra == "tau":
                        options["tau"] = float(np.quantile(time, 0.6 if extra == "tau" else 0.8))
                    if extra == "weights":
                        options["weights"] = rng.uniform(0.5, 2.0, n)
                    if extra == "bootstrap":
                        options.update(
                            ci="bootstrap",
                            n_resamples=60,
                            random_state=k,
                            bootstrap_method="percentile",
                        )
                    yield (
                        f"xci-{g}-{method}-{ties}-{extra}",
                        survfair.xci(time, event, group, risk, **options),
                    )


def paired_results():
    import survfair

    for k, g in enumerate((2, 3)):
        rng, n, time, event, group, risk, x = cohort(2000 + k, g, False)
        other = x + rng.normal(scale=1.2, size=n)
        tau = float(np.quantile(time, 0.8))
        first = survfair.xci(time, event, group, risk, method="ipcw", tau=tau)
        second = survfair.xci(time, event, group, other, method="ipcw", tau=tau)
        yield f"paired-{g}", survfair.compare_xci(first, second)


def binary_results():
    import survfair

    for k, g in enumerate((2, 3, 4)):
        rng, n, time, event, group, risk, x = cohort(3000 + k, g, False)
        y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
        yield f"xauc-{g}", survfair.xauc(y, group, x + rng.normal(size=n))
        yield f"xauc_t-{g}", survfair.xauc_t(time, event, group, risk, times=[0.3, 0.8])


def dump(path: str) -> None:
    import survfair

    views = {}
    warnings.simplefilter("ignore")
    for name, result in xci_results():
        views[name] = _matrix_views(result)
    for name, result in paired_results():
        views[name] = {
            "repr": repr(result),
            "to_frame": _frame(result.to_frame()),
            "html": result._repr_html_() or "None",
        }
    for name, result in binary_results():
        if name.startswith("xauc_t"):
            views[name] = {
                "repr": repr(result),
                "to_frame": _frame(result.to_frame()),
                "html": result._repr_html_() or "None",
                "matrix": _frame(result.matrix(horizon=0.8)),
            }
        else:
            views[name] = _matrix_views(result)
            views[name]["balanced"] = _frame(survfair.balanced_xauc(result))
    for k, g in enumerate((2, 3)):
        rng, n, time, event, group, risk, x = cohort(4000 + k, g, False)
        predicted = 1 - np.exp(-0.8 * np.exp(x))
        cal = survfair.calibration(time, event, group, predicted, times=0.8)
        views[f"calibration-{g}"] = {
            "repr": repr(cal),
            "summary": _frame(cal.summary()),
            "to_frame": _frame(cal.to_frame()),
            "html": cal._repr_html_() or "None",
            "findings": survfair.calibration_findings(cal).to_text(),
        }
        result = survfair.xci(
            time, event, group, x, method="ipcw", tau=float(np.quantile(time, 0.8))
        )
        views[f"calibration-{g}"].update(_reports(result, calibration=cal))
    for k, g in enumerate((2, 3)):
        rng = np.random.default_rng(5000 + k)
        n = 500
        group = np.array(["grp" + "ABC"[c] for c in rng.integers(0, g, n)])
        lp = rng.normal(size=n)
        scale = np.where(group == "grpA", 2.0, 8.0)
        t = scale * rng.exponential(size=n) * np.exp(-lp)
        grid = np.linspace(0.2, 20, 50)
        curves = np.exp(-grid[None, :] / scale[:, None] * np.exp(lp)[:, None])
        mb = survfair.model_based_xci(
            t, np.ones(n, bool), group, lp, survival=curves, times=grid, tau=20.0
        )
        views[f"model_based-{g}"] = {
            "repr": repr(mb),
            "summaries": _frame(mb.summaries()),
            "findings": survfair.findings(mb).to_text(),
            "to_frame": _frame(mb.to_frame()),
        }
    Path(path).write_text(json.dumps(views, sort_keys=True))
    print(f"{len(views)} results, {sum(len(v) for v in views.values())} views -> {path}")


def compare(before: str, after: str) -> int:
    first, second = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    differ = [
        (name, view)
        for name in sorted(set(first) | set(second))
        for view in sorted(set(first.get(name, {})) | set(second.get(name, {})))
        if first.get(name, {}).get(view) != second.get(name, {}).get(view)
    ]
    print(
        f"{len(first)} results, {sum(len(v) for v in first.values())} views; {len(differ)} differ"
    )
    for name, view in differ[:20]:
        print("  differs:", name, view)
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
