"""Input validation: the one place where user input becomes clean arrays.

Every public function of survfair passes its inputs through :func:`check_survival_inputs`
(or the smaller helpers below), so error messages are the same everywhere and always name
the argument and the offending rows. Nothing is dropped or coerced silently. The scalar options
are checked by the option tables of :mod:`.options`; the group labels are encoded by
:mod:`.groups`.
"""

from __future__ import annotations

import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .exceptions import ExcludedRowsWarning, InvalidParameterError, NoComparablePairError
from .groups import _combine_group_columns, encode_groups, label_array
from .options import _plain, check_cause, describe_rows

__all__ = [
    "SurvivalSample",
    "check_survival_inputs",
    "check_binary_inputs",
    "check_binary_outcome",
    "check_horizons",
]


@dataclass(frozen=True)
class SurvivalSample:
    """Validated, aligned inputs of one analysis.

    Attributes
    ----------
    time : ndarray of shape (n_samples,), float64
        Observed times, finite and >= 0.
    event : ndarray of shape (n_samples,), bool
        True where the event was observed.
    group_codes : ndarray of shape (n_samples,), int32
        Index into ``groups`` of each individual's group.
    groups : tuple
        Group labels, in the order used for every matrix.
    risk : ndarray of shape (n_samples,), float64 or None
        Risk scores (higher = earlier event), None when not given.
    index : pandas.Index
        Row labels of the input (a RangeIndex for plain arrays), for aligning per-row output.
    cluster : ndarray of shape (n_samples,), int64, or None
        Cluster codes 0..C-1 (``cluster=``); None when the rows are independent.
    weights : ndarray of shape (n_samples,), float64, or None
        Case weights (``weights=``, finite, >= 0); None: every row counts once.
    entry : ndarray of shape (n_samples,), float64, or None
        Entry times (``entry=``, delayed entry, 0 <= entry < time); None: everyone observed from 0.
    competing : ndarray of shape (n_samples,), bool, or None
        Competing risks (``cause=``): True where an event of another cause was observed (``event``
        then marks the cause of interest); None without ``cause=``.
    cause : int or None
        The cause of interest (``cause=``).
    covariates : ndarray of shape (n_samples, p), float64, or None
        Covariates of a censoring model (``censoring_covariates=``), finite; None without one.
    covariate_names : tuple of str
        Their names (the DataFrame's columns, or ``x0``, ``x1``... for an array).
    fingerprint : int or None
        CRC-32 checksum of every array above, taken by :func:`check_survival_inputs` when the
        caller's inputs are validated. The arrays are the caller's own memory where no conversion
        was needed (a copy of a 10^8-row cohort would cost gigabytes), so a caller who modifies an
        input in place after the call would silently change what a later computation reads from a
        kept result; :meth:`check_unchanged` refuses that. None for a sample survfair derived
        itself (``dataclasses.replace``: shifted risks, resamples), whose arrays nobody else holds.
    """

    time: np.ndarray = field(repr=False)
    event: np.ndarray = field(repr=False)
    group_codes: np.ndarray = field(repr=False)
    groups: tuple
    risk: np.ndarray | None = field(repr=False, default=None)
    index: pd.Index = field(repr=False, default=None)
    #: cluster of every row as codes 0..C-1 (``cluster=``), None when rows are independent
    cluster: np.ndarray | None = field(repr=False, default=None)
    weights: np.ndarray | None = field(repr=False, default=None)
    entry: np.ndarray | None = field(repr=False, default=None)
    competing: np.ndarray | None = field(repr=False, default=None)
    cause: int | None = None
    covariates: np.ndarray | None = field(repr=False, default=None)
    covariate_names: tuple = ()
    fingerprint: int | None = field(init=False, repr=False, compare=False, default=None)

    def _checksum(self) -> int:
        value = 0
        for array in (
            self.time,
            self.event,
            self.group_codes,
            self.risk,
            self.cluster,
            self.weights,
            self.entry,
            self.competing,
            self.covariates,
        ):
            if array is not None:
                value = zlib.crc32(np.ascontiguousarray(array).view(np.uint8), value)
        return value

    def check_unchanged(self, name: str) -> None:
        """Raise ``ValueError`` if an array of the sample was modified in place since it was built.

        Parameters
        ----------
        name : str
            What holds the sample (e.g. ``"result_1"``), for the message.

        Raises
        ------
        ValueError
            If the checksum of the arrays differs from :attr:`fingerprint` (never for a sample
            without one).
        """
        if self.fingerprint is not None and self._checksum() != self.fingerprint:
            raise InvalidParameterError(
                f"{name}: the data it was computed from were modified in place after the call "
                "(survfair keeps references to its inputs, not copies, to save memory); call the "
                "estimator again on the current values, or pass copies (array.copy()) of arrays "
                "you go on modifying.",
                parameter=name,
            )

    @property
    def n_samples(self) -> int:
        return int(self.time.shape[0])

    @property
    def observed(self) -> np.ndarray:
        """True where any event was observed (the censoring Kaplan-Meier's events): ``event``, plus
        the competing events under competing risks."""
        return self.event if self.competing is None else self.event | self.competing

    @property
    def n_groups(self) -> int:
        return len(self.groups)

    @property
    def labels(self) -> np.ndarray:
        """Every row's group label, shape (n_samples,), object dtype (tuple labels stay tuples)."""
        return label_array(self.groups)[self.group_codes]

    @property
    def n_clusters(self) -> int | None:
        return None if self.cluster is None else int(self.cluster.max()) + 1


