"""Simulated cohorts of the log-normal model (Wang et al. 2026, eq. 8) with group-specific
censoring."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy import stats

from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.options import (
    RANDOM_STATE,
    OptionTable,
    check_scalar,
    optional,
    random_generator,
    real,
)
from ._lognormal import GROUPS

__all__ = ["lognormal_cohort", "CensoringSpec", "parse_censoring"]

_RANDOM = ("exponential", "lognormal")
_KEYS = ("administrative",) + _RANDOM


@frozen_result
class CensoringSpec:
    """A validated censoring design: per group, an optional random law and an end of follow-up.

    Attributes
    ----------
    law : {"exponential", "lognormal"} or None
        Distribution of the random censoring time (None: no random censoring).
    parameters : dict
        Per group (1, 0): the rate (exponential) or ``(mu, sd)`` of log C (log-normal).
    administrative : dict
        Per group (1, 0): end of follow-up (``inf`` = none).

    See Also
    --------
    lognormal_cohort : uses it.
    """

    law: str | None
    parameters: dict
    administrative: dict

    def draw(self, group: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Censoring times for individuals of the given groups (``inf`` = never censored)."""
        out = np.full(group.shape[0], np.inf)
        for g in GROUPS:
            mask = group == g
            m = int(mask.sum())
            if self.law == "exponential" and self.parameters[g] > 0:
                out[mask] = rng.exponential(1.0 / self.parameters[g], m)
            elif self.law == "lognormal":
                mu, sd = self.parameters[g]
                out[mask] = np.exp(rng.normal(mu, sd, m))
            out[mask] = np.minimum(out[mask], self.administrative[g])
        return out

    def survival(self, t: float, group: int) -> float:
        """True censoring survival K_g(t) = P(C > t | G = g)."""
        if t >= self.administrative[group]:
            return 0.0
        if self.law == "exponential":
            return math.exp(-self.parameters[group] * t)
        if self.law == "lognormal":
            if t <= 0:
                return 1.0
            mu, sd = self.parameters[group]
            return float(stats.norm.sf((math.log(t) - mu) / sd))
        return 1.0

    def label(self) -> str:
        """Short readable description, e.g. ``"exponential 1:0.5 0:0.05"``."""
        parts = []
        if self.law is not None:
            values = " ".join(f"{g}:{_fmt(self.parameters[g])}" for g in GROUPS)
            parts.append(f"{self.law} {values}")
        if any(math.isfinite(v) for v in self.administrative.values()):
            values = " ".join(f"{g}:{_fmt(self.administrative[g])}" for g in GROUPS)
            parts.append(f"administrative {values}")
        return "; ".join(parts) if parts else "none"


