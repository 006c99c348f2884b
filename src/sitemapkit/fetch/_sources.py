"""SOURCE arguments of the CLI (file paths or URLs) as one stream of parsed events.

:func:`open_sources` is what ``urls``, ``validate`` and ``discover`` share:

- a file path (or ``-`` for standard input) is read with the reader (opened by ``sitemapkit.read.open_bytes``,
  the one byte source); a folder is the sitemap files in it (``sitemapkit.read.sitemap_files``); with ``follow``
  a local index's sitemaps are read from its folder by file name, right after it (:func:`local_set`,
  ``_local_events``);
- a sitemap URL is fetched and read; with ``follow`` (the default) the sitemaps an index lists are fetched too,
  and so on down the tree, within the limits of :class:`FetchSettings`;
- a site URL (``https://example.com`` or ``https://example.com/``) is discovered (robots.txt, well-known paths,
  ``<link rel="sitemap">``) and its whole tree walked.

The stream holds :class:`~sitemapkit.UrlEntry`, :class:`~sitemapkit.SitemapRef` and :class:`~sitemapkit.Problem`
events as the reader produces them, a :class:`~sitemapkit.fetch.Discovery` before a site's sitemaps, and one
:class:`DocumentDone` after each document (with its bytes when ``keep_bytes`` is set, for validators). It is a
plain iterator: the asynchronous walk runs on a private event loop, stepped as the caller pulls, so memory stays
flat and a caller that stops early stops the walk.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar
from urllib.parse import unquote, urlsplit

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, Location, Problem, SitemapRef, UrlEntry, is_url_source
from sitemapkit.fetch._addresses import AddressPolicy
from sitemapkit.fetch._agent import DEFAULT_USER_AGENT
from sitemapkit.fetch._binary import MESSAGE, looks_binary
from sitemapkit.fetch._codes import SM516, SM517
from sitemapkit.fetch._items import EntryBatch, SitemapNode
from sitemapkit.read import (
    DocumentKind,
    Event,
    Located,
    LocRun,
    SitemapParser,
    no_sitemap_files,
    open_bytes,
    sitemap_files,
)

if TYPE_CHECKING:
    # The HTTP side (aiohttp, asyncio, the walker) is imported when a URL is read, not when only files are: a
    # command reading local files starts ~50 ms sooner.
    import asyncio

    from sitemapkit.fetch._discover import Discovery
    from sitemapkit.fetch._http import HttpClient
    from sitemapkit.fetch._items import WalkItem
    from sitemapkit.fetch._transports import Transport
    from sitemapkit.fetch._walk import WalkOptions

__all__ = ["DocumentDone", "FetchSettings", "SourceEvent", "is_url_source", "iterate_async", "local_child",
           "local_set", "open_sources"]

T = TypeVar("T")

_READ_CHUNK = 256 * 1024
#: Bytes looked at before deciding that a file is binary (fewer when the file is shorter).
_SNIFF_BYTES = 64


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """How URLs are fetched and walked (one object the CLI commands build from their common options).

    ``timeout`` is the total deadline for fetching one URL: connecting, reading, redirects, retries and the waits
    between them (a retry that could not finish in time is not tried); within it, an attempt also fails after
    10 s without a connection or ``stall_timeout`` seconds without bytes (a stall; or ``timeout`` when smaller).
    ``backoff`` is the first retry
    wait; ``allow_private_addresses`` lets child sitemaps and redirects reach loopback, private, link-local and
    other special addresses (by default only the class of a seed's own address is allowed, see
    :class:`~sitemapkit.fetch._addresses.AddressPolicy`); ``transport`` lets tests inject a
    :class:`~sitemapkit.fetch.MockTransport`."""

    user_agent: str = DEFAULT_USER_AGENT
    timeout: float = 300.0
    retries: int = 3
    backoff: float = 0.5
    retry_after_max: float = 60.0
    stall_timeout: float = 30.0  # fetch._transports.STALL_TIMEOUT (not imported here: the HTTP side loads late)
    concurrency: int = 8
    per_host_limit: int = 4
    max_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES
    max_depth: int = 5
    max_sitemaps: int = 10_000
    max_urls: int | None = None
    cache_dir: str | None = None
    probe: str = "auto"
    transport: Transport | None = None
    allow_private_addresses: bool = False

    def address_policy(self, seeds: Iterable[str] = ()) -> AddressPolicy:
        """The address policy for a walk starting at ``seeds`` (URLs)."""
        return AddressPolicy.for_seeds(seeds, allow_private=self.allow_private_addresses)

    def client(self, seeds: Iterable[str] = ()) -> HttpClient:
        """A client for a walk starting at ``seeds``: their own address class is allowed (see
        :meth:`address_policy`)."""
        from sitemapkit.fetch._http import HttpClient
        from sitemapkit.fetch._retry import RetryPolicy
        from sitemapkit.fetch._transports import Timeouts

        return HttpClient(
            transport=self.transport,
            user_agent=self.user_agent,
            timeouts=Timeouts(connect=min(self.timeout, 10.0), read=min(self.timeout, self.stall_timeout), total=None),
            deadline=self.timeout,
            address_policy=self.address_policy(seeds),
            retry=RetryPolicy(max_retries=self.retries, backoff_base=self.backoff,
                              backoff_max=self.retry_after_max, retry_after_max=self.retry_after_max),
            max_bytes=self.max_bytes,
            per_host_limit=self.per_host_limit,
            max_connections=max(self.concurrency, self.per_host_limit) * 2,
            cache=self.cache_dir,
        )

    def walk_options(self, *, follow: bool = True, yield_entries: bool = True,
                     keep_bodies: bool = False, stream_problems: bool = False, loc_runs: bool = False) -> WalkOptions:
        from sitemapkit.fetch._walk import WalkOptions

        return WalkOptions(follow=follow, max_depth=self.max_depth, max_sitemaps=self.max_sitemaps,
                           max_urls=self.max_urls, concurrency=self.concurrency, max_bytes=self.max_bytes,
                           yield_entries=yield_entries, keep_bodies=keep_bodies, stream_problems=stream_problems,
                           loc_runs=loc_runs)


@dataclass(frozen=True, slots=True)
class DocumentDone:
    """The end of one document: its ``source`` (file path, or the URL asked for), ``kind``, how many URL
    entries it held, its bytes as read (``data``, only with ``keep_bytes``; gzip files stay compressed) and, for
    URLs, the walk's :class:`~sitemapkit.fetch.SitemapNode` (status, redirects, timing, fetch problems)."""

    source: str
    kind: DocumentKind | None
    entries: int
    data: bytes | None = None
    node: SitemapNode | None = None


