"""When kept parts are drawn again: once the change that made them stale commits, or,
inside ``drawing_deferred``, once at its end.

A run of many changes to the same records (the demo's imports, curation and later
update, one after another with tasks inline) would draw the same researchers' and
works' parts after each of them. Deferred, each part asked for is drawn once, from
the records as the run left them, in the order first asked for (entries and
summaries before the pages drawn from them).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction

CHUNK = 500  # ids drawn by one task

_deferred: ContextVar[dict | None] = ContextVar("drawing_deferred", default=None)


def draw_later(task, ids) -> None:
    """Have ``task`` draw ``ids`` once the current change commits (or the deferral ends)."""
    ids = list(ids)
    if not ids:
        return
    pending = _deferred.get()
    if pending is not None:
        transaction.on_commit(lambda: pending.setdefault(task, {}).update(dict.fromkeys(ids)))
        return
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        transaction.on_commit(lambda chunk=chunk: task.delay(chunk))


@contextmanager
def drawing_deferred():
    """Draw what the changes inside ask for once, when they are all done; nested, the
    outermost deferral draws. Nothing is drawn when the block raises."""
    if _deferred.get() is not None:
        yield
        return
    pending: dict = {}
    token = _deferred.set(pending)
    try:
        yield
    finally:
        _deferred.reset(token)
    for task, ids in pending.items():
        draw_later(task, ids)
