"""Paired comparison of two risk scores' xCI on the same people: "is model 2 fairer than model 1?"

Both results are computed on the same individuals, so their estimates are correlated; the
difference of any cell, of Delta-between / Delta-within for every pair of groups, of min-xCI and of
the pooled C gets its standard error from the JOINT influence functions (the difference of the two
models' per-individual influences, as in DeLong et al. 1988 for correlated AUCs and R's
compareC for correlated C-indices) or from a paired bootstrap that resamples the same individuals
for both scores.
"""

from __future__ import annotations

import math
from dataclasses import field

import numpy as np
import pandas as pd

from .._core.bootstrap import bootstrap, warn_bootstrap_failures
from .._core.cox_censoring import cox_pair_counts
from .._core.cox_influence import cox_influence
from .._core.display import html_of
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result, stored
from .._core.inference import BOOTSTRAP_METHOD, STRATIFY_OPTION, influence_with_rows
from .._core.influence import influence
from .._core.intervals import (
    ConfidenceInterval,
    bootstrap_interval,
    bootstrap_p_value,
    bounded_wald_interval,
    table_interval,
    wald_p_value,
)
from .._core.kernel import PairOptions, prepare_sample
from .._core.memory import require_memory
from .._core.numbers import p_value_text
from .._core.options import (
    CONFIDENCE_LEVEL,
    N_JOBS,
    N_RESAMPLES,
    PROGRESS,
    RANDOM_STATE,
    OptionTable,
    check_confidence_level,
    one_of,
    optional,
)
from .._core.results import XCIResult, combine_cell_rows, combine_cells, json_safe
from .summaries import Estimate

__all__ = ["ComparisonResult", "compare_xci"]

_COLUMNS = [
    "quantity",
    "a",
    "b",
    "value_1",
    "value_2",
    "difference",
    "se",
    "ci_low",
    "ci_high",
    "p_value",
]


