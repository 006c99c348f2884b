"""Every command's --help follows one style: examples in \\b blocks (never re-wrapped mid-command), lines that
fit 79 columns, one metavar style (uppercase: URL, DIR, FILE, N; or a [choice|list]), the exit-status rule and
the stream rule, and no pointer to a file that is not shipped with the package."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import click
import pytest

from sitemapkit.cli import cli

COMMANDS = sorted(cli.commands)
#: ``URL``, ``SOURCE...``, ``[URL]...`` (optional), ``FILE|SITE`` (either).
UPPER_METAVAR = re.compile(r"\[?[A-Z][A-Z0-9_]*(\|[A-Z][A-Z0-9_]*)*\]?(\.\.\.)?")
#: click's own names: the project spells these DIR, FILE, N, S.
CLICK_DEFAULTS = {"DIRECTORY", "PATH", "INTEGER", "FLOAT", "FILENAME"}
EXIT_RULE = "Exit status: 0 ok, 1 problems found or the job failed, 2 usage error"


def _help(name: str, columns: int = 80) -> str:
    """The help as a terminal ``columns`` wide shows it (CliRunner would force its own width)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", str(columns))
        with click.Context(cli, info_name="sitemapkit", **cli.context_settings) as ctx:
            if not name:
                return cli.get_help(ctx)
            command = cli.commands[name]
            with command.make_context(name, ["--help"], parent=ctx, resilient_parsing=True) as sub:
                return command.get_help(sub)


@pytest.mark.parametrize("name", COMMANDS)
def test_examples_are_in_unwrapped_blocks(name: str) -> None:
    doc = cli.commands[name].help or ""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", doc)]
    example = [i for i, p in enumerate(paragraphs) if "Example:" in p]
    assert example, f"{name}: no Example: paragraph"
    block = paragraphs[example[0]]
    assert block.startswith("\b"), f"{name}: the Example: paragraph is not a \\b block, click re-wraps it"
    # one example a line; a line ending in a backslash continues on the next
    joined = re.sub(r"\\\n\s*", "", "\n".join(block.splitlines()[2:]))
    commands = [line.strip() for line in joined.splitlines() if line.strip()]
    assert commands, f"{name}: no example command"
    assert all(line.startswith("sitemapkit ") for line in commands), commands
    rendered = _help(name)
    flat = re.sub(r"\\\n\s*", "", rendered)
    for line in commands:
        assert line in flat, f"{name}: example re-wrapped: {line!r}"


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("name", ["", *COMMANDS])
def test_help_lines_fit_79_columns(name: str, columns: int) -> None:
    long = [line for line in _help(name, columns).splitlines() if len(line) > 79]
    assert long == [], f"sitemapkit {name} --help: lines over 79 columns"


def test_help_through_the_real_cli_fits_too() -> None:
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "urls", "--help"], capture_output=True, text=True,
                          timeout=60, check=False, env={**os.environ, "COLUMNS": "120"})
    assert done.returncode == 0
    assert max(len(line) for line in done.stdout.splitlines()) <= 79


@pytest.mark.parametrize("name", COMMANDS)
def test_metavars_are_uppercase(name: str) -> None:
    command = cli.commands[name]
    ctx = click.Context(command, info_name=name)
    bad = []
    for param in command.params:
        if isinstance(param, click.Option) and (param.is_flag or param.hidden):
            continue
        metavar = param.make_metavar(ctx)
        if isinstance(param.type, click.Choice) and metavar.startswith("["):
            continue
        if not UPPER_METAVAR.fullmatch(metavar) or metavar in CLICK_DEFAULTS:
            bad.append(f"{param.name}: {metavar}")
    assert bad == [], f"{name}: metavars not in the UPPERCASE style: {bad}"


@pytest.mark.parametrize("name", ["", *COMMANDS])
def test_every_help_states_the_exit_and_stream_rules(name: str) -> None:
    output = " ".join(_help(name).split())
    assert EXIT_RULE in output
    assert "130 interrupted (Ctrl-C)" in output
    assert "Standard output: the result. Standard error: progress, diagnostics, errors." in output


@pytest.mark.parametrize("name", COMMANDS)
def test_no_pointer_to_unshipped_files(name: str) -> None:
    output = _help(name)
    assert not re.search(r"\b[A-Z]+\.md\b|docs/", output), f"{name} --help names a file the package does not ship"


@pytest.mark.parametrize("name", ["generate", "crawl"])
def test_xsl_help_warns_about_chromium_and_points_to_html(name: str) -> None:
    text = " ".join(_help(name).split())
    assert "XSLT support is being removed" in text
    assert "use --format html" in text
