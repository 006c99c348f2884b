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
