"""The MkDocs plugin ``sitemapkit``: after ``mkdocs build``, the site's sitemap set written by sitemapkit's writer
in place of the one MkDocs renders (every lastmod the build date).

::

    # mkdocs.yml
    site_url: https://docs.example.com/
    plugins:
      - search
      - sitemapkit:
          lastmod: git        # git (default), mtime or none
          gzip: false         # true: sitemap.xml.gz is the entry point
          max_urls: 50000     # split into an index and children above this many pages
          xsl: null           # "default" writes sitemapkit's sitemap.xsl next to the sitemaps, or any href
          hreflang: true      # alternates for a translated site (the i18n plugin's layout)
          languages: []       # language folders, when they are not detected
          default_language: null

Pages are the site's documentation pages (drafts and excluded pages left out), each at ``site_url`` + its URL;
with the mkdocs-static-i18n plugin, which builds each further language from its own ``on_post_build``, the pages
of every language are gathered and the set is written once, after the last.
Lastmod from git is the last commit that touched the page's source file (``sitemapkit.generator``'s git dates, one
pass for the whole ``docs_dir``); a source git cannot date falls back to its modification time, counted per reason
in the build's log, and a shallow clone is named in a warning. MkDocs' own ``sitemap.xml`` and ``sitemap.xml.gz``
are replaced: overwritten by ours, or deleted where ours has no file of that name.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files

from sitemapkit.core import MAX_URLS_PER_SITEMAP, Alternate, SitemapkitError, UrlEntry
from sitemapkit.generator import GitDates, read_git_dates
from sitemapkit.mkdocs._i18n import Languages, detect_languages, group_alternates
from sitemapkit.write import MANIFEST_NAME, Manifest, write_sitemaps

__all__ = ["SitemapkitConfig", "SitemapkitPlugin"]

log = get_plugin_logger(__name__)

#: What MkDocs itself writes (theme template ``sitemap.xml``, gzipped beside it).
MKDOCS_SITEMAPS = ("sitemap.xml", "sitemap.xml.gz")


class SitemapkitConfig(Config):  # type: ignore[no-untyped-call]  # MkDocs' Config.__init_subclass__
    """The plugin's options in ``mkdocs.yml``."""

    lastmod = c.Choice(("git", "mtime", "none"), default="git")
    gzip = c.Type(bool, default=False)
    max_urls = c.Type(int, default=MAX_URLS_PER_SITEMAP)
    xsl = c.Optional(c.Type(str))
    hreflang = c.Type(bool, default=True)
    languages = c.ListOfItems(c.Type(str), default=[])
    default_language = c.Optional(c.Type(str))


