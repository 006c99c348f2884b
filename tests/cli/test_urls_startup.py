"""`sitemapkit urls` starts without loading the other commands (each is imported on first use), and the group
still knows every command: listing, --help and "did you mean" work as when all were imported up front."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from sitemapkit.core import LazyImports

PROBE = """
import json, sys
from sitemapkit.cli import cli, main
before = sorted(m for m in sys.modules if m.startswith("sitemapkit.cli._") and m != "sitemapkit.cli._common")
try:
    main(["urls", "-q", sys.argv[1]])
except SystemExit as exc:
    code = exc.code
after = sorted(m for m in sys.modules if m.startswith(("sitemapkit.cli._", "sitemapkit.crawl", "sitemapkit.validate",
                                                       "sitemapkit.web", "sitemapkit.harvest", "rich", "aiohttp",
                                                       "asyncio", "sitemapkit.fetch._http", "sitemapkit.fetch._walk",
                                                       "sitemapkit.submit")))
print(json.dumps({"before": before, "after": after, "code": code}))
"""


def test_urls_loads_only_what_it_needs(tmp_path: Path) -> None:
    doc = tmp_path / "s.xml"
    doc.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/?a=1&amp;b=2'
                   "</loc></url></urlset>", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, str(doc)], capture_output=True, text=True, timeout=60,
                          check=True, stdin=subprocess.DEVNULL)
    lines = done.stdout.splitlines()
    assert lines[0] == "https://e.com/?a=1&b=2"
    seen = json.loads(lines[-1])
    assert seen["code"] == 0
    assert seen["before"] == []  # importing the group imports no command
    # ... and a local file loads no HTTP stack (aiohttp, asyncio, the walker) and no other capability
    assert seen["after"] == ["sitemapkit.cli._common", "sitemapkit.cli._fetchopts", "sitemapkit.cli._specs",
                             "sitemapkit.cli._urls"]


def test_the_group_lists_and_finds_every_command() -> None:
    from sitemapkit.cli import cli

    names = sorted(cli.commands)
    assert names == ["audit", "crawl", "diff", "discover", "generate", "harvest", "robots", "serve", "submit",
                     "urls", "validate", "web"]
    for name in names:
        command = cli.commands[name]
        assert command.name == name
        assert command.epilog  # the common epilog is added on load, as add_command did
    assert len(cli.commands) == len(names)
    assert "nosuch" not in cli.commands


def test_lazy_commands_behave_as_a_mapping() -> None:
    loads: list[str] = []
    extra = click.Command("extra")
    lazy = LazyImports({"urls": ("sitemapkit.cli._urls", "urls")}, on_load=lambda c: loads.append(c.name or ""))
    assert list(lazy) == ["urls"]
    assert loads == []
    assert lazy["urls"] is lazy["urls"]
    assert loads == ["urls"]  # loaded once
    lazy["extra"] = extra
    assert sorted(lazy) == ["extra", "urls"]
    assert len(lazy) == 2
    del lazy["urls"]
    assert list(lazy) == ["extra"]
    with pytest.raises(KeyError):
        lazy["urls"]
    with pytest.raises(KeyError):
        del lazy["urls"]
