"""The URLs a crawl meets: each gets its row (queued, or excluded before fetching with its reason) the first time,
and its id every time after. A bounded LRU of recently met URLs answers most; the state file answers the rest.

A page's links are met together (:meth:`UrlIds.discover_many`): the ones the LRU does not hold are looked up in
one query and the new ones inserted in one statement, in the page's order (so they get the ids, and the query
variant counters the counts, that meeting them one at a time gives).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

from sitemapkit.crawl._decide import Reason
from sitemapkit.crawl._state import QUEUED, SKIPPED, CrawlState

__all__ = ["LRU_SIZE", "UrlIds"]

#: URL ids kept in memory (the most recently met).
LRU_SIZE = 50_000


class UrlIds:
    """The id of every URL met, inserting it when new. ``classify(url, depth)`` says why a new URL is not
    queued (reason, detail), or None to queue it."""

    def __init__(self, state: CrawlState, classify: Callable[[str, int], tuple[Reason, str] | None], *,
                 size: int = LRU_SIZE) -> None:
        self.state = state
        self.classify = classify
        self.size = size
        self._ids: OrderedDict[str, int] = OrderedDict()

    def cached(self, url: str) -> int | None:
        return self._ids.get(url)

    def remember(self, url: str, url_id: int) -> None:
        self._ids[url] = url_id
        if len(self._ids) > self.size:
            self._ids.popitem(last=False)

    def discover(self, url: str, depth: int) -> int:
        """The id of ``url``, inserting it (queued, or excluded with its reason) when met for the first time."""
        url_id = self._ids.get(url)
        if url_id is not None:
            self._ids.move_to_end(url)
            return url_id
        return self.discover_many((url,), depth)[0]

    def discover_many(self, urls: Sequence[str], depth: int) -> list[int]:
        """:meth:`discover` of each of ``urls`` (distinct), in order, with one lookup and one insert for all."""
        ids = self._ids
        found: list[int | None] = []
        missing: list[str] = []
        for u in urls:
            i = ids.get(u)
            if i is None:
                missing.append(u)
            else:
                ids.move_to_end(u)  # now: remembering the new ones below may push the oldest out
            found.append(i)
        if not missing:
            return found  # type: ignore[return-value]  # no None left
        known = self.state.lookup_many(missing)
        rows: list[tuple[str, int, int, str | None, str | None]] = []
        for u in missing:
            if u not in known:
                verdict = self.classify(u, depth)
                rows.append((u, depth, QUEUED, None, None) if verdict is None
                            else (u, depth, SKIPPED, verdict[0].value, verdict[1]))
        if rows:
            known.update(zip((r[0] for r in rows), self.state.add_urls(rows), strict=True))
        out: list[int] = []
        for u, i in zip(urls, found, strict=True):
            if i is None:
                i = known[u]
                self.remember(u, i)
            out.append(i)
        return out
