"""The estimator settings: one frozen object from the call to the result.

The five settings of the xCI estimator (``method``, ``tau``, ``censoring``, ``tied_tol``,
``strict``) are validated once, by :meth:`EstimatorSettings.checked`, and then travel as this
object: into the kernel, the inference, the paired comparison, mitigation and every result.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .frozen import frozen_result
from .options import (
    TAU,
    TIED_TOL,
    check_option,
    check_scalar,
    check_tau,
    check_tied_tol,
    flag,
    one_of,
)

__all__ = ["EstimatorSettings", "METHODS", "CENSORING", "CENSORING_MODELS"]

METHODS = ("naive", "ipcw")
CENSORING = ("group", "pooled")
#: ``xci`` also takes a covariate model of the censoring (``censoring="cox"``).
CENSORING_MODELS = CENSORING + ("cox",)

#: The rows of the option tables (``_core/options.py: OptionTable``) for the settings that are
#: not shared with other functions (``tau`` and ``tied_tol`` are ``options.TAU`` / ``TIED_TOL``).
METHOD = one_of(*METHODS)
CENSORING_OPTION = one_of(*CENSORING)
STRICT = flag()
#: The five settings' rows at once, for the tables of the functions that take all of them
#: (``OptionTable("xci", **SETTINGS_OPTIONS, ...)``).
SETTINGS_OPTIONS = {
    "method": METHOD,
    "tau": TAU,
    "censoring": CENSORING_OPTION,
    "tied_tol": TIED_TOL,
    "strict": STRICT,
}


@frozen_result
class EstimatorSettings:
    """How an xCI matrix is estimated (Wang et al. 2026, eqs. 3-7).

    Attributes
    ----------
    method : {"ipcw", "naive"}
        Eq. 7 (truncated IPCW) or eq. 4 (unweighted pair counts).
    tau : float or None
        Truncation time of the IPCW estimator, in the unit of ``time`` (None: no truncation).
    censoring : {"group", "pooled", "cox"}
        Kaplan-Meier of the censoring distribution per group (eq. 6) or for everyone, or (``xci``
        only) a Cox model of the censoring hazard on covariates. Kept as given for the naive
        estimator, which does not use it.
    tied_tol : float
        Risks closer than this are tied (count 1/2, or 0 with ``strict``).
    strict : bool
        The paper's literal eqs. 3-4: strict time order, tied risks count 0.

    See Also
    --------
    xci : the estimator the settings describe.

    Examples
    --------
    >>> from survfair._core.settings import EstimatorSettings
    >>> EstimatorSettings.checked(method="naive", tau=5)
    EstimatorSettings(method='naive', tau=5.0, censoring='group', tied_tol=1e-08, strict=False)
    """

    method: str = "ipcw"
    tau: float | None = None
    censoring: str = "group"
    tied_tol: float = 1e-8
    strict: bool = False

    @classmethod
    def checked(
        cls,
        method: Any = "ipcw",
        tau: Any = None,
        censoring: Any = "group",
        tied_tol: Any = 1e-8,
        strict: Any = False,
        *,
        censoring_options: tuple = CENSORING,
    ) -> "EstimatorSettings":
        """Validated settings (``censoring`` one of ``censoring_options``).

        Raises
        ------
        ValueError
            For an unknown ``method`` or ``censoring``, a ``tau`` that is not a finite number > 0,
            a negative or non-finite ``tied_tol``.
        TypeError
            For a non-numeric ``tau`` or ``tied_tol``, or a ``strict`` that is not a boolean.
        """
        return cls(
            method=check_option(method, "method", METHODS),
            tau=check_tau(tau),
            censoring=check_option(censoring, "censoring", censoring_options),
            tied_tol=check_tied_tol(tied_tol),
            strict=check_scalar(strict, "strict", "bool"),
        )

    @property
    def pair_options(self) -> dict:
        """method, tau, tied_tol and strict as keyword arguments (for your own calls; survfair's
        inference takes the settings object itself)."""
        return {
            "method": self.method,
            "tau": self.tau,
            "tied_tol": self.tied_tol,
            "strict": self.strict,
        }

    def to_dict(self) -> dict:
        """The settings as a plain dictionary (JSON-safe)."""
        return asdict(self)
