"""Changed-only submission through the CLI: --state remembers what was sent; the next run sends only the added,
changed and removed URLs. Also `generate --submit-state --key` after a publish."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from tests.submit.submit_engines import IndexNowEngine
from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer

KEY = "fedcba9876543210fedcba9876543210"


@pytest.fixture
def sites() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer() as a, LocalServer() as b:
        for srv in (a, b):
            srv.route(f"/{KEY}.txt", KEY, content_type="text/plain")
        yield a, b


@pytest.fixture
def engine() -> Iterator[IndexNowEngine]:
    with LocalServer() as srv:
        yield IndexNowEngine(srv)


def _urlset(path: Path, entries: dict[str, str]) -> None:
    rows = "".join(f"<url><loc>{loc}</loc><lastmod>{mod}</lastmod></url>\n" for loc, mod in entries.items())
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                    f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{rows}</urlset>\n',
                    encoding="utf-8")


def _run(*args: str) -> CliResult:
    return run_cli(["submit", *args])


@pytest.mark.e2e
@pytest.mark.slow
def test_first_run_sends_everything_then_only_the_six_changes(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                                              engine: IndexNowEngine) -> None:
    a, b = sites
    entries = {(a if i % 2 else b).url(f"/page/{i}"): "2024-01-01" for i in range(25_001)}
    sitemap, state = tmp_path / "sitemap.xml", tmp_path / "submit.sqlite"
    _urlset(sitemap, entries)
    argv = [str(sitemap), "--key", KEY, "--endpoint", engine.url, "--state", str(state), "--format", "json", "-q"]

    first = _run(*argv)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["changes"] == {"added": 25_001, "changed": 0, "removed": 0, "unchanged": 0}
    sizes = sorted((r["subject"], r["count"]) for r in report["results"])
    assert sizes == sorted([(f"127.0.0.1:{a.port}", 10_000), (f"127.0.0.1:{a.port}", 2_500),
                            (f"127.0.0.1:{b.port}", 10_000), (f"127.0.0.1:{b.port}", 2_501)])
    assert all(len(batch["urlList"]) <= 10_000 for batch in engine.batches)  # type: ignore[arg-type]
    assert sorted(engine.received()) == sorted(entries)

    # Change 3 entries, remove 2, add 1.
    locs = list(entries)
    changed, removed = locs[10:13], locs[20_000:20_002]
    for loc in changed:
        entries[loc] = "2024-06-01"
    for loc in removed:
        del entries[loc]
    added = a.url("/page/new")
    entries[added] = "2024-06-01"
    _urlset(sitemap, entries)
    engine.batches.clear()

    second = _run(*argv)
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout)
    assert report["changes"] == {"added": 1, "changed": 3, "removed": 2, "unchanged": 24_996}
    assert sorted(engine.received()) == sorted([*changed, *removed, added])
    assert len(engine.batches) == 2  # one per host

    third = _run(*argv)  # nothing changed since: nothing is sent
    assert third.returncode == 0
    assert json.loads(third.stdout)["results"] == []
    assert len(engine.batches) == 2


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def test_failed_batches_are_sent_again_next_time(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                                 engine: IndexNowEngine) -> None:
    a, _ = sites
    sitemap, state = tmp_path / "s.xml", tmp_path / "state.sqlite"
    _urlset(sitemap, {a.url("/x"): "2024-01-01", a.url("/y"): "2024-01-01"})
    argv = ["submit", str(sitemap), "--key", KEY, "--endpoint", engine.url, "--state", str(state), "-q",
            "--retries", "0"]
    from tests.support.server import Response

    engine.queued.append(Response(500))
    code, _, _ = _cli(*argv)
    assert code == 1
    code, out, _ = _cli(*argv)
    assert code == 0, out
    assert sorted(engine.received()) == [a.url("/x"), a.url("/y")]
    with sqlite3.connect(state) as db:
        answers = [row[0] for row in db.execute("SELECT status FROM answers ORDER BY id")]
    assert answers == [500, 202]


def test_unreadable_sources_do_not_count_as_removals(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                                     engine: IndexNowEngine) -> None:
    a, _ = sites
    sitemap, state = tmp_path / "s.xml", tmp_path / "state.sqlite"
    _urlset(sitemap, {a.url("/x"): "2024-01-01", a.url("/y"): "2024-01-01"})
    argv = ["submit", str(sitemap), "--key", KEY, "--endpoint", engine.url, "--state", str(state), "-q"]
    assert _cli(*argv)[0] == 0
    engine.batches.clear()
    text = sitemap.read_text(encoding="utf-8")
    sitemap.write_text(text[: text.index("<url>", text.index("/x"))] + "<url><loc>", encoding="utf-8")  # truncated
    code, _, err = _cli(*argv)
    assert code == 1
    assert engine.batches == []
    assert "not submitted as removed" in err


def test_dry_run_with_state_changes_nothing(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                            engine: IndexNowEngine) -> None:
    a, _ = sites
    sitemap, state = tmp_path / "s.xml", tmp_path / "state.sqlite"
    _urlset(sitemap, {a.url("/x"): "2024-01-01"})
    argv = ["submit", str(sitemap), "--key", KEY, "--endpoint", engine.url, "--state", str(state), "-q"]
    code, out, _ = _cli(*argv, "--dry-run")
    assert code == 0
    assert "would POST 1 URLs" in out
    assert engine.posts == 0
    assert not state.exists()
    code, out, _ = _cli(*argv)
    assert code == 0
    assert engine.received() == [a.url("/x")]


def test_a_state_file_of_something_else_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    urls = tmp_path / "u.txt"
    urls.write_text("http://example.test/a\n", encoding="utf-8")
    code, _, err = _cli("submit", str(urls), "--key", KEY, "--state", str(junk))
    assert code == 2
    assert f"--state {junk}: not a sitemapkit submit state file" in err


def test_generate_submits_the_changes_of_its_run(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                                 engine: IndexNowEngine) -> None:
    a, _ = sites
    urls, out, state = tmp_path / "urls.txt", tmp_path / "public", tmp_path / "submit.sqlite"
    urls.write_text("".join(a.url(f"/p{i}") + "\n" for i in range(5)), encoding="utf-8")
    argv = ["generate", str(urls), "--out", str(out), "--base-url", a.url("/"), "-q", "--submit-state", str(state),
            "--key", KEY, "--submit-endpoint", engine.url]
    code, _, err = _cli(*argv)
    assert code == 0, err
    assert sorted(engine.received()) == sorted(a.url(f"/p{i}") for i in range(5))
    engine.batches.clear()
    urls.write_text("".join(a.url(f"/p{i}") + "\n" for i in range(1, 6)), encoding="utf-8")
    code, _, err = _cli(*argv)
    assert code == 0, err
    assert sorted(engine.received()) == [a.url("/p0"), a.url("/p5")]  # removed and added
    assert "1 added, 0 changed, 1 removed" in err


def test_generate_without_submit_state_sends_nothing(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                                     engine: IndexNowEngine) -> None:
    a, _ = sites
    urls = tmp_path / "urls.txt"
    urls.write_text(a.url("/p") + "\n", encoding="utf-8")
    code, _, _ = _cli("generate", str(urls), "--out", str(tmp_path / "o"), "--base-url", a.url("/"), "-q")
    assert code == 0
    assert engine.posts == 0
    assert a.requests == []
    code, _, err = _cli("generate", str(urls), "--out", str(tmp_path / "o"), "--base-url", a.url("/"),
                        "--submit-state", str(tmp_path / "s.sqlite"))
    assert code == 2
    assert "--submit-state and --key go together" in err
    code, _, err = _cli("generate", str(urls), "--out", str(tmp_path / "bad"), "--base-url", a.url("/"),
                        "--submit-state", str(tmp_path / "s.sqlite"), "--key", "bad key")
    assert code == 2
    assert "not an IndexNow key" in err
    assert not (tmp_path / "bad").exists()  # refused before any work


def test_a_local_index_and_standard_input_are_read_whole(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                                          engine: IndexNowEngine) -> None:
    a, _ = sites
    urls, out = tmp_path / "urls.txt", tmp_path / "public"
    locs = [a.url(f"/p{i}") for i in range(5)]
    urls.write_text("".join(u + "\n" for u in locs), encoding="utf-8")
    code, _, err = _cli("generate", str(urls), "--out", str(out), "--base-url", a.url("/"), "--urls-per-file", "2",
                        "-q")
    assert code == 0, err
    code, text, _ = _cli("submit", str(out / "sitemap.xml"), "--key", KEY, "--endpoint", engine.url, "-q")
    assert code == 0, text
    assert sorted(engine.received()) == sorted(locs)  # the index's three child files, read from the folder
    engine.batches.clear()
    result = CliRunner().invoke(cli, ["submit", "-", "--key", KEY, "--endpoint", engine.url, "-q"],
                                input=f"{locs[0]}\n{locs[1]}\n")
    assert result.exit_code == 0, result.stdout
    assert engine.received() == locs[:2]


def test_crawl_submits_the_pages_it_published(tmp_path: Path, sites: tuple[LocalServer, LocalServer],
                                              engine: IndexNowEngine) -> None:
    a, _ = sites
    page = '<html><head><title>{0}</title></head><body><a href="/a">a</a> {0}</body></html>'
    a.route("/", page.format("home"), content_type="text/html")
    a.route("/a", page.format("a"), content_type="text/html")
    code, _, err = _cli("crawl", a.url("/"), "--out", str(tmp_path / "out"), "--state", str(tmp_path / "c.sqlite"),
                        "--submit-state", str(tmp_path / "s.sqlite"), "--key", KEY, "--submit-endpoint", engine.url)
    assert code == 0, err
    assert sorted(engine.received()) == [a.url("/"), a.url("/a")]
    assert "submit: indexnow" in err
