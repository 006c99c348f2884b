"""A harvest job: the HOSTS list read and grouped by host, one Dask task per host placed on a worker by a hash
of the host, results gathered as they come, ``hosts.parquet`` written at the end.

Placement: the workers are sorted by address and a host goes to ``workers[blake2b(host) % len(workers)]`` (a
loose restriction: if that worker is gone, another one takes it). One host is one task, so its politeness
(``per_host_limit`` connections, one client) holds whatever the cluster size; a worker runs as many hosts at
once as it has threads, each on its own event loop. The client keeps a bounded window of tasks in flight, so a
list of millions of hosts never sits in the scheduler at once. Rows go from the workers straight to the
partition files (a shared filesystem on a real cluster); only one small summary per host travels back.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

from sitemapkit.core import (
    MAX_CONCURRENCY,
    MAX_WORKERS,
    ConfigurationError,
    is_absolute_http_url,
    plural,
    redact_credentials,
    require_extra,
    url_argument_problem,
)
from sitemapkit.fetch import FetchSettings
from sitemapkit.harvest._cluster import local_cluster
from sitemapkit.harvest._host import HostJob, HostSettings, harvest_host, host_key, read_done, remove_leftovers
from sitemapkit.harvest._schema import host_schema

__all__ = ["BadLine", "HarvestOptions", "HarvestResult", "HarvestStats", "harvest", "read_hosts"]

HOSTS_FILE = "hosts.parquet"
_BARE_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?")


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line of HOSTS that is neither a URL nor a host name."""

    source: str
    line: int
    text: str
    reason: str | None = None  # what is wrong with a URL line (None: neither a URL nor a host name)

    def __str__(self) -> str:
        if self.reason is not None:
            return f"{self.source}:{self.line}: {self.reason}"
        return f"{self.source}:{self.line}: not an http(s) URL or a host name: {self.text!r}"


def read_hosts(lines: Iterable[str], source: str = "HOSTS") -> tuple[list[HostJob], list[BadLine]]:
    """Group the lines of a HOSTS file by host (first-seen order). A line is a site URL, a sitemap URL or a bare
    host name (``example.com`` stands for ``https://example.com/``); blank lines and ``#`` comments are skipped."""
    seeds: dict[str, list[str]] = {}
    bad: list[BadLine] = []
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        url = text if "://" in text else f"https://{text}/" if _BARE_HOST.fullmatch(text) else ""
        problem = url_argument_problem(url) if url else ""  # the check of a URL given on the command line
        if problem is not None:  # a bad port, credentials (never echoed), a control character; or not a URL
            reason = problem if url and is_absolute_http_url(url) else None
            bad.append(BadLine(source, number, redact_credentials(text), reason))
            continue
        key = host_key(url)
        listed = seeds.setdefault(key, [])
        if url not in listed:
            listed.append(url)
    return [HostJob(host, tuple(urls)) for host, urls in seeds.items()], bad


@dataclass(frozen=True, slots=True)
class HarvestOptions:
    """How a harvest runs. ``workers`` and ``threads`` (hosts at once per worker) size the local cluster;
    ``scheduler`` (an address such as ``tcp://10.0.0.1:8786``) uses a running cluster instead; ``processes``
    False runs the local workers as threads of this process; ``dashboard`` is the local dashboard's address
    (None: none). ``refresh`` fetches complete hosts again, with conditional requests."""

    out_dir: Path
    fetch: FetchSettings = field(default_factory=FetchSettings)
    workers: int = 2
    threads: int = 4
    scheduler: str | None = None
    processes: bool = True
    dashboard: str | None = None
    refresh: bool = False
    host_timeout: float | None = None

    def __post_init__(self) -> None:
        # Each worker is a process (or a thread) and each thread an event loop of its own, all started up front.
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ConfigurationError(f"--workers must be between 1 and {MAX_WORKERS}, not {self.workers}")
        if not 1 <= self.threads <= MAX_CONCURRENCY:
            raise ConfigurationError(f"--threads must be between 1 and {MAX_CONCURRENCY}, not {self.threads}")


@dataclass(slots=True)
class HarvestStats:
    """Counters of a running harvest (read by the progress line)."""

    hosts: int = 0
    done: int = 0
    failed: int = 0
    resumed: int = 0
    urls: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def finished(self) -> int:
        return self.done + self.failed + self.resumed

    def rate(self) -> float:
        """URLs per second fetched by this run (resumed hosts do not count)."""
        return self.urls / max(1e-9, time.monotonic() - self.started)

    def describe(self) -> str:
        """A progress line: hosts finished of all, failed, complete before; URLs and their rate."""
        return (f"harvest: {self.finished:,}/{self.hosts:,} hosts ({self.failed:,} failed, {self.resumed:,} complete "
                f"before), {self.urls:,} URLs, {self.rate():,.0f} URLs/s")

    def summary(self) -> str:
        """The closing line: hosts harvested, failed and already complete; URLs and the time taken."""
        return (f"{plural(self.hosts, 'host')}: {self.done:,} harvested, {self.failed:,} failed, {self.resumed:,} "
                f"already complete; {plural(self.urls, 'URL')} in {time.monotonic() - self.started:.1f} s")


