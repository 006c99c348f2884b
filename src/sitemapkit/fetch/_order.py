"""Document order for the walker: fetch many sitemaps at once, hand their contents over one at a time.

Every job of a walk has a key: the i-th seed is ``(i,)``, the j-th sitemap an index lists is the index's key plus
``(j,)``. Keys compare as tuples, so their order is the tree in document order (an index, then each sitemap it
lists in the order it lists them, a nested index's sitemaps before the next sibling): what reading the same
files one after the other gives. :class:`Sequencer` lets a job wait for its turn; the jobs before it may still be
fetching meanwhile. A job's children are added before the job is marked done, so the smallest key not done yet is
always the one whose turn it is.
"""

from __future__ import annotations

import asyncio
import heapq

__all__ = ["Key", "Sequencer"]

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
