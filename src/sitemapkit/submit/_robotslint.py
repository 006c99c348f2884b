"""Checking robots.txt files on disk (``sitemapkit robots --lint FILE...``, the ``sitemapkit-robots`` pre-commit
hook): nothing is fetched.

Each file's ``Sitemap:`` lines are read by the same lenient reader as a fetched robots.txt (``sitemapkit.fetch``):
a relative URL, a misspelled directive, a line without a colon, a bare URL, an empty directive, a duplicate or a URL
that is not http(s) is reported (SM521-SM529, at its line), and a file that lists no sitemap at all (SM542). With
``base_url`` (where the folder holding robots.txt is served, normally the site root), a relative URL is resolved
against it, and each listed sitemap under ``base_url`` must exist in the folder at the path its URL names (SM543):
a robots.txt committed with a sitemap that is not.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from sitemapkit.core import InputError, Location, Problem, Severity, define_code, describe_causes, plural
from sitemapkit.fetch import RobotsTxt
from sitemapkit.submit._robotscheck import SM542

__all__ = ["SM543", "RobotsLint", "lint_robots_file", "lint_robots_files"]

SM543 = define_code("SM543", Severity.ERROR, "sitemap listed in robots.txt is missing from the folder",
                    "Publish the sitemap at the path its URL names next to robots.txt, or fix the Sitemap: line "
                    "(robots --lint with --base-url).", area="submit")
describe_causes({
    "SM543": "With --base-url, a Sitemap: line of the robots.txt file names a URL under that base whose file is "
             "not in the folder beside robots.txt (not built yet, or a typo in the line).",
})

#: What a local file's relative Sitemap: lines are resolved against when no base URL is given (never fetched).
_PLACEHOLDER = "https://robots-txt.invalid/robots.txt"


def _line_of(text: str, url: str, original: str) -> int | None:
    """The line of robots.txt that names ``url`` (or its path, for a relative line), for the location."""
    path = urlsplit(url).path
    for lineno, line in enumerate(text.splitlines(), start=1):
        if url in line or original in line or (path and path != "/" and path in line and "sitemap" in line.lower()):
            return lineno
    return None


def lint_robots_file(path: str | os.PathLike[str], *, base_url: str | None = None) -> list[Problem]:
    """The problems of robots.txt file ``path`` (see the module's docstring), located at ``path:line``. Raises
    :class:`~sitemapkit.InputError` when the file cannot be read."""
    shown = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or exc}") from None
    robots_url = urljoin(base_url, "/robots.txt") if base_url else _PLACEHOLDER
    robots = RobotsTxt.parse(data, robots_url)
    problems = [Problem(p.code, p.severity, p.message.replace(_PLACEHOLDER[: -len("robots.txt")], "/"),
                        Location(shown, p.location.line, p.location.column, p.location.loc))
                for p in robots.problems]
    if not robots.sitemaps and not any(p.code == "SM527" for p in problems):
        problems.append(SM542.problem(Location(shown), "robots.txt lists no sitemap (add 'Sitemap: <absolute URL>')"))
    if base_url:
        problems.extend(_missing(robots, Path(path).parent, base_url, shown))
    return sorted(problems, key=lambda p: (p.location.line or 0, p.code))


@dataclass(frozen=True, slots=True)
class RobotsLint:
    """The problems of several robots.txt files (:func:`lint_robots_files`), by file, in the order given."""

    found: dict[str, list[Problem]]

    @property
    def problems(self) -> list[Problem]:
        return [p for listed in self.found.values() for p in listed]

    def summary(self) -> str:
        """``3 robots.txt files checked: 2 problems in 1 file`` (or ``no problems``)."""
        problems, bad = len(self.problems), sum(1 for listed in self.found.values() if listed)
        return (f"{plural(len(self.found), 'robots.txt file')} checked: "
                + (f"{plural(problems, 'problem')} in {plural(bad, 'file')}" if problems else "no problems"))


def lint_robots_files(paths: Iterable[str], *, base_url: str | None = None) -> RobotsLint:
    """:func:`lint_robots_file` of each path (a path given twice is checked once). Raises
    :class:`~sitemapkit.InputError` at the first file that cannot be read."""
    return RobotsLint({path: lint_robots_file(path, base_url=base_url) for path in paths})


def _missing(robots: RobotsTxt, folder: Path, base_url: str, shown: str) -> list[Problem]:
    base = urlsplit(base_url if base_url.endswith("/") else base_url + "/")
    found: list[Problem] = []
    for url in robots.sitemaps:
        parts = urlsplit(url)
        if (parts.scheme.lower(), parts.netloc.lower()) != (base.scheme.lower(), base.netloc.lower()):
            continue  # another host's sitemap (cross-submission): not in this folder
        if not parts.path.startswith(base.path):
            continue
        rel = unquote(parts.path[len(base.path):])
        target = folder / rel if rel else folder
        if not rel or not target.is_file():
            line = _line_of(robots.text, url, parts.path)
            found.append(SM543.problem(Location(shown, line, loc=url),
                                       f"{url} is listed, but {target} does not exist"))
    return found
