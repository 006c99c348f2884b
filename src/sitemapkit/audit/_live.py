"""One live check of a URL and the heuristics applied to its answer (sans-I/O apart from :func:`check_url`).

:func:`check_url` makes one GET (redirects followed and recorded) and :func:`judge` turns the answer into
findings: ``redirect`` (with the chain, or the loop), ``not_found`` (4xx/5xx or no answer), ``not_html``,
``noindex`` (meta robots or ``X-Robots-Tag``), ``canonicalized`` (HTML ``rel=canonical`` or a ``Link`` header),
``soft_404`` (a 200 whose title, first heading or short body says "not found") and ``lastmod_behind`` (the
sitemap's lastmod older than ``Last-Modified`` or the page's own modification date).
"""

from __future__ import annotations

import email.utils
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

from sitemapkit.core import FetchError, LastMod, TooManyRedirectsError, lastmod_of_valid_form
from sitemapkit.crawl import UrlNormalizer, extract_page, parse_x_robots_tag
from sitemapkit.fetch import HttpClient, HttpResponse

__all__ = ["LiveResult", "check_url", "judge", "link_header_canonical", "page_date", "soft_404_evidence"]

_SOFT_404 = re.compile(
    r"\b(?:404|not\s+found|page\s+(?:does\s+not|doesn'?t)\s+exist|no\s+longer\s+(?:exists|available)|"
    r"page\s+(?:is\s+)?missing|nothing\s+(?:was\s+)?found|could\s+not\s+be\s+found|can'?t\s+be\s+found)\b",
    re.IGNORECASE,
)
#: A body with less visible text than this that says "not found" is a soft 404 even when title and h1 do not.
SHORT_BODY_CHARS = 600
_LINK_PART = re.compile(r"<([^>]*)>\s*((?:;\s*[^,;<]+)*)")
_DATE_SELECTORS = (
    ('meta[property="article:modified_time"]', "content"),
    ('meta[property="og:updated_time"]', "content"),
    ('meta[itemprop="dateModified"]', "content"),
    ('time[itemprop="dateModified"]', "datetime"),
)


@dataclass(frozen=True, slots=True)
class LiveResult:
    """A URL's live check: the findings as ``(category, evidence)``, the status seen (None: no answer), whether it
    is an indexable page, and its hreflang alternates (resolved, normalised)."""

    url: str
    status: int | None
    findings: tuple[tuple[str, str], ...]
    indexable: bool
    alternates: tuple[tuple[str, str], ...] = ()
    summary: str = ""
    fetched: bool = True

    @property
    def ok(self) -> bool:
        return self.status is not None and self.status < 400 and not any(
            c in ("redirect", "not_found") for c, _ in self.findings)


def link_header_canonical(value: str | None) -> str | None:
    """The target of the first ``rel="canonical"`` in a ``Link`` header (RFC 8288), as written."""
    if not value:
        return None
    for m in _LINK_PART.finditer(value):
        for param in m.group(2).split(";"):
            name, _, val = param.strip().partition("=")
            if name.strip().lower() == "rel" and "canonical" in val.strip().strip('"').lower().split():
                return m.group(1).strip()
    return None


def _text(tree: LexborHTMLParser, selector: str) -> str:
    node = tree.css_first(selector)
    return " ".join((node.text(separator=" ") or "").split()) if node is not None else ""


def soft_404_evidence(body: bytes) -> str | None:
    """Why a status-200 HTML page looks like an error page ("not found" in its title or first heading, or in a
    short body), or None. A heuristic: the evidence says so."""
    tree = LexborHTMLParser(body)
    for label, selector in (("title", "title"), ("h1", "h1")):
        text = _text(tree, selector)
        if text and _SOFT_404.search(text):
            return f'{label} "{text[:120]}" says not found (soft 404 heuristic)'
    for node in tree.css("script, style, noscript"):
        node.decompose()
    body_text = _text(tree, "body")
    if body_text and len(body_text) < SHORT_BODY_CHARS and (m := _SOFT_404.search(body_text)):
        return (f'short body ({len(body_text)} characters) says "{m.group(0)}" '
                "(soft 404 heuristic)")
    return None


def page_date(body: bytes) -> tuple[str, str] | None:
    """The page's own modification date (``article:modified_time``, ``dateModified``) as (where, W3C text)."""
    tree = LexborHTMLParser(body)
    for selector, attr in _DATE_SELECTORS:
        node = tree.css_first(selector)
        value = (node.attributes.get(attr) or "").strip() if node is not None else ""
        if value and lastmod_of_valid_form(value) is not None:
            return selector, value
    return None


