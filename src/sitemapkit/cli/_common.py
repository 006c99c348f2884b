"""What every command shares: exit codes, the error boundary, JSON output, the stderr console and progress.

The rules every command follows (and states in its ``--help``, see :data:`COMMON_EPILOG`):

* exit status 0 ok, 1 problems found or the job failed, 2 usage error (a bad option, a missing file, a malformed
  URL), 130 interrupted (Ctrl-C: one line on standard error, never a traceback);
* standard output carries the command's result (URLs, ``validate``'s report, the tree, the summary of what was
  written); standard error carries progress, diagnostics and errors;
* long jobs show counts on standard error: a live line on a terminal, else a plain line every 10 seconds
  (``SITEMAPKIT_PROGRESS_INTERVAL`` changes the interval); ``--quiet`` turns both off.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:  # rich is imported when a console is made: a run whose stderr is not a terminal needs none
    from rich.console import Console
    from rich.text import Text

from sitemapkit.core import (
    CODES,
    ConfigurationError,
    InvalidValueError,
    LazyImports,
    Problem,
    SitemapkitError,
    bare_host_url,
    escape_controls,
    escape_json_controls,
    plural,
    source_argument_problem,
    url_argument_problem,
)

__all__ = [
    "COMMON_EPILOG",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "PROGRESS_INTERVAL_ENV",
    "CommandGroup",
    "Interrupted",
    "Progress",
    "check_sources",
    "check_url",
    "emit_json",
    "fail",
    "plural",
    "print_note",
    "print_problem",
    "quiet_option",
    "renamed_option",
    "resolve_bare_host",
    "run_main",
    "stderr_console",
]

#: Success; no errors were found.
EXIT_OK = 0
#: Problems were found, or the job failed (input errors, fetch errors, publish errors).
EXIT_FAILURE = 1
#: The command was called wrongly: a bad option, a missing file, a malformed URL (click's own usage errors too).
EXIT_USAGE = 2
#: Stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130
#: Environment variable: seconds between two plain progress lines when standard error is not a terminal.
PROGRESS_INTERVAL_ENV = "SITEMAPKIT_PROGRESS_INTERVAL"
_DEFAULT_PROGRESS_INTERVAL = 10.0

#: The rules every command states at the end of its ``--help`` (click keeps ``\b`` paragraphs as written).
COMMON_EPILOG = (
    "\b\n"
    "Exit status: 0 ok, 1 problems found or the job failed, 2 usage error\n"
    "(bad option, missing file, malformed URL), 130 interrupted (Ctrl-C).\n"
    "Standard output: the result. Standard error: progress, diagnostics, errors."
)


class Interrupted(Exception):
    """Ctrl-C reached a command: :func:`run_main` turns it into one line and exit status 130."""


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, a KeyboardInterrupt (cleanup code that fails after
    Ctrl-C must not turn the interrupt into a traceback)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _add_epilog(cmd: click.Command) -> None:
    if not cmd.epilog:
        cmd.epilog = COMMON_EPILOG


class CommandGroup(click.Group):
    """The ``sitemapkit`` group: every command gets :data:`COMMON_EPILOG`, and Ctrl-C anywhere in a command
    becomes :class:`Interrupted` (click would print "Aborted!" and exit 1)."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        _add_epilog(cmd)
        super().add_command(cmd, name)

    def add_lazy_commands(self, specs: dict[str, tuple[str, str]]) -> None:
        """Register commands by ``name: (module, attribute)``, each imported when first used (a
        :class:`~sitemapkit.core.LazyImports`: listing the names imports nothing; ``--help`` of the group imports
        every command, it shows each one's short help)."""
        lazy: LazyImports[click.Command] = LazyImports(specs, on_load=_add_epilog)
        for name in list(self.commands):
            lazy[name] = self.commands[name]
        self.commands = lazy

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BaseException as exc:
            if isinstance(exc, SystemExit) or not _interrupted(exc):
                raise
            raise Interrupted() from None


def check_sources(sources: Sequence[str], *, urls: bool = True, stdin: bool = True, dirs: bool = True,
                  hosts: bool = False, param_hint: str = "SOURCE") -> None:
    """Usage errors (exit 2) for SOURCE arguments, before any work starts (see
    :func:`sitemapkit.core.source_argument_problem`; a bare host is left for :func:`resolve_bare_host`)."""
    for source in sources:
        problem = source_argument_problem(source, urls=urls, stdin=stdin, dirs=dirs, hosts=hosts)
        if problem is not None:
            raise click.BadParameter(problem, param_hint=param_hint)


def resolve_bare_host(text: str, *, connect_timeout: float = 10.0) -> str:
    """``text`` itself, unless it is a bare host (``example.com``, ``127.0.0.1:8000/shop``): then the URL the
    site answers on, https first and http when https does not connect (``sitemapkit.fetch.resolve_site_url``),
    with one line on standard error saying which was used. A file of that name is not a host: callers that take
    files ask only for names that do not exist."""
    if bare_host_url(text) is None:
        return text
    from sitemapkit.fetch import resolve_site_url

    chosen = resolve_site_url(text, connect_timeout=connect_timeout)
    if chosen.note:  # always, for a bare host: the scheme was chosen
        print_note(chosen.note)
    return chosen.url


def print_note(note: str) -> None:
    """``sitemapkit: note`` on standard error (control characters escaped)."""
    click.echo(escape_controls(f"sitemapkit: {note}"), err=True)


