"""report.html is byte for byte the golden page (crawl/templates/report.html; the goldens were written again when
issue 24 embedded every row as JSON for the page's table script, escaped for a script element), from a crawl
state holding every kind of row, quotes and markup characters in its values, more referrers than a row lists and
more rows than a table shows."""

from __future__ import annotations

from pathlib import Path

from sitemapkit.crawl._report import summarize, write_crawl_reports, write_html_report
from sitemapkit.crawl._state import CrawlState

GOLDEN = Path(__file__).parent / "golden"
SITE = "https://example.com"


def build(path: Path) -> CrawlState:
    state = CrawlState(path)
    state.start_new(SITE + "/", "2024-05-01T10:00:00Z")
    home = state.add_url(SITE + "/", 0)
    state.record(home, status=200, in_sitemap=True)
    pages = []
    for i in range(7):
        page = state.add_url(f"{SITE}/docs/page-{i}?a=1&b='{i}'", 1)
        state.record(page, status=200, in_sitemap=True)
        pages.append(page)
    gone = state.add_url(SITE + "/gone", 2)
    state.record(gone, status=404)
    state.add_links(gone, [home, *pages])  # dst gone is linked from all eight
    for src in (home, *pages):
        state.add_links(src, [gone])
    failed = state.add_url("https://other.example/<x>", 1)
    state.record(failed, status=None, error='cannot connect to "other.example" (it\'s down)')
    state.add_links(failed, [home])
    state.add_links(home, [failed])
    for i, (reason, detail) in enumerate([("noindex", 'meta robots "noindex"'), ("canonical", "points to <b>'x'</b>"),
                                          ("noindex", "X-Robots-Tag: noindex")]):
        url = state.add_url(f"{SITE}/ex-{i}", 1)
        state.record(url, status=200, reason=reason, detail=detail)
    moved = state.add_url(SITE + "/old", 1)
    state.record(moved, status=200, final_url=SITE + "/new", redirects=[(SITE + "/old", 301), (SITE + "/mid", 302)])
    loop = state.add_url(SITE + "/loop", 1)
    state.record(loop, status=None, error="redirect loop", redirects=[(SITE + "/loop", 301)])
    queued = state.add_url(SITE + "/later", 3)
    assert queued
    state.commit()
    return state


def test_report_html_is_byte_for_byte_the_golden_page(tmp_path: Path) -> None:
    state = build(tmp_path / "state.sqlite")
    try:
        write_crawl_reports(state, tmp_path, complete=False)
        assert (tmp_path / "report.html").read_bytes() == (GOLDEN / "report.html").read_bytes()
        write_html_report(state, tmp_path / "short.html", summarize(state), complete=True, html_rows=1)
        assert (tmp_path / "short.html").read_bytes() == (GOLDEN / "report-short.html").read_bytes()
    finally:
        state.close()


def test_values_keep_the_entities_they_had(tmp_path: Path) -> None:
    state = build(tmp_path / "state.sqlite")
    try:
        write_crawl_reports(state, tmp_path, complete=True)
    finally:
        state.close()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "cannot connect to &quot;other.example&quot; (it&#x27;s down)" in page
    assert "points to &lt;b&gt;&#x27;x&#x27;&lt;/b&gt;" in page
    assert '<a href="https://other.example/&lt;x&gt;" rel="nofollow noreferrer">https://other.example/&lt;x&gt;</a>' \
        in page
    assert '<li class="muted">and 3 more</li>' in page
    assert "incomplete" not in page
