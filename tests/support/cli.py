"""Run the real ``sitemapkit`` command line in the test process (click's CliRunner), not in a new Python.

    res = run_cli(["urls", str(path)])
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [...]

:func:`run_cli` goes through :func:`sitemapkit.cli.main` (the console script's entry point), so library errors
become the same one-line messages and exit codes as in ``python -m sitemapkit``. The result has the fields of
:class:`subprocess.CompletedProcess` (``returncode``, ``stdout``, ``stderr``: text, or bytes with
``text=False``), so a test that ran a subprocess converts by replacing the call. An exception the command line
let through (a traceback a user would see) is raised in the test, which fails.

Use a real process (``subprocess``) only where the process is the point: signals and Ctrl-C, ``os._exit``, what
start-up imports, a child's memory, a terminal or a closed pipe on stdin/stdout.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner


@dataclass
class CliResult:
    args: list[str]
    returncode: int
    stdout: Any  # str, or bytes with text=False
    stderr: Any


class _Entry:
    """What CliRunner.invoke needs of a command (``name`` and ``main``), answered by sitemapkit.cli.main."""

    name = "sitemapkit"

    def main(self, args: Sequence[str] = (), prog_name: str | None = None, **_extra: object) -> None:
        from sitemapkit.cli import main

        main(list(args))


@contextmanager
def _cwd(path: str | os.PathLike[str] | None) -> Iterator[None]:
    if path is None:
        yield
        return
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(
    args: Sequence[str | os.PathLike[str]],
    *,
    input: str | bytes | None = None,
    text: bool = True,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str | None] | None = None,
) -> CliResult:
    """``sitemapkit ARGS`` in process: exit code, standard output and standard error kept apart.

    ``env`` sets (or, with None, removes) variables for the call only; a full ``{**os.environ, ...}`` copy
    works too.
    """
    argv = [os.fspath(a) for a in args]
    runner = CliRunner()
    with _cwd(cwd):
        result = runner.invoke(_Entry(), argv, input=input, env=dict(env) if env else None,  # type: ignore[arg-type]
                               catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    out, err = result.stdout_bytes, result.stderr_bytes or b""
    if text:
        return CliResult(argv, result.exit_code, _text(out), _text(err))
    return CliResult(argv, result.exit_code, out, err)


def _text(data: bytes) -> str:
    # What subprocess.run(text=True) gives: the locale's encoding (UTF-8 here), universal newlines.
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