def _is_structured_y(y: Any) -> bool:
    return isinstance(y, np.ndarray) and y.dtype.names is not None


def _split_structured_y(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split scikit-survival's structured ``y`` (first field event, second field time)."""
    if len(y.dtype.names) != 2:
        raise InvalidParameterError(
            "time: a structured array must have exactly two fields (event, time) as in "
            f"scikit-survival, got fields {y.dtype.names}.",
            parameter="time",
        )
    event_field, time_field = y.dtype.names
    return y[event_field], y[time_field]


def _column(value: Any, data: pd.DataFrame | None, name: str) -> Any:
    """Resolve a column name against ``data``; leave array-likes alone."""
    if data is None or not _is_column_name(value):
        return value
    if value not in data.columns:
        raise InvalidParameterError(
            f"{name}: column {value!r} is not in data (columns: {list(data.columns)}).",
            parameter=name,
        )
    return data[value]


def _is_column_name(value: Any) -> bool:
    return isinstance(value, (str, int, np.integer)) and not isinstance(value, bool)


def _names_columns(value: Any) -> bool:
    """Whether an argument is a column name, or a list of them (what is looked up in ``data``)."""
    if isinstance(value, (list, tuple)):
        return len(value) > 0 and all(isinstance(v, str) for v in value)
    return _is_column_name(value)


def _as_1d(value: Any, name: str) -> np.ndarray:
    if value is None:
        raise InvalidParameterError(f"{name} is required, got None.", parameter=name)
    if isinstance(value, np.ma.MaskedArray):
        value = unmasked(value, name)
    if isinstance(value, (pd.Series, pd.Index)):
        array = value.to_numpy()
    elif isinstance(value, pd.DataFrame):
        if value.shape[1] != 1:
            raise InvalidParameterError(
                f"{name} must be 1-D, got a DataFrame with {value.shape[1]} columns.",
                parameter=name,
            )
        array = value.iloc[:, 0].to_numpy()
    else:
        array = np.asarray(value)
    if array.ndim == 2 and array.shape[1] == 1 and name != "risk":
        array = array[:, 0]
    if array.ndim != 1:
        raise InvalidParameterError(
            f"{name} must be 1-D, got an array of shape {array.shape}.", parameter=name
        )
    if array.shape[0] == 0:
        raise InvalidParameterError(f"{name} is empty: at least one row is needed.", parameter=name)
    return array


def unmasked(value: np.ma.MaskedArray, name: str) -> np.ndarray:
    """The data of a masked array without masked entries; masked entries are missing values.

    ``np.asarray`` would silently expose the hidden raw values under the mask, so a mask with any
    True entry is refused like NaN, naming the rows.
    """
    mask = np.ma.getmaskarray(value)
    if mask.any():
        flat = mask.reshape(mask.shape[0], -1).any(axis=1) if mask.ndim > 1 else mask
        raise InvalidParameterError(
            f"{name} contains masked (missing) values at {describe_rows(flat)}.", parameter=name
        )
    return np.ma.getdata(value)


def as_numeric(array: np.ndarray, name: str, index: pd.Index | None) -> np.ndarray:
    if array.dtype.kind == "b":
        array = array.astype(np.float64)
    elif array.dtype.kind in "iuf":
        array = array.astype(np.float64, copy=False)
    elif array.dtype.kind == "O":
        try:
            converted = pd.to_numeric(pd.Series(array), errors="coerce").to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{name} must be numeric, got values of type object.", parameter=name
            ) from None
        bad = np.isnan(converted) & ~pd.isna(pd.Series(array)).to_numpy()
        if bad.any():
            raise InvalidParameterError(
                f"{name} must be numeric; non-numeric values at {describe_rows(bad, index)}.",
                parameter=name,
            )
        array = converted
    else:
        raise InvalidParameterError(
            f"{name} must be numeric, got dtype {array.dtype}.", parameter=name
        )
    nonfinite = ~np.isfinite(array)
    if nonfinite.any():
        raise InvalidParameterError(
            f"{name} contains NaN or infinite values at {describe_rows(nonfinite, index)}.",
            parameter=name,
        )
    return array


