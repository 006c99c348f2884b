"""The public surface: every name in __all__ exists, and nothing private leaks."""

from __future__ import annotations

import sitemapkit


def test_all_names_exist() -> None:
    for name in sitemapkit.__all__:
        assert hasattr(sitemapkit, name), name


def test_all_is_sorted_unique() -> None:
    assert len(set(sitemapkit.__all__)) == len(sitemapkit.__all__)


def test_exceptions_share_one_root() -> None:
    for name in sitemapkit.__all__:
        obj = getattr(sitemapkit, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, sitemapkit.SitemapkitError), name


def test_core_names_pinned() -> None:
    expected = {"UrlEntry", "SitemapRef", "Image", "Video", "News", "Alternate", "Changefreq", "LastMod",
                "Problem", "Severity", "Location", "SitemapkitError"}
    assert expected <= set(sitemapkit.__all__)


def test_import_is_light() -> None:
    """Readers and writers must not pay for the HTTP stack, the crawler or the validator at import time."""
    import subprocess
    import sys

    code = (
        "import sys, sitemapkit\n"
        "heavy = [m for m in ('aiohttp', 'asyncio', 'sqlite3', 'selectolax', 'sitemapkit._http', "
        "'sitemapkit._crawl', 'sitemapkit._validate') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_lazy_names_resolve_to_their_modules() -> None:
    import importlib

    from sitemapkit import _LAZY

    for name, module in _LAZY.items():
        assert name in sitemapkit.__all__, name
        assert getattr(sitemapkit, name) is getattr(importlib.import_module(module), name), name


def test_all_codes_lists_every_module_that_defines_codes() -> None:
    import re
    from pathlib import Path

    from sitemapkit._problems import _CODE_MODULES

    package = Path(sitemapkit.__file__).parent
    defining = {f"sitemapkit.{p.stem}" for p in package.glob("*.py")
                if p.stem != "_problems" and re.search(r"\bdefine_code\(", p.read_text(encoding="utf-8"))}
    assert defining == set(_CODE_MODULES)
    codes = sitemapkit.all_codes()
    assert {c[:3] for c in codes} >= {"SM1", "SM2", "SM3", "SM4", "SM5", "SM6", "SM7"}
    assert all(re.fullmatch(r"SM\d{3}", c) for c in codes)
