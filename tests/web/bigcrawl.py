"""A finished crawl with many broken links, written straight into a web app's history (no network): the crawl
state gets a home page linking to ``n`` URLs that answered 404 or 410, the crawl layer writes its reports from
it, and the history lists the crawl as done. What a site with 20,000 dead links leaves behind, in a few seconds.

The state and the reports are written first, in a folder of their own, and moved into the history's folder of
the crawl when it is listed: a server starting meanwhile never sees a crawl half written."""

from __future__ import annotations

import shutil
from pathlib import Path

from sitemapkit.crawl import CrawlState, summarize, write_crawl_reports
from sitemapkit.web._store import HistoryStore

SITE = "https://kiwi-shop.example"


def _write(work: Path, n: int) -> dict[str, object]:
    with CrawlState(work / "state.sqlite") as state:
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
        report = write_crawl_reports(state, work / "out", complete=True)
        assert summarize(state).broken == n
    return {"crawled": report.pages_crawled, "in_sitemap": report.in_sitemap, "broken": report.broken,
            "redirects": report.redirects, "excluded": report.excluded, "queue": 0, "elapsed": 12.0,
            "pages_per_second": round(report.pages_crawled / 12.0, 1)}


def seed_big_crawl(data_dir: Path, n: int) -> str:
    """Add a done crawl of ``SITE`` with ``n`` broken links (and ``n // 10`` redirects) to the history in
    ``data_dir``; returns its id."""
    work = data_dir.parent / f"seed-{n}"
    work.mkdir(parents=True)
    counts = _write(work, n)
    store = HistoryStore(data_dir)
    try:
        record = store.create(SITE + "/", {"formats": ["xml"], "gzip": False, "base_url": None,
                                           "respect_robots": True, "include": [], "exclude": []})
        folder = store.folder(record.id)
        for name in ("state.sqlite", "out"):
            shutil.move(work / name, folder / name)
        store.update(record.id, status="done", counts=counts, complete=True, note="")
        return record.id
    finally:
        store.close()
        shutil.rmtree(work, ignore_errors=True)
