"""What the XML pass and its lane see of each other.

The validator's fast lane (:class:`~sitemapkit.validate._lane.ValidatorLane`) is a strategy the XML pass
(:class:`~sitemapkit.validate._xml.XmlPass`) is given: the driver builds the pass with a :data:`LaneFactory`, the
pass calls it with itself and its XSD batch size, and from then on each side sees the other only through the
Protocols here. Neither module imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sitemapkit.validate._context import FileContext
from sitemapkit.validate._hreflang import HreflangStore

__all__ = ["Lane", "LaneFactory", "LaneHost"]


class LaneHost(Protocol):
    """The XML pass as its lane sees it."""

    ctx: FileContext
    #: Google's rules apply (images, videos, news, hreflang).
    google: bool
    #: The hreflang store (Google profile), or None.
    store: HreflangStore | None
    #: The XSD pass applies: the lane keeps the bytes of its blocks in batches.
    xsd: bool
    #: Reading stopped (a syntax error was reported).
    dead: bool
    #: Entries taken so far (the lane adds the blocks it checked).
    count: int
    #: Where lxml's columns restart after a hand-over in the middle of a line: that line, and what to add.
    col_fix_line: int
    col_fix: int

    def lx_feed(self, data: bytes) -> None:
        """Parse ``data`` with the element path (lxml)."""

    def note_value_lines(self, start: int) -> None:
        """Remember the values the rule checks judged (the problems reported since ``ctx.found`` was ``start``)."""

    def flush_bytes_batch(self, doc: bytes) -> None:
        """Validate a full batch of the lane's blocks (a small document) against the schema."""

    def skip_bytes_batch(self) -> None:
        """A full batch of the lane's blocks, every one proven valid by the schema's rules: nothing to validate."""

    def adopt_batch(self, doc: bytes, count: int) -> None:
        """Take a partial batch of the lane's blocks as the start of the element path's batch."""


class Lane(Protocol):
    """The lane as the XML pass sees it: bytes in, the bytes lxml must parse out."""

    @property
    def off(self) -> bool:
        """True once lxml reads the rest of the document."""

    def feed(self, data: bytes) -> bytes:
        """Take a chunk; return what lxml must parse now (empty while the lane holds it)."""

    def finish(self) -> bytes:
        """End of the document: return what lxml must still parse."""


#: Builds the lane for one pass: ``factory(host, batch_limit)``.
LaneFactory = Callable[[LaneHost, int], Lane]
