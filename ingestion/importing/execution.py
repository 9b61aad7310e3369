"""Carrying a run out from start (or its saved position) to its end.

A run is written part by part (``parts``): in this process, or, for a large
snapshot on PostgreSQL, in processes of their own (``processes``), or, on a
worker, as tasks that any worker takes (``fanout``). Its end is
recorded and announced whatever happened.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import suppress

from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError
from django.utils import timezone

from catalogue.models import ImportRun
from ingestion.importing import parts, processes, runs
from ingestion.importing.positions import Part
from ingestion.importing.problems import source_error_record
from ingestion.importing.runs import FINISHED, PartFailed, RunCancelled
from ingestion.ingest.title_matches import raise_title_candidates_between_parts
from ingestion.records import SourceError

logger = logging.getLogger("publications")


def import_run_execute(
    *, run_id: int, progress: Callable | None = None, send_parts: Callable | None = None
) -> ImportRun:
    """Carry out (or resume) a run until its source is exhausted or it is cancelled.

    ``progress(run)`` is called after every batch (the management commands draw a bar).
    A large snapshot file is written in parts, each taking its share of the lines.
    With ``send_parts(run_id, count)`` (a worker's task) the parts become tasks that
    any worker takes and this returns at once: the group's callback ends the run
    (``fanout``). Without it they are written by processes started here, or one
    after the other in this process.
    """
    run = ImportRun.objects.get(pk=run_id)
    if run.status in FINISHED:
        runs.import_run_announce_end(run)  # e.g. cancelled before a worker took it
        return run
    run.status = ImportRun.Status.RUNNING
    run.started_at = run.started_at or timezone.now()
    run.heartbeat_at = timezone.now()
    run.error = ""
    run.save(update_fields=["status", "started_at", "heartbeat_at", "error"])
    count = parts.part_count(run)
    if count > 1 and send_parts is not None:
        send_parts(run.pk, count)
        return run
    try:
        if count > 1 and parts.can_start_processes():
            processes.execute_in_processes(run, count, progress)
        else:
            for index in range(count):
                parts.execute_part(run, Part(index, count), progress)
        import_run_complete(run, count=count)
    except RunCancelled:
        pass
    except PartFailed as exc:
        runs.import_run_finish(run, ImportRun.Status.FAILED, str(exc))
    except SourceError as exc:
        source_error_record(run, exc)
        runs.import_run_finish(run, ImportRun.Status.FAILED, str(exc))
    except Exception as exc:
        if isinstance(exc, SoftTimeLimitExceeded):
            raise  # the task queues the run again; it goes on from its cursor
        logger.exception("Import run %s stopped with an error", run.pk)
        with suppress(DatabaseError):  # e.g. the connection is gone: the run stays running
            runs.import_run_finish(
                run, ImportRun.Status.FAILED, f"Stopped by an error: {exc}"[:2000]
            )
            runs.import_run_announce_end(run)
        raise
    runs.import_run_announce_end(run)
    return run


def import_run_complete(run: ImportRun, *, count: int) -> None:
    """Every part of the run is written: the steps that need all of them, then success."""
    if count > 1:  # parts written at once (now or before a resume) miss each other's works
        raise_title_candidates_between_parts(run)
    _look_up_institutions(run)
    runs.import_run_finish(run, ImportRun.Status.SUCCEEDED)


def _look_up_institutions(run: ImportRun) -> None:
    """Fill the homepages and RORs of the institutions the run saw (never fails the run)."""
    from ingestion.institutions import institutions_look_up

    try:
        institutions_look_up(run=run)
    except DatabaseError:
        raise
    except Exception:
        logger.exception("Run %s: looking up its institutions failed", run.pk)
