"""Per-group monotone maps: match each group's score distribution among events to a reference
group's.

Survival analogue of the "equality of opportunity" adjustment of Kallus & Zhou (2019, Appendix E.2,
Proposition 2): there, group b's score is mapped by h(r) = (G_1^a)^{-1}(G_1^b(r)), G_1^g the score
CDF among positives of group g, which equalises the true-positive rate at every threshold. Here the
"positives" are the members who have the event before tau, and F_g(r) = P(R <= r | T <= tau, G = g)
is estimated from the observed events, each weighted by 1 / K_g(T_i-) (Horvitz-Thompson inverse
probability of censoring) for ``method="ipcw"``, or unweighted for ``method="naive"``.
"""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from .._core.censoring import fit_censoring
from .._core.deprecation import DEPRECATED, renamed
from .._core.exceptions import InvalidParameterError, PositivityError
from .._core.frozen import frozen_result
from .._core.options import OptionTable, one_of, real
from .._core.results import json_safe, readonly
from .._core.settings import SETTINGS_OPTIONS, EstimatorSettings
from .._core.validation import SurvivalSample
from .._xci.summaries import check_utility_weights
from ._adjusted_calibration import (
    _SCALES,
    calibration_rows,
    check_predicted_option,
    with_calibration,
)
from ._problem import check_reference, check_transform_inputs, pop_row_options, split_samples
from ._tables import FittedAdjustment, before_after_table, format_table

__all__ = ["group_monotone", "GroupMonotone"]


