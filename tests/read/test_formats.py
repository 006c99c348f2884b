"""Formats and values: extensions into the model, feeds, lastmod forms, bad values kept as warnings."""

from __future__ import annotations

import pytest

from sitemapkit import (
    Alternate,
    Changefreq,
    Image,
    LastMod,
    ParseError,
    SitemapParser,
    UrlEntry,
    parse_bytes,
    read_file,
)
from sitemapkit.core import Relationship
from sitemapkit.read import DocumentKind
from tests.support.corpus import CORPUS, needs_corpus

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
EXT = ('xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
       'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
       'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
       'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
       'xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0" xmlns:x="urn:unknown"')
PEER = CORPUS / "peer-fixtures"


def _urlset(body: str) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" {EXT}>\n{body}\n</urlset>\n'.encode()


def test_core_fields() -> None:
    r = parse_bytes(_urlset("<url><loc>https://example.com/a</loc><lastmod>2024-05-01T10:30:00+02:00</lastmod>"
                            "<changefreq>weekly</changefreq><priority>0.8</priority></url>"))
    assert r.entries == (UrlEntry("https://example.com/a", LastMod("2024-05-01T10:30:00+02:00"), Changefreq.WEEKLY,
                                  0.8),)
    assert r.problems == ()


def test_order_tolerant_and_case_tolerant_values() -> None:
    r = parse_bytes(_urlset("<url><priority> 1.0 </priority><lastmod>2024-05-01</lastmod>"
                            "<loc>https://example.com/a</loc><changefreq>Daily</changefreq></url>"))
    (e,) = r.entries
    assert (e.priority, e.lastmod, e.changefreq) == (1.0, LastMod("2024-05-01"), Changefreq.DAILY)


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("2024", "2024"),
        ("2024-05", "2024-05"),
        ("2024-05-01", "2024-05-01"),
        ("2024-05-01T10:30Z", "2024-05-01T10:30Z"),
        ("2024-05-01T10:30:15.123456+05:30", "2024-05-01T10:30:15.123456+05:30"),
        ("2024-05-01T10:30:15", "2024-05-01T10:30:15"),
        ("2020-08-04T10:23:38&#43;08:00", "2020-08-04T10:23:38+08:00"),
        ("<![CDATA[2024-05-01]]>", "2024-05-01"),
    ],
)
def test_w3c_lastmod_forms(written: str, read: str) -> None:
    r = parse_bytes(_urlset(f"<url><loc>https://example.com/a</loc><lastmod>{written}</lastmod></url>"))
    assert r.entries[0].lastmod == LastMod(read)
    assert r.problems == ()


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("2024-05-01 10:30:00", "2024-05-01T10:30:00"),
        ("2024-05-01T10:30:00+0200", "2024-05-01T10:30:00+02:00"),
        ("Wed, 01 May 2024 10:30:00 GMT", "2024-05-01T10:30:00Z"),
    ],
)
def test_lenient_lastmod_forms_warn(written: str, read: str) -> None:
    r = parse_bytes(_urlset(f"<url><loc>https://example.com/a</loc><lastmod>{written}</lastmod></url>"))
    assert r.entries[0].lastmod == LastMod(read)
    assert [p.code for p in r.problems] == ["SM119"]


@pytest.mark.parametrize(
    ("element", "code", "field"),
    [
        ("<lastmod>yesterday</lastmod>", "SM118", "lastmod"),
        ("<lastmod>2024-13-45</lastmod>", "SM118", "lastmod"),
        ("<lastmod/>", "SM118", "lastmod"),
        ("<changefreq>sometimes</changefreq>", "SM120", "changefreq"),
        ("<priority>high</priority>", "SM121", "priority"),
        ("<priority>1.5</priority>", "SM121", "priority"),
        ("<priority>NaN</priority>", "SM121", "priority"),
    ],
)
def test_bad_value_keeps_entry_with_field_empty(element: str, code: str, field: str) -> None:
    doc = _urlset(f"<url><loc>https://example.com/a</loc>{element}</url>")
    r = parse_bytes(doc, "s.xml")
    (e,) = r.entries
    assert getattr(e, field) is None
    (p,) = r.problems
    assert (p.code, p.severity.value, p.location.line, p.location.loc) == (code, "warning", 3, "https://example.com/a")
    with pytest.raises(ParseError):
        parse_bytes(doc, strict=True)


