"""``sitemapkit validate``: a thin adapter over :func:`sitemapkit.validate_sitemaps`."""

from __future__ import annotations

import sys
import time

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    Progress,
    check_sources,
    fail,
)
from sitemapkit.core import ConfigurationError, InputError, Severity
from sitemapkit.validate import (
    MAX_PROBLEMS_PER_CODE,
    REPORT_FORMATS,
    ValidateProgress,
    format_report,
    validate_sitemaps,
)

__all__ = ["validate"]


class _Counts:
    """What ``validate`` has done so far, for the progress line: the run's hook stores the latest counts (in
    the main thread), the progress thread only reads them."""

    def __init__(self, sources: int) -> None:
        self._sources = sources
        self._started = time.monotonic()
        self._latest = ValidateProgress(0, 0, 0)

    def update(self, progress: ValidateProgress) -> None:
        self._latest = progress

    def describe(self) -> str:
        return self._latest.describe(self._sources, time.monotonic() - self._started)


@click.command("validate")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--profile", type=click.Choice(["sitemaps", "google"]), default="google", show_default=True,
              help="sitemaps: the protocol and the official XSDs; google: also Google's rules (image, video, "
                   "news, hreflang).")
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), default="text",
              show_default=True,
              help="text: compiler-style lines and a summary; json: one object; junit: JUnit XML for CI; github: "
                   "GitHub Actions annotations (::error file=...,line=...::); sarif: SARIF 2.1.0 for code scanning. "
                   "Paths in github and sarif are relative to the working directory.")
@click.option("--now", metavar="DATETIME", default=None,
              help="Reference time for future dates and news age (default: the current time), e.g. "
                   "2024-05-01T12:00:00Z.")
@click.option("--allow-cross-host", is_flag=True,
              help="Accept URLs on other hosts (robots.txt cross-submission).")
@click.option("--base-url", metavar="URL", default=None,
              help="Where SOURCE is published (a file's URL, or a directory URL ending in /); enables the scope "
                   "rule: every URL under the sitemap's own directory.")
@click.option("--fail-on", type=click.Choice(["error", "warning"]), default="error", show_default=True,
              help="Exit 1 on errors only, or on warnings too.")
@click.option("--max-problems", metavar="N", type=click.IntRange(min=0), default=MAX_PROBLEMS_PER_CODE,
              show_default=True,
              help="List at most N problems of one code per file (file-level problems are always listed); the "
                   "tally per code counts every one.")
@click.option("--no-xsd", is_flag=True, hidden=True, help="Skip the XSD pass (debugging).")
@click.option("--allow-private-addresses", is_flag=True,
              help="For URL sources: let child sitemaps and redirects reach loopback, private, link-local and other "
                   "special addresses (refused by default, except the class of the given URL's own address).")
@click.option("--quiet", "-q", is_flag=True,
              help="Print the summary and the tally per code only: no problem lines, no progress.")
def validate(sources: tuple[str, ...], profile: str, fmt: str, now: str | None, allow_cross_host: bool,
             base_url: str | None, fail_on: str, no_xsd: bool, allow_private_addresses: bool = False,
             quiet: bool = False, max_problems: int = MAX_PROBLEMS_PER_CODE) -> None:
    """Validate sitemaps: files, gzip files, directories, indexes with their children next to them, and URLs
    (a sitemap, an index whose children are fetched too, or a site URL discovered through robots.txt).

    Checks well-formedness, UTF-8, the namespace, the official XSDs (bundled, offline), locs, lastmod,
    limits, text sitemaps and, with the google profile, images, videos, news and hreflang (including
    reciprocity across every file given). Every problem has a stable code (SMnnn). In a directory, files
    that are not sitemaps (robots.txt, HTML pages) are listed as skipped.

    The report is the output: it goes to standard output, problems included; progress and errors go to
    standard error. Exit status 1 when the sources are not valid (warnings count with --fail-on warning).
    The text report lists the first 5 problems of each code per file, then one line counting the rest
    ("… and 99,995 more SM307"); --format json and junit list every problem; -q prints the summary only.

    \b
    Example:
      sitemapkit validate public/ --base-url https://example.org/
      sitemapkit validate public/ --format junit > sitemap-report.xml
      sitemapkit validate public/ --format github
      sitemapkit validate public/ --format sarif > sitemapkit.sarif
      sitemapkit validate https://example.org/sitemap.xml --fail-on warning
    """
    check_sources(sources, stdin=False)
    fetch = None
    if allow_private_addresses:
        from sitemapkit.fetch import FetchSettings  # the fetching stack is only loaded when needed

        fetch = FetchSettings(allow_private_addresses=True)
    counts = _Counts(len(sources))
    try:
        with Progress(counts.describe, quiet=quiet):
            report = validate_sitemaps(list(sources), profile=profile, now=now, allow_cross_host=allow_cross_host,
                                       base_url=base_url, xsd=not no_xsd, fetch=fetch, max_problems=max_problems,
                                       on_progress=None if quiet else counts.update)
    except (ConfigurationError, InputError) as exc:
        fail(str(exc), EXIT_USAGE)
    out = format_report(report, fmt, summary_only=quiet)
    sys.stdout.write(out)
    sys.stdout.flush()
    ok = report.passes(Severity.WARNING if fail_on == "warning" else Severity.ERROR)
    sys.exit(EXIT_OK if ok else EXIT_FAILURE)
