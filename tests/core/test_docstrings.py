"""help(sitemapkit): every public class and function has a docstring with an example (or a pointer to one), and
read_file fails with the project's own errors for a path that is not a readable file."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import sitemapkit
from sitemapkit.core import InputError, NotAFileError, SourceNotFoundError

PUBLIC = sorted(n for n in sitemapkit.__all__
                if inspect.isclass(getattr(sitemapkit, n)) or inspect.isfunction(getattr(sitemapkit, n)))


def test_the_public_api_is_checked() -> None:
    assert {"UrlEntry", "read_file", "write_sitemaps", "SitemapSetWriter", "LastMod"} <= set(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_docstring_has_an_example(name: str) -> None:
    doc = inspect.getdoc(getattr(sitemapkit, name)) or ""
    assert doc.strip(), f"{name} has no docstring"
    assert "example" in doc.lower() or ">>>" in doc, f"{name}: the docstring has no example nor a pointer to one"


def test_read_file_missing_is_the_projects_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.xml"
    with pytest.raises(SourceNotFoundError) as info:
        sitemapkit.read_file(missing)
    assert isinstance(info.value, InputError)
    assert isinstance(info.value, FileNotFoundError)  # still an OSError for callers that catch those
    assert str(info.value) == f"{missing}: no such file or directory"


def test_read_file_directory_is_the_projects_error(tmp_path: Path) -> None:
    with pytest.raises(NotAFileError) as info:
        sitemapkit.read_file(tmp_path)
    assert isinstance(info.value, InputError)
    assert "is a directory" in str(info.value)


def test_iter_events_missing_is_the_projects_error(tmp_path: Path) -> None:
    events = sitemapkit.iter_events(tmp_path / "missing.xml")
    with pytest.raises(SourceNotFoundError):
        next(iter(events))
