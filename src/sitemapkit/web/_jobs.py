"""Crawls run by the web app: options from the API, one thread (and event loop) per running crawl, live counts.

A crawl runs in two steps, both on the library: :class:`~sitemapkit.crawl.Crawler` fills the crawl's state file
(it can be stopped: pause, cancel, server shutdown, and resumed later from the same file); when it ends on its own,
:func:`sitemapkit.crawl.crawl` with ``resume=True`` on that state publishes the sitemap set and the reports (the
crawl job's own checks, start URL failures included). A failure in a crawl marks that crawl ``failed``; it never
reaches the server.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sitemapkit.core import ConfigurationError, SitemapkitError, is_absolute_http_url, run_isolated
from sitemapkit.crawl import (
    CRAWL_OPTION_SPECS,
    Crawler,
    CrawlOptions,
    CrawlProgress,
    CrawlState,
    OptionSpec,
    ReportSummary,
    StartUrlError,
    check_start_url,
    crawl_options_from,
    crawl_site,
    summarize,
)
from sitemapkit.web._store import CrawlRecord, HistoryStore

__all__ = ["WEB_CRAWL_FIELDS", "CrawlManager", "JobError", "parse_crawl_request"]

FORMATS = ("xml", "txt", "html")
#: How often a running crawl's counts are sent to the page (seconds).
UPDATE_INTERVAL = 0.4


class JobError(Exception):
    """A request the crawl manager refuses (bad option, wrong state): the message says what and why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


#: The crawl options the web app takes, by JSON / form field name: the names, defaults and bounds of
#: ``sitemapkit crawl`` (one table, :data:`sitemapkit.crawl.CRAWL_OPTION_SPECS`).
WEB_CRAWL_FIELDS: dict[str, OptionSpec] = {
    spec.name: spec for spec in CRAWL_OPTION_SPECS if spec.name in ("max_pages", "max_depth", "concurrency")}


def _int(data: Mapping[str, Any], spec: OptionSpec) -> int | None:
    key, default = spec.name, spec.default
    value = data.get(key)
    if value is None or value == "":
        return default  # type: ignore[no-any-return]
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise JobError(f"{key}: not a whole number: {value!r}") from None
    if spec.low is not None and n < spec.low:
        raise JobError(f"{key}: must be at least {spec.low:g}, not {n}")
    if spec.high is not None and n > spec.high:
        raise JobError(f"{key}: must be at most {spec.high:g}, not {n}")
    return n


def _patterns(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key) or []
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise JobError(f"{key}: a list of regular expressions (or one per line)")
    return [v.strip() for v in value if v.strip()]


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "on", "yes", "0", "false", "off", "no"):
        return value.lower() in ("1", "true", "on", "yes")
    raise JobError(f"{key}: true or false, not {value!r}")


