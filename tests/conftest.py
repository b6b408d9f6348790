import importlib.metadata

import numpy as np
import pytest


def pytest_configure(config):
    """The tests exercise survfair as installed (``pip install --no-build-isolation -e ".[test]"``,
    the README's command; the compiled kernels exist only in an install), never a source
    tree that happens to be importable: an uninstalled checkout is a usage error."""
    try:
        importlib.metadata.distribution("survfair")
    except importlib.metadata.PackageNotFoundError:
        raise pytest.UsageError(
            "survfair is not installed; run: pip install meson-python meson ninja cython "
            '&& pip install --no-build-isolation -e ".[test]"'
        ) from None


def censored_cohort(seed: int, n: int = 240, n_groups: int = 3):
    """Three groups with group-dependent risk, exponential event and censoring times, a noisy risk
    score and its predicted 0.5-horizon risk; returns (rng, time, event, group, x, risk, predicted),
    the generator left where the draws ended (callers go on drawing from it)."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    x = rng.normal(size=n) + 0.3 * g
    t = rng.exponential(np.exp(-x))
    c = rng.exponential(2, n)
    risk = x + rng.normal(scale=0.5, size=n)
    predicted = (1 - np.exp(-np.exp(risk) * 0.5))[:, None]
    return rng, np.minimum(t, c), t <= c, g, x, risk, predicted


def pytest_report_header(config):
    import survfair

    return f"survfair {survfair.__version__} imported from {survfair.__file__}"


def make_data(n, n_groups, seed, *, n_times=25, n_risks=12, censor_rate=0.4, continuous=False):
    """Random survival data with ties in time and risk (unless continuous)."""
    rng = np.random.default_rng(seed)
    if continuous:
        time = rng.exponential(10, n)
        risk = rng.normal(size=n)
    else:
        time = rng.integers(1, n_times, n).astype(float)
        risk = rng.integers(0, n_risks, n).astype(float)
    event = rng.random(n) > censor_rate
    codes = rng.integers(0, n_groups, n)
    # make sure every group occurs
    codes[:n_groups] = np.arange(n_groups)
    return time, event, codes, risk


@pytest.fixture
def data_factory():
    return make_data


def with_fixed_se(result, se):
    """``result`` with analytic inference in which every cell has standard error ``se`` and the
    cells are uncorrelated (influence rows se * I), for tests of what is built on the intervals."""
    import dataclasses

    from survfair._core.influence import Influence

    k = len(result.groups) ** 2
    influence = Influence(se * np.eye(k), np.zeros(k), np.arange(k), None)
    return dataclasses.replace(result, influence=influence, ci_method="analytic")


@pytest.fixture
def row_path(monkeypatch):
    """Analytic intervals by the row path (survfair._core.influence), the moment engine switched off
    (survfair._core.moments): for tests of the rows themselves, their layout and their memory
    checks."""
    import survfair._core.inference
    import survfair._core.moments
    import survfair._xci.estimator

    for module in (survfair._core.moments, survfair._xci.estimator, survfair._core.inference):
        monkeypatch.setattr(module, "moments_apply", lambda *args, **kwargs: False)


@pytest.fixture
def moment_engine(monkeypatch):
    """Analytic intervals by the moment engine (survfair._core.moments) at any size: it otherwise
    takes over from the row path only where the rows would exceed ``ROW_PATH_BYTES`` (2 GiB)."""
    import survfair._core.moments

    monkeypatch.setattr(survfair._core.moments, "ROW_PATH_BYTES", 0)
