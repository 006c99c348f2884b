"""The fetch layer's problem codes (SM5xx): fetching and walking sitemaps (SM501-SM517), reading robots.txt
(SM520-SM529) and discovery (SM530-SM532). The face imports this module, so importing any part of the layer
registers them (see ``core/_problems.define_code``); the modules that report them import them from here.
"""

from __future__ import annotations

from sitemapkit.core import Severity, define_code, describe_causes
from sitemapkit.fetch._binary import MESSAGE

__all__ = [
    "SM501",
    "SM502",
    "SM503",
    "SM504",
    "SM505",
    "SM506",
    "SM507",
    "SM508",
    "SM509",
    "SM510",
    "SM511",
    "SM512",
    "SM513",
    "SM514",
    "SM515",
    "SM516",
    "SM517",
    "SM520",
    "SM521",
    "SM522",
    "SM523",
    "SM524",
    "SM525",
    "SM526",
    "SM527",
    "SM528",
    "SM529",
    "SM530",
    "SM531",
    "SM532",
]

_AREA = "fetch"

SM501 = define_code("SM501", Severity.ERROR, "sitemap could not be fetched",
                    "Check that the server answers (connection, timeouts, complete bodies).", area=_AREA)
SM502 = define_code("SM502", Severity.ERROR, "sitemap answered with an error status",
                    "Serve the sitemap with status 200, or remove it from robots.txt / its index.", area=_AREA)
SM503 = define_code("SM503", Severity.ERROR, "redirect loop or too many redirects",
                    "Point robots.txt and indexes at the sitemap's final URL.", area=_AREA)
SM504 = define_code("SM504", Severity.ERROR, "sitemap exceeds the byte budget",
                    "Split the sitemap: at most 50 MB (52,428,800 bytes) uncompressed (RULES.md 9).", area=_AREA)
SM505 = define_code("SM505", Severity.ERROR, "not a sitemap",
                    "Serve an XML sitemap, index, text list or feed; an HTML page (often an error page served "
                    "with status 200) is not one.", area=_AREA)
SM506 = define_code("SM506", Severity.WARNING, "sitemap already visited",
                    "List each sitemap once; make sure no sitemap redirects to another one.", area=_AREA)
SM507 = define_code("SM507", Severity.WARNING, "index nesting deeper than the depth limit",
                    "Do not nest indexes (RULES.md 12).", area=_AREA)
SM508 = define_code("SM508", Severity.WARNING, "sitemap limit reached; children skipped",
                    "Raise the limit on sitemaps, or list fewer sitemaps.", area=_AREA)
SM509 = define_code("SM509", Severity.WARNING, "URL limit reached; the walk stopped",
                    "Raise the limit on URLs.", area=_AREA)
SM510 = define_code("SM510", Severity.WARNING, "index listed by another index",
                    "Google does not follow nested indexes: list every sitemap in one index (RULES.md 12).",
                    area=_AREA)
SM511 = define_code("SM511", Severity.WARNING, "index lists a sitemap on another host",
                    "An index may only list sitemaps of its own site (RULES.md 11).", area=_AREA)
SM512 = define_code("SM512", Severity.WARNING, "sitemap redirected",
                    "Point robots.txt and indexes at the sitemap's final URL.", area=_AREA)
SM513 = define_code("SM513", Severity.ERROR, "sitemap could not be read",
                    "The document broke the reader (see the message); fix the document.", area=_AREA)
SM514 = define_code("SM514", Severity.WARNING, "more problems not shown",
                    "Fix the problems listed first, or validate the sitemap on its own.", area=_AREA)
SM515 = define_code("SM515", Severity.ERROR, "address refused",
                    "The sitemap (or a redirect) points at a loopback, private, link-local or other special "
                    "address; list public URLs only, or pass --allow-private-addresses if it is intended.",
                    area=_AREA)
SM516 = define_code("SM516", Severity.ERROR, MESSAGE,
                    "The document is binary (an image, an archive, a program): give a sitemap, XML, text or feed, "
                    "gzip-compressed or not.", area=_AREA)
SM517 = define_code("SM517", Severity.WARNING, "sitemap of a local index not found in its folder",
                    "A local index's sitemaps are read from the index's own folder by file name: put the file "
                    "there, or remove the entry.", area=_AREA)

SM520 = define_code("SM520", Severity.WARNING, "robots.txt could not be fetched",
                    "Serve /robots.txt with status 200 (or 404 if there is none).", area=_AREA)
SM521 = define_code("SM521", Severity.WARNING, "misspelled Sitemap directive",
                    "Write the directive as 'Sitemap: <absolute URL>'.", area=_AREA)
SM522 = define_code("SM522", Severity.WARNING, "relative sitemap URL in robots.txt",
                    "Give the absolute URL, scheme and host included (RULES.md 17).", area=_AREA)
SM523 = define_code("SM523", Severity.WARNING, "Sitemap directive without a colon",
                    "Write 'Sitemap: <URL>' with a colon after the directive name.", area=_AREA)
