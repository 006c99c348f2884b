"""The JSON API end to end: the real server process (``sitemapkit web``) crawling a real local site."""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.support.ports import bound_socket, port_of
from tests.support.server import LocalServer
from tests.support.sites import urlset_xml
from tests.web.conftest import PAGES, WebServer, start_web, stop_web

pytestmark = pytest.mark.e2e


def start_crawl(web: WebServer, url: str, **options: object) -> str:
    status, body = web.json("POST", "/api/crawls", {"url": url, "concurrency": 1, **options})
    assert status == 201, body
    return str(body["id"])


def test_crawl_end_to_end_with_live_events_and_downloads(web: WebServer, site: LocalServer) -> None:
    crawl_id = start_crawl(web, site.url("/"))
    # The live stream: one "crawl" event per change, the counts grow, "end" when done.
    seen: list[dict[str, object]] = []
    with urllib.request.urlopen(f"{web.base}/api/crawls/{crawl_id}/events", timeout=30) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        event = ""
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "crawl":
                seen.append(json.loads(line[6:]))
            elif line.startswith("data: ") and event == "end":
                break
    crawled = [int(e["counts"].get("crawled", 0)) for e in seen]  # type: ignore[attr-defined]
    assert len(set(crawled)) >= 3, crawled  # live: several different counts on the way
    assert crawled == sorted(crawled)
    assert seen[-1]["status"] == "done"

    status, crawl = web.json("GET", f"/api/crawls/{crawl_id}")
    assert status == 200
    counts = crawl["counts"]
    assert (counts["in_sitemap"], counts["broken"], counts["redirects"]) == (PAGES + 1, 1, 1)
    assert counts["excluded"] >= 2  # the noindex page and the redirecting URL
    assert crawl["complete"] is True
    names = {f["name"] for f in crawl["files"]}
    assert {"sitemap.xml", "sitemap.txt", "sitemap.html", "crawl-report.json", "sitemaps.zip"} <= names

    status, headers, xml = web.request("GET", f"/api/crawls/{crawl_id}/files/sitemap.xml")
    assert status == 200
    assert headers["content-type"].startswith("application/xml")
    assert "attachment" in headers["content-disposition"]
    assert f"<loc>{site.url('/p3')}</loc>".encode() in xml
    assert b"/missing" not in xml
    assert b"/secret" not in xml

    _, report = web.json("GET", f"/api/crawls/{crawl_id}/files/crawl-report.json")
    broken = {b["url"]: b for b in report["broken"]}
    assert broken[site.url("/missing")]["referrers"] == [site.url("/")]
    assert {x["reason"] for x in report["excluded"]} >= {"noindex", "redirect"}

    status, _, data = web.request("GET", f"/api/crawls/{crawl_id}/files/sitemaps.zip")
    assert status == 200
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert {"sitemap.xml", "sitemap.txt", "sitemap.html", "crawl-report.json"} <= set(zf.namelist())
        assert zf.read("sitemap.xml") == xml


def test_downloads_cannot_leave_the_crawl_folder(web: WebServer, site: LocalServer) -> None:
    crawl_id = start_crawl(web, site.url("/"), max_pages=2)
    web.wait_status(crawl_id, {"done"})
    for name in ["..%2F..%2Fhistory.sqlite", "..%2Fstate.sqlite", "..", ".manifest", "%2Fetc%2Fpasswd",
                 "nothing.xml"]:
        status, _, body = web.request("GET", f"/api/crawls/{crawl_id}/files/{name}")
        assert status == 404, (name, body)
        assert b"SQLite" not in body
        assert b"root:" not in body
    status, _, body = web.request("GET", f"/api/crawls/{crawl_id}/files/sitemap.xml")
    assert status == 200
    assert body.startswith(b"<?xml")


