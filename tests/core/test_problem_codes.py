"""The problem-code registry: each layer registers its own codes from its face, core imports nothing above it, and
what a code's title is does not depend on what was imported first (``sitemapkit.all_codes``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sitemapkit

PKG = Path(sitemapkit.__file__).parent
# The layers whose modules call define_code: what sitemapkit.all_codes() imports.
CODE_LAYERS = ("read", "write", "fetch", "validate", "crawl", "submit")


def _defining_modules() -> list[str]:
    """Every module that calls define_code (core's own definition aside)."""
    return sorted("sitemapkit." + ".".join(p.relative_to(PKG).with_suffix("").parts) for p in PKG.rglob("*.py")
                  if p.parts[-2:] != ("core", "_problems.py")
                  and re.search(r"\bdefine_code\(", p.read_text(encoding="utf-8")))


def _run(code: str, *args: str) -> object:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          check=True, stdin=subprocess.DEVNULL)
    return json.loads(done.stdout.splitlines()[-1])


# The registry as the top level reports it, and (``registered``) what this process registered before asking.
DUMP = (
    "import json, sitemapkit\n"
    "from sitemapkit.core import CODES\n"
    "registered = sorted(CODES)\n"
    "codes = sitemapkit.all_codes()\n"
    "rows = [[c, pc.severity.value, pc.title, pc.fix, pc.area] for c, pc in codes.items()]\n"
    "print(json.dumps({'registered': registered, 'codes': rows}))\n"
)


def test_codes_are_defined_only_in_the_layers_all_codes_imports() -> None:
    modules = _defining_modules()
    assert modules, "no module defines problem codes?"
    layers = {m.split(".")[1] for m in modules}
    assert layers == set(CODE_LAYERS), "a new layer defines codes: add it to sitemapkit.all_codes()"


def test_a_codes_title_does_not_depend_on_what_was_imported_first() -> None:
    """Importing only the reader and asking gives what importing everything (in reverse order) first gives, codes
    sorted by code; and everything imported registers nothing all_codes() does not list."""
    only_read = _run("import sys, sitemapkit.read\n"
                     "assert 'sitemapkit.crawl' not in sys.modules and 'sitemapkit.write' not in sys.modules\n"
                     + DUMP)
    everything = _run("import importlib, sys\n"
                      "for name in reversed(sys.argv[1:]):\n    importlib.import_module(name)\n" + DUMP,
                      *_defining_modules())
    assert isinstance(only_read, dict)
    assert isinstance(everything, dict)
    assert only_read["codes"] == everything["codes"]
    codes = [row[0] for row in everything["codes"]]
    assert codes == sorted(codes)
    assert len(set(codes)) == len(codes)
    assert everything["registered"] == codes  # nothing defines a code that all_codes() misses
    assert only_read["registered"] != codes  # (the reader alone registers only its own)
    assert {c[:3] for c in codes} >= {"SM1", "SM2", "SM3", "SM4", "SM5", "SM6", "SM7"}
    assert all(re.fullmatch(r"SM\d{3}", c) for c in codes)
    assert {row[0]: row[2] for row in only_read["codes"]}["SM701"] == "crawled page could not be written to the sitemap"


@pytest.mark.parametrize("layer", CODE_LAYERS)
def test_importing_a_layers_face_registers_all_its_codes(layer: str) -> None:
    """Importing the rest of the layer's modules after its face registers nothing new: the face (even a lazy one,
    like sitemapkit.fetch) imports whatever defines the layer's codes."""
    defining = [m for m in _defining_modules() if m.split(".")[1] == layer]
    seen = _run("import importlib, json, sys\n"
                f"import sitemapkit.{layer}\n"
                "from sitemapkit.core import CODES\n"
                "face = sorted(CODES)\n"
                "for name in sys.argv[1:]:\n    importlib.import_module(name)\n"
                "print(json.dumps([face, sorted(CODES)]))\n", *defining)
    assert isinstance(seen, list)
    face, after = seen
    assert face == after, f"codes registered only once a private module of {layer} is imported"


def test_a_summary_line_names_a_code_whose_layer_was_not_imported() -> None:
    """The CLI's "… and N more CODE (title)" takes the title from the code's definition, not from whatever this
    process happened to import (here a crawler code, in a process that never imported the crawler)."""
    seen = _run(
        "import json, sys\n"
        "from sitemapkit.cli._common import code_title\n"
        "loaded = 'sitemapkit.crawl' in sys.modules\n"
        "print(json.dumps([loaded, code_title('SM701')]))\n")
    assert seen == [False, "crawled page could not be written to the sitemap"]
