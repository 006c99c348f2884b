"""What the reader's engines are given by the parser that drives them (and the event types they produce).

The engines (``_xml``, ``_text``) and the fast lane (``_lane``) report problems and entries to an :class:`Owner`;
:class:`~sitemapkit.read._parser.SitemapParser` is the one implementation. Defined here, below the engines, so that
the parser imports the engines and no engine imports the parser back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sitemapkit.core import Problem, ProblemCode, SitemapRef, UrlEntry
from sitemapkit.read._locrun import LocRun

__all__ = ["DUPLICATE_TRACKING_LIMIT", "Event", "Located", "Owner"]

#: Distinct locs remembered per document to report duplicates (8-byte hashes; ~3 MB at the cap).
DUPLICATE_TRACKING_LIMIT = 100_000


@dataclass(frozen=True, slots=True)
class Located:
    """An entry with where it was found: 1-based ``line`` of its ``<url>``/``<sitemap>``/item (of the line in a
    text sitemap), ``column`` (known for text sitemaps; None for XML, where the engine records lines only) and
    ``raw_loc``, the loc text as the document has it after entity decoding, before stripping and encoding."""

    item: UrlEntry | SitemapRef
    line: int | None
    column: int | None
    raw_loc: str


Event = UrlEntry | SitemapRef | Problem | Located | LocRun


class Owner(Protocol):
    """The parser as its engines see it.

    ``problem``, ``emit`` and ``stop`` are the whole interface; the hot paths (the XML engine's ``<url>`` and the
    fast lane) inline ``emit`` for plain events, so they also use its state: ``_seen`` (hashes of the locs seen, at
    most :data:`DUPLICATE_TRACKING_LIMIT`), ``_out`` (events not yet taken) and ``_items`` (entries emitted)."""

    strict: bool
    positions: bool
    loc_runs: bool
    _seen: set[int]
    _out: list[Event]
    _items: int

    @property
    def entry_count(self) -> int: ...

    def problem(
        self,
        pc: ProblemCode,
        message: str | None = None,
        line: int | None = None,
        column: int | None = None,
        loc: str | None = None,
    ) -> None: ...

    def emit(self, item: UrlEntry | SitemapRef, line: int | None, column: int | None, raw_loc: str) -> None: ...

    def stop(self) -> None: ...
