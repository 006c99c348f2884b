"""hreflang reciprocity across every file of one validation run, in bounded memory (an SQLite scratch file).

Every page URL seen is recorded (as a 64-bit hash), and every alternate link from a page to another URL (with the
text kept for the report). At the end one query finds links A -> B where B is a page of the set whose own
alternates do not point back to A (RULES.md 24: "If two pages don't both point to each other, the tags will be
ignored"). Links to URLs outside the set cannot be verified and are not reported.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType

__all__ = ["HreflangStore", "NonReciprocal"]

_BATCH = 5000


@dataclass(frozen=True, slots=True)
class NonReciprocal:
    """A link from ``page`` to ``target`` (as ``hreflang``) that ``target`` does not return."""

    source: str
    line: int | None
    page: str
    target: str
    hreflang: str


class HreflangStore:
    """Collects pages and links; ``non_reciprocal()`` yields the one-way links. A context manager that deletes
    its scratch file on exit."""

    def __init__(self, directory: str | None = None) -> None:
        fd, self._path = tempfile.mkstemp(prefix="sitemapkit-hreflang-", suffix=".sqlite", dir=directory)
        os.close(fd)
        self._db = sqlite3.connect(self._path)
        self._db.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-8192; PRAGMA temp_store=FILE;"
            "CREATE TABLE pages (h INTEGER PRIMARY KEY) WITHOUT ROWID;"
            "CREATE TABLE links (src_h INTEGER, dst_h INTEGER, src TEXT, dst TEXT, lang TEXT, source TEXT,"
            " line INTEGER);"
        )
        self._pages: list[tuple[int]] = []
        self._links: list[tuple[int, int, str, str, str, str, int | None]] = []
        self.link_count = 0

    def add_page(self, loc: str) -> None:
        """Record a page of the set that has no alternates of its own (pages with alternates are known from
        their links)."""
        self._pages.append((hash(loc),))
        if len(self._pages) >= _BATCH:
            self._flush()

    def add_link(self, page: str, target: str, hreflang: str, source: str, line: int | None) -> None:
        self._links.append((hash(page), hash(target), page, target, hreflang, source, line))
        self.link_count += 1
        if len(self._links) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        with self._db:
            if self._pages:
                self._db.executemany("INSERT OR IGNORE INTO pages VALUES (?)", self._pages)
                self._pages.clear()
            if self._links:
                self._db.executemany("INSERT INTO links VALUES (?,?,?,?,?,?,?)", self._links)
                self._links.clear()

    def non_reciprocal(self) -> Iterator[NonReciprocal]:
        self._flush()
        if not self.link_count:
            return
        self._db.execute("CREATE INDEX IF NOT EXISTS links_pair ON links (src_h, dst_h)")
        rows = self._db.execute(
            "SELECT l.source, l.line, l.src, l.dst, l.lang FROM links l"
            " WHERE (EXISTS (SELECT 1 FROM pages p WHERE p.h = l.dst_h)"
            "        OR EXISTS (SELECT 1 FROM links s WHERE s.src_h = l.dst_h))"
            " AND NOT EXISTS (SELECT 1 FROM links r WHERE r.src_h = l.dst_h AND r.dst_h = l.src_h)"
            " ORDER BY l.rowid"
        )
        for source, line, src, dst, lang in rows:
            yield NonReciprocal(source, line, src, dst, lang)

    def close(self) -> None:
        self._db.close()
        try:
            os.unlink(self._path)
        except FileNotFoundError:
            pass

    def __enter__(self) -> HreflangStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
