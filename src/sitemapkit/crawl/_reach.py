"""Why a crawl's start URL could not be crawled, in one line a user can act on.

A start URL that cannot be fetched makes the whole crawl pointless: the crawl ends with the cause ("cannot
connect to 127.0.0.1:9 (connection refused)", "cannot resolve cafe.example (DNS: Name or service not known)",
"the start URL ... answered HTTP 404") instead of an empty sitemap. When the fetch failed on the network, the
host is probed once more (name lookup, TCP connect, TLS handshake) to name the step that fails.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from urllib.parse import urlsplit

from sitemapkit.core import FetchError
from sitemapkit.crawl._decide import Reason
from sitemapkit.crawl._state import CrawlState, UrlRow

__all__ = ["StartUrlError", "describe_network_failure", "start_failure"]


class StartUrlError(FetchError):
    """The crawl's start URL could not be crawled (unreachable host, HTTP error, robots.txt): nothing to publish."""


def _row(state: CrawlState, url: str) -> UrlRow | None:
    return next(state.rows("url = ?", (url,)), None)


async def start_failure(state: CrawlState, start_url: str, *, connect_timeout: float = 10.0) -> str | None:
    """Why the start URL of the crawl in ``state`` was not crawled, or None when it was (its page was fetched,
    whether or not it is indexable). A redirected start URL is judged by its final target."""
    row = _row(state, start_url)
    if row is not None and row.reason == Reason.REDIRECT.value and row.final_url:
        row = _row(state, row.final_url) or row
    if row is None:
        return None
    if row.status is None and row.error:
        if "cannot connect" in row.error:
            return await describe_network_failure(row.url, row.error, connect_timeout=connect_timeout)
        return f"cannot fetch the start URL {row.url}: {row.error}"
    if row.status is not None and row.status >= 400:
        return f"the start URL {row.url} answered HTTP {row.status}"
    if row.reason == Reason.ROBOTS.value:
        return (f"robots.txt rules out the start URL {row.url} ({row.detail}); --ignore-robots crawls it "
                "anyway")
    return None


async def describe_network_failure(url: str, error: str, *, connect_timeout: float = 10.0) -> str:
    """The step that fails to reach ``url``'s host: name lookup, TCP connect or TLS handshake. ``error`` (what the
    HTTP client said) is the answer when every step works now."""
    p = urlsplit(url)
    host = p.hostname or ""
    port = p.port or (443 if p.scheme == "https" else 80)
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    loop = asyncio.get_running_loop()
    try:
        await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), connect_timeout)
    except socket.gaierror as exc:
        return f"cannot resolve {host} (DNS: {exc.strerror or exc})"
    except TimeoutError:
        return f"cannot resolve {host} (DNS: no answer within {connect_timeout:g} s)"
    context = ssl.create_default_context() if p.scheme == "https" else None
    try:
        connecting = asyncio.open_connection(host, port, ssl=context, server_hostname=host if context else None)
        _, writer = await asyncio.wait_for(connecting, connect_timeout)
    except ConnectionRefusedError:
        return f"cannot connect to {where} (connection refused)"
    except ssl.SSLCertVerificationError as exc:
        return f"TLS handshake with {where} failed (certificate: {exc.verify_message or exc.reason})"
    except ssl.SSLError as exc:
        return f"TLS handshake with {where} failed ({exc.reason or exc})"
    except TimeoutError:
        return f"cannot connect to {where} (no answer within {connect_timeout:g} s)"
    except OSError as exc:
        return f"cannot connect to {where} ({exc.strerror or exc})"
    writer.close()
    try:
        await writer.wait_closed()
    except (OSError, ssl.SSLError):
        pass
    return f"cannot fetch {url}: {error}"
