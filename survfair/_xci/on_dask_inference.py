"""Analytic intervals of the xCI of a ``dask.dataframe``: the in-memory covariance, no row gathered.

The in-memory analytic covariance (:mod:`survfair._core.influence`) is a sum over individuals of
products of their influence rows, and a row is formed from the individual's pair sums as the
earlier and as the later member (:class:`survfair._core.kernel.IndividualContributions`), the cells'
point estimates, DeLong's member counts, and -- for the Kaplan-Meier term of the censoring weights
-- what the sweep up the time order carries from the rows before it. On the time-sorted partitions
of :mod:`survfair._xci.on_dask` (disjoint, increasing ranges of time) each of these is a sum the
partitions can form apart:

1. **pair sums** (one task per partition and one per ordered pair of partitions, linear in their
   sizes): the pairs inside a partition by the in-memory kernel with the contributions
   (:func:`survfair._core.kernel.count_pairs_and_contributions`, with the whole cohort's curves);
   an event of partition p against the members of a later partition q by merges of sorted risks,
   which give the event's sums (binary searches of its tie window in each group's sorted risks of
   q, prefix sums of their case weights) and every member of q its sums against p's events (binary
   searches of its risk in the tie windows of p's events of each group, prefix sums of their
   weights). Each partition's sums are added up in chains of tasks, one partner at a time;
2. **what the sweep carries** into partition p -- each cell's sum of psi^E over the rows before
   it, each curve's weight that has left the risk set, and the Kaplan-Meier compensator -- are
   sums over the partitions before p: the first two from every partition's totals (small), the
   compensator from every partition's own increment given the first two (one more pass);
3. **moments**: every partition forms its rows with the in-memory sweep's arithmetic (vectorised
   over chunks of whole time blocks), and adds them into each group's (2G + 1)^2 moments of its
   compact rows (or the (G^2 + 1)^2 moments of dense rows with pooled censoring), as the moment
   engine does (:mod:`survfair._core.moments`). The client sums P small arrays. With ``cluster=``
   each partition sums its dense rows per cluster instead; the sums are split into P buckets by
   the hash of the cluster label, so that a cluster's sums from every partition meet in one task,
   which adds them up and returns the moments of the clusters' totals (cluster-robust, as
   :meth:`survfair._core.influence.Influence.clustered`; clusters may span partitions).

Delayed entry (``entry=``) changes three things. The pair sums respect it
(:func:`survfair._xci.on_dask_pairs.later_partner`: the kernel counts the pairs of an earlier
partition's events with the later rows that entered among them). A partition's censoring risk sets
count the weight entered by each of its times: the weight entered before its first time and the
entries that fall in its range, from the entry runs the client gathered for the Kaplan-Meier. And
a row entering at e is credited the compensator accumulated up to e (``influence_sweep``'s
"credited" term), which lives in the partition whose range holds e, often an earlier one: each
partition's first sweep keeps its compensator steps (the times at which each curve's compensator
grows and its values after each: the curve's cells and the pooled C's) on its worker, and a chain
of tasks per partition reads them, one partition at a time, for the entries of its rows in that
partition's range, adding what came into that partition (:func:`_credit_chains`). A row then
carries its credit too (2G numbers with censoring by group, G^2 + 1 pooled).

Nothing is approximated: every row is the in-memory row up to the order of floating-point
additions (tested to 1e-10 against ``xci(..., ci="analytic")`` on the same rows). The client holds
the censoring curves (with delayed entry, the entry runs they are fitted from) and O(P G^2)
numbers.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from .._core.censoring import RESIDUE as KM_RESIDUE
from .._core.influence import cell_ratios, censoring_terms
from .._core.kernel import PairCounts, PairOptions, count_pairs_and_contributions, prepare_pairs
from .._core.memory import require_memory
from .._core.moments import MomentInfluence
from .._core.settings import EstimatorSettings
from .on_dask_pairs import (
    _add_counts,
    _cross_partner,
    _events,
    _sorted_members,
    _total,
    _zero_counts,
    checked_counts,
    later_partner,
    located,
)

__all__ = ["DaskMomentInfluence", "analytic_on_dask"]

_NO_TIMES = np.empty(0)

#: Bytes of the per-row scratch of one chunk of the sweep (its G^2-wide prefix sums dominate).
_CHUNK_BYTES = 32 * 2**20


class DaskMomentInfluence(MomentInfluence):
    """The analytic covariance of a Dask DataFrame's xCI (:func:`analytic_on_dask`).

    The interface of :class:`survfair._core.moments.MomentInfluence` (standard errors,
    differences, contrasts, ``covariance``, ``overall_variance``); it has no per-individual rows,
    and none can be recomputed on the client (the rows stay on the workers)."""

    @property
    def rows(self):
        raise NotImplementedError(
            "the xCI of a Dask DataFrame keeps no per-individual influence rows (they stay on the "
            "workers); paired comparisons and the model-based reference need them: compute the "
            "frame (.compute()) and call xci on it"
        )


def analytic_on_dask(
    read: list,
    n_groups: int,
    curves,
    settings: EstimatorSettings,
    *,
    clustered: bool = False,
    delayed_entry: bool = False,
    entries: list | None = None,
) -> tuple[PairCounts, DaskMomentInfluence]:
    """The pair counts and the analytic covariance of the time-sorted partitions ``read`` (their
    arrays, on the workers, as :func:`survfair._xci.on_dask._partition_arrays` gives them). With
    ``clustered`` (the arrays hold cluster labels) the covariance is cluster-robust: the rows of a
    cluster are summed before any product is taken, across partitions (:func:`_cluster_moments`).
    With ``delayed_entry`` (the arrays hold entry times) the pairs respect them, and ``entries``
    (:func:`survfair._xci.on_dask._entries_by_partition`, None for fixed weights) give every
    partition's censoring risk sets and where its rows' compensator credits come from.

    Raises as :func:`survfair.xci` for a weight that cannot be formed or no usable pair."""
    import dask

    g = n_groups
    ipcw = settings.method == "ipcw"
    shared = dask.delayed(curves, pure=True) if curves is not None else None
    tau = settings.tau
    n_parts = len(read)
    local = [dask.delayed(_local)(arrays, g, shared, settings) for arrays in read]
    events = [dask.delayed(_events)(arrays, g, shared, tau) for arrays in read]
    members = [dask.delayed(_sorted_members)(arrays, g, True) for arrays in read]
    tables = [dask.delayed(_event_table)(e, g) for e in events]
    partners = {}  # with delayed entry: the rows of q as the later members of p's events

    def partner(p, q):
        if not delayed_entry:
            return members[q]
        if (p, q) not in partners:
            partners[p, q] = dask.delayed(later_partner)(
                events[p], members[q], read[q], g, shared, settings, True
            )
        return partners[p, q]

    earlier = []  # per partition: its events' sums against every later partition, and the counts
    for p in range(n_parts):
        acc = None
        for q in range(p + 1, n_parts):
            acc = dask.delayed(_add_earlier)(acc, events[p], partner(p, q), g, settings)
        earlier.append(acc)
    later = []  # per partition: its members' sums against every earlier partition's events
    for q in range(n_parts):
        acc = None
        for p in range(q):
            acc = dask.delayed(_add_later)(acc, tables[p], read[q], partner(p, q), g, settings)
        later.append(acc)
    parts = dask.persist(
        *[
            dask.delayed(_combined)(arrays, local[k], earlier[k], later[k], g)
            for k, arrays in enumerate(read)
        ]
    )
    stats = dask.compute(*[dask.delayed(_partition_stats)(part, g) for part in parts])
    counts, bad = _total([(s["counts"], s["bad"]) for s in stats], g)
    counts = checked_counts(counts, bad, curves, settings)

    constants = _constants(counts, stats, g, curves.kind if ipcw else None)
    carries = _carries_before(stats, constants)
    n_curves = constants.mult.shape[0]
    credited = entries is not None and n_curves > 0  # delayed entry, weights estimated
    entering = [None] * n_parts
    if credited:  # one key per partition (its entries can be many), read by both of its sweeps
        entering = [dask.delayed(entry, pure=True) for entry in entries]
    credits = [None] * n_parts
    if n_curves > 0:  # the compensator each partition adds, given what comes into it
        first = [
            dask.delayed(_sweep)(part, constants, carry, False, 0, entering[k])
            for k, (part, carry) in enumerate(zip(parts, carries))
        ]
        if credited:  # their compensator steps stay on the workers
            first = dask.persist(*first)
        increments = dask.compute(*[dask.delayed(_increments)(result) for result in first])
        compensator = np.zeros((n_curves, g * g))
        overall = np.zeros(n_curves)
        for carry, (added, added_overall) in zip(carries, increments):
            carry["compensator"] = compensator.copy()
            carry["compensator_overall"] = overall.copy()
            compensator += added
            overall += added_overall
        if credited:
            credits = _credit_chains(first, parts, carries, entries, constants)
    swept = [
        dask.delayed(_sweep)(
            part, constants, carry, True, n_parts if clustered else 0, entering[k], credits[k]
        )
        for k, (part, carry) in enumerate(zip(parts, carries))
    ]
    if clustered:  # each cluster's sums meet in one bucket (by the hash of its label)
        buckets = [
            dask.delayed(_cluster_moments)([result[2][bucket] for result in swept])
            for bucket in range(n_parts)
        ]
        total = sum(dask.compute(*buckets))[None]
        constants = SimpleNamespace(**{**vars(constants), "compact": False, "width": g * g})
    else:
        total = sum(result[2] for result in dask.compute(*swept))
    return counts, _assembled(total, constants)


def _local(arrays: dict, g: int, curves, settings) -> tuple:
    """The pairs inside one partition: counts, the first bad weight, and every row's contributions
    (in the partition's row order), from the in-memory kernel with the whole cohort's weights."""
    n = arrays["time"].shape[0]
    rows = prepare_pairs(
        arrays["time"],
        arrays["event"],
        arrays["codes"],
        arrays["risk"],
        g,
        settings.tied_tol,
        case_weight=arrays["weight"],
        entry=arrays["entry"],
    )
    counts, bad, contributions = count_pairs_and_contributions(
        rows, PairOptions.of(settings, curves)
    )
    bad = located(bad, arrays["time"], arrays["codes"])
    c = contributions.in_input_order()
    sums = [np.zeros((n, g)) for _ in range(4)]
    for out, values in zip(
        sums, (c.earlier_numerator, c.earlier_denominator, c.later_numerator, c.later_denominator)
    ):
        out[...] = values
    return counts, bad, sums


def _add_earlier(acc, events: dict, partner, g: int, settings) -> tuple:
    """``acc`` (None at the start of a chain) plus the pairs of these events with one later
    partition's rows (``partner``: its sorted members, or its
    :func:`~survfair._xci.on_dask_pairs.later_partner` under delayed entry): (counts, problems,
    (numerator, denominator) of every row as the earlier member)."""
    if acc is None:
        n = events["n"]
        acc = (_zero_counts(g), [], (np.zeros((n, g)), np.zeros((n, g))))
    total, problems, contributions = acc
    cells, bad = _cross_partner(events, partner, g, settings, contributions)
    _add_counts(total, cells)
    if bad is not None:
        problems.append(bad)
    return total, problems, contributions


def _event_table(events: dict, g: int) -> list:
    """Per row group a, the partition's events of a in increasing order of risk: the bounds of
    their tie windows (r - tol, r + tol are formed by the reader with the same arithmetic as the
    earlier side: here the risks) and the prefix sums, with a leading 0, of their weights against
    every column group (not finite weights are 0: the point estimate raises for them)."""
    table = []
    weight = np.where(np.isfinite(events["weight"]), events["weight"], 0.0)
    for a in range(g):
        rows = events["codes"] == a
        cumulative = np.vstack([np.zeros((1, g)), np.cumsum(weight[rows], axis=0)])
        table.append((events["risk"][rows], cumulative))
    return table


def _add_later(acc, table: list, arrays: dict, partner, g: int, settings) -> tuple:
    """``acc`` (None at the start of a chain) plus every member's sums as the later member of the
    pairs with one earlier partition's events: (numerator, denominator), (rows, G) each.
    ``partner`` as for :func:`_add_earlier`: under delayed entry the members that entered before
    the events are merged here, and the sums of those that entered among them come from the
    kernel.

    Member j of group b and an earlier event i of group a: concordant when r_j < r_i - tol, tied
    when r_i - tol <= r_j <= r_i + tol (the bounds formed as the earlier side forms them), so the
    events' windows sorted by risk are sorted by either bound and two binary searches per member
    and row group give its sums."""
    if acc is None:
        n = arrays["time"].shape[0]
        acc = (np.zeros((n, g)), np.zeros((n, g)))
    numerator, denominator = acc
    members = partner
    if not isinstance(partner, list):  # delayed entry: the kernel's sums of the rows late
        members = partner.members
        if partner.later is not None:
            numerator[partner.late] += partner.later[0]
            denominator[partner.late] += partner.later[1]
    tol = settings.tied_tol
    member_weight = arrays["weight"]
    for a, (risk, cumulative) in enumerate(table):
        if risk.shape[0] == 0:
            continue
        low, high = risk - tol, risk + tol
        for b, (risks, _, rows) in enumerate(members):
            if rows.shape[0] == 0:
                continue
            column = cumulative[:, b]
            at_most_low = column[np.searchsorted(low, risks, side="right")]  # r_j >= r_i - tol
            above_high = column[np.searchsorted(high, risks, side="left")]  # r_j > r_i + tol
            concordant = column[-1] - at_most_low
            score = concordant if settings.strict else concordant + 0.5 * (at_most_low - above_high)
            scale = 1.0 if member_weight is None else member_weight[rows]
            numerator[rows, a] += scale * score
            denominator[rows, a] += scale * column[-1]
    return numerator, denominator


def _combined(arrays: dict, local: tuple, earlier, later, g: int) -> dict:
    """One partition's rows with their whole sums (inside it, against earlier and later
    partitions), its counts as the earlier partition of its pairs, and the first bad weight."""
    counts, bad, (e_num, e_den, l_num, l_den) = local
    problems = [] if bad is None else [bad]
    if earlier is not None:
        cross, cross_problems, (num, den) = earlier
        e_num += num
        e_den += den
        counts = _total([(counts, None), (cross, None)], g)[0]
        problems += cross_problems
    if later is not None:
        l_num += later[0]
        l_den += later[1]
    weight = arrays["weight"]
    return {
        "cluster": arrays["cluster"],
        "entry": arrays["entry"],
        "time": arrays["time"],
        "event": arrays["event"],
        "codes": arrays["codes"],
        "weight": np.ones(arrays["time"].shape[0]) if weight is None else weight,
        "sums": (e_num, e_den, l_num, l_den),
        "counts": counts,
        "bad": min(problems) if problems else None,
    }


def _partition_stats(part: dict, g: int) -> dict:
    """What the client needs of a partition: its counts, DeLong's members per role and cell, its
    rows' sums of the earlier numerators and denominators per cell, and its weight per group."""
    e_num, e_den, l_num, l_den = part["sums"]
    codes = part["codes"]
    earlier_role, later_role = e_den > 0, l_den > 0
    members_e = np.zeros((g, g))
    members_l = np.zeros((g, g))
    sum_num = np.zeros((g, g))
    sum_den = np.zeros((g, g))
    for a in range(g):
        rows = codes == a
        members_e[a] = earlier_role[rows].sum(axis=0)  # cell (a, b)
        members_l[:, a] = later_role[rows].sum(axis=0)  # cell (b, a)
        sum_num[a] = e_num[rows].sum(axis=0)
        sum_den[a] = e_den[rows].sum(axis=0)
    return {
        "counts": part["counts"],
        "bad": part["bad"],
        "members_e": members_e.ravel(),
        "members_l": members_l.ravel(),
        "overall_e": float(earlier_role.any(axis=1).sum()),
        "overall_l": float(later_role.any(axis=1).sum()),
        "sum_num": sum_num.ravel(),
        "sum_den": sum_den.ravel(),
        "weight": np.bincount(codes, weights=part["weight"], minlength=g),
    }


