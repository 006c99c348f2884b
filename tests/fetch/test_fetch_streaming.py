"""The fetch layer under the byte budget (issue 22): bodies are parsed as they arrive, Content-Encoding is undone
piece by piece into the reader, an index's children are streamed (never held whole), and stalled children are
fetched side by side, each bounded by the stall timeout."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import ClassVar

import brotli
import pytest
from click.testing import CliRunner

import sitemapkit.fetch._walk as walk_module
from sitemapkit.cli import cli
from sitemapkit.fetch import HttpClient, MockResponse, MockTransport, WalkOptions, walk
from sitemapkit.fetch._decode import ResponseTooLargeError
from sitemapkit.fetch._items import EntryBatch, SitemapNode
from sitemapkit.fetch._transports import TransportRequest, TransportResponse
from sitemapkit.read import SitemapParser
from tests.support.server import LocalServer, Response
from tests.support.sites import index_xml, urlset_xml

# ------------------------------------------------------------------------------------------------ helpers


class _GatedResponse:
    """A body sent in two parts: ``first``, then (once ``gate`` is set) ``rest``: what a slow server streaming a
    long document looks like. ``finished`` is set once the whole body was handed out."""

    def __init__(self, first: bytes, rest: bytes, gate: asyncio.Event, headers: Mapping[str, str]) -> None:
        self.status = 200
        self.headers = dict(headers)
        self._first, self._rest, self._gate = first, rest, gate
        self.finished = False

    async def iter_chunks(self) -> AsyncIterator[bytes]:
        yield self._first
        await self._gate.wait()
        yield self._rest
        self.finished = True

    async def aclose(self) -> None:
        return None


class _GatedTransport:
    def __init__(self, first: bytes, rest: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.gate = asyncio.Event()
        self.response = _GatedResponse(first, rest, self.gate, headers or {})
        self.requests: list[str] = []

    async def send(self, request: TransportRequest) -> TransportResponse:
        self.requests.append(request.url)
        if len(self.requests) == 1:
            return self.response
        return _GatedResponse(b"", b"", self.gate, {})  # a child: empty, status 200

    async def aclose(self) -> None:
        return None


def _split(body: bytes, at: bytes) -> tuple[bytes, bytes]:
    cut = body.index(at)
    return body[:cut], body[cut:]


# ------------------------------------------------------------------------------------------------ streaming


def test_a_long_text_body_is_parsed_as_it_arrives() -> None:
    """The first URLs come out while the rest of the body has not been sent yet (before: the body was read whole
    first, so nothing came out until the server was done)."""
    lines = [f"https://x.test/p/{i}" for i in range(20_000)]
    body = ("\n".join(lines) + "\n").encode()
    first, rest = _split(body, b"https://x.test/p/15000\n")
    transport = _GatedTransport(first, rest, {"content-type": "text/plain"})

    async def go() -> tuple[list[str], bool]:
        urls: list[str] = []
        seen_before_end = False
        async with HttpClient(transport=transport) as client:
            async with asyncio.timeout(10):  # a guard only: before the fix the walk waits for the gate forever
                async for item in walk(["https://x.test/list.txt"], client=client):
                    if isinstance(item, EntryBatch) and item.entries and not transport.gate.is_set():
                        seen_before_end = not transport.response.finished
                        transport.gate.set()  # the consumer saw URLs: now the server may finish
                    if isinstance(item, EntryBatch):
                        urls.extend(e.loc for e in item.entries)
        return urls, seen_before_end

    urls, seen_before_end = asyncio.run(go())
    assert seen_before_end
    assert urls == lines


def test_an_index_streams_its_children_and_keeps_only_a_bounded_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """An index's child sitemaps go out (EntryBatch.refs) as they are read, before its body ends; the node keeps
    at most the cap of them (child_count counts all), and only the ones it may fetch are scheduled."""
    monkeypatch.setattr(walk_module, "_NODE_CHILDREN", 100)
    children = [f"https://x.test/s/{i}.xml" for i in range(5_000)]
    body = index_xml(children)
    first, rest = _split(body, b"https://x.test/s/4000.xml")
    transport = _GatedTransport(first, rest, {"content-type": "application/xml"})

    async def go() -> tuple[list[str], list[SitemapNode], bool]:
        refs: list[str] = []
        nodes: list[SitemapNode] = []
        before_end = False
        async with HttpClient(transport=transport) as client:
            async with asyncio.timeout(10):
                async for item in walk(["https://x.test/index.xml"], client=client,
                                       options=WalkOptions(max_sitemaps=6)):
                    if isinstance(item, EntryBatch):
                        if item.refs and not transport.gate.is_set():
                            before_end = not transport.response.finished
                            transport.gate.set()
                        refs.extend(r.loc for r in item.refs)
                    else:
                        assert isinstance(item, SitemapNode)
                        nodes.append(item)
        return refs, nodes, before_end

    refs, nodes, before_end = asyncio.run(go())
    assert before_end
    assert refs == children
    index = nodes[0]
    assert index.child_count == 5_000
    assert index.children == tuple(children[:100])
    assert index.child_refs == ()
    assert [n.url for n in nodes[1:]] == children[:5]  # the index counts as one of the 6 sitemaps
    assert len(transport.requests) == 6
    (limit,) = [p for p in index.problems if p.code == "SM508"]
    assert "4995 child sitemap(s) not fetched" in limit.message


# ------------------------------------------------------------------------------------------------ decoding


def _urlset_bytes(n: int) -> bytes:
    return urlset_xml([f"https://x.test/p/{i}" for i in range(n)])


def test_the_decoder_hands_out_a_bomb_piece_by_piece() -> None:
    """One network read of a brotli bomb decodes lazily, in pieces of at most PIECE bytes: taking two pieces has
    decoded two pieces' worth, not the read's whole output; going on stops at the budget."""
    from sitemapkit.fetch._decode import PIECE, BodyDecoder
    plain = _urlset_bytes(200_000)  # ~8 MB once decoded
    wire = brotli.compress(plain, quality=5)
    assert len(wire) < PIECE
    decoder = BodyDecoder({"content-encoding": "br"}, url="https://x.test/b", budget=4_000_000)
    pieces = decoder.feed(wire)
    taken = [next(pieces), next(pieces)]
    assert all(0 < len(p) <= PIECE for p in taken)
    assert decoder.produced == sum(map(len, taken))
    sizes: list[int] = []
    with pytest.raises(ResponseTooLargeError):
        sizes.extend(len(piece) for piece in pieces)
    assert max(sizes) <= PIECE
    assert decoder.produced <= 4_000_000


class _Sink(SitemapParser):
    """The reader, recording what it is fed."""

    fed: ClassVar[list[int]] = []

    def feed_steps(self, data: bytes) -> Iterator[list[object]]:  # type: ignore[override]
        _Sink.fed.append(len(data))
        return super().feed_steps(data)  # type: ignore[return-value]


@pytest.mark.parametrize("coding", ["br", "gzip, br", "deflate", "gzip"])
def test_a_content_encoding_bomb_is_read_into_the_parser_until_the_budget(
        coding: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The decoded bytes go to the reader as they come, in bounded slices: URLs are handed over before the budget
    stops the document (SM504); before, the whole decoded body was held, and refused before any was read."""
    import zlib

    plain = _urlset_bytes(150_000)  # ~6 MB decoded
    wire = plain
    for c in [c.strip() for c in coding.split(",")]:
        if c == "br":
            wire = brotli.compress(wire, quality=5)
        elif c == "gzip":
            co = zlib.compressobj(9, zlib.DEFLATED, 31)
            wire = co.compress(wire) + co.flush()
        else:
            wire = zlib.compress(wire, 9)
    _Sink.fed = []
    monkeypatch.setattr(walk_module, "SitemapParser", _Sink)
    transport = MockTransport(lambda r: MockResponse(200, wire, {"Content-Encoding": coding}, chunk_size=1 << 20))

    async def go() -> tuple[int, list[SitemapNode]]:
        entries = 0
        nodes: list[SitemapNode] = []
        async with HttpClient(transport=transport) as client:
            async for item in walk(["https://x.test/bomb.xml"], client=client,
                                   options=WalkOptions(max_bytes=2_000_000)):
                if isinstance(item, EntryBatch):
                    entries += len(item.entries)
                else:
                    assert isinstance(item, SitemapNode)
                    nodes.append(item)
        return entries, nodes

    entries, nodes = asyncio.run(go())
    assert [p.code for p in nodes[0].problems if p.is_error] == ["SM504"]
    assert entries > 10_000
    assert _Sink.fed
    assert max(_Sink.fed) <= walk_module._SLICE
    assert sum(_Sink.fed) <= 2_000_000


