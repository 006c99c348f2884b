"""The HTTP layer: :class:`HttpClient` over a small :class:`Transport` interface.

The client owns everything a sitemap fetcher needs on top of raw HTTP: redirects (bounded, loops detected),
Content-Encoding decoding under a byte budget, retries with exponential backoff and jitter (honouring
``Retry-After``), a per-host concurrency limit, an identifying User-Agent and an optional on-disk cache for
conditional requests. A transport only moves bytes: it sends one request and hands back the status, the headers
and the body exactly as sent (still content-encoded), so tests and users can inject their own
(:class:`MockTransport`) and the default (:class:`AiohttpTransport`) stays small.

Any HTTP status is a *value* (:class:`HttpResponse`); :class:`~sitemapkit.FetchError` is raised only when no
response could be had (after retries), :class:`~sitemapkit.TooManyRedirectsError` for redirect loops and chains
that are too long, :class:`ResponseTooLargeError` when the body breaks the byte budget.

The body is never interpreted here: the reader sniffs bytes, whatever Content-Type or extension claims.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import inspect
import json
import os
import random
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self
from urllib.parse import urljoin, urlsplit

import brotli

from sitemapkit.core._atomic import atomic_write_bytes
from sitemapkit.core._errors import FetchError, HTTPStatusError, TooManyRedirectsError
from sitemapkit.core._limits import DEFAULT_MAX_DECOMPRESSED_BYTES
from sitemapkit.fetch._addresses import AddressPolicy

if TYPE_CHECKING:  # aiohttp is imported when the default transport is first used: it costs ~0.3 s and ~30 MB
    import aiohttp

__all__ = [
    "DEFAULT_USER_AGENT",
    "AddressRefusedError",
    "AiohttpTransport",
    "ContentDecodingError",
    "HttpCache",
    "HttpClient",
    "HttpResponse",
    "MockResponse",
    "MockTransport",
    "ResponseTooLargeError",
    "RetryPolicy",
    "Timeouts",
    "Transport",
    "TransportError",
    "TransportRequest",
    "TransportResponse",
]


def _version() -> str:
    try:
        return metadata.version("sitemapkit")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "0"


#: The User-Agent sent unless another one is configured: names the tool and where to read about it.
DEFAULT_USER_AGENT = f"sitemapkit/{_version()} (+https://github.com/sitemapkit/sitemapkit)"

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024


# --------------------------------------------------------------------------------------------------- errors


class TransportError(FetchError):
    """The transport could not complete a request: connection refused or reset, a timeout, a truncated body.

    ``retryable`` is False for errors that cannot get better by trying again (an invalid URL)."""

    def __init__(self, message: str, *, url: str, retryable: bool = True) -> None:
        super().__init__(message, url=url)
        self.retryable = retryable


class AddressRefusedError(TransportError):
    """The request would reach an address the :class:`~sitemapkit.fetch._addresses.AddressPolicy` refuses (loopback,
    private, link-local, ...): nothing was sent there. Never retried."""

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message, url=url, retryable=False)


class ResponseTooLargeError(FetchError):
    """The body (as downloaded or once decoded) exceeded the byte budget; the download was aborted early."""

    def __init__(self, message: str, *, url: str, limit: int) -> None:
        super().__init__(message, url=url)
        self.limit = limit


class ContentDecodingError(FetchError):
    """The body could not be decoded according to its Content-Encoding (corrupt gzip/deflate/br stream)."""


# --------------------------------------------------------------------------------------------------- config


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds. ``connect``: establishing a connection; ``read``: the longest wait for the next bytes;
    ``total``: one attempt, headers and body (None = unbounded). For a deadline over a whole fetch, retries
    included, see ``HttpClient(deadline=...)``."""

    connect: float = 10.0
    read: float = 30.0
    total: float | None = 300.0


