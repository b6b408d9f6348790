"""Analytic influence of xCI with the Cox model of the censoring (``xci(censoring="cox")``).

The estimate depends on the data twice: through the pairs (the U-statistic part, as with fixed
weights) and through the fitted censoring model, G(t | x, g) = exp(-L_g(t) c(x)), c(x) =
exp(gamma'(x - center)), whose coefficients gamma and Breslow baselines L_g are estimated on the
same rows. Row k's influence phi_k(ab) is the derivative of cell (a, b) in k's case weight
(times that weight, as for the Kaplan-Meier term of :mod:`survfair._core.influence`: the
infinitesimal jackknife), with the model refitted:

    phi_k(ab) = [fixed-weight part] + (dN_ab - theta_ab dD_ab) / D_ab,

dN_ab the movement of the numerator through the model. A pair (i, j), i in a the earlier member,
j in b the later, weighs W_ij = w_i w_j exp(L_a(t_i-) c_i) exp(L_b(t_i) c_j), so

    dN_ab = sum_pairs h_ij W_ij [c_i dL_a(t_i-) + c_j dL_b(t_i)
                                 + (L_a(t_i-) c_i x_i + L_b(t_i) c_j x_j)' dgamma]

(x centred). Linearising the fit (Breslow's estimator, Andersen & Gill 1982; Lin, Fleming & Wei
1994), row k of stratum g moves

    dgamma = I^-1 U_k,
    dL_g(t) = sum_{s <= t} [dN^c_k(s) - Y_k(s) c_k dL_g(s)] / S0_g(s) - H_g(t)' dgamma,

with U_k k's score residual, I the information, S0_g(s) = sum_{l in g at risk} w_l c_l, E_g =
S1_g / S0_g and H_g(t) = sum_{s <= t} E_g(s) dL_g(s). The pair sums never need a pair: the
earlier members' contributions (:class:`~survfair._core.kernel.IndividualContributions`) and their
slopes in the cumulative hazards (:class:`~survfair._core.cox_censoring.SeriesSlopes`, from the same
series of passes) put a mass at each earlier member's time; R(s), the mass still ahead of s,
gives k's baseline term

    w_k [ 1{k censored} R(t_k) / S0_g(t_k) - c_k sum_{entry_k < s <= t_k} R(s) dL_g(s) / S0_g(s) ],

and the coefficient term is w_k B_ab' I^-1 U_k with B_ab = A_ab - sum_s R(s) E_g(s) dL_g(s), A_ab
the coefficients' direct sum above. All of it is O(n G^2) after the passes; the rows are dense
(n, G^2): through gamma every row moves every cell.

The same terms serve xAUC(t) (:func:`cox_horizon_correction`: a control's factor moves with L_b
at the horizon, not at the case's time) and the Brier score (:class:`CoxPersonTerms`: sums of
per-person terms weighted at their own time or at the horizon).

It is the exact derivative of the estimate in every case weight when the censoring times are
untied (tests/test_cox_censoring_influence.py and tests/test_calibration_cox_censoring.py check it
against finite differences with lifelines refitting the model); with tied censoring times
lifelines fits gamma by Efron's likelihood and these rows linearise Breslow's, a difference of the
order of the ties' share. Coverage: benchmarks/results/cox_censoring_coverage_n*.md.

References: Andersen, P. K. and Gill, R. D. (1982), Cox's regression model for counting
processes: a large sample study, Ann. Statist. 10, 1100-1120. Lin, D. Y., Fleming, T. R. and
Wei, L. J. (1994), Confidence bands for survival curves under the proportional hazards model,
Biometrika 81, 73-81. Gerds, T. A., Kattan, M. W., Schumacher, M. and Yu, C. (2013), Estimating a
time-dependent concordance index for survival prediction models with covariate dependent
censoring, Stat. Med. 32, 2173-2184.
"""

from __future__ import annotations

import math

import numpy as np

from .cox_censoring import CoxCensoringModel, SeriesSlopes
from .influence import Influence, cell_ratios, influence_rows, time_ordered_options
from .kernel import IndividualContributions, PairCounts, PreparedPairs
from .validation import SurvivalSample

__all__ = ["cox_influence", "cox_horizon_correction", "CoxPersonTerms"]


