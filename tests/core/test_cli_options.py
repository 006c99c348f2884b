"""One meaning per option name across commands (issue 23).

Walks every command's click options: an option name that several commands take either has the same value kind
(metavar, type, flag or not) and the same help text in all of them, or is listed in :data:`SHARED_MEANING` with the
one meaning its per-command help spells out in detail. A name that changes meaning from one command to another
(``--timeout`` as a total deadline in ``urls`` and an idle timeout in ``crawl``) fails here."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.crawl import CRAWL_OPTION_SPECS

#: Options whose help differs between commands only in the command's own details (its formats, its files), with
#: the one meaning they share. Add a name here only when the meaning really is the same; otherwise rename it.
SHARED_MEANING = {
    "--allow-cross-host": "URLs on another host than the sitemap's are allowed (robots.txt cross-submission)",
    "--allow-private-addresses": "the request-forgery guard is off: fetches may reach special addresses",
    "--base-url": "the public URL the sitemaps are served at",
    "--concurrency": "requests in flight at the same time",
    "--fail-on": "exit status 1 when these problems are found",
    "--format": "the format of what the command writes (its choices are the command's)",
    "--host": "the address the server binds",
    "--port": "the port the server listens on",
    "--key": "the IndexNow key",
    "--out": "the directory the command writes its results into",
    "--quiet": "no progress on standard error",
    "--report-dir": "the directory the command writes its reports into (never published: crawl's sitemaps go to --out)",
    "--scheduler": "the address of a Dask scheduler",
    "--stall-timeout": "a response that sends no bytes for this long has stalled",
    "--state": "the file the command keeps its own working state in (its format is the command's)",
    "--strict": "stop reading a source at its first error or repaired irregularity",
    "--workers": "local Dask workers",
}


def _kind(param: click.Option) -> tuple[str, str | None, bool]:
    return type(param.type).__name__, param.metavar, bool(param.is_flag)


def _uses() -> dict[str, list[tuple[str, click.Option]]]:
    """Every visible long option name -> the commands (and their option) that take it."""
    ctx = click.Context(cli)
    uses: dict[str, list[tuple[str, click.Option]]] = defaultdict(list)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for opt in param.opts:
                    if opt.startswith("--") and opt != "--help":
                        uses[opt].append((name, param))
    return uses


def test_an_option_name_has_one_meaning_across_commands() -> None:
    shared = {opt: used for opt, used in _uses().items() if len(used) > 1}
    assert len(shared) > 10  # the walk found the commands and their options
    different: list[str] = []
    for opt, used in sorted(shared.items()):
        flags = {bool(p.is_flag) for _, p in used}
        if len(flags) > 1:
            different.append(f"{opt}: a flag in some commands, a value in others: {[c for c, _ in used]}")
        if opt in SHARED_MEANING:
            continue
        kinds = {_kind(p) for _, p in used}
        helps = {p.help for _, p in used}
        if len(kinds) > 1 or len(helps) > 1:
            detail = "; ".join(f"{c}: {_kind(p)} {p.help!r}" for c, p in used)
            different.append(f"{opt} means different things: {detail}")
    assert not different, "\n".join(different)


def test_every_declared_shared_meaning_is_still_shared() -> None:
    uses = _uses()
    stale = [opt for opt in SHARED_MEANING if len(uses.get(opt, [])) < 2]
    assert not stale, f"no longer used by several commands, remove from SHARED_MEANING: {stale}"


def test_the_renamed_options_are_what_the_issue_asked_for() -> None:
    uses = _uses()

    def commands(opt: str) -> set[str]:
        return {c for c, _ in uses.get(opt, [])}

    fetching = {"urls", "validate", "discover"} & commands("--deadline")
    assert fetching >= {"urls", "discover"}
    assert commands("--max-index-depth") >= {"urls", "discover"}
    assert commands("--urls-per-file") == commands("--bytes-per-file") == {"generate", "crawl"}
    assert commands("--stall-timeout") >= {"crawl", "audit"}
    assert commands("--include-path") == commands("--exclude-path") == {"generate"}
    assert commands("--include") == commands("--exclude") == {"crawl", "audit"}
    assert commands("--max-depth") == {"crawl", "audit"}
    assert "--timeout" not in uses
    assert {"generate", "crawl"}.isdisjoint(commands("--max-urls") | commands("--max-bytes"))


@pytest.mark.parametrize(("args", "new"), [
    (["urls", "x.xml", "--timeout", "3"], "--deadline"),
    (["discover", "https://a.test/", "--max-depth", "2"], "--max-index-depth"),
    (["generate", "u.txt", "-o", "out", "--base-url", "https://a.test/", "--max-urls", "5"], "--urls-per-file"),
    (["crawl", "https://a.test/", "-o", "out", "--max-bytes", "5000"], "--bytes-per-file"),
    (["crawl", "https://a.test/", "-o", "out", "--timeout", "5"], "--stall-timeout"),
    (["audit", "https://a.test/", "--timeout", "5"], "--stall-timeout"),
    (["generate", "u.txt", "-o", "out", "--base-url", "https://a.test/", "--exclude", "x/*"], "--exclude-path"),
])
def test_an_old_option_name_is_a_usage_error_naming_the_new_one(args: list[str], new: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert f"was renamed {new}" in result.output


def test_crawl_and_audit_take_the_crawl_options_from_one_table() -> None:
    uses = _uses()
    ctx = click.Context(cli)
    required = {"crawl": ["https://a.test/", "-o", "out"], "audit": ["https://a.test/"]}
    for command, args in required.items():
        cmd = cli.get_command(ctx, command)
        assert cmd is not None
        values = cmd.make_context(command, list(args)).params  # nothing but the defaults given
        for spec in CRAWL_OPTION_SPECS:
            if spec.sitemap and command == "audit":  # options that shape a sitemap: audit writes none
                assert not [c for c, _ in uses.get(spec.flag, []) if c == command], spec.flag
                continue
            param = next(p for c, p in uses[spec.flag] if c == command)
            assert param.help == spec.help, (command, spec.flag)
            assert tuple(values[spec.name]) == spec.default if param.multiple else values[spec.name] == spec.default
            if spec.kind in ("int", "float"):
                assert isinstance(param.type, click.IntRange | click.FloatRange)
                assert (param.type.min, param.type.max) == (spec.low, spec.high), (command, spec.flag)


def test_the_readme_examples_use_option_names_the_commands_have() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    ctx = click.Context(cli)
    unknown: list[str] = []
    checked = 0
    for block in re.findall(r"```sh\n(.*?)```", readme, re.S):
        for line in block.splitlines():
            words = line.split("#")[0].split()
            if len(words) < 2 or words[0] != "sitemapkit" or words[1] not in cli.list_commands(ctx):
                continue
            command = cli.get_command(ctx, words[1])
            assert command is not None
            known = {o for p in command.params if isinstance(p, click.Option) and not p.hidden for o in p.opts}
            for word in words[2:]:
                if word.startswith("-") and word != "-":
                    checked += 1
                    if word.split("=")[0] not in known | {"--help", "-h"}:
                        unknown.append(f"{words[1]} {word}: {line.strip()}")
    assert checked > 10
    assert not unknown, unknown
