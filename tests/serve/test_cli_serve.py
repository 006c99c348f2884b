"""``sitemapkit serve DIR`` end to end: a published folder served by the real CLI process on 127.0.0.1."""

from __future__ import annotations

import gzip
import http.client
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.core import UrlEntry
from sitemapkit.write import write_sitemaps

BASE = "https://shop.example/"


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("public")
    write_sitemaps((UrlEntry(f"{BASE}p/{i}", lastmod="2024-05-01") for i in range(250)), out, BASE,
                   max_urls=100)
    (out.parent / "secret.txt").write_text("outside the folder")
    return out


@pytest.fixture(scope="module")
def served(published: Path) -> Iterator[tuple[str, int]]:
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "serve", str(published), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        assert line.startswith("http://127.0.0.1:"), line + (proc.stderr.read().decode() if proc.stderr else "")
        yield "127.0.0.1", int(line.rsplit(":", 1)[1].strip("/"))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def request(served: tuple[str, int], method: str, path: str,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(*served, timeout=30)
    try:
        conn.putrequest(method, path, skip_host="host" in {k.lower() for k in headers or {}})
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_files_are_served_with_validators_and_gzip(served: tuple[str, int], published: Path) -> None:
    status, headers, body = request(served, "GET", "/sitemap.xml")
    assert status == 200
    assert body == (published / "sitemap.xml").read_bytes()
    assert headers["content-type"].startswith("application/xml")
    assert headers["x-robots-tag"] == "noindex"
    assert headers["cache-control"] == "no-cache"
    assert headers["vary"] == "Accept-Encoding"
    etag, last = headers["etag"], headers["last-modified"]
    assert etag.startswith('"')
    assert not etag.startswith('W/')
    assert request(served, "GET", "/sitemap.xml", {"If-None-Match": etag})[0] == 304
    assert request(served, "GET", "/sitemap.xml", {"If-Modified-Since": last})[0] == 304
    status, head_headers, head_body = request(served, "HEAD", "/sitemap.xml")
    assert (status, head_body, head_headers["content-length"]) == (200, b"", str(len(body)))
    child = sorted(p.name for p in published.glob("sitemap-*.xml"))[0]
    status, gz_headers, gz_body = request(served, "GET", f"/{child}", {"Accept-Encoding": "gzip"})
    assert status == 200
    assert gz_headers["content-encoding"] == "gzip"
    assert gzip.decompress(gz_body) == (published / child).read_bytes()


@pytest.mark.parametrize("path", ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt",
                                  "/.sitemapkit-manifest.json", "/nope.xml", "/", "/a/../../secret.txt"])
def test_traversal_hidden_and_missing_files_are_404(served: tuple[str, int], path: str) -> None:
    status, _h, body = request(served, "GET", path)
    assert status == 404
    assert b"outside the folder" not in body


def test_other_methods_and_cross_site_requests_are_refused(served: tuple[str, int]) -> None:
    assert request(served, "POST", "/sitemap.xml")[0] == 405
    assert request(served, "POST", "/sitemap.xml", {"Origin": "https://evil.example"})[0] == 403
    assert request(served, "PUT", "/sitemap.xml", {"Sec-Fetch-Site": "cross-site"})[0] == 403
    # DNS rebinding: a loopback server answers only to loopback host names
    assert request(served, "GET", "/sitemap.xml", {"Host": "evil.example"})[0] == 403
    assert request(served, "GET", "/sitemap.xml", {"Host": f"localhost:{served[1]}"})[0] == 200


def test_a_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "sitemapkit", "serve", str(tmp_path / "none")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "does not exist" in result.stderr
    assert "Traceback" not in result.stderr
