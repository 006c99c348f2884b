"""Harvesting one host: discovery and the safe walk (``sitemapkit.fetch``), rows streamed into the host's Parquet
partition, and one summary row for ``hosts.parquet``.

:func:`harvest_host` is what a Dask task runs. It never raises for the host's sake: timeouts, bombs, 5xx,
garbage and even a bug in a reader become the host's status ``failed`` with its problems. A host whose walk
read at least one sitemap is ``ok`` (its problems listed); its partition is written under a temporary name and
renamed into place when complete, and the rename is what marks the host done for a resumed run (the summary row
is kept in the file's metadata). A failed host leaves no partition, so the next run tries it again.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from sitemapkit.core import Problem, Severity
from sitemapkit.fetch import (
    Discovery,
    EntryBatch,
    FetchSettings,
    HttpClient,
    SitemapNode,
    SitemapSeed,
    discover,
    is_site_url,
    walk,
)
from sitemapkit.harvest._schema import entry_row, host_schema, url_schema

__all__ = ["HOST_META_KEY", "TMP_PARTITION_PREFIX", "HostJob", "HostSettings", "harvest_host", "host_key",
           "partition_path", "read_done", "remove_leftovers"]

#: Key of the Parquet file metadata that holds the host's summary row (JSON).
HOST_META_KEY = b"sitemapkit.host"
#: Rows buffered before they are written as one row group.
_ROWS_PER_GROUP = 20_000
#: Codes that mean a sitemap was not (completely) read (SM112: over the byte budget, a bomb); a host without
#: any sitemap read is a failed host.
_FATAL = frozenset({"SM112", "SM501", "SM502", "SM503", "SM504", "SM505", "SM513", "SM515", "SM516"})
#: Problems kept per host (all are counted).
_MAX_PROBLEMS = 200


def host_key(url: str) -> str:
    """The partition key of a URL: its host, lowercased, with the port when one is written."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    return host if port is None else f"{host}:{port}"


def partition_path(urls_dir: Path, host: str) -> Path:
    """Where the partition of ``host`` lives (Hive style, ``host=<host percent-encoded>``)."""
    return urls_dir / f"host={quote(host, safe='')}" / "part-0.parquet"


#: A partition being written: hidden (Parquet dataset readers skip names starting with ``.`` or ``_``) until it is
#: complete and renamed to ``part-0.parquet``.
TMP_PARTITION_PREFIX = ".part-0.parquet.tmp-"


def remove_leftovers(urls_dir: Path, host: str) -> int:
    """Delete the temporary partition files a killed run left in ``host``'s partition; returns how many."""
    removed = 0
    folder = partition_path(urls_dir, host).parent
    try:
        names = os.listdir(folder)
    except OSError:  # no partition yet
        return 0
    for name in names:
        if name.startswith(TMP_PARTITION_PREFIX):
            try:
                (folder / name).unlink()
                removed += 1
            except FileNotFoundError:
                pass
    return removed


@dataclass(frozen=True, slots=True)
class HostJob:
    """One host to harvest: its key and the lines of HOSTS that named it (site URLs or sitemap URLs)."""

    host: str
    seeds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HostSettings:
    """What every host task shares: the fetch limits, where the output goes, the per-host deadline (None: no
    deadline beyond the per-URL ones) and whether a complete partition is fetched again (``refresh``)."""

    fetch: FetchSettings
    out_dir: str
    host_timeout: float | None = None
    refresh: bool = False

    @property
    def urls_dir(self) -> Path:
        return Path(self.out_dir) / "urls"

    def cache_dir(self, host: str) -> str:
        return str(Path(self.out_dir) / ".cache" / quote(host, safe=""))


