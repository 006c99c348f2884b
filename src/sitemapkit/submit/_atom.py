"""The changes of a diff as an Atom 1.0 feed (RFC 4287): a delta feed that feed readers and WebSub hubs consume.

One ``<entry>`` per change: its ``<link rel="alternate">`` is the URL that changed (what sitemapkit's own reader,
and any feed reader, takes as the entry's URL), ``<category term="added|removed|changed">`` says what happened,
``<summary>`` names the changed fields, and ``<updated>`` is the time of the diff. Entry ids are ``urn:uuid:``
values derived from the change, the URL and that time, so they are stable for one run and never reused by the
next. The feed carries its ``rel="self"`` link (``feed_url``) and, when given, its WebSub ``rel="hub"`` links.
Written as a stream: memory does not grow with the number of changes.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import IO
from xml.sax.saxutils import escape, quoteattr

from sitemapkit.submit._diff import Change, DiffCounts

__all__ = ["ATOM_NS", "write_atom"]

ATOM_NS = "http://www.w3.org/2005/Atom"
_FEED_NS = uuid.UUID("8c5d0e52-3f7e-5b8e-9a43-6f1d2a0c9b11")


def _clean(text: str) -> str:
    """Characters XML 1.0 cannot hold (C0 controls other than tab and line ends) are dropped."""
    return "".join(c for c in text if c >= " " or c in "\t\n\r") if any(c < " " for c in text) else text


def _attr(text: str) -> str:
    return quoteattr(_clean(text))


def _stamp(when: datetime) -> str:
    return when.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_atom(
    out: IO[str],
    changes: Iterable[Change],
    *,
    counts: DiffCounts | None = None,
    feed_url: str | None = None,
    hubs: Sequence[str] = (),
    title: str = "Sitemap changes",
    now: datetime | None = None,
) -> int:
    """Write the feed to ``out``; returns the number of entries written. ``feed_url`` is the feed's own URL
    (its ``rel="self"`` link and, when given, its id); ``hubs`` are WebSub hub URLs to announce."""
    when = _stamp(now or datetime.now(UTC))
    feed_id = feed_url or f"urn:uuid:{uuid.uuid5(_FEED_NS, 'feed ' + when)}"
    out.write('<?xml version="1.0" encoding="utf-8"?>\n')
    out.write(f'<feed xmlns="{ATOM_NS}">\n')
    out.write(f"  <title>{escape(_clean(title))}</title>\n")
    if counts is not None:
        out.write(f"  <subtitle>{counts.added} added, {counts.removed} removed, {counts.changed} changed, "
                  f"{counts.unchanged} unchanged</subtitle>\n")
    out.write(f"  <id>{escape(_clean(feed_id))}</id>\n")
    out.write(f"  <updated>{when}</updated>\n")
    if feed_url:
        out.write(f'  <link rel="self" type="application/atom+xml" href={_attr(feed_url)}/>\n')
    for hub in hubs:
        out.write(f"  <link rel=\"hub\" href={_attr(hub)}/>\n")
    out.write("  <author><name>sitemapkit</name></author>\n")
    out.write('  <generator uri="https://pypi.org/project/sitemapkit/">sitemapkit</generator>\n')
    n = 0
    for change in changes:
        n += 1
        entry_id = uuid.uuid5(_FEED_NS, f"{change.change} {change.loc} {when}")
        summary = change.change if not change.fields else f"changed: {', '.join(change.fields)}"
        out.write("  <entry>\n")
        out.write(f"    <id>urn:uuid:{entry_id}</id>\n")
        out.write(f"    <title>{change.change}: {escape(_clean(change.loc))}</title>\n")
        out.write(f"    <link rel=\"alternate\" href={_attr(change.loc)}/>\n")
        out.write(f"    <updated>{when}</updated>\n")
        out.write(f"    <category term=\"{change.change}\"/>\n")
        for name in change.fields:
            out.write(f"    <category term=\"field:{name}\"/>\n")
        out.write(f"    <summary>{escape(summary)}</summary>\n")
        out.write("  </entry>\n")
    out.write("</feed>\n")
    return n
