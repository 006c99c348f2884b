"""The validator: ``validate_sitemaps(sources, ...) -> ValidationReport``.

Data flow for one file (``_stream``): bytes (read in 1 MiB chunks) -> gzip inflation under a budget
(``_sniff.GzipDecoder``) -> encoding and kind from the head, once its root start tag is complete
(``_sniff.detect_encoding`` / ``sniff_kind``, shared with the reader) -> one streaming pass for the kind (``XmlPass``
for urlset / index: well-formedness, XSD and rule checks together; ``TextPass``; ``FeedPass``) -> problems with
file, line, column and the loc they concern; the same however the bytes arrive. Cross-file checks (hreflang
reciprocity, children of an index) run once every file is done.

Around it: ``_files`` (directories expanded, files that are not sitemaps skipped, indexes first, an index's
children found next to it, chunked reading), ``_result`` (the report assembled from the per-file contexts); the
XML pass is given its fast lane in ``_stream`` (``_lane_factory``), so that ``_xml`` and ``_lane`` never import
each other.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapkit.core import ConfigurationError, Problem, is_url_source, plural
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import moment, origin_of, scope_of
from sitemapkit.validate._context import MAX_PROBLEMS_PER_CODE, FileContext, Profile, RunOptions
from sitemapkit.validate._files import Job, children, expand, order, plain_chunks, plain_chunks_of, read_chunks
from sitemapkit.validate._hreflang import HreflangStore
from sitemapkit.validate._result import FileReport, SkippedFile, ValidationReport, assemble
from sitemapkit.validate._stream import run_stream

if TYPE_CHECKING:
    from sitemapkit.fetch import FetchSettings

__all__ = ["FileReport", "Profile", "ValidateProgress", "ValidationReport", "validate_bytes", "validate_sitemaps"]

#: Bytes handed to a pass at a time (a fetched body is cut to this size too, so progress moves within it).
_CHUNK = 1 << 20
#: Seconds between two calls of the ``on_progress`` hook while a run is busy.
PROGRESS_EVERY = 0.5


@dataclass(frozen=True, slots=True)
class ValidateProgress:
    """Where a :func:`validate_sitemaps` run is (given to its ``on_progress`` hook): ``files_done`` documents finished,
    ``entries`` checked so far over every document (URLs, child sitemaps, feed items, the current document's
    included), ``bytes_read`` from the sources as stored (gzip compressed), and the ``current`` document."""

    files_done: int
    entries: int
    bytes_read: int
    current: str | None = None

    def describe(self, sources: int, elapsed: float) -> str:
        """A progress line: ``validating 2 sources: 1 file done, 10 entries checked, 3 KiB read, 00:05 elapsed``."""
        minutes, seconds = divmod(int(elapsed), 60)
        size = (f"{self.bytes_read / 1024:.0f} KiB" if self.bytes_read < 1024 * 1024
                else f"{self.bytes_read / 1024 / 1024:.1f} MiB")
        entries = f"{self.entries:,} {'entry' if self.entries == 1 else 'entries'}"
        return (f"validating {plural(sources, 'source')}: {plural(self.files_done, 'file')} done, {entries} checked, "
                f"{size} read, {minutes:02d}:{seconds:02d} elapsed")


class _Tracker:
    """Counts for ``on_progress``, which it calls when a document is done and otherwise at most every
    :data:`PROGRESS_EVERY` seconds (checked once per chunk, never per entry), and once at the end."""

    __slots__ = ("_done_entries", "_hook", "_next", "bytes_read", "ctx", "files_done")

    def __init__(self, hook: Callable[[ValidateProgress], None] | None) -> None:
        self._hook = hook
        self._next = time.monotonic() + PROGRESS_EVERY
        self._done_entries = 0
        self.files_done = 0
        self.bytes_read = 0
        self.ctx: FileContext | None = None

    def chunk(self, size: int) -> None:
        self.bytes_read += size
        if self._hook is not None and time.monotonic() >= self._next:
            self.emit()

    def begin(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def end(self, ctx: FileContext) -> None:
        self.ctx = None
        self.files_done += 1
        self._done_entries += ctx.entries
        self.emit()

    def emit(self) -> None:
        if self._hook is None:
            return
        self._next = time.monotonic() + PROGRESS_EVERY
        ctx = self.ctx
        entries = self._done_entries + (ctx.entries if ctx is not None else 0)
        self._hook(ValidateProgress(self.files_done, entries, self.bytes_read,
                                    ctx.source if ctx is not None else None))


@dataclass(slots=True)
class _Run:
    options: RunOptions
    store: HreflangStore | None
    tracker: _Tracker = field(default_factory=lambda: _Tracker(None))
    contexts: list[FileContext] = field(default_factory=list)
    paths: list[Path | bytes] = field(default_factory=list)  # file, or the fetched body (for the column pass)
    done: dict[Path, FileContext] = field(default_factory=dict)


def _coerce_now(now: datetime | str | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if isinstance(now, str):
        from sitemapkit.core import parse_lastmod_lenient

        value = parse_lastmod_lenient(now)
        if value is None:
            raise ConfigurationError(f"--now: not a date or datetime: {now!r}")
        now = value.to_datetime()
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    if not datetime(1, 1, 3, tzinfo=UTC) <= now <= datetime(9999, 12, 29, tzinfo=UTC):
        # The checks add and subtract days around it (future allowance, news age): keep that arithmetic in range.
        raise ConfigurationError(f"--now: out of range (0001-01-03 to 9999-12-29): {moment(now)}")
    return now


def _options(profile: Profile | str, now: datetime | str | None, allow_cross_host: bool, xsd: bool,
             max_problems: int = MAX_PROBLEMS_PER_CODE) -> RunOptions:
    try:
        prof = Profile(profile) if isinstance(profile, str) else profile
    except ValueError:
        raise ConfigurationError(f"unknown profile {profile!r}; use 'sitemaps' or 'google'") from None
    if isinstance(max_problems, bool) or not isinstance(max_problems, int) or max_problems < 0:
        raise ConfigurationError(f"--max-problems must be a whole number, 0 or more, got {max_problems!r}")
    return RunOptions(prof, _coerce_now(now), allow_cross_host, xsd, max_problems)


def validate_sitemaps(
    sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    profile: Profile | str = Profile.GOOGLE,
    now: datetime | str | None = None,
    allow_cross_host: bool = False,
    base_url: str | None = None,
    xsd: bool = True,
    fetch: FetchSettings | None = None,
    max_problems: int = MAX_PROBLEMS_PER_CODE,
    on_progress: Callable[[ValidateProgress], None] | None = None,
) -> ValidationReport:
    """Validate files, gzip files, directories of sitemaps, indexes with their children next to them, and URLs.

    Example: ``report = validate_sitemaps(["public/"])``, then ``report.valid`` and ``report.problems`` (each with
    its code, severity, message, file, line and loc).

    A URL (sitemap, index or site) is fetched and walked with the fetch layer (``fetch`` settings; indexes are
    followed), and every document fetched is validated with its own URL as its location and scope; fetch problems
    (SM5xx) are reported with the document they concern.

    ``base_url`` is the URL where the source is published (a file's URL, or the URL of a directory when it ends
    in ``/`` or the source is a directory); it enables the scope rule (RULES.md 13). Children of an index get
    their URL from the index. ``now`` (default: the current time) is the reference for future dates and news
    age. Raises :class:`InputError` for a source that does not exist and :class:`ConfigurationError` for bad
    options; everything found *in* the files is a :class:`Problem` in the report.

    In a directory only the files that are sitemaps (by their content: XML sitemaps, indexes, feeds, lists of
    URLs) are validated; the others (``robots.txt``, HTML pages) are listed in ``report.skipped``. At most
    ``max_problems`` problems of one code are listed per file (file-level problems always are); the tally
    (``report.tally``) counts every one.

    ``on_progress`` (for a progress display) is called with a :class:`ValidateProgress` when a document is done,
    at most every half second while one is being checked, and once at the end with the totals; it runs in the
    caller's thread, between chunks, so keep it short."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    options = _options(profile, now, allow_cross_host, xsd, max_problems)
    if base_url is not None and origin_of(base_url) is None:
        raise ConfigurationError(f"--base-url must be an absolute http(s) URL, got {base_url!r}")
    names = [os.fspath(src) for src in sources]
    urls = [src for src in names if is_url_source(src)]
    skipped: list[SkippedFile] = []
    jobs = list(expand([src for src in names if not is_url_source(src)], base_url, skipped))
    store = HreflangStore() if options.profile is Profile.GOOGLE else None
    run = _Run(options, store, _Tracker(on_progress))
    try:
        if urls:
            _validate_urls(urls, run, fetch)
        queue = order(jobs)
        while queue:
            job = queue.pop(0)
            resolved = job.path.resolve()
            if resolved in run.done:
                ctx = run.done[resolved]
            else:
                ctx = _validate_file(job, run)
                run.done[resolved] = ctx
                run.contexts.append(ctx)
                run.paths.append(job.path)
                if ctx.kind == "index":
                    queue[0:0] = children(ctx, job, queue)
            if job.parent is not None and ctx.kind == "index":
                job.parent.report(C.NESTED_INDEX, f"{ctx.sitemap_url or job.display} is itself a sitemap index: "
                                                  "list its child sitemaps directly (Google does not follow nested "
                                                  "indexes)", job.parent_line, None, ctx.sitemap_url)
        if store is not None:
            by_source = {c.source: c for c in run.contexts}
            for link in store.non_reciprocal():
                target_ctx = by_source.get(link.source)
                if target_ctx is not None:
                    target_ctx.report(C.HREFLANG_NOT_RECIPROCAL,
                                      f"{link.page} lists {link.target} as {link.hreflang!r}, but "
                                      f"{link.target} does not link back: add the return link", link.line, None,
                                      link.page)
    finally:
        if store is not None:
            store.close()
    run.tracker.emit()
    found = [(ctx, plain_chunks_of(path) if isinstance(path, bytes) else plain_chunks(path))
             for ctx, path in zip(run.contexts, run.paths, strict=True)]
    return assemble(found, options.profile, options.now, skipped=skipped, max_problems=max_problems)


