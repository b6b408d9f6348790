"""Compiled kernels and where their on-disk cache lives.

numba's ``cache=True`` writes its cache files next to the source by default, i.e. into
``site-packages/survfair/__pycache__`` for an installed package. Those files are not part of the
installation record, so ``pip uninstall`` (or the uninstall step of ``pip install -e .``) leaves
``site-packages/survfair/`` behind holding only the cache; Python then imports that directory as
an empty namespace package and ``survfair.xci`` is an AttributeError from any directory outside
the checkout. survfair therefore always caches in a directory of its own:

1. ``NUMBA_CACHE_DIR`` when the user set it (numba's own setting wins);
2. else ``SURVFAIR_CACHE_DIR``;
3. else the user's cache directory: ``$XDG_CACHE_HOME/survfair/numba`` (``~/.cache/...``);
4. else, if that cannot be written, a per-user directory under the system's temporary directory.

Only survfair's own functions are affected: numba's global setting is restored after each
decoration.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from numba import njit
from numba.core import config

__all__ = ["cached_njit", "cache_directory"]


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def cache_directory() -> str:
    """The directory in which survfair's compiled kernels are cached (see the module docstring)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    candidates = []
    if os.environ.get("SURVFAIR_CACHE_DIR"):
        candidates.append(Path(os.environ["SURVFAIR_CACHE_DIR"]))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates.append(Path(base) / "survfair" / "numba")
    user = getattr(os, "getuid", lambda: "user")()
    candidates.append(Path(tempfile.gettempdir()) / f"survfair-numba-{user}")
    for directory in candidates:
        if _writable(directory):
            return str(directory)
    return ""  # nowhere writable: compile in memory, never into the package


def cached_njit(function=None, **options):
    """``numba.njit(cache=True, **options)`` with the cache in :func:`cache_directory`."""

    def decorate(func):
        directory = cache_directory()
        previous = config.CACHE_DIR
        config.CACHE_DIR = directory
        try:
            return njit(cache=bool(directory), **options)(func)
        finally:
            config.CACHE_DIR = previous

    return decorate if function is None else decorate(function)
