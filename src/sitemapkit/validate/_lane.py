"""The validator's fast lane: canonical ``<url>`` blocks checked from the bytes, XSD-validated in batches of bytes.

The reader's lane (``sitemapkit.read._lane``) finds blocks that are plain by construction: ``loc``, ``lastmod``,
``changefreq``, ``priority`` in the XSD's order, then ``image:image`` holding only ``image:loc`` and
``xhtml:link rel="alternate"`` with hreflang and href; values of printable ASCII without markup or references.
For the validator this lane does two things with them, without building lxml elements one by one:

* **Rule checks** run on the texts, with the same functions, in the same order and with the same lines as
  ``XmlPass._url`` gives them (an element's line is the line of the end of its start tag, as libxml2 records it).
* **XSD**: every ``XSD_BATCH`` blocks, their bytes, placed under the document's own prolog and root start tag and
  preceded by as many line feeds as put them on their own lines, make a small document that the worker thread
  parses, validates against the same schema and frees. libxml2 thus validates exactly these elements, under the
  same root, and reports the same lines. A partial batch at the hand-over becomes the start of the element path's
  next batch, so batches end where they always end.

Anything else (an extension with more fields, a comment, an entity, a non-ASCII character, ``</urlset>``) hands
the rest of the document to lxml, which first gets line feeds up to the hand-over line; the XML pass continues
exactly as it does for any document. ``tests/validate/test_fast_lane.py`` checks that reports are identical with
the lane on and off.
"""

from __future__ import annotations

import re

from sitemapkit.core import MAX_IMAGES_PER_URL
from sitemapkit.read import MAX_LANE_TAGS, CanonicalLane, url_values, xml_value
from sitemapkit.validate import _bulk
from sitemapkit.validate import _codes as C
from sitemapkit.validate._bulk import check_blocks
from sitemapkit.validate._checks import FAST_URL, check_changefreq, check_priority
from sitemapkit.validate._google import _GOOD_HREFLANG, Link, check_alternates, check_image_loc
from sitemapkit.validate._proof import XsdProof
from sitemapkit.validate._strategy import LaneHost

__all__ = ["ValidatorLane"]


# An "&" that does not start "&amp;": a buffer without one (ASCII too) decodes its values by one replace.
_OTHER_REFERENCE = re.compile(rb"&(?!amp;)").search
# Blocks in one run checked together (_bulk): at most, and at least after runs that failed.
_RUN_MAX = 256
_RUN_MIN = 8
_RUN_LONG = 64
_PAUSE_MAX = 4096


