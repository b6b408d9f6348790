"""One meaning of ``n_jobs`` in every function of survfair.

``n_jobs`` is how many cores a call may use: the compiled kernels' threads and the joblib workers
of the bootstraps and the simulation studies alike. None: the ``n_jobs`` of a
``joblib.parallel_config(n_jobs=...)`` in force, else every core this process may use; -1
likewise; -k: all but k - 1 (joblib's convention); k >= 1: k. The numbers never depend on it:
replicate seeds are spawned up front and every sum is formed in a fixed order.
"""

from __future__ import annotations


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
