"""The crawl job: crawl a site with a state file, publish its sitemap set and write the crawl reports.

:func:`crawl_site` is what ``sitemapkit crawl`` does after parsing its arguments (the CLI only adapts it)::

    check everything (start URL, options, sitemap-set options, state file)   nothing created before this
    Crawler.run  ->  state file (SQLite, per site under the user cache directory unless given)
    start URL not crawled (unreachable, HTTP error, robots.txt)?  ->  StartUrlError, nothing published
    stopped?  ->  reports only (complete: false), the sitemap set is left as it was
    sitemap_entries (mapped onto base_url for a staging crawl)  ->  SitemapSetWriter  ->  reports

Staging crawls: when ``base_url`` is on another origin than the crawled site, every page URL (and hreflang
href and image URL) under the crawled origin and path is written under ``base_url`` instead (see
:class:`UrlMapping`); the crawl report keeps the URLs as crawled.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sitemapkit.core import (
    Alternate,
    ConfigurationError,
    Image,
    InputError,
    InvalidValueError,
    LastMod,
    Location,
    Problem,
    PublishError,
    SitemapHints,
    UrlEntry,
    is_placeholder_host,
    run_isolated,
)
from sitemapkit.crawl._crawler import SM701, Crawler, check_start_url
from sitemapkit.crawl._images import title_lookup
from sitemapkit.crawl._options import CrawlOptions, CrawlProgress, CrawlSummary, Scope
from sitemapkit.crawl._reach import StartUrlError, start_failure
from sitemapkit.crawl._report import ReportSummary, default_report_dir, remove_published_reports, write_crawl_reports
from sitemapkit.crawl._state import CrawlState
from sitemapkit.write import Manifest, SitemapSetWriter

__all__ = ["CrawlResult", "UrlMapping", "crawl_site", "default_state_path", "site_root", "sitemap_entries"]

#: The state file's name in its per-site folder under the user cache directory.
STATE_NAME = "state.sqlite"


def default_state_path(start_url: str) -> Path:
    """Where a crawl of ``start_url`` keeps its state unless told otherwise: one folder per site (scheme, host,
    port) under the user cache directory (``$XDG_CACHE_HOME/sitemapkit/crawl/`` on Linux), never the published
    folder (a state file deployed with the sitemaps would publish the whole crawl)."""
    import platformdirs

    p = urlsplit(start_url)
    key = f"{p.scheme}_{p.hostname or ''}" + (f"_{p.port}" if p.port else "")
    key = re.sub(r"[^A-Za-z0-9._-]", "_", key)
    return platformdirs.user_cache_path("sitemapkit", appauthor=False) / "crawl" / key / STATE_NAME


def site_root(url: str, scope: Scope = Scope.HOST) -> str:
    """The root of the site a crawl from ``url`` covers: its directory for ``prefix`` scope, else ``origin/``."""
    p = urlsplit(url)
    path = p.path[: p.path.rfind("/") + 1] if scope is Scope.PREFIX else "/"
    return f"{p.scheme}://{p.netloc}{path or '/'}"


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urlsplit(url)
    scheme = p.scheme.lower()
    port = p.port
    if port == {"http": 80, "https": 443}.get(scheme):
        port = None
    return scheme, (p.hostname or "").lower(), port


@dataclass(frozen=True, slots=True)
class UrlMapping:
    """Staging crawl: URLs under ``crawled`` (origin and path of the crawled site) are published under ``base``.
    When both have the same path the whole crawled origin maps onto the base URL's origin."""

    crawled: str
    base: str

    @classmethod
    def between(cls, crawled_root: str, base_url: str) -> UrlMapping | None:
        """The mapping a crawl of ``crawled_root`` published at ``base_url`` needs: None on the same origin."""
        if _origin(crawled_root) == _origin(base_url):
            return None
        return cls(crawled_root, base_url if base_url.endswith("/") else base_url + "/")

    def __call__(self, url: str) -> str:
        if url.startswith(self.crawled):
            return self.base + url[len(self.crawled):]
        crawled, base = urlsplit(self.crawled), urlsplit(self.base)
        if crawled.path == base.path:
            origin = f"{crawled.scheme}://{crawled.netloc}"
            if url.startswith(origin + "/") or url == origin:
                return f"{base.scheme}://{base.netloc}" + url[len(origin):]
        return url

    def source_of(self, url: str) -> str:
        """The crawled URL a written one came from (the inverse of calling the mapping)."""
        if url.startswith(self.base):
            return self.crawled + url[len(self.base):]
        crawled, base = urlsplit(self.crawled), urlsplit(self.base)
        if crawled.path == base.path:
            origin = f"{base.scheme}://{base.netloc}"
            if url.startswith(origin + "/") or url == origin:
                return f"{crawled.scheme}://{crawled.netloc}" + url[len(origin):]
        return url

    def describe(self) -> str:
        return (f"--base-url is on another origin than the crawled site: URLs under {self.crawled} are written "
                f"under {self.base}")


