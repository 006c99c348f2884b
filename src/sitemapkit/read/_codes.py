"""Problem codes of the reader (SM1xx).

Severity is the lenient one. Codes in :data:`STRICT_FATAL` are warnings that lenient mode repairs and goes on
from (the document is readable but breaks the protocol or XML); strict mode stops at them as it stops at errors.
"""

from __future__ import annotations

from sitemapkit.core import Severity, define_alias, define_code, describe_causes

__all__ = ["DUPLICATE_LOC", "STRICT_FATAL", "TEXT_NAMED_XML", "named_xml"]

_E, _W = Severity.ERROR, Severity.WARNING
_A = "reader"

NOT_SITEMAP_HTML = define_code(
    "SM101", _E, "HTML page, not a sitemap",
    "Serve the sitemap itself at this address (a 200 with XML or text), not an HTML page or an error page.", area=_A)
NOT_SITEMAP = define_code(
    "SM102", _E, "not a sitemap",
    "The document is empty or its root element is not urlset, sitemapindex, rss, rdf:RDF or feed.", area=_A)
DTD_REFUSED = define_code(
    "SM103", _E, "DOCTYPE refused: DTDs and entities are not read",
    "Remove the <!DOCTYPE ...>; sitemaps need no DTD, and entity declarations are a security risk.", area=_A)
NOT_WELL_FORMED = define_code(
    "SM104", _E, "XML is not well-formed; reading stopped here",
    "Fix the markup (escape & as &amp;, close every element); entries before this point were kept.", area=_A)
TRUNCATED = define_code(
    "SM105", _E, "document ends early",
    "The file is cut off (interrupted upload or download, size limit); the last incomplete entry was dropped.",
    area=_A)
JUNK_AFTER_ROOT = define_code(
    "SM106", _W, "content after the root element",
    "Remove what follows the closing root tag (debug output, HTML, a second document).", area=_A)
WHITESPACE_BEFORE_DECLARATION = define_code(
    "SM107", _W, "whitespace before the XML declaration",
    "The <?xml ...?> declaration must be the very first thing in the file; remove the blank lines before it.",
    area=_A)
NAMESPACE = define_code(
    "SM108", _W, "missing or wrong sitemap namespace",
    'Declare xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root element.', area=_A)
TAG_CASE = define_code(
    "SM109", _W, "element names are not lowercase",
    "XML is case-sensitive: write urlset, url, loc, lastmod, changefreq, priority in lowercase.", area=_A)
NOT_UTF8 = define_code(
    "SM110", _W, "document is not UTF-8",
    "The protocol requires UTF-8; re-encode the file and declare encoding=\"UTF-8\".", area=_A)
UNDECODABLE = define_code(
    "SM111", _E, "bytes cannot be decoded",
    "Encode the file as UTF-8 (and declare it so); the bytes do not match the declared or detected encoding.",
    area=_A)
SIZE_LIMIT = define_code(
    "SM112", _E, "decompressed size exceeds the budget",
    "A sitemap is at most 50 MiB uncompressed; split it, or raise max_decompressed_bytes if you trust it.",
    area=_A)
BAD_GZIP = define_code(
    "SM113", _E, "corrupt or truncated gzip data",
    "Recompress the file; the gzip stream is damaged or cut off (what could be inflated was read).", area=_A)
MISSING_LOC = define_code(
    "SM114", _W, "entry without a loc; skipped",
    "Every <url> and <sitemap> needs exactly one non-empty <loc>.", area=_A)
INVALID_LOC = define_code(
    "SM115", _E, "loc is not an absolute http(s) URL; entry skipped",
    "Write fully-qualified URLs (https://example.com/page), at most 2,048 characters.", area=_A)
WHITESPACE_IN_LOC = define_code(
    "SM116", _W, "whitespace inside a loc; percent-encoded",
    "Escape spaces as %20 and remove line breaks inside URLs.", area=_A)
EXTRA_LOC = define_code(
    "SM117", _W, "more than one loc in an entry; the first one wins",
    "Give each <url> exactly one <loc>; put other pages in their own <url>.", area=_A)
BAD_LASTMOD = define_code(
    "SM118", _W, "unreadable lastmod; ignored",
    "Write lastmod as a W3C Datetime: 2024-05-01 or 2024-05-01T10:30:00Z.", area=_A)
