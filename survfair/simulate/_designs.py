"""Cohort designs beyond the log-normal model: proportional hazards and accelerated failure time,
group-specific baselines and censoring, the structures of registry data (competing events,
delayed entry, case-cohort sampling with weights), and their true xCI.

A design is a frozen description of a data-generating process; :meth:`CohortDesign.draw`
simulates cohorts from it and :meth:`CohortDesign.true_xci` gives its population xCI by Monte
Carlo with the project's own exact kernel (with its Monte-Carlo standard error). Distributions
come from scipy.stats; censoring rates that hit a target censoring fraction are solved with
scipy.optimize.brentq.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.groups import label_array
from .._core.options import (
    OptionTable,
    argument_name,
    check_option,
    check_scalar,
    integer,
    one_of,
    optional,
    random_generator,
    real,
)
from .._core.results import json_safe

__all__ = [
    "CohortDesign",
    "TrueXCI",
    "ph_design",
    "aft_design",
    "PH_BASELINES",
    "AFT_DISTRIBUTIONS",
]

PH_BASELINES = ("exponential", "weibull", "gompertz")
AFT_DISTRIBUTIONS = ("lognormal", "loglogistic", "weibull")
SCORES = ("with_group", "without_group")
#: draws per group of the fixed reference sample on which censoring rates are solved
_REFERENCE_DRAWS = 200_000


def _per_group(
    value: Any, groups: tuple, name: str, low: float | None = None, closed: str = "left"
) -> tuple:
    """One number for every group, or a mapping with exactly the design's groups."""
    if isinstance(value, Mapping):
        if set(value) != set(groups):
            raise InvalidParameterError(
                f"{name}: give one value per group {list(groups)}, got keys {list(value)}.",
                parameter=argument_name(name),
            )
        values = [value[g] for g in groups]
    else:
        values = [value] * len(groups)
    return tuple(check_scalar(v, name, "real", low=low, closed=closed) for v in values)


def _check_groups(groups: Any) -> tuple[tuple, np.ndarray]:
    if not isinstance(groups, Mapping) or len(groups) < 1:
        raise InvalidParameterError(
            "groups must be a mapping of group label to its proportion, e.g. {'F': 0.5, 'M': 0.5}.",
            parameter="groups",
        )
    labels = tuple(groups)
    shares = np.array(
        [check_scalar(groups[g], "groups", "real", low=0, closed="neither") for g in labels]
    )
    if not np.isclose(shares.sum(), 1.0, rtol=0, atol=1e-9):
        raise InvalidParameterError(
            f"groups: the proportions must sum to 1, got {shares.sum():g}.", parameter="groups"
        )
    return labels, shares / shares.sum()


