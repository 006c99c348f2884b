"""The one exception tree of sitemapkit.

Every exception the library raises on purpose derives from :class:`SitemapkitError`::

    SitemapkitError
    ├── InvalidValueError (also ValueError)     you asked for something invalid
    │   └── InvalidEntryError                   an entry / extension value that breaks the protocol
    ├── ConfigurationError (also ValueError)    options that cannot work together (limits, paths, ...)
    │   └── MissingExtraError                   an optional capability's libraries are not installed
    ├── InputError                              the input (a sitemap, a list of URLs) is invalid
    │   ├── ParseError                          raised in strict mode; carries the first error Problem
    │   └── LimitExceededError                  a size / count / time budget was exceeded while reading
    ├── PublishError                            a sitemap set could not be written; the previous set is intact
    ├── StoreError                              a state or scratch file failed (full disk, I/O); names it
    └── FetchError                              an HTTP fetch failed for good; carries the URL
        ├── HTTPStatusError                     a final non-success status
        └── TooManyRedirectsError               a redirect chain was too long or looped

"You asked for something invalid" (building a sitemap) is kept apart from "the input is invalid" (parsing one):
callers catch :class:`InvalidValueError` around their own code and :class:`InputError` around data they read.
Problems found while *reading* in lenient mode are not raised at all: they are :class:`~sitemapkit.Problem`
values, collected alongside the results.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
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
    "MissingExtraError",
    "NotAFileError",
    "ParseError",
    "PublishError",
    "SitemapkitError",
    "SourceNotFoundError",
    "StoreError",
    "TooManyRedirectsError",
    "require_extra",
]


class SitemapkitError(Exception):
    """Base class of every error sitemapkit raises on purpose.

    Example: ``except SitemapkitError`` catches every error the library raises on purpose (the CLI turns them into one
    line).
    """


class InvalidValueError(SitemapkitError, ValueError):
    """A value given to the library breaks the protocol (a relative loc, a priority of 2, ...).

    ``field`` names the offending field (``"loc"``, ``"priority"``, ``"video.title"``) when known.

    Example: ``UrlEntry("https://example.com/", priority=2)`` raises it (an :class:`InvalidEntryError`) with ``field
    == "priority"``.
    """

    def __init__(self, message: str, *, field: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.field = field
        self.value = value


class InvalidEntryError(InvalidValueError):
    """Building a URL entry, an extension element or a sitemap reference failed.

    Example: ``UrlEntry("/relative")`` raises it with ``field == "loc"``.
    """


class ConfigurationError(SitemapkitError, ValueError):
    """Options that cannot work (a limit above the protocol's, a missing base URL, ...).

    Example: ``write_sitemaps(entries, "public/", "https://example.com/", max_urls=60_000)`` raises it (above the
    protocol's 50,000).
    """


class MissingExtraError(ConfigurationError):
    """An optional capability needs libraries that are not installed (its ``pip install 'sitemapkit[extra]'``).
    ``extra`` names the extra; the message says what needs it and how to install it.

    Example: ``sitemapkit harvest`` without dask raises it; the command line prints "sitemapkit harvest needs the
    harvest extra: pip install 'sitemapkit[harvest]'" and exits with status 2, as for any configuration error.
    """

    def __init__(self, message: str, *, extra: str) -> None:
        super().__init__(message)
        self.extra = extra


def require_extra(extra: str, modules: Sequence[str], what: str) -> None:
    """Find ``modules`` (the extra's libraries) or raise :class:`MissingExtraError`: "WHAT needs the EXTRA
    extra: pip install 'sitemapkit[EXTRA]' (No module named ...)". Called when an optional capability starts, so
    a missing library is one clear line, not a traceback from deep inside the job."""
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None  # located, not imported (the job imports it)
        except (ImportError, ValueError):  # a parent package is missing
            found = False
        if not found:
            raise MissingExtraError(f"{what} needs the {extra} extra: pip install 'sitemapkit[{extra}]' (no module "
                                    f"named {name!r})", extra=extra)


class InputError(SitemapkitError):
    """The input being read is invalid.

    ``events`` holds what a reader completed before the error within the call that raised it (a strict reader's
    ``feed()`` or ``close()``), so that a caller sees the same events whatever the chunking: the events returned by
    earlier calls, then these, then the error.

    Example: ``except InputError`` around :func:`read_file` catches :class:`ParseError`, :class:`LimitExceededError`
    and a missing file (:class:`~sitemapkit.core.SourceNotFoundError`).
    """

    events: tuple[object, ...] = ()


class ParseError(InputError):
    """Strict mode met an error in the input. ``problem`` says what and where.

    Example: ``parse_bytes(b"<urlset", strict=True)`` raises it; ``exc.problem.code`` is the problem's code.
    """

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.format())
        self.problem = problem


class LimitExceededError(InputError):
    """A budget (decompressed bytes, entries, depth, time) was exceeded while reading.

    Example: ``parse_bytes(data, strict=True, max_decompressed_bytes=1_000_000)`` raises it when ``data`` inflates to
    more.
    """

    def __init__(self, message: str, *, limit: int | float | None = None, source: str | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.source = source


class SourceNotFoundError(InputError, FileNotFoundError):
    """The file to read does not exist (also a :class:`FileNotFoundError`, so ``except OSError`` still catches
    it). ``filename`` is the path.

    Example::

        try:
            read_file("missing.xml")
        except SourceNotFoundError as exc:
            print(exc.filename, "does not exist")
    """

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class NotAFileError(InputError, IsADirectoryError):
    """The path to read is a directory, not a sitemap file (also an :class:`IsADirectoryError`). ``filename``
    is the path. Example: ``read_file("public/")`` raises it; read ``public/sitemap.xml`` instead."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class PublishError(SitemapkitError):
    """Writing or publishing a sitemap set failed. Whatever was published before is left untouched.

    Example: ``write_sitemaps(entries, "/read-only/", "https://example.com/")`` raises it; the previous set stays as
    it was.
    """


class StoreError(SitemapkitError):
    """A state or scratch file of sitemapkit (a crawl, audit, submission or generate state, a diff's or a
    validation's scratch database, the web app's history) could not be opened, read or written: the disk is full,
    an I/O error, a read-only or damaged file. ``path`` names the file. What failed is rolled back whole (an SQLite
    transaction, an atomic write), so the file holds what was written before.

    Example: ``sitemapkit crawl URL --state /full/disk/state.sqlite`` ends with one line, "sitemapkit: error:
    /full/disk/state.sqlite: the disk is full (writing a crawl state file): ...", and exit status 1.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class FetchError(SitemapkitError):
    """An HTTP fetch failed for good (after retries). ``url`` is the URL that was asked for.

    Example: ``except FetchError as exc: print(exc.url, exc)`` around :func:`discover` or a URL given to ``sitemapkit
    urls``.
    """

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(f"{url}: {message}")
        self.url = url
        self.reason = message


class HTTPStatusError(FetchError):
    """The server answered with a final non-success status.

    Example: ``except HTTPStatusError as exc: print(exc.status, exc.url)`` (a 404 or 410 sitemap, after retries).
    """

    def __init__(self, status: int, *, url: str) -> None:
        super().__init__(f"HTTP status {status}", url=url)
        self.status = status


class TooManyRedirectsError(FetchError):
    """A redirect chain exceeded the limit or came back to a URL it had visited.

    Example: ``except TooManyRedirectsError as exc: print(exc.url)``; see :class:`HTTPStatusError` for the other fetch
    failures.
    """