def test_bad_requests_name_the_field_in_the_forms_words(web: WebServer) -> None:
    for body, field, words in [
        ({}, "url", "Site address: "), ({"url": "ftp://x.test/"}, "url", "Site address: "),
        ({"url": "http://a.test/", "max_pages": 0}, "max_pages", "Max pages: must be at least 1, not 0"),
        ({"url": "http://a.test/", "formats": ["pdf"]}, "formats", "Output files: "),
        ({"url": "http://a.test/", "formats": []}, "formats", "Output files: tick at least one file"),
        ({"url": "http://a.test/", "include": ["("]}, None, "regular expression"),
    ]:
        status, answer = web.json("POST", "/api/crawls", body)
        assert status == 400, answer
        assert words in answer["error"]
        assert answer.get("field") == field
        assert "max_pages" not in answer["error"]
        assert "--" not in answer["error"]
    status, answer = web.json("GET", "/api/crawls/000000000000")
    assert status == 404
    assert "000000000000" in answer["error"]


def test_two_crawls_at_once_and_a_failing_one_does_not_stop_the_server(web: WebServer, site: LocalServer) -> None:
    with LocalServer() as other:
        from tests.web.conftest import build_site

        build_site(other)
        first, second = start_crawl(web, site.url("/")), start_crawl(web, other.url("/"))
        with bound_socket() as closed:  # bound, never listening: connections are refused
            dead = start_crawl(web, f"http://127.0.0.1:{port_of(closed)}/")
            assert {web.json("GET", f"/api/crawls/{c}")[1]["status"] for c in (first, second)} <= {"queued",
                                                                                                "running"}
            failed = web.wait_status(dead, {"failed", "done"})
        assert failed["status"] == "failed"
        assert "nothing was published" in failed["error"]
        assert failed["note"] == ""  # never "publishing the sitemap set" on a failed crawl
        assert web.wait_status(first, {"done"})["counts"]["in_sitemap"] == PAGES + 1
        assert web.wait_status(second, {"done"})["counts"]["in_sitemap"] == PAGES + 1
    status, listing = web.json("GET", "/api/crawls")
    assert status == 200
    assert len(listing["crawls"]) == 3


def test_pause_resume_cancel_and_delete(web: WebServer, site: LocalServer) -> None:
    crawl_id = start_crawl(web, site.url("/"))
    web.wait_status(crawl_id, {"running"})
    status, _ = web.json("POST", f"/api/crawls/{crawl_id}/pause")
    assert status == 202
    paused = web.wait_status(crawl_id, {"paused"})
    assert paused["counts"]["queue"] > 0
    assert paused["files"] == []
    status, answer = web.json("POST", f"/api/crawls/{crawl_id}/pause")
    assert status == 409
    assert "not running" in answer["error"]
    assert web.json("POST", f"/api/crawls/{crawl_id}/resume")[0] == 202
    done = web.wait_status(crawl_id, {"done"})
    assert done["counts"]["in_sitemap"] == PAGES + 1
    assert done["counts"]["queue"] == 0

    other = start_crawl(web, site.url("/"))
    web.wait_status(other, {"running"})
    status, answer = web.json("DELETE", f"/api/crawls/{other}")
    assert status == 409
    assert "cancel it first" in answer["error"]
    assert web.json("POST", f"/api/crawls/{other}/cancel")[0] == 202
    assert web.wait_status(other, {"cancelled"})["note"] == "cancelled from the page"

    folder = web.data_home / "sitemapkit" / "web" / "crawls" / crawl_id
    assert (folder / "out" / "sitemap.xml").is_file()
    assert web.request("DELETE", f"/api/crawls/{crawl_id}")[0] == 204
    assert not folder.exists()
    assert web.json("GET", f"/api/crawls/{crawl_id}")[0] == 404


