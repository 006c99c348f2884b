"""The help of the changefreq / priority options (``--changefreq``, ``--priority``, ``--rule``), for every front
end; apart from :mod:`sitemapkit.core._hints` so a command's help does not load the rules model."""

from __future__ import annotations

__all__ = ["HINT_HELP"]

_IGNORED = "Google ignores changefreq and priority; Bing and other engines may read them."
#: The help of the three options, by name, for every front end (``crawl``, ``generate``, the web app).
HINT_HELP = {
    "changefreq": f"changefreq for every URL that has none (a --rule may set another). {_IGNORED}",
    "priority": "priority (0.0 to 1.0) for every URL that has none, or 'depth': 1.0 for the home page, 0.1 less "
                f"per path segment, at least 0.1. {_IGNORED}",
    "rule": "'GLOB changefreq=VALUE priority=VALUE' (either key optional; repeatable): URLs whose path matches "
            "GLOB ('*' spans '/', e.g. '/blog/*') get these values; the first matching rule wins, then --changefreq "
            "/ --priority. Values an input row gives are kept.",
}
