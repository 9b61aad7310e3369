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
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import itertools
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import parse_qsl, unquote, urlsplit

import yaml

from publications.records import Page, SourceError
from publications.sources.lines import RawLine, line_text, parse_line
from publications.sources.openalex.fetching import source_error

Item = Page | SourceError

GZIP_MAGIC = b"\x1f\x8b"
BATCH = 1000  # payloads per page when reading JSON Lines
OPENALEX_HOST = "api.openalex.org"
ATOM_NAMESPACE = b"http://www.w3.org/2005/Atom"

# Entity names by OpenAlex id letter and by API path segment.
ENTITY_BY_LETTER = {
    "W": "work",
    "A": "author",
    "I": "institution",
    "S": "venue",
    "V": "venue",
    "T": "topic",
    "C": "concept",
    "P": "publisher",
    "F": "funder",
    "K": "keyword",
}
ENTITY_BY_PATH = {
    "works": "work",
    "authors": "author",
    "people": "author",
    "institutions": "institution",
    "sources": "venue",
    "journals": "venue",
    "venues": "venue",
    "topics": "topic",
    "concepts": "concept",
    "publishers": "publisher",
    "funders": "funder",
    "keywords": "keyword",
    "domains": "domain",
    "fields": "field",
    "subfields": "subfield",
}
_ID_RE = re.compile(
    r"^https?://openalex\.org/(?:([A-Za-z])\d+|(domains|fields|subfields|keywords)/[\w-]+)$"
)
_HIDDEN_PARAMETERS = {"api_key", "mailto", "email"}
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    """
    path = Path(path)
    try:
        with path.open("rb") as raw:
            gzipped = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            stream = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
            yield from _read(path, stream, part, lazy)
    except (OSError, EOFError, zlib.error) as exc:
        if part.first:
            yield SourceError(f"{path.name}: cannot be read ({exc})")


def _read(path: Path, stream: BinaryIO, part: Part, lazy: bool) -> Iterator[Item]:
    name = path.name
    first = _next_filled_line(stream)
    if _complete_json_object(first):
        second = _next_filled_line(stream)
        if not second:  # a compact single answer, as the API sends it
            if part.first:
                yield from _document_items(name, json.loads(first), _hint_from_name(name))
        else:  # one object per line: a snapshot part
            hint = _hint_from_name(name)
            yield from _json_lines(name, [first, second], stream, hint, part, lazy)
        return
    data = (first + stream.read()).removeprefix(b"\xef\xbb\xbf")
    yield from _whole(path, data, part, lazy)


def _next_filled_line(stream: BinaryIO) -> bytes:
    line = stream.readline()
    while line and not line.strip():
        line = stream.readline()
    return line


def _complete_json_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _whole(path: Path, data: bytes, part: Part = WHOLE, lazy: bool = False) -> Iterator[Item]:
    name, head = path.name, data.lstrip()[:64]
    start = head[:1]
    if start in (b"{", b"[") and _json_lines_after_a_bad_first_line(data):
        yield from _json_lines(name, [], io.BytesIO(data), _hint_from_name(name), part, lazy)
    elif not part.first:
        return
    elif not start:
        yield SourceError(f"{name}: the file is empty")
    elif start == b"<":
        yield from _atom(name, data)
    elif start in (b"{", b"["):
        yield from _json_document(name, data, _hint_from_name(name))
    elif path.suffix.lower() in (".yml", ".yaml") or re.match(rb"(http_)?interactions:", head):
        yield from _cassette(name, data)
    else:
        yield SourceError(f"{name}: unknown format (not JSON, JSON Lines, Atom or a VCR cassette)")


def _json_lines_after_a_bad_first_line(data: bytes) -> bool:
    """JSON Lines whose first line is damaged: later lines are whole objects."""
    lines = data.strip().splitlines()
    return len(lines) > 1 and _complete_json_object(lines[-1])


def _hint_from_name(name: str) -> str | None:
    """``works__…json`` names a list of works; used only when the content cannot tell."""
    head = re.split(r"[_.\-\s]", name.lower(), maxsplit=1)[0]
    return ENTITY_BY_PATH.get(head)


# --- JSON


def _json_document(label: str, data: bytes | str, hint: str | None) -> Iterator[Item]:
    try:
        document = json.loads(data)
    except ValueError as exc:
        yield SourceError(f"{label}: not valid JSON ({exc})", body=_preview(data))
        return
    yield from _document_items(label, document, hint)


def _json_lines(
    label: str,
    head: list[bytes],
    stream: Iterable[bytes],
    hint: str | None,
    part: Part = WHOLE,
    lazy: bool = False,
):
    batch: list = []
    entity = None
    for number, line in enumerate(itertools.chain(head, stream), start=1):
        if not line.strip():
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
            if batch and (entity != "work" or len(batch) >= BATCH):
                yield from _flush(entity, batch)
            entity = "work"
            batch.append(raw)
            continue
        document, error = parsed or parse_line(line)  # the hot loop of a snapshot import
        if error is not None:
            yield from _flush(entity, batch)
            error_text = f"{label} line {number}: not valid JSON ({error})"
            yield SourceError(error_text, body=line_text(line))
            continue
        if not isinstance(document, dict):  # one record per line: a bare array or value is none
            yield from _flush(entity, batch)
            what = "array" if isinstance(document, list) else type(document).__name__
            yield SourceError(
                f"{label} line {number}: a JSON {what}, not one record", body=line_text(line)
            )
            continue
        kind = entity_of(document)
        if kind is None:  # a list page, an error body or something odd on this line
            yield from _flush(entity, batch)
            yield from _document_items(f"{label} line {number}", document, hint)
            continue
        if batch and (kind != entity or len(batch) >= BATCH):
            yield from _flush(entity, batch)
        entity = kind
        batch.append(document)
    yield from _flush(entity, batch)


def _raw_work(label: str, number: int, line: bytes, leading: re.Match | None) -> RawLine | None:
    """The line unparsed, when the id at its start is an OpenAlex work's."""
    if leading is None:
        return None
    key = leading.group(1).decode("utf-8", errors="replace")
    if entity_of({"id": key}) != "work":
        return None
    return RawLine.of(label, number, line, key)


