"""robots.txt: the lenient Sitemap pass over every robots.txt fixture in peer-fixtures, plus protego rules.

Expected lists were written by reading each file (see the comments); the robots.txt URL each file is parsed
against is https://<fixture host>/robots.txt, which matters for the relative ones."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import discover
from sitemapkit.fetch import Discovery, FoundVia, HttpClient, MockResponse, MockTransport, RobotsTxt, TransportRequest
from sitemapkit.fetch._robots import decode_robots, robots_url_for, url_key

PLAYSTATION_LOCALES_WITH_SLASH = {
    "en-au", "de-at", "fr-be", "nl-be", "bg-bg", "hr-hr", "cs-cz", "da-dk", "fi-fi", "fr-fr", "de-de", "el-gr",
    "hu-hu", "en-in", "en-ie", "iw-il", "it-it", "de-lu", "fr-lu", "nl-nl", "en-nz", "no-no", "pl-pl", "pt-pt",
    "ro-ro", "ru-ru", "ar-sa", "sr-rs", "sk-sk", "sl-si", "en-za", "es-es", "sv-se", "de-ch", "fr-ch", "it-ch",
    "tr-tr", "en-ae", "uk-ua", "en-gb",
}
REEBOK = "https://www.reebok.com/on/demandware.static/-/Sites-CustomerFileStore/default/"

# fixture path (under corpus/peer-fixtures) -> (host it was served from, expected sitemaps, codes expected)
CASES: dict[str, tuple[str, list[str], set[str]]] = {
    # no Sitemap line at all; typos in other directives must not produce sitemaps
    "crawler-commons/robots/directive-typos-robots.txt": ("example.com", [], set()),
    "crawler-commons/robots/dos-line-endings.txt": ("example.com", [], set()),
    # "sitemap : /sitemap.xml": space before the colon, relative
    "crawler-commons/robots/format-errors-robots.txt": ("example.com", ["https://example.com/sitemap.xml"],
                                                        {"SM522"}),
    "crawler-commons/robots/relative-sitemap-robots.txt": ("example.com", ["https://example.com/sitemap.xml"],
                                                          {"SM522"}),
    # the same file in three encodings (BOMs): one sitemap each
    "crawler-commons/robots/robots-with-utf16be-bom.txt": ("www.newsweek.com",
                                                          ["http://www.newsweek.com/sitemap_index.xml"], {"SM528"}),
    "crawler-commons/robots/robots-with-utf16le-bom.txt": ("www.newsweek.com",
                                                          ["http://www.newsweek.com/sitemap_index.xml"], {"SM528"}),
    "crawler-commons/robots/robots-with-utf8-bom.txt": ("www.newsweek.com",
                                                       ["http://www.newsweek.com/sitemap_index.xml"], set()),
    # "sitemap:" and "Sitemap:" with the same URL -> one
    "crawler-commons/robots/sitemap-robots-dedup.txt": ("example.org", ["http://example.org/sitemap.xml"],
                                                       {"SM526"}),
    # Sitemap before the group, a bare URL line, a mixed-case URL kept as is
    "crawler-commons/robots/sitemap-robots.txt": ("domain.com", [
        "http://domain.com/sitemap.xml",
        "http://domain.com/dir/my-sitemap.xml",
        "http://domain.com/dir/MixedCased-sitemap.xml",
    ], {"SM525"}),
    "protego/test_data/epson.com": ("epson.com", ["https://epson.com/sitemap.xml"], {"SM522"}),
    # "sitemap http://..." without a colon
    "protego/test_data/www.au.dk": ("www.au.dk", ["http://www.au.dk/sitemap.xml", "http://www.au.dk/sitemap_en.xml"],
                                    {"SM523"}),
    # UTF-8 BOM, then three bare URL lines (one with trailing spaces)
    "protego/test_data/www.fido.ca": ("www.fido.ca", [
        "http://www.fido.ca/sitemap.xml",
        "http://www.fido.ca/product-sitemap.xml",
        "http://www.fido.ca/support-sitemap.xml",
    ], {"SM525"}),
    "protego/test_data/www.mlbshop.com": ("www.mlbshop.com", ["https://www.mlbshop.com/sitemapmlbshopindex.xml"],
                                          {"SM522"}),
    # empty "Sitemap:" with the URL on the next line, four times
    "protego/test_data/www.reebok.com": ("www.reebok.com", [
        REEBOK + "Reebok-MLT/en_GR/sitemaps/Reebok-MLT-sitemap.xml",
        REEBOK + "Reebok-MLT/en_PT/sitemaps/Reebok-MLT-sitemap.xml",
        REEBOK + "Reebok-NO/en_NO/sitemaps/Reebok-NO-sitemap.xml",
        REEBOK + "Reebok-US/en_US/sitemaps/Reebok-US-sitemap.xml",
    ], {"SM524"}),
    "protego/test_data/www.restorationhardware.com": ("www.restorationhardware.com",
                                                      ["https://www.restorationhardware.com/rh-sitemap-index.xml"],
                                                      {"SM522"}),
    # absolute, then "Sitemap: sitemap.xml" which resolves to the same URL -> one
    "protego/test_data/www.stlouisfed.org": ("www.stlouisfed.org", ["https://www.stlouisfed.org/sitemap.xml"],
                                             {"SM522", "SM526"}),
    # "Sitemap: URL # comment"; "Allow: /api/v1/web/play/sitemap" must not be taken for a sitemap
    "protego/test_data/www.tvnz.co.nz": ("www.tvnz.co.nz", [
        "https://www.tvnz.co.nz/system/tvnz/sitemap.xml",
        "https://www.tvnz.co.nz/api/v1/web/play/sitemap",
    ], set()),
    # Sitemap / sitemap / site-map / sItE-mAp
    "usp/robots.txt": ("example.org", [
        "https://example.org/sitemap.xml",
        "https://example.org/weirdly-named-sitemap.xml",
        "https://example.org/another-sitemap.xml",
        "https://example.org/and-another-sitemap.xml",
    ], {"SM521"}),
    "advertools/robots.txt": ("advertools.readthedocs.io", ["https://advertools.readthedocs.io/sitemap.xml"], set()),
}


def _playstation_expected(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if line.startswith("Sitemap:"):
            locale = line.split("/")[3]
            out.append(f"https://www.playstation.com/{locale}/sitemap.xml"
                       + ("/" if locale in PLAYSTATION_LOCALES_WITH_SLASH else ""))
    return out


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_sitemaps_of_each_fixture(shared_dir: Path, fixture: str) -> None:
    host, expected, codes = CASES[fixture]
    data = (shared_dir / "corpus" / "peer-fixtures" / fixture).read_bytes()
    robots = RobotsTxt.parse(data, f"https://{host}/robots.txt")
    assert list(robots.sitemaps) == expected
    assert {p.code for p in robots.problems} == codes


def test_playstation_comments_and_trailing_slashes(shared_dir: Path) -> None:
    data = (shared_dir / "corpus/peer-fixtures/protego/test_data/www.playstation.com").read_bytes()
    robots = RobotsTxt.parse(data, "https://www.playstation.com/robots.txt")
    expected = _playstation_expected(data.decode())
    assert len(expected) == 59
    assert list(robots.sitemaps) == expected
    assert not robots.problems


def test_every_robots_fixture_is_covered(shared_dir: Path) -> None:
    manifest = (shared_dir / "corpus/peer-fixtures/MANIFEST.tsv").read_text("utf-8").splitlines()
    robots_rows = [line.split("\t")[3] for line in manifest[1:]
                   if "/robots/" in line.split("\t")[3] or "protego/test_data" in line.split("\t")[3]
                   or line.split("\t")[3].endswith("robots.txt")]
    assert set(robots_rows) <= set(CASES) | {"protego/test_data/www.playstation.com"}
    assert len(robots_rows) >= 20


def test_rules_come_from_protego() -> None:
    robots = RobotsTxt.parse("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n\nUser-agent: bot\nDisallow: /\n",
                             "https://ex.com/robots.txt")
    assert robots.can_fetch("https://ex.com/public", "sitemapkit")
    assert not robots.can_fetch("https://ex.com/private/x", "sitemapkit")
    assert not robots.can_fetch("https://ex.com/anything", "bot")
    assert robots.crawl_delay("sitemapkit") == 2.0


def test_sitemap_line_does_not_end_a_group() -> None:
    # RFC 9309: a Sitemap record MUST NOT terminate a group
    robots = RobotsTxt.parse("User-agent: bot\nSitemap: https://ex.com/s.xml\nDisallow: /x\n", "https://ex.com/robots.txt")
    assert not robots.can_fetch("https://ex.com/x", "bot")
    assert robots.sitemaps == ("https://ex.com/s.xml",)


@pytest.mark.parametrize(("line", "expected"), [
    ("Sitemap: https://ex.com/a.xml", "https://ex.com/a.xml"),
    ("SITEMAP:https://ex.com/a.xml", "https://ex.com/a.xml"),
    ("site map: https://ex.com/a.xml", "https://ex.com/a.xml"),
    ("Site_Map: https://ex.com/a.xml", "https://ex.com/a.xml"),
    ("sitemaps: https://ex.com/a.xml", "https://ex.com/a.xml"),
    ("  Sitemap :  /a.xml  # comment", "https://ex.com/a.xml"),
    ("Sitemap: https://ex.com/ü.xml", "https://ex.com/%C3%BC.xml"),
    ("Sitemap: ../up/a.xml", "https://ex.com/up/a.xml"),
])
def test_spellings(line: str, expected: str) -> None:
    assert RobotsTxt.parse(line + "\r\n", "https://ex.com/robots.txt").sitemaps == (expected,)


@pytest.mark.parametrize("line", [
    "Sitemap: ftp://ex.com/a.xml", "Sitemap: mailto:x@ex.com", "sitemapindex: https://ex.com/a.xml",
    "Allow: /sitemap.xml", "# Sitemap: https://ex.com/a.xml", "sitemap.xml",
])
def test_not_sitemaps(line: str) -> None:
    assert RobotsTxt.parse(line + "\n", "https://ex.com/robots.txt").sitemaps == ()


def test_empty_directive_without_url_is_reported() -> None:
    robots = RobotsTxt.parse("Sitemap:\nUser-agent: *\nDisallow:\n", "https://ex.com/robots.txt")
    assert robots.sitemaps == ()
    assert [p.code for p in robots.problems] == ["SM529"]
    assert robots.problems[0].location.line == 1


def test_decode_robots_encodings() -> None:
    text = "Sitemap: https://ex.com/a.xml\n"
    assert decode_robots(text.encode("utf-16-le"))[0] == text  # no BOM, detected from the NULs
    assert decode_robots(b"\xef\xbb\xbf" + text.encode())[0] == text
    assert decode_robots("Disallow: /caf\xe9\n".encode("cp1252"))[1] is not None


def test_url_helpers() -> None:
    assert robots_url_for("HTTPS://Ex.com:8443/a/b?c") == "https://Ex.com:8443/robots.txt"
    assert url_key("HTTP://EX.com:80") == url_key("http://ex.com/") == url_key("http://ex.com/#frag")
    assert url_key("http://ex.com/A") != url_key("http://ex.com/a")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    "Sitemap: ", "sitemap ", "site-map:", "User-agent: *", "Disallow: /", "# c", "http://ex.com/s.xml", "/rel.xml",
    "\ufeff", "\r", "\n", "\r\n", " ", ":", "https://ex.com/ü/", "ftp://x", "Allow: /sitemap", "\x00",
]), max_size=30))
def test_lenient_pass_never_fails_and_returns_absolute_unique_urls(parts: list[str]) -> None:
    text = "".join(parts)
    for data in (text, text.encode("utf-8"), text.encode("utf-16")):
        robots = RobotsTxt.parse(data, "https://ex.com/robots.txt")
        assert all(u.startswith(("http://", "https://")) for u in robots.sitemaps)
        assert len({url_key(u) for u in robots.sitemaps}) == len(robots.sitemaps)
        assert all(p.location.source == "https://ex.com/robots.txt" for p in robots.problems)


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_each_fixture_served_through_discover(shared_dir: Path, fixture: str) -> None:
    """The whole discovery path (HttpClient, fetch_robots, seeds) with each fixture served as the site's
    robots.txt by an injected transport (the host must be the fixture's own for relative URLs)."""
    host, expected, _ = CASES[fixture]
    data = (shared_dir / "corpus" / "peer-fixtures" / fixture).read_bytes()

    def handler(req: TransportRequest) -> MockResponse:
        if req.url == f"https://{host}/robots.txt":
            return MockResponse(200, data, {"Content-Type": "text/plain"})
        return MockResponse(404, b"<html>missing</html>", {"Content-Type": "text/html"})

    async def go() -> Discovery:
        async with HttpClient(transport=MockTransport(handler)) as client:
            return await discover(f"https://{host}/", client=client, probe="never")

    found = asyncio.run(go())
    assert found.robots_status == 200
    assert [s.url for s in found.seeds] == expected
    assert all(s.found_via is FoundVia.ROBOTS for s in found.seeds)
