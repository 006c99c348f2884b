"""A sitemap set: entries rolled into files at the limits, an index when needed, published atomically.

Data flow of :class:`SitemapSetWriter`::

    add(entry) -> for each format: render -> current file (XML: body spool; txt/html: final temp file)
                  roll before a limit would be crossed (URLs, uncompressed bytes, news entries)
    close()    -> finish files (XML: root with exactly the namespaces used + spooled body + end tag,
                  gzip-compressed on that pass) -> index -> manifest listing old + new files
               -> rename children into place -> rename entry points (index last) -> remove the previous
                  run's files -> manifest of the new set -> Manifest

Everything is written inside ``OUT/.sitemapkit-tmp-<token>/`` first; nothing in OUT changes until every file is
complete. A failure (or ``abort()``, or an exception leaving the ``with`` block) deletes the temp directory and
leaves the previous set as it was. Publishing is a swap: the children an index (or ``sitemap.html``) lists are
named with the run's generation (``sitemap-<gen>-<n>.xml``, a number the manifest keeps), so they never replace
a file the old index lists; the index is renamed over the old one last (the swap point), and only then are the
old files deleted. A kill at any moment leaves the old set or the new one complete; what it leaves besides (a
temp directory, unreferenced children) is listed in the manifest or removed by the next run.

Which files are "ours": the names this writer gives (``sitemap.xml``, ``sitemap-<gen>-<n>.xml``, ``.gz``
variants, ``.txt`` (split: ``sitemap-<n>.txt``), ``.html``, ``sitemap.xsl``) are recorded in
``OUT/.sitemapkit-manifest.json``. Stale-file removal only ever deletes files listed in the previous manifest
that the new run did not write; a file the user put in OUT is never touched, even when its name looks like ours.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import sys
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from hashlib import blake2b
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Literal
from urllib.parse import urlsplit

from sitemapkit.core._errors import ConfigurationError, InvalidEntryError, PublishError
from sitemapkit.core._lastmod import LastMod
from sitemapkit.core._limits import MAX_INDEX_ENTRIES, MAX_NEWS_PER_SITEMAP, MAX_SITEMAP_BYTES, MAX_URLS_PER_SITEMAP
from sitemapkit.core._model import SitemapRef, UrlEntry
from sitemapkit.core._problems import Problem
from sitemapkit.core._urls import is_absolute_http_url
from sitemapkit.write._writers import (
    HTML_FOOTER,
    SM606,
    SM607,
    URLSET_FOOTER,
    HtmlWriter,
    IndexWriter,
    TextWriter,
    _UrlRenderer,
    _Warnings,
    urlset_header,
)

if sys.platform != "win32":  # POSIX: serialise runs writing into the same directory
    import fcntl

__all__ = ["DEFAULT_GZIP_LEVEL", "FORMATS", "MANIFEST_NAME", "Manifest", "SitemapFile", "SitemapSetWriter",
           "write_sitemaps"]

Format = Literal["xml", "txt", "html"]
#: Output formats a set can be written in (one run can write several).
FORMATS: tuple[Format, ...] = ("xml", "txt", "html")
#: zlib level for ``.gz`` output: on sitemap XML level 1 measured 0.30 us/URL against level 6's 0.71 (and 9's
#: 3.0) for 12% more bytes; it compresses ~21:1 either way (BENCHMARKS.md, "Writer").
DEFAULT_GZIP_LEVEL = 1
#: The file, inside the output directory, that lists what the last run wrote.
MANIFEST_NAME = ".sitemapkit-manifest.json"
XSL_NAME = "sitemap.xsl"
_TMP_PREFIX = ".sitemapkit-tmp-"
_COPY_CHUNK = 1 << 20
_FLUSH_BYTES = 1 << 17  # rendered text is handed to the spool in ~128 KiB batches


@dataclass(frozen=True, slots=True)
class SitemapFile:
    """One published file: where it is, its public URL, what it holds and its size."""

    path: Path
    url: str
    kind: Literal["urlset", "index", "txt", "html", "xsl"]
    urls: int
    bytes: int
    stored_bytes: int
    news: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "url": self.url, "kind": self.kind, "urls": self.urls,
                "bytes": self.bytes, "stored_bytes": self.stored_bytes, "news": self.news}


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a publish wrote. ``entry_point`` is ``OUT/sitemap.xml`` (``.gz``): the index when there is more than
    one XML file, else the urlset itself (for a txt/html-only set, the first file of the first format).
    ``problems`` are warnings (deprecated tags, duplicates, URLs outside the base URL), one per code with a
    count; the library never prints them."""

    out_dir: Path
    entry_point: Path | None
    files: tuple[SitemapFile, ...]
    urls: int
    duplicates: int
    removed: tuple[Path, ...]
    problems: tuple[Problem, ...] = field(default=())

    @property
    def index(self) -> SitemapFile | None:
        return next((f for f in self.files if f.kind == "index"), None)

    @property
    def sitemaps(self) -> tuple[SitemapFile, ...]:
        """The urlset files (what the index lists, or the single sitemap)."""
        return tuple(f for f in self.files if f.kind == "urlset")

    def to_dict(self) -> dict[str, Any]:
        return {
            "out_dir": str(self.out_dir),
            "entry_point": str(self.entry_point) if self.entry_point else None,
            "urls": self.urls,
            "duplicates": self.duplicates,
            "files": [f.to_dict() for f in self.files],
            "removed": [str(p) for p in self.removed],
            "problems": [p.to_dict() for p in self.problems],
        }


