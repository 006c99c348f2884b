"""`harvest --dashboard`: the local cluster's Dask dashboard is served (progress per task and worker) and named."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.support.server import LocalServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_dashboard_is_served_while_harvesting(tmp_path: Path) -> None:
    pytest.importorskip("bokeh")
    port = _free_port()
    seen: dict[str, int] = {}
    release = threading.Event()
    with LocalServer() as srv:
        def slow_sitemap(_req: object) -> object:
            # Hold the harvest until the test has fetched the dashboard.
            from tests.support.server import Response

            release.wait(30)
            body = f'<urlset xmlns="{NS}"><url><loc>{srv.url("/a")}</loc></url></urlset>'.encode()
            return Response(200, body, {"Content-Type": "application/xml"})

        srv.route("/sitemap.xml", handler=slow_sitemap)  # type: ignore[arg-type]
        hosts = tmp_path / "hosts.txt"
        hosts.write_text(srv.url("/sitemap.xml") + "\n", encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-m", "sitemapkit", "harvest", str(hosts), "--out", str(tmp_path / "out"),
             "--workers", "1", "--dashboard", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            body = ""
            for _ in range(100):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=2) as resp:
                        seen["status"] = resp.status
                        body = resp.read().decode("utf-8", "replace")
                        break
                except OSError:
                    threading.Event().wait(0.2)
            release.set()
            out, err = proc.communicate(timeout=120)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
    assert seen.get("status") == 200, err
    assert "Dask" in body or "bokeh" in body.lower()
    assert proc.returncode == 0, err
    assert re.search(rf"dashboard: http://127\.0\.0\.1:{port}/status", out + err)