def validate_bytes(
    data: bytes,
    *,
    source: str = "<bytes>",
    sitemap_url: str | None = None,
    profile: Profile | str = Profile.GOOGLE,
    now: datetime | str | None = None,
    allow_cross_host: bool = False,
    xsd: bool = True,
    max_problems: int = MAX_PROBLEMS_PER_CODE,
) -> ValidationReport:
    """Validate one document held in memory (an HTTP body, a test string). ``sitemap_url`` enables the scope
    rule."""
    return validate_pieces(data, [data], source=source, sitemap_url=sitemap_url, profile=profile, now=now,
                           allow_cross_host=allow_cross_host, xsd=xsd, max_problems=max_problems)


def validate_pieces(
    data: bytes,
    pieces: Iterable[bytes],
    *,
    source: str = "<bytes>",
    sitemap_url: str | None = None,
    profile: Profile | str = Profile.GOOGLE,
    now: datetime | str | None = None,
    allow_cross_host: bool = False,
    xsd: bool = True,
    max_problems: int = MAX_PROBLEMS_PER_CODE,
) -> ValidationReport:
    """:func:`validate_bytes` of ``data`` arriving as ``pieces`` (consecutive slices of it, joined they are
    ``data``): the report is the same however the bytes are cut (the chunking fuzzer and tests compare them)."""
    options = _options(profile, now, allow_cross_host, xsd, max_problems)
    store = HreflangStore() if options.profile is Profile.GOOGLE else None
    try:
        ctx = _new_context(source, sitemap_url, options, store)
        _run_stream(ctx, iter(pieces))
        if store is not None:
            for link in store.non_reciprocal():
                ctx.report(C.HREFLANG_NOT_RECIPROCAL, f"{link.page} lists {link.target} as {link.hreflang!r}, but "
                                                      f"{link.target} does not link back: add the return link",
                           link.line, None, link.page)
    finally:
        if store is not None:
            store.close()
    return assemble([(ctx, plain_chunks_of(data))], options.profile, options.now, max_problems=max_problems)


