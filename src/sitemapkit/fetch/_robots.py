"""robots.txt: rules through protego, plus our own lenient pass for ``Sitemap`` lines.

protego decides what may be fetched (Google-compatible matching). Sitemap lines are read by a separate pass
because the real web writes them in every way imaginable, and RFC 9309 §2.2.4 lets a crawler be lenient with
records it interprets beyond the standard, as long as the defined records are left alone (they are: the pass
only reads). What the pass accepts, each with a warning so ``discover`` can tell the site owner:

- any letter case and the spellings ``site-map``, ``site map``, ``site_map``, ``sitemaps`` (RFC 9309 allows
  misspellings); a space instead of the colon (``sitemap http://...``); spaces before the colon;
- relative URLs (``Sitemap: /sitemap.xml``, ``Sitemap: sitemap.xml``), resolved against the robots.txt URL;
- an empty ``Sitemap:`` with the URL alone on the next line;
- a line holding nothing but an absolute http(s) URL (a directive that forgot its name);
- comments after the URL, UTF-8 and UTF-16 byte order marks, CRLF / CR line ends;
- duplicates (compared after normalisation), which are dropped.

Sitemap lines never end a user-agent group and are independent of user agents (RULES.md 17).
"""

from __future__ import annotations

import codecs
import re
from urllib.parse import urljoin, urlsplit

from protego import Protego

from sitemapkit.core import InvalidEntryError, Location, Problem, Severity, iri_to_uri, is_absolute_http_url
from sitemapkit.fetch._codes import SM521, SM522, SM523, SM524, SM525, SM526, SM527, SM528, SM529

__all__ = ["RobotsTxt", "decode_robots", "robots_url_for", "url_key"]

# "sitemap", "site-map", "site map", "Site_Map", "sitemaps"; then spaces, then a colon or at least one space.
_DIRECTIVE = re.compile(r"^(site[ \t_-]?maps?)[ \t]*(:|(?=[ \t])|$)[ \t]*(.*)$", re.IGNORECASE)
_BARE_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)
_LINE_SPLIT = re.compile(r"\r\n|\r|\n")


