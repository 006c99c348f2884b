"""Safe walking of sitemap trees over HTTP.

:func:`walk` takes seeds (sitemap URLs, usually from :func:`~sitemapkit.discover`) and streams results while it
works: :class:`EntryBatch` items as URL entries are parsed, and one :class:`SitemapNode` per sitemap when it is
done (a parent's node always comes before its children's). Safety:

- a global visited set of normalised URLs (:func:`url_key`), redirect hops and targets included, so cycles, a
  child redirecting to its parent and duplicate listings are fetched once;
- a depth limit for nested indexes, limits on the number of sitemaps and of URLs;
- a bounded number of concurrent fetches, and a bounded output queue, so memory stays flat however large the
  tree (the consumer's pace drives the walk);
- document order: sitemaps are fetched concurrently but handed over one at a time, in the order reading the
  files one after the other gives (see :mod:`sitemapkit.fetch._order`): the sitemap whose turn it is streams its
  body into the reader as it arrives (Content-Encoding undone piece by piece: a bomb is never held); one ahead
  of its turn reads its body into memory only while the bodies waiting fit in ``WalkOptions.max_bytes_ahead``
  (else it is fetched again, streamed, at its turn), so large sitemaps do not pile up; each body is freed piece
  by piece as the reader takes it;
- an index's child sitemaps are handed over as they are read (:attr:`EntryBatch.refs`), never held as a list
  beyond what may be fetched;
- one failing child never stops the walk: every failure becomes a :class:`~sitemapkit.Problem` (SM5xx) on that
  sitemap's node.

Bodies are handed to the reader, which sniffs the bytes: neither Content-Type nor the URL's extension is trusted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from sitemapkit.core import (
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    FetchError,
    InputError,
    Location,
    Problem,
    SitemapkitError,
    SitemapRef,
    TooManyRedirectsError,
    UrlEntry,
)
from sitemapkit.fetch._binary import HEAD_BYTES, MESSAGE, looks_binary
from sitemapkit.fetch._bodies import Body, open_body, sliced, steps
from sitemapkit.fetch._codes import (
    SM501,
    SM502,
    SM503,
    SM504,
    SM505,
    SM506,
    SM507,
    SM508,
    SM509,
    SM510,
    SM511,
    SM512,
    SM513,
    SM515,
    SM516,
)
from sitemapkit.fetch._decode import ResponseTooLargeError
from sitemapkit.fetch._http import HttpClient
from sitemapkit.fetch._items import EntryBatch, FoundVia, SitemapNode, SitemapSeed, WalkItem
from sitemapkit.fetch._order import HeldBody, HeldBytes, Key, Sequencer
from sitemapkit.fetch._robots import url_key
from sitemapkit.fetch._stream import HttpStream
from sitemapkit.fetch._transports import AddressRefusedError
from sitemapkit.read import DocumentKind, LocRun, SitemapParser

__all__ = [
    "EntryBatch",
    "FoundVia",
    "SitemapNode",
    "SitemapSeed",
    "WalkItem",
    "WalkOptions",
    "walk",
]


def _locs_of(runs: list[LocRun], batch: list[UrlEntry], events: list[Any]) -> Sequence[str]:
    """The locs of the runs read in bulk in one step. When the step also has single entries, the runs' entries
    are built instead (into ``batch``, in document order): a batch holds entries or locs, never both."""
    if not runs:
        return ()
    if not batch:
        return runs[0].locs if len(runs) == 1 else [loc for run in runs for loc in run.locs]
    batch.clear()
    for ev in events:
        if isinstance(ev, LocRun):
            batch.extend(ev.entries())
        elif isinstance(ev, UrlEntry):
            batch.append(ev)
    return ()


@dataclass(frozen=True, slots=True)
class WalkOptions:
    """Limits and knobs of :func:`walk`. ``max_depth`` counts index levels below a seed (a seed is depth 0);
    ``max_bytes`` is the per-document budget (download, Content-Encoding and gzip file all count);
    ``yield_entries=False`` only counts entries (``discover``); ``loc_runs`` hands plain entries over by their locs
    (:attr:`EntryBatch.locs`, for a caller that prints locs); ``keep_bodies`` puts each document's bytes on its
    node (for validation); ``stream_problems`` also sends every problem as it is found, in
    :attr:`EntryBatch.problems` before the sitemap's node (none is dropped, whatever ``max_problems_per_sitemap``:
    what reading the same document from a file gives), while the node keeps its capped copy. ``ordered`` (the
    default) hands sitemaps over in document order (see the module docstring); False hands each one over as soon
    as it is fetched. ``max_bytes_ahead`` bounds the bodies fetched ahead of their turn (see
    :class:`~sitemapkit.fetch._order.HeldBytes`; None: only ``concurrency`` bounds them); it changes nothing
    but memory and how far fetching runs ahead of reading."""

    follow: bool = True
    max_depth: int = 5
    max_sitemaps: int = 10_000
    max_urls: int | None = None
    concurrency: int = 8
    max_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES
    max_problems_per_sitemap: int = 200
    yield_entries: bool = True
    loc_runs: bool = False
    keep_bodies: bool = False
    queue_size: int = 1
    stream_problems: bool = False
    ordered: bool = True
    max_bytes_ahead: int | None = 5 * 1024 * 1024




@dataclass(slots=True)
class _Job:
    key: Key
    seed: SitemapSeed
    depth: int
    parent: str | None
    parent_kind: DocumentKind | None
    parent_host: str | None


@dataclass(slots=True)
class _Collector:
    limit: int
    stream: bool = False
    problems: list[Problem] = field(default_factory=list)
    count: int = 0
    pending: list[Problem] = field(default_factory=list)  # streamed ones not sent yet (at most one slice's worth)

    def add(self, problem: Problem) -> None:
        self.count += 1
        if len(self.problems) < self.limit:
            self.problems.append(problem)
        if self.stream:
            self.pending.append(problem)

    def take(self) -> tuple[Problem, ...]:
        out = tuple(self.pending)
        self.pending.clear()
        return out


#: The child sitemaps a node keeps (``SitemapNode.children``; ``child_count`` counts them all), and the most
#: children of one index looked at for scheduling when more sitemaps are allowed: the protocol's limit for an index.
_NODE_CHILDREN = 50_000


_END = object()
# Bytes handed to the parser at a time. Compressed bodies get smaller slices: 16 KiB of gzip can inflate to
# ~5,000 entries, and every entry of a slice is alive at once (per concurrent worker) until the consumer takes it.
_SLICE = 128 * 1024
_GZIP_SLICE = 16 * 1024


class _Walker:
    def __init__(self, client: HttpClient, options: WalkOptions) -> None:
        self.client = client
        self.opts = options
        self.visited: set[str] = set()
        self.child_cap = max(_NODE_CHILDREN, options.max_sitemaps)
        self.scheduled = 0
        self.urls = 0
        self.stopped = False
        self.jobs: asyncio.PriorityQueue[tuple[Key, _Job]] = asyncio.PriorityQueue()
        self.order = Sequencer(ordered=options.ordered)
        self.held = HeldBytes(self.order, options.max_bytes_ahead)
        self.out: asyncio.Queue[object] = asyncio.Queue(maxsize=max(1, options.queue_size))

    # -- scheduling -------------------------------------------------------------------------------------

    def schedule_seed(self, seed: SitemapSeed) -> Problem | None:
        key = url_key(seed.url)
        if key in self.visited:
            return None  # the same seed twice (robots.txt listing it twice is reported by the robots pass)
        self.visited.add(key)
        self.scheduled += 1
        job = _Job((self.scheduled,), seed, 0, None, None, None)
        self.order.add(job.key)
        self.jobs.put_nowait((job.key, job))
        return None

    def schedule_children(self, parent: Key, node_url: str, final_url: str, kind: DocumentKind, depth: int,
                          children: list[str], problems: _Collector, listed: int = 0) -> list[_Job]:
        """Jobs for ``children`` (the first of the ``listed`` ones an index lists: those beyond were not kept,
        and count as skipped by the sitemap limit)."""
        jobs: list[_Job] = []
        skipped_limit = max(0, listed - len(children))
        host = (urlsplit(final_url).hostname or "").lower()
        for i, child in enumerate(children):
            key = url_key(child)
            if key in self.visited:
                problems.add(SM506.problem(Location(final_url, loc=child),
                                           f"lists {child}, which was already visited (cycle or duplicate)"))
                continue
            if depth + 1 > self.opts.max_depth:
                problems.add(SM507.problem(Location(final_url, loc=child),
                                           f"{child} not fetched: depth {depth + 1} exceeds the limit of "
                                           f"{self.opts.max_depth}"))
                continue
            if self.scheduled >= self.opts.max_sitemaps:
                skipped_limit += 1
                continue
            self.visited.add(key)
            self.scheduled += 1
            jobs.append(_Job((*parent, i), SitemapSeed(child, FoundVia.INDEX), depth + 1, node_url, kind, host))
            self.order.add(jobs[-1].key)
        if skipped_limit:
            problems.add(SM508.problem(Location(final_url), f"{skipped_limit} child sitemap(s) not fetched: the "
                                                            f"limit of {self.opts.max_sitemaps} sitemaps was reached"))
        return jobs

    # -- workers ----------------------------------------------------------------------------------------

    async def worker(self) -> None:
        while True:
            _, job = await self.jobs.get()
            try:
                if not self.stopped:
                    try:
                        await self.visit(job)
                    except asyncio.CancelledError:
                        raise
                    except Exception as exc:  # a bug or an exotic transport error: one node fails, not the walk
                        problem = SM501.problem(Location(job.seed.url), f"{type(exc).__name__}: {exc}")
                        await self.order.turn(job.key)
                        if self.opts.stream_problems:
                            await self.out.put(EntryBatch(job.seed.url, (), (problem,)))
                        await self._emit_node(SitemapNode(job.seed.url, job.seed.found_via, job.depth, job.parent,
                                                          problems=(problem,), problem_count=1))
                self.order.done(job.key)  # after its children were added (in visit): they come next
            finally:
                self.jobs.task_done()

    async def visit(self, job: _Job) -> None:
        seed = job.seed
        problems = _Collector(self.opts.max_problems_per_sitemap, self.opts.stream_problems)

        def node(**kw: Any) -> SitemapNode:
            return SitemapNode(seed.url, seed.found_via, job.depth, job.parent, problems=tuple(problems.problems),
                               problem_count=problems.count, **kw)

        if job.parent_host is not None:
            child_host = (urlsplit(seed.url).hostname or "").lower()
            if child_host != job.parent_host:
                problems.add(SM511.problem(Location(seed.url, loc=seed.url),
                                           f"listed by {job.parent} on host {job.parent_host}"))
        body: Body | None = None
        try:
            body = await (self._handed(job) if seed.response is not None else self._fetch(job))
        except FetchError as exc:
            code = (SM515 if isinstance(exc, AddressRefusedError) else SM503 if isinstance(exc, TooManyRedirectsError)
                    else SM504 if isinstance(exc, ResponseTooLargeError) else SM501)
            problems.add(code.problem(Location(seed.url),
                                      f"{seed.url} not fetched: {exc.reason}" if code is SM515 else exc.reason))
            await self.order.turn(job.key)
            await self._emit_node(node(), problems)
            return
        try:
            await self.order.turn(job.key)  # fetched: now wait until the sitemaps before this one are handed over
            if not self.stopped:  # else the URL limit was reached by a sitemap before this one
                await self._hand_over(job, body, problems, node)
        finally:
            await body.close()

    async def _handed(self, job: _Job) -> Body:
        """A body discovery already fetched (whole)."""
        resp = job.seed.response
        assert resp is not None
        parts = [resp.body] if resp.parts is None else list(resp.parts)
        held = HeldBody(parts, self.held)
        self.held.book(held.size)
        stream = HttpStream(resp.url, resp.final_url, resp.status, resp.headers, resp.redirects,
                            time.monotonic() - resp.elapsed, resp.attempts, self.client.stream_limits(), None,
                            from_cache=resp.from_cache, wire=resp.wire_bytes)
        return Body(stream, held, None)

    async def _fetch(self, job: _Job) -> Body:
        """Open a sitemap's response once :class:`HeldBytes` lets it go (see :func:`open_body`)."""
        return await open_body(self.client, self.held, self.order, job.key, job.seed.url, self.opts.max_bytes)

    async def _hand_over(self, job: _Job, body: Body, problems: _Collector,
                         node: Callable[..., SitemapNode]) -> None:
        seed = job.seed
        resp = body.stream

        def meta() -> dict[str, Any]:
            return {"final_url": resp.final_url, "status": resp.status, "size": body.size,
                    "wire_bytes": resp.wire_bytes, "elapsed": resp.elapsed, "redirects": resp.redirects,
                    "from_cache": resp.from_cache}

        if resp.redirects:
            problems.add(SM512.problem(Location(seed.url), f"redirected to {resp.final_url} "
                                       f"({', '.join(str(s) for _, s in resp.redirects)})"))
            targets = [u for u, _ in resp.redirects[1:]] + [resp.final_url]
            keys = [url_key(u) for u in targets]
            if any(k in self.visited for k in keys):
                problems.add(SM506.problem(Location(seed.url), f"redirects to {resp.final_url}, which was already "
                                                               "visited; not read again"))
                await self._emit_node(node(**meta()), problems)
                return
            self.visited.update(keys)
        if not resp.ok:
            problems.add(SM502.problem(Location(resp.final_url), f"HTTP status {resp.status}"))
            await self._emit_node(node(**meta()), problems)
            return
        kept: list[bytes] | None = [] if self.opts.keep_bodies else None
        kind, entries, children, child_count = await self._parse(seed.url, job, resp, body, problems, kept)
        if kind is DocumentKind.INDEX and job.parent_kind is DocumentKind.INDEX:
            problems.add(SM510.problem(Location(resp.final_url), f"this index is listed by the index {job.parent}"))
        jobs = [] if self.stopped else self.schedule_children(
            job.key, seed.url, resp.final_url, kind or DocumentKind.INDEX, job.depth,
                                      children, problems, child_count) if children and self.opts.follow else []
        await self._emit_node(node(**meta(), kind=kind, entries=entries, children=tuple(children or ()),
                                   child_count=child_count,
                                   body=b"".join(kept) if kept is not None and not body.broken else None),
                              problems)
        for j in jobs:
            self.jobs.put_nowait((j.key, j))

    async def _parse(self, url: str, job: _Job, resp: HttpStream, body: Body, problems: _Collector,
                     kept: list[bytes] | None) -> tuple[DocumentKind | None, int, list[str] | None, int]:
        """Feed the body to the reader as it comes; returns the kind, the number of entries, the child sitemaps
        to schedule (at most ``max_sitemaps`` of them are kept: an index of a million children never is held;
        None when they are not followed) and how many children were listed."""
        source = resp.final_url
        entries = 0
        child_count = 0
        follow = self.opts.follow and not self.stopped
        children: list[str] | None = [] if follow else None
        listed: list[str] = []  # what the node shows when children are not followed (at most _NODE_CHILDREN)
        kind: DocumentKind | None = None
        limit = self.opts.max_urls
        parser: Any = None
        pieces = body.pieces()
        lead: list[bytes] = []
        got = 0
        try:
            while got < HEAD_BYTES:
                try:
                    piece = await pieces.__anext__()
                except StopAsyncIteration:
                    break
                lead.append(piece)
                got += len(piece)
            head = b"".join(lead)[:HEAD_BYTES] if len(lead) != 1 else lead[0][:HEAD_BYTES]
            if looks_binary(head, complete=got <= HEAD_BYTES):
                if kept is not None:
                    kept.extend(lead)
                problems.add(SM516.problem(Location(source), f"{MESSAGE} (status {resp.status}, Content-Type "
                                                             f"{resp.headers.get('content-type', 'none')!r})"))
                return DocumentKind.UNKNOWN, 0, None, 0
            # Counting only, or printing locs: plain entries are checked in bulk (read.LocRun), not built.
            parser = SitemapParser(source, max_decompressed_bytes=self.opts.max_bytes,
                                   loc_runs=self.opts.loc_runs or not self.opts.yield_entries)
            step = _GZIP_SLICE if head[:2] == b"\x1f\x8b" else _SLICE
            del head
            # Each slice in bounded steps (at most 256 KiB of inflated gzip): a bomb's events never pile up.
            async for events in steps(parser, sliced(lead, pieces, step, kept)):
                # The common case, a slice of URL entries only, in one pass; anything else takes the loop below.
                batch: list[UrlEntry] = [ev for ev in events if ev.__class__ is UrlEntry]
                refs: list[SitemapRef] = []
                locs: Sequence[str] = ()
                if len(batch) != len(events):
                    batch, runs = [], []
                    for ev in events:
                        item = getattr(ev, "item", ev)  # a Located wrapper (positions=True) unwraps to its item
                        if isinstance(item, UrlEntry):
                            batch.append(item)
                        elif isinstance(item, LocRun):
                            runs.append(item)
                        elif isinstance(item, SitemapRef):
                            refs.append(item)
                        elif isinstance(item, Problem):
                            problems.add(item)
                    locs = _locs_of(runs, batch, events)
                if refs:
                    child_count += len(refs)
                    if children is not None:
                        if len(children) < self.child_cap:
                            children.extend(r.loc for r in refs[: self.child_cap - len(children)])
                    elif len(listed) < _NODE_CHILDREN:
                        listed.extend(r.loc for r in refs[: _NODE_CHILDREN - len(listed)])
                if limit is not None and (batch or locs) and self.urls + len(batch) + len(locs) >= limit:
                    batch = batch[: max(0, limit - self.urls)]
                    locs = locs[: max(0, limit - self.urls)]
                    if not self.stopped:
                        problems.add(SM509.problem(Location(source), f"stopped after {limit:,} URLs"))
                    self.stopped = True
                entries += len(batch) + len(locs)
                self.urls += len(batch) + len(locs)
                if ((batch or locs) and self.opts.yield_entries) or problems.pending or refs:
                    yielded = self.opts.yield_entries
                    await self.out.put(EntryBatch(url, tuple(batch) if yielded else (), problems.take(),
                                                  tuple(refs), tuple(locs) if yielded else ()))
                else:
                    await asyncio.sleep(0)  # let other fetches progress between slices
                if self.stopped:
                    break
            kind = parser.kind
        except ResponseTooLargeError as exc:
            problems.add(SM504.problem(Location(source), exc.reason))
            kind = getattr(parser, "kind", None)
            body.broken = True  # not the whole document: no bytes on the node (as when it could not be fetched)
        except FetchError as exc:  # the body broke off, stalled, or its Content-Encoding is corrupt
            problems.add(SM501.problem(Location(source), exc.reason))
            kind = getattr(parser, "kind", None)
            body.broken = True
        except InputError as exc:
            problems.add((SM504 if "budget" in str(exc) or "limit" in str(exc).lower() else SM513).problem(
                Location(source), str(exc)))
            kind = getattr(parser, "kind", None)
        except SitemapkitError as exc:
            problems.add(SM513.problem(Location(source), str(exc)))
        except Exception as exc:  # one broken document never stops the walk
            problems.add(SM513.problem(Location(source), f"{type(exc).__name__}: {exc}"))
        finally:
            await pieces.aclose()
        if kind is not None and not kind.is_sitemap:
            what = "an HTML page" if kind is DocumentKind.HTML else "not a recognised sitemap format"
            problems.add(SM505.problem(Location(source), f"{what} (status {resp.status}, Content-Type "
                                                         f"{resp.headers.get('content-type', 'none')!r})"))
        return kind, entries, children if children is not None else listed, child_count

    async def _emit_node(self, node: SitemapNode, problems: _Collector | None = None) -> None:
        if problems is not None and problems.pending:
            await self.out.put(EntryBatch(node.url, (), problems.take()))
        await self.out.put(node)


async def walk(
    seeds: Iterable[SitemapSeed | str],
    *,
    client: HttpClient,
    options: WalkOptions | None = None,
) -> AsyncIterator[WalkItem]:
    """Walk the sitemap trees below ``seeds``, streaming :class:`EntryBatch` and :class:`SitemapNode` items.

    Stop early by breaking out of the loop: pending fetches are cancelled."""
    opts = options or WalkOptions()
    w = _Walker(client, opts)
    for s in seeds:
        w.schedule_seed(s if isinstance(s, SitemapSeed) else SitemapSeed(s))
    if w.scheduled == 0:
        return
    workers = [asyncio.create_task(w.worker()) for _ in range(max(1, opts.concurrency))]

    async def finish() -> None:
        await w.jobs.join()
        await w.out.put(_END)

    monitor = asyncio.create_task(finish())
    try:
        while True:
            item = await w.out.get()
            if item is _END:
                break
            assert isinstance(item, (EntryBatch, SitemapNode))
            yield item
    finally:
        monitor.cancel()
        for t in workers:
            t.cancel()
        await asyncio.gather(monitor, *workers, return_exceptions=True)