def _as_event(array: np.ndarray, index: pd.Index | None) -> np.ndarray:
    if array.dtype.kind == "b":
        return array.astype(bool, copy=False)
    if array.dtype.kind == "O":
        missing = pd.isna(pd.Series(array)).to_numpy()
        if missing.any():
            raise InvalidParameterError(
                f"event contains missing values at {describe_rows(missing, index)}.",
                parameter="event",
            )
        if all(isinstance(v, (bool, np.bool_)) for v in array):
            return array.astype(bool)
        array = as_numeric(array, "event", index)
    elif array.dtype.kind in "iuf":
        array = as_numeric(array, "event", index)
    else:
        raise InvalidParameterError(
            f"event must be boolean or 0/1, got dtype {array.dtype}.", parameter="event"
        )
    bad = (array != 0) & (array != 1)
    if bad.any():
        raise InvalidParameterError(
            f"event must be boolean or 0/1; other values at {describe_rows(bad, index)}.",
            parameter="event",
        )
    return array == 1


def resolve_group(group: Any, data: pd.DataFrame | None) -> Any:
    if isinstance(group, pd.DataFrame):
        return _combine_group_columns(group) if group.shape[1] > 1 else group.iloc[:, 0]
    if (
        data is not None
        and isinstance(group, (list, tuple))
        and all(isinstance(g, str) for g in group)
    ):
        if len(group) == 0:
            raise InvalidParameterError(
                "group: an empty list of columns was given.", parameter="group"
            )
        repeated = sorted({g for g in group if list(group).count(g) > 1})
        if repeated:
            raise InvalidParameterError(
                f"group: columns {repeated} are given more than once.", parameter="group"
            )
        missing = [g for g in group if g not in data.columns]
        if missing:
            raise InvalidParameterError(
                f"group: columns {missing} are not in data (columns: {list(data.columns)}).",
                parameter="group",
            )
        return _combine_group_columns(data[list(group)]) if len(group) > 1 else data[group[0]]
    return _column(group, data, "group")


def _pandas_index(value: Any) -> pd.Index | None:
    """The row index of a pandas Series or DataFrame (a ``pd.Index`` is values, not rows)."""
    return value.index if isinstance(value, (pd.Series, pd.DataFrame)) else None


def _index_difference(first: pd.Index, other: pd.Index) -> str:
    if len(first) != len(other):
        return f"{len(first)} vs {len(other)} labels"
    same_set = first.is_unique and other.is_unique and set(first) == set(other)
    return "the same labels in a different order" if same_set else "different labels"


def check_same_index(values: dict[str, Any], data: pd.DataFrame | None = None) -> pd.Index | None:
    """Refuse inputs whose pandas indexes differ; return the shared index (None if no input has
    one).

    Rows are matched by position, as in scikit-learn. When two or more inputs carry a pandas
    index, the indexes must be identical (same labels in the same order): survfair neither aligns
    them (a shuffled frame wrapped in a fresh Series would be scrambled) nor matches them by
    position silently (a reordered Series would be). Columns named with ``data=`` carry its index.

    Raises
    ------
    ValueError
        If two indexed inputs have indexes that are not identical; names both arguments.
    """
    indexed = [(name, _pandas_index(value)) for name, value in values.items()]
    indexed = [(name, index) for name, index in indexed if index is not None]
    if data is not None:
        indexed.insert(0, ("data", data.index))
    if not indexed:
        return None
    first_name, first = indexed[0]
    for name, index in indexed[1:]:
        if not first.equals(index):
            raise InvalidParameterError(
                f"{first_name} and {name} carry pandas indexes that are not identical "
                f"({_index_difference(first, index)}); survfair matches rows by position and "
                "will not guess how to align them. Pass `.to_numpy()` if they are in the same row "
                "order, or align them first with `.reindex` (or reset both indexes).",
                parameter=first_name,
            )
    return first


def gather_inputs(
    values: dict[str, Any], data: pd.DataFrame | None
) -> tuple[dict[str, np.ndarray], pd.Index]:
    """Resolve column names, check pandas indexes, make 1-D arrays of equal length.

    ``values`` maps each argument's name to what the user passed (array-like or column name of
    ``data``; the name ``"group"`` may also be a list of columns or a DataFrame). Returns the raw
    1-D arrays (not yet type-checked) and the row labels used in error messages: the shared
    pandas index, else positions.

    Raises
    ------
    TypeError
        If ``data`` is not a DataFrame, or a required argument is None.
    ValueError
        On unknown columns, masked entries, non-1-D or empty input, mismatched lengths, or
        pandas indexes that are not identical (:func:`check_same_index`).
    """
    if data is not None and not isinstance(data, pd.DataFrame):
        raise InvalidParameterError(
            f"data must be a pandas DataFrame or None, got {type(data).__name__}.", parameter="data"
        )
    resolved = {
        name: resolve_group(value, data) if name == "group" else _column(value, data, name)
        for name, value in values.items()
    }
    raw = {name: _as_1d(value, name) for name, value in resolved.items()}
    lengths = {name: array.shape[0] for name, array in raw.items()}
    if len(set(lengths.values())) != 1:
        described = ", ".join(f"{name} has {length}" for name, length in lengths.items())
        raise ValueError(f"inputs have mismatched lengths: {described} rows.")
    # an argument's rows come from data only when it named columns; anything else passed as an
    # object (a Series, a DataFrame of group columns) brings its own index, checked against data's
    index = input_index(values, data)
    if index is None:
        index = pd.RangeIndex(next(iter(lengths.values())))
    return raw, index


