"""Findings sentences (survfair._present.findings.ranking): direction on constructed results, flags,
adjustment."""

import json

import numpy as np
import pytest

import survfair
from survfair._present.findings.ranking import findings, small_sample_flags


def _asymmetric(first="F", second="M", n=400, seed=0):
    """The model over-scores ``first``: its members who have the event first are ranked above
    members of ``second`` more often than the reverse."""
    rng = np.random.default_rng(seed)
    group = np.where(np.arange(n) % 2 == 0, first, second)
    time = rng.permutation(n).astype(float) + 1
    risk = -time + rng.normal(0, 100, n) + 80.0 * (group == first)
    return time, np.ones(n, bool), group, risk


@pytest.mark.parametrize("first, second", [("F", "M"), ("M", "F")])
def test_the_asymmetry_sentence_gives_the_direction_without_blaming_the_model(first, second):
    res = survfair.xci(*_asymmetric(first, second), method="naive")
    forward, backward = res.matrix.loc[first, second], res.matrix.loc[second, first]
    assert forward - backward > 0.2
    sentence = next(s for s in findings(res).sentences if s.startswith("Largest cross-group"))
    # issue 41: one orientation per pair, the group order (F before M), signed a - b; the words
    # name the favoured group
    a, b = res.groups
    assert sentence.startswith(
        f"Largest cross-group asymmetry, {a} vs {b}: when a member of {a} "
        f"had the event first, the model ranked them above the member of {b} "
        f"{100 * res.matrix.loc[a, b]:.1f}%"
    )
    sign = "+" if a == first else "-"
    assert f"Δbetween({a}, {b}) = {sign}" in sentence
    assert (
        f"members of {second} who had the event first were ranked correctly less often than "
        "members of "
        f"{first}"
    ) in sentence
    # issue 32: an observed asymmetry alone never names a disadvantaged group
    assert "disadvantaged" not in sentence
    assert f"This alone does not show that the model treats {second} worse" in sentence
    assert "survfair.model_based_xci" in sentence
    assert "Holm-adjusted p < 0.001; the interval excludes 0" in sentence
    worst = next(s for s in findings(res).sentences if s.startswith("Worst-served"))
    assert worst.startswith(
        f"Worst-served cell ({second}, {first}): when a member of {second} had the event first"
    )


def test_binary_sentences_speak_of_positives_and_negatives():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    g = rng.choice(["a", "b"], 600)
    s = (
        y + rng.normal(size=600) + 1.0 * (g == "b")
    )  # b's scores are inflated: b's positives rank high
    res = survfair.xauc(y, g, s)
    sentence = next(x for x in findings(res).sentences if x.startswith("Largest cross-group"))
    assert sentence.startswith(  # the group order (issue 41)
        "Largest cross-group asymmetry, a vs b: a positive of a was scored above a negative of b"
    )
    assert "positives of a were scored above negatives of b less often than the reverse" in sentence
    assert "under-served" not in sentence and "disadvantaged" not in sentence
    assert "survfair.model_based_xauc" in sentence
    assert findings(res).sentences[0].startswith("Pooled AUC: ")


def test_adjusted_p_values_are_those_of_each_family():
    rng = np.random.default_rng(2)
    n = 900
    g = rng.choice(list("abcd"), n)
    risk = rng.normal(size=n) + 0.3 * (g == "a")
    time = rng.exponential(np.exp(-rng.normal(size=n) - risk))
    res = survfair.xci(time, np.ones(n, bool), g, risk, method="naive")
    deltas = findings(res, adjust="bh").deltas
    for summary in ("delta_between", "delta_within"):
        part = deltas[deltas["summary"] == summary]
        np.testing.assert_array_equal(
            part["p_adjusted"], survfair.adjust_p_values(part["p_value"], adjust="bh")
        )
    text = findings(res, adjust="bh").to_text()
    assert "BH-adjusted" in text and "joint test of no cross-group asymmetry: chi-square(" in text


def test_without_inference_no_interval_or_p_value_is_claimed():
    res = survfair.xci(*_asymmetric(), method="naive", ci=None)
    text = findings(res).to_text()
    assert "[" not in text and "p =" not in text and "p <" not in text and "joint test" not in text


