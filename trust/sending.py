"""Requests that ask a worker for trust work: the one module besides the receivers that
queues trust tasks, so that services never import tasks back."""

from __future__ import annotations

from django.core.cache import cache

from trust import tasks

FIRST_SCORE_DEBOUNCE = 600  # seconds between two requests to score an unscored author


def trust_score_request(*, author_id: int) -> bool:
    """Ask a worker to score an author that has no score yet; True when a task was queued.

    Pages and the API ask while answering, so it never computes in the request: with
    no worker (tasks inline) it does nothing, as imports and claims score authors as
    they happen there. Repeated views queue one task per ten minutes.
    """
    if tasks.recompute_authors.app.conf.task_always_eager:
        return False
    if not cache.add(f"trust:first-score:{author_id}", 1, timeout=FIRST_SCORE_DEBOUNCE):
        return False
    tasks.recompute_authors.delay([author_id], "first view of an unscored record")
    return True
