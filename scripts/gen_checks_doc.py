"""Generate the problem-code docs from the code registry (``sitemapkit.all_codes``): docs/checks.md, the table of
every validator check with an example, and docs/codes.md, every code any command can print with its title, its
cause and its fix.

    python scripts/gen_checks_doc.py          # rewrite docs/checks.md and docs/codes.md
    python scripts/gen_checks_doc.py --check  # exit 1 when a committed file is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from sitemapkit import all_codes
from sitemapkit.core import CODE_ALIASES
from sitemapkit.validate._codes import EXAMPLES, GOOGLE_CODES, VALIDATOR_CODES

DOCS = Path(__file__).resolve().parent.parent / "docs"
DOC = DOCS / "checks.md"
CODES_DOC = DOCS / "codes.md"

HEADER = """\
# Validator checks

Every problem `sitemapkit validate` reports has a stable code, a severity and a location
(`file:line:column`, plus the `<loc>` it concerns). Errors make a sitemap invalid (exit status 1); warnings do
not, unless `--fail-on warning`. The **google** profile (the default) adds the `SM4xx` checks to the protocol
checks of the **sitemaps** profile. Where the sources disagree the stricter reading is applied and the message
says so (loc length, lastmod time zones, video duration, empty news sitemaps).

This file is generated from the code registry by `scripts/gen_checks_doc.py`; a test fails when it is out of
date. Problems of the reader (`SM1xx`) can also appear for feeds, which are read through the reader. Every code
of every command, with its cause, is in [codes.md](codes.md).

| Code | Severity | Profile | Problem | Fix | Example |
|---|---|---|---|---|---|
"""

CODES_HEADER = """\
# Problem codes

Every problem a sitemapkit command prints has a stable code (`SMnnn`), a severity and a location:
`source:line:column: severity CODE: message`. This page lists every code with what it means, why it happens and
how to fix it, grouped by the part of sitemapkit that reports it. It is generated from the code registry
(`sitemapkit.all_codes()`) by `scripts/gen_checks_doc.py`; a test fails when a code lacks its cause or fix, or
when this page is out of date. The validator's checks, with an example of each, are also in
[checks.md](checks.md).
"""

#: Each area of the registry: its heading and the commands that print its codes.
AREAS = {
    "reader": ("Reading sitemaps (SM1xx)", "`urls`, `validate`, `diff`, `discover`, `generate` (sitemap and feed "
               "inputs), `harvest`, `audit`"),
    "validator": ("Validation (SM2xx-SM4xx)", "`validate`"),
    "fetch": ("Fetching, robots.txt and discovery (SM5xx)", "`urls`, `validate` and `discover` given URLs, `diff`, "
              "`harvest`, `audit`, `submit`"),
    "submit": ("robots.txt checks (SM54x)", "`robots --check`, `submit`"),
    "writer": ("Writing sitemaps (SM6xx)", "`generate`, `crawl`"),
    "crawl": ("Crawling (SM7xx)", "`crawl`"),
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _html_cell(text: str) -> str:
    """A table cell whose ``<url>``-like words show as written (not taken for HTML tags)."""
    return _cell(text).replace("&", "&amp;").replace("<", "&lt;")


def render() -> str:
    rows = []
    codes = all_codes()
    for code in VALIDATOR_CODES:
        pc = codes[code]
        profile = "google" if code in GOOGLE_CODES else "all"
        rows.append(f"| {code} | {pc.severity.value} | {profile} | {_cell(pc.title)} | {_cell(pc.fix)} | "
                    f"`{_cell(EXAMPLES[code])}` |")
    return HEADER + "\n".join(rows) + "\n"


def render_codes() -> str:
    codes = all_codes()
    unknown = sorted({pc.area for pc in codes.values()} - AREAS.keys())
    if unknown:
        raise SystemExit(f"scripts/gen_checks_doc.py: no heading for the area(s) {', '.join(unknown)}")
    parts = [CODES_HEADER]
    for area, (heading, commands) in AREAS.items():
        parts.append(f"\n## {heading}\n\nPrinted by {commands}.\n\n| Code | Severity | Problem | Cause | Fix |\n"
                     "|---|---|---|---|---|\n")
        parts.extend(f"| {code} | {pc.severity.value} | {_html_cell(pc.title)} | {_html_cell(pc.cause)} | "
                     f"{_html_cell(pc.fix)} |\n" for code, pc in codes.items() if pc.area == area)
    if CODE_ALIASES:
        parts.append("\n## Former codes\n\nCodes sitemapkit printed before one concept got one code everywhere; "
                     "they are printed as the new code now.\n\n| Former code | Now |\n|---|---|\n")
        parts.extend(f"| {old} | {new} |\n" for old, new in sorted(CODE_ALIASES.items()))
    return "".join(parts)


def main(argv: list[str]) -> int:
    outputs = {DOC: render(), CODES_DOC: render_codes()}
    if "--check" in argv:
        stale = [path for path, text in outputs.items()
                 if (path.read_text(encoding="utf-8") if path.exists() else "") != text]
        for path in stale:
            print(f"{path} is out of date: run python scripts/gen_checks_doc.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
