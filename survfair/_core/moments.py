"""Analytic intervals without stored rows: the moment engine.

The row path (:func:`survfair._core.influence.influence`) keeps every individual's contributions (4G
numbers a row) and influence rows (2G) and sums their squares at the end: 8 (4G + 1) bytes a row,
26 GB at 10^8 rows and G = 8. Standard errors, differences, contrasts and their covariances only
need the covariance of the cells, and with one censoring curve per group (or fixed weights) a row's
influence lies in its group's row and column of cells
(:class:`survfair._core.influence.CompactLayout`), so the covariance is a sum over the groups of the
second moments of their rows' 2G slots (and of the pooled C's influence beside them): G (2G + 1)^2
numbers.

This engine forms every row at its own time and adds it into those moments, chunk by chunk of
whole time blocks, and keeps no row:

1. the point estimate's counts give every cell's xCI, its denominator and the pooled C;
2. the column passes walk UP the time order (:func:`survfair._core.kernel.ascending_passes`), so
   that a row's sums as the earlier member of its pairs (final at its time in either direction) and
   as the later member (final at its time only in this direction) are both complete when its chunk
   ends;
3. the influence sweep (the row path's, :class:`survfair._compiled._influence.StreamingSweep`)
   turns a chunk's sums into its rows with the Kaplan-Meier term of estimated weights, which needs
   only what the rows before it carried (F_ab(s) = total - the psi^E of the rows before s);
4. each group's rows of the chunk go into its moments (``X.T @ X``, BLAS).

What the sweep needs from all rows before it starts is known in closed form: DeLong's factors count
the individuals with a positive weight in each role and cell (:func:`_role_counts`), and the cells'
psi^E totals are N - theta D. The rows' own counts are checked against the closed form at the end;
they disagree only where a sum of weights rounds to 0 differently (a weight 10^16 times another's),
and then the row path is run instead.

Memory beyond the point estimate's: the ascending passes' trees of later sums (8 G bytes a row, as
the row path's passes hold one column's at a time) and chunk buffers; 10^8 rows at G = 8 took
16.3 GB at their peak, inputs included, where the row path needed 26 GB for its rows alone. The
engine takes over where the row path's rows would take more than :data:`ROW_PATH_BYTES` (2 GiB;
below that the row path is faster on one thread). The row path stays where rows are needed:
clusters (summed per cluster), paired comparisons, BCa, delayed entry (the Kaplan-Meier term is
credited at the entry, before the row's time), competing risks, pooled censoring estimated on the
rows from five groups on (each row then moves all G^2 cells) and more than 32 groups (G^3 moments).
"""

from __future__ import annotations

import contextlib
from dataclasses import field

import numpy as np

from .._compiled import CODE_TYPES, flags, floats, indices
from .._compiled import _influence as _compiled
from .censoring import RESIDUE as KM_RESIDUE
from .censoring import CensoringCurves
from .frozen import FrozenCachedProperty, frozen_result
from .influence import (
    Influence,
    _cell_table,
    _compact_rows_hold,
    cell_ratios,
    censoring_terms,
    influence,
)
from .kernel import (
    PairCounts,
    PairOptions,
    PreparedPairs,
    ascending_applies,
    ascending_passes,
)
from .memory import require_memory
from .settings import EstimatorSettings
from .validation import SurvivalSample

__all__ = ["MomentInfluence", "moments_apply", "moment_influence"]

#: The moments are G (2G + 1)^2 numbers and each row adds (2G + 1)^2 products: beyond this many
#: groups the row path's O(n G) per-row work is the cheaper one.
MAX_GROUPS = 32
#: Pooled censoring estimated on the rows: every row moves all G^2 cells (dense rows).
MAX_POOLED_GROUPS = 4
#: Bytes of a chunk's sums and rows (6G + 2 numbers a row): the passes switch from one column's
#: tree to the next once per chunk, so larger chunks are faster (at 10^6 rows and G = 8 the passes
#: took 0.95 s in chunks of 16,384 rows, 0.69 s in chunks of 262,144, 0.65 s in one chunk).
CHUNK_BYTES = 64 * 2**20
#: Rows per chunk at least and at most (extended to the end of a block of equal time).
CHUNK_ROWS = (16_384, 262_144)


