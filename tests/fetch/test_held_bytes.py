"""Bodies fetched ahead of their turn are bounded in bytes (WalkOptions.max_bytes_ahead), without changing what the
walk hands over or in which order; a body is handed to the reader in the same slices whether it came whole or in
pieces, and freed as it is read."""

from __future__ import annotations

import asyncio
import gzip
import random
from typing import Any, ClassVar

import pytest

import sitemapkit.fetch._walk as walk_module
from sitemapkit.fetch import (
    EntryBatch,
    HttpClient,
    MockResponse,
    MockTransport,
    SitemapNode,
    TransportRequest,
    WalkOptions,
    walk,
)
from sitemapkit.fetch._order import HeldBody, HeldBytes, Sequencer
from tests.support.server import LocalServer
from tests.support.sites import index_xml, urlset_xml

CHILDREN = 8
PER_CHILD = 7_000  # ~0.4 MB a child
BUDGET = 1_000_000


class _Recorder(HeldBytes):
    """HeldBytes that keeps every instance, so a test can read the most held at once after a walk."""

    made: ClassVar[list[HeldBytes]] = []

    def __init__(self, order: Sequencer, budget: int | None) -> None:
        super().__init__(order, budget)
        _Recorder.made.append(self)


def _serve_big_tree(server: LocalServer) -> tuple[str, list[bytes]]:
    bodies: list[bytes] = []
    children: list[str] = []
    for c in range(CHILDREN):
        # odd ones on purpose: every loc is unique, with entities and non-ASCII in some
        locs = [f"{server.url('/')}c{c}/page-{i}?a=1&amp;b={i}" if i % 7 == 0 else
                f"{server.url('/')}c{c}/caf\u00e9-{i}" if i % 11 == 0 else f"{server.url('/')}c{c}/p{i}"
                for i in range(PER_CHILD)]
        body = urlset_xml(locs)
        bodies.append(body)
        server.route(f"/c{c}.xml", body, content_type="application/xml")
        children.append(server.url(f"/c{c}.xml"))
    server.route("/index.xml", index_xml(children), content_type="application/xml")
    return server.url("/index.xml"), bodies


def _walk(url: str, budget: int | None) -> tuple[list[str], list[str], int]:
    """Walk ``url`` with a slow consumer (every fetch that is allowed to run ahead has time to finish); returns the
    URLs, the node order and the most body bytes held at once."""
    _Recorder.made.clear()

    async def go() -> tuple[list[str], list[str]]:
        urls: list[str] = []
        nodes: list[str] = []
        async with HttpClient(per_host_limit=CHILDREN) as client:
            options = WalkOptions(concurrency=CHILDREN, max_bytes_ahead=budget)
            async for item in walk([url], client=client, options=options):
                if isinstance(item, EntryBatch):
                    urls.extend(e.loc for e in item.entries)
                    await asyncio.sleep(0.002)  # a slow consumer: fetches run ahead as far as they may
                else:
                    assert isinstance(item, SitemapNode)
                    assert not item.problems, item.problems
                    nodes.append(item.url)
        return urls, nodes

    urls, nodes = asyncio.run(go())
    (held,) = _Recorder.made
    assert held.held == 0  # everything booked was released
    assert held.underway == 0
    return urls, nodes, held.peak


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk_module, "HeldBytes", _Recorder)


def test_bytes_held_ahead_are_bounded_and_order_is_unchanged(server: LocalServer, recorder: None) -> None:
    url, bodies = _serve_big_tree(server)
    body = max(map(len, bodies))
    assert 2 * body < BUDGET < 3 * body
    bounded = _walk(url, BUDGET)
    unbounded = _walk(url, None)
    one_at_a_time = _walk(url, 1)  # the job whose turn it is always goes: no deadlock however small the budget
    expected = [f"{server.url('/')}c{c}/" + (f"page-{i}?a=1&b={i}" if i % 7 == 0 else
                                              "caf%C3%A9-" + str(i) if i % 11 == 0 else f"p{i}")
                for c in range(CHILDREN) for i in range(PER_CHILD)]
    for urls, nodes, _ in (bounded, unbounded, one_at_a_time):
        assert urls == expected
        assert nodes == [url] + [server.url(f"/c{c}.xml") for c in range(CHILDREN)]
    assert unbounded[2] >= 5 * body  # without the bound, the slow consumer lets every fetch finish ahead
    assert bounded[2] <= BUDGET  # siblings of equal size: the guess is right, the budget holds
    assert bounded[2] > body  # and a fetch did run ahead of the one being read
    assert one_at_a_time[2] <= 2 * body


