"""SitemapSetWriter / write_sitemaps: rolling at the limits, index, gzip, atomic publish, stale files, manifest."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from sitemapkit import (
    Alternate,
    ConfigurationError,
    Image,
    InvalidEntryError,
    News,
    PublishError,
    SitemapRef,
    SitemapSetWriter,
    UrlEntry,
)
from sitemapkit.write import write_sitemaps
from sitemapkit.write._publish import MANIFEST_NAME
from tests.write.helpers import SM, assert_valid, parse, read_back

BASE = "https://example.com/"


def urls(n: int, start: int = 0) -> Iterator[UrlEntry]:
    for i in range(start, start + n):
        yield UrlEntry(f"https://example.com/p/{i}")


def names(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def index_locs(path: Path) -> list[str]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return [e.text or "" for e in parse(data).iter(f"{SM}loc")]


def test_exactly_50000_urls_is_one_urlset(tmp_path: Path) -> None:
    m = write_sitemaps(urls(50_000), tmp_path, BASE)
    assert names(tmp_path) == [MANIFEST_NAME, "sitemap.xml"]
    root = parse((tmp_path / "sitemap.xml").read_bytes())
    assert root.tag == f"{SM}urlset"
    assert len(root) == 50_000
    assert m.entry_point == tmp_path / "sitemap.xml"
    assert m.index is None
    assert [f.urls for f in m.sitemaps] == [50_000]
    assert_valid((tmp_path / "sitemap.xml").read_bytes())


def test_50001_urls_roll_into_two_files_and_an_index(tmp_path: Path) -> None:
    m = write_sitemaps(urls(50_001), tmp_path, "https://example.com/maps")  # no trailing slash: a directory
    assert names(tmp_path) == [MANIFEST_NAME, "sitemap-1-1.xml", "sitemap-1-2.xml", "sitemap.xml"]
    assert [f.urls for f in m.sitemaps] == [50_000, 1]
    assert index_locs(tmp_path / "sitemap.xml") == ["https://example.com/maps/sitemap-1-1.xml",
                                                    "https://example.com/maps/sitemap-1-2.xml"]
    assert_valid((tmp_path / "sitemap.xml").read_bytes())
    assert read_back((tmp_path / "sitemap-1-2.xml").read_bytes())[0]["loc"] == "https://example.com/p/50000"
    assert m.index is not None
    assert m.index.url == "https://example.com/maps/sitemap.xml"
    assert m.files[-1].kind == "index"  # published last


def heavy(i: int, n_alt: int) -> UrlEntry:
    loc = f"https://example.com/en/products/item-{i}"
    return UrlEntry(loc, "2024-05-01", alternates=tuple(
        Alternate(f"e{chr(97 + k)}", f"https://example.com/l{k}/products/item-{i}") for k in range(n_alt)))


def test_byte_limit_with_many_alternates(tmp_path: Path) -> None:
    limit = 20_000
    m = write_sitemaps((heavy(i, 12) for i in range(200)), tmp_path, BASE, max_bytes=limit)
    assert len(m.sitemaps) > 5
    total = 0
    for f in m.sitemaps:
        data = f.path.read_bytes()
        assert len(data) == f.bytes <= limit
        assert_valid(data)
        total += len(read_back(data))
    assert total == 200
    # Each file is as full as it could be: the first entry of the next file would not have fitted.
    first_sizes = [len(etree.tostring(parse(f.path.read_bytes())[0])) for f in m.sitemaps[1:]]
    for f, nxt in zip(m.sitemaps, first_sizes, strict=False):
        assert f.bytes + nxt > limit - 300  # 300: the worst-case root declarations the writer reserves


@pytest.mark.slow
def test_realistic_byte_limit_with_hreflang_heavy_entries(tmp_path: Path) -> None:
    # ~2.3 KB per URL: the 52,428,800-byte limit is reached long before 50,000 URLs.
    m = write_sitemaps((heavy(i, 24) for i in range(24_000)), tmp_path, BASE)
    assert len(m.sitemaps) == 2
    assert m.sitemaps[0].bytes <= 52_428_800
    assert m.sitemaps[0].bytes > 52_428_800 - 5_000
    assert m.sitemaps[0].urls < 24_000


def test_entry_bigger_than_the_byte_limit_is_rejected_alone(tmp_path: Path) -> None:
    with SitemapSetWriter(tmp_path, BASE, max_bytes=1_000) as w:
        w.add(UrlEntry("https://example.com/a"))
        with pytest.raises(InvalidEntryError, match="cannot fit"):
            w.add(heavy(1, 20))
        w.add(UrlEntry("https://example.com/b"))
    assert w.manifest is not None
    assert w.manifest.urls == 2
    assert len(read_back((tmp_path / "sitemap.xml").read_bytes())) == 2


def test_gzip_decompresses_to_the_plain_bytes(tmp_path: Path) -> None:
    entries = [UrlEntry(f"https://example.com/p/{i}", "2024-05-01", images=(Image("https://e.com/i.png"),)
                        if i % 3 == 0 else ()) for i in range(250)]
    plain = write_sitemaps(entries, tmp_path / "plain", BASE, max_urls=100, formats=("xml", "txt"))
    packed = write_sitemaps(entries, tmp_path / "gz", BASE, max_urls=100, formats=("xml", "txt"), gzip=True)
    assert [f.path.name + ".gz" for f in plain.files] == [f.path.name for f in packed.files]
    for a, b in zip(plain.files, packed.files, strict=True):
        raw = gzip.decompress(b.path.read_bytes())
        assert b.bytes == len(raw)
        assert b.stored_bytes == b.path.stat().st_size < b.bytes
        if a.kind == "index":  # locs name the .gz files; lastmods are publish times
            assert index_locs(b.path) == [loc + ".gz" for loc in index_locs(a.path)]
        else:
            assert raw == a.path.read_bytes()


def test_each_file_declares_exactly_the_namespaces_it_uses(tmp_path: Path) -> None:
    entries = [UrlEntry("https://example.com/a", images=(Image("https://e.com/i.png"),)),
               UrlEntry("https://example.com/b"),
               UrlEntry("https://example.com/c", alternates=(Alternate("en", "https://example.com/c"),))]
    write_sitemaps(entries, tmp_path, BASE, max_urls=2)
    first = (tmp_path / "sitemap-1-1.xml").read_text().split("\n")[1]
    second = (tmp_path / "sitemap-1-2.xml").read_text().split("\n")[1]
    assert re.findall(r"xmlns:(\w+)", first) == ["image"]
    assert re.findall(r"xmlns:(\w+)", second) == ["xhtml"]
    for name in ("sitemap-1-1.xml", "sitemap-1-2.xml"):
        data = (tmp_path / name).read_bytes()
        assert_valid(data)
        assert data.count(b"xmlns:") == 1


def test_news_sitemaps_roll_at_1000_news_entries(tmp_path: Path) -> None:
    news = News("The Times", "en", "2024-05-01", "Title")

    def entries() -> Iterator[UrlEntry]:
        for i in range(1_001):
            yield UrlEntry(f"https://example.com/n/{i}", news=news)
            if i % 2:
                yield UrlEntry(f"https://example.com/other/{i}")

    m = write_sitemaps(entries(), tmp_path, BASE)
    assert [f.news for f in m.sitemaps] == [1000, 1]
    assert m.sitemaps[0].urls > 1000
    assert_valid(m.sitemaps[1].path.read_bytes())


def _snapshot(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}


def test_exception_mid_write_leaves_the_previous_set_untouched(tmp_path: Path) -> None:
    write_sitemaps(urls(25), tmp_path, BASE, max_urls=10, formats=("xml", "txt", "html"), xsl="default")
    before = _snapshot(tmp_path)

    class Boom(Exception):
        pass

    def failing() -> Iterator[UrlEntry]:
        yield from urls(35, start=100)
        raise Boom

    with pytest.raises(Boom):
        write_sitemaps(failing(), tmp_path, BASE, max_urls=10, formats=("xml", "txt", "html"))
    assert _snapshot(tmp_path) == before
    assert sorted(before) == names(tmp_path)  # no temp directory left behind


def test_invalid_entry_in_write_sitemaps_aborts_cleanly(tmp_path: Path) -> None:
    def entries() -> Iterator[UrlEntry]:
        yield UrlEntry("https://example.com/ok")
        yield UrlEntry("https://example.com/x", alternates=(Alternate("bad tag", "https://example.com/y"),))

    with pytest.raises(InvalidEntryError):
        write_sitemaps(entries(), tmp_path, BASE)
    assert names(tmp_path) == []


def test_stale_files_of_a_larger_run_are_removed_but_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "robots.txt").write_text("User-agent: *\n")
    (tmp_path / "sitemap-9.xml").write_text("not ours")  # looks like ours, but no manifest listed it
    first = write_sitemaps(urls(25), tmp_path, BASE, max_urls=10, gzip=True)
    assert {f.path.name for f in first.files} == {"sitemap-1-1.xml.gz", "sitemap-1-2.xml.gz",
                                                  "sitemap-1-3.xml.gz", "sitemap.xml.gz"}
    second = write_sitemaps(urls(5), tmp_path, BASE, max_urls=10)
    assert names(tmp_path) == [MANIFEST_NAME, "robots.txt", "sitemap-9.xml", "sitemap.xml"]
    assert sorted(p.name for p in second.removed) == ["sitemap-1-1.xml.gz", "sitemap-1-2.xml.gz",
                                                      "sitemap-1-3.xml.gz", "sitemap.xml.gz"]
    assert json.loads((tmp_path / MANIFEST_NAME).read_text())["files"] == ["sitemap.xml"]


def test_empty_set_is_an_error_and_keeps_the_previous_set(tmp_path: Path) -> None:
    write_sitemaps(urls(3), tmp_path, BASE)
    before = _snapshot(tmp_path)
    with pytest.raises(PublishError, match="at least one URL"):
        write_sitemaps([], tmp_path, BASE)
    assert _snapshot(tmp_path) == before
    assert sorted(before) == names(tmp_path)


@pytest.mark.parametrize("kwargs", [
    {"max_urls": 50_001}, {"max_urls": 0}, {"max_bytes": 52_428_801}, {"max_news": 1_001},
    {"formats": ("pdf",)}, {"gzip_level": 12}, {"basename": "../x"},
])
def test_limits_can_be_lowered_never_raised(tmp_path: Path, kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        SitemapSetWriter(tmp_path, BASE, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("base", ["example.com/", "ftp://example.com/", "https://example.com/?q=1"])
def test_base_url_must_be_absolute_http(tmp_path: Path, base: str) -> None:
    with pytest.raises(ConfigurationError):
        SitemapSetWriter(tmp_path, base)


def test_sitemap_refs_are_refused(tmp_path: Path) -> None:
    with SitemapSetWriter(tmp_path, BASE) as w:
        with pytest.raises(InvalidEntryError, match="nested"):
            w.add(SitemapRef("https://example.com/other.xml"))  # type: ignore[arg-type]
        w.add(UrlEntry("https://example.com/"))


def test_dedupe_and_scope_warnings(tmp_path: Path) -> None:
    entries = [UrlEntry("https://example.com/a"), UrlEntry("https://example.com/a"),
               UrlEntry("https://other.example/b")]
    m = write_sitemaps(entries, tmp_path, BASE, dedupe=True)
    assert m.urls == 2
    assert m.duplicates == 1
    assert sorted(p.code for p in m.problems) == ["SM606", "SM607"]
    assert len(read_back((tmp_path / "sitemap.xml").read_bytes())) == 2


def test_a_second_concurrent_writer_is_refused(tmp_path: Path) -> None:
    with SitemapSetWriter(tmp_path, BASE) as w:
        w.add(UrlEntry("https://example.com/"))
        with pytest.raises(PublishError, match="another"):
            SitemapSetWriter(tmp_path, BASE).__enter__()
    assert (tmp_path / "sitemap.xml").exists()


def test_default_xsl_is_written_referenced_and_renders_both_kinds(tmp_path: Path) -> None:
    m = write_sitemaps(urls(3), tmp_path, BASE, max_urls=2, xsl="default")
    assert (tmp_path / "sitemap.xsl").exists()
    transform = etree.XSLT(etree.parse(str(tmp_path / "sitemap.xsl")))
    for name, expect in (("sitemap.xml", "sitemap-1-2.xml"), ("sitemap-1-1.xml", "https://example.com/p/1")):
        text = (tmp_path / name).read_text()
        assert '<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>' in text
        html = str(transform(etree.parse(str(tmp_path / name))))
        assert expect in html
        assert "<table>" in html
    assert next(f.kind for f in m.files) == "xsl"


def test_html_and_text_formats_split_with_a_page_list(tmp_path: Path) -> None:
    m = write_sitemaps(urls(5), tmp_path, BASE, max_urls=2, formats=("html", "txt"), gzip=True)
    assert names(tmp_path) == sorted([MANIFEST_NAME, "sitemap-1-1.html", "sitemap-1-2.html", "sitemap-1-3.html",
                                      "sitemap-1-1.txt.gz", "sitemap-1-2.txt.gz", "sitemap-1-3.txt.gz",
                                      "sitemap-txt.xml.gz", "sitemap.html"])
    pages = (tmp_path / "sitemap.html").read_text()
    assert all(f'href="sitemap-1-{i}.html"' in pages for i in (1, 2, 3))
    assert gzip.decompress((tmp_path / "sitemap-1-3.txt.gz").read_bytes()) == b"https://example.com/p/4\n"
    text_index = gzip.decompress((tmp_path / "sitemap-txt.xml.gz").read_bytes()).decode()
    assert all(f"<loc>https://example.com/sitemap-1-{i}.txt.gz</loc>" in text_index for i in (1, 2, 3))
    assert m.entry_point is None or m.entry_point.name == "sitemap.html" or m.entry_point.suffix


def test_manifest_to_dict(tmp_path: Path) -> None:
    m = write_sitemaps(urls(3), tmp_path, BASE)
    d = m.to_dict()
    assert d["urls"] == 3
    assert d["files"][0]["url"] == "https://example.com/sitemap.xml"
    assert d["files"][0]["bytes"] == (tmp_path / "sitemap.xml").stat().st_size


def test_write_sitemaps_takes_every_option_of_the_set_writer(tmp_path: Path) -> None:
    """write_sitemaps mirrors SitemapSetWriter's keywords one to one (same names, same defaults)."""
    import inspect

    from sitemapkit import SitemapSetWriter
    from sitemapkit.write import write_sitemaps

    writer = {k: p.default for k, p in inspect.signature(SitemapSetWriter.__init__).parameters.items() if k != "self"}
    func = {k: p.default for k, p in inspect.signature(write_sitemaps).parameters.items() if k != "entries"}
    assert func == writer
    write_sitemaps([UrlEntry("https://example.com/a")], tmp_path, "https://example.com/", formats=("html",),
                   html_title="Our pages")
    assert "<title>Our pages</title>" in (tmp_path / "sitemap.html").read_text(encoding="utf-8")
