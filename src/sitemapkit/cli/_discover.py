"""``sitemapkit discover``: find a site's sitemaps and print the tree (a thin adapter over walk_site)."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Progress,
    check_url,
    emit_json,
    plural,
    quiet_option,
    resolve_bare_host,
)
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.fetch import (
    Discovery,
    HttpClient,
    SitemapNode,
    WalkItem,
    format_tree,
    is_site_url,
    iterate_async,
    tree_dict,
    walk_site,
)

__all__ = ["discover"]


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
    followed (depth, count and byte limits apply). URL may also be a sitemap or index to start from, and
    may be a bare host (example.com): https first, then http when https does not connect.

    Each sitemap is shown with its type, HTTP status, entry count, size, time, how it was found, and its
    problems. Exit status 1 when no sitemap was found or any sitemap has errors. A site that does not answer at
    all (robots.txt and the home page) is reported as such, with the cause (SM532).

    \b
    Example:
      sitemapkit discover https://example.com/
      sitemapkit discover https://example.com/sitemap_index.xml --format json
    """
    url = check_url(resolve_bare_host(url))
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
        emit_json(tree_dict(found, roots, nodes, elapsed))
    else:
        click.echo(format_tree(found, roots, nodes, elapsed), nl=False)
    failed = not nodes or any(n.errors for n in nodes.values()) or (
        found is not None and any(p.is_error for p in found.problems))
    sys.exit(EXIT_FAILURE if failed else EXIT_OK)
