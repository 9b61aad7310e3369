"""One run at a time of a task across every worker, through the shared cache."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache import cache


@contextmanager
def run_once(task, key: str, *, timeout: int) -> Iterator[bool]:
    """Hold ``key`` for this run of ``task``; yield whether it was free.

    Yields False (and takes nothing) when another run holds it. Inline (eager)
    there is no other worker, so the lock is not taken and the run goes ahead.
    The timeout frees a lock whose worker died; make it longer than the task's
    hard time limit.
    """
    if task.request.is_eager:
        yield True
        return
    if not cache.add(key, task.request.id or "run", timeout=timeout):
        yield False
        return
    try:
        yield True
    finally:
        cache.delete(key)
