"""The public surface: the top level keeps the everyday API; each layer package has its own ``__all__``."""

from __future__ import annotations

import importlib
import pydoc
import types
from pathlib import Path

import pytest

import sitemapkit

LAYERS = ("core", "read", "write", "validate", "fetch", "crawl")

# The everyday API (README): the model, write/read/validate/discover/crawl, the exception tree. Pinned exactly:
# a specialised name belongs to its layer package, not here.
TOP_LEVEL = {
    "UrlEntry", "SitemapRef", "Image", "Video", "News", "Alternate", "Changefreq", "LastMod",
    "write_sitemaps", "SitemapSetWriter", "Manifest",
    "read_file", "parse_bytes", "iter_events", "SitemapParser", "ParseResult",
    "validate", "ValidationReport", "discover", "walk_site", "crawl", "Crawler", "CrawlOptions",
    "Problem", "Severity",
    "SitemapkitError", "ConfigurationError", "InputError", "ParseError", "LimitExceededError", "InvalidValueError",
    "InvalidEntryError", "PublishError", "FetchError", "HTTPStatusError", "TooManyRedirectsError",
    "__version__",
}


def test_top_level_is_the_everyday_api() -> None:
    assert set(sitemapkit.__all__) == TOP_LEVEL
    assert len(set(sitemapkit.__all__)) == len(sitemapkit.__all__)


def test_help_is_short_enough_to_read() -> None:
    text = pydoc.render_doc(sitemapkit, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 2500, len(text.splitlines())  # 6,000 before the layer packages


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_name_exists(layer: str) -> None:
    module = importlib.import_module(f"sitemapkit.{layer}")
    assert module.__all__, layer
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), f"sitemapkit.{layer}.{name}"
        assert not name.startswith("_"), name


def test_all_names_exist() -> None:
    for name in sitemapkit.__all__:
        assert hasattr(sitemapkit, name), name


def test_top_level_names_are_the_layers_objects() -> None:
    for name in sitemapkit.__all__:
        if name == "__version__":
            continue
        owners = [layer for layer in LAYERS if name in importlib.import_module(f"sitemapkit.{layer}").__all__]
        assert owners, f"{name} is not exported by any layer"
        obj = getattr(sitemapkit, name)
        if isinstance(obj, types.ModuleType):  # sitemapkit.validate: the package, callable as the function
            assert obj.__name__ == f"sitemapkit.{name}", name
            assert callable(obj), name
        else:
            assert obj is getattr(importlib.import_module(f"sitemapkit.{owners[0]}"), name)


def test_validate_is_callable_whichever_is_imported_first(tmp_path: Path) -> None:
    """The layer package ``sitemapkit.validate`` and the function ``sitemapkit.validate`` share one name."""
    import subprocess
    import sys

    doc = tmp_path / "s.xml"
    doc.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/a'
                   "</loc></url></urlset>", encoding="utf-8")
    for first in ("import sitemapkit.validate", "from sitemapkit import validate", "import sitemapkit"):
        code = (f"{first}\nimport sitemapkit, sys\nr = sitemapkit.validate([sys.argv[1]])\n"
                "from sitemapkit import validate\nr2 = validate([sys.argv[1]])\n"
                "print(type(r).__name__, type(r2).__name__, r.error_count == r2.error_count)")
        out = subprocess.run([sys.executable, "-c", code, str(doc)], capture_output=True, text=True, check=True)
        assert out.stdout.split() == ["ValidationReport", "ValidationReport", "True"], (first, out.stderr)


def test_crawl_is_callable_whichever_is_imported_first(tmp_path: Path) -> None:
    """The layer package ``sitemapkit.crawl`` and the function ``sitemapkit.crawl`` share one name: both orders of
    import give a callable that crawls, and the package's names stay reachable."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:  # a port nothing listens on: the crawl fails fast, naming the cause
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for first in ("import sitemapkit.crawl", "from sitemapkit import crawl", "import sitemapkit"):
        code = (f"{first}\nimport sitemapkit, sys\nfrom sitemapkit import crawl\nimport sitemapkit.crawl\n"
                "print(sitemapkit.crawl.Crawler.__name__, callable(crawl), callable(sitemapkit.crawl))\n"
                "try:\n    crawl(sys.argv[1], sys.argv[2], state_path=sys.argv[3],\n"
                "          options=sitemapkit.crawl.CrawlOptions(retries=0))\n"
                "except sitemapkit.crawl.StartUrlError as exc:\n    print(exc.reason)\n")
        out = subprocess.run([sys.executable, "-c", code, f"http://127.0.0.1:{port}/", str(tmp_path / "out"),
                              str(tmp_path / "state.sqlite")], capture_output=True, text=True)
        assert out.returncode == 0, (first, out.stderr)
        assert out.stdout.splitlines() == ["Crawler True True", f"cannot connect to 127.0.0.1:{port} (connection "
                                           "refused)"], (first, out.stderr)


@pytest.mark.parametrize("layer", ["", *LAYERS])
def test_exceptions_share_one_root(layer: str) -> None:
    module = importlib.import_module(f"sitemapkit.{layer}" if layer else "sitemapkit")
    for name in module.__all__:
        obj = getattr(module, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, sitemapkit.SitemapkitError), name


def test_import_is_light() -> None:
    """Readers and writers must not pay for the HTTP stack, the crawler, the validator or the page templates
    (jinja2: loaded when an HTML page is written) at import time."""
    import subprocess
    import sys

    code = (
        "import sys, sitemapkit\n"
        "heavy = [m for m in ('aiohttp', 'asyncio', 'sqlite3', 'selectolax', 'jinja2', 'markupsafe', "
        "'sitemapkit.core._pages', 'sitemapkit.fetch._http', 'sitemapkit.crawl._crawler', "
        "'sitemapkit.validate._driver') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_lazy_names_resolve_to_their_modules() -> None:
    import importlib

    from sitemapkit import _LAZY

    for name, module in _LAZY.items():
        assert name in sitemapkit.__all__, name
        obj = getattr(sitemapkit, name)
        if name in ("validate", "crawl"):  # the package, callable as the function (see the tests above)
            assert obj is importlib.import_module(module), name
        else:
            assert obj is getattr(importlib.import_module(module), name), name


def test_all_codes_lists_every_module_that_defines_codes() -> None:
    import re
    from pathlib import Path

    from sitemapkit.core._problems import _CODE_MODULES

    package = Path(sitemapkit.__file__).parent
    defining = {"sitemapkit." + ".".join(p.relative_to(package).with_suffix("").parts) for p in package.rglob("*.py")
                if p.stem != "_problems" and re.search(r"\bdefine_code\(", p.read_text(encoding="utf-8"))}
    assert defining == set(_CODE_MODULES)
    codes = sitemapkit.core.all_codes()
    assert {c[:3] for c in codes} >= {"SM1", "SM2", "SM3", "SM4", "SM5", "SM6", "SM7"}
    assert all(re.fullmatch(r"SM\d{3}", c) for c in codes)
