"""The web app's crawl fields come from the crawl layer's option table, as ``sitemapkit crawl``'s options do: the
same defaults and bounds in the API, and in the form's min / max / value attributes (issue 23)."""

from __future__ import annotations

import re

import pytest

from sitemapkit.crawl import CRAWL_OPTION_SPECS
from sitemapkit.web._jobs import WEB_CRAWL_FIELDS, JobError, crawl_options, field_label, parse_crawl_request
from tests.web.conftest import WebServer

SPECS = {spec.name: spec for spec in CRAWL_OPTION_SPECS}
NUMBERS = {name for name, spec in WEB_CRAWL_FIELDS.items() if spec.kind in ("int", "float")}


def test_the_api_defaults_are_the_cli_defaults() -> None:
    _, options = parse_crawl_request({"url": "http://a.test/"})
    assert {"max_pages", "max_depth", "concurrency", "include", "exclude"} <= set(WEB_CRAWL_FIELDS)
    for name in WEB_CRAWL_FIELDS:
        default = SPECS[name].default
        assert options[name] == (list(default) if isinstance(default, tuple) else default)
    crawl = crawl_options(options)
    assert (crawl.concurrency, crawl.max_depth, crawl.retries) == (8, 50, SPECS["retries"].default)
    assert crawl.read_timeout == SPECS["stall_timeout"].default


@pytest.mark.parametrize("name", ["max_pages", "max_depth", "concurrency"])
def test_the_api_bounds_are_the_cli_bounds(name: str) -> None:
    spec = SPECS[name]
    assert spec.low is not None
    label = field_label(name)  # the form's words: "Max pages", not max_pages or --max-pages
    with pytest.raises(JobError, match=f"^{label}: must be at least {spec.low:g}, not {int(spec.low) - 1}$"):
        parse_crawl_request({"url": "http://a.test/", name: int(spec.low) - 1})
    if spec.high is not None:
        with pytest.raises(JobError, match=f"^{label}: must be at most {spec.high:g}"):
            parse_crawl_request({"url": "http://a.test/", name: int(spec.high) + 1})
    assert parse_crawl_request({"url": "http://a.test/", name: int(spec.low)})[1][name] == spec.low


def test_the_form_shows_the_table_bounds_and_defaults(web: WebServer) -> None:
    page = web.request("GET", "/")[2].decode()
    for name in NUMBERS:
        spec = WEB_CRAWL_FIELDS[name]
        field = re.search(rf'<input name="{name}"[^>]*>', page)
        assert field is not None, name
        assert f'min="{spec.low:g}"' in field[0]
        if spec.high is not None:
            assert f'max="{spec.high:g}"' in field[0]
        else:
            assert "max=" not in field[0]
        assert (f'value="{spec.default}"' in field[0]) == (spec.default is not None)
        assert spec.help in page