def check_numbers(values: Any, name: str) -> np.ndarray:
    """A non-empty 1-D float array of finite numbers (a grid or list of settings, not rows).

    Raises
    ------
    ValueError
        If ``values`` is not 1-D, is empty, has masked entries, NaN or infinite values.
    TypeError
        If the values are not numeric.
    """
    if isinstance(values, np.ma.MaskedArray):
        values = unmasked(values, name)
    array = np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values)
    if array.ndim != 1 or array.size == 0:
        raise InvalidParameterError(
            f"{name} must be a non-empty 1-D sequence of numbers, got shape {array.shape}.",
            parameter=name,
        )
    if (
        array.dtype.kind in "fc" and not np.isfinite(array).all()
    ):  # settings, not rows: name the values
        raise InvalidParameterError(
            f"{name} must be finite numbers, got {array.tolist()}.", parameter=name
        )
    return as_numeric(array, name, None)


def input_index(values: dict[str, Any], data: pd.DataFrame | None) -> pd.Index | None:
    """The pandas index shared by the per-row arguments (None if none carries one).

    Arguments that name columns of ``data`` carry ``data``'s index; any other pandas object
    (a Series, a DataFrame of group columns) its own. Raises as :func:`check_same_index`.
    """
    from_data = {
        name for name, value in values.items() if data is not None and _names_columns(value)
    }
    own = {name: value for name, value in values.items() if name not in from_data}
    return check_same_index(own, data if from_data else None)


def check_horizons(times: Any, observed: np.ndarray) -> np.ndarray:
    """Validate evaluation horizons as scikit-survival's ``cumulative_dynamic_auc`` does.

    Returns the sorted unique horizons. Each must lie in [min(observed), max(observed)):
    at a horizon at or after the last observed time nobody is event-free afterwards.

    Raises
    ------
    TypeError
        If ``times`` is not numeric.
    ValueError
        If ``times`` is empty, not 1-D, has NaN/inf, or a value outside the follow-up range.
    """
    if isinstance(times, np.ma.MaskedArray):
        times = unmasked(times, "times")
    values = np.atleast_1d(np.asarray(times))
    if values.ndim != 1:
        raise InvalidParameterError(
            f"times must be a number or 1-D, got an array of shape {values.shape}.",
            parameter="times",
        )
    if values.size == 0:
        raise InvalidParameterError("times is empty: give at least one horizon.", parameter="times")
    values = as_numeric(values, "times", None)
    values = np.unique(values)
    low, high = float(observed.min()), float(observed.max())
    outside = (values < low) | (values >= high)
    if outside.any():
        raise InvalidParameterError(
            f"times must lie within the follow-up of the data, [{low:g}; {high:g}); "
            f"got {[float(v) for v in values[outside]]}.",
            parameter="times",
        )
    return values


