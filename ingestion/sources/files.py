"""Reading recorded responses for ``manage.py import_file``.

A file is recognised by its content (the name is only a fallback hint for
an empty list page): an OpenAlex entity or list page (JSON), an OpenAlex error
body, snapshot JSON Lines (gzipped or not, by magic bytes), an arXiv Atom feed,
or a VCR cassette (R ``vcr`` or vcrpy). Recorded error answers and unreadable
parts come out as ``SourceError`` items, not exceptions, so the caller can
quarantine them and go on.

A file can be read in parts (``Part``), so that several processes can share one
snapshot: each line of a JSON Lines file belongs to one part, chosen by the id
of the record on it, so every line of one record, in this file or another of
the run, goes to the same part and is written in file order, as one process
would. Each part parses only its own lines: the id is read from the start of
the line where it stands first (as in OpenAlex snapshots), otherwise from the
parsed line; a line with no id (a list page, bad JSON) goes by its block of
``BATCH`` lines. A file that is one document (an entity, a list page, a feed, a
cassette) belongs whole to part 0, and so do problems with the file itself.

Nothing is read whole unbounded (``bounds``): a line, a document and what a file
unpacks to have limits, and past one comes a problem, not an exception; a line
too long is skipped and the lines after it are read.
"""

from __future__ import annotations

import gzip
import io
import itertools
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ingestion.records import Page, SourceError
from ingestion.sources import bounds, cassettes
from ingestion.sources.bounds import GZIP_MAGIC
from ingestion.sources.cassettes import describe_request
from ingestion.sources.documents import (
    ENTITY_BY_PATH,
    Item,
    document_items,
    entity_of,
    json_document,
    labelled,
    preview,
)
from ingestion.sources.lines import RawLine, line_text, parse_line

__all__ = ["BATCH", "GZIP_MAGIC", "WHOLE", "Part", "describe_request", "entity_of", "read_file"]

BATCH = 1000  # payloads per page when reading JSON Lines
ATOM_NAMESPACE = b"http://www.w3.org/2005/Atom"


# A record's id at the very start of its line: {"id": "https://openalex.org/W123", …
_LEADING_ID_RE = re.compile(rb'\s*\{\s*"id"\s*:\s*"([^"\\]{1,255})"')


