"""The result of :func:`survfair.calibration`: per group and horizon, with intervals
and contrasts."""

from __future__ import annotations

from dataclasses import field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._core.deprecation import DEPRECATED, renamed
from .._core.display import html_of
from .._core.exceptions import InvalidParameterError
from .._core.frozen import frozen_result
from .._core.intervals import (
    ConfidenceInterval,
    bootstrap_interval,
    bootstrap_p_value,
    table_interval,
    two_sided_z,
    wald_p_value,
)
from .._core.multiplicity import adjust_p_values
from .._core.options import check_confidence_level, check_option
from .._core.results import json_safe, readonly

__all__ = ["CalibrationResult", "STATISTICS", "CONTRASTED"]

#: statistic -> (scale of its Wald interval, value under perfect calibration or None)
STATISTICS = {
    "observed_risk": ("survival_log", None),
    "expected_risk": ("identity", None),
    "oe_ratio": ("log", 1.0),
    "intercept": ("identity", 0.0),
    "slope": ("identity", 1.0),
    "ici": ("identity", None),
    "e50": ("identity", None),
    "e90": ("identity", None),
    "brier": ("identity", None),
    "integrated_brier": ("identity", None),
}
#: statistics compared between groups by :meth:`CalibrationResult.contrasts`
CONTRASTED = ("oe_ratio", "intercept", "slope", "ici", "brier")
#: statistics that have analytic standard errors; the others get intervals from the bootstrap
ANALYTIC = (
    "observed_risk",
    "expected_risk",
    "oe_ratio",
    "intercept",
    "slope",
    "brier",
    "integrated_brier",
)


def km_risk_interval(
    risk: np.ndarray, se: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Interval of a Kaplan-Meier risk 1 - S from R's default "log" transform of S: S exp(±z SE/S),
    clipped to [0, 1] as R's ``survfit`` does; ``se`` is the SE of S (Greenwood's, or with
    ``cause=`` the infinitesimal-jackknife SE of the Aalen-Johansen incidence)."""
    z = two_sided_z(level)
    survival = 1.0 - np.asarray(risk, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        factor = np.where(survival > 0, np.exp(z * np.asarray(se, dtype=float) / survival), 1.0)
    return 1.0 - np.minimum(1.0, survival * factor), 1.0 - survival / factor


def _wald(
    estimate: np.ndarray, se: np.ndarray, scale: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Wald limits on each statistic's scale (log for O/E; R's default "log" for a KM risk)."""
    z = two_sided_z(level)
    low, high = estimate - z * se, estimate + z * se
    with np.errstate(
        divide="ignore", invalid="ignore", over="ignore"
    ):  # a huge SE: an interval to infinity
        # ``se`` of a "log" statistic is already SE(log estimate):
        # exp(log O/E +- z SE), never SE / O/E
        log = scale == "log"
        factor = np.exp(z * se)
        low = np.where(log, estimate / factor, low)
        high = np.where(log, estimate * factor, high)
    km = scale == "survival_log"
    if km.any():
        low[km], high[km] = km_risk_interval(estimate[km], se[km], level)
    return low, high


def _bootstrap_p(estimate: np.ndarray, draws: np.ndarray, null: np.ndarray) -> np.ndarray:
    """survfair's bootstrap p-value (:func:`bootstrap_p_value`) of every column against its own
    null (NaN where a statistic has none)."""
    p = np.full(estimate.shape[0], np.nan)
    for value in np.unique(null[np.isfinite(null)]):
        columns = null == value
        p[columns] = bootstrap_p_value(estimate[columns], draws[:, columns], None, float(value))
    return p