def _flush(entity: str | None, batch: list[dict]) -> Iterator[Item]:
    if batch:
        yield Page(entity=entity or "work", payloads=list(batch))
        batch.clear()


def entity_of(payload: object) -> str | None:
    """The entity name of one OpenAlex object from its id, or None."""
    if not isinstance(payload, dict) or not isinstance(payload.get("id"), str):
        return None
    match = _ID_RE.match(payload["id"].strip())
    if not match:
        return None
    if match.group(1):
        return ENTITY_BY_LETTER.get(match.group(1).upper())
    return ENTITY_BY_PATH.get(match.group(2))


def _document_items(label: str, document: object, hint: str | None) -> Iterator[Item]:
    """One parsed JSON answer: a list page, one entity, or an error body."""
    if isinstance(document, list):
        document = {"results": document}
    if not isinstance(document, dict):
        yield SourceError(f"{label}: JSON {type(document).__name__} is not an OpenAlex answer")
    elif "error" in document and "results" not in document and "id" not in document:
        body = json.dumps(document, ensure_ascii=False)
        yield _labelled(label, source_error(None, body, "this recording"))
    elif isinstance(document.get("results"), list):
        yield from _list_page(label, document, hint)
    elif entity := entity_of(document) or (hint if "id" not in document else None):
        # Without an id only a hint from the request path names it (e.g. ?select=doi).
        yield Page(entity=entity, payloads=[document])
    else:
        yield SourceError(
            f"{label}: JSON object without an OpenAlex id",
            body=json.dumps(document, ensure_ascii=False),  # whole: it may be a record
        )


def _list_page(label: str, document: dict, hint: str | None) -> Iterator[Item]:
    results = [r for r in document["results"] if isinstance(r, dict)]
    entities = {entity_of(r) for r in results}
    if None in entities or len(entities) > 1:
        yield SourceError(f"{label}: results are not OpenAlex entities of one kind")
        return
    entity = entities.pop() if entities else hint or "work"
    meta = document.get("meta") if isinstance(document.get("meta"), dict) else {}
    count = meta.get("count")
    total = count if isinstance(count, int) and not isinstance(count, bool) else None
    yield Page(entity=entity, payloads=results, total=total)


def _preview(data: object, size: int = 2000) -> str:
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return text[:size]


