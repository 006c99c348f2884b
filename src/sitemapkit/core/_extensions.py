"""The extension parts of an entry: images, videos, news and hreflang alternates (sitemaps.org's urlset carries
them in Google's image, video and news namespaces and XHTML links).

Frozen, slotted dataclasses, like :class:`~sitemapkit.core.UrlEntry` (``_model.py``), which holds them. Also here:
the field checks both modules share, and the fast constructors for the reader's hot path (``canonical_image``,
``canonical_alternate``): they fill a plain slotted twin of the class and set ``__class__``, skipping the frozen
dataclass ``__init__`` for values already in canonical form.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sitemapkit.core._errors import InvalidEntryError, InvalidValueError
from sitemapkit.core._lastmod import LastMod
from sitemapkit.core._limits import MAX_LOC_LENGTH, MAX_VIDEO_DURATION
from sitemapkit.core._urls import SIMPLE_URI, normalize_loc

__all__ = [
    "Alternate",
    "Image",
    "News",
    "Relationship",
    "Video",
    "VideoPlatform",
    "VideoPrice",
    "VideoRestriction",
    "VideoTvShow",
    "VideoUploader",
    "canonical_alternate",
    "canonical_image",
    "make_alternate",
    "plain_image",
]

_simple_uri = SIMPLE_URI.fullmatch


class Relationship(enum.Enum):
    """``relationship`` attribute of video restriction / platform."""

    ALLOW = "allow"
    DENY = "deny"


# --- field checks (shared with _model.py) -------------------------------------------------------------------

def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


def _lastmod(obj: object, name: str, value: object, where: str) -> None:
    if value is None or isinstance(value, LastMod):
        return
    try:
        _set(obj, name, LastMod.of(value))  # type: ignore[arg-type]
    except InvalidValueError as exc:
        raise InvalidEntryError(f"{where}: {exc}", field=where, value=value) from None


def _required_text(value: object, where: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidEntryError(f"{where} is required and must be non-empty text", field=where, value=value)


def _tuple(obj: object, name: str, value: Iterable[object]) -> None:
    if not isinstance(value, tuple):
        _set(obj, name, tuple(value))


def _enum(obj: object, name: str, value: object, cls: type[enum.Enum], where: str) -> None:
    if value is None or isinstance(value, cls):
        return
    try:
        _set(obj, name, cls(str(value).strip().lower()))
    except ValueError:
        allowed = ", ".join(str(m.value) for m in cls)
        raise InvalidEntryError(f"{where} must be one of {allowed}; got {value!r}", field=where,
                                value=value) from None


def _number(value: object, where: str, lo: float, hi: float) -> float:
    try:
        f = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidEntryError(f"{where} must be a number, got {value!r}", field=where, value=value) from None
    if math.isnan(f) or not lo <= f <= hi:
        raise InvalidEntryError(f"{where} must be between {lo:g} and {hi:g}, got {value!r}", field=where,
                                value=value)
    return f


@dataclass(frozen=True, slots=True)
class Alternate:
    """An ``<xhtml:link rel="alternate" hreflang=… href=…>``: a language/region version of the page.

    Example: ``UrlEntry("https://example.com/", alternates=[Alternate("de", "https://example.com/de/")])``.
    """

    hreflang: str
    href: str

    def __post_init__(self) -> None:
        _required_text(self.hreflang, "alternate.hreflang")
        _set(self, "hreflang", self.hreflang.strip())
        _set(self, "href", normalize_loc(self.href, field="alternate.href"))


@dataclass(frozen=True, slots=True)
class Image:
    """``<image:image>``. Only ``loc`` is current; the other four were deprecated by Google in 2022 and are
    still written on request (with a warning from the writer).

    Example: ``UrlEntry("https://example.com/p", images=[Image("https://cdn.example.com/p.jpg")])``.
    """

    loc: str
    caption: str | None = None
    geo_location: str | None = None
    title: str | None = None
    license: str | None = None

    def __post_init__(self) -> None:
        _set(self, "loc", normalize_loc(self.loc, field="image.loc"))
        if self.license is not None:
            _set(self, "license", normalize_loc(self.license, field="image.license"))

    @property
    def deprecated_fields(self) -> tuple[str, ...]:
        return tuple(n for n in ("caption", "geo_location", "title", "license") if getattr(self, n) is not None)


@dataclass(frozen=True, slots=True)
class VideoRestriction:
    """``<video:restriction relationship=…>``: space-separated ISO 3166 country codes."""

    relationship: Relationship
    countries: tuple[str, ...]

    def __post_init__(self) -> None:
        _enum(self, "relationship", self.relationship, Relationship, "video.restriction.relationship")
        countries: object = self.countries
        if isinstance(countries, str):
            _set(self, "countries", tuple(countries.split()))
        _tuple(self, "countries", self.countries)


@dataclass(frozen=True, slots=True)
class VideoPlatform:
    """``<video:platform relationship=…>``: any of ``web``, ``mobile``, ``tv``."""

    relationship: Relationship
    platforms: tuple[str, ...]

    def __post_init__(self) -> None:
        _enum(self, "relationship", self.relationship, Relationship, "video.platform.relationship")
        platforms: object = self.platforms
        if isinstance(platforms, str):
            _set(self, "platforms", tuple(platforms.split()))
        _tuple(self, "platforms", self.platforms)


@dataclass(frozen=True, slots=True)
class VideoUploader:
    """``<video:uploader info=…>name</video:uploader>``."""

    name: str
    info: str | None = None

    def __post_init__(self) -> None:
        _required_text(self.name, "video.uploader")
        if self.info is not None:
            _set(self, "info", normalize_loc(self.info, field="video.uploader.info"))


@dataclass(frozen=True, slots=True)
class VideoPrice:
    """``<video:price currency=… type=… resolution=…>`` (deprecated by Google in 2022)."""

    value: float
    currency: str
    type: str | None = None
    resolution: str | None = None

    def __post_init__(self) -> None:
        _set(self, "value", _number(self.value, "video.price", 0.0, math.inf))
        _required_text(self.currency, "video.price.currency")


@dataclass(frozen=True, slots=True)
class VideoTvShow:
    """``<video:tvshow>`` (deprecated by Google in 2022)."""

    show_title: str
    video_type: str | None = None
    episode_title: str | None = None
    season_number: int | None = None
    episode_number: int | None = None
    premier_date: LastMod | None = None

    def __post_init__(self) -> None:
        _required_text(self.show_title, "video.tvshow.show_title")
        _lastmod(self, "premier_date", self.premier_date, "video.tvshow.premier_date")


@dataclass(frozen=True, slots=True)
class Video:
    """``<video:video>`` with every field Google documents (RULES.md 22), plus the deprecated ones.

    Required: thumbnail_loc, title, description, and content_loc or player_loc.

    Example: ``Video("https://example.com/t.jpg", "Title", "Description", content_loc="https://example.com/v.mp4")``
    in ``UrlEntry(loc, videos=[...])``.
    """

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    duration: int | None = None
    expiration_date: LastMod | None = None
    rating: float | None = None
    view_count: int | None = None
    publication_date: LastMod | None = None
    family_friendly: bool | None = None
    restriction: VideoRestriction | None = None
    platform: VideoPlatform | None = None
    requires_subscription: bool | None = None
    uploader: VideoUploader | None = None
    live: bool | None = None
    tags: tuple[str, ...] = ()
    # Deprecated by Google in 2022; still in the XSD.
    category: str | None = None
    gallery_loc: str | None = None
    prices: tuple[VideoPrice, ...] = ()
    tvshow: VideoTvShow | None = None
    player_allow_embed: bool | None = None
    player_autoplay: str | None = None

    def __post_init__(self) -> None:
        _set(self, "thumbnail_loc", normalize_loc(self.thumbnail_loc, field="video.thumbnail_loc"))
        _required_text(self.title, "video.title")
        _required_text(self.description, "video.description")
        if self.content_loc is None and self.player_loc is None:
            raise InvalidEntryError("video needs content_loc or player_loc", field="video.content_loc")
        if self.content_loc is not None:
            _set(self, "content_loc", normalize_loc(self.content_loc, field="video.content_loc"))
        if self.player_loc is not None:
            _set(self, "player_loc", normalize_loc(self.player_loc, field="video.player_loc"))
        if self.gallery_loc is not None:
            _set(self, "gallery_loc", normalize_loc(self.gallery_loc, field="video.gallery_loc"))
        if self.duration is not None:
            _set(self, "duration", int(_number(self.duration, "video.duration", 0, MAX_VIDEO_DURATION)))
        if self.rating is not None:
            _set(self, "rating", _number(self.rating, "video.rating", 0.0, 5.0))
        if self.view_count is not None:
            _set(self, "view_count", int(_number(self.view_count, "video.view_count", 0, math.inf)))
        _lastmod(self, "expiration_date", self.expiration_date, "video.expiration_date")
        _lastmod(self, "publication_date", self.publication_date, "video.publication_date")
        _tuple(self, "tags", self.tags)
        _tuple(self, "prices", self.prices)

    @property
    def deprecated_fields(self) -> tuple[str, ...]:
        names = [n for n in ("category", "gallery_loc", "tvshow", "player_allow_embed", "player_autoplay")
                 if getattr(self, n) is not None]
        if self.prices:
            names.append("prices")
        return tuple(names)


@dataclass(frozen=True, slots=True)
class News:
    """``<news:news>``: required publication name and language, publication date and title (RULES.md 23).
    ``access``, ``genres``, ``keywords`` and ``stock_tickers`` remain in the XSD but not in Google's docs.

    Example: ``UrlEntry(loc, news=News("The Example Times", "en", LastMod("2024-05-01"), "A title"))``.
    """

    publication_name: str
    publication_language: str
    publication_date: LastMod
    title: str
    access: str | None = None
    genres: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    stock_tickers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _required_text(self.publication_name, "news.publication_name")
        _required_text(self.publication_language, "news.publication_language")
        _required_text(self.title, "news.title")
        if self.publication_date is None:
            raise InvalidEntryError("news.publication_date is required", field="news.publication_date")
        _lastmod(self, "publication_date", self.publication_date, "news.publication_date")
        for name in ("genres", "keywords", "stock_tickers"):
            value = getattr(self, name)
            if isinstance(value, str):
                _set(self, name, tuple(v.strip() for v in value.split(",") if v.strip()))
            else:
                _tuple(self, name, value)


# --- construction without the frozen-dataclass __init__ (see canonical_url_entry in _model.py) -----------


def _twin(cls: type[Any]) -> type[Any]:
    twin = type(f"_{cls.__name__}Fields", (), {"__slots__": cls.__slots__})
    probe = twin()
    probe.__class__ = cls  # raises TypeError at import if the layouts ever differ
    return twin


_ImageFields = _twin(Image)
_AlternateFields = _twin(Alternate)


def canonical_image(loc: str) -> Image | None:
    """``Image(loc)`` built without the dataclass ``__init__`` when ``loc`` is canonical; None otherwise."""
    if loc.__class__ is not str or len(loc) > MAX_LOC_LENGTH or _simple_uri(loc) is None:
        return None
    img = _ImageFields()
    img.loc = loc
    img.caption = img.geo_location = img.title = img.license = None
    img.__class__ = Image
    return img  # type: ignore[no-any-return]


def plain_image(loc: str) -> Image:
    """``Image(loc)`` (no deprecated fields); without the dataclass ``__init__`` when ``loc`` is canonical."""
    img = canonical_image(loc)
    return img if img is not None else Image(loc)


def canonical_alternate(hreflang: str, href: str) -> Alternate | None:
    """``Alternate(hreflang, href)`` built without the dataclass ``__init__`` when ``hreflang`` is non-blank text
    without surrounding whitespace and ``href`` is canonical; None otherwise."""
    if (hreflang.__class__ is not str or not hreflang or hreflang.strip() != hreflang
            or href.__class__ is not str or len(href) > MAX_LOC_LENGTH or _simple_uri(href) is None):
        return None
    alt = _AlternateFields()
    alt.hreflang = hreflang
    alt.href = href
    alt.__class__ = Alternate
    return alt  # type: ignore[no-any-return]


def make_alternate(hreflang: str, href: str) -> Alternate:
    """``Alternate(hreflang, href)``; without the dataclass ``__init__`` when the values are canonical."""
    alt = canonical_alternate(hreflang, href)
    return alt if alt is not None else Alternate(hreflang, href)
