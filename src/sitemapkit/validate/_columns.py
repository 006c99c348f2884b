"""Columns for problems: libxml2 records only the line of an element, so after a file is validated, the lines
that carry problems are read once more and each problem's loc is looked up on its line (as written, with ``&``
escaped, or raw), left to right. Streaming: only the needed lines are held, each at most ``MAX_LINE_CHARS``
(longer lines keep column None), and reading stops after the last needed line."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import replace

from sitemapkit.core import Problem
from sitemapkit.validate._context import MAX_LOC_CHARS

__all__ = ["MAX_LINE_CHARS", "add_columns"]

#: Lines longer than this are not searched (their problems keep column None).
MAX_LINE_CHARS = 4 * 1024 * 1024


_QUOTED = re.compile(r"'([^'\s]{4,})'")


def _needles(problem: Problem) -> list[str]:
    """What to look for: a value quoted in the message (an href, a hreflang), then the loc as written."""
    out = [m.group(1) for m in _QUOTED.finditer(problem.message)][:1]
    loc = problem.location.loc
    if loc and len(loc) > MAX_LOC_CHARS:  # a loc cut for the report: look for the part that was kept
        loc = loc[:MAX_LOC_CHARS]
    if loc:
        escaped = loc.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        out.append(escaped)
        if escaped != loc:
            out.append(loc)
    return out


def add_columns(problems: list[Problem], chunks: Iterable[bytes]) -> list[Problem]:
    """Return ``problems`` with columns filled in where the loc is found on the problem's line."""
    needed: dict[int, list[int]] = {}
    for i, p in enumerate(problems):
        loc = p.location
        if loc.line is not None and loc.column is None and (loc.loc or "'" in p.message):
            needed.setdefault(loc.line, []).append(i)
    if not needed:
        return problems
    out = list(problems)
    last = max(needed)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    line_no = 1
    parts: list[str] = []
    size = 0
    too_long = False

    def resolve(number: int, text: str) -> None:
        cursor = 0
        for index in needed[number]:
            p = out[index]
            for needle in _needles(p):
                at = text.find(needle, cursor)
                if at < 0:
                    at = text.find(needle)
                if at >= 0:
                    out[index] = replace(p, location=replace(p.location, column=at + 1))
                    cursor = at + 1
                    break

    def take(piece: str) -> None:
        nonlocal size, too_long
        if line_no in needed and not too_long:
            if size + len(piece) > MAX_LINE_CHARS:
                too_long = True
                parts.clear()
            else:
                parts.append(piece)
                size += len(piece)

    for chunk in chunks:
        text = decoder.decode(chunk)
        start = 0
        while True:
            nl = text.find("\n", start)
            if nl < 0:
                take(text[start:])
                break
            take(text[start:nl])
            if line_no in needed and not too_long:
                resolve(line_no, "".join(parts))
            parts.clear()
            size = 0
            too_long = False
            line_no += 1
            start = nl + 1
            if line_no > last:
                return out
    take(decoder.decode(b"", True))
    if line_no in needed and not too_long:
        resolve(line_no, "".join(parts))
    return out
