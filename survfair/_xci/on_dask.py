"""The xCI point estimate of a ``dask.dataframe`` that does not fit in one machine's memory.

The data never come together. Dask sorts the rows by time (its own shuffle), so that every
partition holds a contiguous range of times and no time is shared by two partitions (checked).
Then every comparable pair (i, j) with an event for i is of one of two kinds:

* both in one partition: counted by the in-memory kernel on that partition
  (:func:`survfair._core.kernel.count_pairs`), with the censoring weights of the whole cohort;
* i in partition p, j in a later partition q: j is later than i whatever their statuses, so the
  pair is comparable, and it is concordant, tied or discordant by the risks alone. Per partition
  pair and column group, the later partition's risks of that group are sorted once and each event
  of p finds how many lie below r_i - tol and within [r_i - tol, r_i + tol] by two binary searches
  (a merge count of sorted risks), weighted by the event's IPCW weight against that group.

The censoring curves are the Kaplan-Meier fits of the event and censoring counts of every group at
every distinct time, a group-by of each (time-disjoint) partition, computed by the same function
as in memory with the counts as case weights, which gives the same curves to the last bit. The
counts are exact integers and the weighted sums equal the in-memory sums up to the order of
addition (tested to 1e-12).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from .._core.censoring import (
    CensoringCurves,
    check_positivity,
    inverse_censoring,
    kaplan_meier_sorted,
    raise_positivity,
)
from .._core.exceptions import InvalidParameterError, warn_undefined_cells
from .._core.kernel import PairCounts, count_pairs, own_factors
from .._core.results import XCIResult
from .._core.settings import EstimatorSettings
from .._core.validation import (
    check_survival_inputs,
    encode_groups,
    raise_no_comparable_pair,
    warn_excluded_rows,
)

__all__ = ["is_dask_frame", "xci_dask"]

_NONE = np.empty(0)


def is_dask_frame(value: Any) -> bool:
    """True for a ``dask.dataframe`` DataFrame (without importing Dask when it is not loaded)."""
    module = type(value).__module__
    return module.startswith("dask.dataframe") or module.startswith("dask_expr")


def xci_dask(
    frame, time: str, event: str, group: str, risk: str, *, groups, settings: EstimatorSettings
) -> XCIResult:
    """xCI point estimate of the Dask DataFrame ``frame`` (columns named by ``time`` ... ``risk``):
    the numbers of :func:`survfair.xci` on the same rows with ``ci=None``. See the module
    docstring."""
    columns = {"time": time, "event": event, "group": group, "risk": risk}
    for role, name in columns.items():
        if not isinstance(name, str) or name not in frame.columns:
            raise InvalidParameterError(
                f"{role}: with a Dask DataFrame as data, {role} must name one of its columns; "
                f"got {name!r} (columns: {list(frame.columns)}).",
                parameter=role,
            )
    frame = frame[[time, event, group, risk]]
    _, labels, _ = encode_groups(np.asarray(frame[group].drop_duplicates().compute()), groups, None)
    n_rows = None
    if (
        groups is not None
    ):  # the rows of other groups are counted (and warned about), never dropped silently
        n_rows = len(frame)
        frame = frame[frame[group].isin(list(labels))]
    ipcw = settings.method == "ipcw"
    tau = settings.tau  # both estimators truncate at tau
    read, summaries = _sorted_partitions(
        frame, columns, labels, tau, settings.censoring if ipcw else None
    )
    n_kept = sum(summary["n"] for summary in summaries)
    n_excluded = 0 if n_rows is None else n_rows - n_kept
    warn_excluded_rows(n_excluded, stacklevel=3)
    curves = None
    if ipcw:
        curves = _censoring_curves(
            [summary["counts"] for summary in summaries], settings.censoring, labels
        )
    counts = _pair_counts(read, len(labels), curves, tau, settings)
    minima = {}
    last = max((summary["last_weighted_event"] for summary in summaries), default=-np.inf)
    if curves is not None and np.isfinite(last):
        minima = check_positivity(curves, float(last))
    warn_undefined_cells(counts.denominator, labels, stacklevel=3)
    return XCIResult(
        groups=labels,
        settings=settings,
        n_samples=n_kept,
        n_excluded=n_excluded,
        pair_counts=counts,
        censoring_curves=curves,
        min_censoring_survival=minima,
        group_sizes=_group_sizes(summaries, labels),
    )


def _sorted_partitions(
    frame, columns: dict, labels: tuple, tau: float | None, censoring: str | None
) -> tuple[list, list]:
    """Dask's shuffle by time, then every partition validated (held by the workers: computing it
    twice would sort twice) and summarised; the empty partitions are left out and the others
    checked to hold disjoint ranges of times, in order."""
    import dask

    parts = frame.sort_values(columns["time"]).to_delayed()
    read = dask.persist(*[dask.delayed(_partition_arrays)(part, columns, labels) for part in parts])
    summaries = dask.compute(
        *[dask.delayed(_summary)(arrays, len(labels), tau, censoring) for arrays in read]
    )
    kept = [k for k, summary in enumerate(summaries) if summary["n"] > 0]
    _check_disjoint([summaries[k] for k in kept])
    return [read[k] for k in kept], [summaries[k] for k in kept]


def _pair_counts(read: list, n_groups: int, curves, tau: float | None, settings) -> PairCounts:
    """Every cell's counts: each partition by the kernel, each ordered pair of partitions by merge
    counts; raises as :func:`survfair.xci` for a weight that cannot be formed or no usable pair."""
    import dask

    # one key for the curves (as long as the distinct times): sent to each worker once, not with
    # every task
    shared = dask.delayed(curves, pure=True) if curves is not None else None
    within = [dask.delayed(_within)(arrays, n_groups, shared, tau, settings) for arrays in read]
    members = [dask.delayed(_sorted_members)(arrays, n_groups) for arrays in read]
    events = [dask.delayed(_events)(arrays, n_groups, shared, tau) for arrays in read]
    cross = [
        dask.delayed(_cross)(events[p], members[q], n_groups, settings)
        for p in range(len(read))
        for q in range(p + 1, len(read))
    ]
    counts, bad = _total(dask.compute(*within, *cross), n_groups)
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


def _partition_arrays(part: pd.DataFrame, columns: dict, labels: tuple) -> dict:
    """One partition, validated as :func:`survfair.xci` validates its input (errors name the rows
    by their index labels), its groups coded in the order of the whole frame."""
    if len(part) == 0:
        return {
            "time": _NONE,
            "event": np.empty(0, bool),
            "codes": np.empty(0, np.int32),
            "risk": _NONE,
        }
    sample, _ = check_survival_inputs(
        part[columns["time"]], part[columns["event"]], part[columns["group"]], part[columns["risk"]]
    )
    position = {label: k for k, label in enumerate(labels)}
    codes = np.array([position[label] for label in sample.groups], dtype=np.int32)[
        sample.group_codes
    ]
    return {"time": sample.time, "event": sample.event, "codes": codes, "risk": sample.risk}


def _summary(arrays: dict, n_groups: int, tau: float | None, censoring: str | None) -> dict:
    """Rows, time range, group sizes, the last event time before tau and what the censoring curves
    need (``censoring``: "group", "pooled", or None for none): the runs of (time, status)."""
    time, event, codes = arrays["time"], arrays["event"], arrays["codes"]
    counts = {}
    if censoring == "pooled":
        counts["pooled"] = _runs(time, event)
    elif censoring == "group":
        by_group = np.argsort(codes, kind="stable")  # each group's rows, still in time order
        bounds = np.cumsum(np.bincount(codes, minlength=n_groups))
        for code, rows in enumerate(np.split(by_group, bounds[:-1])):
            counts[code] = _runs(time[rows], event[rows])
    weighted = time[event] if tau is None else time[event & (time < tau)]
    return {
        "n": time.shape[0],
        "min": float(time.min()) if time.shape[0] else np.nan,
        "max": float(time.max()) if time.shape[0] else np.nan,
        "size": np.bincount(codes, minlength=n_groups),
        "events": np.bincount(codes[event], minlength=n_groups),
        "counts": counts,
        "last_weighted_event": float(weighted.max()) if weighted.shape[0] else -np.inf,
    }


def _runs(time: np.ndarray, event: np.ndarray) -> tuple:
    """(time, event, count) of the runs of equal (time, status) in rows in time order: what the
    Kaplan-Meier needs, smaller than the rows when times are tied."""
    if time.shape[0] == 0:
        return time, event, np.empty(0)
    starts = np.flatnonzero(
        np.concatenate([[True], (time[1:] != time[:-1]) | (event[1:] != event[:-1])])
    )
    return time[starts], event[starts], np.diff(np.append(starts, time.shape[0])).astype(np.float64)


def _check_disjoint(summaries: list) -> None:
    for first, second in zip(summaries[:-1], summaries[1:]):
        if not first["max"] < second["min"]:
            raise RuntimeError(
                "Dask's sort by time left equal or overlapping times in two partitions "
                f"({first['max']} >= {second['min']}); the cross-partition count needs disjoint "
                "ranges."
            )


def _censoring_curves(partition_counts: list, kind: str, labels: tuple) -> CensoringCurves:
    """The censoring Kaplan-Meier of the counts at every distinct time (partitions are in time
    order and disjoint, so their runs concatenate in time order): :func:`kaplan_meier_sorted` with
    the run lengths as case weights, the arithmetic of the in-memory fit on the rows."""
    keys = ["pooled"] if kind == "pooled" else list(range(len(labels)))
    times, survival = [], []
    for key in keys:
        t, event, count = (
            np.concatenate(parts) for parts in zip(*(counts[key] for counts in partition_counts))
        )
        t_k, k = kaplan_meier_sorted(
            t, event.astype(bool), np.arange(t.shape[0]), count, _NONE, _NONE, True
        )
        times.append(t_k)
        survival.append(k)
    if kind == "pooled":
        return CensoringCurves(
            "pooled", labels, (times[0],) * len(labels), (survival[0],) * len(labels)
        )
    return CensoringCurves("group", labels, tuple(times), tuple(survival))


def _within(arrays: dict, n_groups: int, curves, tau, settings) -> tuple:
    """The pairs inside one partition: the in-memory kernel with the whole cohort's weights."""
    if arrays["time"].shape[0] == 0:
        return _zero_counts(n_groups), None
    counts, bad = count_pairs(
        arrays["time"],
        arrays["event"],
        arrays["codes"],
        arrays["risk"],
        n_groups,
        inverse_k=inverse_censoring(curves),
        tau=tau,
        tied_tol=settings.tied_tol,
        strict=settings.strict,
    )
    if bad is not None:
        row, column = bad
        bad = (column, float(arrays["time"][row]), int(arrays["codes"][row]))
    return counts, bad


