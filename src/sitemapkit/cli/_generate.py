"""``sitemapkit generate``, and the output options every command that writes a sitemap set shares.

``output_options`` is a decorator adding ``--out``, ``--base-url``, ``--gzip``, ``--max-urls``, ``--max-bytes``,
``--format`` (repeatable), ``--xsl`` and ``--dedupe``; the command receives them as one ``output`` keyword, an
:class:`OutputOptions`. ``crawl`` reuses it so both commands spell these options the same way.
"""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Progress,
    check_sources,
    plural,
    print_problem,
    quiet_option,
)
from sitemapkit.cli._generate_inputs import CappedReport, iter_generate_runs
from sitemapkit.cli._publishsubmit import check_submit_options, submit_after_publish, submit_options
from sitemapkit.cli._static_site import SiteRun, SiteState
from sitemapkit.core._errors import InvalidValueError
from sitemapkit.core._limits import MAX_SITEMAP_BYTES, MAX_URLS_PER_SITEMAP, MAX_WORKERS
from sitemapkit.core._problems import Location, Problem, Severity
from sitemapkit.write._codes import SM606, HostCheck
from sitemapkit.write._inputs import EntryRun
from sitemapkit.write._publish import MANIFEST_NAME, read_manifest
from sitemapkit.write._rolling import FORMATS, Format
from sitemapkit.write._sitemapset import Manifest, SitemapSetWriter

__all__ = ["OutputOptions", "generate", "output_options", "print_manifest_summary"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class OutputOptions:
    """The sitemap-set options of a command, as parsed from the command line."""

    out: Path
    base_url: str | None
    gzip: bool
    max_urls: int
    max_bytes: int
    formats: tuple[Format, ...]
    xsl: str | None
    dedupe: bool

    def writer_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``SitemapSetWriter(out, base_url, **kwargs)``."""
        return {"gzip": self.gzip, "max_urls": self.max_urls, "max_bytes": self.max_bytes,
                "formats": self.formats, "xsl": self.xsl, "dedupe": self.dedupe}


def output_options(func: F) -> F:
    """Add the shared output options; the command gets ``output: OutputOptions`` instead of eight arguments."""

    @functools.wraps(func)
    def wrapper(*args: Any, out: str, base_url: str | None, gzip: bool, max_urls: int, max_bytes: int,
                formats: tuple[str, ...], xsl: str | None, dedupe: bool, **kwargs: Any) -> Any:
        chosen = tuple(dict.fromkeys(formats)) or ("xml",)
        output = OutputOptions(Path(out), base_url, gzip, max_urls, max_bytes,
                               chosen, xsl, dedupe)  # type: ignore[arg-type]
        return func(*args, output=output, **kwargs)

    options = [
        click.option("--out", "-o", "out", required=True, metavar="DIR",
                     type=click.Path(file_okay=False, dir_okay=True, writable=True),
                     help="Directory to publish the sitemap set into (created if missing)."),
        click.option("--base-url", metavar="URL", default=None,
                     help="Public URL the --out directory is served at; index <loc>s are this joined with the "
                          "file names."),
        click.option("--gzip", is_flag=True, help="Write .xml.gz / .txt.gz (fast zlib level 1)."),
        click.option("--max-urls", type=click.IntRange(1, MAX_URLS_PER_SITEMAP), default=MAX_URLS_PER_SITEMAP,
                     show_default=True, metavar="N", help="Roll to a new file before this many URLs."),
        click.option("--max-bytes", type=click.IntRange(1, MAX_SITEMAP_BYTES), default=MAX_SITEMAP_BYTES,
                     show_default=True, metavar="N", help="Roll before a file's uncompressed size would exceed N."),
        click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True,
                     help="Output format; repeat for several (default: xml)."),
        click.option("--xsl", metavar="URL", default=None,
                     help="Add an <?xml-stylesheet?> line; the value 'default' writes sitemapkit's sitemap.xsl "
                          "next to the sitemaps and uses it. Chromium-based browsers now show a banner that XSLT "
                          "support is being removed, over the page heading: for a page people read, use "
                          "--format html."),
        click.option("--dedupe", is_flag=True, help="Skip repeated URLs (keeps one hash per URL in memory)."),
    ]
    decorated: Callable[..., Any] = wrapper
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[return-value]


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"  # pragma: no cover


def print_manifest_summary(manifest: Manifest) -> None:
    """A concise summary on stdout and the writer's warnings on stderr."""
    for problem in manifest.problems:
        print_problem(problem)
    sitemaps = manifest.sitemaps
    files = [f for f in manifest.files if f.kind != "xsl"]
    stored = sum(f.stored_bytes for f in files)
    where = manifest.entry_point or manifest.out_dir
    click.echo(f"Wrote {plural(manifest.urls, 'URL')} in {plural(len(files), 'file')}, {_human(stored)}: {where}"
               + (f" (index of {len(sitemaps)} sitemaps)" if manifest.index is not None else ""))
    if manifest.duplicates:
        click.echo(f"Skipped {plural(manifest.duplicates, 'duplicate URL')}.")
    if manifest.removed:
        click.echo(f"Removed {plural(len(manifest.removed), 'stale file')} of the previous run.")


@click.command("generate")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@output_options
@click.option("--include", multiple=True, metavar="GLOB",
              help="Only these files of a site folder (or URL paths of a list), e.g. 'blog/*'. Repeatable.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Leave out matching files / URL paths, e.g. 'drafts/*'. Repeatable.")
@click.option("--allow-cross-host", is_flag=True,
              help="Write URLs on other hosts than --base-url (robots.txt cross-submission); without it they "
                   "are reported (SM608) and skipped.")
@click.option("--state", "state_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Site folders: a JSON file keeping each page's content fingerprint and lastmod between runs, "
                   "so lastmod moves only when a page's content changes, not on a rebuild (created if missing). "
                   "Without it lastmod is the file's modification time.")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None, metavar="N",
              help="Partitioned DATA (a Parquet dataset, or a folder of CSV / JSONL files): write its partitions "
                   f"in parallel on N local Dask workers (default 2 for a Parquet dataset; at most {MAX_WORKERS}).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Partitioned DATA: use the Dask scheduler at ADDRESS instead of local workers.")
