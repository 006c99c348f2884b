"""The crawl state as an SQLite store: a full disk ends the crawl with one clear error naming the file (not three
tracebacks) and leaves a consistent, resumable state; the file records its versions, and a state whose
fingerprints were computed by another fingerprint version is refused, naming the file."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit import ConfigurationError
from sitemapkit.crawl._fingerprint import FINGERPRINT_VERSION
from sitemapkit.crawl._state import SPEC, CrawlState
from tests.support.server import LocalServer

PAGES = 400

# Runs the real CLI with one fault: the state file may not grow past 40 pages (160 KiB), which SQLite reports
# exactly as it reports a full disk (SQLITE_FULL, "database or disk is full") from the same code paths.
FULL_DISK = """
import runpy, sqlite3, sys
state, real = sys.argv[1], sqlite3.connect
def connect(database, *args, **kwargs):
    db = real(database, *args, **kwargs)
    if str(database) == state:
        db.execute("PRAGMA max_page_count = 40")
    return db
sqlite3.connect = connect
sys.argv = ["sitemapkit", *sys.argv[2:]]
runpy.run_module("sitemapkit", run_name="__main__")
"""


def _site(server: LocalServer) -> str:
    links = "".join(f'<a href="/page-with-a-long-name-{i}">page {i}</a> ' for i in range(PAGES))
    server.route("/", f"<html><body><main>{links}</main></body></html>", content_type="text/html")
    server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    for i in range(PAGES):
        server.route(f"/page-with-a-long-name-{i}", f"<html><body><main><h1>Page {i}</h1>{links}</main></body></html>",
                     content_type="text/html")
    return server.url("/")


@pytest.mark.e2e
def test_a_full_disk_is_one_clear_error_and_the_state_stays_resumable(server: LocalServer, tmp_path: Path) -> None:
    url = _site(server)
    state, out = tmp_path / "state.sqlite", tmp_path / "out"
    argv = ["crawl", url, "--out", str(out), "--state", str(state), "--retries", "0", "-q"]
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(state), *argv], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot commit" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"sitemapkit: error: {state}: the disk is full (writing a crawl state file): free some space "
                     "there, or use another --state file"], done.stderr
    assert not (out / "sitemap.xml").exists()  # nothing published
    check = sqlite3.connect(state)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()
    # What was committed is a crawl that --resume finishes once there is room again.
    again = subprocess.run([sys.executable, "-m", "sitemapkit", *argv, "--resume"], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert (out / "sitemap.xml").read_text("utf-8").count("<loc>") == PAGES + 1


def test_a_state_records_its_kind_schema_and_fingerprint_versions(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with CrawlState(path) as st:
        assert st.get_meta("fingerprint") == str(FINGERPRINT_VERSION)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == SPEC.app_id
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SPEC.version
    raw.close()


def _previous_crawl(path: Path, fingerprint: str | None) -> None:
    with CrawlState(path) as st:
        st.start_new("https://example.com/", "2026-01-01T00:00:00Z")
        st.add_url("https://example.com/", 0)
        if fingerprint is None:
            st.db.execute("DELETE FROM meta WHERE key = 'fingerprint'")
        else:
            st.set_meta("fingerprint", fingerprint)


def test_a_state_of_another_fingerprint_version_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    _previous_crawl(path, str(FINGERPRINT_VERSION + 1))
    with pytest.raises(ConfigurationError) as caught:
        CrawlState(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: its content fingerprints are of version {FINGERPRINT_VERSION + 1}")
    assert "every page would look changed" in message
    assert "Use a new --state file" in message
    assert not (tmp_path / "s.sqlite.lock").exists()  # refused before the crawl: the lock is released


def test_a_state_written_before_versions_were_recorded_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    _previous_crawl(path, None)
    raw = sqlite3.connect(path)  # as sitemapkit left it before: no application id or user version in the header
    raw.execute("PRAGMA application_id = 0")
    raw.execute("PRAGMA user_version = 0")
    raw.commit()
    raw.close()
    with CrawlState(path) as st:
        assert st.get_meta("start_url") == "https://example.com/"  # the previous crawl is kept
        assert st.get_meta("fingerprint") == "1"  # only version 1 existed then
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == SPEC.app_id
    raw.close()


V1_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE urls(id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, depth INTEGER NOT NULL,
    state INTEGER NOT NULL DEFAULT 0, status INTEGER, error TEXT, final_url TEXT, redirects TEXT, content_type TEXT,
    reason TEXT, detail TEXT, in_sitemap INTEGER NOT NULL DEFAULT 0, lastmod TEXT, fingerprint TEXT, images TEXT);
CREATE TABLE links(dst INTEGER NOT NULL, src INTEGER NOT NULL, PRIMARY KEY(dst, src)) WITHOUT ROWID;
"""


def test_a_version_1_state_keeps_its_links_as_rows(tmp_path: Path) -> None:
    # Version 1 kept links sorted by (dst, src); version 2 appends them (link_rows) and indexes them for the report.
    path = tmp_path / "v1.sqlite"
    raw = sqlite3.connect(path)
    raw.executescript(V1_SCHEMA)
    raw.executemany("INSERT INTO urls(id, url, depth, state) VALUES (?, ?, 1, 2)",
                    [(i, f"https://e.com/{c}") for i, c in enumerate("abc", 1)])
    raw.executemany("INSERT INTO links(dst, src) VALUES (?, ?)", [(3, 1), (3, 2), (1, 2)])
    raw.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [("schema", "1"), ("start_url", "https://e.com/"),
                                                                  ("fingerprint", str(FINGERPRINT_VERSION))])
    raw.execute(f"PRAGMA application_id = {SPEC.app_id}")
    raw.execute("PRAGMA user_version = 1")
    raw.commit()
    raw.close()
    with CrawlState(path) as st:
        assert st.referrers(3, 10) == ["https://e.com/a", "https://e.com/b"]
        assert st.referrer_count(1) == 1
        assert st.get_meta("schema") == "2"
        st.add_links(2, [3])  # the same pair again (a page fetched again after a resume): counted once
        assert st.referrer_count(3) == 2
    raw = sqlite3.connect(path)
    tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "links" not in tables
    assert raw.execute("SELECT count(*) FROM link_rows").fetchone()[0] == 4
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SPEC.version == 2
    raw.close()


def test_links_are_appended_while_crawling_and_indexed_for_the_report(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with CrawlState(path) as st:
        st.start_new("https://e.com/", "2026-01-01T00:00:00Z")
        a, b = st.add_url("https://e.com/a", 0), st.add_url("https://e.com/b", 1)
        st.add_links(a, [b])

        def indexes() -> set[str]:
            return {str(r[0]) for r in st.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}

        assert "link_rows_dst" not in indexes()  # no index to keep sorted while crawling
        assert st.referrers(b, 5) == ["https://e.com/a"]
        assert "link_rows_dst" in indexes()  # built once, for the report
        plan = " ".join(str(r[-1]) for r in st.db.execute(
            "EXPLAIN QUERY PLAN SELECT count(DISTINCT src) FROM link_rows WHERE dst = ?", (b,)))
        assert "link_rows_dst" in plan
        st.prepare_resume()
        assert "link_rows_dst" not in indexes()  # crawling again: appended again
        assert st.referrer_count(b) == 1
