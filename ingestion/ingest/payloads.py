"""What a source record keeps of its payload: the source's JSON, each string bounded.

A source record keeps the payload a record was mapped from, so that it can be
mapped again and staff can see what the source said. A string longer than any
mapping reads (``TEXT_WINDOW``: a 10 MB title, say) is kept to that length;
everything else is kept as the source gave it. Mapping the stored payload again
reads the same text as mapping the original did.

Most payloads are far shorter than the window, and are stored as they are
without a look inside; a longer one is looked into only when a run of bytes
without a quote (the only place a long string can be) is longer than the window.
"""

from __future__ import annotations

import numpy as np

from catalogue.fields import json_bytes
from catalogue.text import TEXT_WINDOW
from ingestion.ingest.rows import JsonText

_QUOTE = ord('"')


def stored_payload(payload: object, text: bytes | None = None) -> tuple[object, bytes]:
    """``payload`` as a source record keeps it, and its JSON text (``text`` when given)."""
    data = text if text is not None else json_bytes(payload, sort_keys=False)
    if len(data) <= TEXT_WINDOW or _longest_unquoted_run(data) <= TEXT_WINDOW:
        return payload, JsonText(data)
    kept = bounded_strings(payload, TEXT_WINDOW)
    return kept, JsonText(json_bytes(kept, sort_keys=False))


def _longest_unquoted_run(data: bytes) -> int:
    """The most bytes between two quotes (a JSON string is no longer than that)."""
    quotes = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _QUOTE)
    edges = np.concatenate(([-1], quotes, [len(data)]))
    return int(np.diff(edges).max()) - 1


def bounded_strings(value: object, limit: int) -> object:
    """A copy of ``value`` with every string (keys too) cut to ``limit`` characters.

    Iterative, so that a payload nested as deeply as a parser allows is copied too.
    """
    root: list = [None]
    stack = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, str):
            parent[key] = item[:limit]
        elif isinstance(item, dict):
            copy = {}
            parent[key] = copy
            for name, child in item.items():
                name = name[:limit] if isinstance(name, str) else name
                copy[name] = None
                stack.append((child, copy, name))
        elif isinstance(item, list):
            copy = [None] * len(item)
            parent[key] = copy
            stack.extend((child, copy, index) for index, child in enumerate(item))
        else:
            parent[key] = item
    return root[0]
