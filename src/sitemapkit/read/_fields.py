"""The XML engine's readers of extension elements: image, video, news and xhtml:link alternates.

A mixin of :class:`~sitemapkit.read._xml.XmlEngine`: each reader turns one extension element (an lxml element,
complete) into a model object, raises :class:`_Bad` when the element cannot become one (the engine reports it and
drops the element) and reports a dropped optional field through :class:`_Warner`. Also the small element helpers the
engine's modules share (``_split``, ``_text``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from sitemapkit.core import (
    MAX_VIDEO_DURATION,
    Alternate,
    Image,
    InvalidEntryError,
    LastMod,
    News,
    Relationship,
    Video,
    VideoPlatform,
    VideoPrice,
    VideoRestriction,
    VideoTvShow,
    VideoUploader,
    make_alternate,
    normalize_loc,
    parse_lastmod_lenient,
    plain_image,
)
from sitemapkit.read import _codes as C
from sitemapkit.read._owner import Owner

__all__ = ["IMAGE_NS", "MOBILE_NS", "NEWS_NS", "VIDEO_NS", "XHTML_NS", "ExtensionReaders"]

T = TypeVar("T")

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"
XHTML_NS = "http://www.w3.org/1999/xhtml"
_IMAGE_FIELDS = frozenset({"loc", "caption", "geo_location", "title", "license"})
#: Most entries of each per-document memo (element names, dates, priorities): a document inventing values cannot
#: grow them.
_CACHE_SIZE = 4096


def _split(tag: object) -> tuple[str | None, str]:
    if not isinstance(tag, str):  # comments, PIs, entity references
        return None, ""
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return None, tag

def _text(el: Any) -> str:
    """The element's text content (CDATA included; child elements' text appended, as lenient readers do)."""
    if len(el):
        return "".join(el.itertext())
    t: str | None = el.text
    return t if t is not None else ""

class _Warner:
    """Reports a dropped field of an extension element (built per element, called only when needed)."""

    __slots__ = ("el", "engine", "loc", "name")

    def __init__(self, engine: ExtensionReaders, el: Any, loc: str, name: str) -> None:
        self.engine, self.el, self.loc, self.name = engine, el, loc, name

    def __call__(self, message: str) -> None:
        e = self.engine
        e.o.problem(C.BAD_EXTENSION, f"<{self.name}> field dropped: {message}", e._line(self.el), None, self.loc)


class _Bad(Exception):
    """An extension element that cannot become a model object (message says why)."""

class ExtensionReaders:
    """Readers of extension elements (mixed into the XML engine, whose state they use)."""

    o: Owner
    _local: dict[object, str]
    _line_offset: int

    def _line(self, el: Any) -> int | None:
        line: int | None = el.sourceline
        return line + self._line_offset if line is not None else None

    @staticmethod
    def _fields(el: Any) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for c in el:
            _ns, local = _split(c.tag)
            if local:
                out.setdefault(local.lower(), []).append(c)
        return out

    def _image(self, el: Any, url: str) -> Image:
        # Direct child loop (no generic field dict): 2 images per URL is common, this runs a lot.
        if len(el) == 1:  # the common <image:image><image:loc>URL</image:loc></image:image>
            c = el[0]
            t = c.text
            if t is not None and self._local.get(c.tag) == "loc" and not len(c):
                t = t.strip()
                if t:
                    return plain_image(t)
        fields: dict[str, str] = {}
        for c in el:
            local = self._local.get(c.tag)
            if local is None:
                local = self._local_name(c.tag)
            if local in _IMAGE_FIELDS and local not in fields:
                t = c.text
                if t is None or t.isspace():
                    t = _text(c)
                t = t.strip()
                if t:
                    fields[local] = t
        loc = fields.get("loc")
        if loc is None:
            raise _Bad("image:loc is required")
        if len(fields) == 1:
            return plain_image(loc)
        license_ = fields.get("license")
        if license_ is not None:
            try:
                license_ = normalize_loc(license_, field="image:license")
            except InvalidEntryError as exc:
                _Warner(self, el, url, "image")(f"{exc}; the license is left out")
                license_ = None
        return Image(loc, fields.get("caption"), fields.get("geo_location"), fields.get("title"), license_)

    def _local_name(self, tag: object) -> str:
        local = _split(tag)[1].lower()
        if isinstance(tag, str):
            if len(self._local) >= _CACHE_SIZE:
                self._local.clear()
            self._local[tag] = local
        return local

    def _date(self, text: str | None, what: str) -> LastMod | None:
        if text is None:
            return None
        value = parse_lastmod_lenient(text)
        if value is None:
            raise _Bad(f"unreadable {what} {text!r}")
        return value

    @staticmethod
    def _yes_no(text: str | None, what: str) -> bool | None:
        if text is None:
            return None
        t = text.strip().lower()
        if t in ("yes", "true"):
            return True
        if t in ("no", "false"):
            return False
        raise _Bad(f"{what} must be yes or no, got {text.strip()!r}")

    @staticmethod
    def _int(text: str | None, what: str, lo: float = 0, hi: float = math.inf) -> int | None:
        if text is None:
            return None
        value = _float(text, what, lo, hi)
        return None if value is None else int(value)

    def _video(self, el: Any, warn: Callable[[str], None]) -> Video:
        """Build a Video; a missing required field drops the video (raises), a bad optional one is left out
        (``warn`` says which)."""
        f = self._fields(el)

        def one(name: str) -> str | None:
            v = f.get(name)
            if not v:
                return None
            t = _text(v[0]).strip()
            return t or None

        def opt(fn: Callable[..., T], *args: Any) -> T | None:
            try:
                return fn(*args)
            except (_Bad, InvalidEntryError) as exc:
                warn(str(exc))
                return None

        for req in ("thumbnail_loc", "title", "description"):
            if one(req) is None:
                raise _Bad(f"video:{req} is required")
        player = f.get("player_loc")
        player_el = player[0] if player else None
        restriction = platform = uploader = tvshow = None
        if f.get("restriction"):
            r = f["restriction"][0]
            restriction = opt(lambda: VideoRestriction(_relationship(r), tuple(_text(r).split())))
        if f.get("platform"):
            r2 = f["platform"][0]
            platform = opt(lambda: VideoPlatform(_relationship(r2), tuple(_text(r2).split())))
        if f.get("uploader"):
            u = f["uploader"][0]
            uploader = opt(lambda: VideoUploader(_text(u).strip(), (u.get("info") or "").strip() or None))
        prices = []
        for p in f.get("price", ()):
            price = opt(_price, p)
            if price is not None:
                prices.append(price)
        if f.get("tvshow"):
            tf = self._fields(f["tvshow"][0])

            def tv(name: str) -> str | None:
                v = tf.get(name)
                return (_text(v[0]).strip() or None) if v else None

            tvshow = opt(lambda: VideoTvShow(
                tv("show_title") or "", tv("video_type"), tv("episode_title"),
                opt(self._int, tv("season_number"), "video:season_number"),
                opt(self._int, tv("episode_number"), "video:episode_number"),
                opt(self._date, tv("premier_date"), "video:premier_date")))
        player_allow_embed = None
        if player_el is not None:
            player_allow_embed = opt(self._yes_no, player_el.get("allow_embed"), "video:player_loc@allow_embed")
        return Video(
            thumbnail_loc=one("thumbnail_loc") or "",
            title=one("title") or "",
            description=one("description") or "",
            content_loc=one("content_loc"),
            player_loc=one("player_loc"),
            duration=opt(self._int, one("duration"), "video:duration", 0, MAX_VIDEO_DURATION),
            expiration_date=opt(self._date, one("expiration_date"), "video:expiration_date"),
            rating=opt(_float, one("rating"), "video:rating", 0.0, 5.0),
            view_count=opt(self._int, one("view_count"), "video:view_count"),
            publication_date=opt(self._date, one("publication_date"), "video:publication_date"),
            family_friendly=opt(self._yes_no, one("family_friendly"), "video:family_friendly"),
            restriction=restriction,
            platform=platform,
            requires_subscription=opt(self._yes_no, one("requires_subscription"), "video:requires_subscription"),
            uploader=uploader,
            live=opt(self._yes_no, one("live"), "video:live"),
            tags=tuple(t for t in (_text(c).strip() for c in f.get("tag", ())) if t),
            category=one("category"),
            gallery_loc=opt(_url_or_bad, one("gallery_loc"), "video:gallery_loc"),
            prices=tuple(prices),
            tvshow=tvshow,
            player_allow_embed=player_allow_embed,
            player_autoplay=player_el.get("autoplay") if player_el is not None else None,
        )

    def _news(self, el: Any) -> News:
        f = self._fields(el)

        def one(fields: dict[str, list[Any]], name: str) -> str | None:
            v = fields.get(name)
            return (_text(v[0]).strip() or None) if v else None

        pub = self._fields(f["publication"][0]) if f.get("publication") else {}
        date_text = one(f, "publication_date")
        if date_text is None:
            raise _Bad("news:publication_date is required")
        return News(
            publication_name=one(pub, "name") or "",
            publication_language=one(pub, "language") or "",
            publication_date=self._date(date_text, "news:publication_date"),  # type: ignore[arg-type]
            title=one(f, "title") or "",
            access=one(f, "access"),
            genres=one(f, "genres") or (),  # type: ignore[arg-type]
            keywords=one(f, "keywords") or (),  # type: ignore[arg-type]
            stock_tickers=one(f, "stock_tickers") or (),  # type: ignore[arg-type]
        )

    @staticmethod
    def _alternate(el: Any) -> Alternate | None:
        get = el.get
        rel = get("rel")
        if rel != "alternate" and (rel or "").strip().lower() != "alternate":
            return None  # other xhtml:link relations carry no page version
        hreflang = get("hreflang")
        href = get("href")
        if not hreflang or not href or hreflang.isspace() or href.isspace():
            raise _Bad("xhtml:link rel=alternate needs hreflang and href")
        return make_alternate(hreflang, href)


def _float(text: str | None, what: str, lo: float = -math.inf, hi: float = math.inf) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        raise _Bad(f"{what} must be a number, got {text.strip()!r}") from None
    if not lo <= value <= hi:
        raise _Bad(f"{what} must be between {lo:g} and {hi:g}, got {text.strip()!r}")
    return value


def _price(el: Any) -> VideoPrice:
    value = _float(_text(el), "video:price", 0.0)
    if value is None:
        raise _Bad("video:price is empty")
    return VideoPrice(value, (el.get("currency") or "").strip(), el.get("type"), el.get("resolution"))


def _url_or_bad(text: str | None, what: str) -> str | None:
    if text is None:
        return None
    return normalize_loc(text, field=what)


def _relationship(el: Any) -> Relationship:
    value = (el.get("relationship") or "").strip().lower()
    try:
        return Relationship(value)
    except ValueError:
        raise _Bad(f"relationship must be allow or deny, got {value!r}") from None

