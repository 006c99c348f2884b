"""Bare host names (``example.com``, ``www.example.com/shop``, ``127.0.0.1:8000``) turned into URLs the way
HTTPS-first browsers do it: https first, http only when the https connection cannot be made.

Every front end that takes a site's address (``crawl``, ``audit``, ``discover``, ``urls`` and the web app) goes
through :func:`choose_scheme` / :func:`resolve_site_url`; a URL with a scheme is returned untouched, without a
request. The probe is one ``HEAD`` request without redirects: any HTTP answer, an error status included, means
https works (the crawl then reports that status as it would for a typed URL); a failure to connect, a TLS
handshake that fails (a plain-HTTP server on that port) or no answer in time means it does not, and http is
tried. When neither answers, the https URL is kept, so the command fails with the https error.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitemapkit.core import bare_host_url, run_isolated
from sitemapkit.fetch._agent import DEFAULT_USER_AGENT
from sitemapkit.fetch._transports import AiohttpTransport, Timeouts, Transport, TransportError, TransportRequest

__all__ = ["ChosenUrl", "choose_scheme", "resolve_site_url"]


@dataclass(frozen=True, slots=True)
class ChosenUrl:
    """The URL to use for what was typed. ``note`` says which scheme was chosen and why (None when ``given``
    already had a scheme: nothing was chosen); ``scheme`` is ``https`` or ``http``."""

    url: str
    given: str
    note: str | None = None

    @property
    def scheme(self) -> str:
        return self.url.partition(":")[0]

    @property
    def chosen(self) -> bool:
        return self.note is not None


async def _connect_problem(transport: Transport, url: str, seconds: float, user_agent: str) -> str | None:
    request = TransportRequest("HEAD", url, {"User-Agent": user_agent, "Accept": "*/*"},
                               Timeouts(connect=seconds, read=seconds, total=2 * seconds))
    try:
        response = await transport.send(request)
    except TransportError as exc:
        return exc.reason
    await response.aclose()
    return None


async def choose_scheme(text: str, *, transport: Transport | None = None, connect_timeout: float = 10.0,
                        user_agent: str = DEFAULT_USER_AGENT) -> ChosenUrl:
    """The URL for ``text``: itself when it is not a bare host; else ``https://text`` when https connects,
    ``http://text`` when only http does (see the module's docstring). ``transport``: tests inject one."""
    https = bare_host_url(text)
    if https is None:
        return ChosenUrl(text, text)
    http = "http://" + https.removeprefix("https://")
    own = transport is None
    t: Transport = transport if transport is not None else AiohttpTransport(max_connections=2)
    try:
        failed = await _connect_problem(t, https, connect_timeout, user_agent)
        if failed is None:
            return ChosenUrl(https, text, f"{text}: using {https} (https answered)")
        http_failed = await _connect_problem(t, http, connect_timeout, user_agent)
    finally:
        if own:
            await t.aclose()
    if http_failed is None:
        return ChosenUrl(http, text, f"{text}: https did not connect ({failed}); using {http}")
    return ChosenUrl(https, text, f"{text}: neither https ({failed}) nor http ({http_failed}) connected; "
                                  f"trying {https}")


def resolve_site_url(text: str, *, connect_timeout: float = 10.0, user_agent: str = DEFAULT_USER_AGENT) -> ChosenUrl:
    """:func:`choose_scheme` from synchronous code (on its own event loop)."""
    return run_isolated(choose_scheme(text, connect_timeout=connect_timeout, user_agent=user_agent))
