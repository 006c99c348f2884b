"""The User-Agent the HTTP client sends unless told otherwise (apart from ``_http`` so that command options can
show it without loading the HTTP stack)."""

from __future__ import annotations

from sitemapkit.core import VERSION

__all__ = ["DEFAULT_USER_AGENT"]

#: The User-Agent sent unless another one is configured: names the tool and where to read about it.
DEFAULT_USER_AGENT = f"sitemapkit/{VERSION} (+https://github.com/sitemapkit/sitemapkit)"