def check_survival_inputs(
    time: Any,
    event: Any,
    group: Any,
    risk: Any = None,
    *,
    data: pd.DataFrame | None = None,
    groups: Sequence | None = None,
    require_risk: bool = True,
    risk_name: str = "risk",
    cluster: Any = None,
    entry: Any = None,
    weights: Any = None,
    cause: Any = None,
    require_cause: bool = True,
    covariates: Any = None,
) -> tuple[SurvivalSample, int]:
    """Validate and align the inputs of an analysis.

    Parameters
    ----------
    time : array-like of shape (n_samples,), column name, or structured array
        Observed times, or scikit-survival's structured ``y`` (event, time) with ``event=None``.
    event : array-like of shape (n_samples,), column name, or None
        Event indicators, boolean or 0/1.
    group : array-like of shape (n_samples,), column name, or list of column names
        Group labels; several columns are combined into intersectional labels "a|b".
    risk : array-like of shape (n_samples,) or column name, optional
        Risk scores, numeric; higher means an earlier expected event.
    data : pandas.DataFrame, optional
        Table in which string arguments are looked up as column names.
    groups : sequence, optional
        Labels to analyse, in matrix order; rows of other groups are excluded (and counted).
    require_risk : bool, default=True
        Whether ``risk`` must be given.
    risk_name : str, default="risk"
        Name used for the score in error messages ("score" for xAUC).
    cluster : array-like of shape (n_samples,) or column name, optional
        Cluster label of every row (any hashable; missing labels are refused, naming the rows).
    entry : array-like of shape (n_samples,) or column name, optional
        Entry time of every row (delayed entry): finite, >= 0 and < time.
    weights : array-like of shape (n_samples,) or column name, optional
        Case weights: finite and >= 0.
    cause : int, optional
        Competing risks: ``event`` holds cause codes (0 = censored, 1..K = causes) and this one
        (>= 1, occurring in ``event``) is the event of interest; the others are competing events.
    require_cause : bool, default=True
        Whether ``cause`` must occur in ``event`` (a censoring reference sample need not hold it).
    covariates : array-like of shape (n_samples, p), DataFrame, or list of column names, optional
        Covariates of a censoring model (the parameter ``censoring_covariates``): numeric, finite,
        at least one column, none constant (:func:`check_covariates`).

    Returns
    -------
    sample : SurvivalSample
        The validated rows that are analysed.
    n_excluded : int
        Rows whose group is not in ``groups`` (0 when ``groups`` is None).

    Raises
    ------
    TypeError
        If an argument is missing or of a non-numeric type where numbers are needed.
    ValueError
        On mismatched lengths, NaN/inf, negative times, events other than 0/1, empty input,
        2-D risk, missing group labels, labels in ``groups`` that do not occur, negative
        ``entry`` or ``entry`` >= ``time``, negative ``weights`` (naming the rows), ``weights`` that
        are all 0 (of the analysed rows), or (with
        ``cause``) event codes that are not integers >= 0 or a ``cause`` that does not occur.
    """
    if _is_structured_y(time):
        if event is not None:
            raise InvalidParameterError(
                "event must be None when time is scikit-survival's structured y (event, time).",
                parameter="event",
            )
        event, time = _split_structured_y(time)
    values = {"time": time, "event": event, "group": group}
    if risk is not None or require_risk:
        values[risk_name] = risk
    for name, value in (("cluster", cluster), ("entry", entry), ("weights", weights)):
        if value is not None:
            values[name] = value
    raw, index = gather_inputs(values, data)
    covariate_values, covariate_names = (
        (None, ()) if covariates is None else check_covariates(covariates, data, index, values)
    )
    time_values = as_numeric(raw["time"], "time", index)
    negative = time_values < 0
    if negative.any():
        raise InvalidParameterError(
            f"time must be >= 0; negative values at {describe_rows(negative, index)}.",
            parameter="time",
        )
    if cause is None:
        event_values, competing = _as_event(raw["event"], index), None
    else:
        event_values, competing, cause = _as_causes(raw["event"], cause, index, require_cause)
    risk_values = as_numeric(raw[risk_name], risk_name, index) if risk_name in raw else None

    codes, labels, keep = encode_groups(raw["group"], groups, index)
    cluster_codes = _encode_clusters(raw["cluster"], index) if "cluster" in raw else None
    entry_values = _as_entry(raw["entry"], time_values, index) if "entry" in raw else None
    weight_values = _as_weights(raw["weights"], index) if "weights" in raw else None
    n_excluded = int((~keep).sum())
    if n_excluded:
        time_values, event_values, codes = time_values[keep], event_values[keep], codes[keep]
        competing = None if competing is None else competing[keep]
        risk_values = None if risk_values is None else risk_values[keep]
        entry_values = None if entry_values is None else entry_values[keep]
        weight_values = None if weight_values is None else weight_values[keep]
        covariate_values = None if covariate_values is None else covariate_values[keep]
        index = index[keep]
        if cluster_codes is not None:  # the clusters of the analysed rows, numbered again
            cluster_codes = np.unique(cluster_codes[keep], return_inverse=True)[1].astype(np.int64)
    if weight_values is not None and weight_values.size and not (weight_values > 0).any():
        raise InvalidParameterError(
            f"weights are all 0 ({describe_rows(weight_values == 0, index)}): every pair would "
            "weigh 0, so no estimate is defined; give the rows to analyse a positive weight.",
            parameter="weights",
        )
    if weight_values is not None:
        weight_values = normalise_weights(weight_values)
    sample = SurvivalSample(
        time=np.ascontiguousarray(time_values),
        event=np.ascontiguousarray(event_values),
        group_codes=np.ascontiguousarray(codes),
        groups=labels,
        risk=None if risk_values is None else np.ascontiguousarray(risk_values),
        index=index,
        cluster=cluster_codes,
        weights=None if weight_values is None else np.ascontiguousarray(weight_values),
        entry=None if entry_values is None else np.ascontiguousarray(entry_values),
        competing=None if competing is None else np.ascontiguousarray(competing),
        cause=cause,
        covariates=covariate_values,
        covariate_names=covariate_names,
    )
    object.__setattr__(sample, "fingerprint", sample._checksum())  # the caller's data, as validated
    return sample, n_excluded


COVARIATES = "censoring_covariates"


