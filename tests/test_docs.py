"""The documentation cannot drift from the code.

* Every ```python block of every page under docs/ is executed, in page order, in one namespace per
  page, in a temporary working directory, with matplotlib's Agg backend. A page's blocks form one
  script: a later block may use names defined by an earlier one.
* The build runs the same blocks: every ```python block under docs/ is a markdown-exec block,
  ```python exec="on" ... session="<page>"```, with one session per page (the page's path without
  .md, "/" as "-"), so the build's namespaces are the test's; the pages show the blocks' output
  (``result="text"``) and figures (``html="on"``, printed as inline SVG by the page's ``show``).
* ``mkdocs build --strict`` succeeds (no warning: broken links, missing pages, docstrings griffe
  cannot parse, a missing snippet such as CHANGELOG.md, a block that raised); the built pages show
  the outputs, and no page loads a script, stylesheet or font from the network (KaTeX is
  vendored under docs/javascripts/katex/).
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

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


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
    sample = (
        "text\n```python\nx = 1\n```\n\n```console\n$ ls\n```\n    ```python\n    y = 2\n    ```\n"
    )
    assert [body for _, body in _blocks_of(sample)] == ["x = 1\n", "y = 2\n"]
    executed = '```python exec="on" source="above" result="text" session="p"\nz = 3\n```\n'
    assert [body for _, body in _blocks_of(executed)] == ["z = 3\n"]


FENCE_OPTIONS = re.compile(r'(\w+)="([^"]*)"')


def fence_options(page: str) -> list[tuple[int, dict[str, str]]]:
    """(line number, options) of the opening fence of every ```python block of a page."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        if match.group("lang") == "python":
            opening = match.group(0).split("\n", 1)[0]
            found.append(
                (text.count("\n", 0, match.start()) + 1, dict(FENCE_OPTIONS.findall(opening)))
            )
    return found


def test_docs_blocks_run_at_build_time_in_one_session_per_page():
    """The build (markdown-exec) runs every block in the page's own session, as the test above does.

    markdown-exec keeps a session's names across pages of one build: a session shared by two pages
    would let one page depend on another, and a block outside the session would not see the
    page's earlier names (or would not run at all without exec="on").
    """
    problems = []
    for page in PAGES:
        if page == README:
            continue
        session = page.removesuffix(".md").replace("/", "-")
        for line, options in fence_options(page):
            if options.get("exec") != "on" or options.get("session") != session:
                problems.append(
                    f'docs/{page}:{line}: want ```python exec="on" ... '
                    f'session="{session}"``` (has {options})'
                )
            if "result" in options and "html" in options:
                problems.append(f"docs/{page}:{line}: result= and html= exclude each other")
    assert not problems, "\n".join(problems)


def _blocks_of(text: str):
    return [
        (0, textwrap.dedent(m.group("body")))
        for m in FENCE.finditer(text)
        if m.group("lang") == "python"
    ]


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
    """``mkdocs build --strict`` passes (mkdocs, mkdocs-material, mkdocstrings[python] are test
    extras)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    html = (tmp_path / "site" / "reference" / "survfair" / "index.html").read_text(encoding="utf-8")
    assert 'id="survfair.xci"' in html
    # docs/griffe_rst.py renders the numpydoc reST: no raw Sphinx role, tables as tables
    for page in (tmp_path / "site" / "reference").rglob("*.html"):
        assert ":func:`" not in page.read_text(encoding="utf-8") and ":func:" not in page.read_text(
            encoding="utf-8"
        ), page
    risk_scores = html[
        html.index('id="survfair.risk_scores"') : html.index('id="survfair.fit_checked"')
    ]
    assert "<table>" in risk_scores and "=====" not in risk_scores
    changelog = (tmp_path / "site" / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "--8&lt;--" not in changelog and "--8<--" not in changelog
    _check_built_pages_show_outputs(tmp_path / "site")


def _check_built_pages_show_outputs(site: Path):
    """The executed blocks' outputs are on the pages, and nothing is loaded from the network."""

    def page(name):
        return (site / name / "index.html").read_text(encoding="utf-8")

    started = page("getting-started")
    assert (
        "== flchain: Cox PH without sex ==" in started and "findings:" in started
    )  # survfair audit
    assert "a (earlier event)" in started  # print(res)
    figures = {
        name: page(name).count('<div class="survfair-figure"><svg')
        for name in [
            "how-to/audit-models",
            "how-to/binary",
            "how-to/mitigation",
            "how-to/published-equation",
            "how-to/simulation",
        ]
    }
    assert all(count >= 1 for count in figures.values()), figures
    cli = page("cli")
    for command in ["survfair", "survfair audit", "survfair simulate", "survfair mitigate"]:
        assert f"usage: {command} [-h]" in cli, command
    concepts = page("concepts")
    assert 'class="arithmatex"' in concepts and "javascripts/katex/katex.min.js" in concepts
    remote = re.compile(
        r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]*"', re.IGNORECASE
    )
    for html in site.rglob("*.html"):
        loaded = remote.findall(html.read_text(encoding="utf-8"))
        assert not loaded, (html, loaded)
    for css in site.rglob("*.css"):
        imports = re.findall(
            r'@import\s+(?:url\()?["\']?(?:https?:)?//[^;]*', css.read_text(encoding="utf-8")
        )
        assert not imports, (css, imports)


@pytest.mark.parametrize(
    "module, page",
    [
        ("survfair", "survfair.md"),
        ("survfair.simulate", "simulate.md"),
        ("survfair.mitigate", "mitigate.md"),
        ("survfair.plotting", "plotting.md"),
    ],
)
def test_reference_lists_every_public_name(module, page):
    import importlib

    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if n.startswith("plot_")]
    text = (DOCS / "reference" / page).read_text(encoding="utf-8")
    documented = set(re.findall(r"^::: ([\w.]+)", text, re.MULTILINE))
    listed = re.findall(
        r"^\s+- (\w+)\s*$", text, re.MULTILINE
    )  # a `members:` list narrows `::: module`
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


@pytest.mark.parametrize(
    "module", ["survfair", "survfair.mitigate", "survfair.simulate", "survfair.plotting"]
)
def test_every_public_callable_documents_parameters_and_see_also(module):
    """Issue 19 audit, item F: ~30 public callables had no See Also, and ph_xci_integral,
    plot_coverage and plot_power no Parameters; no docstring example may be skipped."""
    import importlib
    import inspect

    mod = importlib.import_module(module)
    missing = []
    for name in mod.__all__:
        obj = getattr(mod, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or (
            inspect.isclass(obj) and issubclass(obj, BaseException)
        ):
            continue
        doc = inspect.getdoc(obj) or ""
        if "See Also\n---" not in doc:
            missing.append(f"{name}: See Also")
        takes = inspect.isfunction(obj) and any(
            p.kind is not p.VAR_KEYWORD for p in inspect.signature(obj).parameters.values()
        )
        if takes and "Parameters\n---" not in doc:
            missing.append(f"{name}: Parameters")
        if "+SKIP" in doc:
            missing.append(f"{name}: a skipped example")
    assert not missing, missing


@pytest.mark.parametrize(
    "module", ["survfair", "survfair.mitigate", "survfair.simulate", "survfair.plotting"]
)
def test_every_public_function_has_an_example(module):
    """Issue 35: 15 of 72 public functions had no Examples section (each one runs as a doctest)."""
    import importlib

    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if n.startswith("plot_")]
    missing = [
        name
        for name in names
        if inspect.isfunction(getattr(mod, name))
        and "Examples\n" not in (getattr(mod, name).__doc__ or "")
    ]
    assert not missing, f"no Examples section: {missing}"
