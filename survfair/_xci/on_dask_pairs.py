"""Pair counts of a ``dask.dataframe`` across partitions (:mod:`survfair._xci.on_dask`): each
partition's members sorted by risk per group, its events with their IPCW weights, the merge counts
of one partition's events against a later partition's members, and the sums of the partitions'
counts. Shared by the point estimate (:mod:`survfair._xci.on_dask`) and its analytic intervals
(:mod:`survfair._xci.on_dask_inference`), which both import it (it imports neither).

Delayed entry (:func:`later_partner`): a row j of a later partition is the later member of an
earlier partition's event i only if entry_j < t_i. Against the events of partition p (times in
[t_first, t_last]) the rows of a later partition fall into three sets by their entry: before
t_first (under observation at every event of p: the merge counts above, on these rows only),
at or after t_last (at none: left out), and in between, the rows that entered during p's range
(usually few). Those are counted by the in-memory kernel on p's events and them alone, each event
given its own time as entry (never a later member) and each row made a censoring (never an earlier
member): the kernel's delayed-entry passes then count exactly the pairs (i, j) with entry_j < t_i,
with their weights and, for the analytic intervals, both members' sums.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .._core.censoring import inverse_censoring, raise_positivity
from .._core.kernel import (
    PairCounts,
    PairOptions,
    count_pairs,
    count_pairs_and_contributions,
    own_factors,
    prepare_pairs,
)
from .._core.validation import raise_no_comparable_pair

__all__ = ["checked_counts", "later_partner"]


def checked_counts(counts: PairCounts, bad, curves, settings) -> PairCounts:
    """``counts``, or the error :func:`survfair.xci` raises in memory: for a weight that cannot be
    formed (``bad``: column group, time, own group of the earliest such event) or for no usable
    pair."""
    if bad is not None:  # blame the curve that is 0 or undefined, as in memory
        column, t, own = bad
        culprit = own if not curves.evaluate(own, np.array([t]))[0] > 0 else column
        raise_positivity(curves, culprit, t, float(curves.evaluate(culprit, np.array([t]))[0]))
    if counts.comparable.sum() == 0:
        raise_no_comparable_pair()
    if counts.denominator.sum() == 0:
        raise_no_comparable_pair(
            f"every comparable pair has its earlier event at or after tau={settings.tau}"
        )
    return counts


def _sorted_members(arrays: dict, n_groups: int, with_rows: bool = False) -> list:
    """Each group's members in the partition (the later members of another partition's events),
    in increasing order of risk: (risks, the prefix sums of their case weights with a leading 0 --
    their counts without weights --, their rows in the partition or None unless ``with_rows``)."""
    members = []
    for b in range(n_groups):
        rows = np.flatnonzero(arrays["codes"] == b)
        rows = rows[np.argsort(arrays["risk"][rows], kind="stable")]
        cumulative = _prefix_weights(arrays["weight"], rows)
        members.append((arrays["risk"][rows], cumulative, rows if with_rows else None))
    return members


def _prefix_weights(weight: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
    """The prefix sums, with a leading 0, of the case weights of ``rows`` (their counts without)."""
    if weight is None:
        return np.arange(rows.shape[0] + 1, dtype=np.float64)
    return np.concatenate([[0.0], np.cumsum(weight[rows])])


def later_partner(
    events: dict, members: list, arrays: dict, n_groups: int, curves, settings, sums: bool = False
) -> SimpleNamespace:
    """A later partition (its ``arrays`` with entry times, and its ``members`` from
    :func:`_sorted_members` with rows) as the partner of an earlier partition's ``events`` under
    delayed entry (the module docstring): ``members``, the members that entered before the first
    event time (the merge counts' partners: the given list when that is all of them); ``late``, the
    rows that entered between the first and the last event time; ``counts`` / ``bad``, the pairs of
    the events with those rows by the in-memory kernel with the cohort's ``curves`` (None when
    there is no such row); with ``sums``, ``earlier`` (numerator, denominator), (events, G) each in
    the events' order, and ``later``, (late rows, G) each: both members' sums of these pairs."""
    partner = SimpleNamespace(
        members=members, late=np.empty(0, np.int64), counts=None, bad=None, earlier=None, later=None
    )
    time, entry = events["time"], arrays["entry"]
    if time.shape[0] == 0:  # no event: no pair, whoever its partners are
        return partner
    first, last = time.min(), time.max()
    if (entry >= first).any():
        kept = []
        for risks, cumulative, rows in members:
            keep = entry[rows] < first
            if not keep.all():
                rows = rows[keep]
                risks, cumulative = risks[keep], _prefix_weights(arrays["weight"], rows)
            kept.append((risks, cumulative, rows))
        partner.members = kept
    partner.late = np.flatnonzero((entry >= first) & (entry < last))
    if partner.late.shape[0] == 0:
        return partner
    late = partner.late
    n_events = time.shape[0]
    case = events["case"]
    pair_time = np.concatenate([time, arrays["time"][late]])
    pair_codes = np.concatenate([events["codes"], arrays["codes"][late]])
    rows = prepare_pairs(
        pair_time,
        np.arange(n_events + late.shape[0]) < n_events,
        pair_codes,
        np.concatenate([events["risk"], arrays["risk"][late]]),
        n_groups,
        settings.tied_tol,
        case_weight=None if case is None else np.concatenate([case, arrays["weight"][late]]),
        # an event's own time as its entry: never a later member; the rows late are censorings:
        # never an earlier member
        entry=np.concatenate([time, entry[late]]),
    )
    options = PairOptions.of(settings, curves)
    if sums:
        partner.counts, bad, contributions = count_pairs_and_contributions(rows, options)
        c = contributions.in_input_order()
        partner.earlier = (c.earlier_numerator[:n_events], c.earlier_denominator[:n_events])
        partner.later = (c.later_numerator[n_events:], c.later_denominator[n_events:])
    else:
        partner.counts, bad = count_pairs(rows, options)
    partner.bad = located(bad, pair_time, pair_codes)
    return partner


def located(bad, time: np.ndarray, codes: np.ndarray) -> tuple | None:
    """The kernel's first bad weight (row, column group), or None, as (column group, time, own
    group), the form :func:`checked_counts` reads from any partition."""
    if bad is None:
        return None
    row, column = bad
    return column, float(time[row]), int(codes[row])


def _events(arrays: dict, n_groups: int, curves, tau) -> dict:
    """The partition's events in increasing order of risk (so that the binary searches of
    :func:`_cross` walk forward): risk, group, time and the weight against each column group
    (1 / (K_a(t_i) K_b(t_i)) before tau, 0 from tau on; 1 for the naive estimator)."""
    event = arrays["event"]
    time, codes, risk = (arrays[name][event] for name in ("time", "codes", "risk"))  # in time order
    weight = np.ones((time.shape[0], n_groups))
    own = None
    if curves is not None:  # looked up in time order: a merge with the curves, not binary searches
        inverse = inverse_censoring(curves)
        own = own_factors(codes, time, n_groups, inverse)
    if arrays["weight"] is not None:  # the earlier member's case weight, as the kernel forms it
        case = arrays["weight"][event]
        with np.errstate(invalid="ignore"):
            own = case.copy() if own is None else own * case
        own[case == 0] = 0.0
    if curves is not None:
        for b in range(n_groups):
            with np.errstate(invalid="ignore"):
                weight[:, b] = own * inverse(b, time)
    elif own is not None:
        weight[:] = own[:, None]
    if tau is not None:
        weight[time >= tau] = 0.0
    by_risk = np.argsort(risk, kind="stable")
    case = arrays["weight"]
    return {
        "time": time[by_risk],
        "codes": codes[by_risk],
        "risk": risk[by_risk],
        "weight": weight[by_risk],
        "case": None if case is None else case[event][by_risk],
        "row": np.flatnonzero(event)[by_risk],
        "n": event.shape[0],
    }


def _cross(
    events: dict, members: list, n_groups: int, settings, contributions: tuple | None = None
) -> tuple:
    """Pairs of an earlier partition's events with a later partition's rows (all comparable):
    per column group b, two binary searches of the events' risks in b's sorted risks, the counts
    summed per row group with ``np.bincount``. With ``contributions`` (the earlier partition's
    (numerator, denominator) arrays of shape (rows, G)) each event's sums as the earlier member
    of these pairs are added to its row."""
    cells = _zero_counts(n_groups)
    bad = []
    codes, risk, time = events["codes"], events["risk"], events["time"]
    per_group = np.bincount(codes, minlength=n_groups)
    for b, (risks, cumulative, _) in enumerate(members):
        if risks.shape[0] == 0:
            continue
        below = np.searchsorted(risks, risk - settings.tied_tol, side="left")
        up_to = np.searchsorted(risks, risk + settings.tied_tol, side="right")
        tied = up_to - below
        weight = events["weight"][:, b]
        finite = np.isfinite(weight)
        if not finite.all():  # the earliest such event, as the in-memory kernel reports it
            first = np.argmin(np.where(finite, np.inf, time))
            bad.append((b, float(time[first]), int(codes[first])))
            weight = np.where(finite, weight, 0.0)
        # the later members' case weights below and within the window (their counts without)
        weight_below = cumulative[below]
        weight_tied = cumulative[up_to] - weight_below
        score = weight_below if settings.strict else weight_below + 0.5 * weight_tied
        cells.comparable[:, b] += per_group * risks.shape[0]
        cells.concordant[:, b] += np.bincount(codes, weights=below, minlength=n_groups).astype(
            np.int64
        )
        cells.tied_risk[:, b] += np.bincount(codes, weights=tied, minlength=n_groups).astype(
            np.int64
        )
        cells.numerator[:, b] += np.bincount(codes, weights=weight * score, minlength=n_groups)
        cells.denominator[:, b] += (
            np.bincount(codes, weights=weight, minlength=n_groups) * cumulative[-1]
        )
        if contributions is not None:  # each event's share, at its row of the partition
            contributions[0][events["row"], b] += weight * score
            contributions[1][events["row"], b] += weight * cumulative[-1]
    return cells, min(bad) if bad else None


def _zero_counts(n_groups: int) -> SimpleNamespace:
    """A writable accumulator with the fields of :class:`PairCounts` (whose arrays are read-only
    once made); :func:`_total` turns the sum into a PairCounts."""
    shape = (n_groups, n_groups)
    names = ("comparable", "concordant", "tied_risk", "tied_time")
    return SimpleNamespace(
        **{name: np.zeros(shape, np.int64) for name in names},
        numerator=np.zeros(shape),
        denominator=np.zeros(shape),
    )


def _cross_partner(
    events: dict, partner, n_groups: int, settings, contributions: tuple | None = None
) -> tuple:
    """:func:`_cross` of ``events`` against a later partition given by its sorted members, or
    under delayed entry by its :func:`later_partner`: the merge counts with the members that
    entered before the events, plus the kernel's pairs with the rows that entered among them (and
    the events' sums of those, with ``contributions``)."""
    if isinstance(partner, list):
        return _cross(events, partner, n_groups, settings, contributions)
    cells, bad = _cross(events, partner.members, n_groups, settings, contributions)
    if partner.counts is None:
        return cells, bad
    _add_counts(cells, partner.counts)
    if contributions is not None:
        contributions[0][events["row"]] += partner.earlier[0]
        contributions[1][events["row"]] += partner.earlier[1]
    problems = [problem for problem in (bad, partner.bad) if problem is not None]
    return cells, min(problems) if problems else None


def _add_counts(total: SimpleNamespace, counts) -> None:
    """``counts`` (a :class:`PairCounts` or an accumulator) added into the accumulator ``total``."""
    for name in PairCounts.__dataclass_fields__:
        getattr(total, name)[...] += getattr(counts, name)


def _total(results, n_groups: int) -> tuple[PairCounts, tuple | None]:
    total = _zero_counts(n_groups)
    problems = []
    for counts, problem in results:
        _add_counts(total, counts)
        if problem is not None:
            problems.append(problem)
    # the event the in-memory kernel reports: the first column group, then the earliest time
    return PairCounts(**vars(total)), min(problems) if problems else None
