"""Transports: what moves bytes for :class:`~sitemapkit.fetch.HttpClient`.

A transport sends one request and hands back the status, the headers (lower-case keys) and the body exactly as
sent (still content-encoded); it follows no redirects and decodes nothing. :class:`AiohttpTransport` is the
default; :class:`MockTransport` answers from a function, for tests and for users who inject their own.
Failures are :class:`TransportError` (:class:`AddressRefusedError` when the address policy refused the host).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from sitemapkit.core import FetchError
from sitemapkit.fetch._addresses import AddressPolicy

if TYPE_CHECKING:  # aiohttp is imported when the default transport is first used: it costs ~0.3 s and ~30 MB
    import aiohttp

__all__ = [
    "CHUNK",
    "STALL_TIMEOUT",
    "AddressRefusedError",
    "AiohttpTransport",
    "MockHandler",
    "MockResponse",
    "MockTransport",
    "Timeouts",
    "Transport",
    "TransportError",
    "TransportRequest",
    "TransportResponse",
]

#: Bytes read from a connection at a time.
CHUNK = 64 * 1024
#: Seconds without a byte after which a response has stalled (``Timeouts.read``; ``--stall-timeout``): the read
#: fails. Bounded per read, not per body: a slow but steady server is not cut off (the total deadline is).
STALL_TIMEOUT = 30.0


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




@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds. ``connect``: establishing a connection; ``read``: the longest wait for the next bytes (a stall;
    the client enforces it on every read of a body, whatever the transport);
    ``total``: one attempt, headers and body (None = unbounded). For a deadline over a whole fetch, retries
    included, see ``HttpClient(deadline=...)``."""

    connect: float = 10.0
    read: float = STALL_TIMEOUT
    total: float | None = 300.0



@dataclass(frozen=True, slots=True)
class TransportRequest:
    """One request as the transport sees it: no redirects followed, no decoding done. ``body``: bytes sent
    with a POST or PUT (None: no body)."""

    method: str
    url: str
    headers: Mapping[str, str]
    timeouts: Timeouts
    body: bytes | None = None


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
            async for chunk in self._resp.content.iter_chunked(CHUNK):
                yield chunk
        except TimeoutError as exc:
            raise TransportError(_timeout_message(exc, self._timeouts, "while reading the body"),
                                 url=self._url) from None
        except aiohttp.ClientPayloadError as exc:
            raise TransportError(f"incomplete body: {exc}", url=self._url) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise TransportError(f"connection broken while reading the body: {exc}", url=self._url) from None

    def arrived(self) -> bytes | None:
        """The whole body when all of it has arrived already, taken without waiting (a small page comes with its
        headers): what :meth:`iter_chunks` would give in its one chunk. None otherwise: read :meth:`iter_chunks`."""
        content = self._resp.content
        if content.is_eof() and content.exception() is None and content.total_bytes <= CHUNK:
            return content.read_nowait()
        return None

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
                data=request.body,
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
    chunk_size: int = CHUNK
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
