"""Duplicate detection in bounded memory: which strings (locs) were seen before, however many there are.

A :class:`SeenSet` keeps the 64-bit hashes (Python's ``hash``: SipHash with a per-process key) of the strings it
is given: the first :data:`SEEN_EXACT` distinct ones in an exact set (~8 MB), every later one in a Bloom filter of
:data:`BLOOM_BYTES` (32 MiB, :data:`BLOOM_PROBES` probes, made only when the exact set is full). So memory is
bounded whatever the number of strings: at most ~40 MB.

* A string whose hash is in the exact set was seen (:data:`SEEN`). Two different strings with one 64-bit hash
  are taken as one: with ``n`` strings, probability about ``n**2 / 2**65`` (1e-6 at 6 million).
* Past the exact set, a string the filter already holds is reported :data:`MAYBE`: it was seen, or (false
  positive) a new string all of whose probe bits happen to be set. With ``n`` strings in the filter, the
  probability that a new one is taken as seen is ``(1 - exp(-10 n / 2**28)) ** 10``: below 1e-9 at 3 million,
  1e-7 at 6 million (a 100 MiB text sitemap of the shortest URLs holds ~6 million), 1e-5 at 10 million. Callers
  say "probably" for MAYBE (the validator) or document the rate (``urls --unique``).

The sitemap protocol allows 50,000 URLs per file, so a file reaching the filter is already reported as too big;
the filter only keeps such a file (or many sources together) from costing memory per URL.
"""

from __future__ import annotations

__all__ = ["BLOOM_BYTES", "BLOOM_PROBES", "MAYBE", "NEW", "SEEN", "SEEN_EXACT", "SeenSet"]

#: Distinct hashes kept exactly (in a set; ~80 bytes each).
SEEN_EXACT = 100_000
#: Size of the Bloom filter used past SEEN_EXACT (a power of two).
BLOOM_BYTES = 1 << 25
#: Probes (bit positions) per hash in the filter.
BLOOM_PROBES = 10

#: What :meth:`SeenSet.add` says: not seen before; seen (exact); seen as far as the Bloom filter can tell.
NEW, SEEN, MAYBE = 0, 1, 2

_MASK64 = (1 << 64) - 1


class SeenSet:
    """``add(key)`` remembers ``key`` and says whether it was seen before (NEW, SEEN or MAYBE, see the module).
    ``exact_limit`` and ``bloom_bytes`` default to SEEN_EXACT and BLOOM_BYTES (tests make them small)."""

    __slots__ = ("_bits", "_exact", "_limit", "_mask", "in_filter")

    def __init__(self, exact_limit: int | None = None, bloom_bytes: int | None = None) -> None:
        self._exact: set[int] = set()
        self._limit = SEEN_EXACT if exact_limit is None else exact_limit
        size = BLOOM_BYTES if bloom_bytes is None else bloom_bytes
        if size <= 0 or size & (size - 1):
            raise ValueError("bloom_bytes must be a power of two")
        self._mask = size * 8 - 1
        self._bits: bytearray | None = None  # made when the exact set is full
        #: Strings added to the filter (new ones past the exact set).
        self.in_filter = 0

    @property
    def exact_size(self) -> int:
        """Hashes in the exact set (at most ``exact_limit``)."""
        return len(self._exact)

    @property
    def filter_bytes(self) -> int:
        """Bytes of the Bloom filter (0 until it is needed)."""
        return len(self._bits) if self._bits is not None else 0

    def add(self, key: object) -> int:
        h = hash(key)
        exact = self._exact
        if h in exact:
            return SEEN
        if len(exact) < self._limit:
            exact.add(h)
            return NEW
        bits = self._bits
        if bits is None:
            bits = self._bits = bytearray(self._mask // 8 + 1)
        mask = self._mask
        u = h & _MASK64
        step = (u >> 32) | 1
        pos = u
        held = True
        for _ in range(BLOOM_PROBES):
            p = pos & mask
            i = p >> 3
            bit = 1 << (p & 7)
            v = bits[i]
            if not v & bit:
                bits[i] = v | bit
                held = False
            pos += step
        if held:
            return MAYBE
        self.in_filter += 1
        return NEW
