"""Runs of plain blocks read in bulk (``SitemapParser(loc_runs=True)``, ``read._locrun``).

A reader that asked for LocRun events must see, once each run is expanded with ``entries()``, exactly the events
of a reader that did not: the same entries in the same order, the same problems with the same lines. The checks
are on documents mixing plain blocks with every kind of block the bulk check must refuse.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import SitemapParser, UrlEntry
from sitemapkit.cli import cli as main
from sitemapkit.fetch import EntryBatch, open_sources
from sitemapkit.read import Event, LocRun
from sitemapkit.read import _lane as lane
from tests.support.pieces import feed_in_pieces
from tests.support.server import LocalServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG = "http://www.google.com/schemas/sitemap-image/1.1"


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # 2025


def _plain(i: int) -> str:
    return (f"<url><loc>https://shop.example.com/p/{i}?a={i % 7}&amp;b=2</loc>"
            f"<lastmod>2025-{i % 12 + 1:02d}-{i % _DAYS[i % 12] + 1:02d}T10:{i % 60:02d}:00+01:00</lastmod>"
            f"<changefreq>daily</changefreq><priority>0.{i % 10}</priority></url>\n")


# Blocks the bulk check must leave to the per-block path (each is read there, with or without a problem).
ODD = [
    "<url><loc>https://shop.example.com/caf\u00e9</loc></url>\n",  # a raw IRI (taken in bulk, escaped)
    "<url><loc>https://shop.example.com/caf\u00e9?</loc></url>\n",  # an IRI with an empty query
    "<url><loc>https://shop.example.com/caf\u00e9#</loc></url>\n",
    "<url><loc>https://shop.example.com/caf\u00e9?#x</loc></url>\n",
    "<url><loc>https://shop.example.com/\U0001f600/\u20ac?q=\u00fc&amp;r=1</loc></url>\n",
    "<url><loc>https://shop.\u00e9xample.com/idna</loc></url>\n",  # a non-ASCII host (IDNA, not in bulk)
    "<url><loc>https://shop.example.com/\uffff</loc></url>\n",  # not an XML character
    "<url><loc>https://shop.example.com/a\u0085b</loc></url>\n",  # Unicode whitespace inside
    "<url><loc>https://shop.example.com/a\u3000</loc></url>\n",  # ... and at the end (stripped)
    "<url><loc>https://shop.example.com/a&#38;b</loc></url>\n",  # a character reference
    "<url><loc>https://shop.example.com/a&lt;b</loc></url>\n",
    "<url><loc>https://shop.example.com/dup</loc></url>\n",
    "<url><loc> https://shop.example.com/spaced </loc></url>\n",
    "<url><loc></loc></url>\n",
    f"<url><loc>https://shop.example.com/{'x' * 2100}</loc></url>\n",  # longer than 2,048
    "<url><loc>https://shop.example.com/lm</loc><lastmod>2025-13-01</lastmod></url>\n",
    "<url><loc>https://shop.example.com/lm2</loc><lastmod>2025-11-01T10:00</lastmod></url>\n",
    "<url><loc>https://shop.example.com/lm3</loc><lastmod>2024-02-29</lastmod></url>\n",  # leap day
    "<url><loc>https://shop.example.com/lm4</loc><lastmod>2025-02-29</lastmod></url>\n",  # no such day
    "<url><loc>https://shop.example.com/lm5</loc><lastmod>2025-04-31</lastmod></url>\n",
    "<url><loc>https://shop.example.com/lm6</loc><lastmod>2025-04-30T23:59:59.5-03:00</lastmod></url>\n",
    "<url><loc>https://shop.example.com/lm7</loc><lastmod>2025-12-31T24:00:00Z</lastmod></url>\n",
    "<url><loc>https://shop.example.com/lm8</loc><lastmod>2025-01-31T10:00+14:00</lastmod></url>\n",
    "<url><loc>https://shop.example.com/pr</loc><priority>1.5</priority></url>\n",
    "<url><loc>https://shop.example.com/pr2</loc><priority> 0.5 </priority></url>\n",
    "<url><loc>https://shop.example.com/pr3</loc><priority>.5</priority></url>\n",
    "<url><loc>https://shop.example.com/cf</loc><changefreq>Daily</changefreq></url>\n",
    "<url><loc>https://shop.example.com/amp&amp;amp;x</loc></url>\n",
    "<url><loc>https://shop.example.com/d&apos;oh?a=&apos;&amp;b</loc></url>\n",  # taken in bulk
    "<url><loc>https://shop.example.com/q&quot;x</loc></url>\n",
    "<url><loc>https://shop.example.com/a&amp;apos;b</loc></url>\n",
    "<url><loc>ftp://shop.example.com/f</loc></url>\n",
    "<url><loc>https://shop.example.com/pct%zz</loc></url>\n",  # "%" that starts no escape (fixed there)
    "<url><loc>https://shop.example.com/pct%4</loc></url>\n",
    "<url><loc>https://shop.example.com/pct%</loc></url>\n",
    "<url><loc>https://shop.example.com/pct%%41</loc></url>\n",
    "<url><loc>https://shop.example.com/a b</loc></url>\n",  # characters no URI holds, escaped there
    "<url><loc>https://shop.example.com/a\"b{c}|d^e`f\\g</loc></url>\n",
    "<url><loc>https://shop.example.com/a>b</loc></url>\n",
    "<url><loc>https://shop.example.com/t\tab</loc></url>\n",
    "<url><loc>https://shop.example.com:8080/port?x=%41%c3%a4</loc></url>\n",  # taken in bulk
    "<url><loc>https://shop.example.com:123456/port</loc></url>\n",  # no such port
    "<url><loc>https://-shop.example.com/host</loc></url>\n",
    "<url>\n  <loc>https://shop.example.com/nl</loc>\n  <lastmod>2025-01-01</lastmod>\n</url>\n",
    "<!-- a comment between blocks -->\n",
    '<url><loc>https://shop.example.com/img</loc><image:image><image:loc>https://shop.example.com/i.jpg'
    "</image:loc></image:image></url>\n",
    "<url><loc>https://shop.example.com/cdata<![CDATA[x]]></loc></url>\n",
    "<url><lastmod>2025-01-01</lastmod><loc>https://shop.example.com/order</loc></url>\n",
]


def _doc(blocks: list[str]) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMG}">\n'
            + "".join(blocks) + "</urlset>\n").encode()


def _read(data: bytes, cuts: list[int], *, loc_runs: bool, strict: bool = False) -> tuple[list[Event], int]:
    events = feed_in_pieces(SitemapParser("doc", strict=strict, loc_runs=loc_runs), data, cuts, [])
    runs = sum(isinstance(ev, LocRun) for ev in events)
    return [e for ev in events for e in (ev.entries() if isinstance(ev, LocRun) else (ev,))], runs


def _same(data: bytes, cuts: list[int]) -> int:
    """Both readers see the same events; returns how many LocRuns the bulk reader got."""
    plain, none = _read(data, cuts, loc_runs=False)
    assert none == 0
    bulk, runs = _read(data, cuts, loc_runs=True)
    assert bulk == plain
    return runs


def test_plain_document_comes_in_runs_with_the_same_entries() -> None:
    data = _doc([_plain(i) for i in range(3000)])
    for cuts in ([], list(range(4096, len(data), 4096)), list(range(977, len(data), 977))):
        runs = _same(data, cuts)
        assert runs >= 1
    parser = SitemapParser("doc", loc_runs=True)
    events = parser.feed(data) + parser.close()
    assert all(isinstance(ev, LocRun) for ev in events)
    locs = [loc for ev in events if isinstance(ev, LocRun) for loc in ev.locs]
    assert locs[:2] == ["https://shop.example.com/p/0?a=0&b=2", "https://shop.example.com/p/1?a=1&b=2"]
    assert len(locs) == 3000
    assert parser.entry_count == 3000


@pytest.mark.parametrize("odd", range(len(ODD)))
def test_a_block_the_bulk_check_refuses_is_read_as_before(odd: int) -> None:
    blocks = [_plain(i) for i in range(400)]
    blocks[1] = "<url><loc>https://shop.example.com/dup</loc></url>\n"
    blocks.insert(200, ODD[odd])
    data = _doc(blocks)
    for cuts in ([], list(range(1000, len(data), 1000))):
        _same(data, cuts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=st.lists(st.integers(0, len(ODD) + 8), min_size=1, max_size=60),
       seed=st.integers(0, 2**32 - 1), strict=st.booleans())
def test_random_mixes_read_the_same(picks: list[int], seed: int, strict: bool) -> None:
    blocks = [_plain(n) if k >= len(ODD) else ODD[k] for n, k in enumerate(picks)]
    data = _doc(blocks)
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 12))))
    try:
        plain, _ = _read(data, cuts, loc_runs=False, strict=strict)
    except Exception as exc:  # strict mode stops at the first problem: the bulk reader must stop the same way
        with pytest.raises(type(exc)):
            _read(data, cuts, loc_runs=True, strict=strict)
        return
    assert _read(data, cuts, loc_runs=True, strict=strict)[0] == plain


def test_duplicates_across_the_tracking_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the limit of remembered locs a run is refused only for a loc seen before the limit, as the per-block
    path reports only those."""
    monkeypatch.setattr(lane, "DUPLICATE_TRACKING_LIMIT", 150)
    blocks = [_plain(i) for i in range(600)]
    blocks[400] = _plain(10)  # remembered: reported
    blocks[500] = _plain(300)  # seen after the limit: not remembered, not reported
    data = _doc(blocks)
    for cuts in ([], list(range(2000, len(data), 2000))):
        assert _same(data, cuts) >= 1
    events, _ = _read(data, [], loc_runs=True)
    dups = [ev for ev in events if not isinstance(ev, UrlEntry)]
    assert [p.code for p in dups] == ["SM306"]  # type: ignore[union-attr]


