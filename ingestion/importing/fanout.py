"""The parts of one run as tasks that any worker takes, and the callback that ends the run.

A large snapshot is written in parts (``parts.part_count``). On a worker, the run's
task sends one task per part in a Celery group whose callback (a chord) runs once
every part has ended: ``import_run_part_execute`` is the body of a part's task,
``import_run_parts_end`` the body of the callback. Without a broker (tasks run
inline) the same group runs here, one part after another.

A part's task returns how it ended (``DONE``, ``STOPPED``, ``FAILED``) instead of
raising, so the callback always runs and reads what happened. A part that fails
marks the run failed; the parts still writing notice at their next batch and
stop, keeping their saved positions for a retry. A part whose worker was killed
never returns: the run's heartbeat goes stale, ``watch_imports`` sends the run
again, and the new group's parts go on from their saved positions (a part that
had ended has nothing left to read). The callback of the group that lost a part
never runs; if that part's task is delivered again later, it finds the run ended
and its callback does nothing.

This module sends nothing itself: the tasks module builds the group from these
bodies (``importing`` never imports ``ingestion.tasks``).
"""

from __future__ import annotations

import logging
from contextlib import suppress

from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError

from catalogue.models import ImportRun
from ingestion.importing import execution, parts, runs
from ingestion.importing.positions import Part
from ingestion.importing.problems import source_error_record
from ingestion.importing.runs import RunCancelled
from ingestion.records import SourceError

logger = logging.getLogger("publications")

DONE, STOPPED, FAILED = "done", "stopped", "failed"
ERROR_LIMIT = 2000  # characters of a part's error kept on the run


class PartStopped(Exception):
    """Another part of the run failed: this one stops where it is."""


def import_run_part_execute(*, run_id: int, index: int, count: int) -> str:
    """Write part ``index`` of ``count`` of a run from its saved position to its end.

    Returns ``DONE`` when the part has been written to its end, ``STOPPED`` when the
    run was cancelled, has ended or another part failed, and ``FAILED`` when this
    part failed (the run is marked failed with the reason).
    """
    run = ImportRun.objects.filter(pk=run_id).first()
    if run is None or run.status in runs.FINISHED | {ImportRun.Status.FAILED}:
        return STOPPED
    part = Part(index, count)

    def still_wanted(_current: ImportRun) -> None:
        if ImportRun.objects.filter(pk=run_id, status=ImportRun.Status.FAILED).exists():
            raise PartStopped

    try:
        parts.execute_part(run, part, still_wanted, main=part.first)
    except (RunCancelled, PartStopped):  # RunFinished too: another writer ended the run
        return STOPPED
    except SourceError as exc:
        source_error_record(run, exc, part)
        runs.import_run_finish(run, ImportRun.Status.FAILED, _failure(part, exc))
        return FAILED
    except SoftTimeLimitExceeded:
        raise  # the part stays where it is; the run is resumed once its heartbeat is stale
    except Exception as exc:
        logger.exception("Part %s of %s of import run %s failed", index + 1, count, run_id)
        with suppress(DatabaseError):  # the connection is gone: the run is resumed instead
            runs.import_run_finish(run, ImportRun.Status.FAILED, _failure(part, exc))
            return FAILED
        raise
    return DONE


def _failure(part: Part, exc: BaseException) -> str:
    return f"part {part.index + 1} of {part.count}: {type(exc).__name__}: {exc}"[:ERROR_LIMIT]


def import_run_parts_end(*, run_id: int, outcomes: list[str]) -> ImportRun | None:
    """Every part of the run has ended: finish the run when all were written to their end."""
    run = ImportRun.objects.filter(pk=run_id).first()
    if run is None:
        return None
    if run.status == ImportRun.Status.RUNNING and all(o == DONE for o in outcomes):
        execution.import_run_complete(run, count=len(outcomes))
    runs.import_run_announce_end(run)
    return run
