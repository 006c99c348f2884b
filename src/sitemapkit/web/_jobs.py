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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sitemapkit.core import (
    ConfigurationError,
    InvalidValueError,
    SitemapkitError,
    bare_host_url,
    is_absolute_http_url,
    parse_hints,
    run_isolated,
)
from sitemapkit.crawl import (
    CRAWL_OPTION_SPECS,
    Crawler,
    CrawlOptions,
    CrawlProgress,
    CrawlState,
    OptionSpec,
    ReportSummary,
    StartUrlError,
    UrlMapping,
    check_start_url,
    crawl_options_from,
    crawl_site,
    sitemap_entries,
    summarize,
    write_crawl_reports,
)
from sitemapkit.fetch import resolve_site_url
from sitemapkit.web._store import CrawlRecord, HistoryStore
from sitemapkit.write import SitemapSetWriter

__all__ = ["WEB_CRAWL_FIELDS", "CrawlManager", "JobError", "parse_crawl_request"]

FORMATS = ("xml", "txt", "html")
#: How often a running crawl's counts are sent to the page (seconds).
UPDATE_INTERVAL = 0.4


class JobError(Exception):
    """A request the crawl manager refuses (bad option, wrong state): the message says what and why, in the
    form's words; ``field`` names the form field at fault (the page focuses it)."""

    def __init__(self, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.field = field


#: The crawl options of :data:`sitemapkit.crawl.CRAWL_OPTION_SPECS` the web form shows (in this order), by
#: JSON / form field name: the names, defaults, bounds and help of ``sitemapkit crawl``. The form and the parser
#: follow each spec's kind, so a spec added here shows up on the page and in the API.
WEB_CRAWL_OPTIONS = ("max_pages", "max_depth", "concurrency", "include", "exclude", "changefreq", "priority", "rule",
                     "images")
WEB_CRAWL_FIELDS: dict[str, OptionSpec] = {
    spec.name: spec for name in WEB_CRAWL_OPTIONS for spec in CRAWL_OPTION_SPECS if spec.name == name}
#: What the form calls each field (messages use these words, never a CLI flag or an API field name).
FIELD_LABELS = {"url": "Site address", "base_url": "Public base URL", "respect_robots": "Respect robots.txt",
                "gzip": "Gzip", "formats": "Output files", "include": "Include (regex, one per line)",
                "exclude": "Exclude (regex, one per line)", "changefreq": "Change frequency",
                "priority": "Priority", "rule": "Rules (one per line)", "rules": "Rules (one per line)",
                "images": "List and check images"}


def field_label(name: str) -> str:
    """The form's label of a field: ``max_pages`` is "Max pages"."""
    return FIELD_LABELS.get(name) or name.replace("_", " ").capitalize()


def _fail(key: str, message: str) -> JobError:
    return JobError(f"{field_label(key)}: {message}", field=key)


def _number(data: Mapping[str, Any], spec: OptionSpec) -> float | int | None:
    key, default = spec.name, spec.default
    value = data.get(key)
    if value is None or value == "":
        return default  # type: ignore[no-any-return]
    whole = spec.kind == "int"
    try:
        n: float | int = int(value) if whole else float(value)
    except (TypeError, ValueError):
        raise _fail(key, f"not a {'whole ' if whole else ''}number: {value!r}") from None
    if spec.low is not None and n < spec.low:
        raise _fail(key, f"must be at least {spec.low:g}, not {n}")
    if spec.high is not None and n > spec.high:
        raise _fail(key, f"must be at most {spec.high:g}, not {n}")
    return n


def _patterns(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(key, "a list of regular expressions (or one per line)")
    return [line.strip() for v in value for line in v.splitlines() if line.strip()]


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, list) and value:  # a form's hidden "false" followed by the ticked checkbox's "true"
        value = value[-1]
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "on", "yes", "0", "false", "off", "no"):
        return value.lower() in ("1", "true", "on", "yes")
    raise _fail(key, f"tick it or not (true or false), not {value!r}")