class _Out:
    """A final file being written: plain, or gzip through zlib directly (no gzip module layering)."""

    __slots__ = ("_fh", "_z", "raw", "stored")

    def __init__(self, path: Path, gzip_level: int | None) -> None:
        self._fh: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed in close()
        # wbits=31: gzip container; mtime 0 in the header keeps output reproducible.
        self._z = zlib.compressobj(gzip_level, zlib.DEFLATED, 31) if gzip_level is not None else None
        self.raw = 0
        self.stored = 0

    def write(self, data: bytes) -> None:
        self.raw += len(data)
        if self._z is not None:
            data = self._z.compress(data)
            if not data:
                return
        self.stored += len(data)
        self._fh.write(data)

    def copy_from(self, src: BinaryIO) -> None:
        """Append a whole file. (A user-space copy: 157 MB measured 0.05-0.07 s, the same as copy_file_range.)"""
        while chunk := src.read(_COPY_CHUNK):
            self.write(chunk)

    def close(self) -> None:
        if self._z is not None:
            tail = self._z.flush()
            self.stored += len(tail)
            self._fh.write(tail)
            self._z = None
        self._fh.close()

    def discard(self) -> None:
        self._fh.close()


@dataclass(slots=True)
class _Done:
    tmp: Path
    kind: Literal["urlset", "index", "txt", "html", "xsl"]
    urls: int
    news: int
    raw: int
    stored: int
    lastmod: str


class _Roller:
    """One format's sequence of files, rolled at the limits."""

    fmt: Format
    suffix: str

    def __init__(self, owner: SitemapSetWriter) -> None:
        self.owner = owner
        self.done: list[_Done] = []
        self.count = 0
        self.news = 0
        self.size = 0
        self.open = False

    @property
    def total(self) -> int:
        """Entries added to this format so far (finished files plus the current one)."""
        return sum(d.urls for d in self.done) + self.count

    def _tmp(self) -> Path:
        return self.owner._tmp_dir / f"{self.fmt}-{len(self.done) + 1}"

    def add(self, entry: UrlEntry) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        raise NotImplementedError

    def discard(self) -> None:
        raise NotImplementedError


