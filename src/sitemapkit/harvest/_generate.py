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
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

from sitemapkit.core import InvalidEntryError, Location, Problem, Severity, UrlEntry
from sitemapkit.harvest._schema import entry_from_row
from sitemapkit.write import Manifest, SitemapSetWriter
from sitemapkit.write._codes import HostCheck, url_origin
from sitemapkit.write._inputs import iter_input
from sitemapkit.write._render import Warnings
from sitemapkit.write._rolling import Done, Format, Roller, RollSettings, StreamRoller, XmlRoller

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
    formats: tuple[Format, ...]
    gzip_level: int | None
    stylesheet: str | None
    max_urls: int
    max_bytes: int
    max_news: int
    html_title: str
    home: str | None  # scheme://host[:port] entries must be on (None: any host)
    dedupe: bool


@dataclass(slots=True)
class _Part:
    """What one partition sends back: its finished files per format, counters, warnings and problems."""

    done: dict[str, list[Done]] = field(default_factory=dict)
    urls: int = 0
    errors: int = 0
    duplicates: int = 0
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: Warnings | None = None

    def report(self, problem: Problem) -> None:
        n = self.counts.get(problem.code, 0) + 1
        self.counts[problem.code] = n
        if problem.severity is Severity.ERROR:
            self.errors += 1
        if n <= _CAP:
            self.problems.append(problem)


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
    for item in iter_input(str(path), base_url=base_url):
        if isinstance(item, Problem):
            part.report(item)
        else:
            yield item


def _write_partition(files: Sequence[str], route: tuple[int, int] | None, tmp_dir: str, cfg: _Config) -> _Part:
    """One Dask task: read ``files`` (only the rows whose loc hashes to ``route[0]`` of ``route[1]``, when given)
    and roll them into files under ``tmp_dir``."""
    part = _Part(warnings=Warnings(tmp_dir))
    assert part.warnings is not None
    Path(tmp_dir).mkdir(parents=True, exist_ok=True)
    settings = RollSettings(Path(tmp_dir), cfg.gzip_level, cfg.stylesheet, cfg.max_urls, cfg.max_bytes,
                            cfg.max_news, cfg.html_title, part.warnings)
    rollers: list[Roller] = [XmlRoller(settings) if f == "xml" else StreamRoller(settings, f)
                             for f in sorted(cfg.formats, key=lambda f: f != "xml")]
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
                for roller in rollers:
                    roller.add(entry)
            except InvalidEntryError as exc:
                part.report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                                    Location(where.source, where.line, loc=entry.loc)))
                continue
            if seen is not None:
                seen.add(key)
            part.urls += 1
    for roller in rollers:
        roller.finish()
        part.done[roller.fmt] = roller.done
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


def _run(tasks: list[tuple[list[str], tuple[int, int] | None, str]], cfg: _Config, workers: int,
         scheduler: str | None, processes: bool) -> list[_Part]:
    import distributed

    dist: Any = distributed  # untyped: called through Any
    cluster = None
    if scheduler is not None:
        client = dist.Client(scheduler, timeout="30s")
    else:
        cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = dist.Client(cluster)
    try:
        futures = [client.submit(_write_partition, files, route, tmp, cfg, pure=False)
                   for files, route, tmp in tasks]
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
    from sitemapkit.core import ConfigurationError, InputError
    from sitemapkit.core._limits import MAX_WORKERS

    if not 1 <= workers <= MAX_WORKERS:
        raise ConfigurationError(f"--workers must be between 1 and {MAX_WORKERS}, not {workers}")
    files = [str(f) for d in data for f in find_data_files(d)]
    if not files:
        raise InputError(f"no Parquet, CSV or JSONL file in {', '.join(str(d) for d in data)}")
    kw = dict(writer_kwargs or {})
    writer = SitemapSetWriter(out_dir, base_url, check_scope=not allow_cross_host, **kw)
    dedupe = bool(kw.get("dedupe"))
    with writer:
        tmp = writer._tmp_dir
        settings = writer._rollers[0].settings
        cfg = _Config(writer.base_url, tuple(r.fmt for r in writer._rollers), settings.gzip_level,
                      settings.stylesheet, writer.max_urls, writer.max_bytes, writer.max_news, writer.html_title,
                      None if allow_cross_host else url_origin(base_url), dedupe)
        count = max(len(files), workers) if dedupe else len(files)
        tasks = [(files if dedupe else [files[i]], (i, count) if dedupe else None, str(tmp / f"part-{i}"))
                 for i in range(count)]
        parts = _run(tasks, cfg, workers, scheduler, processes)
        counts: dict[str, int] = {}
        for i, part in enumerate(parts):  # partition order: each partition's files, renamed into the set's tmp
            for done_list in part.done.values():
                for d in done_list:
                    target = tmp / f"p{i}-{d.tmp.name}"
                    os.replace(d.tmp, target)
                    d.tmp = target
            shutil.rmtree(tmp / f"part-{i}", ignore_errors=True)
            for code, n in part.counts.items():
                counts[code] = counts.get(code, 0) + n
            if part.warnings is not None:
                writer._warnings.merge(part.warnings)
        for roller in writer._rollers:
            roller.done = [d for part in parts for d in part.done.get(roller.fmt, [])]
        writer.urls = sum(p.urls for p in parts)
        writer.duplicates = sum(p.duplicates for p in parts)
    assert writer.manifest is not None
    return PartitionedResult(writer.manifest, len(parts), sum(p.errors for p in parts),
                             tuple(p for part in parts for p in part.problems), counts)
