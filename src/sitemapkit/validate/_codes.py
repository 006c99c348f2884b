"""The validator's problem codes (SM2xx document, SM3xx entries, SM4xx Google profile).

Codes are stable: once published a code keeps its meaning. Each has a default severity, a one-line title that
names the fix, and an example of the mistake (``EXAMPLES``), from which ``docs/checks.md`` is generated
(``scripts/gen_checks_doc.py``). Where the sources disagree the stricter reading is applied and the message says
so (see ../shared/spec/CONTRADICTIONS.md).
"""

from __future__ import annotations

from sitemapkit.core import ProblemCode, Severity, define_code, describe_causes
from sitemapkit.read import DUPLICATE_LOC

__all__ = ["EXAMPLES", "GOOGLE_CODES", "VALIDATOR_CODES"]

_E = Severity.ERROR
_W = Severity.WARNING
_AREA = "validator"


def _code(code: str, severity: Severity, title: str, fix: str, example: str) -> ProblemCode:
    pc = define_code(code, severity, title, fix, area=_AREA)
    EXAMPLES[code] = example
    return pc


#: code -> a short example of the mistake (for the docs table).
EXAMPLES: dict[str, str] = {}

# --- SM2xx: the document -----------------------------------------------------------------------------------
UNREADABLE = _code("SM200", _E, "not a sitemap: the file is neither XML, a text sitemap nor a feed",
                   "serve a urlset, a sitemapindex, a text list of URLs or an RSS/Atom feed",
                   "<!DOCTYPE html><html>...")
NOT_WELL_FORMED = _code("SM201", _E, "not well-formed XML", "fix the XML syntax at this position",
                        "<description>Tom & Jerry</description>  (write &amp;)")
ENCODING = _code("SM202", _E, "not UTF-8: sitemaps must be encoded in UTF-8",
                 "re-encode the file as UTF-8 and declare encoding=\"UTF-8\"",
                 "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>")
NAMESPACE = _code("SM203", _E, "wrong or missing sitemap namespace",
                  "use xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" (http, no trailing slash)",
                  "<urlset xmlns=\"https://www.sitemaps.org/schemas/sitemap/0.9\">")
XSD_VALUE = _code("SM204", _E, "value rejected by the official XSD", "write a value of the type the schema asks for",
                  "<video:family_friendly>maybe</video:family_friendly>")
XSD_STRUCTURE = _code("SM205", _E, "element out of order, unknown or missing (official XSD)",
                      "follow the schema's element order (loc, lastmod, changefreq, priority, extensions)",
                      "<url><lastmod>2024-01-01</lastmod><loc>https://example.org/</loc></url>")
EMPTY_FILE = _code("SM206", _E, "empty file", "write at least the root element and one entry", "(0 bytes)")
DOCTYPE = _code("SM207", _E, "DOCTYPE/entity declarations are not allowed in a sitemap",
                "remove the <!DOCTYPE ...> declaration", "<!DOCTYPE urlset [<!ENTITY x \"...\">]>")
EMPTY_SET = _code("SM208", _E, "no entries: the XSD requires at least one <url> (or <sitemap>)",
                  "add entries or stop publishing the file", "<urlset xmlns=\"...\"/>")
TOO_MANY_URLS = _code("SM209", _E, "more than 50,000 URLs in one sitemap",
                      "split the file and list the parts in a sitemap index", "50,001 <url> elements")
TOO_BIG = _code("SM210", _E, "larger than 52,428,800 bytes uncompressed",
                "split the file; the limit applies to the uncompressed size", "a 60 MB urlset")
TOO_MANY_SITEMAPS = _code("SM211", _E, "more than 50,000 sitemaps in one index",
                          "split the index into several index files", "50,001 <sitemap> elements")
NESTED_INDEX = _code("SM212", _E, "a sitemap index lists another sitemap index",
                     "list the child sitemaps directly; Google does not follow nested indexes",
                     "<sitemap><loc>https://example.org/other-index.xml</loc></sitemap>")
