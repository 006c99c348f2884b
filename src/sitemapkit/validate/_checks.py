"""Pure check functions on raw values (text exactly as it stood in the file). No I/O, no state.

Each returns a list of findings ``(ProblemCode, message)``; the caller adds the location. The common case (a
clean, plain ASCII URL) is decided by one regular expression so that 50,000 entries cost little.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote, urlsplit

from sitemapkit.core import (
    InvalidValueError,
    LastMod,
    Precision,
    ProblemCode,
    format_datetime,
    is_placeholder_host,
    parse_lastmod_lenient,
    shorten,
)
from sitemapkit.core import quote_value as _q  # every value quoted in a message, cut when long
from sitemapkit.validate import _codes as C
from sitemapkit.validate._langs import ISO_639_1, ISO_3166_ALPHA2

__all__ = [
    "FAST_URL",
    "FAST_URLS",
    "URL_HOSTS",
    "Finding",
    "Scope",
    "any_mojibake",
    "check_changefreq",
    "check_hreflang_value",
    "check_lastmod",
    "check_loc",
    "check_loc_mojibake",
    "check_news_language",
    "check_priority",
    "is_placeholder_host",
    "moment",
    "origin_of",
    "scope_of",
]

Finding = tuple[ProblemCode, str]

# scheme, host, port, path+query; no fragment, no userinfo, nothing needing encoding, and every "%" followed by
# two hex digits (the loop is unrolled: characters, then "%hh" + characters, which is faster than an alternation
# and than a separate search for stray "%").
# Possessive quantifiers (``*+``, ``?+``): every part starts with a character the part before cannot take, so
# there is never a second way to match and no backtracking state is kept (same language, ~25% faster;
# tests/validate/test_checks.py pins the language against the plain pattern).
_URL_CHARS = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*+"
_FAST = re.compile(r"(https?)://([A-Za-z0-9.\-]++)(?::([0-9]{1,5}+))?+((?:[/?]" + _URL_CHARS
                   + r"(?:%[0-9A-Fa-f]{2}" + _URL_CHARS + r")*+)?+)")

#: Match of a plain absolute http(s) URL needing no encoding (group 2 is the host), or None.
FAST_URL = _FAST.fullmatch
#: Match when every line of the text (URLs joined by line feeds, none empty) is a FAST_URL, or None. FAST_URL takes
#: no line feed, so this holds exactly when each URL alone matches: one call in C for a run of URLs.
FAST_URLS = re.compile(rf"(?:{_FAST.pattern})(?:\n(?:{_FAST.pattern}))*+").fullmatch
#: The hosts of URLs that FAST_URLS matched, from "\n" + their joined text (FAST_URL's group 2 of each, in order).
URL_HOSTS = re.compile(r"\nhttps?://([A-Za-z0-9.\-]++)").findall
_fast_url = FAST_URL
_ALLOWED = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]]|%[0-9A-Fa-f]{2})*")
_LOC_LIMIT = 2048  # the prose: "less than 2,048 characters" (stricter than the XSD's maxLength 2048)
_PLACEHOLDER_LOCS = frozenset({"none", "null", "undefined", "nan"})
_MOJIBAKE_HINT = re.compile(r"%C[23]%[89AB][0-9A-F]%C[23]%[89AB]|[\u00c2\u00c3][\u0080-\u00bf]", re.IGNORECASE)


# The hint's first alternative, for ASCII text (where the second, non-ASCII one cannot match): the same strings
# without IGNORECASE and the alternation, so the search runs in C from each "%" (a shop's every URL has escapes).
_MOJIBAKE_HINT_ASCII = re.compile(r"%[Cc][23]%[89ABab][0-9A-Fa-f]%[Cc][23]%[89ABab]").search
# (a literal "%" first: re then jumps from "%" to "%"; "(?:%..)+" tries every position, 7x slower)
_ESCAPE_RUNS = re.compile(r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*+").findall
_MOJIBAKE_SEEN: dict[str, bool] = {}  # the escape runs of an ASCII URL -> the verdict (bounded)
# The last ASCII URL's text from its first "%" on, and its verdict (replaced as one tuple: threads may share it).
# The hint and the escape runs lie in that tail, so it decides the verdict: the en and de pages of one product
# differ only before it.
_MOJIBAKE_LAST: tuple[str, bool] = ("", False)


def _is_mojibake(text: str) -> bool:
    """UTF-8 bytes read as Latin-1/cp1252 and encoded again: decoding once more as UTF-8 succeeds."""
    global _MOJIBAKE_LAST  # a one-entry memo
    if text.isascii():
        first = text.find("%")
        if first < 0:
            return False  # the hint needs a "%"
        tail = text[first:]
        last = _MOJIBAKE_LAST
        if last[0] == tail:
            return last[1]
        if not _MOJIBAKE_HINT_ASCII(tail):
            _MOJIBAKE_LAST = (tail, False)
            return False
        # Only the %-escape runs can change (ASCII goes through both codecs and UTF-8 as it is, and a UTF-8
        # sequence cannot span an ASCII character): the runs joined by a space get the verdict the whole URL gets,
        # and a shop's many URLs with the same umlauts share it.
        verdict = _runs_mojibake(" ".join(_ESCAPE_RUNS(tail)))
        _MOJIBAKE_LAST = (tail, verdict)
        return verdict
    if not _MOJIBAKE_HINT.search(text):
        return False
    return _mojibake_of(text)


def any_mojibake(urls: Sequence[str], joined: str) -> bool:
    """Whether some of ``urls`` (ASCII, e.g. matched by FAST_URLS; ``joined``: their text joined by line feeds) is
    double-encoded UTF-8, as :func:`check_loc_mojibake` would find one by one: the hint is searched once over the
    joined text, and only the URLs holding it get a verdict."""
    hint = _MOJIBAKE_HINT_ASCII
    if hint(joined) is None:  # (the hint takes no line feed: no match in the text, none in any URL)
        return False
    # A URL's verdict is that of its escape runs joined by spaces (_is_mojibake), and a UTF-8 sequence cannot span
    # the space: when no distinct run alone is double-encoded, no URL is (each codec either fails on some run or
    # leaves every run as it was). Runs end at line feeds; a shop has a few dozen distinct ones.
    if not any(map(_runs_mojibake, set(_ESCAPE_RUNS(joined)))):
        return False
    return any(map(_is_mojibake, filter(hint, urls)))


def _runs_mojibake(key: str) -> bool:
    """:func:`_mojibake_of` of escape runs joined by spaces, memoized as _is_mojibake does."""
    verdict = _MOJIBAKE_SEEN.get(key)
    if verdict is None:
        if len(_MOJIBAKE_SEEN) > 4096:
            _MOJIBAKE_SEEN.clear()
        verdict = _MOJIBAKE_SEEN[key] = _mojibake_of(key)
    return verdict


def _mojibake_of(text: str) -> bool:
    try:
        decoded = unquote(text, errors="strict") if "%" in text else text
    except UnicodeDecodeError:  # escapes that are not UTF-8 at all (e.g. "%C3%83%C3"): not UTF-8 encoded twice
        return False
    for codec in ("latin-1", "cp1252"):
        try:
            again = decoded.encode(codec).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        if again != decoded:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a sitemap's URLs may live (RULES.md 13): scheme, host, port and directory prefix."""

    origin: str  # "https://example.org:8080" (port only if given)
    prefix: str  # "https://example.org:8080/catalog/"

    def contains(self, url: str) -> bool:
        return url.startswith(self.prefix)


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an absolute URL, lowercased; None when not absolute."""
    m = _FAST.match(url)
    if m:
        scheme, host, port = m.group(1), m.group(2).lower(), m.group(3)
    else:
        try:
            parts = urlsplit(url)
            host_s = parts.hostname
            port_i = parts.port
        except ValueError:
            return None
        if parts.scheme.lower() not in ("http", "https") or not host_s:
            return None
        scheme, host, port = parts.scheme.lower(), host_s, (str(port_i) if port_i is not None else None)
    return f"{scheme}://{host}" + (f":{port}" if port else "")


def scope_of(sitemap_url: str) -> Scope | None:
    """The scope of a sitemap published at ``sitemap_url``: its directory."""
    origin = origin_of(sitemap_url)
    if origin is None:
        return None
    path = urlsplit(sitemap_url).path or "/"
    directory = path[: path.rfind("/") + 1] or "/"
    return Scope(origin, origin + directory)


def check_loc(raw: str | None, *, field: str = "loc") -> tuple[str | None, list[Finding]]:
    """Check one URL as written. Returns the URL to use for later checks (stripped; None when unusable) and
    the findings."""
    if raw is None:
        return None, [(C.LOC_EMPTY, f"empty <{field}>: write the absolute URL")]
    m = _fast_url(raw)
    if m is not None:
        found: list[Finding] = []
        if len(raw) >= _LOC_LIMIT:
            found.append((C.LOC_TOO_LONG, f"{field} is {len(raw)} characters; the protocol asks for less than "
                                          "2,048 (stricter than the XSD's 2,048)"))
        if is_placeholder_host(m.group(2)):
            found.append((C.LOC_PLACEHOLDER, f"{field} host {_q(m.group(2))} is a placeholder or local host: set "
                                             "the site's real base URL before publishing"))
        if "%C" in raw.upper() and _is_mojibake(raw):
            found.append((C.LOC_MOJIBAKE, f"{field} is double-encoded UTF-8 (mojibake): encode the original "
                                          "text once"))
        return raw, found
    return _check_loc_slow(raw, field)


def check_loc_mojibake(raw: str, *, field: str = "loc") -> list[Finding]:
    """What :func:`check_loc` finds in a URL that FAST_URL matches, shorter than 2,048 characters, on a host that
    is no placeholder (the caller knows those): only SM310, if the URL is double-encoded."""
    if "%C" in raw.upper() and _is_mojibake(raw):
        return [(C.LOC_MOJIBAKE, f"{field} is double-encoded UTF-8 (mojibake): encode the original text once")]
    return []


def _check_loc_slow(raw: str, field: str) -> tuple[str | None, list[Finding]]:
    found: list[Finding] = []
    text = raw.strip(" \t\r\n\f\v\u00a0")
    if not text:
        return None, [(C.LOC_EMPTY, f"empty <{field}>: write the absolute URL")]
    if text != raw:
        found.append((C.LOC_WHITESPACE, f"whitespace around the {field}: remove it"))
    if text.lower() in _PLACEHOLDER_LOCS:
        found.append((C.LOC_NOT_ABSOLUTE, f"{field} is the literal {_q(text)}, not a URL: the generator wrote an "
                                          "empty value; set the site's base URL in it"))
        return None, found
    if "{{" in text or "{%" in text:
        found.append((C.TEMPLATE, f"{field} contains template syntax: publish the rendered output"))
        return None, found
    try:
        parts = urlsplit(text)
        host = parts.hostname
        _ = parts.port
    except ValueError as exc:
        found.append((C.LOC_NOT_ABSOLUTE, f"{field} is not a valid URL ({exc})"))
        return None, found
    scheme = parts.scheme.lower()
    if text.startswith("//"):
        found.append((C.LOC_NOT_ABSOLUTE, f"{field} is protocol-relative: write https:// (or http://) in front"))
    elif not scheme:
        found.append((C.LOC_NOT_ABSOLUTE, f"{field} is relative: write the full URL with scheme and host"))
    elif scheme not in ("http", "https"):
        found.append((C.LOC_NOT_ABSOLUTE, f"{field} uses {_q(scheme)}: only http and https URLs are allowed"))
    elif not host:
        found.append((C.LOC_NOT_ABSOLUTE, f"{field} has no host"))
    if host and is_placeholder_host(host):
        found.append((C.LOC_PLACEHOLDER, f"{field} host {_q(host)} is a placeholder or local host: set the site's "
                                         "real base URL before publishing"))
    if not text.isascii() or " " in text or not _ALLOWED.fullmatch(text):
        what = "raw spaces" if " " in text else ("non-ASCII characters" if not text.isascii()
                                                  else "characters that must be escaped")
        found.append((C.LOC_NOT_ENCODED, f"{field} has {what}: percent-encode it as UTF-8 (RFC 3986)"))
    if _is_mojibake(text):
        found.append((C.LOC_MOJIBAKE, f"{field} is double-encoded UTF-8 (mojibake): encode the original text once"))
    if parts.fragment or text.endswith("#"):
        found.append((C.LOC_FRAGMENT, f"{field} has a #fragment: list the URL without it"))
    if len(text) >= _LOC_LIMIT:
        found.append((C.LOC_TOO_LONG, f"{field} is {len(text)} characters; the protocol asks for less than 2,048 "
                                      "(stricter than the XSD's 2,048)"))
    unusable = any(code is C.LOC_NOT_ABSOLUTE for code, _ in found)
    return (None if unusable else text), found


def check_lastmod(raw: str, now: datetime, *, field: str = "lastmod") -> tuple[LastMod | None, list[Finding]]:
    """Strict W3C Datetime, the XSD's narrower types, and dates after ``now`` (aware)."""
    text = raw.strip()
    try:
        value = LastMod(text)
    except InvalidValueError:
        lenient = parse_lastmod_lenient(text)
        hint = f" (did you mean {lenient.text}?)" if lenient is not None else ""
        return None, [(C.LASTMOD_INVALID, f"{field} {_q(text)} is not a W3C Datetime{hint}")]
    found: list[Finding] = []
    if not value.is_strict_w3c:
        found.append((C.LASTMOD_NO_TZ, f"{field} {_q(text)} has a time but no time zone: add Z or +hh:mm (W3C "
                                       "requires it; the XSD does not, the stricter reading applies)"))
    if not value.is_xsd_valid:
        what = {Precision.YEAR: "a bare year", Precision.MONTH: "a year-month",
                Precision.MINUTE: "a time without seconds"}.get(value.precision, "this form")
        found.append((C.LASTMOD_PRECISION, f"{field} {_q(text)} is {what}: valid W3C Datetime but rejected by the "
                                           "sitemap XSD; write YYYY-MM-DD or a time with seconds"))
    if is_future(value, now):
        found.append((C.LASTMOD_FUTURE, f"{field} {_q(text)} is after {moment(now)}: write "
                                        "when the page last changed"))
    return value, found


