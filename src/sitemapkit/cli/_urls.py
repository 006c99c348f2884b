"""``sitemapkit urls``: list the URLs of sitemaps (a thin adapter over :func:`sitemapkit.fetch.list_source`)."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Progress,
    check_sources,
    print_note,
    print_problem,
    quiet_option,
)
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import InputError, Problem, SeenSet, escape_controls
from sitemapkit.fetch import ListingCounts, list_source, resolve_sources
from sitemapkit.read import LIST_FORMATS, EntryWriter

__all__ = ["urls"]


_BUDGET_CODES = frozenset({"SM112", "SM504"})  # the byte budget: the reader's (files), the fetcher's (URLs)


def _budget_words(message: str) -> str:
    """Name the option that sets the byte budget (the library's messages name its parameter)."""
    if "(max_decompressed_bytes)" in message:
        return message.replace("(max_decompressed_bytes)", "(--max-bytes)")
    return message if "--max-bytes" in message else f"{message}; see --max-bytes"


def _for_cli(problem: Problem) -> Problem:
    if problem.code not in _BUDGET_CODES:
        return problem
    return dataclasses.replace(problem, message=_budget_words(problem.message))


@click.command("urls")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--format", "fmt", type=click.Choice(LIST_FORMATS), default="text", show_default=True,
              help="text: one loc per line; jsonl: one JSON object per entry (what `generate` reads); csv.")
@click.option("--unique", is_flag=True,
              help="Print each loc once (the first time it is seen, over all sources). Memory stays bounded: past "
                   "100,000 distinct locs they are remembered in a Bloom filter, which may take a new loc for one "
                   "already seen (measured: 3 in a million once 6 million locs are in it).")
@click.option("--strict", is_flag=True,
              help="Stop reading a source at its first error or repaired irregularity (see `validate` for a report).")
@click.option("--follow/--no-follow", default=True, show_default=True,
              help="Walk sitemap indexes down to their sitemaps: fetched for URLs, from the index's folder for "
                   "files (--no-follow lists the child sitemaps of an index instead).")
@quiet_option
@fetch_options
def urls(sources: tuple[str, ...], fmt: str, unique: bool, strict: bool, follow: bool, quiet: bool = False,
         **fetch: Any) -> None:
    """List the URLs in sitemap files: urlsets, sitemap indexes (their child sitemaps, kind "sitemap"),
    text sitemaps, RSS and Atom feeds, gzip-compressed or not. SOURCE is a file path (a local index's sitemaps
    are read from its folder by file name), a folder (the sitemap files in it), - for standard input, a
    sitemap URL (an index is walked down to its sitemaps unless --no-follow), or a site URL such as
    https://example.com/ (its sitemaps are discovered from robots.txt and well-known paths, then walked). A
    bare host (example.com, example.com/sitemap.xml) that is not a file is tried with https, then http.

    URLs go to standard output; problems to standard error, one per line: source:line:column: severity code:
    message. Exit status 1 when errors were found (everything readable is still printed).

    \b
    Example:
      sitemapkit urls sitemap.xml.gz
      sitemapkit urls https://example.com/ --format jsonl --unique > urls.jsonl
      sitemapkit urls sitemap.xml --format csv --no-follow
    """
    check_sources(sources, hosts=True)
    try:
        sources = resolve_sources(sources, on_note=print_note)
    except InputError as exc:  # a folder without sitemap files is a usage error, as for validate and diff
        raise click.BadParameter(escape_controls(str(exc)), param_hint="SOURCE") from None
    settings = settings_from(fetch)
    stream = sys.stdout
    out = EntryWriter(fmt, stream)
    # Bounded memory: exact for the first 100,000 locs, then a Bloom filter (core._seen; the rate is in --help).
    seen = SeenSet() if unique else None
    failed = False
    counts = ListingCounts()

    def on_problem(problem: Problem) -> None:
        stream.flush()  # the lines before the problem first
        print_problem(_for_cli(problem))

    try:
        for source in sources:
            try:
                with Progress(counts.describe, quiet=quiet):
                    failed = list_source(source, out, on_problem=on_problem, follow=follow, strict=strict,
                                         settings=settings, seen=seen, followed_refs=fmt != "text",
                                         counts=counts) or failed
            except BrokenPipeError:
                raise
            except OSError as exc:
                failed = True
                stream.flush()
                name = "<stdin>" if source == "-" else source
                click.echo(escape_controls(f"sitemapkit: error: cannot read {name}: {exc.strerror or exc}"), err=True)
        stream.flush()
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly, like other Unix tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_FAILURE if failed else EXIT_OK)
    sys.exit(EXIT_FAILURE if failed else EXIT_OK)
