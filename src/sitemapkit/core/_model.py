"""The entry model shared by writers, readers, the validator and the crawler.

Frozen, slotted dataclasses. Building one with values that break the protocol raises
:class:`~sitemapkit.InvalidEntryError`; locs are normalised (IRI -> URI, surrounding whitespace stripped) on the
way in, so two entries for the same URL compare equal however they were written.

``to_dict`` / ``from_dict`` define the JSON form used by ``sitemapkit urls --format jsonl`` and accepted by
``sitemapkit generate``: field names are the dataclass field names, lastmod values are W3C strings, enums their
values, tuples lists.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any, TypeVar

from sitemapkit.core._errors import InvalidEntryError, InvalidValueError
from sitemapkit.core._lastmod import LastMod
from sitemapkit.core._limits import MAX_LOC_LENGTH, MAX_VIDEO_DURATION
from sitemapkit.core._urls import SIMPLE_URI, normalize_loc

__all__ = [
    "Alternate",
    "Changefreq",
    "Image",
    "News",
    "Relationship",
    "SitemapRef",
    "UrlEntry",
    "Video",
    "VideoPlatform",
    "VideoPrice",
    "VideoRestriction",
    "VideoTvShow",
    "VideoUploader",
    "entry_from_dict",
    "entry_to_dict",
]

LastModInput = LastMod | datetime | date | str
_simple_uri = SIMPLE_URI.fullmatch


class Changefreq(enum.Enum):
    """How often a page is likely to change (a hint; Google ignores it)."""

    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"

    def __str__(self) -> str:
        return self.value


class Relationship(enum.Enum):
    """``relationship`` attribute of video restriction / platform."""

    ALLOW = "allow"
    DENY = "deny"


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
    """An ``<xhtml:link rel="alternate" hreflang=… href=…>``: a language/region version of the page."""

    hreflang: str
    href: str

    def __post_init__(self) -> None:
        _required_text(self.hreflang, "alternate.hreflang")
        _set(self, "hreflang", self.hreflang.strip())
        _set(self, "href", normalize_loc(self.href, field="alternate.href"))


@dataclass(frozen=True, slots=True)
class Image:
    """``<image:image>``. Only ``loc`` is current; the other four were deprecated by Google in 2022 and are
    still written on request (with a warning from the writer)."""

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

    Required: thumbnail_loc, title, description, and content_loc or player_loc."""

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
    ``access``, ``genres``, ``keywords`` and ``stock_tickers`` remain in the XSD but not in Google's docs."""

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


@dataclass(frozen=True, slots=True, init=False)
class UrlEntry:
    """One ``<url>`` of a urlset: the page and everything the extensions say about it.

    The constructor accepts convenient inputs and stores canonical values: ``lastmod`` as a :class:`LastMod`
    (from a ``datetime``, ``date`` or W3C string), ``changefreq`` as a :class:`Changefreq` (from its name),
    ``priority`` as a float, sequences as tuples, and ``loc`` as a URI."""

    loc: str
    lastmod: LastMod | None = None
    changefreq: Changefreq | None = None
    priority: float | None = None
    images: tuple[Image, ...] = ()
    videos: tuple[Video, ...] = ()
    news: News | None = None
    alternates: tuple[Alternate, ...] = ()
    mobile: bool = False

    def __init__(
        self,
        loc: str,
        lastmod: LastModInput | None = None,
        changefreq: Changefreq | str | None = None,
        priority: float | str | None = None,
        images: Iterable[Image] = (),
        videos: Iterable[Video] = (),
        news: News | None = None,
        alternates: Iterable[Alternate] = (),
        mobile: bool = False,
    ) -> None:
        # Written by hand instead of generated: the generated frozen __init__ stores each field through
        # object.__setattr__ (a global and an attribute lookup per field); the slot setters bound once below are
        # ~0.5 us cheaper per entry, which is a tenth of the writer's whole per-URL cost. Same fields, same order.
        _set_loc(self, loc)
        _set_lastmod(self, lastmod)
        _set_changefreq(self, changefreq)
        _set_priority(self, priority)
        _set_images(self, images)
        _set_videos(self, videos)
        _set_news(self, news)
        _set_alternates(self, alternates)
        _set_mobile(self, mobile)
        self.__post_init__()

    def __post_init__(self) -> None:
        # Hot path of every reader and writer: values that are already in canonical form (a plain URI, a
        # LastMod, a Changefreq, a float in range, tuples) are accepted with a type check and nothing more.
        loc = self.loc
        if loc.__class__ is not str or len(loc) > MAX_LOC_LENGTH or _simple_uri(loc) is None:
            _set(self, "loc", normalize_loc(loc))
        if self.lastmod is not None and self.lastmod.__class__ is not LastMod:
            _lastmod(self, "lastmod", self.lastmod, "lastmod")
        if self.changefreq is not None and self.changefreq.__class__ is not Changefreq:
            _enum(self, "changefreq", self.changefreq, Changefreq, "changefreq")
        p = self.priority
        if p is not None and not (p.__class__ is float and 0.0 <= p <= 1.0):
            _set(self, "priority", _number(p, "priority", 0.0, 1.0))
        if self.images.__class__ is not tuple:
            _tuple(self, "images", self.images)
        if self.videos.__class__ is not tuple:
            _tuple(self, "videos", self.videos)
        if self.alternates.__class__ is not tuple:
            _tuple(self, "alternates", self.alternates)


