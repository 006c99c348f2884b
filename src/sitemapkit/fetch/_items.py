"""What a walk hands over (:class:`EntryBatch`, :class:`SitemapNode`) and starts from (:class:`SitemapSeed`);
see :mod:`sitemapkit.fetch._walk`."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sitemapkit.core import Problem, SitemapRef, UrlEntry
from sitemapkit.read import DocumentKind

if TYPE_CHECKING:
    from sitemapkit.fetch._http import HttpResponse

__all__ = ["EntryBatch", "FoundVia", "SitemapNode", "SitemapSeed", "WalkItem"]


class FoundVia(enum.Enum):
    """How a sitemap was found."""

    GIVEN = "given"
    ROBOTS = "robots.txt"
    WELL_KNOWN = "well-known path"
    LINK_REL = "link rel"
    INDEX = "index"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class SitemapSeed:
    """A sitemap to start from. ``response`` lets discovery hand over a body it already fetched."""

    url: str
    found_via: FoundVia = FoundVia.GIVEN
    response: HttpResponse | None = None


@dataclass(frozen=True, slots=True)
class EntryBatch:
    """URL entries parsed from ``sitemap`` (its requested URL), in document order; with
    ``WalkOptions.stream_problems``, the problems found meanwhile too; ``refs``: the child sitemaps an index
    lists, as the reader gave them (lastmod included), streamed as they are read (an index of a million
    children is never held whole). ``locs``: with ``WalkOptions.loc_runs``, the locs of plain entries the reader
    checked in bulk (:class:`~sitemapkit.read.LocRun`) instead of ``entries`` (a batch holds one or the other)."""

    sitemap: str
    entries: tuple[UrlEntry, ...]
    problems: tuple[Problem, ...] = ()
    refs: tuple[SitemapRef, ...] = ()
    locs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SitemapNode:
    """One sitemap of the tree, once it is done.

    ``kind`` is None when nothing could be read; ``status`` None when no response came; ``entries`` counts URL
    entries, ``children`` the sitemap URLs an index lists (in document order; at most 50,000, or
    ``max_sitemaps`` when that is more: ``child_count`` counts them all; the refs themselves, lastmod included,
    went out in :attr:`EntryBatch.refs` as they were read; ``child_refs`` is kept empty); ``size`` is the document size
    (Content-Encoding undone; ``bytes`` in JSON), ``wire_bytes`` what was downloaded; ``problems`` holds fetch
    and reader problems (at most ``max_problems_per_sitemap``; ``problem_count`` counts them all)."""

    url: str
    found_via: FoundVia
    depth: int
    parent: str | None = None
    final_url: str | None = None
    status: int | None = None
    kind: DocumentKind | None = None
    entries: int = 0
    children: tuple[str, ...] = ()
    size: int = 0
    wire_bytes: int = 0
    elapsed: float = 0.0
    redirects: tuple[tuple[str, int], ...] = ()
    problems: tuple[Problem, ...] = ()
    problem_count: int = 0
    from_cache: bool = False
    body: bytes | None = field(default=None, repr=False)
    child_refs: tuple[SitemapRef, ...] = field(default=(), repr=False)
    child_count: int = 0

    @property
    def ok(self) -> bool:
        """True when the sitemap was read and no error was found on it."""
        return self.kind is not None and self.kind.is_sitemap and not any(p.is_error for p in self.problems)

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.is_error)

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "final_url": self.final_url,
            "found_via": self.found_via.value,
            "parent": self.parent,
            "depth": self.depth,
            "status": self.status,
            "kind": None if self.kind is None else self.kind.value,
            "entries": self.entries,
            "children": list(self.children),
            "bytes": self.size,
            "wire_bytes": self.wire_bytes,
            "elapsed": round(self.elapsed, 4),
            "redirects": [{"url": u, "status": s} for u, s in self.redirects],
            "from_cache": self.from_cache,
            "problems": [p.to_dict() for p in self.problems],
            "problem_count": self.problem_count,
        }


WalkItem = EntryBatch | SitemapNode
