"""changefreq and priority for URLs that do not give their own: defaults, rules by URL path, priority by depth.

``crawl`` and ``generate`` (and the web app) take the same three things, parsed here once:

- ``--changefreq VALUE`` and ``--priority VALUE``: the defaults for every URL;
- ``--rule 'GLOB changefreq=VALUE priority=VALUE'`` (repeatable, either key optional): the first rule whose glob
  matches the URL's path gives its values (a key it does not set falls back to the defaults);
- ``depth`` as a priority (a default's or a rule's): 1.0 for the home page, 0.1 less per path segment, at least
  0.1 (``/`` 1.0, ``/blog/`` 0.9, ``/blog/post`` 0.8).

A value the entry already has (a CSV or JSONL row's column, a sitemap read back) is kept: the hints only fill what
is missing. Globs: ``*`` matches any characters, ``/`` included (``/blog/*`` covers ``/blog/2024/post``), ``?``
one character, ``[...]`` a set; a glob not starting with ``/`` or ``*`` is taken from the root (``blog/*`` is
``/blog/*``). Google ignores both values; Bing and others read them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import translate
from urllib.parse import urlsplit

from sitemapkit.core._errors import ConfigurationError
from sitemapkit.core._hinthelp import HINT_HELP
from sitemapkit.core._model import Changefreq, UrlEntry, canonical_url_entry

__all__ = ["DEPTH", "HINT_HELP", "HintRule", "SitemapHints", "depth_priority", "parse_hints"]

#: The priority value that means "by the URL's depth".
DEPTH = "depth"
_CHANGEFREQS = ", ".join(c.value for c in Changefreq)


# The path of an absolute URL: after the authority, before the query or fragment (urlsplit's path, ~20x faster).
_PATH = re.compile(r"[^/]*//[^/?#]*([^?#]*)")


def _path_of(loc: str) -> str:
    m = _PATH.match(loc)
    return (m[1] if m is not None else urlsplit(loc).path) or "/"


def _depth_priority(path: str) -> float:
    depth = len([s for s in path.split("/") if s])
    return _BY_DEPTH[depth] if depth < len(_BY_DEPTH) else 0.1


_BY_DEPTH = [round(max(0.1, 1.0 - 0.1 * d), 1) for d in range(10)]


def depth_priority(loc: str) -> float:
    """1.0 for the site's root, 0.1 less for each path segment below it, never under 0.1."""
    return _depth_priority(_path_of(loc))


def _changefreq(value: str, option: str) -> Changefreq:
    try:
        return Changefreq(value.strip().lower())
    except ValueError:
        raise ConfigurationError(f"{option}: changefreq must be one of {_CHANGEFREQS}, not {value!r}") from None


def _priority(value: str, option: str) -> float | str:
    text = value.strip().lower()
    if text == DEPTH:
        return DEPTH
    try:
        number = float(text)
    except ValueError:
        number = -1.0
    if not 0.0 <= number <= 1.0 or text in ("nan", "inf"):
        raise ConfigurationError(f"{option}: priority must be a number from 0.0 to 1.0 or 'depth', not {value!r}")
    return number


@dataclass(frozen=True, slots=True)
class HintRule:
    """One ``--rule``: a glob on the URL path and the values it gives (None: not set by this rule)."""

    glob: str
    changefreq: Changefreq | None = None
    priority: float | str | None = None  # a number, or DEPTH
    match: Callable[[str], object] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "match", re.compile(translate(self.glob)).match)

    @classmethod
    def parse(cls, text: str, option: str = "--rule") -> HintRule:
        """``'GLOB changefreq=VALUE priority=VALUE'`` (either key optional, at least one); a bad one raises
        :class:`ConfigurationError` naming ``option`` and the value."""
        words = text.split()
        if len(words) < 2:
            raise ConfigurationError(f"{option}: expected 'GLOB changefreq=VALUE priority=VALUE' (either key "
                                     f"optional), not {text!r}")
        glob, changefreq, priority = words[0], None, None
        for word in words[1:]:
            key, sep, value = word.partition("=")
            key = key.strip().lower()
            if not sep or not value:
                raise ConfigurationError(f"{option}: {word!r} in {text!r} is not KEY=VALUE (changefreq=weekly, "
                                         "priority=0.5)")
            if key == "changefreq":
                changefreq = _changefreq(value, f"{option} {text!r}")
            elif key == "priority":
                priority = _priority(value, f"{option} {text!r}")
            else:
                raise ConfigurationError(f"{option}: unknown key {key!r} in {text!r} (changefreq or priority)")
        if not glob.startswith(("/", "*")):
            glob = "/" + glob
        return cls(glob, changefreq, priority)

    def __str__(self) -> str:
        parts = [self.glob]
        if self.changefreq is not None:
            parts.append(f"changefreq={self.changefreq.value}")
        if self.priority is not None:
            parts.append(f"priority={self.priority}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class SitemapHints:
    """Defaults and rules for changefreq and priority (see the module's docstring). :meth:`apply` fills an
    entry's missing values; ``values(loc)`` says what a URL gets."""

    changefreq: Changefreq | None = None
    priority: float | str | None = None
    rules: tuple[HintRule, ...] = ()

    @property
    def empty(self) -> bool:
        return self.changefreq is None and self.priority is None and not self.rules

    def values(self, loc: str) -> tuple[Changefreq | None, float | None]:
        """(changefreq, priority) for ``loc``: the first matching rule's, then the defaults."""
        changefreq, priority = self.changefreq, self.priority
        path = _path_of(loc) if self.rules or priority == DEPTH else "/"
        if self.rules:
            for rule in self.rules:
                if rule.match(path):
                    if rule.changefreq is not None:
                        changefreq = rule.changefreq
                    if rule.priority is not None:
                        priority = rule.priority
                    break
        if priority == DEPTH:
            return changefreq, _depth_priority(path)
        return changefreq, priority  # type: ignore[return-value]

    def apply(self, entry: UrlEntry) -> UrlEntry:
        """``entry`` with its missing changefreq and priority filled (the entry's own values are kept)."""
        if entry.changefreq is not None and entry.priority is not None:
            return entry
        changefreq, priority = self.values(entry.loc)
        if entry.changefreq is not None:
            changefreq = entry.changefreq
        if entry.priority is not None:
            priority = entry.priority
        if changefreq is entry.changefreq and priority == entry.priority:
            return entry
        return canonical_url_entry(entry.loc, entry.lastmod, changefreq, priority, entry.images, entry.videos,
                                   entry.news, entry.alternates, entry.mobile)

    def to_strings(self) -> dict[str, object]:
        """The hints as the options that give them: ``changefreq``, ``priority`` and ``rules`` (JSON-ready)."""
        return {"changefreq": None if self.changefreq is None else self.changefreq.value,
                "priority": None if self.priority is None else str(self.priority),
                "rules": [str(r) for r in self.rules]}


def parse_hints(changefreq: str | None = None, priority: str | None = None, rules: Iterable[str] = ()) -> \
        SitemapHints | None:
    """The hints of ``--changefreq``, ``--priority`` and ``--rule`` values, or None when none is given (nothing to
    apply: callers skip the per-entry work). Bad values raise :class:`ConfigurationError` naming the option."""
    cf = _changefreq(changefreq, "--changefreq") if changefreq not in (None, "") else None
    pr = _priority(priority, "--priority") if priority not in (None, "") else None
    parsed = tuple(HintRule.parse(r) for r in rules if r.strip())
    hints = SitemapHints(cf, pr, parsed)
    return None if hints.empty else hints
