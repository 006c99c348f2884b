"""W3C Datetime values (https://www.w3.org/TR/NOTE-datetime) that keep what they were given.

A date stays a date, a time keeps its precision (minutes, seconds, fractions) and its UTC offset exactly as
written: ``2024-05-01T10:00+05:00`` is never rewritten to UTC. ``LastMod`` stores the canonical text and
computes ``datetime`` / ``date`` views on demand.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone

from sitemapkit.core._errors import InvalidValueError

__all__ = ["LASTMOD_COMMON_FORM", "LASTMOD_VALID_FORM", "LastMod", "Precision", "parse_lastmod_lenient"]


class Precision(enum.Enum):
    """How much of a W3C Datetime was given."""

    YEAR = "year"
    MONTH = "month"
    DAY = "day"
    MINUTE = "minute"
    SECOND = "second"
    FRACTION = "fraction"


# Every W3C Datetime form, plus a time without a zone designator (accepted by the XSD's xsd:dateTime and
# common in the wild; ``LastMod.is_strict_w3c`` tells the validator it lacks the TZD W3C requires).
_W3C = re.compile(
    r"(?P<y>\d{4})(?:-(?P<mo>\d{2})(?:-(?P<d>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d+))?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2})?)?)?)?",
    re.ASCII,  # W3C digits are ASCII ones; ``\d`` would also take other scripts' digits
)


def _check(m: re.Match[str], text: str) -> None:
    y, mo, d = int(m["y"]), m["mo"], m["d"]
    if y == 0:  # no year 0 in the proleptic Gregorian calendar Python's dates use (and the XSD has none)
        raise InvalidValueError(f"year out of range in lastmod {text!r}", field="lastmod", value=text)
    if mo is not None and not 1 <= int(mo) <= 12:
        raise InvalidValueError(f"month out of range in lastmod {text!r}", field="lastmod", value=text)
    if d is not None:
        try:
            date(y, int(mo or 1), int(d))
        except ValueError:
            raise InvalidValueError(f"day out of range in lastmod {text!r}", field="lastmod", value=text) from None
    if m["h"] is not None:
        if int(m["h"]) > 23 or int(m["mi"]) > 59 or (m["s"] is not None and int(m["s"]) > 59):
            raise InvalidValueError(f"time out of range in lastmod {text!r}", field="lastmod", value=text)
        tz = m["tz"]
        if tz and tz != "Z" and (int(tz[1:3]) > 14 or int(tz[4:6]) > 59):
            raise InvalidValueError(f"UTC offset out of range in lastmod {text!r}", field="lastmod", value=text)


# Forms that are valid by construction (month 01-12, day 01-28, hour 00-23, offset below 14:00): the common case
# needs one regex match and no range arithmetic. Everything else takes the full check below. The optional parts
# are possessive (``?+``): each starts with its own character, so there is never a second way to match and the
# engine need not keep backtracking points (~30% faster; same language).
_TIME = r"(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d++)?+)?+(?:Z|[+-](?:0\d|1[0-3]):[0-5]\d)?+)?+"
#: The lastmod texts that are valid by their form alone (what ``lastmod_of_valid_form`` takes).
_MONTH_DAY = rf"-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|1\d|2[0-8]){_TIME})?+"  # a month, and a day up to the 28th
LASTMOD_VALID_FORM = re.compile(rf"(?!0000)\d{{4}}(?:{_MONTH_DAY})?+", re.ASCII)
#: LASTMOD_VALID_FORM and the 29th and 30th of every month but February, the 31st of the months that have one:
#: texts that ``LastMod`` takes as they are (the days above the 28th through its full check). The longer
#: alternatives come first (the group is possessive).
LASTMOD_COMMON_FORM = re.compile(
    rf"(?!0000)\d{{4}}(?:-(?:0[13-9]|1[0-2])-(?:29|30){_TIME}|-(?:0[13578]|1[02])-31{_TIME}|{_MONTH_DAY})?+",
    re.ASCII)
_VALID_BY_FORM = LASTMOD_VALID_FORM.fullmatch


@dataclass(frozen=True, slots=True, order=False)
class LastMod:
    """A W3C Datetime. Build from text (``LastMod("2024-05-01")``) or with :meth:`of` from ``date`` /
    ``datetime`` / ``str``. Equality is on the text: the same instant written differently is not equal.

    Example: ``LastMod("2024-05-01").text``; ``LastMod.of(datetime(2024, 5, 1, 10, tzinfo=UTC)).text ==
    "2024-05-01T10:00:00Z"``.
    """

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InvalidValueError(f"lastmod text must be a string, got {type(self.text).__name__}",
                                    field="lastmod", value=self.text)
        text = self.text
        if _VALID_BY_FORM(text) is not None:
            return
        m = _W3C.fullmatch(text)
        if m is None:
            raise InvalidValueError(f"not a W3C Datetime: {text!r}", field="lastmod", value=text)
        _check(m, text)

    @classmethod
    def of(cls, value: LastMod | datetime | date | str) -> LastMod:
        """Convert a ``datetime`` (its precision and offset kept), a ``date`` or a W3C string."""
        if isinstance(value, LastMod):
            return value
        if isinstance(value, datetime):
            return cls(format_datetime(value))
        if isinstance(value, date):
            return cls(value.isoformat())
        if isinstance(value, str):
            return cls(value.strip())
        raise InvalidValueError(f"lastmod must be a datetime, date or string, got {type(value).__name__}",
                                field="lastmod", value=value)

    def __str__(self) -> str:
        return self.text

    @property
    def _match(self) -> re.Match[str]:
        m = _W3C.fullmatch(self.text)
        assert m is not None
        return m

    @property
    def precision(self) -> Precision:
        m = self._match
        if m["f"] is not None:
            return Precision.FRACTION
        if m["s"] is not None:
            return Precision.SECOND
        if m["h"] is not None:
            return Precision.MINUTE
        if m["d"] is not None:
            return Precision.DAY
        return Precision.MONTH if m["mo"] is not None else Precision.YEAR

    @property
    def has_time(self) -> bool:
        return "T" in self.text

    @property
    def has_timezone(self) -> bool:
        return self._match["tz"] is not None

    @property
    def is_strict_w3c(self) -> bool:
        """False for a time without a zone designator (W3C requires one whenever a time is given)."""
        return not self.has_time or self.has_timezone

    @property
    def is_xsd_valid(self) -> bool:
        """The sitemap XSD types lastmod as xsd:date | xsd:dateTime: a bare year, a year-month and a time
        without seconds are W3C Datetime but fail the XSD (CONTRADICTIONS.md 4)."""
        p = self.precision
        return p in (Precision.DAY, Precision.SECOND, Precision.FRACTION)

    @property
    def tzinfo(self) -> timezone | None:
        tz = self._match["tz"]
        if tz is None:
            return None
        if tz == "Z":
            return UTC
        sign = -1 if tz[0] == "-" else 1
        return timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[4:6])))

    def to_datetime(self) -> datetime:
        """The instant, with its offset as a fixed tzinfo (naive when none was given); missing parts are 1/0."""
        m = self._match
        frac = m["f"] or ""
        micro = int((frac + "000000")[:6]) if frac else 0
        return datetime(
            int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1),
            int(m["h"] or 0), int(m["mi"] or 0), int(m["s"] or 0), micro,
            tzinfo=self.tzinfo,
        )

    def to_date(self) -> date:
        m = self._match
        return date(int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1))


_new = object.__new__
_set_text = LastMod.__dict__["text"].__set__


def lastmod_of_valid_form(text: str) -> LastMod | None:
    """``LastMod(text)`` when ``text`` is in a form valid by construction (the first check of
    ``LastMod.__post_init__``), built without the frozen-dataclass ``__init__`` (the reader's hot path: one regex
    and one slot write). None for anything else: the caller then builds ``LastMod(text)``, which does the full
    check and raises what it raises."""
    if text.__class__ is not str or _VALID_BY_FORM(text) is None:
        return None
    value: LastMod = _new(LastMod)
    _set_text(value, text)
    return value


def format_offset(offset: timedelta) -> str:
    total = int(offset.total_seconds())
    sign = "-" if total < 0 else "+"
    total = abs(total)
    return f"{sign}{total // 3600:02d}:{total % 3600 // 60:02d}"


def format_datetime(value: datetime) -> str:
    """W3C text of a datetime: seconds always, microseconds when non-zero, the offset when aware (UTC spelled
    ``Z``, the one spelling every command writes)."""
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    offset = value.utcoffset()
    if offset is not None:
        text += "Z" if not offset else format_offset(offset)
    return text


# Lenient forms seen in the wild, each turned into W3C text.
_SPACE_SEP = re.compile(
    r"(\d{4}-\d{2}-\d{2})[ tT](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s*(z|Z|UTC|GMT|[+-]\d{2}:?\d{2}|[+-]\d{2})?",
    re.ASCII,
)
#: A UTC offset beyond this many seconds is no real zone (UTC-12 to UTC+14; RFC 822 allows +-9959 in form only).
_MAX_OFFSET = 14 * 3600
_LONG_NUMBER = re.compile(r"\d{5}", re.ASCII).search


def parse_lastmod_lenient(text: str) -> LastMod | None:
    """Read a date the way real sitemaps and feeds write it: strict W3C first, then ISO variants (space or
    lowercase ``t`` separator, ``+0200`` / ``+02`` offsets, comma fractions, ``UTC``), then RFC 822 dates as
    in RSS ``pubDate``. Returns ``None`` when nothing fits."""
    text = text.strip()
    if not text:
        return None
    try:
        return LastMod(text)
    except InvalidValueError:
        pass
    m = _SPACE_SEP.fullmatch(text)
    if m:
        day, clock, tz = m.group(1), m.group(2).replace(",", "."), m.group(3)
        if tz in (None, ""):
            tzs = ""
        elif tz in ("z", "Z", "UTC", "GMT"):
            tzs = "Z"
        else:
            digits = tz[1:].replace(":", "")
            tzs = f"{tz[0]}{digits[:2]}:{(digits[2:] or '00')}"
        try:
            return LastMod(f"{day}T{clock}{tzs}")
        except InvalidValueError:
            return None
    if _LONG_NUMBER(text) is not None:
        return None  # no RFC 822 field has more than 4 digits (the parser would drop such an offset silently)
    from email.utils import parsedate_tz  # here: only feeds and sloppy dates need it (5 ms at every start)

    try:
        parsed = parsedate_tz(text)
    except (ValueError, OverflowError):
        return None
    if parsed is None:
        return None
    y, mo, d, h, mi, s = parsed[:6]
    offset = parsed[9] or 0
    # The parser hands back whatever digits it found: a year of 20 digits or an offset of +99999999999999999999
    # is no date (and overflows datetime/timedelta, whose fields are C integers).
    if not (0 <= y <= 9999 and 1 <= mo <= 12 and 1 <= d <= 31 and 0 <= h <= 24 and 0 <= mi <= 59 and 0 <= s <= 61
            and -_MAX_OFFSET <= offset <= _MAX_OFFSET):
        return None
    if y < 100:  # RFC 822 two-digit years
        y += 2000 if y < 70 else 1900
    try:
        dt = datetime(y, mo, d, h, mi, s, tzinfo=timezone(timedelta(seconds=offset)))
        return LastMod(format_datetime(dt).replace("+00:00", "Z") if not offset else format_datetime(dt))
    except (ValueError, OverflowError, InvalidValueError):
        return None
