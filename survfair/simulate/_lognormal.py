"""Closed-form xCI of the log-normal model of Wang et al. (2026), Section 5 (Proposition 5.1).

Model (eq. 8): ``log T = beta0 + beta1 G + beta2 Z + eps`` with ``G in {0, 1}``,
``Z ~ N(0, sigma_z^2)`` and ``eps ~ N(0, sigma^2)`` independent, and the linear score
``beta1_hat G + beta2_hat Z``. For a pair (i, j) with ``G_i = a`` (earlier event) and
``G_j = b`` (later), the score difference ``U`` and the log-time difference
``D = log T_i - log T_j`` (and ``L = log T_i`` for truncation) are jointly normal, so the
concordance is a ratio of normal orthant probabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.options import TAU, OptionTable, check_scalar, one_of, real
from .._core.results import json_safe, readonly

__all__ = ["LognormalXCI", "lognormal_xci"]

#: Group labels of the simulator, paper's group a (G = 1) first.
GROUPS = (1, 0)
ROW_NAME = "a (earlier event)"
COLUMN_NAME = "b (later)"
METHODS = ("exact", "approx")
ORIENTATIONS = ("risk", "paper")
#: Gauss-Legendre nodes for the 1-D integral over log T_i (truncated truth).
_N_NODES = 160
#: Standardised log T_i below which the integrand is ignored (mass Phi(-12) ~ 2e-33).
_X_LOW = -12.0


# -- the joint normal law of (U, D, L) -----------------------------------------------------------
@dataclass(frozen=True)
class _PairLaw:
    """Mean and covariance of (U, D, L) for earlier group ``a`` and later group ``b``.

    ``U`` is the oriented score difference (U > 0 = concordant), ``D = log T_i - log T_j``,
    ``L = log T_i``.
    """

    mean: np.ndarray
    cov: np.ndarray


#: Below this P(D < 0), a cell is computed by conditioning on D (:func:`_given_earlier`).
_SMALL_DENOMINATOR = 1e-4


def _pair_law(a: int, b: int, p: dict, sign: float) -> _PairLaw:
    s2z, s2 = p["sigma_z"] ** 2, p["sigma"] ** 2
    b1, b2, h1, h2 = p["beta1"], p["beta2"], p["beta1_hat"], p["beta2_hat"]
    var_l = b2**2 * s2z + s2
    mean = np.array([sign * h1 * (a - b), b1 * (a - b), p["beta0"] + b1 * a])
    cov = np.array(
        [
            [2 * h2**2 * s2z, sign * 2 * h2 * b2 * s2z, sign * h2 * b2 * s2z],
            [sign * 2 * h2 * b2 * s2z, 2 * var_l, var_l],
            [sign * h2 * b2 * s2z, var_l, var_l],
        ]
    )
    return _PairLaw(mean, cov)


def _step(mean_u: float) -> float:
    """P(U > 0) for a degenerate U (constant ``mean_u``); a tie counts 1/2."""
    return 1.0 if mean_u > 0 else (0.5 if mean_u == 0 else 0.0)


def _bvn_lower(upper: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """P(X1 < upper1, X2 < upper2) for a bivariate normal; ``upper`` of shape (m, 2)."""
    upper = np.atleast_2d(upper)
    values = stats.multivariate_normal(mean=mean, cov=cov, allow_singular=True).cdf(upper)
    return np.atleast_1d(values)


def _exact_cell(law: _PairLaw, log_tau: float | None) -> tuple[float, float]:
    """(xCI, P(comparable)) of one cell, exact.

    Without truncation: P(U > 0, D < 0) / P(D < 0) with a bivariate normal CDF.
    With truncation at ``log_tau``: P(U > 0, D < 0, L < log_tau) / P(D < 0, L < log_tau); the
    numerator is integrated over L with Gauss-Legendre nodes, conditioning (U, D) on L.
    """
    mu, cov = law.mean, law.cov
    sd_d, sd_l = math.sqrt(cov[1, 1]), math.sqrt(cov[2, 2])
    if log_tau is None:
        denominator = float(stats.norm.cdf(-mu[1] / sd_d))
    else:
        denominator = float(_bvn_lower(np.array([[0.0, log_tau]]), mu[1:], cov[1:, 1:])[0])
    if denominator <= 0:
        return math.nan, denominator
    if cov[0, 0] == 0:  # degenerate score difference: a step function of its constant mean
        return _step(mu[0]), denominator
    if log_tau is None and denominator < _SMALL_DENOMINATOR:
        return _given_earlier(mu, cov), denominator
    if log_tau is None:
        numerator = float(_conditional_orthant(mu[None, :2], cov[:2, :2])[0])
        return min(max(numerator / denominator, 0.0), 1.0), denominator
    x_high = (log_tau - mu[2]) / sd_l
    if x_high <= _X_LOW:  # no mass below tau: the truncated estimand is undefined
        return math.nan, denominator
    nodes, weights = np.polynomial.legendre.leggauss(_N_NODES)
    lo, hi = _X_LOW, min(x_high, -_X_LOW)
    x = 0.5 * (hi - lo) * nodes + 0.5 * (hi + lo)
    w = 0.5 * (hi - lo) * weights * stats.norm.pdf(x)
    gain = cov[:2, 2] / cov[2, 2]
    cond_cov = cov[:2, :2] - np.outer(cov[:2, 2], cov[:2, 2]) / cov[2, 2]
    cond_mean = mu[:2][None, :] + np.outer(x * sd_l, gain)
    probs = _conditional_orthant(cond_mean, cond_cov)
    numerator = float(np.sum(w * probs))
    return min(max(numerator / denominator, 0.0), 1.0), denominator


def _given_earlier(mu: np.ndarray, cov: np.ndarray) -> float:
    """P(U > 0 | D < 0) as E[P(U > 0 | D) | D < 0], integrated over D's truncated normal law.

    Used when P(D < 0) is tiny: the bivariate normal CDF is accurate to about 1e-5 absolutely, so
    the ratio of two such CDFs near 1e-30 had no significant digit left (it gave 0 or 1 for a
    cell whose value is 0.72).
    """
    sd_d = math.sqrt(cov[1, 1])
    gain = cov[0, 1] / cov[1, 1]
    cond_sd = math.sqrt(max(cov[0, 0] - cov[0, 1] ** 2 / cov[1, 1], 0.0))

    def concordant(z: float) -> float:  # z: standardised D
        mean_u = mu[0] + gain * sd_d * z
        return float(stats.norm.cdf(mean_u / cond_sd)) if cond_sd > 0 else _step(mean_u)

    upper = -mu[1] / sd_d
    value = stats.truncnorm(-np.inf, upper).expect(concordant)
    return min(max(float(value), 0.0), 1.0)


def _conditional_orthant(cond_mean: np.ndarray, cond_cov: np.ndarray) -> np.ndarray:
    """P(U > 0, D < 0) for (U, D) ~ N(cond_mean[k], cond_cov), one value per row k."""
    flip = np.array([-1.0, 1.0])
    cov = cond_cov * np.outer(flip, flip)
    # P(-U < 0, D < 0) with mean m = P(Y < -m) for Y centred: shift the upper limits instead
    upper = -(cond_mean * flip)
    return _bvn_lower(upper, np.zeros(2), cov)


def conditional_moments(law: _PairLaw, *, variance: str = "corrected") -> tuple[float, float]:
    """Mean and variance of U given D < 0 by the truncated-normal formulas (Appendix C).

    ``variance="corrected"`` uses delta(alpha) = lambda (lambda + alpha) with
    lambda = phi(alpha) / Phi(alpha), alpha = -E[D] / sd(D) (upper truncation of D at 0).
    ``variance="printed"`` reproduces the sign error of the paper's Appendix C,
    lambda (lambda - alpha), whose "variance" can be negative.
    """
    mu_u, mu_d = law.mean[0], law.mean[1]
    var_u, cov_ud, var_d = law.cov[0, 0], law.cov[0, 1], law.cov[1, 1]
    sd_d = math.sqrt(var_d)
    alpha = -mu_d / sd_d
    # lambda = phi(alpha) / Phi(alpha), computed on the log scale for stability
    lam = math.exp(stats.norm.logpdf(alpha) - stats.norm.logcdf(alpha))
    delta = lam * (lam + alpha) if variance == "corrected" else lam * (lam - alpha)
    mean = mu_u - cov_ud / sd_d * lam
    var = var_u - cov_ud**2 / var_d * delta
    return float(mean), float(var)


def _approx_cell(law: _PairLaw) -> float:
    mean, var = conditional_moments(law)
    if law.cov[0, 0] == 0 or var <= 0:
        return _step(mean if law.cov[0, 0] > 0 else law.mean[0])
    return float(stats.norm.cdf(mean / math.sqrt(var)))


# -- public result and function ---------------------------------------------------------------
@frozen_result
class LognormalXCI:
    """Population xCI matrix of the log-normal model (:func:`lognormal_xci`).

    Rows ``a`` are the group of the member with the EARLIER event, columns ``b`` the later
    member, as in :class:`survfair.XCIResult`; groups are labelled 1 (G = 1, the paper's group
    a) and 0.

    Attributes
    ----------
    beta0, beta1, beta2, sigma_z, sigma : float
        True model parameters (eq. 8).
    beta1_hat, beta2_hat : float
        Coefficients of the linear score.
    tau : float or None
        Truncation time of eq. 5 (None: no truncation).
    method : {"exact", "approx"}
    orientation : {"risk", "paper"}
    cells : ndarray of shape (2, 2)
        xCI values, row-major in the order of :attr:`groups` (read-only).
    comparable : ndarray of shape (2, 2)
        P(T_i < T_j [, T_i < tau]) for independent members of groups (a, b): the probability
        that a pair is in the cell's denominator (read-only).
    groups : tuple
        ``(1, 0)``.

    See Also
    --------
    lognormal_xci : computes it.
    """

    beta0: float
    beta1: float
    beta2: float
    sigma_z: float
    sigma: float
    beta1_hat: float
    beta2_hat: float
    tau: float | None
    method: str
    orientation: str
    cells: np.ndarray = field(repr=False)
    comparable: np.ndarray = field(repr=False)
    groups: tuple = GROUPS

    def __post_init__(self):
        for name in ("cells", "comparable"):
            object.__setattr__(self, name, readonly(getattr(self, name), float))

    @property
    def values(self) -> np.ndarray:
        """The xCI matrix as a writable (2, 2) float array (a copy)."""
        return np.array(self.cells, copy=True)

    @property
    def matrix(self) -> pd.DataFrame:
        """xCI matrix: rows a = group of the earlier event, columns b = group of the later
        member."""
        return self._frame(self.cells)

    @property
    def comparable_probability(self) -> pd.DataFrame:
        """P(pair of groups (a, b) is comparable), aligned with :attr:`matrix`."""
        return self._frame(self.comparable)

    def to_frame(self) -> pd.DataFrame:
        """Long format: columns a, b, comparable_probability, xci (one row per cell)."""
        a, b = np.meshgrid(np.arange(2), np.arange(2), indexing="ij")
        labels = np.array(self.groups)
        return pd.DataFrame(
            {
                "a": labels[a.ravel()],
                "b": labels[b.ravel()],
                "comparable_probability": self.comparable.ravel(),
                "xci": self.cells.ravel(),
            }
        )

    def _repr_html_(self) -> str:
        """Jupyter display: the first line of the repr, then the first rows of :meth:`to_frame`."""
        from .._present.notebook import result_html  # the presentation layer, below this one

        return result_html(self)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: the model's parameters, the method and the cells
        (as :meth:`to_frame`)."""
        names = (
            "beta0",
            "beta1",
            "beta2",
            "sigma_z",
            "sigma",
            "beta1_hat",
            "beta2_hat",
            "tau",
            "method",
            "orientation",
        )
        return json_safe(
            {name: getattr(self, name) for name in names}
            | {"cells": self.to_frame().to_dict(orient="records")}
        )

    def _frame(self, values: np.ndarray) -> pd.DataFrame:
        index = pd.Index(list(self.groups), name=ROW_NAME)
        columns = pd.Index(list(self.groups), name=COLUMN_NAME)
        return pd.DataFrame(np.array(values, dtype=float), index=index, columns=columns)

    def __repr__(self) -> str:
        params = ", ".join(
            f"{k}={getattr(self, k)!r}"
            for k in (
                "beta0",
                "beta1",
                "beta2",
                "sigma_z",
                "sigma",
                "beta1_hat",
                "beta2_hat",
                "tau",
            )
        )
        with pd.option_context("display.precision", 4, "display.width", 120):
            body = str(self.matrix)
        return (
            f"LognormalXCI({params}, method={self.method!r}, "
            f"orientation={self.orientation!r})\n{body}"
        )


