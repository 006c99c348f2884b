"""Feeding a document whole, byte by byte, or in random chunks gives identical events (the h11 test pattern)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import Problem, SitemapParser
from sitemapkit.read import Event
from tests.support.corpus import CORPUS, corpus_params, needs_corpus
from tests.support.pieces import feed_in_pieces

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
    return feed_in_pieces(SitemapParser("doc", positions=positions), data, cuts, [])


@pytest.mark.parametrize("path", corpus_params(DOCS, ids=lambda p: p.name))
def test_byte_by_byte_equals_whole(path: Path) -> None:
    data = path.read_bytes()
    whole = _run(data, [])
    assert whole  # every document yields something: entries or problems
    assert _run(data, list(range(1, len(data)))) == whole


@needs_corpus
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.sampled_from(DOCS), data=st.data())
def test_random_chunks_equal_whole(doc: Path, data: st.DataObject) -> None:
    raw = doc.read_bytes()
    if data.draw(st.booleans(), label="gzip it"):
        raw = gzip.compress(raw)
    cuts = data.draw(st.lists(st.integers(min_value=1, max_value=max(1, len(raw) - 1)), max_size=40), label="cuts")
    assert _run(raw, cuts) == _run(raw, [])


@needs_corpus
def test_gzip_in_gzip_byte_by_byte() -> None:
    raw = (EDGE / "17_sitemapindex.xml").read_bytes()
    data = gzip.compress(gzip.compress(raw))
    plain = _run(raw, [])
    assert _run(data, list(range(1, len(data)))) == plain
    assert len(plain) == 2


# --- inputs that broke the promise (found by benchmarks/fuzz_reader.py, minimised by hand to 10-600 bytes) -----

def _bad_crc(data: bytes) -> bytes:
    packed = bytearray(gzip.compress(data, mtime=0))
    packed[-8] ^= 0xFF  # the CRC-32 in the trailer no longer matches
    return bytes(packed)


NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_TEXT = b"https://example.com/a\nhttps://example.com/b\nhttps://example.com/c\n"
_LATIN1 = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n'
           f'<urlset xmlns="{NS}"><url><loc>https://example.com/caf\xe9</loc></url></urlset>').encode("latin-1")
_UTF16 = (f'\ufeff<?xml version="1.0" encoding="UTF-16"?>\n<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url>'
          "<!-- c --><url><loc>https://e.com/b</loc></urll>\n<url><loc>https://e.com/c</loc></url>\n"
          "<url><loc>https://e.com/d</loc></url>\n<url><loc>https://e.com/").encode("utf-16-le")

CHUNKING_CASES = {
    # text: a CRLF cut between its CR and LF swallowed the next bare LF too (line numbers shifted).
    "text-crlf-then-lf": b"User-agent: *\r\n\nhttps://example.com/a\r\n\r\nhttps://example.com/b\n",
    # gzip: a corrupt stream lost the output of the inflate step that failed, and steps followed the chunks
    # (entries and SM110/SM108 vs SM113 alone).
    "gzip-bad-crc": _bad_crc(_TEXT),
    "gzip-bad-crc-latin1": _bad_crc(_LATIN1),
    # gzip: a member ending exactly at a chunk end hid the garbage after it (SM126 vs nothing).
    "gzip-trailing-garbage": gzip.compress(_TEXT, mtime=0) + b"garbage",
    # fast lane: its prolog pattern let a PI run past its "?>", so the lane started only when the whole head had
    # arrived (entries vs SM104 at once).
    "prolog-pi-holding-urlset": b'<?l?><urlset"""?><urlset m="">\n<url><loc>https://example.com/a</loc></url>\n'
                                b'<url><loc>https://example.com/b</loc></url>\n</url',
    # fast lane: an xmlns that is not a URI (lxml goes on, then fails the document; SM116 + entry vs SM114).
    "xmlns-not-a-uri": b'<urlset xmlns="http://www.sitemaps.>org/schemas/sitemap/0.9">\n\t<url>  \r\n'
                       b"<loc>  https://e.co https://e.com/x\n</loc>\r\n<priority>1.0</priority>\r\n</url>\n"
                       b"\t</urlset>  ",
    # libxml2 stops at an undefined entity without failing the feed (SM129 + SM105/SM106 vs SM104).
    "undefined-entity": (f'<urlset xmlns="{NS}"><url><loc>https://e.com/a?b=1&c</loc></url>\n'
                         "<url><loc>https://e.com/a&lx;b</loc></url>\n<url><loc>https://e.com/c</loc></url>\n"
                         "<url><loc>https://e.com/d</loc></url>\n<url><loc>https://e.com/e</loc></url>\n</urlset>"
                         ).encode(),
    # UTF-16: an XML error before undecodable bytes (SM111 vs SM104, depending on which chunk held them).
    "utf16-error-before-bad-surrogate": _UTF16 + b"\x00\xdc" + "</urlset>".encode("utf-16-le"),
    # UTF-8: libxml2 reports bad bytes in text or a later error, depending on where its buffer ended.
    "utf8-bad-bytes-in-text": (b'<?xml version="1.8"?>\n<urlset xmlns="http://www.sit/sitemap/0.9">\n  '
                               + b"a" * 124 + b"X\x81\xd8\xefE\xf9" + b"a" * 180 + b"\x0c" + b"a" * 84),
    # NUL: libxml2's look-ahead for "?>", "-->" stops at a NUL (SM129 + SM104 vs SM104 alone).
    "nul-in-xml-declaration": b'<?xml ve\x00rsion="1.0"?>\n<rss><channel><item><link>https://e.com/a&b</link></item>\n'
                              b"<item><link>https://e.com/c</link></item>\n<item><link>https://e.com/d</link></item>\n"
                              b"</channel></rss>",
    "nul-in-comment": b"<urlset><!-- \x00 --><url><loc>https://e.com/a&b</loc></url>\n<url><loc>https://e.com/c</loc>"
                      b"</url>\n<url><loc>https://e.com/d</loc></url>\n</urlset>",
    # Items nested in an unclosed <loc> were freed per feed, so the outer item's loc text lost some of them.
    "index-items-nested-in-a-loc": (f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://e.com/a\n'
                                    + "".join(f"<sitemap><loc>https://e.com/n{i}</loc></sitemap>\n" for i in range(6))
                                    + "</loc></sitemap></sitemapindex>").encode(),
    # DOCTYPE: the quoted declaration ran on into whatever text had arrived.
    "doctype-quoted": b'<!DOCTYPE urlset <loc>https://example.com/x</loc>[<!ENTITY a "b">]>\n<urlset/>',
    # A character cut short at the end was reported before lxml had the bytes held back for look-ahead, and the
    # fast lane took a ">" in an attribute value for the end of the root tag (SM111 + SM104 vs SM104).
    "bad-utf8-at-the-end-after-an-error": b'<?l?><urlset n="" s=">"><url><>on/your-marketing-company-has-created-'
                                          b"an-enticing-ad-that-receives-man25-11-27T0\xec",
    # Undecodable bytes were reported before lxml had read all the bytes before them (SM111 vs SM104).
    "bad-utf8-after-a-control-char": (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns=".9"  xo="">\n   s a **SMAS facelift**, a cutting-edge'
        b" procedure that tightens facial muscles, defines the jawline, and restores a youthful appearance. This "
        b"treatment also includes a **neck latest advancements in cosmetic procedures, this video is a must-watch. "
        b"Join us to see how Azurite helps clients achieve na\x06^n\x15tural, yescription>\n      "
        b"<video:content_loc>https://video.squarespace-cdn.co\x98"),
    # UTF-16 text shifted by one byte, a NUL among the last bytes: libxml2 found it while reading them or only when
    # closed (SM104 vs SM105 "document ends early").
    "utf16-shifted-with-a-nul-at-the-end": (
        '\ufeff<urlset s=""><url><loc></loc><changefreq></changefreq><priority></priority><loc></loc><lastmod>'
        "</lastmod><image:image><image:caption></image:caption></image:image></url>").encode("utf-16-le") + (
        b"\x00" + (">\nps://exa&#109;ple.com/ent</loc>\r\n<lastmod>2024-05-01T10:00:00+02:00</lastmod>\r\n"
                   '<mobile:mobile/>\r\n<\u7400\x00h="p/epcorrenfrealn"/<gea<i').encode("utf-16-le"))[:-1],
    # libxml2 logs "Comment not terminated" after the real error, placed where its buffer ended (column 20 vs 1).
    "comment-double-hyphen": b'<urlset s="" l=""><!----->  </c>https://example.comdly>maybe</video:family_friendly>'
                             b"</video:video>\n</url>\n<",
}


