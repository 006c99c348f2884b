"""The HTML sitemap and the XSL view in a real browser (headless Chromium through Selenium, as tests/web does):
the search box filters 50,000 links quickly, the page works without JavaScript, and the XSL view shows every field
within a 390 px wide screen."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit import Image, UrlEntry
from sitemapkit.write import write_sitemaps

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="headless Chromium is not installed (apt-get install chromium chromium-driver)"),
]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402


def _driver(tmp_path: Path, *, javascript: bool = True, width: int = 1280) -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},900", "--force-device-scale-factor=1", f"--user-data-dir={tmp_path / 'chr'}"):
        options.add_argument(arg)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    driver = _driver(tmp_path_factory.mktemp("browser"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    sections = ["blog", "shop", "docs", "news", "help"]
    write_sitemaps((UrlEntry(f"https://example.com/{sections[i % 5]}/item-{i}") for i in range(50_000)), out,
                   "https://example.com/", formats=("html",))
    return out / "sitemap.html"


def test_search_filters_fifty_thousand_links(browser: WebDriver, big_page: Path) -> None:
    browser.set_script_timeout(60)
    browser.get(big_page.as_uri())
    box = browser.find_element(By.ID, "find-q")
    assert box.is_displayed()
    assert browser.find_element(By.CSS_SELECTOR, "label[for=find-q]").text == "Search this site map"
    # Typed as a person types; then the time from the last input event to the filtered page laid out.
    box.send_keys("item-499")
    took = browser.execute_async_script("""
        const done = arguments[arguments.length - 1], box = document.getElementById("find-q");
        const count = document.getElementById("find-n"), start = performance.now();
        box.value += "9";
        box.dispatchEvent(new Event("input"));
        const poll = () => count.textContent.startsWith("11 ")
            ? (document.body.offsetHeight, done(performance.now() - start)) : setTimeout(poll, 5);
        poll();""")
    shown = browser.execute_script("return [...document.querySelectorAll('main li')].filter(li => !li.hidden)"
                                   ".map(li => li.textContent)")
    expected = ["/help/item-4999", *(f"/{['blog', 'shop', 'docs', 'news', 'help'][d % 5]}/item-4999{d}"
                                     for d in range(10))]
    assert set(shown) == set(expected)
    assert len(shown) == 11
    assert browser.find_element(By.ID, "find-n").text == "11 of 50000 shown"
    assert took < 1500  # ms, the 120 ms pause after typing included (measured 300-500 ms on a loaded machine)
    # Clearing the box shows everything again.
    box.clear()
    browser.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)
    browser.execute_script("return new Promise(r => setTimeout(r, 400))")
    assert browser.execute_script("return document.querySelectorAll('main li:not([hidden])').length") == 50_000


def test_without_javascript_every_link_shows(tmp_path: Path) -> None:
    write_sitemaps((UrlEntry(f"https://example.com/s{i % 3}/p{i}") for i in range(300)), tmp_path / "out",
                   "https://example.com/", formats=("html",))
    driver = _driver(tmp_path, javascript=False)
    try:
        driver.get((tmp_path / "out" / "sitemap.html").as_uri())
        assert not driver.find_element(By.ID, "find").is_displayed()  # no box that would do nothing
        assert len([a for a in driver.find_elements(By.CSS_SELECTOR, "main li a") if a.is_displayed()]) == 300
    finally:
        driver.quit()


def test_xsl_view_fits_a_phone(browser: WebDriver, tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_sitemaps([UrlEntry("https://example.com/a-very-long-path/with/many/segments/and-a-slug-that-goes-on",
                             lastmod="2024-05-01T10:00:00Z", changefreq="weekly", priority=0.7,
                             images=[Image("https://example.com/a.jpg")])], out, "https://example.com/",
                   xsl="default")
    import http.server
    import threading

    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(out))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    driver = browser
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        driver.get(f"http://127.0.0.1:{httpd.server_address[1]}/sitemap.xml")
        text = driver.find_element(By.TAG_NAME, "body").text
        for value in ("2024-05-01T10:00:00Z", "weekly", "0.7"):
            assert value in text
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        httpd.shutdown()
        httpd.server_close()
