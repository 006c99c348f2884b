"""`sitemapkit crawl --images`: every image a page shows (img src, each srcset candidate, <picture> sources) is
listed in the sitemap, checked (HEAD, never downloaded whole) and reported when broken, with the pages using it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from sitemapkit.crawl import extract_page
from sitemapkit.crawl._html import srcset_urls
from tests.support.cli import run_cli
from tests.support.server import LocalServer, Request, Response

pytestmark = pytest.mark.e2e

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "image": "http://www.google.com/schemas/sitemap-image/1.1"}
FAST = ["--retries", "0", "--stall-timeout", "5", "--concurrency", "4"]


def test_srcset_candidates_follow_the_html_rules() -> None:
    assert srcset_urls("/a.jpg 1x, /b.jpg 2x") == ["/a.jpg", "/b.jpg"]
    assert srcset_urls("https://cdn.test/w_100,h_80/x.jpg 100w, /y.jpg 200w") == [
        "https://cdn.test/w_100,h_80/x.jpg", "/y.jpg"]
    assert srcset_urls("/a.jpg, /b.jpg") == ["/a.jpg", "/b.jpg"]
    assert srcset_urls("data:image/png;base64,xx 1x, /c.jpg 2x") == ["/c.jpg"]


def test_picture_sources_and_the_title_are_extracted() -> None:
    info = extract_page(b"<html><head><title>\n Shop  home </title></head><body><picture>"
                        b'<source srcset="/p.avif 1x, /p2.avif 2x" type="image/avif"><img src="/p.jpg"></picture>'
                        b'<video><source src="/v.mp4"></video></body></html>', images=True)
    assert info.images == ("/p.avif", "/p2.avif", "/p.jpg")
    assert info.title == "Shop home"


def image_site(server: LocalServer) -> None:
    html = {"Content-Type": "text/html"}
    server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    server.route("/", '<html><body><a href="/a">a</a> <a href="/b">b</a>'
                      '<img src="/img/ok.jpg" srcset="/img/ok-2x.jpg 2x, /img/gone-3x.jpg 3x"></body></html>',
                 headers=html)
    server.route("/a", '<html><body><picture><source srcset="/img/p.webp"><img src="/img/broken.jpg"></picture>'
                       '<img src="/img/noext"></body></html>', headers=html)
    server.route("/b", '<html><body><img src="/img/broken.jpg"></body></html>', headers=html)
    for name in ("ok.jpg", "ok-2x.jpg", "p.webp"):
        server.route(f"/img/{name}", b"\xff\xd8" * 1000, content_type="image/jpeg")

    def noext(req: Request) -> Response:  # an image URL without an extension: still only checked
        return Response(200, b"GIF89a" + b"x" * 5000, {"Content-Type": "image/gif"})

    server.route("/img/noext", handler=noext)


def test_crawl_lists_checks_and_reports_images(server: LocalServer, tmp_path: Path) -> None:
    image_site(server)
    out = tmp_path / "out"
    res = run_cli(["crawl", server.url("/"), "--out", out, "--state", tmp_path / "s.sqlite", *FAST, "--images"])
    assert res.returncode == 0, res.stderr
    assert "broken (2 of them images)" in res.stdout
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    images = {u.findtext("sm:loc", namespaces=NS): [i.text for i in u.findall("image:image/image:loc", NS)]
              for u in root.findall("sm:url", NS)}
    b = server.base
    assert images == {
        f"{b}/": [f"{b}/img/ok.jpg", f"{b}/img/ok-2x.jpg", f"{b}/img/gone-3x.jpg"],
        f"{b}/a": [f"{b}/img/p.webp", f"{b}/img/broken.jpg", f"{b}/img/noext"],
        f"{b}/b": [f"{b}/img/broken.jpg"],
    }
    report = json.loads((out.parent / "out-report" / "crawl-report.json").read_text())
    assert report["broken_image_count"] == 2
    assert [(i["url"], i["status"], i["pages"], i["page_count"]) for i in report["broken_images"]] == [
        (f"{b}/img/broken.jpg", 404, [f"{b}/a", f"{b}/b"], 2),
        (f"{b}/img/gone-3x.jpg", 404, [f"{b}/"], 1),
    ]
    # checked, not downloaded: every image request is a HEAD
    image_methods = {(r.method, r.path) for r in server.requests if r.path.startswith("/img/")}
    assert {m for m, _ in image_methods} == {"HEAD"}
    assert {p for _, p in image_methods} == {"/img/ok.jpg", "/img/ok-2x.jpg", "/img/gone-3x.jpg", "/img/p.webp",
                                             "/img/broken.jpg", "/img/noext"}
    page = (out.parent / "out-report" / "report.html").read_text()
    assert "Broken images (2)" in page
    assert "Used on" in page


def test_without_images_nothing_is_checked(server: LocalServer, tmp_path: Path) -> None:
    image_site(server)
    out = tmp_path / "out"
    res = run_cli(["crawl", server.url("/"), "--out", out, "--state", tmp_path / "s.sqlite", *FAST])
    assert res.returncode == 0, res.stderr
    assert not [r for r in server.requests if r.path.startswith("/img/")]
    report = json.loads((out.parent / "out-report" / "crawl-report.json").read_text())
    assert report["broken_images"] == []
    assert "Broken images" not in (out.parent / "out-report" / "report.html").read_text()
