"""`sitemapkit validate` on a local file starts without what it does not use (issue 27: the whole process, as a
user runs it, within 1.2x of python + lxml + the XSD): no HTTP stack, no other command, no IDNA tables (only a
non-ASCII host needs them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
from sitemapkit.cli import main
try:
    main(["validate", "-q", "--profile", "google", sys.argv[1]])
except SystemExit as exc:
    code = exc.code
heavy = ("idna", "aiohttp", "asyncio", "rich", "sitemapkit.crawl", "sitemapkit.fetch._http", "sitemapkit.write",
         "sitemapkit.web", "sitemapkit.harvest", "sitemapkit.submit")
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m.startswith(heavy))}))
"""


def test_validate_loads_only_what_it_needs(tmp_path: Path) -> None:
    doc = tmp_path / "s.xml"
    doc.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://shop.de/gr%C3%BCn'
                   "?a=1&amp;b=2</loc></url></urlset>", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, str(doc)], capture_output=True, text=True, timeout=60,
                          check=True, stdin=subprocess.DEVNULL)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"code": 0, "loaded": []}


def test_a_non_ascii_host_is_still_encoded() -> None:
    from sitemapkit.core import normalize_loc

    assert normalize_loc("https://bücher.de/a") == "https://xn--bcher-kva.de/a"


def test_the_bundled_schemas_are_found_without_importlib_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    # importlib.resources pulls in zipfile and more at start-up (about 7 ms); an installed package has its files
    import importlib.resources

    from sitemapkit.validate import _schemas

    def refuse(*_args: object) -> object:
        raise AssertionError("importlib.resources used for a file beside the module")

    monkeypatch.setattr(importlib.resources, "files", refuse)
    for kind in _schemas.SchemaKind:
        path = Path(_schemas.schema_path(kind.value))
        assert path.is_file()
        assert path.parent == Path(_schemas.__file__).resolve().parent / "schemas"
