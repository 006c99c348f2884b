"""Document order for the walker: fetch many sitemaps at once, hand their contents over one at a time.

Every job of a walk has a key: the i-th seed is ``(i,)``, the j-th sitemap an index lists is the index's key plus
``(j,)``. Keys compare as tuples, so their order is the tree in document order (an index, then each sitemap it
lists in the order it lists them, a nested index's sitemaps before the next sibling): what reading the same
files one after the other gives. :class:`Sequencer` lets a job wait for its turn; the jobs before it may still be
fetching meanwhile. A job's children are added before the job is marked done, so the smallest key not done yet is
always the one whose turn it is.

:class:`HeldBytes` bounds what waiting costs: a body fetched ahead of its turn waits for it in memory, so a job
ahead of its turn reads its body only while the bodies held fit a byte budget. The job whose turn it is never waits
for room (it streams its body into the reader), so the walk cannot stall, and the order is the same whatever the
budget.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable, Iterator

__all__ = ["HeldBody", "HeldBytes", "Key", "Sequencer"]

Key = tuple[int, ...]


class Sequencer:
    """Turns in key order. ``add`` a key when its job is scheduled, ``await turn(key)`` before the job hands
    anything over, ``done(key)`` when it has handed everything over (or will hand nothing: a skipped job may be
    marked done out of turn). With ``ordered=False`` every turn is immediate."""

    def __init__(self, *, ordered: bool = True) -> None:
        self.ordered = ordered
        self._pending: list[Key] = []  # a heap; keys marked done are dropped when they reach the top
        self._done: set[Key] = set()
        self._waiters: dict[Key, asyncio.Event] = {}
        self.on_done: Callable[[], None] | None = None  # told when a key is done (a turn may have passed)

    def add(self, key: Key) -> None:
        heapq.heappush(self._pending, key)

    def current(self) -> Key | None:
        """The key whose turn it is (None when every key added is done)."""
        pending = self._pending
        while pending and pending[0] in self._done:
            self._done.discard(heapq.heappop(pending))
        return pending[0] if pending else None

    async def turn(self, key: Key) -> None:
        """Return once every key before ``key`` is done."""
        if not self.ordered or self.current() == key:
            return
        event = self._waiters.setdefault(key, asyncio.Event())
        try:
            await event.wait()
        finally:
            self._waiters.pop(key, None)

    def done(self, key: Key) -> None:
        self._done.add(key)
        head = self.current()
        if head is not None and head in self._waiters:
            self._waiters[head].set()
        if self.on_done is not None:
            self.on_done()


class HeldBytes:
    """The bytes of bodies fetched ahead of their turn and not yet read by the walk, bounded by ``budget``.

    The job whose turn it is (``order.current()``) streams its body straight into the reader: nothing of it is
    held. A job ahead of its turn reads its body into memory, as it arrives, while it fits: ``await admit(key)``
    before its request goes when no job before it is waiting here (fetches start in document order) and either the
    bytes held, plus those expected from the fetches under way, plus its own leave ``budget`` bytes or less, or
    nothing at all is held or expected. What a fetch is expected to bring is the largest body among its siblings
    (the sitemaps of the same index, or the seeds) fetched so far, and nothing before any is known: so children of
    unknown size (the first ones an index lists) are all fetched at once, up to the walk's concurrency, and a
    child that stalls does not hold up its siblings. :meth:`grow` books each piece as it arrives and refuses one
    that would take the bytes held past ``budget``: the fetch is then dropped (its bytes released) and made again
    when its turn comes, streamed. :meth:`finish` ends a fetch, :meth:`release` frees what the reader is done
    with (a body held ahead is freed piece by piece as it is read). So the bytes held never exceed ``budget``
    (``peak`` records the most held at once), and a large sitemap costs at most one refused read-ahead.
    ``budget=None`` bounds nothing (nor need an unordered walk: nothing waits there)."""

    def __init__(self, order: Sequencer, budget: int | None) -> None:
        self.order = order
        self.budget = budget
        self.held = 0
        self.underway = 0  # the bytes still expected from the fetches under way (see admit)
        self.largest: dict[Key, int] = {}  # the largest body fetched so far, by parent (an index's key, or ())
        self.peak = 0
        self._expected: dict[Key, int] = {}
        self._waiting: set[Key] = set()
        self._changed = asyncio.Event()
        order.on_done = self._wake

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def bounded(self) -> bool:
        return self.budget is not None and self.order.ordered

    def ahead(self, key: Key) -> bool:
        """True while ``key``'s turn has not come (its body must then be held, not streamed)."""
        return self.order.ordered and self.order.current() != key

    async def admit(self, key: Key) -> None:
        """Wait until ``key`` may fetch (at once when it is its turn)."""
        if self.budget is None or not self.order.ordered:
            return
        guess = self.largest.get(key[:-1], 0)
        if self.order.current() != key:
            self._waiting.add(key)
            try:
                while self.order.current() != key:
                    room = self.held + self.underway == 0 or self.held + self.underway + guess <= self.budget
                    if room and key == min(self._waiting):
                        break
                    await self._changed.wait()
                    guess = self.largest.get(key[:-1], 0)
            finally:
                self._waiting.discard(key)
                self._wake()  # the next one waiting may go now
        self._expected[key] = self._expected.get(key, 0) + guess
        self.underway += guess

    def grow(self, key: Key, size: int) -> bool:
        """Book ``size`` more bytes of ``key``'s body, read ahead of its turn; False (nothing booked) when they
        would take the bytes held past the budget."""
        expected = self._expected.get(key, 0)
        took = min(expected, size)
        if self.budget is not None and self.held + self.underway - took + size > self.budget:
            return False
        if took:
            self._expected[key] = expected - took
            self.underway -= took
        self.held += size
        self.peak = max(self.peak, self.held)
        return True

    def book(self, size: int) -> None:
        """Book a body fetched elsewhere (handed over by discovery), whole."""
        self.held += size
        self.peak = max(self.peak, self.held)

    def finish(self, key: Key, size: int | None) -> None:
        """The fetch of ``key`` ended; ``size``: its body's size (None: it failed or was dropped)."""
        self.underway -= self._expected.pop(key, 0)
        if size is not None and size > self.largest.get(key[:-1], 0):
            self.largest[key[:-1]] = size
        self._wake()

    def release(self, size: int) -> None:
        """The reader is done with ``size`` bytes of a body (or a body is dropped unread)."""
        if size:
            self.held -= size
            self._wake()


