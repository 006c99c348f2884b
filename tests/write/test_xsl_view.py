"""The default stylesheet (``--xsl default``) shows every field of every URL and fits a phone's screen."""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from sitemapkit import Alternate, Image, News, UrlEntry
from sitemapkit.write import write_sitemaps

BASE = "https://example.com/"


def _cells(html: str) -> dict[str, list[str]]:
    """Cell texts by their data-label (the column name each cell carries)."""
    out: dict[str, list[str]] = {}
    for label, text in re.findall(r'data-label="([^"]+)"[^>]*>\s*(.*?)\s*</td>', html, re.S):
        out.setdefault(label, []).append(re.sub(r"\s+", " ", text))
    return out


def test_every_field_appears_in_its_column(tmp_path: Path) -> None:
    full = UrlEntry(
        "https://example.com/full", lastmod="2024-05-01T10:00:00Z", changefreq="weekly", priority=0.7,
        images=(Image("https://example.com/a.jpg"), Image("https://example.com/b.jpg")),
        alternates=(Alternate("en", "https://example.com/full"), Alternate("de", "https://example.com/de/full")),
        news=News("The Example", "en", "2024-05-01", "A title"),
    )
    bare = UrlEntry("https://example.com/bare")
    write_sitemaps([full, bare], tmp_path, BASE, xsl="default")
    transform = etree.XSLT(etree.parse(str(tmp_path / "sitemap.xsl")))
    html = str(transform(etree.parse(str(tmp_path / "sitemap.xml"))))
    cells = _cells(html)
    assert cells["Last modified"] == ["2024-05-01T10:00:00Z", "–"]
    assert cells["Change frequency"] == ["weekly", "–"]
    assert cells["Priority"] == ["0.7", "–"]
    assert cells["Images"] == ["2", "0"]
    assert cells["Alternates"] == ["2", "0"]
    assert cells["News"] == ["1", "0"]
    assert "Google ignores change frequency and priority" in html


def test_index_shows_each_child_with_its_lastmod(tmp_path: Path) -> None:
    write_sitemaps((UrlEntry(f"https://example.com/p/{i}") for i in range(3)), tmp_path, BASE, max_urls=2,
                   xsl="default")
    transform = etree.XSLT(etree.parse(str(tmp_path / "sitemap.xsl")))
    html = str(transform(etree.parse(str(tmp_path / "sitemap.xml"))))
    dates = _cells(html)["Last modified"]
    assert len(dates) == 2
    assert all(re.match(r"\d{4}-\d\d-\d\dT", d) for d in dates)


def test_fits_a_390px_screen(tmp_path: Path) -> None:
    write_sitemaps([UrlEntry("https://example.com/")], tmp_path, BASE, xsl="default")
    transform = etree.XSLT(etree.parse(str(tmp_path / "sitemap.xsl")))
    html = str(transform(etree.parse(str(tmp_path / "sitemap.xml"))))
    assert 'name="viewport" content="width=device-width' in html
    # Below 40rem (640 px at the default font size, so a 390 px phone) the rows stack as cards: no table wider
    # than the screen, and each cell names its column.
    narrow = re.search(r"@media \(max-width: 40rem\) \{(.*?)\n\s*\}\n", html, re.S)
    assert narrow is not None
    assert "display: block" in narrow.group(1)
    assert "attr(data-label)" in narrow.group(1)
    assert "overflow-wrap: anywhere" in html