def local_origin_notice(published_at: str) -> str | None:
    """The one line a crawl prints when its sitemaps will list URLs on a local or placeholder host (127.0.0.1,
    localhost, ::1, example.com, *.test, ...): such a set is for a preview, and ``--base-url`` names the public
    address. None for any other host."""
    host = urlsplit(published_at).hostname or ""
    if not is_placeholder_host(host):
        return None
    return (f"note: the sitemaps list URLs on {host}, a local or placeholder host (validate warns: SM307); to "
            "publish them, crawl again with --base-url https://<the site's public host>/")


def sitemap_entries(state: CrawlState, map_url: Callable[[str], str] | None = None,
                    hints: SitemapHints | None = None) -> Iterator[UrlEntry]:
    """The sitemap's entries from a crawl state, by URL: every indexable page with its lastmod, confirmed
    hreflang alternates (reciprocal, self included) and images. Streams from SQLite. ``map_url`` rewrites
    every URL written (page, hreflang href, image), e.g. a :class:`UrlMapping`. ``hints`` give changefreq and
    priority, by the crawled URL's path (see :class:`~sitemapkit.core.SitemapHints`)."""
    m = map_url or (lambda u: u)
    for page_id, url, lastmod, images_json in state.sitemap_pages():
        alternates = state.confirmed_alternates(page_id, url)
        # A cluster of one (only the page itself) says nothing.
        alts = tuple(Alternate(lang, m(href)) for lang, href in alternates) if len(alternates) > 1 else ()
        images = tuple(Image(m(loc)) for loc in json.loads(images_json)) if images_json else ()
        last = LastMod(lastmod) if lastmod else None
        changefreq, priority = hints.values(url) if hints is not None else (None, None)
        try:
            yield UrlEntry(loc=m(url), lastmod=last, changefreq=changefreq, priority=priority, alternates=alts,
                           images=images)
        except InvalidValueError:
            # An image URL the protocol rejects must not drop the page itself.
            yield UrlEntry(loc=m(url), lastmod=last, changefreq=changefreq, priority=priority, alternates=alts)


@dataclass(frozen=True, slots=True)
class CrawlResult:
    """What :func:`crawl_site` did. ``manifest`` is None when the crawl was stopped (nothing published); ``mapping``
    is set for a staging crawl (URLs rewritten onto ``base_url``); ``not_written`` counts pages whose URL the
    protocol rejects (each reported as SM701); ``report_dir`` holds ``crawl-report.json`` and ``report.html``."""

    start_url: str
    out_dir: Path
    state_path: Path
    base_url: str
    run: CrawlSummary
    report: ReportSummary
    manifest: Manifest | None
    mapping: UrlMapping | None
    not_written: int
    report_dir: Path

    @property
    def stopped(self) -> bool:
        return self.run.stopped

    @property
    def complete(self) -> bool:
        return self.run.complete


async def _run(crawler: Crawler, resume: bool, on_progress: Callable[[CrawlProgress], None] | None,
               handle_signals: bool) -> CrawlSummary:
    loop = asyncio.get_running_loop()
    interrupted = False

    def on_signal() -> None:
        nonlocal interrupted
        if interrupted:  # a second Ctrl-C: stop at once
            raise KeyboardInterrupt
        interrupted = True
        crawler.stop()

    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM) if handle_signals else ():
        try:
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - platforms without signal handlers
            pass
    try:
        return await crawler.run(resume=resume, on_progress=on_progress)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


def _state_file(start: str, state_path: str | os.PathLike[str] | None, out: Path, resume: bool) -> Path:
    state_file = Path(state_path) if state_path is not None else default_state_path(start)
    if resume and not state_file.exists():
        raise InputError(f"--resume: no crawl state at {state_file}")
    if state_path is not None and not state_file.parent.is_dir() \
            and not state_file.parent.resolve().is_relative_to(out.resolve()):
        raise ConfigurationError(f"--state: the directory {state_file.parent} does not exist")
    return state_file


