"""`sitemapkit audit` end to end: the real CLI (in process) against a site on 127.0.0.1 that holds one URL of
every finding category (tests/audit/site.py has the known answer, written from the site, not from the audit)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.audit.site import EXPECTED, AuditSite, build
from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer

pytestmark = pytest.mark.e2e

FAST = ["--retries", "0", "--stall-timeout", "5"]


def run_audit(*args: str) -> CliResult:
    return run_cli(["audit", *args, *FAST])


@pytest.fixture(scope="module")
def site() -> Iterator[AuditSite]:
    with LocalServer() as srv:
        yield build(srv)


@pytest.fixture(scope="module")
def audited(site: AuditSite, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[AuditSite, Path, dict[str, Any], CliResult]:
    out = tmp_path_factory.mktemp("audit")
    done = run_audit(site.base + "/", "--report-dir", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    return site, out, json.loads(done.stdout), done


def _full(site: AuditSite, loc: str) -> str:
    return loc if "://" in loc else site.base + loc


def test_every_category_has_its_known_count(audited: tuple[AuditSite, Path, dict[str, Any], Any]) -> None:
    site, _, report, _ = audited
    assert report["summary"] == {cat: len(rows) for cat, rows in EXPECTED.items()}, json.dumps(
        report["findings"], indent=1)
    assert report["site"] == site.base + "/"
    assert report["sitemap_urls"] == 19 + 5 + 2  # /ok twice counts once
    assert {s["url"] for s in report["sitemaps"]} >= {site.base + p for p in site.sitemaps}
    assert report["crawled"] > 20


@pytest.mark.parametrize("category", sorted(EXPECTED))
def test_each_finding_has_url_sitemap_line_and_evidence(
        audited: tuple[AuditSite, Path, dict[str, Any], Any], category: str) -> None:
    site, _, report, _ = audited
    found = {f["url"]: f for f in report["findings"] if f["category"] == category}
    for loc, sitemap, evidence in EXPECTED[category]:
        url = _full(site, loc)
        assert url in found, (category, url, found)
        f = found[url]
        assert evidence in f["evidence"], f
        if sitemap is None:
            assert f["sitemap"] is None
            assert f["line"] is None
        else:
            assert f["sitemap"] == site.base + sitemap
            assert f["line"] == site.line_of(sitemap, loc), f


def test_robots_blocked_url_is_never_requested(audited: tuple[AuditSite, Path, dict[str, Any], Any]) -> None:
    site, _, _, _ = audited
    assert site.srv.hits("/private/secret") == 0
    assert site.srv.hits("/gone-it") >= 1  # the broken hreflang target was checked live


def test_files_written_and_consistent(audited: tuple[AuditSite, Path, dict[str, Any], Any]) -> None:
    _, out, report, done = audited
    on_disk = json.loads((out / "audit.json").read_text())
    assert on_disk == report
    with (out / "audit.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(report["findings"])
    assert {r["category"] for r in rows} == set(EXPECTED)
    page = (out / "audit.html").read_text()
    assert "Sitemap audit" in page
    assert 'id="hreflang_target_broken"' in page
    assert '<label for="t-hreflang_target_broken-filter">Filter hreflang target broken</label>' in page
    assert "sitemapkit: reading sitemaps" in done.stderr  # progress on stderr, JSON alone on stdout


def test_fail_on_exits_1_and_text_summary(site: AuditSite) -> None:
    done = run_audit(site.base + "/", "--no-crawl", "--fail-on", "not_found,orphan", "-q")
    assert done.returncode == 1, done.stderr
    assert "not_found" in done.stderr
    assert "orphan" not in done.stderr.split("categories:")[-1]
    assert "/missing (" in done.stdout
    assert "HTTP 404" in done.stdout
    clean = run_audit(site.base + "/", "--no-crawl", "--fail-on", "orphan", "-q")
    assert clean.returncode == 0, clean.stderr


def test_usage_errors_exit_2(site: AuditSite) -> None:
    bad = run_audit(site.base + "/", "--fail-on", "bogus")
    assert bad.returncode == 2
    assert "unknown finding category bogus" in bad.stderr
    assert "Traceback" not in bad.stderr
    not_url = run_audit("htp:/example")
    assert not_url.returncode == 2
    assert "Traceback" not in not_url.stderr


def test_given_sitemap_and_sample(site: AuditSite) -> None:
    done = run_audit(site.base + "/", "--sitemap", site.base + "/sitemap-pages.xml", "--no-crawl",
                     "--sample", "5", "--seed", "3", "--format", "json", "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [s["url"] for s in report["sitemaps"]] == [site.base + "/sitemap-pages.xml"]
    assert report["sample"] == 5
    assert report["checked"] == 5
    live = [f for f in report["findings"] if f["category"] in report["rates"]]
    assert len({f["url"] for f in live}) <= 5
    for rate in report["rates"].values():
        assert 0.0 <= rate["low"] <= rate["rate"] <= rate["high"] <= 1.0


def test_site_without_sitemaps_fails_with_a_message(tmp_path: Path) -> None:
    with LocalServer() as srv:
        srv.route("/", "<html><head><title>Home</title></head><body><p>hello</p></body></html>",
                  content_type="text/html")
        done = run_audit(srv.base + "/", "--out", str(tmp_path), "-q")
    assert done.returncode == 1
    assert "no sitemap URL found" in done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads((tmp_path / "audit.json").read_text())["sitemap_urls"] == 0


def test_state_file_that_is_not_sqlite_is_a_usage_error(site: AuditSite, tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("my notes, not a database\n" * 20)
    done = run_audit(site.base + "/", "--state", str(bad), "--no-crawl", "-q")
    assert done.returncode == 2
    assert "not an audit state file" in done.stderr
    assert bad.read_text().startswith("my notes")  # never overwritten
