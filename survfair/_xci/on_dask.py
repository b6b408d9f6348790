"""The xCI of a ``dask.dataframe`` that does not fit in one machine's memory: the point estimate
here, the analytic intervals in :mod:`survfair._xci.on_dask_inference`.

The data never come together. Dask sorts the rows by time (its own shuffle), so that every
partition holds a contiguous range of times and no time is shared by two partitions (checked).
Then every comparable pair (i, j) with an event for i is of one of two kinds:

* both in one partition: counted by the in-memory kernel on that partition
  (:func:`survfair._core.kernel.count_pairs`), with the censoring weights of the whole cohort;
* i in partition p, j in a later partition q: j is later than i whatever their statuses, so the
  pair is comparable, and it is concordant, tied or discordant by the risks alone. Per partition
  pair and column group, the later partition's risks of that group are sorted once and each event
  of p finds how many lie below r_i - tol and within [r_i - tol, r_i + tol] by two binary searches
  (a merge count of sorted risks), weighted by the event's IPCW weight against that group (with
  case weights, the prefix sums of the sorted members' weights replace their counts).

With delayed entry (``entry=``) the pairs inside a partition are the kernel's with the partition's
entry times (a row that entered in an earlier partition's range is at risk from the start of this
one), and across partitions j must have entered before t_i: the rows of q that entered before p's
first event are merged as above, those that entered within p's events by the kernel
(:func:`survfair._xci.on_dask_pairs.later_partner`).

The censoring curves are the Kaplan-Meier fits of the event and censoring counts of every group at
every distinct time, a group-by of each (time-disjoint) partition, computed by the same function
as in memory with the counts as case weights, which gives the same curves to the last bit. With
delayed entry each partition also gives the weight entering at each distinct entry time (the
entries of one partition may fall in any earlier partition's range): the risk sets on
(entry, time] of the same function, the sums taken in another order. The counts are exact
integers and the weighted sums equal the in-memory sums up to the order of addition (tested to
1e-12).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._core.censoring import (
    CensoringCurves,
    check_positivity,
    kaplan_meier_sorted,
)
from .._core.exceptions import InvalidParameterError, warn_undefined_cells
from .._core.groups import encode_groups
from .._core.kernel import PairCounts, PairOptions, count_pairs, prepare_pairs
from .._core.results import XCIResult
from .._core.settings import EstimatorSettings
from .._core.validation import check_survival_inputs, warn_excluded_rows, warn_one_cluster
from .on_dask_pairs import (
    _cross_partner,
    _events,
    _sorted_members,
    _total,
    _zero_counts,
    checked_counts,
    later_partner,
    located,
)

__all__ = ["is_dask_frame", "xci_dask"]

_NONE = np.empty(0)


def is_dask_frame(value: Any) -> bool:
    """True for a ``dask.dataframe`` DataFrame (without importing Dask when it is not loaded)."""
    module = type(value).__module__
    return module.startswith("dask.dataframe") or module.startswith("dask_expr")


def xci_dask(
    frame,
    time: str,
    event: str,
    group: str,
    risk: str,
    *,
    groups,
    settings: EstimatorSettings,
    weights: str | None = None,
    cluster: str | None = None,
    entry: str | None = None,
    ci: str | None = None,
    confidence_level: float = 0.95,
) -> XCIResult:
    """xCI of the Dask DataFrame ``frame`` (columns named by ``time`` ... ``risk``, and by
    ``weights``, ``cluster`` and ``entry`` when given): the numbers of :func:`survfair.xci` on the
    same rows, with ``ci=None`` (point estimate) or ``ci="analytic"`` (the analytic covariance,
    computed by :mod:`survfair._xci.on_dask_inference`). See the module docstring."""
    columns = {"time": time, "event": event, "group": group, "risk": risk}
    for role, name in (("weights", weights), ("cluster", cluster), ("entry", entry)):
        if name is not None:
            columns[role] = name
    for role, name in columns.items():
        if not isinstance(name, str) or name not in frame.columns:
            raise InvalidParameterError(
                f"{role}: with a Dask DataFrame as data, {role} must name one of its columns; "
                f"got {name!r} (columns: {list(frame.columns)}).",
                parameter=role,
            )
    frame = frame[list(dict.fromkeys(columns.values()))]
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
    curves = entries = None
    if ipcw:
        entries = _entries(summaries, settings.censoring, labels) if entry is not None else None
        curves = _censoring_curves(
            [summary["counts"] for summary in summaries], settings.censoring, labels, entries
        )
    influence = None
    if ci == "analytic":
        from .on_dask_inference import analytic_on_dask

        counts, influence = analytic_on_dask(
            read,
            len(labels),
            curves,
            settings,
            clustered=cluster is not None,
            delayed_entry=entry is not None,
            entries=None if entries is None else _entries_by_partition(entries, summaries),
        )
    else:
        counts = _pair_counts(read, len(labels), curves, tau, settings, entry is not None)
    minima = {}
    last = max((summary["last_weighted_event"] for summary in summaries), default=-np.inf)
    if curves is not None and np.isfinite(last):
        minima = check_positivity(curves, float(last))
    warn_undefined_cells(counts.denominator, labels, stacklevel=3)
    n_clusters = None
    if cluster is not None:  # one distinct count over the partitions (what xci(cluster=) reports)
        n_clusters = int(frame[cluster].nunique().compute())
        warn_one_cluster(n_clusters, ci, stacklevel=3)
    return XCIResult(
        groups=labels,
        settings=settings,
        n_samples=n_kept,
        n_excluded=n_excluded,
        pair_counts=counts,
        censoring_curves=curves,
        min_censoring_survival=minima,
        group_sizes=_group_sizes(summaries, labels),
        influence=influence,
        confidence_level=confidence_level,
        ci_method=ci,
        rows_without_sample={"weighted": weights is not None, "n_clusters": n_clusters},
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


def _pair_counts(
    read: list, n_groups: int, curves, tau: float | None, settings, entry: bool
) -> PairCounts:
    """Every cell's counts: each partition by the kernel, each ordered pair of partitions by merge
    counts (and with delayed entry, ``entry``, the kernel's counts of the rows that entered among
    the earlier partition's events); raises as :func:`survfair.xci` for a weight that cannot be
    formed or no usable pair."""
    import dask

    # one key for the curves (as long as the distinct times): sent to each worker once, not with
    # every task
    shared = dask.delayed(curves, pure=True) if curves is not None else None
    within = [dask.delayed(_within)(arrays, n_groups, shared, settings) for arrays in read]
    members = [dask.delayed(_sorted_members)(arrays, n_groups, entry) for arrays in read]
    events = [dask.delayed(_events)(arrays, n_groups, shared, tau) for arrays in read]

    def partner(p, q):  # the rows of q as the later members of p's events
        if not entry:
            return members[q]
        return dask.delayed(later_partner)(
            events[p], members[q], read[q], n_groups, shared, settings
        )

    cross = [
        dask.delayed(_cross_partner)(events[p], partner(p, q), n_groups, settings)
        for p in range(len(read))
        for q in range(p + 1, len(read))
    ]
    counts, bad = _total(dask.compute(*within, *cross), n_groups)
    return checked_counts(counts, bad, curves, settings)


def _partition_arrays(part: pd.DataFrame, columns: dict, labels: tuple) -> dict:
    """One partition, validated as :func:`survfair.xci` validates its input (errors name the rows
    by their index labels), its groups coded in the order of the whole frame."""
    weighted, clustered, delayed = (name in columns for name in ("weights", "cluster", "entry"))
    if len(part) == 0:
        return {
            "time": _NONE,
            "event": np.empty(0, bool),
            "codes": np.empty(0, np.int32),
            "risk": _NONE,
            "weight": _NONE if weighted else None,
            "cluster": np.empty(0, object) if clustered else None,
            "entry": _NONE if delayed else None,
        }
    sample, _ = check_survival_inputs(
        part[columns["time"]],
        part[columns["event"]],
        part[columns["group"]],
        part[columns["risk"]],
        weights=part[columns["weights"]] if weighted else None,
        cluster=part[columns["cluster"]] if clustered else None,
        entry=part[columns["entry"]] if delayed else None,
    )
    position = {label: k for k, label in enumerate(labels)}
    codes = np.array([position[label] for label in sample.groups], dtype=np.int32)[
        sample.group_codes
    ]
    # in time order (Dask's sort need not be stable, nor keep equal times together in order)
    order = np.argsort(sample.time, kind="stable")
    arrays = {"time": sample.time, "event": sample.event, "codes": codes, "risk": sample.risk}
    arrays["weight"] = sample.weights if weighted else None
    arrays["cluster"] = part[columns["cluster"]].to_numpy() if clustered else None
    arrays["entry"] = sample.entry
    return {name: None if values is None else values[order] for name, values in arrays.items()}


def _summary(arrays: dict, n_groups: int, tau: float | None, censoring: str | None) -> dict:
    """Rows, time range, group sizes, the last event time before tau and what the censoring curves
    need (``censoring``: "group", "pooled", or None for none): the runs of (time, status), and with
    delayed entry the weight entering at each distinct entry time (:func:`_entry_runs`)."""
    time, event, codes, weight = (arrays[name] for name in ("time", "event", "codes", "weight"))
    entry = arrays["entry"]
    counts, entries = {}, {}
    if censoring == "pooled":
        counts["pooled"] = _runs(time, event, weight)
        if entry is not None:
            entries["pooled"] = _entry_runs(entry, weight)
    elif censoring == "group":
        by_group = np.argsort(codes, kind="stable")  # each group's rows, still in time order
        bounds = np.cumsum(np.bincount(codes, minlength=n_groups))
        for code, rows in enumerate(np.split(by_group, bounds[:-1])):
            mine = None if weight is None else weight[rows]
            counts[code] = _runs(time[rows], event[rows], mine)
            if entry is not None:
                entries[code] = _entry_runs(entry[rows], mine)
    weighted = time[event] if tau is None else time[event & (time < tau)]
    return {
        "n": time.shape[0],
        "min": float(time.min()) if time.shape[0] else np.nan,
        "max": float(time.max()) if time.shape[0] else np.nan,
        "size": np.bincount(codes, minlength=n_groups),
        "events": np.bincount(codes[event], minlength=n_groups),
        "counts": counts,
        "entries": entries,
        "first_entry": float(entry.min()) if entry is not None and entry.shape[0] else np.inf,
        "last_weighted_event": float(weighted.max()) if weighted.shape[0] else -np.inf,
    }


def _runs(time: np.ndarray, event: np.ndarray, weight: np.ndarray | None = None) -> tuple:
    """(time, event, count) of the runs of equal (time, status) in rows in time order: what the
    Kaplan-Meier needs, smaller than the rows when times are tied. With case weights ``weight``
    the count of a run is the sum of its rows' weights."""
    if time.shape[0] == 0:
        return time, event, np.empty(0)
    starts = np.flatnonzero(
        np.concatenate([[True], (time[1:] != time[:-1]) | (event[1:] != event[:-1])])
    )
    if weight is not None:
        return time[starts], event[starts], np.add.reduceat(weight, starts)
    return time[starts], event[starts], np.diff(np.append(starts, time.shape[0])).astype(np.float64)


def _entry_runs(entry: np.ndarray, weight: np.ndarray | None) -> tuple:
    """(distinct entry times ascending, the weight entering at each: its rows' case weights summed,
    or their count)."""
    values, inverse = np.unique(entry, return_inverse=True)
    return values, np.bincount(inverse, weights=weight, minlength=values.shape[0]).astype(float)


def _entries(summaries: list, kind: str, labels: tuple) -> list:
    """Every censoring curve's entry runs over all partitions, (entry times ascending, weights):
    the delayed entries of the Kaplan-Meier's risk sets (a partition's entries may lie in any
    earlier partition's range, so they are merged by a sort, not concatenated)."""
    keys = ["pooled"] if kind == "pooled" else list(range(len(labels)))
    out = []
    for key in keys:
        values, weights = (
            np.concatenate(parts) for parts in zip(*(s["entries"][key] for s in summaries))
        )
        order = np.argsort(values, kind="stable")
        out.append((values[order], weights[order]))
    return out


def _entries_by_partition(entries: list, summaries: list) -> list:
    """What the influence sweep of each partition reads of the entries: ``base`` and ``inside``,
    per curve the weight that entered before the partition's first time and the entry times in
    its range [first, last) with their weights (its risk sets on (entry, time]); ``first``, that
    first time (the entries in [first, the next partition's first) are credited this partition's
    compensator); ``credited_from``, the first partition whose range holds one of its rows'
    entries (its rows that entered before every partition's first time are credited nothing)."""
    firsts = np.array([summary["min"] for summary in summaries])
    entries = [(v, w, np.concatenate([[0.0], np.cumsum(w)])) for v, w in entries]
    out = []
    for summary in summaries:
        first, last = summary["min"], summary["max"]
        base, inside = [], []
        for values, weights, cumulative in entries:
            start, stop = np.searchsorted(values, [first, last], side="left")
            base.append(cumulative[start])
            inside.append((values[start:stop], weights[start:stop]))
        since = int(np.searchsorted(firsts, summary["first_entry"], side="right")) - 1
        out.append(
            {
                "base": np.array(base),
                "inside": inside,
                "first": first,
                "credited_from": max(since, 0),
            }
        )
    return out


def _check_disjoint(summaries: list) -> None:
    for first, second in zip(summaries[:-1], summaries[1:]):
        if not first["max"] < second["min"]:
            raise RuntimeError(
                "Dask's sort by time left equal or overlapping times in two partitions "
                f"({first['max']} >= {second['min']}); the cross-partition count needs disjoint "
                "ranges."
            )


def _censoring_curves(
    partition_counts: list, kind: str, labels: tuple, entries: list | None = None
) -> CensoringCurves:
    """The censoring Kaplan-Meier of the counts at every distinct time (partitions are in time
    order and disjoint, so their runs concatenate in time order): :func:`kaplan_meier_sorted` with
    the run lengths as case weights, the arithmetic of the in-memory fit on the rows; with delayed
    entry, ``entries`` (:func:`_entries`) give its risk sets on (entry, time]."""
    keys = ["pooled"] if kind == "pooled" else list(range(len(labels)))
    times, survival = [], []
    for position, key in enumerate(keys):
        t, event, count = (
            np.concatenate(parts) for parts in zip(*(counts[key] for counts in partition_counts))
        )
        entered = (_NONE, _NONE) if entries is None else entries[position]
        t_k, k = kaplan_meier_sorted(
            t, event.astype(bool), np.arange(t.shape[0]), count, *entered, True
        )
        times.append(t_k)
        survival.append(k)
    if kind == "pooled":
        return CensoringCurves(
            "pooled", labels, (times[0],) * len(labels), (survival[0],) * len(labels)
        )
    return CensoringCurves("group", labels, tuple(times), tuple(survival))


def _within(arrays: dict, n_groups: int, curves, settings) -> tuple:
    """The pairs inside one partition: the in-memory kernel with the whole cohort's weights."""
    if arrays["time"].shape[0] == 0:
        return _zero_counts(n_groups), None
    rows = prepare_pairs(
        arrays["time"],
        arrays["event"],
        arrays["codes"],
        arrays["risk"],
        n_groups,
        settings.tied_tol,
        case_weight=arrays["weight"],
        entry=arrays["entry"],
    )
    counts, bad = count_pairs(rows, PairOptions.of(settings, curves))
    return counts, located(bad, arrays["time"], arrays["codes"])


def _group_sizes(summaries: list, labels: tuple) -> dict:
    size = sum(s["size"] for s in summaries)
    events = sum(s["events"] for s in summaries)
    return {label: {"n": int(size[k]), "events": int(events[k])} for k, label in enumerate(labels)}
