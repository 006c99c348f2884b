"""The submit capability: keep sitemaps fresh and tell search engines (diff, IndexNow, Search Console, WebSub,
robots.txt Sitemap lines)."""

from __future__ import annotations

__all__: list[str] = []
