"""Issue 24 through the real server: the rows API at 20,000 broken links, form posts without JavaScript (with the
page's CSRF token, refused without it), the outputs as ticked, a paused crawl's partial report and sitemap,
report.html opening in the browser, audits from the app, an index checked with its children, connection failures
named as such."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.support.server import LocalServer
from tests.support.sites import index_xml, urlset_xml
from tests.web.bigcrawl import seed_big_crawl
from tests.web.conftest import PAGES, WebServer, build_site, start_web, stop_web
from tests.web.test_hardening import csrf_token

pytestmark = pytest.mark.e2e

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def post_form(web: WebServer, path: str, fields: list[tuple[str, str]],
              headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """A form's POST as a browser sends it; a redirect is returned as such (not followed)."""
    req = urllib.request.Request(web.base + path, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                 headers={**FORM, **(headers or {})})
    try:
        with urllib.request.build_opener(_NoRedirect).open(req, timeout=30) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def test_the_rows_api_pages_filters_and_sorts_broken_links(tmp_path: Path) -> None:
    """(test_browser.py times the same at 20,000 rows.)"""
    data_home = tmp_path / "xdg-data"
    crawl_id = seed_big_crawl(data_home / "sitemapkit" / "web", 2_000)
    web = start_web(data_home)
    try:
        status, page = web.json("GET", f"/api/crawls/{crawl_id}/rows/broken?offset=1950&limit=100")
        assert status == 200
        assert (page["total"], page["matched"], len(page["rows"])) == (2_000, 2_000, 50)
        assert page["rows"][-1]["url"].endswith("item-01999.html")
        _, page = web.json("GET", f"/api/crawls/{crawl_id}/rows/broken?q=ITEM-0199&sort=status&dir=desc")
        assert page["matched"] == 10  # item-01990 to item-01999
        assert [r["status"] for r in page["rows"]] == ["410"] + ["404"] * 9  # 410 (item-01995) first: descending
        assert page["rows"][0]["referrers"] == ["https://kiwi-shop.example/"]
        _, page = web.json("GET", f"/api/crawls/{crawl_id}/rows/redirects?sort=url&limit=1")
        assert page["total"] == 200
        assert page["rows"][0]["chain"] == "301"
        for bad in ("rows/nope", "rows/broken?sort=size", "rows/broken?limit=0", "rows/broken?offset=x"):
            status, answer = web.json("GET", f"/api/crawls/{crawl_id}/{bad}")
            assert status == 400, bad
            assert answer["error"]
        # The results page itself holds one page of rows, whatever the size.
        body = web.request("GET", f"/crawls/{crawl_id}")[2].decode()
        assert body.count("<tr>") < 400
        assert "Rows 1–100 of 2,000" in body
        assert "?broken=100#sec-broken" in body
    finally:
        stop_web(web)


def test_without_javascript_the_form_starts_a_crawl_and_the_page_refreshes(web: WebServer,
                                                                          site: LocalServer) -> None:
    token = csrf_token(web)
    fields = [("csrf_token", token), ("url", site.url("/")), ("max_pages", ""), ("concurrency", "4"),
              ("respect_robots", "false"), ("respect_robots", "true"), ("formats", ""), ("formats", "txt"),
              ("gzip", "false")]
    status, headers, _ = post_form(web, "/crawls", fields)
    assert status == 303
    crawl_page = headers["location"]
    crawl_id = crawl_page.rsplit("/", 1)[1]
    status, _, body = web.request("GET", crawl_page)
    assert status == 200
    if b"Done" not in body:  # still running: the page says it refreshes itself
        assert b'<noscript><meta http-equiv="refresh" content="2"></noscript>' in body
    crawl = web.wait_status(crawl_id, {"done"})
    assert crawl["options"]["formats"] == ["txt"]
    assert crawl["options"]["respect_robots"] is True
    assert crawl["counts"]["pages_per_second"] > 0
    assert crawl["note"] == ""
    names = {f["name"] for f in crawl["files"]}
    assert "sitemap.txt" in names
    assert not names & {"sitemap.xml", "sitemap.html"}  # exactly what was ticked
    body = web.request("GET", crawl_page)[2].decode()
    assert "http-equiv=\"refresh\"" not in body
    assert f'{site.url("/missing")}' in body  # the broken link, in the page's HTML
    # report.html opens in the browser; ?download=1 saves it.
    _, headers, _ = web.request("GET", f"/api/crawls/{crawl_id}/files/report.html")
    assert headers["content-disposition"].startswith("inline")
    assert "'sha256-" in headers["content-security-policy"]
    assert "sandbox allow-scripts" in headers["content-security-policy"]
    _, headers, _ = web.request("GET", f"/api/crawls/{crawl_id}/files/report.html?download=1")
    assert headers["content-disposition"].startswith("attachment")
    _, headers, _ = web.request("GET", f"/api/crawls/{crawl_id}/files/sitemap.txt")
    assert headers["content-disposition"].startswith("attachment")


