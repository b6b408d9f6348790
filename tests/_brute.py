"""O(n^2) reference implementations (the slow twins of the kernel). Tests only."""

from __future__ import annotations

import numpy as np
from sksurv.nonparametric import CensoringDistributionEstimator
from sksurv.util import Surv


def censoring_survival(time, event):
    """Right-continuous censoring KM evaluated by brute force, events leaving the risk set first."""
    cache = {}

    def k(t):
        if t in cache:
            return cache[t]
        value = 1.0
        for s in np.unique(time[time <= t]):
            at_risk = np.sum(time >= s)
            deaths = np.sum((time == s) & event)
            censored = np.sum((time == s) & ~event)
            if censored:
                value *= 1.0 - censored / (at_risk - deaths)
        cache[t] = value
        return value

    return k


def weighted_censoring_survival(time, event, weights, members, t, entry=None):
    """Censoring KM of the rows ``members`` at time t, row l counting as ``weights[l]`` rows (case
    weights; the derivative in one of them is what an influence function is), events leaving the
    risk set before censorings at a tied time, right-continuous. With ``entry``, row l is at risk
    at s only when entry[l] < s <= time[l] (delayed entry)."""
    value = 1.0
    for s in np.unique(time[members][time[members] <= t]):
        at = members[time[members] >= s]
        if entry is not None:
            at = at[entry[at] < s]
        here = at[time[at] == s]
        deaths, censored = weights[here][event[here]].sum(), weights[here][~event[here]].sum()
        if censored > 0:
            value *= 1 - censored / (weights[at].sum() - deaths)
    return value


def brute_xci(
    time,
    event,
    codes,
    risk,
    n_groups,
    *,
    method="naive",
    tau=None,
    censoring="group",
    tied_tol=1e-8,
    strict=False,
    entry=None,
    weights=None,
    competing=None,
):
    """Cells (numerator, denominator, comparable, concordant, tied_risk, tied_time) by looping over
    pairs.

    ``competing`` (competing risks; ``event`` is then the cause of interest): besides the pairs
    above, i is compared with every j with a competing event at time_j <= time_i (Wolbers et al.
    2014), weighing 1 / (K_a(time_i) K_b(time_j)); the censoring KM counts every observed event.

    ``weights``: a pair weighs w_i w_j (times its IPCW weight) and the censoring KM is weighted;
    ``entry``: j is a later member for i only if entry_j < time_i, and the KM's risk sets respect
    entry. The integer counts stay counts of pairs."""
    n = len(time)
    competing = np.zeros(n, bool) if competing is None else np.asarray(competing, bool)
    censored = ~(np.asarray(event, bool) | competing)
    observed = ~censored
    if method == "ipcw":
        if weights is None and entry is None:
            if censoring == "pooled":
                curves = [censoring_survival(time, observed)] * n_groups
            else:
                curves = [
                    censoring_survival(time[codes == g], observed[codes == g])
                    for g in range(n_groups)
                ]
        else:
            v = np.ones(n) if weights is None else np.asarray(weights, float)
            members = (
                [np.arange(n)] * n_groups
                if censoring == "pooled"
                else [np.flatnonzero(codes == g) for g in range(n_groups)]
            )
            curves = [
                (
                    lambda t, rows=rows: weighted_censoring_survival(
                        time, observed, v, rows, t, entry
                    )
                )
                for rows in members
            ]
    shape = (n_groups, n_groups)
    num, den = np.zeros(shape), np.zeros(shape)
    comparable, concordant, tied, tied_time = (np.zeros(shape, int) for _ in range(4))
    for i in range(n):
        if not event[i]:
            continue
        for j in range(n):
            if i == j:
                continue
            if strict:
                ok = time[i] < time[j]
            else:
                ok = time[i] < time[j] or (time[i] == time[j] and censored[j])
            second_kind = not ok and competing[j] and time[j] <= time[i]
            if second_kind:
                later_time = time[j]
            elif not ok or (entry is not None and not entry[j] < time[i]):
                continue
            else:
                later_time = time[i]
            a, b = codes[i], codes[j]
            w = 1.0 if weights is None else weights[i] * weights[j]
            if (
                tau is not None and time[i] >= tau
            ):  # truncation: both estimators (naive: R's concordance(ymax=))
                w = 0.0
            elif method == "ipcw":
                if w == 0.0:  # a zero case weight weighs 0 whatever K is
                    w = 0.0
                else:
                    w = w / (curves[a](time[i]) * curves[b](later_time))
            is_tie = abs(risk[i] - risk[j]) <= tied_tol
            is_conc = risk[i] > risk[j] and not is_tie
            comparable[a, b] += 1
            concordant[a, b] += is_conc
            tied[a, b] += is_tie
            tied_time[a, b] += (time[i] == time[j]) and not second_kind
            num[a, b] += w * (is_conc + (0 if strict else 0.5 * is_tie))
            den[a, b] += w
    return dict(
        numerator=num,
        denominator=den,
        comparable=comparable,
        concordant=concordant,
        tied_risk=tied,
        tied_time=tied_time,
    )


