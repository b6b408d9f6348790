"""Immutable result objects of the xCI estimator."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from .censoring import CensoringCurves
from .censoring_check import CensoringDependence, censoring_dependence_of_sample
from .display import html_of
from .frozen import FrozenCachedProperty, frozen_result
from .groups import label_array
from .intervals import (
    NO_VARIANCE_SE,
    ConfidenceInterval,
    bootstrap_at_floor,
    bootstrap_interval,
    bootstrap_p_value,
    bounded_wald_interval,
    cell_wald_interval,
    contrast_range,
    nanstd,
    wald_p_value,
)
from .kernel import PairCounts
from .options import check_confidence_level
from .settings import EstimatorSettings
from .validation import SurvivalSample

__all__ = ["XCIResult", "CellMatrixAccessors", "BootstrapDraws", "Jackknife", "labels_as_text"]

ROW_NAME = "a (earlier event)"
COLUMN_NAME = "b (later)"


def labels_as_text(cells: pd.DataFrame) -> pd.DataFrame:
    """A table of cells (``to_frame()``) with its group labels ``a`` and ``b`` as text, in place:
    how :meth:`XCIResult.to_dict` and ``survfair audit --format json`` write them."""
    for column in ("a", "b"):
        cells[column] = [str(v) for v in cells[column]]
    return cells


def contrast_interval(result: "XCIResult", weights: np.ndarray, confidence_level: float):
    """Interval limits of linear contrasts ``weights @ vec(matrix)`` (one row of weights each).

    Wald limits from the cell covariance (``ci_method="analytic"``; on the logit scale for a
    single cell, raw scale for contrasts, clipped to the values the contrast can take, see
    :func:`~survfair._core.intervals.contrast_range`); with bootstrap replicates,
    BCa limits (``result.bootstrap_method == "bca"`` and the delete-one jackknife is stored) or
    percentile limits; NaN when the result carries neither. Cells with zero weight never
    propagate NaN.
    """
    level = check_confidence_level(confidence_level)
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    values = combine_cells(weights, result.values.ravel())
    if result.replicates is not None:
        reps = result.replicates.reshape(result.replicates.shape[0], -1)
        draws = combine_cell_rows(weights, reps)
        jackknife = _contrast_jackknife(result, weights)
        return bootstrap_interval(values, draws, jackknife, level)
    se = contrast_se(result, weights)
    low, high = bounded_wald_interval(values, se, level, *contrast_range(weights))
    single = _single_cell(weights)
    if single.any():
        low[single], high[single] = cell_wald_interval(values[single], se[single], level)
    return low, high


def _single_cell(weights: np.ndarray) -> np.ndarray:
    """Rows of ``weights`` that pick one cell with weight 1 (an xCI value, bounded in [0, 1])."""
    return ((weights != 0).sum(axis=1) == 1) & np.isclose(weights.sum(axis=1), 1.0)


def contrast_p_value(result: "XCIResult", weights: np.ndarray, null: float) -> np.ndarray:
    """Two-sided p-values of H0: ``weights @ vec(matrix) == null``.

    Wald (normal) p-values from the covariance; with bootstrap replicates, the p-value obtained by
    inverting the bootstrap interval (BCa or percentile): the largest 1 - level whose interval
    still contains ``null``. NaN without inference.
    """
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    values = combine_cells(weights, result.values.ravel())
    if result.replicates is not None:
        reps = result.replicates.reshape(result.replicates.shape[0], -1)
        draws = combine_cell_rows(weights, reps)
        return bootstrap_p_value(values, draws, _contrast_jackknife(result, weights), null)
    return wald_p_value(values, contrast_se(result, weights), null)


def contrast_se(result: "XCIResult", weights: np.ndarray) -> np.ndarray:
    """Standard errors of linear contrasts of the cells (NaN without inference).

    From the influence rows when the result carries them (no covariance is formed), else from a
    dense ``covariance`` (the DeLong covariance of :class:`survfair.XAUCResult`), else from the
    bootstrap replicates.
    """
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    influence = getattr(result, "influence", None)
    if influence is not None:
        return influence.contrast_se(weights)
    if result.covariance is not None:
        used = weights != 0
        cov = np.where(np.isnan(result.covariance), 0.0, result.covariance)
        variance = np.einsum("ki,ij,kj->k", weights, cov, weights)
        missing = np.array([np.isnan(result.covariance[np.ix_(u, u)]).any() for u in used])
        se = np.sqrt(np.clip(variance, 0, None))
        se[missing] = np.nan
        return se
    if result.replicates is not None:
        reps = result.replicates.reshape(result.replicates.shape[0], -1)
        draws = combine_cell_rows(weights, reps)
        return nanstd(draws)
    return np.full(weights.shape[0], np.nan)


def contrast_covariance(result: "CellMatrixAccessors", weights: np.ndarray) -> np.ndarray:
    """Covariance (K, K) of linear contrasts of the cells, from the same source as
    :func:`contrast_se`: the influence rows (analytic), the dense DeLong covariance (xAUC) or the
    bootstrap replicates (their sample covariance, replicates with an undefined contrast left out).
    All NaN without inference; NaN rows/columns for contrasts that use an undefined cell."""
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    k = weights.shape[0]
    influence = getattr(result, "influence", None)
    if influence is not None:
        return influence.contrast_covariance(weights)
    if result.covariance is not None:
        cov = np.where(np.isnan(result.covariance), 0.0, result.covariance)
        out = weights @ cov @ weights.T
        used = weights != 0
        missing = np.array([np.isnan(result.covariance[np.ix_(u, u)]).any() for u in used])
        out[missing, :] = np.nan
        out[:, missing] = np.nan
        return out
    if result.replicates is not None:
        draws = combine_cell_rows(
            weights, result.replicates.reshape(result.replicates.shape[0], -1)
        )
        draws = draws[np.isfinite(draws).all(axis=1)]
        return (
            np.cov(draws, rowvar=False, ddof=1).reshape(k, k)
            if draws.shape[0] > 1
            else np.full((k, k), np.nan)
        )
    return np.full((k, k), np.nan)


def difference_inference(
    result: "CellMatrixAccessors", first: np.ndarray, second: np.ndarray, level: float
):
    """Values, standard errors, interval limits and p-values (H0: 0) of the cell differences
    ``vec(matrix)[first[k]] - vec(matrix)[second[k]]``, all at once.

    The numbers of :func:`contrast_se`, :func:`contrast_interval` and :func:`contrast_p_value`
    with weights +1 / -1 on the two cells, computed without one G^2-long weight vector per
    difference (all pairs of 500 groups are 124,750 differences of 250,000 cells).
    """
    level = check_confidence_level(level)
    first, second = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
    cells = result.values.ravel()
    values = cells[first] - cells[second]
    if result.replicates is not None:
        reps = result.replicates.reshape(result.replicates.shape[0], -1)
        draws = reps[:, first] - reps[:, second]
        jackknife = None
        if _has_jackknife(result):
            jack = result.jackknife.cells
            jackknife = jack[:, first] - jack[:, second]
        low, high = bootstrap_interval(values, draws, jackknife, level)
        return values, nanstd(draws), low, high, bootstrap_p_value(values, draws, jackknife, 0.0)
    influence = getattr(result, "influence", None)
    if influence is not None:
        se = influence.difference_se(first, second)
    elif result.covariance is not None:
        cov = result.covariance
        with np.errstate(invalid="ignore"):
            se = np.sqrt(
                np.clip(cov[first, first] + cov[second, second] - 2 * cov[first, second], 0, None)
            )
    else:
        se = np.full(values.shape, np.nan)
    low, high = bounded_wald_interval(
        values, se, level, -1.0, 1.0
    )  # a difference of two probabilities
    return values, se, low, high, wald_p_value(values, se)


def difference_p_at_floor(
    result: "CellMatrixAccessors", first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """Where the p-value of :func:`difference_inference` is a bootstrap resolution bound: no
    replicate of the difference crossed 0 (:func:`~survfair._core.intervals.bootstrap_at_floor`).
    All False without bootstrap replicates (a Wald p-value has no floor)."""
    first, second = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
    if result.replicates is None:
        return np.zeros(first.shape[0], dtype=bool)
    reps = result.replicates.reshape(result.replicates.shape[0], -1)
    return bootstrap_at_floor(reps[:, first] - reps[:, second], 0.0)


def cell_se(result: "CellMatrixAccessors") -> np.ndarray:
    """Standard error of every cell, shape (G*G,), row-major; never forms a G^2 x G^2 matrix.

    Computed once per result (a frozen result cannot change) and copied on each call: the matrix,
    its intervals, the flags and the findings all read it (three passes over the influence rows
    of 2,000 groups took 6 s)."""
    if isinstance(result, CellMatrixAccessors):
        return np.array(result._cell_se)
    return _computed_cell_se(result)


def _computed_cell_se(result: Any) -> np.ndarray:
    influence = getattr(result, "influence", None)
    if influence is not None:
        return influence.cell_se()
    if result.covariance is not None:
        with np.errstate(invalid="ignore"):  # NaN variances of undefined cells stay NaN
            return np.sqrt(np.clip(np.diag(result.covariance), 0, None))
    if result.replicates is not None:
        return nanstd(result.replicates.reshape(result.replicates.shape[0], -1))
    return np.full(len(result.groups) ** 2, np.nan)


def no_variance_cells(result: "CellMatrixAccessors") -> np.ndarray:
    """Defined cells whose standard error is 0 (at most ``NO_VARIANCE_SE``), shape (G, G).

    A cell where every comparable pair was ranked the same way (estimated at exactly 0 or 1), or
    whose few members' influence values cancel, has no estimate of its sampling variability: its
    interval has width 0 and a Wald test would treat it as known exactly. All False without
    inference (NaN standard errors).
    """
    values = result.values
    with np.errstate(invalid="ignore"):
        return np.isfinite(values) & (cell_se(result).reshape(values.shape) <= NO_VARIANCE_SE)


#: A cell is flagged as resting on little data below these (issue 33.2; survfair.small_sample_flags
#: words the reasons): events in its row group or members in its column group, comparable pairs.
SMALL_SAMPLE_MIN_EVENTS = 10
SMALL_SAMPLE_MIN_PAIRS = 100
#: A cell of an xCI matrix is flagged when a or b has fewer events than this (issue 33.2): every
#: design of benchmarks/interval_study.py whose analytic intervals covered below 93% has a group
#: with at most 32 events (median), and the designs whose smaller group had 35 events or more
#: covered 93% or more in every cell and Δbetween (see docs/how-to/intervals.md).
INTERVAL_MIN_EVENTS = 35


def cell_support(result: Any) -> tuple[np.ndarray, np.ndarray, str, str]:
    """Per group, what a cell's row rests on (events; positives for an xAUC matrix) and what its
    column rests on (members; negatives), with their nouns."""
    if hasattr(result, "positive"):  # an XAUCResult
        (first, first_noun), (second, second_noun) = (
            ("positives", "positive"),
            ("negatives", "negative"),
        )
    else:
        (first, first_noun), (second, second_noun) = ("events", "event"), ("n", "member")
    sizes = [result.group_sizes.get(group, {}) for group in result.groups]
    events = np.array([int(size.get(first, 0)) for size in sizes], dtype=np.int64)
    controls = np.array([int(size.get(second, 0)) for size in sizes], dtype=np.int64)
    return events, controls, first_noun, second_noun


def small_sample_rules(
    result: Any,
    min_events: int = SMALL_SAMPLE_MIN_EVENTS,
    min_pairs: int = SMALL_SAMPLE_MIN_PAIRS,
    min_interval_events: int = INTERVAL_MIN_EVENTS,
) -> dict[str, np.ndarray]:
    """Which rule flags each cell (row-major arrays of G*G booleans): few_events (row group),
    few_controls (column group), few_pairs, no_variance (standard error 0), narrow_row /
    narrow_column (fewer than ``min_interval_events`` events in the row / column group, xCI
    results with intervals only) and flagged (any of them). The one computation behind
    ``survfair.small_sample_flags``, the ``small_sample`` column of ``to_frame()`` and the
    ``small_sample`` of a difference's Estimate."""
    g = len(result.groups)
    events, controls, _, _ = cell_support(result)
    pairs = result.pair_counts.comparable.ravel()
    rules = {
        "few_events": np.repeat(events < min_events, g),
        "few_controls": np.tile(controls < min_events, g),
        "few_pairs": pairs < min_pairs,
        "no_variance": no_variance_cells(result).ravel(),
    }
    if hasattr(result, "positive") or getattr(result, "ci_method", None) is None:
        rules["narrow_row"] = rules["narrow_column"] = np.zeros(g * g, dtype=bool)
    else:  # measured for xCI intervals
        rules["narrow_row"] = np.repeat(events < min_interval_events, g)
        rules["narrow_column"] = np.tile(events < min_interval_events, g)
    flagged = np.zeros(g * g, dtype=bool)
    for rule in rules.values():
        flagged |= rule
    rules["flagged"] = flagged
    return rules