def cox_influence(
    sample: SurvivalSample,
    prepared: PreparedPairs,
    model: CoxCensoringModel,
    counts: PairCounts,
    contributions: IndividualContributions,
    slopes: SeriesSlopes,
) -> Influence:
    """Influence rows (dense, n x G^2, time order) of every cell and of the pooled C of a
    ``censoring="cox"`` estimate, the censoring model's estimation included (module docstring).

    ``contributions`` and ``slopes`` come from :func:`~survfair._core.cox_censoring.cox_pair_counts`
    (``with_slopes=True``) on ``prepared``; ``counts`` are its pair sums. Clustered when
    ``sample.cluster`` is given.
    """
    g = sample.n_groups
    numerator, denominator = counts.numerator.ravel(), counts.denominator.ravel()
    order = prepared.order
    fixed_cells, fixed_overall = influence_rows(
        prepared.time,
        prepared.event,
        prepared.codes,
        contributions,
        numerator,
        denominator,
        np.zeros(g, np.int64),
        np.zeros((0, g * g)),
        time_ordered_options(sample, order, prepared),
        compact=False,
    )
    terms = _ModelTerms(sample, order, model)
    moved_num, moved_den = (
        terms.movement(
            getattr(contributions, f"earlier_{part}"),
            _earlier_slope_mass(terms, getattr(slopes, f"earlier_{part}")),
            terms.later_direct_sums(getattr(slopes, f"later_{part}")),
        )
        for part in ("numerator", "denominator")
    )
    defined, theta, _, pooled, _, total_den = cell_ratios(numerator, denominator)
    cells = fixed_cells + _through_cells(moved_num, moved_den, numerator, denominator)
    if total_den > 0:
        overall = fixed_overall + (moved_num.sum(1) - pooled * moved_den.sum(1)) / total_den
    else:
        overall = np.full(fixed_overall.shape, np.nan)
    cells.flags.writeable = overall.flags.writeable = False
    result = Influence(cells, overall, order, None)
    if sample.cluster is None:
        return result
    values = np.where(defined, theta, np.nan)
    return result.clustered(sample.cluster, values, pooled if total_den > 0 else math.nan)


def _through_cells(moved_num, moved_den, numerator, denominator) -> np.ndarray:
    """(n, G^2): what the model's movement of every cell's numerator and denominator sums adds
    to its influence rows, (dN - theta dD) / D; NaN columns for cells without a pair."""
    defined, theta, inv_den, *_ = cell_ratios(numerator, denominator)
    out = (moved_num - theta * moved_den) * inv_den
    out[:, ~defined] = np.nan
    return out


def cox_horizon_correction(
    sample: SurvivalSample,
    order: np.ndarray,
    model: CoxCensoringModel,
    horizon: float,
    counts: PairCounts,
    earlier: tuple,
    later: tuple,
) -> np.ndarray:
    """What the Cox model's estimation adds to the influence rows (n, G^2; rows in ``order``) of
    xAUC(t) at ``horizon`` (``xauc_t(censoring="cox")``): a case i weighs 1 / G(T_i- | x_i), a
    control j 1 / G(t | x_j), so the later member's factor moves with L_b at the horizon itself.
    ``earlier`` / ``later``: the (numerator, denominator) contributions (n, G) of every row in
    ``order`` (0 for rows that are neither case nor control). Add it to the rows with the weights
    held; NaN columns for cells without a pair."""
    terms = _ModelTerms(sample, order, model)
    at = np.array([float(horizon)])
    factor = np.empty(terms.n)  # L_b(t) c_j of every row, in its own group's baseline
    for b in range(terms.g):
        rows = terms.codes == b
        factor[rows] = model.cumulative_hazard(b, at)[0] * terms.c[rows]
    moved = []
    for part_earlier, part_later in zip(earlier, later):

        def column(b: int, values=part_later):
            rows = terms.codes == b
            return at, (values[rows] * terms.c[rows][:, None]).sum(0)[None, :]

        direct = terms.later_direct_sums(part_later * factor[:, None])
        moved.append(terms.movement(part_earlier, column, direct))
    return _through_cells(*moved, counts.numerator.ravel(), counts.denominator.ravel())


