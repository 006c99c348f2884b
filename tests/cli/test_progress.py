"""Long jobs report progress on standard error: a plain ``sitemapkit: ...`` line every interval when standard
error is not a terminal (lowered here through SITEMAPKIT_PROGRESS_INTERVAL), and nothing with --quiet. Standard
output (the result) is the same either way."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer, Response

INTERVAL = {"SITEMAPKIT_PROGRESS_INTERVAL": "0.05"}
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
URLSET = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
          "<url><loc>https://example.com/a</loc></url>\n<url><loc>https://example.com/b</loc></url>\n"
          "</urlset>\n").encode()


def run(*args: str) -> CliResult:
    return run_cli(args, env=INTERVAL)


def _progress_lines(stderr: str, prefix: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(f"sitemapkit: {prefix}")]


def test_urls_prints_plain_progress_lines_while_a_server_is_slow(server: LocalServer) -> None:
    server.route("/sitemap.xml", handler=lambda _req: Response(200, URLSET, {"Content-Type": "application/xml"},
                                                               delay=0.6))
    loud = run("urls", server.url("/sitemap.xml"))
    assert loud.returncode == 0, loud.stderr
    assert loud.stdout.splitlines() == ["https://example.com/a", "https://example.com/b"]
    lines = _progress_lines(loud.stderr, "reading sitemaps: ")
    assert lines, loud.stderr
    assert all("URL" in line for line in lines)

    quiet = run("urls", "--quiet", server.url("/sitemap.xml"))
    assert quiet.returncode == 0
    assert quiet.stdout == loud.stdout
    assert quiet.stderr == ""


def _big_sitemap(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        fh.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n')
        for i in range(n):
            fh.write(f"<url><loc>https://example.com/p/{i}</loc></url>\n")
        fh.write("</urlset>\n")
    return path


def test_validate_prints_plain_progress_lines_and_quiet_silences_them(tmp_path: Path) -> None:
    big = _big_sitemap(tmp_path / "big.xml", 15_000)
    loud = run("validate", str(big))
    assert loud.returncode == 0, loud.stdout + loud.stderr
    assert _progress_lines(loud.stderr, "validating 1 source: "), loud.stderr
    quiet = run("validate", "--quiet", str(big))
    assert quiet.returncode == 0
    assert quiet.stderr == ""
    assert quiet.stdout == "".join(loud.stdout.splitlines(keepends=True)[-2:])  # the summary (issue 26)


def test_validate_progress_lines_show_files_entries_and_bytes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for name in ("a", "b", "c"):
        _big_sitemap(site / f"{name}.xml", 20_000)
    done = run("validate", str(site))
    assert done.returncode == 0, done.stdout + done.stderr
    counts = [re.fullmatch(r"sitemapkit: validating 1 source: (\d+) files? done, ([\d,]+) entr(?:y|ies) checked, "
                           r"[\d.]+ [KM]iB read, \d\d:\d\d elapsed", line)
              for line in _progress_lines(done.stderr, "validating ")]
    assert counts, done.stderr
    assert all(counts), done.stderr
    found = [(int(m.group(1)), int(m.group(2).replace(",", ""))) for m in counts if m is not None]
    assert found == sorted(found)  # counts only grow
    assert any(files >= 1 and entries >= 20_000 for files, entries in found), done.stderr  # moved during the run
    assert all(files <= 3 and entries <= 60_000 for files, entries in found)


def test_discover_prints_plain_progress_lines_with_counts_and_quiet_silences_them(server: LocalServer) -> None:
    xml = {"Content-Type": "application/xml"}
    server.route("/robots.txt", body=f"Sitemap: {server.url('/sitemap.xml')}\n".encode(),
                 headers={"Content-Type": "text/plain"})
    server.route("/sitemap.xml", handler=lambda _req: Response(200, URLSET, xml, delay=0.6))
    loud = run("discover", server.url("/"))
    assert loud.returncode == 0, loud.stderr
    lines = _progress_lines(loud.stderr, f"discovering {server.url('/')}: ")
    assert lines, loud.stderr
    assert any("robots.txt 200, 0 sitemaps read, 0 URLs" in line for line in lines), loud.stderr
    assert all(re.search(r"\d+ sitemaps? read, \d+ URLs?$", line) for line in lines), loud.stderr
    assert not [line for line in loud.stderr.splitlines() if not line.startswith("sitemapkit: ")], loud.stderr

    quiet = run("discover", "--quiet", server.url("/"))
    assert quiet.returncode == 0
    assert quiet.stderr == ""
    assert quiet.stdout.splitlines()[:2] == loud.stdout.splitlines()[:2]


def test_generate_prints_progress_while_reading_standard_input(tmp_path: Path) -> None:
    for quiet in (False, True):
        out = tmp_path / f"out-{quiet}"
        args = [sys.executable, "-m", "sitemapkit", "generate", "-", "--out", str(out),
                "--base-url", "https://example.com/", *(["--quiet"] if quiet else [])]
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, **INTERVAL})
        assert proc.stdin is not None
        assert proc.stderr is not None
        proc.stdin.write(b"https://example.com/a\n")
        proc.stdin.flush()
        if quiet:
            deadline = time.monotonic() + 30
            while not out.is_dir() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)  # several intervals: a line would have been printed by now
        else:
            first = proc.stderr.readline().decode()
            assert first.startswith("sitemapkit: writing sitemaps: "), first
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 0, stderr
        assert stdout.decode().startswith("Wrote 1 URL ")
        if quiet:
            assert stderr == b""
        assert (out / "sitemap.xml").is_file()


def _slow_site(server: LocalServer) -> None:
    """Two pages, the home page slow (0.4 s): long enough for progress lines."""
    html = {"Content-Type": "text/html"}
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    server.route("/", handler=lambda _req: Response(200, b'<html><body><a href="/a">a</a></body></html>', html,
                                                    delay=0.4))
    server.route("/a", body=b"<html><body>a</body></html>", headers=html)


def test_crawl_prints_plain_progress_lines_and_quiet_silences_them(server: LocalServer, tmp_path: Path) -> None:
    _slow_site(server)
    for quiet in (False, True):
        out = tmp_path / f"out-{quiet}"
        done = run("crawl", server.url("/"), "--out", str(out), "--state", str(tmp_path / f"state-{quiet}.db"),
                   *(["--quiet"] if quiet else []))
        assert done.returncode == 0, done.stderr
        assert (out / "sitemap.xml").is_file()
        lines = _progress_lines(done.stderr, "crawl: ")
        if quiet:
            assert lines == [], done.stderr
        else:
            assert lines, done.stderr


def test_crawl_shows_its_styled_line_on_a_terminal(server: LocalServer, tmp_path: Path) -> None:
    # TTY_COMPATIBLE=1 makes rich treat standard error as a terminal: the crawl's line is the styled live line
    # (pages, rate, queue, errors, sitemap, time), left on screen at the end, not the plain "sitemapkit: crawl:".
    _slow_site(server)
    done = run_cli(["crawl", server.url("/"), "--out", str(tmp_path / "out"), "--state", str(tmp_path / "s.db")],
                   env={**INTERVAL, "TTY_COMPATIBLE": "1", "TERM": "xterm"})
    assert done.returncode == 0, done.stderr
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", done.stderr)
    assert re.search(r"crawl 2 pages · \d+/s · queue 0 · errors 0 · sitemap 2 · 00:0\d", plain), plain
    assert _progress_lines(done.stderr, "crawl: ") == []
