"""Every command is documented: a summary, an Example: block, and help for every option."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli

COMMANDS = sorted(cli.commands)


def test_the_five_commands_exist() -> None:
    assert set(COMMANDS) >= {"generate", "urls", "validate", "discover", "crawl"}


@pytest.mark.parametrize("name", COMMANDS)
def test_help_has_an_example(name: str) -> None:
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output, f"`sitemapkit {name} --help` has no Example: block"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_has_help(name: str) -> None:
    command = cli.commands[name]
    undocumented = [p.name for p in command.params if isinstance(p, click.Option) and not p.help and not p.hidden]
    assert undocumented == [], f"{name}: options without help: {undocumented}"


def test_usage_error_exits_2_without_traceback() -> None:
    result = CliRunner().invoke(cli, ["generate", "--no-such-option"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
