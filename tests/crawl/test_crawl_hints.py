"""`sitemapkit crawl --changefreq/--priority/--rule`: the crawl's sitemap carries them (end to end, CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from sitemapkit.crawl import CRAWL_OPTION_SPECS, CrawlOptions, crawl_options_from
from tests.support.cli import run_cli
from tests.support.server import LocalServer

pytestmark = pytest.mark.e2e

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
FAST = ["--retries", "0", "--stall-timeout", "5", "--concurrency", "4"]


def small_site(server: LocalServer) -> None:
    server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    server.route("/", '<html><body><a href="/blog/">b</a> <a href="/about">a</a></body></html>',
                 content_type="text/html")
    server.route("/blog/", '<html><body><a href="/blog/2024/post">p</a></body></html>', content_type="text/html")
    server.route("/blog/2024/post", "<html><body>post</body></html>", content_type="text/html")
    server.route("/about", "<html><body>about</body></html>", content_type="text/html")


def test_crawl_writes_defaults_rules_and_depth(server: LocalServer, tmp_path: Path) -> None:
    small_site(server)
    out = tmp_path / "out"
    res = run_cli(["crawl", server.url("/"), "--out", out, "--state", tmp_path / "s.sqlite", *FAST,
                   "--changefreq", "monthly", "--priority", "depth", "--rule", "/blog/* changefreq=weekly"])
    assert res.returncode == 0, res.stderr
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    got = {u.findtext("sm:loc", namespaces=NS).removeprefix(server.base): (  # type: ignore[union-attr]
        u.findtext("sm:changefreq", namespaces=NS), u.findtext("sm:priority", namespaces=NS))
        for u in root.findall("sm:url", NS)}
    assert got == {"/": ("monthly", "1.0"), "/about": ("monthly", "0.9"), "/blog/": ("weekly", "0.9"),
                   "/blog/2024/post": ("weekly", "0.7")}
    assert run_cli(["validate", out / "sitemap.xml"]).returncode == 0


def test_bad_rule_is_a_usage_error_before_anything(server: LocalServer, tmp_path: Path) -> None:
    small_site(server)
    res = run_cli(["crawl", server.url("/"), "--out", tmp_path / "out", *FAST, "--rule", "/x/* priority=9"])
    assert res.returncode == 2
    assert "--rule '/x/* priority=9'" in res.stderr
    assert server.requests == []
    assert not (tmp_path / "out").exists()


def test_specs_carry_the_hints_for_every_front_end() -> None:
    names = {spec.name: spec for spec in CRAWL_OPTION_SPECS}
    assert names["rule"].kind == "rules"
    assert "Google ignores" in names["priority"].help
    options = crawl_options_from({"changefreq": "daily", "rule": ["/a/* priority=0.2"]})
    assert options.hints is not None
    assert options.hints.values("https://x.test/a/b") == (options.hints.changefreq, 0.2)
    assert CrawlOptions().hints is None


def test_audit_has_no_sitemap_options() -> None:
    res = run_cli(["audit", "--help"])
    assert "--changefreq" not in res.stdout
    assert "--rule" not in res.stdout
    assert "--max-pages" in res.stdout
