"""Cross-group ROC curves (Kallus & Zhou 2019, Sections 4 and 6): xROC, balanced xROC and the
conditional xAUC of each negative (or positive)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from .._core.display import html_of
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.options import OptionTable, one_of
from .._core.results import json_safe, readonly
from .delong import placements
from .xauc import OUTCOME, XAUCResult, group_code

__all__ = ["XROCCurve", "xroc", "balanced_xroc", "conditional_xauc"]


@frozen_result
class XROCCurve:
    """A cross-ROC curve (Kallus & Zhou 2019, Definition 1) or a balanced xROC curve.

    Attributes
    ----------
    kind : {"xroc", "balanced1", "balanced0"}
        ``"xroc"``: TPR of group ``a``'s positives against FPR of group ``b``'s negatives.
        ``"balanced1"``: positives of ``a`` against all negatives (``b`` is None).
        ``"balanced0"``: all positives (``a`` is None) against negatives of ``b``.
    a, b : hashable or None
        Group of the positives (``a``) and of the negatives (``b``); None where the curve pools
        all groups.
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing score thresholds, float (read-only): every distinct score; the first is +inf
        (nothing classified positive), as in sklearn's roc_curve.
    fpr : ndarray of shape (n_thresholds,)
        P[R >= threshold | negative of the curve's negative set], float, nondecreasing (read-only).
    tpr : ndarray of shape (n_thresholds,)
        P[R >= threshold | positive of the curve's positive set], float, nondecreasing (read-only).

    See Also
    --------
    xroc, balanced_xroc : compute it.
    survfair.plotting.plot_xroc : draws one or several curves.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> curve = survfair.xroc(res, "a", "b")
    >>> print(curve.to_frame().to_string(index=False))
     threshold  fpr  tpr
           inf  0.0  0.0
           0.9  0.0  0.5
           0.7  0.5  0.5
           0.4  0.5  1.0
           0.1  1.0  1.0
    >>> curve.area
    0.75
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

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: kind, a, b and the curve's points (an infinite threshold: null)."""
        return json_safe(
            {
                "kind": self.kind,
                "a": self.a,
                "b": self.b,
                "points": self.to_frame().to_dict(orient="records"),
            }
        )


def _roc(positive_scores: np.ndarray, negative_scores: np.ndarray):
    from sklearn.metrics import roc_curve

    labels = np.r_[np.ones(positive_scores.size), np.zeros(negative_scores.size)]
    fpr, tpr, thresholds = roc_curve(
        labels, np.r_[positive_scores, negative_scores], drop_intermediate=False
    )
    return thresholds, fpr, tpr


def _scores(result: XAUCResult, label: Any, positive: bool, what: str) -> np.ndarray:
    rows = result.rows
    mask = rows.is_positive if positive else ~rows.is_positive
    # the argument that gave ``label``: xroc's a (positives) and b (negatives), balanced_xroc's
    # group
    name = ("a" if positive else "b") if what == "xroc" else "group"
    if label is not None:
        mask = mask & (rows.codes == group_code(result, label, name))
    if not mask.any():
        role = "positive" if positive else "negative"
        raise InvalidParameterError(
            f"{what}: group {label!r} has no {role}, so the curve is undefined.", parameter=name
        )
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
        A result of :func:`survfair.xauc`.
    a : hashable
        Group of the positives (y-axis).
    b : hashable
        Group of the negatives (x-axis).

    Returns
    -------
    XROCCurve
        ``kind="xroc"``; ``.thresholds``, ``.fpr``, ``.tpr``, ``.area`` (= xAUC(a, b)).

    Raises
    ------
    InvalidParameterError (a ValueError)
        If a label is not a group of the result, ``a`` has no positive or ``b`` no negative.

    See Also
    --------
    balanced_xroc : the balanced curves, one group against all others (Definition 3).
    conditional_xauc : the per-individual diagnostics behind the area (Section 6).
    survfair.plotting.plot_xroc : draws the curves.
    xauc : the matrix of the areas, with DeLong intervals.

    Notes
    -----
    Thresholds are the distinct score values (sklearn's ``roc_curve(drop_intermediate=False)``),
    so the area equals ``result.matrix.loc[a, b]`` exactly when no two different scores are
    within ``tied_tol`` of each other (always the case with the default 1e-8 unless scores are
    that close).

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> curve = survfair.xroc(res, "a", "b")
    >>> curve.kind, curve.area, float(res.matrix.loc["a", "b"])
    ('xroc', 0.75, 0.75)
    >>> curve.fpr.tolist(), curve.tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    thresholds, fpr, tpr = _roc(_scores(result, a, True, "xroc"), _scores(result, b, False, "xroc"))
    return XROCCurve("xroc", a, b, thresholds, fpr, tpr)


#: The scalar options of :func:`balanced_xroc` (``group`` is a group label).
_BALANCED_OPTIONS = OptionTable("balanced_xroc", outcome=OUTCOME)


def balanced_xroc(result: XAUCResult, group: Any, *, outcome: int = 1) -> XROCCurve:
    """Balanced xROC curve of one group (Kallus & Zhou 2019, Definition 3, Fig. 2).

    ``outcome=1``: TPR of the positives of ``group`` against the FPR of all negatives (area
    xAUC^1(group)); ``outcome=0``: TPR of all positives against the FPR of the negatives of
    ``group`` (area xAUC^0(group)).

    Parameters
    ----------
    result : XAUCResult
        A result of :func:`survfair.xauc`.
    group : hashable
        Group label of the result.
    outcome : {1, 0}, default=1
        1: the positives of ``group`` against all negatives; 0: all positives against the
        negatives of ``group``.

    Returns
    -------
    XROCCurve
        ``kind="balanced1"`` (``a=group``, ``b=None``) or ``kind="balanced0"`` (``a=None``,
        ``b=group``); its ``.area`` is the balanced xAUC of :func:`balanced_xauc`.

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``outcome`` is not 0 or 1, ``group`` is not in the result or lacks the needed class.

    See Also
    --------
    xroc : the curve of one pair of groups (Definition 1).
    balanced_xauc : the areas with DeLong intervals.
    delta_balanced_xauc : the disparity of two groups' areas.
    conditional_xauc : per-individual diagnostics.
    survfair.plotting.plot_xroc : draws the curves.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> curve = survfair.balanced_xroc(res, "a")  # positives of a against all negatives
    >>> curve.kind, curve.a, curve.b, curve.area
    ('balanced1', 'a', None, 0.875)
    >>> survfair.balanced_xroc(res, "b", outcome=0).area  # all positives against negatives of b
    0.625
    """
    _BALANCED_OPTIONS.check(locals())
    if outcome == 1:
        curve = _roc(
            _scores(result, group, True, "balanced_xroc"),
            _scores(result, None, False, "balanced_xroc"),
        )
        return XROCCurve("balanced1", group, None, *curve)
    curve = _roc(
        _scores(result, None, True, "balanced_xroc"), _scores(result, group, False, "balanced_xroc")
    )
    return XROCCurve("balanced0", None, group, *curve)


#: The scalar options of :func:`conditional_xauc` (``a`` and ``b`` are group labels).
_CONDITIONAL_OPTIONS = OptionTable("conditional_xauc", role=one_of("negative", "positive"))


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
        A result of :func:`survfair.xauc`.
    a : hashable
        Group of the positives.
    b : hashable
        Group of the negatives.
    role : {"negative", "positive"}, default="negative"
        Whose conditional xAUC: the negatives of ``b`` (xAUC(a, b; R_0^b) of the paper) or the
        positives of ``a``.

    Returns
    -------
    pandas.Series
        Float values in [0, 1], one per analysed input row (indexed by the input's pandas index,
        else by row position; rows excluded by ``groups=`` are absent), NaN for rows not in the
        role (other groups or the other class), named ``"conditional_xauc"``. All NaN if the
        group has no member in the role.

    Raises
    ------
    InvalidParameterError (a ValueError)
        If ``role`` is unknown or ``a``/``b`` is not a group of the result.

    See Also
    --------
    xroc : the curve whose area is their mean.
    survfair.plotting.plot_conditional_xauc : histograms of these values (the paper's Fig. 4).
    xauc : the cell xAUC(a, b), their mean.

    Examples
    --------
    >>> import survfair
    >>> res = survfair.xauc([1, 1, 0, 0, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 4,
    ...                     [0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7, 0.1])
    >>> values = survfair.conditional_xauc(res, "a", "b")  # the negatives of b
    >>> values.dropna().tolist(), float(values.mean())
    ([0.5, 1.0], 0.75)
    """
    role = _CONDITIONAL_OPTIONS.check(locals())["role"]
    i, j = group_code(result, a, "a"), group_code(result, b, "b")
    rows = result.rows
    n_pos = np.array([result.group_sizes[k]["positives"] for k in result.groups], dtype=float)
    n_neg = np.array([result.group_sizes[k]["negatives"] for k in result.groups], dtype=float)
    v10, v01 = placements(rows, (n_pos, n_neg))
    if role == "negative":
        values = np.where(~rows.is_positive & (rows.codes == j), v01[:, i], np.nan)
    else:
        values = np.where(rows.is_positive & (rows.codes == i), v10[:, j], np.nan)
    series = pd.Series(values, index=rows.index.copy(), name="conditional_xauc")
    series.attrs.update(role=role, a=a, b=b)  # plot_conditional_xauc labels its axes from these
    return series
