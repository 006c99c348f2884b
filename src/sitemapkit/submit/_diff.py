"""What changed between two sets of sitemaps: URLs added, removed, and changed (naming the fields that changed).

Each side is read with :func:`sitemapkit.fetch.open_sources` (files, folders holding a sitemap set, indexes, URLs,
whole sites) and streamed into a temporary SQLite database: one row per entry, in the order read, holding its
``loc`` and what is needed to tell which fields changed (lastmod, changefreq and priority as they are; images,
videos, news and alternates as short digests). Both sides are then read back ordered by ``loc`` (SQLite's sorter
spills sorted runs to disk) and merged in one pass; the changes go to a third table, so the counts are known
before the first change is handed out. Memory stays flat however many URLs each side holds: the page cache and
the sorter are bounded (:data:`CACHE_KIB`), everything else is on disk and removed on :meth:`SourceDiff.close`.
The database lives in a folder ``sitemapkit-diff-PID-*`` of the temporary directory; a run killed before it could
remove it leaves it behind, and the next diff removes it (``core/_scratch.py``). A full disk there ends the diff
with a :class:`~sitemapkit.core.StoreError` naming the database.

A loc listed twice on one side counts once (its first entry).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from types import TracebackType
from typing import Any, Literal

from sitemapkit.core import Problem, ScratchDir, StoreConnection, StoreSpec, UrlEntry, is_url_source, open_store
from sitemapkit.fetch import EntryBatch, FetchSettings, local_set, open_sources
from sitemapkit.read import Located

__all__ = [
    "CACHE_KIB",
    "FIELDS",
    "Change",
    "DiffCounts",
    "SourceDiff",
    "diff_sources",
    "entry_fields",
    "entry_fingerprint",
    "expand_source",
]

#: The fields a change can name, in the order they are reported.
FIELDS: tuple[str, ...] = ("lastmod", "changefreq", "priority", "images", "videos", "news", "alternates", "mobile")
#: Page cache and sorter memory of the temporary database, in KiB.
CACHE_KIB = 32 * 1024
_BATCH = 5000

_SPEC = StoreSpec(kind="the diff's temporary database", app_id=0x534B4446, version=1,
                  advice="point TMPDIR at a folder with more room")

ChangeKind = Literal["added", "removed", "changed"]
Side = Literal["old", "new"]
Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: ``loc``, ``change`` ("added", "removed" or "changed"), the ``fields`` that changed (only
    for "changed", in :data:`FIELDS` order), and the entry's ``lastmod`` text (the new one; the old one for a
    removed URL)."""

    loc: str
    change: ChangeKind
    fields: tuple[str, ...] = ()
    lastmod: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"loc": self.loc, "change": self.change, "fields": list(self.fields)}


@dataclass(frozen=True, slots=True)
class DiffCounts:
    """How many URLs were added, removed, changed and left unchanged."""

    added: int = 0
    removed: int = 0
    changed: int = 0
    unchanged: int = 0

    @property
    def differ(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_dict(self) -> dict[str, int]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed, "unchanged": self.unchanged}


def _digest(value: object) -> bytes:
    return blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=8).digest()


def entry_fields(entry: UrlEntry) -> tuple[Any, ...]:
    """What :func:`diff_sources` compares, one value per name in :data:`FIELDS` (None when absent): lastmod
    text, changefreq value, priority, and 8-byte digests of the images, videos, news and alternates."""
    return (
        entry.lastmod.text if entry.lastmod is not None else None,
        entry.changefreq.value if entry.changefreq is not None else None,
        entry.priority,
        _digest(entry.images) if entry.images else None,
        _digest(entry.videos) if entry.videos else None,
        _digest(entry.news) if entry.news is not None else None,
        _digest(entry.alternates) if entry.alternates else None,
        1 if entry.mobile else None,
    )