def _option(data: Mapping[str, Any], spec: OptionSpec) -> Any:
    """One option of the form, parsed by its spec's kind."""
    if spec.kind in ("int", "float"):
        return _number(data, spec)
    if spec.kind in ("patterns", "names", "rules"):
        return _patterns(data, spec.name)
    if spec.kind == "flag":
        return _bool(data, spec.name, bool(spec.default))
    value = data.get(spec.name)
    if value is None or value == "":
        return spec.default
    if not isinstance(value, str):
        raise _fail(spec.name, f"a text, not {value!r}")
    if spec.kind == "choice" and value not in spec.choices:
        raise _fail(spec.name, f"one of {', '.join(spec.choices)}, not {value!r}")
    return value.strip()


def form_words(message: str) -> str:
    """A library message in the form's words: the CLI's flags become the form's labels."""
    message = message.replace("--ignore-robots crawls it anyway", 'untick "Respect robots.txt" to crawl it anyway')
    for spec in CRAWL_OPTION_SPECS:
        message = message.replace(spec.flag, f'"{field_label(spec.name)}"')
    return message


def parse_crawl_request(data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The start URL and the normalised options of ``POST /api/crawls`` (JSON or the page's form), checked the
    way the crawl checks them: every bad value is a :class:`JobError` naming its field."""
    url = data.get("url")
    if not isinstance(url, str) or not url.strip():
        raise _fail("url", "the site's address is required, e.g. example.com or https://example.com/")
    url = url.strip()
    # No "formats" at all: the three (an API default). Given but empty (the form with every box unticked): an error.
    formats = data.get("formats", ["xml", "txt", "html"])
    if isinstance(formats, str):
        formats = formats.replace(",", " ").split()
    if isinstance(formats, list):
        formats = [f for f in formats if f != ""]
    if not isinstance(formats, list) or any(f not in FORMATS for f in formats):
        raise _fail("formats", f"one or more of {', '.join(FORMATS)}, not {formats!r}")
    if not formats:
        raise _fail("formats", "tick at least one file to write (sitemap.xml, sitemap.txt or sitemap.html)")
    base_url = data.get("base_url") or None
    if base_url is not None and (not isinstance(base_url, str) or not is_absolute_http_url(base_url.strip())):
        raise _fail("base_url", f"not an absolute http(s) URL: {base_url!r}")
    options = {
        **{name: _option(data, spec) for name, spec in WEB_CRAWL_FIELDS.items()},
        "respect_robots": _bool(data, "respect_robots", True),
        "gzip": _bool(data, "gzip", False),
        "formats": list(dict.fromkeys(formats)),
        "base_url": base_url.strip() if base_url else None,
        **_hints(data),
    }
    try:
        check_start_url(url, crawl_options(options))
    except ConfigurationError as exc:
        text = form_words(str(exc))
        raise (_fail("url", text) if "URL" in text else JobError(text)) from None
    return url, options


def _hints(data: Mapping[str, Any]) -> dict[str, Any]:
    """``images``, ``changefreq``, ``priority`` and ``rules`` (a list of ``--rule`` strings, or one a line), stored
    under their crawl option names; checked as the CLI checks them, errors named by the field."""
    changefreq = data.get("changefreq") or None
    priority = data.get("priority") or None
    if changefreq is not None and not isinstance(changefreq, str):
        raise _fail("changefreq", f"not a change frequency: {changefreq!r}")
    if priority is not None and not isinstance(priority, (str, int, float)):
        raise _fail("priority", f"a number from 0.0 to 1.0 or 'depth', not {priority!r}")
    rules = data.get("rules") or data.get("rule") or []  # the API's "rules", the form's "rule" field
    if isinstance(rules, str):
        rules = rules.splitlines()
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise _fail("rule", "a list of 'GLOB changefreq=VALUE priority=VALUE' (or one per line)")
    rules = [r.strip() for r in rules if r.strip()]
    priority = None if priority is None else str(priority)
    try:
        parse_hints(changefreq, priority, rules)
    except ConfigurationError as exc:
        text = str(exc)
        key = next((k for k in ("rule", "changefreq", "priority") if text.startswith(f"--{k}")), "rule")
        raise JobError(form_words(text), field=key) from None
    return {"images": _bool(data, "images", False), "changefreq": changefreq, "priority": priority, "rule": rules}


def crawl_options(options: Mapping[str, Any]) -> CrawlOptions:
    """The :class:`CrawlOptions` of a crawl's stored options (``respect_robots`` is the form's checkbox, the
    opposite of ``--ignore-robots``); what the page does not set keeps the CLI's default."""
    values = {**options, "ignore_robots": not options["respect_robots"]}
    return crawl_options_from({spec.name: values[spec.name] for spec in CRAWL_OPTION_SPECS if spec.name in values})


def counts_of(summary: ReportSummary, progress: CrawlProgress | None = None) -> dict[str, Any]:
    counts: dict[str, Any] = {"crawled": summary.pages_crawled, "in_sitemap": summary.in_sitemap,
                              "broken": summary.broken, "redirects": summary.redirects,
                              "excluded": summary.excluded, "queue": summary.queued_not_crawled,
                              "broken_images": summary.broken_images}
    if progress is not None:
        counts["pages_per_second"] = round(progress.pages_per_second, 1)
        counts["elapsed"] = round(progress.elapsed, 1)
    return counts


def _final_counts(summary: ReportSummary, elapsed: float) -> dict[str, Any]:
    """The counts of a crawl that ended: the time it took and its mean rate (pages crawled per second)."""
    counts = counts_of(summary)
    counts["elapsed"] = round(elapsed, 1)
    counts["pages_per_second"] = round(summary.pages_crawled / elapsed, 1) if elapsed > 0 else 0.0
    return counts


def publish_partial(state: CrawlState, out: Path, url: str, options: Mapping[str, Any]) -> None:
    """The report (marked incomplete) and the sitemap set of what a stopped crawl confirmed so far: the pages it
    fetched and judged indexable. A resumed crawl that ends publishes over them."""
    out.mkdir(parents=True, exist_ok=True)
    root = site_root_of(state.get_meta("scope_url") or url)
    base_url = options.get("base_url") or root
    mapping = UrlMapping.between(root, base_url) if options.get("base_url") else None
    formats: tuple[Any, ...] = tuple(options.get("formats") or FORMATS)
    with SitemapSetWriter(out, base_url, gzip=bool(options.get("gzip")), formats=formats) as writer:
        for entry in sitemap_entries(state, mapping):
            try:
                writer.add(entry)
            except InvalidValueError:  # the full crawl reports it (SM701); a partial sitemap just leaves it out
                continue
    manifest = writer.manifest
    write_crawl_reports(state, out, complete=False, sitemap=manifest.to_dict() if manifest is not None else None)


def site_root_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


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
            self._update(record.id, status="failed", note="",
                         error=f"{form_words(exc.reason)}; nothing was published")
        except SitemapkitError as exc:
            self._update(record.id, status="failed", note="", error=form_words(str(exc)))
        except Exception as exc:  # a bug must end this crawl, never the server
            traceback.print_exc(file=sys.stderr)
            self._update(record.id, status="failed", note="", error=f"internal error: {type(exc).__name__}: {exc}")

    def _crawl(self, job: _Job, record: CrawlRecord, resume: bool) -> None:
        options = crawl_options(record.options)
        state_path = self.store.state_path(record.id)
        self._update(record.id, status="running")
        if bare_host_url(record.url) is not None:  # typed without a scheme: https first, then http
            chosen = resolve_site_url(record.url, connect_timeout=options.connect_timeout,
                                      user_agent=options.user_agent)
            record = replace(record, url=chosen.url)
            self._update(record.id, url=chosen.url, note=chosen.note)
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
            counts = _final_counts(summarize(state), summary.elapsed)
            stopped = summary.stopped or job.action is not None
            if stopped and job.action != "shutdown":
                # What the crawl confirmed so far: its report and a sitemap of the pages already judged.
                self._update(record.id, counts=counts, note="writing the partial report and sitemap")
                try:
                    publish_partial(state, self.store.out_dir(record.id), record.url, record.options)
                except SitemapkitError as exc:  # the crawl itself is kept (resumable); say what was not written
                    self._update(record.id, error=f"the partial report could not be written: {exc}")
        # Asked to stop before the workers started, the run ends "not stopped" with URLs queued: still a stop.
        if stopped:
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
        counts = _final_counts(result.report, summary.elapsed)
        counts["sitemap_urls"] = result.manifest.urls if result.manifest is not None else 0
        note = "" if result.complete else "stopped at max pages: URLs were left in the queue"
        self._update(record.id, status="done", counts=counts, complete=result.complete, note=note)
