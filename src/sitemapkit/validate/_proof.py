"""Proof that the bundled schema has nothing to say about a fast-lane block, so its batch need not be validated.

The lane's block pattern (``sitemapkit.read._blocks``) fixes a block's structure: ``loc``, then ``lastmod``,
``changefreq``, ``priority`` in the XSD's order, each at most once, then ``image:image`` elements holding one
``image:loc`` and ``xhtml:link`` elements with ``rel="alternate"``, ``hreflang`` and ``href``, the prefixes bound by
the root to the image and XHTML namespaces (``_prefixes``), values of printable ASCII without markup or
references. What the schema (``urlset-with-extensions.xsd``) can still refuse is a value; this module accepts only
values its types surely accept, strictly (anything it is unsure of goes to libxml2 as before):

- ``loc``: a plain absolute http(s) URL (``FAST_URL``: an ``anyURI``), 12 to 2,047 characters (``tLoc``: 12 to
  2,048);
- ``lastmod``: ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ss[.f][Z|±hh:mm]`` with a real day of the month (leap years
  counted), hours 00-23, a time zone within ±14:00, a year from 1000 (``xsd:date`` / ``xsd:dateTime``);
- ``changefreq``: one of the seven words exactly; ``priority``: ``0``, ``0.d…``, ``1``, ``1.0…``;
- ``image:loc`` and ``href``: ``FAST_URL``; ``hreflang``: ``xs:language`` (``[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*``).

The root start tag must be ``urlset`` in the sitemap namespace (parsed once); its attributes are validated with
the first batch, which is always validated, and repeat unchanged in every batch. A batch all of whose blocks pass
is skipped (``ValidatorLane``); any other is validated as before. ``tests/validate/test_xsd_proof.py`` checks every
accepted value against the schema itself, and reports with and without the proof.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml import etree

from sitemapkit.validate._checks import FAST_URL

__all__ = ["XsdProof"]

_SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})
_PRIORITY = re.compile(r"0(?:\.[0-9]+)?|1(?:\.0+)?").fullmatch
_LANGUAGE = re.compile(r"[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*").fullmatch
_DATE = re.compile(r"([1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
                   r"(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
                   r"(?:Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?)?").fullmatch
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _valid_date(text: str) -> bool:
    m = _DATE(text)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= (29 if month == 2 and leap else _DAYS[month - 1])


class XsdProof:
    """Decides, block by block, whether the schema surely accepts a lane block (see the module's docstring)."""

    __slots__ = ("_dates", "_languages")

    def __init__(self) -> None:
        self._dates: dict[str, bool] = {}  # lastmod text -> valid for the schema (bounded)
        self._languages: set[str] = set()  # hreflang values found to be xs:language (bounded)

    @classmethod
    def for_head(cls, head: bytes) -> XsdProof | None:
        """The proof for a document whose prolog and root start tag are ``head``; None when the root is not a
        sitemap ``urlset`` (the schema then reports on every batch)."""
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        try:
            root = etree.fromstring(head + b"</urlset>", parser)
        except etree.XMLSyntaxError:
            return None
        return cls() if root.tag == f"{{{_SITEMAP_NS}}}urlset" else None

    def block(self, loc: str, lastmod: str | None, changefreq: str | None, priority: str | None,
              parts: tuple[list[str], list[tuple[str, str]]] | None, urls_ok: bool = False) -> bool:
        """True when the schema surely accepts a block with these values. ``loc`` already matched ``FAST_URL``
        and is shorter than 2,048 characters (``entry_loc`` kept it as written); ``parts``: the image locs and
        (hreflang, href) pairs of its extension run, None without one; ``urls_ok``: each of those image locs and
        hrefs is the loc or matched ``FAST_URL`` already (the Google checks' common case)."""
        if len(loc) < 12:
            return False
        if lastmod is not None and not self._date_ok(lastmod):
            return False
        if changefreq is not None and changefreq not in _CHANGEFREQS:
            return False
        if priority is not None and _PRIORITY(priority) is None:
            return False
        if parts is not None:
            images, links = parts
            if not urls_ok:
                for image in images:
                    if FAST_URL(image) is None:
                        return False
            for hreflang, href in links:
                if not self._language_ok(hreflang):
                    return False
                if not urls_ok and FAST_URL(href) is None:
                    return False
        return True

    def blocks(self, shortest_loc: int, lastmods: Iterable[str], changefreqs: Iterable[str],
               priorities: Iterable[str], languages: Iterable[str]) -> bool:
        """:meth:`block` of many blocks at once, given their values (each distinct one once is enough) and the
        length of their shortest loc. Their locs, image locs and hrefs matched ``FAST_URL`` already."""
        return (shortest_loc >= 12 and all(map(self._date_ok, lastmods))
                and all(changefreq in _CHANGEFREQS for changefreq in changefreqs)
                and all(_PRIORITY(priority) is not None for priority in priorities)
                and all(map(self._language_ok, languages)))

    def _date_ok(self, lastmod: str) -> bool:
        ok = self._dates.get(lastmod)
        if ok is None:
            ok = _valid_date(lastmod)
            if len(self._dates) > 4096:
                self._dates.clear()
            self._dates[lastmod] = ok
        return ok

    def _language_ok(self, hreflang: str) -> bool:
        languages = self._languages
        if hreflang not in languages:
            if _LANGUAGE(hreflang) is None:
                return False
            if len(languages) > 4096:
                languages.clear()
            languages.add(hreflang)
        return True
