"""Options every command that fetches URLs shares (``discover``, and ``urls`` / ``validate`` given URLs).

Use ``@fetch_options`` on a click command and ``settings_from(kwargs)`` to turn the values into a
:class:`~sitemapkit.fetch._sources.FetchSettings`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from sitemapkit.cli._common import renamed_option
from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, MAX_CONCURRENCY
from sitemapkit.fetch import DEFAULT_USER_AGENT, FetchSettings

_DEFAULTS = FetchSettings()

__all__ = ["FETCH_OPTION_NAMES", "fetch_options", "settings_from"]

F = TypeVar("F", bound=Callable[..., Any])

FETCH_OPTION_NAMES = ("user_agent", "deadline", "retries", "retry_backoff", "max_retry_wait",
                      "stall_timeout", "concurrency", "max_bytes", "max_index_depth",
                      "max_sitemaps", "max_urls", "cache_dir", "probe", "allow_private_addresses")


def fetch_options(func: F) -> F:
    """Add the shared fetching options to a click command."""
    options = [
        click.option("--user-agent", default=DEFAULT_USER_AGENT, show_default=True, help="User-Agent header."),
        click.option("--deadline", type=click.FloatRange(min=0.01), metavar="S", default=300.0, show_default=True,
                     help="Total deadline in seconds for fetching one URL: connecting, reading, redirects, retries "
                          "and the waits between them all count (a retry that cannot finish in time is not "
                          "tried). Within it an attempt also fails after 10 s without a connection or "
                          "--stall-timeout without bytes (or this value when smaller)."),
        click.option("--retries", type=click.IntRange(min=0), metavar="N", default=3, show_default=True,
                     help="Retries on 408/429/5xx and connection errors (exponential backoff, Retry-After honoured)."),
        click.option("--retry-backoff", type=click.FloatRange(min=0), metavar="S", default=0.5, show_default=True,
                     help="Seconds before the first retry; doubles each time, with jitter."),
        click.option("--max-retry-wait", type=click.FloatRange(min=0), metavar="S", default=60.0, show_default=True,
                     help="Longest wait before a retry, Retry-After included."),
        click.option("--stall-timeout", type=click.FloatRange(min=0.01), metavar="S", default=_DEFAULTS.stall_timeout,
                     show_default=True,
                     help="A response that sends no bytes for this long has stalled: it fails (a body already "
                          "being read is not tried again, its siblings go on)."),
        click.option("--concurrency", type=click.IntRange(1, MAX_CONCURRENCY), metavar="N", default=8,
                     show_default=True, help=f"Sitemaps fetched at the same time (at most {MAX_CONCURRENCY}; at "
                                             "most 4 connections per host)."),
        click.option("--max-bytes", type=click.IntRange(min=1), metavar="N", default=DEFAULT_MAX_DECOMPRESSED_BYTES,
                     show_default=True, help="Byte budget per document: download and decompression together."),
        click.option("--max-index-depth", type=click.IntRange(min=0), metavar="N", default=5, show_default=True,
                     help="Index levels followed below a starting sitemap."),
        click.option("--max-sitemaps", type=click.IntRange(min=1), metavar="N", default=10_000, show_default=True,
                     help="Sitemaps fetched at most."),
        click.option("--max-urls", type=click.IntRange(min=1), metavar="N", default=None,
                     help="Stop after this many URLs (default: no limit)."),
        click.option("--cache-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
                     help="Directory for an ETag / If-Modified-Since cache (conditional requests)."),
        click.option("--probe", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
                     help="Try well-known sitemap paths and <link rel=\"sitemap\">: when robots.txt names none "
                          "(auto), always, or never."),
        click.option("--allow-private-addresses", is_flag=True,
                     help="Let child sitemaps, robots.txt Sitemap: lines and redirects reach loopback, private, "
                          "link-local and other special addresses (refused by default, except the class of the "
                          "starting URL's own address: a guard against server-side request forgery)."),
        renamed_option("--timeout", "--deadline"),
        renamed_option("--max-depth", "--max-index-depth"),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def settings_from(values: dict[str, Any]) -> FetchSettings:
    """Build :class:`FetchSettings` from the values of :func:`fetch_options` (other keys are ignored)."""
    return FetchSettings(
        user_agent=values["user_agent"],
        timeout=values["deadline"],
        retries=values["retries"],
        backoff=values["retry_backoff"],
        retry_after_max=values["max_retry_wait"],
        stall_timeout=values.get("stall_timeout", _DEFAULTS.stall_timeout),
        concurrency=values["concurrency"],
        max_bytes=values["max_bytes"],
        max_depth=values["max_index_depth"],
        max_sitemaps=values["max_sitemaps"],
        max_urls=values["max_urls"],
        cache_dir=values["cache_dir"],
        probe=values["probe"],
        allow_private_addresses=bool(values.get("allow_private_addresses", False)),
    )
