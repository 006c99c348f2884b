"""``sitemapkit discover``: find a site's sitemaps and print the tree (a thin adapter over walk_site)."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import click

from sitemapkit.cli._common import EXIT_FAILURE, EXIT_OK, Progress, check_url, emit_json, plural, quiet_option
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import Problem, Severity, escape_controls
from sitemapkit.fetch import Discovery, HttpClient, SitemapNode, WalkItem, is_site_url, iterate_async, walk_site

__all__ = ["discover"]


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def _describe(node: SitemapNode) -> str:
    kind = node.kind.value if node.kind is not None else "-"
    status = str(node.status) if node.status is not None else "no response"
    if node.kind is None:
        count = "not read"
    elif node.children:
        count = f"{len(node.children):,} sitemap{'s' if len(node.children) != 1 else ''}"
        if node.entries:
            count += f", {node.entries:,} URLs"
    else:
        count = f"{node.entries:,} URL{'s' if node.entries != 1 else ''}"
    return (f"{node.url}  [{kind}] {status}  {count}  {_size(node.size)}  {node.elapsed * 1000:.0f} ms  "
            f"via {node.found_via.value}")


def _problem_line(p: Problem) -> str:
    where = p.location.format()
    return f"{p.severity.value} {p.code}: {escape_controls(p.message)}" + (f" ({where})" if where else "")


def _render_text(found: Discovery | None, roots: list[str], nodes: dict[str, SitemapNode], elapsed: float) -> None:
    out: list[str] = []
    if found is not None:
        status = "no response" if found.robots_status is None else str(found.robots_status)
        n = len(found.robots.sitemaps) if found.robots else 0
        out.append(f"{found.site_url}")
        if found.unreachable is None:  # else the one problem says why (SM532): nothing else was tried
            out.append(f"robots.txt: {found.robots_url} {status}, {n} sitemap{'s' if n != 1 else ''} listed")
        hits = [u for u, _, hit in found.probed if hit]
        if found.probed:
            out.append(f"well-known paths: {len(found.probed)} tried, {len(hits)} found")
        for p in found.problems:
            out.append(f"  {_problem_line(p)}")
        out.append("")

    def emit(url: str, prefix: str, last: bool, top: bool) -> None:
        node = nodes.get(url)
        if node is None:
            return
        branch = "" if top else ("└── " if last else "├── ")
        out.append(f"{prefix}{branch}{_describe(node)}")
        child_prefix = prefix + ("" if top else ("    " if last else "│   "))
        kids = [c for c in node.children if c in nodes and nodes[c].parent == url]
        for p in node.problems:
            out.append(f"{child_prefix}{'│ ' if kids else '  '} {_problem_line(p)}")
        if node.problem_count > len(node.problems):
            out.append(f"{child_prefix}   ... {node.problem_count - len(node.problems)} more problems")
        for i, kid in enumerate(kids):
            emit(kid, child_prefix, i == len(kids) - 1, False)

    for root in roots:
        emit(root, "", True, True)
    total_urls = sum(n.entries for n in nodes.values())
    errors = sum(1 for n in nodes.values() for p in n.problems if p.severity is Severity.ERROR)
    if found is not None:
        errors += sum(1 for p in found.problems if p.severity is Severity.ERROR)
    warnings = sum(1 for n in nodes.values() for p in n.problems if p.severity is Severity.WARNING)
    if found is not None:
        warnings += sum(1 for p in found.problems if p.severity is Severity.WARNING)
    out.append("")
    out.append(f"{len(nodes):,} sitemap{'s' if len(nodes) != 1 else ''}, {total_urls:,} URLs, {errors} error"
               f"{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''} in {elapsed:.2f} s")
    click.echo("\n".join(out))


def _tree_json(url: str, nodes: dict[str, SitemapNode]) -> dict[str, Any]:
    node = nodes[url]
    d = node.to_dict()
    d["sitemaps"] = [_tree_json(c, nodes) for c in node.children if c in nodes and nodes[c].parent == url]
    return d


class _Counts:
    """What ``discover`` has found so far, for the progress line (see :class:`~sitemapkit.cli._common.Progress`):
    a live line on a terminal, else a plain line every 10 s; ``--quiet`` turns it off."""

    def __init__(self, url: str) -> None:
        self.what = f"discovering {url}" if is_site_url(url) else f"reading {url}"
        self.robots: str | None = None
        self.sitemaps = 0
        self.urls = 0

    def describe(self) -> str:
        robots = f"robots.txt {self.robots}, " if self.robots is not None else ""
        return (f"{self.what}: {robots}{plural(self.sitemaps, 'sitemap')} read, "
                f"{plural(self.urls, 'URL')}")


@click.command(name="discover")
@click.argument("url")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format on standard output.")
@quiet_option
@fetch_options
def discover(url: str, fmt: str, quiet: bool, **fetch: Any) -> None:
    """Find the sitemaps of a site and print the tree.

    URL is a site (https://example.com/): robots.txt is read first; when it names no sitemap, well-known paths
    (/sitemap.xml, /sitemap_index.xml, ...) and <link rel="sitemap"> in the home page are tried. Indexes are
    followed (depth, count and byte limits apply). URL may also be a sitemap or index to start from.

    Each sitemap is shown with its type, HTTP status, entry count, size, time, how it was found, and its
    problems. Exit status 1 when no sitemap was found or any sitemap has errors. A site that does not answer at
    all (robots.txt and the home page) is reported as such, with the cause (SM532).

    \b
    Example:
      sitemapkit discover https://example.com/
      sitemapkit discover https://example.com/sitemap_index.xml --format json
    """
    check_url(url)
    settings = settings_from(fetch)
    started = time.monotonic()
    found: Discovery | None = None
    nodes: dict[str, SitemapNode] = {}
    roots: list[str] = []
    opts = settings.walk_options(yield_entries=False)

    def factory(client: HttpClient) -> AsyncIterator[Discovery | WalkItem]:
        return walk_site(url, client=client, options=opts, probe=settings.probe)

    counts = _Counts(url)
    with Progress(counts.describe, quiet=quiet):
        for item in iterate_async(factory, settings, seeds=[url]):
            if isinstance(item, Discovery):
                found = item
                counts.robots = "no response" if item.robots_status is None else str(item.robots_status)
            elif isinstance(item, SitemapNode):
                nodes[item.url] = item
                if item.parent is None:
                    roots.append(item.url)
                counts.sitemaps += 1
                counts.urls += item.entries
    elapsed = time.monotonic() - started
    if fmt == "json":
        emit_json({
            "discovery": found.to_dict() if found is not None else None,
            "sitemaps": [_tree_json(r, nodes) for r in roots],
            "summary": {
                "sitemaps": len(nodes),
                "urls": sum(n.entries for n in nodes.values()),
                "errors": sum(n.errors for n in nodes.values()),
                "elapsed": round(elapsed, 3),
            },
        })
    else:
        _render_text(found, roots, nodes, elapsed)
    failed = not nodes or any(n.errors for n in nodes.values()) or (
        found is not None and any(p.is_error for p in found.problems))
    sys.exit(EXIT_FAILURE if failed else EXIT_OK)
