"""What a newcomer hits first (issue 26), each through the real command line: a clean line for a missing extra,
duplicates dropped by generate, a short ``validate -q``, reports kept out of the published folder, a word about
local URLs, generate skipping sitemapkit's own files, an unreachable host named as such, and a directory where a
file is expected."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli

BASE = "https://example.org/"


# -- 1. optional commands without their extra -------------------------------------------------------------------


@pytest.mark.parametrize(("blocked", "args", "extra"), [
    (("dask", "distributed", "pyarrow"), ["harvest", "{hosts}", "-o", "{tmp}/h"], "harvest"),
    (("dask", "distributed", "pyarrow"), ["generate", "{data}", "-o", "{tmp}/o", "--base-url", BASE,
                                           "--workers", "2"], "harvest"),
    (("google", "google.auth"), ["submit", "https://example.org/sitemap.xml", "--google-credentials", "{cred}"],
     "google"),
    (("starlette", "uvicorn"), ["web", "--no-browser"], "web"),
])
def test_a_missing_extra_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                blocked: tuple[str, ...], args: list[str], extra: str) -> None:
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("https://example.org/\n", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("loc\nhttps://example.org/a\n", encoding="utf-8")
    cred = tmp_path / "cred.json"
    cred.write_text('{"type": "service_account"}', encoding="utf-8")
    for name in blocked:  # `import name` raises ImportError, as on an install without the extra
        monkeypatch.setitem(sys.modules, name, None)
    for loaded in [m for m in sys.modules if m.startswith("sitemapkit.web")]:
        monkeypatch.delitem(sys.modules, loaded)  # the web app's modules are imported again, and fail
    argv = [a.format(hosts=hosts, tmp=tmp_path, data=data, cred=cred) for a in args]
    done = run_cli(argv)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"needs the {extra} extra: pip install 'sitemapkit[{extra}]'" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "h").exists()
    assert not (tmp_path / "o").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port