# --- sources ---------------------------------------------------------------------------------------------

#: Fetch-layer codes that are about the walk itself, not about a document's validity: the validator reports
#: nested indexes as SM212 instead of SM510, and the walk's "more problems" note does not apply.
_WALK_CODES_DROPPED = frozenset({"SM510", "SM514"})


def _validate_urls(urls: list[str], run: _Run, fetch: FetchSettings | None) -> None:
    """Fetch and walk URL sources; validate each fetched document as bytes (with its URL as scope)."""
    from sitemapkit.fetch import DocumentDone, open_sources

    waiting: dict[str, list[Problem]] = {}
    by_url: dict[str, FileContext] = {}
    for event in open_sources(urls, follow=True, settings=fetch, keep_bytes=True):
        if isinstance(event, Problem):
            code = event.code
            if code.startswith("SM5") and code not in _WALK_CODES_DROPPED:
                waiting.setdefault(event.location.source, []).append(event)
        elif isinstance(event, DocumentDone):
            node = event.node
            url = node.final_url if node is not None and node.final_url else event.source
            ctx = _new_context(event.source, url, run.options, run.store)
            for problem in waiting.pop(event.source, []):
                ctx.add(problem)
            fetched_ok = node is None or node.ok
            run.tracker.begin(ctx)
            if event.data is not None and fetched_ok:
                _run_stream(ctx, _slices(event.data), run.tracker)
            elif ctx.kind == "unknown" and node is not None:
                ctx.kind = "unfetched"
            run.tracker.end(ctx)
            run.contexts.append(ctx)
            run.paths.append(event.data if event.data is not None and fetched_ok else b"")
            by_url[event.source] = ctx
            parent = by_url.get(node.parent) if node is not None and node.parent else None
            if parent is not None and ctx.kind == "index":
                line = next((ln for loc, ln in parent.child_locs if loc == event.source), None)
                parent.report(C.NESTED_INDEX, f"{event.source} is itself a sitemap index: list its child sitemaps "
                                              "directly (Google does not follow nested indexes)", line, None,
                              event.source)
    for source, problems in waiting.items():  # problems of documents that never completed (site discovery)
        ctx = _new_context(source, None, run.options, run.store)
        ctx.kind = "unfetched"
        for problem in problems:
            ctx.add(problem)
        run.contexts.append(ctx)
        run.paths.append(b"")


