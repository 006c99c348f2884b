"""Per-host rules of a crawl: robots.txt (fetched once per origin, shared by the workers that need it at the same
time) and the politeness gate (``--delay``, or robots.txt ``Crawl-delay`` when larger).

RFC 9309: a robots.txt answering 4xx means no rules; one that cannot be read (5xx, network error) means the host
is disallowed. The network error is kept (:attr:`HostRules.fetch_error`) so the crawl can say why a start URL
could not be reached instead of calling it a robots exclusion.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import urlsplit

from sitemapkit.core import FetchError
from sitemapkit.crawl._options import CrawlOptions
from sitemapkit.fetch import HttpClient, RobotsTxt

__all__ = ["HostRules", "HostTable", "origin_of"]

#: Byte budget for one robots.txt (Google reads the first 500 KiB).
ROBOTS_MAX_BYTES = 512 * 1024


# The origin of a plain URL, as urlsplit would read it (it lowers the scheme, strips and drops tabs and newlines, and
# checks brackets and non-ASCII hosts: none of those here).
_PLAIN_ORIGIN = re.compile(r"https?://[^/?#\[\]\t\r\n]*+(?=[/?#]|\Z)")


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``."""
    if url.isascii() and "\t" not in url and "\n" not in url and "\r" not in url:
        m = _PLAIN_ORIGIN.match(url)
        if m is not None:
            return m.group()
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


class HostRules:
    """robots.txt rules and the politeness gate of one host."""

    __slots__ = ("delay", "fetch_error", "lock", "next_at", "robots", "unreachable")

    def __init__(self, robots: RobotsTxt | None, delay: float, unreachable: str | None,
                 fetch_error: FetchError | None = None) -> None:
        self.robots = robots
        self.delay = delay
        self.unreachable = unreachable  # robots.txt could not be read (5xx / network): RFC 9309 says disallow
        self.fetch_error = fetch_error  # the network error, when that is why
        self.lock = asyncio.Lock()
        self.next_at = 0.0


class HostTable:
    """The :class:`HostRules` of every origin the crawl meets, loaded on first use."""

    def __init__(self, client: HttpClient, options: CrawlOptions) -> None:
        self.client = client
        self.options = options
        self._hosts: dict[str, HostRules] = {}
        self._loading: dict[str, asyncio.Future[HostRules]] = {}

    async def rules(self, url: str) -> HostRules:
        origin = origin_of(url)
        rules = self._hosts.get(origin)
        if rules is not None:
            return rules
        pending = self._loading.get(origin)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._loading[origin] = pending
            try:
                rules = await self._load(origin)
            except BaseException:
                del self._loading[origin]
                pending.cancel()
                raise
            self._hosts[origin] = rules
            pending.set_result(rules)
            return rules
        return await asyncio.shield(pending)

    async def _load(self, origin: str) -> HostRules:
        o = self.options
        if not o.respect_robots:
            return HostRules(None, o.delay, None)
        try:
            resp = await self.client.get(origin + "/robots.txt", max_bytes=ROBOTS_MAX_BYTES)
        except FetchError as exc:
            return HostRules(None, o.delay, f"robots.txt could not be fetched ({exc.reason})", exc)
        if resp.status >= 500:
            return HostRules(None, o.delay, f"robots.txt answered HTTP {resp.status}")
        if resp.status != 200:
            return HostRules(None, o.delay, None)  # 4xx: no rules, everything allowed (RFC 9309 2.3.1.3)
        robots = RobotsTxt.parse(resp.body, resp.final_url)
        crawl_delay = robots.crawl_delay(o.user_agent)
        delay = max(o.delay, float(crawl_delay or 0.0))
        return HostRules(robots, delay, None)

    def verdict(self, rules: HostRules, url: str) -> str | None:
        """Why robots.txt forbids fetching ``url``, or None."""
        if not self.options.respect_robots:
            return None
        if rules.unreachable:
            return rules.unreachable
        if rules.robots is not None and not rules.robots.can_fetch(url, self.options.user_agent):
            return "disallowed by robots.txt"
        return None

    @staticmethod
    async def polite(rules: HostRules) -> None:
        """Wait for this host's turn (one request per ``delay`` seconds)."""
        if rules.delay <= 0:
            return
        loop = asyncio.get_running_loop()
        async with rules.lock:
            wait = rules.next_at - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            rules.next_at = loop.time() + rules.delay
