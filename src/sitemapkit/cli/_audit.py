"""``sitemapkit audit``: a site's sitemaps against the live site (crawl + one live check per sitemap URL).

Only adapts the library: :func:`sitemapkit.audit.audit` does the job, :func:`sitemapkit.audit.write_reports`
writes audit.json, audit.csv and audit.html; this module parses the options and prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sitemapkit.audit import (
    AUDIT_HTML,
    AuditOptions,
    AuditResult,
    audit,
    parse_categories,
    text_summary,
    write_csv,
    write_json,
    write_reports,
)
from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    check_sources,
    quiet_option,
    resolve_bare_host,
    stderr_console,
)
from sitemapkit.cli._crawlopts import audit_crawl_options
from sitemapkit.core import ConfigurationError
from sitemapkit.crawl import crawl_options_from

__all__ = ["audit_command"]


def _fail_on(_ctx: click.Context, _param: click.Parameter, value: str | None) -> frozenset[str]:
    if not value:
        return frozenset()
    try:
        return parse_categories(value)
    except ConfigurationError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("audit")
@click.argument("site")
@click.option("--sitemap", "sitemaps", multiple=True, metavar="URL",
              help="Audit this sitemap (URL or file; repeatable) instead of discovering the site's.")
@click.option("--report-dir", "out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Write audit.json, audit.csv and audit.html into DIR.")
@click.option("--out", "-o", "old_out", type=click.Path(file_okay=False, path_type=Path), default=None,
              hidden=True)  # --report-dir's name before crawl's reports moved there too (issue 26)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True,
              help="What standard output shows: a summary, the JSON report, or the CSV.")
@click.option("--fail-on", callback=_fail_on, default=None, metavar="LIST",
              help="Exit 1 when any of these comma-separated categories is found ('all': any); default: never.")
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="Check a random sample of N sitemap URLs live; rates with 95% intervals.")
@click.option("--seed", type=int, default=None, metavar="N", help="Random seed for --sample (repeatable runs).")
@click.option("--no-crawl", is_flag=True, help="Skip the crawl (no orphan / missing_from_sitemap findings).")
@click.option("--state", "state_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Keep the audit's working set in this SQLite file (default: in memory).")
@audit_crawl_options
@quiet_option
def audit_command(site: str, *, sitemaps: tuple[str, ...], out: Path | None, old_out: Path | None, fmt: str,
                  fail_on: frozenset[str],
                  sample: int | None, seed: int | None, no_crawl: bool, state_path: str | None,
                  crawl_values: dict[str, Any], quiet: bool) -> None:
    """Audit SITE's sitemaps against the live site: find the sitemaps, read
    every URL (with its sitemap file and line), crawl the site, check every
    sitemap URL live and report each finding with its evidence. SITE may be
    a bare host (example.com): https first, then http when https does not
    connect.

    Categories: not_found, redirect, noindex, canonicalized,
    blocked_by_robots, not_html, soft_404, missing_from_sitemap, orphan,
    duplicate, out_of_scope, lastmod_future, lastmod_uniform,
    lastmod_behind, hreflang_not_reciprocal, hreflang_target_broken.
    soft_404 and lastmod_uniform are heuristics; the evidence says why.

    \b
    Example:
      sitemapkit audit https://example.com/ --report-dir audit/
      sitemapkit audit https://example.com/ --format json > audit.json
      sitemapkit audit https://example.com/ --fail-on not_found,redirect
      sitemapkit audit https://example.com/ --sample 1000 --seed 1
    """
    site = resolve_bare_host(site)
    check_sources([site], stdin=False, param_hint="SITE")
    check_sources(sitemaps, stdin=False, param_hint="--sitemap")
    if "://" not in site:
        raise click.BadParameter(f"not an http(s) URL: {site!r}", param_hint="SITE")
    crawl = crawl_options_from(crawl_values)
    options = AuditOptions(sitemaps=sitemaps, crawl=crawl, sample=sample, seed=seed, crawl_site=not no_crawl,
                           allow_private_addresses=crawl.allow_private_addresses)
    console = stderr_console()

    def progress(line: str) -> None:
        if not quiet:
            console.print(f"sitemapkit: {line}", markup=False)

    result = audit(site, options, state_path=state_path, progress=progress)
    try:
        _finish(result, out or old_out, fmt, fail_on, quiet)
    finally:
        result.close()


def _finish(result: AuditResult, out: Path | None, fmt: str, fail_on: frozenset[str], quiet: bool) -> None:
    for note in result.notes:
        click.echo(f"sitemapkit: note: {note}", err=True)
    nothing = result.sitemap_urls == 0
    if out is not None:
        write_reports(result, out)
        if not quiet:
            click.echo(f"sitemapkit: report written to {out / AUDIT_HTML}", err=True)
    if fmt == "json":
        write_json(result, sys.stdout)
    elif fmt == "csv":
        write_csv(result, sys.stdout)
    else:
        click.echo(text_summary(result))
    summary = result.summary()
    found = sorted(c for c in fail_on if summary.get(c))
    if found:
        click.echo(f"sitemapkit: findings in --fail-on categories: {', '.join(found)}", err=True)
    if nothing:  # nothing to audit (no sitemap, or the site cannot be reached): the job failed
        click.echo(f"sitemapkit: error: no sitemap URL found for {result.site}", err=True)
    sys.exit(EXIT_FAILURE if found or nothing else EXIT_OK)