def decode_robots(data: bytes) -> tuple[str, str | None]:
    """Decode robots.txt bytes: BOM-aware (UTF-8, UTF-16 LE/BE, UTF-32), else UTF-8 with replacement.

    Returns the text and, when it was not plain UTF-8, the encoding used (for a warning)."""
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                     (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                     (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            text = data[len(bom):].decode(enc, errors="replace")
            return text, (None if enc == "utf-8" else enc)
    if len(data) >= 4 and data[1:2] == b"\0" and data[3:4] == b"\0" and data[0:1] != b"\0":
        return data.decode("utf-16-le", errors="replace"), "utf-16-le (no BOM)"
    if len(data) >= 4 and data[0:1] == b"\0" and data[2:3] == b"\0" and data[1:2] != b"\0":
        return data.decode("utf-16-be", errors="replace"), "utf-16-be (no BOM)"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "not UTF-8 (read as Windows-1252)"


def robots_url_for(url: str) -> str:
    """The robots.txt URL governing ``url`` (scheme, host and port kept)."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc}/robots.txt"


def url_key(url: str) -> str:
    """A comparison key for URLs: scheme and host lower-cased, default port and fragment dropped, empty path
    made "/". Used for duplicate detection and for the walker's visited set."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if port is not None and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    path = parts.path or "/"
    return f"{scheme}://{host}{path}" + (f"?{parts.query}" if parts.query else "")


def _strip_comment(line: str) -> str:
    cut = line.find("#")
    return line if cut < 0 else line[:cut]


class RobotsTxt:
    """A parsed robots.txt: ``can_fetch`` / ``crawl_delay`` from protego, ``sitemaps`` from the lenient pass.

    ``problems`` lists what the lenient pass had to forgive, located at robots.txt lines."""

    __slots__ = ("_rules", "problems", "sitemaps", "text", "url")

    def __init__(self, url: str, text: str, sitemaps: tuple[str, ...], problems: tuple[Problem, ...],
                 rules: Protego | None) -> None:
        self.url = url
        self.text = text
        self.sitemaps = sitemaps
        self.problems = problems
        self._rules = rules

    def __repr__(self) -> str:
        return f"RobotsTxt(url={self.url!r}, sitemaps={len(self.sitemaps)})"

    @classmethod
    def parse(cls, text: str | bytes, url: str) -> RobotsTxt:
        """Parse robots.txt content fetched from ``url`` (bytes are decoded BOM-aware)."""
        problems: list[Problem] = []
        if isinstance(text, bytes):
            text, unusual = decode_robots(text)
            if unusual:
                problems.append(SM528.problem(Location(url, 1), f"robots.txt encoded as {unusual}"))
        text = text.removeprefix("\ufeff")
        sitemaps = _sitemap_lines(text, url, problems)
        try:
            rules: Protego | None = Protego.parse(text)
        except Exception:  # protego is lenient, but a parser bug must not cost us the sitemaps
            rules = None
        return cls(url, text, tuple(sitemaps), tuple(problems), rules)

    @classmethod
    def allow_all(cls, url: str, problems: tuple[Problem, ...] = ()) -> RobotsTxt:
        """What a missing robots.txt (4xx) means (RFC 9309 §2.3.1.3): everything may be fetched."""
        return cls(url, "", (), problems, Protego.parse(""))

    @classmethod
    def disallow_all(cls, url: str, problems: tuple[Problem, ...] = ()) -> RobotsTxt:
        """What an unreachable robots.txt (5xx, network error) means (RFC 9309 §2.3.1.4): nothing may be."""
        return cls(url, "User-agent: *\nDisallow: /\n", (), problems, Protego.parse("User-agent: *\nDisallow: /\n"))

    def can_fetch(self, url: str, user_agent: str) -> bool:
        if self._rules is None:
            return True
        return bool(self._rules.can_fetch(url, user_agent))

    def crawl_delay(self, user_agent: str) -> float | None:
        if self._rules is None:
            return None
        delay = self._rules.crawl_delay(user_agent)
        return None if delay is None else float(delay)


def _resolve(value: str, robots_url: str, lineno: int, problems: list[Problem]) -> str | None:
    loc = Location(robots_url, lineno)
    token = value.split()[0] if value.split() else ""
    if not token:
        return None
    if token != value.strip():
        problems.append(SM527.problem(loc, f"extra text after the sitemap URL ignored: {value.strip()!r}",
                                      severity=Severity.WARNING))
    if not is_absolute_http_url(token):
        if "://" in token or token.lower().startswith(("mailto:", "javascript:", "ftp:")):
            problems.append(SM527.problem(loc, f"not an http(s) URL, ignored: {token!r}"))
            return None
        resolved = urljoin(robots_url, token)
        problems.append(SM522.problem(loc, f"relative sitemap URL {token!r} resolved to {resolved}"))
        token = resolved
    try:
        return iri_to_uri(token)
    except InvalidEntryError as exc:
        problems.append(SM527.problem(loc, f"unusable sitemap URL ignored: {exc}"))
        return None


def _sitemap_lines(text: str, robots_url: str, problems: list[Problem]) -> list[str]:
    found: list[str] = []
    keys: set[str] = set()
    pending: int | None = None  # line number of an empty "Sitemap:" waiting for its URL

    def add(url: str | None, lineno: int) -> None:
        if url is None:
            return
        key = url_key(url)
        if key in keys:
            problems.append(SM526.problem(Location(robots_url, lineno), f"duplicate sitemap {url} ignored"))
            return
        keys.add(key)
        found.append(url)

    for lineno, raw in enumerate(_LINE_SPLIT.split(text), start=1):
        line = _strip_comment(raw).strip()
        if not line:
            continue
        m = _DIRECTIVE.match(line)
        if m:
            name, colon, value = m.group(1), m.group(2), m.group(3).strip()
            if pending is not None:
                problems.append(SM529.problem(Location(robots_url, pending)))
                pending = None
            if not colon and value and not _looks_like_url(value):
                continue  # "sitemap something" that is not a URL: not ours to read
            if name.lower() != "sitemap":
                problems.append(SM521.problem(Location(robots_url, lineno), f"directive spelled {name!r}"))
            if not colon and value:
                problems.append(SM523.problem(Location(robots_url, lineno)))
            if not value:
                pending = lineno
                continue
            add(_resolve(value, robots_url, lineno, problems), lineno)
            continue
        if _BARE_URL.match(line):
            if pending is not None:
                problems.append(SM524.problem(Location(robots_url, lineno),
                                              f"URL on line {lineno} taken for the empty Sitemap on line {pending}"))
                pending = None
            else:
                problems.append(SM525.problem(Location(robots_url, lineno), f"bare URL {line} taken as a sitemap"))
            add(_resolve(line, robots_url, lineno, problems), lineno)
            continue
        if pending is not None:
            problems.append(SM529.problem(Location(robots_url, pending)))
            pending = None
    if pending is not None:
        problems.append(SM529.problem(Location(robots_url, pending)))
    return found


def _looks_like_url(value: str) -> bool:
    token = value.split()[0]
    return token.lower().startswith(("http://", "https://", "/")) or token.lower().endswith(
        (".xml", ".xml.gz", ".txt", ".gz", ".rss", ".atom")
    )
