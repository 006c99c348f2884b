"""``sitemapkit robots``: add ``Sitemap:`` lines to a robots.txt file, check a live one, or check files on disk
(thin adapters over :mod:`sitemapkit.submit`'s ``add_sitemaps``, ``check_site`` and ``lint_robots_file``)."""

from __future__ import annotations

import sys
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    check_url,
    emit_json,
    fail,
    stderr_console,
)
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import InputError, InvalidValueError, escape_controls
from sitemapkit.submit import add_sitemaps, check_site, lint_robots_files

__all__ = ["robots"]


def _lint(files: tuple[str, ...], base_url: str | None, fmt: str) -> None:
    if base_url is not None:
        check_url(base_url, "--base-url")
    try:
        lint = lint_robots_files(files, base_url=base_url)
    except InputError as exc:
        fail(str(exc), EXIT_USAGE)
    if fmt == "json":
        emit_json({"files": list(lint.found), "problems": [p.to_dict() for p in lint.problems]})
    else:
        for p in lint.problems:
            click.echo(p.format())
        click.echo(lint.summary())
    sys.exit(EXIT_FAILURE if lint.problems else EXIT_OK)


@click.command("robots")
@click.argument("target", metavar="FILE|SITE")
@click.argument("urls", nargs=-1, metavar="[URL]...")
@click.option("--add", "add", is_flag=True,
              help="Add a 'Sitemap: URL' line for each URL to robots.txt FILE (created if missing); URLs "
                   "already listed are left alone.")
@click.option("--check", "check", is_flag=True,
              help="Fetch SITE's live robots.txt and check the sitemaps it lists (and those it misses).")
@click.option("--lint", "lint", is_flag=True,
              help="Check robots.txt files on disk (FILE and every further argument; nothing is fetched): their "
                   "Sitemap: lines must be absolute http(s) URLs, well formed, listed once. Exit 1 on any problem. "
                   "The sitemapkit-robots pre-commit hook runs this.")
@click.option("--base-url", metavar="URL", default=None,
              help="With --lint: where the folder holding each robots.txt is served (the site root); listed "
                   "sitemaps under it must exist in that folder (SM543).")
@click.option("--agent", default="*", show_default=True, metavar="NAME",
              help="With --check: the user agent whose robots.txt rules decide whether a sitemap is allowed.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format on standard output.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on standard error.")
@fetch_options
def robots(target: str, urls: tuple[str, ...], add: bool, check: bool, agent: str, fmt: str, quiet: bool,
           lint: bool = False, base_url: str | None = None, **fetch: Any) -> None:
    """Add Sitemap: lines to a robots.txt file, check a site's live robots.txt, or check robots.txt files on disk.

    With --add, FILE keeps every group, comment and line ending as it was; new lines go at the end after a
    blank line (never inside a group) and the file is replaced atomically. A URL already listed is compared
    as a URL (scheme and host case, default port, percent-escape case do not matter), not as a string.

    With --check, SITE's robots.txt is fetched and the report says which sitemaps it lists, whether each is
    reachable, really a sitemap and allowed by the rules, which Sitemap: lines are relative or malformed,
    and which sitemaps discovery finds that robots.txt does not list. Exit status 1 when errors were found.

    With --lint, every argument is a robots.txt file on disk (as a pre-commit hook passes them): each
    Sitemap: line is checked as above without fetching anything, a file listing no sitemap is reported, and
    with --base-url each listed sitemap under it must exist next to robots.txt. One FILE:LINE: line per
    problem; exit status 1 when any was found.

    \b
    Example:
      sitemapkit robots public/robots.txt --add https://example.com/sitemap.xml
      sitemapkit robots https://example.com/ --check
      sitemapkit robots https://example.com/ --check --format json
      sitemapkit robots --lint public/robots.txt --base-url https://example.com/
    """
    if add + check + lint != 1:
        raise click.UsageError("give exactly one of --add (with URLs), --check or --lint")
    if base_url is not None and not lint:
        raise click.UsageError("--base-url goes with --lint")
    if lint:
        _lint((target, *urls), base_url, fmt)
    if add:
        if not urls:
            raise click.UsageError("--add needs at least one sitemap URL")
        for url in urls:
            check_url(url)
        try:
            edit = add_sitemaps(target, list(urls))
        except (InputError, InvalidValueError) as exc:
            fail(str(exc), 2)
        if fmt == "json":
            emit_json({"file": edit.path, "added": list(edit.added), "present": list(edit.present),
                       "created": edit.created, "written": edit.written})
        else:
            for url in edit.added:
                click.echo(f"added: Sitemap: {escape_controls(url)}")
            for url in edit.present:
                click.echo(f"already listed: {escape_controls(url)}")
        sys.exit(EXIT_OK)
    if urls:
        raise click.UsageError("--check takes no URLs after SITE")
    check_url(target, "SITE")
    if not quiet:
        stderr_console().print(f"checking {escape_controls(target)} ...", markup=False)
    report = check_site(target, settings=settings_from(fetch), user_agent=agent)
    if fmt == "json":
        emit_json(report.to_dict())
    else:
        click.echo(report.format())
    sys.exit(EXIT_FAILURE if report.errors else EXIT_OK)
