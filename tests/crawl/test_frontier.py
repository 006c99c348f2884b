"""A page's links met together (one lookup, one insert) give the rows and ids that meeting them one by one gives."""

from __future__ import annotations

from pathlib import Path

from sitemapkit import CrawlOptions
from sitemapkit.crawl import CrawlState
from sitemapkit.crawl._crawler import Crawler
from sitemapkit.crawl._frontier import UrlIds

START = "https://www.example.com/"
PAGES = [
    # (depth, links): known ones, new ones, out of scope, traps (query variants past 2, too deep), repeats
    (1, ["/a", "/b", "https://other.org/x", "/cal?d=1", "/cal?d=2", "/cal?d=3", "/a"]),
    (2, ["/b", "/c", "/cal?d=4", "/d", "/private/x", "/cal?d=1"]),
    (4, ["/e", "/f", "/a"]),  # deeper than --max-depth 3: new ones are traps, known ones keep their rows
    (2, []),
    (3, ["/g", "/c", "/h", "/g2"]),
    (3, ["/n1", "/n2", "/n3", "/h", "/g2"]),  # new links, then the last page's
]


def rows(state: CrawlState) -> list[tuple[object, ...]]:
    return state.db.execute("SELECT id, url, depth, state, reason, detail FROM urls ORDER BY id").fetchall()


def run(tmp_path: Path, name: str, together: bool, size: int = 1000) -> tuple[list[list[int]], list[tuple[object, ...]],
                                                                              object]:
    with CrawlState(tmp_path / f"{name}.sqlite") as state:
        crawler = Crawler(START, state, CrawlOptions(max_depth=3, max_query_variants=2, exclude=("/private/",)))
        state.add_url(START, 0)
        ids = UrlIds(state, crawler._classify, size=size)
        met: list[list[int]] = []
        for n, (depth, links) in enumerate(PAGES):
            urls = list(dict.fromkeys(START.rstrip("/") + u if u.startswith("/") else u for u in links))
            met.append(ids.discover_many(urls, depth) if together else [ids.discover(u, depth) for u in urls])
            if n == 1:
                state.commit()
                state.begin()
                ids = UrlIds(state, crawler._classify, size=size)  # an empty LRU: what it held comes from the table now
        variants = state.db.execute("SELECT path, n FROM query_variants ORDER BY path").fetchall()
        return met, rows(state), variants


def test_links_met_together_get_the_rows_and_ids_of_links_met_one_by_one(tmp_path: Path) -> None:
    one_by_one = run(tmp_path, "single", together=False)
    together = run(tmp_path, "batch", together=True)
    assert together == one_by_one
    met, table, _ = together
    assert [r[4] for r in table].count("trap") == 4  # the third and fourth calendar day, /e and /f
    assert met[2][2] == met[0][0]  # a known URL keeps its id


def test_ids_follow_single_inserts(tmp_path: Path) -> None:
    with CrawlState(tmp_path / "s.sqlite") as state:
        assert state.add_urls([("https://e.com/a", 1, 0, None, None)]) == [1]
        assert state.add_url("https://e.com/b", 1) == 2
        two = [("https://e.com/c", 1, 0, None, None), ("https://e.com/d", 1, 3, "scope", "x")]
        assert state.add_urls(two) == [3, 4]
        state.commit()
        assert state.add_url("https://e.com/e", 1) == 5
        assert state.lookup_many(["https://e.com/d", "https://e.com/zz", "https://e.com/a"]) == {
            "https://e.com/d": 4, "https://e.com/a": 1}
        assert state.queued_count() == 4


def test_a_page_with_more_new_links_than_the_lru_holds(tmp_path: Path) -> None:
    # Remembering a page's new links pushes the oldest entries out, the page's own known links among them.
    assert run(tmp_path, "small", together=True, size=2) == run(tmp_path, "small-single", together=False, size=2)