def entry_fingerprint(entry: UrlEntry) -> bytes:
    """A 16-byte digest of everything an entry says (loc included): equal entries have equal fingerprints."""
    return blake2b(repr((entry.loc, entry_fields(entry))).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def expand_source(source: str) -> list[str]:
    """The sources a SOURCE argument stands for: a folder is the sitemap files in it (``*.xml``, ``*.xml.gz``,
    ``*.txt``, ``*.gz``; recursively, sorted; files named so that are something else by their content, such as
    robots.txt, are passed over: :func:`sitemapkit.fetch.local_set`, the rule of ``urls`` and ``validate``);
    anything else is itself."""
    return [source] if is_url_source(source) else local_set(source)


def source_entries(source: str, settings: FetchSettings, strict: bool,
             on_problem: Callable[[Problem], None]) -> Iterator[UrlEntry]:
    """Every URL entry of one SOURCE argument, read by :func:`~sitemapkit.fetch.open_sources` (a folder is its
    sitemap files, a local index pulls in the sitemaps in its folder, each file read once)."""
    for event in open_sources([source], settings=settings, strict=strict, batches=True):
        if isinstance(event, EntryBatch):
            yield from event.entries
            for problem in event.problems:
                on_problem(problem)
            continue
        item = event.item if isinstance(event, Located) else event
        if isinstance(item, UrlEntry):
            yield item
        elif isinstance(item, Problem):
            on_problem(item)


def _load(db: sqlite3.Connection, table: str, sources: Sequence[str], settings: FetchSettings, strict: bool,
          on_problem: Callable[[Problem], None], on_entries: Callable[[int], None] | None) -> None:
    sql = f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"  # noqa: S608 - table is "old" or "new"
    batch: list[Row] = []
    db.execute("BEGIN")
    for source in sources:
        for entry in source_entries(source, settings, strict, on_problem):
            batch.append((entry.loc, *entry_fields(entry)))
            if len(batch) >= _BATCH:
                db.executemany(sql, batch)
                if on_entries is not None:
                    on_entries(len(batch))
                batch.clear()
    if batch:
        db.executemany(sql, batch)
        if on_entries is not None:
            on_entries(len(batch))
    db.execute("COMMIT")


def _ordered(db: sqlite3.Connection, table: str) -> Iterator[Row]:
    """The rows of ``table`` by loc, the first of each loc only."""
    cursor = db.execute(f"SELECT * FROM {table} ORDER BY loc, rowid")  # noqa: S608 - "old" or "new"
    last: str | None = None
    while rows := cursor.fetchmany(_BATCH):
        for row in rows:
            if row[0] != last:
                last = row[0]
                yield row


def _changed_fields(old: Row, new: Row) -> tuple[str, ...]:
    return tuple(name for name, a, b in zip(FIELDS, old[1:], new[1:], strict=True) if a != b)


def _merge(old: Iterator[Row], new: Iterator[Row]) -> Iterator[tuple[str, ChangeKind | None, str, str | None]]:
    """Merge two loc-ordered streams: (loc, kind or None when unchanged, fields joined by spaces, lastmod)."""
    a = next(old, None)
    b = next(new, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a[0] < b[0]):
            assert a is not None
            yield a[0], "removed", "", a[1]
            a = next(old, None)
        elif a is None or b[0] < a[0]:
            yield b[0], "added", "", b[1]
            b = next(new, None)
        else:
            fields = _changed_fields(a, b) if a[1:] != b[1:] else ()
            yield b[0], ("changed" if fields else None), " ".join(fields), b[1]
            a = next(old, None)
            b = next(new, None)


class SourceDiff:
    """The result of :func:`diff_sources`: :attr:`counts`, the reading :attr:`problems` (each side's, in order,
    at most ``max_problems`` kept; :attr:`errors` counts the errors among all of them), and the changes ordered
    by loc when iterated (iterate as often as needed). A context manager: :meth:`close` removes the temporary
    database."""

    def __init__(self, db: StoreConnection, directory: ScratchDir, counts: DiffCounts,
                 problems: list[tuple[Side, Problem]], errors: int) -> None:
        self._db = db
        self._dir = directory
        self.counts = counts
        self.problems = problems
        self.errors = errors

    def __iter__(self) -> Iterator[Change]:
        cursor = self._db.execute("SELECT loc, kind, fields, lastmod FROM changes ORDER BY rowid")
        while rows := cursor.fetchmany(_BATCH):
            for loc, kind, fields, lastmod in rows:
                yield Change(loc, kind, tuple(fields.split()) if fields else (), lastmod)

    def close(self) -> None:
        self._db.close()
        self._dir.cleanup()

    def __enter__(self) -> SourceDiff:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _connect(path: str) -> StoreConnection:
    db = open_store(path, _SPEC, journal="off", synchronous="off", autocommit=True, cache_kib=CACHE_KIB,
                    exclusive=True)
    columns = "loc TEXT NOT NULL, lastmod TEXT, changefreq TEXT, priority REAL, images BLOB, videos BLOB, " \
              "news BLOB, alternates BLOB, mobile INTEGER"
    try:
        db.execute(f"CREATE TABLE old ({columns})")
        db.execute(f"CREATE TABLE new ({columns})")
        db.execute("CREATE TABLE changes (loc TEXT NOT NULL, kind TEXT NOT NULL, fields TEXT NOT NULL, lastmod TEXT)")
    except BaseException:
        db.abandon()
        raise
    return db


def diff_sources(
    old: str | Iterable[str],
    new: str | Iterable[str],
    *,
    settings: FetchSettings | None = None,
    strict: bool = False,
    on_problem: Callable[[Side, Problem], None] | None = None,
    on_entries: Callable[[Side, int], None] | None = None,
    max_problems: int = 1000,
    tmpdir: str | os.PathLike[str] | None = None,
) -> SourceDiff:
    """Compare two sets of sitemaps. ``old`` and ``new`` are each one SOURCE or several (file paths, folders,
    ``-``, sitemap or site URLs; see :func:`sitemapkit.fetch.open_sources`), fetched with ``settings``.

    Reading problems go to ``on_problem(side, problem)`` as they come (and into :attr:`SourceDiff.problems`);
    ``on_entries(side, n)`` reports progress. The temporary database lives in ``tmpdir`` (default: the system's
    temporary folder). Files that cannot be read raise :class:`OSError`."""
    cfg = settings or FetchSettings()
    directory = ScratchDir("diff", tmpdir)
    problems: list[tuple[Side, Problem]] = []
    errors = 0
    try:
        db = _connect(directory.path("diff.sqlite"))
        try:
            for side, sources in (("old", old), ("new", new)):
                named: Side = "old" if side == "old" else "new"

                def problem(p: Problem, s: Side = named) -> None:
                    nonlocal errors
                    if p.is_error:
                        errors += 1
                    if len(problems) < max_problems:
                        problems.append((s, p))
                    if on_problem is not None:
                        on_problem(s, p)

                def entries(n: int, s: Side = named) -> None:
                    if on_entries is not None:
                        on_entries(s, n)

                listed = [sources] if isinstance(sources, str) else list(sources)
                _load(db, named, listed, cfg, strict, problem, entries)
            counts = _compare(db)
        except BaseException:
            db.abandon()
            raise
    except BaseException:
        directory.cleanup()
        raise
    return SourceDiff(db, directory, counts, problems, errors)


def _compare(db: sqlite3.Connection) -> DiffCounts:
    tally = {"added": 0, "removed": 0, "changed": 0, None: 0}
    batch: list[tuple[str, str, str, str | None]] = []
    sql = "INSERT INTO changes VALUES (?, ?, ?, ?)"
    db.execute("BEGIN")
    for loc, kind, fields, lastmod in _merge(_ordered(db, "old"), _ordered(db, "new")):
        tally[kind] += 1
        if kind is None:
            continue
        batch.append((loc, kind, fields, lastmod))
        if len(batch) >= _BATCH:
            db.executemany(sql, batch)
            batch.clear()
    if batch:
        db.executemany(sql, batch)
    db.execute("COMMIT")
    db.execute("DROP TABLE old")
    db.execute("DROP TABLE new")
    return DiffCounts(tally["added"], tally["removed"], tally["changed"], tally[None])