class SitemapkitPlugin(BasePlugin[SitemapkitConfig]):  # type: ignore[no-untyped-call]
    """``plugins: [sitemapkit]``: see the module's docstring."""

    def __init__(self) -> None:
        # page URL (relative to site_url) -> its source file: every language's pages when the i18n plugin builds
        # one language after another into the same site
        self._pages: dict[str, str | None] = {}
        self.manifest: Manifest | None = None

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        if not config.site_url:
            log.warning("site_url is not set: no sitemap is written (a sitemap lists absolute URLs)")
        if not 1 <= self.config.max_urls <= MAX_URLS_PER_SITEMAP:
            raise PluginError(f"sitemapkit: max_urls must be 1 to {MAX_URLS_PER_SITEMAP:,}, got "
                              f"{self.config.max_urls}")
        return config

    @event_priority(-110)  # after every other plugin (i18n's at -100 among them) has added or removed files
    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files | None:
        if not _i18n_nested_build(config):
            self._pages = {}  # a build of its own: start afresh
        for f in files.documentation_pages():
            self._pages["" if f.url == "./" else f.url] = f.abs_src_path
        return files

    @event_priority(-110)  # after the i18n plugin's, which builds the other languages from its on_post_build
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not config.site_url or not self._pages or _i18n_nested_build(config):
            return  # a language built by the i18n plugin: the outer build writes every language's pages
        site_url = config.site_url if config.site_url.endswith("/") else config.site_url + "/"
        urls = {path: urljoin(site_url, path) for path in self._pages}
        sources = dict(self._pages)
        lastmods = self._lastmods(config, sources)
        alternates = self._alternates(config, urls)
        entries = [UrlEntry(urls[path], lastmod=lastmods.get(path),
                            alternates=[Alternate(tag, href) for tag, href in alternates.get(path, ())])
                   for path in sorted(urls, key=lambda p: (p.count("/"), p))]
        site_dir = Path(config.site_dir)
        try:
            manifest = write_sitemaps(entries, site_dir, site_url, gzip=self.config.gzip,
                                      max_urls=self.config.max_urls, xsl=self.config.xsl)
        except SitemapkitError as exc:
            raise PluginError(f"sitemapkit: cannot write the sitemaps: {exc}") from None
        ours = {f.path.name for f in manifest.files}
        for name in MKDOCS_SITEMAPS:
            if name not in ours:
                (site_dir / name).unlink(missing_ok=True)
        (site_dir / MANIFEST_NAME).unlink(missing_ok=True)  # the build folder is rebuilt each time: not published
        self.manifest = manifest
        for problem in manifest.problems:
            log.warning(problem.format())
        log.info(f"{manifest.urls:,} pages in {len(manifest.files)} sitemap file"
                 f"{'s' if len(manifest.files) != 1 else ''}: {manifest.entry_point}")

    def _lastmods(self, config: MkDocsConfig, sources: dict[str, str | None]) -> dict[str, str]:
        how = self.config.lastmod
        if how == "none":
            return {}
        found: dict[str, str] = {}
        dates: GitDates | None = read_git_dates(config.docs_dir) if how == "git" else None
        if dates is not None and dates.error is not None:
            log.warning(f"lastmod from git: {dates.error}; the pages' modification times are used")
        fell: dict[str, int] = {}
        shallow = 0
        for path, src in sources.items():
            if src is None:
                continue  # a page generated by a plugin: no source file to date
            if dates is not None:
                date = dates.lookup(src)
                if date.lastmod is not None:
                    found[path] = date.lastmod
                    shallow += date.shallow
                    continue
                reason = date.reason or "no date"
                fell[reason] = fell.get(reason, 0) + 1
                log.debug(f"lastmod of {src} from its modification time: {reason}")
            try:
                mtime = os.stat(src).st_mtime
            except OSError:
                continue
            found[path] = datetime.fromtimestamp(int(mtime), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if dates is not None:
            summary = f"lastmod from git for {len(sources) - sum(fell.values()):,} pages"
            if fell:
                summary += "; from the modification time: " + ", ".join(f"{n:,} {r}" for r, n in sorted(fell.items()))
            log.info(summary)
            if dates.shallow:
                log.warning(f"{dates.root} is a shallow clone: {shallow:,} pages dated by its oldest commit (the real "
                            "last change may be older); fetch the whole history (fetch-depth: 0 in actions/checkout)")
        return found

    def _alternates(self, config: MkDocsConfig, urls: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
        if not self.config.hreflang:
            return {}
        languages = detect_languages(urls, configured=self.config.languages,
                                     default=self.config.default_language, i18n=_i18n_languages(config))
        if languages is None:
            return {}
        fallbacks = _fallbacks(config, self._pages, languages)
        alternates = group_alternates({p: u for p, u in urls.items() if p not in fallbacks}, languages)
        log.info(f"hreflang: languages {', '.join(sorted(languages.folders.values()))} (from the {languages.source})"
                 f", {len(alternates):,} pages with alternates")
        return alternates

    def languages(self, config: MkDocsConfig, paths: list[str]) -> Languages | None:
        """The languages the plugin finds for a site whose pages are ``paths`` (for tests and debugging)."""
        return detect_languages(paths, configured=self.config.languages, default=self.config.default_language,
                                i18n=_i18n_languages(config))


def _fallbacks(config: MkDocsConfig, pages: dict[str, str | None], languages: Languages) -> set[str]:
    """Pages of one language built from another language's source (the i18n plugin's fallback for a missing
    translation, ``fr/only/`` from ``docs/en/only.md``): not a version in that language, so no alternate."""
    docs = Path(config.docs_dir).resolve()
    found: set[str] = set()
    for path, src in pages.items():
        head = path.partition("/")[0]
        if src is None or head not in languages.folders:
            continue
        try:
            src_head = Path(src).resolve().relative_to(docs).parts[0]
        except (ValueError, IndexError):
            continue
        if src_head in languages.folders and src_head != head:
            found.add(path)
    return found


def _i18n_nested_build(config: MkDocsConfig) -> bool:
    """True inside a build the mkdocs-static-i18n plugin runs for one more language (from its own on_post_build,
    into the same site), where its ``building`` flag is set."""
    plugin: Any = config.plugins.get("i18n")
    return bool(getattr(plugin, "building", False))


def _i18n_languages(config: MkDocsConfig) -> list[tuple[str, bool]]:
    """The mkdocs-static-i18n plugin's languages as ``(locale, is_default)``, when it is configured."""
    plugin: Any = config.plugins.get("i18n")
    if plugin is None:
        return []
    found: list[tuple[str, bool]] = []
    for item in getattr(getattr(plugin, "config", None), "languages", None) or ():
        get = item.get if isinstance(item, dict) else (lambda key, default=None, _i=item: getattr(_i, key, default))
        locale = get("locale")
        if isinstance(locale, str) and locale and locale != "null":
            found.append((locale, bool(get("default", False))))
    return found
