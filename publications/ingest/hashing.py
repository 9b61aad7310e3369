import hashlib
import json


def content_hash(payload) -> str:
    """A stable digest of a payload: the same content hashes the same whatever its key order."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).hexdigest()
