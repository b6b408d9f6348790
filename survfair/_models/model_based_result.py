"""The frozen result of :func:`survfair.model_based_xci` / :func:`survfair.model_based_xauc`: the
observed matrix, the model-based reference, and their difference (the excess asymmetry)."""

from __future__ import annotations

import warnings
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._core.deprecation import DEPRECATED, renamed
from .._core.display import html_of
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.groups import label_array
from .._core.intervals import (
    ConfidenceInterval,
    bounded_wald_interval,
    cell_wald_interval,
    wald_p_value,
)
from .._core.options import check_confidence_level, check_option
from .._core.results import COLUMN_NAME, ROW_NAME, json_safe
from .model_based_rows import PairedRows

__all__ = ["ModelBasedResult", "excess_delta_between", "excess_delta_within"]

#: What ``confidence_interval(of=...)`` and the SEs can be asked about.
_QUANTITIES = ("excess", "model_based", "observed")


def _coefficients(method: str, coefficients, weights) -> np.ndarray:
    """The contrasts' coefficients given to ``method`` (by their old name ``weights``, with a
    warning), as a (K, G*G) array."""
    coefficients = renamed(
        f"ModelBasedResult.{method}",
        "weights",
        "coefficients",
        weights,
        coefficients,
        missing="its coefficients: a (K, G*G) array",
        stacklevel=4,
    )
    return np.atleast_2d(np.asarray(coefficients, dtype=float))


#: The leading columns of :meth:`ModelBasedResult.summaries` (every pair's observed, model-based
#: and excess value, the excess's interval and p-value), what the report and the CLI show of it.
SUMMARY_COLUMNS = (
    "summary",
    "a",
    "b",
    "observed",
    "model_based",
    "excess",
    "se",
    "ci_low",
    "ci_high",
    "p_value",
)


