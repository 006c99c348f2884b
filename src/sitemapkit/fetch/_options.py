"""The fetch options every command that fetches sitemaps shows (``discover``, ``urls``, ``validate``'s URL
sources, ``diff``, ``robots --check``, ``submit``, ``harvest``): one table of :class:`~sitemapkit.core.OptionSpec`
(name, default, bounds, help), and the :class:`FetchSettings` their values make."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, MAX_CONCURRENCY, OptionSpec
from sitemapkit.fetch._agent import DEFAULT_USER_AGENT
from sitemapkit.fetch._sources import FetchSettings

__all__ = ["FETCH_OPTION_SPECS", "fetch_settings_from"]

_DEFAULTS = FetchSettings()

#: The fetch options, in the order the help lists them.
FETCH_OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("user_agent", "text", DEFAULT_USER_AGENT, "User-Agent header."),
    OptionSpec("deadline", "float", 300.0,
               "Total deadline in seconds for fetching one URL: connecting, reading, redirects, retries and the "
               "waits between them all count (a retry that cannot finish in time is not tried). Within it an "
               "attempt also fails after 10 s without a connection or --stall-timeout without bytes (or this value "
               "when smaller).", "S", low=0.01),
    OptionSpec("retries", "int", 3, "Retries on 408/429/5xx and connection errors (exponential backoff, Retry-After "
               "honoured).", "N", low=0),
    OptionSpec("retry_backoff", "float", 0.5, "Seconds before the first retry; doubles each time, with jitter.", "S",
               low=0),
    OptionSpec("max_retry_wait", "float", 60.0, "Longest wait before a retry, Retry-After included.", "S", low=0),
    OptionSpec("stall_timeout", "float", _DEFAULTS.stall_timeout,
               "A response that sends no bytes for this long has stalled: it fails (a body already being read is "
               "not tried again, its siblings go on).", "S", low=0.01),
    OptionSpec("concurrency", "int", 8, f"Sitemaps fetched at the same time (at most {MAX_CONCURRENCY}; at most 4 "
               "connections per host).", "N", low=1, high=MAX_CONCURRENCY),
    OptionSpec("max_bytes", "int", DEFAULT_MAX_DECOMPRESSED_BYTES,
               "Byte budget per document: download and decompression together.", "N", low=1),
    OptionSpec("max_index_depth", "int", 5, "Index levels followed below a starting sitemap.", "N", low=0),
    OptionSpec("max_sitemaps", "int", 10_000, "Sitemaps fetched at most.", "N", low=1),
    OptionSpec("max_urls", "int", None, "Stop after this many URLs (default: no limit).", "N", low=1),
    OptionSpec("cache_dir", "dir", None, "Directory for an ETag / If-Modified-Since cache (conditional requests).",
               "DIR"),
    OptionSpec("probe", "choice", "auto", "Try well-known sitemap paths and <link rel=\"sitemap\">: when robots.txt "
               "names none (auto), always, or never.", choices=("auto", "always", "never")),
    OptionSpec("allow_private_addresses", "flag", False,
               "Let child sitemaps, robots.txt Sitemap: lines and redirects reach loopback, private, link-local and "
               "other special addresses (refused by default, except the class of the starting URL's own address: a "
               "guard against server-side request forgery)."),
)


def fetch_settings_from(values: Mapping[str, Any]) -> FetchSettings:
    """:class:`FetchSettings` from the values of :data:`FETCH_OPTION_SPECS`, by name (other keys are ignored; a
    missing one takes its default)."""
    v = {spec.name: values.get(spec.name, spec.default) for spec in FETCH_OPTION_SPECS}
    return FetchSettings(
        user_agent=v["user_agent"], timeout=v["deadline"], retries=v["retries"], backoff=v["retry_backoff"],
        retry_after_max=v["max_retry_wait"], stall_timeout=v["stall_timeout"], concurrency=v["concurrency"],
        max_bytes=v["max_bytes"], max_depth=v["max_index_depth"], max_sitemaps=v["max_sitemaps"],
        max_urls=v["max_urls"], cache_dir=v["cache_dir"], probe=v["probe"],
        allow_private_addresses=bool(v["allow_private_addresses"]),
    )
