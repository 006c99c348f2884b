"""What the crawler reads from an HTML page: links, base, canonical, hreflang alternates, robots directives, images.

Sans-I/O: :func:`extract_page` takes the body bytes (and the page URL only to report it back) and returns a
:class:`PageInfo` holding the attribute values exactly as written; resolving and normalising them is the
caller's job (see ``_normalize.UrlNormalizer``), so this module never guesses about URLs.

Parser: selectolax's lexbor backend, an HTML5 (WHATWG) parser in C. Chosen by measurement against lxml.html
on realistic pages (see ARCHITECTURE.md, "Crawler"): it parses and selects 3-4 times faster and handles broken
markup the way browsers do. Links are never pulled out with a regex.

Robots directives (:class:`RobotsDirectives`) come from ``<meta name="robots">`` and the search-engine specific
``<meta name="googlebot">``, and from the ``X-Robots-Tag`` response header (:func:`parse_x_robots_tag`), which may
scope directives to a user agent (``X-Robots-Tag: googlebot: noindex``). ``none`` means noindex + nofollow.
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

from sitemapkit.crawl._fingerprint import content_fingerprint

__all__ = ["PageInfo", "RobotsDirectives", "extract_page", "parse_robots_content", "parse_x_robots_tag", "srcset_urls"]

#: Meta names whose robots directives the crawler obeys: the generic one and Google's (the sitemaps are for
#: search engines; Google's crawler is the one that reads them most).
ROBOTS_META_NAMES = frozenset({"robots", "googlebot"})
# Directives that take a value ("max-snippet: 20"), as opposed to a user-agent prefix ("googlebot: noindex").
_VALUED_DIRECTIVES = frozenset(
    {"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview", "notranslate", "noimageindex"}
)
# (noindex, nofollow) set by each directive.
_FLAGS = {"noindex": (True, False), "nofollow": (False, True), "none": (True, True)}
_SELECTOR = "a[href], area[href], base[href], link[href], meta[name][content], img, source[srcset], title"


@dataclass(frozen=True, slots=True)
class RobotsDirectives:
    """Indexing directives: ``noindex`` keeps a page out of the sitemap, ``nofollow`` stops link following."""

    noindex: bool = False
    nofollow: bool = False

    def __or__(self, other: RobotsDirectives) -> RobotsDirectives:
        return RobotsDirectives(self.noindex or other.noindex, self.nofollow or other.nofollow)


NO_DIRECTIVES = RobotsDirectives()


def parse_robots_content(content: str) -> RobotsDirectives:
    """Directives of one meta robots ``content`` value (``"noindex, follow"``, ``"none"``)."""
    noindex = nofollow = False
    for raw in content.lower().replace(";", ",").split(","):
        ni, nf = _FLAGS.get(raw.strip(), (False, False))
        noindex, nofollow = noindex or ni, nofollow or nf
    return RobotsDirectives(noindex, nofollow)


def parse_x_robots_tag(value: str | None, user_agents: frozenset[str] = ROBOTS_META_NAMES) -> RobotsDirectives:
    """Directives of an ``X-Robots-Tag`` header value (several headers arrive joined with commas).

    A ``name:`` prefix scopes the directives after it to that crawler; unscoped directives and those for a
    crawler named in ``user_agents`` (``robots``/``googlebot`` by default) apply."""
    if not value:
        return NO_DIRECTIVES
    noindex = nofollow = False
    scope: str | None = None
    for raw in value.lower().split(","):
        token = raw.strip()
        if ":" in token:
            head, _, rest = token.partition(":")
            head = head.strip()
            if head not in _VALUED_DIRECTIVES:
                scope = head
                token = rest.strip()
        if scope is not None and scope not in user_agents:
            continue
        ni, nf = _FLAGS.get(token, (False, False))
        noindex, nofollow = noindex or ni, nofollow or nf
    return RobotsDirectives(noindex, nofollow)


@dataclass(frozen=True, slots=True)
class PageInfo:
    """What a page says about itself and links to; every URL as written in the page (not resolved)."""

    base_href: str | None
    links: tuple[str, ...]
    canonical: str | None
    alternates: tuple[tuple[str, str], ...]  # (hreflang, href)
    robots: RobotsDirectives
    images: tuple[str, ...]
    fingerprint: str  # content fingerprint (hex) of the main content, for lastmod across crawls
    title: str | None = None  # the first <title>, whitespace collapsed


def srcset_urls(srcset: str) -> list[str]:
    """Every candidate URL of a ``srcset`` value, in order (HTML's parsing rules: a URL is a run without white
    space, so it may hold commas; a comma at its end ends the candidate; descriptors run to the next comma)."""
    urls: list[str] = []
    i, n = 0, len(srcset)
    while i < n:
        while i < n and (srcset[i].isspace() or srcset[i] == ","):
            i += 1
        start = i
        while i < n and not srcset[i].isspace():
            i += 1
        url = srcset[start:i]
        if url.endswith(","):
            url = url.rstrip(",")
        else:  # skip the descriptors ("2x", "480w") up to the comma that ends the candidate
            depth = 0
            while i < n and (srcset[i] != "," or depth):
                depth += {"(": 1, ")": -1}.get(srcset[i], 0)
                i += 1
        if url and not url.startswith("data:"):
            urls.append(url)
    return urls


def extract_page(body: bytes, *, images: bool = False, fingerprint: bool = True) -> PageInfo:
    """Parse an HTML body and collect links (``a``/``area`` ``href``), the first ``<base href>``, the first
    ``<link rel=canonical>``, ``<link rel=alternate hreflang>`` pairs, robots meta directives, the first
    ``<title>`` and, with ``images``, image URLs (``img src`` or ``data-src`` for lazy loading, every candidate of
    ``srcset`` / ``data-srcset``, and of ``<picture><source srcset>``), each once, in page order.

    The fingerprint hashes the page's main content (see :mod:`sitemapkit.crawl._fingerprint`): its text without
    navigation, header, footer, scripts and render-time boilerplate (dates, counters, tokens), and its link
    targets. Markup-only changes and a clock in the footer do not change it."""
    tree = LexborHTMLParser(body)
    links: list[str] = []
    base_href: str | None = None
    canonical: str | None = None
    alternates: list[tuple[str, str]] = []
    robots = NO_DIRECTIVES
    image_urls: dict[str, None] = {}
    title: str | None = None
    for node in tree.css(_SELECTOR):
        tag = node.tag
        attrs = node.attrs  # lazy access: building the full attribute dict costs more than the parse
        if tag == "a" or tag == "area":
            href = attrs.get("href")
            if href:
                links.append(href)
        elif tag == "link":
            rel = (attrs.get("rel") or "").lower().split()
            href = attrs.get("href")
            if not href:
                continue
            if "canonical" in rel:
                if canonical is None:
                    canonical = href.strip()
            elif "alternate" in rel:
                lang = attrs.get("hreflang")
                if lang and lang.strip():
                    alternates.append((lang.strip(), href.strip()))
        elif tag == "meta":
            name = (attrs.get("name") or "").strip().lower()
            if name in ROBOTS_META_NAMES:
                robots = robots | parse_robots_content(attrs.get("content") or "")
        elif tag == "base":
            if base_href is None:
                base_href = (attrs.get("href") or "").strip() or None
        elif tag == "img" or tag == "source":
            if not images:
                continue
            src = attrs.get("src") or attrs.get("data-src") if tag == "img" else None
            if src and src.strip() and not src.startswith("data:"):
                image_urls[src.strip()] = None
            srcset = attrs.get("srcset") or attrs.get("data-srcset")
            if srcset:
                image_urls.update(dict.fromkeys(srcset_urls(srcset)))
        elif tag == "title" and title is None:
            title = " ".join(node.text(deep=True).split()) or None
    digest = content_fingerprint(tree) if fingerprint else ""  # last: it strips boilerplate from the tree
    return PageInfo(
        base_href=base_href,
        links=tuple(links),
        canonical=canonical,
        alternates=tuple(alternates),
        robots=robots,
        images=tuple(image_urls),
        fingerprint=digest,
        title=title,
    )
