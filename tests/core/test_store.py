"""The one SQLite helper (``core/_store.py``): the only ``sqlite3.connect`` of the package, schema versions recorded
in the file and a mismatch handled on purpose, and storage failures raised as :class:`StoreError` naming the file.
Also the scratch folders of ``core/_scratch.py``: a folder left by a killed run is swept, a live owner's is not."""

from __future__ import annotations

import ast
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit.core import ConfigurationError, StoreError, StoreSpec, open_store
from sitemapkit.core._scratch import ScratchDir, sweep_scratch

SRC = Path(__file__).resolve().parents[2] / "src" / "sitemapkit"

SPEC_V1 = StoreSpec(kind="a test store", app_id=0x54455354, version=1,
                    schema=("CREATE TABLE IF NOT EXISTS t (x TEXT)",), advice="use another test file")


def _connects(path: Path) -> list[int]:
    """Lines of ``path`` that call ``sqlite3.connect`` (or import ``connect`` from sqlite3 to call it bare)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        attribute = isinstance(node, ast.Attribute) and node.attr == "connect" \
            and isinstance(node.value, ast.Name) and node.value.id == "sqlite3"
        imported = isinstance(node, ast.ImportFrom) and node.module == "sqlite3" \
            and any(a.name == "connect" for a in node.names)
        if attribute or imported:
            found.append(node.lineno)  # type: ignore[attr-defined]
    return found


def test_there_is_exactly_one_sqlite3_connect_in_src_and_it_is_the_helper() -> None:
    calls = {str(p.relative_to(SRC)): lines for p in sorted(SRC.rglob("*.py")) if (lines := _connects(p))}
    assert list(calls) == [os.path.join("core", "_store.py")], calls
    assert len(calls[os.path.join("core", "_store.py")]) == 1


def test_a_new_file_is_stamped_with_its_kind_and_version(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    open_store(path, SPEC_V1).close()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == 0x54455354
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()


def test_a_newer_version_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    open_store(path, StoreSpec(kind="a test store", app_id=0x54455354, version=3)).close()
    with pytest.raises(ConfigurationError, match=rf"{path}: a test store of schema version 3, written by a newer "
                                                 r"sitemapkit .* use another test file"):
        open_store(path, SPEC_V1)


def test_an_older_version_is_migrated_in_one_step_per_version(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    db = open_store(path, SPEC_V1)
    db.execute("INSERT INTO t VALUES ('kept')")
    db.commit()
    db.close()
    v2 = StoreSpec(kind="a test store", app_id=0x54455354, version=2,
                   migrations={1: lambda c: c.execute("ALTER TABLE t ADD COLUMN y TEXT DEFAULT 'new'")})
    db = open_store(path, v2)
    assert db.execute("SELECT x, y FROM t").fetchall() == [("kept", "new")]
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    db.close()
    no_way = StoreSpec(kind="a test store", app_id=0x54455354, version=4)
    with pytest.raises(ConfigurationError, match=rf"{path}: a test store of schema version 2, which this sitemapkit "
                                                 r"\(version 4\) cannot bring up to date"):
        open_store(path, no_way)


def test_a_file_of_another_kind_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    open_store(path, SPEC_V1).close()
    other = StoreSpec(kind="another store", app_id=0x4F544852, version=1, advice="give it its own file")
    with pytest.raises(ConfigurationError, match=rf"{path}: not another store \(it is a test store\); give it"):
        open_store(path, other)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all " * 200)
    with pytest.raises(ConfigurationError, match=rf"{junk}: not a test store"):
        open_store(junk, SPEC_V1)
    assert junk.read_bytes().startswith(b"not a database")


def test_a_file_from_before_stamps_is_adopted_by_the_legacy_rule(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE t (x TEXT)")
    raw.execute("INSERT INTO t VALUES ('old')")
    raw.commit()
    raw.close()
    with pytest.raises(ConfigurationError, match="it holds other tables"):
        open_store(path, SPEC_V1)  # no legacy rule: not recognised
    adopt = StoreSpec(kind="a test store", app_id=0x54455354, version=1, legacy=lambda c: 1)
    db = open_store(path, adopt)
    assert db.execute("SELECT x FROM t").fetchall() == [("old",)]
    assert db.execute("PRAGMA application_id").fetchone()[0] == 0x54455354
    db.close()


def _full(path: Path, autocommit: bool) -> sqlite3.Connection:
    """A store whose file may not grow past its current size plus two pages: SQLite's own SQLITE_FULL."""
    db = open_store(path, SPEC_V1, autocommit=autocommit)
    size = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {size + 2}")
    return db


def test_a_full_disk_is_a_store_error_naming_the_file_and_the_transaction_is_gone_whole(tmp_path: Path) -> None:
    path = tmp_path / "full.sqlite"
    db = _full(path, autocommit=True)
    db.execute("BEGIN")
    db.execute("INSERT INTO t VALUES ('first')")
    with pytest.raises(StoreError) as caught:
        db.executemany("INSERT INTO t VALUES (?)", ((("x" * 3000),) for _ in range(50)))
    assert str(caught.value).startswith(f"{path}: the disk is full (writing a test store): free some space there, "
                                        "or use another test file")
    assert caught.value.path == str(path)
    db.end()  # SQLite rolled back or kept the transaction: ending it raises no "cannot commit"
    assert not db.in_transaction
    db.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert check.execute("SELECT count(*) FROM t WHERE x LIKE 'xxx%'").fetchone()[0] == 0  # nothing half-written
    check.close()


def test_a_damaged_file_found_while_reading_rows_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    db = open_store(path, SPEC_V1, journal="delete")
    db.executemany("INSERT INTO t VALUES (?)", ((f"row {i} " * 40,) for i in range(400)))
    db.commit()
    db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page: 6 * page] = b"\xff" * (3 * page)  # some of the table's pages, not the header or the schema
    path.write_bytes(bytes(data))
    db = open_store(path, SPEC_V1, journal="delete")
    with pytest.raises(StoreError, match=rf"{path}: the file is damaged"):
        for _ in db.execute("SELECT x FROM t"):
            pass
    db.close()


def test_a_scratch_folder_of_a_killed_process_is_swept_and_a_live_ones_is_not(tmp_path: Path) -> None:
    code = ("import sys, time; from sitemapkit.core._scratch import ScratchDir\n"
            "d = ScratchDir('unit', sys.argv[1]); print(d.name, flush=True); time.sleep(60)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    try:
        names = [p.stdout.readline().strip() for p in procs if p.stdout is not None]
        assert all(Path(n).is_dir() and Path(n).name.startswith(f"sitemapkit-unit-{p.pid}-")
                   for n, p in zip(names, procs, strict=True))
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait(30)
        assert Path(names[0]).is_dir()  # a kill -9 leaves it
        with ScratchDir("unit", tmp_path) as mine:  # the next run sweeps what the dead process left
            assert not Path(names[0]).exists()
            assert Path(names[1]).is_dir()  # its owner lives
            assert sweep_scratch("unit", tmp_path) == []  # nor is our own taken
            assert Path(mine.name).is_dir()
        assert not Path(mine.name).exists()
    finally:
        for p in procs:
            p.kill()
            p.wait(30)
            if p.stdout is not None:
                p.stdout.close()
