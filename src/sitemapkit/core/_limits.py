"""Protocol limits and default budgets, as named constants. Every one can be overridden where it is used."""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_DECOMPRESSED_BYTES",
    "INDEXNOW_ENDPOINT",
    "INDEXNOW_MAX_BATCH",
    "MAX_ALTERNATES_PER_URL",
    "MAX_CHILDREN_PER_KIND",
    "MAX_CONCURRENCY",
    "MAX_IMAGES_PER_URL",
    "MAX_INDEX_ENTRIES",
    "MAX_LOC_LENGTH",
    "MAX_NEWS_PER_SITEMAP",
    "MAX_SITEMAP_BYTES",
    "MAX_URLS_PER_SITEMAP",
    "MAX_VIDEOS_PER_URL",
    "MAX_VIDEO_DESCRIPTION_LENGTH",
    "MAX_VIDEO_DURATION",
    "MAX_VIDEO_TAGS",
    "MAX_WORKERS",
]

#: URLs in one sitemap file (sitemaps.org; RULES.md 9).
MAX_URLS_PER_SITEMAP = 50_000
#: Uncompressed bytes of one sitemap or index file (50 MiB; RULES.md 9-10).
MAX_SITEMAP_BYTES = 52_428_800
#: <sitemap> entries in one index file (RULES.md 10).
MAX_INDEX_ENTRIES = 50_000
#: Characters in a <loc>; the XSD's maxLength (the prose says "less than 2,048", see CONTRADICTIONS.md 3).
MAX_LOC_LENGTH = 2048
#: <news:news> elements in one sitemap (Google; RULES.md 23).
MAX_NEWS_PER_SITEMAP = 1000
#: <image:image> elements in one <url> (Google; RULES.md 21).
MAX_IMAGES_PER_URL = 1000
#: <xhtml:link> alternates kept per <url> (Google states no limit; one per language-region version of a page, and
#: real sites have tens: the excess is reported and dropped, so that one <url> cannot grow memory without bound).
MAX_ALTERNATES_PER_URL = 1000
#: <video:video> elements kept per <url> (Google states no limit; a page with more than a few is a gallery).
MAX_VIDEOS_PER_URL = 1000
#: Child elements of one tag kept per entry (a <url>, <sitemap> or feed item) when no cap above names the tag,
#: and per element below it (e.g. <video:tag> in one <video:video>, before MAX_VIDEO_TAGS is judged): the excess is
#: reported and dropped while the entry is read, so memory does not grow with one entry.
MAX_CHILDREN_PER_KIND = 1000
#: <video:tag> elements in one <video:video> (Google; RULES.md 22).
MAX_VIDEO_TAGS = 32
#: Seconds; <video:duration> upper bound (RULES.md 22).
MAX_VIDEO_DURATION = 28_800
#: Characters in <video:description> (RULES.md 22).
MAX_VIDEO_DESCRIPTION_LENGTH = 2048
#: Default budget for bytes produced by decompression while reading one document: a real 50 MiB sitemap
#: fits with room to spare, a gzip bomb does not get far.
DEFAULT_MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024

#: IndexNow's shared endpoint: engines that take part pass submissions on to each other (here, below every layer,
#: so that command options can show it without loading the submit capability).
INDEXNOW_ENDPOINT = "https://api.indexnow.org/indexnow"
#: URLs per IndexNow POST at most (the protocol's limit).
INDEXNOW_MAX_BATCH = 10_000

#: Simultaneous requests one command may run (``crawl`` / ``audit`` / ``discover`` / ``urls`` / ``validate``
#: ``--concurrency``, the web API's ``concurrency``, ``harvest --threads``). Each one is a task or a thread with
#: its buffers and connection, created up front: ``--concurrency 1000000000`` took gigabytes before fetching a
#: page. More than this many requests at once helps no single site and only costs memory.
MAX_CONCURRENCY = 256
#: Local Dask worker processes (``harvest --workers``, ``generate DATA --workers``): each one is a Python process
#: of its own (tens of MB before it does anything).
MAX_WORKERS = 64