class _XmlRoller(_Roller):
    fmt: Format = "xml"

    def __init__(self, owner: SitemapSetWriter) -> None:
        super().__init__(owner)
        self.renderer = _UrlRenderer(0x1F, owner._warnings)  # prefixes only; the root declares what is used
        self.render = self.renderer.render
        # Worst-case root + end tag, so the byte limit holds whatever namespaces end up declared.
        self.overhead = len(urlset_header(0x1F, owner._stylesheet).encode()) + len(URLSET_FOOTER)
        self.max_urls = owner.max_urls
        self.max_bytes = owner.max_bytes
        self.max_news = owner.max_news
        self.used = 0
        self.buf: list[str] = []
        self.spool: BinaryIO | None = None

    def add(self, entry: UrlEntry) -> None:
        self.add_many((entry,), None, None)

    def add_many(self, entries: Iterable[UrlEntry], scope: str | None,
                 warn: Callable[[str, str, str | None], None] | None) -> None:
        """The hot loop: render, roll when a limit would be crossed, buffer. Counters live in locals and are
        written back on a roll and on exit (also when an entry raises)."""
        render = self.render
        renderer = self.renderer
        buf = self.buf
        append = buf.append
        count, size, news = self.count, self.size, self.news
        flush_at = size + _FLUSH_BYTES
        max_urls, max_bytes, max_news = self.max_urls, self.max_bytes, self.max_news
        is_open = self.open
        try:
            for entry in entries:
                if type(entry) is not UrlEntry:
                    SitemapSetWriter._refuse(entry)
                if scope is not None and not entry.loc.startswith(scope) and warn is not None:
                    warn(SM607.code, f"{entry.loc} is outside {scope}", entry.loc)
                text = render(entry)
                esize = len(text) if text.isascii() else len(text.encode("utf-8"))
                is_news = entry.news is not None
                if (count >= max_urls or size + esize > max_bytes or (is_news and news >= max_news)
                        or not is_open):
                    self.count, self.size, self.news = count, size, news
                    self._roll(entry, esize)
                    count, size, news = self.count, self.size, self.news
                    flush_at = size + _FLUSH_BYTES
                    is_open = True
                if renderer.pending:
                    self.used |= renderer.pending
                    renderer.pending = 0
                append(text)
                count += 1
                size += esize
                if is_news:
                    news += 1
                if size >= flush_at:
                    self._flush()
                    flush_at = size + _FLUSH_BYTES
        finally:
            self.count, self.size, self.news = count, size, news

    def _roll(self, entry: UrlEntry, size: int) -> None:
        """Start a new file for ``entry`` (finishing the current one), or refuse an entry no file can hold."""
        if size + self.overhead > self.max_bytes:
            self.renderer.pending = 0
            raise InvalidEntryError(
                f"entry is {size} bytes as XML; it cannot fit in a file of at most {self.max_bytes} bytes: "
                f"{entry.loc}", field="loc", value=entry.loc)
        if self.open:
            self.finish()
        self.spool = open(self._tmp().with_suffix(".body"), "wb")  # noqa: SIM115 - closed in finish/discard
        self.open = True
        self.size = self.overhead

    def _flush(self) -> None:
        if self.buf:
            assert self.spool is not None
            self.spool.write("".join(self.buf).encode("utf-8"))
            self.buf.clear()

    def finish(self) -> None:
        if not self.open:
            return
        self._flush()
        assert self.spool is not None
        body_path = Path(self.spool.name)
        self.spool.close()
        self.spool = None
        tmp = self._tmp()
        out = _Out(tmp, self.owner._gzip_level)
        try:
            out.write(urlset_header(self.used, self.owner._stylesheet).encode())
            with open(body_path, "rb") as body:
                out.copy_from(body)
            out.write(URLSET_FOOTER.encode())
        finally:
            out.close()
        body_path.unlink()
        self.done.append(_Done(tmp, "urlset", self.count, self.news, out.raw, out.stored, _now()))
        self.used = 0
        self.count = self.news = self.size = 0
        self.open = False

    def discard(self) -> None:
        if self.spool is not None:
            self.spool.close()
            self.spool = None
        self.buf.clear()