def _role_factor(count):
    """DeLong's sqrt(m / (m - 1)), 1 where m <= 1 (the in-memory sweep's)."""
    count = np.asarray(count, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 1, np.sqrt(count / np.where(count > 1, count - 1, 1.0)), 1.0)


def _slot_tables(g: int, compact: bool) -> tuple:
    """(earlier slot (G, G): [a, b] the slot of cell (a, b) in a row of group a; later slot (G, G):
    [a, b] the slot of cell (b, a); cell of every slot (G, width), -1 for the unused compact slot),
    as :class:`survfair._core.influence.CompactLayout` lays out its rows (dense: slot = cell)."""
    a, b = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    if not compact:
        cell_of = np.tile(np.arange(g * g), (g, 1))
        return a * g + b, b * g + a, cell_of
    later = np.where(a == b, a, g + b)
    cell_of = np.empty((g, 2 * g), np.int64)
    cell_of[:, :g] = a * g + b
    cell_of[:, g:] = np.where(a == b, -1, b * g + a)
    return b, later, cell_of


def _constants(counts: PairCounts, stats: list, g: int, estimated: str | None):
    """What every partition's sweep reads besides its rows: the cells' ratios and 1 / D, DeLong's
    factors from the members counted over all partitions, the censoring curves' cells, the slots,
    and the cells' psi^E totals."""
    numerator, denominator = counts.numerator.ravel(), counts.denominator.ravel()
    defined, theta, inv_den, pooled, inv_total, total_den = cell_ratios(numerator, denominator)
    curve_of, mult = censoring_terms(g, estimated)
    compact = mult.shape[0] == 0 or np.array_equal(curve_of, np.arange(g))
    width = 2 * g if compact else g * g
    earlier_slot, later_slot, cell_of = _slot_tables(g, compact)
    slot_scale = np.where(cell_of >= 0, inv_den[np.where(cell_of >= 0, cell_of, 0)], 0.0)
    members_e = sum(s["members_e"] for s in stats)
    members_l = sum(s["members_l"] for s in stats)
    weight = sum(s["weight"] for s in stats)
    entered = np.zeros(mult.shape[0])
    if mult.shape[0]:  # everyone at risk from time 0: each curve's whole weight
        np.add.at(entered, curve_of, weight)
    sum_num = sum(s["sum_num"] for s in stats)
    sum_den = sum(s["sum_den"] for s in stats)
    return SimpleNamespace(
        g=g,
        theta=theta,
        pooled=float(pooled),
        defined=defined,
        inv_total=inv_total,
        total_den=float(total_den),
        factor_e=_role_factor(members_e),
        factor_l=_role_factor(members_l),
        overall_factor_e=float(_role_factor(sum(s["overall_e"] for s in stats))),
        overall_factor_l=float(_role_factor(sum(s["overall_l"] for s in stats))),
        curve_of=curve_of,
        mult=mult,
        curve_n_cells=(mult > 0).sum(axis=1),
        compact=compact,
        width=width,
        earlier_slot=earlier_slot,
        later_slot=later_slot,
        cell_of=cell_of,
        slot_scale=slot_scale,
        entered=entered,
        total=sum_num - theta * sum_den,
        total_overall=sum_num - pooled * sum_den,
    )


