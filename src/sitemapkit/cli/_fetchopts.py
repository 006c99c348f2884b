"""Options every command that fetches URLs shares (``discover``, and ``urls`` / ``validate`` given URLs), built from
the fetch layer's table (:data:`sitemapkit.fetch.FETCH_OPTION_SPECS`), and :func:`click_option`, the click option
of any :class:`~sitemapkit.core.OptionSpec` (the crawl options are made with it too).

Use ``@fetch_options`` on a click command and ``settings_from(kwargs)`` to turn the values into a
:class:`~sitemapkit.fetch.FetchSettings`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from sitemapkit.cli._common import renamed_option
from sitemapkit.core import OptionSpec
from sitemapkit.fetch import FETCH_OPTION_SPECS, FetchSettings, fetch_settings_from

__all__ = ["click_option", "fetch_options", "settings_from"]

F = TypeVar("F", bound=Callable[..., Any])


def click_option(spec: OptionSpec) -> Callable[[F], F]:
    """The click option of one spec."""
    common: dict[str, Any] = {"help": spec.help}
    if spec.kind == "flag":
        return click.option(spec.flag, spec.name, is_flag=True, **common)
    if spec.kind in ("patterns", "names", "rules"):
        return click.option(spec.flag, spec.name, multiple=True, metavar=spec.metavar, **common)
    kind: click.ParamType[Any]
    if spec.kind == "int":
        kind = click.IntRange(None if spec.low is None else int(spec.low),
                              None if spec.high is None else int(spec.high))
    elif spec.kind == "float":
        kind = click.FloatRange(spec.low, spec.high)
    elif spec.kind == "choice":
        kind = click.Choice(spec.choices)
    elif spec.kind == "dir":
        kind = click.Path(file_okay=False)
    else:
        kind = click.STRING
    return click.option(spec.flag, spec.name, type=kind, default=spec.default, metavar=spec.metavar,
                        show_default=spec.default is not None, **common)


def fetch_options(func: F) -> F:
    """Add the shared fetching options to a click command (each value its own keyword argument)."""
    decorated: Callable[..., Any] = renamed_option("--timeout", "--deadline")(
        renamed_option("--max-depth", "--max-index-depth")(func))
    for spec in reversed(FETCH_OPTION_SPECS):
        decorated = click_option(spec)(decorated)
    return decorated  # type: ignore[return-value]


def settings_from(values: dict[str, Any]) -> FetchSettings:
    """Build :class:`FetchSettings` from the values of :func:`fetch_options` (other keys are ignored)."""
    return fetch_settings_from(values)
