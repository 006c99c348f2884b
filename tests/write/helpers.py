"""Shared checks for the writer tests: XSD validation and an independent lxml parse-back."""

from __future__ import annotations

from typing import Any

from lxml import etree

from sitemapkit.validate._schemas import SchemaKind, load_schema

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
IMG = "{http://www.google.com/schemas/sitemap-image/1.1}"
VID = "{http://www.google.com/schemas/sitemap-video/1.1}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def parse(data: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    return etree.fromstring(data, parser)


def xsd_errors(data: bytes) -> list[str]:
    """Validate against the bundled official XSDs (urlset with every extension, or siteindex)."""
    root = parse(data)
    kind = SchemaKind.INDEX if root.tag == f"{SM}sitemapindex" else SchemaKind.URLSET
    schema = load_schema(kind)
    if schema.validate(root):
        return []
    return [f"{e.line}: {e.message}" for e in schema.error_log]


def assert_valid(data: bytes) -> None:
    errors = xsd_errors(data)
    assert errors == [], errors[:5]


def read_back(data: bytes) -> list[dict[str, Any]]:
    """The urlset as plain dicts (loc, lastmod, changefreq, priority, images, alternates, videos, news)."""
    out = []
    for url in parse(data).iter(f"{SM}url"):
        item: dict[str, Any] = {"loc": url.findtext(f"{SM}loc")}
        for name in ("lastmod", "changefreq", "priority"):
            value = url.findtext(f"{SM}{name}")
            if value is not None:
                item[name] = value
        item["images"] = [{c.tag.split("}")[1]: c.text for c in img} for img in url.iter(f"{IMG}image")]
        item["alternates"] = [(link.get("hreflang"), link.get("href")) for link in url.iter(f"{XHTML}link")]
        item["videos"] = [[(c.tag.split("}")[1], c.text, dict(c.attrib)) for c in v] for v in url.iter(f"{VID}video")]
        news = url.find(f"{NEWS}news")
        item["news"] = None if news is None else {
            "name": news.findtext(f"{NEWS}publication/{NEWS}name"),
            "language": news.findtext(f"{NEWS}publication/{NEWS}language"),
            "publication_date": news.findtext(f"{NEWS}publication_date"),
            "title": news.findtext(f"{NEWS}title"),
        }
        out.append(item)
    return out
