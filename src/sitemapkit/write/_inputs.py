"""What ``sitemapkit generate`` reads: URL lists (text, CSV, JSONL, stdin) and built static-site folders.

Each reader is a generator of ``(UrlEntry, Location)`` pairs and :class:`Problem` values (an input line that
could not become an entry: reported with file and line, then skipped). URL lists are read in runs of entries
(``_lists.py``; :func:`iter_input_runs`, what ``generate`` consumes), and :func:`iter_input` hands out the same
entries one by one. Nothing is held beyond the current run of ~1,000 lines.

Sniffing: a directory is a static site; ``.jsonl``/``.ndjson`` are JSONL, ``.csv`` is CSV, ``.txt`` is text;
anything else (and ``-``, standard input) is decided by its first non-blank line: ``{`` starts JSONL, a
comma-separated header naming ``loc`` (or ``url``) starts CSV, otherwise it is a list of URLs. Gzip-compressed
files are not opened here: the caller opens a list through the one byte source, ``sitemapkit.read.open_bytes``
(gzip undone under the byte budget, with sniffing), and hands its plain stream in (``plain``). Markup (a first
line starting with ``<``) is refused with one error: XML sitemaps, indexes and feeds are the reader's (the write
layer does not import it; ``generate`` sends them there, see ``generator/_inputs.py``).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO, Literal
from urllib.parse import quote, urlsplit

from sitemapkit.core import (
    InputError,
    InvalidValueError,
    LastMod,
    Location,
    Problem,
    Severity,
    UrlEntry,
    define_code,
)
from sitemapkit.write._lists import EntryRun, Reports, RunItem, read_runs, text_blocks

__all__ = ["SM610", "SM611", "SM612", "EntryRun", "InputItem", "InputKind", "RunItem", "filter_runs", "filter_urls",
           "items_of_runs", "iter_input", "iter_input_runs", "sniff_kind"]

SM610 = define_code("SM610", Severity.ERROR, "input line skipped",
                    "Fix the line (an absolute http(s) URL, valid lastmod / changefreq / priority) and run again.",
                    area="writer")
SM611 = define_code("SM611", Severity.WARNING, "unknown CSV column ignored",
                    "generate reads the columns loc (or url), lastmod, changefreq and priority.", area="writer")
SM612 = define_code("SM612", Severity.ERROR, "sitemap of an index not read",
                    "generate reads the sitemaps an index lists from the index's own folder (by file name); put "
                    "them there, or turn the live index into a list first: sitemapkit urls --format jsonl URL.",
                    area="writer")

InputKind = Literal["text", "csv", "jsonl", "site"]
#: What readers yield: an entry with where it came from, or a problem (the line was skipped).
InputItem = tuple[UrlEntry, Location] | Problem

#: Files a static site never wants in its sitemap, on top of hidden paths (``.git/``, ``.well-known/``).
DEFAULT_SITE_EXCLUDES = ("404.html", "*/404.html")
_HTML_SUFFIXES = (".html", ".htm")
_INDEX_NAMES = ("index.html", "index.htm")


def _problem(source: str, line: int | None, message: str, loc: str | None = None) -> Problem:
    return SM610.problem(Location(source, line, loc=loc), message)


def _unknown_columns(source: str, line: int, message: str) -> Problem:
    return SM611.problem(Location(source, line), message)


_REPORTS = Reports(_problem, _unknown_columns)


def sniff_kind(path: str, first_line: str | None = None) -> InputKind:
    """Decide an input's kind from its name, or (for ``-`` and unknown extensions) its first non-blank line."""
    if path != "-" and os.path.isdir(path):
        return "site"
    name = path.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".txt"):
        return "text"
    line = (first_line or "").strip()
    if line.startswith("{"):
        return "jsonl"
    if "," in line:
        header = {c.strip().strip('"').lower() for c in line.split(",")}
        if header & {"loc", "url"}:
            return "csv"
    return "text"


def iter_input(
    path: str,
    *,
    base_url: str | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip_files: frozenset[Path] = frozenset(),
    plain: BinaryIO | None = None,
) -> Iterator[InputItem]:
    """Read one input: a site folder ``path``, or the URL list named ``path`` whose bytes ``plain`` holds (see
    :func:`iter_input_runs`). ``include``/``exclude`` are globs matched against a static site's file paths
    (relative to the folder) or, for URL lists, against each URL's path (``/blog/*``); a pattern without ``/``
    also matches the bare file name. Raises :class:`InputError` when the input cannot be read at all."""
    if path != "-" and os.path.isdir(path):
        if base_url is None:
            raise InputError(f"{path} is a folder: a base URL is needed to turn its files into URLs")
        yield from _iter_site(Path(path), base_url, include, exclude, skip_files)
        return
    if plain is None:
        raise InputError(f"{path}: a URL list is read from its bytes: open it with sitemapkit.read.open_bytes "
                         "and pass plain=opened.plain_stream()")
    yield from items_of_runs(iter_input_runs(path, plain, include=include, exclude=exclude))