#: The scalar options of :func:`lognormal_xci` (the model's parameters are checked in the body).
_OPTIONS = OptionTable(
    "lognormal_xci",
    beta0=real(),
    tau=TAU,
    method=one_of(*METHODS),
    orientation=one_of(*ORIENTATIONS),
)


def lognormal_xci(
    beta1: float,
    beta2: float,
    sigma_z: float,
    sigma: float,
    beta1_hat: float,
    beta2_hat: float,
    *,
    beta0: float = 0.0,
    tau: float | None = None,
    method: str = "exact",
    orientation: str = "risk",
) -> LognormalXCI:
    """Population xCI of the log-normal model (Wang et al. 2026, Section 5, Proposition 5.1).

    Model (eq. 8): ``log T = beta0 + beta1 G + beta2 Z + eps``, ``G in {0, 1}``,
    ``Z ~ N(0, sigma_z^2)``, ``eps ~ N(0, sigma^2)``, all independent. The model's score is
    the linear predictor ``beta1_hat G + beta2_hat Z`` of log-time; survfair evaluates it as a
    risk (see Notes on orientation). For a pair with ``G_i = a`` (earlier event) and
    ``G_j = b`` (later), ``U`` = score difference (concordant when ``U > 0``) and
    ``D = log T_i - log T_j`` are jointly normal and

    ``xCI_{a,b} = P(U > 0, D < 0) / P(D < 0)``

    exactly (bivariate normal CDF, :func:`scipy.stats.multivariate_normal`; agrees with 1-D
    quadrature to 1e-9). With ``tau`` it is the truncated estimand of eq. 5,
    ``P(U > 0 | D < 0, log T_i < log tau)``, the quantity the IPCW estimator targets: a ratio
    of a trivariate and a bivariate normal probability, the trivariate one computed as a
    160-node Gauss-Legendre integral over ``log T_i`` of bivariate CDFs (agrees with scipy's
    trivariate normal CDF at tolerance 1e-9 to within a few 1e-9).

    Parameters
    ----------
    beta1 : float
        True group effect on log-time (group 1 lives ``exp(beta1)`` times longer).
    beta2 : float
        True effect of Z on log-time.
    sigma_z : float
        Standard deviation of Z, >= 0.
    sigma : float
        Standard deviation of the log-time error, > 0.
    beta1_hat, beta2_hat : float
        Coefficients of the score's linear predictor ``beta1_hat G + beta2_hat Z``.
    beta0 : float, default=0.0
        Intercept of log-time (log of the time unit); matters only with ``tau``.
    tau : float, optional
        Truncation time (same unit as ``exp(log T)``): condition on ``T_i < tau`` (eq. 5).
    method : {"exact", "approx"}, default="exact"
        ``"exact"``: the ratio of normal probabilities above. ``"approx"``: the corrected
        truncated-normal approximation ``Phi(E[U | D < 0] / sd(U | D < 0))`` of
        Proposition 5.1 / Appendix C (only without ``tau``).
    orientation : {"risk", "paper"}, default="risk"
        ``"risk"``: the score is the negated linear predictor
        ``risk = -(beta1_hat G + beta2_hat Z)`` (higher = earlier event, survfair's
        convention), so a good model has xCI > 0.5. ``"paper"``: the linear predictor itself is
        used as the score, the literal orientation of the paper, giving ``1 - xCI``.

    Returns
    -------
    LognormalXCI
        ``.matrix`` (2 x 2 DataFrame, rows a = group of the earlier event, columns b = later,
        labels 1 and 0), ``.comparable_probability`` and the parameters.

    Raises
    ------
    InvalidParameterError (a TypeError)
        If a parameter is not a real number (or ``tau`` not a number or None).
    InvalidParameterError (a ValueError)
        If a parameter is NaN/inf, ``sigma <= 0``, ``sigma_z < 0``, ``tau <= 0``, ``method`` or
        ``orientation`` is not one of the allowed values, or ``method="approx"`` with ``tau``.

    See Also
    --------
    lognormal_cohort : draws cohorts of the same model.
    study : the Section 5.1 study built on it.
    ph_xci_integral : exact cells of a PH design.

    Notes
    -----
    **The closed form printed in the paper is not exact.** (1) Appendix C swaps the signs of
    the truncated-normal variance factors: for ``D < 0`` (upper truncation at 0,
    ``alpha = -E[D]/sd(D)``) the factor must be ``delta(alpha) = lambda (lambda + alpha)`` with
    ``lambda = phi(alpha)/Phi(alpha)``, and for ``D > 0`` it must be
    ``lambda_R (lambda_R - alpha)`` with ``lambda_R = phi(alpha)/(1 - Phi(alpha))``; as printed
    the conditional variance is negative at the paper's own parameters (beta1 = 0.8,
    beta2 = 1, sigma_z = sigma = 0.5). (2) Even corrected, Z_i - Z_j given D < 0 is
    skew-normal, not normal, so ``Phi(mean/sd)`` is only an approximation (``method="approx"``).
    The bound 0.0065 from the exact value holds at the paper's parameters only (beta1 = 0.8,
    beta2 = 1, sigma_z = sigma = 0.5, beta2_hat = 1, over beta1_hat = 0.2, ..., 1.2). Elsewhere it
    can be much worse: over a grid of 972 parameter points (beta1 in {0, 0.4, 0.8, 1.6}, beta2 in
    {0.5, 1, 2}, sigma_z, sigma in {0.25, 0.5, 1}, beta1_hat in {0.2, 0.6, 1.2}, beta2_hat in
    {0.5, 1, 2}) the largest error was 0.082 (beta1 = 0.8, beta2 = 2, sigma_z = 1, sigma = 0.25,
    beta1_hat = 0.6, beta2_hat = 0.5). Use the exact value.
    The exact value is the ratio of normal probabilities above.

    **Orientation.** In the paper a larger ``beta_hat . x`` means a LONGER time, so the
    paper's "risk score" ranks the earlier event lower and its concordances lie below 0.5.
    survfair's convention is that a higher risk means an earlier event; by default the score
    here is the negated linear predictor. ``orientation="paper"`` returns the paper's literal
    numbers; the two are complements (``paper = 1 - risk``).

    **Ties.** When the score difference is degenerate (``beta2_hat = 0`` or ``sigma_z = 0``)
    it is a constant ``c``: the cell is 1 if ``c > 0`` (correct order), 0 if ``c < 0``, and 1/2
    if ``c = 0``, matching the estimator's convention that a tied risk counts 1/2. So
    within-group cells are 1/2 when ``beta2_hat = 0``.

    The within-group cells do not depend on ``beta1_hat`` (the group shift cancels).

    References
    ----------
    Wang, H. et al. (2026). Towards Fair Predictions: Group Conditional Concordance Index to
    Quantify Fairness in Time-to-Event Prognostication. arXiv:2606.16872, eq. 5 and 8,
    Proposition 5.1, Remark 5.1 and Appendix C.

    Tallis, G. M. (1961). The moment generating function of the truncated multi-normal
    distribution. JRSS B 23(1), 223-229.

    Examples
    --------
    >>> from survfair.simulate import lognormal_xci
    >>> res = lognormal_xci(0.8, 1.0, 0.5, 0.5, beta1_hat=0.8, beta2_hat=1.0)
    >>> round(float(res.matrix.loc[0, 0]), 4)  # within group 0: 1/2 + arcsin(1/sqrt(2))/pi
    0.75
    >>> bool(res.matrix.loc[0, 1] > 0.9)  # group 0 tends to fail first: easy to rank
    True
    """
    options = _OPTIONS.check(locals())
    params = {
        "beta0": options["beta0"],
        "beta1": check_scalar(beta1, "beta1"),
        "beta2": check_scalar(beta2, "beta2"),
        "sigma_z": check_scalar(sigma_z, "sigma_z", low=0),
        "sigma": check_scalar(sigma, "sigma", low=0, closed="neither"),
        "beta1_hat": check_scalar(beta1_hat, "beta1_hat"),
        "beta2_hat": check_scalar(beta2_hat, "beta2_hat"),
    }
    tau, method, orientation = options["tau"], options["method"], options["orientation"]
    if method == "approx" and tau is not None:
        raise InvalidParameterError(
            "method='approx' is the untruncated approximation of Proposition 5.1; use "
            "method='exact' with tau.",
            parameter="method",
        )
    sign = -1.0 if orientation == "risk" else 1.0
    log_tau = None if tau is None else math.log(tau)
    cells = np.empty((2, 2))
    comparable = np.empty((2, 2))
    for r, a in enumerate(GROUPS):
        for c, b in enumerate(GROUPS):
            law = _pair_law(a, b, params, sign)
            value, prob = _exact_cell(law, log_tau)
            comparable[r, c] = prob
            cells[r, c] = value if method == "exact" else _approx_cell(law)
    return LognormalXCI(
        **params,
        tau=tau,
        method=method,
        orientation=orientation,
        cells=cells,
        comparable=comparable,
    )
