"""The entry model shared by writers, readers, the validator and the crawler: :class:`UrlEntry` (one ``<url>``),
:class:`SitemapRef` (one ``<sitemap>`` of an index) and their JSON form. The extension parts an entry holds
(images, videos, news, alternates) are in ``_extensions.py``.

Frozen, slotted dataclasses. Building one with values that break the protocol raises
:class:`~sitemapkit.InvalidEntryError`; locs are normalised (IRI -> URI, surrounding whitespace stripped) on the
way in, so two entries for the same URL compare equal however they were written.

``to_dict`` / ``from_dict`` define the JSON form used by ``sitemapkit urls --format jsonl`` and accepted by
``sitemapkit generate``: field names are the dataclass field names, lastmod values are W3C strings, enums their
values, tuples lists.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any, TypeVar

from sitemapkit.core._errors import InvalidEntryError
from sitemapkit.core._extensions import (
    Alternate,
    Image,
    News,
    Video,
    VideoPlatform,
    VideoPrice,
    VideoRestriction,
    VideoTvShow,
    VideoUploader,
    _enum,
    _lastmod,
    _number,
    _set,
    _tuple,
    _twin,
)
from sitemapkit.core._lastmod import LastMod
from sitemapkit.core._limits import MAX_LOC_LENGTH
from sitemapkit.core._urls import SIMPLE_URI, normalize_loc

__all__ = [
    "Changefreq",
    "SitemapRef",
    "UrlEntry",
    "canonical_loc_entry",
    "canonical_url_entry",
    "entry_from_dict",
    "entry_to_dict",
    "is_canonical_loc",
]

LastModInput = LastMod | datetime | date | str
_simple_uri = SIMPLE_URI.fullmatch


class Changefreq(enum.Enum):
    """How often a page is likely to change (a hint; Google ignores it).

    Example: ``UrlEntry("https://example.com/", changefreq=Changefreq.DAILY)`` (or ``changefreq="daily"``).
    """

    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, init=False)
class UrlEntry:
    """One ``<url>`` of a urlset: the page and everything the extensions say about it.

    The constructor accepts convenient inputs and stores canonical values: ``lastmod`` as a :class:`LastMod`
    (from a ``datetime``, ``date`` or W3C string), ``changefreq`` as a :class:`Changefreq` (from its name),
    ``priority`` as a float, sequences as tuples, and ``loc`` as a URI.

    Example: ``UrlEntry("https://example.com/", lastmod="2024-05-01", changefreq="daily", priority=0.8)``.
    """

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
    """One ``<sitemap>`` of a sitemap index: where a child sitemap is, and when that file last changed.

    Example: ``read_file("sitemap_index.xml").sitemaps`` lists them; ``SitemapRef("https://example.com/s-1.xml",
    LastMod("2024-05-01"))``.
    """

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


_UrlEntryFields = _twin(UrlEntry)


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


def canonical_loc_entry(loc: str) -> UrlEntry | None:
    """``UrlEntry(loc)`` built without ``__init__`` when ``loc`` is canonical (``is_canonical_loc``); None
    otherwise, and the caller builds ``UrlEntry(loc)``, which normalises or raises. A URL list's line: the check
    and the build in one call (~0.45 us against the constructor's ~1.7 us)."""
    if loc.__class__ is not str or len(loc) > MAX_LOC_LENGTH or _simple_uri(loc) is None:
        return None
    e = _UrlEntryFields()
    e.loc = loc
    e.lastmod = e.changefreq = e.priority = e.news = None
    e.images = e.videos = e.alternates = ()
    e.mobile = False
    e.__class__ = UrlEntry
    return e  # type: ignore[no-any-return]


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

