"""Local sources of the validator: files and directories expanded into jobs, indexes first, the children an index
lists found next to it, and the bytes of a file read in chunks (gzip inflated under the budget, for the column
pass)."""

from __future__ import annotations

import os
import zlib
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, InputError
from sitemapkit.read import (
    DocumentKind,
    GzipDecoder,
    is_gzip,
    no_sitemap_files,
    not_a_sitemap,
    open_bytes,
    sitemap_files,
    sniff,
)
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import origin_of
from sitemapkit.validate._context import FileContext
from sitemapkit.validate._result import SkippedFile

__all__ = ["Job", "children", "expand", "not_a_sitemap", "order", "plain_chunks", "plain_chunks_of", "read_chunks"]

_CHUNK = 1 << 20


@dataclass(slots=True)
class Job:
    path: Path
    display: str
    sitemap_url: str | None = None
    parent: FileContext | None = None
    parent_line: int | None = None


def expand(sources: Iterable[str | os.PathLike[str]], base_url: str | None,
           skipped: list[SkippedFile] | None = None) -> Iterator[Job]:
    """The jobs for files and directories. In a directory, files named like sitemaps that are something else by
    their content (:func:`not_a_sitemap`) go to ``skipped`` instead; a file named on its own is always validated."""
    for src in sources:
        text = os.fspath(src)
        path = Path(text)
        if path.is_dir():
            base = base_url if base_url is None or base_url.endswith("/") else base_url + "/"
            found, passed = sitemap_files(path)  # the read layer's rule, shared with urls and diff
            if not found:
                raise InputError(no_sitemap_files(text, passed))
            for child in found:
                rel = child.relative_to(path).as_posix()
                yield Job(child, str(child), urljoin(base, rel) if base else None)
            if skipped is not None:
                skipped.extend(SkippedFile(str(p), reason) for p, reason in passed)
        elif path.is_file():
            url = None
            if base_url is not None:
                url = base_url + path.name if base_url.endswith("/") else base_url
            yield Job(path, text, url)
        elif path.exists():
            raise InputError(f"{text}: not a regular file or directory")
        else:
            raise InputError(f"{text}: no such file or directory")


def _head(path: Path) -> bytes:
    with open_bytes(path) as src:
        return src.read(8192)


def order(jobs: list[Job]) -> list[Job]:
    """Indexes first, so that their children are validated knowing their URL (and scope)."""
    def is_index(job: Job) -> bool:
        try:
            return sniff(_head(job.path)).kind.kind is DocumentKind.INDEX
        except OSError:
            return False
    indexes = [j for j in jobs if is_index(j)]
    return indexes + [j for j in jobs if j not in indexes]


def children(ctx: FileContext, job: Job, queue: list[Job]) -> list[Job]:
    """Child sitemaps of an index found next to it; each queued job gets its URL from the index."""
    out: list[Job] = []
    directory = job.path.parent
    base_dir = None
    if ctx.sitemap_url is not None:
        path = urlsplit(ctx.sitemap_url).path
        base_dir = (origin_of(ctx.sitemap_url) or "") + path[: path.rfind("/") + 1]
    names = {p.name for p in directory.iterdir() if p.is_file()}
    queued = {j.path.resolve(): j for j in queue}

    def locate(loc: str) -> tuple[Path | None, str]:
        bare = loc.split("#", 1)[0].split("?", 1)[0]
        name = bare.rsplit("/", 1)[-1]
        if base_dir is not None and bare.startswith(base_dir):
            rel = bare[len(base_dir):]
            if rel and "/" in rel and ".." not in rel.split("/") and (directory / rel).is_file():
                return directory / rel, name
        return (directory / name if name in names else None), name

    for loc, line in ctx.child_locs:
        found, _ = locate(loc)
        if found is None:
            continue
        existing = queued.get(found.resolve())
        if existing is not None:
            queue.remove(existing)
            existing.sitemap_url = existing.sitemap_url or loc
            existing.parent, existing.parent_line = ctx, line
            out.append(existing)
        else:
            out.append(Job(found, str(found), loc, ctx, line))
    # Children are looked for only when the index comes with some of them: an index validated on its own (none
    # of its children beside it) is not flooded with "missing" warnings. The missing ones are found again then,
    # not kept in a list: an index of a million children listed on its own costs no second copy of them.
    if out:
        for loc, line in ctx.child_locs:
            found, name = locate(loc)
            if found is None:
                ctx.report(C.CHILD_MISSING, f"{loc} is not next to the index (looked for "
                                            f"{directory / (name or '?')}): publish it or remove the entry", line,
                           None, loc)
    return out


def plain_chunks_of(data: bytes) -> Iterator[bytes]:
    """The document's bytes after gzip (for the column pass)."""
    return _plain(iter([data]))


def plain_chunks(path: Path) -> Generator[bytes, None, None]:
    """The file's bytes after gzip (for the column pass)."""
    yield from _plain(read_chunks(path))


#: Compressed bytes inflated at a time: the validator's steps too (``_stream``), so that the column
#: pass sees the same bytes however the document was read.
GZ_STEP = 16384


def _plain(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Bytes after gzip, inflated in steps at fixed offsets; they end where the data is corrupt or the budget
    is reached, as the validator's reading does."""
    decoder: GzipDecoder | None = None
    head = b""
    carry = b""
    for chunk in chunks:
        if decoder is None:
            head += chunk
            if len(head) < 2:
                continue
            if not is_gzip(head):
                yield head
                yield from chunks
                return
            decoder = GzipDecoder(max_bytes=DEFAULT_MAX_DECOMPRESSED_BYTES)
            chunk, head = head, b""
        data = carry + chunk
        end = len(data) - len(data) % GZ_STEP
        carry = data[end:]
        if not (yield from _inflate(decoder, data[:end])):
            return
    if decoder is None:
        if head:
            yield head
        return
    if (yield from _inflate(decoder, carry)):
        yield from decoder.flush()


def _inflate(decoder: GzipDecoder, data: bytes) -> Generator[bytes, None, bool]:
    for start in range(0, len(data), GZ_STEP):
        try:
            yield from decoder.iter_decompress(data[start:start + GZ_STEP])
        except zlib.error:
            return False
        if decoder.exceeded:
            return False
    return True


def read_chunks(path: Path) -> Iterator[bytes]:
    with open_bytes(path) as src:
        yield from src.chunks(_CHUNK)
