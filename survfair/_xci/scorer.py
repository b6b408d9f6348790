"""scikit-learn scorers that make cross-group ranking fairness a model-selection criterion."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._core.exceptions import InvalidParameterError
from .._core.options import OptionTable, one_of, real
from .estimator import xci
from .summaries import (
    OBJECTIVES,
    abs_delta_between,
    check_utility_weights,
    min_utility,
    min_xci,
    nash_welfare,
)

__all__ = ["make_xci_scorer", "xci_score"]

#: The objectives of :data:`survfair._xci.summaries.OBJECTIVES`, plus the pooled C for reference.
STATISTICS = (*OBJECTIVES, "overall")


#: The scalar options of :func:`xci_score` (``a`` and ``b`` are group labels; alpha and beta not
#: both 0 is checked in the body).
_SCORE_OPTIONS = OptionTable(
    "xci_score", statistic=one_of(*STATISTICS), alpha=real(low=0), beta=real(low=0)
)


def xci_score(
    y_true: Any,
    risk: Any,
    *,
    group: Any,
    statistic: str = "min_xci",
    a: Any = None,
    b: Any = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    **xci_kwargs: Any,
) -> float:
    """One fairness number of a risk score, larger = better, for model selection.

    Parameters
    ----------
    y_true : structured array of shape (n_samples,)
        scikit-survival's ``y`` (event, time).
    risk : array-like of shape (n_samples,)
        Risk scores, higher = earlier event (scikit-survival's ``predict``).
    group : array-like of shape (n_samples,)
        Sensitive-attribute labels, aligned with ``y_true`` (rows matched by position; pandas inputs
        whose indexes are not identical are refused).
    statistic : {"min_xci", "abs_delta_between", "min_utility", "nash_welfare", "overall"}, default="min_xci"
        The vocabulary of mitigation's objectives and of the summaries of the same names.
        ``"min_xci"``: smallest xCI cell (Wang et al. 2026, Section 4.2.2).
        ``"abs_delta_between"``: |xCI_{a,b} − xCI_{b,a}| (Section 4.2.1) for the groups ``a``,
        ``b``, or the largest over all pairs of groups, returned NEGATED (a loss; greater is
        better, as scikit-learn's ``neg_*`` scorers).
        ``"min_utility"``: min over groups of U(g) = alpha Σ_{h≠g} xCI_{g,h} + beta Σ_{h≠g}
        xCI_{h,g} (Section 4.3; maximin, the Rawlsian choice the paper suggests).
        ``"nash_welfare"``: prod over groups of U(g) (Section 4.3).
        ``"overall"``: the pooled C, for reference.
    a, b : group labels, optional
        The pair for ``"abs_delta_between"``.
    alpha, beta : float, default=1.0
        Utility weights: finite, >= 0, not both 0 (checked for every statistic).
    **xci_kwargs
        Passed to :func:`survfair.xci` (``method``, ``tau``, ``censoring``, ...).

    Returns
    -------
    float
        NaN when the statistic is undefined in this sample (e.g. an empty cell).

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``alpha`` or ``beta`` is not a number.
    InvalidParameterError (a ValueError)
        For an unknown ``statistic``, ``alpha`` / ``beta`` negative, non-finite or both 0, only
        one of ``a``/``b``, or from :func:`survfair.xci`.

    See Also
    --------
    make_xci_scorer : the scikit-learn scorer around it.
    min_xci, abs_delta_between, min_utility, nash_welfare : the same statistics with intervals.

    Examples
    --------
    >>> import numpy as np, survfair
    >>> from sksurv.util import Surv
    >>> y = Surv.from_arrays(event=[1, 1, 1, 1, 1, 1, 1, 0], time=[1, 2, 3, 4, 5, 6, 7, 8])
    >>> survfair.xci_score(y, [8, 3, 6, 5, 4, 7, 2, 1], group=list("abababab"), statistic="min_xci",
    ...                    method="naive")
    0.5
    """  # noqa: E501
    statistic = _SCORE_OPTIONS.check(locals())["statistic"]
    alpha, beta = check_utility_weights(alpha, beta)  # not both 0, for every statistic
    if (a is None) != (b is None):
        raise InvalidParameterError(
            "a and b must be given together (the pair of groups for Δbetween).", parameter="a"
        )
    if isinstance(risk, np.ndarray) and risk.ndim == 2 and risk.shape[1] == 1:
        risk = risk[:, 0]  # predict() of some estimators returns a column; a Series keeps its index
    # a score needs the point estimate only: no intervals unless asked for
    result = xci(y_true, None, group, risk, **{"ci": None, **xci_kwargs})
    if statistic == "min_xci":
        return float(min_xci(result).value) if not np.isnan(result.values).all() else float("nan")
    if statistic == "overall":
        return float(result.overall)
    if statistic == "min_utility":
        return float(min_utility(result, alpha=alpha, beta=beta).value)
    if statistic == "nash_welfare":
        return float(nash_welfare(result, alpha=alpha, beta=beta).value)
    return -float(abs_delta_between(result, a=a, b=b).value)


class _ColumnGroupScorer:
    """Scorer ``(estimator, X, y) -> float`` that reads the group from a column of X."""

    def __init__(self, group_column: str, drop: bool, kwargs: dict):
        self.group_column = group_column
        self.drop = drop
        self.kwargs = kwargs

    def __call__(self, estimator: Any, X: Any, y_true: Any, **_: Any) -> float:
        if not isinstance(X, pd.DataFrame) or self.group_column not in X.columns:
            raise InvalidParameterError(
                f"group_column: {self.group_column!r} is not a column of X.",
                parameter="group_column",
            )
        group = X[self.group_column].to_numpy()
        features = X.drop(columns=[self.group_column]) if self.drop else X
        return xci_score(y_true, estimator.predict(features), group=group, **self.kwargs)

    def __repr__(self) -> str:
        return f"make_xci_scorer(group_column={self.group_column!r}, {self.kwargs})"


#: The scalar options of :func:`make_xci_scorer`, refused when the scorer is made, not per fold
#: (``group_column`` is a column label of X, looked up when the scorer is called).
_SCORER_OPTIONS = OptionTable(
    "make_xci_scorer", statistic=one_of(*STATISTICS), alpha=real(low=0), beta=real(low=0)
)


def make_xci_scorer(
    *,
    statistic: str = "min_xci",
    group_column: str | None = None,
    a: Any = None,
    b: Any = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    **xci_kwargs: Any,
):
    """A scorer for ``GridSearchCV`` / ``cross_validate`` that scores a fairness statistic.

    The estimator's ``predict`` must return risk scores (higher = earlier event), as every
    scikit-survival estimator does; ``y`` is scikit-survival's structured array.

    Two ways to give the sensitive attribute:

    * **Metadata routing** (default, ``group_column=None``): enable routing and request it::

          sklearn.set_config(enable_metadata_routing=True)
          scorer = make_xci_scorer(statistic="min_xci").set_score_request(group=True)
          GridSearchCV(est, grid, scoring=scorer).fit(X, y, group=g)

      sklearn splits ``group`` with the folds.
    * **A column of X** (``group_column="sex"``, no routing needed): the scorer reads the group
      from that column of the DataFrame X. With ``drop_group=True`` in ``xci_kwargs`` the column
      is removed before ``predict`` (the estimator must then be a pipeline that ignores it at
      fit time as well, e.g. a ``ColumnTransformer``); by default it is kept.

    Parameters
    ----------
    statistic : {"min_xci", "abs_delta_between", "min_utility", "nash_welfare", "overall"}, default="min_xci"
        See :func:`xci_score`; every choice is "greater is better" (``abs_delta_between`` is
        negated).
    group_column : str, optional
        Read the group from this column of X instead of from routed metadata.
    a, b, alpha, beta, **xci_kwargs
        As in :func:`xci_score` (``drop_group`` is consumed here).

    Returns
    -------
    scorer
        With ``group_column=None`` a scikit-learn scorer made by ``sklearn.metrics.make_scorer``
        (supports ``set_score_request``); otherwise a callable ``(estimator, X, y) -> float``.

    Raises
    ------
    InvalidParameterError (a ValueError)
        For an unknown ``statistic``, or without ``group_column`` when scikit-learn's metadata
        routing is off (the scorer would never receive the group).

    See Also
    --------
    xci_score : the number the scorer returns.
    mitigate.group_shift : optimises the same objectives after fitting.

    Examples
    --------
    >>> import numpy as np, pandas as pd, survfair
    >>> from sklearn.model_selection import cross_val_score
    >>> from sksurv.linear_model import CoxPHSurvivalAnalysis
    >>> from sksurv.util import Surv
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"marker": rng.normal(size=300), "female": rng.integers(0, 2, 300)})
    >>> t = rng.exponential(np.exp(-X["marker"]))
    >>> y = Surv.from_arrays(event=rng.random(300) < 0.8, time=t)
    >>> scorer = survfair.make_xci_scorer(statistic="min_xci", group_column="female", tau=2.0)
    >>> scores = cross_val_score(CoxPHSurvivalAnalysis(), X, y, cv=3, scoring=scorer)
    >>> scores.shape, bool(((scores > 0) & (scores < 1)).all())
    ((3,), True)
    """  # noqa: E501
    import sklearn
    from sklearn.metrics import make_scorer

    statistic = _SCORER_OPTIONS.check(locals())["statistic"]
    alpha, beta = check_utility_weights(alpha, beta)  # not both 0
    if group_column is None and not sklearn.get_config().get("enable_metadata_routing", False):
        # without routing, scikit-learn calls the scorer without the group, catches the error and
        # reports only "Scoring failed" and NaN: refuse here, saying what to do
        raise InvalidParameterError(
            "the scorer needs the group of every row: pass group_column='<column of X>', or enable "
            "metadata routing (sklearn.set_config(enable_metadata_routing=True)) before making the "
            "scorer and pass group=... to the search's fit or cross_validate's params.",
            parameter="group_column",
        )
    drop = bool(xci_kwargs.pop("drop_group", False))
    kwargs = dict(statistic=statistic, a=a, b=b, alpha=alpha, beta=beta, **xci_kwargs)
    if group_column is not None:
        return _ColumnGroupScorer(group_column, drop, kwargs)
    return make_scorer(xci_score, greater_is_better=True, **kwargs)
