"""The MkDocs plugin end to end: a real ``mkdocs build`` with ``plugins: [sitemapkit]`` (found through the
``mkdocs.plugins`` entry point) in a git repository made here. The published sitemap is ours, not MkDocs': each
page's lastmod is its source's last commit, a translated site (the i18n plugin's folder layout, built by hand) gets
hreflang alternates, and splitting, gzip and the XSL follow the options."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from sitemapkit.mkdocs import Languages, detect_languages, group_alternates, hreflang_of
from tests.ci_integration.gitrepo import Repo

pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install 'sitemapkit[mkdocs]')")

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://docs.fixture-shop.de/"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _entry_point_path(tmp_path: Path) -> Path | None:
    """A folder to put on the path when the installed metadata predates the entry point (an editable install made
    before it was added): it declares pyproject.toml's own entry point, so MkDocs finds the plugin the way it
    does when installed. None when the installed metadata has it already."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = declared["project"]["entry-points"]["mkdocs.plugins"]["sitemapkit"]
    assert target == "sitemapkit.mkdocs:SitemapkitPlugin"
    if any(ep.name == "sitemapkit" and ep.value == target for ep in entry_points(group="mkdocs.plugins")):
        return None
    info = tmp_path / "entry" / "sitemapkit_plugin_entry-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sitemapkit-plugin-entry\nVersion: 0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[mkdocs.plugins]\nsitemapkit = {target}\n", encoding="utf-8")
    return info.parent


def _project(tmp_path: Path, options: str = "") -> Repo:
    repo = Repo(tmp_path / "docs-project")
    repo.write("mkdocs.yml", f"site_name: Fixture docs\nsite_url: {SITE}\nplugins:\n  - sitemapkit{options}\n")
    repo.write("docs/index.md", "# Home\n")
    repo.write("docs/guide.md", "# Guide\n")
    repo.write("docs/en/setup.md", "# Setup\n")
    repo.write("docs/fr/setup.md", "# Installation\n")
    repo.write("docs/en/index.md", "# English\n")
    repo.write("docs/fr/index.md", "# Français\n")
    repo.write("docs/en/only-en.md", "# Only in English\n")
    repo.commit("2024-01-10T08:00:00Z", "first")
    repo.write("docs/guide.md", "# Guide\n\nMore.\n")
    repo.write("docs/fr/setup.md", "# Installation\n\nPlus.\n")
    repo.commit("2024-02-20T09:30:00Z", "edits")
    for path in (repo.path / "docs").rglob("*.md"):
        os.utime(path)  # a fresh checkout: every modification time is now
    return repo


def _urls(xml: bytes) -> dict[str, tuple[str | None, dict[str, str]]]:
    from lxml import etree

    root = etree.fromstring(xml)
    found = {}
    for url in root.iter(f"{NS}url"):
        alternates = {link.get("hreflang"): link.get("href")
                      for link in url.iter("{http://www.w3.org/1999/xhtml}link")}
        found[url.findtext(f"{NS}loc")] = (url.findtext(f"{NS}lastmod"), alternates)
    return found