TEMPLATE = _code("SM213", _E, "unrendered template source (front matter or template tags)",
                 "publish the generated output, not the template", "---\\nlayout: null\\n---\\n{% for post in ... %}")
CHILD_MISSING = _code("SM214", _W, "a child sitemap listed by the index was not found next to it",
                      "publish the child sitemap or remove it from the index",
                      "<loc>https://example.org/sitemap-9.xml</loc> with no sitemap-9.xml beside the index")
TEXT_LINE = _code("SM215", _E, "text sitemap line is not one absolute http(s) URL",
                  "write one fully qualified URL per line and nothing else", "models/page.html")
ROOT_ELEMENT = _code("SM216", _E, "unexpected root or top-level element",
                     "the root must be <urlset> or <sitemapindex> holding only <url> / <sitemap>",
                     "<urlset><foo/></urlset>")

# --- SM3xx: entries (loc, lastmod, changefreq, priority, scope) ---------------------------------------------
LOC_EMPTY = _code("SM300", _E, "empty <loc>", "write the page's absolute URL", "<loc></loc>")
LOC_NOT_ABSOLUTE = _code("SM301", _E, "loc is not an absolute http(s) URL",
                         "write the full URL with scheme and host",
                         "<loc>/about/</loc>  or  <loc>//host/a</loc>  or  <loc>None</loc>")
LOC_TOO_LONG = _code("SM302", _E, "loc is 2,048 characters or longer",
                     "shorten the URL (the protocol says less than 2,048; the XSD allows 2,048)",
                     "<loc>https://example.org/aaaa...(2,048 characters)</loc>")
LOC_NOT_ENCODED = _code("SM303", _E, "loc is not percent-encoded (raw space, non-ASCII or invalid character)",
                        "percent-encode the URL as UTF-8 (RFC 3986)", "<loc>https://example.org/a b/ümlaut</loc>")
LOC_WHITESPACE = _code("SM304", _W, "whitespace around the loc", "remove spaces and newlines around the URL",
                       "<loc>\\n  https://example.org/\\n</loc>")
LOC_FRAGMENT = _code("SM305", _W, "loc has a #fragment", "list the URL without the fragment",
                     "<loc>https://example.org/page#top</loc>")
LOC_DUPLICATE = DUPLICATE_LOC  # the reader's code: urls, diff and validate report a repeated URL alike
EXAMPLES[LOC_DUPLICATE.code] = "the same <loc> in two <url> elements"
LOC_PLACEHOLDER = _code("SM307", _W, "placeholder or local host in a URL (fine for tests and local previews, "
                        "wrong on a published site)",
                        "set the site's real base URL in the generator",
                        "<loc>http://localhost:3000/</loc>, http://127.0.0.1:8100/, https://yoursite.com/")
LOC_OUT_OF_SCOPE = _code("SM308", _E, "URL outside the sitemap's scope (scheme, host, port and directory)",
                         "move the sitemap up to a directory covering the URL, or use --allow-cross-host when "
                         "robots.txt of the URL's host lists the sitemap",
                         "https://example.org/blog/sitemap.xml listing https://example.org/shop/")
LOC_MIXED_HOSTS = _code("SM309", _E, "URLs on more than one scheme/host/port in one sitemap",
                        "keep one site per sitemap, or use --allow-cross-host for robots.txt cross-submission",
                        "http://example.org/a and https://www.example.org/b in one file")
LOC_MOJIBAKE = _code("SM310", _E, "double-encoded UTF-8 (mojibake) in a URL",
                     "encode the URL from the original text once, as UTF-8",
                     "https://example.org/c%C3%83%C2%A8pe  (Ã¨ instead of è)")
LASTMOD_INVALID = _code("SM320", _E, "lastmod is not a W3C Datetime",
                        "write YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (UTC; other zones as +hh:mm)",
                        "<lastmod>Mon, 01 Jan 2024 10:00:00 GMT</lastmod>")