# --- one file ------------------------------------------------------------------------------------------------

def _new_context(source: str, sitemap_url: str | None, options: RunOptions,
                 store: HreflangStore | None) -> FileContext:
    scope = scope_of(sitemap_url) if sitemap_url else None
    return FileContext(source, options, sitemap_url=sitemap_url, scope=scope, hreflang=store)


def _validate_file(job: Job, run: _Run) -> FileContext:
    ctx = _new_context(job.display, job.sitemap_url, run.options, run.store)
    run.tracker.begin(ctx)
    try:
        _run_stream(ctx, read_chunks(job.path), run.tracker)
    except OSError as exc:
        ctx.report(C.UNREADABLE, f"cannot read the file: {exc.strerror or exc}")
    run.tracker.end(ctx)
    return ctx


def _slices(data: bytes) -> Iterator[bytes]:
    """A document held in memory, in chunks as a file is read (so the passes and the progress see it move)."""
    if len(data) <= _CHUNK:
        yield data
        return
    for start in range(0, len(data), _CHUNK):
        yield data[start:start + _CHUNK]


def _run_stream(ctx: FileContext, chunks: Iterable[bytes], tracker: _Tracker | None = None) -> None:
    run_stream(ctx, chunks, tracker.chunk if tracker is not None else None)
