"""The submission state: which URLs were submitted, with a fingerprint of each entry, and the engines' answers.

One SQLite file (``--state FILE``). A run loads the entries it read into a temporary table and compares them with
what was submitted before, in SQL, so memory stays flat however many URLs there are:

- *added*: in this run, never submitted; *changed*: submitted with another fingerprint; *removed*: submitted
  before, not in this run (IndexNow asks for those too: the engine then sees the 404 or 410);
- after a successful request its URLs are recorded (added and changed ones with their new fingerprint; removed
  ones are forgotten); URLs of a failed request stay as they were, so the next run sends them again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Self

from sitemapkit.core import ConfigurationError, StoreConnection, StoreSpec, UrlEntry, entry_to_dict, open_store
from sitemapkit.submit._results import SubmitResult

__all__ = ["ADDED", "CHANGED", "REMOVED", "SubmitState", "fingerprint"]

ADDED, CHANGED, REMOVED = "added", "changed", "removed"
_SCHEMA = 1
_BATCH = 5_000


def _legacy(db: sqlite3.Connection) -> int | None:
    """A state written before versions were stamped in the header kept its version in ``meta``."""
    try:
        row = db.execute("SELECT value FROM meta WHERE name = 'submit_schema'").fetchone()
    except sqlite3.DatabaseError:
        return None
    return 1 if row is not None and row[0] == "1" else None


SPEC = StoreSpec(
    kind="a sitemapkit submit state file", app_id=0x534B5355, version=_SCHEMA, legacy=_legacy,
    advice="give submit its own --state file",
    schema=("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            f"INSERT OR IGNORE INTO meta VALUES ('submit_schema', '{_SCHEMA}')",  # noqa: S608 - a constant
            "CREATE TABLE IF NOT EXISTS submitted (url TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, "
            "submitted_at REAL NOT NULL, status INTEGER)",
            "CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, at REAL NOT NULL, channel TEXT, "
            "target TEXT, subject TEXT, status INTEGER, ok INTEGER, urls INTEGER, message TEXT)"))


def fingerprint(entry: UrlEntry) -> str:
    """A short stable hash of everything an entry says (loc, lastmod, changefreq, priority, extensions)."""
    text = json.dumps(entry_to_dict(entry), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class SubmitState:
    """A submission state file; use as a context manager. :meth:`add` the entries of this run, then
    :meth:`changes`, then :meth:`mark_done` for each request that succeeded and :meth:`record_answer` for every
    answer; each of those is committed at once."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise ConfigurationError(f"--state {self.path}: is a directory, not a state file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db: StoreConnection = open_store(self.path, SPEC, label=f"--state {self.path}", synchronous="full",
                                               temp_files=False)
        try:
            self._db.execute("CREATE TEMP TABLE current (url TEXT PRIMARY KEY, fingerprint TEXT NOT NULL)")
            self._db.execute("CREATE TEMP TABLE done (url TEXT PRIMARY KEY)")
            self._db.commit()
        except BaseException:
            self._db.abandon()
            raise
        self._pending: list[tuple[str, str]] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.commit()
        self.close()

    def add(self, url: str, fp: str) -> None:
        """One entry of this run (a URL seen twice keeps its last fingerprint)."""
        self._pending.append((url, fp))
        if len(self._pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._db.executemany("INSERT OR REPLACE INTO current VALUES (?, ?)", self._pending)
            self._pending.clear()

    def counts(self) -> dict[str, int]:
        """How many URLs of this run are added, changed, unchanged, and how many were removed."""
        self._flush()
        db = self._db
        added = db.execute("SELECT count(*) FROM current c LEFT JOIN submitted s USING (url) "
                           "WHERE s.url IS NULL").fetchone()[0]
        changed = db.execute("SELECT count(*) FROM current c JOIN submitted s USING (url) "
                             "WHERE s.fingerprint != c.fingerprint").fetchone()[0]
        total = db.execute("SELECT count(*) FROM current").fetchone()[0]
        removed = db.execute("SELECT count(*) FROM submitted WHERE url NOT IN (SELECT url FROM current)").fetchone()[0]
        return {ADDED: added, CHANGED: changed, REMOVED: removed, "unchanged": total - added - changed}

    def changes(self, *, removed: bool = True) -> Iterator[tuple[str, str]]:
        """``(url, kind)`` for every added, changed and (unless ``removed`` is False) removed URL, by URL."""
        self._flush()
        query = ("SELECT c.url, CASE WHEN s.url IS NULL THEN 'added' ELSE 'changed' END FROM current c "
                 "LEFT JOIN submitted s USING (url) WHERE s.url IS NULL OR s.fingerprint != c.fingerprint")
        if removed:
            query += " UNION ALL SELECT url, 'removed' FROM submitted WHERE url NOT IN (SELECT url FROM current)"
        yield from self._db.execute(f"SELECT * FROM ({query}) ORDER BY 1")  # noqa: S608 - fixed SQL text

    def mark_done(self, urls: Iterable[str], status: int | None) -> None:
        """Record a successful request: its URLs of this run now stand with their fingerprint; removed ones are
        forgotten."""
        self._flush()
        db = self._db
        db.execute("DELETE FROM done")
        db.executemany("INSERT OR IGNORE INTO done VALUES (?)", ((u,) for u in urls))
        now = time.time()
        db.execute("INSERT OR REPLACE INTO submitted SELECT c.url, c.fingerprint, ?, ? FROM current c "
                   "JOIN done d USING (url)", (now, status))
        db.execute("DELETE FROM submitted WHERE url IN (SELECT url FROM done) "
                   "AND url NOT IN (SELECT url FROM current)")
        db.commit()  # what was sent stays recorded even if a later request or the process fails

    def record_answer(self, result: SubmitResult) -> None:
        self._db.execute("INSERT INTO answers (at, channel, target, subject, status, ok, urls, message) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (time.time(), result.channel, result.target, result.subject, result.status,
                          int(result.ok), len(result.urls), result.message))
        self._db.commit()

    def submitted(self) -> dict[str, str]:
        """Every URL submitted so far with its fingerprint (for tests and inspection; loads them all)."""
        return dict(self._db.execute("SELECT url, fingerprint FROM submitted"))

    def commit(self) -> None:
        self._db.commit()

    def close(self) -> None:
        self._db.close()
