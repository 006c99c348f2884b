"""The public surface: the top level keeps the everyday API; each layer package has its own ``__all__``. No magic:
a package is a package and a function a function, and one mechanism makes names lazy."""

from __future__ import annotations

import ast
import importlib
import inspect
import pydoc
import types
from pathlib import Path

import pytest

import sitemapkit

LAYERS = ("core", "read", "write", "validate", "fetch", "crawl", "generator")

# The everyday API (README): the model, write/read/validate/discover/crawl, the exception tree. Pinned exactly:
# a specialised name belongs to its layer package, not here.
TOP_LEVEL = {
    "UrlEntry", "SitemapRef", "Image", "Video", "News", "Alternate", "Changefreq", "LastMod",
    "write_sitemaps", "SitemapSetWriter", "Manifest", "generate", "GenerateResult",
    "read_file", "parse_bytes", "iter_events", "SitemapParser", "ParseResult",
    "validate_sitemaps", "ValidationReport", "discover", "walk_site", "crawl_site", "Crawler", "CrawlOptions",
    "Problem", "Severity", "all_codes",
    "SitemapkitError", "ConfigurationError", "InputError", "ParseError", "LimitExceededError", "InvalidValueError",
    "InvalidEntryError", "PublishError", "FetchError", "HTTPStatusError", "TooManyRedirectsError",
    "__version__",
}


def test_top_level_is_the_everyday_api() -> None:
    assert set(sitemapkit.__all__) == TOP_LEVEL
    assert len(set(sitemapkit.__all__)) == len(sitemapkit.__all__)


def test_help_is_short_enough_to_read() -> None:
    text = pydoc.render_doc(sitemapkit, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 2500, len(text.splitlines())  # 6,000 before the layer packages


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_name_exists(layer: str) -> None:
    module = importlib.import_module(f"sitemapkit.{layer}")
    assert module.__all__, layer
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), f"sitemapkit.{layer}.{name}"
        assert not name.startswith("_"), name


def test_all_names_exist() -> None:
    for name in sitemapkit.__all__:
        assert hasattr(sitemapkit, name), name


def test_top_level_names_are_the_layers_objects() -> None:
    for name in sitemapkit.__all__:
        if name in ("__version__", "all_codes"):  # all_codes spans every layer: the top level's own
            continue
        owners = [layer for layer in LAYERS if name in importlib.import_module(f"sitemapkit.{layer}").__all__]
        assert owners, f"{name} is not exported by any layer"
        obj = getattr(sitemapkit, name)
        assert not isinstance(obj, types.ModuleType), name
        assert obj is getattr(importlib.import_module(f"sitemapkit.{owners[0]}"), name)


def test_everyday_functions_show_their_real_signatures() -> None:
    """``help()`` and IDEs see the parameters, not a forwarding ``(*args, **kwargs)``."""
    for function, first in ((sitemapkit.validate_sitemaps, ["sources", "profile", "now", "allow_cross_host"]),
                            (sitemapkit.crawl_site, ["url", "out_dir", "options", "base_url", "state_path"])):
        assert inspect.isfunction(function), function
        parameters = inspect.signature(function).parameters
        assert list(parameters)[: len(first)] == first, function
        kinds = {p.kind for p in parameters.values()}
        assert not kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}, function
        assert function.__name__ == function.__qualname__  # defined under the name it is exported as


def test_validate_layer_is_a_package_and_validate_sitemaps_a_function(tmp_path: Path) -> None:
    """Whichever is imported first, ``sitemapkit.validate`` is the plain layer package (not callable) and
    ``sitemapkit.validate_sitemaps`` the function, the same object as the layer's, and it validates."""
    import subprocess
    import sys

    doc = tmp_path / "s.xml"
    doc.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/a'
                   "</loc></url></urlset>", encoding="utf-8")
    for first in ("import sitemapkit.validate", "from sitemapkit import validate_sitemaps", "import sitemapkit"):
        code = (f"{first}\nimport sitemapkit, sys, types\nr = sitemapkit.validate_sitemaps([sys.argv[1]])\n"
                "import sitemapkit.validate\nfrom sitemapkit import validate_sitemaps\n"
                "print(type(r).__name__, r.valid, type(sitemapkit.validate) is types.ModuleType,\n"
                "      callable(sitemapkit.validate), validate_sitemaps is sitemapkit.validate.validate_sitemaps)")
        out = subprocess.run([sys.executable, "-c", code, str(doc)], capture_output=True, text=True, check=True)
        assert out.stdout.split() == ["ValidationReport", "True", "True", "False", "True"], (first, out.stderr)


