"""The audit's working set in SQLite (memory stays flat however many URLs the sitemaps list): every sitemap
listing with its file and line, the live check of each URL, the hreflang alternates seen, and the findings.

Without ``--state`` the file lives in a scratch folder ``sitemapkit-audit-PID-*`` of the temporary directory, which
the next audit removes if a killed run left it (``core/_scratch.py``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sitemapkit.audit._findings import CATEGORIES, Finding
from sitemapkit.core import ScratchDir, StoreConnection, StoreSpec, open_store, sql_statements

__all__ = ["AuditStore", "Listing", "PageRecord"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS listings(id INTEGER PRIMARY KEY, url TEXT NOT NULL, norm TEXT NOT NULL,
    sitemap TEXT NOT NULL, line INTEGER, lastmod TEXT);
CREATE INDEX IF NOT EXISTS listings_url ON listings(url);
CREATE INDEX IF NOT EXISTS listings_norm ON listings(norm);
CREATE TABLE IF NOT EXISTS pages(url TEXT PRIMARY KEY, status INTEGER, ok INTEGER NOT NULL,
    indexable INTEGER NOT NULL, summary TEXT NOT NULL, target INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS alternates(page TEXT NOT NULL, lang TEXT NOT NULL, href TEXT NOT NULL,
    PRIMARY KEY(page, lang, href)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS findings(id INTEGER PRIMARY KEY, url TEXT NOT NULL, category TEXT NOT NULL,
    sitemap TEXT, line INTEGER, evidence TEXT NOT NULL);
"""


def _legacy(db: sqlite3.Connection) -> int | None:
    """An audit state written before versions were stamped: it has the listings table."""
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'listings'").fetchone()
    return None if row is None else 1


SPEC = StoreSpec(kind="an audit state file", app_id=0x534B4155, version=1, schema=sql_statements(_SCHEMA),
                 legacy=_legacy, advice="use another --state file")


@dataclass(frozen=True, slots=True)
class Listing:
    """One ``<url>`` of one sitemap: where it is listed (first listing when several)."""

    url: str
    norm: str
    sitemap: str
    line: int | None
    lastmod: str | None


@dataclass(frozen=True, slots=True)
class PageRecord:
    """The live check of one URL as kept: its status (None: no answer), whether it answered at all without a
    redirect and with a status below 400 (``ok``), whether it is an indexable page, and a one-line summary."""

    url: str
    status: int | None
    ok: bool
    indexable: bool
    summary: str


