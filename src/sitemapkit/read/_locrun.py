"""Runs of plain ``<url>`` blocks read in bulk, for readers that want the locs only (:class:`LocRun`).

A caller that prints locs (``sitemapkit urls``, text output) does not need a :class:`~sitemapkit.core.UrlEntry` per
URL, only the locs and the certainty that every other value is one the entry takes without a problem. The fast lane
(``_lane``) asks :func:`run_at` for the longest run of blocks at its position whose every value is in such a form: a
loc that is a ``SIMPLE_URI`` or a ``SIMPLE_IRI`` written with ``&amp;`` and ``&apos;`` only, a lastmod valid by its
form (or on the 29th to 31st of a month that has the day), a changefreq name, a priority from 0 to 1. That is one
regular expression in C over the whole run, with no Python work per URL. Then :func:`take_run` pulls the locs out
with one more, decodes the references with two replaces (and escapes a raw IRI's characters as UTF-8 %XX), and
checks the length limit and duplicates with the hashes the per-block path remembers (same limit, same rule).

If the run repeats a loc or holds a loc that is too long, nothing was changed and the per-block path reads the
blocks (it finds the same things and reports them with their lines). So a :class:`LocRun` holds exactly the
entries the per-block path would have emitted, with no problem; :meth:`LocRun.entries` builds them when asked
(``tests/read/test_locrun.py`` and ``tests/read/test_fast_lane.py`` read documents both ways).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sitemapkit.core import (
    LASTMOD_COMMON_FORM,
    MAX_LOC_LENGTH,
    SIMPLE_LOC_XML_BYTES,
    Changefreq,
    LastMod,
    UrlEntry,
    canonical_url_entry,
    escape_non_ascii,
    lastmod_of_valid_form,
)
from sitemapkit.read._blocks import BLOCK_X, url_values

__all__ = ["LocRun", "run_at", "take_run"]

_CHANGEFREQS = {m.value: m for m in Changefreq}
_W = r"[ \t\r\n]*+"
_CHANGEFREQ = "|".join(m.value for m in Changefreq)
# Priorities 0 to 1 with at most six decimals: float() reads them exactly as the per-block path does.
_PRIORITY = r"0(?:\.[0-9]{1,6})?+|1(?:\.0{1,6})?+"


@functools.cache
def _run_pattern() -> re.Pattern[str]:
    # A run of plain blocks whose every value is in a form the per-block path accepts without a word: a loc that
    # is a SIMPLE_URI (or a SIMPLE_IRI, its UTF-8 bytes read as latin-1) written with "&amp;" and "&apos;" only, a
    # lastmod valid by its form or a 29th to 31st of a month that has it, a changefreq name, a plain priority.
    return re.compile(
        rf"(?:<url>{_W}<loc>(?:{SIMPLE_LOC_XML_BYTES.pattern})</loc>{_W}"
        rf"(?:<lastmod>(?:{LASTMOD_COMMON_FORM.pattern})</lastmod>{_W})?+"
        rf"(?:<changefreq>(?:{_CHANGEFREQ})</changefreq>{_W})?+(?:<priority>(?:{_PRIORITY})</priority>{_W})?+"
        rf"</url>{_W})*+", re.ASCII)


def run_at(text: str, pos: int) -> int:
    """Where the longest run of plain blocks at ``pos`` ends (``pos`` when there is none). The pattern is compiled
    on first use (a command that never reads in bulk does not pay for it)."""
    m = _run_pattern().match(text, pos)
    return pos if m is None else m.end()


_SPACE = re.compile(r"\s").search
_LOCS = re.compile(r"<loc>([^<]*+)</loc>").findall


@dataclass(frozen=True, slots=True)
class LocRun:
    """Consecutive URL entries of one document, read in bulk: ``locs`` in document order (each a canonical loc,
    every other value of its entry checked), ``text`` the blocks as read (latin-1 text of their bytes). Only
    :class:`~sitemapkit.read.SitemapParser` readers that ask for them (``loc_runs=True``) get these events."""

    locs: Sequence[str]
    text: str

    def entries(self) -> list[UrlEntry]:
        """The entries, as the per-block path builds them."""
        out: list[UrlEntry] = []
        for raw, lm, cf, pr, _run in BLOCK_X.findall(self.text):
            raw, lm, cf, pr = url_values(raw, lm or None, cf or None, pr or None)
            lastmod = None if lm is None else (lastmod_of_valid_form(lm) or LastMod(lm))
            loc = raw if raw.isascii() else escape_non_ascii(raw)
            out.append(canonical_url_entry(loc, lastmod, _CHANGEFREQS[cf] if cf else None, float(pr) if pr else None))
        return out


def take_run(text: str, seen: set[int], tracking_limit: int) -> LocRun | None:
    """A :class:`LocRun` of ``text`` (a run of blocks :func:`run_at` found) when no loc in it is too long or
    repeats one (the hashes are then added to ``seen``, as the per-block path does); otherwise None, with
    ``seen`` untouched."""
    joined = "<".join(_LOCS(text))
    if "&" in joined:  # "&amp;" and "&apos;" (the pattern lets no other reference through), "&amp;" last
        joined = joined.replace("&apos;", "'").replace("&amp;", "&")
    if not joined.isascii():
        # Raw IRIs: escaped as UrlEntry would (simple_iri_to_uri), which leaves an empty query or fragment to the
        # general path, as it does any non-character XML forbids.
        joined = joined.encode("latin-1").decode("utf-8")
        if "?#" in joined or "?<" in joined or "#<" in joined or joined.endswith(("?", "#")) or \
                "\ufffe" in joined or "\uffff" in joined or _SPACE(joined) is not None:
            return None  # (Unicode whitespace: stripped, or reported as whitespace inside a loc)
        joined = escape_non_ascii(joined)
    locs = joined.split("<")
    if max(map(len, locs)) > MAX_LOC_LENGTH:
        return None
    hashes = list(map(hash, locs))
    before = len(seen)
    if not seen.isdisjoint(hashes):
        return None
    if before < tracking_limit:
        if before + len(hashes) > tracking_limit:
            return None
        seen.update(hashes)
        if len(seen) != before + len(hashes):  # a loc repeated inside the run: none of these was seen before
            seen.difference_update(hashes)
            return None
    return LocRun(locs, text)