def test_a_form_with_every_output_unticked_is_an_error_on_that_field(web: WebServer) -> None:
    token = csrf_token(web)
    status, _, body = post_form(web, "/crawls", [("csrf_token", token), ("url", "http://a.test/"),
                                                 ("formats", "")])
    assert status == 400
    page = body.decode()
    assert "Output files: tick at least one file" in page
    assert '<fieldset id="formats" aria-invalid="true"' in page
    assert 'value="http://a.test/"' in page  # what was typed is kept
    status, _, body = post_form(web, "/crawls", [("csrf_token", token), ("url", "http://a.test/"),
                                                 ("max_pages", "0")])
    assert status == 400
    assert "Max pages: must be at least 1, not 0" in body.decode()
    assert re.search(r'<input name="max_pages"[^>]*aria-invalid="true"', body.decode())
    assert web.json("GET", "/api/crawls")[1]["crawls"] == []


def test_page_forms_need_the_token_and_refuse_other_sites(web: WebServer, site: LocalServer) -> None:
    token = csrf_token(web)
    for path in ("/crawls", "/check", "/discover", "/audits"):
        for fields, headers in [
            ([("url", site.url("/"))], {}),  # no token
            ([("csrf_token", "guessed"), ("url", site.url("/"))], {}),
            ([("csrf_token", token), ("url", site.url("/"))], {"Origin": "http://evil.example"}),
            ([("csrf_token", token), ("url", site.url("/"))], {"Origin": "null", "Sec-Fetch-Site": "cross-site"}),
            ([("csrf_token", token), ("url", site.url("/"))], {"Sec-Fetch-Site": "cross-site"}),
        ]:
            status, _, body = post_form(web, path, fields, headers)
            assert status == 403, (path, fields, headers, body)
    assert web.json("GET", "/api/crawls")[1]["crawls"] == []
    assert site.requests == []
    # A browser hiding the origin of the app's own page ("null", but same-origin): the token decides.
    hidden = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}
    status, _, _ = post_form(web, "/discover", [("url", site.url("/"))], hidden)
    assert status == 403
    status, _, _ = post_form(web, "/api/validate", [("url", site.url("/sitemap.xml"))], hidden)
    assert status == 403
    assert site.requests == []
    status, _, _ = post_form(web, "/discover", [("csrf_token", token), ("url", site.url("/"))], hidden)
    assert status == 200
    # From the app's own page (its origin, its token), the same forms are accepted.
    own = {"Origin": web.base, "Sec-Fetch-Site": "same-origin"}
    status, _, _ = post_form(web, "/discover", [("csrf_token", token), ("url", site.url("/"))], own)
    assert status == 200