def test_small_cells_are_flagged_with_the_reason():
    time = np.arange(1, 41, dtype=float)
    group = np.array(["big"] * 36 + ["tiny"] * 4)
    risk = -time
    # the counts only: without inference no cell has a standard error to be 0
    res = survfair.xci(time, np.ones(40, bool), group, risk, method="naive", ci=None)
    flags = small_sample_flags(res)
    tiny = flags.set_index(["a", "b"]).loc[("tiny", "tiny")]
    assert (
        tiny["flagged"]
        and tiny["reason"]
        == "4 events in tiny (< 10); 4 members in tiny (< 10); 6 comparable pairs (< 100)"
    )
    sentence = findings(res).sentences[-1]
    # (big, big): 36 events, 630 pairs; (big, tiny): 144 pairs but the later members are 4 people
    assert (
        sentence.startswith("3 of 4 cells rest on little data")
        and "covered as little as 90%" in sentence
    )
    # without intervals the interval rule (events of either group < 35) does not apply
    assert not flags["narrow_interval"].any() and "35 events in either group" not in sentence
    assert flags.set_index(["a", "b"]).loc[("big", "tiny"), "reason"] == "4 members in tiny (< 10)"
    relaxed = small_sample_flags(res, min_events=1, min_pairs=1)
    # the tiny group's events all come after the big group's: no (tiny, big) pair is comparable
    assert relaxed["flagged"].tolist() == [False, False, True, False]
    assert relaxed["reason"][2] == "0 comparable pairs (< 1)"


def test_a_cell_resting_on_a_small_column_group_is_flagged():
    """Issue 14 audit: xCI flags looked only at the row group's events, so a cell whose later
    members were 4 people showed "0.0% [0.0%, 0.0%]" unflagged (binary audits check both)."""
    rng = np.random.default_rng(3)
    group = np.array(["big"] * 300 + ["four"] * 4)
    risk = rng.normal(size=304)
    time = rng.exponential(np.exp(-risk))
    event = (group == "big") | (np.arange(304) % 2 == 0)
    res = survfair.xci(time, event, group, risk, method="naive")
    flags = small_sample_flags(res).set_index(["a", "b"])
    assert res.pair_counts.comparable[0, 1] >= 100  # enough pairs, but 4 later members
    assert (
        flags.loc[("big", "four"), "flagged"]
        and "4 members in four (< 10)" in flags.loc[("big", "four"), "reason"]
    )
    assert flags.loc[("big", "four"), "controls"] == 4 and not flags.loc[("big", "big"), "flagged"]


def test_a_cell_with_standard_error_0_is_flagged_and_shown_without_an_interval():
    """Issue 14 audit: cells at exactly 0% or 100% (standard error 0) were printed as
    "0.0% [0.0%, 0.0%]", a zero-width interval read as precision, and fed the joint test."""
    rng = np.random.default_rng(5)
    group = np.array(["a"] * 200 + ["b"] * 200)
    risk = rng.normal(size=400) + 10.0 * (group == "a")  # every pair (a, b) is ranked the same way
    time = rng.exponential(np.exp(-rng.normal(size=400) - 5.0 * (group == "a")))
    res = survfair.xci(time, np.ones(400, bool), group, risk, method="naive")
    assert res.matrix.loc["a", "b"] == 1.0 and res.matrix.loc["b", "a"] == 0.0
    flags = small_sample_flags(res).set_index(["a", "b"])
    assert flags.loc[("a", "b"), "no_variance"] and flags.loc[("a", "b"), "reason"] == (
        "estimated at 100.0%, standard error 0 (no variance estimate)"
    )
    assert not flags.loc[("a", "a"), "flagged"]
    f = findings(res)
    headline = f.sentences[1]
    assert (
        "100.0% (no interval: standard error 0)" in headline and "[100.0%, 100.0%]" not in headline
    )
    assert "Δbetween(a, b) = +100.0 points (no interval or test: standard error 0)" in headline
    assert (
        "Without a variance estimate chance cannot be ruled out" in headline
        and "Caution: cells (a, b), (b, a)" in headline
    )
    # the joint test leaves the difference out instead of dividing by a rounding residue of 0
    assert (
        f.omnibus.n_no_variance == 1
        and f.omnibus.n_contrasts == 0
        and np.isnan(f.omnibus.statistic)
    )
    assert "joint test of no cross-group asymmetry is undefined" in f.to_text()


