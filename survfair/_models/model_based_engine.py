"""Model-based concordance per group pair: the pair sums sum_{i in a, j in b, j != i} h_ij pi_ij.

The model-based xCI of cell (a, b) (Gönen & Heller 2005; van Klaveren et al. 2016, per group pair)
is the concordance the model would have if its own predicted distributions were true:

    xCI*_ab = sum_{i in a, j in b, j != i} h(r_i, r_j) pi_ij / sum_{i in a, j in b, j != i} pi_ij,

with ``h = 1[r_i > r_j] + 1/2 1[|r_i - r_j| <= tied_tol]`` (the ranking kernel of
:func:`survfair.xci`) and ``pi_ij = P_model(T_i < T_j, T_i < tau)``, T_i and T_j independent given
their covariates.

Counts first, ratios last: every engine returns
:class:`~survfair._core.kernel.IndividualContributions` (each individual's share of every cell's
numerator and denominator, as the earlier member and as the later member), from which the cells
(sums over a group) and the influence rows are formed.

Engines:

* :func:`factorised_contributions` -- pi_ij = sum_k f_i(k) q_j(k) (a product over a grid, or one
  term): exact in O(n K G) time with cumulative sums over the risk order (one sort), never a pair.
  Survival curves on a grid give f_i(k) = S_i(t_{k-1}) - S_i(t_k) and q_j(k) = (S_j(t_{k-1}) +
  S_j(t_k)) / 2 (:func:`grid_terms`); calibrated probabilities of a binary outcome give f = p and
  q = 1 - p.
* :func:`ph_separable_contributions` -- the Gönen-Heller closed form of a proportional-hazards
  model, pi_ij = h_i / (h_i + h_j) (1 - S0(tau)^(h_i + h_j)), written as the integral
  x_i int_0^1 e^{-s x_i} e^{-s x_j} ds (x = h H0(tau)) and summed with a quadrature of positive
  weights (:func:`ph_quadrature`): every pi_ij to a proven relative error below 1e-10, in
  O(n K G) time, K nodes chosen from the range of x. :func:`ph_exact_contributions` uses it, or
  the pairwise engine when n^2 pairs cost less.
* :func:`ph_log_contributions` -- the same closed form evaluated exactly over all pairs in blocks
  of rows (O(n^2) time, O(n G + block) memory), from a_i = lp_i + log H0(tau) so that nothing
  overflows; :func:`ph_contributions` takes H0(tau) itself. The slow twin of the separable
  engine, and the faster one for few rows.
* :func:`ph_monte_carlo` -- the same reference by drawing every person's event time from the model
  and counting the pairs with the xCI kernel (``reference_method="monte_carlo"`` only).
"""

from __future__ import annotations

import functools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .._core.exceptions import InvalidParameterError
from .._core.kernel import (
    IndividualContributions,
    PairOptions,
    count_pairs_and_contributions,
    prepare_pairs,
)
from .._core.parallel import cores

__all__ = [
    "factorised_contributions",
    "grid_terms",
    "ph_contributions",
    "ph_log_contributions",
    "ph_monte_carlo",
    "ph_exact_contributions",
    "ph_quadrature",
    "ph_separable_contributions",
    "PHQuadrature",
    "cells_from_contributions",
]

#: The pairwise PH engine took 2.0-3.3 s at 10,000 rows and 2 groups on a loaded shared 2-core
#: machine, growing as n^2 (about 3x that when every pi of a cell underflows, summed in log space);
#: the separable engine takes 0.03-0.07 s there (benchmarks/bench_model_based.py).
#: Memory of one block of the factorised engine (floats).
_BLOCK_FLOATS = 4_000_000
#: Memory of one block of rows x columns of the pairwise PH engine (floats; a block within the
#: cache was faster than larger ones).
_PAIR_BLOCK_FLOATS = 1 << 18
#: A PH cell whose largest pi_ij is below exp(_LOG_FLOOR) is summed in log space, scaled by its
#: largest pi (:func:`ph_log_contributions`); pi above it are normal floats to 16 digits.
_LOG_FLOOR = -600.0


def _check_log_cumhaz(log_cumhaz_tau: float) -> None:
    """A PH reference's log H0(tau) must be a number (-inf: no event before tau; inf: no tau)."""
    if math.isnan(log_cumhaz_tau):
        raise InvalidParameterError(
            "baseline: the cumulative hazard at tau is NaN (a baseline or a risk set that gives "
            "no value there); it must be a number >= 0, or inf for the untruncated reference.",
            parameter="baseline",
        )


def grid_terms(
    survival: np.ndarray, times: np.ndarray, tau: float
) -> tuple[np.ndarray, np.ndarray]:
    """(f, q) of survival curves on a grid, truncated at ``tau``: shapes (n, K).

    ``survival[i, k]`` is S_i(times[k]) on increasing ``times``; S_i(0) = 1 (a first time of 0 with
    S < 1 puts that mass at time 0). The curves are taken as linear between grid times (the event
    time uniform within an interval), so S_i(tau) between two grid times is interpolated linearly
    and two people whose events fall in the same interval are each first with probability 1/2:
    pi_ij = sum_k f_i(k) [S_j(t_k) + f_j(k) / 2] = sum_k f_i(k) q_j(k),
    q_j(k) = (S_j(t_{k-1}) + S_j(t_k)) / 2. ``tau`` must lie in (0, times[-1]] (checked by the
    caller).
    """
    inside = int(np.searchsorted(times, tau, side="left"))  # grid times < tau
    grid_times = times[:inside]
    columns = survival[:, :inside]
    if (
        inside < times.size
    ):  # tau <= times[inside]: interpolate S at tau (exact when tau is a grid time)
        t_low = times[inside - 1] if inside > 0 else 0.0
        s_low = survival[:, inside - 1] if inside > 0 else np.ones(survival.shape[0])
        t_high, s_high = times[inside], survival[:, inside]
        share = 1.0 if t_high == t_low else (tau - t_low) / (t_high - t_low)
        at_tau = s_low + share * (s_high - s_low)
        columns = np.column_stack([columns, at_tau])
        grid_times = np.append(grid_times, tau)
    before = np.column_stack([np.ones(survival.shape[0]), columns[:, :-1]])
    f = before - columns
    q = 0.5 * (before + columns)
    return f, q


def _windows(risk: np.ndarray, tied_tol: float):
    """Risk order and, for every row, the ends of its window of strictly lower risks ([0, lo)) and
    of its tied risks ([lo, hi)) in that order: |r_i - r_j| <= tied_tol is a tie."""
    order = np.argsort(risk, kind="stable")
    ranked = risk[order]
    lo = np.searchsorted(ranked, risk - tied_tol, side="left")
    hi = np.searchsorted(ranked, risk + tied_tol, side="right")
    return order, lo, hi