class ValidatorLane(CanonicalLane):
    """Checks canonical blocks for one XML pass (seen as a :class:`LaneHost`) and hands it the rest of the
    document. The driver gives the XML pass this class as its lane factory."""

    __slots__ = (
        "_batch_limit",
        "_batches",
        "_pause",
        "_pause_length",
        "_proof",
        "_region",
        "_region_clean",
        "_region_count",
        "_region_line",
        "_run",
        "_xp",
    )

    _TAILED = True
    # Values with the five entities, character references and UTF-8 characters too, and comments between blocks,
    # as the reader's lane takes them: values are decoded as XML decodes them (``xml_value``) before the checks,
    # and the XSD batches keep the bytes as written.
    _EXTENDED = True

    def __init__(self, xp: LaneHost, batch_limit: int) -> None:
        super().__init__()
        self._xp = xp
        self._batch_limit = batch_limit
        self._region: list[bytes] = []  # bytes of the blocks of the current XSD batch
        self._region_count = 0
        self._region_line = 0  # document line of the region's first byte
        self._region_clean = True  # every block of the region is proven valid by the schema (see _proof)
        self._batches = 0  # batches completed by the lane
        self._proof: XsdProof | None = None
        self._run = _RUN_MAX  # blocks the next run may take (_bulk; up to the end of the XSD batch)
        self._pause = 0  # blocks to check one by one before the next run
        self._pause_length = _RUN_MIN  # half the next pause

    def _start(self, head: bytes) -> bool:
        self._xp.lx_feed(head)
        self._proof = XsdProof.for_head(head)
        return not self._xp.dead

    def _batch_doc(self) -> bytes:
        head = self._head
        pad = b"\n" * (self._region_line - 1 - self._head_nl)
        doc = b"".join([head, pad, *self._region, b"</urlset>"])
        self._region = []
        return doc

    def _consume(self, text: str, pos: int, buf: bytes) -> int:
        xp = self._xp
        ctx = xp.ctx
        entry_loc = ctx.entry_loc
        entry_lastmod = ctx.entry_lastmod
        google = xp.google
        store = xp.store
        xsd = xp.xsd
        items = self._items
        findings = ctx.findings
        good_langs = _GOOD_HREFLANG
        source = ctx.source
        count = text.count
        find = text.find
        cpos = 0
        cline = self._line_at_buf_start()  # document line at text[cpos] (lxml's lines are the document's)
        region_from = pos
        region_count = self._region_count
        region_clean = self._region_clean
        proof = self._proof if xsd else None
        limit = self._batch_limit
        if xsd and not region_count and not self._region:
            self._region_line = cline + count("\n", 0, pos)
        # Values need decoding only where the buffer has a reference or a non-ASCII byte (checked once, in C).
        ascii_buf = buf.isascii()
        decode = not ascii_buf or b"&" in buf
        # A shop's buffer: ASCII whose every "&" starts "&amp;" (its queries): then a value's only reference is
        # "&amp;" and decoding it is one replace in C (what xml_value does with such a value). Searched up to the
        # last "</url>" (every value this call can take lies before it; a chunk may end inside an "&amp;").
        amp_only = False
        if decode and ascii_buf:
            last = buf.rfind(b"</url>")
            amp_only = last > pos and _OTHER_REFERENCE(buf, pos, last) is None
        done = 0  # blocks checked, added to xp.count before anything reads it
        # The previous entry's loc when it matched FAST_URL: a page's alternates are mostly its own loc and the
        # locs of its neighbours (en/de pairs), so an href equal to it needs no second match.
        plain_prev: str | None = None
        blocks_of = self._block.finditer(text, pos)
        more = True
        while more:
            # The next blocks, one after the other, up to the end of the XSD batch: checked as a run (_bulk) when
            # none has anything to report, else one by one below.
            blocks: list[re.Match[str]] = []
            room = min(limit - region_count, self._run) if xsd else self._run
            end = pos
            for m in blocks_of:
                if m.start() != end:
                    more = False
                    break
                blocks.append(m)
                end = m.end()
                if len(blocks) >= room:
                    break
            else:
                more = False
            if not blocks:
                break
            taken = False  # the blocks were checked as a run
            if self._pause > 0:
                self._pause -= len(blocks)
            elif len(blocks) > 1 and _bulk.ENABLED:
                got = check_blocks(xp, items, proof, text, blocks, cline, cpos)
                if got is None:
                    # Not one of them: the next run is shorter, and a run of the shortest length that fails
                    # pauses the runs for twice as many blocks as the last pause, so a document with a problem
                    # every few blocks costs little here. A run that passes makes the next one longer, and one of
                    # _RUN_LONG blocks or more halves the pause (short ones pass often in such a document).
                    if self._run > _RUN_MIN:
                        self._run //= 2
                    else:
                        self._pause = self._pause_length = min(2 * self._pause_length, _PAUSE_MAX)
                else:
                    if len(blocks) >= _RUN_LONG:
                        self._pause_length = max(self._pause_length // 2, _RUN_MIN)
                    self._run = min(self._run * 2, _RUN_MAX)
                    cline, proven = got
                    cpos = blocks[-1].start()
                    pos = end
                    done += len(blocks)
                    plain_prev = ctx.plain_loc
                    if xsd:
                        region_count += len(blocks)
                        region_clean = region_clean and proven
                    taken = True
            for m in () if taken else blocks:
                start = m.start()
                if start != pos:
                    break
                raw, lm, cf, pr, run = m.groups()
                if run and run.count("<") > MAX_LANE_TAGS:
                    break  # maybe more images or alternates than their caps: lxml reads it (and caps them)
                split: tuple[list[str], list[tuple[str, str]]] | None = None
                flat = find("\n", start, m.end(5)) < 0  # the whole element on one line (memchr over one block)
                if amp_only:
                    raw = raw.replace("&amp;", "&")
                    if lm is not None:
                        lm = lm.replace("&amp;", "&")
                    if cf is not None:
                        cf = cf.replace("&amp;", "&")
                    if pr is not None:
                        pr = pr.replace("&amp;", "&")
                    if run and "&" in run:
                        if not flat:
                            break  # an extension spanning lines with a reference: lxml reads it
                        assert items is not None
                        images_raw, pairs_raw = items.split(run)
                        split = ([v.replace("&amp;", "&") for v in images_raw],
                                 [(a.replace("&amp;", "&"), b.replace("&amp;", "&")) for a, b in pairs_raw])
                elif decode:
                    try:
                        raw, lm, cf, pr = url_values(raw, lm, cf, pr)
                        if run and ("&" in run or not run.isascii()):
                            if not flat:
                                break  # an extension spanning lines with a reference: lxml reads it
                            assert items is not None
                            images_raw, pairs_raw = items.split(run)
                            # (only the values with a reference or a non-ASCII character need decoding)
                            split = ([xml_value(v) if "&" in v or not v.isascii() else v for v in images_raw],
                                     [(a if a.isascii() and "&" not in a else xml_value(a),
                                       b if b.isascii() and "&" not in b else xml_value(b)) for a, b in pairs_raw])
                    except ValueError:  # not XML characters, or not UTF-8: lxml reads it and reports
                        break
                pos = m.end()
                cline += count("\n", cpos, start)
                cpos = start
                done += 1
                before = ctx.found
                # --- what XmlPass._url does with the same values, in the same order ---
                loc = entry_loc(raw or None, cline if flat else cline + count("\n", start, m.start(1)))
                if lm is not None:
                    entry_lastmod(lm, cline if flat else cline + count("\n", start, m.start(2)), loc)
                if cf is not None:
                    found = check_changefreq(cf)
                    if found:
                        findings(found, cline if flat else cline + count("\n", start, m.start(3)), loc)
                if pr is not None:
                    found = check_priority(pr)
                    if found:
                        findings(found, cline if flat else cline + count("\n", start, m.start(4)), loc)
                parts: tuple[list[str], list[tuple[str, str]]] | None = None
                urls_ok = False  # every image loc and href of the run matched FAST_URL (the Google checks saw them)
                if google:
                    if store is not None and loc is not None:
                        store.add_page(loc)
                    if run:
                        assert items is not None
                        urls_ok = flat
                        images: list[tuple[str | None, int]] | None = None
                        links: list[Link] | None = None
                        # The common hreflang case is settled here: every link's hreflang already known to be
                        # valid, every href the page itself or a plain URL, one URL per hreflang, the page listed.
                        # check_alternates then has nothing to report and only records the other pages; any
                        # other case goes to check_alternates with the same links.
                        simple = True
                        lists_self = False
                        others: list[tuple[str, str, int | None]] | None = None
                        seen: dict[str, str] = {}
                        if flat:  # every element on the <url>'s line: the texts are enough (no match objects)
                            parts = image_texts, pairs = split if split is not None else items.split(run)
                            if image_texts:
                                images = [(text or None, cline) for text in image_texts]
                            for hreflang, href in pairs:
                                key = good_langs.get(hreflang)
                                if key is None:
                                    simple = False
                                    break
                                if href == loc:
                                    lists_self = True
                                elif href != plain_prev and FAST_URL(href) is None:
                                    simple = False
                                    break
                                else:
                                    (others := others or []).append((href, hreflang, cline))
                                previous = seen.get(key)
                                if previous is None:
                                    seen[key] = href
                                elif previous != href:
                                    simple = False
                                    break
                            if pairs:
                                if simple and lists_self and loc is not None:
                                    if others is not None and store is not None:
                                        store.add_links(loc, others, source)  # all check_alternates would do
                                else:
                                    links = [(hreflang, href, "alternate", cline) for hreflang, href in pairs]
                        else:
                            base = m.start(5)
                            for item in items.general.finditer(run):
                                tag, image_loc, l1, h1, h2, l2, l3, h3, h4, l4 = item.groups()
                                if tag is not None:
                                    line = cline + count("\n", start, base + item.start(2))
                                    (images := images or []).append((image_loc or None, line))
                                else:
                                    # a link's line is the line of its "/>" (the end of its start tag)
                                    line = cline + count("\n", start, base + item.end() - 1)
                                    # only one attribute order took part: its groups are the non-None ones
                                    (links := links or []).append((
                                        l1 if l1 is not None else l2 if l2 is not None
                                        else l3 if l3 is not None else l4,
                                        h1 if h1 is not None else h2 if h2 is not None
                                        else h3 if h3 is not None else h4,
                                        "alternate", line))
                        if images is not None:
                            if len(images) > MAX_IMAGES_PER_URL:
                                ctx.report(C.IMAGE_TOO_MANY, f"{len(images)} images in one <url>: Google reads at most "
                                                             f"{MAX_IMAGES_PER_URL}", images[MAX_IMAGES_PER_URL][1],
                                           None, loc)
                            for image_text, line in images:
                                if image_text is not None and len(image_text) < 2048:
                                    fm = FAST_URL(image_text)
                                    if fm is not None and not ctx.bad_host(fm.group(2)):
                                        continue
                                urls_ok = False
                                check_image_loc(ctx, image_text, line, loc)
                        if links is not None:
                            urls_ok = False
                            check_alternates(ctx, links, loc)
                plain_prev = ctx.plain_loc
                if ctx.found != before:
                    xp.note_value_lines(before)
                    region_clean = False
                elif region_clean and (proof is None or not flat or loc is not raw or raw is None
                                       or not proof.block(raw, lm, cf, pr, self._parts(run, parts or split), urls_ok)):
                    region_clean = False
                if xsd:
                    region_count += 1
            else:
                # Every block taken, as a run or one by one. The blocks never pass the batch's end, so this is the
                # only place it can be (a block the lane leaves to lxml ends the loop before the batch is full).
                if xsd and region_count >= limit:
                    xp.count += done
                    done = 0
                    self._end_batch(buf, region_from, pos, region_clean, cline + count("\n", cpos, pos))
                    region_count = 0
                    region_from = pos
                    region_clean = True
                continue
            break
        xp.count += done
        # the line feeds before pos, which _advance would count again over the whole buffer
        self._nl_at = (pos, cline - self._line_at_buf_start() + count("\n", cpos, pos))
        self._region_count = region_count
        self._region_clean = region_clean
        if xsd and region_from < pos:
            self._region.append(buf[region_from:pos])
        return pos

    def _end_batch(self, buf: bytes, region_from: int, pos: int, clean: bool, next_line: int) -> None:
        """A full XSD batch ends at ``pos`` (its last bytes from ``region_from``; the next one starts on
        ``next_line``): validated, or skipped when every block is proven valid (values, and structure by the block
        pattern) and it is not the first (which was validated, with the root's attributes)."""
        self._batches += 1
        if clean and self._batches > 1:
            self._region = []
            self._xp.skip_bytes_batch()
        else:
            self._region.append(buf[region_from:pos])
            self._xp.flush_bytes_batch(self._batch_doc())
        self._region_line = next_line

    def _parts(self, run: str | None, parts: tuple[list[str], list[tuple[str, str]]] | None
               ) -> tuple[list[str], list[tuple[str, str]]] | None:
        """The images and links of a block's extension run (``parts`` when already split), None without one."""
        if not run:
            return None
        if parts is not None:
            return parts
        assert self._items is not None
        return self._items.split(run)  # (a run with references was split and decoded before: parts)

    def _handover(self, skipped: int, rest: bytes) -> bytes:
        xp = self._xp
        if self._region_count:
            xp.adopt_batch(self._batch_doc(), self._region_count)
            self._region_count = 0
        if skipped == 0:  # still on the root start tag's line: lxml's columns continue from the head
            xp.col_fix_line = self._head_nl + 1
            xp.col_fix = self._col - self._head_col
            return rest
        xp.col_fix_line = self._head_nl + 1 + skipped
        xp.col_fix = self._col
        return b"\n" * skipped + rest
