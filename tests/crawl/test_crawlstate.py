"""The SQLite crawl state: breadth-first frontier, resume, history of lastmods."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit import ConfigurationError
from sitemapkit.crawl import CrawlState
from sitemapkit.crawl._state import StateInUseError


def test_frontier_is_breadth_first_and_resumable(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    with CrawlState(path) as st:
        st.start_new("http://e.com/", "2024-01-01T00:00:00+00:00")
        ids = [st.add_url("http://e.com/deep", 3), st.add_url("http://e.com/", 0), st.add_url("http://e.com/b", 1)]
        claimed = st.claim(2)
        assert [q.url for q in claimed] == ["http://e.com/", "http://e.com/b"]
        st.record(claimed[0].id, status=200, in_sitemap=True, lastmod="2024-01-01", fingerprint="f1")
        assert st.queued_count() == 1
    # Reopened after a stop: the in-flight URL goes back to the queue; the recorded one stays done.
    with CrawlState(path) as st:
        st.prepare_resume()
        assert [q.url for q in st.claim(10)] == ["http://e.com/b", "http://e.com/deep"]
        assert st.fetched_count() == 1
        assert st.lookup("http://e.com/deep") == ids[0]
        assert not st.claim_one(ids[0])  # already in flight


def test_new_crawl_keeps_previous_lastmods_as_history(tmp_path: Path) -> None:
    with CrawlState(tmp_path / "s.sqlite") as st:
        st.start_new("http://e.com/", "T1")
        uid = st.add_url("http://e.com/", 0)
        st.record(uid, status=200, in_sitemap=True, lastmod="2024-01-01", fingerprint="abc")
        st.start_new("http://e.com/", "T2")
        assert st.previous("http://e.com/") == ("abc", "2024-01-01")
        assert st.lookup("http://e.com/") is None
        assert st.get_meta("crawl_time") == "T2"


def test_query_variants_and_referrers() -> None:
    st = CrawlState(":memory:")
    assert [st.bump_query_variants("/cal") for _ in range(3)] == [1, 2, 3]
    a, b, c = (st.add_url(f"http://e.com/{x}", 1) for x in "abc")
    st.add_links(a, [c])
    st.add_links(b, [c, c])
    assert st.referrers(c, 10) == ["http://e.com/a", "http://e.com/b"]
    assert st.referrer_count(c) == 2
    st.close()


def test_not_a_state_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ConfigurationError, match="crawl state"):
        CrawlState(bad)


def test_one_process_at_a_time_per_state_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    lock = tmp_path / "s.sqlite.lock"
    with CrawlState(path) as st:
        st.start_new("http://e.com/", "T1")
        assert lock.read_text().strip() == str(os.getpid())
        with pytest.raises(StateInUseError, match=rf"state file {re.escape(str(path))} is in use by process "
                                                  rf"{os.getpid()}\b"):
            CrawlState(path)
        assert st.get_meta("start_url") == "http://e.com/"  # the refused open changed nothing
    assert not lock.exists()
    with CrawlState(path) as st:
        assert st.get_meta("crawl_time") == "T1"


def test_a_killed_owner_leaves_no_lock(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom sitemapkit.crawl import CrawlState\n"
         f"st = CrawlState({str(path)!r})\nprint('ready', flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "ready"
            with pytest.raises(StateInUseError, match=f"in use by process {holder.pid}"):
                CrawlState(path)
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait(30)
    assert (tmp_path / "s.sqlite.lock").exists()  # left behind by kill -9, but no longer locked
    with CrawlState(path) as st:
        assert st.get_meta("schema") == "1"