@quiet_option
@submit_options
def generate(inputs: tuple[str, ...], output: OutputOptions, include: tuple[str, ...],
             exclude: tuple[str, ...], allow_cross_host: bool, quiet: bool = False, state_path: str | None = None,
             workers: int | None = None, scheduler: str | None = None, **submit: Any) -> None:
    """Build a sitemap set from URL lists, sitemaps and feeds, or a built static site.

    INPUT is a text file of URLs (one a line), a CSV with a header (loc, lastmod, changefreq, priority), a JSONL
    file of entry objects (as `sitemapkit urls --format jsonl` prints them), an XML sitemap or RSS/Atom feed (read
    with every extension: images, videos, news, hreflang), a sitemap index (its sitemaps are read from the index's
    folder by file name; nothing is fetched), '-' for standard input, or a folder holding a built static site
    (HTML files become URLs under --base-url, index.html its directory, lastmod from the file's modification
    time, or with --state from the content: see below). An HTML page is not an input: give its site's folder.

    A site folder's pages that the site keeps out of search are left out, with the reason (as crawl does):
    robots.txt Disallow rules of the folder's robots.txt (for sitemapkit or *; only when --base-url is the
    site root), <meta name="robots" content="noindex">, and a rel="canonical" naming another URL.

    With --state FILE, a page's lastmod changes only when its main content does (text and links without
    navigation, footer, dates, counters and tokens): a rebuild that touches every file keeps every lastmod. A
    page seen for the first time gets its file's modification time.

    The entry point is OUT/sitemap.xml (.xml.gz with --gzip): the urlset itself when everything fits in one
    file, otherwise an index of the files. Files are written under temporary names and moved into place, the
    index last; files of an earlier run that are no longer part of the set are removed.

    Bad input lines are reported as FILE:LINE and skipped (the first 20 of each code, then a count); the exit
    status is then 1. So are URLs on another scheme, host or port than --base-url (a sitemap lists its own
    host's URLs), unless --allow-cross-host.

    INPUT may be partitioned DATA: a Parquet dataset (what `sitemapkit harvest` writes) or, with --workers, a
    folder of CSV / JSONL files. Each partition writes its own files on Dask, then the index is written and
    the set published as above: the same entries as one process would write.

    \b
    Example:
      sitemapkit generate urls.txt --out public --base-url https://example.com/
      sitemapkit generate _site -o _site --base-url https://example.com/ --gzip
      sitemapkit generate urls.jsonl -o public --base-url https://example.com/
    """
    if output.base_url is None:
        raise click.UsageError("--base-url is required: the public URL the --out directory is served at")
    check_sources(inputs, urls=False, param_hint="INPUT")
    check_submit_options(submit["submit_state"], submit["submit_key"])
    if workers is not None or scheduler is not None or any(_is_data_input(p) for p in inputs):
        from sitemapkit.cli._harvest import generate_partitioned_data  # Dask's side: only for partitioned data

        generate_partitioned_data(inputs, output, workers=workers, scheduler=scheduler,  # exits
                                  allow_cross_host=allow_cross_host, submit=submit, summary=print_manifest_summary,
                                  ignored={"include": include, "exclude": exclude, "state": state_path})
    writer = SitemapSetWriter(output.out, output.base_url, check_scope=not allow_cross_host,
                              **output.writer_kwargs())
    hosts = None if allow_cross_host else HostCheck(output.base_url)
    skip = _own_files(output.out)
    site = SiteRun(SiteState.load(state_path) if state_path is not None else None)
    errors = 0
    report = CappedReport()  # the first 20 problems of each code, then a count

    def describe() -> str:
        return f"writing sitemaps: {plural(writer.urls, 'URL')}"

    with Progress(describe, quiet=quiet), _fewer_collections():  # noqa: SIM117 - the block keeps its indentation
        with writer:
            for item in _items(inputs, output, include, exclude, skip, site):
                if item.__class__ is EntryRun:  # a URL list's entries, a run at a time
                    errors += _add_run(writer, hosts, item, report)
                    continue
                if isinstance(item, Problem):
                    report(item)
                    if item.severity is Severity.ERROR:
                        errors += 1
                    continue
                entry, location = item
                off_host = None if hosts is None else hosts.problem(entry.loc, location.source, location.line)
                if off_host is not None:
                    report(off_host)
                    errors += 1
                    continue
                try:
                    writer.add(entry)
                except InvalidValueError as exc:
                    report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                                          Location(location.source, location.line, loc=entry.loc)))
                    errors += 1
    report.finish()
    manifest = writer.manifest
    assert manifest is not None
    print_manifest_summary(_without_dupe_noise(manifest))
    excluded = site.summary()
    if excluded:
        click.echo(excluded)
    if site.state is not None:  # published: the next run compares with this one
        site.state.save()
    if errors:
        click.echo(f"sitemapkit: {plural(errors, 'input line')} skipped", err=True)
    submitted = submit_after_publish(manifest, **submit)  # --submit-state: the changes of this run
    sys.exit(EXIT_FAILURE if errors or not submitted else EXIT_OK)


