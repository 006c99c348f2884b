"""Hostile input: DTDs refused (billion laughs, XXE), decompression bombs stopped, bounded memory and time."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib

import pytest

from sitemapkit import LimitExceededError, ParseError, SitemapParser, UrlEntry, parse_bytes, read_file
from sitemapkit.read._sniff import SITEMAP_NS, DocumentKind, EncodingInfo, KindInfo
from sitemapkit.read._xml import XmlEngine
from tests.support.corpus import CORPUS, needs_corpus

EDGE = CORPUS / "edge-cases"
SECRET_FILE = CORPUS / "peer-fixtures" / "crawler-commons" / "sitemaps" / "do-not-visit.txt"
BOMB = CORPUS / "peer-fixtures" / "scrapy" / "bomb-gzip.bin"


def _xxe_doc() -> bytes:
    return (f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file://{SECRET_FILE}">]>\n'
            f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/&xxe;</loc></url>'
            "<url><loc>https://example.com/b</loc></url></urlset>").encode()


def _secret() -> str:
    return SECRET_FILE.read_text(encoding="utf-8").strip()


@needs_corpus
def test_xxe_refused_and_file_never_read() -> None:
    result = parse_bytes(_xxe_doc(), "xxe.xml")
    assert result.entries == ()
    assert [p.code for p in result.problems] == ["SM103"]
    everything = repr(result)
    assert _secret() not in everything
    assert "do-not-visit" not in everything.replace(str(SECRET_FILE), "")
    with pytest.raises(ParseError):
        parse_bytes(_xxe_doc(), strict=True)


@needs_corpus
def test_xxe_second_layer_engine_never_resolves_entities() -> None:
    # Even if a DOCTYPE reached the XML engine (the reader refuses it before), lxml is configured never to load
    # the DTD or resolve an entity: the file's content cannot appear.
    owner = SitemapParser("engine")
    info = KindInfo(DocumentKind.URLSET, root="urlset", namespace=SITEMAP_NS)
    engine = XmlEngine(owner, info, EncodingInfo("utf-8", 0, "default"))
    engine.feed(_xxe_doc())
    engine.close()
    events = owner._take()  # engine-level test: read what the engine emitted
    assert _secret() not in repr(events)
    locs = [e.loc for e in events if isinstance(e, UrlEntry)]
    assert "https://example.com/b" in locs


@needs_corpus
def test_edge_xxe_case_reads_nothing() -> None:
    result = read_file(EDGE / "15_xxe_external_entity.xml")
    assert result.entries == ()
    assert result.errors


@needs_corpus
@pytest.mark.parametrize("name", ["31_billion_laughs.xml", "16_entity_expansion_small.xml"])
def test_billion_laughs_refused_in_bounded_time_and_memory(name: str) -> None:
    data = (EDGE / name).read_bytes()
    tracemalloc.start()
    start = time.perf_counter()
    try:
        result = parse_bytes(data)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.entries == ()
    assert [p.code for p in result.problems] == ["SM103"]
    assert elapsed < 2.0
    assert peak < 5_000_000


@needs_corpus
def test_gzip_bomb_with_10mb_budget() -> None:
    data = BOMB.read_bytes()
    tracemalloc.start()
    try:
        parser = SitemapParser("bomb", max_decompressed_bytes=10_000_000)
        events = []
        for i in range(0, len(data), 4096):
            events.extend(parser.feed(data[i:i + 4096]))
        events.extend(parser.close())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    codes = [getattr(e, "code", None) for e in events]
    assert "SM112" in codes
    assert peak < 8_000_000  # the inflated text never exists in memory at once
    # strict mode: the bomb's first line is not a URL, so strict mode stops there, before any budget matters
    with pytest.raises(ParseError):
        parse_bytes(data, "bomb", strict=True, max_decompressed_bytes=10_000_000)


def test_bomb_of_valid_urls_strict_raises_limit_exceeded() -> None:
    data = gzip.compress(b"https://example.com/a\n" * 100_000)  # 2.2 MB of one URL, ~7 KB compressed
    with pytest.raises(LimitExceededError) as info:
        parse_bytes(data, "urls.txt.gz", strict=True, max_decompressed_bytes=200_000)
    assert info.value.limit == 200_000
    assert "urls.txt.gz" in str(info.value)


def _zero_bomb(megabytes: int) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    parts = [comp.compress(block) for _ in range(megabytes)]
    parts.append(comp.flush())
    return b"".join(parts)


def test_big_bomb_bounded_memory_and_time() -> None:
    data = _zero_bomb(48)  # 48 MiB of zeros in ~48 KB
    tracemalloc.start()
    start = time.perf_counter()
    try:
        result = parse_bytes(data, "zeros", max_decompressed_bytes=32 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.errors
    assert peak < 20_000_000
    assert time.perf_counter() - start < 30


def test_nested_bomb_counts_every_layer() -> None:
    data = gzip.compress(_zero_bomb(30))
    result = parse_bytes(data, "nested", max_decompressed_bytes=5_000_000)
    assert "SM112" in {p.code for p in result.problems}


def test_plain_input_is_budgeted_too() -> None:
    doc = (f'<urlset xmlns="{SITEMAP_NS}">' + "<url><loc>https://example.com/x</loc></url>" * 1000).encode()
    result = parse_bytes(doc, max_decompressed_bytes=10_000)
    assert "SM112" in {p.code for p in result.problems}
    assert 0 < len(result.entries) < 1000


def test_deep_nesting_is_bounded() -> None:
    doc = f'<urlset xmlns="{SITEMAP_NS}">'.encode() + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</urlset>"
    start = time.perf_counter()
    result = parse_bytes(doc)
    assert time.perf_counter() - start < 5
    assert result.errors  # libxml2's depth limit