def test_crawl_layer_is_a_package_and_crawl_site_a_function(tmp_path: Path) -> None:
    """Whichever is imported first, ``sitemapkit.crawl`` is the plain layer package and ``crawl_site`` the
    function that crawls (here a start URL that cannot be reached: it fails fast, naming the cause)."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for first in ("import sitemapkit.crawl", "from sitemapkit import crawl_site", "import sitemapkit"):
        code = (f"{first}\nimport sitemapkit, sys, types\nfrom sitemapkit import crawl_site\n"
                "import sitemapkit.crawl\n"
                "print(sitemapkit.crawl.Crawler.__name__, type(sitemapkit.crawl) is types.ModuleType,\n"
                "      callable(sitemapkit.crawl), crawl_site is sitemapkit.crawl.crawl_site)\n"
                "try:\n    crawl_site(sys.argv[1], sys.argv[2], state_path=sys.argv[3],\n"
                "               options=sitemapkit.crawl.CrawlOptions(retries=0))\n"
                "except sitemapkit.crawl.StartUrlError as exc:\n    print(exc.reason)\n")
        out = subprocess.run([sys.executable, "-c", code, f"http://127.0.0.1:{port}/", str(tmp_path / "out"),
                              str(tmp_path / "state.sqlite")], capture_output=True, text=True)
        assert out.returncode == 0, (first, out.stderr)
        assert out.stdout.splitlines() == ["Crawler True False True", f"cannot connect to 127.0.0.1:{port} "
                                           "(connection refused)"], (first, out.stderr)


PKG = Path(sitemapkit.__file__).parent


def _magic(source: str, module: str) -> list[str]:
    """What makes a module more than a module: a ``ModuleType`` subclass or a module's class swapped, and a
    module-level ``__getattr__`` not made by ``core/_lazy.lazy_names`` (the one lazy mechanism)."""
    found: list[str] = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and "ModuleType" in (getattr(node, "id", None),
                                                                              getattr(node, "attr", None)):
            found.append(f"{module}:{node.lineno} uses ModuleType")
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and target.attr == "__class__"
                        and "sys.modules" in ast.unparse(target.value)):
                    found.append(f"{module}:{node.lineno} swaps a module's class")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getattr__":
            found.append(f"{module}:{node.lineno} defines __getattr__ (use core/_lazy.lazy_names)")
        if isinstance(node, ast.Assign) and "__getattr__" in ast.unparse(node.targets[0]):
            call = node.value
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "lazy_names"):
                found.append(f"{module}:{node.lineno} assigns __getattr__ (use core/_lazy.lazy_names)")
    return found


def test_no_module_is_magic() -> None:
    """No ModuleType subclass (a package that is also a function) and no second lazy mechanism in src/."""
    found = [hit for path in sorted(PKG.rglob("*.py"))
             for hit in _magic(path.read_text(encoding="utf-8"), str(path.relative_to(PKG)))]
    assert found == []
    lazy_faces = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                        if "= lazy_names(__name__" in p.read_text(encoding="utf-8"))
    # one mechanism, core/_lazy.py
    assert lazy_faces == ["__init__.py", "core/__init__.py", "crawl/__init__.py", "fetch/__init__.py"]


def test_the_magic_scan_catches_what_it_forbids() -> None:
    old_callable = (
        "import sys, types\n"
        "def make_package_callable(name, function):\n"
        "    class _CallablePackage(types.ModuleType):\n"
        "        def __call__(self, *a, **k): return function(*a, **k)\n"
        "    sys.modules[name].__class__ = _CallablePackage\n"
    )
    assert len(_magic(old_callable, "m")) == 2
    assert _magic("import sys\nsys.modules[__name__].__class__ = object\n", "m") == ["m:2 swaps a module's class"]
    assert len(_magic("def __getattr__(name):\n    return 1\n", "m")) == 1
    assert len(_magic("import importlib\n__getattr__ = importlib.import_module\n", "m")) == 1
    assert _magic("from x import lazy_names\n__getattr__, __dir__ = lazy_names(__name__, {})\n", "m") == []


@pytest.mark.parametrize("layer", ["", *LAYERS])
def test_exceptions_share_one_root(layer: str) -> None:
    module = importlib.import_module(f"sitemapkit.{layer}" if layer else "sitemapkit")
    for name in module.__all__:
        obj = getattr(module, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, sitemapkit.SitemapkitError), name


def test_import_is_light() -> None:
    """Readers and writers must not pay for the HTTP stack, the crawler, the validator or the page templates
    (jinja2: loaded when an HTML page is written) at import time."""
    import subprocess
    import sys

    code = (
        "import sys, sitemapkit\n"
        "heavy = [m for m in ('aiohttp', 'asyncio', 'sqlite3', 'selectolax', 'jinja2', 'markupsafe', "
        "'sitemapkit.core._pages', 'sitemapkit.fetch._http', 'sitemapkit.crawl._crawler', "
        "'sitemapkit.validate._driver') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_lazy_names_resolve_to_their_modules() -> None:
    import importlib

    from sitemapkit import _LAZY

    for name, module in _LAZY.items():
        assert name in sitemapkit.__all__, name
        obj = getattr(sitemapkit, name)
        assert obj is getattr(importlib.import_module(module), name), name
