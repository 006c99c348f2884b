"""The validator: ``validate(sources, ...) -> ValidationReport``.

Data flow for one file: bytes (read in 1 MiB chunks) -> gzip inflation under a budget (``_sniff.GzipDecoder``)
-> encoding and kind from the first 64 KiB (``_sniff.detect_encoding`` / ``sniff_kind``, shared with the reader)
-> one streaming pass for the kind (``XmlPass`` for urlset / index: well-formedness, XSD and rule checks together;
``TextPass``; ``FeedPass``) -> problems with file, line, column and the loc they concern. Cross-file checks
(hreflang reciprocity, children of an index) run once every file is done.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from sitemapkit.core._errors import ConfigurationError, InputError
from sitemapkit.core._limits import DEFAULT_MAX_DECOMPRESSED_BYTES, MAX_SITEMAP_BYTES
from sitemapkit.core._problems import Problem, Severity
from sitemapkit.core._urls import is_url_source
from sitemapkit.read._sniff import DocumentKind, GzipDecoder, detect_encoding, is_gzip, sniff, sniff_kind
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import origin_of, scope_of
from sitemapkit.validate._columns import add_columns
from sitemapkit.validate._context import FileContext, Profile, RunOptions
from sitemapkit.validate._hreflang import HreflangStore
from sitemapkit.validate._text import FeedPass, TextPass
from sitemapkit.validate._xml import SITEMAP_NS, XmlPass

if TYPE_CHECKING:
    from sitemapkit.fetch._sources import FetchSettings

__all__ = ["FileReport", "Profile", "ValidationReport", "validate", "validate_bytes"]

_CHUNK = 1 << 20
_SNIFF_BYTES = 65536
_SITEMAP_SUFFIXES = (".xml", ".xml.gz", ".txt", ".txt.gz", ".gz")


@dataclass(frozen=True, slots=True)
class FileReport:
    """What was validated: the file, what it is, how many entries, and its counts of errors and warnings."""

    source: str
    kind: str
    entries: int
    errors: int
    warnings: int
    sitemap_url: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "kind": self.kind, "entries": self.entries, "errors": self.errors,
                "warnings": self.warnings, "sitemap_url": self.sitemap_url}


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The result of a run. ``valid`` is True when no error was found (warnings allowed)."""

    files: tuple[FileReport, ...]
    problems: tuple[Problem, ...]
    profile: Profile
    now: datetime
    dropped: int = 0  # problems counted but not kept (more than 10,000 in one file)

    @property
    def error_count(self) -> int:
        return sum(f.errors for f in self.files)

    @property
    def warning_count(self) -> int:
        return sum(f.warnings for f in self.files)

    @property
    def valid(self) -> bool:
        return self.error_count == 0

    def passes(self, fail_on: Severity = Severity.ERROR) -> bool:
        """True when nothing at or above ``fail_on`` was found."""
        if fail_on is Severity.WARNING:
            return self.error_count == 0 and self.warning_count == 0
        return self.valid

    def codes(self) -> list[str]:
        return sorted({p.code for p in self.problems})

    def to_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "profile": self.profile.value,
            "now": self.now.isoformat(timespec="seconds"),
            "errors": self.error_count,
            "warnings": self.warning_count,
            "files": [f.to_dict() for f in self.files],
            "problems": [p.to_dict() for p in self.problems],
        }


@dataclass(slots=True)
class _Job:
    path: Path
    display: str
    sitemap_url: str | None = None
    parent: FileContext | None = None
    parent_line: int | None = None


@dataclass(slots=True)
class _Run:
    options: RunOptions
    store: HreflangStore | None
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
        raise ConfigurationError(f"--now: out of range (0001-01-03 to 9999-12-29): {now.isoformat()}")
    return now


def _options(profile: Profile | str, now: datetime | str | None, allow_cross_host: bool, xsd: bool) -> RunOptions:
    try:
        prof = Profile(profile) if isinstance(profile, str) else profile
    except ValueError:
        raise ConfigurationError(f"unknown profile {profile!r}; use 'sitemaps' or 'google'") from None
    return RunOptions(prof, _coerce_now(now), allow_cross_host, xsd)


