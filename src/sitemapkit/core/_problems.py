"""Problems: what readers, validators and fetchers found, as values (never raised in lenient mode)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = [
    "CODES",
    "CODE_ALIASES",
    "CODE_CAUSES",
    "QUOTE_CHARS",
    "Location",
    "Problem",
    "ProblemCode",
    "ProblemTally",
    "Severity",
    "define_alias",
    "define_code",
    "describe_causes",
    "escape_controls",
    "escape_json_controls",
    "plural",
    "problem_line",
    "quote_value",
    "shorten",
]

#: How many characters of a value a message quotes; longer values are cut and their length is given instead.
QUOTE_CHARS = 200

# What must never reach a terminal raw: C0 controls (tab and newline too: a diagnostic is one line), DEL, C1
# controls, the Unicode line/paragraph separators, the bidi embeddings/overrides/isolates (they reorder what is
# shown) and lone surrogates (they cannot be encoded for output at all).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape_one(m: re.Match[str]) -> str:
    ch = m.group()
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def plural(n: int, noun: str) -> str:
    """``1 URL``, ``2 URLs``, ``12,000 URLs``: a count with its noun (plural by adding s)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def escape_controls(text: str) -> str:
    """``text`` safe to show on a terminal or in a one-line diagnostic: control characters (C0 including tab and
    newline, DEL, C1), U+2028/U+2029, bidi overrides and isolates, and lone surrogates are written as Python-style
    escapes (``\\x1b``, ``\\t``, ``\\u202e``). Everything else, backslashes included, is kept as it is."""
    if _CONTROLS.search(text) is None:
        return text
    return _CONTROLS.sub(_escape_one, text)


# The same set without C0 (JSON escapes those itself): what json.dumps(..., ensure_ascii=False) leaves raw.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def escape_json_controls(json_text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with the characters :func:`escape_controls` escapes
    and JSON leaves raw (DEL, C1, U+2028/U+2029, bidi controls, lone surrogates) written as ``\\uXXXX``: the same
    JSON value, safe on a terminal. Valid because such characters can only occur inside JSON strings."""
    if _JSON_RAW.search(json_text) is None:
        return json_text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def shorten(value: str, limit: int = QUOTE_CHARS) -> str:
    """``value`` itself when at most ``limit`` characters, else its first ``limit`` characters followed by
    ``... (N characters)``: how a message shows a value that may be arbitrarily long."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}... ({len(value):,} characters)"


def quote_value(value: str, limit: int = QUOTE_CHARS) -> str:
    """A value quoted in a message (``repr`` style), cut like :func:`shorten` when longer than ``limit``. Use it
    wherever a message quotes a value from the input, so that no message grows with the input."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


class Severity(enum.Enum):
    """How bad a problem is. Errors make a sitemap invalid; warnings do not.

    Example: ``[p for p in result.problems if p.severity is Severity.ERROR]`` (what ``result.errors`` gives).
    """

    ERROR = "error"
    WARNING = "warning"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Location:
    """Where a problem is: a file path or URL, 1-based line and column when known, and the loc it concerns."""

    source: str
    line: int | None = None
    column: int | None = None
    loc: str | None = None

    def format(self) -> str:
        """``source:line:column`` for humans (control characters in the source escaped)."""
        parts = [escape_controls(self.source)]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: a stable ``code`` (``SM101``), a severity, a one-line message and a location.

    Example: ``for problem in read_file("sitemap.xml").problems: print(problem.format())``.
    """

    code: str
    severity: Severity
    message: str
    location: Location

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def format(self) -> str:
        """Compiler-style line for humans: ``source:line:column: severity code: message``, always one line:
        control characters from the input are escaped (:func:`escape_controls`); :meth:`to_dict` keeps them."""
        return f"{self.location.format()}: {self.severity.value} {self.code}: {escape_controls(self.message)}"

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "source": self.location.source,
            "line": self.location.line,
            "column": self.location.column,
            "loc": self.location.loc,
        }


