"""The generate job: inputs of every kind in, one sitemap set published, a result with counts and problems out.

::

    inputs (lists, CSV, JSONL, '-', sitemaps, feeds, indexes, site folders)   generator/_inputs.py, _site.py
        -> entries with where they came from, and problems
        -> host check (SM608: another scheme, host or port than base_url, skipped unless allowed)
        -> SitemapSetWriter (write): rolled, gzip, index, published atomically   -> Manifest
    partitioned DATA (Parquet, folders of CSV / JSONL) with workers            sitemapkit.harvest on Dask

:func:`generate` is what ``sitemapkit generate`` runs; the command only parses options and prints. Problems go to
``on_problem`` as they are found (the command prints the first 20 of each code) and are counted per code in the
result; nothing here prints.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from sitemapkit.core import (
    MAX_SITEMAP_BYTES,
    MAX_URLS_PER_SITEMAP,
    ConfigurationError,
    InvalidValueError,
    Location,
    Problem,
    ProblemTally,
    Severity,
    redact_credentials,
)
from sitemapkit.generator._inputs import iter_generate_runs
from sitemapkit.generator._site import LASTMOD_SOURCES, Exclusion, SiteRun, SiteState
from sitemapkit.write import (
    MANIFEST_NAME,
    SM606,
    EntryRun,
    Format,
    HostCheck,
    Manifest,
    SitemapSetWriter,
    read_manifest,
)

if TYPE_CHECKING:
    from sitemapkit.core import SitemapHints

__all__ = ["CAP", "GenerateResult", "Generation", "generate"]

#: Problems of one code kept in :attr:`GenerateResult.problems` (all are counted in ``counts``).
CAP = 20


@dataclass(frozen=True, slots=True)
class GenerateResult:
    """What a generate run published and what it skipped.

    ``manifest`` is the published set; ``errors`` counts the input lines (or rows) skipped; ``counts`` holds the number
    of problems of each code and ``problems`` the first :data:`CAP` of each; ``excluded`` counts the pages of site
    folders left out per reason (``robots``, ``noindex``, ``canonical``); ``changed`` lists the URLs whose content
    is new or changed since the last run (with a ``state``); ``partitions`` is the number of partitions written in
    parallel (0 for a single-process run); ``duplicates`` the URLs skipped as given before. With ``lastmod="git"``,
    ``lastmod_counts`` holds the pages dated by git (``"git"``) and those that fell back per reason,
    ``lastmod_summary`` says so in a line and ``shallow_warning`` names a shallow clone (None when there is none).

    Example: ``result = generate(["urls.txt"], "public/", base_url="https://example.com/")``, then
    ``result.manifest.urls`` and, for the lines skipped, ``result.errors`` and ``result.problems``."""

    manifest: Manifest
    errors: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    excluded: dict[str, int] = field(default_factory=dict)
    changed: tuple[str, ...] = ()
    partitions: int = 0
    lastmod_counts: dict[str, int] = field(default_factory=dict)
    lastmod_summary: str | None = None
    shallow_warning: str | None = None

    @property
    def duplicates(self) -> int:
        """URLs given more than once and skipped after their first (0 with ``dedupe=False``)."""
        return self.manifest.duplicates

    @property
    def ok(self) -> bool:
        """True when no input line was skipped."""
        return self.errors == 0

    def excluded_summary(self) -> str | None:
        """``Excluded 3 pages the site keeps out of search: 1 noindex, ...``, or None when nothing was."""
        total = sum(self.excluded.values())
        if not total:
            return None
        parts = ", ".join(f"{n:,} {reason}" for reason, n in self.excluded.items())
        return f"Excluded {total:,} page{'s' if total != 1 else ''} the site keeps out of search: {parts}."


class Generation:
    """One generate run; :meth:`run` does it. ``urls`` counts the URLs written so far (for progress, read from
    another thread). See :func:`generate` for the parameters."""

    def __init__(
        self,
        inputs: Sequence[str | os.PathLike[str]],
        out_dir: str | os.PathLike[str],
        *,
        base_url: str,
        gzip: bool = False,
        max_urls: int = MAX_URLS_PER_SITEMAP,
        max_bytes: int = MAX_SITEMAP_BYTES,
        formats: Sequence[Format] = ("xml",),
        xsl: str | None = None,
        dedupe: bool | None = None,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        allow_cross_host: bool = False,
        state: str | os.PathLike[str] | None = None,
        lastmod: str = "mtime",
        workers: int | None = None,
        scheduler: str | None = None,
        stdin: BinaryIO | None = None,
        on_problem: Callable[[Problem], None] | None = None,
        on_excluded: Callable[[Exclusion], None] | None = None,
        on_note: Callable[[str], None] | None = None,
        hints: SitemapHints | None = None,
    ) -> None:
        if not inputs:
            raise ConfigurationError("generate needs at least one input")
        if isinstance(inputs, (str, os.PathLike)):
            inputs = [inputs]
        self.inputs = [os.fspath(p) for p in inputs]
        self.out_dir = Path(out_dir)
        self.base_url = base_url
        self.writer_kwargs: dict[str, Any] = {"gzip": gzip, "max_urls": max_urls, "max_bytes": max_bytes,
                                              "formats": tuple(formats), "xsl": xsl, "dedupe": dedupe}
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.allow_cross_host = allow_cross_host
        self.hints = hints if hints is not None and not hints.empty else None
        self.state_path = state
        self.lastmod = lastmod
        if lastmod not in LASTMOD_SOURCES:
            raise ConfigurationError(f"lastmod must be one of {', '.join(LASTMOD_SOURCES)}, got {lastmod!r}")
        self.workers = workers
        self.scheduler = scheduler
        self.stdin = stdin
        self.on_excluded = on_excluded
        self.on_note = on_note
        self._tally = ProblemTally(CAP)
        self._on_problem = on_problem
        self._writer: SitemapSetWriter | None = None
        self.partitioned = workers is not None or scheduler is not None or any(
            _is_data_input(p) for p in self.inputs)
        if dedupe is None:  # partitioned data is written as is: skipping repeats there makes every task read all
            self.writer_kwargs["dedupe"] = not self.partitioned
        if self.partitioned:
            self._check_partitioned()
        elif workers is not None and workers < 1:
            raise ConfigurationError(f"workers must be at least 1, got {workers}")

    @property
    def urls(self) -> int:
        writer = self._writer
        return 0 if writer is None else writer.urls

    def run(self) -> GenerateResult:
        """Read every input, publish the set, and say what was done. Raises :class:`~sitemapkit.InputError` for
        an input that cannot be read at all, :class:`~sitemapkit.PublishError` when nothing could be written
        (the previous set, if any, is then unchanged)."""
        if self.partitioned:
            return self._run_partitioned()
        site = SiteRun(SiteState.load(self.state_path) if self.state_path is not None else None,
                       on_excluded=self.on_excluded, on_note=self.on_note, lastmod=self.lastmod,
                       titles="html" in self.writer_kwargs["formats"])  # site folders' titles: the page's links
        writer = self._writer = SitemapSetWriter(self.out_dir, self.base_url, check_scope=not self.allow_cross_host,
                                                 page_titles=None if site.titles is None else site.titles.get,
                                                 **self.writer_kwargs)
        hosts = None if self.allow_cross_host else HostCheck(self.base_url)
        report = self._report
        hints = self.hints  # None unless asked for: the loop then does no per-entry work for them
        runs = iter_generate_runs(self.inputs, base_url=self.base_url, include=self.include, exclude=self.exclude,
                                  skip_files=_own_files(self.out_dir, self.inputs), stdin=self.stdin,
                                  site=site)
        with _fewer_collections(), writer:
            for item in runs:
                if item.__class__ is EntryRun:  # a URL list's entries, a run at a time
                    if hints is not None:  # entries with their hinted values (no longer bare locs)
                        item = EntryRun(item.source, [hints.apply(e) for e in item.entries], item.lines)
                    _add_run(writer, hosts, item, report)
                    continue
                if isinstance(item, Problem):
                    report(item)
                    continue
                entry, location = item  # type: ignore[misc]
                off_host = None if hosts is None else hosts.problem(entry.loc, location.source, location.line)
                if off_host is not None:
                    report(off_host)
                    continue
                if hints is not None:
                    entry = hints.apply(entry)
                try:
                    writer.add(entry)
                except InvalidValueError as exc:
                    report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                                   Location(location.source, location.line, loc=redact_credentials(entry.loc))))
        manifest = writer.manifest
        assert manifest is not None
        if site.state is not None:  # published: the next run compares with this one
            site.state.save()
        summary, shallow = site.lastmod_report()
        return GenerateResult(
            manifest=_without_dupe_noise(manifest) if self.writer_kwargs["dedupe"] else manifest,
            errors=self._tally.errors, counts=dict(self._tally.counts), problems=tuple(self._tally.kept),
            excluded=dict(site.excluded), changed=tuple(site.state.changed) if site.state is not None else (),
            lastmod_counts=dict(site.lastmod_counts), lastmod_summary=summary, shallow_warning=shallow)

    def _report(self, problem: Problem) -> None:
        self._tally(problem)
        if self._on_problem is not None:
            self._on_problem(problem)

    def _check_partitioned(self) -> None:
        from sitemapkit.harvest import is_data_input

        not_data = [p for p in self.inputs if not is_data_input(p)]
        if not_data:
            raise ConfigurationError(f"{not_data[0]} is not partitioned data: with workers or a scheduler every "
                                     "input is a Parquet dataset or a folder of CSV / JSONL files")
        used = [name for name, value in (("include", self.include), ("exclude", self.exclude),
                                         ("state", self.state_path), ("lastmod git", self.lastmod == "git"),
                                         ("changefreq/priority rules", self.hints)) if value]
        if used:
            raise ConfigurationError(f"{', '.join(used)} do not apply to partitioned data")
        if self.workers is not None and self.workers < 1:
            raise ConfigurationError(f"workers must be at least 1, got {self.workers}")

    def _run_partitioned(self) -> GenerateResult:
        from sitemapkit.harvest import generate_partitioned

        result = generate_partitioned(self.inputs, self.out_dir, self.base_url, workers=self.workers or 2,
                                      scheduler=self.scheduler, allow_cross_host=self.allow_cross_host,
                                      writer_kwargs=self.writer_kwargs)
        if self._on_problem is not None:
            for problem in result.problems:
                self._on_problem(problem)
        return GenerateResult(manifest=result.manifest, errors=result.errors, counts=dict(result.counts),
                              problems=result.problems, partitions=result.partitions)


def generate(
    inputs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    base_url: str,
    **options: Any,
) -> GenerateResult:
    """Publish a sitemap set in ``out_dir`` (served at ``base_url``) from ``inputs``, exactly as
    ``sitemapkit generate`` does.

    An input is a text file of URLs, a CSV with a header (loc, lastmod, changefreq, priority), a JSONL file of
    entry objects, an XML sitemap or RSS/Atom feed, a sitemap index (its sitemaps read from the index's folder),
    ``"-"`` (with ``stdin``), a folder holding a built static site (pages the site keeps out of search are left
    out: robots.txt, noindex, canonical), or partitioned data (a Parquet dataset, or with ``workers`` a folder of
    CSV / JSONL files, written in parallel on Dask: ``pip install 'sitemapkit[harvest]'``).

    Options: ``gzip``, ``max_urls``, ``max_bytes``, ``formats`` (``xml``, ``txt``, ``html``), ``xsl``,
    ``dedupe`` (by default a URL given again is skipped, the first one wins, and counted in
    ``result.duplicates``; False writes every one; partitioned data is written as is unless True, which makes
    every partition task read every file); ``include`` / ``exclude`` (globs on file or URL paths);
    ``allow_cross_host`` (write URLs on other hosts than ``base_url``; else reported as SM608 and skipped);
    ``state`` (a JSON file: lastmod of site pages moves only when their content does); ``lastmod`` (``"mtime"``,
    or ``"git"``: site pages dated by the last commit that touched their file, falling back per file to
    ``state`` or the modification time); ``hints`` (a :class:`~sitemapkit.core.SitemapHints`: changefreq and
    priority for entries that give none, by default, path rule or depth); ``workers`` / ``scheduler``
    (partitioned data); callbacks ``on_problem(Problem)``, ``on_excluded(Exclusion)`` and ``on_note(str)``.

    Example: ``result = generate(["urls.csv"], "public/", base_url="https://example.com/", gzip=True)``, then
    ``result.manifest.entry_point`` and ``result.errors``.
    """
    return Generation(inputs, out_dir, base_url=base_url, **options).run()


def _add_run(writer: SitemapSetWriter, hosts: HostCheck | None, run: EntryRun,
             report: Callable[[Problem], None]) -> None:
    """Add a run of entries as the item loop adds each (SM608 for another host, SM610 for an entry that cannot
    be written, both reported and skipped), in order."""
    locs = run.locs
    if locs is not None and (hosts is None or hosts.all_on(locs)):  # a text list's canonical lines, one host
        done, exc = writer.add_locs(locs)
        if exc is None:
            return
        report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                       Location(run.source, run.lines[done], loc=redact_credentials(locs[done]))))
        if done + 1 < len(locs):
            _add_run(writer, hosts, EntryRun.of_locs(run.source, locs[done + 1:], run.lines[done + 1:]), report)
        return
    entries = run.entries
    n = len(entries)
    i = 0
    while i < n:
        stop = n if hosts is None else hosts.first_off(entries, i, n)
        while i < stop:
            i, exc = writer.add_run(entries, i, stop)
            if exc is not None:
                report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                               Location(run.source, run.lines[i], loc=redact_credentials(entries[i].loc))))
                i += 1
        if i < n:  # entries[i] is on another host
            assert hosts is not None
            off_host = hosts.problem(entries[i].loc, run.source, run.lines[i])
            assert off_host is not None
            report(off_host)
            i += 1


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """The entry loop allocates a few objects per URL and frees them a run later (no cycles): the cycle
    collector's young-generation pass every 700 allocations measured ~5% of generate's time for nothing to
    collect. Every 20,000 allocations (a few MB at most) for the loop; the thresholds are restored after."""
    before = gc.get_threshold()
    gc.set_threshold(20_000, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _is_data_input(path: str) -> bool:
    """``harvest.is_data_input``, imported only for an input that can be partitioned data (a folder or a
    ``.parquet`` file): a URL list is neither, and generate on it starts without the harvest package."""
    candidate = Path(path)
    if not (candidate.name.endswith(".parquet") or candidate.is_dir()):  # what it returns False for at once
        return False
    from sitemapkit.harvest import is_data_input

    return is_data_input(path)


#: sitemapkit's report pages, each with the JSON report written beside it: a page of a site folder is taken for
#: such a report (and not listed) only with its JSON beside it. The names are crawl's ``REPORT_HTML`` /
#: ``REPORT_JSON`` and audit's (not imported: generate starts without the crawler; tests/cli/test_newcomer.py
#: checks they agree).
OWN_REPORTS = (("report.html", "crawl-report.json"), ("audit.html", "audit.json"))


def _own_files(out: Path, inputs: Sequence[str] = ()) -> frozenset[Path]:
    """sitemapkit's own files, never listed as pages of a site folder: what the last run published into OUT or
    into a site folder given as input (its manifest lists them: sitemap.html and its parts) and the manifest
    itself, and the crawl and audit report pages found there (an older crawl wrote them beside the sitemaps)."""
    own: list[Path] = []
    for folder in {out, *(Path(p) for p in inputs if p != "-" and os.path.isdir(p))}:
        own.extend(folder / n for n in [*read_manifest(folder), MANIFEST_NAME])
        own.extend(folder / page for page, data in OWN_REPORTS if (folder / data).is_file())
    return frozenset(own)


def _without_dupe_noise(manifest: Manifest) -> Manifest:
    """Duplicates were asked to be skipped (``dedupe``): their count is the report, not a warning."""
    problems = tuple(p for p in manifest.problems if p.code != SM606.code)
    return manifest if problems == manifest.problems else replace(manifest, problems=problems)
