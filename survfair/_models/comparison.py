"""Side-by-side fairness audit of several models or published risk equations
(Wang et al. Tables 1-3)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from .._core.display import html_of
from .._core.exceptions import InvalidParameterError, MemoryLimitError
from .._core.frozen import frozen_result
from .._core.intervals import ConfidenceInterval, table_interval
from .._core.options import check_confidence_level
from .._core.results import XCIResult, json_safe
from .._core.validation import check_survival_inputs
from .._xci.estimator import xci
from .._xci.summaries import min_xci, overall_c, pairwise_deltas
from .fitting import as_risk, check_feature_keys

__all__ = ["ModelComparison", "compare"]

#: Column suffixes of the wide table that hold an estimate's interval and p-value (the package
#: scheme: ``<name>_ci_low``, ``<name>_ci_high``, ``<name>_p_value``).
_INTERVAL_SUFFIXES = ("_ci_low", "_ci_high", "_p_value")


def _label(value: Any) -> str:
    return str(value)


@frozen_result
class ModelComparison:
    """Result of :func:`survfair.compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per model (index ``model``, in the order given). Columns, in this order:
        ``n``, ``events``; every cell ``xci[a,b]`` (a = group of the earlier event, b = later
        member); for every pair of groups (a, b) with a before b in the matrix order
        ``delta_within[a,b]`` = xCI_{a,a} - xCI_{b,b} and ``delta_between[a,b]`` =
        xCI_{a,b} - xCI_{b,a}; ``min_xci`` and ``min_xci_cell`` ("a,b"); ``overall`` (pooled
        C). When the results carry inference (``ci=...`` passed to :func:`survfair.xci`), each
        cell, delta and ``min_xci`` is followed by ``..._ci_low`` / ``..._ci_high`` columns and the
        deltas by ``..._p_value`` (two-sided p-value of H0: delta = 0), the numbers of
        :func:`survfair.pairwise_deltas` and :func:`survfair.min_xci` (so ``min_xci_ci_low`` /
        ``min_xci_ci_high`` are NaN with analytic inference); ``overall`` is followed by
        ``overall_ci_low`` / ``overall_ci_high`` (:func:`survfair.overall_c`). Built on first
        access.
    results : dict of str -> XCIResult
        The full result of each model.
    scores : dict of str -> ndarray of shape (n_samples,)
        The risk scores audited (higher = earlier event).
    groups : tuple
        Group labels in matrix order (those of the first result; all results share them).

    See Also
    --------
    compare : computes it.
    ComparisonResult : a paired comparison of two models, with intervals of the differences.

    Examples
    --------
    >>> import pandas as pd
    >>> import survfair
    >>> cohort = pd.DataFrame({"time": [1, 2, 3, 4, 5, 6, 7, 8], "event": [1, 1, 1, 1, 1, 1, 1, 0],
    ...                        "sex": list("MFMFMFMF"), "score": [8, 3, 6, 5, 4, 7, 2, 1]})
    >>> audit = survfair.compare("time", "event", "sex", {"equation": "score"}, data=cohort,
    ...                          method="naive", ci=None, groups=["M", "F"])
    >>> audit.groups, list(audit.results)
    (('M', 'F'), ['equation'])
    >>> print(audit.to_frame()[["model", "statistic", "value"]].round(4).to_string(index=False))
       model          statistic  value
    equation           xci[M,M] 1.0000
    equation           xci[M,F] 0.8000
    equation           xci[F,M] 0.6667
    equation           xci[F,F] 0.5000
    equation  delta_within[M,F] 0.5000
    equation delta_between[M,F] 0.1333
    equation            min_xci 0.5000
    equation            overall 0.7500
    """

    results: dict = field(repr=False)
    scores: dict = field(repr=False)

    @property
    def table(self) -> pd.DataFrame:
        """One row per model: the cells, the deltas, min-xCI and the pooled C (see the class
        docstring); a fresh copy on every access."""
        return self._table.copy(deep=True)

    @functools.cached_property
    def _table(self) -> pd.DataFrame:
        # built on first access: with many groups it has G^2 + 2 G(G-1) columns per model,
        # which an audit that only reads .results never needs; private, so never handed out
        with_ci = any(r.ci_method is not None for r in self.results.values())
        rows = [_row(r, with_ci) for r in self.results.values()]
        return pd.DataFrame(rows, index=pd.Index(list(self.results), name="model"))

    @property
    def groups(self) -> tuple:
        """Group labels in matrix order (those of the first result; all results share them)."""
        return next(iter(self.results.values())).groups

    def to_frame(self) -> pd.DataFrame:
        """Tidy long format: one row per (model, statistic) with value, ci_low, ci_high, p_value.

        Returns
        -------
        DataFrame
            Columns model, statistic (a column name of :attr:`table`: ``xci[a,b]``,
            ``delta_within[a,b]``, ``delta_between[a,b]``, ``min_xci``, ``overall``), value,
            ci_low, ci_high, p_value (NaN where the table has no such column).
        """
        return _long(self._table)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval of every statistic of every model at ``confidence_level``.

        Parameters
        ----------
        confidence_level : float, optional
            In (0, 1); default: the level of the results (that of :meth:`to_frame`).

        Returns
        -------
        ConfidenceInterval
            Two Series (low, high) indexed by the identifying columns of :meth:`to_frame`
            (model, statistic), in its row order, at that level, recomputed from each model's
            result by the same interval rules (see Conventions, "Intervals"). NaN without
            inference.

        Raises
        ------
        TypeError, ValueError
            If ``confidence_level`` is not a number in (0, 1).
        """
        if confidence_level is None:
            table = self._table
        else:
            level = check_confidence_level(confidence_level)
            with_ci = any(r.ci_method is not None for r in self.results.values())
            rows = [
                _row(dataclasses.replace(r, confidence_level=level), with_ci)
                for r in self.results.values()
            ]
            table = pd.DataFrame(rows, index=pd.Index(list(self.results), name="model"))
        return table_interval(_long(table), ["model", "statistic"])

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the groups, the models and every statistic of :meth:`to_frame`
        (each model's full result: ``results[name].to_dict()``)."""
        return json_safe(
            {
                "groups": list(self.groups),
                "models": list(self.results),
                "statistics": self.to_frame().to_dict(orient="records"),
            }
        )

    def _repr_html_(self) -> str | None:
        """Jupyter display: the headline numbers of every model (largest cross-group asymmetry,
        worst cell, pooled C) with intervals, adjusted p-values and flags, then each model's
        findings (folded); every number in :meth:`to_frame`."""
        return html_of(self)

    def __repr__(self) -> str:
        shown = [c for c in self._table.columns if not c.endswith(_INTERVAL_SUFFIXES)]
        with pd.option_context(
            "display.precision", 4, "display.width", 160, "display.max_columns", 50
        ):
            return f"ModelComparison(groups={list(self.groups)})\n{self._table[shown]}"


def _long(table: pd.DataFrame) -> pd.DataFrame:
    """The long format of a table of :func:`_row` rows (see :meth:`ModelComparison.to_frame`)."""
    rows = []
    for model, row in table.iterrows():
        for column in table.columns:
            if column in ("n", "events", "min_xci_cell") or column.endswith(_INTERVAL_SUFFIXES):
                continue
            rows.append(
                {
                    "model": model,
                    "statistic": column,
                    "value": row[column],
                    "ci_low": row.get(f"{column}_ci_low", math.nan),
                    "ci_high": row.get(f"{column}_ci_high", math.nan),
                    "p_value": row.get(f"{column}_p_value", math.nan),
                }
            )
    return pd.DataFrame(rows)


def _row(result: XCIResult, with_ci: bool) -> dict:
    labels = [_label(g) for g in result.groups]
    sizes = result.group_sizes
    row: dict[str, Any] = {
        "n": int(result.n_samples),
        "events": int(sum(v.get("events", 0) for v in sizes.values())) if sizes else np.nan,
    }
    values = result.values
    low, high = result.confidence_interval() if with_ci else (None, None)
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            key = f"xci[{a},{b}]"
            row[key] = float(values[i, j])
            if with_ci:
                row[f"{key}_ci_low"] = float(low.iloc[i, j])
                row[f"{key}_ci_high"] = float(high.iloc[i, j])
    deltas = pairwise_deltas(result)
    for name in ("delta_within", "delta_between"):
        for d in deltas[deltas["summary"] == name].itertuples(index=False):
            key = f"{name}[{_label(d.a)},{_label(d.b)}]"
            row[key] = d.value
            if with_ci:
                row[f"{key}_ci_low"], row[f"{key}_ci_high"] = d.ci_low, d.ci_high
                row[f"{key}_p_value"] = d.p_value
    smallest = min_xci(result)
    row["min_xci"] = smallest.value
    if with_ci:
        row["min_xci_ci_low"], row["min_xci_ci_high"] = smallest.estimate.confidence_interval
    row["min_xci_cell"] = f"{_label(smallest.a)},{_label(smallest.b)}"
    row["overall"] = result.overall
    if with_ci:
        row["overall_ci_low"], row["overall_ci_high"] = overall_c(result).confidence_interval
    return row


def compare(
    time: Any,
    event: Any,
    group: Any,
    models: Mapping[str, Any],
    *,
    X: Any = None,
    data: pd.DataFrame | None = None,
    **xci_kwargs: Any,
) -> ModelComparison:
    """Audit several models, score vectors or published equations on one cohort, side by side.

    Each entry of ``models`` becomes one row of the table of the xCI paper's Tables 1-3 (Wang et
    al. 2026, Sections 6-7): every xCI cell (eq. 7 by default), the within-group and
    between-group disparities (Section 4.2.1), min-xCI (Section 4.2.2) and the pooled C
    (Proposition 4.1).

    Parameters
    ----------
    time, event, group : array-like of shape (n_samples,) or column names of ``data``
        As in :func:`survfair.xci` (the outcome first, then the group, then the scores: the
        order of every estimator of survfair).
    models : dict of str -> model, callable, array-like or str
        The scores' role. Per name, one of: a fitted model supported by
        :func:`survfair.risk_scores` (scored on ``X``, or on ``X[name]`` when ``X`` is a dict);
        a callable ``f(X) -> risk`` (likewise); an array-like of shape (n_samples,) of risk
        scores; or a column name of ``data`` holding a risk (e.g. a published equation's linear
        predictor computed beforehand: no model fitting at all). Higher = earlier event.
    X : DataFrame or array-like of shape (n_samples, n_features), or dict of str -> such, optional
        Covariates for the model and callable entries, one row per person, rows in the order of
        ``time``. Either one matrix for all of them, or a dict mapping each such entry's name to
        its own matrix, for models fitted on different feature sets (e.g. ``{"cox": X[["age"]],
        "rsf": X}``). Required only if an entry is a model or a callable; with a dict, every
        such entry needs a key and every key must name one (a missing or unknown name, or a key
        for an entry that is scores or a column name, is a ValueError naming it). The pandas
        index rule applies to each matrix: a DataFrame's scores carry its index, which must
        equal the index of the other pandas inputs, including the other matrices of a dict.
    data : pandas.DataFrame, optional
        Table in which string arguments are column names. Rows are matched by position;
        pandas inputs (and ``data``) whose indexes are not identical (same labels, same
        order) are refused with a ValueError, never aligned.
    **xci_kwargs
        Passed to :func:`survfair.xci` for every model (``method``, ``tau``, ``censoring``,
        ``groups`` (also the order of the deltas), ``tied_tol``, ``strict``, and the inference
        options such as ``ci``/``confidence_level`` when available). Intervals and p-values
        appear in the table when the results carry them.

    Returns
    -------
    ModelComparison
        ``.table`` (one row per model), ``.results`` and ``.scores`` per model.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``models`` is not a non-empty mapping, or an entry is of an unsupported type.
    InvalidParameterError (a ValueError)
        If an entry is a model but ``X`` (or its key in a dict ``X``) is missing, a key of a dict
        ``X`` names no model, a column name is given without ``data`` or is not in it, or from
        :func:`survfair.xci` (lengths, NaN, differing indexes, ...), naming the model.
    survfair.ConvergenceError
        If a linear model's coefficients show a diverged fit.
    survfair.MemoryLimitError
        (a ValueError) raised unchanged (not prefixed with a model's name) if the requested
        intervals would not fit in memory.

    Notes
    -----
    The same censoring curves are fitted for each model (they depend only on time, event and
    group), so the rows differ only through the scores. With ``groups=["M", "F"]`` the deltas
    follow the paper's orientation Δwithin = xCI_{M,M} − xCI_{F,F} and
    Δbetween = xCI_{M,F} − xCI_{F,M}.

    The intervals of the table are each model's own; to test whether two models differ, use
    :func:`survfair.compare_xci` on two of the ``.results`` (a paired comparison on the same
    people).

    See Also
    --------
    compare_xci : paired differences of two models, with their uncertainty.
    xci : the estimator run for every model.
    risk_scores : the scores of a fitted model.
    pairwise_deltas, min_xci : the summaries in the table.

    Examples
    --------
    Two score columns of one cohort, e.g. published equations computed beforehand:

    >>> import pandas as pd
    >>> import survfair
    >>> cohort = pd.DataFrame({"time": [1, 2, 3, 4, 5, 6, 7, 8], "event": [1, 1, 1, 1, 1, 1, 1, 0],
    ...                        "sex": list("MFMFMFMF"), "score_1": [8, 3, 6, 5, 4, 7, 2, 1],
    ...                        "score_2": [7, 3, 6, 5, 4, 8, 1, 2]})
    >>> audit = survfair.compare("time", "event", "sex", {"one": "score_1", "two": "score_2"},
    ...                          data=cohort, method="naive", ci=None, groups=["M", "F"])
    >>> columns = ["delta_within[M,F]", "delta_between[M,F]", "overall"]
    >>> print(audit.table[columns].round(4))  # doctest: +NORMALIZE_WHITESPACE
           delta_within[M,F]  delta_between[M,F]  overall
    model
    one                  0.5              0.1333   0.7500
    two                  0.5             -0.0667   0.6786
    """
    if not isinstance(models, Mapping) or isinstance(models, pd.DataFrame):
        raise InvalidParameterError(
            f"models must be a dict of name -> model/scores/column, got {type(models).__name__}.",
            parameter="models",
        )
    if len(models) == 0:
        raise InvalidParameterError("models must contain at least one entry.", parameter="models")
    # time, event and group are checked once, before any model: their errors name no model
    check_survival_inputs(
        time,
        event,
        group,
        data=data,
        groups=xci_kwargs.get("groups"),
        require_risk=False,
        cause=xci_kwargs.get("cause"),
    )
    check_feature_keys(models, X)
    results: dict[str, XCIResult] = {}
    scores: dict[str, np.ndarray] = {}
    for name, entry in models.items():
        if isinstance(entry, str):
            if data is None:
                raise InvalidParameterError(
                    f"models[{name!r}] is a column name ({entry!r}), so data must be given.",
                    parameter="models",
                )
            if entry not in data.columns:
                raise InvalidParameterError(
                    f"models[{name!r}]: column {entry!r} is not in data.", parameter="models"
                )
            risk = data[entry]
        else:
            keyed = isinstance(X, Mapping)
            risk = as_risk(entry, X.get(name) if keyed else X, str(name), keyed=keyed)
        try:
            result = xci(time, event, group, risk, data=data, **xci_kwargs)
        except MemoryLimitError:
            raise  # about the request (groups, intervals), not about this model
        except InvalidParameterError as error:  # the same argument, of this model's call
            raise InvalidParameterError(
                f"models[{name!r}]: {error}", parameter=error.parameter
            ) from error
        except (TypeError, ValueError) as error:
            raise type(error)(f"models[{name!r}]: {error}") from error
        results[str(name)] = result
        scores[str(name)] = np.asarray(
            risk.to_numpy() if isinstance(risk, pd.Series) else risk, dtype=float
        )
    return ModelComparison(results=results, scores=scores)
