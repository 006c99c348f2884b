"""``sitemapkit urls``: list the URLs of sitemaps (a thin adapter over :func:`sitemapkit.iter_events`)."""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterator
from typing import TextIO

import click

from sitemapkit._cli._common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_problem
from sitemapkit._exceptions import LimitExceededError, ParseError
from sitemapkit._model import SitemapRef, UrlEntry, entry_to_dict
from sitemapkit._problems import Problem, Severity
from sitemapkit._read import Event, iter_events

__all__ = ["urls"]

_CSV_COLUMNS = ("loc", "lastmod", "changefreq", "priority", "kind", "source")


def _is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


class _Output:
    """Writes entries in the chosen format to stdout (buffered; one line per entry)."""

    def __init__(self, fmt: str, stream: TextIO) -> None:
        self.fmt = fmt
        self.stream = stream
        self._csv = None
        if fmt == "csv":
            self._csv = csv.writer(stream, lineterminator="\n")
            self._csv.writerow(_CSV_COLUMNS)

    def write(self, item: UrlEntry | SitemapRef, source: str) -> None:
        if self.fmt == "text":
            self.stream.write(item.loc + "\n")
            return
        if self._csv is not None:
            kind = "url" if isinstance(item, UrlEntry) else "sitemap"
            lastmod = item.lastmod.text if item.lastmod is not None else ""
            if isinstance(item, UrlEntry):
                cf = item.changefreq.value if item.changefreq is not None else ""
                pr = "" if item.priority is None else repr(item.priority)
            else:
                cf = pr = ""
            self._csv.writerow((item.loc, lastmod, cf, pr, kind, source))
            return
        d = entry_to_dict(item)
        d["source"] = source
        self.stream.write(json.dumps(d, ensure_ascii=False) + "\n")


def _events(source: str, strict: bool) -> Iterator[Event]:
    if source == "-":
        return iter_events(sys.stdin.buffer, source="<stdin>", strict=strict)
    return iter_events(source, strict=strict)


@click.command("urls")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl", "csv"]), default="text", show_default=True,
              help="text: one loc per line; jsonl: one JSON object per entry (what `generate` reads); csv.")
@click.option("--unique", is_flag=True, help="Print each loc once (the first time it is seen, over all sources).")
@click.option("--strict", is_flag=True,
              help="Stop reading a source at its first error or repaired irregularity (see `validate` for a report).")
def urls(sources: tuple[str, ...], fmt: str, unique: bool, strict: bool) -> None:
    """List the URLs in sitemap files: urlsets, sitemap indexes (their child sitemaps, kind "sitemap"),
    text sitemaps, RSS and Atom feeds, gzip-compressed or not. SOURCE is a file path or - for standard input.

    Problems go to standard error, one per line: source:line:column: severity code: message. Exit status: 0 when
    no error was found, 1 when errors were found (everything readable is still printed), 2 for usage errors.

    \b
    Example:
      sitemapkit urls sitemap.xml.gz
      sitemapkit urls --format jsonl sitemap.xml | sitemapkit generate - --out site/ --base-url https://example.com/
    """
    for source in sources:
        if _is_url(source):
            click.echo(f"sitemapkit: error: {source}: URL sources are not supported by `urls` yet; download the "
                       "file and pass its path", err=True)
            sys.exit(EXIT_USAGE)
    stream = click.get_text_stream("stdout")
    out = _Output(fmt, stream)
    seen: set[str] = set()
    failed = False
    try:
        for source in sources:
            name = "<stdin>" if source == "-" else source
            try:
                for event in _events(source, strict):
                    if isinstance(event, Problem):
                        if event.severity is Severity.ERROR:
                            failed = True
                        stream.flush()
                        print_problem(event)
                        continue
                    item = event.item if not isinstance(event, (UrlEntry, SitemapRef)) else event
                    if unique:
                        if item.loc in seen:
                            continue
                        seen.add(item.loc)
                    out.write(item, name)
            except ParseError as exc:
                failed = True
                stream.flush()
                print_problem(exc.problem)
            except LimitExceededError as exc:
                failed = True
                stream.flush()
                click.echo(f"{name}: error SM112: {exc}", err=True)
            except BrokenPipeError:
                raise
            except OSError as exc:
                failed = True
                stream.flush()
                click.echo(f"sitemapkit: error: cannot read {name}: {exc.strerror or exc}", err=True)
        stream.flush()
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly, like other Unix tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_FAILURE if failed else EXIT_OK)
    sys.exit(EXIT_FAILURE if failed else EXIT_OK)
