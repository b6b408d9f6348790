"""Real cohorts that ship with scikit-survival, prepared for audits (no download at run time)."""

from __future__ import annotations

from dataclasses import field

import pandas as pd

from .exceptions import InvalidParameterError
from .frozen import frozen_result
from .options import OptionTable, flag

__all__ = ["FlchainCohort", "load_flchain", "FLCHAIN_COVARIATES"]

#: Covariates used by default. ``chapter`` (cause of death) is never used: it is only recorded for
#: people who died, so it would leak the outcome. ``flc.grp`` is a decile grouping of kappa + lambda
#: and ``sample.yr`` the calendar year of the blood sample; both are left out as redundant.
FLCHAIN_COVARIATES = ("age", "female", "kappa", "lambda", "creatinine", "mgus")


@frozen_result
class FlchainCohort:
    """The flchain cohort (Dispenzieri et al. 2012; 7874 residents of Olmsted County aged >= 50).

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per analysed person: ``time`` (days from sample to death or last contact),
        ``event`` (bool, death), ``sex`` ("F"/"M"), and the numeric covariates.
    covariates : tuple of str
        Model covariates (columns of ``frame``); ``female`` is 1 for women, ``mgus`` 1 for MGUS.
    n_loaded : int
        Rows in the shipped data set.
    n_dropped : int
        Rows dropped because a requested covariate is missing.
    dropped_reason : str
        Which covariate was missing, in words, for reports.

    See Also
    --------
    load_flchain : loads it.
    """

    frame: pd.DataFrame = field(repr=False)
    covariates: tuple
    n_loaded: int
    n_dropped: int
    dropped_reason: str

    @property
    def design(self) -> pd.DataFrame:
        """Covariate matrix (float) in ``covariates`` order."""
        return self.frame.loc[:, list(self.covariates)].astype(float)


#: The scalar options of :func:`load_flchain` (1 or "yes" is refused, not taken as True).
_OPTIONS = OptionTable("load_flchain", perturb=flag())


def load_flchain(
    *, covariates: tuple | list = FLCHAIN_COVARIATES, perturb: bool = False
) -> FlchainCohort:
    """Load flchain from scikit-survival, encode it, and drop rows missing a requested covariate.

    Parameters
    ----------
    covariates : sequence of str, default=FLCHAIN_COVARIATES
        Any of "age", "female", "kappa", "lambda", "creatinine", "mgus", "sample_yr", "flc_grp".
    perturb : bool, default=False
        Apply the xCI paper's Section 6 perturbation: kappa + 1 and lambda - 1 for every woman,
        which correlates sex with the light-chain measurements.

    Returns
    -------
    FlchainCohort

    Raises
    ------
    InvalidParameterError (a TypeError)
        If ``perturb`` is not a boolean, or ``covariates`` is a single string.
    InvalidParameterError (a ValueError)
        If a covariate name is unknown.

    See Also
    --------
    compare : audit models fitted on the cohort side by side.
    xci : the estimator the examples run on it.

    Notes
    -----
    ``creatinine`` is missing for 1350 of 7874 people; requesting it drops those rows, and the
    number is reported in ``n_dropped`` (nothing is dropped silently).

    Examples
    --------
    >>> import survfair
    >>> cohort = survfair.load_flchain()
    >>> cohort.n_loaded - cohort.n_dropped == len(cohort.frame)
    True
    >>> list(cohort.covariates)
    ['age', 'female', 'kappa', 'lambda', 'creatinine', 'mgus']
    """
    perturb = _OPTIONS.check(locals())["perturb"]
    if isinstance(covariates, str):
        raise InvalidParameterError(
            f"covariates must be a sequence of column names, got the string {covariates!r}.",
            parameter="covariates",
        )
    from sksurv.datasets import load_flchain as _load

    features, outcome = _load()
    frame = pd.DataFrame(
        {
            "time": outcome["futime"].astype(float),
            "event": outcome["death"].astype(bool),
            "sex": features["sex"].astype(str).to_numpy(),
            "age": features["age"].astype(float),
            "female": (features["sex"].astype(str) == "F").astype(float).to_numpy(),
            "kappa": features["kappa"].astype(float),
            "lambda": features["lambda"].astype(float),
            "creatinine": features["creatinine"].astype(float),
            "mgus": (features["mgus"].astype(str) == "yes").astype(float).to_numpy(),
            "sample_yr": features["sample.yr"].astype(int).to_numpy(),
            "flc_grp": features["flc.grp"].astype(int).to_numpy(),
        }
    )
    unknown = [c for c in covariates if c not in frame.columns or c in ("time", "event", "sex")]
    if unknown:
        raise InvalidParameterError(
            f"covariates: unknown names {unknown}; choose from {list(frame.columns[3:])}.",
            parameter="covariates",
        )
    if perturb:
        women = frame["sex"] == "F"
        frame.loc[women, "kappa"] += 1.0
        frame.loc[women, "lambda"] -= 1.0
    missing = frame[list(covariates)].isna()
    rows = missing.any(axis=1).to_numpy()
    reasons = [f"{col} missing for {int(n)} rows" for col, n in missing.sum().items() if n > 0]
    kept = frame.loc[~rows].reset_index(drop=True)
    return FlchainCohort(
        frame=kept,
        covariates=tuple(covariates),
        n_loaded=int(frame.shape[0]),
        n_dropped=int(rows.sum()),
        dropped_reason="; ".join(reasons) if reasons else "none",
    )
