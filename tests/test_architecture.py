"""The package's layers, read from its import graph (every import: top-level, deferred, typing).

The layers, bottom to top (``docs/architecture.md``): the compiled kernels; ``_core``; the
families ``_xci``, ``_binary``, ``_calibration``; ``_models``; ``_present``; ``simulate`` and
``mitigate``; ``plotting`` and ``cli``; the package itself. A module imports only from its own
layer or below, never from a sibling of its own rank, and the graph has no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the backport survfair depends on there
    import tomli as tomllib

import pytest

import survfair

PACKAGE = Path(survfair.__file__).parent

#: Rank of each top-level part of the package (a module may import from its own part or a lower
#: rank).
LAYERS = {
    "_compiled": 0,
    "_core": 1,
    "_xci": 2,
    "_binary": 3,
    "_calibration": 4,
    "_models": 5,
    "_present": 6,
    "simulate": 7,
    "mitigate": 7,
    "plotting": 8,
    "cli": 8,
    "__main__": 9,
    "": 10,
}


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["survfair", *path.relative_to(PACKAGE).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str, modules: dict) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, anywhere in its code (``importlib`` strings
    too)."""
    modules = _modules()
    graph = {}
    for module, (path, is_package) in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.ImportFrom):
                base = _target(module, is_package, node)
                names = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and module == "survfair"
            ):
                names = (
                    ["survfair" + node.value] if node.value.startswith("._") else []
                )  # the lazy table
            edges |= {k for k in (_known(n, modules) for n in names) if k and k != module}
        graph[module] = edges
    return graph


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_is_read():
    graph = import_graph()
    assert "survfair._core.kernel" in graph["survfair._xci.estimator"]
    assert "survfair._compiled._pairs" in graph["survfair._core.kernel"] or any(
        m.startswith("survfair._compiled") for m in graph["survfair._core.kernel"]
    )
    assert "survfair._present.notebook" in graph["survfair"]  # a string of the lazy table / loader


def test_every_module_belongs_to_a_layer():
    assert {_part(m) for m in import_graph()} <= set(LAYERS)


def test_no_import_goes_up_a_layer_or_across_to_a_sibling():
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        for target in targets
        if _part(target) != _part(module) and LAYERS[_part(target)] >= LAYERS[_part(module)]
    )
    assert upward == []


def test_the_import_graph_has_no_cycle():
    graph = import_graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("package", sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py")))
def test_each_subpackage_says_what_it_owns(package):
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert doc and len(doc.split()) >= 15, package


def test_the_version_is_said_once_in_the_package_and_matches_the_build():
    checkout = Path(__file__).resolve().parents[1]
    project = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]
    assert project["version"] == survfair.__version__
    assert f"version: '{survfair.__version__}'" in (checkout / "meson.build").read_text()