def test_findings_export_and_refuse_bad_options():
    res = survfair.xci(*_asymmetric(), method="naive")
    exported = json.loads(json.dumps(findings(res).to_dict()))
    assert exported["adjust"] == "holm" and exported["omnibus"]["df"] == 1
    with pytest.raises(ValueError, match=r"adjust must be one of"):
        findings(res, adjust="fdr")
    with pytest.raises(ValueError, match=r"min_pairs must be an integer >= 0, got -1"):
        findings(res, min_pairs=-1)


def test_one_group_gives_only_the_pooled_sentence():
    res = survfair.xci(
        [1.0, 2, 3, 4], [1, 1, 1, 0], ["a"] * 4, [4.0, 3, 2, 1], method="naive", ci=None
    )
    (sentence,) = findings(res, min_events=0, min_pairs=0).sentences
    assert sentence.startswith("Pooled concordance (C): 100.0%")


def test_a_difference_within_chance_claims_no_asymmetry():
    rng = np.random.default_rng(4)
    n = 400
    group = rng.choice(["a", "b"], n)
    risk = rng.normal(size=n)
    time = rng.exponential(np.exp(-risk))
    res = survfair.xci(time, np.ones(n, bool), group, risk, method="naive")
    sentence = next(s for s in findings(res).sentences if s.startswith("Largest cross-group"))
    assert "the interval includes 0" in sentence
    # issue 41: "not significant" is not "absent": outside the margin the sentence says what the
    # interval still allows
    assert "the data do not show an asymmetry" not in sentence
    assert "still allows a difference of up to" in sentence and sentence.endswith(
        "so the data cannot tell."
    )
    assert "model-based" not in sentence


def test_the_largest_of_many_differences_is_judged_by_its_adjusted_p_value():
    """Review: with six exchangeable groups a third of the audits named a disadvantaged group from
    an unadjusted interval, while the Holm-adjusted p-value it printed was not significant."""
    rng = np.random.default_rng(4)
    named = significant = 0
    for _ in range(40):
        g = rng.choice(list("ABCDEF"), 1200)
        r = rng.normal(size=1200)
        t = rng.exponential(np.exp(-r))
        f = findings(survfair.xci(t, rng.random(1200) < 0.8, g, r, method="naive"))
        named += "In words:" in f.sentences[1]
        significant += (f.deltas.query("summary == 'delta_between'")["p_adjusted"] < 0.05).any()
    assert named == significant


def test_a_headline_resting_on_small_cells_says_so():
    rng = np.random.default_rng(8)
    g = np.array(["big"] * 400 + ["tiny"] * 8)  # 8 events in tiny: its row of cells is flagged
    r = rng.normal(size=408) + 2.0 * (g == "tiny")
    t = rng.exponential(np.exp(-rng.normal(size=408)))
    f = findings(survfair.xci(t, np.ones(408, bool), g, r, method="naive"))
    advice = "interval may be too narrow: merge small groups or collect more events"
    assert f.sentences[1].endswith(
        f"Caution: cells (big, tiny), (tiny, big) rest on little data: (big, tiny) 8 members "
        f"in tiny (< 10), 8 events in tiny (< 35), {advice}; (tiny, big) 8 events in tiny "
        f"(< 10), {advice}."
    )
    # the flag sentence says the rule once and what to do, without repeating the advice per cell
    assert f.sentences[-1].count(advice) == 0 and "or 35 events in either group" in f.sentences[-1]
    assert "merging small groups or collecting more events" in f.sentences[-1]