(_set_loc, _set_lastmod, _set_changefreq, _set_priority, _set_images, _set_videos, _set_news, _set_alternates,
 _set_mobile) = (UrlEntry.__dict__[f.name].__set__ for f in fields(UrlEntry))


@dataclass(frozen=True, slots=True)
class SitemapRef:
    """One ``<sitemap>`` of a sitemap index: where a child sitemap is, and when that file last changed."""

    loc: str
    lastmod: LastMod | None = None

    def __post_init__(self) -> None:
        loc = self.loc
        if loc.__class__ is not str or len(loc) > MAX_LOC_LENGTH or _simple_uri(loc) is None:
            _set(self, "loc", normalize_loc(loc))
        if self.lastmod is not None and self.lastmod.__class__ is not LastMod:
            _lastmod(self, "lastmod", self.lastmod, "lastmod")


# --- construction without the frozen-dataclass __init__ (the reader's hot path) ----------------------------
# A frozen dataclass's generated __init__ writes each field through object.__setattr__ and then runs
# __post_init__: ~2.2 us for a UrlEntry whose values are already canonical. These builders produce exactly what
# the constructors would, for values in the form the constructors accept unchanged, and fall back to the
# constructors (full checks, same errors) for anything else. They fill a plain slotted twin of the class (same
# slots in the same order, so the same memory layout) with ordinary attribute stores and then set ``__class__``:
# ~0.3 us for a UrlEntry (writing the frozen class's slot descriptors one call at a time costs ~0.5 us).


def _twin(cls: type[Any]) -> type[Any]:
    twin = type(f"_{cls.__name__}Fields", (), {"__slots__": cls.__slots__})
    probe = twin()
    probe.__class__ = cls  # raises TypeError at import if the layouts ever differ
    return twin


_UrlEntryFields = _twin(UrlEntry)
_ImageFields = _twin(Image)
_AlternateFields = _twin(Alternate)


def is_canonical_loc(loc: str) -> bool:
    """True when ``normalize_loc(loc)`` would return ``loc`` itself (a plain ASCII URI within the length limit)."""
    return loc.__class__ is str and len(loc) <= MAX_LOC_LENGTH and _simple_uri(loc) is not None


def canonical_url_entry(
    loc: str,
    lastmod: LastMod | None,
    changefreq: Changefreq | None,
    priority: float | None,
    images: tuple[Image, ...] = (),
    videos: tuple[Video, ...] = (),
    news: News | None = None,
    alternates: tuple[Alternate, ...] = (),
    mobile: bool = False,
) -> UrlEntry:
    """``UrlEntry(loc, lastmod, ...)`` for a caller that has checked ``is_canonical_loc(loc)``: every other value
    is checked here exactly as ``UrlEntry.__post_init__`` checks it, and anything not already canonical goes
    through the constructor."""
    if (
        (lastmod is None or lastmod.__class__ is LastMod)
        and (changefreq is None or changefreq.__class__ is Changefreq)
        and (priority is None or (priority.__class__ is float and 0.0 <= priority <= 1.0))
        and images.__class__ is tuple and videos.__class__ is tuple and alternates.__class__ is tuple
    ):
        e = _UrlEntryFields()
        e.loc = loc
        e.lastmod = lastmod
        e.changefreq = changefreq
        e.priority = priority
        e.images = images
        e.videos = videos
        e.news = news
        e.alternates = alternates
        e.mobile = mobile
        e.__class__ = UrlEntry
        return e  # type: ignore[no-any-return]
    return UrlEntry(loc, lastmod, changefreq, priority, images, videos, news, alternates, mobile)


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


