"""hreflang for a translated MkDocs site: which pages are versions of one another.

A translated site (the mkdocs-static-i18n plugin's layout, or one built by hand the same way) has each language
under its own top-level folder, ``/fr/guide/`` for ``/en/guide/``, and possibly its default language at the root
(``/guide/``). Pages whose paths are the same once the language folder is taken off are alternates of one
another; each lists all of them (itself included, as Google asks) and ``x-default``, the default language's.

The languages come from, in order: the plugin's ``languages`` option; the i18n plugin's configuration (its
``languages`` with their ``locale`` and ``default``); else the site's own folders: top-level folders named by an
ISO 639-1 code (with an optional region: ``pt-BR``, ``zh_TW``), at least two of them sharing a page path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Languages", "detect_languages", "group_alternates", "hreflang_of"]

# ISO 639-1: the two-letter language codes (a folder named otherwise is not taken for a language).
_ISO639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo
es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg
ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn
no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta
te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split())  # noqa: SIM905 (a table to read, not a list literal of 184 strings)
_TAG = re.compile(r"^([a-z]{2})(?:[-_]([A-Za-z]{2}|[A-Za-z]{4}|\d{3}))?$")


def hreflang_of(locale: str) -> str | None:
    """``locale`` (``fr``, ``pt_BR``, ``zh-TW``) as an hreflang value (``pt-BR``), or None when it is no language
    code of ISO 639-1."""
    m = _TAG.match(locale)
    if m is None or m.group(1) not in _ISO639_1:
        return None
    region = m.group(2)
    if region is None:
        return m.group(1)
    return f"{m.group(1)}-{region.upper() if len(region) == 2 else region.title()}"


@dataclass(frozen=True, slots=True)
class Languages:
    """The site's languages: their folder names mapped to hreflang values, and the default language (served at
    the root, and the ``x-default``), None when there is none."""

    folders: Mapping[str, str]
    default: str | None = None
    source: str = "folders"  # "option", "i18n plugin" or "folders": where they were found


def _first(path: str) -> tuple[str, str]:
    head, _, rest = path.lstrip("/").partition("/")
    return head, rest


def detect_languages(paths: Iterable[str], *, configured: Sequence[str] = (), default: str | None = None,
                     i18n: Sequence[tuple[str, bool]] = ()) -> Languages | None:
    """The languages of a site whose page paths (relative to the site root, ``fr/guide/``) are ``paths``:
    ``configured`` (folder names) first, then the i18n plugin's ``(locale, is_default)`` pairs, then folders
    named by language codes that share a page. None when the site is not translated."""
    if configured:
        folders = {name: hreflang_of(name) or name for name in configured}
        return Languages(folders, default, "option")
    if i18n:
        folders = {locale: hreflang_of(locale) or locale for locale, _ in i18n}
        chosen = default or next((locale for locale, is_default in i18n if is_default), None)
        return Languages(folders, chosen, "i18n plugin")
    by_folder: dict[str, set[str]] = {}
    for path in paths:
        head, rest = _first(path)
        # a page inside a folder named by a language code, or that folder's index
        if (rest or path.rstrip("/") == head) and hreflang_of(head) is not None:
            by_folder.setdefault(head, set()).add(rest)
    if len(by_folder) < 2:
        return None
    shared = [f for f in by_folder if any(by_folder[f] & by_folder[g] for g in by_folder if g != f)]
    if len(shared) < 2:
        return None
    return Languages({f: hreflang_of(f) or f for f in sorted(shared)}, default, "folders")


def group_alternates(urls: Mapping[str, str], languages: Languages) -> dict[str, list[tuple[str, str]]]:
    """For each page (path relative to the site root -> absolute URL) that has versions in other languages, its
    alternates as ``(hreflang, URL)`` pairs: every version, itself included, then ``x-default`` (the default
    language's version) when there is one. Pages in one language only get none."""
    groups: dict[str, dict[str, str]] = {}  # path without the language folder -> hreflang -> path
    default_tag = None if languages.default is None else languages.folders.get(languages.default,
                                                                               hreflang_of(languages.default))
    for path in sorted(urls, key=lambda p: _first(p)[0] in languages.folders):  # root pages first: they win
        head, rest = _first(path)
        tag = languages.folders.get(head)
        if tag is None:
            if default_tag is None:
                continue
            tag, rest = default_tag, path.lstrip("/")
        groups.setdefault(rest, {}).setdefault(tag, path)
    alternates: dict[str, list[tuple[str, str]]] = {}
    for versions in groups.values():
        if len(versions) < 2:
            continue
        pairs = [(tag, urls[path]) for tag, path in sorted(versions.items())]
        if default_tag is not None and default_tag in versions:
            pairs.append(("x-default", urls[versions[default_tag]]))
        for path in versions.values():
            alternates[path] = pairs
    return alternates
