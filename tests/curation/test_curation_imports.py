"""Curation of imports: problems retried or ignored, runs retried or cancelled, audited."""

import json

import pytest

import curation
from catalogue.models import (
    AuditEvent,
    ImportProblem,
    ImportRun,
    Work,
)
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.importing.requesting import Via, import_run_request
from ingestion.records import MappingError
from ingestion.sources.openalex import mapping as openalex
from tests.curation.curation_records import openalex_work

pytestmark = pytest.mark.django_db


# Import problems and runs -------------------------------------------------------


def run_file(path) -> ImportRun:
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    return import_run_execute(run_id=run.pk)


def test_retrying_a_problem_whose_payload_now_maps_imports_it(tmp_path, monkeypatch, staff):
    payload = openalex_work(5, "A record the old mapper choked on", [("A5000000005", "Rosalind F")])
    path = tmp_path / "work.json"
    path.write_text(json.dumps(payload))
    real_map_work = openalex.map_work

    def old_mapper(data):
        raise MappingError("work W900000005 has an authorship shape we did not know")

    monkeypatch.setattr(openalex, "map_work", old_mapper)
    run_file(path)
    problem = ImportProblem.objects.get()
    assert problem.status == "open" and not Work.objects.exists()

    monkeypatch.setattr(openalex, "map_work", real_map_work)  # the mapper was fixed
    assert curation.import_problem_retry(problem=problem, actor=staff) is None

    problem.refresh_from_db()
    assert (problem.status, problem.resolved_by) == ("retried", staff)
    work = Work.objects.get(openalex_id="W900000005")
    assert work.authorships.get().author.openalex_id == "A5000000005"
    event = AuditEvent.objects.get(action="import_problem_retry")
    assert (event.actor, event.data["succeeded"]) == (staff, True)


def test_a_retry_that_fails_again_keeps_the_problem_open_with_the_new_error(staff):
    problem = ImportProblem.objects.create(
        source="openalex",
        external_id="https://openalex.org/W900000006",
        payload={"id": "https://openalex.org/W900000006", "title": None},
        error="old error",
    )
    error = curation.import_problem_retry(problem=problem, actor=staff)
    assert "has no title" in error
    problem.refresh_from_db()
    assert (problem.status, problem.error) == ("open", error)
    assert AuditEvent.objects.get(action="import_problem_retry").data["succeeded"] is False


def test_a_problem_without_a_record_cannot_be_retried_but_can_be_ignored(staff):
    problem = ImportProblem.objects.create(
        source="openalex", raw_payload="<html>404</html>", error="HTTP 404"
    )
    with pytest.raises(ValueError, match="retry its import run"):
        curation.import_problem_retry(problem=problem, actor=staff)
    curation.import_problem_ignore(problem=problem, actor=staff)
    problem.refresh_from_db()
    assert (problem.status, problem.resolved_by) == ("ignored", staff)
    assert AuditEvent.objects.get(action="import_problem_ignore").actor == staff
    with pytest.raises(ValueError, match="already ignored"):
        curation.import_problem_ignore(problem=problem, actor=staff)


def test_run_decisions_by_staff_are_audited(staff, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        run = import_run_request(
            source="arxiv",
            kind="ids",
            parameters={"ids": ["2006.00001"]},
            requested_by=staff,
            via=Via.ADMIN,
        )
    assert len(callbacks) == 1  # the task is queued once the transaction commits
    assert (run.status, run.requested_by) == ("queued", staff)
    curation.import_run_cancel(run=run, actor=staff)
    run.refresh_from_db()
    assert run.status == "cancelled"
    with pytest.raises(ValueError, match="cannot be cancelled"):
        curation.import_run_cancel(run=run, actor=staff)
    with django_capture_on_commit_callbacks():
        curation.import_run_retry(run=run, actor=staff)
    run.refresh_from_db()
    assert run.status == "queued"
    with pytest.raises(ValueError, match="only failed or cancelled"):
        curation.import_run_retry(run=run, actor=staff)
    actions = list(AuditEvent.objects.order_by("pk").values_list("action", "actor"))
    assert actions == [
        ("import_run_create", staff.pk),
        ("import_run_cancel", staff.pk),
        ("import_run_retry", staff.pk),
    ]
