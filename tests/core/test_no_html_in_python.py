"""Pages for people come from templates: no HTML markup in the package's Python string literals.

The HTML sitemap, report.html and audit.html are Jinja2 templates (``<layer>/templates/``, see core/_pages.py).
This walks every module of ``src/sitemapkit`` with :mod:`ast` and fails on a string literal (f-string parts
included; docstrings excepted) that holds a tag of an HTML page. Element names that other formats share (Atom's
``<title>``, ``<link>``, ``<summary>``) or that messages name (``<meta name="robots">``) are not counted, nor is a
regex's named group (``(?P<section>...)``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "src" / "sitemapkit"

_TAGS = ("html|head|body|style|script|div|span|section|header|footer|main|nav|article|aside|table|thead|tbody|"
         "tfoot|tr|td|th|colgroup|col|caption|ul|ol|li|dl|dt|dd|a|p|h[1-6]|b|i|em|strong|small|br|hr|img|svg|rect|"
         "circle|path|time|input|form|button|label|select|option|textarea|details|pre|code|figure|iframe|noscript")
HTML_TAG = re.compile(rf"(?<!\?P)<(?:!doctype\s+html|/?(?:{_TAGS})(?=[\s>/]))", re.IGNORECASE)

#: Literals that name HTML without writing a page, each with the reason.
ALLOWED = {
    ("validate/_codes.py", "<!DOCTYPE html><html>..."): "SM200's example of what was served instead of a sitemap",
}


def _docstrings(tree: ast.Module) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def html_literals(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, literal) of each string literal in ``source`` that holds an HTML page's tag."""
    tree = ast.parse(source, filename=filename)
    skip = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
            and HTML_TAG.search(node.value)]


def test_the_scan_finds_markup_and_leaves_mentions_alone() -> None:
    found = html_literals('''
"""A docstring may show <div class="x"> markup."""
PAGE = f'<tr><td class="url">{1}</td></tr>'
LINK = '<a href="' + "x" + '">'
HEAD = "<!DOCTYPE html>\\n<html lang='en'>"
ITEM = "<li>"
ATOM = "  <title>feed</title>\\n  <link rel='self' href='x'/>"
SAYS = 'a <meta name="robots"> noindex, a <link rel="canonical">'
PATTERN = r"sitemap-(?P<section>.+)\\.xml"
XML = "<url><loc>https://example.com/</loc></url>"
''')
    assert sorted({line for line, _ in found}) == [3, 4, 5, 6]


def test_no_html_in_python_string_literals() -> None:
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        for line, text in html_literals(path.read_text(encoding="utf-8"), str(path)):
            if (rel, text) not in ALLOWED:
                found.append(f"{rel}:{line}: {text[:70]!r}")
    assert found == [], "HTML belongs in a template (<layer>/templates/, core/_pages.py):\n" + "\n".join(found)


def test_every_allowed_literal_is_still_there() -> None:
    for (rel, text), reason in ALLOWED.items():
        assert (PKG / rel).is_file(), (rel, reason)
        assert text in [t for _, t in html_literals((PKG / rel).read_text(encoding="utf-8"))], (rel, reason)
