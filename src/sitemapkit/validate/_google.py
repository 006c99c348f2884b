"""Google profile checks on extension elements: image, video, news and hreflang (RULES.md 21-24).

They read the lxml elements of one ``<url>`` while it is still in memory (the XML pass hands them over before
the element is released)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from lxml import etree

from sitemapkit.core import (
    MAX_IMAGES_PER_URL,
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAGS,
    InvalidValueError,
    LastMod,
)
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import (
    FAST_URL,
    check_hreflang_value,
    check_loc,
    check_news_language,
    is_future,
    moment,
)
from sitemapkit.validate._context import FileContext, line_of

__all__ = ["IMAGE_NS", "NEWS_NS", "VIDEO_NS", "XHTML_NS", "Link", "check_alternates", "check_image_loc",
           "check_images", "check_news", "check_video"]

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

_I = "{" + IMAGE_NS + "}"
_V = "{" + VIDEO_NS + "}"
_N = "{" + NEWS_NS + "}"
_IMAGE_DEPRECATED = {_I + n: n for n in ("caption", "geo_location", "title", "license")}
_VIDEO_DEPRECATED = {_V + n: n for n in ("category", "gallery_loc", "price", "tvshow")}

Element = etree._Element


def _text(el: Element | None) -> str:
    return (el.text or "").strip() if el is not None else ""


def check_images(ctx: FileContext, images: list[Any], loc: str | None) -> None:
    tag_loc = _I + "loc"
    if len(images) > MAX_IMAGES_PER_URL:
        ctx.report(C.IMAGE_TOO_MANY, f"{len(images)} images in one <url>: Google reads at most "
                                     f"{MAX_IMAGES_PER_URL}", images[MAX_IMAGES_PER_URL].sourceline, None, loc)
    for image in images:
        image_loc: Any = None
        if len(image) == 1 and (only := image[0]).tag == tag_loc:
            image_loc = only  # the common shape: just image:loc (no need for an iterator)
        else:
            for child in image:
                tag = child.tag
                if tag == tag_loc:
                    image_loc = child
                elif isinstance(tag, str) and tag in _IMAGE_DEPRECATED:
                    ctx.report(C.IMAGE_DEPRECATED, f"image:{_IMAGE_DEPRECATED[tag]} is deprecated (Google ignores "
                                                   "it since 2022; still valid in the XSD): remove it",
                               child.sourceline, None, loc)
            if image_loc is None:
                ctx.report(C.IMAGE_LOC, "image:image has no image:loc: give the image file's URL", image.sourceline,
                           None, loc)
                continue
        check_image_loc(ctx, image_loc.text, image_loc.sourceline, loc)


def check_image_loc(ctx: FileContext, text: str | None, line: int | None, loc: str | None) -> None:
    """One image:loc's text (None when the element is empty)."""
    if text is not None and len(text) < 2048:
        m = FAST_URL(text)
        if m is not None and not ctx.bad_host(m.group(2)):
            return
    _, found = check_loc(text, field="image:loc")
    for code, message in found:
        if code is C.LOC_NOT_ABSOLUTE or code is C.LOC_EMPTY:
            code = C.IMAGE_LOC
        ctx.report(code, message, line, None, loc)


def check_video(ctx: FileContext, video: Element, loc: str | None) -> None:
    fields: dict[str, Element] = {}
    tags = 0
    for child in video:
        tag = child.tag
        if not isinstance(tag, str) or not tag.startswith(_V):
            continue
        name = tag[len(_V):]
        if name == "tag":
            tags += 1
            if tags == MAX_VIDEO_TAGS + 1:
                ctx.report(C.VIDEO_TAGS, f"more than {MAX_VIDEO_TAGS} video:tag elements: keep at most "
                                         f"{MAX_VIDEO_TAGS}", line_of(child), None, loc)
            continue
        fields.setdefault(name, child)
        if tag in _VIDEO_DEPRECATED:
            ctx.report(C.VIDEO_DEPRECATED, f"video:{name} is deprecated (Google ignores it since 2022): remove it",
                       line_of(child), None, loc)
        if name == "player_loc":
            for attr in ("allow_embed", "autoplay"):
                if child.get(attr) is not None:
                    ctx.report(C.VIDEO_DEPRECATED, f"video:player_loc@{attr} is deprecated (Google ignores it "
                                                   "since 2022): remove it", line_of(child), None, loc)
    line = line_of(video)
    missing = [n for n in ("thumbnail_loc", "title", "description") if not _text(fields.get(n))]
    if not _text(fields.get("content_loc")) and not _text(fields.get("player_loc")):
        missing.append("content_loc or player_loc")
    if missing:
        ctx.report(C.VIDEO_REQUIRED, f"video:video lacks {', '.join(missing)}: Google requires them", line, None,
                   loc)
    for name in ("content_loc", "player_loc"):
        value = _text(fields.get(name))
        if value and loc is not None and value == loc:
            ctx.report(C.VIDEO_SAME_AS_PAGE, f"video:{name} is the page URL itself: point to the video file or "
                                             "player", line_of(fields[name]), None, loc)
    description = fields.get("description")
    if description is not None and len(description.text or "") > MAX_VIDEO_DESCRIPTION_LENGTH:
        ctx.report(C.VIDEO_DESCRIPTION, f"video:description has {len(description.text or '')} characters: at most "
                                        f"{MAX_VIDEO_DESCRIPTION_LENGTH}", line_of(description), None, loc)
    duration = fields.get("duration")
    if duration is not None:
        text = _text(duration)
        ok = text.isdigit() and 1 <= int(text) <= MAX_VIDEO_DURATION
        if not ok:
            ctx.report(C.VIDEO_DURATION, f"video:duration {text!r} is not whole seconds from 1 to 28,800 (Google; "
                                         "the XSD allows 0, the stricter reading applies)", line_of(duration),
                       None, loc)
    rating = fields.get("rating")
    if rating is not None:
        text = _text(rating)
        try:
            ok = 0.0 <= float(text) <= 5.0
        except ValueError:
            ok = False
        if not ok:
            ctx.report(C.VIDEO_RATING, f"video:rating {text!r} is not a number from 0.0 to 5.0", line_of(rating),
                       None, loc)


