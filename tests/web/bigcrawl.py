"""A finished crawl with many broken links, written straight into a web app's history (no network): the crawl
state gets a home page linking to ``n`` URLs that answered 404, the crawl layer writes its reports from it, and
the history lists the crawl as done. What a site with 20,000 dead links leaves behind, in a second or two."""

from __future__ import annotations

from pathlib import Path

from sitemapkit.crawl import CrawlState, summarize, write_crawl_reports
from sitemapkit.web._store import HistoryStore

SITE = "https://kiwi-shop.example"


def seed_big_crawl(data_dir: Path, n: int) -> str:
    """Add a done crawl of ``SITE`` with ``n`` broken links (and ``n // 10`` redirects) to the history in
    ``data_dir``; returns its id."""
    store = HistoryStore(data_dir)
    try:
        record = store.create(SITE + "/", {"formats": ["xml"], "gzip": False, "base_url": None,
                                           "respect_robots": True, "include": [], "exclude": []})
        with CrawlState(store.folder(record.id) / "state.sqlite") as state:
            state.start_new(SITE + "/", "2026-11-26T09:00:00Z")
            state.begin()
            home = state.add_url(SITE + "/", 0)
            state.record(home, status=200, content_type="text/html", in_sitemap=True)
            ids = []
            for i in range(n):
                url_id = state.add_url(f"{SITE}/products/item-{i:05d}.html", 1)
                status = 404 if i % 7 else 410
                state.record(url_id, status=status, reason="error", detail=f"HTTP {status}")
                ids.append(url_id)
            for i in range(n // 10):
                url_id = state.add_url(f"{SITE}/old/{i}", 1)
                state.record(url_id, status=200, final_url=f"{SITE}/new/{i}", redirects=[(f"{SITE}/old/{i}", 301)],
                             reason="redirect", detail=f"redirects to {SITE}/new/{i}")
                ids.append(url_id)
            state.add_links(home, ids)
            state.commit()
            report = write_crawl_reports(state, store.out_dir(record.id), complete=True)
            counts = {"crawled": report.pages_crawled, "in_sitemap": report.in_sitemap, "broken": report.broken,
                      "redirects": report.redirects, "excluded": report.excluded, "queue": 0, "elapsed": 12.0,
                      "pages_per_second": round(report.pages_crawled / 12.0, 1)}
            assert summarize(state).broken == n
        store.update(record.id, status="done", counts=counts, complete=True)
        return record.id
    finally:
        store.close()
