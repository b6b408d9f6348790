"""Refuse, before allocating, arrays that would not fit in memory (a clear error, not
MemoryError)."""

from __future__ import annotations

import os

from .exceptions import MemoryLimitError

__all__ = ["available_memory", "require_memory", "format_bytes"]

#: Share of the available memory one allocation may take: the rest is left for the copies that
#: numpy makes around it and for the rest of the process.
USABLE_SHARE = 0.8


def available_memory() -> int | None:
    """Bytes of memory available to this process now (Linux ``MemAvailable``), else the physical
    memory; None where neither can be read."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def format_bytes(n_bytes: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= size:
            return f"{n_bytes / size:.1f} {unit}"
    return f"{int(n_bytes)} bytes"


#: How each remedy of :class:`survfair.MemoryLimitError` is said to a Python user.
REMEDIES = {
    "groups": "audit fewer groups via groups=",
    "bootstrap": 'use ci="bootstrap"',
    "no_intervals": "use ci=None for point estimates only",
    "fewer_resamples": "use fewer n_resamples",
}


def require_memory(n_bytes: float, what: str, remedies: tuple[str, ...]) -> None:
    """Raise :class:`survfair.MemoryLimitError` if ``n_bytes`` would not fit.

    Parameters
    ----------
    n_bytes : float
        Size of the allocation about to be made.
    what : str
        What it is for, e.g. ``"the covariance of the 250000 cells"``.
    remedies : tuple of str
        Keys of :data:`REMEDIES`: what the user can do instead.
    """
    available = available_memory()
    if available is None or n_bytes <= USABLE_SHARE * available:
        return
    advice = ", or ".join(REMEDIES[r] for r in remedies)
    raise MemoryLimitError(
        f"{what} would need {format_bytes(n_bytes)} of memory, more than is available "
        f"({format_bytes(available)}); {advice}.",
        what=what,
        needed=int(n_bytes),
        available=available,
        remedies=remedies,
    )