class _Run:
    """The state of one host's harvest: counters, kept problems, the sitemaps, the open Parquet writer."""

    def __init__(self, job: HostJob, settings: HostSettings) -> None:
        self.job = job
        self.settings = settings
        self.path = partition_path(settings.urls_dir, job.host)
        self.tmp = self.path.with_name(f"{TMP_PARTITION_PREFIX}{secrets.token_hex(4)}")
        self.writer: Any = None
        self.rows: list[dict[str, Any]] = []
        self.urls = 0
        self.sitemaps: list[dict[str, Any]] = []
        self.problems: list[dict[str, Any]] = []
        self.errors = 0
        self.warnings = 0
        self.bytes = 0
        self.wire_bytes = 0
        self.not_modified = 0
        self.robots_status: int | None = None
        self.read_ok = 0

    def problem(self, p: Problem) -> None:
        if p.severity is Severity.ERROR:
            self.errors += 1
        elif p.severity is Severity.WARNING:
            self.warnings += 1
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append({"code": p.code, "severity": p.severity.value, "message": p.message,
                                  "url": p.location.source})

    def add_batch(self, batch: EntryBatch) -> None:
        for entry in batch.entries:
            self.rows.append(entry_row(entry, batch.sitemap, self.job.host))
        self.urls += len(batch.entries)
        if len(self.rows) >= _ROWS_PER_GROUP:
            self.flush()

    def add_node(self, node: SitemapNode) -> None:
        for p in node.problems:
            self.problem(p)
        self.bytes += node.size
        self.wire_bytes += node.wire_bytes
        self.not_modified += node.from_cache
        if node.kind is not None and node.kind.is_sitemap and not any(p.code in _FATAL for p in node.problems):
            self.read_ok += 1
        self.sitemaps.append({"url": node.url, "found_via": node.found_via.value, "status": node.status,
                              "kind": None if node.kind is None else node.kind.value, "urls": node.entries,
                              "bytes": node.size, "not_modified": node.from_cache})

    def flush(self) -> None:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        if self.writer is None:
            self.tmp.parent.mkdir(parents=True, exist_ok=True)
            self.writer = pq.ParquetWriter(self.tmp, url_schema(), compression="zstd")
        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=url_schema()))
            self.rows.clear()

    def discard(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        self.tmp.unlink(missing_ok=True)

    def summary(self, status: str, started: float) -> dict[str, Any]:
        return {
            "host": self.job.host, "seeds": list(self.job.seeds), "status": status,
            "robots_status": self.robots_status, "sitemaps_found": len(self.sitemaps), "sitemaps": self.sitemaps,
            "urls": self.urls if status == "ok" else 0, "bytes": self.bytes, "wire_bytes": self.wire_bytes,
            "not_modified": self.not_modified, "errors": self.errors, "warnings": self.warnings,
            "problems": self.problems, "elapsed": round(time.monotonic() - started, 4),
            "finished_at": datetime.now(UTC), "worker": _worker_name(), "resumed": False,
        }

    def publish(self, summary: dict[str, Any]) -> None:
        """Close the partition with the summary in its metadata and rename it into place (the host is done)."""
        import pyarrow.parquet as pq

        self.flush()
        assert self.writer is not None
        meta = {**summary, "finished_at": summary["finished_at"].isoformat()}
        self.writer.add_key_value_metadata({HOST_META_KEY: json.dumps(meta).encode()})
        self.writer.close()
        self.writer = None
        os.replace(self.tmp, self.path)
        pq.read_metadata(self.path)  # a partition that cannot be read back is not complete


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return threading.current_thread().name


def _failure(run: _Run, code: str, message: str) -> None:
    run.problem(Problem(code, Severity.ERROR, message, _location(run.job)))


def _location(job: HostJob) -> Any:
    from sitemapkit.core import Location

    return Location(job.seeds[0] if job.seeds else job.host)


async def _walk_host(run: _Run, client: HttpClient, fetch: FetchSettings) -> None:
    seeds: list[SitemapSeed] = []
    for url in run.job.seeds:
        if is_site_url(url):
            found: Discovery = await discover(url, client=client, probe=fetch.probe, max_bytes=fetch.max_bytes)
            run.robots_status = found.robots_status if run.robots_status is None else run.robots_status
            for p in found.problems:
                run.problem(p)
            seeds.extend(found.seeds)
        else:
            seeds.append(SitemapSeed(url))
    async for item in walk(seeds, client=client, options=fetch.walk_options()):
        if isinstance(item, EntryBatch):
            run.add_batch(item)
        else:
            run.add_node(item)


async def _harvest(run: _Run, settings: HostSettings) -> None:
    fetch = replace(settings.fetch, cache_dir=settings.cache_dir(run.job.host))
    client = fetch.client(run.job.seeds)  # the user's seeds are the seeds: their address class is allowed
    try:
        async with asyncio.timeout(settings.host_timeout):
            await _walk_host(run, client, fetch)
    finally:
        await client.aclose()


def harvest_host(job: HostJob, settings: HostSettings) -> dict[str, Any]:
    """Harvest one host (a Dask task): write its partition and return its ``hosts.parquet`` row (a dict)."""
    started = time.monotonic()
    run = _Run(job, settings)
    status = "failed"
    try:
        asyncio.run(_harvest(run, settings))
        if run.read_ok:
            status = "ok"
        elif not run.errors:
            _failure(run, "SM530", "no sitemap could be read")
    except TimeoutError:
        _failure(run, "SM501", f"host not finished within {settings.host_timeout:g} s (--host-timeout)")
    except Exception as exc:  # one host's failure is a row, never a failed job
        _failure(run, "SM501", f"{type(exc).__name__}: {exc}")
    summary = run.summary(status, started)
    try:
        if status == "ok":
            run.publish(summary)
        else:
            run.discard()
    except Exception as exc:  # a disk problem: the host is reported failed and tried again next time
        run.discard()
        _failure(run, "SM501", f"partition not written: {type(exc).__name__}: {exc}")
        summary = run.summary("failed", started)
    return summary


def read_done(urls_dir: Path, host: str) -> dict[str, Any] | None:
    """The summary row of a complete partition (None when the host has none, or it cannot be read)."""
    import pyarrow.parquet as pq

    path = partition_path(urls_dir, host)
    if not path.is_file():
        return None
    try:
        meta = pq.read_metadata(path).metadata or {}
        row = json.loads(meta[HOST_META_KEY])
        row["finished_at"] = datetime.fromisoformat(row["finished_at"])
    except Exception:
        return None
    names = set(host_schema().names)
    return {k: v for k, v in row.items() if k in names} | {"resumed": True}
