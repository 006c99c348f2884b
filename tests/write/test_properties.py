"""Property tests: whatever the entries, the output is well-formed, XSD-valid and reads back equal.

Reading back uses an independent lxml parse (tests/write/helpers.py); when the package's own reader
(``sitemapkit.parse_bytes``) is available, the entries it returns must equal the ones written as well.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sitemapkit
from sitemapkit import Alternate, Image, InvalidEntryError, News, UrlEntry, Video
from sitemapkit.write import UrlsetWriter, write_sitemaps
from tests.write.helpers import assert_valid, read_back

# Text XML 1.0 can carry (no C0 controls except tab/LF/CR, no surrogates, no U+FFFE/U+FFFF); anything else is
# refused by escape(), tested separately below.
xml_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufffe\uffff",
                           min_codepoint=0x20) | st.sampled_from("\t\n&<>'\""),
    min_size=1, max_size=40,
).map(str.strip).filter(bool)  # the reader trims surrounding whitespace (lenient); inner whitespace is kept

path_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), min_codepoint=0x21), max_size=30)
hosts = st.sampled_from(["example.com", "bücher.example", "xn--nxasmq6b.example", "例え.jp", "a-b.example:8080"])


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https"]))
    path = draw(path_text).replace("#", "")
    query = draw(st.none() | path_text)
    url = f"{scheme}://{draw(hosts)}/{path}"
    if query:
        url += "?" + query.replace("#", "")
    return url


def _entry(draw: st.DrawFn) -> UrlEntry:
    loc = draw(urls())
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        kwargs["lastmod"] = draw(st.sampled_from(["2024-05-01", "2024-05-01T10:00:00+05:30",
                                                  "2024-05-01T10:00:00.123Z", "1999-12-31T23:59:59-08:00"]))
    if draw(st.booleans()):
        kwargs["changefreq"] = draw(st.sampled_from(["always", "daily", "never"]))
    if draw(st.booleans()):
        kwargs["priority"] = draw(st.floats(0.0, 1.0))
    if draw(st.booleans()):
        kwargs["alternates"] = tuple(Alternate(draw(st.sampled_from(["en", "de-AT", "x-default", "zh-Hant"])),
                                               draw(urls())) for _ in range(draw(st.integers(1, 3))))
    if draw(st.booleans()):
        kwargs["images"] = (Image(draw(urls()), caption=draw(st.none() | xml_text)),)
    if draw(st.booleans()):
        kwargs["videos"] = (Video(draw(urls()), draw(xml_text), draw(xml_text), content_loc=draw(urls()),
                                  tags=tuple(draw(st.lists(xml_text, max_size=3)))),)
    if draw(st.booleans()):
        kwargs["news"] = News(draw(xml_text), "en", "2024-05-01", draw(xml_text))
    return UrlEntry(loc, **kwargs)


entries = st.composite(lambda draw: _entry(draw))()


def _expected(e: UrlEntry) -> dict[str, Any]:
    return {
        "loc": e.loc,
        "lastmod": e.lastmod.text if e.lastmod else None,
        "changefreq": e.changefreq.value if e.changefreq else None,
        "priority": e.priority,
        "alternates": [(a.hreflang, a.href) for a in e.alternates],
        "images": [(i.loc, i.caption) for i in e.images],
        "videos": [(v.thumbnail_loc, v.title, v.description, v.content_loc, list(v.tags)) for v in e.videos],
        "news": None if e.news is None else (e.news.publication_name, e.news.title),
    }


def _actual(d: dict[str, Any]) -> dict[str, Any]:
    videos = []
    for children in d["videos"]:
        by = [(tag, text) for tag, text, _ in children]
        get = dict(by)
        videos.append((get["thumbnail_loc"], get["title"], get["description"], get["content_loc"],
                       [text for tag, text in by if tag == "tag"]))
    return {
        "loc": d["loc"],
        "lastmod": d.get("lastmod"),
        "changefreq": d.get("changefreq"),
        "priority": float(d["priority"]) if "priority" in d else None,
        "alternates": d["alternates"],
        "images": [(i["loc"], i.get("caption")) for i in d["images"]],
        "videos": videos,
        "news": None if d["news"] is None else (d["news"]["name"], d["news"]["title"]),
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(entries, min_size=1, max_size=5))
def test_urlset_is_valid_and_reads_back_equal(items: list[UrlEntry]) -> None:
    sink = io.BytesIO()
    with UrlsetWriter(sink) as w:
        for e in items:
            w.write(e)
    data = sink.getvalue()
    assert_valid(data)
    assert [_actual(d) for d in read_back(data)] == [_expected(e) for e in items]
    parse_bytes = getattr(sitemapkit, "parse_bytes", None)
    if parse_bytes is not None:  # the package's own reader, once it exists
        result = parse_bytes(data)
        assert list(result.entries) == items


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(entries, min_size=1, max_size=12), st.integers(1, 4))
def test_sitemap_sets_are_valid_whatever_the_split(tmp_path: Path, items: list[UrlEntry], max_urls: int) -> None:
    out = tmp_path / "out"
    m = write_sitemaps(items, out, "https://example.com/", max_urls=max_urls, check_scope=False)
    got: list[dict[str, Any]] = []
    for f in m.files:
        data = f.path.read_bytes()
        assert_valid(data)
        if f.kind == "urlset":
            got.extend(read_back(data))
    assert [_actual(d) for d in got] == [_expected(e) for e in items]


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_arbitrary_text_is_escaped_or_refused(text: str) -> None:
    entry_text = text if text.strip() else "x" + text
    try:
        entry = UrlEntry("https://example.com/", images=(Image("https://example.com/i.png", caption=entry_text),))
    except InvalidEntryError:
        return
    sink = io.BytesIO()
    w = UrlsetWriter(sink)
    try:
        w.write(entry)
    except InvalidEntryError:
        assert any((ord(c) < 0x20 and c not in "\t\n\r") or 0xD800 <= ord(c) <= 0xDFFF or c in "\ufffe\uffff"
                   for c in entry_text)
        return
    w.close()
    data = sink.getvalue()
    assert_valid(data)
    assert read_back(data)[0]["images"][0]["caption"] == entry_text.replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.parametrize("text", ["a\r\nb", "tab\there", "  spaced  "])
def test_whitespace_in_text_survives(text: str) -> None:
    sink = io.BytesIO()
    with UrlsetWriter(sink) as w:
        w.write(UrlEntry("https://example.com/", images=(Image("https://example.com/i.png", caption=text),)))
    got = read_back(sink.getvalue())[0]["images"][0]["caption"]
    assert got == text.replace("\r\n", "\n")