def test_images_alternates_mobile_and_unknown_extensions() -> None:
    r = parse_bytes(_urlset(
        "<url><loc>https://example.com/a</loc>"
        "<image:image><image:loc>https://cdn.example.com/1.jpg</image:loc><image:caption>C</image:caption>"
        "<image:title>T</image:title><image:geo_location>Paris</image:geo_location>"
        "<image:license>https://example.com/lic</image:license></image:image>"
        "<image:image><image:loc>https://cdn.example.com/ü.jpg</image:loc></image:image>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/>'
        '<xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/a"/>'
        "<mobile:mobile/><x:anything><x:deep>ignored</x:deep></x:anything></url>"))
    (e,) = r.entries
    assert e.images == (Image("https://cdn.example.com/1.jpg", "C", "Paris", "T", "https://example.com/lic"),
                        Image("https://cdn.example.com/%C3%BC.jpg"))
    assert e.alternates == (Alternate("de", "https://example.com/de/a"), Alternate("x-default", "https://example.com/a"))
    assert e.mobile is True
    assert r.problems == ()  # unknown extension elements are skipped without noise


def test_video_every_field() -> None:
    r = parse_bytes(_urlset(
        "<url><loc>https://example.com/v</loc><video:video>"
        "<video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
        "<video:description>D</video:description><video:content_loc>https://example.com/v.mp4</video:content_loc>"
        '<video:player_loc allow_embed="yes" autoplay="ap=1">https://example.com/p</video:player_loc>'
        "<video:duration>600</video:duration><video:expiration_date>2030-01-01</video:expiration_date>"
        "<video:rating>4.2</video:rating><video:view_count>12345</video:view_count>"
        "<video:publication_date>2024-01-01T10:00:00+00:00</video:publication_date>"
        "<video:family_friendly>no</video:family_friendly>"
        '<video:restriction relationship="allow">IE GB</video:restriction>'
        '<video:platform relationship="deny">tv</video:platform>'
        "<video:requires_subscription>yes</video:requires_subscription>"
        '<video:uploader info="https://example.com/u">Me</video:uploader><video:live>no</video:live>'
        "<video:tag>a</video:tag><video:tag>b</video:tag><video:category>Cat</video:category>"
        "<video:gallery_loc>https://example.com/g</video:gallery_loc>"
        '<video:price currency="EUR" type="rent" resolution="HD">1.99</video:price>'
        "<video:tvshow><video:show_title>S</video:show_title><video:video_type>full</video:video_type>"
        "<video:episode_title>E</video:episode_title><video:season_number>2</video:season_number>"
        "<video:episode_number>3</video:episode_number><video:premier_date>2020-01-01</video:premier_date>"
        "</video:tvshow></video:video></url>"))
    assert r.problems == ()
    (v,) = r.entries[0].videos
    assert (v.thumbnail_loc, v.title, v.description, v.content_loc, v.player_loc) == (
        "https://example.com/t.jpg", "T", "D", "https://example.com/v.mp4", "https://example.com/p")
    assert (v.duration, v.rating, v.view_count, v.family_friendly, v.requires_subscription, v.live) == (
        600, 4.2, 12345, False, True, False)
    assert v.expiration_date == LastMod("2030-01-01")
    assert v.publication_date == LastMod("2024-01-01T10:00:00+00:00")
    assert v.restriction is not None
    assert v.restriction.relationship is Relationship.ALLOW
    assert v.restriction.countries == ("IE", "GB")
    assert v.platform is not None
    assert v.platform.platforms == ("tv",)
    assert v.uploader is not None
    assert (v.uploader.name, v.uploader.info) == ("Me", "https://example.com/u")
    assert v.tags == ("a", "b")
    assert (v.category, v.gallery_loc, v.player_allow_embed, v.player_autoplay) == (
        "Cat", "https://example.com/g", True, "ap=1")
    assert len(v.prices) == 1
    assert (v.prices[0].value, v.prices[0].currency) == (1.99, "EUR")
    assert v.tvshow is not None
    assert (v.tvshow.show_title, v.tvshow.season_number) == ("S", 2)


def test_news() -> None:
    r = parse_bytes(_urlset(
        "<url><loc>https://example.com/n</loc><news:news><news:publication><news:name>The Times</news:name>"
        "<news:language>en</news:language></news:publication>"
        "<news:publication_date>2024-05-01T10:30+02:00</news:publication_date><news:title>Hello</news:title>"
        "<news:keywords>a, b</news:keywords><news:stock_tickers>NASDAQ:A</news:stock_tickers>"
        "</news:news></url>"))
    assert r.problems == ()
    n = r.entries[0].news
    assert n is not None
    assert (n.publication_name, n.publication_language, n.title) == ("The Times", "en", "Hello")
    assert n.publication_date == LastMod("2024-05-01T10:30+02:00")
    assert (n.keywords, n.stock_tickers) == (("a", "b"), ("NASDAQ:A",))


