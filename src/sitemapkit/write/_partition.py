"""Partitions of a sitemap set written elsewhere (another process, another machine) and adopted by the set.

A :class:`~sitemapkit.write.SitemapSetWriter` hands out a :class:`PartitionSpec` (``writer.partition_spec(name)``):
a small picklable value saying where the partition's files go (a folder inside the set's temporary directory) and
how to roll them (formats, limits, gzip, stylesheet, page title). Whoever runs the partition builds a
:class:`PartitionWriter` from it, adds entries, and gets :class:`PartitionFiles` back from ``finish()``: the
finished files per format, the URL count and the warnings. The set then adopts each partition in order
(``writer.adopt(files)``) and publishes them as it publishes its own files: index, manifest, atomic swap.

Each partition ends its last file early, so only the cut between files can differ from one process writing the
same entries in the same order; the limits hold for every file. This is how ``generate DATA --workers N``
(:mod:`sitemapkit.harvest`) writes partitions on Dask.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sitemapkit.core import UrlEntry, has_credentials
from sitemapkit.write._render import Warnings
from sitemapkit.write._rolling import Done, Format, Roller, RollSettings, StreamRoller, XmlRoller, refuse_credentials

__all__ = ["PartitionFiles", "PartitionSpec", "PartitionWriter"]


@dataclass(frozen=True, slots=True)
class PartitionSpec:
    """Where a partition writes (``tmp_dir``, inside its set's temporary directory) and how it rolls."""

    tmp_dir: Path
    formats: tuple[Format, ...]
    gzip_level: int | None
    stylesheet: str | None
    max_urls: int
    max_bytes: int
    max_news: int
    html_title: str


@dataclass(slots=True)
class PartitionFiles:
    """A finished partition: its files per format (in order), how many URLs they hold, and its warnings."""

    done: dict[str, list[Done]] = field(default_factory=dict)
    urls: int = 0
    warnings: Warnings | None = None


class PartitionWriter:
    """Roll entries into a partition's files exactly as its set would (same renderer, same limits).

    ``add`` raises :class:`~sitemapkit.InvalidEntryError` for an entry that cannot be written (nothing of it is
    written; the partition is unharmed); ``finish`` closes the files and returns :class:`PartitionFiles`."""

    def __init__(self, spec: PartitionSpec) -> None:
        spec.tmp_dir.mkdir(parents=True, exist_ok=True)
        self.warnings = Warnings(str(spec.tmp_dir))
        settings = RollSettings(spec.tmp_dir, spec.gzip_level, spec.stylesheet, spec.max_urls, spec.max_bytes,
                                spec.max_news, spec.html_title, self.warnings)
        # XML first: it is the format that can reject an entry, before the others have written it.
        self._rollers: list[Roller] = [XmlRoller(settings) if f == "xml" else StreamRoller(settings, f)
                                       for f in sorted(spec.formats, key=lambda f: f != "xml")]
        self.urls = 0

    def add(self, entry: UrlEntry) -> None:
        if "@" in entry.loc and has_credentials(entry.loc):  # before any format has written it
            refuse_credentials(entry.loc)
        for roller in self._rollers:
            roller.add(entry)
        self.urls += 1

    def finish(self) -> PartitionFiles:
        for roller in self._rollers:
            roller.finish()
        return PartitionFiles({r.fmt: r.done for r in self._rollers}, self.urls, self.warnings)
