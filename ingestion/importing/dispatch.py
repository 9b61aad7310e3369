"""Asking for import runs, getting them to a worker, and to another one when theirs stopped.

A run asked for while the broker is down waits to be sent (``WAITING``); beat's
``watch_imports`` sends it once the broker answers. A running run's worker
writes a heartbeat (with every batch, and from a thread during long waits); a
run whose heartbeat is older than ``IMPORT_STALLED_AFTER`` lost its worker and
is sent again, to resume from its cursor. The part locks of ``parts.part_held``
keep a worker that was only slow from writing at the same time as the new one.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, OperationalError, connections, transaction
from django.db.models import Q
from django.utils import timezone

from catalogue.models import ImportRun
from config.celery import BrokerUnavailable
from ingestion.importing import execution
from ingestion.importing.runs import import_run_validate
from ingestion.importing.sending import IMPORT_RUN, task_send

logger = logging.getLogger("publications")

Status = ImportRun.Status


def import_run_create(
    *,
    source: str,
    kind: str,
    parameters: dict,
    requested_by=None,
    queue: bool = True,
    background: bool = False,
) -> ImportRun:
    """Record an import and queue it once the transaction commits (see ``import_run_queue``)."""
    import_run_validate(source, kind, parameters)
    run = ImportRun.objects.create(
        source=source, kind=kind, parameters=parameters, requested_by=requested_by
    )
    if queue:
        import_run_queue(run=run, background=background)
    return run


def import_run_retry(*, run: ImportRun, background: bool = False) -> ImportRun:
    """Queue a failed or cancelled run again; it resumes from its saved cursor."""
    run.status = ImportRun.Status.QUEUED
    run.finished_at = None
    run.error = ""
    run.save(update_fields=["status", "finished_at", "error"])
    import_run_queue(run=run, background=background)
    return run


def import_run_queue(*, run: ImportRun, background: bool = False) -> None:
    """Send ``run`` to a worker once the transaction commits.

    ``background``: the caller must not wait for the run (a page that asked for it).
    With a broker that changes nothing; in the embedded run (tasks inline) the run
    is carried out in a thread of this process, see ``import_run_start_here``.
    """
    from config.celery import app

    if background and app.conf.task_always_eager:
        transaction.on_commit(lambda: import_run_start_here(run_id=run.pk))
    else:
        transaction.on_commit(lambda: import_run_send(run_id=run.pk))


LOCKED_RETRIES = 6  # 0.1 s doubling: about 6 s in all


def _fail_if_never_started(run_id: int, exc: Exception) -> None:
    """A run its thread could not even start is marked failed, never left "queued"."""
    with_error = f"Could not start: {exc}"[:2000]
    try:
        ImportRun.objects.filter(pk=run_id, status__in=[Status.QUEUED, Status.WAITING]).update(
            status=Status.FAILED, error=with_error, finished_at=timezone.now()
        )
    except DatabaseError:
        logger.exception("Import run %s could not be marked failed", run_id)


def import_run_start_here(*, run_id: int) -> threading.Thread:
    """Carry a run out in a thread of this process, for the embedded run without a broker.

    A thread rather than work after the response: Django has no hook that runs once a
    response is sent, and the page that asked must return at once and then show the
    run's progress, which the run writes batch by batch. The thread writes the run's
    heartbeat like a worker, so a run whose process stopped is found stalled.
    """

    def work() -> None:
        try:
            for attempt in range(LOCKED_RETRIES + 1):
                try:
                    with heartbeat(run_id):
                        execution.import_run_execute(run_id=run_id)
                    return
                except OperationalError as exc:
                    # SQLite refuses a second writer at once ("database is locked") while the
                    # request that asked for the run is still writing: wait for it rather than
                    # leave the run queued. A run already under way resumes from its cursor.
                    if "locked" not in str(exc) or attempt == LOCKED_RETRIES:
                        raise
                    connections.close_all()
                    time.sleep(0.1 * 2**attempt)
        except Exception as exc:
            logger.exception("Import run %s stopped with an error", run_id)
            _fail_if_never_started(run_id, exc)
        finally:
            connections.close_all()  # this thread's own connections

    thread = threading.Thread(target=work, name=f"import-run-{run_id}", daemon=True)
    thread.start()
    return thread


def import_run_send(*, run_id: int) -> bool:
    """Send a queued run to the broker; when the broker is down the run waits to be sent."""
    try:
        result = task_send(IMPORT_RUN, run_id)
    except BrokerUnavailable:
        ImportRun.objects.filter(pk=run_id, status=Status.QUEUED).update(status=Status.WAITING)
        logger.warning("Import run %s waits to be sent: the broker is not answering", run_id)
        return False
    ImportRun.objects.filter(pk=run_id).update(task_id=result.id or "")
    return True


def import_runs_send_waiting() -> int:
    """Send the runs that wait for the broker, oldest first; stop when it is still down."""
    sent = 0
    waiting = ImportRun.objects.filter(status=Status.WAITING).order_by("created_at", "pk")
    for run_id in waiting.values_list("pk", flat=True):
        # Taken with one conditional update, so two watchers never send a run twice.
        if not ImportRun.objects.filter(pk=run_id, status=Status.WAITING).update(
            status=Status.QUEUED
        ):
            continue
        if not import_run_send(run_id=run_id):
            break
        sent += 1
    return sent


def _stalled(now) -> Q:
    cutoff = now - timedelta(seconds=settings.IMPORT_STALLED_AFTER)
    return Q(status=Status.RUNNING) & (
        Q(heartbeat_at__lt=cutoff)
        | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
        | Q(heartbeat_at__isnull=True, started_at__isnull=True, created_at__lt=cutoff)
    )


def import_runs_resume_stalled() -> list[int]:
    """Send again the running runs whose worker stopped writing; they resume from their cursor."""
    now = timezone.now()
    resumed = []
    for run in ImportRun.objects.filter(_stalled(now)).only("pk", "heartbeat_at", "started_at"):
        if not ImportRun.objects.filter(_stalled(now), pk=run.pk).update(
            status=Status.QUEUED, heartbeat_at=now
        ):
            continue  # it wrote meanwhile, or another watcher took it
        logger.warning(
            "Import run %s: no heartbeat since %s; sending it to another worker to resume",
            run.pk,
            run.heartbeat_at or run.started_at,
        )
        import_run_send(run_id=run.pk)
        resumed.append(run.pk)
    return resumed


def heartbeat_write(run_id: int) -> None:
    ImportRun.objects.filter(pk=run_id, status=Status.RUNNING).update(heartbeat_at=timezone.now())


@contextmanager
def heartbeat(run_id: int):
    """Write the run's heartbeat every ``IMPORT_HEARTBEAT_EVERY`` seconds while the caller works.

    Batches write it too; this thread covers the long waits between them (a slow
    page from the source, the other parts, the matches made at the end).
    """
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.IMPORT_HEARTBEAT_EVERY):
                try:
                    heartbeat_write(run_id)
                except DatabaseError as exc:
                    logger.warning("Import run %s: heartbeat not written: %s", run_id, exc)
        finally:
            connections.close_all()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"import-run-{run_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
