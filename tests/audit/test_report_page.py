"""audit.html is byte for byte the golden page (audit/templates/audit.html; the goldens were written again when
issue 24 embedded every finding as JSON for the page's table script and gave categories names and severities),
with a sample's rates, every kind of value (quotes, markup characters, no sitemap,
no line) and a category with more findings than its table shows."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sitemapkit.audit import _report
from sitemapkit.audit._findings import Finding
from sitemapkit.audit._run import AuditResult
from sitemapkit.audit._store import AuditStore

GOLDEN = Path(__file__).parent / "golden"
SITE = "https://example.com/"


def build(path: Path, *, sample: int | None) -> AuditResult:
    store = AuditStore(path)
    store.add(Finding(SITE + "gone?a=1&b='2'", "not_found", SITE + "sitemap.xml", 3, "HTTP 404"))
    store.add(Finding(SITE + "moved", "redirect", SITE + "sitemap.xml", 4, 'redirects to "/new" (301)'))
    store.add(Finding(SITE + "<odd>", "noindex", None, None, "<meta name=\"robots\" content='noindex'>"))
    for i in range(4):
        store.add(Finding(f"{SITE}dup-{i}", "duplicate", SITE + "sitemap-2.xml", 10 + i, "listed twice"))
    return AuditResult(site=SITE, sitemaps=[], sitemap_urls=1234, crawled=56, checked=78, store=store,
                       sample=sample)


@pytest.mark.parametrize(("name", "sample"), [("audit.html", None), ("audit-sample.html", 100)])
def test_audit_html_is_byte_for_byte_the_golden_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                                     sample: int | None) -> None:
    monkeypatch.setattr(_report, "HTML_ROWS", 2)
    result = build(tmp_path / "audit.sqlite", sample=sample)
    try:
        out = io.StringIO()
        _report._write_html(result, out)
    finally:
        result.close()
    assert out.getvalue().encode("utf-8") == (GOLDEN / name).read_bytes()


def test_an_audit_without_findings(tmp_path: Path) -> None:
    result = AuditResult(site=SITE, sitemaps=[], sitemap_urls=0, crawled=0, checked=0,
                         store=AuditStore(tmp_path / "audit.sqlite"))
    try:
        out = io.StringIO()
        _report._write_html(result, out)
    finally:
        result.close()
    page = out.getvalue()
    assert '<p class="muted">No findings.</p>' in page
    assert '<section class="cat"' not in page
    assert page.endswith("</script></body></html>\n")
