"""One parsed OpenAlex answer as pages and problems: an entity, a list page or an error body.

Recorded files (``files``) and the bodies of recorded requests (``cassettes``)
come to the same answers, read here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ingestion.records import Page, SourceError
from ingestion.sources import bounds
from ingestion.sources.openalex.fetching import source_error

Item = Page | SourceError

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


def json_document(label: str, data: bytes | str, hint: str | None) -> Iterator[Item]:
    try:
        document = bounds.json_loads(data)
    except ValueError as exc:
        yield SourceError(f"{label}: not valid JSON ({exc})", body=preview(data))
        return
    yield from document_items(label, document, hint)


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


def document_items(label: str, document: object, hint: str | None) -> Iterator[Item]:
    """One parsed JSON answer: a list page, one entity, or an error body."""
    if isinstance(document, list):
        document = {"results": document}
    if not isinstance(document, dict):
        yield SourceError(f"{label}: JSON {type(document).__name__} is not an OpenAlex answer")
    elif "error" in document and "results" not in document and "id" not in document:
        body = json.dumps(document, ensure_ascii=False)
        yield labelled(label, source_error(None, body, "this recording"))
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


def preview(data: object, size: int = 2000) -> str:
    if isinstance(data, bytes):
        data = data[: 4 * size].decode("utf-8", errors="replace")
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return text[:size]


def labelled(label: str, error: SourceError) -> SourceError:
    return SourceError(f"{label}: {error}", status=error.status, body=error.body)