def check_url(url: str, param_hint: str = "URL") -> str:
    """The one check of a URL argument (every command that fetches or writes a URL given on the command line):
    a usage error (exit 2) for a URL that is not absolute http(s), holds a control character, carries credentials
    (the message never shows the password) or has a port outside 1-65535. Returns ``url``."""
    problem = url_argument_problem(url)
    if problem is not None:
        raise click.BadParameter(problem, param_hint=param_hint)
    return url


def quiet_option(func: Any) -> Any:
    """``--quiet`` / ``-q``: no progress on standard error."""
    return click.option("--quiet", "-q", is_flag=True,
                        help="No progress on standard error (diagnostics and errors are still printed).")(func)


class Progress:
    """Counts of a long job on standard error, refreshed from a background thread so a line appears even while
    the job waits (a slow server): on a terminal a live status line; otherwise a plain line
    ``sitemapkit: <text>`` every :data:`PROGRESS_INTERVAL_ENV` seconds (10 by default), for CI logs.
    ``describe`` returns the current text; it is called from the thread, so keep it to reading counters.
    ``styled``: on a terminal, a rich renderable to show instead, in a live display left on screen at the end
    (``crawl``'s line). Disabled (nothing at all) when ``quiet``. Use as a context manager."""

    def __init__(self, describe: Callable[[], str], *, quiet: bool = False,
                 styled: Callable[[], Any] | None = None) -> None:
        self._describe = describe
        self._styled = styled
        self._quiet = quiet
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status: Any = None
        interval = _DEFAULT_PROGRESS_INTERVAL
        raw = os.environ.get(PROGRESS_INTERVAL_ENV)
        if raw:
            try:
                interval = max(0.05, float(raw))
            except ValueError:
                pass
        self.interval = interval

    def __enter__(self) -> Progress:
        if self._quiet:
            return self
        if _may_be_terminal(sys.stderr) and (console := stderr_console()).is_terminal:
            if self._styled is not None:
                from rich.live import Live

                self._status = Live(self._styled(), console=console, refresh_per_second=4, transient=False)
            else:
                self._status = console.status(self._text())
            self._status.__enter__()
            target = self._refresh_status
        else:
            target = self._print_lines
        self._thread = threading.Thread(target=target, name="sitemapkit-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._status is not None:
            if self._styled is not None:  # the line left on screen shows the end, not the last refresh
                self._status.update(self._styled())
            self._status.__exit__(None, None, None)

    def _refresh_status(self) -> None:
        while not self._stop.wait(0.25):
            self._status.update(self._styled() if self._styled is not None else self._text())

    def _text(self) -> Text:
        """The live line: plain text (a URL in it is neither markup nor control sequences)."""
        from rich.text import Text

        return Text(escape_controls(self._describe()))

    def _print_lines(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                click.echo(f"sitemapkit: {escape_controls(self._describe())}", err=True)
            except (OSError, ValueError):  # standard error went away: stop reporting
                return


def _may_be_terminal(stream: Any) -> bool:
    """False only when rich's ``Console.is_terminal`` is sure to say False for ``stream`` (not a tty, and no
    ``TTY_COMPATIBLE=1`` or non-empty ``FORCE_COLOR`` telling it otherwise): then no console needs to be made."""
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR"):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def stderr_console() -> Console:
    """Console for progress and diagnostics: always stderr, so stdout stays machine-readable."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def emit_json(obj: Any, *, indent: int | None = 2) -> None:
    """``obj`` as JSON on stdout: values exact, control characters only ever as JSON escapes."""
    click.echo(escape_json_controls(json.dumps(obj, ensure_ascii=False, indent=indent)))


def print_problem(problem: Problem) -> None:
    """One problem a line on stderr: ``source:line:column: severity code: message`` (control characters from
    the input escaped by :meth:`Problem.format`, so a document cannot drive the terminal)."""
    click.echo(problem.format(), err=True)


def code_title(code: str) -> str:
    """The title of problem code ``code`` ("" when sitemapkit defines no such code): from the code's own
    definition, whichever layers this process has imported (a summary line may name a code reported elsewhere,
    e.g. by a worker process)."""
    from sitemapkit import all_codes

    known = CODES.get(code) or all_codes().get(code)  # every layer is imported only for a code not yet registered
    return known.title if known else ""


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
    except (IsADirectoryError, FileNotFoundError) as exc:  # a folder where a file is read, a missing input: usage
        fail(str(exc) if isinstance(exc, SitemapkitError) else f"{exc.filename}: {exc.strerror or exc}", EXIT_USAGE)
    except SitemapkitError as exc:
        fail(str(exc), EXIT_FAILURE)
    except (Interrupted, KeyboardInterrupt):
        _interrupt_exit()
    except OSError as exc:
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        fail(f"{exc.strerror or exc}{where}", EXIT_FAILURE)


def _interrupt_exit() -> NoReturn:
    """One line, exit 130; no wait for anything still running (a worker thread blocked on a slow server)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        click.echo("sitemapkit: interrupted", err=True)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(EXIT_INTERRUPTED)


def renamed_option(old: str, new: str) -> Callable[[Any], Any]:
    """A hidden ``old`` option that refuses to run: ``old`` was renamed ``new`` (exit status 2). Options are renamed
    so that one name has one meaning across commands; click's own "no such option" rarely guesses the new name."""

    def refuse(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        if value:
            raise click.UsageError(f"{old} was renamed {new} (see --help)", ctx)

    return click.option(old, f"renamed_{old.lstrip('-').replace('-', '_')}", hidden=True, expose_value=False,
                        multiple=True, callback=refuse)
