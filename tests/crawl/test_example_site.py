"""The README's first command: examples/site served by `python -m http.server`, crawled by the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from tests.support.ports import read_port

pytestmark = pytest.mark.e2e

SITE = Path(__file__).resolve().parents[2] / "examples" / "site"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "image": "http://www.google.com/schemas/sitemap-image/1.1"}


def test_example_site_crawl(tmp_path: Path) -> None:
    # Port 0: http.server binds a free port and says which ("Serving HTTP on 127.0.0.1 port N ...") once it listens.
    server = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                               "--directory", str(SITE)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        port, _ = read_port(server.stdout, r"Serving HTTP on \S+ port (\d+)", timeout=20)  # type: ignore[arg-type]
        base = f"http://127.0.0.1:{port}"
        out = tmp_path / "site-sitemaps"
        proc = subprocess.run([sys.executable, "-m", "sitemapkit", "crawl", base + "/", "--out", str(out),
                               "--images"],
                              capture_output=True, text=True, timeout=120)
    finally:
        server.terminate()
        server.wait(timeout=10)
        server.stdout.close()  # type: ignore[union-attr]
    assert proc.returncode == 0, proc.stderr
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    locs = {u.findtext("sm:loc", namespaces=NS) for u in root.findall("sm:url", NS)}
    assert locs == {base + p for p in ("/", "/about.html", "/blog/", "/blog/first-post.html",
                                       "/blog/second-post.html", "/docs/getting-started.html")}
    assert root.xpath("//image:loc/text()", namespaces=NS) == [base + "/images/beans.svg"]
    report = json.loads((tmp_path / "site-sitemaps-report" / "crawl-report.json").read_text())  # beside --out
    assert [(b["url"], b["status"], b["referrers"]) for b in report["broken"]] == [
        (base + "/old-page.html", 404, [base + "/"])]
    reasons = {e["url"]: e["reason"] for e in report["excluded"]}
    assert reasons[base + "/blog/tag-coffee.html"] == "noindex"
    assert reasons[base + "/blog/print.html"] == "canonical"
    assert reasons[base + "/drafts/wip.html"] == "robots"
    assert reasons[base + "/menu.pdf"] == "non-HTML"
    assert (tmp_path / "site-sitemaps-report" / "report.html").is_file()
    assert not (out / "report.html").exists()  # nothing but sitemaps is published
