"""``sitemapkit harvest`` end to end: local sites on 127.0.0.1 (one port, one host), a local Dask cluster with
two workers (threads), the Parquet output read back; resume, --refresh (conditional requests), failing hosts."""

from __future__ import annotations

import gzip
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("distributed")
import pyarrow.dataset as ds  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from sitemapkit.harvest import read_hosts  # noqa: E402
from tests.support.server import LocalServer, Request, Response  # noqa: E402
from tests.support.sites import Site, index_xml, urlset_xml  # noqa: E402

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], capture_output=True, text=True,
                          input=stdin, timeout=120)


def rich_urlset(base: str, n: int) -> bytes:
    body = "".join(
        f"<url><loc>{base}/r{i}</loc><lastmod>2024-05-0{i % 9 + 1}T10:00:00+02:00</lastmod>"
        f"<image:image><image:loc>{base}/img{i}.jpg</image:loc></image:image>"
        f'<xhtml:link rel="alternate" hreflang="en" href="{base}/r{i}"/>'
        f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de/r{i}"/></url>'
        for i in range(n))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMG}" '
            f'xmlns:xhtml="{XHTML}">{body}</urlset>\n').encode()


@pytest.fixture
def sites() -> Iterator[dict[str, LocalServer]]:
    servers = {name: LocalServer().start() for name in ("a", "b", "c", "d", "e")}
    a, b, c, d, e = (servers[k] for k in "abcde")
    # a: robots.txt -> index -> two sitemaps (one with extensions, served with an ETag that answers 304)
    site = Site(a)
    site.robots(f"Sitemap: {a.url('/index.xml')}\n")
    site.xml("/index.xml", index_xml([a.url("/rich.xml"), a.url("/plain.xml.gz")]))
    rich = rich_urlset(a.base, 4)

    def etagged(req: Request) -> Response:
        if req.headers.get("if-none-match") == '"v1"':
            return Response(304, b"", {"ETag": '"v1"'})
        return Response(200, rich, {"Content-Type": "application/xml", "ETag": '"v1"'})

    site.handler("/rich.xml", etagged)
    site.xml("/plain.xml.gz", gzip.compress(urlset_xml([a.url(f"/p{i}") for i in range(6)])),
             content_type="application/x-gzip")
    # b: a sitemap URL given directly
    Site(b).xml("/sm.xml", urlset_xml([b.url(f"/x{i}") for i in range(3)]))
    # c: its only sitemap answers 500
    Site(c).robots(f"Sitemap: {c.url('/sitemap.xml')}\n")
    c.route("/sitemap.xml", b"oops", status=500)
    # d: HTML instead of XML
    Site(d).robots(f"Sitemap: {d.url('/sitemap.xml')}\n")
    d.route("/sitemap.xml", b"<!DOCTYPE html><html><body>hello</body></html>", content_type="text/html")
    # e: a gzip bomb
    Site(e).robots(f"Sitemap: {e.url('/big.xml.gz')}\n")
    e.route("/big.xml.gz", gzip.compress(b"<urlset>" + b" " * 4_000_000), content_type="application/x-gzip")
    yield servers
    for s in servers.values():
        s.stop()


def hosts_file(tmp_path: Path, servers: dict[str, LocalServer]) -> Path:
    a, b, c, d, e = (servers[k] for k in "abcde")
    path = tmp_path / "hosts.txt"
    path.write_text(f"# hosts\n{a.url('/')}\n{b.url('/sm.xml')}\n{c.url('/')}\n{d.url('/')}\n{e.url('/')}\n"
                    "ftp://nope.example/\n")
    return path