class AuditStore:
    """An SQLite file holding the audit's working set: ``path``, or a temporary file removed by :meth:`close`
    (``":memory:"`` for small jobs and tests)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self._scratch: ScratchDir | None = None
        if path is None:
            self._scratch = ScratchDir("audit")
            path = self._scratch.path("audit.sqlite")
        try:
            temporary = self._scratch is not None
            self.db: StoreConnection = open_store(path, SPEC, journal="off" if temporary else "wal",
                                                  synchronous="off", temp_files=False, exclusive=temporary)
            try:
                for table in ("listings", "pages", "alternates", "findings"):  # a fresh working set each run
                    self.db.execute(f"DELETE FROM {table}")  # noqa: S608
            except BaseException:
                self.db.abandon()
                raise
        except BaseException:
            self._remove_scratch()
            raise

    def _remove_scratch(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def close(self) -> None:
        try:
            self.db.commit()
            self.db.close()
        except BaseException:
            self.db.abandon()
            raise
        finally:
            self._remove_scratch()

    def __enter__(self) -> AuditStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- listings -----------------------------------------------------------------------------------------
    def add_listings(self, rows: Iterable[Listing]) -> None:
        self.db.executemany("INSERT INTO listings(url, norm, sitemap, line, lastmod) VALUES (?, ?, ?, ?, ?)",
                            [(r.url, r.norm, r.sitemap, r.line, r.lastmod) for r in rows])

    def listing_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM listings").fetchone()[0])

    def url_count(self) -> int:
        return int(self.db.execute("SELECT count(DISTINCT url) FROM listings").fetchone()[0])

    def listings(self, where: str = "1", params: tuple[object, ...] = ()) -> Iterator[Listing]:
        """Every listing matching a fixed condition (values go in ``params``), in file and line order."""
        cur = self.db.execute(
            f"SELECT url, norm, sitemap, line, lastmod FROM listings WHERE {where} ORDER BY id", params  # noqa: S608
        )
        for r in cur:
            yield Listing(str(r[0]), str(r[1]), str(r[2]), r[3], r[4])

    def first_listings(self) -> Iterator[Listing]:
        """The first listing of each distinct URL, in document order."""
        cur = self.db.execute(
            "SELECT url, norm, sitemap, line, lastmod FROM listings WHERE id IN "
            "(SELECT min(id) FROM listings GROUP BY url) ORDER BY id"
        )
        for r in cur:
            yield Listing(str(r[0]), str(r[1]), str(r[2]), r[3], r[4])

    def first_listing(self, url: str) -> Listing | None:
        r = self.db.execute("SELECT url, norm, sitemap, line, lastmod FROM listings WHERE url = ? ORDER BY id "
                            "LIMIT 1", (url,)).fetchone()
        return None if r is None else Listing(str(r[0]), str(r[1]), str(r[2]), r[3], r[4])

    def is_listed_norm(self, norm: str) -> bool:
        return self.db.execute("SELECT 1 FROM listings WHERE norm = ? LIMIT 1", (norm,)).fetchone() is not None

    def duplicated_urls(self) -> Iterator[str]:
        for r in self.db.execute("SELECT url FROM listings GROUP BY url HAVING count(*) > 1 ORDER BY min(id)"):
            yield str(r[0])

    def sitemap_lastmods(self) -> Iterator[tuple[str, int, str | None, int]]:
        """Per sitemap file: (sitemap, dated URLs, most common lastmod, how many share it)."""
        files = [str(r[0]) for r in self.db.execute("SELECT DISTINCT sitemap FROM listings ORDER BY sitemap")]
        for sitemap in files:
            total = int(self.db.execute("SELECT count(*) FROM listings WHERE sitemap = ? AND lastmod IS NOT NULL",
                                        (sitemap,)).fetchone()[0])
            top = self.db.execute("SELECT lastmod, count(*) AS n FROM listings WHERE sitemap = ? AND lastmod IS NOT "
                                  "NULL GROUP BY lastmod ORDER BY n DESC, lastmod LIMIT 1", (sitemap,)).fetchone()
            yield sitemap, total, None if top is None else str(top[0]), 0 if top is None else int(top[1])

    # -- pages ----------------------------------------------------------------------------------------------
    def put_page(self, rec: PageRecord, alternates: Iterable[tuple[str, str]] = (), *, target: bool = False) -> None:
        """Keep a live check; ``target``: the URL was checked as a sitemap URL (not only as an hreflang target)."""
        self.db.execute("INSERT OR REPLACE INTO pages(url, status, ok, indexable, summary, target) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (rec.url, rec.status, int(rec.ok), int(rec.indexable), rec.summary, int(target)))
        self.db.executemany("INSERT OR IGNORE INTO alternates(page, lang, href) VALUES (?, ?, ?)",
                            [(rec.url, lang, href) for lang, href in alternates])

    def page(self, url: str) -> PageRecord | None:
        r = self.db.execute("SELECT url, status, ok, indexable, summary FROM pages WHERE url = ?", (url,)).fetchone()
        return None if r is None else PageRecord(str(r[0]), r[1], bool(r[2]), bool(r[3]), str(r[4]))

    def indexable_pages(self) -> Iterator[str]:
        """Indexable pages checked as sitemap URLs."""
        for r in self.db.execute("SELECT url FROM pages WHERE indexable = 1 AND target = 1 ORDER BY url"):
            yield str(r[0])

    def alternates_of(self, page: str) -> list[tuple[str, str]]:
        cur = self.db.execute("SELECT lang, href FROM alternates WHERE page = ? ORDER BY lang, href", (page,))
        return [(str(r[0]), str(r[1])) for r in cur]

    def pages_with_alternates(self) -> list[str]:
        return [str(r[0]) for r in self.db.execute("SELECT DISTINCT page FROM alternates ORDER BY page")]

    # -- findings -------------------------------------------------------------------------------------------
    def add(self, finding: Finding) -> None:
        self.db.execute("INSERT INTO findings(url, category, sitemap, line, evidence) VALUES (?, ?, ?, ?, ?)",
                        (finding.url, finding.category, finding.sitemap, finding.line, finding.evidence))

    def findings(self, category: str | None = None, limit: int | None = None) -> Iterator[Finding]:
        where, params = ("category = ?", (category,)) if category else ("1", ())
        order = "instr(?, ',' || category || ','), sitemap IS NULL, sitemap, line, url, id"
        sql = f"SELECT url, category, sitemap, line, evidence FROM findings WHERE {where} ORDER BY {order}"  # noqa: S608
        params = (*params, "," + ",".join(CATEGORIES) + ",")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        for r in self.db.execute(sql, params):
            yield Finding(str(r[0]), str(r[1]), r[2], r[3], str(r[4]))

    def counts(self) -> dict[str, int]:
        return {str(r[0]): int(r[1]) for r in self.db.execute(
            "SELECT category, count(*) FROM findings GROUP BY category")}

    def distinct_urls_with(self, category: str) -> int:
        return int(self.db.execute("SELECT count(DISTINCT url) FROM findings WHERE category = ?",
                                   (category,)).fetchone()[0])
