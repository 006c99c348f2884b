"""Reading a fetched HTML page into what the crawler stores, in this process or in a second one.

:func:`read_page` is the whole CPU-bound part of handling a page: the HTML parse (``_html.extract_page``), the
content fingerprint, and resolving and normalising every link, image, canonical and alternate against the page's
base. It is pure: the same body and URL give the same :class:`PageLinks` in any process.

A large crawl is CPU-bound on one core (the event loop, the SQLite frontier and the page reading share it), while
the machine usually has another. :class:`ExtractorProcess` runs :func:`read_page` in one persistent child process
(``python -c``, fed over its stdin/stdout): the pages that finish fetching in one turn of the event loop go over
in one message, their results come back in one, so the pipe costs a few tens of microseconds a batch. The crawler
starts it lazily, only past :data:`EXTRACT_PROCESS_AFTER` fetched pages, and keeps reading pages in-process until
it is ready: a small crawl never pays for a second interpreter.

Nothing about the crawl's safety changes: the child only computes; the parent records a page (and its links)
after the result is back, in one go as before, so a kill loses at most the pages in flight. The child ignores
Ctrl-C (the parent decides when to stop), exits when its stdin closes (the parent ended, even by kill -9), and is
killed and reaped by :meth:`ExtractorProcess.aclose`. If it dies, its pages, and every page after, are read
in-process: the crawl goes on with the same results.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import struct
import sys
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urljoin

from sitemapkit.crawl._html import extract_page
from sitemapkit.crawl._normalize import UrlNormalizer

__all__ = ["EXTRACT_PROCESS_AFTER", "ExtractorProcess", "PageLinks", "read_page"]

#: A crawl reads its pages in a second process once it has fetched this many (a second interpreter starts in a
#: few hundred milliseconds; a crawl smaller than this is over in about a second); pages are read in-process
#: until the child is ready. 0: from the first page, waiting for the child to start; None: never.
EXTRACT_PROCESS_AFTER: int | None = 1000

#: The child's cache of normalised URLs, far smaller than the crawler's default (65,536, about 20 MB when full):
#: the links a site repeats on every page (navigation) are few. On the benchmark's pages 4,096 entries hit as
#: often as 65,536 (26% of links); 16,384 cost 4 MB more for a few percent less of the child's CPU, which runs on
#: the other core: the memory budget (main + child) matters more.
_CHILD_CACHE = 4096

_HEADER = struct.Struct("!I")
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the package, for the child's sys.path


class PageLinks(NamedTuple):
    """What a status-200 HTML page says, every URL resolved against the page's base and normalised (links,
    images: each once, in page order; an unusable one dropped). The page's own URL is not removed."""

    noindex: bool
    nofollow: bool
    links: list[str]
    images: list[str]
    canonical: str | None
    alternates: list[tuple[str, str]]  # (hreflang, URL)
    title: str | None
    fingerprint: str


def read_page(body: bytes, final_url: str, normalizer: UrlNormalizer, images: bool) -> PageLinks:
    """Parse ``body`` (fetched from ``final_url``) and resolve what it links to."""
    info = extract_page(body, images=images)
    base = urljoin(final_url, info.base_href) if info.base_href else final_url
    join = normalizer.joiner(base)
    links = list(dict.fromkeys(link for link in map(join, info.links) if link is not None))
    shown = list(dict.fromkeys(img for img in map(join, info.images) if img is not None))
    canonical = join(info.canonical) if info.canonical else None
    alternates = [(lang, alt) for lang, alt in ((lang, join(href)) for lang, href in info.alternates)
                  if alt is not None]
    return PageLinks(info.robots.noindex, info.robots.nofollow, links, shown, canonical, alternates, info.title,
                     info.fingerprint)


# -- the child -------------------------------------------------------------------------------------------------
# Started as ``python -c _BOOT ROOT``. The crawl face imports its names on first use, so the child loads only
# this module, the HTML parser and the normaliser (not the crawler, the HTTP client or the writer): about 23 MB
# instead of 32 MB, and a faster start.
_BOOT = """
import sys
sys.path.insert(0, sys.argv[1])
from sitemapkit.crawl._extract import serve
serve()
"""


def _read_frame(stream: object) -> bytes | None:
    read = stream.read  # type: ignore[attr-defined]
    head = read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(head)
    data: bytes = read(size)
    return data if len(data) == size else None


