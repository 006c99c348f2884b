"""The crawl's images and page titles, kept in the crawl state (tables ``image_uses`` and ``titles``).

With ``--images`` every image a fetched HTML page shows (``img src``, each ``srcset`` candidate, ``<picture>``
sources) is recorded against that page and queued like a link under the same rules (scope, robots.txt, traps):
the crawler checks it with HEAD (a small GET when HEAD is refused) and never downloads it whole. An image that
answers with an error status or not at all is a *broken image*, reported with the pages that use it. Image URLs
also stay in the ordinary link graph, so a broken image is a broken link of its pages too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sitemapkit.crawl._state import CrawlState

__all__ = ["BROKEN_IMAGES", "BrokenImage", "broken_images", "is_image", "record_images", "record_title",
           "title_lookup"]

#: The broken images among the state's URLs (an SQL condition on ``urls``).
BROKEN_IMAGES = ("state = 2 AND (status >= 400 OR error IS NOT NULL) AND id IN (SELECT img FROM image_uses)")

_BROKEN_QUERY = f"SELECT id, url, status, error FROM urls WHERE {BROKEN_IMAGES} ORDER BY url LIMIT ?"  # noqa: S608


@dataclass(frozen=True, slots=True)
class BrokenImage:
    url: str
    status: int | None
    error: str | None
    pages: list[str]  # the first pages that use it, by URL
    page_count: int

    def to_dict(self) -> dict[str, object]:
        return {"url": self.url, "status": self.status, "error": self.error, "pages": self.pages,
                "page_count": self.page_count}


def record_images(state: CrawlState, page: int, images: Sequence[int]) -> None:
    state.db.executemany("INSERT OR IGNORE INTO image_uses(img, page) VALUES (?, ?)", [(i, page) for i in images])


def is_image(state: CrawlState, url_id: int) -> bool:
    """True when some page shows ``url_id`` as an image (checked with HEAD, never downloaded whole)."""
    return state.db.execute("SELECT 1 FROM image_uses WHERE img = ? LIMIT 1", (url_id,)).fetchone() is not None


def broken_images(state: CrawlState, limit: int | None = None, pages: int = 1000) -> Iterator[BrokenImage]:
    """The broken images by URL, each with the first ``pages`` pages that use it and their number."""
    cur = state.db.execute(_BROKEN_QUERY, (-1 if limit is None else limit,))
    for img, url, status, error in cur:
        used = state.db.execute("SELECT u.url FROM image_uses i JOIN urls u ON u.id = i.page WHERE i.img = ? "
                                "ORDER BY u.url LIMIT ?", (img, pages)).fetchall()
        count = state.db.execute("SELECT count(*) FROM image_uses WHERE img = ?", (img,)).fetchone()[0]
        yield BrokenImage(str(url), status, error, [str(r[0]) for r in used], int(count))


def record_title(state: CrawlState, page: int, title: str) -> None:
    state.db.execute("INSERT OR REPLACE INTO titles(page, title) VALUES (?, ?)", (page, title))


def title_lookup(state: CrawlState, crawled_url: Callable[[str], str] | None = None) -> Callable[[str], str | None]:
    """A page's title by the URL written to the sitemap (``crawled_url`` maps it back to the URL crawled, for a
    staging crawl): one indexed query a page, so no crawl's titles are all held in memory."""
    query = "SELECT t.title FROM urls u JOIN titles t ON t.page = u.id WHERE u.url = ?"

    def title(url: str) -> str | None:
        row = state.db.execute(query, (crawled_url(url) if crawled_url is not None else url,)).fetchone()
        return None if row is None else str(row[0])

    return title
