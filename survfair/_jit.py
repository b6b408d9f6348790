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
4. else a directory of the system's temporary directory that this user owns and nobody else
   can write (numba's cache files are pickles: a directory others can write is not trusted);
5. else no on-disk cache at all (the kernels compile in memory at every start).

The first of these that can be written is used; an unwritable choice is skipped, never
silently replaced by numba's default next to the source. Only survfair's own functions are
affected: numba's global setting is restored after each decoration.
"""

from __future__ import annotations

import functools
import os
import pickle
import tempfile
from pathlib import Path

from numba import njit
from numba.core import config
from numba.core.caching import NullCache

__all__ = ["cached_njit", "cache_directory", "compiled_in_cache"]


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError:
        return False
    return True


def _private(directory: Path) -> bool:
    """A directory this user owns and that nobody else may write (for the shared temp dir)."""
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        status = directory.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return False
    return not status.st_mode & 0o022 and _writable(directory)


@functools.lru_cache(maxsize=1)
def cache_directory() -> str:
    """The directory in which survfair's compiled kernels are cached (see the module docstring);
    empty when none can be used."""
    for variable in ("NUMBA_CACHE_DIR", "SURVFAIR_CACHE_DIR"):
        if os.environ.get(variable) and _writable(Path(os.environ[variable])):
            return os.environ[variable]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if _writable(Path(base) / "survfair" / "numba"):
        return str(Path(base) / "survfair" / "numba")
    user = getattr(os, "getuid", lambda: "user")()
    shared = Path(tempfile.gettempdir()) / f"survfair-numba-{user}"
    return str(shared) if _private(shared) else ""


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


def compiled_in_cache(*kernels) -> bool:
    """Whether each of these :func:`cached_njit` kernels has a compiled version for this machine in
    the on-disk cache, so that its next call loads it instead of compiling (which takes seconds: the
    command line says so while it waits).

    A kernel already compiled in this process counts as cached. Otherwise reads numba's cache index
    of the kernel: its entries are dropped when the source changed since they were written, and
    each is kept for one CPU (target triple, name and features). Without an on-disk cache
    (:func:`cache_directory` empty) every process compiles. Answers True when the index cannot be
    read this way (another numba's layout), so that nothing claims a compilation it cannot see.
    """
    for kernel in kernels:
        if kernel.signatures:
            continue
        if isinstance(getattr(kernel, "_cache", None), NullCache):  # no on-disk cache: it compiles
            return False
        try:
            cache = kernel._cache._cache_file
            machine = kernel.targetctx.codegen().magic_tuple()
            entries = cache._load_index()
        except (AttributeError, OSError, EOFError, pickle.UnpicklingError, ValueError):
            return True
        if not any(isinstance(key, tuple) and len(key) > 1 and key[1] == machine for key in entries):
            return False
    return True
