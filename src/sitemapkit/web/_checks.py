"""Check a sitemap (validate, grouped by code with the registry's explanation, and its URL list) and discover a
site's sitemap tree: adapters over :mod:`sitemapkit.validate`, :mod:`sitemapkit.read` and :mod:`sitemapkit.fetch`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sitemapkit.core import CODES, Problem, SitemapkitError, is_absolute_http_url
from sitemapkit.fetch import AddressPolicy, Discovery, HttpClient, SitemapNode, Timeouts, WalkOptions, walk_site
from sitemapkit.read import parse_bytes
from sitemapkit.validate import validate_bytes

__all__ = ["CheckError", "check_document", "discover_tree", "fetch_document"]

#: URLs listed by a check (the count is always exact).
MAX_LISTED_URLS = 50_000
#: Seconds a discovery may take before it is cut short.
DISCOVER_TIMEOUT = 60.0


class CheckError(Exception):
    """A check that cannot run (bad URL, fetch failure): the message says what and where."""


def _client(url: str) -> HttpClient:
    return HttpClient(timeouts=Timeouts(connect=10.0, read=30.0, total=None),
                      address_policy=AddressPolicy.for_seeds([url]))


def _problem(p: Problem) -> dict[str, Any]:
    return {"severity": p.severity.value, "message": p.message, "line": p.location.line,
            "column": p.location.column, "loc": p.location.loc}


async def fetch_document(url: str, max_bytes: int) -> tuple[str, bytes]:
    """The body of the sitemap at ``url`` (final URL after redirects): what a check of a pasted URL reads."""
    if not is_absolute_http_url(url):
        raise CheckError(f"url: not an absolute http(s) URL: {url!r}")
    try:
        async with _client(url) as client:
            response = await client.get(url, max_bytes=max_bytes)
    except SitemapkitError as exc:
        raise CheckError(f"{url}: could not be fetched: {exc}") from None
    if response.status != 200:
        raise CheckError(f"{url}: the server answered HTTP {response.status}")
    return response.final_url, response.body


def check_document(data: bytes, source: str, sitemap_url: str | None) -> dict[str, Any]:
    """Validate one document and list its URLs: problems grouped by code, each group with the code's title and
    its fix from the problem registry."""
    report = validate_bytes(data, source=source, sitemap_url=sitemap_url)
    groups: dict[str, dict[str, Any]] = {}
    for p in report.problems:
        group = groups.get(p.code)
        if group is None:
            known = CODES.get(p.code)  # registered: the layer that reported it is imported
            group = groups[p.code] = {
                "code": p.code, "severity": p.severity.value, "title": known.title if known else p.code,
                "fix": known.fix if known else "", "count": report.tally.get(p.code, 0), "problems": []}
        group["problems"].append(_problem(p))
    ordered = sorted(groups.values(), key=lambda g: (g["severity"] != "error", g["code"]))
    parsed = parse_bytes(data, source)
    urls = [e.loc for e in parsed.entries[:MAX_LISTED_URLS]] or [s.loc for s in parsed.sitemaps[:MAX_LISTED_URLS]]
    files = report.files
    return {
        "source": source,
        "kind": files[0].kind if files else parsed.kind.value,
        "valid": report.valid,
        "errors": report.error_count,
        "warnings": report.warning_count,
        "groups": ordered,
        "url_count": len(parsed.entries) or len(parsed.sitemaps),
        "urls": urls,
    }


def _tree(url: str, nodes: dict[str, SitemapNode]) -> dict[str, Any]:
    node = nodes[url]
    d = node.to_dict()
    d["sitemaps"] = [_tree(c, nodes) for c in node.children if c in nodes and nodes[c].parent == url]
    return d


async def discover_tree(url: str) -> dict[str, Any]:
    """The sitemaps of the site (or sitemap) at ``url`` as a tree, with robots.txt and the well-known paths
    tried: what ``sitemapkit discover --format json`` shows."""
    if not is_absolute_http_url(url):
        raise CheckError(f"url: not an absolute http(s) URL: {url!r}")
    found: Discovery | None = None
    nodes: dict[str, SitemapNode] = {}
    roots: list[str] = []
    try:
        async with asyncio.timeout(DISCOVER_TIMEOUT), _client(url) as client:
            async for item in walk_site(url, client=client, options=WalkOptions(yield_entries=False)):
                if isinstance(item, Discovery):
                    found = item
                elif isinstance(item, SitemapNode):
                    nodes[item.url] = item
                    if item.parent is None:
                        roots.append(item.url)
    except TimeoutError:
        raise CheckError(f"{url}: discovery took longer than {DISCOVER_TIMEOUT:.0f} s") from None
    except SitemapkitError as exc:
        raise CheckError(f"{url}: {exc}") from None
    return {
        "url": url,
        "discovery": found.to_dict() if found is not None else None,
        "sitemaps": [_tree(r, nodes) for r in roots],
        "total_sitemaps": len(nodes),
        "total_urls": sum(n.entries for n in nodes.values()),
    }
