"""Publishing a sitemap set is a swap: a kill at any step leaves the old set or the new one complete.

The kill is real process death: a forked child publishes and sends itself SIGKILL (no ``finally``, no cleanup)
right before its k-th rename or unlink, for every k until the publish completes. After each kill the
set on disk is read back with sitemapkit's own reader: the entry point and every child it lists must exist and
the URLs must be exactly the old set's or the new set's. The next run must then leave no orphan behind.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sitemapkit import UrlEntry, read_file
from sitemapkit.write import write_sitemaps
from sitemapkit.write._publish import MANIFEST_NAME, read_manifest_state

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs os.fork")

BASE = "https://example.com/"
_KILLED = -signal.SIGKILL  # the exit code of a process SIGKILL ended


def _entries(tag: str, n: int) -> list[UrlEntry]:
    return [UrlEntry(f"https://example.com/{tag}/{i}") for i in range(n)]


def _publish_killed_at(step: int, entries: list[UrlEntry], out: Path, kwargs: dict[str, Any]) -> bool:
    """Publish in a child that dies before its ``step``-th rename/unlink; True when it completed instead."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns to pytest
        code = 3
        try:
            done = [0]

            def counted(fn: Callable[..., Any]) -> Callable[..., Any]:
                def wrapped(*args: Any, **kw: Any) -> Any:
                    if done[0] == step:
                        os.kill(os.getpid(), signal.SIGKILL)
                    done[0] += 1
                    return fn(*args, **kw)
                return wrapped

            os.replace = counted(os.replace)  # type: ignore[assignment]
            os.unlink = counted(os.unlink)  # type: ignore[assignment]
            write_sitemaps(entries, out, BASE, **kwargs)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    assert code in (0, _KILLED), f"publish failed in the child (exit {code})"
    return code == 0


def _published_urls(out: Path, gzip: bool) -> set[str]:
    """The URLs of the set in ``out`` as a consumer sees it, checking that every listed child is complete."""
    entry = out / ("sitemap.xml.gz" if gzip else "sitemap.xml")
    top = read_file(entry)
    assert top.ok, top.errors
    if not top.sitemaps:
        return {e.loc for e in top.entries}
    urls: set[str] = set()
    for ref in top.sitemaps:
        assert ref.loc.startswith(BASE)
        child = out / ref.loc[len(BASE):]
        assert child.is_file(), f"the index lists {child.name}, which is missing"
        result = read_file(child)
        assert result.ok, result.errors
        urls |= {e.loc for e in result.entries}
    return urls


def _published_text_urls(out: Path, gzip: bool) -> set[str]:
    """The URLs of the text sitemaps in ``out`` as a consumer sees them: the text sitemaps' index and every file it
    lists when the text set is split, else the single ``sitemap.txt``."""
    gz = ".gz" if gzip else ""
    index = out / f"sitemap-txt.xml{gz}"
    if not index.exists():
        single = read_file(out / f"sitemap.txt{gz}")
        assert single.ok, single.errors
        return {e.loc for e in single.entries}
    top = read_file(index)
    assert top.ok, top.errors
    assert top.sitemaps, "the text sitemaps' index lists nothing"
    urls: set[str] = set()
    for ref in top.sitemaps:
        child = out / ref.loc[len(BASE):]
        assert child.name.endswith(f".txt{gz}"), ref.loc
        assert child.is_file(), f"the text index lists {child.name}, which is missing"
        result = read_file(child)
        assert result.ok, result.errors
        urls |= {e.loc for e in result.entries}
    return urls


def _html_pages_exist(out: Path) -> None:
    pages = out / "sitemap.html"
    if pages.exists():
        for href in re.findall(r'href="(sitemap-[^"]+\.html)"', pages.read_text(encoding="utf-8")):
            assert (out / href).is_file(), f"sitemap.html links {href}, which is missing"


def _only_the_set(out: Path) -> None:
    names, _gen = read_manifest_state(out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, MANIFEST_NAME])


@pytest.mark.parametrize(("old_n", "new_n", "kwargs"), [
    (30, 45, {"max_urls": 10}),  # index of 3 -> index of 5
    (45, 20, {"max_urls": 10}),  # index of 5 -> index of 2 (fewer children)
    (30, 5, {"max_urls": 10}),  # index -> a single urlset
    (5, 30, {"max_urls": 10}),  # a single urlset -> index
    (25, 35, {"max_urls": 10, "gzip": True, "formats": ("xml", "html", "txt"), "xsl": "default"}),
    (30, 30, {"max_urls": 10, "formats": ("xml", "txt")}),  # the same number of text files, each replaced
    (30, 45, {"max_urls": 10, "formats": ("txt",)}),  # text only: its index is the entry point
    (5, 30, {"max_urls": 10, "formats": ("txt",)}),  # a single sitemap.txt -> split text sitemaps
], ids=["grow", "shrink", "to-single", "from-single", "gzip-all-formats", "xml-and-text", "text-grow",
        "text-from-single"])