@frozen_result
class ModelBasedResult:
    """Observed xCI (or xAUC), the model-based reference and the excess, per cell, with inference.

    Returned by :func:`survfair.model_based_xci` and :func:`survfair.model_based_xauc`. Rows ``a``
    are the group of the member with the earlier event (the positive's group for xAUC), columns
    ``b`` the group of the later member (the negative's group), as in :class:`XCIResult`.

    Attributes
    ----------
    groups : tuple
        Group labels in matrix order.
    observed : XCIResult or XAUCResult
        The observed matrix of the same rows and settings.
    numerator, denominator : ndarray of shape (G, G)
        The model-based pair sums, sum h(r_i, r_j) pi_ij and sum pi_ij over i in a, j in b, j != i.
    reference : str
        How pi was obtained: ``"survival_curves"`` (curves on a grid), ``"proportional_hazards"``
        (Gönen-Heller closed form), ``"proportional_hazards_monte_carlo"`` or ``"binary"``.
    tau : float or None
        Truncation time of the reference (None for a binary outcome).
    confidence_level : float
        Level of the intervals reported by default.
    influence : ndarray of shape (n_rows, G*G) or None
        Influence rows of the model-based cells (rows = individuals, or clusters with ``cluster=``),
        scaled so that ``influence.T @ influence`` is their covariance; NaN columns for undefined
        cells. Made on first access: the result keeps the rows compact (2G numbers a row) when the
        observed xCI's are, and its standard errors never read these.
    observed_influence : ndarray of shape (n_rows, G*G) or None
        The observed cells' influence rows of the same individuals (or clusters), made likewise.
    monte_carlo_se : ndarray of shape (G, G) or None
        Monte-Carlo standard error of the model-based cells
        (``"proportional_hazards_monte_carlo"``), added in quadrature to every standard error.
    n_draws : int or None
        Monte-Carlo draws used.
    replicates : ndarray of shape (n_resamples, 2, G, G) or None
        Stratified bootstrap replicates of (observed, model-based) (``ci="bootstrap"``).
    ci_method : {"analytic", "bootstrap"} or None
    reference_agreement : ndarray of shape (G, G) or None
        Per cell (a, b), the share of pairs (i in a, j in b) that the score orders as the
        reference's predicted risk at tau orders them (i at higher predicted risk), among the pairs
        tied in neither: 1.0 when the score is the ranking of the predictions (the model's own
        reference). :func:`survfair.model_based_xci` refuses a reference below 0.75 in a cell;
        below 0.9 (:attr:`reference_consistent` False) the findings do not attribute the
        asymmetry to the groups' risks.

    See Also
    --------
    model_based_xci, model_based_xauc : compute it.
    excess_delta_between, excess_delta_within : one excess disparity as an :class:`Estimate`.
    """

    groups: tuple
    observed: Any = field(repr=False)
    numerator: np.ndarray = field(repr=False)
    denominator: np.ndarray = field(repr=False)
    reference: str
    tau: float | None
    confidence_level: float = 0.95
    #: the observed and model-based influence rows (compact when the observed xCI's are), or None
    _rows: PairedRows | None = field(repr=False, default=None)
    monte_carlo_se: np.ndarray | None = field(repr=False, default=None)
    n_draws: int | None = None
    replicates: np.ndarray | None = field(repr=False, default=None)
    ci_method: str | None = None
    reference_agreement: np.ndarray | None = field(repr=False, default=None)

    @property
    def reference_consistent(self) -> bool | None:
        """Whether the score ranks people as the reference's predictions do: every defined cell of
        :attr:`reference_agreement` is at least 0.9. Only then does the excess separate what the
        groups' risks imply from what the model adds; the findings never read "no excess" on a
        reference that is not. None when the agreement was not measured."""
        from .model_based_checks import CONSISTENT_AGREEMENT

        if self.reference_agreement is None:
            return None
        agreement = np.asarray(self.reference_agreement, dtype=float)
        defined = agreement[np.isfinite(agreement)]
        return bool((defined >= CONSISTENT_AGREEMENT).all())

    # -- values -----------------------------------------------------------------------------
    @property
    def model_based_values(self) -> np.ndarray:
        """The model-based matrix as a (G, G) array (NaN where no pair has weight)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(
                self.denominator > 0,
                self.numerator / np.where(self.denominator > 0, self.denominator, 1.0),
                np.nan,
            )

    @property
    def excess_values(self) -> np.ndarray:
        """Observed minus model-based, (G, G)."""
        return self.observed.values - self.model_based_values

    @property
    def model_based(self) -> pd.DataFrame:
        """The model-based matrix xCI*_ab (labelled like ``observed.matrix``)."""
        return self._frame(self.model_based_values)

    @property
    def excess(self) -> pd.DataFrame:
        """The excess matrix, observed - model-based."""
        return self._frame(self.excess_values)

    # -- inference ------------------------------------------------------------------------------
    def _values_of(self, of: str) -> np.ndarray:
        return {
            "excess": self.excess_values,
            "model_based": self.model_based_values,
            "observed": self.observed.values,
        }[of]

    @property
    def influence(self) -> np.ndarray | None:
        """The model-based cells' influence rows, dense (see the class's Attributes)."""
        return None if self._rows is None else self._rows.model_based_cells

    @property
    def observed_influence(self) -> np.ndarray | None:
        """The observed cells' influence rows, dense (see the class's Attributes)."""
        return None if self._rows is None else self._rows.observed_cells

    @property
    def _has_rows(self) -> bool:
        return self._rows is not None

    def _draws_of(self, of: str) -> np.ndarray | None:
        if self.replicates is None:
            return None
        obs, mb = self.replicates[:, 0], self.replicates[:, 1]
        return {"excess": obs - mb, "model_based": mb, "observed": obs}[of].reshape(
            len(self.replicates), -1
        )

    def contrast_inference(
        self,
        coefficients: np.ndarray | None = None,
        of: str = "excess",
        *,
        weights: Any = DEPRECATED,
    ) -> tuple:
        """Value, SE (K,) of contrasts ``coefficients @ vec(matrix)`` of the excess, model-based or
        observed cells (coefficients of shape (K, G*G); ``weights`` is their deprecated name,
        removed in 0.3). The analytic SE is sqrt(sum_k (phi_k . w)^2) over the same individuals'
        rows (observed minus model-based for the excess), plus the Monte-Carlo variance of the
        reference (cells taken as independent); with bootstrap replicates, their SD."""
        weights = _coefficients("contrast_inference", coefficients, weights)
        of = check_option(of, "of", _QUANTITIES)
        cells = self._values_of(of).ravel()
        used = weights != 0
        with np.errstate(invalid="ignore"):
            values = np.where(used, weights * np.where(np.isnan(cells), 0.0, cells), 0.0).sum(
                axis=1
            )
        undefined = (used & np.isnan(cells)[None, :]).any(axis=1)
        values[undefined] = np.nan
        draws = self._draws_of(of)
        if draws is not None:
            contrasts = np.where(np.isnan(draws), 0.0, draws) @ weights.T
            contrasts[(np.isnan(draws).astype(float) @ used.T.astype(float)) > 0] = np.nan
            se = np.nanstd(contrasts, axis=0, ddof=1)
        elif self._has_rows:
            variance = self._rows.variance(of, weights)
            if self.monte_carlo_se is not None and of != "observed":
                mc = np.where(
                    np.isnan(self.monte_carlo_se.ravel()), 0.0, self.monte_carlo_se.ravel()
                )
                variance = variance + (weights**2) @ mc**2
            se = np.sqrt(variance)
        else:
            se = np.full(weights.shape[0], np.nan)
        se = np.where(undefined, np.nan, se)
        return values, se

    def _contrast_interval(self, weights: np.ndarray, of: str, level: float):
        values, se = self.contrast_inference(weights, of)
        draws = self._draws_of(of)
        low_bound = np.where(weights < 0, weights, 0).sum(axis=1)
        high_bound = np.where(weights > 0, weights, 0).sum(axis=1)
        if of == "excess":  # a difference of two contrasts of probabilities
            low_bound, high_bound = low_bound - high_bound, high_bound - low_bound
        if draws is not None:
            contrasts = np.where(np.isnan(draws), 0.0, draws) @ weights.T
            # a replicate in which a cell the contrast uses is undefined has no value of it (as in
            # contrast_inference): set to 0 it would pull the interval and the p-value towards 0
            contrasts[(np.isnan(draws).astype(float) @ (weights != 0).T.astype(float)) > 0] = np.nan
            alpha = (1 - level) / 2
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore", RuntimeWarning
                )  # a contrast undefined in every replicate: NaN
                low = np.nanquantile(contrasts, alpha, axis=0)
                high = np.nanquantile(contrasts, 1 - alpha, axis=0)
            # percentile p-value of H0: 0 (twice the smaller tail share of the replicates that have
            # it)
            finite = np.isfinite(contrasts)
            counted = finite.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(finite, contrasts <= 0, False).sum(axis=0) / counted
                p = np.clip(2 * np.minimum(share, 1 - share), 1 / (counted + 1), 1.0)
            p = np.where(counted > 0, p, np.nan)
            # the contrast of a group with itself is 0 in every replicate: its interval [0, 0]
            # holds 0 at every level, p = 1 (as an XCIResult's bootstrap p-value)
            p = np.where((weights != 0).any(axis=1), p, 1.0)
            return values, se, low, high, np.where(np.isnan(values), np.nan, p)
        if of == "excess" and self._has_rows:
            # Student t with Satterthwaite's degrees of freedom of the sum of squares (see
            # effective_df)
            df = self.effective_df(weights)
            quantile = stats.t.ppf(0.5 + level / 2, np.where(np.isfinite(df), df, 1e12))
            with np.errstate(invalid="ignore"):
                low = np.clip(values - quantile * se, low_bound, high_bound)
                high = np.clip(values + quantile * se, low_bound, high_bound)
                p = 2 * stats.t.sf(np.abs(values) / se, np.where(np.isfinite(df), df, 1e12))
            p = np.where(se > 0, p, np.where(values == 0, 1.0, 0.0))
            # the contrast of a group with itself (value 0, SE 0): no test, p NaN (as the Wald
            # p-value of an XCIResult, survfair._core.intervals.wald_p_value)
            p = np.where((weights != 0).any(axis=1), p, np.nan)
            return values, se, low, high, np.where(np.isnan(values) | np.isnan(se), np.nan, p)
        if (
            of != "excess"
            and ((weights != 0).sum(axis=1) == 1).all()
            and np.allclose(weights.sum(axis=1), 1.0)
        ):
            low, high = cell_wald_interval(
                values, se, level
            )  # single cells: logit scale, inside (0, 1)
        else:
            low, high = bounded_wald_interval(values, se, level, low_bound, high_bound)
        return values, se, low, high, wald_p_value(values, se, 0.0)

    def effective_df(
        self, coefficients: np.ndarray | None = None, *, weights: Any = DEPRECATED
    ) -> np.ndarray:
        """Satterthwaite degrees of freedom of the analytic variance of excess contrasts, (K,)
        (``coefficients`` of shape (K, G*G); ``weights`` is their deprecated name, removed in 0.3).

        The variance is a sum of squares over individuals (or clusters), V = sum_k d_k^2 with
        d_k = (phi_obs,k - phi_mb,k) . w; a few large d_k (long survivors with large censoring
        weights, early deaths of a low-risk group) make V noisy. Matching V to a scaled chi-square
        gives nu = 2 V^2 / (sum_k d_k^4 - V^2 / n); intervals and p-values of the excess use
        Student's t with nu degrees of freedom (inf without influence rows). In a design with very
        different baselines (n = 500) this raised the coverage of the 95% interval
        from 0.915 to 0.938 (median nu = 11).
        """
        weights = _coefficients("effective_df", coefficients, weights)
        if not self._has_rows:
            return np.full(weights.shape[0], np.inf)
        v, spread = self._rows.variance_and_spread(weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(spread > 0, 2 * v**2 / np.where(spread > 0, spread, 1.0), np.inf)

    def _cell_weights(self) -> np.ndarray:
        return np.eye(len(self.groups) ** 2)

    def se(self, of: str = "excess") -> pd.DataFrame:
        """Standard errors of the ``of`` matrix ("excess", "model_based" or "observed"), aligned
        with it.

        Raises
        ------
        ValueError
            If ``of`` is not one of the three matrices.
        """
        return self._frame(
            self.contrast_inference(self._cell_weights(), of)[1].reshape(self._shape)
        )

    def confidence_interval(
        self, confidence_level: float | None = None, *, of: str = "excess"
    ) -> ConfidenceInterval:
        """Lower and upper limits of every cell of the ``of`` matrix, aligned with it: a
        :class:`~survfair.ConfidenceInterval` of two G x G DataFrames (``low, high = ...`` unpacks
        it).

        Analytic: for the excess, value -/+ t_nu SE with Satterthwaite's nu (:meth:`effective_df`),
        clipped to [-1, 1]; Wald on the logit scale for the model-based and observed cells;
        ``ci="bootstrap"``: percentile intervals of the joint replicates. NaN without inference.

        Raises
        ------
        ValueError
            If ``confidence_level`` is not in (0, 1) or ``of`` is not one of the three matrices.
        """
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        _, _, low, high, _ = self._contrast_interval(
            self._cell_weights(), check_option(of, "of", _QUANTITIES), level
        )
        return ConfidenceInterval(
            self._frame(low.reshape(self._shape)), self._frame(high.reshape(self._shape))
        )

    # -- summaries ------------------------------------------------------------------------------
    def _pair_weights(self, kind: str, a: int, b: int) -> np.ndarray:
        g = len(self.groups)
        w = np.zeros(g * g)
        plus, minus = (a * g + b, b * g + a) if kind == "delta_between" else (a * g + a, b * g + b)
        w[plus] += 1.0
        w[minus] -= 1.0  # a == b: the same cell, coefficient 0, so the difference is exactly 0
        return w

    def estimate(self, kind: str, a: Any, b: Any, confidence_level: float | None = None):
        """The excess Δbetween or Δwithin of (a, b) as an :class:`Estimate` (H0: excess = 0).

        Parameters
        ----------
        kind : {"delta_between", "delta_within"}
        a, b : hashable
            Group labels of the result.
        confidence_level : float, optional
            Defaults to :attr:`confidence_level`.

        Returns
        -------
        Estimate
            See :func:`excess_delta_between`.

        Raises
        ------
        ValueError
            For an unknown ``kind``, a label that is not a group, or a level outside (0, 1).
        """
        from .._xci.summaries import Estimate

        kind = check_option(kind, "summary", ("delta_between", "delta_within"))
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        w = self._pair_weights(kind, self._code(a, "a"), self._code(b, "b"))[None, :]
        values, se, low, high, p = self._contrast_interval(w, "excess", level)
        return Estimate(
            float(values[0]),
            float(se[0]),
            ConfidenceInterval(float(low[0]), float(high[0])),
            float(p[0]),
            0.0,
            level,
        )

    def summaries(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One tidy table of the disparities for every pair of groups (each unordered pair once).

        Columns: summary ("delta_between", "delta_within"), a, b (a before b in group order),
        observed, model_based, excess (observed - model-based), se, ci_low, ci_high and p_value
        (all of the excess; H0: excess = 0), observed_se, model_based_se.
        """
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        g = len(self.groups)
        keys, weights = [], []
        for kind in ("delta_between", "delta_within"):
            for a in range(g):
                for b in range(a + 1, g):
                    keys.append((kind, a, b))
                    weights.append(self._pair_weights(kind, a, b))
        labels = label_array(self.groups)
        columns = [*SUMMARY_COLUMNS, "observed_se", "model_based_se"]
        if not keys:
            return pd.DataFrame(columns=columns)
        w = np.array(weights)
        excess, se, low, high, p = self._contrast_interval(w, "excess", level)
        observed, observed_se = self.contrast_inference(w, "observed")
        model_based, model_based_se = self.contrast_inference(w, "model_based")
        return pd.DataFrame(
            {
                "summary": [k[0] for k in keys],
                "a": labels[[k[1] for k in keys]],
                "b": labels[[k[2] for k in keys]],
                "observed": observed,
                "model_based": model_based,
                "excess": excess,
                "se": se,
                "ci_low": low,
                "ci_high": high,
                "p_value": p,
                "observed_se": observed_se,
                "model_based_se": model_based_se,
            },
            columns=columns,
        )

    # -- export ---------------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Long format, one row per cell (a, b): observed, observed_se, model_based, model_based_se,
        excess, excess_se, ci_low, ci_high, p_value (of the excess), monte_carlo_se,
        reference_agreement (see the attribute)."""
        g = len(self.groups)
        a, b = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
        labels = label_array(self.groups)
        w = self._cell_weights()
        excess, excess_se, low, high, p = self._contrast_interval(
            w, "excess", self.confidence_level
        )
        mc = (
            self.monte_carlo_se.ravel()
            if self.monte_carlo_se is not None
            else np.full(g * g, np.nan)
        )
        return pd.DataFrame(
            {
                "a": labels[a.ravel()],
                "b": labels[b.ravel()],
                "observed": self.observed.values.ravel(),
                "observed_se": self.contrast_inference(w, "observed")[1],
                "model_based": self.model_based_values.ravel(),
                "model_based_se": self.contrast_inference(w, "model_based")[1],
                "excess": excess,
                "excess_se": excess_se,
                "ci_low": low,
                "ci_high": high,
                "p_value": p,
                "monte_carlo_se": mc,
                "reference_agreement": (
                    np.asarray(self.reference_agreement, dtype=float).ravel()
                    if self.reference_agreement is not None
                    else np.full(g * g, np.nan)
                ),
            }
        )

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: settings, the cells (:meth:`to_frame`) and the summaries."""

        def records(frame):
            return [
                {k: (str(v) if k in ("a", "b") else v) for k, v in row.items()}
                for row in frame.to_dict(orient="records")
            ]

        return json_safe(
            {
                "reference": self.reference,
                "tau": self.tau,
                "groups": [str(g) for g in self.groups],
                "confidence_level": self.confidence_level,
                "ci_method": self.ci_method,
                "n_draws": self.n_draws,
                "reference_consistent": self.reference_consistent,
                "observed": self.observed.to_dict(),
                "cells": records(self.to_frame()),
                "summaries": records(self.summaries()),
            }
        )

    def __repr__(self) -> str:
        tau = "" if self.tau is None else f", tau={self.tau:g}"
        with pd.option_context("display.precision", 4, "display.width", 120):
            parts = [
                f"ModelBasedResult(reference={self.reference!r}{tau}, groups={list(self.groups)})",
                "observed:",
                str(self.observed.matrix),
                "model-based:",
                str(self.model_based),
                "excess (observed - model-based):",
                str(self.excess),
            ]
        return "\n".join(parts)

    # -- helpers -------------------------------------------------------------------------------
    @property
    def _shape(self) -> tuple[int, int]:
        return (len(self.groups), len(self.groups))

    def _code(self, label: Any, name: str = "group") -> int:
        try:
            return self.groups.index(label)
        except ValueError:
            raise InvalidParameterError(
                f"group {label!r} is not in the result (groups: {list(self.groups)}).",
                parameter=name,
            ) from None

    def _frame(self, values: np.ndarray) -> pd.DataFrame:
        index = pd.Index(
            list(self.groups),
            name=getattr(self.observed, "_row_name", ROW_NAME),
            tupleize_cols=False,
        )
        columns = pd.Index(
            list(self.groups),
            name=getattr(self.observed, "_column_name", COLUMN_NAME),
            tupleize_cols=False,
        )
        return pd.DataFrame(np.array(values, dtype=float), index=index, columns=columns)


