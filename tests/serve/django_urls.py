"""ROOT_URLCONF of the in-process Django tests: the patterns are set by each test (``set_patterns``)."""

from __future__ import annotations

from typing import Any

urlpatterns: list[Any] = []


def set_patterns(patterns: list[Any]) -> None:
    from django.urls import clear_url_caches

    urlpatterns[:] = patterns
    clear_url_caches()
