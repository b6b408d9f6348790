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

Three engines:

* :func:`factorised_contributions` -- pi_ij = sum_k f_i(k) q_j(k) (a product over a grid, or one
  term): exact in O(n K G) time with cumulative sums over the risk order (one sort), never a pair.
  Survival curves on a grid give f_i(k) = S_i(t_{k-1}) - S_i(t_k) and q_j(k) = (S_j(t_{k-1}) +
  S_j(t_k)) / 2 (:func:`grid_terms`); calibrated probabilities of a binary outcome give f = p and
  q = 1 - p.
* :func:`ph_log_contributions` -- the Gönen-Heller closed form of a proportional-hazards model,
  pi_ij = h_i / (h_i + h_j) (1 - S0(tau)^(h_i + h_j)), from a_i = lp_i + log H0(tau) so that
  nothing overflows, evaluated exactly over all pairs in blocks of rows (O(n^2) time, O(n G +
  block) memory); :func:`ph_contributions` takes H0(tau) itself.
* :func:`ph_monte_carlo` -- the same reference beyond :data:`PH_EXACT_MAX_ROWS` rows, by drawing
  every person's event time from the model and counting the pairs with the xCI kernel.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.exceptions import InvalidParameterError
from .._core.kernel import IndividualContributions, count_pairs_and_contributions

__all__ = [
    "factorised_contributions",
    "grid_terms",
    "ph_contributions",
    "ph_log_contributions",
    "ph_monte_carlo",
    "PH_EXACT_MAX_ROWS",
    "cells_from_contributions",
]

#: Up to this many rows the PH reference is computed exactly over all n^2 pairs (measured on a
#: loaded shared 2-core machine, 2 groups: 0.55-0.9 s at 5,000 rows, 2.0-3.3 s at 10,000, growing
#: as n^2; about 3x that when every pi of a cell underflows, summed in log space); beyond it
#: by Monte Carlo (:func:`ph_monte_carlo`: 5 draws, 0.6 s, reached a Monte-Carlo SE
#: of 0.0009 at 100,000 rows). The grid engine took 8 s at 100,000 rows, 200 grid times
#: and 4 groups.
PH_EXACT_MAX_ROWS = 10_000
#: Memory of one block of the factorised engine (floats).
_BLOCK_FLOATS = 4_000_000
#: Memory of one block of rows x columns of the pairwise PH engine (floats; a block within the
#: cache was faster than larger ones).
_PAIR_BLOCK_FLOATS = 1 << 18
#: A PH cell whose largest pi_ij is below exp(_LOG_FLOOR) is summed in log space, scaled by its
#: largest pi (:func:`ph_log_contributions`); pi above it are normal floats to 16 digits.
_LOG_FLOOR = -600.0


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
    if math.isnan(log_cumhaz_tau):
        raise InvalidParameterError(
            "baseline: the cumulative hazard at tau is NaN (a baseline or a risk set that gives "
            "no value there); it must be a number >= 0, or inf for the untruncated reference.",
            parameter="baseline",
        )
    n = risk.shape[0]
    parts = [np.zeros((n, n_groups)) for _ in range(4)]
    if n == 0 or log_cumhaz_tau == -math.inf:  # H0(tau) = 0: no event before tau, every pi is 0
        return IndividualContributions(*parts)
    truncated = log_cumhaz_tau < math.inf
    order = np.lexsort((risk, codes))  # by group, then by risk
    a = np.asarray(lp, dtype=float)[order] + (log_cumhaz_tau if truncated else 0.0)
    ranked, sorted_codes = risk[order], codes[order]
    bounds = np.searchsorted(sorted_codes, np.arange(n_groups + 1), side="left")
    with np.errstate(over="ignore"):  # e^a = inf: 1 - exp(-inf) = 1, exact
        hazard = np.exp(a) if truncated else None
    # window of every row (in order) within every group's segment: columns [0, lo) of lower risk,
    # [lo, hi) tied, [hi, m) higher (indices local to the segment)
    lo, hi = np.zeros((n, n_groups), dtype=np.intp), np.zeros((n, n_groups), dtype=np.intp)
    for g in range(n_groups):
        segment = ranked[bounds[g] : bounds[g + 1]]
        lo[:, g] = np.searchsorted(segment, ranked - tied_tol, side="left")
        hi[:, g] = np.searchsorted(segment, ranked + tied_tol, side="right")
    log_max = _cell_log_max(a, bounds, truncated)
    offset = np.where(np.isfinite(log_max) & (log_max < _LOG_FLOOR), log_max, 0.0)
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
        counts, _, parts = count_pairs_and_contributions(
            time - shift, event, codes, risk, n_groups, tied_tol=tied_tol
        )
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
