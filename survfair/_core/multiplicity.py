"""Families of tests: adjusted p-values and omnibus Wald tests of a G x G matrix.

An audit of G groups tests G(G-1)/2 between-group and as many within-group differences at once;
read one by one at 5% each, some will look "significant" by chance. Two remedies, both computed
from the result objects:

* adjusted p-values for each family printed together (Holm's step-down by default, which controls
  the family-wise error rate under any dependence; Benjamini-Hochberg as an option, which controls
  the false discovery rate under independence or positive dependence), computed by statsmodels'
  ``multipletests`` (Holm's by the same operations here: see :func:`adjust_p_values`);
* an omnibus Wald test of one joint hypothesis (no cross-group asymmetry: every Δbetween = 0;
  equal within-group concordance; all cells equal), chi-square with the rank of the contrasts'
  covariance as degrees of freedom.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from .deprecation import DEPRECATED, renamed
from .display import html_of
from .exceptions import InvalidParameterError
from .frozen import frozen_result
from .intervals import NO_VARIANCE_SE, holm_adjusted
from .memory import require_memory
from .options import OptionTable, one_of
from .results import (
    CellMatrixAccessors,
    combine_cells,
    contrast_covariance,
    json_safe,
    no_variance_cells,
)

__all__ = ["OmnibusTest", "omnibus_test", "adjust_p_values", "ADJUSTMENTS", "HYPOTHESES"]

#: p-value adjustments: name -> statsmodels' ``multipletests`` method
ADJUSTMENTS = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni", "none": None}
HYPOTHESES = ("no_asymmetry", "equal_within", "equal_cells")


#: The scalar options of :func:`adjust_p_values`.
_ADJUST_OPTIONS = OptionTable("adjust_p_values", adjust=one_of(*ADJUSTMENTS))


def adjust_p_values(p_values: Any, *, adjust: str = "holm", method: Any = DEPRECATED) -> np.ndarray:
    """Adjusted p-values of one family of tests.

    Parameters
    ----------
    p_values : array-like of float, shape (m,)
        Unadjusted p-values of the family. NaN entries (undefined tests) are kept as NaN and do
        not count towards the family size.
    adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Holm's step-down (family-wise error rate, any dependence), Benjamini-Hochberg (false
        discovery rate), Bonferroni, or no adjustment (the ``adjust`` of :func:`findings` and
        :func:`write_report`).
    method : str, optional
        Deprecated name of ``adjust`` (removed in 0.3; ``method`` names the estimator elsewhere).

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values (each >= its unadjusted p-value, at most 1); reject at level alpha where
        the adjusted p-value is <= alpha.

    Raises
    ------
    InvalidParameterError (a ValueError)
        For an unknown ``adjust`` or p-values outside [0, 1].

    See Also
    --------
    findings : adjusts the p-values of a result's deltas with it.
    omnibus_test : one test of every delta at once, no adjustment needed.

    Notes
    -----
    Computed by ``statsmodels.stats.multitest.multipletests`` (Benjamini & Hochberg 1995, J R Stat
    Soc B 57:289-300; Bonferroni); Holm's step-down (Holm 1979, Scand J Statist 6:65-70) by the
    same operations here, equal to statsmodels' to the last bit, without the full garbage
    collection statsmodels runs on every Holm call.

    Examples
    --------
    >>> from survfair import adjust_p_values
    >>> [round(float(p), 3) for p in adjust_p_values([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    >>> [round(float(p), 3) for p in adjust_p_values([0.01, 0.04, 0.03], adjust="bh")]
    [0.03, 0.04, 0.04]
    """
    method = renamed("adjust_p_values", "method", "adjust", method, adjust, "holm")
    _ADJUST_OPTIONS.check({"adjust": method})  # once the deprecated method= is merged into it
    p = np.atleast_1d(np.asarray(p_values, dtype=float))
    defined = ~np.isnan(p)
    if ((p[defined] < 0) | (p[defined] > 1)).any():
        raise InvalidParameterError(
            "p_values must lie in [0, 1] (NaN for an undefined test).", parameter="p_values"
        )
    out = np.full(p.shape, np.nan)
    if ADJUSTMENTS[method] is None or not defined.any():
        out[defined] = p[defined]
        return out
    if method == "holm":
        out[defined] = holm_adjusted(p[defined])
        return out
    from statsmodels.stats.multitest import multipletests

    out[defined] = multipletests(p[defined], method=ADJUSTMENTS[method])[1]
    return out


@frozen_result
class OmnibusTest:
    """Result of :func:`omnibus_test`: a joint Wald test of several contrasts of the cells.

    Attributes
    ----------
    hypothesis : str
        ``"no_asymmetry"`` (every Δbetween(a, b) = 0), ``"equal_within"`` (all xCI_{a,a} equal) or
        ``"equal_cells"`` (all G^2 cells equal).
    statistic : float
        W = z' R^+ z on the kept directions, with z the standardised contrasts and R their
        correlation matrix (d' V^+ d when nothing is dropped); NaN when no direction is kept.
    df : int
        Degrees of freedom: the rank of V (of the contrasts that are defined).
    p_value : float
        P(chi2_df >= W). NaN without inference or when no contrast is defined.
    n_contrasts : int
        Contrasts tested (those whose cells are all defined).
    n_left_out : int
        Contrasts left out because a cell they use is undefined (NaN).
    n_no_variance : int
        Contrasts left out because a cell they use has standard error 0 (estimated at exactly 0
        or 1, or its members' influence cancels): such a cell has no estimate of its sampling
        variability, and a Wald statistic that divides by it is meaningless (it gave chi-square
        values of 10^33). See :func:`survfair.small_sample_flags`, which flags these cells.
    n_degenerate : int
        Tested contrasts minus ``df``: directions of the contrasts' covariance without first-order
        variance (see :func:`omnibus_test`, Notes).
    source : str
        Where V comes from: ``"analytic"`` (influence functions), ``"delong"`` or ``"bootstrap"``.

    See Also
    --------
    omnibus_test : computes it.
    """

    hypothesis: str
    statistic: float
    df: int
    p_value: float
    n_contrasts: int
    n_left_out: int
    source: str
    n_no_variance: int = 0

    @property
    def n_degenerate(self) -> int:
        return self.n_contrasts - self.df

    def to_dict(self) -> dict:
        """JSON-safe dictionary of the fields."""
        return json_safe(dict(self.__dict__) | {"n_degenerate": self.n_degenerate})

    def to_frame(self) -> pd.DataFrame:
        """One row: the fields and ``n_degenerate`` (NaN kept)."""
        return pd.DataFrame([dict(self.__dict__) | {"n_degenerate": self.n_degenerate}])

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)


def _contrasts(g: int, hypothesis: str, defined: np.ndarray) -> np.ndarray:
    """Rows of weights over the G^2 cells (row-major); only contrasts of defined cells."""
    rows = []
    if hypothesis == "no_asymmetry":
        for a in range(g):
            for b in range(a + 1, g):
                if defined[a, b] and defined[b, a]:
                    w = np.zeros((g, g))
                    w[a, b], w[b, a] = 1.0, -1.0
                    rows.append(w.ravel())
        return np.array(rows).reshape(-1, g * g)
    cells = (
        [(a, a) for a in range(g)]
        if hypothesis == "equal_within"
        else [(a, b) for a in range(g) for b in range(g)]
    )
    cells = [c for c in cells if defined[c]]
    for cell in cells[1:]:
        w = np.zeros((g, g))
        w[cell], w[cells[0]] = 1.0, -1.0
        rows.append(w.ravel())
    return np.array(rows).reshape(-1, g * g)


def _n_contrasts_of(hypothesis: str, defined: np.ndarray) -> int:
    """How many rows :func:`_contrasts` would build over the ``defined`` cells, without building
    them (K x G^2 weights: 8 GB for the 999 within-group contrasts of 1,000 groups)."""
    if hypothesis == "no_asymmetry":
        return int(np.triu(defined & defined.T, k=1).sum())
    cells = np.diag(defined) if hypothesis == "equal_within" else defined.ravel()
    return max(int(cells.sum()) - 1, 0)


def _degenerate_ratio(result: Any, k: int) -> float:
    """Eigenvalues of the contrasts' covariance below this share of the largest are degenerate.

    With groups of sizes n_min..n_max, first-order (Hajek) variance components are at least about
    n_min / n_max of the largest; components that exist only through second-order U-statistic
    terms (e.g. the G(G-1)/2 - (G-1) cyclic directions of the Δbetween contrasts when the groups
    are exchangeable, where Δ_ab ~ m_a - m_b) are about 1 / n_max of it. The threshold is the
    geometric mean of the two, sqrt(n_min) / n_max (never below K machine epsilons)."""
    sizes = [counts["n"] for counts in result.group_sizes.values() if counts["n"] > 0] or [1]
    return max(np.sqrt(min(sizes)) / max(sizes), k * np.finfo(float).eps)


def n_contrasts(g: int, hypothesis: str) -> int:
    return {"no_asymmetry": g * (g - 1) // 2, "equal_within": g - 1, "equal_cells": g * g - 1}[
        hypothesis
    ]


#: The scalar options of :func:`omnibus_test`.
_OMNIBUS_OPTIONS = OptionTable("omnibus_test", hypothesis=one_of(*HYPOTHESES))


def omnibus_test(result: Any, *, hypothesis: str = "no_asymmetry") -> OmnibusTest:
    """Joint Wald test that a family of cell contrasts are all zero.

    Parameters
    ----------
    result : XCIResult or XAUCResult
        A G x G matrix result with inference (``ci="analytic"``, the default of
        :func:`survfair.xci`; the DeLong covariance of :func:`survfair.xauc`; or ``ci="bootstrap"``,
        whose replicates' covariance is used).
    hypothesis : {"no_asymmetry", "equal_within", "equal_cells"}, default="no_asymmetry"
        ``"no_asymmetry"``: Δbetween(a, b) = xCI_{a,b} - xCI_{b,a} = 0 for every pair (the model
        ranks each pair of groups the same way round in both directions); ``"equal_within"``: the
        within-group concordances xCI_{a,a} are all equal; ``"equal_cells"``: all G^2 cells equal.

    Returns
    -------
    OmnibusTest
        Statistic, degrees of freedom and p-value P(chi2_df >= W). With G = 2, ``"no_asymmetry"``
        and analytic (or DeLong) inference this is the square of the Wald z of
        :func:`survfair.delta_between` and the p-values agree; with bootstrap replicates the
        joint test is a Wald test on the replicates' covariance, while the single contrast's
        p-value inverts its bootstrap interval, so the two can differ.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``result`` is not an XCIResult or an XAUCResult (a string, an XAUCtResult, ...).
    InvalidParameterError (a ValueError)
        For an unknown ``hypothesis``.
    MemoryLimitError
        When the contrasts' weights, projections and covariance (about 8 K (G^2 + n + K) bytes
        for K contrasts) would not fit in memory (e.g. the 124,750 asymmetries of 500 groups).

    Notes
    -----
    With bootstrap replicates, the covariance is estimated from the replicates in which every
    tested contrast is defined (replicates that lost all events of a small group are left out);
    with many small groups few replicates remain and the test, like any Wald test on such
    groups, is unreliable -- see :func:`survfair.small_sample_flags`.

    Contrasts that use an undefined cell (no comparable pair) are left out and counted in
    ``n_left_out``; contrasts that use a cell with standard error 0 (every pair of the cell ranked
    the same way, so the cell sits at exactly 0 or 1, or a few members whose influence cancels)
    are left out too and counted in ``n_no_variance``: the Wald statistic would divide by a
    variance that is a rounding residue of 0 (on a 4-person group it reached 10^33), and the
    joint test is then a test of the other contrasts. The degrees of freedom are the number of
    eigen-directions that carry first-order variance: the contrasts are standardised (z = d / sd(d))
    and directions of their correlation matrix with an eigenvalue below sqrt(n_min) / n_max of the
    largest (n_min, n_max the smallest and largest group) are treated as degenerate and dropped;
    ``n_contrasts - df`` says how many (contrasts with zero variance, e.g. of perfectly separated
    groups, count among them). Standardising makes the rule scale-free: a contrast with a small
    variance because its cells lie near 0 or 1 is kept (only cancellation between contrasts is
    degenerate). The reason: when the groups are (nearly) exchangeable, which is what the null
    hypothesis of no asymmetry describes, the G(G-1)/2 Δbetween contrasts span only G - 1 dimensions
    to first order (Δ_ab ~ m_a - m_b), and the remaining eigenvalues are second-order, about 1/n of
    the others. Keeping them made the test conservative (measured size 2.0% at G = 3, n = 300 and 0%
    at G = 6, n = 2,000 instead of 5%); with the rule the size was 4.2-5.2% in balanced and
    unbalanced designs (500 cohorts each). Dropping a direction never inflates the size (the
    statistic is chi-square on the kept directions); it only gives up power against asymmetries that
    lie entirely in a dropped direction. The size is checked by simulation in the test suite
    (``tests/test_multiplicity.py``, marked slow).

    See Also
    --------
    adjust_p_values : adjusted p-values of the individual contrasts.
    survfair.pairwise_deltas : every Δwithin and Δbetween with adjusted p-values.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> n = 600
    >>> group = rng.choice(["a", "b", "c"], n)
    >>> risk = rng.normal(size=n)
    >>> time = rng.exponential(np.exp(-risk))
    >>> test = survfair.omnibus_test(survfair.xci(time, np.ones(n, bool), group, risk,
    ...                                           method="naive"))
    >>> # exchangeable groups: G - 1 = 2 directions
    >>> test.n_contrasts, test.df, round(test.p_value, 3)
    (3, 2, 0.258)
    """
    _OMNIBUS_OPTIONS.check(locals())
    if not isinstance(
        result, CellMatrixAccessors
    ):  # XCIResult and XAUCResult, the G x G matrix results
        hint = (
            "; an AUC(t) result gives its differences per horizon in .pairwise_deltas()"
            if type(result).__name__ == "XAUCtResult"
            else ""
        )
        raise InvalidParameterError(
            f"result must be an XCIResult (survfair.xci) or an XAUCResult (survfair.xauc), got "
            f"{type(result).__name__}{hint}.",
            parameter="result",
        )
    g = len(result.groups)
    k = n_contrasts(g, hypothesis)
    values = result.values
    source = {"analytic": "analytic", "delong": "delong", "bootstrap": "bootstrap"}.get(
        result.ci_method, "none"
    )
    defined = _n_contrasts_of(hypothesis, np.isfinite(values))
    left_out = k - defined
    if source == "none":  # nothing to test: counted, and no weights built
        return OmnibusTest(hypothesis, np.nan, 0, np.nan, defined, left_out, source, 0)
    # the contrasts' weights (K x G^2), their influence projections (n x K) and covariance (K x K)
    require_memory(
        8.0 * k * (g * g + result.n_samples + k),
        f"the joint test of {k} contrasts ({k} x {k} covariance)",
        ("groups",),
    )
    weights = _contrasts(g, hypothesis, np.isfinite(values) & ~no_variance_cells(result))
    untestable = defined - weights.shape[0]
    if weights.shape[0] == 0:
        return OmnibusTest(
            hypothesis, np.nan, 0, np.nan, weights.shape[0], left_out, source, untestable
        )
    estimates = combine_cells(weights, values.ravel())
    covariance = contrast_covariance(result, weights)
    if not np.isfinite(covariance).all():
        return OmnibusTest(
            hypothesis, np.nan, 0, np.nan, weights.shape[0], left_out, source, untestable
        )
    statistic, df = _wald_on_first_order_directions(
        estimates, covariance, _degenerate_ratio(result, len(estimates))
    )
    p_value = float(special.chdtrc(df, statistic)) if df > 0 else np.nan
    return OmnibusTest(
        hypothesis,
        statistic if df > 0 else np.nan,
        df,
        p_value,
        weights.shape[0],
        left_out,
        source,
        untestable,
    )


def _wald_on_first_order_directions(
    estimates: np.ndarray, covariance: np.ndarray, ratio: float
) -> tuple[float, int]:
    """W = z' R^+ z on the standardised contrasts z = d / sd(d), R their correlation matrix, with
    the eigen-directions of R below ``ratio`` of the largest dropped, and the number kept.

    Standardising first makes the rule scale-free: a contrast whose variance is small because its
    cells lie near 0 or 1 is not mistaken for a degenerate direction (only cancellation between
    contrasts makes an eigenvalue of R small). Without a dropped direction W equals d' V^+ d.
    """
    sd = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    informative = (
        sd > NO_VARIANCE_SE
    )  # a contrast without variance (or a residue of 0) carries no information
    if not informative.any():
        return np.nan, 0
    z = estimates[informative] / sd[informative]
    correlation = covariance[np.ix_(informative, informative)] / np.outer(
        sd[informative], sd[informative]
    )
    eigenvalues, vectors = np.linalg.eigh((correlation + correlation.T) / 2)
    keep = eigenvalues > eigenvalues.max(initial=0.0) * ratio
    projected = vectors[:, keep].T @ z
    return float(np.sum(projected**2 / eigenvalues[keep])), int(keep.sum())
