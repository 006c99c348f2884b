"""Unit tests of the audit's heuristics and static checks (no network: responses are built by hand)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from sitemapkit.audit import (
    judge,
    link_header_canonical,
    page_date,
    parse_categories,
    soft_404_evidence,
    wilson_interval,
)
from sitemapkit.audit._inventory import static_findings
from sitemapkit.audit._live import lastmod_behind
from sitemapkit.audit._store import AuditStore, Listing
from sitemapkit.core._errors import ConfigurationError
from sitemapkit.crawl import UrlNormalizer
from sitemapkit.fetch import HttpResponse

NORM = UrlNormalizer()
DAY = timedelta(hours=24)


def html(title: str, body: str, head: str = "") -> bytes:
    return f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>".encode()


def response(url: str, body: bytes = b"", status: int = 200, headers: dict[str, str] | None = None,
             final: str | None = None, redirects: tuple[tuple[str, int], ...] = ()) -> HttpResponse:
    return HttpResponse(url=url, final_url=final or url, status=status,
                        headers={"content-type": "text/html", **(headers or {})}, body=body, redirects=redirects)


# -- soft 404 -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("page", "where"), [
    (html("Page not found | Shop", "<p>" + "words " * 300 + "</p>"), "title"),
    (html("Shop", "<h1>Oops, this page doesn't exist</h1><p>" + "words " * 300 + "</p>"), "h1"),
    (html("Shop", "<p>Sorry, nothing was found here.</p>"), "short body"),
    (html("Error 404", "<p>x</p>"), "title"),
])
def test_soft_404_says_where_it_saw_it(page: bytes, where: str) -> None:
    evidence = soft_404_evidence(page)
    assert evidence is not None
    assert evidence.startswith(where)
    assert "soft 404 heuristic" in evidence


@pytest.mark.parametrize("page", [
    html("Shop", "<p>Our products</p>"),
    # "not found" in passing in a long article is not a soft 404
    html("Debugging guide", "<p>" + "text " * 200 + "when the file is not found, retry" + " more" * 50 + "</p>"),
    html("Shop", "<p>short</p><script>var msg = 'not found';</script>"),  # scripts are not content
])
def test_normal_pages_are_not_soft_404(page: bytes) -> None:
    assert soft_404_evidence(page) is None


# -- Link header ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "expected"), [
    ('<https://a.test/x>; rel="canonical"', "https://a.test/x"),
    ('<https://a.test/s.css>; rel=preload; as=style, <https://a.test/c>; rel="canonical nofollow"',
     "https://a.test/c"),
    ("<https://a.test/c>; rel=canonical", "https://a.test/c"),
    ('<https://a.test/de>; rel="alternate"; hreflang="de"', None),
    ("", None),
    (None, None),
])
def test_link_header_canonical(value: str | None, expected: str | None) -> None:
    assert link_header_canonical(value) == expected


# -- lastmod behind ---------------------------------------------------------------------------------------------
def test_lastmod_behind_last_modified_beyond_the_slack() -> None:
    headers = {"last-modified": "Wed, 01 May 2024 10:00:00 GMT"}
    assert "older than Last-Modified" in (lastmod_behind("2024-04-01", headers, None, DAY) or "")
    assert lastmod_behind("2024-05-01", headers, None, DAY) is None  # same day: within the slack
    assert lastmod_behind("2024-06-01", headers, None, DAY) is None  # ahead is not behind
    assert lastmod_behind(None, headers, None, DAY) is None
    assert lastmod_behind("2024-04-01", {"last-modified": "garbage"}, None, DAY) is None


def test_lastmod_behind_the_pages_own_date() -> None:
    body = html("A", "<p>x</p>", '<meta property="article:modified_time" content="2024-05-02T08:00:00+00:00">')
    assert page_date(body) == ('meta[property="article:modified_time"]', "2024-05-02T08:00:00+00:00")
    evidence = lastmod_behind("2024-01-01", {}, body, DAY)
    assert evidence is not None
    assert "page's date 2024-05-02T08:00:00+00:00" in evidence
    assert page_date(html("A", '<time itemprop="dateModified" datetime="not a date">x</time>')) is None


# -- judging one answer -----------------------------------------------------------------------------------------
def test_judge_single_redirect_and_statuses() -> None:
    r = judge("https://a.test/old", response("https://a.test/old", final="https://a.test/new",
                                             redirects=(("https://a.test/old", 301),)), lastmod=None,
              normalizer=NORM)
    assert r.findings == (("redirect", "redirects to https://a.test/new (301 https://a.test/old -> "
                                       "200 https://a.test/new)"),)
    assert not r.ok
    gone = judge("https://a.test/x", response("https://a.test/x", status=410), lastmod=None, normalizer=NORM)
    assert gone.findings == (("not_found", "HTTP 410"),)
    # A redirect that only normalises the URL (e.g. adds a tracking parameter we strip) is not a redirect.
    same = judge("https://a.test/p", response("https://a.test/p", html("P", "<p>x</p>"),
                                              final="https://a.test/p?utm_source=x",
                                              redirects=(("https://a.test/p", 302),)),
                 lastmod=None, normalizer=NORM)
    assert same.findings == ()
    assert same.indexable


def test_judge_robots_header_scoped_to_another_bot_is_ignored() -> None:
    page = html("P", "<p>content</p>")
    other = judge("https://a.test/p", response("https://a.test/p", page, headers={"x-robots-tag": "bingbot: noindex"}),
                  lastmod=None, normalizer=NORM)
    assert other.findings == ()
    ours = judge("https://a.test/p", response("https://a.test/p", page, headers={"x-robots-tag": "googlebot: noindex"}),
                 lastmod=None, normalizer=NORM)
    assert ours.findings == (("noindex", "X-Robots-Tag: googlebot: noindex"),)
    assert not ours.indexable


def test_judge_self_canonical_and_hreflang() -> None:
    head = ('<link rel="canonical" href="/p"><link rel="alternate" hreflang="de" href="/de/p">'
            '<link rel="alternate" hreflang="en" href="https://a.test/p">')
    r = judge("https://a.test/p", response("https://a.test/p", html("P", "<p>x</p>", head)), lastmod=None,
              normalizer=NORM)
    assert r.findings == ()
    assert r.indexable
    assert r.alternates == (("de", "https://a.test/de/p"), ("en", "https://a.test/p"))


def test_judge_sniffs_html_without_content_type() -> None:
    r = judge("https://a.test/f", HttpResponse(url="https://a.test/f", final_url="https://a.test/f", status=200,
                                                headers={}, body=b"%PDF-1.7 binary"), lastmod=None, normalizer=NORM)
    assert r.findings == (("not_html", "no Content-Type, not HTML"),)


# -- static checks ----------------------------------------------------------------------------------------------
def _store(rows: Sequence[tuple[str, str, str | None]]) -> AuditStore:
    store = AuditStore()
    store.add_listings(Listing(url, url, sitemap, i + 3, lastmod) for i, (url, sitemap, lastmod) in enumerate(rows))
    return store


def _categories(store: AuditStore) -> dict[str, int]:
    return store.counts()


@pytest.mark.parametrize(("shared", "total", "expected"), [(4, 5, 4), (3, 5, 0), (4, 4, 0)])
def test_uniform_lastmod_threshold(shared: int, total: int, expected: int) -> None:
    sm = "https://a.test/sitemap.xml"
    rows = [(f"https://a.test/{i}", sm, "2024-01-01" if i < shared else f"2023-0{i % 9 + 1}-02")
            for i in range(total)]
    store = _store(rows)
    static_findings(store, uniform_min=5, uniform_share=0.8, slack=DAY)
    assert _categories(store).get("lastmod_uniform", 0) == expected


def test_future_scope_and_duplicates() -> None:
    sm = "https://a.test/shop/sitemap.xml"
    now = datetime(2025, 1, 1, tzinfo=UTC)
    store = _store([
        ("https://a.test/shop/a", sm, "2025-01-01T20:00:00Z"),  # later today: within the slack
        ("https://a.test/shop/b", sm, "2025-01-03"),
        ("https://a.test/blog/c", sm, None),
        ("https://b.test/shop/d", sm, None),
        ("https://a.test/shop/a", "https://a.test/shop/other.xml", None),
    ])
    static_findings(store, uniform_min=5, uniform_share=0.8, slack=DAY, now=now)
    found = {(f.category, f.url): f for f in store.findings()}
    assert set(found) == {("lastmod_future", "https://a.test/shop/b"), ("out_of_scope", "https://a.test/blog/c"),
                          ("out_of_scope", "https://b.test/shop/d"), ("duplicate", "https://a.test/shop/a")}
    dup = found["duplicate", "https://a.test/shop/a"]
    assert (dup.sitemap, dup.line) == ("https://a.test/shop/other.xml", 7)
    assert dup.evidence == f"listed 2 times: {sm}:3, https://a.test/shop/other.xml:7"
    assert found["out_of_scope", "https://a.test/blog/c"].evidence == "outside the sitemap's directory /shop/"


# -- options and statistics -------------------------------------------------------------------------------------
def test_parse_categories() -> None:
    assert parse_categories("not_found, orphan") == {"not_found", "orphan"}
    assert len(parse_categories("all")) == 16
    with pytest.raises(ConfigurationError, match="unknown finding category nope"):
        parse_categories("not_found,nope")


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
