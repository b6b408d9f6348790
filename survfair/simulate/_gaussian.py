"""Closed-form xAUC of Gaussian score distributions (Kallus & Zhou 2019,
Section 6 and Appendix A.1)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy import stats

from .._core.exceptions import InvalidParameterError
from .._core.options import check_scalar

__all__ = ["gaussian_xauc"]

ROW_NAME = "a (positive)"
COLUMN_NAME = "b (negative)"
LABELS = (0, 1)


def _as_table(value: Any, name: str) -> dict:
    """{(group, label): float} from a dict keyed by (group, label) or a DataFrame (index group,
    columns 0/1)."""
    if isinstance(value, pd.DataFrame):
        missing = [y for y in LABELS if y not in value.columns]
        if missing:
            raise InvalidParameterError(
                f"{name}: a DataFrame needs the outcome columns 0 and 1 (missing {missing}).",
                parameter=name,
            )
        if value.index.has_duplicates:
            raise InvalidParameterError(
                f"{name}: the DataFrame index (groups) has duplicate labels.", parameter=name
            )
        out = {(g, y): value.loc[g, y] for g in value.index for y in LABELS}
    elif isinstance(value, Mapping):
        out = {}
        for key, v in value.items():
            if not isinstance(key, tuple) or len(key) != 2 or key[1] not in LABELS:
                raise InvalidParameterError(
                    f"{name}: keys must be (group, outcome) pairs with outcome 0 or 1, "
                    f"got {key!r}.",
                    parameter=name,
                )
            out[(key[0], int(key[1]))] = v
    else:
        raise InvalidParameterError(
            f"{name} must be a dict {{(group, outcome): value}} or a DataFrame indexed by group "
            f"with columns 0 and 1, got {type(value).__name__}.",
            parameter=name,
        )
    return {key: check_scalar(v, f"{name}[{key!r}]") for key, v in out.items()}


def _groups(keys) -> list:
    labels = list(dict.fromkeys(g for g, _ in keys))
    try:
        return sorted(labels)
    except TypeError:
        return labels


def gaussian_xauc(mu: Any, sigma: Any) -> pd.DataFrame:
    """Cross-group AUC of independent Gaussian scores: the full G x G xAUC matrix.

    If the score of a group-``a`` individual with outcome ``y`` is ``N(mu[a, y], sigma[a, y]^2)``
    (independently), then (Kallus & Zhou 2019, Section 6)

    ``xAUC(a, b) = P[R_1^a > R_0^b] =
    Phi((mu[a, 1] - mu[b, 0]) / sqrt(sigma[a, 1]^2 + sigma[b, 0]^2))``,

    the probability that a positive of group a is ranked above a negative of group b. The
    diagonal holds the within-group AUCs.

    Parameters
    ----------
    mu : dict or pandas.DataFrame
        Mean score per (group, outcome): a dict ``{(group, y): value}`` with y in {0, 1}, or a
        DataFrame indexed by group with columns 0 and 1. Every group needs both outcomes.
    sigma : dict or pandas.DataFrame
        Standard deviations (not variances), in the same form and for the same (group, y) as
        ``mu``; >= 0. Both standard deviations of a pair may be 0 (point masses): a tie then
        counts 1/2, as in the estimator.

    Returns
    -------
    pandas.DataFrame of shape (G, G)
        Rows a = group of the positive, columns b = group of the negative (groups sorted when
        sortable); ``loc[a, b]`` is xAUC(a, b), ``loc[a, a]`` the within-group AUC.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``mu`` or ``sigma`` is neither a dict nor a DataFrame.
    InvalidParameterError (a ValueError)
        If a key is not a (group, 0/1) pair, a value is not a finite number, a standard
        deviation is negative, a group lacks one of the outcomes, or ``mu`` and ``sigma`` do not
        cover the same (group, outcome) pairs.

    See Also
    --------
    survfair.xauc : the estimator whose target it is.

    Notes
    -----
    Appendix A.1 of the paper prints the formula with the difference of means reversed
    (``mu_b0 - mu_a1``); the main text's Section 6 version used here is the correct one
    (xAUC > 1/2 when positives score higher).

    References
    ----------
    Kallus, N. and Zhou, A. (2019). The Fairness of Risk Scores Beyond Classification:
    Bipartite Ranking and the xAUC Metric. NeurIPS 2019, Section 6 ("Impact of Score
    Distribution") and Appendix A.1.

    Examples
    --------
    Same within-group AUCs, different xAUCs (Appendix A.1: group a fixed at
    mu = (0.25, 0.75), variances 0.25; group b with variances 0.5 on the equal-AUC curve
    (mu_b1 - mu_b0)^2 = 0.5 (sigma_b1^2 + sigma_b0^2)):

    >>> from survfair.simulate import gaussian_xauc
    >>> mu = {("a", 0): 0.25, ("a", 1): 0.75, ("b", 0): 0.0, ("b", 1): 0.5 ** 0.5}
    >>> sigma = {("a", 0): 0.5, ("a", 1): 0.5, ("b", 0): 0.5 ** 0.5, ("b", 1): 0.5 ** 0.5}
    >>> res = gaussian_xauc(mu, sigma)
    >>> [round(float(res.loc[a, b]), 4)
    ...  for a, b in [("a", "a"), ("b", "b"), ("a", "b"), ("b", "a")]]
    [0.7602, 0.7602, 0.8068, 0.7012]
    """
    means = _as_table(mu, "mu")
    sds = _as_table(sigma, "sigma")
    if set(means) != set(sds):
        raise InvalidParameterError(
            "mu and sigma must cover the same (group, outcome) pairs; "
            f"only in mu: {sorted(set(means) - set(sds), key=repr)}, "
            f"only in sigma: {sorted(set(sds) - set(means), key=repr)}.",
            parameter="mu",
        )
    negative = [k for k, v in sds.items() if v < 0]
    if negative:
        raise InvalidParameterError(
            f"sigma must be >= 0; negative at {negative}.", parameter="sigma"
        )
    groups = _groups(means)
    incomplete = [g for g in groups if (g, 0) not in means or (g, 1) not in means]
    if incomplete:
        raise InvalidParameterError(
            f"mu: groups {incomplete} need both outcomes 0 and 1.", parameter="mu"
        )
    out = np.empty((len(groups), len(groups)))
    for r, a in enumerate(groups):
        for c, b in enumerate(groups):
            diff = means[(a, 1)] - means[(b, 0)]
            scale = math.hypot(sds[(a, 1)], sds[(b, 0)])
            if scale == 0:
                out[r, c] = 1.0 if diff > 0 else (0.5 if diff == 0 else 0.0)
            else:
                out[r, c] = stats.norm.cdf(diff / scale)
    index = pd.Index(groups, name=ROW_NAME)
    columns = pd.Index(groups, name=COLUMN_NAME)
    return pd.DataFrame(out, index=index, columns=columns)
