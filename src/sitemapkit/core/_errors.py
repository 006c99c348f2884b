"""The one exception tree of sitemapkit.

Every exception the library raises on purpose derives from :class:`SitemapkitError`::

    SitemapkitError
    ├── InvalidValueError (also ValueError)     you asked for something invalid
    │   └── InvalidEntryError                   an entry / extension value that breaks the protocol
    ├── ConfigurationError (also ValueError)    options that cannot work together (limits, paths, ...)
    ├── InputError                              the input (a sitemap, a list of URLs) is invalid
    │   ├── ParseError                          raised in strict mode; carries the first error Problem
    │   └── LimitExceededError                  a size / count / time budget was exceeded while reading
    ├── PublishError                            a sitemap set could not be written; the previous set is intact
    └── FetchError                              an HTTP fetch failed for good; carries the URL
        ├── HTTPStatusError                     a final non-success status
        └── TooManyRedirectsError               a redirect chain was too long or looped

"You asked for something invalid" (building a sitemap) is kept apart from "the input is invalid" (parsing one):
callers catch :class:`InvalidValueError` around their own code and :class:`InputError` around data they read.
Problems found while *reading* in lenient mode are not raised at all: they are :class:`~sitemapkit.Problem`
values, collected alongside the results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitemapkit.core._problems import Problem

__all__ = [
    "ConfigurationError",
    "FetchError",
    "HTTPStatusError",
    "InputError",
    "InvalidEntryError",
    "InvalidValueError",
    "LimitExceededError",
    "ParseError",
    "PublishError",
    "SitemapkitError",
    "TooManyRedirectsError",
]


class SitemapkitError(Exception):
    """Base class of every error sitemapkit raises on purpose."""


class InvalidValueError(SitemapkitError, ValueError):
    """A value given to the library breaks the protocol (a relative loc, a priority of 2, ...).

    ``field`` names the offending field (``"loc"``, ``"priority"``, ``"video.title"``) when known.
    """

    def __init__(self, message: str, *, field: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.field = field
        self.value = value


class InvalidEntryError(InvalidValueError):
    """Building a URL entry, an extension element or a sitemap reference failed."""


class ConfigurationError(SitemapkitError, ValueError):
    """Options that cannot work (a limit above the protocol's, a missing base URL, ...)."""


class InputError(SitemapkitError):
    """The input being read is invalid.

    ``events`` holds what a reader completed before the error within the call that raised it (a strict reader's
    ``feed()`` or ``close()``), so that a caller sees the same events whatever the chunking: the events returned by
    earlier calls, then these, then the error.
    """

    events: tuple[object, ...] = ()


class ParseError(InputError):
    """Strict mode met an error in the input. ``problem`` says what and where."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.format())
        self.problem = problem


class LimitExceededError(InputError):
    """A budget (decompressed bytes, entries, depth, time) was exceeded while reading."""

    def __init__(self, message: str, *, limit: int | float | None = None, source: str | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.source = source


class PublishError(SitemapkitError):
    """Writing or publishing a sitemap set failed. Whatever was published before is left untouched."""


class FetchError(SitemapkitError):
    """An HTTP fetch failed for good (after retries). ``url`` is the URL that was asked for."""

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(f"{url}: {message}")
        self.url = url
        self.reason = message


class HTTPStatusError(FetchError):
    """The server answered with a final non-success status."""

    def __init__(self, status: int, *, url: str) -> None:
        super().__init__(f"HTTP status {status}", url=url)
        self.status = status


class TooManyRedirectsError(FetchError):
    """A redirect chain exceeded the limit or came back to a URL it had visited."""
