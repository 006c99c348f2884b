"""Runs of lane blocks checked together (``validate._bulk``, issue 27): the same report as block by block.

A clean shop sitemap goes through ``check_blocks`` in runs; one odd entry anywhere (every kind of problem the
lane can report, and every shape it takes but a run cannot) must give exactly the problems, in the same order with
the same lines, as the lane block by block and as the element path (lane off), in both profiles, whole and in
chunks, with XSD batches of the normal size and of three entries.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sitemapkit.validate._xml as vx
from sitemapkit import validate_sitemaps
from sitemapkit.core import _seen
from sitemapkit.read import _lane as _read_lane
from sitemapkit.validate import _bulk, _hreflang, _lane
from sitemapkit.validate._driver import _new_context, _options, _run_stream
from sitemapkit.validate._google import _GOOD_HREFLANG
from sitemapkit.validate._hreflang import HreflangStore
from sitemapkit.validate._xsd import XsdBatching

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOW = "2026-01-01T00:00:00Z"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')
WORDS = ("gr%C3%BCn", "gr%C3%B6%C3%9Fe", "m%C3%BCtze", "sch%C3%B6n")


def _entry(i: int, **odd: str) -> str:
    """Entry ``i`` of a shop: pages 2k (en) and 2k + 1 (de) are one product, each listing both, with a lastmod
    and an image. ``odd`` replaces a part: loc, lastmod, extra (after lastmod), links, image, sep (after the
    block)."""
    slug = i // 2
    page = f"schuhe/{WORDS[slug % 4]}-{slug}?color=rot&amp;size={slug % 13 + 36}"
    lang = "en" if i % 2 == 0 else "de"
    loc = odd.get("loc", f"https://shop.de/{lang}/{page}")
    links = odd.get("links", f'<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/{page}"/>'
                             f'<xhtml:link rel="alternate" hreflang="de" href="https://shop.de/de/{page}"/>')
    image = odd.get("image", f"<image:image><image:loc>https://shop.de/b/{slug}.jpg</image:loc></image:image>")
    lastmod = odd.get("lastmod", f"2024-{slug % 12 + 1:02d}-{slug % 28 + 1:02d}")
    lastmod_element = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    return (f"<url><loc>{loc}</loc>{lastmod_element}{odd.get('extra', '')}{links}{image}</url>"
            f"{odd.get('sep', chr(10))}")


def _shop(n: int, odd: dict[int, dict[str, str]] | None = None, *, pretty: bool = False,
          queries: bool = True) -> bytes:
    """``n`` entries (``odd`` replacing parts of some); ``pretty``: each element on its own line, indented;
    ``queries``: the URLs keep their query with its ``&amp;``."""
    odd = odd or {}
    body = "".join(_entry(i, **odd.get(i, {})) for i in range(n))
    if not queries:
        body = re.sub(r"\?color=rot&amp;size=[0-9]+", "", body)
    if pretty:
        body = re.sub(r"><(?!/loc|/lastmod|/image:loc|/changefreq|/priority)", ">\n  <", body)
    return (HEAD + body + "</urlset>\n").encode()


def _problems(data: bytes, profile: str, *, lane: bool, bulk: bool, cut: int = 0, sitemap_url: str | None = None,
              cross_host: bool = False) -> tuple[list[Any], dict[str, int], int]:
    """The problems found in order, the non-reciprocal links last (Google's rules), the tally and the entries."""
    saved = _read_lane.ENABLED, _bulk.ENABLED
    _read_lane.ENABLED, _bulk.ENABLED = lane, bulk
    skipped = [0]
    skip = XsdBatching.skip_bytes_batch  # (patched where it is defined, and put back there)

    def counting(self: XsdBatching) -> None:
        skipped[0] += 1
        skip(self)

    XsdBatching.skip_bytes_batch = counting  # type: ignore[method-assign]
    try:
        options = _options(profile, NOW, cross_host, True)
        with HreflangStore() as store:
            ctx = _new_context("shop.xml", sitemap_url, options, store if profile == "google" else None)
            chunks = [data[:cut], data[cut:]] if cut else [data]
            _run_stream(ctx, iter(chunks))
            found: list[Any] = list(ctx.problems)
            if profile == "google":
                found.append(sorted((r.page, r.target, r.hreflang, r.line) for r in store.non_reciprocal()))
            # the XSD batches skipped as proven valid (none without the lane): the same with runs and without
            found.append(skipped[0] if lane else None)
            # and the hreflang store spilled to disk at the same points
            found.append((store.spilled, store.pages_spilled))
            return found, dict(ctx.tally), ctx.entries
    finally:
        _read_lane.ENABLED, _bulk.ENABLED = saved
        XsdBatching.skip_bytes_batch = skip  # type: ignore[method-assign]


def _same_three_ways(data: bytes, cut: int = 0, sitemap_url: str | None = None,
                     cross_host: bool = False) -> list[Any]:
    """The problems (Google's rules), the same from the element path, the lane block by block and the lane with
    runs, in both profiles."""
    out: list[Any] = []
    for profile in ("google", "sitemaps"):
        ways = [_problems(data, profile, lane=lane, bulk=bulk, cut=cut, sitemap_url=sitemap_url,
                          cross_host=cross_host) for lane, bulk in ((False, False), (True, False), (True, True))]
        element, one_by_one, runs = ways
        assert runs == one_by_one, profile
        assert runs[0][:-2] == element[0][:-2], profile
        assert runs[1:] == element[1:], profile
        if profile == "google":
            out = runs[0][:-2]
    return out


# (pretty-printed with a query in every href, the lane leaves the document to lxml at its first block)
@pytest.mark.parametrize(("pretty", "queries"), [(False, True), (True, False)], ids=["one-line", "pretty"])
def test_a_clean_shop_is_checked_in_runs(pretty: bool, queries: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    taken: collections.Counter[str] = collections.Counter()
    check = _bulk.check_blocks

    def counting(*args: Any) -> tuple[int, bool] | None:
        got = check(*args)
        taken["run" if got is not None else "declined"] += len(args[4])
        return got

    monkeypatch.setattr(_lane, "check_blocks", counting)
    data = _shop(3000, pretty=pretty, queries=queries)
    assert data.count(b"\n") > (6 if pretty else 1) * 3000
    problems = _same_three_ways(data)
    assert problems == [[]]  # nothing to report, every link returned
    # the first run declines (the site's origin and the languages are not known yet); then all in runs
    assert taken["run"] >= 2 * 2500, taken  # (both profiles)


# One odd entry, by what it holds: each is either reported or taken by the lane (or lxml) one by one.
ODD: dict[str, dict[str, str]] = {
    "duplicate loc": {"loc": "https://shop.de/en/schuhe/gr%C3%BCn-0?color=rot&amp;size=36"},
    "other host": {"loc": "https://other.de/x"},
    "placeholder host": {"loc": "https://localhost/x"},
    "mojibake loc": {"loc": "https://shop.de/gr%C3%83%C2%BCn"},
    "long loc": {"loc": "https://shop.de/" + "x" * 2040},
    "short loc": {"loc": "https://s.de"},
    "loc with space": {"loc": "https://shop.de/a b"},
    "relative loc": {"loc": "/relative"},
    "empty loc": {"loc": ""},
    "loc with a reference": {"loc": "https://shop.de/a&#38;b"},
    "loc with other entity": {"loc": "https://shop.de/a&apos;b"},
    "non-ASCII loc": {"loc": "https://shop.de/caf\u00e9"},
    "bad lastmod": {"lastmod": "2024-13-45"},
    "future lastmod": {"lastmod": "2030-01-01"},
    "no lastmod": {"lastmod": ""},
    "lastmod with time": {"lastmod": "2024-01-01T10:00:00+01:00"},
    "changefreq": {"extra": "<changefreq>daily</changefreq>"},
    "bad changefreq": {"extra": "<changefreq>sometimes</changefreq>"},
    "bad priority": {"extra": "<priority>2.0</priority>"},
    "priority": {"extra": "<priority>0.5</priority>"},
    "no self link": {"links": '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/zz"/>'
                              '<xhtml:link rel="alternate" hreflang="de" href="https://shop.de/de/zz"/>'},
    "hreflang conflict": {"links": '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/a"/>'
                                   '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/b"/>'},
    "other order": {"links": '<xhtml:link rel="alternate" hreflang="de" href="https://shop.de/de/q"/>'
                             '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/q"/>'},
    "bad hreflang": {"links": '<xhtml:link rel="alternate" hreflang="english" href="https://shop.de/en/q"/>'},
    "three links": {"links": '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/q"/>'
                             '<xhtml:link rel="alternate" hreflang="de" href="https://shop.de/de/q"/>'
                             '<xhtml:link rel="alternate" hreflang="fr" href="https://shop.de/fr/q"/>'},
    "no links": {"links": ""},
    "href not plain": {"links": '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/a b"/>'},
    "attribute order": {"links": '<xhtml:link hreflang="en" rel="alternate" href="https://shop.de/en/q"/>'},
    "image on localhost": {"image": "<image:image><image:loc>http://localhost/i.jpg</image:loc></image:image>"},
    "empty image": {"image": "<image:image><image:loc></image:loc></image:image>"},
    "image with a line feed": {"image": "<image:image><image:loc>https://shop.de/1.jpg\nhttps://shop.de/2.jpg"
                                        "</image:loc></image:image>"},
    "loc with a line feed": {"loc": "https://shop.de/1\nhttps://shop.de/2"},
    "image not plain": {"image": "<image:image><image:loc>https://shop.de/a b.jpg</image:loc></image:image>"},
    "image elsewhere": {"image": "<image:image><image:loc>https://cdn.example.net/i.jpg</image:loc></image:image>"},
    "two images": {"image": "<image:image><image:loc>https://shop.de/1.jpg</image:loc></image:image>"
                            "<image:image><image:loc>https://shop.de/2.jpg</image:loc></image:image>"},
    "no image": {"image": ""},
    "block on two lines": {"image": "\n<image:image><image:loc>https://shop.de/i.jpg</image:loc></image:image>"},
    "two blocks on a line": {"sep": ""},
    "comment after": {"sep": "<!-- generated -->\n"},
    "comment holding a link": {"sep": '<!-- <xhtml:link rel="alternate" hreflang="en" href="https://shop.de/"/> -->\n'},
    "blank lines after": {"sep": "\n\n\n"},
}


@pytest.mark.parametrize("kind", list(ODD))
def test_one_odd_entry_reports_the_same(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # 600 entries: the first run declines (origin and languages unknown), later runs of up to 256 are taken; the
    # last block ends a partial run
    for at in (300, 599):
        _same_three_ways(_shop(600, {at: ODD[kind]}))
    monkeypatch.setattr(vx, "XSD_BATCH", 3)  # many batches, skipped or validated; and a chunked document
    monkeypatch.setattr(vx, "XSD_IN_THREAD", False)
    data = _shop(600, {400: ODD[kind]})
    _same_three_ways(data, cut=len(data) // 3)
    _same_three_ways(_shop(600, {400: ODD[kind]}, pretty=True, queries=False))


def test_pretty_printed_with_queries_is_read_the_same() -> None:
    # the lane leaves the document to lxml at its first block (an extension with a reference on many lines)
    odd = {1: ODD["duplicate loc"], 300: ODD["bad lastmod"], 450: ODD["no self link"], 599: ODD["image elsewhere"]}
    problems = _same_three_ways(_shop(600, odd, pretty=True))
    assert {p.code for p in problems[:-1]} >= {"SM306", "SM320", "SM432"}  # duplicate, bad date, no self


def test_every_page_naming_one_language_twice() -> None:
    # a run where every page has two links of one language (two URLs for "en": SM431 on each page)
    twice = {i: {"loc": f"https://shop.de/p/{i}",
                 "links": f'<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/p/{i}"/>'
                          f'<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/q/{i}"/>'}
             for i in range(1200)}
    for pretty in (False, True):
        problems = _same_three_ways(_shop(1200, twice, pretty=pretty))
        assert collections.Counter(p.code for p in problems[:-1]) == {"SM431": 1200}


def test_pages_with_other_numbers_of_links_are_not_taken_as_columns() -> None:
    # page 400 lists nothing, page 401 lists page 400 and itself twice over (same URLs: no conflict): four links
    # in a row of two-link pages line up as columns, but 400 has none, so 401's link to it is not returned
    page400, page401 = "https://shop.de/p/400", "https://shop.de/p/401"
    pair = (f'<xhtml:link rel="alternate" hreflang="en" href="{page400}"/>'
            f'<xhtml:link rel="alternate" hreflang="de" href="{page401}"/>')
    odd = {400: {"loc": page400, "links": ""}, 401: {"loc": page401, "links": pair + pair}}
    for pretty in (False, True):
        problems = _same_three_ways(_shop(600, odd, pretty=pretty, queries=not pretty))
        assert [(page, target) for page, target, *_ in problems[-1]] == [(page401, page400)]


def test_reports_name_the_odd_entrys_line() -> None:
    problems = _same_three_ways(_shop(1500, {900: {"lastmod": "2024-13-45"}, 1200: ODD["placeholder host"]}))
    # entry i is on line 3 + i (the prolog and the root start tag come first)
    lines = {p.location.line for p in problems[:-1]}
    assert lines == {3 + 900, 3 + 1200}


def test_links_that_are_not_returned_are_reported_the_same() -> None:
    # page 2k+1 (de) lists an en page other than its pair: both links wait, and are reported at the end
    odd = {i: {"links": '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/schuhe/x"/>'
                        f'<xhtml:link rel="alternate" hreflang="de" href="{_de(i)}"/>'} for i in range(301, 1500, 10)}
    problems = _same_three_ways(_shop(1500, odd))
    # each en page's link to its de page (not listed back); the link to /en/schuhe/x goes out of the set
    assert len(problems[-1]) == len(odd)
    # pretty-printed, each link on its own line: the lines of the links that wait are their own
    # and a comment between two blocks that holds a link's text (the links' lines are counted past it)
    odd[300] = {"sep": '<!-- <xhtml:link rel="alternate" hreflang="en" href="https://shop.de/"/> -->\n'}
    data = _shop(1500, odd, pretty=True, queries=False)
    pretty = _same_three_ways(data)
    assert len(pretty[-1]) == len(odd) - 1
    lines = data.decode().split("\n")
    for _page, target, hreflang, line in pretty[-1]:
        assert f'hreflang="{hreflang}" href="{target}"/>' in lines[line - 1]  # the link's own line


def _de(i: int) -> str:
    slug = i // 2
    return f"https://shop.de/de/schuhe/{WORDS[slug % 4]}-{slug}?color=rot&amp;size={slug % 13 + 36}"


def test_same_lastmod_everywhere_is_reported_the_same() -> None:
    odd = {i: {"lastmod": "2024-05-05"} for i in range(1200)}
    problems = _same_three_ways(_shop(1200, odd))
    assert [(p.code, p.location.line) for p in problems[:-1]] == [("SM324", 3)]
    # with a scope the first run is checked together too: the first loc's line is that of its text
    _GOOD_HREFLANG.update({"en": "en", "de": "de"})  # (as after an earlier file)
    for pretty in (False, True):
        data = _shop(1200, odd, pretty=pretty, queries=False)
        problems = _same_three_ways(data, sitemap_url="https://shop.de/sitemap.xml")
        assert [(p.code, p.location.line) for p in problems[:-1]] == [("SM324", 4 if pretty else 3)]


def test_scope_and_cross_host_options() -> None:
    data = _shop(1500, {800: ODD["other host"]})

    def codes(problems: list[Any]) -> collections.Counter[str]:
        return collections.Counter(p.code for p in problems[:-1])

    assert codes(_same_three_ways(data))["SM309"] == 1  # mixed hosts, reported once
    assert codes(_same_three_ways(data, sitemap_url="https://shop.de/sitemap.xml"))["SM308"] == 1
    # the 750 de pages and the other host
    assert codes(_same_three_ways(data, sitemap_url="https://shop.de/en/sitemap.xml"))["SM308"] == 751
    assert codes(_same_three_ways(data, cross_host=True)) == {"SM432": 1}  # (the odd page lists only others)
    placeholder = _shop(1500, {800: ODD["placeholder host"]})
    assert codes(_same_three_ways(placeholder, cross_host=True)) == {"SM307": 1, "SM432": 1}


def test_near_the_memory_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    # the duplicate set past its exact part, the hreflang store spilling pages and links to disk
    monkeypatch.setattr(_seen, "SEEN_EXACT", 900)
    monkeypatch.setattr(_hreflang, "MAX_PAGES_IN_MEMORY", 700)
    monkeypatch.setattr(_hreflang, "MAX_PENDING_LINKS", 100)
    odd = {i: {"links": '<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/schuhe/x"/>'
                        f'<xhtml:link rel="alternate" hreflang="de" href="{_de(i)}"/>'} for i in range(301, 1500, 7)}
    odd[1300] = ODD["duplicate loc"]
    problems = _same_three_ways(_shop(1500, odd))
    assert problems[-1]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd=st.dictionaries(st.integers(0, 399), st.sampled_from(list(ODD)), max_size=4),
       cut=st.integers(0, 60_000), batch_size=st.sampled_from([2, 3, 1000]))
def test_odd_entries_anywhere(odd: dict[int, str], cut: int, batch_size: int) -> None:
    saved = vx.XSD_BATCH
    vx.XSD_BATCH = batch_size
    try:
        data = _shop(400, {i: ODD[kind] for i, kind in odd.items()})
        _same_three_ways(data, cut=min(cut, len(data) - 1))
    finally:
        vx.XSD_BATCH = saved


def test_whole_report_through_validate_sitemaps(tmp_path: Path) -> None:
    path = tmp_path / "shop.xml"
    path.write_bytes(_shop(3000, {2000: ODD["mojibake loc"], 2500: ODD["bad lastmod"]}))
    reports = []
    for on in (False, True):
        _bulk.ENABLED = on
        try:
            reports.append(validate_sitemaps([path], now=NOW))
        finally:
            _bulk.ENABLED = True
    assert reports[0] == reports[1]
    # the mojibake page, its pair's link to it not listing it back (SM432, SM433), and the bad date
    assert [(p.code, p.location.line) for p in reports[1].problems] == [
        ("SM310", 2003), ("SM432", 2003), ("SM433", 2003), ("SM320", 2503)]


def test_a_problem_every_few_blocks_pauses_the_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    tries = [0]
    check = _bulk.check_blocks

    def counting(*args: Any) -> tuple[int, bool] | None:
        tries[0] += 1
        return check(*args)

    monkeypatch.setattr(_lane, "check_blocks", counting)
    data = _shop(3000, dict.fromkeys(range(5, 3000, 11), ODD["bad lastmod"]))
    problems = _same_three_ways(data)
    assert len(problems) == 273 + 1  # the bad dates, then the (empty) list of links not returned
    # runs shrink to 8 blocks, then pause for longer and longer: a few dozen tries, not one per 8 blocks
    assert 0 < tries[0] < 3000 // 8 // 4, tries  # (both profiles)