def test_many_groups_skip_the_joint_test_and_say_so(monkeypatch):
    """500 groups have 124,750 asymmetries: their joint test would need a 124,750 x 124,750
    covariance. The findings leave it out (above JOINT_TEST_LIMIT contrasts, or when memory would
    not allow) and say so; omnibus_test itself refuses with MemoryLimitError."""
    import survfair._present.findings.ranking as module

    rng = np.random.default_rng(9)
    g = rng.integers(0, 8, 800)
    r = rng.normal(size=800)
    res = survfair.xci(rng.exponential(np.exp(-r)), np.ones(800, bool), g, r, method="naive")
    monkeypatch.setattr(module, "JOINT_TEST_LIMIT", 27)  # 8 groups: 28 asymmetries
    found = findings(res)
    assert found.omnibus.source == "not computed" and np.isnan(found.omnibus.p_value)
    assert "the joint test is not computed for 28 contrasts (more than 27" in found.to_text()
    monkeypatch.setattr(module, "JOINT_TEST_LIMIT", 2000)
    monkeypatch.setattr("survfair._core.memory.available_memory", lambda: 1000)
    with pytest.raises(survfair.MemoryLimitError, match="the joint test of 28 contrasts"):
        survfair.omnibus_test(res)
    assert findings(res).omnibus.source == "not computed"


def test_the_within_group_sentence_is_judged_by_its_adjusted_p_value_too():
    """Issue 14 audit: "the interval excludes 0" stood next to "Holm-adjusted p = 0.30" without a
    word; the within-group sentence now reads like the between-group one."""
    rng = np.random.default_rng(14)
    seen = set()
    for _ in range(30):
        g = rng.choice(list("ABCDEF"), 1200)
        r = rng.normal(size=1200)
        t = rng.exponential(np.exp(-r))
        f = findings(survfair.xci(t, rng.random(1200) < 0.8, g, r, method="naive"))
        sentence = next(s for s in f.sentences if s.startswith("Largest within-group"))
        within = f.deltas[f.deltas["summary"] == "delta_within"]
        row = within.loc[within["value"].abs().idxmax()]
        excludes = row["ci_low"] > 0 or row["ci_high"] < 0
        if excludes and row["p_adjusted"] >= 0.05:
            seen.add("not confirmed")
            assert sentence.endswith(
                "its adjusted p-value is not below 0.05: the data do not clearly show a "
                "difference between the groups."
            )
        elif excludes:
            seen.add("clear")
            assert (
                "In words: the model orders who has the event first less accurately inside"
                in sentence
            )
        else:
            seen.add("chance")
            assert sentence.endswith("so the data cannot tell.") or sentence.endswith(
                "any difference between the groups is smaller than that."
            )
    assert "not confirmed" in seen


def test_a_within_group_headline_on_a_flagged_cell_says_so():
    """Issue 14 audit: the within-group sentence gave no caution when it rested on a flagged
    cell."""
    rng = np.random.default_rng(2)
    g = np.array(["big"] * 400 + ["tiny"] * 8)
    r = rng.normal(size=408)
    t = rng.exponential(
        np.exp(-r - 3.0 * (g == "tiny") * r)
    )  # the score orders tiny almost perfectly
    f = findings(survfair.xci(t, np.ones(408, bool), g, r, method="naive"))
    sentence = next(s for s in f.sentences if s.startswith("Largest within-group"))
    assert "Caution: cell (tiny, tiny) rests on little data: 8 events in tiny (< 10)" in sentence


def test_the_significance_count_uses_the_confidence_level():
    res = survfair.xci(*_asymmetric(n=200), method="naive", confidence_level=0.9)
    text = findings(res).to_text()
    assert "with Holm-adjusted p < 0.1)" in text and "90% interval" in text


def test_a_bca_p_value_at_the_bootstrap_floor_is_shown_as_a_bound():
    """Issue 14 audit: all 199 replicates of Δbetween lay above 0, yet the BCa-inverted p-value
    (above 2/(B+1)) was printed as an estimate; the floor is now read from the replicates."""
    res = survfair.xci(
        *_asymmetric(n=300), method="naive", ci="bootstrap", n_resamples=199, random_state=0
    )
    f = findings(res)
    row = f.deltas.set_index("summary").loc["delta_between"]
    draws = res.replicates[:, 0, 1] - res.replicates[:, 1, 0]
    assert (draws[np.isfinite(draws)] > 0).all() and row["p_at_floor"]
    assert row["p_value"] > 2 / 200  # the old test p <= 2/(B+1) missed it
    assert f"Holm-adjusted p <= {row['p_adjusted']:.2g} (bootstrap floor)" in f.sentences[1]
    assert not f.deltas.set_index("summary").loc["delta_within", "p_at_floor"]