class HeldBody:
    """A fetched body as the pieces it arrived in, booked in ``held`` (see :class:`HeldBytes`), which is told as
    each piece is dropped: the reader takes it in slices (:meth:`slices`) and the body is freed as it goes."""

    __slots__ = ("_held", "left", "parts", "size")

    def __init__(self, parts: list[bytes], held: HeldBytes) -> None:
        self.parts = parts
        self.size = sum(map(len, parts))
        self.left = self.size
        self._held = held

    def pieces(self) -> Iterator[bytes]:
        """The pieces in turn, each dropped (and released) as it is handed out."""
        parts = self.parts
        parts.reverse()  # taken from the end: no list shifting
        while parts:
            part = parts.pop()
            self._drop(len(part))
            yield part

    def head(self, n: int) -> bytes:
        """The first ``n`` bytes (fewer when the body is shorter)."""
        out = b""
        for part in self.parts:
            if len(out) >= n:
                break
            out += part[: n - len(out)]
        return out

    def slices(self, step: int) -> Iterator[bytes]:
        """The body in slices of ``step`` bytes (the last one shorter), cut exactly where slicing the whole body
        would cut it; each piece is dropped (and released) once it has been sliced."""
        parts = self.parts
        parts.reverse()  # taken from the end: no list shifting
        pending = b""
        while parts:
            part = parts.pop()
            self._drop(len(part))
            data = pending + part if pending else part
            pos, end = 0, len(data)
            while end - pos >= step:
                yield data[pos : pos + step]
                pos += step
            pending = data[pos:] if pos else data
            del data, part
        if pending:
            yield pending

    def drop(self) -> None:
        """Done with the body (read, or not read at all): release what is left of it."""
        self.parts.clear()
        self._drop(self.left)

    def _drop(self, size: int) -> None:
        self.left -= size
        self._held.release(size)
