"""The crawl options ``crawl`` and ``audit`` share, built from the crawl layer's table
(:data:`sitemapkit.crawl.CRAWL_OPTION_SPECS`): one name, default, bound and help for both commands and the web app.

Use ``@crawl_options`` on a click command; it receives the values as one ``crawl_values`` keyword (a dict keyed by the
spec names) for :func:`sitemapkit.crawl.crawl_options_from`. ``@audit_crawl_options`` leaves out the options that
shape a sitemap (changefreq, priority, rules: audit writes none);"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from sitemapkit.cli._common import renamed_option
from sitemapkit.cli._specs import spec_options
from sitemapkit.crawl import CRAWL_OPTION_SPECS, OptionSpec

__all__ = ["audit_crawl_options", "crawl_options"]

F = TypeVar("F", bound=Callable[..., Any])


def _options(specs: tuple[OptionSpec, ...], keyword: str) -> Callable[[F], F]:
    names = [spec.name for spec in specs]

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            return func(*args, **{keyword: values}, **kwargs)

        decorated: Callable[..., Any] = wrapper
        if "stall_timeout" in names:
            decorated = renamed_option("--timeout", "--stall-timeout")(decorated)
        return spec_options(specs, decorated)  # type: ignore[return-value]

    return decorate


#: Add the shared crawl options; the command gets ``crawl_values: dict[str, Any]`` instead of one argument each.
crawl_options = _options(CRAWL_OPTION_SPECS, "crawl_values")
#: The crawl options without those that shape a sitemap (``audit``).
audit_crawl_options = _options(tuple(s for s in CRAWL_OPTION_SPECS if not s.sitemap), "crawl_values")
