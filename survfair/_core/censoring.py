"""Censoring survival K_g(t) = P(U > t | G = g), per group or pooled.

The estimator is the Kaplan-Meier of the censoring distribution with scikit-survival's
convention (``kaplan_meier_estimator(reverse=True)`` / ``CensoringDistributionEstimator``): at a
tied time, events leave the risk set before censorings, so
K(t) = prod_{s <= t} (1 - c_s / (n_s - d_s)), right-continuous. It is computed here with vectorised
numpy rather than by calling scikit-survival, whose counting step is a per-row Python loop (about
3 s per curve at n = 10^6 and a minute at 10^7, more than the whole pair count); the test suite
asserts equality with ``sksurv.nonparametric.CensoringDistributionEstimator`` on tied data.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._compiled import _kaplan_meier, flags, floats, indices
from .exceptions import InvalidParameterError, PositivityError, PositivityWarning, listed
from .frozen import frozen_result
from .groups import label_array
from .options import describe_rows
from .validation import SurvivalSample

__all__ = [
    "CensoringCurves",
    "fit_censoring",
    "censoring_kaplan_meier",
    "kaplan_meier_sorted",
    "kaplan_meier_from_counts",
    "inverse_censoring",
    "InverseCensoring",
]

POSITIVITY_WARN_LEVEL = 0.1
#: Zero of a weighted sum obtained by differencing running totals (see :func:`kaplan_meier_sorted`
#: and the pair-count kernel, which uses this constant): |value| <= RESIDUE x the total it was built
#: from.
RESIDUE = 1e-12
_ABSENT = np.empty(0)  # no case weights / no delayed entry
#: Below this many rows the per-group curves are fitted on one thread (a thread's start-up costs
#: more).
_MIN_THREADED_ROWS = 50_000


def kaplan_meier_from_counts(total: np.ndarray, events: np.ndarray) -> np.ndarray:
    """Censoring survival just after each grid time, from per-time row counts.

    Parameters
    ----------
    total, events : ndarray of shape (n_times,)
        Rows (or bootstrap multiplicities) and events at each sorted grid time.

    Returns
    -------
    ndarray of shape (n_times,)
        K(t) = prod_{s <= t} (1 - c_s / (n_s - d_s)): events leave the risk set before the
        censorings at a tied time (scikit-survival's ``reverse=True`` convention).
    """
    censored = total - events
    at_risk_after_events = np.cumsum(total[::-1])[::-1] - events
    ratio = np.divide(
        censored, at_risk_after_events, out=np.zeros(total.shape[0]), where=censored != 0
    )
    return np.cumprod(1.0 - ratio)


def kaplan_meier_sorted(time, event, rows, weight, entry_values, entry_weights, steps_only):
    """Censoring KM of the rows ``rows`` (indices into time/event, in ascending time order).

    One sweep, the same arithmetic as :func:`kaplan_meier_from_counts` (ratio c / (n - d), then a
    running product), so the values are bit-identical to it. ``weight`` (empty: every row counts 1)
    are case weights: deaths, censorings and risk sets are sums of weights. ``entry_values`` (empty:
    none) are the same rows' entry times in increasing order (delayed entry; sorted by the caller,
    with numpy) and ``entry_weights`` their case weights (empty: 1): a row is at risk at s when
    entry < s <= time, so the risk set at s is the weight entered before s minus the weight whose
    time is before s.

    Returns (times, K just after each): every unique time, or with ``steps_only`` the times at which
    K changes and the last unique time (the same step function; 2 of 3 rows of a cohort with a third
    censored fall away, and at 10^8 rows that is 1 GB of curves).
    """
    arrays = (
        floats(time),
        flags(event),
        indices(rows),
        floats(weight),
        floats(entry_values),
        floats(entry_weights),
        bool(steps_only),
        RESIDUE,
    )
    n_out = _kaplan_meier.kaplan_meier_sweep(*arrays, _ABSENT, _ABSENT)  # the counting sweep
    unique_time = np.empty(n_out, np.float64)
    survival = np.empty(n_out, np.float64)
    _kaplan_meier.kaplan_meier_sweep(*arrays, unique_time, survival)
    return unique_time, survival


def censoring_kaplan_meier(
    time: np.ndarray, event: np.ndarray, order: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Kaplan-Meier of the censoring distribution at each unique time.

    Parameters
    ----------
    time : ndarray of shape (n_samples,), float
    event : ndarray of shape (n_samples,), bool
    order : ndarray of shape (n_samples,), optional
        Row indices in ascending time order, when the caller has them already.

    Returns
    -------
    unique_time : ndarray of shape (n_times,)
    survival : ndarray of shape (n_times,)
        K just after each unique time (see :func:`kaplan_meier_from_counts`).
    """
    if order is None:
        order = np.argsort(time)
    return kaplan_meier_sorted(time, event, order, _ABSENT, _ABSENT, _ABSENT, False)


