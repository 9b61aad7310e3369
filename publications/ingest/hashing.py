import hashlib

import orjson


def content_hash(payload) -> str:
    """A stable digest of a payload: the same content hashes the same whatever its key order."""
    text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(text, digest_size=20).hexdigest()
