"""A sitemap set from partitioned data, written in parallel on Dask (``sitemapkit generate DATA --workers N``).

DATA is a Parquet dataset (``sitemapkit harvest``'s ``DIR/urls``, or ``DIR`` itself, or any Parquet files with a
``loc`` column and the entry's other fields) or a folder of CSV / JSONL / URL-list files. Each file is one
partition, one Dask task: it reads its rows and rolls its own sitemap files at the same limits as a
single-process run, inside the set's temporary directory. A final step in this process hands every partition's
files, in partition order, to :class:`~sitemapkit.write.SitemapSetWriter`, which writes the index and publishes
atomically as ``generate`` always does. The result holds the same entries as a single-process ``generate`` of
the same rows; only the cut between files can differ (each partition ends its last file early).

With ``dedupe``, rows are routed to partitions by a hash of their ``loc`` instead (each task reads every file
and keeps its share), so a URL repeated in two files is still written once.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

from sitemapkit.core import (
    InputError,
    InvalidEntryError,
    Location,
    Problem,
    ProblemTally,
    Severity,
    SitemapkitError,
    UrlEntry,
    redact_credentials,
)
from sitemapkit.harvest._cluster import local_cluster
from sitemapkit.harvest._schema import entry_from_row
from sitemapkit.read import open_bytes
from sitemapkit.write import (
    HostCheck,
    Manifest,
    PartitionFiles,
    PartitionSpec,
    PartitionWriter,
    SitemapSetWriter,
    iter_input,
    url_origin,
)

__all__ = ["PartitionedResult", "find_data_files", "generate_partitioned", "is_data_input"]

_TABLE = (".parquet",)
_TEXT = (".csv", ".jsonl", ".ndjson", ".txt", ".csv.gz", ".jsonl.gz", ".txt.gz")
_PAGES = (".html", ".htm")
#: Problems of one code a partition sends back (all are counted).
_CAP = 20


def _listed(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
        for name in sorted(filenames):
            if not name.startswith((".", "_")):
                yield Path(dirpath) / name


def find_data_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files of DATA, in order: a Parquet file itself; a harvest directory's ``urls`` dataset; else every
    Parquet file under a folder, or (none there) every CSV / JSONL / URL-list file. Hidden files are skipped."""
    p = Path(path)
    if p.is_file():
        return [p]
    if (p / "hosts.parquet").is_file() and (p / "urls").is_dir():
        p = p / "urls"
    files = list(_listed(p))
    tables = [f for f in files if f.name.endswith(_TABLE) and f.name != "hosts.parquet"]
    return tables or [f for f in files if f.name.endswith(_TEXT)]


def is_data_input(path: str) -> bool:
    """True for partitioned data: a ``.parquet`` file, or a folder holding Parquet files, or a folder of CSV /
    JSONL files and no HTML page (a folder with pages is a static site)."""
    p = Path(path)
    if p.is_file():
        return p.name.endswith(_TABLE)
    if not p.is_dir():
        return False
    files = list(_listed(p))
    if any(f.name.endswith(_TABLE) for f in files):
        return True
    return (any(f.name.endswith((".csv", ".jsonl", ".ndjson", ".csv.gz", ".jsonl.gz")) for f in files)
            and not any(f.name.lower().endswith(_PAGES) for f in files))


@dataclass(frozen=True, slots=True)
class _Config:
    base_url: str
    home: str | None  # scheme://host[:port] entries must be on (None: any host)
    dedupe: bool


@dataclass(slots=True)
class _Part:
    """What one partition sends back: its finished files, the duplicates it skipped, and its problems (the first
    :data:`_CAP` of each code, every one counted)."""

    files: PartitionFiles = field(default_factory=PartitionFiles)
    duplicates: int = 0
    report: ProblemTally = field(default_factory=lambda: ProblemTally(_CAP))
    #: The error that ended the partition (a file over the byte budget, a file that cannot be read): raised again
    #: in the calling process, so a worker logs no traceback of it.
    failure: SitemapkitError | None = None


def _rows(path: Path, base_url: str, part: _Part) -> Iterator[tuple[UrlEntry, Location]]:
    if path.name.endswith(_TABLE):
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        number = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=8192):
            for row in batch.to_pylist():
                number += 1
                try:
                    yield entry_from_row(row), Location(str(path), number)
                except InvalidEntryError as exc:
                    part.report(Problem("SM610", Severity.ERROR, f"row {number}: {exc}",
                                        Location(str(path), number, loc=row.get("loc"))))
        return
    try:
        opened = open_bytes(path)  # the one byte source: gzip undone under the byte budget
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with opened:
        for item in iter_input(str(path), base_url=base_url, plain=opened.plain_stream()):
            if isinstance(item, Problem):
                part.report(item)
            else:
                yield item


