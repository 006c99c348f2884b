"""Every validator code has a failing and a passing fixture (parametrised over the registry, so a new code
without fixtures fails here). Fixtures: fixtures/codes/SMxxx/{bad,good}[.ext|/] (+ options.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemapkit import Severity, validate_sitemaps
from sitemapkit.core import CODES
from sitemapkit.validate._codes import VALIDATOR_CODES

FIXTURES = Path(__file__).parent / "fixtures" / "codes"
NOW = "2026-01-01T00:00:00Z"


def _fixture(code: str, which: str) -> Path:
    directory = FIXTURES / code
    matches = [p for p in directory.iterdir() if p.name == which or p.name.startswith(which + ".")]
    assert len(matches) == 1, f"{code}: expected exactly one {which} fixture in {directory}"
    return matches[0]


def _run(code: str, which: str) -> list[tuple[str, Severity]]:
    directory = FIXTURES / code
    options = {"now": NOW}
    if (directory / "options.json").exists():
        options.update(json.loads((directory / "options.json").read_text(encoding="utf-8")))
    report = validate_sitemaps([_fixture(code, which)], **options)  # type: ignore[arg-type]
    return [(p.code, p.severity) for p in report.problems]


def test_registry_is_complete() -> None:
    assert len(VALIDATOR_CODES) >= 50
    for code in VALIDATOR_CODES:
        pc = CODES[code]
        assert pc.area == ("reader" if code == "SM306" else "validator")  # SM306: one code for urls and validate
        assert code[:3] in ("SM2", "SM3", "SM4")
        assert pc.title
        assert pc.fix


def test_every_code_has_fixtures() -> None:
    on_disk = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert on_disk == set(VALIDATOR_CODES)


@pytest.mark.parametrize("code", VALIDATOR_CODES)
def test_bad_fixture_fires(code: str) -> None:
    found = _run(code, "bad")
    assert code in [c for c, _ in found], found
    severities = {s for c, s in found if c == code}
    assert severities == {CODES[code].severity}


@pytest.mark.parametrize("code", VALIDATOR_CODES)
def test_good_fixture_is_clean(code: str) -> None:
    found = _run(code, "good")
    assert found == [], found
