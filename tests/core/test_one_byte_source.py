"""One byte source (issue 23): the modules that read sources (files, ``-``) open them through
``sitemapkit.read.open_bytes`` (``read/_source.py``), never on their own. An AST check: in the reader modules, no
``gzip.GzipFile``/``gzip.open``/``gzip.decompress``, no ``open(...)``/``Path.open(...)``/``read_bytes()`` and no
``sys.stdin`` outside the allowed places listed here with their reason."""

from __future__ import annotations

import ast
from pathlib import Path

import sitemapkit

PACKAGE = Path(sitemapkit.__file__).parent

#: The modules that read what a command is given (the five readers of the issue, and diff's).
READERS = ("read/_drivers.py", "fetch/_sources.py", "validate/_files.py", "write/_inputs.py",
           "generator/_inputs.py", "submit/_diff.py", "harvest/_generate.py")
#: (module, function) pairs allowed to open bytes themselves, and why.
#: None: the write layer's list readers take the plain stream the caller opened with read.open_bytes (harvest's
#: partitions too: tests/harvest/test_generate_budget.py).
ALLOWED: set[tuple[str, str]] = set()


def _openers(tree: ast.AST) -> set[str]:
    """Names of the functions of ``tree`` that open bytes on their own (``<module>`` for top-level code)."""
    found: set[str] = set()

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Call):
                f = child.func
                if isinstance(f, ast.Name) and f.id == "open":
                    found.add(name)
                elif isinstance(f, ast.Attribute):
                    base = f.value.id if isinstance(f.value, ast.Name) else None
                    if (base == "gzip" and f.attr in ("GzipFile", "open", "decompress")) or (
                            f.attr in ("open", "read_bytes") and base not in ("os",)):
                        found.add(name)
            if isinstance(child, ast.Attribute) and child.attr == "stdin" and isinstance(child.value, ast.Name) \
                    and child.value.id == "sys":
                found.add(name)
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_the_readers_open_sources_only_through_the_one_byte_source() -> None:
    opened = {(module, func) for module in READERS
              for func in _openers(ast.parse((PACKAGE / module).read_text(encoding="utf-8")))}
    assert opened == ALLOWED


def test_the_opener_does_open_bytes() -> None:
    """The check sees an opener when there is one (it cannot pass by seeing nothing)."""
    assert {"open_bytes"} <= _openers(ast.parse((PACKAGE / "read/_source.py").read_text(encoding="utf-8")))
