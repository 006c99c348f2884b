"""Unit tests of the pure checks, the XSD batching, the hreflang store, the docs table and the library API."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemapkit.validate import Profile, validate_bytes
from sitemapkit.validate._checks import (
    check_changefreq,
    check_hreflang_value,
    check_lastmod,
    check_loc,
    check_news_language,
    check_priority,
    is_placeholder_host,
    scope_of,
)
from sitemapkit.validate._hreflang import HreflangStore
from sitemapkit.validate._xml import XSD_BATCH

NOW = datetime(2026, 1, 1, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]


def codes(found: object) -> list[str]:
    return [c.code for c, _ in found]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("raw", "expected"), [
    ("https://www.shop.de/a?b=1&c=2", []),
    ("https://www.shop.de/%C3%A4", []),
    ("  https://www.shop.de/a ", ["SM304"]),
    ("https://www.shop.de/a b", ["SM303"]),
    ("https://www.shop.de/ä", ["SM303"]),
    ("https://www.shop.de/50%", ["SM303"]),
    ("https://www.shop.de/a#x", ["SM305"]),
    ("/relative", ["SM301"]),
    ("//cdn.shop.de/a", ["SM301"]),
    ("ftp://shop.de/a", ["SM301"]),
    ("None", ["SM301"]),  # the literal None is not a URL: an error (SM307 is a warning)
    ("null", ["SM301"]),
    ("http://127.0.0.1:8000/", ["SM307"]),
    ("https://blog.local/", ["SM307"]),
    ("https://www.example.com/", ["SM307"]),
    ("https://yoursite.com/", ["SM307"]),
    ("https://www.shop.de/c%C3%83%C2%A8pe", ["SM310"]),
    ("https://www.shop.de/cÃ¨pe", ["SM303", "SM310"]),
    ("https://www.shop.de/{{ page.url }}", ["SM213"]),
    ("https://www.shop.de/" + "a" * 2028, ["SM302"]),  # 2,048 characters: the prose says "less than"
    ("https://www.shop.de/" + "a" * 2027, []),
])
def test_check_loc(raw: str, expected: list[str]) -> None:
    _, found = check_loc(raw)
    assert sorted(codes(found)) == sorted(expected)


def test_placeholder_hosts() -> None:
    assert is_placeholder_host("LOCALHOST")
    assert is_placeholder_host("127.1.2.3")
    assert not is_placeholder_host("examples.com")
    assert not is_placeholder_host("www.shop.de")


@pytest.mark.parametrize(("raw", "expected"), [
    ("2024-05-01", []),
    ("2024-05-01T10:00:00+02:00", []),
    ("2024-05-01T10:00:00.5Z", []),
    ("2024-05-01T10:00:00", ["SM321"]),
    ("2024-05-01T10:00Z", ["SM322"]),
    ("2024", ["SM322"]),
    ("2024-13-01", ["SM320"]),
    ("01/05/2024", ["SM320"]),
    ("2026-01-02", ["SM323"]),
    ("2026-01-01T10:00:00+00:00", ["SM323"]),
    ("2026-01-01", []),  # today somewhere on earth
])
def test_check_lastmod(raw: str, expected: list[str]) -> None:
    _, found = check_lastmod(raw, NOW)
    assert codes(found) == expected


def test_lastmod_invalid_suggests_the_w3c_form() -> None:
    _, found = check_lastmod("2024-05-01 10:00:00+0200", NOW)
    assert "did you mean 2024-05-01T10:00:00+02:00" in found[0][1]


def test_changefreq_and_priority() -> None:
    assert check_changefreq(" weekly ") == []
    assert "lowercase" in check_changefreq("Weekly")[0][1]
    assert codes(check_changefreq("fortnightly")) == ["SM325"]
    for ok in ("0", "0.0", "1", "1.0", ".5", "0.85"):
        assert check_priority(ok) == [], ok
    for bad in ("1.1", "-0.1", "high", "", "1e-1"):
        assert codes(check_priority(bad)) == ["SM326"], bad


@pytest.mark.parametrize(("value", "ok"), [
    ("en", True), ("en-GB", True), ("zh-Hant-TW", True), ("es-419", True), ("x-default", True), ("X-Default", True),
    ("en_US", False), ("en-UK", False), ("english", False), ("default", False), ("us", False), ("qq", False),
])
def test_hreflang_values(value: str, ok: bool) -> None:
    assert (check_hreflang_value(value) == ()) is ok


def test_hreflang_messages_name_the_fix() -> None:
    assert "use GB" in check_hreflang_value("en-uk")[0][1]
    assert "hyphen" in check_hreflang_value("de_AT")[0][1]
    assert "x-default" in check_hreflang_value("default")[0][1]


def test_news_language() -> None:
    for ok in ("en", "zh-cn", "ZH-TW", "ast"):
        assert check_news_language(ok) == [], ok
    for bad in ("english", "e", "en-us"):
        assert codes(check_news_language(bad)) == ["SM423"], bad


def test_scope() -> None:
    scope = scope_of("https://www.shop.de:8443/catalog/sitemap.xml")
    assert scope is not None
    assert scope.contains("https://www.shop.de:8443/catalog/a")
    assert not scope.contains("https://www.shop.de/catalog/a")
    assert not scope.contains("https://www.shop.de:8443/other/a")


def _urlset(n: int, bad_at: int) -> bytes:
    urls = []
    for i in range(n):
        prio = "<priority>2</priority>" if i == bad_at else ""
        fam = "<video:video><video:thumbnail_loc>https://www.shop.de/t.jpg</video:thumbnail_loc><video:title>t" \
              "</video:title><video:description>d</video:description><video:content_loc>https://www.shop.de/v.mp4" \
              "</video:content_loc><video:family_friendly>maybe</video:family_friendly></video:video>" \
            if i == bad_at + 1 else ""
        urls.append(f"<url><loc>https://www.shop.de/p{i}</loc>{prio}{fam}</url>\n")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
            'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">\n' + "".join(urls) + "</urlset>\n"
            ).encode()


@pytest.mark.parametrize("chunk", [1 << 20, 4096, 977])
def test_xsd_errors_keep_exact_lines_across_batches(chunk: int) -> None:
    n = XSD_BATCH * 2 + 10
    bad_at = XSD_BATCH + 3  # in the second batch
    data = _urlset(n, bad_at)
    from sitemapkit.validate._context import RunOptions
    from sitemapkit.validate._driver import _new_context, _run_stream

    ctx = _new_context("<test>", None, RunOptions(Profile.GOOGLE, NOW, False), None)
    _run_stream(ctx, (data[i:i + chunk] for i in range(0, len(data), chunk)))
    found = sorted((p.location.line, p.code) for p in ctx.problems)
    # priority 2 on line bad_at + 3 (rule check SM326, the XSD duplicate dropped); family_friendly on the next.
    assert found == [(bad_at + 3, "SM326"), (bad_at + 4, "SM204")]
    assert ctx.entries == n


def test_validate_bytes_and_report_api() -> None:
    data = _urlset(3, 0)
    report = validate_bytes(data, source="mem.xml", sitemap_url="https://www.shop.de/sitemap.xml",
                            profile="sitemaps", now=NOW)
    assert not report.valid
    assert report.codes() == ["SM204", "SM326"]
    assert report.files[0].entries == 3
    assert report.to_dict()["valid"] is False
    assert report.passes() is False


def test_hreflang_store_finds_one_way_links(tmp_path: Path) -> None:
    with HreflangStore(str(tmp_path)) as store:
        store.add_link("https://s/en", "https://s/de", "de", "a.xml", 3)
        store.add_link("https://s/de", "https://s/en", "en", "b.xml", 4)
        store.add_link("https://s/en", "https://s/fr", "fr", "a.xml", 5)  # fr is a page without alternates
        store.add_page("https://s/fr")
        store.add_link("https://s/en", "https://elsewhere/it", "it", "a.xml", 6)  # not in the set: unknown
        found = list(store.non_reciprocal())
        assert [(f.page, f.target, f.line) for f in found] == [("https://s/en", "https://s/fr", 5)]
    assert list(tmp_path.iterdir()) == []  # the scratch file is gone


def test_checks_doc_is_up_to_date() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_checks_doc.py"), "--check"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    assert "| SM433 | error | google |" in text


@pytest.mark.parametrize("limit", [2, 3, 100_000])
def test_hreflang_store_spills_in_bounded_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, limit: int) -> None:
    import sitemapkit.validate._hreflang as H

    monkeypatch.setattr(H, "MAX_PENDING_LINKS", limit)
    monkeypatch.setattr(H, "MAX_PAGES_IN_MEMORY", limit)
    with HreflangStore(str(tmp_path)) as store:
        for page in ("https://s/en", "https://s/de", "https://s/fr"):
            store.add_page(page)
        store.add_link("https://s/en", "https://s/de", "de", "a.xml", 1)
        store.add_link("https://s/en", "https://s/fr", "fr", "a.xml", 2)
        store.add_link("https://s/de", "https://s/en", "en", "a.xml", 3)
        store.add_link("https://s/de", "https://s/en", "x-default", "a.xml", 4)  # the same pair again
        store.add_link("https://s/fr", "https://s/de", "de", "a.xml", 5)  # de does not return it
        store.add_link("https://s/fr", "https://s/en", "en", "a.xml", 6)
        found = sorted((f.page, f.target) for f in store.non_reciprocal())
    assert found == [("https://s/fr", "https://s/de")]


def test_possessive_fast_url_accepts_the_same_language() -> None:
    import re

    from sitemapkit.validate._checks import FAST_URL
    from tests.read.test_fast_paths import _mutants

    chars = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*"
    plain = re.compile(r"(https?)://([A-Za-z0-9.\-]+)(?::([0-9]{1,5}))?((?:[/?]" + chars + r"(?:%[0-9A-Fa-f]{2}"
                       + chars + r")*)?)")
    texts = _mutants("https://a-b.example.com:8080/p%41th/x;y?q=1&r=%zz", "a9-._~!$&'()*+,;=:@/?#% é[]0123456789",
                     20000, 7)
    for s in texts:
        got, want = FAST_URL(s), plain.fullmatch(s)
        assert (got is None) == (want is None), s
        if got is not None and want is not None:
            assert got.groups() == want.groups(), s
