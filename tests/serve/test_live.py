"""A table that changes while it is served (issue 25): validators always identify the bytes sent, changed, deleted
and added rows show at the very next request of their page, pages never go over the limits, a page that fills
makes the next one appear in the index, and the first answer reads keys, not every entry. In memory here; over
SQLite under uvicorn in test_live_uvicorn.py."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from sitemapkit.core import UrlEntry
from sitemapkit.serve import KeysetSource, SitemapService
from tests.serve.test_plan import BASE, Rows

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _service(rows: Rows, *, stats: bool = False, clock: list[float] | None = None, max_urls: int = 10,
             ttl: float | None = 300.0, boundary: str = "keys") -> SitemapService:
    """``boundary``: how boundaries are read: the ``keys`` hook, the ``nth_key`` hook, or ``fetch`` alone."""
    ticks = clock if clock is not None else [0.0]
    source = rows.source(keys=boundary == "keys", nth_key=boundary == "nth", stats=stats)
    return SitemapService(BASE, {"p": source}, max_urls=max_urls, ttl=ttl, clock=lambda: ticks[0],
                          now=lambda: NOW)


BOUNDARIES = pytest.mark.parametrize("boundary", ["keys", "nth", "fetch"])


def _rows(n: int) -> Rows:
    return Rows([UrlEntry(f"{BASE}p/{i}", lastmod=f"2025-01-{i % 28 + 1:02d}") for i in range(n)])


def _get(svc: SitemapService, name: str, **headers: str) -> tuple[int, str | None, bytes]:
    reply = svc.respond("GET", name, {k.replace("_", "-"): v for k, v in headers.items()})
    return reply.status, reply.header("ETag"), reply.read()


def _locs(body: bytes) -> list[str]:
    return re.findall(r"<loc>([^<]+)</loc>", body.decode())


def _check_honest(svc: SitemapService, name: str, old_etag: str, old_body: bytes) -> tuple[str, bytes]:
    """After a change: the old ETag gets no 304, the new bytes come under a new ETag, the same bytes again
    under the same one (and then a 304)."""
    status, etag, body = _get(svc, name, If_None_Match=old_etag)
    assert status == 200
    assert body != old_body
    assert etag is not None
    assert etag != old_etag
    again = _get(svc, name)
    assert again[1:] == (etag, body)
    assert _get(svc, name, If_None_Match=etag)[0] == 304
    return etag, body


@BOUNDARIES
def test_changed_deleted_and_added_rows_show_at_the_next_request_with_new_etags(boundary: str) -> None:
    for stats in (False, True):
        rows = _rows(25)
        svc = _service(rows, stats=stats, boundary=boundary)
        pages = {n: _get(svc, f"sitemap-p-{n}.xml") for n in (1, 2, 3)}
        for n, (status, etag, _body) in pages.items():
            assert status == 200
            assert etag is not None
            assert _get(svc, f"sitemap-p-{n}.xml", If_None_Match=etag)[0] == 304
        rows.rows[30] = UrlEntry(f"{BASE}changed", lastmod="2025-03-01")  # page 1
        del rows.rows[150]  # page 2
        rows.rows[260] = UrlEntry(f"{BASE}added", lastmod="2025-03-02")  # after the last row: page 3
        _e1, b1 = _check_honest(svc, "sitemap-p-1.xml", pages[1][1] or "", pages[1][2])
        _e2, b2 = _check_honest(svc, "sitemap-p-2.xml", pages[2][1] or "", pages[2][2])
        _e3, b3 = _check_honest(svc, "sitemap-p-3.xml", pages[3][1] or "", pages[3][2])
        assert f"{BASE}changed" in _locs(b1)
        assert f"{BASE}p/14" not in _locs(b2)
        assert len(_locs(b2)) == 9
        assert _locs(b3)[-1] == f"{BASE}added"


@BOUNDARIES
def test_a_filled_last_page_makes_the_next_appear_in_the_index(boundary: str) -> None:
    rows = _rows(20)  # two full pages
    svc = _service(rows, boundary=boundary)
    index = _get(svc, "sitemap.xml")[2]
    assert index.count(b"<sitemap>") == 2
    rows.rows[210] = UrlEntry(f"{BASE}added")
    index = _get(svc, "sitemap.xml")[2]
    assert _locs(index) == [f"{BASE}sitemap-p-{n}.xml" for n in (1, 2, 3)]
    assert _locs(_get(svc, "sitemap-p-3.xml")[2]) == [f"{BASE}added"]
    # A last page that fills while served is cut where it fills: the next page exists at once
    for k in range(220, 320, 10):
        rows.rows[k] = UrlEntry(f"{BASE}more/{k}")
    assert len(_locs(_get(svc, "sitemap-p-3.xml")[2])) == 10
    assert _locs(_get(svc, "sitemap-p-4.xml")[2]) == [f"{BASE}more/310"]
    assert _get(svc, "sitemap.xml")[2].count(b"<sitemap>") == 4


@BOUNDARIES
def test_rows_inserted_inside_a_page_never_take_it_over_the_limit_and_none_is_lost(boundary: str) -> None:
    rows = _rows(30)  # keys 10..300, three full pages
    svc = _service(rows, boundary=boundary)
    assert [len(_locs(_get(svc, f"sitemap-p-{n}.xml")[2])) for n in (1, 2, 3)] == [10, 10, 10]
    for k in (11, 12, 13):  # inside page 1's range
        rows.rows[k] = UrlEntry(f"{BASE}inserted/{k}")
    seen: list[str] = []
    for n in range(1, 10):
        status, _etag, body = _get(svc, f"sitemap-p-{n}.xml")
        if status == 404:
            break
        assert len(_locs(body)) <= 10
        seen += _locs(body)
    assert sorted(seen) == sorted(e.loc for e in rows.rows.values())
    assert len(seen) == len(set(seen)) == 33


@BOUNDARIES
def test_a_page_whose_rows_were_all_deleted_is_merged_not_served_empty(boundary: str) -> None:
    rows = _rows(30)
    svc = _service(rows, boundary=boundary)
    assert _get(svc, "sitemap.xml")[2].count(b"<sitemap>") == 3
    for k in range(110, 210, 10):  # all of page 2
        del rows.rows[k]
    status, _etag, body = _get(svc, "sitemap-p-2.xml")
    assert status == 200
    assert _locs(body) == [f"{BASE}p/{i}" for i in range(20, 30)]
    assert _get(svc, "sitemap-p-3.xml")[0] == 404
    assert _get(svc, "sitemap.xml")[2].count(b"<sitemap>") == 2


def test_stats_answers_304_without_rendering_only_while_the_summary_is_unchanged_and_within_ttl() -> None:
    rows = _rows(25)
    clock = [0.0]
    svc = _service(rows, stats=True, clock=clock, ttl=60)
    _status, etag, body = _get(svc, "sitemap-p-2.xml")
    assert etag is not None
    rows.calls.clear()
    assert _get(svc, "sitemap-p-2.xml", If_None_Match=etag)[0] == 304
    assert rows.calls == []  # no row read: the summary decided
    rows.rows[120] = UrlEntry(f"{BASE}p/changed", lastmod="2025-06-01")  # the summary sees it (newest lastmod)
    etag2, _body2 = _check_honest(svc, "sitemap-p-2.xml", etag, body)
    # A change the summary cannot see (same count, same newest lastmod) lasts at most ttl ...
    rows.rows[130] = UrlEntry(f"{BASE}p/renamed", lastmod=rows.rows[130].lastmod)
    assert _get(svc, "sitemap-p-2.xml", If_None_Match=etag2)[0] == 304
    clock[0] = 61.0
    status, etag3, body3 = _get(svc, "sitemap-p-2.xml", If_None_Match=etag2)
    assert (status, f"{BASE}p/renamed" in _locs(body3)) == (200, True)
    assert etag3 != etag2
    # ... or until invalidate()
    rows.rows[140] = UrlEntry(f"{BASE}p/renamed-again", lastmod=rows.rows[140].lastmod)
    assert etag3 is not None
    assert _get(svc, "sitemap-p-2.xml", If_None_Match=etag3)[0] == 304
    svc.invalidate("p")
    assert _get(svc, "sitemap-p-2.xml", If_None_Match=etag3)[0] == 200
    # A plain GET always renders: its bytes and ETag are the table's now
    rows.rows[150] = UrlEntry(f"{BASE}p/renamed-third", lastmod=rows.rows[150].lastmod)
    assert f"{BASE}p/renamed-third" in _locs(_get(svc, "sitemap-p-2.xml")[2])


def test_last_modified_is_the_newest_lastmod_and_never_in_the_future() -> None:
    rows = Rows([UrlEntry(f"{BASE}p/{i}", lastmod=f"2025-12-{i + 1:02d}") for i in range(20)])
    svc = _service(rows, stats=True)
    reply = svc.respond("GET", "sitemap-p-2.xml", {})
    assert reply.header("Last-Modified") == "Sat, 20 Dec 2025 00:00:00 GMT"
    reply.read()
    rows.rows[110] = UrlEntry(f"{BASE}p/future", lastmod="2030-01-01")
    reply = svc.respond("GET", "sitemap-p-2.xml", {})
    assert reply.header("Last-Modified") == "Thu, 01 Jan 2026 12:00:00 GMT"  # the injected now
    reply.read()
    index = svc.respond("GET", "sitemap.xml", {})
    assert index.header("Last-Modified") == "Thu, 01 Jan 2026 12:00:00 GMT"
    assert b"<lastmod>2026-01-01T12:00:00Z</lastmod>" in index.read()


def test_the_first_answer_reads_keys_and_one_page_of_rows_not_the_table() -> None:
    rows = _rows(95)
    svc = _service(rows)
    status, _etag, body = _get(svc, "sitemap-p-9.xml")
    assert (status, len(_locs(body))) == (200, 10)
    assert rows.calls == [(800, 11)]  # one range of rows: the page's
    assert [after for after, _limit in rows.key_calls] == [None, *range(100, 900, 100)]  # keys up to it only
    # with nth_key: two seeks per boundary, no key list
    rows = _rows(95)
    svc = _service(rows, boundary="nth")
    assert _get(svc, "sitemap-p-9.xml")[0] == 200
    assert rows.key_calls[:2] == [(None, -10), (100, -1)]
    assert len(rows.key_calls) == 2 * 9  # page 9 ends at the ninth boundary: the nth key, then one past it
    rows.calls.clear()
    assert _get(svc, "sitemap.xml")[0] == 200
    assert rows.calls == []  # the index needs keys alone


def test_if_modified_since_alone_never_gives_a_304_for_a_live_page() -> None:
    rows = _rows(20)
    svc = _service(rows)
    reply = svc.respond("GET", "sitemap-p-1.xml", {})
    last = reply.header("Last-Modified") or ""
    reply.read()
    del rows.rows[50]  # the newest lastmod of the page does not move
    status, _etag, body = _get(svc, "sitemap-p-1.xml", If_Modified_Since=last)
    assert status == 200
    assert f"{BASE}p/4" not in _locs(body)


def test_a_page_with_known_boundaries_does_not_wait_for_another_requests_walk() -> None:
    rows = _rows(30)
    entered, gate = threading.Event(), threading.Event()

    def keys(after: int | None, limit: int) -> list[int]:
        if after == 100:  # the walk past page 1 waits here until the test lets it go
            entered.set()
            assert gate.wait(10)
        return rows.keys(after, limit)

    svc = SitemapService(BASE, {"p": KeysetSource(rows, keys=keys)}, max_urls=10)
    assert _get(svc, "sitemap-p-1.xml")[0] == 200  # page 1's boundary is known
    walker = threading.Thread(target=lambda: _get(svc, "sitemap-p-3.xml"))
    walker.start()
    try:
        assert entered.wait(10)
        assert _get(svc, "sitemap-p-1.xml")[0] == 200  # answered while the walk is held
    finally:
        gate.set()
        walker.join(10)
    assert _get(svc, "sitemap.xml")[2].count(b"<sitemap>") == 3


def test_refresh_after_a_bulk_delete_merges_the_thinned_pages() -> None:
    rows = _rows(30)
    svc = _service(rows)
    assert len(svc.page_ranges("p")) == 3
    for k in range(20, 310, 20):  # every second row
        del rows.rows[k]
    assert len(svc.page_ranges("p")) == 3  # thinned pages stay where they are (nothing lost, nothing moved)
    svc.refresh()
    assert len(svc.page_ranges("p")) == 2
    assert [len(_locs(_get(svc, f"sitemap-p-{n}.xml")[2])) for n in (1, 2)] == [10, 5]


def test_an_entry_too_big_for_any_page_is_skipped_and_the_rest_served(caplog: pytest.LogCaptureFixture) -> None:
    from sitemapkit.core import Image

    rows = _rows(6)
    rows.rows[30] = UrlEntry(f"{BASE}big", images=[Image(f"{BASE}img/{i}.jpg") for i in range(40)])
    svc = SitemapService(BASE, {"p": rows.source()}, max_bytes=1500)
    bodies = []
    for n in range(1, 10):
        status, _etag, body = _get(svc, f"sitemap-p-{n}.xml")
        if status == 404:
            break
        assert len(body) <= 1500
        bodies.append(body)
    served = [loc for body in bodies for loc in _locs(body)]
    assert f"{BASE}big" not in served
    assert len(served) == 5
    assert "cannot fit in a sitemap of 1500 bytes" in caplog.text


def test_a_render_that_began_before_invalidate_is_not_trusted_for_a_304() -> None:
    rows = _rows(20)
    armed = [False]

    def fetch(after: int | None, limit: int) -> Iterator[tuple[int, UrlEntry]]:
        yield from rows(after, limit)
        if armed[0]:  # the app rewrites a row (same lastmod: stats cannot see it) and says so, mid-render
            armed[0] = False
            rows.rows[150] = UrlEntry(f"{BASE}p/renamed", lastmod=rows.rows[150].lastmod)
            svc.invalidate()

    svc = SitemapService(BASE, {"p": KeysetSource(fetch, keys=rows.keys, stats=rows.stats)}, max_urls=10,
                         now=lambda: NOW)
    assert _get(svc, "sitemap-p-1.xml")[0] == 200
    armed[0] = True
    status, etag, body = _get(svc, "sitemap-p-2.xml")
    assert (status, f"{BASE}p/renamed" in _locs(body)) == (200, False)  # rendered before the rewrite
    assert etag is not None
    status, _etag, body = _get(svc, "sitemap-p-2.xml", If_None_Match=etag)
    assert (status, f"{BASE}p/renamed" in _locs(body)) == (200, True)
