"""`sitemapkit crawl --format html`: the HTML sitemap is named after the site and links each page by its title."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.server import LocalServer

pytestmark = pytest.mark.e2e

FAST = ["--retries", "0", "--stall-timeout", "5", "--concurrency", "4"]


def test_crawled_titles_become_link_texts(server: LocalServer, tmp_path: Path) -> None:
    page = "<html><head><title>{}</title></head><body>{}</body></html>"
    server.route("/", page.format("Kiwi Shop", '<a href="/shop/kiwi">k</a> <a href="/about">a</a>'),
                 content_type="text/html")
    server.route("/shop/kiwi", page.format("Golden  kiwis\n – 1 kg", ""), content_type="text/html")
    server.route("/about", "<html><body>no title</body></html>", content_type="text/html")
    out = tmp_path / "out"
    res = run_cli(["crawl", server.url("/"), "--out", out, "--state", tmp_path / "s.sqlite", *FAST,
                   "--format", "xml", "--format", "html"])
    assert res.returncode == 0, res.stderr
    html = (out / "sitemap.html").read_text(encoding="utf-8")
    host = server.base.removeprefix("http://")
    assert f"<title>Site map – {host}</title>" in html
    assert '<a href="/">Kiwi Shop</a>' in html
    assert '<a href="/shop/kiwi">Golden kiwis – 1 kg</a>' in html
    assert '<a href="/about">/about</a>' in html
    assert "<h2>/shop/ <small>(1)</small></h2>" in html


def test_staging_crawl_finds_the_titles_of_mapped_urls(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", '<html><head><title>Home</title></head><body><a href="/a">a</a></body></html>',
                 content_type="text/html")
    server.route("/a", "<html><head><title>Page A</title></head><body>a</body></html>", content_type="text/html")
    out = tmp_path / "out"
    res = run_cli(["crawl", server.url("/"), "--out", out, "--state", tmp_path / "s.sqlite", *FAST,
                   "--format", "html", "--base-url", "https://shop.example/"])
    assert res.returncode == 0, res.stderr
    html = (out / "sitemap.html").read_text(encoding="utf-8")
    assert '<a href="/a">Page A</a>' in html
    assert "<title>Site map – shop.example</title>" in html