def harvest(tmp_path: Path, hosts: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run("harvest", str(hosts), "--out", str(tmp_path / "out"), "--workers", "2", "--threads", "2",
               "--no-processes", "--retries", "0", "--deadline", "5", "--max-bytes", "1000000", *extra)


def key(server: LocalServer) -> str:
    return f"127.0.0.1:{server.port}"


@pytest.mark.slow
@pytest.mark.e2e
def test_harvest_end_to_end_resume_refresh_and_generate(sites: dict[str, LocalServer], tmp_path: Path) -> None:
    a, b, c, d, e = (sites[k] for k in "abcde")
    hosts = hosts_file(tmp_path, sites)
    out = tmp_path / "out"
    first = harvest(tmp_path, hosts)
    assert first.returncode == 1, first.stderr  # hosts failed, and one line was not understood
    assert f"{hosts}:7: not an http(s) URL or a host name: 'ftp://nope.example/'" in first.stderr
    assert "5 hosts: 2 harvested, 3 failed, 0 already complete; 13 URLs" in first.stdout

    table = ds.dataset(out / "urls", partitioning="hive").to_table()
    per_host: dict[str, int] = {}
    for h in table.column("host").to_pylist():
        per_host[h] = per_host.get(h, 0) + 1
    assert per_host == {key(a): 10, key(b): 3}
    assert not (out / "urls" / f"host={key(c).replace(':', '%3A')}").exists()
    rows = {r["loc"]: r for r in table.to_pylist()}
    r0 = rows[a.url("/r0")]
    assert r0["lastmod"] == "2024-05-01T10:00:00+02:00"
    assert r0["lastmod_utc"].isoformat() == "2024-05-01T08:00:00+00:00"
    assert r0["images"][0]["loc"] == a.url("/img0.jpg")
    assert r0["alternates"] == [{"hreflang": "en", "href": a.url("/r0")}, {"hreflang": "de", "href": a.url("/de/r0")}]
    assert r0["sitemap"] == a.url("/rich.xml")
    assert rows[a.url("/p0")]["sitemap"] == a.url("/plain.xml.gz")

    summary = {r["host"]: r for r in pq.read_table(out / "hosts.parquet").to_pylist()}
    assert [summary[key(s)]["status"] for s in (a, b, c, d, e)] == ["ok", "ok", "failed", "failed", "failed"]
    assert summary[key(a)]["urls"] == 10
    assert summary[key(a)]["sitemaps_found"] == 3
    assert {s["found_via"] for s in summary[key(a)]["sitemaps"]} == {"robots.txt", "index"}
    codes = {h: {p["code"] for p in summary[key(s)]["problems"]} for h, s in zip("cde", (c, d, e), strict=True)}
    assert "SM502" in codes["c"]
    assert "SM505" in codes["d"]
    assert "SM112" in codes["e"]

    # Resume: complete hosts are skipped (nothing fetched from a or b), failed ones are tried again.
    before_a, before_b, before_c = len(a.requests), len(b.requests), c.hits("/sitemap.xml")
    second = harvest(tmp_path, hosts)
    assert "2 already complete" in second.stdout, second.stdout
    assert (len(a.requests), len(b.requests)) == (before_a, before_b)
    assert c.hits("/sitemap.xml") == before_c + 1
    again = {r["host"]: r for r in pq.read_table(out / "hosts.parquet").to_pylist()}
    assert again[key(a)]["resumed"]
    assert again[key(a)]["urls"] == 10

    # --refresh: fetched again with conditional requests; the unchanged sitemap is a 304.
    third = harvest(tmp_path, hosts, "--refresh")
    assert "2 harvested" in third.stdout, third.stdout
    rich_requests = [r for r in a.requests if r.path == "/rich.xml"]
    assert rich_requests[-1].headers.get("if-none-match") == '"v1"'
    refreshed = {r["host"]: r for r in pq.read_table(out / "hosts.parquet").to_pylist()}
    assert refreshed[key(a)]["not_modified"] >= 1
    assert refreshed[key(a)]["urls"] == 10
    assert ds.dataset(out / "urls", partitioning="hive").count_rows() == 13

    # generate on the dataset, two workers: a valid set with exactly the harvested URLs.
    pub = tmp_path / "pub"
    gen = run("generate", str(out), "--out", str(pub), "--base-url", a.url("/"), "--workers", "2",
              "--allow-cross-host", "--urls-per-file", "4")
    assert gen.returncode == 0, gen.stderr
    files = sorted(pub.glob("sitemap-*.xml"))
    assert len(files) >= 4
    val = run("validate", *map(str, files))
    assert val.returncode == 0, val.stdout + val.stderr
    listed = run("urls", *map(str, files))
    assert sorted(listed.stdout.split()) == sorted(rows)


def test_read_hosts_groups_lines_by_host() -> None:
    jobs, bad = read_hosts(["example.com", "https://example.com/s.xml", "", "# x", "http://b.example:8080/",
                            "mailto:x@y"], "h.txt")
    assert [(j.host, j.seeds) for j in jobs] == [
        ("example.com", ("https://example.com/", "https://example.com/s.xml")),
        ("b.example:8080", ("http://b.example:8080/",))]
    assert [str(b) for b in bad] == ["h.txt:6: not an http(s) URL or a host name: 'mailto:x@y'"]


def test_read_hosts_refuses_bad_ports_and_credentials_as_command_line_urls_are() -> None:
    jobs, bad = read_hosts(["http://127.0.0.1:0/", "http://127.0.0.1:65536/", "b.example:0",
                            "https://admin:s3cret@c.example/", "d.example"], "h.txt")
    assert [j.host for j in jobs] == ["d.example"]
    assert [str(b) for b in bad] == [
        "h.txt:1: not a valid port (1-65535) in 'http://127.0.0.1:0/'",
        "h.txt:2: not a valid port (1-65535) in 'http://127.0.0.1:65536/'",
        "h.txt:3: not a valid port (1-65535) in 'https://b.example:0/'",
        "h.txt:4: the URL carries credentials (user:password@ before the host), which are never sent nor "
        "published: 'https://***@c.example/'"]
    assert all("s3cret" not in repr(b) for b in bad)


def test_harvest_with_only_bad_lines_names_them_without_a_password(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("http://127.0.0.1:0/\nhttps://admin:s3cret@c.example/\n", encoding="utf-8")
    done = run("harvest", str(hosts), "--out", str(tmp_path / "out"), "--no-processes")
    assert done.returncode in (1, 2), done.stderr
    assert f"{hosts}:1: not a valid port (1-65535)" in done.stderr
    assert f"{hosts}:2: the URL carries credentials" in done.stderr
    assert "s3cret" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
