"""A sitemap set: entries rolled into files at the limits, an index when needed, published atomically.

Data flow of :class:`SitemapSetWriter`::

    add(entry) -> for each format: render -> current file (XML: body spool; txt/html: final temp file)
                  roll before a limit would be crossed (URLs, uncompressed bytes, news entries)
    close()    -> finish files (XML: root with exactly the namespaces used + spooled body + end tag,
                  gzip-compressed on that pass) -> index -> manifest listing old + new files
               -> rename children into place -> rename entry points (index last) -> remove the previous
                  run's files -> manifest of the new set -> Manifest

Rolling (``_rolling.py``) writes everything inside ``OUT/.sitemapkit-tmp-<token>/`` first; nothing in OUT
changes until every file is complete. A failure (or ``abort()``, or an exception leaving the ``with`` block)
deletes the temp directory and leaves the previous set as it was. Publishing (``_publish.py``) is a swap: children
under names no earlier set used, the index renamed over the old one last, the old files deleted after; a kill at
any moment leaves the old set or the new one complete. The manifest records which files are "ours": stale-file
removal only ever deletes files it lists (a file the user put in OUT is never touched).
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from sitemapkit.core import (
    MAX_LOC_LENGTH,
    MAX_NEWS_PER_SITEMAP,
    MAX_SITEMAP_BYTES,
    MAX_URLS_PER_SITEMAP,
    ConfigurationError,
    ExactSeen,
    InvalidValueError,
    Problem,
    PublishError,
    UrlEntry,
    has_credentials,
    is_absolute_http_url,
    url_argument_problem,
)
from sitemapkit.write._codes import SM606, SM607
from sitemapkit.write._locblock import canonical_block, fresh_locs
from sitemapkit.write._manifest import Manifest
from sitemapkit.write._partition import PartitionFiles, PartitionSpec
from sitemapkit.write._publish import XSL_NAME, Publisher
from sitemapkit.write._render import Warnings
from sitemapkit.write._rolling import (
    FORMATS,
    Format,
    Roller,
    RollSettings,
    StreamRoller,
    XmlRoller,
    refuse_credentials,
    refuse_entry,
)

if sys.platform != "win32":  # POSIX: serialise runs writing into the same directory
    import fcntl

__all__ = ["DEFAULT_GZIP_LEVEL", "Manifest", "SitemapSetWriter", "write_sitemaps"]

#: zlib level for ``.gz`` output: on sitemap XML level 1 measured 0.30 us/URL against level 6's 0.71 (and 9's
#: 3.0) for 12% more bytes; it compresses ~21:1 either way (BENCHMARKS.md, "Writer").
DEFAULT_GZIP_LEVEL = 1
_TMP_PREFIX = ".sitemapkit-tmp-"


class SitemapSetWriter:
    """Write entries into a sitemap set in ``out_dir``, publishing atomically on :meth:`close`.

    ::

        with SitemapSetWriter("public", "https://example.com/", gzip=True) as w:
            for entry in entries:
                w.add(entry)
        manifest = w.manifest

    Limits may be lowered, never raised above the protocol's (``ConfigurationError``). ``base_url`` is where
    ``out_dir`` is served; it is treated as a directory (a missing trailing ``/`` is added). ``formats`` picks any
    of ``xml``, ``txt``, ``html``; ``gzip`` applies to xml and txt (an HTML page for people stays plain). ``xsl`` is
    a stylesheet href for the XML files, or ``"default"`` to write the bundled ``sitemap.xsl`` next to them and
    reference it. ``html_title`` titles the HTML pages (default "Site map – HOST", the base URL's host);
    ``page_titles`` gives a page's title by URL for their link texts (a crawl knows them). ``dedupe`` skips repeated
    locs, the first one wins, exactly (:class:`~sitemapkit.core.ExactSeen`: 64-bit hashes, the first million in
    memory, ~70 MB, then in a temporary SQLite file, so memory stays bounded however many URLs). Entries whose
    values cannot be written raise :class:`InvalidEntryError` from :meth:`add` without disturbing the set; callers
    may catch it and go on.
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
        html_title: str | None = None,
        check_scope: bool = True,
        page_titles: Callable[[str], str | None] | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not is_absolute_http_url(base_url):
            raise ConfigurationError(f"base URL must be an absolute http(s) URL, got {base_url!r}")
        problem = url_argument_problem(base_url)  # credentials (never echoed), a bad port, a control character
        if problem is not None:
            raise ConfigurationError(f"base URL: {problem}")
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
        self.html_title = html_title or f"Site map – {urlsplit(self.base_url).netloc}"
        self._page_titles = page_titles
        self._gzip = gzip
        self._gzip_level: int | None = gzip_level if gzip else None
        self._xsl = xsl
        self._stylesheet = None if xsl is None else (XSL_NAME if xsl == "default" else xsl)
        self._warnings = Warnings(str(self.out_dir))
        self._seen: ExactSeen | None = ExactSeen() if dedupe else None
        self._scope = self.base_url if check_scope else None
        self.duplicates = 0
        self.urls = 0
        self.manifest: Manifest | None = None
        self._state = "new"
        self._lock_fd: int | None = None
        self._tmp_dir = self.out_dir  # set in _start
        self._rollers: list[Roller] = []
        self._adopted = 0  # partitions adopted (``adopt``) and the URLs they brought
        self._adopted_urls = 0

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
        settings = RollSettings(self._tmp_dir, self._gzip_level, self._stylesheet, self.max_urls, self.max_bytes,
                                self.max_news, self.html_title, self._warnings, self._page_titles,
                                _origin(self.base_url), f"{self.basename}.html")
        self._rollers = [XmlRoller(settings) if f == "xml" else StreamRoller(settings, f)
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

    def add(self, entry: UrlEntry) -> bool:
        """Add one entry to every format. Returns False when it was skipped as a duplicate.

        Raises :class:`InvalidEntryError` (the entry is not written anywhere; the set is unharmed)."""
        if self._state != "open":
            self._ensure_open()
        if type(entry) is not UrlEntry:
            refuse_entry(entry)
        seen = self._seen
        key = 0
        if seen is not None:
            key = hash(entry.loc)  # see the class docstring: 64 bits, computed once per string by Python
            if key in seen:
                self.duplicates += 1
                self._warnings.add(SM606.code, f"duplicate loc skipped: {entry.loc}", entry.loc)
                return False
        scope = self._scope
        if scope is None or not entry.loc.startswith(scope):  # under the scope: no userinfo
            if has_credentials(entry.loc):
                refuse_credentials(entry.loc)
            if scope is not None:
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
        if not isinstance(roller, XmlRoller):
            for entry in entries:
                self.add(entry)
            return
        before = roller.total
        try:
            roller.add_many(entries, self._scope, self._warnings.add)
        finally:
            self.urls += roller.total - before

    def add_run(self, entries: Sequence[UrlEntry], start: int = 0,
                stop: int | None = None) -> tuple[int, InvalidValueError | None]:
        """Add ``entries[start:stop]`` in order, as :meth:`add` adds each, up to the first that cannot be written.

        Returns ``(stop, None)`` when all were added (or skipped as duplicates), else ``(i, error)``: ``entries[i]``
        raised ``error`` from :meth:`add` and is not in the set; those before it are. A caller that skips bad
        entries goes on from ``i + 1``. The common case (one format; with dedupe, a run without a repeat) runs
        :meth:`add_all`'s loop."""
        end = len(entries) if stop is None else stop
        if self._state != "open":
            self._ensure_open()
        roller = self._rollers[0]
        seen = self._seen
        keys: list[int] = []
        if seen is not None and len(self._rollers) == 1 and isinstance(roller, XmlRoller):
            # Dedupe on the fast path: a run without a repeated loc (the common case) is added as one.
            keys = [hash(entries[i].loc) for i in range(start, end)]
            if len(set(keys)) != len(keys) or not seen.isdisjoint(keys):
                seen = None  # a repeat in this run: one at a time below
                keys = []
        if (self._seen is not None and not keys) or len(self._rollers) != 1 or not isinstance(roller, XmlRoller):
            for i in range(start, end):
                try:
                    self.add(entries[i])
                except InvalidValueError as exc:
                    return i, exc
            return end, None
        files, count = len(roller.done), roller.count
        try:
            roller.add_many(entries[start:end] if start or end != len(entries) else entries, self._scope,
                            self._warnings.add)
        except BaseException as exc:
            # Entries added before the one that raised: those in the files finished since, less the current file's
            # count before, plus the current file's (roller.total would sum every file, per run).
            added = sum(d.urls for d in roller.done[files:]) - count + roller.count
            self.urls += added
            if seen is not None:
                seen.update(keys[:added])
            if isinstance(exc, InvalidValueError):  # that entry is not in the set
                return start + added, exc
            raise
        self.urls += end - start
        if seen is not None:
            seen.update(keys)
        return end, None

    def add_locs(self, locs: list[str]) -> tuple[int, InvalidValueError | None]:
        """:meth:`add_run` for ``UrlEntry(loc)`` of each of ``locs``, returning the same: a text list's lines
        without building an entry per line. Locs that are not canonical on one origin (``canonical_block``
        says which) take :meth:`add_run` with entries built by the constructor (which may raise)."""
        if self._state != "open":
            self._ensure_open()
        roller = self._rollers[0]
        if len(self._rollers) != 1 or not isinstance(roller, XmlRoller) or not canonical_block(locs):
            return self._add_locs_slowly(locs)
        if self._seen is not None:
            fresh = self._fresh_locs(locs, roller)
            if fresh is None:
                return self._add_locs_slowly(locs)
            roller.add_locs(fresh, self._scope, self._warnings.add)  # cannot raise: see _fresh_locs
            self.urls += len(fresh)
            return len(locs), None
        files, count = len(roller.done), roller.count
        try:
            roller.add_locs(locs, self._scope, self._warnings.add)
        except BaseException as exc:
            added = sum(d.urls for d in roller.done[files:]) - count + roller.count
            self.urls += added
            if isinstance(exc, InvalidValueError):
                return added, exc
            raise
        self.urls += len(locs)
        return len(locs), None

    def _fresh_locs(self, locs: list[str], roller: XmlRoller) -> list[str] | None:
        """``dedupe``: the locs of a canonical block not seen before (``fresh_locs``); None when :meth:`add` one
        at a time must decide: a loc outside the scope (its warning comes first), or files too small for any loc
        (one could be refused after the locs behind it were marked seen)."""
        if roller.overhead + 6 * MAX_LOC_LENGTH + 32 > self.max_bytes:  # each character escaped, as "&apos;"
            return None
        assert self._seen is not None
        return fresh_locs(locs, self._seen, self._scope, self._duplicate)

    def _duplicate(self, loc: str) -> None:
        self.duplicates += 1
        self._warnings.add(SM606.code, f"duplicate loc skipped: {loc}", loc)

    def _add_locs_slowly(self, locs: list[str]) -> tuple[int, InvalidValueError | None]:
        entries: list[UrlEntry] = []
        for i, loc in enumerate(locs):
            try:
                entries.append(UrlEntry(loc))
            except InvalidValueError as exc:
                stop, error = self.add_run(entries)
                return (stop, error) if error is not None else (i, exc)
        return self.add_run(entries)

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self._warnings.problems()

    # -- partitions written elsewhere (``_partition.py``) ----------------------------------------------------

    def partition_spec(self, name: str) -> PartitionSpec:
        """Where and how a partition named ``name`` (a plain folder name) writes its files: give it to a
        :class:`~sitemapkit.write.PartitionWriter` (in this process or another), then :meth:`adopt` the result."""
        if not name or "/" in name or name.startswith("."):
            raise ConfigurationError(f"a partition name is a plain folder name, got {name!r}")
        self._ensure_open()
        settings = self._rollers[0].settings
        return PartitionSpec(self._tmp_dir / name, tuple(r.fmt for r in self._rollers), settings.gzip_level,
                             settings.stylesheet, self.max_urls, self.max_bytes, self.max_news, self.html_title)

    def adopt(self, files: PartitionFiles, *, duplicates: int = 0) -> None:
        """Take a finished partition's files into the set, after those adopted before (call in partition
        order). Partitions are adopted before any entry is added with :meth:`add`. ``duplicates`` counts URLs
        the partition skipped as repeated."""
        self._ensure_open()
        if self.urls != self._adopted_urls or any(r.count for r in self._rollers):
            raise PublishError("partitions are adopted before entries are added to the set")
        self._adopted += 1
        folders = {d.tmp.parent for ds in files.done.values() for d in ds} - {self._tmp_dir}
        for roller in self._rollers:
            for done in files.done.get(roller.fmt, []):
                if not done.tmp.is_relative_to(self._tmp_dir):
                    raise PublishError(f"{done.tmp} is not inside this set's temporary directory")
                target = self._tmp_dir / f"p{self._adopted}-{done.tmp.parent.name}-{done.tmp.name}"
                os.replace(done.tmp, target)
                done.tmp = target
                roller.done.append(done)
        for folder in folders:  # the partition's own folder, now empty of finished files
            shutil.rmtree(folder, ignore_errors=True)
        if files.warnings is not None:
            self._warnings.merge(files.warnings)
        self.urls += files.urls
        self._adopted_urls += files.urls
        self.duplicates += duplicates

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
        self._forget_seen()
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
        self._forget_seen()
        self._unlock()
        return manifest

    def _forget_seen(self) -> None:
        if self._seen is not None:
            self._seen.close()

    def _publish(self) -> Manifest:
        """Finish every file, then publish them (``_publish.py``: a swap, index last) and say what was done."""
        for roller in self._rollers:
            roller.finish()
        published = Publisher(self.out_dir, self.base_url, self.basename, self._tmp_dir, self._gzip,
                              self._gzip_level, self._stylesheet, self._xsl, self.html_title).publish(self._rollers)
        return Manifest(
            out_dir=self.out_dir,
            entry_point=published.entry_point,
            files=published.files,
            urls=self.urls,
            duplicates=self.duplicates,
            removed=published.removed,
            problems=self._warnings.problems(),
            dedupe_limit=len(self._seen) if self._seen is not None and self._seen.full else None,
        )


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


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
    html_title: str | None = None,
    check_scope: bool = True,
    page_titles: Callable[[str], str | None] | None = None,
) -> Manifest:
    """Write ``entries`` as a sitemap set in ``out_dir`` served at ``base_url``; see :class:`SitemapSetWriter`.

    Any exception (including an :class:`InvalidEntryError` from an entry) aborts the run and leaves the
    previous set untouched. To skip bad entries instead, drive :class:`SitemapSetWriter` and catch it.

    Example: ``write_sitemaps([UrlEntry("https://example.com/")], "public/", "https://example.com/")``; see the
    README's Library section.
    """
    writer = SitemapSetWriter(out_dir, base_url, gzip=gzip, max_urls=max_urls, max_bytes=max_bytes,
                              max_news=max_news, formats=formats, xsl=xsl, dedupe=dedupe, basename=basename,
                              gzip_level=gzip_level, html_title=html_title, check_scope=check_scope,
                              page_titles=page_titles)
    with writer:
        writer.add_all(entries)
    assert writer.manifest is not None
    return writer.manifest