class _StreamRoller(_Roller):
    """txt and html: written straight to the final temp file (no root to fix up afterwards)."""

    def __init__(self, owner: SitemapSetWriter, fmt: Format) -> None:
        super().__init__(owner)
        self.fmt = fmt
        self.out: _Out | None = None
        self.writer: TextWriter | HtmlWriter | None = None
        self.tmp: Path | None = None
        self.overhead = len(HTML_FOOTER) + 16 if fmt == "html" else 0

    def add(self, entry: UrlEntry) -> None:
        owner = self.owner
        if self.writer is not None and (self.writer.count >= owner.max_urls
                                        or self.writer.bytes_written + self.overhead
                                        + _estimate(entry, self.fmt) > owner.max_bytes):
            self.finish()
        if self.writer is None:
            self.tmp = self._tmp()
            level = owner._gzip_level if self.fmt == "txt" else None
            self.out = _Out(self.tmp, level)
            self.writer = (TextWriter(self.out) if self.fmt == "txt"
                           else HtmlWriter(self.out, title=owner.html_title))
        self.writer.write(entry)

    def finish(self) -> None:
        if self.writer is None:
            return
        assert self.out is not None
        assert self.tmp is not None
        count = self.writer.count
        self.writer.close()
        self.out.close()
        kind: Literal["txt", "html"] = "txt" if self.fmt == "txt" else "html"
        self.done.append(_Done(self.tmp, kind, count, 0, self.out.raw, self.out.stored, _now()))
        self.writer = None
        self.out = None

    def discard(self) -> None:
        if self.out is not None:
            self.out.discard()
        self.writer = None
        self.out = None


def _estimate(entry: UrlEntry, fmt: Format) -> int:
    """Upper bound of the bytes one entry takes in a txt or html file."""
    if fmt == "txt":
        return len(entry.loc) + 1
    # html: the href, the link text and possibly a new section's heading, each at most the loc's length in UTF-8
    # bytes once percent-decoded and at most 6x that once escaped (&apos;), plus fixed markup and a <time>.
    return 18 * len(entry.loc) + 300


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


