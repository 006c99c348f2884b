"""The one way sitemapkit opens an SQLite file: :func:`open_store`.

Six stores use it: the crawl state (``crawl/_state.py``), the audit's working set (``audit/_store.py``), the
submission state (``submit/_state.py``), the diff's spill database (``submit/_diff.py``), the hreflang scratch file
(``validate/_hreflang.py``) and the web app's history (``web/_store.py``). :func:`open_store` is the only
``sqlite3.connect`` in the package (a test pins it), and gives every store the same four things:

* **Settings**: the journal (``wal`` for files that outlive the run, ``off`` for scratch files), ``synchronous``,
  a busy timeout (another connection holding the file makes a statement wait, not fail at once), spilling sorts
  and temporary tables to files (``temp_store=FILE``) and a bounded page cache.
* **A schema version, recorded in the file.** Each store describes itself with a :class:`StoreSpec`: a kind
  (``application_id`` in the file header: a crawl state is never mistaken for a submission state), a version
  (``user_version``) and its tables. A new file is stamped with both in the transaction that creates the tables.
  An older version is migrated by the spec's ``migrations`` (one step per version, in that same transaction); a
  newer version, an older one without a migration, or a file of another kind is refused with a
  :class:`~sitemapkit.core.ConfigurationError` naming the file and what to do. Files written before versions were
  stamped (application id 0) are recognised by the spec's ``legacy`` function and stamped on first open.
* **Errors in the project's tree.** A full disk, an I/O error, a read-only or damaged file, on open or on any later
  statement, commit or row read, raises :class:`~sitemapkit.core.StoreError` naming the file (and, for a full disk,
  what to free), instead of ``sqlite3.OperationalError``. Mistakes in our own SQL (syntax, constraints) are left
  as they are: those are bugs.
* **Transactions that fail whole.** SQLite rolls a transaction back by itself when the disk fills; the connection
  then knows it is no longer in a transaction (``in_transaction``), and a store's ``commit`` checks that instead of
  issuing a ``COMMIT`` that fails a second time ("cannot commit - no transaction is active").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sitemapkit.core._errors import ConfigurationError, StoreError

__all__ = ["StoreConnection", "StoreSpec", "open_store", "sql_statements"]

#: The SQLite result codes (primary, ``code & 0xff``) that mean the file or the disk failed, not our SQL.
_FULL = 13
_STORAGE_FAILURES = {
    8: "the file is read-only",  # SQLITE_READONLY
    10: "input/output error",  # SQLITE_IOERR
    11: "the file is damaged",  # SQLITE_CORRUPT
    13: "the disk is full",  # SQLITE_FULL
    14: "cannot open the file",  # SQLITE_CANTOPEN
    26: "not an SQLite database",  # SQLITE_NOTADB
    5: "the file is locked by another process",  # SQLITE_BUSY (after the busy timeout)
}
#: Kinds of store seen so far, by application id: a file of another kind is named in the refusal.
_KINDS: dict[int, str] = {}


def sql_statements(script: str) -> tuple[str, ...]:
    """The statements of a fixed schema script (split on ``;``: no ``;`` inside the statements' text)."""
    return tuple(s.strip() for s in script.split(";") if s.strip())


@dataclass(frozen=True)
class StoreSpec:
    """What kind of file a store is and how to bring an existing file to the current version.

    ``kind``: "a crawl state file" (used in messages: "FILE: not a crawl state file"). ``app_id``: a 32-bit number
    of its own, written as the file's ``application_id``. ``version``: the current schema version, written as
    ``user_version``. ``schema``: the statements creating the tables (``IF NOT EXISTS``, run on every open).
    ``migrations``: version N -> a function bringing a version-N file to N + 1. ``legacy``: for a file written
    before versions were stamped (application id 0 and tables present), the version it is at, or None when it is
    not this kind of file. ``advice``: what to do when a file is refused ("use another --state file")."""

    kind: str
    app_id: int
    version: int
    schema: tuple[str, ...] = ()
    migrations: Mapping[int, Callable[[sqlite3.Connection], None]] = field(default_factory=dict)
    legacy: Callable[[sqlite3.Connection], int | None] | None = None
    advice: str = "use another file"

    def __post_init__(self) -> None:
        _KINDS.setdefault(self.app_id, self.kind)


def storage_failure(exc: sqlite3.Error) -> str | None:
    """What went wrong with the file or the disk, or None when ``exc`` is about the SQL (a bug)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return _STORAGE_FAILURES.get(code & 0xFF)
    text = str(exc)  # very old SQLite modules without error codes
    for needle, reason in (("disk is full", _STORAGE_FAILURES[_FULL]), ("disk I/O error", _STORAGE_FAILURES[10]),
                           ("readonly", _STORAGE_FAILURES[8]), ("malformed", _STORAGE_FAILURES[11]),
                           ("not a database", _STORAGE_FAILURES[26]), ("unable to open", _STORAGE_FAILURES[14])):
        if needle in text:
            return reason
    return None


class StoreCursor(sqlite3.Cursor):
    """A cursor whose statements and row reads raise :class:`StoreError` when the file or the disk fails."""

    connection: StoreConnection

    def execute(self, sql: str, parameters: Any = (), /) -> StoreCursor:
        try:
            super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from None
        return self

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> StoreCursor:
        try:
            super().executemany(sql, seq_of_parameters)
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from None
        return self

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from None

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from None

    def __iter__(self) -> Iterator[Any]:  # type: ignore[override]
        return self._rows()

    def _rows(self) -> Iterator[Any]:
        fetch = sqlite3.Cursor.fetchmany
        try:
            while rows := fetch(self, 256):  # rows in chunks: no Python call per row
                yield from rows
        except sqlite3.Error as exc:
            raise self.connection.translate(exc) from None


class StoreConnection(sqlite3.Connection):
    """An ``sqlite3.Connection`` that knows its file: storage failures raise :class:`StoreError` naming it."""

    label = ""  # how messages name the file (set by open_store)
    file = ""  # the file's path
    kind = "an SQLite file"
    advice = "use another file"

    def translate(self, exc: sqlite3.Error) -> Exception:
        """The exception to raise for ``exc``: a :class:`StoreError` for a storage failure, else ``exc``."""
        reason = storage_failure(exc)
        if reason is None:
            return exc
        if reason == _STORAGE_FAILURES[_FULL]:
            reason += f" (writing {self.kind}): free some space there, or {self.advice}"
        elif reason == _STORAGE_FAILURES[5]:
            reason += f" ({self.kind})"
        else:
            reason += f" ({self.kind}: {exc})"
        return StoreError(f"{self.label}: {reason}", path=self.file)

    def cursor(self, factory: Any = StoreCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> StoreCursor:
        return self.cursor().execute(sql, parameters)  # type: ignore[no-any-return]

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> StoreCursor:
        return self.cursor().executemany(sql, seq_of_parameters)  # type: ignore[no-any-return]

    def executescript(self, sql_script: str, /) -> StoreCursor:
        try:
            return super().executescript(sql_script)  # type: ignore[return-value]
        except sqlite3.Error as exc:
            raise self.translate(exc) from None

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.Error as exc:
            raise self.translate(exc) from None

    def rollback(self) -> None:
        try:
            super().rollback()
        except sqlite3.Error as exc:
            raise self.translate(exc) from None

    def end(self) -> None:
        """``COMMIT`` when a transaction is open; nothing when SQLite already rolled it back (after a full disk)."""
        if self.in_transaction:
            self.execute("COMMIT")

    def abandon(self) -> None:
        """Roll back whatever is open and close, raising nothing (cleaning up after an error)."""
        try:
            if self.in_transaction:
                sqlite3.Connection.rollback(self)
        except sqlite3.Error:
            pass
        try:
            self.close()
        except sqlite3.Error:
            pass


Journal = Literal["wal", "off", "delete"]
Sync = Literal["off", "normal", "full"]


def open_store(
    path: str | Path,
    spec: StoreSpec,
    *,
    label: str | None = None,
    journal: Journal = "wal",
    synchronous: Sync = "normal",
    autocommit: bool = False,
    threads: bool = False,
    temp_files: bool = True,
    cache_kib: int | None = None,
    exclusive: bool = False,
    busy_timeout: float = 5.0,
) -> StoreConnection:
    """Open (creating when missing) the SQLite file ``path`` as ``spec`` describes, checking or stamping its kind
    and version; ``":memory:"`` works too. ``label`` names the file in messages (default: the path).

    ``autocommit``: no implicit transactions (the store issues ``BEGIN``/``COMMIT`` or :meth:`StoreConnection.end`
    itself), else the ``sqlite3`` default (a transaction opened by the first write, ended by ``commit()``).
    ``threads``: the connection may be used from several threads (the store serialises the calls).
    ``temp_files``: sorts and temporary tables spill to temporary files instead of growing in memory.
    ``exclusive``: no other connection may read the file (scratch files). Raises :class:`ConfigurationError`
    naming the file when it is not a file of this kind or of a version this sitemapkit reads, and
    :class:`StoreError` when it cannot be opened or written (read-only, full disk)."""
    name = label or str(path)
    try:
        db = sqlite3.connect(str(path), timeout=busy_timeout,
                             isolation_level=None if autocommit else "DEFERRED",  # DEFERRED: sqlite3's default
                             check_same_thread=not threads, factory=StoreConnection)
    except sqlite3.Error as exc:
        reason = storage_failure(exc) or str(exc)
        raise StoreError(f"{name}: {reason} ({spec.kind}: {exc})", path=str(path)) from None
    assert isinstance(db, StoreConnection)
    db.label = name
    db.file = str(path)
    db.kind = spec.kind
    db.advice = spec.advice
    try:
        try:
            # Settings first: journal_mode cannot change inside a transaction. Reading the header here also
            # finds a file that is not a database at all.
            pragmas = [f"journal_mode = {journal.upper()}", f"synchronous = {synchronous.upper()}"]
            if temp_files:
                pragmas.append("temp_store = FILE")
            if cache_kib is not None:
                pragmas.append(f"cache_size = -{int(cache_kib)}")
            if exclusive:
                pragmas.append("locking_mode = EXCLUSIVE")
            for pragma in pragmas:
                sqlite3.Connection.execute(db, f"PRAGMA {pragma}")
        except sqlite3.Error as exc:
            if storage_failure(exc) in (_STORAGE_FAILURES[26], _STORAGE_FAILURES[11]):
                raise ConfigurationError(f"{name}: not {spec.kind} ({exc}); {spec.advice}") from None
            raise db.translate(exc) from None
        _check_version(db, spec, name)
    except BaseException:
        db.abandon()
        raise
    return db


def _check_version(db: StoreConnection, spec: StoreSpec, name: str) -> None:
    """In one transaction: read the kind and version, refuse or migrate, create the tables, stamp the file."""
    raw = sqlite3.Connection  # inside this function SQL errors about the file are raised as the caller decides
    try:
        raw.execute(db, "BEGIN IMMEDIATE")
        app_id = int(raw.execute(db, "PRAGMA application_id").fetchone()[0])
        version = int(raw.execute(db, "PRAGMA user_version").fetchone()[0])
        empty = raw.execute(db, "SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    except sqlite3.Error as exc:
        if storage_failure(exc) in (_STORAGE_FAILURES[26], _STORAGE_FAILURES[11]):
            raise ConfigurationError(f"{name}: not {spec.kind} ({exc}); {spec.advice}") from None
        raise db.translate(exc) from None
    if app_id == 0:
        if empty and version == 0:  # a new file
            version = spec.version
        else:
            found = spec.legacy(db) if spec.legacy is not None else None
            if found is None:
                raise ConfigurationError(f"{name}: not {spec.kind} (it holds other tables); {spec.advice}")
            version = found
    elif app_id != spec.app_id:
        other = _KINDS.get(app_id)
        what = f"it is {other}" if other else f"application id {app_id:#x}"
        raise ConfigurationError(f"{name}: not {spec.kind} ({what}); {spec.advice}")
    if version > spec.version:
        raise ConfigurationError(f"{name}: {spec.kind} of schema version {version}, written by a newer sitemapkit "
                                 f"(this one reads version {spec.version}); upgrade sitemapkit or {spec.advice}")
    while version < spec.version:
        step = spec.migrations.get(version)
        if step is None:
            raise ConfigurationError(f"{name}: {spec.kind} of schema version {version}, which this sitemapkit "
                                     f"(version {spec.version}) cannot bring up to date; {spec.advice}")
        step(db)
        version += 1
    try:
        for statement in spec.schema:
            raw.execute(db, statement)
        if app_id != spec.app_id:
            raw.execute(db, f"PRAGMA application_id = {int(spec.app_id)}")
        raw.execute(db, f"PRAGMA user_version = {int(spec.version)}")
        raw.execute(db, "COMMIT")
    except sqlite3.Error as exc:
        raise db.translate(exc) from None