LASTMOD_NO_TZ = _code("SM321", _E, "lastmod has a time but no time zone",
                      "add the UTC offset (Z or +hh:mm); W3C Datetime requires it even though the XSD does not",
                      "<lastmod>2024-01-01T10:00:00</lastmod>")
LASTMOD_PRECISION = _code("SM322", _E, "lastmod precision the XSD rejects (year, year-month or minutes)",
                          "write a full date, or a time with seconds", "<lastmod>2024-05</lastmod>")
LASTMOD_FUTURE = _code("SM323", _W, "lastmod is in the future", "write when the page last changed, not a future date",
                       "<lastmod>2999-01-01</lastmod>")
LASTMOD_SAME = _code("SM324", _W, "every entry has the same lastmod (rarely each page's last change)",
                     "write each page's own modification time, or leave lastmod out",
                     "1,000 entries all with <lastmod>2024-05-01T10:00:00Z</lastmod>")
CHANGEFREQ_INVALID = _code("SM325", _E, "changefreq is not one of always, hourly, daily, weekly, monthly, yearly, "
                           "never", "use one of the seven lowercase values", "<changefreq>Daily</changefreq>")
PRIORITY_INVALID = _code("SM326", _E, "priority is not a decimal between 0.0 and 1.0",
                         "write a number from 0.0 to 1.0", "<priority>high</priority>")
ENTRY_TOO_MANY_CHILDREN = _code("SM329", _W, "too many child elements of one kind in an entry (the excess is not "
                                "checked)", "keep at most 1,000 images, alternates or videos per <url>, and 1,000 "
                                "of any other element", "1,000,000 <xhtml:link> in one <url>")

# --- SM4xx: Google profile ----------------------------------------------------------------------------------
IMAGE_TOO_MANY = _code("SM400", _E, "more than 1,000 images in one <url>", "list at most 1,000 images per page",
                       "1,001 <image:image> in one <url>")
IMAGE_DEPRECATED = _code("SM401", _W, "deprecated image tag (Google ignores it since 2022)",
                         "remove image:caption, image:title, image:geo_location and image:license",
                         "<image:caption>...</image:caption>")
IMAGE_LOC = _code("SM402", _E, "image:loc is missing or not an absolute http(s) URL",
                  "give each image the absolute URL of the image file", "<image:image><image:loc>img/a.jpg</image:loc>")
VIDEO_REQUIRED = _code("SM410", _E, "video is missing a required field",
                       "give thumbnail_loc, title, description and content_loc or player_loc",
                       "<video:video> without <video:thumbnail_loc>")
VIDEO_SAME_AS_PAGE = _code("SM411", _E, "video content_loc/player_loc is the page URL itself",
                           "point to the video file or player, not the page", "<video:content_loc> equal to <loc>")
VIDEO_DURATION = _code("SM412", _E, "video duration outside 1-28,800 seconds",
                       "give the length in whole seconds, 1 to 28,800 (Google; the XSD allows 0)",
                       "<video:duration>0</video:duration>")
VIDEO_RATING = _code("SM413", _E, "video rating outside 0.0-5.0", "write a rating from 0.0 to 5.0",
                     "<video:rating>7</video:rating>")
VIDEO_TAGS = _code("SM414", _E, "more than 32 video tags", "keep at most 32 <video:tag>", "33 <video:tag> elements")
VIDEO_DEPRECATED = _code("SM415", _W, "deprecated video tag or attribute (Google ignores it since 2022)",
                         "remove category, gallery_loc, price, tvshow, player_loc@allow_embed/@autoplay",
                         "<video:category>cooking</video:category>")
VIDEO_DESCRIPTION = _code("SM416", _E, "video description longer than 2,048 characters",
                          "shorten the description to 2,048 characters", "<video:description>(3,000 characters)")
