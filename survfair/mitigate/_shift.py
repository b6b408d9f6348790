"""Group shifts of a risk score: per-group additive offsets chosen to optimise a fairness objective.

The public :func:`group_shift` and its result :class:`GroupShift`. The pieces live in
:mod:`._problem` (option checks, fitting / evaluation samples, evaluating shifted scores),
:mod:`._search` (objectives and the offset search; its docstring explains why the two-group
search is exact) and :mod:`._tables` (the before/after table).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from .._core.deprecation import DEPRECATED, renamed
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.options import RANDOM_STATE, OptionTable, integer, one_of, real
from .._core.results import json_safe
from .._core.settings import SETTINGS_OPTIONS, EstimatorSettings
from .._xci.summaries import OBJECTIVES, check_utility_weights
from ._adjusted_calibration import (
    _SCALES,
    calibration_rows,
    check_predicted_option,
    with_calibration,
)
from ._problem import (
    ShiftProblem,
    check_reference,
    check_transform_inputs,
    pop_row_options,
    split_samples,
)
from ._search import MAX_EVALUATIONS, fit_offsets, make_objective
from ._tables import FittedAdjustment, before_after_table, format_table

__all__ = ["group_shift", "GroupShift", "OBJECTIVES"]


# -- the adjuster --------------------------------------------------------------------------------


@frozen_result
class GroupShift(FittedAdjustment):
    """A fitted group shift: risk_i + offset[group_i], one offset per group (reference at 0).

    Attributes
    ----------
    groups : tuple
        Group labels, in matrix order.
    reference_group : object
        The group whose offset is fixed at 0.
    objective : str
        The objective optimised on the fitting sample.
    alpha, beta : float
        Utility weights (used by the utility objectives and the table's utility rows).
    objective_before, objective_after : float
        The objective on the fitting sample before and after the shift (max |Δbetween| for
        ``"abs_delta_between"``, min-xCI, the smallest utility, or the product of utilities).
    optimality_gap : float
        Two groups: a certified bound on how far ``objective_after`` can be from the best value over
        all offsets (0.0 = exact optimum). More groups: NaN (coordinate-wise optimum only).
    plateau : tuple (low, high) or None
        Two groups: the interval of offsets of the shifted group with exactly the same pair counts
        on the fitting sample as the chosen offset (its midpoint is chosen).
    search : str
        How the offsets were found.
    n_evaluations : int
        Kernel evaluations used by the search.
    settings : EstimatorSettings
        The xCI estimator's settings (method, tau, censoring, tied_tol, strict).
    n_fit, n_evaluation : int
        Rows of the fitting and the evaluation sample (0 without an evaluation sample).
    calibration : CalibrationCost or None
        With ``group_shift(..., predicted=, times=)``: the calibration of the shifted scores'
        predicted risks per group, before and after (:func:`survfair.mitigate.calibration_cost`), on
        the evaluation sample (in-sample without ``fit_on``). None otherwise.
    seed_entropy : int or None
        Three or more groups: the entropy of the seed of the differential-evolution search
        (``random_state=seed_entropy`` repeats the fit exactly, also after ``random_state=None``).
        Two groups: None (the search is exact and draws nothing).

    See Also
    --------
    group_shift : computes it.
    calibration_cost : its effect on calibration.

    Notes
    -----
    The offsets are chosen to be best *on the fitting sample*, so the "fit" rows of
    :meth:`to_frame` are optimistic: the fitted offset adapts to the sampling noise of that
    sample (the winner's curse of any data-driven selection; with two groups the chosen plateau is
    where the noisy empirical cells happen to cross). Judge a mitigation by the "evaluation" rows,
    computed on data not used for fitting (``fit_on=``).
    """

    groups: tuple
    reference_group: Any
    objective: str
    alpha: float
    beta: float
    offset_values: tuple = field(repr=False)
    objective_before: float
    objective_after: float
    optimality_gap: float
    plateau: tuple | None
    search: str = field(repr=False)
    n_evaluations: int = field(repr=False)
    settings: EstimatorSettings = field(repr=False)
    n_fit: int
    n_evaluation: int
    table: pd.DataFrame = field(repr=False)
    results: dict = field(repr=False, default_factory=dict)
    calibration: Any = field(repr=False, default=None)
    seed_entropy: int | None = field(repr=False, default=None)

    @property
    def offsets(self) -> pd.Series:
        """Offset added to every member's risk, indexed by group (reference group: 0)."""
        index = pd.Index(list(self.groups), name="group", tupleize_cols=False)
        return pd.Series(np.array(self.offset_values, dtype=float), index=index, name="offset")

    def to_frame(self) -> pd.DataFrame:
        """Tidy before/after table (a copy).

        One row per (sample, metric, a, b): samples "fit" and, with ``fit_on``, "evaluation";
        metrics every xCI cell ("xci", a = earlier group, b = later group), "delta_within" and
        "delta_between" for every pair a < b, "min_xci", "overall" (the pooled C, Proposition 4.1)
        and "utility" (per group a). Columns before, after, change and the se / ci_low / ci_high of
        both (NaN until the estimator is asked for inference through ``**xci_kwargs``).

        With ``predicted=`` the calibration rows of :attr:`calibration` follow, on the sample they
        were computed on ("evaluation", or "fit" without ``fit_on``): metric the statistic
        (observed_risk, expected_risk, oe_ratio, intercept, slope, ici, e90, brier), a the group,
        and a ``time`` column, the horizon (NaN on the ranking rows).
        """
        return calibration_rows(
            self.table, self.calibration, "evaluation" if self.n_evaluation else "fit"
        )

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the offsets, the search and its diagnostics, the settings, the
        before/after table (the ranking rows of :meth:`to_frame`) and ``"calibration"`` (the sample
        and :meth:`CalibrationCost.to_dict`, or None without ``predicted=``)."""
        return json_safe(
            {
                "adjustment": "shift",
                "groups": list(self.groups),
                "reference_group": self.reference_group,
                "objective": self.objective,
                "alpha": self.alpha,
                "beta": self.beta,
                "offsets": dict(zip(map(str, self.groups), self.offset_values)),
                "objective_before": self.objective_before,
                "objective_after": self.objective_after,
                "optimality_gap": self.optimality_gap,
                "plateau": list(self.plateau) if self.plateau else None,
                "search": self.search,
                "n_evaluations": self.n_evaluations,
                "seed_entropy": self.seed_entropy,
            }
            | self._fitted_fields()
        )

    def transform(self, risk: Any, group: Any, *, data: pd.DataFrame | None = None) -> np.ndarray:
        """Shifted risks risk_i + offset[group_i], same length and row order as the input.

        Parameters
        ----------
        risk : array-like of shape (n_samples,) or column name
            Risk scores (higher = earlier event).
        group : array-like of shape (n_samples,), column name, or list of column names
            Group labels; every label must be one of :attr:`groups`.
        data : pandas.DataFrame, optional
            Table in which string arguments are column names. Rows are matched by position;
            pandas inputs (and ``data``) whose indexes are not identical (same labels, same
            order) are refused with a ValueError, never aligned.

        Returns
        -------
        ndarray of shape (n_samples,), float64

        Raises
        ------
        ValueError
            On mismatched lengths, NaN/inf risks, or group labels not seen when fitting (naming the
            rows).
        TypeError
            For non-numeric risks.
        """
        values, codes = check_transform_inputs(risk, group, data, self.groups)
        return values + np.asarray(self.offset_values, dtype=float)[codes]

    def __repr__(self) -> str:
        offsets = ", ".join(f"{g!r}: {v:+.6g}" for g, v in zip(self.groups, self.offset_values))
        return (
            f"GroupShift(objective={self.objective!r}, reference_group={self.reference_group!r}, "
            f"offsets={{{offsets}}}, objective {self.objective_before:.4g} -> "
            f"{self.objective_after:.4g} on the fitting sample, "
            f"optimality_gap={self.optimality_gap:.3g}, n_fit={self.n_fit}, "
            f"n_evaluation={self.n_evaluation})\n" + format_table(self.table)
        )


#: The scalar options of :func:`group_shift` (``reference_group`` is a group label; alpha and beta
#: not both 0 is checked in the body).
_OPTIONS = OptionTable(
    "group_shift",
    objective=one_of(*OBJECTIVES),
    alpha=real(low=0),
    beta=real(low=0),
    **SETTINGS_OPTIONS,
    max_evaluations=integer(low=10),
    random_state=RANDOM_STATE,
    scale=one_of(*_SCALES),
)


def group_shift(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    objective: str = "abs_delta_between",
    alpha: float = 1.0,
    beta: float = 1.0,
    method: str = "ipcw",
    tau: float | None = None,
    censoring: str = "group",
    tied_tol: float = 1e-8,
    strict: bool = False,
    reference_group: Any = None,
    fit_on: Any = None,
    max_evaluations: int = MAX_EVALUATIONS,
    random_state: Any = None,
    predicted: Any = None,
    times: Any = None,
    scale: str = "log_hazard",
    reference: Any = DEPRECATED,
    **xci_kwargs: Any,
) -> GroupShift:
    """Fit per-group additive offsets on the risk scale that optimise a cross-group fairness
    objective.

    The adjusted score is ``risk_i + offset[group_i]`` with the reference group's offset fixed at 0.
    By Proposition 5.1 of Wang et al. (2026) a group shift trades xCI_{a,b} against xCI_{b,a} and
    leaves every within-group cell xCI_{a,a} exactly unchanged (a shift cancels within a group).

    Parameters
    ----------
    time, event, group, risk, data
        As in :func:`survfair.xci`: times (float >= 0), events (0/1), group labels, risk scores
        (higher = earlier event; survival probabilities must be negated first), and an optional
        DataFrame in which strings are column names (rows matched by position; pandas inputs whose
        indexes are not identical are refused).
    objective : {"abs_delta_between", "min_xci", "min_utility", "nash_welfare"}, default="abs_delta_between"
        The vocabulary of :func:`survfair.xci_score` and of the summaries of the same names
        (:func:`survfair.abs_delta_between`, :func:`survfair.min_xci`, :func:`survfair.min_utility`,
        :func:`survfair.nash_welfare`). ``"abs_delta_between"``: minimise max over pairs a < b
        of |xCI_{a,b} - xCI_{b,a}| (Section 4.2.1). ``"min_xci"``: maximise the smallest cell
        (Section 4.2.2; within-group cells cannot move, so the smallest cross cell is maximised).
        ``"min_utility"``: maximise min_a U(a) and ``"nash_welfare"``: maximise prod_a U(a), with
        U(a) = alpha sum_{b != a} xCI_{a,b} + beta sum_{b != a} xCI_{b,a} (Section 4.3).
    alpha, beta : float, default=1.0
        Utility weights, finite and >= 0, not both 0 (checked for every objective).
    method, tau, censoring, tied_tol, strict
        xCI estimator settings, as in :func:`survfair.xci`; used for the fit and the table.
    reference_group : group label, optional
        Group whose offset is 0. Default: the first group in matrix (sorted) order.
    reference : group label, optional
        Deprecated name of ``reference_group`` (removed in 0.3).
    fit_on : boolean mask, column name, integer row positions, DataFrame or tuple, optional
        Data on which the offsets are fitted. None: all rows (the table then has in-sample rows
        only). A boolean mask of shape (n_samples,), the name of a boolean column of ``data``, or
        integer positions (0-based, as ``iloc``): fit on those rows and evaluate on the remaining
        ones. A DataFrame with the same column
        names as ``data``, or a tuple (time, event, group, risk): fit on that separate data set and
        evaluate on the main inputs.
    max_evaluations : int, default=3000
        Budget of kernel evaluations per exact line search; when exhausted, ``optimality_gap`` > 0
        reports how far from optimal the result may be.
    random_state : None, int, numpy Generator / RandomState / SeedSequence, default=None
        Seed of the differential-evolution search (three or more groups; two groups are searched
        exactly, without randomness, but the value is checked all the same). None: fresh entropy,
        as everywhere in survfair, so two identical calls with three or more groups may return
        slightly different offsets (each a coordinate-wise optimum); pass an int for
        reproducible offsets, or repeat a fit with ``random_state=fitted.seed_entropy``. The
        command line ``survfair mitigate`` seeds with ``--seed`` (default 0).
    predicted : array-like of shape (n_samples,) or (n_samples, n_times), or column name(s), optional
        The model's predicted event probabilities at ``times`` (as in :func:`survfair.calibration`
        and :func:`frontier`). Given, the result also reports the calibration of the shifted
        scores' predicted risks per group, before and after, beside the ranking gain
        (:attr:`GroupShift.calibration`, a :class:`CalibrationCost`; its rows in :meth:`to_frame`
        and :meth:`to_dict`), on the evaluation sample (in-sample without ``fit_on``).
    times : float or sequence of float, optional
        The horizons of the columns of ``predicted`` (required with it).
    scale : {"log_hazard", "probability"}, default="log_hazard"
        How ``risk`` relates to ``predicted`` (as in :func:`calibration_cost`): a log relative
        hazard, whose shift by d turns F̂ into 1 − (1 − F̂)^exp(d), or the predicted risk itself
        (one horizon).
    **xci_kwargs
        Passed to :func:`survfair.xci` when the before/after table is computed (e.g. inference
        options), so that the table's se / intervals are filled. ``entry``, ``weights`` and
        ``cluster`` (arrays of shape (n_samples,) or column names, as in :func:`survfair.xci`) are
        used by the fit too: the adjustment is fitted to the same cells the table reports (with a
        separate ``fit_on`` DataFrame, name them as columns so that both data sets carry them).

    Returns
    -------
    GroupShift
        ``.offsets``, ``.transform(risk, group)``, ``.to_frame()`` (before/after table),
        ``.to_dict()``, and the search diagnostics.

    Raises
    ------
    InvalidParameterError (a TypeError)
        For arguments of the wrong type (non-numeric risk, ``alpha`` not a number, bad ``fit_on``).
    InvalidParameterError (a ValueError)
        For invalid data (see :func:`survfair.xci`), an unknown ``objective``, ``method`` or
        ``censoring``, ``alpha`` / ``beta`` negative, infinite or both 0, a ``reference`` that is
        not a group, a single group, a ``fit_on`` that leaves no fitting or evaluation rows or
        misses a group, or a cross-group cell without comparable pairs in the fitting sample;
        ``predicted`` without ``times`` (or the reverse), invalid predicted risks or horizons (see
        :func:`survfair.calibration`), or an unknown ``scale``.

    See Also
    --------
    group_monotone : per-group monotone maps instead of offsets.
    frontier : the accuracy / fairness trade-off over shifts.
    calibration_cost : what the shift does to calibration.
    survfair.xci_score : the same objectives for model selection.

    Notes
    -----
    Two groups: the empirical objective is piecewise constant in the offset d, changing only at
    the O(n_a n_b) values r_i - r_j +- tied_tol of cross-group pairs. Each cell is a monotone step
    function of d, which gives exact bounds on any interval of offsets; a best-first branch and
    bound over intervals (with the kernel as the only evaluator) returns the global optimum over
    all offsets with ``optimality_gap == 0`` (certified), evaluating the objective only O(log) times
    per plateau it must inspect. The returned offset is the midpoint of the optimal plateau.
    More groups: differential evolution (scipy, seeded by ``random_state``) then exact
    coordinate-wise search; the result is a coordinate-wise optimum (no single group's offset can
    improve it).

    In-sample gains are optimistic: the offset is selected to optimise the fitting sample's noisy
    cells. Use ``fit_on`` and read the "evaluation" rows of :meth:`GroupShift.to_frame`.

    References
    ----------
    Wang, H. et al. (2026). Towards Fair Predictions: Group Conditional Concordance Index to
    Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872, Sections 4.2-4.3,
    Proposition 5.1.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 300); z = rng.normal(size=300)
    >>> t = np.exp(0.5 * g + z + rng.normal(size=300))
    >>> fitted = survfair.mitigate.group_shift(t, np.ones(300), g, -z + 0.8 * g, method="naive")
    >>> fitted.optimality_gap
    0.0
    """  # noqa: E501 - two numpydoc "name : type" lines cannot wrap
    reference_group = renamed(
        "group_shift", "reference", "reference_group", reference, reference_group
    )
    options = _OPTIONS.check(locals())
    alpha, beta = check_utility_weights(alpha, beta)  # not both 0
    settings = EstimatorSettings.checked(method, tau, censoring, tied_tol, strict)
    max_evaluations = options["max_evaluations"]
    # entry, weights and cluster change the cells: the fit uses them, as the table does
    fit_sample, eval_sample, fit_mask = split_samples(
        time, event, group, risk, data, fit_on, pop_row_options(xci_kwargs)
    )
    ref = check_reference(reference_group, fit_sample.groups)
    if fit_sample.n_groups < 2:
        raise InvalidParameterError(
            "group: only one group; a group shift needs at least two groups.", parameter="group"
        )
    risks = check_predicted_option(
        predicted, times, scale, data, {"time": time, "event": event, "group": group, "risk": risk}
    )

    problem = ShiftProblem(fit_sample, settings)
    goal = make_objective(objective, alpha, beta, problem.weights)
    before_value = goal.value(problem.evaluate(np.zeros(fit_sample.n_groups)).values)
    fitted = fit_offsets(
        problem, goal, ref, max_evaluations=max_evaluations, random_state=random_state
    )
    offsets = fitted["offsets"]

    samples = [("fit", fit_sample, fit_sample.risk + offsets[fit_sample.group_codes])]
    if eval_sample is not None:
        samples.append(
            ("evaluation", eval_sample, eval_sample.risk + offsets[eval_sample.group_codes])
        )
    table, results = before_after_table(samples, settings, alpha, beta, xci_kwargs)
    fitted = GroupShift(
        groups=fit_sample.groups,
        reference_group=fit_sample.groups[ref],
        objective=objective,
        alpha=alpha,
        beta=beta,
        offset_values=tuple(float(v) for v in offsets),
        objective_before=float(goal.report(before_value)),
        objective_after=float(goal.report(fitted["value"])),
        optimality_gap=float(fitted["gap"]),
        plateau=fitted["plateau"],
        search=fitted["search"],
        n_evaluations=problem.n_evaluations,
        settings=settings,
        n_fit=fit_sample.n_samples,
        n_evaluation=0 if eval_sample is None else eval_sample.n_samples,
        table=table,
        results=results,
        seed_entropy=fitted["seed_entropy"],
    )
    return with_calibration(fitted, fit_sample, eval_sample, fit_mask, risks, settings.censoring)
