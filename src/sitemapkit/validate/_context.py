"""Per-file validation state: where problems go, and the checks that span entries (duplicates, scope, hosts,
the same-lastmod pattern, counts). The format drivers (XML, text, feeds) call into it with raw values."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sitemapkit.core import SEEN, SEEN_EXACT, Location, Problem, ProblemCode, SeenSet, Severity, SpillList, shorten
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import (
    FAST_URL,
    FAST_URLS,
    URL_HOSTS,
    Finding,
    Scope,
    any_mojibake,
    check_lastmod,
    check_loc,
    check_loc_mojibake,
    is_placeholder_host,
    origin_of,
)
from sitemapkit.validate._hreflang import HreflangStore

__all__ = ["FileContext", "Profile", "RunOptions", "line_of"]


def line_of(element: Any) -> int | None:
    """``sourceline`` of an lxml element (the stubs do not type it)."""
    line = element.sourceline
    return line if isinstance(line, int) and line > 0 else None

#: Problems listed per code in one file (``--max-problems``); the tally counts every one. File-level problems
#: (no line and no loc: too many URLs, too large, unreadable) are always listed.
MAX_PROBLEMS_PER_CODE = 10_000
#: A bound on the file-level problems of one code too (in practice a file has a handful).
MAX_FILE_LEVEL_PER_CODE = 10_000
#: Lines of the last problems reported, kept whether listed or not (the XML pass drops the XSD's duplicate of a
#: value a rule check judged): more than one entry ever reports.
_RECENT = 4096
_RECENT_MASK = _RECENT - 1
#: Longest message kept (values quoted in messages are cut to QUOTE_CHARS already; this bounds any message).
MAX_MESSAGE_CHARS = 2_000
#: Longest loc kept in a problem's location (twice the protocol's limit): longer ones are cut like a quoted
#: value (:func:`~sitemapkit.core._problems.shorten`), so that no report grows with the input.
MAX_LOC_CHARS = 4_096


def _bounded(problem: Problem) -> Problem:
    """``problem`` with its message and loc cut to MAX_MESSAGE_CHARS / MAX_LOC_CHARS (usually itself)."""
    loc = problem.location.loc
    if len(problem.message) <= MAX_MESSAGE_CHARS and (loc is None or len(loc) <= MAX_LOC_CHARS):
        return problem
    location = problem.location
    if loc is not None and len(loc) > MAX_LOC_CHARS:
        location = replace(location, loc=shorten(loc, MAX_LOC_CHARS))
    return replace(problem, message=shorten(problem.message, MAX_MESSAGE_CHARS), location=location)
#: At least this many entries, all with one lastmod, before SM324 is reported.
SAME_LASTMOD_MIN_ENTRIES = 10


class Profile(enum.Enum):
    """Which rules apply: the protocol alone, or the protocol plus Google's rules."""

    SITEMAPS = "sitemaps"
    GOOGLE = "google"


@dataclass(frozen=True, slots=True)
class RunOptions:
    profile: Profile
    now: datetime
    allow_cross_host: bool
    xsd: bool = True
    max_problems: int = MAX_PROBLEMS_PER_CODE