def _mkdocs_build(repo: Repo, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` in its own process (MkDocs reads the installed plugins when it is imported)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                                     os.environ.get("PYTHONPATH")]))}
    extra = _entry_point_path(tmp_path)
    if extra is not None:
        env["PYTHONPATH"] += os.pathsep + str(extra)
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=repo.path, env=env,
                          capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


def test_mkdocs_build_publishes_our_sitemap_with_git_dates_and_hreflang(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    res = _mkdocs_build(repo, tmp_path)
    assert res.returncode == 0, res.stderr
    site = repo.path / "site"
    assert not (site / "sitemap.xml.gz").exists()  # MkDocs' own gzipped copy is gone
    assert not (site / ".sitemapkit-manifest.json").exists()
    urls = _urls((site / "sitemap.xml").read_bytes())
    assert set(urls) == {SITE, SITE + "guide/", SITE + "en/", SITE + "fr/", SITE + "en/setup/", SITE + "fr/setup/",
                         SITE + "en/only-en/"}
    assert urls[SITE][0] == "2024-01-10T08:00:00Z"
    assert urls[SITE + "guide/"][0] == "2024-02-20T09:30:00Z"
    assert urls[SITE + "en/setup/"][0] == "2024-01-10T08:00:00Z"
    assert urls[SITE + "fr/setup/"][0] == "2024-02-20T09:30:00Z"
    assert urls[SITE + "en/setup/"][1] == {"en": SITE + "en/setup/", "fr": SITE + "fr/setup/"}
    assert urls[SITE + "fr/setup/"][1] == urls[SITE + "en/setup/"][1]
    assert urls[SITE + "en/only-en/"][1] == {}
    assert urls[SITE + "guide/"][1] == {}
    assert "lastmod from git for 7 pages" in res.stderr
    assert "hreflang: languages en, fr (from the folders)" in res.stderr
    # What the site's own validator says of it.
    from sitemapkit.validate import validate_sitemaps

    assert validate_sitemaps([str(site / "sitemap.xml")]).valid


def test_split_gzip_xsl_and_a_default_language(tmp_path: Path) -> None:
    repo = _project(tmp_path, ":\n      gzip: true\n      max_urls: 3\n      xsl: default\n"
                              "      default_language: en\n      lastmod: none")
    res = _mkdocs_build(repo, tmp_path)
    assert res.returncode == 0, res.stderr
    site = repo.path / "site"
    assert not (site / "sitemap.xml").exists()  # MkDocs' plain copy: ours is sitemap.xml.gz
    index = gzip.decompress((site / "sitemap.xml.gz").read_bytes())
    assert b"<sitemapindex" in index
    assert b'<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>' in index
    assert (site / "sitemap.xsl").is_file()
    children = re.findall(rb"<loc>[^<]*/([^/<]+)</loc>", index)
    assert len(children) == 3  # 7 pages, 3 a file
    urls: dict[str, tuple[str | None, dict[str, str]]] = {}
    for name in children:
        urls.update(_urls(gzip.decompress((site / name.decode()).read_bytes())))
    assert len(urls) == 7
    assert all(lastmod is None for lastmod, _ in urls.values())
    # The root pages are the default language's: home and /en/, /fr/ are one page in three versions.
    assert urls[SITE][1] == {"en": SITE, "fr": SITE + "fr/", "x-default": SITE}
    assert urls[SITE + "fr/"][1] == urls[SITE][1]


def test_with_the_i18n_plugin_every_language_is_listed_once_with_alternates(tmp_path: Path) -> None:
    """The real mkdocs-static-i18n plugin builds each further language from its on_post_build into the same site:
    the set written holds every language's pages; its fallback copy of an untranslated page is no alternate."""
    pytest.importorskip("mkdocs_static_i18n", reason="mkdocs-static-i18n is not installed")
    repo = Repo(tmp_path / "i18n-project")
    repo.write("mkdocs.yml", f"site_name: Fixture docs\nsite_url: {SITE}\nplugins:\n  - i18n:\n"
                             "      docs_structure: folder\n      languages:\n"
                             "        - {locale: en, default: true, name: English, build: true}\n"
                             "        - {locale: fr, name: Français, build: true}\n"
                             "  - sitemapkit\n")
    repo.write("docs/en/index.md", "# Home\n")
    repo.write("docs/en/setup.md", "# Setup\n")
    repo.write("docs/en/only.md", "# English only\n")
    repo.write("docs/fr/index.md", "# Accueil\n")
    repo.commit("2024-01-10T08:00:00Z")
    repo.write("docs/fr/setup.md", "# Installation\n")
    repo.commit("2024-03-01T00:00:00Z")
    res = _mkdocs_build(repo, tmp_path)
    assert res.returncode == 0, res.stderr
    urls = _urls((repo.path / "site" / "sitemap.xml").read_bytes())
    assert set(urls) == {SITE, SITE + "setup/", SITE + "only/", SITE + "fr/", SITE + "fr/setup/", SITE + "fr/only/"}
    assert urls[SITE + "fr/setup/"] == ("2024-03-01T00:00:00Z", {"en": SITE + "setup/", "fr": SITE + "fr/setup/",
                                                                  "x-default": SITE + "setup/"})
    assert urls[SITE + "setup/"][1] == urls[SITE + "fr/setup/"][1]
    assert urls[SITE][1]["fr"] == SITE + "fr/"
    assert urls[SITE + "only/"][1] == {}  # fr/only/ is the English page again (the i18n plugin's fallback)
    assert urls[SITE + "fr/only/"][1] == {}
    assert "(from the i18n plugin)" in res.stderr


def test_language_detection_and_grouping() -> None:
    assert hreflang_of("pt_BR") == "pt-BR"
    assert hreflang_of("zh-hant") == "zh-Hant"
    assert hreflang_of("js") is None  # a folder of JavaScript docs is not a language
    assert hreflang_of("api") is None
    paths = ["", "js/", "js/install/", "go/", "go/install/"]
    assert detect_languages(paths) is None
    paths = ["", "de/a/", "fr/b/", "about/"]  # no page in common
    assert detect_languages(paths) is None
    i18n = detect_languages([], i18n=[("en", True), ("pt_BR", False)])
    assert i18n == Languages({"en": "en", "pt_BR": "pt-BR"}, "en", "i18n plugin")
    urls = {"": SITE, "a/": SITE + "a/", "pt_BR/": SITE + "pt_BR/", "pt_BR/a/": SITE + "pt_BR/a/", "b/": SITE + "b/"}
    groups = group_alternates(urls, i18n)
    assert groups["a/"] == [("en", SITE + "a/"), ("pt-BR", SITE + "pt_BR/a/"), ("x-default", SITE + "a/")]
    assert groups["pt_BR/"] == [("en", SITE), ("pt-BR", SITE + "pt_BR/"), ("x-default", SITE)]
    assert "b/" not in groups