SourceEvent: TypeAlias = "UrlEntry | SitemapRef | Problem | Located | DocumentDone | Discovery | LocRun"


def iterate_async(factory: Callable[[HttpClient], AsyncIterator[T]], settings: FetchSettings,
                  seeds: Iterable[str] = ()) -> Iterator[T]:
    """Drive an async iterator (built by ``factory`` from a fresh client) from synchronous code, on a private
    event loop stepped as the caller pulls items. Closing the iterator early cancels the walk cleanly.
    ``seeds`` are the URLs the walk starts from (for the client's address policy).

    Each step runs as a task on the loop. When a step is interrupted (Ctrl-C raises KeyboardInterrupt out of
    the loop while the step waits on a slow server), that task is cancelled and awaited on the same loop before
    the iterator is closed: closing it while its step is still suspended would fail ("already running") and
    leave the walk's connections and tasks to be torn down by finalizers."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        client = settings.client(seeds)
        agen = factory(client)
        step: asyncio.Future[T] | None = None
        try:
            while True:
                step = asyncio.ensure_future(agen.__anext__(), loop=loop)
                try:
                    item = loop.run_until_complete(step)
                except StopAsyncIteration:
                    break
                step = None
                yield item
        finally:
            _settle(loop, step)
            aclose = getattr(agen, "aclose", None)
            if aclose is not None:
                loop.run_until_complete(aclose())
            loop.run_until_complete(client.aclose())
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


def _settle(loop: asyncio.AbstractEventLoop, step: asyncio.Future[Any] | None) -> None:
    """Finish an interrupted step: cancel it and run the loop until the cancellation has unwound the async
    iterator (its ``finally`` blocks run on the loop, in this thread). A step that already ended is only read,
    so that its exception (one that interrupted it) is not reported again by the loop as never retrieved."""
    import asyncio

    if step is None:
        return
    if not step.done():
        step.cancel()
        try:
            loop.run_until_complete(asyncio.wait([step]))
        except BaseException:
            step.cancel()
            raise
    if not step.cancelled():
        step.exception()


def _close_when_stopped(parser: SitemapParser, chunk: bytes) -> Iterator[list[Event]]:
    """Reading has stopped (a fatal error, a budget): the rest of the stream would be ignored, and it may never
    end (an endless producer on standard input): close now, and the caller stops reading."""
    if chunk and parser.stopped:
        yield parser.close()


def _first_chunk(read: Callable[[int], bytes]) -> bytes:
    """The first bytes of a stream, enough to tell binary data from text (all of it when it is shorter)."""
    chunk = read(_READ_CHUNK)
    while chunk and len(chunk) < _SNIFF_BYTES:
        more = read(_READ_CHUNK)
        if not more:
            break
        chunk += more
    return chunk


def _runs(source: str, events: list[Event]) -> Iterator[SourceEvent | EntryBatch]:
    """``events`` with each run of consecutive URL entries as one :class:`EntryBatch` (document order kept):
    a caller that prints entries handles a run at a time instead of paying a generator step per URL."""
    if all(ev.__class__ is UrlEntry for ev in events):  # the usual step: entries only, one batch
        if events:
            yield EntryBatch(source, tuple(events))  # type: ignore[arg-type]
        return
    run: list[UrlEntry] = []
    for ev in events:
        if isinstance(ev, UrlEntry):
            run.append(ev)
            continue
        if run:
            yield EntryBatch(source, tuple(run))
            run.clear()
        yield ev
    if run:
        yield EntryBatch(source, tuple(run))


def _file_events(source: str, *, keep_bytes: bool, positions: bool, strict: bool,
                 max_bytes: int, runs: bool = False, loc_runs: bool = False) -> Iterator[SourceEvent | EntryBatch]:
    parser = SitemapParser(source, strict=strict, max_decompressed_bytes=max_bytes, positions=positions,
                           loc_runs=loc_runs and runs)
    kept: list[bytes] | None = [] if keep_bytes else None
    entries = 0
    stream = open_bytes(source, max_bytes=max_bytes, name=source)  # standard input is read as it comes (read1)
    read = stream.read
    try:
        chunk: bytes | None = _first_chunk(read)
        if chunk and looks_binary(chunk, complete=len(chunk) < _READ_CHUNK and not stream.live):
            # One line for the whole file, instead of a problem per line of garbage; the rest is not read.
            yield SM516.problem(Location(source), MESSAGE)
            yield DocumentDone(source, DocumentKind.UNKNOWN, 0, chunk if keep_bytes else None, None)
            return
        while True:
            if chunk is None:
                chunk = read(_READ_CHUNK)
            # In bounded steps: a highly compressed chunk's events are taken as they come, never piled up.
            batches = parser.feed_steps(chunk) if chunk else parser.close_steps()
            if kept is not None and chunk:
                kept.append(chunk)
            for events in chain(batches, _close_when_stopped(parser, chunk)):
                if runs and not positions:
                    for out in _runs(source, events):
                        if isinstance(out, EntryBatch):
                            entries += len(out.entries)
                        elif isinstance(out, LocRun):
                            entries += len(out.locs)
                        yield out
                    continue
                for ev in events:
                    item = ev.item if isinstance(ev, Located) else ev
                    if isinstance(item, UrlEntry):
                        entries += 1
                    yield ev
            if not chunk or parser.stopped:
                break
            chunk = None
    finally:
        stream.close()
    yield DocumentDone(source, parser.kind, entries, b"".join(kept) if kept is not None else None, None)


def local_set(source: str) -> list[str]:
    """The files a local SOURCE stands for: a folder is the sitemap files in it (``sitemapkit.read.sitemap_files``,
    the rule ``validate`` and ``diff`` use too); a file or ``-`` is itself. Raises ``FileNotFoundError`` for a
    missing path or a folder without sitemap files."""
    if source == "-":
        return [source]
    if os.path.isdir(source):
        found, passed = sitemap_files(source)
        if not found:
            raise FileNotFoundError(2, no_sitemap_files(source, passed).removeprefix(f"{source}: "), source)
        return [str(p) for p in found]
    if not os.path.exists(source):
        raise FileNotFoundError(2, "No such file or directory", source)
    return [source]


def _local_events(source: str, *, follow: bool, keep_bytes: bool, positions: bool, strict: bool,
                  max_bytes: int, runs: bool, loc_runs: bool = False) -> Iterator[SourceEvent | EntryBatch]:
    """The events of a local SOURCE: each file of :func:`local_set` and, with ``follow``, the sitemaps a local
    index lists that are in its folder (by file name, :func:`local_child`), read right after it. A file is read
    once (by real path: a folder's children met again through its index, or an index loop, are not re-read).
    When an index's folder holds some of its sitemaps, each one it lacks is an SM517 warning naming it; an index
    alone (none of them beside it) is listed as it is. A followed child's ref comes in an
    :class:`EntryBatch` (``refs``) with ``runs``, as a walked URL index's refs do; the others as single events."""
    pending = local_set(source)
    seen = {os.path.realpath(p) for p in pending if p != "-"}
    while pending:
        current = pending.pop(0)
        folder = None if current == "-" or not follow else Path(current).parent
        children: list[str] = []
        found = 0
        missing: list[tuple[SitemapRef, int | None]] = []
        for ev in _file_events(current, keep_bytes=keep_bytes, positions=positions, strict=strict,
                               max_bytes=max_bytes, runs=runs, loc_runs=loc_runs):
            ref = ev.item if isinstance(ev, Located) else ev
            if folder is None or not isinstance(ref, SitemapRef):
                yield ev
                continue
            child = local_child(ref.loc, folder)
            if child is None:
                missing.append((ref, ev.line if isinstance(ev, Located) else None))
                yield ev
                continue
            found += 1
            real = os.path.realpath(child)
            if real not in seen:
                seen.add(real)
                children.append(str(child))
            yield EntryBatch(current, (), (), (ref,)) if runs and not positions else ev
        if found:
            for ref, line in missing:
                name = unquote(urlsplit(ref.loc).path).rsplit("/", 1)[-1] or "(no file name)"
                yield SM517.problem(Location(current, line, loc=ref.loc),
                                    f"{ref.loc} not read: no file {name!r} in {folder}, the index's folder")
        pending[0:0] = children


def _node_events(node: SitemapNode) -> Iterator[SourceEvent]:
    """The end of a fetched document. Its problems and child sitemaps were streamed already (in
    :class:`EntryBatch`, ``WalkOptions.stream_problems``): the node only holds a capped copy of them."""
    yield DocumentDone(node.url, node.kind, node.entries, node.body, node)


def open_sources(
    sources: Iterable[str],
    *,
    follow: bool | None = None,
    settings: FetchSettings | None = None,
    keep_bytes: bool = False,
    positions: bool = False,
    strict: bool = False,
    on_item: Callable[[Discovery | SitemapNode], None] | None = None,
    batches: bool = False,
    file_batches: bool = False,
    loc_runs: bool = False,
) -> Iterator[SourceEvent | EntryBatch]:
    """Read every SOURCE in order and stream its events (see the module docstring).

    ``follow`` (default True) walks indexes found at URLs down to their sitemaps, and reads the sitemaps of a
    local index that are in its folder; False reads only the documents named (their children still appear as
    :class:`SitemapRef` events). ``positions`` and ``strict`` apply to files (URL documents are read leniently,
    positions off). ``on_item`` is called with each
    :class:`Discovery` and :class:`SitemapNode` as soon as it is known (for progress on stderr). With
    ``batches=True`` the entries of fetched sitemaps arrive as :class:`EntryBatch` (which names the sitemap they
    came from, and carries the problems found meanwhile) instead of one :class:`UrlEntry` at a time;
    ``file_batches=True`` does the same for files (without ``positions``): each run of consecutive entries of a
    file is one :class:`EntryBatch` named by the source as given (``-`` for standard input), with no problems
    (those stay single events, in document order). ``loc_runs=True`` lets runs of plain entries arrive by their locs
    only (for a caller that prints locs): from files (with ``file_batches``) as :class:`~sitemapkit.read.LocRun`
    events, from URLs (with ``batches``) in :attr:`EntryBatch.locs`.
    Every problem of a fetched document is streamed, as for a file: the same document gives the same problems
    from disk and over HTTP.
    Files that cannot be opened raise :class:`OSError` (the CLI boundary turns it into a message)."""
    cfg = settings or FetchSettings()
    do_follow = True if follow is None else follow
    for source in sources:
        if not is_url_source(source):
            yield from _local_events(source, follow=do_follow, keep_bytes=keep_bytes, positions=positions,
                                     strict=strict, max_bytes=cfg.max_bytes, runs=file_batches,
                                     loc_runs=loc_runs)
            continue
        opts = cfg.walk_options(follow=do_follow, keep_bodies=keep_bytes, stream_problems=True,
                                loc_runs=loc_runs and batches)
        from sitemapkit.fetch._discover import walk_site

        def factory(client: HttpClient, src: str = source, o: WalkOptions = opts) -> AsyncIterator[
                Discovery | WalkItem]:
            return walk_site(src, client=client, options=o, probe=cfg.probe)

        for item in iterate_async(factory, cfg, seeds=[source]):
            if isinstance(item, EntryBatch):
                if batches:
                    yield item
                else:
                    yield from item.entries  # (no locs: loc_runs asks for batches)
                    yield from item.refs
                    yield from item.problems
            elif isinstance(item, SitemapNode):
                if on_item is not None:
                    on_item(item)
                yield from _node_events(item)
            else:
                if on_item is not None:
                    on_item(item)
                yield item
                yield from item.problems


def local_child(loc: str, folder: str | os.PathLike[str]) -> Path | None:
    """The file in ``folder`` (a local index's folder) that a child ``<loc>`` names: the same file name
    (percent-decoded, query and fragment ignored); None when the name is empty, is ``.``/``..``, holds a backslash,
    or no such file is there. What ``diff``/``submit`` and ``generate`` read for a local index's children."""
    name = unquote(urlsplit(loc).path).rsplit("/", 1)[-1]
    if name in ("", ".", "..") or "\\" in name:
        return None
    child = Path(folder) / name
    return child if child.is_file() else None
