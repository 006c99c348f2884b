"""``sitemapkit generate``: parses the options, runs the library's generate job (:mod:`sitemapkit.generator`)
and prints what it did; problems as they are found (the first 20 of each code, then a count per code)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Progress,
    check_sources,
    code_title,
    plural,
    print_problem,
    quiet_option,
    renamed_option,
)
from sitemapkit.cli._outputs import OutputOptions, output_options, print_manifest_summary
from sitemapkit.cli._publishsubmit import check_submit_options, submit_after_publish, submit_options
from sitemapkit.cli._specs import hint_options
from sitemapkit.core import MAX_WORKERS, ConfigurationError, Problem, ProblemTally
from sitemapkit.generator import CAP, LASTMOD_SOURCES, SHOWN, Exclusion, Generation

__all__ = ["generate"]


@click.command("generate")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@output_options
@click.option("--include-path", "include", multiple=True, metavar="GLOB",
              help="Only these files of a site folder (or URL paths of a list), e.g. 'blog/*'. Repeatable.")
@click.option("--exclude-path", "exclude", multiple=True, metavar="GLOB",
              help="Leave out matching files / URL paths, e.g. 'drafts/*'. Repeatable.")
@renamed_option("--include", "--include-path")
@renamed_option("--exclude", "--exclude-path")
@click.option("--allow-cross-host", is_flag=True,
              help="Write URLs on other hosts than --base-url (robots.txt cross-submission); without it they "
                   "are reported (SM608) and skipped.")
@click.option("--state", "state_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Site folders: a JSON file keeping each page's content fingerprint and lastmod between runs, "
                   "so lastmod moves only when a page's content changes, not on a rebuild (created if missing). "
                   "Without it lastmod is the file's modification time.")
@click.option("--lastmod", "lastmod_source", type=click.Choice(LASTMOD_SOURCES), default="mtime", show_default=True,
              help="Site folders: where a page's lastmod comes from. git: the committer date of the last commit "
                   "that touched its file (the whole history read in one pass); a file never committed or with "
                   "uncommitted changes falls back to --state or the modification time, with the reason. A "
                   "shallow clone is named: use the whole history (fetch-depth: 0 in actions/checkout).")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None, metavar="N",
              help="Partitioned DATA (a Parquet dataset, or a folder of CSV / JSONL files): write its partitions "
                   f"in parallel on N local Dask workers (default 2 for a Parquet dataset; at most {MAX_WORKERS}).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Partitioned DATA: use the Dask scheduler at ADDRESS instead of local workers.")
@hint_options
@quiet_option
@submit_options
def generate(inputs: tuple[str, ...], output: OutputOptions, include: tuple[str, ...],
             exclude: tuple[str, ...], allow_cross_host: bool, changefreq: str | None, priority: str | None,
             rule: tuple[str, ...], quiet: bool = False, state_path: str | None = None,
             workers: int | None = None, scheduler: str | None = None, lastmod_source: str = "mtime",
             **submit: Any) -> None:
    """Build a sitemap set from URL lists, sitemaps and feeds, or a built static site.

    INPUT is a text file of URLs (one a line), a CSV with a header (loc, lastmod, changefreq, priority), a JSONL
    file of entry objects (as `sitemapkit urls --format jsonl` prints them), an XML sitemap or RSS/Atom feed (read
    with every extension: images, videos, news, hreflang), a sitemap index (its sitemaps are read from the index's
    folder by file name; nothing is fetched), '-' for standard input, or a folder holding a built static site
    (HTML files become URLs under --base-url, index.html its directory, lastmod from the file's modification
    time, or with --state from the content: see below). An HTML page is not an input: give its site's folder.

    A site folder's pages that the site keeps out of search are left out, with the reason (as crawl does):
    robots.txt Disallow rules of the folder's robots.txt (for sitemapkit or *; only when --base-url is the
    site root), <meta name="robots" content="noindex">, and a rel="canonical" naming another URL.

    With --state FILE, a page's lastmod changes only when its main content does (text and links without
    navigation, footer, dates, counters and tokens): a rebuild that touches every file keeps every lastmod. A
    page seen for the first time gets its file's modification time.

    With --lastmod git, a page's lastmod is the date of the last commit that changed its file (a fresh clone
    or a CI build no longer dates every page today); files git cannot date fall back, each reason counted.

    The entry point is OUT/sitemap.xml (.xml.gz with --gzip): the urlset itself when everything fits in one
    file, otherwise an index of the files. Files are written under temporary names and moved into place, the
    index last; files of an earlier run that are no longer part of the set are removed.

    A URL given more than once is written once, the first wins (the summary counts the others; --keep-duplicates
    writes all). In a site folder, sitemapkit's own files (its manifest's sitemaps, the crawl reports) are not
    pages. Bad input lines are reported as FILE:LINE and skipped (the first 20 of each code, then a count); the exit
    status is then 1. So are URLs on another scheme, host or port than --base-url (a sitemap lists its own
    host's URLs), unless --allow-cross-host.

    changefreq and priority: an entry that gives none (a CSV or JSONL row's own values are kept) gets the first
    matching --rule's, else --changefreq / --priority; --priority depth gives 1.0 to the home page and 0.1 less
    per path segment. Google ignores both; Bing and others read them.

    INPUT may be partitioned DATA: a Parquet dataset (what `sitemapkit harvest` writes) or, with --workers, a
    folder of CSV / JSONL files. Each partition writes its own files on Dask, then the index is written and
    the set published as above: the same entries as one process would write.

    \b
    Example:
      sitemapkit generate urls.txt --out public --base-url https://example.com/
      sitemapkit generate _site -o _site --base-url https://example.com/ --gzip
      sitemapkit generate site -o public --base-url https://e.com/ --lastmod git
      sitemapkit generate urls.jsonl -o public --base-url https://example.com/
      sitemapkit generate urls.txt -o public --base-url https://example.com/ \\
          --rule '/blog/* changefreq=weekly' --priority depth
    """
    if output.base_url is None:
        raise click.UsageError("--base-url is required: the public URL the --out directory is served at")
    check_sources(inputs, urls=False, param_hint="INPUT")
    check_submit_options(submit["submit_state"], submit["submit_key"])
    try:
        hints = None
        if changefreq or priority or rule:  # the rules model is loaded only when asked for
            from sitemapkit.core import parse_hints

            hints = parse_hints(changefreq, priority, rule)
        job = Generation(inputs, output.out, base_url=output.base_url, include=include, exclude=exclude,
                         allow_cross_host=allow_cross_host, state=state_path, lastmod=lastmod_source,
                         workers=workers, scheduler=scheduler,
                         stdin=sys.stdin.buffer if "-" in inputs else None, on_problem=_capped_printer(),
                         on_excluded=_print_exclusion, on_note=_print_note, hints=hints,
                         **output.writer_kwargs())
    except ConfigurationError as exc:
        raise click.UsageError(str(exc)) from None

    def describe() -> str:
        return f"writing sitemaps: {plural(job.urls, 'URL')}"

    with Progress(describe, quiet=quiet or job.partitioned):
        result = job.run()
    for code, n in result.counts.items():
        if n > CAP:
            title = code_title(code)
            click.echo(f"… and {n - CAP:,} more {code}" + (f" ({title})" if title else ""), err=True)
    print_manifest_summary(result.manifest)
    if result.partitions:
        click.echo(f"{plural(result.partitions, 'partition')} written in parallel")
    if result.lastmod_summary:
        click.echo(result.lastmod_summary)
    if result.shallow_warning:
        click.echo(f"sitemapkit: warning: {result.shallow_warning}", err=True)
    excluded = result.excluded_summary()
    if excluded:
        click.echo(excluded)
    if result.errors:
        noun = "input row" if result.partitions else "input line"
        click.echo(f"sitemapkit: {plural(result.errors, noun)} skipped", err=True)
    submitted = submit_after_publish(result.manifest, **submit)  # --submit-state: the changes of this run
    sys.exit(EXIT_FAILURE if result.errors or not submitted else EXIT_OK)


def _capped_printer() -> Callable[[Problem], None]:
    """Prints the first :data:`CAP` problems of each code on standard error, as they are found."""
    tally = ProblemTally(CAP)

    def show(problem: Problem) -> None:
        if tally(problem) <= CAP:
            print_problem(problem)

    return show


def _print_exclusion(exclusion: Exclusion) -> None:
    if exclusion.number <= SHOWN:
        click.echo(str(exclusion), err=True)


def _print_note(message: str) -> None:
    click.echo(f"note: {message}", err=True)
