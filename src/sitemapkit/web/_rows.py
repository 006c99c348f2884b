"""The rows of a crawl's tables (broken links, redirects, exclusions) a page at a time: filtered, sorted and
sliced on the server, so that a page never holds more than one window of a 20,000-row table.

The rows come from the crawl's ``crawl-report.json`` (written when a crawl ends, and when it is paused or
cancelled: the partial report), read once per version of the file and kept for the next requests.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MAX_LIMIT", "TABLES", "RowsError", "page_of_rows", "report_head", "table_rows"]

#: The tables and their columns (the sort keys), in the order the pages show them.
TABLES: dict[str, tuple[str, ...]] = {
    "broken": ("url", "status", "referrers"),
    "redirects": ("url", "chain", "final_url"),
    "excluded": ("url", "reason", "detail"),
}
#: Rows in one answer at most.
MAX_LIMIT = 500
#: Referrers sent with a broken link (the count is exact; crawl-report.json has up to 1,000).
ROW_REFERRERS = 20
_CACHED_REPORTS = 4


class RowsError(Exception):
    """A bad table, column or number in the request."""


@dataclass(frozen=True, slots=True)
class _Table:
    rows: list[dict[str, Any]]
    text: list[str]  # each row's searchable text, lowercased


def _status_text(item: dict[str, Any]) -> str:
    status, error = item.get("status"), item.get("error")
    if error:
        return f"{status} {error}" if status is not None else str(error)
    return "" if status is None else str(status)


def _shape(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    if kind == "broken":
        return {"url": item["url"], "status": _status_text(item),
                "referrers": item.get("referrers", [])[:ROW_REFERRERS],
                "referrer_count": item.get("referrer_count", 0)}
    if kind == "redirects":
        chain = item.get("chain") or []
        return {"url": item["url"], "chain": " → ".join(str(h.get("status", "")) for h in chain),
                "final_url": item.get("final_url") or ""}
    return {"url": item["url"], "reason": item.get("reason") or "", "detail": item.get("detail") or ""}


def _searchable(kind: str, row: dict[str, Any]) -> str:
    parts = [str(v) for k, v in row.items() if isinstance(v, str)]
    if kind == "broken":
        parts += row["referrers"]
    return " ".join(parts).lower()


class _ReportCache:
    """Parsed reports by (path, mtime, size): a new report (a resumed crawl that ended) is read again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, int, int], dict[str, _Table]] = OrderedDict()

    def tables(self, path: Path) -> dict[str, _Table] | None:
        try:
            st = path.stat()
        except OSError:
            return None
        key = (str(path), st.st_mtime_ns, st.st_size)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        with path.open(encoding="utf-8") as fh:
            report = json.load(fh)
        tables = {"": _Table([{k: v for k, v in report.items() if k not in TABLES}], [])}
        for kind in TABLES:
            rows = [_shape(kind, item) for item in report.get(kind) or []]
            tables[kind] = _Table(rows, [_searchable(kind, r) for r in rows])
        with self._lock:
            self._items[key] = tables
            while len(self._items) > _CACHED_REPORTS:
                self._items.popitem(last=False)
        return tables


_CACHE = _ReportCache()


def report_head(report: Path) -> dict[str, Any]:
    """The report's numbers (status counts, depth counts, ...) without its tables; empty when there is none."""
    tables = _CACHE.tables(report)
    return {} if tables is None else tables[""].rows[0]


def table_rows(report: Path, kind: str) -> list[dict[str, Any]]:
    """Every row of one table of the report (empty when there is no report yet)."""
    tables = _CACHE.tables(report)
    return [] if tables is None else tables[kind].rows


def _sort_key(column: str) -> Any:
    if column == "referrers":
        return lambda row: row["referrer_count"]
    if column in ("status", "chain"):  # numbers first, in numeric order
        def key(row: dict[str, Any]) -> tuple[int, int, str]:
            head = row[column].split(" ", 1)[0]
            return (0, int(head), row[column]) if head.isdigit() else (1, 0, row[column].lower())
        return key
    return lambda row: row[column].lower()


def page_of_rows(report: Path, kind: str, *, offset: int = 0, limit: int = 100, query: str = "",
                 sort: str | None = None, descending: bool = False) -> dict[str, Any]:
    """One page of a table: ``total`` rows in all, ``matched`` by the filter (a case-insensitive substring of any
    column, referrers included), the rows from ``offset`` (at most ``limit``) in the order asked."""
    if kind not in TABLES:
        raise RowsError(f"no table {kind!r}: {', '.join(TABLES)}")
    if sort is not None and sort not in TABLES[kind]:
        raise RowsError(f"cannot sort {kind} by {sort!r}: {', '.join(TABLES[kind])}")
    if offset < 0 or not 1 <= limit <= MAX_LIMIT:
        raise RowsError(f"offset must be 0 or more and limit 1 to {MAX_LIMIT}")
    tables = _CACHE.tables(report)
    if tables is None:
        return {"table": kind, "total": 0, "matched": 0, "offset": 0, "limit": limit, "rows": []}
    table = tables[kind]
    q = query.strip().lower()
    rows = [r for r, text in zip(table.rows, table.text, strict=True) if q in text] if q else table.rows
    if sort is not None:
        rows = sorted(rows, key=_sort_key(sort), reverse=descending)
    return {"table": kind, "total": len(table.rows), "matched": len(rows), "offset": offset, "limit": limit,
            "sort": sort, "dir": "desc" if descending else "asc", "rows": rows[offset:offset + limit]}