def _sorted_members(arrays: dict, n_groups: int) -> list:
    """Each group's risks in the partition, sorted (the later members of another partition's
    events)."""
    return [np.sort(arrays["risk"][arrays["codes"] == b]) for b in range(n_groups)]


def _events(arrays: dict, n_groups: int, curves, tau) -> dict:
    """The partition's events in increasing order of risk (so that the binary searches of
    :func:`_cross` walk forward): risk, group, time and the weight against each column group
    (1 / (K_a(t_i) K_b(t_i)) before tau, 0 from tau on; 1 for the naive estimator)."""
    event = arrays["event"]
    time, codes, risk = (arrays[name][event] for name in ("time", "codes", "risk"))  # in time order
    weight = np.ones((time.shape[0], n_groups))
    if curves is not None:  # looked up in time order: a merge with the curves, not binary searches
        inverse = inverse_censoring(curves)
        own = own_factors(codes, time, n_groups, inverse)
        for b in range(n_groups):
            with np.errstate(invalid="ignore"):
                weight[:, b] = own * inverse(b, time)
    if tau is not None:
        weight[time >= tau] = 0.0
    by_risk = np.argsort(risk, kind="stable")
    return {
        "time": time[by_risk],
        "codes": codes[by_risk],
        "risk": risk[by_risk],
        "weight": weight[by_risk],
    }


