"""Content fingerprints and the honest-lastmod rule shared by ``crawl`` and ``generate`` (static folders).

A page's lastmod should move when its *content* changes, not when the page is rendered again (a clock or a
visitor counter in the footer, a CSRF token, a build id) or rebuilt (a new file modification time). So the
fingerprint hashes only the main content:

* the region: ``<main>`` (or ``[role=main]``), else the page's only ``<article>``, else ``<body>`` without its
  ``nav``, ``header``, ``footer``, ``aside`` and the ARIA landmarks of those (banner, navigation, contentinfo,
  complementary); inside the chosen region ``nav``/``aside``/``footer`` are left out too; scripts, styles,
  ``noscript``, ``template`` and forms' hidden fields never count;
* its text, lowercased and whitespace-normalised, with what changes on every render removed
  (:func:`normalise_text`): dates and times (ISO 8601, ``24/11/2026``, ``Nov 24, 2026``, ``08:50:12 pm UTC``,
  month and weekday names), relative times (``3 minutes ago``), Unix timestamps, counters (``1,234 views``,
  ``Visitors: 77``), render timings (``12 ms``), build ids (``build 2f9a1c3``) and long letter+digit tokens
  (nonces, CSRF tokens, hashes);
* the targets of its links and images, with cache-busting / session / token query parameters dropped.

What is lost on purpose: an edit that only changes a date, a counter, a month or weekday name or the case of a
letter does not count as a change. What counts: any other word or number, and any link or image added, removed
or retargeted (query parameters that are tokens or cache busters left out).

Cost: a crawl fingerprints every page, so the text is cleaned with one regular expression for everything that
starts with a digit and one pass over the distinct words (about 1 ms for 17 kB of text, a third of it parsing).

:func:`honest_lastmod` is the rule both commands apply with the fingerprint a previous run kept in its state.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser

__all__ = ["FINGERPRINT_VERSION", "content_fingerprint", "fingerprint_html", "honest_lastmod", "normalise_text"]

#: The version of :func:`content_fingerprint`, recorded in the crawl state: bump it with any change that gives some
#: page another fingerprint (a state of another version is refused: its pages would all look changed once).
FINGERPRINT_VERSION = 1

_NEVER = "script, style, noscript, template, svg, input[type=hidden]"
_OUTSIDE_MAIN = ("nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], "
                 "[role=complementary]")
_INSIDE_MAIN = "nav, aside, footer, [role=navigation], [role=contentinfo], [role=complementary]"

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
#: Everything that starts with a digit, in one pattern over lowercased text (so the engine skips to digits
#: fast); the words around (month and weekday names, "visitors:", "build") are :func:`_clean_words`' part.
_DIGIT_LED = re.compile(
    r"[0-9](?<![a-z0-9_][0-9])(?:"
    # ISO 8601 date and date-time: 2026-11-24, 2026-11-24t08:50:50.123+01:00
    r"[0-9]{3}-[0-9]{1,2}-[0-9]{1,2}(?:[t ][0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?)?"
    r"(?:z\b|[+-][0-9]{2}:?[0-9]{2}\b)?"
    # numeric dates: 24/11/2026, 11/24/26, 24.11.2026
    r"|[0-9]?[/.][0-9]{1,2}[/.](?:[0-9]{4}|[0-9]{2})\b"
    # clock times: 08:50, 8:50:12.5 pm utc, 10:00+01:00
    r"|[0-9]?:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?(?:\s*[ap]\.?m\.?)?(?:\s*(?:utc|gmt|z)\b|[+-][0-9]{2}:?[0-9]{2})?"
    # day and month: 24 nov 2026, 24th of november
    r"|[0-9]?(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+[0-9]{4})?\b"
    # relative times: 3 minutes ago
    r"|[0-9]*\s+(?:sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago\b"
    # Unix timestamps (seconds or milliseconds)
    r"|[0-9]{9,12}\b"
    # counters: 1,234 views, 12 times, 5 users online
    r"|[0-9,.\u00a0\u202f]*\s*(?:page\s*views?|views?|visits?|visitors?|hits?|reads?|downloads?|users?\s+online"
    r"|online|times)\b"
    # render timings: 12 ms
    r"|[0-9.,]*\s*(?:ms|\u00b5s|milliseconds?)\b"
    r")"
)
_MONTHS = frozenset({
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "january", "february",
    "march", "april", "june", "july", "august", "september", "october", "november", "december"})
_WEEKDAYS = frozenset({
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday"})
_CLOCK_WORDS = frozenset({"am", "pm", "a.m", "p.m", "utc", "gmt", "ago", "today", "yesterday"})
_COUNTER_WORDS = frozenset({"views", "view", "visits", "visitors", "visitor", "hits", "counter", "pageviews",
                            "number", "no", "#"})
_BUILD_WORDS = frozenset({"build", "rev", "revision", "commit", "version", "id"})
_UNITS = frozenset({"sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "hour", "hours", "hr",
                    "hrs", "day", "days", "week", "weeks", "month", "months", "year", "years"})
_PUNCT = ".,:;#()[]!?\"'"
#: First three letters of every word :func:`_clean_words` looks at; any other alphabetic word is kept as it is.
_PREFIXES = frozenset(w[:3] for w in _MONTHS | _WEEKDAYS | _CLOCK_WORDS | _COUNTER_WORDS | _BUILD_WORDS | _UNITS)


def _is_token(word: str) -> bool:
    """A long run of letters and digits mixed: a nonce, a CSRF token, a hash, a build id."""
    core = word.strip(_PUNCT)
    return (len(core) >= 16 and core.replace("_", "").replace("-", "").isalnum()
            and any(c.isdigit() for c in core) and any(c.isalpha() for c in core))


def _numeric(word: str) -> bool:
    core = word.strip(_PUNCT)
    return bool(core) and core.replace(",", "").replace(".", "").removesuffix("th").removesuffix("st") \
        .removesuffix("nd").removesuffix("rd").isdigit()


def _needs_look(word: str) -> bool:
    """Whether :func:`_clean_words` must look at a word: not a plain word of letters (with punctuation), or one
    that may start a date, a counter or an id."""
    if word.isalpha():
        return word[:3] in _PREFIXES or len(word) >= 16
    key = word.strip(_PUNCT)
    return not key.isalpha() or key[:3] in _PREFIXES or len(key) >= 16


def _clean_words(words: list[str]) -> str:
    """Word-level boilerplate (the text is lowercased, digit-led shapes already removed): month and weekday names
    with the day and year numbers after them, am/pm/utc/ago, "an hour ago", the number after a counter word
    ("visitors: 77"), the id after "build"/"commit", and long letter+digit tokens."""
    special = {w for w in set(words) if _needs_look(w)}  # decided once per distinct word
    if not special:
        return " ".join(words)
    out: list[str] = []
    numbers_to_drop = 0
    previous = ""
    copied = 0  # words[:copied] are decided; the plain ones between two special words are copied in one slice
    for i in itertools.compress(range(len(words)), map(special.__contains__, words)):
        if i > copied:  # plain words: kept, and the last one is the previous word
            out += words[copied:i]
            previous = words[i - 1]
            numbers_to_drop = 0
        copied = i + 1
        word = words[i]
        key = word.strip(_PUNCT)
        if numbers_to_drop and _numeric(word):
            numbers_to_drop -= 1
            continue
        numbers_to_drop = 0
        if key in _MONTHS:
            numbers_to_drop = 2  # nov 24, 2026
            continue
        if key in _WEEKDAYS or key in _CLOCK_WORDS:
            if key == "ago" and out and out[-1].strip(_PUNCT) in _UNITS:  # an hour ago
                out.pop()
                if out and out[-1].strip(_PUNCT) in ("a", "an", "one"):
                    out.pop()
            continue
        if previous in _COUNTER_WORDS and _numeric(word):
            continue
        if previous in _BUILD_WORDS and len(key) >= 6 and any(c.isdigit() for c in key) and key.isalnum():
            continue
        if len(key) >= 16 and _is_token(word):
            continue
        out.append(word)
        previous = key
    out += words[copied:]
    return " ".join(out)


#: Query parameters that change per render or per visitor (dropped from link targets before hashing).
_VOLATILE_PARAMS = frozenset({
    "_", "t", "ts", "time", "timestamp", "v", "ver", "version", "cb", "cachebust", "cache", "rand", "random",
    "nonce", "token", "csrf", "csrf_token", "csrfmiddlewaretoken", "_token", "authenticity_token", "sid", "session",
    "sessionid", "phpsessid", "jsessionid", "aspsessionid", "build", "hash",
})


def normalise_text(text: str) -> str:
    """``text`` lowercased, with render-time boilerplate (dates, times, counters, tokens) removed and whitespace
    collapsed.

    Cheap by design (a crawl fingerprints every page): one pattern for everything that starts with a digit (the
    regex engine skips to digits fast), then one pass over the words in which a plain word costs a set lookup."""
    return _clean_words(_DIGIT_LED.sub(" ", text.lower()).split())


# A relative href whose query urlsplit, parse_qsl and urlencode would give back as it is, but for the pairs they
# drop (no escapes, no "+", no second "=" in a pair, nothing before the path that could be a scheme or a host).
_PLAIN_HREF = re.compile(r"(?!//)[A-Za-z0-9_.~/-]*(?:\?[A-Za-z0-9_.~=&-]*)?")


def _plain_href(href: str) -> str | None:
    """:func:`_normalise_href` of a plain relative href (see ``_PLAIN_HREF``), else None."""
    head = href.partition("#")[0]
    if _PLAIN_HREF.fullmatch(head) is None:
        return None
    path, _, query = head.partition("?")
    if not query:
        return path
    kept: list[str] = []
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        if "=" in value:
            return None
        if name.lower() not in _VOLATILE_PARAMS and not _is_token(value):
            kept.append(f"{name}={value}")
    return f"{path}?{'&'.join(kept)}" if kept else path


def _normalise_href(href: str) -> str:
    """A link target as the fingerprint hashes it: no fragment, no volatile query parameters."""
    href = href.strip()
    if "?" in href or "#" in href:
        plain = _plain_href(href)
        return plain if plain is not None else _general_href(href)
    return href


def _general_href(href: str) -> str:
    try:
        parts = urlsplit(href)
    except ValueError:
        return href
    query = parts.query
    if query:
        kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True)
                if k.lower() not in _VOLATILE_PARAMS and not _is_token(v)]
        query = urlencode(kept)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def _region(tree: LexborHTMLParser) -> object | None:
    main = tree.css_first("main") or tree.css_first("[role=main]")
    if main is not None:
        for node in main.css(_INSIDE_MAIN):
            node.decompose()
        return main
    articles = tree.css("article")
    if len(articles) == 1:
        for node in articles[0].css(_INSIDE_MAIN):
            node.decompose()
        return articles[0]
    root = tree.body or tree.root
    if root is not None:
        for node in root.css(_OUTSIDE_MAIN):
            node.decompose()
    return root


def content_fingerprint(tree: LexborHTMLParser) -> str:
    """The fingerprint (32 hex digits) of a parsed page's main content. Changes ``tree`` (boilerplate is
    removed from it): parse again for anything else."""
    for node in tree.css(_NEVER):
        node.decompose()
    region = _region(tree)
    text = ""
    targets: list[str] = []
    if region is not None:
        text = region.text(deep=True, separator=" ")  # type: ignore[attr-defined]
        for node in region.css("a[href], area[href], img[src]"):  # type: ignore[attr-defined]
            value = node.attrs.get("href") if node.tag != "img" else node.attrs.get("src")
            if value and not value.startswith("data:"):
                targets.append(_normalise_href(value))
    h = hashlib.blake2b(digest_size=16)
    h.update(normalise_text(text).encode("utf-8", "surrogatepass"))
    h.update(b"\x00")
    h.update("\n".join(targets).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def fingerprint_html(body: bytes | str) -> str:
    """:func:`content_fingerprint` of an HTML document."""
    return content_fingerprint(LexborHTMLParser(body))


def _instant(value: str) -> datetime | None:
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def honest_lastmod(fingerprint: str, previous: tuple[str | None, str | None] | None, stated: str | None,
                   observed: str | None) -> str | None:
    """A page's lastmod from what is known about it.

    ``previous``: the (fingerprint, lastmod) a previous run kept for the page, None when it is met for the first
    time. ``stated``: what the page says about itself (a ``Last-Modified`` header, a file's modification time),
    None when nothing does. ``observed``: when this run saw the page (the crawl's start time).

    * first sight: ``stated``, else None (nothing says when the page changed: no lastmod is written);
    * same fingerprint as before: the previous lastmod (never moved by a re-render or a rebuild), or ``stated``
      when there was none;
    * content changed: ``stated`` when it is later than the previous lastmod (it dates the change), else
      ``observed`` (the change happened since the previous run; this run is when it was seen)."""
    if previous is None:
        return stated
    prev_fp, prev_lastmod = previous
    if prev_fp == fingerprint:
        return prev_lastmod or stated
    if stated is not None:
        stated_at = _instant(stated)
        prev_at = _instant(prev_lastmod) if prev_lastmod else None
        if prev_at is None or (stated_at is not None and stated_at > prev_at):
            return stated
    return observed or stated