def problem_line(problem: Problem) -> str:
    """``severity code: message (source:line)``: a problem on a line of a report that already names what it is
    about (the location in parentheses, when it has one; control characters escaped)."""
    where = problem.location.format()
    return f"{problem.severity.value} {problem.code}: {escape_controls(problem.message)}" + (
        f" ({where})" if where else "")


@dataclass(frozen=True, slots=True)
class ProblemCode:
    """A registered problem code: its default severity, a short title and the fix, for the docs table."""

    code: str
    severity: Severity
    title: str
    fix: str
    area: str

    @property
    def cause(self) -> str:
        """Why the problem happens, for the user docs (given by the defining layer with :func:`describe_causes`;
        "" when none was given)."""
        return CODE_CAUSES.get(self.code, "")

    def problem(
        self,
        location: Location,
        message: str | None = None,
        *,
        severity: Severity | None = None,
    ) -> Problem:
        """Build a :class:`Problem` with this code (message defaults to the title)."""
        return Problem(self.code, severity or self.severity, message or self.title, location)


#: Problem codes by code. Each layer registers its own codes when its face (``sitemapkit.read``, ...) is imported,
#: so this holds every code of the layers imported so far: always the code of any problem in hand, since the
#: module that reported it was imported. Core knows no layer above it; ``sitemapkit.all_codes()`` (the top level)
#: imports every layer that defines codes and returns all of them, sorted by code.
CODES: dict[str, ProblemCode] = {}


#: Why each code's problem happens (code -> a sentence or two), for the user docs (``docs/codes.md``).
CODE_CAUSES: dict[str, str] = {}
#: Codes sitemapkit no longer prints, each with the code that replaced it (old -> new), for the docs.
CODE_ALIASES: dict[str, str] = {}


def define_code(code: str, severity: Severity, title: str, fix: str, *, area: str) -> ProblemCode:
    """Register a problem code. Codes are unique and stable: ``SM1xx`` reader, ``SM2xx``-``SM4xx`` validator,
    ``SM5xx`` fetch/discover, ``SM6xx`` writer, ``SM7xx`` crawler (a concept two layers report has one code,
    defined by the lower layer: SM306, a URL listed twice, is the reader's)."""
    if code in CODES or code in CODE_ALIASES:
        raise RuntimeError(f"problem code {code} defined twice")
    pc = ProblemCode(code, severity, title, fix, area)
    CODES[code] = pc
    return pc


def describe_causes(causes: dict[str, str]) -> None:
    """Give the cause of each of a layer's codes (code -> why it happens), shown in the user docs beside the
    title and the fix."""
    CODE_CAUSES.update(causes)


def define_alias(old: str, new: str) -> None:
    """Record that code ``old`` is printed as ``new`` now (one concept, one code); the docs list it."""
    if old in CODES or new not in CODES:
        raise RuntimeError(f"alias {old} -> {new}: {old} must be unused and {new} defined")
    CODE_ALIASES[old] = new


class ProblemTally:
    """Problems of a long job counted per code, the first ``cap`` of each kept (memory stays flat however many a
    bad input gives), errors counted apart. Call it with each problem; ``counts`` holds the true count of every
    code, ``kept`` the problems kept, in order. Picklable (partitions send theirs back from other processes)."""

    __slots__ = ("cap", "counts", "errors", "kept")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.counts: dict[str, int] = {}
        self.kept: list[Problem] = []
        self.errors = 0

    def __call__(self, problem: Problem) -> int:
        """Count ``problem``; returns how many of its code there are now (it was kept when that is <= ``cap``)."""
        n = self.counts.get(problem.code, 0) + 1
        self.counts[problem.code] = n
        if problem.severity is Severity.ERROR:
            self.errors += 1
        if n <= self.cap:
            self.kept.append(problem)
        return n