def interp_linear(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """Piecewise-linear interpolation through (xp, fp), continued linearly beyond the ends.

    ``xp`` strictly increasing with at least two points; beyond the first / last knot the first /
    last segment's slope is used, so a strictly increasing (xp, fp) gives a strictly increasing map
    on the whole real line.
    """
    x = np.asarray(x, dtype=float)
    out = np.interp(x, xp, fp)
    left, right = x < xp[0], x > xp[-1]
    if left.any():
        slope = (fp[1] - fp[0]) / (xp[1] - xp[0])
        out[left] = fp[0] + slope * (x[left] - xp[0])
    if right.any():
        slope = (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
        out[right] = fp[-1] + slope * (x[right] - xp[-1])
    return out


def _event_distribution(
    sample: SurvivalSample, code: int, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct event risks of one group and their mid-point plotting positions (weighted ECDF)."""
    rows = (sample.group_codes == code) & (weights > 0)
    risks, inverse = np.unique(sample.risk[rows], return_inverse=True)
    mass = np.bincount(inverse, weights=weights[rows], minlength=risks.shape[0])
    label = sample.groups[code]
    if risks.shape[0] < 2:
        raise InvalidParameterError(
            f"group {label!r} has {risks.shape[0]} distinct risk value(s) among its (weighted) "
            "events in the fitting sample; at least 2 are needed to estimate its event-time score "
            "distribution.",
            parameter="group",
        )
    positions = (np.cumsum(mass) - mass / 2) / mass.sum()
    return risks, positions


def _event_weights(sample: SurvivalSample, settings: EstimatorSettings) -> np.ndarray:
    """Weight of each row in its group's score distribution among events before tau: its inverse
    censoring survival (IPCW; the censoring curves respect ``entry``) times its case weight."""
    tau = math.inf if settings.tau is None else settings.tau
    used = sample.event & (sample.time < tau)
    weights = used.astype(float)
    if settings.method == "ipcw":
        curves = fit_censoring(sample, settings.censoring)
        for code in range(sample.n_groups):
            rows = used & (sample.group_codes == code)
            if not rows.any():
                continue
            before = np.nextafter(sample.time[rows], -np.inf)  # K_g(T_i-) = P(C >= T_i | G = g)
            survival = curves.evaluate(code, before)
            if not np.all(survival > 0):
                raise PositivityError(
                    f"censoring survival of group {sample.groups[code]!r} is 0 or undefined just "
                    "before an event time; pass a smaller tau."
                )
            weights[rows] = 1.0 / survival
    if (
        sample.weights is not None
    ):  # case weights: each event counts with its weight, as in the pairs
        weights = weights * sample.weights
    return weights


def fit_maps(sample: SurvivalSample, settings: EstimatorSettings, reference: int) -> dict:
    """Knots (risk in, risk out) of the map of every non-reference group."""
    weights = _event_weights(sample, settings)
    ref_risk, ref_position = _event_distribution(sample, reference, weights)
    maps = {}
    for code in range(sample.n_groups):
        if code == reference:
            continue
        risk, position = _event_distribution(sample, code, weights)
        # h = Q_ref o F_g is piecewise linear with knots at g's risks and at the pre-images of the
        # reference's plotting positions; both pieces continue linearly, so h is strictly increasing
        preimage = interp_linear(ref_position, position, risk)
        knots = np.unique(np.concatenate([risk, preimage]))
        values = interp_linear(interp_linear(knots, risk, position), ref_position, ref_risk)
        maps[code] = (knots, values)
    return maps


@frozen_result
class GroupMonotone(FittedAdjustment):
    """A fitted set of per-group monotone maps (reference group: identity).

    Attributes
    ----------
    groups : tuple
        Group labels in matrix order.
    reference_group : object
        Group whose scores are left unchanged and whose event-score distribution is the target.
    settings : EstimatorSettings
        The xCI estimator's settings (method, tau, censoring, tied_tol, strict).
    n_fit, n_evaluation : int
        Rows of the fitting and evaluation samples.
    calibration : CalibrationCost or None
        With ``group_monotone(..., predicted=, times=)``: the calibration of the mapped scores'
        predicted risks per group, before and after (:func:`survfair.mitigate.calibration_cost`), on
        the evaluation sample (in-sample without ``fit_on``). None otherwise.

    See Also
    --------
    group_monotone : computes it.
    calibration_cost : its effect on calibration.

    Notes
    -----
    Each map is continuous, piecewise linear and strictly increasing, so it keeps every
    within-group ranking (within-group cells change only through risks that are tied within
    ``tied_tol`` before or after the map). As for :class:`GroupShift`, the "fit" rows of
    :meth:`to_frame` are optimistic; read the "evaluation" rows.
    """

    groups: tuple
    reference_group: Any
    alpha: float
    beta: float
    maps: dict = field(repr=False)
    settings: EstimatorSettings = field(repr=False)
    n_fit: int
    n_evaluation: int
    table: pd.DataFrame = field(repr=False)
    results: dict = field(repr=False, default_factory=dict)
    calibration: Any = field(repr=False, default=None)

    @property
    def knots(self) -> pd.DataFrame:
        """Knots of every map: columns group, risk, risk_adjusted (identity for the reference)."""
        frames = [
            pd.DataFrame(
                {
                    "group": [label] * len(self.maps[label][0]),
                    "risk": self.maps[label][0],
                    "risk_adjusted": self.maps[label][1],
                }
            )
            for label in self.groups
            if label in self.maps
        ]
        return pd.concat(frames, ignore_index=True)

    def to_frame(self) -> pd.DataFrame:
        """Tidy before/after table (a copy); same layout as :meth:`GroupShift.to_frame` (with
        ``predicted=``, the calibration rows of :attr:`calibration` follow, with a ``time``
        column)."""
        return calibration_rows(
            self.table, self.calibration, "evaluation" if self.n_evaluation else "fit"
        )

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the maps' knots, the settings, the before/after table and
        ``"calibration"`` (as :meth:`GroupShift.to_dict`)."""
        return json_safe(
            {
                "adjustment": "monotone",
                "groups": list(self.groups),
                "reference_group": self.reference_group,
                "alpha": self.alpha,
                "beta": self.beta,
                "knots": self.knots.to_dict(orient="records"),
            }
            | self._fitted_fields()
        )

    def transform(self, risk: Any, group: Any, *, data: pd.DataFrame | None = None) -> np.ndarray:
        """Mapped risks h_{group_i}(risk_i), same length and row order as the input.

        Parameters
        ----------
        risk : array-like of shape (n_samples,) or column name
        group : array-like of shape (n_samples,), column name, or list of column names
        data : pandas.DataFrame, optional

        Returns
        -------
        ndarray of shape (n_samples,), float64

        Raises
        ------
        ValueError
            On mismatched lengths, NaN/inf risks, or group labels not seen when fitting.
        TypeError
            For non-numeric risks.
        """
        values, codes = check_transform_inputs(risk, group, data, self.groups)
        return _apply(self.maps, self.groups, values, codes)

    def __repr__(self) -> str:
        return (
            f"GroupMonotone(reference_group={self.reference_group!r}, groups={list(self.groups)}, "
            f"n_fit={self.n_fit}, n_evaluation={self.n_evaluation})\n" + format_table(self.table)
        )


def _apply(maps: dict, groups: tuple, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    out = np.array(values, dtype=float, copy=True)
    for code, label in enumerate(groups):
        if label in maps:
            rows = codes == code
            out[rows] = interp_linear(values[rows], *maps[label])
    return out


#: The scalar options of :func:`group_monotone` (``reference_group`` is a group label; alpha and
#: beta not both 0 is checked in the body).
_OPTIONS = OptionTable(
    "group_monotone",
    **SETTINGS_OPTIONS,
    alpha=real(low=0),
    beta=real(low=0),
    scale=one_of(*_SCALES),
)


def group_monotone(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    method: str = "ipcw",
    tau: float | None = None,
    censoring: str = "group",
    tied_tol: float = 1e-8,
    strict: bool = False,
    reference_group: Any = None,
    fit_on: Any = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    predicted: Any = None,
    times: Any = None,
    scale: str = "log_hazard",
    reference: Any = DEPRECATED,
    **xci_kwargs: Any,
) -> GroupMonotone:
    """Fit per-group monotone maps matching each group's event score distribution to a reference's.

    For every group g other than the reference, h_g = Q_ref o F_g, where F_g is the (IPCW-weighted)
    distribution function of the risk among group g's members who have the event before ``tau``
    and Q_ref the quantile function of the same distribution in the reference group; after the
    map, the risk of a member failing before tau has the same distribution in every group
    ("equal opportunity" at every threshold, the survival analogue of Kallus & Zhou 2019, App. E.2).

    Parameters
    ----------
    time, event, group, risk, data
        As in :func:`survfair.xci` (higher risk = earlier event; rows matched by position; pandas
        inputs whose indexes are not identical are refused).
    method : {"ipcw", "naive"}, default="ipcw"
        ``"ipcw"``: each event weighs 1 / K_g(T_i-) in its group's distribution (so it estimates
        the distribution among all members failing before tau, not only the observed ones);
        ``"naive"``: unweighted. Also the estimator of the before/after table.
    tau, censoring, tied_tol, strict
        As in :func:`survfair.xci`; only events before ``tau`` enter the distributions.
    reference_group : group label, optional
        Target group (mapped by the identity). Default: the first group in matrix order.
    reference : group label, optional
        Deprecated name of ``reference_group`` (removed in 0.3).
    fit_on : boolean mask, integer positions, DataFrame or tuple, optional
        As in :func:`group_shift`: where the maps are fitted; the rest is the evaluation sample.
    alpha, beta : float, default=1.0
        Utility weights of the table's utility rows (finite, >= 0, not both 0).
    predicted, times, scale
        As in :func:`group_shift`: the model's predicted event probabilities at the horizons
        ``times``; given, :attr:`GroupMonotone.calibration` reports the calibration of the mapped
        scores' predicted risks per group before and after (``scale="log_hazard"``: the risk
        becomes 1 − (1 − F̂)^exp(h(r) − r)), on the evaluation sample.
    **xci_kwargs
        Passed to :func:`survfair.xci` for the before/after table. ``entry``, ``weights`` and
        ``cluster`` (arrays of shape (n_samples,) or column names, as in :func:`survfair.xci`) are
        used by the fit too: the adjustment is fitted to the case-weighted event
        distributions (censoring curves that respect ``entry``) of the rows the table reports (with
        a separate ``fit_on`` DataFrame, name them as columns so that both data sets carry them).

    Returns
    -------
    GroupMonotone
        ``.transform(risk, group)``, ``.knots``, ``.to_frame()`` (before/after table),
        ``.to_dict()``.

    Raises
    ------
    InvalidParameterError
        For invalid data or options (as :func:`group_shift`), or when a group has fewer than two
        distinct risk values among its events before tau in the fitting sample.
    PositivityError
        When a censoring survival used as an event weight is 0.

    See Also
    --------
    group_shift : per-group offsets.
    calibration_cost : what the maps do to calibration.
    survfair.equal_opportunity_adjustment : the binary analogue.

    Notes
    -----
    F_g and Q_ref are linear interpolations of the weighted empirical distribution through the
    mid-point plotting positions (cumulative weight minus half the point's own weight) and are
    continued linearly beyond the first and last event risk, so h_g is continuous and strictly
    increasing on the whole line and risks outside the fitting range (e.g. censored members) are
    still mapped one-to-one. For binary data without censoring this is exactly Kallus & Zhou's
    equal-opportunity map (up to the interpolation), whose xAUC disparity equals AUC^b - AUC^a
    (their Proposition 2): the map closes Δbetween only as far as the groups' within-group
    discrimination allows.

    References
    ----------
    Kallus, N. and Zhou, A. (2019). The Fairness of Risk Scores Beyond Classification: Bipartite
    Ranking and the xAUC Metric. NeurIPS. Appendix E.2, Proposition 2.

    Wang, H. et al. (2026). arXiv:2606.16872, Sections 4.2-4.3.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 300); z = rng.normal(size=300)
    >>> t = np.exp(0.5 * g + z + rng.normal(size=300))
    >>> fitted = survfair.mitigate.group_monotone(t, np.ones(300), g, -z + 0.8 * g, method="naive")
    >>> fitted.reference_group  # the first group: its scores are not mapped
    0
    """
    reference_group = renamed(
        "group_monotone", "reference", "reference_group", reference, reference_group
    )
    _OPTIONS.check(locals())
    alpha, beta = check_utility_weights(alpha, beta)  # not both 0
    settings = EstimatorSettings.checked(method, tau, censoring, tied_tol, strict)
    # entry, weights and cluster change the cells: the fit uses them, as the table does
    fit_sample, eval_sample, fit_mask = split_samples(
        time, event, group, risk, data, fit_on, pop_row_options(xci_kwargs)
    )
    ref = check_reference(reference_group, fit_sample.groups)
    if fit_sample.n_groups < 2:
        raise InvalidParameterError(
            "group: only one group; a monotone adjustment needs at least two groups.",
            parameter="group",
        )
    risks = check_predicted_option(
        predicted, times, scale, data, {"time": time, "event": event, "group": group, "risk": risk}
    )
    maps_by_code = fit_maps(fit_sample, settings, ref)
    maps = {
        fit_sample.groups[code]: tuple(readonly(a, float) for a in knots)
        for code, knots in maps_by_code.items()
    }
    samples = [
        (
            "fit",
            fit_sample,
            _apply(maps, fit_sample.groups, fit_sample.risk, fit_sample.group_codes),
        )
    ]
    if eval_sample is not None:
        samples.append(
            (
                "evaluation",
                eval_sample,
                _apply(maps, eval_sample.groups, eval_sample.risk, eval_sample.group_codes),
            )
        )
    table, results = before_after_table(samples, settings, alpha, beta, xci_kwargs)
    fitted = GroupMonotone(
        groups=fit_sample.groups,
        reference_group=fit_sample.groups[ref],
        alpha=alpha,
        beta=beta,
        maps=maps,
        settings=settings,
        n_fit=fit_sample.n_samples,
        n_evaluation=0 if eval_sample is None else eval_sample.n_samples,
        table=table,
        results=results,
    )
    return with_calibration(fitted, fit_sample, eval_sample, fit_mask, risks, settings.censoring)
