"""Staff decisions on import runs and problems: cancel, retry, ignore.

Asking for a run is ``importing.requesting.import_run_request``, audited there.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from catalogue.audit import Actor, audit_record
from catalogue.models import (
    ImportProblem,
    ImportRun,
    Source,
)
from ingestion.importing import dispatch, ingesting, runs
from ingestion.importing.quarantine import kept_payload
from ingestion.records import MappingError


def import_run_cancel(*, run: ImportRun, actor: Actor) -> ImportRun:
    """Stop a queued or running import after its current batch."""
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().get(pk=run.pk)
        if run.status not in ImportRun.ACTIVE_STATUSES:
            raise ValueError(
                f"{run} is {run.get_status_display().lower()}; it cannot be cancelled."
            )
        previous = run.status
        runs.import_run_cancel(run=run)
        audit_record(
            actor=actor,
            action="import_run_cancel",
            target=run,
            data={"run": run.pk, "status": previous},
        )
    return run


def import_run_retry(*, run: ImportRun, actor: Actor, background: bool = False) -> ImportRun:
    """Queue a failed or cancelled import again; it resumes from its saved cursor."""
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().get(pk=run.pk)
        if run.status not in ImportRun.RETRYABLE_STATUSES:
            raise ValueError(
                f"{run} is {run.get_status_display().lower()}; "
                "only failed or cancelled runs are retried."
            )
        data = {"run": run.pk, "status": run.status, "error": run.error}
        dispatch.import_run_retry(run=run, background=background)
        audit_record(actor=actor, action="import_run_retry", target=run, data=data)
    return run


def _problem_entity(problem: ImportProblem) -> str:
    from ingestion.sources.files import entity_of

    payload = kept_payload(problem.payload, problem.raw_payload)
    if isinstance(payload, dict) and ("arxiv_id" in payload or problem.source == Source.ARXIV):
        return "arxiv"
    return entity_of(payload) or "work"


def _open_problem(problem: ImportProblem) -> ImportProblem:
    problem = ImportProblem.objects.select_for_update().get(pk=problem.pk)
    if problem.status != ImportProblem.Status.OPEN:
        raise ValueError(f"This problem is already {problem.get_status_display().lower()}.")
    return problem


def import_problem_retry(*, problem: ImportProblem, actor: Actor) -> str | None:
    """Map and write the stored payload again; return None if it landed, else the new error."""
    with transaction.atomic():
        problem = _open_problem(problem)
        if kept_payload(problem.payload, problem.raw_payload) is None:
            raise ValueError(
                "This problem kept no record to retry (the source answered with an error); "
                "retry its import run instead."
            )
        entity = _problem_entity(problem)
        data = {"problem": problem.pk, "entity": entity, "previous_error": problem.error}
        try:
            ingesting.import_payload(
                run=problem.run,
                entity=entity,
                payload=kept_payload(problem.payload, problem.raw_payload),
            )
        except MappingError as exc:
            error = str(exc)
        except Exception as exc:  # a write that fails is reported, as the import does
            error = f"Could not be written: {exc}"
        else:
            error = None
        if error is None:
            problem.status = ImportProblem.Status.RETRIED
            problem.resolved_by = actor
            problem.resolved_at = timezone.now()
        else:
            problem.error = error
        problem.save(update_fields=["status", "resolved_by", "resolved_at", "error"])
        audit_record(
            actor=actor,
            action="import_problem_retry",
            target=problem,
            data={**data, "succeeded": error is None, "error": error or ""},
        )
        return error


def import_problem_ignore(*, problem: ImportProblem, actor: Actor) -> ImportProblem:
    """Close a problem without importing its record."""
    with transaction.atomic():
        problem = _open_problem(problem)
        problem.status = ImportProblem.Status.IGNORED
        problem.resolved_by = actor
        problem.resolved_at = timezone.now()
        problem.save(update_fields=["status", "resolved_by", "resolved_at"])
        audit_record(
            actor=actor,
            action="import_problem_ignore",
            target=problem,
            data={"problem": problem.pk},
        )
    return problem
