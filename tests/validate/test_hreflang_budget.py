"""The hreflang store's memory budget: a settled pair (one int) counts for a fifth of a waiting link (an int and
five strings), so a full sitemap of reciprocal en/de pairs stays in memory, while one-way links still spill."""

from __future__ import annotations

from sitemapkit.validate import _hreflang as H
from sitemapkit.validate._hreflang import HreflangStore


def test_fifty_thousand_reciprocal_pages_stay_in_memory() -> None:
    with HreflangStore() as store:
        for i in range(25_000):  # 50,000 pages, 25,000 settled pairs: the protocol's largest file
            en, de = f"https://shop.de/en/{i}", f"https://shop.de/de/{i}"
            store.add_page(en)
            store.add_page(de)
            store.add_links(en, [(de, "de", i)], "s.xml")
            store.add_links(de, [(en, "en", i)], "s.xml")
        assert store._db is None  # no scratch database (it was created at 25,000 settled pairs)
        assert len(store._settled) == 25_000
        assert list(store.non_reciprocal()) == []


def test_settled_pairs_still_spill_past_the_budget_and_one_way_links_as_before() -> None:
    with HreflangStore() as store:
        n = H.MAX_PENDING_LINKS * H.SETTLED_PER_LINK
        for i in range(n):
            a, b = f"https://shop.de/a/{i}", f"https://shop.de/b/{i}"
            store.add_links(a, [(b, "de", i)], "s.xml")
            store.add_links(b, [(a, "en", i)], "s.xml")
        assert store._db is not None
        assert len(store._settled) < n
    with HreflangStore() as store:
        for i in range(H.MAX_PENDING_LINKS):
            store.add_links(f"https://shop.de/x/{i}", [(f"https://shop.de/y/{i}", "de", i)], "s.xml")
        assert store.spilled == H.MAX_PENDING_LINKS
