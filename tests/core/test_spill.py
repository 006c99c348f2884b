"""core._spill.SpillList: an index's children kept in flat memory, read back in order, as often as needed."""

from __future__ import annotations

from sitemapkit.core._spill import SpillList


def test_pairs_past_the_limit_go_to_disk_and_come_back_in_order() -> None:
    items = [(f"https://example.com/s-{i}.xml\n\t\"é", i if i % 3 else None) for i in range(25)]
    spill = SpillList(limit=10)
    for item in items:
        spill.append(item)
    assert len(spill) == 25
    assert len(spill._head) == 10  # the rest is on disk
    assert list(spill) == items
    spill.append(("https://example.com/late.xml", 99))  # appends after a read go on at the end
    assert list(spill) == [*items, ("https://example.com/late.xml", 99)]
    spill.close()
    assert list(spill) == items[:10]


def test_an_empty_list_is_false_and_a_short_one_never_touches_disk() -> None:
    spill = SpillList(limit=10)
    assert not spill
    spill.append(("https://example.com/a.xml", 1))
    assert spill
    assert spill._file is None
    assert list(spill) == [("https://example.com/a.xml", 1)]
