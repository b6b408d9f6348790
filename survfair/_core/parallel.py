"""One meaning of ``n_jobs`` in every function of survfair.

``n_jobs`` is how many cores a call may use: the compiled kernels' threads and the joblib workers
of the bootstraps and the simulation studies alike. None: the ``n_jobs`` of a
``joblib.parallel_config(n_jobs=...)`` in force, else every core this process may use; -1
likewise; -k: all but k - 1 (joblib's convention); k >= 1: k. The numbers never depend on it:
replicate seeds are spawned up front and every sum is formed in a fixed order.

A count beyond the cores this process may use (:func:`available_cores`) is capped there with a
warning (:func:`capped_n_jobs`, called by the one check of ``n_jobs``,
:func:`survfair._core.options.check_n_jobs`): ``n_jobs=10**6`` used to reach joblib, which
refused it with "Numeric literal 2000000 is too large".
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["available_cores", "capped_n_jobs", "joblib_jobs", "cores"]

#: The directory of the survfair package: a warning is attributed to the first frame outside it.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def available_cores() -> int:
    """The cores this process may use: joblib's count, which honours the CPU affinity
    (``os.sched_getaffinity``) and container quotas, and is never below 1."""
    import joblib

    return max(1, int(joblib.cpu_count()))


def _local_backend() -> bool:
    """Whether joblib's active backend runs on this machine (loky, threads, processes, sequential):
    a Dask backend's workers are the cluster's, and a count of them is not capped."""
    from joblib.parallel import get_active_backend

    try:
        from joblib._parallel_backends import (
            LokyBackend,
            MultiprocessingBackend,
            SequentialBackend,
            ThreadingBackend,
        )
    except ImportError:  # pragma: no cover - a joblib without these classes: treat as local
        return True
    local = (LokyBackend, MultiprocessingBackend, SequentialBackend, ThreadingBackend)
    return isinstance(get_active_backend()[0], local)


def _user_stacklevel() -> int:
    """The ``stacklevel`` of a warning issued by the caller of this function that points at the
    first frame outside survfair (the user's call, however deep the check sits)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def capped_n_jobs(n_jobs: int | None) -> int | None:
    """``n_jobs`` (already checked: None or a non-zero integer) within the cores available.

    A count above :func:`available_cores` becomes that count, and -k that would leave no core
    (k - 1 >= the cores) becomes 1, each with a ``UserWarning`` that says so; None, -1 and counts
    that fit are returned unchanged. Under a non-local joblib backend (Dask) a positive count is
    the cluster's and is kept.
    """
    if n_jobs is None or n_jobs == -1:
        return n_jobs
    available = available_cores()
    if n_jobs > available and _local_backend():
        warnings.warn(
            f"n_jobs={n_jobs} is more than the {available} cores available to this process; "
            f"using n_jobs={available}.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
        return available
    if n_jobs < -1 and available + 1 + n_jobs < 1:
        warnings.warn(
            f"n_jobs={n_jobs} (every core but {-n_jobs - 1}) leaves none of the {available} cores "
            "available to this process; using n_jobs=1.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
        return 1
    return n_jobs


def joblib_jobs(n_jobs: int | None) -> int:
    """``n_jobs`` for ``joblib.Parallel``: None becomes the ``parallel_config`` in force, else -1
    (every core; a Dask backend then uses every worker of its cluster)."""
    if n_jobs is not None:
        return int(n_jobs)
    from joblib.parallel import get_active_backend

    configured = get_active_backend()[1]
    return -1 if configured is None else int(configured)


def cores(n_jobs: int | None) -> int:
    """How many cores ``n_jobs`` asks for, as a count (the compiled kernels' threads). The cores
    are joblib's count (it honours the process's CPU affinity and container quotas)."""
    import joblib

    jobs = joblib_jobs(n_jobs)
    return max(1, joblib.cpu_count() + 1 + jobs) if jobs < 0 else jobs
