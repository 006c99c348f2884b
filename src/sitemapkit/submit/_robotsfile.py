"""Adding ``Sitemap:`` lines to a robots.txt file, leaving everything else as it was.

The file's bytes are kept: every group, comment, blank line, byte order mark and line ending. New lines go at the
end, after a blank line (so they never read as part of the last user-agent group), with the file's own line
ending (CRLF stays CRLF); when the file already ends with Sitemap lines they are appended right below them. A URL
already listed is not added again: URLs are compared as URLs (scheme and host case, default port, percent-escape
case and escaped unreserved characters do not matter), relative lines resolved against the site of the URL
being added. The file is replaced atomically; a missing file is created.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from sitemapkit.core import (
    InputError,
    InvalidValueError,
    atomic_write_bytes,
    iri_to_uri,
    redact_credentials,
    url_argument_problem,
)
from sitemapkit.fetch import RobotsTxt, decode_robots, robots_url_for

__all__ = ["RobotsEdit", "add_sitemaps", "add_sitemaps_to_text", "same_url_key"]

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_LINE_END = re.compile(rb"\r\n|\r|\n")
_SITEMAP_LINE = re.compile(rb"^\s*sitemap\s*:", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RobotsEdit:
    """What :func:`add_sitemaps` did: the URLs ``added`` and those ``present`` already (as given), whether the
    file was ``created`` and whether it was ``written`` at all."""

    path: str
    added: tuple[str, ...]
    present: tuple[str, ...]
    created: bool
    written: bool


def _escape(m: re.Match[str]) -> str:
    char = chr(int(m.group(1), 16))
    return char if char in _UNRESERVED else "%" + m.group(1).upper()


def same_url_key(url: str) -> str:
    """A comparison key for URLs (RFC 3986 §6.2.2): scheme and host lower-cased, the default port dropped, an
    empty path made "/", percent-escapes upper-cased and escaped unreserved characters decoded, the fragment
    dropped."""
    try:
        parts = urlsplit(iri_to_uri(url.strip()))
        port = parts.port
    except (ValueError, InvalidValueError):
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    path = _ESCAPE.sub(_escape, parts.path or "/")
    query = _ESCAPE.sub(_escape, parts.query)
    return urlunsplit((scheme, host, path, query, ""))


def _newline(data: bytes) -> bytes:
    m = _LINE_END.search(data)
    return m.group(0) if m else b"\n"


def _check_url(url: str) -> str:
    """The URL of a ``Sitemap:`` line, or InvalidValueError: not absolute http(s), a control character (a CR or
    LF would start a rule of its own), credentials or a bad port."""
    problem = url_argument_problem(url.strip(" \t"))
    if problem is not None:
        raise InvalidValueError(problem, field="url", value=redact_credentials(url))
    return iri_to_uri(url.strip())


def add_sitemaps_to_text(data: bytes, urls: list[str]) -> tuple[bytes, tuple[str, ...], tuple[str, ...]]:
    """The robots.txt ``data`` with ``Sitemap:`` lines for those of ``urls`` it does not list yet. Returns the new
    bytes (``data`` itself when nothing was added), the URLs added and the URLs already present."""
    text, unusual = decode_robots(data)
    if unusual is not None and unusual.startswith(("utf-16", "utf-32")):
        raise InputError(f"robots.txt is encoded as {unusual}; convert it to UTF-8 first")
    listed: dict[str, set[str]] = {}  # robots.txt URL (one per site) -> keys of the sitemaps listed
    added: list[str] = []
    present: list[str] = []
    keys_added: set[str] = set()
    for raw in urls:
        url = _check_url(raw)
        base = robots_url_for(url)
        if base not in listed:
            listed[base] = {same_url_key(u) for u in RobotsTxt.parse(text, base).sitemaps}
        key = same_url_key(url)
        if key in listed[base] or key in keys_added:
            present.append(raw)
            continue
        keys_added.add(key)
        added.append(url)
    if not added:
        return data, (), tuple(present)
    eol = _newline(data)
    out = bytearray(data)
    body = data.removeprefix(b"\xef\xbb\xbf")
    if body.strip():
        lines = _LINE_END.split(body)
        if lines[-1] == b"":
            lines.pop()  # the file ends with a line ending
        else:
            out += eol
        if not _after_own_block(lines):
            out += eol
    for url in added:
        out += b"Sitemap: " + url.encode("ascii") + eol
    return bytes(out), tuple(added), tuple(present)


def _after_own_block(lines: list[bytes]) -> bool:
    """Whether new lines can go right below the last line: it is blank, or it ends a block of Sitemap lines that
    starts the file or follows a blank line (a block of its own, outside every group)."""
    if not lines[-1].strip():
        return True
    i = len(lines)
    while i and _SITEMAP_LINE.match(lines[i - 1]):
        i -= 1
    return i < len(lines) and (i == 0 or not lines[i - 1].strip())


def add_sitemaps(path: str | Path, urls: list[str]) -> RobotsEdit:
    """Add ``Sitemap:`` lines for ``urls`` to the robots.txt at ``path`` (created when missing; see the module
    docstring). Raises :class:`~sitemapkit.core.InvalidValueError` for a URL that is not absolute http(s)."""
    file = Path(path)
    created = not file.exists()
    if not created and not file.is_file():
        raise InputError(f"{file}: not a regular file")
    data = b"" if created else file.read_bytes()
    new, added, present = add_sitemaps_to_text(data, urls)
    written = bool(added)
    if written:
        atomic_write_bytes(file, new)
    return RobotsEdit(str(file), added, present, created and written, written)
