"""Bounded children per entry: what keeps one huge ``<url>`` from growing lxml's tree without limit.

lxml's pull parser hands an entry to Python only once it has ended, and until then libxml2 builds all of it: one
``<url>`` with a million ``xhtml:link`` children (90 MB of text, under the byte budget) made a tree of over a GB.
A :class:`ChildTrimmer` follows the entry that is still open (from its start event): after every feed it walks
the *open path* (the entry, its last child, that one's last child, ...) and removes, from each element on it, the
complete children past the cap of their kind (the first ones are kept; the last child, maybe still open, is never
touched, so libxml2 never writes into a freed node). When the entry ends, :meth:`ChildTrimmer.finish` trims its
direct children once more (all complete now) and says how many of each kind were dropped, for the caller to
report. Each child is looked at once (the walk resumes at the child it stopped at), so the work is linear.

Children are counted per tag: the entry's images, alternates and videos at their caps in ``core._limits``
(:data:`ENTRY_CAPS`), any other tag, and every tag deeper down, at
:data:`~sitemapkit.core._limits.MAX_CHILDREN_PER_KIND`. The reader and the validator use the same caps.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sitemapkit.core import (
    MAX_ALTERNATES_PER_URL,
    MAX_CHILDREN_PER_KIND,
    MAX_IMAGES_PER_URL,
    MAX_VIDEOS_PER_URL,
)

__all__ = ["ENTRY_CAPS", "ChildTrimmer", "Dropped", "child_name"]

#: Caps of the direct children of an entry that have their own (by tag); other tags: MAX_CHILDREN_PER_KIND.
ENTRY_CAPS: dict[str, int] = {
    "{http://www.google.com/schemas/sitemap-image/1.1}image": MAX_IMAGES_PER_URL,
    "{http://www.w3.org/1999/xhtml}link": MAX_ALTERNATES_PER_URL,
    "{http://www.google.com/schemas/sitemap-video/1.1}video": MAX_VIDEOS_PER_URL,
}
_PREFIXES = {
    "http://www.google.com/schemas/sitemap-image/1.1": "image:",
    "http://www.w3.org/1999/xhtml": "xhtml:",
    "http://www.google.com/schemas/sitemap-video/1.1": "video:",
    "http://www.google.com/schemas/sitemap-news/0.9": "news:",
}

#: Distinct kinds counted per element; past this, further new kinds share one count (a document inventing element
#: names cannot grow the counts).
_MAX_KINDS = 64
_OTHER = object()


@dataclass(slots=True)
class Dropped:
    """What :meth:`ChildTrimmer.finish` removed from one entry: per kind of direct child, ``(kept, dropped,
    line of the first dropped)``; ``nested``: elements removed deeper down."""

    kinds: dict[Hashable, tuple[int, int, int | None]] = field(default_factory=dict)
    nested: int = 0
    nested_line: int | None = None


class _Level:
    __slots__ = ("counts", "dropped", "el", "first_line", "marker")

    def __init__(self, el: Any) -> None:
        self.el = el
        self.marker: Any = None  # the child the next walk starts at (the last child of the previous walk)
        self.counts: dict[Hashable, int] = {}
        self.dropped: dict[Hashable, int] = {}
        self.first_line: dict[Hashable, int | None] = {}


def _tag_kind(tag: object) -> Hashable:
    return tag if isinstance(tag, str) else _OTHER


def child_name(kind: Hashable) -> str:
    """How a message names a kind of child (``xhtml:link``, ``loc``; ``other``)."""
    if not isinstance(kind, str):
        return "other"
    ns, brace, local = kind[1:].partition("}")
    if not brace:
        return kind
    return _PREFIXES.get(ns, "") + local


class ChildTrimmer:
    """Caps the children of the open entry (per tag: ``caps``, default :data:`ENTRY_CAPS`, else ``default_cap``,
    default MAX_CHILDREN_PER_KIND). ``line_offset`` is added to lxml's lines in what :meth:`finish` returns."""

    __slots__ = ("_caps", "_default", "_smallest", "entry", "line_offset", "nested", "nested_line", "path", "smallest")

    def __init__(self, caps: Mapping[str, int] | None = None, default_cap: int | None = None) -> None:
        self._caps = dict(ENTRY_CAPS if caps is None else caps)
        self._default = MAX_CHILDREN_PER_KIND if default_cap is None else default_cap
        self._smallest = min([self._default, *self._caps.values()])
        #: The entry followed (callers on a hot path may test and set it directly: ``open`` and the fast case of
        #: ``finish``, see ``ended_small``).
        self.entry: Any = None
        #: Levels of the open path, made at the first trim of the entry (None: most entries end within one feed).
        self.path: list[_Level] | None = None
        #: Entries with no more children need no walk when they end unwalked.
        self.smallest = self._smallest
        self.nested = 0
        self.nested_line: int | None = None
        self.line_offset = 0

    @property
    def active(self) -> bool:
        return self.entry is not None

    def ended_small(self, entry: Any) -> bool:
        """The fast case of :meth:`finish`: ``entry``, followed and never walked, ended with few children (then
        it is no longer followed and there is nothing to report)."""
        if self.entry is entry and self.path is None and len(entry) <= self._smallest:
            self.entry = None
            return True
        return False

    def open(self, entry: Any) -> None:
        """An entry started: follow it (until :meth:`finish`). Cheap: this runs for every entry."""
        self.entry = entry

    def trim(self) -> None:
        """After a feed: remove the complete children past their caps along the open path."""
        path = self.path
        if path is None:
            if self.entry is None:
                return
            path = self.path = [_Level(self.entry)]
            self.nested = 0
            self.nested_line = None
        depth = 0
        while depth < len(path):
            level = path[depth]
            last = self._walk(level, depth, final=False)
            depth += 1
            if last is None or not isinstance(last.tag, str):
                self._close(path, depth)
                return
            if depth < len(path):
                if path[depth].el is last:
                    continue
                self._close(path, depth)
            path.append(_Level(last))

    def _close(self, path: list[_Level], depth: int) -> None:
        """The levels from ``depth`` down left the open path (complete now): trim the rest of their children."""
        for d in range(depth, len(path)):
            self._walk(path[d], d, final=True)
        del path[depth:]

    def finish(self, entry: Any) -> Dropped | None:
        """The entry ended: trim its direct children (all complete) and say what was dropped (None: nothing)."""
        followed = self.entry
        if followed is not entry:
            if followed is not None:
                return None  # an entry nested in the one followed: capped as part of it
            path = None
        else:
            self.entry = None
            path, self.path = self.path, None
        if path is None:  # never walked: it ended within one feed
            if len(entry) <= self._smallest:
                return None
            self.nested = 0
            level = _Level(entry)
        else:
            level = path[0]
            self._close(path, 1)
        self._walk(level, 0, final=True)
        if not level.dropped and not self.nested:
            return None
        out = Dropped(nested=self.nested, nested_line=self.nested_line)
        for kind, n in level.dropped.items():
            out.kinds[kind] = (level.counts.get(kind, 0), n, level.first_line.get(kind))
        return out

    def _walk(self, level: _Level, depth: int, *, final: bool) -> Any:
        """Trim ``level.el``'s children from its marker; returns the last child (kept, not judged unless final)."""
        el = level.el
        c = level.marker
        if c is None:
            c = _first(el)
            if c is None:
                return None
        last = None
        if not final:
            try:
                last = el[-1]
            except IndexError:
                return None
        counts = level.counts
        caps = self._caps if depth == 0 else {}
        default = self._default
        remove = el.remove
        while c is not None and c is not last:
            nxt = c.getnext()
            kind = _tag_kind(c.tag)
            if kind not in counts and len(counts) >= _MAX_KINDS:
                kind = _OTHER
            n = counts.get(kind, 0)
            if n < (caps.get(kind, default) if isinstance(kind, str) else default):
                counts[kind] = n + 1
            else:
                line = c.sourceline
                if line is not None:
                    line += self.line_offset
                if depth == 0:
                    if kind not in level.dropped:
                        level.dropped[kind] = 0
                        level.first_line[kind] = line
                    level.dropped[kind] += 1
                else:
                    if not self.nested:
                        self.nested_line = line
                    self.nested += 1
                remove(c)
            c = nxt
        level.marker = last
        return last


def _first(el: Any) -> Any:
    for c in el:
        return c
    return None
