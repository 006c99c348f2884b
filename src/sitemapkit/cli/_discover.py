"""``sitemapkit discover``: find a site's sitemaps and print the tree (a thin adapter over walk_site)."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Progress,
    check_url,
    emit_json,
    quiet_option,
    resolve_bare_host,
)
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.fetch import SiteTree, discover_tree

__all__ = ["discover"]


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
    tree = SiteTree()
    with Progress(lambda: tree.describe(url), quiet=quiet):
        discover_tree(url, settings, tree)
    elapsed = time.monotonic() - started
    if fmt == "json":
        emit_json(tree.to_dict(elapsed))
    else:
        click.echo(tree.format(elapsed), nl=False)
    sys.exit(EXIT_FAILURE if tree.failed else EXIT_OK)
