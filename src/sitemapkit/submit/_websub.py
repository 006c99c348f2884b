"""WebSub (W3C Recommendation): tell a feed's hub that the feed changed.

The hub of a feed is announced in a ``Link: <...>; rel="hub"`` response header or in the feed itself
(``<link rel="hub" href="..."/>`` in Atom, ``<atom:link rel="hub" href="..."/>`` in RSS); the feed's topic URL is
its ``rel="self"`` link (or, fetched, the URL it came from). The publisher then POSTs
``hub.mode=publish&hub.url=<topic>`` form-encoded to the hub; any 2xx is success. This works for every feed, the
Atom delta feed that ``sitemapkit diff --format atom --feed-url URL`` writes included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urljoin

from lxml import etree

from sitemapkit.fetch import HttpClient, TransportError
from sitemapkit.submit._results import SubmitResult

__all__ = ["FeedLinks", "feed_links", "find_topic_and_hubs", "link_header_links", "publish", "read_head"]

_LINK_ITEM = re.compile(r'\s*<([^>]*)>\s*((?:;\s*[^;,]*)*)')
_REL = re.compile(r';\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))', re.IGNORECASE)
#: Feed elements after which no feed-level link can follow: scanning stops there.
_ITEMS = frozenset({"entry", "item"})


@dataclass(frozen=True, slots=True)
class FeedLinks:
    """The ``hub`` links and the first ``self`` link found (absolute URLs)."""

    hubs: tuple[str, ...] = ()
    self_url: str | None = None


def link_header_links(value: str, base: str) -> FeedLinks:
    """The hub and self links of an HTTP ``Link`` header value (RFC 8288: several links, several rels each)."""
    hubs: list[str] = []
    self_url: str | None = None
    pos = 0
    while pos < len(value):
        m = _LINK_ITEM.match(value, pos)
        if m is None:
            break
        target, params = urljoin(base, m.group(1).strip()), m.group(2)
        for rel in _REL.finditer(params):
            names = (rel.group(1) or rel.group(2) or "").lower().split()
            if "hub" in names and target not in hubs:
                hubs.append(target)
            if "self" in names and self_url is None:
                self_url = target
        pos = m.end()
        comma = value.find(",", pos)
        if comma < 0:
            break
        pos = comma + 1
    return FeedLinks(tuple(hubs), self_url)


def feed_links(data: bytes, base: str) -> FeedLinks:
    """The hub and self links at the top of an RSS or Atom feed (``link`` elements in any namespace, before the
    first entry or item). A document that is not well-formed XML yields what was found before the error."""
    hubs: list[str] = []
    self_url: str | None = None
    parser = etree.XMLPullParser(events=("start",), resolve_entities=False, no_network=True, huge_tree=False)
    try:
        parser.feed(data)
        parser.close()
    except etree.XMLSyntaxError:
        pass
    for _, element in parser.read_events():
        if not isinstance(element, etree._Element) or not isinstance(element.tag, str):
            continue
        tag = element.tag
        local = tag.rsplit("}", 1)[-1]
        if local in _ITEMS:
            break
        if local != "link":
            continue
        href = (element.get("href") or "").strip()
        names = (element.get("rel") or "").lower().split()
        if not href:
            continue
        target = urljoin(base, href)
        if "hub" in names and target not in hubs:
            hubs.append(target)
        if "self" in names and self_url is None:
            self_url = target
    return FeedLinks(tuple(hubs), self_url)


async def find_topic_and_hubs(client: HttpClient | None, source: str, *, max_bytes: int,
                              fetch: bool) -> tuple[str | None, tuple[str, ...], str]:
    """The topic URL and hubs of the feed at ``source`` (a URL, fetched when ``fetch``; else a file):
    ``(topic, hubs, "")``, or with a reason in the third place when the feed cannot be read."""
    if fetch:
        assert client is not None
        try:
            response = await client.get(source, max_bytes=max_bytes)
        except TransportError as exc:
            return None, (), f"feed {source}: no answer: {exc}"
        if response.status != 200:
            return None, (), f"feed {source}: HTTP {response.status}"
        header = link_header_links(response.headers.get("link", ""), response.final_url)
        body = feed_links(response.body, response.final_url)
        hubs = tuple(dict.fromkeys(header.hubs + body.hubs))
        return header.self_url or body.self_url or response.final_url, hubs, ""
    try:
        data = read_head(source, max_bytes)
    except OSError as exc:
        return None, (), f"feed {source}: cannot read it: {exc.strerror or exc}"
    links = feed_links(data, "")
    return links.self_url, links.hubs, ""


def read_head(path: str, max_bytes: int) -> bytes:
    """The first ``max_bytes`` of a file (``-`` is not a feed file: it raises OSError)."""
    with Path(path).open("rb") as handle:
        return handle.read(max_bytes)


async def publish(client: HttpClient, hub: str, topic: str) -> SubmitResult:
    """Send ``hub.mode=publish`` for ``topic`` to ``hub``; 2xx is success."""
    form = urlencode({"hub.mode": "publish", "hub.url": topic}).encode("ascii")
    try:
        response = await client.send("POST", hub, data=form, max_bytes=256 * 1024,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    except TransportError as exc:
        return SubmitResult("websub", hub, topic, False, None, f"no answer: {exc}")
    ok = 200 <= response.status < 300
    if ok:
        message = "the hub took the publish notification"
    else:
        text = response.body[:200].decode("utf-8", "replace").strip()
        message = "the hub refused the publish notification" + (f": {text}" if text else "")
    return SubmitResult("websub", hub, topic, ok, response.status, message, attempts=response.attempts)
