"""``sitemapkit crawl``: crawl a site, publish its sitemap set and write the crawl reports.

Only adapts the library: :func:`sitemapkit.crawl_site` does the job (crawl into a state file, publish through the
write layer, write ``crawl-report.json`` and ``report.html`` into the report folder); this module parses the options
and prints.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Progress,
    fail,
    print_problem,
    quiet_option,
    resolve_bare_host,
    stderr_console,
)
from sitemapkit.cli._crawlopts import crawl_options
from sitemapkit.cli._outputs import OutputOptions, output_options, print_manifest_summary
from sitemapkit.cli._publishsubmit import check_submit_options, submit_after_publish, submit_options
from sitemapkit.core import MAX_LOC_LENGTH, PublishError
from sitemapkit.crawl import (
    REPORT_HTML,
    REPORT_JSON,
    CrawlProgress,
    StartUrlError,
    crawl_options_from,
    crawl_site,
    default_report_dir,
)

__all__ = ["crawl"]


class _Watch:
    """The crawl's latest progress, kept by the crawler's hook and shown by :class:`~sitemapkit.cli._common.Progress`:
    a styled line on a terminal, a plain line every interval elsewhere."""

    def __init__(self) -> None:
        self.last: CrawlProgress | None = None

    def update(self, p: CrawlProgress) -> None:
        self.last = p

    def describe(self) -> str:
        return "crawl: starting" if self.last is None else self.last.describe()

    def styled(self) -> Text:
        p = self.last
        if p is None:
            return Text()
        minutes, seconds = divmod(int(p.elapsed), 60)
        return Text.assemble(
            ("crawl ", "bold"), f"{p.fetched:,} pages · {p.pages_per_second:,.0f}/s · queue {p.queued:,} · ",
            (f"errors {p.errors:,}", "red" if p.errors else ""),
            f" · sitemap {p.in_sitemap:,} · {minutes:02d}:{seconds:02d}",
        )


@click.command("crawl")
@click.argument("url")
@crawl_options
@click.option("--state", "state_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="SQLite crawl state (default: a per-site file under the user cache directory, e.g. "
                   "~/.cache/sitemapkit/crawl/https_example.com/state.sqlite). Keep it between crawls: unchanged "
                   "pages keep their lastmod.")
@click.option("--resume", is_flag=True, help="Continue the interrupted crawl in --state instead of starting over.")
@click.option("--max-query-variants", type=click.IntRange(min=1), default=100, show_default=True, metavar="N",
              help="Trap protection: crawl at most N query-string variants of one path.")
@click.option("--max-url-length", type=click.IntRange(min=16, max=MAX_LOC_LENGTH), default=MAX_LOC_LENGTH,
              show_default=True, metavar="N", help="Trap protection: skip longer URLs.")
@click.option("--keep-tracking-params", is_flag=True, help="Do not remove the default tracking/session parameters.")
@click.option("--fail-on-broken", is_flag=True, help="Exit with status 1 when broken links were found.")
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Write crawl-report.json and report.html into DIR (default: OUT-report beside --out, so the "
                   "published folder holds the sitemaps only).")
@output_options
@quiet_option
@submit_options
def crawl(url: str, *, crawl_values: dict[str, Any], state_path: str | None, resume: bool,
          max_query_variants: int, max_url_length: int, keep_tracking_params: bool, fail_on_broken: bool,
          report_dir: Path | None, output: OutputOptions, quiet: bool = False, **submit: Any) -> None:
    """Crawl a site from URL and publish its sitemaps in DIR, with a broken-link and indexability report
    written beside it, not into it (DIR-report/crawl-report.json and DIR-report/report.html; --report-dir).

    Only pages a search engine should index go into the sitemap: status 200 HTML, not noindex (meta or
    X-Robots-Tag), canonical to itself, allowed by robots.txt; redirects count for their final target.
    A start URL that cannot be crawled (unreachable, HTTP error, robots.txt) ends the crawl with its cause.
    URL may be a bare host (example.com, 127.0.0.1:8000): https is tried first, then http when https does
    not connect; a line on standard error says which was used.
    Sitemaps on a local or placeholder host (127.0.0.1, localhost, example.com) get a note naming --base-url.

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
    url = resolve_bare_host(url)
    options = crawl_options_from(crawl_values, keep_tracking_params=keep_tracking_params,
                                 max_url_length=max_url_length, max_query_variants=max_query_variants)
    out = output.out
    reports = report_dir if report_dir is not None else default_report_dir(out)
    console = stderr_console()
    watch = _Watch()
    with Progress(watch.describe, quiet=quiet, styled=watch.styled):
        try:
            result = crawl_site(url, out, options=options, base_url=output.base_url, state_path=state_path,
                                resume=resume, writer_options=output.writer_kwargs(), on_progress=watch.update,
                                on_problem=print_problem, on_notice=lambda line: console.print(line, markup=False),
                                handle_signals=True, report_dir=reports)
        except StartUrlError as exc:
            fail(f"{exc.reason}; nothing was published", EXIT_FAILURE)
        except PublishError as exc:
            fail(f"{exc} (reports written to {reports / REPORT_JSON})", EXIT_FAILURE)
    if result.stopped:
        again = ["crawl", url, "--out", str(out), *(["--state", str(state_path)] if state_path else []), "--resume"]
        console.print(f"Interrupted after {result.run.fetched_this_run:,} pages this run; the sitemap set was not "
                      f"changed. State saved in {result.state_path}. Resume with (and the same other options):\n"
                      f"  sitemapkit {shlex.join(again)}", markup=False)
        sys.exit(EXIT_INTERRUPTED)
    assert result.manifest is not None
    report = result.report
    print_manifest_summary(result.manifest)
    click.echo(f"{report.line(result.run.elapsed)} Report: {reports / REPORT_HTML}")
    if not result.complete:
        click.echo(f"{report.queued_not_crawled:,} URLs were left in the queue (--max-pages); to continue, run "
                   f"again with --resume and a larger --max-pages (or none). State: {result.state_path}", err=True)
    submitted = submit_after_publish(result.manifest, **submit)  # --submit-state: the changes of this run
    sys.exit(EXIT_FAILURE if (fail_on_broken and report.broken) or not submitted else EXIT_OK)