def test_urls_text_output(tmp_path: Path) -> None:
    """`sitemapkit urls` (text) reads runs in bulk: the same lines as the jsonl output's locs, --unique too."""
    path = tmp_path / "s.xml"
    blocks = [_plain(i) for i in range(2000)] + [ODD[0], _plain(5)]
    path.write_bytes(_doc(blocks))
    runner = CliRunner()
    text = runner.invoke(main, ["urls", str(path), "-q"])
    jsonl = runner.invoke(main, ["urls", str(path), "--format", "jsonl", "-q"])
    assert text.exit_code == jsonl.exit_code == 0
    expected = [json.loads(line)["loc"] for line in jsonl.stdout.splitlines()]
    assert text.stdout.splitlines() == expected
    assert len(expected) == 2002
    assert "https://shop.example.com/caf%C3%A9" in expected
    unique = runner.invoke(main, ["urls", str(path), "--unique", "-q"])
    assert unique.stdout.splitlines() == list(dict.fromkeys(expected))
    assert "SM306" in text.stderr


def test_urls_and_discover_over_http(tmp_path: Path) -> None:
    """From a URL the plain entries come by their locs too (EntryBatch.locs): the same output as jsonl, the
    same --max-urls cut, and `discover` counts them."""
    blocks = [_plain(i) for i in range(3000)]
    blocks.insert(1500, ODD[0])
    body = _doc(blocks)
    runner = CliRunner()
    with LocalServer() as srv:
        srv.route("/sitemap.xml", body=body, headers={"Content-Type": "application/xml"})
        url = srv.url("/sitemap.xml")
        text = runner.invoke(main, ["urls", url, "-q"])
        jsonl = runner.invoke(main, ["urls", url, "--format", "jsonl", "-q"])
        cut = runner.invoke(main, ["urls", url, "-q", "--max-urls", "1234"])
        found = runner.invoke(main, ["discover", url, "--format", "json"])
        batches = [ev for ev in open_sources([url], batches=True, loc_runs=True) if isinstance(ev, EntryBatch)]
    assert sum(len(b.locs) for b in batches) > 2000  # most came by their locs
    assert [loc for b in batches for loc in (b.locs or [e.loc for e in b.entries])] == \
        [json.loads(line)["loc"] for line in jsonl.stdout.splitlines()]
    assert text.exit_code == jsonl.exit_code == 0, text.stderr
    expected = [json.loads(line)["loc"] for line in jsonl.stdout.splitlines()]
    assert len(expected) == 3001
    assert text.stdout.splitlines() == expected
    assert cut.stdout.splitlines() == expected[:1234]
    assert "3,001" in found.stdout or "3001" in found.stdout, found.stdout[:2000]


def test_raw_iris_come_in_runs_escaped() -> None:
    blocks = [f"<url><loc>https://shop.example.com/gr\u00fcn/{i}?q=\u00e4&amp;n={i}</loc>"
              f"<lastmod>2025-01-02</lastmod></url>\n" for i in range(2000)]
    data = _doc(blocks)
    for cuts in ([], list(range(3001, len(data), 3001))):
        assert _same(data, cuts) >= 1
    parser = SitemapParser("doc", loc_runs=True)
    events = parser.feed(data) + parser.close()
    assert all(isinstance(ev, LocRun) for ev in events)
    first = events[0]
    assert isinstance(first, LocRun)
    assert first.locs[0] == "https://shop.example.com/gr%C3%BCn/0?q=%C3%A4&n=0"
