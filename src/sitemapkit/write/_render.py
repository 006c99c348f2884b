"""The ``<url>`` renderer: escaping, value formatting, namespaces and each extension's elements.

Escaping lives in exactly one place, :func:`escape`: every free-text value and every URL, in element content and in
attributes, goes through it. Values whose type already rules out markup characters (``LastMod`` text, which is
validated by a W3C regex; enum values; numbers formatted here) are written as they are.

Namespaces: :class:`UrlRenderer` is told which extension namespaces the root declares. An entry that uses an
extension the root did not declare carries the declaration on its own extension element
(``<image:image xmlns:image="...">``), so the output is always namespace-correct and XSD-valid without buffering.
``SitemapSetWriter`` renders with every prefix declared and writes each file's root last, so its files declare
exactly the namespaces their entries use (see ARCHITECTURE.md, "Writer").

Values that would make the file XSD-invalid raise :class:`InvalidEntryError` before anything of the entry is
returned; deprecated tags and XSD/Google disagreements become warnings (:class:`Warnings`, one per code with a
count). The streaming writers around it are in ``_writers.py``.
"""

from __future__ import annotations

import enum
import re
from decimal import Decimal

from sitemapkit.core import (
    MAX_IMAGES_PER_URL,
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_TAGS,
    Changefreq,
    Image,
    InvalidEntryError,
    LastMod,
    Location,
    News,
    Problem,
    Severity,
    UrlEntry,
    Video,
)
from sitemapkit.write._codes import SM601, SM602, SM603, SM604, SM605

__all__ = [
    "NOT_XML",
    "SITEMAP_NS",
    "Extension",
    "UrlRenderer",
    "Warnings",
    "escape",
    "format_decimal",
    "namespace_declarations",
]

# --- namespaces -------------------------------------------------------------------------------------------

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


class Extension(enum.IntFlag):
    """Extension namespaces a urlset may use (a flag set: ``Extension.IMAGE | Extension.XHTML``)."""

    NONE = 0
    IMAGE = 1
    VIDEO = 2
    NEWS = 4
    XHTML = 8
    MOBILE = 16
    ALL = 31


_NS: dict[Extension, tuple[str, str]] = {
    Extension.IMAGE: ("image", "http://www.google.com/schemas/sitemap-image/1.1"),
    Extension.VIDEO: ("video", "http://www.google.com/schemas/sitemap-video/1.1"),
    Extension.NEWS: ("news", "http://www.google.com/schemas/sitemap-news/0.9"),
    Extension.XHTML: ("xhtml", "http://www.w3.org/1999/xhtml"),
    Extension.MOBILE: ("mobile", "http://www.google.com/schemas/sitemap-mobile/1.0"),
}


# The same flags as plain ints, for the hot path (IntFlag arithmetic runs Python code).
_IMAGE, _VIDEO, _NEWS, _XHTML, _MOBILE = 1, 2, 4, 8, 16
#: hreflang values already checked against the xsd:language pattern.
_GOOD_LANGS: set[str] = set()


def _xmlns(ext: Extension) -> str:
    prefix, uri = _NS[ext]
    return f' xmlns:{prefix}="{uri}"'


def namespace_declarations(used: int) -> str:
    """The ``xmlns:*`` attributes for a flag set, in a fixed order (so output is reproducible)."""
    return "".join(_xmlns(ext) for ext in _NS if used & ext)


# --- escaping: the one place ------------------------------------------------------------------------------

# Characters that need an entity, plus the ones XML 1.0 cannot carry at all (C0 controls other than tab, LF, CR;
# lone surrogates; U+FFFE and U+FFFF). One regex search decides the fast path: most values contain none.
_NEEDS_WORK = re.compile("[&<>'\"\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]").search
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]").search
# Text whose only character needing an entity is "&" (printable ASCII without ' " < >, plus tab/LF/CR): escape()
# of it is one replace. URLs with a query string are this shape; one charset scan (~0.3 us) instead of escape()'s
# two regex searches and five replaces (~1.5 us).
_AMP_ONLY = re.compile("[\t\n\r !#-&(-;=?-~]*+").fullmatch
# "scheme://authority" and the character ending the authority (a loc's scheme is lowercase http or https).
_AUTHORITY = re.compile("https?://([^/?#]*)[/?#]").match