class SitemapSetWriter:
    """Write entries into a sitemap set in ``out_dir``, publishing atomically on :meth:`close`.

    ::

        with SitemapSetWriter("public", "https://example.com/", gzip=True) as w:
            for entry in entries:
                w.add(entry)
        manifest = w.manifest

    Limits may be lowered, never raised above the protocol's (``ConfigurationError``). ``base_url`` is where
    ``out_dir`` is served; it is treated as a directory (a missing trailing ``/`` is added). ``formats`` picks
    any of ``xml``, ``txt``, ``html``; ``gzip`` applies to xml and txt (an HTML page for people stays plain).
    ``xsl`` is a stylesheet href for the XML files, or ``"default"`` to write the bundled ``sitemap.xsl`` next
    to them and reference it. ``dedupe`` skips repeated locs (memory then grows with the number of distinct
    URLs: about 60 bytes each). Entries whose values cannot be written raise :class:`InvalidEntryError` from
    :meth:`add` without disturbing the set; callers may catch it and go on.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike[str],
        base_url: str,
        *,
        gzip: bool = False,
        max_urls: int = MAX_URLS_PER_SITEMAP,
        max_bytes: int = MAX_SITEMAP_BYTES,
        max_news: int = MAX_NEWS_PER_SITEMAP,
        formats: Sequence[Format] | Format = ("xml",),
        xsl: str | None = None,
        dedupe: bool = False,
        basename: str = "sitemap",
        gzip_level: int = DEFAULT_GZIP_LEVEL,
        html_title: str = "Site map",
        check_scope: bool = True,
    ) -> None:
        if not isinstance(base_url, str) or not is_absolute_http_url(base_url):
            raise ConfigurationError(f"base URL must be an absolute http(s) URL, got {base_url!r}")
        if urlsplit(base_url).query or urlsplit(base_url).fragment:
            raise ConfigurationError(f"base URL must not have a query or fragment: {base_url!r}")
        for name, value, limit in (("max_urls", max_urls, MAX_URLS_PER_SITEMAP),
                                   ("max_bytes", max_bytes, MAX_SITEMAP_BYTES),
                                   ("max_news", max_news, MAX_NEWS_PER_SITEMAP)):
            if not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")
            if value > limit:
                raise ConfigurationError(f"{name} {value} is above the protocol's limit of {limit}")
        if isinstance(formats, str):
            formats = (formats,)
        formats = tuple(dict.fromkeys(formats))
        if not formats or any(f not in FORMATS for f in formats):
            raise ConfigurationError(f"formats must be among {', '.join(FORMATS)}; got {formats!r}")
        if not 0 <= gzip_level <= 9:
            raise ConfigurationError(f"gzip_level must be 0..9, got {gzip_level}")
        if not basename or "/" in basename or basename.startswith("."):
            raise ConfigurationError(f"basename must be a plain file name stem, got {basename!r}")
        self.out_dir = Path(out_dir)
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.max_urls = max_urls
        self.max_bytes = max_bytes
        self.max_news = max_news
        self.formats = formats
        self.basename = basename
        self.html_title = html_title
        self._gzip = gzip
        self._gzip_level: int | None = gzip_level if gzip else None
        self._xsl = xsl
        self._stylesheet = None if xsl is None else (XSL_NAME if xsl == "default" else xsl)
        self._warnings = _Warnings(str(self.out_dir))
        self._seen: set[bytes] | None = set() if dedupe else None
        self._scope = self.base_url if check_scope else None
        self.duplicates = 0
        self.urls = 0
        self.manifest: Manifest | None = None
        self._state = "new"
        self._lock_fd: int | None = None
        self._tmp_dir = self.out_dir  # set in _start
        self._rollers: list[_Roller] = []

    # -- lifecycle ------------------------------------------------------------------------------------------

    def _start(self) -> None:
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PublishError(f"cannot create output directory {self.out_dir}: {exc.strerror or exc}") from exc
        self._lock()
        for stale in self.out_dir.glob(_TMP_PREFIX + "*"):  # left by a killed run (we hold the lock)
            shutil.rmtree(stale, ignore_errors=True)
        self._tmp_dir = self.out_dir / f"{_TMP_PREFIX}{secrets.token_hex(4)}"
        self._tmp_dir.mkdir()
        # XML first: it is the format that can reject an entry, before the others have written it.
        self._rollers = [_XmlRoller(self) if f == "xml" else _StreamRoller(self, f)
                         for f in sorted(self.formats, key=lambda f: f != "xml")]
        self._state = "open"

    def _lock(self) -> None:
        if sys.platform == "win32":  # pragma: no cover
            return
        fd = os.open(self.out_dir, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise PublishError(f"another sitemapkit run is writing into {self.out_dir}") from None
        except OSError:  # a filesystem without flock (some network mounts): go on unlocked
            os.close(fd)
            return
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def __enter__(self) -> SitemapSetWriter:
        if self._state == "new":
            self._start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None:
            if self._state == "open":
                self.close()
        else:
            self.abort()

    # -- adding ---------------------------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if self._state != "open":
            if self._state == "new":
                self._start()
            else:
                raise PublishError(f"sitemap set is {self._state}; cannot add entries")

    @staticmethod
    def _refuse(entry: object) -> None:
        if isinstance(entry, SitemapRef):
            raise InvalidEntryError("a sitemap set holds URL entries; indexes are written by the set itself "
                                    "(nested indexes are not processed by Google)", value=entry)
        if not isinstance(entry, UrlEntry):
            raise InvalidEntryError(f"expected a UrlEntry, got {type(entry).__name__}", value=entry)

    def add(self, entry: UrlEntry) -> bool:
        """Add one entry to every format. Returns False when it was skipped as a duplicate.

        Raises :class:`InvalidEntryError` (the entry is not written anywhere; the set is unharmed)."""
        if self._state != "open":
            self._ensure_open()
        if type(entry) is not UrlEntry:
            self._refuse(entry)
        seen = self._seen
        key = b""
        if seen is not None:
            # 96-bit digests: a false "duplicate" is out of the question (~1e-15 at 1e9 URLs), ~60 bytes each.
            key = blake2b(entry.loc.encode("utf-8"), digest_size=12).digest()
            if key in seen:
                self.duplicates += 1
                self._warnings.add(SM606.code, f"duplicate loc skipped: {entry.loc}", entry.loc)
                return False
        scope = self._scope
        if scope is not None and not entry.loc.startswith(scope):
            self._warnings.add(SM607.code, f"{entry.loc} is outside {scope}", entry.loc)
        for roller in self._rollers:
            roller.add(entry)
        if seen is not None:
            seen.add(key)
        self.urls += 1
        return True

    def add_all(self, entries: Iterable[UrlEntry]) -> None:
        """Add many entries; the first that cannot be written raises (those before it are in the set).

        Same result as calling :meth:`add` for each, with the per-entry overhead hoisted out of the loop for the
        common case (one format, no dedupe)."""
        self._ensure_open()
        if self._seen is not None or len(self._rollers) != 1:
            for entry in entries:
                self.add(entry)
            return
        roller = self._rollers[0]
        if not isinstance(roller, _XmlRoller):
            for entry in entries:
                self.add(entry)
            return
        before = roller.total
        try:
            roller.add_many(entries, self._scope, self._warnings.add)
        finally:
            self.urls += roller.total - before

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self._warnings.problems()

    # -- publishing -----------------------------------------------------------------------------------------

    def abort(self) -> None:
        """Drop everything written so far; the previously published set stays as it was."""
        if self._state in ("closed", "aborted"):
            return
        for roller in self._rollers:
            roller.discard()
        if self._state == "open":
            shutil.rmtree(self._tmp_dir, ignore_errors=True)
        self._state = "aborted"
        self._unlock()

    def close(self) -> Manifest:
        """Finish every file, write the index, publish atomically (index last) and return the manifest."""
        if self._state == "closed":
            assert self.manifest is not None
            return self.manifest
        if self._state == "new":
            self._start()
        if self._state != "open":
            raise PublishError(f"sitemap set is {self._state}; cannot publish")
        try:
            if self.urls == 0:
                raise PublishError("no URLs to write: a sitemap must list at least one URL; the previous set, "
                                   "if any, is unchanged")
            manifest = self._publish()
        except BaseException:
            self.abort()
            raise
        self.manifest = manifest
        self._state = "closed"
        self._unlock()
        return manifest

    def _publish(self) -> Manifest:
        """Move the finished files into OUT as a swap: children under names no earlier set used, the entry
        points (index, ``sitemap.html``) replaced last, the previous set's files deleted after. A kill at any
        point leaves the old set or the new one complete (plus, at worst, unreferenced files the manifest lists
        so that the next run deletes them)."""
        for roller in self._rollers:
            roller.finish()
        previous, previous_generation = _read_manifest_state(self.out_dir)
        layout: list[tuple[_Roller, str, str]] = []  # (roller, file suffix, entry-point name)
        gz = ".gz" if self._gzip else ""
        for roller in self._rollers:
            ext = roller.fmt
            suffix = f".{ext}{gz if ext != 'html' else ''}"
            if ext == "xml" and len(roller.done) > MAX_INDEX_ENTRIES:
                raise PublishError(f"{len(roller.done)} sitemap files exceed the {MAX_INDEX_ENTRIES} an index "
                                   "may list")
            layout.append((roller, suffix, f"{self.basename}{suffix}"))
        generation = self._new_generation(layout, previous, previous_generation)
        plan: list[tuple[_Done, str]] = []  # (temp file, final name), in rename order: entry points last
        last: list[tuple[_Done, str]] = []
        entry_point: str | None = None
        for roller, suffix, top in layout:
            if len(roller.done) == 1:
                plan.append((roller.done[0], top))
                entry_point = entry_point or top
                continue
            names = self._child_names(roller, suffix, generation)
            plan.extend(zip(roller.done, names, strict=True))
            if roller.fmt == "xml":
                last.append((self._write_index(roller.done, names), top))
                entry_point = entry_point or top
            elif roller.fmt == "html":
                last.append((self._write_html_pages(names), top))
        if self._xsl == "default":
            plan.insert(0, (self._write_xsl(), XSL_NAME))
        written = [name for _done, name in plan + last]
        # Before anything moves: the manifest lists the old files and the new ones, so whatever a kill leaves
        # in OUT is known to the next run, which deletes what its own set does not use.
        self._write_manifest(sorted(set(previous) | set(written)), generation)
        files: list[SitemapFile] = []
        moved: list[Path] = []
        try:
            for done, name in plan + last:  # children first, the entry points last
                target = self.out_dir / name
                try:
                    os.replace(done.tmp, target)
                except OSError as exc:
                    raise PublishError(f"cannot move {name} into {self.out_dir}: {exc.strerror or exc}") from exc
                moved.append(target)
                files.append(SitemapFile(target, self.base_url + name, done.kind, done.urls, done.raw,
                                         done.stored, done.news))
        except BaseException:
            # The old entry points still stand (they are replaced last): take back the fresh children.
            fresh = set(written) - set(previous)
            for path in moved:
                if path.name in fresh:
                    with contextlib.suppress(OSError):
                        path.unlink()
            raise
        removed = self._remove_stale(previous, set(written))
        self._write_manifest(sorted(written), generation)
        with contextlib.suppress(OSError):
            self._tmp_dir.rmdir()
        return Manifest(
            out_dir=self.out_dir,
            entry_point=self.out_dir / entry_point if entry_point else None,
            files=tuple(files),
            urls=self.urls,
            duplicates=self.duplicates,
            removed=tuple(removed),
            problems=self._warnings.problems(),
        )

    def _child_names(self, roller: _Roller, suffix: str, generation: int) -> list[str]:
        """Names of a split format's files. XML and HTML children are listed by an entry point (the index,
        ``sitemap.html``) and carry the run's generation (``sitemap-<gen>-<n>.xml``), so a new set never
        overwrites a file the old entry point lists. Text sitemaps have no index: each file is submitted on
        its own and keeps a stable name (``sitemap-<n>.txt``), replaced atomically."""
        count = len(roller.done)
        if roller.fmt == "txt":
            return [f"{self.basename}-{i}{suffix}" for i in range(1, count + 1)]
        return [f"{self.basename}-{generation}-{i}{suffix}" for i in range(1, count + 1)]

    def _new_generation(self, layout: list[tuple[_Roller, str, str]], previous: list[str],
                        previous_generation: int) -> int:
        """The first generation after the previous run's whose child names are all unused in OUT."""
        taken = set(previous)
        generation = previous_generation + 1
        while True:
            names = [name for roller, suffix, _top in layout if len(roller.done) > 1 and roller.fmt != "txt"
                     for name in self._child_names(roller, suffix, generation)]
            if not any(name in taken or (self.out_dir / name).exists() for name in names):
                return generation
            generation += 1

    def _write_index(self, done: list[_Done], names: list[str]) -> _Done:
        tmp = self._tmp_dir / "index"
        out = _Out(tmp, self._gzip_level)
        try:
            w = IndexWriter(out, stylesheet=self._stylesheet)
            for d, name in zip(done, names, strict=True):
                w.write(SitemapRef(self.base_url + name, LastMod(d.lastmod)))
            w.close()
        finally:
            out.close()
        return _Done(tmp, "index", sum(d.urls for d in done), 0, out.raw, out.stored, _now())

    def _write_html_pages(self, names: list[str]) -> _Done:
        tmp = self._tmp_dir / "html-pages"
        out = _Out(tmp, None)
        try:
            w = HtmlWriter(out, title=self.html_title)
            w.write_links(((f"Page {i}", name) for i, name in enumerate(names, 1)), heading="Pages")
            w.close()
        finally:
            out.close()
        return _Done(tmp, "html", 0, 0, out.raw, out.stored, _now())

    def _write_xsl(self) -> _Done:
        tmp = self._tmp_dir / "xsl"
        data = resources.files("sitemapkit.write").joinpath("xsl", XSL_NAME).read_bytes()
        tmp.write_bytes(data)
        return _Done(tmp, "xsl", 0, 0, len(data), len(data), _now())

    def _remove_stale(self, previous: list[str], written: set[str]) -> list[Path]:
        """Delete the files the previous manifest listed that this run did not write (never anything else)."""
        removed = []
        for name in previous:
            if name in written or "/" in name or name.startswith(".") or name == MANIFEST_NAME:
                continue
            path = self.out_dir / name
            try:
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise PublishError(f"cannot remove stale file {path}: {exc.strerror or exc}") from exc
        return removed

    def _write_manifest(self, names: list[str], generation: int) -> None:
        tmp = self._tmp_dir / "manifest"
        tmp.write_text(json.dumps({"written_by": "sitemapkit", "generation": generation, "files": names},
                                  indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.out_dir / MANIFEST_NAME)


def _read_manifest(out_dir: Path) -> list[str]:
    """The file names the last run's manifest lists (none when there is no readable manifest)."""
    return _read_manifest_state(out_dir)[0]


def _read_manifest_state(out_dir: Path) -> tuple[list[str], int]:
    """The last run's file names and generation (0 when unknown)."""
    try:
        data = json.loads((out_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], 0
    if not isinstance(data, dict):
        return [], 0
    files = data.get("files")
    generation = data.get("generation")
    names = [f for f in files if isinstance(f, str)] if isinstance(files, list) else []
    if isinstance(generation, int) and not isinstance(generation, bool) and 0 <= generation < 10**9:
        return names, generation
    return names, 0


def write_sitemaps(
    entries: Iterable[UrlEntry],
    out_dir: str | os.PathLike[str],
    base_url: str,
    *,
    gzip: bool = False,
    max_urls: int = MAX_URLS_PER_SITEMAP,
    max_bytes: int = MAX_SITEMAP_BYTES,
    max_news: int = MAX_NEWS_PER_SITEMAP,
    formats: Sequence[Format] | Format = ("xml",),
    xsl: str | None = None,
    dedupe: bool = False,
    basename: str = "sitemap",
    gzip_level: int = DEFAULT_GZIP_LEVEL,
    html_title: str = "Site map",
    check_scope: bool = True,
) -> Manifest:
    """Write ``entries`` as a sitemap set in ``out_dir`` served at ``base_url``; see :class:`SitemapSetWriter`.

    Any exception (including an :class:`InvalidEntryError` from an entry) aborts the run and leaves the
    previous set untouched. To skip bad entries instead, drive :class:`SitemapSetWriter` and catch it."""
    writer = SitemapSetWriter(out_dir, base_url, gzip=gzip, max_urls=max_urls, max_bytes=max_bytes,
                              max_news=max_news, formats=formats, xsl=xsl, dedupe=dedupe, basename=basename,
                              gzip_level=gzip_level, html_title=html_title, check_scope=check_scope)
    with writer:
        writer.add_all(entries)
    assert writer.manifest is not None
    return writer.manifest
