"""diff's temporary files: a full temporary folder is one clear error naming the spill database, with nothing
written; a spill folder or an output temporary left by a killed run (a real SIGKILL) is removed by the next run;
every temporary file is named so that it is recognisably sitemapkit's."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from tests.support.server import LocalServer, Request, Response

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _urlset(n: int, host: str = "https://e.com") -> str:
    rows = "".join(f"<url><loc>{host}/page/{i}</loc><lastmod>2024-01-01</lastmod></url>\n" for i in range(n))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{rows}</urlset>\n'


def _pair(tmp_path: Path, n: int = 3000) -> tuple[Path, Path]:
    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    old.write_text(_urlset(n), "utf-8")
    new.write_text(_urlset(n + 10), "utf-8")
    return old, new


def test_a_full_temporary_folder_is_one_clear_error_with_nothing_written(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _pair(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    real = sqlite3.connect

    def full(database: str, *args: object, **kwargs: object) -> sqlite3.Connection:
        db = real(database, *args, **kwargs)  # type: ignore[arg-type]
        if "sitemapkit-diff-" in str(database):  # the spill database cannot grow past 20 pages: SQLITE_FULL
            db.execute("PRAGMA max_page_count = 20")
        return db

    monkeypatch.setattr(sqlite3, "connect", full)
    out = tmp_path / "changes.txt"
    result = CliRunner().invoke(cli, ["diff", str(old), str(new), "-o", str(out), "-q"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    spill = rf"{re.escape(str(scratch))}/sitemapkit-diff-{os.getpid()}-\w+/diff\.sqlite"
    assert re.fullmatch(rf"sitemapkit: error: {spill}: "
                        r"the disk is full \(writing the diff's temporary database\): free some space there, or "
                        r"point TMPDIR at a folder with more room", lines[0]), lines[0]
    assert list(scratch.iterdir()) == []  # the spill folder is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.xml", "old.xml", "tmp"]  # no output, no temporary


class _Stall:
    """A sitemap URL whose answer waits until :meth:`release` (the diff is then busy reading it)."""

    def __init__(self, server: LocalServer) -> None:
        self.asked = threading.Event()
        self._gate = threading.Event()
        server.route("/new.xml", handler=self._answer)

    def _answer(self, req: Request) -> Response:
        self.asked.set()
        self._gate.wait(60)
        return Response(200, _urlset(5).encode(), {"Content-Type": "application/xml"})

    def release(self) -> None:
        self._gate.set()


@pytest.mark.e2e
def test_a_killed_diff_leaves_a_spill_folder_that_the_next_run_removes(server: LocalServer, tmp_path: Path) -> None:
    old, _ = _pair(tmp_path, 2000)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    stall = _Stall(server)
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "diff", str(old), server.url("/new.xml"), "-q",
                             "--retries", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert stall.asked.wait(60)  # OLD is in the spill database; NEW is being read
        left = list(scratch.iterdir())
        assert [p.name.startswith(f"sitemapkit-diff-{proc.pid}-") for p in left] == [True]
        assert (left[0] / "diff.sqlite").stat().st_size > 0
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        stall.release()
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert left[0].is_dir()  # what a kill -9 leaves behind
    again = subprocess.run([sys.executable, "-m", "sitemapkit", "diff", str(old), str(old), "-q"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert list(scratch.iterdir()) == []  # the dead run's folder and this run's own are both gone


WRITER = """
import sys, time
from pathlib import Path
from sitemapkit.core import atomic_text
with atomic_text(Path(sys.argv[1])) as fh:
    fh.write("half of a diff")
    fh.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


@pytest.mark.e2e
def test_an_output_temporary_of_a_killed_run_is_removed_by_the_next_run(tmp_path: Path) -> None:
    old, new = _pair(tmp_path, 20)
    out = tmp_path / "diff_out.txt"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "writing"
        left = [p for p in tmp_path.iterdir() if p.name.startswith(".diff_out.txt.")]
        assert [p.name.startswith(f".diff_out.txt.sitemapkit-{writer.pid}-") and p.name.endswith(".tmp")
                for p in left] == [True]
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(30)
        if writer.stdout is not None:
            writer.stdout.close()
    assert left[0].exists()  # what a kill -9 leaves behind
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "diff", str(old), str(new), "-o", str(out), "-q"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert out.read_text("utf-8").count("+ ") == 10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diff_out.txt", "new.xml", "old.xml"]


def test_a_live_writers_temporary_is_left_alone(tmp_path: Path) -> None:
    out = tmp_path / "diff_out.txt"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "writing"
        code = ("import sys; from pathlib import Path; from sitemapkit.core._scratch import sweep_temporaries;"
                "print(len(sweep_temporaries(Path(sys.argv[1]))))")
        swept = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                               timeout=60)
        assert swept.stdout.strip() == "0", swept.stderr
        assert len([p for p in tmp_path.iterdir() if p.name.startswith(".diff_out.txt.sitemapkit-")]) == 1
    finally:
        writer.kill()
        writer.wait(30)
        if writer.stdout is not None:
            writer.stdout.close()
