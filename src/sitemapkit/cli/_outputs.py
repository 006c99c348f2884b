"""The output options every command that writes a sitemap set shares, and the summary it prints.

``output_options`` is a decorator adding ``--out``, ``--base-url``, ``--gzip``, ``--urls-per-file``,
``--bytes-per-file``, ``--format`` (repeatable), ``--xsl`` and ``--keep-duplicates``; the command receives them as one
``output`` keyword, an :class:`OutputOptions`. ``generate`` and ``crawl`` both use it, so they spell these options
the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from sitemapkit.cli._common import print_problem, renamed_option
from sitemapkit.core import MAX_SITEMAP_BYTES, MAX_URLS_PER_SITEMAP
from sitemapkit.write import FORMATS, Format, Manifest

__all__ = ["OutputOptions", "output_options", "print_manifest_summary"]

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
    dedupe: bool | None  # None: the job's default (generate skips repeats, except in partitioned data)

    def writer_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``SitemapSetWriter(out, base_url, **kwargs)``."""
        kwargs = {"gzip": self.gzip, "max_urls": self.max_urls, "max_bytes": self.max_bytes,
                  "formats": self.formats, "xsl": self.xsl}
        return kwargs if self.dedupe is None else {**kwargs, "dedupe": self.dedupe}


def output_options(func: F) -> F:
    """Add the shared output options; the command gets ``output: OutputOptions`` instead of eight arguments."""

    @functools.wraps(func)
    def wrapper(*args: Any, out: str, base_url: str | None, gzip: bool, urls_per_file: int, bytes_per_file: int,
                formats: tuple[str, ...], xsl: str | None, keep_duplicates: bool, dedupe: bool,
                **kwargs: Any) -> Any:
        chosen = tuple(dict.fromkeys(formats)) or ("xml",)
        if keep_duplicates and dedupe:
            raise click.UsageError("--keep-duplicates and --dedupe contradict each other")
        wanted = False if keep_duplicates else True if dedupe else None
        output = OutputOptions(Path(out), base_url, gzip, urls_per_file, bytes_per_file,
                               chosen, xsl, wanted)  # type: ignore[arg-type]
        return func(*args, output=output, **kwargs)

    options = [
        click.option("--out", "-o", "out", required=True, metavar="DIR",
                     type=click.Path(file_okay=False, dir_okay=True, writable=True),
                     help="Directory to publish the sitemap set into (created if missing)."),
        click.option("--base-url", metavar="URL", default=None,
                     help="Public URL the --out directory is served at; index <loc>s are this joined with the "
                          "file names."),
        click.option("--gzip", is_flag=True, help="Write .xml.gz / .txt.gz (fast zlib level 1)."),
        click.option("--urls-per-file", type=click.IntRange(1, MAX_URLS_PER_SITEMAP), default=MAX_URLS_PER_SITEMAP,
                     show_default=True, metavar="N",
                     help="Roll to a new sitemap file before one holds more than N URLs."),
        click.option("--bytes-per-file", type=click.IntRange(1, MAX_SITEMAP_BYTES), default=MAX_SITEMAP_BYTES,
                     show_default=True, metavar="N",
                     help="Roll to a new sitemap file before one's uncompressed size would exceed N bytes."),
        click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True,
                     help="Output format; repeat for several (default: xml)."),
        click.option("--xsl", metavar="URL", default=None,
                     help="Add an <?xml-stylesheet?> line; the value 'default' writes sitemapkit's sitemap.xsl "
                          "next to the sitemaps and uses it. Chromium-based browsers now show a banner that XSLT "
                          "support is being removed, over the page heading: for a page people read, use "
                          "--format html."),
        click.option("--keep-duplicates", is_flag=True,
                     help="Write a URL given more than once every time (by default repeats are skipped, the first "
                          "one wins, and counted in the summary; skipping keeps ~70 bytes per URL in memory)."),
        click.option("--dedupe", is_flag=True,
                     help="Partitioned DATA: skip repeated URLs too (every worker then reads every file); other "
                          "inputs skip them by default."),
        renamed_option("--max-urls", "--urls-per-file"),
        renamed_option("--max-bytes", "--bytes-per-file"),
    ]
    decorated: Callable[..., Any] = wrapper
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[return-value]


def print_manifest_summary(manifest: Manifest) -> None:
    """A concise summary on stdout (:meth:`Manifest.summary`) and the writer's warnings on stderr."""
    for problem in manifest.problems:
        print_problem(problem)
    for line in manifest.summary():
        click.echo(line)