def test_an_adjusted_bound_at_the_bootstrap_floor_asks_for_more_replicates():
    """A Holm-adjusted bound (<= 0.27 with 199 replicates and 15 pairs) is not evidence of no
    difference: the words say that the replicates are too few, not that the data show nothing."""
    rng = np.random.default_rng(0)
    n = 600
    g = rng.choice(list("ABCDEF"), n)
    shift = {k: 0.6 * i for i, k in enumerate("ABCDEF")}
    risk = rng.normal(size=n) + np.array([shift[x] for x in g])
    time = rng.exponential(np.exp(-rng.normal(size=n)))
    res = survfair.xci(
        time,
        np.ones(n, bool),
        g,
        risk,
        method="naive",
        ci="bootstrap",
        n_resamples=49,
        random_state=0,
    )
    f = findings(res)
    row = f.deltas.query("summary == 'delta_between'").loc[lambda d: d["value"].abs().idxmax()]
    assert row["p_at_floor"] and row["p_adjusted"] >= 0.05
    headline = f.sentences[1]
    assert (
        f"with 49 replicates the adjusted p-value is only known to be <= {row['p_adjusted']:.2g}"
        in headline
    )
    assert "the data do not clearly show" not in headline
    assert "at the bootstrap floor, not resolved below 0.05 with 49 replicates" in f.to_text()


def test_a_difference_with_one_cell_of_standard_error_0_is_not_called_clear():
    """Issue 14 audit (repro [2]): Δwithin of a 4-person cell at 66.7% with standard error 0 had an
    interval from the other cell's variance alone and was read as a clear difference."""
    rng = np.random.default_rng(6)
    g = np.array(["big"] * 400 + ["four"] * 4)
    r = rng.normal(size=404)
    t = np.where(
        g == "four", 100.0 - 10 * r, rng.exponential(np.exp(-r))
    )  # inside four: perfectly ordered
    f = findings(survfair.xci(t, np.ones(404, bool), g, r, method="naive"))
    assert f.flags.set_index(["a", "b"]).loc[("four", "four"), "no_variance"]
    row = f.deltas.query("summary == 'delta_within'").iloc[0]
    assert row["no_variance_cell"] and (row["ci_low"] > 0 or row["ci_high"] < 0)
    sentence = next(s for s in f.sentences if s.startswith("Largest within-group"))
    assert (
        "so the interval leaves out that cell's uncertainty and chance cannot be ruled out"
        in sentence
    )
    assert "In words:" not in sentence


