"""One meaning of n_jobs in every function (issue 35): the cores a call may use."""

from __future__ import annotations

import joblib
import numpy as np
import pytest

import survfair
from survfair._core import parallel


def test_none_means_every_core_or_the_joblib_config_in_force():
    assert parallel.joblib_jobs(None) == -1
    assert parallel.cores(None) == joblib.cpu_count()
    with joblib.parallel_config(n_jobs=1):
        assert parallel.joblib_jobs(None) == 1 and parallel.cores(None) == 1
    assert parallel.cores(-1) == joblib.cpu_count() and parallel.cores(3) == 3
    assert parallel.cores(-joblib.cpu_count() - 5) == 1


@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1])
def test_the_xci_bootstrap_gives_the_same_numbers_for_any_n_jobs(n_jobs):
    rng = np.random.default_rng(0)
    n = 200
    group = rng.integers(0, 2, n)
    x = rng.normal(size=n)
    t, c = rng.exponential(np.exp(-x)), rng.exponential(2.0, n)
    time, event = np.minimum(t, c), t <= c
    options = dict(ci="bootstrap", n_resamples=40, random_state=3, tau=1.0)
    reference = survfair.xci(time, event, group, x, n_jobs=1, **options)
    res = survfair.xci(time, event, group, x, n_jobs=n_jobs, **options)
    np.testing.assert_array_equal(res.bootstrap.cells, reference.bootstrap.cells)
