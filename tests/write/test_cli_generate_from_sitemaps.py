"""`sitemapkit generate` given sitemaps and feeds as input: read through the reader with every extension kept;
an index with its sitemaps from its folder; HTML refused in one line; repeated diagnostics capped per code."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitemapkit import InputError, read_file
from sitemapkit.write import iter_input
from tests.support.cli import CliResult, run_cli

BASE = "https://www.kitsite.org/"

URLSET = """<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment before the root -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://www.kitsite.org/en/caf%C3%A9?a=1&amp;b=2</loc>
    <lastmod>2024-05-01T10:00:00+02:00</lastmod>
    <changefreq>weekly</changefreq>
    <priority>0.8</priority>
    <xhtml:link rel="alternate" hreflang="en" href="https://www.kitsite.org/en/caf%C3%A9?a=1&amp;b=2"/>
    <xhtml:link rel="alternate" hreflang="de" href="https://www.kitsite.org/de/cafe"/>
    <image:image><image:loc>https://www.kitsite.org/img/1.png</image:loc></image:image>
    <image:image><image:loc>https://www.kitsite.org/img/2.png</image:loc></image:image>
  </url>
  <url>
    <loc>https://www.kitsite.org/video</loc>
    <video:video>
      <video:thumbnail_loc>https://www.kitsite.org/t.jpg</video:thumbnail_loc>
      <video:title>Grilling steaks</video:title>
      <video:description>How to grill steaks</video:description>
      <video:content_loc>https://www.kitsite.org/v.mp4</video:content_loc>
      <video:duration>600</video:duration>
    </video:video>
  </url>
  <url>
    <loc>https://www.kitsite.org/news/1</loc>
    <news:news>
      <news:publication><news:name>Kit News</news:name><news:language>en</news:language></news:publication>
      <news:publication_date>2024-05-02</news:publication_date>
      <news:title>Something happened</news:title>
    </news:news>
  </url>
