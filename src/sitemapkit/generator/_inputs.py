"""What generate reads, dispatched by content: XML sitemaps, sitemap indexes and RSS/Atom feeds go through the
reader (``sitemapkit.read``, every extension kept); URL lists, CSV, JSONL and static-site folders through the
write layer's input readers (``write/_inputs.py``, which may not import the reader); a static-site folder's pages
are judged (robots.txt, noindex, canonical) in ``generator/_site.py``. HTML is refused with one error.

An index is read with its sitemaps: each ``<loc>``'s file name is looked up in the index's own folder (a
published set lists ``https://example.com/sitemap-1-1.xml`` and has ``sitemap-1-1.xml`` next to
``sitemap.xml``). A sitemap that is not there is one SM612 error each; nothing is fetched.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from sitemapkit.core import InputError, Location, Problem, SitemapRef, UrlEntry
from sitemapkit.generator._site import SiteRun, iter_static_site
from sitemapkit.read import DocumentKind, Located, iter_events, open_bytes, sniff
from sitemapkit.write import (
    SM612,
    InputItem,
    RunItem,
    filter_urls,
    items_of_runs,
    iter_input_runs,
)

__all__ = ["iter_generate_inputs", "iter_generate_runs"]

#: Bytes read from the start of an input to tell what it is (an XML prolog with comments fits many times over).
_SNIFF_BYTES = 64 * 1024
_FEEDS = (DocumentKind.URLSET, DocumentKind.RSS, DocumentKind.ATOM)


class _Prefixed(io.RawIOBase):
    """A stream that first serves ``prefix`` (bytes already read to sniff) and then the rest of ``rest``."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self._prefix = prefix
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._rest.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n


def _read_prefix(stream: BinaryIO) -> bytes:
    parts: list[bytes] = []
    size = 0
    while size < _SNIFF_BYTES:
        chunk = stream.read(_SNIFF_BYTES - size)
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def iter_generate_inputs(
    inputs: Iterable[str],
    *,
    base_url: str | None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip_files: frozenset[Path] = frozenset(),
    stdin: BinaryIO | None = None,
    site: SiteRun | None = None,
) -> Iterator[InputItem]:
    """Entries (with where they came from) and problems of every input, in order. Raises :class:`InputError`
    for an input that cannot be read at all (missing, HTML, an XML document that is no sitemap).

    A static-site folder's pages are judged as ``crawl`` judges pages (robots.txt, noindex, canonical; see
    ``generator/_site.py``): ``site`` collects the exclusions and holds the ``--state`` for lastmod."""
    yield from items_of_runs(iter_generate_runs(inputs, base_url=base_url, include=include, exclude=exclude,
                                                skip_files=skip_files, stdin=stdin, site=site))


def iter_generate_runs(
    inputs: Iterable[str],
    *,
    base_url: str | None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip_files: frozenset[Path] = frozenset(),
    stdin: BinaryIO | None = None,
    site: SiteRun | None = None,
) -> Iterator[RunItem | InputItem]:
    """:func:`iter_generate_inputs` with the entries of URL lists (text, CSV, JSONL) in runs
    (``EntryRun``: many entries and their lines at once); sitemaps, feeds and site folders give items."""
    run = site if site is not None else SiteRun()
    for path in inputs:
        yield from _iter_one(path, base_url, include, exclude, skip_files, stdin, run)


def _iter_one(path: str, base_url: str | None, include: Sequence[str], exclude: Sequence[str],
              skip_files: frozenset[Path], stdin: BinaryIO | None, site: SiteRun) -> Iterator[RunItem | InputItem]:
    if path != "-" and os.path.isdir(path):
        if base_url is None:
            raise InputError(f"{path} is a folder: a base URL is needed to turn its files into URLs")
        yield from iter_static_site(path, base_url=base_url, include=include, exclude=exclude,
                                    skip_files=skip_files, run=site)
        return
    if path == "-" and stdin is None:
        raise InputError("standard input is not available")
    source = "<stdin>" if path == "-" else path
    try:
        opened = open_bytes(path, stdin=stdin, name=source)  # the one byte source
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        try:
            prefix = _read_prefix(opened.stream)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
        stream: BinaryIO = io.BufferedReader(_Prefixed(prefix, opened.stream))
        kind = _sitemap_kind(prefix, source)
        if kind is None:  # a URL list, CSV or JSONL: the write layer's readers, gzip undone under the budget
            plain = open_bytes(stream, name=source).plain_stream()
            yield from iter_input_runs(path, plain, include=include, exclude=exclude)
            return
        items = _iter_index(path, stream, source) if kind is DocumentKind.INDEX else _iter_document(stream, source)
        yield from filter_urls(items, include, exclude) if include or exclude else items
    finally:
        opened.close()


