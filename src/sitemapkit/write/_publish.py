"""Publishing a sitemap set: the finished files moved into OUT as a swap, the index and the manifest written, the
previous run's stale files removed.

The children an entry point lists are named with the run's generation (``sitemap-<gen>-<n>.xml``, ``.txt``,
``.html``, a number the manifest keeps), so they never replace a file the old entry point lists. The entry points
are the XML index ``sitemap.xml``, the index of split text sitemaps ``sitemap-txt.xml`` (a sitemap index may list
text sitemaps) and the page list ``sitemap.html``; they are renamed over the old ones last (the swap points), and
only then are the old files deleted. A kill at any moment leaves each format's old set or its new one complete;
what it leaves besides (a temp directory, unreferenced children) is listed in the manifest or removed by the next
run.

Which files are "ours": the names the set gives (``sitemap.xml``, ``sitemap-<gen>-<n>.xml``, ``.gz`` variants,
``.txt``, ``sitemap-txt.xml``, ``.html``, ``sitemap.xsl``) are recorded in ``OUT/.sitemapkit-manifest.json``.
Stale-file removal only ever deletes files listed in the previous manifest that the new run did not write; a file
the user put in OUT is never touched, even when its name looks like ours.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sitemapkit.core import MAX_INDEX_ENTRIES, LastMod, PublishError, SitemapRef
from sitemapkit.write._rolling import Done, Out, Roller, utc_now_text
from sitemapkit.write._writers import HtmlWriter, IndexWriter

__all__ = ["MANIFEST_NAME", "XSL_NAME", "Published", "Publisher", "SitemapFile", "read_manifest",
           "read_manifest_state"]

#: The file, inside the output directory, that lists what the last run wrote.
MANIFEST_NAME = ".sitemapkit-manifest.json"
XSL_NAME = "sitemap.xsl"


@dataclass(frozen=True, slots=True)
class SitemapFile:
    """One published file: where it is, its public URL, what it holds and its size."""

    path: Path
    url: str
    kind: Literal["urlset", "index", "txt", "html", "xsl"]
    urls: int
    bytes: int
    stored_bytes: int
    news: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "url": self.url, "kind": self.kind, "urls": self.urls,
                "bytes": self.bytes, "stored_bytes": self.stored_bytes, "news": self.news}


@dataclass(frozen=True, slots=True)
class Published:
    """What :meth:`Publisher.publish` did: the entry point (None for a set without one), the files now in OUT and
    the stale files it removed."""

    entry_point: Path | None
    files: tuple[SitemapFile, ...]
    removed: tuple[Path, ...]


@dataclass(frozen=True, slots=True)
class Publisher:
    """Moves a finished set from ``tmp_dir`` into ``out_dir`` (served at ``base_url``, a directory URL ending in
    ``/``). ``gzip_level`` and ``stylesheet`` apply to the index it writes; ``xsl == "default"`` also publishes the
    bundled ``sitemap.xsl``; ``html_title`` titles the page that lists a split HTML sitemap's pages."""

    out_dir: Path
    base_url: str
    basename: str
    tmp_dir: Path
    gzip: bool
    gzip_level: int | None
    stylesheet: str | None
    xsl: str | None
    html_title: str

    def publish(self, rollers: Sequence[Roller]) -> Published:
        """Move the rollers' finished files into OUT as a swap: children under names no earlier set used, the
        entry points (index, ``sitemap.html``) replaced last, the previous set's files deleted after. A kill at
        any point leaves the old set or the new one complete (plus, at worst, unreferenced files the manifest
        lists so that the next run deletes them)."""
        previous, previous_generation = read_manifest_state(self.out_dir)
        layout: list[tuple[Roller, str, str]] = []  # (roller, file suffix, entry-point name)
        gz = ".gz" if self.gzip else ""
        for roller in rollers:
            ext = roller.fmt
            suffix = f".{ext}{gz if ext != 'html' else ''}"
            if ext != "html" and len(roller.done) > MAX_INDEX_ENTRIES:
                raise PublishError(f"{len(roller.done)} sitemap files exceed the {MAX_INDEX_ENTRIES} an index "
                                   "may list")
            layout.append((roller, suffix, f"{self.basename}{suffix}"))
        generation = self._new_generation(layout, previous, previous_generation)
        # (temp file, final name, format group), in rename order: children first, entry points last. A group is
        # one format's files; a single-file format is its own entry point.
        plan: list[tuple[Done, str, int]] = []
        last: list[tuple[Done, str, int]] = []
        entry_point: str | None = None
        for group, (roller, suffix, top) in enumerate(layout):
            if len(roller.done) == 1:
                plan.append((roller.done[0], top, group))
                entry_point = entry_point or top
                continue
            names = self._child_names(roller, suffix, generation)
            plan.extend((done, name, group) for done, name in zip(roller.done, names, strict=True))
            if roller.fmt == "xml":
                last.append((self._write_index(roller.done, names, "index"), top, group))
                entry_point = entry_point or top
            elif roller.fmt == "txt":  # text sitemaps have no index of their own: an XML index lists them
                last.append((self._write_index(roller.done, names, "txt-index"), self.text_index_name, group))
                entry_point = entry_point or self.text_index_name
            else:
                last.append((self._write_html_pages(names), top, group))
        if self.xsl == "default":  # the stylesheet goes with the XML files
            plan.insert(0, (self._write_xsl(), XSL_NAME, 0))
        order = plan + last
        written = [name for _done, name, _group in order]
        entries = {name for _done, name, _group in last} | {top for _roller, _suffix, top in layout}
        # Before anything moves: the manifest lists the old files and the new ones, so whatever a kill leaves
        # in OUT is known to the next run, which deletes what its own set does not use.
        self._write_manifest(sorted(set(previous) | set(written)), generation)
        files: list[SitemapFile] = []
        moved: list[tuple[Path, int]] = []
        swapped: set[int] = set()  # groups whose entry point is in place: their new files stay
        try:
            for done, name, group in order:
                target = self.out_dir / name
                try:
                    os.replace(done.tmp, target)
                except OSError as exc:
                    raise PublishError(f"cannot move {name} into {self.out_dir}: {exc.strerror or exc}") from exc
                moved.append((target, group))
                if name in entries:
                    swapped.add(group)
                files.append(SitemapFile(target, self.base_url + name, done.kind, done.urls, done.raw,
                                         done.stored, done.news))
        except BaseException:
            # Formats whose entry point was not replaced yet still have their old set: take back their fresh
            # files. A format already swapped keeps its new set (its entry point lists those files).
            fresh = set(written) - set(previous)
            for path, group in moved:
                if path.name in fresh and group not in swapped:
                    with contextlib.suppress(OSError):
                        path.unlink()
            raise
        removed = self._remove_stale(previous, set(written))
        self._write_manifest(sorted(written), generation)
        with contextlib.suppress(OSError):
            self.tmp_dir.rmdir()
        return Published(self.out_dir / entry_point if entry_point else None, tuple(files), tuple(removed))

    @property
    def text_index_name(self) -> str:
        """The index that lists split text sitemaps (``sitemap-txt.xml``, ``.xml.gz`` with gzip)."""
        return f"{self.basename}-txt.xml{'.gz' if self.gzip else ''}"

    def _child_names(self, roller: Roller, suffix: str, generation: int) -> list[str]:
        """Names of a split format's files: every child is listed by an entry point (the index, the text
        sitemaps' index, ``sitemap.html``) and carries the run's generation (``sitemap-<gen>-<n>.xml``), so a new
        set never overwrites a file the old entry point lists."""
        return [f"{self.basename}-{generation}-{i}{suffix}" for i in range(1, len(roller.done) + 1)]

    def _new_generation(self, layout: list[tuple[Roller, str, str]], previous: list[str],
                        previous_generation: int) -> int:
        """The first generation after the previous run's whose child names are all unused in OUT."""
        taken = set(previous)
        generation = previous_generation + 1
        while True:
            names = [name for roller, suffix, _top in layout if len(roller.done) > 1
                     for name in self._child_names(roller, suffix, generation)]
            if not any(name in taken or (self.out_dir / name).exists() for name in names):
                return generation
            generation += 1

    def _write_index(self, done: list[Done], names: list[str], tmp_name: str) -> Done:
        tmp = self.tmp_dir / tmp_name
        out = Out(tmp, self.gzip_level)
        try:
            w = IndexWriter(out, stylesheet=self.stylesheet)
            for d, name in zip(done, names, strict=True):
                w.write(SitemapRef(self.base_url + name, LastMod(d.lastmod)))
            w.close()
        finally:
            out.close()
        return Done(tmp, "index", sum(d.urls for d in done), 0, out.raw, out.stored, utc_now_text())

    def _write_html_pages(self, names: list[str]) -> Done:
        tmp = self.tmp_dir / "html-pages"
        out = Out(tmp, None)
        try:
            w = HtmlWriter(out, title=self.html_title)
            w.write_links(((f"Page {i}", name) for i, name in enumerate(names, 1)), heading="Pages")
            w.close()
        finally:
            out.close()
        return Done(tmp, "html", 0, 0, out.raw, out.stored, utc_now_text())

    def _write_xsl(self) -> Done:
        from importlib import resources  # ~25 ms to import; only --xsl default needs it

        tmp = self.tmp_dir / "xsl"
        data = resources.files("sitemapkit.write").joinpath("xsl", XSL_NAME).read_bytes()
        tmp.write_bytes(data)
        return Done(tmp, "xsl", 0, 0, len(data), len(data), utc_now_text())

    def _remove_stale(self, previous: list[str], written: set[str]) -> list[Path]:
        """Delete the files the previous manifest listed that this run did not write (never anything else)."""
        removed = []
        for name in previous:
            if name in written or "/" in name or name.startswith(".") or name == MANIFEST_NAME:
                continue
            path = self.out_dir / name
            try:
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise PublishError(f"cannot remove stale file {path}: {exc.strerror or exc}") from exc
        return removed

    def _write_manifest(self, names: list[str], generation: int) -> None:
        tmp = self.tmp_dir / "manifest"
        tmp.write_text(json.dumps({"written_by": "sitemapkit", "generation": generation, "files": names},
                                  indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.out_dir / MANIFEST_NAME)


def read_manifest(out_dir: Path) -> list[str]:
    """The file names the last run's manifest lists (none when there is no readable manifest)."""
    return read_manifest_state(out_dir)[0]


def read_manifest_state(out_dir: Path) -> tuple[list[str], int]:
    """The last run's file names and generation (0 when unknown)."""
    try:
        data = json.loads((out_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], 0
    if not isinstance(data, dict):
        return [], 0
    files = data.get("files")
    generation = data.get("generation")
    names = [f for f in files if isinstance(f, str)] if isinstance(files, list) else []
    if isinstance(generation, int) and not isinstance(generation, bool) and 0 <= generation < 10**9:
        return names, generation
    return names, 0
