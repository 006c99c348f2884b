"""hreflang reciprocity across every file of one validation run, in bounded memory.

Every page URL seen is recorded as a 64-bit hash (in memory up to a bound, then in an SQLite scratch file).
Alternate links A -> B wait in a bounded in-memory table until their return link B -> A arrives; the pair is
then settled without touching the database (in real sitemaps the pages of one hreflang cluster sit close
together). When the table is full, waiting links and settled pairs move to the database; at the end one query
finds links A -> B where B is a page of the set whose own alternates do not point back to A (RULES.md 24: "If
two pages don't both point to each other, the tags will be ignored"). A link spilled before its return link
arrived is still settled by the query, because the return link is spilled too. Links to URLs outside the set
cannot be verified and are not reported.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import TracebackType

from sitemapkit.core import StoreSpec, open_store

__all__ = ["HreflangStore", "NonReciprocal"]

_SPEC = StoreSpec(kind="an hreflang scratch file", app_id=0x534B484C, version=1, advice="remove it")

#: Page hashes kept in memory before they move to the scratch database (~8 MB).
MAX_PAGES_IN_MEMORY = 100_000
#: Links waiting for their return link (plus settled pairs) in memory before they are spilled to the database
#: (~10 MB; a cluster of n pages waits for n*(n-1)/2 links at most, and its pages sit close together).
MAX_PENDING_LINKS = 25_000
#: A settled pair is one 128-bit int (~75 bytes with its set slot) where a waiting link also keeps five strings
#: (~400 bytes): settled pairs count for 1/SETTLED_PER_LINK of a link against the budget.
SETTLED_PER_LINK = 5


_MASK64 = (1 << 64) - 1


def _signed(u: int) -> int:
    """An unsigned 64-bit hash back as the signed value ``hash`` gave (what the pages and SQLite hold)."""
    return u - (1 << 64) if u >> 63 else u


@dataclass(frozen=True, slots=True)
class NonReciprocal:
    """A link from ``page`` to ``target`` (as ``hreflang``) that ``target`` does not return."""

    source: str
    line: int | None
    page: str
    target: str
    hreflang: str


class HreflangStore:
    """Collects pages and links; ``non_reciprocal()`` yields the one-way links. Memory is bounded: past
    ``MAX_PAGES_IN_MEMORY`` page hashes or ``MAX_PENDING_LINKS`` waiting links, state moves to an SQLite scratch
    file (created only then). A context manager that deletes its scratch file on exit."""

    def __init__(self, directory: str | None = None) -> None:
        self._directory = directory
        self._path: str | None = None
        self._db: sqlite3.Connection | None = None
        self._pages: set[int] = set()
        # Keys are the two 64-bit hashes packed into one int (_pair): ~40 bytes where a tuple of two ints took ~120.
        self._pending: dict[int, tuple[str, str, str, str, int | None]] = {}  # link (page, target) -> its details
        self._settled: set[int] = set()  # pairs (low hash, high hash) known to be reciprocal
        self.link_count = 0
        self.spilled = 0
        self.pages_spilled = False

    def _database(self) -> sqlite3.Connection:
        if self._db is None:
            fd, self._path = tempfile.mkstemp(prefix="sitemapkit-hreflang-", suffix=".sqlite", dir=self._directory)
            os.close(fd)
            self._db = open_store(self._path, _SPEC, journal="off", synchronous="off", exclusive=True)
            self._db.executescript(
                "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-8192; PRAGMA temp_store=FILE;"
                "CREATE TABLE pages (h INTEGER PRIMARY KEY) WITHOUT ROWID;"
                "CREATE TABLE links (src_h INTEGER, dst_h INTEGER, src TEXT, dst TEXT, lang TEXT, source TEXT,"
                " line INTEGER);"
                "CREATE TABLE settled (a INTEGER, b INTEGER);"
            )
        return self._db

    def add_page(self, loc: str) -> None:
        """Record a page of the set (every page, with alternates or not)."""
        pages = self._pages
        pages.add(hash(loc))
        if len(pages) >= MAX_PAGES_IN_MEMORY:
            self._spill_pages()

    def add_link(self, page: str, target: str, hreflang: str, source: str, line: int | None) -> None:
        """Record ``page`` listing ``target`` (a different URL) as ``hreflang``."""
        self.add_links(page, [(target, hreflang, line)], source)

    def add_links(self, page: str, links: list[tuple[str, str, int | None]], source: str) -> None:
        """Record the alternates ``(target, hreflang, line)`` of one page (targets other than the page)."""
        self.add_link_rows([(page, target, hreflang, line) for target, hreflang, line in links], source)

    def fits(self, pages: int, links: int) -> bool:
        """Whether ``pages`` more pages and ``links`` more links surely stay in memory: adding them one by one
        (each page's links together) would not spill, so :meth:`add_pages` and :meth:`add_link_rows` may take
        them all at once. (A link settles a waiting one or waits itself, so the budget grows by one per link at
        most.)"""
        return (len(self._pages) + pages < MAX_PAGES_IN_MEMORY
                and len(self._pending) + len(self._settled) // SETTLED_PER_LINK + links < MAX_PENDING_LINKS)

    def add_pages(self, locs: Iterable[str]) -> None:
        """:meth:`add_page` of each of ``locs``."""
        pages = self._pages
        pages.update(map(hash, locs))
        if len(pages) >= MAX_PAGES_IN_MEMORY:
            self._spill_pages()

    def add_link_rows(self, rows: Iterable[tuple[str, str, str, int | None]], source: str) -> None:
        """Record links ``(page, target, hreflang, line)`` in the order given, a page's links together; a row
        whose target is its page is no link (skipped). Memory is checked once, at the end: rows of many pages
        only when :meth:`fits` said so."""
        pending = self._pending
        settled = self._settled
        last: str | None = None
        hp = up = 0
        count = 0
        for page, target, hreflang, line in rows:
            if page is not last:
                last = page
                hp = hash(page)
                up = hp & _MASK64  # unsigned, for packing; comparisons stay on the signed hashes (as SQLite's)
            if target == page:
                continue
            count += 1
            ht = hash(target)
            ut = ht & _MASK64
            # A link and its return link are never both waiting, and a settled pair has neither waiting.
            if pending.pop((ut << 64) | up, None) is not None:
                settled.add((up << 64) | ut if hp < ht else (ut << 64) | up)  # the return link was waiting
                continue
            key = (up << 64) | ut
            if key in pending or (key if hp < ht else (ut << 64) | up) in settled:
                continue  # the same link again (e.g. also as x-default), or a pair already settled
            pending[key] = (page, target, hreflang, source, line)
        self.link_count += count
        if len(pending) + len(settled) // SETTLED_PER_LINK >= MAX_PENDING_LINKS:
            self._spill()

    def _spill_pages(self) -> None:
        if self._pages:
            db = self._database()
            with db:
                db.executemany("INSERT OR IGNORE INTO pages VALUES (?)", ((h,) for h in self._pages))
            self._pages.clear()
            self.pages_spilled = True

    def _spill(self) -> None:
        db = self._database()
        with db:
            if self._pending:
                # rows made one at a time (no list of them all), hashes back to SQLite's signed 64-bit integers
                db.executemany("INSERT INTO links VALUES (?,?,?,?,?,?,?)",
                               ((_signed(key >> 64), _signed(key & _MASK64), *info)
                                for key, info in self._pending.items()))
                self.spilled += len(self._pending)
                self._pending.clear()
            if self._settled:
                db.executemany("INSERT INTO settled VALUES (?,?)",
                               ((_signed(key >> 64), _signed(key & _MASK64)) for key in self._settled))
                self._settled.clear()

    def non_reciprocal(self) -> Iterator[NonReciprocal]:
        """The one-way links to pages of the set."""
        if not self.spilled and not self.pages_spilled:
            # Everything fit in memory: waiting links are the one-way ones.
            pages = self._pages
            for key, (page, target, lang, source, line) in self._pending.items():
                if _signed(key & _MASK64) in pages:
                    yield NonReciprocal(source, line, page, target, lang)
            return
        self._spill_pages()
        self._spill()
        db = self._database()
        db.execute("CREATE INDEX IF NOT EXISTS links_pair ON links (src_h, dst_h)")
        db.execute("CREATE INDEX IF NOT EXISTS settled_pair ON settled (a, b)")
        rows = db.execute(
            "SELECT l.source, l.line, l.src, l.dst, l.lang FROM links l"
            " WHERE EXISTS (SELECT 1 FROM pages p WHERE p.h = l.dst_h)"
            " AND NOT EXISTS (SELECT 1 FROM links r WHERE r.src_h = l.dst_h AND r.dst_h = l.src_h)"
            " AND NOT EXISTS (SELECT 1 FROM settled s WHERE s.a = min(l.src_h, l.dst_h)"
            "                 AND s.b = max(l.src_h, l.dst_h))"
            " ORDER BY l.rowid"
        )
        for source, line, src, dst, lang in rows:
            yield NonReciprocal(source, line, src, dst, lang)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._path is not None:
            try:
                os.unlink(self._path)
            except FileNotFoundError:
                pass
            self._path = None

    def __enter__(self) -> HreflangStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
