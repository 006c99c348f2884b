"""Bad input on the command line and in generate's inputs, through the real CLI (in-process, the console script's
error boundary): a URL with a bad port, credentials or a control character is a usage error (exit 2) for every
command that takes a URL, with a message that never shows the password; a line of a generate input with
credentials is skipped and named (file:line); a JSONL line nested too deeply is an error with its line, not a
traceback; ``urls DIR`` is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit import SitemapSetWriter, UrlEntry
from sitemapkit.cli import main
from sitemapkit.core import ConfigurationError, InvalidEntryError

PASSWORD = "s3cret"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(args)
    captured = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 1), captured.out, captured.err


def _url_commands(url: str, tmp: Path) -> list[list[str]]:
    """Every command that takes a URL on its command line, given ``url`` there."""
    return [
        ["urls", url],
        ["validate", url],
        ["discover", url],
        ["crawl", url, "--out", str(tmp / "crawl-out")],
        ["audit", url],
        ["submit", url, "--key", "0123456789abcdef", "--dry-run"],
        ["robots", url, "--check"],
        ["robots", str(tmp / "robots.txt"), "--add", url],
        ["diff", str(tmp / "a.xml"), url],
        ["generate", str(tmp / "urls.txt"), "--out", str(tmp / "gen-out"), "--base-url", url],
    ]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "robots.txt").write_text("User-agent: *\nDisallow:\n", encoding="utf-8")
    (tmp_path / "a.xml").write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>', encoding="utf-8")
    (tmp_path / "urls.txt").write_text("https://example.com/a\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("url", "expect"), [
    ("http://127.0.0.1:65536/", "not a valid port (1-65535)"),
    ("http://127.0.0.1:0/", "not a valid port (1-65535)"),
    (f"https://admin:{PASSWORD}@127.0.0.1:9/", "carries credentials"),
    ("https://example.com/s.xml\r\nDisallow: /", "a control character in the URL"),
], ids=["port-65536", "port-0", "credentials", "crlf"])
def test_every_url_command_refuses_a_bad_url_as_a_usage_error(
        files: Path, url: str, expect: str, capsys: pytest.CaptureFixture[str]) -> None:
    robots_before = (files / "robots.txt").read_bytes()
    for args in _url_commands(url, files):
        code, out, err = _run(args, capsys)
        assert code == 2, (args, err)
        assert expect in err, (args, err)
        assert "Traceback" not in err, args
        assert PASSWORD not in out + err, args
    assert (files / "robots.txt").read_bytes() == robots_before  # robots --add wrote nothing
    assert not (files / "crawl-out").exists()
    assert not (files / "gen-out").exists()


def test_robots_add_refuses_a_crlf_that_would_add_a_rule(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _run(["robots", str(files / "robots.txt"), "--add", "https://example.com/s.xml\r\nDisallow: /"],
                           capsys)
    assert code == 2
    assert "a control character in the URL: https://example.com/s.xml\\r\\nDisallow: /" in err
    assert (files / "robots.txt").read_text(encoding="utf-8") == "User-agent: *\nDisallow:\n"


@pytest.mark.parametrize("name", ["urls.txt", "urls.jsonl", "urls.csv"])
def test_generate_skips_an_input_line_with_credentials_naming_it(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = "https://example.com/a", f"https://admin:{PASSWORD}@example.com/b"
    src = tmp_path / name
    if name.endswith(".txt"):
        src.write_text(f"{good}\n{bad}\n", encoding="utf-8")
    elif name.endswith(".jsonl"):
        src.write_text(f'{{"loc": "{good}"}}\n{{"loc": "{bad}"}}\n', encoding="utf-8")
    else:
        src.write_text(f"loc\n{good}\n{bad}\n", encoding="utf-8")
    out = tmp_path / "out"
    for extra in ([], ["--allow-cross-host"], ["--format", "txt"]):
        code, stdout, err = _run(["generate", str(src), "--out", str(out), "--base-url", "https://example.com/",
                                  *extra], capsys)
        assert code == 1, err
        line = 3 if name.endswith(".csv") else 2
        assert f"{src}:{line}: error SM610: cannot be written: loc carries credentials" in err, err
        assert "https://***@example.com/b" in err
        assert PASSWORD not in stdout + err
        published = "".join(p.read_text(encoding="utf-8") for p in out.iterdir() if p.is_file())
        assert good in published
        assert PASSWORD not in published
        assert "admin" not in published


def test_the_writer_refuses_credentials(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="credentials") as config:
        SitemapSetWriter(tmp_path, f"https://admin:{PASSWORD}@example.com/")
    assert PASSWORD not in str(config.value)
    for check_scope in (True, False):
        with SitemapSetWriter(tmp_path / str(check_scope), "https://example.com/", check_scope=check_scope,
                              formats=("xml", "txt")) as writer:
            writer.add(UrlEntry("https://example.com/a"))
            with pytest.raises(InvalidEntryError, match="credentials") as refused:
                writer.add(UrlEntry(f"https://admin:{PASSWORD}@example.com/b"))
            assert PASSWORD not in str(refused.value)
            with pytest.raises(InvalidEntryError, match="credentials"):
                writer.add_all([UrlEntry("https://user@example.com/c")])
        assert writer.urls == 1


def test_a_jsonl_line_nested_too_deeply_is_an_error_with_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "deep.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    src.write_text(f'{{"loc": "https://example.com/a"}}\n{{"loc": "https://example.com/b", "x": {deep}}}\n',
                   encoding="utf-8")
    code, _out, err = _run(["generate", str(src), "--out", str(tmp_path / "out"), "--base-url",
                            "https://example.com/"], capsys)
    assert code == 1, err
    assert f"{src}:2: error SM610: not a JSON object sitemapkit reads: nested too deeply" in err
    assert "Traceback" not in err
    assert "https://example.com/a" in (tmp_path / "out" / "sitemap.xml").read_text(encoding="utf-8")


def test_urls_refuses_a_folder_without_sitemap_files_as_a_usage_error(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """urls reads a folder as validate does (issue 23, one byte source): one without sitemap files is a usage
    error for both."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "robots.txt").write_text("User-agent: *\n", encoding="utf-8")
    code, out, err = _run(["urls", str(folder)], capsys)
    assert code == 2
    assert f"{folder}: no sitemap files (*.xml, *.xml.gz, *.txt, *.gz) in this directory (1 skipped: robots.txt" in err
    assert out == ""
    code, _out, _err = _run(["validate", str(folder)], capsys)
    assert code == 2


@pytest.mark.parametrize("url", ["http://127.0.0.1:0/", f"https://admin:{PASSWORD}@127.0.0.1:9/"])
def test_the_crawl_library_refuses_a_start_url_with_a_bad_port_or_credentials(tmp_path: Path, url: str) -> None:
    from sitemapkit.crawl import crawl_site

    with pytest.raises(ConfigurationError) as refused:
        crawl_site(url, tmp_path / "out", state_path=tmp_path / "state.sqlite")
    assert PASSWORD not in str(refused.value)
    assert not (tmp_path / "out").exists()
