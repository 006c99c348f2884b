"""Where the shared test corpus lives, and how tests that need it skip when it is absent.

The corpus (``../shared/corpus`` next to the checkout: real-world sitemaps, other projects' fixtures, edge cases
with their expected results) is not part of the repository. The full run (CI, ``bash scripts/test`` in the
project's workspace) has it; a plain clone does not, and then every test that needs it is skipped with
:data:`SKIP_REASON` while the others run.

Use :data:`needs_corpus` on a test (or as ``pytestmark``), :func:`corpus_params` for parameter lists built from
corpus files, and :func:`require_corpus` inside fixtures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: ``../shared`` beside the checkout: spec notes and the corpus.
SHARED = ROOT.parent / "shared"
#: The corpus itself.
CORPUS = SHARED / "corpus"
#: True when the corpus is present.
HAVE_CORPUS = CORPUS.is_dir()
#: The one reason every corpus test gives when it skips.
SKIP_REASON = f"needs the shared test corpus, not found at {CORPUS} (see README, Tests)"

#: Mark for a test (or ``pytestmark`` for a module) that reads the corpus.
needs_corpus = pytest.mark.skipif(not HAVE_CORPUS, reason=SKIP_REASON)

T = TypeVar("T")


def require_corpus() -> Path:
    """The corpus directory, or skip the calling test (for fixtures)."""
    if not HAVE_CORPUS:
        pytest.skip(SKIP_REASON)
    return CORPUS


def corpus_params(values: Sequence[T], ids: Callable[[T], str] | None = None) -> list[Any]:
    """``values`` as pytest parameters; without the corpus, one parameter that skips with :data:`SKIP_REASON`
    (instead of an empty list, which pytest would skip with an unrelated reason)."""
    if not HAVE_CORPUS:
        return [pytest.param(None, id="no-corpus", marks=needs_corpus)]
    return [pytest.param(v, id=ids(v)) if ids is not None else v for v in values]


def read_seeds(paths: Sequence[Path]) -> list[bytes]:
    """The bytes of each corpus file that exists (none without the corpus)."""
    return [p.read_bytes() for p in paths if p.is_file()]