def _cross(events: dict, members: list, n_groups: int, settings) -> tuple:
    """Pairs of an earlier partition's events with a later partition's rows (all comparable):
    per column group b, two binary searches of the events' risks in b's sorted risks, the counts
    summed per row group with ``np.bincount``."""
    cells = _zero_counts(n_groups)
    bad = []
    codes, risk, time = events["codes"], events["risk"], events["time"]
    per_group = np.bincount(codes, minlength=n_groups)
    for b, risks in enumerate(members):
        if risks.shape[0] == 0:
            continue
        below = np.searchsorted(risks, risk - settings.tied_tol, side="left")
        tied = np.searchsorted(risks, risk + settings.tied_tol, side="right") - below
        weight = events["weight"][:, b]
        finite = np.isfinite(weight)
        if not finite.all():  # the earliest such event, as the in-memory kernel reports it
            first = np.argmin(np.where(finite, np.inf, time))
            bad.append((b, float(time[first]), int(codes[first])))
            weight = np.where(finite, weight, 0.0)
        score = below if settings.strict else below + 0.5 * tied
        cells.comparable[:, b] += per_group * risks.shape[0]
        cells.concordant[:, b] += np.bincount(codes, weights=below, minlength=n_groups).astype(
            np.int64
        )
        cells.tied_risk[:, b] += np.bincount(codes, weights=tied, minlength=n_groups).astype(
            np.int64
        )
        cells.numerator[:, b] += np.bincount(codes, weights=weight * score, minlength=n_groups)
        cells.denominator[:, b] += (
            np.bincount(codes, weights=weight, minlength=n_groups) * risks.shape[0]
        )
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
        for name in (
            "comparable",
            "concordant",
            "tied_risk",
            "tied_time",
            "numerator",
            "denominator",
        ):
            getattr(total, name)[...] += getattr(counts, name)
        if problem is not None:
            problems.append(problem)
    # the event the in-memory kernel reports: the first column group, then the earliest time
    return PairCounts(**vars(total)), min(problems) if problems else None


def _group_sizes(summaries: list, labels: tuple) -> dict:
    size = sum(s["size"] for s in summaries)
    events = sum(s["events"] for s in summaries)
    return {label: {"n": int(size[k]), "events": int(events[k])} for k, label in enumerate(labels)}
