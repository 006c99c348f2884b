"""A diff's changes written as text (``+ loc``, ``- loc``, ``~ loc  (fields)``), JSON, CSV or an Atom feed.

Streamed in batches: one ``write()`` per line costs more than the line itself on long diffs, and memory does not
grow with the number of changes."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import IO

from sitemapkit.core import escape_controls, escape_json_controls
from sitemapkit.submit._atom import write_atom
from sitemapkit.submit._diff import SourceDiff

__all__ = ["DIFF_FORMATS", "write_diff"]

#: The formats :func:`write_diff` writes.
DIFF_FORMATS = ("text", "json", "csv", "atom")
_MARK = {"added": "+", "removed": "-", "changed": "~"}
_BATCH = 4096


def _batched(out: IO[str], lines: Iterable[str]) -> None:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= _BATCH:
            out.write("".join(batch))
            batch.clear()
    if batch:
        out.write("".join(batch))


def _text_lines(result: SourceDiff) -> Iterator[str]:
    for change in result:
        line = f"{_MARK[change.change]} {escape_controls(change.loc)}"
        if change.fields:
            line += f"  ({', '.join(change.fields)})"
        yield line + "\n"


def _json_items(result: SourceDiff) -> Iterator[str]:
    for i, change in enumerate(result):
        yield ("," if i else "") + "\n  " + escape_json_controls(json.dumps(change.to_dict(), ensure_ascii=False))


def _csv_chunks(result: SourceDiff) -> Iterator[str]:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(("loc", "change", "fields"))
    for change in result:
        writer.writerow((change.loc, change.change, " ".join(change.fields)))
        if buf.tell() >= 65536:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    yield buf.getvalue()


def write_diff(result: SourceDiff, out: IO[str], fmt: str = "text", *, feed_url: str | None = None,
               hubs: Sequence[str] = ()) -> None:
    """Write the changes of ``result`` to ``out`` as ``fmt`` (one of :data:`DIFF_FORMATS`). ``feed_url`` and
    ``hubs`` are the Atom feed's own URL and its WebSub hubs."""
    if fmt not in DIFF_FORMATS:
        raise ValueError(f"unknown diff format {fmt!r} (choose from {', '.join(DIFF_FORMATS)})")
    if fmt == "atom":
        write_atom(out, result, counts=result.counts, feed_url=feed_url, hubs=hubs)
    elif fmt == "json":
        head = json.dumps(result.counts.to_dict())[:-1]
        out.write(head + ', "changes": [')
        _batched(out, _json_items(result))
        out.write("\n]}\n" if result.counts.differ else "]}\n")
    elif fmt == "csv":
        for chunk in _csv_chunks(result):
            out.write(chunk)
    else:
        _batched(out, _text_lines(result))