@frozen_result
class CensoringCurves:
    """Fitted censoring survival curves, one per group (or one shared curve).

    Attributes
    ----------
    kind : {"group", "pooled"}
        ``"group"``: K_g fitted within each group (eq. 6 of Wang et al. 2026);
        ``"pooled"``: one K for everyone (scikit-survival's ``concordance_index_ipcw``).
    groups : tuple
        Group labels, in matrix order.
    times : tuple of ndarray
        The times at which each group's K steps down, then the last time of its reference sample
        (the same array repeated when pooled). Between them K is flat: the curve is the same step
        function as one listed at every unique time, in a third of the memory when a third of the
        rows are censored.
    survival : tuple of ndarray
        K just after each of those times.

    See Also
    --------
    XCIResult : holds them (``censoring_curves``).
    """

    kind: str
    groups: tuple
    times: tuple = field(repr=False)
    survival: tuple = field(repr=False)
    #: made by survfair and up to n long: made read-only without a copy (see survfair._core.frozen)
    _freeze_in_place = ("times", "survival")

    def evaluate(self, group_index: int, times: np.ndarray) -> np.ndarray:
        """K of group ``groups[group_index]`` at ``times``; NaN beyond the curve's last time.

        Beyond the last time of the reference sample a Kaplan-Meier curve that has not
        reached zero is undefined, so NaN is returned there (scikit-survival raises).
        """
        curve_times, curve = self.times[group_index], self.survival[group_index]
        times = np.ascontiguousarray(times, dtype=np.float64)
        times = floats(times)
        out = np.empty(times.shape[0], np.float64)
        _kaplan_meier.step_lookup(
            floats(curve_times), floats(curve), times, bool(curve[-1] > 0), out
        )
        return out

    def last_time(self, group_index: int) -> float:
        """Largest time of the group's reference sample."""
        return float(self.times[group_index][-1])

    def to_frame(self) -> pd.DataFrame:
        """Tidy curves: one row per (group, time at which K steps, and the last time) with the
        censoring survival just after it."""
        frames = [
            pd.DataFrame(
                {"group": label_array([label] * len(t)), "time": t, "censoring_survival": k}
            )
            for label, t, k in zip(self.groups, self.times, self.survival)
        ]
        return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class InverseCensoring:
    """1 / K_g(t) as the kernel wants it: Inf where K is 0, NaN where it is undefined (the kernel
    reports either as a positivity failure).

    Called as ``inverse(g, times)`` it gives the values at an array of times; ``steps(g)`` gives
    the curve itself, which the kernel's per-group passes evaluate row by row as they sweep the
    time axis instead of holding an array of n values per pass (8 bytes a row for each thread).
    """

    curves: CensoringCurves

    def __call__(self, group_index: int, times: np.ndarray) -> np.ndarray:
        values = self.curves.evaluate(group_index, times)
        with np.errstate(divide="ignore"):
            return np.divide(1.0, values, out=values)  # in place: one array of n, not two

    def steps(self, group_index: int) -> tuple[np.ndarray, np.ndarray, bool]:
        """(the curve's times, K just after each, whether K is undefined beyond the last time)."""
        times = np.ascontiguousarray(self.curves.times[group_index], dtype=np.float64)
        survival = np.ascontiguousarray(self.curves.survival[group_index], dtype=np.float64)
        return times, survival, bool(survival[-1] > 0)


def inverse_censoring(curves: CensoringCurves | None) -> InverseCensoring | None:
    """The kernel's ``inverse_k`` for these curves (None for the naive estimator)."""
    return None if curves is None else InverseCensoring(curves)


@dataclass(frozen=True)
class SortedRows:
    """The rows of a sample already in ascending time order: what the censoring fit reads (built
    by :meth:`survfair._core.kernel.PreparedPairs.censoring_rows` from the pair counts' one sort).

    ``observed`` is True for every observed event, competing ones included (a competing event is
    an event, not a censoring). Absent case weights or entry times are empty arrays, as the
    compiled Kaplan-Meier takes them; ``entries`` is :func:`entries_in_order` of the entry times.
    """

    time: np.ndarray
    observed: np.ndarray
    codes: np.ndarray
    case_weight: np.ndarray
    entry: np.ndarray
    entries: tuple


