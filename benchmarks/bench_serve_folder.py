"""``sitemapkit serve DIR`` under many simultaneous clients: how many are answered, how many time out, how long.

    python benchmarks/bench_serve_folder.py                  # 500 clients, 30 s client timeout
    python benchmarks/bench_serve_folder.py --clients 1000 --timeout 10

A folder of 250 URLs (sitemap.xml and its children, written by ``write_sitemaps``) is served by the real CLI
process (``python -m sitemapkit serve DIR --port 0`` on 127.0.0.1). The clients all connect at once (one
asyncio task each, one connection each, no keep-alive); each sends ``GET /sitemap.xml`` and reads the answer to
the end. A client that gets no complete answer within ``--timeout`` seconds counts as a timeout; any other
failure (refused, reset) as an error. Afterwards a few clients go away mid-answer, and the server's standard
error is checked for tracebacks. Prints one line per run: answered / timeouts / errors / wall time / tracebacks.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from sitemapkit.core import UrlEntry  # noqa: E402
from sitemapkit.write import write_sitemaps  # noqa: E402

BASE = "https://shop.example/"


async def one_client(port: int, limit: float) -> str:
    async def exchange() -> str:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(f"GET /sitemap.xml HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            data = await reader.read()  # to the end: the server closes after the answer
            return "answered" if data.startswith(b"HTTP/1.1 200") and b"</sitemapindex>" in data else "errors"
        finally:
            writer.close()

    try:
        async with asyncio.timeout(limit):
            return await exchange()
    except TimeoutError:
        return "timeouts"
    except OSError:
        return "errors"


async def storm(port: int, clients: int, limit: float) -> tuple[dict[str, int], float]:
    started = time.perf_counter()
    results = await asyncio.gather(*(one_client(port, limit) for _ in range(clients)))
    elapsed = time.perf_counter() - started
    counts = {"answered": 0, "timeouts": 0, "errors": 0}
    for r in results:
        counts[r] += 1
    return counts, elapsed


async def walk_away(port: int, n: int) -> None:
    """Clients that send a request for a big file and close the connection at once."""
    for _ in range(n):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /big.txt HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await writer.drain()
        await reader.read(10)
        writer.transport.abort()  # a reset, not a clean close
    await asyncio.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "public"
        write_sitemaps((UrlEntry(f"{BASE}p/{i}", lastmod="2024-05-01") for i in range(250)), out, BASE,
                       max_urls=100)
        (out / "big.txt").write_bytes(b"x" * (8 << 20))
        env_cmd = [sys.executable, "-m", "sitemapkit", "serve", str(out), "--port", "0"]
        proc = subprocess.Popen(env_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline().decode().strip()
            if not line.startswith("http://"):
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise SystemExit(f"the server did not start: {line} {err}")
            port = int(line.rsplit(":", 1)[1].strip("/"))
            for run in range(args.runs):
                counts, elapsed = asyncio.run(storm(port, args.clients, args.timeout))
                print(f"run {run + 1}: {args.clients} clients: answered {counts['answered']}, "
                      f"timeouts {counts['timeouts']}, errors {counts['errors']}, {elapsed:.2f} s", flush=True)
            asyncio.run(walk_away(port, 20))
        finally:
            proc.terminate()
            try:
                _, err = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
        tracebacks = err.decode(errors="replace").count("Traceback")
        print(f"tracebacks on the server's stderr (20 clients gone mid-answer): {tracebacks}")


if __name__ == "__main__":
    main()
