"""`sitemapkit generate` end to end: the real CLI (in process, tests/support/cli.py; a real process where it is
killed), real files in tmp_path."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import CliResult, run_cli
from tests.write.helpers import SM, assert_valid, parse, read_back

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> CliResult:
    return run_cli(["generate", *args], cwd=cwd, input=stdin)


def locs(path: Path) -> list[str]:
    return [d["loc"] for d in read_back(path.read_bytes())]


def test_sample_url_list_generates(tmp_path: Path) -> None:
    command = "sitemapkit generate tests/data/urls.txt --out site-sitemaps --base-url https://example.com/"
    (tmp_path / "tests" / "data").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "data" / "urls.txt", tmp_path / "tests" / "data" / "urls.txt")
    res = run(*command.split()[2:], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "site-sitemaps" / "sitemap.xml"
    assert_valid(out.read_bytes())
    assert "https://example.com/caf%C3%A9?q=1&x=2" in locs(out)
    assert "Wrote 4 URLs" in res.stdout


def test_text_input_with_bad_lines_reports_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("# comment\nhttps://example.com/a\n\n/relative/path\nhttps://example.com/b\nftp://x.example/\n")
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/")
    assert res.returncode == 1
    assert f"{src}:4: error SM610:" in res.stderr
    assert f"{src}:6: error SM610:" in res.stderr
    assert "2 input lines skipped" in res.stderr
    assert "Traceback" not in res.stderr
    assert locs(tmp_path / "out" / "sitemap.xml") == ["https://example.com/a", "https://example.com/b"]


def test_csv_input(tmp_path: Path) -> None:
    src = tmp_path / "pages.csv"
    src.write_text("loc,lastmod,changefreq,priority\n"
                   "https://example.com/a,2024-05-01,daily,0.8\n"
                   "\"https://example.com/b?x=1,2\",2024-05-02 10:00:00+0200,,\n"
                   "https://example.com/c,,sometimes,0.5\n"
                   "https://example.com/d,,,7\n")
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/")
    assert res.returncode == 1
    assert f"{src}:4: error SM610:" in res.stderr
    assert "changefreq" in res.stderr
    assert f"{src}:5: error SM610:" in res.stderr
    assert "priority" in res.stderr
    items = read_back((tmp_path / "out" / "sitemap.xml").read_bytes())
    assert items[0] | {"images": [], "alternates": [], "videos": [], "news": None} == items[0]
    assert (items[0]["lastmod"], items[0]["changefreq"], items[0]["priority"]) == ("2024-05-01", "daily", "0.8")
    assert items[1]["loc"] == "https://example.com/b?x=1,2"
    assert items[1]["lastmod"] == "2024-05-02T10:00:00+02:00"


def test_jsonl_input_with_extensions(tmp_path: Path) -> None:
    src = tmp_path / "entries.jsonl"
    lines = [
        {"loc": "https://example.com/a", "lastmod": "2024-05-01",
         "images": [{"loc": "https://cdn.example.com/a.png"}],
         "alternates": [{"hreflang": "de", "href": "https://example.com/de/a"}]},
        {"loc": "https://example.com/b", "priority": 2},
        {"kind": "sitemap", "loc": "https://example.com/other.xml"},
    ]
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n{not json\n")
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/")
    assert res.returncode == 1
    for line in (2, 3, 4):
        assert f"{src}:{line}: error SM610:" in res.stderr
    data = (tmp_path / "out" / "sitemap.xml").read_bytes()
    assert_valid(data)
    [item] = read_back(data)
    assert item["images"] == [{"loc": "https://cdn.example.com/a.png"}]
    assert item["alternates"] == [("de", "https://example.com/de/a")]
    head = data.decode().split("\n")[1]
    assert "xmlns:image=" in head
    assert "xmlns:xhtml=" in head
    assert "xmlns:video=" not in head


def test_stdin_input_sniffed_as_csv(tmp_path: Path) -> None:
    res = run("-", "--out", str(tmp_path / "out"), "--base-url", "https://example.com/",
              stdin="url,priority\nhttps://example.com/x,0.3\n")
    assert res.returncode == 0, res.stderr
    assert read_back((tmp_path / "out" / "sitemap.xml").read_bytes())[0]["priority"] == "0.3"


def test_static_site_folder(tmp_path: Path) -> None:
    site = tmp_path / "_site"
    for rel in ("index.html", "about.html", "blog/index.html", "blog/hello world.html", "blog/drafts/x.html",
                ".git/index.html", "404.html", "style.css", "docs/ü.htm"):
        p = site / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("<html></html>")
    os.utime(site / "about.html", (1714557600, 1714557600))  # 2024-05-01T10:00:00Z
    res = run(str(site), "--out", str(site), "--base-url", "https://example.com", "--exclude-path", "blog/drafts/*",
              "--format", "xml", "--format", "html")
    assert res.returncode == 0, res.stderr
    items = read_back((site / "sitemap.xml").read_bytes())
    assert [i["loc"] for i in items] == [
        "https://example.com/", "https://example.com/about.html", "https://example.com/blog/",
        "https://example.com/blog/hello%20world.html", "https://example.com/docs/%C3%BC.htm"]
    assert items[1]["lastmod"] == "2024-05-01T10:00:00Z"
    assert (site / "sitemap.html").exists()
    # Run again with the sitemaps now inside the site folder: our own sitemap.html is not listed as a page.
    res = run(str(site), "--out", str(site), "--base-url", "https://example.com", "--exclude-path", "blog/drafts/*",
              "--format", "xml", "--format", "html")
    assert res.returncode == 0, res.stderr
    assert "https://example.com/sitemap.html" not in locs(site / "sitemap.xml")


def test_gzip_multiple_formats_xsl_and_split(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"https://example.com/p/{i}\n" for i in range(25)))
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", "https://example.com/s/", "--gzip", "--urls-per-file", "10",
              "--format", "xml", "--format", "txt", "--xsl", "default")
    assert res.returncode == 0, res.stderr
    assert "index of 3 sitemaps" in res.stdout
    index = gzip.decompress((out / "sitemap.xml.gz").read_bytes())
    assert_valid(index)
    assert [e.text for e in parse(index).iter(f"{SM}loc")] == [
        f"https://example.com/s/sitemap-1-{i}.xml.gz" for i in (1, 2, 3)]
    assert b'<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>' in index
    assert (out / "sitemap.xsl").exists()
    assert gzip.decompress((out / "sitemap-1-3.txt.gz").read_bytes()).decode().splitlines() == [
        f"https://example.com/p/{i}" for i in range(20, 25)]
    text_index = gzip.decompress((out / "sitemap-txt.xml.gz").read_bytes())  # split text sitemaps' index
    assert_valid(text_index)
    assert [e.text for e in parse(text_index).iter(f"{SM}loc")] == [
        f"https://example.com/s/sitemap-1-{i}.txt.gz" for i in (1, 2, 3)]


def test_dedupe_and_warnings_are_shown(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/blog/a\nhttps://example.com/blog/a\nhttps://example.com/shop/b\n")
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/blog/", "--dedupe")
    assert res.returncode == 0, res.stderr
    assert "Skipped 1 duplicate URL." in res.stdout
    assert "warning SM607" in res.stderr


@pytest.mark.parametrize(("args", "code", "message"), [
    (["missing.txt", "--base-url", "https://example.com/"], 2, "missing.txt: no such file or directory"),
    (["urls.txt"], 2, "--base-url"),
    (["urls.txt", "--base-url", "https://example.com/", "--urls-per-file", "50001"], 2, "50001"),
    (["urls.txt", "--base-url", "example.com"], 2, "base URL"),
    (["urls.txt", "--base-url", "https://example.com/", "--format", "pdf"], 2, "pdf"),
])
def test_errors_are_one_line_with_exit_codes(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    (tmp_path / "urls.txt").write_text("https://example.com/\n")
    res = run(*args, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert res.returncode == code, res.stderr
    assert message in res.stderr
    assert "Traceback" not in res.stderr


def test_input_with_no_urls_fails_and_keeps_the_previous_set(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://example.com/\n")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    assert run("urls.txt", "--out", "out", "--base-url", "https://example.com/", cwd=tmp_path).returncode == 0
    before = (tmp_path / "out" / "sitemap.xml").read_bytes()
    res = run("empty.txt", "--out", "out", "--base-url", "https://example.com/", cwd=tmp_path)
    assert res.returncode == 1
    assert "at least one URL" in res.stderr
    assert (tmp_path / "out" / "sitemap.xml").read_bytes() == before


def test_help_has_an_example() -> None:
    res = run_cli(["generate", "--help"])
    assert res.returncode == 0
    assert "Example:" in res.stdout
    for option in ("--out", "--base-url", "--gzip", "--urls-per-file", "--bytes-per-file", "--format", "--xsl",
                   "--keep-duplicates",
                   "--include-path", "--exclude-path"):
        assert option in res.stdout


def _snapshot(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}


def test_killed_run_leaves_the_previous_set_intact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"https://example.com/old/{i}\n" for i in range(30)))
    res = run(str(src), "--out", str(out), "--base-url", "https://example.com/", "--urls-per-file", "10")
    assert res.returncode == 0
    before = _snapshot(out)
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "generate", "-", "--out", str(out), "--base-url",
                             "https://example.com/", "--urls-per-file", "10"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    try:
        deadline = time.monotonic() + 60
        i = 0
        # Feed URLs until the writer has started a file set of its own, then kill it mid-run.
        while not any(p.name.startswith(".sitemapkit-tmp-") and any(p.iterdir()) for p in out.iterdir()):
            proc.stdin.write(b"".join(f"https://example.com/new/{i + k}\n".encode() for k in range(200)))
            proc.stdin.flush()
            i += 200
            time.sleep(0.05)
            assert time.monotonic() < deadline, "generate never started writing"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
    assert proc.returncode == -signal.SIGKILL
    assert _snapshot(out) == before
    # The next run cleans up what the killed one left and publishes normally.
    assert run(str(src), "--out", str(out), "--base-url", "https://example.com/").returncode == 0
    assert not [p for p in out.iterdir() if p.name.startswith(".sitemapkit-tmp-")]
    assert sorted(p.name for p in out.iterdir()) == [".sitemapkit-manifest.json", "sitemap.xml"]


def test_gzip_compressed_input_and_several_inputs(tmp_path: Path) -> None:
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(b"https://example.com/a\nhttps://example.com/b\n"))
    (tmp_path / "b.jsonl").write_text('{"loc": "https://example.com/c"}\n')
    res = run("a.txt.gz", "b.jsonl", "--out", "out", "--base-url", "https://example.com/", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert locs(tmp_path / "out" / "sitemap.xml") == ["https://example.com/a", "https://example.com/b",
                                                      "https://example.com/c"]
