"""ARCHITECTURE.md stays a short map, and the map and the design notes cannot rot.

The map must be readable in ten minutes (a size bound), every design note it links must exist and every note in
docs/design/ must be linked from it, every layer folder of the package must be on it, and every path into the
package that the map or a note names (``src/sitemapkit/read/_xml.py``, or layer-relative in backticks:
``read/_xml.py``, ``write/xsl/``) must exist: a module renamed or split without updating the docs fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "src" / "sitemapkit"
MAP = ROOT / "ARCHITECTURE.md"
DESIGN = ROOT / "docs" / "design"
MAX_MAP_CHARS = 12_500
#: The base layers. Every layer folder, base or capability (serve, submit, ...), has its design note.
BASE_LAYERS = ("core", "read", "write", "validate", "fetch", "crawl", "cli")

LAYERS = sorted(p.name for p in PKG.iterdir() if (p / "__init__.py").is_file())
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
_FULL_PATH = re.compile(r"(?<![\w./-])src/sitemapkit(?:/[\w.-]+)*/?")
_LAYER_PATH = re.compile(r"`((?:" + "|".join(LAYERS) + r")/[^`\s]*)`")


def _docs() -> list[Path]:
    return [MAP, *sorted(DESIGN.glob("*.md"))]


def _links(doc: Path) -> list[str]:
    return [target for target in _LINK.findall(doc.read_text(encoding="utf-8")) if "://" not in target]


def _package_paths(doc: Path) -> set[str]:
    text = doc.read_text(encoding="utf-8")
    paths = {m.rstrip(".") for m in _FULL_PATH.findall(text)}
    paths |= {"src/sitemapkit/" + m for m in _LAYER_PATH.findall(text)}
    return paths


def test_layers_found() -> None:
    # The checks below are only as good as this list: the package's layer folders.
    assert set(BASE_LAYERS) <= set(LAYERS)


def test_map_is_short() -> None:
    size = len(MAP.read_text(encoding="utf-8"))
    assert size <= MAX_MAP_CHARS, (
        f"ARCHITECTURE.md has {size:,} characters (at most {MAX_MAP_CHARS:,}): it is a map a newcomer reads in ten "
        "minutes; move design decisions and measurements to docs/design/<layer>.md and link them")


def test_every_layer_is_on_the_map_and_has_a_design_note() -> None:
    text = MAP.read_text(encoding="utf-8")
    unmapped = [layer for layer in LAYERS if not re.search(rf"(?m)^\s+{layer}/\s", text)]
    assert unmapped == [], f"layer folders missing from the tree in ARCHITECTURE.md: {unmapped}"
    missing = [layer for layer in LAYERS if not (DESIGN / f"{layer}.md").is_file()]
    assert missing == [], f"layers without docs/design/<layer>.md: {missing}"


def test_cli_note_lists_exactly_the_registered_commands() -> None:
    # docs/design/cli.md's command table names every command `sitemapkit --help` offers, and no other.
    from sitemapkit.cli import cli

    table = re.findall(r"(?m)^\s*\| `([a-z-]+)` \| `cli/_", (DESIGN / "cli.md").read_text(encoding="utf-8"))
    assert table, "docs/design/cli.md has no command table"
    assert sorted(table) == sorted(cli.list_commands(None)), (  # type: ignore[arg-type]
        "docs/design/cli.md's command table and the registered commands differ")


def test_map_links_every_design_note_and_each_exists() -> None:
    linked = {(MAP.parent / target).resolve() for target in _links(MAP)}
    notes = {p.resolve() for p in DESIGN.glob("*.md")}
    assert notes, "docs/design/ holds no notes"
    dangling = sorted(str(p.relative_to(ROOT)) for p in linked if not p.exists())
    assert dangling == [], f"ARCHITECTURE.md links files that do not exist: {dangling}"
    unlinked = sorted(str(p.relative_to(ROOT)) for p in notes - linked)
    assert unlinked == [], f"design notes not linked from ARCHITECTURE.md: {unlinked}"


@pytest.mark.parametrize("doc", _docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_exist(doc: Path) -> None:
    dangling = [target for target in _links(doc) if not (doc.parent / target).exists()]
    assert dangling == [], f"{doc.relative_to(ROOT)} links files that do not exist: {dangling}"


@pytest.mark.parametrize("doc", _docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_named_package_paths_exist(doc: Path) -> None:
    paths = _package_paths(doc)
    assert paths, f"{doc.relative_to(ROOT)} names no module of the package"
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == [], f"{doc.relative_to(ROOT)} names paths that do not exist (renamed or split?): {missing}"


def test_path_finder_sees_both_spellings(tmp_path: Path) -> None:
    # The checker itself: a full path and a layer-relative one in backticks are both found, prose is not.
    doc = tmp_path / "x.md"
    doc.write_text("See `read/_gone.py` and src/sitemapkit/core/_nope.py, docs/design/read.md, read/write.\n",
                   encoding="utf-8")
    assert _package_paths(doc) == {"src/sitemapkit/read/_gone.py", "src/sitemapkit/core/_nope.py"}