def excess_delta_between(result: ModelBasedResult, a: Any, b: Any):
    """Excess between-group disparity: observed Δbetween(a, b) minus its model-based value.

    ``(xCI_ab - xCI_ba) - (xCI*_ab - xCI*_ba)``: the part of the asymmetry that the model's own
    predicted distributions do not produce (for xAUC, the excess ΔxAUC).

    Parameters
    ----------
    result : ModelBasedResult
        From :func:`survfair.model_based_xci` or :func:`survfair.model_based_xauc`.
    a, b : hashable
        Group labels of the result.

    Returns
    -------
    Estimate
        Value, standard error (influence rows of the observed minus the model-based cells, the same
        individuals; or the SD of the joint bootstrap replicates), interval (value -/+ t SE with
        Satterthwaite's degrees of freedom, :meth:`ModelBasedResult.effective_df`, clipped to
        [-2, 2]; or percentile) and the two-sided p-value of H0: excess = 0 (Student t, or the
        bootstrap's).

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``a`` or ``b`` is not a group of the result.

    See Also
    --------
    excess_delta_within : the within-group counterpart.
    delta_between : the observed disparity alone.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> group = np.where(rng.random(n) < 0.5, "old", "young")
    >>> lp = rng.normal(size=n)
    >>> scale = np.where(group == "old", 2.0, 20.0)  # very different baseline hazards
    >>> t = scale * rng.exponential(size=n) * np.exp(-lp)
    >>> grid = np.linspace(0.5, 30, 60)
    >>> curves = np.exp(-grid[None, :] / scale[:, None] * np.exp(lp)[:, None])  # the true model
    >>> risk = lp - np.log(scale)  # the true risk: the hazard is exp(lp) / scale
    >>> res = survfair.model_based_xci(t, np.ones(n, bool), group, risk, survival=curves,
    ...                                times=grid, tau=30.0)
    >>> est = survfair.excess_delta_between(res, "old", "young")
    >>> bool(abs(survfair.delta_between(res.observed, "old", "young").value) > 0.2), bool(
    ...     est.p_value > 0.05)
    (True, True)
    """
    return result.estimate("delta_between", a, b)


