"""HttpClient: redirects, retries, budgets, decoding and the cache, through MockTransport and a real server."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import brotli
import pytest

from sitemapkit import FetchError, TooManyRedirectsError
from sitemapkit.fetch import (
    HttpClient,
    HttpResponse,
    MockResponse,
    MockTransport,
    ResponseTooLargeError,
    RetryPolicy,
    Timeouts,
    TransportError,
    TransportRequest,
)
from sitemapkit.fetch._http import DEFAULT_USER_AGENT
from sitemapkit.fetch._retry import parse_retry_after
from tests.support.server import LocalServer, Response

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def mock_get(handler: Callable[[TransportRequest], MockResponse], url: str = "https://ex.com/a",
             **kw: object) -> tuple[HttpResponse, MockTransport, Sleeps]:
    transport = MockTransport(handler)
    sleeps = Sleeps()

    async def go() -> HttpResponse:
        async with HttpClient(transport=transport, sleep=sleeps, **kw) as client:  # type: ignore[arg-type]
            return await client.get(url)

    return run(go()), transport, sleeps


# --- redirects ---------------------------------------------------------------------------------------------


def test_redirects_are_followed_and_recorded() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        if req.url.endswith("/a"):
            return MockResponse(301, headers={"Location": "/b"})
        if req.url.endswith("/b"):
            return MockResponse(302, headers={"Location": "https://ex.com/c"})
        return MockResponse(200, b"done")

    resp, transport, _ = mock_get(handler)
    assert resp.status == 200
    assert resp.body == b"done"
    assert resp.final_url == "https://ex.com/c"
    assert resp.redirects == (("https://ex.com/a", 301), ("https://ex.com/b", 302))
    assert [r.url for r in transport.requests] == ["https://ex.com/a", "https://ex.com/b", "https://ex.com/c"]


def test_redirect_loop_is_detected() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        return MockResponse(301, headers={"Location": "/b" if req.url.endswith("/a") else "/a"})

    with pytest.raises(TooManyRedirectsError, match="loop"):
        mock_get(handler)


def test_redirect_chain_is_bounded() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        n = int(req.url.rsplit("/", 1)[1].strip("a") or 0)
        return MockResponse(302, headers={"Location": f"/{n + 1}"})

    with pytest.raises(TooManyRedirectsError, match="more than 3"):
        mock_get(handler, max_redirects=3)


def test_error_status_is_a_value_and_user_agent_is_sent() -> None:
    resp, transport, _ = mock_get(lambda req: MockResponse(404, b"nope"))
    assert resp.status == 404
    assert not resp.ok
    assert transport.requests[0].headers["User-Agent"] == DEFAULT_USER_AGENT
    assert DEFAULT_USER_AGENT.startswith("sitemapkit/")
    assert "gzip" in transport.requests[0].headers["Accept-Encoding"]
    with pytest.raises(FetchError):
        resp.raise_for_status()


# --- retries -----------------------------------------------------------------------------------------------


def test_retry_after_seconds_and_date_are_honoured() -> None:
    answers = iter([MockResponse(429, headers={"Retry-After": "7"}),
                    MockResponse(503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
                    MockResponse(200, b"ok")])
    resp, transport, sleeps = mock_get(lambda req: next(answers), retry=RetryPolicy(retry_after_max=5))
    assert resp.status == 200
    assert resp.attempts == 3
    assert sleeps.waits == [5, 0.0]  # 7 s capped at 5; a date in the past means "now"
    assert len(transport.requests) == 3


def test_backoff_grows_with_jitter_and_gives_up() -> None:
    resp, transport, sleeps = mock_get(lambda req: MockResponse(500),
                                       retry=RetryPolicy(max_retries=3, backoff_base=1.0))
    assert resp.status == 500  # the last answer is returned as a value
    assert len(transport.requests) == 4
    assert 0.5 <= sleeps.waits[0] <= 1.0
    assert 1.0 <= sleeps.waits[1] <= 2.0
    assert 2.0 <= sleeps.waits[2] <= 4.0


def test_connection_errors_are_retried_then_raised() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        raise TransportError("connection refused", url=req.url)

    with pytest.raises(TransportError, match="refused"):
        mock_get(handler, retry=RetryPolicy(max_retries=2))


def test_404_is_not_retried() -> None:
    _, transport, sleeps = mock_get(lambda req: MockResponse(404))
    assert len(transport.requests) == 1
    assert sleeps.waits == []


def test_parse_retry_after() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Thu, 01 Jan 1970 00:00:10 GMT", now=0.0) == 10.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


# --- decoding and budget -------------------------------------------------------------------------------------

PAYLOAD = b"<urlset>" + b"x" * 5000 + b"</urlset>"


@pytest.mark.parametrize(("encoding", "encode"), [
    ("gzip", gzip.compress),
    ("x-gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda d: zlib.compress(d)[2:-4]),  # raw deflate, as some servers send
    ("br", brotli.compress),
    ("identity", lambda d: d),
])
def test_content_encodings(encoding: str, encode: Callable[[bytes], bytes]) -> None:
    body = encode(PAYLOAD)
    resp, _, _ = mock_get(lambda req: MockResponse(200, body, {"Content-Encoding": encoding}, chunk_size=100))
    assert resp.body == PAYLOAD
    assert resp.wire_bytes == len(body)


def test_mislabelled_content_encoding_is_passed_through() -> None:
    resp, _, _ = mock_get(lambda req: MockResponse(200, PAYLOAD, {"Content-Encoding": "gzip"}))
    assert resp.body == PAYLOAD


def test_gzip_file_with_content_encoding_gzip_keeps_one_layer() -> None:
    inner = gzip.compress(PAYLOAD)
    resp, _, _ = mock_get(lambda req: MockResponse(200, gzip.compress(inner), {"Content-Encoding": "gzip"}))
    assert resp.body == inner  # the HTTP layer is undone; the file's own gzip is the reader's job


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_decompression_bomb_is_aborted(encoding: str) -> None:
    bomb_src = b"\0" * 4_000_000
    body = gzip.compress(bomb_src) if encoding == "gzip" else brotli.compress(bomb_src)
    with pytest.raises(ResponseTooLargeError, match="decoded body") as info:
        mock_get(lambda req: MockResponse(200, body, {"Content-Encoding": encoding}), max_bytes=100_000)
    assert info.value.limit == 100_000


def test_download_over_budget_is_aborted_early() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        return MockResponse(200, b"y" * 1_000_000, chunk_size=10_000)

    with pytest.raises(ResponseTooLargeError, match="download aborted"):
        mock_get(handler, max_bytes=50_000)
    with pytest.raises(ResponseTooLargeError, match="Content-Length"):
        mock_get(lambda req: MockResponse(200, b"z", {"Content-Length": "999999999"}), max_bytes=50_000)


def test_truncated_body_is_retried_then_raised() -> None:
    with pytest.raises(TransportError, match="incomplete"):
        mock_get(lambda req: MockResponse(200, b"abcdef", fail_after=3), retry=RetryPolicy(max_retries=1))


# --- cache ---------------------------------------------------------------------------------------------------


def test_conditional_requests_use_the_cache(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []

    def handler(req: TransportRequest) -> MockResponse:
        seen.append(dict(req.headers))
        if req.headers.get("If-None-Match") == '"v1"':
            return MockResponse(304, headers={"ETag": '"v1"'})
        return MockResponse(200, b"body-v1", {"ETag": '"v1"', "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"})

    first, _, _ = mock_get(handler, cache=tmp_path / "cache")
    second, _, _ = mock_get(handler, cache=tmp_path / "cache")
    assert first.body == second.body == b"body-v1"
    assert not first.from_cache
    assert second.from_cache
    assert second.status == 200
    assert "If-None-Match" not in seen[0]
    assert seen[1]["If-None-Match"] == '"v1"'
    assert seen[1]["If-Modified-Since"].startswith("Mon")
    assert not list((tmp_path / "cache").glob(".tmp-*"))


# --- a real server ---------------------------------------------------------------------------------------------


def fast_client(**kw: object) -> HttpClient:
    return HttpClient(timeouts=Timeouts(connect=1.0, read=0.3, total=5.0),
                      retry=RetryPolicy(max_retries=2, backoff_base=0.01, retry_after_max=0.05), **kw)  # type: ignore[arg-type]


def test_keep_alive_and_gzip_over_a_real_server(server: LocalServer) -> None:
    server.route("/a", gzip.compress(PAYLOAD), headers={"Content-Encoding": "gzip"})
    accepted: list[object] = []
    httpd = server._httpd
    original = httpd.get_request

    def counting_get_request() -> tuple[object, object]:
        conn = original()
        accepted.append(conn[1])
        return conn

    httpd.get_request = counting_get_request  # type: ignore[method-assign]

    async def go() -> list[HttpResponse]:
        async with fast_client() as client:
            return [await client.get(server.url("/a")) for _ in range(5)]

    responses = run(go())
    assert all(r.body == PAYLOAD for r in responses)
    assert server.hits("/a") == 5
    assert len(accepted) == 1  # one connection, kept alive for all five requests


def test_slow_response_times_out_then_fails(server: LocalServer) -> None:
    server.route("/slow", handler=lambda req: Response(200, b"late", delay=1.0))

    async def go() -> HttpResponse:
        async with fast_client() as client:
            return await client.get(server.url("/slow"))

    with pytest.raises(TransportError, match=r"timed out|timeout"):
        run(go())
    assert server.hits("/slow") == 3  # first try + 2 retries


def test_429_then_503_then_success(server: LocalServer) -> None:
    answers = iter([Response(429, headers={"Retry-After": "1"}), Response(503, headers={"Retry-After": "1"}),
                    Response(200, b"finally")])
    server.route("/busy", handler=lambda req: next(answers))

    async def go() -> HttpResponse:
        async with fast_client() as client:
            return await client.get(server.url("/busy"))

    resp = run(go())
    assert resp.status == 200
    assert resp.body == b"finally"
    assert resp.attempts == 3
    times = [r.time for r in server.requests if r.path == "/busy"]
    assert times[1] - times[0] >= 0.04  # waited (Retry-After capped at 0.05 s)


def test_truncated_body_from_a_real_server(server: LocalServer) -> None:
    server.route("/cut", handler=lambda req: Response(200, b"x" * 10_000, close_after=100))

    async def go() -> HttpResponse:
        async with fast_client() as client:
            return await client.get(server.url("/cut"))

    with pytest.raises(TransportError):
        run(go())


def test_connection_refused() -> None:
    async def go() -> HttpResponse:
        async with fast_client() as client:
            return await client.get("http://127.0.0.1:9/nothing")

    with pytest.raises(FetchError):
        run(go())


def test_per_host_limit(server: LocalServer) -> None:
    server.route("/w", handler=lambda req: Response(200, b"ok", delay=0.1))

    async def go() -> float:
        async with fast_client(per_host_limit=2) as client:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            await asyncio.gather(*(client.get(server.url("/w")) for _ in range(4)))
            return loop.time() - t0

    elapsed = run(go())
    assert elapsed >= 0.19  # 4 requests, 2 at a time, 0.1 s each


@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_truncate_keeps_the_first_bytes(encoding: str | None) -> None:
    raw = b"".join(b"line %06d\n" % i for i in range(20_000))
    body = gzip.compress(raw) if encoding else raw
    headers = {"Content-Encoding": encoding} if encoding else {"Content-Length": str(len(body))}
    transport = MockTransport(lambda req: MockResponse(200, body, headers, chunk_size=4096))

    async def go() -> HttpResponse:
        async with HttpClient(transport=transport) as client:
            return await client.get("https://ex.com/robots.txt", max_bytes=50_000, truncate=True)

    resp = asyncio.run(go())
    assert resp.truncated
    assert 0 < len(resp.body) <= 50_000
    assert raw.startswith(resp.body)
