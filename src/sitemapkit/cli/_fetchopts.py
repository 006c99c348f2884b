"""Options every command that fetches URLs shares (``discover``, and ``urls`` / ``validate`` given URLs), built from
the fetch layer's table (:data:`sitemapkit.fetch.FETCH_OPTION_SPECS`).

Use ``@fetch_options`` on a click command and ``settings_from(kwargs)`` to turn the values into a
:class:`~sitemapkit.fetch.FetchSettings`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sitemapkit.cli._common import renamed_option
from sitemapkit.cli._specs import spec_options
from sitemapkit.fetch import FETCH_OPTION_SPECS, FetchSettings, fetch_settings_from

__all__ = ["fetch_options", "settings_from"]

F = TypeVar("F", bound=Callable[..., Any])


def fetch_options(func: F) -> F:
    """Add the shared fetching options to a click command (each value its own keyword argument)."""
    decorated: Callable[..., Any] = renamed_option("--timeout", "--deadline")(
        renamed_option("--max-depth", "--max-index-depth")(func))
    return spec_options(FETCH_OPTION_SPECS, decorated)  # type: ignore[return-value]


def settings_from(values: dict[str, Any]) -> FetchSettings:
    """Build :class:`FetchSettings` from the values of :func:`fetch_options` (other keys are ignored)."""
    return fetch_settings_from(values)