NEWS_TOO_MANY = _code("SM420", _E, "more than 1,000 news articles in one sitemap",
                      "split news sitemaps at 1,000 <news:news>", "1,001 <news:news> elements")
NEWS_OLD = _code("SM421", _W, "news article published more than two days before --now",
                 "remove articles older than two days (or their <news:news>)",
                 "<news:publication_date>2019-01-01</news:publication_date>")
NEWS_REQUIRED = _code("SM422", _E, "news is missing a required field",
                      "give news:publication (name, language), news:publication_date and news:title",
                      "<news:news> without <news:title>")
NEWS_LANGUAGE = _code("SM423", _E, "news language is not an ISO 639 code",
                      "use a 2- or 3-letter ISO 639 code (or zh-cn / zh-tw)", "<news:language>english</news:language>")
NEWS_DATE = _code("SM424", _E, "news publication_date is not a W3C Datetime or lies in the future",
                  "write the original publication time, e.g. 2024-05-01T10:00:00Z",
                  "<news:publication_date>yesterday</news:publication_date>")
HREFLANG_CODE = _code("SM430", _E, "invalid hreflang value",
                      "use an ISO 639-1 language, optionally -ISO 3166-1 region (en, en-GB), or x-default",
                      "hreflang=\"en_US\", hreflang=\"uk-en\", hreflang=\"default\"")
HREFLANG_CONFLICT = _code("SM431", _E, "the same hreflang points to two different URLs in one <url>",
                          "give each hreflang value one URL", "two hreflang=\"de\" links with different href")
HREFLANG_NO_SELF = _code("SM432", _E, "a URL with alternates does not list itself",
                         "add an xhtml:link for the page itself with its own hreflang",
                         "<loc>https://example.org/en/</loc> whose links name only /de/ and /fr/")
HREFLANG_NOT_RECIPROCAL = _code("SM433", _E, "hreflang link is not returned by the other page",
                                "list the link on both pages; Google ignores one-way hreflang",
                                "/en/ lists /de/ as de, but /de/ does not list /en/")
HREFLANG_HREF = _code("SM434", _E, "hreflang link has no valid absolute href or rel=\"alternate\"",
                      "write <xhtml:link rel=\"alternate\" hreflang=\"..\" href=\"https://...\"/>",
                      "<xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"/de/\"/>")

#: Every code the validator can emit.
VALIDATOR_CODES: tuple[str, ...] = tuple(EXAMPLES)
#: The codes only the Google profile checks.
GOOGLE_CODES: frozenset[str] = frozenset(c for c in VALIDATOR_CODES if c.startswith("SM4"))

