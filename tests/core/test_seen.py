"""core._seen.SeenSet: duplicate detection in bounded memory (issue 22)."""

from __future__ import annotations

import pytest

from sitemapkit.core._seen import MAYBE, NEW, SEEN, SeenSet


def test_exact_up_to_the_limit_then_the_filter() -> None:
    seen = SeenSet(exact_limit=10, bloom_bytes=1 << 12)
    assert [seen.add(f"u{j}") for j in range(10)] == [NEW] * 10
    assert seen.filter_bytes == 0  # no filter while the exact set has room
    assert seen.add("u3") == SEEN
    assert [seen.add(f"v{j}") for j in range(50)] == [NEW] * 50
    assert seen.exact_size == 10  # the exact set does not grow past its limit
    assert seen.filter_bytes == 1 << 12
    assert seen.in_filter == 50
    assert seen.add("u3") == SEEN
    assert seen.add("v7") == MAYBE
    assert seen.in_filter == 50


def test_a_full_filter_says_maybe_for_everything() -> None:
    """The filter's answer is a probability: when all its bits are set, every new key looks seen (the state the
    false-positive rate of the module describes, at its extreme)."""
    seen = SeenSet(exact_limit=0, bloom_bytes=8)
    for j in range(200):
        seen.add(j * 7919 + 1)
    assert seen.add("never added") == MAYBE
    assert seen.filter_bytes == 8


def test_bloom_size_must_be_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="power of two"):
        SeenSet(bloom_bytes=1000)
    with pytest.raises(ValueError, match="power of two"):
        SeenSet(bloom_bytes=4)