LENIENT_LASTMOD = define_code(
    "SM119", _W, "lastmod is not a W3C Datetime; read leniently",
    "Write lastmod as a W3C Datetime: 2024-05-01 or 2024-05-01T10:30:00Z.", area=_A)
BAD_CHANGEFREQ = define_code(
    "SM120", _W, "invalid changefreq; ignored",
    "Use one of always, hourly, daily, weekly, monthly, yearly, never (or leave it out; Google ignores it).",
    area=_A)
BAD_PRIORITY = define_code(
    "SM121", _W, "invalid priority; ignored",
    "Use a decimal between 0.0 and 1.0 (or leave it out; Google ignores it).", area=_A)
BAD_EXTENSION = define_code(
    "SM122", _W, "invalid extension element; dropped",
    "Give image, video, news and xhtml:link elements their required fields (see RULES.md 21-25).", area=_A)
# One concept, one code: a URL listed twice is SM306 in urls, diff and validate alike (it was SM123 here).
DUPLICATE_LOC = define_code(
    "SM306", _W, "URL listed more than once",
    "List each URL once per sitemap.", area=_A)
define_alias("SM123", "SM306")
TEXT_NOT_URL = define_code(
    "SM124", _W, "line is not an absolute http(s) URL; skipped",
    "A text sitemap holds one fully-qualified URL per line and nothing else.", area=_A)
TEXT_NO_URLS = define_code(
    "SM125", _E, "text document without a single URL; not a sitemap",
    "Serve a sitemap: one absolute URL per line, or an XML urlset.", area=_A)
GZIP_TRAILING = define_code(
    "SM126", _W, "data after the end of the gzip stream; ignored",
    "Serve the gzip file exactly as written; something appended bytes to it.", area=_A)
FEED_ITEM_NO_LINK = define_code(
    "SM127", _W, "feed item without a link; skipped",
    "Give each RSS item a <link> (or a permalink <guid>) and each Atom entry a <link rel=\"alternate\">.",
    area=_A)
GZIP_LAYERS = define_code(
    "SM128", _E, "too many gzip layers; reading stopped",
    "Compress the sitemap once: gzip inside gzip inside gzip (more than 3 layers) is not read.", area=_A)
BARE_AMPERSAND = define_code(
    "SM129", _W, "unescaped & read as &amp;",
    "Escape & as &amp; in URLs and text (or wrap the text in CDATA); strict XML parsers stop at it.", area=_A)
INDEX_TOO_BIG = define_code(
    "SM130", _W, "more than 50,000 sitemaps in one index",
    "A sitemap index lists at most 50,000 sitemaps (RULES.md 10): split it into several index files.", area=_A)
URLSET_TOO_MANY = define_code(
    "SM131", _W, "more than 50,000 URLs in one sitemap",
    "A sitemap holds at most 50,000 URLs: split it into several files listed by an index. Every URL was read.",
    area=_A)
URLSET_TOO_LARGE = define_code(
    "SM132", _W, "sitemap larger than 50 MiB uncompressed",
    "A sitemap is at most 52,428,800 bytes uncompressed: split it into several files listed by an index. Every URL "
    "was read.", area=_A)
TOO_MANY_CHILDREN = define_code(
    "SM136", _W, "too many child elements of one kind in an entry; the excess dropped",
    "Keep an entry's children within the caps (1,000 images, alternates or videos per <url>, 1,000 of any other "
    "element): the first ones are read, the rest dropped while reading, so one entry cannot take unbounded memory.",
    area=_A)
TEXT_NAMED_XML = define_code(
    "SM137", _W, "text sitemap in a file named .xml",
    "The name says XML but the content is a text sitemap (one URL a line), so it is read as text: name it .txt "
    "(and update robots.txt or the index that lists it), or write an XML urlset.", area=_A)


def named_xml(source: str) -> bool:
    """Whether a file name or URL path ends in .xml or .xml.gz (the content should then be XML)."""
    name = source.split("?", 1)[0].split("#", 1)[0].lower()
    return name.endswith((".xml", ".xml.gz"))


#: Warnings that strict mode treats as errors (everything but advisory findings such as duplicates and feed
#: items without a link).
STRICT_FATAL: frozenset[str] = frozenset(
    pc.code for pc in (
        JUNK_AFTER_ROOT, WHITESPACE_BEFORE_DECLARATION, NAMESPACE, TAG_CASE, NOT_UTF8, MISSING_LOC,
        WHITESPACE_IN_LOC, EXTRA_LOC, BAD_LASTMOD, LENIENT_LASTMOD, BAD_CHANGEFREQ, BAD_PRIORITY, BAD_EXTENSION,
        TEXT_NOT_URL, GZIP_TRAILING, BARE_AMPERSAND, TOO_MANY_CHILDREN,
    )
)

