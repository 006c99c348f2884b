"""What a validation run returns: :class:`FileReport` per file and the :class:`ValidationReport`, assembled from the
per-file contexts (problems sorted by position, with columns added from the document's bytes)."""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from sitemapkit.core import Problem, Severity
from sitemapkit.validate._columns import add_columns
from sitemapkit.validate._context import MAX_PROBLEMS_PER_CODE, FileContext, Profile

__all__ = ["FileReport", "SkippedFile", "ValidationReport", "assemble", "order_key"]


@dataclass(frozen=True, slots=True)
class FileReport:
    """What was validated: the file, what it is, how many entries, and its counts of errors and warnings."""

    source: str
    kind: str
    entries: int
    errors: int
    warnings: int
    sitemap_url: str | None = None
    #: Problems found per code, every one (the report lists at most ``max_problems`` of a code per file).
    tally: dict[str, int] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "kind": self.kind, "entries": self.entries, "errors": self.errors,
                "warnings": self.warnings, "sitemap_url": self.sitemap_url, "tally": dict(sorted(self.tally.items()))}


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file of a directory that was not validated because it is not a sitemap (``robots.txt``, an HTML page)."""

    source: str
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The result of a run. ``valid`` is True when no error was found (warnings allowed).

    Example: ``report = sitemapkit.validate_sitemaps(["public/sitemap.xml"])``, then ``report.valid``,
    ``report.problems``.
    """

    files: tuple[FileReport, ...]
    problems: tuple[Problem, ...]
    profile: Profile
    now: datetime
    dropped: int = 0  # problems counted but not listed (more than max_problems of one code in one file)
    skipped: tuple[SkippedFile, ...] = ()
    max_problems: int = MAX_PROBLEMS_PER_CODE

    @property
    def tally(self) -> dict[str, int]:
        """Problems found per code across the files: true counts, listed or not."""
        total: Counter[str] = Counter()
        for f in self.files:
            total.update(f.tally)
        return dict(sorted(total.items()))

    @property
    def error_count(self) -> int:
        return sum(f.errors for f in self.files)

    @property
    def warning_count(self) -> int:
        return sum(f.warnings for f in self.files)

    @property
    def valid(self) -> bool:
        return self.error_count == 0

    def passes(self, fail_on: Severity = Severity.ERROR) -> bool:
        """True when nothing at or above ``fail_on`` was found."""
        if fail_on is Severity.WARNING:
            return self.error_count == 0 and self.warning_count == 0
        return self.valid

    def codes(self) -> list[str]:
        return sorted({p.code for p in self.problems})

    def to_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "profile": self.profile.value,
            "now": self.now.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "errors": self.error_count,
            "warnings": self.warning_count,
            "files": [f.to_dict() for f in self.files],
            "skipped": [s.to_dict() for s in self.skipped],
            "tally": self.tally,
            "not_listed": self.dropped,
            "problems": [p.to_dict() for p in self.problems],
        }


def order_key(p: Problem) -> tuple[int, int, str]:
    return (p.location.line or 0, p.location.column or 0, p.code)


def file_report(ctx: FileContext) -> FileReport:
    return FileReport(ctx.source, ctx.kind, ctx.entries, ctx.error_count, ctx.warning_count, ctx.sitemap_url,
                      dict(ctx.tally))


def assemble(found: Iterable[tuple[FileContext, Iterator[bytes] | None]], profile: Profile, now: datetime, *,
             skipped: Iterable[SkippedFile] = (), max_problems: int = MAX_PROBLEMS_PER_CODE) -> ValidationReport:
    """The report of the files validated: each context with the document's plain bytes (for the columns; None
    when there are none), in the order validated."""
    problems: list[Problem] = []
    files: list[FileReport] = []
    dropped = 0
    for ctx, chunks in found:
        kept = ctx.problems
        if chunks is not None and any(p.location.line is not None for p in kept):
            try:
                kept = add_columns(kept, chunks)
            except (OSError, zlib.error):
                pass  # columns are a convenience; the problems stand without them
        problems.extend(sorted(kept, key=order_key))
        files.append(file_report(ctx))
        dropped += ctx.dropped
    return ValidationReport(tuple(files), tuple(problems), profile, now, dropped, tuple(skipped), max_problems)
