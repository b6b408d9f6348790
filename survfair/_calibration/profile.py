"""The fairness profile: each group's discrimination across groups beside its calibration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._core.deprecation import DEPRECATED, renamed
from .._core.exceptions import InvalidParameterError
from .._core.options import OptionTable, real
from .._core.results import XCIResult
from .result import CalibrationResult

__all__ = ["fairness_profile"]


#: The scalar options of :func:`fairness_profile`.
_OPTIONS = OptionTable("fairness_profile", horizon=real(none=True))  # None: the only horizon


def fairness_profile(
    result: XCIResult,
    calibration: CalibrationResult,
    *,
    horizon: float | None = None,
    time: Any = DEPRECATED,
) -> pd.DataFrame:
    """One table per audit: each group's ranking (xCI) beside its calibration at one horizon.

    Discrimination and calibration answer different questions and cannot in general both be
    equalised across groups (Kleinberg et al. 2017; Pleiss et al. 2017): a shift that makes a
    group's ranking fairer changes its absolute risks. This table puts them side by side so the
    trade-off is visible.

    Parameters
    ----------
    result : XCIResult
        :func:`survfair.xci` of the risk scores (any scores: the ranking does not need
        probabilities).
    calibration : CalibrationResult
        :func:`survfair.calibration` of the same people's predicted risks, with the same groups.
    horizon : float, optional
        Horizon of the calibration columns (default: the first).
    time : float, optional
        Deprecated name of ``horizon`` (removed in 0.3).

    Returns
    -------
    DataFrame
        One row per group (index ``group``), counts first: ``n``, ``events`` (by the horizon);
        ``xci_within`` (xCI_{a,a}), ``xci_as_earlier`` (mean of xCI_{a,b} over b ≠ a: when a
        member of the group had the event first, how often the model ranked them above someone of
        another group who outlived them), ``xci_as_later`` (mean of xCI_{b,a}, b ≠ a: when someone
        of another group had the event first, how often they were ranked above a member of this
        group), ``delta_between`` (their difference, positive when the group is favoured as the
        earlier member); then ``observed_risk``, ``expected_risk``, ``oe_ratio`` with its interval,
        ``slope``, ``ici`` and ``brier``.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If the arguments are not an XCIResult and a CalibrationResult.
    InvalidParameterError (a ValueError)
        If their groups differ, or ``horizon`` is not a horizon of ``calibration``.

    See Also
    --------
    xci : the discrimination part.
    calibration : the calibration part.
    mitigate.calibration_cost : what an adjustment does to both.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=400)
    >>> t = rng.exponential(5 * np.exp(-x))
    >>> c = rng.uniform(0, 8, 400)
    >>> time, event, group = np.minimum(t, c), t <= c, np.where(x + rng.normal(size=400) > 0,
    ...                                                         "a", "b")
    >>> risk = 1 - np.exp(-3 * np.exp(x) / 5)  # the true F(3 | x)
    >>> profile = survfair.fairness_profile(survfair.xci(time, event, group, x, tau=6),
    ...                                     survfair.calibration(time, event, group, risk, times=3))
    >>> list(profile.columns[:4])
    ['n', 'events', 'xci_within', 'xci_as_earlier']
    """
    horizon = renamed("fairness_profile", "time", "horizon", time, horizon)
    horizon = _OPTIONS.check({"horizon": horizon})["horizon"]  # once time= is merged into it
    if not isinstance(result, XCIResult) or not isinstance(calibration, CalibrationResult):
        raise InvalidParameterError(
            "fairness_profile needs an XCIResult (survfair.xci) and a CalibrationResult "
            f"(survfair.calibration), got {type(result).__name__} and "
            f"{type(calibration).__name__}.",
            parameter="result" if not isinstance(result, XCIResult) else "calibration",
        )
    if tuple(result.groups) != tuple(calibration.groups):
        raise InvalidParameterError(
            f"result and calibration have different groups ({list(result.groups)} vs "
            f"{list(calibration.groups)}); compute both on the same rows with the same groups=.",
            parameter="result",
        )
    matrix = result.values
    g = matrix.shape[0]
    off = ~np.eye(g, dtype=bool)
    with np.errstate(invalid="ignore"):
        earlier = np.array([np.nanmean(matrix[a, off[a]]) if g > 1 else np.nan for a in range(g)])
        later = np.array([np.nanmean(matrix[off[:, a], a]) if g > 1 else np.nan for a in range(g)])
    summary = calibration.summary(
        float(calibration.times[0]) if horizon is None else horizon
    )  # one horizon
    frame = pd.DataFrame(
        {
            "n": summary["n"].to_numpy(),
            "events": summary["events"].to_numpy(),
            "xci_within": np.diag(matrix),
            "xci_as_earlier": earlier,
            "xci_as_later": later,
            "delta_between": earlier - later,
        },
        index=summary.index,
    )
    for column in (
        "observed_risk",
        "expected_risk",
        "oe_ratio",
        "oe_ratio_ci_low",
        "oe_ratio_ci_high",
        "slope",
        "ici",
        "brier",
    ):
        frame[column] = summary[column].to_numpy()
    return frame
