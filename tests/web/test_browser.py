"""The web app in a real browser: headless Chromium (Debian's ``chromium`` + ``chromium-driver``, installed by
``.ci/run``) driven by Selenium, against the real server process and a real local site.

Screenshots of the main screens are kept under the test's tmp dir (``screens/``), and copied to
``docs/screenshots/`` (the ones the README shows).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import LocalServer
from tests.support.sites import urlset_xml
from tests.web.conftest import PAGES, WebServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="headless Chromium is not installed (apt-get install chromium chromium-driver)"),
]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: WebDriver, timeout: float = 20) -> WebDriverWait[WebDriver]:
    return WebDriverWait(driver, timeout, poll_frequency=0.05)


def shoot(driver: WebDriver, tmp_path: Path, name: str, width: int = 1280) -> Path:
    """A full-page screenshot at ``width`` px (a phone's viewport below 600) into the test's tmp dir (kept as the
    test's artifact); with SITEMAPKIT_UPDATE_SCREENSHOTS=1, also copied to docs/screenshots/ (the README's)."""
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "height": min(height, 3000)})
    time.sleep(0.1)
    path = tmp_path / "screens" / f"{name}.png"
    path.parent.mkdir(exist_ok=True)
    driver.save_screenshot(str(path))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    if os.environ.get("SITEMAPKIT_UPDATE_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)
    return path


def test_crawl_watch_download_referrers_and_check_in_a_browser(browser: WebDriver, web: WebServer,
                                                               site: LocalServer, tmp_path: Path) -> None:
    driver = browser
    driver.get(web.base + "/")
    url_input = driver.find_element(By.NAME, "url")
    assert url_input.accessible_name == "Site address"
    assert not driver.find_element(By.NAME, "max_pages").is_displayed()  # options folded away
    url_input.send_keys(site.url("/"))
    driver.find_element(By.CSS_SELECTOR, "details.options summary").click()
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
        if status == "running" and crawled not in ("", "0") and not shot:
            shoot(driver, tmp_path, "live", 1280)
            shot = True
        if status == "done":
            break
        time.sleep(0.05)
    assert marker
    assert driver.execute_script("return window.__same_page === true")
    assert len(seen) >= 3, seen  # at least two counts on the way to the final one
    assert shot, "the crawl was never seen running"

    # The results: counts, downloads, tables.
    wait(driver).until(ec.visibility_of_element_located((By.ID, "results")))
    assert driver.find_element(By.ID, "count-in_sitemap").text == str(PAGES + 1)
    assert driver.find_element(By.ID, "count-broken").text == "1"
    shoot(driver, tmp_path, "results", 1280)
    shoot(driver, tmp_path, "results-phone", 390)

    # Download sitemap.xml through the page's link and check what the browser saved.
    driver.find_element(By.CSS_SELECTOR, "#downloads a[download='sitemap.xml']").click()
    saved = tmp_path / "downloads" / "sitemap.xml"
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

    # Filter the exclusions.
    filt = driver.find_element(By.CSS_SELECTOR, "input[data-filter=excluded]")
    filt.send_keys("secret")
    rows = [r for r in driver.find_elements(By.CSS_SELECTOR, "#table-excluded tbody tr") if r.is_displayed()]
    assert len(rows) == 1
    assert "noindex" in rows[0].text

    # Check an uploaded sitemap file.
    bad = tmp_path / "upload.xml"
    bad.write_bytes(urlset_xml([site.url("/a")]).replace(b"</loc>", b"</loc><lastmod>yesterday</lastmod>"))
    driver.get(web.base + "/check")
    driver.find_element(By.ID, "check-file").send_keys(str(bad))
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

    # The history lists the crawl.
    driver.get(web.base + "/")
    assert site.url("/") in driver.find_element(By.ID, "history").text
    shoot(driver, tmp_path, "home-phone", 390)
