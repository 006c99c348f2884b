"""`harvest --dashboard`: the local cluster's Dask dashboard is served (progress per task and worker) and named."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.support.ports import wait_listening
from tests.support.server import LocalServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _dashboard_status(port: int, seen: dict[str, int], body: list[str]) -> bool:
    """True if the dashboard answers on ``port`` (the harvest also listens for its Dask scheduler)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=15) as resp:
            seen["status"] = resp.status
            body.append(resp.read().decode("utf-8", "replace"))
            return True
    except (OSError, http.client.HTTPException):  # not listening yet, or the scheduler's own protocol
        return False


@pytest.mark.slow
def test_dashboard_is_served_while_harvesting(tmp_path: Path) -> None:
    pytest.importorskip("bokeh")
    seen: dict[str, int] = {}
    port = 0
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
             "--workers", "1", "--dashboard", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # Port 0: Dask binds a free port; the test finds it among the ports the process listens on.
            bodies: list[str] = []
            port = wait_listening(proc, lambda p: _dashboard_status(p, seen, bodies), timeout=60)
            body = bodies[-1]
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