@pytest.mark.parametrize(
    "ext",
    [
        "<video:video><video:title>no thumbnail</video:title></video:video>",
        "<image:image><image:caption>no loc</image:caption></image:image>",
        "<news:news><news:title>no publication</news:title></news:news>",
        '<xhtml:link rel="alternate" href="https://example.com/x"/>',
        '<xhtml:link rel="alternate" hreflang="de" href="/relative"/>',
    ],
)
def test_invalid_extension_dropped_url_kept(ext: str) -> None:
    r = parse_bytes(_urlset(f"<url><loc>https://example.com/a</loc>{ext}</url>"))
    (e,) = r.entries
    assert (e.images, e.videos, e.news, e.alternates) == ((), (), None, ())
    assert [p.code for p in r.problems] == ["SM122"]


def test_bad_optional_video_field_drops_only_that_field() -> None:
    r = parse_bytes(_urlset(
        "<url><loc>https://example.com/v</loc><video:video>"
        "<video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
        "<video:description>D</video:description><video:player_loc>https://example.com/p</video:player_loc>"
        "<video:rating>great</video:rating></video:video></url>"))
    (v,) = r.entries[0].videos
    assert v.rating is None
    assert [p.code for p in r.problems] == ["SM122"]


def test_index_entries() -> None:
    doc = (f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://example.com/s1.xml</loc>'
           "<lastmod>2024-01-01</lastmod></sitemap><sitemap><loc>https://example.com/s2.xml</loc></sitemap>"
           "</sitemapindex>").encode()
    r = parse_bytes(doc)
    assert r.kind is DocumentKind.INDEX
    assert [(s.loc, s.lastmod) for s in r.sitemaps] == [("https://example.com/s1.xml", LastMod("2024-01-01")),
                                                         ("https://example.com/s2.xml", None)]
    assert r.entries == ()


def test_rss2_pubdate_guid_and_channel_link_ignored() -> None:
    doc = (b'<rss version="2.0"><channel><link>https://example.com/</link>'
           b"<item><link>https://example.com/a</link><pubDate>Wed, 01 May 2024 10:30:00 +0200</pubDate></item>"
           b'<item><guid isPermaLink="true">https://example.com/b</guid><pubDate>01 May 24 10:30 GMT</pubDate>'
           b"</item><item><title>no link</title></item></channel></rss>")
    r = parse_bytes(doc)
    assert r.kind is DocumentKind.RSS
    assert [(e.loc, e.lastmod) for e in r.entries] == [
        ("https://example.com/a", LastMod("2024-05-01T10:30:00+02:00")),
        ("https://example.com/b", LastMod("2024-05-01T10:30:00Z"))]
    assert [p.code for p in r.problems] == ["SM127"]


@needs_corpus
def test_rss_pubdate_variants_fixture() -> None:
    r = read_file(PEER / "crawler-commons" / "rss" / "xmlRss_pubDate.xml")
    assert len(r.entries) == 7
    assert sum(e.lastmod is not None for e in r.entries) >= 4


def test_rss1_rdf() -> None:
    doc = (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" '
           b'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="https://example.com/">'
           b"<link>https://example.com/</link></channel>"
           b'<item rdf:about="https://example.com/a"><link>https://example.com/a</link>'
           b"<dc:date>2024-05-01T10:00:00Z</dc:date></item></rdf:RDF>")
    r = parse_bytes(doc)
    assert r.kind is DocumentKind.RSS
    assert [(e.loc, e.lastmod) for e in r.entries] == [("https://example.com/a", LastMod("2024-05-01T10:00:00Z"))]