@dataclass(frozen=True)
class Part:
    """Part ``index`` (from 0) of ``count``: which lines of a JSON Lines file it reads."""

    index: int = 0
    count: int = 1

    def owner(self, key: bytes | None, number: int) -> int:
        """The part that writes the record with id ``key`` on line ``number``."""
        if key:  # the short form, so that a URL and a bare id agree
            return zlib.crc32(key.strip().rsplit(b"/", 1)[-1].upper()) % self.count
        return ((number - 1) // BATCH) % self.count

    @property
    def first(self) -> bool:
        return self.index == 0


def _record_key(document: object) -> bytes | None:
    """The id a parsed line's record is known by (OpenAlex ``id``, else ``arxiv_id``)."""
    if not isinstance(document, dict):
        return None
    value = document.get("id") or document.get("arxiv_id")
    return value.strip().encode() if isinstance(value, str) and value.strip() else None


WHOLE = Part()


def read_file(path: Path, part: Part = WHOLE, *, lazy: bool = False) -> Iterator[Item]:
    """Pages and problems found in one recorded file (or in ``part`` of it), in file order.

    With ``lazy``, a JSON Lines work whose id stands at the start of its line comes
    as a ``RawLine``, not parsed (see ``lines``); everything else is parsed here.
    What a file may hold is bounded (see ``bounds``): past a limit comes a problem,
    and the reading goes on where it can.
    """
    path = Path(path)
    limits = bounds.Limits.current()
    try:
        with path.open("rb") as raw:
            gzipped = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            stream = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
            yield from _read(path, bounds.Capped(stream, limits.unpacked), part, lazy, limits)
    except bounds.TooLarge as exc:
        if part.first:
            yield SourceError(f"{path.name}: {exc}")
    except (OSError, EOFError, zlib.error) as exc:
        if part.first:
            yield SourceError(f"{path.name}: cannot be read ({exc})")


def _read(path: Path, stream, part: Part, lazy: bool, limits: bounds.Limits) -> Iterator[Item]:
    name, hint = path.name, _hint_from_name(path.name)
    first = _next_filled_line(stream, limits.line)
    if isinstance(first, bounds.Overlong) or _complete_json_object(first):
        second = _next_filled_line(stream, limits.line)
        if second:  # one object per line: a snapshot part
            lines = itertools.chain([first, second], bounds.lines(stream, limits.line))
            yield from _json_lines(name, lines, hint, part, lazy, limits.document)
        elif part.first:  # a compact single answer, as the API sends it
            yield from _one_line_document(name, first, hint)
        return
    data, whole = bounds.read_document(stream, limits.document, head=first)
    if whole:
        yield from _whole(path, data.removeprefix(b"\xef\xbb\xbf"), part, lazy, limits)
    elif _json_lines_from_the_second_line(data):  # JSON Lines, too long to read whole
        lines = bounds.lines(bounds.Joined(data, stream), limits.line)
        yield from _json_lines(name, lines, hint, part, lazy, limits.document)
    elif part.first:
        yield SourceError(f"{name}: {bounds.document_too_large(limits.document)}")


def _one_line_document(
    name: str, line: bytes | bounds.Overlong, hint: str | None
) -> Iterator[Item]:
    if isinstance(line, bounds.Overlong):
        yield SourceError(f"{name}: {line.problem()}", body=preview(line.start))
    else:
        yield from json_document(name, line, hint)


def _next_filled_line(stream, limit: int) -> bytes | bounds.Overlong:
    line = bounds.next_line(stream, limit)
    while isinstance(line, bytes) and line.isspace():
        line = bounds.next_line(stream, limit)
    return line


def _complete_json_object(line: bytes) -> bool:
    try:
        return isinstance(bounds.json_loads(line), dict)
    except ValueError:
        return False


def _whole(
    path: Path, data: bytes, part: Part, lazy: bool, limits: bounds.Limits
) -> Iterator[Item]:
    name, head = path.name, data.lstrip()[:64]
    start = head[:1]
    if start in (b"{", b"[") and _json_lines_after_a_bad_first_line(data):
        lines = bounds.lines(io.BytesIO(data), limits.line)
        yield from _json_lines(name, lines, _hint_from_name(name), part, lazy, limits.document)
    elif not part.first:
        return
    elif not start:
        yield SourceError(f"{name}: the file is empty")
    elif start == b"<":
        yield from _atom(name, data)
    elif start in (b"{", b"["):
        yield from json_document(name, data, _hint_from_name(name))
    elif path.suffix.lower() in (".yml", ".yaml") or re.match(rb"(http_)?interactions:", head):
        yield from cassettes.cassette_items(name, data, limits)
    else:
        yield SourceError(f"{name}: unknown format (not JSON, JSON Lines, Atom or a VCR cassette)")


def _json_lines_after_a_bad_first_line(data: bytes) -> bool:
    """JSON Lines whose first line is damaged: later lines are whole objects."""
    before, _, last = data.strip().rpartition(b"\n")
    return bool(before) and _complete_json_object(last)


def _json_lines_from_the_second_line(data: bytes) -> bool:
    """The start of a file: its first line damaged, its next filled line a whole object."""
    lines = io.BytesIO(data)
    lines.readline()
    for line in lines:
        if not line.isspace():
            return line.endswith(b"\n") and _complete_json_object(line)
    return False


def _hint_from_name(name: str) -> str | None:
    """``works__…json`` names a list of works; used only when the content cannot tell."""
    head = re.split(r"[_.\-\s]", name.lower(), maxsplit=1)[0]
    return ENTITY_BY_PATH.get(head)


def _json_lines(
    label: str, lines: Iterable, hint: str | None, part: Part, lazy: bool, budget: int
) -> Iterator[Item]:
    """The records of JSON Lines, in pages of at most ``BATCH`` and ``budget`` bytes of lines."""
    batch = _Batch(budget)
    for number, line in enumerate(lines, start=1):
        if not isinstance(line, bytes):  # a line too long, or the end of what may be read
            yield from batch.flush()
            yield from _past_a_limit(label, number, line, part)
            continue
        if line.isspace():
            continue
        parsed = None  # (document, error), once the line is parsed
        leading = _LEADING_ID_RE.match(line) if lazy or part.count > 1 else None
        if part.count > 1:
            if leading:
                key = leading.group(1)
            else:  # the id stands elsewhere in the object: parse the line to find it
                parsed = parse_line(line)
                key = _record_key(parsed[0])
            if part.owner(key, number) != part.index:
                continue
        raw = _raw_work(label, number, line, leading) if lazy and not parsed else None
        if raw is not None:  # parsed when it is written, if it changed
            yield from batch.add("work", raw, len(line))
            continue
        document, error = parsed or parse_line(line)  # the hot loop of a snapshot import
        if error is not None:
            yield from batch.flush()
            error_text = f"{label} line {number}: not valid JSON ({error})"
            yield SourceError(error_text, body=line_text(line))
            continue
        if not isinstance(document, dict):  # one record per line: a bare array or value is none
            yield from batch.flush()
            what = "array" if isinstance(document, list) else type(document).__name__
            yield SourceError(
                f"{label} line {number}: a JSON {what}, not one record", body=line_text(line)
            )
            continue
        kind = entity_of(document)
        if kind is None:  # a list page, an error body or something odd on this line
            yield from batch.flush()
            yield from document_items(f"{label} line {number}", document, hint)
            continue
        yield from batch.add(kind, document, len(line))
    yield from batch.flush()


class _Batch:
    """Records read and not given out yet: of one entity, at most ``BATCH`` of them,
    from at most ``budget`` bytes of lines (so that many long lines are not held at once)."""

    def __init__(self, budget: int):
        self.entity: str | None = None
        self.items: list = []
        self.held, self.budget = 0, budget

    def add(self, entity: str, item, size: int) -> Iterator[Item]:
        full = len(self.items) >= BATCH or self.held + size > self.budget
        if self.items and (entity != self.entity or full):
            yield from self.flush()
        self.entity = entity
        self.items.append(item)
        self.held += size

    def flush(self) -> Iterator[Item]:
        if self.items:
            yield Page(entity=self.entity or "work", payloads=self.items)
            self.items, self.held = [], 0


def _past_a_limit(
    label: str, number: int, found: bounds.Overlong | bounds.TooLarge, part: Part
) -> Iterator[SourceError]:
    """The problem with line ``number``: too long (skipped), or where reading stopped."""
    if isinstance(found, bounds.TooLarge):
        if part.first:
            yield SourceError(f"{label} line {number}: {found}")
        return
    leading = _LEADING_ID_RE.match(found.start)  # its owner, as if it had been read
    if part.owner(leading.group(1) if leading else None, number) == part.index:
        yield SourceError(f"{label} line {number}: {found.problem()}", body=line_text(found.start))


def _raw_work(label: str, number: int, line: bytes, leading: re.Match | None) -> RawLine | None:
    """The line unparsed, when the id at its start is an OpenAlex work's."""
    if leading is None:
        return None
    key = leading.group(1).decode("utf-8", errors="replace")
    if entity_of({"id": key}) != "work":
        return None
    return RawLine.of(label, number, line, key)


# --- arXiv Atom


def _atom(name: str, data: bytes) -> Iterator[Item]:
    head = data[:4096]
    if not re.search(rb"<(?:\w+:)?feed\b", head) or ATOM_NAMESPACE not in head:
        yield SourceError(f"{name}: XML but not an Atom feed", body=preview(data))
        return
    from ingestion.sources.arxiv import feed

    try:
        feed = feed.parse_feed(data)
    except SourceError as exc:
        yield labelled(name, exc)
        return
    except (ValueError, SyntaxError) as exc:  # lxml's XMLSyntaxError is a SyntaxError
        yield SourceError(f"{name}: unreadable Atom feed ({exc})", body=preview(data))
        return
    yield Page(entity="arxiv", payloads=list(feed.entries), total=feed.total)
