"""What every command shares: exit codes, the error boundary, JSON output and the stderr console."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click
from rich.console import Console

from sitemapkit.core._errors import ConfigurationError, InvalidValueError, SitemapkitError
from sitemapkit.core._problems import Problem, escape_controls, escape_json_controls

__all__ = [
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "emit_json",
    "fail",
    "print_problem",
    "run_main",
    "stderr_console",
]

#: Success; no errors were found.
EXIT_OK = 0
#: Problems were found, or the job failed (input errors, fetch errors, publish errors).
EXIT_FAILURE = 1
#: The command was called wrongly (click's own usage errors also exit 2).
EXIT_USAGE = 2


def stderr_console() -> Console:
    """Console for progress and diagnostics: always stderr, so stdout stays machine-readable."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def emit_json(obj: Any, *, indent: int | None = 2) -> None:
    """``obj`` as JSON on stdout: values exact, control characters only ever as JSON escapes."""
    click.echo(escape_json_controls(json.dumps(obj, ensure_ascii=False, indent=indent)))


def print_problem(problem: Problem) -> None:
    """One problem a line on stderr: ``source:line:column: severity code: message`` (control characters from
    the input escaped by :meth:`Problem.format`, so a document cannot drive the terminal)."""
    click.echo(problem.format(), err=True)


def fail(message: str, code: int = EXIT_FAILURE) -> NoReturn:
    """Print ``sitemapkit: error: message`` on stderr (control characters escaped) and exit with ``code``."""
    click.echo(f"sitemapkit: error: {escape_controls(message)}", err=True)
    sys.exit(code)


def run_main(group: click.Group, argv: Sequence[str] | None) -> None:
    """Run the click group, turning library exceptions into one-line messages and exit codes (no tracebacks)."""
    try:
        group.main(args=list(argv) if argv is not None else None, prog_name="sitemapkit", standalone_mode=True)
    except (ConfigurationError, InvalidValueError) as exc:
        fail(str(exc), EXIT_USAGE)
    except SitemapkitError as exc:
        fail(str(exc), EXIT_FAILURE)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except OSError as exc:
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        fail(f"{exc.strerror or exc}{where}", EXIT_FAILURE)