def _carries_before(stats: list, constants) -> list:
    """What the sweep carries into each partition from the rows of the partitions before it:
    every cell's psi^E sums (and the pooled C's), each curve's weight that has left (the
    compensator is added by :func:`analytic_on_dask` once the partitions have given theirs)."""
    c = constants
    n_curves = c.mult.shape[0]
    below = np.zeros(c.g * c.g)
    below_overall = np.zeros(c.g * c.g)
    passed = np.zeros(n_curves)
    carries = []
    for s in stats:
        carries.append(
            {
                "below": below.copy(),
                "below_overall": below_overall.copy(),
                "passed": passed.copy(),
                "compensator": np.zeros((n_curves, c.g * c.g)),
                "compensator_overall": np.zeros(n_curves),
            }
        )
        below += s["sum_num"] - c.theta * s["sum_den"]
        below_overall += s["sum_num"] - c.pooled * s["sum_den"]
        if n_curves:
            np.add.at(passed, c.curve_of, s["weight"])
    return carries


def _chunks(time: np.ndarray, rows: int) -> list:
    """(start, stop) of chunks of about ``rows`` rows, each ending at the end of a block of equal
    time."""
    n = time.shape[0]
    bounds = [0]
    while bounds[-1] < n:
        stop = min(n, bounds[-1] + rows)
        if stop < n:
            stop = int(np.searchsorted(time, time[stop - 1], side="right"))
        bounds.append(stop)
    return list(zip(bounds[:-1], bounds[1:]))


