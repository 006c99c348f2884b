"""The ``--submit-state`` options of the commands that publish a sitemap set (generate, crawl, harvest), and the
submission after publishing. Kept apart from ``_submit`` (the ``submit`` command) so that these commands load the
submit capability (HTTP client, validator...) only when ``--submit-state`` is given."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sitemapkit.cli._common import print_problem
from sitemapkit.core import INDEXNOW_ENDPOINT, InvalidValueError, escape_controls

if TYPE_CHECKING:
    from sitemapkit.submit import SubmitResult
    from sitemapkit.write import Manifest

__all__ = ["check_submit_options", "submit_after_publish", "submit_options"]

F = TypeVar("F", bound=Callable[..., Any])


def submit_options(func: F) -> F:
    """``--submit-state FILE --key KEY`` (and ``--submit-endpoint``) for commands that publish a sitemap set."""
    options = [
        click.option("--submit-state", metavar="FILE", type=click.Path(dir_okay=False), default=None,
                     help="After publishing, submit the URLs added, changed or removed since the last run to "
                          "IndexNow (needs --key); FILE remembers what was submitted. Nothing is sent without it."),
        click.option("--key", "submit_key", metavar="KEY", default=None,
                     help="IndexNow key for --submit-state (its key file must be served at https://HOST/KEY.txt)."),
        click.option("--submit-endpoint", metavar="URL", default=INDEXNOW_ENDPOINT, show_default=True,
                     help="IndexNow endpoint for --submit-state."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def check_submit_options(submit_state: str | None, submit_key: str | None) -> None:
    """Usage errors for the pair, before any work starts."""
    if (submit_state is None) != (submit_key is None):
        raise click.UsageError("--submit-state and --key go together: give both or neither")
    if submit_key is not None:
        from sitemapkit.submit import check_key

        try:
            check_key(submit_key)
        except InvalidValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--key") from None


def submit_after_publish(manifest: Manifest, submit_state: str | None, submit_key: str | None,
                         submit_endpoint: str = INDEXNOW_ENDPOINT) -> bool:
    """Submit the changes of a published set when ``--submit-state`` was given; one line per request on
    standard error (standard output holds the command's summary). True when nothing failed."""
    if submit_state is None or submit_key is None:
        return True
    from sitemapkit.submit import SubmitOptions, submit_published

    options = SubmitOptions(key=submit_key, state=submit_state, endpoint=submit_endpoint)

    def on_result(result: SubmitResult) -> None:
        click.echo(escape_controls(f"sitemapkit: submit: {result.line()}"), err=True)

    report = submit_published(manifest, options, on_result=on_result, on_problem=print_problem)
    counts = report.counts_line()
    if counts is not None:
        click.echo(f"sitemapkit: submit: {counts}", err=True)
    return report.ok
