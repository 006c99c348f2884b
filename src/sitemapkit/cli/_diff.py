"""``sitemapkit diff OLD NEW``: what changed between two sets of sitemaps (a thin adapter over
:func:`sitemapkit.submit.diff_sources` and :func:`sitemapkit.submit.write_diff`)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click

from sitemapkit.cli._common import Progress, check_sources, check_url, fail, plural, print_problem, quiet_option
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import Problem, SitemapkitError, StoreError, atomic_text
from sitemapkit.submit import DIFF_FORMATS, diff_sources, write_diff

__all__ = ["diff"]

#: Exit status as diff(1): no difference, differences, trouble.
EXIT_SAME, EXIT_DIFFERENT, EXIT_TROUBLE = 0, 1, 2


@contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    if path is None or path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_text(Path(path)) as fh:
        yield fh


@click.command("diff")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--format", "fmt", type=click.Choice(DIFF_FORMATS), default="text",
              show_default=True,
              help="text: '+ loc', '- loc', '~ loc  (fields)'; json: counts and changes; csv: loc,change,fields; "
                   "atom: an Atom 1.0 feed of the changes (a delta feed for feed readers and WebSub hubs).")
@click.option("--feed-url", metavar="URL", default=None,
              help="With --format atom: the feed's own URL (its rel=\"self\" link and id).")
@click.option("--hub", "hubs", metavar="URL", multiple=True,
              help="With --format atom: a WebSub hub to announce in the feed (rel=\"hub\"); repeatable.")
@click.option("--output", "-o", metavar="FILE", default=None,
              help="Write the result to FILE (atomically) instead of standard output.")
@click.option("--strict", is_flag=True, help="Stop reading a file at its first error or repaired irregularity.")
@quiet_option
@fetch_options
def diff(old: str, new: str, fmt: str, feed_url: str | None, hubs: tuple[str, ...], output: str | None,
         strict: bool, quiet: bool = False, **fetch: Any) -> None:
    """Show what changed between two sets of sitemaps: URLs added, removed and changed, naming the fields
    that changed (lastmod, changefreq, priority, images, videos, news, alternates, mobile).

    OLD and NEW are anything `urls` reads: a sitemap file (an index pulls in the child files next to it), a
    folder holding a sitemap set, - for standard input, a sitemap URL (indexes are walked) or a site URL
    (its sitemaps are discovered). Memory stays flat for millions of URLs: both sides are spilled to a
    temporary SQLite database and compared in loc order.

    Exit status as diff(1): 0 no difference, 1 differences, 2 trouble (an input could not be read, or had
    errors: the comparison may be incomplete). A summary goes to standard error.

    \b
    Example:
      sitemapkit diff old/ new/
      sitemapkit diff old.xml https://example.com/sitemap.xml --format json
      sitemapkit diff old/ new/ --format atom -o changes.atom \\
          --feed-url https://example.com/changes.atom
    """
    check_sources((old, new))
    if old == "-" and new == "-":
        raise click.BadParameter("OLD and NEW cannot both be standard input", param_hint="OLD")
    for value, hint in [(feed_url, "--feed-url"), *((h, "--hub") for h in hubs)]:
        if value is not None:
            check_url(value, hint)
    settings = settings_from(fetch)
    read: Counter[str] = Counter()  # URLs read per side ("old", "new"), for the progress line

    def describe() -> str:
        return f"reading: {plural(read['old'], 'old URL')}, {plural(read['new'], 'new URL')}"

    def on_problem(side: str, problem: Problem) -> None:
        sys.stdout.flush()
        print_problem(problem)

    try:
        with Progress(describe, quiet=quiet):
            result = diff_sources(old, new, settings=settings, strict=strict, on_problem=on_problem,
                                  on_entries=lambda side, n: read.update({side: n}))
    except SitemapkitError as exc:
        fail(str(exc), EXIT_TROUBLE)
    except OSError as exc:
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        fail(f"cannot read{where}: {exc.strerror or exc}", EXIT_TROUBLE)
    with result:
        try:
            with _output(output) as out:
                write_diff(result, out, fmt, feed_url=feed_url, hubs=hubs)
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            fail(f"cannot write {output}: {exc.strerror or exc}", EXIT_TROUBLE)
        except StoreError as exc:  # reading the changes back from the temporary database failed
            fail(str(exc), EXIT_TROUBLE)
        counts = result.counts
        if not quiet:
            click.echo(f"sitemapkit: {counts.added:,} added, {counts.removed:,} removed, {counts.changed:,} changed, "
                       f"{counts.unchanged:,} unchanged", err=True)
        if result.errors:
            fail(f"{plural(result.errors, 'error')} while reading; the comparison may be incomplete", EXIT_TROUBLE)
        sys.exit(EXIT_DIFFERENT if counts.differ else EXIT_SAME)