def escape(text: str) -> str:
    """Escape ``& < > ' "`` as entities (sitemaps.org requires all five, in content and attributes alike).

    Raises :class:`InvalidEntryError` for characters XML 1.0 cannot represent (control characters, lone
    surrogates, U+FFFE/U+FFFF): writing them would produce a document no parser accepts."""
    if _NEEDS_WORK(text) is None:
        return text
    if _AMP_ONLY(text) is not None:
        return text.replace("&", "&amp;")
    bad = NOT_XML(text)
    if bad is not None:
        raise InvalidEntryError(
            f"text contains U+{ord(bad.group()):04X}, which XML 1.0 cannot represent: {text[:60]!r}",
            value=text,
        )
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&apos;").replace('"', "&quot;"))


# --- value formatting -------------------------------------------------------------------------------------

# Keyed by identity: enum members are singletons, and hashing an Enum runs Python code (measured ~0.3 us).
_CHANGEFREQ_BY_ID = {id(cf): f"<changefreq>{cf.value}</changefreq>" for cf in Changefreq}


def format_decimal(value: float) -> str:
    """xsd:decimal text for a float: never exponent notation; the shortest text that reads back as the same
    float (``0.5``, ``1.0``, ``0.00001``)."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
        if "." not in text:
            text += ".0"
    return text


class _PriorityFragments(dict[float, str]):
    """``<priority>`` elements by value, built on first use (a site uses a handful of distinct priorities)."""

    def __missing__(self, value: float) -> str:
        frag = f"<priority>{format_decimal(value)}</priority>"
        if len(self) < 1024:
            self[value] = frag
        return frag


_PRIORITY = _PriorityFragments()


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


# XSD patterns the writer enforces before writing (values breaking them would make the file invalid).
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*").fullmatch
_COUNTRIES = re.compile(r"[A-Z]{2}").fullmatch
_NEWS_LANGUAGE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}").fullmatch
_GENRES = {"PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated"}
_TICKER = re.compile(r"\w+:\w+").fullmatch
_CURRENCY = re.compile(r"[A-Z]{3}").fullmatch
_PRICE_TYPES = {"purchase", "PURCHASE", "rent", "RENT"}
_RESOLUTIONS = {"sd", "SD", "hd", "HD"}
_VIDEO_TYPES = {"full", "preview", "clip", "interview", "news", "other"}
_NEWS_ACCESS = {"Subscription", "Registration"}
_MAX_VIDEO_TITLE_XSD = 100


def _invalid(field: str, message: str, value: object) -> InvalidEntryError:
    return InvalidEntryError(f"{field}: {message}", field=field, value=value)


class Warnings:
    """Warnings aggregated per code: a count and the first occurrence (memory stays flat on big runs)."""

    __slots__ = ("_counts", "_first", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._first: dict[str, Problem] = {}
        self._counts: dict[str, int] = {}

    def add(self, code: str, message: str, loc: str | None) -> None:
        n = self._counts.get(code, 0)
        self._counts[code] = n + 1
        if n == 0:
            self._first[code] = Problem(code, Severity.WARNING, message, Location(self.source, loc=loc))

    def merge(self, other: Warnings) -> None:
        for code, problem in other._first.items():
            if code not in self._first:
                self._first[code] = problem
            self._counts[code] = self._counts.get(code, 0) + other._counts[code]

    def problems(self) -> tuple[Problem, ...]:
        out = []
        for code, first in self._first.items():
            n = self._counts[code]
            message = first.message if n == 1 else f"{first.message} (and {n - 1} more like it)"
            out.append(Problem(code, first.severity, message, first.location))
        return tuple(out)

    def __bool__(self) -> bool:
        return bool(self._first)


def _date(value: LastMod, field: str, entry_loc: str, warnings: Warnings) -> str:
    if not value.is_xsd_valid:
        warnings.add(SM603.code, f"{field} {value.text!r} is W3C Datetime but not XSD-valid (written as given)",
                     entry_loc)
    return value.text


# --- the <url> renderer -----------------------------------------------------------------------------------

class UrlRenderer:
    """Renders one ``<url>`` element to text. ``declared`` says which extension namespaces the root declares;
    after each call, ``pending`` holds the extensions that entry used (the caller merges and clears it, so a
    file that rolls before the entry is not charged with its namespaces). Nothing else is kept."""

    __slots__ = ("_clean", "_d_image", "_d_mobile", "_d_news", "_d_video", "_d_xhtml", "declared", "pending",
                 "warnings")

    def __init__(self, declared: int, warnings: Warnings) -> None:
        self.declared = declared
        self.pending = 0
        self.warnings = warnings
        # The last "scheme://authority/" (with the character ending the authority) found to hold nothing that
        # needs an entity but "&": a loc starting with it and without "'" escapes by one replace (see _escape_loc).
        self._clean = "\x00"  # no loc starts with it
        # The xmlns attribute each extension element carries: empty when the root declares the namespace.
        # Plain str attributes: looking up an IntFlag in a dict runs Python-level Enum hashing.
        self._d_image = "" if declared & _IMAGE else _xmlns(Extension.IMAGE)
        self._d_video = "" if declared & _VIDEO else _xmlns(Extension.VIDEO)
        self._d_news = "" if declared & _NEWS else _xmlns(Extension.NEWS)
        self._d_xhtml = "" if declared & _XHTML else _xmlns(Extension.XHTML)
        self._d_mobile = "" if declared & _MOBILE else _xmlns(Extension.MOBILE)

    def render(self, entry: UrlEntry) -> str:
        """The ``<url>...</url>`` line. This is the writer's hot path: the common case (no extensions) is one
        f-string of precomputed fragments (measured 3x faster than concatenation) and no Python-level calls."""
        loc = entry.loc
        # A loc is a URI (the model percent-encodes everything else), so '&' and "'" are the only characters in it
        # that need an entity; two substring tests are ~5x cheaper than the general regex in escape(). A query
        # string's '&' on a host already seen clean is one replace (what escape() gives: see _escape_loc).
        if "&" in loc or "'" in loc:
            known = "'" not in loc and loc.startswith(self._clean)
            loc = loc.replace("&", "&amp;") if known else self._escape_loc(loc)
        lastmod = entry.lastmod
        if lastmod is None:
            lm = ""
        else:
            lm = lastmod.text  # validated W3C text: digits, '-', 'T', ':', '.', '+', 'Z'; nothing to escape
            # XSD-valid forms are YYYY-MM-DD and times with seconds (character 16 is the seconds' colon).
            if len(lm) != 10 and lm[16:17] != ":":
                _date(lastmod, "lastmod", entry.loc, self.warnings)
            lm = f"<lastmod>{lm}</lastmod>"
        changefreq = entry.changefreq
        cf = "" if changefreq is None else _CHANGEFREQ_BY_ID[id(changefreq)]
        priority = entry.priority
        pr = "" if priority is None else _PRIORITY[priority]
        if entry.images or entry.videos or entry.news is not None or entry.alternates or entry.mobile:
            return f"<url><loc>{loc}</loc>{lm}{cf}{pr}{self._extensions(entry)}</url>\n"
        return f"<url><loc>{loc}</loc>{lm}{cf}{pr}</url>\n"

    def _escape_loc(self, loc: str) -> str:
        """``escape(loc)``, by one replace when only "&" needs an entity. After its authority a loc holds only
        URI characters ("%"-escapes and RFC 3986's unreserved and reserved ones: the model's ``normalize_loc``
        percent-encodes everything else, and a loc it keeps as written matches ``SIMPLE_URI``); of these only
        "&" and "'" need an entity. The authority is kept as written when ASCII (a host may hold '<' or a control
        character), so it is checked, and remembered when clean: the next loc on that host skips the check."""
        m = _AUTHORITY(loc)
        if m is None or "'" in loc or _AMP_ONLY(m.group(1)) is None:
            return escape(loc)
        self._clean = m.group()
        return loc.replace("&", "&amp;")

    def _extensions(self, entry: UrlEntry) -> str:
        parts: list[str] = []
        loc = entry.loc
        used = 0
        if entry.alternates:
            used |= _XHTML
            decl = self._d_xhtml
            for alt in entry.alternates:
                lang = alt.hreflang
                if lang not in _GOOD_LANGS:
                    if not _LANGUAGE_TAG(lang):
                        raise _invalid("alternate.hreflang", f"{lang!r} is not a language tag "
                                       "(ISO 639-1 [+ region], or x-default)", lang)
                    if len(_GOOD_LANGS) < 4096:
                        _GOOD_LANGS.add(lang)  # a language tag has no characters to escape
                href = alt.href
                if "&" in href or "'" in href:  # a URI, see render()
                    href = href.replace("&", "&amp;") if _AMP_ONLY(href) is not None else escape(href)
                parts.append(f'<xhtml:link{decl} rel="alternate" hreflang="{lang}" href="{href}"/>')
        if entry.images:
            if len(entry.images) > MAX_IMAGES_PER_URL:
                raise _invalid("images", f"{len(entry.images)} images; at most {MAX_IMAGES_PER_URL} per URL",
                               len(entry.images))
            used |= _IMAGE
            decl = self._d_image
            for image in entry.images:
                parts.append(self._image(image, decl, loc))
        if entry.videos:
            used |= _VIDEO
            decl = self._d_video
            for video in entry.videos:
                parts.append(self._video(video, decl, loc))
        if entry.news is not None:
            used |= _NEWS
            parts.append(self._news(entry.news, self._d_news, loc))
        if entry.mobile:
            used |= _MOBILE
            parts.append(f"<mobile:mobile{self._d_mobile}/>")
        self.pending = used  # only once nothing can raise any more
        return "".join(parts)

    def _image(self, image: Image, decl: str, loc: str) -> str:
        src = image.loc
        if "&" in src or "'" in src:  # a URI, see render()
            src = src.replace("&", "&amp;") if _AMP_ONLY(src) is not None else escape(src)
        out = f"<image:image{decl}><image:loc>{src}</image:loc>"
        if image.caption is None and image.geo_location is None and image.title is None and image.license is None:
            return out + "</image:image>"
        if image.caption is not None:
            out += f"<image:caption>{escape(image.caption)}</image:caption>"
        if image.geo_location is not None:
            out += f"<image:geo_location>{escape(image.geo_location)}</image:geo_location>"
        if image.title is not None:
            out += f"<image:title>{escape(image.title)}</image:title>"
        if image.license is not None:
            out += f"<image:license>{escape(image.license)}</image:license>"
        self.warnings.add(SM601.code, f"deprecated image tag(s) {', '.join(image.deprecated_fields)} written", loc)
        return out + "</image:image>"

    def _video(self, v: Video, decl: str, loc: str) -> str:
        w = self.warnings
        if len(v.title) > _MAX_VIDEO_TITLE_XSD:
            w.add(SM604.code, f"video title is {len(v.title)} characters; the XSD allows "
                  f"{_MAX_VIDEO_TITLE_XSD}", loc)
        if len(v.description) > MAX_VIDEO_DESCRIPTION_LENGTH:
            raise _invalid("video.description", f"{len(v.description)} characters; at most "
                           f"{MAX_VIDEO_DESCRIPTION_LENGTH}", len(v.description))
        if len(v.tags) > MAX_VIDEO_TAGS:
            raise _invalid("video.tags", f"{len(v.tags)} tags; at most {MAX_VIDEO_TAGS}", len(v.tags))
        p = [f"<video:video{decl}><video:thumbnail_loc>{escape(v.thumbnail_loc)}</video:thumbnail_loc>"
             f"<video:title>{escape(v.title)}</video:title>"
             f"<video:description>{escape(v.description)}</video:description>"]
        if v.content_loc is not None:
            p.append(f"<video:content_loc>{escape(v.content_loc)}</video:content_loc>")
        if v.player_loc is not None:
            attrs = ""
            if v.player_allow_embed is not None:
                attrs += f' allow_embed="{_yes_no(v.player_allow_embed)}"'
            if v.player_autoplay is not None:
                attrs += f' autoplay="{escape(v.player_autoplay)}"'
            p.append(f"<video:player_loc{attrs}>{escape(v.player_loc)}</video:player_loc>")
        if v.duration is not None:
            if v.duration == 0:
                w.add(SM605.code, "video duration is 0 seconds; Google documents 1 to 28,800", loc)
            p.append(f"<video:duration>{v.duration}</video:duration>")
        if v.expiration_date is not None:
            p.append(f"<video:expiration_date>{_date(v.expiration_date, 'video.expiration_date', loc, w)}"
                     "</video:expiration_date>")
        if v.rating is not None:
            p.append(f"<video:rating>{format_decimal(v.rating)}</video:rating>")
        if v.view_count is not None:
            p.append(f"<video:view_count>{v.view_count}</video:view_count>")
        if v.publication_date is not None:
            p.append(f"<video:publication_date>{_date(v.publication_date, 'video.publication_date', loc, w)}"
                     "</video:publication_date>")
        for tag in v.tags:
            p.append(f"<video:tag>{escape(tag)}</video:tag>")
        if v.category is not None:
            if len(v.category) > 256:
                raise _invalid("video.category", "longer than 256 characters", v.category)
            p.append(f"<video:category>{escape(v.category)}</video:category>")
        if v.family_friendly is not None:
            p.append(f"<video:family_friendly>{_yes_no(v.family_friendly)}</video:family_friendly>")
        if v.restriction is not None:
            r = v.restriction
            for c in r.countries:
                if not _COUNTRIES(c):
                    raise _invalid("video.restriction", f"{c!r} is not an ISO 3166 code (two capital letters)", c)
            p.append(f'<video:restriction relationship="{r.relationship.value}">{" ".join(r.countries)}'
                     "</video:restriction>")
        if v.gallery_loc is not None:
            p.append(f"<video:gallery_loc>{escape(v.gallery_loc)}</video:gallery_loc>")
        for price in v.prices:
            if not _CURRENCY(price.currency):
                raise _invalid("video.price.currency", f"{price.currency!r} is not an ISO 4217 code",
                               price.currency)
            attrs = f' currency="{price.currency}"'
            if price.type is not None:
                if price.type not in _PRICE_TYPES:
                    raise _invalid("video.price.type", f"{price.type!r}; expected purchase or rent", price.type)
                attrs += f' type="{price.type}"'
            if price.resolution is not None:
                if price.resolution not in _RESOLUTIONS:
                    raise _invalid("video.price.resolution", f"{price.resolution!r}; expected sd or hd",
                                   price.resolution)
                attrs += f' resolution="{price.resolution}"'
            p.append(f"<video:price{attrs}>{format_decimal(price.value)}</video:price>")
        if v.requires_subscription is not None:
            p.append(f"<video:requires_subscription>{_yes_no(v.requires_subscription)}"
                     "</video:requires_subscription>")
        if v.uploader is not None:
            u = v.uploader
            if len(u.name) > 255:
                raise _invalid("video.uploader", "longer than 255 characters", u.name)
            info = f' info="{escape(u.info)}"' if u.info is not None else ""
            p.append(f"<video:uploader{info}>{escape(u.name)}</video:uploader>")
        if v.tvshow is not None:
            p.append(self._tvshow(v, loc))
        if v.platform is not None:
            pl = v.platform
            for name in pl.platforms:
                if name not in ("web", "mobile", "tv"):
                    raise _invalid("video.platform", f"{name!r}; expected web, mobile or tv", name)
            p.append(f'<video:platform relationship="{pl.relationship.value}">{" ".join(pl.platforms)}'
                     "</video:platform>")
        if v.live is not None:
            p.append(f"<video:live>{_yes_no(v.live)}</video:live>")
        deprecated = v.deprecated_fields
        if deprecated:
            w.add(SM602.code, f"deprecated video tag(s) {', '.join(deprecated)} written", loc)
        p.append("</video:video>")
        return "".join(p)

    def _tvshow(self, v: Video, loc: str) -> str:
        t = v.tvshow
        assert t is not None
        if t.video_type not in _VIDEO_TYPES:
            raise _invalid("video.tvshow.video_type", f"{t.video_type!r}; the XSD requires one of "
                           f"{', '.join(sorted(_VIDEO_TYPES))}", t.video_type)
        out = (f"<video:tvshow><video:show_title>{escape(t.show_title)}</video:show_title>"
               f"<video:video_type>{t.video_type}</video:video_type>")
        if t.episode_title is not None:
            out += f"<video:episode_title>{escape(t.episode_title)}</video:episode_title>"
        for name, number in (("season_number", t.season_number), ("episode_number", t.episode_number)):
            if number is not None:
                if int(number) < 1:
                    raise _invalid(f"video.tvshow.{name}", "must be 1 or more", number)
                out += f"<video:{name}>{int(number)}</video:{name}>"
        if t.premier_date is not None:
            out += (f"<video:premier_date>{_date(t.premier_date, 'video.tvshow.premier_date', loc, self.warnings)}"
                    "</video:premier_date>")
        return out + "</video:tvshow>"

    def _news(self, n: News, decl: str, loc: str) -> str:
        if not _NEWS_LANGUAGE(n.publication_language):
            raise _invalid("news.publication_language", f"{n.publication_language!r}; expected an ISO 639 "
                           "code in lower case (2 or 3 letters) or zh-cn / zh-tw", n.publication_language)
        out = (f"<news:news{decl}><news:publication><news:name>{escape(n.publication_name)}</news:name>"
               f"<news:language>{n.publication_language}</news:language></news:publication>")
        if n.access is not None:
            if n.access not in _NEWS_ACCESS:
                raise _invalid("news.access", f"{n.access!r}; expected Subscription or Registration", n.access)
            out += f"<news:access>{n.access}</news:access>"
        if n.genres:
            bad = [g for g in n.genres if g not in _GENRES]
            if bad:
                raise _invalid("news.genres", f"{bad[0]!r}; expected {', '.join(sorted(_GENRES))}", bad[0])
            out += f"<news:genres>{', '.join(n.genres)}</news:genres>"
        out += (f"<news:publication_date>{_date(n.publication_date, 'news.publication_date', loc, self.warnings)}"
                f"</news:publication_date><news:title>{escape(n.title)}</news:title>")
        if n.keywords:
            out += f"<news:keywords>{escape(', '.join(n.keywords))}</news:keywords>"
        if n.stock_tickers:
            if len(n.stock_tickers) > 5:
                raise _invalid("news.stock_tickers", f"{len(n.stock_tickers)} tickers; at most 5",
                               n.stock_tickers)
            for ticker in n.stock_tickers:
                if not _TICKER(ticker):
                    raise _invalid("news.stock_tickers", f"{ticker!r}; expected EXCHANGE:SYMBOL", ticker)
            out += f"<news:stock_tickers>{', '.join(n.stock_tickers)}</news:stock_tickers>"
        return out + "</news:news>"