def excess_delta_within(result: ModelBasedResult, a: Any, b: Any):
    """Excess within-group disparity: observed Δwithin(a, b) minus its model-based value.

    ``(xCI_aa - xCI_bb) - (xCI*_aa - xCI*_bb)``: whether group ``a``'s pairs are ranked better than
    group ``b``'s beyond what the spread of the model's predictions within each group implies.

    Parameters
    ----------
    result : ModelBasedResult
    a, b : hashable
        Group labels of the result.

    Returns
    -------
    Estimate
        As :func:`excess_delta_between`.

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``a`` or ``b`` is not a group of the result.

    See Also
    --------
    excess_delta_between : the cross-group counterpart.
    delta_within : the observed disparity alone.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(1)
    >>> n = 300
    >>> group = np.where(rng.random(n) < 0.5, "a", "b")
    >>> lp = rng.normal(size=n) * np.where(group == "a", 2.0, 0.5)  # wider spread of risk in a
    >>> t = rng.exponential(size=n) * np.exp(-lp)
    >>> res = survfair.model_based_xci(t, np.ones(n, bool), group, lp, linear_predictor=lp,
    ...                                baseline=([0.0, 100.0], [0.0, 100.0]), tau=50.0)
    >>> res.model_based.round(2)  # doctest: +NORMALIZE_WHITESPACE
    b (later)             a     b
    a (earlier event)
    a                  0.82  0.78
    b                  0.78  0.63
    >>> bool(survfair.excess_delta_within(res, "a", "b").p_value > 0.05)
    True
    """
    return result.estimate("delta_within", a, b)
