"""A real SQLite table of products for the serve tests and the benchmark, and its keyset fetch."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sitemapkit.core import UrlEntry
from sitemapkit.serve import KeysetSource

BASE = "https://shop.example/"


def build_products(path: Path, rows: int) -> Path:
    """``products(id INTEGER PRIMARY KEY, slug, updated)`` with ``rows`` rows (one statement: SQLite counts the
    ids itself, twice as fast as feeding a million rows from Python)."""
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, slug TEXT NOT NULL, updated TEXT NOT NULL)")
        # row i: (i, "item-i", 2024-MM-DD with MM = i % 12 + 1, DD = i % 28 + 1)
        con.execute("WITH RECURSIVE n(i) AS (SELECT 1 WHERE ? > 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                    "INSERT INTO products SELECT i, 'item-' || i, printf('2024-%02d-%02d', i % 12 + 1, i % 28 + 1) "
                    "FROM n", (rows, rows))
        con.commit()
    finally:
        con.close()
    return path


class ProductFetch:
    """``fetch(after, limit)``: one indexed range query per call (``WHERE id > ? ORDER BY id LIMIT ?``), a
    connection per call (safe under threaded servers). ``keys`` and ``stats`` are the optional hooks."""

    def __init__(self, path: Path, base: str = BASE) -> None:
        self.path = path
        self.base = base
        self.calls: list[tuple[object, int]] = []

    def __call__(self, after: int | None, limit: int) -> Iterator[tuple[int, UrlEntry]]:
        self.calls.append((after, limit))
        con = sqlite3.connect(self.path)
        try:
            rows = con.execute("SELECT id, slug, updated FROM products WHERE id > ? ORDER BY id LIMIT ?",
                               (after if after is not None else 0, limit))
            for pk, slug, updated in rows:
                yield pk, UrlEntry(f"{self.base}p/{slug}", lastmod=updated)
        finally:
            con.close()

    def keys(self, after: int | None, limit: int) -> list[int]:
        con = sqlite3.connect(self.path)
        try:
            return [k for (k,) in con.execute("SELECT id FROM products WHERE id > ? ORDER BY id LIMIT ?",
                                              (after if after is not None else 0, limit))]
        finally:
            con.close()

    def nth_key(self, after: int | None, n: int) -> int | None:
        con = sqlite3.connect(self.path)
        try:
            row = con.execute("SELECT id FROM products WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?",
                              (after if after is not None else 0, n - 1)).fetchone()
            return None if row is None else int(row[0])
        finally:
            con.close()

    def stats(self, after: int | None, last: int | None) -> tuple[int, str | None]:
        con = sqlite3.connect(self.path)
        try:
            count, newest = con.execute("SELECT count(*), max(updated) FROM products WHERE id > ? AND id <= ?",
                                        (after if after is not None else 0,
                                         last if last is not None else 2**63 - 1)).fetchone()
            return int(count), newest
        finally:
            con.close()

    def source(self, *, keys: bool = True, nth_key: bool = False, stats: bool = False) -> KeysetSource:
        return KeysetSource(self, keys=self.keys if keys else None, nth_key=self.nth_key if nth_key else None,
                            stats=self.stats if stats else None)