def test_a_kill_at_any_publish_step_leaves_the_old_or_the_new_set(
        tmp_path: Path, old_n: int, new_n: int, kwargs: dict[str, Any]) -> None:
    gzip = bool(kwargs.get("gzip"))
    formats = kwargs.get("formats", ("xml",))
    old, new = _entries("old", old_n), _entries("new", new_n)
    template = tmp_path / "template"
    write_sitemaps(_entries("older", 12), template, BASE, **kwargs)  # the old set is itself a second run
    write_sitemaps(old, template, BASE, **kwargs)
    old_urls, new_urls = {e.loc for e in old}, {e.loc for e in new}

    def read_sets(out: Path) -> list[set[str]]:  # every format's URLs, each read from its entry point
        return [*([_published_urls(out, gzip)] if "xml" in formats else []),
                *([_published_text_urls(out, gzip)] if "txt" in formats else [])]

    assert read_sets(template) == [old_urls] * len(read_sets(template))
    saw_old = saw_new = False
    for step in range(200):
        out = tmp_path / f"out-{step}"
        shutil.copytree(template, out)
        completed = _publish_killed_at(step, new, out, kwargs)
        for urls in read_sets(out):
            assert urls in (old_urls, new_urls), f"killed before step {step}: a mix of the two sets"
            saw_old |= urls == old_urls
            saw_new |= urls == new_urls
        _html_pages_exist(out)
        # The next run publishes normally and leaves nothing of the killed one behind.
        write_sitemaps(new, out, BASE, **kwargs)
        assert all(urls == new_urls for urls in read_sets(out))
        _only_the_set(out)
        shutil.rmtree(out)
        if completed:
            break
    else:
        pytest.fail("the publish never completed")
    assert saw_old
    assert saw_new
    assert step > 5  # the kill really hit the publish's steps


def test_children_never_reuse_a_name_of_an_earlier_set(tmp_path: Path) -> None:
    first = write_sitemaps(_entries("a", 25), tmp_path, BASE, max_urls=10)
    second = write_sitemaps(_entries("b", 25), tmp_path, BASE, max_urls=10)
    assert [f.path.name for f in first.sitemaps] == ["sitemap-1-1.xml", "sitemap-1-2.xml", "sitemap-1-3.xml"]
    assert [f.path.name for f in second.sitemaps] == ["sitemap-2-1.xml", "sitemap-2-2.xml", "sitemap-2-3.xml"]
    assert sorted(p.name for p in second.removed) == ["sitemap-1-1.xml", "sitemap-1-2.xml", "sitemap-1-3.xml"]
    assert read_manifest_state(tmp_path) == (["sitemap-2-1.xml", "sitemap-2-2.xml", "sitemap-2-3.xml",
                                               "sitemap.xml"], 2)


def test_a_lost_manifest_does_not_make_children_overwrite_listed_files(tmp_path: Path) -> None:
    write_sitemaps(_entries("a", 25), tmp_path, BASE, max_urls=10)
    (tmp_path / MANIFEST_NAME).unlink()  # generation unknown; sitemap-1-*.xml still on disk
    m = write_sitemaps(_entries("b", 25), tmp_path, BASE, max_urls=10)
    assert [f.path.name for f in m.sitemaps] == ["sitemap-2-1.xml", "sitemap-2-2.xml", "sitemap-2-3.xml"]
    assert (tmp_path / "sitemap-1-1.xml").exists()  # not ours any more (no manifest listed it): left alone
    assert _published_urls(tmp_path, False) == {e.loc for e in _entries("b", 25)}


def test_a_failed_rename_keeps_the_old_set_and_takes_back_new_children(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_sitemaps(_entries("a", 25), tmp_path, BASE, max_urls=10)
    before = sorted(p.name for p in tmp_path.iterdir())
    real = os.replace
    calls = [0]

    def failing(src: Any, dst: Any) -> None:
        if Path(dst).name.startswith("sitemap-2-"):
            calls[0] += 1
            if calls[0] == 2:
                raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(Exception, match="No space left"):
        write_sitemaps(_entries("b", 25), tmp_path, BASE, max_urls=10)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert _published_urls(tmp_path, False) == {e.loc for e in _entries("a", 25)}


@pytest.mark.parametrize(("second", "entry"), [("html", "sitemap.html"), ("txt", "sitemap-txt.xml")])
def test_a_failure_after_one_format_swapped_keeps_that_format_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str, entry: str) -> None:
    """The XML index is in place when the second format's entry point fails to move in: the new XML set keeps
    its children (the index lists them) and the second format stays the old set, whole."""
    kwargs: dict[str, Any] = {"max_urls": 10, "formats": ("xml", second)}
    write_sitemaps(_entries("a", 25), tmp_path, BASE, **kwargs)
    real = os.replace

    def failing(src: Any, dst: Any) -> None:
        if Path(dst).name == entry:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(Exception, match="No space left"):
        write_sitemaps(_entries("b", 35), tmp_path, BASE, **kwargs)
    monkeypatch.undo()
    assert _published_urls(tmp_path, False) == {e.loc for e in _entries("b", 35)}
    if second == "txt":
        assert _published_text_urls(tmp_path, False) == {e.loc for e in _entries("a", 25)}
    else:
        _html_pages_exist(tmp_path)
        assert 'href="/a/0"' in (tmp_path / "sitemap-1-1.html").read_text(encoding="utf-8")
