"""The documentation cannot drift from the code.

* Every ```python block of every page under docs/ is executed, in page order, in one namespace per
  page, in a temporary working directory, with matplotlib's Agg backend. A page's blocks form one
  script: a later block may use names defined by an earlier one.
* ``mkdocs build --strict`` succeeds (no warning: broken links, missing pages, docstrings griffe
  cannot parse, a missing snippet such as CHANGELOG.md).
* Every public name of ``survfair``, ``survfair.simulate``, ``survfair.mitigate`` and
  ``survfair.plotting`` appears in the API reference.

``console``/``text`` blocks (shell commands and printed output) are not executed.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = "README.md"  # the repository's front page is executed like a docs page
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")) + [README]

FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)


def python_blocks(page: str) -> list[tuple[int, str]]:
    """(line number, dedented source) of every ```python block of a page, in order."""
    text = (DOCS / page if page != README else ROOT / page).read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        if match.group("lang") == "python":
            line = text.count("\n", 0, match.start()) + 2
            blocks.append((line, textwrap.dedent(match.group("body"))))
    return blocks


def test_runner_finds_blocks():
    """Guards the runner itself: the regular expression must see the pages' blocks."""
    counted = {page: len(python_blocks(page)) for page in PAGES}
    assert counted["getting-started.md"] >= 2
    assert counted["concepts.md"] >= 3
    assert sum(counted.values()) >= 30, counted
    sample = "text\n```python\nx = 1\n```\n\n```console\n$ ls\n```\n    ```python\n    y = 2\n    ```\n"
    assert [body for _, body in _blocks_of(sample)] == ["x = 1\n", "y = 2\n"]


def _blocks_of(text: str):
    return [(0, textwrap.dedent(m.group("body"))) for m in FENCE.finditer(text) if m.group("lang") == "python"]


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)])
def test_page_code_runs(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(page)
    namespace = {"__name__": f"docs:{page}"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for line, source in blocks:
                code = compile(source, f"docs/{page}:{line}", "exec")
                exec(code, namespace)  # noqa: S102 - executing our own documentation
    finally:
        plt.close("all")


def test_mkdocs_build_strict(tmp_path):
    """``mkdocs build --strict`` passes (mkdocs, mkdocs-material, mkdocstrings[python] are test extras)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    html = (tmp_path / "site" / "reference" / "survfair" / "index.html").read_text(encoding="utf-8")
    assert 'id="survfair.xci"' in html
    # docs/griffe_rst.py renders the numpydoc reST: no raw Sphinx role, tables as tables
    for page in (tmp_path / "site" / "reference").rglob("*.html"):
        assert ":func:`" not in page.read_text(encoding="utf-8") and ":func:" not in page.read_text(encoding="utf-8"), page
    risk_scores = html[html.index('id="survfair.risk_scores"'):html.index('id="survfair.fit_checked"')]
    assert "<table>" in risk_scores and "=====" not in risk_scores
    changelog = (tmp_path / "site" / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "--8&lt;--" not in changelog and "--8<--" not in changelog


@pytest.mark.parametrize(
    "module, page",
    [("survfair", "survfair.md"), ("survfair.simulate", "simulate.md"),
     ("survfair.mitigate", "mitigate.md"), ("survfair.plotting", "plotting.md")],
)
def test_reference_lists_every_public_name(module, page):
    import importlib

    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if n.startswith("plot_")]
    text = (DOCS / "reference" / page).read_text(encoding="utf-8")
    documented = set(re.findall(r"^::: ([\w.]+)", text, re.MULTILINE))
    listed = re.findall(r"^\s+- (\w+)\s*$", text, re.MULTILINE)  # a `members:` list narrows `::: module`
    if listed:
        documented.discard(module)
        documented |= {f"{module}.{name}" for name in listed}
    missing = []
    for name in names:
        obj = getattr(mod, name)
        if inspect.ismodule(obj):
            continue  # subpackages have their own page
        if f"{module}.{name}" not in documented and module not in documented:
            missing.append(name)
    assert not missing, f"not in docs/reference/{page}: {missing}"