def check_covariates(
    covariates: Any,
    data: pd.DataFrame | None,
    index: pd.Index,
    others: dict | None = None,
    name: str = COVARIATES,
) -> tuple[np.ndarray, tuple]:
    """The covariates of a censoring model as a C-contiguous float64 (n_samples, p) array and
    their names.

    ``covariates`` is a 2-D array (or a 1-D one: one covariate), a DataFrame (its index must be
    that of the other pandas inputs, ``others``), or a list of column names of ``data``. Errors are
    :class:`InvalidParameterError` with ``parameter=name`` (the argument's name in the caller:
    ``censoring_covariates`` of :func:`survfair.xci`, ``covariates`` of the censoring check),
    naming the column and the rows.
    """
    if isinstance(covariates, str) or (
        isinstance(covariates, (list, tuple))
        and len(covariates) > 0
        and all(isinstance(c, str) for c in covariates)
    ):
        columns = [covariates] if isinstance(covariates, str) else list(covariates)
        if data is None:
            raise InvalidParameterError(
                f"{name} names columns ({columns!r}) but data is None; pass data= or the "
                "covariates themselves (an array of shape (n_samples, p) or a DataFrame).",
                parameter=name,
            )
        missing = [c for c in columns if c not in data.columns]
        if missing:
            raise InvalidParameterError(
                f"{name}: column(s) {missing!r} not in data (columns: {list(data.columns)}).",
                parameter=name,
            )
        frame = data[columns]
    elif isinstance(covariates, (pd.DataFrame, pd.Series)):
        input_index({**(others or {}), name: covariates}, data)  # the same rows, or refused
        frame = (
            covariates
            if isinstance(covariates, pd.DataFrame)
            else covariates.to_frame(name=str(covariates.name or "x0"))
        )
    else:
        if isinstance(covariates, np.ma.MaskedArray):
            covariates = unmasked(covariates, name)
        try:
            array = np.asarray(covariates)
        except (TypeError, ValueError):
            array = np.asarray(covariates, dtype=object)
        if array.ndim == 1:
            array = array[:, None]
        if array.ndim != 2:
            raise InvalidParameterError(
                f"{name} must be 2-D (n_samples, p), a DataFrame or column names of data; got "
                f"an array of shape {array.shape}.",
                parameter=name,
            )
        frame = pd.DataFrame(array, columns=[f"x{k}" for k in range(array.shape[1])])
    if frame.shape[1] == 0:
        raise InvalidParameterError(
            f"{name} has no column: a censoring model needs at least one covariate (without "
            'covariates use censoring="group", the Kaplan-Meier per group).',
            parameter=name,
        )
    if frame.shape[0] != len(index):
        raise InvalidParameterError(
            f"{name} has {frame.shape[0]} rows, the other inputs {len(index)}.", parameter=name
        )
    names = tuple(str(c) for c in frame.columns)
    if len(set(names)) != len(names):
        raise InvalidParameterError(
            f"{name} has repeated column names: {list(names)}.", parameter=name
        )
    out = np.empty(frame.shape, np.float64)
    for k, column in enumerate(frame.columns):
        values = frame.iloc[:, k].to_numpy()
        try:
            out[:, k] = as_numeric(values, f"{name} column {str(column)!r}", index)
        except InvalidParameterError as error:
            raise InvalidParameterError(str(error), parameter=name) from None
        if out.shape[0] > 1 and np.all(out[:, k] == out[0, k]):
            raise InvalidParameterError(
                f"{name} column {str(column)!r} is constant ({out[0, k]:g} in every row): it "
                "has no coefficient in a censoring model; leave it out.",
                parameter=name,
            )
    return np.ascontiguousarray(out), names


def _as_causes(
    array: np.ndarray, cause: Any, index: pd.Index | None, require_cause: bool = True
) -> tuple[np.ndarray, np.ndarray, int]:
    """Competing risks: (event of cause ``cause``, competing event, cause) from cause codes
    (0 = censored, 1..K = causes; booleans read as 0/1)."""
    cause = check_cause(cause)
    if array.dtype.kind == "b":
        status = array.astype(np.int64)
    elif array.dtype.kind in "iufO":
        if array.dtype.kind == "O":
            missing = pd.isna(pd.Series(array)).to_numpy()
            if missing.any():
                raise InvalidParameterError(
                    f"event contains missing values at {describe_rows(missing, index)}.",
                    parameter="event",
                )
        status = as_numeric(array, "event", index)
        bad = (status < 0) | (status != np.round(status))
        if bad.any():
            raise InvalidParameterError(
                "event must hold cause codes with cause= (0 = censored, 1..K = causes): integers "
                f">= 0; other values at {describe_rows(bad, index)}.",
                parameter="event",
            )
    else:
        raise InvalidParameterError(
            f"event must hold integer cause codes with cause=, got dtype {array.dtype}.",
            parameter="event",
        )
    if require_cause and not (status == cause).any():
        present = sorted({int(v) for v in np.unique(status) if v != 0})
        raise InvalidParameterError(
            f"event has no row of cause={cause} (causes present: {present or 'none'}).",
            parameter="event",
        )
    return status == cause, (status != 0) & (status != cause), cause


