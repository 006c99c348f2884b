"""Problems: what readers, validators and fetchers found, as values (never raised in lenient mode)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["CODES", "Location", "Problem", "ProblemCode", "Severity", "all_codes", "define_code"]


class Severity(enum.Enum):
    """How bad a problem is. Errors make a sitemap invalid; warnings do not."""

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
        parts = [self.source]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: a stable ``code`` (``SM101``), a severity, a one-line message and a location."""

    code: str
    severity: Severity
    message: str
    location: Location

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def format(self) -> str:
        """Compiler-style line: ``source:line:column: severity code: message``."""
        return f"{self.location.format()}: {self.severity.value} {self.code}: {self.message}"

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


@dataclass(frozen=True, slots=True)
class ProblemCode:
    """A registered problem code: its default severity, a short title and the fix, for the docs table."""

    code: str
    severity: Severity
    title: str
    fix: str
    area: str

    def problem(
        self,
        location: Location,
        message: str | None = None,
        *,
        severity: Severity | None = None,
    ) -> Problem:
        """Build a :class:`Problem` with this code (message defaults to the title)."""
        return Problem(self.code, severity or self.severity, message or self.title, location)


#: Problem codes by code, filled at import time by each area's module. Areas load lazily (see ``__init__``), so
#: this holds the codes of the areas imported so far; :func:`all_codes` returns every code the package defines.
CODES: dict[str, ProblemCode] = {}

# The modules that call define_code, imported by all_codes(). tests/core pins that this list is complete.
_CODE_MODULES = (
    "sitemapkit._read_codes",
    "sitemapkit._validate_codes",
    "sitemapkit._writers",
    "sitemapkit._inputs",
    "sitemapkit._robots",
    "sitemapkit._walk",
    "sitemapkit._discover",
    "sitemapkit._crawl",
)


def all_codes() -> dict[str, ProblemCode]:
    """Every problem code the package defines (imports each area that defines codes), sorted by code."""
    import importlib

    for module in _CODE_MODULES:
        importlib.import_module(module)
    return dict(sorted(CODES.items()))


def define_code(code: str, severity: Severity, title: str, fix: str, *, area: str) -> ProblemCode:
    """Register a problem code. Codes are unique and stable: ``SM1xx`` reader, ``SM2xx``-``SM4xx`` validator,
    ``SM5xx`` fetch/discover, ``SM6xx`` writer, ``SM7xx`` crawler."""
    if code in CODES:
        raise RuntimeError(f"problem code {code} defined twice")
    pc = ProblemCode(code, severity, title, fix, area)
    CODES[code] = pc
    return pc