</urlset>
"""


def run(*args: str, stdin: bytes | None = None) -> CliResult:
    return run_cli(["generate", *args], input=stdin)


def urlset(*locs: str) -> str:
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'


def test_an_xml_urlset_is_read_with_every_extension(tmp_path: Path) -> None:
    src = tmp_path / "old-sitemap.xml"
    src.write_text(URLSET, encoding="utf-8")
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", BASE)
    assert res.returncode == 0, res.stderr
    assert "relative URL" not in res.stderr
    assert "Wrote 3 URLs" in res.stdout
    before = read_file(src)
    after = read_file(out / "sitemap.xml")
    assert before.ok, before.problems
    assert after.ok, after.problems
    assert len(before.entries) == 3
    # Everything the reader saw in the input is in the output: alternates, images, video, news, dates.
    assert after.entries == before.entries
    first = after.entries[0]
    assert [a.hreflang for a in first.alternates] == ["en", "de"]
    assert [i.loc for i in first.images] == ["https://www.kitsite.org/img/1.png", "https://www.kitsite.org/img/2.png"]
    assert after.entries[1].videos[0].duration == 600
    assert after.entries[2].news is not None
    assert after.entries[2].news.title == "Something happened"


def test_a_gzipped_sitemap_on_standard_input_is_read(tmp_path: Path) -> None:
    out = tmp_path / "out"
    data = gzip.compress(URLSET.encode("utf-8"))
    res = run("-", "--out", str(out), "--base-url", BASE, stdin=data)
    assert res.returncode == 0, res.stderr
    assert [e.loc for e in read_file(out / "sitemap.xml").entries] == [
        "https://www.kitsite.org/en/caf%C3%A9?a=1&b=2", "https://www.kitsite.org/video",
        "https://www.kitsite.org/news/1"]


def test_include_and_exclude_apply_to_sitemap_input(tmp_path: Path) -> None:
    src = tmp_path / "in.xml"
    src.write_text(URLSET, encoding="utf-8")
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", BASE, "--exclude-path", "/news/*")
    assert res.returncode == 0, res.stderr
    assert [e.loc for e in read_file(out / "sitemap.xml").entries] == [
        "https://www.kitsite.org/en/caf%C3%A9?a=1&b=2", "https://www.kitsite.org/video"]


def test_an_index_is_read_with_its_sitemaps_from_its_folder(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitemap-1.xml").write_text(urlset(f"{BASE}a", f"{BASE}b"), encoding="utf-8")
    (site / "sitemap-2.xml.gz").write_bytes(gzip.compress(urlset(f"{BASE}c").encode()))
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{BASE}sitemap-1.xml</loc></sitemap>\n"
        f"<sitemap><loc>{BASE}sitemap-2.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        f"<sitemap><loc>{BASE}sitemaps/missing.xml</loc></sitemap>\n"
        "</sitemapindex>", encoding="utf-8")
    out = tmp_path / "out"
    res = run(str(site / "sitemap.xml"), "--out", str(out), "--base-url", BASE)
    # The children that are there are read in index order; the one that is not is one error naming it.
    assert [e.loc for e in read_file(out / "sitemap.xml").entries] == [f"{BASE}a", f"{BASE}b", f"{BASE}c"]
    errors = [line for line in res.stderr.splitlines() if "SM612" in line]
    assert len(errors) == 1, res.stderr
    assert f"{site / 'sitemap.xml'}:3: error SM612: {BASE}sitemaps/missing.xml not read: no file 'missing.xml'" \
        in errors[0]
    assert res.returncode == 1
    assert "Traceback" not in res.stderr


def test_an_index_on_standard_input_says_why_its_sitemaps_are_not_read(tmp_path: Path) -> None:
    index = ('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             f"<sitemap><loc>{BASE}sitemap-1.xml</loc></sitemap></sitemapindex>")
    res = run("-", "--out", str(tmp_path / "out"), "--base-url", BASE, stdin=index.encode())
    assert res.returncode == 1
    assert "error SM612" in res.stderr
    assert "give the index as a file" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("feed", [
    """<?xml version="1.0"?><rss version="2.0"><channel><title>Kit</title>
    <item><title>One</title><link>https://www.kitsite.org/posts/1</link>
    <pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate></item>
    <item><title>Two</title><link>https://www.kitsite.org/posts/2</link></item>
    </channel></rss>""",
    """<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Kit</title>
    <entry><title>One</title><link href="https://www.kitsite.org/posts/1"/><updated>2024-05-01T10:00:00Z</updated>
    </entry><entry><title>Two</title><link href="https://www.kitsite.org/posts/2"/>
    <updated>2024-05-02T10:00:00Z</updated></entry></feed>""",
], ids=["rss", "atom"])
def test_a_feed_is_read(tmp_path: Path, feed: str) -> None:
    src = tmp_path / "feed.xml"
    src.write_text(feed, encoding="utf-8")
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", BASE)
    assert res.returncode == 0, res.stderr
    entries = read_file(out / "sitemap.xml").entries
    assert [e.loc for e in entries] == [f"{BASE}posts/1", f"{BASE}posts/2"]
    assert entries == read_file(src).entries
    assert entries[0].lastmod is not None
    assert entries[0].lastmod.text.startswith("2024-05-01")


def test_html_input_is_one_error_line_and_nothing_is_published(tmp_path: Path) -> None:
    src = tmp_path / "index.html"
    src.write_text("<!DOCTYPE html>\n<html><head><title>x</title></head><body>\n"
                   + "".join(f'<a href="/p{i}">p{i}</a>\n' for i in range(500)) + "</body></html>\n")
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", BASE)
    assert res.returncode == 1
    assert res.stderr.strip().count("\n") == 0, res.stderr
    assert "is an HTML page, not a URL list or a sitemap" in res.stderr
    assert "site's folder" in res.stderr
    assert not (out / "sitemap.xml").exists()


def test_xml_that_is_no_sitemap_is_one_error_line(tmp_path: Path) -> None:
    src = tmp_path / "data.xml"
    src.write_text('<?xml version="1.0"?>\n<catalog><item>https://www.kitsite.org/a</item></catalog>\n')
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", BASE)
    assert res.returncode == 1
    assert res.stderr.strip().count("\n") == 0, res.stderr
    assert "root <catalog>, not a sitemap" in res.stderr


def test_repeated_line_errors_are_capped_per_code(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text(f"{BASE}ok\n" + "".join(f"page-{i}.html\n" for i in range(100))
                   + "".join(f"https://other.example/{i}\n" for i in range(25)))
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", BASE)
    assert res.returncode == 1
    lines = res.stderr.splitlines()
    sm610 = [line for line in lines if "error SM610" in line]
    sm608 = [line for line in lines if "error SM608" in line]
    assert len(sm610) == 20
    assert len(sm608) == 20
    assert sm610[0].startswith(f"{src}:2: error SM610")
    assert sm610[-1].startswith(f"{src}:21: error SM610")
    assert "… and 80 more SM610 (input line skipped)" in lines
    assert "… and 5 more SM608 (URL on another host than the base URL)" in lines
    assert [line for line in lines if line.startswith("sitemapkit: 125 input line")], lines  # the true count
    assert len(lines) == 20 + 20 + 2 + 1, res.stderr
    assert [e.loc for e in read_file(out / "sitemap.xml").entries] == [f"{BASE}ok"]


def test_the_write_layer_refuses_markup_as_a_url_list(tmp_path: Path) -> None:
    src = tmp_path / "sitemap.xml"
    src.write_text(URLSET, encoding="utf-8")
    with pytest.raises(InputError, match="markup"), src.open("rb") as fh:
        list(iter_input(str(src), plain=fh))