def sksurv_censoring(time, event):
    return CensoringDistributionEstimator().fit(Surv.from_arrays(event=event, time=time))


def kaplan_meier_term_by_finite_differences(estimate, weights, step=1e-6):
    """w_k times the derivative, in row k's case weight, of ``estimate(v, v_km)`` with the censoring
    curves refitted (v_km = v) minus held fixed (v_km = weights): the Kaplan-Meier term of an
    influence function, one row per k (``estimate`` returns the cells as a flat array)."""
    rows = []
    for k in range(len(weights)):
        v = np.array(weights, dtype=float)
        v[k] += step
        rows.append(weights[k] * (estimate(v, v) - estimate(v, weights)) / step)
    return np.array(rows)


def naive_c_se_with_and_without_delong_factor(
    time, event, risk, *, cluster=None, tied_tol=1e-8, weights=None, entry=None
):
    """Standard error of the naive (Harrell) C of one group, rebuilt from the kernel's per-row
    contributions: with DeLong's sqrt(m / (m - 1)) per role, as survfair's influence sweep applies
    it; without it, the infinitesimal jackknife that R's ``concordance`` reports.

    psi^E_k = num^E_k - C den^E_k (row k as the earlier member), psi^L_k likewise as the later one;
    phi_k = (s_E psi^E_k + s_L psi^L_k) / D with s = sqrt(m / (m - 1)), m the rows with a positive
    weight in that role, or s = 1 without the factor; with ``cluster`` each cluster's phi is summed
    before squaring.
    """
    from survfair._core.kernel import PairOptions, count_pairs_and_contributions, prepare_pairs

    time, event, risk = (np.asarray(v, float) for v in (time, event, risk))
    event = event.astype(bool)
    codes = np.zeros(time.shape[0], np.int32)
    options = {}
    if weights is not None:
        options["case_weight"] = np.asarray(weights, float)
    if entry is not None:
        options["entry"] = np.asarray(entry, float)
    rows = prepare_pairs(time, event, codes, risk, 1, tied_tol, **options)
    counts, _, parts = count_pairs_and_contributions(rows, PairOptions())
    parts = parts.in_input_order()
    numerator, denominator = counts.numerator[0, 0], counts.denominator[0, 0]
    c = numerator / denominator
    earlier = parts.earlier_numerator[:, 0] - c * parts.earlier_denominator[:, 0]
    later = parts.later_numerator[:, 0] - c * parts.later_denominator[:, 0]

    def factor(role_denominator):
        m = int((role_denominator > 0).sum())
        return np.sqrt(m / (m - 1)) if m > 1 else 1.0

    out = []
    for s_e, s_l in (
        (factor(parts.earlier_denominator[:, 0]), factor(parts.later_denominator[:, 0])),
        (1.0, 1.0),
    ):
        phi = (s_e * earlier + s_l * later) / denominator
        if cluster is not None:
            _, codes_of = np.unique(np.asarray(cluster), return_inverse=True)
            phi = np.bincount(codes_of, weights=phi)
        out.append(float(np.sqrt(np.sum(phi**2))))
    return tuple(out)
