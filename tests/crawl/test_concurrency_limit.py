"""``--concurrency`` has an upper bound (core/_limits.MAX_CONCURRENCY): each unit is a task or a thread created up
front, so ``--concurrency 1000000000`` used gigabytes before fetching a page. Above the bound it is a usage error
(rc 2) that names the option and the limit, on every command that takes it, and in the library's options."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.core import ConfigurationError
from sitemapkit.core._limits import MAX_CONCURRENCY, MAX_WORKERS
from sitemapkit.crawl import CrawlOptions
from sitemapkit.harvest._job import HarvestOptions

#: Nothing listens here: a command that got past its options would fail to connect (rc 1), not exit 2.
CLOSED = "http://127.0.0.1:9/"


@pytest.mark.parametrize("value", [MAX_CONCURRENCY + 1, 1_000_000_000])
@pytest.mark.parametrize("command", [
    ["crawl", CLOSED, "--out", "{out}"],
    ["audit", CLOSED, "--out", "{out}"],
    ["discover", CLOSED],
    ["urls", CLOSED],
])
def test_concurrency_above_the_limit_is_a_usage_error(command: list[str], value: int, tmp_path: Path) -> None:
    args = [a.format(out=tmp_path / "out") for a in command]
    result = CliRunner().invoke(cli, [*args, "--concurrency", str(value)])
    assert result.exit_code == 2, result.output
    assert "--concurrency" in result.output
    assert f"1<=x<={MAX_CONCURRENCY}" in result.output
    assert not (tmp_path / "out").exists()


def test_the_limit_itself_is_accepted_and_the_help_says_it() -> None:
    assert CrawlOptions(concurrency=MAX_CONCURRENCY).concurrency == MAX_CONCURRENCY
    result = CliRunner().invoke(cli, ["crawl", "--help"])
    assert f"at most {MAX_CONCURRENCY}" in " ".join(result.output.split())


def test_crawl_options_refuse_concurrency_above_the_limit() -> None:
    with pytest.raises(ConfigurationError, match=f"between 1 and {MAX_CONCURRENCY}, not {MAX_CONCURRENCY + 1}"):
        CrawlOptions(concurrency=MAX_CONCURRENCY + 1)


@pytest.mark.parametrize(("option", "value"), [("--workers", MAX_WORKERS + 1), ("--threads", MAX_CONCURRENCY + 1)])
def test_harvest_workers_and_threads_are_bounded(option: str, value: int, tmp_path: Path) -> None:
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("127.0.0.1:9\n")
    result = CliRunner().invoke(cli, ["harvest", str(hosts), "--out", str(tmp_path / "h"), option, str(value)])
    assert result.exit_code == 2, result.output
    assert option in result.output
    with pytest.raises(ConfigurationError, match=option):
        HarvestOptions(tmp_path / "h", **{option.lstrip("-"): value})


def test_generate_workers_are_bounded(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("loc\nhttps://example.com/\n")
    result = CliRunner().invoke(cli, ["generate", str(data), "--base-url", "https://example.com/", "-o",
                                      str(tmp_path / "out"), "--workers", str(MAX_WORKERS + 1)])
    assert result.exit_code == 2, result.output
    assert f"1<=x<={MAX_WORKERS}" in result.output