def parse_crawl_request(data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The start URL and the normalised options of ``POST /api/crawls`` (JSON or the page's form), checked the
    way the crawl checks them: every bad value is a :class:`JobError` naming its field."""
    url = data.get("url")
    if not isinstance(url, str) or not url.strip():
        raise JobError("url: the site's address is required, e.g. https://example.com/")
    url = url.strip()
    formats = data.get("formats") or ["xml", "txt", "html"]
    if isinstance(formats, str):
        formats = [f for f in formats.replace(",", " ").split() if f]
    if not isinstance(formats, list) or not formats or any(f not in FORMATS for f in formats):
        raise JobError(f"formats: one or more of {', '.join(FORMATS)}, not {formats!r}")
    base_url = data.get("base_url") or None
    if base_url is not None and (not isinstance(base_url, str) or not is_absolute_http_url(base_url.strip())):
        raise JobError(f"base_url: not an absolute http(s) URL: {base_url!r}")
    options = {
        **{name: _int(data, spec) for name, spec in WEB_CRAWL_FIELDS.items()},
        "include": _patterns(data, "include"),
        "exclude": _patterns(data, "exclude"),
        "respect_robots": _bool(data, "respect_robots", True),
        "gzip": _bool(data, "gzip", False),
        "formats": list(dict.fromkeys(formats)),
        "base_url": base_url.strip() if base_url else None,
    }
    try:
        check_start_url(url, crawl_options(options))
    except ConfigurationError as exc:
        raise JobError(f"url: {exc}" if "URL" in str(exc) else str(exc)) from None
    return url, options


def crawl_options(options: Mapping[str, Any]) -> CrawlOptions:
    """The :class:`CrawlOptions` of a crawl's stored options (``respect_robots`` is the form's checkbox, the
    opposite of ``--ignore-robots``); what the page does not set keeps the CLI's default."""
    values = {**options, "ignore_robots": not options["respect_robots"]}
    return crawl_options_from({spec.name: values[spec.name] for spec in CRAWL_OPTION_SPECS if spec.name in values})


def counts_of(summary: ReportSummary, progress: CrawlProgress | None = None) -> dict[str, Any]:
    counts: dict[str, Any] = {"crawled": summary.pages_crawled, "in_sitemap": summary.in_sitemap,
                              "broken": summary.broken, "redirects": summary.redirects,
                              "excluded": summary.excluded, "queue": summary.queued_not_crawled}
    if progress is not None:
        counts["pages_per_second"] = round(progress.pages_per_second, 1)
        counts["elapsed"] = round(progress.elapsed, 1)
    return counts


@dataclass
class _Job:
    """A crawl thread and how to stop it."""

    id: str
    thread: threading.Thread | None = None
    crawler: Crawler | None = None
    action: str | None = None  # pause | cancel | shutdown
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stop(self, action: str) -> None:
        with self.lock:
            self.action = action
            if self.crawler is not None:
                self.crawler.stop()


class CrawlManager:
    """Starts, stops and resumes crawls; tells listeners (the live streams) when a crawl changed."""

    def __init__(self, store: HistoryStore) -> None:
        self.store = store
        self._jobs: dict[str, _Job] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: dict[str, asyncio.Event] = {}
        self.closing = asyncio.Event()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    # -- listeners ---------------------------------------------------------------------------------------------
    def changed_event(self, crawl_id: str) -> asyncio.Event:
        return self._changed.setdefault(crawl_id, asyncio.Event())

    def _notify(self, crawl_id: str) -> None:
        event = self._changed.pop(crawl_id, None)
        if event is not None:
            event.set()

    def _notify_threadsafe(self, crawl_id: str) -> None:
        if self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(self._notify, crawl_id)
            except RuntimeError:  # the loop is closed: the server is gone, nobody listens
                pass

    def _update(self, crawl_id: str, **changes: Any) -> None:
        self.store.update(crawl_id, **changes)
        self._notify_threadsafe(crawl_id)

    # -- actions -----------------------------------------------------------------------------------------------
    def is_running(self, crawl_id: str) -> bool:
        job = self._jobs.get(crawl_id)
        return job is not None and job.thread is not None and job.thread.is_alive()

    def start(self, url: str, options: Mapping[str, Any]) -> CrawlRecord:
        record = self.store.create(url, options)
        self._launch(record, resume=False)
        return record

    def resume(self, record: CrawlRecord) -> None:
        if self.is_running(record.id) or record.status not in ("paused", "cancelled"):
            raise JobError(f"crawl {record.id} is {record.status}: only a paused or cancelled crawl can be resumed",
                           409)
        if not self.store.state_path(record.id).exists():
            raise JobError(f"crawl {record.id} has no saved state to resume from", 409)
        self.store.update(record.id, status="queued", error="", note="")
        self._launch(record, resume=True)
        self._notify(record.id)

    def stop(self, record: CrawlRecord, action: str) -> None:
        job = self._jobs.get(record.id)
        if job is None or not self.is_running(record.id):
            raise JobError(f"crawl {record.id} is {record.status}: it is not running", 409)
        job.stop(action)

    def delete(self, record: CrawlRecord) -> None:
        if self.is_running(record.id):
            raise JobError(f"crawl {record.id} is running: cancel it first", 409)
        self._jobs.pop(record.id, None)
        self.store.delete(record.id)
        self._notify(record.id)

    def shutdown(self) -> None:
        """Stop every running crawl (state kept: they are paused and resumable), wake every stream."""
        self.closing.set()
        for job in list(self._jobs.values()):
            job.stop("shutdown")
        for crawl_id in list(self._changed):
            self._notify(crawl_id)

    def join(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        for job in list(self._jobs.values()):
            if job.thread is not None:
                job.thread.join(max(0.0, deadline - time.monotonic()))

    # -- the crawl thread --------------------------------------------------------------------------------------
    def _launch(self, record: CrawlRecord, *, resume: bool) -> None:
        job = _Job(record.id)
        self._jobs[record.id] = job
        job.thread = threading.Thread(target=self._work, args=(job, record, resume), daemon=True,
                                      name=f"crawl-{record.id}")
        job.thread.start()

    def _work(self, job: _Job, record: CrawlRecord, resume: bool) -> None:
        try:
            self._crawl(job, record, resume)
        except StartUrlError as exc:
            self._update(record.id, status="failed", error=f"{exc.reason}; nothing was published")
        except SitemapkitError as exc:
            self._update(record.id, status="failed", error=str(exc))
        except Exception as exc:  # a bug must end this crawl, never the server
            traceback.print_exc(file=sys.stderr)
            self._update(record.id, status="failed", error=f"internal error: {type(exc).__name__}: {exc}")

    def _crawl(self, job: _Job, record: CrawlRecord, resume: bool) -> None:
        options = crawl_options(record.options)
        state_path = self.store.state_path(record.id)
        self._update(record.id, status="running")
        with CrawlState(state_path) as state:
            with job.lock:
                job.crawler = Crawler(record.url, state, options)
                if job.action is not None:
                    job.crawler.stop()
            last = 0.0

            def on_progress(progress: CrawlProgress) -> None:
                nonlocal last
                now = time.monotonic()
                if now - last >= UPDATE_INTERVAL:
                    last = now
                    self._update(record.id, counts=counts_of(summarize(state), progress))

            summary = run_isolated(job.crawler.run(resume=resume, on_progress=on_progress))
            counts = counts_of(summarize(state))
        # Asked to stop before the workers started, the run ends "not stopped" with URLs queued: still a stop.
        if summary.stopped or job.action is not None:
            status, note = {"cancel": ("cancelled", "cancelled from the page"),
                            "shutdown": ("paused", "interrupted: the server stopped during the crawl")}.get(
                job.action or "", ("paused", "paused from the page"))
            self._update(record.id, status=status, counts=counts, note=note)
            return
        self._update(record.id, counts=counts, note="publishing the sitemap set")
        writer = {"gzip": record.options["gzip"], "formats": tuple(record.options["formats"])}
        out = self.store.out_dir(record.id)  # the downloads: the sitemaps and the reports, side by side
        result = crawl_site(record.url, out, options=options, base_url=record.options["base_url"],
                            state_path=state_path, resume=True, writer_options=writer, report_dir=out)
        counts = counts_of(result.report)
        counts["elapsed"] = round(summary.elapsed, 1)
        counts["sitemap_urls"] = result.manifest.urls if result.manifest is not None else 0
        note = "" if result.complete else "stopped at max pages: URLs were left in the queue"
        self._update(record.id, status="done", counts=counts, complete=result.complete, note=note)