def validate(
    sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    profile: Profile | str = Profile.GOOGLE,
    now: datetime | str | None = None,
    allow_cross_host: bool = False,
    base_url: str | None = None,
    xsd: bool = True,
    fetch: FetchSettings | None = None,
) -> ValidationReport:
    """Validate files, gzip files, directories of sitemaps, indexes with their children next to them, and URLs.

    A URL (sitemap, index or site) is fetched and walked with the fetch layer (``fetch`` settings; indexes are
    followed), and every document fetched is validated with its own URL as its location and scope; fetch problems
    (SM5xx) are reported with the document they concern.

    ``base_url`` is the URL where the source is published (a file's URL, or the URL of a directory when it ends
    in ``/`` or the source is a directory); it enables the scope rule (RULES.md 13). Children of an index get
    their URL from the index. ``now`` (default: the current time) is the reference for future dates and news
    age. Raises :class:`InputError` for a source that does not exist and :class:`ConfigurationError` for bad
    options; everything found *in* the files is a :class:`Problem` in the report."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    options = _options(profile, now, allow_cross_host, xsd)
    if base_url is not None and origin_of(base_url) is None:
        raise ConfigurationError(f"--base-url must be an absolute http(s) URL, got {base_url!r}")
    names = [os.fspath(src) for src in sources]
    urls = [src for src in names if is_url_source(src)]
    jobs = list(_expand([src for src in names if not is_url_source(src)], base_url))
    store = HreflangStore() if options.profile is Profile.GOOGLE else None
    run = _Run(options, store)
    try:
        if urls:
            _validate_urls(urls, run, fetch)
        queue = _order(jobs)
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
                    queue[0:0] = _children(ctx, job, queue)
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
    problems: list[Problem] = []
    files: list[FileReport] = []
    dropped = 0
    for ctx, path in zip(run.contexts, run.paths, strict=True):
        found = ctx.problems
        if any(p.location.line is not None for p in found):
            try:
                found = add_columns(found, _plain_chunks_of(path) if isinstance(path, bytes) else _plain_chunks(path))
            except (OSError, zlib.error):
                pass  # columns are a convenience; the problems stand without them
        problems.extend(sorted(found, key=_order_key))
        files.append(FileReport(ctx.source, ctx.kind, ctx.entries, ctx.error_count, ctx.warning_count,
                                ctx.sitemap_url))
        dropped += ctx.dropped
    return ValidationReport(tuple(files), tuple(problems), options.profile, options.now, dropped)


def validate_bytes(
    data: bytes,
    *,
    source: str = "<bytes>",
    sitemap_url: str | None = None,
    profile: Profile | str = Profile.GOOGLE,
    now: datetime | str | None = None,
    allow_cross_host: bool = False,
    xsd: bool = True,
) -> ValidationReport:
    """Validate one document held in memory (an HTTP body, a test string). ``sitemap_url`` enables the scope
    rule."""
    options = _options(profile, now, allow_cross_host, xsd)
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
    problems = tuple(sorted(add_columns(ctx.problems, _plain_chunks_of(data)), key=_order_key))
    return ValidationReport((FileReport(source, ctx.kind, ctx.entries, ctx.error_count, ctx.warning_count,
                                        sitemap_url),), problems, options.profile, options.now, ctx.dropped)


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
            if event.data is not None and fetched_ok:
                _run_stream(ctx, iter([event.data]))
            elif ctx.kind == "unknown" and node is not None:
                ctx.kind = "unfetched"
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


def _expand(sources: Iterable[str | os.PathLike[str]], base_url: str | None) -> Iterator[_Job]:
    for src in sources:
        text = os.fspath(src)
        path = Path(text)
        if path.is_dir():
            base = base_url if base_url is None or base_url.endswith("/") else base_url + "/"
            found = False
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.name.lower().endswith(_SITEMAP_SUFFIXES):
                    rel = child.relative_to(path).as_posix()
                    found = True
                    yield _Job(child, str(child), urljoin(base, rel) if base else None)
            if not found:
                raise InputError(f"{text}: no sitemap files (*.xml, *.xml.gz, *.txt, *.gz) in this directory")
        elif path.is_file():
            url = None
            if base_url is not None:
                url = base_url + path.name if base_url.endswith("/") else base_url
            yield _Job(path, text, url)
        elif path.exists():
            raise InputError(f"{text}: not a regular file or directory")
        else:
            raise InputError(f"{text}: no such file or directory")


def _head(path: Path) -> bytes:
    with path.open("rb") as f:
        return f.read(8192)


def _order(jobs: list[_Job]) -> list[_Job]:
    """Indexes first, so that their children are validated knowing their URL (and scope)."""
    def is_index(job: _Job) -> bool:
        try:
            return sniff(_head(job.path)).kind.kind is DocumentKind.INDEX
        except OSError:
            return False
    indexes = [j for j in jobs if is_index(j)]
    return indexes + [j for j in jobs if j not in indexes]


def _children(ctx: FileContext, job: _Job, queue: list[_Job]) -> list[_Job]:
    """Child sitemaps of an index found next to it; each queued job gets its URL from the index."""
    out: list[_Job] = []
    directory = job.path.parent
    base_dir = None
    if ctx.sitemap_url is not None:
        path = urlsplit(ctx.sitemap_url).path
        base_dir = (origin_of(ctx.sitemap_url) or "") + path[: path.rfind("/") + 1]
    missing: list[tuple[str, int | None, str]] = []
    names = {p.name for p in directory.iterdir() if p.is_file()}
    queued = {j.path.resolve(): j for j in queue}
    for loc, line in ctx.child_locs:
        bare = loc.split("#", 1)[0].split("?", 1)[0]
        name = bare.rsplit("/", 1)[-1]
        found: Path | None = None
        if base_dir is not None and bare.startswith(base_dir):
            rel = bare[len(base_dir):]
            if rel and "/" in rel and ".." not in rel.split("/") and (directory / rel).is_file():
                found = directory / rel
        if found is None and name in names:
            found = directory / name
        if found is None:
            missing.append((loc, line, str(directory / (name or "?"))))
            continue
        existing = queued.get(found.resolve())
        if existing is not None:
            queue.remove(existing)
            existing.sitemap_url = existing.sitemap_url or loc
            existing.parent, existing.parent_line = ctx, line
            out.append(existing)
        else:
            out.append(_Job(found, str(found), loc, ctx, line))
    # Children are looked for only when the index comes with some of them: an index validated on its own (none
    # of its children beside it) is not flooded with "missing" warnings.
    if out:
        for loc, line, looked in missing:
            ctx.report(C.CHILD_MISSING, f"{loc} is not next to the index (looked for {looked}): publish it or "
                                        "remove the entry", line, None, loc)
    return out


# --- one file ------------------------------------------------------------------------------------------------

def _new_context(source: str, sitemap_url: str | None, options: RunOptions,
                 store: HreflangStore | None) -> FileContext:
    scope = scope_of(sitemap_url) if sitemap_url else None
    return FileContext(source, options, sitemap_url=sitemap_url, scope=scope, hreflang=store)


def _order_key(p: Problem) -> tuple[int, int, str]:
    return (p.location.line or 0, p.location.column or 0, p.code)


def _plain_chunks_of(data: bytes) -> Iterator[bytes]:
    """The document's bytes after gzip (for the column pass)."""
    if not is_gzip(data):
        yield data
        return
    decoder = GzipDecoder(max_bytes=DEFAULT_MAX_DECOMPRESSED_BYTES)
    yield from decoder.iter_decompress(data)
    yield from decoder.flush()