def fit_censoring(
    reference: SurvivalSample,
    kind: str,
    order: np.ndarray | None = None,
    *,
    sorted_rows: SortedRows | None = None,
    n_jobs: int = 1,
) -> CensoringCurves:
    """Fit the censoring survival on ``reference`` per group (``kind="group"``) or pooled.

    ``order`` (row indices of ``reference`` in ascending time order) may be passed when the caller
    has sorted already; each group's rows are then that order's subsequence. ``sorted_rows``, the
    same rows already permuted into that order, does the same with sequential reads. The
    reference sample's
    case weights and entry times (``weights=``, ``entry=``) give a weighted, left-truncated
    Kaplan-Meier (risk sets of the rows with entry < s <= time). ``n_jobs`` threads fit the
    groups' curves at once (from 50,000 rows; the curves are the same for any ``n_jobs``).

    Raises
    ------
    ValueError
        If a group of the analysis has no row in the reference sample.
    """
    if sorted_rows is not None:
        time, event, codes_in_order = sorted_rows.time, sorted_rows.observed, sorted_rows.codes
        weight, entry = sorted_rows.case_weight, sorted_rows.entry
        order = (
            None  # the identity: each group's rows are where its code is (no n-array of positions)
        )
        row_codes = codes_in_order
    else:
        time, event = (
            reference.time,
            reference.observed,
        )  # competing events are events, not censorings
        weight = _ABSENT if reference.weights is None else reference.weights
        entry = _ABSENT if reference.entry is None else reference.entry
        if order is None:
            order = np.argsort(time)
        codes_in_order = reference.group_codes[order]
        row_codes = reference.group_codes
    if entry.shape[0] == 0:
        entries = (_ABSENT, None, _ABSENT)
    elif sorted_rows is not None:
        entries = sorted_rows.entries
    else:
        entries = entries_in_order(entry, row_codes, weight)
    if kind == "pooled":
        rows = np.arange(time.shape[0]) if order is None else order
        t, k = kaplan_meier_sorted(time, event, rows, weight, entries[0], entries[2], True)
        return CensoringCurves(
            "pooled", reference.groups, (t,) * reference.n_groups, (k,) * reference.n_groups
        )

    def one_group(code: int) -> tuple[np.ndarray, np.ndarray]:
        rows = (
            np.flatnonzero(codes_in_order == code)
            if order is None
            else order[codes_in_order == code]
        )
        if rows.shape[0] == 0:
            label = reference.groups[code]
            raise InvalidParameterError(
                f"censoring_reference has no row of group {label!r}; K_{label} cannot be fitted.",
                parameter="censoring_reference",
            )
        values, weights = entries[0], entries[2]
        if entries[1] is not None:
            mine = entries[1] == code
            values, weights = values[mine], (weights[mine] if weights.shape[0] else weights)
        return kaplan_meier_sorted(time, event, rows, weight, values, weights, True)

    # the groups' curves are independent and their sweeps release the GIL: on threads when asked
    # and worth a thread's start-up (the same curves whatever n_jobs; map raises the first group's
    # error in group order, as the loop did)
    workers = min(int(n_jobs), reference.n_groups) if time.shape[0] >= _MIN_THREADED_ROWS else 1
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers) as pool:
            curves = list(pool.map(one_group, range(reference.n_groups)))
    else:
        curves = [one_group(code) for code in range(reference.n_groups)]
    return CensoringCurves(
        "group", reference.groups, tuple(c[0] for c in curves), tuple(c[1] for c in curves)
    )


def entries_in_order(entry: np.ndarray, codes: np.ndarray, weight: np.ndarray) -> tuple:
    """(entry times ascending, their rows' group codes, their case weights or empty): what
    :func:`kaplan_meier_sorted` reads for delayed entry, one group at a time."""
    by_entry = np.argsort(entry)
    return entry[by_entry], codes[by_entry], (weight[by_entry] if weight.shape[0] else _ABSENT)


def raise_positivity(
    curves: CensoringCurves,
    group_index: int,
    time: float,
    value: float,
    reference: SurvivalSample | None = None,
) -> None:
    """Raise the positivity error for a weight that cannot be formed.

    Parameters
    ----------
    curves : CensoringCurves
        The fitted censoring curves.
    group_index : int
        Index of the group whose curve is 0 or undefined at ``time``.
    time : float
        The time at which the weight was needed.
    value : float
        K there (0 or NaN).
    reference : SurvivalSample, optional
        The sample the curves were fitted on. When given and the curve fell to 0 before its last
        time (a risk set emptied by delayed entry), the message names the rows responsible.

    Raises
    ------
    PositivityError
        Always. When the Kaplan-Meier fell to 0 at a time before the group's last time -- only
        possible when the risk set there held nothing but censorings while rows with later times
        had not yet entered (delayed entry), or had weight 0 -- no tau above that time can help,
        and the message says so instead of suggesting a smaller tau.
    """
    label = curves.groups[group_index]
    if np.isnan(value):
        raise PositivityError(
            f"censoring survival K of group {label!r} is undefined at time {time:g}, beyond the "
            "last time of the censoring reference sample; pass a smaller tau."
        )
    emptied = _emptied_early(curves, group_index)
    if emptied is not None:
        raise PositivityError(_emptied_message(curves, group_index, time, emptied, reference))
    raise PositivityError(
        f"censoring survival K of group {label!r} is 0 at time {time:g}, so its IPCW weight is "
        f"infinite (positivity fails); pass a smaller tau (below {time:g})."
    )