SM524 = define_code("SM524", Severity.WARNING, "sitemap URL on the line after an empty Sitemap directive",
                    "Put the URL on the same line as 'Sitemap:'.", area=_AREA)
SM525 = define_code("SM525", Severity.WARNING, "bare URL line taken as a sitemap",
                    "Prefix the line with 'Sitemap: '.", area=_AREA)
SM526 = define_code("SM526", Severity.WARNING, "duplicate sitemap in robots.txt",
                    "List each sitemap once.", area=_AREA)
SM527 = define_code("SM527", Severity.WARNING, "unusable sitemap URL in robots.txt",
                    "Give an absolute http(s) URL.", area=_AREA)
SM528 = define_code("SM528", Severity.WARNING, "robots.txt is not UTF-8",
                    "Serve robots.txt as UTF-8 without a byte order mark (RFC 9309 §2.3).", area=_AREA)
SM529 = define_code("SM529", Severity.WARNING, "empty Sitemap directive",
                    "Give the sitemap URL after 'Sitemap:'.", area=_AREA)

SM530 = define_code("SM530", Severity.ERROR, "no sitemap found",
                    "Add 'Sitemap: <URL>' to robots.txt (RULES.md 17).", area=_AREA)
SM531 = define_code("SM531", Severity.WARNING, "sitemap found only at a well-known path",
                    "Announce it in robots.txt with 'Sitemap: <absolute URL>' (RULES.md 17).", area=_AREA)
SM532 = define_code("SM532", Severity.ERROR, "site cannot be reached",
                    "Neither robots.txt nor the home page answered (no connection, DNS, TLS or a timeout; the "
                    "message gives the cause): check the address and that the server is up and reachable from "
                    "here.", area=_AREA)

# Why each fetch problem happens (the user docs, docs/codes.md, show it beside the title and the fix).
describe_causes({
    "SM501": "The sitemap's URL gave no usable answer: the connection failed or was reset, the server stalled or "
             "ran past the deadline, or the body arrived incomplete.",
    "SM502": "The server answered with a 4xx or 5xx status instead of the sitemap (removed, moved without a "
             "redirect, protected, or failing).",
    "SM503": "Redirects loop back or go on longer than the redirect limit.",
    "SM504": "The sitemap is larger than the byte budget (50 MiB uncompressed by default), or a gzip bomb.",
    "SM505": "The URL answered with something else than a sitemap: usually an HTML page (an error or login page, "
             "a soft 404).",
    "SM506": "The walk reached a sitemap it had read already: listed twice, or reached again through a redirect.",
    "SM507": "Indexes are nested deeper than --max-index-depth.",
    "SM508": "The walk reached --max-sitemaps; the sitemaps past it were not read.",
    "SM509": "The walk reached --max-urls; it stopped there.",
    "SM510": "An index lists another index; Google does not follow nested indexes.",
    "SM511": "An index lists a sitemap on another host than its own.",
    "SM512": "The sitemap's URL redirects: robots.txt or the index names an old address.",
    "SM513": "The document broke the reader in an unexpected way (the message says how).",
    "SM514": "A sitemap had more problems than are listed; the count is given.",
    "SM515": "The sitemap, a redirect or a child points at a loopback, private, link-local or other special "
             "address, which fetches refuse by default (server-side request forgery).",
    "SM516": "The URL or file holds binary data (an image, an archive, a program), not a sitemap.",
    "SM517": "A local index lists a sitemap whose file is not in the index's own folder.",
    "SM520": "robots.txt answered with an error status other than 404/410, or could not be fetched; crawlers "
             "then assume the whole site is disallowed.",
    "SM521": "A robots.txt line looks like a misspelled Sitemap directive (Site-map, Sitemaps, Sitmap).",
    "SM522": "A Sitemap line in robots.txt gives a relative URL; the directive needs an absolute one.",
    "SM523": "A Sitemap line lacks the colon after the directive name.",
    "SM524": "An empty Sitemap: line is followed by a line holding the URL.",
    "SM525": "robots.txt holds a bare URL line; it was taken as a sitemap.",
    "SM526": "robots.txt lists the same sitemap more than once.",
    "SM527": "A Sitemap line's URL cannot be used (not http(s), malformed).",
    "SM528": "robots.txt is not UTF-8, or starts with a byte order mark.",
    "SM529": "A Sitemap: line has no URL after it.",
    "SM530": "The site answered, but robots.txt names no sitemap and none was found at the well-known paths "
             "(/sitemap.xml, ...) or in the home page's <link rel=\"sitemap\">.",
    "SM531": "A sitemap answers at a well-known path, but robots.txt does not announce it.",
    "SM532": "Neither robots.txt nor the home page gave any answer: the host name does not resolve, nothing "
             "listens on the port, a firewall drops the connection, TLS fails, or the server does not answer "
             "in time.",
})
