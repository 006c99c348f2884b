"""Duplicate detection in bounded memory: which strings (locs) were seen before, however many there are.

A :class:`SeenSet` keeps the 64-bit hashes (Python's ``hash``: SipHash with a per-process key) of the strings it
is given: the first :data:`SEEN_EXACT` distinct ones in an exact set (~8 MB), every later one in a blocked Bloom
filter of :data:`BLOOM_BYTES` (32 MiB of 64-bit words, made only when the exact set is full). So memory is bounded
whatever the number of strings: at most ~40 MB.

The filter is *blocked* for speed in Python: a hash sets ~18 bits in 3 words (6 masks of 3 bits from a table
of 1,024 fixed masks, OR-ed in pairs), 3 word reads where a classic filter with 10 probes made 10 bit operations
(measured 2.5 against 5.9 us per string on a loaded machine).

* A string whose hash is in the exact set was seen (:data:`SEEN`). Two different strings with one 64-bit hash
  are taken as one: with ``n`` strings, probability about ``n**2 / 2**65`` (1e-6 at 6 million).
* Past the exact set, a string the filter already holds is reported :data:`MAYBE`: it was seen, or (false
  positive) a new string all of whose probe bits happen to be set. With ``n`` strings in the filter, the
  probability that a new one is taken as seen was measured at 3e-6 with 6 million strings in the filter (a 100
  MiB text sitemap of the shortest URLs holds ~6 million; none of the 6 million themselves was taken as seen).
  Callers say "probably" for MAYBE (the validator) or document the rate (``urls --unique``).

The sitemap protocol allows 50,000 URLs per file, so a file reaching the filter is already reported as too big;
the filter only keeps such a file (or many sources together) from costing memory per URL.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence

__all__ = ["BLOOM_BYTES", "EXACT_IN_MEMORY", "MAYBE", "NEW", "SEEN", "SEEN_EXACT", "ExactSeen", "SeenSet"]

#: Distinct hashes kept exactly (in a set; ~80 bytes each).
SEEN_EXACT = 100_000
#: Size of the Bloom filter used past SEEN_EXACT (a power of two, at least 8).
BLOOM_BYTES = 1 << 25

#: What :meth:`SeenSet.add` says: not seen before; seen (exact); seen as far as the Bloom filter can tell.
NEW, SEEN, MAYBE = 0, 1, 2

_MASK64 = (1 << 64) - 1
_MIX = 0x9E3779B97F4A7C15  # a second, mixed 64 bits of the hash (Fibonacci hashing)


def _masks() -> list[int]:
    """1,024 fixed 64-bit masks of 3 bits each (a fixed seed: the same filter in every run)."""
    rnd = random.Random(22)
    out = []
    for _ in range(1024):
        m = 0
        while m.bit_count() < 3:
            m |= 1 << rnd.randrange(64)
        out.append(m)
    return out


_T = _masks()


class SeenSet:
    """``add(key)`` remembers ``key`` and says whether it was seen before (NEW, SEEN or MAYBE, see the module).
    ``exact_limit`` and ``bloom_bytes`` default to SEEN_EXACT and BLOOM_BYTES (tests make them small)."""

    __slots__ = ("_exact", "_limit", "_wmask", "_words", "in_filter")

    def __init__(self, exact_limit: int | None = None, bloom_bytes: int | None = None) -> None:
        self._exact: set[int] = set()
        self._limit = SEEN_EXACT if exact_limit is None else exact_limit
        size = BLOOM_BYTES if bloom_bytes is None else bloom_bytes
        if size < 8 or size & (size - 1):
            raise ValueError("bloom_bytes must be a power of two, at least 8")
        self._wmask = size // 8 - 1
        self._words: array[int] | None = None  # made when the exact set is full
        #: Strings added to the filter (new ones past the exact set).
        self.in_filter = 0

    @property
    def exact_size(self) -> int:
        """Hashes in the exact set (at most ``exact_limit``)."""
        return len(self._exact)

    @property
    def filter_bytes(self) -> int:
        """Bytes of the Bloom filter (0 until it is needed)."""
        return len(self._words) * 8 if self._words is not None else 0

    def add_new(self, keys: Sequence[object]) -> bool:
        """``add`` of each of ``keys`` when every one would say NEW and stay in the exact set (distinct, none seen
        before, room for all): True. Otherwise False, and nothing is added (the caller adds them one by one)."""
        hashes = set(map(hash, keys))
        exact = self._exact
        if len(hashes) != len(keys) or len(exact) + len(hashes) > self._limit or not exact.isdisjoint(hashes):
            return False
        exact.update(hashes)
        return True

    def add(self, key: object) -> int:
        h = hash(key)
        exact = self._exact
        if h in exact:
            return SEEN
        if len(exact) < self._limit:
            exact.add(h)
            return NEW
        w = self._words
        if w is None:
            w = self._words = array("Q", bytes((self._wmask + 1) * 8))
        u = h & _MASK64
        v = (u * _MIX) & _MASK64
        wm = self._wmask
        t = _T
        i, j, k = u & wm, (u >> 22) & wm, v & wm
        m1 = t[(u >> 44) & 1023] | t[(u >> 54) & 1023]
        m2 = t[(v >> 22) & 1023] | t[(v >> 32) & 1023]
        m3 = t[(v >> 42) & 1023] | t[(v >> 52) & 1023]
        a, b, c = w[i], w[j], w[k]
        if a & m1 == m1 and b & m2 == m2 and c & m3 == m3:
            return MAYBE
        w[i] = a | m1
        w[j] = w[j] | m2  # (re-read: j or k may be i)
        w[k] = w[k] | m3
        self.in_filter += 1
        return NEW


#: Distinct hashes an :class:`ExactSeen` remembers (~70 MB of Python ints); later ones are not remembered.
EXACT_IN_MEMORY = 1_000_000


class ExactSeen:
    """The 64-bit hashes of the first ``memory_limit`` distinct locs a writer has taken, exactly: a URL is never
    taken as seen unless its hash was (no Bloom filter: dropping a new URL would lose data). Memory is bounded:
    past the limit, new hashes are no longer remembered (:attr:`full` says so), so a URL first given after that
    point and given again is written twice, never dropped. Measured: a spill to SQLite instead cost 5-10x the
    whole generate run past a million URLs (see docs/design/write.md).

    Two different strings with one 64-bit hash are taken as one: with ``n`` strings, probability about
    ``n**2 / 2**65`` (3e-8 at a million)."""

    __slots__ = ("_limit", "_mem", "full")

    def __init__(self, memory_limit: int | None = None) -> None:
        self._mem: set[int] = set()
        self._limit = EXACT_IN_MEMORY if memory_limit is None else memory_limit
        #: True once the limit was reached (later locs are not checked for repeats).
        self.full = False

    def __len__(self) -> int:
        return len(self._mem)

    def __contains__(self, key: int) -> bool:
        return key in self._mem

    def isdisjoint(self, keys: Sequence[int]) -> bool:
        """Whether none of ``keys`` was seen."""
        return self._mem.isdisjoint(keys)

    def add(self, key: int) -> None:
        if len(self._mem) < self._limit:
            self._mem.add(key)
        else:
            self.full = True

    def update(self, keys: Sequence[int]) -> None:
        mem = self._mem
        room = self._limit - len(mem)
        if len(keys) <= room:
            mem.update(keys)
        else:
            mem.update(keys[:max(room, 0)])
            self.full = True

    def close(self) -> None:
        self._mem = set()