@dataclass(frozen=True, slots=True)
class HarvestResult:
    """Where the output is and what happened: ``rows`` are the ``hosts.parquet`` rows, in HOSTS order."""

    out_dir: Path
    hosts_path: Path
    urls_dir: Path
    rows: tuple[dict[str, Any], ...]
    stats: HarvestStats
    dashboard: str | None = None


#: The libraries of the ``harvest`` extra a harvest needs (bokeh only for a dashboard).
_MODULES = ("dask", "distributed", "pyarrow")


def _placement(host: str, workers: list[str]) -> str:
    digest = blake2b(host.encode("utf-8"), digest_size=8).digest()
    return workers[int.from_bytes(digest, "big") % len(workers)]


def _client(options: HarvestOptions) -> tuple[Any, Any]:
    import distributed

    dist: Any = distributed  # untyped: called through Any
    if options.scheduler is not None:
        return dist.Client(options.scheduler, timeout="30s"), None
    cluster = local_cluster(n_workers=options.workers, threads_per_worker=options.threads,
                            processes=options.processes, dashboard_address=options.dashboard,
                            silence_logs=logging.ERROR)
    return dist.Client(cluster), cluster


def _run_tasks(client: Any, jobs: list[HostJob], settings: HostSettings,
               on_row: Callable[[dict[str, Any]], None]) -> None:
    import distributed

    dist: Any = distributed  # untyped: called through Any
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    nthreads = sum(client.nthreads().values()) or 1
    window = max(16, 2 * nthreads)
    pending: Iterator[HostJob] = iter(jobs)

    def submit(job: HostJob) -> Any:
        token = blake2b(job.host.encode(), digest_size=6).hexdigest()
        return client.submit(harvest_host, job, settings, key=f"harvest-{token}-{secrets.token_hex(3)}",
                             workers=[_placement(job.host, workers)], allow_other_workers=True, pure=False)

    futures = dist.as_completed([submit(j) for _, j in zip(range(window), pending, strict=False)])
    for future in futures:
        on_row(future.result())
        future.release()
        nxt = next(pending, None)
        if nxt is not None:
            futures.add(submit(nxt))


def _hosts_tmp_prefix(path: Path) -> str:
    return f".{path.name}.tmp-"


def write_hosts(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """``hosts.parquet``, written under a temporary name and renamed into place."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    tmp = path.with_name(f"{_hosts_tmp_prefix(path)}{secrets.token_hex(4)}")
    pq.write_table(pa.Table.from_pylist(list(rows), schema=host_schema()), tmp)
    os.replace(tmp, path)


def harvest(jobs: list[HostJob], options: HarvestOptions,
            on_row: Callable[[dict[str, Any], HarvestStats], None] | None = None,
            stats: HarvestStats | None = None) -> HarvestResult:
    """Harvest ``jobs`` (see :func:`read_hosts`) on Dask into ``options.out_dir``; ``on_row`` is called in this
    process with each host's row as it arrives. Hosts whose partition is complete are not fetched again unless
    ``options.refresh``. ``hosts.parquet`` is written even when the run is interrupted (with the hosts done)."""
    require_extra("harvest", _MODULES, "sitemapkit harvest")
    if options.dashboard:
        require_extra("harvest", ("bokeh",), "harvest's dashboard")
    out = Path(options.out_dir)
    settings = HostSettings(options.fetch, str(out), options.host_timeout, options.refresh)
    settings.urls_dir.mkdir(parents=True, exist_ok=True)
    st = stats if stats is not None else HarvestStats()
    st.hosts = len(jobs)
    rows: dict[str, dict[str, Any]] = {}

    def record(row: dict[str, Any]) -> None:
        rows[row["host"]] = row
        if row["resumed"]:
            st.resumed += 1
        elif row["status"] == "ok":
            st.done += 1
            st.urls += row["urls"]
        else:
            st.failed += 1
        if on_row is not None:
            on_row(row, st)

    # What a killed run left: temporary files (hidden from dataset readers, but taking space), deleted for the
    # hosts this run owns and for hosts.parquet.
    for leftover in out.glob(f"{_hosts_tmp_prefix(out / HOSTS_FILE)}*"):
        leftover.unlink(missing_ok=True)
    todo: list[HostJob] = []
    for job in jobs:
        remove_leftovers(settings.urls_dir, job.host)
        previous = None if options.refresh else read_done(settings.urls_dir, job.host)
        if previous is not None:
            record(previous)
        else:
            todo.append(job)
    dashboard: str | None = None
    try:
        if todo:
            client, cluster = _client(options)
            try:
                dashboard = client.dashboard_link if options.dashboard is not None or options.scheduler else None
                _run_tasks(client, todo, settings, record)
            finally:
                client.close()
                if cluster is not None:
                    cluster.close()
    finally:
        ordered = [rows[j.host] for j in jobs if j.host in rows]
        write_hosts(out / HOSTS_FILE, ordered)
    return HarvestResult(out, out / HOSTS_FILE, settings.urls_dir, tuple(ordered), st, dashboard)