def serve() -> None:
    """The child's loop: a first frame with the options, then batches of ``(job, body, final_url)``; each batch
    is answered with ``(job, PageLinks)`` pairs in one frame. Ends at end of input."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent decides
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    frame = _read_frame(stdin)
    if frame is None:
        return
    strip_params, images = pickle.loads(frame)  # noqa: S301 - our own parent, over a private pipe
    normalizer = UrlNormalizer(strip_params, cache_size=_CHILD_CACHE)
    stdout.write(_HEADER.pack(0))  # ready
    stdout.flush()
    while (frame := _read_frame(stdin)) is not None:
        batch = pickle.loads(frame)  # noqa: S301
        results: list[tuple[int, PageLinks | None]] = []
        for job, body, url in batch:
            try:
                results.append((job, read_page(body, url, normalizer, images)))
            except Exception:  # the parent reads this page itself, and meets the error there
                results.append((job, None))
        out = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            stdout.write(_HEADER.pack(len(out)) + out)
            stdout.flush()
        except BrokenPipeError:
            return


# -- the parent's side -----------------------------------------------------------------------------------------
class ExtractorProcess:
    """:func:`read_page` in a child process. :meth:`start` launches it (returns at once); :attr:`ready` tells
    when it answers; :meth:`read` sends a page and waits for its result; :meth:`aclose` ends it."""

    def __init__(self, strip_params: tuple[str, ...], images: bool, *, normalizer: UrlNormalizer | None = None
                 ) -> None:
        self._options = (tuple(strip_params), images)
        # Pages read here (before the child answers, or once it is gone): the crawler's own normalizer, so the
        # main process holds one URL cache, not two.
        self._local = normalizer if normalizer is not None else UrlNormalizer(strip_params)
        self._images = images
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._jobs: dict[int, tuple[asyncio.Future[PageLinks], bytes, str]] = {}
        self._batch: list[tuple[int, bytes, str]] = []
        self._next_job = 1
        self._flush: asyncio.Handle | None = None
        self.ready = False
        self.failed = False  # the child could not start or died: pages are read in-process
        self._settled = asyncio.Event()  # set once ready or failed
        self.answered = 0  # pages the child read
        self._closing = False

    def start(self) -> None:
        self._reader = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            self._proc = proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", _BOOT, _ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                start_new_session=True)  # a terminal's Ctrl-C goes to the crawl alone, which stops the child
            assert proc.stdin is not None
            assert proc.stdout is not None
            options = pickle.dumps(self._options)
            proc.stdin.write(_HEADER.pack(len(options)) + options)
            if await proc.stdout.readexactly(_HEADER.size) != _HEADER.pack(0):
                raise EOFError("unexpected answer")
            self.ready = True
            self._settled.set()
            while True:
                (size,) = _HEADER.unpack(await proc.stdout.readexactly(_HEADER.size))
                results = pickle.loads(await proc.stdout.readexactly(size))  # noqa: S301 - our own child
                for job, links in results:
                    entry = self._jobs.pop(job, None)
                    if entry is not None and not entry[0].done():
                        if links is None:  # the child failed on it: read here, where the error is raised
                            self._settle(*entry)
                        else:
                            entry[0].set_result(links)
                            self.answered += 1
        except Exception:  # could not start, died, or garbled its answer: the pages are read here instead
            self._fall_back(failed=not self._closing)

    def _fall_back(self, failed: bool = True) -> None:
        """The child is gone: read its pages here (they are the same results)."""
        self.ready = False
        self.failed = self.failed or failed
        self._settled.set()
        jobs, self._jobs = self._jobs, {}
        self._batch.clear()
        for entry in jobs.values():
            self._settle(*entry)

    def _settle(self, future: asyncio.Future[PageLinks], body: bytes, url: str) -> None:
        """Read a page in-process for ``future`` (the page's own error, if any, as in-process reading raises it)."""
        if future.done():
            return
        try:
            future.set_result(read_page(body, url, self._local, self._images))
        except Exception as exc:  # handed to the page's worker
            future.set_exception(exc)

    async def wait_ready(self) -> bool:
        """Wait until the child answers (True) or could not start (False)."""
        await self._settled.wait()
        return self.ready

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def read(self, body: bytes, final_url: str) -> asyncio.Future[PageLinks]:
        """The page's :class:`PageLinks`, from the child (batched with the other pages of this loop turn)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[PageLinks] = loop.create_future()
        if not self.ready:
            future.set_result(read_page(body, final_url, self._local, self._images))
            return future
        job = self._next_job
        self._next_job += 1
        self._jobs[job] = (future, body, final_url)
        self._batch.append((job, body, final_url))
        if self._flush is None:
            self._flush = loop.call_soon(self._send)
        return future

    def _send(self) -> None:
        self._flush = None
        batch, self._batch = self._batch, []
        proc = self._proc
        if not batch or proc is None or proc.stdin is None:
            return
        data = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            proc.stdin.write(_HEADER.pack(len(data)) + data)
        except (OSError, RuntimeError):  # the pipe closed: the reader falls back when it sees the end
            pass

    async def aclose(self) -> None:
        """End the child: close its input (it exits), kill it if it does not within a second; always reaped."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        proc = self._proc
        self._closing = True
        try:
            if proc is not None:
                if proc.stdin is not None:
                    proc.stdin.close()
                try:
                    await asyncio.wait_for(proc.wait(), 1.0)
                except (TimeoutError, asyncio.CancelledError):
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    await proc.wait()
                    if not isinstance(sys.exc_info()[1], TimeoutError):
                        raise
        finally:
            if self._reader is not None:
                self._reader.cancel()
                await asyncio.gather(self._reader, return_exceptions=True)
            self.ready = False
            self._fall_back(failed=False)  # nothing should wait, but nothing is left waiting
