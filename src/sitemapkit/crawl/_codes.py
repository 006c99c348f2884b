"""The crawl layer's problem codes (SM7xx). The face imports this module, so importing any part of the layer
registers them (see ``core/_problems.define_code``); the modules that report them import them from here.
"""

from __future__ import annotations

from sitemapkit.core import Severity, define_code, describe_causes

__all__ = ["SM701"]

SM701 = define_code("SM701", Severity.WARNING, "crawled page could not be written to the sitemap",
                    "The page's URL (or an image URL on it) breaks the protocol, e.g. longer than 2,048 characters "
                    "once encoded; shorten it or exclude it with --exclude.", area="crawl")
describe_causes({"SM701": "An indexable page's URL, or an image URL on it, cannot be written to a sitemap (too "
                          "long once encoded, or otherwise against the protocol)."})
