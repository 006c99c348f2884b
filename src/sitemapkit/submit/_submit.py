"""The ``submit`` job: read the sources, work out what to send, send it, record it.

:func:`submit` is what the CLI and the ``--submit-state`` option of ``generate`` and ``crawl`` call:

1. *IndexNow* (``key`` set): the URL entries of the sources are read; with a ``state`` only the added, changed and
   removed URLs are kept (see :mod:`._state`), otherwise all of them. They are grouped by host into batches of at
   most 10,000; each host's key file is checked before its first batch (a clear error, and nothing sent for that
   host, when it is not served with exactly the key); then each batch is POSTed.
2. *Search Console* (``google_credentials`` set): each source that is a URL is submitted as a sitemap.
3. *WebSub* (``websub`` or ``websub_hub``): each source is a feed; its hubs are found (or ``websub_hub`` taken)
   and told that its topic changed.

Nothing is sent unless one of those is asked for; ``dry_run`` sends nothing at all (key files are not checked
either) and reports what would be sent. All HTTP goes through :class:`~sitemapkit.fetch.HttpClient` with the
address policy of :class:`~sitemapkit.fetch.FetchSettings`: the URLs the user gave (endpoint, key location, hub,
API root, token URI, sources) are its seeds.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sitemapkit.core import ConfigurationError, Problem, Severity, UrlEntry, is_url_source
from sitemapkit.fetch import FetchSettings, HttpClient
from sitemapkit.submit._diff import source_entries  # what `diff` reads, read the same way
from sitemapkit.submit._indexnow import (
    DEFAULT_ENDPOINT,
    MAX_BATCH,
    IndexNowBatch,
    check_key,
    check_key_file,
    indexnow_host,
    plan_batches,
    post_batch,
)
from sitemapkit.submit._results import SubmitResult
from sitemapkit.submit._searchconsole import (
    DEFAULT_API_ROOT,
    ServiceAccount,
    default_property,
    fetch_token,
    sitemap_api_url,
    submit_sitemap,
)
from sitemapkit.submit._state import REMOVED, SubmitState, fingerprint
from sitemapkit.submit._websub import feed_links, find_topic_and_hubs, publish, read_head
from sitemapkit.write import Manifest

__all__ = ["SubmitOptions", "SubmitReport", "published_sources", "submit", "submit_published"]


@dataclass(frozen=True, slots=True)
class SubmitOptions:
    """What to submit where. ``key`` turns IndexNow on; ``google_credentials`` Search Console; ``websub`` (or a
    ``websub_hub``) WebSub. ``state`` keeps IndexNow to the changes since the last run. ``settings`` are the fetch
    settings (timeouts, retries, the address policy, a test transport)."""

    key: str | None = None
    key_location: str | None = None
    endpoint: str = DEFAULT_ENDPOINT
    check_key_file: bool = True
    state: str | os.PathLike[str] | None = None
    dry_run: bool = False
    google_credentials: str | os.PathLike[str] | None = None
    google_property: str | None = None
    google_api_root: str = DEFAULT_API_ROOT
    google_token_uri: str | None = None
    websub: bool = False
    websub_hub: str | None = None
    batch_size: int = MAX_BATCH
    settings: FetchSettings = field(default_factory=FetchSettings)


@dataclass
class SubmitReport:
    """What a run did: one :class:`SubmitResult` per request, the problems met reading the sources, and (with a
    state) how many URLs were added, changed, removed and unchanged since the last run."""

    results: list[SubmitResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results) and not any(p.severity is Severity.ERROR for p in self.problems)

    def counts_line(self) -> str | None:
        """``changes since the last submission: 3 added, ...`` (None without a state)."""
        c = self.counts
        if c is None:
            return None
        return (f"changes since the last submission: {c['added']:,} added, {c['changed']:,} changed, "
                f"{c['removed']:,} removed, {c['unchanged']:,} unchanged")


def _check_options(options: SubmitOptions) -> None:
    if options.key is None and options.google_credentials is None and not (options.websub or options.websub_hub):
        raise ConfigurationError("nothing to submit to: give --key (IndexNow), --google-credentials (Search "
                                 "Console) or --websub / --websub-hub (WebSub)")
    if options.key is not None:
        check_key(options.key)
    if options.key is None and (options.state is not None or options.key_location is not None):
        raise ConfigurationError("--state and --key-location apply to IndexNow: give --key too")
    for name, url in (("--endpoint", options.endpoint), ("--key-location", options.key_location),
                      ("--websub-hub", options.websub_hub), ("--google-api-root", options.google_api_root),
                      ("--google-token-uri", options.google_token_uri)):
        if url is not None and not is_url_source(url):
            raise ConfigurationError(f"{name}: not an absolute http(s) URL: {url!r}")
    if options.key_location is not None:
        indexnow_host(options.key_location)


def _entries(sources: Sequence[str], settings: FetchSettings, report: SubmitReport,
             on_problem: Callable[[Problem], None] | None) -> Iterator[UrlEntry]:
    """The URL entries of the sources, read as `diff` reads them (a folder is its sitemap files, a local index
    pulls in the child files next to it, URLs are walked)."""
    def problem(p: Problem) -> None:
        report.problems.append(p)
        if on_problem is not None:
            on_problem(p)

    for source in sources:
        yield from source_entries(source, settings, False, problem)


def _indexnow_plan(sources: Sequence[str], options: SubmitOptions, state: SubmitState | None,
                   report: SubmitReport, on_problem: Callable[[Problem], None] | None) -> list[IndexNowBatch]:
    assert options.key is not None
    if state is None:
        urls = dict.fromkeys(e.loc for e in _entries(sources, options.settings, report, on_problem))
        return plan_batches(urls, options.key, key_location=options.key_location, batch_size=options.batch_size)
    for entry in _entries(sources, options.settings, report, on_problem):
        state.add(entry.loc, fingerprint(entry))
    report.counts = state.counts()
    read_errors = any(p.severity is Severity.ERROR for p in report.problems)
    if read_errors and report.counts[REMOVED]:
        report.notes.append(f"{report.counts[REMOVED]:,} URLs missing from this run were not submitted as removed: "
                            "the sources had errors, so they may only have been unreadable")
    changes = (url for url, _ in state.changes(removed=not read_errors))
    return plan_batches(changes, options.key, key_location=options.key_location, batch_size=options.batch_size)


def submit(sources: Sequence[str], options: SubmitOptions, *,
           on_result: Callable[[SubmitResult], None] | None = None,
           on_problem: Callable[[Problem], None] | None = None) -> SubmitReport:
    """Run a submission (see the module docstring). ``on_result`` is called with each result as it comes (for
    one line per request), ``on_problem`` with each problem met reading the sources. Raises
    :class:`ConfigurationError` for options that cannot work (no channel, a bad key, a bad URL)."""
    _check_options(options)
    report = SubmitReport()
    account = None
    if options.google_credentials is not None:
        account = ServiceAccount.from_file(options.google_credentials, token_uri=options.google_token_uri)
    state = SubmitState(options.state) if options.state is not None and not options.dry_run else None
    dry_state = None
    if options.state is not None and options.dry_run:  # read, never written: a missing file is not created
        dry_state = SubmitState(options.state if Path(options.state).exists() else ":memory:")
    try:
        batches: list[IndexNowBatch] = []
        if options.key is not None:
            batches = _indexnow_plan(sources, options, state or dry_state, report, on_problem)

        def emit(result: SubmitResult) -> None:
            report.results.append(result)
            if state is not None:
                if result.ok and result.channel == "indexnow":
                    state.mark_done(result.urls, result.status)
                state.record_answer(result)
            if on_result is not None:
                on_result(result)

        if options.dry_run:
            _dry_run(sources, options, batches, account, emit)
        else:
            asyncio.run(_send(sources, options, batches, account, _seeds(sources, options, account), emit))
    finally:
        for opened in (state, dry_state):
            if opened is not None:
                opened.close()
    return report


def _seeds(sources: Sequence[str], options: SubmitOptions, account: ServiceAccount | None) -> list[str]:
    """The URLs the user gave, for the address policy: what they name may be reached whatever its address class
    (a test server on 127.0.0.1, an intranet hub); URLs found on the way are held to the policy."""
    seeds = [s for s in sources if is_url_source(s)]
    if options.key is not None:
        seeds += [u for u in (options.endpoint, options.key_location) if u]
    if account is not None:
        seeds += [options.google_api_root, account.token_uri]
    if options.websub or options.websub_hub:
        if options.websub_hub:
            seeds.append(options.websub_hub)
        else:  # the hubs a local feed file names: the user's own file
            for source in sources:
                if not is_url_source(source):
                    try:
                        seeds += feed_links(read_head(source, options.settings.max_bytes), "").hubs
                    except OSError:
                        continue  # reported when the feed is read for sending
    return seeds


def _dry_run(sources: Sequence[str], options: SubmitOptions, batches: list[IndexNowBatch],
             account: ServiceAccount | None, emit: Callable[[SubmitResult], None]) -> None:
    for batch in batches:
        emit(SubmitResult("indexnow", options.endpoint, batch.host, True, None,
                          f"would POST {len(batch.urls):,} URLs (key file {batch.check_location})", batch.urls,
                          dry_run=True))
    if account is not None:
        for source in sources:
            if is_url_source(source):
                site = options.google_property or default_property(source)
                emit(SubmitResult("google", sitemap_api_url(options.google_api_root, site, source), source, True,
                                  None, f"would submit for property {site} as {account.email}", dry_run=True))
    if options.websub or options.websub_hub:
        for source in sources:
            hub = options.websub_hub or "(the feed's hubs)"
            emit(SubmitResult("websub", hub, source, True, None, "would send a publish notification",
                              dry_run=True))


async def _send(sources: Sequence[str], options: SubmitOptions, batches: list[IndexNowBatch],
                account: ServiceAccount | None, seeds: list[str], emit: Callable[[SubmitResult], None]) -> None:
    async with options.settings.client(seeds) as client:
        if batches:
            await _send_indexnow(client, options, batches, emit)
        if account is not None:
            await _send_google(client, sources, options, account, emit)
        if options.websub or options.websub_hub:
            await _send_websub(client, sources, options, emit)


async def _send_indexnow(client: HttpClient, options: SubmitOptions, batches: list[IndexNowBatch],
                         emit: Callable[[SubmitResult], None]) -> None:
    assert options.key is not None
    checked: dict[str, str | None] = {}
    for batch in batches:
        if options.check_key_file:
            if batch.check_location not in checked:
                checked[batch.check_location] = await check_key_file(client, batch.check_location, options.key)
            why = checked[batch.check_location]
            if why is not None:
                emit(SubmitResult("indexnow", options.endpoint, batch.host, False, None,
                                  f"not sent: {why}", batch.urls))
                continue
        emit(await post_batch(client, options.endpoint, options.key, batch))


async def _send_google(client: HttpClient, sources: Sequence[str], options: SubmitOptions,
                       account: ServiceAccount, emit: Callable[[SubmitResult], None]) -> None:
    token_endpoint = account.token_uri
    sitemaps = [s for s in sources if is_url_source(s)]
    for source in sources:
        if not is_url_source(source):
            emit(SubmitResult("google", options.google_api_root, source, False, None,
                              "Search Console takes a sitemap's public URL, not a file"))
    if not sitemaps:
        return
    token, why = await fetch_token(client, account)
    if token is None:
        for source in sitemaps:
            emit(SubmitResult("google", token_endpoint, source, False, None, f"not sent: {why}"))
        return
    for source in sitemaps:
        site = options.google_property or default_property(source)
        emit(await submit_sitemap(client, api_root=options.google_api_root, token=token, email=account.email,
                                  site_url=site, sitemap_url=source))


async def _send_websub(client: HttpClient, sources: Sequence[str], options: SubmitOptions,
                       emit: Callable[[SubmitResult], None]) -> None:
    for source in sources:
        topic, hubs, why = await find_topic_and_hubs(client, source, max_bytes=options.settings.max_bytes,
                                                     fetch=is_url_source(source))
        if why:
            emit(SubmitResult("websub", options.websub_hub or "", source, False, None, why))
            continue
        if topic is None:
            emit(SubmitResult("websub", options.websub_hub or "", source, False, None,
                              "the feed has no rel=\"self\" link, so its topic URL is unknown (give the feed's URL, "
                              "or write it with `diff --format atom --feed-url URL`)"))
            continue
        targets = (options.websub_hub,) if options.websub_hub else hubs
        if not targets:
            emit(SubmitResult("websub", "", topic, False, None,
                              "no hub found (no Link: rel=\"hub\" header, no <link rel=\"hub\"> in the feed); "
                              "give --websub-hub URL"))
            continue
        for hub in targets:
            emit(await publish(client, hub, topic))


def published_sources(manifest: Manifest) -> list[str]:
    """The files of a published sitemap set that hold its URLs: the urlsets (else the text sitemaps)."""
    files = manifest.sitemaps or tuple(f for f in manifest.files if f.kind == "txt")
    return [str(f.path) for f in files]


def submit_published(manifest: Manifest, options: SubmitOptions, *,
                     on_result: Callable[[SubmitResult], None] | None = None,
                     on_problem: Callable[[Problem], None] | None = None) -> SubmitReport:
    """Submit what changed in a sitemap set just published (``generate`` / ``crawl --submit-state``): its files
    are read back and compared with ``options.state``."""
    return submit(published_sources(manifest), options, on_result=on_result, on_problem=on_problem)
