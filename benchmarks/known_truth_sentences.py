"""The findings' sentences where the truth is known (issue 41): run to print them.

python benchmarks/known_truth_sentences.py

Cases: a perfect model with its own curves (with and without calibration=); three scores that are
not the curves' own, against the true curves (refused; with reference_check="flag" the sentence);
a model missing a group effect; a null on 160 people without and with a reference; flchain, a
lifelines Cox model without sex fitted on one half and audited on the other (model= reference,
calibration at 1,825 and 3,650 days); a random survival forest on whas500 with its own curves.
"""

from __future__ import annotations

import textwrap
import warnings

import numpy as np

import survfair

warnings.simplefilter("ignore")


def show(title: str, sentences) -> None:
    print(f"\n## {title}")
    for sentence in sentences:
        print(textwrap.fill(sentence, 100, initial_indent="- ", subsequent_indent="  "))


def age_cohort(n=2000, seed=0, factor=(1.0, 1.0)):
    """Old (10 x baseline hazard) and young; the model's log hazard is the truth plus
    log(factor[group])."""
    rng = np.random.default_rng(seed)
    old = rng.random(n) < 0.5
    z = rng.normal(size=n)
    total = z + np.where(old, np.log(10.0), 0.0)
    t = rng.exponential(size=n) * np.exp(-total)
    c = 3 * rng.exponential(size=n)
    model = total + np.log(np.where(old, *factor))
    grid = np.linspace(0.01, 5.0, 500)
    curves = np.exp(-grid[None, :] * np.exp(model)[:, None])
    horizons = [1.0, 2.0]
    risks = np.column_stack([-np.expm1(-h * np.exp(model)) for h in horizons])
    time, event, group = np.minimum(t, c), t <= c, np.where(old, "old", "young")
    cal = survfair.calibration(time, event, group, risks, horizons)
    return dict(
        time=time,
        event=event,
        group=group,
        z=z,
        old=old,
        model=model,
        grid=grid,
        curves=curves,
        cal=cal,
        rng=rng,
    )


def perfect():
    d = age_cohort()
    res = survfair.model_based_xci(
        d["time"],
        d["event"],
        d["group"],
        d["model"],
        survival=d["curves"],
        times=d["grid"],
        tau=2.0,
    )
    show(
        "Perfect model, its own curves, no calibration given", survfair.findings(res).sentences[1:3]
    )
    show(
        "Perfect model, its own curves, calibration at 1 and 2",
        survfair.findings(res, calibration=d["cal"]).sentences[1:2],
    )


def inconsistent():
    d = age_cohort()
    scores = {
        "ignores the old group's 10x baseline": d["z"],
        "pure noise": d["rng"].normal(size=d["z"].size),
        "every young person above every old one": d["z"] - 100 * d["old"],
    }
    for name, score in scores.items():
        kw = dict(survival=d["curves"], times=d["grid"], tau=2.0)
        c = survfair.xci(d["time"], d["event"], d["group"], score, tau=2.0)
        try:
            survfair.model_based_xci(d["time"], d["event"], d["group"], score, **kw)
        except ValueError as error:
            show(
                f"True curves, a score that {name} (C = {survfair.overall_c(c).value:.2f}): "
                "model_based_xci refuses",
                [str(error)],
            )
        flagged = survfair.model_based_xci(
            d["time"], d["event"], d["group"], score, reference_check="flag", **kw
        )
        show(
            "... with reference_check='flag', calibration given",
            survfair.findings(flagged, calibration=d["cal"]).sentences[1:2],
        )


def missing_group_effect():
    d = age_cohort(factor=(0.1, 1.0))  # the model leaves out the old group's 10x hazard
    res = survfair.model_based_xci(
        d["time"],
        d["event"],
        d["group"],
        d["model"],
        survival=d["curves"],
        times=d["grid"],
        tau=2.0,
    )
    show(
        "A model missing the group effect (its own score and curves, no age term), "
        "calibration given",
        survfair.findings(res, calibration=d["cal"]).sentences[1:2],
    )


def null_160():
    rng = np.random.default_rng(1)
    n = 160
    group = np.where(rng.random(n) < 0.5, "a", "b")
    lp = rng.normal(size=n)
    t = rng.exponential(size=n) * np.exp(-lp)
    c = 3 * rng.exponential(size=n)
    time, event = np.minimum(t, c), t <= c
    res = survfair.xci(time, event, group, lp, tau=2.0)
    show(
        "A null on 160 people (exchangeable groups, the true risk), no reference",
        survfair.findings(res).sentences[1:2],
    )
    ref = survfair.model_based_xci(
        time, event, group, None, linear_predictor=lp, baseline=([0.0, 10.0], [0.0, 10.0]), tau=2.0
    )
    risks = np.column_stack([-np.expm1(-h * np.exp(lp)) for h in (1.0, 2.0)])
    cal = survfair.calibration(time, event, group, risks, [1.0, 2.0])
    show(
        "The same null with the true model as reference, calibration given",
        survfair.findings(ref, calibration=cal).sentences[1:2],
    )


def flchain():
    from lifelines import CoxPHFitter

    # as docs/how-to/model-based.md: 2,000 people, the model fitted on 1,000, audited on the others
    frame = survfair.load_flchain().frame.sample(2000, random_state=0).reset_index(drop=True)
    train, test = frame.iloc[:1000], frame.iloc[1000:].reset_index(drop=True)
    columns = ["age", "kappa", "lambda", "creatinine", "mgus"]
    cox = survfair.fit_checked(
        CoxPHFitter(),
        train[columns + ["time"]].assign(event=train["event"].astype(int)),
        "time",
        "event",
    )
    res = survfair.model_based_xci(
        "time", "event", "sex", None, data=test, model=cox, X=test[columns], tau=4000.0
    )
    horizons = [1825.0, 3650.0]
    cal = survfair.calibration(
        "time",
        "event",
        "sex",
        survfair.predicted_risks(cox, test[columns], horizons),
        horizons,
        data=test,
    )
    show(
        "flchain, lifelines Cox without sex (fitted on one half, audited on the other), "
        "model= reference, no calibration",
        survfair.findings(res).sentences[1:2],
    )
    show(
        "... with calibration at 1,825 and 3,650 days",
        survfair.findings(res, calibration=cal).sentences[1:2],
    )


def whas500_forest():
    from sksurv.datasets import load_whas500
    from sksurv.ensemble import RandomSurvivalForest

    X, y = load_whas500()
    X = X.astype(float)
    forest = RandomSurvivalForest(n_estimators=100, min_samples_leaf=15, random_state=0).fit(X, y)
    sex = np.where(X["gender"] > 0, "F", "M")
    res = survfair.model_based_xci(
        y["lenfol"], y["fstat"], sex, None, model=forest, X=X, tau=1500.0
    )
    horizons = [365.0, 1095.0]
    cal = survfair.calibration(
        y["lenfol"], y["fstat"], sex, survfair.predicted_risks(forest, X, horizons), horizons
    )
    print(
        "\nwhas500 forest: reference agreement per cell",
        res.reference_agreement.round(3).tolist(),
    )
    show(
        "whas500, random survival forest (its own curves and score), calibration at 1 and 3 years",
        survfair.findings(res, calibration=cal).sentences[1:2],
    )


if __name__ == "__main__":
    perfect()
    inconsistent()
    missing_group_effect()
    null_160()
    flchain()
    whas500_forest()