def test_validate_an_upload_and_a_url_and_discover(web: WebServer, site: LocalServer) -> None:
    good = urlset_xml([site.url("/p1"), site.url("/p2")])
    bad = b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' \
          b"<url><loc>not a url</loc><lastmod>yesterday</lastmod></url>\n</urlset>\n"
    boundary = "b0undary"
    def form(data: bytes) -> bytes:
        return (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"sitemap.xml\"\r\n"
                f"Content-Type: application/xml\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    ctype = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    status, _, body = web.request("POST", "/api/validate", raw=form(bad), headers=ctype)
    result = json.loads(body)
    assert status == 200
    assert result["valid"] is False
    assert result["errors"] >= 2
    group = result["groups"][0]
    assert group["severity"] == "error"
    assert group["title"]
    assert group["problems"][0]["line"] == 3

    site.route("/sitemap.xml", good, content_type="application/xml")
    status, result = web.json("POST", "/api/validate", {"url": site.url("/sitemap.xml")})
    assert status == 200
    assert result["valid"] is True
    assert result["urls"] == [site.url("/p1"), site.url("/p2")]
    assert result["url_count"] == 2

    status, result = web.json("POST", "/api/validate", {"url": site.url("/nothing.xml")})
    assert status == 400
    assert "HTTP 404" in result["error"]

    status, tree = web.json("GET", f"/api/discover?url={site.url('/')}")
    assert status == 200
    assert [s["url"] for s in tree["sitemaps"]] == [site.url("/sitemap.xml")]
    assert tree["total_urls"] == 2
    assert web.json("GET", "/api/discover?url=nope")[0] == 400
    # A bare host (no scheme), served over plain http only: https cannot connect, so http is used.
    bare = site.url("/").removeprefix("http://").rstrip("/")
    status, tree = web.json("GET", f"/api/discover?url={bare}")
    assert status == 200, tree
    assert [s["url"] for s in tree["sitemaps"]] == [site.url("/sitemap.xml")]
    status, result = web.json("POST", "/api/validate", {"url": bare + "/sitemap.xml"})
    assert status == 200, result
    assert result["url_count"] == 2


def read_answer(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"}"):
        part = conn.recv(4096)
        if not part:
            break
        data += part
    return data


def test_upload_size_is_limited(web: WebServer) -> None:
    # Announced too large: refused before a byte of the body is read.
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as conn:
        conn.sendall(f"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\n"
                     f"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {21 * 1024 * 1024}\r\n"
                     "\r\n".encode())
        answer = read_answer(conn)
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"too large" in answer
    # Sent without a length (chunked): cut off at the limit.
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as conn:
        conn.sendall(f"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\n"
                     "Content-Type: multipart/form-data; boundary=x\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        head = b'--x\r\nContent-Disposition: form-data; name="file"; filename="big.xml"\r\n\r\n'
        conn.sendall(f"{len(head):x}\r\n".encode() + head + b"\r\n")
        chunk = b"x" * (1024 * 1024)
        try:
            for _ in range(21):
                conn.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        except OSError:
            pass  # the server may stop reading once it has answered
        answer = read_answer(conn)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"too large" in answer


def test_dns_rebinding_and_cross_site_requests_are_refused(web: WebServer, site: LocalServer) -> None:
    status, _, body = web.request("GET", "/api/crawls", headers={"Host": f"evil.test:{web.port}"})
    assert status == 421
    assert b"DNS rebinding" in body
    status, _, body = web.request("POST", "/api/crawls", {"url": site.url("/")},
                                  headers={"Origin": "http://evil.test"})
    assert status == 403
    assert b"cross-origin" in body
    status, _, body = web.request("POST", "/api/crawls", {"url": site.url("/")},
                                  headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403
    status, _, _ = web.request("POST", "/api/crawls", {"url": site.url("/"), "max_pages": 1},
                               headers={"Origin": web.base})
    assert status == 201
    _, listing = web.json("GET", "/api/crawls")
    assert len(listing["crawls"]) == 1  # only the same-origin request started a crawl


def test_a_non_loopback_address_needs_a_token(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "sitemapkit", "web", "--no-browser", "--host", "0.0.0.0",
                           "--port", "0"], capture_output=True, text=True, timeout=30,
                          env={"XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert "not a loopback address" in proc.stderr
    assert "--token" in proc.stderr
    assert "Traceback" not in proc.stderr

    server = start_web(tmp_path, "--host", "0.0.0.0", "--token", "t0ken-abc")
    try:
        assert server.request("GET", "/api/crawls")[0] == 401
        assert server.request("GET", "/api/crawls", headers={"Authorization": "Bearer wrong"})[0] == 401
        assert server.request("GET", "/api/crawls", headers={"Authorization": "Bearer t0ken-abc"})[0] == 200
        status, headers, _ = server.request("GET", "/?token=t0ken-abc")
        assert status == 200
        assert "sitemapkit_token=t0ken-abc" in headers["set-cookie"]
        assert server.request("GET", "/", headers={"Cookie": "sitemapkit_token=t0ken-abc"})[0] == 200
    finally:
        stop_web(server)


def test_ctrl_c_keeps_the_crawl_and_a_restart_resumes_it(tmp_path: Path, site: LocalServer) -> None:
    server = start_web(tmp_path / "data")
    crawl_id = start_crawl(server, site.url("/"))
    server.wait_status(crawl_id, {"running"})
    # An open live stream must not keep the server from stopping.
    with socket.create_connection(("127.0.0.1", server.port)) as sse:
        sse.sendall(f"GET /api/crawls/{crawl_id}/events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        assert sse.recv(100).startswith(b"HTTP/1.1 200")
        assert server.interrupt() == 130  # EXIT_INTERRUPTED, like every command stopped by Ctrl-C
    assert server.proc.stderr is not None
    assert "Traceback" not in server.proc.stderr.read()
    stop_web(server)
    restarted = start_web(tmp_path / "data")
    try:
        crawl = restarted.wait_status(crawl_id, {"paused"}, timeout=1)
        assert "interrupted" in crawl["note"]
        assert crawl["counts"]["crawled"] < PAGES + 4
        assert restarted.json("POST", f"/api/crawls/{crawl_id}/resume")[0] == 202
        done = restarted.wait_status(crawl_id, {"done"})
        assert done["counts"]["in_sitemap"] == PAGES + 1
    finally:
        stop_web(restarted)


def test_pages_load_only_local_assets_and_label_their_inputs(web: WebServer, site: LocalServer) -> None:
    crawl_id = start_crawl(web, site.url("/"), max_pages=1)
    for path in ["/", "/check", "/discover", "/audit", f"/crawls/{crawl_id}"]:
        status, headers, body = web.request("GET", path)
        page = body.decode()
        assert status == 200, path
        assert "default-src 'self'" in headers["content-security-policy"]
        # No CDN: every script, stylesheet and image comes from this server; the favicon is inline (no 404).
        assets = re.findall(r'<(?:script|link|img)[^>]*(?:src|href)="([^"]+)"', page)
        assert assets, path
        assert '<link rel="icon" href="data:,">' in page
        assert all(a.startswith("/static/") or a == "data:," for a in assets), assets
        # Every input has a label (for=id, or wrapped in one).
        wrapped = "".join(re.findall(r"<label[^>]*>.*?</label>", page, re.S))
        for tag in re.findall(r"<(?:input|textarea)\b[^>]*>", page):
            if 'type="hidden"' in tag:  # the CSRF token's field: nothing to label
                continue
            input_id = re.search(r'\bid="([^"]+)"', tag)
            assert tag in wrapped or (input_id and f'for="{input_id[1]}"' in page), (path, tag)
    for asset in ["/static/app.js", "/static/app.css"]:
        assert web.request("GET", asset)[0] == 200
    status, _, body = web.request("GET", "/crawls/000000000000")
    assert status == 404
    assert b"No crawl 000000000000" in body