def _instant(value: LastMod) -> datetime:
    dt = value.to_datetime()
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def lastmod_behind(lastmod: str | None, headers: dict[str, str], body: bytes | None,
                   slack: timedelta) -> str | None:
    """Evidence that the sitemap's ``lastmod`` is older (by more than ``slack``) than the page's
    ``Last-Modified`` header or its own modification date, or None."""
    listed = lastmod_of_valid_form(lastmod) if lastmod else None
    if listed is None:
        return None
    when = _instant(listed)
    header = headers.get("last-modified")
    if header:
        try:
            seen = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError, IndexError, OverflowError):
            seen = None
        if seen is not None:
            seen = seen if seen.tzinfo is not None else seen.replace(tzinfo=UTC)
            if seen - when > slack:
                return f"lastmod {lastmod} is older than Last-Modified: {header}"
    if body is not None:
        found = page_date(body)
        if found is not None:
            own = lastmod_of_valid_form(found[1])
            if own is not None and _instant(own) - when > slack:
                return f"lastmod {lastmod} is older than the page's date {found[1]} ({found[0]})"
    return None


def _redirect_evidence(resp: HttpResponse) -> str:
    hops = [f"{status} {url}" for url, status in resp.redirects]
    chain = " -> ".join([*hops, f"{resp.status} {resp.final_url}"])
    if len(resp.redirects) > 1:
        return f"redirect chain of {len(resp.redirects)} hops: {chain}"
    return f"redirects to {resp.final_url} ({chain})"


def _is_html(ctype: str, body: bytes) -> bool:
    low = ctype.lower()
    if "html" in low:
        return True
    if low and not low.startswith(("text/plain", "application/octet-stream")):
        return False
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


@dataclass
class _Judgement:
    findings: list[tuple[str, str]] = field(default_factory=list)
    indexable: bool = False
    alternates: list[tuple[str, str]] = field(default_factory=list)


def judge(url: str, resp: HttpResponse, *, lastmod: str | None, normalizer: UrlNormalizer,
          slack: timedelta = timedelta(hours=24)) -> LiveResult:
    """The findings of one answer to a GET of ``url`` (the sitemap's ``lastmod`` for ``lastmod_behind``)."""
    j = _Judgement()
    ctype = resp.headers.get("content-type", "")
    if resp.redirects and normalizer.normalize(resp.final_url) != normalizer.normalize(url):
        j.findings.append(("redirect", _redirect_evidence(resp)))
        return LiveResult(url, resp.status, tuple(j.findings), False, summary=f"redirect to {resp.final_url}")
    if resp.status >= 400:
        j.findings.append(("not_found", f"HTTP {resp.status}"))
        return LiveResult(url, resp.status, tuple(j.findings), False, summary=f"HTTP {resp.status}")
    if resp.status != 200:
        return LiveResult(url, resp.status, (), False, summary=f"HTTP {resp.status}")
    if not _is_html(ctype, resp.body):
        j.findings.append(("not_html", f"Content-Type: {ctype}" if ctype else "no Content-Type, not HTML"))
        return LiveResult(url, resp.status, tuple(j.findings), False, summary=ctype or "not HTML")
    info = extract_page(resp.body, fingerprint=False)
    header_value = resp.headers.get("x-robots-tag")
    if parse_x_robots_tag(header_value).noindex:
        j.findings.append(("noindex", f"X-Robots-Tag: {header_value}"))
    elif info.robots.noindex:
        j.findings.append(("noindex", '<meta name="robots"> (or googlebot) says noindex'))
    base = urljoin(resp.final_url, info.base_href) if info.base_href else resp.final_url
    join = normalizer.joiner(base)
    here = normalizer.normalize(resp.final_url)
    link_canonical = link_header_canonical(resp.headers.get("link"))
    for where, raw in (("<link rel=canonical>", info.canonical), ("Link header rel=canonical", link_canonical)):
        target = join(raw) if raw else None
        if target is not None and target != here:
            j.findings.append(("canonicalized", f"{where} points to {target}"))
            break
    soft = soft_404_evidence(resp.body)
    if soft is not None:
        j.findings.append(("soft_404", soft))
    behind = lastmod_behind(lastmod, dict(resp.headers), resp.body, slack)
    if behind is not None:
        j.findings.append(("lastmod_behind", behind))
    for lang, href in info.alternates:
        alt = join(href)
        if alt is not None:
            j.alternates.append((lang, alt))
    j.indexable = not any(c in ("noindex", "canonicalized", "soft_404") for c, _ in j.findings)
    return LiveResult(url, resp.status, tuple(j.findings), j.indexable, tuple(j.alternates),
                      summary="indexable page" if j.indexable else "page, not indexable")


async def check_url(client: HttpClient, url: str, *, lastmod: str | None, normalizer: UrlNormalizer,
                    max_bytes: int, slack: timedelta = timedelta(hours=24)) -> LiveResult:
    """One GET of ``url`` (at most ``max_bytes`` kept), judged (see :func:`judge`)."""
    try:
        resp = await client.get(url, max_bytes=max_bytes, truncate=True)
    except TooManyRedirectsError as exc:
        kind = "redirect loop" if "loop" in exc.reason.lower() else "too many redirects"
        evidence = exc.reason if exc.reason.lower().startswith(kind) else f"{kind}: {exc.reason}"
        return LiveResult(url, None, (("redirect", evidence),), False, summary=kind)
    except FetchError as exc:
        return LiveResult(url, None, (("not_found", f"no answer: {exc.reason}"),), False, summary="no answer")
    return judge(url, resp, lastmod=lastmod, normalizer=normalizer, slack=slack)
