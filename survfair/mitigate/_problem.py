"""The fitting problem of a group shift: option checks, the fitting / evaluation samples, and
the evaluation of the xCI matrix at given offsets (:class:`ShiftProblem`).

The search never counts pairs itself: every evaluation of the objective runs the shifted scores
through :func:`survfair._xci.estimator.estimate_xci` (the O(G n log n) kernel), with the censoring
curves fitted once on the fitting sample (they do not depend on the risk).

Shared by :func:`survfair.mitigate.group_shift`, :func:`survfair.mitigate.group_monotone` and
:func:`survfair.mitigate.frontier`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._core.censoring import CensoringCurves, fit_censoring
from .._core.exceptions import InvalidParameterError
from .._core.options import describe_rows
from .._core.settings import EstimatorSettings
from .._core.validation import (
    SurvivalSample,
    as_numeric,
    check_survival_inputs,
    gather_inputs,
    input_index,
    unmasked,
)
from .._xci.estimator import CountingPlan, estimate_xci

__all__ = [
    "check_reference",
    "check_transform_inputs",
    "subsample",
    "split_samples",
    "pop_row_options",
    "offdiagonal",
    "State",
    "ShiftProblem",
]


# -- option checks -----------------------------------------------------------------------------


def check_reference(reference_group: Any, groups: tuple) -> int:
    """Index of the reference group (default: the first group in matrix order)."""
    if reference_group is None:
        return 0
    try:
        return groups.index(reference_group)
    except ValueError:
        raise InvalidParameterError(
            f"reference_group: group {reference_group!r} does not occur (groups: {list(groups)}).",
            parameter="reference_group",
        ) from None


# -- transform ---------------------------------------------------------------------------------


def check_transform_inputs(
    risk: Any, group: Any, data: pd.DataFrame | None, groups: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """Validate (risk, group) for ``transform``; returns float risks and group codes (same rows)."""
    raw, index = gather_inputs({"risk": risk, "group": group}, data)
    risk_raw, group_raw = raw["risk"], raw["group"]
    values = as_numeric(risk_raw, "risk", index)
    lookup = {label: k for k, label in enumerate(groups)}
    codes = np.array(
        [lookup.get(label, -1) for label in pd.Series(group_raw, dtype=object)], dtype=np.intp
    )
    unknown = codes < 0
    if unknown.any():
        labels = sorted({str(v) for v in np.asarray(group_raw, dtype=object)[unknown]})
        raise InvalidParameterError(
            f"group: labels {labels} were not seen when fitting (groups: {list(groups)}), at "
            f"{describe_rows(unknown, index)}.",
            parameter="group",
        )
    return values, codes


# -- samples: the fitting and the evaluation part --------------------------------------------


def subsample(sample: SurvivalSample, rows: np.ndarray) -> SurvivalSample:
    """Rows ``rows`` (boolean mask) of a validated sample, keeping the group order and the rows'
    case weights, entry times and clusters (renumbered 0..C-1)."""

    def part(values):
        return None if values is None else np.ascontiguousarray(values[rows])

    cluster = None
    if sample.cluster is not None:
        cluster = np.unique(sample.cluster[rows], return_inverse=True)[1].astype(np.int64)
    return SurvivalSample(
        time=part(sample.time),
        event=part(sample.event),
        group_codes=part(sample.group_codes),
        groups=sample.groups,
        risk=part(sample.risk),
        index=sample.index[rows],
        cluster=cluster,
        weights=part(sample.weights),
        entry=part(sample.entry),
    )


def _fit_rows(fit_on: Any, n: int) -> np.ndarray:
    if isinstance(
        fit_on, np.ma.MaskedArray
    ):  # masked entries are missing, never their hidden values
        fit_on = unmasked(fit_on, "fit_on")
    values = fit_on.to_numpy() if isinstance(fit_on, (pd.Series, pd.Index)) else np.asarray(fit_on)
    if values.ndim != 1:
        raise InvalidParameterError(
            f"fit_on must be 1-D (a mask or row positions), got shape {values.shape}.",
            parameter="fit_on",
        )
    if values.dtype.kind == "b":
        if values.shape[0] != n:
            raise InvalidParameterError(
                f"fit_on: a boolean mask must have one entry per row ({n}), got {values.shape[0]}.",
                parameter="fit_on",
            )
        return values.astype(bool)
    if values.dtype.kind not in "iu":
        raise InvalidParameterError(
            "fit_on must be a boolean mask, integer row positions, a DataFrame or a tuple "
            f"(time, event, group, risk); got an array of dtype {values.dtype}.",
            parameter="fit_on",
        )
    outside = (values < 0) | (values >= n)
    if outside.any():
        raise InvalidParameterError(
            f"fit_on: row positions must be in [0, {n}); out of range at entries "
            f"{describe_rows(outside)}.",
            parameter="fit_on",
        )
    if np.unique(values).shape[0] != values.shape[0]:
        raise InvalidParameterError("fit_on: row positions contain duplicates.", parameter="fit_on")
    mask = np.zeros(n, bool)
    mask[values] = True
    return mask


def _require_all_groups(sample: SurvivalSample, name: str) -> None:
    present = np.bincount(sample.group_codes, minlength=sample.n_groups)
    missing = [g for g, count in zip(sample.groups, present) if count == 0]
    if missing:
        raise InvalidParameterError(
            f"fit_on: {name} have no row of groups {missing}; every group needs rows there.",
            parameter="fit_on",
        )


#: The row options of :func:`survfair.xci` that also change what an adjustment is fitted to.
ROW_OPTIONS = ("entry", "weights", "cluster")


def split_samples(
    time: Any,
    event: Any,
    group: Any,
    risk: Any,
    data: pd.DataFrame | None,
    fit_on: Any,
    rows: dict | None = None,
) -> tuple[SurvivalSample, SurvivalSample | None, np.ndarray | None]:
    """Validate the inputs and split them into (fitting sample, evaluation sample or None, fit
    mask).

    ``fit_on`` None: fit on everything, no evaluation sample. A boolean mask or integer positions:
    fit on those rows, evaluate on the others. A DataFrame (same column names) or a tuple
    (time, event, group, risk): fit on that separate data set, evaluate on the main inputs.

    ``rows``: ``entry``, ``weights`` and ``cluster`` as given to the adjustment (None or absent:
    not given); each sample carries its rows' values, so that the fit and the table use them. With
    a separate fitting DataFrame, those named as columns are read from it too; given as arrays they
    belong to the main inputs only and are refused (the fitting data would have none).
    """
    rows = {name: value for name, value in (rows or {}).items() if value is not None}
    sample, _ = check_survival_inputs(time, event, group, risk, data=data, **rows)
    if fit_on is None:
        return sample, None, None
    if isinstance(fit_on, str):  # a boolean column of data, like every other argument
        if data is None:
            raise InvalidParameterError(
                f"fit_on is a column name ({fit_on!r}), so data must be given.", parameter="fit_on"
            )
        if fit_on not in data.columns:
            raise InvalidParameterError(
                f"fit_on: column {fit_on!r} is not in data (columns: {list(data.columns)}).",
                parameter="fit_on",
            )
        fit_on = data[fit_on]
        if fit_on.dtype.kind != "b":
            raise InvalidParameterError(
                f"fit_on: column {fit_on.name!r} must be boolean (True = fitting row), got "
                f"{fit_on.dtype}.",
                parameter="fit_on",
            )
    if (
        isinstance(fit_on, pd.Series) and fit_on.dtype.kind == "b"
    ):  # a mask is per row: same index rule
        input_index(
            {"time": time, "event": event, "group": group, "risk": risk, "fit_on": fit_on}, data
        )
    if isinstance(fit_on, pd.DataFrame) or (isinstance(fit_on, tuple) and len(fit_on) == 4):
        arrays = [name for name, value in rows.items() if not isinstance(value, str)]
        if arrays or (rows and not isinstance(fit_on, pd.DataFrame)):
            given = arrays or list(rows)
            raise InvalidParameterError(
                f"{', '.join(given)}: given {'as arrays' if arrays else ''} with separate fitting "
                f"data (fit_on), {'they belong' if len(given) > 1 else 'it belongs'} to the "
                "evaluation rows only; pass fit_on as a DataFrame and name the columns (e.g. "
                "weights='w') so that both data sets carry them.".replace(
                    "given  with", "given with"
                ),
                parameter=given[0],
            )
        if isinstance(fit_on, pd.DataFrame):
            names = (time, event, group, risk)
            if not all(isinstance(v, (str, list)) for v in names):
                raise InvalidParameterError(
                    "fit_on is a DataFrame, so time, event, group and risk must be column names "
                    "of data.",
                    parameter="fit_on",
                )
            fit_sample, excluded = check_survival_inputs(*names, data=fit_on, groups=None, **rows)
        else:
            fit_sample, excluded = check_survival_inputs(*fit_on, data=None, groups=None)
        unknown = [g for g in sample.groups if g not in fit_sample.groups]
        if unknown:
            raise InvalidParameterError(
                f"fit_on has no row of groups {unknown}, which occur in the evaluation data.",
                parameter="fit_on",
            )
        # re-encode the fitting data in the evaluation data's group order
        order = [fit_sample.groups.index(g) for g in sample.groups]
        remap = np.full(fit_sample.n_groups, -1, np.intp)
        remap[order] = np.arange(len(order))
        codes = remap[fit_sample.group_codes]
        keep = codes >= 0
        if not keep.all():
            extra = sorted({fit_sample.groups[c] for c in fit_sample.group_codes[~keep]}, key=str)
            raise InvalidParameterError(
                f"fit_on has groups {extra} that do not occur in the evaluation data.",
                parameter="fit_on",
            )
        fit_sample = dataclasses.replace(fit_sample, group_codes=codes, groups=sample.groups)
        return fit_sample, sample, None
    mask = _fit_rows(fit_on, sample.n_samples)
    if mask.all():
        raise InvalidParameterError(
            "fit_on selects every row, leaving none for evaluation; "
            "pass fit_on=None to fit in-sample.",
            parameter="fit_on",
        )
    if not mask.any():
        raise InvalidParameterError("fit_on selects no row to fit on.", parameter="fit_on")
    fit_sample, eval_sample = subsample(sample, mask), subsample(sample, ~mask)
    _require_all_groups(fit_sample, "the fitting rows")
    _require_all_groups(eval_sample, "the evaluation rows (the others)")
    return fit_sample, eval_sample, mask


def pop_row_options(xci_kwargs: dict) -> dict:
    """Take ``entry``, ``weights`` and ``cluster`` out of an adjustment's ``**xci_kwargs``: they
    change the cells the adjustment is fitted to, so the fit uses them, not only the table (which
    reads them from each sample)."""
    return {name: xci_kwargs.pop(name) for name in ROW_OPTIONS if name in xci_kwargs}


# -- the fitting problem -----------------------------------------------------------------------


def offdiagonal(g: int) -> np.ndarray:
    """Mask of the cross-group (off-diagonal) cells of a G x G matrix."""
    return ~np.eye(g, dtype=bool)


@dataclass(frozen=True)
class State:
    """Everything the search needs about one offset vector."""

    values: np.ndarray  # (G, G) xCI cells
    key: bytes  # integer concordant and concordant + tied counts; equal keys <=> same plateau


class ShiftProblem:
    """Evaluates the xCI matrix of a sample whose groups are shifted by offsets (kernel calls
    only)."""

    def __init__(self, sample: SurvivalSample, settings: EstimatorSettings):
        self.sample = sample
        self.settings = settings
        self.curves: CensoringCurves | None = None
        if settings.method == "ipcw":
            self.curves = fit_censoring(sample, settings.censoring)
        self.n_evaluations = 0
        base = self._counts(np.zeros(sample.n_groups))
        self.denominator = np.array(base.denominator)
        missing = (self.denominator == 0) & offdiagonal(sample.n_groups)
        if missing.any():
            cells = ", ".join(
                f"({sample.groups[a]!r}, {sample.groups[b]!r})" for a, b in np.argwhere(missing)
            )
            raise ValueError(
                "the fitting sample has no (weighted) comparable pair in the cross-group cells "
                f"{cells}; their xCI is undefined, so offsets cannot be fitted."
            )
        self.weights = self.denominator / self.denominator.sum()

    def _counts(self, offsets: np.ndarray):
        risk = self.sample.risk + offsets[self.sample.group_codes]
        shifted = dataclasses.replace(self.sample, risk=risk)
        self.n_evaluations += 1
        return estimate_xci(shifted, CountingPlan(self.settings, self.curves))

    def evaluate(self, offsets: np.ndarray) -> State:
        counts = self._counts(np.asarray(offsets, dtype=float))
        with np.errstate(invalid="ignore", divide="ignore"):
            values = counts.numerator / counts.denominator
        key = np.concatenate(
            [counts.concordant.ravel(), (counts.concordant + counts.tied_risk).ravel()]
        ).tobytes()
        return State(values, key)

    def coordinate_range(self, offsets: np.ndarray, k: int) -> tuple[float, float]:
        """Offsets of group k beyond which no cross pair of k changes (others fixed), padded."""
        risk = self.sample.risk + offsets[self.sample.group_codes]
        own = self.sample.group_codes == k
        mine, others = self.sample.risk[own], risk[~own]
        lo, hi = float(others.min() - mine.max()), float(others.max() - mine.min())
        pad = 1e-3 * (hi - lo) + 4 * self.settings.tied_tol + 1e-12 * max(1.0, abs(lo), abs(hi))
        return lo - pad, hi + pad
