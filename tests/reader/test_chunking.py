"""Feeding a document whole, byte by byte, or in random chunks gives identical events (the h11 test pattern)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import Event, SitemapParser
from tests.reader.conftest import CORPUS

EDGE = CORPUS / "edge-cases"
PEER = CORPUS / "peer-fixtures"

DOCS = [
    *sorted(p for p in EDGE.glob("*") if p.name != "EXPECTED.tsv"),
    PEER / "crawler-commons" / "sitemaps" / "extension" / "sitemap-videos.xml",
    PEER / "crawler-commons" / "sitemaps" / "extension" / "sitemap-news.xml",
    PEER / "crawler-commons" / "sitemaps" / "extension" / "sitemap-links.xml",
    PEER / "crawler-commons" / "sitemaps" / "xmlSitemap.gz",
    PEER / "crawler-commons" / "sitemaps" / "sitemap.txt.gz",
    PEER / "crawler-commons" / "rss" / "xmlRss_pubDate.xml",
    PEER / "usp" / "atom0.3.xml",
]


def _run(data: bytes, cuts: list[int], *, positions: bool = True) -> list[Event]:
    parser = SitemapParser("doc", positions=positions)
    events: list[Event] = []
    start = 0
    for cut in sorted(set(cuts)):
        if 0 < cut < len(data):
            events.extend(parser.feed(data[start:cut]))
            start = cut
    events.extend(parser.feed(data[start:]))
    events.extend(parser.close())
    return events


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_byte_by_byte_equals_whole(path: Path) -> None:
    data = path.read_bytes()
    whole = _run(data, [])
    assert whole  # every document yields something: entries or problems
    assert _run(data, list(range(1, len(data)))) == whole


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.sampled_from(DOCS), data=st.data())
def test_random_chunks_equal_whole(doc: Path, data: st.DataObject) -> None:
    raw = doc.read_bytes()
    if data.draw(st.booleans(), label="gzip it"):
        raw = gzip.compress(raw)
    cuts = data.draw(st.lists(st.integers(min_value=1, max_value=max(1, len(raw) - 1)), max_size=40), label="cuts")
    assert _run(raw, cuts) == _run(raw, [])


def test_gzip_in_gzip_byte_by_byte() -> None:
    raw = (EDGE / "17_sitemapindex.xml").read_bytes()
    data = gzip.compress(gzip.compress(raw))
    plain = _run(raw, [])
    assert _run(data, list(range(1, len(data)))) == plain
    assert len(plain) == 2
