"""The package's layering (the floors of :data:`FLOORS`, ground up: the shared numerics and
registries, returns and environments, the per-run references, the engines, the experiments,
the course, the site): no import circle, no import from a lower floor to a higher one.

The import graph is read from the source with :mod:`ast` -- every ``import`` and ``from ...
import`` of ``ftd_lib``, at module level and inside functions -- so an import hidden in a
function (to dodge a circle at import time) counts as much as one at the top.

``python tests/core/test_layering.py`` prints the edges (one ``a -> b`` a line), the circles and the
upward arrows.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ftd_lib"

#: floors from the ground up; a module sits on the floor of its first name under ``ftd_lib``
#: (``ftd_lib.engine.kernel`` -> ``engine``) and may import only from its own floor and below.
FLOORS = (
    ("validate", "rng", "portable", "approx", "methods", "style", "figure_text", "figure_layout"),
    ("returns", "envs"),
    ("algorithms", "sarsa", "references"),
    ("engine",),
    ("repro", "figures"),
    ("course",),
    ("publish",),
    ("grader",),
    ("__main__",),
)
#: the package's ``__init__`` (only a docstring and the version) sits on the ground floor
FLOOR_OF = {name: i for i, names in enumerate(FLOORS) for name in names} | {"": 0}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    rel = path.relative_to(package.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a ``from`` import names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path, modules: set[str], package: Path = PACKAGE) -> set[str]:
    """Every ``ftd_lib`` module that the file at ``path`` imports (anywhere in it)."""
    module = module_name(path, package)
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, module, is_package)
            # ``from . import store`` names a module; ``from .figures import Figure`` a name in one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t.split(".")[0] == "ftd_lib")
    found.discard(module)
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """``{module: modules it imports}`` over every ``.py`` file of the package."""
    files = sorted(package.rglob("*.py"))
    modules = {module_name(p, package) for p in files}
    return {module_name(p, package): imports_of(p, modules, package) for p in files}


def floor(module: str) -> int:
    parts = module.split(".")
    return FLOOR_OF[parts[1] if len(parts) > 1 else ""]


def upward_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Edges from a module to one on a higher floor."""
    return sorted((a, b) for a, bs in graph.items() for b in bs if floor(b) > floor(a))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


# -- the checker itself, on small graphs worked out by hand ---------------------------------

def test_cycles_finds_a_circle_and_only_it():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_upward_arrow_is_found():
    g = {"ftd_lib.validate": {"ftd_lib.engine.settings"}, "ftd_lib.engine.settings": set()}
    assert upward_arrows(g) == [("ftd_lib.validate", "ftd_lib.engine.settings")]
    assert upward_arrows({"ftd_lib.engine.kernel": {"ftd_lib.validate"}}) == []


def test_function_level_and_relative_imports_are_seen(tmp_path):
    pkg = tmp_path / "ftd_lib"
    (pkg / "engine").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "validate.py").write_text("def f():\n    from .engine import settings\n")
    (pkg / "engine" / "__init__.py").write_text("from .. import validate\n")
    (pkg / "engine" / "settings.py").write_text("import ftd_lib.validate as v\n")
    g = import_graph(pkg)
    assert g["ftd_lib.validate"] == {"ftd_lib.engine.settings"}
    assert g["ftd_lib.engine"] == {"ftd_lib.validate"}
    assert g["ftd_lib.engine.settings"] == {"ftd_lib.validate"}


# -- the package ------------------------------------------------------------------------------

def test_every_module_has_a_floor():
    names = {m.split(".")[1] for m in import_graph() if "." in m}
    assert sorted(names - set(FLOOR_OF)) == []


def test_no_import_circle():
    assert cycles(import_graph()) == []


def test_no_import_from_a_lower_floor_to_a_higher_one():
    assert upward_arrows(import_graph()) == []


if __name__ == "__main__":
    g = import_graph()
    for a in sorted(g):
        for b in sorted(g[a]):
            print(f"{a} -> {b}")
    print("\ncircles:")
    for c in cycles(g):
        print("  " + " <-> ".join(c))
    print("\nupward arrows:")
    for a, b in upward_arrows(g):
        print(f"  {a} (floor {floor(a)}) -> {b} (floor {floor(b)})")
