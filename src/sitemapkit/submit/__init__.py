"""The submit capability: keep sitemaps fresh and tell search engines.

- :func:`diff_sources` compares two sets of sitemaps (added, removed, changed URLs and which fields), with
  :func:`write_diff` to write the changes as text, JSON, CSV or (:func:`write_atom`) a delta feed;
- :func:`submit` tells search engines: IndexNow (batches by host, key file checked first), Google Search Console
  (``sitemaps.submit`` with a service account) and WebSub hubs; with a :class:`SubmitState` only what changed since
  the last run is sent. :func:`new_key` / :func:`write_key_file` make an IndexNow key;
- :func:`add_sitemaps` adds ``Sitemap:`` lines to a robots.txt file; :func:`check_site` checks a live one;
  :func:`lint_robots_file` checks one on disk (its ``Sitemap:`` lines, and the sitemaps they name in its folder).

Nothing here sends anything unless called to.
"""

from __future__ import annotations

from sitemapkit.submit._atom import write_atom
from sitemapkit.submit._diff import FIELDS, Change, DiffCounts, SourceDiff, diff_sources
from sitemapkit.submit._diffout import DIFF_FORMATS, write_diff
from sitemapkit.submit._indexnow import (
    DEFAULT_ENDPOINT,
    MAX_BATCH,
    IndexNowBatch,
    check_key,
    new_key,
    plan_batches,
    write_key_file,
)
from sitemapkit.submit._results import SubmitResult
from sitemapkit.submit._robotscheck import ListedSitemap, RobotsCheck, check_robots, check_site
from sitemapkit.submit._robotsfile import RobotsEdit, add_sitemaps
from sitemapkit.submit._robotslint import SM543, RobotsLint, lint_robots_file, lint_robots_files
from sitemapkit.submit._searchconsole import DEFAULT_API_ROOT, ServiceAccount
from sitemapkit.submit._state import SubmitState
from sitemapkit.submit._submit import SubmitOptions, SubmitReport, submit, submit_published
from sitemapkit.submit._websub import feed_links, link_header_links

__all__ = [
    "DEFAULT_API_ROOT",
    "DEFAULT_ENDPOINT",
    "DIFF_FORMATS",
    "FIELDS",
    "MAX_BATCH",
    "SM543",
    "Change",
    "DiffCounts",
    "IndexNowBatch",
    "ListedSitemap",
    "RobotsCheck",
    "RobotsEdit",
    "RobotsLint",
    "ServiceAccount",
    "SourceDiff",
    "SubmitOptions",
    "SubmitReport",
    "SubmitResult",
    "SubmitState",
    "add_sitemaps",
    "check_key",
    "check_robots",
    "check_site",
    "diff_sources",
    "feed_links",
    "link_header_links",
    "lint_robots_file",
    "lint_robots_files",
    "new_key",
    "plan_batches",
    "submit",
    "submit_published",
    "write_atom",
    "write_diff",
    "write_key_file",
]