def crawl_site(url: str, out_dir: str | os.PathLike[str], *, options: CrawlOptions | None = None,
               base_url: str | None = None, state_path: str | os.PathLike[str] | None = None,
               resume: bool = False, writer_options: Mapping[str, Any] | None = None,
               on_progress: Callable[[CrawlProgress], None] | None = None,
               on_problem: Callable[[Problem], None] | None = None,
               on_notice: Callable[[str], None] | None = None,
               handle_signals: bool = False, now: Callable[[], datetime] | None = None,
               report_dir: str | os.PathLike[str] | None = None) -> CrawlResult:
    """Crawl the site at ``url``, publish its sitemap set in ``out_dir`` and write ``crawl-report.json`` and
    ``report.html`` into ``report_dir`` (default :func:`default_report_dir`: ``<out_dir>-report`` beside it, so
    what is published holds the sitemaps only). Example::

        from sitemapkit import crawl_site, CrawlOptions
        result = crawl_site("https://example.com/", "public/", options=CrawlOptions(max_pages=500))
        print(result.report.in_sitemap, result.manifest.entry_point)

    ``base_url``: where ``out_dir`` is served (default: the crawled site's root); on another origin than the
    crawled site, URLs are mapped onto it (a staging crawl, see :class:`UrlMapping`; ``on_notice`` is told).
    ``state_path``: the SQLite crawl state (default :func:`default_state_path`); keep it between crawls so
    unchanged pages keep their lastmod, and pass ``resume=True`` to continue a stopped crawl.
    ``writer_options``: keyword arguments for :class:`~sitemapkit.SitemapSetWriter` (gzip, formats, ...).
    ``on_problem`` receives the SM701 problems of pages that cannot be written. ``handle_signals``: Ctrl-C and
    SIGTERM stop the crawl cleanly (a second one at once) instead of raising. ``now``: the clock the crawl's
    time (the lastmod of a page new or changed since the last crawl) is read from (default: the current time).

    Raises :class:`ConfigurationError` for bad arguments (before anything is created), :class:`StartUrlError`
    when the start URL cannot be crawled (nothing is published), :class:`PublishError` when publishing fails
    (the reports are written, the previous set is left as it was)."""
    options = options or CrawlOptions()
    writer_kwargs = dict(writer_options or {})
    # Every argument is checked before anything is created: a bad one leaves no output folder, no state file.
    start = check_start_url(url, options)
    out = Path(out_dir)
    SitemapSetWriter(out, base_url or site_root(start), **writer_kwargs)  # checks only, creates nothing
    state_file = _state_file(start, state_path, out, resume)
    reports = Path(report_dir) if report_dir is not None else default_report_dir(out)
    created_out = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    state_file.parent.mkdir(parents=True, exist_ok=True)
    with CrawlState(state_file) as state:
        crawler = Crawler(url, state, options, now=now)
        summary = run_isolated(_run(crawler, resume, on_progress, handle_signals))
        if summary.stopped:
            report = write_crawl_reports(state, reports, complete=False)
            return CrawlResult(start, out, state_file, base_url or "", summary, report, None, None, 0, reports)
        failure = run_isolated(start_failure(state, crawler.start_url, connect_timeout=options.connect_timeout))
        if failure is not None:
            if created_out:
                try:
                    out.rmdir()  # only if still empty
                except OSError:
                    pass
            raise StartUrlError(failure, url=crawler.start_url)
        crawled_root = site_root(state.get_meta("scope_url") or crawler.start_url, options.scope)
        published_at = base_url or site_root(crawled_root)
        mapping = UrlMapping.between(crawled_root, base_url) if base_url else None
        if mapping is not None and on_notice is not None:
            on_notice(mapping.describe())
        local = local_origin_notice(published_at)
        if local is not None and on_notice is not None:
            on_notice(local)
        not_written = 0
        try:
            titles = title_lookup(state, mapping.source_of if mapping is not None else None)
            with SitemapSetWriter(out, published_at, page_titles=titles, **writer_kwargs) as writer:
                for entry in sitemap_entries(state, mapping, options.hints):
                    try:
                        writer.add(entry)
                    except InvalidValueError as exc:
                        not_written += 1
                        if on_problem is not None:
                            on_problem(SM701.problem(Location(entry.loc), f"not written to the sitemap: {exc}"))
        except PublishError:
            write_crawl_reports(state, reports, complete=summary.complete)
            raise
        manifest = writer.manifest
        assert manifest is not None
        report = write_crawl_reports(state, reports, complete=summary.complete, sitemap=manifest.to_dict())
        stale = remove_published_reports(out, reports)
        if stale and on_notice is not None:
            on_notice(f"removed {', '.join(stale)} from {out}: an earlier crawl published its reports there; they "
                      f"are in {reports} now")
    return CrawlResult(start, out, state_file, published_at, summary, report, manifest, mapping, not_written,
                       reports)