def _as_entry(values: np.ndarray, time: np.ndarray, index: pd.Index | None) -> np.ndarray:
    """Entry times: finite, >= 0 and before the row's own time (else the row was never observed)."""
    entry = as_numeric(values, "entry", index)
    negative = entry < 0
    if negative.any():
        raise InvalidParameterError(
            f"entry must be >= 0; negative values at {describe_rows(negative, index)}.",
            parameter="entry",
        )
    late = entry >= time
    if late.any():
        raise InvalidParameterError(
            f"entry must be before time (a row is observed on (entry, time]); entry >= time at "
            f"{describe_rows(late, index)}.",
            parameter="entry",
        )
    return entry


#: Case weights whose largest value lies in [2**-WEIGHT_EXPONENT, 2**WEIGHT_EXPONENT] are used as
#: given; beyond, they are first divided by a power of two (see :func:`normalise_weights`).
WEIGHT_EXPONENT = 64


def normalise_weights(weights: np.ndarray) -> np.ndarray:
    """Case weights on a scale where products of two weights and an IPCW factor, and their sums
    over n^2 pairs, neither overflow nor underflow.

    Every estimate is a ratio of weighted sums, so multiplying all weights by a constant changes
    nothing -- in exact arithmetic. In floating point, weights of 1e200 made w_i w_j overflow to
    inf (all-NaN matrices) and weights of 1e-160 made it underflow into subnormal numbers (cells
    off by 5e-8, infinite standard errors). So when the largest weight lies outside
    [2**-64, 2**64] the weights are divided by the power of two that brings it into [0.5, 1): an
    exact division (no rounding: only the exponent changes), hence the same numbers as weights of
    the same shape near 1. Ordinary weights are left alone, so the weighted sums of the pair
    counts stay in the user's units (integer weights give the counts of repeated rows). A weight
    more than about 2**1070 times smaller than the largest becomes 0 (it would weigh nothing
    beside it in any sum anyway).
    """
    largest = float(weights.max(initial=0.0))
    if largest == 0.0:
        return weights
    _, exponent = np.frexp(largest)  # largest = mantissa * 2**exponent, mantissa in [0.5, 1)
    if abs(int(exponent)) <= WEIGHT_EXPONENT:
        return weights
    return np.ldexp(weights, -int(exponent))


def _as_weights(values: np.ndarray, index: pd.Index | None) -> np.ndarray:
    """Case weights: finite and >= 0."""
    weights = as_numeric(values, "weights", index)
    negative = weights < 0
    if negative.any():
        raise InvalidParameterError(
            f"weights must be >= 0; negative values at {describe_rows(negative, index)}.",
            parameter="weights",
        )
    return weights


def _encode_clusters(labels: np.ndarray, index: pd.Index | None) -> np.ndarray:
    """Cluster codes 0..C-1 in order of first appearance; missing labels refused, naming rows."""
    codes, _ = pd.factorize(labels, sort=False)
    missing = codes < 0
    if missing.any():
        raise InvalidParameterError(
            f"cluster contains missing labels at {describe_rows(missing, index)}.",
            parameter="cluster",
        )
    return codes.astype(np.int64)


def check_binary_outcome(y: np.ndarray, positive: Any, index: pd.Index | None = None) -> np.ndarray:
    """Validate a binary outcome and return the boolean mask of the positive class.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Outcome labels (any hashable values: 0/1, booleans, strings...).
    positive : hashable
        The label of the class that should rank higher (Y = 1 in Kallus & Zhou 2019).
    index : pandas.Index, optional
        Row labels used in error messages.

    Returns
    -------
    ndarray of shape (n_samples,), bool
        True where ``y == positive``.

    Raises
    ------
    TypeError
        If ``positive`` is not a hashable scalar.
    ValueError
        If ``y`` has missing values, does not have exactly two classes (the rows of the
        unexpected labels are named), or ``positive`` does not occur in ``y``.
    """
    if isinstance(positive, (list, tuple, set, dict, np.ndarray, pd.Series)) or positive is None:
        raise InvalidParameterError(
            f"positive must be a single label such as 1 or 'yes', got {positive!r}.",
            parameter="positive",
        )
    series = pd.Series(y)
    missing = series.isna().to_numpy()
    if missing.any():
        raise InvalidParameterError(
            f"y contains missing values at {describe_rows(missing, index)}.", parameter="y"
        )
    counts = series.value_counts(sort=False)
    try:
        counts = counts.sort_index()
    except TypeError:  # labels of unorderable mixed types keep first-appearance order
        pass
    present = [_plain(v) for v in counts.index]
    is_positive = (series == positive).to_numpy(dtype=bool)
    if not is_positive.any():
        raise InvalidParameterError(
            f"positive={positive!r} does not occur in y (labels present: {present}).",
            parameter="positive",
        )
    others = counts[
        [not bool(pd.Series([v], dtype=object).eq(positive).iloc[0]) for v in counts.index]
    ]
    if len(others) == 0:
        raise InvalidParameterError(
            f"y must contain exactly two classes (positive={positive!r} and one negative label); "
            f"every row is {present[0]!r}, so there are no negatives.",
            parameter="y",
        )
    if len(others) > 1:
        negative = others.idxmax()  # the most frequent other label is taken as the negative class
        wrong = ~is_positive & (series != negative).to_numpy(dtype=bool)
        unexpected = [_plain(v) for v in others.index if v != negative]
        raise InvalidParameterError(
            f"y must contain exactly two classes (positive={positive!r} and one negative label); "
            f"found {len(counts)}: {present}. Taking {_plain(negative)!r} as the negative label, "
            f"the values {unexpected} at {describe_rows(wrong, index)} are unexpected.",
            parameter="y",
        )
    return is_positive


