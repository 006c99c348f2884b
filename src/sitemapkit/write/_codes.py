"""The writer's problem codes (SM6xx): warnings about what was written, and the set's skips.

SM601-SM605 come from the ``<url>`` renderer (``_render.py``), SM606/SM607 from the sitemap set
(``_sitemapset.py``), SM608 from ``generate`` (URLs on another host than ``--base-url``). generate's input codes,
SM610 and SM611, are defined with its inputs (``_inputs.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from sitemapkit.core import Location, Problem, Severity, UrlEntry, define_code, describe_causes, redact_credentials

__all__ = ["SM601", "SM602", "SM603", "SM604", "SM605", "SM606", "SM607", "SM608", "HostCheck", "url_origin"]

_AREA = "writer"
SM601 = define_code("SM601", Severity.WARNING, "deprecated image tag written",
                    "Google ignores image:caption, title, geo_location and license since 2022; drop them.",
                    area=_AREA)
SM602 = define_code("SM602", Severity.WARNING, "deprecated video tag written",
                    "Google ignores video:category, gallery_loc, price, tvshow and the player_loc attributes "
                    "since 2022; drop them.", area=_AREA)
SM603 = define_code("SM603", Severity.WARNING, "date written as given but not XSD-valid",
                    "W3C Datetime allows YYYY, YYYY-MM and hh:mm; the XSD needs a full date or seconds. "
                    "Give a full date or a time with seconds.", area=_AREA)
SM604 = define_code("SM604", Severity.WARNING, "video title longer than the XSD's 100 characters",
                    "Google documents no limit but the 2010 XSD allows 100 characters; shorten it for "
                    "schema-valid output.", area=_AREA)
SM605 = define_code("SM605", Severity.WARNING, "video duration 0",
                    "Google documents 1 to 28,800 seconds; give the real duration.", area=_AREA)
SM606 = define_code("SM606", Severity.WARNING, "duplicate loc skipped",
                    "The same URL was given more than once; only the first is written.", area=_AREA)
SM607 = define_code("SM607", Severity.WARNING, "URL outside the sitemap's base URL",
                    "A sitemap may only list URLs under the directory it is served from (sitemaps.org "
                    "'location'); serve it from a common parent or submit it via robots.txt.", area=_AREA)
SM608 = define_code("SM608", Severity.ERROR, "URL on another host than the base URL",
                    "A sitemap lists URLs of the host (scheme, host and port) it is served from; generate a "
                    "set per host, or pass --allow-cross-host when robots.txt of each URL's host lists the "
                    "sitemap (cross-submission).", area=_AREA)


def url_origin(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL, lowercased (the port as written, if any); None when it has no host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return f"{parts.scheme.lower()}://{parts.hostname.lower()}" + (f":{port}" if port is not None else "")


class HostCheck:
    """SM608 for ``generate``: an entry must be on the ``--base-url``'s scheme, host and port (the common case, a
    loc under the base origin as written, costs one ``startswith``)."""

    __slots__ = ("_prefix", "home")

    def __init__(self, base_url: str) -> None:
        self.home = url_origin(base_url)
        self._prefix = f"{self.home}/"

    def first_off(self, entries: Sequence[UrlEntry], start: int, stop: int) -> int:
        """The index of the first of ``entries[start:stop]`` that :meth:`problem` would report, else ``stop``."""
        prefix = self._prefix
        home = self.home
        for i in range(start, stop):
            loc = entries[i].loc
            if not loc.startswith(prefix) and url_origin(loc) != home:
                return i
        return stop

    def all_on(self, locs: list[str]) -> bool:
        """True when every one of ``locs`` starts with the base origin as written (so :meth:`first_off` finds
        none off it); checked on the joined text, one C-level count."""
        prefix = self._prefix
        return bool(locs) and locs[0].startswith(prefix) and "\n".join(locs).count("\n" + prefix) == len(locs) - 1

    def problem(self, loc: str, source: str, line: int | None) -> Problem | None:
        """None when ``loc`` is on the base URL's host, else the SM608 problem to report (the entry is skipped)."""
        if loc.startswith(self._prefix) or url_origin(loc) == self.home:
            return None
        loc = redact_credentials(loc)  # a password is never echoed
        return SM608.problem(Location(source, line, loc=loc),
                             f"{loc} is not on {self.home}, the --base-url's host: skipped (--allow-cross-host "
                             "writes it)")


# Why each writer problem happens (the user docs, docs/codes.md, show it beside the title and the fix).
describe_causes({
    "SM601": "An entry given to the writer carries an image field Google no longer reads; it is written as "
             "given.",
    "SM602": "An entry given to the writer carries a video field or attribute Google no longer reads; it is "
             "written as given.",
    "SM603": "A date was given with a precision W3C Datetime allows but the XSD rejects (a year, a month, "
             "minutes without seconds); it is written as given.",
    "SM604": "A video title is longer than the 100 characters of the 2010 video XSD.",
    "SM605": "A video was given a duration of 0 seconds.",
    "SM606": "The same URL was given more than once; the writer keeps the first.",
    "SM607": "A URL is outside the directory the sitemap is published at (--base-url), where search engines "
             "ignore it.",
    "SM608": "An input URL is on another scheme, host or port than --base-url.",
    "SM610": "An input line could not be turned into an entry: not an absolute http(s) URL, a bad lastmod, "
             "changefreq or priority, a URL with credentials, or a value the protocol rejects.",
    "SM611": "The CSV has a column generate does not read (a typo in a header, or extra data).",
    "SM612": "A sitemap index given to generate lists a sitemap that is not in the index's folder, or that "
             "cannot be read.",
})
