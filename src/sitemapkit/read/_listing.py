"""What the reader read, written out: one loc per line (text), one JSON object per entry (jsonl, what
``generate`` reads back) or CSV rows, a batch of entries per ``write`` (a ``write`` per URL costs more than
reading it). Locs are escaped so that none can drive a terminal."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import TextIO

from sitemapkit.core import SitemapRef, UrlEntry, entry_to_dict, escape_controls, escape_json_controls

__all__ = ["LIST_FORMATS", "EntryWriter"]

#: The formats :class:`EntryWriter` writes.
LIST_FORMATS = ("text", "jsonl", "csv")
_CSV_COLUMNS = ("loc", "lastmod", "changefreq", "priority", "kind", "source")


class _Pieces:
    """A write-only stream that keeps what is written (csv.writer's sink: rows are joined and written at once)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.write = self.parts.append


class EntryWriter:
    """Writes entries in the chosen format to ``stream``, a batch of entries in one ``write`` (a ``write`` per
    URL cost more than reading it). Lines are built exactly as one at a time would be; :meth:`write_many`
    writes before it returns, so nothing waits in here while the next document is read (or a problem printed)."""

    def __init__(self, fmt: str, stream: TextIO) -> None:
        if fmt not in LIST_FORMATS:
            raise ValueError(f"unknown list format {fmt!r} (choose from {', '.join(LIST_FORMATS)})")
        self.fmt = fmt
        self.stream = stream
        self._pieces = _Pieces()
        self._csv = None
        if fmt == "csv":
            self._csv = csv.writer(self._pieces, lineterminator="\n")
            self._csv.writerow(_CSV_COLUMNS)
            self._drain()

    def _drain(self) -> None:
        parts = self._pieces.parts
        if parts:
            text = "".join(parts)
            parts.clear()
            self.stream.write(text)

    def write(self, item: UrlEntry | SitemapRef, source: str) -> None:
        self._add(item, source)
        self._drain()

    def write_many(self, items: Sequence[UrlEntry], source: str) -> None:
        if self.fmt == "text":
            locs = [item.loc for item in items]
            joined = "".join(locs)
            if escape_controls(joined) == joined:  # no loc needs escaping (the usual case): one join
                self.write_locs(locs)
                return
        for item in items:
            self._add(item, source)
        self._drain()

    def write_locs(self, locs: Sequence[str]) -> None:
        """Text output of locs known to be plain URIs (a :class:`~sitemapkit.read.LocRun`'s: nothing to escape)."""
        if self.fmt != "text":
            raise ValueError("write_locs writes the text format only")
        if locs:
            self.stream.write("\n".join(locs) + "\n")

    def _add(self, item: UrlEntry | SitemapRef, source: str) -> None:
        if self.fmt == "text":
            self._pieces.write(escape_controls(item.loc) + "\n")  # a loc cannot drive the terminal
            return
        if self._csv is not None:
            kind = "url" if isinstance(item, UrlEntry) else "sitemap"
            lastmod = item.lastmod.text if item.lastmod is not None else ""
            if isinstance(item, UrlEntry):
                cf = item.changefreq.value if item.changefreq is not None else ""
                pr = "" if item.priority is None else repr(item.priority)
            else:
                cf = pr = ""
            self._csv.writerow((item.loc, lastmod, cf, pr, kind, source))
            return
        d = entry_to_dict(item)
        d["source"] = source
        self._pieces.write(escape_json_controls(json.dumps(d, ensure_ascii=False)) + "\n")
