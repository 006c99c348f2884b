"""A block of URL-list lines checked at once: are they all canonical locs (``is_canonical_loc``), on one origin?

A URL list is nearly always one site's URLs, one per line, already URIs. Checking each line with the model's
``SIMPLE_URI`` regular expression costs ~0.4 us a line (the regex engine walks every character in Python's ``re``);
here the same question is answered for a whole block by C-level string operations, ~20x cheaper:

- the first line is checked with ``SIMPLE_URI`` itself, and gives the block's prefix ``P``: its origin
  (``scheme://host[:port]``) and the ``/``, ``?`` or ``#`` that ends it;
- every other line starts with ``P`` (the lines joined by ``"\\n"`` hold ``"\\n" + P`` once per line after the
  first: a line holds no ``"\\n"``);
- every character after that is one ``SIMPLE_URI`` allows in a path, query or fragment (ASCII, deleted by one
  ``bytes.translate``), and every ``%`` starts a ``%XX`` escape;
- no line is longer than ``MAX_LOC_LENGTH``.

Together that is exactly ``SIMPLE_URI.fullmatch`` of each line (its origin part is ``P``'s, the rest is runs of
path characters and escapes) plus the length limit: the lines ``canonical_loc_entry`` accepts. A block that fails
any test is read line by line as before (blank lines, comments, whitespace, another host, IRIs, long lines), so
this only decides how fast a line is checked, never what is accepted (``tests/write/test_locblock.py`` compares
both on every kind of line).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sitemapkit.core import MAX_LOC_LENGTH, SIMPLE_URI, ExactSeen, UrlEntry, canonical_loc_entry

__all__ = ["canonical_block", "canonical_entry", "fresh_locs", "origin_prefix"]

# What SIMPLE_URI allows after the origin: its path run class, "%" (escapes checked apart) and the line separator.
_AFTER_ORIGIN = (b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                 b"-._~!$&'()*+,;=:@/?#%\n")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})").search
_simple_uri = SIMPLE_URI.fullmatch


def origin_prefix(loc: str) -> str | None:
    """``scheme://host[:port]`` and the ``/``, ``?`` or ``#`` after it, for a canonical ``loc`` that has a path,
    query or fragment; None for anything else."""
    if len(loc) > MAX_LOC_LENGTH or _simple_uri(loc) is None:
        return None
    start = loc.find("://") + 3
    for i in range(start, len(loc)):
        if loc[i] in "/?#":
            return loc[: i + 1]
    return None


def canonical_block(lines: list[str]) -> bool:
    """True when every line of ``lines`` (no line ends) is a canonical loc (``is_canonical_loc``: what
    ``canonical_loc_entry`` builds an entry of) and all are on the first line's origin; False otherwise, and
    the caller checks line by line."""
    if not lines:
        return False
    prefix = origin_prefix(lines[0])
    if prefix is None:
        return False
    joined = "\n".join(lines)
    if joined.count("\n" + prefix) != len(lines) - 1 or not joined.isascii():
        return False
    if joined.encode("ascii").translate(None, _AFTER_ORIGIN):
        return False  # a character no loc holds unescaped (space, quote, <, a control character, ...)
    if "%" in joined and _STRAY_PERCENT(joined) is not None:
        return False
    return max(map(len, lines)) <= MAX_LOC_LENGTH


def canonical_entry(loc: str) -> UrlEntry:
    """``UrlEntry(loc)`` of a loc known canonical (one of a block :func:`canonical_block` accepted)."""
    entry = canonical_loc_entry(loc)
    assert entry is not None, loc
    return entry


def fresh_locs(locs: list[str], seen: ExactSeen, scope: str | None,
               duplicate: Callable[[str], None]) -> list[str] | None:
    """The locs of a canonical block whose keys are not in ``seen`` (the same 64-bit ``hash`` keys as
    ``SitemapSetWriter.add``), in order, their keys now in ``seen``; ``duplicate(loc)`` for each other. None,
    with ``seen`` untouched, when a loc is outside ``scope`` (one at a time, its warning comes first)."""
    if scope is not None and not (locs[0].startswith(scope)
                                  and "\n".join(locs).count("\n" + scope) == len(locs) - 1):
        return None
    fresh: list[str] = []
    for loc in locs:
        key = hash(loc)
        if key in seen:
            duplicate(loc)
        else:
            seen.add(key)
            fresh.append(loc)
    return fresh
