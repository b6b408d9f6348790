"""The censoring check (issue 42.4): survfair.censoring_dependence and
XCIResult.censoring_dependence."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter

import survfair as sf
from survfair._present.findings.ranking import censoring_sentence


def _cohort(seed: int, n: int = 800, dependent: bool = True):
    """x drives the event hazard and is the risk score; the censoring hazard rises with x too
    (``dependent``) or is independent of everything."""
    rng = np.random.default_rng(seed)
    group = np.where(rng.random(n) < 0.5, "F", "M")
    x = rng.normal(size=n)
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(np.exp(-0.7 * x) if dependent else np.full(n, 1.0))
    return np.minimum(t, c), t <= c, group, x


@pytest.fixture(scope="module")
def dependent():
    return _cohort(1)


def test_dependence_is_detected(dependent):
    time, event, group, x = dependent
    check = sf.censoring_dependence(time, event, group, x)
    table = check.to_frame()
    assert list(table["group"]) == ["F", "M"]
    assert (table["status"] == "estimated").all()
    assert (table["hazard_ratio"] > 1).all() and (table["ci_low"] > 1).all()
    assert (table["p_adjusted"] < 0.001).all()
    assert check.dependent_groups() == ("F", "M")
    assert table["n"].sum() == time.size
    assert (table["censored"] == [int((~event[group == g]).sum()) for g in ("F", "M")]).all()


def test_the_findings_say_it(dependent):
    time, event, group, x = dependent
    res = sf.xci(time, event, group, x, tau=float(np.quantile(time, 0.9)))
    sentences = sf.findings(res).sentences
    said = [s for s in sentences if s.startswith("Censoring depends on the risk")]
    assert len(said) == 1
    assert "within F (HR " in said[0] and "and M (HR " in said[0]
    assert "per SD" in said[0] and "Holm-adjusted p < 0.001" in said[0]
    assert "per-group Kaplan–Meier weights may bias these numbers" in said[0]
    assert 'censoring="cox"' in said[0]
    pooled = sf.xci(time, event, group, x, censoring="pooled", tau=float(np.quantile(time, 0.9)))
    assert "pooled Kaplan–Meier weights" in censoring_sentence(pooled, "holm", 0.05)


def test_one_group_in_one_sentence():
    # censoring follows x in F only
    time, event, group, x = _cohort(1)
    rng = np.random.default_rng(4)
    t = rng.exponential(np.exp(-x))
    c = np.where(group == "F", rng.exponential(np.exp(-0.7 * x)), rng.exponential(1.0, x.size))
    res = sf.xci(np.minimum(t, c), t <= c, group, x, ci=None)
    assert res.censoring_dependence.dependent_groups() == ("F",)
    text = censoring_sentence(res, "holm", 0.05)
    assert text.startswith("Censoring depends on the risk within F: HR ")
    assert " M" not in text


def test_independent_censoring_is_not_rejected():
    # Under independent censoring the test rejects in about 5% of cohorts. Seed 0 is the first seed
    # tried (not searched for a non-rejection); the property holds for this seed only.
    time, event, group, x = _cohort(0, dependent=False)
    res = sf.xci(time, event, group, x, tau=float(np.quantile(time, 0.9)))
    check = res.censoring_dependence
    assert check.dependent_groups() == ()
    assert (check.to_frame()["p_adjusted"] > 0.05).all()
    assert not any(s.startswith("Censoring") for s in sf.findings(res).sentences)
    assert not any("independent" in s for s in sf.findings(res).sentences)


def test_the_numbers_are_lifelines_own(dependent):
    time, event, group, x = dependent
    check = sf.censoring_dependence(time, event, group, x, confidence_level=0.9)
    for row in check.to_frame().itertuples():
        rows = group == row.group
        risk = x[rows]
        frame = pd.DataFrame(
            {
                "risk": (risk - risk.mean()) / risk.std(ddof=1),
                "T": time[rows],
                "C": (~event[rows]).astype(int),
            }
        )
        fit = CoxPHFitter(alpha=0.1).fit(frame, "T", "C")
        summary = fit.summary.loc["risk"]
        assert row.hazard_ratio == summary["exp(coef)"]
        assert row.coef == summary["coef"] and row.se == summary["se(coef)"]
        assert row.p_value == summary["p"]
        assert row.ci_low == summary["exp(coef) lower 90%"]
        assert row.ci_high == summary["exp(coef) upper 90%"]
    low, high = check.confidence_interval()
    assert list(low.index) == ["F", "M"] and (low.to_numpy() == check.to_frame()["ci_low"]).all()
    wide_low, wide_high = check.confidence_interval(0.99)
    assert (wide_low < low).all() and (wide_high > high).all()


def test_holm_across_groups(dependent):
    time, event, group, x = dependent
    table = sf.censoring_dependence(time, event, group, x).to_frame()
    np.testing.assert_allclose(
        table["p_adjusted"], sf.adjust_p_values(table["p_value"].to_numpy()), rtol=0, atol=0
    )


def test_the_result_computes_it_once_and_only_for_ipcw(dependent):
    time, event, group, x = dependent
    res = sf.xci(time, event, group, x, ci=None)
    first = res.censoring_dependence
    assert res.censoring_dependence is first
    assert first == sf.censoring_dependence(time, event, group, x)
    assert sf.xci(time, event, group, x, method="naive", ci=None).censoring_dependence is None


def test_not_estimable_groups_are_reported_not_raised():
    # group "a": risk = -time, so every censoring has the highest risk of its risk set (complete
    # separation: lifelines does not converge); "b": no censoring; "c": constant risk; "d": 3
    # censorings
    time = np.arange(1, 41, dtype=float)
    a = dict(time=time, event=np.tile([True, False], 20), risk=-time)
    rng = np.random.default_rng(0)
    b = dict(time=rng.exponential(size=30), event=np.ones(30, bool), risk=rng.normal(size=30))
    c = dict(time=rng.exponential(size=30), event=rng.random(30) < 0.5, risk=np.ones(30))
    d = dict(time=rng.exponential(size=30), event=np.arange(30) >= 3, risk=rng.normal(size=30))
    parts = {"a": a, "b": b, "c": c, "d": d}
    arrays = {k: np.concatenate([p[k] for p in parts.values()]) for k in ("time", "event", "risk")}
    group = np.concatenate([[g] * len(p["time"]) for g, p in parts.items()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fits' warnings are reasons, not warnings
        check = sf.censoring_dependence(arrays["time"], arrays["event"], group, arrays["risk"])
    table = check.to_frame().set_index("group")
    assert (table["status"] == "not estimable").all()
    assert table["hazard_ratio"].isna().all() and table["p_adjusted"].isna().all()
    assert "did not converge" in table.loc["a", "reason"]
    assert table.loc["b", "reason"] == "no censored row"
    assert table.loc["c", "reason"] == "the risk is constant within the group"
    assert table.loc["d", "reason"] == "3 censorings (fewer than 5)"
    assert set(check.not_estimable) == {"a", "b", "c", "d"}
    assert check.dependent_groups() == ()
    json.dumps(check.to_dict(), allow_nan=False)


def test_covariates_adjust_the_hazard_ratio():
    # censoring follows z, the risk is x + z: given z, censoring does not depend on the risk
    rng = np.random.default_rng(3)
    n = 1500
    group = np.where(rng.random(n) < 0.5, "F", "M")
    x, z = rng.normal(size=n), rng.normal(size=n)
    t, c = rng.exponential(np.exp(-x - z)), rng.exponential(np.exp(-z))
    data = pd.DataFrame(
        {"time": np.minimum(t, c), "event": t <= c, "group": group, "risk": x + z, "z": z}
    )
    alone = sf.censoring_dependence("time", "event", "group", "risk", data=data)
    given = sf.censoring_dependence("time", "event", "group", "risk", data=data, covariates="z")
    assert alone.dependent_groups() == ("F", "M")
    assert given.covariates == ("z",)
    assert (given.to_frame()["hazard_ratio"] < alone.to_frame()["hazard_ratio"]).all()
    as_array = sf.censoring_dependence(
        data["time"], data["event"], data["group"], data["risk"], covariates=z
    )
    np.testing.assert_array_equal(as_array.to_frame()["coef"], given.to_frame()["coef"])
    with pytest.warns(sf.ExcludedRowsWarning):
        only = sf.censoring_dependence(
            "time", "event", "group", "risk", data=data, covariates=["z"], groups=["M"]
        )
    assert only.to_frame()["coef"].iloc[0] == given.to_frame()["coef"].iloc[1]


@pytest.mark.parametrize(
    "covariates, match",
    [
        ("nope", r"covariates: column\(s\) \['nope'\] not in data"),
        (np.zeros((3, 1)), "covariates has 3 rows, the other inputs 10"),
        (np.zeros((10, 1, 1)), r"covariates must be 2-D"),
        (
            np.r_[np.nan, np.zeros(9)],
            r"covariates column 'x0' contains NaN or infinite values at rows \[0\]",
        ),
        (np.array(["a"] * 10, dtype=object), r"covariates column 'x0' must be numeric"),
    ],
    ids=["unknown column", "length", "3-D", "missing", "text"],
)
def test_bad_covariates_are_refused_naming_them(covariates, match):
    data = pd.DataFrame({"t": np.arange(1.0, 11.0), "e": [1, 0] * 5, "g": ["a"] * 10})
    with pytest.raises(sf.InvalidParameterError, match=match) as caught:
        sf.censoring_dependence("t", "e", "g", np.arange(10.0), data=data, covariates=covariates)
    assert caught.value.parameter == "covariates"


def test_confidence_level_is_checked():
    with pytest.raises(sf.InvalidParameterError, match="confidence_level"):
        sf.censoring_dependence([1, 2], [1, 0], ["a", "a"], [1, 2], confidence_level=1.5)


def test_competing_events_are_not_censorings():
    rng = np.random.default_rng(2)
    n = 400
    status = rng.choice([0, 1, 2], size=n)
    check = sf.censoring_dependence(
        rng.exponential(size=n), status, np.repeat(["a", "b"], n // 2), rng.normal(size=n), cause=1
    )
    counts = [int((status[:200] == 0).sum()), int((status[200:] == 0).sum())]
    assert list(check.to_frame()["censored"]) == counts


def test_the_cli_prints_it(tmp_path, dependent, capsys):
    from survfair.cli._main import main

    time, event, group, x = dependent
    path = tmp_path / "cohort.csv"
    pd.DataFrame({"time": time, "event": event.astype(int), "group": group, "risk": x}).to_csv(
        path, index=False
    )
    base = ["audit", "--data", str(path), "--time", "time", "--event", "event", "--group", "group"]
    assert main([*base, "--risk", "risk"]) == 0
    out = capsys.readouterr().out
    assert "censoring depends on the risk? (survfair.censoring_dependence" in out
    assert "Censoring depends on the risk within F" in out
    assert main([*base, "--risk", "risk", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    groups = payload[0]["censoring_dependence"]["groups"]
    assert [g["group"] for g in groups] == ["F", "M"] and groups[0]["hazard_ratio"] > 1


def test_the_report_has_a_section(tmp_path, dependent):
    time, event, group, x = dependent
    res = sf.xci(time, event, group, x, tau=float(np.quantile(time, 0.9)))
    text = sf.write_report(res, tmp_path / "audit.md", default_figures=False).read_text()
    assert "## Censoring check" in text and "| F | " in text.split("## Censoring check")[1]
    assert "Censoring depends on the risk within F" in text
    naive = sf.xci(time, event, group, x, method="naive")
    text = sf.write_report(naive, tmp_path / "naive.md", default_figures=False).read_text()
    assert "Censoring check" not in text


def test_a_cox_censoring_audit_checks_the_risk_given_its_covariates():
    # censoring follows z, the risk is x + z: the per-group KM weights are biased, the Cox model of
    # the censoring on z is not, and given z censoring no longer depends on the risk
    rng = np.random.default_rng(3)
    n = 1500
    group = np.where(rng.random(n) < 0.5, "F", "M")
    x, z = rng.normal(size=n), rng.normal(size=n)
    t, c = rng.exponential(np.exp(-x - z)), rng.exponential(np.exp(-z))
    data = pd.DataFrame(
        {"time": np.minimum(t, c), "event": t <= c, "group": group, "risk": x + z, "z": z}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.PositivityWarning)
        cox = sf.xci(
            "time", "event", "group", "risk", data=data, censoring="cox",
            censoring_covariates=["z"], ci=None,
        )  # fmt: skip
        km = sf.xci("time", "event", "group", "risk", data=data, ci=None)
    check = cox.censoring_dependence
    assert check.covariates == ("z",)
    assert check == sf.censoring_dependence(
        "time", "event", "group", "risk", data=data, covariates="z"
    )
    assert check.dependent_groups() == ()
    assert censoring_sentence(cox, "holm", 0.05) is None
    assert km.censoring_dependence.dependent_groups() == ("F", "M")


def test_a_large_group_is_fitted_on_a_seeded_subset(dependent, monkeypatch):
    """Above MAX_FIT_ROWS rows a group's model is fitted on a seeded random subset of that many
    (the cost bound): the same subset every call, and lifelines' numbers on exactly those rows."""
    from survfair._core import censoring_check

    monkeypatch.setattr(censoring_check, "MAX_FIT_ROWS", 300)
    time, event, group, x = dependent
    first = sf.censoring_dependence(time, event, group, x).to_frame()
    again = sf.censoring_dependence(time, event, group, x).to_frame()
    pd.testing.assert_frame_equal(first, again)
    assert (first["n_fitted"] == 300).all() and (first["n"] > 300).all()
    for k, row in enumerate(first.itertuples()):
        rows = censoring_check._fitted_rows(np.flatnonzero(group == row.group), False, k)
        risk = x[rows]
        frame = pd.DataFrame(
            {
                "risk": (risk - risk.mean()) / risk.std(ddof=1),
                "T": time[rows],
                "C": (~event[rows]).astype(int),
            }
        )
        assert row.coef == CoxPHFitter().fit(frame, "T", "C").summary.loc["risk", "coef"]
    assert (sf.censoring_dependence(time, event, group, x).to_frame()["n_fitted"] == 300).all()