def _labelled(label: str, error: SourceError) -> SourceError:
    return SourceError(f"{label}: {error}", status=error.status, body=error.body)


# --- arXiv Atom


def _atom(name: str, data: bytes) -> Iterator[Item]:
    head = data[:4096]
    if not re.search(rb"<(?:\w+:)?feed\b", head) or ATOM_NAMESPACE not in head:
        yield SourceError(f"{name}: XML but not an Atom feed", body=_preview(data))
        return
    from publications.sources.arxiv import feed  # written beside this module; imported when needed

    try:
        feed = feed.parse_feed(data)
    except SourceError as exc:
        yield _labelled(name, exc)
        return
    except (ValueError, SyntaxError) as exc:  # lxml's XMLSyntaxError is a SyntaxError
        yield SourceError(f"{name}: unreadable Atom feed ({exc})", body=_preview(data))
        return
    yield Page(entity="arxiv", payloads=list(feed.entries), total=feed.total)


# --- VCR cassettes


def _cassette(name: str, data: bytes) -> Iterator[Item]:
    try:
        document = yaml.load(data, Loader=_YAML_LOADER)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        yield SourceError(f"{name}: not valid YAML ({exc})", body=_preview(data))
        return
    document = document if isinstance(document, dict) else {}
    interactions = document.get("http_interactions") or document.get("interactions")
    if not isinstance(interactions, list):
        yield SourceError(f"{name}: YAML but not a VCR cassette", body=_preview(data))
        return
    for number, interaction in enumerate(interactions, start=1):
        if isinstance(interaction, dict):
            yield from _interaction(f"{name} #{number}", interaction)


def _interaction(label: str, interaction: dict) -> Iterator[Item]:
    request = interaction.get("request") if isinstance(interaction.get("request"), dict) else {}
    response = interaction.get("response") if isinstance(interaction.get("response"), dict) else {}
    uri = str(request.get("uri") or "")
    if (urlsplit(uri).hostname or "").lower() != OPENALEX_HOST:
        return  # Crossref, Semantic Scholar, Unpaywall… recorded alongside
    status = _status(response.get("status"))
    if 300 <= status < 400:
        return  # a redirect; the request it led to is recorded on its own
    try:
        body = _body(response).decode("utf-8")
    except (ValueError, OSError, EOFError, zlib.error, binascii.Error) as exc:
        yield SourceError(f"{label}: unreadable response body ({exc})")
        return
    hint = _entity_from_path(uri)
    if status >= 400:
        yield _labelled(label, source_error(status, body, describe_request(uri)))
    else:
        yield from _json_document(f"{label} ({describe_request(uri)})", body, hint)


def _status(value: object) -> int:
    """R vcr stores the code as a number, vcrpy as {code, message}."""
    if isinstance(value, dict):
        value = value.get("code")
    try:
        return int(value)
    except (TypeError, ValueError):
        return 200


def _body(response: dict) -> bytes:
    body = response.get("body") if isinstance(response.get("body"), dict) else {}
    data = body.get("string")
    if data is None and body.get("base64_string"):
        data = base64.b64decode(body["base64_string"])
    if data is None:
        return b""
    if isinstance(data, str):
        data = data.encode("utf-8")
    # Magic bytes, not Content-Encoding, decide: R vcr keeps the header but stores the
    # body already decoded; vcrpy stores the gzip bytes as !!binary.
    return gzip.decompress(data) if data[:2] == GZIP_MAGIC else data


def _entity_from_path(uri: str) -> str | None:
    segment = unquote(urlsplit(uri).path).strip("/").split("/", 1)[0]
    return ENTITY_BY_PATH.get(segment.lower())


def describe_request(uri: str) -> str:
    """``work https://doi.org/10.1/x`` or ``works matching filter=…`` (no keys or e-mails)."""
    parts = urlsplit(uri)
    segment, _, rest = unquote(parts.path).strip("/").partition("/")
    if rest:
        return f"{ENTITY_BY_PATH.get(segment, segment)} {rest}"
    shown = [f"{k}={v}" for k, v in parse_qsl(parts.query) if k not in _HIDDEN_PARAMETERS]
    return f"{segment} matching {'&'.join(shown)}" if shown else segment