@frozen_result
class TrueXCI:
    """The population xCI of a design (Monte Carlo on a large uncensored sample, or exact).

    Attributes
    ----------
    groups : tuple
    tau : float or None
        Truncation (the IPCW target of eq. 5 of Wang et al. 2026); None: the whole follow-up.
    n_draws : int
        Individuals drawn (0 for an exact value).
    method : {"monte_carlo", "integral"}
    weighting : {"population", "entry"}
        ``"population"``: every event time counts as often as it occurs in the population.
        ``"entry"`` (designs with delayed entry): the target of the entry-respecting estimator
        (``xci(..., entry=)``, R's ``concordance(Surv(entry, time, status) ~ x)``), which sees a
        pair with an event at t only when both members entered before t: each event time weighs
        P(E < t)^2 (entry E independent of everything else).
    population : TrueXCI or None
        With ``weighting="entry"``, the population truth beside it.

    See Also
    --------
    CohortDesign.true_xci : computes it.
    coverage_study : compares estimates with it.
    """

    groups: tuple
    tau: float | None
    n_draws: int
    method: str
    values: np.ndarray = field(repr=False)
    mc_se: np.ndarray = field(repr=False)
    delta_between_values: dict = field(repr=False, default_factory=dict)
    weighting: str = "population"
    population: "TrueXCI | None" = field(repr=False, default=None)

    @property
    def matrix(self) -> pd.DataFrame:
        """xCI_{a,b}: rows a = group of the earlier event, columns b = the later member."""
        index = pd.Index(list(self.groups), name="a (earlier event)", tupleize_cols=False)
        columns = pd.Index(list(self.groups), name="b (later)", tupleize_cols=False)
        return pd.DataFrame(self.values, index=index, columns=columns)

    @property
    def se(self) -> pd.DataFrame:
        """Monte-Carlo standard errors aligned with :attr:`matrix` (0 for an exact value)."""
        return pd.DataFrame(self.mc_se, index=self.matrix.index, columns=self.matrix.columns)

    def delta_between(self, a: Any, b: Any) -> tuple[float, float]:
        """(xCI_{a,b} − xCI_{b,a}, its Monte-Carlo SE)."""
        if (a, b) in self.delta_between_values:
            return self.delta_between_values[(a, b)]
        value, se = self.delta_between_values[(b, a)]
        return -value, se

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: a, b, xci, mc_se."""
        g = len(self.groups)
        return pd.DataFrame(
            {
                "a": np.repeat(np.array(self.groups, dtype=object), g),
                "b": np.tile(np.array(self.groups, dtype=object), g),
                "xci": self.values.ravel(),
                "mc_se": self.mc_se.ravel(),
            }
        )

    def _repr_html_(self) -> str:
        """Jupyter display: the first line of the repr, then the first rows of :meth:`to_frame`."""
        from .._present.notebook import result_html  # the presentation layer, below this one

        return result_html(self)

    def to_dict(self) -> dict:
        out = {
            "groups": [str(g) for g in self.groups],
            "tau": self.tau,
            "n_draws": self.n_draws,
            "method": self.method,
            "weighting": self.weighting,
            "cells": self.to_frame().astype({"a": str, "b": str}).to_dict(orient="records"),
        }
        if self.population is not None:
            out["population"] = self.population.to_dict()
        return json_safe(out)


@frozen_result
class CohortDesign:
    """A data-generating process for survival cohorts with groups (build with :func:`ph_design`
    or :func:`aft_design`).

    Every individual has a group (drawn with :attr:`proportions`), a covariate Z ~ N(0, 1) and an
    event time T from the group's distribution; the risk score is the model's linear predictor
    with or without the group term (``score``), oriented so that higher = earlier event. Censoring
    is C = min(exponential with the group's rate, the administrative end).

    Attributes
    ----------
    model : {"ph", "aft"}
    family : str
        PH baseline ("exponential", "weibull", "gompertz") or AFT error distribution ("lognormal",
        "loglogistic", "weibull").
    groups : tuple
    proportions : tuple of float
    shape : tuple of float
        Per group: Weibull shape, Gompertz rate (per unit of time) or AFT sigma (scale of the
        log-time error).
    scale : tuple of float
        Per group: the baseline time scale (PH; the unit of time) or the AFT intercept of log T.
    group_effect : tuple of float
        Per group: log hazard ratio (PH) or shift of log T (AFT) added for members of the group.
    beta : float
        Effect of Z: log hazard ratio per SD (PH) or shift of log T per SD (AFT).
    score : {"with_group", "without_group"}
    censoring_rate : tuple of float
        Per group: rate of the exponential censoring (0 = none), in 1 / unit of time.
    administrative : float
        End of follow-up (inf = none).
    competing_rate : tuple of float
        Per group: rate of an exponential competing event D (cause 2; 0 = none), in 1 / unit of
        time, independent of T: the observed time is min(T, D, C) with cause 1 (T first), 2 (D
        first) or 0 (censored).
    entry_max : float
        Delayed entry (0 = none): each person enters at E ~ Uniform(0, entry_max) and is seen only
        if still under observation then (min(T, D, C) > E, left truncation).
    noncase_fraction : float
        Case-cohort sampling (1 = none): every event of cause 1 is kept and every other person with
        this probability, weighing 1 / noncase_fraction.

    See Also
    --------
    ph_design, aft_design : make it.
    coverage_study : replications of it.
    """

    model: str
    family: str
    groups: tuple
    proportions: tuple
    shape: tuple
    scale: tuple
    group_effect: tuple
    beta: float
    score: str
    censoring_rate: tuple
    administrative: float
    competing_rate: tuple = ()
    entry_max: float = 0.0
    noncase_fraction: float = 1.0

    @property
    def competing(self) -> bool:
        """Whether the design has a competing event (its cohorts then carry cause codes)."""
        return any(rate > 0 for rate in self.competing_rate)

    # -- event times -------------------------------------------------------------------------
    def _event_times(self, code: np.ndarray, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        shape, scale = np.asarray(self.shape)[code], np.asarray(self.scale)[code]
        effect = np.asarray(self.group_effect)[code] + self.beta * z
        if self.model == "ph":
            # inverse of the cumulative hazard at E exp(-lp), E ~ Exp(1):
            # S(t | x) = exp(-H0(t) e^lp)
            target = stats.expon.rvs(size=code.shape[0], random_state=rng) * np.exp(-effect)
            if self.family == "exponential":
                return scale * target
            if self.family == "weibull":
                return scale * target ** (1.0 / shape)
            return (
                np.log1p(target * shape * scale) / shape
            )  # Gompertz: H0(t) = (e^{rate t} - 1)/(rate scale)
        error = {"lognormal": stats.norm, "loglogistic": stats.logistic, "weibull": stats.gumbel_l}[
            self.family
        ]
        return np.exp(scale + effect + shape * error.rvs(size=code.shape[0], random_state=rng))

    def _risk(self, code: np.ndarray, z: np.ndarray) -> np.ndarray:
        group_term = np.asarray(self.group_effect)[code] if self.score == "with_group" else 0.0
        linear = group_term + self.beta * z
        return linear if self.model == "ph" else -linear  # AFT: a longer log-time is a lower risk

    def draw(self, n: int, *, random_state: Any = None) -> pd.DataFrame:
        """Simulate a cohort of ``n`` people.

        With delayed entry, people are drawn until ``n`` of them are under observation at their
        entry (the ``n`` rows are that observed cohort); with case-cohort sampling, the ``n``-person
        cohort is then sampled (fewer rows are returned, each with its weight).

        Returns
        -------
        DataFrame of shape (rows, 7 or more)
            ``time`` (min(T, C), or min(T, D, C) with a competing event), ``event`` (the event of
            interest observed: T first), ``group``, ``z``, ``risk`` (higher = earlier event),
            ``event_time`` (T) and ``censoring_time`` (C, inf when not censored by design); with a
            competing event also ``status`` (0 censored, 1 the event, 2 the competing event: pass
            ``event="status", cause=1``) and ``competing_time`` (D); with delayed entry ``entry``
            (E < time); with case-cohort sampling ``weight``.
        """
        n = check_scalar(n, "n", "integer", low=1)
        rng = random_generator(random_state)
        if self.entry_max > 0:  # left truncation: draw batches until n people are seen
            parts, seen = [], 0
            while seen < n:
                part = self._people(max(2 * (n - seen), 64), rng)
                part = part[part["entry"] < part["time"]]
                parts.append(part)
                seen += len(part)
            frame = pd.concat(parts, ignore_index=True).iloc[:n].reset_index(drop=True)
        else:
            frame = self._people(n, rng)
        if self.noncase_fraction < 1:
            keep = frame["event"].to_numpy() | (rng.random(len(frame)) < self.noncase_fraction)
            frame = frame[keep].reset_index(drop=True)
            frame["weight"] = np.where(frame["event"], 1.0, 1.0 / self.noncase_fraction)
        return frame

    def _people(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """n people from the population, before delayed entry and sampling are applied."""
        code = rng.choice(len(self.groups), size=n, p=np.asarray(self.proportions))
        z = rng.standard_normal(n)
        event_time = self._event_times(code, z, rng)
        rates = np.asarray(self.censoring_rate)[code]
        censor = np.full(n, np.inf)
        random = rates > 0
        censor[random] = stats.expon.rvs(size=int(random.sum()), random_state=rng) / rates[random]
        censor = np.minimum(censor, self.administrative)
        frame = pd.DataFrame(
            {
                "time": np.minimum(event_time, censor),
                "event": event_time <= censor,
                "group": label_array(self.groups)[code],
                "z": z,
                "risk": self._risk(code, z),
                "event_time": event_time,
                "censoring_time": censor,
            }
        )
        if self.competing:
            competing_time = self._competing_times(code, rng)
            first = np.minimum(event_time, competing_time)
            frame["time"] = np.minimum(first, censor)
            frame["event"] = (event_time <= competing_time) & (event_time <= censor)
            frame["status"] = np.where(frame["event"], 1, np.where(competing_time <= censor, 2, 0))
            frame["competing_time"] = competing_time
        if self.entry_max > 0:
            frame["entry"] = rng.uniform(0.0, self.entry_max, n)
        return frame

    def _competing_times(self, code: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rates = np.asarray(self.competing_rate)[code]
        times = np.full(code.shape[0], np.inf)
        positive = rates > 0
        times[positive] = (
            stats.expon.rvs(size=int(positive.sum()), random_state=rng) / rates[positive]
        )
        return times

    def censored_fraction(self, *, n: int = _REFERENCE_DRAWS, random_state: Any = 0) -> pd.Series:
        """Expected share of censored people per group (Monte Carlo on ``n`` draws per group).

        ``random_state`` defaults to 0 like :meth:`true_xci`, and for the same reason: the
        share is a property of the design approximated by Monte Carlo, the same in every call
        (the exception to survfair's ``random_state=None`` rule, see Conventions, "Seeds").
        """
        fractions = {}
        for code, label in enumerate(self.groups):
            times = self._group_times(code, n, random_state)
            fractions[label] = _censored(times, self.censoring_rate[code], self.administrative)
        return pd.Series(fractions, name="censored_fraction")

    def _group_times(self, code: int, n: int, random_state: Any) -> np.ndarray:
        """First event times (of any cause) of ``n`` members of group ``code``."""
        rng = random_generator(random_state)
        codes = np.full(n, code)
        times = self._event_times(codes, rng.standard_normal(n), rng)
        return np.minimum(times, self._competing_times(codes, rng)) if self.competing else times

    # -- the truth ---------------------------------------------------------------------------
    def true_xci(
        self,
        tau: float | None = None,
        *,
        n_truth: int = 1_000_000,
        random_state: Any = 0,
        weighting: str | None = None,
    ) -> TrueXCI:
        """True xCI by Monte Carlo: the exact O(n log n) kernel on a large uncensored sample.

        With ``tau`` the truncated estimand of eq. 5 (Wang et al. 2026), the target of IPCW:
        P(R_i > R_j | T_i < T_j, T_i < tau). The Monte-Carlo SE is the analytic (U-statistic)
        standard error of each cell on that sample. Equal numbers per group (the cells do not
        depend on the proportions). With a competing event, the cause-specific estimand of Wolbers
        et al. (2014) that ``xci(..., cause=1)`` estimates: i's event (T_i first, before ``tau``)
        against j still free of both events at T_i or whose competing event came first.
        Case-cohort sampling describes how a cohort is observed and its weights undo it: it leaves
        the truth alone. Delayed entry does not: the entry-respecting estimator compares i with j
        only when both entered before T_i, so it weighs an event at t by P(E < t)^2 (issue 33:
        not P(E < t), as the docs said before). For a design with delayed entry the default truth
        is that target (``weighting="entry"``: the same kernel with ``entry=`` on a large
        uncensored, left-truncated sample), with the population truth in its ``population`` field.

        Parameters
        ----------
        tau : float, optional
        n_truth : int, default=1_000_000
            Draws per group (10^6 per group: about 1-2 s per group pair on one core).
        random_state : None, int, numpy Generator / RandomState / SeedSequence, default=0
            Seed of the draw. Fixed by default, the one documented exception to survfair's
            ``random_state=None`` rule (see Conventions, "Seeds"): the result is a property of
            the design approximated by Monte Carlo, not a random sample, so a design has one
            truth in every call; pass other seeds to see the Monte-Carlo error.
        weighting : {"population", "entry"}, optional
            Default: ``"entry"`` for a design with delayed entry (what ``xci(..., entry=)``
            estimates), else ``"population"``. ``"entry"`` needs a design with delayed entry.

        Returns
        -------
        TrueXCI

        Raises
        ------
        ValueError
            For an unknown ``weighting``, or ``"entry"`` without delayed entry in the design.
        """
        n_truth = check_scalar(n_truth, "n_truth", "integer", low=10)
        tau = None if tau is None else check_scalar(tau, "tau", "real", low=0, closed="neither")
        weighting = (
            ("entry" if self.entry_max > 0 else "population") if weighting is None else weighting
        )
        check_option(weighting, "weighting", ("population", "entry"))
        if weighting == "entry" and not self.entry_max > 0:
            raise InvalidParameterError(
                "weighting='entry' needs a design with delayed entry (entry=...); "
                "this design has none.",
                parameter="weighting",
            )
        if weighting == "entry":
            population = self._monte_carlo_truth(tau, n_truth, random_state, delayed_entry=False)
            return self._monte_carlo_truth(
                tau, n_truth, random_state, delayed_entry=True, population=population
            )
        return self._monte_carlo_truth(tau, n_truth, random_state, delayed_entry=False)

    def _monte_carlo_truth(
        self,
        tau: float | None,
        n_truth: int,
        random_state: Any,
        *,
        delayed_entry: bool,
        population: TrueXCI | None = None,
    ) -> TrueXCI:
        """The naive kernel on ``n_truth`` uncensored draws per group; with ``delayed_entry`` the
        target of ``xci(..., entry=)``: only the people who enter before their first event are kept
        (left truncation), and the kernel compares them with ``entry=``."""
        from .._xci.estimator import xci
        from .._xci.summaries import delta_between

        rng = random_generator(random_state)
        g = len(self.groups)
        code = np.repeat(np.arange(g), n_truth)
        z = rng.standard_normal(code.shape[0])
        first = self._event_times(code, z, rng)
        status = np.ones(code.shape[0], np.int64)
        if self.competing:  # uncensored causes: 1 when T comes first, 2 when D does
            competing_time = self._competing_times(code, rng)
            status = np.where(first <= competing_time, 1, 2)
            first = np.minimum(first, competing_time)
        if (
            tau is not None
        ):  # events after tau are later than every event before it, whatever their cause
            status = np.where(first < tau, status, 0)
        if self.competing and not (status == 1).any():
            raise InvalidParameterError(
                "true_xci: no event of cause 1 before tau in the reference sample; raise tau.",
                parameter="tau",
            )
        seen, options = np.ones(code.shape[0], bool), {}
        if delayed_entry:
            entry = rng.uniform(0.0, self.entry_max, code.shape[0])
            seen = entry < first
            options["entry"] = entry[seen]
        labels, risk = label_array(self.groups)[code], self._risk(code, z)
        result = xci(
            first[seen],
            status[seen],
            labels[seen],
            risk[seen],
            method="naive",
            groups=list(self.groups),
            cause=1 if self.competing else None,
            **options,
        )
        deltas = {}
        for i, a in enumerate(self.groups):
            for b in self.groups[i + 1 :]:
                estimate = delta_between(result, a, b)
                deltas[(a, b)] = (float(estimate.value), float(estimate.se))
        return TrueXCI(
            self.groups,
            tau,
            int(seen.sum()),
            "monte_carlo",
            result.values,
            result.se.to_numpy(),
            deltas,
            "entry" if delayed_entry else "population",
            population,
        )

    def to_dict(self) -> dict:
        """JSON-safe description of the design."""
        return json_safe(
            {
                k: getattr(self, k)
                for k in (
                    "model",
                    "family",
                    "proportions",
                    "shape",
                    "scale",
                    "group_effect",
                    "beta",
                    "score",
                    "censoring_rate",
                    "administrative",
                    "competing_rate",
                    "entry_max",
                    "noncase_fraction",
                )
            }
            | {"groups": [str(g) for g in self.groups]}
        )


def _censored(times: np.ndarray, rate: float, end: float) -> float:
    """P(censored) = 1 − E[exp(−rate T) 1(T <= end)] for exponential censoring and an end of
    follow-up."""
    seen = times <= end
    return float(1.0 - np.mean(np.where(seen, np.exp(-rate * np.where(seen, times, 0.0)), 0.0)))


def _solve_rates(design: CohortDesign, fractions: tuple) -> tuple:
    """Exponential censoring rates giving each group its target censored fraction (brentq)."""
    rates = []
    for code, (label, target) in enumerate(zip(design.groups, fractions)):
        times = design._group_times(code, _REFERENCE_DRAWS, random_state=code)
        floor = _censored(times, 0.0, design.administrative)
        if target < floor - 1e-12:
            raise InvalidParameterError(
                f"censoring: group {label!r} cannot have a censored fraction of {target:g}: the "
                f"administrative end alone censors {floor:.3g} of it.",
                parameter="censoring",
            )
        if target <= floor + 1e-12:
            rates.append(0.0)
            continue
        if target >= 1.0:
            raise InvalidParameterError(
                f"censoring: a censored fraction must be below 1 (group {label!r}).",
                parameter="censoring",
            )
        high = 1.0 / np.median(times)
        while _censored(times, high, design.administrative) < target:
            high *= 4.0
        rates.append(
            float(
                optimize.brentq(
                    lambda r: _censored(times, r, design.administrative) - target,
                    0.0,
                    high,
                    xtol=1e-12,
                )
            )
        )
    return tuple(rates)


def _finish(design: CohortDesign, censoring: Any) -> CohortDesign:
    """Apply the censoring argument: None, {"rate": ...} or {"fraction": ...} (one or per group)."""
    if censoring is None:
        return design
    if (
        not isinstance(censoring, Mapping)
        or set(censoring) - {"rate", "fraction"}
        or len(censoring) != 1
    ):
        raise InvalidParameterError(
            "censoring must be None, {'rate': r} or {'fraction': f}; "
            "r and f one number or one per group.",
            parameter="censoring",
        )
    ((kind, value),) = censoring.items()
    if kind == "rate":
        rates = _per_group(value, design.groups, "censoring rate", low=0)
    else:
        fractions = _per_group(value, design.groups, "censoring fraction", low=0)
        rates = _solve_rates(design, fractions)
    return CohortDesign(**{**design.__dict__, "censoring_rate": rates})


def _build(
    model: str,
    family: str,
    groups: Mapping,
    shape: tuple,
    scale: tuple,
    group_effect: Any,
    beta: Any,
    score: str,
    censoring: Any,
    administrative: Any,
    competing: Any = None,
    entry: Any = None,
    case_cohort: Any = None,
) -> CohortDesign:
    """The validation both builders share; ``shape`` and ``scale`` are (argument name, value,
    whether it must be > 0)."""
    labels, shares = _check_groups(groups)
    positive = dict(low=0, closed="neither")

    def per_group(name, value, must_be_positive):
        return _per_group(value, labels, name, **(positive if must_be_positive else {}))

    design = CohortDesign(
        model=model,
        family=family,
        groups=labels,
        proportions=tuple(shares),
        shape=per_group(*shape),
        scale=per_group(*scale),
        group_effect=_per_group(group_effect, labels, "group_effect"),
        beta=check_scalar(beta, "beta", "real"),
        score=check_option(score, "score", SCORES),
        censoring_rate=(0.0,) * len(labels),
        administrative=np.inf
        if administrative is None
        else check_scalar(administrative, "administrative", "real", **positive),
        competing_rate=(0.0,) * len(labels)
        if competing is None
        else _competing_rates(competing, labels),
        entry_max=0.0 if entry is None else check_scalar(entry, "entry", "real", **positive),
        noncase_fraction=1.0
        if case_cohort is None
        else check_scalar(case_cohort, "case_cohort", "real", low=0, high=1, closed="right"),
    )
    return _finish(design, censoring)


def _competing_rates(competing: Any, labels: tuple) -> tuple:
    """The ``competing`` argument: {"rate": r}, one rate or one per group (1 / unit of time)."""
    if not isinstance(competing, Mapping) or set(competing) != {"rate"}:
        raise InvalidParameterError(
            "competing must be None or {'rate': r}, r one number or one per group "
            "(1 / unit of time).",
            parameter="competing",
        )
    return _per_group(competing["rate"], labels, "competing rate", low=0)


#: The scalar options of :func:`ph_design`; the per-group values (a number or one per group) and
#: the ``censoring`` / ``competing`` dicts are checked by the builder both designs share.
_PH_DESIGN_OPTIONS = OptionTable(
    "ph_design",
    baseline=one_of(*PH_BASELINES),
    beta=real(),
    score=one_of(*SCORES),
    administrative=optional(real(low=0, closed="neither")),  # None: no end of follow-up
    entry=optional(real(low=0, closed="neither")),  # None: no delayed entry
    case_cohort=optional(real(low=0, high=1, closed="right")),  # None: the full cohort
)


def ph_design(
    groups: Mapping,
    *,
    baseline: str = "weibull",
    shape: Any = 1.5,
    scale: Any = 10.0,
    group_effect: Any = 0.0,
    beta: float = 1.0,
    score: str = "with_group",
    censoring: Any = None,
    administrative: float | None = None,
    competing: Any = None,
    entry: float | None = None,
    case_cohort: float | None = None,
) -> CohortDesign:
    """A proportional-hazards design: h(t | g, z) = h0_g(t) exp(group_effect_g + beta z).

    Parameters
    ----------
    groups : mapping of label -> proportion
        The groups and their shares of the cohort (summing to 1), e.g. ``{"F": 0.5, "M": 0.5}``.
    baseline : {"exponential", "weibull", "gompertz"}, default="weibull"
        Baseline hazard: exponential H0(t) = t / scale; Weibull H0(t) = (t / scale)^shape;
        Gompertz h0(t) = exp(shape t) / scale (H0(t) = (e^{shape t} − 1) / (shape scale)).
    shape, scale : float or mapping of label -> float
        Baseline parameters, one for every group or one per group (group-specific baselines); scale
        in the unit of time, Gompertz shape per unit of time.
    group_effect : float or mapping, default=0.0
        Log hazard ratio added for members of each group.
    beta : float, default=1.0
        Log hazard ratio per standard deviation of the covariate Z ~ N(0, 1).
    score : {"with_group", "without_group"}, default="with_group"
        The risk score is the true linear predictor with or without the group term.
    censoring : None, {"rate": r} or {"fraction": f}, optional
        Exponential censoring with rate r (1 / unit of time), or the rate that gives the censored
        fraction f (solved numerically, including the administrative end); one value or one per
        group.
    administrative : float, optional
        End of follow-up (the same for everyone).
    competing : None or {"rate": r}, optional
        A competing event (cause 2) with exponential time of rate r (1 / unit of time), one value or
        one per group, independent of the event of interest; cohorts then carry ``status`` codes
        (audit with ``xci(..., event="status", cause=1)``) and the censoring fraction counts
        either event as observed.
    entry : float, optional
        Delayed entry: entry times E ~ Uniform(0, entry), in the unit of time; only people still
        under observation at E are drawn (left truncation; audit with ``entry="entry"``).
    case_cohort : float in (0, 1], optional
        Case-cohort sampling: every event of interest is kept, every other person with this
        probability, weighing its inverse (audit with ``weights="weight"``).

    Returns
    -------
    CohortDesign

    Raises
    ------
    InvalidParameterError
        For invalid parameters (named), groups whose proportions do not sum to 1, or a censored
        fraction the administrative end alone exceeds.

    See Also
    --------
    aft_design : accelerated-failure-time designs.
    coverage_study : replications of a design.
    ph_xci_integral : exact cells of a shared-baseline PH design.

    Examples
    --------
    >>> from survfair.simulate import ph_design
    >>> design = ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0.0, "M": 0.5},
    ...                    censoring={"fraction": 0.3})
    >>> cohort = design.draw(1000, random_state=0)
    >>> round(float(1 - cohort["event"].mean()), 2)
    0.3
    """
    _PH_DESIGN_OPTIONS.check(locals())
    return _build(
        "ph",
        baseline,
        groups,
        ("shape", shape, True),
        ("scale", scale, True),
        group_effect,
        beta,
        score,
        censoring,
        administrative,
        competing,
        entry,
        case_cohort,
    )


#: The scalar options of :func:`aft_design`; the per-group values (a number or one per group) and
#: the ``censoring`` / ``competing`` dicts are checked by the builder both designs share.
_AFT_DESIGN_OPTIONS = OptionTable(
    "aft_design",
    distribution=one_of(*AFT_DISTRIBUTIONS),
    beta=real(),
    score=one_of(*SCORES),
    administrative=optional(real(low=0, closed="neither")),  # None: no end of follow-up
    entry=optional(real(low=0, closed="neither")),  # None: no delayed entry
    case_cohort=optional(real(low=0, high=1, closed="right")),  # None: the full cohort
)


def aft_design(
    groups: Mapping,
    *,
    distribution: str = "lognormal",
    sigma: Any = 1.0,
    intercept: Any = 2.0,
    group_effect: Any = 0.0,
    beta: float = -0.5,
    score: str = "with_group",
    censoring: Any = None,
    administrative: float | None = None,
    competing: Any = None,
    entry: float | None = None,
    case_cohort: float | None = None,
) -> CohortDesign:
    """An accelerated-failure-time design:
    log T = intercept_g + group_effect_g + beta Z + sigma_g ε.

    ε is standard normal (log-normal T), standard logistic (log-logistic) or the minimum Gumbel
    (Weibull T); a negative ``beta`` shortens survival, so Z raises the risk. The risk score is
    minus the linear predictor (higher = earlier event). With ``distribution="lognormal"`` and two
    groups this is the model of Wang et al. (2026, eq. 8), whose xCI has a closed form
    (:func:`lognormal_xci`).

    Parameters
    ----------
    groups : mapping of label -> proportion
    distribution : {"lognormal", "loglogistic", "weibull"}, default="lognormal"
    sigma : float or mapping, default=1.0
        Scale of the log-time error (> 0), one or per group.
    intercept : float or mapping, default=2.0
        Intercept of log T (log of the unit of time), one or per group.
    group_effect : float or mapping, default=0.0
        Shift of log T for members of each group.
    beta : float, default=-0.5
        Shift of log T per standard deviation of Z.
    score, censoring, administrative, competing, entry, case_cohort
        As in :func:`ph_design`.

    Returns
    -------
    CohortDesign

    Raises
    ------
    InvalidParameterError
        As :func:`ph_design`.

    See Also
    --------
    ph_design : proportional-hazards designs.
    coverage_study : replications of a design.

    Examples
    --------
    >>> from survfair.simulate import aft_design
    >>> design = aft_design({1: 0.5, 0: 0.5}, group_effect={1: 0.8, 0: 0.0}, beta=-1.0, sigma=0.5)
    >>> design.draw(5, random_state=0).shape
    (5, 7)
    """
    _AFT_DESIGN_OPTIONS.check(locals())
    return _build(
        "aft",
        distribution,
        groups,
        ("sigma", sigma, True),
        ("intercept", intercept, False),
        group_effect,
        beta,
        score,
        censoring,
        administrative,
        competing,
        entry,
        case_cohort,
    )


#: The scalar options of :func:`ph_xci_integral` (``a`` and ``b`` are group labels).
_INTEGRAL_OPTIONS = OptionTable("ph_xci_integral", n_nodes=integer(low=2))


def ph_xci_integral(design: CohortDesign, a: Any, b: Any, *, n_nodes: int = 80) -> float:
    """Exact xCI_{a,b} of a PH design whose groups share one baseline, by numerical integration.

    With a common baseline, P(T_i < T_j | lp_i, lp_j) = e^{lp_i} / (e^{lp_i} + e^{lp_j}) whatever
    the baseline, so xCI_{a,b} = E[1(R_i > R_j) σ(lp_i − lp_j)] / E[σ(lp_i − lp_j)] over Z_i, Z_j
    ~ N(0, 1) independent (σ the logistic function). Computed on a Gauss-Hermite grid in
    (Z_i, Z_j), with the indicator integrated exactly along Z_i (the boundary R_i = R_j is a
    line), no truncation.

    Parameters
    ----------
    design : CohortDesign
        A proportional-hazards design (:func:`ph_design`) whose groups share one baseline
        (the same shape and scale); censoring plays no part.
    a, b : group labels
        The cell: ``a`` the group of the earlier event, ``b`` that of the later member.
    n_nodes : int, default=80
        Gauss-Hermite nodes along Z_j, an integer >= 2.

    Returns
    -------
    float
        The population xCI_{a,b} (uncensored, untruncated).

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``n_nodes`` is not an integer (booleans included).
    InvalidParameterError (a ValueError)
        If the design is not a shared-baseline PH design, ``a`` or ``b`` is not one of its
        groups, or ``n_nodes`` < 2.

    See Also
    --------
    CohortDesign.true_xci : the same cells by Monte Carlo, for any design.
    lognormal_xci : exact cells of the log-normal model.

    Examples
    --------
    >>> from survfair.simulate import ph_design, ph_xci_integral
    >>> design = ph_design({"F": 0.5, "M": 0.5}, group_effect={"F": 0.0, "M": 0.5})
    >>> round(ph_xci_integral(design, "F", "M"), 4), round(ph_xci_integral(design, "M", "F"), 4)
    (0.6174, 0.8158)
    """
    n_nodes = _INTEGRAL_OPTIONS.check(locals())["n_nodes"]
    if design.model != "ph" or len(set(design.shape)) > 1 or len(set(design.scale)) > 1:
        raise InvalidParameterError(
            "ph_xci_integral needs a PH design whose groups share one baseline (shape and scale).",
            parameter="design",
        )
    for name, label in (("a", a), ("b", b)):
        if label not in design.groups:
            raise InvalidParameterError(
                f"{name}: group {label!r} is not in the design (groups: {list(design.groups)}).",
                parameter=name,
            )
    i, j = design.groups.index(a), design.groups.index(b)
    nodes, weights = special.roots_hermitenorm(n_nodes)
    weights = weights / weights.sum()
    ga, gb = design.group_effect[i], design.group_effect[j]
    ra = ga if design.score == "with_group" else 0.0
    rb = gb if design.score == "with_group" else 0.0
    # for fixed Z_j, integrate over Z_i with a fine grid beyond the concordance boundary
    numerator = denominator = 0.0
    zi = np.linspace(-9, 9, 20001)
    dz = zi[1] - zi[0]
    density = stats.norm.pdf(zi)
    for zj, w in zip(nodes, weights):
        lp_diff = ga + design.beta * zi - gb - design.beta * zj
        prob = special.expit(lp_diff) * density
        concordant = (ra + design.beta * zi) > (rb + design.beta * zj)
        denominator += w * prob.sum() * dz
        numerator += w * prob[concordant].sum() * dz
    return float(numerator / denominator)
