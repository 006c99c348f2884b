"""The README's first command: examples/site served by `python -m http.server`, crawled by the real CLI."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lxml import etree

pytestmark = pytest.mark.e2e

SITE = Path(__file__).resolve().parents[2] / "examples" / "site"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "image": "http://www.google.com/schemas/sitemap-image/1.1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_example_site_crawl(tmp_path: Path) -> None:
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(SITE)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        out = tmp_path / "site-sitemaps"
        proc = subprocess.run([sys.executable, "-m", "sitemapkit", "crawl", base + "/", "--out", str(out),
                               "--images"],
                              capture_output=True, text=True, timeout=120)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert proc.returncode == 0, proc.stderr
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    locs = {u.findtext("sm:loc", namespaces=NS) for u in root.findall("sm:url", NS)}
    assert locs == {base + p for p in ("/", "/about.html", "/blog/", "/blog/first-post.html",
                                       "/blog/second-post.html", "/docs/getting-started.html")}
    assert root.xpath("//image:loc/text()", namespaces=NS) == [base + "/images/beans.svg"]
    report = json.loads((out / "crawl-report.json").read_text())
    assert [(b["url"], b["status"], b["referrers"]) for b in report["broken"]] == [
        (base + "/old-page.html", 404, [base + "/"])]
    reasons = {e["url"]: e["reason"] for e in report["excluded"]}
    assert reasons[base + "/blog/tag-coffee.html"] == "noindex"
    assert reasons[base + "/blog/print.html"] == "canonical"
    assert reasons[base + "/drafts/wip.html"] == "robots"
    assert reasons[base + "/menu.pdf"] == "non-HTML"
    assert (out / "report.html").is_file()
