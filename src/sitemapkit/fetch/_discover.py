"""Finding a site's sitemaps: robots.txt first, then well-known paths and ``<link rel="sitemap">``.

:func:`discover` returns a :class:`Discovery` (what robots.txt said, what was probed, the seeds found);
:func:`walk_site` chains discovery and :func:`~sitemapkit.fetch.walk` into one stream.

Probes only count when the body *is* a sitemap by its bytes (the reader's sniffer): a soft-404 HTML page served
with status 200 at ``/sitemap.xml`` is not a sitemap. A probe that hits is handed to the walker with its body,
so nothing is downloaded twice; probes that redirect to the same place count once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from sitemapkit.core import FetchError, Location, Problem, iri_to_uri, is_absolute_http_url
from sitemapkit.fetch._codes import SM520, SM530, SM531, SM532
from sitemapkit.fetch._http import HttpClient, HttpResponse
from sitemapkit.fetch._robots import RobotsTxt, robots_url_for, url_key
from sitemapkit.fetch._walk import FoundVia, SitemapSeed, WalkItem, WalkOptions, walk
from sitemapkit.read import DocumentKind, sniff

__all__ = ["WELL_KNOWN_PATHS", "Discovery", "discover", "fetch_robots", "is_site_url", "walk_site"]

#: Paths tried (at the site's root) when robots.txt names no sitemap, most common first.
WELL_KNOWN_PATHS: tuple[str, ...] = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/sitemap.xml.gz",
    "/sitemap_index.xml.gz",
    "/sitemap.txt",
    "/wp-sitemap.xml",
    "/sitemap/sitemap.xml",
    "/sitemaps/sitemap.xml",
    "/sitemap/index.xml",
    "/sitemap1.xml",
)

#: Bytes read of a robots.txt (Google reads 500 KiB; RFC 9309 asks for at least 500 KiB); the rest is ignored.
ROBOTS_MAX_BYTES = 512 * 1024
#: Bytes read of the home page when looking for ``<link rel="sitemap">``.
HOME_MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Discovery:
    """What :func:`discover` found. ``robots_status`` is None when robots.txt could not be fetched at all;
    ``probed`` lists every well-known URL tried with its status (None: no response) and whether it was a
    sitemap; ``seeds`` are the sitemaps to walk, in the order found. ``unreachable`` is the cause when neither
    robots.txt nor the home page answered (the site cannot be reached: nothing else was tried, SM532)."""

    site_url: str
    robots_url: str
    robots: RobotsTxt | None
    robots_status: int | None
    seeds: tuple[SitemapSeed, ...]
    probed: tuple[tuple[str, int | None, bool], ...] = ()
    problems: tuple[Problem, ...] = ()
    unreachable: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "site": self.site_url,
            "robots": {
                "url": self.robots_url,
                "status": self.robots_status,
                "sitemaps": list(self.robots.sitemaps) if self.robots else [],
            },
            "probed": [{"url": u, "status": s, "sitemap": hit} for u, s, hit in self.probed],
            "seeds": [{"url": s.url, "found_via": s.found_via.value} for s in self.seeds],
            "problems": [p.to_dict() for p in self.problems],
            "unreachable": self.unreachable,
        }


def is_site_url(url: str) -> bool:
    """True for a site URL (``https://example.com`` or ``.../``): discover; False for a document URL."""
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query


async def fetch_robots(client: HttpClient, url: str) -> tuple[RobotsTxt, int | None]:
    """Fetch and parse the robots.txt governing ``url``. Returns it with its HTTP status (None: no response).

    Per RFC 9309 §2.3.1: 4xx means no restrictions, 5xx and unreachable mean "assume complete disallow"; in
    both cases there are no sitemaps. A problem (SM520) is attached unless the status is 200 or 404/410."""
    robots_url = robots_url_for(url)
    try:
        resp = await client.get(robots_url, max_bytes=ROBOTS_MAX_BYTES, truncate=True)
    except FetchError as exc:
        return RobotsTxt.disallow_all(robots_url, (SM520.problem(Location(robots_url), exc.reason),)), None
    if resp.ok:
        robots = RobotsTxt.parse(resp.body, resp.final_url)
        if resp.truncated:  # RFC 9309 §2.5: a parser may ignore what follows the first 500 KiB
            robots.problems = (*robots.problems, SM520.problem(
                Location(robots_url), f"robots.txt larger than {ROBOTS_MAX_BYTES:,} bytes; the rest was ignored"))
        return robots, resp.status
    if 400 <= resp.status < 500:
        problems: tuple[Problem, ...] = ()
        if resp.status not in (404, 410):
            problems = (SM520.problem(Location(robots_url), f"HTTP status {resp.status}"),)
        return RobotsTxt.allow_all(robots_url, problems), resp.status
    return RobotsTxt.disallow_all(robots_url, (SM520.problem(Location(robots_url),
                                                             f"HTTP status {resp.status}"),)), resp.status


def is_sitemap_body(resp: HttpResponse) -> bool:
    if not resp.ok or not resp.body:
        return False
    try:
        kind = sniff(resp.body[:262144]).kind.kind
    except Exception:  # a sniffing failure means "not recognised", never a crash
        return False
    if kind is DocumentKind.TEXT:
        # A text sitemap must start with a URL; the sniffer's TEXT also covers plain error pages.
        first = resp.body.lstrip()[:2048].split(b"\n", 1)[0].strip().decode("utf-8", "replace")
        return is_absolute_http_url(first.removeprefix("\ufeff"))
    return kind.is_sitemap


def sitemap_links_in_html(html: bytes, base_url: str) -> list[str]:
    """``href`` of every ``<link rel="sitemap">`` in an HTML page, absolute, in document order."""
    from selectolax.lexbor import LexborHTMLParser  # only site discovery reads HTML: ~1.6 MB not loaded otherwise

    tree = LexborHTMLParser(html)
    base = base_url
    base_node = tree.css_first("base[href]")
    if base_node is not None and base_node.attributes.get("href"):
        base = urljoin(base_url, str(base_node.attributes["href"]))
    found: list[str] = []
    for node in tree.css("link[rel]"):
        rels = (node.attributes.get("rel") or "").lower().split()
        href = (node.attributes.get("href") or "").strip()
        if "sitemap" in rels and href:
            url = urljoin(base, href)
            if is_absolute_http_url(url):
                found.append(iri_to_uri(url))
    return found


async def discover(
    site_url: str,
    *,
    client: HttpClient,
    probe: str = "auto",
    home_link: bool = True,
    max_bytes: int | None = None,
) -> Discovery:
    """Find the sitemaps of the site at ``site_url``.

    ``probe``: "auto" tries well-known paths and the home page's ``<link rel="sitemap">`` only when robots.txt
    names no sitemap; "always" tries them in any case; "never" reads robots.txt only.

    Example: ``async with HttpClient() as client: found = await discover("https://example.com/", client=client)``;
    ``sitemapkit discover URL`` on the command line.
    """
    if probe not in ("auto", "always", "never"):
        from sitemapkit.core import ConfigurationError

        raise ConfigurationError(f"probe must be 'auto', 'always' or 'never', not {probe!r}")
    parts = urlsplit(site_url)
    root = f"{parts.scheme.lower()}://{parts.netloc}/"
    robots, robots_status = await fetch_robots(client, root)
    if robots_status is None:
        cause = await _no_answer(client, root)
        if cause is not None:  # the site cannot be reached: say so, and try nothing else
            problem = SM532.problem(Location(root), f"{root} cannot be reached: {cause}")
            return Discovery(site_url, robots.url, robots, None, (), (), (problem,), unreachable=cause)
    problems: list[Problem] = list(robots.problems)
    seeds: list[SitemapSeed] = []
    keys: set[str] = set()
    for url in robots.sitemaps:
        seeds.append(SitemapSeed(url, FoundVia.ROBOTS))
        keys.add(url_key(url))
    probed: list[tuple[str, int | None, bool]] = []
    if probe == "always" or (probe == "auto" and not seeds):
        candidates = [urljoin(root, p) for p in WELL_KNOWN_PATHS]

        async def try_one(url: str) -> HttpResponse | None:
            try:
                return await client.get(url, max_bytes=max_bytes)
            except FetchError:
                return None

        async def home() -> list[str]:
            if not home_link:
                return []
            try:
                resp = await client.get(root, max_bytes=HOME_MAX_BYTES)
            except FetchError:
                return []
            if not resp.ok:
                return []
            return sitemap_links_in_html(resp.body, resp.final_url)

        results = await asyncio.gather(*(try_one(u) for u in candidates))
        links = await home()
        for url, resp in zip(candidates, results, strict=True):
            hit = resp is not None and is_sitemap_body(resp)
            probed.append((url, None if resp is None else resp.status, hit))
            if not hit or resp is None:
                continue
            targets = {url_key(url), url_key(resp.final_url)}
            if targets & keys:
                continue
            keys.update(targets)
            seeds.append(SitemapSeed(url, FoundVia.WELL_KNOWN, resp))
            if robots_status is not None and not robots.sitemaps:
                problems.append(SM531.problem(Location(url)))
        for url in links:
            if url_key(url) not in keys:
                keys.add(url_key(url))
                seeds.append(SitemapSeed(url, FoundVia.LINK_REL))
    if not seeds:
        problems.append(SM530.problem(Location(root), "no sitemap in robots.txt, at well-known paths or in "
                                                      "<link rel=\"sitemap\">" if probe != "never" else
                                                      "robots.txt names no sitemap"))
    return Discovery(site_url, robots.url, robots, robots_status, tuple(seeds), tuple(probed), tuple(problems))


async def _no_answer(client: HttpClient, root: str) -> str | None:
    """robots.txt gave no response: the home page is asked once. The reason it gave no response either (the
    connection failure and its cause), or None when it answered (the site is up; robots.txt alone failed)."""
    try:
        await client.get(root, max_bytes=HOME_MAX_BYTES)
    except FetchError as exc:
        return exc.reason
    return None


async def walk_site(
    site_or_sitemaps: str | Sequence[str],
    *,
    client: HttpClient,
    options: WalkOptions | None = None,
    probe: str = "auto",
) -> AsyncIterator[Discovery | WalkItem]:
    """Discover (for a site URL) and walk: yields the :class:`Discovery` first (site URLs only), then the walk's
    items. A URL that is not a site URL, or a sequence of URLs, is walked directly as given sitemaps.

    Example: ``async with HttpClient() as client: async for item in walk_site("https://example.com/", client=client):
    print(item)``.
    """
    opts = options or WalkOptions()
    if isinstance(site_or_sitemaps, str) and is_site_url(site_or_sitemaps):
        found = await discover(site_or_sitemaps, client=client, probe=probe, max_bytes=opts.max_bytes)
        yield found
        seeds: list[SitemapSeed] = list(found.seeds)
    else:
        urls = [site_or_sitemaps] if isinstance(site_or_sitemaps, str) else list(site_or_sitemaps)
        seeds = [SitemapSeed(u) for u in urls]
    async for item in walk(seeds, client=client, options=opts):
        yield item
