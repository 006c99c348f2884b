"""Document order for the walker: fetch many sitemaps at once, hand their contents over one at a time.

Every job of a walk has a key: the i-th seed is ``(i,)``, the j-th sitemap an index lists is the index's key plus
``(j,)``. Keys compare as tuples, so their order is the tree in document order (an index, then each sitemap it
lists in the order it lists them, a nested index's sitemaps before the next sibling): what reading the same
files one after the other gives. :class:`Sequencer` lets a job wait for its turn; the jobs before it may still be
fetching meanwhile. A job's children are added before the job is marked done, so the smallest key not done yet is
always the one whose turn it is.

:class:`HeldBytes` bounds what waiting costs: a fetched body waits for its turn whole, so a job ahead of its turn
starts a fetch only while the bodies held leave room for one more under a byte budget. The job whose turn it is
never waits for room, so the walk cannot stall, and the order is the same whatever the budget.
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
    """The bytes of fetched bodies not yet read by the walk, bounded for the jobs ahead of their turn.

    ``await admit(key)`` before a fetch: the job whose turn it is (``order.current()``) goes at once; a job
    ahead of its turn goes when no job before it is waiting here (fetches start in document order, so a body
    fetched far ahead does not sit there for long) and either the bodies held, plus the fetches under way, plus
    its own leave ``budget`` bytes or less, or nothing at all is held or under way. Sizes are only known once
    fetched, so a fetch under way counts as the largest body among its siblings (the sitemaps of the same index,
    or the seeds) fetched so far, and as the whole budget before any: an index is no guide to its children's
    size. ``fetched`` books the real size, ``release`` the bytes the reader is done with (a body is freed piece by
    piece as it is read). So the next sitemap is fetched while the current one is read once what is left of it
    leaves room, many small ones are fetched at once (up to the walk's concurrency), and the bytes held stay
    under about ``budget``, or one body larger than its siblings before it. ``peak`` records the most held at
    once. ``budget=None`` bounds nothing (nor need an unordered walk: nothing waits there)."""

    def __init__(self, order: Sequencer, budget: int | None) -> None:
        self.order = order
        self.budget = budget
        self.held = 0
        self.underway = 0  # the bytes counted for the fetches under way
        self.largest: dict[Key, int] = {}  # the largest body fetched so far, by parent (an index's key, or ())
        self.peak = 0
        self._waiting: set[Key] = set()
        self._changed = asyncio.Event()
        order.on_done = self._wake

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def admit(self, key: Key) -> int:
        """Wait until ``key`` may fetch; returns the bytes counted for its fetch, to hand back to
        :meth:`fetched`."""
        if self.budget is None or not self.order.ordered:
            return 0
        guess = self.largest.get(key[:-1]) or self.budget
        if self.order.current() != key:
            self._waiting.add(key)
            try:
                while self.order.current() != key:
                    room = self.held + self.underway == 0 or self.held + self.underway + guess <= self.budget
                    if room and key == min(self._waiting):
                        break
                    await self._changed.wait()
                    guess = self.largest.get(key[:-1]) or self.budget
            finally:
                self._waiting.discard(key)
                self._wake()  # the next one waiting may go now
        self.underway += guess
        return guess

    def fetched(self, key: Key, counted: int, size: int) -> None:
        """The fetch of ``key``, admitted with ``counted``, ended with a body of ``size`` bytes (0: it failed)."""
        self.underway -= counted
        self.held += size
        if size > self.largest.get(key[:-1], 0):
            self.largest[key[:-1]] = size
        self.peak = max(self.peak, self.held)
        if counted > size:
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
