"""Generating from a built static-site folder: the pages the folder itself keeps out of search are left out, and
(with ``--state``) lastmod moves only when a page's content does.

The write layer walks the folder (``write/_inputs.py``: HTML files in order, ``index.html`` for its directory,
lastmod from the file's modification time); each page is then judged here, where HTML extraction
(``sitemapkit.crawl``) and robots.txt rules (``sitemapkit.fetch``) may be used, the way ``crawl`` judges a page:

* ``robots``: the folder's ``robots.txt`` disallows the URL for sitemapkit (its own group, else ``*``). It is
  read only when ``--base-url`` is a site root: robots.txt counts only at ``/robots.txt``.
* ``noindex``: ``<meta name="robots">`` (or ``googlebot``) says ``noindex`` or ``none``.
* ``canonical``: ``<link rel="canonical">`` names another URL. A canonical naming the same file in another
  spelling (``/about`` for ``about.html``, ``/a/index.html`` for ``/a/``) is no exclusion: the page is listed
  under its canonical URL.

Excluded pages are counted per reason (:meth:`SiteRun.summary`), and each is handed to the run's ``on_excluded``
callback as an :class:`Exclusion` (the command line prints the first :data:`SHOWN` of each reason).

Honest lastmod (``--state FILE``, see ``crawl/_fingerprint.py``): a JSON file keeps
each URL's content fingerprint and lastmod. A page seen for the first time gets its file's modification time; an
unchanged page keeps its recorded lastmod however often it is rebuilt (touched); a changed page gets its file's
modification time (or the run's time when that is not later than the recorded lastmod). Without ``--state``
lastmod is the file's modification time, as before.

Lastmod from git (``--lastmod git``, ``generator/_gitdates.py``): a page's lastmod is the committer date of the
last commit that touched its file, read for the whole folder in one pass. A file git cannot date (never
committed, changed since its last commit, a folder outside a repository) falls back to what the run does
without git (the ``--state`` fingerprint, else the modification time); each fallback is counted per reason and
the first :data:`SHOWN` of each are handed to ``on_note``. A shallow clone is named in :meth:`SiteRun.lastmod_report`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from sitemapkit.core import (
    ConfigurationError,
    InputError,
    LastMod,
    Location,
    Problem,
    StoreError,
    UrlEntry,
    atomic_text,
)
from sitemapkit.generator._gitdates import GitDates, read_git_dates
from sitemapkit.write import SM610, InputItem, iter_input

if TYPE_CHECKING:
    from sitemapkit.crawl import Reason, UrlNormalizer
    from sitemapkit.fetch import RobotsTxt

# The crawler's HTML extraction and fetch's robots.txt are imported where a site folder is read: generate on a URL
# list starts without them (and without aiohttp, which importing those packages loads).

__all__ = ["LASTMOD_SOURCES", "SHOWN", "Exclusion", "SiteRun", "SiteState", "iter_static_site"]

#: Where a site page's lastmod comes from: the file's modification time (the default) or its git history.
LASTMOD_SOURCES = ("mtime", "git")

#: Excluded pages listed per reason before the rest are only counted.
SHOWN = 20
_STATE_FORMAT = "sitemapkit-generate-state"
_STATE_VERSION = 1


class SiteState:
    """The ``--state`` file of ``generate``: per URL the content fingerprint and lastmod of earlier runs. Entries
    of URLs not seen in a run are kept (a run over part of a site loses nothing). Saved atomically."""

    def __init__(self, path: Path, pages: dict[str, tuple[str | None, str | None]]) -> None:
        self.path = path
        self.pages = pages
        self.changed: list[str] = []  # URLs whose content is new or changed in this run, in input order

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SiteState:
        """Read FILE, or start empty when it does not exist. Raises :class:`ConfigurationError` (a usage error)
        naming the file when it is not a state file of this command."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            if not p.parent.is_dir():
                raise ConfigurationError(f"--state {p}: the directory {p.parent} does not exist") from None
            return cls(p, {})
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"--state {p}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigurationError(f"--state {p}: not a generate state file (not JSON: {exc})") from None
        if not isinstance(data, dict) or data.get("format") != _STATE_FORMAT or not isinstance(data.get("pages"),
                                                                                              dict):
            raise ConfigurationError(f"--state {p}: not a generate state file (give generate its own file; crawl and "
                             "submit keep theirs)")
        if data.get("version") != _STATE_VERSION:
            raise ConfigurationError(f"--state {p}: state version {data.get('version')!r}, this version reads "
                             f"{_STATE_VERSION}; use another --state file")
        pages: dict[str, tuple[str | None, str | None]] = {}
        for url, value in data["pages"].items():
            if isinstance(value, dict):
                fp, lastmod = value.get("fingerprint"), value.get("lastmod")
                pages[str(url)] = (fp if isinstance(fp, str) else None, lastmod if isinstance(lastmod, str) else None)
        return cls(p, pages)

    def lastmod(self, url: str, fingerprint: str, stated: str | None, observed: str) -> str | None:
        """The page's honest lastmod; records the page for :meth:`save`."""
        from sitemapkit.crawl import honest_lastmod

        previous = self.pages.get(url)
        lastmod = honest_lastmod(fingerprint, previous, stated, observed)
        if previous is None or previous[0] != fingerprint:
            self.changed.append(url)
        self.pages[url] = (fingerprint, lastmod)
        return lastmod

    def record(self, url: str, fingerprint: str, lastmod: str) -> str:
        """Keep ``lastmod`` (dated by git) for the page, with its fingerprint, for :meth:`save`."""
        previous = self.pages.get(url)
        if previous is None or previous[0] != fingerprint:
            self.changed.append(url)
        self.pages[url] = (fingerprint, lastmod)
        return lastmod

    def save(self) -> None:
        data = {"format": _STATE_FORMAT, "version": _STATE_VERSION,
                "pages": {url: {"fingerprint": fp, "lastmod": lm} for url, (fp, lm) in sorted(self.pages.items())}}
        try:
            with atomic_text(self.path, shareable=False) as fh:
                json.dump(data, fh, ensure_ascii=False, indent=0)
                fh.write("\n")
        except OSError as exc:  # a full disk: the previous state file is left as it was
            raise StoreError(f"--state {self.path}: cannot write the generate state file: {exc.strerror or exc}; "
                             "the previous one is unchanged", path=str(self.path)) from None


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A page of a site folder left out of the sitemap: its file, its URL, the reason (``robots``, ``noindex``,
    ``canonical``) and what said so. ``number`` counts the exclusions of that reason so far (from 1)."""

    path: str
    url: str
    reason: str
    detail: str
    number: int

    def __str__(self) -> str:
        return f"excluded {self.path} ({self.url}): {self.reason}, {self.detail}"


class SiteRun:
    """What one generate run needs across its site folders: the optional state, the exclusions (each handed to
    ``on_excluded``), the notes (``on_note``: something about the input that is neither a page nor an error) and,
    with ``titles``, each page's ``<title>`` by URL (the HTML sitemap's link texts)."""

    def __init__(self, state: SiteState | None = None, *, on_excluded: Callable[[Exclusion], None] | None = None,
                 on_note: Callable[[str], None] | None = None, lastmod: str = "mtime",
                 titles: bool = False) -> None:
        if lastmod not in LASTMOD_SOURCES:
            raise ConfigurationError(f"lastmod must be one of {', '.join(LASTMOD_SOURCES)}, got {lastmod!r}")
        self.state = state
        self.titles: dict[str, str] | None = {} if titles else None
        self.observed = LastMod.of(datetime.now(UTC).replace(microsecond=0)).text
        self.excluded: dict[str, int] = {}
        self.lastmod = lastmod
        #: With lastmod="git": pages dated by git ("git"), and those that fell back, per reason.
        self.lastmod_counts: dict[str, int] = {}
        self.shallow_pages = 0
        self._git: dict[str, GitDates] = {}
        self._on_excluded = on_excluded
        self._on_note = on_note

    def git_dates(self, root: str) -> GitDates:
        """The git dates of site folder ``root``, read once per run."""
        dates = self._git.get(root)
        if dates is None:
            dates = self._git[root] = read_git_dates(root)
            if dates.error is not None:
                self.note(f"--lastmod git: {root}: {dates.error}; its pages fall back to "
                          f"{'the --state fingerprints' if self.state is not None else 'the modification time'}")
        return dates

    def git_fallback(self, path: str, reason: str) -> None:
        n = self.lastmod_counts.get(reason, 0) + 1
        self.lastmod_counts[reason] = n
        if n <= SHOWN:
            fallback = "--state" if self.state is not None else "mtime"
            self.note(f"lastmod of {path} from {fallback}, not git: {reason}")

    def lastmod_report(self) -> tuple[str | None, str | None]:
        """With lastmod="git": the summary line (pages dated by git, fallbacks per reason) and the shallow-clone
        warning, each None when there is nothing to say."""
        if self.lastmod != "git":
            return None, None
        dated = self.lastmod_counts.get("git", 0)
        fell = {k: v for k, v in self.lastmod_counts.items() if k != "git"}
        summary = f"lastmod from git for {dated:,} page{'s' if dated != 1 else ''}"
        if fell:
            fallback = "--state" if self.state is not None else "the modification time"
            summary += (f"; {sum(fell.values()):,} from {fallback}: "
                        + ", ".join(f"{n:,} {reason}" for reason, n in sorted(fell.items())))
        warning = None
        shallow = sorted(str(d.root) for d in self._git.values() if d.shallow)
        if shallow:
            warning = (f"{', '.join(shallow)} is a shallow clone: {self.shallow_pages:,} page"
                       f"{'s' if self.shallow_pages != 1 else ''} dated by its oldest commit (the real last change "
                       "may be older); fetch the whole history (git fetch --unshallow, or fetch-depth: 0 in "
                       "actions/checkout)")
        return summary, warning

    def exclude(self, path: str, url: str, reason: Reason, detail: str) -> None:
        n = self.excluded.get(reason.value, 0) + 1
        self.excluded[reason.value] = n
        if self._on_excluded is not None:
            self._on_excluded(Exclusion(path, url, reason.value, detail, n))

    def note(self, message: str) -> None:
        if self._on_note is not None:
            self._on_note(message)


def _robots(root: Path, base: str, run: SiteRun) -> RobotsTxt | None:
    from sitemapkit.fetch import RobotsTxt

    path = root / "robots.txt"
    if not path.is_file():
        return None
    if urlsplit(base).path not in ("", "/"):
        run.note(f"{path} not applied: --base-url is not a site root, and robots.txt counts only at /robots.txt")
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    return RobotsTxt.parse(data, urljoin(base, "/robots.txt"))


def _same_file(url: str, norm: UrlNormalizer) -> set[str]:
    """Spellings of ``url`` (normalised) that name the same file of the folder."""
    spellings = {url}
    if url.endswith("/"):
        spellings.update((url + "index.html", url + "index.htm"))
    else:
        for ext in (".html", ".htm"):
            if url.endswith(ext):
                bare = url[: -len(ext)]
                spellings.add(bare)
                if bare.endswith("/index"):
                    spellings.add(bare[: -len("index")])
    return {n for n in (norm.normalize(s) for s in spellings) if n is not None}


def iter_static_site(root: str, *, base_url: str, include: Sequence[str], exclude: Sequence[str],
                     skip_files: frozenset[Path], run: SiteRun) -> Iterator[InputItem]:
    """The folder's pages that belong in its sitemap (see the module's docstring), with their problems."""
    from sitemapkit.crawl import Reason, UrlNormalizer, extract_page
    from sitemapkit.fetch import DEFAULT_USER_AGENT

    base = base_url if base_url.endswith("/") else base_url + "/"
    robots = _robots(Path(root), base, run)
    norm = UrlNormalizer()
    for item in iter_input(root, base_url=base_url, include=include, exclude=exclude, skip_files=skip_files):
        if isinstance(item, Problem):
            yield item
            continue
        entry, location = item
        path = location.source
        if robots is not None and not robots.can_fetch(entry.loc, DEFAULT_USER_AGENT):
            run.exclude(path, entry.loc, Reason.ROBOTS, "disallowed by robots.txt")
            continue
        try:
            body = Path(path).read_bytes()
        except OSError as exc:
            yield SM610.problem(Location(path, None, loc=entry.loc), f"cannot read: {exc.strerror or exc}")
            continue
        info = extract_page(body, fingerprint=run.state is not None)
        if info.robots.noindex:
            run.exclude(path, entry.loc, Reason.NOINDEX, "meta robots")
            continue
        loc = entry.loc
        if info.canonical:
            page_base = urljoin(loc, info.base_href) if info.base_href else loc
            canonical = norm.join(page_base, info.canonical)
            if canonical is not None:
                if canonical not in _same_file(loc, norm):
                    run.exclude(path, loc, Reason.CANONICAL, f"canonical is {canonical}")
                    continue
                if canonical != norm.normalize(loc):
                    loc = canonical  # the same file, spelled as the page says it should be
        lastmod = entry.lastmod.text if entry.lastmod is not None else None
        dated = None
        if run.lastmod == "git":
            found = run.git_dates(root).lookup(path)
            dated = found.lastmod
            if dated is None:
                run.git_fallback(path, found.reason or "no date")
            else:
                run.lastmod_counts["git"] = run.lastmod_counts.get("git", 0) + 1
                run.shallow_pages += found.shallow
        if dated is not None:
            lastmod = dated if run.state is None else run.state.record(loc, info.fingerprint, dated)
        elif run.state is not None:
            lastmod = run.state.lastmod(loc, info.fingerprint, lastmod, run.observed)
        if loc != entry.loc or run.state is not None or dated is not None:
            entry = UrlEntry(loc, lastmod=lastmod)
        if run.titles is not None and info.title:
            run.titles[entry.loc] = info.title
        yield entry, location
