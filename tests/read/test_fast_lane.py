"""The fast lane for canonical <url> blocks (_read_fast) reads exactly what the lxml element path reads.

Every document is read twice, with the lane on and off, and the complete event lists (entries, problems with their
messages, lines and columns, Located wrappers) must be equal, in lenient and strict mode, whole and in chunks.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import ParseError, Problem, SitemapParser, UrlEntry
from sitemapkit.read import Event, LocRun
from sitemapkit.read import _lane as _read_fast
from sitemapkit.read._xml import XmlEngine
from tests.support.corpus import CORPUS, corpus_params
from tests.support.pieces import feed_in_pieces

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _read(data: bytes, cuts: list[int], *, fast: bool, strict: bool = False, positions: bool = False,
          loc_runs: bool = False) -> tuple[list[Event], str | None]:
    saved = _read_fast.ENABLED
    _read_fast.ENABLED = fast
    try:
        parser = SitemapParser("doc", strict=strict, positions=positions, loc_runs=loc_runs)
        events: list[Event] = []
        error = None
        try:
            feed_in_pieces(parser, data, cuts, events)
        except ParseError as exc:
            events.extend(exc.events)  # type: ignore[arg-type]
            error = repr(exc.problem)
        return [e for ev in events for e in (ev.entries() if isinstance(ev, LocRun) else (ev,))], error
    finally:
        _read_fast.ENABLED = saved


def _same_both_ways(data: bytes, cuts: list[int] | None = None) -> list[Event]:
    cuts = cuts or []
    whole = None
    for strict in (False, True):
        for positions in (False, True):
            slow = _read(data, cuts, fast=False, strict=strict, positions=positions)
            fast = _read(data, cuts, fast=True, strict=strict, positions=positions)
            assert fast == slow, (strict, positions)
            if not positions:  # runs of plain blocks read in bulk (LocRun) hold the same entries
                bulk = _read(data, cuts, fast=True, strict=strict, loc_runs=True)
                assert bulk == slow, (strict, "loc_runs")
            if not strict and not positions:
                whole = fast[0]
    assert whole is not None
    return whole


def _corpus() -> Iterator[Path]:
    for sub in ("edge-cases", "real-world", "peer-fixtures"):
        for p in sorted((CORPUS / sub).rglob("*")):
            if p.is_file() and p.suffix not in (".tsv", ".md"):
                yield p


CORPUS_FILES = list(_corpus())


@pytest.mark.parametrize("path", corpus_params(CORPUS_FILES, ids=lambda p: str(p.relative_to(CORPUS))))
def test_corpus_reads_the_same_both_ways(path: Path) -> None:
    _same_both_ways(path.read_bytes())


def _count_element_path(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    orig = XmlEngine._url

    def counting(self: XmlEngine, el: object) -> None:
        calls[0] += 1
        orig(self, el)

    monkeypatch.setattr(XmlEngine, "_url", counting)
    return calls


def test_canonical_document_never_builds_url_elements(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_element_path(monkeypatch)
    body = "".join(f"<url><loc>https://example.com/{i}</loc><lastmod>2024-01-0{i % 9 + 1}</lastmod>"
                   f"<changefreq>daily</changefreq><priority>0.{i % 10}</priority></url>\n" for i in range(500))
    data = (f'<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="/s.xsl"?>\n'
            f'<!-- generated -->\n<urlset xmlns="{NS}">\n{body}</urlset>\n').encode()
    events = _same_both_ways(data)
    assert len(events) == 500
    assert all(type(e) is UrlEntry for e in events)
    calls[0] = 0
    assert len(_read(data, [], fast=True)[0]) == 500
    assert calls[0] == 0  # all 500 read by the fast lane
    assert len(_read(data, [], fast=False)[0]) == 500
    assert calls[0] == 500


def test_lane_hands_over_at_the_first_extension_block(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_element_path(monkeypatch)
    plain = "".join(f"<url><loc>https://example.com/{i}</loc></url>\n" for i in range(10))
    ext = ('<url><loc>https://example.com/img</loc><image:image><image:loc>https://example.com/i.png</image:loc>'
           '<image:caption>A caption</image:caption></image:image></url>\n')
    data = (f'<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
            f'{plain}{ext}{plain.replace(".com/", ".com/b/")}</urlset>').encode()
    events = _same_both_ways(data)
    assert len(events) == 21
    calls[0] = 0
    _read(data, [], fast=True)
    assert calls[0] == 11  # the captioned image's URL and everything after it went through lxml


def test_plain_images_and_hreflang_links_stay_in_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_element_path(monkeypatch)
    rows = "".join(
        f'<url>\n <loc>https://example.com/{i}</loc>\n <lastmod>2024-01-01</lastmod>\n'
        f' <img:image><img:loc>https://cdn.example.com/{i}.jpg</img:loc></img:image>\n'
        f' <img:image>\n  <img:loc> https://cdn.example.com/{i}-b.jpg </img:loc>\n </img:image>\n'
        f' <x:link rel="alternate" hreflang="en" href="https://example.com/{i}"/>\n'
        f' <x:link hreflang="de" href="https://example.com/de/{i}" rel="alternate" />\n'
        f'</url>\n' for i in range(50))
    data = (f'<urlset xmlns="{NS}" xmlns:img="http://www.google.com/schemas/sitemap-image/1.1"\n'
            f'        xmlns:x="http://www.w3.org/1999/xhtml">\n{rows}</urlset>\n').encode()
    events = _same_both_ways(data)
    entries = [e for e in events if type(e) is UrlEntry]
    assert len(entries) == 50
    assert [i.loc for i in entries[7].images] == ["https://cdn.example.com/7.jpg", "https://cdn.example.com/7-b.jpg"]
    assert [(a.hreflang, a.href) for a in entries[7].alternates] == [
        ("en", "https://example.com/7"), ("de", "https://example.com/de/7")]
    calls[0] = 0
    _read(data, [], fast=True)
    assert calls[0] == 0


def test_references_non_ascii_and_comments_stay_in_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    # Real-world shapes (issue 13): query strings written with &amp;, &apos; in paths, a character reference in a
    # lastmod, raw UTF-8 IRIs, comments between blocks, hreflang links whose href has a query string.
    calls = _count_element_path(monkeypatch)
    rows = "".join(
        f"<!-- page {i} -->\n<url><loc>https://example.com/item-{i}?ref=list&amp;page={i % 7}</loc>"
        f"<lastmod>2020-08-04T10:23:39&#43;08:00</lastmod></url>\n"
        f"<url><loc>https://example.com/d&apos;oh/{i}</loc></url>\n"
        f"<url><loc>https://example.com/grüße/{i}</loc>"
        f'<x:link rel="alternate" hreflang="de" href="https://example.com/de?id={i}&amp;l=de"/></url>\n'
        for i in range(30))
    data = (f'<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n<urlset xmlns="{NS}" '
            f'xmlns:x="http://www.w3.org/1999/xhtml">\n<!-- generator -->\n{rows}</urlset>\n').encode()
    events = _same_both_ways(data)
    entries = [e for e in events if type(e) is UrlEntry]
    assert len(entries) == 90
    assert entries[0].loc == "https://example.com/item-0?ref=list&page=0"
    assert str(entries[0].lastmod) == "2020-08-04T10:23:39+08:00"
    assert entries[1].loc == "https://example.com/d'oh/0"
    assert entries[2].loc == "https://example.com/gr%C3%BC%C3%9Fe/0"
    assert entries[2].alternates[0].href == "https://example.com/de?id=0&l=de"
    calls[0] = 0
    _read(data, [], fast=True)
    assert calls[0] == 0


@pytest.mark.parametrize("value", ["&#0;", "&#xFFFE;", "&#x110000;", "\ufffe", "&nbsp;", "&#123456789;"])
def test_values_xml_forbids_are_left_to_lxml(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_element_path(monkeypatch)
    rows = "".join(f"<url><loc>https://example.com/{i}</loc></url>\n" for i in range(5))
    data = (f'<urlset xmlns="{NS}">\n{rows}<url><loc>https://example.com/x{value}</loc></url>\n{rows}'
            "</urlset>\n").encode()
    events = _same_both_ways(data)
    assert any(isinstance(e, Problem) and e.severity.name == "ERROR" for e in events)
    calls[0] = 0
    _read(data, [], fast=True)
    assert calls[0] == 0  # lxml stopped at the bad value, on which the lane had handed over
    assert len([e for e in _read(data, [], fast=True)[0] if type(e) is UrlEntry]) == 5


@pytest.mark.parametrize("fast", [True, False])
def test_raw_iris_read_as_the_model_normalises_them(fast: bool) -> None:
    # The reader builds a raw IRI's entry from its UTF-8 escapes directly (core._urls.simple_iri_to_uri); it must
    # be the entry UrlEntry(text) gives, and the problems must name the loc as written.
    locs = ["https://example.com/grüße?q=é&amp;x=1#ß", "https://example.com/😀", "https://例え.jp/x",
            "https://example.com/ü?", "https://example.com/ü?#f", "  https://example.com/\u00a0ü\u2028 ",
            "https://example.com/ü/" + "é" * 700, "https://example.com/a b/ü", "https://example.com/%zz/ü"]
    rows = "".join(f"<url><loc>{loc}</loc><lastmod>bad-{i}</lastmod></url>\n" for i, loc in enumerate(locs))
    data = f'<urlset xmlns="{NS}">\n{rows}</urlset>\n'.encode()
    events, _ = _read(data, [], fast=fast)
    entries = [e for e in events if type(e) is UrlEntry]
    expected = []
    for loc in locs:
        try:
            expected.append(UrlEntry(loc.replace("&amp;", "&").strip()).loc)
        except Exception:
            continue
    assert [e.loc for e in entries] == expected
    assert len(entries) == len(locs) - 1  # the 700 "é" one is too long once encoded
    bad = [e for e in events if isinstance(e, Problem) and e.code == "SM118"]
    assert bad[0].location.loc == "https://example.com/grüße?q=é&x=1#ß"  # type: ignore[union-attr]


def test_columns_after_non_ascii_blocks_on_one_line() -> None:
    # libxml2 counts columns in characters: the hand-over shift must too.
    blocks = "".join(f"<url><loc>https://example.com/ü€{i}</loc></url>" for i in range(20))
    data = f'<urlset xmlns="{NS}">{blocks}<url><loc>x</loc><bad></url></urlset>'.encode()
    problem = _same_both_ways(data)[-1]
    assert getattr(problem, "code", None) == "SM104"
    assert problem.location.column == len(f'<urlset xmlns="{NS}">{blocks}<url><loc>x</loc><bad></url>') + 1  # type: ignore[union-attr]


def test_error_after_the_lane_keeps_lines_columns_and_message_lines() -> None:
    blocks = "".join(f"<url>\n  <loc>https://example.com/{i}</loc>\n</url>\n" for i in range(40))
    data = f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">\n{blocks}<url><loc>x</loc><bad></url>\n</urlset>\n'
    events = _same_both_ways(data.encode())
    problem = events[-1]
    assert getattr(problem, "code", None) == "SM104"
    assert problem.location.line == 123  # type: ignore[union-attr]
    assert "line 123" in problem.message  # type: ignore[union-attr]
    # the same on one line (the column shift instead of the line offset)
    one_line = data.replace("\n", "")
    assert _same_both_ways(one_line.encode())[-1].location.column == 1940  # type: ignore[union-attr]


# --- generated documents ------------------------------------------------------------------------------------

LOCS = ["https://example.com/a", "https://example.com/a", "http://example.com/b?x=1", " https://example.com/ws ",
        "\n    https://example.com/nl\n  ", "https://example.com/with space", "/relative", "", "None",
        "https://example.com/" + "x" * 2100, "https://exämple.com/ü", "https://example.com/a&amp;b",
        "https://example.com/%zz", "ftp://example.com/f", "https://example.com/gt>", "https://example.com/[x]",
        "https://example.com/\tt", "https://example.com/a%20b", "HTTPS://EXAMPLE.COM/Up",
        # issue 13: references and raw non-ASCII, valid and not
        "https://example.com/p?a=1&amp;b=2&amp;c=3", "https://example.com/d&apos;oh", "https://example.com/&quot;q&quot;",
        "https://example.com/&lt;x&gt;", "https://example.com/&#233;t&#xE9;", "https://example.com/&#x1F600;",
        "https://example.com/&#65;&#x0042;&#0000067;", "https://example.com/&#10;nl", "https://example.com/&#13;cr",
        "https://example.com/&#9;tab", "https://example.com/&#0;", "https://example.com/&#xFFFE;",
        "https://example.com/&#x110000;", "https://example.com/&#xD800;", "https://example.com/&#123456789;",
        "https://example.com/&nbsp;", "https://example.com/&amp", "https://example.com/&AMP;",
        "https://example.com/über/straße", "https://例え.jp/パス?q=値&amp;r=1", "https://example.com/\u0085c1",
        "https://example.com/\ufffe", "https://example.com/\U0001F600", "https://example.com/ü" + "x" * 2100,
        "https://example.com/a&amp;amp;b", "https://example.com/%C3%BC"]
LASTMODS = ["2024-01-01", "2024-02-30", "2024-01-31T10:00:00Z", "2024-01-28T23:59:59.5+13:00",
            "2021-06-15T12:00:00", "yesterday", "", " 2024-05-01 ", "2024-05-01 10:00:00", "2024-13-01",
            "Tue, 10 Jun 2003 04:00:00 GMT", "2024-05-01T10:00+05:00", "2024", "2020-08-04T10:23:39&#43;08:00",
            "2024-05-0&#49;", "2024-05-01&#x20;", "２０２４-01-01"]
CHANGEFREQS = ["daily", "DAILY", " weekly ", "sometimes", "", "never", "always", "d&#97;ily", "dailyé"]
PRIORITIES = ["0.5", "1.0", "1.5", "-0", "abc", "", " 0.3 ", "NaN", "0.80", "0&#46;5", "٠.5"]
ODD_BLOCKS = [
    "<url><loc>https://example.com/c</loc><!-- note --></url>",
    "<url><loc><![CDATA[https://example.com/cdata]]></loc></url>",
    "<url><priority>0.4</priority><loc>https://example.com/order</loc></url>",
    '<url id="x"><loc>https://example.com/attr</loc></url>',
    "<url><loc/></url>",
    "<url><lastmod>2024-01-01</lastmod></url>",
    "<url><loc>https://example.com/one</loc><loc>https://example.com/two</loc></url>",
    "<url><loc>https://example.com/u</loc><unknown>z</unknown></url>",
    "<url><loc>https://example.com/amp&b</loc></url>",
    "<url ><loc>https://example.com/sp</loc></url >",
    "<url>\r\n<loc>https://example.com/crlf</loc>\r\n</url>",
    "<url><loc>https://example.com/&#233;</loc></url>",
    "<url><loc>https://example.com/ctl\x01</loc></url>",
    "<url><loc>https://example.com/cr\rx</loc></url>",
    "<x><url><loc>https://example.com/nested</loc></url></x>",
    "text between",
    "<?pi inside?>",
    "<url><loc>https://example.com/bad</lo></url>",
    "<!-- generated by a plugin -->", "<!-- a - b -->", "<!-- a -- b -->", "<!-- ends badly --->", "<!---->",
    "<!-- é -->", "<!-- unclosed", "<!-- <url><loc>https://example.com/in-comment</loc></url> -->",
    "<url><loc>https://example.com/c1</loc><!-- inside --></url>",
    "<url><loc>https://example.com/i</loc><image:image><image:loc>https://example.com/i.png</image:loc>"
    "</image:image><xhtml:link rel=\"alternate\" hreflang=\"en\" href=\"https://example.com/i\"/></url>",
    "<url><loc>https://example.com/i2</loc><xhtml:link href=\"https://example.com/i2\" hreflang=\"fr\" "
    "rel=\"alternate\"/><image:image><image:loc>https://example.com/j.png</image:loc></image:image></url>",
]
EXT_ITEMS = [
    "<image:image><image:loc>https://example.com/a.png</image:loc></image:image>",
    "<image:image>\n  <image:loc>\n https://example.com/b.png\n </image:loc>\n</image:image>",
    "<image:image><image:loc></image:loc></image:image>",
    "<image:image><image:loc>   </image:loc></image:image>",
    "<image:image><image:loc>/relative.png</image:loc></image:image>",
    "<image:image><image:loc>https://example.com/with space.png</image:loc></image:image>",
    "<image:image><image:loc>https://example.com/c.png</image:loc><image:title>T</image:title></image:image>",
    "<image:image/>",
    '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/en"/>',
    '<xhtml:link rel="alternate" href="https://example.com/de" hreflang="de" />',
    '<xhtml:link hreflang="x-default" href="https://example.com/" rel="alternate"/>',
    '<xhtml:link href="https://example.com/fr" hreflang="fr-CA"\n   rel="alternate"/>',
    '<xhtml:link rel="canonical" href="https://example.com/c"/>',
    '<xhtml:link rel="alternate" hreflang="" href="https://example.com/e"/>',
    '<xhtml:link rel="alternate" hreflang=" en" href="https://example.com/e"/>',
    '<xhtml:link rel="alternate" hreflang="en" href=" https://example.com/sp"/>',
    '<xhtml:link rel="alternate" hreflang="en" href="/rel"/>',
    "<xhtml:link rel='alternate' hreflang='it' href='https://example.com/it'/>",
    '<xhtml:link rel="alternate" hreflang="es" href="https://example.com/es"></xhtml:link>',
    '<xhtml:link rel="alternate" hreflang="es" hreflang="es" href="https://example.com/es"/>',
    '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/?a=1&amp;b=2"/>',
    '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/x"  />',
    '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/>',
    '<xhtml:link rel="alternate" hreflang="EN" href="https://example.com/a"/>',
    '<xhtml:link rel="alternate" hreflang="de" href="http://example.com/b?x=1"/>',
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/a"/>',
    '<xhtml:link rel="alternate" hreflang="zz-ZZ" href="https://example.com/a"/>',
    '<xhtml:link rel="alternate" hreflang="&#101;n" href="https://example.com/&#x61;"/>',
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/grüße?x=1&amp;y=&quot;2&quot;"/>',
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/&#10;x"/>',
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/&#0;x"/>',
    "<image:image><image:loc>https://example.com/&#x41;.png?s=1&amp;t=2</image:loc></image:image>",
    "<image:image><image:loc>https://example.com/ü.png</image:loc></image:image>",
]
PROLOGS = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{ns}">',
    '<urlset xmlns="{ns}">',
    '  \n\n<?xml version="1.0"?>\r\n<!-- c -->\n<?xml-stylesheet href="s.xsl"?>\n<urlset\n  xmlns="{ns}"\n'
    '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{ns} x.xsd">',
    '<?xml version="1.0"?><urlset xmlns="{ns}" xmlns="{ns}">',
    '<?xml version="1.0"?><urlset xmlns="http://www.google.com/schemas/sitemap/0.84">',
    '<?xml version="1.0"?><urlset>',
    "<urlset xmlns='{ns}' a='x>y'>",
    '<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="{ns}">',
    '<urlset xmlns="{ns}" a="&amp;">',
    '<?xml version="1.0"?><!-- a & b --><urlset xmlns="{ns}">',
    '<urlset xmlns="{ns}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    '<?xml version="1.0"?>\n<urlset\n xmlns:xhtml="http://www.w3.org/1999/xhtml"\n xmlns="{ns}"\n'
    " xmlns:image='http://www.google.com/schemas/sitemap-image/1.1'>",
    '<urlset xmlns="{ns}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
    '<urlset xmlns="{ns}" xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:image="http://example.com/not-image">',
    '<urlset xmlns="{ns}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:pic="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
]
ENDINGS = ["</urlset>\n", "</urlset>", "\n</urlset>\n<junk/>", "", "</urlset><url><loc>https://example.com/z</loc></url>",
           "</urlset>\n<!-- tail -->\n"]
SEPS = ["", "\n", "\r\n", "  ", "\n\n\t", "\n<!-- c -->\n", "<!--x-->", "\r"]


@st.composite
def _canonical(draw: st.DrawFn) -> str:
    sep = st.sampled_from(SEPS)
    parts = [f"<url>{draw(sep)}<loc>{draw(st.sampled_from(LOCS))}</loc>{draw(sep)}"]
    if draw(st.booleans()):
        parts.append(f"<lastmod>{draw(st.sampled_from(LASTMODS))}</lastmod>{draw(sep)}")
    if draw(st.booleans()):
        parts.append(f"<changefreq>{draw(st.sampled_from(CHANGEFREQS))}</changefreq>{draw(sep)}")
    if draw(st.booleans()):
        parts.append(f"<priority>{draw(st.sampled_from(PRIORITIES))}</priority>{draw(sep)}")
    for item in draw(st.lists(st.sampled_from(EXT_ITEMS), max_size=4)):
        parts.append(item + draw(sep))
    parts.append("</url>")
    return "".join(parts)


@st.composite
def _document(draw: st.DrawFn) -> bytes:
    prolog = draw(st.sampled_from(PROLOGS)).format(ns=NS)
    blocks = draw(st.lists(st.one_of(_canonical(), _canonical(), _canonical(), st.sampled_from(ODD_BLOCKS)),
                           max_size=12))
    sep = draw(st.sampled_from(SEPS))
    text = prolog + sep + sep.join(blocks) + sep + draw(st.sampled_from(ENDINGS))
    encoding = "latin-1" if "ISO-8859-1" in prolog else "utf-8"
    data = text.encode(encoding, errors="replace")
    if draw(st.booleans()):  # truncate anywhere
        data = data[:draw(st.integers(min_value=0, max_value=len(data)))]
    return data


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_document(), data=st.data())
def test_generated_documents_read_the_same_both_ways(doc: bytes, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(min_value=1, max_value=max(1, len(doc) - 1)), max_size=8), label="cuts")
    whole = _same_both_ways(doc)
    assert _same_both_ways(doc, cuts) == whole


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_document())
def test_byte_by_byte_and_gzip_read_the_same_both_ways(doc: bytes) -> None:
    whole = _read(doc, [], fast=False)
    assert _read(doc, list(range(1, len(doc))), fast=True) == whole
    packed = gzip.compress(doc)
    assert _read(packed, list(range(1, len(packed), 7)), fast=True) == whole


def test_lastmod_memo_and_duplicate_limit_behave_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    import sitemapkit.read._xml as rx

    # 6,000 distinct lastmods (the memo fills and switches itself off), then 6,000 repeats of a few; a
    # duplicate-tracking limit of 3,000 so both sides of it are crossed.
    monkeypatch.setattr(_read_fast, "DUPLICATE_TRACKING_LIMIT", 3000)
    monkeypatch.setattr(rx, "DUPLICATE_TRACKING_LIMIT", 3000)
    rows = [f"<url><loc>https://example.com/{i % 7000}</loc><lastmod>2020-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:"
            f"{i % 60:02d}Z</lastmod></url>" if i < 6000 else
            f"<url><loc>https://example.com/{i % 7000}</loc><lastmod>2021-03-0{i % 3 + 1}</lastmod></url>"
            for i in range(12000)]
    data = f'<urlset xmlns="{NS}">\n' + "\n".join(rows) + "\n</urlset>\n"
    events = _same_both_ways(data.encode())
    dups = [e for e in events if isinstance(e, Problem) and e.code == "SM306"]
    assert len([e for e in events if type(e) is UrlEntry]) == 12000
    assert dups
    assert all(d.location.line is not None for d in dups)


@pytest.mark.parametrize("item", EXT_ITEMS)
def test_each_extension_form_reads_the_same_both_ways(item: str) -> None:
    before = "<url><loc>https://example.com/before</loc></url>"
    after = "<url><loc>https://example.com/after</loc><lastmod>2024-01-31</lastmod></url>"
    data = (f'<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
            f'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n{before}\n'
            f'<url><loc>https://example.com/x</loc>\n{item}\n{item}</url>\n{after}\n</urlset>\n')
    events = _same_both_ways(data.encode())
    locs = [e.loc for e in events if type(e) is UrlEntry]
    assert locs[0] == "https://example.com/before"
    broken = any(getattr(e, "code", None) == "SM104" for e in events)  # the duplicated attribute
    assert broken or locs[-1] == "https://example.com/after"


@pytest.mark.parametrize("doc", [
    b'<?l?><urlset n="" s=">"><url><loc>https://example.com/a</loc></url></urlset>',
    b'<!-- <urlset> --><urlset xmlns="x">\n<url><loc>https://example.com/a</loc></url></urlset>',
    b'\xef\xbb\xbf<?pi <urlset a="b">?>\n<urlset a=\'>\'><url><loc>https://example.com/a</loc></url></urlset>',
    b'<urlset a="<"><url><loc>https://example.com/a</loc></url></urlset>',
    b"<urlsetx><url><loc>https://example.com/a</loc></url></urlsetx>",
])
def test_whether_the_lane_starts_does_not_depend_on_the_cut(doc: bytes) -> None:
    # The lane decides "not a prolog I read" only when no further byte could change it (a ">" inside a quoted
    # value, or a "<urlset>" inside a comment or PI, does not end the root start tag).
    whole = _read_fast._PROLOG.match(doc) is not None
    for cut in range(len(doc) + 1):
        head = doc[:cut]
        if _read_fast._PROLOG.match(head) is None and _read_fast._prolog_settled(head):
            assert not whole, (cut, head)
        elif _read_fast._PROLOG.match(head) is not None:
            assert whole, (cut, head)
