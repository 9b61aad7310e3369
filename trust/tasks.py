"""Celery tasks for trust scores: thin wrappers around trust.services."""

from __future__ import annotations

from celery import shared_task

from config.tasklocks import run_once
from trust import services

RECOMPUTE_ALL_LOCK = "trust:recompute-all"
RECOMPUTE_ALL_LIMIT = 2 * 3600


@shared_task(name="trust.tasks.recompute_authors", soft_time_limit=900, time_limit=960)
def recompute_authors(author_ids: list[int], reason: str = "") -> dict:
    """Recompute the scores of these authors after their evidence changed."""
    summary = services.trust_scores_recompute(author_ids=author_ids, reason=reason)
    return {"computed": summary.computed, "changed": summary.changed}


@shared_task(name="trust.tasks.recompute_claimed", soft_time_limit=900, time_limit=960)
def recompute_claimed(author_id: int, reason: str = "claim changed") -> dict:
    """A claim changed: the author's score, and the co-authors' "claimed collaborators"."""
    summary = services.trust_scores_recompute(author_ids=[author_id], reason=reason)
    summary += services.trust_scores_recompute(
        author_ids=services.coauthor_ids(author_id), reason="a co-author's claim changed"
    )
    return {"computed": summary.computed, "changed": summary.changed}


@shared_task(
    name="trust.tasks.recompute_all",
    bind=True,
    soft_time_limit=RECOMPUTE_ALL_LIMIT,
    time_limit=RECOMPUTE_ALL_LIMIT + 300,
)
def recompute_all(self) -> dict:
    """The nightly pass over every author; a second pass started meanwhile does nothing."""
    with run_once(self, RECOMPUTE_ALL_LOCK, timeout=RECOMPUTE_ALL_LIMIT + 300) as ours:
        if not ours:
            return {"skipped": "another recompute of every author is running"}
        summary = services.trust_scores_recompute_all()
    return {"computed": summary.computed, "changed": summary.changed}