@frozen_result
class CalibrationResult:
    """Result of :func:`survfair.calibration`: calibration of predicted risks per group and horizon.

    Attributes
    ----------
    groups : tuple
        Group labels, in table order.
    times : ndarray of shape (n_times,)
        The horizons, ascending (read-only), in the unit of ``time``.
    censoring : {"group", "pooled", "cox"}
        Censoring survival of the Brier scores' IPCW weights.
    ci_method : {"analytic", "bootstrap", None}
    confidence_level : float
    n_bins, min_bin_events : int
        Risk groups of the Greenwood-Nam-D'Agostino test, and the fewest events a bin may hold.
    n_samples, n_excluded : int
        Rows analysed, and rows left out by ``groups=``.
    n_resamples : int or None
        Bootstrap replicates (``ci_method="bootstrap"``).
    min_censoring_survival : dict
        Smallest censoring survival used as a Brier weight, per group.
    cause : int or None
        Competing risks: the cause whose cumulative incidence was predicted (``cause=``); None
        without competing risks.
    brier_variance : {"influence", "conservative"}
        Variance of the Brier scores (see :func:`survfair.calibration`).
    censoring_model : CoxCensoringModel or None
        The fitted Cox model of the censoring (``censoring="cox"``), as ``xci``'s
        ``result.censoring_model``; None otherwise.
    slope_and_curve : bool
        Whether the Cox models of the slope and the smooth curve were fitted (see
        :func:`survfair.calibration`); False: slope, ICI, E50, E90 and the curves are NaN.

    See Also
    --------
    calibration : computes it.
    fairness_profile : each group's discrimination (xCI) beside its calibration.

    Examples
    --------
    A Weibull cohort whose predicted risks are the true F(5 | x) (so O/E is near 1 in both groups):

    >>> import numpy as np, survfair
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=600)
    >>> t_event = rng.weibull(1.5, 600) * np.exp(-0.5 * x) * 6
    >>> t_cens = rng.uniform(0, 15, 600)
    >>> time, event = np.minimum(t_event, t_cens), t_event <= t_cens
    >>> risk5 = 1 - np.exp(-(5 / (6 * np.exp(-0.5 * x))) ** 1.5)
    >>> group = np.where(rng.random(600) < 0.5, "F", "M")
    >>> res = survfair.calibration(time, event, group, risk5, times=5)
    >>> res.groups, res.times.tolist(), res.ci_method
    (('F', 'M'), [5.0], 'analytic')
    >>> res.to_frame().query("statistic == 'oe_ratio'")[
    ...     ["group", "estimate"]
    ... ].round(2).values.tolist()
    [['F', 0.91], ['M', 0.98]]
    >>> low, high = res.confidence_interval(0.9)  # another level, indexed as to_frame()'s rows
    >>> list(low.index.names)
    ['time', 'group', 'statistic']
    """

    groups: tuple
    times: np.ndarray = field(repr=False)
    censoring: str
    ci_method: str | None
    confidence_level: float
    n_bins: int
    min_bin_events: int
    n_samples: int
    n_excluded: int
    estimates: pd.DataFrame = field(repr=False)
    bins: pd.DataFrame = field(repr=False)
    curves: pd.DataFrame = field(repr=False)
    gnd: pd.DataFrame = field(repr=False)
    draws: np.ndarray | None = field(repr=False, default=None)
    n_resamples: int | None = None
    min_censoring_survival: dict = field(repr=False, default_factory=dict)
    cause: int | None = None
    brier_variance: str = "influence"
    censoring_model: Any = field(repr=False, default=None)
    slope_and_curve: bool = True

    def __post_init__(self):
        object.__setattr__(self, "times", readonly(self.times, dtype=float))
        if self.draws is not None:
            object.__setattr__(self, "draws", readonly(self.draws, dtype=float))

    # -- intervals ---------------------------------------------------------------------------
    def _limits(self, level: float) -> tuple[np.ndarray, np.ndarray]:
        frame = self.estimates
        estimate = frame["estimate"].to_numpy(float)
        if self.ci_method == "bootstrap" and self.draws is not None:
            return bootstrap_interval(estimate, self.draws, None, level)
        scale = frame["statistic"].map(lambda s: STATISTICS[s][0]).to_numpy()
        return _wald(estimate, frame["se_scale"].to_numpy(float), scale, level)

    def _p_values(self) -> np.ndarray:
        frame = self.estimates
        null = frame["statistic"].map(lambda s: STATISTICS[s][1]).astype(float).to_numpy()
        estimate = frame["estimate"].to_numpy(float)
        if self.ci_method == "bootstrap" and self.draws is not None:
            p = _bootstrap_p(estimate, self.draws, null)
        else:
            log = frame["statistic"].eq("oe_ratio").to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                value = np.where(log, np.log(estimate), estimate)
                centre = np.where(log, 0.0, null)
                p = wald_p_value(value - centre, frame["se_scale"].to_numpy(float))
        return np.where(np.isnan(null), np.nan, p)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval of every statistic: a :class:`~survfair.ConfidenceInterval` of two Series
        indexed by (time, group, statistic), in the row order of :meth:`to_frame`.

        Analytic intervals are Wald intervals on each statistic's scale: log for the O/E ratio,
        R's default "log" transform of the Kaplan-Meier survival for the observed risk, raw for
        the others; ICI, E50 and E90 have bootstrap intervals only (NaN otherwise). Bootstrap
        intervals are percentile intervals of the replicates.
        """
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        low, high = self._limits(level)
        frame = self.estimates[["time", "group", "statistic"]].copy()
        frame["ci_low"], frame["ci_high"] = low, high
        return table_interval(frame, ["time", "group", "statistic"])

    # -- tables ------------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Tidy table, one row per (time, group, statistic): time, group, n, events, n_clipped,
        statistic, estimate, se, ci_low, ci_high, null, p_value. ``integrated_brier`` rows have time
        NaN (over all horizons); ``n_clipped`` counts the group's predicted risks at that horizon
        that the cloglog transform clips (0 or 1 within 1e-10; they move the slope, intercept and
        ICI, see :func:`survfair.calibration`); ``null`` is the value under perfect calibration (O/E
        1, intercept 0, slope 1), the hypothesis of ``p_value``."""
        frame = self.estimates[
            ["time", "group", "n", "events", "n_clipped", "statistic", "estimate", "se"]
        ].copy()
        low, high = self._limits(self.confidence_level)
        frame["ci_low"], frame["ci_high"] = low, high
        frame["null"] = frame["statistic"].map(lambda s: STATISTICS[s][1]).astype(float)
        frame["p_value"] = self._p_values()
        return frame.reset_index(drop=True)

    def summary(self, horizon: float | None = None, *, time: Any = DEPRECATED) -> pd.DataFrame:
        """One row per group and horizon: counts, each statistic with its interval, the
        Greenwood-Nam-D'Agostino test.

        Parameters
        ----------
        horizon : float, optional
            The horizon to return, one of :attr:`times`. None (default): every horizon, in
            ascending order, each row labelled by its ``time`` column.
        time : float, optional
            Deprecated name of ``horizon`` (removed in 0.3).

        Returns
        -------
        DataFrame
            Indexed by group (table order within each horizon); columns time, n, events,
            n_clipped, each statistic (with ``<statistic>_ci_low`` / ``_ci_high`` for the observed
            risk, O/E, intercept, slope, ICI and Brier score), gnd_chi2, gnd_df, gnd_p. One row per
            group when ``horizon`` is given or the result has one horizon.

        Raises
        ------
        ValueError
            If ``horizon`` is not one of :attr:`times`.

        Examples
        --------
        >>> import numpy as np, survfair
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=400)
        >>> t = rng.exponential(5 * np.exp(-x)); c = rng.uniform(0, 10, 400)
        >>> g = np.where(rng.random(400) < 0.5, "F", "M")
        >>> risks = np.column_stack([1 - np.exp(-h * np.exp(x) / 5) for h in (2, 4)])
        >>> res = survfair.calibration(np.minimum(t, c), t <= c, g, risks, [2, 4])
        >>> res.summary()[["time", "n", "events"]]  # doctest: +NORMALIZE_WHITESPACE
               time    n  events
        group
        F       2.0  201      70
        M       2.0  199      68
        F       4.0  201      99
        M       4.0  199     101
        >>> res.summary(4)[["time", "n", "events"]].shape
        (2, 3)
        """
        horizon = renamed("CalibrationResult.summary", "time", "horizon", time, horizon)
        times = [float(t) for t in self.times] if horizon is None else [self._time(horizon)]
        frame_all = self.to_frame()
        parts = [self._summary_at(frame_all, t) for t in times]
        return pd.concat(parts) if len(parts) > 1 else parts[0]

    def _summary_at(self, frame: pd.DataFrame, t: float) -> pd.DataFrame:
        frame = frame[frame["time"] == t]
        wide = frame.pivot(index="group", columns="statistic", values="estimate")
        out = frame.drop_duplicates("group").set_index("group")[["n", "events", "n_clipped"]]
        out.insert(0, "time", t)
        for statistic in STATISTICS:
            if statistic not in wide.columns:
                continue
            rows = frame[frame["statistic"] == statistic].set_index("group")
            out[statistic] = rows["estimate"]
            if statistic in ("observed_risk", "oe_ratio", "intercept", "slope", "ici", "brier"):
                out[f"{statistic}_ci_low"] = rows["ci_low"]
                out[f"{statistic}_ci_high"] = rows["ci_high"]
        gnd = self.gnd[self.gnd["time"] == t].set_index("group")
        out["gnd_chi2"], out["gnd_df"], out["gnd_p"] = gnd["chi2"], gnd["df"], gnd["p_value"]
        out.index = pd.Index(list(out.index), name="group", tupleize_cols=False)
        return out.loc[[g for g in self.groups if g in out.index]]

    def _time(self, time: float | None) -> float:
        if time is None:
            return float(self.times[0])
        matches = np.flatnonzero(np.isclose(self.times, float(time), rtol=0, atol=0))
        if matches.size == 0:
            raise InvalidParameterError(
                f"time {time!r} is not one of the horizons {[float(t) for t in self.times]}.",
                parameter="time",
            )
        return float(self.times[matches[0]])

    def contrasts(
        self,
        statistics: Sequence[str] = CONTRASTED,
        *,
        adjust: str = "holm",
        confidence_level: float | None = None,
    ) -> pd.DataFrame:
        """Differences between groups, pair by pair (every a before b in :attr:`groups`).

        The O/E ratio is compared as a ratio (a over b, interval on the log scale, null 1), the
        others as differences a − b (null 0). Analytic: the groups are disjoint samples, so the
        variance of a difference is the sum of the two groups' variances (exact with
        ``censoring="group"``; with a pooled censoring curve the Brier scores share their weights
        and this ignores that dependence). Bootstrap: replicates resample within groups, so the
        contrast's replicates are the differences of the groups' replicates (percentile interval,
        p-value from the tails).

        Parameters
        ----------
        statistics : sequence of str, default=("oe_ratio", "intercept", "slope", "ici", "brier")
        adjust : {"holm", "bh", "bonferroni", "none"}, default="holm"
            Multiplicity adjustment of ``p_adjusted`` within each family: one statistic at one
            horizon.
        confidence_level : float, optional
            Default: the result's.

        Returns
        -------
        DataFrame
            time, statistic, a, b, estimate, se, ci_low, ci_high, null, p_value, p_adjusted.

        Raises
        ------
        ValueError
            For an unknown statistic or ``adjust``.
        """
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        for statistic in statistics:
            check_option(statistic, "statistics", CONTRASTED)
        z = two_sided_z(level)
        frame = self.estimates.reset_index(drop=True)
        rows = []
        for t in self.times:
            for statistic in statistics:
                here = frame[(frame["time"] == t) & (frame["statistic"] == statistic)]
                by_group = {g: i for i, g in zip(here.index, here["group"])}
                family = []
                for i, a in enumerate(self.groups):
                    for b in self.groups[i + 1 :]:
                        if a in by_group and b in by_group:
                            family.append(
                                self._contrast(frame, by_group[a], by_group[b], statistic, z, level)
                            )
                            family[-1].update(time=float(t), statistic=statistic, a=a, b=b)
                adjusted = (
                    adjust_p_values([r["p_value"] for r in family], adjust=adjust) if family else []
                )
                for r, p in zip(family, adjusted):
                    r["p_adjusted"] = float(p)
                rows += family
        columns = [
            "time",
            "statistic",
            "a",
            "b",
            "estimate",
            "se",
            "ci_low",
            "ci_high",
            "null",
            "p_value",
            "p_adjusted",
        ]
        return pd.DataFrame(rows, columns=columns)

    def _contrast(
        self, frame: pd.DataFrame, i: int, j: int, statistic: str, z: float, level: float
    ) -> dict:
        ratio = statistic == "oe_ratio"
        x, y = frame.at[i, "estimate"], frame.at[j, "estimate"]
        null = 1.0 if ratio else 0.0
        if self.ci_method == "bootstrap" and self.draws is not None:
            di, dj = self.draws[:, i], self.draws[:, j]
            with np.errstate(divide="ignore", invalid="ignore"):
                diff = di / dj if ratio else di - dj
            estimate = x / y if ratio else x - y
            low, high = bootstrap_interval(np.array([estimate]), diff[:, None], None, level)
            se = float(np.nanstd(diff, ddof=1))
            p = float(bootstrap_p_value(np.array([estimate]), diff[:, None], None, null)[0])
            return dict(
                estimate=estimate,
                se=se,
                ci_low=float(low[0]),
                ci_high=float(high[0]),
                null=null,
                p_value=p,
            )
        si, sj = frame.at[i, "se_scale"], frame.at[j, "se_scale"]
        se_scale = float(np.hypot(si, sj))
        if ratio:
            with np.errstate(divide="ignore", invalid="ignore"):
                log_ratio = np.log(x) - np.log(y)
            estimate = float(np.exp(log_ratio))
            low, high = np.exp(log_ratio - z * se_scale), np.exp(log_ratio + z * se_scale)
            p = float(wald_p_value(np.array([log_ratio]), np.array([se_scale]))[0])
            return dict(
                estimate=estimate,
                se=estimate * se_scale,
                ci_low=low,
                ci_high=high,
                null=null,
                p_value=p,
            )
        estimate = float(x - y)
        p = float(wald_p_value(np.array([estimate]), np.array([se_scale]))[0])
        return dict(
            estimate=estimate,
            se=se_scale,
            ci_low=estimate - z * se_scale,
            ci_high=estimate + z * se_scale,
            null=null,
            p_value=p,
        )

    def to_dict(self) -> dict:
        """JSON-safe dictionary: settings, the tidy statistics, the GND tests and the bins."""

        def records(frame: pd.DataFrame) -> list:
            return [
                {k: (str(v) if k in ("group", "a", "b") else v) for k, v in row.items()}
                for row in frame.to_dict(orient="records")
            ]

        return json_safe(
            {
                "groups": [str(g) for g in self.groups],
                "times": self.times,
                "censoring": self.censoring,
                "ci_method": self.ci_method,
                "confidence_level": self.confidence_level,
                "n_bins": self.n_bins,
                "min_bin_events": self.min_bin_events,
                "n_samples": self.n_samples,
                "n_excluded": self.n_excluded,
                "n_resamples": self.n_resamples,
                "cause": self.cause,
                "brier_variance": self.brier_variance,
                "slope_and_curve": self.slope_and_curve,
                "censoring_model": (
                    None if self.censoring_model is None else self.censoring_model.to_dict()
                ),
                "n_clipped": [
                    {"time": t, "group": str(g), "n_clipped": int(k)}
                    for t, g, k in self.estimates[self.estimates["statistic"] == "brier"][
                        ["time", "group", "n_clipped"]
                    ].itertuples(index=False)
                ],
                "statistics": records(self.to_frame()),
                "gnd": records(self.gnd),
                "bins": records(self.bins),
            }
        )

    def _repr_html_(self) -> str | None:
        """Jupyter display, drawn by the renderer the presentation layer registers."""
        return html_of(self)

    def to_text(self) -> str:
        """The result as plain text: a header, then one compact table per horizon (what ``print``
        and the terminal show).

        Per group: n, events, observed and mean predicted risk (%), O/E with its interval, the
        calibration slope, ICI, Brier score and the GND p-value; ``clipped`` (predicted risks of 0
        or 1 that the cloglog transform moved) only when any were.
        """
        level = f"{self.confidence_level:.0%}"
        kind = {
            "analytic": f"analytic {level} intervals",
            "bootstrap": f"bootstrap {level} intervals ({self.n_resamples} replicates)",
            None: "no intervals",
        }[self.ci_method]
        head = (
            f"CalibrationResult: {len(self.groups)} group(s), {self.n_samples} rows"
            + (f" ({self.n_excluded} excluded)" if self.n_excluded else "")
            + f", {kind}, censoring={self.censoring!r}"
            + (f", cause={self.cause} (cumulative incidence)" if self.cause is not None else "")
        )
        lines = [head]
        frame = self.to_frame()  # once, not once per horizon
        for t in self.times:
            summary = self._summary_at(frame, float(t))

            def fmt(value: float, spec: str) -> str:
                return format(value, spec) if np.isfinite(value) else "-"

            rows = []
            for group, row in summary.iterrows():
                oe = fmt(row["oe_ratio"], ".2f")
                if np.isfinite(row["oe_ratio_ci_low"]) and np.isfinite(row["oe_ratio_ci_high"]):
                    oe += f" [{row['oe_ratio_ci_low']:.2f}, {row['oe_ratio_ci_high']:.2f}]"
                entry = {
                    "group": str(group),
                    "n": int(row["n"]),
                    "events": int(row["events"]),
                    "observed %": fmt(100 * row["observed_risk"], ".1f"),
                    "predicted %": fmt(100 * row["expected_risk"], ".1f"),
                    "O/E": oe,
                    "slope": fmt(row["slope"], ".2f"),
                    "ICI": fmt(row["ici"], ".3f"),
                    "Brier": fmt(row["brier"], ".3f"),
                    "GND p": fmt(row["gnd_p"], ".3g"),
                }
                if summary["n_clipped"].any():
                    entry["clipped"] = int(row["n_clipped"])
                rows.append(entry)
            table = pd.DataFrame(rows).to_string(index=False)
            lines += ["", f"t = {float(t):g}", table]
        if self.cause is not None:
            lines += [
                "",
                "slope, intercept and ICI are not defined for a cumulative incidence "
                "(NaN, shown as -).",
            ]
        elif not self.slope_and_curve:
            lines += ["", "slope and ICI not computed (slope_and_curve=False; shown as -)."]
        integrated = self.estimates[self.estimates["statistic"] == "integrated_brier"]
        if len(integrated):
            lines += [
                "",
                "integrated Brier score: "
                + ", ".join(
                    f"{g} {e:.3f}" for g, e in zip(integrated["group"], integrated["estimate"])
                ),
            ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self.to_text()
