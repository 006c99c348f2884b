"""Reading the site's sitemaps into the audit store (every URL with its sitemap file and line), and the checks that
need no request: ``duplicate``, ``out_of_scope``, ``lastmod_future`` and ``lastmod_uniform``.

The sitemaps are found by :func:`sitemapkit.fetch.open_sources` (robots.txt, well-known paths and
``<link rel="sitemap">`` for a site URL; the tree of indexes walked, gzip children included). Each fetched
document's bytes are read again with positions on, which gives the line of every ``<url>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from sitemapkit.audit._findings import Finding
from sitemapkit.audit._store import AuditStore, Listing
from sitemapkit.core import UrlEntry, lastmod_of_valid_form
from sitemapkit.crawl import UrlNormalizer
from sitemapkit.fetch import Discovery, DocumentDone, FetchSettings, RobotsTxt, open_sources
from sitemapkit.read import Located, SitemapParser

__all__ = ["Inventory", "SitemapInfo", "read_sitemaps", "static_findings"]


@dataclass(frozen=True, slots=True)
class SitemapInfo:
    """One sitemap document read: its URL (or file), how it was found, its status and its URL count."""

    url: str
    status: int | None
    urls: int
    kind: str | None
    error: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"url": self.url, "status": self.status, "urls": self.urls, "kind": self.kind, "error": self.error}


@dataclass
class Inventory:
    """What reading the sitemaps gave: the documents, robots.txt (when discovered) and the problems seen."""

    sitemaps: list[SitemapInfo] = field(default_factory=list)
    robots: RobotsTxt | None = None
    problems: list[str] = field(default_factory=list)
    unreachable: str | None = None  # the site could not be reached at all: the cause


def _located(data: bytes, source: str, max_bytes: int | None) -> list[Located]:
    parser = SitemapParser(source, positions=True, max_decompressed_bytes=max_bytes)
    out = [ev for ev in parser.feed(data) if isinstance(ev, Located)]
    out.extend(ev for ev in parser.close() if isinstance(ev, Located))
    return out


def read_sitemaps(sources: list[str], store: AuditStore, settings: FetchSettings, normalizer: UrlNormalizer, *,
                  on_sitemap: Callable[[SitemapInfo], None] | None = None) -> Inventory:
    """Read every sitemap below ``sources`` (a site URL, sitemap URLs or files) into ``store``."""
    inv = Inventory()
    pending: list[Located] = []  # a file's positioned entries, until its DocumentDone
    for event in open_sources(sources, settings=settings, keep_bytes=True, positions=True):
        if isinstance(event, Discovery):
            if event.robots is not None and event.robots_status is not None:
                inv.robots = event.robots
            inv.problems.extend(p.message for p in event.problems)
            inv.unreachable = inv.unreachable or event.unreachable
        elif isinstance(event, Located):
            pending.append(event)
        elif isinstance(event, DocumentDone):
            node = event.node
            if node is not None:
                located = _located(event.data, event.source, settings.max_bytes) if event.data else []
            else:
                located, pending = pending, []
            rows = []
            for ev in located:
                if isinstance(ev.item, UrlEntry):
                    url = ev.item.loc
                    rows.append(Listing(url, normalizer.normalize(url) or url, event.source, ev.line,
                                        ev.item.lastmod.text if ev.item.lastmod else None))
            store.add_listings(rows)
            error = None
            if node is not None and not node.ok:
                error = "; ".join(p.message for p in node.problems[:3]) or f"HTTP {node.status}"
            info = SitemapInfo(event.source, None if node is None else node.status, len(rows),
                               event.kind.value if event.kind is not None else None, error)
            inv.sitemaps.append(info)
            if on_sitemap is not None:
                on_sitemap(info)
    store.db.commit()
    return inv


def _scope_problem(url: str, sitemap: str) -> str | None:
    if "://" not in sitemap:
        return None  # a local file: no directory to be inside
    u, s = urlsplit(url), urlsplit(sitemap)
    if (u.scheme, u.netloc.lower()) != (s.scheme, s.netloc.lower()):
        return f"on another host than its sitemap ({s.scheme}://{s.netloc})"
    directory = s.path[: s.path.rfind("/") + 1] or "/"
    if not (u.path or "/").startswith(directory):
        return f"outside the sitemap's directory {directory}"
    return None


def static_findings(store: AuditStore, *, uniform_min: int, uniform_share: float, slack: timedelta,
                    now: datetime | None = None) -> None:
    """Add the findings that need no request: duplicates, out of scope, lastmod in the future, uniform lastmod."""
    moment = now or datetime.now(UTC)
    for url in store.duplicated_urls():
        places = list(store.listings("url = ?", (url,)))
        where = ", ".join(f"{p.sitemap}:{p.line}" for p in places)
        for p in places[1:]:
            store.add(Finding(url, "duplicate", p.sitemap, p.line, f"listed {len(places)} times: {where}"))
    for item in store.listings():
        problem = _scope_problem(item.url, item.sitemap)
        if problem is not None:
            store.add(Finding(item.url, "out_of_scope", item.sitemap, item.line, problem))
        value = lastmod_of_valid_form(item.lastmod) if item.lastmod else None
        if value is not None:
            dt = value.to_datetime()
            dt = dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)
            if dt - moment > slack:
                store.add(Finding(item.url, "lastmod_future", item.sitemap, item.line,
                                  f"lastmod {item.lastmod} is after now ({moment.strftime('%Y-%m-%dT%H:%M:%SZ')})"))
    for sitemap, total, top, shared in list(store.sitemap_lastmods()):
        if top is None or total < uniform_min or shared / total < uniform_share:
            continue
        evidence = (f"lastmod {top} shared by {shared} of {total} dated URLs of this sitemap "
                    "(a build time, not a change time)")
        for item in store.listings("sitemap = ? AND lastmod = ?", (sitemap, top)):
            store.add(Finding(item.url, "lastmod_uniform", item.sitemap, item.line, evidence))
    store.db.commit()
