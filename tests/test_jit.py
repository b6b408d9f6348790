"""Where the compiled kernels are cached: never inside the installed package (issue 13)."""

import os
import subprocess
import sys
from pathlib import Path

import survfair
from survfair._jit import cache_directory


def test_cache_directory_is_outside_the_package():
    package = Path(survfair.__file__).resolve().parent
    assert package not in Path(cache_directory()).resolve().parents


def test_a_fresh_process_caches_in_its_own_directory_not_in_site_packages(tmp_path):
    """Before: numba wrote *.nbi/*.nbc into site-packages/survfair/__pycache__; `pip install -e`
    after `pip install .` then left that directory behind and `import survfair` found an empty
    namespace package."""
    package = Path(survfair.__file__).resolve().parent
    before = set((package / "__pycache__").glob("*.nb[ic]"))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SURVFAIR_CACHE_DIR"] = str(tmp_path)
    code = (
        "import numpy as np, survfair\n"
        "t = np.arange(1.0, 11.0)\n"
        "survfair.xci(t, np.ones(10, bool), np.arange(10) % 2, -t, method='naive', ci=None)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path)
    assert list(tmp_path.rglob("*.nbi")), "no cache index was written to SURVFAIR_CACHE_DIR"
    assert set((package / "__pycache__").glob("*.nb[ic]")) == before


def test_unwritable_choices_are_skipped_not_replaced_by_the_package(tmp_path, monkeypatch):
    """Review finding: an unwritable NUMBA_CACHE_DIR made numba fall back to the package's
    __pycache__; now the next usable directory is taken."""
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "sub"))
    monkeypatch.setenv("SURVFAIR_CACHE_DIR", str(blocker / "sub2"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache_directory.cache_clear()
    try:
        assert cache_directory() == str(tmp_path / "cache" / "survfair" / "numba")
    finally:
        cache_directory.cache_clear()


def test_a_shared_directory_others_can_write_is_not_trusted(tmp_path):
    from survfair._jit import _private

    shared = tmp_path / "survfair-numba"
    shared.mkdir()
    shared.chmod(0o777)
    assert not _private(shared)
    shared.chmod(0o700)
    assert _private(shared)


_KERNEL_MODULE = '''
from survfair._jit import cached_njit


@cached_njit(nogil=True)
def twice(x):
    return 2 * x
'''

_PROBE = '''
import sys
sys.path.insert(0, sys.argv[1])
import probe_kernel
from survfair._jit import compiled_in_cache
before = compiled_in_cache(probe_kernel.twice)
probe_kernel.twice(3.0)
print(before, compiled_in_cache(probe_kernel.twice))
'''


def test_compiled_in_cache_tells_whether_the_next_call_compiles(tmp_path):
    """What the command line's first phase reads (issue 17: the first call compiles for seconds):
    False in a fresh cache, True once compiled (in the process, and in the next process from the
    cache), False again after the kernel's source changed (numba then recompiles)."""
    source = tmp_path / "probe_kernel.py"
    source.write_text(_KERNEL_MODULE)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SURVFAIR_CACHE_DIR"] = str(tmp_path / "cache")

    def probe():
        out = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path)], check=True, env=env, cwd=tmp_path,
                             capture_output=True, text=True).stdout
        return out.split()

    assert probe() == ["False", "True"]
    assert probe() == ["True", "True"]
    source.write_text(_KERNEL_MODULE.replace("2 * x", "x + x"))
    os.utime(source, (1, 1))  # a stamp unlike the cached one even within the file system's time resolution
    assert probe() == ["False", "True"]