def moment(value: datetime) -> str:
    """A reference time as messages write it: to the second, UTC spelled ``Z`` (the one spelling every command
    writes; ``+00:00`` is still read everywhere)."""
    return format_datetime(value.replace(microsecond=0))


def is_future(value: LastMod, now: datetime) -> bool:
    """True when ``value`` lies after ``now``; dates and zone-less times get a 14-hour allowance (any zone)."""
    if value.precision in (Precision.YEAR, Precision.MONTH, Precision.DAY):
        return value.to_date() > (now + timedelta(hours=14)).date()
    dt = value.to_datetime()
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC) > now + timedelta(hours=14)
    return dt > now


_CHANGEFREQ = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})


def check_changefreq(raw: str) -> list[Finding]:
    text = raw.strip()
    if text in _CHANGEFREQ:
        return []
    if text.lower() in _CHANGEFREQ:
        return [(C.CHANGEFREQ_INVALID, f"changefreq {_q(text)} must be lowercase: write {_q(text.lower())}")]
    return [(C.CHANGEFREQ_INVALID, f"changefreq {_q(text)} is not one of always, hourly, daily, weekly, monthly, "
                                   "yearly, never")]


_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def check_priority(raw: str) -> list[Finding]:
    text = raw.strip()
    if _DECIMAL.fullmatch(text):
        try:
            if Decimal(0) <= Decimal(text) <= Decimal(1):
                return []
        except InvalidOperation:
            pass
        return [(C.PRIORITY_INVALID, f"priority {shorten(text)} is outside 0.0-1.0")]
    return [(C.PRIORITY_INVALID, f"priority {_q(text)} is not a decimal number between 0.0 and 1.0")]