def test_urls_cli_prints_urls_of_a_br_bomb_before_stopping_at_the_budget(server: LocalServer) -> None:
    """End to end: the real client over a real socket."""
    plain = _urlset_bytes(120_000)
    server.route("/bomb.xml", handler=lambda req: Response(
        200, brotli.compress(plain, quality=5), {"Content-Encoding": "br", "Content-Type": "application/xml"}))
    result = CliRunner().invoke(cli, ["urls", server.url("/bomb.xml"), "--max-bytes", "1000000", "--quiet"])
    assert result.exit_code == 1
    assert "SM504" in result.output
    assert result.output.count("https://x.test/p/") > 5_000


# ------------------------------------------------------------------------------------------------ stalls


class _StallServer:
    """An index of ``n`` children on 127.0.0.1 (port 0); each child sends its headers and 50 bytes, then nothing
    until the test ends. Records how many children were open at once, and the requests."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.open = 0
        self.most = 0
        self.paths: list[str] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _accept(self) -> None:
        while not self.release.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                more = conn.recv(4096)
                if not more:
                    return
                data += more
            path = data.split(b" ", 2)[1].decode()
            with self.lock:
                self.paths.append(path)
            if path == "/index.xml":
                body = index_xml([self.url(f"/c{i}.xml") for i in range(self.n)])
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n"
                             b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
                return
            with self.lock:
                self.open += 1
                self.most = max(self.most, self.open)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n"
                             + _urlset_bytes(1)[:50])
                conn.settimeout(0.05)
                while not self.release.is_set():  # stall: send nothing more until the client goes away
                    try:
                        if not conn.recv(1):
                            break
                    except TimeoutError:
                        continue
                    except OSError:
                        break
            finally:
                with self.lock:
                    self.open -= 1

    def close(self) -> None:
        self.release.set()
        self.sock.close()


@pytest.fixture
def stall_server() -> Iterator[_StallServer]:
    srv = _StallServer(8)
    try:
        yield srv
    finally:
        srv.close()


def test_stalled_children_are_fetched_side_by_side_and_each_fails_once(stall_server: _StallServer) -> None:
    """Eight children that stall after 50 bytes: they are requested side by side (the per-host limit of 4 open at
    once), each fails after --stall-timeout without bytes, and a body that stalled is not tried again. Before, a
    child of unknown size counted as the whole read-ahead budget, so they went one at a time, each retried."""
    result = CliRunner().invoke(cli, ["urls", stall_server.url("/index.xml"), "--stall-timeout", "1",
                                       "--deadline", "60", "--retry-backoff", "0.01", "--quiet"])
    assert result.exit_code == 1, result.output
    # side by side, at most the per-host limit of 4 (+1: the server counts a closing connection a moment longer)
    assert 2 <= stall_server.most <= 5
    children = sorted(p for p in stall_server.paths if p != "/index.xml")
    assert children == sorted(f"/c{i}.xml" for i in range(8))  # each once: no retry of a stalled body
    stalled = [line for line in result.output.splitlines() if "SM501" in line]
    assert len(stalled) == 8
    assert all("no bytes for 1 s while reading the body" in line for line in stalled), stalled


@pytest.mark.parametrize("step", [1, 7, 1611, 100_000])
def test_gzip_members_and_trailing_bytes_decode_whole_however_the_reads_fall(step: int) -> None:
    """Concatenated gzip members (each one's end may fall anywhere in a read), and bytes after a deflate stream
    (ignored): the pieces add up to the body, and decoding ends."""
    import gzip
    import zlib

    from sitemapkit.fetch._decode import BodyDecoder

    member = gzip.compress(b"<url><loc>https://x.test/a</loc></url>\n" * 12_000, 9)
    data = gzip.compress(b"head") + member * 3
    decoder = BodyDecoder({"content-encoding": "gzip"}, url="https://x.test/m", budget=10_000_000)
    out = b"".join(p for i in range(0, len(data), step) for p in decoder.feed(data[i : i + step]))
    assert out == b"head" + b"<url><loc>https://x.test/a</loc></url>\n" * 36_000
    deflated = zlib.compress(b"x" * 1_000_000) + b"trailing"
    decoder = BodyDecoder({"content-encoding": "deflate"}, url="https://x.test/d", budget=10_000_000)
    assert b"".join(decoder.feed(deflated)) == b"x" * 1_000_000


def test_the_stall_timeout_default_is_one_constant() -> None:
    from sitemapkit.fetch._sources import FetchSettings
    from sitemapkit.fetch._transports import STALL_TIMEOUT, Timeouts

    assert FetchSettings().stall_timeout == Timeouts().read == STALL_TIMEOUT
    assert FetchSettings(stall_timeout=2.5).client().timeouts.read == 2.5


def test_urls_cli_prints_a_text_list_while_the_server_is_still_sending() -> None:
    """End to end, a real process over a real socket: the first URL reaches standard output while the server holds
    the rest of the body back (it sends the rest once the test has read that line, or after 20 s: before the fix,
    nothing came out until then)."""
    import subprocess
    import sys

    release = threading.Event()
    sent_rest = threading.Event()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    port = sock.getsockname()[1]

    def serve() -> None:
        conn, _ = sock.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                         + "".join(f"https://x.test/a/{i}\n" for i in range(1_000)).encode())
            release.wait(20)
            sent_rest.set()
            conn.sendall("".join(f"https://x.test/b/{i}\n" for i in range(1_000)).encode())

    threading.Thread(target=serve, daemon=True).start()
    try:
        with subprocess.Popen([sys.executable, "-m", "sitemapkit", "urls", "-q", f"http://127.0.0.1:{port}/l.txt"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            held_back = not sent_rest.is_set()
            release.set()
            rest = proc.stdout.read()
            assert proc.wait(timeout=60) == 0
    finally:
        release.set()
        sock.close()
    assert first == b"https://x.test/a/0\n"
    assert held_back
    assert rest.count(b"\n") == 1_999