def _sitemap_kind(prefix: bytes, source: str) -> DocumentKind | None:
    """The reader's kind for markup input (None for text, CSV and JSONL); refuses markup that is no sitemap."""
    info = sniff(prefix).kind
    kind = info.kind
    if kind in _FEEDS or kind is DocumentKind.INDEX:
        return kind
    if kind is DocumentKind.HTML:
        raise InputError(f"{source} is an HTML page, not a URL list or a sitemap: to list a built site's pages, "
                         "give generate the site's folder (with --base-url)")
    if kind is DocumentKind.UNKNOWN and (info.root is not None or info.doctype is not None):
        what = f"root <{info.root}>" if info.root is not None else "a DOCTYPE but no root element"
        raise InputError(f"{source} is an XML document with {what}, not a sitemap, sitemap index, RSS or Atom feed")
    return None


def _iter_document(src: str | BinaryIO, source: str) -> Iterator[InputItem]:
    """A urlset or feed through the reader: its entries with their lines, and its problems."""
    for event in iter_events(src, source=source, positions=True):
        if isinstance(event, Located):
            item = event.item
            if isinstance(item, UrlEntry):
                yield item, Location(source, event.line)
        elif isinstance(event, Problem):
            yield event
        elif isinstance(event, UrlEntry):
            yield event, Location(source)


def _iter_index(path: str, stream: BinaryIO, source: str) -> Iterator[InputItem]:
    """A sitemap index and, as each ``<sitemap>`` is read, the sitemap it lists (from the index's folder, by file
    name): index order, and nothing held but the current child."""
    folder = None if path == "-" else Path(path).parent
    for event in iter_events(stream, source=source, positions=True):
        if isinstance(event, Problem):
            yield event
            continue
        ref, line = (event.item, event.line) if isinstance(event, Located) else (event, None)
        if isinstance(ref, SitemapRef):
            yield from _iter_ref(ref, Location(source, line, loc=ref.loc), folder)


def _iter_ref(ref: SitemapRef, where: Location, folder: Path | None) -> Iterator[InputItem]:
    if folder is None:
        yield SM612.problem(where, f"{ref.loc} not read: an index from standard input has no folder to find its "
                                   "sitemaps in; give the index as a file")
        return
    from sitemapkit.fetch import local_child  # the fetch layer only for an index input

    child = local_child(ref.loc, folder)
    if child is None:
        name = PurePosixPath(unquote(urlsplit(ref.loc).path)).name
        yield SM612.problem(where, f"{ref.loc} not read: no file {name or '(no file name)'!r} in {folder}; "
                                   "generate reads an index's sitemaps from its folder")
        return
    yield from _iter_child(child, where)


def _iter_child(child: Path, where: Location) -> Iterator[InputItem]:
    try:
        with open_bytes(child) as opened:
            prefix = _read_prefix(opened.stream)
    except OSError as exc:
        yield SM612.problem(where, f"{where.loc} not read: cannot read {child}: {exc.strerror or exc}")
        return
    info = sniff(prefix).kind
    if info.kind in _FEEDS:
        yield from _iter_document(str(child), str(child))
    elif info.kind is DocumentKind.TEXT:
        with open_bytes(child) as opened:
            yield from items_of_runs(iter_input_runs(str(child), opened.plain_stream()))
    elif info.kind is DocumentKind.INDEX:
        yield SM612.problem(where, f"{where.loc} not read: {child} is itself an index (indexes do not nest)")
    else:
        yield SM612.problem(where, f"{where.loc} not read: {child} is {info.kind} content, not a sitemap")
