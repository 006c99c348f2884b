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

The parts live next door: transports in :mod:`._transports`, the decoder in :mod:`._decode`, the retry policy
in :mod:`._retry`, the cache in :mod:`._cache`. The body is never interpreted here: the reader sniffs bytes,
whatever Content-Type or extension claims.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self
from urllib.parse import urljoin, urlsplit

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, FetchError, HTTPStatusError, TooManyRedirectsError
from sitemapkit.fetch._addresses import AddressPolicy
from sitemapkit.fetch._agent import DEFAULT_USER_AGENT
from sitemapkit.fetch._cache import HttpCache
from sitemapkit.fetch._decode import BodyDecoder, DecodedBody, read_body, refuse_oversized
from sitemapkit.fetch._retry import RetryPolicy, parse_retry_after
from sitemapkit.fetch._stream import ClientStats, HttpStream, StreamLimits
from sitemapkit.fetch._transports import (
    AddressRefusedError,
    AiohttpTransport,
    Timeouts,
    Transport,
    TransportError,
    TransportRequest,
)

__all__ = ["DEFAULT_USER_AGENT", "ClientStats", "HttpClient", "HttpResponse", "HttpStream"]




_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


# --------------------------------------------------------------------------------------------------- response


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A complete response: any status is a value.

    ``url`` is what was asked for, ``final_url`` where the body came from, ``redirects`` the hops taken as
    ``(url, status)`` pairs, ``body`` the bytes once Content-Encoding is undone (a gzip *file* stays gzip: the
    reader sniffs it), ``wire_bytes`` what travelled over the network, ``elapsed`` seconds for all of it
    (including retries), ``from_cache`` True when a conditional request came back 304 and the cached body is
    returned, ``attempts`` how many tries the final hop took. ``parts``: with ``get(..., as_parts=True)``, the
    body as the pieces it arrived in (``body`` is then empty): a reader that takes them in turn and drops each one
    never holds the body whole, nor twice while joining it."""

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
    parts: tuple[bytes, ...] | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def raise_for_status(self) -> None:
        if not self.ok:
            raise HTTPStatusError(self.status, url=self.final_url)




# --------------------------------------------------------------------------------------------------- client


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
            from sitemapkit.core import ConfigurationError

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
        truncate: bool = False, as_parts: bool = False,
    ) -> HttpResponse:
        """GET ``url`` following redirects; returns any final status as a value (see the module docstring).

        ``truncate=True`` keeps the first ``max_bytes`` of an oversized body (``truncated`` is set on the
        response) instead of raising :class:`ResponseTooLargeError`: what robots.txt readers do (RFC 9309).

        Raises :class:`AddressRefusedError` for a URL or redirect target the address policy refuses, and
        :class:`TransportError` ("timed out after N s (total deadline)") when ``deadline`` runs out.
        ``as_parts``: see :class:`HttpResponse` (not with ``truncate``)."""
        if self.deadline is None:
            return await self._get(url, headers, max_bytes, truncate, None, as_parts)
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.deadline) as scope:
                return await self._get(url, headers, max_bytes, truncate, loop.time() + self.deadline, as_parts)
        except TimeoutError:
            if scope.expired():
                raise TransportError(f"timed out after {self.deadline:g} s (total deadline)", url=url,
                                     retryable=False) from None
            raise

    async def stream(self, url: str, *, headers: Mapping[str, str] | None = None,
                     max_bytes: int | None = None) -> HttpStream:
        """GET ``url`` following redirects, and hand back the final response before its body is read: the
        caller reads :meth:`HttpStream.chunks` as they arrive (and closes the stream). Retries, the address
        policy and redirects work as for :meth:`get`, up to the final response's headers; once its body is
        being read a failure is not retried (the caller has had part of it). ``deadline`` bounds everything,
        the body's reads included; a read that waits longer than ``Timeouts.read`` fails ("stalled"). With a
        cache, the body is fetched whole (:meth:`get`) and handed out in one piece."""
        budget = self.max_bytes if max_bytes is None else max_bytes
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        deadline_at = None if self.deadline is None else loop.time() + self.deadline
        if self.cache is not None:
            resp = await self.get(url, headers=headers, max_bytes=budget)
            return HttpStream(url, resp.final_url, resp.status, resp.headers, resp.redirects, started,
                              resp.attempts, self.stream_limits(), deadline_at, body=resp.body,
                              from_cache=resp.from_cache)
        try:
            async with asyncio.timeout_at(deadline_at) as scope:
                return await self._stream(url, headers, budget, deadline_at, started)
        except TimeoutError:
            if scope.expired():
                raise TransportError(f"timed out after {self.deadline:g} s (total deadline)", url=url,
                                     retryable=False) from None
            raise

    async def _stream(self, url: str, headers: Mapping[str, str] | None, budget: int, deadline_at: float | None,
                      started: float) -> HttpStream:
        redirects: list[tuple[str, int]] = []
        seen = {url}
        current = url
        request_headers = {**self.default_headers, **(headers or {})}
        while True:
            self._check_address(current, url)
            request = TransportRequest("GET", current, request_headers, self.timeouts, None)
            attempt = 0
            while True:
                slot = self._slot(current)
                await slot.acquire()  # held while the body is read: released by HttpStream.aclose
                try:
                    self.stats.requests += 1
                    response = await self.transport.send(request)
                except TransportError as exc:
                    slot.release()
                    if not exc.retryable or attempt >= self.retry.max_retries:
                        raise
                    if not await self._backoff(attempt, None, deadline_at):
                        raise
                    attempt += 1
                    continue
                except BaseException:
                    slot.release()
                    raise
                resp_headers = dict(response.headers)
                status = response.status
                location = resp_headers.get("location")
                redirect = status in _REDIRECT_STATUSES and bool(location)
                if not redirect and not (status in self.retry.statuses and attempt < self.retry.max_retries):
                    try:
                        refuse_oversized(resp_headers, url=current, budget=budget)
                    except BaseException:
                        await response.aclose()
                        slot.release()
                        raise
                    decoder = BodyDecoder(resp_headers, url=current, budget=budget)
                    return HttpStream(url, current, status, resp_headers, tuple(redirects), started, attempt + 1,
                                      self.stream_limits(), deadline_at, response=response, decoder=decoder, slot=slot)
                try:  # a redirect or a status to retry: its body is read (under the budget) and dropped
                    decoded = await read_body(response, resp_headers, url=current, budget=budget, truncate=True,
                                              check_length=False, stall=self.timeouts.read)
                    self.stats.wire_bytes += decoded.wire
                finally:
                    await response.aclose()
                    slot.release()
                if redirect:
                    break
                if not await self._backoff(attempt, resp_headers.get("retry-after"), deadline_at):
                    return HttpStream(url, current, status, resp_headers, tuple(redirects), started, attempt + 1,
                                      self.stream_limits(), deadline_at, body=decoded.body)
                attempt += 1
            assert location is not None
            current = self._redirect_target(url, current, status, location, redirects, seen)

    async def send(self, method: str, url: str, *, data: bytes | None = None,
                   headers: Mapping[str, str] | None = None, max_bytes: int | None = None) -> HttpResponse:
        """One request with a body (POST, PUT): what submitting to search engines and hubs needs. Redirects are
        not followed (the answer comes back as is); the retry policy, the address policy, the byte budget and
        ``deadline`` apply as for :meth:`get`; the cache is not used."""
        budget = self.max_bytes if max_bytes is None else max_bytes
        started = time.monotonic()
        self._check_address(url, url)
        loop = asyncio.get_running_loop()
        deadline_at = None if self.deadline is None else loop.time() + self.deadline
        try:
            async with asyncio.timeout(self.deadline) as scope:
                status, resp_headers, body, _, wire, attempts, _, cut = await self._fetch_one(
                    url, headers, budget, False, deadline_at, method=method, data=data)
        except TimeoutError:
            if scope.expired():
                raise TransportError(f"timed out after {self.deadline:g} s (total deadline)", url=url,
                                     retryable=False) from None
            raise
        return HttpResponse(url=url, final_url=url, status=status, headers=resp_headers, body=body,
                            elapsed=time.monotonic() - started, wire_bytes=wire, attempts=attempts, truncated=cut)

    def stream_limits(self) -> StreamLimits:
        """What bounds the reads of a body this client streams (see :class:`HttpStream`)."""
        return StreamLimits(self.timeouts.read, self.deadline, self.stats)

    def _redirect_target(self, url: str, current: str, status: int, location: str,
                         redirects: list[tuple[str, int]], seen: set[str]) -> str:
        """The URL a redirect from ``current`` leads to, recorded in ``redirects`` and ``seen``; raises for a
        non-HTTP target, a loop, or more than ``max_redirects`` hops (``url`` is the URL first asked for)."""
        target = urljoin(current, location.strip())
        if urlsplit(target).scheme.lower() not in ("http", "https"):
            raise FetchError(f"redirect to a non-HTTP URL {target!r}", url=url)
        redirects.append((current, status))
        if target in seen:
            raise TooManyRedirectsError(f"redirect loop: {current} -> {target}", url=url)
        if len(redirects) > self.max_redirects:
            raise TooManyRedirectsError(f"more than {self.max_redirects} redirects", url=url)
        seen.add(target)
        return target

    def _check_address(self, url: str, asked: str) -> None:
        if self.address_policy is not None:
            why = self.address_policy.check_url(url)
            if why is not None:
                raise AddressRefusedError(why if url == asked else f"redirect to {url} {why}", url=asked)

    async def _get(self, url: str, headers: Mapping[str, str] | None, max_bytes: int | None, truncate: bool,
                   deadline_at: float | None, as_parts: bool = False) -> HttpResponse:
        started = time.monotonic()
        budget = self.max_bytes if max_bytes is None else max_bytes
        redirects: list[tuple[str, int]] = []
        seen = {url}
        current = url
        while True:
            self._check_address(current, url)
            status, resp_headers, body, parts, wire, attempts, cached, cut = await self._fetch_one(
                current, headers, budget, truncate, deadline_at, as_parts=as_parts)
            location = resp_headers.get("location")
            if status in _REDIRECT_STATUSES and location:
                current = self._redirect_target(url, current, status, location, redirects, seen)
                continue
            return HttpResponse(
                url=url, final_url=current, status=status, headers=resp_headers, body=body,
                redirects=tuple(redirects), elapsed=time.monotonic() - started, wire_bytes=wire,
                from_cache=cached, attempts=attempts, truncated=cut, parts=parts,
            )

    async def _fetch_one(
        self, url: str, headers: Mapping[str, str] | None, budget: int, truncate: bool = False,
        deadline_at: float | None = None, method: str = "GET", data: bytes | None = None, as_parts: bool = False,
    ) -> tuple[int, dict[str, str], bytes, tuple[bytes, ...] | None, int, int, bool, bool]:
        """One hop, with retries. Returns (status, headers, body, parts, wire bytes, attempts, from_cache,
        truncated); with ``as_parts`` the body is in ``parts`` (see :class:`HttpResponse`), else parts is None."""
        request_headers = dict(self.default_headers)
        if headers:
            request_headers.update(headers)
        cache = self.cache if method == "GET" else None
        if cache is not None and not any(k.lower() in ("if-none-match", "if-modified-since")
                                         for k in request_headers):
            request_headers.update(cache.validators(url))
        request = TransportRequest(method, url, request_headers, self.timeouts, data)
        attempt = 0
        while True:
            try:
                async with self._slot(url):
                    self.stats.requests += 1
                    status, resp_headers, decoded = await self._attempt(request, budget, truncate, as_parts)
            except TransportError as exc:
                if not exc.retryable or attempt >= self.retry.max_retries:
                    raise
                if not await self._backoff(attempt, None, deadline_at):
                    raise
                attempt += 1
                continue
            body, parts, wire, cut = decoded.body, decoded.parts, decoded.wire, decoded.truncated
            if (status in self.retry.statuses and attempt < self.retry.max_retries
                    and await self._backoff(attempt, resp_headers.get("retry-after"), deadline_at)):
                attempt += 1
                continue
            if status == 304 and cache is not None:
                cached = cache.load(url)
                if cached is not None:
                    self.stats.cache_hits += 1
                    cached_headers, cached_body = cached
                    if parts is not None:
                        cached_body, parts = b"", (cached_body,)
                    return (200, {**cached_headers, **resp_headers}, cached_body, parts, wire, attempt + 1, True,
                            False)
            if status == 200 and cache is not None and not cut:
                cache.store(url, resp_headers, body if parts is None else b"".join(parts))
            return status, resp_headers, body, parts, wire, attempt + 1, False, cut

    async def _backoff(self, attempt: int, retry_after: str | None, deadline_at: float | None = None) -> bool:
        """Wait before retry ``attempt``; False (no wait, no retry) when the wait would outlast the deadline."""
        wait = parse_retry_after(retry_after)
        delay = self.retry.backoff(attempt) if wait is None else min(wait, self.retry.retry_after_max)
        if deadline_at is not None and asyncio.get_running_loop().time() + delay >= deadline_at:
            return False
        self.stats.retries += 1
        await self._sleep(delay)
        return True

    async def _attempt(self, request: TransportRequest, budget: int, truncate: bool = False,
                       as_parts: bool = False) -> tuple[int, dict[str, str], DecodedBody]:
        response = await self.transport.send(request)
        try:
            headers = dict(response.headers)
            status = response.status
            decoded = await read_body(response, headers, url=request.url, budget=budget, truncate=truncate,
                                      check_length=status not in _REDIRECT_STATUSES, as_parts=as_parts,
                                      stall=self.timeouts.read)
            self.stats.wire_bytes += decoded.wire
            self.stats.body_bytes += len(decoded.body) if decoded.parts is None else sum(map(len, decoded.parts))
            return status, headers, decoded
        finally:
            await response.aclose()
