"""Helpers of the browser tests (tests/web/test_browser.py): a headless Chromium, waits, screenshots, a phone's
viewport, the colour scheme, timings measured in the page and axe-core's verdict."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
AXE = Path(os.environ.get("SITEMAPKIT_AXE") or Path(__file__).resolve().parents[2] / ".ci" / "axe" / "node_modules"
           / "axe-core" / "axe.min.js")


def chrome(downloads: Path, *, javascript: bool = True) -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    prefs: dict[str, object] = {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    if not javascript:
        prefs["profile.managed_default_content_settings.javascript"] = 2
    options.add_experimental_option("prefs", prefs)
    service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30)
    return driver


def wait(driver: WebDriver, timeout: float = 20) -> WebDriverWait[WebDriver]:
    """A wait that reads the page again while it is being replaced (a form's answer, a refresh)."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))


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
    if os.environ.get("SITEMAPKIT_UPDATE_SCREENSHOTS") == "1" and (DOCS_SCREENSHOTS / path.name).exists():
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)
    return path


def fits_a_phone(driver: WebDriver, width: int = 390) -> bool:
    """Nothing wider than a phone's screen: the page does not scroll sideways (long tables scroll in their box)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    try:
        return bool(driver.execute_script(f"return document.documentElement.scrollWidth <= {width}"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def color_scheme(driver: WebDriver, scheme: str) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


#: Time a filter takes to show its rows, measured in the page (performance.now()): typed into the box, until the
#: table holds the answer. Asserted generously (the issue asks for "a few hundred ms"; the machine may be busy).
FILTER_JS = """
const [inputSelector, tableId, query, marker] = arguments;
const input = document.querySelector(inputSelector), table = document.getElementById(tableId);
const before = table.getAttribute(marker);
const t0 = performance.now();
input.value = query;
input.dispatchEvent(new Event("input"));
return new Promise((resolve) => {
  const check = () => {
    const rows = table.tBodies[0].rows;
    const answered = marker === "data-ready" ? rows.length && rows[0].textContent.includes(query)
      : table.getAttribute(marker) !== before;
    if (answered) {
      resolve([performance.now() - t0, rows.length, document.getElementsByTagName("*").length]);
    } else requestAnimationFrame(check);
  };
  check();
});
"""
SORT_JS = """
const [tableId, col, marker] = arguments;
const table = document.getElementById(tableId);
const before = table.getAttribute(marker);
const t0 = performance.now();
table.tHead.rows[0].cells[col].querySelector("button").click();
return new Promise((resolve) => {
  const check = () => {  // report.html sorts in the click itself; the results page when the server answers
    if (marker === "data-ready" || table.getAttribute(marker) !== before) {
      resolve([performance.now() - t0, table.tHead.rows[0].cells[col].getAttribute("aria-sort"),
               table.tBodies[0].rows[0].textContent]);
    } else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
});
"""
NODES_JS = "return document.getElementsByTagName('*').length"


WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_problems(driver: WebDriver, source: str, run_only: dict[str, object]) -> list[str]:
    """axe-core's serious and critical violations on the open page (``run_only``: which rules)."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(source)
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: arguments[0]}).then(
          (r) => done(r.violations.map((v) => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(" "),
                                               v.nodes[0].failureSummary])),
          (e) => done([["axe-error", "critical", 0, "", String(e)]]));""", run_only)
    return [f"{rule} ({impact}, {n}x, e.g. {target}: {summary})" for rule, impact, n, target, summary in result
            if impact in ("serious", "critical")]
