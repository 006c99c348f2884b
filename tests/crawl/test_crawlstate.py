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
from sitemapkit.crawl._state import SCHEMA_VERSION, StateInUseError


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
        assert st.get_meta("schema") == str(SCHEMA_VERSION)


def test_sorts_spill_to_temporary_files_not_memory(tmp_path: Path) -> None:
    # The report sorts every excluded URL (ORDER BY reason, url): with temp_store=MEMORY that sort lived in RAM
    # and grew with the site (about 200 MB for a million excluded URLs); on file it stays bounded.
    with CrawlState(tmp_path / "s.sqlite") as st:
        assert st.db.execute("PRAGMA temp_store").fetchone()[0] == 1  # 1 = FILE


def test_queued_tracked_matches_the_table(tmp_path: Path) -> None:
    # Progress displays ask for the queue size several times a second; queued_tracked() keeps it in memory
    # instead of counting a frontier of up to millions of rows each time. Every operation the crawler uses to
    # move URLs in or out of the queue keeps it equal to the count in the table.
    import random

    from sitemapkit.crawl._state import IN_FLIGHT, SKIPPED

    def table(st: CrawlState) -> int:
        return int(st.db.execute("SELECT count(*) FROM urls WHERE state = 0").fetchone()[0])

    rnd = random.Random(7)
    path = tmp_path / "s.sqlite"
    with CrawlState(path) as st:
        st.start_new("http://e.com/", "T1")
        assert st.queued_tracked() == 0
        ids: list[int] = []
        in_flight: set[int] = set()
        for n in range(600):
            op = rnd.randrange(6)
            if op <= 1:
                kind = rnd.choice([0, 0, 0, IN_FLIGHT, SKIPPED])
                ids.append(st.add_url(f"http://e.com/{n}", rnd.randrange(4), state=kind))
                if kind == IN_FLIGHT:
                    in_flight.add(ids[-1])
            elif op == 2:
                in_flight |= {q.id for q in st.claim(rnd.randrange(1, 5))}
            elif op == 3 and ids:
                pick = rnd.choice(ids)
                if st.claim_one(pick):
                    in_flight.add(pick)
            elif op == 4 and ids:
                back = [*rnd.sample(sorted(in_flight), min(len(in_flight), 2)), rnd.choice(ids)]
                st.unclaim(back)  # ids not in flight are left alone
                in_flight -= set(back)
            elif in_flight:
                st.record(in_flight.pop(), status=200)
            assert st.queued_tracked() == table(st) == st.queued_count(), n
        assert 0 < table(st) < len(ids)
    with CrawlState(path) as st:  # reopened: counted from the table, then kept
        st.prepare_resume()
        assert st.queued_tracked() == table(st) > 0
        st.claim(2)
        assert st.queued_tracked() == table(st)
        st.start_new("http://e.com/", "T2")
        assert st.queued_tracked() == 0 == table(st)


def test_counts_in_one_pass_equal_the_single_counts() -> None:
    st = CrawlState(":memory:")
    assert st.counts("state = 2", "in_sitemap = 1") == [0, 0]  # an empty table counts 0, not NULL
    ids = [st.add_url(f"http://e.com/{i}", 1) for i in range(7)]
    st.claim(5)
    for i in ids[:3]:
        st.record(i, status=200, in_sitemap=True)
    st.record(ids[3], status=404, reason="error", detail="HTTP 404")
    st.record(ids[4], status=None, error="reset", reason="error", detail="reset")
    wheres = ["state = 2", "in_sitemap = 1", "state = 2 AND (status >= 400 OR error IS NOT NULL)", "state IN (0, 1)",
              "reason IS NOT NULL"]
    assert st.counts(*wheres) == [st.count(w) for w in wheres] == [5, 3, 2, 2, 2]
    assert [list(r) for r in st.select("url, reason", "reason IS NOT NULL")] == [["http://e.com/3", "error"],
                                                                                 ["http://e.com/4", "error"]]
    st.close()
