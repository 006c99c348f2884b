"""Content fingerprints and the honest-lastmod rule shared by ``crawl`` and ``generate`` (static folders).

A page's lastmod should move when its *content* changes, not when the page is rendered again (a clock or a
visitor counter in the footer, a CSRF token, a build id) or rebuilt (a new file modification time). So the
fingerprint hashes only the main content:

* the region: ``<main>`` (or ``[role=main]``), else the page's only ``<article>``, else ``<body>`` without its
  ``nav``, ``header``, ``footer``, ``aside`` and the ARIA landmarks of those (banner, navigation, contentinfo,
  complementary); inside the chosen region ``nav``/``aside``/``footer`` are left out too; scripts, styles,
  ``noscript``, ``template`` and forms' hidden fields never count;
* its text, whitespace-normalised, with what changes on every render removed (:func:`normalise_text`): dates and
  times (ISO 8601, ``24/11/2026``, ``Nov 24, 2026``, ``08:50:12 pm UTC``), relative times (``3 minutes ago``),
  Unix timestamps, counters (``1,234 views``, ``Visitors: 77``) and long letter+digit tokens (nonces, CSRF
  tokens, build ids, hashes);
* the targets of its links and images, with cache-busting / session / token query parameters dropped.

What is lost on purpose: an edit that only changes a date or a counter inside the content does not count as a
change. What counts: any other word, and any link or image added, removed or retargeted.

:func:`honest_lastmod` is the rule both commands apply with the fingerprint a previous run kept in its state.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser

__all__ = ["content_fingerprint", "fingerprint_html", "honest_lastmod", "normalise_text"]

_NEVER = "script, style, noscript, template, svg, input[type=hidden]"
_OUTSIDE_MAIN = ("nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], "
                 "[role=complementary]")
_INSIDE_MAIN = "nav, aside, footer, [role=navigation], [role=contentinfo], [role=complementary]"

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_ORD = r"(?:st|nd|rd|th)?"
_TOKEN = r"\b(?=[a-z_]*\d)(?=[0-9_]*[a-z])[a-z0-9_]{16,}\b"
_BOILERPLATE = [re.compile(p, re.IGNORECASE) for p in (
    # ISO 8601 date and date-time (2026-11-24, 2026-11-24T08:50:50.123+01:00)
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?(?:z\b|[+-]\d{2}:?\d{2}\b)?",
    # numeric dates: 24/11/2026, 11/24/26, 24.11.2026
    r"\b\d{1,2}[/.]\d{1,2}[/.](?:\d{4}|\d{2})\b",
    # month-name dates: Nov 24, 2026 / 24 November 2026 / 24th Nov / November 2026
    r"\b(?:\d{1,2}" + _ORD + r"\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+\d{4})?|" + _MONTH
    + r"\s+\d{1,2}" + _ORD + r"(?:,?\s+\d{4})?|" + _MONTH + r"\s+\d{4})\b",
    # weekday names (they change with the date): Tuesday, Tue,
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:mon|tue|wed|thu|fri|sat|sun)\.?,",
    # clock times: 08:50, 8:50:12.5 pm, 20:50 UTC, 10:00+01:00
    r"\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s*[ap]\.?m\.?)?(?:\s*(?:utc|gmt|z|[a-z]{2,4}t)\b|[+-]\d{2}:?\d{2})?",
    # relative times: 3 minutes ago, an hour ago
    r"\b(?:\d+|an?|one)\s+(?:sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago\b",
    # render timings: served in 12 ms, generated in 0.3 s
    r"\b(?:served|generated|rendered|built|took|loaded|processed)\s+in\s+\d[\d.,]*\s*(?:ms|µs|us|s|secs?"
    r"|seconds?|milliseconds?)\b",
    # Unix timestamps (seconds or milliseconds)
    r"\b\d{10,13}\b",
    # counters: 1,234 views / Visitors: 77 / viewed 12 times / 5 users online
    r"\b\d[\d,.\u00a0\u202f]*\s*(?:page\s*views?|views?|visits?|visitors?|hits?|reads?|downloads?|users?\s+online"
    r"|online|times)\b",
    r"\b(?:page\s*views?|views?|visits?|visitors?|hits?|counter|visitor\s+(?:number|no\.?|#))\s*[:#]?\s*\d[\d,.]*",
    # build ids: build 2f9a1c3, rev 4711, commit abcdef0
    r"\b(?:build|rev(?:ision)?|commit|version)\s*(?:id)?\s*[:#]?\s*[0-9a-f]{6,40}\b",
    # long tokens that mix letters and digits: nonces, CSRF tokens, hashes
    _TOKEN,
)]
_TOKEN_RE = re.compile(_TOKEN, re.IGNORECASE)
#: Query parameters that change per render or per visitor (dropped from link targets before hashing).
_VOLATILE_PARAMS = frozenset({
    "_", "t", "ts", "time", "timestamp", "v", "ver", "version", "cb", "cachebust", "cache", "rand", "random",
    "nonce", "token", "csrf", "csrf_token", "csrfmiddlewaretoken", "_token", "authenticity_token", "sid", "session",
    "sessionid", "phpsessid", "jsessionid", "aspsessionid", "build", "hash",
})


def normalise_text(text: str) -> str:
    """``text`` with render-time boilerplate (dates, times, counters, tokens) removed and whitespace collapsed."""
    for pattern in _BOILERPLATE:
        text = pattern.sub(" ", text)
    return " ".join(text.split())


def _normalise_href(href: str) -> str:
    href = href.strip()
    if "?" in href or "#" in href:
        try:
            parts = urlsplit(href)
        except ValueError:
            return _TOKEN_RE.sub("", href)
        query = parts.query
        if query:
            kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True)
                    if k.lower() not in _VOLATILE_PARAMS]
            query = urlencode(kept)
        href = urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))
    return _TOKEN_RE.sub("", href) if len(href) >= 16 else href


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