class CoxPersonTerms:
    """The Cox model's estimation in a sum of per-person IPCW terms, as the Brier score's
    (``calibration(censoring="cox")``): a term weighted at the person's own time,
    r_i = a_i / G(T_i- | x_i), or at a horizon, r_i = a_i / G(t | x_i).

    Built once per fit (the risk sets, score residuals and information); :meth:`movement` gives,
    for every row k of the sample (input order), w_k times the derivative of sum_i r_i over
    ``members`` in k's case weight through the refitted model: the censoring term psi_k of
    :func:`survfair._calibration.stats.brier_influence`.
    """

    def __init__(self, sample: SurvivalSample, model: CoxCensoringModel) -> None:
        self._order = np.argsort(sample.time, kind="stable")
        self._position = np.empty_like(self._order)
        self._position[self._order] = np.arange(self._order.shape[0])
        self._terms = _ModelTerms(sample, self._order, model)
        self._model = model

    def movement(
        self, members: np.ndarray, group: int, at_own_time: np.ndarray, at_horizon, horizon: float
    ) -> np.ndarray:
        """psi (n_samples,): ``members`` the rows (input order) of group ``group``; their terms
        weighted at their own time (``at_own_time``) and at ``horizon`` (``at_horizon``), arrays
        aligned with ``members`` (0 where a term is not of that kind)."""
        terms, g = self._terms, self._terms.g
        position = self._position[members]
        earlier = np.zeros((terms.n, g))
        earlier[position, group] = at_own_time
        at = np.array([float(horizon)])
        c = terms.c[position]
        mass = np.zeros((1, g))
        mass[0, group] = float(np.sum(at_horizon * c))
        empty = np.zeros((1, g))

        def column(b: int):
            return at, (mass if b == group else empty)

        direct = np.zeros((g * g, terms.x.shape[1]))
        hazard = self._model.cumulative_hazard(group, at)[0]
        direct[group * g + group] = (at_horizon * hazard * c) @ terms.x[position]
        moved = terms.movement(earlier, column, direct)[:, group * g + group]
        return moved[self._position]


def _earlier_slope_mass(terms: "_ModelTerms", slope: np.ndarray):
    """xCI's later members' factors exp(L_b(t_i) c_j) move with L_b at the EARLIER member's time:
    row i's slope toward column b is a mass of cell (a_i, b) at t_i."""

    def column(b: int):
        values = np.zeros((terms.n, terms.g))
        values[np.arange(terms.n), terms.codes] = slope[:, b]
        return terms.time, values

    return column


