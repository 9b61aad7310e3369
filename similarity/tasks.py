"""Celery tasks of "More like this": one run at a time over the whole corpus.

Task names keep their first module's name, so messages already queued still run.
"""

from __future__ import annotations

from celery import shared_task

import similarity
from config.tasklocks import run_once

SIMILARITY_LOCK = "publications:compute-similarities"
# Both similarity tasks: one run at a time, the others trying again every 30 s.
SIMILARITY_TASK = {
    "bind": True,
    "max_retries": 60,
    "soft_time_limit": 3 * 3600,
    "time_limit": 3 * 3600 + 300,
}


def _similarity_run(task, run) -> str:
    """``run()`` unless another similarity run is going (then again in 30 s).

    Runs write the same lists, so a second one waits its turn. Inline (no
    broker) the run simply happens in the caller.
    """
    with run_once(task, SIMILARITY_LOCK, timeout=SIMILARITY_TASK["time_limit"] + 60) as ours:
        if not ours:
            raise task.retry(countdown=30)
        return str(run())


@shared_task(name="publications.tasks.compute_similarities", **SIMILARITY_TASK)
def compute_similarities(
    self,
    work_ids: list[int] | None = None,
    author_ids: list[int] | None = None,
    asked_at: float | None = None,
) -> str:
    """Recompute "More like this", prior similarity and Novelty (all works when no ids).

    ``asked_at`` is taken, and not used, for messages queued by earlier versions.
    """
    return _similarity_run(
        self, lambda: similarity.similarities_refresh(work_ids=work_ids, author_ids=author_ids)
    )


@shared_task(name="publications.tasks.similarities_catch_up", **SIMILARITY_TASK)
def similarities_catch_up(self) -> str:
    """Bring up to date the matches of everything asked for so far, in one run.

    A run that finds nothing asked (an earlier one took it) ends at once.
    """
    return _similarity_run(self, similarity.similarities_catch_up)
