import hashlib
from dataclasses import dataclass

import orjson


@dataclass(frozen=True, slots=True)
class Hashed:
    """A payload's digest and the canonical JSON it was computed from (keys sorted)."""

    digest: str
    text: bytes


def hashed(payload) -> Hashed:
    text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return Hashed(hashlib.blake2b(text, digest_size=20).hexdigest(), text)


def content_hash(payload) -> str:
    """A stable digest of a payload: the same content hashes the same whatever its key order."""
    return hashed(payload).digest