# Why each reader problem happens (the user docs, docs/codes.md, show it beside the title and the fix).
describe_causes({
    "SM101": "The address answered with an HTML page: a CMS error or login page, a soft 404, or the site's home "
             "page served where the sitemap should be.",
    "SM102": "The document is empty, or its root element is none of the sitemap and feed roots (an API's JSON, "
             "some other XML vocabulary).",
    "SM103": "The document declares a DOCTYPE. DTDs can expand entities (billion laughs) or read local files, so "
             "the reader refuses them before reading anything.",
    "SM104": "The markup breaks XML's rules: an unescaped & or <, an element closed in the wrong order or never, "
             "an invalid character.",
    "SM105": "The bytes stop inside an element: an upload, a download or a generator interrupted, or a size limit "
             "that cut the file.",
    "SM106": "Something follows the root element's closing tag: debug output, an HTML footer appended by a "
             "server, or two documents written into one file.",
    "SM107": "Whitespace or a byte order mark's mangled bytes come before <?xml ...?>, often from a template or "
             "a script that prints a newline first.",
    "SM108": "The root element has no namespace or a slightly wrong one (https://, a trailing slash, another "
             "version).",
    "SM109": "Element names are written in another case (<URL>, <Loc>); XML names are case-sensitive.",
    "SM110": "The document is encoded in another encoding than UTF-8 (declared or detected), e.g. ISO-8859-1.",
    "SM111": "Bytes do not decode in the declared or detected encoding: a file saved in one encoding and "
             "declared as another, or binary data.",
    "SM112": "The document inflates past the byte budget (50 MiB by default, the protocol's limit): an oversized "
             "sitemap or a gzip bomb.",
    "SM113": "The gzip stream is damaged or cut off: a truncated download, a file compressed twice by mistake, or "
             "a transfer in text mode.",
    "SM114": "A <url> or <sitemap> element has no <loc>, or an empty one.",
    "SM115": "The loc is relative, uses another scheme than http(s), is not a URL at all, or is longer than "
             "2,048 characters.",
    "SM116": "The loc holds spaces or line breaks inside it, often from a template that wraps long lines.",
    "SM117": "An entry holds more than one <loc>.",
    "SM118": "The lastmod cannot be read as a date at all (free text, an HTTP date, a timestamp number).",
    "SM119": "The lastmod is a date in another format than W3C Datetime (e.g. '2024/05/01' or a missing zero); "
             "it was read leniently.",
    "SM120": "The changefreq is not one of the seven allowed values (or not lowercase).",
    "SM121": "The priority is not a number between 0.0 and 1.0.",
    "SM122": "An image, video, news or hreflang element lacks a required field or holds a value the extension "
             "does not allow.",
    "SM124": "A line of a text sitemap is not one absolute http(s) URL: a comment, a relative path, HTML, or "
             "several URLs on one line.",
    "SM125": "A text document holds no absolute URL at all: it is not a sitemap (a note, an error message).",
    "SM126": "Bytes follow the end of the gzip stream: a server or a tool appended something to the file.",
    "SM127": "A feed item has no <link> (RSS) or no link element (Atom), so it names no page.",
    "SM128": "The data is gzip inside gzip more than three times, as a zip bomb would be nested.",
    "SM129": "A bare & appears in a URL or text; strict XML forbids it, so it is read as &amp;.",
    "SM130": "An index lists more than 50,000 sitemaps, the protocol's limit.",
    "SM131": "A sitemap lists more than 50,000 URLs, the protocol's limit.",
    "SM132": "A sitemap is larger than 50 MiB (52,428,800 bytes) uncompressed, the protocol's limit.",
    "SM136": "An entry holds more than 1,000 children of one kind (images, alternates, videos or another "
             "element), more than any real page needs.",
    "SM137": "A file or URL whose name ends in .xml holds plain lines of URLs: a text sitemap given the wrong "
             "name, or a generator that wrote text where XML was expected.",
    "SM306": "The same URL is listed more than once in one sitemap (or, in validate, across the files checked "
             "together), e.g. a page reachable under two routes or written by two generator steps.",
})
