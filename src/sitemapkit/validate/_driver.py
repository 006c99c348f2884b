"""The validator: ``validate_sitemaps(sources, ...) -> ValidationReport``.

Data flow for one file: bytes (read in 1 MiB chunks) -> gzip inflation under a budget (``_sniff.GzipDecoder``)
-> encoding and kind from the first 64 KiB (``_sniff.detect_encoding`` / ``sniff_kind``, shared with the reader)
-> one streaming pass for the kind (``XmlPass`` for urlset / index: well-formedness, XSD and rule checks together;
``TextPass``; ``FeedPass``) -> problems with file, line, column and the loc they concern. Cross-file checks
(hreflang reciprocity, children of an index) run once every file is done.

Around it: ``_files`` (directories expanded, files that are not sitemaps skipped, indexes first, an index's
children found next to it, chunked reading), ``_result`` (the report assembled from the per-file contexts); the
XML pass is given its fast lane here (``_lane_factory``), so that ``_xml`` and ``_lane`` never import each other.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapkit.core._errors import ConfigurationError
from sitemapkit.core._limits import DEFAULT_MAX_DECOMPRESSED_BYTES, MAX_SITEMAP_BYTES
from sitemapkit.core._problems import Problem
from sitemapkit.core._urls import is_url_source
from sitemapkit.read import _lane as _fast
from sitemapkit.read._sniff import DocumentKind, GzipDecoder, detect_encoding, is_gzip, sniff_kind
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import moment, origin_of, scope_of
from sitemapkit.validate._context import MAX_PROBLEMS_PER_CODE, FileContext, Profile, RunOptions
from sitemapkit.validate._files import Job, children, expand, order, plain_chunks, plain_chunks_of, read_chunks
from sitemapkit.validate._hreflang import HreflangStore
from sitemapkit.validate._lane import ValidatorLane
from sitemapkit.validate._result import FileReport, SkippedFile, ValidationReport, assemble
from sitemapkit.validate._strategy import LaneFactory
from sitemapkit.validate._text import FeedPass, TextPass
from sitemapkit.validate._xml import SITEMAP_NS, XmlPass

if TYPE_CHECKING:
    from sitemapkit.fetch._sources import FetchSettings

__all__ = ["FileReport", "Profile", "ValidateProgress", "ValidationReport", "validate_bytes", "validate_sitemaps"]

_SNIFF_BYTES = 65536
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
        from sitemapkit.core._lastmod import parse_lastmod_lenient

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
    options = _options(profile, now, allow_cross_host, xsd, max_problems)
    store = HreflangStore() if options.profile is Profile.GOOGLE else None
    try:
        ctx = _new_context(source, sitemap_url, options, store)
        _run_stream(ctx, iter([data]))
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
    from sitemapkit.fetch._sources import DocumentDone, open_sources

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


def _lane_factory() -> LaneFactory | None:
    """The fast lane the XML pass is given (a urlset's canonical blocks checked from the bytes), unless turned
    off (``sitemapkit.read._lane.ENABLED``, for the tests that compare both paths)."""
    return ValidatorLane if _fast.ENABLED else None


class _Sink:
    """Receives the decompressed bytes: buffers the first 64 KiB to sniff, then streams into one pass."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.size = 0
        self._head: list[bytes] = []
        self._head_size = 0
        self._pass: XmlPass | TextPass | FeedPass | None = None
        self._skip = False
        self._too_big = False

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        if self.size > MAX_SITEMAP_BYTES and not self._too_big:
            self._too_big = True
            self.ctx.report(C.TOO_BIG, f"more than {MAX_SITEMAP_BYTES:,} bytes uncompressed: split the file")
        if self._skip:
            return
        if self._pass is None:
            self._head.append(data)
            self._head_size += len(data)
            if self._head_size < _SNIFF_BYTES:
                return
            self._start(final=False)
            return
        self._pass.feed(data)

    def close(self) -> None:
        if self._pass is None and not self._skip:
            self._start(final=True)
        if self._pass is not None:
            self._pass.close()

    def _start(self, *, final: bool) -> None:
        ctx = self.ctx
        head = b"".join(self._head)
        self._head = []
        if not head.strip(b" \t\r\n\x00"):
            ctx.kind = "empty"
            ctx.report(C.EMPTY_FILE, "empty file: a sitemap needs a root element and at least one entry"
                       if not head else "the file holds only whitespace")
            self._skip = True
            return
        enc = detect_encoding(head[:1024])
        text = head[enc.bom_length:].decode(enc.encoding if enc.known else "utf-8", errors="replace")
        info = sniff_kind(text, final=True)
        kind = info.kind
        ctx.kind = kind.value
        if not enc.is_utf8 or not enc.known:
            found = enc.declared or enc.encoding
            ctx.report(C.ENCODING, f"the file is {found} ({enc.source}); sitemaps must be UTF-8: re-encode it", 1)
        if info.doctype is not None and kind is not DocumentKind.HTML:
            ctx.report(C.DOCTYPE, "a DOCTYPE is declared: remove it (DTDs and entities are never read)", 1)
            self._skip = True
            return
        if kind is DocumentKind.HTML:
            ctx.report(C.UNREADABLE, "this is an HTML page, not a sitemap: serve the sitemap itself", 1)
            self._skip = True
            return
        if kind in (DocumentKind.URLSET, DocumentKind.INDEX) and info.root not in ("urlset", "sitemapindex"):
            ctx.report(C.ROOT_ELEMENT, f"root element <{info.root}>: XML names are case-sensitive; write "
                                       f"<{(info.root or '').lower()}> and lowercase element names", 1)
            self._skip = True
            return
        if kind in (DocumentKind.URLSET, DocumentKind.INDEX):
            ns_ok = info.namespace == SITEMAP_NS
            if not ns_ok:
                got = f"namespace {info.namespace!r}" if info.namespace else "no namespace"
                ctx.report(C.NAMESPACE, f"<{info.root}> has {got}: use xmlns=\"{SITEMAP_NS}\" (http, no trailing "
                                        "slash)", 1)
            self._pass = XmlPass(ctx, index=kind is DocumentKind.INDEX, namespace_ok=ns_ok, lane=_lane_factory())
        elif kind is DocumentKind.TEXT:
            self._pass = TextPass(ctx, enc.encoding if enc.known else "utf-8")
            head = head[enc.bom_length:]
        elif kind in (DocumentKind.RSS, DocumentKind.ATOM):
            self._pass = FeedPass(ctx)
        else:
            if info.root is not None:
                ctx.report(C.ROOT_ELEMENT, f"root element <{info.root}> is not a sitemap: use <urlset> or "
                                           "<sitemapindex>", 1)
            else:
                # Not even a root element: let the XML parser say where it breaks.
                self._pass = XmlPass(ctx, index=False, namespace_ok=False, lane=_lane_factory())
                self._pass.feed(head)
                return
            self._skip = True
            return
        self._pass.feed(head)


def _run_stream(ctx: FileContext, chunks: Iterable[bytes], tracker: _Tracker | None = None) -> None:
    sink = _Sink(ctx)
    decoder: GzipDecoder | None = None
    first = True
    for chunk in chunks:
        if tracker is not None:
            tracker.chunk(len(chunk))
        if first:
            first = False
            if is_gzip(chunk):
                decoder = GzipDecoder(max_bytes=DEFAULT_MAX_DECOMPRESSED_BYTES, source=ctx.source)
        if decoder is None:
            sink.write(chunk)
            continue
        try:
            for piece in decoder.iter_decompress(chunk):  # lazily: one slice at a time
                sink.write(piece)
        except zlib.error as exc:
            ctx.report(C.UNREADABLE, f"corrupt gzip data ({exc}): recompress the file")
            break
        if decoder.exceeded:
            ctx.report(C.TOO_BIG, f"decompressed data passed {DEFAULT_MAX_DECOMPRESSED_BYTES:,} bytes; reading "
                                  "stopped: split the file")
            break
    if decoder is not None:
        for piece in decoder.flush():
            sink.write(piece)
        if not decoder.finished and not decoder.exceeded:
            ctx.report(C.UNREADABLE, "the gzip stream is truncated: recompress the file")
    sink.close()
