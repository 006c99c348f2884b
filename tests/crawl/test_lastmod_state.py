"""What the crawl state keeps for honest lastmod: first sight vs. seen before, and the URLs new or changed in a
crawl (what a submission of the crawl's changes sends)."""

from __future__ import annotations

from pathlib import Path

from sitemapkit.crawl import CrawlState


def _page(st: CrawlState, url: str, fingerprint: str, *, in_sitemap: bool = True) -> None:
    uid = st.add_url(url, 0)
    st.record(uid, status=200, in_sitemap=in_sitemap, lastmod=None, fingerprint=fingerprint)


def test_crawl_state_tells_first_sight_and_lists_changed_urls(tmp_path: Path) -> None:
    with CrawlState(tmp_path / "s.sqlite") as st:
        st.start_new("http://e.com/", "T1")
        assert st.previous_page("http://e.com/a") is None
        _page(st, "http://e.com/a", "fa")
        _page(st, "http://e.com/b", "fb")
        assert list(st.changed_urls()) == ["http://e.com/a", "http://e.com/b"]  # first crawl: all new
        st.start_new("http://e.com/", "T2")
        assert st.previous_page("http://e.com/a") == ("fa", None)  # seen, undated
        _page(st, "http://e.com/a", "fa")
        _page(st, "http://e.com/b", "fb2")
        _page(st, "http://e.com/c", "fc")
        _page(st, "http://e.com/d", "fd", in_sitemap=False)
        assert list(st.changed_urls()) == ["http://e.com/b", "http://e.com/c"]
