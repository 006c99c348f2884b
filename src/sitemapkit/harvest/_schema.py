"""The Parquet form of harvested entries and host summaries.

The URL columns are derived from the entry model itself (:class:`~sitemapkit.UrlEntry` and its extension
dataclasses), so nothing an entry holds is dropped: ``images``, ``videos`` and ``alternates`` are lists of
structs, ``news`` a struct, tuples of text are lists of strings, dates their W3C text (as written), enums their
values. ``lastmod_utc`` adds the lastmod as a UTC timestamp (a lastmod without an offset is taken as UTC);
``sitemap`` is the sitemap the entry came from and ``host`` the partition key.

A row is the entry's JSON form (``entry_to_dict``) plus those columns, and :func:`entry_from_row` turns it back
into the same :class:`~sitemapkit.UrlEntry`. pyarrow is imported when a schema is first asked for.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sitemapkit.core import LastMod, UrlEntry, entry_from_dict, entry_to_dict

if TYPE_CHECKING:
    import pyarrow as pa  # type: ignore[import-untyped]

__all__ = ["EXTRA_COLUMNS", "entry_from_row", "entry_row", "host_schema", "url_schema"]

#: Columns a harvested row has besides the entry's own fields.
EXTRA_COLUMNS = ("lastmod_utc", "sitemap", "host")


def _arrow_type(tp: Any) -> pa.DataType:
    import pyarrow as pa

    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _arrow_type(args[0])
    if origin is tuple:
        return pa.list_(_arrow_type(typing.get_args(tp)[0]))
    if tp is bool:
        return pa.bool_()
    if tp is int:
        return pa.int64()
    if tp is float:
        return pa.float64()
    if tp is str or tp is LastMod or (isinstance(tp, type) and issubclass(tp, enum.Enum)):
        return pa.string()
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return pa.struct([pa.field(f.name, _arrow_type(hints[f.name])) for f in dataclasses.fields(tp)])
    raise TypeError(f"no Arrow type for {tp!r}")  # a new field type in the model: map it here


@functools.cache
def url_schema() -> pa.Schema:
    """One row per URL: every field of :class:`~sitemapkit.UrlEntry`, then ``lastmod_utc``, ``sitemap``, ``host``."""
    import pyarrow as pa

    hints = typing.get_type_hints(UrlEntry)
    fields = [pa.field(f.name, _arrow_type(hints[f.name]), nullable=f.name != "loc")
              for f in dataclasses.fields(UrlEntry)]
    fields += [pa.field("lastmod_utc", pa.timestamp("us", tz="UTC")), pa.field("sitemap", pa.string()),
               pa.field("host", pa.string(), nullable=False)]
    return pa.schema(fields)


@functools.cache
def host_schema() -> pa.Schema:
    """One row per host (``hosts.parquet``)."""
    import pyarrow as pa

    sitemap = pa.struct([("url", pa.string()), ("found_via", pa.string()), ("status", pa.int32()),
                         ("kind", pa.string()), ("urls", pa.int64()), ("bytes", pa.int64()),
                         ("not_modified", pa.bool_())])
    problem = pa.struct([("code", pa.string()), ("severity", pa.string()), ("message", pa.string()),
                         ("url", pa.string())])
    return pa.schema([
        ("host", pa.string()), ("seeds", pa.list_(pa.string())), ("status", pa.string()),
        ("robots_status", pa.int32()), ("sitemaps_found", pa.int64()), ("sitemaps", pa.list_(sitemap)),
        ("urls", pa.int64()), ("bytes", pa.int64()), ("wire_bytes", pa.int64()), ("not_modified", pa.int64()),
        ("errors", pa.int64()), ("warnings", pa.int64()), ("problems", pa.list_(problem)),
        ("elapsed", pa.float64()), ("finished_at", pa.timestamp("us", tz="UTC")), ("worker", pa.string()),
        ("resumed", pa.bool_()),
    ])


def _utc(lastmod: LastMod | None) -> datetime | None:
    if lastmod is None:
        return None
    try:
        value = lastmod.to_datetime()
    except (ValueError, OverflowError):
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def entry_row(entry: UrlEntry, sitemap: str, host: str) -> dict[str, Any]:
    """The Parquet row of ``entry`` (read from ``sitemap`` on ``host``)."""
    row = entry_to_dict(entry)
    del row["kind"]
    row["lastmod_utc"] = _utc(entry.lastmod)
    row["sitemap"] = sitemap
    row["host"] = host
    return row


def entry_from_row(row: dict[str, Any]) -> UrlEntry:
    """The entry a row holds (the extra columns, and any column the model does not know, are ignored)."""
    known = {f.name for f in dataclasses.fields(UrlEntry)}
    entry = entry_from_dict({k: v for k, v in row.items() if k in known})
    assert isinstance(entry, UrlEntry)
    return entry