def test_a_paused_crawl_offers_its_partial_report_and_sitemap(web: WebServer) -> None:
    with LocalServer() as slow:
        build_site(slow, delay=0.3)
        status, created = web.json("POST", "/api/crawls", {"url": slow.url("/"), "concurrency": 1})
        assert status == 201
        crawl_id = created["id"]
        deadline = time.monotonic() + 20
        while web.json("GET", f"/api/crawls/{crawl_id}")[1]["counts"].get("crawled", 0) < 3:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # The status page's Pause button, without JavaScript: a form post, answered by the status page.
        status, headers, _ = post_form(web, f"/crawls/{crawl_id}/pause", [("csrf_token", csrf_token(web))])
        assert (status, headers["location"]) == (303, f"/crawls/{crawl_id}")
        crawl = web.wait_status(crawl_id, {"paused"})
    assert crawl["partial"] is True
    names = {f["name"] for f in crawl["files"]}
    assert {"report.html", "crawl-report.json", "sitemap.xml"} <= names
    status, report = web.json("GET", f"/api/crawls/{crawl_id}/files/crawl-report.json")
    assert status == 200
    assert report["complete"] is False
    _, _, xml = web.request("GET", f"/api/crawls/{crawl_id}/files/sitemap.xml")
    assert 1 <= xml.count(b"<loc>") < PAGES + 1  # what was confirmed so far, not the whole site
    assert crawl["counts"]["elapsed"] > 0
    # The history's Delete button, without JavaScript: the crawl and its files are gone.
    token = csrf_token(web)
    assert f'action="/crawls/{crawl_id}/delete"' in web.request("GET", "/")[2].decode()
    status, headers, _ = post_form(web, f"/crawls/{crawl_id}/delete", [("csrf_token", token)])
    assert (status, headers["location"]) == (303, "/")
    assert web.json("GET", f"/api/crawls/{crawl_id}")[0] == 404