@pytest.mark.parametrize("data", list(CHUNKING_CASES.values()), ids=list(CHUNKING_CASES))
def test_found_inputs_give_the_same_events_for_any_chunking(data: bytes) -> None:
    assert 10 <= len(data) <= 600
    whole = _run(data, [])
    assert whole
    assert _run(data, list(range(1, len(data)))) == whole
    for cut in range(1, len(data)):
        assert _run(data, [cut]) == whole, cut
    for step in (2, 3, 7, 64):
        assert _run(data, list(range(step, len(data), step))) == whole, step


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(CHUNKING_CASES)), data=st.data())
def test_found_inputs_random_chunks_equal_whole(name: str, data: st.DataObject) -> None:
    raw = CHUNKING_CASES[name]
    cuts = data.draw(st.lists(st.integers(min_value=1, max_value=len(raw) - 1), max_size=12), label="cuts")
    assert _run(raw, cuts) == _run(raw, [])


def _problems(data: bytes) -> list[tuple[str, int | None, str]]:
    return [(e.code, e.location.line, e.message) for e in _run(data, []) if isinstance(e, Problem)]


def test_undefined_entity_is_the_error_where_it_is() -> None:
    problems = _problems(CHUNKING_CASES["undefined-entity"])
    assert [(code, line) for code, line, _ in problems] == [("SM104", 2)]
    assert "Entity 'lx' not defined" in problems[0][2]