def cell_interval(
    result: "CellMatrixAccessors", confidence_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Interval limits of every cell, each of shape (G*G,), as :func:`contrast_interval` gives
    for one cell, without building identity weights of G^2 x G^2."""
    level = check_confidence_level(confidence_level)
    values = result.values.ravel()
    if result.replicates is not None:
        reps = result.replicates.reshape(result.replicates.shape[0], -1)
        jackknife = result.jackknife.cells if _has_jackknife(result) else None
        return bootstrap_interval(values, reps, jackknife, level)
    return cell_wald_interval(values, cell_se(result), level)


def has_inference(result) -> bool:
    """Whether the result carries what standard errors are computed from: influence rows, a
    covariance or bootstrap replicates."""
    return any(
        getattr(result, name, None) is not None
        for name in ("influence", "covariance", "replicates")
    )


def _has_jackknife(result) -> bool:
    return (
        getattr(result, "bootstrap_method", None) == "bca"
        and getattr(result, "jackknife", None) is not None
    )


def combine_cells(weights: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``weights @ cells`` where a NaN cell only matters if its weight is non-zero."""
    return combine_cell_rows(weights, cells[None, :])[0]


def combine_cell_rows(weights: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``cells @ weights.T`` for a stack of cell vectors (m, G*G) -> (m, K), NaN-aware like
    :func:`combine_cells`."""
    used = (weights != 0).astype(float)
    missing = np.isnan(cells)
    filled = np.where(missing, 0.0, cells)
    out = filled @ weights.T
    out[(missing.astype(float) @ used.T) > 0] = np.nan
    return out


def _contrast_jackknife(result: "XCIResult", weights: np.ndarray) -> np.ndarray | None:
    """Delete-one jackknife values of the contrasts (n, K), when BCa intervals are requested."""
    if not _has_jackknife(result):
        return None
    return combine_cell_rows(weights, result.jackknife.cells)


def readonly(array: np.ndarray, dtype=None) -> np.ndarray:
    """A read-only copy (optionally converted to ``dtype``), for the arrays held by frozen
    results."""
    array = np.array(array, dtype=dtype, copy=True)
    array.flags.writeable = False
    return array


def _readonly_view(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (no copy; the array itself keeps its flags)."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = False
    return view


def json_safe(value: Any) -> Any:
    """Plain Python types, NaN/inf as None, so ``json.dumps`` always works."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_safe(v) for v in value.tolist()]
    return value


class CellMatrixAccessors:
    """Standard errors, intervals and the long format of a G x G matrix result.

    Shared by :class:`XCIResult` and :class:`survfair.XAUCResult`; a subclass provides ``groups``,
    ``pair_counts``, ``counts`` and the inference fields read by :func:`contrast_se` and
    :func:`contrast_interval`, and names its axes with ``_row_name`` / ``_column_name``.
    """

    _row_name = ROW_NAME
    _column_name = COLUMN_NAME

    @property
    def values(self) -> np.ndarray:
        """The matrix as a (G, G) float array: each cell's weighted numerator over its denominator
        (counts first, ratios last); NaN where a cell has no (weighted) pair."""
        with np.errstate(invalid="ignore", divide="ignore"):
            values = self.pair_counts.numerator / self.pair_counts.denominator
        values[self.pair_counts.denominator == 0] = np.nan
        return values

    @property
    def matrix(self) -> pd.DataFrame:
        """The matrix as a DataFrame, rows and columns labelled by group (see the class docstring
        for what rows and columns mean)."""
        return self._frame(self.values)

    # -- uncertainty --------------------------------------------------------------------------
    @property
    def se(self) -> pd.DataFrame:
        """Standard errors aligned with :attr:`matrix` (NaN when no inference was requested)."""
        return self._frame(cell_se(self).reshape(self.values.shape))

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Lower and upper interval limits aligned with :attr:`matrix` (NaN without inference), as a
        :class:`~survfair.ConfidenceInterval` of two G x G DataFrames (``low, high = ...`` unpacks
        it, as the tuple it was).

        Wald intervals on the logit scale from :attr:`covariance` (``ci_method="analytic"``;
        they stay inside (0, 1)) or BCa / percentile
        intervals of :attr:`replicates` (``ci_method="bootstrap"``, see :attr:`bootstrap_method`).
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = cell_interval(self, level)
        shape = self.values.shape
        return ConfidenceInterval(self._frame(low.reshape(shape)), self._frame(high.reshape(shape)))

    @property
    def ci_low(self) -> pd.DataFrame:
        return self.confidence_interval()[0]

    @property
    def ci_high(self) -> pd.DataFrame:
        return self.confidence_interval()[1]

    # -- export -------------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Long format: :attr:`counts` plus se, ci_low, ci_high per cell, and small_sample: the
        cell rests on little data, has standard error 0 or an interval that may be too narrow
        (:func:`survfair.small_sample_flags` with its defaults, which gives the reasons)."""
        frame = self.counts
        low, high = self.confidence_interval()
        frame["se"] = self.se.to_numpy().ravel()
        frame["ci_low"] = low.to_numpy().ravel()
        frame["ci_high"] = high.to_numpy().ravel()
        frame["small_sample"] = self._small_sample
        return frame

    @FrozenCachedProperty
    def _cell_se(self) -> np.ndarray:
        """(G*G,) standard errors of the cells, computed once per result (:func:`cell_se`)."""
        return _computed_cell_se(self)

    @FrozenCachedProperty
    def _small_sample(self) -> np.ndarray:
        """(G*G,) bool, row-major: the cells :func:`small_sample_rules` flags with its defaults.
        Computed once per result: every difference's Estimate reads it (a loop over the pairs of
        many groups would otherwise recompute all G^2 flags per pair)."""
        return small_sample_rules(self)["flagged"]

    def _frame(self, values: np.ndarray) -> pd.DataFrame:
        index = pd.Index(list(self.groups), name=self._row_name, tupleize_cols=False)
        columns = pd.Index(list(self.groups), name=self._column_name, tupleize_cols=False)
        return pd.DataFrame(np.array(values, dtype=float), index=index, columns=columns)


@frozen_result
class BootstrapDraws:
    """Bootstrap replicates of the matrix and of the pooled C.

    Attributes
    ----------
    cells : ndarray of shape (n_resamples, G, G)
        Replicates of the matrix; NaN for a cell without a weighted comparable pair in that
        replicate, and for every cell of a failed replicate.
    overall : ndarray of shape (n_resamples,)
        Replicates of the pooled C.
    n_failed : int
        Replicates in which no estimate could be formed (no comparable pair, or a censoring
        survival of 0 used as a weight); all their cells are NaN.
    n_undefined : ndarray of shape (G, G)
        Per cell, the replicates in which that cell is NaN (failed replicates included).
    stratify : str or None
    seed_entropy : int
        Entropy of the root SeedSequence (reproduces the replicates).

    See Also
    --------
    xci : makes them with ``ci="bootstrap"``.
    Jackknife : the delete-one estimates of BCa intervals.
    """

    cells: np.ndarray = field(repr=False)
    overall: np.ndarray = field(repr=False)
    n_failed: int
    n_undefined: np.ndarray = field(repr=False)
    stratify: str | None
    seed_entropy: int

    def __post_init__(self):
        for name in ("cells", "overall", "n_undefined"):
            object.__setattr__(self, name, readonly(getattr(self, name)))


@frozen_result
class Jackknife:
    """Delete-one estimates, for the acceleration of BCa intervals (censoring weights held fixed).

    Attributes
    ----------
    cells : ndarray of shape (n_samples, G*G)
        Row k: every cell (row-major) without individual k; NaN where k's removal leaves a cell
        without a weighted pair.
    overall : ndarray of shape (n_samples,)
        The pooled C without individual k.

    See Also
    --------
    BootstrapDraws : the replicates whose BCa intervals need it.
    """

    cells: np.ndarray = field(repr=False)
    overall: np.ndarray = field(repr=False)

    def __post_init__(self):
        object.__setattr__(self, "cells", readonly(self.cells))
        object.__setattr__(self, "overall", readonly(self.overall))


@frozen_result
class XCIResult(CellMatrixAccessors):
    """Result of :func:`survfair.xci`: the G x G xCI matrix, its pair counts and settings.

    Rows ``a`` are the group of the member with the EARLIER event, columns ``b`` the group of the
    member who outlived it: ``matrix.loc[a, b]`` estimates
    P(R_i > R_j | T_i < T_j, G_i = a, G_j = b) (eq. 2 of Wang et al. 2026). Every pandas accessor
    returns a fresh copy; the stored arrays are read-only, so a result cannot change after it is
    made.

    Attributes
    ----------
    groups : tuple
        Group labels in matrix order.
    settings : EstimatorSettings
        How the matrix was estimated; also readable as ``method`` ({"naive", "ipcw"}: eq. 4 or
        eq. 7), ``tau`` (truncation time of either estimator, or None), ``censoring``
        ({"group", "pooled"}, None for the naive estimator), ``tied_tol`` and ``strict`` (the
        paper's literal eqs. 3-4).
    n_samples : int
        Rows analysed.
    n_excluded : int
        Rows not analysed because their group was not in ``groups=``.
    pair_counts : PairCounts
        Raw per-cell counts (read-only arrays of shape (G, G)).
    censoring_curves : CensoringCurves or None
        The fitted K_g (IPCW only).
    min_censoring_survival : dict
        Smallest K_g used as a weight, per group (IPCW only; empty for naive).
    group_sizes : dict
        Per group: ``{"n": ..., "events": ...}`` (events of the cause of interest), plus
        ``"competing_events"`` under competing risks.
    influence : Influence or None
        Per-individual influence functions of every cell and of the pooled C
        (``ci="analytic"``); standard errors and contrasts are read from them.
    confidence_level : float
        Level of the intervals reported by the result and its summaries.
    ci_method : str or None
        How the intervals were obtained ("analytic", "bootstrap"), or None.
    bootstrap : BootstrapDraws or None
        Bootstrap replicates of the matrix and of the pooled C (``ci="bootstrap"``); the
        matrix replicates are also :attr:`replicates`, of shape (n_resamples, G, G).
    jackknife : Jackknife or None
        Delete-one estimates for the BCa acceleration (``bootstrap_method="bca"``).
    bootstrap_method : {"bca", "percentile"} or None
        Interval of the bootstrap replicates (None without bootstrap).
    sample : SurvivalSample or None
        The validated rows the matrix was estimated on (a paired comparison checks and re-uses
        them, :func:`survfair.compare_xci`).
    refit_censoring : bool
        Whether the censoring curves were fitted on :attr:`sample` (True) or on a separate
        ``censoring_reference`` (False, the weights are then fixed in the inference).
    censoring_model : CoxCensoringModel or None
        The fitted Cox model of the censoring hazard (``censoring="cox"``): coefficients,
        baseline cumulative hazard per group, covariate names; None otherwise.

    See Also
    --------
    xci : computes it.
    overall_c, delta_between, delta_within, min_xci, pairwise_deltas : its summaries.
    findings : its numbers in sentences.
    compare_xci : a paired comparison of two of them.
    """

    groups: tuple
    settings: EstimatorSettings
    n_samples: int
    n_excluded: int
    pair_counts: PairCounts = field(repr=False)
    censoring_curves: CensoringCurves | None = field(repr=False, default=None)
    min_censoring_survival: dict = field(repr=False, default_factory=dict)
    group_sizes: dict = field(repr=False, default_factory=dict)
    influence: Any = field(repr=False, default=None)
    confidence_level: float = 0.95
    ci_method: str | None = None
    bootstrap: BootstrapDraws | None = field(repr=False, default=None)
    jackknife: Jackknife | None = field(repr=False, default=None)
    bootstrap_method: str | None = None
    sample: SurvivalSample | None = field(repr=False, default=None)
    refit_censoring: bool = True
    censoring_model: Any = field(repr=False, default=None)
    #: what the analysed rows carried when the result keeps no ``sample`` (a Dask DataFrame):
    #: ``weighted``, ``n_clusters``; read by :attr:`weighted`, :attr:`n_clusters`
    rows_without_sample: dict = field(repr=False, default_factory=dict)

    def __post_init__(self):
        counts = PairCounts(
            *(readonly(getattr(self.pair_counts, f)) for f in PairCounts.__dataclass_fields__)
        )
        object.__setattr__(self, "pair_counts", counts)
        if self.sample is not None:
            # read-only views, not copies: at registry scale (10^8 rows) a copy of the validated
            # arrays would cost gigabytes; nothing can be written through the result, but an
            # array that is the caller's own still follows the caller's later changes
            arrays = {
                f.name: _readonly_view(getattr(self.sample, f.name))
                for f in dataclasses.fields(self.sample)
                if isinstance(getattr(self.sample, f.name), np.ndarray)
            }
            views = dataclasses.replace(self.sample, **arrays)
            # the checksum of the data as validated, not as they are now: a copy or pickle of a
            # result whose inputs were modified since must still be refused
            # (SurvivalSample.check_unchanged)
            object.__setattr__(views, "fingerprint", self.sample.fingerprint)
            object.__setattr__(self, "sample", views)

    # -- settings -----------------------------------------------------------------------------
    @property
    def method(self) -> str:
        return self.settings.method

    @property
    def tau(self) -> float | None:
        return self.settings.tau

    @property
    def censoring(self) -> str | None:
        """How the censoring survival was estimated; None for the naive estimator."""
        return self.settings.censoring if self.settings.method == "ipcw" else None

    @property
    def tied_tol(self) -> float:
        return self.settings.tied_tol

    @property
    def strict(self) -> bool:
        return self.settings.strict

    @property
    def replicates(self) -> np.ndarray | None:
        """Bootstrap replicates of the matrix, shape (n_resamples, G, G), or None."""
        return None if self.bootstrap is None else self.bootstrap.cells

    @property
    def covariance(self) -> np.ndarray | None:
        """Covariance of the cells in row-major order (a, b), shape (G*G, G*G), with analytic
        inference (None otherwise). Built on first access from the influence functions; standard
        errors and contrasts never need it. Raises :class:`survfair.MemoryLimitError` when it
        would not fit in memory (many groups)."""
        return None if self.influence is None else self.influence.covariance

    # -- values (``values`` and ``matrix`` come from CellMatrixAccessors) ----------------------
    @property
    def n_clusters(self) -> int | None:
        """Clusters of the analysed rows (``xci(cluster=)``), None when rows are independent."""
        if self.sample is None:
            return self.rows_without_sample.get("n_clusters")
        return self.sample.n_clusters

    @property
    def weighted(self) -> bool:
        """Whether case weights were given (``xci(weights=)``)."""
        if self.sample is None:
            return bool(self.rows_without_sample.get("weighted", False))
        return self.sample.weights is not None

    @property
    def delayed_entry(self) -> bool:
        """Whether entry times were given (``xci(entry=)``, left truncation)."""
        return self.sample is not None and self.sample.entry is not None

    @property
    def cause(self) -> int | None:
        """The cause of interest under competing risks (``xci(cause=)``), None otherwise."""
        return None if self.sample is None else self.sample.cause

    @FrozenCachedProperty
    def censoring_dependence(self) -> CensoringDependence | None:
        """Whether censoring depends on the risk within each group (IPCW only; None otherwise):
        :func:`survfair.censoring_dependence` of the analysed rows, with the result's case weights,
        entry times, clusters and causes, at its confidence level. Computed on first access and
        kept (one lifelines Cox fit per group, about 3 s per 10^5 rows of a group: far more than
        :func:`survfair.xci` itself at scale)."""
        if self.method != "ipcw" or self.sample is None or self.sample.risk is None:
            return None
        self.sample.check_unchanged("the result")
        return censoring_dependence_of_sample(self.sample, confidence_level=self.confidence_level)

    @property
    def overall(self) -> float:
        """Pooled concordance over all comparable pairs (Harrell's C, or Uno's C for IPCW; the
        cause-specific C of Wolbers et al. 2014 under competing risks)."""
        denominator = self.pair_counts.denominator.sum()
        return (
            float(self.pair_counts.numerator.sum() / denominator) if denominator > 0 else math.nan
        )

    @property
    def counts(self) -> pd.DataFrame:
        """Tidy pair counts, one row per ordered group pair (a, b).

        Columns: a, b, comparable, concordant, discordant, tied_risk, tied_time, numerator,
        denominator, xci. Counts are over all comparable pairs; with ``tau`` (either estimator),
        pairs whose earlier member has time >= tau are counted but weigh 0 (as in scikit-survival).
        ``tied_time`` counts scikit-survival's ties in time: comparable pairs of an event and a
        censoring at the same time (the censored member counts as later). R's
        ``survival::concordance`` reports under ``tied.y`` the event-event ties instead, which
        are not comparable pairs here; the two counts measure different things.
        """
        c = self.pair_counts
        a, b = np.meshgrid(np.arange(len(self.groups)), np.arange(len(self.groups)), indexing="ij")
        labels = label_array(self.groups)
        return pd.DataFrame(
            {
                "a": labels[a.ravel()],
                "b": labels[b.ravel()],
                "comparable": c.comparable.ravel(),
                "concordant": c.concordant.ravel(),
                "discordant": c.discordant.ravel(),
                "tied_risk": c.tied_risk.ravel(),
                "tied_time": c.tied_time.ravel(),
                "numerator": c.numerator.ravel(),
                "denominator": c.denominator.ravel(),
                "xci": self.values.ravel(),
            }
        )

    def to_dict(self, *, cells: bool = True) -> dict:
        """JSON-safe dictionary of the settings, the cells and the pooled C.

        Parameters
        ----------
        cells : bool, default=True
            Whether to list the cells: one dictionary per cell, the rows of :meth:`to_frame` with
            the group labels as text. False leaves ``"cells"`` None, for a summary of many groups
            without G^2 dictionaries (4 million at 2,000 groups, more memory than the result):
            the cells are then read from :meth:`to_frame` (``survfair audit --format json``
            writes them from it row by row).

        Returns
        -------
        dict
            The settings (method, tau, censoring, ...), ``groups`` as text, ``overall`` (the
            pooled C), ``cells``, ``min_censoring_survival`` per group, and ``censoring_model``:
            the Cox censoring model's ``CoxCensoringModel.to_dict()`` (``censoring="cox"``:
            covariates, coefficients, centre, strata) or None.

        Examples
        --------
        >>> import survfair
        >>> res = survfair.xci([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 0],
        ...                    [0, 1, 0, 1, 0, 1, 0, 1], [8, 3, 6, 5, 4, 7, 2, 1], method="naive")
        >>> full = res.to_dict()
        >>> len(full["cells"]), full["cells"][1]["a"], full["cells"][1]["b"]
        (4, '0', '1')
        >>> res.to_dict(cells=False) == {**full, "cells": None}
        True
        """
        records = None
        if cells:
            records = labels_as_text(self.to_frame()).to_dict(orient="records")
        return json_safe(
            {
                "method": self.method,
                "tau": self.tau,
                "censoring": self.censoring,
                "tied_tol": self.tied_tol,
                "strict": self.strict,
                "n_samples": self.n_samples,
                "n_excluded": self.n_excluded,
                "n_clusters": self.n_clusters,
                "weighted": self.weighted,
                "delayed_entry": self.delayed_entry,
                "cause": self.cause,
                "groups": [str(g) for g in self.groups],
                "overall": self.overall,
                "confidence_level": self.confidence_level,
                "ci_method": self.ci_method,
                "cells": records,
                "min_censoring_survival": {
                    str(k): v for k, v in self.min_censoring_survival.items()
                },
                "censoring_model": (
                    None if self.censoring_model is None else self.censoring_model.to_dict()
                ),
            }
        )

    def _repr_html_(self) -> str | None:
        """Jupyter display: the matrix with intervals, flags and the findings."""
        return html_of(self)

    def __repr__(self) -> str:
        settings = f"method={self.method!r}"
        if self.method == "ipcw":
            settings += f", tau={self.tau!r}, censoring={self.censoring!r}"
        elif self.tau is not None:  # the naive estimator truncates at tau too
            settings += f", tau={self.tau!r}"
        if self.cause is not None:
            settings += f", cause={self.cause!r}"
        with pd.option_context("display.precision", 4, "display.width", 120):
            body = str(self.matrix)
        return (
            f"XCIResult({settings}, n_samples={self.n_samples}, groups={list(self.groups)})\n"
            f"{body}\noverall C = {self.overall:.4f}"
        )
