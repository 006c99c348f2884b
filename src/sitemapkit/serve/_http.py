"""HTTP semantics shared by the service and ``sitemapkit serve DIR``, independent of any framework.

A :class:`Reply` is status, headers and a body (bytes, or an iterator of chunks for streaming). The adapters turn
it into a Starlette, Django or Flask response, or write it to a socket. Here: conditional requests (strong ETag,
``If-None-Match`` before ``If-Modified-Since`` as RFC 9110 orders them), content negotiation for gzip, and the
headers every sitemap response carries.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime

__all__ = ["Reply", "ResourceMeta", "accepts_gzip", "error_reply", "gzip_chunks", "http_date", "not_modified",
           "represent"]

#: zlib level for on-the-fly gzip: level 1 is the writer's choice too (fast; ~21:1 on sitemap XML).
GZIP_LEVEL = 1
XML_TYPE = "application/xml; charset=utf-8"
GZIP_TYPE = "application/gzip"


@dataclass(slots=True)
class Reply:
    """A framework-neutral HTTP response. ``body`` is bytes or an iterator of byte chunks (streamed)."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | Iterator[bytes] = b""

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), None)

    def read(self) -> bytes:
        """The whole body (tests and small documents)."""
        if isinstance(self.body, bytes):
            return self.body
        return b"".join(self.body)


@dataclass(frozen=True, slots=True)
class ResourceMeta:
    """What the validators of a representation are made of: a strong ETag (quoted) and a modification time."""

    etag: str
    last_modified: datetime | None
    content_type: str = XML_TYPE
    negotiate_gzip: bool = True  # False for ``.gz`` files, which are sent as they are
    length: int | None = None
    #: Whether ``If-Modified-Since`` may decide a 304. True for files (their mtime changes with their bytes);
    #: False for pages of live rows, whose newest lastmod does not move when a row is deleted.
    modified_since: bool = True


def http_date(value: datetime) -> str:
    """An IMF-fixdate (``Sun, 06 Nov 1994 08:49:37 GMT``), seconds truncated."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return format_datetime(value.astimezone(UTC).replace(microsecond=0), usegmt=True)


def _qvalue(params: list[str]) -> float:
    for p in params:
        k, _, v = p.strip().partition("=")
        if k.strip().lower() == "q":
            try:
                return float(v)
            except ValueError:
                return 0.0
    return 1.0


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether ``Accept-Encoding`` allows gzip (``gzip`` or ``x-gzip`` with q > 0, or ``*`` not excluding it)."""
    if not accept_encoding:
        return False
    star: float | None = None
    for item in accept_encoding.split(","):
        token, *params = item.split(";")
        token = token.strip().lower()
        q = _qvalue(params)
        if token in ("gzip", "x-gzip"):
            return q > 0
        if token == "*":  # noqa: S105 - a content-coding, not a secret
            star = q
    return star is not None and star > 0


def _etags(header: str) -> list[str]:
    """The entity tags of an ``If-None-Match`` list, weak prefixes dropped (it uses weak comparison)."""
    out = []
    for raw in header.split(","):
        tag = raw.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag:
            out.append(tag)
    return out


def not_modified(headers: Mapping[str, str], etag: str, last_modified: datetime | None,
                 modified_since: bool = True) -> bool:
    """RFC 9110 section 13.2.2: If-None-Match decides when present; else If-Modified-Since (GET/HEAD), unless
    ``modified_since`` is False (the server may ignore it, section 13.1.3, when a date cannot tell)."""
    inm = headers.get("if-none-match")
    if inm is not None:
        tags = _etags(inm)
        return "*" in tags or etag in tags
    if not modified_since:
        return False
    ims = headers.get("if-modified-since")
    if ims is None or last_modified is None:
        return False
    try:
        since = parsedate_to_datetime(ims)
    except (TypeError, ValueError, IndexError):
        return False
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    lm = last_modified if last_modified.tzinfo is not None else last_modified.replace(tzinfo=UTC)
    return lm.replace(microsecond=0) <= since


def gzip_chunks(chunks: Iterable[bytes], level: int = GZIP_LEVEL) -> Iterator[bytes]:
    """Compress a stream of chunks as one gzip member, handing each compressed piece on as it comes."""
    z = zlib.compressobj(level, zlib.DEFLATED, 31)  # wbits 31: gzip container, mtime 0 (reproducible)
    for chunk in chunks:
        out = z.compress(chunk)
        if out:
            yield out
    yield z.flush()


def represent(method: str, headers: Mapping[str, str], meta: ResourceMeta,
              body: bytes | Iterable[bytes], extra: Iterable[tuple[str, str]] = ()) -> Reply:
    """The reply for a resource: 304 when the client's copy is current, else 200 with the body (gzipped when
    the client accepts it and the type allows), no body for HEAD. ``headers`` keys are lower case."""
    gz = meta.negotiate_gzip and accepts_gzip(headers.get("accept-encoding"))
    etag = meta.etag if not gz else meta.etag[:-1] + '-gz"'
    out: list[tuple[str, str]] = [("ETag", etag)]
    if meta.last_modified is not None:
        out.append(("Last-Modified", http_date(meta.last_modified)))
    if meta.negotiate_gzip:
        out.append(("Vary", "Accept-Encoding"))
    out.extend(extra)
    if not_modified(headers, etag, meta.last_modified, meta.modified_since):
        _close(body)
        return Reply(304, out)
    out.append(("Content-Type", meta.content_type))
    if gz:
        out.append(("Content-Encoding", "gzip"))
    if method == "HEAD":
        if not gz and meta.length is not None:
            out.append(("Content-Length", str(meta.length)))
        _close(body)
        return Reply(200, out)
    if isinstance(body, bytes):
        data = b"".join(gzip_chunks([body])) if gz else body
        out.append(("Content-Length", str(len(data))))
        return Reply(200, out, data)
    stream = gzip_chunks(body) if gz else iter(body)
    return Reply(200, out, stream)


def _close(body: object) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()


def error_reply(status: int, message: str, extra: Iterable[tuple[str, str]] = ()) -> Reply:
    """A short plain-text error (404, 405, 403)."""
    data = (message + "\n").encode()
    headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(data))), *extra]
    return Reply(status, headers, data)
