"""IRI -> URI conversion and the checks every <loc> must pass.

The rules (RULES.md 3, 5): a loc is an absolute http(s) URL, URL-escaped for the server (non-ASCII path and
query bytes percent-encoded as UTF-8, internationalised hosts in IDNA/punycode), never double-encoded (an
existing ``%20`` or ``%e4`` is kept as it is), and at most 2,048 characters once encoded.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from sitemapkit.core._errors import InvalidEntryError
from sitemapkit.core._limits import MAX_LOC_LENGTH
from sitemapkit.core._problems import escape_controls

__all__ = [
    "SIMPLE_IRI",
    "SIMPLE_LOC_XML_BYTES",
    "SIMPLE_URI",
    "bare_host_url",
    "escape_non_ascii",
    "has_credentials",
    "iri_to_uri",
    "is_absolute_http_url",
    "is_placeholder_host",
    "is_url_source",
    "normalize_loc",
    "redact_credentials",
    "simple_iri_to_uri",
    "url_argument_problem",
]

# A URL that is already a plain ASCII URI needs no work: this pattern accepts exactly the strings that
# iri_to_uri would return unchanged (the hot path of every reader and writer). The path part takes runs of safe
# characters possessively (``++``/``*+``: the same language, as "%" is not in the run's class, so there is only one
# way to split a path; 2.5x faster than one character per step, and linear on a failing input).
_ORIGIN = r"https?://[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?(?::[0-9]{1,5})?"
_URI_RUN = r"A-Za-z0-9\-._~!$&'()*+,;=:@/?#"
SIMPLE_URI = re.compile(_ORIGIN + rf"(?:[/?#](?:[{_URI_RUN}]++|%[0-9A-Fa-f]{{2}})*+)?")
#: A SIMPLE_URI as XML text writes it, "&" as "&amp;" ("'" raw or as "&apos;", nothing else escaped), or such a
#: text with UTF-8 bytes after the host when read as latin-1 (one character per byte: a raw IRI's non-ASCII
#: characters). What the reader's bulk runs take as a loc: decoded, it is a SIMPLE_URI or a SIMPLE_IRI.
SIMPLE_LOC_XML_BYTES = re.compile(
    _ORIGIN + rf"(?:[/?#](?:[{_URI_RUN.replace('&', '')}\x80-\xff]++|%[0-9A-Fa-f]{{2}}|&amp;|&apos;)*+)?")
# An IRI that is a SIMPLE_URI but for non-ASCII characters after the host (a raw IRI path or query, as
# non-English sites write them): iri_to_uri only percent-encodes those as UTF-8 (pinned against the general path
# in tests/core/test_urls_iri.py). No surrogates (not encodable), no non-ASCII host (IDNA).
SIMPLE_IRI = re.compile(_ORIGIN + rf"[/?#](?:[{_URI_RUN}\u0080-\ud7ff\ue000-\U0010ffff]++|%[0-9A-Fa-f]{{2}})*+")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# RFC 3986 authority: userinfo@host:port, a host being a reg-name, an IPv4 address or an IP literal in brackets
_AUTHORITY = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@%\[\]]*+")
# RFC 3986 reserved + unreserved characters that may stand as they are in path, query and fragment;
# "%" is kept so existing escapes are never encoded twice (stray ones are fixed first).
_SAFE_PATH = "/!$&'()*+,;=:@-._~%"
_SAFE_QUERY = _SAFE_PATH + "?"
_SAFE_FRAGMENT = _SAFE_QUERY + "#"


def _encode_host(host: str, original: str) -> str:
    if host.isascii():
        return host
    import idna  # a non-ASCII host is rare: start-up does not pay for the IDNA tables

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise InvalidEntryError(f"invalid internationalised host {host!r} in {original!r}: {exc}",
                                field="loc", value=original) from None


def _encode_part(part: str, safe: str) -> str:
    if not part:
        return part
    part = _STRAY_PERCENT.sub("%25", part)
    return quote(part, safe=safe, encoding="utf-8", errors="strict")


def iri_to_uri(url: str) -> str:
    """Turn an IRI (or a sloppy URL) into a URI: percent-encode non-ASCII and unsafe characters as UTF-8, IDNA
    the host, lowercase scheme; never re-encode an existing escape. Raises :class:`InvalidEntryError` for a
    URL that is not absolute http(s) or whose host cannot be encoded."""
    if SIMPLE_URI.fullmatch(url):
        return url
    fast = simple_iri_to_uri(url)
    return fast if fast is not None else _general_iri_to_uri(url)


def simple_iri_to_uri(url: str) -> str | None:
    """``iri_to_uri(url)`` for an IRI of the SIMPLE_IRI form (only non-ASCII characters to percent-encode), else
    None. An empty query or fragment is dropped by the general path (urlunsplit), so such IRIs are left to it."""
    if SIMPLE_IRI.fullmatch(url) and "?#" not in url and url[-1] not in "?#":
        return escape_non_ascii(url)
    return None


def escape_non_ascii(text: str) -> str:
    """Every UTF-8 byte of each non-ASCII character of ``text`` as %XX, as quote() does (a table: ~6x faster)."""
    return _NON_ASCII_RUN.sub(_utf8_escapes, text)


_NON_ASCII_RUN = re.compile("[^\x00-\x7f]++")
_BYTE_ESCAPES = [f"%{b:02X}" for b in range(256)]


def _utf8_escapes(m: re.Match[str]) -> str:
    return "".join([_BYTE_ESCAPES[b] for b in m[0].encode("utf-8")])


def _general_iri_to_uri(url: str) -> str:
    if not url.isascii() and any("\ud800" <= c <= "\udfff" for c in url):
        # a lone surrogate (possible in a Python str, never in decoded text) has no UTF-8 form to escape
        raise InvalidEntryError(f"loc holds a lone surrogate, which no URI can carry: {url!r}", field="loc",
                                value=url)
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise InvalidEntryError(f"not a URL: {url!r} ({exc})", field="loc", value=url) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        if not scheme:
            raise InvalidEntryError(f"loc must be an absolute http(s) URL, got relative {url!r}",
                                    field="loc", value=url)
        raise InvalidEntryError(f"loc must use http or https, got {scheme!r} in {url!r}", field="loc", value=url)
    hostname = parts.hostname
    if not hostname:
        raise InvalidEntryError(f"loc has no host: {url!r}", field="loc", value=url)
    netloc = parts.netloc
    if not netloc.isascii() or " " in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        host, sep, port = hostport.rpartition(":") if hostport.rsplit(":", 1)[-1].isdigit() else (hostport, "", "")
        host = _encode_host(host.strip(), url)
        netloc = (quote(userinfo, safe="!$&'()*+,;=:%") + "@" if userinfo else "") + host + sep + port
    userinfo, at, hostport = netloc.rpartition("@")
    if at and _AUTHORITY.fullmatch(userinfo) is None:
        # a control character or "<" in the userinfo: percent-encoded, as a non-ASCII one is (a loc holds only URI
        # characters; written raw it made the XML unreadable)
        netloc = quote(userinfo, safe="!$&'()*+,;=:%") + "@" + hostport
    if not hostport.startswith("[") and not hostport.partition(":")[0]:
        raise InvalidEntryError(f"loc has no host: {url!r}", field="loc", value=url)  # " " encoded to nothing
    if _AUTHORITY.fullmatch(hostport) is None:
        # "<", '"', a control character...: not a host, and a loc holds only URI characters (writers rely on it)
        bad = next(c for c in hostport if _AUTHORITY.fullmatch(c) is None)
        raise InvalidEntryError(f"loc has a character not allowed in a host ({bad!r}): {url!r}", field="loc",
                                value=url)
    return urlunsplit(
        (
            scheme,
            netloc,
            _encode_part(parts.path, _SAFE_PATH),
            _encode_part(parts.query, _SAFE_QUERY),
            _encode_part(parts.fragment, _SAFE_FRAGMENT),
        )
    )


def is_absolute_http_url(url: str) -> bool:
    """True when ``url`` parses as an absolute http(s) URL with a host (no encoding is checked)."""
    if SIMPLE_URI.fullmatch(url):
        return True
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)@")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def has_credentials(url: str) -> bool:
    """True when ``url`` carries userinfo (``user@`` or ``user:password@`` before its host): credentials, which
    must never be published nor sent where a URL is shown."""
    return "@" in url and _USERINFO.match(url.lstrip()) is not None


def redact_credentials(url: str) -> str:
    """``url`` with its userinfo replaced by ``***`` (to name the URL in a message without its password)."""
    return _USERINFO.sub(r"\1***@", url.lstrip(), count=1)


def url_argument_problem(url: str) -> str | None:
    """Why ``url`` cannot be used as a URL to fetch or publish (None when it can): not an absolute http(s) URL,
    a control character in it, credentials in it, or a port outside 1-65535. The message never holds the
    password."""
    if _CONTROL.search(url):
        return f"a control character in the URL: {_CONTROL.sub(lambda m: repr(m[0])[1:-1], redact_credentials(url))}"
    if not is_absolute_http_url(url):
        return f"not an absolute http(s) URL: {redact_credentials(url)!r}"
    if has_credentials(url):
        return (f"the URL carries credentials (user:password@ before the host), which are never sent nor published: "
                f"{redact_credentials(url)!r}")
    try:
        port = urlsplit(url).port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        return f"not a valid port (1-65535) in {url!r}"
    return None


# A host name as people type it: labels of letters, digits and hyphens (any script), at least two, the last one
# not a digit run; or localhost, an IPv4 address, an IPv6 literal in brackets. Then an optional port and path.
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_BARE_HOST = re.compile(
    rf"(?:\d{{1,3}}(?:\.\d{{1,3}}){{3}}|(?:{_LABEL}\.)+(?P<tld>{_LABEL})\.?|localhost|\[[0-9A-Fa-f:.]+\])"
    r"(?::(?P<port>\d{1,5}))?(?P<rest>[/?#].*)?",
    re.DOTALL,
)
#: Last labels that name a file's type, not a top-level domain: ``sitemap.xml`` is a file, never a host.
_FILE_SUFFIXES = frozenset({"xml", "gz", "txt", "csv", "tsv", "json", "jsonl", "ndjson", "html", "htm", "rss",
                            "atom", "parquet", "zip", "bz2", "xz", "zst", "sqlite", "db", "log", "md", "py"})


def bare_host_url(text: str) -> str | None:
    """``https://`` + ``text`` when ``text`` is a bare host as people type it (``example.com``,
    ``www.example.com/shop``, ``127.0.0.1:8000``, ``localhost:3000/``), with ``/`` added when it has no path;
    None for anything else (a URL with a scheme, a path, ``sitemap.xml``). Pure: which scheme the site answers
    on is for the fetch layer to find out (``sitemapkit.fetch.choose_scheme``)."""
    text = text.strip()
    if not text or "://" in text or _CONTROL.search(text) or " " in text or "@" in text.partition("/")[0]:
        return None
    m = _BARE_HOST.fullmatch(text)
    if m is None:
        return None
    tld = m["tld"]
    if tld is not None and (tld.isdigit() or tld.lower() in _FILE_SUFFIXES):
        return None
    if m["port"] is not None and not 1 <= int(m["port"]) <= 65535:
        return None
    rest = m["rest"]
    return "https://" + (text if rest is not None and rest.startswith("/") else
                         text[: m.start("rest")] + "/" + (rest or "") if rest is not None else text + "/")


#: Something written as a URL (``scheme:/...``, ``scheme://...``), as opposed to a file path.
_LOOKS_LIKE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")


def source_argument_problem(source: str, *, urls: bool = True, stdin: bool = True, dirs: bool = True,
                            hosts: bool = False) -> str | None:
    """Why SOURCE argument ``source`` cannot be read (None when it can), before any work starts: a malformed URL
    (``htp:/x``, ``http:/x``: see :func:`url_argument_problem`) or a URL where ``urls`` is False, ``-`` where
    ``stdin`` is False, a file that does not exist (unless ``hosts`` and it is a bare host such as
    ``example.com``, which the caller resolves), or a directory where ``dirs`` is False."""
    if source == "-" and stdin:
        return None
    path = Path(source)
    if not path.exists():
        if _LOOKS_LIKE_URL.match(source):
            return url_argument_problem(source) if urls else f"a URL is not accepted here: {source!r}"
        if hosts and bare_host_url(source) is not None:
            return None  # a site typed without its scheme
        return f"{escape_controls(source)}: no such file or directory"
    if not dirs and path.is_dir():
        return f"{escape_controls(source)}: is a directory; give the sitemap files in it"
    return None


def is_url_source(source: str) -> bool:
    """True when a command-line SOURCE is an http(s) URL (fetched) rather than a file path or ``-``."""
    return source[:8].lower().startswith(("http://", "https://")) and is_absolute_http_url(source)


def normalize_loc(url: str, *, field: str = "loc") -> str:
    """Strip surrounding whitespace, convert IRI -> URI and enforce the 2,048-character limit.

    This is what every entry does to its loc; it raises :class:`InvalidEntryError` naming ``field``."""
    if not isinstance(url, str):
        raise InvalidEntryError(f"{field} must be a string, got {type(url).__name__}", field=field, value=url)
    if SIMPLE_URI.fullmatch(url):
        uri = url
    else:
        stripped = url.strip(" \t\r\n\f\v\u00a0")
        if not stripped:
            raise InvalidEntryError(f"{field} is empty", field=field, value=url)
        try:
            uri = iri_to_uri(stripped)
        except InvalidEntryError as exc:
            raise InvalidEntryError(str(exc).replace("loc ", f"{field} ", 1), field=field, value=url) from None
    if len(uri) > MAX_LOC_LENGTH:
        raise InvalidEntryError(
            f"{field} is {len(uri)} characters once encoded; the limit is {MAX_LOC_LENGTH}: {uri[:80]}...",
            field=field,
            value=url,
        )
    return uri


# Hosts a published sitemap should not name: this machine, and the documentation and placeholder names.
_PLACEHOLDER_HOSTS = frozenset({
    "localhost", "example.com", "example.org", "example.net", "yoursite.com", "yourdomain.com", "your-domain.com",
    "mysite.com", "mydomain.com", "domain.com", "site.com", "none", "null", "undefined", "0.0.0.0",  # noqa: S104
    "[::1]", "::1", "your-site.com", "yourwebsite.com",
})
_PLACEHOLDER_SUFFIXES = (".local", ".localhost", ".example", ".invalid", ".test", ".example.com", ".example.org",
                         ".example.net", ".yoursite.com", ".yourdomain.com")


def is_placeholder_host(host: str) -> bool:
    """localhost, 127.x, ::1, example.com and friends, ``*.local``, ``*.test``, ``None``, yoursite.com ...: a host
    that is fine for tests and local previews and wrong in a published sitemap (validate's SM307, crawl's word
    about ``--base-url``)."""
    h = host.lower().rstrip(".")
    return h in _PLACEHOLDER_HOSTS or h.startswith("127.") or h.endswith(_PLACEHOLDER_SUFFIXES)