def items_of_runs(runs: Iterable[RunItem | InputItem]) -> Iterator[InputItem]:
    """One ``(entry, Location)`` item per entry of each run; problems and items pass through."""
    for item in runs:
        if item.__class__ is EntryRun:
            assert isinstance(item, EntryRun)
            source = item.source
            for entry, line in zip(item.entries, item.lines, strict=True):
                yield entry, Location(source, line)
        else:
            yield item  # type: ignore[misc]


def iter_input_runs(
    path: str,
    plain: BinaryIO,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Iterator[RunItem]:
    """A URL list (text, CSV or JSONL file, or ``-``) as runs of entries and problems, in line order: the same
    entries and problems :func:`iter_input` yields, grouped. Raises :class:`InputError` as it does.

    ``plain``: the list's bytes, gzip undone (opened through the one byte source,
    ``sitemapkit.read.open_bytes(...).plain_stream()``, under its byte budget; the caller closes it). ``path``
    names it (``-``: standard input) and decides its kind by its ending (see :func:`sniff_kind`)."""
    source = "<stdin>" if path == "-" else path
    stream: Any = plain  # read1 (a BufferedReader or BytesIO)
    blocks = text_blocks(stream, source)  # the lines as io.TextIOWrapper(newline="") reads them
    first_block = next(blocks, None)
    if first_block is None:
        return
    first = first_block[0]
    if first.lstrip().startswith("<"):
        raise InputError(f"{source}:1: markup (XML or HTML), not a URL list, CSV or JSONL: read a "
                         "sitemap or feed with sitemapkit.read (the generate command does)")
    runs = read_runs(sniff_kind(path, first), chain((first_block,), blocks), source, _REPORTS)
    if include or exclude:
        runs = filter_runs(runs, include, exclude)
    yield from runs


def _matches(path: str, patterns: Sequence[str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(path, p) or ("/" not in p and fnmatch.fnmatchcase(name, p)) for p in patterns)


def filter_urls(items: Iterator[InputItem], include: Sequence[str], exclude: Sequence[str]) -> Iterator[InputItem]:
    """Entries whose URL path matches ``include`` (when given) and not ``exclude``; problems pass through."""
    for item in items:
        if isinstance(item, tuple) and not _passes(item[0].loc, include, exclude):
            continue
        yield item


def filter_runs(items: Iterable[RunItem], include: Sequence[str], exclude: Sequence[str]) -> Iterator[RunItem]:
    """:func:`filter_urls` for runs: each run keeps the entries that pass (an emptied run is dropped)."""
    for item in items:
        if isinstance(item, EntryRun):
            kept = [(entry, line) for entry, line in zip(item.entries, item.lines, strict=True)
                    if _passes(entry.loc, include, exclude)]
            if kept:
                yield EntryRun(item.source, [k[0] for k in kept], [k[1] for k in kept])
        else:
            yield item


def _passes(loc: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    path = urlsplit(loc).path or "/"
    return not ((include and not _matches(path, include)) or _matches(path, exclude))


def _iter_site(root: Path, base_url: str, include: Sequence[str], exclude: Sequence[str],
               skip_files: frozenset[Path]) -> Iterator[InputItem]:
    """HTML files of a built site, in sorted order; ``index.html`` stands for its directory URL. A plain walk:
    ``generate`` judges each page above it (robots.txt, noindex, canonical, content-based lastmod) where HTML
    extraction may be imported (``generator/_site.py``)."""
    base = base_url if base_url.endswith("/") else base_url + "/"
    excludes = tuple(exclude) + DEFAULT_SITE_EXCLUDES
    skip = {p.resolve() for p in skip_files}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        # The directory's own page (index.html) first, then the others by name: stable, readable output.
        for name in sorted(filenames, key=lambda n: (n.lower() not in _INDEX_NAMES, n)):
            if name.startswith(".") or not name.lower().endswith(_HTML_SUFFIXES):
                continue
            rel = rel_dir + name
            if (include and not _matches(rel, include)) or _matches(rel, excludes):
                continue
            full = Path(dirpath) / name
            if skip and full.resolve() in skip:
                continue
            url_path = rel_dir if name.lower() in _INDEX_NAMES else rel
            try:
                mtime = full.stat().st_mtime
                lastmod = LastMod.of(datetime.fromtimestamp(int(mtime), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
                yield (UrlEntry(base + quote(url_path, safe="/"), lastmod=lastmod),
                       Location(str(full)))
            except OSError as exc:
                yield _problem(str(full), None, f"cannot read: {exc.strerror or exc}")
            except InvalidValueError as exc:
                yield _problem(str(full), None, str(exc))
