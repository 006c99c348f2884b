"""core/_pages.py: the template environments of the HTML pages (compact layout, escaping, number filters)."""

from __future__ import annotations

import html

from markupsafe import Markup

from sitemapkit.core._pages import compact_layout, page_environment


def test_compact_layout_drops_line_breaks_and_indentation_but_not_style_script_or_the_last_break() -> None:
    source = ("<main>\n  <p>a b</p>\n\n  <style>\nb{x:1}\n  i{y:2}\n</style>\n  <p>\r\n    c\n  </p>\n"
              "  <SCRIPT>\n  go();\n</SCRIPT>\n</main>\n")
    assert compact_layout(source) == "<main><p>a b</p><style>\nb{x:1}\n  i{y:2}\n</style><p>c</p>" \
        "<SCRIPT>\n  go();\n</SCRIPT></main>\n"
    assert compact_layout("<p>\n  x\n</p>") == "<p>x</p>"


def test_values_are_escaped_with_the_layers_spelling_of_quotes() -> None:
    env = page_environment("sitemapkit.crawl", escape=html.escape, compact=True)
    page = env.from_string("<p title=\"{{ v }}\">{{ v }}</p>{{ m }}|{{ n|count }}|{{ x|percent }}")
    out = page.render(v="Tom & \"Jerry\" <it's>", m=Markup("<b>kept</b>"), n=1234567, x=0.1234)
    assert out == ('<p title="Tom &amp; &quot;Jerry&quot; &lt;it&#x27;s&gt;">Tom &amp; &quot;Jerry&quot; '
                   "&lt;it&#x27;s&gt;</p><b>kept</b>|1,234,567|12.3%")


def test_environments_are_built_once_per_layer() -> None:
    a = page_environment("sitemapkit.crawl", escape=html.escape, compact=True)
    assert page_environment("sitemapkit.crawl", escape=html.escape, compact=True) is a
    assert page_environment("sitemapkit.audit", "sitemapkit.crawl", escape=html.escape, compact=True) is not a
