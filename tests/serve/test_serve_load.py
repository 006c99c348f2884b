"""``sitemapkit serve DIR`` under load: a burst of simultaneous clients is answered (socketserver's listen backlog
of 5 dropped most of a burst: 325 of 500 clients answered, the rest timed out), and clients that go away leave
no traceback. Timing is measured by benchmarks/bench_serve_folder.py, not here."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.core import UrlEntry
from sitemapkit.serve import DirectoryServer, serve_directory
from sitemapkit.write import write_sitemaps

BASE = "https://shop.example/"
CLIENTS = 100


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("public")
    write_sitemaps((UrlEntry(f"{BASE}p/{i}") for i in range(120)), out, BASE, max_urls=50)
    (out / "big.txt").write_bytes(b"x" * (4 << 20))
    return out


async def _connect_all(port: int, n: int, limit: float) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    async def one() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        async with asyncio.timeout(limit):
            return await asyncio.open_connection("127.0.0.1", port)

    return list(await asyncio.gather(*(one() for _ in range(n))))


async def _ask_all(port: int, n: int, limit: float) -> list[bytes]:
    async def one() -> bytes:
        async with asyncio.timeout(limit):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET /sitemap.xml HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            data = await reader.read()
            writer.close()
            return data

    return list(await asyncio.gather(*(one() for _ in range(n))))


def test_a_burst_of_connections_waits_in_the_backlog_and_is_answered(folder: Path) -> None:
    server = serve_directory(DirectoryServer(folder), "127.0.0.1", 0)
    port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)

    async def scenario() -> list[bytes]:
        # Nothing accepts yet: every connection must fit in the listen backlog (with 5, the rest were dropped).
        conns = await _connect_all(port, CLIENTS, 10.0)
        for _, writer in conns:
            writer.write(f"GET /sitemap.xml HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        thread.start()
        answers = []
        for reader, writer in conns:
            async with asyncio.timeout(30):
                answers.append(await reader.read())
            writer.close()
        return answers

    try:
        answers = asyncio.run(scenario())
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()
    assert len(answers) == CLIENTS
    assert all(a.startswith(b"HTTP/1.1 200") and b"</sitemapindex>" in a for a in answers)


def test_more_clients_than_connection_slots_are_all_answered(folder: Path) -> None:
    server = serve_directory(DirectoryServer(folder), "127.0.0.1", 0, max_connections=4)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        answers = asyncio.run(_ask_all(int(server.server_address[1]), 40, 30.0))
    finally:
        server.shutdown()
        server.server_close()
    assert all(a.startswith(b"HTTP/1.1 200") for a in answers)


@pytest.fixture
def served_process(folder: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "serve", str(folder), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        assert line.startswith("http://127.0.0.1:"), line
        yield proc, int(line.rsplit(":", 1)[1].strip("/"))
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_the_cli_answers_every_simultaneous_client_and_ignores_clients_that_go_away(
        served_process: tuple[subprocess.Popen[bytes], int]) -> None:
    proc, port = served_process
    answers = asyncio.run(_ask_all(port, CLIENTS, 30.0))
    assert sum(a.startswith(b"HTTP/1.1 200") for a in answers) == CLIENTS

    async def walk_away() -> None:
        for _ in range(10):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET /big.txt HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            await writer.drain()
            await reader.read(10)
            writer.transport.abort()  # a reset in the middle of the answer
        # The server is still there and answers the next client.
        assert (await _ask_all(port, 1, 30.0))[0].startswith(b"HTTP/1.1 200")

    asyncio.run(walk_away())
    proc.terminate()
    _, err = proc.communicate(timeout=10)
    assert b"Traceback" not in err, err.decode(errors="replace")
