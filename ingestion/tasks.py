"""Celery tasks: thin wrappers that take ids and call services."""

from __future__ import annotations

from celery import chord, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from catalogue import metrics
from catalogue.models import ImportRun
from config.tasklocks import run_once
from ingestion.importing import dispatch, execution, fanout

METRICS_CHUNK = 500


@shared_task(
    name="publications.tasks.import_run",
    bind=True,
    acks_late=True,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 300,
    inline_when_broker_down=False,
)
def import_run(self, run_id: int) -> None:
    """Carry out an import run; a redelivered task resumes from the run's cursor.

    On a worker the run's heartbeat is written as it goes, so a run whose worker
    died is found (``watch_imports``) and resumed by another.
    """
    try:
        if self.request.is_eager:  # inline: nothing to watch
            execution.import_run_execute(run_id=run_id, send_parts=import_run_parts_send)
        else:
            with dispatch.heartbeat(run_id):
                execution.import_run_execute(run_id=run_id, send_parts=import_run_parts_send)
    except SoftTimeLimitExceeded:
        # The run keeps its cursor; queue it again to go on where it stopped.
        run = ImportRun.objects.get(pk=run_id)
        dispatch.import_run_retry(run=run)


def import_run_parts_send(run_id: int, count: int) -> None:
    """The parts of a run as a group of tasks that any worker takes; its callback ends the run.

    Without a broker the group runs here and now, one part after the other.
    """
    header = [import_run_part.si(run_id, index, count) for index in range(count)]
    chord(header)(import_run_parts_end.s(run_id))


@shared_task(
    name="publications.tasks.import_run_part",
    bind=True,
    acks_late=True,
    ignore_result=False,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 300,
    inline_when_broker_down=False,
)
def import_run_part(self, run_id: int, index: int, count: int) -> str:
    """Write one part of a run; returns how it ended, for the group's callback."""
    if self.request.is_eager:
        return fanout.import_run_part_execute(run_id=run_id, index=index, count=count)
    with dispatch.heartbeat(run_id):  # each part keeps the run alive while it writes
        return fanout.import_run_part_execute(run_id=run_id, index=index, count=count)


@shared_task(
    name="publications.tasks.import_run_parts_end", acks_late=True, inline_when_broker_down=False
)
def import_run_parts_end(outcomes: list[str], run_id: int) -> None:
    """The callback of a run's parts: ends the run when every part was written."""
    fanout.import_run_parts_end(run_id=run_id, outcomes=list(outcomes))


@shared_task(name="publications.tasks.watch_imports", soft_time_limit=120, time_limit=150)
def watch_imports() -> dict:
    """Beat, every IMPORT_WATCH_EVERY seconds: send waiting imports, resume stalled ones."""
    return {
        "sent": dispatch.import_runs_send_waiting(),
        "resumed": dispatch.import_runs_resume_stalled(),
    }


@shared_task(name="publications.tasks.refresh_author_metrics")
def refresh_author_metrics(author_ids: list[int]) -> int:
    written = 0
    for start in range(0, len(author_ids), METRICS_CHUNK):
        written += metrics.author_metrics_refresh(
            author_ids=author_ids[start : start + METRICS_CHUNK]
        )
    return written


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
    import similarity

    return _similarity_run(
        self, lambda: similarity.similarities_refresh(work_ids=work_ids, author_ids=author_ids)
    )


@shared_task(name="publications.tasks.similarities_catch_up", **SIMILARITY_TASK)
def similarities_catch_up(self) -> str:
    """Bring up to date the matches of everything asked for so far, in one run.

    A run that finds nothing asked (an earlier one took it) ends at once.
    """
    import similarity

    return _similarity_run(self, similarity.similarities_catch_up)