def factorised_contributions(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    f: np.ndarray,
    q: np.ndarray,
    tied_tol: float,
) -> IndividualContributions:
    """Contributions of pi_ij = sum_k f[i, k] q[j, k] (rows in input order), exact, no pair formed.

    Row i's earlier sums toward group b are
    sum_k f_i(k) [sum_{j in b, r_j < r_i - tol} q_j(k) + 1/2 sum_{j in b, tied, j != i} q_j(k)]
    (numerator) and sum_k f_i(k) sum_{j in b, j != i} q_j(k) (denominator); the later sums are the
    mirror image with the roles of f and q exchanged. Cumulative sums of q (and of f) over the risk
    order, per group, give every window sum by two look-ups: O(n K G) time, O(n x block) memory.
    """
    n, width = f.shape
    order, lo, hi = _windows(risk, tied_tol)
    sorted_codes = codes[order]
    e_num, e_den = np.zeros((n, n_groups)), np.zeros((n, n_groups))
    l_num, l_den = np.zeros((n, n_groups)), np.zeros((n, n_groups))
    block = max(1, min(width, _BLOCK_FLOATS // max(n, 1)))
    for start in range(0, width, block):
        cols = slice(start, start + block)
        f_block, q_block = f[:, cols], q[:, cols]
        f_sorted, q_sorted = f_block[order], q_block[order]
        for g in range(n_groups):
            member = (sorted_codes == g)[:, None]
            own = (codes == g)[:, None]
            # q of group g summed over the risk order: earlier members i (any group) against later j
            # in g
            cum = np.zeros((n + 1, f_block.shape[1]))
            np.cumsum(np.where(member, q_sorted, 0.0), axis=0, out=cum[1:])
            lower, tied = cum[lo], cum[hi] - cum[lo]
            self_q = np.where(own, q_block, 0.0)
            e_num[:, g] += np.einsum("ik,ik->i", f_block, lower + 0.5 * (tied - self_q))
            e_den[:, g] += np.einsum("ik,ik->i", f_block, cum[n][None, :] - self_q)
            # f of group g summed over the risk order: later members j (any group) against earlier i
            # in g
            np.cumsum(np.where(member, f_sorted, 0.0), axis=0, out=cum[1:])
            higher, tied = cum[n][None, :] - cum[hi], cum[hi] - cum[lo]
            self_f = np.where(own, f_block, 0.0)
            l_num[:, g] += np.einsum("ik,ik->i", q_block, higher + 0.5 * (tied - self_f))
            l_den[:, g] += np.einsum("ik,ik->i", q_block, cum[n][None, :] - self_f)
    return IndividualContributions(e_num, e_den, l_num, l_den)


def ph_contributions(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    lp: np.ndarray,
    cumhaz_tau: float,
    tied_tol: float,
) -> IndividualContributions:
    """:func:`ph_log_contributions` of a baseline H0(tau) given as a number, ``cumhaz_tau`` >= 0
    (inf: untruncated, Gönen and Heller's CPE). A baseline that may over- or underflow belongs
    on the log scale: pass log H0(tau) to :func:`ph_log_contributions`."""
    if math.isnan(cumhaz_tau) or cumhaz_tau < 0:
        raise InvalidParameterError(
            f"baseline: the cumulative hazard at tau must be >= 0 (or inf), got {cumhaz_tau!r}.",
            parameter="baseline",
        )
    log_cumhaz = math.log(cumhaz_tau) if cumhaz_tau > 0 else -math.inf
    return ph_log_contributions(risk, codes, n_groups, lp, log_cumhaz, tied_tol)


def ph_log_contributions(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    lp: np.ndarray,
    log_cumhaz_tau: float,
    tied_tol: float,
) -> IndividualContributions:
    """Contributions of the Gönen-Heller pi_ij = h_i / (h_i + h_j) (1 - S0(tau)^(h_i + h_j)),
    h = exp(lp), exact over all ordered pairs j != i. ``log_cumhaz_tau`` = log H0(tau) (-inf: no
    mass before tau, every pi is 0; inf: untruncated, pi_ij = h_i / (h_i + h_j), Gönen and
    Heller's CPE). O(n^2) time, O(n G + block) memory, rows in input order.

    Computed from a_i = lp_i + log H0(tau) alone, so that a shift of lp (with the baseline shifted
    back) changes nothing and no value overflows: pi_ij = expit(a_i - a_j) (1 - exp(-(e^a_i +
    e^a_j))) (:func:`_pair_pi`). A cell is a ratio of sums of pi over its pairs; a cell whose
    largest pi is below exp(:data:`_LOG_FLOOR`) (every pi would underflow or lose its digits) has
    its sums taken of pi_ij exp(-m_ab), m_ab = its largest log pi, found exactly in a first pass
    (:func:`_cell_log_max`). Every sum of that cell carries the factor: row i's earlier sums toward
    b that of cell (group(i), b), its later sums toward b that of cell (b, group(i)); the cell's
    ratio and its influence rows (divided by the cell's denominator) do not see it. Other cells
    hold the pair sums themselves.

    The pairs are visited in blocks of rows against one group's columns, both in (group, risk)
    order: h_ij is then 1 up to a window of tied columns and 0 after it, so row i's earlier sums
    are prefix sums along the row, and column j's later sums (sum over earlier i of h_ij pi_ij)
    suffix sums down the column; no sum subtracts, so each is exact to rounding however small.
    """
    _check_log_cumhaz(log_cumhaz_tau)
    n = risk.shape[0]
    parts = [np.zeros((n, n_groups)) for _ in range(4)]
    if n == 0 or log_cumhaz_tau == -math.inf:  # H0(tau) = 0: no event before tau, every pi is 0
        return IndividualContributions(*parts)
    truncated = log_cumhaz_tau < math.inf
    order, _, bounds, lo, hi = _group_risk_layout(risk, codes, n_groups, tied_tol)
    lo, hi = lo.T, hi.T  # (n, G): row i's window in group g's segment at [i, g]
    a = np.asarray(lp, dtype=float)[order] + (log_cumhaz_tau if truncated else 0.0)
    with np.errstate(over="ignore"):  # e^a = inf: 1 - exp(-inf) = 1, exact
        hazard = np.exp(a) if truncated else None
    offset = _cell_offsets(a, bounds, truncated)
    e_num, e_den, l_num, l_den = parts
    block = max(1, _PAIR_BLOCK_FLOATS // max(n, 1))
    for ga in range(n_groups):
        r_start, r_stop = bounds[ga], bounds[ga + 1]
        for start in range(r_start, r_stop, block):
            stop = min(start + block, r_stop)
            rows, b = slice(start, stop), stop - start
            local = np.arange(b)
            for gb in range(n_groups):
                c_start, c_stop = bounds[gb], bounds[gb + 1]
                m = c_stop - c_start
                if m == 0:
                    continue
                cols = slice(c_start, c_stop)
                pi, sign = _pair_pi(a, hazard, rows, cols, offset[ga, gb])
                if ga == gb:
                    pi[local, start - r_start + local] = 0.0  # j != i
                # earlier sums of the block's rows: prefix sums along each row
                prefix = np.zeros((b, m + 1))
                np.cumsum(pi, axis=1, out=prefix[:, 1:])
                e_num[rows, gb] = (
                    0.5 * sign * (prefix[local, lo[rows, gb]] + prefix[local, hi[rows, gb]])
                )
                e_den[rows, gb] = sign * prefix[:, m]
                # later sums of the columns: suffix sums down each column (rows within the block)
                suffix = np.zeros((b + 1, m))  # suffix[q] = sum of the block's last q rows
                np.cumsum(pi[::-1], axis=0, out=suffix[1:])
                first_lo = np.clip(lo[cols, ga] - (start - r_start), 0, b)
                first_hi = np.clip(hi[cols, ga] - (start - r_start), 0, b)
                column = np.arange(m)
                l_num[cols, ga] += (
                    0.5 * sign * (suffix[b - first_lo, column] + suffix[b - first_hi, column])
                )
                l_den[cols, ga] += sign * suffix[b]
    out = []
    for sorted_part in parts:
        part = np.empty_like(sorted_part)
        part[order] = sorted_part
        out.append(part)
    return IndividualContributions(*out)


def _group_risk_layout(risk: np.ndarray, codes: np.ndarray, n_groups: int, tied_tol: float):
    """The rows by (group, risk), as both PH engines visit them: (order, the sorted codes, the
    groups' segment bounds (G + 1,), lo, hi), lo / hi of shape (G, n) the window of every sorted
    row within every group's segment: columns [0, lo) of lower risk, [lo, hi) tied, [hi, m)
    higher (indices local to the segment)."""
    order = np.lexsort((risk, codes))  # by group, then by risk
    ranked, sorted_codes = risk[order], codes[order]
    bounds = np.searchsorted(sorted_codes, np.arange(n_groups + 1), side="left")
    n = risk.shape[0]
    lo, hi = np.zeros((n_groups, n), dtype=np.intp), np.zeros((n_groups, n), dtype=np.intp)
    for g in range(n_groups):
        segment = ranked[bounds[g] : bounds[g + 1]]
        lo[g] = np.searchsorted(segment, ranked - tied_tol, side="left")
        hi[g] = np.searchsorted(segment, ranked + tied_tol, side="right")
    return order, sorted_codes, bounds, lo, hi


def _cell_offsets(a: np.ndarray, bounds: np.ndarray, truncated: bool) -> np.ndarray:
    """(G, G): a cell's largest log pi where it is below :data:`_LOG_FLOOR` (its sums are taken
    scaled by exp(-offset)), else 0."""
    log_max = _cell_log_max(a, bounds, truncated)
    return np.where(np.isfinite(log_max) & (log_max < _LOG_FLOOR), log_max, 0.0)


def _pair_pi(a, hazard, rows: slice, cols: slice, offset: float):
    """(sign * pi_ij exp(-offset) of rows x cols, sign): pi from a = lp + log H0(tau) (``hazard``
    = e^a, None when untruncated).

    offset 0: in linear form, expit(a_i - a_j) = 1 / (1 + exp(a_j - a_i)) (the difference clipped
    to +-700: a pi below e^-700 cannot move a cell whose largest pi is above e^_LOG_FLOOR) times
    expm1(-(e^a_i + e^a_j)) = -(1 - S0(tau)^(h_i + h_j)), sign -1 (sums are negated once, not
    every pair). Otherwise exp(log pi - offset) from :func:`_log_pi`, sign 1.
    """
    if offset != 0.0:
        log_pi = _log_pi(a[rows, None], a[None, cols], hazard is not None)
        log_pi -= offset
        return np.exp(log_pi, out=log_pi), 1.0
    pi = np.subtract.outer(a[cols], a[rows]).T  # a_j - a_i, rows x cols
    np.clip(pi, -700.0, 700.0, out=pi)
    np.exp(pi, out=pi)
    pi += 1.0
    np.reciprocal(pi, out=pi)  # expit(a_i - a_j)
    if hazard is None:
        return pi, 1.0
    with np.errstate(over="ignore"):  # e^a_i + e^a_j = inf: 1 - exp(-inf) = 1, exact
        mass = np.add.outer(hazard[rows], hazard[cols])
    np.negative(mass, out=mass)
    np.expm1(mass, out=mass)  # -(1 - exp(-(e^a_i + e^a_j))), in [-1, 0]
    pi *= mass
    return pi, -1.0


def _log_pi(a_i, a_j, truncated: bool) -> np.ndarray:
    """log pi_ij (broadcast) = log expit(a_i - a_j) + log(1 - exp(-(e^a_i + e^a_j))), finite for
    every finite a: with d = a_i - a_j and L = log(1 + e^-|d|), log expit(d) = min(d, 0) - L and
    log(e^a_i + e^a_j) = max(a_i, a_j) + L."""
    d = a_i - a_j
    soft = np.log1p(np.exp(-np.abs(d)))
    out = np.minimum(d, 0.0) - soft
    if truncated:
        out += _log_mass(np.maximum(a_i, a_j) + soft)
    return out


def _log_mass(s: np.ndarray) -> np.ndarray:
    """log(1 - exp(-e^s)) for any real s: log(-expm1(-e^s)), and s - e^s / 2 below s = -30 (error
    below e^(2s) / 24, where e^s may underflow)."""
    x = np.exp(np.minimum(s, 700.0))
    with np.errstate(divide="ignore"):  # x = 0 (s far below -30): that branch is not taken
        return np.where(s < -30.0, s - 0.5 * x, np.log(-np.expm1(-x)))


def _cell_log_max(a: np.ndarray, bounds: np.ndarray, truncated: bool) -> np.ndarray:
    """(G, G) largest log pi_ij over i in a, j in b, j != i (-inf for a cell without a pair), for
    a sorted by group (segments ``bounds``). log pi increases with a_i, so the largest is reached at
    the largest a_i of the row group (the second largest for j = that person): O(n G) time."""
    n_groups = bounds.size - 1
    out = np.full((n_groups, n_groups), -np.inf)
    for ga in range(n_groups):
        own = a[bounds[ga] : bounds[ga + 1]]
        if own.size == 0:
            continue
        top = int(np.argmax(own))
        for gb in range(n_groups):
            other = a[bounds[gb] : bounds[gb + 1]]
            if ga == gb:
                other = np.delete(other, top)
                if other.size == 0:
                    continue
                second = float(np.max(other))  # the best earlier member against the top itself
                out[ga, gb] = float(_log_pi(np.float64(second), own[top], truncated))
            if other.size:
                best = float(np.max(_log_pi(own[top], other, truncated)))
                out[ga, gb] = max(out[ga, gb], best)
    return out


# -- the exact separable PH engine ----------------------------------------------------------------
#
# pi_ij = x_i J(x_i + x_j) with x = exp(a) = exp(lp + log H0(tau)) and J(c) = int_0^1 e^{-ct} dt
# = (1 - e^{-c}) / c (untruncated: J(c) = int_0^inf e^{-ct} dt = 1 / c, x = exp(lp)). A rule
# sum_m W_m e^{-c t_m} with positive weights and a relative error <= eps for every c in the range
# present makes pi separable, pi_ij ~ sum_m [W_m x_i e^{-t_m x_i}] [e^{-t_m x_j}], with the same
# relative error for every pair; the pair sums then follow from prefix sums over the risk order.

#: Steps of the trapezoidal rules: t = expit(v) on [0, 1] (truncated) and t = e^v on (0, inf)
#: (untruncated); their discretisation errors are below 8.4e-12 and 4.3e-12 relative
#: (:func:`_discretisation_bound`).
_STEP_TRUNCATED, _STEP_UNTRUNCATED = 0.30, 0.32
#: Largest Gauss rule that replaces a tail of the trapezoidal sum.
_MAX_TAIL_NODES = 16
#: Bound allowed for each truncated tail of the trapezoidal sum (relative, per pair).
_TAIL_TARGET = 1e-11
#: A tail measure keeps the nodes within this distance in v of its cut (the rest, below e^-92 of
#: the nearest, is dropped and bounded by its mass).
_TAIL_DEPTH = 92.0
#: Memory of one block of nodes x rows of the separable engine (floats); blocks run on the cores
#: available (as xci's kernels do) above _THREADED_FLOATS rows x nodes.
_NODE_BLOCK_FLOATS = 6_000_000
_THREADED_FLOATS = 2_000_000
#: Costs (seconds) that choose the engine (:func:`ph_exact_contributions`), measured on the shared
#: 2-core machine: one pair of the pairwise engine, one row x node x (G + 2) of the separable one,
#: and the design of its nodes.
_PAIR_COST, _NODE_COST, _DESIGN_COST = 3e-8, 3.5e-8, 0.03


@dataclass(frozen=True)
class PHQuadrature:
    """Nodes of pi_ij ~ x_i sum_m W_m exp(-t_m (x_i + x_j)), as logs: ``log_t`` = log t_m,
    ``log_omega`` = log(W_m / t_m) (shape (K,)). ``bound``: the proven relative error of every
    pair's pi for x in the range the rule was made for (``parts``: discretisation, left tail,
    right tail)."""

    log_t: np.ndarray
    log_omega: np.ndarray
    bound: float
    parts: tuple
    truncated: bool

    @property
    def size(self) -> int:
        return int(self.log_t.size)


@functools.lru_cache(maxsize=None)
def _discretisation_bound(step: float, truncated: bool) -> float:
    """Trefethen and Weideman's (2014, Thm 5.1) bound 2 M / (e^{2 pi a / h} - 1) of the trapezoidal
    rule on the line, with M <= J(c) / cos(a)^2 (truncated) or J(c) / cos(a) (untruncated) in the
    strip |Im v| < a < pi / 2, minimised over a: relative to J(c), for every c >= 0."""
    a = np.linspace(0.05, math.pi / 2 - 1e-4, 20_000)
    power = 2.0 if truncated else 1.0
    return float(np.min(2.0 / (np.cos(a) ** power * np.expm1(2.0 * math.pi * a / step))))


def _log_j(log_c, truncated: bool):
    """log J(c) for c = exp(log_c) (broadcast): log((1 - e^{-c}) / c), or -log c untruncated."""
    log_c = np.asarray(log_c, dtype=float)
    if not truncated:
        return -log_c
    c = np.exp(np.minimum(log_c, 700.0))
    # log((1 - e^{-c}) / c) = -c / 2 + c^2 / 24 + O(c^4): -c / 2 within c^2 / 24 below c = e^-30
    return np.where(log_c < -30.0, -0.5 * c, _log_mass(log_c) - log_c)


def _lanczos(atoms: np.ndarray, weights: np.ndarray, steps: int):
    """Jacobi matrix of the discrete measure sum w_k delta_{atoms_k} (Lanczos with full
    reorthogonalisation): (alpha, b, log ||pi_p||^2 for p = 0..steps), b the off-diagonal."""
    mass = float(weights.sum())
    basis = np.zeros((steps + 1, atoms.size))
    basis[0] = np.sqrt(weights / mass)
    alpha, b = np.zeros(steps), np.zeros(steps)
    log_norm = np.full(steps + 1, -np.inf)
    log_norm[0] = math.log(mass)
    for k in range(min(steps, atoms.size)):
        v = atoms * basis[k]
        alpha[k] = basis[k] @ v
        for _ in range(2):
            v -= basis[: k + 1].T @ (basis[: k + 1] @ v)
        b[k] = math.sqrt(max(float(v @ v), 0.0))
        if b[k] == 0.0:
            break
        log_norm[k + 1] = log_norm[k] + 2.0 * math.log(b[k])
        basis[k + 1] = v / b[k]
    return alpha, b, log_norm, mass


def _gauss(alpha, b, mass, p):
    """Nodes and (positive) weights of the p-point Gauss rule of a Jacobi matrix (Golub-Welsch)."""
    jacobi = np.diag(alpha[:p]) + np.diag(b[: p - 1], 1) + np.diag(b[: p - 1], -1)
    nodes, vectors = np.linalg.eigh(jacobi)
    return nodes, mass * vectors[0] ** 2


def _tail_log_bounds(log_gamma, log_c_lo, log_c_hi, s_inf, truncated) -> np.ndarray:
    """For p = 0, 1, ... (``log_gamma[p]`` = log ||pi_p||^2 of a tail measure): log of the largest
    c^{2p} e^{-c s_inf} ||pi_p||^2 / ((2p)! J(c)) over c in [c_lo, c_hi], the Gauss remainder
    f^{(2p)}(xi) ||pi_p||^2 / (2p)! of f(t) = e^{-ct} on a measure supported in [s_inf, ...]
    relative to J(c). Its log is concave in log c: the derivative in c, (2p + 1) / c - s_inf -
    1 / (e^c - 1) (untruncated: without the last term), decreases in c (e^c / (e^c - 1)^2 <=
    1 / c^2), so the largest value is at the root clipped to the interval (60 bisections)."""
    p = np.arange(np.size(log_gamma), dtype=float)

    def slope(lc):
        c = np.maximum(np.exp(np.minimum(lc, 700.0)), 1e-300)
        if not truncated:
            return (2 * p + 1) / c - s_inf
        # 1 / c - 1 / (e^c - 1) = 1/2 - c / 12 + ..., in (0, 1/2]
        with np.errstate(over="ignore"):
            exact = 1.0 / c - 1.0 / np.expm1(np.minimum(c, 700.0))
            rest = np.where(c < 1e-4, 0.5 - c / 12.0, exact)
        return 2 * p / c + rest - s_inf

    def value(lc):
        c = np.exp(np.minimum(lc, 700.0))  # capped: -c s_inf only larger, the bound conservative
        lgam = np.array([math.lgamma(2 * k + 1) for k in range(p.size)])
        return 2 * p * lc - c * s_inf + log_gamma - lgam - _log_j(lc, truncated)

    lo = np.full(p.size, float(log_c_lo))
    hi = np.full(p.size, float(log_c_hi))
    rising_at_hi = slope(hi) >= 0
    falling_at_lo = slope(lo) <= 0
    out = np.where(rising_at_hi, value(hi), value(lo))
    inside = ~rising_at_hi & ~falling_at_lo
    if inside.any():
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            up = slope(mid) > 0
            lo = np.where(up, mid, lo)
            hi = np.where(up, hi, mid)
        out = np.where(inside, np.maximum(value(lo), value(hi)), out)
    return np.where(np.isfinite(log_gamma), out, np.inf)


def _trapezoid_nodes(m: np.ndarray, step: float, truncated: bool):
    """(log t, log W, log omega) of trapezoid nodes v = m step."""
    v = m * step
    if truncated:  # t = expit(v), W = step expit(v) expit(-v), omega = W / t = step expit(-v)
        log_t = -np.logaddexp(0.0, -v)
        log_omega = math.log(step) - np.logaddexp(0.0, v)
        return log_t, log_t + log_omega, log_omega
    log_t = v.astype(float)
    return log_t, log_t + math.log(step), np.full(v.shape, math.log(step))


def _left_tail(m_cut, step, truncated):
    """The discrete measure of the trapezoid nodes m < m_cut, scaled by t_L = t(m_cut - 1): (atoms
    in (0, 1], weights, log t_L, log bound of the mass left out below _TAIL_DEPTH)."""
    count = int(math.ceil(_TAIL_DEPTH / step)) + 1
    m = m_cut - 1 - np.arange(count)
    log_t, log_w, _ = _trapezoid_nodes(m, step, truncated)
    log_scale = float(log_t[0])
    atoms = np.exp(log_t - log_scale)
    weights = np.exp(log_w - log_scale)
    # the nodes below the last, m = m_last - k (k >= 1): W_m <= step t_m <= step e^{v_m}
    v_last = float(m[-1]) * step
    log_rest = math.log(step) + v_last - step - math.log(-math.expm1(-step))
    return atoms, weights, log_scale, log_rest


def _right_tail(m_cut, step):
    """The truncated rule's nodes m > m_cut as a measure in r = 1 - t = expit(-v): (atoms r,
    weights, smallest t, log bound of the mass left out beyond v = _TAIL_DEPTH), or None."""
    top = int(math.ceil(_TAIL_DEPTH / step))
    if m_cut + 1 > top:
        return None
    m = np.arange(m_cut + 1, top + 1)
    v = m * step
    log_r = -np.logaddexp(0.0, v)
    log_t = -np.logaddexp(0.0, -v)
    atoms = np.exp(log_r)
    weights = step * np.exp(log_r + log_t)
    log_rest = math.log(step) - top * step - step - math.log(-math.expm1(-step))
    return atoms, weights, float(np.exp(log_t[0])), log_rest


def _quadrature_for(a_min: float, a_max: float, truncated: bool) -> PHQuadrature:
    """:func:`ph_quadrature` of the range widened outward to multiples of 1/8 (a rule for a wider
    range holds for the narrower), cached: bootstrap replicates and repeated calls reuse it."""
    return _cached_quadrature(
        math.floor(a_min * 8.0) / 8.0, math.ceil(a_max * 8.0) / 8.0, truncated
    )


@functools.lru_cache(maxsize=64)
def _cached_quadrature(a_min: float, a_max: float, truncated: bool) -> PHQuadrature:
    return ph_quadrature(a_min, a_max, truncated)


def _best_cut(evaluate, start: int, direction: int, log_target: float):
    """The cut m and Gauss size p with the fewest nodes whose tail bound is within target.

    ``evaluate(m)`` gives (log bound per p = 0..P, data); moving m in ``direction`` (-1: the left
    cut, +1: the right cut) shrinks the tail, so every bound decreases and "some p is within
    target" holds from the first such m on: found by doubling then bisection, then the next
    _MAX_TAIL_NODES + 1 cuts are tried (further ones cost more middle nodes than any rule saves).
    Returns (m, p, bound, data) minimising p + direction * m."""
    cache = {}

    def ok(m):
        if m not in cache:
            cache[m] = evaluate(m)
        return bool(np.any(cache[m][0] <= log_target))

    if ok(start):
        first = start
    else:
        k = 1
        while not ok(start + direction * k):
            k *= 2
        lo, hi = k // 2, k  # not ok at lo (or lo = 0), ok at hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(start + direction * mid):
                hi = mid
            else:
                lo = mid
        first = start + direction * hi
    best = None
    for k in range(_MAX_TAIL_NODES + 2):
        m = first + direction * k
        ok(m)
        bounds, data = cache[m]
        for p in np.flatnonzero(bounds <= log_target):
            cost = p + direction * m
            if best is None or cost < best[0]:
                best = (cost, m, int(p), float(np.exp(bounds[p])), data)
    return best[1:]


def ph_quadrature(a_min: float, a_max: float, truncated: bool) -> PHQuadrature:
    """Quadrature nodes that make the PH pair probability separable, with a proven error bound.

    For every pair with x_i, x_j in [exp(a_min), exp(a_max)] (x = exp(lp) H0(tau), or exp(lp)
    untruncated), c = x_i + x_j lies in [c_lo, c_hi] = [2 e^a_min, 2 e^a_max] and

    ``pi_ij = x_i J(c)``, ``J(c) = int_0^1 e^{-ct} dt = (1 - e^{-c}) / c``

    (untruncated: ``int_0^inf e^{-ct} dt = 1 / c``), Gönen and Heller's (2005) closed form. The rule
    ``J(c) ~ sum_m W_m e^{-c t_m}`` (W_m > 0) gives
    ``pi_ij ~ sum_m [W_m x_i e^{-t_m x_i}] [e^{-t_m x_j}]``.

    Parameters
    ----------
    a_min, a_max : float
        Smallest and largest log x of the rows (a = lp + log H0(tau); lp untruncated).
    truncated : bool
        False for tau = inf (Gönen and Heller's untruncated CPE).

    Returns
    -------
    PHQuadrature
        ``log_t``, ``log_omega`` (log of t_m and of W_m / t_m), and ``bound``: for every c in
        [c_lo, c_hi], |sum_m W_m e^{-c t_m} - J(c)| <= bound J(c) (below 3e-11).

    Notes
    -----
    Proof of the bound, in three parts whose sum is ``bound``:

    1. Discretisation. With t = expit(v) the integral is int_R w(v) dv, w(v) = expit(v) expit(-v)
       exp(-c expit(v)), analytic in the strip |Im v| < pi/2. For |Im v| <= a < pi/2,
       Re expit(v) >= cos(a) expit(Re v) and |expit(v) expit(-v)| <= expit(x) expit(-x) / cos(a)
       (x = Re v), so int |w(x + iy)| dx <= J(c cos a) / cos a <= J(c) / cos(a)^2, and the
       trapezoidal rule of step h on the whole line errs by at most
       2 J(c) / (cos(a)^2 (e^{2 pi a / h} - 1)) (Trefethen and Weideman 2014, Theorem 5.1):
       8.4e-12 J(c) at h = 0.3, for every c >= 0. Untruncated, t = e^v, M <= 1 / (c cos a):
       4.3e-12 at h = 0.32.
    2. Tails. The nodes below a cut m_L form a positive discrete measure mu on (0, t_L]; its
       p-point Gauss rule (positive weights, Golub and Welsch 1969; by Lanczos with full
       reorthogonalisation) replaces them with an error f^{(2p)}(xi) ||pi_p||^2_mu / (2p)!,
       f = e^{-ct}: at most c^{2p} ||pi_p||^2 / (2p)!, largest at c_hi relative to J(c). The
       nodes above a cut m_R (support in [t_R, 1)) likewise, with c^{2p} e^{-c t_R}; relative to
       J(c) its log is concave in c, maximised at a root found by bisection (p = 0: the nodes are
       dropped, the bound is their sum; untruncated, the nodes beyond the cut are dropped, their
       terms h y e^{-y} decaying geometrically, y = c t_m). Atoms beyond 92 / h steps are dropped,
       bounded by their mass. Cuts and p are chosen for the fewest nodes with each tail below
       1e-11. (The norms ||pi_p||^2 and the root are computed in floating point.)
    3. All terms are positive, so the relative bound of every pi_ij carries to every sum of them
       (every cell, every individual contribution), up to rounding.

    References
    ----------
    Gönen, M. and Heller, G. (2005). Concordance probability and discriminatory power in
    proportional hazards regression. Biometrika 92(4), 965-970.

    Trefethen, L. N. and Weideman, J. A. C. (2014). The exponentially convergent trapezoidal rule.
    SIAM Review 56(3), 385-458.

    Golub, G. H. and Welsch, J. H. (1969). Calculation of Gauss quadrature rules. Mathematics of
    Computation 23, 221-230.
    """
    step = _STEP_TRUNCATED if truncated else _STEP_UNTRUNCATED
    log_c_lo, log_c_hi = a_min + math.log(2.0), a_max + math.log(2.0)
    log_target = math.log(_TAIL_TARGET)
    top = int(math.ceil(_TAIL_DEPTH / step))

    def left(m):
        atoms, weights, log_scale, log_rest = _left_tail(m, step, truncated)
        alpha, b, log_norm, mass = _lanczos(atoms, weights, _MAX_TAIL_NODES)
        p = np.arange(log_norm.size)
        bounds = _tail_log_bounds(
            log_norm + (2 * p + 1) * log_scale, log_c_lo, log_c_hi, 0.0, truncated
        )
        rest = log_rest - float(_log_j(log_c_hi, truncated))  # e^{-ct} <= 1 on the nodes left out
        return np.logaddexp(bounds, rest), (alpha, b, mass, log_scale)

    start = int(math.ceil((math.log(64.0) - log_c_hi) / step))
    m_left, p_left, err_left, (alpha_l, b_l, mass_l, log_scale_l) = _best_cut(
        left, min(start, top) if truncated else start, -1, log_target
    )

    if truncated:

        def right(m):
            tail = _right_tail(max(m, m_left - 1), step)
            if tail is None:
                return np.array([-np.inf]), None
            atoms, weights, t_min, log_rest = tail
            steps = _MAX_TAIL_NODES if atoms.size <= 4000 else 0
            alpha, b, log_norm, mass = _lanczos(atoms, weights, steps)
            bounds = _tail_log_bounds(log_norm, log_c_lo, log_c_hi, t_min, True)
            return np.logaddexp(bounds, log_rest + math.log(2.0)), (alpha, b, mass)

        start = max(m_left - 1, int(math.floor(min(-log_c_lo, 0.0) / step)) - 3 * _MAX_TAIL_NODES)
        m_right, p_right, err_right, jacobi = _best_cut(right, min(start, top), 1, log_target)
        m_right = max(m_right, m_left - 1)
        right_rule = _gauss(*jacobi, p_right) if p_right else None
    else:

        def right(m):
            y = math.exp(min(log_c_lo + (m + 1) * step, 700.0))  # c_lo t_{m + 1}
            ratio = math.exp(step - y * math.expm1(step)) if y < 700 else 0.0
            if y < 1.0 or ratio >= 1.0:
                return np.array([np.inf]), None
            return np.array([math.log(step) + math.log(y) - y - math.log1p(-ratio)]), None

        m_right, _, err_right, _ = _best_cut(
            right, int(math.floor(-log_c_lo / step)) - 1, 1, log_target
        )
        m_right, p_right, right_rule = max(m_right, m_left - 1), 0, None

    middle = np.arange(m_left, m_right + 1)
    log_t, _, log_omega = _trapezoid_nodes(middle, step, truncated)
    parts_t, parts_o = [log_t], [log_omega]
    if p_left:
        s, w = _gauss(alpha_l, b_l, mass_l, p_left)
        # t = t_L s, W = t_L w, omega = W / t = w / s
        parts_t.append(np.log(s) + log_scale_l)
        parts_o.append(np.log(w) - np.log(s))
    if right_rule is not None:
        r, w = right_rule
        parts_t.append(np.log1p(-r))
        parts_o.append(np.log(w) - np.log1p(-r))
    disc = _discretisation_bound(step, truncated)
    return PHQuadrature(
        log_t=np.concatenate(parts_t),
        log_omega=np.concatenate(parts_o),
        bound=disc + err_left + err_right,
        parts=(disc, err_left, err_right),
        truncated=truncated,
    )


def _range_sums(values: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """sum of values[:, start_r : start_r + length_r] for every r (columns), shape (k, r), by the
    binary digits of the length over sums of 2^l consecutive columns (built by doubling): only
    additions of the (non-negative) terms, no difference of prefix sums."""
    out = np.zeros((values.shape[0], start.size))
    block = values
    cursor = start.copy()
    level = 0
    while (length >> level).any():
        take = ((length >> level) & 1).astype(bool)
        if take.any():
            out[:, take] += block[:, cursor[take]]
            cursor[take] += 1 << level
        width = 1 << level
        if block.shape[1] <= width:
            break
        block = block[:, :-width] + block[:, width:]  # sums of 2^(level + 1) columns
        level += 1
    return out


def ph_separable_contributions(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    lp: np.ndarray,
    log_cumhaz_tau: float,
    tied_tol: float,
    *,
    quadrature: PHQuadrature | None = None,
) -> IndividualContributions:
    """The PH reference's individual contributions in O(n K G) time, no pair formed.

    The same sums as :func:`ph_log_contributions` (the same per-cell scaling of cells whose
    largest pi is below e^-600), from the separable pi_ij ~ sum_m f_i(m) q_j(m),
    f_i(m) = W_m x_i e^{-t_m x_i}, q_j(m) = e^{-t_m x_j} (:func:`ph_quadrature`).

    Parameters
    ----------
    risk, codes, n_groups, lp, log_cumhaz_tau, tied_tol
        As :func:`ph_log_contributions` (``log_cumhaz_tau`` = log H0(tau); inf: untruncated).
    quadrature : PHQuadrature, optional
        Nodes for the range of lp + log H0(tau) (default: made for it).

    Returns
    -------
    IndividualContributions
        Arrays (n, G) in input order; each within ``quadrature.bound`` (relative) of the exact
        sums, up to rounding.

    Notes
    -----
    Rows sorted by (group, risk); for each block of nodes, prefix and suffix sums of f and q
    over every group's rows give row i's earlier sums toward b as (P_b[lo] + P_b[hi]) / 2 (P the
    prefix sums of q over b, [lo, hi) i's window of tied risks) and the later sums likewise. In
    the row's own group, j != i is kept out by splitting the sums at i's position (the tied rows
    after it by sums of 2^l consecutive terms), never by a difference: a pair's pi can be far below
    that of a person with himself, which a subtraction would cancel. Rounding: sums of positive
    terms (relative error below n u in the worst case, u = 1.1e-16).
    """
    _check_log_cumhaz(log_cumhaz_tau)
    n = risk.shape[0]
    parts = [np.zeros((n, n_groups)) for _ in range(4)]
    if n == 0 or log_cumhaz_tau == -math.inf:
        return IndividualContributions(*parts)
    truncated = log_cumhaz_tau < math.inf
    order, sorted_codes, bounds, lo, hi = _group_risk_layout(risk, codes, n_groups, tied_tol)
    lp_sorted = np.asarray(lp, dtype=float)[order]
    if truncated:
        a = lp_sorted + log_cumhaz_tau
    else:  # pi depends on differences of lp alone: centre them
        a = lp_sorted - 0.5 * (float(lp_sorted.max()) + float(lp_sorted.min()))
    if quadrature is None:
        quadrature = _quadrature_for(float(a.min()), float(a.max()), truncated)
    offset = _cell_offsets(a, bounds, truncated)
    own = np.arange(n) - bounds[sorted_codes]  # each row's position in its own group's segment
    windows = (bounds, lo, hi, own, offset)
    size = quadrature.size
    width = _node_width(size, n)
    if n * size >= _THREADED_FLOATS:  # at least two blocks, whatever the cores: the same sums
        width = min(width, -(-size // 2))
    blocks = [
        (quadrature.log_t[i : i + width], quadrature.log_omega[i : i + width])
        for i in range(0, size, width)
    ]
    threads = min(len(blocks), cores(None))
    if threads > 1:  # numpy releases the GIL in these passes; blocks summed in their order
        with ThreadPoolExecutor(threads) as pool:
            results = pool.map(lambda block: _node_block(a, *block, windows), blocks)
            totals = _sum_in_order(results)
    else:
        totals = _sum_in_order(_node_block(a, *block, windows) for block in blocks)
    out = []
    for sorted_part in totals:
        part = np.empty((n, n_groups))
        part[order] = sorted_part.T
        out.append(part)
    return IndividualContributions(*out)


def _node_width(size: int, n: int) -> int:
    """Nodes per block: a block's (k, n) arrays within _NODE_BLOCK_FLOATS."""
    return max(1, min(size, _NODE_BLOCK_FLOATS // max(n, 1)))


def _sum_in_order(results):
    totals = None
    for block in results:
        if totals is None:
            totals = list(block)
        else:
            for total, part in zip(totals, block):
                total += part
    return totals


def _node_block(a, log_t, log_omega, windows):
    """The four (G, n) sums of one block of nodes (rows in (group, risk) order)."""
    bounds, lo, hi, own, offset = windows
    n_groups = bounds.size - 1
    log_z = np.add.outer(log_t, a)  # (k, n): z = t x
    with np.errstate(over="ignore", under="ignore"):
        f = np.minimum(log_z, 700.0)
        np.exp(f, out=f)  # z
        q = np.negative(f)
        np.exp(q, out=q)  # e^{-t x_j}
        f *= q
        f *= np.exp(log_omega)[:, None]  # W x_i e^{-t x_i} = omega z e^{-z}
    if not offset.any():
        del log_z
    sums = [_group_sums(f, q, bounds, g) for g in range(n_groups)]
    # every row against every other group at once; then the own group's rows and the scaled
    # cells are written over
    block = _cross_sums(f, q, sums, lo, hi, bounds)
    for ga in range(n_groups):
        for gb in range(n_groups):
            if offset[ga, gb] != 0.0:  # scaled by e^{-offset}, split node by node
                fa, qb = _scaled_factors(log_z, log_omega, bounds, ga, gb, offset[ga, gb])
                _pair_block(fa, qb, None, bounds, ga, gb, lo, hi, own, *block)
            elif ga == gb:
                fa, qb = f[:, bounds[ga] : bounds[ga + 1]], q[:, bounds[gb] : bounds[gb + 1]]
                _pair_block(fa, qb, (sums[ga], sums[gb]), bounds, ga, gb, lo, hi, own, *block)
    return block


def _cross_sums(f, q, sums, lo, hi, bounds):
    """(earlier num, earlier den, later num, later den), each (G, n): every row's sums toward every
    other group (the rows before and after that group's segment, two slices each); the own
    group's entries are left for :func:`_pair_block`."""
    n_groups, n = lo.shape
    e_num, l_num = np.empty((n_groups, n)), np.empty((n_groups, n))
    q_total = np.stack([s["prefix_q"][:, -1] for s in sums])  # (G, k)
    f_total = np.stack([s["suffix_f"][:, 0] for s in sums])
    for g in range(n_groups):
        prefix_q, suffix_f = sums[g]["prefix_q"], sums[g]["suffix_f"]
        for rows in (slice(0, bounds[g]), slice(bounds[g + 1], n)):
            if rows.stop <= rows.start:
                continue
            low, high = lo[g, rows], hi[g, rows]
            tied = np.flatnonzero(high != low)
            gathered = np.take(prefix_q, low, axis=1)  # (P[lo] + P[hi]) / 2
            if tied.size:
                gathered[:, tied] += np.take(prefix_q, high[tied], axis=1)
                gathered[:, tied] *= 0.5
            e_num[g, rows] = np.einsum("kn,kn->n", f[:, rows], gathered)
            gathered = np.take(suffix_f, high, axis=1, out=gathered)  # (S[lo] + S[hi]) / 2
            if tied.size:
                gathered[:, tied] += np.take(suffix_f, low[tied], axis=1)
                gathered[:, tied] *= 0.5
            l_num[g, rows] = np.einsum("kn,kn->n", q[:, rows], gathered)
    return e_num, q_total @ f, l_num, f_total @ q


def _scaled_factors(log_z, log_omega, bounds, ga, gb, offset):
    """(f of the rows in ga, q of the rows in gb) of a cell summed scaled by e^{-offset}:
    log f - s_m and log q + s_m - offset with s_m the largest log f of the row group at node m, so
    that f <= 1 and f q <= pi e^{-offset} (no overflow; what underflows is below e^-745 of the
    cell's largest pi)."""
    rows = slice(bounds[ga], bounds[ga + 1])
    cols = slice(bounds[gb], bounds[gb + 1])
    with np.errstate(over="ignore", under="ignore"):
        z_rows = np.exp(np.minimum(log_z[:, rows], 700.0))
        log_f = log_omega[:, None] + log_z[:, rows] - z_rows
        top = log_f.max(axis=1) if log_f.shape[1] else np.zeros(log_z.shape[0])
        top = np.where(np.isfinite(top), top, 0.0)
        f = np.exp(log_f - top[:, None])
        z_cols = np.exp(np.minimum(log_z[:, cols], 700.0))
        q = np.exp(-z_cols + (top - offset)[:, None])
    return f, q


def _prefix(values: np.ndarray) -> np.ndarray:
    """(k, m + 1): [:, j] = sum of values[:, :j]."""
    out = np.zeros((values.shape[0], values.shape[1] + 1))
    np.cumsum(values, axis=1, out=out[:, 1:])
    return out


def _suffix(values: np.ndarray) -> np.ndarray:
    """(k, m + 1): [:, j] = sum of values[:, j:] (a sum of its own terms, not total - prefix)."""
    out = np.zeros((values.shape[0], values.shape[1] + 1))
    np.cumsum(values[:, ::-1], axis=1, out=out[:, -2::-1])
    return out


def _group_sums(f, q, bounds, g):
    """Prefix sums of q and suffix sums of f over group g's rows in risk order."""
    qg, fg = q[:, bounds[g] : bounds[g + 1]], f[:, bounds[g] : bounds[g + 1]]
    return {"prefix_q": _prefix(qg), "suffix_f": _suffix(fg)}


def _without_self(weights, terms, total, other_sums, sums, side):
    """sum over j != i of weights[:, i] . terms[:, j], the denominator of a row against its own
    group: the total less the self term where that term is at most half of the total (the
    difference then within 2 (K + n) u of the sum of the others), else the sum of the terms before
    and after i
    (``sums``: prefix sums (side 1) or suffix sums (side 0) of ``terms``; ``other_sums()`` the
    others, computed only if some row needs them): a pair's pi can be far below that of a person
    with himself."""
    full = total @ weights
    own = np.einsum("kn,kn->n", weights, terms)
    out = full - own
    near = np.flatnonzero(own > 0.5 * full)
    if near.size:
        other = other_sums()
        before, after = (sums, other) if side == 1 else (other, sums)
        out[near] = np.einsum("kn,kn->n", weights[:, near], before[:, near] + after[:, near + 1])
    return out


def _pair_block(fa, qb, cached, bounds, ga, gb, lo, hi, own, e_num, e_den, l_num, l_den):
    """One node block's share of cell (ga, gb), written into the (G, n) arrays: the earlier sums
    of its rows in ga (toward gb) and the later sums of its rows in gb (toward ga). ``fa``
    (k, n_ga), ``qb`` (k, n_gb) in risk order; ``cached``: their prefix and suffix sums (None:
    computed here)."""
    r0, r1 = bounds[ga], bounds[ga + 1]
    c0, c1 = bounds[gb], bounds[gb + 1]
    if r1 == r0 or c1 == c0:
        return
    if cached is None:
        rows_sums = cols_sums = None
        prefix_q, suffix_f = _prefix(qb), _suffix(fa)
    else:
        rows_sums, cols_sums = cached
        prefix_q, suffix_f = cols_sums["prefix_q"], rows_sums["suffix_f"]
    if ga != gb:
        low, high = lo[gb, r0:r1], hi[gb, r0:r1]
        gathered = np.take(prefix_q, low, axis=1)
        tied = np.flatnonzero(high != low)
        if tied.size:
            gathered[:, tied] = 0.5 * (gathered[:, tied] + prefix_q[:, high[tied]])
        e_num[gb, r0:r1] = np.einsum("kn,kn->n", fa, gathered)
        e_den[gb, r0:r1] = prefix_q[:, -1] @ fa
        low, high = lo[ga, c0:c1], hi[ga, c0:c1]
        gathered = np.take(suffix_f, high, axis=1)
        tied = np.flatnonzero(high != low)
        if tied.size:
            gathered[:, tied] = 0.5 * (gathered[:, tied] + suffix_f[:, low[tied]])
        l_num[ga, c0:c1] = np.einsum("kn,kn->n", qb, gathered)
        l_den[ga, c0:c1] = suffix_f[:, 0] @ qb
        return
    # the same group: j != i, and the tie window split at the row's own position p, so that no
    # sum is a difference: earlier num = (P[lo] + P[p] + sum_{p < j < hi} q_j) / 2,
    # den = P[p] + S[p + 1]; later num = (S[hi] + S[p + 1] + sum_{lo <= i < p} f_i) / 2,
    # den = P_f[p] + S_f[p + 1] (P prefix, S suffix sums)
    low, high, pos = lo[ga, r0:r1], hi[ga, r0:r1], own[r0:r1]
    e_den[gb, r0:r1] = _without_self(fa, qb, prefix_q[:, -1], lambda: _suffix(qb), prefix_q, 1)
    l_den[ga, r0:r1] = _without_self(qb, fa, suffix_f[:, 0], lambda: _prefix(fa), suffix_f, 0)
    gathered = prefix_q[:, :-1]  # no ties: lo = p, hi = p + 1
    tied = np.flatnonzero((high - low) > 1)
    if tied.size:
        gathered = gathered.copy()
        after = high[tied] - pos[tied] - 1
        gathered[:, tied] = 0.5 * (
            prefix_q[:, low[tied]] + prefix_q[:, pos[tied]] + _range_sums(qb, pos[tied] + 1, after)
        )
    e_num[gb, r0:r1] = np.einsum("kn,kn->n", fa, gathered)
    gathered = suffix_f[:, 1:]
    if tied.size:
        gathered = gathered.copy()
        before = pos[tied] - low[tied]
        gathered[:, tied] = 0.5 * (
            suffix_f[:, high[tied]]
            + suffix_f[:, pos[tied] + 1]
            + _range_sums(fa, low[tied], before)
        )
    l_num[ga, r0:r1] = np.einsum("kn,kn->n", qb, gathered)


def ph_exact_contributions(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    lp: np.ndarray,
    log_cumhaz_tau: float,
    tied_tol: float,
) -> tuple[IndividualContributions, float]:
    """The PH reference's contributions by the cheaper of the two exact engines, and the bound on
    the relative error of every pi_ij (0.0 for the pairwise engine, exact to rounding).

    The separable engine (:func:`ph_separable_contributions`, O(n K G)) unless the n^2 pairs of
    :func:`ph_log_contributions` cost less: few rows, or linear predictors so spread out that
    K (about (max a - min a) / 0.3 + 30 nodes) approaches n."""
    n = risk.shape[0]
    if n == 0 or math.isnan(log_cumhaz_tau) or log_cumhaz_tau == -math.inf:
        return ph_log_contributions(risk, codes, n_groups, lp, log_cumhaz_tau, tied_tol), 0.0
    lp = np.asarray(lp, dtype=float)
    spread = float(lp.max() - lp.min())
    nodes = spread / min(_STEP_TRUNCATED, _STEP_UNTRUNCATED) + 40.0  # an upper estimate of K
    if n * n * _PAIR_COST <= n * nodes * (n_groups + 2) * _NODE_COST + _DESIGN_COST:
        return ph_log_contributions(risk, codes, n_groups, lp, log_cumhaz_tau, tied_tol), 0.0
    truncated = log_cumhaz_tau < math.inf
    shift = log_cumhaz_tau if truncated else -0.5 * (float(lp.max()) + float(lp.min()))
    quadrature = _quadrature_for(float(lp.min()) + shift, float(lp.max()) + shift, truncated)
    parts = ph_separable_contributions(
        risk, codes, n_groups, lp, log_cumhaz_tau, tied_tol, quadrature=quadrature
    )
    return parts, quadrature.bound


def cells_from_contributions(
    contributions: IndividualContributions, codes: np.ndarray, n_groups: int
):
    """(numerator, denominator), each (G, G): the earlier members' sums added up by their group."""
    numerator = np.zeros((n_groups, n_groups))
    denominator = np.zeros((n_groups, n_groups))
    np.add.at(numerator, codes, contributions.earlier_numerator)
    np.add.at(denominator, codes, contributions.earlier_denominator)
    return numerator, denominator


def ph_monte_carlo(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    lp: np.ndarray,
    log_cumhaz_tau: float,
    tied_tol: float,
    *,
    target_se: float,
    max_draws: int,
    min_draws: int,
    rng: np.random.Generator,
):
    """The PH reference by simulation: each draw gives every person an event time from the model and
    counts the pairs with the xCI kernel (no censoring; the draws at or after tau are censored at
    tau).

    Under a common baseline, U_i = H0(T_i) ~ Exponential(h_i) and T_i < T_j iff U_i < U_j, so no
    time scale is needed: U_i = E_i / h_i with E_i ~ Exp(1), truncated at H0(tau), compared on the
    log scale (log U_i = log E_i - lp_i against ``log_cumhaz_tau`` = log H0(tau); inf: untruncated),
    so that no lp or baseline overflows. The pair sums of
    draw d are unbiased for the exact sums, so the ratio of the sums over draws converges to xCI*;
    its Monte-Carlo standard error (delta method over draws) is checked after every draw from
    ``min_draws`` on, stopping when every defined cell's is below ``target_se`` (or at
    ``max_draws``).

    Returns (contributions averaged over the draws, Monte-Carlo SE (G, G), number of draws).
    """
    if math.isnan(log_cumhaz_tau):
        raise InvalidParameterError(
            "baseline: the cumulative hazard at tau is NaN (a baseline or a risk set that gives "
            "no value there); it must be a number >= 0, or inf for the untruncated reference.",
            parameter="baseline",
        )
    n = risk.shape[0]
    total = None
    nums, dens = [], []
    draws = 0
    mc_se = np.full((n_groups, n_groups), np.nan)
    log_h = np.asarray(lp, dtype=float)
    limit = log_cumhaz_tau
    while draws < max_draws:
        draw = rng.standard_exponential(n)
        with np.errstate(divide="ignore"):  # a draw of exactly 0: log U = -inf, the earliest
            u = np.log(draw) - log_h  # log U_i
        if not np.isfinite(u).all():
            u = np.where(np.isfinite(u), u, np.min(u[np.isfinite(u)], initial=0.0) - 1.0)
        if math.isfinite(limit):
            event = u < limit
            time = np.where(event, u, limit)
        else:  # untruncated (inf), or no mass before tau (-inf: every draw censored at 0)
            event = np.full(n, limit == math.inf)
            time = u if limit == math.inf else np.zeros(n)
        shift = time.min()
        prepared = prepare_pairs(time - shift, event, codes, risk, n_groups, tied_tol)
        counts, _, parts = count_pairs_and_contributions(prepared, PairOptions())
        parts = parts.in_input_order()
        arrays = [
            np.array(parts.earlier_numerator),
            np.array(parts.earlier_denominator),
            np.array(parts.later_numerator),
            np.array(parts.later_denominator),
        ]
        total = arrays if total is None else [t + a for t, a in zip(total, arrays)]
        nums.append(np.array(counts.numerator))
        dens.append(np.array(counts.denominator))
        draws += 1
        if draws >= min_draws:
            mc_se = _ratio_mc_se(np.array(nums), np.array(dens))
            defined = np.array(dens).sum(axis=0) > 0
            if np.all(mc_se[defined] < target_se):
                break
    mean = [t / draws for t in total]
    return IndividualContributions(*mean), mc_se, draws


def _ratio_mc_se(nums: np.ndarray, dens: np.ndarray) -> np.ndarray:
    """Monte-Carlo SE of sum_d N_d / sum_d D_d over R draws:
    sd(N_d - theta D_d) / (mean D sqrt(R))."""
    r = nums.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = nums.sum(axis=0) / dens.sum(axis=0)
        resid = nums - theta[None] * dens
        return resid.std(axis=0, ddof=1) / (dens.mean(axis=0) * math.sqrt(r))
