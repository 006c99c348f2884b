"""What a newcomer hits first (issue 26), each through the real command line: a clean line for a missing extra,
duplicates dropped by generate, a short ``validate -q``, reports kept out of the published folder, a word about
local URLs, generate skipping sitemapkit's own files, an unreachable host named as such, and a directory where a
file is expected."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.server import LocalServer

BASE = "https://shop.acme.net/"  # not a placeholder host: validate has nothing to say about it


# -- 1. optional commands without their extra -------------------------------------------------------------------


@pytest.mark.parametrize(("blocked", "args", "extra"), [
    (("dask", "distributed", "pyarrow"), ["harvest", "{hosts}", "-o", "{tmp}/h"], "harvest"),
    (("dask", "distributed", "pyarrow"), ["generate", "{data}", "-o", "{tmp}/o", "--base-url", BASE,
                                           "--workers", "2"], "harvest"),
    (("google", "google.auth"), ["submit", "https://example.org/sitemap.xml", "--google-credentials", "{cred}"],
     "google"),
    (("starlette", "uvicorn"), ["web", "--no-browser"], "web"),
])
def test_a_missing_extra_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                blocked: tuple[str, ...], args: list[str], extra: str) -> None:
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("https://example.org/\n", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("loc\nhttps://example.org/a\n", encoding="utf-8")
    cred = tmp_path / "cred.json"
    cred.write_text('{"type": "service_account"}', encoding="utf-8")
    for name in blocked:  # `import name` raises ImportError, as on an install without the extra
        monkeypatch.setitem(sys.modules, name, None)
    for loaded in [m for m in sys.modules if m.startswith("sitemapkit.web")]:
        monkeypatch.delitem(sys.modules, loaded)  # the web app's modules are imported again, and fail
    argv = [a.format(hosts=hosts, tmp=tmp_path, data=data, cred=cred) for a in args]
    done = run_cli(argv)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"needs the {extra} extra: pip install 'sitemapkit[{extra}]'" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "h").exists()
    assert not (tmp_path / "o").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


# -- 3. duplicates: dropped by generate, one code everywhere ----------------------------------------------------


def test_generate_drops_duplicates_and_every_command_names_them_sm306(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"{BASE}{p}\n" for p in ("a", "b", "a", "c", "b", "a")), encoding="utf-8")
    out = tmp_path / "out"
    done = run_cli(["generate", urls, "--out", out, "--base-url", BASE])
    assert done.returncode == 0, done.stderr
    assert "Wrote 3 URLs" in done.stdout
    assert "Skipped 3 duplicate URLs." in done.stdout
    listed = run_cli(["urls", out / "sitemap.xml"])
    assert listed.stdout.splitlines() == [f"{BASE}a", f"{BASE}b", f"{BASE}c"]  # the first of each wins, in order
    assert run_cli(["validate", out, "--fail-on", "warning", "-q"]).returncode == 0

    kept = tmp_path / "kept"
    done = run_cli(["generate", urls, "--out", kept, "--base-url", BASE, "--keep-duplicates"])
    assert done.returncode == 0, done.stderr
    assert "Wrote 6 URLs" in done.stdout
    assert "Skipped" not in done.stdout
    checked = run_cli(["validate", kept, "--format", "json"])
    assert json.loads(checked.stdout)["tally"] == {"SM306": 3}
    listed = run_cli(["urls", kept / "sitemap.xml"])
    assert len(listed.stdout.splitlines()) == 6
    assert listed.stderr.count("warning SM306:") == 3
    diffed = run_cli(["diff", out / "sitemap.xml", kept / "sitemap.xml"])
    assert "SM306" in diffed.stderr
    assert "SM123" not in diffed.stderr + listed.stderr + checked.stdout


def test_the_library_generate_drops_duplicates_too(tmp_path: Path) -> None:
    from sitemapkit import generate

    urls = tmp_path / "urls.txt"
    urls.write_text(f"{BASE}a\n{BASE}a\n", encoding="utf-8")
    result = generate([urls], tmp_path / "out", base_url=BASE)
    assert (result.manifest.urls, result.duplicates) == (1, 1)
    assert generate([urls], tmp_path / "out2", base_url=BASE, dedupe=False).manifest.urls == 2


def test_sm123_is_documented_as_the_old_name_of_sm306() -> None:
    from sitemapkit import all_codes
    from sitemapkit.core import CODE_ALIASES

    assert "SM123" not in all_codes()
    assert CODE_ALIASES["SM123"] == "SM306"


# -- 4. validate: -q is the summary, the text report groups repeats -------------------------------------------


def test_validate_quiet_is_the_summary_and_text_groups_repeated_problems(tmp_path: Path) -> None:
    n = 2_000
    doc = tmp_path / "local.xml"
    doc.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                   + "".join(f"<url><loc>http://127.0.0.1:8000/p{i}</loc></url>\n" for i in range(n))
                   + "</urlset>\n", encoding="utf-8")
    quiet = run_cli(["validate", doc, "-q"])
    assert quiet.returncode == 0
    assert quiet.stdout.splitlines() == [f"1 file, {n:,} entries, profile google: 0 errors, {n:,} warnings -> valid",
                                         f"SM307 x{n:,}"]
    assert quiet.stderr == ""

    text = run_cli(["validate", doc]).stdout.splitlines()
    assert sum(": warning SM307:" in line for line in text) == 5
    assert f"{doc}: … and {n - 5:,} more SM307: placeholder or local host in a URL (fine for tests and local " \
           "previews, wrong on a published site)" in text
    assert len(text) == 8

    data = json.loads(run_cli(["validate", doc, "--format", "json"]).stdout)
    assert len(data["problems"]) == n  # JSON keeps every problem
    junit = run_cli(["validate", doc, "--format", "junit"]).stdout
    assert junit.count("warning SM307:") == n


# -- 5./6. crawl: reports beside --out, a word about local URLs --------------------------------------------------


def _small_site(server: LocalServer) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
    server.route("/", body=b'<html><body><a href="/a">a</a> <a href="/gone">x</a></body></html>',
                 headers={"Content-Type": "text/html"})
    server.route("/a", body=b"<html><body>a</body></html>", headers={"Content-Type": "text/html"})


def test_crawl_publishes_only_sitemaps_and_names_its_report_folder(server: LocalServer, tmp_path: Path) -> None:
    _small_site(server)
    public = tmp_path / "public"
    done = run_cli(["crawl", server.url("/"), "--out", public, "--state", tmp_path / "s.db"])
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in public.iterdir()) == [".sitemapkit-manifest.json", "sitemap.xml"]  # no report
    reports = tmp_path / "public-report"
    assert sorted(p.name for p in reports.iterdir()) == ["crawl-report.json", "report.html"]
    assert f"Report: {reports / 'report.html'}" in done.stdout
    assert json.loads((reports / "crawl-report.json").read_text(encoding="utf-8"))["broken"][0]["status"] == 404
    # The local origin is named once, with the option that fixes it.
    notes = [line for line in done.stderr.splitlines() if "--base-url" in line]
    assert notes == ["note: the sitemaps list URLs on 127.0.0.1, a local or placeholder host (validate warns: "
                     "SM307); to publish them, crawl again with --base-url https://<the site's public host>/"]

    # Reports an earlier version published into --out are taken out of it.
    (public / "crawl-report.json").write_text('{"start_url": "x", "pages_crawled": 1, "broken": []}',
                                              encoding="utf-8")
    (public / "report.html").write_text("<html></html>", encoding="utf-8")
    elsewhere = tmp_path / "reports"
    done = run_cli(["crawl", server.url("/"), "--out", public, "--state", tmp_path / "s.db",
                    "--report-dir", elsewhere, "--base-url", BASE])
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in public.iterdir()) == [".sitemapkit-manifest.json", "sitemap.xml"]
    assert f"removed crawl-report.json, report.html from {public}" in done.stderr
    assert (elsewhere / "report.html").is_file()
    assert f"Report: {elsewhere / 'report.html'}" in done.stdout
    assert "local or placeholder host" not in done.stderr  # a public --base-url: nothing to say
    assert run_cli(["validate", public, "--fail-on", "warning", "-q"]).returncode == 0


# -- 7. generate on a folder skips sitemapkit's own files -------------------------------------------------------


def test_generate_on_a_crawl_output_folder_lists_pages_not_sitemapkit_files(server: LocalServer,
                                                                             tmp_path: Path) -> None:
    _small_site(server)
    public = tmp_path / "public"  # as an older crawl (or the web app's downloads) left it: reports inside
    done = run_cli(["crawl", server.url("/"), "--out", public, "--state", tmp_path / "s.db", "--format", "xml",
                    "--format", "html", "--report-dir", public])
    assert done.returncode == 0, done.stderr
    assert {"sitemap.html", "report.html", "crawl-report.json"} <= {p.name for p in public.iterdir()}
    (public / "index.html").write_text("<html><body>home</body></html>", encoding="utf-8")
    (public / "about.html").write_text("<html><body>about</body></html>", encoding="utf-8")
    done = run_cli(["generate", public, "--out", tmp_path / "again", "--base-url", BASE])
    assert done.returncode == 0, done.stderr
    listed = run_cli(["urls", tmp_path / "again" / "sitemap.xml"]).stdout.splitlines()
    assert listed == [BASE, f"{BASE}about.html"]
    # A page of the site that happens to be called report.html (no crawl-report.json beside it) is a page.
    (public / "crawl-report.json").unlink()
    done = run_cli(["generate", public, "--out", tmp_path / "again", "--base-url", BASE])
    listed = run_cli(["urls", tmp_path / "again" / "sitemap.xml"]).stdout.splitlines()
    assert listed == [BASE, f"{BASE}about.html", f"{BASE}report.html"]


def test_generate_knows_the_report_names_crawl_and_audit_write() -> None:
    from sitemapkit.audit._report import AUDIT_HTML, AUDIT_JSON
    from sitemapkit.crawl import REPORT_HTML, REPORT_JSON
    from sitemapkit.generator._job import OWN_REPORTS

    assert OWN_REPORTS == ((REPORT_HTML, REPORT_JSON), (AUDIT_HTML, AUDIT_JSON))


# -- 8. an unreachable host is named as such ----------------------------------------------------------------------


def test_discover_audit_and_harvest_lead_with_the_connection_failure(tmp_path: Path) -> None:
    site = f"http://127.0.0.1:{_closed_port()}/"
    found = run_cli(["discover", site, "--retries", "0"])
    assert found.returncode == 1
    assert found.stdout.splitlines()[1].startswith(f"  error SM532: {site} cannot be reached: cannot connect")
    assert "SM530" not in found.stdout
    assert "robots.txt" not in found.stdout  # nothing else was tried
    data = json.loads(run_cli(["discover", site, "--retries", "0", "--format", "json"]).stdout)
    assert data["discovery"]["unreachable"].startswith("cannot connect")

    audited = run_cli(["audit", site, "--retries", "0", "-q"])
    assert audited.returncode == 1
    assert audited.stdout == ""  # no table of zeros, no "1 pages crawled"
    assert audited.stderr.splitlines() == [
        f"sitemapkit: error: {site}: the site cannot be reached: {data['discovery']['unreachable']}"]

    hosts = tmp_path / "hosts.txt"
    hosts.write_text(site + "\n", encoding="utf-8")
    harvested = run_cli(["harvest", hosts, "-o", tmp_path / "h", "--no-processes", "--workers", "1", "--retries",
                         "0", "--allow-private-addresses"])
    assert harvested.returncode == 1
    assert f"failed 127.0.0.1:{site.rsplit(':', 1)[1].strip('/')}: SM532 {site} cannot be reached: cannot connect" \
        in harvested.stderr


# -- 10. a directory where a file is expected: exit 2 in every command --------------------------------------------


@pytest.mark.parametrize("args", [
    ["urls", "{d}"],
    ["validate", "{d}"],
    ["diff", "{d}", "{d}"],
    ["robots", "{d}", "--add", "https://shop.acme.net/sitemap.xml"],
    ["submit", "{d}", "--key", "abcdefgh12", "--dry-run"],
    ["submit", "https://shop.acme.net/sitemap.xml", "--key", "abcdefgh12", "--dry-run", "--state", "{d}"],
    ["submit", "https://shop.acme.net/sitemap.xml", "--google-credentials", "{d}"],
    ["harvest", "{d}", "-o", "{tmp}/h"],
    ["audit", "https://shop.acme.net/", "--sitemap", "{d}"],
    ["generate", "{d}/../urls.txt", "-o", "{tmp}/o", "--base-url", BASE, "--state", "{d}"],
    ["crawl", "http://127.0.0.1:9/", "-o", "{tmp}/o", "--state", "{d}"],
], ids=lambda a: " ".join(a[:1] + [x for x in a[1:] if x.startswith("--")][:1]))
def test_a_directory_where_a_file_is_read_exits_2(tmp_path: Path, args: list[str]) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "notes.md").write_text("not a sitemap\n", encoding="utf-8")
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n", encoding="utf-8")
    done = run_cli([a.format(d=folder, tmp=tmp_path) for a in args])
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "folder" in done.stderr  # the message names the path
    assert not (tmp_path / "o").exists()


def test_a_text_sitemap_named_xml_is_read_with_a_warning_in_urls_and_validate(tmp_path: Path) -> None:
    doc = tmp_path / "sitemap.xml"
    doc.write_text(f"{BASE}a\n{BASE}b\n", encoding="utf-8")
    listed = run_cli(["urls", doc])
    assert listed.stdout.splitlines() == [f"{BASE}a", f"{BASE}b"]
    warning = f"{doc}:1:1: warning SM137: {doc} is named .xml but holds a text sitemap (one URL a line): read as text"
    assert listed.stderr.splitlines() == [warning]
    checked = run_cli(["validate", doc])
    assert checked.returncode == 0
    assert checked.stdout.splitlines()[0] == warning
    named_right = tmp_path / "sitemap.txt"
    named_right.write_text(f"{BASE}a\n", encoding="utf-8")
    assert run_cli(["urls", named_right]).stderr == ""


def test_sm324_does_not_call_an_old_date_the_generation_time(tmp_path: Path) -> None:
    doc = tmp_path / "sitemap.xml"
    doc.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                   + "".join(f"<url><loc>{BASE}p{i}</loc><lastmod>2024-04-01</lastmod></url>" for i in range(20))
                   + "</urlset>", encoding="utf-8")
    out = run_cli(["validate", doc, "--now", "2024-05-01T00:00:00Z"]).stdout
    [line] = [line for line in out.splitlines() if "SM324" in line and "lastmod 2024-04-01" in line]
    assert "that is the generation time" not in line
    assert "rarely when each page last changed" in line


def test_the_default_report_folder_is_beside_the_published_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                ) -> None:
    from sitemapkit.crawl import default_report_dir

    assert default_report_dir("public/") == Path("public-report")
    assert default_report_dir("/srv/www/public") == Path("/srv/www/public-report")
    monkeypatch.chdir(tmp_path)
    assert default_report_dir(".") == tmp_path.with_name(tmp_path.name + "-report")
