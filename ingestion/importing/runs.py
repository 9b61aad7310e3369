"""An import run's state: what may be asked for, its progress, its end.

Every change of a run's row while it is carried out goes through here: the
counters and position saved with each batch (``import_run_progress_save``), the
end of a run (``import_run_finish``) and the signal that tells the rest of the
site about it (``import_run_announce_end``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import F
from django.utils import timezone

from catalogue import signals
from catalogue.models import ImportRun, Source
from ingestion.importing.positions import Part, Position
from ingestion.ingest.batch import BatchResult

logger = logging.getLogger("publications")


KINDS = {
    Source.OPENALEX: {"author", "orcid", "dois", "filter", "refresh"},
    Source.ARXIV: {"query", "ids", "category"},
}
# The parameters each kind of import needs.
REQUIRED = {
    "author": ("id",),
    "orcid": ("orcid",),
    "dois": ("dois",),
    "filter": ("filter",),
    "refresh": ("author_ids",),
    "query": ("query",),
    "ids": ("ids",),
    "category": ("category", "from", "to"),
}
COUNTERS = ("created", "updated", "unchanged", "problems")
FINISHED = {ImportRun.Status.SUCCEEDED, ImportRun.Status.CANCELLED}


class RunCancelled(Exception):
    pass


class RunFinished(RunCancelled):
    """Another writer finished the run meanwhile: there is nothing left to do."""


def _require(parameters: dict, *names: str) -> None:
    for name in names:
        if not parameters.get(name):
            raise ValidationError({"parameters": f"'{name}' is required for this kind of import."})


def import_run_validate(source: str, kind: str, parameters: dict) -> None:
    if kind == ImportRun.Kind.FILE:
        _require(parameters, "paths")
        missing = [p for p in parameters["paths"] if not Path(p).exists()]
        if missing:
            raise ValidationError({"parameters": f"No such file: {', '.join(missing)}"})
        return
    if kind not in KINDS.get(source, set()):
        allowed = ", ".join(sorted(KINDS.get(source, set()))) or "none"
        raise ValidationError({"kind": f"{source} imports take one of: {allowed}."})
    _require(parameters, *REQUIRED[kind])


ENDED = {ImportRun.Status.SUCCEEDED, ImportRun.Status.FAILED, ImportRun.Status.CANCELLED}


def import_run_announce_end(run: ImportRun) -> None:
    """Tell the receivers of ``import_run_ended`` when the run has ended (read from its row).

    A receiver that fails is logged: the run's own outcome stands.
    """
    status = ImportRun.objects.filter(pk=run.pk).values_list("status", flat=True).first()
    if status not in ENDED:
        return  # e.g. left running for a resume, or queued again
    replies = signals.import_run_ended.send_robust(sender=ImportRun, run_id=run.pk, status=status)
    for receiver, reply in replies:
        if isinstance(reply, Exception):
            logger.error(
                "Import run %s: %r failed after the run ended",
                run.pk,
                receiver,
                exc_info=(type(reply), reply, reply.__traceback__),
            )


class PartFailed(Exception):
    """Another process writing a part of this run stopped with an error."""


def import_run_progress_save(
    run: ImportRun,
    part: Part,
    *,
    result: BatchResult | None = None,
    processed: int = 0,
    problems: int = 0,
    after: Position | None = None,
    total=None,
) -> None:
    """Add a batch's counts to the run and save the position after it, in the caller's transaction.

    The run's row is locked and read first, so parts written by other processes
    add up. The lock is ``FOR NO KEY UPDATE``: the batch's source records already
    hold a key share of that row (their foreign key), and two writers each asking
    for a full ``FOR UPDATE`` on top of their key share would deadlock. On
    PostgreSQL the batch's deferred foreign-key checks run before the lock is
    taken, so the lock is held for as short a time as possible. A cancellation
    raises ``RunCancelled``, which rolls the batch back with it.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    row = (
        ImportRun.objects.select_for_update(no_key=True)  # the batch's rows hold a key share
        .filter(pk=run.pk)
        .values("status", "counters", "processed", "cursor", "total")
        .first()
    )
    if row is None or row["status"] == ImportRun.Status.CANCELLED:
        run.status = ImportRun.Status.CANCELLED
        raise RunCancelled
    counters = {key: (row["counters"] or {}).get(key, 0) for key in COUNTERS}
    if result is not None:
        counters["created"] += result.created
        counters["updated"] += result.updated
        counters["unchanged"] += result.unchanged
    counters["problems"] += problems
    processed += row["processed"]
    total = row["total"] if total is None else total
    values = {
        "counters": counters,
        "processed": processed,
        "cursor": row["cursor"] if after is None else part.cursor(row["cursor"], after),
        # A source's count covers one step of a run (one DOI, an author's works after the
        # author, one file) and can drift while it is read: never less than what is done.
        "total": None if total is None else max(total, processed),
        "heartbeat_at": timezone.now(),  # the worker is alive (see ``dispatch``)
    }
    ImportRun.objects.filter(pk=run.pk).update(**values)
    for name, value in values.items():
        setattr(run, name, value)


def import_run_finish(run: ImportRun, status: str, error: str = "") -> None:
    run.status = status
    run.error = error
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])
    if status == ImportRun.Status.SUCCEEDED:  # the whole source was read: done is the total
        ImportRun.objects.filter(pk=run.pk).update(total=F("processed"))
        run.refresh_from_db(fields=["processed", "total"])


def import_run_cancel(*, run: ImportRun) -> None:
    if run.status in {ImportRun.Status.WAITING, ImportRun.Status.QUEUED, ImportRun.Status.RUNNING}:
        import_run_finish(run, ImportRun.Status.CANCELLED, "Cancelled by staff.")