@dataclass(slots=True)
class FileContext:
    """Collects the problems of one file and carries the cross-entry state."""

    source: str
    options: RunOptions
    sitemap_url: str | None = None
    scope: Scope | None = None
    hreflang: HreflangStore | None = None
    problems: list[Problem] = field(default_factory=list)
    error_count: int = 0
    warning_count: int = 0
    dropped: int = 0
    #: Problems found per code (every one, listed or not).
    tally: dict[str, int] = field(default_factory=dict)
    #: Problems reported, listed or not (``error_count + warning_count``).
    found: int = 0
    #: While set, every problem reported goes through it first (a pass renaming what the shared checks find).
    remap: Callable[[ProblemCode, str], tuple[ProblemCode, str]] | None = None
    entries: int = 0
    #: The raw loc of the last entry_loc call when it matched FAST_URL (shorter than 2,048), else None: a lane
    #: comparing a later href with it knows that href matches FAST_URL too.
    plain_loc: str | None = None
    kind: str = "unknown"
    #: What an index lists, in order: in memory for the first 10,000, then spilled to disk (core._spill).
    child_locs: SpillList = field(default_factory=SpillList)
    #: Locs seen in this file: exact for the first SEEN_EXACT, then a Bloom filter (bounded memory, see core._seen).
    _seen: SeenSet = field(default_factory=SeenSet)
    _origin: str | None = None
    _origin_slash: str = "\x00"  # _origin + "/" once known (a prefix no URL has before that)
    _origin_mixed: bool = False
    _lastmod_first: str | None = None
    _lastmod_same: bool = True
    _lastmod_count: int = 0
    _first_line: int | None = None
    _hosts: dict[str, bool] = field(default_factory=dict)
    _lastmods: dict[str, tuple[str | None, list[Finding]]] = field(default_factory=dict)
    _recent: list[int | None] = field(default_factory=lambda: [None] * _RECENT)

    @property
    def google(self) -> bool:
        return self.options.profile is Profile.GOOGLE

    @property
    def now(self) -> datetime:
        return self.options.now

    def report(self, code: ProblemCode, message: str | None = None, line: int | None = None,
               column: int | None = None, loc: str | None = None, severity: Severity | None = None) -> None:
        if self.remap is not None:
            code, message = self.remap(code, message or code.title)
        sev = severity or code.severity
        if sev is Severity.ERROR:
            self.error_count += 1
        else:
            self.warning_count += 1
        self.found = n = self.found + 1
        self._recent[n & _RECENT_MASK] = line
        if self._over_cap(code.code, line is None and loc is None):
            return
        self.problems.append(_bounded(Problem(code.code, sev, message or code.title,
                                              Location(self.source, line, column, loc))))

    def _over_cap(self, code: str, file_level: bool) -> bool:
        """Count a problem of ``code``; True when it is not to be listed (its code has ``max_problems`` listed
        already). File-level problems are listed whatever ``max_problems`` is (a file has a handful of them)."""
        tally = self.tally
        n = tally[code] = tally.get(code, 0) + 1
        if n > (MAX_FILE_LEVEL_PER_CODE if file_level else self.options.max_problems):
            self.dropped += 1
            return True
        return False

    def lines_since(self, found: int) -> Iterator[int]:
        """The lines of the problems reported since ``self.found`` was ``found`` (listed or not; the last
        ``_RECENT`` at most): the values an entry's rule checks judged."""
        for n in range(max(found, self.found - _RECENT) + 1, self.found + 1):
            line = self._recent[n & _RECENT_MASK]
            if line is not None:
                yield line

    def bad_host(self, host: str) -> bool:
        """Cached :func:`is_placeholder_host`."""
        bad = self._hosts.get(host)
        if bad is None:
            bad = self._hosts[host] = is_placeholder_host(host)
        return bad

    def add(self, problem: Problem) -> None:
        """Take a problem found by another layer (the reader) as it is."""
        if problem.severity is Severity.ERROR:
            self.error_count += 1
        else:
            self.warning_count += 1
        location = problem.location
        self.found = n = self.found + 1
        self._recent[n & _RECENT_MASK] = location.line
        if not self._over_cap(problem.code, location.line is None and location.loc is None):
            self.problems.append(_bounded(problem))

    def findings(self, found: Sequence[Finding], line: int | None, loc: str | None) -> None:
        for code, message in found:
            self.report(code, message, line, None, loc)

    # --- entries -----------------------------------------------------------------------------------------
    def entry_loc(self, raw: str | None, line: int | None, *, field: str = "loc") -> str | None:
        """Check an entry's loc and the cross-entry rules; returns the usable URL (or None)."""
        self.entries += 1
        if self._first_line is None:
            self._first_line = line
        loc: str | None
        m = FAST_URL(raw) if raw is not None and len(raw) < 2048 else None
        if m is not None and raw is not None:
            # Hot path: a plain ASCII absolute URL; only the host and mojibake need a look.
            self.plain_loc = raw
            host = m.group(2)
            bad = self._hosts.get(host)
            if bad is None:
                bad = self._hosts[host] = is_placeholder_host(host)
            loc = raw
            if bad:
                loc, found = check_loc(raw, field=field)
                if found:
                    self.findings(found, line, loc)
            elif "%C" in raw or "%c" in raw:  # what check_loc would find here (FAST_URL, short, a real host)
                found = check_loc_mojibake(raw, field=field)
                if found:
                    self.findings(found, line, loc)
        else:
            self.plain_loc = None
            loc, found = check_loc(raw, field=field)
            if found:
                self.findings(found, line, loc if loc is not None else (raw.strip() if raw else None))
        if loc is None:
            return None
        seen = self._seen.add(loc)
        if seen:
            if seen == SEEN:
                message = f"{shorten(loc)} is listed more than once: list each URL once"
            else:
                message = (f"{shorten(loc)} is probably listed more than once: list each URL once (past "
                           f"{SEEN_EXACT:,} URLs in a file, duplicates are found with a Bloom filter; see "
                           "docs/design/validate.md)")
            self.report(C.LOC_DUPLICATE, message, line, None, loc)
        if not self.options.allow_cross_host:
            scope = self.scope
            if scope is not None:
                if not loc.startswith(scope.prefix):
                    self._scope_check(loc, line)
            elif not loc.startswith(self._origin_slash):
                origin = self._origin
                if origin is None or not loc.startswith(origin) or loc[len(origin):len(origin) + 1] not in ("?", ""):
                    self._scope_check(loc, line)
        return loc

    def plain_urls(self, urls: Sequence[str], joined: str) -> bool:
        """Whether each of ``urls`` (``joined``: their text joined by line feeds) takes entry_loc's hot path: a
        FAST_URL shorter than 2,048 characters on a host that is no placeholder. One call in C for the URLs, then
        each distinct host once."""
        if FAST_URLS(joined) is None or max(map(len, urls)) >= 2048:
            return False
        return not any(map(self.bad_host, set(URL_HOSTS("\n" + joined))))

    def clean_locs(self, locs: Sequence[str], joined: str, line: int) -> bool:
        """:meth:`entry_loc` of each of ``locs`` (their text joined by line feeds: ``joined``; the first one on
        ``line``) when none has anything to report: plain URLs shorter than 2,048 characters on hosts that are no
        placeholders, none double-encoded, none seen before, all where the sitemap's first URL is (its origin, or
        the scope). Then True. Otherwise False, and nothing changed (the caller checks them one by one)."""
        if not self.plain_urls(locs, joined) or any_mojibake(locs, joined):
            return False
        if not self.options.allow_cross_host:
            # every loc starts with the prefix (no loc holds a line feed); "\x00" until the first URL set it
            prefix = self.scope.prefix if self.scope is not None else self._origin_slash
            if not joined.startswith(prefix) or joined.count("\n" + prefix) != len(locs) - 1:
                return False
        if not self._seen.add_new(locs):
            return False
        self.entries += len(locs)
        if self._first_line is None:
            self._first_line = line
        self.plain_loc = locs[-1]
        return True

    def clean_lastmods(self, values: Iterable[str]) -> list[str] | None:
        """The texts of these lastmod values (each distinct one once) when :meth:`entry_lastmod` reports nothing
        for any of them; None otherwise. Changes nothing but the cache: :meth:`note_lastmods` records them."""
        texts = []
        for raw in values:
            text, found = self._lastmod(raw)
            if found or text is None:
                return None
            texts.append(text)
        return texts

    def note_lastmods(self, first: str, texts: list[str], count: int) -> None:
        """What :meth:`entry_lastmod` records for ``count`` values without problems, the first being ``first``,
        their distinct texts ``texts`` (from :meth:`clean_lastmods`)."""
        self._lastmod_count += count
        if self._lastmod_first is None:
            self._lastmod_first = self._lastmod(first)[0]
        if self._lastmod_same and (len(texts) > 1 or texts[0] != self._lastmod_first):
            self._lastmod_same = False

    def _scope_check(self, loc: str, line: int | None) -> None:
        if self.scope is not None:
            if not self.scope.contains(loc):
                origin = origin_of(loc)
                if origin is not None and origin != self.scope.origin:
                    why = f"is on {shorten(origin)}, not {self.scope.origin} where the sitemap is"
                else:
                    why = f"is not under {self.scope.prefix}, the sitemap's directory"
                self.report(C.LOC_OUT_OF_SCOPE, f"{shorten(loc)} {why}: move the sitemap up or use "
                                                "--allow-cross-host (robots.txt cross-submission)", line, None, loc)
            return
        origin = origin_of(loc)
        if origin is None:
            return
        if self._origin is None:
            self._origin = origin
            self._origin_slash = origin + "/"
        elif origin != self._origin and not self._origin_mixed:
            self._origin_mixed = True  # reported once per file
            self.report(C.LOC_MIXED_HOSTS, f"{shorten(loc)} is on {shorten(origin)} but earlier URLs are on "
                                           f"{shorten(self._origin)}: one site per sitemap (or --allow-cross-host)",
                        line, None, loc)

    def _lastmod(self, raw: str) -> tuple[str | None, list[Finding]]:
        """:func:`check_lastmod` of ``raw`` as (its text, what it found), cached."""
        cached = self._lastmods.get(raw)
        if cached is None:
            value, found = check_lastmod(raw, self.options.now)
            cached = (value.text if value is not None else None, found)
            if len(raw) <= 64:  # real dates are short; a huge value is not kept as a key
                if len(self._lastmods) > 4096:
                    self._lastmods.clear()
                self._lastmods[raw] = cached
        return cached

    def entry_lastmod(self, raw: str, line: int | None, loc: str | None, *, track_same: bool = True) -> None:
        cached = self._lastmods.get(raw)
        if cached is None:
            cached = self._lastmod(raw)
        text, found = cached
        if found:
            self.findings(found, line, loc)
        if track_same and text is not None:
            self._lastmod_count += 1
            if self._lastmod_first is None:
                self._lastmod_first = text
            elif self._lastmod_same and text != self._lastmod_first:
                self._lastmod_same = False

    def finish_entries(self) -> None:
        """Checks that need every entry: the same lastmod everywhere."""
        if (self._lastmod_same and self._lastmod_first is not None
                and self._lastmod_count >= SAME_LASTMOD_MIN_ENTRIES and self._lastmod_count == self.entries):
            self.report(C.LASTMOD_SAME, f"all {self._lastmod_count} entries have lastmod {self._lastmod_first}: "
                                        "one date for every page is rarely when each page last changed (often "
                                        "the time the file was generated or deployed); write each page's own "
                                        "date or leave lastmod out", self._first_line)
