"""Check a sitemap (validate, grouped by code with the registry's explanation, and its URL list) and discover a
site's sitemap tree: adapters over :mod:`sitemapkit.validate`, :mod:`sitemapkit.read` and :mod:`sitemapkit.fetch`.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from sitemapkit.core import CODES, Problem, SitemapkitError, is_absolute_http_url
from sitemapkit.fetch import (
    AddressPolicy,
    Discovery,
    FetchSettings,
    HttpClient,
    SitemapNode,
    Timeouts,
    WalkOptions,
    choose_scheme,
    walk_site,
)
from sitemapkit.read import parse_bytes
from sitemapkit.validate import validate_bytes, validate_sitemaps

__all__ = ["CheckError", "check_children", "check_document", "discover_tree", "fetch_document", "with_scheme"]

#: URLs listed by a check (the count is always exact).
MAX_LISTED_URLS = 50_000
#: Seconds a discovery may take before it is cut short.
DISCOVER_TIMEOUT = 60.0
#: Child sitemaps of an index checked at most (an index may list 50,000).
MAX_CHILDREN = 500


class CheckError(Exception):
    """A check that cannot run (bad URL, fetch failure): the message says what and where."""


def _client(url: str) -> HttpClient:
    return HttpClient(timeouts=Timeouts(connect=10.0, read=30.0, total=None),
                      address_policy=AddressPolicy.for_seeds([url]))


def _problem(p: Problem) -> dict[str, Any]:
    return {"severity": p.severity.value, "message": p.message, "line": p.location.line,
            "column": p.location.column, "loc": p.location.loc}


async def with_scheme(url: str) -> str:
    """A bare host name (``example.com/sitemap.xml``): https when it connects, else http (as ``crawl`` and the
    other commands choose, :func:`sitemapkit.fetch.choose_scheme`); anything else as typed."""
    url = url.strip()
    if not url or "://" in url:
        return url
    return (await choose_scheme(url, connect_timeout=10.0)).url


async def fetch_document(url: str, max_bytes: int) -> tuple[str, bytes]:
    """The body of the sitemap at ``url`` (final URL after redirects): what a check of a pasted URL reads."""
    url = await with_scheme(url)
    if not is_absolute_http_url(url):
        raise CheckError(f"url: not an absolute http(s) URL: {url!r}")
    await _reachable(url)
    try:
        async with _client(url) as client:
            response = await client.get(url, max_bytes=max_bytes)
    except SitemapkitError as exc:
        raise CheckError(_fetch_failure(url, str(exc))) from None
    if response.status != 200:
        raise CheckError(f"{url}: the server answered HTTP {response.status}")
    return response.final_url, response.body


def _fetch_failure(url: str, cause: str) -> str:
    """A fetch failure in plain words: a connection that could not be made is named as such, with its cause."""
    host = urlsplit(url).netloc or url
    at = cause.find("cannot connect")
    if at >= 0:
        return f"cannot connect to {host}: {cause[at:].removeprefix('cannot connect').lstrip(': ') or 'no answer'}"
    return f"{url}: could not be fetched: {cause.removeprefix(url + ': ')}"


def _groups(problems: list[Problem], tally: dict[str, int]) -> list[dict[str, Any]]:
    """Problems grouped by code, each group with the code's title and its fix from the problem registry."""
    groups: dict[str, dict[str, Any]] = {}
    for p in problems:
        group = groups.get(p.code)
        if group is None:
            known = CODES.get(p.code)  # registered: the layer that reported it is imported
            group = groups[p.code] = {
                "code": p.code, "severity": p.severity.value, "title": known.title if known else p.code,
                "fix": known.fix if known else "", "count": tally.get(p.code, 0), "problems": []}
        group["problems"].append(_problem(p))
    return sorted(groups.values(), key=lambda g: (g["severity"] != "error", g["code"]))


def check_children(children: list[str]) -> list[dict[str, Any]]:
    """The child sitemaps of an index, each fetched and validated the way ``sitemapkit validate`` follows an
    index (a missing or unreachable child is an error), each with its own problems."""
    if not children:
        return []
    settings = FetchSettings(timeout=60.0, retries=1, max_depth=1)
    report = validate_sitemaps(children[:MAX_CHILDREN], fetch=settings)
    by_source: dict[str, list[Problem]] = {}
    for p in report.problems:
        by_source.setdefault(p.location.source, []).append(p)
    return [{"source": f.source, "kind": f.kind, "entries": f.entries, "errors": f.errors, "warnings": f.warnings,
             "valid": f.errors == 0, "groups": _groups(by_source.get(f.source, []), f.tally)}
            for f in report.files]


def check_document(data: bytes, source: str, sitemap_url: str | None) -> dict[str, Any]:
    """Validate one document and list its URLs (problems grouped by code); an index has its children checked
    too (``children``: each child with its problems), and their errors count."""
    report = validate_bytes(data, source=source, sitemap_url=sitemap_url)
    parsed = parse_bytes(data, source)
    urls = [e.loc for e in parsed.entries[:MAX_LISTED_URLS]] or [s.loc for s in parsed.sitemaps[:MAX_LISTED_URLS]]
    files = report.files
    kind = files[0].kind if files else parsed.kind.value
    children = check_children([s.loc for s in parsed.sitemaps]) if kind == "index" else []
    child_errors = sum(c["errors"] for c in children)
    return {
        "source": source,
        "kind": kind,
        "valid": report.valid and child_errors == 0,
        "errors": report.error_count + child_errors,
        "warnings": report.warning_count + sum(c["warnings"] for c in children),
        "groups": _groups(list(report.problems), dict(report.tally)),
        "children": children,
        "children_total": len(parsed.sitemaps) if kind == "index" else 0,
        "url_count": len(parsed.entries) or len(parsed.sitemaps),
        "urls": urls,
    }


async def _reachable(url: str) -> None:
    """One connection to the site's host first: a host that refuses it (or has no address) is named at once, not
    after the retries of robots.txt and every well-known path."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        async with asyncio.timeout(10.0):
            _, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        raise CheckError(f"cannot connect to {parts.netloc}: no answer within 10 s") from None
    except OSError as exc:
        raise CheckError(f"cannot connect to {parts.netloc}: {exc.strerror or exc}") from None
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass


def _tree(url: str, nodes: dict[str, SitemapNode]) -> dict[str, Any]:
    node = nodes[url]
    d = node.to_dict()
    d["sitemaps"] = [_tree(c, nodes) for c in node.children if c in nodes and nodes[c].parent == url]
    return d


async def discover_tree(url: str) -> dict[str, Any]:
    """The sitemaps of the site (or sitemap) at ``url`` as a tree, with robots.txt and the well-known paths
    tried: what ``sitemapkit discover --format json`` shows."""
    url = await with_scheme(url)
    if not is_absolute_http_url(url):
        raise CheckError(f"url: not an absolute http(s) URL: {url!r}")
    await _reachable(url)
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
        raise CheckError(_fetch_failure(url, str(exc))) from None
    if found is not None and not nodes and found.robots_status is None and all(s is None for _, s, _ in found.probed):
        causes = [p.message for p in found.problems]
        cause = next((c for c in causes if "connect" in c), causes[0] if causes else "no answer")
        cause = cause if "cannot connect" in cause else f"cannot connect: {cause}"
        raise CheckError(_fetch_failure(url, cause))
    return {
        "url": url,
        "discovery": found.to_dict() if found is not None else None,
        "sitemaps": [_tree(r, nodes) for r in roots],
        "total_sitemaps": len(nodes),
        "total_urls": sum(n.entries for n in nodes.values()),
    }
