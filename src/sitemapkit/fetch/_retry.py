"""The retry policy of :class:`~sitemapkit.fetch.HttpClient`: which answers are retried, how long to wait
(exponential backoff with jitter) and how a ``Retry-After`` header is read."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field

__all__ = ["RetryPolicy", "parse_retry_after"]


def _default_retry_statuses() -> frozenset[int]:
    return frozenset({408, 429, 500, 502, 503, 504, 507, 509, 520, 521, 522, 523, 524})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before trying again.

    Retries happen on the ``statuses`` (408, 429 and the transient 5xx) and on transport errors. The wait before
    retry *n* (0-based) is ``min(backoff_max, backoff_base * 2**n)`` with "equal jitter" (half fixed, half
    random), unless the server sent ``Retry-After`` (seconds or an HTTP-date): then that, capped at
    ``retry_after_max``.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 120.0
    statuses: frozenset[int] = field(default_factory=_default_retry_statuses)

    def backoff(self, attempt: int) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * (2**attempt))
        return float(ceiling / 2 + random.uniform(0, ceiling / 2))


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait according to a ``Retry-After`` header (delta-seconds or HTTP-date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: digits beyond C ints
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)

