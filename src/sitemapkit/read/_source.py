"""One byte source: the single place that opens what a command reads from disk or standard input.

:func:`open_bytes` opens a path or ``-`` (standard input) and hands out its bytes as they are stored (the reader,
:class:`~sitemapkit.read.SitemapParser`, undoes gzip itself under its budget); :meth:`ByteSource.plain` gives the
same bytes with every gzip layer undone through the budgeted :class:`~sitemapkit.read.GzipDecoder`, for callers
that do not parse sitemaps (the URL lists of ``generate``, sniffing). Past the budget :meth:`ByteSource.plain`
raises the project's :class:`~sitemapkit.core.LimitExceededError`, so a gzip bomb costs no more than the budget
whoever reads it. URLs are not opened here: the fetch layer's walker streams their bodies into the same reader.

The local-set rule lives here too: :func:`sitemap_files` is what a folder stands for (the sitemap files in it, by
name and by content, :func:`not_a_sitemap`), for ``urls``, ``validate``, ``diff`` and the fetch layer's
``open_sources`` alike.
"""

from __future__ import annotations

import errno
import io
import os
import sys
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import BinaryIO

from sitemapkit.core import (
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    InputError,
    LimitExceededError,
    NotAFileError,
    SourceNotFoundError,
    escape_controls,
    quote_value,
    shorten,
)
from sitemapkit.read._sniff import DocumentKind, GzipDecoder, is_gzip, sniff

__all__ = ["SITEMAP_SUFFIXES", "ByteSource", "head_of", "no_sitemap_files", "not_a_sitemap", "open_bytes",
           "sitemap_files"]

#: The names of sitemap files in a folder (the content decides next, :func:`not_a_sitemap`).
SITEMAP_SUFFIXES = (".xml", ".xml.gz", ".txt", ".txt.gz", ".gz")
_CHUNK = 256 * 1024
_SNIFF_HEAD = 8192


