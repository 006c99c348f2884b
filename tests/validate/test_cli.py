"""`sitemapkit validate` end to end: the real CLI (in process, tests/support/cli.py) on real files (text, JSON,
JUnit; exit codes; --fail-on; --base-url scope; directories, gzip, index with children next to it; usage errors)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner
from lxml import etree

from sitemapkit.cli import cli
from tests.support.cli import CliResult, run_cli

FIXTURES = Path(__file__).parent / "fixtures" / "codes"
NOW = "2026-01-01T00:00:00Z"
SITE = "https://www.fixture-shop.de"


def run(*args: str | Path) -> CliResult:
    return run_cli(["validate", *map(str, args), "--now", NOW])


def run_inproc(*args: str | Path) -> tuple[int, str]:
    """The same command in-process (click's runner), for variants of what the run() tests cover."""
    result = CliRunner().invoke(cli, ["validate", *map(str, args), "--now", NOW])
    return result.exit_code, result.output


def test_text_output_is_compiler_style_with_summary() -> None:
    res = run(FIXTURES / "SM201" / "bad.xml")
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"{FIXTURES / 'SM201' / 'bad.xml'}:4:")
    assert ": error SM201: unescaped '&'" in lines[0]
    assert "1 file," in res.stdout
    assert "NOT valid" in res.stdout
    assert "SM201 x1" in lines[-1]


def test_problem_line_carries_the_loc() -> None:
    code, out = run_inproc(FIXTURES / "SM307" / "bad.xml")
    assert code == 0  # a placeholder host is a warning (issue 12 item 1)
    assert "bad.xml:4:17: warning SM307: loc host 'localhost'" in out  # column of the URL in <loc>
    assert "[http://localhost:3000/a]" in out


def test_json_output() -> None:
    res = run(FIXTURES / "SM306" / "bad.xml", "--format", "json")
    assert res.returncode == 0  # a duplicate is a warning
    data = json.loads(res.stdout)
    assert data["valid"] is True
    assert data["files"][0]["kind"] == "urlset"
    assert data["files"][0]["entries"] == 2
    (problem,) = data["problems"]
    assert problem == {"code": "SM306", "severity": "warning", "message": problem["message"],
                       "source": str(FIXTURES / "SM306" / "bad.xml"), "line": 7, "column": 10,
                       "loc": f"{SITE}/a"}


def test_fail_on_warning() -> None:
    assert run(FIXTURES / "SM306" / "bad.xml", "--fail-on", "warning").returncode == 1
    assert run_inproc(FIXTURES / "SM306" / "bad.xml")[0] == 0
    assert run_inproc(FIXTURES / "SM306" / "good.xml", "--fail-on", "warning")[0] == 0


def test_junit_output(tmp_path: Path) -> None:
    res = run(FIXTURES / "SM301" / "bad.xml", FIXTURES / "SM306" / "bad.xml", FIXTURES / "SM306" / "good.xml",
              "--format", "junit")
    assert res.returncode == 1
    root = etree.fromstring(res.stdout.encode("utf-8"))
    assert root.tag == "testsuites"
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 3
    failures = [c for c in cases if c.find("failure") is not None]
    assert len(failures) == 1
    assert "SM301" in (failures[0].findtext("failure") or "")
    assert "SM306" in (cases[1].findtext("system-out") or "")


def test_profiles() -> None:
    bad = FIXTURES / "SM412" / "bad.xml"
    assert run_inproc(bad)[0] == 1
    code, out = run_inproc(bad, "--profile", "sitemaps")
    assert code == 0, out  # duration 0 is XSD-valid; only Google asks for >= 1
    assert "SM412" not in out


def test_base_url_scope_and_cross_host() -> None:
    bad = FIXTURES / "SM308" / "bad.xml"
    res = run(bad, "--base-url", f"{SITE}/blog/sitemap.xml")
    assert res.returncode == 1
    assert "SM308" in res.stdout
    assert "/shop/b is not under https://www.fixture-shop.de/blog/" in res.stdout
    assert run_inproc(bad, "--base-url", f"{SITE}/blog/sitemap.xml", "--allow-cross-host")[0] == 0
    assert run_inproc(bad)[0] == 0  # without a base URL only the one-host rule applies


