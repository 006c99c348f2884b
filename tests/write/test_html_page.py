"""The HTML sitemap page: byte for byte the golden page (write/templates/sitemap.html: sections by first path
segment, a search box), with quotes, markup characters and percent escapes in its values; its escaping and its
refusal of characters a page cannot carry; rolled files keep room for the page's closing tags; page titles as link
texts; its size at 50,000 URLs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sitemapkit import InvalidEntryError, UrlEntry
from sitemapkit.write import HtmlWriter, write_sitemaps

GOLDEN = Path(__file__).parent / "golden" / "sitemap.html"
TITLE = "Pages of <Example> & 'co' \"x\""


def entries() -> list[UrlEntry]:
    return [
        UrlEntry("https://example.com/", "2024-05-01"),
        UrlEntry("https://example.com/a?x=1&y=<2>", "2024-05-02T10:00:00Z"),
        UrlEntry("https://example.com/it's/%22q%22/page"),
        UrlEntry("https://example.com/it's/caf%C3%A9"),
        UrlEntry("https://example.com/blog/a%01b"),
        UrlEntry("https://example.com/blog/b?q='1'&r=%3Ctag%3E", "2024-05-03T10:00:00+02:00"),
    ]


def render(sink: io.BytesIO) -> None:
    with HtmlWriter(sink, title=TITLE) as w:
        for entry in entries():
            w.write(entry)
        w.write_links([("Page 1", "sitemap-1.html"), ("It's <2>", "sitemap-2.html?a=1&b='2'")], heading="More")


def test_the_page_is_byte_for_byte_the_golden_one() -> None:
    sink = io.BytesIO()
    render(sink)
    assert sink.getvalue() == GOLDEN.read_bytes()


def test_quotes_keep_their_xml_entities() -> None:
    sink = io.BytesIO()
    render(sink)
    page = sink.getvalue().decode()
    assert "<title>Pages of &lt;Example&gt; &amp; &apos;co&apos; &quot;x&quot;</title>" in page
    assert "<h2>/it&apos;s/ <small>(2)</small></h2>" in page
    assert "&#39;" not in page
    assert "&#34;" not in page


def test_a_title_a_page_cannot_carry_is_refused() -> None:
    with pytest.raises(InvalidEntryError, match="U\\+0001"):
        HtmlWriter(io.BytesIO(), title="Site\x01map")


@pytest.mark.parametrize("limit", [4_000, 5_000, 8_000])
def test_rolled_html_files_stay_under_max_bytes(tmp_path: Path, limit: int) -> None:
    urls = [UrlEntry(f"https://example.com/section-{i // 3}/page-{i}?ref=a&x='{i}'", "2024-05-01") for i in range(60)]
    write_sitemaps(urls, tmp_path, "https://example.com/", formats=("html",), max_bytes=limit)
    pages = sorted(tmp_path.glob("sitemap-*.html"))
    assert len(pages) > 1
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert len(text.encode("utf-8")) <= limit, page.name
        assert text.endswith("</script></body></html>"), page.name
    assert sum(p.read_text(encoding="utf-8").count("<li><a href=\"/section-") for p in pages) == 60


def test_titles_site_name_relative_links_and_search_box(tmp_path: Path) -> None:
    titles = {"https://example.com/blog/a": "A post about <tags> & more", "https://example.com/x": "Bad\x01title"}
    write_sitemaps([UrlEntry("https://example.com/blog/a"), UrlEntry("https://example.com/x"),
                    UrlEntry("https://example.com/blog/b")], tmp_path, "https://example.com/", formats=("html",),
                   page_titles=titles.get)
    page = (tmp_path / "sitemap.html").read_text(encoding="utf-8")
    assert "<title>Site map – example.com</title>" in page  # named after the site
    assert '<a href="/blog/a">A post about &lt;tags&gt; &amp; more</a>' in page  # the title, root-relative
    assert '<a href="/x">/x</a>' in page  # a title the page cannot carry: the path
    assert '<a href="/blog/b">/blog/b</a>' in page
    # The search box has a label and stays hidden until its script shows it: without JavaScript, every link.
    assert '<form id="find" role="search" hidden><label for="find-q">Search this site map</label>' in page
    assert '<input id="find-q" type="search"' in page
    assert "form.hidden = false" in page


def test_fifty_thousand_urls_stay_small(tmp_path: Path) -> None:
    from lxml import html as lxml_html

    sections = ["blog", "shop", "docs", "news", "help", "about", "products", "category", "tag", "author"]
    entries = (UrlEntry(f"https://www.example-shop.com/{sections[i % 10]}/{i // 10 % 500}/item-{i}-some-slug-words",
                        "2024-05-01") for i in range(50_000))
    write_sitemaps(entries, tmp_path, "https://www.example-shop.com/", formats=("html",))
    data = (tmp_path / "sitemap.html").read_bytes()
    root = lxml_html.fromstring(data)
    elements = sum(1 for _ in root.iter())
    texts = sum(1 for e in root.iter() for t in (e.text, e.tail) if t is not None)
    # Before: 12.6 MB and 750,000 nodes for these URLs (a heading per directory, a <time> and a line break per
    # link). Now three nodes a URL (li, a, text) and root-relative links.
    assert len(data) < 5_000_000
    assert elements + texts < 151_000
    assert len(root.findall(".//section")) == 10


def test_generate_from_a_site_folder_links_pages_by_title(tmp_path: Path) -> None:
    from tests.support.cli import run_cli

    site = tmp_path / "site"
    (site / "blog").mkdir(parents=True)
    (site / "index.html").write_text("<html><head><title>Kiwi  Shop</title></head><body>x</body></html>")
    (site / "blog" / "first.html").write_text("<html><head><title>First post</title></head><body>x</body></html>")
    (site / "blog" / "untitled.html").write_text("<html><body>x</body></html>")
    res = run_cli(["generate", site, "-o", tmp_path / "out", "--base-url", "https://kiwi.example/",
                   "--format", "html"])
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "out" / "sitemap.html").read_text(encoding="utf-8")
    assert "<title>Site map – kiwi.example</title>" in page
    assert '<a href="/">Kiwi Shop</a>' in page
    assert '<a href="/blog/first.html">First post</a>' in page
    assert '<a href="/blog/untitled.html">/blog/untitled.html</a>' in page
    assert "<h2>/blog/ <small>(2)</small></h2>" in page


def test_each_page_of_a_split_links_to_the_page_list(tmp_path: Path) -> None:
    write_sitemaps((UrlEntry(f"https://example.com/p/{i}") for i in range(5)), tmp_path / "split",
                   "https://example.com/", formats=("html",), max_urls=2)
    pages = sorted((tmp_path / "split").glob("sitemap-*.html"))
    assert len(pages) == 3
    for page in pages:
        assert '<h2>More pages</h2><ul><li><a href="sitemap.html">All pages of this site map</a>' in page.read_text()
    index = (tmp_path / "split" / "sitemap.html").read_text()
    assert all(f'href="{p.name}"' in index for p in pages)
    write_sitemaps([UrlEntry("https://example.com/")], tmp_path / "one", "https://example.com/", formats=("html",))
    assert "More pages" not in (tmp_path / "one" / "sitemap.html").read_text()


def test_the_search_script_is_the_one_the_web_app_allows_by_hash() -> None:
    import base64
    import hashlib
    import re

    from sitemapkit.write import html_script_hashes

    sink = io.BytesIO()
    render(sink)
    scripts = re.findall(r"<script>(.*?)</script>", sink.getvalue().decode(), re.S)
    assert [base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in scripts] == html_script_hashes()
    pytest.importorskip("starlette")
    from sitemapkit.web._api import FILE_CSP

    assert f"'sha256-{html_script_hashes()[0]}'" in FILE_CSP
