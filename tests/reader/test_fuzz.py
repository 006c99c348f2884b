"""Whatever the bytes, lenient reading never raises and strict reading raises only ParseError/LimitExceededError."""

from __future__ import annotations

import gzip

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import LimitExceededError, ParseError, Problem, SitemapParser, parse_bytes
from tests.reader.conftest import CORPUS

SEEDS = [p.read_bytes() for p in sorted((CORPUS / "edge-cases").glob("*")) if p.name != "EXPECTED.tsv"]
SEEDS += [(CORPUS / "peer-fixtures" / "crawler-commons" / "sitemaps" / "extension" / name).read_bytes()
          for name in ("sitemap-videos.xml", "sitemap-news.xml", "sitemap-images.xml", "sitemap-links.xml")]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "dup"]))
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "cut":
            del data[pos:pos + draw(st.integers(1, 40))]
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from([b"<", b"&", b"]]>", b"<![CDATA[", b"<!--", b"\x00", b"\xff\xfe",
                                                  b"<url>", b"</url>", b"<!DOCTYPE x>", b"&amp;", b"\r\n",
                                                  b"<loc>https://example.com/x</loc>", b"\xef\xbb\xbf"]))
        else:
            chunk = bytes(data[pos:pos + draw(st.integers(1, 60))])
            data[pos:pos] = chunk
    if draw(st.booleans()):
        return gzip.compress(bytes(data))
    return bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.lists(st.integers(1, 4000), max_size=8))
def test_mutations_never_crash(data: bytes, cuts: list[int]) -> None:
    parser = SitemapParser("fuzz", positions=True)
    events = []
    start = 0
    for cut in sorted(set(cuts)):
        if start < cut < len(data):
            events += parser.feed(data[start:cut])
            start = cut
    events += parser.feed(data[start:])
    events += parser.close()
    for e in events:
        if isinstance(e, Problem):
            assert e.message
            assert e.location.source == "fuzz"
    try:
        parse_bytes(data, strict=True)
    except (ParseError, LimitExceededError):
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    result = parse_bytes(data)
    assert result.kind is not None
