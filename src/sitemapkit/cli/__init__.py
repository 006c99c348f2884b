"""The ``sitemapkit`` command line: a thin adapter over the library.

Each command lives in its own module (``cli/_generate.py``, ...) and is registered below. Library errors are
translated to messages and exit codes here, at the boundary, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from sitemapkit import __version__
from sitemapkit.cli._common import CommandGroup, run_main


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 78})
@click.version_option(__version__, prog_name="sitemapkit")
def cli() -> None:
    """sitemapkit: generate, read, validate, discover and crawl sitemaps.

    \b
    Exit status: 0 ok, 1 problems found or the job failed, 2 usage error
    (bad option, missing file, malformed URL), 130 interrupted (Ctrl-C).
    Standard output: the result. Standard error: progress, diagnostics, errors.
    """


# Commands register here, one line each.
# from sitemapkit.cli._generate import generate; cli.add_command(generate)
from sitemapkit.cli._discover import discover  # noqa: E402

cli.add_command(discover)
from sitemapkit.cli._generate import generate  # noqa: E402

cli.add_command(generate)
from sitemapkit.cli._urls import urls  # noqa: E402

cli.add_command(urls)
from sitemapkit.cli._validate import validate  # noqa: E402

cli.add_command(validate)
from sitemapkit.cli._crawl import crawl  # noqa: E402

cli.add_command(crawl)
from sitemapkit.cli._serve import serve  # noqa: E402

cli.add_command(serve)
from sitemapkit.cli._web import web  # noqa: E402

cli.add_command(web)
from sitemapkit.cli._diff import diff  # noqa: E402

cli.add_command(diff)
from sitemapkit.cli._robots import robots  # noqa: E402

cli.add_command(robots)
from sitemapkit.cli._submit import submit  # noqa: E402

cli.add_command(submit)
from sitemapkit.cli._harvest import harvest  # noqa: E402

cli.add_command(harvest)
from sitemapkit.cli._audit import audit_command  # noqa: E402

cli.add_command(audit_command)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the console script and of ``python -m sitemapkit``."""
    run_main(cli, argv)


__all__ = ["cli", "main"]