def _emptied_early(curves: CensoringCurves, group_index: int) -> float | None:
    """The time at which the curve fell to 0, if that is before its last time; else None.

    Without delayed entry (or zero weights) a censoring Kaplan-Meier reaches 0 only when every row
    still at risk is censored, which leaves no later time: K = 0 earlier means the risk set was
    emptied while rows with later times had not entered yet. A Kaplan-Meier stays 0 once it is 0
    (as R's ``survfit`` does), so every later time has weight 0 too.
    """
    times, survival = curves.times[group_index], curves.survival[group_index]
    zero = np.flatnonzero(survival <= 0)
    if zero.size == 0:
        return None
    first = float(times[zero[0]])
    return first if first < float(times[-1]) else None


def _emptied_message(
    curves: CensoringCurves,
    group_index: int,
    time: float,
    emptied: float,
    reference: SurvivalSample | None,
) -> str:
    """The positivity message for a curve that fell to 0 at ``emptied``, before its last time."""
    label = curves.groups[group_index]
    whose = (
        "the pooled censoring survival K"
        if curves.kind == "pooled"
        else f"censoring survival K of group {label!r}"
    )
    rows_text, entered_text = "", ""
    if reference is not None:
        mine = (
            np.ones(reference.n_samples, bool)
            if curves.kind == "pooled"
            else reference.group_codes == group_index
        )
        censored_there = mine & (reference.time == emptied) & ~reference.observed
        if reference.weights is not None:
            censored_there &= reference.weights > 0
        if censored_there.any():
            rows_text = f" ({describe_rows(censored_there, reference.index)})"
        if reference.entry is not None:
            later = mine & (reference.entry >= emptied) & (reference.time > emptied)
            if later.any():
                count = int(later.sum())
                entered_text = (
                    f" ({count} row{'s' if count != 1 else ''} with later times entered at or "
                    f"after {emptied:g})"
                )
    if reference is None:
        cause = (
            "emptied by delayed entry (rows with later times had not entered yet) or by rows of "
            "weight 0"
        )
    elif reference.entry is not None:
        cause = f"the left-truncated risk set emptied by delayed entry{entered_text}"
    else:
        cause = "the rows with later times have weight 0"
    advice = ['censoring="pooled" (one curve for all groups)'] if curves.kind == "group" else []
    advice += [
        f"a later time origin, or dropping the early row(s) censored at {emptied:g}",
        'method="naive"',
    ]
    return (
        f"{whose} is 0 at time {time:g}, so its IPCW weight is infinite (positivity fails): its "
        f"Kaplan-Meier fell to 0 at time {emptied:g}, where every row at risk was "
        f"censored{rows_text}, {cause}. A Kaplan-Meier stays 0 once it reaches 0 (R's survfit does "
        f"the same), so no tau above {emptied:g} avoids it; consider {'; '.join(advice[:-1])}; or "
        f"{advice[-1]}."
    )


def check_positivity(curves: CensoringCurves, last_weighted_time: float) -> dict:
    """Warn when K_g drops below 0.1 on [0, tau); return min K_g per group on that range.

    ``last_weighted_time`` is the largest time at which a weight is used (the largest event time
    below tau); K is non-increasing, so its minimum over the range is its value there.
    """
    minima, low = {}, []
    for code, label in enumerate(curves.groups):
        # K_g is only used up to the last time of group g's own reference curve
        until = min(last_weighted_time, curves.last_time(code))
        value = float(curves.evaluate(code, np.array([until]))[0])
        minima[label] = value
        if np.isfinite(value) and 0 < value < POSITIVITY_WARN_LEVEL:
            low.append((label, value, until))
    if low:  # one warning for all groups, naming a handful: 500 groups must not print 500 lines
        worst = min(value for _, value, _ in low)
        described = listed(
            f"group {label!r} falls to {value:.3g} by time {until:g}" for label, value, until in low
        )
        warnings.warn(
            f"censoring survival below {POSITIVITY_WARN_LEVEL}: {described}; IPCW weights up to "
            f"{1 / worst**2:.3g} make the estimate unstable. Consider a smaller tau.",
            PositivityWarning,
            stacklevel=3,
        )
    return minima
