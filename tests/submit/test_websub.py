"""WebSub: find a feed's hub (Link header, <link rel="hub">, <atom:link rel="hub">) or take --websub-hub, then
POST hub.mode=publish with the topic URL, form-encoded (a local hub records the notifications)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.submit._websub import feed_links, link_header_links
from tests.submit.submit_engines import Hub
from tests.support.server import LocalServer

RSS = """<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title>
<atom:link rel="hub" href="{hub}"/><atom:link rel="self" type="application/rss+xml" href="{self}"/>
<item><link>https://example.com/a</link><atom:link rel="hub" href="https://not-this.example/"/></item>
</channel></rss>
"""
ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>
{links}<entry><id>urn:e</id><title>e</title><updated>2024-01-01T00:00:00Z</updated>
<link href="https://example.com/e"/></entry></feed>
"""


@pytest.fixture
def hub() -> Iterator[Hub]:
    with LocalServer() as srv:
        yield Hub(srv)


def _submit(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["submit", *args])
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def test_link_header_parsing() -> None:
    links = link_header_links('<https://hub.a/>; rel="hub", </feed.xml>; rel=self, <https://hub.b/>; rel="x hub"',
                              "https://site.test/blog/")
    assert links.hubs == ("https://hub.a/", "https://hub.b/")
    assert links.self_url == "https://site.test/feed.xml"


def test_feed_links_stop_at_the_first_item() -> None:
    links = feed_links(RSS.format(hub="https://hub.a/", self="https://site.test/rss").encode(), "")
    assert links.hubs == ("https://hub.a/",)
    assert links.self_url == "https://site.test/rss"


def test_hub_from_the_link_header(hub: Hub) -> None:
    with LocalServer() as site:
        site.route("/feed.atom", ATOM.format(links=""), content_type="application/atom+xml",
                   headers={"Link": f'<{hub.url}>; rel="hub", <{site.url("/feed.atom")}>; rel="self"'})
        code, out, _ = _submit(site.url("/feed.atom"), "--websub", "-q")
    assert code == 0, out
    assert hub.notifications == [{"hub.mode": ["publish"], "hub.url": [site.url("/feed.atom")]}]
    assert "websub" in out
    assert "ok: 204" in out


def test_hub_from_an_rss_feed(hub: Hub) -> None:
    with LocalServer() as site:
        site.route("/rss", RSS.format(hub=hub.url, self=site.url("/rss")), content_type="application/rss+xml")
        code, out, _ = _submit(site.url("/rss"), "--websub", "-q")
    assert code == 0, out
    assert hub.notifications == [{"hub.mode": ["publish"], "hub.url": [site.url("/rss")]}]


def test_the_delta_feed_of_diff_is_published(hub: Hub, tmp_path: Path) -> None:
    old, new, feed = tmp_path / "old.txt", tmp_path / "new.txt", tmp_path / "changes.atom"
    old.write_text("https://example.com/a\n", encoding="utf-8")
    new.write_text("https://example.com/a\nhttps://example.com/b\n", encoding="utf-8")
    made = CliRunner().invoke(cli, ["diff", str(old), str(new), "--format", "atom", "-o", str(feed), "-q",
                                    "--feed-url", "https://example.com/changes.atom", "--hub", hub.url])
    assert made.exit_code == 1, made.stderr  # differences found
    code, out, _ = _submit(str(feed), "--websub", "-q")
    assert code == 0, out
    assert hub.notifications == [{"hub.mode": ["publish"], "hub.url": ["https://example.com/changes.atom"]}]


def test_websub_hub_option_wins(hub: Hub, tmp_path: Path) -> None:
    feed = tmp_path / "f.atom"
    feed.write_text(ATOM.format(links='<link rel="self" href="https://example.com/f.atom"/>'
                                      '<link rel="hub" href="https://hub.example/"/>'), encoding="utf-8")
    code, out, _ = _submit(str(feed), "--websub-hub", hub.url, "-q")
    assert code == 0, out
    assert hub.notifications == [{"hub.mode": ["publish"], "hub.url": ["https://example.com/f.atom"]}]


def test_refusing_hub_fails(hub: Hub, tmp_path: Path) -> None:
    hub.status = 400
    feed = tmp_path / "f.atom"
    feed.write_text(ATOM.format(links='<link rel="self" href="https://example.com/f.atom"/>'), encoding="utf-8")
    code, out, _ = _submit(str(feed), "--websub-hub", hub.url, "-q")
    assert code == 1
    assert "FAILED: 400 the hub refused the publish notification" in out


@pytest.mark.parametrize(("links", "words"), [
    ('<link rel="self" href="https://example.com/f.atom"/>', "no hub found"),
    ('<link rel="hub" href="https://hub.example/"/>', 'no rel="self" link'),
])
def test_missing_hub_or_topic_is_reported(tmp_path: Path, links: str, words: str) -> None:
    feed = tmp_path / "f.atom"
    feed.write_text(ATOM.format(links=links), encoding="utf-8")
    code, out, _ = _submit(str(feed), "--websub", "-q")
    assert code == 1
    assert words in out