def _write_rows(files: Sequence[str], route: tuple[int, int] | None, cfg: _Config, part: _Part,
                writer: PartitionWriter) -> None:
    seen: set[bytes] | None = set() if cfg.dedupe else None
    hosts = None if cfg.home is None else HostCheck(cfg.home)
    for name in files:
        for entry, where in _rows(Path(name), cfg.base_url, part):
            key = b""
            if route is not None or seen is not None:
                key = blake2b(entry.loc.encode("utf-8"), digest_size=12).digest()
                if route is not None and int.from_bytes(key[:8], "big") % route[1] != route[0]:
                    continue
                if seen is not None and key in seen:
                    part.duplicates += 1
                    continue
            off_host = None if hosts is None else hosts.problem(entry.loc, where.source, where.line)
            if off_host is not None:
                part.report(off_host)
                continue
            try:
                writer.add(entry)
            except InvalidEntryError as exc:
                part.report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                                    Location(where.source, where.line, loc=redact_credentials(entry.loc))))
                continue
            if seen is not None:
                seen.add(key)


def _write_partition(files: Sequence[str], route: tuple[int, int] | None, spec: PartitionSpec,
                     cfg: _Config) -> _Part:
    """One Dask task: read ``files`` (only the rows whose loc hashes to ``route[0]`` of ``route[1]``, when given)
    and roll them into the partition's files (``spec``)."""
    part = _Part()
    writer = PartitionWriter(spec)
    try:
        _write_rows(files, route, cfg, part, writer)
    except SitemapkitError as exc:  # an input over the byte budget, or unreadable: the job's error
        part.failure = exc
        return part
    part.files = writer.finish()
    return part


@dataclass(frozen=True, slots=True)
class PartitionedResult:
    """The published set and what was skipped: ``problems`` holds the first 20 of each code per partition,
    ``counts`` the true count of each code; ``errors`` counts rows skipped."""

    manifest: Manifest
    partitions: int
    errors: int
    problems: tuple[Problem, ...]
    counts: dict[str, int]


def _run(tasks: list[tuple[list[str], tuple[int, int] | None, PartitionSpec]], cfg: _Config, workers: int,
         scheduler: str | None, processes: bool) -> list[_Part]:
    import distributed

    dist: Any = distributed  # untyped: called through Any
    cluster = None
    if scheduler is not None:
        client = dist.Client(scheduler, timeout="30s")
    else:
        cluster = local_cluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                dashboard_address=None, silence_logs=logging.ERROR)
        client = dist.Client(cluster)
    try:
        futures = [client.submit(_write_partition, files, route, spec, cfg, pure=False)
                   for files, route, spec in tasks]
        return list(client.gather(futures))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def generate_partitioned(
    data: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    base_url: str,
    *,
    workers: int = 2,
    scheduler: str | None = None,
    processes: bool = True,
    allow_cross_host: bool = False,
    writer_kwargs: dict[str, Any] | None = None,
) -> PartitionedResult:
    """Write the rows of ``data`` (see :func:`find_data_files`) as one sitemap set in ``out_dir``, a partition
    per file on Dask (see the module docstring). ``writer_kwargs`` are :class:`SitemapSetWriter`'s options
    (gzip, max_urls, max_bytes, formats, xsl, dedupe). Raises :class:`~sitemapkit.InputError` when DATA holds
    no file, :class:`~sitemapkit.PublishError` when no URL could be written."""
    from sitemapkit.core import MAX_WORKERS, ConfigurationError, require_extra

    if not 1 <= workers <= MAX_WORKERS:
        raise ConfigurationError(f"--workers must be between 1 and {MAX_WORKERS}, not {workers}")
    files = [str(f) for d in data for f in find_data_files(d)]
    if not files:
        raise InputError(f"no Parquet, CSV or JSONL file in {', '.join(str(d) for d in data)}")
    parquet = ("pyarrow",) if any(f.endswith(_TABLE) for f in files) else ()
    require_extra("harvest", ("dask", "distributed", *parquet), "generate on partitioned data")
    kw = dict(writer_kwargs or {})
    writer = SitemapSetWriter(out_dir, base_url, check_scope=not allow_cross_host, **kw)
    dedupe = bool(kw.get("dedupe"))
    with writer:
        cfg = _Config(writer.base_url,
                      None if allow_cross_host else url_origin(base_url), dedupe)
        count = max(len(files), workers) if dedupe else len(files)
        tasks = [(files if dedupe else [files[i]], (i, count) if dedupe else None, writer.partition_spec(f"part-{i}"))
                 for i in range(count)]
        parts = _run(tasks, cfg, workers, scheduler, processes)
        counts: dict[str, int] = {}
        for part in parts:
            if part.failure is not None:
                raise part.failure
        for part in parts:  # partition order
            writer.adopt(part.files, duplicates=part.duplicates)
            for code, n in part.report.counts.items():
                counts[code] = counts.get(code, 0) + n
    assert writer.manifest is not None
    return PartitionedResult(writer.manifest, len(parts), sum(p.report.errors for p in parts),
                             tuple(p for part in parts for p in part.report.kept), counts)