def _plain_chunks(path: Path) -> Iterator[bytes]:
    decoder: GzipDecoder | None = None
    first = True
    for chunk in _read_chunks(path):
        if first:
            first = False
            if is_gzip(chunk):
                decoder = GzipDecoder(max_bytes=DEFAULT_MAX_DECOMPRESSED_BYTES)
        if decoder is None:
            yield chunk
        else:
            yield from decoder.iter_decompress(chunk)
            if decoder.exceeded:
                return
    if decoder is not None:
        yield from decoder.flush()


def _read_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            yield chunk


def _validate_file(job: _Job, run: _Run) -> FileContext:
    ctx = _new_context(job.display, job.sitemap_url, run.options, run.store)
    try:
        _run_stream(ctx, _read_chunks(job.path))
    except OSError as exc:
        ctx.report(C.UNREADABLE, f"cannot read the file: {exc.strerror or exc}")
    return ctx


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
            self._pass = XmlPass(ctx, index=kind is DocumentKind.INDEX, namespace_ok=ns_ok)
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
                self._pass = XmlPass(ctx, index=False, namespace_ok=False)
                self._pass.feed(head)
                return
            self._skip = True
            return
        self._pass.feed(head)


def _run_stream(ctx: FileContext, chunks: Iterable[bytes]) -> None:
    sink = _Sink(ctx)
    decoder: GzipDecoder | None = None
    first = True
    for chunk in chunks:
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
