"""Payloads as canonical JSON text, and their digests.

orjson writes almost every payload, fast. It refuses two things a source may
send in a record that is otherwise good: an integer past 64 bits and a lone
surrogate in a string (both pass Python's own ``json``). Those payloads are
written by ``json`` instead, in the same canonical form (keys sorted, no
spaces) with every non-ASCII character escaped, which keeps them whole and
storable: the exact integer stays, and ``\\u0000`` or ``\\ud800`` are escapes in
the text, which a PostgreSQL ``json`` column keeps as written.
"""

import hashlib
from dataclasses import dataclass

from catalogue.fields import json_bytes

__all__ = ["Hashed", "content_hash", "hashed", "json_bytes"]


@dataclass(frozen=True, slots=True)
class Hashed:
    """A payload's digest and the canonical JSON it was computed from (keys sorted)."""

    digest: str
    text: bytes


def hashed(payload) -> Hashed:
    text = json_bytes(payload)
    return Hashed(hashlib.blake2b(text, digest_size=20).hexdigest(), text)


def content_hash(payload) -> str:
    """A stable digest of a payload: the same content hashes the same whatever its key order."""
    return hashed(payload).digest