def check_binary_inputs(
    y: Any,
    group: Any,
    score: Any,
    *,
    data: pd.DataFrame | None = None,
    positive: Any = 1,
    groups: Sequence | None = None,
) -> tuple[SurvivalSample, int]:
    """Validate binary-outcome inputs and encode them as an uncensored survival sample.

    Positives become events at time 0 and negatives censored at time 1, so the comparable pairs
    of the pair-count kernel are exactly the (positive, negative) pairs and xCI_{a,b} is
    xAUC(a, b) = P[R_1^a > R_0^b] (Kallus & Zhou 2019, Definition 2).

    Parameters
    ----------
    y : array-like of shape (n_samples,) or column name
        Binary outcome with exactly two labels.
    group : array-like of shape (n_samples,), column name, or list of column names
        Group labels (several columns are combined into intersectional labels "a|b").
    score : array-like of shape (n_samples,) or column name
        Risk score, numeric; higher = more likely positive.
    data : pandas.DataFrame, optional
        Table in which string arguments are column names.
    positive : hashable, default=1
        Label of the positive class.
    groups : sequence, optional
        Labels to analyse, in matrix order.

    Returns
    -------
    sample : SurvivalSample
        ``event`` is the positive mask, ``time`` is 0 for positives and 1 for negatives,
        ``risk`` the score.
    n_excluded : int
        Rows whose group is not in ``groups``.

    Raises
    ------
    TypeError, ValueError
        As :func:`check_survival_inputs` (naming ``y``, ``group`` and ``score``) and
        :func:`check_binary_outcome`.
    """
    raw, index = gather_inputs({"y": y, "group": group, "score": score}, data)
    is_positive = check_binary_outcome(raw["y"], positive, index)
    time = pd.Series(np.where(is_positive, 0.0, 1.0), index=index)
    return check_survival_inputs(
        time,
        pd.Series(is_positive, index=index),
        pd.Series(raw["group"], index=index),
        pd.Series(raw["score"], index=index),
        groups=groups,
        risk_name="score",
    )


def warn_single_cluster(sample: "SurvivalSample", ci: Any, stacklevel: int) -> None:
    """The one warning for ``cluster=`` with a single cluster: the cluster-robust variance sums
    every row's influence into one total, which is 0 (the influence sums to 0), and a bootstrap of
    clusters redraws the same cluster; the intervals then have zero width."""
    warn_one_cluster(sample.n_clusters, ci, stacklevel + 1)


def warn_one_cluster(n_clusters: int | None, ci: Any, stacklevel: int) -> None:
    """:func:`warn_single_cluster` from the number of clusters (a Dask frame keeps no sample)."""
    if ci is not None and n_clusters == 1:
        warnings.warn(
            "cluster holds a single cluster: cluster-robust standard errors are 0 and the "
            "intervals have zero width; give at least two clusters, or leave out cluster= if the "
            "rows are independent.",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


def warn_excluded_rows(n_excluded: int, stacklevel: int) -> None:
    """The one warning for rows that ``groups=`` left out (nothing is dropped silently)."""
    if n_excluded:
        warnings.warn(
            f"{n_excluded} rows belong to groups not listed in groups= and are excluded from the "
            "analysis.",
            ExcludedRowsWarning,
            stacklevel=stacklevel + 1,
        )


def raise_no_comparable_pair(detail: str = "") -> None:
    """Raise the one error for data in which no pair is comparable; with ``detail``, why the
    comparable pairs there all weigh 0 (truncation at tau, case weights of 0)."""
    raise NoComparablePairError(
        (
            f"no comparable pair of positive weight: {detail}"
            if detail
            else "no comparable pair: no event is followed by a later time"
        )
        + "; the concordance is undefined."
    )