class _ModelTerms:
    """The fitted censoring model's pieces on the rows in time order: centred covariates x,
    relative hazards c, case weights w, entry times, and per stratum the baseline's jumps with the
    risk sets' S0, E and the information."""

    def __init__(self, sample: SurvivalSample, order: np.ndarray, model: CoxCensoringModel) -> None:
        self.n, self.g = order.shape[0], sample.n_groups
        self.time, self.codes = sample.time[order], sample.group_codes[order].astype(np.intp)
        self.censored = ~sample.observed[order]
        self.x = np.asarray(sample.covariates, dtype=np.float64)[order] - model.center
        self.c = np.exp(self.x @ model.coefficients)
        self.w = np.ones(self.n) if sample.weights is None else sample.weights[order]
        self.entry = None if sample.entry is None else sample.entry[order]
        self.model = model
        self.strata = [self._stratum(b) for b in range(self.g)]
        p = self.x.shape[1]
        information = np.zeros((p, p))
        for stratum in self.strata:
            information += stratum.information
        # the derivative of gamma in every case weight: I^-1 U_k (n, p)
        self.gamma_moves = np.linalg.solve(information, self._score_residuals().T).T

    def _stratum(self, b: int) -> "_Stratum":
        rows = np.flatnonzero(self.codes == b)
        jumps = self.model.baseline_times[b]
        hazard = self.model.baseline_cumulative_hazard[b]
        d_hazard = np.diff(np.concatenate([[0.0], hazard]))
        t, x, wc = self.time[rows], self.x[rows], (self.w * self.c)[rows]
        entry = None if self.entry is None else self.entry[rows]
        s0 = _at_risk_sums(t, entry, wc, jumps)
        s1 = _at_risk_sums(t, entry, wc[:, None] * x, jumps)
        s2 = _at_risk_sums(t, entry, wc[:, None, None] * x[:, :, None] * x[:, None, :], jumps)
        with np.errstate(invalid="ignore", divide="ignore"):
            inv_s0 = np.where(s0 > 0, 1.0 / np.where(s0 > 0, s0, 1.0), 0.0)
        mean = s1 * inv_s0[:, None]
        deaths = d_hazard * s0  # Breslow: dL = dN_w / S0
        variance = s2 * inv_s0[:, None, None] - mean[:, :, None] * mean[:, None, :]
        information = np.einsum("l,lij->ij", deaths, variance)
        drift = np.cumsum(mean * d_hazard[:, None], axis=0)  # H_g at each jump
        return _Stratum(rows, jumps, d_hazard, inv_s0, mean, drift, information)

    def _score_residuals(self) -> np.ndarray:
        """U_k = delta^c_k (x_k - E(t_k)) - c_k sum_{entry_k < s <= t_k} (x_k - E(s)) dL(s)."""
        p = self.x.shape[1]
        out = np.zeros((self.n, p))
        for s in self.strata:
            rows = s.rows
            hazard_sum = np.concatenate([[0.0], np.cumsum(s.d_hazard)])
            drift = np.vstack([np.zeros((1, p)), s.drift])
            upto = np.searchsorted(s.jumps, self.time[rows], side="right")
            since = (
                np.zeros(rows.shape[0], np.intp)
                if self.entry is None
                else np.searchsorted(s.jumps, self.entry[rows], side="right")
            )
            x = self.x[rows]
            exposure = x * (hazard_sum[upto] - hazard_sum[since])[:, None] - (
                drift[upto] - drift[since]
            )
            residual = -self.c[rows][:, None] * exposure
            jumped = self.censored[rows] & (upto > 0)
            at = np.searchsorted(s.jumps, self.time[rows][jumped], side="left")
            exact = s.jumps[np.minimum(at, s.jumps.shape[0] - 1)] == self.time[rows][jumped]
            mean_at = np.where(exact[:, None], s.mean[np.minimum(at, s.jumps.shape[0] - 1)], 0.0)
            residual[jumped] += x[jumped] - mean_at
            out[rows] = residual
        return out

    def movement(self, earlier: np.ndarray, later_mass, later_direct: np.ndarray) -> np.ndarray:
        """(n, G^2): w_k times the derivative of every cell's pair sum in k's case weight through
        the model, the pairs held.

        ``earlier`` (n, G): each row's sums as the earlier member of the cells (a_i, b), whose own
        factor is exp(L_a(t_i-) c_i); ``later_mass(b)``: (times, values (m, G)) the masses of the
        cells (0..G-1, b) at which stratum b's baseline enters them through the later members'
        factors (ahead of s when s <= the time); ``later_direct`` (G^2, p): the later members'
        factors' own sums of their covariates (the coefficients' direct term)."""
        g = self.g
        own_scale = self._own_hazard() * self.c  # L_a(t_i-) c_i
        direct = later_direct + self._earlier_direct(earlier, own_scale)
        out = np.zeros((self.n, g * g))
        drift_sums = np.zeros((g * g, self.x.shape[1]))
        for b, stratum in enumerate(self.strata):
            cells, ahead = self._mass_ahead(b, stratum, earlier, later_mass(b))
            out[np.ix_(stratum.rows, cells)] += self._baseline_rows(stratum, ahead)
            # sum_s R(s) E(s) dL(s), per cell
            drift_sums[cells] += ahead[1:].T @ (stratum.mean * stratum.d_hazard[:, None])
        out += self.gamma_moves @ (direct - drift_sums).T  # B (G^2, p)
        return out * self.w[:, None]

    def later_direct_sums(self, later_slope: np.ndarray) -> np.ndarray:
        """sum_{j in b} L'[j, a] x_j for every cell (a, b), (G^2, p)."""
        g, p = self.g, self.x.shape[1]
        out = np.zeros((g, g, p))
        for b in range(g):
            rows = self.codes == b
            out[:, b] = later_slope[rows].T @ self.x[rows]
        return out.reshape(g * g, p)

    def _own_hazard(self) -> np.ndarray:
        own_hazard = np.empty(self.n)
        for b in range(self.g):
            rows = self.codes == b
            own_hazard[rows] = self.model.cumulative_hazard(b, self.time[rows], left=True)
        return own_hazard

    def _earlier_direct(self, earlier, own_scale) -> np.ndarray:
        """sum_{i in a} E[i, b] L_a(t_i-) c_i x_i for every cell (a, b), (G^2, p)."""
        g, p = self.g, self.x.shape[1]
        out = np.zeros((g, g, p))
        scaled_x = own_scale[:, None] * self.x
        for a in range(g):
            rows = self.codes == a
            out[a] = earlier[rows].T @ scaled_x[rows]
        return out.reshape(g * g, p)

    def _mass_ahead(self, b: int, stratum: "_Stratum", earlier, later_mass):
        """(cells, R): the cells stratum b's baseline enters and, at each of its jumps (rows 1..m;
        row 0 for times before the first), the mass of those cells' pairs still ahead: the earlier
        members of group b by their own factor (L_b(t_i-): ahead when s < t_i), and the later
        members' factors in column b (``later_mass``: ahead when s <= their time)."""
        g = self.g
        own_rows = stratum.rows
        own_mass = earlier[own_rows] * self.c[own_rows][:, None]  # cells (b, 0..G-1)
        queries = np.concatenate([[-np.inf], stratum.jumps])
        ahead_row = _tail_sums(self.time[own_rows], own_mass, queries, inclusive=False)
        ahead_column = _tail_sums(*later_mass, queries, inclusive=True)  # cells (0..G-1, b)
        ahead_row[:, b] += ahead_column[:, b]  # cell (b, b) has both kinds of mass
        others = np.arange(g) != b
        ahead = np.hstack([ahead_row, ahead_column[:, others]])
        cells = np.concatenate([b * g + np.arange(g), np.flatnonzero(others) * g + b])
        return cells, ahead

    def _baseline_rows(self, stratum: "_Stratum", ahead: np.ndarray) -> np.ndarray:
        """Every row k of the stratum: 1{k censored} R(t_k) / S0(t_k) - c_k sum_{entry_k < s <=
        t_k} R(s) dL(s) / S0(s), for each column of ``ahead``."""
        rows = stratum.rows
        t = self.time[rows]
        rate = ahead[1:] * (stratum.d_hazard * stratum.inv_s0)[:, None]
        cumulative = np.vstack([np.zeros((1, ahead.shape[1])), np.cumsum(rate, axis=0)])
        upto = np.searchsorted(stratum.jumps, t, side="right")
        since = (
            np.zeros(rows.shape[0], np.intp)
            if self.entry is None
            else np.searchsorted(stratum.jumps, self.entry[rows], side="right")
        )
        out = -self.c[rows][:, None] * (cumulative[upto] - cumulative[since])
        censored = self.censored[rows]
        at = np.searchsorted(stratum.jumps, t[censored], side="left")
        inside = at < stratum.jumps.shape[0]
        exact = np.zeros(at.shape[0], bool)
        exact[inside] = stratum.jumps[at[inside]] == t[censored][inside]
        # a censoring at a jump: the mass ahead of that jump (row at + 1 of ``ahead``)
        jump_part = np.where(
            exact[:, None],
            ahead[np.minimum(at + 1, ahead.shape[0] - 1)]
            * stratum.inv_s0[np.minimum(at, stratum.jumps.shape[0] - 1)][:, None],
            0.0,
        )
        out[censored] += jump_part
        return out


