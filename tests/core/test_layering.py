"""The package's shape: one folder per layer, imports run one way (down), no loops, no giant modules.

Walks ``src/sitemapkit`` with :mod:`ast` (every ``import`` and ``from ... import``, at any depth, including those
under ``if TYPE_CHECKING:`` and inside functions: a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "src" / "sitemapkit"

# Which layers each layer may import (besides itself). The top-level package and cli may import anything.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "read": {"core"},
    "write": {"core"},
    "fetch": {"core", "read"},
    "validate": {"core", "read", "fetch"},
    "crawl": {"core", "read", "write", "fetch"},
    # the generate job sits above the capabilities it drives: harvest writes partitioned data on Dask
    "generator": {"core", "read", "write", "fetch", "crawl", "harvest"},
    # the MkDocs plugin publishes a site's sitemaps: the writer, and the generator's git dates
    "mkdocs": {"core", "write", "generator"},
    # the web app is a front end like cli: its audit page runs the audit capability (through its face)
    "web": {"core", "read", "write", "fetch", "validate", "crawl", "audit"},
}
#: What a capability folder (submit, serve, web, audit, harvest) may use: the base layers, not cli, not its peers.
BASE = {"core", "read", "write", "fetch", "validate", "crawl"}
TOP = {"cli", "__init__", "__main__"}
MAX_LINES = 520  # "about 500"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imports(path: Path, name: str, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("sitemapkit"):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                drop = node.level - (1 if is_pkg else 0)
                base = base[: len(base) - drop] if drop else base
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("sitemapkit"):
                continue
            for alias in node.names:
                # `from sitemapkit.read import _xml` depends on the module _xml (the package's __init__ runs too,
                # as it does for every module of the package: that is not a dependency of this module's making)
                submodule = f"{module}.{alias.name}"
                yield (submodule if submodule in known else module), node.lineno


def _graph() -> dict[str, dict[str, int]]:
    mods = _modules()
    graph: dict[str, dict[str, int]] = {}
    for name, path in mods.items():
        deps: dict[str, int] = {}
        for target, line in _imports(path, name, mods):
            # the longest known module that the target names
            while target not in mods and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in mods and target != name:
                deps.setdefault(target, line)
        graph[name] = deps
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    head = parts[1]
    return head if head in ALLOWED or head in TOP else ("__init__" if head.startswith("_") else head)


def test_the_layer_folders_exist() -> None:
    for layer in [*ALLOWED, "cli", "audit"]:
        assert (PKG / layer / "__init__.py").is_file(), layer
    flat = [p.name for p in PKG.glob("_*.py") if p.name not in {"__init__.py", "__main__.py"}]
    assert flat == [], f"modules outside the layer folders: {flat}"


def _violations(graph: dict[str, dict[str, int]]) -> list[str]:
    known = set(ALLOWED) | TOP
    bad: list[str] = []
    for module, deps in graph.items():
        layer = _layer(module)
        if layer in TOP:
            continue
        allowed = ALLOWED[layer] if layer in known else BASE
        for dep, line in deps.items():
            dep_layer = _layer(dep)
            if dep_layer == layer:
                continue
            if dep == "sitemapkit":
                bad.append(f"{module}:{line} imports the top-level package (import from the layer instead)")
            elif dep_layer not in allowed:
                bad.append(f"{module}:{line} ({layer}) imports {dep} ({dep_layer})")
    return bad


def _loops(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                loops.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return loops


def test_imports_run_one_way() -> None:
    bad = _violations(_graph())
    assert bad == [], "\n".join(bad)


def test_no_import_loops() -> None:
    loops = _loops(_graph())
    assert loops == [], f"import loops: {loops}"


def test_no_module_is_a_giant() -> None:
    big = {name: n for name, p in _modules().items()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert big == {}, f"modules over {MAX_LINES} lines: {big}"


def test_the_checks_catch_what_they_forbid() -> None:
    graph = {
        "sitemapkit.core._model": {"sitemapkit.crawl._crawler": 3},
        "sitemapkit.read._xml": {"sitemapkit.read._lane": 1, "sitemapkit": 2},
        "sitemapkit.read._lane": {"sitemapkit.read._xml": 5},
        "sitemapkit.fetch._walk": {"sitemapkit.read._parser": 7},
        "sitemapkit.audit._checks": {"sitemapkit.cli._common": 9, "sitemapkit.crawl._crawler": 4},
    }
    bad = _violations(graph)
    assert any(b.startswith("sitemapkit.core._model:3") for b in bad)
    assert any("imports the top-level package" in b for b in bad)
    assert any(b.startswith("sitemapkit.audit._checks:9") for b in bad)
    assert not any(b.startswith("sitemapkit.fetch._walk") for b in bad)
    assert not any(b.startswith("sitemapkit.audit._checks:4") for b in bad)
    assert _loops(graph) == [["sitemapkit.read._lane", "sitemapkit.read._xml"]]


# A dotted name of a sitemapkit module outside core, as a string (what import_module or a later import would take).
_UPPER_NAME = re.compile(r"sitemapkit(?:\.(?!core\b)\w+)+|sitemapkit")


def _imports_by_name(source: str, module: str) -> list[str]:
    """Imports an ``ast`` walk of ``import`` statements does not see: ``importlib.import_module`` / ``__import__``
    calls (allowed only in ``core/_lazy``, which imports what its callers above name) and strings that name a
    module above core (kept for a later import, as ``_problems._CODE_MODULES`` once was)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__") and module != "sitemapkit.core._lazy":
                found.append(f"{module}:{node.lineno} calls {name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _UPPER_NAME.fullmatch(node.value):
            found.append(f"{module}:{node.lineno} names {node.value}")
    return found


def test_core_imports_nothing_above_it_not_even_by_name() -> None:
    found = [hit for name, path in _modules().items() if _layer(name) == "core"
             for hit in _imports_by_name(path.read_text(encoding="utf-8"), name)]
    assert found == [], "\n".join(found)


def test_the_by_name_check_catches_what_it_forbids() -> None:
    old_registry = (
        '_CODE_MODULES = ("sitemapkit.read._codes", "sitemapkit.crawl._crawler")\n'
        "def all_codes():\n"
        "    import importlib\n"
        "    for module in _CODE_MODULES:\n"
        "        importlib.import_module(module)\n"
    )
    assert len(_imports_by_name(old_registry, "sitemapkit.core._problems")) == 3
    assert _imports_by_name("__import__('sitemapkit')\n", "sitemapkit.core._x") == [
        "sitemapkit.core._x:1 calls __import__", "sitemapkit.core._x:1 names sitemapkit"]
    assert _imports_by_name("x = 'sitemapkit.core._model'\ny = 'see sitemapkit.fetch'\n", "sitemapkit.core._x") == []
    assert _imports_by_name("import importlib\nimportlib.import_module(name)\n", "sitemapkit.core._lazy") == []


def _face_bypasses(graph: dict[str, dict[str, int]]) -> list[str]:
    """Imports of another layer's private module (``sitemapkit.fetch._walk`` from outside ``fetch``)."""
    bad = []
    for module, deps in graph.items():
        layer = _layer(module)
        for dep, line in deps.items():
            parts = dep.split(".")
            if len(parts) >= 3 and parts[2].startswith("_") and _layer(dep) != layer:
                bad.append(f"{module}:{line} imports {dep} (use the face, sitemapkit.{parts[1]})")
    return bad


def test_layers_talk_through_their_faces() -> None:
    bad = _face_bypasses(_graph())
    assert bad == [], "\n".join(bad)


def test_the_face_check_catches_a_bypass() -> None:
    graph = {"sitemapkit.crawl._job": {"sitemapkit.fetch._walk": 3, "sitemapkit.fetch": 4,
                                       "sitemapkit.crawl._state": 5},
             "sitemapkit.cli._urls": {"sitemapkit.read._sniff": 7}}
    assert _face_bypasses(graph) == [
        "sitemapkit.crawl._job:3 imports sitemapkit.fetch._walk (use the face, sitemapkit.fetch)",
        "sitemapkit.cli._urls:7 imports sitemapkit.read._sniff (use the face, sitemapkit.read)"]
