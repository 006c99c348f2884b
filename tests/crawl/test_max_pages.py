"""--max-pages counts every URL fetched, a redirect's target included: a crawl never records more pages than that."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli
from tests.support.server import LocalServer, Response


def test_a_redirect_target_past_the_limit_stays_queued(tmp_path: Path) -> None:
    with LocalServer() as srv:
        srv.route("/", '<html><body><a href="/old">old</a> <a href="/c">c</a></body></html>',
                  content_type="text/html")
        srv.route("/old", handler=lambda req: Response(301, b"", {"Location": "/new"}))
        srv.route("/new", "<html><body>new</body></html>", content_type="text/html")
        srv.route("/c", "<html><body>c</body></html>", content_type="text/html")
        srv.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
        out = tmp_path / "out"
        res = run_cli(["crawl", srv.url("/"), "--out", str(out), "--max-pages", "2", "--concurrency", "1"])
        assert res.returncode == 0, res.stderr
        report = json.loads((tmp_path / "out-report" / "crawl-report.json").read_text())
        assert report["pages_crawled"] == 2  # "/" and "/old"; "/new" would be a third
        assert report["complete"] is False
        resumed = run_cli(["crawl", srv.url("/"), "--out", str(out), "--resume"])
        assert resumed.returncode == 0, resumed.stderr
        final = json.loads((tmp_path / "out-report" / "crawl-report.json").read_text())
        assert final["complete"] is True
        assert final["in_sitemap"] == 3  # /, /new, /c: the target left queued was crawled on resume


def test_a_stop_that_ends_every_worker_is_still_a_stop() -> None:
    # stop() before the first check: every worker ends at once (its next URL is None), which the run loop used
    # to take for the end of the crawl; the CLI then published a partial set and exited 0 after a Ctrl-C.
    import asyncio

    from sitemapkit.crawl import Crawler, CrawlOptions, CrawlState

    with LocalServer() as srv:
        srv.route("/", "<html><body>home</body></html>", content_type="text/html")
        crawler = Crawler(srv.url("/"), CrawlState(":memory:"), CrawlOptions(concurrency=2))
        crawler.stop()
        summary = asyncio.run(crawler.run())
    assert summary.stopped is True
    assert summary.complete is False