def test_nul_is_named_as_such() -> None:
    for name in ("nul-in-comment", "nul-in-xml-declaration"):
        problems = _problems(CHUNKING_CASES[name])
        assert [code for code, _, _ in problems][-1] == "SM104"
    (_code, line, message), = [p for p in _problems(CHUNKING_CASES["nul-in-comment"]) if p[0] == "SM104"]
    assert line == 1
    assert "value 0" in message


def test_bad_utf8_stops_reading_at_the_bad_bytes() -> None:
    problems = _problems(CHUNKING_CASES["utf8-bad-bytes-in-text"])
    assert [code for code, _, _ in problems] == ["SM108", "SM111"]  # the namespace, then the bytes
    assert "not valid UTF-8" in problems[1][2]


def test_bytes_cut_short_after_an_error_leave_that_error_alone() -> None:
    problems = _problems(CHUNKING_CASES["bad-utf8-at-the-end-after-an-error"])
    assert [(code, line) for code, line, _ in problems] == [("SM108", 1), ("SM104", 1)]
    assert "invalid element name" in problems[-1][2]
    problems = _problems(CHUNKING_CASES["bad-utf8-after-a-control-char"])
    assert [(code, line) for code, line, _ in problems][-1] == ("SM104", 3)
    assert "Char value 6" in problems[-1][2]


def test_comment_error_is_the_first_one_libxml2_logs() -> None:
    problems = _problems(CHUNKING_CASES["comment-double-hyphen"])
    assert [(code, line) for code, line, _ in problems][-1] == ("SM104", 1)
    assert "Double hyphen within comment" in problems[-1][2]


def test_a_document_cut_inside_a_character_still_says_so() -> None:
    # The end-of-bytes problems wait for lxml's verdict, and a truncation keeps them (before it, as before).
    doc = f'<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url><url><loc>https://e.com/\u00e9'.encode()
    problems = _problems(doc[:-1])
    assert [code for code, _, _ in problems] == ["SM111", "SM105"]
    complete = f'<urlset xmlns="{NS}"><url><loc>https://e.com/a?b&c</loc></url></urlset>\n\u00e9'.encode()[:-1]
    assert [code for code, _, _ in _problems(complete)] == ["SM111", "SM129"]


def test_a_bad_character_in_the_last_bytes_is_not_a_truncation() -> None:
    # libxml2 finds it while reading the last bytes or only when closed (then it looked like "ends early",
    # SM105): a character XML does not allow is SM104 wherever it is found.
    for enc in ("utf-8", "utf-16"):
        doc = f'<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url>text\x00'.encode(enc)
        problems = _problems(doc)
        assert problems[-1][0] == "SM104", enc
        assert "Char value 0" in problems[-1][2]