def check_news(ctx: FileContext, news: Element, loc: str | None) -> None:
    publication = news.find(_N + "publication")
    name = publication.find(_N + "name") if publication is not None else None
    language = publication.find(_N + "language") if publication is not None else None
    date_el = news.find(_N + "publication_date")
    title = news.find(_N + "title")
    missing = [label for label, el in (("news:publication/news:name", name), ("news:publication/news:language",
               language), ("news:publication_date", date_el), ("news:title", title)) if not _text(el)]
    if missing:
        ctx.report(C.NEWS_REQUIRED, f"news:news lacks {', '.join(missing)}", line_of(news), None, loc)
    if language is not None and _text(language):
        for code, message in check_news_language(_text(language)):
            ctx.report(code, message, line_of(language), None, loc)
    if date_el is not None and _text(date_el):
        text = _text(date_el)
        try:
            value = LastMod(text)
        except InvalidValueError:
            ctx.report(C.NEWS_DATE, f"news:publication_date {text!r} is not a W3C Datetime", line_of(date_el),
                       None, loc)
            return
        now = ctx.now
        if is_future(value, now):
            ctx.report(C.NEWS_DATE, f"news:publication_date {text!r} is after {moment(now)}",
                       line_of(date_el), None, loc)
        else:
            dt = value.to_datetime()
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=now.tzinfo)
            if dt < now - timedelta(days=2):
                ctx.report(C.NEWS_OLD, f"news article published {text}, more than two days before "
                                       f"{moment(now)}: remove it from the news sitemap",
                           line_of(date_el), None, loc)


#: hreflang values already found valid, with their case-folded form (the key for conflicts); bounded.
_GOOD_HREFLANG: dict[str, str] = {}


#: One xhtml:link as ``(hreflang, href, rel, line)``: attribute values as read (None when absent).
Link = tuple[str | None, str | None, str | None, int | None]


def check_alternates(ctx: FileContext, links: list[Link], loc: str | None) -> None:
    """Codes, conflicts, self-reference, and recording for the reciprocity pass (the hot path of hreflang-heavy
    sitemaps: cached code checks, one regular expression per href)."""
    seen: dict[str, str] = {}
    lists_self = False
    others: list[tuple[str, str, int | None]] | None = None
    good_langs = _GOOD_HREFLANG
    fast_url = FAST_URL
    for hreflang, href, rel, line in links:
        if hreflang is None or href is None or (rel != "alternate" and (rel or "").strip().lower() != "alternate"):
            ctx.report(C.HREFLANG_HREF, "xhtml:link needs rel=\"alternate\", hreflang and href", line, None, loc)
            continue
        key = good_langs.get(hreflang)
        if key is None:
            key = hreflang.lower()
            found = check_hreflang_value(hreflang)
            if found:
                ctx.findings(found, line, loc)
            elif len(good_langs) < 4096:
                good_langs[hreflang] = key
        if href == loc:
            lists_self = True  # the page itself (already checked as its loc)
            target: str = href
        else:
            if fast_url(href) is not None:
                target = href  # a plain absolute URL (check_loc would return it as it is, even when too long)
            else:
                checked, _ = check_loc(href, field="hreflang href")
                if checked is None:
                    ctx.report(C.HREFLANG_HREF, f"hreflang href {href.strip()!r} is not an absolute URL: write the "
                                                "full URL", line, None, loc)
                    continue
                target = checked
            if target == loc:
                lists_self = True
            elif others is None:
                others = [(target, hreflang, line)]
            else:
                others.append((target, hreflang, line))
        previous = seen.get(key)
        if previous is None:
            seen[key] = target
        elif previous != target:
            ctx.report(C.HREFLANG_CONFLICT, f"hreflang {hreflang!r} points to {previous} and to {target}: give "
                                            "each value one URL", line, None, loc)
    if others is not None and loc is not None:
        store = ctx.hreflang
        if store is not None:
            store.add_links(loc, others, ctx.source)
    if links and not lists_self and loc is not None:
        ctx.report(C.HREFLANG_NO_SELF, f"{loc} has alternates but does not list itself: add its own xhtml:link",
                   links[0][3], None, loc)