def test_small_bodies_still_fetch_at_full_concurrency() -> None:
    """Many small sitemaps of unknown size are fetched at once (a sibling not fetched yet is expected to bring
    nothing: its bytes are booked as they arrive, and a body that would not fit is fetched again at its turn)."""
    n = 6
    in_flight = 0
    most = 0

    async def handler(request: TransportRequest) -> MockResponse:
        nonlocal in_flight, most
        if request.url.endswith("/index.xml"):
            return MockResponse(200, index_xml([f"https://x.test/s{i}.xml" for i in range(n)]))
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.05)
        in_flight -= 1
        return MockResponse(200, urlset_xml([f"https://x.test/{request.url[-6:-4]}-{j}" for j in range(3)]))

    async def go() -> list[str]:
        async with HttpClient(transport=MockTransport(handler), per_host_limit=n) as client:
            return [e.loc async for item in walk(["https://x.test/index.xml"], client=client,
                                                 options=WalkOptions(concurrency=n, max_bytes_ahead=1 << 20))
                    if isinstance(item, EntryBatch) for e in item.entries]

    urls = asyncio.run(go())
    assert urls == [f"https://x.test/s{i}-{j}" for i in range(n) for j in range(3)]
    assert most == n


@pytest.mark.parametrize("seed", range(6))
def test_held_body_slices_as_the_whole_body_would_be_sliced(seed: int) -> None:
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 5000)))
    cuts = sorted(rng.sample(range(1, max(2, len(data))), min(len(data) - 1, rng.randrange(0, 12)))) \
        if len(data) > 1 else []
    parts = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    step = rng.choice([1, 7, 64, 1000, 8192])
    held = HeldBytes(Sequencer(), budget=10)
    held.book(len(data))
    body = HeldBody(list(parts), held)
    assert body.size == len(data)
    assert body.head(4096) == data[:4096]
    assert body.head(3) == data[:3]
    got = list(body.slices(step))
    assert got == [data[i : i + step] for i in range(0, len(data), step)]
    assert held.held == 0
    assert body.left == 0
    body.drop()  # dropping after reading releases nothing twice
    assert held.held == 0


def test_held_body_dropped_unread_releases_everything() -> None:
    held = HeldBytes(Sequencer(), budget=None)
    held.book(10)
    body = HeldBody([b"abc", b"defg", b"hij"], held)
    pieces = body.slices(4)
    assert next(pieces) == b"abcd"
    body.drop()
    assert held.held == 0


@pytest.mark.parametrize("encoding", ["", "gzip"])
def test_get_as_parts_joins_to_the_body(encoding: str) -> None:
    payload = urlset_xml(f"https://x.test/p{i}" for i in range(20_000))
    sent = gzip.compress(payload) if encoding else payload
    headers = {"Content-Encoding": encoding} if encoding else {}

    def handler(_: TransportRequest) -> MockResponse:
        return MockResponse(200, sent, headers, chunk_size=10_000)

    async def go() -> tuple[Any, Any]:
        async with HttpClient(transport=MockTransport(handler)) as client:
            return await client.get("https://x.test/a.xml"), await client.get("https://x.test/a.xml",
                                                                              as_parts=True)

    whole, parts = asyncio.run(go())
    assert whole.parts is None
    assert whole.body == payload
    assert parts.body == b""
    assert parts.parts is not None
    assert len(parts.parts) > 1
    assert b"".join(parts.parts) == payload
    assert (parts.status, parts.final_url, parts.wire_bytes) == (whole.status, whole.final_url, whole.wire_bytes)
