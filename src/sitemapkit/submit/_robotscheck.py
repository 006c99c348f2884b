"""Checking a live robots.txt for its sitemaps.

:func:`check_robots` fetches a site's robots.txt and reports which sitemaps it lists, and for each whether it is
reachable (status), really a sitemap (by its bytes, not its name or Content-Type) and allowed by the robots.txt
rules of its own host; the ``Sitemap:`` lines that are relative, misspelled or malformed (the lenient reader's
warnings, SM521-SM529); and the sitemaps that :func:`~sitemapkit.fetch.discover` finds (well-known paths,
``<link rel="sitemap">``) that robots.txt does not list.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sitemapkit.core import (
    FetchError,
    Location,
    Problem,
    Severity,
    define_code,
    describe_causes,
    escape_controls,
    plural,
    problem_line,
)
from sitemapkit.fetch import (
    SM501,
    SM502,
    SM505,
    FetchSettings,
    HttpClient,
    RobotsTxt,
    discover,
    fetch_robots,
    is_sitemap_body,
    robots_url_for,
    url_key,
)
from sitemapkit.read import sniff

__all__ = ["SM540", "SM541", "SM542", "ListedSitemap", "RobotsCheck", "check_robots", "check_site"]

_AREA = "submit"

SM540 = define_code("SM540", Severity.ERROR, "sitemap disallowed by robots.txt",
                    "Allow the sitemap's URL in robots.txt: crawlers that obey the rules cannot fetch it.",
                    area=_AREA)
SM541 = define_code("SM541", Severity.WARNING, "sitemap not listed in robots.txt",
                    "Announce it in robots.txt with 'Sitemap: <absolute URL>' (sitemapkit robots --add).",
                    area=_AREA)
SM542 = define_code("SM542", Severity.WARNING, "robots.txt lists no sitemap",
                    "Add 'Sitemap: <absolute URL>' lines to robots.txt (sitemapkit robots --add).", area=_AREA)
describe_causes({
    "SM540": "A Disallow rule of robots.txt (for sitemapkit's group or *) matches the sitemap's own URL.",
    "SM541": "The sitemap exists but robots.txt does not name it in a Sitemap: line.",
    "SM542": "robots.txt answers but holds no Sitemap: line.",
})

_SNIFF_BYTES = 262_144


@dataclass(frozen=True, slots=True)
class ListedSitemap:
    """One sitemap robots.txt lists: its HTTP ``status`` (None: no response), ``final_url`` after redirects,
    the document ``kind`` by its bytes, whether it is ``reachable`` (2xx), ``is_sitemap``, ``allowed`` by the
    robots.txt rules of its host, and the ``problems`` found."""

    url: str
    status: int | None
    final_url: str | None
    kind: str | None
    reachable: bool
    is_sitemap: bool
    allowed: bool
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return self.reachable and self.is_sitemap and self.allowed

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "status": self.status, "final_url": self.final_url, "kind": self.kind,
                "reachable": self.reachable, "is_sitemap": self.is_sitemap, "allowed": self.allowed,
                "problems": [p.to_dict() for p in self.problems]}


@dataclass(frozen=True, slots=True)
class RobotsCheck:
    """The report of :func:`check_robots`. ``problems`` holds every problem (robots.txt's own lines, each
    sitemap's, the unlisted ones), ``unlisted`` the sitemaps found elsewhere that robots.txt does not list."""

    site: str
    robots_url: str
    robots_status: int | None
    user_agent: str
    sitemaps: tuple[ListedSitemap, ...]
    unlisted: tuple[str, ...]
    problems: tuple[Problem, ...] = field(default=())

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.is_error)

    def format(self) -> str:
        """The text report of ``robots --check``: robots.txt's status, each listed sitemap (ok or PROBLEM, status,
        kind, allowed) with its problems, robots.txt's own lines' problems, the unlisted sitemaps, the counts."""
        out = [f"robots.txt: {self.robots_url} {'no response' if self.robots_status is None else self.robots_status}, "
               f"{plural(len(self.sitemaps), 'sitemap')} listed"]
        for item in self.sitemaps:
            state, status = "ok" if item.ok else "PROBLEM", "no response" if item.status is None else str(item.status)
            allowed = "allowed" if item.allowed else "disallowed"
            out.append(f"  {state:8}{escape_controls(item.url)}  {status}  {item.kind or '-'}  {allowed}")
            out.extend(f"          {problem_line(p)}" for p in item.problems)
        own = [p for p in self.problems if p.code.startswith("SM52") or p.code == "SM542"]
        if own:
            out.append("robots.txt lines:")
            out.extend(f"  {problem_line(p)}" for p in own)
        if self.unlisted:
            out.append("found but not listed in robots.txt:")
            out.extend(f"  {escape_controls(u)}" for u in self.unlisted)
        warnings = sum(1 for p in self.problems if not p.is_error)
        out.append(f"{plural(self.errors, 'error')}, {plural(warnings, 'warning')}")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "robots": {"url": self.robots_url, "status": self.robots_status},
            "user_agent": self.user_agent,
            "sitemaps": [s.to_dict() for s in self.sitemaps],
            "unlisted": list(self.unlisted),
            "problems": [p.to_dict() for p in self.problems],
            "errors": self.errors,
        }