def _items(inputs: tuple[str, ...], output: OutputOptions, include: tuple[str, ...], exclude: tuple[str, ...],
           skip: frozenset[Path], site: SiteRun) -> Iterator[Any]:
    stdin = sys.stdin.buffer if "-" in inputs else None
    yield from iter_generate_runs(inputs, base_url=output.base_url, include=include, exclude=exclude,
                                  skip_files=skip, stdin=stdin, site=site)


def _add_run(writer: SitemapSetWriter, hosts: HostCheck | None, run: EntryRun, report: CappedReport) -> int:
    """Add a run of entries as the item loop adds each (SM608 for another host, SM610 for an entry that cannot
    be written, both skipped), in order; returns the number of entries skipped."""
    entries = run.entries
    n = len(entries)
    errors = i = 0
    while i < n:
        stop = n if hosts is None else hosts.first_off(entries, i, n)
        while i < stop:
            i, exc = writer.add_run(entries, i, stop)
            if exc is not None:
                report(Problem("SM610", Severity.ERROR, f"cannot be written: {exc}",
                               Location(run.source, run.lines[i], loc=entries[i].loc)))
                errors += 1
                i += 1
        if i < n:  # entries[i] is on another host
            assert hosts is not None
            off_host = hosts.problem(entries[i].loc, run.source, run.lines[i])
            assert off_host is not None
            report(off_host)
            errors += 1
            i += 1
    return errors


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
    from sitemapkit.harvest._generate import is_data_input

    return is_data_input(path)


def _own_files(out: Path) -> frozenset[Path]:
    """Files the previous run published into OUT (so a site folder used as OUT does not list its sitemap.html),
    plus the manifest itself."""
    names = read_manifest(out)
    return frozenset(out / n for n in [*names, MANIFEST_NAME])


def _without_dupe_noise(manifest: Manifest) -> Manifest:
    """--dedupe asked for duplicates to be skipped: report their count, not a warning."""
    problems = tuple(p for p in manifest.problems if p.code != SM606.code)
    if problems == manifest.problems:
        return manifest
    from dataclasses import replace

    return replace(manifest, problems=problems)