_HREFLANG = re.compile(r"([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|\d{3}))?")
_XDEFAULT_TYPOS = frozenset({"default", "x_default", "xdefault", "x-defaut", "x-defualt", "x default"})
_REGION_FIXES = {"UK": "GB"}


@functools.lru_cache(maxsize=1024)
def _hreflang_cached(value: str) -> tuple[Finding, ...]:
    return tuple(_check_hreflang_value(value))


def check_hreflang_value(value: str) -> tuple[Finding, ...]:
    """ISO 639-1 language, optional ISO 15924 script, optional ISO 3166-1 alpha-2 region (or 419), or
    x-default (RULES.md 24)."""
    return _hreflang_cached(value)


def _check_hreflang_value(value: str) -> list[Finding]:
    """ISO 639-1 language, optional ISO 15924 script, optional ISO 3166-1 alpha-2 region (or 419), or
    x-default (RULES.md 24)."""
    text = value.strip()
    low = text.lower()
    if low == "x-default":
        return []
    if low in _XDEFAULT_TYPOS:
        return [(C.HREFLANG_CODE, f"hreflang {_q(text)}: the fallback value is spelled x-default")]
    m = _HREFLANG.fullmatch(text)
    if m is None:
        hint = " (use a hyphen, not an underscore)" if "_" in text else ""
        return [(C.HREFLANG_CODE, f"hreflang {_q(text)} is not language[-region]{hint}")]
    lang, region = m.group(1).lower(), m.group(3)
    if lang not in ISO_639_1:
        if region is None and lang.upper() in ISO_3166_ALPHA2:
            return [(C.HREFLANG_CODE, f"hreflang {_q(text)}: {_q(lang)} is not an ISO 639-1 language (a region alone "
                                      "is not enough; write language-region)")]
        return [(C.HREFLANG_CODE, f"hreflang {_q(text)}: {_q(lang)} is not an ISO 639-1 language code")]
    if region is not None and region != "419" and region.upper() not in ISO_3166_ALPHA2:
        fix = _REGION_FIXES.get(region.upper())
        hint = f"; use {fix}" if fix else ""
        return [(C.HREFLANG_CODE, f"hreflang {_q(text)}: {_q(region)} is not an ISO 3166-1 alpha-2 region{hint}")]
    return []


def check_news_language(value: str) -> list[Finding]:
    """ISO 639 2- or 3-letter code, or zh-cn / zh-tw (RULES.md 23)."""
    text = value.strip()
    low = text.lower()
    if low in ("zh-cn", "zh-tw"):
        return []
    if len(low) == 2 and low in ISO_639_1:
        return []
    if len(low) == 3 and low.isascii() and low.isalpha():
        return []
    return [(C.NEWS_LANGUAGE, f"news:language {_q(text)} is not an ISO 639 code (2 or 3 letters, or zh-cn/zh-tw)")]


def now_utc() -> datetime:
    return datetime.now(UTC)
