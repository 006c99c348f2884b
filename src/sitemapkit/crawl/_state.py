"""The crawl's state in one SQLite file (standard library ``sqlite3``): frontier, results, links, history.

Memory stays flat however large the site: the frontier (URLs to fetch), the seen set (every URL met, with what
was decided about it), the links between pages (for the referrers of broken links), the hreflang declarations
and the query-variant counters all live on disk. The crawler keeps only a bounded LRU of recently met URLs.

Tables::

    meta(key, value)              start URL, crawl time, run state ("running" / "finished")
    urls(id, url, depth, state, ...)
                                  one row per normalised URL; state 0 queued, 1 in flight, 2 fetched,
                                  3 not fetched (excluded before fetching: scope, robots, trap)
    link_rows(src, dst)           page ``src`` links to URL ``dst`` (ids), appended (a key sorted by dst cost a
                                  random B-tree page per link); indexed by dst once, for the report's referrers
                                  (schema 2; version 1's ``links(dst, src)`` is moved here when opened)
    hreflang(page, lang, href)    alternates declared by a page (clusters are built from them at the end)
    history(url, fingerprint, lastmod)
                                  what the previous crawl with this state file saw: a page whose fingerprint
                                  is unchanged keeps its previous lastmod
    query_variants(path, n)       how many query variants of one path were queued (trap protection)
    image_uses(img, page)         page ``page`` shows image URL ``img`` (ids; --images): what is checked, and
                                  the pages a broken image is reported with (see ``_images``)
    titles(page, title)           a sitemap page's <title> (the HTML sitemap's link text)

Resume: rows in flight when a crawl stopped go back to the queue; everything fetched stays fetched. A new
(non-resumed) crawl with an existing file first moves the previous crawl's fingerprints and lastmods into
``history`` (merged with what older crawls left there), so lastmod stays stable across crawls (see
``_fingerprint.honest_lastmod``); :meth:`CrawlState.changed_urls` lists the pages new or changed in this crawl.

Versions: the file records its schema version and kind in its header (``core/_store.py``) and the version of the
content fingerprint in ``meta``. A state whose fingerprints come from another version is refused, naming the file:
compared with this version's, every page would look changed and every lastmod would move at once.

One crawl at a time: opening a state file takes an exclusive lock on ``FILE.lock`` next to it (``flock``, which
the kernel releases when the process ends, even on kill -9) holding the owner's process id, so a second crawl with
the same file is refused with "state file FILE is in use by process N" before it touches the database.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from sitemapkit.core import ConfigurationError, SitemapkitError, StoreConnection, StoreSpec, open_store, sql_statements
from sitemapkit.crawl._fingerprint import FINGERPRINT_VERSION
from sitemapkit.crawl._lock import ProcessLock

__all__ = ["CrawlState", "ProcessLock", "QueuedUrl", "StateInUseError", "UrlRow"]

SCHEMA_VERSION = 2

QUEUED, IN_FLIGHT, FETCHED, SKIPPED = 0, 1, 2, 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS urls(
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    depth INTEGER NOT NULL,
    state INTEGER NOT NULL DEFAULT 0,
    status INTEGER,
    error TEXT,
    final_url TEXT,
    redirects TEXT,
    content_type TEXT,
    reason TEXT,
    detail TEXT,
    in_sitemap INTEGER NOT NULL DEFAULT 0,
    lastmod TEXT,
    fingerprint TEXT,
    images TEXT
);
CREATE INDEX IF NOT EXISTS urls_queue ON urls(depth, id) WHERE state = 0;
CREATE INDEX IF NOT EXISTS urls_sitemap ON urls(url) WHERE in_sitemap = 1;
CREATE TABLE IF NOT EXISTS link_rows(src INTEGER NOT NULL, dst INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hreflang(page INTEGER NOT NULL, lang TEXT NOT NULL, href TEXT NOT NULL,
                                    PRIMARY KEY(page, lang, href)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hreflang_href ON hreflang(href);
CREATE TABLE IF NOT EXISTS history(url TEXT PRIMARY KEY, fingerprint TEXT, lastmod TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS query_variants(path TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS image_uses(img INTEGER NOT NULL, page INTEGER NOT NULL,
                                      PRIMARY KEY(img, page)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS titles(page INTEGER PRIMARY KEY, title TEXT NOT NULL);
"""
_ADVICE = "use another --state file"