def _fmt(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(f"{v:g}" for v in value) + ")"
    return f"{value:g}"


def _per_group(value: Any, name: str, check) -> dict:
    """Expand one value or a {group: value} mapping with exactly the groups 1 and 0."""
    if isinstance(value, Mapping):
        keys = set(value.keys())
        missing = [g for g in GROUPS if g not in keys]
        extra = [k for k in keys if k not in GROUPS]
        if missing or extra:
            raise InvalidParameterError(
                f"censoring[{name!r}] must give a value for each of the groups [1, 0]"
                + (f"; missing {missing}" if missing else "")
                + (f"; unknown groups {extra}" if extra else "")
                + ".",
                parameter="censoring",
            )
        return {g: check(value[g], f"censoring[{name!r}][{g}]") for g in GROUPS}
    return {g: check(value, f"censoring[{name!r}]") for g in GROUPS}


def _check_rate(value: Any, name: str) -> float:
    return check_scalar(value, name, low=0)


def _check_end(value: Any, name: str) -> float:
    # inf is allowed: no end of follow-up
    return check_scalar(value, name, low=0, closed="neither", finite=False)


def _check_lognormal(value: Any, name: str) -> tuple:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidParameterError(
            f"{name} must be a pair (mu, sd) of log C's mean and standard deviation, "
            f"got {value!r}.",
            parameter="censoring",
        )
    return (
        check_scalar(value[0], f"{name} mu"),
        check_scalar(value[1], f"{name} sd", low=0, closed="neither"),
    )


def parse_censoring(censoring: Any) -> CensoringSpec:
    """Validate the ``censoring`` argument of :func:`lognormal_cohort` (see there)."""
    if isinstance(censoring, CensoringSpec):
        return censoring
    if censoring is None:
        return CensoringSpec(None, {}, {g: math.inf for g in GROUPS})
    if not isinstance(censoring, Mapping):
        raise InvalidParameterError(
            "censoring must be None or a dict such as {'exponential': {1: 0.5, 0: 0.1}}, "
            f"got {type(censoring).__name__}.",
            parameter="censoring",
        )
    unknown = [k for k in censoring if k not in _KEYS]
    if unknown or not censoring:
        raise InvalidParameterError(
            f"censoring keys must be among {list(_KEYS)}"
            + (f"; unknown {unknown}" if unknown else "; got an empty dict")
            + ".",
            parameter="censoring",
        )
    laws = [k for k in _RANDOM if k in censoring]
    if len(laws) > 1:
        raise InvalidParameterError(
            "censoring may give only one of 'exponential' and 'lognormal'.", parameter="censoring"
        )
    law = laws[0] if laws else None
    parameters = {}
    if law == "exponential":
        parameters = _per_group(censoring[law], law, _check_rate)
    elif law == "lognormal":
        parameters = _per_group(censoring[law], law, _check_lognormal)
    if "administrative" in censoring:
        administrative = _per_group(censoring["administrative"], "administrative", _check_end)
    else:
        administrative = {g: math.inf for g in GROUPS}
    return CensoringSpec(law, parameters, administrative)


#: The scalar options of :func:`lognormal_cohort` (``censoring`` is a dict, parsed in the body).
_OPTIONS = OptionTable(
    "lognormal_cohort",
    p_group=real(low=0, high=1, closed="neither"),
    beta1_hat=optional(real()),  # None: beta1
    beta2_hat=optional(real()),  # None: beta2
    random_state=RANDOM_STATE,
)


def lognormal_cohort(
    n: int,
    beta0: float,
    beta1: float,
    beta2: float,
    sigma_z: float,
    sigma: float,
    *,
    p_group: float = 0.5,
    censoring: Any = None,
    beta1_hat: float | None = None,
    beta2_hat: float | None = None,
    random_state: Any = None,
) -> pd.DataFrame:
    """Simulate a cohort from the log-normal model of Wang et al. (2026), eq. 8.

    ``G ~ Bernoulli(p_group)``, ``Z ~ N(0, sigma_z^2)``, ``eps ~ N(0, sigma^2)``,
    ``log T = beta0 + beta1 G + beta2 Z + eps``, and an independent censoring time ``C`` drawn
    given the group (censoring independent of T and Z within groups, Assumption 2 of
    Proposition 4.2); the observed time is ``min(T, C)``.

    Parameters
    ----------
    n : int
        Number of individuals, >= 1.
    beta0, beta1, beta2 : float
        Intercept, group effect and Z effect on log-time.
    sigma_z : float
        Standard deviation of Z, >= 0.
    sigma : float
        Standard deviation of the log-time error, > 0.
    p_group : float, default=0.5
        P(G = 1), in (0, 1).
    censoring : dict or None, default=None
        None: no censoring (every event observed). Otherwise a dict with up to two keys, each
        value either one number for both groups or a dict ``{1: ..., 0: ...}`` with both groups:

        - ``"exponential"``: rate(s) >= 0 of C ~ Exponential (mean 1/rate, unit of T;
          rate 0 = no random censoring in that group);
        - ``"lognormal"``: ``(mu, sd)`` of log C ~ N(mu, sd^2), sd > 0;
        - ``"administrative"``: end(s) of follow-up > 0; C = min(random C, end).

        At most one of "exponential" and "lognormal". Example of group-specific censoring,
        heavy in group 1 and light in group 0, with follow-up ending at time 5:
        ``{"exponential": {1: 0.6, 0: 0.1}, "administrative": 5.0}``.
    beta1_hat, beta2_hat : float, optional
        Coefficients of the score; default the true ``beta1`` and ``beta2``.
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed or generator (a Generator is used, and advanced, in place).

    Returns
    -------
    pandas.DataFrame of shape (n, 7)
        Columns ``time`` (observed min(T, C), float), ``event`` (bool, T <= C), ``group``
        (int 0/1), ``z`` (float), ``log_time`` (true log T, also when censored), ``risk``
        (``-(beta1_hat G + beta2_hat Z)``: higher = earlier event, survfair's orientation) and
        ``censoring_time`` (C, ``inf`` when not censored by design).

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``n`` is not an integer, a parameter is not a real number, ``censoring`` is not
        None or a dict, a log-normal censoring parameter is not a pair, or ``random_state`` is
        of an unsupported type.
    InvalidParameterError (a ValueError)
        If ``n < 1``, a parameter is NaN/inf, ``sigma <= 0``, ``sigma_z < 0``, ``p_group`` is
        not in (0, 1), or the censoring dict has unknown keys, both random laws, a per-group
        dict without exactly the groups 1 and 0, a negative rate, a non-positive sd or end of
        follow-up.

    See Also
    --------
    lognormal_xci : the population xCI of the same model (with ``tau``: the IPCW target).

    Examples
    --------
    >>> from survfair.simulate import lognormal_cohort
    >>> df = lognormal_cohort(200, 0.0, 0.8, 1.0, 0.5, 0.5, random_state=0,
    ...                       censoring={"exponential": {1: 0.5, 0: 0.05}})
    >>> list(df.columns)
    ['time', 'event', 'group', 'z', 'log_time', 'risk', 'censoring_time']
    """
    options = _OPTIONS.check(locals())
    n = check_scalar(n, "n", "integer", low=1)
    beta0, beta1, beta2 = (
        check_scalar(v, k) for v, k in ((beta0, "beta0"), (beta1, "beta1"), (beta2, "beta2"))
    )
    sigma_z = check_scalar(sigma_z, "sigma_z", low=0)
    sigma = check_scalar(sigma, "sigma", low=0, closed="neither")
    p_group = options["p_group"]
    beta1_hat = beta1 if beta1_hat is None else options["beta1_hat"]
    beta2_hat = beta2 if beta2_hat is None else options["beta2_hat"]
    spec = parse_censoring(censoring)
    rng = random_generator(random_state)

    group = (rng.random(n) < p_group).astype(np.int64)
    z = rng.normal(0.0, sigma_z, n) if sigma_z > 0 else np.zeros(n)
    log_time = beta0 + beta1 * group + beta2 * z + rng.normal(0.0, sigma, n)
    event_time = np.exp(log_time)
    censoring_time = spec.draw(group, rng)
    return pd.DataFrame(
        {
            "time": np.minimum(event_time, censoring_time),
            "event": event_time <= censoring_time,
            "group": group,
            "z": z,
            "log_time": log_time,
            "risk": -(beta1_hat * group + beta2_hat * z),
            "censoring_time": censoring_time,
        }
    )