def chunk_rows(n_groups: int) -> int:
    """Rows per chunk for G groups: as many as fit in :data:`CHUNK_BYTES`, within
    :data:`CHUNK_ROWS`."""
    low, high = CHUNK_ROWS
    return int(min(high, max(low, CHUNK_BYTES // (8 * (6 * n_groups + 2)))))


#: From this many rows, with more than one thread, BLAS is held to one thread while the engine runs:
#: OpenBLAS's threads wait busily after each product of a chunk's moments and took the cores from
#: the passes' OpenMP threads (at 10^6 rows, G = 8, n_jobs = 2 the call took 1.08 s with
#: them, 0.86 s without; 1.20 s on one thread). Below it the limit's first use (about 45 ms) is not
#: worth it.
_BLAS_LIMIT_ROWS = 200_000
_controller = None


def _one_blas_thread(n: int, threads: int):
    """A context that holds BLAS to one thread (threadpoolctl), or does nothing."""
    global _controller
    if threads <= 1 or n < _BLAS_LIMIT_ROWS:
        return contextlib.nullcontext()
    if _controller is None:  # inspecting the loaded libraries is the slow part: once per process
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")


#: The engine runs where the row path's contributions and rows, 8 (4G + 1) bytes a row, would take
#: more than this. Below it the row path is the faster one on one thread (10^6 rows: 0.50 s against
#: 0.65 s at G = 2, 1.22 against 1.52 at G = 8, 4.12 against 4.67 at G = 32), above it the engine
#: (10^7 rows, G = 2: 9.1 s each; G = 8: 24.5 s against 20.7, with 3,325 MB against 1,434 MB), and
#: at 10^8 rows and G = 8 only the engine fits. A fixed size, not the memory free at the time, so
#: that a call gives the same numbers on every machine (the two paths agree to about 1e-12).
ROW_PATH_BYTES = 2 * 2**30


def moments_apply(
    sample: SurvivalSample, prepared: PreparedPairs | None, estimated: str | None
) -> bool:
    """Whether the moment engine computes these analytic intervals (else the row path does): the
    rows would take more than :data:`ROW_PATH_BYTES` and no computation needs them. ``estimated``
    as in :func:`survfair._core.influence.censoring_terms`."""
    g = sample.n_groups
    if (
        prepared is None
        or sample.cluster is not None
        or not ascending_applies(prepared)
        or g > MAX_GROUPS
    ):
        return False
    if 8.0 * sample.n_samples * (4 * g + 1) <= ROW_PATH_BYTES:
        return False
    return estimated != "pooled" or g <= MAX_POOLED_GROUPS


@frozen_result
class MomentInfluence:
    """The covariance of every cell and of the pooled C, from the moment engine (no rows).

    The same interface as :class:`survfair._core.influence.Influence` for everything that reads
    variances: :meth:`cell_se`, :meth:`difference_se`, :meth:`contrast_se`,
    :meth:`contrast_covariance`, ``covariance``, ``overall_variance``. It has no rows
    (``has_rows`` False): :attr:`rows` recomputes them with
    :func:`survfair._core.influence.influence` on the result's sample when something reads them
    (paired comparisons, the model-based reference, ``cells``).
    """

    covariance: np.ndarray  # (G*G, G*G), NaN rows and columns for undefined cells
    overall_variance: float
    #: (sample, counts, keyword arguments of survfair._core.influence.influence): what the rows are
    #: recomputed from when they are read (``cells``, ``overall``)
    _source: tuple = field(repr=False, compare=False)
    #: made by survfair, made read-only without a copy (see survfair._core.frozen)
    _freeze_in_place = ("covariance",)

    has_rows = False
    has_jackknife = False

    @FrozenCachedProperty
    def rows(self) -> Influence:
        """The row path's influence on the same sample and settings (computed on first access: the
        per-individual rows that paired comparisons, the model-based reference and ``cells``
        read)."""
        sample, counts, options = self._source
        return influence(sample, counts, **options)

    @property
    def cells(self) -> np.ndarray:
        """Per-individual influence of every cell, (n_samples, G*G), from :attr:`rows`."""
        return self.rows.cells

    @property
    def overall(self) -> np.ndarray:
        """Per-individual influence of the pooled C, (n_samples,), from :attr:`rows`."""
        return self.rows.overall

    @property
    def jackknife(self) -> np.ndarray:
        raise RuntimeError(
            "analytic intervals from the moment engine keep no contributions, so they cannot give "
            "the delete-one jackknife (as influence(jackknife=False)); read .rows.jackknife, which "
            "recomputes them"
        )

    def cell_se(self) -> np.ndarray:
        """Standard error of every cell, shape (G*G,) (NaN for undefined cells)."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def difference_se(self, first: np.ndarray, second: np.ndarray, chunk: int = 256) -> np.ndarray:
        """Standard errors of the cell differences theta[first[k]] - theta[second[k]]."""
        first, second = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
        cov = self.covariance
        variance = cov[first, first] + cov[second, second] - 2.0 * cov[first, second]
        return np.sqrt(np.clip(variance, 0.0, None))

    def _used(self, weights: np.ndarray):
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        used = np.flatnonzero((weights != 0).any(axis=0))
        block = self.covariance[np.ix_(used, used)]
        undefined = np.isnan(np.diag(block))
        touches = (weights[:, used][:, undefined] != 0).any(axis=1)
        return weights[:, used], np.where(np.isnan(block), 0.0, block), touches

    def contrast_se(self, weights: np.ndarray) -> np.ndarray:
        """Standard errors of the contrasts ``weights @ vec(matrix)`` (NaN where a contrast gives
        weight to an undefined cell)."""
        w, block, touches = self._used(weights)
        se = np.sqrt(np.clip(np.einsum("ki,ij,kj->k", w, block, w), 0.0, None))
        se[touches] = np.nan
        return se

    def contrast_covariance(self, weights: np.ndarray) -> np.ndarray:
        """Covariance (K, K) of the contrasts ``weights @ vec(matrix)`` (NaN rows and columns for
        contrasts that give weight to an undefined cell)."""
        w, block, touches = self._used(weights)
        out = w @ block @ w.T
        out[touches, :] = np.nan
        out[:, touches] = np.nan
        return out


def _counts_below(
    times: np.ndarray, codes: np.ndarray, n_groups: int, thresholds: np.ndarray, side: str
) -> np.ndarray:
    """(len(thresholds), G): per threshold, the rows of each group with a time before it (``side``
    "left": time < threshold; "right": time <= threshold); ``times`` ascending. One bincount per
    stretch of rows between consecutive thresholds: O(n + T G), no temporary of n numbers."""
    positions = np.searchsorted(times, thresholds, side=side)
    ranks = np.argsort(positions, kind="stable")
    edges = np.concatenate([[0], positions[ranks]])
    stretches = [
        np.bincount(codes[edges[k] : edges[k + 1]], minlength=n_groups)
        for k in range(len(thresholds))
    ]
    out = np.empty((len(thresholds), n_groups), np.int64)
    out[ranks] = np.cumsum(stretches, axis=0) if stretches else out[ranks]
    return out


def _role_counts(prep: PreparedPairs, n_groups: int, tau: float, strict: bool):
    """DeLong's counts: (m_e, m_l, rows with an earlier role, rows with a later role), m_e / m_l of
    shape (G*G,) row-major, in closed form.

    An event i of group a has a positive weight in cell (a, b) as the earlier member when its own
    weight is positive (an event before tau with a positive case weight; the censoring factors are
    finite and positive once the point estimate is) and some member j of b with a positive case
    weight is later: t_j > t_i, or t_j = t_i with j censored (not when ``strict``). A member k of
    group b has one in cell (a, b) as the later member when its case weight is positive and some
    event of a with a positive weight is earlier: t_k > tau_a, or t_k = tau_a with k censored, tau_a
    the first such event's time. ``tau`` inf: no truncation."""
    g, time, codes, event = n_groups, prep.time, prep.codes, prep.event
    weighted = prep.case_weight.shape[0] > 0
    positive = prep.case_weight > 0 if weighted else np.ones(time.shape[0], bool)
    weighty = event & positive & (time < tau)  # events of positive own weight
    censored = positive & ~event
    big, big_censored, first = np.full(g, -np.inf), np.full(g, -np.inf), np.full(g, np.inf)
    np.maximum.at(big, codes[positive] if weighted else codes, time[positive] if weighted else time)
    np.maximum.at(
        big_censored, codes[censored], time[censored]
    )  # latest member of positive weight (censored)
    e_time, e_code = time[weighty], codes[weighty]
    np.minimum.at(first, e_code, e_time)  # tau_a: the first event of positive weight
    m_e = _counts_below(
        e_time, e_code, g, big, "left"
    ).T  # (a, b): events of a before b's latest member
    tied = big_censored == big
    if not strict and tied.any():  # and at its time, when a censored member is the latest
        m_e[:, tied] += (
            _counts_below(e_time, e_code, g, big[tied], "right")
            - _counts_below(e_time, e_code, g, big[tied], "left")
        ).T
    del e_time, e_code
    k_time, k_code = (time[positive], codes[positive]) if weighted else (time, codes)
    n_positive = np.bincount(k_code, minlength=g)
    m_l = n_positive[None, :] - _counts_below(
        k_time, k_code, g, first, "right"
    )  # (a, b): k of b after tau_a
    del k_time, k_code
    if not strict:  # and censored at tau_a
        c_time, c_code = time[censored], codes[censored]
        m_l += _counts_below(c_time, c_code, g, first, "right") - _counts_below(
            c_time, c_code, g, first, "left"
        )
    earlier = (time < big.max()) | (np.isin(time, big[tied]) if not strict else False)
    later = (time > first.min()) | ((~event & np.isin(time, first)) if not strict else False)
    return (
        m_e.ravel().astype(float),
        m_l.ravel().astype(float),
        float(np.count_nonzero(weighty & earlier)),
        float(np.count_nonzero(positive & later)),
    )


def _chunk_stops(time: np.ndarray, rows: int) -> np.ndarray:
    """Ends of chunks of about ``rows`` rows, each extended to the end of its block of equal
    time."""
    n = time.shape[0]
    stops = np.arange(rows, n, rows)
    stops = np.unique(np.searchsorted(time, time[stops - 1], side="right"))
    return np.append(stops[stops < n], n)


def moment_influence(
    sample: SurvivalSample,
    counts: PairCounts,
    *,
    settings: EstimatorSettings,
    curves: CensoringCurves | None,
    censoring_estimated: bool,
    prepared: PreparedPairs,
    n_jobs: int = 1,
):
    """The analytic covariance of the cells and of the pooled C by the moment engine (see the
    module docstring): a :class:`MomentInfluence`, or None when the rows' own counts of DeLong's
    members disagree with the closed form (the caller then runs the row path).

    The same settings as :func:`survfair._core.influence.influence`; ``prepared`` from the point
    estimate (ascending time order; its ``tied_tol`` is the settings')."""
    options = PairOptions.of(settings, curves, n_jobs)
    g, prep = sample.n_groups, prepared
    n = prep.time.shape[0]
    per_row = (
        g + 2
    )  # the later members' trees of G sums, the weights in the rank sets, the codes' order
    chunk = chunk_rows(g)
    require_memory(
        8.0 * n * per_row + 8.0 * min(n, chunk) * (6 * g + 2),
        f"analytic intervals: the later members' sums of {g} groups for {n} rows "
        f"({per_row} numbers a row)",
        ("groups", "bootstrap", "no_intervals"),
    )
    ipcw = settings.method == "ipcw"
    estimated = curves.kind if ipcw and censoring_estimated else None
    curve_of, mult = censoring_terms(g, estimated)
    compact = _compact_rows_hold(curve_of, mult)
    width = 2 * g if compact else g * g
    numerator, denominator = counts.numerator.ravel(), counts.denominator.ravel()
    defined, theta, inv_den, pooled, inv_total, total_den = cell_ratios(numerator, denominator)
    m_e, m_l, overall_e, overall_l = _role_counts(prep, g, options.tau, options.strict)
    weight = prep.case_weight
    n_curves = mult.shape[0]
    entered = np.zeros(max(n_curves, 1))
    if n_curves > 0:
        per_group = np.bincount(
            prep.codes, weights=None if weight.shape[0] == 0 else weight, minlength=g
        )
        np.add.at(entered, curve_of, per_group)
    sweep = _compiled.StreamingSweep(
        floats(theta),
        floats(inv_den),
        float(pooled),
        float(inv_total),
        indices(curve_of, (np.int64,)),
        floats(mult),
        int(width),
        bool(compact),
        KM_RESIDUE,
        weight.shape[0] > 0,
        floats(m_e),
        floats(m_l),
        overall_e,
        overall_l,
        floats(numerator - theta * denominator),
        floats(numerator - pooled * denominator),
        floats(entered),
    )
    passes = ascending_passes(prep, options)
    threads = options.column_threads(g)
    blocks = g if compact else 1
    moments = np.zeros((blocks, width + 1, width + 1))
    with _one_blas_thread(n, threads):
        _accumulate(passes, sweep, prep, moments, chunk, g, width, compact, threads)
    seen_e, seen_l, seen_overall_e, seen_overall_l = sweep.seen()
    if not (
        np.array_equal(seen_e, m_e)
        and np.array_equal(seen_l, m_l)
        and seen_overall_e == overall_e
        and seen_overall_l == overall_l
    ):
        return None
    source = (
        sample,
        counts,
        dict(settings=settings, curves=curves, censoring_estimated=censoring_estimated),
    )
    return _assembled(moments, g, width, compact, defined, total_den, source)


def _accumulate(
    passes,
    sweep,
    prep: PreparedPairs,
    moments: np.ndarray,
    chunk: int,
    g: int,
    width: int,
    compact: bool,
    threads: int,
) -> None:
    """The chunks, up the time order: their sums (ascending passes), rows (the sweep), and each
    group's rows' products added into ``moments`` (no row is kept past its chunk)."""
    event, weight = prep.event, prep.case_weight
    start = 0
    for stop in _chunk_stops(prep.time, chunk):
        rows = stop - start
        # the earlier sums column-major (each column's thread writes its own), the later ones
        # row-major
        sums = [
            np.zeros((g, rows)).T,
            np.zeros((g, rows)).T,
            np.empty((rows, g)),
            np.empty((rows, g)),
        ]
        passes.advance(start, stop, *sums, threads)
        codes = prep.codes[start:stop]
        by_group = np.argsort(codes, kind="stable")
        dest = np.empty(rows, np.int64)
        dest[by_group] = np.arange(rows)
        x, overall = (
            np.zeros((rows, width + 1)),
            np.zeros(rows),
        )  # the rows, the pooled C's beside them
        sweep.rows(
            prep.time[start:stop],
            flags(event[start:stop]),
            indices(codes, CODE_TYPES),
            weight[start:stop] if weight.shape[0] else weight,
            *sums,
            dest,
            x[:, :width],
            overall,
        )
        x[:, width] = overall
        if compact:
            bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=g))])
            for group in range(g):
                part = x[bounds[group] : bounds[group + 1]]
                if part.shape[0]:
                    moments[group] += part.T @ part
        else:
            moments[0] += x.T @ x
        start = stop


def _assembled(
    moments: np.ndarray,
    g: int,
    width: int,
    compact: bool,
    defined: np.ndarray,
    total_den: float,
    source: tuple,
) -> MomentInfluence:
    """The (G*G, G*G) covariance from each group's slot moments (compact) or the one dense block."""
    if compact:
        covariance = np.zeros((g * g, g * g))
        table = _cell_table(g)
        for group in range(g):
            slots = np.flatnonzero(table[group] >= 0)
            cells = table[group][slots]
            covariance[np.ix_(cells, cells)] += moments[group][np.ix_(slots, slots)]
    else:
        covariance = moments[0][:width, :width].copy()
    covariance[~defined, :] = np.nan
    covariance[:, ~defined] = np.nan
    variance = float(moments[:, width, width].sum()) if total_den > 0 else np.nan
    return MomentInfluence(covariance, variance, source)
