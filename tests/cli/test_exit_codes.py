"""One exit-status rule for every command, through the real CLI: 0 ok, 1 problems found or the job failed, 2 usage
error (a missing file, a malformed URL, a bad option), 130 after Ctrl-C with one line and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sitemapkit.cli import main
from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer, Response
from tests.support.signals import sigint_default

BASE = "https://example.com/"
INTERVAL_ENV = {"SITEMAPKIT_PROGRESS_INTERVAL": "0.1"}


def run(*args: str) -> CliResult:
    return run_cli(args)


def _usage_cases(tmp: Path) -> Iterator[tuple[str, list[str]]]:
    out = str(tmp / "out")
    missing = str(tmp / "missing.xml")
    for bad in (missing, "htp:/x"):
        yield "validate", [bad]
        yield "urls", [bad]
        yield "generate", [bad, "--out", out, "--base-url", BASE]
        yield "discover", [bad]
        yield "crawl", [bad, "--out", out]
    for name in ("validate", "urls", "generate", "discover", "crawl"):
        yield name, [f"--no-such-option-{name}"]


def test_missing_file_malformed_url_and_bad_option_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           ) -> None:
    """Through the console script's entry point (the same error boundary as ``python -m sitemapkit``)."""
    seen = set()
    for name, args in _usage_cases(tmp_path):
        with pytest.raises(SystemExit) as exited:
            main([name, *args])
        captured = capsys.readouterr()
        seen.add(name)
        assert exited.value.code == 2, (name, args, captured.err)
        assert "Traceback" not in captured.err, (name, args)
        assert captured.err.strip(), (name, args)
        assert captured.out == "", (name, args)
    assert not (tmp_path / "out").exists()  # a usage error creates nothing
    assert seen == {"validate", "urls", "generate", "discover", "crawl"}


def test_usage_errors_through_the_real_cli(tmp_path: Path) -> None:
    done = run("urls", "http:/x")
    assert done.returncode == 2
    assert "not an absolute http(s) URL: 'http:/x'" in done.stderr
    done = run("validate", str(tmp_path / "nope.xml"))
    assert done.returncode == 2
    assert "nope.xml" in done.stderr
    assert "Traceback" not in done.stderr


def _interrupt(args: list[str], *, wait_for: str | None = None, stdin: bytes | None = None,
               ready: Callable[[], bool] | None = None) -> subprocess.CompletedProcess[str]:
    """Start the CLI, wait until it is busy (a stderr line starting with ``wait_for``, then ``ready()`` true),
    send SIGINT, and return what it printed."""
    env = {**os.environ, **INTERVAL_ENV}
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=sigint_default)
    assert proc.stdin is not None
    assert proc.stderr is not None
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.flush()
    first = b""
    if wait_for is not None:
        first = proc.stderr.readline()
        assert first.decode().startswith(wait_for), first
    if ready is not None:
        _wait_for(ready, timeout=30)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return subprocess.CompletedProcess(args, proc.returncode, out.decode(), first.decode() + err.decode())


def _no_traceback(stderr: str) -> None:
    """After Ctrl-C, only the one line: no traceback, nothing from finalizers or asyncio cleaning up."""
    for noise in ("Traceback", "Exception ignored", "asynchronous generator", "Task was destroyed", "Error"):
        assert noise not in stderr, stderr


def test_ctrl_c_during_urls_on_a_slow_server_exits_130(server: LocalServer) -> None:
    server.route("/sitemap.xml", handler=lambda _req: Response(200, b"<urlset/>", delay=3.0))
    done = _interrupt(["urls", server.url("/sitemap.xml")], wait_for="sitemapkit: reading sitemaps",
                      ready=lambda: server.hits("/sitemap.xml") >= 1)
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines()[-1] == "sitemapkit: interrupted"
    _no_traceback(done.stderr)


def test_ctrl_c_during_discover_on_a_slow_server_exits_130(server: LocalServer) -> None:
    server.route("/robots.txt", handler=lambda _req: Response(200, b"User-agent: *\n", delay=3.0))
    done = _interrupt(["discover", server.url("/")], wait_for="sitemapkit: discovering",
                      ready=lambda: server.hits("/robots.txt") >= 1)
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines()[-1] == "sitemapkit: interrupted"
    _no_traceback(done.stderr)


def _big_sitemap(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        for i in range(n):
            fh.write(f"<url><loc>https://example.com/p/{i}</loc><lastmod>2024-01-01</lastmod></url>\n")
        fh.write("</urlset>\n")
    return path


def test_ctrl_c_during_validate_of_a_big_file_exits_130(tmp_path: Path) -> None:
    big = _big_sitemap(tmp_path / "big.xml", 150_000)
    done = _interrupt(["validate", str(big)], wait_for="sitemapkit: validating")
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines()[-1] == "sitemapkit: interrupted"
    _no_traceback(done.stderr)
    assert done.stdout == ""  # no half report


def test_ctrl_c_while_generate_reads_standard_input_exits_130(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, **INTERVAL_ENV}
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "generate", "-", "--out", str(out),
                             "--base-url", BASE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, preexec_fn=sigint_default)
    assert proc.stdin is not None
    proc.stdin.write(b"https://example.com/a\n")
    proc.stdin.flush()
    try:
        # generate is waiting for more input: its sitemap set has not been started before the first line is read
        _wait_for(lambda: out.is_dir(), timeout=30)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.decode().splitlines()[-1] == "sitemapkit: interrupted"
    _no_traceback(err.decode())
    assert not (out / "sitemap.xml").exists()  # nothing half-published


def _wait_for(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("the command did not start in time")
        time.sleep(0.05)
