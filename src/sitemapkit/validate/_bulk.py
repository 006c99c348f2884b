"""The validator lane's blocks checked many at a time, when none of them has anything to report.

A shop's sitemap is thousands of blocks of one shape: a plain URL on the site's host, a date, the same hreflang
languages in the same order, an image. The lane (``_lane``) checks a block in some fifty Python steps. Here a run
of blocks is checked as columns instead: each kind of value joined by line feeds (no value holds one: the blocks
are on one line each) and checked by one call in C where the lane makes one call per value: one regular
expression for every URL (``FAST_URLS``), the hosts found by one search, the mojibake hint searched once, each
distinct date, change frequency, priority and language checked once, the locs' hashes added to the duplicate set
as one set, the hreflang links handed to the store as rows.

What this module proves is narrow on purpose: that the lane, block by block, would report nothing for any block
of the run, and would record exactly what :func:`check_blocks` records (entries, lastmod tracking, the duplicate
set, pages and links for the reciprocity check, in the same order with the same lines). Anything else, from a bad
date to a page that does not list itself, a document spanning lines or a run that would fill the hreflang
store's memory, returns None with nothing changed, and the lane checks those blocks one by one as before, so
every report is what the lane alone gives. ``tests/validate/test_fast_lane.py`` compares reports with this on and
off, with the lane on and off.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Iterator, Sequence

from sitemapkit.read import MAX_LANE_TAGS, RunSplitter, xml_value
from sitemapkit.validate._checks import FAST_URLS, check_changefreq, check_priority
from sitemapkit.validate._google import _GOOD_HREFLANG
from sitemapkit.validate._proof import XsdProof
from sitemapkit.validate._strategy import LaneHost

__all__ = ["ENABLED", "check_blocks"]

#: Whether the lane checks runs of blocks here first (tests compare reports with it off).
ENABLED = True

_repeat = itertools.repeat


def _joined(values: Sequence[str]) -> str | None:
    """``values`` joined by line feeds and decoded as XML decodes each (``xml_value``), or None when a value
    cannot be decoded so (a character reference, which could stand for a line feed; not XML characters)."""
    joined = "\n".join(values)
    if "&" in joined:
        if joined.isascii() and joined.count("&") == joined.count("&amp;"):
            return joined.replace("&amp;", "&")  # a shop's queries: what xml_value gives, in one pass
        if "&#" in joined:
            return None
    elif joined.isascii():
        return joined
    try:
        return xml_value(joined)
    except ValueError:
        return None


def _extensions(items: RunSplitter, runs: Sequence[str], locs: list[str], google: bool,
                plain_urls: Callable[[Sequence[str], str], bool],
                ) -> tuple[bool, set[str], list[tuple[str, list[str]]]] | None:
    """The image locs and hreflang links of the blocks' runs: whether every image loc and href matched FAST_URL,
    the languages, and (Google's rules) the links as columns ``(hreflang, hrefs)``, one per position, when every
    page lists the same languages in the same order, itself among them. None when the lane may report something
    (Google's rules) or a value cannot be decoded."""
    urls_ok = True
    languages: set[str] = set()
    columns: list[tuple[str, list[str]]] = []
    images, links = items.split("\n".join(runs))
    if images:
        images_text = _joined(images)
        if images_text is None or images_text.count("\n") != len(images) - 1:
            return None  # (an image loc holding a line feed: the lane reports it)
        if google:
            if not plain_urls(images_text.split("\n"), images_text):
                return None  # the lane reports, or looks closer
        elif FAST_URLS(images_text) is None:
            urls_ok = False  # (the sitemaps profile: only the proof looks at them)
    if not links:
        return urls_ok, languages, columns
    langs_raw, hrefs_raw = zip(*links, strict=True)
    langs_text, hrefs_text = _joined(langs_raw), _joined(hrefs_raw)
    if langs_text is None or hrefs_text is None:
        return None
    langs = langs_text.split("\n")
    languages = set(langs)
    if FAST_URLS(hrefs_text) is None:
        if google:
            return None
        urls_ok = False
    if google:
        n = len(runs)
        counts = items.link_counts(runs)
        k = counts[0]
        if counts.count(k) != n:
            return None  # pages with different numbers of links: the lane takes them
        hrefs = hrefs_text.split("\n")
        keys = set()
        for j in range(k):
            column = langs[j::k]
            hreflang = column[0]
            key = _GOOD_HREFLANG.get(hreflang)  # known valid (the lane has checked it once)
            if key is None or key in keys or column.count(hreflang) != n:
                return None
            keys.add(key)
            columns.append((hreflang, hrefs[j::k]))
        # every page lists itself
        listed: Iterator[bool] = map(operator.eq, locs, columns[0][1])
        for _, targets in columns[1:]:
            listed = map(operator.or_, listed, map(operator.eq, locs, targets))
        if not all(listed):
            return None
    return urls_ok, languages, columns


def check_blocks(xp: LaneHost, items: RunSplitter | None, proof: XsdProof | None, text: str,
                 blocks: list[re.Match[str]], line: int, at: int) -> tuple[int, bool] | None:
    """Check ``blocks`` (contiguous lane matches in ``text``; the line at position ``at`` before them is
    ``line``) as the lane would one by one, when none has anything to report: record them and return the line of
    the last block and whether ``proof`` shows the schema accepts them all. None when some block may have
    something to report (nothing recorded then)."""
    n = len(blocks)
    starts = [m.start() for m in blocks]
    ends = [m.end(5) for m in blocks]  # where each block's "</url>" starts
    # Flat blocks, each on one line up to its "</url>", are the common case: every line feed of the run then lies
    # between one block's "</url>" and the next "<url>", and each block's line is the first one's plus those.
    # Other blocks (pretty-printed) get their lines counted, and their values must hold no line feed (the values
    # of a kind are joined by line feeds and split again).
    gaps = list(map(text.count, _repeat("\n"), ends, starts[1:]))
    first = line + text.count("\n", at, starts[0])
    flat = text.count("\n", starts[0], ends[-1]) == sum(gaps)
    if flat:
        lines = list(itertools.accumulate(gaps, initial=first))
    else:
        lines = list(itertools.accumulate(map(text.count, _repeat("\n"), starts, starts[1:]), initial=first))
    raws, lms, cfs, prs, runs = zip(*[m.groups() for m in blocks], strict=True)
    locs_text = _joined(raws)
    if locs_text is None:
        return None
    locs = locs_text.split("\n")
    if len(locs) != n:
        return None  # a loc holding a line feed: the lane reports it

    # lastmod, changefreq, priority: each distinct value once
    ctx = xp.ctx
    lastmods = [v for v in lms if v is not None]
    dates: dict[str, str] = {}  # lastmod as written -> decoded
    texts: list[str] = []
    if lastmods:
        distinct = set(lastmods)
        if "&" in "".join(distinct) or not all(map(str.isascii, distinct)):
            for raw in distinct:
                value = _joined([raw])
                if value is None:
                    return None
                dates[raw] = value
        else:  # (dates as written: nothing to decode)
            dates = dict(zip(distinct, distinct, strict=True))
        clean = ctx.clean_lastmods(set(dates.values()))
        if clean is None:
            return None
        texts = clean
    words: list[set[str]] = []  # the distinct changefreqs, then priorities
    for values, check in ((cfs, check_changefreq), (prs, check_priority)):
        distinct = set()
        for raw in set(values):
            if raw is not None:
                value = _joined([raw])
                if value is None or check(value):
                    return None
                distinct.add(value)
        words.append(distinct)

    # the extension runs: images, then hreflang links in columns (the same languages in the same order)
    google = xp.google
    store = xp.store if google else None
    urls_ok = True  # every image loc and href matched FAST_URL (the proof needs that)
    languages: set[str] = set()
    columns: list[tuple[str, list[str]]] = []
    if items is not None and any(runs):
        if max(map(str.count, runs, _repeat("<"))) > MAX_LANE_TAGS:
            return None  # maybe more images or alternates than their caps: lxml reads that block
        if not flat and any("&" in run or not run.isascii() for run in runs):
            return None  # the lane leaves such a block to lxml
        if google or proof is not None:
            checked = _extensions(items, runs, locs, google, ctx.plain_urls)
            if checked is None:
                return None
            urls_ok, languages, columns = checked
    if store is not None and not store.fits(n, n * len(columns)):
        return None  # the store would spill in between: the lane adds them as it goes
    if columns and not flat:
        # a link's line is the line of its start tag's end (lxml's), each page's k links in order
        assert items is not None
        link_ends = items.link_ends(text, starts[0], ends[-1])
        if len(link_ends) != n * len(columns):
            return None  # (a comment between blocks holding a link's text)
        link_lines = list(itertools.accumulate(map(text.count, _repeat("\n"), [starts[0], *link_ends], link_ends),
                                               initial=first))[1:]

    # the locs last: their duplicate check records them when it passes (on the line of the first one's text)
    if not ctx.clean_locs(locs, locs_text, first if flat else first + text.count("\n", starts[0], blocks[0].start(1))):
        return None
    if lastmods:
        ctx.note_lastmods(dates[lastmods[0]], texts, len(lastmods))
    if store is not None:
        store.add_pages(locs)
        if columns:
            # a page's links to other pages, in the order written
            k = len(columns)
            rows = [zip(locs, targets, _repeat(hreflang), lines if flat else link_lines[j::k],
                        strict=False)  # (n rows: repeat is endless)
                    for j, (hreflang, targets) in enumerate(columns)]
            other = [map(operator.ne, targets, locs) for _, targets in columns]
            chain = itertools.chain.from_iterable
            store.add_link_rows(itertools.compress(chain(zip(*rows, strict=True)), chain(zip(*other, strict=True))),
                                ctx.source)
    proven = (flat and proof is not None and urls_ok  # (the lane validates a batch with a block on many lines)
              and proof.blocks(min(map(len, locs)), set(dates.values()), words[0], words[1], languages))
    return lines[-1], proven
