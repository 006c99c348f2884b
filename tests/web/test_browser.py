"""The web app in a real browser: headless Chromium (Debian's ``chromium`` + ``chromium-driver``, installed by
``.ci/run``) driven by Selenium, against the real server process and a real local site.

Screenshots of the main screens are kept under the test's tmp dir (``screens/``), and copied to
``docs/screenshots/`` (the ones the README shows). One browser serves a module (a second one, with JavaScript
off, serves the no-JS test); the accessibility rules are axe-core's (``.ci/run`` installs it from npm into
``.ci/axe/``; ``SITEMAPKIT_AXE`` may name another ``axe.min.js``).
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.server import LocalServer, Response
from tests.support.sites import index_xml, urlset_xml
from tests.web.bigcrawl import seed_big_crawl
from tests.web.conftest import PAGES, WebServer, build_site, start_web, stop_web

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
#: Broken links of the big crawl (the issue's "20,000 dead links").
BIG = 20_000

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="headless Chromium is not installed (apt-get install chromium chromium-driver)"),
]

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402

from tests.web.browser_support import (  # noqa: E402
    AXE,
    FILTER_JS,
    NODES_JS,
    SORT_JS,
    WCAG_TAGS,
    axe_problems,
    chrome,
    color_scheme,
    fits_a_phone,
    shoot,
    wait,
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser")


@pytest.fixture(scope="module")
def browser(shared: Path) -> Iterator[WebDriver]:
    (shared / "downloads").mkdir(exist_ok=True)
    driver = chrome(shared / "downloads")
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def web(shared: Path) -> Iterator[WebServer]:
    """One server for the module; its history gets a finished crawl with 20,000 broken links (written while the
    server and the browser start: see ``big_crawl``)."""
    data_home = shared / "xdg-data"
    seeded: list[str] = []
    seeding = threading.Thread(target=lambda: seeded.append(seed_big_crawl(data_home / "sitemapkit" / "web", BIG)))
    seeding.start()
    server = start_web(data_home)
    server.seeding = (seeding, seeded)  # type: ignore[attr-defined]
    yield server
    seeding.join()
    stop_web(server)


@pytest.fixture(scope="module")
def big_crawl(web: WebServer) -> str:
    seeding, seeded = web.seeding  # type: ignore[attr-defined]
    seeding.join(60)
    assert seeded, "the big crawl was not written"
    return str(seeded[0])


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    """The small site, with a sitemap (the audit reads it) and an index with a bad child and a missing one."""
    with LocalServer() as server:
        build_site(server)
        pages = [server.url("/")] + [server.url(f"/p{i}") for i in range(PAGES)] + [server.url("/missing")]
        server.route("/sitemap.xml", urlset_xml(pages), content_type="application/xml")
        server.route("/index.xml", index_xml([server.url("/sitemap.xml"), server.url("/bad.xml"),
                                              server.url("/gone.xml")]), content_type="application/xml")
        slow = urlset_xml([server.url("/p2")])
        server.route("/slow.xml", handler=lambda _req: Response(200, slow, {"Content-Type": "application/xml"},
                                                                 delay=1.0))
        server.route("/bad.xml", urlset_xml([server.url("/p1")]).replace(b"</loc>", b"</loc><lastmod>soon</lastmod>"),
                     content_type="application/xml")
        yield server


def test_crawl_watch_download_referrers_and_check_in_a_browser(browser: WebDriver, web: WebServer,
                                                               site: LocalServer, shared: Path,
                                                               tmp_path: Path) -> None:
    driver = browser
    color_scheme(driver, "light")
    driver.get(web.base + "/")
    url_input = driver.find_element(By.NAME, "url")
    assert url_input.accessible_name == "Site address"
    assert not driver.find_element(By.NAME, "max_pages").is_displayed()  # options folded away

    # Every output unticked: the form says so, on the field, and nothing starts.
    url_input.send_keys(site.url("/"))
    driver.find_element(By.CSS_SELECTOR, "details.options summary").click()
    for box in driver.find_elements(By.CSS_SELECTOR, "input[name=formats][type=checkbox]"):
        box.click()
    driver.find_element(By.ID, "start").click()
    error = wait(driver).until(ec.visibility_of_element_located((By.ID, "form-error")))
    assert error.text.startswith("Output files: tick at least one file")
    assert driver.find_element(By.ID, "formats").get_attribute("aria-invalid") == "true"
    assert driver.switch_to.active_element.get_attribute("name") == "formats"
    assert "/crawls/" not in driver.current_url
    driver.find_element(By.CSS_SELECTOR, "input[name=formats][value=xml]").click()
    driver.find_element(By.NAME, "max_depth").clear()
    driver.find_element(By.NAME, "max_depth").send_keys("10")
    driver.find_element(By.NAME, "concurrency").clear()  # a slow crawl: the live view shows counts on the way
    driver.find_element(By.NAME, "concurrency").send_keys("2")
    shoot(driver, tmp_path, "home", 1280)
    driver.find_element(By.ID, "start").click()

    # The live view: the count of crawled pages changes while the crawl runs, without reloading.
    wait(driver).until(ec.url_contains("/crawls/"))
    marker = driver.execute_script("window.__same_page = true; return true")
    seen: set[str] = set()
    shot = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        crawled = driver.find_element(By.ID, "count-crawled").text
        seen.add(crawled)
        status = driver.find_element(By.ID, "status").text
        if status == "Crawling" and crawled not in ("", "0") and not shot:
            assert "elapsed" in driver.find_element(By.ID, "elapsed").text
            shoot(driver, tmp_path, "live", 1280)
            shot = True
        if status == "Done":
            break
        time.sleep(0.05)
    assert marker
    assert len(seen) >= 3, seen  # at least two counts on the way to the final one
    assert shot, "the crawl was never seen running"

    # The results, swapped into the same page: counts, a rate that is not 0, downloads, tables.
    wait(driver).until(ec.visibility_of_element_located((By.ID, "results")))
    assert driver.execute_script("return window.__same_page === true")
    assert driver.find_element(By.ID, "count-in_sitemap").text == str(PAGES + 1)
    assert driver.find_element(By.ID, "count-broken").text == "1"
    assert float(driver.find_element(By.ID, "count-pages_per_second").text) > 0
    assert driver.find_element(By.ID, "note").text == ""
    assert not driver.find_element(By.ID, "pause").is_displayed()
    wait(driver).until(lambda d: d.find_element(By.ID, "table-broken").get_attribute("data-loaded"))
    shoot(driver, tmp_path, "results", 1280)
    shoot(driver, tmp_path, "results-phone", 390)
    assert fits_a_phone(driver)

    # Exactly the files ticked (sitemap.xml only, no .txt, no .html sitemap), and the report.
    names = {a.get_attribute("download") for a in driver.find_elements(By.CSS_SELECTOR, "#downloads a[download]")}
    assert {"sitemap.xml", "report.html", "crawl-report.json", "sitemaps.zip"} <= names
    assert not names & {"sitemap.txt", "sitemap.html"}

    # Download sitemap.xml through the page's link and check what the browser saved.
    driver.find_element(By.CSS_SELECTOR, "#downloads a[download='sitemap.xml']").click()
    saved = shared / "downloads" / "sitemap.xml"
    wait(driver).until(lambda _: saved.is_file() and saved.stat().st_size > 0)
    xml = saved.read_text()
    assert f"<loc>{site.url('/p0')}</loc>" in xml
    assert "/missing" not in xml
    assert xml.count("<loc>") == PAGES + 1

    # A broken link's referrers.
    row = driver.find_element(By.CSS_SELECTOR, "#table-broken tbody tr")
    assert site.url("/missing") in row.text
    assert "404" in row.text
    row.find_element(By.CSS_SELECTOR, "details summary").click()
    referrer = row.find_element(By.CSS_SELECTOR, "details ul li a")
    assert referrer.is_displayed()
    assert referrer.text == site.url("/")

    # Filter the exclusions (on the server): one row left; sort: aria-sort on the column header.
    table = driver.find_element(By.ID, "table-excluded")
    filt = driver.find_element(By.CSS_SELECTOR, "input[data-filter=excluded]")
    assert filt.accessible_name == "Filter excluded from the sitemap"
    filt.send_keys("secret")
    wait(driver).until(lambda _: len(table.find_elements(By.CSS_SELECTOR, "tbody tr")) == 1)
    assert "noindex" in table.find_element(By.CSS_SELECTOR, "tbody tr").text
    header = table.find_element(By.CSS_SELECTOR, "th[data-col='1']")
    header.find_element(By.TAG_NAME, "button").click()
    wait(driver).until(lambda _: header.get_attribute("aria-sort") == "ascending")

    # report.html opens in the browser, its table script running under the served page's CSP.
    crawl_id = driver.current_url.rstrip("/").rsplit("/", 1)[1]
    driver.get(f"{web.base}/api/crawls/{crawl_id}/files/report.html")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Crawl report"
    wait(driver).until(lambda d: d.find_element(By.ID, "t-broken").get_attribute("data-ready") == "broken")

    # Check an uploaded sitemap file; a file and an address are an explicit either/or.
    bad = tmp_path / "upload.xml"
    bad.write_bytes(urlset_xml([site.url("/a")]).replace(b"</loc>", b"</loc><lastmod>yesterday</lastmod>"))
    driver.get(web.base + "/check")
    driver.find_element(By.ID, "check-url").send_keys("https://ignored.example/sitemap.xml")
    driver.find_element(By.ID, "check-file").send_keys(str(bad))
    assert not driver.find_element(By.ID, "check-url").is_enabled()
    assert driver.find_element(By.ID, "check-url").get_attribute("value") == ""
    driver.find_element(By.ID, "check-start").click()
    wait(driver).until(ec.visibility_of_element_located((By.ID, "check-results")))
    summary = driver.find_element(By.ID, "check-summary").text
    assert summary.startswith("Not valid: upload.xml")
    group = driver.find_element(By.CSS_SELECTOR, "#groups .group")
    assert "error" in group.text
    assert "yesterday" in group.text
    assert driver.find_element(By.ID, "url-list").text == site.url("/a")
    shoot(driver, tmp_path, "check", 1280)
    shoot(driver, tmp_path, "check-phone", 390)
    assert fits_a_phone(driver)

    # The clear button gives the address back. A slow sitemap: the page says it is busy, and the previous result
    # is gone meanwhile.
    driver.find_element(By.ID, "check-clear").click()
    assert driver.find_element(By.ID, "check-url").is_enabled()
    assert not driver.find_element(By.ID, "check-clear").is_displayed()
    driver.find_element(By.ID, "check-url").send_keys(site.url("/slow.xml"))
    driver.find_element(By.ID, "check-start").click()
    assert driver.find_element(By.ID, "check-busy").is_displayed()
    assert not driver.find_element(By.ID, "check-results").is_displayed()
    assert driver.find_element(By.ID, "check-start").get_attribute("aria-busy") == "true"
    wait(driver).until(lambda d: "slow.xml" in d.find_element(By.ID, "check-summary").text)
    assert not driver.find_element(By.ID, "check-busy").is_displayed()

    # An index is checked with its children (a 404 child is an error).
    driver.find_element(By.ID, "check-url").clear()
    driver.find_element(By.ID, "check-url").send_keys(site.url("/index.xml"))
    driver.find_element(By.ID, "check-start").click()
    wait(driver).until(lambda d: "index.xml" in d.find_element(By.ID, "check-summary").text)
    assert driver.find_element(By.ID, "check-summary").text.startswith("Not valid:")
    search = driver.find_element(By.ID, "url-search")  # the index's URLs (its children), filtered in the page
    assert search.accessible_name == "Filter URLs"
    search.send_keys("gone")
    assert driver.find_element(By.ID, "url-list").text == site.url("/gone.xml")
    children = driver.find_elements(By.CSS_SELECTOR, "#children > li")
    assert len(children) == 3
    by_url = {c.find_element(By.CSS_SELECTOR, ".u").text: c.text for c in children}
    assert "not valid" in by_url[site.url("/gone.xml")]
    assert "404" in by_url[site.url("/gone.xml")]
    assert "soon" in by_url[site.url("/bad.xml")]
    assert by_url[site.url("/sitemap.xml")].startswith("valid")

    # An unreachable host: the previous result goes, the error names the connection, the field has the focus.
    url = driver.find_element(By.ID, "check-url")
    url.clear()
    url.send_keys("http://127.0.0.1:9/sitemap.xml")
    driver.find_element(By.ID, "check-start").click()
    error = wait(driver).until(ec.visibility_of_element_located((By.ID, "form-error")))
    assert error.text.startswith("cannot connect to 127.0.0.1:9"), error.text
    assert not driver.find_element(By.ID, "check-results").is_displayed()
    assert driver.switch_to.active_element.get_attribute("id") == "check-url"
    assert url.get_attribute("aria-invalid") == "true"

    # Discover: the tree, then an unreachable host named as such.
    driver.get(web.base + "/discover")
    driver.find_element(By.ID, "discover-url").send_keys(site.url("/"))
    driver.find_element(By.ID, "discover-start").click()
    wait(driver).until(ec.visibility_of_element_located((By.ID, "discover-results")))
    assert site.url("/sitemap.xml") in driver.find_element(By.ID, "tree").text
    driver.find_element(By.ID, "discover-url").clear()
    driver.find_element(By.ID, "discover-url").send_keys("127.0.0.1:9")
    driver.find_element(By.ID, "discover-start").click()
    error = wait(driver).until(ec.visibility_of_element_located((By.ID, "form-error")))
    assert error.text.startswith("cannot connect to 127.0.0.1:9"), error.text
    assert not driver.find_element(By.ID, "discover-results").is_displayed()

    # An audit from the page: its findings by severity, with names for people, and its reports.
    driver.get(web.base + "/audit")
    driver.find_element(By.ID, "audit-url").send_keys(site.url("/"))
    driver.find_element(By.ID, "audit-start").click()
    wait(driver, 60).until(lambda d: d.find_element(By.ID, "audit-status").text in ("Done", "Failed"))
    assert driver.find_element(By.ID, "audit-status").text == "Done", driver.find_element(By.ID, "audit").text
    findings = driver.find_element(By.ID, "findings").text
    assert "error Not found (4xx/5xx): 1" in findings
    assert "not_found" not in findings
    shoot(driver, tmp_path, "audit", 1280)
    audit_page = driver.current_url
    driver.find_element(By.CSS_SELECTOR, "#audit-files a[download='audit.html']")
    driver.get(audit_page.replace("/audits/", "/api/audits/") + "/files/audit.html")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Sitemap audit"
    wait(driver).until(lambda d: d.find_element(By.ID, "t-not_found").get_attribute("data-ready"))
    assert driver.find_element(By.CSS_SELECTOR, "#not_found .sev").text == "error"

    # The history lists the crawl.
    driver.get(web.base + "/")
    assert site.url("/") in driver.find_element(By.ID, "history").text
    shoot(driver, tmp_path, "home-phone", 390)


def test_twenty_thousand_broken_links_stay_fast(browser: WebDriver, web: WebServer, big_crawl: str,
                                                 tmp_path: Path) -> None:
    """The results page and report.html at 20,000 broken links: every row reachable, the page small, a filter
    and a sort answering at once."""
    driver = browser
    color_scheme(driver, "light")
    started = time.monotonic()
    driver.get(f"{web.base}/crawls/{big_crawl}")
    table = driver.find_element(By.ID, "table-broken")
    wait(driver).until(lambda _: table.get_attribute("data-loaded"))
    load = time.monotonic() - started
    nodes = int(driver.execute_script(NODES_JS))
    assert nodes <= 15_000, nodes
    assert driver.find_element(By.ID, "broken-count").text == f"({BIG:,})"
    ms, rows, nodes_after = driver.execute_script(FILTER_JS, "input[data-filter=broken]", "table-broken",
                                                  "item-19999", "data-loaded")
    assert rows == 1
    assert ms < 1000, ms
    assert nodes_after <= 15_000
    ms_sort, sort, _ = driver.execute_script(SORT_JS, "table-excluded", 0, "data-loaded")
    assert sort == "ascending"
    assert ms_sort < 1000, ms_sort
    # The last page is reachable: filter to a row at the end, and page forward to it.
    filt = driver.find_element(By.CSS_SELECTOR, "input[data-filter=broken]")
    filt.clear()
    filt.send_keys("item-1")
    wait(driver).until(lambda _: "Rows 1–100 of" in driver.find_element(By.CSS_SELECTOR, "#pager-broken .where").text)
    before = table.get_attribute("data-loaded")
    driver.find_element(By.XPATH, "//nav[@id='pager-broken']/button[text()='Next page']").click()
    wait(driver).until(lambda _: table.get_attribute("data-loaded") != before)
    assert "Rows 101–200 of" in driver.find_element(By.CSS_SELECTOR, "#pager-broken .where").text

    # report.html: every row embedded, a page of them in the document, filter and sort in the page.
    started = time.monotonic()
    driver.get(f"{web.base}/api/crawls/{big_crawl}/files/report.html")
    wait(driver).until(lambda d: d.find_element(By.ID, "t-broken").get_attribute("data-ready"))
    report_load = time.monotonic() - started
    report_nodes = int(driver.execute_script(NODES_JS))
    assert report_nodes <= 15_000, report_nodes
    assert driver.find_element(By.CSS_SELECTOR, "#t-broken-tools .count").text == f"{BIG:,} rows"
    r_ms, r_rows, _ = driver.execute_script(FILTER_JS, "#t-broken-filter", "t-broken", "item-19999", "data-ready")
    assert r_rows == 1
    assert r_ms < 1000, r_ms
    driver.find_element(By.ID, "t-broken-filter").clear()
    driver.execute_script("document.getElementById('t-broken-filter').dispatchEvent(new Event('input'))")
    r_sort, r_state, first = driver.execute_script(SORT_JS, "t-broken", 1, "data-ready")  # 404 before 410
    assert r_sort < 1000, r_sort
    assert r_state == "ascending"
    assert "item-00001" in first
    shoot(driver, tmp_path, "report-20000", 1280)
    print(f"\n20,000 rows: results page load {load:.2f} s, {nodes} nodes, filter {ms:.0f} ms, sort {ms_sort:.0f} ms; "
          f"report.html load {report_load:.2f} s, {report_nodes} nodes, filter {r_ms:.0f} ms, sort {r_sort:.0f} ms")


def test_without_javascript_every_form_works(web: WebServer, site: LocalServer, shared: Path, big_crawl: str,
                                             tmp_path: Path) -> None:
    driver = chrome(shared / "downloads", javascript=False)
    try:
        driver.get(web.base + "/")
        assert driver.execute_script is not None
        # A form error comes back as a page: the field marked, its value kept.
        driver.find_element(By.NAME, "url").send_keys(site.url("/"))
        driver.find_element(By.CSS_SELECTOR, "details.options summary").click()
        driver.find_element(By.NAME, "max_pages").send_keys("0")
        driver.find_element(By.ID, "start").click()
        wait(driver).until(lambda d: d.find_element(By.ID, "form-error").text == "Max pages: must be at least 1, not 0")
        assert driver.find_element(By.NAME, "max_pages").get_attribute("aria-invalid") == "true"
        assert driver.find_element(By.NAME, "url").get_attribute("value") == site.url("/")
        # The form starts a crawl and lands on its status page, which refreshes itself until the crawl is done.
        driver.find_element(By.NAME, "max_pages").clear()
        driver.find_element(By.ID, "start").click()
        wait(driver).until(ec.url_contains("/crawls/"))
        assert driver.find_elements(By.CSS_SELECTOR, "noscript")
        wait(driver, 40).until(lambda d: d.find_element(By.ID, "status").text == "Done")
        assert driver.find_element(By.ID, "count-broken").text == "1"
        assert site.url("/missing") in driver.find_element(By.ID, "table-broken").text
        assert driver.find_element(By.CSS_SELECTOR, "#downloads a[download='sitemap.xml']")
        # The big crawl without JavaScript: the first page of rows, and links to the next ones.
        driver.get(f"{web.base}/crawls/{big_crawl}")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#table-broken tbody tr")) == 100
        driver.find_element(By.CSS_SELECTOR, "#pager-broken a.next").click()
        wait(driver).until(lambda d: "Rows 101–200 of 20,000" in d.find_element(By.CSS_SELECTOR,
                                                                                   "#pager-broken .where").text)
        driver.get(f"{web.base}/api/crawls/{big_crawl}/files/report.html")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#t-broken tbody tr")) == 100
        wait(driver).until(lambda d: "Showing the first 100 of 20,000 rows" in d.find_element(By.ID,
                                                                                              "t-broken-more").text)
        # Check (an upload) and discover post their forms and get their answers as pages.
        sitemap = tmp_path / "sitemap.xml"
        sitemap.write_bytes(urlset_xml([site.url("/p1")]))
        driver.get(web.base + "/check")
        driver.find_element(By.ID, "check-file").send_keys(str(sitemap))
        driver.find_element(By.ID, "check-start").click()
        summary = wait(driver).until(ec.presence_of_element_located((By.ID, "check-summary")))
        assert summary.text.startswith("Valid: sitemap.xml")
        driver.get(web.base + "/discover")
        driver.find_element(By.ID, "discover-url").send_keys(site.url("/"))
        driver.find_element(By.ID, "discover-start").click()
        tree = wait(driver).until(ec.presence_of_element_located((By.ID, "tree")))
        assert site.url("/sitemap.xml") in tree.text
        driver.find_element(By.ID, "discover-url").clear()
        driver.find_element(By.ID, "discover-url").send_keys("127.0.0.1:9")
        driver.find_element(By.ID, "discover-start").click()
        wait(driver).until(lambda d: d.find_element(By.ID, "form-error").text.startswith(
            "cannot connect to 127.0.0.1:9"))
        shoot(driver, tmp_path, "nojs-discover", 1280)
    finally:
        driver.quit()


def test_axe_finds_nothing_serious_in_light_and_dark(browser: WebDriver, web: WebServer, site: LocalServer,
                                                     tmp_path: Path) -> None:
    """axe-core on every page (a small crawl: its tables are the big one's markup, and axe is quicker on them)."""
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed ({AXE}): .ci/run installs it (npm install axe-core@4)")
    source = AXE.read_text(encoding="utf-8")
    driver = browser
    driver.set_script_timeout(30)
    _, audits = web.json("POST", "/api/audits", {"url": site.url("/")})
    audit_id = audits["id"]
    _, crawl = web.json("POST", "/api/crawls", {"url": site.url("/")})
    crawl_id = crawl["id"]
    deadline = time.monotonic() + 30
    while web.json("GET", f"/api/audits/{audit_id}")[1]["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    web.wait_status(crawl_id, {"done"})

    def check_page() -> None:
        driver.get(web.base + "/check")
        driver.find_element(By.ID, "check-url").send_keys(site.url("/index.xml"))
        driver.find_element(By.ID, "check-start").click()
        wait(driver).until(ec.visibility_of_element_located((By.ID, "check-results")))

    def discover_page() -> None:
        driver.get(web.base + "/discover")
        driver.find_element(By.ID, "discover-url").send_keys(site.url("/"))
        driver.find_element(By.ID, "discover-start").click()
        wait(driver).until(ec.visibility_of_element_located((By.ID, "discover-results")))

    def results_page() -> None:
        driver.get(f"{web.base}/crawls/{crawl_id}")
        wait(driver).until(lambda d: d.find_element(By.ID, "table-broken").get_attribute("data-loaded"))

    def report_page(url: str, table: str) -> Callable[[], None]:
        def show() -> None:
            driver.get(url)
            wait(driver).until(lambda d: d.find_element(By.ID, table).get_attribute("data-ready"))
        return show

    pages: dict[str, Callable[[], None]] = {
        "home": lambda: driver.get(web.base + "/"),
        "results": results_page,
        "check": check_page,
        "discover": discover_page,
        "audit": lambda: driver.get(f"{web.base}/audits/{audit_id}"),
        "report.html": report_page(f"{web.base}/api/crawls/{crawl_id}/files/report.html", "t-broken"),
        "audit.html": report_page(f"{web.base}/api/audits/{audit_id}/files/audit.html", "t-not_found"),
    }
    # Each page once: every WCAG A/AA rule in light, then the colour rules again in dark (the emulated scheme
    # applies to the open page at once).
    found: dict[str, list[str]] = {}
    for name, show in pages.items():
        color_scheme(driver, "light")
        show()
        for scheme in ("light", "dark"):
            color_scheme(driver, scheme)
            dark = driver.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
            assert dark == (scheme == "dark")
            rules = {"type": "tag", "values": WCAG_TAGS} if scheme == "light" else {
                "type": "rule", "values": ["color-contrast", "link-in-text-block"]}
            problems = axe_problems(driver, source, rules)
            if problems:
                found[f"{name} ({scheme})"] = problems
        if name in ("results", "audit.html"):
            shoot(driver, tmp_path, f"{name}-dark", 1280)
    # Visible focus: the ring around a focused field is 3 px wide.
    color_scheme(driver, "light")
    driver.get(web.base + "/")
    driver.find_element(By.NAME, "url").click()
    outline = driver.execute_script("const s = getComputedStyle(document.activeElement);"
                                    "return [s.outlineStyle, s.outlineWidth, s.outlineColor]")
    assert outline[:2] == ["solid", "3px"], outline

    # The history's Delete asks first, then removes the row in place.
    row = driver.find_element(By.CSS_SELECTOR, f"#history tr[data-id='{crawl_id}']")
    row.find_element(By.CSS_SELECTOR, "button[data-action=delete]").click()
    wait(driver).until(ec.alert_is_present()).accept()
    wait(driver).until(ec.staleness_of(row))
    assert web.json("GET", f"/api/crawls/{crawl_id}")[0] == 404
    color_scheme(driver, "light")
    assert found == {}
