"""The web app's history: one SQLite table of crawls in the user data directory, and one folder per crawl.

Layout (``DATA`` is ``platformdirs.user_data_path("sitemapkit") / "web"`` unless given)::

    DATA/history.sqlite            crawls (id, url, options, status, counts, error, times)
    DATA/crawls/<id>/state.sqlite  the crawl state (resumable)
    DATA/crawls/<id>/out/          the published sitemap set and the crawl reports (the downloads)

Written from the server's event loop and from the crawl threads: one connection, one lock.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemapkit.core import StoreConnection, StoreSpec, open_store

__all__ = ["ACTIVE", "STATUSES", "TERMINAL", "CrawlRecord", "HistoryStore", "default_data_dir", "valid_id"]

STATUSES = ("queued", "running", "paused", "done", "failed", "cancelled")
ACTIVE = frozenset({"queued", "running"})
TERMINAL = frozenset({"done", "failed", "cancelled"})
_ID = re.compile(r"^[0-9a-f]{12}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS crawls (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    options TEXT NOT NULL,
    status TEXT NOT NULL,
    counts TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    note TEXT,
    complete INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
)
"""


def _legacy(db: sqlite3.Connection) -> int | None:
    """A history written before versions were stamped: it has the crawls table."""
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'crawls'").fetchone()
    return None if row is None else 1


SPEC = StoreSpec(kind="the web app's history", app_id=0x534B5748, version=1, schema=(_SCHEMA,), legacy=_legacy,
                 advice="move it away (the web app then starts a new history)")


def default_data_dir() -> Path:
    """Where the web app keeps its history: ``$XDG_DATA_HOME/sitemapkit/web`` on Linux (platformdirs)."""
    import platformdirs

    return platformdirs.user_data_path("sitemapkit", appauthor=False) / "web"


def valid_id(crawl_id: str) -> bool:
    """Crawl ids are 12 lowercase hex digits: anything else never reaches the file system."""
    return bool(_ID.match(crawl_id))


@dataclass
class CrawlRecord:
    """One crawl of the history."""

    id: str
    url: str
    options: dict[str, Any]
    status: str
    counts: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    note: str | None = None
    complete: bool = False
    created: float = 0.0
    updated: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "url": self.url, "options": self.options, "status": self.status,
                "counts": self.counts, "error": self.error, "note": self.note, "complete": self.complete,
                "created": _iso(self.created), "updated": _iso(self.updated)}


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class HistoryStore:
    """The crawls table and the per-crawl folders under ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        (data_dir / "crawls").mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db: StoreConnection = open_store(data_dir / "history.sqlite", SPEC, autocommit=True, threads=True,
                                               synchronous="full", temp_files=False)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def folder(self, crawl_id: str) -> Path:
        if not valid_id(crawl_id):
            raise ValueError(f"not a crawl id: {crawl_id!r}")
        return self.data_dir / "crawls" / crawl_id

    def state_path(self, crawl_id: str) -> Path:
        return self.folder(crawl_id) / "state.sqlite"

    def out_dir(self, crawl_id: str) -> Path:
        return self.folder(crawl_id) / "out"

    def create(self, url: str, options: Mapping[str, Any]) -> CrawlRecord:
        now = time.time()
        rec = CrawlRecord(secrets.token_hex(6), url, dict(options), "queued", created=now, updated=now)
        self.folder(rec.id).mkdir(parents=True)
        with self._lock:
            self._db.execute("INSERT INTO crawls (id, url, options, status, created, updated) VALUES (?,?,?,?,?,?)",
                             (rec.id, url, json.dumps(rec.options), rec.status, now, now))
        return rec

    def get(self, crawl_id: str) -> CrawlRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM crawls WHERE id = ?", (crawl_id,)).fetchone()
        return _record(row) if row else None

    def all(self) -> list[CrawlRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM crawls ORDER BY created DESC").fetchall()
        return [_record(r) for r in rows]

    def update(self, crawl_id: str, *, status: str | None = None, counts: Mapping[str, Any] | None = None,
               error: str | None = None, note: str | None = None, complete: bool | None = None,
               url: str | None = None) -> None:
        sets: list[str] = ["updated = ?"]
        values: list[object] = [time.time()]
        for column, value in (("status", status), ("error", error), ("note", note), ("url", url)):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        if counts is not None:
            sets.append("counts = ?")
            values.append(json.dumps(dict(counts)))
        if complete is not None:
            sets.append("complete = ?")
            values.append(int(complete))
        with self._lock:
            self._db.execute(f"UPDATE crawls SET {', '.join(sets)} WHERE id = ?", (*values, crawl_id))  # noqa: S608

    def delete(self, crawl_id: str) -> None:
        folder = self.folder(crawl_id)
        with self._lock:
            self._db.execute("DELETE FROM crawls WHERE id = ?", (crawl_id,))
        shutil.rmtree(folder, ignore_errors=True)

    def mark_interrupted(self) -> int:
        """Crawls left queued or running by a previous server (killed, crashed) become paused: resumable."""
        with self._lock:
            cur = self._db.execute(
                "UPDATE crawls SET status = 'paused', note = 'interrupted: the server stopped during the crawl' "
                "WHERE status IN ('queued', 'running')")
            return cur.rowcount


def _record(row: tuple[Any, ...]) -> CrawlRecord:
    cid, url, options, status, counts, error, note, complete, created, updated = row
    return CrawlRecord(cid, url, json.loads(options), status, json.loads(counts), error, note, bool(complete),
                       created, updated)