@frozen_result
class ComparisonResult:
    """Differences (model 1 - model 2) of every fairness number, with paired uncertainty.

    Returned by :func:`compare_xci`. The accessors return an :class:`Estimate` of a difference
    (``null`` 0): :meth:`cell`, :meth:`delta_between`, :meth:`delta_within`, :attr:`min_xci`,
    :attr:`overall`.

    Attributes
    ----------
    groups : tuple
        Group labels.
    ci_method : {"analytic", "bootstrap"}
        How the standard errors, intervals and p-values were obtained.
    confidence_level : float
        Level of the intervals.
    n_samples : int
        Individuals (the same for both models).
    n_resamples : int or None
        Paired bootstrap replicates (None for analytic).
    min_cells : tuple
        ((a, b) of model 1's smallest cell, (a, b) of model 2's); an entry is None when every
        cell of that model is NaN.
    table : DataFrame
        One row per quantity; see :meth:`to_frame`.

    See Also
    --------
    compare_xci : computes it.
    ModelComparison : several models side by side, without paired differences.

    Examples
    --------
    >>> import survfair
    >>> t, e, g = [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab")
    >>> first = survfair.xci(t, e, g, [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> second = survfair.xci(t, e, g, [7, 3, 6, 5, 4, 8, 1, 2], method="naive")
    >>> comparison = survfair.compare_xci(first, second)
    >>> diff = comparison.delta_between("a", "b")  # 0.1333 - (-0.0667)
    >>> round(diff.value, 4), round(diff.se, 4)
    (0.2, 0.1461)
    >>> round(comparison.delta_between("b", "a").value, 4)  # the reverse orientation
    -0.2
    """

    groups: tuple
    ci_method: str
    confidence_level: float
    n_samples: int
    n_resamples: int | None
    min_cells: tuple
    table: pd.DataFrame = field(repr=False)
    # what the intervals are recomputed from at another level: ("analytic", reach of each row) or
    # ("bootstrap", paired replicates of the differences, their delete-one jackknife or None)
    _interval_source: tuple = field(default=(), repr=False, compare=False)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval of every difference at ``confidence_level``.

        Parameters
        ----------
        confidence_level : float, optional
            In (0, 1); default: the level of the result (that of :meth:`to_frame`).

        Returns
        -------
        ConfidenceInterval
            Two Series (low, high) indexed by the identifying columns of :meth:`to_frame`
            (quantity, a, b), in its row order, at that level, by the result's rule: Wald
            within the range of each difference (analytic), or BCa / percentile of the same
            paired replicates (bootstrap).

        Raises
        ------
        TypeError, ValueError
            If ``confidence_level`` is not a number in (0, 1).

        Examples
        --------
        >>> import survfair
        >>> t, e, g = [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab")
        >>> first = survfair.xci(t, e, g, [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
        >>> second = survfair.xci(t, e, g, [7, 3, 6, 5, 4, 8, 1, 2], method="naive")
        >>> low, high = survfair.compare_xci(first, second).confidence_interval(0.5)
        >>> round(low["delta_between"].item(), 4), round(high["delta_between"].item(), 4)
        (0.1015, 0.2985)
        """
        table = stored(self, "table")
        low, high = table["ci_low"].to_numpy(float), table["ci_high"].to_numpy(float)
        if confidence_level is not None:
            level = check_confidence_level(confidence_level)
        if confidence_level is not None and self._interval_source:
            difference = table["difference"].to_numpy(float)
            if self._interval_source[0] == "analytic":
                reach = self._interval_source[1]
                low, high = bounded_wald_interval(
                    difference, table["se"].to_numpy(float), level, -reach, reach
                )
            else:
                low, high = bootstrap_interval(difference, *self._interval_source[1:], level)
        limits = table[["quantity", "a", "b"]].assign(ci_low=low, ci_high=high)
        return table_interval(limits, ["quantity", "a", "b"])

    def to_frame(self) -> pd.DataFrame:
        """Tidy table (a copy): one row per quantity.

        Columns: quantity ("xci", "delta_between", "delta_within", "min_xci", "overall"), a, b
        (groups; empty for min_xci and overall), value_1, value_2, difference (= value_1 -
        value_2), se, ci_low, ci_high, p_value (two-sided, H0: difference = 0).

        Returns
        -------
        DataFrame
            G^2 "xci" rows (row-major), then G (G - 1) / 2 "delta_between" and as many
            "delta_within" rows (pairs a before b in group order), then "min_xci" and "overall".
        """
        return self.table

    def to_dict(self) -> dict:
        """JSON-safe dictionary: groups, interval method and level, and the rows of
        :meth:`to_frame`."""
        return json_safe(
            {
                "groups": list(self.groups),
                "ci_method": self.ci_method,
                "confidence_level": self.confidence_level,
                "n_samples": self.n_samples,
                "n_resamples": self.n_resamples,
                "differences": stored(self, "table").to_dict(orient="records"),
            }
        )

    def _row(self, quantity: str, a=None, b=None) -> Estimate:
        t = stored(self, "table")
        mask = t["quantity"] == quantity
        if a is not None:
            for name, label in (("a", a), ("b", b)):
                if label not in self.groups:
                    raise InvalidParameterError(
                        f"group {label!r} is not in the results (groups: {list(self.groups)}).",
                        parameter=name,
                    )
            if quantity != "xci" and a == b:
                raise InvalidParameterError(
                    f"{quantity} needs two different groups, got {a!r} twice.", parameter="b"
                )
            mask &= (t["a"] == a) & (t["b"] == b)
            if not mask.any() and quantity != "xci":  # pairs are stored once, a before b
                row = self._row(quantity, b, a)
                low, high = row.confidence_interval
                return Estimate(
                    -row.value,
                    row.se,
                    ConfidenceInterval(-high, -low),
                    row.p_value,
                    0.0,
                    self.confidence_level,
                )
        if not mask.any():
            raise InvalidParameterError(
                f"no {quantity} row for groups ({a!r}, {b!r}).", parameter="a"
            )
        row = t[mask].iloc[0]
        return Estimate(
            float(row["difference"]),
            float(row["se"]),
            ConfidenceInterval(float(row["ci_low"]), float(row["ci_high"])),
            float(row["p_value"]),
            0.0,
            self.confidence_level,
        )

    def cell(self, a, b) -> Estimate:
        """Difference of xCI_{a,b} between the models.

        Parameters
        ----------
        a, b : hashable
            Group labels (row a = earlier event, column b).

        Returns
        -------
        Estimate
            The difference model 1 - model 2 with its paired se, interval and p-value.

        Raises
        ------
        ValueError
            If ``a`` or ``b`` is not a group of the results.
        """
        return self._row("xci", a, b)

    def delta_between(self, a, b) -> Estimate:
        """Difference of Delta-between xCI_{a,b} = xCI_{a,b} - xCI_{b,a} between the models.

        Parameters
        ----------
        a, b : hashable
            Two different group labels, in either order (the table stores a before b; the
            reverse order negates the difference and its interval).

        Returns
        -------
        Estimate
            The difference model 1 - model 2 with its paired se, interval and p-value.

        Raises
        ------
        ValueError
            If ``a`` or ``b`` is not a group of the results, or ``a == b``.
        """
        return self._row("delta_between", a, b)

    def delta_within(self, a, b) -> Estimate:
        """Difference of Delta-within xCI_{a,b} = xCI_{a,a} - xCI_{b,b} between the models.

        Parameters
        ----------
        a, b : hashable
            Two different group labels, in either order (the reverse order negates).

        Returns
        -------
        Estimate
            The difference model 1 - model 2 with its paired se, interval and p-value.

        Raises
        ------
        ValueError
            If ``a`` or ``b`` is not a group of the results, or ``a == b``.
        """
        return self._row("delta_within", a, b)

    @property
    def min_xci(self) -> Estimate:
        """Difference of the smallest cells (each model's own minimum), an :class:`Estimate`."""
        return self._row("min_xci")

    @property
    def overall(self) -> Estimate:
        """Difference of the pooled C, an :class:`Estimate`."""
        return self._row("overall")

    def display_table(self) -> pd.DataFrame:
        """Both models and their difference, for a reader: one row per quantity ("xCI (F, M)",
        "Δbetween (F, M)", "min xCI", "pooled C") with model 1, model 2, the difference
        model 1 − model 2, its interval and p-value, as text (four decimals; p-values as
        everywhere: two significant digits, ``< 0.001`` below that). What the repr and the
        notebook show.

        Returns
        -------
        DataFrame
            Indexed by quantity; columns "model 1", "model 2", "difference", "interval", "p".

        Examples
        --------
        >>> import survfair
        >>> time, event = [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0]
        >>> group = list("abababab")
        >>> r1 = survfair.xci(time, event, group, [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
        >>> r2 = survfair.xci(time, event, group, [8, 7, 6, 5, 4, 3, 2, 1], method="naive")
        >>> table = survfair.compare_xci(r1, r2).display_table()
        >>> table.loc["pooled C", ["model 1", "model 2", "difference"]].tolist()
        ['0.7500', '1.0000', '-0.2500']
        """
        names = {
            "xci": "xCI",
            "delta_between": "Δbetween",
            "delta_within": "Δwithin",
            "min_xci": "min xCI",
            "overall": "pooled C",
        }
        four = lambda v: "–" if v is None or not np.isfinite(v) else f"{v:.4f}"  # noqa: E731
        rows = {}
        for row in self.to_frame().itertuples(index=False):
            label = names.get(row.quantity, str(row.quantity))
            if row.quantity in ("xci", "delta_between", "delta_within"):
                label += f" ({row.a}, {row.b})"
            interval = (
                "–"
                if not (np.isfinite(row.ci_low) and np.isfinite(row.ci_high))
                else f"[{row.ci_low:.4f}, {row.ci_high:.4f}]"
            )
            rows[label] = {
                "model 1": four(row.value_1),
                "model 2": four(row.value_2),
                "difference": four(row.difference),
                "interval": interval,
                "p": p_value_text(row.p_value),
            }
        table = pd.DataFrame.from_dict(rows, orient="index")
        table.index.name = "quantity"
        return table

    def _repr_html_(self) -> str | None:
        """Jupyter display: both models, the difference with its interval and p-value."""
        return html_of(self)

    def __repr__(self) -> str:
        with pd.option_context(
            "display.width", 160, "display.max_columns", 10, "display.max_colwidth", 40
        ):
            body = self.display_table().to_string()
        level = f"{100 * self.confidence_level:g}%"
        return (
            f"ComparisonResult(ci_method={self.ci_method!r}, n_samples={self.n_samples}, "
            f"groups={list(self.groups)}, difference = model 1 - model 2, {level} "
            f"intervals)\n{body}"
        )


def _check_same_rows(first: XCIResult, second: XCIResult):
    for name, res in (("result_1", first), ("result_2", second)):
        if not isinstance(res, XCIResult):
            raise InvalidParameterError(
                f"{name} must be an XCIResult from survfair.xci, got {type(res).__name__}.",
                parameter=name,
            )
        if res.sample is None:
            raise InvalidParameterError(
                f"{name} does not carry its data; compute it with survfair.xci.", parameter=name
            )
        res.sample.check_unchanged(name)
    s1, s2 = first.sample, second.sample
    if first.groups != second.groups:
        raise InvalidParameterError(
            f"the results have different groups: {list(first.groups)} vs {list(second.groups)}.",
            parameter="result_2",
        )
    if s1.n_samples != s2.n_samples:
        raise InvalidParameterError(
            f"the results are not on the same rows: {s1.n_samples} vs {s2.n_samples} rows "
            "(a paired comparison needs the same people).",
            parameter="result_2",
        )
    for name in ("time", "event", "group_codes"):
        differ = getattr(s1, name) != getattr(s2, name)
        if differ.any():
            rows = np.flatnonzero(differ)[:10].tolist()
            label = "group" if name == "group_codes" else name
            raise InvalidParameterError(
                f"the results are not on the same rows: {label} differs at rows {rows} "
                f"({int(differ.sum())} rows); a paired comparison needs the same people in the "
                "same order.",
                parameter="result_2",
            )
    for name, option, what in (
        ("cluster", "cluster", "clusters"),
        ("entry", "entry", "entry times"),
        ("weights", "weights", "case weights"),
        ("competing", "cause", "competing events"),
        ("covariates", "censoring_covariates", "censoring covariates"),
    ):
        c1, c2 = getattr(s1, name), getattr(s2, name)
        if (c1 is None) != (c2 is None) or (c1 is not None and not np.array_equal(c1, c2)):
            raise InvalidParameterError(
                f"the results have different {what} ({option}=): compute both with the same "
                f"{what}, or both without.",
                parameter="result_2",
            )
    for name in (
        "method",
        "tau",
        "censoring",
        "tied_tol",
        "strict",
    ):  # the settings as the results use them
        if getattr(first, name) != getattr(second, name):
            raise InvalidParameterError(
                f"the results use different settings: {name}={getattr(first, name)!r} vs "
                f"{getattr(second, name)!r}; compare models with the same estimator.",
                parameter="result_2",
            )
    if first.refit_censoring != second.refit_censoring:
        raise InvalidParameterError(
            "one result used censoring_reference and the other did not; use the same for both.",
            parameter="result_2",
        )
    return s1


def _linear_weights(groups: tuple):
    """Weights (Q, G*G) and labels of every cell, Delta-between and Delta-within."""
    g = len(groups)
    rows, labels = [], []
    for a in range(g):
        for b in range(g):
            w = np.zeros(g * g)
            w[a * g + b] = 1.0
            rows.append(w)
            labels.append(("xci", groups[a], groups[b]))
    for quantity in ("delta_between", "delta_within"):
        for a in range(g):
            for b in range(a + 1, g):
                w = np.zeros(g * g)
                if quantity == "delta_between":
                    w[a * g + b], w[b * g + a] = 1.0, -1.0
                else:
                    w[a * g + a], w[b * g + b] = 1.0, -1.0
                rows.append(w)
                labels.append((quantity, groups[a], groups[b]))
    return np.array(rows).reshape(-1, g * g), labels


def _argmin(result: XCIResult) -> int:
    values = result.values.ravel()
    return int(np.nanargmin(values)) if not np.isnan(values).all() else -1


#: The scalar options of :func:`compare_xci`, checked first thing in every call.
_OPTIONS = OptionTable(
    "compare_xci",
    ci=one_of("analytic", "bootstrap"),
    confidence_level=optional(CONFIDENCE_LEVEL),  # None: the level of result_1
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
    n_jobs=N_JOBS,
    progress=PROGRESS,
    stratify=STRATIFY_OPTION,
    bootstrap_method=BOOTSTRAP_METHOD,
)


def compare_xci(
    result_1: XCIResult,
    result_2: XCIResult,
    *,
    ci: str = "analytic",
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
    stratify: str | None = "group",
    bootstrap_method: str = "bca",
) -> ComparisonResult:
    """Paired comparison of two risk scores' xCI matrices on the same individuals.

    Differences are model 1 minus model 2 for every cell xCI_{a,b} (eq. 2 of Wang et al. 2026),
    every Delta-between and Delta-within (Section 4.2.1; each unordered pair of groups, in group
    order), min-xCI (Section 4.2.2; each model's own smallest cell) and the pooled C
    (Proposition 4.1), with standard error, interval and two-sided p-value of H0: no difference.

    Parameters
    ----------
    result_1, result_2 : XCIResult
        Results of :func:`survfair.xci` on the SAME rows (time, event and group identical, in the
        same order) with the same estimator settings (method, tau, censoring, tied_tol, strict),
        for two risk scores.
    ci : {"analytic", "bootstrap"}, default="analytic"
        ``"analytic"``: Wald intervals from the paired influence functions (for each individual,
        model 1's influence minus model 2's, Kaplan-Meier term of the IPCW weights included).
        ``"bootstrap"``: paired bootstrap -- every replicate resamples the same individuals for
        both scores (censoring refitted once per replicate) -- with BCa or percentile intervals
        of the differences. Results of ``xci(censoring="cox")`` (same ``censoring_covariates``)
        take both: the analytic rows include the estimation of the one Cox model of the
        censoring the two results share (:mod:`survfair._core.cox_influence`), the bootstrap
        refits it per replicate.
    confidence_level : float, optional
        Default: ``result_1.confidence_level``.
    n_resamples, random_state, n_jobs, progress, stratify, bootstrap_method
        As in :func:`survfair.xci` (bootstrap only).

    Returns
    -------
    ComparisonResult
        ``.to_frame()`` gives the tidy table; ``.cell(a, b)``, ``.delta_between(a, b)``,
        ``.delta_within(a, b)``, ``.min_xci`` and ``.overall`` give :class:`Estimate` objects.
        Intervals: raw-scale Wald with ``ci="analytic"`` (p-values Wald), BCa or percentile of
        the paired replicates with ``ci="bootstrap"`` (p-values by inverting the interval, se the
        SD of the replicated differences). A difference whose value is NaN (an undefined cell)
        has NaN inference; with ``ci="analytic"`` a difference with se 0 has a NaN p-value.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If an argument is not an XCIResult, or an option has the wrong type (``n_resamples``,
        ``n_jobs``, ``progress``, ``confidence_level``; ``random_state`` with
        ``ci="bootstrap"``).
    InvalidParameterError (a ValueError)
        If the results are not on the same rows (number of rows, time, event or group differ),
        have different groups or settings (method, tau, censoring, tied_tol, strict, or only one
        used ``censoring_reference``; different ``censoring_covariates``), a result does not
        carry its data, or an option is invalid
        (``ci`` not "analytic" / "bootstrap", ``confidence_level`` not in (0, 1),
        ``n_resamples`` < 2, ``n_jobs=0``, ``stratify``, ``bootstrap_method``).
    MemoryLimitError
        (a ValueError) if the influence rows or the paired replicates would not fit in memory.

    Warns
    -----
    UndefinedXCIWarning
        With ``ci="bootstrap"``, for replicates that failed or left a cell undefined (left out).

    See Also
    --------
    xci : the results compared.
    compare : several models side by side, each with its own (unpaired) intervals.
    delta_between, delta_within, min_xci, overall_c : the same quantities for one model.

    Notes
    -----
    The analytic min-xCI difference is a delta-method interval for the two selected cells
    (conditional on which cell is the minimum in each model); the paired bootstrap takes the
    minimum in every replicate and so accounts for the selection -- prefer it for min-xCI.
    The pooled C difference corresponds to the comparison of correlated C-indices (compareC).

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated ROC curves: a nonparametric approach. Biometrics 44(3), 837-845.

    Kang, L., Chen, W., Petrick, N. A. and Gallas, B. D. (2015). Comparing two correlated C
    indices with right-censored survival outcome: a one-shot nonparametric approach.
    Statistics in Medicine 34(4), 685-703.

    Wang, H. et al. (2026). Towards Fair Predictions: Group Conditional Concordance Index to
    Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872, Sections 4.1-4.2.

    Examples
    --------
    >>> import survfair
    >>> t, e, g = [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0], list("abababab")
    >>> first = survfair.xci(t, e, g, [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
    >>> second = survfair.xci(t, e, g, [7, 3, 6, 5, 4, 8, 1, 2], method="naive")
    >>> comparison = survfair.compare_xci(first, second)
    >>> table = comparison.to_frame()
    >>> print(table[["quantity", "a", "b", "value_1", "value_2", "difference"]].round(4)
    ...       .to_string(index=False))
         quantity a b  value_1  value_2  difference
              xci a a   1.0000   1.0000      0.0000
              xci a b   0.8000   0.6000      0.2000
              xci b a   0.6667   0.6667      0.0000
              xci b b   0.5000   0.5000      0.0000
    delta_between a b   0.1333  -0.0667      0.2000
     delta_within a b   0.5000   0.5000      0.0000
          min_xci       0.5000   0.5000      0.0000
          overall       0.7500   0.6786      0.0714
    >>> c = comparison.overall  # the pooled C, correlated between the models
    >>> round(c.value, 4), round(c.se, 4), round(c.p_value, 4)
    (0.0714, 0.0546, 0.1904)
    """
    options = _OPTIONS.check(locals())
    n_jobs = options["n_jobs"]  # capped at the cores available
    sample = _check_same_rows(result_1, result_2)
    level = options["confidence_level"]
    if level is None:  # the level of result_1, known once result_1 is checked
        level = check_confidence_level(result_1.confidence_level)
    groups = result_1.groups
    g = len(groups)
    require_memory(
        8.0 * (2 * g * g - g) * g * g,
        f"the weights of the {2 * g * g - g} paired differences of {g} groups' cells",
        ("groups",),
    )
    weights, labels = _linear_weights(groups)
    v1, v2 = result_1.values.ravel(), result_2.values.ravel()
    c1, c2 = _argmin(result_1), _argmin(result_2)
    values_1 = _paired_values(result_1, weights, v1, c1)
    values_2 = _paired_values(result_2, weights, v2, c2)
    difference = values_1 - values_2

    cox = result_1.censoring_model is not None
    need_influence = ci == "analytic" or bootstrap_method == "bca"
    bca = ci != "analytic"  # BCa reads the jackknife
    if cox:  # both results' rows move with the one censoring model they share
        rows_of = _cox_jackknife if bca else _cox_rows
    else:
        rows_of = lambda res: influence_with_rows(res, jackknife=bca)  # noqa: E731
    inf_1 = rows_of(result_1) if need_influence else None
    inf_2 = rows_of(result_2) if need_influence else None

    n_resamples_used = None
    if ci == "analytic":
        se, low, high, p, interval_source = _analytic_inference(
            weights, (inf_1, c1), (inf_2, c2), difference, level
        )
    else:
        draws_1, draws_2 = bootstrap(
            sample,
            [result_1.sample.risk, result_2.sample.risk],
            censoring=result_1.censoring if result_1.refit_censoring else None,
            fixed_curves=result_1.censoring_curves,
            n_resamples=n_resamples,
            random_state=random_state,
            n_jobs=n_jobs,
            progress=progress,
            stratify=stratify,
            settings=result_1.settings,
        )
        warn_bootstrap_failures(draws_1, groups)
        warn_bootstrap_failures(draws_2, groups)
        n_resamples_used = int(n_resamples)
        diff_draws = _replicates(weights, draws_1, v1) - _replicates(weights, draws_2, v2)
        jackknife = None
        if bootstrap_method == "bca":
            jackknife = _jackknife(weights, inf_1, v1) - _jackknife(weights, inf_2, v2)
        se, low, high, p, interval_source = _bootstrap_inference(
            difference, diff_draws, jackknife, level
        )

    table = _table(labels, values_1, values_2, difference, se, low, high, p)
    g = len(groups)
    cells = tuple(None if c < 0 else (groups[c // g], groups[c % g]) for c in (c1, c2))
    return ComparisonResult(
        groups, ci, level, sample.n_samples, n_resamples_used, cells, table, interval_source
    )


def _cox_series(result: XCIResult, **wanted):
    """(prepared rows, :class:`~survfair._core.cox_censoring.CoxPairCounts`) of a
    ``censoring="cox"`` result on its sample, with the contributions or slopes ``wanted``."""
    sample, settings = result.sample, result.settings
    prepared = prepare_sample(sample, settings.tied_tol)
    parts = cox_pair_counts(
        sample, prepared, result.censoring_model, PairOptions.of(settings), **wanted
    )
    return prepared, parts


def _cox_rows(result: XCIResult):
    """The analytic influence rows of a ``censoring="cox"`` result, the model's estimation
    included (:mod:`survfair._core.cox_influence`): those it holds, or computed on its sample."""
    stored = result.influence
    if stored is not None and stored.has_rows:
        return stored
    prepared, parts = _cox_series(result, with_slopes=True)
    return cox_influence(
        result.sample, prepared, parts.model, result.pair_counts, parts.contributions, parts.slopes
    )


def _cox_jackknife(result: XCIResult):
    """The delete-one jackknife of a ``censoring="cox"`` result (BCa's acceleration), from the
    contributions of the Cox weights' series, as :func:`survfair.xci`'s own BCa reads them (the
    Cox model held fixed: only the jackknife is read, never a standard error)."""
    sample, settings = result.sample, result.settings
    prepared, parts = _cox_series(result, with_contributions=True)
    contributions = parts.contributions
    return influence(
        sample,
        result.pair_counts,
        curves=None,
        censoring_estimated=False,
        prepared=prepared,
        contributions=contributions,
        settings=settings,
    )


def _paired_values(result: XCIResult, weights: np.ndarray, values: np.ndarray, cell: int):
    """The compared quantities of one model: every linear contrast (the cells, Δbetween,
    Δwithin), the smallest cell (``cell``; NaN without one) and the pooled C."""
    minimum = values[cell] if cell >= 0 else math.nan
    return np.concatenate([combine_cells(weights, values), [minimum, result.overall]])


def _column(matrix: np.ndarray, column: int) -> np.ndarray:
    return matrix[:, column] if column >= 0 else np.full(matrix.shape[0], np.nan)


def _analytic_inference(weights, first, second, difference, level):
    """Wald inference of model 1 - model 2 from the paired influence rows (``first``,
    ``second``: each model's influence and smallest cell): se, low, high, p and the interval's
    source (its reach: a difference of contrasts lies within +/- sum |w|, +/- 1 for the minimum
    and the pooled C)."""
    (inf_1, c1), (inf_2, c2) = first, second
    paired = combine_cell_rows(weights, inf_1.cells) - combine_cell_rows(weights, inf_2.cells)
    paired = np.column_stack(
        [paired, _column(inf_1.cells, c1) - _column(inf_2.cells, c2), inf_1.overall - inf_2.overall]
    )
    se = np.sqrt(np.sum(paired**2, axis=0))
    reach = np.concatenate([np.abs(weights).sum(axis=1), [1.0, 1.0]])
    low, high = bounded_wald_interval(difference, se, level, -reach, reach)
    return se, low, high, wald_p_value(difference, se), ("analytic", reach)


def _row_minima(values: np.ndarray) -> np.ndarray:
    """The smallest defined value of every row (NaN where a row has none)."""
    out = np.full(values.shape[0], np.nan)
    ok = ~np.isnan(values).all(axis=1)
    out[ok] = np.nanmin(values[ok], axis=1)
    return out


def _replicates(weights, draws, values) -> np.ndarray:
    """Every bootstrap replicate's compared quantities, as :func:`_paired_values` (the minimum
    over the cells defined in the estimate)."""
    reps = draws.cells.reshape(draws.cells.shape[0], -1)
    minima = _row_minima(reps[:, ~np.isnan(values)])
    return np.column_stack([combine_cell_rows(weights, reps), minima, draws.overall])


def _jackknife(weights, inf, values) -> np.ndarray:
    """The delete-one jackknife of the compared quantities (BCa's acceleration)."""
    minima = _row_minima(inf.jackknife[:, ~np.isnan(values)])
    return np.column_stack(
        [combine_cell_rows(weights, inf.jackknife), minima, inf.jackknife_overall]
    )


def _bootstrap_inference(difference, diff_draws, jackknife, level):
    """BCa (with ``jackknife``) or percentile inference of model 1 - model 2 from the paired
    replicates: se (the replicates' standard deviation), low, high, p and the interval's source."""
    low, high = bootstrap_interval(difference, diff_draws, jackknife, level)
    p = bootstrap_p_value(difference, diff_draws, jackknife, 0.0)
    finite = np.where(np.isfinite(diff_draws), diff_draws, np.nan)
    with np.errstate(invalid="ignore"):
        counts = np.isfinite(finite).sum(axis=0)
        se = np.where(
            counts > 1, np.nanstd(np.where(counts > 1, finite, 0.0), axis=0, ddof=1), np.nan
        )
    return se, low, high, p, ("bootstrap", diff_draws, jackknife)


def _table(labels, values_1, values_2, difference, se, low, high, p) -> pd.DataFrame:
    """The comparison's tidy table: one row per quantity (labels, then min_xci and overall)."""
    quantities = labels + [("min_xci", "", ""), ("overall", "", "")]
    return pd.DataFrame(
        {
            "quantity": [q for q, _, _ in quantities],
            "a": [a for _, a, _ in quantities],
            "b": [b for _, _, b in quantities],
            "value_1": values_1,
            "value_2": values_2,
            "difference": difference,
            "se": se,
            "ci_low": low,
            "ci_high": high,
            "p_value": p,
        },
        columns=_COLUMNS,
    )
