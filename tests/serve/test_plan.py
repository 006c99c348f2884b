"""Unit tests of the serve core: page boundaries (keysets), byte identity with the writer, ETag/304 logic,
gzip negotiation, HEAD, 404/405. Sections here are in-memory; the frameworks are tested elsewhere, and a table
that changes while it is served in test_live.py."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.core import Alternate, ConfigurationError, Image, News, UrlEntry
from sitemapkit.serve import KeysetSource, SitemapService
from sitemapkit.serve._http import accepts_gzip, not_modified
from sitemapkit.write import write_sitemaps

BASE = "https://shop.example/"


def _entry(i: int) -> UrlEntry:
    images = [Image(f"{BASE}img/{i}.jpg")] if i % 7 == 0 else []
    alternates = [Alternate("de", f"{BASE}de/p/{i}"), Alternate("en", f"{BASE}p/{i}")] if i % 11 == 0 else []
    news = News("Shop News", "en", f"2024-03-{i % 28 + 1:02d}", f"Story {i}") if i % 3 == 0 else None
    return UrlEntry(f"{BASE}p/{i}", lastmod=f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}", images=images,
                    alternates=alternates, news=news)


class Rows:
    """A keyset table in memory: every call is recorded so tests can see the ranges asked for."""

    def __init__(self, entries: list[UrlEntry], step: int = 10) -> None:
        self.rows = {(i + 1) * step: e for i, e in enumerate(entries)}
        self.calls: list[tuple[object, int]] = []
        self.key_calls: list[tuple[object, int]] = []
        self.stats_calls: list[tuple[object, object]] = []

    def __call__(self, after: int | None, limit: int) -> Iterator[tuple[int, UrlEntry]]:
        self.calls.append((after, limit))
        for k in self.keys(after, limit, record=False):
            yield k, self.rows[k]

    def keys(self, after: int | None, limit: int, record: bool = True) -> list[int]:
        if record:
            self.key_calls.append((after, limit))
        return sorted(k for k in self.rows if after is None or k > after)[:limit]

    def nth_key(self, after: int | None, n: int) -> int | None:
        self.key_calls.append((after, -n))
        keys = self.keys(after, n, record=False)
        return keys[n - 1] if len(keys) == n else None

    def stats(self, after: int | None, last: int | None) -> tuple[int, str | None]:
        """count and newest lastmod of after < key <= last (the SQL a real app would run)."""
        self.stats_calls.append((after, last))
        inside = [e for k, e in self.rows.items() if (after is None or k > after) and (last is None or k <= last)]
        lastmods = [e.lastmod.text for e in inside if e.lastmod is not None]
        return len(inside), max(lastmods, default=None)

    def source(self, *, keys: bool = True, nth_key: bool = False, stats: bool = False) -> KeysetSource:
        return KeysetSource(self, keys=self.keys if keys else None, nth_key=self.nth_key if nth_key else None,
                            stats=self.stats if stats else None)


def _urls(body: bytes) -> int:
    return body.count(b"<url>")


def test_pages_roll_at_the_url_limit_and_are_fetched_from_their_first_key() -> None:
    rows = Rows([UrlEntry(f"{BASE}p/{i}") for i in range(25)])
    svc = SitemapService(BASE, {"products": KeysetSource(rows)}, max_urls=10)
    ranges = svc.page_ranges("products")
    assert [(p.after, p.last) for p in ranges] == [(None, 100), (100, 200), (200, None)]  # the last one is open
    rows.calls.clear()
    body = svc.respond("GET", "sitemap-products-3.xml", {}).read()
    assert _urls(body) == 5
    assert b"p/20<" in body
    assert b"p/19<" not in body
    assert rows.calls == [(200, 11)]  # key > boundary, LIMIT the page's size + 1 (has it filled?): no offset
    assert [_urls(svc.respond("GET", f"sitemap-products-{n}.xml", {}).read()) for n in (1, 2)] == [10, 10]


def _all_pages(svc: SitemapService, section: str) -> list[bytes]:
    """Every page of a section, requested in order until the first 404."""
    out = []
    for n in range(1, 100):
        reply = svc.respond("GET", f"sitemap-{section}-{n}.xml", {})
        if reply.status == 404:
            return out
        assert reply.status == 200
        out.append(reply.read())
    raise AssertionError("no end of pages")


def test_news_pages_hold_at_most_the_news_limit() -> None:
    entries = [UrlEntry(f"{BASE}n/{i}", news=News("N", "en", "2024-01-01", f"t{i}")) for i in range(7)]
    svc = SitemapService(BASE, {"news": Rows(entries).source()}, max_news=3)
    assert len(svc.page_ranges("news")) == 1  # keys alone: the news limit is found while rendering
    assert [_urls(b) for b in _all_pages(svc, "news")] == [3, 3, 1]
    assert len(svc.page_ranges("news")) == 3


def test_pages_roll_before_the_byte_limit() -> None:
    entries = [UrlEntry(f"{BASE}p/{i:04d}") for i in range(40)]
    svc = SitemapService(BASE, {"p": Rows(entries).source()}, max_bytes=2000)
    bodies = _all_pages(svc, "p")
    assert len(bodies) > 1
    assert all(len(b) <= 2000 for b in bodies)
    assert sum(_urls(b) for b in bodies) == 40
    index = svc.respond("GET", "sitemap.xml", {}).read()
    assert index.count(b"<sitemap>") == len(bodies)


def test_pages_are_byte_identical_to_write_sitemaps(tmp_path: Path) -> None:
    entries = [_entry(i) for i in range(60)]
    write_sitemaps(entries, tmp_path, BASE, max_urls=20, max_news=8)
    written = sorted(tmp_path.glob("sitemap-*.xml"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    svc = SitemapService(BASE, {"s": KeysetSource(Rows(entries))}, max_urls=20, max_news=8)
    served = _all_pages(svc, "s")
    assert len(served) == len(written) > 1
    for body, path in zip(served, written, strict=True):
        assert body == path.read_bytes(), path.name


def test_one_page_in_all_is_served_as_sitemap_xml_like_the_writer(tmp_path: Path) -> None:
    entries = [_entry(i) for i in range(5)]
    write_sitemaps(entries, tmp_path, BASE)
    svc = SitemapService(BASE, {"all": lambda: iter(entries)})
    assert svc.respond("GET", "sitemap.xml", {}).read() == (tmp_path / "sitemap.xml").read_bytes()


def test_index_lists_every_page_with_its_newest_lastmod() -> None:
    entries = [UrlEntry(f"{BASE}p/{i}", lastmod=f"2024-01-{i + 1:02d}") for i in range(25)]
    rows = Rows(entries)
    clock = [0.0]
    svc = SitemapService(BASE, {"products": rows.source(stats=True), "pages": lambda: iter(entries[:2])},
                         max_urls=10, ttl=60, clock=lambda: clock[0])
    reply = svc.respond("GET", "sitemap.xml", {})
    body = reply.read().decode()
    assert body.count("<sitemap>") == 4
    assert f"<loc>{BASE}sitemap-products-3.xml</loc><lastmod>2024-01-25</lastmod>" in body
    assert f"<loc>{BASE}sitemap-pages-1.xml</loc></sitemap>" in body  # no stats hook: no lastmod to tell
    assert reply.header("Last-Modified") == "Thu, 25 Jan 2024 00:00:00 GMT"
    # A page's listed lastmod is its summary read at most ttl ago, or at the page's last render
    rows.rows[260] = UrlEntry(f"{BASE}p/new", lastmod="2024-02-01")
    rows.rows[150] = UrlEntry(f"{BASE}p/changed", lastmod="2024-03-01")
    svc.respond("GET", "sitemap-products-3.xml", {}).read()
    body = svc.respond("GET", "sitemap.xml", {}).read().decode()
    assert f"<loc>{BASE}sitemap-products-3.xml</loc><lastmod>2024-02-01</lastmod>" in body
    assert f"<loc>{BASE}sitemap-products-2.xml</loc><lastmod>2024-01-20</lastmod>" in body
    clock[0] = 61.0
    body = svc.respond("GET", "sitemap.xml", {}).read().decode()
    assert f"<loc>{BASE}sitemap-products-2.xml</loc><lastmod>2024-03-01</lastmod>" in body


def test_iterable_sections_page_by_position() -> None:
    entries = [UrlEntry(f"{BASE}s/{i}") for i in range(23)]
    svc = SitemapService(BASE, {"static": lambda: iter(entries)}, max_urls=10)
    bodies = [svc.respond("GET", f"sitemap-static-{n}.xml", {}).read() for n in (1, 2, 3)]
    assert [_urls(b) for b in bodies] == [10, 10, 3]
    assert b"s/20<" in bodies[2]
    assert b"s/19<" in bodies[1]


def test_conditional_requests_head_gzip_404_405() -> None:
    svc = SitemapService(BASE, {"p": KeysetSource(Rows([_entry(i) for i in range(30)]))}, max_urls=10,
                         cache_control="max-age=60")
    first = svc.respond("GET", "sitemap-p-2.xml", {})
    etag, last = first.header("ETag"), first.header("Last-Modified")
    assert etag is not None
    assert etag.startswith('"')
    assert last is not None
    assert first.header("X-Robots-Tag") == "noindex"
    assert first.header("Cache-Control") == "max-age=60"
    assert first.header("Vary") == "Accept-Encoding"
    assert svc.respond("GET", "sitemap-p-2.xml", {"If-None-Match": etag}).status == 304
    assert svc.respond("GET", "sitemap-p-2.xml", {"If-None-Match": f'"x", W/{etag}'}).status == 304
    # A date cannot tell a deleted row (the newest lastmod stays): only the ETag decides
    alone = svc.respond("GET", "sitemap-p-2.xml", {"If-Modified-Since": last})
    assert (alone.status, alone.header("ETag")) == (200, etag)
    assert svc.respond("GET", "sitemap-p-2.xml", {"If-None-Match": '"other"', "If-Modified-Since": last}
                       ).status == 200
    head = svc.respond("HEAD", "sitemap-p-2.xml", {})
    assert head.status == 200
    assert head.read() == b""
    assert head.header("ETag") == etag
    gz = svc.respond("GET", "sitemap-p-2.xml", {"Accept-Encoding": "br, gzip;q=0.5"})
    assert gz.header("Content-Encoding") == "gzip"
    assert gz.header("ETag") != etag
    assert gzip.decompress(gz.read()) == first.read()
    gzfile = svc.respond("GET", "sitemap-p-2.xml.gz", {})
    assert gzfile.header("Content-Type") == "application/gzip"
    assert gzfile.header("Content-Encoding") is None
    assert gzip.decompress(gzfile.read()) == svc.respond("GET", "sitemap-p-2.xml", {}).read()
    assert svc.respond("GET", "sitemap-p-4.xml", {}).status == 404
    assert svc.respond("GET", "sitemap-nope-1.xml", {}).status == 404
    assert svc.respond("POST", "sitemap.xml", {}).status == 405


def test_unordered_keys_and_bad_sections_are_configuration_errors() -> None:
    def backwards(after: int | None, limit: int) -> Iterator[tuple[int, UrlEntry]]:
        yield 2, UrlEntry(f"{BASE}a")
        yield 1, UrlEntry(f"{BASE}b")

    svc = SitemapService(BASE, {"b": KeysetSource(backwards)})
    with pytest.raises(ConfigurationError, match="keys must be unique and increasing"):
        svc.refresh()
    with pytest.raises(ConfigurationError, match="section name"):
        SitemapService(BASE, {"a/b": lambda: iter([])})
    with pytest.raises(ConfigurationError, match="expected a KeysetSource"):
        SitemapService(BASE, {"x": 42})
    with pytest.raises(ConfigurationError, match="base_url"):
        SitemapService("shop.example", {"x": lambda: iter([])})


@pytest.mark.parametrize(("header", "expected"), [
    (None, False), ("gzip", True), ("GZip;q=0.1", True), ("gzip;q=0", False), ("br", False),
    ("*", True), ("*;q=0", False), ("deflate, x-gzip", True), ("identity, *;q=1, gzip;q=0", False),
])
def test_accepts_gzip(header: str | None, expected: bool) -> None:
    assert accepts_gzip(header) is expected


def test_not_modified_prefers_if_none_match() -> None:
    from datetime import UTC, datetime

    when = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert not_modified({"if-none-match": "*"}, '"a"', None)
    assert not not_modified({"if-none-match": '"b"', "if-modified-since": "Tue, 02 Jan 2024 03:04:05 GMT"},
                            '"a"', when)
    assert not_modified({"if-modified-since": "Tue, 02 Jan 2024 03:04:05 GMT"}, '"a"', when)
    assert not not_modified({"if-modified-since": "Tue, 02 Jan 2024 03:04:04 GMT"}, '"a"', when)
    assert not not_modified({"if-modified-since": "garbage"}, '"a"', when)
