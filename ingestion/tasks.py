"""Celery tasks: thin wrappers that take ids and call services."""

from __future__ import annotations

from celery import chord, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from catalogue.models import ImportRun
from ingestion import references
from ingestion.importing import dispatch, execution, fanout
from ingestion.people import resolving


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


@shared_task(name=references.TASK, soft_time_limit=300, time_limit=330)
def reference_previews_fetch(openalex_ids: list[str]) -> int:
    """Name one batch of cited works not held here from OpenAlex (after an import)."""
    return references.previews_fetch(openalex_ids=openalex_ids)


@shared_task(name=resolving.TASK, soft_time_limit=600, time_limit=660)
def resolve_name_blocks(keys: list[str]) -> dict:
    """Weigh some name blocks again (``ingestion.people.blocks``); one task per few blocks,
    so several workers share a large corpus."""
    return resolving.resolve_blocks(keys)