def test_directory_gzip_and_index_children(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    urlset = (FIXTURES / "SM306" / "good.xml").read_bytes()
    (site / "s1.xml.gz").write_bytes(gzip.compress(urlset))
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{SITE}/s1.xml.gz</loc></sitemap></sitemapindex>\n", encoding="utf-8")
    res = run(site, "--format", "json", "--base-url", f"{SITE}/")
    assert res.returncode == 0, res.stdout
    files = json.loads(res.stdout)["files"]
    assert [(Path(f["source"]).name, f["kind"], f["sitemap_url"]) for f in files] == [
        ("sitemap.xml", "index", f"{SITE}/sitemap.xml"), ("s1.xml.gz", "urlset", f"{SITE}/s1.xml.gz")]
    # The index alone finds its child next to it and validates it too.
    code, out = run_inproc(site / "sitemap.xml", "--format", "json")
    assert code == 0
    assert [f["kind"] for f in json.loads(out)["files"]] == ["index", "urlset"]


def test_hreflang_reciprocity_across_files() -> None:
    res = run(FIXTURES / "SM433" / "bad")
    assert res.returncode == 1
    assert "SM433" in res.stdout
    assert "en.xml:6:" in res.stdout
    assert "error SM433" in res.stdout
    assert run_inproc(FIXTURES / "SM433" / "good")[0] == 0


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    res = run(tmp_path / "missing.xml")
    assert res.returncode == 2
    assert "no such file" in res.stderr
    assert "Traceback" not in res.stderr
    assert run_inproc(FIXTURES / "SM306" / "good.xml", "--profile", "bing")[0] == 2
    (tmp_path / "empty-dir").mkdir()
    code, out = run_inproc(tmp_path / "empty-dir")
    assert code == 2
    assert "no sitemap files" in out
    code, out = run_inproc(FIXTURES / "SM306" / "good.xml", "--base-url", "not-a-url")
    assert code == 2
    assert "--base-url" in out
    result = CliRunner().invoke(cli, ["validate", str(FIXTURES / "SM306" / "good.xml"), "--now", "someday"])
    assert result.exit_code == 2
    assert "--now" in result.output


def test_help_has_an_example() -> None:
    res = run_cli(["validate", "--help"])
    assert res.returncode == 0
    assert "Example:" in res.stdout
    for option in ("--profile", "--format", "--now", "--allow-cross-host", "--base-url", "--fail-on"):
        assert option in res.stdout


def test_urls_are_fetched_walked_and_validated(server: object) -> None:
    from tests.support.server import LocalServer

    assert isinstance(server, LocalServer)
    base = server.url("/")
    server.route("/sitemap.xml", body=(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<sitemap><loc>{base}s1.xml</loc></sitemap>\n<sitemap><loc>{base}gone.xml</loc></sitemap>\n"
        "</sitemapindex>\n").encode(), headers={"Content-Type": "application/xml"})
    server.route("/s1.xml", body=(FIXTURES / "SM306" / "bad.xml").read_bytes(),
                 headers={"Content-Type": "application/xml"})
    res = run(server.url("/sitemap.xml"), "--format", "json", "--allow-cross-host")
    assert res.returncode == 1, res.stderr
    data = json.loads(res.stdout)
    kinds = {f["source"]: f["kind"] for f in data["files"]}
    assert kinds[server.url("/sitemap.xml")] == "index"
    assert kinds[server.url("/s1.xml")] == "urlset"
    found = {(p["code"], p["source"], p["line"]) for p in data["problems"]}
    assert ("SM306", server.url("/s1.xml"), 7) in found  # the duplicate, located in the fetched child
    assert any(code == "SM502" and source == server.url("/gone.xml") for code, source, _ in found)  # 404
    # The index's own locs point at 127.0.0.1: a local host, reported as such.
    assert ("SM307", server.url("/sitemap.xml"), 3) in found
