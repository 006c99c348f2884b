"""URL normalisation for crawling: one spelling per page, so the frontier never holds the same page twice.

What :class:`UrlNormalizer` does to a link (after resolving it against the page's base URL):

- only ``http`` and ``https`` are kept (``mailto:``, ``javascript:``, ``tel:``, ``data:`` ... give ``None``);
- scheme and host are lower-cased, internationalised hosts become IDNA, user info is dropped, the default port
  (80 for http, 443 for https) is removed and an empty path becomes ``/``;
- the fragment is dropped (it never reaches the server);
- dot segments are removed (``/a/./b/../c`` -> ``/a/c``, RFC 3986 section 5.2.4);
- percent-encoding is made canonical: non-ASCII and unsafe characters are encoded as UTF-8, escapes are
  written in upper case (``%c3%a4`` -> ``%C3%A4``) and escapes of unreserved characters are decoded
  (``%7E`` -> ``~``, RFC 3986 section 6.2.2.2);
- tracking and session parameters are removed from the query (``utm_*``, ``gclid``, ``fbclid``, ``sessionid``,
  ``PHPSESSID`` ..., matched case-insensitively, ``*`` as a trailing wildcard), and ``;jsessionid=...`` style path
  parameters from the path. The list is configurable; the order of the other parameters is kept (servers may
  depend on it), unless ``sort_query`` is set.

Everything here is pure string work (no I/O) and is cached per normaliser with a bounded cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit

from sitemapkit.core import InvalidValueError, iri_to_uri

__all__ = ["DEFAULT_STRIP_PARAMS", "UrlNormalizer", "remove_dot_segments"]

#: Query parameters removed by default: analytics/ad click identifiers and session identifiers. They change the
#: URL without changing the page, and a crawler that keeps them sees every page many times.
DEFAULT_STRIP_PARAMS: tuple[str, ...] = (
    "utm_*",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "fbclid",
    "msclkid",
    "yclid",
    "twclid",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "sessionid",
    "session_id",
    "phpsessid",
    "jsessionid",
    "aspsessionid*",
    "cfid",
    "cftoken",
    "sid",
)

_DEFAULT_PORTS = {"http": ":80", "https": ":443"}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
# Attribute values may hold tabs and newlines inside (the WHATWG URL parser removes them) and spaces around.
_STRIP_INSIDE = re.compile(r"[\t\n\r]")
_CRAWLABLE_SCHEMES = ("http", "https")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# A URL (its fragment cut off) that the general path would only rebuild as it is, but for its port and its query:
# lower-case scheme and host (no trailing dot), a port without leading zeros, and a path and query of characters
# that are never escaped, with no "%" (escapes are made canonical), no ";" (path parameters) and, checked apart, no
# "/." (dot segments). Most links are like this; tests/crawl/test_normalize.py pins both paths to one answer.
_PLAIN = re.compile(r"(https?)://([a-z0-9](?:[a-z0-9.\-]*[a-z0-9])?)(?::([1-9][0-9]{0,4}))?"
                    r"(/[A-Za-z0-9\-._~!$&'()*+,=:@/]*)?(?:\?([A-Za-z0-9\-._~!$&'()*+,=:@/?]*))?")


def _unescape(m: re.Match[str]) -> str:
    return chr(int(m.group(1), 16))


def _fix_escape(m: re.Match[str]) -> str:
    ch = chr(int(m.group(1), 16))
    return ch if ch in _UNRESERVED else "%" + m.group(1).upper()


def remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4: resolve ``.`` and ``..`` segments of an absolute path."""
    if "." not in path:
        return path
    segments = path.split("/")
    if not any(s in (".", "..") for s in segments):
        return path
    out: list[str] = []
    for seg in segments[1:]:
        if seg == ".":
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    if segments[-1] in (".", ".."):
        out.append("")
    return "/" + "/".join(out)