async def _rules_for(url: str, client: HttpClient, cache: dict[str, RobotsTxt]) -> RobotsTxt:
    key = robots_url_for(url)
    if key not in cache:
        cache[key] = (await fetch_robots(client, url))[0]
    return cache[key]


async def _check_one(url: str, client: HttpClient, user_agent: str, max_bytes: int | None,
                     rules: dict[str, RobotsTxt]) -> ListedSitemap:
    robots = await _rules_for(url, client, rules)
    allowed = robots.can_fetch(url, user_agent)
    problems: list[Problem] = []
    if not allowed:
        problems.append(SM540.problem(Location(url), f"{robots.url} disallows {url} for user agent {user_agent!r}"))
    try:
        resp = await client.get(url, max_bytes=max_bytes, truncate=True)
    except FetchError as exc:
        problems.append(SM501.problem(Location(url), f"could not be fetched: {exc.reason}"))
        return ListedSitemap(url, None, None, None, False, False, allowed, tuple(problems))
    kind: str | None = None
    if resp.ok and resp.body:
        try:
            kind = sniff(resp.body[:_SNIFF_BYTES]).kind.kind.value
        except Exception:  # a sniffing failure means "not recognised", never a crash
            kind = "unknown"
    is_sitemap = is_sitemap_body(resp)
    if not resp.ok:
        problems.append(SM502.problem(Location(url), f"HTTP status {resp.status}"))
    elif not is_sitemap:
        what = "an empty body" if not resp.body else f"a document of kind {kind}"
        problems.append(SM505.problem(Location(url), f"not a sitemap: {what}"))
    return ListedSitemap(url, resp.status, resp.final_url, kind, resp.ok, is_sitemap, allowed, tuple(problems))


async def check_robots(site: str, *, client: HttpClient, user_agent: str = "*",
                       max_bytes: int | None = None) -> RobotsCheck:
    """Check the robots.txt of ``site`` (any URL of the site) and the sitemaps it lists; see the module
    docstring. Rules are matched for ``user_agent``."""
    robots, status = await fetch_robots(client, site)
    rules = {robots_url_for(site): robots}
    problems: list[Problem] = list(robots.problems)
    listed = [await _check_one(url, client, user_agent, max_bytes, rules) for url in robots.sitemaps]
    for item in listed:
        problems.extend(item.problems)
    if status is not None and not robots.sitemaps:
        problems.append(SM542.problem(Location(robots.url)))
    found = await discover(site, client=client, probe="always", max_bytes=max_bytes)
    keys = {url_key(u) for u in robots.sitemaps}
    keys |= {url_key(item.final_url) for item in listed if item.final_url}
    unlisted: list[str] = []
    for seed in found.seeds:
        if url_key(seed.url) in keys:
            continue
        keys.add(url_key(seed.url))
        unlisted.append(seed.url)
        problems.append(SM541.problem(Location(seed.url), f"{seed.url} (found via {seed.found_via.value}) is not "
                                                          f"listed in {robots.url}"))
    return RobotsCheck(site, robots.url, status, user_agent, tuple(listed), tuple(unlisted), tuple(problems))


def check_site(site: str, *, settings: FetchSettings | None = None, user_agent: str = "*") -> RobotsCheck:
    """:func:`check_robots` from synchronous code, with a client built from ``settings``."""
    cfg = settings or FetchSettings()

    async def run() -> RobotsCheck:
        client = cfg.client([site])
        try:
            return await check_robots(site, client=client, user_agent=user_agent, max_bytes=cfg.max_bytes)
        finally:
            await client.aclose()

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(run())
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
