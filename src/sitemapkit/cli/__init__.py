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


# Commands register here, one line each: imported on first use, so a command starts without loading the others
# (the crawler, the web app, the validator) and their dependencies.
cli.add_lazy_commands({
    "discover": ("sitemapkit.cli._discover", "discover"),
    "generate": ("sitemapkit.cli._generate", "generate"),
    "urls": ("sitemapkit.cli._urls", "urls"),
    "validate": ("sitemapkit.cli._validate", "validate"),
    "crawl": ("sitemapkit.cli._crawl", "crawl"),
    "serve": ("sitemapkit.cli._serve", "serve"),
    "web": ("sitemapkit.cli._web", "web"),
    "diff": ("sitemapkit.cli._diff", "diff"),
    "robots": ("sitemapkit.cli._robots", "robots"),
    "submit": ("sitemapkit.cli._submit", "submit"),
    "harvest": ("sitemapkit.cli._harvest", "harvest"),
    "audit": ("sitemapkit.cli._audit", "audit_command"),
})


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the console script and of ``python -m sitemapkit``."""
    run_main(cli, argv)


__all__ = ["cli", "main"]
