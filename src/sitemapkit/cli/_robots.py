"""``sitemapkit robots``: add ``Sitemap:`` lines to a robots.txt file, or check a live one (thin adapters over
:mod:`sitemapkit.submit._robotsfile` and :mod:`sitemapkit.submit._robotscheck`)."""

from __future__ import annotations

import sys
from typing import Any

import click

from sitemapkit.cli._common import EXIT_FAILURE, EXIT_OK, check_url, emit_json, fail, plural, stderr_console
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import InputError, InvalidValueError, Problem, escape_controls
from sitemapkit.submit import RobotsCheck, add_sitemaps, check_site

__all__ = ["robots"]


def _line(p: Problem) -> str:
    where = p.location.format()
    return f"{p.severity.value} {p.code}: {escape_controls(p.message)}" + (f" ({where})" if where else "")


def _render(report: RobotsCheck) -> None:
    out = [f"robots.txt: {report.robots_url} "
           f"{'no response' if report.robots_status is None else report.robots_status}, "
           f"{plural(len(report.sitemaps), 'sitemap')} listed"]
    for item in report.sitemaps:
        state = "ok" if item.ok else "PROBLEM"
        status = "no response" if item.status is None else str(item.status)
        allowed = "allowed" if item.allowed else "disallowed"
        out.append(f"  {state:8}{escape_controls(item.url)}  {status}  {item.kind or '-'}  {allowed}")
        for p in item.problems:
            out.append(f"          {_line(p)}")
    own = [p for p in report.problems if p.code.startswith("SM52") or p.code == "SM542"]
    if own:
        out.append("robots.txt lines:")
        out.extend(f"  {_line(p)}" for p in own)
    if report.unlisted:
        out.append("found but not listed in robots.txt:")
        out.extend(f"  {escape_controls(u)}" for u in report.unlisted)
    warnings = sum(1 for p in report.problems if not p.is_error)
    out.append(f"{plural(report.errors, 'error')}, {plural(warnings, 'warning')}")
    click.echo("\n".join(out))


@click.command("robots")
@click.argument("target", metavar="FILE|SITE")
@click.argument("urls", nargs=-1, metavar="[URL]...")
@click.option("--add", "add", is_flag=True,
              help="Add a 'Sitemap: URL' line for each URL to robots.txt FILE (created if missing); URLs "
                   "already listed are left alone.")
@click.option("--check", "check", is_flag=True,
              help="Fetch SITE's live robots.txt and check the sitemaps it lists (and those it misses).")
@click.option("--agent", default="*", show_default=True, metavar="NAME",
              help="With --check: the user agent whose robots.txt rules decide whether a sitemap is allowed.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format on standard output.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on standard error.")
@fetch_options
def robots(target: str, urls: tuple[str, ...], add: bool, check: bool, agent: str, fmt: str, quiet: bool,
           **fetch: Any) -> None:
    """Add Sitemap: lines to a robots.txt file, or check a site's live robots.txt.

    With --add, FILE keeps every group, comment and line ending as it was; new lines go at the end after a
    blank line (never inside a group) and the file is replaced atomically. A URL already listed is compared
    as a URL (scheme and host case, default port, percent-escape case do not matter), not as a string.

    With --check, SITE's robots.txt is fetched and the report says which sitemaps it lists, whether each is
    reachable, really a sitemap and allowed by the rules, which Sitemap: lines are relative or malformed,
    and which sitemaps discovery finds that robots.txt does not list. Exit status 1 when errors were found.

    \b
    Example:
      sitemapkit robots public/robots.txt --add https://example.com/sitemap.xml
      sitemapkit robots https://example.com/ --check
      sitemapkit robots https://example.com/ --check --format json
    """
    if add == check:
        raise click.UsageError("give exactly one of --add (with URLs) or --check")
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
        _render(report)
    sys.exit(EXIT_FAILURE if report.errors else EXIT_OK)
