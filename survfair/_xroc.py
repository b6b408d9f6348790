"""Cross-group ROC curves (Kallus & Zhou 2019, Sections 4 and 6): xROC, balanced xROC and the
conditional xAUC of each negative (or positive)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._delong import placements
from ._results import readonly
from ._validation import check_option
from ._xauc import XAUCResult, group_code

__all__ = ["XROCCurve", "xroc", "balanced_xroc", "conditional_xauc"]


@dataclass(frozen=True)
class XROCCurve:
    """A cross-ROC curve (Kallus & Zhou 2019, Definition 1) or a balanced xROC curve.

    Attributes
    ----------
    kind : {"xroc", "balanced1", "balanced0"}
        ``"xroc"``: TPR of group ``a``'s positives against FPR of group ``b``'s negatives.
        ``"balanced1"``: positives of ``a`` against all negatives (``b`` is None).
        ``"balanced0"``: all positives (``a`` is None) against negatives of ``b``.
    a, b : hashable or None
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing; the first is +inf (nothing classified positive), as in sklearn's roc_curve.
    fpr : ndarray of shape (n_thresholds,)
        P[R >= threshold | negative of the curve's negative set].
    tpr : ndarray of shape (n_thresholds,)
        P[R >= threshold | positive of the curve's positive set].
    """

    kind: str
    a: Any
    b: Any
    thresholds: np.ndarray = field(repr=False)
    fpr: np.ndarray = field(repr=False)
    tpr: np.ndarray = field(repr=False)

    def __post_init__(self):
        for name in ("thresholds", "fpr", "tpr"):
            object.__setattr__(self, name, readonly(np.asarray(getattr(self, name), dtype=float)))

    @property
    def area(self) -> float:
        """Trapezoidal area under the curve; equals the corresponding (balanced) xAUC."""
        return float(np.trapezoid(self.tpr, self.fpr))

    def to_frame(self) -> pd.DataFrame:
        """Columns threshold, fpr, tpr."""
        return pd.DataFrame({"threshold": self.thresholds, "fpr": self.fpr, "tpr": self.tpr})


def _roc(positive_scores: np.ndarray, negative_scores: np.ndarray):
    from sklearn.metrics import roc_curve

    labels = np.r_[np.ones(positive_scores.size), np.zeros(negative_scores.size)]
    fpr, tpr, thresholds = roc_curve(labels, np.r_[positive_scores, negative_scores], drop_intermediate=False)
    return thresholds, fpr, tpr


def _scores(result: XAUCResult, label: Any, positive: bool, what: str) -> np.ndarray:
    rows = result.rows
    mask = rows.is_positive if positive else ~rows.is_positive
    if label is not None:
        mask = mask & (rows.codes == group_code(result, label))
    if not mask.any():
        role = "positive" if positive else "negative"
        raise ValueError(f"{what}: group {label!r} has no {role}, so the curve is undefined.")
    return rows.score[mask]


def xroc(result: XAUCResult, a: Any, b: Any) -> XROCCurve:
    """Cross-ROC curve xROC^{a,b} (Kallus & Zhou 2019, Definition 1).

    Plots, over thresholds theta, the TPR of group ``a``, P[R >= theta | A=a, Y=1], against the
    FPR of group ``b``, P[R >= theta | A=b, Y=0]. Its trapezoidal area equals xAUC(a, b),
    tied scores included (the curve has one point per distinct score value, so ties give a
    diagonal segment worth 1/2).

    Parameters
    ----------
    result : XAUCResult
    a : hashable
        Group of the positives (y-axis).
    b : hashable
        Group of the negatives (x-axis).

    Returns
    -------
    XROCCurve

    Raises
    ------
    ValueError
        If a label is not a group of the result, ``a`` has no positive or ``b`` no negative.

    Notes
    -----
    Thresholds are the distinct score values (sklearn's ``roc_curve(drop_intermediate=False)``),
    so the area equals ``result.matrix.loc[a, b]`` exactly when no two different scores are
    within ``tied_tol`` of each other (always the case with the default 1e-8 unless scores are
    that close).
    """
    thresholds, fpr, tpr = _roc(_scores(result, a, True, "xroc"), _scores(result, b, False, "xroc"))
    return XROCCurve("xroc", a, b, thresholds, fpr, tpr)


def balanced_xroc(result: XAUCResult, group: Any, *, outcome: int = 1) -> XROCCurve:
    """Balanced xROC curve of one group (Kallus & Zhou 2019, Definition 3, Fig. 2).

    ``outcome=1``: TPR of the positives of ``group`` against the FPR of all negatives (area
    xAUC^1(group)); ``outcome=0``: TPR of all positives against the FPR of the negatives of
    ``group`` (area xAUC^0(group)).

    Parameters
    ----------
    result : XAUCResult
    group : hashable
    outcome : {1, 0}, default=1

    Returns
    -------
    XROCCurve

    Raises
    ------
    ValueError
        If ``outcome`` is not 0 or 1, ``group`` is not in the result or lacks the needed class.
    """
    if outcome not in (0, 1) or isinstance(outcome, bool):
        raise ValueError(f"outcome must be 1 (positives) or 0 (negatives), got {outcome!r}.")
    if outcome == 1:
        curve = _roc(_scores(result, group, True, "balanced_xroc"), _scores(result, None, False, "balanced_xroc"))
        return XROCCurve("balanced1", group, None, *curve)
    curve = _roc(_scores(result, None, True, "balanced_xroc"), _scores(result, group, False, "balanced_xroc"))
    return XROCCurve("balanced0", None, group, *curve)


def conditional_xauc(result: XAUCResult, a: Any, b: Any, *, role: str = "negative") -> pd.Series:
    """Conditional xAUC per individual (Kallus & Zhou 2019, Section 6, "Diagnostics").

    ``role="negative"``: for every negative of group ``b``, the fraction of positives of group
    ``a`` ranked above it, P[R_1^a > r_j] (ties 1/2). ``role="positive"``: for every positive of
    group ``a``, the fraction of negatives of group ``b`` ranked below it, P[r_i > R_0^b]. Either
    way the mean over the individuals in the role equals xAUC(a, b). These are the DeLong
    placement values.

    Parameters
    ----------
    result : XAUCResult
    a : hashable
        Group of the positives.
    b : hashable
        Group of the negatives.
    role : {"negative", "positive"}, default="negative"

    Returns
    -------
    pandas.Series of float, aligned to the analysed input rows (their index), NaN for rows not
    in the role (other groups or the other class), named ``"conditional_xauc"``.

    Raises
    ------
    ValueError
        If ``role`` is unknown or ``a``/``b`` is not a group of the result.
    """
    role = check_option(role, "role", ("negative", "positive"))
    i, j = group_code(result, a), group_code(result, b)
    rows = result.rows
    n_pos = np.array([result.group_sizes[k]["positives"] for k in result.groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in result.groups], dtype=float)
    v10, v01 = placements(rows, (n_pos, n_neg))
    if role == "negative":
        values = np.where(~rows.is_positive & (rows.codes == j), v01[:, i], np.nan)
    else:
        values = np.where(rows.is_positive & (rows.codes == i), v10[:, j], np.nan)
    return pd.Series(values, index=rows.index.copy(), name="conditional_xauc")
