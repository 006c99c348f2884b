"""``sitemapkit robots FILE --add`` (bytes kept, URLs compared as URLs, atomic) and ``robots SITE --check``
against a robots.txt and sitemaps served from 127.0.0.1."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.fetch import FetchSettings, RobotsTxt
from sitemapkit.submit._robotscheck import check_site
from sitemapkit.submit._robotsfile import add_sitemaps, add_sitemaps_to_text, same_url_key
from tests.support.cli import run_cli
from tests.support.server import LocalServer
from tests.support.sites import HTML_ERROR, Site, urlset_xml

GROUPS = b"# top comment\r\nUser-agent: *\r\nDisallow: /private # no\r\n\r\nUser-agent: bot\r\nDisallow: /\r\n"


def test_add_keeps_every_byte_and_the_crlf_line_ending() -> None:
    new, added, present = add_sitemaps_to_text(GROUPS, ["https://e.com/sitemap.xml"])
    assert new == GROUPS + b"\r\nSitemap: https://e.com/sitemap.xml\r\n"
    assert added == ("https://e.com/sitemap.xml",)
    assert present == ()
    robots = RobotsTxt.parse(new, "https://e.com/robots.txt")
    assert robots.sitemaps == ("https://e.com/sitemap.xml",)
    assert not robots.can_fetch("https://e.com/x", "bot")  # the last group is untouched


def test_add_after_a_group_without_final_newline_starts_a_block_of_its_own() -> None:
    new, _, _ = add_sitemaps_to_text(b"User-agent: *\nDisallow: /x", ["https://e.com/a.xml", "https://e.com/b.xml"])
    assert new == b"User-agent: *\nDisallow: /x\n\nSitemap: https://e.com/a.xml\nSitemap: https://e.com/b.xml\n"


def test_add_below_an_existing_sitemap_block_and_into_an_empty_file() -> None:
    text = b"User-agent: *\nDisallow:\n\nSitemap: https://e.com/a.xml\n"
    new, _, _ = add_sitemaps_to_text(text, ["https://e.com/b.xml"])
    assert new == text + b"Sitemap: https://e.com/b.xml\n"
    inside = b"User-agent: *\nSitemap: https://e.com/a.xml\n"  # a Sitemap line within a group: start a new block
    assert add_sitemaps_to_text(inside, ["https://e.com/b.xml"])[0] == inside + b"\nSitemap: https://e.com/b.xml\n"
    assert add_sitemaps_to_text(b"", ["https://e.com/b.xml"])[0] == b"Sitemap: https://e.com/b.xml\n"


@pytest.mark.parametrize("listed", [
    "HTTPS://E.COM/sitemap.xml",
    "https://e.com:443/sitemap.xml",
    "https://e.com/%73itemap.xml",  # an escaped unreserved character
    "/sitemap.xml",  # relative, resolved against the site of the URL added
])
def test_a_url_already_listed_is_compared_as_a_url(listed: str) -> None:
    text = f"User-agent: *\nDisallow:\n\nSitemap: {listed}\n".encode()
    new, added, present = add_sitemaps_to_text(text, ["https://e.com/sitemap.xml"])
    assert new == text
    assert added == ()
    assert present == ("https://e.com/sitemap.xml",)


def test_percent_escape_case_does_not_matter_but_the_path_does() -> None:
    assert same_url_key("https://e.com/a%2fb") == same_url_key("https://E.com/a%2Fb")
    assert same_url_key("https://e.com/a%2Fb") != same_url_key("https://e.com/a/b")
    assert same_url_key("http://e.com:80") == same_url_key("http://e.com/")


def test_add_creates_a_missing_file_and_does_not_rewrite_when_nothing_changes(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    edit = add_sitemaps(path, ["https://e.com/s.xml"])
    assert edit.created
    assert edit.written
    assert path.read_bytes() == b"Sitemap: https://e.com/s.xml\n"
    before = os.stat(path).st_ino
    again = add_sitemaps(path, ["https://E.com/s.xml"])
    assert not again.written
    assert again.present == ("https://E.com/s.xml",)
    assert os.stat(path).st_ino == before
    assert [p.name for p in tmp_path.iterdir()] == ["robots.txt"]  # no temporary file left behind


def test_cli_add_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(GROUPS)
    proc = run_cli(["robots", str(path), "--add", "https://e.com/a.xml", "https://e.com/b.xml", "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["added"] == ["https://e.com/a.xml", "https://e.com/b.xml"]
    assert path.read_bytes() == GROUPS + b"\r\nSitemap: https://e.com/a.xml\r\nSitemap: https://e.com/b.xml\r\n"


def test_cli_add_usage_errors(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    bad = CliRunner().invoke(cli, ["robots", str(path), "--add", "sitemap.xml"])
    assert bad.exit_code == 2
    assert "not an absolute http(s) URL" in bad.output
    assert not path.exists()
    both = CliRunner().invoke(cli, ["robots", str(path), "--add", "--check", "https://e.com/s.xml"])
    assert both.exit_code == 2
    path.write_bytes("\ufeffUser-agent: *\n".encode("utf-16-le"))
    utf16 = CliRunner().invoke(cli, ["robots", str(path), "--add", "https://e.com/s.xml"])
    assert utf16.exit_code == 2
    assert "UTF-8" in utf16.stderr


@pytest.fixture
def checked_site(server: LocalServer) -> Site:
    site = Site(server)
    site.robots("User-agent: *\nDisallow: /private/\n\n"
                f"Sitemap: {server.url('/good.xml')}\n"
                f"Sitemap: {server.url('/private/s.xml')}\n"
                f"Sitemap: {server.url('/missing.xml')}\n"
                f"Sitemap: {server.url('/page.xml')}\n"
                "Sitemap: /relative.xml\n"
                "Sitemap: ftp://e.com/x.xml\n")
    site.xml("/good.xml", urlset_xml([server.url("/p")]))
    site.xml("/private/s.xml", urlset_xml([server.url("/q")]))
    site.xml("/page.xml", HTML_ERROR, content_type="text/html")
    site.xml("/relative.xml", urlset_xml([server.url("/r")]))
    site.xml("/sitemap_index.xml", urlset_xml([server.url("/z")]))  # found at a well-known path only
    return site


def test_check_reports_each_listed_sitemap(checked_site: Site) -> None:
    server = checked_site.server
    report = check_site(server.url("/"), settings=FetchSettings(retries=0))
    by_url = {s.url: s for s in report.sitemaps}
    assert by_url[server.url("/good.xml")].ok
    assert not by_url[server.url("/private/s.xml")].allowed
    assert by_url[server.url("/private/s.xml")].is_sitemap
    assert by_url[server.url("/missing.xml")].status == 404
    assert not by_url[server.url("/missing.xml")].reachable
    assert by_url[server.url("/page.xml")].reachable
    assert not by_url[server.url("/page.xml")].is_sitemap
    assert by_url[server.url("/relative.xml")].ok
    codes = sorted(p.code for p in report.problems)
    assert codes == ["SM502", "SM505", "SM522", "SM527", "SM540", "SM541"]
    assert report.unlisted == (server.url("/sitemap_index.xml"),)
    assert report.errors == 3


def test_check_cli_end_to_end(checked_site: Site) -> None:
    server = checked_site.server
    proc = run_cli(["robots", server.url("/"), "--check", "-q", "--format", "json", "--retries", "0"])
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["robots"]["status"] == 200
    assert [s["url"] for s in data["sitemaps"] if not s["allowed"]] == [server.url("/private/s.xml")]
    assert data["unlisted"] == [server.url("/sitemap_index.xml")]
    text = run_cli(["robots", server.url("/"), "--check", "-q", "--retries", "0"])
    assert "found but not listed in robots.txt:" in text.stdout
    assert "SM522" in text.stdout


def test_check_of_a_healthy_site_exits_0(server: LocalServer) -> None:
    site = Site(server)
    site.robots(f"User-agent: *\nDisallow:\n\nSitemap: {server.url('/sitemap.xml')}\n")
    site.xml("/sitemap.xml", urlset_xml([server.url("/p")]))
    result = CliRunner().invoke(cli, ["robots", server.url("/"), "--check", "-q"])
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.stdout
