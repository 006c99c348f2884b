"""Click options made from the library's option tables (:class:`~sitemapkit.core.OptionSpec`): the fetch options
(``sitemapkit.fetch.FETCH_OPTION_SPECS``), the crawl options (``sitemapkit.crawl.CRAWL_OPTION_SPECS``) and the
changefreq / priority options (:data:`~sitemapkit.core.HINT_OPTION_SPECS`). Each table is declared once, in its
layer; this module only turns a spec into a click option."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from sitemapkit.core import HINT_OPTION_SPECS, OptionSpec

__all__ = ["click_option", "hint_options", "spec_options"]

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


def spec_options(specs: Iterable[OptionSpec], func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` with the click option of each spec, listed in the specs' order (each value its own keyword)."""
    for spec in reversed(tuple(specs)):
        func = click_option(spec)(func)
    return func


def hint_options(func: F) -> F:
    """``--changefreq``, ``--priority`` and ``--rule`` (as ``crawl`` and the web app take them)."""
    return spec_options(HINT_OPTION_SPECS, func)  # type: ignore[return-value]
