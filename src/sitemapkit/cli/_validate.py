"""``sitemapkit validate``: a thin adapter over :func:`sitemapkit.validate`."""

from __future__ import annotations

import sys

import click

from sitemapkit.cli._common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, fail
from sitemapkit.core._errors import ConfigurationError, InputError
from sitemapkit.core._problems import Severity
from sitemapkit.validate._driver import validate as run_validate
from sitemapkit.validate._report import format_json, format_junit, format_text

__all__ = ["validate"]


@click.command("validate")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--profile", type=click.Choice(["sitemaps", "google"]), default="google", show_default=True,
              help="sitemaps: the protocol and the official XSDs; google: also Google's rules (image, video, "
                   "news, hreflang).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit"]), default="text", show_default=True,
              help="text: compiler-style lines and a summary; json: one object; junit: JUnit XML for CI.")
@click.option("--now", metavar="DATETIME", default=None,
              help="Reference time for future dates and news age (default: the current time), e.g. "
                   "2024-05-01T12:00:00Z.")
@click.option("--allow-cross-host", is_flag=True,
              help="Accept URLs on other hosts (robots.txt cross-submission, RULES.md 14).")
@click.option("--base-url", metavar="URL", default=None,
              help="Where SOURCE is published (a file's URL, or a directory URL ending in /); enables the scope "
                   "rule: every URL under the sitemap's own directory.")
@click.option("--fail-on", type=click.Choice(["error", "warning"]), default="error", show_default=True,
              help="Exit 1 on errors only, or on warnings too.")
@click.option("--no-xsd", is_flag=True, hidden=True, help="Skip the XSD pass (debugging).")
@click.option("--allow-private-addresses", is_flag=True,
              help="For URL sources: let child sitemaps and redirects reach loopback, private, link-local and other "
                   "special addresses (refused by default, except the class of the given URL's own address).")
def validate(sources: tuple[str, ...], profile: str, fmt: str, now: str | None, allow_cross_host: bool,
             base_url: str | None, fail_on: str, no_xsd: bool, allow_private_addresses: bool = False) -> None:
    """Validate sitemaps: files, gzip files, directories, indexes with their children next to them, and URLs
    (a sitemap, an index whose children are fetched too, or a site URL discovered through robots.txt).

    Checks well-formedness, UTF-8, the namespace, the official XSDs (bundled, offline), locs, lastmod,
    limits, text sitemaps and, with the google profile, images, videos, news and hreflang (including
    reciprocity across every file given). Every problem has a code listed in docs/checks.md.

    Exit status: 0 valid (warnings allowed unless --fail-on warning), 1 not valid, 2 usage error.

    Example:

        sitemapkit validate public/sitemap.xml --base-url https://example.org/sitemap.xml

        sitemapkit validate public/ --format junit > sitemap-report.xml

        sitemapkit validate https://example.org/sitemap.xml --fail-on warning
    """
    fetch = None
    if allow_private_addresses:
        from sitemapkit.fetch._sources import FetchSettings  # the fetching stack is only loaded when needed

        fetch = FetchSettings(allow_private_addresses=True)
    try:
        report = run_validate(list(sources), profile=profile, now=now, allow_cross_host=allow_cross_host,
                              base_url=base_url, xsd=not no_xsd, fetch=fetch)
    except (ConfigurationError, InputError) as exc:
        fail(str(exc), EXIT_USAGE)
    if fmt == "json":
        out = format_json(report)
    elif fmt == "junit":
        out = format_junit(report)
    else:
        out = format_text(report)
    sys.stdout.write(out)
    sys.stdout.flush()
    ok = report.passes(Severity.WARNING if fail_on == "warning" else Severity.ERROR)
    sys.exit(EXIT_OK if ok else EXIT_FAILURE)
