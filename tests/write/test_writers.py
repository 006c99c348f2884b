"""The streaming writers: escaping, element order, namespaces, XSD validity, warnings, text and HTML output."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import pytest

from sitemapkit import Alternate, Image, InvalidEntryError, News, SitemapRef, UrlEntry, Video
from sitemapkit.core import VideoPlatform, VideoPrice, VideoRestriction, VideoTvShow, VideoUploader
from sitemapkit.write import Extension, HtmlWriter, IndexWriter, TextWriter, UrlsetWriter, escape
from tests.write.helpers import IMG, NEWS, SM, VID, XHTML, assert_valid, parse, read_back

KITCHEN_SINK = UrlEntry(
    "https://example.com/watch?v=1&list='a'",
    lastmod="2024-05-01T10:00:00+05:00",
    changefreq="weekly",
    priority=0.8,
    alternates=(Alternate("en", "https://example.com/watch?v=1&list='a'"),
                Alternate("de-AT", "https://example.com/de/watch?v=1"),
                Alternate("x-default", "https://example.com/watch")),
    images=(Image("https://cdn.example.com/a.jpg"),
            Image("https://cdn.example.com/b.jpg", caption="A & B <tag>", geo_location="Wien, \"AT\"",
                  title="It's", license="https://example.com/license")),
    videos=(Video(
        thumbnail_loc="https://cdn.example.com/t.jpg", title="Grilling <steak> & more",
        description="How to \"grill\" it's fine", content_loc="https://cdn.example.com/v.mp4",
        player_loc="https://example.com/player?id=1&x=2", duration=600,
        expiration_date="2030-01-01T00:00:00Z", rating=4.2, view_count=12345,
        publication_date="2024-01-02", family_friendly=True,
        restriction=VideoRestriction("allow", ("IE", "GB")), platform=VideoPlatform("deny", ("tv",)),
        requires_subscription=False, uploader=VideoUploader("Grill & Co", info="https://example.com/u"),
        live=False, tags=("steak", "summer & bbq"), category="Cooking", gallery_loc="https://example.com/g",
        prices=(VideoPrice(1.99, "EUR", type="rent", resolution="hd"),),
        tvshow=VideoTvShow("Grill Show", video_type="full", episode_title="Ep & 1", season_number=1,
                           episode_number=2, premier_date="2020-01-01"),
        player_allow_embed=True, player_autoplay="ap=1"),),
    news=News("The Example Times", "en", "2024-05-01T10:00:00+02:00", "Big <news> & more",
              access="Subscription", genres=("Blog", "OpEd"), keywords=("a", "b&c"),
              stock_tickers=("NASDAQ:AMAT",)),
    mobile=True,
)


def write_urlset(entries: list[UrlEntry], **kwargs: object) -> tuple[bytes, UrlsetWriter]:
    sink = io.BytesIO()
    w = UrlsetWriter(sink, **kwargs)  # type: ignore[arg-type]
    for e in entries:
        w.write(e)
    w.close()
    return sink.getvalue(), w


@pytest.mark.parametrize(("text", "expected"), [
    ("plain", "plain"),
    ("a&b", "a&amp;b"),
    ("<x y='1' z=\"2\">", "&lt;x y=&apos;1&apos; z=&quot;2&quot;&gt;"),
    ("&amp;", "&amp;amp;"),
    ("ümlaut 中文 😀", "ümlaut 中文 😀"),
    ("tab\tnew\nline\r", "tab\tnew\nline\r"),
])
def test_escape(text: str, expected: str) -> None:
    assert escape(text) == expected


@pytest.mark.parametrize("bad", ["\x00", "a\x01b", "\x1f", "\ud800", "\ufffe", "\uffff", "\x0b"])
def test_escape_rejects_characters_xml_cannot_carry(bad: str) -> None:
    with pytest.raises(InvalidEntryError, match=r"XML 1\.0"):
        escape(bad)


def test_plain_urlset_declares_only_the_sitemap_namespace() -> None:
    data, w = write_urlset([UrlEntry("https://example.com/a?b=1&c=2", "2024-05-01", "daily", 0.5)])
    assert_valid(data)
    text = data.decode()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
                           'schemas/sitemap/0.9">\n')
    assert "xmlns:" not in text
    assert "<loc>https://example.com/a?b=1&amp;c=2</loc><lastmod>2024-05-01</lastmod>" \
           "<changefreq>daily</changefreq><priority>0.5</priority>" in text
    assert w.count == 1
    assert w.bytes_written == len(data)


def test_kitchen_sink_all_extensions_in_one_file_is_xsd_valid() -> None:
    data, w = write_urlset([KITCHEN_SINK, UrlEntry("https://example.com/plain")])
    assert_valid(data)
    assert w.used == Extension.ALL
    [item, plain] = read_back(data)
    assert item["loc"] == KITCHEN_SINK.loc
    assert item["alternates"][1] == ("de-AT", "https://example.com/de/watch?v=1")
    assert item["images"][1]["caption"] == "A & B <tag>"
    assert item["news"]["title"] == "Big <news> & more"
    video = {tag: text for tag, text, _ in item["videos"][0]}
    assert video["title"] == "Grilling <steak> & more"
    assert video["description"] == 'How to "grill" it\'s fine'
    assert plain["images"] == []


def test_extension_namespaces_declared_locally_when_root_does_not_declare_them() -> None:
    data, _ = write_urlset([KITCHEN_SINK])
    head = data.decode().split("\n")[1]
    assert "xmlns:" not in head
    assert '<image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">' in data.decode()
    assert_valid(data)


def test_namespaces_declared_on_root_when_announced() -> None:
    data, _ = write_urlset([KITCHEN_SINK], namespaces=Extension.ALL)
    head = data.decode().split("\n")[1]
    for prefix in ("image", "video", "news", "xhtml", "mobile"):
        assert f"xmlns:{prefix}=" in head
    assert data.decode().count("xmlns:image=") == 1
    assert_valid(data)


def test_video_children_follow_the_xsd_sequence() -> None:
    data, _ = write_urlset([KITCHEN_SINK], namespaces=Extension.ALL)
    video = parse(data).find(f"{SM}url/{VID}video")
    assert video is not None
    order = [c.tag.split("}")[1] for c in video]
    xsd_sequence = ["thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
                    "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date", "tag",
                    "category", "family_friendly", "restriction", "gallery_loc", "price", "requires_subscription",
                    "uploader", "tvshow", "platform", "live", "id"]
    positions = [xsd_sequence.index(name) for name in order]
    assert positions == sorted(positions)
    assert order.count("tag") == 2


def test_url_children_in_xsd_order() -> None:
    data, _ = write_urlset([KITCHEN_SINK], namespaces=Extension.ALL)
    url = parse(data).find(f"{SM}url")
    assert url is not None
    tags = [c.tag for c in url]
    assert tags[:4] == [f"{SM}loc", f"{SM}lastmod", f"{SM}changefreq", f"{SM}priority"]
    assert set(tags[4:]) <= {f"{IMG}image", f"{VID}video", f"{NEWS}news", f"{XHTML}link",
                             "{http://www.google.com/schemas/sitemap-mobile/1.0}mobile"}


def test_deprecated_tags_are_written_with_warnings() -> None:
    data, w = write_urlset([KITCHEN_SINK, KITCHEN_SINK])
    assert b"<image:caption>" in data
    assert b"<video:tvshow>" in data
    codes = {p.code: p for p in w.problems}
    assert {"SM601", "SM602"} <= set(codes)
    assert "and 1 more" in codes["SM601"].message
    assert codes["SM601"].location.loc == KITCHEN_SINK.loc


def test_minute_precision_lastmod_written_as_given_with_warning() -> None:
    data, w = write_urlset([UrlEntry("https://example.com/", "2024-05-01T10:00+05:00")])
    assert b"<lastmod>2024-05-01T10:00+05:00</lastmod>" in data
    assert [p.code for p in w.problems] == ["SM603"]


def test_offset_is_kept() -> None:
    data, _ = write_urlset([UrlEntry("https://example.com/", "2024-05-01T10:00:00+05:00")])
    assert b"<lastmod>2024-05-01T10:00:00+05:00</lastmod>" in data


@pytest.mark.parametrize(("priority", "text"), [(0.0, "0.0"), (1.0, "1.0"), (0.5, "0.5"), (0.123, "0.123"),
                                                (1e-05, "0.00001")])
def test_priority_never_in_exponent_form(priority: float, text: str) -> None:
    data, _ = write_urlset([UrlEntry("https://example.com/", priority=priority)])
    assert f"<priority>{text}</priority>".encode() in data
    assert_valid(data)


@pytest.mark.parametrize("entry", [
    UrlEntry("https://example.com/", alternates=(Alternate("not a tag!", "https://example.com/x"),)),
    UrlEntry("https://example.com/", news=News("N", "EN", "2024-05-01", "t")),
    UrlEntry("https://example.com/", videos=(Video("https://e.com/t.jpg", "t", "d", "https://e.com/v.mp4",
                                                   restriction=VideoRestriction("allow", ("ie",))),)),
    UrlEntry("https://example.com/", videos=(Video("https://e.com/t.jpg", "t", "d", "https://e.com/v.mp4",
                                                   tvshow=VideoTvShow("show")),)),
    UrlEntry("https://example.com/", videos=(Video("https://e.com/t.jpg", "t", "x" * 2049, "https://e.com/v.mp4"),)),
    UrlEntry("https://example.com/", videos=(Video("https://e.com/t.jpg", "bad\x01", "d", "https://e.com/v.mp4"),)),
])
def test_values_that_would_break_the_xsd_are_rejected_before_writing(entry: UrlEntry) -> None:
    sink = io.BytesIO()
    w = UrlsetWriter(sink)
    w.write(UrlEntry("https://example.com/ok"))
    with pytest.raises(InvalidEntryError):
        w.write(entry)
    w.close()
    assert w.count == 1
    assert_valid(sink.getvalue())


def test_long_video_title_is_a_warning_not_an_error() -> None:
    entry = UrlEntry("https://example.com/", videos=(Video("https://e.com/t.jpg", "t" * 101, "d",
                                                           "https://e.com/v.mp4"),))
    _, w = write_urlset([entry])
    assert [p.code for p in w.problems] == ["SM604"]


def test_stylesheet_line() -> None:
    data, _ = write_urlset([UrlEntry("https://example.com/")], stylesheet="https://example.com/s.xsl?a=1&b=2")
    assert data.decode().split("\n")[1] == \
        '<?xml-stylesheet type="text/xsl" href="https://example.com/s.xsl?a=1&amp;b=2"?>'
    assert_valid(data)


def test_index_writer_is_xsd_valid() -> None:
    sink = io.BytesIO()
    with IndexWriter(sink, stylesheet="sitemap.xsl") as w:
        w.write(SitemapRef("https://example.com/sitemap-1.xml.gz", "2024-05-01T10:00:00Z"))
        w.write(SitemapRef("https://example.com/s?a=1&b=2"))
    data = sink.getvalue()
    assert_valid(data)
    assert b"<loc>https://example.com/s?a=1&amp;b=2</loc>" in data
    with pytest.raises(TypeError):
        IndexWriter(io.BytesIO()).write(UrlEntry("https://example.com/"))  # type: ignore[arg-type]


def test_writer_refuses_writes_after_close() -> None:
    sink = io.BytesIO()
    w = UrlsetWriter(sink)
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.write(UrlEntry("https://example.com/"))


def test_text_writer() -> None:
    sink = io.BytesIO()
    with TextWriter(sink) as w:
        w.write(UrlEntry("https://example.com/a?b=1&c=2"))
        w.write(UrlEntry("https://example.com/café"))
    assert sink.getvalue() == b"https://example.com/a?b=1&c=2\nhttps://example.com/caf%C3%A9\n"


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str | None, str]] = []
        self.h2: list[str] = []
        self._in: str | None = None
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in = tag
        if tag == "a":
            self._href = dict(attrs).get("href")

    def handle_data(self, data: str) -> None:
        if self._in == "a":
            self.links.append((self._href, data))
        elif self._in == "h2":
            self.h2.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in = None


def test_html_writer_groups_by_first_segment_and_escapes() -> None:
    sink = io.BytesIO()
    with HtmlWriter(sink, title="Pages of <Example> & co") as w:
        w.write(UrlEntry("https://example.com/", "2024-05-01"))
        w.write(UrlEntry("https://example.com/blog/a?x=1&y=<2>", "2024-05-02T10:00:00Z"))
        w.write(UrlEntry("https://example.com/about"))
        w.write(UrlEntry("https://example.com/blog/2024/café"))
    html = sink.getvalue().decode()
    assert "<title>Pages of &lt;Example&gt; &amp; co</title>" in html
    parser = _Collect()
    parser.feed(html)
    # one section per first path segment, however the URLs came (top-level pages under "/")
    assert parser.h2 == ["/ ", "/blog/ "]
    assert html.count("<small>(2)</small>") == 2
    assert parser.links == [("https://example.com/", "/"), ("https://example.com/about", "/about"),
                            ("https://example.com/blog/a?x=1&y=%3C2%3E", "/blog/a?x=1&y=<2>"),
                            ("https://example.com/blog/2024/caf%C3%A9", "/blog/2024/café")]
    assert html.count("<section>") == html.count("</section>") == 2
    assert html.rstrip().endswith("</html>")


def test_html_keeps_undecodable_paths_encoded() -> None:
    sink = io.BytesIO()
    with HtmlWriter(sink) as w:
        w.write(UrlEntry("https://example.com/a%01b/c%00"))
    html = sink.getvalue().decode()
    assert ">/a%01b/c%00</a>" in html
    assert "\x00" not in html
    assert "\x01" not in html