# --- JSON form -------------------------------------------------------------------------------------------

def _jsonable(value: object) -> object:
    if isinstance(value, LastMod):
        return value.text
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _jsonable(getattr(value, f.name)) for f in fields(value)}  # type: ignore[arg-type]
    return value


def entry_to_dict(entry: UrlEntry | SitemapRef) -> dict[str, Any]:
    """The JSON object for an entry (``kind`` is ``"url"`` or ``"sitemap"``)."""
    d = _jsonable(entry)
    assert isinstance(d, dict)
    d["kind"] = "url" if isinstance(entry, UrlEntry) else "sitemap"
    return d


T = TypeVar("T")


def _build(cls: type[T], data: object, where: str) -> T:
    if isinstance(data, cls):
        return data
    if not isinstance(data, Mapping):
        raise InvalidEntryError(f"{where} must be an object, got {type(data).__name__}", field=where, value=data)
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = set(data) - known
    if unknown:
        raise InvalidEntryError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}", field=where,
                                value=data)
    kwargs = {k: v for k, v in data.items() if v is not None}
    sub: dict[str, type[Any]] = _NESTED.get(cls, {})
    for name, subcls in sub.items():
        if name in kwargs:
            v = kwargs[name]
            if name in _LISTS:
                if not isinstance(v, Iterable) or isinstance(v, (str, Mapping)):
                    raise InvalidEntryError(f"{where}.{name} must be a list", field=f"{where}.{name}", value=v)
                kwargs[name] = tuple(_build(subcls, item, f"{where}.{name}") for item in v)
            else:
                kwargs[name] = _build(subcls, v, f"{where}.{name}")
    for name in ("tags", "countries", "platforms", "genres", "keywords", "stock_tickers"):
        if name in kwargs and isinstance(kwargs[name], list):
            kwargs[name] = tuple(kwargs[name])
    try:
        return cls(**kwargs)
    except TypeError as exc:
        import inspect

        required = [p.name for p in inspect.signature(cls).parameters.values()
                    if p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD
                    and p.kind is not inspect.Parameter.VAR_POSITIONAL and p.name not in kwargs]
        if required:
            fields_text = ", ".join(f'"{name}"' for name in required)
            raise InvalidEntryError(f"{where}: no {fields_text} field{'s' if len(required) > 1 else ''}",
                                    field=where, value=data) from None
        raise InvalidEntryError(f"{where}: {exc}", field=where, value=data) from None


_LISTS = {"images", "videos", "alternates", "prices"}
_NESTED: dict[type[Any], dict[str, type[Any]]] = {
    UrlEntry: {"images": Image, "videos": Video, "news": News, "alternates": Alternate},
    Video: {"restriction": VideoRestriction, "platform": VideoPlatform, "uploader": VideoUploader,
            "prices": VideoPrice, "tvshow": VideoTvShow},
}


def entry_from_dict(data: Mapping[str, Any]) -> UrlEntry | SitemapRef:
    """Build an entry from its JSON object; ``kind`` (default ``"url"``) and ``source`` are accepted and
    dropped. Raises :class:`InvalidEntryError` naming the bad field."""
    if not isinstance(data, Mapping):
        raise InvalidEntryError(f"entry must be an object, got {type(data).__name__}", value=data)
    body = {k: v for k, v in data.items() if k not in ("kind", "source")}
    kind = data.get("kind", "url")
    if kind == "sitemap":
        return _build(SitemapRef, body, "sitemap")
    if kind != "url":
        raise InvalidEntryError(f"unknown kind {kind!r}; expected 'url' or 'sitemap'", field="kind", value=kind)
    return _build(UrlEntry, body, "entry")

