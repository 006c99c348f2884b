"""`sitemapkit urls` given URLs, end to end: the CLI in process against a real local server."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer
from tests.support.sites import Site, index_xml, urlset_xml

pytestmark = pytest.mark.e2e

FAST = ["--deadline", "2", "--retries", "1", "--retry-backoff", "0.01", "--max-retry-wait", "0.05"]


def run_urls(*args: str) -> CliResult:
    return run_cli(["urls", *args, *FAST])


def build(server: LocalServer) -> Site:
    site = Site(server)
    site.robots(f"User-agent: *\nDisallow:\nSitemap: {server.url('/index.xml')}\n")
    site.xml("/index.xml", index_xml([server.url("/a.xml"), server.url("/b.xml.gz")]))
    site.xml("/a.xml", urlset_xml([server.url("/p1"), server.url("/p2")]))
    site.gz("/b.xml.gz", urlset_xml([server.url("/p3"), server.url("/p1")]), content_type="application/octet-stream")
    return site


def test_site_url_discovers_and_walks(server: LocalServer) -> None:
    build(server)
    r = run_urls(server.url("/"))
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split()) == sorted(server.url(p) for p in ("/p1", "/p2", "/p3", "/p1"))
    assert "Traceback" not in r.stderr


def test_index_url_jsonl_names_each_sitemap_as_source(server: LocalServer) -> None:
    build(server)
    r = run_urls(server.url("/index.xml"), "--format", "jsonl")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    pages = sorted((row["loc"], row["source"]) for row in rows if row["kind"] == "url")
    a, b = server.url("/a.xml"), server.url("/b.xml.gz")
    assert pages == sorted([(server.url("/p1"), a), (server.url("/p2"), a), (server.url("/p3"), b),
                            (server.url("/p1"), b)])
    children = [row["loc"] for row in rows if row["kind"] == "sitemap"]
    assert children == [server.url("/a.xml"), server.url("/b.xml.gz")]


def test_unique_drops_repeated_locs_across_sitemaps(server: LocalServer) -> None:
    build(server)
    r = run_urls(server.url("/index.xml"), "--unique")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split()) == sorted(server.url(p) for p in ("/p1", "/p2", "/p3"))


def test_no_follow_lists_child_sitemaps_only(server: LocalServer) -> None:
    build(server)
    r = run_urls(server.url("/index.xml"), "--no-follow")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [server.url("/a.xml"), server.url("/b.xml.gz")]
    assert server.hits("/a.xml") == 0


def test_failing_child_is_reported_and_the_rest_listed(server: LocalServer) -> None:
    site = build(server)
    site.xml("/index.xml", index_xml([server.url("/a.xml"), server.url("/missing.xml")]))
    r = run_urls(server.url("/index.xml"))
    assert r.returncode == 1
    assert sorted(r.stdout.split()) == [server.url("/p1"), server.url("/p2")]
    assert f"{server.url('/missing.xml')}: error SM502" in r.stderr
    assert "Traceback" not in r.stderr