class ByteSource:
    """An opened source: ``name`` (the path, or ``<stdin>``), :meth:`read` (standard input is read with
    ``read1``: whatever is there, so a slow producer is handled as it writes), :meth:`chunks` and :meth:`plain`
    (gzip undone under ``max_bytes``). Close it (or use it as a context manager); standard input stays open."""

    def __init__(self, stream: BinaryIO, name: str, *, owned: bool, max_bytes: int | None,
                 live: bool = False) -> None:
        self.name = name
        self.stream = stream
        self.max_bytes = max_bytes
        self._owned = owned
        #: True for standard input: its end is not known in advance (a producer may still be writing).
        self.live = live
        read: Callable[[int], bytes] = stream.read
        if live and isinstance(stream, io.BufferedReader):
            read = stream.read1
        self.read = read

    def chunks(self, size: int = _CHUNK) -> Iterator[bytes]:
        """The stored bytes, ``size`` at most at a time, to the end."""
        read = self.read
        while chunk := read(size):
            yield chunk

    def plain(self, size: int = _CHUNK) -> Generator[bytes, None, None]:
        """The bytes with every gzip layer undone (nested layers too), each layer's output within ``max_bytes``:
        past it :class:`~sitemapkit.core.LimitExceededError` is raised; corrupt gzip raises ``zlib.error``."""
        decoder: GzipDecoder | None = None
        first = True
        for chunk in self.chunks(size):
            if first:
                first = False
                while len(chunk) < 2:  # the gzip magic may come in two reads (a pipe)
                    more = self.read(size)
                    if not more:
                        break
                    chunk += more
                if is_gzip(chunk):
                    decoder = GzipDecoder(max_bytes=self.max_bytes, source=self.name)
            if decoder is None:
                yield chunk
                continue
            yield from decoder.iter_decompress(chunk)
            if decoder.exceeded:
                raise LimitExceededError(f"{self.name}: {decoder.limit_error()}", limit=self.max_bytes,
                                         source=self.name)
        if decoder is not None:
            yield from decoder.flush()

    def plain_stream(self) -> io.BufferedReader:
        """:meth:`plain` as a binary stream (for readers of lines); corrupt gzip raises
        :class:`~sitemapkit.core.InputError` naming the source."""
        return io.BufferedReader(_ChunkReader(self.plain(), self.name))

    def close(self) -> None:
        if self._owned:
            self.stream.close()

    def __enter__(self) -> ByteSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _ChunkReader(io.RawIOBase):
    """A readable raw stream over an iterator of byte chunks."""

    def __init__(self, chunks: Generator[bytes, None, None], name: str) -> None:
        self._chunks = chunks
        self._name = name
        self._buf = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._buf:
            try:
                nxt = next(self._chunks, None)
            except zlib.error as exc:
                raise InputError(f"{self._name}: corrupt gzip data ({exc})") from None
            if nxt is None:
                return 0
            self._buf = nxt
        n = min(len(buffer), len(self._buf))
        buffer[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        self._chunks.close()
        super().close()


def open_bytes(source: str | os.PathLike[str] | BinaryIO, *, max_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES,
               stdin: BinaryIO | None = None, name: str | None = None) -> ByteSource:
    """Open ``source``: a path, ``-`` (``stdin``, or the process's standard input) or an open binary stream
    (left open). A missing path raises :class:`~sitemapkit.core.SourceNotFoundError`, a folder
    :class:`~sitemapkit.core.NotAFileError` (both :class:`~sitemapkit.core.InputError` and ``OSError``)."""
    if not isinstance(source, (str, os.PathLike)):
        return ByteSource(source, name or str(getattr(source, "name", "<stream>")), owned=False, max_bytes=max_bytes)
    text = os.fspath(source)
    if text == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        return ByteSource(stream, name or "<stdin>", owned=False, max_bytes=max_bytes, live=True)
    if os.path.isdir(text):
        raise NotAFileError(errno.EISDIR, "is a directory, not a sitemap file", text)
    try:
        fh = open(text, "rb")  # noqa: SIM115 - closed by ByteSource.close
    except FileNotFoundError:
        raise SourceNotFoundError(errno.ENOENT, "no such file or directory", text) from None
    return ByteSource(fh, name or text, owned=True, max_bytes=max_bytes)


def head_of(path: str | os.PathLike[str], size: int = _SNIFF_HEAD) -> bytes:
    """The first ``size`` bytes of a file after gzip (less when it is shorter, corrupt or over the budget)."""
    head = b""
    with open_bytes(path) as src:
        chunks = src.plain()
        try:
            for chunk in chunks:
                head += chunk
                if len(head) >= size:
                    break
        except (zlib.error, LimitExceededError):  # corrupt, or over the budget: what was read is the head
            pass
        finally:
            chunks.close()
    return head[:size]


def not_a_sitemap(path: str | os.PathLike[str]) -> str | None:
    """Why the file is not a sitemap, from its first bytes (gzip inflated): an HTML page, XML with another root,
    or text that does not start with a URL (``robots.txt``, notes). None when it is one, or may be one that is
    broken (empty, unreadable, corrupt gzip, not well-formed): those are read, and reported."""
    try:
        head = head_of(path)
    except OSError:
        return None
    found = sniff(head)
    info, enc = found.kind, found.encoding
    kind = info.kind
    if kind is DocumentKind.HTML:
        return "an HTML page, not a sitemap"
    if kind is DocumentKind.UNKNOWN and info.root is not None and info.doctype is None:
        return f"XML with root <{escape_controls(shorten(info.root, 40))}>, not a sitemap"
    if kind is DocumentKind.TEXT:
        text = head[enc.bom_length:].decode(enc.encoding if enc.known else "utf-8", errors="replace")
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if not first.lower().startswith(("http://", "https://")):
            return f"text that does not start with a URL (first line {quote_value(first, 40)}), not a sitemap"
    return None


def sitemap_files(folder: str | os.PathLike[str]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """What a folder stands for: the sitemap files in it (named ``*.xml``, ``*.xml.gz``, ``*.txt``, ``*.gz``;
    recursively, sorted) and, apart, the files named so that are something else by their content, with why
    (:func:`not_a_sitemap`: robots.txt, an HTML page)."""
    found: list[Path] = []
    passed: list[tuple[Path, str]] = []
    for child in sorted(Path(folder).rglob("*")):
        if child.is_file() and child.name.lower().endswith(SITEMAP_SUFFIXES):
            reason = not_a_sitemap(child)
            if reason is None:
                found.append(child)
            else:
                passed.append((child, reason))
    return found, passed


def no_sitemap_files(folder: str, passed: list[tuple[Path, str]]) -> str:
    """The message for a folder without sitemap files (naming up to three files passed over, and why)."""
    why = "; ".join(f"{p.name}: {reason}" for p, reason in passed[:3])
    return (f"{folder}: no sitemap files (*.xml, *.xml.gz, *.txt, *.gz) in this directory"
            + (f" ({len(passed)} skipped: {why}{'; ...' if len(passed) > 3 else ''})" if passed else ""))
