"""The URLs of one source, written as ``sitemapkit urls`` lists them: every entry of a file, a folder's sitemaps,
standard input, a sitemap URL (an index walked down to its sitemaps) or a site URL (its sitemaps discovered), in
document order, with an index's child sitemaps as read; each loc once over all sources when ``seen`` is given.

:func:`list_source` streams the events of :func:`~sitemapkit.fetch.open_sources` into an
:class:`~sitemapkit.read.EntryWriter` (text, JSONL or CSV) and hands every problem to ``on_problem``: the problems
of the documents, a document that cannot be parsed further (its :class:`~sitemapkit.ParseError`'s problem) and a
document over the byte budget (SM112, naming the source). A source that cannot be read at all raises
:class:`OSError`, as :func:`~sitemapkit.fetch.open_sources` does."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitemapkit.core import (
    InputError,
    LimitExceededError,
    Location,
    ParseError,
    Problem,
    SeenSet,
    Severity,
    SitemapRef,
    UrlEntry,
    bare_host_url,
    is_url_source,
    plural,
)
from sitemapkit.fetch._items import EntryBatch, SitemapNode
from sitemapkit.fetch._sources import FetchSettings, local_set, open_sources
from sitemapkit.read import EntryWriter, Located, LocRun

if TYPE_CHECKING:
    from sitemapkit.fetch._discover import Discovery

__all__ = ["ListingCounts", "list_source", "resolve_sources"]


@dataclass(slots=True)
class ListingCounts:
    """What has been listed so far (for a progress line: read it from another thread, it only grows)."""

    sitemaps: int = 0
    urls: int = 0

    def node(self, item: Discovery | SitemapNode) -> None:
        if isinstance(item, SitemapNode):
            self.sitemaps += 1

    def describe(self) -> str:
        """A progress line: ``reading sitemaps: 3 sitemaps, 1,200 URLs``."""
        if not self.sitemaps:
            return f"reading sitemaps: {plural(self.urls, 'URL')}"
        return f"reading sitemaps: {plural(self.sitemaps, 'sitemap')}, {plural(self.urls, 'URL')}"


def resolve_sources(sources: Sequence[str], *, on_note: Callable[[str], None] | None = None,
                    connect_timeout: float = 10.0) -> tuple[str, ...]:
    """SOURCE arguments as :func:`list_source` reads them: ``-`` and existing paths as given, a bare host
    (``example.com``, ``127.0.0.1:8000/shop``) as the URL its site answers on, https first and http when https
    does not connect (``on_note`` is told which was used). Raises :class:`~sitemapkit.InputError` for a folder
    that holds no sitemap file (``validate`` and ``diff`` refuse it too)."""
    resolved = []
    for source in sources:
        if source == "-" or os.path.exists(source) or bare_host_url(source) is None:
            resolved.append(source)
            continue
        from sitemapkit.fetch._scheme import resolve_site_url  # the HTTP stack only for a bare host

        chosen = resolve_site_url(source, connect_timeout=connect_timeout)
        if on_note is not None and chosen.note:
            on_note(chosen.note)
        resolved.append(chosen.url)
    for source in resolved:
        if source != "-" and os.path.isdir(source):
            try:
                local_set(source)
            except FileNotFoundError as exc:
                raise InputError(f"{source}: {exc.strerror}") from None
    return tuple(resolved)


def _first_seen(entries: Sequence[UrlEntry], seen: SeenSet) -> list[UrlEntry]:
    """The entries whose loc is not in ``seen`` yet (the first of equal locs), adding their locs to it."""
    add = seen.add
    return [entry for entry in entries if not add(entry.loc)]


def _write_new_locs(out: EntryWriter, locs: Sequence[str], seen: SeenSet | None) -> None:
    """Text output of plain locs read in bulk, those already in ``seen`` left out (and the new ones added)."""
    if seen is not None:
        add = seen.add
        locs = [loc for loc in locs if not add(loc)]
    out.write_locs(locs)


def list_source(source: str, out: EntryWriter, *, on_problem: Callable[[Problem], None], follow: bool = True,
                strict: bool = False, settings: FetchSettings | None = None, seen: SeenSet | None = None,
                followed_refs: bool = True, counts: ListingCounts | None = None) -> bool:
    """Write the entries of ``source`` (``-``: standard input) to ``out``; True when an error was found (every
    readable entry is still written). ``follow``: walk URL indexes, read a local index's sitemaps from its folder.
    ``seen``: skip locs already in it (and add the new ones). ``followed_refs``: also write the child sitemaps of
    indexes that were followed (``urls --format text`` lists pages only). ``on_problem`` gets each problem once the
    lines before it are handed to ``out``; ``counts`` is kept up to date."""
    counts = counts if counts is not None else ListingCounts()
    name = "<stdin>" if source == "-" else source
    is_url = is_url_source(source)
    walked = is_url and follow
    failed = False
    try:
        # A text listing needs the locs only: runs of plain entries are read in bulk (read.LocRun).
        for event in open_sources([source], follow=follow, settings=settings, strict=strict, on_item=counts.node,
                                  batches=True, file_batches=True, loc_runs=out.fmt == "text"):
            if isinstance(event, LocRun):
                counts.urls += len(event.locs)
                _write_new_locs(out, event.locs, seen)
                continue
            if isinstance(event, EntryBatch):
                if event.locs:  # a fetched sitemap's plain entries, by their locs (text only)
                    counts.urls += len(event.locs)
                    _write_new_locs(out, event.locs, seen)
                counts.urls += len(event.entries)
                entries = _first_seen(event.entries, seen) if seen is not None else event.entries
                # a file's runs are named by the file ("<stdin>" for -), as single events
                doc = event.sitemap if is_url or event.sitemap != "-" else name
                out.write_many(entries, doc)
                # an index's children, as read (those in batches were followed: a URL index walked, a local
                # index's sitemaps found in its folder)
                if event.refs and not (follow and not followed_refs):
                    for ref in event.refs:
                        if seen is not None and seen.add(ref.loc):
                            continue
                        out.write(ref, name if is_url else doc)
                for problem in event.problems:
                    failed = failed or problem.severity is Severity.ERROR
                    on_problem(problem)
                continue
            if isinstance(event, SitemapRef) and walked and not followed_refs:
                continue  # the index was followed: the pages only
            if isinstance(event, Problem):
                failed = failed or event.severity is Severity.ERROR
                on_problem(event)
                continue
            item = event.item if isinstance(event, Located) else event
            if not isinstance(item, (UrlEntry, SitemapRef)):
                continue  # a document's end (DocumentDone) or a site's Discovery: not output
            if seen is not None and seen.add(item.loc):
                continue
            out.write(item, name)
    except ParseError as exc:
        on_problem(exc.problem)
        return True
    except LimitExceededError as exc:
        message = str(exc).removeprefix(f"{exc.source}: ") if exc.source else str(exc)
        on_problem(Problem("SM112", Severity.ERROR, message, Location(name)))
        return True
    return failed
