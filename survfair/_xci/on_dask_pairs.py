"""Pair counts of a ``dask.dataframe`` across partitions (:mod:`survfair._xci.on_dask`): each
partition's members sorted by risk per group, its events with their IPCW weights, the merge counts
of one partition's events against a later partition's members, and the sums of the partitions'
counts. Shared by the point estimate (:mod:`survfair._xci.on_dask`) and its analytic intervals
(:mod:`survfair._xci.on_dask_inference`), which both import it (it imports neither).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .._core.censoring import inverse_censoring, raise_positivity
from .._core.kernel import PairCounts, own_factors
from .._core.validation import raise_no_comparable_pair

__all__ = ["checked_counts"]


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
        if arrays["weight"] is None:
            cumulative = np.arange(rows.shape[0] + 1, dtype=np.float64)
        else:
            cumulative = np.concatenate([[0.0], np.cumsum(arrays["weight"][rows])])
        members.append((arrays["risk"][rows], cumulative, rows if with_rows else None))
    return members


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
    return {
        "time": time[by_risk],
        "codes": codes[by_risk],
        "risk": risk[by_risk],
        "weight": weight[by_risk],
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


def _total(results, n_groups: int) -> tuple[PairCounts, tuple | None]:
    total = _zero_counts(n_groups)
    problems = []
    for counts, problem in results:
        for name in PairCounts.__dataclass_fields__:
            getattr(total, name)[...] += getattr(counts, name)
        if problem is not None:
            problems.append(problem)
    # the event the in-memory kernel reports: the first column group, then the earliest time
    return PairCounts(**vars(total)), min(problems) if problems else None