@needs_corpus
def test_atom1_and_atom03() -> None:
    doc1 = (b'<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="https://example.com/feed"/>'
            b'<entry><link rel="edit" href="https://example.com/edit"/><link href="https://example.com/a"/>'
            b"<published>2024-01-01T00:00:00Z</published><updated>2024-02-01T00:00:00Z</updated></entry></feed>")
    r = parse_bytes(doc1)
    assert [(e.loc, e.lastmod) for e in r.entries] == [("https://example.com/a", LastMod("2024-02-01T00:00:00Z"))]
    doc03 = (b'<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry>'
             b'<link rel="alternate" type="text/html" href="https://example.com/b"/>'
             b"<modified>2024-03-01T00:00:00Z</modified></entry></feed>")
    r = parse_bytes(doc03)
    assert r.kind is DocumentKind.ATOM
    assert [(e.loc, e.lastmod) for e in r.entries] == [("https://example.com/b", LastMod("2024-03-01T00:00:00Z"))]
    r = read_file(PEER / "usp" / "atom0.3.xml")
    assert len(r.entries) == 2
    assert all(e.lastmod is not None for e in r.entries)


def test_text_sitemap_lines_and_columns() -> None:
    parser = SitemapParser("urls.txt", positions=True)
    events = parser.feed(b"\xef\xbb\xbfhttps://example.com/a\r\n\r\n   https://example.com/b  \nnot a url\n")
    events += parser.close()
    located = [(e.item.loc, e.line, e.column, e.raw_loc) for e in events if hasattr(e, "item")]
    assert located == [("https://example.com/a", 1, 1, "https://example.com/a"),
                       ("https://example.com/b", 3, 4, "   https://example.com/b  ")]
    problems = [e for e in events if not hasattr(e, "item")]
    assert [(p.code, p.location.line) for p in problems] == [("SM124", 4)]  # type: ignore[union-attr]


def test_positions_for_xml() -> None:
    parser = SitemapParser("s.xml", positions=True)
    events = parser.feed(b'\n\n  <?xml version="1.0"?>\n' + _urlset(
        "<url>\n<loc>\n https://example.com/a&amp;b </loc></url>\n<url><loc>https://example.com/c</loc></url>"
    ).split(b"\n", 1)[1])
    events += parser.close()
    located = [e for e in events if hasattr(e, "item")]
    assert [(e.item.loc, e.line, e.raw_loc) for e in located] == [  # type: ignore[union-attr]
        ("https://example.com/a&b", 5, "\n https://example.com/a&b "),
        ("https://example.com/c", 8, "https://example.com/c")]


def test_feed_after_close_is_an_error() -> None:
    from sitemapkit.read import ReaderStateError

    parser = SitemapParser()
    parser.close()
    with pytest.raises(ReaderStateError):
        parser.feed(b"x")


def test_entries_stream_before_the_end() -> None:
    parser = SitemapParser()
    head = _urlset("<url><loc>https://example.com/a</loc></url>" * 100).split(b"</urlset>")[0]
    events = parser.feed(head)
    assert len(events) >= 99  # complete entries come out at once, without waiting for close()
    assert parser.kind is DocumentKind.URLSET


AMP_DOC = (b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
           b"<url><loc>https://example.com/a?x=1&y=2</loc></url>\n"
           b"<url><loc>https://example.com/b?q=&#228;&amp;r=&lt;&#xE4;</loc></url>\n"
           b"<url><loc><![CDATA[https://example.com/c?s=1&amp;t=2&u]]></loc></url>\n"
           b"<url><loc>https://example.com/d?&&</loc></url>\n</urlset>\n")


def test_bare_ampersand_repaired_in_lenient_mode() -> None:
    r = parse_bytes(AMP_DOC, "amp.xml")
    assert [e.loc for e in r.entries] == [
        "https://example.com/a?x=1&y=2",
        "https://example.com/b?q=%C3%A4&r=%3C%C3%A4",
        "https://example.com/c?s=1&amp;t=2&u",  # CDATA is literal: nothing decoded, nothing repaired
        "https://example.com/d?&&",
    ]
    assert [(p.code, p.location.line, p.message) for p in r.problems] == [
        ("SM129", 3, "unescaped & read as &amp; (and 2 more)")]


def test_bare_ampersand_strict_stops_at_it() -> None:
    with pytest.raises(ParseError) as info:
        parse_bytes(AMP_DOC, "amp.xml", strict=True)
    assert info.value.problem.code == "SM104"
    assert info.value.problem.location.line == 3


def test_bare_ampersand_byte_by_byte_and_after_leading_whitespace() -> None:
    doc = b"\n\n  " + AMP_DOC
    whole = parse_bytes(doc)
    parser = SitemapParser()
    events = [e for i in range(len(doc)) for e in parser.feed(doc[i:i + 1])] + parser.close()
    assert [e for e in events if isinstance(e, UrlEntry)] == list(whole.entries)
    amp = [p for p in whole.problems if p.code == "SM129"]
    assert amp[0].location.line == 5