def _sweep(
    part: dict,
    constants,
    carry: dict,
    with_rows: bool,
    buckets: int = 0,
    entering: dict | None = None,
    credit: np.ndarray | None = None,
) -> tuple:
    """The in-memory influence sweep on one partition (its rows in time order), given what the
    rows before it carry: (the Kaplan-Meier compensator it adds (curves, G^2), the pooled C's
    (curves,), the moments of its rows or None unless ``with_rows``, its compensator steps or
    None). With ``buckets`` > 0 (and ``with_rows``) the third is, instead of moments, the
    partition's per-cluster sums of its dense rows (G^2 cells and the pooled C) split into
    ``buckets`` DataFrames by the hash of the cluster label (:func:`_cluster_moments` adds up each
    bucket).

    Delayed entry: ``entering`` (see :func:`survfair._xci.on_dask._entries_by_partition`) gives
    each curve's weight entered before each time of the partition (its risk sets on
    (entry, time]); without ``with_rows`` the fourth result is, per curve, the times at which its
    compensator grows in this partition and its value after each (this partition's share, the
    cells of the curve and the pooled C's; :func:`_add_credit` reads them); with ``with_rows``,
    ``credit`` (rows, cells of a curve + 1) is the compensator credited at each row's entry
    (:func:`_credit_chains`), added to its Kaplan-Meier term as the in-memory sweep credits it.

    The arithmetic of ``survfair/_compiled/_influence.pyx`` (``c_sweep_block``), vectorised over
    chunks of whole blocks of equal time: row k of group a (curve c) is, per slot, its DeLong-scaled
    psi^E and psi^L, minus w_k times curve c's compensator just before its time, plus for a
    censoring w_k times the sensitivity F(t_k) times (1 / (Y - C) - C / (Y (Y - C))), all over D of
    the slot's cell; the moments are those of each group's rows and the pooled C's beside them."""
    c = constants
    g, width, n_curves = c.g, c.width, c.mult.shape[0]
    e_num, e_den, l_num, l_den = part["sums"]
    time, event, codes, weight = part["time"], part["event"], part["codes"], part["weight"]
    state = {name: np.array(value, dtype=float) for name, value in carry.items()}
    start_compensator = state["compensator"].copy()
    start_overall = state["compensator_overall"].copy()
    blocks = g if c.compact else 1
    moments = np.zeros((blocks, width + 1, width + 1)) if with_rows else None
    if with_rows and buckets:
        cluster_code, cluster_label = pd.factorize(part["cluster"], sort=False)
        cluster_sums = np.zeros((cluster_label.shape[0], g * g + 1))
    theta = c.theta.reshape(g, g)
    entered = c.entered
    if entering is not None:  # each curve's weight entered by each time: base + prefix sums
        entered_before = [
            (values, np.concatenate([[0.0], np.cumsum(weights)]))
            for values, weights in entering["inside"]
        ]
    steps = [[] for _ in range(n_curves)] if entering is not None and not with_rows else None
    rows_per_chunk = max(1024, _CHUNK_BYTES // (8 * (2 * g * g + 2 * width + 4 * g + 8)))
    require_memory(
        8.0 * min(rows_per_chunk, time.shape[0]) * (2 * g * g + 2 * width + 4 * g + 8),
        "analytic intervals on Dask: a chunk of the influence sweep",
        ("groups", "no_intervals"),
    )
    for start, stop in _chunks(time, rows_per_chunk):
        t, ev, a, w = time[start:stop], event[start:stop], codes[start:stop], weight[start:stop]
        m = stop - start
        new = np.empty(m, bool)
        new[0] = True
        new[1:] = t[1:] != t[:-1]
        block = np.cumsum(new) - 1
        starts = np.flatnonzero(new)
        en, ed = e_num[start:stop], e_den[start:stop]
        earlier_value = en - theta[a] * ed  # (m, G): cells (a, b)
        earlier_overall = en - c.pooled * ed
        # every cell's psi^E sums over the rows before each block (exclusive prefix sums)
        spread = np.zeros((m, g * g))
        spread_overall = np.zeros((m, g * g))
        cells = a[:, None] * g + np.arange(g)[None, :]
        index = np.arange(m)[:, None]
        spread[index, cells] = earlier_value
        spread_overall[index, cells] = earlier_overall
        prefix = np.cumsum(spread, axis=0)
        prefix_overall = np.cumsum(spread_overall, axis=0)
        del spread, spread_overall
        before = np.vstack([np.zeros((1, g * g)), prefix[:-1]])[starts] + state["below"]
        before_overall = (
            np.vstack([np.zeros((1, g * g)), prefix_overall[:-1]])[starts] + state["below_overall"]
        )
        if with_rows:
            ln, ld = l_num[start:stop], l_den[start:stop]
            x = np.zeros((m, width + 1))
            fe = c.factor_e.reshape(g, g)
            fl = c.factor_l.reshape(g, g).T  # [a, b]: cell (b, a)
            x[index, c.earlier_slot[a]] += fe[a] * earlier_value
            x[index, c.later_slot[a]] += fl[a] * (ln - theta.T[a] * ld)
            overall = c.overall_factor_e * earlier_overall.sum(axis=1) + c.overall_factor_l * (
                ln - c.pooled * ld
            ).sum(axis=1)
        if n_curves:
            curve = c.curve_of[a]
            key = block * n_curves + curve
            size = starts.shape[0] * n_curves
            deaths = np.bincount(key[ev], weights=w[ev], minlength=size).reshape(-1, n_curves)
            censored = np.bincount(key[~ev], weights=w[~ev], minlength=size).reshape(-1, n_curves)
            left_before = np.cumsum(deaths + censored, axis=0) - (deaths + censored)
            if entering is not None:
                entered = entering["base"] + np.column_stack(
                    [
                        cumulative[np.searchsorted(values, t[starts], side="left")]
                        for values, cumulative in entered_before
                    ]
                )
            at_risk = entered - (state["passed"] + left_before) - deaths
            left = at_risk - censored
            base = np.where(entered >= at_risk, entered, at_risk)
            jumps = (censored > 0) & (left > KM_RESIDUE * base)
            with np.errstate(divide="ignore", invalid="ignore"):
                jump = np.where(jumps, 1.0 / np.where(jumps, left, 1.0), 0.0)
                rate = np.where(jumps, censored / np.where(jumps, at_risk * left, 1.0), 0.0)
            for k in range(n_curves):
                curve_cells = np.flatnonzero(c.mult[k] > 0)
                factor = c.mult[k, curve_cells]
                sensitivity = factor * (c.total[curve_cells] - before[:, curve_cells])
                sensitivity_overall = (c.mult[k] * (c.total_overall - before_overall)).sum(axis=1)
                added = sensitivity * rate[:, k : k + 1]
                added_overall = sensitivity_overall * rate[:, k]
                if with_rows:
                    compensator = (
                        np.cumsum(added, axis=0) - added + state["compensator"][k, curve_cells]
                    )
                    compensator_overall = (
                        np.cumsum(added_overall) - added_overall + state["compensator_overall"][k]
                    )
                    rows = np.flatnonzero(curve == k)
                    at = block[rows]
                    own_jump = np.where(ev[rows], 0.0, jump[at, k] - rate[at, k])
                    value = sensitivity[at] * own_jump[:, None] - compensator[at]
                    value_overall = sensitivity_overall[at] * own_jump - compensator_overall[at]
                    if credit is not None:  # plus what was credited at the row's entry
                        value += credit[start + rows, : curve_cells.shape[0]]
                        value_overall += credit[start + rows, -1]
                    slots = _curve_slots(c, k, curve_cells)
                    x[rows[:, None], slots[None, :]] += w[rows, None] * value
                    overall[rows] += w[rows] * value_overall
                if steps is not None:  # this partition's compensator after each of its steps
                    grows = rate[:, k] > 0
                    so_far = (
                        state["compensator"][k, curve_cells] - start_compensator[k, curve_cells]
                    )
                    so_far_overall = state["compensator_overall"][k] - start_overall[k]
                    steps[k].append(
                        (
                            t[starts][grows],
                            np.column_stack(
                                [
                                    np.cumsum(added, axis=0)[grows] + so_far,
                                    np.cumsum(added_overall)[grows] + so_far_overall,
                                ]
                            ),
                        )
                    )
                state["compensator"][k, curve_cells] += added.sum(axis=0)
                state["compensator_overall"][k] += added_overall.sum()
            np.add.at(state["passed"], c.curve_of, np.bincount(a, weights=w, minlength=g))
        state["below"] += prefix[-1]
        state["below_overall"] += prefix_overall[-1]
        if with_rows:
            x[:, :width] *= c.slot_scale[a]
            x[:, width] = overall * c.inv_total
            if buckets:
                _add_by_cluster(cluster_sums, cluster_code[start:stop], x, a, c)
            elif c.compact:
                for group in range(g):
                    part_rows = x[a == group]
                    moments[group] += part_rows.T @ part_rows
            else:
                moments[0] += x.T @ x
    if with_rows and buckets:
        moments = _split_by_hash(cluster_sums, cluster_label, buckets)
    if steps is not None:
        steps = [
            (
                np.concatenate([times for times, _ in pieces] + [_NO_TIMES]),
                np.vstack([values for _, values in pieces] + [np.zeros((0, cells + 1))]),
            )
            for pieces, cells in zip(steps, c.curve_n_cells)
        ]
    return (
        state["compensator"] - start_compensator,
        state["compensator_overall"] - start_overall,
        moments,
        steps,
    )


def _increments(result: tuple) -> tuple:
    """The compensator a partition adds (curves, G^2) and the pooled C's (curves,): what the client
    reads of a first :func:`_sweep` (its steps stay on the worker)."""
    return result[0], result[1]


def _credit_chains(first: list, parts: list, carries: list, entries: list, constants) -> list:
    """Per partition, the compensator credited at each of its rows' entries (a delayed array,
    (rows, cells of a curve + 1)): a row that entered at e, in the range [first time of p, first
    time of p + 1) of partition p (p's own or an earlier one), is credited p's compensator at e,
    what came into p (``carries``) plus p's steps up to e (``first``: p's first :func:`_sweep`). A
    chain of tasks per partition, one partition p at a time, as the pair sums are chained."""
    import dask

    bounds = [entry["first"] for entry in entries] + [np.inf]
    credits = []
    for q, part in enumerate(parts):
        acc = None
        for p in range(entries[q]["credited_from"], q + 1):
            incoming = (carries[p]["compensator"], carries[p]["compensator_overall"])
            acc = dask.delayed(_add_credit)(
                acc, first[p], part, bounds[p], bounds[p + 1], incoming, constants
            )
        credits.append(acc)
    return credits


def _add_credit(acc, first: tuple, part: dict, low: float, high: float, incoming, constants):
    """``acc`` (None at the start of a chain) with the credits of the rows of ``part`` that entered
    in [``low``, ``high``), one partition's range: its compensator at their entries, ``incoming``
    (what came into it: (curves, G^2), (curves,)) plus its steps (``first[3]``) up to and including
    the entry time (the in-memory sweep credits a row when it passes its entry, after the blocks of
    equal or earlier time)."""
    c = constants
    if acc is None:
        acc = np.zeros((part["time"].shape[0], int(c.curve_n_cells.max()) + 1))
    entry = part["entry"]
    rows = np.flatnonzero((entry >= low) & (entry < high))
    curve = c.curve_of[part["codes"][rows]]
    for k, (times, values) in enumerate(first[3]):
        mine = rows[curve == k]
        if mine.shape[0] == 0:
            continue
        cells = np.flatnonzero(c.mult[k] > 0)
        at = np.searchsorted(times, entry[mine], side="right") - 1
        local = np.zeros((mine.shape[0], cells.shape[0] + 1))
        local[at >= 0] = values[at[at >= 0]]
        acc[mine, : cells.shape[0]] = incoming[0][k, cells] + local[:, :-1]
        acc[mine, -1] = incoming[1][k] + local[:, -1]
    return acc


def _add_by_cluster(sums: np.ndarray, code: np.ndarray, x: np.ndarray, a: np.ndarray, c) -> None:
    """Add a chunk's rows ``x`` (slots of each row's group, the pooled C last) into ``sums``
    (clusters, G^2 + 1) at the cells of their slots and their cluster codes."""
    width = c.width
    dense = np.zeros((x.shape[0], c.g * c.g + 1))
    cells = c.cell_of[a]  # (rows, width)
    used = cells >= 0
    dense[np.nonzero(used)[0], cells[used]] = x[:, :width][used]
    dense[:, -1] = x[:, width]
    for column in range(dense.shape[1]):
        sums[:, column] += np.bincount(code, weights=dense[:, column], minlength=sums.shape[0])


def _split_by_hash(sums: np.ndarray, labels, buckets: int) -> list:
    """The per-cluster sums as ``buckets`` DataFrames indexed by label, a label's bucket the hash
    of its value modulo ``buckets`` (the same in every partition)."""
    bucket = pd.util.hash_array(np.asarray(labels)) % np.uint64(buckets)
    frame = pd.DataFrame(sums, index=pd.Index(labels))
    return [frame[bucket == k] for k in range(buckets)]


def _cluster_moments(pieces: list) -> np.ndarray:
    """The moments (G^2 + 1)^2 of the clusters' total rows in one bucket: each cluster's pieces
    from every partition summed, then the products (the cluster-robust covariance of
    :meth:`survfair._core.influence.Influence.clustered`)."""
    pieces = [piece for piece in pieces if len(piece)]
    if not pieces:
        return 0.0
    totals = pd.concat(pieces).groupby(level=0, sort=False).sum().to_numpy()
    return totals.T @ totals


def _curve_slots(constants, curve: int, cells: np.ndarray) -> np.ndarray:
    """Where a row of ``curve``'s group keeps each of the curve's cells (compact rows: the slot of
    the cell for a row of that group; dense rows: the cell)."""
    if not constants.compact:
        return cells
    g = constants.g
    earlier = cells // g
    return np.where(earlier == curve, cells - earlier * g, g + earlier)


def _assembled(moments: np.ndarray, constants) -> DaskMomentInfluence:
    """The (G*G, G*G) covariance from each group's slot moments (compact) or the one dense block,
    NaN rows and columns for undefined cells, and the pooled C's variance."""
    c = constants
    g, width = c.g, c.width
    if c.compact:
        covariance = np.zeros((g * g, g * g))
        for group in range(g):
            slots = np.flatnonzero(c.cell_of[group] >= 0)
            cells = c.cell_of[group][slots]
            covariance[np.ix_(cells, cells)] += moments[group][np.ix_(slots, slots)]
    else:
        covariance = moments[0][:width, :width].copy()
    covariance[~c.defined, :] = np.nan
    covariance[:, ~c.defined] = np.nan
    variance = float(moments[:, width, width].sum()) if c.total_den > 0 else np.nan
    return DaskMomentInfluence(covariance, variance, None)
