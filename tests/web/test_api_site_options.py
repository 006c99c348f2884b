"""The web API takes what the CLI takes: a bare host as the start URL (https first, then http), changefreq,
priority, rules (a list of ``--rule`` strings) and images."""

from __future__ import annotations

import pytest
from lxml import etree

from sitemapkit.web._jobs import JobError, crawl_options, parse_crawl_request
from tests.support.server import LocalServer
from tests.web.conftest import WebServer

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def test_parse_accepts_a_bare_host_and_the_hints() -> None:
    url, options = parse_crawl_request({"url": "kiwi-shop.de", "changefreq": "monthly", "priority": "depth",
                                        "rules": ["/blog/* changefreq=weekly"], "images": "true"})
    assert url == "kiwi-shop.de"
    built = crawl_options(options)
    assert built.images is True
    assert built.hints is not None
    assert built.hints.values("https://kiwi-shop.de/blog/x")[0] is not None
    assert built.hints.values("https://kiwi-shop.de/blog/x")[0].value == "weekly"  # type: ignore[union-attr]
    rules_as_lines = parse_crawl_request({"url": "a.test", "rules": "/a/* priority=0.1\n/b/* priority=0.2"})[1]
    assert rules_as_lines["rule"] == ["/a/* priority=0.1", "/b/* priority=0.2"]


@pytest.mark.parametrize(("body", "field", "label"), [
    ({"priority": "high"}, "priority", '"Priority"'),
    ({"changefreq": "often"}, "changefreq", "Change frequency:"),
    ({"rules": ["/a/* weight=1"]}, "rule", '"Rules (one per line)"'),
])
def test_bad_hints_name_the_field_in_the_forms_words(body: dict[str, object], field: str, label: str) -> None:
    with pytest.raises(JobError) as caught:
        parse_crawl_request({"url": "a.test", **body})
    assert caught.value.field == field
    assert str(caught.value).startswith(label), str(caught.value)
    assert "--" not in str(caught.value)


@pytest.mark.e2e
def test_crawl_from_a_bare_host_with_rules(web: WebServer) -> None:
    with LocalServer() as site:
        site.route("/", '<html><body><a href="/shop/a">a</a></body></html>', content_type="text/html")
        site.route("/shop/a", "<html><body>a</body></html>", content_type="text/html")
        host = site.base.removeprefix("http://")
        status, body = web.json("POST", "/api/crawls", {"url": host, "concurrency": 1, "priority": "depth",
                                                        "rules": ["/shop/* changefreq=weekly"]})
        assert status == 201, body
        crawl = web.wait_status(str(body["id"]), {"done", "failed"})
        assert crawl["status"] == "done", crawl
        assert crawl["url"] == f"{site.base}/"  # the scheme that answered
        assert crawl["counts"]["broken_images"] == 0
        _, _, xml = web.request("GET", f"/api/crawls/{body['id']}/files/sitemap.xml")
    root = etree.fromstring(xml)
    got = {u.findtext("sm:loc", namespaces=NS): (u.findtext("sm:changefreq", namespaces=NS),
                                                 u.findtext("sm:priority", namespaces=NS))
           for u in root.findall("sm:url", NS)}
    assert got == {f"{site.base}/": (None, "1.0"), f"{site.base}/shop/a": ("weekly", "0.8")}
