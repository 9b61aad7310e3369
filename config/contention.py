"""Statements that lost to another writer's locks, and trying work again after one.

A deadlock or a serialization failure is no fault of what was being written:
PostgreSQL rolled the transaction back, and the same work done again succeeds
once the other writer has gone on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import DatabaseError

logger = logging.getLogger("publications")

T = TypeVar("T")
LOST = {"40P01", "40001"}  # deadlock detected, serialization failure
ATTEMPTS = 5  # tries in all before a write that keeps losing gives up


def lost_to_another_writer(exc: BaseException) -> bool:
    """A deadlock or serialization failure: the transaction can simply be tried again."""
    cause = exc.__cause__ or exc
    return getattr(cause, "sqlstate", None) in LOST


def again_when_lost(
    work: Callable[[], T],
    *,
    what: str,
    attempts: int = ATTEMPTS,
    before_again: Callable[[], None] | None = None,
) -> T:
    """``work()``, done again (up to ``attempts`` in all) while it loses to another writer.

    ``work`` must be safe to do again from its start: each of its transactions
    that lost was rolled back whole, and what committed before it is done again.
    ``before_again`` runs before each new attempt (e.g. to forget what was read).
    """
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except DatabaseError as exc:
            if attempt == attempts or not lost_to_another_writer(exc):
                raise
            logger.warning("%s met another writer's locks; doing it again", what)
            if before_again:
                before_again()
    raise AssertionError("unreachable")
