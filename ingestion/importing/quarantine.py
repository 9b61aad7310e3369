"""Keeping a record that could not be imported, whatever it holds (pure functions).

An ImportProblem keeps the payload it is about, so staff can read it and retry
it. Its ``payload`` column is ``jsonb`` on PostgreSQL, which refuses a NUL
(``\\u0000``) or a lone surrogate in any string and ``NaN`` or ``Infinity``
anywhere. Such a payload is kept in ``raw_payload`` instead, as JSON text in
which those characters are escapes, so nothing of it is lost; a body that was
never JSON and holds a NUL is kept as one JSON string. ``kept_payload`` reads
either form back.
"""

from __future__ import annotations

import hashlib
import json
import re

from catalogue.text import clean
from ingestion.sources.bounds import json_loads

# Longest text kept of one problem: a snapshot line is one record, and real
# ones stay under a megabyte; a body past this is cut and the error says so.
MAX_KEPT = 10_000_000
# Escapes jsonb and PostgreSQL text cannot hold: NUL and (lone) surrogates.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|d[89a-f][0-9a-f]{2})", re.IGNORECASE)
_UNSTORABLE_CHAR = re.compile("[\x00\ud800-\udfff]")
AS_TEXT = "its payload is kept as JSON text: it holds characters the database cannot store as JSON"
AS_STRING = "its body is kept as one JSON string: it holds NUL characters"


def storable(payload) -> tuple[object, str, str]:
    """``(payload, raw_payload, note)`` for an ImportProblem holding ``payload``.

    A JSON object or array stays in ``payload`` when the database can store it
    there; otherwise its JSON text goes to ``raw_payload`` and ``note`` says so.
    Anything else is kept as text.
    """
    if isinstance(payload, dict | list):
        try:
            text = json.dumps(payload, allow_nan=False)
        except ValueError:  # NaN or Infinity: the text keeps them as Python writes them
            return None, _cut(json.dumps(payload)), AS_TEXT
        if _UNSTORABLE_ESCAPE.search(text):
            return None, _cut(text), AS_TEXT
        return payload, "", ""
    if payload is None:
        return None, "", ""
    raw, note = storable_text(payload if isinstance(payload, str) else repr(payload))
    return None, raw, note


def storable_text(body: str) -> tuple[str, str]:
    """``(text, note)``: ``body`` as PostgreSQL text can hold it, whole up to ``MAX_KEPT``."""
    if _UNSTORABLE_CHAR.search(body):
        return _cut(json.dumps(body)), AS_STRING
    return _cut(body), ""


def _cut(text: str) -> str:
    return text if len(text) <= MAX_KEPT else text[:MAX_KEPT]


def with_note(error: str, note: str, raw: str = "") -> str:
    """The problem's error, with how its payload was kept (and whether it was cut)."""
    error = clean(error) or "Unknown error"
    if note:
        error = f"{error} ({note})"
    if len(raw) >= MAX_KEPT:
        error = f"{error} (only its first {MAX_KEPT:,} characters are kept)"
    return error


def safe_id(value: object) -> str:
    """An external id fit for a CharField(255): cleaned text, cut."""
    return clean(value if isinstance(value, str) else str(value or ""))[:255]


def kept_payload(payload, raw_payload: str):
    """The record a problem keeps: ``payload``, else the JSON object or array in ``raw_payload``."""
    if payload is not None:
        return payload
    if not raw_payload or raw_payload[:1] not in "{[":
        return None
    try:
        found = json_loads(raw_payload)
    except ValueError:  # a line nested too deeply too: it is kept as text
        return None
    return found if isinstance(found, dict | list) else None


def fingerprint(source: str, external_id: str, payload, raw_payload: str, error: str = "") -> str:
    """Which bad record a problem is about, so meeting it again finds its open problem.

    A record with an id is known by it (whatever went wrong with it this time),
    one without (an unreadable line) by what it holds, wherever it stood. An error
    answer is known by its error and body: give ``error`` for those only.
    """
    if external_id:
        key = f"{source}\0id\0{external_id}"
    else:
        body = raw_payload or json.dumps(payload, sort_keys=True, default=str)
        key = f"{source}\0body\0{error}\0{body}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
