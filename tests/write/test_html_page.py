"""The HTML sitemap is the page it always was: byte for byte the golden page written before it moved to a template
(write/templates/sitemap.html), with quotes, markup characters and percent escapes in its values; its escaping and
its refusal of characters a page cannot carry; rolled files keep room for the page's closing tags."""

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
    assert '<h2>https://example.com/it&apos;s/</h2>' in page
    assert "&#39;" not in page
    assert "&#34;" not in page


def test_a_title_a_page_cannot_carry_is_refused() -> None:
    with pytest.raises(InvalidEntryError, match="U\\+0001"):
        HtmlWriter(io.BytesIO(), title="Site\x01map")


@pytest.mark.parametrize("limit", [1_500, 2_000, 4_000])
def test_rolled_html_files_stay_under_max_bytes(tmp_path: Path, limit: int) -> None:
    urls = [UrlEntry(f"https://example.com/section-{i // 3}/page-{i}?ref=a&x='{i}'", "2024-05-01") for i in range(60)]
    write_sitemaps(urls, tmp_path, "https://example.com/", formats=("html",), max_bytes=limit)
    pages = sorted(tmp_path.glob("sitemap-*.html"))
    assert len(pages) > 1
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert len(text.encode("utf-8")) <= limit, page.name
        assert text.endswith("</ul>\n</section>\n</body>\n</html>\n"), page.name
    assert sum(p.read_text(encoding="utf-8").count("<li>") for p in pages) == 60
