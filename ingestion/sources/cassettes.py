"""Reading VCR cassettes (R ``vcr`` or vcrpy): the OpenAlex answers recorded in them.

Requests to other hosts are left aside, redirects too (the request they led to
is recorded on its own). A body may be text, base64 or gzip (by its magic
bytes); what it unpacks to is bounded (see ``bounds``).
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Iterator
from urllib.parse import parse_qsl, unquote, urlsplit

import yaml

from ingestion.records import SourceError
from ingestion.sources import bounds
from ingestion.sources.bounds import GZIP_MAGIC
from ingestion.sources.documents import (
    ENTITY_BY_PATH,
    Item,
    json_document,
    labelled,
    preview,
)
from ingestion.sources.openalex.fetching import source_error

OPENALEX_HOST = "api.openalex.org"
_HIDDEN_PARAMETERS = {"api_key", "mailto", "email"}
URI_MAX = 8192  # of a recorded request's URI: enough for any OpenAlex query
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def cassette_items(name: str, data: bytes, limits: bounds.Limits) -> Iterator[Item]:
    try:
        document = yaml.load(data, Loader=_YAML_LOADER)  # noqa: S506 (a safe loader)
    except (yaml.YAMLError, RecursionError) as exc:  # libyaml refuses past 1,000 levels
        yield SourceError(f"{name}: not valid YAML ({exc})", body=preview(data))
        return
    document = document if isinstance(document, dict) else {}
    interactions = document.get("http_interactions") or document.get("interactions")
    if not isinstance(interactions, list):
        yield SourceError(f"{name}: YAML but not a VCR cassette", body=preview(data))
        return
    bodies = _Bodies(limits)
    for number, interaction in enumerate(interactions, start=1):
        if isinstance(interaction, dict):
            yield from _interaction(f"{name} #{number}", interaction, bodies)
        if bodies.left < 0:
            yield SourceError(f"{name} #{number}: {bounds.unpacked_too_large(limits.unpacked)}")
            return


def _interaction(label: str, interaction: dict, bodies: _Bodies) -> Iterator[Item]:
    request = interaction.get("request") if isinstance(interaction.get("request"), dict) else {}
    response = interaction.get("response") if isinstance(interaction.get("response"), dict) else {}
    uri = str(request.get("uri") or "")[:URI_MAX]
    if (urlsplit(uri).hostname or "").lower() != OPENALEX_HOST:
        return  # Crossref, Semantic Scholar, Unpaywall… recorded alongside
    status = _status(response.get("status"))
    if 300 <= status < 400:
        return  # a redirect; the request it led to is recorded on its own
    try:
        body = bodies.read(response)
        if body is None:
            return  # the same body again, by a YAML alias: read once
        body = body.decode("utf-8")
    except (ValueError, TypeError, OSError, EOFError, zlib.error, binascii.Error) as exc:
        yield SourceError(f"{label}: unreadable response body ({exc})")
        return
    hint = _entity_from_path(uri)
    if status >= 400:
        yield labelled(label, source_error(status, body, describe_request(uri)))
    else:
        yield from json_document(f"{label} ({describe_request(uri)})", body, hint)


class _Bodies:
    """The response bodies of one cassette: each read once (a YAML alias repeats an object,
    not its text), each unpacked to at most the document limit, all together to at most
    the file limit.
    """

    def __init__(self, limits: bounds.Limits):
        self.document = limits.document
        self.left = limits.unpacked  # below 0: the bodies unpack to too much
        self._seen: set[int] = set()

    def read(self, response: dict) -> bytes | None:
        """The body of ``response`` as bytes, or None when an earlier one was this very body."""
        body = response.get("body") if isinstance(response.get("body"), dict) else {}
        data = body.get("string")
        data = body.get("base64_string") if data is None else data
        if data:
            if id(data) in self._seen:
                return None
            self._seen.add(id(data))
        data = _body(body, self.document)
        self.left -= len(data)
        return data


def _body(body: dict, limit: int) -> bytes:
    data = body.get("string")
    if data is None and body.get("base64_string"):
        data = base64.b64decode(body["base64_string"])
    if data is None:
        return b""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes):
        raise TypeError(f"a YAML {type(data).__name__}, not text")
    # Magic bytes, not Content-Encoding, decide: R vcr keeps the header but stores the
    # body already decoded; vcrpy stores the gzip bytes as !!binary.
    if data[:2] != GZIP_MAGIC:
        return data
    try:
        return bounds.gunzip(data, limit)
    except bounds.TooLarge as exc:
        raise ValueError(f"{exc}, more than IMPORT_MAX_DOCUMENT_BYTES allows") from None


def _status(value: object) -> int:
    """R vcr stores the code as a number, vcrpy as {code, message}."""
    if isinstance(value, dict):
        value = value.get("code")
    try:
        return int(value)
    except (TypeError, ValueError):
        return 200


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
