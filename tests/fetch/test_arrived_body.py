"""A body that arrived with its headers is taken at once (no per-chunk stall timer); a larger one is streamed."""

from __future__ import annotations

import asyncio
import gzip

import pytest

from sitemapkit.fetch import HttpClient, Timeouts, _decode


async def _get_all(bodies: dict[str, tuple[bytes, str]]) -> dict[str, bytes]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ")[1].decode()
            body, encoding = bodies[path]
            extra = f"Content-Encoding: {encoding}\r\n" if encoding else ""
            writer.write(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body)  # one write
            await writer.drain()
            if reader.at_eof():
                break

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with HttpClient(timeouts=Timeouts(connect=5.0, read=5.0, total=10.0)) as client:
            out = {}
            for path in bodies:
                resp = await client.get(f"http://127.0.0.1:{port}{path}")
                assert resp.status == 200
                out[path] = resp.body
            return out
    finally:
        server.close()


def test_small_bodies_are_taken_whole_and_large_ones_streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    streamed: list[str] = []
    real = _decode.stalling

    def counting(chunks, stall, url):  # type: ignore[no-untyped-def]
        streamed.append(url.rsplit("/", 1)[1])
        return real(chunks, stall, url)

    monkeypatch.setattr(_decode, "stalling", counting)
    small, large = b"<html>" + b"x" * 3000 + b"</html>", bytes(range(256)) * 1200  # 3 kB, 300 kB
    bodies = {"/small": (small, ""), "/gz": (gzip.compress(small), "gzip"), "/large": (large, ""), "/empty": (b"", "")}
    got = asyncio.run(_get_all(bodies))
    assert got == {"/small": small, "/gz": small, "/large": large, "/empty": b""}
    assert streamed == ["large"]  # the others came with their headers