def _legacy(db: sqlite3.Connection) -> int | None:
    """Files written before the version was stamped in the header kept it in ``meta`` (only version 1 existed)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.DatabaseError:
        return None
    return int(row[0]) if row is not None and row[0] in ("1", "2") else None


def _links_to_rows(db: sqlite3.Connection) -> None:
    """Version 1 -> 2: the links table keyed by (dst, src) becomes appended rows (see the module's docstring)."""
    db.execute("CREATE TABLE IF NOT EXISTS link_rows(src INTEGER NOT NULL, dst INTEGER NOT NULL)")
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'links'").fetchone() is not None:
        db.execute("INSERT INTO link_rows(src, dst) SELECT src, dst FROM links ORDER BY src")
        db.execute("DROP TABLE links")
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")


_DST_INDEX = "CREATE INDEX IF NOT EXISTS link_rows_dst ON link_rows(dst, src)"
_NO_DST_INDEX = "DROP INDEX IF EXISTS link_rows_dst"

SPEC = StoreSpec(kind="a crawl state file", app_id=0x534B4353, version=SCHEMA_VERSION, schema=sql_statements(_SCHEMA),
                 legacy=_legacy, advice=_ADVICE, migrations={1: _links_to_rows})


class StateInUseError(SitemapkitError):
    """Another process holds the crawl state file (a crawl is running with it)."""


@dataclass(frozen=True, slots=True)
class QueuedUrl:
    """A URL taken from the frontier."""

    id: int
    url: str
    depth: int


@dataclass(frozen=True, slots=True)
class UrlRow:
    """One URL's result, as the report reads it."""

    id: int
    url: str
    depth: int
    state: int
    status: int | None
    error: str | None
    final_url: str | None
    redirects: tuple[tuple[str, int], ...]
    content_type: str | None
    reason: str | None
    detail: str | None
    in_sitemap: bool
    lastmod: str | None


class CrawlState:
    """The SQLite state file. ``path`` may be ``":memory:"`` for tests. Not thread-safe: one crawl, one loop."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._in_tx = False
        # The number of queued URLs, kept up to date by the methods that change it (None: count on next ask).
        # Progress displays ask several times a second, and counting a frontier of a million rows took tens of ms.
        self._queued: int | None = None
        self._lock: ProcessLock | None = None
        self._indexed = False  # link_rows_dst built in this process (see _dst_index)
        self._next_id: int | None = None  # the id add_urls gives next (None: ask the table)
        self._history: bool | None = None  # whether the history table has rows (None: not asked yet)
        if self.path not in ("", ":memory:"):
            self._lock = ProcessLock(self.path + ".lock")
            try:
                self._lock.acquire()
            except BlockingIOError:
                by = f"process {self._lock.owner}" if self._lock.owner else "another process"
                raise StateInUseError(f"state file {self.path} is in use by {by} (another crawl with the same "
                                      "--state); wait for it to finish or use another --state file") from None
            except OSError as exc:
                raise ConfigurationError(f"cannot use {self.path} as a crawl state file: "
                                         f"{exc.strerror or exc}") from None
        try:
            # Sorts (the report's excluded list, ORDER BY reason, url) spill to temporary files: in memory they grew
            # with the site (about 200 MB for a million excluded URLs).
            self.db: StoreConnection = open_store(self.path, SPEC, autocommit=True, threads=True)
            try:
                self._check_fingerprints()
            except BaseException:
                self.db.abandon()
                raise
        except BaseException:
            self._release()
            raise

    def _check_fingerprints(self) -> None:
        """Refuse a state whose fingerprints were computed another way (see docs/design/crawl.md, "Versions"):
        compared with this version's, every page would look changed once and every lastmod would move."""
        if self.get_meta("schema") is None:  # also kept in meta, where earlier sitemapkit versions look for it
            self.set_meta("schema", str(SCHEMA_VERSION))
        recorded = self.get_meta("fingerprint")
        if recorded is None and not self.has_crawl():
            self.set_meta("fingerprint", str(FINGERPRINT_VERSION))
            return
        found = recorded or "1"  # states written before the fingerprint version was recorded: version 1
        if found != str(FINGERPRINT_VERSION):
            raise ConfigurationError(
                f"{self.path}: its content fingerprints are of version {found}, this sitemapkit computes version "
                f"{FINGERPRINT_VERSION}: every page would look changed and its lastmod would move to this crawl's "
                "time. Use a new --state file (a page seen for the first time gets its Last-Modified, else no "
                "lastmod), or the sitemapkit that wrote this one")
        if recorded is None:
            self.set_meta("fingerprint", found)

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    # -- transactions -------------------------------------------------------------------------------------
    def begin(self) -> None:
        if not self._in_tx:
            self.db.execute("BEGIN")
            self._in_tx = True

    def commit(self) -> None:
        self._next_id = None  # read again after each transaction (one that failed may have taken its rows back)
        if self._in_tx:
            self._in_tx = False
            self.db.end()  # no COMMIT when SQLite rolled the transaction back itself (a full disk)

    def close(self) -> None:
        try:
            self.commit()
            self.db.close()
        except BaseException:
            self.db.abandon()
            raise
        finally:
            self._release()

    def __enter__(self) -> CrawlState:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is None:
            self.close()
            return
        try:  # keep what can be kept (a stopped crawl resumes from it); the error already raised is the one to tell
            self.close()
        except Exception:  # noqa: S110 - the first error is being raised
            pass

    # -- meta ---------------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # -- crawl lifecycle ------------------------------------------------------------------------------------
    def has_crawl(self) -> bool:
        return self.get_meta("start_url") is not None

    def start_new(self, start_url: str, crawl_time: str) -> None:
        """Begin a fresh crawl: remember the previous crawl's fingerprints and lastmods, then clear the rest."""
        self.begin()
        if self.has_crawl():
            self.db.execute(
                "INSERT OR REPLACE INTO history(url, fingerprint, lastmod) "
                "SELECT url, fingerprint, lastmod FROM urls WHERE state = 2 AND fingerprint IS NOT NULL"
            )
        self._history = None
        for table in ("urls", "link_rows", "hreflang", "query_variants", "image_uses", "titles"):
            self.db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
        self.db.execute(_NO_DST_INDEX)  # appended while crawling; the index comes with the report
        self._indexed = False
        self.db.execute("DELETE FROM meta WHERE key NOT IN ('schema', 'fingerprint')")
        self.set_meta("start_url", start_url)
        self.set_meta("crawl_time", crawl_time)
        self.set_meta("status", "running")
        self.commit()
        self._queued = None

    def prepare_resume(self) -> None:
        """Put the URLs that were in flight when the crawl stopped back into the queue."""
        self.begin()
        self.db.execute("UPDATE urls SET state = 0 WHERE state = 1")
        self.db.execute(_NO_DST_INDEX)
        self._indexed = False
        self.set_meta("status", "running")
        self.commit()
        self._queued = None

    # -- frontier -------------------------------------------------------------------------------------------
    def lookup(self, url: str) -> int | None:
        row = self.db.execute("SELECT id FROM urls WHERE url = ?", (url,)).fetchone()
        return None if row is None else int(row[0])

    def lookup_many(self, urls: Sequence[str]) -> dict[str, int]:
        """The ids of those of ``urls`` that have a row, by URL (one query per 500 URLs)."""
        found: dict[str, int] = {}
        for start in range(0, len(urls), 500):
            chunk = urls[start:start + 500]
            found.update(self.db.execute(
                f"SELECT url, id FROM urls WHERE url IN ({','.join('?' * len(chunk))})", chunk  # noqa: S608
            ).fetchall())
        return found

    def add_url(self, url: str, depth: int, *, state: int = QUEUED, reason: str | None = None,
                detail: str | None = None) -> int:
        """Insert a URL met for the first time; returns its id."""
        cur = self.db.execute(
            "INSERT INTO urls(url, depth, state, reason, detail) VALUES (?, ?, ?, ?, ?)",
            (url, depth, state, reason, detail),
        )
        assert cur.lastrowid is not None
        if state == QUEUED and self._queued is not None:
            self._queued += 1
        self._next_id = cur.lastrowid + 1
        return cur.lastrowid

    def add_urls(self, rows: Sequence[tuple[str, int, int, str | None, str | None]]) -> list[int]:
        """Insert URLs met for the first time, ``(url, depth, state, reason, detail)`` each, in one statement;
        returns their ids. They are the ids :meth:`add_url` one at a time gives (one more than the largest so far:
        SQLite's own choice for a table whose rowids were never at the maximum)."""
        if self._next_id is None:
            self._next_id = int(self.db.execute("SELECT coalesce(max(id), 0) + 1 FROM urls").fetchone()[0])
        first = self._next_id
        self.db.executemany("INSERT INTO urls(id, url, depth, state, reason, detail) VALUES (?, ?, ?, ?, ?, ?)",
                            [(first + k, *row) for k, row in enumerate(rows)])
        self._next_id = first + len(rows)
        if self._queued is not None:
            self._queued += sum(1 for r in rows if r[2] == QUEUED)
        return list(range(first, first + len(rows)))

    def add_links(self, src: int, dsts: Sequence[int]) -> None:
        """Page ``src`` links to ``dsts`` (a pair met twice, e.g. after a resume, counts once as a referrer)."""
        self.db.executemany("INSERT INTO link_rows(src, dst) VALUES (?, ?)", [(src, d) for d in dsts])

    def bump_query_variants(self, path: str) -> int:
        """Count one more query variant of ``path``; returns the new count."""
        row = self.db.execute(
            "INSERT INTO query_variants(path, n) VALUES (?, 1) "
            "ON CONFLICT(path) DO UPDATE SET n = n + 1 RETURNING n",
            (path,),
        ).fetchone()
        return int(row[0])

    def claim(self, limit: int) -> list[QueuedUrl]:
        """Take up to ``limit`` queued URLs, shallowest first (breadth-first), and mark them in flight."""
        rows = self.db.execute(
            "SELECT id, url, depth FROM urls WHERE state = 0 ORDER BY depth, id LIMIT ?", (limit,)
        ).fetchall()
        if rows:
            self.db.executemany("UPDATE urls SET state = 1 WHERE id = ?", [(r[0],) for r in rows])
            if self._queued is not None:
                self._queued -= len(rows)
        return [QueuedUrl(int(r[0]), str(r[1]), int(r[2])) for r in rows]

    def claim_one(self, url_id: int) -> bool:
        """Claim a specific URL if it is still queued (a redirect landed on it); True when claimed."""
        cur = self.db.execute("UPDATE urls SET state = 1 WHERE id = ? AND state = 0", (url_id,))
        if self._queued is not None:
            self._queued -= cur.rowcount
        return cur.rowcount == 1

    def unclaim(self, ids: Sequence[int]) -> None:
        cur = self.db.executemany("UPDATE urls SET state = 0 WHERE id = ? AND state = 1", [(i,) for i in ids])
        if self._queued is not None:
            self._queued += cur.rowcount

    def queued_count(self) -> int:
        """The number of queued URLs, counted in the table."""
        self._queued = int(self.db.execute("SELECT count(*) FROM urls WHERE state = 0").fetchone()[0])
        return self._queued

    def queued_tracked(self) -> int:
        """:meth:`queued_count` without counting: kept up to date by the methods that queue and claim, so equal
        to it as long as results are recorded only for claimed URLs (as the crawler does). For progress displays."""
        return self.queued_count() if self._queued is None else self._queued

    def fetched_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM urls WHERE state = 2").fetchone()[0])

    # -- results --------------------------------------------------------------------------------------------
    def record(
        self,
        url_id: int,
        *,
        status: int | None,
        error: str | None = None,
        final_url: str | None = None,
        redirects: Sequence[tuple[str, int]] = (),
        content_type: str | None = None,
        reason: str | None = None,
        detail: str | None = None,
        in_sitemap: bool = False,
        lastmod: str | None = None,
        fingerprint: str | None = None,
        images: Sequence[str] = (),
        state: int = FETCHED,
    ) -> None:
        self.db.execute(
            "UPDATE urls SET state = ?, status = ?, error = ?, final_url = ?, redirects = ?, content_type = ?, "
            "reason = ?, detail = ?, in_sitemap = ?, lastmod = ?, fingerprint = ?, images = ? WHERE id = ?",
            (state, status, error, final_url, json.dumps(list(redirects)) if redirects else None, content_type,
             reason, detail, int(in_sitemap), lastmod, fingerprint, json.dumps(list(images)) if images else None,
             url_id),
        )

    def add_hreflang(self, page: int, pairs: Sequence[tuple[str, str]]) -> None:
        self.db.executemany("INSERT OR IGNORE INTO hreflang(page, lang, href) VALUES (?, ?, ?)",
                            [(page, lang, href) for lang, href in pairs])

    def previous(self, url: str) -> tuple[str | None, str | None]:
        """(fingerprint, lastmod) the previous crawl recorded for ``url``."""
        row = self.db.execute("SELECT fingerprint, lastmod FROM history WHERE url = ?", (url,)).fetchone()
        return (None, None) if row is None else (row[0], row[1])

    def previous_page(self, url: str) -> tuple[str | None, str | None] | None:
        """(fingerprint, lastmod) an earlier crawl recorded for ``url``; None when no crawl with this state file
        has fetched it (first sight)."""
        if self._history is None:  # only start_new writes the history: a first crawl asks the table once
            self._history = self.db.execute("SELECT 1 FROM history LIMIT 1").fetchone() is not None
        if not self._history:
            return None
        row = self.db.execute("SELECT fingerprint, lastmod FROM history WHERE url = ?", (url,)).fetchone()
        return None if row is None else (row[0], row[1])

    def changed_urls(self) -> Iterator[str]:
        """The sitemap's URLs (as crawled) whose content is new or changed since the earlier crawls with this
        state file: what a submission of this run's changes (IndexNow) sends."""
        cur = self.db.execute(
            "SELECT u.url FROM urls u LEFT JOIN history h ON h.url = u.url "
            "WHERE u.in_sitemap = 1 AND (h.url IS NULL OR h.fingerprint IS NOT u.fingerprint) ORDER BY u.url"
        )
        for r in cur:
            yield str(r[0])

    # -- reading results (streaming cursors) ------------------------------------------------------------------
    _ROW_COLUMNS = ("id, url, depth, state, status, error, final_url, redirects, content_type, reason, detail, "
                    "in_sitemap, lastmod")

    @staticmethod
    def _row(r: Sequence[object]) -> UrlRow:
        redirects = json.loads(str(r[7])) if r[7] else []
        return UrlRow(
            id=int(r[0]), url=str(r[1]), depth=int(r[2]), state=int(r[3]),  # type: ignore[call-overload]
            status=None if r[4] is None else int(r[4]),  # type: ignore[call-overload]
            error=None if r[5] is None else str(r[5]),
            final_url=None if r[6] is None else str(r[6]),
            redirects=tuple((str(u), int(s)) for u, s in redirects),
            content_type=None if r[8] is None else str(r[8]),
            reason=None if r[9] is None else str(r[9]),
            detail=None if r[10] is None else str(r[10]),
            in_sitemap=bool(r[11]),
            lastmod=None if r[12] is None else str(r[12]),
        )

    def rows(self, where: str = "1", params: Sequence[object] = (), order: str = "url") -> Iterator[UrlRow]:
        """Stream URL rows matching a fixed SQL condition (callers pass constants, values go in ``params``)."""
        cur = self.db.execute(
            f"SELECT {self._ROW_COLUMNS} FROM urls WHERE {where} ORDER BY {order}", tuple(params)  # noqa: S608
        )
        for r in cur:
            yield self._row(r)

    def select(self, columns: str, where: str = "1", order: str = "url") -> Iterator[tuple[Any, ...]]:
        """Stream raw ``columns`` of the URL rows matching a fixed SQL condition (callers pass constants): for
        reports that need a few columns of many rows, without a :class:`UrlRow` each."""
        yield from self.db.execute(f"SELECT {columns} FROM urls WHERE {where} ORDER BY {order}")  # noqa: S608

    def count(self, where: str = "1", params: Sequence[object] = ()) -> int:
        return int(self.db.execute(f"SELECT count(*) FROM urls WHERE {where}", tuple(params)).fetchone()[0])  # noqa: S608

    def counts(self, *wheres: str) -> list[int]:
        """:meth:`count` of each of the fixed SQL conditions ``wheres``, in one pass over the table."""
        sums = ", ".join(f"coalesce(sum(CASE WHEN {w} THEN 1 ELSE 0 END), 0)" for w in wheres)
        return [int(n) for n in self.db.execute(f"SELECT {sums} FROM urls").fetchone()]  # noqa: S608

    def group_count(self, column: str, where: str = "1") -> list[tuple[object, int]]:
        cur = self.db.execute(
            f"SELECT {column}, count(*) FROM urls WHERE {where} GROUP BY {column} ORDER BY {column}"  # noqa: S608
        )
        return [(r[0], int(r[1])) for r in cur]

    def _dst_index(self) -> None:
        if not self._indexed:
            self.db.execute(_DST_INDEX)  # one sort of all links, instead of a random insert per link
            self._indexed = True

    def referrers(self, url_id: int, limit: int) -> list[str]:
        self._dst_index()
        cur = self.db.execute(
            "SELECT u.url FROM (SELECT DISTINCT src FROM link_rows WHERE dst = ?) l JOIN urls u ON u.id = l.src "
            "ORDER BY u.url LIMIT ?",
            (url_id, limit),
        )
        return [str(r[0]) for r in cur]

    def referrer_count(self, url_id: int) -> int:
        self._dst_index()
        return int(self.db.execute("SELECT count(DISTINCT src) FROM link_rows WHERE dst = ?",
                                   (url_id,)).fetchone()[0])

    def sitemap_pages(self) -> Iterator[tuple[int, str, str | None, str | None]]:
        """(id, url, lastmod, images JSON) of every page that goes into the sitemap, by URL."""
        cur = self.db.execute("SELECT id, url, lastmod, images FROM urls WHERE in_sitemap = 1 ORDER BY url")
        for r in cur:
            yield int(r[0]), str(r[1]), r[2], r[3]

    def confirmed_alternates(self, page: int, url: str) -> list[tuple[str, str]]:
        """The hreflang alternates of ``page`` that are confirmed: the page itself, or an indexable page that
        declares ``url`` back (reciprocal, as Google requires)."""
        cur = self.db.execute(
            "SELECT h.lang, h.href FROM hreflang h WHERE h.page = ? AND (h.href = ? OR EXISTS ("
            " SELECT 1 FROM urls t JOIN hreflang back ON back.page = t.id"
            " WHERE t.url = h.href AND t.in_sitemap = 1 AND back.href = ?)) ORDER BY h.lang, h.href",
            (page, url, url),
        )
        return [(str(r[0]), str(r[1])) for r in cur]