class _Stratum:
    """One stratum's baseline jumps and risk-set sums (see :class:`_ModelTerms`)."""

    def __init__(self, rows, jumps, d_hazard, inv_s0, mean, drift, information) -> None:
        self.rows, self.jumps, self.d_hazard = rows, jumps, d_hazard
        self.inv_s0, self.mean, self.drift, self.information = inv_s0, mean, drift, information


def _at_risk_sums(time, entry, values, at) -> np.ndarray:
    """sum of ``values`` over the rows at risk at each time of ``at`` (entry < s <= time); rows
    in ascending ``time``."""
    shape = (at.shape[0],) + values.shape[1:]
    if at.shape[0] == 0:
        return np.zeros(shape)
    empty = np.zeros((1,) + values.shape[1:])
    total = np.concatenate([np.cumsum(values[::-1], axis=0)[::-1], empty])
    out = total[np.searchsorted(time, at, side="left")]
    if entry is not None:
        by_entry = np.argsort(entry, kind="stable")
        entered = np.concatenate([np.cumsum(values[by_entry][::-1], axis=0)[::-1], empty])
        out = out - entered[np.searchsorted(entry[by_entry], at, side="left")]
    return out


def _tail_sums(times, values, queries, *, inclusive: bool) -> np.ndarray:
    """sum of ``values`` rows whose time is >= (``inclusive``) or > each query; ``times``
    ascending."""
    total = np.vstack([np.cumsum(values[::-1], axis=0)[::-1], np.zeros((1, values.shape[1]))])
    return total[np.searchsorted(times, queries, side="left" if inclusive else "right")]
