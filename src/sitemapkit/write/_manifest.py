"""What a published sitemap set holds (:class:`Manifest`): its files, URL count, duplicates skipped and
warnings; what :meth:`SitemapSetWriter.close` returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemapkit.core import Problem, plural
from sitemapkit.write._publish import SitemapFile

__all__ = ["Manifest"]


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a publish wrote. ``entry_point`` is ``OUT/sitemap.xml`` (``.gz``): the index when there is more than
    one XML file, else the urlset itself (for a txt/html-only set, the first format's: ``sitemap.txt``, the text
    sitemaps' index ``sitemap-txt.xml`` when they are split, or ``sitemap.html``).
    ``problems`` are warnings (deprecated tags, duplicates, URLs outside the base URL), one per code with a
    count; the library never prints them.

    Example: ``manifest = write_sitemaps(entries, "public/", "https://example.com/")``, then ``manifest.entry_point``,
    ``manifest.urls``, ``manifest.to_dict()``.
    """

    out_dir: Path
    entry_point: Path | None
    files: tuple[SitemapFile, ...]
    urls: int
    duplicates: int
    removed: tuple[Path, ...]
    problems: tuple[Problem, ...] = field(default=())
    #: Set when repeats were looked for among the first this many distinct URLs only (memory stays bounded:
    #: :class:`~sitemapkit.core.ExactSeen`); later repeats were written. None: every URL was checked (or no dedupe).
    dedupe_limit: int | None = None

    @property
    def index(self) -> SitemapFile | None:
        return next((f for f in self.files if f.kind == "index"), None)

    @property
    def sitemaps(self) -> tuple[SitemapFile, ...]:
        """The urlset files (what the index lists, or the single sitemap)."""
        return tuple(f for f in self.files if f.kind == "urlset")

    def summary(self) -> list[str]:
        """What was published, in a few lines for people: the URLs, files, size and entry point, then the
        duplicates skipped, the dedupe limit reached and the stale files removed, when there are any."""
        sitemaps = self.sitemaps or tuple(f for f in self.files if f.kind == "txt")  # what the index lists
        files = [f for f in self.files if f.kind != "xsl"]
        where = self.entry_point or self.out_dir
        lines = [f"Wrote {plural(self.urls, 'URL')} in {plural(len(files), 'file')}, "
                 f"{_human(sum(f.stored_bytes for f in files))}: {where}"
                 + (f" (index of {len(sitemaps)} sitemaps)" if self.index is not None else "")]
        if self.duplicates:
            lines.append(f"Skipped {plural(self.duplicates, 'duplicate URL')}.")
        if self.dedupe_limit is not None:
            lines.append(f"Note: repeats were looked for among the first {self.dedupe_limit:,} distinct URLs only "
                         "(memory stays bounded); a URL first given after those and given again was written twice "
                         "(sort -u the input first to be sure).")
        if self.removed:
            lines.append(f"Removed {plural(len(self.removed), 'stale file')} of the previous run.")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "out_dir": str(self.out_dir),
            "entry_point": str(self.entry_point) if self.entry_point else None,
            "urls": self.urls,
            "duplicates": self.duplicates,
            "dedupe_limit": self.dedupe_limit,
            "files": [f.to_dict() for f in self.files],
            "removed": [str(p) for p in self.removed],
            "problems": [p.to_dict() for p in self.problems],
        }


def _human(n: int) -> str:
    """A size in decimal units: ``512 B``, ``1.5 kB``, ``2.0 MB``."""
    size = float(n)
    for unit in ("B", "kB", "MB"):
        if size < 1000:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"
