"""Import problems: the records (and error answers) a run could not import, kept for staff.

A problem keeps its payload whole (see ``quarantine``); meeting the same bad
record again counts it once more on its open problem instead of adding one.
"""

from __future__ import annotations

from contextlib import suppress

from django.db import transaction
from django.utils import timezone

from catalogue.models import ImportProblem, ImportRun, Source
from ingestion.importing import quarantine, runs
from ingestion.importing.positions import WHOLE, Part, Position
from ingestion.importing.runs import RunCancelled
from ingestion.records import SourceError


def external_id(payload) -> str:
    if isinstance(payload, dict):
        return quarantine.safe_id(payload.get("id") or payload.get("arxiv_id"))
    return ""


def problem_for(run: ImportRun, payload, error: str) -> ImportProblem:
    """A problem keeping ``payload`` whole, in whichever column can store it."""
    source = Source.ARXIV if run.source == Source.ARXIV else Source.OPENALEX
    if isinstance(payload, dict) and "arxiv_id" in payload:
        source = Source.ARXIV
    kept, raw, note = quarantine.storable(payload)
    return ImportProblem(
        run=run,
        source=source,
        external_id=external_id(payload),
        payload=kept,
        raw_payload=raw,
        error=quarantine.with_note(error, note, raw),
    )


def problems_record(problems: list[ImportProblem], *, run: ImportRun | None) -> None:
    """Keep ``problems``: a bad record already open counts once more, others are added.

    Importing the same file twice thus leaves one open problem per bad record,
    with how many times it was seen and the run that saw it last.
    """
    now = timezone.now()
    fresh: dict[str, ImportProblem] = {}
    for problem in problems:
        problem.fingerprint = problem.fingerprint or quarantine.fingerprint(
            problem.source, problem.external_id, problem.payload, problem.raw_payload
        )
        problem.last_run, problem.last_seen_at = run, now
        if problem.fingerprint in fresh:
            fresh[problem.fingerprint].seen_count += 1
        else:
            fresh[problem.fingerprint] = problem
    if not fresh:
        return
    open_ones = ImportProblem.objects.select_for_update().filter(
        status=ImportProblem.Status.OPEN, fingerprint__in=list(fresh)
    )
    for known in open_ones:
        seen = fresh.pop(known.fingerprint)
        known.seen_count += seen.seen_count
        known.last_run, known.last_seen_at = run, now
        known.error, known.payload, known.raw_payload = seen.error, seen.payload, seen.raw_payload
        known.save(
            update_fields=[
                "seen_count",
                "last_run",
                "last_seen_at",
                "error",
                "payload",
                "raw_payload",
            ]
        )
    # Another process may add the same problem meanwhile: its row stands for both.
    ImportProblem.objects.bulk_create(list(fresh.values()), ignore_conflicts=True)


def source_error_problem(run: ImportRun, error: SourceError) -> ImportProblem:
    """A problem keeping what the source sent in place of a record (or a line not read)."""
    status = f" (HTTP {error.status})" if error.status and "HTTP" not in str(error) else ""
    raw, note = quarantine.storable_text(error.body or "")
    problem = ImportProblem(
        run=run,
        source=run.source if run.source in {Source.OPENALEX, Source.ARXIV} else Source.OPENALEX,
        external_id=quarantine.safe_id(error.external_id),
        raw_payload=raw,
        error=quarantine.with_note(f"{error}{status}", note, raw),
    )
    # A line of a recorded file that cannot be read is known by what it holds, wherever
    # it stood; an error answer (or a file that cannot be read at all) by its error too.
    by_error = "" if error.status is None and raw else problem.error
    problem.fingerprint = quarantine.fingerprint(
        problem.source, problem.external_id, None, raw, error=by_error
    )
    return problem


def source_error_record(run: ImportRun, error: SourceError, part: Part = WHOLE) -> None:
    with transaction.atomic():
        problems_record([source_error_problem(run, error)], run=run)
        after = Position(error.resume_at) if error.resume_at is not None else None
        with suppress(RunCancelled):  # the problem is kept all the same
            runs.import_run_progress_save(run, part, problems=1, after=after)
