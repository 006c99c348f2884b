"""``sitemapkit crawl``: crawl a site, publish its sitemap set and write the crawl reports.

Only adapts the library: :func:`sitemapkit.crawl_site` does the job (crawl into a state file, publish through the
write layer, write ``crawl-report.json`` and ``report.html``); this module parses the options and prints.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import click
from rich.live import Live
from rich.text import Text

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Progress,
    fail,
    print_problem,
    quiet_option,
    stderr_console,
)
from sitemapkit.cli._outputs import OutputOptions, output_options, print_manifest_summary
from sitemapkit.cli._publishsubmit import check_submit_options, submit_after_publish, submit_options
from sitemapkit.core._errors import PublishError
from sitemapkit.core._limits import MAX_CONCURRENCY, MAX_LOC_LENGTH
from sitemapkit.crawl import CrawlOptions, CrawlProgress, Scope, StartUrlError, crawl_site
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS
from sitemapkit.crawl._report import REPORT_HTML, REPORT_JSON
from sitemapkit.fetch._http import DEFAULT_USER_AGENT

__all__ = ["crawl"]


class _LiveProgress:
    """One status line on stderr, refreshed while the crawl runs, on a terminal; elsewhere a plain line every
    interval (see :class:`~sitemapkit.cli._common.Progress`). Nothing with ``quiet``."""

    def __init__(self, quiet: bool = False) -> None:
        console = stderr_console()
        self._last: CrawlProgress | None = None
        self._live: Live | None = Live(console=console, refresh_per_second=4, transient=False) \
            if console.is_terminal and not quiet else None
        self._plain = Progress(self._describe, quiet=quiet) if not console.is_terminal else None

    def __enter__(self) -> _LiveProgress:
        if self._live is not None:
            self._live.start()
        if self._plain is not None:
            self._plain.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
        if self._plain is not None:
            self._plain.__exit__()

    def _describe(self) -> str:
        p = self._last
        if p is None:
            return "crawl: starting"
        return (f"crawl: {p.fetched:,} pages, queue {p.queued:,}, errors {p.errors:,}, in the sitemap "
                f"{p.in_sitemap:,}")

    def update(self, p: CrawlProgress) -> None:
        self._last = p
        if self._live is None:
            return
        minutes, seconds = divmod(int(p.elapsed), 60)
        text = Text.assemble(
            ("crawl ", "bold"), f"{p.fetched:,} pages · {p.pages_per_second:,.0f}/s · queue {p.queued:,} · ",
            (f"errors {p.errors:,}", "red" if p.errors else ""),
            f" · sitemap {p.in_sitemap:,} · {minutes:02d}:{seconds:02d}",
        )
        self._live.update(text)


@click.command("crawl")
@click.argument("url")
@click.option("--max-pages", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop after fetching N URLs (default: no limit).")
@click.option("--max-depth", type=click.IntRange(min=0), default=50, show_default=True, metavar="N",
              help="Follow links at most N clicks away from the start page.")
@click.option("--concurrency", type=click.IntRange(1, MAX_CONCURRENCY), default=8, show_default=True, metavar="N",
              help=f"Simultaneous requests (per host; at most {MAX_CONCURRENCY}).")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="S",
              help="Seconds between two requests to one host (robots.txt Crawl-delay wins when larger).")
@click.option("--include", multiple=True, metavar="REGEX",
              help="Only crawl URLs matching this regular expression (repeatable).")
@click.option("--exclude", multiple=True, metavar="REGEX",
              help="Do not crawl URLs matching this regular expression (repeatable).")
@click.option("--scope", type=click.Choice([s.value for s in Scope]), default="host", show_default=True,
              help="host: same scheme+host+port; domain: the domain and its subdomains; prefix: under the start "
                   "URL's directory.")
@click.option("--ignore-robots", is_flag=True, help="Do not obey robots.txt (rules and Crawl-delay).")
@click.option("--user-agent", default=DEFAULT_USER_AGENT, show_default=True, help="User-Agent header.")
@click.option("--state", "state_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="SQLite crawl state (default: a per-site file under the user cache directory, e.g. "
                   "~/.cache/sitemapkit/crawl/https_example.com/state.sqlite). Keep it between crawls: unchanged "
                   "pages keep their lastmod.")
@click.option("--resume", is_flag=True, help="Continue the interrupted crawl in --state instead of starting over.")
@click.option("--images", is_flag=True, help="Add the pages' images (img src / srcset) to the sitemap.")
@click.option("--timeout", type=click.FloatRange(min=0.01), default=30.0, show_default=True, metavar="S",
              help="Seconds to wait for a connection or for the next bytes of a response.")
@click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True, metavar="N",
              help="Retries on 408/429/5xx and connection errors (backoff, Retry-After honoured).")
@click.option("--max-query-variants", type=click.IntRange(min=1), default=100, show_default=True, metavar="N",
              help="Trap protection: crawl at most N query-string variants of one path.")
@click.option("--max-url-length", type=click.IntRange(min=16, max=MAX_LOC_LENGTH), default=MAX_LOC_LENGTH,
              show_default=True, metavar="N", help="Trap protection: skip longer URLs.")
@click.option("--strip-param", multiple=True, metavar="NAME",
              help="Also remove this query parameter from URLs ('*' suffix as wildcard; repeatable). utm_*, "
                   "gclid, fbclid, session ids and the like are removed by default.")
@click.option("--keep-tracking-params", is_flag=True, help="Do not remove the default tracking/session parameters.")
@click.option("--fail-on-broken", is_flag=True, help="Exit with status 1 when broken links were found.")
@click.option("--allow-private-addresses", is_flag=True,
              help="Let redirects reach loopback, private, link-local and other special addresses (refused by "
                   "default, except the class of the start URL's own address: a guard against request forgery).")
@output_options
@quiet_option
@submit_options
def crawl(url: str, *, max_pages: int | None, max_depth: int, concurrency: int, delay: float,
          include: tuple[str, ...], exclude: tuple[str, ...], scope: str, ignore_robots: bool, user_agent: str,
          state_path: str | None, resume: bool, images: bool, timeout: float, retries: int, max_query_variants: int,
          max_url_length: int, strip_param: tuple[str, ...], keep_tracking_params: bool, fail_on_broken: bool,
          output: OutputOptions, allow_private_addresses: bool = False, quiet: bool = False,
          **submit: Any) -> None:
    """Crawl a site from URL and publish its sitemaps in DIR, with a broken-link and indexability report
    (DIR/crawl-report.json, DIR/report.html).

    Only pages a search engine should index go into the sitemap: status 200 HTML, not noindex (meta or
    X-Robots-Tag), canonical to itself, allowed by robots.txt; redirects count for their final target.
    A start URL that cannot be crawled (unreachable, HTTP error, robots.txt) ends the crawl with its cause.

    Staging: with --base-url on another origin than URL, every page URL under the crawled origin and path
    is written under --base-url (hreflang and image URLs too); the report keeps the crawled URLs.

    lastmod moves only when a page's main content changes (its text and links, without navigation, footer,
    dates, counters and tokens): a page seen for the first time gets its Last-Modified header, or no lastmod
    when it sends none; a re-render keeps the recorded lastmod. The crawl state (for --resume, and the
    fingerprints that keep lastmod stable) is kept per site in the user cache directory, not in DIR. Ctrl-C
    stops cleanly; run the same command with --resume to continue.

    \b
    Example:
      sitemapkit crawl https://example.com/ --out public/ --format html
      sitemapkit crawl http://localhost:8000/ -o out --base-url https://a.test/
      sitemapkit crawl https://example.com/ -o public/ --resume  # after Ctrl-C
    """
    check_submit_options(submit["submit_state"], submit["submit_key"])
    strip = tuple(strip_param) if keep_tracking_params else (*DEFAULT_STRIP_PARAMS, *strip_param)
    options = CrawlOptions(
        max_pages=max_pages, max_depth=max_depth, concurrency=concurrency, delay=delay, include=include,
        exclude=exclude, scope=Scope(scope), respect_robots=not ignore_robots, user_agent=user_agent,
        images=images, strip_params=strip, max_url_length=max_url_length, max_query_variants=max_query_variants,
        connect_timeout=timeout, read_timeout=timeout, retries=retries,
        allow_private_addresses=allow_private_addresses,
    )
    out = output.out
    console = stderr_console()
    with _LiveProgress(quiet) as progress:
        try:
            result = crawl_site(url, out, options=options, base_url=output.base_url, state_path=state_path,
                                resume=resume, writer_options=output.writer_kwargs(), on_progress=progress.update,
                                on_problem=print_problem, on_notice=lambda line: console.print(line, markup=False),
                                handle_signals=True)
        except StartUrlError as exc:
            fail(f"{exc.reason}; nothing was published", EXIT_FAILURE)
        except PublishError as exc:
            fail(f"{exc} (reports written to {out / REPORT_JSON})", EXIT_FAILURE)
    if result.stopped:
        again = ["crawl", url, "--out", str(out), *(["--state", str(state_path)] if state_path else []), "--resume"]
        console.print(f"Interrupted after {result.run.fetched_this_run:,} pages this run; the sitemap set was not "
                      f"changed. State saved in {result.state_path}. Resume with (and the same other options):\n"
                      f"  sitemapkit {shlex.join(again)}", markup=False)
        sys.exit(EXIT_INTERRUPTED)
    assert result.manifest is not None
    report = result.report
    print_manifest_summary(result.manifest)
    click.echo(f"Crawled {report.pages_crawled:,} URLs in {result.run.elapsed:.1f} s: {report.in_sitemap:,} in the "
               f"sitemap, {report.broken:,} broken, {report.redirects:,} redirects, {report.excluded:,} "
               f"excluded. Report: {out / REPORT_HTML}")
    if not result.complete:
        click.echo(f"{report.queued_not_crawled:,} URLs were left in the queue (--max-pages); to continue, run "
                   f"again with --resume and a larger --max-pages (or none). State: {result.state_path}", err=True)
    submitted = submit_after_publish(result.manifest, **submit)  # --submit-state: the changes of this run
    sys.exit(EXIT_FAILURE if (fail_on_broken and report.broken) or not submitted else EXIT_OK)
