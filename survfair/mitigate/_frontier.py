"""The accuracy / fairness trade-off frontier of group shifts, as a tidy table and a plot."""

from __future__ import annotations

from dataclasses import field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._calibration.estimator import calibration, predicted_matrix
from .._core.deprecation import DEPRECATED, renamed
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.options import RANDOM_STATE, Option, OptionTable, check_random_state, integer, one_of
from .._core.results import json_safe
from .._core.settings import SETTINGS_OPTIONS, EstimatorSettings
from .._core.validation import check_numbers, check_survival_inputs, input_index
from .._present.plots.base import AXES
from .._xci.summaries import max_abs_delta_between
from ._problem import ShiftProblem, check_reference
from ._search import MAX_EVALUATIONS, fit_offsets, make_objective, repeatable_seed
from ._tables import ReferenceGroupAlias

__all__ = ["Frontier", "frontier", "plot_frontier"]

FAIRNESS_COLUMNS = ("abs_delta_between", "min_xci")


@frozen_result
class Frontier(ReferenceGroupAlias):
    """Result of :func:`frontier`: accuracy against cross-group fairness over group shifts.

    Attributes
    ----------
    kind : {"offsets", "lambdas"}
        A grid of offsets of the shifted group (two groups), or a path over fairness weights λ.
    groups : tuple
        Group labels in matrix order.
    reference_group : object
        The group kept at offset 0.
    settings : EstimatorSettings
        The xCI estimator's settings.
    n_samples : int
        Rows the frontier was computed on (in-sample).
    seed_entropy : int or None
        The λ path with three or more groups: the entropy of the seed of its searches
        (``random_state=seed_entropy`` repeats it exactly); None for the offset grid, which is
        not searched.

    See Also
    --------
    frontier : computes it.
    plot_frontier : draws it.
    """

    kind: str
    groups: tuple
    reference_group: Any
    settings: EstimatorSettings = field(repr=False)
    n_samples: int
    table: pd.DataFrame = field(repr=False)
    seed_entropy: int | None = field(repr=False, default=None)

    def to_frame(self) -> pd.DataFrame:
        """One row per grid point (a copy): ``offset[g]`` for every group g (and ``offset``, the
        shifted group's offset, or ``lambda``), ``overall`` (pooled C), ``delta_between`` (two
        groups), ``abs_delta_between`` (max over pairs), ``min_xci`` and ``unadjusted``."""
        return self.table  # a copy: frozen results hand out copies

    def _repr_html_(self) -> str:
        """Jupyter display: the first line of the repr, then the first rows of :meth:`to_frame`."""
        from .._present.notebook import result_html  # the presentation layer, below this one

        return result_html(self)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: kind, groups, reference_group, settings and the rows
        of :meth:`to_frame`."""
        return json_safe(
            {
                "kind": self.kind,
                "groups": list(self.groups),
                "reference_group": self.reference_group,
                "settings": self.settings.to_dict(),
                "n_samples": self.n_samples,
                "seed_entropy": self.seed_entropy,
                "points": self.table.to_dict(orient="records"),
            }
        )

    def __repr__(self) -> str:
        with pd.option_context(
            "display.precision", 4, "display.width", 120, "display.max_rows", 12
        ):
            body = str(self.table)
        return (
            f"Frontier(kind={self.kind!r}, groups={list(self.groups)}, "
            f"reference_group={self.reference_group!r}, n_samples={self.n_samples})\n{body}"
        )


class _OERatios:
    """O/E per group after a shift of a log-hazard score: the observed (Kaplan-Meier) risk does not
    move, the expected risk is the mean of 1 − (1 − F̂)^exp(offset) over the group."""

    def __init__(self, sample, predicted: Any, times: Any, data: pd.DataFrame | None):
        values = _values(predicted, data)
        if values.shape[1] != 1 or np.ndim(times) > 1 or np.size(times) != 1:
            raise InvalidParameterError(
                "predicted and times: the frontier's O/E columns take one horizon (one column).",
                parameter="predicted",
            )
        result = calibration(
            sample.time,
            sample.event,
            sample.labels,
            values,
            times,
            groups=sample.groups,
            ci=None,
            progress=False,
        )  # validates the predicted risks, names bad rows
        self.observed = result.summary()["observed_risk"].to_numpy(float)
        with np.errstate(divide="ignore"):  # a predicted risk of 1 stays 1 after any shift
            self.log_survival = [
                np.log1p(-values[sample.group_codes == k, 0]) for k in range(sample.n_groups)
            ]
        self.groups = sample.groups

    def row(self, offsets: np.ndarray) -> dict:
        expected = [
            float(np.mean(-np.expm1(np.exp(d) * s))) for d, s in zip(offsets, self.log_survival)
        ]
        return {
            f"oe_ratio[{g}]": float(o / e) for g, o, e in zip(self.groups, self.observed, expected)
        }


def _values(predicted: Any, data: pd.DataFrame | None) -> np.ndarray:
    values, _ = predicted_matrix(predicted, data)
    return np.asarray(values, dtype=float)


def _row(problem: ShiftProblem, offsets: np.ndarray, ratios: "_OERatios | None" = None) -> dict:
    values = problem.evaluate(offsets).values
    g = values.shape[0]
    row = {f"offset[{label}]": float(v) for label, v in zip(problem.sample.groups, offsets)}
    row["overall"] = float(np.nansum(problem.weights * values))
    if g == 2:
        row["delta_between"] = float(values[0, 1] - values[1, 0])
    row["abs_delta_between"] = float(max_abs_delta_between(values))
    row["min_xci"] = float(np.nanmin(values))
    row["unadjusted"] = bool(np.all(offsets == 0))
    if ratios is not None:
        row.update(ratios.row(offsets))
    return row


def _default_grid(sample, reference: int, n_points: int) -> np.ndarray:
    other = 1 - reference
    ref = sample.risk[sample.group_codes == reference]
    oth = sample.risk[sample.group_codes == other]
    lo = np.quantile(ref, 0.02) - np.quantile(oth, 0.98)
    hi = np.quantile(ref, 0.98) - np.quantile(oth, 0.02)
    return np.union1d(np.linspace(lo, hi, n_points), [0.0])


#: The scalar options of :func:`frontier` (``reference_group`` is a group label; ``offsets`` and
#: ``lambdas`` are sequences, checked in the body).
_OPTIONS = OptionTable(
    "frontier",
    n_points=integer(low=2),
    **SETTINGS_OPTIONS,
    max_evaluations=integer(low=10),
    random_state=RANDOM_STATE,
)


def frontier(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    *,
    data: pd.DataFrame | None = None,
    offsets: Sequence[float] | None = None,
    n_points: int = 101,
    lambdas: Sequence[float] | None = None,
    method: str = "ipcw",
    tau: float | None = None,
    censoring: str = "group",
    tied_tol: float = 1e-8,
    strict: bool = False,
    reference_group: Any = None,
    max_evaluations: int = MAX_EVALUATIONS,
    random_state: Any = None,
    predicted: Any = None,
    times: Any = None,
    reference: Any = DEPRECATED,
) -> Frontier:
    """Accuracy (pooled C) against cross-group fairness over a family of group shifts.

    Two groups (and ``lambdas`` None): one row per offset d of the non-reference group on a grid;
    the row with d = 0 is the unadjusted model. Otherwise: one row per fairness weight λ, with the
    offsets maximising pooled C - λ max_{a<b} |Δbetween_{a,b}| (found as in :func:`group_shift`),
    so λ = 0 keeps the most accurate shift and large λ the fairest.

    Parameters
    ----------
    time, event, group, risk, data
        As in :func:`survfair.xci` (higher risk = earlier event; rows matched by position; pandas
        inputs whose indexes are not identical are refused).
    offsets : sequence of float, optional
        Grid of offsets (two groups). Default: ``n_points`` equally spaced offsets from
        q02(reference) - q98(other) to q98(reference) - q02(other) (risk quantiles), the range over
        which the cross cells sweep from about 1 to about 0, plus the offset 0.
    n_points : int, default=101
        Size of the default grid.
    lambdas : sequence of float >= 0, optional
        Fairness weights; given, or with three or more groups
        (default ``[0, 0.25, 0.5, 1, 2, 4, 8]``).
    method, tau, censoring, tied_tol, strict
        xCI estimator settings (as in :func:`survfair.xci`).
    reference_group : group label, optional
        Group kept at offset 0 (default: the first group).
    reference : group label, optional
        Deprecated name of ``reference_group`` (removed in 0.3).
    max_evaluations, random_state
        Search settings for the λ path (see :func:`group_shift`); ``random_state`` is checked
        also for the two-group offset grid, which does not use it. None (the default): fresh
        entropy, recorded in ``Frontier.seed_entropy``; every λ is searched from the same seed.
    predicted : array-like of shape (n_samples,) or column name, optional
        The model's predicted event probabilities at one horizon ``times``, when ``risk`` is its
        log relative hazard (a Cox-type linear predictor): every row then also reports each
        group's O/E ratio (:func:`survfair.calibration`) for the shifted risks
        1 − (1 − F̂)^exp(offset), the calibration cost of the shift beside its ranking gain.
    times : float, optional
        The horizon of ``predicted`` (required with it).

    Returns
    -------
    Frontier
        ``.to_frame()``: one row per grid point: ``offset[g]`` for every group g (and ``offset``,
        the shifted group's offset, with two groups, or ``lambda``), ``overall`` (the pooled C,
        Proposition 4.1 weights, which do not depend on the shift), ``delta_between`` (two groups:
        xCI_{g0,g1} - xCI_{g1,g0} in matrix order), ``abs_delta_between`` (max over pairs
        of |Δbetween|), ``min_xci`` (over all cells), ``unadjusted`` (True where every offset is 0);
        with ``predicted``, ``oe_ratio[g]`` for every group g. Everything is computed on the data
        given (in-sample); pass held-out data to see the out-of-sample trade-off of fixed offsets.

    Raises
    ------
    InvalidParameterError
        For invalid data or options; negative or non-finite ``lambdas`` or ``offsets``; ``offsets``
        with more than two groups; fewer than two groups.

    See Also
    --------
    plot_frontier : draws it.
    group_shift : one point of it, fitted to an objective.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 300); z = rng.normal(size=300)
    >>> t = np.exp(0.5 * g + z + rng.normal(size=300))
    >>> curve = survfair.mitigate.frontier(t, np.ones(300), g, -z + 0.8 * g, method="naive",
    ...                                    n_points=5)
    >>> curve.to_frame()["offset"].round(2).tolist()  # the grid, and 0: the unadjusted scores
    [-4.96, -2.93, -0.9, 0.0, 1.13, 3.16]
    """
    reference_group = renamed(
        "frontier", "reference", "reference_group", reference, reference_group
    )
    options = _OPTIONS.check(locals())
    settings = EstimatorSettings.checked(method, tau, censoring, tied_tol, strict)
    sample, _ = check_survival_inputs(time, event, group, risk, data=data)
    if sample.n_groups < 2:
        raise InvalidParameterError(
            "group: only one group; a frontier needs at least two groups.", parameter="group"
        )
    ref = check_reference(reference_group, sample.groups)
    n_points = options["n_points"]
    seed = repeatable_seed(
        check_random_state(random_state)
    )  # checked even where the grid does not search
    problem = ShiftProblem(sample, settings)
    g = sample.n_groups
    if (predicted is None) != (times is None):
        raise InvalidParameterError(
            "predicted and times go together: give both (or neither).",
            parameter="times" if predicted is None else "predicted",
        )
    ratios = None
    if predicted is not None:
        input_index(
            {"time": time, "event": event, "group": group, "risk": risk, "predicted": predicted},
            data,
        )
        ratios = _OERatios(sample, predicted, times, data)

    if lambdas is None and g == 2:
        if offsets is None:
            grid = _default_grid(sample, ref, int(n_points))
        else:
            grid = check_numbers(offsets, "offsets")
        shifted = 1 - ref
        rows = []
        for d in grid:
            vector = np.zeros(2)
            vector[shifted] = d
            rows.append({"offset": float(d), **_row(problem, vector, ratios)})
        return Frontier(
            "offsets",
            sample.groups,
            sample.groups[ref],
            settings,
            sample.n_samples,
            pd.DataFrame(rows),
        )

    if offsets is not None:
        raise InvalidParameterError(
            "offsets: an offset grid is only available for two groups (without lambdas).",
            parameter="offsets",
        )
    lambdas = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0] if lambdas is None else lambdas
    values = check_numbers(lambdas, "lambdas")
    if np.any(values < 0):
        raise InvalidParameterError(
            f"lambdas must be a non-empty sequence of finite numbers >= 0, got {list(lambdas)!r}.",
            parameter="lambdas",
        )
    rows = [{"lambda": np.nan, **_row(problem, np.zeros(g), ratios)}]
    for lam in values:
        goal = make_objective("penalized", 1.0, 1.0, problem.weights, lam=float(lam))
        # every λ from the same seed (a fresh SeedSequence of the same entropy each time)
        fitted = fit_offsets(
            problem,
            goal,
            ref,
            max_evaluations=max_evaluations,
            random_state=np.random.SeedSequence(seed.entropy),
        )
        rows.append({"lambda": float(lam), **_row(problem, fitted["offsets"], ratios)})
    entropy = seed.entropy if g > 2 else None
    return Frontier(
        "lambdas",
        sample.groups,
        sample.groups[ref],
        settings,
        sample.n_samples,
        pd.DataFrame(rows),
        seed_entropy=entropy,
    )


def _chosen_point(chosen: Any, fairness: str, sample: str) -> tuple[float, float]:
    if isinstance(chosen, tuple) and len(chosen) == 2:
        return float(chosen[0]), float(chosen[1])
    table = getattr(chosen, "table", None)
    if not isinstance(table, pd.DataFrame) or "sample" not in table:
        raise InvalidParameterError(
            "chosen must be a fitted adjuster (GroupShift / GroupMonotone) or an (x, y) tuple.",
            parameter="chosen",
        )
    rows = table[table["sample"] == sample]
    if rows.empty:
        raise InvalidParameterError(
            f"chosen has no {sample!r} rows in its before/after table (to_frame()).",
            parameter="chosen",
        )
    pooled = float(rows.loc[rows["metric"] == "overall", "after"].iloc[0])
    if fairness == "min_xci":
        x = float(rows.loc[rows["metric"] == "min_xci", "after"].iloc[0])
    else:
        x = float(rows.loc[rows["metric"] == "delta_between", "after"].abs().max())
    return x, pooled


def _check_unadjusted(value: Any, name: str) -> Any:
    if (
        value is None
        or isinstance(value, (bool, np.bool_))
        or (isinstance(value, tuple) and len(value) == 2)
    ):
        return value
    raise InvalidParameterError(
        f"{name} must be True, False or an (x, y) tuple, got {value!r}.", parameter=name
    )


#: The scalar options of :func:`plot_frontier` (``chosen`` is an adjuster or a point).
_PLOT_OPTIONS = OptionTable(
    "plot_frontier",
    fairness=one_of(*FAIRNESS_COLUMNS),
    unadjusted=Option(_check_unadjusted, "True, False or an (x, y) tuple"),
    sample=one_of("fit", "evaluation"),
    ax=AXES,
)


def plot_frontier(
    result: Frontier | pd.DataFrame,
    *,
    ax: Any = None,
    fairness: str = "abs_delta_between",
    chosen: Any = None,
    unadjusted: Any = True,
    sample: str = "fit",
    **kwargs: Any,
):
    """Plot pooled C (accuracy) against a fairness measure along a frontier.

    Parameters
    ----------
    result : Frontier or DataFrame
        Output of :func:`frontier` (or its ``.to_frame()``).
    ax : matplotlib Axes, optional
        Axes to draw on (default: a new figure's).
    fairness : {"abs_delta_between", "min_xci"}, default="abs_delta_between"
        The x axis.
    chosen : GroupShift, GroupMonotone or (x, y) tuple, optional
        Point to mark as the chosen adjustment (an adjuster's ``after`` values of ``sample``).
    unadjusted : bool or (x, y) tuple, default=True
        Mark the unadjusted model (True: the frontier's row with every offset 0).
    sample : {"fit", "evaluation"}, default="fit"
        Which rows of ``chosen.to_frame()`` to use.
    **kwargs
        Passed to ``ax.plot`` for the curve.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``fairness`` is unknown or a DataFrame ``result`` lacks the needed columns.
    InvalidParameterError (a TypeError)
        If ``chosen`` is neither an adjuster nor an (x, y) tuple.

    See Also
    --------
    frontier : computes it.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, survfair
    >>> from survfair.mitigate import frontier, plot_frontier
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 300); z = rng.normal(size=300)
    >>> t = np.exp(0.5 * g + z + rng.normal(size=300))
    >>> ax = plot_frontier(frontier(t, np.ones(300), g, -z + 0.8 * g, method="naive", n_points=5))
    >>> ax.get_xlabel()
    'max |Δbetween xCI|'
    """
    _PLOT_OPTIONS.check(locals())
    needed = {fairness, "overall", "unadjusted"}
    frontier_df = result.to_frame() if isinstance(result, Frontier) else result
    if not isinstance(frontier_df, pd.DataFrame) or not needed <= set(frontier_df.columns):
        raise InvalidParameterError(
            f"result must be frontier()'s Frontier or its to_frame() (columns {sorted(needed)}).",
            parameter="result",
        )
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4))
    path = frontier_df[frontier_df["lambda"].notna()] if "lambda" in frontier_df else frontier_df
    style = {"marker": ".", "color": "0.3", "label": "group shifts"} | kwargs
    ax.plot(path[fairness], path["overall"], **style)
    if unadjusted is True:
        rows = frontier_df[frontier_df["unadjusted"]]
        if not rows.empty:
            ax.plot(
                rows[fairness].iloc[0],
                rows["overall"].iloc[0],
                "o",
                ms=9,
                color="tab:red",
                label="unadjusted",
            )
    elif isinstance(unadjusted, tuple):
        ax.plot(*unadjusted, "o", ms=9, color="tab:red", label="unadjusted")
    if chosen is not None:
        x, y = _chosen_point(chosen, fairness, sample)
        ax.plot(x, y, "*", ms=14, color="tab:blue", label="chosen")
    ax.set_xlabel("max |Δbetween xCI|" if fairness == "abs_delta_between" else "min xCI")
    ax.set_ylabel("pooled C (accuracy)")
    ax.legend(loc="best", fontsize="small")
    return ax