# Why each validator problem happens (the user docs, docs/codes.md, show it beside the title and the fix).
describe_causes({
    "SM200": "The file is none of the formats a sitemap may take: an HTML page, JSON, an image, an error page.",
    "SM201": "The markup breaks XML's rules (an unescaped &, an unclosed or misnested element, a bad "
             "character): search engines drop such a file.",
    "SM202": "The file is encoded (or declared) in another encoding than UTF-8, which the protocol requires.",
    "SM203": "The root element's namespace is missing or differs from the protocol's by a character (https, a "
             "trailing slash).",
    "SM204": "A value does not have the type the official XSD gives it (a priority of 'high', a malformed date).",
    "SM205": "Elements are in another order than the XSD's, unknown to it, or a required one is missing.",
    "SM206": "The file has no content at all (an interrupted write or an empty response saved).",
    "SM207": "The file declares a DOCTYPE or entities; sitemaps need none and parsers refuse them.",
    "SM208": "The urlset or index holds no entry: a generator ran on an empty list.",
    "SM209": "The sitemap lists more than 50,000 URLs, the protocol's limit per file.",
    "SM210": "The file is larger than 50 MiB uncompressed, the protocol's limit per file.",
    "SM211": "The index lists more than 50,000 sitemaps, the protocol's limit.",
    "SM212": "An index lists another index; Google reads one level of indexes only.",
    "SM213": "The file is a template (front matter, {{ }} or {% %} tags) published as is instead of its output.",
    "SM214": "The index names a child sitemap that is not in the folder validated next to it.",
    "SM215": "A line of a text sitemap is not exactly one absolute http(s) URL.",
    "SM216": "The root element is not urlset or sitemapindex, or it holds other elements than url / sitemap.",
    "SM300": "A <loc> element is present but empty.",
    "SM301": "The loc is relative, has another scheme than http(s), or is not a URL.",
    "SM302": "The URL is 2,048 characters or longer (often a tracking or session query string).",
    "SM303": "The URL holds raw spaces, non-ASCII characters or characters that must be percent-encoded.",
    "SM304": "The loc has spaces or line breaks around the URL, often from a template's indentation.",
    "SM305": "The URL ends with a #fragment; fragments name a part of a page, not a page.",
    "SM307": "A URL is on localhost, 127.x, ::1 or a placeholder host (example.com, *.test, yoursite.com): the "
             "sitemap was generated for a preview or with a default base URL.",
    "SM308": "A URL is outside the directory (or on another scheme, host or port) the sitemap is published at; "
             "search engines ignore such URLs.",
    "SM309": "One sitemap lists URLs on more than one scheme, host or port.",
    "SM310": "UTF-8 text was encoded twice (read as Latin-1 and encoded again), giving sequences like %C3%83.",
    "SM320": "The lastmod is not a W3C Datetime (another date format, free text).",
    "SM321": "The lastmod has a time of day but no time zone, so the moment it names is unknown.",
    "SM322": "The lastmod gives only a year, a year and month, or minutes without seconds: W3C Datetime allows "
             "it, the XSD does not.",
    "SM323": "The lastmod lies after the validation time: a clock or time-zone error, or a date meant as "
             "planned publication.",
    "SM324": "Every entry carries the same lastmod, which is rarely when each page changed: usually the time "
             "the sitemap was generated or the site deployed.",
    "SM325": "The changefreq is not one of the seven lowercase values.",
    "SM326": "The priority is not a decimal between 0.0 and 1.0.",
    "SM329": "An entry holds more than 1,000 children of one kind; the rest are not checked.",
    "SM400": "A <url> lists more than 1,000 images, Google's limit per page.",
    "SM401": "The entry uses image:caption, image:title, image:geo_location or image:license, which Google "
             "ignores since 2022.",
    "SM402": "An image entry has no image:loc, or one that is not an absolute http(s) URL.",
    "SM410": "A video lacks one of the fields Google requires (thumbnail, title, description, content or player "
             "URL).",
    "SM411": "The video's content_loc or player_loc is the page's own URL instead of the video file or player.",
    "SM412": "The video duration is 0, negative or longer than 8 hours (28,800 s).",
    "SM413": "The video rating is outside 0.0 to 5.0.",
    "SM414": "A video has more than 32 <video:tag> elements.",
    "SM415": "The entry uses a video tag or attribute Google ignores since 2022 (category, gallery_loc, price, "
             "tvshow, player_loc's allow_embed or autoplay).",
    "SM416": "The video description is longer than 2,048 characters.",
    "SM420": "One news sitemap lists more than 1,000 articles, Google's limit.",
    "SM421": "A news article was published more than two days before the validation time; Google News only "
             "takes recent articles.",
    "SM422": "A news entry lacks the publication name or language, the publication date or the title.",
    "SM423": "The news language is not an ISO 639 code.",
    "SM424": "The news publication date is not a W3C Datetime, or lies in the future.",
    "SM430": "The hreflang value is not a language code (optionally with a region) nor x-default.",
    "SM431": "One <url> maps the same hreflang value to two different URLs.",
    "SM432": "A URL lists alternates but not itself among them.",
    "SM433": "A page points to an alternate that does not point back (hreflang links must be reciprocal).",
    "SM434": "An xhtml:link has no valid absolute href, or no rel=\"alternate\".",
})