def test_the_count_leaves_out_differences_using_a_cell_with_standard_error_0():
    """Review: a difference with one cell of standard error 0 was counted as excluding 0 (and as
    significant) while the other sentences said chance cannot be ruled out and the joint test left
    it out."""
    import warnings

    rng = np.random.default_rng(7)
    n = 400
    group = np.array(["a"] * 190 + ["b"] * 190 + ["c"] * 20)
    x = rng.normal(size=n)
    t, c = rng.exponential(np.exp(-x)), rng.exponential(2, n)
    time, event = np.minimum(t, c), (t <= c).astype(int)
    risk = x + rng.normal(scale=0.5, size=n)
    members = np.flatnonzero(group == "c")  # group c perfectly ranked inside: its own cell has SE 0
    risk[members[np.argsort(time[members])]] = np.linspace(10, 0, members.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = survfair.findings(survfair.xci(time, event, group, risk))
    between = found.deltas[found.deltas["summary"] == "delta_between"]
    untestable = int(between["no_variance_cell"].sum())
    assert untestable >= 1
    count = next(
        s for s in found.sentences if "between-group difference" in s and "excluding 0" in s
    )
    assert (
        count.startswith(f"0 of {len(between) - untestable} between-group difference")
        or f"of {len(between) - untestable} between-group difference" in count
    )
    assert "using a cell with standard error 0 not counted" in count


def test_auc_t_findings_name_the_cases_and_controls_of_the_result():
    """Review: the AUC(t) sentence said "event by t" / "event-free at t" under cause= and
    controls="all", contradicting the header built from the same result."""
    from survfair._binary.xauc_t import case_control_definition
    from survfair._present.findings.horizons import horizon_findings

    rng = np.random.default_rng(3)
    n = 600
    group = rng.choice(list("ab"), n)
    x = rng.normal(size=n)
    t1, t2, c = rng.exponential(np.exp(-x)), rng.exponential(2, n), rng.exponential(2, n)
    time = np.minimum.reduce([t1, t2, c])
    status = np.where(time == t1, 1, np.where(time == t2, 2, 0))
    result = survfair.xauc_t(time, status, group, x, [0.5, 1.0], cause=1, controls="all")
    cases, controls = case_control_definition(result)
    text = " ".join(horizon_findings(result).sentences)
    assert f"({cases})" in text and f"({controls})" in text
    assert "competing" in controls and "(event by t)" not in text


def test_many_groups_summarise_the_largest_differences_with_bonferroni(monkeypatch):
    """Issue 33.8: with 2,000 groups the findings tested 4 million differences (no result in 15
    minutes). Above SUMMARISED_GROUPS only the largest few are tested; their numbers are those of
    the full table and their p-values Bonferroni over every pair (at least the Holm value)."""
    from survfair._present.findings import ranking as _findings

    rng = np.random.default_rng(12)
    n = 3000
    g = rng.choice([f"g{k}" for k in range(12)], n)
    r = rng.normal(size=n) + 0.8 * (g == "g3")
    t = rng.exponential(np.exp(-rng.normal(size=n) - 0.5 * r))
    res = survfair.xci(t, rng.random(n) < 0.8, g, r, method="naive")
    full = findings(res)
    monkeypatch.setattr(_findings, "SUMMARISED_GROUPS", 10)
    summary = findings(res)
    assert summary.summarised and not full.summarised and summary.adjust == "bonferroni"
    assert len(summary.deltas) == 2 * _findings.SUMMARISED_PAIRS
    key = ["summary", "a", "b"]
    merged = summary.deltas.merge(full.deltas, on=key, suffixes=("", "_full"))
    assert len(merged) == len(summary.deltas)
    for column in ("value", "se", "ci_low", "ci_high", "p_value"):
        np.testing.assert_allclose(merged[column], merged[f"{column}_full"], rtol=1e-13)
    pairs = 12 * 11 // 2
    np.testing.assert_allclose(
        merged["p_adjusted"], np.minimum(1, pairs * merged["p_value"]), rtol=1e-13
    )
    assert (merged["p_adjusted"] >= merged["p_adjusted_full"] - 1e-15).all()  # never below Holm's
    for family, part in full.deltas.groupby(
        "summary"
    ):  # the largest of each family are the ones kept
        largest = part["value"].abs().nlargest(_findings.SUMMARISED_PAIRS)
        kept = summary.deltas[summary.deltas["summary"] == family]
        np.testing.assert_allclose(np.sort(kept["value"].abs()), np.sort(largest), rtol=1e-13)
    assert summary.omnibus.source == "not computed"
    assert any(
        s.startswith("With 12 groups (66 pairs) the findings summarise") for s in summary.sentences
    )
    assert summary.sentences[1].startswith("Largest cross-group asymmetry")
    assert "Bonferroni-adjusted" in summary.sentences[1]


def test_small_sample_flags_vectorised_equal_the_rule_cell_by_cell():
    rng = np.random.default_rng(5)
    g = rng.choice(["a", "b", "c", "tiny"], 300, p=[0.4, 0.3, 0.27, 0.03])
    r = rng.normal(size=300)
    t = rng.exponential(np.exp(-r))
    res = survfair.xci(t, rng.random(300) < 0.7, g, r, method="naive")
    flags = small_sample_flags(res, min_events=12, min_pairs=150, min_interval_events=60)
    sizes = res.group_sizes
    for row in flags.itertuples():
        narrow = sizes[row.a]["events"] < 60 or sizes[row.b]["events"] < 60
        assert row.narrow_interval == narrow
        expected = (
            sizes[row.a]["events"] < 12
            or sizes[row.b]["n"] < 12
            or row.comparable < 150
            or row.no_variance
            or narrow
        )
        assert row.flagged == expected
        assert (row.reason != "") == expected
        assert row.events == sizes[row.a]["events"] and row.controls == sizes[row.b]["n"]


def test_many_groups_without_intervals_test_nothing(monkeypatch):
    from survfair._present.findings import ranking as _findings

    rng = np.random.default_rng(3)
    g = rng.choice(list("abcdef"), 400)
    r = rng.normal(size=400)
    res = survfair.xci(
        rng.exponential(np.exp(-r)), np.ones(400, bool), g, r, method="naive", ci=None
    )
    monkeypatch.setattr(_findings, "SUMMARISED_GROUPS", 4)
    sentence = next(s for s in findings(res).sentences if s.startswith("With 6 groups"))
    assert "no intervals were computed, so no difference is tested" in sentence
    assert "excluding 0" not in sentence


def _two_age_groups(n=1000, seed=0, hidden=0.0, hidden_group="young"):
    """Two groups with very different baseline hazards and the TRUE curves as the model (issue 32's
    oracle); ``hidden`` adds a group effect on the hazard that the model's score and curves leave
    out."""
    rng = np.random.default_rng(seed)
    group = np.where(rng.random(n) < 0.5, "old", "young")
    lp = rng.normal(size=n)
    scale = np.where(group == "old", 2.0, 20.0)
    true_lp = lp + hidden * (group == hidden_group)
    t = scale * rng.exponential(size=n) * np.exp(-true_lp)
    c = rng.exponential(40, n)
    grid = np.linspace(0.05, 30, 300)
    curves = np.exp(-grid[None, :] / scale[:, None] * np.exp(lp)[:, None])
    # the model's own score: its curves' risk, the linear predictor plus the group's log baseline
    # hazard (issue 41: the linear predictor alone is not the curves' ranking)
    return survfair.model_based_xci(
        np.minimum(t, c), t <= c, group, lp - np.log(scale), survival=curves, times=grid, tau=15.0
    )


def test_the_oracle_reads_as_no_excess_asymmetry():
    """Issue 32: with the true risk as the score the observed Δbetween is large (the groups' risks
    differ), and the findings must say that the model's own predictions imply it: no group is
    called disadvantaged."""
    reference = _two_age_groups()
    assert abs(survfair.delta_between(reference.observed, "old", "young").value) > 0.2
    found = findings(reference)
    lead = found.sentences[1]
    assert lead.startswith(
        "No excess cross-group asymmetry beyond the equivalence margin: the largest observed "
        "asymmetry, Δbetween(old, young) = +"
    )
    # without calibration= the attribution to the groups' risks is conditional and unchecked
    assert (
        "rather than from how the model ranks them only if the predictions are calibrated" in lead
    )
    assert "which was not checked here" in lead
    assert "disadvantage" not in found.to_text()
    assert found.excess is not None and len(found.excess) == 1
    same = findings(reference.observed, model_based=reference)
    assert same.sentences == found.sentences
    assert "Against the model-based reference, 0 of 1 excess asymmetry" in found.sentences[-1]


@pytest.mark.parametrize("hidden_group, worse", [("young", "young"), ("old", "old")])
def test_a_model_missing_a_group_effect_shows_the_excess_against_the_right_group(
    hidden_group, worse
):
    """Both directions: the group whose extra hazard the model leaves out has its early events
    ranked too low, and the findings lead with that excess and name it."""
    reference = _two_age_groups(hidden=1.2, hidden_group=hidden_group)
    lead = findings(reference).sentences[1]
    other = "old" if worse == "young" else "young"
    assert lead.startswith(
        f"Excess cross-group asymmetry, old vs young: the model ranks members of {worse} "
        f"who had the event first below members of {other} "
        "more often than its own predictions imply"
    )
    assert f"if a higher score means earlier care, the model disadvantages {worse}." in lead
    assert "the interval excludes 0" in lead and "assumes the predictions are calibrated" in lead


def test_the_model_based_reference_must_be_of_the_same_groups():
    reference = _two_age_groups(n=300)
    other = survfair.xci(
        np.arange(1.0, 31), np.ones(30, bool), ["a", "b", "c"] * 10, -np.arange(30.0)
    )
    with pytest.raises(ValueError, match="model_based has groups"):
        findings(other, model_based=reference)


def test_without_an_excess_interval_nothing_is_put_down_to_the_groups_risks():
    """Review: with ci=None the lead said 'No excess ... it comes from the groups' different risks'
    for an excess of +27 points. Without an interval it says that chance cannot be ruled out."""
    rng = np.random.default_rng(0)
    n = 600
    group = np.where(rng.random(n) < 0.5, "old", "young")
    lp = rng.normal(size=n)
    t = 10.0 * rng.exponential(size=n) * np.exp(-lp - 2.0 * (group == "old"))
    grid = np.linspace(0.05, 30, 200)
    curves = np.exp(
        -grid[None, :] / 10.0 * np.exp(lp)[:, None]
    )  # leaves out the old group's hazard
    reference = survfair.model_based_xci(
        t, np.ones(n, bool), group, lp, survival=curves, times=grid, tau=15.0, ci=None
    )
    lead = findings(reference).sentences[1]
    assert lead.startswith("Largest observed asymmetry against the model-based reference")
    assert "chance cannot be ruled out" in lead
    assert "No excess" not in lead and "comes from the groups' different risks" not in lead


def test_a_reference_of_another_observed_matrix_is_refused():
    reference = _two_age_groups(n=400)
    observed = reference.observed
    other = survfair.xci(
        np.arange(1.0, 401),
        np.ones(400, bool),
        np.where(np.arange(400) % 2, "old", "young"),
        -np.arange(400.0),
    )
    with pytest.raises(ValueError, match="another observed matrix"):
        findings(other, model_based=reference)
    assert findings(observed, model_based=reference).excess is not None


def test_a_null_with_a_reference_claims_neither_an_asymmetry_nor_its_source():
    """Read-through: with exchangeable groups (no difference) and the true model, the lead said the
    (chance) asymmetry 'comes from the groups' different risks', which do not differ."""
    rng = np.random.default_rng(0)
    n = 1000
    group = np.where(rng.random(n) < 0.5, "a", "b")
    lp = rng.normal(size=n)
    t = 10 * rng.exponential(size=n) * np.exp(-lp)
    c = rng.exponential(40, n)
    grid = np.linspace(0.05, 30, 300)
    curves = np.exp(-grid[None, :] / 10 * np.exp(lp)[:, None])
    reference = survfair.model_based_xci(
        np.minimum(t, c), t <= c, group, lp, survival=curves, times=grid, tau=15.0
    )
    found = findings(reference)
    lead = found.sentences[1]
    # issue 41: absence only inside the equivalence margin, else what the interval still allows
    observed = found.deltas.query("summary == 'delta_between'").iloc[0]
    excess = found.excess.iloc[0]
    inside = (
        max(abs(observed.ci_low), abs(observed.ci_high), abs(excess.ci_low), abs(excess.ci_high))
        < 0.05
    )
    if inside:
        assert lead.startswith("No cross-group asymmetry, observed or in excess: Δbetween(")
    else:
        assert lead.startswith("The data cannot tell whether there is a cross-group asymmetry")
        assert "still allows a difference of up to" in lead
    assert "different risks" not in lead and "disadvantage" not in lead
    wide = findings(reference, margin=0.2).sentences[1]
    assert wide.startswith("No cross-group asymmetry, observed or in excess: Δbetween(")
    assert "inside ±20.0 points, the equivalence margin" in wide


def test_a_result_findings_cannot_read_is_a_type_error_naming_the_right_call():
    """findings() of a calibration (or anything but an xCI, xAUC or model-based result) is a
    TypeError that names what it takes, not an AttributeError from deep inside."""
    rng = np.random.default_rng(0)
    n = 200
    time, event = rng.exponential(size=n), rng.random(n) < 0.7
    group, risk = rng.integers(0, 2, n), rng.random(n)
    cal = survfair.calibration(time, event, group, risk[:, None], [1.0], slope_and_curve=False)
    with pytest.raises(TypeError, match="survfair.calibration_findings"):
        findings(cal)
    with pytest.raises(TypeError, match="result must be an XCIResult, XAUCResult or Model"):
        findings({"cells": []})