def test_audits_from_the_app(web: WebServer, site: LocalServer) -> None:
    site.route("/sitemap.xml", urlset_xml([site.url("/"), site.url("/p1"), site.url("/missing")]),
               content_type="application/xml")
    status, created = web.json("POST", "/api/audits", {"url": site.url("/")})
    assert status == 201
    audit_id = created["id"]
    deadline = time.monotonic() + 30
    while (job := web.json("GET", f"/api/audits/{audit_id}")[1])["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert job["status"] == "done", job
    assert {"category": "not_found", "label": "Not found (4xx/5xx)", "severity": "error",
            "count": 1} in job["findings"]
    for name in ("audit.html", "audit.json", "audit.csv"):
        status, _, body = web.request("GET", f"/api/audits/{audit_id}/files/{name}")
        assert status == 200, name
        assert body
    assert json.loads(web.request("GET", f"/api/audits/{audit_id}/files/audit.json")[2])["summary"]["not_found"] == 1
    html = web.request("GET", f"/api/audits/{audit_id}/files/audit.html")[2].decode()
    assert '<span class="sev error">error</span>' in html
    assert web.json("GET", f"/api/audits/{audit_id}/files/passwd")[0] == 404
    assert web.json("GET", "/api/audits/000000000000")[0] == 404
    status, answer = web.json("POST", "/api/audits", {})
    assert (status, answer["field"]) == (400, "url")
    page = web.request("GET", f"/audits/{audit_id}")[2].decode()
    assert "Not found (4xx/5xx)" in page
    assert "not_found" not in page.split("<main", 1)[1]
    assert "http-equiv" not in page  # done: no more refreshing
    # Without JavaScript: the form starts an audit and lands on its page, which refreshes itself while it runs.
    status, headers, _ = post_form(web, "/audits", [("csrf_token", csrf_token(web)), ("url", site.url("/"))])
    assert status == 303
    page = web.request("GET", headers["location"])[2].decode()
    assert "Audit of" in page
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page or ">Done<" in page


def test_checking_an_index_checks_its_children(web: WebServer) -> None:
    with LocalServer() as srv:
        srv.route("/index.xml", index_xml([srv.url("/a.xml"), srv.url("/gone.xml")]), content_type="application/xml")
        srv.route("/a.xml", urlset_xml([srv.url("/x")]).replace(b"</loc>", b"</loc><lastmod>soon</lastmod>"),
                  content_type="application/xml")
        status, result = web.json("POST", "/api/validate", {"url": srv.url("/index.xml")})
    assert status == 200
    assert result["kind"] == "index"
    assert result["valid"] is False
    children = {c["source"]: c for c in result["children"]}
    assert children[srv.url("/gone.xml")]["errors"] == 1
    assert children[srv.url("/gone.xml")]["groups"][0]["code"] == "SM502"
    assert [g["code"] for g in children[srv.url("/a.xml")]["groups"] if g["severity"] == "error"] == ["SM320"]
    assert result["errors"] == 2


def test_connection_failures_are_named(web: WebServer) -> None:
    status, answer = web.json("POST", "/api/validate", {"url": "http://127.0.0.1:9/sitemap.xml"})
    assert status == 400
    assert answer["error"].startswith("cannot connect to 127.0.0.1:9: ")
    status, answer = web.json("GET", "/api/discover?url=" + urllib.parse.quote("http://127.0.0.1:9/"))
    assert status == 400
    assert answer["error"].startswith("cannot connect to 127.0.0.1:9: ")


def test_not_fetched_is_the_same_grey_in_both_charts() -> None:
    """The results page's status chart and report.html's draw "not fetched" in one grey (it was green in one)."""
    from sitemapkit.crawl._report import NOT_FETCHED_COLOR, _status_color

    css = (Path(__file__).resolve().parents[2] / "src" / "sitemapkit" / "web" / "static" / "app.css").read_text()
    assert ".bar.sn rect{fill:var(--grey)}" in css
    assert f"--grey:{NOT_FETCHED_COLOR}" in css
    assert _status_color("not fetched") == NOT_FETCHED_COLOR
    template = (Path(__file__).resolve().parents[2] / "src" / "sitemapkit" / "web" / "templates" / "crawl.html")
    assert "'n' if label == 'not fetched'" in template.read_text()


def test_a_crawl_refused_by_robots_txt_says_what_to_untick(web: WebServer) -> None:
    with LocalServer() as closed:
        closed.route("/", "<html><body>hi</body></html>", content_type="text/html")
        closed.route("/robots.txt", "User-agent: *\nDisallow: /\n", content_type="text/plain")
        status, created = web.json("POST", "/api/crawls", {"url": closed.url("/")})
        assert status == 201
        crawl = web.wait_status(created["id"], {"failed", "done"})
    assert crawl["status"] == "failed"
    assert 'untick "Respect robots.txt" to crawl it anyway' in crawl["error"]
    assert "--" not in crawl["error"]
    assert crawl["note"] == ""
    page = web.request("GET", f"/crawls/{created['id']}")[2].decode()
    assert ">Failed<" in page
    assert "publishing" not in page


def test_the_form_offers_changefreq_priority_rules_and_images_in_its_own_words(web: WebServer) -> None:
    page = web.request("GET", "/")[2].decode()
    assert re.search(r'<select name="changefreq"', page)
    assert '<option value="">(none)</option>' in page
    assert re.search(r'<input name="priority" type="text"', page)
    assert re.search(r'<textarea name="rule"', page)
    assert re.search(r'<input type="checkbox" name="images"', page)
    assert "Google ignores changefreq and priority" in page
    helps = re.findall(r'<span id="[a-z_]+-help" class="muted small">([^<]*)', page)
    assert helps
    assert not [h for h in helps if "--" in h]  # no CLI flag in the form's help
    status, _, body = post_form(web, "/crawls", [("csrf_token", csrf_token(web)), ("url", "http://a.test/"),
                                                 ("rule", "/blog/* weight=1")])
    assert status == 400
    text = body.decode()
    assert re.search(r"Rules \(one per line\)(&#34;|&quot;|\"): unknown key &#39;weight&#39;", text)
    assert re.search(r'<textarea name="rule"[^>]*aria-invalid="true"', text)