def _default_retry_statuses() -> frozenset[int]:
    return frozenset({408, 429, 500, 502, 503, 504, 507, 509, 520, 521, 522, 523, 524})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before trying again.

    Retries happen on the ``statuses`` (408, 429 and the transient 5xx) and on transport errors. The wait before
    retry *n* (0-based) is ``min(backoff_max, backoff_base * 2**n)`` with "equal jitter" (half fixed, half
    random), unless the server sent ``Retry-After`` (seconds or an HTTP-date): then that, capped at
    ``retry_after_max``.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 120.0
    statuses: frozenset[int] = field(default_factory=_default_retry_statuses)

    def backoff(self, attempt: int) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * (2**attempt))
        return float(ceiling / 2 + random.uniform(0, ceiling / 2))


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait according to a ``Retry-After`` header (delta-seconds or HTTP-date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: digits beyond C ints
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


# --------------------------------------------------------------------------------------------------- transport


@dataclass(frozen=True, slots=True)
class TransportRequest:
    """One request as the transport sees it: no redirects followed, no decoding done."""

    method: str
    url: str
    headers: Mapping[str, str]
    timeouts: Timeouts


class TransportResponse(Protocol):
    """What a transport returns: status, headers with lower-case keys, and the body as sent."""

    @property
    def status(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def iter_chunks(self) -> AsyncIterator[bytes]:
        """The body as sent (still content-encoded). Raises :class:`TransportError` if it breaks off."""
        ...

    async def aclose(self) -> None: ...


class Transport(Protocol):
    """Sends one request; follows no redirects and decodes nothing. Raises :class:`TransportError`."""

    async def send(self, request: TransportRequest) -> TransportResponse: ...

    async def aclose(self) -> None: ...


def _lower_headers(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in items:
        key = str(k).lower()
        out[key] = f"{out[key]}, {v}" if key in out else str(v)
    return out


def _timeout_message(exc: BaseException, timeouts: Timeouts, what: str) -> str:
    """Name the timeout that ran out: aiohttp raises ServerTimeoutError for connect/read, TimeoutError for total."""
    import aiohttp

    if isinstance(exc, aiohttp.ServerTimeoutError):
        if "connect" in str(exc).lower():
            return f"connect timeout: no connection within {timeouts.connect:g} s"
        return f"read timeout: no bytes for {timeouts.read:g} s {what}"
    if timeouts.total is not None:
        return f"timed out after {timeouts.total:g} s (per-attempt total) {what}"
    return f"timed out {what}"


class _AiohttpResponse:
    __slots__ = ("_resp", "_timeouts", "_url", "headers", "status")

    def __init__(self, resp: aiohttp.ClientResponse, url: str, timeouts: Timeouts) -> None:
        self._resp = resp
        self._url = url
        self._timeouts = timeouts
        self.status = resp.status
        self.headers = _lower_headers(resp.headers.items())

    async def iter_chunks(self) -> AsyncIterator[bytes]:
        import aiohttp

        try:
            async for chunk in self._resp.content.iter_chunked(_CHUNK):
                yield chunk
        except TimeoutError as exc:
            raise TransportError(_timeout_message(exc, self._timeouts, "while reading the body"),
                                 url=self._url) from None
        except aiohttp.ClientPayloadError as exc:
            raise TransportError(f"incomplete body: {exc}", url=self._url) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise TransportError(f"connection broken while reading the body: {exc}", url=self._url) from None

    async def aclose(self) -> None:
        self._resp.release()


class AiohttpTransport:
    """The default transport: one aiohttp session with keep-alive connection reuse.

    ``max_connections`` bounds open connections overall (the client bounds them per host). Decompression is off:
    the client decodes Content-Encoding itself so the byte budget covers the decoded size too.
    ``address_policy`` checks every address a host name resolves to, at connect time (a DNS answer can change
    after the client checked the URL): refused addresses are dropped, and when none is left the request fails
    with :class:`AddressRefusedError`."""

    def __init__(self, *, max_connections: int = 64, address_policy: AddressPolicy | None = None) -> None:
        self._max_connections = max_connections
        self.address_policy = address_policy
        self._session: aiohttp.ClientSession | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None or self._session.closed:
            resolver = None if self.address_policy is None else _guarded_resolver(self.address_policy)
            connector = aiohttp.TCPConnector(limit=self._max_connections, ttl_dns_cache=300, resolver=resolver)
            self._session = aiohttp.ClientSession(
                connector=connector, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar(),
                skip_auto_headers=("Accept-Encoding", "User-Agent"),
            )
        return self._session

    async def send(self, request: TransportRequest) -> TransportResponse:
        import aiohttp

        session = self._get_session()
        t = request.timeouts
        timeout = aiohttp.ClientTimeout(total=t.total, sock_connect=t.connect, sock_read=t.read)
        try:
            resp = await session.request(
                request.method, request.url, headers=dict(request.headers), allow_redirects=False, timeout=timeout,
            )
        except (aiohttp.InvalidURL, ValueError) as exc:
            raise TransportError(f"invalid URL: {exc}", url=request.url, retryable=False) from None
        except aiohttp.ClientConnectorError as exc:
            if isinstance(exc.os_error, _RefusedAddress):
                raise AddressRefusedError(exc.os_error.reason, url=request.url) from None
            raise TransportError(f"cannot connect: {exc.os_error or exc}", url=request.url) from None
        except TimeoutError as exc:
            raise TransportError(_timeout_message(exc, t, "waiting for the response"), url=request.url) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise TransportError(f"connection error: {exc or type(exc).__name__}", url=request.url) from None
        return _AiohttpResponse(resp, request.url, t)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class _RefusedAddress(OSError):
    """Raised by the guarded resolver; aiohttp wraps it in a ClientConnectorError, the transport unwraps it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _guarded_resolver(policy: AddressPolicy) -> aiohttp.abc.AbstractResolver:
    """aiohttp's default resolver, filtered through ``policy`` (built lazily: aiohttp is imported late)."""
    import ipaddress
    import socket

    from aiohttp.abc import AbstractResolver, ResolveResult
    from aiohttp.resolver import DefaultResolver

    class _GuardedResolver(AbstractResolver):
        def __init__(self) -> None:
            self._inner = DefaultResolver()

        async def resolve(self, host: str, port: int = 0,
                          family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
            results = await self._inner.resolve(host, port, family)
            parsed: list[tuple[ResolveResult, ipaddress.IPv4Address | ipaddress.IPv6Address]] = []
            for r in results:
                try:
                    parsed.append((r, ipaddress.ip_address(str(r["host"]).split("%", 1)[0])))
                except ValueError:
                    continue  # not an address: nothing to connect to
            kept, why = policy.check_resolved(host, [ip for _, ip in parsed])
            if why is not None or not kept:
                raise _RefusedAddress(why or f"refused: {host} resolves to no usable address")
            allowed = set(kept)
            return [r for r, ip in parsed if ip in allowed]

        async def close(self) -> None:
            await self._inner.close()

    return _GuardedResolver()


@dataclass(frozen=True, slots=True)
class MockResponse:
    """A canned answer of :class:`MockTransport`. ``body`` is sent as is (encode it yourself for
    Content-Encoding tests); ``chunk_size`` splits it; ``fail_after`` bytes then a :class:`TransportError`."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    chunk_size: int = _CHUNK
    fail_after: int | None = None


class _MockResponse:
    __slots__ = ("_mock", "_url", "headers", "status")

    def __init__(self, mock: MockResponse, url: str) -> None:
        self._mock = mock
        self._url = url
        self.status = mock.status
        self.headers = {k.lower(): v for k, v in mock.headers.items()}

    async def iter_chunks(self) -> AsyncIterator[bytes]:
        body = self._mock.body
        end = len(body) if self._mock.fail_after is None else min(len(body), self._mock.fail_after)
        for i in range(0, end, max(1, self._mock.chunk_size)):
            yield body[i : min(end, i + self._mock.chunk_size)]
            await asyncio.sleep(0)
        if self._mock.fail_after is not None:
            raise TransportError("incomplete body (mock)", url=self._url)

    async def aclose(self) -> None:
        return None


MockHandler = Callable[[TransportRequest], "MockResponse | Awaitable[MockResponse]"]


class MockTransport:
    """A transport answering from a function: ``handler(request) -> MockResponse`` (sync or async).

    The handler may raise :class:`TransportError` to simulate a connection failure. Every request is kept in
    ``requests`` so tests can assert what was sent."""

    def __init__(self, handler: MockHandler) -> None:
        self._handler = handler
        self.requests: list[TransportRequest] = []

    async def send(self, request: TransportRequest) -> TransportResponse:
        self.requests.append(request)
        result = self._handler(request)
        if inspect.isawaitable(result):
            result = await result
        assert isinstance(result, MockResponse)
        return _MockResponse(result, request.url)

    async def aclose(self) -> None:
        return None


# --------------------------------------------------------------------------------------------------- response


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A complete response: any status is a value.

    ``url`` is what was asked for, ``final_url`` where the body came from, ``redirects`` the hops taken as
    ``(url, status)`` pairs, ``body`` the bytes once Content-Encoding is undone (a gzip *file* stays gzip: the
    reader sniffs it), ``wire_bytes`` what travelled over the network, ``elapsed`` seconds for all of it
    (including retries), ``from_cache`` True when a conditional request came back 304 and the cached body is
    returned, ``attempts`` how many tries the final hop took."""

    url: str
    final_url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    redirects: tuple[tuple[str, int], ...] = ()
    elapsed: float = 0.0
    wire_bytes: int = 0
    from_cache: bool = False
    attempts: int = 1
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def raise_for_status(self) -> None:
        if not self.ok:
            raise HTTPStatusError(self.status, url=self.final_url)


# --------------------------------------------------------------------------------------------------- decoding


class _Decoder:
    """Undo one Content-Encoding incrementally, never producing more than ``limit`` bytes per call."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._first = True
        self._zlib: zlib._Decompress | None = None
        self._br: brotli.Decompressor | None = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS)
        elif encoding == "br":
            self._br = brotli.Decompressor()

    def decode(self, data: bytes, limit: int) -> bytes:
        """Decode ``data``; raises OverflowError when the output would exceed ``limit`` bytes."""
        if self._br is not None:
            out = self._br.process(data, output_buffer_limit=limit + 1)
            if len(out) > limit or (not self._br.can_accept_more_data() and not self._br.is_finished()):
                raise OverflowError
            return bytes(out)
        if self._zlib is None:
            return data
        if self._first and self.encoding == "deflate" and data and (data[0] & 0x0F) != 8:
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send it
        self._first = False
        parts: list[bytes] = []
        produced = 0
        while data:
            chunk = self._zlib.decompress(data, limit - produced + 1)
            produced += len(chunk)
            if produced > limit:
                raise OverflowError
            parts.append(chunk)
            data = self._zlib.unconsumed_tail
            if not data and self._zlib.eof and self._zlib.unused_data and self.encoding != "deflate":
                # concatenated gzip members
                data = self._zlib.unused_data
                self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        return b"".join(parts)


def _make_decoders(content_encoding: str | None) -> list[_Decoder]:
    if not content_encoding:
        return []
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    decoders = [_Decoder(c) for c in reversed(codings) if c in ("gzip", "x-gzip", "deflate", "br")]
    return decoders


# --------------------------------------------------------------------------------------------------- cache


class HttpCache:
    """An on-disk store for conditional requests (ETag / Last-Modified), one pair of files per URL.

    Only 200 responses carrying a validator are stored; writes are atomic (temp file + rename), so a crash never
    leaves a half-written entry. Safe to share between runs, not between concurrent processes writing the same
    URL (last writer wins, which is harmless)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.directory / f"{key}.json", self.directory / f"{key}.body"

    def load(self, url: str) -> tuple[dict[str, str], bytes] | None:
        meta_path, body_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("url") != url or len(body) != meta.get("length"):
            return None
        headers = meta.get("headers")
        return ({str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {}), body

    def validators(self, url: str) -> dict[str, str]:
        """Conditional request headers for ``url`` (empty if nothing is cached)."""
        meta_path, _ = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        headers = meta.get("headers", {}) if isinstance(meta, dict) else {}
        out: dict[str, str] = {}
        if headers.get("etag"):
            out["If-None-Match"] = headers["etag"]
        if headers.get("last-modified"):
            out["If-Modified-Since"] = headers["last-modified"]
        return out

    def store(self, url: str, headers: Mapping[str, str], body: bytes) -> None:
        if not (headers.get("etag") or headers.get("last-modified")):
            return
        meta_path, body_path = self._paths(url)
        keep = {k: v for k, v in headers.items() if k in ("etag", "last-modified", "content-type", "date")}
        atomic_write_bytes(body_path, body)
        atomic_write_bytes(meta_path, json.dumps({"url": url, "length": len(body), "headers": keep}).encode())


# --------------------------------------------------------------------------------------------------- client


@dataclass
class ClientStats:
    """Counters kept by an :class:`HttpClient` (for progress display and benchmarks)."""

    requests: int = 0
    retries: int = 0
    wire_bytes: int = 0
    body_bytes: int = 0
    cache_hits: int = 0


def _host_key(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{parts.port or ''}"


class HttpClient:
    """An async HTTP client for fetching sitemaps and robots.txt. Use it as an async context manager::

        async with HttpClient() as client:
            response = await client.get("https://example.com/sitemap.xml")

    ``max_bytes`` is the default byte budget per response: the download and the Content-Encoding decoding are
    both checked against it while streaming, so an oversized body or a compression bomb is aborted early.

    ``deadline`` (seconds) bounds one :meth:`get` as a whole: connecting, reading, redirects, retries and the
    waits between them; when it runs out the fetch fails with "timed out after N s (total deadline)", and a retry
    whose wait would end after the deadline is not attempted. ``address_policy`` refuses URLs (the first one,
    and every redirect target) whose host is a special address written literally, or ``localhost``, before any
    transport is called; with the default transport it also checks the addresses names resolve to when
    connecting (see :mod:`sitemapkit.fetch._addresses`). None (the default) checks nothing.
    ``sleep`` exists so tests can skip real waits.
    """

    def __init__(
        self,
        *,
        transport: Transport | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
        headers: Mapping[str, str] | None = None,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        max_redirects: int = 10,
        max_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES,
        per_host_limit: int = 4,
        max_connections: int = 64,
        cache: HttpCache | str | os.PathLike[str] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        deadline: float | None = None,
        address_policy: AddressPolicy | None = None,
    ) -> None:
        if per_host_limit < 1 or max_redirects < 0 or max_bytes < 1 or (deadline is not None and deadline <= 0):
            from sitemapkit.core._errors import ConfigurationError

            raise ConfigurationError("per_host_limit and max_bytes must be >= 1, max_redirects >= 0, deadline > 0")
        if transport is None:
            transport = AiohttpTransport(max_connections=max_connections, address_policy=address_policy)
        elif isinstance(transport, AiohttpTransport) and transport.address_policy is None:
            transport.address_policy = address_policy
        self.transport: Transport = transport
        self.deadline = deadline
        self.address_policy = address_policy
        self.user_agent = user_agent
        self.default_headers = {"User-Agent": user_agent, "Accept-Encoding": "gzip, deflate, br", "Accept": "*/*",
                                **(headers or {})}
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
        self.max_redirects = max_redirects
        self.max_bytes = max_bytes
        self.per_host_limit = per_host_limit
        self.cache = HttpCache(cache) if isinstance(cache, (str, os.PathLike)) else cache
        self.stats = ClientStats()
        self._sleep = sleep or asyncio.sleep
        self._host_slots: dict[str, asyncio.Semaphore] = {}

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    def _slot(self, url: str) -> asyncio.Semaphore:
        key = _host_key(url)
        slot = self._host_slots.get(key)
        if slot is None:
            slot = self._host_slots[key] = asyncio.Semaphore(self.per_host_limit)
        return slot

    async def get(
        self, url: str, *, headers: Mapping[str, str] | None = None, max_bytes: int | None = None,
        truncate: bool = False,
    ) -> HttpResponse:
        """GET ``url`` following redirects; returns any final status as a value (see the module docstring).

        ``truncate=True`` keeps the first ``max_bytes`` of an oversized body (``truncated`` is set on the
        response) instead of raising :class:`ResponseTooLargeError`: what robots.txt readers do (RFC 9309).

        Raises :class:`AddressRefusedError` for a URL or redirect target the address policy refuses, and
        :class:`TransportError` ("timed out after N s (total deadline)") when ``deadline`` runs out."""
        if self.deadline is None:
            return await self._get(url, headers, max_bytes, truncate, None)
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.deadline) as scope:
                return await self._get(url, headers, max_bytes, truncate, loop.time() + self.deadline)
        except TimeoutError:
            if scope.expired():
                raise TransportError(f"timed out after {self.deadline:g} s (total deadline)", url=url,
                                     retryable=False) from None
            raise

    def _check_address(self, url: str, asked: str) -> None:
        if self.address_policy is not None:
            why = self.address_policy.check_url(url)
            if why is not None:
                raise AddressRefusedError(why if url == asked else f"redirect to {url} {why}", url=asked)

    async def _get(self, url: str, headers: Mapping[str, str] | None, max_bytes: int | None, truncate: bool,
                   deadline_at: float | None) -> HttpResponse:
        started = time.monotonic()
        budget = self.max_bytes if max_bytes is None else max_bytes
        redirects: list[tuple[str, int]] = []
        seen = {url}
        current = url
        while True:
            self._check_address(current, url)
            status, resp_headers, body, wire, attempts, cached, cut = await self._fetch_one(
                current, headers, budget, truncate, deadline_at)
            location = resp_headers.get("location")
            if status in _REDIRECT_STATUSES and location:
                target = urljoin(current, location.strip())
                if urlsplit(target).scheme.lower() not in ("http", "https"):
                    raise FetchError(f"redirect to a non-HTTP URL {target!r}", url=url)
                redirects.append((current, status))
                if target in seen:
                    raise TooManyRedirectsError(f"redirect loop: {current} -> {target}", url=url)
                if len(redirects) > self.max_redirects:
                    raise TooManyRedirectsError(f"more than {self.max_redirects} redirects", url=url)
                seen.add(target)
                current = target
                continue
            return HttpResponse(
                url=url, final_url=current, status=status, headers=resp_headers, body=body,
                redirects=tuple(redirects), elapsed=time.monotonic() - started, wire_bytes=wire,
                from_cache=cached, attempts=attempts, truncated=cut,
            )

    async def _fetch_one(
        self, url: str, headers: Mapping[str, str] | None, budget: int, truncate: bool = False,
        deadline_at: float | None = None,
    ) -> tuple[int, dict[str, str], bytes, int, int, bool, bool]:
        """One hop, with retries. Returns (status, headers, body, wire bytes, attempts, from_cache, truncated)."""
        request_headers = dict(self.default_headers)
        if headers:
            request_headers.update(headers)
        if self.cache is not None and not any(k.lower() in ("if-none-match", "if-modified-since")
                                              for k in request_headers):
            request_headers.update(self.cache.validators(url))
        request = TransportRequest("GET", url, request_headers, self.timeouts)
        attempt = 0
        while True:
            try:
                async with self._slot(url):
                    self.stats.requests += 1
                    status, resp_headers, body, wire, cut = await self._attempt(request, budget, truncate)
            except TransportError as exc:
                if not exc.retryable or attempt >= self.retry.max_retries:
                    raise
                if not await self._backoff(attempt, None, deadline_at):
                    raise
                attempt += 1
                continue
            if (status in self.retry.statuses and attempt < self.retry.max_retries
                    and await self._backoff(attempt, resp_headers.get("retry-after"), deadline_at)):
                attempt += 1
                continue
            if status == 304 and self.cache is not None:
                cached = self.cache.load(url)
                if cached is not None:
                    self.stats.cache_hits += 1
                    cached_headers, cached_body = cached
                    return 200, {**cached_headers, **resp_headers}, cached_body, wire, attempt + 1, True, False
            if status == 200 and self.cache is not None and not cut:
                self.cache.store(url, resp_headers, body)
            return status, resp_headers, body, wire, attempt + 1, False, cut

    async def _backoff(self, attempt: int, retry_after: str | None, deadline_at: float | None = None) -> bool:
        """Wait before retry ``attempt``; False (no wait, no retry) when the wait would outlast the deadline."""
        wait = parse_retry_after(retry_after)
        delay = self.retry.backoff(attempt) if wait is None else min(wait, self.retry.retry_after_max)
        if deadline_at is not None and asyncio.get_running_loop().time() + delay >= deadline_at:
            return False
        self.stats.retries += 1
        await self._sleep(delay)
        return True

    async def _attempt(self, request: TransportRequest, budget: int,
                       truncate: bool = False) -> tuple[int, dict[str, str], bytes, int, bool]:
        response = await self.transport.send(request)
        try:
            headers = dict(response.headers)
            status = response.status
            length = headers.get("content-length", "")
            if length.isdigit() and int(length) > budget and status not in _REDIRECT_STATUSES and not truncate:
                raise ResponseTooLargeError(
                    f"Content-Length {int(length):,} exceeds the byte budget of {budget:,}", url=request.url,
                    limit=budget,
                )
            decoders = _make_decoders(headers.get("content-encoding"))
            raw_parts: list[bytes] = []
            parts: list[bytes] = []
            wire = 0
            produced = 0
            passthrough = False
            cut = False
            async for chunk in response.iter_chunks():
                wire += len(chunk)
                last = False
                if wire > budget and truncate:
                    chunk = chunk[: len(chunk) - (wire - budget)]
                    wire, last, cut = budget, True, True
                elif wire > budget:
                    raise ResponseTooLargeError(
                        f"body exceeds the byte budget of {budget:,} bytes (download aborted)", url=request.url,
                        limit=budget,
                    )
                if not decoders or passthrough:
                    parts.append(chunk)
                    produced += len(chunk)
                    if last:
                        break
                    continue
                raw_parts.append(chunk)
                try:
                    data = chunk
                    for dec in decoders:
                        data = dec.decode(data, budget - produced)
                except OverflowError:
                    if truncate:
                        cut = True
                        break
                    raise ResponseTooLargeError(
                        f"decoded body ({headers.get('content-encoding')}) exceeds the byte budget of {budget:,}"
                        " bytes (download aborted)", url=request.url, limit=budget,
                    ) from None
                except (zlib.error, brotli.error) as exc:
                    if produced == 0:
                        # The server labels the body with a Content-Encoding it did not apply (common with .gz
                        # files): keep the bytes as they came; the reader sniffs them.
                        passthrough = True
                        parts = list(raw_parts)
                        produced = sum(len(p) for p in parts)
                        continue
                    raise ContentDecodingError(
                        f"corrupt {headers.get('content-encoding')} body: {exc}", url=request.url
                    ) from None
                produced += len(data)
                parts.append(data)
                if produced:
                    raw_parts.clear()  # decoding works: the raw bytes are no longer needed for a fallback
                if last:
                    break
            body = b"".join(parts)
            if truncate and len(body) > budget:
                body, cut = body[:budget], True
            self.stats.wire_bytes += wire
            self.stats.body_bytes += len(body)
            return status, headers, body, wire, cut
        finally:
            await response.aclose()