class UrlNormalizer:
    """Resolves and normalises links. ``strip_params`` replaces the default list of removed query parameters
    (names, ``*`` allowed as a trailing wildcard); ``sort_query`` sorts the remaining ones.

    ``normalize(url)`` and ``join(base, href)`` return the canonical spelling, or ``None`` when the link is
    not a crawlable http(s) URL (another scheme, no host, an invalid port or host)."""

    __slots__ = ("_cached", "_exact", "_prefixes", "sort_query")

    def __init__(self, strip_params: Iterable[str] = DEFAULT_STRIP_PARAMS, *, sort_query: bool = False,
                 cache_size: int = 65536) -> None:
        exact: set[str] = set()
        prefixes: list[str] = []
        for name in strip_params:
            name = name.strip().lower()
            if not name:
                continue
            if name.endswith("*"):
                prefixes.append(name[:-1])
            elif "*" in name:
                raise InvalidValueError(f"'*' is only allowed at the end of a parameter pattern: {name!r}",
                                        field="strip_params", value=name)
            else:
                exact.add(name)
        self._exact = frozenset(exact)
        self._prefixes = tuple(prefixes)
        self.sort_query = sort_query
        self._cached = lru_cache(maxsize=cache_size)(self._normalize)

    def is_stripped(self, name: str) -> bool:
        """True when a query (or path) parameter of this name is removed."""
        low = name.lower()
        return low in self._exact or low.startswith(self._prefixes) if self._prefixes else low in self._exact

    def normalize(self, url: str) -> str | None:
        """The canonical spelling of an absolute URL, or ``None`` when it is not a crawlable http(s) URL."""
        return self._cached(url)

    def join(self, base: str, href: str) -> str | None:
        """Resolve ``href`` (as written in a page) against ``base`` and normalise it."""
        return self.joiner(base)(href)

    def joiner(self, base: str) -> Callable[[str], str | None]:
        """A fast ``join(base, href)`` for the many links of one page: the base is split once, and the common
        shapes of links (absolute, ``/path``, ``//host``, ``?query``, ``relative/path``) are resolved by string
        work (RFC 3986 section 5.2); anything unusual falls back to :func:`urllib.parse.urljoin`."""
        try:
            parts = urlsplit(base)
        except ValueError:
            return lambda href: None
        scheme = parts.scheme.lower()
        origin = f"{scheme}://{parts.netloc}"
        path = parts.path or "/"
        directory = origin + path[: path.rfind("/") + 1]
        no_query = origin + path
        cached = self._cached

        def resolve(href: str) -> str | None:
            href = href.strip()
            if "\t" in href or "\n" in href or "\r" in href:
                href = _STRIP_INSIDE.sub("", href)
            if "\\" in href:
                href = href.replace("\\", "/")  # browsers read a backslash as a slash in http(s) URLs
            if not href:
                return cached(base)
            first = href[0]
            if first == "/":
                if href[1:2] == "/":
                    return cached(f"{scheme}:{href}")
                return cached(origin + href)
            if first == "#":
                return cached(base)
            if first == "?":
                return cached(no_query + href)
            if ":" in href.split("/", 1)[0]:
                low = href[:8].lower()
                if low.startswith(("http://", "https://")):
                    return cached(href)
                return None if _SCHEME.match(href) else cached(directory + href)
            if href.startswith("./"):  # the same page as without it ("dir/./p" is "dir/p"): one cache entry for both
                return cached(directory + href[2:])
            return cached(directory + href)

        return resolve

    def _query(self, query: str) -> str:
        if not query:
            return ""
        params = query.split("&")
        kept = []
        for p in params:
            if not p:
                continue
            name = p.split("=", 1)[0]
            if "%" in name:
                name = _PCT.sub(_unescape, name)
            if self.is_stripped(name):
                continue
            kept.append(p)
        if self.sort_query:
            kept.sort()
        return "&".join(kept)

    def _path(self, path: str) -> str:
        if ";" in path:
            # Path parameters such as ";jsessionid=ABC" on any segment.
            segments = []
            for seg in path.split("/"):
                if ";" in seg:
                    head, *params = seg.split(";")
                    params = [p for p in params if not self.is_stripped(p.split("=", 1)[0])]
                    seg = ";".join([head, *params])
                segments.append(seg)
            path = "/".join(segments)
        path = remove_dot_segments(path or "/")
        return path or "/"

    def _normalize(self, url: str) -> str | None:
        m = _PLAIN.fullmatch(url.partition("#")[0])
        if m is not None:
            scheme, host, port, path, query = m.groups()
            if path is None or "/." not in path:
                if port is not None:
                    if int(port) > 65535:
                        return None  # as urlsplit's port check: not a URL
                    if ":" + port == _DEFAULT_PORTS[scheme]:
                        port = None
                netloc = host if port is None else f"{host}:{port}"
                query = self._query(query) if query else ""
                return f"{scheme}://{netloc}{path or '/'}" + (f"?{query}" if query else "")
        return self._general(url)

    def _general(self, url: str) -> str | None:
        try:
            parts = urlsplit(url.strip())
            scheme = parts.scheme.lower()
            if scheme not in _CRAWLABLE_SCHEMES:
                return None
            host = parts.hostname  # lower-cased by urlsplit
            port = parts.port  # ValueError when not a number or out of range
        except ValueError:
            return None
        if not host:
            return None
        if host.endswith("."):
            host = host.rstrip(".")
            if not host:
                return None
        netloc = host if ":" not in host else f"[{host}]"
        if port is not None and f":{port}" != _DEFAULT_PORTS[scheme]:
            netloc += f":{port}"
        rebuilt = urlunsplit((scheme, netloc, self._path(parts.path), self._query(parts.query), ""))
        try:
            uri = iri_to_uri(rebuilt)
        except InvalidValueError:
            return None
        if "%" in uri:
            uri = _PCT.sub(_fix_escape, uri)
        return uri
